/*
 * tests/unit/test_mem_launches.c - memory does not grow with the number of
 * kernel launches (issue 12): a tiny synthetic kernel listed 400 and 4000
 * times in kernelslist.g; `warpcast predict` in every mode (and --jobs 2,
 * every --format) and `warpcast info` run as child processes, and the peak
 * RSS (ru_maxrss) of the long run may exceed that of the short one by less
 * than 1 MB (2 MB with several threads).  Before launch records were dropped as predict went, the
 * difference was about 6 MB (1.7 KB a launch).
 *
 * The program is $WARPCAST, else warpcast beside the tests directory this
 * test runs from (build/tests/test_mem_launches -> build/warpcast).  Under
 * AddressSanitizer RSS says nothing about the heap: the runs are made (exit
 * status checked) with fewer launches and the bound is skipped with a
 * notice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "check.h"
#include "synth_fixture.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define BOUND_KB 1024L

static char prog[1024];

/* dir/kernelslist.g listing kernel-1.traceg n times. */
static int make_list(const char *src, const char *dir, unsigned n)
{
    char p[1100], q[1100];
    snprintf(p, sizeof p, "%s/kernel-1.traceg", dir);
    snprintf(q, sizeof q, "%s/kernel-1.traceg", src);
    if (symlink(q, p) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/kernelslist.g", dir);
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    fprintf(f, "MemcpyHtoD,0x00007f0000000000,4096\n");
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "kernel-1.traceg\n");
    return fclose(f);
}

/* Run prog with args (stdout, stderr to /dev/null); peak RSS in KB, or -1
 * when it does not exit 0. */
static long run_rss(char *const *args)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(prog, args);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0)
        return -1;
    return ru.ru_maxrss;
}

/* bound: KB; with several threads the per-thread malloc arenas make the
 * peak depend on timing (up to about 0.8 MB seen), so those get 2 MB */
static void one(const char *what, const char *d_small, const char *d_large,
                char **args, int slot, long bound)
{
    args[slot] = (char *)d_small;
    long a = run_rss(args);
    args[slot] = (char *)d_large;
    long b = run_rss(args);
    CHECK(a > 0);
    CHECK(b > 0);
    if (UNDER_ASAN) {
        printf("  %-34s ran (RSS bound skipped under AddressSanitizer)\n",
               what);
        return;
    }
    printf("  %-34s peak RSS %ld KB -> %ld KB\n", what, a, b);
    CHECK(b - a < bound);
}

/* Dropped launch records are made again, equal to the first ones; one
 * whose file went away gives an error (not a crash) when read. */
static void forget_and_remake(const char *src)
{
    char dir[128], p[256];
    snprintf(dir, sizeof dir, "/tmp/wc-memf-XXXXXX");
    if (!mkdtemp(dir) || make_list(src, dir, 3) != 0) {
        CHECK(0);
        return;
    }
    wc_trace *t = NULL;
    wc_diag d;
    CHECK(wc_trace_open(dir, &t, &d) == 0);
    if (t) {
        CHECK(wc_trace_nkernels(t) == 3);
        wc_kernel_info a = *wc_trace_kernel(t, 1);
        const uint64_t *ci;
        uint64_t n;
        CHECK(wc_trace_cta_insts(t, 1, &ci, &n, &d) == 0);
        CHECK(n == 2);
        wc_trace_forget(t, 3);
        const wc_kernel_info *b = wc_trace_kernel(t, 1);
        CHECK(b->id == a.id && b->name == a.name && b->ctas == a.ctas &&
              b->warps_per_cta == a.warps_per_cta);
        CHECK(wc_trace_cta_insts(t, 1, &ci, &n, &d) == 0);
        CHECK(n == 2);
        wc_trace_forget(t, 3);
        snprintf(p, sizeof p, "%s/kernel-1.traceg", dir);
        unlink(p);
        wc_kreader *r = NULL;
        CHECK(wc_kreader_open(t, 2, &r, &d) == WC_EINPUT);
        CHECK(r == NULL);
        CHECK(strstr(d.msg, "launch 3") != NULL);
        wc_trace_close(t);
    }
    fixture_rm_tree(dir);
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *env = getenv("WARPCAST");
    if (env && *env) {
        snprintf(prog, sizeof prog, "%s", env);
    } else {
        const char *sl = strrchr(argv[0], '/');
        size_t n = sl ? (size_t)(sl - argv[0]) : 0;
        snprintf(prog, sizeof prog, "%.*s%s../warpcast", (int)n, argv[0],
                 n ? "/" : "");
    }
    if (access(prog, X_OK) != 0) {
        printf("test_mem_launches: %s not built: skipped\n", prog);
        return 0;
    }
    synth_fixture fx;
    wc_synth_params sp;
    wc_synth_defaults(&sp, "compute");
    sp.ctas = 2;
    sp.threads = 64;
    sp.iters = 2;
    if (synth_fixture_open(&fx, "memk", &sp, NULL, 0) != 0) {
        CHECK(0);
        CHECK_DONE();
    }
    forget_and_remake(fx.dir);
    unsigned ns = UNDER_ASAN ? 40 : 400, nl = UNDER_ASAN ? 200 : 4000;
    char ds[128], dl[128];
    snprintf(ds, sizeof ds, "/tmp/wc-mems-XXXXXX");
    snprintf(dl, sizeof dl, "/tmp/wc-meml-XXXXXX");
    if (!mkdtemp(ds) || !mkdtemp(dl) || make_list(fx.dir, ds, ns) != 0 ||
        make_list(fx.dir, dl, nl) != 0) {
        CHECK(0);
    } else {
        printf("test_mem_launches: %u vs %u launches\n", ns, nl);
        static const char *const modes[] = {"interval", "detailed", "hybrid"};
        for (int m = 0; m < 3; m++) {
            char what[64];
            snprintf(what, sizeof what, "predict --mode %s", modes[m]);
            char *args[] = {prog, "predict", "--mode", (char *)modes[m],
                            "--jobs", "1", "--format", "json", NULL, NULL};
            one(what, ds, dl, args, 8, BOUND_KB);
        }
        char *a2[] = {prog, "predict", "--mode", "detailed", "--jobs", "2",
                      "--format", "csv", NULL, NULL};
        one("predict --mode detailed --jobs 2", ds, dl, a2, 8, 2 * BOUND_KB);
        char *a3[] = {prog, "predict", "--mode", "hybrid", "--jobs", "3",
                      NULL, NULL};
        one("predict --mode hybrid --jobs 3", ds, dl, a3, 6, 2 * BOUND_KB);
        char *a4[] = {prog, "info", "--format", "text", NULL, NULL};
        one("info", ds, dl, a4, 4, BOUND_KB);
    }
    fixture_rm_tree(ds);
    fixture_rm_tree(dl);
    synth_fixture_close(&fx);
    CHECK_DONE();
}
