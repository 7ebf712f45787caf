/*
 * tests/unit/test_base.c - the base layer of common/: diagnostics, utilities,
 * opcode table, registers, control-bit decoding, instruction completion and
 * sector counting.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wc.h"

static void test_diag(void)
{
    wc_diag d;
    char buf[2048];
    CHECK_EQ_INT(wc_diag_set(&d, WC_EINPUT, "a.sass", 3, 7, "bad '%s'", "x"),
                 WC_EINPUT);
    wc_diag_format(&d, buf, sizeof buf);
    CHECK_STR(buf, "a.sass:3:7: error: bad 'x'");
    wc_diag_set(&d, WC_EINPUT, "a.sass", 3, 0, "m");
    wc_diag_format(&d, buf, sizeof buf);
    CHECK_STR(buf, "a.sass:3: error: m");
    wc_diag_set(&d, WC_EINPUT, "a.sass", 0, 0, "m");
    wc_diag_format(&d, buf, sizeof buf);
    CHECK_STR(buf, "a.sass: error: m");
    wc_diag_set(&d, WC_EUSAGE, NULL, 0, 0, "usage");
    wc_diag_format(&d, buf, sizeof buf);
    CHECK_STR(buf, "error: usage");
    CHECK_EQ_INT(d.code, WC_EUSAGE);
    char small[8];
    wc_diag_set(&d, WC_EINPUT, "file.sass", 10, 20, "long message");
    wc_diag_format(&d, small, sizeof small);
    CHECK_EQ_INT(strlen(small), 7);
}

static void test_util(void)
{
    wc_rng a, b;
    wc_rng_seed(&a, 42);
    wc_rng_seed(&b, 42);
    /* reference values of xoshiro256** seeded through splitmix64(42) */
    CHECK(wc_rng_next(&a) == 0x15780b2e0c2ec716ull);
    CHECK(wc_rng_next(&a) == 0x6104d9866d113a7eull);
    CHECK(wc_rng_next(&a) == 0xae17533239e499a1ull);
    wc_rng_next(&b);
    wc_rng_next(&b);
    wc_rng_next(&b);
    int same = 1, inrange = 1;
    double sum = 0;
    for (int i = 0; i < 10000; i++) {
        double u = wc_rng_uniform(&a);
        same &= u == wc_rng_uniform(&b);
        inrange &= u >= 0.0 && u < 1.0;
        sum += u;
    }
    CHECK(same);
    CHECK(inrange);
    CHECK_NEAR(sum / 10000, 0.5, 0.02);
    wc_rng_seed(&b, 43);
    wc_rng_seed(&a, 42);
    CHECK(wc_rng_next(&a) != wc_rng_next(&b));

    double t0 = wc_now(), t1 = wc_now();
    CHECK(t0 > 0 && t1 >= t0);

    char path[] = "/tmp/wc_test_base_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w");
        fputs("hello\nworld", f);
        fclose(f);
        char *buf = NULL;
        size_t len = 0;
        wc_diag d;
        CHECK_EQ_INT(wc_read_file(path, &buf, &len, &d), 0);
        CHECK_EQ_INT(len, 11);
        CHECK(buf && strcmp(buf, "hello\nworld") == 0);
        free(buf);
        unlink(path);
        CHECK_EQ_INT(wc_read_file(path, &buf, &len, &d), WC_EINPUT);
        CHECK(buf == NULL);
        CHECK_STR(d.file, path);
    }
}

static void test_names(void)
{
    CHECK_STR(wc_unit_name(WC_UNIT_FP32), "fp32");
    CHECK_STR(wc_unit_name(WC_UNIT_MEM_SHARED), "mem_shared");
    CHECK_STR(wc_unit_name(-1), "?");
    CHECK_STR(wc_unit_name(WC_UNIT_COUNT), "?");
    CHECK_STR(wc_space_name(WC_SPACE_GENERIC), "generic");
    CHECK_STR(wc_latclass_name(WC_LAT_imadwide), "imadwide");
    CHECK_STR(wc_latclass_name(WC_LAT_mem), "mem");
    CHECK_STR(wc_latclass_name(WC_LAT_COUNT), "?");
}

static unsigned lk(const char *s)
{
    return wc_op_lookup(s, strlen(s));
}

