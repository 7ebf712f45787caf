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
 *
 * The optional source line column is detected per line from the shape of
 * the first tokens, so the reader does not depend on "-enable lineinfo".
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
    const char *t;
    for (unsigned i = 0; i < cnt; i++) {
        size_t n = next_tok(c, &t);
        wc_reg r;
        if (trace_reg(t, n, &r) != 0)
            return tok_err(c, t, n, what);
        if (i < maxn)
            out[i] = r;
    }
    return 0;
}

/* mode 0/1/2 address list for the active lanes of mask. */
static int parse_addrs(lcur *c, wc_inst *in)
{
    const char *t;
    size_t n = next_tok(c, &t);
    uint64_t mode;
    if (parse_udec(t, n, 2, &mode) != 0)
        return tok_err(c, t, n, "address mode 0, 1 or 2");
    memset(in->addr, 0, sizeof in->addr);
    uint32_t m = in->mask;
    unsigned act = (unsigned)__builtin_popcount(m);
    uint64_t a, prev = 0;
    if (mode == 0) {
        for (unsigned lane = 0; lane < WC_WARP_SIZE; lane++) {
            if (!(m >> lane & 1u))
                continue;
            n = next_tok(c, &t);
            if (parse_hex(t, n, 16, &a) != 0)
                return tok_err(c, t, n, "hex address (one per active lane)");
            in->addr[lane] = a;
        }
    } else {
        n = next_tok(c, &t);
        if (parse_hex(t, n, 16, &a) != 0)
            return tok_err(c, t, n, "hex base address");
        if (mode == 1) {
            int64_t stride;
            n = next_tok(c, &t);
            if (parse_sdec(t, n, &stride) != 0)
                return tok_err(c, t, n, "decimal stride");
            uint64_t k = 0;
            for (unsigned lane = 0; lane < WC_WARP_SIZE; lane++)
                if (m >> lane & 1u)
                    in->addr[lane] = a + (uint64_t)stride * k++;
        } else {
            int first = 1;
            for (unsigned lane = 0; lane < WC_WARP_SIZE; lane++) {
                if (!(m >> lane & 1u))
                    continue;
                if (first) {
                    in->addr[lane] = prev = a;
                    first = 0;
                    continue;
                }
                int64_t delta;
                n = next_tok(c, &t);
                if (parse_sdec(t, n, &delta) != 0)
                    return tok_err(c, t, n,
                                   act > 1 ? "decimal address delta "
                                             "(popcount(mask)-1 of them)"
                                           : "decimal address delta");
                prev += (uint64_t)delta;
                in->addr[lane] = prev;
            }
        }
    }
    in->iflags |= WC_IF_HAS_ADDR;
    return 0;
}

/* v6 register value lists: per operand "1 V" or "32 V0 .. V31". */
static int parse_vals(lcur *c, unsigned nops)
{
    const char *t;
    for (unsigned i = 0; i < nops; i++) {
        size_t n = next_tok(c, &t);
        uint64_t cnt, v;
        if (parse_udec(t, n, 32, &cnt) != 0 || (cnt != 1 && cnt != 32))
            return tok_err(c, t, n, "value count 1 or 32");
        for (uint64_t j = 0; j < cnt; j++) {
            n = next_tok(c, &t);
            if (parse_hex(t, n, 16, &v) != 0)
                return tok_err(c, t, n, "hex register value");
        }
    }
    return 0;
}

/* ---- the line -------------------------------------------------------------- */

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

    /* Optional source line column.  Fast path: the third token is a one-
     * or two-digit count (the tracer prints masks with 8 digits), so there
     * is no line column; otherwise decide from the shape of the line. */
    if (!third_is_count(&c) && !shape_ok(s, len, 0) && shape_ok(s, len, 1)) {
        n = next_tok(&c, &t);
        if (parse_udec(t, n, UINT64_MAX, &v) != 0)
            return tok_err(&c, t, n, "decimal source line number");
    }

    n = next_tok(&c, &t);
    if (parse_hex(t, n, 16, &in->pc) != 0)
        return tok_err(&c, t, n, "hex PC");
    n = next_tok(&c, &t);
    if (parse_hex(t, n, 8, &v) != 0)
        return tok_err(&c, t, n, "hex active mask (32 bits)");
    in->mask = (uint32_t)v;

    n = next_tok(&c, &t);
    uint64_t ndst;
    if (parse_udec(t, n, 32, &ndst) != 0)
        return tok_err(&c, t, n, "number of destination registers (0-32)");
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

    n = next_tok(&c, &t);
    uint64_t nsrc;
    if (parse_udec(t, n, 32, &nsrc) != 0)
        return tok_err(&c, t, n, "number of source registers (0-32)");
    if (parse_regs(&c, (unsigned)nsrc, in->src, WC_MAX_SRC,
                   "source register") != 0)
        return d->code;
    in->nsrc = (uint8_t)(nsrc < WC_MAX_SRC ? nsrc : WC_MAX_SRC);

    /* Hopper GMMA: newer tracers add a commit-group flag before width. */
    if (is_gmma(in->opcode) && gmma_flag(&c, ver)) {
        n = next_tok(&c, &t);
        if (parse_udec(t, n, 1, &v) != 0)
            return tok_err(&c, t, n, "GMMA commit-group flag 0 or 1");
    }

    n = next_tok(&c, &t);
    uint64_t width;
    if (parse_udec(t, n, 255, &width) != 0)
        return tok_err(&c, t, n, "memory width in bytes (0-255)");
    in->width = (uint8_t)width;
    if (width > 0) {
        if (is_tma(in->opcode)) {
            /* TMA descriptors: addresses are not per lane; not decoded */
            c.p = c.end;
            goto finish;
        }
        if (parse_addrs(&c, in) != 0)
            return d->code;
    }

    if (ver >= 4) {
        n = next_tok(&c, &t);
        if (parse_sdec(t, n, &in->imm) != 0)
            return tok_err(&c, t, n, "decimal immediate");
    }
    if (ver == 6) {
        const char *save = c.p;
        int64_t imm2;
        n = next_tok(&c, &t);
        if (n > 0 && parse_sdec(t, n, &imm2) != 0)
            c.p = save; /* imm2 absent (early v6 tracers) */
        n = next_tok(&c, &t);
        if (n == 3 && memcmp(t, "Val", 3) == 0) {
            if (parse_vals(&c, (unsigned)(ndst + nsrc)) != 0)
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
    wc_inst_finish(in);
    return 0;
}
