/*
 * tests/unit/test_sass.c - the SASS readers: hand-written microbenchmarks
 * (CuAssembler control notation, directives) and cuobjdump listings
 * (control bits from the encodings), with their diagnostics.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wc.h"

static wc_ubench *ub(const char *text)
{
    wc_ubench *u = NULL;
    wc_diag d;
    int rc = wc_ubench_parse("t.sass", text, strlen(text), &u, &d);
    if (rc) {
        char buf[2048];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "unexpected error: %s\n", buf);
    }
    CHECK_EQ_INT(rc, 0);
    return u;
}

/* Parse text that must fail with exactly `want` ("t.sass:L:C: error: M"). */
static void ub_err(const char *text, const char *want, int line)
{
    wc_ubench *u = NULL;
    wc_diag d;
    char buf[2048];
    int rc = wc_ubench_parse("t.sass", text, strlen(text), &u, &d);
    check_count_++;
    if (rc != WC_EINPUT || u != NULL) {
        check_failures_++;
        fprintf(stderr, "%s:%d: expected an error, got rc %d\n", __FILE__,
                line, rc);
        wc_ubench_free(u);
        return;
    }
    wc_diag_format(&d, buf, sizeof buf);
    if (strcmp(buf, want) != 0) {
        check_failures_++;
        fprintf(stderr, "%s:%d: got  '%s'\n    want '%s'\n", __FILE__, line,
                buf, want);
    }
}
#define UB_ERR(text, want) ub_err(text, want, __LINE__)

static void sass_err(const char *text, const char *want, int line)
{
    wc_sass *s = NULL;
    wc_diag d;
    char buf[2048];
    int rc = wc_sass_parse("k.sass", text, strlen(text), &s, &d);
    check_count_++;
    if (rc != WC_EINPUT || s != NULL) {
        check_failures_++;
        fprintf(stderr, "%s:%d: expected an error, got rc %d\n", __FILE__,
                line, rc);
        wc_sass_free(s);
        return;
    }
    wc_diag_format(&d, buf, sizeof buf);
    if (strcmp(buf, want) != 0) {
        check_failures_++;
        fprintf(stderr, "%s:%d: got  '%s'\n    want '%s'\n", __FILE__, line,
                buf, want);
    }
}
#define SASS_ERR(text, want) sass_err(text, want, __LINE__)

static const char *rn(wc_reg r)
{
    static char buf[4][16];
    static int k;
    k = (k + 1) & 3;
    wc_reg_name(r, buf[k], sizeof buf[k]);
    return buf[k];
}

/* Listing 1 of seed 000 as in ARCHITECTURE.md. */
static void test_listing1(void)
{
    const char *t = "# Listing 1 of seed 000 (register-bank conflicts)\n"
                    ".gpu rtx-a6000\n"
                    ".warp 0                     # a warp block\n"
                    "[B------:R-:W-:-:S01]  CS2R.32 R14, SR_CLOCKLO ;\n"
                    "[B------:R-:W-:-:S01]  NOP ;\n"
                    "[B------:R-:W-:-:S01]  FFMA R11, R10, R12, R14 ;\n"
                    "[B------:R-:W-:-:S01]  FFMA R13, R16, R19, R21 ;\n"
                    "[B------:R-:W-:-:S01]  NOP ;\n"
                    "[B------:R-:W-:-:S01]  CS2R.32 R24, SR_CLOCKLO ;\n"
                    "[B------:R-:W-:-:S01]  EXIT ;\n";
    wc_ubench *u = ub(t);
    if (!u)
        return;
    CHECK_STR(u->gpu, "rtx-a6000");
    CHECK_EQ_INT(u->nwarps, 1);
    CHECK_EQ_INT(u->warp_id[0], 0);
    CHECK_EQ_INT(u->subcore[0], -1);
    CHECK_EQ_INT(u->cta_threads, 32);
    CHECK_EQ_INT(u->ninsts[0], 7);
    wc_inst *c = u->code[0];
    for (size_t i = 0; i < u->ninsts[0]; i++) {
        CHECK_EQ_INT(c[i].pc, 16 * i);
        CHECK_EQ_INT(c[i].ctrl.valid, 1);
        CHECK_EQ_INT(c[i].ctrl.stall, 1);
        CHECK_EQ_INT(c[i].mask, 0xffffffffu);
        CHECK_EQ_INT(c[i].depbar_sb, -1);
    }
    CHECK_EQ_INT(c[0].line, 4);
    CHECK_STR(c[0].opcode, "CS2R.32");
    CHECK(c[0].iflags & WC_IF_CLOCK);
    CHECK_EQ_INT(c[0].ndst, 1);
    CHECK_EQ_INT(c[0].dst[0], 14);
    CHECK_EQ_INT(c[0].dst_nregs[0], 1);
    CHECK_EQ_INT(c[0].nsrc, 0);
    CHECK(wc_inst_info(&c[1])->flags & WC_OPF_NOP);
    CHECK_STR(wc_inst_info(&c[2])->name, "FFMA");
    CHECK_EQ_INT(c[2].unit, WC_UNIT_FP32);
    CHECK_EQ_INT(c[2].ndst, 1);
    CHECK_EQ_INT(c[2].dst[0], 11);
    CHECK_EQ_INT(c[2].nsrc, 3);
    CHECK_EQ_INT(c[2].src[0], 10);
    CHECK_EQ_INT(c[2].src[1], 12);
    CHECK_EQ_INT(c[2].src[2], 14);
    CHECK_EQ_INT(c[3].src[1], 19);
    CHECK_EQ_INT(c[3].src[2], 21);
    CHECK(!(c[2].iflags & WC_IF_CLOCK));
    CHECK(c[5].iflags & WC_IF_CLOCK);
    CHECK(wc_inst_info(&c[6])->flags & WC_OPF_EXIT);
    wc_ubench_free(u);
}