static void test_opcodes(void)
{
    size_t n = wc_op_count();
    CHECK(n > 200);
    CHECK_STR(wc_op_info(WC_OP_UNKNOWN)->name, "UNKNOWN");
    CHECK(wc_op_info((unsigned)n + 5) == wc_op_info(WC_OP_UNKNOWN));
    int self = 1, sane = 1, docs = 1;
    for (unsigned i = 1; i < n; i++) {
        const wc_opinfo *oi = wc_op_info(i);
        self &= lk(oi->name) == i;
        sane &= oi->unit < WC_UNIT_COUNT && oi->lat < WC_LAT_COUNT &&
                oi->space < WC_SPACE_COUNT;
        docs &= oi->doc && oi->doc[0];
        /* every memory access names a space */
        if (oi->flags & (WC_OPF_LOAD | WC_OPF_STORE))
            sane &= oi->lat == WC_LAT_mem;
    }
    CHECK(self); /* names unique and all found */
    CHECK(sane);
    CHECK(docs);
    CHECK_STR(wc_op_info(lk("FFMA"))->name, "FFMA");
    CHECK_EQ_INT(lk("LDG.E.128"), lk("LDG"));
    CHECK_EQ_INT(wc_op_lookup("LDG.E.128", 3), lk("LDG"));
    CHECK_EQ_INT(wc_op_lookup("FFMAX", 4), lk("FFMA"));
    CHECK_EQ_INT(lk("BAR.SYNC.DEFER_BLOCKING"), lk("BAR"));
    CHECK_EQ_INT(lk("LEA.HI.X"), lk("LEA"));
    CHECK_EQ_INT(lk("FOO"), WC_OP_UNKNOWN);
    CHECK_EQ_INT(lk("FFM"), WC_OP_UNKNOWN);
    CHECK_EQ_INT(lk("FFMAA"), WC_OP_UNKNOWN);
    CHECK_EQ_INT(lk(""), WC_OP_UNKNOWN);
    CHECK_EQ_INT(lk(".E"), WC_OP_UNKNOWN);
    CHECK_EQ_INT(lk("ffma"), WC_OP_UNKNOWN);
    CHECK_EQ_INT(wc_op_lookup(NULL, 0), WC_OP_UNKNOWN);
    /* every opcode of the real traces under ../shared and of seed 000 */
    static const char *const seen[] = {
        "IMAD.WIDE", "FFMA", "S2R", "EXIT", "LDG.E", "FADD", "MOV",
        "ISETP.GE.AND", "IMAD", "HFMA2.MMA", "ULDC.64", "STG.E", "UIADD3",
        "ISETP.LE.AND", "BRA", "LDC", "UMOV", "FSETP.NEU.AND", "CS2R.32",
        "NOP", "IADD3", "DEPBAR.LE", "LD.E", "HADD2", "LDGSTS", "HMMA.16816",
        "UTMALDG.2D", "HGMMA.64x128x16.F32", "SYNCS.EXCH.64", "ELECT",
    };
    int all = 1;
    for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) {
        if (lk(seen[i]) == WC_OP_UNKNOWN) {
            fprintf(stderr, "unknown opcode %s\n", seen[i]);
            all = 0;
        }
    }
    CHECK(all);
    const wc_opinfo *o = wc_op_info(lk("LDS"));
    CHECK_EQ_INT(o->unit, WC_UNIT_MEM_SHARED);
    CHECK_EQ_INT(o->space, WC_SPACE_SHARED);
    CHECK(o->flags & WC_OPF_LOAD);
    CHECK(o->flags & WC_OPF_VARLAT);
    o = wc_op_info(lk("EXIT"));
    CHECK(o->flags & WC_OPF_EXIT);
    CHECK_EQ_INT(o->unit, WC_UNIT_BRANCH);
    CHECK(wc_op_info(lk("DEPBAR"))->flags & WC_OPF_DEPBAR);
    CHECK(wc_op_info(lk("NOP"))->flags & WC_OPF_NOP);
    CHECK(wc_op_info(lk("BAR"))->flags & WC_OPF_BAR);
    CHECK(wc_op_info(lk("CS2R"))->flags & WC_OPF_SR);
    CHECK(!(wc_op_info(lk("CS2R"))->flags & WC_OPF_VARLAT));
    CHECK(wc_op_info(lk("S2R"))->flags & WC_OPF_VARLAT);
    CHECK_EQ_INT(wc_op_info(lk("IMAD"))->lat, WC_LAT_imad);
    CHECK_EQ_INT(wc_op_info(lk("MUFU"))->unit, WC_UNIT_SFU);
    CHECK_EQ_INT(wc_op_info(lk("DFMA"))->unit, WC_UNIT_FP64);
    CHECK_EQ_INT(wc_op_info(lk("HMMA"))->lat, WC_LAT_tensor);
    CHECK_EQ_INT(wc_op_info(lk("UIADD3"))->unit, WC_UNIT_UNIFORM);
    CHECK_EQ_INT(wc_op_info(lk("ATOMS"))->space, WC_SPACE_SHARED);
    CHECK_EQ_INT(wc_op_info(lk("LD"))->space, WC_SPACE_GENERIC);
}

