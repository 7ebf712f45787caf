/*
 * common/trace_line.c - one Accel-Sim trace instruction line -> wc_inst.
 *
 * Owns wc_trace_parse_line, the hot path of every trace consumer: a
 * hand-written tokenizer over one line (no sscanf, no allocation), exact
 * diagnostics (column of the offending token), and the expansion of the
 * three address compression modes into per-lane addresses.
 *
 * Line layout (tracer versions 3-6, docs/formats.md):
 *
 *   [line] PC mask ndst Rd.. OPCODE nsrc Rs.. [gmma] width [mode addrs..]
 *          [imm (v4+)] [imm2 (v6)] [Val|NoVal [lists] (v6)]
 *                 \_______ segment _______/
 *
 * The optional source line column is detected per line from the shape of
 * the first tokens, so the reader does not depend on "-enable lineinfo".
 *
 * Speed: numbers are parsed in the same pass that finds the end of their
 * token (table lookups, no second scan); a token that does not parse on
 * that fast path is handed to the plain parsers, which decide and report
 * exactly as before.  Every warp of a kernel repeats the same text between
 * the mask and the width for a given PC (registers, opcode, width), so a
 * per-thread cache keyed by PC keeps that "segment" text with its decoded,
 * wc_inst_finish'ed fields: a line whose segment is byte-identical to the
 * cached one copies them instead of decoding registers and the opcode
 * again.  A hit is only taken on identical text, so results and errors are
 * the same with or without the cache.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wc.h"

/* ---- tokens -------------------------------------------------------------- */

typedef struct lcur {
    const char *s;   /* line start (columns are relative to it) */
    const char *p;   /* next unread byte                         */
    const char *end; /* one past the last byte                   */
    const char *file;
    long line;
    wc_diag *d;
} lcur;

/* Separators: space, tab, CR and any other control byte. */
static inline int is_sp(char c)
{
    return (unsigned char)c <= ' ';
}

/* Next token: *t and its length (0 at end of line). */
static inline size_t next_tok(lcur *c, const char **t)
{
    const char *p = c->p, *e = c->end;
    while (p < e && is_sp(*p))
        p++;
    const char *b = p;
    while (p < e && !is_sp(*p))
        p++;
    c->p = p;
    *t = b;
    return (size_t)(p - b);
}

static int tok_err(lcur *c, const char *t, size_t n, const char *what)
{
    if (n == 0)
        return wc_diag_set(c->d, WC_EINPUT, c->file, c->line,
                           (long)(t - c->s) + 1,
                           "expected %s, found end of line", what);
    return wc_diag_set(c->d, WC_EINPUT, c->file, c->line, (long)(t - c->s) + 1,
                       "expected %s, found '%.*s'%s", what,
                       (int)(n > 40 ? 40 : n), t, n > 40 ? "..." : "");
}

/* ---- numbers ------------------------------------------------------------- */

static const signed char hexv[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
    ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12,
    ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
    ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
}; /* digit value + 1, 0 = not a hex digit */

/* Hex number, optional 0x prefix, at most maxdig digits. */
static inline int parse_hex(const char *t, size_t n, unsigned maxdig,
                            uint64_t *v)
{
    if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        t += 2, n -= 2;
    if (n == 0)
        return -1;
    while (n > maxdig && *t == '0') /* leading zeros do not count */
        t++, n--;
    if (n > maxdig)
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int h = hexv[(unsigned char)t[i]];
        if (!h)
            return -1;
        x = (x << 4) | (uint64_t)(h - 1);
    }
    *v = x;
    return 0;
}

static inline int parse_udec(const char *t, size_t n, uint64_t max,
                             uint64_t *v)
{
    if (n == 0 || n > 20)
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned dgt = (unsigned)(unsigned char)t[i] - '0';
        if (dgt > 9)
            return -1;
        if (x > (UINT64_MAX - dgt) / 10)
            return -1;
        x = x * 10 + dgt;
    }
    if (x > max)
        return -1;
    *v = x;
    return 0;
}

/* Signed decimal; values up to UINT64_MAX are accepted and wrap (the tracer
 * prints some immediates unsigned). */
