/*
 * tests/unit/test_interval.c - the interval model against hand-computed
 * answers where the physics is simple: a single-warp dependent chain, a
 * unit-throughput-bound stream, warps sharing a sub-core's issue slot, the
 * seed 001 sub-core imbalance microbenchmark (rr / srr / balanced layout),
 * the seed 000 Table 1 memory-issue pattern in aggregate, occupancy waves,
 * launch overhead, CTA windows, register-bank reads of variable-latency
 * instructions, a bank-bound loop behind a latency-bound prologue, and the
 * CPI stack invariant.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "im.h"
#include "wc.h"

/* A warp built from trace-format lines. */
typedef struct prog {
    wc_inst *in;
    size_t n, cap;
} prog;

static void add(prog *p, const char *line)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->in = realloc(p->in, p->cap * sizeof *p->in);
    }
    wc_diag d;
    int rc = wc_trace_parse_line(line, strlen(line), 5, &p->in[p->n], "t", 1,
                                 &d);
    if (rc != 0)
        fprintf(stderr, "parse: %s: %s\n", line, d.msg);
    CHECK(rc == 0);
    p->n++;
}

static void gpu(wc_gpu *g)
{
    wc_diag d;
    wc_gpu_defaults(g);
    static const char *const set[] = {
        "num_sms=1", "subcores_per_sm=4", "lat_fp32=4", "ii_fp32=1",
        "lat_misc=4", "ii_misc=1", "lat_branch=4", "ii_branch=1",
        "launch_overhead=0", "cta_dispatch=0", "max_warps_per_sm=64",
        "max_ctas_per_sm=32", "assign_policy=rr", "dep_mode=auto",
        "mem_shared_ii=2", "mem_sub_ii_regular=4", "mem_dispatch_cycles=2",
        "mem_sub_latency=11", "mem_queue_entries=4", "mem_latch_entries=1",
        "shmem_wavefront_cycles=1", "rf_banks=2", "rf_read_ports=1",
        "rf_read_window=3", "icache_perfect=1", "cc_l0_miss_latency=0",
        "cc_l1_miss_latency=0",
    };
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        int rc = wc_gpu_set(g, set[i], &d);
        if (rc)
            fprintf(stderr, "set %s: %s\n", set[i], d.msg);
        CHECK(rc == 0);
    }
}

static void info(wc_kernel_info *ki, unsigned ctas, unsigned threads)
{
    memset(ki, 0, sizeof *ki);
    ki->grid[0] = ctas;
    ki->grid[1] = ki->grid[2] = 1;
    ki->block[0] = threads;
    ki->block[1] = ki->block[2] = 1;
    ki->ctas = ctas;
    ki->warps_per_cta = (threads + 31) / 32;
    ki->nregs = 32;
}

/* Run with every warp of every CTA taken from progs[w % nprogs]. */
static im_result run(const wc_gpu *g, const wc_kernel_info *ki,
                     prog *const *progs, const im_options *o)
{
    size_t nw = (size_t)ki->ctas * ki->warps_per_cta;
    const wc_inst **w = calloc(nw, sizeof *w);
    size_t *n = calloc(nw, sizeof *n);
    for (size_t i = 0; i < nw; i++) {
        prog *p = progs[i % ki->warps_per_cta];
        w[i] = p->in;
        n[i] = p->n;
    }
    im_result r;
    wc_diag d;
    int rc = im_run_insts(ki, w, n, g, o, &r, &d);
    if (rc)
        fprintf(stderr, "im_run_insts: %s\n", d.msg);
    CHECK(rc == 0);
    free(w);
    free(n);
    return r;
}

static void check_stack(const im_result *r)
{
    double s = 0;
    for (int i = 0; i < IM_CPI_COUNT; i++) {
        CHECK(r->cpi[i] >= -1e-9);
        s += r->cpi[i];
    }
    CHECK_NEAR(s * (double)r->warp_insts, (double)r->cycles,
               1e-6 * (double)r->cycles + 1);
}

