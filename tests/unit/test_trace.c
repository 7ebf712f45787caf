/*
 * tests/unit/test_trace.c - trace readers: the real traces in ../shared,
 * every instruction-line form (versions 3-6, address modes, line column),
 * every error path with its exact line:col, zstd (good, truncated,
 * corrupt), interleaved warp streams, skip, rewind, the control-bit join
 * and hand-written ubench files; the CTA index: wc_trace_cta_insts
 * against decoded counts, wc_kreader_seek against sequential reading.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "check.h"
#include "h100sxm_traces.h"
#include "wc.h"
#include "wc_synth.h"

static char tmpdir[256];

static int rm_cb(const char *p, const struct stat *sb, int flag,
                 struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

static void write_file(const char *name, const void *data, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "wb");
    if (!f) {
        perror(p);
        exit(2);
    }
    if (n && fwrite(data, 1, n, f) != n)
        exit(2);
    fclose(f);
}

static void write_text(const char *name, const char *text)
{
    write_file(name, text, strlen(text));
}

static void unlink_tmp(const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    unlink(p);
}

static const char *tpath(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) & 3;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

/* Compress text into a malloc'd buffer. */
static void *zcompress(const char *text, size_t *n)
{
    size_t cap = ZSTD_compressBound(strlen(text));
    void *b = malloc(cap);
    *n = ZSTD_compress(b, cap, text, strlen(text), 3);
    if (ZSTD_isError(*n))
        exit(2);
    return b;
}

#define HDR_FMT\
    "-kernel name = %s\n"\
    "-kernel id = 1\n"\
    "-grid dim = (%u,1,1)\n"\
    "-block dim = (%u,1,1)\n"\
    "-shmem = 0\n"\
    "-nregs = 16\n"\
    "-binary version = 86\n"\
    "-cuda stream id = 0\n"\
    "-shmem base_addr = 0x00007f0000000000\n"\
    "-local mem base_addr = 0x00007e0000000000\n"\
    "-nvbit version = 1.7\n"\
    "-accelsim tracer version = %d\n"\
    "-enable lineinfo = 0\n"\
    "\n"\
    "#traces format = [line_num] PC mask dest_num [reg_dests] opcode "\
    "src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] "\
    "immediate\n\n"

/* A small trace of `ctas` blocks of two warps (3 and 2 instructions). */
static char *make_trace(const char *kname, unsigned ctas)
{
    size_t cap = 4096 + 512 * (size_t)ctas;
    char *b = malloc(cap);
    size_t n = (size_t)snprintf(b, cap, HDR_FMT, kname, ctas, 64u, 5);
    for (unsigned c = 0; c < ctas; c++)
        n += (size_t)snprintf(
            b + n, cap - n,
            "#BEGIN_TB\n\nthread block = %u,0,0\n\n"
            "warp = 0\ninsts = 3\n"
            "0000 ffffffff 1 R1 MOV 0 0 %u \n"
            "0010 0000000f 1 R2 LDG.E 1 R4 4 1 0x1000 4 0 \n"
            "0020 ffffffff 0 EXIT 0 0 0 \n\n"
            "warp = 1\ninsts = 2\n"
            "0000 ffffffff 1 R1 MOV 0 0 %u \n"
            "0020 ffffffff 0 EXIT 0 0 0 \n\n#END_TB\n\n",
            c, c, 100 + c);
    return b;
}

/* ---- parse_line ------------------------------------------------------------ */

static int pl(const char *s, int ver, wc_inst *in, wc_diag *d)
{
    memset(d, 0, sizeof *d);
    return wc_trace_parse_line(s, strlen(s), ver, in, "t.traceg", 7, d);
}

#define CHECK_ERR(s, ver, ecol)                                                 \
    do {                                                                       \
        wc_diag d_;                                                            \
        wc_inst i_;                                                            \
        CHECK_EQ_INT(pl(s, ver, &i_, &d_), WC_EINPUT);                         \
        CHECK_EQ_INT(d_.line, 7);                                              \
        CHECK_EQ_INT(d_.col, ecol);                                             \
        CHECK_STR(d_.file, "t.traceg");                                        \
    } while (0)

