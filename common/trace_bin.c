/*
 * common/trace_bin.c - the binary trace form (docs/formats.md, "Binary
 * traces"): the writer (wc_trace_convert) and the reader behind the
 * ordinary trace API (trace.c dispatches kernels of kind KIND_BIN here).
 *
 *   "WCTRACEB" u32 version u32 0        file header, 16 bytes
 *   per kernel: CTA blocks, static table (zstd), CTA index
 *   footer: trace and kernel descriptions
 *   u64 footer offset, "WCTBEND\0"      tail, 16 bytes
 *
 * A CTA block holds per warp a list of chunks, each one zstd frame of at
 * most CHUNK_MAX decoded bytes, so a warp stream is decoded chunk by chunk
 * and memory stays bounded by the live CTAs' warps (one chunk each), as
 * with text.  A dynamic instruction is a tag byte, optionally the id of its
 * static record (else the previous id + 1), its mask (else the previous
 * one) and its addresses as base + stride or raw deltas.  All integers are
 * little-endian.  The writer decodes every instruction it encodes and
 * compares it with the record it read, so the binary form reproduces the
 * text reader's records exactly or is not written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "trace_int.h"

#define TB_MAGIC "WCTRACEB"
#define TB_TAIL "WCTBEND"          /* 8 bytes with its NUL */
#define TB_VERSION 1u
#define CHUNK_MAX (32u << 10)      /* decoded bytes per chunk at most */
#define INST_ENC_MAX (1 + 5 + 4 + 32 * 10) /* longest encoded instruction */
#define INLINE_MAX (48u << 10)     /* inline warp streams per CTA frame */
#define FRAME_MAX (20u + MAX_CTA_WARPS * 20u + INLINE_MAX)
#define REC_SIZE 124u              /* serialized static record */
#define TAB_MAX (1u << 24)         /* static records per kernel at most */
#define FOOT_MAX (256u << 20)      /* footer bytes at most */
#define ZLEVEL 5

enum { T_ID = 1, T_MASK = 2, T_AMODE = 12 };
enum { A_STRIDE = 0, A_ACTIVE = 4, A_ALL = 8 };

enum { TF_ADDR = 1, TF_UNKNOWN = 2 };
_Static_assert(TF_ADDR == WC_RAW_ADDR && TF_UNKNOWN == WC_RAW_UNKNOWN,
               "wc_cta_raw_inst hands out the table flags");

#define ZPOOL 4 /* idle decoders kept per kernel */

struct wctb_kern {
    uint64_t tab_off, tab_csize, ix_off, ix_csize;
    uint32_t tab_n;
    wc_inst *tab; /* static records, once loaded (immutable) */
    /* per static record, loaded with tab: TF_ADDR (has addresses: the
     * full decode) | TF_UNKNOWN (opcode counted as unknown); 0 for the
     * records wc_cta_next_refs hands out by reference at once */
    uint8_t *tfl;
    /* decoders of freed CTAs, reused by the next ones (a ZSTD_DCtx costs
     * more to make than a small CTA to decode); guarded by the trace's
     * mutex */
    void *zpool[ZPOOL];
    unsigned nz;
};

/* ---- little-endian bytes and varints --------------------------------- */

