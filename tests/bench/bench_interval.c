/*
 * tests/bench/bench_interval.c - interval-model speed.
 *
 * For each trace kind (BENCH_KINDS, default "compute memory"), writes a
 * synthetic trace (BENCH_CTAS CTAs, default 256; BENCH_ITERS iterations,
 * default 32 for compute-like kinds and 64 for memory) to a temporary
 * directory, then measures, in CPU seconds of this process (the host is
 * shared: wall time varies), the best of BENCH_REPS runs (default 3):
 *   - the trace reader alone (every instruction decoded, nothing modelled),
 *   - the interval model alone, over records decoded beforehand into
 *     memory (im_run_insts),
 *   - the interval model with the reader (im_run_kernel),
 *   - the detailed model with the reader on the same whole kernel
 *     (dm_run_kernel; BENCH_DM_REPS runs, default 1),
 * and prints warp instructions per CPU second of each, the ratios
 * interval : detailed (both with the reader, and both without it: detailed
 * less the reader's time against the interval model alone), and the
 * aggregate over the kinds.  Not a timed test.
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

/* CPU seconds of this process. */
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

/* The whole kernel decoded into memory: one array per warp, CTA c's warps
 * at c * wpc ... (the layout im_run_insts reads). */
typedef struct decoded {
    wc_inst **warps;
    size_t *n;
    size_t nwarps;
    uint64_t insts;
} decoded;

static void decoded_free(decoded *x)
{
    for (size_t i = 0; i < x->nwarps; i++)
        free(x->warps[i]);
    free(x->warps);
    free(x->n);
    memset(x, 0, sizeof *x);
}

static int decode_all(wc_trace *t, unsigned wpc, uint64_t ctas, decoded *x,
                      wc_diag *d)
{
    memset(x, 0, sizeof *x);
    x->nwarps = (size_t)(ctas * wpc);
    x->warps = calloc(x->nwarps, sizeof *x->warps);
    x->n = calloc(x->nwarps, sizeof *x->n);
    if (!x->warps || !x->n)
        return -1;
    wc_kreader *kr = NULL;
    if (wc_kreader_open(t, 0, &kr, d) != 0)
        return -1;
    wc_inst in;
    for (uint64_t ci = 0;; ci++) {
        wc_cta *c = NULL;
        if (wc_kreader_next(kr, &c, d) != 0) {
            wc_kreader_close(kr);
            return -1;
        }
        if (!c)
            break;
        for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
            size_t k = (size_t)(ci * wpc + wc_cta_warp_id(c, w));
            size_t cap = 0;
            if (ci >= ctas || wc_cta_warp_id(c, w) >= wpc) {
                wc_cta_free(c);
                wc_kreader_close(kr);
                return -1; /* not the dense layout of a synthetic trace */
            }
            while (wc_cta_next(c, w, &in, d) == 1) {
                if (x->n[k] == cap) {
                    cap = cap ? cap * 2 : 64;
                    wc_inst *p = realloc(x->warps[k], cap * sizeof *p);
                    if (!p) {
                        wc_cta_free(c);
                        wc_kreader_close(kr);
                        return -1;
                    }
                    x->warps[k] = p;
                }
                x->warps[k][x->n[k]++] = in;
                x->insts++;
            }
        }
        wc_cta_free(c);
    }
    wc_kreader_close(kr);
    return 0;
}

typedef struct figs {
    uint64_t insts;
    double rd, im_alone, im, dm; /* best CPU seconds (dm < 0: failed)      */
    uint64_t cycles_alone, cycles;
} figs;