static void test_parse_line(void)
{
    wc_inst in;
    wc_diag d;

    /* v5 ALU */
    CHECK_EQ_INT(pl("0030 ffffffff 1 R6 IMAD 2 R6 R3 0 0 ", 5, &in, &d), 0);
    CHECK_EQ_INT(in.pc, 0x30);
    CHECK_EQ_INT(in.mask, 0xffffffffu);
    CHECK_EQ_INT(in.ndst, 1);
    CHECK_EQ_INT(in.dst[0], 6);
    CHECK_EQ_INT(in.nsrc, 2);
    CHECK_EQ_INT(in.src[1], 3);
    CHECK_STR(in.opcode, "IMAD");
    CHECK(in.op != WC_OP_UNKNOWN);
    CHECK_EQ_INT(in.line, 7);
    CHECK(!(in.iflags & WC_IF_HAS_ADDR));

    /* R255 is RZ; uniform and predicate registers; immediate */
    CHECK_EQ_INT(pl("0060 ffffffff 1 R7 HFMA2.MMA 2 R255 UR4 0 -12", 5, &in,
                    &d),
                 0);
    CHECK_EQ_INT(in.src[0], WC_RZ);
    CHECK_EQ_INT(in.src[1], WC_UR_BASE + 4);
    CHECK_EQ_INT(in.imm, -12);
    CHECK_STR(in.opcode, "HFMA2.MMA");
    CHECK_EQ_INT(pl("0040 ffffffff 1 P0 ISETP.GE.AND 1 R6 0 1073742663", 4,
                    &in, &d),
                 0);
    CHECK_EQ_INT(in.dst[0], WC_P_BASE);
    CHECK_EQ_INT(in.imm, 1073742663);

    /* mode 0: one address per active lane (lanes 0, 2, 5) */
    CHECK_EQ_INT(pl("00a0 00000025 1 R4 LDG.E 1 R4 4 0 0x100 0x208 "
                    "7f00 0",
                    5, &in, &d),
                 0);
    CHECK(in.iflags & WC_IF_HAS_ADDR);
    CHECK_EQ_INT(in.width, 4);
    CHECK_EQ_INT(in.addr[0], 0x100);
    CHECK_EQ_INT(in.addr[1], 0);
    CHECK_EQ_INT(in.addr[2], 0x208);
    CHECK_EQ_INT(in.addr[5], 0x7f00);
    CHECK_EQ_INT(in.space, WC_SPACE_GLOBAL);
    /* mode 1: base stride, strides count active lanes */
    CHECK_EQ_INT(pl("00a0 0000000d 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0",
                    5, &in, &d),
                 0);
    CHECK_EQ_INT(in.addr[0], 0x7fb0fc430e00ull);
    CHECK_EQ_INT(in.addr[1], 0);
    CHECK_EQ_INT(in.addr[2], 0x7fb0fc430e04ull);
    CHECK_EQ_INT(in.addr[3], 0x7fb0fc430e08ull);
    CHECK_EQ_INT(pl("00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x1000 -8 0", 5, &in,
                    &d),
                 0);
    CHECK_EQ_INT(in.addr[31], 0x1000 - 8 * 31);
    /* mode 2: base then popcount-1 deltas from the previous active lane */
    CHECK_EQ_INT(pl("00f0 00000007 0 STG.E 2 R6 R9 4 2 0x2000 16 -4 0", 5,
                    &in, &d),
                 0);
    CHECK_EQ_INT(in.addr[0], 0x2000);
    CHECK_EQ_INT(in.addr[1], 0x2010);
    CHECK_EQ_INT(in.addr[2], 0x200c);
    CHECK_EQ_INT(in.addr[3], 0);
    /* width 0 on a memory op: no addresses */
    CHECK_EQ_INT(pl("0000 ffffffff 1 R1 LDC 0 0 0", 5, &in, &d), 0);
    CHECK(!(in.iflags & WC_IF_HAS_ADDR));

    /* v3: no immediate; an extra token is an error */
    CHECK_EQ_INT(pl("0000 ffffffff 1 R1 MOV 0 0", 3, &in, &d), 0);
    CHECK_EQ_INT(pl("0000 ffffffff 0 STG.E 2 R6 R9 4 1 0x10 4", 3, &in, &d),
                 0);
    CHECK_EQ_INT(in.addr[1], 0x14);
    CHECK_ERR("0000 ffffffff 1 R1 MOV 0 0 5", 3, 28);
    /* v4 requires the immediate */
    CHECK_ERR("0000 ffffffff 1 R1 MOV 0 0", 4, 27);

    /* v6: imm2 and Val/NoVal lists */
    CHECK_EQ_INT(pl("0000 ffffffff 1 R1 MOV 0 0 5 9 NoVal", 6, &in, &d), 0);
    CHECK_EQ_INT(in.imm, 5);
    CHECK_EQ_INT(pl("0000 ffffffff 1 R1 MOV 0 0 5 NoVal", 6, &in, &d), 0);
    CHECK_EQ_INT(pl("0000 ffffffff 1 R1 MOV 0 0 5", 6, &in, &d), 0);
    {
        char line[1024];
        int n = snprintf(line, sizeof line,
                         "0010 ffffffff 1 R2 IADD3 2 R3 R4 0 0 0 Val 1 ff "
                         "1 0 32");
        for (int i = 0; i < 32; i++)
            n += snprintf(line + n, sizeof line - (size_t)n, " %x", i);
        CHECK_EQ_INT(pl(line, 6, &in, &d), 0);
        CHECK_EQ_INT(in.nsrc, 2);
        /* too few values */
        CHECK_ERR("0010 ffffffff 1 R2 IADD3 2 R3 R4 0 0 0 Val 1 ff 1 0 32 1",
                  6, 57);
        CHECK_ERR("0010 ffffffff 1 R2 IADD3 2 R3 R4 0 0 0 Val 2 1", 6, 44);
        CHECK_ERR("0010 ffffffff 1 R2 IADD3 2 R3 R4 0 0 0 Maybe", 6, 40);
    }

    /* optional line-number column */
    CHECK_EQ_INT(pl("12 0030 ffffffff 1 R6 IMAD 2 R6 R3 0 0", 5, &in, &d), 0);
    CHECK_EQ_INT(in.pc, 0x30);
    CHECK_EQ_INT(in.dst[0], 6);
    CHECK_EQ_INT(pl("12 0050 00000001 0 EXIT 0 0 0", 5, &in, &d), 0);
    CHECK_EQ_INT(in.pc, 0x50);
    CHECK_EQ_INT(in.mask, 1);
    CHECK_STR(in.opcode, "EXIT");
    CHECK_EQ_INT(pl("3 0050 00000000 0 EXIT 0 0 0", 5, &in, &d), 0);
    CHECK_EQ_INT(in.mask, 0);

    /* unknown opcodes are not errors */
    CHECK_EQ_INT(pl("0000 ffffffff 0 FROBNICATE.X 0 0 0", 5, &in, &d), 0);
    CHECK_EQ_INT(in.op, WC_OP_UNKNOWN);
    CHECK_STR(in.opcode, "FROBNICATE.X");

    /* errors with their columns */
    CHECK_ERR("00g0 ffffffff 1 R6 IMAD 2 R6 R3 0 0", 5, 1);
    CHECK_ERR("0030 fffzffff 1 R6 IMAD 2 R6 R3 0 0", 5, 6);
    CHECK_ERR("0030 1ffffffff 1 R6 IMAD 2 R6 R3 0 0", 5, 6);
    CHECK_ERR("0030 ffffffff x R6 IMAD 2 R6 R3 0 0", 5, 15);
    CHECK_ERR("0030 ffffffff 1 Q6 IMAD 2 R6 R3 0 0", 5, 17);
    CHECK_ERR("0030 ffffffff 1 R6 IMAD 3 R6 R3 0 0", 5, 33);
    CHECK_ERR("0030 ffffffff 1 R6 IMAD 2 R6 R3 0", 5, 34);
    CHECK_ERR("0030 ffffffff 1 R6 IMAD 2 R6 R3 0 0 junk", 5, 37);
    CHECK_ERR("0030 ffffffff 1 R6 imad 2 R6 R3 0 0", 5, 20);
    /* fewer addresses than active lanes: error at the end of the line */
    CHECK_ERR("00a0 00000007 1 R4 LDG.E 1 R4 4 0 0x100 0x104", 5, 46);
    CHECK_ERR("00a0 00000007 1 R4 LDG.E 1 R4 4 0 0x100 0x1z4 0x108 0", 5,
              41);
    CHECK_ERR("00a0 00000007 1 R4 LDG.E 1 R4 4 2 0x100 4 x 0", 5, 43);
    CHECK_ERR("00a0 00000007 1 R4 LDG.E 1 R4 4 3 0x100 0", 5, 33);
    CHECK_ERR("00a0 00000007 1 R4 LDG.E 1 R4 4 1 0x100 4.5 0", 5, 41);
    CHECK_ERR("", 5, 1);
    {
        wc_diag d2;
        CHECK_EQ_INT(pl("0000 ffffffff 0 EXIT 0 0 0", 2, &in, &d2), WC_EINPUT);
        CHECK_EQ_INT(pl("0000 ffffffff 0 EXIT 0 0 0", 7, &in, &d2), WC_EINPUT);
    }
}

/* ---- real traces ------------------------------------------------------------ */

