/*
 * tests/bench/bench_interval.c - interval-model speed.
 *
 * Writes a large synthetic trace (kind mixed-body "compute" by default; set
 * BENCH_KIND / BENCH_CTAS / BENCH_ITERS to change it) to a temporary
 * directory, then measures warp instructions per host second of
 *   - the trace reader alone (every instruction decoded, nothing modelled),
 *   - the interval model on the whole kernel,
 *   - the detailed model on a window of its CTAs (BENCH_DM_CTAS, default 32),
 * and the peak resident set size after the interval run.  Prints one line
 * per figure; not a timed test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dm.h"
#include "im.h"
#include "wc.h"
#include "wc_synth.h"

static long env(const char *n, long def)
{
    const char *v = getenv(n);
    return v && *v ? atol(v) : def;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* CPU seconds of this process (the host is shared: wall time varies). */
static double cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *what, const wc_diag *d)
{
    char b[2200];
    wc_diag_format(d, b, sizeof b);
    fprintf(stderr, "bench_interval: %s: %s\n", what, b);
    return 1;
}

static void rm_dir(const char *dir)
{
    char p[1200];
    const char *files[] = {"kernelslist.g", "kernel-1.traceg", "kernels.sass"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

int main(void)
{
    char dir[] = "/tmp/warpcast-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    wc_diag d;
    wc_synth_params sp;
    const char *kind = getenv("BENCH_KIND") ? getenv("BENCH_KIND") : "compute";
    wc_synth_defaults(&sp, kind);
    sp.ctas = (unsigned)env("BENCH_CTAS", 512);
    sp.iters = (unsigned)env("BENCH_ITERS", 32);
    double t0 = wc_now();
    if (wc_synth_write(&sp, dir, &d) != 0) {
        rm_dir(dir);
        return fail("synth", &d);
    }
    double tgen = wc_now() - t0;
    int rc = 1;
    wc_trace *t = NULL;
    if (wc_trace_open(dir, &t, &d) != 0) {
        fail("open", &d);
        goto out;
    }
    const wc_kernel_info *ki = wc_trace_kernel(t, 0);
    wc_gpu g;
    if (wc_gpu_load(wc_gpu_for_binary(ki->binary_version), &g, &d) != 0) {
        fail("gpu", &d);
        goto out;
    }
    /* reader alone */
    t0 = wc_now();
    double c0 = cpu_now();
    uint64_t n = 0;
    wc_kreader *kr = NULL;
    if (wc_kreader_open(t, 0, &kr, &d) != 0) {
        fail("reader", &d);
        goto out;
    }
    wc_inst *in = malloc(sizeof *in);
    for (;;) {
        wc_cta *c = NULL;
        if (wc_kreader_next(kr, &c, &d) != 0 || !c)
            break;
        for (unsigned w = 0; w < wc_cta_nwarps(c); w++)
            while (wc_cta_next(c, w, in, &d) == 1)
                n++;
        wc_cta_free(c);
    }
    free(in);
    wc_kreader_close(kr);
    double trd = wc_now() - t0, crd = cpu_now() - c0;
    /* interval model */
    im_result r;
    t0 = wc_now();
    c0 = cpu_now();
    if (im_run_kernel(t, 0, &g, NULL, &r, &d) != 0) {
        fail("interval", &d);
        goto out;
    }
    double tim = wc_now() - t0, cim = cpu_now() - c0;
    long rss = peak_rss_kb();
    /* detailed model on a window */
    dm_options dopt;
    dm_options_default(&dopt);
    dopt.cta_count = (uint64_t)env("BENCH_DM_CTAS", 32);
    dm_result dr;
    t0 = wc_now();
    double tdm = -1, dm_rate = 0;
    if (dm_run_kernel(t, 0, &g, &dopt, &dr, &d) == 0) {
        tdm = wc_now() - t0;
        dm_rate = tdm > 0 ? (double)dr.warp_insts / tdm : 0;
        dm_result_free(&dr);
    } else {
        fail("detailed (skipped)", &d);
    }
    double im_rate = (double)r.warp_insts / tim, rd_rate = (double)n / trd;
    printf("bench_interval: trace %s ctas=%u iters=%u: %llu warp insts "
           "(generated in %.2f s)\n",
           kind, sp.ctas, sp.iters, (unsigned long long)n, tgen);
    printf("  reader alone     %12.0f warp insts/s (%.3f s, %.3f s CPU: "
           "%.0f/s)\n",
           rd_rate, trd, crd, crd > 0 ? (double)n / crd : 0);
    printf("  interval model   %12.0f warp insts/s (%.3f s, %.3f s CPU: "
           "%.0f/s), %.2fx the reader's CPU time, model alone %.0f/s, "
           "predicted %llu cycles\n",
           im_rate, tim, cim, cim > 0 ? (double)r.warp_insts / cim : 0,
           crd > 0 ? cim / crd : 0,
           cim > crd ? (double)r.warp_insts / (cim - crd) : 0,
           (unsigned long long)r.cycles);
    if (tdm >= 0)
        printf("  detailed model   %12.0f warp insts/s (window of %llu CTAs)"
               " -> interval is %.0fx faster\n",
               dm_rate, (unsigned long long)dopt.cta_count,
               dm_rate > 0 ? im_rate / dm_rate : 0);
    printf("  peak RSS after the interval run: %ld KiB\n", rss);
    im_result_free(&r);
    rc = 0;
out:
    wc_trace_close(t);
    rm_dir(dir);
    return rc;
}
