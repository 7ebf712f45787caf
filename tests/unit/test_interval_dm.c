/*
 * tests/unit/test_interval_dm.c - the interval model against the detailed
 * model where the physics is simple: small synthetic kernels (dependent
 * chains, pointer chasing, unit-bound FFMA streams, the seed 001 imbalance
 * microbenchmark, streaming memory, shared memory with bank conflicts) and
 * the real traces of ../shared.  Both models read the same trace and the
 * same config; kernel cycles must agree within the tolerance.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dm.h"
#include "im.h"
#include "wc.h"

static double compare(const char *path, const char *dep_mode, double tol)
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
    char set[64];
    snprintf(set, sizeof set, "dep_mode=%s", dep_mode);
    CHECK(wc_gpu_set(&g, set, &d) == 0);
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
            fprintf(stderr, "%-48s k%zu interval %8llu detailed %8llu %+6.1f%%\n",
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

static void synth(const char *base, const char *kind, unsigned ctas,
                  unsigned threads, unsigned iters, double tol)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/%s", base, kind);
    wc_synth_params p;
    wc_synth_defaults(&p, kind);
    if (ctas)
        p.ctas = ctas;
    if (threads)
        p.threads = threads;
    if (iters)
        p.iters = iters;
    p.with_sass = 0; /* scoreboard: dependences from registers */
    wc_diag d;
    CHECK(wc_synth_write(&p, dir, &d) == 0);
    compare(dir, "auto", tol);
}

int main(void)
{
    char base[] = "/tmp/warpcast-imdm-XXXXXX";
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    synth(base, "latency", 1, 32, 32, 0.05);
    synth(base, "chase", 2, 32, 16, 0.05);
    synth(base, "imbalanced", 1, 1024, 64, 0.05);
    synth(base, "balanced", 1, 1024, 64, 0.08);
    synth(base, "shared", 8, 128, 8, 0.10);
    synth(base, "memory", 32, 256, 4, 0.15);
    synth(base, "divergent", 8, 128, 8, 0.10);
    char buf[512];
    if (shared_path("data/traces/simtune-ffmakernel-1-32-10", buf, sizeof buf))
        compare(buf, "auto", 0.02);
    if (shared_path("data/traces/simtune-ffmakernel-1-32-20", buf, sizeof buf))
        compare(buf, "auto", 0.02);
    if (shared_path("data/traces/simple-trace-example", buf, sizeof buf))
        compare(buf, "auto", 0.10);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    CHECK_DONE();
}