static void test_chain(void)
{
    wc_gpu g;
    gpu(&g);
    prog p = {0};
    for (int i = 0; i < 100; i++)
        add(&p, "0080 ffffffff 1 R3 FFMA 2 R3 R0 0 0");
    wc_kernel_info ki;
    info(&ki, 1, 32);
    prog *ps[1] = {&p};
    im_result r = run(&g, &ki, ps, NULL);
    /* issue at 0, 4, ..., 396; done one cycle after the last issue */
    CHECK_EQ_INT(r.cycles, 4 * 99 + 1);
    CHECK_EQ_INT(r.warp_insts, 100);
    CHECK(r.cpi[IM_CPI_DEP] > r.cpi[IM_CPI_BASE]);
    check_stack(&r);
    im_result_free(&r);
    /* launch overhead adds to a whole kernel only */
    wc_diag d;
    wc_gpu_set(&g, "launch_overhead=1000", &d);
    r = run(&g, &ki, ps, NULL);
    CHECK_EQ_INT(r.cycles, 4 * 99 + 1 + 1000);
    CHECK_EQ_INT(r.sim_cycles, 4 * 99 + 1);
    check_stack(&r);
    im_result_free(&r);
    free(p.in);
}

static void test_throughput(void)
{
    wc_gpu g;
    gpu(&g);
    wc_diag d;
    wc_gpu_set(&g, "ii_fp32=2", &d);
    prog p = {0};
    char line[128];
    for (int i = 0; i < 96; i++) {
        snprintf(line, sizeof line, "0080 ffffffff 1 R%d FFMA 2 R%d R%d 0 0",
                 40 + i % 32, 1 + 2 * (i % 8), 2 * (i % 8));
        add(&p, line);
    }
    wc_kernel_info ki;
    info(&ki, 1, 32);
    prog *ps[1] = {&p};
    im_result r = run(&g, &ki, ps, NULL);
    /* unit-bound: one every ii (the last one's slot may be counted) */
    CHECK_NEAR((double)r.cycles, 2 * 95 + 1, 1);
    check_stack(&r);
    im_result_free(&r);
    /* 8 warps, 4 sub-cores, ii 1: two warps per sub-core share the slot */
    wc_gpu_set(&g, "ii_fp32=1", &d);
    info(&ki, 1, 256);
    prog *ps8[8] = {&p, &p, &p, &p, &p, &p, &p, &p};
    r = run(&g, &ki, ps8, NULL);
    CHECK_NEAR((double)r.cycles, 2 * 96, 2);
    CHECK_NEAR(r.ipc, 8 * 96 / (2.0 * 96), 0.1);
    im_result_free(&r);
    free(p.in);
}

/* Seed 001 Fig. 3/4: 32 warps; compute warps run n independent FFMAs,
 * the others only wait at the barrier. */
static double imbalance(const char *policy, int layout_every4)
{
    wc_gpu g;
    gpu(&g);
    wc_diag d;
    char s[64];
    snprintf(s, sizeof s, "assign_policy=%s", policy);
    wc_gpu_set(&g, s, &d);
    prog work = {0}, idle = {0};
    char line[128];
    for (int i = 0; i < 512; i++) {
        /* operands in different register banks: no read bubble */
        snprintf(line, sizeof line, "0100 ffffffff 1 R%d FFMA 2 R%d R%d 0 0",
                 4 + i % 8, 4 + i % 8, (i % 2) ? 2 : 3);
        add(&work, line);
    }
    add(&work, "0200 ffffffff 0 BAR.SYNC 0 0 0");
    add(&work, "0210 ffffffff 0 EXIT 0 0 0");
    add(&idle, "0200 ffffffff 0 BAR.SYNC 0 0 0");
    add(&idle, "0210 ffffffff 0 EXIT 0 0 0");
    wc_kernel_info ki;
    info(&ki, 1, 1024);
    prog *ps[32];
    for (int w = 0; w < 32; w++)
        ps[w] = (layout_every4 ? w % 4 == 0 : w < 8) ? &work : &idle;
    im_result r = run(&g, &ki, ps, NULL);
    check_stack(&r);
    double c = (double)r.cycles;
    if (layout_every4 && strcmp(policy, "rr") == 0)
        CHECK(r.cpi[IM_CPI_IMBALANCE] * (double)r.warp_insts > 0.5 * c);
    im_result_free(&r);
    free(work.in);
    free(idle.in);
    return c;
}

