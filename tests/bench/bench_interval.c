/*
 * tests/bench/bench_interval.c - interval-model speed (issue 13 targets).
 *
 * For each trace kind (BENCH_KINDS, default "compute memory"), writes a
 * synthetic trace (BENCH_CTAS CTAs, default 1024; BENCH_ITERS iterations,
 * default 32 for compute-like kinds and 64 for memory: about 6 M and 7 M
 * warp instructions) to a temporary directory, converts it to the binary
 * form (wc_trace_convert, as `warpcast convert`), then measures, in CPU
 * seconds of this process (the host is shared: wall time varies), the best
 * of BENCH_REPS runs (default 3):
 *   - the trace reader alone (every instruction decoded, nothing
 *     modelled): text, binary (wc_cta_next) and binary by reference
 *     (wc_cta_next_ref, what the interval model reads),
 *   - the interval model alone, over records decoded beforehand into
 *     memory (im_run_insts),
 *   - the interval model with the text reader and with the binary reader
 *     (im_run_kernel),
 *   - the detailed model with the binary reader on the same whole kernel
 *     (dm_run_kernel; BENCH_DM_REPS runs, default 1; BENCH_DM_TEXT=1 also
 *     times it over the text),
 * and prints warp instructions per CPU second of each, the ratio interval :
 * detailed (both from the binary form, measured in this run) and the
 * aggregate over the kinds, with the issue 13 targets: interval >= 30x
 * the detailed model in aggregate, >= 50 M warp instructions/s on
 * compute-like kernels from the binary form.  Not a timed test.
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
    const char *files[] = {"kernelslist.g", "kernel-1.traceg", "kernels.sass",
                           "trace.wctb"};
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
        if (ci >= ctas) {
            wc_cta_free(c);
            break;
        }
        for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
            size_t k = (size_t)(ci * wpc + wc_cta_warp_id(c, w));
            size_t cap = 0;
            if (wc_cta_warp_id(c, w) >= wpc) {
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
    /* best CPU seconds (dm < 0: not run or failed) */
    double rd, rd_bin, rd_ref, im_alone, im, im_bin, dm, dm_text;
    uint64_t cycles_alone, cycles, cycles_bin;
    uint64_t recalled;  /* warps the warp memo recalled, binary reader */
    uint64_t insts_alone, ctas_alone;
} figs;

/* Best CPU seconds of reps passes of the reader over kernel 0 of t (ref:
 * by reference, where the library has it); *n gets the instructions. */
static double time_reader(wc_trace *t, int reps, int ref, uint64_t *n,
                          wc_diag *d)
{
    double best = 1e300;
    wc_inst *in = malloc(sizeof *in);
    if (!in)
        return -1;
    for (int rep = 0; rep < reps; rep++) {
        double c0 = cpu_now();
        uint64_t k = 0;
        wc_kreader *kr = NULL;
        if (wc_kreader_open(t, 0, &kr, d) != 0) {
            free(in);
            return -1;
        }
        for (;;) {
            wc_cta *c = NULL;
            if (wc_kreader_next(kr, &c, d) != 0 || !c)
                break;
            for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
#ifdef WC_SID_NONE
                if (ref) {
                    wc_iref r;
                    while (wc_cta_next_ref(c, w, in, &r, d) == 1)
                        k++;
                    continue;
                }
#endif
                while (wc_cta_next(c, w, in, d) == 1)
                    k++;
            }
            wc_cta_free(c);
        }
        wc_kreader_close(kr);
        double dt = cpu_now() - c0;
        if (dt < best)
            best = dt;
        *n = k;
    }
    (void)ref;
    free(in);
    return best;
}

/* Best CPU seconds of reps interval runs over kernel 0 of t. */
static double time_interval(wc_trace *t, const wc_gpu *g, int reps,
                            uint64_t *cycles, uint64_t *recalled, wc_diag *d)
{
    double best = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        im_result r;
        double c0 = cpu_now();
        if (im_run_kernel(t, 0, g, NULL, &r, d) != 0)
            return -1;
        double dt = cpu_now() - c0;
        if (dt < best)
            best = dt;
        *cycles = r.cycles;
        if (recalled)
            *recalled = r.warps_recalled;
        im_result_free(&r);
    }
    return best;
}