/* Listing 2 (stall counters) and Figure 2 (dependence counters). */
static void test_listing2_fig2(void)
{
    const char *t = "[B------:R-:W-:-:S01] FADD R1, RZ, 1 ;\n"
                    "[B------:R-:W-:-:S01] FADD R2, RZ, 1 ;\n"
                    "[B------:R-:W-:-:S02] FADD R3, RZ, 1 ;\n"
                    "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
                    "[B------:R-:W-:-:S01] NOP ;\n"
                    "[B------:R-:W-:-:S04] FADD R1, R2, R3 ;\n"
                    "[B------:R-:W-:-:S01] FFMA R5, R1, R1, R1 ;\n"
                    "[B------:R-:W-:-:S01] NOP ;\n"
                    "[B------:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n"
                    "// Figure 2\n"
                    "[B------:R-:W3:-:S01] LD.E R12, [R5.64] ;\n"
                    "[B------:R0:W3:-:S01] LD.E R2, [R7.64] ;\n"
                    "[B------:R0:W4:-:S02] LD.E R6, [R15.64+0x80] ;\n"
                    "[B------:R-:W-:-:S01] IADD3 R18, R18, R18, R18 ;\n"
                    "[B------:R-:W-:-:S04] DEPBAR.LE SB0, 0x1 ;\n"
                    "[B------:R-:W-:-:S01] IADD3 R21, R23, R24, R2 ;\n"
                    "[B0--3--:R-:W-:-:S01] IADD3 R5, R7, R1, R6 ;\n"
                    "[B------:R-:W-:Y:S01] EXIT ;\n";
    wc_ubench *u = ub(t);
    if (!u)
        return;
    wc_inst *c = u->code[0];
    CHECK_EQ_INT(u->ninsts[0], 17);
    CHECK_EQ_INT(c[0].nsrc, 1);
    CHECK_EQ_INT(c[0].src[0], WC_RZ);
    CHECK_EQ_INT(c[0].imm, 1);
    CHECK_EQ_INT(c[2].ctrl.stall, 2);
    CHECK_EQ_INT(c[5].ctrl.stall, 4);
    CHECK_EQ_INT(c[6].nsrc, 3);
    CHECK_EQ_INT(c[9].ctrl.wbar, 3);
    CHECK_EQ_INT(c[9].ctrl.rbar, -1);
    CHECK_EQ_INT(c[9].space, WC_SPACE_GENERIC);
    CHECK_EQ_INT(c[9].width, 4);
    CHECK_EQ_INT(c[9].dst[0], 12);
    CHECK_EQ_INT(c[9].src[0], 5);
    CHECK_EQ_INT(c[9].src_nregs[0], 2);
    CHECK_EQ_INT(c[10].ctrl.rbar, 0);
    CHECK_EQ_INT(c[11].ctrl.wbar, 4);
    CHECK_EQ_INT(c[11].ctrl.stall, 2);
    CHECK_EQ_INT(c[11].src[0], 15);
    CHECK_EQ_INT(c[13].depbar_sb, 0);
    CHECK_EQ_INT(c[13].depbar_le, 1);
    CHECK_EQ_INT(c[13].depbar_ids, 0);
    CHECK_EQ_INT(c[13].ndst + c[13].nsrc, 0);
    CHECK_EQ_INT(c[15].ctrl.wait, 0x09);
    CHECK_EQ_INT(c[16].ctrl.yield, 1);
    CHECK_EQ_INT(c[15].ctrl.yield, 0);
    wc_ubench_free(u);
}

/* Listing 4: reuse bits by regular source operand index. */
static void test_reuse(void)
{
    const char *t =
        "[B------:R-:W-:-:S01] IADD3 R1, R2.reuse, R3, R4 ;\n"
        "[B------:R-:W-:-:S01] FFMA R5, R2.reuse, R7, R8 ;\n"
        "[B------:R-:W-:-:S01] FFMA R5, R7, R2.reuse, R8 ;\n"
        "[B------:R-:W-:-:S01] FFMA R5, R7.reuse, R2.reuse, R8.reuse ;\n"
        "[B------:R-:W-:-:S01] FFMA R5, R7, c[0x0][0x160], R8.reuse ;\n"
        "[B------:R-:W-:-:S01] HADD2 R5, -R7.H0_H0.reuse, |R8|.H1 ;\n"
        "[B------:R-:W-:-:S01] FSEL R5, R7.reuse, R8, !P0 ;\n";
    wc_ubench *u = ub(t);
    if (!u)
        return;
    wc_inst *c = u->code[0];
    CHECK_EQ_INT(c[0].ctrl.reuse, 0x1);
    CHECK_EQ_INT(c[1].ctrl.reuse, 0x1);
    CHECK_EQ_INT(c[2].ctrl.reuse, 0x2);
    CHECK_EQ_INT(c[3].ctrl.reuse, 0x7);
    CHECK_EQ_INT(c[4].ctrl.reuse, 0x2); /* second regular source */
    CHECK(c[4].iflags & WC_IF_CONSTOP);
    CHECK_EQ_INT(c[4].const_addr, 0x160);
    CHECK_EQ_INT(c[4].nsrc, 2);
    CHECK_EQ_INT(c[5].ctrl.reuse, 0x1);
    CHECK_EQ_INT(c[5].nsrc, 2);
    CHECK_EQ_INT(c[6].ctrl.reuse, 0x1);
    CHECK_EQ_INT(c[6].nsrc, 3);
    CHECK_EQ_INT(c[6].src[2], WC_P_BASE);
    wc_ubench_free(u);
}

/* High word of an encoding with these control fields. */
static uint64_t hiword(unsigned stall, int yield, int wbar, int rbar,
                       unsigned wait)
{
    uint64_t v = stall | (yield ? 0u : 1u << 4) |
                 (unsigned)(wbar < 0 ? 7 : wbar) << 5 |
                 (unsigned)(rbar < 0 ? 7 : rbar) << 8 | wait << 11;
    return (v << 41) | 0x78e00ffull;
}

