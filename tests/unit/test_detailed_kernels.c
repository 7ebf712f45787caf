/*
 * tests/unit/test_detailed_kernels.c - whole kernels through the detailed
 * model: the real Accel-Sim traces of ../shared (skipped when absent), a
 * synthetic trace with control bits, the CTA window of the sampler, the
 * scoreboard what-if (seed 000 Table 7), the watchdog-free end of every
 * run, and the launch model (common/keys_launch.def) against its closed
 * form (cal_launch_cycles).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cal.h"
#include "check.h"
#include "synth_fixture.h"
#include "dm.h"
#include "wc_synth.h"

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

/* Remove a flat directory of files (a synth output). */
static void rm_flat(const char *dir)
{
    DIR *dh = opendir(dir);
    if (dh) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(dh)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(dh);
    }
    if (rmdir(dir) != 0)
        fprintf(stderr, "note: could not remove %s\n", dir);
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
        rm_flat(dir);
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
    rm_flat(dir);
}

/* Control word of the high 64-bit encoding word (formats.md: bit 41 on). */
static unsigned long long ctrl_hi(unsigned stall, int wbar, int rbar,
                                  unsigned wait)
{
    unsigned long long v = stall & 15u;
    v |= 1ull << 4; /* yield clear */
    v |= (unsigned long long)(wbar >= 0 ? (unsigned)wbar : 7u) << 5;
    v |= (unsigned long long)(rbar >= 0 ? (unsigned)rbar : 7u) << 8;
    v |= (unsigned long long)(wait & 63u) << 11;
    return v << 41;
}

/* One warp: LDG R2 <- [R4] gathering one word from each of 32 distinct
 * lines (or 32 consecutive words), an FFMA consuming R2, EXIT.  With
 * control bits the load has W0 and stall ld_stall, the FFMA waits SB0.
 * Returns the issue distance LDG -> FFMA, -1 on failure. */
static long gather_gap(int spread, unsigned ld_stall, const char *set)
{
    char dir[] = "/tmp/wc-dm-gatherXXXXXX", path[256];
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "kernel-1.traceg\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "-kernel name = _Z6gatherPf\n-kernel id = 1\n"
               "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n"
               "-nregs = 8\n-binary version = 86\n-cuda stream id = 0\n"
               "-shmem base_addr = 0x00007f0000000000\n"
               "-local mem base_addr = 0x00007e0000000000\n"
               "-nvbit version = 1.7.4\n-accelsim tracer version = 5\n"
               "-enable lineinfo = 0\n\n#traces format = ...\n\n"
               "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 3\n"
               "0000 ffffffff 1 R2 LDG.E 1 R4 4 0");
    for (unsigned l = 0; l < 32; l++)
        fprintf(f, " 0x%llx", 0x7f1000000000ull +
                                  (unsigned long long)l * (spread ? 4096 : 4));
    fprintf(f, " 0\n0010 ffffffff 1 R6 FFMA 3 R2 R2 R2 0 0\n"
               "0020 ffffffff 0 EXIT 0 0 0\n\n#END_TB\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/kernels.sass", dir);
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "\tcode for sm_86\n\t\tFunction : _Z6gatherPf\n"
               "        /*0000*/                   LDG.E R2, [R4.64] ;"
               "  /* 0x0000000004027981 */\n"
               "                                      /* 0x%016llx */\n"
               "        /*0010*/                   FFMA R6, R2, R2, R2 ;"
               "  /* 0x0000000202067223 */\n"
               "                                      /* 0x%016llx */\n"
               "        /*0020*/                   EXIT ;"
               "  /* 0x000000000000794d */\n"
               "                                      /* 0x%016llx */\n"
               "\t\t..........\n",
            ctrl_hi(ld_stall, 0, -1, 0), ctrl_hi(4, -1, -1, 1),
            ctrl_hi(5, -1, -1, 0));
    fclose(f);
    dm_options o;
    dm_result r;
    dm_options_default(&o);
    o.timeline = 1;
    long gap = -1;
    if (run(dir, "rtx-a6000", set, &o, &r) == 0) {
        if (r.nevents == 3)
            gap = (long)(r.events[1].cycle - r.events[0].cycle);
        dm_result_free(&r);
    }
    static const char *const files[] = {"kernelslist.g", "kernel-1.traceg",
                                        "kernels.sass"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
    }
    rmdir(dir);
    return gap;
}