static void test_vectoradd(void)
{
    char buf[512];
    const char *dir =
        shared_path("data/traces/simple-trace-example", buf, sizeof buf);
    if (!dir)
        return;
    wc_trace *t = NULL;
    wc_diag d;
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_trace_open(dir, &t, &d), 0);
    if (!t) {
        fprintf(stderr, "%s:%ld:%ld: %s\n", d.file, d.line, d.col, d.msg);
        return;
    }
    CHECK_EQ_INT(wc_trace_nkernels(t), 1);
    uint64_t bytes;
    CHECK_EQ_INT(wc_trace_memcpy(t, &bytes), 2);
    CHECK_EQ_INT(bytes, 400000);
    const wc_kernel_info *ki = wc_trace_kernel(t, 0);
    CHECK_STR(ki->name, "_Z9vectorAddPKfS0_Pfi");
    CHECK_EQ_INT(ki->id, 1);
    CHECK_EQ_INT(ki->grid[0], 196);
    CHECK_EQ_INT(ki->grid[1], 1);
    CHECK_EQ_INT(ki->block[0], 256);
    CHECK_EQ_INT(ki->nregs, 12);
    CHECK_EQ_INT(ki->binary_version, 80);
    CHECK_EQ_INT(ki->tracer_version, 5);
    CHECK_EQ_INT(ki->shmem_base, 0x00007fb139000000ull);
    CHECK_EQ_INT(ki->local_base, 0x00007fb137000000ull);
    CHECK_EQ_INT(ki->ctas, 196);
    CHECK_EQ_INT(ki->warps_per_cta, 8);
    CHECK_EQ_INT(ki->has_ctrl, 0);
    CHECK(strstr(ki->path, "kernel-1.traceg.zst") != NULL);

    wc_kreader *r = NULL;
    CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
    uint64_t ctas = 0, warps = 0, insts = 0, w17 = 0, w6 = 0, lanes = 0;
    wc_inst in;
    for (;;) {
        wc_cta *c = NULL;
        CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
        if (!c)
            break;
        unsigned xyz[3];
        wc_cta_index(c, xyz);
        CHECK_EQ_INT(xyz[0], ctas);
        CHECK_EQ_INT(wc_cta_nwarps(c), 8);
        for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
            CHECK_EQ_INT(wc_cta_warp_id(c, w), w);
            uint64_t n = 0;
            int g;
            while ((g = wc_cta_next(c, w, &in, &d)) == 1) {
                if (ctas == 0 && w == 1 && n == 10) {
                    CHECK_STR(in.opcode, "LDG.E");
                    CHECK_EQ_INT(in.pc, 0xa0);
                    CHECK_EQ_INT(in.addr[0], 0x7fb0fc430e80ull);
                    CHECK_EQ_INT(in.addr[31], 0x7fb0fc430e80ull + 124);
                }
                if (ctas == 0 && w == 0 && n == 0) {
                    CHECK_STR(in.opcode, "MOV");
                    CHECK_EQ_INT(in.dst[0], 1);
                }
                lanes += (uint64_t)__builtin_popcount(in.mask);
                n++;
            }
            CHECK_EQ_INT(g, 0);
            CHECK_EQ_INT(n, wc_cta_warp_len(c, w));
            w17 += n == 17;
            w6 += n == 6;
            insts += n;
            warps++;
        }
        wc_cta_free(c);
        ctas++;
    }
    CHECK_EQ_INT(ctas, 196);
    CHECK_EQ_INT(warps, 196 * 8);
    CHECK_EQ_INT(w17, 1563);
    CHECK_EQ_INT(w6, 5);
    CHECK_EQ_INT(insts, 1563 * 17 + 5 * 6);
    CHECK(lanes > 0);
    wc_kreader_close(r);
    CHECK_EQ_INT(wc_trace_unknown_ops(t, NULL, NULL), 0);
    wc_trace_close(t);

    /* the kernelslist.g file itself, and the .traceg name without .zst */
    char kl[600];
    snprintf(kl, sizeof kl, "%s/kernelslist.g", dir);
    CHECK_EQ_INT(wc_trace_open(kl, &t, &d), 0);
    CHECK_EQ_INT(wc_trace_nkernels(t), 1);
    wc_trace_close(t);
    snprintf(kl, sizeof kl, "%s/kernel-1.traceg", dir);
    CHECK_EQ_INT(wc_trace_open(kl, &t, &d), 0);
    CHECK_EQ_INT(wc_trace_nkernels(t), 1);
    if (t)
        CHECK_EQ_INT(wc_trace_kernel(t, 0)->grid[0], 196);
    wc_trace_close(t);
}

static void test_ffma(const char *rel, uint64_t want)
{
    char buf[512];
    const char *dir = shared_path(rel, buf, sizeof buf);
    if (!dir)
        return;
    wc_trace *t = NULL;
    wc_diag d;
    CHECK_EQ_INT(wc_trace_open(dir, &t, &d), 0);
    if (!t)
        return;
    const wc_kernel_info *ki = wc_trace_kernel(t, 0);
    CHECK_STR(ki->name, "_Z10ffmaKerneli");
    CHECK_EQ_INT(ki->binary_version, 90);
    CHECK_EQ_INT(ki->nregs, 24);
    CHECK_EQ_INT(ki->ctas, 1);
    CHECK_EQ_INT(ki->warps_per_cta, 1);
    wc_kreader *r;
    CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
    wc_cta *c;
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(wc_cta_nwarps(c), 1);
        CHECK_EQ_INT(wc_cta_warp_len(c, 0), want);
        wc_inst in;
        uint64_t n = 0, ffma = 0;
        while (wc_cta_next(c, 0, &in, &d) == 1) {
            n++;
            ffma += strcmp(in.opcode, "FFMA") == 0;
            if (in.pc == 0x60)
                CHECK_EQ_INT(in.imm, 1073742663);
        }
        CHECK_EQ_INT(n, want);
        CHECK(ffma > want / 2);
        wc_cta_free(c);
        CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
        CHECK(c == NULL);
    }
    wc_kreader_close(r);
    wc_trace_close(t);
}

/* ---- streaming: interleave, skip, rewind -------------------------------------- */

static void test_streaming(void)
{
    char *tr = make_trace("_Z4testPf", 5);
    write_text("kernel-1.traceg", tr);
    write_text("kernelslist.g", "MemcpyHtoD,0x1000,64\nkernel-1.traceg\n");
    wc_trace *t = NULL;
    wc_diag d;
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), 0);
    if (!t) {
        free(tr);
        return;
    }
    CHECK_EQ_INT(wc_trace_kernel(t, 0)->tracer_version, 5);
    CHECK_EQ_INT(wc_trace_kernel(t, 0)->warps_per_cta, 2);
    wc_kreader *r;
    CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
    /* two CTAs alive at once, warps read interleaved */
    wc_cta *a, *b;
    CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &b, &d), 0);
    wc_inst x, y;
    CHECK_EQ_INT(wc_cta_next(a, 1, &x, &d), 1);
    CHECK_EQ_INT(wc_cta_next(b, 0, &y, &d), 1);
    CHECK_EQ_INT(x.imm, 100);
    CHECK_EQ_INT(y.imm, 1);
    CHECK_EQ_INT(wc_cta_next(a, 0, &x, &d), 1);
    CHECK_EQ_INT(x.imm, 0);
    CHECK_EQ_INT(wc_cta_next(a, 0, &x, &d), 1);
    CHECK_STR(x.opcode, "LDG.E");
    CHECK_EQ_INT(x.addr[3], 0x100c);
    CHECK_EQ_INT(x.line, 24);
    CHECK_EQ_INT(wc_cta_next(a, 1, &x, &d), 1);
    CHECK_STR(x.opcode, "EXIT");
    CHECK_EQ_INT(wc_cta_next(a, 1, &x, &d), 0);
    CHECK_EQ_INT(wc_cta_next(a, 1, &x, &d), 0);
    CHECK_EQ_INT(wc_cta_rewind(a, 1, &d), 0);
    CHECK_EQ_INT(wc_cta_next(a, 1, &x, &d), 1);
    CHECK_EQ_INT(x.imm, 100);
    wc_kreader_close(r); /* CTAs stay usable after their reader closes */
    CHECK_EQ_INT(wc_cta_next(b, 1, &y, &d), 1);
    CHECK_EQ_INT(y.imm, 101);
    wc_cta_free(a);
    wc_cta_free(b);

    /* skip 3 CTAs without decoding, then CTA 3 */
    CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
    CHECK_EQ_INT(wc_kreader_skip(r, 3, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
    unsigned xyz[3];
    wc_cta_index(a, xyz);
    CHECK_EQ_INT(xyz[0], 3);
    wc_cta_free(a);
    CHECK_EQ_INT(wc_kreader_skip(r, 10, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
    CHECK(a == NULL);
    wc_kreader_close(r);
    wc_trace_close(t);

    /* a zstd kernel named without .zst in the kernelslist */
    size_t zn;
    void *z = zcompress(tr, &zn);
    unlink_tmp("kernel-1.traceg");
    write_file("kernel-1.traceg.zst", z, zn);
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), 0);
    if (t) {
        CHECK(strstr(wc_trace_kernel(t, 0)->path, ".zst") != NULL);
        CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
        CHECK_EQ_INT(wc_kreader_skip(r, 4, &d), 0);
        CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
        CHECK_EQ_INT(wc_cta_next(a, 0, &x, &d), 1);
        CHECK_EQ_INT(x.imm, 4);
        wc_cta_free(a);
        wc_kreader_close(r);
        wc_trace_close(t);
    }

    /* truncated zstd: WC_EINPUT naming the file */
    write_file("kernel-1.traceg.zst", z, zn / 2);
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), WC_EINPUT);
    CHECK(strstr(d.file, "kernel-1.traceg.zst") != NULL);
    CHECK(strstr(d.msg, "truncated") != NULL);
    /* corrupt zstd: reserved frame-header bit set */
    ((unsigned char *)z)[4] |= 0x08;
    write_file("kernel-1.traceg.zst", z, zn);
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), WC_EINPUT);
    CHECK(strstr(d.file, "kernel-1.traceg.zst") != NULL);
    CHECK(strstr(d.msg, "corrupt zstd") != NULL);
    unlink_tmp("kernel-1.traceg.zst");
    free(z);
    free(tr);
}