/* Every control field, in CuAssembler notation and in encodings. */
static void test_ctrl_both(void)
{
    char text[1 << 16];
    size_t n = 0;
    int k = 0;
    struct {
        unsigned stall, wait;
        int yield, wbar, rbar;
    } f[64];
    for (unsigned s = 0; s < 16; s++, k++)
        f[k].stall = s, f[k].wait = 0, f[k].yield = (int)(s & 1),
        f[k].wbar = -1, f[k].rbar = -1;
    for (int b = -1; b < 6; b++, k++)
        f[k].stall = 1, f[k].wait = 0, f[k].yield = 0, f[k].wbar = b,
        f[k].rbar = b < 0 ? 5 : 4 - b;
    for (unsigned w = 0; w < 6; w++, k++)
        f[k].stall = 3, f[k].wait = 1u << w, f[k].yield = 1, f[k].wbar = 0,
        f[k].rbar = -1;
    f[k].stall = 15, f[k].wait = 0x3f, f[k].yield = 1, f[k].wbar = 5,
    f[k].rbar = 4, k++;
    for (int i = 0; i < k; i++) {
        char b[7];
        for (unsigned j = 0; j < 6; j++)
            b[j] = (f[i].wait >> j) & 1 ? (char)('0' + j) : '-';
        b[6] = '\0';
        char r = f[i].rbar < 0 ? '-' : (char)('0' + f[i].rbar);
        char w = f[i].wbar < 0 ? '-' : (char)('0' + f[i].wbar);
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "[B%s:R%c:W%c:%c:S%02u] IADD3 R1, R2, R3, R4 ;\n",
                              b, r, w, f[i].yield ? 'Y' : '-', f[i].stall);
        n += (size_t)snprintf(
            text + n, sizeof text - n,
            "        /*%04x*/  IADD3 R1, R2, R3, R4 ;   /* 0x0000000302017210 */\n"
            "                                            /* 0x%016llx */\n",
            (unsigned)(32 * i + 16),
            (unsigned long long)hiword(f[i].stall, f[i].yield, f[i].wbar,
                                       f[i].rbar, f[i].wait));
    }
    wc_ubench *u = ub(text);
    if (!u)
        return;
    CHECK_EQ_INT(u->ninsts[0], 2 * (size_t)k);
    int same = 1, right = 1;
    for (int i = 0; i < k && (size_t)(2 * i + 1) < u->ninsts[0]; i++) {
        const wc_ctrl *a = &u->code[0][2 * i].ctrl, *e = &u->code[0][2 * i + 1].ctrl;
        same &= memcmp(a, e, sizeof *a) == 0;
        right &= a->stall == f[i].stall && a->wait == f[i].wait &&
                 a->yield == f[i].yield && a->wbar == f[i].wbar &&
                 a->rbar == f[i].rbar && a->valid;
        right &= u->code[0][2 * i].pc == (uint64_t)(32 * i) &&
                 u->code[0][2 * i + 1].pc == (uint64_t)(32 * i + 16);
    }
    CHECK(same);
    CHECK(right);
    wc_ubench_free(u);
}

static void test_depbar(void)
{
    const char *t = "[B------:R-:W-:-:S04] DEPBAR.LE SB0, 0x1 ;\n"
                    "[B------:R-:W-:-:S04] DEPBAR.LE SB1, 0x3, {4,3,2} ;\n"
                    "[B------:R-:W-:-:S04] DEPBAR.LE SB5, 0x0 ;\n"
                    "[B------:R-:W-:-:S04] DEPBAR.LE SB2, 7, { 5 } ;\n"
                    "[B------:R-:W-:-:S04] DEPBAR {4,0} ;\n"
                    "[B------:R-:W-:-:S04] NOP ;\n";
    wc_ubench *u = ub(t);
    if (!u)
        return;
    wc_inst *c = u->code[0];
    CHECK_EQ_INT(c[0].depbar_sb, 0);
    CHECK_EQ_INT(c[0].depbar_le, 1);
    CHECK_EQ_INT(c[0].depbar_ids, 0);
    CHECK_EQ_INT(c[1].depbar_sb, 1);
    CHECK_EQ_INT(c[1].depbar_le, 3);
    CHECK_EQ_INT(c[1].depbar_ids, 0x1c);
    CHECK_EQ_INT(c[2].depbar_sb, 5);
    CHECK_EQ_INT(c[2].depbar_le, 0);
    CHECK_EQ_INT(c[3].depbar_sb, 2);
    CHECK_EQ_INT(c[3].depbar_le, 7);
    CHECK_EQ_INT(c[3].depbar_ids, 0x20);
    CHECK_EQ_INT(c[4].depbar_ids, 0x11);
    CHECK_EQ_INT(c[5].depbar_sb, -1);
    wc_ubench_free(u);
    UB_ERR("[B------:R-:W-:-:S04] DEPBAR.LE SB0 ;\n",
           "t.sass:1:38: error: expected count after 'SBx,' at end of line");
    UB_ERR("[B------:R-:W-:-:S04] DEPBAR.LE R2, 0x1 ;\n",
           "t.sass:1:33: error: expected SBx near 'R2'");
    UB_ERR("[B------:R-:W-:-:S04] DEPBAR.LE SB0, 0x1, {6} ;\n",
           "t.sass:1:44: error: expected counter id 0-5 near '6}'");
    UB_ERR("[B------:R-:W-:-:S04] DEPBAR.LE SB0, 0x40 ;\n",
           "t.sass:1:38: error: DEPBAR count out of range 0-63 near '0x40'");
    UB_ERR("[B------:R-:W-:-:S04] DEPBAR.LE SB0, 0x1, {1} {2} ;\n",
           "t.sass:1:47: error: unexpected operand near '{2}'");
    UB_ERR("[B------:R-:W-:-:S04] FFMA R1, R2, R3, {1} ;\n",
           "t.sass:1:40: error: counter id list outside DEPBAR near '{1}'");
    UB_ERR("[B------:R-:W-:-:S04] MOV R1, SB2 ;\n",
           "t.sass:1:31: error: dependence counter outside DEPBAR near 'SB2'");
}