static void put32(unsigned char *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static size_t put_var(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

/* 0 and *v, or -1 (truncated or longer than 64 bits): byte by byte, every
 * byte checked against n. */
static int get_var_slow(const unsigned char *p, size_t n, size_t *at,
                        uint64_t *v)
{
    /* the position in a local, stored once (*at ends past the bytes read,
     * on an error too) */
    size_t a = *at;
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (a >= n) {
            *at = a;
            return -1;
        }
        unsigned char b = p[a++];
        if (i == 9 && b > 1) {
            *at = a;
            return -1;
        }
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *at = a;
            *v = x;
            return 0;
        }
    }
    *at = a;
    return -1;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define VAR_WORD 1 /* 8 varint bytes at once where the buffer has them */
#endif

/* As get_var_slow, the same values, positions and errors: one or two
 * bytes (ids, small deltas) without a loop; up to 8 bytes (the usual address deltas)
 * from one 64-bit load where 8 bytes are left, its 7-bit groups packed by
 * three shift-and-mask steps; the rest byte by byte. */
static inline int get_var(const unsigned char *p, size_t n, size_t *at,
                          uint64_t *v)
{
    size_t a = *at;
    if (a < n) {
        if (p[a] < 0x80) {
            *v = p[a];
            *at = a + 1;
            return 0;
        }
        /* two bytes (shared-memory lane offsets) */
        if (n - a >= 2 && p[a + 1] < 0x80) {
            *v = (uint64_t)(p[a] & 0x7f) | (uint64_t)p[a + 1] << 7;
            *at = a + 2;
            return 0;
        }
#ifdef VAR_WORD
        if (n - a >= 8) {
            uint64_t w;
            memcpy(&w, p + a, 8);
            uint64_t stop = ~w & 0x8080808080808080u;
            if (stop) { /* the last byte: the first without its top bit */
                unsigned nb = ((unsigned)__builtin_ctzll(stop) + 1) / 8;
                if (nb < 8)
                    w &= ((uint64_t)1 << (8 * nb)) - 1;
                w &= 0x7f7f7f7f7f7f7f7fu;
                w = (w & 0x007f007f007f007fu) |
                    (w & 0x7f007f007f007f00u) >> 1;
                w = (w & 0x00003fff00003fffu) |
                    (w & 0x3fff00003fff0000u) >> 2;
                w = (w & 0x000000000fffffffu) |
                    (w & 0x0fffffff00000000u) >> 4;
                *v = w;
                *at = a + nb;
                return 0;
            }
        }
#endif
    }
    return get_var_slow(p, n, at, v);
}

/* get_var where n - *at >= 2 and is still where a record's lane
 * offsets began with room for 10 bytes each (a record's varints take 10
 * bytes at most, so each lane's first two bytes are in p[0..n)): the one-
 * and two-byte ones (the usual lane offsets) without a bounds check. */
static inline int var_roomy(const unsigned char *p, size_t n, size_t *at,
                            uint64_t *v)
{
    size_t a = *at;
    uint64_t x = p[a];
    if (x < 0x80) {
        *v = x;
        *at = a + 1;
        return 0;
    }
    if (p[a + 1] < 0x80) {
        *v = (x & 0x7f) | (uint64_t)p[a + 1] << 7;
        *at = a + 2;
        return 0;
    }
    return get_var(p, n, at, v);
}

static uint64_t zz(uint64_t d) /* zigzag of a wrapping difference */
{
    return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static uint64_t unzz(uint64_t z)
{
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}


/* ---- static records ----------------------------------------------------- */

/* Everything of a wc_inst but mask, line and addr[]. */
static void rec_put(unsigned char *p, const wc_inst *in)
{
    memset(p, 0, REC_SIZE);
    put64(p, in->pc);
    p[8] = (unsigned char)in->op;
    p[9] = (unsigned char)(in->op >> 8);
    p[10] = in->unit;
    p[11] = in->space;
    p[12] = in->width;
    p[13] = in->ndst;
    p[14] = in->nsrc;
    p[15] = in->iflags;
    p[16] = (unsigned char)in->mflags;
    p[17] = (unsigned char)(in->mflags >> 8);
    size_t o = 18;
    for (unsigned i = 0; i < WC_MAX_DST; i++, o += 2)
        p[o] = (unsigned char)in->dst[i],
        p[o + 1] = (unsigned char)(in->dst[i] >> 8);
    for (unsigned i = 0; i < WC_MAX_SRC; i++, o += 2)
        p[o] = (unsigned char)in->src[i],
        p[o + 1] = (unsigned char)(in->src[i] >> 8);
    memcpy(p + o, in->dst_nregs, WC_MAX_DST);
    o += WC_MAX_DST;
    memcpy(p + o, in->src_nregs, WC_MAX_SRC);
    o += WC_MAX_SRC; /* 54 */
    p[o++] = in->ctrl.valid;
    p[o++] = in->ctrl.stall;
    p[o++] = in->ctrl.yield;
    p[o++] = (unsigned char)in->ctrl.wbar;
    p[o++] = (unsigned char)in->ctrl.rbar;
    p[o++] = in->ctrl.wait;
    p[o++] = in->ctrl.reuse;
    p[o++] = (unsigned char)in->depbar_sb;
    p[o++] = in->depbar_le;
    p[o++] = in->depbar_ids; /* 64 */
    put32(p + o, in->const_addr);
    o += 4;
    put64(p + o, (uint64_t)in->imm);
    o += 8; /* 76 */
    size_t ol = strnlen(in->opcode, WC_OPCODE_LEN - 1);
    memcpy(p + o, in->opcode, ol);
}

static int reg_ok(wc_reg r)
{
    return r == WC_REG_NONE || r <= WC_RZ || WC_REG_IS_UR(r) ||
           WC_REG_IS_P(r) || WC_REG_IS_UP(r);
}

/* Decode and check one record: a record the text reader could have made
 * (valid registers and counters; the fields wc_inst_finish derives agree
 * with it).  0, or -1 with *why set. */
static int rec_get(const unsigned char *p, wc_inst *in, const char **why)
{
    static const wc_inst blank = {.depbar_sb = -1};
    *in = blank;
    in->pc = get64(p);
    in->op = (uint16_t)(p[8] | p[9] << 8);
    in->unit = p[10];
    in->space = p[11];
    in->width = p[12];
    in->ndst = p[13];
    in->nsrc = p[14];
    in->iflags = p[15];
    in->mflags = (uint16_t)(p[16] | p[17] << 8);
    size_t o = 18;
    for (unsigned i = 0; i < WC_MAX_DST; i++, o += 2)
        in->dst[i] = (wc_reg)(p[o] | p[o + 1] << 8);
    for (unsigned i = 0; i < WC_MAX_SRC; i++, o += 2)
        in->src[i] = (wc_reg)(p[o] | p[o + 1] << 8);
    memcpy(in->dst_nregs, p + o, WC_MAX_DST);
    o += WC_MAX_DST;
    memcpy(in->src_nregs, p + o, WC_MAX_SRC);
    o += WC_MAX_SRC;
    in->ctrl.valid = p[o++];
    in->ctrl.stall = p[o++];
    in->ctrl.yield = p[o++];
    in->ctrl.wbar = (int8_t)p[o++];
    in->ctrl.rbar = (int8_t)p[o++];
    in->ctrl.wait = p[o++];
    in->ctrl.reuse = p[o++];
    in->depbar_sb = (int8_t)p[o++];
    in->depbar_le = p[o++];
    in->depbar_ids = p[o++];
    in->const_addr = get32(p + o);
    o += 4;
    in->imm = (int64_t)get64(p + o);
    o += 8;
    memcpy(in->opcode, p + o, WC_OPCODE_LEN);
    if (in->opcode[WC_OPCODE_LEN - 1] != '\0') {
        *why = "opcode not terminated";
        return -1;
    }
    if (in->op >= wc_op_count() || in->ndst > WC_MAX_DST ||
        in->nsrc > WC_MAX_SRC) {
        *why = "opcode or operand count out of range";
        return -1;
    }
    for (unsigned i = 0; i < WC_MAX_DST; i++)
        if (!reg_ok(in->dst[i])) {
            *why = "bad destination register";
            return -1;
        }
    for (unsigned i = 0; i < WC_MAX_SRC; i++)
        if (!reg_ok(in->src[i])) {
            *why = "bad source register";
            return -1;
        }
    if (in->ctrl.valid > 1 || in->ctrl.stall > 15 || in->ctrl.yield > 1 ||
        in->ctrl.wbar < -1 || in->ctrl.wbar > 5 || in->ctrl.rbar < -1 ||
        in->ctrl.rbar > 5 || in->ctrl.wait > 63 || in->depbar_sb < -1 ||
        in->depbar_sb > 5) {
        *why = "bad control bits";
        return -1;
    }
    wc_inst f = *in;
    wc_inst_finish(&f);
    if (f.unit != in->unit || f.space != in->space || f.width != in->width ||
        f.mflags != in->mflags || f.iflags != in->iflags ||
        memcmp(f.dst_nregs, in->dst_nregs, WC_MAX_DST) != 0 ||
        memcmp(f.src_nregs, in->src_nregs, WC_MAX_SRC) != 0) {
        *why = "derived fields disagree with the opcode";
        return -1;
    }
    return 0;
}

/* ---- one dynamic instruction -------------------------------------------- */

typedef struct dstate {
    uint32_t pid, pmask;
    uint64_t pbase;
} dstate;

static void dstate_reset(dstate *s)
{
    s->pid = UINT32_MAX;
    s->pmask = UINT32_MAX;
    s->pbase = 0;
}

/* Encode in (static record id) at p; returns the bytes written
 * (<= INST_ENC_MAX). */
static size_t enc_inst(unsigned char *p, dstate *s, uint32_t id,
                       const wc_inst *in)
{
    unsigned char tag = 0;
    size_t n = 1;
    if (id != s->pid + 1) {
        tag |= T_ID;
        n += put_var(p + n, id);
    }
    if (in->mask != s->pmask) {
        tag |= T_MASK;
        put32(p + n, in->mask);
        n += 4;
    }
    s->pid = id;
    s->pmask = in->mask;
    if (in->iflags & WC_IF_HAS_ADDR) {
        uint32_t m = in->mask;
        int inact_zero = 1;
        for (unsigned l = 0; l < WC_WARP_SIZE; l++)
            if (!(m >> l & 1) && in->addr[l])
                inact_zero = 0;
        int mode = A_ALL;
        uint64_t base = in->addr[0], stride = 0;
        if (m && inact_zero) {
            unsigned f = (unsigned)__builtin_ctz(m);
            base = in->addr[f];
            mode = A_STRIDE;
            uint32_t rest = m & (m - 1);
            if (rest) {
                unsigned l2 = (unsigned)__builtin_ctz(rest);
                stride = (uint64_t)((int64_t)(in->addr[l2] - base) /
                                    (int64_t)(l2 - f));
            }
            for (unsigned l = f; l < WC_WARP_SIZE && mode == A_STRIDE; l++)
                if ((m >> l & 1) && in->addr[l] != base + stride * (l - f))
                    mode = A_ACTIVE;
        }
        tag = (unsigned char)(tag | mode);
        n += put_var(p + n, zz(base - s->pbase));
        s->pbase = base;
        if (mode == A_STRIDE) {
            n += put_var(p + n, zz(stride));
        } else if (mode == A_ACTIVE) {
            for (uint32_t r = m & (m - 1); r; r &= r - 1)
                n += put_var(p + n, zz(in->addr[__builtin_ctz(r)] - base));
        } else {
            for (unsigned l = 1; l < WC_WARP_SIZE; l++)
                n += put_var(p + n, zz(in->addr[l] - base));
        }
    }
    p[0] = tag;
    return n;
}

/* The fields of r before addr[] into in, as memcpy (offsetof(wc_inst,
 * addr) bytes, r's addr[0] with them: the caller writes every lane after):
 * whole vectors (the memcpy here compiled to 17 word moves, 40 host
 * instructions a record). */
static inline void rec_head(wc_inst *in, const wc_inst *r)
{
#if defined(__SSE2__)
    enum { NV = (offsetof(wc_inst, addr) + 15) / 16 };
    _Static_assert(NV * 16 <= offsetof(wc_inst, addr) + sizeof r->addr,
                   "the head's last vector stays inside the record");
    const unsigned char *f = (const unsigned char *)r;
    unsigned char *t = (unsigned char *)in;
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (unsigned i = 0; i < NV; i++)
        _mm_storeu_si128((__m128i *)(void *)(t + 16 * i),
                         _mm_loadu_si128((const __m128i *)(const void *)(f + 16 * i)));
#else
    memcpy(in, r, offsetof(wc_inst, addr));
#endif
}

/* Every lane of in at base + stride * l (mod 2^64): a strided full warp,
 * which in->lanes_affine then says (the table's record says 0). */
static inline void lanes_strided(wc_inst *in, uint64_t base, uint64_t stride)
{
#if defined(__SSE2__)
    /* base + stride * l (mod 2^64), two lanes a vector */
    __m128i e = _mm_set_epi64x((long long)(base + stride), (long long)base);
    __m128i s2 = _mm_set1_epi64x((long long)(2 * stride));
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (unsigned l = 0; l < WC_WARP_SIZE; l += 2) {
        _mm_storeu_si128((__m128i *)(void *)&in->addr[l], e);
        e = _mm_add_epi64(e, s2);
    }
#else
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in->addr[l] = base + stride * l;
#endif
    in->lanes_affine = 1;
}

/* An instruction's head at p[*a .. n): its tag, record id (from its bytes,
 * else the one after pid) and mask (from its bytes, else pmask); *a moves
 * past it.  The tag, or -1 with *why (*a where the bytes went wrong). */
static inline int dec_head(const unsigned char *p, size_t n, size_t *a,
                           uint32_t pid, uint32_t pmask, uint32_t ntab,
                           uint32_t *id, uint32_t *mask, const char **why)
{
    if (*a >= n) {
        *why = "chunk ends inside an instruction";
        return -1;
    }
    unsigned tag = p[(*a)++];
    uint64_t v;
    *id = pid + 1;
    if (tag & ~(unsigned)(T_ID | T_MASK | T_AMODE)) {
        *why = "bad instruction tag";
        return -1;
    }
    if (tag & T_ID) {
        if (get_var(p, n, a, &v) != 0 || v >= ntab) {
            *why = "bad static record id";
            return -1;
        }
        *id = (uint32_t)v;
    } else if (*id >= ntab) {
        *why = "static record id past the table";
        return -1;
    }
    *mask = pmask;
    if (tag & T_MASK) {
        if (n - *a < 4) {
            *why = "chunk ends inside a mask";
            return -1;
        }
        *mask = get32(p + *a);
        *a += 4;
    }
    return (int)tag;
}

/* Decode one instruction from p[*at..n).  0, or -1 with *why. */
static int dec_inst(const unsigned char *p, size_t n, size_t *at, dstate *s,
                    const wc_inst *tab, uint32_t ntab, wc_inst *in,
                    const char **why)
{
    /* the position in a local (a store to in->addr[] could alias *at),
     * stored back on every return */
    size_t a = *at;
    uint32_t id, mask;
    uint64_t v;
    int tg = dec_head(p, n, &a, s->pid, s->pmask, ntab, &id, &mask, why);
    if (tg < 0) {
        *at = a;
        return -1;
    }
    unsigned tag = (unsigned)tg;
    s->pid = id;
    s->pmask = mask;
    const wc_inst *r = &tab[id];
    /* one fixed-size copy (the table's opcode text is NUL-padded) */
    memcpy(in, r, offsetof(wc_inst, addr));
    in->mask = mask;
    in->line = 0;
    unsigned mode = tag & T_AMODE;
    if (!(r->iflags & WC_IF_HAS_ADDR)) {
        if (mode) {
            *why = "addresses for an instruction without";
            *at = a;
            return -1;
        }
        *at = a;
        return 0;
    }
    if (mode == T_AMODE || (mode != A_ALL && !mask)) {
        *why = "bad address mode";
        *at = a;
        return -1;
    }
    if (get_var(p, n, &a, &v) != 0) {
        *why = "bad address";
        *at = a;
        return -1;
    }
    uint64_t base = s->pbase + unzz(v);
    s->pbase = base;
    if (mode == A_ALL) {
        in->addr[0] = base;
        int roomy = n - a >= 10 * WC_WARP_SIZE;
        for (unsigned l = 1; l < WC_WARP_SIZE; l++) {
            if ((roomy ? var_roomy(p, n, &a, &v) : get_var(p, n, &a, &v)) !=
                0) {
                *why = "bad address";
                *at = a;
                return -1;
            }
            in->addr[l] = base + unzz(v);
        }
        *at = a;
        return 0;
    }
    if (mode == A_STRIDE && mask == 0xffffffffu) { /* every lane written */
        if (get_var(p, n, &a, &v) != 0) {
            *why = "bad address stride";
            *at = a;
            return -1;
        }
        lanes_strided(in, base, unzz(v));
        *at = a;
        return 0;
    }
    if (mask != 0xffffffffu) /* else every lane is written below */
        memset(in->addr, 0, sizeof in->addr);
    unsigned f = (unsigned)__builtin_ctz(mask);
    in->addr[f] = base;
    if (mode == A_STRIDE) {
        if (get_var(p, n, &a, &v) != 0) {
            *why = "bad address stride";
            *at = a;
            return -1;
        }
        uint64_t stride = unzz(v);
        for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctz(m);
            in->addr[l] = base + stride * (l - f);
        }
        *at = a;
        return 0;
    }
    uint32_t m = mask & (mask - 1);
    if (n - a >= 10 * WC_WARP_SIZE) { /* see var_roomy */
        for (; m; m &= m - 1) {
            if (var_roomy(p, n, &a, &v) != 0) {
                *why = "bad address";
                *at = a;
                return -1;
            }
            in->addr[__builtin_ctz(m)] = base + unzz(v);
        }
        *at = a;
        return 0;
    }
    for (; m; m &= m - 1) {
        if (get_var(p, n, &a, &v) != 0) {
            *why = "bad address";
            *at = a;
            return -1;
        }
        in->addr[__builtin_ctz(m)] = base + unzz(v);
    }
    *at = a;
    return 0;
}

/* ---- reading ------------------------------------------------------------- */

static int rd(int fd, void *buf, size_t n, uint64_t off)
{
    unsigned char *p = buf;
    while (n) {
        ssize_t g = pread(fd, p, n, (off_t)off);
        if (g < 0 && errno == EINTR)
            continue;
        if (g <= 0)
            return -1;
        p += g;
        n -= (size_t)g;
        off += (uint64_t)g;
    }
    return 0;
}

static int berr(wc_diag *d, const char *path, uint64_t off, const char *fmt,
                const char *what)
{
    return wc_diag_set(d, WC_EINPUT, path, off ? (long)off : 1, 0,
                       "binary trace (position is a byte offset): %s%s", fmt,
                       what ? what : "");
}

static int noomem(wc_diag *d)
{
    return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
}

int wctb_sniff(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    char m[8];
    int r = rd(fd, m, 8, 0) == 0 && memcmp(m, TB_MAGIC, 8) == 0;
    close(fd);
    return r;
}

/* Footer cursor. */
typedef struct fcur {
    const unsigned char *p;
    size_t n, at;
    int bad;
} fcur;

static uint64_t f64(fcur *c)
{
    if (c->n - c->at < 8) {
        c->bad = 1;
        return 0;
    }
    c->at += 8;
    return get64(c->p + c->at - 8);
}

static uint32_t f32(fcur *c)
{
    if (c->n - c->at < 4) {
        c->bad = 1;
        return 0;
    }
    c->at += 4;
    return get32(c->p + c->at - 4);
}

static const char *fstr(fcur *c, wc_trace *t, int *oomp)
{
    uint32_t l = f32(c);
    if (c->bad || l > WC_KERNEL_NAME_MAX || c->n - c->at < l) {
        c->bad = 1;
        return NULL;
    }
    c->at += l;
    if (memchr(c->p + c->at - l, '\0', l)) {
        c->bad = 1;
        return NULL;
    }
    const char *s = wct_intern(t, (const char *)c->p + c->at - l, l);
    if (!s)
        *oomp = 1;
    return s;
}

int wctb_open(wc_trace *t, const char *path, wc_diag *d)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return wc_diag_set(d, WC_EINPUT, path, 0, 0, "cannot open: %s",
                           strerror(errno));
    struct stat st;
    unsigned char hdr[16], tail[24];
    unsigned char *foot = NULL;
    int rc = 0;
    if (fstat(fd, &st) != 0 || st.st_size < 40 || rd(fd, hdr, 16, 0) != 0 ||
        rd(fd, tail, 24, (uint64_t)st.st_size - 24) != 0) {
        rc = berr(d, path, 0, "file too short (truncated?)", NULL);
        goto out;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (memcmp(hdr, TB_MAGIC, 8) != 0 || get32(hdr + 12) != 0) {
        rc = berr(d, path, 0, "bad file header", NULL);
        goto out;
    }
    if (get32(hdr + 8) != TB_VERSION) {
        rc = wc_diag_set(d, WC_EINPUT, path, 0, 0,
                         "binary trace version %u; this warpcast reads "
                         "version %u (convert the text trace again)",
                         get32(hdr + 8), TB_VERSION);
        goto out;
    }
    if (memcmp(tail + 16, TB_TAIL, 8) != 0) {
        rc = berr(d, path, size - 8, "no end marker (truncated?)", NULL);
        goto out;
    }
    uint64_t foff = get64(tail);
    if (foff < 16 || foff > size - 24 || size - 24 - foff > FOOT_MAX) {
        rc = berr(d, path, size - 24, "bad footer offset", NULL);
        goto out;
    }
    size_t fl = (size_t)(size - 24 - foff);
    foot = malloc(fl ? fl : 1);
    if (!foot) {
        rc = noomem(d);
        goto out;
    }
    if (rd(fd, foot, fl, foff) != 0) {
        rc = berr(d, path, foff, "cannot read the footer", NULL);
        goto out;
    }
    if (wc_fnv1a(WC_FNV1A_INIT, foot, fl) != get64(tail + 8)) {
        rc = berr(d, path, foff, "footer checksum mismatch (corrupt file)",
                  NULL);
        goto out;
    }
    fcur c = {foot, fl, 0, 0};
    int oomf = 0;
    t->ncopy = f64(&c);
    t->copy_bytes = f64(&c);
    uint32_t nk = f32(&c);
    const char *ipath = wct_intern(t, path, strlen(path));
    if (!ipath) {
        rc = noomem(d);
        goto out;
    }
    for (uint32_t i = 0; i < nk && !c.bad; i++) {
        uint64_t at = foff + c.at;
        kent *k = wct_add_kernel(t, d);
        if (!k) {
            rc = WC_EINTERNAL;
            goto out;
        }
        k->kind = KIND_BIN;
        k->ctrl_chk = 2;
        wc_kernel_info *ki = &k->info;
        ki->path = ipath;
        ki->id = (int)f32(&c);
        for (unsigned j = 0; j < 3; j++)
            ki->grid[j] = f32(&c);
        for (unsigned j = 0; j < 3; j++)
            ki->block[j] = f32(&c);
        ki->shmem = (long)f64(&c);
        ki->nregs = (long)f64(&c);
        ki->binary_version = (int)f32(&c);
        ki->stream = (int)f32(&c);
        ki->tracer_version = (int)f32(&c);
        ki->shmem_base = f64(&c);
        ki->local_base = f64(&c);
        ki->has_ctrl = f32(&c) != 0;
        ki->ctas = f64(&c);
        struct wctb_kern *b = calloc(1, sizeof *b);
        if (!b) {
            rc = noomem(d);
            goto out;
        }
        k->bin = b;
        b->tab_off = f64(&c);
        b->tab_csize = f64(&c);
        b->tab_n = f32(&c);
        b->ix_off = f64(&c);
        b->ix_csize = f64(&c);
        ki->name = fstr(&c, t, &oomf);
        uint32_t hasnote = f32(&c);
        ki->ctrl_note = hasnote ? fstr(&c, t, &oomf) : NULL;
        if (oomf) {
            rc = noomem(d);
            goto out;
        }
        if (c.bad)
            break;
        uint64_t thr = (uint64_t)ki->block[0] * ki->block[1] * ki->block[2];
        ki->warps_per_cta = (thr + WC_WARP_SIZE - 1) / WC_WARP_SIZE;
        int bad = 0;
        for (unsigned j = 0; j < 3; j++)
            bad |= ki->grid[j] == 0 || ki->block[j] == 0;
        if (bad || ki->ctas != (uint64_t)ki->grid[0] * ki->grid[1] *
                                   ki->grid[2] ||
            ki->tracer_version < 3 || ki->tracer_version > 6 ||
            ki->ctas > size / 8 || b->tab_n > TAB_MAX ||
            b->tab_off > foff || b->tab_csize > foff - b->tab_off ||
            b->ix_off > foff || b->ix_csize > foff - b->ix_off) {
            rc = berr(d, path, at, "bad kernel description", NULL);
            goto out;
        }
    }
    if (c.bad || c.at != c.n)
        rc = berr(d, path, foff + c.at, "bad footer", NULL);
out:
    free(foot);
    close(fd);
    return rc;
}

/* Load kernel k's static table and CTA index (once; the first load wins). */
int wctb_load(wc_trace *t, kent *k, wc_diag *d)
{
    pthread_mutex_lock(&t->mu);
    int done = k->bin->tab && k->ix;
    pthread_mutex_unlock(&t->mu);
    if (done)
        return 0;
    const char *path = k->info.path;
    struct wctb_kern *b = k->bin;
    uint64_t n = k->info.ctas;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return wc_diag_set(d, WC_EINPUT, path, 0, 0, "cannot open: %s",
                           strerror(errno));
    int rc = 0;
    unsigned char *cz = malloc(b->tab_csize ? (size_t)b->tab_csize : 1);
    size_t rawn = (size_t)b->tab_n * REC_SIZE;
    unsigned char *raw = malloc(rawn ? rawn : 1);
    wc_inst *tab = calloc(b->tab_n ? b->tab_n : 1, sizeof *tab);
    uint8_t *tfl = calloc(b->tab_n ? b->tab_n : 1, 1);
    unsigned char *ixb = malloc((size_t)(2 * n + 1) * 8);
    ctaix *ix = calloc(1, sizeof *ix);
    if (ix) {
        ix->off = malloc((size_t)(n + 1) * sizeof *ix->off);
        ix->insts = malloc((size_t)(n ? n : 1) * sizeof *ix->insts);
    }
    if (!cz || !raw || !tab || !tfl || !ixb || !ix || !ix->off ||
        !ix->insts) {
        rc = noomem(d);
        goto out;
    }
    if (rd(fd, cz, (size_t)b->tab_csize, b->tab_off) != 0) {
        rc = berr(d, path, b->tab_off, "cannot read the static table",
                  NULL);
        goto out;
    }
    size_t g = ZSTD_decompress(raw, rawn, cz, (size_t)b->tab_csize);
    if (ZSTD_isError(g) || g != rawn) {
        rc = berr(d, path, b->tab_off, "corrupt static table",
                  ZSTD_isError(g) ? "" : " (wrong size)");
        goto out;
    }
    for (uint32_t i = 0; i < b->tab_n; i++) {
        const char *why = NULL;
        if (rec_get(raw + (size_t)i * REC_SIZE, &tab[i], &why) != 0) {
            char m[96];
            snprintf(m, sizeof m, "static record %u: %s", i, why);
            rc = berr(d, path, b->tab_off, m, NULL);
            goto out;
        }
        tfl[i] = (uint8_t)(((tab[i].iflags & WC_IF_HAS_ADDR) ? TF_ADDR : 0) |
                           (tab[i].op == WC_OP_UNKNOWN ? TF_UNKNOWN : 0));
    }
    unsigned char *ixz = malloc(b->ix_csize ? (size_t)b->ix_csize : 1);
    if (!ixz) {
        rc = noomem(d);
        goto out;
    }
    if (rd(fd, ixz, (size_t)b->ix_csize, b->ix_off) != 0) {
        free(ixz);
        rc = berr(d, path, b->ix_off, "cannot read the CTA index", NULL);
        goto out;
    }
    g = ZSTD_decompress(ixb, (size_t)(2 * n + 1) * 8, ixz,
                        (size_t)b->ix_csize);
    free(ixz);
    if (ZSTD_isError(g) || g != (size_t)(2 * n + 1) * 8) {
        rc = berr(d, path, b->ix_off, "corrupt CTA index", NULL);
        goto out;
    }
    ix->n = n;
    uint64_t sum = 0;
    for (uint64_t i = 0; i <= n; i++) {
        ix->off[i] = get64(ixb + 8 * i);
        if (i < n)
            ix->insts[i] = get64(ixb + 8 * (n + 1 + i));
        if ((i == 0 && ix->off[0] < 16) ||
            (i > 0 && ix->off[i] <= ix->off[i - 1]) ||
            ix->off[i] > b->tab_off ||
            (i < n && (sum += ix->insts[i]) < ix->insts[i])) {
            rc = berr(d, path, b->ix_off, "corrupt CTA index", NULL);
            goto out;
        }
    }
    pthread_mutex_lock(&t->mu);
    if (!b->tab)
        b->tab = tab, b->tfl = tfl, tab = NULL, tfl = NULL;
    if (!k->ix)
        k->ix = ix, ix = NULL;
    pthread_mutex_unlock(&t->mu);
out:
    close(fd);
    free(cz);
    free(raw);
    free(tab);
    free(tfl);
    free(ixb);
    if (ix) {
        free(ix->off);
        free(ix->insts);
        free(ix);
    }
    return rc;
}

/* Decompress the cs bytes at src (read from file offset off, or NULL:
 * read them at off into c->cbuf first) into *dst (capacity cap, malloc'd
 * when NULL); the result must be ds bytes. */
static int unzip_at(wc_cta *c, const unsigned char *src, uint64_t off,
                    uint32_t cs, uint32_t ds, unsigned char **dst,
                    size_t cap, wc_diag *d)
{
    const char *path = c->k->info.path;
    if (!src && c->ccap < cs) {
        unsigned char *nb = realloc(c->cbuf, cs);
        if (!nb)
            return noomem(d);
        c->cbuf = nb;
        c->ccap = cs;
    }
    if (!*dst && !(*dst = malloc(cap ? cap : 1)))
        return noomem(d);
    if (!c->zdc && !(c->zdc = ZSTD_createDCtx()))
        return noomem(d);
    if (!src) {
        if (rd(c->src->fd, c->cbuf, cs, off) != 0)
            return berr(d, path, off, "truncated block", NULL);
        src = c->cbuf;
    }
    size_t g = ZSTD_decompressDCtx(c->zdc, *dst, cap, src, cs);
    if (ZSTD_isError(g) || g != ds)
        return berr(d, path, off, "corrupt block", NULL);
    return 0;
}

/* Read-ahead of the CTA blocks (speed: a kernel of many small CTAs took
 * two pread calls per CTA): the reader's line buffer r->b, which binary
 * traces do not use otherwise, holds up to RA_BYTES of the kernel's CTA
 * blocks from file offset r->b.off.  The bytes [off, end) of a CTA block
 * in it, refilled from off when they are not; NULL when the block is
 * larger than the buffer or the read fails (the caller then reads as
 * before, with its diagnostics). */
#define RA_BYTES (256u << 10)
static const unsigned char *cta_bytes(wc_kreader *r, uint64_t off,
                                      uint64_t end)
{
    lbuf *b = &r->b;
    if (b->buf && off >= b->off && end <= b->off + b->end)
        return (const unsigned char *)b->buf + (off - b->off);
    if (end - off > RA_BYTES)
        return NULL;
    if (!b->buf) {
        if (!(b->buf = malloc(RA_BYTES)))
            return NULL;
        b->cap = RA_BYTES;
    }
    const ctaix *ix = r->k->ix;
    uint64_t lim = ix->off[ix->n], n = RA_BYTES;
    if (lim > off && lim - off < n)
        n = lim - off;
    if (n < end - off)
        n = end - off;
    b->end = 0; /* nothing held until the read succeeds */
    if (rd(r->src->fd, b->buf, (size_t)n, off) != 0)
        return NULL;
    b->off = off;
    b->end = (size_t)n;
    return (const unsigned char *)b->buf;
}

/* c's decoder back to the kernel's pool b while it has room (mu: the
 * trace's lock); when it does not fit it stays with c. */
static void to_pool(pthread_mutex_t *mu, struct wctb_kern *b, wc_cta *c)
{
    if (!c->zdc)
        return;
    pthread_mutex_lock(mu);
    if (b->nz < ZPOOL) {
        b->zpool[b->nz++] = c->zdc;
        c->zdc = NULL;
    }
    pthread_mutex_unlock(mu);
}

/* CTA r->cta into c: 1, 0 at the end of the kernel, or -code. */
int wctb_cta(wc_kreader *r, wc_cta *c, wc_diag *d)
{
    kent *k = r->k;
    const wc_kernel_info *ki = &k->info;
    const ctaix *ix = k->ix;
    if (r->cta >= ix->n)
        return 0;
    uint64_t off = ix->off[r->cta], end = ix->off[r->cta + 1];
    unsigned char h[8];
    c->src = r->src; /* for unzip_at; the caller takes the reference */
    const unsigned char *blk = end - off >= 8 ? cta_bytes(r, off, end) : NULL;
    if (blk)
        memcpy(h, blk, 8);
    else if (end - off < 8 || rd(r->src->fd, h, 8, off) != 0)
        return -berr(d, ki->path, off, "truncated thread block", NULL);
    uint32_t cs = get32(h), ds = get32(h + 4);
    if (cs > end - off - 8 || ds < 20 || ds > FRAME_MAX)
        return -berr(d, ki->path, off, "bad thread block header", NULL);
    if (!c->zdc) { /* an idle decoder, if any */
        struct wctb_kern *b = k->bin;
        pthread_mutex_lock(&r->t->mu);
        if (b->nz)
            c->zdc = b->zpool[--b->nz];
        pthread_mutex_unlock(&r->t->mu);
    }
    /* The frame is made ds bytes, not FRAME_MAX: the detailed model holds
     * a GPU's worth of resident CTAs (1056 on an H100), and FRAME_MAX
     * (68 KB) buffers put each one's few hundred bytes on pages of their
     * own (strided2 1024 x 256: 71 MB of frames holding 0.41 MB, 404 bytes
     * a CTA): host page faults and TLB misses on every refill of a warp's
     * stream. */
    free(c->frame);
    c->frame = NULL;
    int rc = unzip_at(c, blk ? blk + 8 : NULL, off + 8, cs, ds, &c->frame,
                      ds, d);
    if (rc)
        return -rc;
    const unsigned char *f = c->frame;
    uint32_t nw = get32(f + 12), chunked = get32(f + 16);
    for (unsigned j = 0; j < 3; j++)
        c->idx[j] = get32(f + 4 * j);
    if (nw != ki->warps_per_cta || nw > MAX_CTA_WARPS || chunked > 1 ||
        (ds - 20) / 20 < nw)
        return -berr(d, ki->path, off, "bad warp count in thread block",
                     NULL);
    if (c->idx[0] >= ki->grid[0] || c->idx[1] >= ki->grid[1] ||
        c->idx[2] >= ki->grid[2])
        return -berr(d, ki->path, off, "thread block outside the grid", NULL);
    if (!(c->w = calloc(nw ? nw : 1, sizeof *c->w)))
        return -noomem(d);
    uint64_t seen[MAX_CTA_WARPS / 64] = {0};
    /* inline streams follow the warp records in the frame; chunk lists
     * follow the frame in the file */
    uint64_t ipos = 20 + (uint64_t)nw * 20, fpos = off + 8 + cs, tot = 0;
    for (uint32_t w = 0; w < nw; w++) {
        wstream *s = &c->w[w];
        const unsigned char *wr = f + 20 + 20 * w;
        uint32_t id = get32(wr);
        s->id = id;
        s->n = get64(wr + 4);
        uint64_t len = get64(wr + 12);
        uint64_t room = chunked ? end - fpos : ds - ipos;
        if (id >= nw || (seen[id / 64] >> (id % 64) & 1) || len > room ||
            (s->n && !len) || s->n > len * CHUNK_MAX) {
            rc = berr(d, ki->path, off, "bad warp record in thread block",
                      NULL);
            goto fail;
        }
        seen[id / 64] |= 1ull << (id % 64);
        if (chunked) {
            s->off0 = s->pos = fpos;
            s->end = fpos + len;
            fpos += len;
        } else {
            s->inl = 1;
            s->off0 = ipos;
            s->end = ipos + len;
            ipos += len;
            wctb_rewind(s);
        }
        tot += s->n;
    }
    if ((chunked ? fpos != end : ipos != ds || off + 8 + cs != end) ||
        tot != ix->insts[r->cta]) {
        rc = berr(d, ki->path, off,
                  "thread block size disagrees with the CTA index", NULL);
        goto fail;
    }
    c->nwarps = nw;
    r->cta++;
    /* Every stream inline in the frame: the decoder is not needed again,
     * so it goes back to the kernel's pool now rather than when the CTA is
     * freed.  The detailed model holds a GPU's worth of resident CTAs (1056
     * on an H100), which made and freed a decoder per CTA beyond the
     * pool's ZPOOL (ZSTD_createDCtx in its profile). */
    if (!chunked)
        to_pool(&r->t->mu, k->bin, c);
    return 1;
fail:
    free(c->w);
    c->w = NULL;
    return -rc;
}

/* The next chunk of s into s->dec (s->cleft == 0): 0 or -code. */
static int next_chunk(wc_cta *c, wstream *s, wc_diag *d)
{
    const char *path = c->k->info.path;
    if (s->dpos != s->dlen || s->inl)
        return -berr(d, path, s->pos, "bytes left after a chunk", NULL);
    unsigned char h[12];
    if (s->end - s->pos < 12 || rd(c->src->fd, h, 12, s->pos) != 0)
        return -berr(d, path, s->pos, "warp stream ends early", NULL);
    uint32_t cs = get32(h), ds = get32(h + 4), ni = get32(h + 8);
    if (ds == 0 || ds > CHUNK_MAX || ni == 0 || ni > s->n - s->done ||
        cs > s->end - s->pos - 12 || cs > ZSTD_compressBound(CHUNK_MAX))
        return -berr(d, path, s->pos, "bad chunk header", NULL);
    int rc = unzip_at(c, NULL, s->pos + 12, cs, ds, &s->dec, CHUNK_MAX, d);
    if (rc)
        return -rc;
    s->dcap = CHUNK_MAX;
    s->pos += 12 + cs;
    s->dlen = ds;
    s->dpos = 0;
    s->cleft = ni;
    s->pid = UINT32_MAX;
    s->pmask = UINT32_MAX;
    s->pbase = 0;
    return 0;
}

/* The next instruction of s into in, s->cleft > 0: 1 or -code. */
static inline int next_one(wc_cta *c, wstream *s, wc_inst *in, wc_diag *d)
{
    const struct wctb_kern *b = c->k->bin;
    dstate st = {s->pid, s->pmask, s->pbase};
    const char *why = NULL;
    const unsigned char *src = s->inl ? c->frame : s->dec;
    if (dec_inst(src, s->dlen, &s->dpos, &st, b->tab, b->tab_n, in, &why) !=
        0)
        return -berr(d, c->k->info.path,
                     s->inl ? c->k->ix->off[0] : s->pos,
                     s->inl ? "in a thread block: "
                            : "in the chunk before: ",
                     why);
    s->pid = st.pid;
    s->pmask = st.pmask;
    s->pbase = st.pbase;
    s->cleft--;
    s->done++;
    return 1;
}

int wctb_next(wc_cta *c, wstream *s, wc_inst *in, wc_diag *d)
{
    if (s->cleft == 0) {
        int rc = next_chunk(c, s, d);
        if (rc)
            return rc;
    }
    return next_one(c, s, in, d);
}

int wc_cta_next_refs(wc_cta *c, unsigned w, wc_inst *buf, wc_iref *r,
                     size_t max, size_t *n, wc_diag *d)
{
    return wc_cta_next_refs_bufs(c, w, buf, 1, r, max, n, d);
}

void wc_cta_next_addrs(const wc_cta *c, unsigned w, const void *out[2])
{
    const wstream *s = w < c->nwarps ? &c->w[w] : NULL;
    out[0] = s;
    out[1] = NULL;
    if (s && c->k->kind == KIND_BIN && s->done < s->n && s->cleft > 0 &&
        s->dpos < s->dlen)
        out[1] = (s->inl ? c->frame : s->dec) + s->dpos;
}

int wc_cta_next_refs_bufs(wc_cta *c, unsigned w, wc_inst *buf, size_t nbuf,
                          wc_iref *r, size_t max, size_t *n, wc_diag *d)
{
    *n = 0;
    wstream *s = w < c->nwarps ? &c->w[w] : NULL;
    if (c->k->kind != KIND_BIN || !s || s->done >= s->n || max == 0) {
        /* text, microbenchmarks, the end and errors: the full record */
        int g = wc_cta_next(c, w, buf, d);
        r->in = buf;
        r->mask = buf->mask;
        r->sid = WC_SID_NONE;
        *n = g == 1;
        return g;
    }
    const struct wctb_kern *b = c->k->bin;
    const wc_inst *tab = b->tab;
    const uint8_t *tfl = b->tfl;
    const uint32_t ntab = b->tab_n;
    size_t k = 0;
    wc_inst *const bend = buf + (nbuf ? nbuf - 1 : 0); /* the last buffer */
    while (k < max && s->done < s->n) {
        if (s->cleft == 0) {
            int rc = next_chunk(c, s, d);
            if (rc)
                return rc;
        }
        /* this chunk's instructions without addresses, in locals (the
         * stores to r[] cannot alias them); tag, id and mask here, a
         * record with addresses or anything odd through dec_inst (the
         * full decode and its checks) */
        const unsigned char *p = s->inl ? c->frame : s->dec;
        size_t len = s->dlen, at = s->dpos;
        uint32_t pid = s->pid, pmask = s->pmask;
        uint64_t room = max - k;
        if (s->cleft < room)
            room = s->cleft;
        uint64_t took = 0;
        while (took < room && at < len) {
            /* the usual instruction first: tag 0 (the next record, the
             * same mask) on a record without addresses */
            if (p[at] == 0) {
                uint64_t lim = room - took;
                if (len - at < lim)
                    lim = len - at;
                uint32_t id = pid + 1;
                if (id >= ntab)
                    lim = 0;
                else if (ntab - id < lim)
                    lim = ntab - id;
                /* the run of tags 0 on records without addresses, stored
                 * as found (j < lim <= max - k: inside r[]) */
                const unsigned char *q = p + at;
                const uint8_t *fl = tfl + id;
                const wc_inst *t = tab + id;
                wc_iref *o = r + k;
                uint64_t j = 0;
                while (j < lim && q[j] == 0 && !fl[j]) {
                    o[j].in = t + j;
                    o[j].mask = pmask;
                    o[j].sid = id + (uint32_t)j;
                    j++;
                }
                if (j) {
                    pid = id + (uint32_t)(j - 1);
                    at += (size_t)j;
                    k += (size_t)j;
                    took += j;
                    continue;
                }
            }
            size_t a = at;
            unsigned tag = p[a++];
            uint32_t id = pid + 1, mask = pmask;
            if (tag & ~(unsigned)(T_ID | T_MASK))
                break;
            if (tag & T_ID) {
                uint64_t v;
                if (get_var(p, len, &a, &v) != 0 || v >= ntab)
                    break;
                id = (uint32_t)v;
            } else if (id >= ntab) {
                break;
            }
            if (tag & T_MASK) {
                if (len - a < 4)
                    break;
                mask = get32(p + a);
                a += 4;
            }
            if (tfl[id] & TF_ADDR) {
                /* a strided full warp (tag mode A_STRIDE, 0: the usual
                 * global access) decoded here, as dec_inst would (same
                 * record, same stream state), without its call and the
                 * checks the lines above made; anything else, or a varint
                 * that does not read, through next_one below */
                uint64_t vb, vs;
                size_t e = a;
                if (mask != 0xffffffffu || get_var(p, len, &e, &vb) != 0 ||
                    get_var(p, len, &e, &vs) != 0)
                    break;
                uint64_t base = s->pbase + unzz(vb);
                rec_head(buf, &tab[id]);
                buf->mask = mask;
                buf->line = 0;
                lanes_strided(buf, base, unzz(vs));
                s->pbase = base;
                if (buf->op == WC_OP_UNKNOWN)
                    wct_count_unknown(c->t, buf->opcode);
                r[k].in = buf;
                r[k].mask = mask;
                r[k].sid = id;
                if (buf == bend) { /* the last buffer is taken */
                    s->dpos = e;
                    s->pid = id;
                    s->pmask = mask;
                    s->cleft -= took + 1;
                    s->done += took + 1;
                    *n = k + 1;
                    return 1;
                }
                buf++; /* the next record goes on in this batch */
                at = e;
                pid = id;
                pmask = mask;
                k++;
                took++;
                continue;
            }
            at = a;
            pid = id;
            pmask = mask;
            if (tfl[id] & TF_UNKNOWN)
                wct_count_unknown(c->t, tab[id].opcode);
            r[k].in = &tab[id];
            r[k].mask = mask;
            r[k].sid = id;
            k++;
            took++;
        }
        s->dpos = at;
        s->pid = pid;
        s->pmask = pmask;
        s->cleft -= took;
        s->done += took;
        if (took == room)
            continue;
        /* took < room <= s->cleft: no new chunk before it */
        int g = next_one(c, s, buf, d);
        if (g != 1)
            return g;
        if (buf->op == WC_OP_UNKNOWN)
            wct_count_unknown(c->t, buf->opcode);
        r[k].in = buf;
        r[k].mask = buf->mask;
        r[k].sid = s->pid;
        k++;
        break; /* buf is taken */
    }
    *n = k;
    return 1;
}

/* ---- encoded streams by bytes (wc_trace.h) ------------------------------ */

int wc_cta_raw(const wc_cta *c, unsigned w, const unsigned char **p,
               size_t *len, uint64_t *n)
{
    if (!c || c->k->kind != KIND_BIN || w >= c->nwarps || !c->frame)
        return 0;
    const wstream *s = &c->w[w];
    /* unread: wctb_rewind's state, nothing done */
    if (!s->inl || s->done || s->n == 0 || s->dpos != (size_t)s->off0 ||
        s->end < s->off0)
        return 0;
    *p = c->frame + s->off0;
    *len = (size_t)(s->end - s->off0);
    *n = s->n;
    return 1;
}

void wc_rawpos_init(wc_rawpos *s)
{
    s->at = 0;
    s->pid = UINT32_MAX;
    s->pmask = UINT32_MAX;
    s->pbase = 0;
}

int wc_cta_raw_inst(const wc_cta *c, const unsigned char *p, size_t len,
                    wc_rawpos *s, wc_inst *in, uint32_t *sid,
                    unsigned *flags)
{
    if (!c || c->k->kind != KIND_BIN || !c->k->bin->tab)
        return -1;
    const struct wctb_kern *b = c->k->bin;
    dstate st = {s->pid, s->pmask, s->pbase};
    const char *why = NULL;
    size_t at = s->at;
    unsigned masked = at < len && (p[at] & T_MASK) ? WC_RAW_MASKED : 0u;
    if (dec_inst(p, len, &at, &st, b->tab, b->tab_n, in, &why) != 0)
        return -1;
    s->at = at;
    s->pid = st.pid;
    s->pmask = st.pmask;
    s->pbase = st.pbase;
    *sid = st.pid;
    *flags = b->tfl[st.pid] | masked;
    return 0;
}

#if defined(__SSE2__)
/* Bit i set where p[i] (i < 64) is below 0x80: the last byte of a varint. */
static inline uint64_t ends64(const unsigned char *p)
{
    uint64_t x = 0;
    for (unsigned q = 0; q < 4; q++) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * q));
        x |= (uint64_t)(uint16_t)~_mm_movemask_epi8(b) << (16 * q);
    }
    return x;
}
#endif

