/*
 * tests/unit/test_detailed.c - the detailed model against the numbers of
 * seed 000: Listing 1 (register-bank conflicts), Listing 2 (stall counter),
 * Listing 4 (register file cache hits), Figure 4 (CGGTY issue order), the
 * control-bit quirks of section 4, and dependence counters / DEPBAR.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dm.h"

static wc_gpu gpu_a6000;

/* Run a .sass file (path under data/ubench) or text; NULL on failure. */
static int run_text(const char *name, const char *text, const wc_gpu *g,
                    int timeline, dm_ubench_result *r)
{
    wc_diag d;
    wc_ubench *u = NULL;
    memset(&d, 0, sizeof d);
    if (wc_ubench_parse(name, text, strlen(text), &u, &d) != 0) {
        char buf[2048];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        return -1;
    }
    dm_options o;
    dm_options_default(&o);
    o.timeline = timeline;
    int rc = dm_run_ubench(u, g, &o, r, &d);
    if (rc) {
        char buf[2048];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
    }
    wc_ubench_free(u);
    return rc;
}

static int run_file(const char *file, const wc_gpu *g, int timeline,
                    dm_ubench_result *r)
{
    char path[1024], *buf = NULL;
    size_t len;
    wc_diag d;
    snprintf(path, sizeof path, "%s/ubench/%s", wc_data_dir(), file);
    if (wc_read_file(path, &buf, &len, &d) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    int rc = run_text(path, buf, g, timeline, r);
    free(buf);
    return rc;
}

/* Elapsed cycles between the first two clocks of warp 0. */
static long elapsed(const char *file)
{
    dm_ubench_result r;
    if (run_file(file, &gpu_a6000, 0, &r) != 0)
        return -1;
    long e = -1;
    if (r.nwarps >= 1 && r.nclocks[0] >= 2)
        e = (long)(r.clocks[0][1] - r.clocks[0][0]);
    dm_ubench_result_free(&r);
    return e;
}

static void test_listing1(void)
{
    CHECK_EQ_INT(elapsed("listing1-r19-r21.sass"), 5);
    CHECK_EQ_INT(elapsed("listing1-r18-r21.sass"), 6);
    CHECK_EQ_INT(elapsed("listing1-r18-r20.sass"), 7);
    CHECK_EQ_INT(elapsed("listing1-r10-r12.sass"), 7);
}

static void test_listing2(void)
{
    CHECK_EQ_INT(elapsed("listing2-s1.sass"), 5);
    CHECK_EQ_INT(elapsed("listing2-s4.sass"), 8);
}

/* Issue cycles of the timeline events of warp w (in issue order). */
static size_t issues(const dm_ubench_result *r, unsigned w, uint64_t *out,
                     size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nevents && n < max; i++)
        if (r->events[i].warp == w)
            out[n++] = r->events[i].cycle;
    return n;
}

/* Listing 4: hit / miss of R2 in each line (operand slot of R2). */
static void test_listing4(void)
{
    static const struct {
        const char *file;
        int hit2, slot2, hit3;
    } ex[] = {{"listing4-ex1.sass", 1, 0, 0},
              {"listing4-ex2.sass", 1, 0, 1},
              {"listing4-ex3.sass", 0, 1, 1},
              {"listing4-ex4.sass", 0, 0, 0}};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        dm_ubench_result r;
        if (run_file(ex[i].file, &gpu_a6000, 1, &r) != 0) {
            CHECK(0);
            continue;
        }
        CHECK(r.nevents >= 3);
        if (r.nevents >= 3) {
            /* line 1 allocates R2: nothing cached yet */
            CHECK_EQ_INT(r.events[0].nsrc, 3);
            CHECK_EQ_INT(r.events[0].rfc_hit[0], 0);
            CHECK_EQ_INT(r.events[1].rfc_hit[ex[i].slot2], ex[i].hit2);
            CHECK_EQ_INT(r.events[2].rfc_hit[0], ex[i].hit3);
            /* the other operands never hit */
            CHECK_EQ_INT(r.events[2].rfc_hit[1] + r.events[2].rfc_hit[2], 0);
        }
        dm_ubench_result_free(&r);
    }
}

/* Figure 4: runs of consecutive issues by one warp, from the timeline
 * (warps are .warp 0..3; W3 is the youngest). */
