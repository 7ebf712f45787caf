/*
 * tests/bench/bench_hybrid.c - hybrid mode against full detailed mode:
 * cycles error, 95% interval coverage over seeds, and host speedup, on the
 * shared real traces and synthetic kernels of every kind.
 *
 *   bench_hybrid                 medium synthetic kernels + ../shared traces
 *   bench_hybrid --long          adds kernels of 100M+ warp instructions
 *                                (written under /tmp, removed afterwards)
 *   bench_hybrid --seeds N       seeds per kernel for coverage (default 10)
 *   bench_hybrid --only KIND     one synthetic kind
 *   bench_hybrid TRACE...        these traces instead
 *
 * Prints one markdown table row per kernel (docs/sampler.md holds the
 * reported run).  Not a pass/fail test: it reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dm.h"
#include "wc_synth.h"
#include "smp.h"

typedef struct tally {
    int kernels, within3, covered, cis;
    double max_err;
} tally;

static void diag_print(const wc_diag *d)
{
    char buf[2300];
    wc_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "bench_hybrid: %s\n", buf);
}

static int load_gpu(wc_trace *t, wc_gpu *g, wc_diag *d)
{
    const wc_kernel_info *ki = wc_trace_kernel(t, 0);
    const char *name = wc_gpu_for_binary(ki ? ki->binary_version : 90);
    return wc_gpu_load(name ? name : "h100-pcie", g, d);
}

static int bench_trace(const char *label, const char *path, int seeds,
                       tally *ty)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_gpu g;
    if (wc_trace_open(path, &t, &d) || load_gpu(t, &g, &d)) {
        diag_print(&d);
        wc_trace_close(t);
        return 1;
    }
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        const wc_kernel_info *ki = wc_trace_kernel(t, k);
        dm_options dopt;
        dm_options_default(&dopt);
        dm_result dr;
        memset(&dr, 0, sizeof dr);
        double t0 = wc_now();
        if (dm_run_kernel(t, k, &g, &dopt, &dr, &d)) {
            diag_print(&d);
            wc_trace_close(t);
            return 1;
        }
        double dm_s = wc_now() - t0;
        double truth = (double)dr.cycles;
        uint64_t insts = dr.warp_insts;
        dm_result_free(&dr);

        smp_options o;
        smp_options_default(&o);
        smp_kernel_result r1, r;
        int cover = 0, ncis = 0;
        double hy_s = 0;
        for (int s = 1; s <= seeds; s++) {
            o.seed = (uint64_t)s;
            t0 = wc_now();
            if (smp_run_kernel(t, k, &g, &o, &r, &d)) {
                diag_print(&d);
                wc_trace_close(t);
                return 1;
            }
            double el = wc_now() - t0;
            if (s == 1) {
                r1 = r;
                hy_s = el;
            }
            if (r.has_ci) {
                ncis++;
                cover += r.ci95[0] <= truth && truth <= r.ci95[1];
            }
        }
        double err = 100.0 * (r1.estimate - truth) / truth;
        printf("| %s k%zu %.30s | %llu | %zu/%zu | %.0f | %.0f | %+.2f%% | "
               "[%.0f, %.0f] | %d/%d | %.2fs | %.2fs | %.1fx | %s |\n",
               label, k + 1, ki->name, (unsigned long long)insts, r1.sampled,
               r1.regions, truth, r1.estimate, err, r1.ci95[0], r1.ci95[1],
               cover, ncis, dm_s, hy_s, hy_s > 0 ? dm_s / hy_s : 0,
               smp_how_name(r1.how));
        fprintf(stderr, "  host: interval %.2fs (%zu runs, %llu insts), detailed %.2fs (%zu runs, %llu insts), strata %zu, period %ld, region %llu CTAs on %ld SMs, df %.1f, dram/inst whole %.4f slice %.4f%s, interval whole %.0f composed %.0f (%+.2f%%), phase1 %zu\n",
                r1.host[0].seconds, r1.host[0].runs, (unsigned long long)r1.host[0].warp_insts,
                r1.host[1].seconds, r1.host[1].runs, (unsigned long long)r1.host[1].warp_insts,
                r1.strata, r1.period, (unsigned long long)r1.region_ctas, r1.region_sms, r1.df, r1.dram_whole, r1.dram_slice,
                r1.shared_data ? " (shared data: all-SM regions)" : "",
                r1.interval_cycles, r1.interval_composed,
                r1.interval_cycles > 0 && r1.interval_composed > 0
                    ? 100 * (r1.interval_composed / r1.interval_cycles - 1)
                    : 0,
                r1.phase1);
        fflush(stdout);
        ty->kernels++;
        ty->within3 += err < 3 && err > -3;
        ty->covered += cover;
        ty->cis += ncis;
        if (err < 0)
            err = -err;
        if (err > ty->max_err)
            ty->max_err = err;
    }
    wc_trace_close(t);
    return 0;
}

typedef struct scase {
    const char *kind;
    unsigned ctas, threads, iters; /* 0: the kind's default */
} scase;