/* A DRAM-served gather (32 lines) releases its write counter at the RAW of
 * its last line, exactly when the scoreboard releases the register: the
 * consumer waits as long with control bits as with scoreboards, and longer
 * than for the coalesced load.  A stall count of 1 on the producer lets the
 * consumer slip through before the increment is visible (seed 000 sec. 4:
 * the producer needs stall 2), which is what made synthetic divergent
 * kernels with a listing finish early (gen/synth.c wrote S01). */
static void test_gather_release(void)
{
    long ctl = gather_gap(1, 2, NULL);
    long sb = gather_gap(1, 2, "dep_mode=scoreboard");
    long coal = gather_gap(0, 2, NULL);
    long slip = gather_gap(1, 1, NULL);
    fprintf(stderr, "gather: ctrl %ld scoreboard %ld coalesced %ld "
                    "stall-1 %ld cycles LDG->FFMA\n", ctl, sb, coal, slip);
    CHECK(ctl > 0 && sb > 0 && coal > 0);
    CHECK_EQ_INT(ctl, sb);
    CHECK(ctl >= coal + 31);
    CHECK_EQ_INT(slip, 1);
}

/* A trace of nctas CTAs of nwarps warps that only EXIT; 0 on success. */
static int write_exit_trace(const char *dir, unsigned nctas, unsigned nwarps)
{
    char path[256];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "kernel-1.traceg\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "-kernel name = _Z5emptyv\n-kernel id = 1\n"
               "-grid dim = (%u,1,1)\n-block dim = (%u,1,1)\n-shmem = 0\n"
               "-nregs = 8\n-binary version = 86\n-cuda stream id = 0\n"
               "-shmem base_addr = 0x00007f0000000000\n"
               "-local mem base_addr = 0x00007e0000000000\n"
               "-nvbit version = 1.7.4\n-accelsim tracer version = 5\n"
               "-enable lineinfo = 0\n\n#traces format = ...\n\n",
            nctas, nwarps * 32);
    for (unsigned c = 0; c < nctas; c++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", c);
        for (unsigned w = 0; w < nwarps; w++)
            fprintf(f, "warp = %u\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 0\n\n",
                    w);
        fprintf(f, "#END_TB\n\n");
    }
    fclose(f);
    return 0;
}

/* Kernel cycles of the detailed model for the empty kernel of dir under
 * the launch keys of set (and a window when count > 0) against the closed
 * form of the launch model with the CTA's own run time measured alone. */