int wc_cta_raw_lanes(const wc_cta *c, const unsigned char *p, size_t len,
                     wc_rawpos *s, wc_rawlanes *r)
{
    if (!c || c->k->kind != KIND_BIN || !c->k->bin->tab)
        return -1;
    const struct wctb_kern *b = c->k->bin;
    size_t a = s->at;
    uint32_t id, mask;
    const char *why;
    uint64_t v;
    int tg = dec_head(p, len, &a, s->pid, s->pmask, b->tab_n, &id, &mask,
                      &why);
    if (tg < 0 || !(b->tab[id].iflags & WC_IF_HAS_ADDR))
        return -1;
    unsigned mode = (unsigned)tg & T_AMODE;
    /* lane offsets one varint each (dec_inst: A_ALL every lane but the
     * first, A_ACTIVE every active lane but the first) */
    if ((mode != A_ALL && mode != A_ACTIVE) || (mode == A_ACTIVE && !mask) ||
        get_var(p, len, &a, &v) != 0)
        return -1;
    uint64_t base = s->pbase + unzz(v);
    unsigned k = mode == A_ALL ? WC_WARP_SIZE - 1
                               : (unsigned)__builtin_popcount(mask) - 1;
    size_t lb = a;
    /* k varints of at most three bytes (dec_inst decodes them alike; a
     * longer one is left to it): their ends are the bytes below 0x80 */
#if defined(__SSE2__)
    if (k && len - a >= 128) {
        /* 64 bytes a mask, bit i set where byte i ends a varint; the
         * k-th end found by clearing the ends before it */
        uint64_t m0 = ends64(p + a), m1 = 0, t = m0;
        unsigned i = 1, end;
        while (t && i < k) {
            t &= t - 1;
            i++;
        }
        if (t) {
            end = (unsigned)__builtin_ctzll(t) + 1;
        } else { /* m0's ends were k - (i - 1) too few, or all but one */
            unsigned need = m0 ? k - (i - 1) : k;
            t = m1 = ends64(p + a + 64);
            for (unsigned j = 1; t && j < need; j++)
                t &= t - 1;
            if (!t)
                return -1; /* more than 128 bytes: not three a lane */
            end = 64 + (unsigned)__builtin_ctzll(t) + 1;
        }
        /* no four-byte varint: no three continuation bytes in a row */
        uint64_t c0 = ~m0, c1 = end > 64 ? ~m1 : 0;
        if (end < 64)
            c0 &= ((uint64_t)1 << end) - 1;
        else if (end > 64 && end < 128)
            c1 &= ((uint64_t)1 << (end - 64)) - 1;
        if ((c0 & c0 >> 1 & c0 >> 2) || (c1 & c1 >> 1 & c1 >> 2) ||
            ((c0 >> 62) == 3 && (c1 & 1)) || ((c0 >> 63) && (c1 & 3) == 3))
            return -1;
        a += end;
    } else
#endif
        for (unsigned i = 0, run = 0; i < k; a++) {
            if (a >= len || a - lb > 3u * WC_WARP_SIZE)
                return -1;
            if (p[a] < 0x80) {
                i++;
                run = 0;
            } else if (++run == 3) {
                return -1;
            }
        }
    r->sid = id;
    r->mask = mask;
    r->tag = (uint8_t)tg;
    r->base = base;
    r->lanes = p + lb;
    r->nlanes = (uint32_t)(a - lb);
    r->flags = b->tfl[id] | ((unsigned)tg & T_MASK ? WC_RAW_MASKED : 0u);
    s->at = a;
    s->pid = id;
    s->pmask = mask;
    s->pbase = base;
    return 0;
}