static int bench_synth(const scase *c, const char *dir, int seeds, tally *ty)
{
    wc_synth_params p;
    wc_synth_defaults(&p, c->kind);
    if (c->ctas)
        p.ctas = c->ctas;
    if (c->threads)
        p.threads = c->threads;
    if (c->iters)
        p.iters = c->iters;
    wc_diag d;
    if (wc_synth_write(&p, dir, &d)) {
        diag_print(&d);
        return 1;
    }
    char label[128];
    snprintf(label, sizeof label, "%s %ux%u i%u", c->kind, p.ctas, p.threads,
             p.iters);
    int rc = bench_trace(label, dir, seeds, ty);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_hybrid: could not remove %s\n", dir);
    return rc;
}

int main(int argc, char **argv)
{
    int longk = 0, seeds = 10, ntraces = 0;
    const char *only = NULL;
    const char *traces[64];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--long") == 0)
            longk = 1;
        else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (ntraces < 64)
            traces[ntraces++] = argv[i];
    }
    if (seeds < 1)
        seeds = 1;
    printf("| kernel | warp insts | sampled/regions | detailed cycles | "
           "hybrid cycles | error | 95%% CI (seed 1) | CI covers | detailed "
           "s | hybrid s | speedup | how |\n|---|---|---|---|---|---|---|---|"
           "---|---|---|---|\n");
    tally ty = {0, 0, 0, 0, 0};
    int rc = 0;
    if (ntraces) {
        for (int i = 0; i < ntraces; i++)
            rc |= bench_trace(traces[i], traces[i], seeds, &ty);
    } else {
        static const char *const shared[] = {
            "../shared/data/traces/simple-trace-example",
            "../shared/data/traces/simtune-ffmakernel-1-32-10",
            "../shared/data/traces/simtune-ffmakernel-1-32-20"};
        for (size_t i = 0; i < sizeof shared / sizeof shared[0] && !only; i++)
            if (access(shared[i], R_OK) == 0)
                rc |= bench_trace(shared[i] + 22, shared[i], seeds, &ty);
        /* Medium kernels: large enough to be sampled (> 2M warp insts). */
        static const scase medium[] = {
            {"compute", 2048, 256, 16},  {"latency", 1024, 128, 64},
            {"memory", 4096, 256, 8},    {"divergent", 2048, 256, 16},
            {"imbalanced", 256, 1024, 64}, {"balanced", 256, 1024, 64},
            {"shared", 2048, 256, 16},   {"chase", 1024, 128, 32},
            {"fp64", 2048, 256, 16},     {"tensor", 2048, 256, 16},
            {"mixed", 2048, 128, 16},
        };
        /* About 100M warp instructions, 3-4 GB of trace each (written
         * one at a time, removed after use). */
        static const scase big[] = {
            {"compute", 8192, 256, 64},
            {"divergent", 8192, 256, 96},
        };
        char dir[256];
        snprintf(dir, sizeof dir, "/tmp/bench_hybrid_%ld", (long)getpid());
        for (size_t i = 0; i < sizeof medium / sizeof medium[0]; i++)
            if (!only || strcmp(only, medium[i].kind) == 0)
                rc |= bench_synth(&medium[i], dir, seeds, &ty);
        for (size_t i = 0; longk && i < sizeof big / sizeof big[0]; i++)
            if (!only || strcmp(only, big[i].kind) == 0)
                rc |= bench_synth(&big[i], dir, seeds < 3 ? seeds : 3, &ty);
    }
    printf("\nkernels %d, within 3%%: %d, max |error| %.2f%%, CI coverage "
           "%d/%d\n",
           ty.kernels, ty.within3, ty.max_err, ty.covered, ty.cis);
    return rc;
}
