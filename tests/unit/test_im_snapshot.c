/*
 * tests/unit/test_im_snapshot.c - im_options.snap_after: the result of a
 * window's first CTAs taken from a longer run equals a run of those CTAs
 * alone, field for field (the sampler's slice check takes its warm-up run
 * from it, sampler/bind.c check_slice), on every kind of synthetic kernel,
 * on two GPUs, and the longer run itself is unchanged by taking it.
 */
#include <string.h>

#include "check.h"
#include "im.h"
#include "synth_fixture.h"

static int run(wc_trace *t, const wc_gpu *g, uint64_t first, uint64_t count,
               uint64_t snap_after, im_result *snap, im_result *r)
{
    im_options o;
    im_options_default(&o);
    o.cta_first = first;
    o.cta_count = count;
    o.snap_after = snap_after;
    o.snap = snap;
    wc_diag d;
    return im_run_kernel(t, 0, g, &o, r, &d);
}

/* The fields a run gives (not its host time). */
static void same(const im_result *a, const im_result *b, const char *what)
{
    int ok = a->cycles == b->cycles && a->sim_cycles == b->sim_cycles &&
             a->warp_insts == b->warp_insts && a->ctas == b->ctas &&
             a->warps == b->warps && a->intervals == b->intervals &&
             a->l1_hits == b->l1_hits && a->l2_hits == b->l2_hits &&
             a->dram_sectors == b->dram_sectors &&
             a->occupancy_ctas == b->occupancy_ctas &&
             a->warps_recalled == b->warps_recalled &&
             memcmp(&a->ipc, &b->ipc, sizeof a->ipc) == 0 &&
             memcmp(a->cpi, b->cpi, sizeof a->cpi) == 0 &&
             memcmp(&a->dram_util, &b->dram_util, sizeof a->dram_util) == 0 &&
             memcmp(&a->l2_util, &b->l2_util, sizeof a->l2_util) == 0 &&
             memcmp(&a->waves, &b->waves, sizeof a->waves) == 0 &&
             memcmp(&a->counts, &b->counts, sizeof a->counts) == 0;
    if (!ok)
        fprintf(stderr, "%s: %llu vs %llu cycles, util %.17g vs %.17g\n",
                what, (unsigned long long)a->sim_cycles,
                (unsigned long long)b->sim_cycles, a->dram_util, b->dram_util);
    CHECK(ok);
}

int main(void)
{
    const char *kinds[] = {"memory", "compute", "divergent", "shared",
                           "mixed", "chase"};
    const char *gpus[] = {"h100-pcie", "a100"}; /* launch overhead > 0, 0 */
    int n = 0;
    for (size_t gi = 0; gi < 2; gi++)
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            synth_fixture fx;
            wc_synth_params sp;
            wc_synth_defaults(&sp, kinds[k]);
            sp.ctas = 1200;
            sp.iters = 2;
            if (synth_fixture_open(&fx, "snap", &sp, gpus[gi], 1) != 0) {
                CHECK(0);
                continue;
            }
            /* a window from the middle: 300 CTAs, the first 120 alone */
            uint64_t first = 400, w = 120, count = 300;
            im_result whole, part, snap, plain;
            memset(&snap, 0, sizeof snap);
            CHECK_EQ_INT(run(fx.t, &fx.g, first, count, 0, NULL, &plain), 0);
            CHECK_EQ_INT(run(fx.t, &fx.g, first, count, w, &snap, &whole),
                         0);
            CHECK_EQ_INT(run(fx.t, &fx.g, first, w, 0, NULL, &part), 0);
            char what[64];
            snprintf(what, sizeof what, "%s %s snapshot", gpus[gi], kinds[k]);
            same(&snap, &part, what);
            snprintf(what, sizeof what, "%s %s run", gpus[gi], kinds[k]);
            same(&whole, &plain, what);
            CHECK(snap.ctas == w);
            /* the whole kernel as the snapshot's window: launch overhead
             * counted, as in a run of the whole kernel */
            im_result all, all_snap, all_run;
            memset(&all_snap, 0, sizeof all_snap);
            uint64_t kctas = wc_trace_kernel(fx.t, 0)->ctas;
            CHECK_EQ_INT(run(fx.t, &fx.g, 0, 0, kctas, &all_snap, &all), 0);
            CHECK_EQ_INT(run(fx.t, &fx.g, 0, 0, 0, NULL, &all_run), 0);
            snprintf(what, sizeof what, "%s %s whole", gpus[gi], kinds[k]);
            same(&all_snap, &all_run, what);
            im_result_free(&all);
            im_result_free(&all_snap);
            im_result_free(&all_run);
            /* a window shorter than snap_after: no snapshot */
            CHECK_EQ_INT(run(fx.t, &fx.g, first, 50, w, &snap, &part), 0);
            CHECK(snap.ctas == 0);
            im_result_free(&whole);
            im_result_free(&part);
            im_result_free(&snap);
            im_result_free(&plain);
            synth_fixture_close(&fx);
            n++;
        }
    fprintf(stderr, "snapshot: %d kernels x GPUs, equal to runs alone\n", n);
    CHECK_DONE();
}
