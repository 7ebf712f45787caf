/*
 * tests/unit/test_mem_queue.c - the SM memory unit (detailed/mem_unit.c)
 * with a mock issue stage: seed 000 Table 1 (issue cycles of independent
 * loads with 1-4 active sub-cores) and Table 2 (WAR and RAW latency of
 * every row), exactly; then what load adds: bank conflicts, uncoalesced
 * accesses, L1 / L2 / DRAM misses, the PRT limit.
 */
#include <string.h>

#include "check.h"
#include "mem.h"

static void load_cfg(wc_gpu *g)
{
    wc_diag d;
    char path[2048];
    memset(&d, 0, sizeof d);
    snprintf(path, sizeof path, "%s/gpus/mem-ampere.cfg", wc_data_dir());
    wc_gpu_defaults(g);
    int rc = wc_gpu_load(path, g, &d);
    if (rc) {
        char buf[2200];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
    }
    CHECK_EQ_INT(rc, WC_OK);
}

/* An instruction as a reader hands it over: "LDG.E.64", address register
 * addr_reg (R2, UR4, RZ ...), destination R0 (none for stores). */
static void mk(wc_inst *in, const char *opcode, const char *addr_reg)
{
    memset(in, 0, sizeof *in);
    strncpy(in->opcode, opcode, sizeof in->opcode - 1);
    in->op = (uint16_t)wc_op_lookup(opcode, strcspn(opcode, "."));
    CHECK(in->op != WC_OP_UNKNOWN);
    const wc_opinfo *oi = wc_op_info(in->op);
    wc_reg a = WC_REG_NONE;
    if (addr_reg)
        CHECK_EQ_INT(wc_reg_parse(addr_reg, strlen(addr_reg), &a), 0);
    in->nsrc = 0;
    if (a != WC_REG_NONE)
        in->src[in->nsrc++] = a;
    if (oi->flags & WC_OPF_STORE && !(oi->flags & WC_OPF_LOAD))
        in->src[in->nsrc++] = 8; /* data */
    else if (strcmp(oi->name, "LDGSTS") != 0)
        in->dst[in->ndst++] = 0;
    in->mask = 0xffffffffu;
    in->depbar_sb = -1;
    wc_inst_finish(in);
}

/* ---- Table 1 ------------------------------------------------------------ */

#define NLOADS 12

/* Issue NLOADS independent 32-bit regular LDGs on each of the first
 * `active` sub-cores, one per cycle when the unit takes it, the first in
 * cycle 2 (Table 1's first row). */
static void run_table1(const wc_gpu *g, unsigned active,
                       uint64_t issued[4][NLOADS])
{
    dm_mem *m = dm_mem_create(g, NULL);
    CHECK(m != NULL);
    if (!m)
        return;
    wc_inst in;
    mk(&in, "LDG.E", "R2");
    unsigned next[4] = {0, 0, 0, 0};
    dm_mem_event ev[16];
    for (uint64_t c = 0; c < 400; c++) {
        dm_mem_tick(m, c);
        while (dm_mem_poll(m, c, ev, 16))
            ;
        for (unsigned sc = 0; sc < active; sc++) {
            if (c < 2 || next[sc] >= NLOADS || !dm_mem_can_accept(m, sc))
                continue;
            issued[sc][next[sc]] = c;
            CHECK_EQ_INT(dm_mem_push(m, sc, &in, sc, next[sc], c), 0);
            next[sc]++;
        }
    }
    CHECK_EQ_INT(dm_mem_pending(m), 0);
    dm_mem_free(m);
}

static void test_table1(void)
{
    wc_gpu g;
    load_cfg(&g);
    /* Table 1 of seed 000: rows 1-5 issue in cycles 2-6 on every active
     * sub-core; row 6: 13 / 13,15 / 13,15,17 / 13,15,17,19; row 7: 17 /
     * 17,19 / 19,21,23 / 21,23,25,27; row 8: 21 / 21,23 / 25,27,29 /
     * 29,31,33,35; row i > 8: row i-1 + 4 / +4 / +6 / +8. */
    static const uint64_t row6[4][4] = {
        {13}, {13, 15}, {13, 15, 17}, {13, 15, 17, 19}};
    static const uint64_t row7[4][4] = {
        {17}, {17, 19}, {19, 21, 23}, {21, 23, 25, 27}};
    static const uint64_t row8[4][4] = {
        {21}, {21, 23}, {25, 27, 29}, {29, 31, 33, 35}};
    static const uint64_t step[4] = {4, 4, 6, 8};
    for (unsigned n = 1; n <= 4; n++) {
        uint64_t is[4][NLOADS];
        memset(is, 0, sizeof is);
        run_table1(&g, n, is);
        for (unsigned sc = 0; sc < n; sc++) {
            uint64_t want[NLOADS];
            for (unsigned i = 0; i < 5; i++)
                want[i] = 2 + i;
            want[5] = row6[n - 1][sc];
            want[6] = row7[n - 1][sc];
            want[7] = row8[n - 1][sc];
            for (unsigned i = 8; i < NLOADS; i++)
                want[i] = want[i - 1] + step[n - 1];
            for (unsigned i = 0; i < NLOADS; i++) {
                if (is[sc][i] != want[i])
                    fprintf(stderr, "  %u active, sub-core %u, load %u:\n", n,
                            sc, i + 1);
                CHECK_EQ_INT(is[sc][i], want[i]);
            }
        }
    }
}