/* ---- error paths of files ------------------------------------------------------- */

static int open_err(const char *path, wc_diag *d)
{
    wc_trace *t = NULL;
    memset(d, 0, sizeof *d);
    int rc = wc_trace_open(path, &t, d);
    if (rc == 0) {
        /* read everything: structure errors appear while streaming */
        for (size_t k = 0; k < wc_trace_nkernels(t) && rc == 0; k++) {
            wc_kreader *r = NULL;
            rc = wc_kreader_open(t, k, &r, d);
            while (rc == 0) {
                wc_cta *c;
                rc = wc_kreader_next(r, &c, d);
                if (rc || !c)
                    break;
                wc_inst in;
                for (unsigned w = 0; w < wc_cta_nwarps(c) && rc == 0; w++) {
                    int g;
                    while ((g = wc_cta_next(c, w, &in, d)) == 1)
                        ;
                    rc = -g;
                }
                wc_cta_free(c);
            }
            wc_kreader_close(r);
        }
    }
    wc_trace_close(t);
    return rc;
}

static void check_file_err(const char *text, long line, long col,
                           const char *msgpart)
{
    wc_diag d;
    write_text("k.traceg", text);
    CHECK_EQ_INT(open_err(tpath("k.traceg"), &d), WC_EINPUT);
    CHECK_EQ_INT(d.line, line);
    CHECK_EQ_INT(d.col, col);
    if (!strstr(d.msg, msgpart)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", d.msg, msgpart);
        CHECK(0);
    }
    CHECK(strstr(d.file, "k.traceg") != NULL);
}

static void test_errors(void)
{
    wc_diag d;
    char hdr[2048];
    snprintf(hdr, sizeof hdr, HDR_FMT, "_Z1kv", 1u, 32u, 5);
    /* header is lines 1-16; the first TB line is 17 */
    char t[4096];

    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
             "0000 ffffffff 0 EXIT 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n"
             "#END_TB\n",
             hdr);
    check_file_err(t, 20, 9, "insts = 3 but warp 0 has only 2");
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
             "0000 ffffffff 0 EXIT 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n"
             "#END_TB\n",
             hdr);
    check_file_err(t, 22, 1, "unexpected line in thread block");
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
             "0000 ffffffff 0 EXIT 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n",
             hdr);
    check_file_err(t, 17, 1, "not closed by #END_TB");
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
             "0000 ffffffff 0 EXIT 0 0 0\n0010 ffffzfff 0 EXIT 0 0 0\n"
             "#END_TB\n",
             hdr);
    check_file_err(t, 22, 6, "hex active mask");
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,x,0\n#END_TB\n", hdr);
    check_file_err(t, 18, 16, "bad thread block index");
    snprintf(t, sizeof t, "%s#BEGIN_TB\nwarp = 0\ninsts = 0\n#END_TB\n", hdr);
    check_file_err(t, 20, 1, "no 'thread block");
    snprintf(t, sizeof t, "%s  garbage\n", hdr);
    check_file_err(t, 17, 3, "expected #BEGIN_TB");
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\nfoo\n", hdr);
    check_file_err(t, 20, 1, "expected 'insts = N'");
    snprintf(t, sizeof t, "%s#END_TB\n", hdr);
    check_file_err(t, 17, 1, "#END_TB without");

    /* the trace against its header (issue 12): grid dim and block dim */
    {
        char h2[2048], h3[2048], h64[2048];
        const char *tb0 = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
                          "insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n";
        snprintf(h2, sizeof h2, HDR_FMT, "_Z1kv", 2u, 32u, 5);
        snprintf(h3, sizeof h3, HDR_FMT, "_Z1kv", 3u, 32u, 5);
        snprintf(h64, sizeof h64, HDR_FMT, "_Z1kv", 1u, 64u, 5);
        /* cut at a CTA boundary: 1 of 3 CTAs, error at the grid dim */
        snprintf(t, sizeof t, "%s%s", h3, tb0);
        check_file_err(t, 3, 13, "makes 3 thread blocks but the trace holds 1");
        /* more CTAs than the grid: at the extra #BEGIN_TB */
        snprintf(t, sizeof t, "%s%s%s", hdr, tb0, tb0);
        check_file_err(t, 23, 1, "more thread blocks than grid dim");
        /* block id outside the grid */
        snprintf(t, sizeof t,
                 "%s#BEGIN_TB\nthread block = 0,1,0\n#END_TB\n", hdr);
        check_file_err(t, 18, 16, "outside grid dim (1,1,1)");
        /* the same block id twice */
        snprintf(t, sizeof t, "%s%s%s", h2, tb0, tb0);
        check_file_err(t, 24, 16, "(0,0,0) appears twice");
        /* warp id beyond the block's warps */
        snprintf(t, sizeof t,
                 "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 0\n"
                 "#END_TB\n",
                 hdr);
        check_file_err(t, 19, 8, "warp id 1 out of range");
        /* the same warp twice */
        snprintf(t, sizeof t,
                 "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 0\n"
                 "warp = 0\ninsts = 0\n#END_TB\n",
                 h64);
        check_file_err(t, 21, 8, "warp 0 appears twice");
        /* fewer warps than the block dim makes */
        snprintf(t, sizeof t, "%s%s", h64, tb0);
        check_file_err(t, 22, 1, "has 1 warps but block dim (64,1,1) makes 2");
        /* a second index line */
        snprintf(t, sizeof t,
                 "%s#BEGIN_TB\nthread block = 0,0,0\nthread block = 0,0,0\n"
                 "#END_TB\n", hdr);
        check_file_err(t, 19, 1, "second 'thread block");
        /* zero extents */
        check_file_err("-kernel name = k\n-grid dim = (1,0,1)\n", 2, 13,
                       "zero extent");
        /* a reader that stops at the grid's count (the detailed model)
         * still meets the extra CTA, when it takes the grid's last one */
        snprintf(t, sizeof t, "%s%s%s", hdr, tb0, tb0);
        write_text("k.traceg", t);
        wc_trace *tr = NULL;
        CHECK_EQ_INT(wc_trace_open(tpath("k.traceg"), &tr, &d), 0);
        if (tr) {
            wc_kreader *r = NULL;
            wc_cta *c = NULL;
            CHECK_EQ_INT(wc_kreader_open(tr, 0, &r, &d), 0);
            CHECK_EQ_INT(wc_kreader_next(r, &c, &d), WC_EINPUT);
            CHECK(c == NULL);
            CHECK_EQ_INT(d.line, 23);
            wc_kreader_close(r);
            wc_trace_close(tr);
        }
    }
    /* header errors */
    check_file_err("-kernel name = k\n-grid dim = (1,1)\n", 2, 13,
                   "bad grid dim");
    check_file_err("-kernel name = k\n-grid dim = (1,1,1)\n-block dim = "
                   "(1,1,1)\n-accelsim tracer version = 2\n#\n",
                   4, 28, "unsupported accelsim tracer version");
    check_file_err("-kernel name = k\n-grid dim = (1,1,1)\n#\n", 3, 0,
                   "-block dim");
    check_file_err("-kernel name = k\nhello\n", 2, 1, "unexpected line");
    check_file_err("-kernel name = k\n-shmem base_addr = 0xzz\n#\n", 2, 20,
                   "bad hex shmem");

    /* kernelslist.g errors */
    write_text("kernelslist.g", "MemcpyHtoD,0x10,5\n\nkernel-9.traceg\n");
    CHECK_EQ_INT(open_err(tmpdir, &d), WC_EINPUT);
    CHECK(strstr(d.file, "kernelslist.g") != NULL);
    CHECK_EQ_INT(d.line, 3);
    CHECK_EQ_INT(d.col, 1);
    CHECK(strstr(d.msg, "not found") != NULL);
    write_text("kernelslist.g", "kernel-2.traceg.xz\n");
    CHECK_EQ_INT(open_err(tmpdir, &d), WC_EINPUT);
    CHECK_EQ_INT(d.line, 1);
    CHECK_EQ_INT(d.col, 1);
    CHECK(strstr(d.msg, "xz-compressed traces are not supported; "
                        "decompress with unxz") != NULL);
    write_text("kernelslist.g", "MemcpyHtoD,0xq0,5\n");
    CHECK_EQ_INT(open_err(tmpdir, &d), WC_EINPUT);
    CHECK_EQ_INT(d.line, 1);
    CHECK_EQ_INT(d.col, 12);
    write_text("kernelslist.g", "MemcpyHtoD,0x10,-5\n");
    CHECK_EQ_INT(open_err(tmpdir, &d), WC_EINPUT);
    CHECK_EQ_INT(d.col, 17);
    write_text("kernelslist.g", "hello world\n");
    CHECK_EQ_INT(open_err(tmpdir, &d), WC_EINPUT);
    CHECK_EQ_INT(d.line, 1);
    CHECK(strstr(d.msg, "unrecognised") != NULL);
    unlink_tmp("kernelslist.g");
    CHECK_EQ_INT(open_err(tmpdir, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "kernelslist.g") != NULL);
    CHECK_EQ_INT(open_err(tpath("nope.traceg"), &d), WC_EINPUT);
    /* an xz file given directly */
    write_file("x.traceg.xz", "\xfd" "7zXZ\0rest", 10);
    CHECK_EQ_INT(open_err(tpath("x.traceg.xz"), &d), WC_EINPUT);
    CHECK(strstr(d.msg, "unxz") != NULL);
    unlink_tmp("x.traceg.xz");
    unlink_tmp("k.traceg");
}

