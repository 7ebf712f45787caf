/*
 * tests/unit/test_ua_mem.c - the parts of uarch/ua_mem.h that the cache,
 * coalescing and queue tests do not cover: the memory-op classes and their
 * seed 000 Table 2 rows (atomics and reductions included), what a write
 * forwards to the next level under each write policy (res.fwd), the set
 * index keys l1_set_hash / l2_set_hash, the L1 -> L2 line split, and
 * ua_popcount32 (its small-mask table and its general path).
 */
#include <string.h>

#include "check.h"
#include "ua.h"

static void mk(wc_inst *in, const char *opcode, unsigned width, int dst)
{
    memset(in, 0, sizeof *in);
    strncpy(in->opcode, opcode, sizeof in->opcode - 1);
    size_t bl = strcspn(opcode, ".");
    in->op = (uint16_t)wc_op_lookup(opcode, bl);
    in->ndst = dst ? 1 : 0;
    in->dst[0] = 4;
    in->nsrc = 2;
    in->src[0] = 2;
    in->src[1] = 6;
    in->mask = 0xffffffffu;
    in->width = (uint8_t)width;
    in->depbar_sb = -1;
    wc_inst_finish(in);
}

static void load_cfg(wc_gpu *g)
{
    wc_diag d;
    char path[2048];
    snprintf(path, sizeof path, "%s/gpus/rtx-a6000.cfg", WC_DATA_DIR);
    CHECK(wc_gpu_load(path, g, &d) == 0);
}

static void test_classes(void)
{
    wc_gpu g;
    load_cfg(&g);
    ua_mem_rows rows;
    ua_mem_rows_init(&rows, &g);
    wc_inst in;
    ua_mem_class c;
    /* Table 2 rows, as measured (rtx-a6000: seed 000 values) */
    mk(&in, "LDG.E", 4, 1);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_LDG);
    CHECK_EQ_INT(c.path, UA_PATH_GLOBAL);
    CHECK_EQ_INT(c.war, 11);
    CHECK_EQ_INT(c.raw, 32);
    CHECK(!c.l2_only && !c.atomic && !c.is_write && c.has_dst);
    mk(&in, "STG.E.128", 16, 0);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_STG);
    CHECK_EQ_INT(c.bits, 128);
    CHECK_EQ_INT(c.war, 20);
    CHECK(c.raw < 0 && c.is_write && !c.has_dst);
    /* atomic with a result: load row, at the L2 */
    mk(&in, "ATOMG.E.ADD", 4, 1);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_LDG);
    CHECK(c.l2_only && c.atomic && !c.is_write && c.has_dst);
    CHECK_EQ_INT(c.war, 11);
    /* reduction: no register written, the store row (seed 000: stores make
     * no RAW; WAR of reading address and data), at the L2 */
    mk(&in, "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", 4, 0);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_STG);
    CHECK(c.l2_only && c.atomic && c.is_write && !c.has_dst);
    CHECK_EQ_INT(c.war, 14);
    CHECK(c.raw < 0);
    mk(&in, "RED.E.ADD", 4, 0);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_STG);
    /* shared atomics and reductions */
    mk(&in, "ATOMS.ADD", 4, 1);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_LDS);
    CHECK_EQ_INT(c.path, UA_PATH_SHARED);
    CHECK(c.atomic);
    mk(&in, "REDAS.ADD", 4, 0);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_STS);
    /* LDC: constant path; LDGSTS: its own rows, .BYPASS skips the L1 */
    mk(&in, "LDC", 4, 1);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.path, UA_PATH_CONST);
    CHECK_EQ_INT(c.mop, UA_MOP_LDC);
    mk(&in, "LDGSTS.E.BYPASS.128", 16, 0);
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.mop, UA_MOP_LDGSTS);
    CHECK(c.l2_only && !c.has_dst);
    CHECK_EQ_INT(c.war, 13);
    CHECK_EQ_INT(c.raw, 39);
    /* fences go to the memory unit and touch no data */
    mk(&in, "MEMBAR.GPU", 0, 0);
    CHECK(ua_mem_is_mem(&in));
    ua_mem_classify(&rows, &in, &c);
    CHECK_EQ_INT(c.path, UA_PATH_NONE);
    CHECK_EQ_INT(c.mop, UA_MOP_FENCE);
    mk(&in, "FFMA", 0, 1);
    CHECK(!ua_mem_is_mem(&in));
}

static ua_cache *mkc(int wb, int walloc, int hash)
{
    ua_cache_geom g = {4096, 1, 128, 32, wb, walloc, hash}; /* 32 sets */
    return ua_cache_create(&g);
}