static size_t runs(const dm_ubench_result *r, unsigned *w, unsigned *len,
                   size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nevents; i++) {
        if (n && w[n - 1] == r->events[i].warp) {
            len[n - 1]++;
            continue;
        }
        if (n == max)
            break;
        w[n] = r->events[i].warp;
        len[n++] = 1;
    }
    return n;
}

static void test_fig4(void)
{
    unsigned w[64], len[64];
    dm_ubench_result r;
    /* (a): greedy W3 until it outruns the stream buffer (an icache miss
     * at line 9), W2 to the end (the miss is served meanwhile), W3 to the
     * end, W1, W0. */
    if (run_file("fig4-a.sass", &gpu_a6000, 1, &r) == 0) {
        size_t n = runs(&r, w, len, 64);
        /* 4 prologue NOPs, then the measured order */
        static const unsigned ew[] = {3, 2, 1, 0, 3, 2, 3, 1, 0};
        static const unsigned el[] = {1, 1, 1, 1, 71, 81, 10, 81, 81};
        CHECK_EQ_INT(n, 9);
        for (size_t i = 0; i < 9 && i < n; i++) {
            CHECK_EQ_INT(w[i], ew[i]);
            CHECK_EQ_INT(len[i], el[i]);
        }
        dm_ubench_result_free(&r);
    } else {
        CHECK(0);
    }
    /* (b): stall 4 on the 2nd instruction: W3 -> W2 after two cycles,
     * -> W1 after two, back to W3 (its stall expired), W3, W2, W1 to the
     * end, then W0 with bubbles after its 2nd instruction. */
    if (run_file("fig4-b.sass", &gpu_a6000, 1, &r) == 0) {
        size_t n = runs(&r, w, len, 64);
        static const unsigned ew[] = {3, 2, 1, 0, 3, 2, 1, 3, 2, 1, 0};
        static const unsigned el[] = {1, 1, 1, 1, 2, 2, 2, 31, 31, 31, 33};
        CHECK_EQ_INT(n, 11);
        for (size_t i = 0; i < 11 && i < n; i++) {
            CHECK_EQ_INT(w[i], ew[i]);
            CHECK_EQ_INT(len[i], el[i]);
        }
        uint64_t is[64];
        size_t k = issues(&r, 3, is, 64);
        CHECK(k >= 4);
        if (k >= 4) /* W3 i0 i1, W2 i0 i1, W1 i0 i1, then W3 i2 */
            CHECK_EQ_INT(is[3] - is[2], 5);
        k = issues(&r, 0, is, 64);
        CHECK(k >= 4);
        if (k >= 4) /* W0 alone: the stall counter of 4 shows */
            CHECK_EQ_INT(is[3] - is[2], 4);
        dm_ubench_result_free(&r);
    } else {
        CHECK(0);
    }
    /* (c): yield on the 2nd instruction: W3 -> W2 -> back to W3, which
     * runs to the end, then W2; W1 -> W0 -> W1, W0. */
    if (run_file("fig4-c.sass", &gpu_a6000, 1, &r) == 0) {
        size_t n = runs(&r, w, len, 64);
        static const unsigned ew[] = {3, 2, 1, 0, 3, 2, 3, 2, 1, 0, 1, 0};
        static const unsigned el[] = {1, 1, 1, 1, 2, 2, 31, 31, 2, 2, 31, 31};
        CHECK_EQ_INT(n, 12);
        for (size_t i = 0; i < 12 && i < n; i++) {
            CHECK_EQ_INT(w[i], ew[i]);
            CHECK_EQ_INT(len[i], el[i]);
        }
        dm_ubench_result_free(&r);
    } else {
        CHECK(0);
    }
}