/* ---- unknown opcodes, CRLF, line column in a file -------------------------- */

static void test_misc_file(void)
{
    char hdr[2048], t[4096];
    snprintf(hdr, sizeof hdr, HDR_FMT, "_Z1kv", 1u, 128u, 4);
    snprintf(t, sizeof t,
             "%s#BEGIN_TB\r\nthread block = 0,0,0\r\ncluster = 0\r\n"
             "warp = 3\r\ninsts = 3\r\n"
             "5 0000 ffffffff 0 FOO.BAR 0 0 0\r\n"
             "\r\n"
             "6 0010 ffffffff 0 FOO 0 0 0\r\n"
             "7 0020 ffffffff 0 EXIT 0 0 0\r\n"
             "warp = 0\r\ninsts = 0\r\nwarp = 2\r\ninsts = 0\r\n"
             "warp = 1\r\ninsts = 0\r\n#END_TB\r\n",
             hdr);
    write_text("m.traceg", t);
    wc_trace *tr;
    wc_diag d;
    CHECK_EQ_INT(wc_trace_open(tpath("m.traceg"), &tr, &d), 0);
    if (!tr)
        return;
    wc_kreader *r;
    wc_cta *c;
    wc_inst in;
    CHECK_EQ_INT(wc_kreader_open(tr, 0, &r, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
    CHECK_EQ_INT(wc_cta_warp_id(c, 0), 3);
    int n = 0;
    while (wc_cta_next(c, 0, &in, &d) == 1)
        n++;
    CHECK_EQ_INT(n, 3);
    CHECK_STR(in.opcode, "EXIT");
    CHECK_EQ_INT(in.pc, 0x20);
    wc_cta_free(c);
    wc_kreader_close(r);
    const char *const *names;
    const uint64_t *counts;
    CHECK_EQ_INT(wc_trace_unknown_ops(tr, &names, &counts), 1);
    CHECK_STR(names[0], "FOO");
    CHECK_EQ_INT(counts[0], 2);
    wc_trace_close(tr);
    unlink_tmp("m.traceg");
}

/* ---- control-bit join ----------------------------------------------------------- */

static const char *listing =
    "\n\tcode for sm_86\n"
    "\t\tFunction : _Z4testPf\n"
    "\t.headerflags\t@\"EF_CUDA_SM86 EF_CUDA_PTX_SM(EF_CUDA_SM86)\"\n"
    "        /*0000*/                   MOV R1, c[0x0][0x28] ;"
    "                     /* 0x00000a0000017a02 */\n"
    "                                                             "
    "                 /* 0x000fc40000000f00 */\n"
    "        /*0010*/                   LDG.E R2, [R4.64] ;"
    "                     /* 0x0000000404027981 */\n"
    "                                                             "
    "                 /* 0x000ea2000c1e1900 */\n"
    "        /*0020*/                   EXIT ;"
    "                     /* 0x000000000000794d */\n"
    "                                                             "
    "                 /* 0x000fea0003800000 */\n"
    "\t\t..........\n\n";

static void test_ctrl_join(void)
{
    char *tr = make_trace("_Z4testPf", 2);
    write_text("kernel-1.traceg", tr);
    char *tr2 = make_trace("_Z5otherv", 1);
    write_text("kernel-2.traceg", tr2);
    free(tr2);
    write_text("kernelslist.g", "kernel-1.traceg\nkernel-2.traceg\n");
    write_text("listing.sass", listing);
    write_text("bench.sass", ".warp 0\n[B------:R-:W-:-:S01]  EXIT ;\n");
    free(tr);
    wc_trace *t;
    wc_diag d;
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), 0);
    if (!t) {
        fprintf(stderr, "%s:%ld:%ld: %s\n", d.file, d.line, d.col, d.msg);
        return;
    }
    CHECK_EQ_INT(wc_trace_nkernels(t), 2);
    CHECK_EQ_INT(wc_trace_kernel(t, 0)->has_ctrl, 1);
    CHECK_EQ_INT(wc_trace_kernel(t, 1)->has_ctrl, 0);
    CHECK_EQ_INT(wc_trace_kernel(t, 1)->id, 1); /* from its header */
    wc_kreader *r;
    wc_cta *c;
    wc_inst in;
    wc_ctrl want;
    CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
    CHECK_EQ_INT(wc_cta_next(c, 0, &in, &d), 1);
    wc_ctrl_decode(0x000fc40000000f00ull, &want);
    CHECK_EQ_INT(in.ctrl.valid, 1);
    CHECK_EQ_INT(in.ctrl.stall, want.stall);
    CHECK_EQ_INT(in.ctrl.wbar, want.wbar);
    CHECK_EQ_INT(in.ctrl.yield, want.yield);
    CHECK(in.iflags & WC_IF_CONSTOP);
    CHECK_EQ_INT(wc_cta_next(c, 0, &in, &d), 1);
    wc_ctrl_decode(0x000ea2000c1e1900ull, &want);
    CHECK_EQ_INT(in.ctrl.wbar, want.wbar);
    CHECK_EQ_INT(in.ctrl.wbar, 2);
    CHECK(in.iflags & WC_IF_HAS_ADDR);
    CHECK_EQ_INT(wc_cta_next(c, 0, &in, &d), 1);
    CHECK_EQ_INT(in.ctrl.valid, 1);
    CHECK_EQ_INT(in.ctrl.stall, 5);
    wc_cta_free(c);
    wc_kreader_close(r);
    /* the kernel without a listing: no control bits */
    CHECK_EQ_INT(wc_kreader_open(t, 1, &r, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
    CHECK_EQ_INT(wc_cta_next(c, 0, &in, &d), 1);
    CHECK_EQ_INT(in.ctrl.valid, 0);
    wc_cta_free(c);
    wc_kreader_close(r);
    wc_trace_close(t);
    unlink_tmp("listing.sass");
    unlink_tmp("kernel-2.traceg");

    /* the hand-written ubench as a one-CTA trace */
    CHECK_EQ_INT(wc_trace_open(tpath("bench.sass"), &t, &d), 0);
    if (!t) {
        fprintf(stderr, "%s:%ld:%ld: %s\n", d.file, d.line, d.col, d.msg);
        return;
    }
    CHECK_EQ_INT(wc_trace_nkernels(t), 1);
    CHECK_STR(wc_trace_kernel(t, 0)->name, "bench");
    CHECK_EQ_INT(wc_trace_kernel(t, 0)->ctas, 1);
    CHECK_EQ_INT(wc_trace_kernel(t, 0)->has_ctrl, 1);
    CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
    CHECK_EQ_INT(wc_cta_nwarps(c), 1);
    CHECK_EQ_INT(wc_cta_next(c, 0, &in, &d), 1);
    CHECK_STR(in.opcode, "EXIT");
    CHECK_EQ_INT(wc_cta_next(c, 0, &in, &d), 0);
    wc_cta_free(c);
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
    CHECK(c == NULL);
    wc_kreader_close(r);
    wc_trace_close(t);
    unlink_tmp("bench.sass");
}

/* ---- CTA index and seek ----------------------------------------------------- */

/* A fingerprint of one CTA: its index, warps and every instruction. */
static uint64_t cta_sig(wc_cta *c, uint64_t *ninsts)
{
    wc_diag d;
    wc_inst in;
    unsigned xyz[3];
    wc_cta_index(c, xyz);
    uint64_t h = 1469598103934665603ull ^ xyz[0] ^ (uint64_t)xyz[1] << 20 ^
                 (uint64_t)xyz[2] << 40;
    uint64_t n = 0;
    for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
        int g;
        h = (h ^ wc_cta_warp_id(c, w)) * 1099511628211ull;
        while ((g = wc_cta_next(c, w, &in, &d)) == 1) {
            h = (h ^ in.pc ^ (uint64_t)in.imm << 24 ^ in.mask ^ in.line) *
                1099511628211ull;
            h = (h ^ in.op) * 1099511628211ull;
            if (in.iflags & WC_IF_HAS_ADDR)
                for (unsigned l = 0; l < WC_WARP_SIZE; l++)
                    h = (h ^ in.addr[l]) * 1099511628211ull;
            n++;
        }
        CHECK_EQ_INT(g, 0);
    }
    if (ninsts)
        *ninsts = n;
    return h;
}

/* Signatures and decoded instruction counts of every CTA of kernel k, read
 * sequentially; returns the number of CTAs (at most max). */
static uint64_t read_seq(wc_trace *t, size_t k, uint64_t *sig, uint64_t *cnt,
                         uint64_t max)
{
    wc_diag d;
    wc_kreader *r;
    uint64_t n = 0;
    CHECK_EQ_INT(wc_kreader_open(t, k, &r, &d), 0);
    if (!r)
        return 0;
    for (;;) {
        wc_cta *c = NULL;
        CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
        if (!c)
            break;
        uint64_t ni, h = cta_sig(c, &ni);
        if (n < max) {
            sig[n] = h;
            cnt[n] = ni;
        }
        n++;
        wc_cta_free(c);
    }
    wc_kreader_close(r);
    return n;
}

/* Seek a fresh reader to cta: the CTA read equals the sequential one
 * (NULL past the end). */
static void check_seek(wc_trace *t, size_t k, uint64_t cta,
                       const uint64_t *sig, uint64_t n)
{
    wc_diag d;
    wc_kreader *r;
    wc_cta *c = NULL;
    CHECK_EQ_INT(wc_kreader_open(t, k, &r, &d), 0);
    if (!r)
        return;
    CHECK_EQ_INT(wc_kreader_seek(r, cta, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
    if (cta < n) {
        CHECK(c != NULL);
        if (c)
            CHECK_EQ_INT(cta_sig(c, NULL), sig[cta]);
        wc_cta_free(c);
        /* and the reader goes on sequentially from there */
        CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
        if (cta + 1 < n) {
            CHECK(c != NULL);
            if (c)
                CHECK_EQ_INT(cta_sig(c, NULL), sig[cta + 1]);
        } else {
            CHECK(c == NULL);
        }
    } else {
        CHECK(c == NULL);
    }
    wc_cta_free(c);
    wc_kreader_close(r);
}

/* Every seek target and the counts of kernel k of the trace at path, with
 * and without the index built first. */
static void check_index_trace(const char *path)
{
    enum { MAXC = 4096 };
    static uint64_t sig[MAXC], cnt[MAXC];
    wc_trace *t = NULL;
    wc_diag d;
    CHECK_EQ_INT(wc_trace_open(path, &t, &d), 0);
    if (!t)
        return;
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        /* seeks before any index: forward scans, and back to the start */
        wc_trace *t2 = NULL;
        CHECK_EQ_INT(wc_trace_open(path, &t2, &d), 0);
        uint64_t n = read_seq(t, k, sig, cnt, MAXC);
        CHECK(n <= MAXC);
        if (t2) {
            wc_kreader *r;
            wc_cta *c = NULL;
            CHECK_EQ_INT(wc_kreader_open(t2, k, &r, &d), 0);
            uint64_t tgt[] = {n / 2, n ? n - 1 : 0, 0, n / 3};
            for (unsigned i = 0; i < 4; i++) {
                CHECK_EQ_INT(wc_kreader_seek(r, tgt[i], &d), 0);
                CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);
                CHECK((c != NULL) == (tgt[i] < n));
                if (c && tgt[i] < n)
                    CHECK_EQ_INT(cta_sig(c, NULL), sig[tgt[i]]);
                wc_cta_free(c);
            }
            wc_kreader_close(r);
            wc_trace_close(t2);
        }
        /* the counts (the sequential pass built the index already) */
        const uint64_t *ic;
        uint64_t in = 0, tot = 0, dtot = 0;
        CHECK_EQ_INT(wc_trace_cta_insts(t, k, &ic, &in, &d), 0);
        CHECK_EQ_INT(in, n);
        for (uint64_t i = 0; i < in && i < n && i < MAXC; i++) {
            CHECK_EQ_INT(ic[i], cnt[i]);
            tot += ic[i];
            dtot += cnt[i];
        }
        CHECK_EQ_INT(tot, dtot);
        if (n <= MAXC) {
            uint64_t tg[] = {0, n / 2, n ? n - 1 : 0, n, n + 5, UINT64_MAX};
            for (unsigned i = 0; i < 6; i++)
                check_seek(t, k, tg[i], sig, n);
        }
    }
    wc_trace_close(t);

    /* counts from wc_trace_cta_insts alone (its own scan) */
    CHECK_EQ_INT(wc_trace_open(path, &t, &d), 0);
    if (!t)
        return;
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        const uint64_t *ic;
        uint64_t in = 0, n = read_seq(t, k, sig, cnt, 0);
        wc_trace *t3 = NULL;
        CHECK_EQ_INT(wc_trace_open(path, &t3, &d), 0);
        if (!t3)
            continue;
        CHECK_EQ_INT(wc_trace_cta_insts(t3, k, &ic, &in, &d), 0);
        CHECK_EQ_INT(in, n);
        n = read_seq(t3, k, sig, cnt, MAXC);
        for (uint64_t i = 0; i < in && i < MAXC; i++)
            CHECK_EQ_INT(ic[i], cnt[i]);
        /* a second call returns the same array */
        const uint64_t *ic2;
        uint64_t in2;
        CHECK_EQ_INT(wc_trace_cta_insts(t3, k, &ic2, &in2, &d), 0);
        CHECK(ic2 == ic);
        CHECK_EQ_INT(in2, in);
        wc_trace_close(t3);
    }
    wc_trace_close(t);
}