static void launch_case(const char *dir, unsigned nctas, unsigned nwarps,
                        const char *const *set, size_t nset, uint64_t first,
                        uint64_t count)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_gpu g, g0;
    if (wc_gpu_load("rtx-a6000", &g, &d) != 0 ||
        wc_trace_open(dir, &t, &d) != 0) {
        CHECK(0);
        return;
    }
    /* 4 SMs so that the kernel has several waves; perfect icache so that
     * every CTA runs the same time */
    CHECK(wc_gpu_set(&g, "num_sms=4", &d) == 0);
    CHECK(wc_gpu_set(&g, "icache_perfect=1", &d) == 0);
    g0 = g;
    for (size_t i = 0; i < nset; i++)
        CHECK(wc_gpu_set(&g, set[i], &d) == 0);
    dm_options o;
    dm_result r1, r;
    dm_options_default(&o);
    o.cta_count = 1; /* one CTA alone, no launch costs: its run time */
    int a = dm_run_kernel(t, 0, &g0, &o, &r1, &d);
    o.cta_first = first;
    o.cta_count = count;
    int b = dm_run_kernel(t, 0, &g, &o, &r, &d);
    CHECK(a == 0 && b == 0);
    if (a == 0 && b == 0) {
        uint64_t n = count ? count : nctas;
        double want = cal_launch_cycles(&g, n, nwarps * 32, 8, 0,
                                        (double)r1.sim_cycles);
        if (count)
            want -= g.launch_overhead; /* a window: no kernel launch */
        /* rounding: a CTA starts at a whole cycle, once per wave */
        double waves = ceil((double)n / ((double)g.num_sms *
                                         cal_ctas_per_sm(&g, nwarps * 32, 8,
                                                         0)));
        double diff = (double)r.cycles - want;
        fprintf(stderr, "launch model: %u CTAs x %u warps, window %llu+%llu: "
                        "detailed %llu, closed form %.1f (cta run %llu, %.0f "
                        "waves)\n",
                nctas, nwarps, (unsigned long long)first,
                (unsigned long long)count, (unsigned long long)r.cycles, want,
                (unsigned long long)r1.sim_cycles, waves);
        CHECK(diff >= -0.5 && diff <= waves + 1);
        CHECK_EQ_INT(r.ctas, n);
    }
    if (a == 0)
        dm_result_free(&r1);
    if (b == 0)
        dm_result_free(&r);
    wc_trace_close(t);
}

/* The launch model of common/keys_launch.def in the detailed CTA
 * scheduler: dispatch-bound (one CTA per cta_dispatch cycles, fractional),
 * slot-bound (cta_overhead + cta_warp_overhead x warps per CTA, waves),
 * several CTAs per cycle, a CTA window.  (Without launch keys CTAs that
 * start together share fetch and issue, so a CTA's run time is not the
 * one it has alone, which the closed form assumes.) */
static void test_launch_model(void)
{
    char dir[] = "/tmp/wc-dm-launchXXXXXX", path[256];
    if (!mkdtemp(dir) || write_exit_trace(dir, 300, 2) != 0) {
        CHECK(0);
        return;
    }
    static const char *const disp[] = {"launch_overhead=1000",
                                       "cta_dispatch=3.3", "cta_overhead=50",
                                       "cta_warp_overhead=2.5"};
    static const char *const slot[] = {"launch_overhead=3703",
                                       "cta_dispatch=1.04", "cta_overhead=261",
                                       "cta_warp_overhead=2.48",
                                       "max_ctas_per_sm=8"};
    static const char *const fast[] = {"cta_dispatch=0.3", "cta_overhead=700",
                                       "max_ctas_per_sm=4"};
    launch_case(dir, 300, 2, disp, 4, 0, 0);
    launch_case(dir, 300, 2, slot, 5, 0, 0);
    launch_case(dir, 300, 2, fast, 3, 0, 0);
    launch_case(dir, 300, 2, slot, 5, 100, 70);
    static const char *const files[] = {"kernelslist.g", "kernel-1.traceg"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
    }
    rmdir(dir);
}

/* The detailed model keeps its SMs across runs in a per-thread pool
 * (detailed/run.c): a kernel run after others on the same thread (other
 * kernels, another config, another in-flight table size, a CTA window on
 * fewer SMs) must give exactly what it gives on a fresh thread. */
typedef struct pool_job {
    wc_trace *t;
    const wc_gpu *g;
    size_t k;
    dm_result r;
    int rc;
} pool_job;

static void *pool_thread(void *v)
{
    pool_job *j = v;
    wc_diag d;
    j->rc = dm_run_kernel(j->t, j->k, j->g, NULL, &j->r, &d);
    return NULL;
}

static int same_result(const dm_result *a, const dm_result *b)
{
    return a->cycles == b->cycles && a->warp_insts == b->warp_insts &&
           a->ctas == b->ctas && a->issue_cycles == b->issue_cycles &&
           memcmp(a->stall, b->stall, sizeof a->stall) == 0 &&
           memcmp(&a->counts, &b->counts, sizeof a->counts) == 0;
}

