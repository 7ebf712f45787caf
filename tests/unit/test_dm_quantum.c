/*
 * tests/unit/test_dm_quantum.c - dm_quantum (temporal decoupling of the
 * SMs, docs/model-detailed.md "Quantum"):
 *   - 0 and 1 are the cycle-by-cycle model: identical results;
 *   - a quantum leaves the microbenchmarks (data/ubench: always cycle by
 *     cycle) and compute kernels (no L2 traffic) exact, and one-SM runs
 *     within 1% (the CTA dispatcher sees a freed slot a quantum late);
 *   - on every synthetic kind (multi-SM, memory-bound included) cycles
 *     stay within 3% of the exact model, warp instructions and CTAs are
 *     equal, and the run is deterministic (same input, same output);
 *   - every value of its bounds runs, values outside are rejected naming
 *     the key.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dm.h"
#include "synth_fixture.h"

static int run_q(wc_trace *t, size_t k, const wc_gpu *g0, long q,
                 dm_result *r, wc_diag *d)
{
    wc_gpu g = *g0;
    g.dm_quantum = q;
    dm_options o;
    dm_options_default(&o);
    memset(r, 0, sizeof *r);
    return dm_run_kernel(t, k, &g, &o, r, d);
}

/* Kind `kind` (ctas, iters) on gpu: quantum q against 0.  Returns the
 * relative cycle difference (q - exact) / exact, or 1 on an error. */
static double one(const char *kind, unsigned ctas, unsigned iters,
                  const char *gpu, long q, int want_exact)
{
    wc_synth_params sp;
    wc_synth_defaults(&sp, kind);
    sp.ctas = ctas;
    if (sp.threads > 256)
        sp.threads = 256;
    sp.iters = iters;
    synth_fixture fx;
    if (synth_fixture_open(&fx, "dmq", &sp, gpu, 1) != 0) {
        CHECK(0);
        return 1;
    }
    wc_diag d;
    memset(&d, 0, sizeof d);
    double rel = 1;
    for (size_t k = 0; k < wc_trace_nkernels(fx.t); k++) {
        dm_result a, b, c, z;
        int ra = run_q(fx.t, k, &fx.g, 0, &a, &d);
        int rz = run_q(fx.t, k, &fx.g, 1, &z, &d);
        int rb = run_q(fx.t, k, &fx.g, q, &b, &d);
        int rc = run_q(fx.t, k, &fx.g, q, &c, &d);
        if (ra || rb || rc || rz) {
            fixture_show(&d);
            CHECK(0);
        } else {
            /* 1 is 0: cycle by cycle */
            CHECK_EQ_INT(z.cycles, a.cycles);
            CHECK_EQ_INT(z.issue_cycles, a.issue_cycles);
            /* deterministic */
            CHECK_EQ_INT(c.cycles, b.cycles);
            CHECK_EQ_INT(c.issue_cycles, b.issue_cycles);
            /* the same work */
            CHECK_EQ_INT(b.warp_insts, a.warp_insts);
            CHECK_EQ_INT(b.ctas, a.ctas);
            double e = ((double)b.cycles - (double)a.cycles) /
                       (double)a.cycles;
            fprintf(stderr, "%s %ux%u k%zu on %s: %llu exact, %llu with "
                    "dm_quantum %ld (%+.2f%%)\n", kind, ctas, iters, k, gpu,
                    (unsigned long long)a.cycles,
                    (unsigned long long)b.cycles, q, 100 * e);
            if (want_exact)
                CHECK_EQ_INT(b.cycles, a.cycles);
            CHECK(e < 0.03 && e > -0.03);
            rel = e;
        }
        dm_result_free(&a);
        dm_result_free(&b);
        dm_result_free(&c);
        dm_result_free(&z);
    }
    synth_fixture_close(&fx);
    return rel;
}

static void test_kinds(void)
{
    const char *const *kinds = wc_synth_kinds();
    for (size_t i = 0; kinds[i]; i++) {
        /* a few waves on a small GPU: SMs refilled, L2 and DRAM shared */
        one(kinds[i], 96, 2, "h100-pcie", 32, 0);
    }
    /* no memory traffic beyond the first loads: exact */
    one("compute", 600, 2, "h100-pcie", 64, 1);
    /* a memory-bound kernel at the largest quantum */
    one("memory", 400, 2, "h100-pcie", 256, 0);
}