static void test_index(void)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_kreader *r = NULL;
    wc_cta *a = NULL, *b = NULL, *c = NULL;
    wc_inst x;
    char *tr = make_trace("_Z4testPf", 7);
    write_text("kernel-1.traceg", tr);
    write_text("kernelslist.g", "kernel-1.traceg\n");
    check_index_trace(tpath("kernel-1.traceg"));

    /* interleave seeks with live CTAs */
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), 0);
    if (!t)
        goto out;
    const uint64_t *ic;
    uint64_t n;
    CHECK_EQ_INT(wc_trace_cta_insts(t, 0, &ic, &n, &d), 0);
    CHECK_EQ_INT(n, 7);
    for (uint64_t i = 0; i < n; i++)
        CHECK_EQ_INT(ic[i], 5);
    CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);   /* CTA 0 */
    CHECK_EQ_INT(wc_cta_next(a, 0, &x, &d), 1);
    CHECK_EQ_INT(x.imm, 0);
    CHECK_EQ_INT(wc_kreader_seek(r, 5, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &b, &d), 0);   /* CTA 5 */
    CHECK_EQ_INT(wc_kreader_seek(r, 1, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &c, &d), 0);   /* CTA 1 */
    CHECK_EQ_INT(wc_cta_next(b, 1, &x, &d), 1);
    CHECK_EQ_INT(x.imm, 105);
    CHECK_EQ_INT(wc_cta_next(c, 0, &x, &d), 1);
    CHECK_EQ_INT(x.imm, 1);
    CHECK_EQ_INT(x.line, 40); /* line numbers survive the seek */
    CHECK_EQ_INT(wc_cta_next(a, 0, &x, &d), 1);
    CHECK_STR(x.opcode, "LDG.E");
    CHECK_EQ_INT(wc_cta_next(b, 0, &x, &d), 1);
    CHECK_EQ_INT(x.imm, 5);
    wc_cta_free(a);
    wc_cta_free(c);
    /* skip counts from the reader's position, through the index */
    CHECK_EQ_INT(wc_kreader_skip(r, 2, &d), 0);    /* 2, 3 */
    CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);   /* CTA 4 */
    unsigned xyz[3];
    wc_cta_index(a, xyz);
    CHECK_EQ_INT(xyz[0], 4);
    wc_cta_free(a);
    CHECK_EQ_INT(wc_kreader_skip(r, UINT64_MAX, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
    CHECK(a == NULL);
    CHECK_EQ_INT(wc_kreader_seek(r, 6, &d), 0);
    CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
    wc_cta_index(a, xyz);
    CHECK_EQ_INT(xyz[0], 6);
    wc_cta_free(a);
    wc_kreader_close(r);
    CHECK_EQ_INT(wc_cta_next(b, 1, &x, &d), 1); /* outlives its reader */
    CHECK_STR(x.opcode, "EXIT");
    wc_cta_free(b);

    /* a full sequential pass leaves the index cached: no file needed */
    wc_trace_close(t);
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), 0);
    if (!t)
        goto out;
    {
        uint64_t sig[8], cnt[8];
        CHECK_EQ_INT(read_seq(t, 0, sig, cnt, 8), 7);
    }
    unlink_tmp("kernel-1.traceg");
    CHECK_EQ_INT(wc_trace_cta_insts(t, 0, &ic, &n, &d), 0);
    CHECK_EQ_INT(n, 7);
    wc_trace_close(t);

    /* zstd: the index refers to the decompressed text, which is made once
     * and kept for later readers (the .zst is not read again) */
    size_t zn;
    void *z = zcompress(tr, &zn);
    write_file("kernel-1.traceg.zst", z, zn);
    check_index_trace(tmpdir);
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), 0);
    if (t) {
        CHECK_EQ_INT(wc_trace_cta_insts(t, 0, &ic, &n, &d), 0);
        CHECK_EQ_INT(n, 7);
        write_file("kernel-1.traceg.zst", "garbage", 7);
        for (unsigned i = 0; i < 3; i++) {
            CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
            CHECK_EQ_INT(wc_kreader_seek(r, 6 - i, &d), 0);
            CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
            CHECK(a != NULL);
            if (a) {
                CHECK_EQ_INT(wc_cta_next(a, 0, &x, &d), 1);
                CHECK_EQ_INT(x.imm, 6 - i);
            }
            wc_cta_free(a);
            wc_kreader_close(r);
        }
        wc_trace_close(t);
    }
    unlink_tmp("kernel-1.traceg.zst");
    free(z);

    /* bad input met by the index scan: the same file:line:col as reading */
    {
        char hdr[2048], bad[8192];
        snprintf(hdr, sizeof hdr, HDR_FMT, "_Z1kv", 3u, 32u, 5);
        snprintf(bad, sizeof bad,
                 "%s#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                 "0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n"
                 "#BEGIN_TB\nthread block = 1,0,0\nwarp = 0\ninsts = 3\n"
                 "0000 ffffffff 0 EXIT 0 0 0\n0010 ffffffff 0 EXIT 0 0 0\n"
                 "#END_TB\n",
                 hdr);
        wc_diag d1, d2;
        write_text("k.traceg", bad);
        CHECK_EQ_INT(open_err(tpath("k.traceg"), &d1), WC_EINPUT);
        CHECK_EQ_INT(wc_trace_open(tpath("k.traceg"), &t, &d), 0);
        if (t) {
            memset(&d2, 0, sizeof d2);
            CHECK_EQ_INT(wc_trace_cta_insts(t, 0, &ic, &n, &d2), WC_EINPUT);
            CHECK_EQ_INT(d2.line, d1.line);
            CHECK_EQ_INT(d2.col, d1.col);
            CHECK_EQ_INT(d2.line, 26);
            CHECK_EQ_INT(d2.col, 9);
            CHECK_STR(d2.msg, d1.msg);
            CHECK(strstr(d2.file, "k.traceg") != NULL);
            /* no index: seek scans and meets the same error */
            CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
            memset(&d2, 0, sizeof d2);
            CHECK_EQ_INT(wc_kreader_seek(r, 2, &d2), WC_EINPUT);
            CHECK_EQ_INT(d2.line, 26);
            wc_kreader_close(r);
            wc_trace_close(t);
        }
        /* a header-only kernel: none of the grid's 3 CTAs is there, an
         * error at the grid dim (line 3, value column 13) */
        write_text("k.traceg", hdr);
        CHECK_EQ_INT(wc_trace_open(tpath("k.traceg"), &t, &d), 0);
        if (t) {
            CHECK_EQ_INT(wc_trace_cta_insts(t, 0, &ic, &n, &d), WC_EINPUT);
            CHECK_EQ_INT(d.line, 3);
            CHECK_EQ_INT(d.col, 13);
            CHECK(strstr(d.msg, "holds 0") != NULL);
            CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
            CHECK_EQ_INT(wc_kreader_seek(r, 0, &d), 0);
            CHECK_EQ_INT(wc_kreader_next(r, &a, &d), WC_EINPUT);
            CHECK(a == NULL);
            wc_kreader_close(r);
            CHECK_EQ_INT(wc_trace_cta_insts(t, 1, &ic, &n, &d), WC_EUSAGE);
            wc_trace_close(t);
        }
        unlink_tmp("k.traceg");
    }

    /* a hand-written ubench: one CTA */
    write_text("u.sass", ".warp 0\n[B------:R-:W-:-:S01]  NOP ;\n"
                         "[B------:R-:W-:-:S01]  EXIT ;\n"
                         ".warp 1\n[B------:R-:W-:-:S01]  EXIT ;\n");
    CHECK_EQ_INT(wc_trace_open(tpath("u.sass"), &t, &d), 0);
    if (t) {
        CHECK_EQ_INT(wc_trace_cta_insts(t, 0, &ic, &n, &d), 0);
        CHECK_EQ_INT(n, 1);
        if (n == 1)
            CHECK_EQ_INT(ic[0], 3);
        CHECK_EQ_INT(wc_kreader_open(t, 0, &r, &d), 0);
        CHECK_EQ_INT(wc_kreader_seek(r, 1, &d), 0);
        CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
        CHECK(a == NULL);
        CHECK_EQ_INT(wc_kreader_seek(r, 0, &d), 0);
        CHECK_EQ_INT(wc_kreader_next(r, &a, &d), 0);
        CHECK(a != NULL);
        if (a)
            CHECK_EQ_INT(wc_cta_warp_len(a, 0), 2);
        wc_cta_free(a);
        wc_kreader_close(r);
        wc_trace_close(t);
    }
    unlink_tmp("u.sass");

    /* the real traces, and synthetic ones of every kind */
    const char *rel[] = {"data/traces/simple-trace-example",
                         "data/traces/simtune-ffmakernel-1-32-10",
                         "data/traces/simtune-ffmakernel-1-32-20"};
    for (unsigned i = 0; i < 3; i++) {
        char buf[512];
        const char *dir = shared_path(rel[i], buf, sizeof buf);
        if (dir)
            check_index_trace(dir);
    }
    for (const char *const *k = wc_synth_kinds(); *k; k++) {
        wc_synth_params p;
        char dir[600];
        wc_synth_defaults(&p, *k);
        p.ctas = 5;
        p.iters = 3;
        p.zstd = (k - wc_synth_kinds()) % 2 == 1;
        snprintf(dir, sizeof dir, "%s/synth-%s", tmpdir, *k);
        CHECK_EQ_INT(wc_synth_write(&p, dir, &d), 0);
        check_index_trace(dir);
    }