static void test_regs(void)
{
    static const struct {
        const char *s;
        int ok;
        wc_reg r;
    } t[] = {
        {"R0", 1, 0},          {"R12", 1, 12},       {"R254", 1, 254},
        {"RZ", 1, WC_RZ},      {"R255", 0, 0},       {"R01", 0, 0},
        {"R", 0, 0},           {"R-1", 0, 0},        {"R1000", 0, 0},
        {"UR0", 1, 256},       {"UR4", 1, 260},      {"UR62", 1, 318},
        {"URZ", 1, WC_URZ},    {"UR63", 0, 0},       {"P0", 1, 512},
        {"P6", 1, 518},        {"PT", 1, WC_PT},     {"P7", 0, 0},
        {"UP0", 1, 528},       {"UP6", 1, 534},      {"UPT", 1, WC_UPT},
        {"UP7", 0, 0},         {"PZ", 0, 0},         {"RT", 0, 0},
        {"Q12", 0, 0},         {"r1", 0, 0},         {"SR_TID", 0, 0},
        {"U", 0, 0},           {"URT", 0, 0},        {"UPZ", 0, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        wc_reg r = 0;
        int rc = wc_reg_parse(t[i].s, strlen(t[i].s), &r);
        if ((rc == 0) != t[i].ok || (t[i].ok && r != t[i].r)) {
            fprintf(stderr, "reg %s: rc %d r %u\n", t[i].s, rc, r);
            CHECK(0);
        } else {
            CHECK(1);
        }
    }
    wc_reg r;
    CHECK_EQ_INT(wc_reg_parse("R12.reuse", 3, &r), 0);
    CHECK_EQ_INT(r, 12);
    /* round trip over every valid register */
    int ok = 1;
    for (unsigned v = 0; v < 600; v++) {
        if (!(WC_REG_IS_R(v) || WC_REG_IS_UR(v) || WC_REG_IS_P(v) ||
              WC_REG_IS_UP(v)))
            continue;
        char buf[16];
        wc_reg_name((wc_reg)v, buf, sizeof buf);
        ok &= wc_reg_parse(buf, strlen(buf), &r) == 0 && r == v;
    }
    CHECK(ok);
    char buf[16];
    wc_reg_name(WC_URZ, buf, sizeof buf);
    CHECK_STR(buf, "URZ");
    wc_reg_name(WC_PT, buf, sizeof buf);
    CHECK_STR(buf, "PT");
    wc_reg_name(WC_UP_BASE + 3, buf, sizeof buf);
    CHECK_STR(buf, "UP3");
    CHECK(WC_REG_IS_ZERO(WC_RZ) && WC_REG_IS_ZERO(WC_UPT));
}

/* High word holding the given control fields at bit 41. */
static uint64_t ctrl_word(unsigned stall, int yield, int wbar, int rbar,
                          unsigned wait, unsigned reuse)
{
    uint64_t v = stall | (yield ? 0u : 1u << 4) |
                 (unsigned)(wbar < 0 ? 7 : wbar) << 5 |
                 (unsigned)(rbar < 0 ? 7 : rbar) << 8 | wait << 11 |
                 reuse << 17;
    return (v << 41) | 0x1234; /* low bits belong to the instruction */
}

static void test_ctrl_decode(void)
{
    wc_ctrl c;
    /* IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]: [B------:R-:W-:Y:S02] */
    wc_ctrl_decode(0x000fc400078e00ffull, &c);
    CHECK_EQ_INT(c.valid, 1);
    CHECK_EQ_INT(c.stall, 2);
    CHECK_EQ_INT(c.yield, 1);
    CHECK_EQ_INT(c.wbar, -1);
    CHECK_EQ_INT(c.rbar, -1);
    CHECK_EQ_INT(c.wait, 0);
    CHECK_EQ_INT(c.reuse, 0);
    /* S2R R0, SR_TID.X: [B------:R-:W0:-:S01] */
    wc_ctrl_decode(0x000e220000002100ull, &c);
    CHECK_EQ_INT(c.stall, 1);
    CHECK_EQ_INT(c.yield, 0);
    CHECK_EQ_INT(c.wbar, 0);
    CHECK_EQ_INT(c.rbar, -1);
    /* LDG.E R6, desc[UR4][R2.64]: [B------:R-:W2:-:S04] */
    wc_ctrl_decode(0x000ea8000c1e1900ull, &c);
    CHECK_EQ_INT(c.stall, 4);
    CHECK_EQ_INT(c.wbar, 2);
    CHECK_EQ_INT(c.yield, 0);
    /* waits on SB2: [B--2---:R-:W-:-:S01] */
    wc_ctrl_decode(0x004fe200078e0203ull, &c);
    CHECK_EQ_INT(c.wait, 1u << 2);
    CHECK_EQ_INT(c.stall, 1);
    /* CuAssembler's padding NOP control 0x7e0 is [B------:R-:W-:Y:S00] */
    wc_ctrl_decode((uint64_t)0x7e0 << 41, &c);
    CHECK_EQ_INT(c.yield, 1);
    CHECK_EQ_INT(c.stall, 0);
    /* every field alone */
    for (unsigned s = 0; s < 16; s++) {
        wc_ctrl_decode(ctrl_word(s, 0, -1, -1, 0, 0), &c);
        CHECK_EQ_INT(c.stall, s);
    }
    for (int b = -1; b < 6; b++) {
        wc_ctrl_decode(ctrl_word(1, 0, b, -1, 0, 0), &c);
        CHECK_EQ_INT(c.wbar, b);
        CHECK_EQ_INT(c.rbar, -1);
        wc_ctrl_decode(ctrl_word(1, 0, -1, b, 0, 0), &c);
        CHECK_EQ_INT(c.rbar, b);
        CHECK_EQ_INT(c.wbar, -1);
    }
    wc_ctrl_decode(ctrl_word(0, 0, 6, 6, 0, 0), &c); /* 6: reserved, kept */
    CHECK_EQ_INT(c.wbar, 6);
    for (unsigned w = 0; w < 64; w++) {
        wc_ctrl_decode(ctrl_word(3, 1, 2, 1, w, 0), &c);
        CHECK_EQ_INT(c.wait, w);
    }
    for (unsigned r = 0; r < 16; r++) {
        wc_ctrl_decode(ctrl_word(3, 1, 2, 1, 0x21, r), &c);
        CHECK_EQ_INT(c.reuse, r);
        CHECK_EQ_INT(c.wait, 0x21);
        CHECK_EQ_INT(c.yield, 1);
    }
}

static int cparse(const char *s, wc_ctrl *c)
{
    return wc_ctrl_parse(s, strlen(s), c);
}

static void test_ctrl_parse(void)
{
    wc_ctrl c;
    CHECK_EQ_INT(cparse("[B------:R-:W-:-:S01]", &c), 0);
    CHECK_EQ_INT(c.valid, 1);
    CHECK_EQ_INT(c.stall, 1);
    CHECK_EQ_INT(c.yield, 0);
    CHECK_EQ_INT(c.wbar, -1);
    CHECK_EQ_INT(c.rbar, -1);
    CHECK_EQ_INT(c.wait, 0);
    CHECK_EQ_INT(cparse("[B0-2--5:R3:W4:Y:S15]", &c), 0);
    CHECK_EQ_INT(c.wait, 0x25);
    CHECK_EQ_INT(c.rbar, 3);
    CHECK_EQ_INT(c.wbar, 4);
    CHECK_EQ_INT(c.yield, 1);
    CHECK_EQ_INT(c.stall, 15);
    /* decode(word) == parse(notation) for the same fields */
    wc_ctrl d;
    wc_ctrl_decode(ctrl_word(15, 1, 4, 3, 0x25, 0), &d);
    CHECK(memcmp(&c, &d, sizeof c) == 0);
    /* errors: -(0-based column + 1) of the offending character */
    CHECK_EQ_INT(cparse("B------:R-:W-:-:S01]", &c), -1);
    CHECK_EQ_INT(cparse("[X------:R-:W-:-:S01]", &c), -2);
    CHECK_EQ_INT(cparse("[B1-----:R-:W-:-:S01]", &c), -3);
    CHECK_EQ_INT(cparse("[B-----:R-:W-:-:S01]", &c), -8);
    CHECK_EQ_INT(cparse("[B------:R6:W-:-:S01]", &c), -11);
    CHECK_EQ_INT(cparse("[B------:R-:W9:-:S01]", &c), -14);
    CHECK_EQ_INT(cparse("[B------:R-:W-:y:S01]", &c), -16);
    CHECK_EQ_INT(cparse("[B------:R-:W-:-:S16]", &c), -19);
    CHECK_EQ_INT(cparse("[B------:R-:W-:-:S1]", &c), -20);
    CHECK_EQ_INT(cparse("[B------:R-:W-:-:S01", &c), -21);
    CHECK_EQ_INT(cparse("[B------:R-:W-:-:S01]x", &c), -22);
    CHECK_EQ_INT(cparse("", &c), -1);
    CHECK_EQ_INT(cparse("[B", &c), -3);
}

static wc_inst mk(const char *opcode, int ndst, const wc_reg *dst, int nsrc,
                  const wc_reg *src)
{
    wc_inst in;
    memset(&in, 0, sizeof in);
    snprintf(in.opcode, sizeof in.opcode, "%s", opcode);
    in.op = (uint16_t)wc_op_lookup(opcode, strlen(opcode));
    in.ndst = (uint8_t)ndst;
    in.nsrc = (uint8_t)nsrc;
    for (int i = 0; i < ndst; i++)
        in.dst[i] = dst[i];
    for (int i = 0; i < nsrc; i++)
        in.src[i] = src[i];
    in.mask = 0xffffffffu;
    in.depbar_sb = -1;
    wc_inst_finish(&in);
    return in;
}

static void test_finish(void)
{
    wc_reg d1[] = {4}, s1[] = {2};
    wc_inst in = mk("LDG.E.64", 1, d1, 1, s1);
    CHECK_EQ_INT(in.unit, WC_UNIT_MEM_GLOBAL);
    CHECK_EQ_INT(in.space, WC_SPACE_GLOBAL);
    CHECK_EQ_INT(in.width, 8);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    in = mk("LDG.E", 1, d1, 1, s1);
    CHECK_EQ_INT(in.width, 4);
    CHECK_EQ_INT(in.dst_nregs[0], 1);
    in = mk("LDG.E.U8", 1, d1, 1, s1);
    CHECK_EQ_INT(in.width, 1);
    in = mk("LDG.E.S16.CONSTANT", 1, d1, 1, s1);
    CHECK_EQ_INT(in.width, 2);
    in = mk("LDG.E.128.CONSTANT", 1, d1, 1, s1);
    CHECK_EQ_INT(in.width, 16);
    CHECK_EQ_INT(in.dst_nregs[0], 4);
    in = mk("LDS.U.128", 1, d1, 1, s1);
    CHECK_EQ_INT(in.space, WC_SPACE_SHARED);
    CHECK_EQ_INT(in.dst_nregs[0], 4);
    CHECK_EQ_INT(in.src_nregs[0], 1); /* 32-bit shared address */
    in = mk("LD.E.64", 1, d1, 1, s1);
    CHECK_EQ_INT(in.space, WC_SPACE_GENERIC);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    in = mk("LDL.64", 1, d1, 1, s1);
    CHECK_EQ_INT(in.space, WC_SPACE_LOCAL);
    CHECK_EQ_INT(in.unit, WC_UNIT_MEM_LOCAL);
    in = mk("LDC.64", 1, d1, 0, NULL);
    CHECK_EQ_INT(in.space, WC_SPACE_CONST);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    wc_reg us[] = {WC_UR_BASE + 4};
    in = mk("LDS", 1, d1, 1, us);
    CHECK(in.iflags & WC_IF_UADDR);
    in = mk("LDS", 1, d1, 1, s1);
    CHECK(!(in.iflags & WC_IF_UADDR));
    wc_reg st[] = {2, 8};
    in = mk("STG.E.128", 0, NULL, 2, st);
    CHECK_EQ_INT(in.width, 16);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[1], 4);
    in = mk("STS.64", 0, NULL, 2, st);
    CHECK_EQ_INT(in.src_nregs[0], 1);
    CHECK_EQ_INT(in.src_nregs[1], 2);
    wc_reg ad[] = {WC_PT, 6}, as[] = {2, 8};
    in = mk("ATOMS.ADD", 2, ad, 2, as);
    CHECK_EQ_INT(in.unit, WC_UNIT_ATOMIC);
    CHECK_EQ_INT(in.space, WC_SPACE_SHARED);
    in = mk("ATOM.E.ADD.64.STRONG.GPU", 2, ad, 2, as);
    CHECK_EQ_INT(in.space, WC_SPACE_GENERIC);
    CHECK_EQ_INT(in.width, 8);
    CHECK_EQ_INT(in.dst_nregs[0], 1); /* the predicate */
    CHECK_EQ_INT(in.dst_nregs[1], 2);
    CHECK_EQ_INT(in.src_nregs[1], 2);
    wc_reg gs[] = {5, 2};
    in = mk("LDGSTS.E.BYPASS.128", 0, NULL, 2, gs);
    CHECK_EQ_INT(in.width, 16);
    CHECK_EQ_INT(in.src_nregs[0], 1);
    CHECK_EQ_INT(in.src_nregs[1], 2);
    wc_reg f3[] = {2, 4, 6};
    in = mk("DFMA", 1, d1, 3, f3);
    CHECK_EQ_INT(in.unit, WC_UNIT_FP64);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[2], 2);
    CHECK_EQ_INT(in.width, 0);
    wc_reg pd[] = {WC_P_BASE, WC_PT};
    in = mk("DSETP.GT.AND", 2, pd, 2, f3);
    CHECK_EQ_INT(in.dst_nregs[0], 1);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    wc_reg im[] = {3, 4, 6};
    in = mk("IMAD.WIDE", 1, d1, 3, im);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[0], 1);
    CHECK_EQ_INT(in.src_nregs[2], 2);
    CHECK_EQ_INT(wc_inst_latclass(&in), WC_LAT_imadwide);
    in = mk("IMAD.WIDE.U32", 1, d1, 3, im);
    CHECK_EQ_INT(wc_inst_latclass(&in), WC_LAT_imadwide);
    in = mk("IMAD", 1, d1, 3, im);
    CHECK_EQ_INT(in.dst_nregs[0], 1);
    CHECK_EQ_INT(wc_inst_latclass(&in), WC_LAT_imad);
    in = mk("FFMA", 1, d1, 3, im);
    CHECK_EQ_INT(wc_inst_latclass(&in), WC_LAT_fp32);
    CHECK_EQ_INT(in.dst_nregs[0] + in.src_nregs[0] + in.src_nregs[2], 3);
    CHECK_EQ_INT(in.src_nregs[3], 0);
    /* MMA shapes: D, A, B, C */
    wc_reg mm[] = {8, 12, 4};
    in = mk("HMMA.16816.F32", 1, d1, 3, mm);
    CHECK_EQ_INT(in.dst_nregs[0], 4);
    CHECK_EQ_INT(in.src_nregs[0], 4);
    CHECK_EQ_INT(in.src_nregs[1], 2);
    CHECK_EQ_INT(in.src_nregs[2], 4);
    in = mk("HMMA.16816.F32.BF16", 1, d1, 3, mm);
    CHECK_EQ_INT(in.src_nregs[0], 4);
    in = mk("HMMA.1688.F16", 1, d1, 3, mm);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[1], 1);
    CHECK_EQ_INT(in.src_nregs[2], 2);
    in = mk("HMMA.1684.F32.TF32", 1, d1, 3, mm);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[1], 1);
    in = mk("IMMA.16832.S8.S8", 1, d1, 3, mm);
    CHECK_EQ_INT(in.src_nregs[0], 4);
    CHECK_EQ_INT(in.src_nregs[1], 2);
    CHECK_EQ_INT(in.dst_nregs[0], 4);
    in = mk("DMMA.884", 1, d1, 3, mm);
    CHECK_EQ_INT(in.dst_nregs[0], 4);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[1], 2);
    /* conversions */
    in = mk("F2F.F64.F32", 1, d1, 1, s1);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[0], 1);
    in = mk("F2F.F32.F64", 1, d1, 1, s1);
    CHECK_EQ_INT(in.dst_nregs[0], 1);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    in = mk("I2F.F64", 1, d1, 1, s1);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[0], 1);
    in = mk("I2F.F64.S64", 1, d1, 1, s1);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    in = mk("F2I.F64.TRUNC", 1, d1, 1, s1);
    CHECK_EQ_INT(in.dst_nregs[0], 1);
    CHECK_EQ_INT(in.src_nregs[0], 2);
    in = mk("F2I.U64.TRUNC", 1, d1, 1, s1);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.src_nregs[0], 1);
    in = mk("CS2R", 1, d1, 0, NULL);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    in = mk("CS2R.32", 1, d1, 0, NULL);
    CHECK_EQ_INT(in.dst_nregs[0], 1);
    wc_reg ud[] = {WC_UR_BASE + 4};
    in = mk("ULDC.64", 1, ud, 0, NULL);
    CHECK_EQ_INT(in.dst_nregs[0], 2);
    CHECK_EQ_INT(in.unit, WC_UNIT_UNIFORM);
    CHECK_EQ_INT(in.width, 0);
    /* unknown opcodes get the unknown entry, no crash */
    in = mk("FOOBAR.X", 1, d1, 1, s1);
    CHECK_EQ_INT(in.op, WC_OP_UNKNOWN);
    CHECK_EQ_INT(in.unit, WC_UNIT_MISC);
    /* a given width is kept */
    memset(&in, 0, sizeof in);
    strcpy(in.opcode, "LDG.E");
    in.op = (uint16_t)lk("LDG");
    in.width = 8;
    wc_inst_finish(&in);
    CHECK_EQ_INT(in.width, 8);
}

