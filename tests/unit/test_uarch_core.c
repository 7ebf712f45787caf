/*
 * tests/unit/test_uarch_core.c - the uarch core layer: the one occupancy
 * rule (gt200 allocation granularities, kernels that cannot fit, in every
 * mode), policy names parsed once and rejected in every mode, the typed
 * parameter decoding (errors name the keys), warp-to-sub-core assignment,
 * the RF cache geometry and the opcode modifier facts of wc_inst_finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dm.h"
#include "im_int.h"
#include "smp.h"
#include "wc_synth.h"
#include "ua.h"
#include "wc.h"

static char dir[64];

static void load(const char *name, wc_gpu *g)
{
    wc_diag d;
    int rc = wc_gpu_load(name, g, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s\n", d.msg);
}

/* ---- occupancy -------------------------------------------------------- */

static void test_occupancy_gt200(void)
{
    wc_gpu g;
    load("gt200", &g);
    unsigned n = 0;
    wc_diag d;
    ua_limit lim;
    /* 160 threads = 5 warps, rounded to 6 by warp_alloc_unit = 2:
     * 32 / 6 = 5 CTAs (5 warps unrounded would give 6) */
    ua_core c;
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), 0);
    CHECK_EQ_INT(ua_cta_warps(&c.occ, 160), 6);
    CHECK_EQ_INT(ua_occupancy(&c.occ, 160, 0, 0, &lim), 5);
    CHECK_EQ_INT(lim, UA_LIM_WARPS);
    CHECK_EQ_INT(ua_ctas_per_sm(&g, 160, 0, 0, "k", &n, &d), 0);
    CHECK_EQ_INT(n, 5);
    /* 224 threads x 20 registers, allocated per CTA in units of 512:
     * 4480 -> 4608, 16384 / 4608 = 3 (per warp: 7 x 1024 -> 2) */
    CHECK_EQ_INT(ua_cta_regs(&c.occ, 224, 20), 4608);
    CHECK_EQ_INT(ua_occupancy(&c.occ, 224, 20, 0, &lim), 3);
    CHECK_EQ_INT(lim, UA_LIM_REGS);
    CHECK_EQ_INT(ua_ctas_per_sm(&g, 224, 20, 0, "k", &n, &d), 0);
    CHECK_EQ_INT(n, 3);
    /* shared memory in units of 512: 5000 -> 5120, 16384 / 5120 = 3 */
    CHECK_EQ_INT(ua_occupancy(&c.occ, 32, 0, 5000, &lim), 3);
    CHECK_EQ_INT(lim, UA_LIM_SHMEM);
    /* CTA slots: max_ctas_per_sm = 8 */
    CHECK_EQ_INT(ua_occupancy(&c.occ, 32, 0, 0, &lim), 8);
    CHECK_EQ_INT(lim, UA_LIM_CTAS);
}

static void test_cannot_fit(void)
{
    wc_gpu g;
    wc_diag d;
    unsigned n = 99;
    load("rtx-2070s", &g);
    /* -shmem = 200000 on a 64 KB SM */
    CHECK_EQ_INT(ua_ctas_per_sm(&g, 256, 32, 200000, "trace.traceg", &n, &d),
                 WC_EINPUT);
    CHECK_EQ_INT(n, 0);
    CHECK(strstr(d.msg, "shmem_per_sm") != NULL);
    CHECK_STR(d.file, "trace.traceg");
    /* more warps than the SM holds */
    n = 99;
    CHECK_EQ_INT(wc_gpu_set(&g, "max_warps_per_sm=1", &d), 0);
    CHECK_EQ_INT(ua_ctas_per_sm(&g, 64, 0, 0, "t", &n, &d), WC_EINPUT);
    CHECK_EQ_INT(n, 0);
    CHECK(strstr(d.msg, "max_warps_per_sm") != NULL);
    /* a single warp still fits */
    CHECK_EQ_INT(ua_ctas_per_sm(&g, 32, 0, 0, "t", &n, &d), 0);
    CHECK_EQ_INT(n, 1);
    /* more registers than the SM has */
    load("rtx-2070s", &g);
    CHECK_EQ_INT(wc_gpu_set(&g, "regs_per_sm=256", &d), 0);
    CHECK_EQ_INT(ua_ctas_per_sm(&g, 32, 16, 0, "t", &n, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "regs_per_sm") != NULL);
    /* no registers declared: registers do not limit */
    CHECK_EQ_INT(ua_ctas_per_sm(&g, 32, 0, 0, "t", &n, &d), 0);
    CHECK_EQ_INT(n, 16);
}