static void test_pool_reuse(void)
{
    synth_fixture fx;
    wc_synth_params sp;
    wc_synth_defaults(&sp, "mixed");
    sp.ctas = 40;
    sp.with_sass = 1;
    if (synth_fixture_open(&fx, "pool", &sp, "h100-pcie", 1) != 0) {
        CHECK(0);
        return;
    }
    wc_gpu small = fx.g;
    CHECK(wc_gpu_set(&small, "max_warps_per_sm=32", &fx.d) == 0);
    size_t nk = wc_trace_nkernels(fx.t);
    CHECK(nk >= 3);
    for (size_t k = 0; k < nk && k < 3; k++) {
        /* fresh: a new thread has an empty pool */
        pool_job j = {fx.t, &fx.g, k, {0}, -1};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, pool_thread, &j) == 0);
        pthread_join(th, NULL);
        CHECK(j.rc == 0);
        /* after other runs on this thread */
        dm_options o;
        dm_result x;
        dm_options_default(&o);
        o.fl_max = 40; /* a smaller in-flight table: grows differently */
        o.sms = 5;
        o.cta_first = 3;
        o.cta_count = 17;
        if (dm_run_kernel(fx.t, (k + 1) % nk, &fx.g, &o, &x, &fx.d) != 0) {
            fprintf(stderr, "pool: %s\n", fx.d.msg);
            CHECK(0);
        }
        dm_result_free(&x);
        CHECK(dm_run_kernel(fx.t, (k + 2) % nk, &small, NULL, &x, &fx.d) ==
              0);
        dm_result_free(&x);
        CHECK(dm_run_kernel(fx.t, (k + 2) % nk, &fx.g, NULL, &x, &fx.d) ==
              0);
        dm_result_free(&x);
        dm_result r;
        CHECK(dm_run_kernel(fx.t, k, &fx.g, NULL, &r, &fx.d) == 0);
        CHECK(r.cycles > 0 && same_result(&r, &j.r));
        /* and once more: reusing the SMs of the same kernel */
        dm_result r2;
        CHECK(dm_run_kernel(fx.t, k, &fx.g, NULL, &r2, &fx.d) == 0);
        CHECK(same_result(&r2, &j.r));
        dm_result_free(&r);
        dm_result_free(&r2);
        dm_result_free(&j.r);
    }
    synth_fixture_close(&fx);
}

/* A slow DRAM is not a hang: gt200 with dram_bw = 1 byte a cycle, 171
 * CTAs of a streaming kernel queue for their lines longer than the
 * watchdog allows (200K cycles past one warp's request).  Their events are
 * scheduled, so the run goes on to the same cycles as with a watchdog
 * that never fires (it stopped as a hang at cycle 2.8M of 3.1M). */
static void test_slow_dram_no_watchdog(void)
{
    synth_fixture fx;
    wc_synth_params sp;
    wc_synth_defaults(&sp, "memory");
    sp.ctas = 171;
    sp.threads = 128;
    sp.iters = 3;
    if (synth_fixture_open(&fx, "slowdram", &sp, "gt200", 1) != 0) {
        CHECK(0);
        return;
    }
    CHECK(wc_gpu_set(&fx.g, "dram_bw=1", &fx.d) == 0);
    wc_gpu never = fx.g;
    CHECK(wc_gpu_set(&never, "watchdog_cycles=1000000000", &fx.d) == 0);
    dm_result a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int ra = dm_run_kernel(fx.t, 0, &fx.g, NULL, &a, &fx.d);
    if (ra)
        fprintf(stderr, "slow dram: %s\n", fx.d.msg);
    CHECK_EQ_INT(ra, 0);
    CHECK_EQ_INT(dm_run_kernel(fx.t, 0, &never, NULL, &b, &fx.d), 0);
    CHECK(a.cycles > 1000000 && same_result(&a, &b));
    dm_result_free(&a);
    dm_result_free(&b);
    synth_fixture_close(&fx);
}

int main(void)
{
    test_slow_dram_no_watchdog();
    test_pool_reuse();
    test_launch_model();
    test_gather_release();
    test_shared_traces();
    test_synth();
    CHECK_DONE();
}