int wc_rawtmpl_prep(const wc_cta *c, const unsigned char *tp, size_t tlen,
                    const wc_inst *tin, uint32_t tsid, int strided,
                    wc_rawtmpl *t)
{
    memset(t, 0, sizeof *t);
    if (!c || c->k->kind != KIND_BIN || !c->k->bin->tab)
        return 0;
    const struct wctb_kern *b = c->k->bin;
    size_t ta = 0;
    uint64_t v;
    if (tlen == 0 || tlen > UINT32_MAX)
        return 0;
    unsigned tag = tp[ta++];
    if ((tag & ~(unsigned)(T_ID | T_MASK | T_AMODE)) ||
        (tag & T_AMODE) == T_AMODE ||
        (!strided && (tag & T_AMODE) == A_STRIDE))
        return 0;
    if (tag & T_ID) {
        if (get_var(tp, tlen, &ta, &v) != 0 || v != tsid)
            return 0;
        t->has_id = 1;
    }
    if (tag & T_MASK) {
        if (tlen - ta < 4 || get32(tp + ta) != tin->mask)
            return 0;
        ta += 4;
        t->has_mask = 1;
    }
    unsigned mode = tag & T_AMODE;
    if (tsid >= b->tab_n || !(b->tab[tsid].iflags & WC_IF_HAS_ADDR) ||
        (mode != A_ALL && !tin->mask))
        return 0;
    t->head = (uint32_t)ta;
    if (get_var(tp, tlen, &ta, &v) != 0) /* the template's base */
        return 0;
    t->tail_at = (uint32_t)ta;
    t->tlen = (uint32_t)tlen;
    t->sid = tsid;
    t->mask = tin->mask;
    t->all = mode == A_ALL;
    t->strided = mode == A_STRIDE;
    t->tbase = mode == A_ALL ? tin->addr[0]
                             : tin->addr[__builtin_ctz(tin->mask)];
    t->ok = 1;
    return 1;
}

