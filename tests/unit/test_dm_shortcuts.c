/*
 * tests/unit/test_dm_shortcuts.c - the detailed model's speed shortcuts
 * (awake-warp sets, issue / fetch / write-back skipping, sleeping SMs,
 * whole-GPU jumps) change nothing but host time: dm_shortcuts=0 (every
 * stage of every busy SM ticks every cycle) gives identical cycles, warp
 * instructions, CTAs, issue cycles and stall counts on every synthetic kind
 * and on the real traces of ../shared (skipped with a notice when absent).
 * Also: internal failures are WC_EINTERNAL errors, never a silently dropped
 * instruction (a free list of in-flight records that runs out).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dm.h"
#include "synth_fixture.h"

/* Kernel k of path on gpu with dm_shortcuts = on; rc of dm_run_kernel. */
static int run1(wc_trace *t, size_t k, const wc_gpu *g0, int on,
                const dm_options *o, dm_result *r, wc_diag *d)
{
    wc_gpu g = *g0;
    g.dm_shortcuts = on;
    return dm_run_kernel(t, k, &g, o, r, d);
}

/* Every kernel of path: both settings agree.  cta_cap > 0: only the first
 * cta_cap CTAs of each kernel (a window, as the sampler runs them). */
static void compare(const char *label, const char *path, const char *gpu,
                    uint64_t cta_cap)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_gpu g;
    memset(&d, 0, sizeof d);
    if (wc_gpu_load(gpu, &g, &d) != 0 || wc_trace_open(path, &t, &d) != 0) {
        fixture_show(&d);
        CHECK(0);
        return;
    }
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        dm_options o;
        dm_options_default(&o);
        o.cta_count = cta_cap;
        dm_result a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        double t0 = wc_now();
        int ra = run1(t, k, &g, 1, &o, &a, &d);
        double t1 = wc_now();
        int rb = ra ? -1 : run1(t, k, &g, 0, &o, &b, &d);
        double t2 = wc_now();
        if (ra || rb) {
            fixture_show(&d);
            CHECK(0);
        } else {
            int same_stalls = 1;
            for (int s = 0; s < DM_STALL_COUNT; s++)
                same_stalls &= a.stall[s] == b.stall[s];
            fprintf(stderr,
                    "%s k%zu on %s: %llu cycles (shortcuts %.2f s, "
                    "none %.2f s)%s\n",
                    label, k, gpu, (unsigned long long)a.cycles, t1 - t0,
                    t2 - t1, a.cycles == b.cycles ? "" : " DIFFERENT");
            CHECK_EQ_INT(b.cycles, a.cycles);
            CHECK_EQ_INT(b.warp_insts, a.warp_insts);
            CHECK_EQ_INT(b.ctas, a.ctas);
            CHECK_EQ_INT(b.issue_cycles, a.issue_cycles);
            for (int s = 0; s < DM_STALL_COUNT; s++)
                if (a.stall[s] != b.stall[s])
                    fprintf(stderr, "  stall %s: %llu vs %llu\n",
                            dm_stall_name(s),
                            (unsigned long long)a.stall[s],
                            (unsigned long long)b.stall[s]);
            CHECK(same_stalls);
        }
        dm_result_free(&a);
        dm_result_free(&b);
    }
    wc_trace_close(t);
}

static void test_synth_kinds(void)
{
    static const char *const gpus[] = {"h100-pcie", "rtx-2070s", "a100",
                                       "gt200"};
    const char *const *kinds = wc_synth_kinds();
    for (size_t i = 0; kinds[i]; i++) {
        for (int sass = 0; sass < 2; sass++) {
            wc_synth_params sp;
            wc_synth_defaults(&sp, kinds[i]);
            sp.ctas = 24;
            if (sp.threads > 256)
                sp.threads = 256;
            sp.iters = 3;
            sp.with_sass = sass;
            synth_fixture fx;
            if (synth_fixture_open(&fx, "dmsc", &sp, NULL, 0) != 0) {
                CHECK(0);
                continue;
            }
            char label[96];
            snprintf(label, sizeof label, "synth %s%s", kinds[i],
                     sass ? "+sass" : "");
            compare(label, fx.dir, gpus[(i + (size_t)sass) % 4], 0);
            synth_fixture_close(&fx);
        }
    }
}

static void test_real_traces(void)
{
    static const char *const small[] = {"data/traces/simple-trace-example",
                                        "data/traces/simtune-ffmakernel-1-32-10",
                                        "data/traces/simtune-ffmakernel-1-32-20"};
    char buf[512];
    for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
        const char *p = shared_path(small[i], buf, sizeof buf);
        if (p)
            compare(small[i], p, "a100", 0);
    }
    const char *hw = shared_path("data/hw/h100-sxm/traces", buf, sizeof buf);
    if (!hw)
        return;
    DIR *dp = opendir(hw);
    if (!dp) {
        CHECK(0);
        return;
    }
    char names[64][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL && n < 64) {
        char p[1024];
        snprintf(p, sizeof p, "%.400s/%.255s/kernelslist.g", hw, e->d_name);
        if (e->d_name[0] != '.' && access(p, R_OK) == 0)
            snprintf(names[n++], sizeof names[0], "%.255s", e->d_name);
    }
    closedir(dp);
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%.400s/%.255s", hw, names[i]);
        /* the first 300 CTAs of each kernel: every SM busy, two waves and
         * more on the large grids (whole kernels take minutes unskipped) */
        compare(names[i], p, "h100-pcie", 300);
    }
}

/* A free list of in-flight records that runs out stops the run with
 * WC_EINTERNAL (it used to drop the instruction's record silently). */
static void test_fl_exhaustion(void)
{
    wc_synth_params sp;
    wc_synth_defaults(&sp, "memory");
    sp.ctas = 4;
    sp.iters = 2;
    synth_fixture fx;
    if (synth_fixture_open(&fx, "dmsc", &sp, "a100", 1) != 0) {
        CHECK(0);
        return;
    }
    wc_trace *t = fx.t;
    wc_gpu g = fx.g;
    wc_diag d;
    memset(&d, 0, sizeof d);
    dm_options o;
    dm_result r, big;
    dm_options_default(&o);
    CHECK_EQ_INT(dm_run_kernel(t, 0, &g, &o, &r, &d), 0);
    o.fl_max = 1 << 20; /* a limit never reached: same cycles */
    CHECK_EQ_INT(dm_run_kernel(t, 0, &g, &o, &big, &d), 0);
    CHECK_EQ_INT(big.cycles, r.cycles);
    o.fl_max = 3; /* two records: the loads of one warp need more */
    memset(&d, 0, sizeof d);
    int rc = dm_run_kernel(t, 0, &g, &o, &big, &d);
    CHECK_EQ_INT(rc, WC_EINTERNAL);
    CHECK_EQ_INT(d.code, WC_EINTERNAL);
    CHECK(strstr(d.msg, "no free record") != NULL);
    fprintf(stderr, "fl_max 3: %s\n", d.msg);
    dm_result_free(&r);
    dm_result_free(&big);
    synth_fixture_close(&fx);
}

int main(void)
{
    test_fl_exhaustion();
    test_synth_kinds();
    test_real_traces();
    CHECK_DONE();
}