static inline int parse_sdec(const char *t, size_t n, int64_t *v)
{
    int neg = 0;
    if (n > 0 && (t[0] == '-' || t[0] == '+')) {
        neg = t[0] == '-';
        t++, n--;
    }
    uint64_t x;
    if (parse_udec(t, n, UINT64_MAX, &x) != 0)
        return -1;
    if (neg && x > (uint64_t)INT64_MAX + 1u)
        return -1;
    *v = neg ? (int64_t)(0u - x) : (int64_t)x;
    return 0;
}

/*
 * Fused token parsers: skip separators, parse, check that the token ends
 * there.  On success c->p moves past the token; on failure c->p is left
 * where it was, so bad() re-reads the whole token for the message.  Each
 * accepts exactly what next_tok + the parse_* function above accept.
 */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WCT_SWAR 1
/*
 * Eight bytes of text (first byte lowest) as hex digits, SWAR: *nd = the
 * number of leading hex digits, returns their value.  Bytes past them are
 * ignored.
 */
static inline uint64_t swar_hex8(uint64_t w, unsigned *nd)
{
    const uint64_t L = 0x0101010101010101ull, H = 0x8080808080808080ull;
    uint64_t w7 = w & ~H, lw = w7 | 0x20 * L;
    /* per byte: high bit set when the byte is in range (no carries: all
     * bytes < 0x80 and the added constants keep sums below 0x100) */
    uint64_t dig = (w7 + (0x80 - '0') * L) & ~(w7 + (0x80 - '9' - 1) * L);
    uint64_t alp = (lw + (0x80 - 'a') * L) & ~(lw + (0x80 - 'f' - 1) * L);
    uint64_t inv = ~((dig | alp) & ~w) & H;
    unsigned n = inv ? (unsigned)__builtin_ctzll(inv) >> 3 : 8;
    uint64_t nib = (w & 0x0f * L) + ((w >> 6) & L) * 9; /* 'a'/'A' -> 10 */
    if (n < 8)
        nib &= (1ull << (8 * n)) - 1;
    nib = ((nib & 0x000f000f000f000full) << 4) |
          ((nib & 0x0f000f000f000f00ull) >> 8);
    nib = ((nib & 0x000000ff000000ffull) << 8) |
          ((nib & 0x00ff000000ff0000ull) >> 16);
    nib = ((nib & 0xffffull) << 16) | ((nib >> 32) & 0xffffull);
    *nd = n;
    return nib >> (4 * (8 - n));
}
#endif

/* Hex token, optional 0x, at most maxdig significant digits. */
static inline int tok_hex(lcur *c, unsigned maxdig, uint64_t *v)
{
    const char *p = c->p, *e = c->end;
    while (p < e && is_sp(*p))
        p++;
    if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
        !is_sp(p[2]))
        p += 2;
    const char *d0 = p;
    uint64_t x = 0;
#ifdef WCT_SWAR
    if (e - p >= 16) {
        uint64_t w0, w1;
        unsigned n0, n1;
        memcpy(&w0, p, 8);
        x = swar_hex8(w0, &n0);
        p += n0;
        if (n0 == 8 && !is_sp(*p)) { /* p < e: 16 bytes were there */
            memcpy(&w1, p, 8);
            uint64_t x1 = swar_hex8(w1, &n1);
            x = n1 ? (x << (4 * n1)) | x1 : x;
            p += n1;
        }
    } else
#endif
    {
        int h;
        while (p < e && (h = hexv[(unsigned char)*p]) != 0) {
            x = (x << 4) | (uint64_t)(h - 1);
            p++;
        }
    }
    size_t nd = (size_t)(p - d0);
    if (nd == 0 || nd > maxdig || (p < e && !is_sp(*p))) {
        /* leading zeros past maxdig, or not a hex token at all */
        lcur k = *c;
        const char *tt;
        size_t n = next_tok(&k, &tt);
        if (parse_hex(tt, n, maxdig, v) != 0)
            return -1;
        c->p = k.p;
        return 0;
    }
    c->p = p;
    *v = x;
    return 0;
}

