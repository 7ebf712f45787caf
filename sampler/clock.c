/*
 * sampler/clock.c - host cost probe: thread CPU time always, and the task's
 * CPU cycles through a perf_event counter (encoded by libpfm4, loaded on
 * first use) when the build has libpfm4's headers, the library is present
 * at run time and the kernel lets this process open the counter
 * (perf_event_paranoid, containers and VMs often refuse: then only time).
 *
 * Used by the budget logic (cost per warp instruction of each model) and
 * --self-profile.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(WC_HAVE_PFM)
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/ioctl.h>
#endif

#include <pthread.h>

#include "smp.h"

struct smp_clock {
    int fd; /* perf_event counter, -1 when none */
};

#if defined(WC_HAVE_PFM)
/*
 * libpfm4 is loaded when a counter is first asked for (--self-profile,
 * --budget), not linked: its event tables cost every process some 4-6 ms
 * at start-up (warpcast --version, perf stat -r 30: 14.4 -> 10.9 ms CPU),
 * which every `sweep` point and every short `predict` paid for a counter
 * it never opened.  Missing at run time, it is as if the kernel refused
 * the counter: time only.
 */
static int pfm_state; /* 1 ok, -1 failed (set once, pfm_once) */
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static pfm_err_t (*pfm_init_fn)(void);
static pfm_err_t (*pfm_encode_fn)(const char *, int, pfm_os_t, void *);

/* A function of h (a data pointer from dlsym, copied into a function
 * pointer as POSIX allows). */
static int sym(void *h, const char *name, void *fn, size_t n)
{
    void *p = dlsym(h, name);
    if (!p)
        return -1;
    memcpy(fn, &p, n);
    return 0;
}

static void pfm_init_once(void)
{
    pfm_state = -1;
    void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    if (sym(h, "pfm_initialize", &pfm_init_fn, sizeof pfm_init_fn) != 0 ||
        sym(h, "pfm_get_os_event_encoding", &pfm_encode_fn,
            sizeof pfm_encode_fn) != 0 ||
        pfm_init_fn() != PFM_SUCCESS) {
        dlclose(h);
        return;
    }
    pfm_state = 1; /* h stays loaded for the process */
}

static int open_cycles(void)
{
    /* a clock per thread (predict --jobs): libpfm4 initialised once */
    pthread_once(&pfm_once, pfm_init_once);
    if (pfm_state < 0)
        return -1;
    struct perf_event_attr attr;
    pfm_perf_encode_arg_t arg;
    memset(&attr, 0, sizeof attr);
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    /* User-level cycles of this thread only (allowed at paranoid <= 2). */
    if (pfm_encode_fn("cycles", PFM_PLM3, PFM_OS_PERF_EVENT, &arg) !=
        PFM_SUCCESS)
        return -1;
    attr.size = sizeof attr;
    attr.disabled = 0;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    int fd = perf_event_open(&attr, 0, -1, -1, 0);
    if (fd < 0)
        return -1;
    /* A counter that never counts (some VMs) is no counter. */
    uint64_t v = 0;
    volatile double sink = 0;
    for (int i = 0; i < 100000; i++)
        sink = sink + (double)i;
    (void)sink;
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v || v == 0) {
        close(fd);
        return -1;
    }
    return fd;
}
#endif

smp_clock *smp_clock_create(int want_cycles)
{
    smp_clock *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    c->fd = -1;
#if defined(WC_HAVE_PFM)
    if (want_cycles)
        c->fd = open_cycles();
#else
    (void)want_cycles;
#endif
    return c;
}

void smp_clock_free(smp_clock *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}

int smp_clock_has_cycles(const smp_clock *c)
{
    return c && c->fd >= 0;
}

void smp_clock_read(smp_clock *c, double *seconds, double *cycles)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    *seconds = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    *cycles = 0;
    if (c && c->fd >= 0) {
        uint64_t v = 0;
        if (read(c->fd, &v, sizeof v) == (ssize_t)sizeof v)
            *cycles = (double)v;
    }
}