static void test_warps(void)
{
    const char *t = ".gpu h100-pcie\n"
                    ".warps 4\n"
                    "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
                    "[B------:R-:W-:-:S01] FFMA R1, R2, R3, R4 ;\n"
                    "[B------:R-:W-:-:S01] CS2R.32 R24, SR_CLOCKLO ;\n";
    wc_ubench *u = ub(t);
    if (!u)
        return;
    CHECK_EQ_INT(u->nwarps, 4);
    CHECK_EQ_INT(u->cta_threads, 128);
    int same = 1;
    for (unsigned w = 0; w < u->nwarps; w++) {
        CHECK_EQ_INT(u->warp_id[w], w);
        CHECK_EQ_INT(u->subcore[w], -1);
        CHECK_EQ_INT(u->ninsts[w], 3);
        same &= memcmp(u->code[w], u->code[0], 3 * sizeof(wc_inst)) == 0;
    }
    CHECK(same);
    CHECK(u->code[3] != u->code[0]);
    wc_ubench_free(u);

    t = ".warp 0 subcore 0\n"
        "[B------:R-:W-:-:S01] CS2R.32 R14, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n"
        ".warp 4 subcore 0   // same sub-core\n"
        "/*0100*/ [B------:R-:W-:Y:S04] FADD R1, R2, R3 ;\n"
        "[B------:R-:W-:-:S01] EXIT ;\n"
        ".warp 1\n"
        "[B------:R-:W-:-:S01] EXIT ;\n"
        ".cta threads 136\n";
    u = ub(t);
    if (!u)
        return;
    CHECK_EQ_INT(u->nwarps, 3);
    CHECK_EQ_INT(u->warp_id[1], 4);
    CHECK_EQ_INT(u->subcore[1], 0);
    CHECK_EQ_INT(u->subcore[2], -1);
    CHECK_EQ_INT(u->ninsts[1], 2);
    CHECK_EQ_INT(u->code[1][0].pc, 0x100);
    CHECK_EQ_INT(u->code[1][1].pc, 0x110);
    CHECK_EQ_INT(u->code[1][0].ctrl.stall, 4);
    CHECK_EQ_INT(u->cta_threads, 136);
    CHECK_EQ_INT(u->code[0][0].mask, 0xffffffffu);
    CHECK_EQ_INT(u->code[1][0].mask, 0xffu); /* lanes 128..135 */
    wc_ubench_free(u);

    t = ".warp 2\n[B------:R-:W-:-:S01] EXIT ;\n";
    u = ub(t);
    if (u) {
        CHECK_EQ_INT(u->cta_threads, 96);
        wc_ubench_free(u);
    }
}

static void test_cuobjdump_in_ubench(void)
{
    const char *t =
        "        /*0000*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;  /* 0x00000a00ff017624 */\n"
        "                                                                      /* 0x000fc400078e00ff */\n"
        "        /*0010*/                   S2R R0, SR_TID.X ;                      /* 0x0000000000007919 */\n"
        "                                                                      /* 0x000e220000002100 */\n"
        "        /*0020*/                   @!PT LDS RZ, [RZ] ;                     /* 0x00000000fffff984 */\n"
        "                                                                      /* 0x000fe20000000800 */\n"
        "[B0-----:R-:W-:-:S02]  /*0030*/    IMAD R0, R0, c[0x0][0x0], RZ ;   /* 0x0000000000007a24 */\n"
        "                                                                      /* 0x000fe200078e02ff */\n";
    wc_ubench *u = ub(t);
    if (!u)
        return;
    wc_inst *c = u->code[0];
    CHECK_EQ_INT(u->ninsts[0], 4);
    CHECK_EQ_INT(c[0].ctrl.stall, 2);
    CHECK_EQ_INT(c[0].ctrl.yield, 1);
    CHECK(c[0].iflags & WC_IF_CONSTOP);
    CHECK_EQ_INT(c[0].const_addr, 0x28);
    CHECK_EQ_INT(c[1].ctrl.wbar, 0);
    CHECK_EQ_INT(c[1].pc, 0x10);
    CHECK(c[2].iflags & WC_IF_PRED_OFF);
    CHECK_EQ_INT(c[2].mask, 0);
    /* an explicit control code wins over the encoding */
    CHECK_EQ_INT(c[3].ctrl.wait, 1);
    CHECK_EQ_INT(c[3].ctrl.stall, 2);
    wc_ubench_free(u);
}