/* Unsigned decimal token <= max. */
static inline int tok_udec(lcur *c, uint64_t max, uint64_t *v)
{
    const char *p = c->p, *e = c->end;
    while (p < e && is_sp(*p))
        p++;
    const char *t = p;
    uint64_t x = 0;
    unsigned dgt;
    while (p < e && (dgt = (unsigned)(unsigned char)*p - '0') <= 9 &&
           p - t < 19) /* 19 digits cannot overflow */
        x = x * 10 + dgt, p++;
    if (p < e && !is_sp(*p)) {
        /* a 20-digit (or longer) number, or not a number */
        lcur k = *c;
        const char *tt;
        size_t n = next_tok(&k, &tt);
        if (parse_udec(tt, n, max, v) != 0)
            return -1;
        c->p = k.p;
        return 0;
    }
    if (p == t || x > max)
        return -1;
    c->p = p;
    *v = x;
    return 0;
}

/* Signed decimal token (see parse_sdec). */
static inline int tok_sdec(lcur *c, int64_t *v)
{
    const char *p = c->p, *e = c->end;
    while (p < e && is_sp(*p))
        p++;
    int neg = 0;
    if (p < e && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    const char *d0 = p;
    uint64_t x = 0;
    unsigned dgt;
    while (p < e && (dgt = (unsigned)(unsigned char)*p - '0') <= 9 &&
           p - d0 < 19)
        x = x * 10 + dgt, p++;
    if (p < e && !is_sp(*p)) {
        lcur k = *c;
        const char *tt;
        size_t n = next_tok(&k, &tt);
        if (parse_sdec(tt, n, v) != 0)
            return -1;
        c->p = k.p;
        return 0;
    }
    if (p == d0 || (neg && x > (uint64_t)INT64_MAX + 1u))
        return -1;
    c->p = p;
    *v = neg ? (int64_t)(0u - x) : (int64_t)x;
    return 0;
}

/* Report the token at c->p as not being `what`. */
static int bad(lcur *c, const char *what)
{
    const char *t;
    size_t n = next_tok(c, &t);
    return tok_err(c, t, n, what);
}

/* ---- registers and opcodes --------------------------------------------------- */

/* Register token of a trace: R/UR/P/UP names; R255 (NVBit's RZ) is RZ. */
static inline int trace_reg(const char *t, size_t n, wc_reg *r)
{
    if (n == 4 && t[0] == 'R' && t[1] == '2' && t[2] == '5' && t[3] == '5') {
        *r = WC_RZ;
        return 0;
    }
    return wc_reg_parse(t, n, r);
}

/* Register token at c->p; like tok_hex on failure.  Fast path for the
 * common "R<decimal>" form, the rest through trace_reg. */
static inline int tok_reg(lcur *c, wc_reg *r)
{
    const char *p = c->p, *e = c->end;
    while (p < e && is_sp(*p))
        p++;
    if (e - p >= 2 && p[0] == 'R') {
        unsigned v = 0, nd = 0, dgt;
        const char *q = p + 1;
        while (q < e && nd < 4 && (dgt = (unsigned)(unsigned char)*q - '0') <= 9)
            v = v * 10 + dgt, q++, nd++;
        if (nd >= 1 && nd <= 3 && (q == e || is_sp(*q)) &&
            (nd == 1 || p[1] != '0') && v <= 255) {
            *r = (wc_reg)v; /* 255 is RZ, the same number */
            c->p = q;
            return 0;
        }
    }
    lcur k = *c;
    const char *t;
    size_t n = next_tok(&k, &t);
    if (trace_reg(t, n, r) != 0)
        return -1;
    c->p = k.p;
    return 0;
}

static int looks_reg(const char *t, size_t n)
{
    wc_reg r;
    return trace_reg(t, n, &r) == 0;
}

static int looks_opcode(const char *t, size_t n)
{
    return n > 0 && t[0] >= 'A' && t[0] <= 'Z' && !looks_reg(t, n);
}

static int looks_hex(const char *t, size_t n)
{
    uint64_t v;
    return parse_hex(t, n, 16, &v) == 0;
}

/*
 * Does the line read as "PC mask ndst Rd.. OPCODE" after skipping `skip`
 * leading tokens?  Used to detect the optional line-number column.
 */
static int shape_ok(const char *s, size_t len, unsigned skip)
{
    lcur c = {s, s, s + len, NULL, 0, NULL};
    const char *t;
    size_t n;
    for (unsigned i = 0; i < skip; i++)
        if (next_tok(&c, &t) == 0)
            return 0;
    n = next_tok(&c, &t);
    if (!looks_hex(t, n))
        return 0;
    n = next_tok(&c, &t);
    if (!looks_hex(t, n))
        return 0;
    n = next_tok(&c, &t);
    uint64_t nd;
    if (parse_udec(t, n, 32, &nd) != 0)
        return 0;
    for (uint64_t i = 0; i < nd; i++) {
        n = next_tok(&c, &t);
        if (!looks_reg(t, n))
            return 0;
    }
    n = next_tok(&c, &t);
    return looks_opcode(t, n);
}

static int third_is_count(const lcur *c)
{
    lcur k = *c;
    const char *t;
    next_tok(&k, &t);
    next_tok(&k, &t);
    size_t n = next_tok(&k, &t);
    return (n == 1 && t[0] >= '0' && t[0] <= '9') ||
           (n == 2 && t[0] >= '0' && t[0] <= '9' && t[1] >= '0' &&
            t[1] <= '9');
}

/*
 * Opcode lookup through a small per-thread cache: traces repeat a few
 * dozen opcodes millions of times.
 */
#define OPC_SLOTS 128
typedef struct opc_slot {
    char name[24];
    uint8_t len;
    uint16_t op;
} opc_slot;
static _Thread_local opc_slot opc_cache[OPC_SLOTS];

static unsigned op_lookup_cached(const char *t, size_t n)
{
    size_t bl = 0;
    uint32_t h = 2166136261u;
    while (bl < n && t[bl] != '.') {
        h = (h ^ (unsigned char)t[bl]) * 16777619u;
        bl++;
    }
    if (bl == 0 || bl >= sizeof opc_cache[0].name)
        return wc_op_lookup(t, n);
    opc_slot *e = &opc_cache[h & (OPC_SLOTS - 1)];
    if (e->len == bl && memcmp(e->name, t, bl) == 0)
        return e->op;
    unsigned op = wc_op_lookup(t, bl);
    memcpy(e->name, t, bl);
    e->len = (uint8_t)bl;
    e->op = (uint16_t)op;
    return op;
}

/* Base name (up to the first '.') of an opcode and its length. */
static size_t base_len(const char *op)
{
    size_t n = 0;
    while (op[n] && op[n] != '.')
        n++;
    return n;
}

/* Hopper warpgroup MMA: HGMMA, IGMMA, QGMMA, BGMMA ... */
static int is_gmma(const char *op)
{
    size_t n = base_len(op);
    return n >= 4 && memcmp(op + n - 4, "GMMA", 4) == 0;
}

/* Tensor-memory-accelerator and bulk copies: UTMA*, UBLK*. */
static int is_tma(const char *op)
{
    return op[0] == 'U' && (memcmp(op, "UTMA", 4) == 0 ||
                            memcmp(op, "UBLK", 4) == 0);
}

/*
 * Does a GMMA line carry the commit-group flag before its width?  Without
 * it the rest is "width imm" (v4/v5), "width" (v3) or "width imm imm2
 * Val|NoVal .." (v6); GMMA has width 0, so one extra token means the flag.
 */
static int gmma_flag(const lcur *c, int ver)
{
    lcur k = *c;
    const char *t;
    size_t n;
    unsigned i = 0;
    while ((n = next_tok(&k, &t)) > 0) {
        if (ver == 6 && ((n == 3 && memcmp(t, "Val", 3) == 0) ||
                         (n == 5 && memcmp(t, "NoVal", 5) == 0)))
            return i == 4;
        i++;
    }
    return i == (ver == 3 ? 2u : ver < 6 ? 3u : 4u);
}

/* ---- operand lists --------------------------------------------------------- */

static int parse_regs(lcur *c, unsigned cnt, wc_reg *out, unsigned maxn,
                      const char *what)
{
    for (unsigned i = 0; i < cnt; i++) {
        wc_reg r;
        if (tok_reg(c, &r) != 0)
            return bad(c, what);
        if (i < maxn)
            out[i] = r;
    }
    return 0;
}

/* mode 0/1/2 address list for the active lanes of mask. */
static int parse_addrs(lcur *c, wc_inst *in)
{
    uint64_t mode;
    if (tok_udec(c, 2, &mode) != 0)
        return bad(c, "address mode 0, 1 or 2");
    memset(in->addr, 0, sizeof in->addr);
    uint32_t m = in->mask;
    uint64_t a;
    if (mode == 0) {
        for (; m; m &= m - 1) {
            if (tok_hex(c, 16, &a) != 0)
                return bad(c, "hex address (one per active lane)");
            in->addr[__builtin_ctz(m)] = a;
        }
    } else {
        if (tok_hex(c, 16, &a) != 0)
            return bad(c, "hex base address");
        if (mode == 1) {
            int64_t stride;
            if (tok_sdec(c, &stride) != 0)
                return bad(c, "decimal stride");
            for (uint64_t k = 0; m; m &= m - 1, k++)
                in->addr[__builtin_ctz(m)] = a + (uint64_t)stride * k;
        } else if (m) {
            const char *what = (m & (m - 1)) ? "decimal address delta "
                                               "(popcount(mask)-1 of them)"
                                             : "decimal address delta";
            in->addr[__builtin_ctz(m)] = a;
            for (m &= m - 1; m; m &= m - 1) {
                int64_t delta;
                if (tok_sdec(c, &delta) != 0)
                    return bad(c, what);
                a += (uint64_t)delta;
                in->addr[__builtin_ctz(m)] = a;
            }
        }
    }
    in->iflags |= WC_IF_HAS_ADDR;
    return 0;
}

/* v6 register value lists: per operand "1 V" or "32 V0 .. V31". */
static int parse_vals(lcur *c, unsigned nops)
{
    for (unsigned i = 0; i < nops; i++) {
        uint64_t cnt, v;
        const char *at = c->p;
        if (tok_udec(c, 32, &cnt) != 0 || (cnt != 1 && cnt != 32)) {
            c->p = at;
            return bad(c, "value count 1 or 32");
        }
        for (uint64_t j = 0; j < cnt; j++)
            if (tok_hex(c, 16, &v) != 0)
                return bad(c, "hex register value");
    }
    return 0;
}

/* ---- the segment cache -------------------------------------------------------- */

#define SEG_SLOTS 1024 /* power of two */
#define SEG_TEXT 88   /* longest segment text kept */

typedef struct seg_slot {
    uint64_t pc;
    uint8_t tlen;      /* 0 = empty slot                         */
    uint8_t width;     /* the width token (the record's may differ) */
    uint8_t nops;      /* ndst + nsrc as written (v6 value lists)  */
    uint8_t tma;       /* rest of the line is not decoded          */
    /* the record's fields after wc_inst_finish */
    uint16_t op;
    uint8_t unit, space, rwidth, ndst, nsrc, iflags;
    uint16_t mflags;
    wc_reg dst[WC_MAX_DST];
    wc_reg src[WC_MAX_SRC];
    uint8_t dst_nregs[WC_MAX_DST];
    uint8_t src_nregs[WC_MAX_SRC];
    char opcode[WC_OPCODE_LEN];
    char text[SEG_TEXT];
} seg_slot;

static _Thread_local seg_slot seg_cache[SEG_SLOTS];

static inline seg_slot *seg_find(uint64_t pc)
{
    return &seg_cache[(pc * 0x9E3779B97F4A7C15ull) >> 54 & (SEG_SLOTS - 1)];
}

static inline void seg_apply(const seg_slot *sl, wc_inst *in)
{
    in->op = sl->op;
    in->unit = sl->unit;
    in->space = sl->space;
    in->width = sl->rwidth;
    in->ndst = sl->ndst;
    in->nsrc = sl->nsrc;
    in->iflags = sl->iflags;
    in->mflags = sl->mflags;
    memcpy(in->dst, sl->dst, sizeof in->dst);
    memcpy(in->src, sl->src, sizeof in->src);
    memcpy(in->dst_nregs, sl->dst_nregs, sizeof in->dst_nregs);
    memcpy(in->src_nregs, sl->src_nregs, sizeof in->src_nregs);
    memcpy(in->opcode, sl->opcode, sizeof in->opcode);
}

static void seg_store(seg_slot *sl, const wc_inst *in, const char *text,
                      size_t tlen, unsigned width, unsigned nops, int tma)
{
    sl->pc = in->pc;
    sl->tlen = (uint8_t)tlen;
    memcpy(sl->text, text, tlen);
    sl->width = (uint8_t)width;
    sl->nops = (uint8_t)nops;
    sl->tma = (uint8_t)tma;
    sl->op = in->op;
    sl->unit = in->unit;
    sl->space = in->space;
    sl->rwidth = in->width;
    sl->ndst = in->ndst;
    sl->nsrc = in->nsrc;
    sl->iflags = (uint8_t)(in->iflags & ~WC_IF_HAS_ADDR);
    sl->mflags = in->mflags;
    memcpy(sl->dst, in->dst, sizeof sl->dst);
    memcpy(sl->src, in->src, sizeof sl->src);
    memcpy(sl->dst_nregs, in->dst_nregs, sizeof sl->dst_nregs);
    memcpy(sl->src_nregs, in->src_nregs, sizeof sl->src_nregs);
    memcpy(sl->opcode, in->opcode, sizeof sl->opcode);
}

/* ---- the line -------------------------------------------------------------- */

/* The line-number column, PC and mask, the general way. */
static int parse_head(lcur *c, wc_inst *in)
{
    const char *s = c->s;
    size_t len = (size_t)(c->end - c->s);
    uint64_t v;
    if (!third_is_count(c) && !shape_ok(s, len, 0) && shape_ok(s, len, 1)) {
        if (tok_udec(c, UINT64_MAX, &v) != 0)
            return bad(c, "decimal source line number");
    }
    if (tok_hex(c, 16, &in->pc) != 0)
        return bad(c, "hex PC");
    if (tok_hex(c, 8, &v) != 0)
        return bad(c, "hex active mask (32 bits)");
    in->mask = (uint32_t)v;
    return 0;
}

/* Is the token at c->p a one- or two-digit count (no line column)? */
static inline int count_next(const lcur *c)
{
    const char *p = c->p, *e = c->end;
    while (p < e && is_sp(*p))
        p++;
    if (p == e || (unsigned)(unsigned char)*p - '0' > 9)
        return 0;
    p++;
    if (p < e && (unsigned)(unsigned char)*p - '0' <= 9)
        p++;
    return p == e || is_sp(*p);
}

int wc_trace_parse_line(const char *s, size_t len, int ver, wc_inst *in,
                        const char *file, long line, wc_diag *d)
{
    lcur c = {s, s, s + len, file, line, d};
    const char *t;
    size_t n;
    uint64_t v;

    if (ver < 3 || ver > 6)
        return wc_diag_set(d, WC_EINPUT, file, line, 0,
                           "unsupported tracer version %d (3 to 6 are read)",
                           ver);
    /* Fixed-size copy of a cleared record (cheaper than memset of the
     * whole struct); opcode[] is written below, addr[] only when addresses
     * are present (WC_IF_HAS_ADDR). */
    static const wc_inst blank = {
        .depbar_sb = -1,
        .ctrl = {.wbar = -1, .rbar = -1},
        .dst = {WC_REG_NONE, WC_REG_NONE, WC_REG_NONE, WC_REG_NONE},
        .src = {WC_REG_NONE, WC_REG_NONE, WC_REG_NONE, WC_REG_NONE,
                WC_REG_NONE, WC_REG_NONE, WC_REG_NONE, WC_REG_NONE},
    };
    memcpy(in, &blank, offsetof(wc_inst, opcode));
    in->opcode[0] = '\0';
    in->line = line > 0 && line <= (long)UINT32_MAX ? (uint32_t)line : 0;

    /* PC and mask.  Fast path: "PC mask" followed by a one- or two-digit
     * count (the tracer prints masks with 8 digits, so there is no line
     * column); otherwise decide the general way (parse_head). */
    if (tok_hex(&c, 16, &in->pc) != 0 || tok_hex(&c, 8, &v) != 0 ||
        !count_next(&c)) {
        c.p = s;
        if (parse_head(&c, in) != 0)
            return d->code;
    } else {
        in->mask = (uint32_t)v;
    }

    /* The segment "ndst Rd.. OPCODE nsrc Rs.. width": from the cache when
     * the text is the one last decoded at this PC. */
    const char *seg = c.p;
    while (seg < c.end && is_sp(*seg))
        seg++;
    seg_slot *sl = seg_find(in->pc);
    size_t rest = (size_t)(c.end - seg);
    uint64_t width, ndst, nsrc;
    unsigned nops;
    int tma, cached = 0, gmma = 0;
    if (sl->tlen && sl->pc == in->pc && rest >= sl->tlen &&
        memcmp(seg, sl->text, sl->tlen) == 0 &&
        (rest == sl->tlen || is_sp(seg[sl->tlen]))) {
        seg_apply(sl, in);
        c.p = seg + sl->tlen;
        width = sl->width;
        nops = sl->nops;
        tma = sl->tma;
        cached = 1;
    } else {
        if (tok_udec(&c, 32, &ndst) != 0)
            return bad(&c, "number of destination registers (0-32)");
        if (parse_regs(&c, (unsigned)ndst, in->dst, WC_MAX_DST,
                       "destination register") != 0)
            return d->code;
        in->ndst = (uint8_t)(ndst < WC_MAX_DST ? ndst : WC_MAX_DST);

        n = next_tok(&c, &t);
        if (!looks_opcode(t, n))
            return tok_err(&c, t, n, "opcode");
        if (n >= WC_OPCODE_LEN)
            return wc_diag_set(d, WC_EINPUT, file, line, (long)(t - s) + 1,
                               "opcode '%.*s' longer than %d characters",
                               (int)(n > 60 ? 60 : n), t, WC_OPCODE_LEN - 1);
        memcpy(in->opcode, t, n);
        in->opcode[n] = '\0';
        in->op = (uint16_t)op_lookup_cached(t, n);

        if (tok_udec(&c, 32, &nsrc) != 0)
            return bad(&c, "number of source registers (0-32)");
        if (parse_regs(&c, (unsigned)nsrc, in->src, WC_MAX_SRC,
                       "source register") != 0)
            return d->code;
        in->nsrc = (uint8_t)(nsrc < WC_MAX_SRC ? nsrc : WC_MAX_SRC);
        nops = (unsigned)(ndst + nsrc);

        /* Hopper GMMA: newer tracers add a commit-group flag before width
         * (decided from the rest of the line, so never cached). */
        gmma = is_gmma(in->opcode);
        if (gmma && gmma_flag(&c, ver)) {
            if (tok_udec(&c, 1, &v) != 0)
                return bad(&c, "GMMA commit-group flag 0 or 1");
        }

        if (tok_udec(&c, 255, &width) != 0)
            return bad(&c, "memory width in bytes (0-255)");
        in->width = (uint8_t)width;
        tma = width > 0 && is_tma(in->opcode);
    }
    const char *seg_end = c.p;

    if (width > 0) {
        if (tma) {
            /* TMA descriptors: addresses are not per lane; not decoded */
            c.p = c.end;
            goto finish;
        }
        if (parse_addrs(&c, in) != 0)
            return d->code;
    }

    if (ver >= 4) {
        if (tok_sdec(&c, &in->imm) != 0)
            return bad(&c, "decimal immediate");
    }
    if (ver == 6) {
        const char *save = c.p;
        int64_t imm2;
        n = next_tok(&c, &t);
        if (n > 0 && parse_sdec(t, n, &imm2) != 0)
            c.p = save; /* imm2 absent (early v6 tracers) */
        n = next_tok(&c, &t);
        if (n == 3 && memcmp(t, "Val", 3) == 0) {
            if (parse_vals(&c, nops) != 0)
                return d->code;
        } else if (n == 5 && memcmp(t, "NoVal", 5) == 0) {
            /* no values */
        } else if (n > 0) {
            return tok_err(&c, t, n, "'Val' or 'NoVal'");
        }
    }
    n = next_tok(&c, &t);
    if (n > 0)
        return wc_diag_set(d, WC_EINPUT, file, line, (long)(t - s) + 1,
                           "unexpected '%.*s' at end of instruction "
                           "(tracer version %d)",
                           (int)(n > 40 ? 40 : n), t, ver);
finish:
    if (!cached) { /* a cache hit copied finished fields */
        wc_inst_finish(in);
        size_t tl = (size_t)(seg_end - seg);
        if (!gmma && tl <= SEG_TEXT)
            seg_store(sl, in, seg, tl, (unsigned)width, nops, tma);
    }
    return 0;
}
