/*
 * tests/unit/test_detailed_kernels.c - whole kernels through the detailed
 * model: the real Accel-Sim traces of ../shared (skipped when absent), a
 * synthetic trace with control bits, the CTA window of the sampler, the
 * scoreboard what-if (seed 000 Table 7) and the watchdog-free end of every
 * run.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dm.h"

static int run(const char *path, const char *gpu, const char *set,
               const dm_options *o, dm_result *r)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_gpu g;
    memset(&d, 0, sizeof d);
    if (wc_gpu_load(gpu, &g, &d) != 0 || (set && wc_gpu_set(&g, set, &d)) ||
        wc_trace_open(path, &t, &d) != 0) {
        char buf[2048];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        return -1;
    }
    int rc = dm_run_kernel(t, 0, &g, o, r, &d);
    if (rc) {
        char buf[2048];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
    }
    wc_trace_close(t);
    return rc;
}

/* Warp instructions of kernel 0 counted by streaming the trace. */
static uint64_t count_insts(const char *path)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_kreader *kr = NULL;
    uint64_t n = 0;
    if (wc_trace_open(path, &t, &d) != 0)
        return 0;
    if (wc_kreader_open(t, 0, &kr, &d) == 0) {
        wc_cta *c;
        while (wc_kreader_next(kr, &c, &d) == 0 && c) {
            for (unsigned w = 0; w < wc_cta_nwarps(c); w++)
                n += wc_cta_warp_len(c, w);
            wc_cta_free(c);
        }
        wc_kreader_close(kr);
    }
    wc_trace_close(t);
    return n;
}

static uint64_t kernel_ctas(const char *path)
{
    wc_diag d;
    wc_trace *t = NULL;
    uint64_t n = 0;
    if (wc_trace_open(path, &t, &d) != 0)
        return 0;
    n = wc_trace_kernel(t, 0)->ctas;
    wc_trace_close(t);
    return n;
}

static void test_shared_traces(void)
{
    char buf[512];
    dm_options o;
    dm_result r;
    dm_options_default(&o);
    const char *p = shared_path("data/traces/simtune-ffmakernel-1-32-10", buf,
                                sizeof buf);
    if (p) {
        uint64_t n = count_insts(p);
        CHECK(n > 0);
        if (run(p, "h100-pcie", NULL, &o, &r) == 0) {
            fprintf(stderr, "ffma-10 on h100-pcie: %llu cycles (measured 9576), "
                            "%llu warp insts\n",
                    (unsigned long long)r.cycles,
                    (unsigned long long)r.warp_insts);
            CHECK_EQ_INT(r.warp_insts, n);
            CHECK_EQ_INT(r.ctas, 1);
            CHECK(r.cycles > 0);
            dm_result_free(&r);
        } else {
            CHECK(0);
        }
    }
    p = shared_path("data/traces/simple-trace-example", buf, sizeof buf);
    if (p) {
        uint64_t n = count_insts(p);
        if (run(p, "a100", NULL, &o, &r) == 0) {
            fprintf(stderr, "vectorAdd on a100: %llu cycles, %llu warp insts, "
                            "%llu CTAs\n",
                    (unsigned long long)r.cycles,
                    (unsigned long long)r.warp_insts,
                    (unsigned long long)r.ctas);
            CHECK_EQ_INT(r.warp_insts, n);
            CHECK_EQ_INT(r.ctas, 196);
            dm_result_free(&r);
        } else {
            CHECK(0);
        }
        /* a CTA window, as the sampler asks for it */
        o.cta_first = 10;
        o.cta_count = 5;
        o.timeline = 1;
        if (run(p, "a100", NULL, &o, &r) == 0) {
            CHECK_EQ_INT(r.ctas, 5);
            CHECK_EQ_INT(r.nevents, r.warp_insts);
            CHECK(r.nevents > 0 && r.events[0].cta >= 10 &&
                  r.events[0].cta < 15);
            dm_result_free(&r);
        } else {
            CHECK(0);
        }
    }
}

static void test_synth(void)
{
    char dir[] = "/tmp/wc-dm-synthXXXXXX";
    wc_synth_params sp;
    wc_diag d;
    dm_options o;
    dm_result r, rs;
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    wc_synth_defaults(&sp, "mixed");
    sp.with_sass = 1;
    if (wc_synth_write(&sp, dir, &d) != 0) {
        fprintf(stderr, "synth: %s\n", d.msg);
        CHECK(0);
        return;
    }
    dm_options_default(&o);
    if (run(dir, "rtx-a6000", NULL, &o, &r) == 0) {
        CHECK(r.warp_insts > 0);
        CHECK_EQ_INT(r.warp_insts, count_insts(dir));
        CHECK_EQ_INT(r.ctas, kernel_ctas(dir));
        /* scoreboards instead of control bits (Table 7 what-if) */
        if (run(dir, "rtx-a6000", "dep_mode=scoreboard", &o, &rs) == 0) {
            fprintf(stderr, "synth mixed: ctrl %llu cycles, scoreboard %llu\n",
                    (unsigned long long)r.cycles,
                    (unsigned long long)rs.cycles);
            CHECK_EQ_INT(rs.warp_insts, r.warp_insts);
            dm_result_free(&rs);
        } else {
            CHECK(0);
        }
        static const char *const pol[] = {"issue_policy=gto",
                                          "issue_policy=lrr",
                                          "issue_policy=rba",
                                          "assign_policy=shuffle",
                                          "icache_perfect=1"};
        for (size_t i = 0; i < sizeof pol / sizeof pol[0]; i++)
            if (run(dir, "rtx-a6000", pol[i], &o, &rs) == 0) {
                CHECK_EQ_INT(rs.warp_insts, r.warp_insts);
                dm_result_free(&rs);
            } else {
                CHECK(0);
            }
        dm_result_free(&r);
    } else {
        CHECK(0);
    }
}

int main(void)
{
    test_shared_traces();
    test_synth();
    CHECK_DONE();
}