static void test_operands(void)
{
    const char *t =
        "[B------:R-:W-:-:S01] LDG.E.128 R4, desc[UR4][R2.64+0x10] ;\n"
        "[B------:R-:W-:-:S01] STG.E.64 desc[UR4][R2.64], R6 ;\n"
        "[B------:R-:W-:-:S01] LDS R2, [UR4+0x10] ;\n"
        "[B------:R-:W-:-:S01] LDS.U.128 R8, [R3.X4+UR4+-0x20] ;\n"
        "[B------:R-:W-:-:S01] ISETP.GE.AND P0, PT, R2, c[0x0][0x160], PT ;\n"
        "[B------:R-:W-:-:S01] IADD3 R2, P0, P1, R2, 0x10, RZ ;\n"
        "[B------:R-:W-:-:S01] IADD3.X R3, RZ, R3, RZ, P0, !PT ;\n"
        "[B------:R-:W-:-:S01] @P0 BRA 0x80 ;\n"
        "[B------:R-:W-:-:S01] SHFL.BFLY PT, R3, R2, 0x10, 0x1f ;\n"
        "[B------:R-:W-:-:S01] ATOMG.E.ADD.STRONG.GPU PT, R2, [R4.64], R5 ;\n"
        "[B------:R-:W-:-:S01] VOTE.ANY R4, PT, P0 ;\n"
        "[B------:R-:W-:-:S01] HFMA2.MMA R2, -RZ, RZ, 0, 5.9604644775390625e-08 ;\n"
        "[B------:R-:W-:-:S01] FMUL R2, |R3|, -INF ;\n"
        "[B------:R-:W-:-:S01] HMMA.16816.F32 R4, R8.reuse, R12, R4 ;\n"
        "[B------:R-:W-:-:S01] S2UR UR4, SR_CLOCKLO ;\n"
        "[B------:R-:W-:-:S01] LDGSTS.E.BYPASS.128 [R5+0x800], [R2.64] ;\n"
        "[B------:R-:W-:-:S01] BSSY B0, 0x240 ;\n"
        "[B------:R-:W-:-:S01] BRX R2 -0x170 ;\n"
        "[B------:R-:W-:-:S01] LDC R2, c[0x0][R3+0x10] ;\n"
        "[B------:R-:W-:-:S01] R2P PR, R2, 0x7f ;\n"
        "[B------:R-:W-:-:S01] LOP3.LUT P0, RZ, R2, 0x1, RZ, 0xc0, !PT ;\n"
        "[B------:R-:W-:-:S01] BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
        "[B------:R-:W-:-:S01] FOO.BAR R1, R2 ;\n"
        "[B------:R-:W-:-:S01] ULDC.64 UR4, c[0x0][0x118] ;\n"
        "[B------:R-:W-:-:S01] BRA `(.L_x_1) ;\n"
        "[B------:R-:W-:-:S01] EXIT\n";
    wc_ubench *u = ub(t);
    if (!u)
        return;
    wc_inst *c = u->code[0];
    CHECK_EQ_INT(u->ninsts[0], 26);
    CHECK_EQ_INT(c[0].ndst, 1);
    CHECK_EQ_INT(c[0].dst_nregs[0], 4);
    CHECK_EQ_INT(c[0].nsrc, 2);
    CHECK_EQ_INT(c[0].src[0], 2);
    CHECK_EQ_INT(c[0].src_nregs[0], 2);
    CHECK_EQ_INT(c[0].src[1], WC_UR_BASE + 4);
    CHECK(!(c[0].iflags & WC_IF_UADDR));
    CHECK_EQ_INT(c[1].ndst, 0);
    CHECK_EQ_INT(c[1].nsrc, 3);
    CHECK_STR(rn(c[1].src[1]), "R6");
    CHECK_EQ_INT(c[1].src_nregs[1], 2);
    CHECK(c[2].iflags & WC_IF_UADDR);
    CHECK_EQ_INT(c[3].nsrc, 2);
    CHECK_EQ_INT(c[3].width, 16);
    CHECK_EQ_INT(c[4].ndst, 2);
    CHECK_STR(rn(c[4].dst[0]), "P0");
    CHECK_STR(rn(c[4].dst[1]), "PT");
    CHECK_EQ_INT(c[4].nsrc, 2);
    CHECK(c[4].iflags & WC_IF_CONSTOP);
    CHECK_EQ_INT(c[5].ndst, 3);
    CHECK_STR(rn(c[5].dst[2]), "P1");
    CHECK_EQ_INT(c[5].nsrc, 2);
    CHECK_EQ_INT(c[6].ndst, 1);
    CHECK_EQ_INT(c[6].nsrc, 5);
    CHECK_EQ_INT(c[7].ndst + c[7].nsrc, 0);
    CHECK_EQ_INT(c[7].imm, 0x80);
    CHECK_EQ_INT(c[8].ndst, 2);
    CHECK_EQ_INT(c[8].nsrc, 1);
    CHECK_EQ_INT(c[9].ndst, 2);
    CHECK_EQ_INT(c[9].nsrc, 2);
    CHECK_EQ_INT(c[9].unit, WC_UNIT_ATOMIC);
    CHECK_EQ_INT(c[10].ndst, 2);
    CHECK_EQ_INT(c[10].nsrc, 1);
    CHECK_EQ_INT(c[11].nsrc, 2);
    CHECK_EQ_INT(c[12].nsrc, 1);
    CHECK_EQ_INT(c[13].ctrl.reuse, 1);
    CHECK_EQ_INT(c[13].dst_nregs[0], 4);
    CHECK_EQ_INT(c[13].src_nregs[1], 2);
    CHECK(c[14].iflags & WC_IF_CLOCK);
    CHECK_EQ_INT(c[14].dst[0], WC_UR_BASE + 4);
    CHECK_EQ_INT(c[15].ndst, 0);
    CHECK_EQ_INT(c[15].nsrc, 2);
    CHECK_EQ_INT(c[16].ndst + c[16].nsrc, 0);
    CHECK_EQ_INT(c[17].nsrc, 1);
    CHECK_EQ_INT(c[17].imm, -0x170);
    CHECK_EQ_INT(c[18].nsrc, 1);
    CHECK(!(c[18].iflags & WC_IF_CONSTOP));
    CHECK_EQ_INT(c[19].ndst, 0);
    CHECK_EQ_INT(c[19].nsrc, 1);
    CHECK_EQ_INT(c[20].ndst, 2);
    CHECK_EQ_INT(c[21].ndst + c[21].nsrc, 0);
    CHECK(wc_inst_info(&c[21])->flags & WC_OPF_BAR);
    CHECK_EQ_INT(c[22].op, WC_OP_UNKNOWN);
    CHECK_STR(c[22].opcode, "FOO.BAR");
    CHECK_EQ_INT(c[22].ndst, 1);
    CHECK_EQ_INT(c[23].dst_nregs[0], 2);
    CHECK_EQ_INT(c[23].const_addr, 0x118);
    wc_ubench_free(u);
}