/* ---- Table 2 ------------------------------------------------------------ */

/* Push one instruction at cycle t into an idle unit; return the cycles of
 * its WAR and RAW events relative to t. */
static void one(dm_mem *m, const wc_inst *in, uint64_t t, long *war, long *raw)
{
    dm_mem_event ev[4];
    *war = *raw = -1;
    for (uint64_t c = t; c < t + 2000; c++) {
        dm_mem_tick(m, c);
        size_t n = dm_mem_poll(m, c, ev, 4);
        for (size_t i = 0; i < n; i++) {
            CHECK_EQ_INT(ev[i].cycle, c); /* events come out on time */
            CHECK_EQ_INT(ev[i].tag, 77);
            CHECK_EQ_INT(ev[i].warp, 5);
            CHECK_EQ_INT(ev[i].subcore, 1);
            if (ev[i].kind == DM_MEM_EV_WAR)
                *war = (long)(ev[i].cycle - t);
            else
                *raw = (long)(ev[i].cycle - t);
        }
        if (c == t)
            CHECK_EQ_INT(dm_mem_push(m, 1, in, 5, 77, t), 0);
        if (*raw >= 0)
            break;
    }
    CHECK_EQ_INT(dm_mem_pending(m), 0);
}

static void test_table2(void)
{
    wc_gpu g;
    load_cfg(&g);
    static const struct {
        const char *op, *reg;
        long war, raw; /* raw -1: a store (RAW event = done, not checked) */
    } rows[] = {
        {"LDG.E", "UR4", 9, 29},        {"LDG.E.64", "UR4", 9, 31},
        {"LDG.E.128", "UR4", 9, 35},    {"LDG.E", "R2", 11, 32},
        {"LDG.E.64", "R2", 11, 34},     {"LDG.E.128", "R2", 11, 38},
        {"STG.E", "UR4", 10, -1},       {"STG.E.64", "UR4", 12, -1},
        {"STG.E.128", "UR4", 16, -1},   {"STG.E", "R2", 14, -1},
        {"STG.E.64", "R2", 16, -1},     {"STG.E.128", "R2", 20, -1},
        {"LDS", "UR4", 9, 23},          {"LDS.64", "UR4", 9, 23},
        {"LDS.128", "UR4", 9, 25},      {"LDS", "R2", 9, 24},
        {"LDS.64", "R2", 9, 24},        {"LDS.128", "R2", 9, 26},
        {"STS", "UR4", 10, -1},         {"STS.64", "UR4", 12, -1},
        {"STS.128", "UR4", 16, -1},     {"STS", "R2", 12, -1},
        {"STS.64", "R2", 14, -1},       {"STS.128", "R2", 18, -1},
        {"LDC", NULL, 10, 26},          {"LDC", "RZ", 10, 26},
        {"LDC", "R2", 29, 29},          {"LDC.64", "R2", 29, 29},
        {"LDGSTS.E", "R2", 13, 39},     {"LDGSTS.E.64", "R2", 13, 39},
        {"LDGSTS.E.128", "R2", 13, 39},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        dm_mem *m = dm_mem_create(&g, NULL);
        wc_inst in;
        mk(&in, rows[i].op, rows[i].reg);
        long war, raw;
        one(m, &in, 1000, &war, &raw);
        if (war != rows[i].war || (rows[i].raw >= 0 && raw != rows[i].raw))
            fprintf(stderr, "  row %s [%s]\n", rows[i].op,
                    rows[i].reg ? rows[i].reg : "imm");
        CHECK_EQ_INT(war, rows[i].war);
        if (rows[i].raw >= 0)
            CHECK_EQ_INT(raw, rows[i].raw);
        else
            CHECK(raw >= war);
        dm_mem_free(m);
    }
}

/* ---- what load adds -------------------------------------------------- */