out:
    unlink_tmp("kernelslist.g");
    free(tr);
}

/* Memory per kernel launch (issue 12: 3.9 KB stayed allocated per launch,
 * 1.5 KB of it fixed name/path arrays, 1.5 KB a CTA index with room for
 * 64 CTAs): 4000 launches of one small kernel, every launch opened and its
 * CTA index built; the heap may grow by at most 512 bytes per launch. */
static void test_launch_memory(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33) && \
    !defined(__SANITIZE_ADDRESS__)
    enum { N = 4000 };
    char *tr = make_trace("_Z1kv", 1);
    write_text("kernel-1.traceg", tr);
    free(tr);
    char *kl = malloc(N * 16 + 1);
    size_t off = 0;
    for (int i = 0; i < N; i++)
        off += (size_t)sprintf(kl + off, "kernel-1.traceg\n");
    write_text("kernelslist.g", kl);
    free(kl);
    size_t before = mallinfo2().uordblks;
    wc_trace *t = NULL;
    wc_diag d;
    CHECK_EQ_INT(wc_trace_open(tmpdir, &t, &d), 0);
    if (!t)
        return;
    CHECK_EQ_INT(wc_trace_nkernels(t), N);
    for (size_t k = 0; k < N; k++) {
        const uint64_t *ins;
        uint64_t n;
        if (wc_trace_cta_insts(t, k, &ins, &n, &d) != 0 || n != 1) {
            CHECK(0);
            break;
        }
    }
    size_t after = mallinfo2().uordblks;
    double per = ((double)after - (double)before) / N;
    fprintf(stderr, "trace: %.0f bytes of heap per kernel launch\n", per);
    CHECK(per < 512);
    wc_trace_close(t);
    unlink_tmp("kernelslist.g");
    unlink_tmp("kernel-1.traceg");