static void test_ubench_errors(void)
{
    UB_ERR(".foo 1\n", "t.sass:1:1: error: unknown directive '.foo'");
    UB_ERR("\n  .gpu\n", "t.sass:2:7: error: expected GPU name after .gpu");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1, Q12, R3, R4 ;\n",
           "t.sass:1:32: error: expected register near 'Q12'");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1, R2, R3, R4 ;\n"
           "[B------:R-:W-:-:S01] FFMA R1, R2, R3, R255 ;\n",
           "t.sass:2:40: error: expected register near 'R255'");
    UB_ERR("[B-----X:R-:W-:-:S01] NOP ;\n",
           "t.sass:1:8: error: bad control code '[B-----X:R-:W-:-:S01]' near 'X'");
    UB_ERR("  [B------:R-:W-:-:S1] NOP ;\n",
           "t.sass:1:22: error: bad control code '[B------:R-:W-:-:S1]' near ']'");
    UB_ERR("[B------:R-:W-:-:S01 NOP ;\n",
           "t.sass:1:21: error: incomplete control code '[B------:R-:W-:-:S01'");
    UB_ERR("[B------:R-:W6:-:S01] NOP ;\n",
           "t.sass:1:14: error: bad control code '[B------:R-:W6:-:S01]' near '6'");
    UB_ERR("NOP ;\n",
           "t.sass:1:1: error: missing control code '[B------:R-:W-:-:S01]' near 'NOP'");
    UB_ERR("[B------:R-:W-:-:S01] ffma R1, R2, R3, R4 ;\n",
           "t.sass:1:23: error: expected opcode near 'ffma'");
    UB_ERR("[B------:R-:W-:-:S01] @Q0 NOP ;\n",
           "t.sass:1:24: error: expected predicate near 'Q0'");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1, R2, , R4 ;\n",
           "t.sass:1:36: error: expected operand near ','");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1, R2, R3, R4 ; junk\n",
           "t.sass:1:45: error: unexpected text after instruction near 'junk'");
    UB_ERR("[B------:R-:W-:-:S01] LDG.E R1, [R2.64 ;\n",
           "t.sass:1:40: error: expected '+' or ']' near ';'");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1, R2, c[0x0][0x160, R4 ;\n",
           "t.sass:1:48: error: expected '+' or ']' near ','");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1.reuse, R2, R3, R4 ;\n",
           "t.sass:1:28: error: '.reuse' on a destination operand near 'R1.reuse'");
    UB_ERR(".warp 0\n.warp 0\n",
           "t.sass:2:1: error: duplicate '.warp 0' (first on line 1)");
    UB_ERR(".warp 0\n",
           "t.sass:1:1: error: warp 0 has no instructions");
    UB_ERR("# nothing\n", "t.sass:1: error: no instructions");
    UB_ERR(".warp 64\n",
           "t.sass:1:7: error: warp number 64 out of range 0-63");
    UB_ERR(".warp 1 subcore 4\n",
           "t.sass:1:17: error: sub-core 4 out of range 0-3");
    UB_ERR(".warp 1 core 2\n",
           "t.sass:1:9: error: expected 'subcore' near 'core'");
    UB_ERR(".warp x\n", "t.sass:1:7: error: expected warp number near 'x'");
    UB_ERR(".warp 1 subcore 1 extra\n",
           "t.sass:1:19: error: unexpected 'extra' after .warp");
    UB_ERR(".warps 2\n.warp 0\n[B------:R-:W-:-:S01] NOP ;\n",
           "t.sass:1:1: error: '.warps' cannot be combined with '.warp' blocks");
    UB_ERR(".cta blocks 2\n", "t.sass:1:6: error: unknown .cta option near 'blocks'");
    UB_ERR(".cta threads 0\n",
           "t.sass:1:14: error: thread count 0 out of range 1-1024");
    UB_ERR(".cta threads 32\n.warps 2\n[B------:R-:W-:-:S01] NOP ;\n",
           "t.sass:1:1: error: '.cta threads 32' leaves warp 1 without threads");
    UB_ERR("[B------:R-:W-:-:S01] NOP ;\n.warp 0\n",
           "t.sass:2:1: error: '.warp' after instructions that belong to no warp");
    UB_ERR("/*0010*/ [B------:R-:W-:-:S01] NOP ;\n/*0010*/ [B------:R-:W-:-:S01] NOP ;\n",
           "t.sass:2:1: error: address /*0010*/ does not follow the previous instruction");
    UB_ERR("/*0000*/ NOP ; /* 0x0000000000007918 */\n[B------:R-:W-:-:S01] NOP ;\n",
           "t.sass:2:1: error: expected the second encoding word '/* 0x... */' of the instruction on line 1");
    UB_ERR("/*0000*/ NOP ; /* 0x0000000000007918 */\n",
           "t.sass:2:1: error: expected the second encoding word of the instruction on line 1, got end of file");
    UB_ERR("   /* 0x000fc00000000000 */\n",
           "t.sass:1:4: error: encoding word without an instruction");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 ;\n",
           "t.sass:1:64: error: too many source operands near 'R10'");
    UB_ERR("[B------:R-:W-:-:S01] MOV R1, 0x12z ;\n",
           "t.sass:1:31: error: bad number near '0x12z'");
    UB_ERR("[B------:R-:W-:-:S01] FADD R1, |R2, R3 ;\n",
           "t.sass:1:35: error: expected '|' near ','");
    UB_ERR(".gpu a\n.gpu b\n", "t.sass:2:1: error: duplicate '.gpu'");
    UB_ERR("[B------:R-:W-:-:S01] FFMA R1, R2, R3, R4 \x01;\n",
           "t.sass:1:43: error: expected operand near '?'");
    /* the file name comes from load */
    wc_ubench *u;
    wc_diag d;
    CHECK_EQ_INT(wc_ubench_load("/nonexistent/x.sass", &u, &d), WC_EINPUT);
    CHECK_STR(d.file, "/nonexistent/x.sass");
}