static int bench_kind(const char *kind, figs *f)
{
    char dir[] = "/tmp/warpcast-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    memset(f, 0, sizeof *f);
    int reps = (int)env("BENCH_REPS", 3), dreps = (int)env("BENCH_DM_REPS", 1);
    if (reps < 1)
        reps = 1;
    wc_diag d;
    wc_synth_params sp;
    wc_synth_defaults(&sp, kind);
    sp.ctas = (unsigned)env("BENCH_CTAS", 256);
    sp.iters = (unsigned)env("BENCH_ITERS", strcmp(kind, "memory") ? 32 : 64);
    if (wc_synth_write(&sp, dir, &d) != 0) {
        rm_dir(dir);
        return fail("synth", &d);
    }
    int rc = 1;
    wc_trace *t = NULL;
    decoded dec = {0};
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
    f->rd = 1e300;
    wc_inst *in = malloc(sizeof *in);
    for (int rep = 0; rep < reps && in; rep++) {
        double c0 = cpu_now();
        uint64_t n = 0;
        wc_kreader *kr = NULL;
        if (wc_kreader_open(t, 0, &kr, &d) != 0) {
            free(in);
            fail("reader", &d);
            goto out;
        }
        for (;;) {
            wc_cta *c = NULL;
            if (wc_kreader_next(kr, &c, &d) != 0 || !c)
                break;
            for (unsigned w = 0; w < wc_cta_nwarps(c); w++)
                while (wc_cta_next(c, w, in, &d) == 1)
                    n++;
            wc_cta_free(c);
        }
        wc_kreader_close(kr);
        double dt = cpu_now() - c0;
        if (dt < f->rd)
            f->rd = dt;
        f->insts = n;
    }
    free(in);
    /* interval model alone over decoded records */
    unsigned wpc = ki->warps_per_cta ? (unsigned)ki->warps_per_cta
                                     : (unsigned)((ki->block[0] + 31) / 32);
    if (decode_all(t, wpc, ki->ctas, &dec, &d) != 0) {
        fail("decode", &d);
        goto out;
    }
    f->im_alone = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        im_result r;
        double c0 = cpu_now();
        if (im_run_insts(ki, (const wc_inst *const *)dec.warps, dec.n, &g,
                         NULL, &r, &d) != 0) {
            fail("interval (decoded)", &d);
            goto out;
        }
        double dt = cpu_now() - c0;
        if (dt < f->im_alone)
            f->im_alone = dt;
        f->cycles_alone = r.cycles;
        im_result_free(&r);
    }
    decoded_free(&dec);
    /* interval model with the reader */
    f->im = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        im_result r;
        double c0 = cpu_now();
        if (im_run_kernel(t, 0, &g, NULL, &r, &d) != 0) {
            fail("interval", &d);
            goto out;
        }
        double dt = cpu_now() - c0;
        if (dt < f->im)
            f->im = dt;
        f->cycles = r.cycles;
        im_result_free(&r);
    }
    /* detailed model with the reader, the same whole kernel */
    f->dm = dreps > 0 ? 1e300 : -1;
    for (int rep = 0; rep < dreps; rep++) {
        dm_options dopt;
        dm_options_default(&dopt);
        dm_result dr;
        double c0 = cpu_now();
        if (dm_run_kernel(t, 0, &g, &dopt, &dr, &d) != 0) {
            fail("detailed (skipped)", &d);
            f->dm = -1;
            break;
        }
        double dt = cpu_now() - c0;
        if (dt < f->dm)
            f->dm = dt;
        dm_result_free(&dr);
    }
    double M = 1e6, n = (double)f->insts;
    printf("bench_interval: trace %s ctas=%u iters=%u: %llu warp insts, "
           "best CPU time of %d (detailed %d)\n",
           kind, sp.ctas, sp.iters, (unsigned long long)f->insts, reps,
           dreps);
    printf("  reader alone            %8.2f M warp insts/s (%.3f s)\n",
           n / f->rd / M, f->rd);
    printf("  interval, model alone   %8.2f M warp insts/s (%.3f s, "
           "decoded records; %llu cycles)\n",
           n / f->im_alone / M, f->im_alone,
           (unsigned long long)f->cycles_alone);
    printf("  interval, with reader   %8.2f M warp insts/s (%.3f s; %llu "
           "cycles)\n",
           n / f->im / M, f->im, (unsigned long long)f->cycles);
    if (f->dm > 0) {
        double dm_alone = f->dm - f->rd;
        printf("  detailed, with reader   %8.2f M warp insts/s (%.3f s)\n",
               n / f->dm / M, f->dm);
        printf("  interval : detailed     %8.1fx with the reader, %.1fx "
               "models alone (detailed less the reader)\n",
               f->dm / f->im, dm_alone > 0 ? dm_alone / f->im_alone : 0);
    }
    rc = 0;
out:
    decoded_free(&dec);
    wc_trace_close(t);
    rm_dir(dir);
    return rc;
}

int main(void)
{
    const char *kinds = getenv("BENCH_KINDS");
    if (!kinds || !*kinds)
        kinds = getenv("BENCH_KIND"); /* older name: one kind */
    char buf[512];
    snprintf(buf, sizeof buf, "%s", kinds && *kinds ? kinds : "compute memory");
    figs tot = {0};
    int nk = 0, dm_ok = 1;
    for (char *s = strtok(buf, " ,"); s; s = strtok(NULL, " ,")) {
        figs f;
        if (bench_kind(s, &f) != 0)
            return 1;
        tot.insts += f.insts;
        tot.rd += f.rd;
        tot.im_alone += f.im_alone;
        tot.im += f.im;
        if (f.dm > 0)
            tot.dm += f.dm;
        else
            dm_ok = 0;
        nk++;
    }
    if (nk > 1 && dm_ok && tot.im > 0 && tot.im_alone > 0)
        printf("aggregate over %d kinds: interval %.2f M/s alone, %.2f M/s "
               "with reader; interval : detailed %.1fx with the reader, "
               "%.1fx models alone\n",
               nk, (double)tot.insts / tot.im_alone / 1e6,
               (double)tot.insts / tot.im / 1e6, tot.dm / tot.im,
               (tot.dm - tot.rd) / tot.im_alone);
    printf("  peak RSS: %ld KiB\n", peak_rss_kb());
    return 0;
}