/* Table 1: issue cycle of each of 12 shared loads, first load = cycle 2. */
static void test_table1(void)
{
    static const uint64_t row6[4][4] = {
        {13}, {13, 15}, {13, 15, 17}, {13, 15, 17, 19}};
    static const uint64_t row7[4][4] = {
        {17}, {17, 19}, {19, 21, 23}, {21, 23, 25, 27}};
    static const uint64_t row8[4][4] = {
        {21}, {21, 23}, {25, 27, 29}, {29, 31, 33, 35}};
    static const uint64_t step[4] = {4, 4, 6, 8};
    for (unsigned n = 1; n <= 4; n++) {
        char file[64];
        dm_ubench_result r;
        snprintf(file, sizeof file, "table1-%usub.sass", n);
        if (run_file(file, &gpu_a6000, 1, &r) != 0) {
            CHECK(0);
            continue;
        }
        uint64_t first = UINT64_MAX;
        for (size_t i = 0; i < r.nevents; i++)
            if (strncmp(r.events[i].op, "LDS", 3) == 0 &&
                r.events[i].cycle < first)
                first = r.events[i].cycle;
        for (unsigned sc = 0; sc < n; sc++) {
            uint64_t is[32], want[12];
            size_t k = 0, m = issues(&r, sc, is, 32);
            uint64_t lds[12];
            for (size_t i = 0; i < m && k < 12; i++)
                if (i >= 1) /* skip the barrier */
                    lds[k++] = is[i] - first + 2;
            for (unsigned i = 0; i < 5; i++)
                want[i] = 2 + i;
            want[5] = row6[n - 1][sc];
            want[6] = row7[n - 1][sc];
            want[7] = row8[n - 1][sc];
            for (unsigned i = 8; i < 12; i++)
                want[i] = want[i - 1] + step[n - 1];
            CHECK_EQ_INT(k, 12);
            for (unsigned i = 0; i < 12 && i < k; i++)
                CHECK_EQ_INT(lds[i], want[i]);
        }
        dm_ubench_result_free(&r);
    }
}

/* Memory issue order (mem_issue_oldest): which warp takes the memory-queue
 * entries when two want them.  W1 (the youngest) fills the queue first;
 * then under CGGTY alone it keeps every freed entry (greedy), with the key
 * the oldest warp, W0, takes the next one and so becomes the greedy warp
 * itself.  Cycles from the first load; the same with dm_shortcuts 0. */
static void test_mem_issue_order(void)
{
    for (int run = 0; run < 4; run++) { /* the key, with and without shortcuts */
        int v = run & 1;
        wc_gpu g = gpu_a6000;
        g.mem_issue_oldest = v;
        g.dm_shortcuts = run < 2;
        dm_ubench_result r;
        if (run_file("mem-issue-order.sass", &g, 1, &r) != 0) {
            CHECK(0);
            continue;
        }
        uint64_t at[2][16], first = UINT64_MAX;
        size_t k[2] = {0, 0};
        for (size_t i = 0; i < r.nevents; i++)
            if (strncmp(r.events[i].op, "LDS", 3) == 0 &&
                r.events[i].cycle < first)
                first = r.events[i].cycle;
        for (size_t i = 0; i < r.nevents; i++) {
            unsigned w = r.events[i].warp;
            if (strncmp(r.events[i].op, "LDS", 3) == 0 && w < 2 &&
                k[w] < 16)
                at[w][k[w]++] = r.events[i].cycle - first;
        }
        CHECK_EQ_INT(k[0], 12);
        CHECK_EQ_INT(k[1], 12);
        /* W1's first five: the queue and its latch, one a cycle */
        for (unsigned i = 0; i < 5 && k[1] == 12; i++)
            CHECK_EQ_INT(at[1][i], i);
        /* then one load every 4 cycles from cycle 11: v 0: W1's seven,
         * W0's twelve after W1's EXIT (cycle 39 + 4 j); v 1: W0's twelve,
         * then W1's last seven */
        for (unsigned j = 0; j < 12 && k[0] == 12 && k[1] == 12; j++) {
            if (v == 0) {
                if (j < 7)
                    CHECK_EQ_INT(at[1][5 + j], 11 + 4 * j);
                CHECK_EQ_INT(at[0][j], 39 + 4 * j);
            } else {
                CHECK_EQ_INT(at[0][j], 11 + 4 * j);
                if (j < 7)
                    CHECK_EQ_INT(at[1][5 + j], 59 + 4 * j);
            }
        }
        dm_ubench_result_free(&r);
    }
}