static void test_imbalance(void)
{
    double unb = imbalance("rr", 1), bal = imbalance("rr", 0);
    double srr = imbalance("srr", 1);
    /* 8 x 512 FFMAs on one sub-core vs 2 x 512 on each */
    CHECK_NEAR(unb, 8 * 512, 8 * 512 * 0.02);
    CHECK_NEAR(bal, 2 * 512, 2 * 512 * 0.02);
    CHECK_NEAR(unb / bal, 4.0, 0.1);
    CHECK_NEAR(srr, bal, bal * 0.02); /* SRR spreads one-in-four warps */
}

/* Seed 000 Table 1: per sub-core one warp of independent shared loads;
 * steady state one issue every 4 (1-2 sub-cores), 6 (3), 8 (4) cycles. */
static void test_mem_issue(void)
{
    static const double per[5] = {0, 4, 4, 6, 8};
    for (int nsub = 1; nsub <= 4; nsub++) {
        wc_gpu g;
        gpu(&g);
        prog p = {0};
        char line[160];
        int n = 200;
        for (int i = 0; i < n; i++) {
            snprintf(line, sizeof line,
                     "0100 ffffffff 1 R%d LDS 1 R2 4 1 0x%x 4 0", 10 + i % 64,
                     0x100 * (i % 8));
            add(&p, line);
        }
        wc_kernel_info ki;
        info(&ki, 1, 32u * (unsigned)nsub);
        prog *ps[4] = {&p, &p, &p, &p};
        im_result r = run(&g, &ki, ps, NULL);
        CHECK_NEAR((double)r.cycles, per[nsub] * n, per[nsub] * n * 0.05);
        check_stack(&r);
        im_result_free(&r);
        free(p.in);
    }
}

/* Occupancy and waves: 1 SM, 4 resident CTAs (warp limit), 12 CTAs of one
 * dependent chain each -> 3 waves of the chain. */
static void test_waves(void)
{
    wc_gpu g;
    gpu(&g);
    wc_diag d;
    wc_gpu_set(&g, "max_warps_per_sm=4", &d);
    prog p = {0};
    for (int i = 0; i < 50; i++)
        add(&p, "0080 ffffffff 1 R3 FFMA 2 R3 R0 0 0");
    wc_kernel_info ki;
    info(&ki, 12, 32);
    prog *ps[1] = {&p};
    im_result r = run(&g, &ki, ps, NULL);
    CHECK_EQ_INT(r.occupancy_ctas, 4);
    CHECK_NEAR((double)r.cycles, 3 * (4 * 49 + 1), 3);
    CHECK_EQ_INT(r.ctas, 12);
    check_stack(&r);
    im_result_free(&r);
    /* a window of 4 CTAs is one wave */
    im_options o;
    im_options_default(&o);
    o.cta_first = 4;
    o.cta_count = 4;
    o.per_warp = 1;
    r = run(&g, &ki, ps, &o);
    CHECK_EQ_INT(r.ctas, 4);
    CHECK_NEAR((double)r.cycles, 4 * 49 + 1, 1);
    CHECK_EQ_INT(r.nwarps, 4);
    CHECK_NEAR(r.warp_cycles[0], 4 * 49 + 1, 0.5);
    im_result_free(&r);
    free(p.in);
}