/* Best CPU seconds of reps detailed runs over kernel 0 of t (-1: none). */
static double time_detailed(wc_trace *t, const wc_gpu *g, int reps,
                            wc_diag *d)
{
    double best = reps > 0 ? 1e300 : -1;
    for (int rep = 0; rep < reps; rep++) {
        dm_options dopt;
        dm_options_default(&dopt);
        dm_result dr;
        double c0 = cpu_now();
        if (dm_run_kernel(t, 0, g, &dopt, &dr, d) != 0) {
            fail("detailed (skipped)", d);
            return -1;
        }
        double dt = cpu_now() - c0;
        if (dt < best)
            best = dt;
        dm_result_free(&dr);
    }
    return best;
}

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
    sp.ctas = (unsigned)env("BENCH_CTAS", 1024);
    sp.iters = (unsigned)env("BENCH_ITERS", strcmp(kind, "memory") ? 32 : 64);
    if (wc_synth_write(&sp, dir, &d) != 0) {
        rm_dir(dir);
        return fail("synth", &d);
    }
    int rc = 1;
    wc_trace *t = NULL, *tb = NULL;
    decoded dec = {0};
    char bin[1200];
    snprintf(bin, sizeof bin, "%s/trace.wctb", dir);
    if (wc_trace_open(dir, &t, &d) != 0) {
        fail("open", &d);
        goto out;
    }
    wc_convert_stats cst;
    if (wc_trace_convert(t, bin, &cst, &d) != 0) {
        fail("convert", &d);
        goto out;
    }
    if (wc_trace_open(bin, &tb, &d) != 0) {
        fail("open binary", &d);
        goto out;
    }
    const wc_kernel_info *ki = wc_trace_kernel(t, 0);
    wc_gpu g;
    if (wc_gpu_load(wc_gpu_for_binary(ki->binary_version), &g, &d) != 0) {
        fail("gpu", &d);
        goto out;
    }
    /* readers alone */
    uint64_t nb = 0, nr = 0;
    f->rd = time_reader(t, reps, 0, &f->insts, &d);
    f->rd_bin = time_reader(tb, reps, 0, &nb, &d);
    f->rd_ref = time_reader(tb, reps, 1, &nr, &d);
    if (f->rd < 0 || f->rd_bin < 0 || f->rd_ref < 0 || nb != f->insts ||
        nr != f->insts) {
        fail("reader", &d);
        goto out;
    }
    /* interval model with the text and the binary reader */
    f->im = time_interval(t, &g, reps, &f->cycles, NULL, &d);
    f->im_bin = time_interval(tb, &g, reps, &f->cycles_bin, &f->recalled, &d);
    if (f->im < 0 || f->im_bin < 0) {
        fail("interval", &d);
        goto out;
    }
    /* detailed model with the binary reader, the same whole kernel */
    f->dm = time_detailed(tb, &g, dreps, &d);
    f->dm_text = env("BENCH_DM_TEXT", 0) ? time_detailed(t, &g, dreps, &d)
                                         : -1;
    /* interval model alone over records decoded into memory (last: 400
     * bytes a record; the first BENCH_ALONE_CTAS CTAs, default 256) */
    uint64_t na = (uint64_t)env("BENCH_ALONE_CTAS", 256);
    if (na == 0 || na > ki->ctas)
        na = ki->ctas;
    wc_kernel_info kin = *ki;
    kin.ctas = na;
    kin.grid[0] = (unsigned)na;
    kin.grid[1] = kin.grid[2] = 1;
    unsigned wpc = ki->warps_per_cta ? (unsigned)ki->warps_per_cta
                                     : (unsigned)((ki->block[0] + 31) / 32);
    if (decode_all(t, wpc, na, &dec, &d) != 0) {
        fail("decode", &d);
        goto out;
    }
    f->im_alone = 1e300;
    for (int rep = 0; rep < reps; rep++) {
        im_result r;
        double c0 = cpu_now();
        if (im_run_insts(&kin, (const wc_inst *const *)dec.warps, dec.n, &g,
                         NULL, &r, &d) != 0) {
            fail("interval (decoded)", &d);
            goto out;
        }
        double dt = cpu_now() - c0;
        if (dt < f->im_alone)
            f->im_alone = dt;
        f->cycles_alone = r.cycles;
        f->ctas_alone = na;
        f->insts_alone = r.warp_insts;
        im_result_free(&r);
    }
    decoded_free(&dec);
    double M = 1e6, n = (double)f->insts;
    printf("bench_interval: trace %s ctas=%u iters=%u: %llu warp insts, "
           "best CPU time of %d (detailed %d)\n",
           kind, sp.ctas, sp.iters, (unsigned long long)f->insts, reps,
           dreps);
    printf("  reader, text            %8.2f M warp insts/s (%.3f s)\n",
           n / f->rd / M, f->rd);
    printf("  reader, binary          %8.2f M warp insts/s (%.3f s)\n",
           n / f->rd_bin / M, f->rd_bin);
    printf("  reader, binary by ref   %8.2f M warp insts/s (%.3f s)\n",
           n / f->rd_ref / M, f->rd_ref);
    printf("  interval, model alone   %8.2f M warp insts/s (%.3f s, "
           "records decoded beforehand, first %llu CTAs; %llu cycles)\n",
           (double)f->insts_alone / f->im_alone / M, f->im_alone,
           (unsigned long long)f->ctas_alone,
           (unsigned long long)f->cycles_alone);
    printf("  interval, text reader   %8.2f M warp insts/s (%.3f s; %llu "
           "cycles)\n",
           n / f->im / M, f->im, (unsigned long long)f->cycles);
    printf("  interval, binary reader %8.2f M warp insts/s (%.3f s; %llu "
           "cycles; %llu warps recalled)\n",
           n / f->im_bin / M, f->im_bin, (unsigned long long)f->cycles_bin,
           (unsigned long long)f->recalled);
    if (f->dm_text > 0)
        printf("  detailed, text reader   %8.2f M warp insts/s (%.3f s)\n",
               n / f->dm_text / M, f->dm_text);
    if (f->dm > 0) {
        printf("  detailed, binary reader %8.2f M warp insts/s (%.3f s)\n",
               n / f->dm / M, f->dm);
        printf("  interval : detailed     %8.1fx from the binary form\n",
               f->dm / f->im_bin);
    }
    if (f->cycles != f->cycles_bin) {
        fprintf(stderr, "bench_interval: %s: cycles differ between the "
                        "text and the binary form (%llu, %llu)\n",
                kind, (unsigned long long)f->cycles,
                (unsigned long long)f->cycles_bin);
        goto out;
    }
    rc = 0;