/* Table 2: WAR and RAW/WAW latency of every row. */
static void test_table2(void)
{
    static const struct {
        const char *name;
        long war, raw;
    } rows[] = {
        {"ldg32-u", 9, 29},
        {"ldg64-u", 9, 31},
        {"ldg128-u", 9, 35},
        {"ldg32-r", 11, 32},
        {"ldg64-r", 11, 34},
        {"ldg128-r", 11, 38},
        {"stg32-u", 10, -1},
        {"stg64-u", 12, -1},
        {"stg128-u", 16, -1},
        {"stg32-r", 14, -1},
        {"stg64-r", 16, -1},
        {"stg128-r", 20, -1},
        {"lds32-u", 9, 23},
        {"lds64-u", 9, 23},
        {"lds128-u", 9, 25},
        {"lds32-r", 9, 24},
        {"lds64-r", 9, 24},
        {"lds128-r", 9, 26},
        {"sts32-u", 10, -1},
        {"sts64-u", 12, -1},
        {"sts128-u", 16, -1},
        {"sts32-r", 12, -1},
        {"sts64-r", 14, -1},
        {"sts128-r", 18, -1},
        {"ldc32-i", 10, 26},
        {"ldc32-r", 29, 29},
        {"ldc64-r", 29, 29},
        {"ldgsts32-r", 13, 39},
        {"ldgsts64-r", 13, 39},
        {"ldgsts128-r", 13, 39},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char file[64];
        dm_ubench_result r;
        snprintf(file, sizeof file, "table2-%s.sass", rows[i].name);
        if (run_file(file, &gpu_a6000, 1, &r) != 0) {
            CHECK(0);
            continue;
        }
        uint64_t is[8];
        size_t n = issues(&r, 0, is, 8);
        CHECK(n >= 3);
        if (n >= 3) {
            if (is[1] - is[0] != (uint64_t)rows[i].war)
                fprintf(stderr, "  table 2 row %s\n", rows[i].name);
            CHECK_EQ_INT(is[1] - is[0], rows[i].war);
        }
        if (rows[i].raw >= 0 && n >= 5) {
            if (is[4] - is[3] != (uint64_t)rows[i].raw)
                fprintf(stderr, "  table 2 row %s\n", rows[i].name);
            CHECK_EQ_INT(is[4] - is[3], rows[i].raw);
        }
        dm_ubench_result_free(&r);
    }
}

/* Elapsed cycles between the first two clocks of a text microbenchmark. */
static long elapsed_text(const char *text, const wc_gpu *g)
{
    dm_ubench_result r;
    if (run_text("inline", text, g, 0, &r) != 0)
        return -1;
    long e = -1;
    if (r.nwarps >= 1 && r.nclocks[0] >= 2)
        e = (long)(r.clocks[0][1] - r.clocks[0][0]);
    dm_ubench_result_free(&r);
    return e;
}

/* Section 4 quirks: stall > 11 with yield clear stalls only
 * stall_quirk_cycles (2); stall 0 + yield on ERRBAR stalls 45. */
static void test_quirks(void)
{
    static const char no_yield[] =
        ".warp 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S15] NOP ;\n"
        "[B------:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n";
    static const char yield[] =
        ".warp 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
        "[B------:R-:W-:Y:S15] NOP ;\n"
        "[B------:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n";
    static const char errbar[] =
        ".warp 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] NOP ;\n"
        "[B------:R-:W-:Y:S00] ERRBAR ;\n"
        "[B------:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n";
    CHECK_EQ_INT(elapsed_text(no_yield, &gpu_a6000), 1 + 2);
    CHECK_EQ_INT(elapsed_text(yield, &gpu_a6000), 1 + 15);
    CHECK_EQ_INT(elapsed_text(errbar, &gpu_a6000), 2 + 45);
}

/* Dependence counters: a consumer right behind its producer needs stall 2
 * (the increment is seen a cycle after Control); DEPBAR.LE waits for the
 * counter (seed 000 section 4). */
static void test_depcounters(void)
{
    static const char depbar[] =
        ".warp 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
        "[B------:R-:W0:-:S02] LDS R4, [R2] ;\n"
        "[B------:R-:W-:-:S04] DEPBAR.LE SB0, 0x0 ;\n"
        "[B------:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n";
    /* LDS at t+1, DEPBAR at t+1+24 (Table 2 RAW), clock 4 later */
    CHECK_EQ_INT(elapsed_text(depbar, &gpu_a6000), 1 + 24 + 4);
    static const char s1[] =
        ".warp 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
        "[B------:R-:W0:-:S01] LDS R4, [R2] ;\n"
        "[B0-----:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n";
    /* stall 1: the consumer issues before the increment is visible */
    CHECK_EQ_INT(elapsed_text(s1, &gpu_a6000), 2);
    static const char s2[] =
        ".warp 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
        "[B------:R-:W0:-:S02] LDS R4, [R2] ;\n"
        "[B0-----:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n";
    CHECK_EQ_INT(elapsed_text(s2, &gpu_a6000), 1 + 24);
}