static const char *listing =
    "\n"
    "Fatbin elf code:\n"
    "================\n"
    "arch = sm_86\n"
    "code version = [1,7]\n"
    "host = linux\n"
    "compile_size = 64bit\n"
    "\n"
    "\tcode for sm_86\n"
    "\t\tFunction : _Z9vectorAddPKfS0_Pfi\n"
    "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM86 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM86)\"\n"
    "        /*0000*/                   MOV R1, c[0x0][0x28] ;                       /* 0x00000a0000017a02 */\n"
    "                                                                                 /* 0x000fe40000000f00 */\n"
    "        /*0010*/                   S2R R6, SR_CTAID.X ;                         /* 0x0000000000067919 */\n"
    "                                                                                 /* 0x000e280000002500 */\n"
    "        /*0020*/                   S2R R3, SR_TID.X ;                           /* 0x0000000000037919 */\n"
    "                                                                                 /* 0x000e240000002100 */\n"
    "        /*0030*/                   IMAD R6, R6, c[0x0][0x0], R3 ;               /* 0x0000000006067a24 */\n"
    "                                                                                 /* 0x001fca00078e0203 */\n"
    "        /*0040*/                   ISETP.GE.AND P0, PT, R6, c[0x0][0x178], PT ;  /* 0x00005e0006007a0c */\n"
    "                                                                                 /* 0x000fda0003f06270 */\n"
    "        /*0050*/                   @P0 EXIT ;                                   /* 0x000000000000094d */\n"
    "                                                                                 /* 0x000fea0003800000 */\n"
    "        /*0060*/                   HFMA2.MMA R7, -RZ, RZ, 0, 2.384185791015625e-07 ;  /* 0x00000004ff077435 */\n"
    "                                                                                 /* 0x000fe200000001ff */\n"
    "        /*0070*/                   ULDC.64 UR4, c[0x0][0x118] ;                 /* 0x0000460000047ab9 */\n"
    "                                                                                 /* 0x000fd20000000a00 */\n"
    "        /*0080*/                   IMAD.WIDE R4, R6, R7, c[0x0][0x168] ;        /* 0x00005a0006047625 */\n"
    "                                                                                 /* 0x000fc800078e0207 */\n"
    "        /*0090*/                   IMAD.WIDE R2, R6.reuse, R7.reuse, c[0x0][0x160] ;  /* 0x0000580006027625 */\n"
    "                                                                                 /* 0x0c0fe400078e0207 */\n"
    "        /*00a0*/                   LDG.E R4, [R4.64] ;                          /* 0x0000000404047981 */\n"
    "                                                                                 /* 0x000ea8000c1e1900 */\n"
    "        /*00b0*/                   LDG.E R3, [R2.64] ;                          /* 0x0000000402037981 */\n"
    "                                                                                 /* 0x000ea2000c1e1900 */\n"
    "        /*00c0*/                   IMAD.WIDE R6, R6, R7, c[0x0][0x170] ;        /* 0x00005c0006067625 */\n"
    "                                                                                 /* 0x000fe200078e0207 */\n"
    "        /*00d0*/                   FADD R9, R4, R3 ;                            /* 0x0000000304097221 */\n"
    "                                                                                 /* 0x004fca0000000000 */\n"
    "        /*00e0*/                   STG.E [R6.64], R9 ;                          /* 0x0000000906007986 */\n"
    "                                                                                 /* 0x000fe2000c101904 */\n"
    "        /*00f0*/                   EXIT ;                                       /* 0x000000000000794d */\n"
    "                                                                                 /* 0x000fea0003800000 */\n"
    "        /*0100*/                   BRA 0x100;                                   /* 0xfffffff000007947 */\n"
    "                                                                                 /* 0x000fc0000383ffff */\n"
    "        ..........\n"
    "\n"
    "\n"
    "\t\tFunction : _Z4tinyv\n"
    "        /*0000*/                   EXIT ;                                       /* 0x000000000000794d */\n"
    "                                                                                 /* 0x000fea0003800000 */\n"
    "\t\t..........\n"
    "\tcode for sm_90\n"
    "\t\tFunction : _Z4tinyv\n"
    "        /*0000*/                   NOP ;                                        /* 0x0000000000007918 */\n"
    "                                                                                 /* 0x000fc00000000000 */\n";

static void test_listing(void)
{
    wc_sass *s = NULL;
    wc_diag d;
    int rc = wc_sass_parse("k.sass", listing, strlen(listing), &s, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc) {
        char buf[2048];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        return;
    }
    const char *k = "_Z9vectorAddPKfS0_Pfi";
    CHECK_EQ_INT(wc_sass_nkernels(s), 2);
    CHECK(wc_sass_has_kernel(s, k));
    CHECK(wc_sass_has_kernel(s, "_Z4tinyv"));
    CHECK(!wc_sass_has_kernel(s, "_Z4tiny"));
    CHECK(wc_sass_find(s, k, 0x08) == NULL);
    CHECK(wc_sass_find(s, k, 0x110) == NULL);
    CHECK(wc_sass_find(s, "nope", 0) == NULL);
    const wc_inst *in = wc_sass_find(s, k, 0x0);
    CHECK(in && in->ctrl.valid && in->ctrl.stall == 2 && in->ctrl.yield == 0);
    in = wc_sass_find(s, k, 0x10);
    CHECK(in && in->ctrl.wbar == 0 && in->ctrl.stall == 4 && !in->ctrl.yield);
    CHECK(in && (in->iflags & WC_IF_CLOCK) == 0);
    in = wc_sass_find(s, k, 0x30);
    CHECK(in && in->ctrl.wait == 0x1 && in->ctrl.stall == 5 && in->ctrl.yield);
    CHECK(in && (in->iflags & WC_IF_CONSTOP) && in->const_addr == 0);
    in = wc_sass_find(s, k, 0x40);
    CHECK(in && in->const_addr == 0x178 && in->ctrl.stall == 13);
    in = wc_sass_find(s, k, 0x90);
    CHECK(in && in->ctrl.reuse == 0x3 && in->dst_nregs[0] == 2);
    in = wc_sass_find(s, k, 0xa0);
    CHECK(in && in->ctrl.wbar == 2 && in->width == 4 && in->src[0] == 4);
    in = wc_sass_find(s, k, 0xd0);
    CHECK(in && in->ctrl.wait == 0x4 && in->line == 38);
    in = wc_sass_find(s, k, 0x100);
    CHECK(in && in->imm == 0x100 && in->ctrl.valid);
    /* the first architecture's copy of a repeated kernel wins */
    in = wc_sass_find(s, "_Z4tinyv", 0);
    CHECK(in && strcmp(in->opcode, "EXIT") == 0);

    const char *more = "\t\tFunction : _Z5otherv\n"
                       "        /*0000*/  NOP ;  /* 0x0000000000007918 */\n"
                       "                         /* 0x000fc00000000000 */\n"
                       "\t\tFunction : _Z4tinyv\n"
                       "        /*0000*/  NOP ;  /* 0x0000000000007918 */\n"
                       "                         /* 0x000fc00000000000 */\n";
    wc_sass *b = NULL;
    CHECK_EQ_INT(wc_sass_parse("b.sass", more, strlen(more), &b, &d), 0);
    wc_sass_merge(s, b);
    CHECK_EQ_INT(wc_sass_nkernels(s), 3);
    CHECK(wc_sass_find(s, "_Z5otherv", 0) != NULL);
    in = wc_sass_find(s, "_Z4tinyv", 0);
    CHECK(in && strcmp(in->opcode, "EXIT") == 0);
    CHECK(wc_sass_find(s, k, 0xf0) != NULL);
    wc_sass_free(s);
    wc_sass_free(NULL);
    wc_sass_merge(NULL, NULL);

    /* nvdisasm style: .text sections, labels, no encodings */
    const char *nv = "\t.section\t.text._Z3foov,\"ax\",@progbits\n"
                     "\t.sectioninfo\t@\"SHI_REGISTERS=8\"\n"
                     "        .text._Z3foov:\n"
                     ".L_x_0:\n"
                     "        /*0000*/                   BRA `(.L_x_0) ;\n"
                     "        /*0010*/                   BRA 0x10;\n";
    CHECK_EQ_INT(wc_sass_parse("n.sass", nv, strlen(nv), &s, &d), 0);
    if (s) {
        CHECK(wc_sass_has_kernel(s, "_Z3foov"));
        in = wc_sass_find(s, "_Z3foov", 0x10);
        CHECK(in && !in->ctrl.valid);
        wc_sass_free(s);
    }
    /* empty input: no kernels, no error */
    CHECK_EQ_INT(wc_sass_parse("e.sass", "", 0, &s, &d), 0);
    CHECK_EQ_INT(wc_sass_nkernels(s), 0);
    wc_sass_free(s);

    SASS_ERR("        /*0000*/  NOP ;  /* 0x0000000000007918 */\n"
             "                         /* 0x000fc00000000000 */\n",
             "k.sass:1:9: error: instruction outside a 'Function :' block");
    SASS_ERR("Function : f\n        /*0000*/  NOP ;  /* 0x0000000000007918 */\n"
             "        /*0010*/  NOP ;  /* 0x0000000000007918 */\n",
             "k.sass:3:9: error: expected the second encoding word '/* 0x... */' of the instruction on line 2");
    SASS_ERR("Function : f\n        /*0000*/  NOP ;  /* 0x0000000000007918 */\n",
             "k.sass:3:1: error: expected the second encoding word of the instruction on line 2, got end of file");
    SASS_ERR("Function : f\n                         /* 0x000fc00000000000 */\n",
             "k.sass:2:26: error: encoding word without an instruction (pre-Volta listings are not supported)");
    SASS_ERR("Function : f\n  hello world\n",
             "k.sass:2:3: error: unexpected text near 'hello'");
    SASS_ERR("Function : f\n  /*0000*/  FFMA R1, R2, R3, Q4 ;\n",
             "k.sass:2:30: error: expected register near 'Q4'");
    SASS_ERR("Function : f\n  /*0000*/ [B------:R-:W-:-:S01] NOP ;\n",
             "k.sass:2:12: error: control code not allowed here near '[B------:R-:W-:-:S01]'");
    SASS_ERR("Function : f\n  /*0010*/  NOP ;\n  /*0010*/  NOP ;\n",
             "k.sass:3:1: error: duplicate address /*0010*/ in 'f'");
    SASS_ERR("Function : f\n  /*00zz*/  NOP ;\n",
             "k.sass:2:3: error: bad address comment near '/*00zz*/'");
}