/* n bytes at a and b the same (n mostly a few: no call) */
static inline int same_bytes(const unsigned char *a, const unsigned char *b,
                             size_t n)
{
    if (n > 16)
        return memcmp(a, b, n) == 0;
    unsigned x = 0;
    for (size_t i = 0; i < n; i++)
        x |= (unsigned)(a[i] ^ b[i]);
    return x == 0;
}

int wc_cta_raw_moved(const unsigned char *p, size_t len, wc_rawpos *s,
                     const unsigned char *tp, const wc_rawtmpl *t,
                     uint64_t *d, int *all)
{
    size_t a = s->at;
    uint64_t v;
    /* the record and mask the bytes give: the template's, from its bytes
     * or (where they leave them out) from the instruction before */
    if (!t->ok || a >= len || (!t->has_id && s->pid + 1 != t->sid) ||
        (!t->has_mask && s->pmask != t->mask))
        return 0;
    /* the same head (tag, record, mask) */
    if (len - a < t->head || !same_bytes(p + a, tp, t->head))
        return 0;
    size_t ca = a + t->head;
    if (get_var(p, len, &ca, &v) != 0) /* this one's base */
        return 0;
    size_t tail = t->tlen - t->tail_at;
    if (len - ca < tail || !same_bytes(p + ca, tp + t->tail_at, tail))
        return 0;
    /* the lanes' bytes are the template's: each lane is its lane moved by
     * the difference of the bases (mod 2^64, as dec_inst adds them);
     * lanes a mode leaves 0 (inactive, but for A_ALL) stay 0 */
    uint64_t base = s->pbase + unzz(v);
    *d = base - t->tbase;
    *all = t->all;
    s->at = ca + tail;
    s->pid = t->sid;
    s->pmask = t->mask;
    s->pbase = base;
    return 1;
}