static void test_sectors(void)
{
    wc_inst in;
    memset(&in, 0, sizeof in);
    strcpy(in.opcode, "LDG.E");
    in.op = (uint16_t)lk("LDG");
    in.mask = 0xffffffffu;
    in.width = 4;
    CHECK_EQ_INT(wc_inst_sectors(&in), 0); /* no addresses */
    in.iflags = WC_IF_HAS_ADDR;
    for (int l = 0; l < 32; l++)
        in.addr[l] = 0x7f0000001000ull + 4u * (unsigned)l;
    CHECK_EQ_INT(wc_inst_sectors(&in), 4); /* coalesced: 128 B */
    in.mask = 0x0000ffffu;
    CHECK_EQ_INT(wc_inst_sectors(&in), 2);
    in.mask = 0x80000001u;
    CHECK_EQ_INT(wc_inst_sectors(&in), 2);
    in.mask = 0;
    CHECK_EQ_INT(wc_inst_sectors(&in), 0);
    in.mask = 0xffffffffu;
    for (int l = 0; l < 32; l++)
        in.addr[l] = 0x1000 + 2u + 4u * (unsigned)l; /* misaligned */
    CHECK_EQ_INT(wc_inst_sectors(&in), 5);
    for (int l = 0; l < 32; l++)
        in.addr[l] = 0x1000 + 128u * (unsigned)l; /* strided */
    CHECK_EQ_INT(wc_inst_sectors(&in), 32);
    for (int l = 0; l < 32; l++)
        in.addr[l] = 0x1000 + 8u * (unsigned)l; /* stride 8: 256 B */
    CHECK_EQ_INT(wc_inst_sectors(&in), 8);
    for (int l = 0; l < 32; l++)
        in.addr[l] = 0x1000; /* broadcast */
    CHECK_EQ_INT(wc_inst_sectors(&in), 1);
    for (int l = 0; l < 32; l++) /* scattered, pairs share sectors */
        in.addr[l] = 0x100000ull * (unsigned)(l / 2) + 4u * (unsigned)(l % 2);
    CHECK_EQ_INT(wc_inst_sectors(&in), 16);
    in.width = 16;
    for (int l = 0; l < 32; l++)
        in.addr[l] = 0x2000 + 16u * (unsigned)l;
    CHECK_EQ_INT(wc_inst_sectors(&in), 16);
    in.width = 8;
    for (int l = 0; l < 32; l++)
        in.addr[l] = 0x2000 + 28u + 64u * (unsigned)l; /* each crosses */
    CHECK_EQ_INT(wc_inst_sectors(&in), 64);
    in.width = 4;
    for (int l = 0; l < 32; l++)
        in.addr[l] = UINT64_MAX - 1; /* wraps: no hang, no overflow */
    CHECK(wc_inst_sectors(&in) >= 1);
}

int main(void)
{
    test_diag();
    test_util();
    test_names();
    test_opcodes();
    test_regs();
    test_ctrl_decode();
    test_ctrl_parse();
    test_finish();
    test_sectors();
    CHECK_DONE();
}