/* Every line cuobjdump -sass of CUDA 11 to 13 prints (CUDA 13.0 as in
 * ../shared/data/hw/h100-sxm/traces/ *\/kernels.sass): fatbin entry
 * headers, .target, .headerflags, "compressed", "ptxasOptions =", a PTX
 * entry (with PTX text under -ptx) and a kernel right after a PTX entry's
 * header. */
static void test_listing_cuda13(void)
{
    static const char text[] =
        "\n"
        "Fatbin elf code:\n"
        "================\n"
        "arch = sm_90\n"
        "code version = [1,8]\n"
        "host = linux\n"
        "compile_size = 64bit\n"
        "\n"
        "\tcode for sm_90\n"
        "\t.target\tsm_90\n"
        "\n"
        "\t\tFunction : copy2\n"
        "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;      "
        "                             /* 0x00000a00ff017b82 */\n"
        "                                                               "
        "                             /* 0x000fe20000000800 */\n"
        "        /*0010*/                   LDG.E.64 R2, desc[UR4][R2.64] ;"
        "                          /* 0x0000000402027981 */\n"
        "                                                               "
        "                             /* 0x000ee2000c1e1b00 */\n"
        "        /*0020*/                   BRA 0x20;                   "
        "                             /* 0xfffffffc00fc7947 */\n"
        "                                                               "
        "                             /* 0x000fc0000383ffff */\n"
        "\t\t..........\n"
        "\n"
        "\n"
        "Fatbin ptx code:\n"
        "================\n"
        "arch = sm_90\n"
        "code version = [9,0]\n"
        "host = linux\n"
        "compile_size = 64bit\n"
        "compressed\n"
        "ptxasOptions = \n"
        ".version 9.0\n"
        ".target sm_90\n"
        ".visible .entry copy2(\n"
        "{\n"
        "\tret;\n"
        "}\n"
        "\t\tFunction : vadd\n"
        "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
        "        /*0000*/                   EXIT ;                      "
        "                             /* 0x000000000000794d */\n"
        "                                                               "
        "                             /* 0x000fea0003800000 */\n"
        "\t\t..........\n";
    wc_sass *s = NULL;
    wc_diag d;
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_sass_parse("k13.sass", text, strlen(text), &s, &d), 0);
    if (!s) {
        fprintf(stderr, "%s:%ld:%ld: %s\n", d.file, d.line, d.col, d.msg);
        return;
    }
    CHECK_EQ_INT(wc_sass_nkernels(s), 2);
    const wc_inst *in = wc_sass_find(s, "copy2", 0x10);
    CHECK(in && in->ctrl.valid);
    CHECK(wc_sass_find(s, "vadd", 0) != NULL);
    CHECK_STR(wc_sass_kernel_file(s, "vadd"), "k13.sass");
    wc_sass_free(s);
}

int main(void)
{
    test_listing_cuda13();
    test_listing1();
    test_listing2_fig2();
    test_reuse();
    test_ctrl_both();
    test_depbar();
    test_warps();
    test_cuobjdump_in_ubench();
    test_operands();
    test_ubench_errors();
    test_listing();
    CHECK_DONE();
}