void wc_inst_moved(wc_inst *in, const wc_inst *tin, uint64_t d, int all)
{
    rec_head(in, tin);
    if (all || tin->mask == 0xffffffffu) {
#if defined(__SSE2__)
        __m128i dv = _mm_set1_epi64x((long long)d);
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
        for (unsigned l = 0; l < WC_WARP_SIZE; l += 2)
            _mm_storeu_si128(
                (__m128i *)(void *)&in->addr[l],
                _mm_add_epi64(_mm_loadu_si128(
                                  (const __m128i *)(const void *)&tin->addr[l]),
                              dv));
#else
        for (unsigned l = 0; l < WC_WARP_SIZE; l++)
            in->addr[l] = tin->addr[l] + d;
#endif
    } else {
        memcpy(in->addr, tin->addr, sizeof in->addr);
        for (uint32_t m = tin->mask; m; m &= m - 1)
            in->addr[__builtin_ctz(m)] += d;
    }
}

int wc_cta_raw_inst_like(const wc_cta *c, const unsigned char *p,
                         size_t len, wc_rawpos *s, const unsigned char *tp,
                         size_t tlen, const wc_inst *tin, uint32_t tsid,
                         wc_inst *in, uint32_t *sid, unsigned *flags)
{
    if (!c || c->k->kind != KIND_BIN || !c->k->bin->tab)
        return -1;
    wc_rawtmpl t;
    uint64_t d;
    int all;
    unsigned masked =
        s->at < len && (p[s->at] & T_MASK) ? WC_RAW_MASKED : 0u;
    /* a strided record decodes from two varints (lanes_strided): the
     * comparisons and the copy cost more than that (memory trace,
     * callgrind: 405 M host instructions decoding against 615 M through
     * here) */
    if (!wc_rawtmpl_prep(c, tp, tlen, tin, tsid, 0, &t) ||
        !wc_cta_raw_moved(p, len, s, tp, &t, &d, &all))
        return wc_cta_raw_inst(c, p, len, s, in, sid, flags);
    wc_inst_moved(in, tin, d, all);
    *sid = tsid;
    *flags = c->k->bin->tfl[tsid] | WC_RAW_MOVED | masked;
    return 0;
}

int wc_cta_raw_plain(const wc_cta *c, const unsigned char *p, size_t len,
                     wc_rawpos *s, uint32_t *sid, uint32_t *mask)
{
    if (!c || c->k->kind != KIND_BIN || !c->k->bin->tab)
        return -1;
    const struct wctb_kern *b = c->k->bin;
    size_t a = s->at;
    uint32_t id, m;
    const char *why;
    int tag = dec_head(p, len, &a, s->pid, s->pmask, b->tab_n, &id, &m, &why);
    /* a plain record's tag has no address mode */
    if (tag < 0 || (tag & T_AMODE) || (b->tab[id].iflags & WC_IF_HAS_ADDR))
        return -1;
    s->at = a;
    s->pid = id;
    s->pmask = m;
    *sid = id;
    *mask = m;
    return 0;
}

