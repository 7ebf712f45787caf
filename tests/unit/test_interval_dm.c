/*
 * tests/unit/test_interval_dm.c - the interval model against the detailed
 * model: every synthetic kind (dependent chains, pointer chasing,
 * register-bank-bound FFMA / DFMA loops, tensor, the seed 001 imbalance
 * microbenchmark, streaming memory, shared memory with bank conflicts,
 * divergence), with register scoreboarding and with control bits, and the
 * real traces of ../shared.  Both models read the same trace and the same
 * config; kernel cycles must agree within the tolerance.  The synthetic
 * rows set the launch and CTA overheads to 0 (both models add them the
 * same way; left in, they would dilute the comparison of the SM models);
 * the real traces run with the config as it is.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dm.h"
#include "im.h"
#include "wc.h"
#include "wc_synth.h"

static double compare(const char *path, const char *const *sets, double tol)
{
    wc_diag d;
    wc_trace *t = NULL;
    if (wc_trace_open(path, &t, &d) != 0) {
        char b[2200];
        wc_diag_format(&d, b, sizeof b);
        fprintf(stderr, "%s\n", b);
        CHECK(0);
        return -1;
    }
    const wc_kernel_info *ki = wc_trace_kernel(t, 0);
    wc_gpu g;
    CHECK(wc_gpu_load(wc_gpu_for_binary(ki->binary_version), &g, &d) == 0);
    for (size_t i = 0; sets && sets[i]; i++)
        CHECK(wc_gpu_set(&g, sets[i], &d) == 0);
    double worst = 0;
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        im_result ir;
        dm_result dr;
        dm_options o;
        dm_options_default(&o);
        int a = im_run_kernel(t, k, &g, NULL, &ir, &d);
        CHECK(a == 0);
        int b = dm_run_kernel(t, k, &g, &o, &dr, &d);
        if (b)
            fprintf(stderr, "%s: detailed: %s\n", path, d.msg);
        CHECK(b == 0);
        if (a == 0 && b == 0) {
            double diff = ((double)ir.cycles - (double)dr.cycles) /
                          (double)dr.cycles;
            fprintf(stderr, "%-52s k%zu interval %8llu detailed %8llu %+6.1f%%\n",
                    path, k + 1, (unsigned long long)ir.cycles,
                    (unsigned long long)dr.cycles, 100 * diff);
            CHECK(fabs(diff) <= tol);
            if (fabs(diff) > worst)
                worst = fabs(diff);
            CHECK_EQ_INT(ir.warp_insts, dr.warp_insts);
        }
        if (a == 0)
            im_result_free(&ir);
        if (b == 0)
            dm_result_free(&dr);
    }
    wc_trace_close(t);
    return worst;
}

static const char *const no_overheads[] = {
    "dep_mode=auto", "launch_overhead=0", "cta_overhead=0",
    "cta_warp_overhead=0", "cta_dispatch=0", NULL,
};

/* Kind with register scoreboards (no listing: tol_sb) and with the
 * control bits of the listing (tol_ctrl). */
static void synth(const char *base, const char *kind, unsigned ctas,
                  unsigned threads, unsigned iters, double tol_sb,
                  double tol_ctrl)
{
    for (int sass = 0; sass < 2; sass++) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/%s%s", base, kind, sass ? "-ctrl" : "");
    wc_synth_params p;
    wc_synth_defaults(&p, kind);
    if (ctas)
        p.ctas = ctas;
    if (threads)
        p.threads = threads;
    if (iters)
        p.iters = iters;
    p.with_sass = sass;
    wc_diag d;
    CHECK(wc_synth_write(&p, dir, &d) == 0);
    compare(dir, no_overheads, sass ? tol_ctrl : tol_sb);
    }
}

int main(void)
{
    char base[] = "/tmp/warpcast-imdm-XXXXXX";
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    /* measured (interval - detailed) / detailed in the comments, sb / ctrl;
     * the tolerance leaves about 1.5 points.  Known gaps: memory with few
     * CTAs and iterations (DRAM-latency bound start-up), tensor with one
     * warp per sub-core (HMMA operand reads and LDS.128 conflicts in the
     * solo warp), balanced with control bits (seed 001 idle warps). */
    /*                          ctas thr  iters  sb    ctrl */
    synth(base, "latency",       1,  32,  32, 0.03, 0.03); /* -0.6 -1.6 */
    synth(base, "chase",         2,  32,  16, 0.03, 0.03); /* -0.2 -0.2 */
    synth(base, "imbalanced",    1, 1024, 64, 0.03, 0.03); /* -0.5 -1.4 */
    synth(base, "balanced",      1, 1024, 64, 0.035, 0.10); /* -2.0 -8.7 */
    synth(base, "shared",        8, 128,   8, 0.06, 0.065); /* -4.0 -4.9 */
    synth(base, "memory",       32, 256,   4, 0.12, 0.095); /* -10.2 -7.7 */
    synth(base, "divergent",     8, 128,   8, 0.06, 0.055); /* -4.1 -3.6 */
    synth(base, "compute",      16, 256,  16, 0.045, 0.05); /* -2.9 -3.5 */
    synth(base, "fp64",         16, 256,  16, 0.055, 0.04); /* -3.9 -2.1 */
    synth(base, "tensor",        8, 128,   8, 0.33, 0.19); /* -31.0 -17.1 */
    synth(base, "mixed",        16, 128,   8, 0.06, 0.065); /* -4.1 -4.9 */
    static const char *const as_is[] = {"dep_mode=auto", NULL};
    char buf[512];
    if (shared_path("data/traces/simtune-ffmakernel-1-32-10", buf, sizeof buf))
        compare(buf, as_is, 0.02);
    if (shared_path("data/traces/simtune-ffmakernel-1-32-20", buf, sizeof buf))
        compare(buf, as_is, 0.02);
    if (shared_path("data/traces/simple-trace-example", buf, sizeof buf))
        compare(buf, as_is, 0.10);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    CHECK_DONE();
}