/* One SM: no request out of order; the dispatcher alone is approximate. */
static void test_one_sm(void)
{
    wc_synth_params sp;
    wc_synth_defaults(&sp, "memory");
    sp.ctas = 12;
    sp.iters = 2;
    synth_fixture fx;
    if (synth_fixture_open(&fx, "dmq", &sp, "a100", 1) != 0) {
        CHECK(0);
        return;
    }
    wc_gpu g = fx.g;
    g.num_sms = 1;
    wc_diag d;
    memset(&d, 0, sizeof d);
    dm_result a, b;
    CHECK_EQ_INT(run_q(fx.t, 0, &g, 0, &a, &d), 0);
    CHECK_EQ_INT(run_q(fx.t, 0, &g, 48, &b, &d), 0);
    double e = ((double)b.cycles - (double)a.cycles) / (double)a.cycles;
    fprintf(stderr, "memory 12 CTAs on one SM: %llu exact, %llu with "
            "dm_quantum 48 (%+.2f%%)\n", (unsigned long long)a.cycles,
            (unsigned long long)b.cycles, 100 * e);
    CHECK(e < 0.01 && e > -0.01);
    CHECK_EQ_INT(b.warp_insts, a.warp_insts);
    dm_result_free(&a);
    dm_result_free(&b);
    synth_fixture_close(&fx);
}

/* The key's bounds: 0 .. 256 run; -1 and 257 are rejected by name. */
static void test_bounds(void)
{
    wc_gpu g;
    wc_diag d;
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_gpu_load("h100-pcie", &g, &d), 0);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "dm_quantum", 256, &d), 0);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "dm_quantum", 0, &d), 0);
    memset(&d, 0, sizeof d);
    CHECK(wc_gpu_set_num(&g, "dm_quantum", 257, &d) != 0);
    CHECK(strstr(d.msg, "dm_quantum") != NULL);
    memset(&d, 0, sizeof d);
    CHECK(wc_gpu_set_num(&g, "dm_quantum", -1, &d) != 0);
    CHECK(strstr(d.msg, "dm_quantum") != NULL);
}

/* The microbenchmarks run cycle by cycle whatever dm_quantum says: the
 * papers' clock readings stay exact. */
static void test_ubench(void)
{
    static const char *const files[] = {"listing1-r19-r21.sass",
                                        "listing2-s1.sass"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[1024], *buf = NULL;
        size_t len;
        wc_diag d;
        memset(&d, 0, sizeof d);
        snprintf(path, sizeof path, "%s/ubench/%s", wc_data_dir(), files[f]);
        wc_ubench *u = NULL;
        if (wc_read_file(path, &buf, &len, &d) != 0 ||
            wc_ubench_parse(path, buf, len, &u, &d) != 0) {
            fixture_show(&d);
            CHECK(0);
            free(buf);
            continue;
        }
        wc_gpu g;
        CHECK_EQ_INT(wc_gpu_load("rtx-a6000", &g, &d), 0);
        dm_options o;
        dm_options_default(&o);
        dm_ubench_result a, b;
        CHECK_EQ_INT(dm_run_ubench(u, &g, &o, &a, &d), 0);
        g.dm_quantum = 64;
        CHECK_EQ_INT(dm_run_ubench(u, &g, &o, &b, &d), 0);
        CHECK_EQ_INT(b.cycles, a.cycles);
        CHECK_EQ_INT(b.nwarps, a.nwarps);
        for (unsigned w = 0; w < a.nwarps && w < b.nwarps; w++) {
            CHECK_EQ_INT(b.nclocks[w], a.nclocks[w]);
            for (size_t i = 0; i < a.nclocks[w] && i < b.nclocks[w]; i++)
                CHECK_EQ_INT(b.clocks[w][i], a.clocks[w][i]);
        }
        dm_ubench_result_free(&a);
        dm_ubench_result_free(&b);
        wc_ubench_free(u);
        free(buf);
    }
}

int main(void)
{
    test_bounds();
    test_ubench();
    test_one_sm();
    test_kinds();
    CHECK_DONE();
}