const wc_inst *wc_cta_static(const wc_cta *c, uint32_t sid)
{
    if (!c || c->k->kind != KIND_BIN || !c->k->bin->tab ||
        sid >= c->k->bin->tab_n)
        return NULL;
    return &c->k->bin->tab[sid];
}

void wc_cta_raw_skip(wc_cta *c, unsigned w)
{
    if (!c || c->k->kind != KIND_BIN || w >= c->nwarps)
        return;
    wstream *s = &c->w[w];
    s->done = s->n;
    s->cleft = 0;
    s->dpos = s->dlen;
}

int wc_cta_next_ref(wc_cta *c, unsigned w, wc_inst *buf, wc_iref *r,
                    wc_diag *d)
{
    size_t n;
    int g = wc_cta_next_refs(c, w, buf, r, 1, &n, d);
    return g == 1 && n == 0 ? 0 : g;
}

void wctb_rewind(wstream *s)
{
    s->pid = UINT32_MAX;
    s->pmask = UINT32_MAX;
    s->pbase = 0;
    if (s->inl) { /* the stream is frame[off0..end) */
        s->dpos = (size_t)s->off0;
        s->dlen = (size_t)s->end;
        s->cleft = s->n;
        return;
    }
    s->pos = s->off0;
    s->dlen = s->dpos = 0;
    s->cleft = 0;
}

void wctb_cta_free(wc_cta *c)
{
    for (unsigned w = 0; w < c->nwarps; w++) {
        if (!c->w[w].inl)
            free(c->w[w].dec);
        c->w[w].dec = NULL;
    }
    if (c->t && c->k && c->k->kind == KIND_BIN && c->k->bin)
        to_pool(&c->t->mu, c->k->bin, c);
    free(c->frame);
    c->frame = NULL;
    ZSTD_freeDCtx(c->zdc);
    c->zdc = NULL;
    free(c->cbuf);
    c->cbuf = NULL;
}

void wctb_kern_free(kent *k)
{
    if (!k->bin)
        return;
    free(k->bin->tab);
    free(k->bin->tfl);
    for (unsigned i = 0; i < k->bin->nz; i++)
        ZSTD_freeDCtx(k->bin->zpool[i]);
    free(k->bin);
    k->bin = NULL;
}

int wc_trace_is_binary(const wc_trace *t)
{
    return t && t->nk > 0 && t->k[0] && t->k[0]->kind == KIND_BIN;
}

/* ---- writing ------------------------------------------------------------- */

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
} wbuf;

static int wb_grow(wbuf *b, size_t more)
{
    if (b->cap - b->n >= more)
        return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc - b->n < more)
        nc *= 2;
    unsigned char *np = realloc(b->p, nc);
    if (!np)
        return -1;
    b->p = np;
    b->cap = nc;
    return 0;
}

static int wb_put(wbuf *b, const void *p, size_t n)
{
    if (wb_grow(b, n) != 0)
        return -1;
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

static int wb_32(wbuf *b, uint32_t v)
{
    unsigned char x[4];
    put32(x, v);
    return wb_put(b, x, 4);
}

static int wb_64(wbuf *b, uint64_t v)
{
    unsigned char x[8];
    put64(x, v);
    return wb_put(b, x, 8);
}

/* Static records of the kernel being written: serialized, decoded, and a
 * hash set over them. */
typedef struct wtab {
    wbuf rec;
    wc_inst *dec;
    uint32_t n, cap;
    uint32_t *slot; /* id + 1, 0 empty */
    size_t nslot;
} wtab;


/* Id of the record of in (added when new): 0, or -1 out of memory / table
 * full. */
static int wtab_id(wtab *w, const wc_inst *in, uint32_t *id)
{
    unsigned char r[REC_SIZE];
    rec_put(r, in);
    if ((size_t)(w->n + 1) * 2 > w->nslot) {
        size_t ns = w->nslot ? w->nslot * 2 : 1024;
        uint32_t *sl = calloc(ns, sizeof *sl);
        if (!sl)
            return -1;
        for (uint32_t i = 0; i < w->n; i++) {
            size_t h = (size_t)wc_fnv1a(WC_FNV1A_INIT,
                                        w->rec.p + (size_t)i * REC_SIZE,
                                        REC_SIZE) & (ns - 1);
            while (sl[h])
                h = (h + 1) & (ns - 1);
            sl[h] = i + 1;
        }
        free(w->slot);
        w->slot = sl;
        w->nslot = ns;
    }
    size_t h = (size_t)wc_fnv1a(WC_FNV1A_INIT, r, REC_SIZE) & (w->nslot - 1);
    for (; w->slot[h]; h = (h + 1) & (w->nslot - 1))
        if (memcmp(w->rec.p + (size_t)(w->slot[h] - 1) * REC_SIZE, r,
                   REC_SIZE) == 0) {
            *id = w->slot[h] - 1;
            return 0;
        }
    if (w->n >= TAB_MAX)
        return -1;
    if (w->n == w->cap) {
        uint32_t nc = w->cap ? w->cap * 2 : 256;
        wc_inst *nd = realloc(w->dec, nc * sizeof *nd);
        if (!nd)
            return -1;
        w->dec = nd;
        w->cap = nc;
    }
    const char *why;
    if (wb_put(&w->rec, r, REC_SIZE) != 0)
        return -1;
    if (rec_get(r, &w->dec[w->n], &why) != 0)
        return -2; /* a record the reader would refuse */
    w->slot[h] = w->n + 1;
    *id = w->n++;
    return 0;
}

static void wtab_free(wtab *w)
{
    free(w->rec.p);
    free(w->dec);
    free(w->slot);
    memset(w, 0, sizeof *w);
}

typedef struct writer {
    FILE *f;
    const char *out;
    uint64_t pos;
    ZSTD_CCtx *cc;
    wbuf z; /* compression output */
    wc_diag *d;
} writer;

static int w_put(writer *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->f) != n)
        return wc_diag_set(w->d, WC_EINPUT, w->out, 0, 0, "write failed: %s",
                           strerror(errno));
    w->pos += n;
    return 0;
}

/* Compress src into w->z (replacing it). */
static int w_zip(writer *w, const void *src, size_t n)
{
    size_t bound = ZSTD_compressBound(n);
    w->z.n = 0;
    if (wb_grow(&w->z, bound) != 0)
        return noomem(w->d);
    size_t g = ZSTD_compress2(w->cc, w->z.p, bound, src, n);
    if (ZSTD_isError(g))
        return wc_diag_set(w->d, WC_EINTERNAL, "", 0, 0, "zstd: %s",
                           ZSTD_getErrorName(g));
    w->z.n = g;
    return 0;
}

/* Append chunk dec[0..n) of ni instructions to the warp's buffer. */
static int w_chunk(writer *w, wbuf *out, const unsigned char *dec, size_t n,
                   uint32_t ni)
{
    int rc = w_zip(w, dec, n);
    if (rc)
        return rc;
    if (wb_32(out, (uint32_t)w->z.n) || wb_32(out, (uint32_t)n) ||
        wb_32(out, ni) || wb_put(out, w->z.p, w->z.n))
        return noomem(w->d);
    return 0;
}

static int same_inst(const wc_inst *a, const wc_inst *b)
{
    unsigned char ra[REC_SIZE], rb[REC_SIZE];
    rec_put(ra, a);
    rec_put(rb, b);
    if (memcmp(ra, rb, REC_SIZE) != 0 || a->mask != b->mask)
        return 0;
    return !(a->iflags & WC_IF_HAS_ADDR) ||
           memcmp(a->addr, b->addr, sizeof a->addr) == 0;
}

/* Scratch of the kernel being written. */
typedef struct wk {
    writer *w;
    wtab tab;
    wc_inst *in, *chk;
} wk;

/* Append in to out (state es), checking that it decodes back to in. */
static int w_inst(wk *x, wbuf *out, dstate *es, const wc_inst *in)
{
    wc_diag *d = x->w->d;
    uint32_t id;
    int e = wtab_id(&x->tab, in, &id);
    if (e == -1)
        return noomem(d);
    if (e == -2)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "instruction at PC 0x%llx cannot be stored in "
                           "the binary form",
                           (unsigned long long)in->pc);
    if (wb_grow(out, INST_ENC_MAX) != 0)
        return noomem(d);
    dstate ds = *es;
    size_t at = out->n;
    out->n += enc_inst(out->p + out->n, es, id, in);
    const char *why = NULL;
    if (dec_inst(out->p, out->n, &at, &ds, x->tab.dec, x->tab.n, x->chk,
                 &why) ||
        at != out->n || !same_inst(in, x->chk))
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "binary form does not reproduce the instruction "
                           "at PC 0x%llx (%s)",
                           (unsigned long long)in->pc, why ? why : "differs");
    return 0;
}

/* Warp wi of c as a chunk list into out; *n its instructions. */
static int w_chunked(wk *x, wc_cta *c, unsigned wi, wbuf *out, wbuf *raw,
                     uint64_t *n)
{
    wc_diag *d = x->w->d;
    dstate es;
    dstate_reset(&es);
    uint32_t ni = 0;
    int g, rc;
    raw->n = 0;
    *n = 0;
    while ((g = wc_cta_next(c, wi, x->in, d)) == 1) {
        if (raw->n > CHUNK_MAX - INST_ENC_MAX) {
            if ((rc = w_chunk(x->w, out, raw->p, raw->n, ni)) != 0)
                return rc;
            raw->n = 0;
            ni = 0;
            dstate_reset(&es);
        }
        if ((rc = w_inst(x, raw, &es, x->in)) != 0)
            return rc;
        ni++;
        (*n)++;
    }
    if (g < 0)
        return -g;
    return ni ? w_chunk(x->w, out, raw->p, raw->n, ni) : 0;
}

/* One CTA: a frame with every warp's stream inline when they fit in
 * INLINE_MAX bytes, else a frame of warp records and per warp a chunk
 * list.  *ninst = its warp instructions. */