#else
    fprintf(stderr, "notice: launch memory test skipped (needs glibc "
                    "mallinfo2, no sanitizer allocator)\n");
#endif
}

/* The 15 H100 SXM traces of ../shared with their CUDA 13 cuobjdump
 * listings: every kernel gets control bits, and the listing matches its
 * trace (issue 11 item 3). */
static void test_h100_listings(void)
{
    const char *const *dirs = h100sxm_traces;
    for (size_t i = 0; i < H100SXM_NTRACES; i++) {
        char rel[256], buf[512];
        snprintf(rel, sizeof rel, "data/hw/h100-sxm/traces/%s", dirs[i]);
        const char *dir = shared_path(rel, buf, sizeof buf);
        if (!dir)
            return;
        wc_trace *t = NULL;
        wc_diag d;
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(wc_trace_open(dir, &t, &d), 0);
        if (!t) {
            fprintf(stderr, "%s: %s:%ld:%ld: %s\n", dirs[i], d.file, d.line,
                    d.col, d.msg);
            continue;
        }
        CHECK_EQ_INT(wc_trace_nkernels(t), 1);
        CHECK_EQ_INT(wc_trace_check_ctrl(t, 0, &d), 0);
        const wc_kernel_info *ki = wc_trace_kernel(t, 0);
        if (!ki->has_ctrl)
            fprintf(stderr, "%s: control bits: no (%s)\n", dirs[i],
                    ki->ctrl_note ? ki->ctrl_note : "");
        CHECK_EQ_INT(ki->has_ctrl, 1);
        CHECK_EQ_INT(wc_trace_warnings(t, NULL), 0);
        wc_trace_close(t);
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/wc-test-trace-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_parse_line();
    test_vectoradd();
    test_ffma("data/traces/simtune-ffmakernel-1-32-10", 1328);
    test_ffma("data/traces/simtune-ffmakernel-1-32-20", 2648);
    test_streaming();
    test_errors();
    test_misc_file();
    test_ctrl_join();
    test_index();
    test_h100_listings();
    test_launch_memory();
    nftw(tmpdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    CHECK_DONE();
}