/* Control bits: the stall counts give the schedule. */
static void test_ctrl(void)
{
    wc_gpu g;
    gpu(&g);
    prog p = {0};
    for (int i = 0; i < 20; i++) {
        add(&p, "0080 ffffffff 1 R3 FFMA 2 R3 R0 0 0");
        p.in[p.n - 1].ctrl = (wc_ctrl){1, 6, 0, -1, -1, 0, 0};
    }
    wc_kernel_info ki;
    info(&ki, 1, 32);
    ki.has_ctrl = 1;
    prog *ps[1] = {&p};
    im_result r = run(&g, &ki, ps, NULL);
    CHECK_EQ_INT(r.cycles, 6 * 19 + 1);
    im_result_free(&r);
    ki.has_ctrl = 0; /* scoreboard: the 4-cycle latency */
    r = run(&g, &ki, ps, NULL);
    CHECK_EQ_INT(r.cycles, 4 * 19 + 1);
    im_result_free(&r);
    free(p.in);
}

/* Register-bank read ports (seed 000 5.3): variable-latency instructions
 * read their registers too, and a bank-bound phase cannot start before
 * the warps' prologue is done. */
static void test_banks(void)
{
    wc_gpu g;
    gpu(&g);
    wc_diag d;
    wc_gpu_set(&g, "lat_fp64=8", &d);
    wc_gpu_set(&g, "ii_fp64=1", &d);
    wc_gpu_set(&g, "fp64_shared=0", &d);
    /* 64 independent DFMAs reading R4:R5, R2:R3 (two registers per bank),
     * two warps per sub-core: 2 x 64 x 2 reads per bank, not 2 x 64
     * issue slots */
    prog p = {0};
    char line[128];
    for (int i = 0; i < 64; i++) {
        snprintf(line, sizeof line,
                 "0080 ffffffff 1 R%d DFMA 3 R4 R2 R4 0 0", 10 + 2 * (i % 8));
        add(&p, line);
    }
    wc_kernel_info ki;
    info(&ki, 1, 256);
    prog *ps8[8] = {&p, &p, &p, &p, &p, &p, &p, &p};
    im_result r = run(&g, &ki, ps8, NULL);
    CHECK_NEAR((double)r.cycles, 2 * 64 * 2, 8);
    CHECK(r.cpi[IM_CPI_UNIT] * (double)r.warp_insts > 64);
    check_stack(&r);
    im_result_free(&r);
    free(p.in);
    /* a dependent prologue of 20 FFMAs (80 cycles, little bank use), then
     * 200 FFMAs reading R2 and R4 (both bank 0): two warps per sub-core
     * need 800 bank-0 reads after the prologue, not overlapped with it */
    prog q = {0};
    for (int i = 0; i < 20; i++)
        add(&q, "0080 ffffffff 1 R3 FFMA 2 R3 R1 0 0");
    for (int i = 0; i < 200; i++) {
        snprintf(line, sizeof line, "0100 ffffffff 1 R%d FFMA 2 R2 R4 0 0",
                 41 + 2 * (i % 8));
        add(&q, line);
    }
    prog *qs[8] = {&q, &q, &q, &q, &q, &q, &q, &q};
    r = run(&g, &ki, qs, NULL);
    CHECK(r.cycles >= 4 * 19 + 800);
    CHECK(r.cycles <= 4 * 19 + 800 + 16);
    check_stack(&r);
    im_result_free(&r);
    free(q.in);
}

static void test_names(void)
{
    CHECK_STR(im_cpi_name(IM_CPI_BASE), "base");
    CHECK_STR(im_cpi_name(IM_CPI_MEM_DRAM), "mem_dram");
    CHECK(im_cpi_name(IM_CPI_COUNT) == NULL);
    CHECK(im_cpi_name(-1) == NULL);
}

int main(void)
{
    test_names();
    test_chain();
    test_throughput();
    test_imbalance();
    test_mem_issue();
    test_waves();
    test_ctrl();
    test_banks();
    CHECK_DONE();
}