static int w_cta(wk *x, wc_cta *c, uint64_t *ninst)
{
    writer *w = x->w;
    wc_diag *d = w->d;
    unsigned nw = wc_cta_nwarps(c);
    wbuf fr = {0}, inl = {0}, raw = {0};
    wbuf *wb = NULL;
    uint64_t *wn = calloc(nw ? nw : 1, sizeof *wn),
             *wl = calloc(nw ? nw : 1, sizeof *wl);
    int rc = 0, fits = 1, g = 0;
    if (!wn || !wl)
        goto oom;
    for (unsigned wi = 0; wi < nw && fits; wi++) {
        dstate es;
        dstate_reset(&es);
        size_t n0 = inl.n;
        while ((g = wc_cta_next(c, wi, x->in, d)) == 1) {
            if ((rc = w_inst(x, &inl, &es, x->in)) != 0)
                goto out;
            wn[wi]++;
            if (inl.n > INLINE_MAX) {
                fits = 0;
                break;
            }
        }
        if (g < 0) {
            rc = -g;
            goto out;
        }
        wl[wi] = inl.n - n0;
    }
    if (!fits) {
        if (!(wb = calloc(nw, sizeof *wb)))
            goto oom;
        for (unsigned wi = 0; wi < nw; wi++) {
            if ((rc = wc_cta_rewind(c, wi, d)) != 0 ||
                (rc = w_chunked(x, c, wi, &wb[wi], &raw, &wn[wi])) != 0)
                goto out;
            wl[wi] = wb[wi].n;
        }
    }
    unsigned xyz[3];
    wc_cta_index(c, xyz);
    int e = 0;
    for (unsigned j = 0; j < 3; j++)
        e |= wb_32(&fr, xyz[j]);
    e |= wb_32(&fr, nw);
    e |= wb_32(&fr, !fits);
    *ninst = 0;
    for (unsigned wi = 0; wi < nw; wi++) {
        e |= wb_32(&fr, wc_cta_warp_id(c, wi));
        e |= wb_64(&fr, wn[wi]);
        e |= wb_64(&fr, wl[wi]);
        *ninst += wn[wi];
    }
    if (fits && inl.n)
        e |= wb_put(&fr, inl.p, inl.n);
    if (e)
        goto oom;
    if ((rc = w_zip(w, fr.p, fr.n)) != 0)
        goto out;
    unsigned char h[8];
    put32(h, (uint32_t)w->z.n);
    put32(h + 4, (uint32_t)fr.n);
    if ((rc = w_put(w, h, 8)) || (rc = w_put(w, w->z.p, w->z.n)))
        goto out;
    for (unsigned wi = 0; !fits && wi < nw; wi++)
        if ((rc = w_put(w, wb[wi].p, wb[wi].n)) != 0)
            goto out;
    goto out;
oom:
    rc = noomem(d);
out:
    for (unsigned wi = 0; wb && wi < nw; wi++)
        free(wb[wi].p);
    free(wb);
    free(wn);
    free(wl);
    free(fr.p);
    free(inl.p);
    free(raw.p);
    return rc;
}

/* One kernel: its CTAs, static table and index; *meta gets its footer
 * entry. */
static int w_kernel(writer *w, wc_trace *t, size_t k, wbuf *meta,
                    wc_convert_stats *st)
{
    wc_diag *d = w->d;
    wc_kreader *r = NULL;
    wc_cta *c = NULL;
    wk x = {w, {{0}, 0, 0, 0, 0, 0}, malloc(sizeof(wc_inst)),
            malloc(sizeof(wc_inst))};
    wbuf ixo = {0}, ixi = {0};
    uint64_t nctas = 0;
    int rc = 0;
    if (!x.in || !x.chk)
        goto oom;
    if ((rc = wc_kreader_open(t, k, &r, d)) != 0)
        goto out;
    if (r->src)
        st->text_bytes += r->src->size;
    for (;;) {
        if ((rc = wc_kreader_next(r, &c, d)) != 0)
            goto out;
        if (!c)
            break;
        uint64_t ninst = 0;
        if (wb_64(&ixo, w->pos))
            goto oom;
        if ((rc = w_cta(&x, c, &ninst)) != 0)
            goto out;
        if (wb_64(&ixi, ninst))
            goto oom;
        wc_cta_free(c);
        c = NULL;
        nctas++;
        st->insts += ninst;
    }
    const wc_kernel_info *ki = wc_trace_kernel(t, k);
    if (nctas != ki->ctas) {
        rc = wc_diag_set(d, WC_EINPUT, ki->path, 0, 0,
                         "%llu thread blocks read but the grid makes %llu",
                         (unsigned long long)nctas,
                         (unsigned long long)ki->ctas);
        goto out;
    }
    if (wb_64(&ixo, w->pos))
        goto oom;
    uint64_t tab_off = w->pos;
    if ((rc = w_zip(w, x.tab.rec.p ? x.tab.rec.p : (unsigned char *)"",
                    x.tab.rec.n)) ||
        (rc = w_put(w, w->z.p, w->z.n)))
        goto out;
    uint64_t tab_cs = w->z.n, ix_off = w->pos;
    if (wb_put(&ixo, ixi.p ? ixi.p : (unsigned char *)"", ixi.n))
        goto oom;
    if ((rc = w_zip(w, ixo.p, ixo.n)) || (rc = w_put(w, w->z.p, w->z.n)))
        goto out;
    uint64_t ix_cs = w->z.n;
    st->ctas += nctas;
    st->records += x.tab.n;
    /* the footer entry (after the reader ran: has_ctrl is final) */
    int e = wb_32(meta, (uint32_t)ki->id);
    for (unsigned j = 0; j < 3; j++)
        e |= wb_32(meta, ki->grid[j]);
    for (unsigned j = 0; j < 3; j++)
        e |= wb_32(meta, ki->block[j]);
    e |= wb_64(meta, (uint64_t)ki->shmem);
    e |= wb_64(meta, (uint64_t)ki->nregs);
    e |= wb_32(meta, (uint32_t)ki->binary_version);
    e |= wb_32(meta, (uint32_t)ki->stream);
    e |= wb_32(meta, (uint32_t)ki->tracer_version);
    e |= wb_64(meta, ki->shmem_base);
    e |= wb_64(meta, ki->local_base);
    e |= wb_32(meta, (uint32_t)ki->has_ctrl);
    e |= wb_64(meta, ki->ctas);
    e |= wb_64(meta, tab_off);
    e |= wb_64(meta, tab_cs);
    e |= wb_32(meta, x.tab.n);
    e |= wb_64(meta, ix_off);
    e |= wb_64(meta, ix_cs);
    size_t nl = strlen(ki->name);
    e |= wb_32(meta, (uint32_t)nl);
    e |= wb_put(meta, ki->name, nl);
    e |= wb_32(meta, ki->ctrl_note != NULL);
    if (ki->ctrl_note) {
        size_t cl = strlen(ki->ctrl_note);
        if (cl > WC_KERNEL_NAME_MAX)
            cl = WC_KERNEL_NAME_MAX;
        e |= wb_32(meta, (uint32_t)cl);
        e |= wb_put(meta, ki->ctrl_note, cl);
    }
    if (e)
        goto oom;
    goto out;
oom:
    rc = noomem(d);
out:
    wc_cta_free(c);
    wc_kreader_close(r);
    wtab_free(&x.tab);
    free(ixo.p);
    free(ixi.p);
    free(x.in);
    free(x.chk);
    return rc;
}

int wc_trace_convert(wc_trace *t, const char *out, wc_convert_stats *st,
                     wc_diag *d)
{
    memset(st, 0, sizeof *st);
    if (!t || !out || !*out)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no output path given");
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp%ld", out, (long)getpid()) >=
        sizeof tmp)
        return wc_diag_set(d, WC_EUSAGE, out, 0, 0, "path too long");
    for (size_t k = 0; k < t->nk; k++) {
        struct stat sb;
        const char *p = wc_trace_kernel(t, k)->path;
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++)
            dup = strcmp(wc_trace_kernel(t, j)->path, p) == 0;
        if (!dup && p && stat(p, &sb) == 0)
            st->in_bytes += (uint64_t)sb.st_size;
    }
    writer w = {0};
    w.out = out;
    w.d = d;
    wbuf meta = {0};
    int rc = 0;
    if (!(w.cc = ZSTD_createCCtx()) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(w.cc, ZSTD_c_compressionLevel,
                                            ZLEVEL)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(w.cc, ZSTD_c_checksumFlag, 1))) {
        rc = noomem(d);
        goto out;
    }
    if (!(w.f = fopen(tmp, "wb"))) {
        rc = wc_diag_set(d, WC_EINPUT, out, 0, 0, "cannot create: %s",
                         strerror(errno));
        goto out;
    }
    unsigned char h[16];
    memcpy(h, TB_MAGIC, 8);
    put32(h + 8, TB_VERSION);
    put32(h + 12, 0);
    if ((rc = w_put(&w, h, 16)) != 0)
        goto out;
    if (wb_64(&meta, t->ncopy) || wb_64(&meta, t->copy_bytes) ||
        wb_32(&meta, (uint32_t)t->nk)) {
        rc = noomem(d);
        goto out;
    }
    for (size_t k = 0; k < t->nk; k++)
        if ((rc = w_kernel(&w, t, k, &meta, st)) != 0)
            goto out;
    uint64_t foff = w.pos;
    unsigned char tl[24];
    put64(tl, foff);
    put64(tl + 8, wc_fnv1a(WC_FNV1A_INIT, meta.p, meta.n));
    memcpy(tl + 16, TB_TAIL, 8);
    if ((rc = w_put(&w, meta.p, meta.n)) || (rc = w_put(&w, tl, 24)))
        goto out;
    st->kernels = t->nk;
    st->out_bytes = w.pos;
    if (fclose(w.f) != 0) {
        w.f = NULL;
        rc = wc_diag_set(d, WC_EINPUT, out, 0, 0, "write failed: %s",
                         strerror(errno));
        goto out;
    }
    w.f = NULL;
    if (rename(tmp, out) != 0)
        rc = wc_diag_set(d, WC_EINPUT, out, 0, 0, "cannot write: %s",
                         strerror(errno));
out:
    if (w.f)
        fclose(w.f);
    if (rc)
        unlink(tmp);
    ZSTD_freeCCtx(w.cc);
    free(w.z.p);
    free(meta.p);
    return rc;
}