/* A synthetic trace with nregs patched in its header. */
static int write_trace(const char *kind, unsigned ctas, unsigned threads,
                       long nregs, const char *sub)
{
    wc_synth_params p;
    wc_diag d;
    char out[128], path[192];
    wc_synth_defaults(&p, kind);
    p.ctas = ctas;
    p.threads = threads;
    p.iters = 1;
    snprintf(out, sizeof out, "%s/%s", dir, sub);
    if (wc_synth_write(&p, out, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    if (nregs < 0)
        return 0;
    snprintf(path, sizeof path, "%s/kernel-1.traceg", out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    buf[len] = '\0';
    char *r = strstr(buf, "-nregs = ");
    f = fopen(path, "wb");
    if (!r || !f) {
        if (f)
            fclose(f);
        free(buf);
        return -1;
    }
    char *eol = strchr(r, '\n');
    fwrite(buf, 1, (size_t)(r - buf), f);
    fprintf(f, "-nregs = %ld", nregs);
    fwrite(eol, 1, (size_t)(len - (eol - buf)), f);
    fclose(f);
    free(buf);
    return 0;
}

static int open_trace(const char *sub, wc_trace **t)
{
    char path[128];
    wc_diag d;
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    return wc_trace_open(path, t, &d);
}

/* The sampler's regions hold the one rule's CTAs per SM (one SM, one
 * wave: region_ctas = occupancy); the interval model reports the same. */
static void sampler_occ(const char *sub, unsigned expect)
{
    wc_gpu g;
    wc_trace *t = NULL;
    wc_diag d;
    load("gt200", &g);
    if (open_trace(sub, &t) != 0) {
        CHECK(0);
        return;
    }
    smp_options o;
    smp_options_default(&o);
    o.region_sms = 1;
    o.region_waves = 1;
    o.small_kernel_insts = 1;
    o.reuse = 0;
    smp_kernel_result r;
    memset(&r, 0, sizeof r);
    int rc = smp_run_kernel(t, 0, &g, &o, &r, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s\n", d.msg);
    else
        CHECK_EQ_INT(r.region_ctas, expect);
    im_result ir;
    memset(&ir, 0, sizeof ir);
    rc = im_run_kernel(t, 0, &g, NULL, &ir, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
        CHECK_EQ_INT(ir.occupancy_ctas, expect);
        im_result_free(&ir);
    }
    wc_trace_close(t);
}

static void test_models_occupancy(void)
{
    /* 30 SMs x 5 or 3 CTAs: enough CTAs that every SM is full */
    CHECK_EQ_INT(write_trace("compute", 300, 160, 8, "k160"), 0);
    CHECK_EQ_INT(write_trace("compute", 300, 224, 20, "k224"), 0);
    sampler_occ("k160", 5);
    sampler_occ("k224", 3);
}

/* Every mode refuses a kernel that cannot fit, and a bad policy name. */
static void test_modes_refuse(void)
{
    static const char *const sets[] = {
        "max_warps_per_sm=1", "regs_per_sm=256", "issue_policy=bogus",
        "assign_policy=bogus", "dep_mode=bogus"};
    static const char *const keys[] = {"max_warps_per_sm", "regs_per_sm",
                                       "issue_policy", "assign_policy",
                                       "dep_mode"};
    wc_trace *t = NULL;
    CHECK_EQ_INT(write_trace("compute", 4, 128, 32, "k128"), 0);
    if (open_trace("k128", &t) != 0) {
        CHECK(0);
        return;
    }
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        wc_gpu g;
        wc_diag d;
        load("rtx-2070s", &g);
        if (i < 2) {
            CHECK_EQ_INT(wc_gpu_set(&g, sets[i], &d), 0);
        } else { /* --set refuses a bad name; a config built in code */
            CHECK_EQ_INT(wc_gpu_set(&g, sets[i], &d), WC_EUSAGE);
            char *f = i == 2 ? g.issue_policy
                             : i == 3 ? g.assign_policy : g.dep_mode;
            snprintf(f, WC_CFG_STR_LEN, "bogus");
        }
        im_result ir;
        memset(&ir, 0, sizeof ir);
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(im_run_kernel(t, 0, &g, NULL, &ir, &d), WC_EINPUT);
        CHECK(strstr(d.msg, keys[i]) != NULL);
        dm_result dr;
        memset(&dr, 0, sizeof dr);
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(dm_run_kernel(t, 0, &g, NULL, &dr, &d), WC_EINPUT);
        CHECK(strstr(d.msg, keys[i]) != NULL);
        smp_kernel_result sr;
        memset(&sr, 0, sizeof sr);
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(smp_run_kernel(t, 0, &g, NULL, &sr, &d), WC_EINPUT);
        CHECK(strstr(d.msg, keys[i]) != NULL);
    }
    wc_trace_close(t);
}

/* ---- typed parameters --------------------------------------------------- */

static void test_decode(void)
{
    wc_gpu g;
    wc_diag d;
    ua_core c;
    load("rtx-a6000", &g);
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), 0);
    CHECK_EQ_INT(c.policy, UA_POL_CGGTY);
    CHECK_EQ_INT(c.assign, UA_ASSIGN_RR);
    CHECK_EQ_INT(c.dep, UA_DEP_AUTO);
    CHECK_EQ_INT(c.nsub, g.subcores_per_sm);
    CHECK_EQ_INT(c.banks, g.rf_banks);
    CHECK_EQ_INT(c.l0i_lines, g.icache_l0_bytes / g.icache_line_bytes);
    for (int i = 0; i < UA_POL_COUNT; i++) {
        char s[64];
        snprintf(s, sizeof s, "issue_policy=%s", ua_policy_name(i));
        CHECK_EQ_INT(wc_gpu_set(&g, s, &d), 0);
        CHECK_EQ_INT(ua_core_decode(&g, &c, &d), 0);
        CHECK_EQ_INT(c.policy, i);
    }
    CHECK(ua_policy_name(UA_POL_COUNT) == NULL);
    CHECK_STR(ua_assign_name(UA_ASSIGN_SHUFFLE), "shuffle");
    CHECK_STR(ua_dep_name(UA_DEP_SCOREBOARD), "scoreboard");
    /* out of bounds in a config built in code: an error, never replaced */
    load("rtx-a6000", &g);
    g.rf_banks = 9;
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "rf_banks") != NULL);
    im_par p;
    CHECK_EQ_INT(im_par_init(&p, &g, 0, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "rf_banks") != NULL);
    /* inconsistent: an icache that is not whole lines, whole sets */
    load("rtx-a6000", &g);
    CHECK_EQ_INT(wc_gpu_set(&g, "icache_l0_assoc=1024", &d), 0);
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "icache_l0_bytes") != NULL);
    CHECK(strstr(d.msg, "icache_l0_assoc") != NULL);
    load("rtx-a6000", &g);
    CHECK_EQ_INT(wc_gpu_set(&g, "icache_line_bytes=16", &d), 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "inst_bytes=32", &d), 0);
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "inst_bytes") != NULL);
    /* the interval model's own limits: sectors of a line */
    load("rtx-a6000", &g);
    CHECK_EQ_INT(wc_gpu_set(&g, "sector_bytes=256", &d), 0);
    CHECK_EQ_INT(im_par_init(&p, &g, 0, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "sector_bytes") != NULL);
    CHECK(strstr(d.msg, "l1_line_bytes") != NULL);
    /* ibuffer_entries: the key's upper bound is the detailed model's */
    load("rtx-a6000", &g);
    CHECK(wc_gpu_set(&g, "ibuffer_entries=6", &d) != 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "ibuffer_entries=5", &d), 0);
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), 0);
    /* unknown memory partitions: the key's channel count, not a number in
     * the code */
    load("rtx-a6000", &g);
    im_par p1, p2;
    CHECK_EQ_INT(wc_gpu_set(&g, "mem_partitions=0", &d), 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "im_mem_channels=10", &d), 0);
    CHECK_EQ_INT(im_par_init(&p1, &g, 0, &d), 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "mem_partitions=10", &d), 0);
    CHECK_EQ_INT(im_par_init(&p2, &g, 0, &d), 0);
    CHECK_NEAR(p1.dram_req_service, p2.dram_req_service, 1e-12);
}