out:
    decoded_free(&dec);
    wc_trace_close(t);
    wc_trace_close(tb);
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
    double compute_min = 0; /* slowest compute-like kind, binary reader */
    for (char *s = strtok(buf, " ,"); s; s = strtok(NULL, " ,")) {
        figs f;
        if (bench_kind(s, &f) != 0)
            return 1;
        tot.insts += f.insts;
        tot.rd += f.rd;
        tot.rd_bin += f.rd_bin;
        tot.im_alone += f.im_alone;
        tot.insts_alone += f.insts_alone;
        tot.im += f.im;
        tot.im_bin += f.im_bin;
        if (f.dm > 0)
            tot.dm += f.dm;
        else
            dm_ok = 0;
        if (strcmp(s, "memory") != 0 && strcmp(s, "chase") != 0) {
            double m = (double)f.insts / f.im_bin / 1e6;
            if (compute_min == 0 || m < compute_min)
                compute_min = m;
        }
        nk++;
    }
    if (nk > 1 && tot.im > 0 && tot.im_alone > 0)
        printf("aggregate over %d kinds: interval %.2f M/s alone, %.2f M/s "
               "text reader, %.2f M/s binary reader\n",
               nk, (double)tot.insts_alone / tot.im_alone / 1e6,
               (double)tot.insts / tot.im / 1e6,
               (double)tot.insts / tot.im_bin / 1e6);
    if (dm_ok && tot.dm > 0) {
        double ratio = tot.dm / tot.im_bin;
        printf("issue 13 target: interval : detailed in aggregate, binary "
               "form: %.1fx (>= 30x: %s)\n",
               ratio, ratio >= 30 ? "met" : "NOT met");
    }
    if (compute_min > 0)
        printf("issue 13 target: interval on compute-like kernels, binary "
               "form: %.1f M warp insts/s (>= 50: %s)\n",
               compute_min, compute_min >= 50 ? "met" : "NOT met");
    printf("  peak RSS: %ld KiB\n", peak_rss_kb());
    return 0;
}