/* An instruction reading more registers of one bank than the read window
 * has ports (HMMA.16816.F32: A 4 + B 2 + C 4 registers, 5 per bank) reads
 * them over more cycles instead of waiting in Allocate forever. */
static void test_wide_reads(void)
{
    static const char hmma[] =
        ".warp 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R30, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S02] HMMA.16816.F32 R16, R4, R12, R16 ;\n"
        "[B------:R-:W-:-:S01] HMMA.16816.F32 R20, R4, R12, R20 ;\n"
        "[B------:R-:W-:-:S01] CS2R.32 R31, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n";
    long e = elapsed_text(hmma, &gpu_a6000);
    CHECK(e >= 3 && e < 20);
}

/* Seed 001 Fig. 3/4 on the A100: 8 warps x 4096 independent FFMAs, with 24
 * empty warps per block in the balanced / unbalanced layouts, then a
 * barrier.  rr puts all compute warps of the unbalanced layout on one
 * sub-core (3.9x on hardware); srr spreads them. */
static char *fig3_text(const char *kind, unsigned nffma)
{
    size_t cap = (size_t)nffma * 8 * 48 + 32 * 128 + 64, n = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    unsigned nw = strcmp(kind, "baseline") == 0 ? 8 : 32;
    n += (size_t)snprintf(t + n, cap - n, ".gpu a100\n");
    for (unsigned w = 0; w < nw; w++) {
        int comp = nw == 8 || (strcmp(kind, "balanced") == 0 && w < 8) ||
                   (strcmp(kind, "unbalanced") == 0 && w % 4 == 0);
        n += (size_t)snprintf(t + n, cap - n, ".warp %u\n", w);
        for (unsigned i = 0; comp && i < nffma; i++)
            n += (size_t)snprintf(t + n, cap - n,
                                  "[B------:R-:W-:-:S01] FFMA R%u, R0, R1, "
                                  "R%u ;\n",
                                  4 + i % 4, 4 + i % 4);
        n += (size_t)snprintf(t + n, cap - n,
                              "[B------:R-:W-:-:S01] BAR.SYNC.DEFER_BLOCKING "
                              "0x0 ;\n[B------:R-:W-:-:S01] EXIT ;\n");
    }
    return t;
}

static double fig3_cycles(const char *kind, const wc_gpu *g)
{
    char *t = fig3_text(kind, 4096);
    dm_ubench_result r;
    double c = -1;
    if (t && run_text(kind, t, g, 0, &r) == 0) {
        c = (double)r.cycles;
        dm_ubench_result_free(&r);
    }
    free(t);
    return c;
}

static void test_imbalance(void)
{
    wc_gpu a100, srr;
    wc_diag d;
    if (wc_gpu_load("a100", &a100, &d) != 0) {
        CHECK(0);
        return;
    }
    srr = a100;
    CHECK_EQ_INT(wc_gpu_set(&srr, "assign_policy=srr", &d), 0);
    double base = fig3_cycles("baseline", &a100);
    double bal = fig3_cycles("balanced", &a100);
    double unb = fig3_cycles("unbalanced", &a100);
    double unb_srr = fig3_cycles("unbalanced", &srr);
    CHECK(base > 0);
    if (base <= 0)
        return;
    fprintf(stderr, "fig3: baseline %.0f balanced %.2fx unbalanced %.2fx "
                    "unbalanced+srr %.2fx\n",
            base, bal / base, unb / base, unb_srr / base);
    CHECK_NEAR(unb / base, 3.9, 0.1);  /* seed 001 Fig. 3: 3.9x */
    CHECK_NEAR(bal / base, 1.0, 0.02); /* balanced = baseline */
    CHECK_NEAR(unb_srr / base, 1.0, 0.02);
}

int main(void)
{
    wc_diag d;
    if (wc_gpu_load("rtx-a6000", &gpu_a6000, &d) != 0) {
        char buf[2048];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        return 1;
    }
    test_listing1();
    test_listing2();
    test_listing4();
    test_fig4();
    test_table1();
    test_mem_issue_order();
    test_table2();
    test_quirks();
    test_depcounters();
    test_wide_reads();
    test_imbalance();
    CHECK_DONE();
}