/* ---- sub-core assignment ------------------------------------------------- */

static void test_subcore(void)
{
    for (uint64_t W = 0; W < 16; W++) {
        CHECK_EQ_INT(ua_subcore(UA_ASSIGN_RR, 4, W, 1, 0), W % 4);
        CHECK_EQ_INT(ua_subcore(UA_ASSIGN_SRR, 4, W, 1, 0), (W + W / 4) % 4);
    }
    /* shuffle: a permutation per group of N warps, the same whatever the
     * order of the calls, different across SMs or seeds somewhere */
    int differs = 0;
    for (uint64_t grp = 0; grp < 8; grp++) {
        unsigned seen = 0;
        for (uint64_t i = 0; i < 4; i++) {
            unsigned s = ua_subcore(UA_ASSIGN_SHUFFLE, 4, grp * 4 + i, 7, 3);
            CHECK(s < 4);
            seen |= 1u << s;
            CHECK_EQ_INT(ua_subcore(UA_ASSIGN_SHUFFLE, 4, grp * 4 + i, 7, 3),
                         s);
            if (ua_subcore(UA_ASSIGN_SHUFFLE, 4, grp * 4 + i, 7, 4) != s)
                differs = 1;
        }
        CHECK_EQ_INT(seen, 0xf);
    }
    CHECK(differs);
}