static void test_conflicts_and_misses(void)
{
    wc_gpu g;
    load_cfg(&g);
    dm_mem *m = dm_mem_create(&g, NULL);
    wc_inst in;
    long war, raw;

    /* shared memory n-way bank conflicts add n-1 wavefronts */
    for (unsigned ways = 1; ways <= 32; ways *= 2) {
        mk(&in, "LDS", "R2");
        in.iflags |= WC_IF_HAS_ADDR;
        for (unsigned l = 0; l < WC_WARP_SIZE; l++)
            in.addr[l] = 4ull * ways * l;
        one(m, &in, 100 * ways, &war, &raw);
        CHECK_EQ_INT(war, 9);
        CHECK_EQ_INT(raw, 24 + (long)(ways - 1) * g.shmem_wavefront_cycles);
    }

    /* global: cold miss goes to DRAM, then L1 hit, then L2 hit after the
       L1 copy is gone */
    mk(&in, "LDG.E", "R2");
    in.iflags |= WC_IF_HAS_ADDR;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in.addr[l] = 0x100000 + 4ull * l;
    one(m, &in, 10000, &war, &raw);
    CHECK_EQ_INT(war, 11);
    CHECK_EQ_INT(raw, g.dram_latency);
    one(m, &in, 11000, &war, &raw);
    CHECK_EQ_INT(raw, 32);
    dm_mem_free(m);

    g.l1_size = 0; /* every access misses the L1 */
    m = dm_mem_create(&g, NULL);
    one(m, &in, 100, &war, &raw);
    CHECK_EQ_INT(raw, g.dram_latency);
    one(m, &in, 1000, &war, &raw);
    CHECK_EQ_INT(raw, g.l2_latency);
    dm_mem_free(m);
    load_cfg(&g);

    /* uncoalesced: 32 lines, 31 more than a coalesced 32-bit access; the
       coalescer and the L1 stage each walk them, one per cycle */
    m = dm_mem_create(&g, NULL);
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in.addr[l] = 0x200000 + 128ull * l;
    one(m, &in, 1000, &war, &raw); /* warm the L1 */
    one(m, &in, 2000, &war, &raw);
    CHECK_EQ_INT(war, 11);
    CHECK_EQ_INT(raw, 32 + 31 * g.mem_coalesce_cycles + 31 * g.l1_line_cycles);
    dm_mem_stats st;
    dm_mem_stats_get(m, &st);
    CHECK_EQ_INT(st.l1_sector_hits, 32);
    CHECK_EQ_INT(st.l1_sector_misses, 32);
    dm_mem_free(m);
}

/* Back-pressure: with a 2-entry PRT and loads that go to DRAM, the third
 * load cannot leave the sub-core until the first completes. */
static void test_prt(void)
{
    wc_gpu g;
    load_cfg(&g);
    g.mem_prt_entries = 2;
    dm_mem *m = dm_mem_create(&g, NULL);
    wc_inst in;
    mk(&in, "LDG.E", "R2");
    in.iflags |= WC_IF_HAS_ADDR;
    dm_mem_event ev[8];
    uint64_t raw[3] = {0, 0, 0};
    unsigned pushed = 0, got = 0;
    for (uint64_t c = 0; c < 5000 && got < 3; c++) {
        dm_mem_tick(m, c);
        size_t n = dm_mem_poll(m, c, ev, 8);
        for (size_t i = 0; i < n; i++)
            if (ev[i].kind == DM_MEM_EV_RAW)
                raw[got++] = ev[i].cycle;
        if (pushed < 3 && dm_mem_can_accept(m, 0)) {
            for (unsigned l = 0; l < WC_WARP_SIZE; l++)
                in.addr[l] = 0x400000 * (pushed + 1) + 4ull * l;
            dm_mem_push(m, 0, &in, 0, pushed, c);
            pushed++;
        }
    }
    CHECK_EQ_INT(got, 3);
    CHECK_EQ_INT(raw[0], 0 + g.dram_latency);
    CHECK_EQ_INT(raw[1], 1 + g.dram_latency + 3); /* address unit: every 4 */
    /* third: granted when the first RAW was polled (next cycle) */
    CHECK_EQ_INT(raw[2], (long)raw[0] + 1 + (g.dram_latency - g.mem_sub_latency));
    char buf[256];
    dm_mem_dump(m, buf, sizeof buf);
    CHECK(strstr(buf, "pending 0") != NULL);
    dm_mem_free(m);
}

static void test_const_probe(void)
{
    wc_gpu g;
    load_cfg(&g);
    dm_mem *m = dm_mem_create(&g, NULL);
    uint32_t a = 0 << 16 | 0x160;
    uint64_t r = dm_mem_const_probe(m, 0, a, 50);
    CHECK_EQ_INT(r, 50 + g.cc_l0_miss_latency + g.cc_l1_miss_latency);
    CHECK_EQ_INT(dm_mem_const_probe(m, 0, a, r), r);
    CHECK_EQ_INT(dm_mem_const_probe(m, 3, a, r), (long)r + g.cc_l0_miss_latency);
    dm_mem_stats st;
    dm_mem_stats_get(m, &st);
    CHECK_EQ_INT(st.cc_fl_misses, 2);
    CHECK_EQ_INT(st.cc_fl_hits, 1);
    CHECK(!dm_mem_can_accept(m, 9));
    dm_mem_free(m);
    dm_mem_free(NULL);
}

int main(void)
{
    test_table1();
    test_table2();
    test_conflicts_and_misses();
    test_prt();
    test_const_probe();
    CHECK_DONE();
}