static void test_fwd(void)
{
    ua_cache_res r;
    for (int wb = 0; wb < 2; wb++)
        for (int wa = 0; wa < 2; wa++) {
            ua_cache *c = mkc(wb, wa, UA_SET_MOD);
            CHECK(c != NULL);
            ua_cache_access(c, 0, 0x3, 1, &r); /* write miss */
            /* write-back keeps what it allocated; else all goes on */
            CHECK_EQ_INT(r.fwd, wb && wa ? 0u : 0x3u);
            ua_cache_access(c, 4096, 0x1, 0, &r); /* read: fill the line */
            ua_cache_access(c, 4096, 0x4, 1, &r); /* write hit */
            CHECK_EQ_INT(r.fwd, wb ? 0u : 0x4u);
            ua_cache_access(c, 4096, 0x1, 0, &r); /* reads forward nothing */
            CHECK_EQ_INT(r.fwd, 0);
            ua_cache_free(c);
        }
    /* no cache at all: every write goes on */
    ua_cache_geom g0 = {0, 1, 128, 32, 1, 1, UA_SET_MOD};
    ua_cache *c = ua_cache_create(&g0);
    CHECK(c != NULL);
    ua_cache_access(c, 0, 0x1, 1, &r);
    CHECK_EQ_INT(r.fwd, 0x1);
    ua_cache_free(c);
}

static void test_set_hash(void)
{
    /* a 16 KB power-of-two stride: modulo puts every line in set 0 of a
     * direct-mapped 32-set cache; the hash spreads them */
    ua_cache *m = mkc(0, 0, UA_SET_MOD), *h = mkc(0, 0, UA_SET_XOR);
    ua_cache_res r;
    unsigned miss_m = 0, miss_h = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t i = 0; i < 16; i++) {
            ua_cache_access(m, i << 14, 0x1, 0, &r);
            miss_m += pass && r.miss;
            ua_cache_access(h, i << 14, 0x1, 0, &r);
            miss_h += pass && r.miss;
        }
    CHECK_EQ_INT(miss_m, 16); /* all conflict in one set */
    CHECK_EQ_INT(miss_h, 0); /* line i << 7 goes to set i */
    ua_cache_free(m);
    ua_cache_free(h);
    /* the keys reach the geometry */
    wc_gpu g;
    load_cfg(&g);
    ua_cache_geom geom;
    ua_cache_geom_l1(&g, &geom);
    CHECK_EQ_INT(geom.set_hash, UA_SET_MOD);
    wc_diag d;
    CHECK(wc_gpu_set(&g, "l1_set_hash=1", &d) == 0);
    CHECK(wc_gpu_set(&g, "l2_set_hash=1", &d) == 0);
    ua_cache_geom_l1(&g, &geom);
    CHECK_EQ_INT(geom.set_hash, UA_SET_XOR);
    ua_cache_geom_l2(&g, &geom);
    CHECK_EQ_INT(geom.set_hash, UA_SET_XOR);
    CHECK_EQ_INT(geom.write_back, 1);
    CHECK(wc_gpu_set(&g, "l1_set_hash=2", &d) != 0); /* out of range */
}

static void test_split(void)
{
    ua_line out[32];
    /* a 128 B line's four sectors into 64 B lines: two lines */
    unsigned n = ua_line_split(0x1000, 0xf, 32, 64, out);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(out[0].addr, 0x1000);
    CHECK_EQ_INT(out[0].sectors, 0x3);
    CHECK_EQ_INT(out[1].addr, 0x1040);
    CHECK_EQ_INT(out[1].sectors, 0x3);
    /* into 256 B lines: one line, the sectors shifted into place */
    n = ua_line_split(0x1080, 0x5, 32, 256, out);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(out[0].addr, 0x1000);
    CHECK_EQ_INT(out[0].sectors, 0x50);
}

/* Bits counted one by one. */
static unsigned bits_of(uint32_t x)
{
    unsigned n = 0;
    for (; x; x >>= 1)
        n += x & 1u;
    return n;
}

static void test_popcount(void)
{
    long bad = 0;
    for (uint32_t x = 0; x < 70000; x++) /* the table, and past it */
        bad += ua_popcount32(x) != bits_of(x);
    uint32_t y = 0x9e3779b9u;
    for (int i = 0; i < 100000; i++) {
        y ^= y << 13;
        y ^= y >> 17;
        y ^= y << 5;
        bad += ua_popcount32(y) != bits_of(y);
        bad += ua_popcount32(y & 0xffu) != bits_of(y & 0xffu);
    }
    bad += ua_popcount32(0xffffffffu) != 32;
    bad += ua_popcount32(0x80000000u) != 1;
    bad += ua_popcount32(0xffu) != 8;
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    test_popcount();
    test_classes();
    test_fwd();
    test_set_hash();
    test_split();
    CHECK_DONE();
}