/* ---- register file ---------------------------------------------------------- */

static void test_rf(void)
{
    wc_gpu g;
    wc_diag d;
    ua_core c;
    load("rtx-a6000", &g);
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), 0);
    /* seed 000 5.3.1: one RFC entry per bank, three operand slots */
    CHECK_EQ_INT(UA_RFC_SLOTS, 3);
    CHECK_EQ_INT(c.banks, 2);
    CHECK_EQ_INT(ua_bank(&c, 10), 0);
    CHECK_EQ_INT(ua_bank(&c, 13), 1);
    /* seed 000 5.1.1: Control in t+1, Allocate in t+2 */
    CHECK_EQ_INT(UA_ISSUE_TO_ALLOC, 2);
}

/* ---- opcode modifier facts --------------------------------------------------- */

static wc_inst mk(const char *opcode)
{
    wc_inst in;
    memset(&in, 0, sizeof in);
    snprintf(in.opcode, sizeof in.opcode, "%s", opcode);
    in.op = (uint16_t)wc_op_lookup(opcode, strcspn(opcode, "."));
    in.mask = 0xffffffffu;
    in.depbar_sb = -1;
    wc_inst_finish(&in);
    return in;
}

static void test_mflags(void)
{
    CHECK_EQ_INT(mk("IMAD.WIDE.U32").mflags, WC_MF_WIDE);
    CHECK_EQ_INT(wc_inst_latclass(&(wc_inst){0}), wc_op_info(0)->lat);
    wc_inst w = mk("IMAD.WIDE");
    CHECK_EQ_INT(wc_inst_latclass(&w), WC_LAT_imadwide);
    wc_inst i = mk("IMAD");
    CHECK_EQ_INT(wc_inst_latclass(&i), WC_LAT_imad);
    CHECK_EQ_INT(i.mflags, 0);
    CHECK_EQ_INT(mk("BAR.ARV").mflags, WC_MF_ARV);
    CHECK_EQ_INT(mk("BAR.SYNC").mflags, 0);
    CHECK_EQ_INT(mk("LDGSTS.E.BYPASS.128").mflags,
                 WC_MF_LDGSTS | WC_MF_BYPASS);
    CHECK_EQ_INT(mk("LDGSTS.E.128").mflags, WC_MF_LDGSTS);
    CHECK_EQ_INT(mk("ERRBAR").mflags, WC_MF_ERRBAR);
    CHECK_EQ_INT(mk("HMMA.16816.F32").mflags, WC_MF_MMA_K16);
    CHECK_EQ_INT(mk("HMMA.1688.F32").mflags, 0);
    CHECK_EQ_INT(mk("IMMA.8816.S8.S8").mflags, WC_MF_MMA_INT);
    CHECK_EQ_INT(mk("BMMA.88128.AND.POPC").mflags, WC_MF_MMA_INT);
    CHECK_EQ_INT(mk("DMMA.884").mflags, WC_MF_MMA_FP64);
    /* the tensor latency by type and shape reads the facts */
    wc_gpu g;
    wc_diag d;
    ua_core c;
    load("rtx-a6000", &g);
    g.lat_tensor_k16 = 33;
    g.lat_tensor_int = 22;
    g.lat_tensor_fp64 = 44;
    CHECK_EQ_INT(ua_core_decode(&g, &c, &d), 0);
    wc_inst h = mk("HMMA.16816.F32"), x = mk("IMMA.8816.S8.S8"),
            y = mk("DMMA.884"), z = mk("HMMA.1688.F32");
    CHECK_EQ_INT(ua_inst_lat(&c, &h, WC_LAT_tensor), 33);
    CHECK_EQ_INT(ua_inst_lat(&c, &x, WC_LAT_tensor), 22);
    CHECK_EQ_INT(ua_inst_lat(&c, &y, WC_LAT_tensor), 44);
    CHECK_EQ_INT(ua_inst_lat(&c, &z, WC_LAT_tensor), g.lat_tensor);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/wc_test_uarch_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_occupancy_gt200();
    test_cannot_fit();
    test_models_occupancy();
    test_modes_refuse();
    test_decode();
    test_subcore();
    test_rf();
    test_mflags();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_DONE();
}
