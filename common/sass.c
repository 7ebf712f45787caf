/*
 * common/sass.c - SASS instruction text: one parser for
 *   (a) hand-written microbenchmarks (.sass, CuAssembler control notation,
 *       directives .gpu .warp .warps .cta) -> wc_ubench, and
 *   (b) `cuobjdump -sass` / nvdisasm listings -> wc_sass (kernel -> pc ->
 *       instruction with the control bits of its encoding).
 * Lines copied from cuobjdump are accepted inside (a) as well.
 *
 * One line of instruction text:
 *
 *   [ctrl]? <addr> @!?Pn? OPCODE.MODS op, op, ... ;? <lo word>
 *   (<addr> is a comment holding hex digits, the words are "0x..." comments)
 *   (next line, when the lo word was given)              <hi word>
 *
 * Operands are parsed into a small array first; which of them are
 * destinations is then decided per opcode class (assign_operands).
 * Never prints; every malformed line -> WC_EINPUT with file:line:col.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wc.h"

/* ------------------------------------------------------------------------ */
/* Line context and diagnostics                                              */
/* ------------------------------------------------------------------------ */

typedef struct pctx {
    const char *file;
    long line;
    const char *s; /* the line (not NUL-terminated) */
    size_t len;    /* up to the comment, if any     */
    wc_diag *d;
} pctx;

static int is_ws(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}
static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}
static int is_hex(char ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}
static int is_upper(char ch)
{
    return ch >= 'A' && ch <= 'Z';
}
static int is_alpha(char ch)
{
    return is_upper(ch) || (ch >= 'a' && ch <= 'z') || ch == '_';
}
static int is_alnum(char ch)
{
    return is_alpha(ch) || is_digit(ch);
}
static int hexval(char ch)
{
    if (is_digit(ch))
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return ch - 'A' + 10;
}

static size_t skip_ws(const pctx *c, size_t p)
{
    while (p < c->len && is_ws(c->s[p]))
        p++;
    return p;
}

/* The token at p for "near '...'": printable, at most 40 characters. */
static void near_tok(const pctx *c, size_t p, char *buf, size_t n)
{
    size_t k = 0;
    if (p >= c->len) {
        snprintf(buf, n, "end of line");
        return;
    }
    while (p < c->len && k + 1 < n && k < 40) {
        char ch = c->s[p];
        if (is_ws(ch) || (k > 0 && (ch == ',' || ch == ';')))
            break;
        buf[k++] = (ch >= 0x20 && ch < 0x7f) ? ch : '?';
        p++;
        if (k == 1 && (ch == ',' || ch == ';'))
            break;
    }
    buf[k] = '\0';
}

static int perr(const pctx *c, size_t p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int perr(const pctx *c, size_t p, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wc_diag_set(c->d, WC_EINPUT, c->file, c->line, (long)p + 1, "%s",
                       msg);
}

/* "WHAT near 'TOKEN'" at p. */
static int perr_near(const pctx *c, size_t p, const char *what)
{
    char tok[48];
    near_tok(c, p, tok, sizeof tok);
    if (p >= c->len)
        return perr(c, p, "%s at end of line", what);
    return perr(c, p, "%s near '%s'", what, tok);
}

static int starts(const pctx *c, size_t p, const char *t)
{
    size_t n = strlen(t);
    return p + n <= c->len && memcmp(c->s + p, t, n) == 0;
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */
/* ------------------------------------------------------------------------ */

/* Hex "0x..." or decimal integer at p; sets *v and returns the end, or p
 * when none (or it overflows 64 bits). */
static size_t scan_uint(const pctx *c, size_t p, uint64_t *v)
{
    uint64_t x = 0;
    size_t q = p;
    if (starts(c, q, "0x") || starts(c, q, "0X")) {
        q += 2;
        size_t b = q;
        while (q < c->len && is_hex(c->s[q])) {
            if (q - b >= 16)
                return p;
            x = (x << 4) | (uint64_t)hexval(c->s[q]);
            q++;
        }
        if (q == b)
            return p;
    } else {
        size_t b = q;
        while (q < c->len && is_digit(c->s[q])) {
            uint64_t d = (uint64_t)(c->s[q] - '0');
            if (x > (UINT64_MAX - d) / 10)
                return p;
            x = x * 10 + d;
            q++;
        }
        if (q == b)
            return p;
    }
    *v = x;
    return q;
}

/* ------------------------------------------------------------------------ */
/* Operands                                                                  */
/* ------------------------------------------------------------------------ */

enum {
    OP_REG,   /* R/UR/P/UP register                        */
    OP_IMM,   /* integer or floating immediate             */
    OP_CONST, /* c[bank][offset]                           */
    OP_MEM,   /* [R2.64+0x10], desc[UR4][R2.64], gdesc[..] */
    OP_SR,    /* SR_xxx, SRZ                               */
    OP_SB,    /* SB0..SB5 (DEPBAR)                         */
    OP_CBAR,  /* B0.. convergence barrier                  */
    OP_LIST,  /* {4,3,2}                                   */
    OP_OTHER, /* label, PR, texture dimension, gsb0 ...    */
};

#define MAX_OPERANDS 16
#define MAX_MREGS 4

typedef struct operand {
    int kind;
    size_t col;
    int neg;      /* '!', '-' or '~' prefix */
    wc_reg reg;   /* OP_REG                 */
    int reuse;    /* OP_REG: .reuse         */
    wc_reg mreg[MAX_MREGS]; /* OP_MEM / OP_CONST registers, address first */
    size_t mcol[MAX_MREGS];
    int nm;
    wc_reg late[2]; /* descriptor registers (desc[URx]) */
    int nlate;
    int is_int;   /* OP_IMM: an integer     */
    int64_t ival;
    uint32_t const_addr; /* OP_CONST with literal bank and offset */
    int const_lit;
    int sb;       /* OP_SB                  */
    uint8_t ids;  /* OP_LIST                */
    int clock;    /* OP_SR: SR_CLOCKLO/HI   */
} operand;

/* Identifier [A-Za-z_][A-Za-z0-9_]* at p: returns its end (== p if none). */
static size_t scan_ident(const pctx *c, size_t p)
{
    size_t q = p;
    if (q < c->len && is_alpha(c->s[q])) {
        while (q < c->len && is_alnum(c->s[q]))
            q++;
    }
    return q;
}

/* Register suffixes ".64", ".reuse", ".H1_H1", ".X4" ...; sets *reuse. */
static size_t scan_suffixes(const pctx *c, size_t p, int *reuse)
{
    while (p + 1 < c->len && c->s[p] == '.' && is_alnum(c->s[p + 1])) {
        size_t b = p + 1, q = b;
        while (q < c->len && is_alnum(c->s[q]))
            q++;
        if (q - b == 5 && memcmp(c->s + b, "reuse", 5) == 0 && reuse)
            *reuse = 1;
        p = q;
    }
    return p;
}

/* Register name at p (without suffixes); returns end or p when none. */
static size_t scan_reg(const pctx *c, size_t p, wc_reg *r)
{
    size_t q = scan_ident(c, p);
    if (q == p || wc_reg_parse(c->s + p, q - p, r) != 0)
        return p;
    return q;
}

/* Contents of one [...] group: terms joined by '+' / '-'.  Registers are
 * added to o->mreg (or o->late when late).  Returns the position after ']'
 * or -1 with the diagnostic set. */
static long parse_bracket(const pctx *c, size_t p, operand *o, int late,
                          int *has_reg)
{
    /* p is at '[' */
    p++;
    int nterms = 0;
    for (;;) {
        p = skip_ws(c, p);
        int sign = 0;
        if (p < c->len && (c->s[p] == '+' || c->s[p] == '-')) {
            if (nterms == 0 && c->s[p] == '+')
                return perr_near(c, p, "expected address term"), -1;
            sign = 1;
            p = skip_ws(c, p + 1);
            if (p < c->len && c->s[p] == '-') /* "+-0x10" */
                p = skip_ws(c, p + 1);
        } else if (nterms > 0) {
            if (p < c->len && c->s[p] == ']')
                return (long)(p + 1);
            return perr_near(c, p, "expected '+' or ']'"), -1;
        }
        (void)sign;
        wc_reg r;
        uint64_t v;
        size_t q;
        if ((q = scan_reg(c, p, &r)) != p) {
            int reuse = 0;
            q = scan_suffixes(c, q, &reuse);
            if (late) {
                if (o->nlate >= 2)
                    return perr_near(c, p, "too many registers in descriptor"),
                           -1;
                o->late[o->nlate++] = r;
            } else {
                if (o->nm >= MAX_MREGS)
                    return perr_near(c, p, "too many registers in address"), -1;
                o->mcol[o->nm] = p;
                o->mreg[o->nm++] = r;
            }
            if (has_reg)
                *has_reg = 1;
            p = q;
        } else if ((q = scan_uint(c, p, &v)) != p) {
            p = q;
        } else {
            return perr_near(c, p, "expected register or offset"), -1;
        }
        nterms++;
        p = skip_ws(c, p);
        if (p < c->len && c->s[p] == ']')
            return (long)(p + 1);
        if (p >= c->len || (c->s[p] != '+' && c->s[p] != '-'))
            return perr_near(c, p, "expected '+' or ']'"), -1;
    }
}

static int ident_is(const pctx *c, size_t b, size_t e, const char *t)
{
    return strlen(t) == e - b && memcmp(c->s + b, t, e - b) == 0;
}

/* Non-register words accepted as operands. */
static int is_keyword(const pctx *c, size_t b, size_t e)
{
    static const char *const kw[] = {
        "PR",       "UPR",      "CUBE",     "ARRAY_1D", "ARRAY_2D",
        "ARRAY_3D", "ARRAY_CUBE", "gsb0",   "INF",      "QNAN",
        "NAN",      "SRZ",      "THREAD_MASK",
    };
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (ident_is(c, b, e, kw[i]))
            return 1;
    return 0;
}

/* Floating literal after the integer part: ".5", "e-08". */
static size_t scan_float_tail(const pctx *c, size_t q)
{
    if (q < c->len && c->s[q] == '.' && q + 1 < c->len &&
        is_digit(c->s[q + 1])) {
        q++;
        while (q < c->len && is_digit(c->s[q]))
            q++;
    } else if (q < c->len && c->s[q] == '.' &&
               (q + 1 >= c->len || !is_alpha(c->s[q + 1]))) {
        q++;
    }
    if (q < c->len && (c->s[q] == 'e' || c->s[q] == 'E')) {
        size_t r = q + 1;
        if (r < c->len && (c->s[r] == '+' || c->s[r] == '-'))
            r++;
        if (r < c->len && is_digit(c->s[r])) {
            while (r < c->len && is_digit(c->s[r]))
                r++;
            q = r;
        }
    }
    return q;
}

/* One operand at p.  Returns its end or -1. */
static long parse_operand(const pctx *c, size_t p, operand *o)
{
    memset(o, 0, sizeof *o);
    o->col = p;
    o->sb = -1;
    int abs_open = 0;
    while (p < c->len) {
        char ch = c->s[p];
        if (ch == '!' || ch == '-' || ch == '~') {
            o->neg = 1;
            p++;
        } else if (ch == '+') {
            p++;
        } else if (ch == '|' && !abs_open) {
            abs_open = 1;
            p++;
        } else {
            break;
        }
    }
    if (p >= c->len)
        return perr_near(c, p, "expected operand"), -1;
    char ch = c->s[p];
    size_t q;
    long r;
    if (ch == '[') {
        o->kind = OP_MEM;
        if ((r = parse_bracket(c, p, o, 0, NULL)) < 0)
            return -1;
        q = (size_t)r;
    } else if (ch == '{') {
        o->kind = OP_LIST;
        q = skip_ws(c, p + 1);
        if (q < c->len && c->s[q] == '}')
            return perr_near(c, q, "expected counter id"), -1;
        for (;;) {
            q = skip_ws(c, q);
            if (q >= c->len || c->s[q] < '0' || c->s[q] > '5' ||
                (q + 1 < c->len && is_alnum(c->s[q + 1])))
                return perr_near(c, q, "expected counter id 0-5"), -1;
            o->ids |= (uint8_t)(1u << (c->s[q] - '0'));
            q = skip_ws(c, q + 1);
            if (q < c->len && c->s[q] == '}') {
                q++;
                break;
            }
            if (q >= c->len || c->s[q] != ',')
                return perr_near(c, q, "expected ',' or '}'"), -1;
            q++;
        }
    } else if (ch == '`' || ch == '(') {
        /* nvdisasm labels `(.L_x_1) and (*"BRANCH_TARGETS ..."*) */
        o->kind = OP_OTHER;
        char close = ch == '`' ? ')' : ')';
        q = p + 1;
        while (q < c->len && c->s[q] != close)
            q++;
        if (q >= c->len)
            return perr_near(c, p, "unterminated label"), -1;
        q++;
    } else if (ch == '.' && p + 1 < c->len && is_alpha(c->s[p + 1])) {
        o->kind = OP_OTHER; /* .L_x_3 */
        q = p + 1;
        while (q < c->len && (is_alnum(c->s[q]) || c->s[q] == '.'))
            q++;
    } else if (is_digit(ch) || (ch == '.' && p + 1 < c->len &&
                                is_digit(c->s[p + 1]))) {
        uint64_t v = 0;
        q = scan_uint(c, p, &v);
        int hex = starts(c, p, "0x") || starts(c, p, "0X");
        if (q == p && !is_digit(ch)) {
            q = p;
        } else if (q == p) {
            return perr_near(c, p, "bad number"), -1;
        }
        size_t f = hex ? q : scan_float_tail(c, q);
        if (!hex && q < c->len && f == q && (c->s[q] == 'D')) {
            /* 1D 2D 3D texture dimensions */
            o->kind = OP_OTHER;
            q++;
        } else {
            o->kind = OP_IMM;
            o->is_int = f == q;
            o->ival = o->neg ? -(int64_t)v : (int64_t)v;
            q = f;
        }
        if (q < c->len && is_alnum(c->s[q]))
            return perr_near(c, p, "bad number"), -1;
    } else if (is_alpha(ch)) {
        size_t e = scan_ident(c, p);
        if (e < c->len && c->s[e] == '[' &&
            (ident_is(c, p, e, "c") || ident_is(c, p, e, "cx"))) {
            /* c[bank][offset] */
            o->kind = OP_CONST;
            size_t b1 = e + 1;
            uint64_t bank = 0, off = 0;
            int has_reg = 0;
            size_t t = skip_ws(c, b1), u;
            if ((u = scan_uint(c, t, &bank)) != t &&
                skip_ws(c, u) < c->len && c->s[skip_ws(c, u)] == ']') {
                q = skip_ws(c, u) + 1;
            } else {
                if ((r = parse_bracket(c, e, o, 0, &has_reg)) < 0)
                    return -1;
                q = (size_t)r;
            }
            if (q >= c->len || c->s[q] != '[')
                return perr_near(c, q, "expected '[' of constant offset"), -1;
            t = skip_ws(c, q + 1);
            if ((u = scan_uint(c, t, &off)) != t && skip_ws(c, u) < c->len &&
                c->s[skip_ws(c, u)] == ']' && !has_reg) {
                q = skip_ws(c, u) + 1;
                if (bank > 0xff || off > 0xffff)
                    return perr_near(c, p, "constant address out of range"),
                           -1;
                o->const_lit = 1;
                o->const_addr = (uint32_t)((bank << 16) | off);
            } else {
                if ((r = parse_bracket(c, q, o, 0, NULL)) < 0)
                    return -1;
                q = (size_t)r;
            }
        } else if (e < c->len && c->s[e] == '[') {
            /* desc[UR4][R2.64+0x10], gdesc[UR4], tmem[...] */
            o->kind = OP_MEM;
            if ((r = parse_bracket(c, e, o, 0, NULL)) < 0)
                return -1;
            q = (size_t)r;
            if (q < c->len && c->s[q] == '[') {
                /* the first group was the descriptor */
                operand tmp = *o;
                o->nm = 0;
                for (int i = 0; i < tmp.nm && o->nlate < 2; i++)
                    o->late[o->nlate++] = tmp.mreg[i];
                if ((r = parse_bracket(c, q, o, 0, NULL)) < 0)
                    return -1;
                q = (size_t)r;
            }
        } else {
            wc_reg reg;
            if (wc_reg_parse(c->s + p, e - p, &reg) == 0) {
                o->kind = OP_REG;
                o->reg = reg;
                q = scan_suffixes(c, e, &o->reuse);
            } else if (e - p >= 3 && memcmp(c->s + p, "SR_", 3) == 0) {
                o->kind = OP_SR;
                o->clock = ident_is(c, p, e, "SR_CLOCKLO") ||
                           ident_is(c, p, e, "SR_CLOCKHI");
                q = scan_suffixes(c, e, NULL); /* SR_TID.X */
            } else if (e - p == 3 && c->s[p] == 'S' && c->s[p + 1] == 'B' &&
                       c->s[p + 2] >= '0' && c->s[p + 2] <= '5') {
                o->kind = OP_SB;
                o->sb = c->s[p + 2] - '0';
                q = e;
            } else if (e - p >= 2 && e - p <= 3 && c->s[p] == 'B' &&
                       is_digit(c->s[p + 1]) &&
                       (e - p == 2 || is_digit(c->s[p + 2]))) {
                o->kind = OP_CBAR;
                q = e;
            } else if (is_keyword(c, p, e)) {
                o->kind = ident_is(c, p, e, "INF") || ident_is(c, p, e, "QNAN") ||
                                  ident_is(c, p, e, "NAN")
                              ? OP_IMM
                              : OP_OTHER;
                q = ident_is(c, p, e, "SRZ") ? e : e;
                if (ident_is(c, p, e, "SRZ"))
                    o->kind = OP_SR;
            } else {
                return perr_near(c, p, "expected register"), -1;
            }
        }
    } else {
        return perr_near(c, p, "expected operand"), -1;
    }
    if (abs_open) {
        if (q >= c->len || c->s[q] != '|')
            return perr_near(c, q, "expected '|'"), -1;
        q++;
    }
    /* suffixes after a closing '|' or ']' (".H1_H1", ".reuse") */
    if (o->kind == OP_REG)
        q = scan_suffixes(c, q, &o->reuse);
    else
        q = scan_suffixes(c, q, NULL);
    return (long)q;
}

/* ------------------------------------------------------------------------ */
/* Destinations and sources                                                  */
/* ------------------------------------------------------------------------ */

static int base_is(const char *base, const char *t)
{
    return strcmp(base, t) == 0;
}

/* Opcodes whose operands are all read. */
static int is_nodst(const char *base, const wc_opinfo *oi)
{
    if (oi->flags & (WC_OPF_CTRL | WC_OPF_BAR | WC_OPF_DEPBAR | WC_OPF_NOP |
                     WC_OPF_FENCE))
        return 1;
    if ((oi->flags & WC_OPF_STORE) && !(oi->flags & WC_OPF_LOAD))
        return 1;
    static const char *const l[] = {"BSSY", "WARPSYNC", "NANOSLEEP", "YIELD",
                                    "LDGDEPBAR", "BPT", "PMTRIG"};
    for (size_t i = 0; i < sizeof l / sizeof l[0]; i++)
        if (base_is(base, l[i]))
            return 1;
    return 0;
}

/* Compares: leading predicate operands (up to two) are the destinations. */
static int is_setp(const char *base)
{
    return strstr(base, "SETP") != NULL || base_is(base, "PLOP3") ||
           base_is(base, "UPLOP3") || base_is(base, "FCHK");
}

static int is_pred_reg(const operand *o)
{
    return o->kind == OP_REG && (WC_REG_IS_P(o->reg) || WC_REG_IS_UP(o->reg));
}

static int add_src(const pctx *c, wc_inst *in, wc_reg r, int reuse,
                   size_t col, int *nregular)
{
    if (in->nsrc >= WC_MAX_SRC)
        return perr_near(c, col, "too many source operands");
    if (WC_REG_IS_R(r)) {
        if (reuse && *nregular < 8)
            in->ctrl.reuse = (uint8_t)(in->ctrl.reuse | (1u << *nregular));
        (*nregular)++;
    } else if (reuse) {
        return perr_near(c, col, "'.reuse' on a non-regular register");
    }
    in->src[in->nsrc++] = r;
    return 0;
}

static int add_dst(const pctx *c, wc_inst *in, const operand *o)
{
    if (in->ndst >= WC_MAX_DST)
        return perr_near(c, o->col, "too many destination operands");
    if (o->reuse)
        return perr_near(c, o->col, "'.reuse' on a destination operand");
    in->dst[in->ndst++] = o->reg;
    return 0;
}

static int assign_operands(const pctx *c, wc_inst *in, const char *base,
                           operand *ops, int nops)
{
    const wc_opinfo *oi = wc_op_info(in->op);
    int i = 0, nregular = 0, rc;
    if (!is_nodst(base, oi)) {
        if (is_setp(base)) {
            while (i < nops && i < 2 && is_pred_reg(&ops[i]) && !ops[i].neg)
                if ((rc = add_dst(c, in, &ops[i++])) != 0)
                    return rc;
        } else {
            if (i < nops && is_pred_reg(&ops[i]) && !ops[i].neg)
                if ((rc = add_dst(c, in, &ops[i++])) != 0)
                    return rc;
            if (i < nops && ops[i].kind == OP_REG && !ops[i].neg &&
                (WC_REG_IS_R(ops[i].reg) || WC_REG_IS_UR(ops[i].reg))) {
                if ((rc = add_dst(c, in, &ops[i++])) != 0)
                    return rc;
                /* carry-outs (IADD3 R2, P0, ...); VOTE Rd, Pd, Psrc */
                int lim = base_is(base, "VOTE") || base_is(base, "VOTEU") ? 1 : 2;
                while (i < nops && lim-- > 0 && is_pred_reg(&ops[i]) &&
                       !ops[i].neg)
                    if ((rc = add_dst(c, in, &ops[i++])) != 0)
                        return rc;
            }
        }
    }
    wc_reg late[4];
    size_t latecol[4];
    int nlate = 0;
    for (; i < nops; i++) {
        operand *o = &ops[i];
        switch (o->kind) {
        case OP_REG:
            if ((rc = add_src(c, in, o->reg, o->reuse, o->col, &nregular)) != 0)
                return rc;
            break;
        case OP_MEM:
        case OP_CONST:
            for (int k = 0; k < o->nm; k++)
                if ((rc = add_src(c, in, o->mreg[k], 0, o->mcol[k],
                                  &nregular)) != 0)
                    return rc;
            for (int k = 0; k < o->nlate && nlate < 4; k++) {
                latecol[nlate] = o->col;
                late[nlate++] = o->late[k];
            }
            if (o->kind == OP_CONST && o->const_lit) {
                in->iflags |= WC_IF_CONSTOP;
                in->const_addr = o->const_addr;
            }
            break;
        case OP_IMM:
            if (o->is_int)
                in->imm = o->ival;
            break;
        case OP_SR:
            if (o->clock)
                in->iflags |= WC_IF_CLOCK;
            break;
        default:
            break;
        }
    }
    for (int k = 0; k < nlate; k++)
        if ((rc = add_src(c, in, late[k], 0, latecol[k], &nregular)) != 0)
            return rc;
    return 0;
}

/* DEPBAR.LE SBx, N [, {ids}] and DEPBAR {ids}. */
static int fill_depbar(const pctx *c, wc_inst *in, const operand *ops,
                       int nops, size_t opcol)
{
    int i = 0;
    if (nops == 0)
        return perr(c, opcol, "DEPBAR needs 'SBx, N' or an id list");
    if (ops[0].kind == OP_SB) {
        in->depbar_sb = (int8_t)ops[0].sb;
        if (nops < 2 || ops[1].kind != OP_IMM || !ops[1].is_int)
            return perr_near(c, nops < 2 ? c->len : ops[1].col,
                             "expected count after 'SBx,'");
        if (ops[1].ival < 0 || ops[1].ival > 63)
            return perr_near(c, ops[1].col, "DEPBAR count out of range 0-63");
        in->depbar_le = (uint8_t)ops[1].ival;
        i = 2;
    } else if (ops[0].kind == OP_LIST) {
        in->depbar_sb = 0;
        in->depbar_le = 63; /* no bound on SB0: only the id list waits */
    } else {
        return perr_near(c, ops[0].col, "expected SBx");
    }
    if (i < nops) {
        if (ops[i].kind != OP_LIST)
            return perr_near(c, ops[i].col, "expected id list '{...}'");
        in->depbar_ids = ops[i].ids;
        i++;
    }
    if (i < nops)
        return perr_near(c, ops[i].col, "unexpected operand");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* One instruction line                                                      */
/* ------------------------------------------------------------------------ */

typedef struct iline {
    int has_ctrl;
    wc_ctrl ctrl;
    int has_addr;
    uint64_t addr;
    int has_lo;
    int guard_off; /* @!PT */
    wc_inst in;
} iline;

/* Comment at p: an address (hex digits, *is_enc = 0) or an encoding word
 * ("0x" and hex digits, *is_enc = 1).  Returns the end or p when neither. */
static size_t scan_comment_word(const pctx *c, size_t p, uint64_t *v,
                                int *is_enc)
{
    if (!starts(c, p, "/*"))
        return p;
    size_t q = skip_ws(c, p + 2);
    *is_enc = starts(c, q, "0x");
    size_t e;
    if (*is_enc) {
        e = scan_uint(c, q, v);
    } else {
        uint64_t x = 0;
        e = q;
        while (e < c->len && is_hex(c->s[e]) && e - q < 16) {
            x = (x << 4) | (uint64_t)hexval(c->s[e]);
            e++;
        }
        *v = x;
    }
    if (e == q)
        return p;
    e = skip_ws(c, e);
    if (!starts(c, e, "*/"))
        return p;
    return e + 2;
}

/* A line holding only "/\* 0x... *\/" (second encoding word)? */
static int hi_word_line(const pctx *c, uint64_t *hi)
{
    size_t p = skip_ws(c, 0);
    int is_enc = 0;
    size_t e = scan_comment_word(c, p, hi, &is_enc);
    return e != p && is_enc && skip_ws(c, e) == c->len;
}

static int parse_iline(const pctx *c, size_t p, int allow_ctrl, iline *L)
{
    memset(L, 0, sizeof *L);
    wc_inst *in = &L->in;
    in->depbar_sb = -1;
    in->mask = 0xffffffffu;
    in->line = (uint32_t)(c->line > 0 && c->line < 0x7fffffff ? c->line : 0);
    for (int k = 0; k < 2; k++) {
        p = skip_ws(c, p);
        if (p < c->len && c->s[p] == '[' && !L->has_ctrl) {
            if (!allow_ctrl)
                return perr_near(c, p, "control code not allowed here");
            size_t e = p;
            while (e < c->len && c->s[e] != ']' && !is_ws(c->s[e]))
                e++;
            if (e < c->len && c->s[e] == ']')
                e++;
            int rc = wc_ctrl_parse(c->s + p, e - p, &L->ctrl);
            if (rc != 0) {
                size_t bad = p + (size_t)(-rc) - 1;
                char tok[48];
                near_tok(c, p, tok, sizeof tok);
                if (bad >= e && (e >= c->len || c->s[e - 1] != ']'))
                    return perr(c, bad, "incomplete control code '%s'", tok);
                return perr(c, bad, "bad control code '%s' near '%c'", tok,
                            (c->s[bad] >= 0x20 && c->s[bad] < 0x7f)
                                ? c->s[bad]
                                : '?');
            }
            L->has_ctrl = 1;
            p = e;
        } else if (starts(c, p, "/*") && !L->has_addr) {
            int is_enc = 0;
            uint64_t v = 0;
            size_t e = scan_comment_word(c, p, &v, &is_enc);
            if (e == p || is_enc)
                return perr_near(c, p, "bad address comment");
            L->has_addr = 1;
            L->addr = v;
            p = e;
        }
    }
    p = skip_ws(c, p);
    if (p < c->len && c->s[p] == '{')
        p = skip_ws(c, p + 1); /* dual-issue braces of old listings */
    if (p < c->len && c->s[p] == '@') {
        size_t g = p + 1;
        int neg = 0;
        if (g < c->len && c->s[g] == '!')
            neg = 1, g++;
        wc_reg r;
        size_t e = scan_reg(c, g, &r);
        if (e == g || !(WC_REG_IS_P(r) || WC_REG_IS_UP(r)))
            return perr_near(c, g, "expected predicate");
        if (neg && (r == WC_PT || r == WC_UPT)) {
            L->guard_off = 1;
            in->mask = 0;
            in->iflags |= WC_IF_PRED_OFF;
        }
        p = skip_ws(c, e);
    }
    size_t opcol = p;
    if (p >= c->len || !is_upper(c->s[p]))
        return perr_near(c, p, "expected opcode");
    size_t e = p;
    while (e < c->len && (is_alnum(c->s[e]) || c->s[e] == '.'))
        e++;
    if (e - p >= WC_OPCODE_LEN)
        return perr_near(c, p, "opcode too long");
    memcpy(in->opcode, c->s + p, e - p);
    in->opcode[e - p] = '\0';
    in->op = (uint16_t)wc_op_lookup(in->opcode, e - p);
    char base[WC_OPCODE_LEN];
    size_t bl = strcspn(in->opcode, ".");
    memcpy(base, in->opcode, bl);
    base[bl] = '\0';
    if (e < c->len && !is_ws(c->s[e]) && c->s[e] != ';' && c->s[e] != '}')
        return perr_near(c, p, "bad opcode");
    p = skip_ws(c, e);

    operand ops[MAX_OPERANDS];
    int nops = 0;
    while (p < c->len && c->s[p] != ';' && c->s[p] != '}' &&
           !starts(c, p, "/*")) {
        if (nops >= MAX_OPERANDS)
            return perr_near(c, p, "too many operands");
        long r = parse_operand(c, p, &ops[nops]);
        if (r < 0)
            return c->d ? c->d->code : WC_EINPUT;
        nops++;
        p = skip_ws(c, (size_t)r);
        if (p < c->len && c->s[p] == ',') {
            p = skip_ws(c, p + 1);
            if (p >= c->len || c->s[p] == ';' || c->s[p] == ',')
                return perr_near(c, p, "expected operand");
        }
    }
    if (p < c->len && c->s[p] == '}')
        p = skip_ws(c, p + 1);
    if (p < c->len && c->s[p] == ';')
        p = skip_ws(c, p + 1);
    if (starts(c, p, "/*")) {
        int is_enc = 0;
        uint64_t lo = 0;
        size_t q = scan_comment_word(c, p, &lo, &is_enc);
        if (q == p || !is_enc)
            return perr_near(c, p, "bad encoding word");
        L->has_lo = 1;
        p = skip_ws(c, q);
    }
    if (p < c->len)
        return perr_near(c, p, "unexpected text after instruction");

    int rc = assign_operands(c, in, base, ops, nops);
    if (rc)
        return rc;
    int depbar = in->op != WC_OP_UNKNOWN &&
                 (wc_op_info(in->op)->flags & WC_OPF_DEPBAR);
    if (depbar && (rc = fill_depbar(c, in, ops, nops, opcol)) != 0)
        return rc;
    for (int i = 0; i < nops && !depbar; i++)
        if (ops[i].kind == OP_LIST || ops[i].kind == OP_SB)
            return perr_near(c, ops[i].col,
                             ops[i].kind == OP_LIST
                                 ? "counter id list outside DEPBAR"
                                 : "dependence counter outside DEPBAR");
    return 0;
}

/* Control bits of an instruction: text reuse bits always win, the rest
 * comes from the notation or the encoding. */
static void set_ctrl(wc_inst *in, const wc_ctrl *ctrl)
{
    uint8_t reuse = in->ctrl.reuse;
    in->ctrl = *ctrl;
    in->ctrl.reuse = reuse;
    in->ctrl.valid = 1;
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct lines {
    const char *text;
    size_t len, pos;
    long line;
} lines;

/* Next line into c (comments '#' and '//' cut off).  Returns 0 at end. */
static int next_line(lines *ls, pctx *c)
{
    if (ls->pos >= ls->len)
        return 0;
    const char *b = ls->text + ls->pos;
    size_t rem = ls->len - ls->pos;
    const char *nl = memchr(b, '\n', rem);
    size_t n = nl ? (size_t)(nl - b) : rem;
    ls->pos += nl ? n + 1 : n;
    ls->line++;
    c->line = ls->line;
    c->s = b;
    c->len = n;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == '#' || (b[i] == '/' && i + 1 < n && b[i + 1] == '/')) {
            c->len = i;
            break;
        }
    }
    while (c->len > 0 && is_ws(b[c->len - 1]))
        c->len--;
    return 1;
}

/* cuobjdump header and decoration lines that carry nothing we need. */
static int is_listing_noise(const pctx *c, size_t p)
{
    static const char *const pre[] = {
        "code for sm_", "Fatbin ", "=====",    "arch =",     "code version",
        "host =",       "compile_size", "identifier", "ptxasOptions",
        "producer =",   "........", ".headerflags", ".section", ".sectionflags",
        ".sectioninfo", ".align",   ".global",  ".type",      ".size",
        ".other",       ".weak",    ".elftype", ".zero",      ".byte",
        ".short",       ".word",    ".dword",   "----",
        /* CUDA 11 to 13 cuobjdump: section headers of each fatbin entry */
        ".target",      "compressed", "member ",
    };
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (starts(c, p, pre[i]))
            return 1;
    /* nvdisasm labels ".L_x_12:" */
    if (starts(c, p, ".L") && c->len > 0 && c->s[c->len - 1] == ':')
        return 1;
    return 0;
}

/* "Function : NAME" or ".text.NAME:" -> the name span, else 0. */
static int kernel_header(const pctx *c, size_t p, size_t *nb, size_t *ne)
{
    if (starts(c, p, "Function")) {
        size_t q = skip_ws(c, p + 8);
        if (q >= c->len || c->s[q] != ':')
            return 0;
        q = skip_ws(c, q + 1);
        if (q >= c->len)
            return 0;
        *nb = q;
        *ne = c->len;
        return 1;
    }
    if (starts(c, p, ".text.") && c->s[c->len - 1] == ':' &&
        c->len - 1 > p + 6) {
        *nb = p + 6;
        *ne = c->len - 1;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Growable instruction arrays                                               */
/* ------------------------------------------------------------------------ */

typedef struct ivec {
    wc_inst *v;
    size_t n, cap;
} ivec;

static wc_inst *ivec_push(ivec *a)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 16;
        wc_inst *nv = realloc(a->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        a->v = nv;
        a->cap = nc;
    }
    return &a->v[a->n++];
}

/* ------------------------------------------------------------------------ */
/* cuobjdump listings                                                        */
/* ------------------------------------------------------------------------ */

typedef struct sass_kernel {
    char *name;
    char *file; /* the listing it came from (diagnostics) */
    ivec code;  /* sorted by pc */
} sass_kernel;

struct wc_sass {
    sass_kernel *k;
    size_t n, cap;
};

static int kcmp(const void *a, const void *b)
{
    return strcmp(((const sass_kernel *)a)->name, ((const sass_kernel *)b)->name);
}

static int pccmp(const void *a, const void *b)
{
    uint64_t x = ((const wc_inst *)a)->pc, y = ((const wc_inst *)b)->pc;
    return x < y ? -1 : x > y;
}

static sass_kernel *sass_find_kernel(const wc_sass *s, const char *name)
{
    if (!s || !name || s->n == 0)
        return NULL;
    sass_kernel key = {.name = (char *)(uintptr_t)name};
    return bsearch(&key, s->k, s->n, sizeof *s->k, kcmp);
}

void wc_sass_free(wc_sass *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->k[i].name);
        free(s->k[i].file);
        free(s->k[i].code.v);
    }
    free(s->k);
    free(s);
}

static int oom(wc_diag *d, const char *name)
{
    return wc_diag_set(d, WC_EINTERNAL, name, 0, 0, "out of memory");
}

/* Start kernel name[0..n) unless already present (other architectures of a
 * fat binary repeat kernels: the first listing wins).  *cur = NULL then. */
static int sass_begin_kernel(wc_sass *s, const char *file, const char *name,
                             size_t n, sass_kernel **cur)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strlen(s->k[i].name) == n && memcmp(s->k[i].name, name, n) == 0) {
            *cur = NULL;
            return 0;
        }
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        sass_kernel *nk = realloc(s->k, nc * sizeof *nk);
        if (!nk)
            return -1;
        s->k = nk;
        s->cap = nc;
    }
    sass_kernel *k = &s->k[s->n];
    memset(k, 0, sizeof *k);
    k->name = malloc(n + 1);
    k->file = strdup(file);
    if (!k->name || !k->file) {
        free(k->name);
        free(k->file);
        return -1;
    }
    memcpy(k->name, name, n);
    k->name[n] = '\0';
    s->n++;
    *cur = k;
    return 0;
}

static int sass_finish(wc_sass *s, const char *name, wc_diag *d)
{
    for (size_t i = 0; i < s->n; i++) {
        ivec *v = &s->k[i].code;
        if (v->n > 1)
            qsort(v->v, v->n, sizeof *v->v, pccmp);
        for (size_t j = 1; j < v->n; j++)
            if (v->v[j].pc == v->v[j - 1].pc)
                return wc_diag_set(d, WC_EINPUT, name, (long)v->v[j].line, 1,
                                   "duplicate address /*%04llx*/ in '%s'",
                                   (unsigned long long)v->v[j].pc,
                                   s->k[i].name);
    }
    if (s->n > 1)
        qsort(s->k, s->n, sizeof *s->k, kcmp);
    return 0;
}

int wc_sass_parse(const char *name, const char *text, size_t len,
                  wc_sass **out, wc_diag *d)
{
    *out = NULL;
    if (!name)
        name = "<sass>";
    wc_sass *s = calloc(1, sizeof *s);
    if (!s)
        return oom(d, name);
    lines ls = {text, text ? len : 0, 0, 0};
    pctx c = {name, 0, NULL, 0, d};
    sass_kernel *cur = NULL;
    int in_kernel = 0, rc = 0, in_ptx = 0;
    wc_inst *pending = NULL; /* waits for its second encoding word */
    long pending_line = 0;
    while (next_line(&ls, &c)) {
        size_t p = skip_ws(&c, 0);
        uint64_t hi;
        if (p >= c.len)
            continue;
        if (hi_word_line(&c, &hi)) {
            if (!pending && pending_line == 0) {
                rc = perr(&c, p, "encoding word without an instruction "
                                 "(pre-Volta listings are not supported)");
                goto fail;
            }
            if (pending) {
                wc_ctrl_decode(hi, &pending->ctrl);
                set_ctrl(pending, &pending->ctrl);
            }
            pending = NULL;
            pending_line = 0;
            continue;
        }
        if (pending_line) {
            rc = perr(&c, p, "expected the second encoding word '/* 0x... */' "
                             "of the instruction on line %ld",
                      pending_line);
            goto fail;
        }
        /* A PTX entry ("Fatbin ptx code:", with its PTX text under
         * cuobjdump -ptx) lasts until the next fatbin entry or kernel
         * (CUDA 13 lists further kernels right after a PTX entry's
         * header, without a "Fatbin elf code:" line). */
        if (starts(&c, p, "Fatbin ")) {
            in_ptx = starts(&c, p, "Fatbin ptx code");
            in_kernel = 0;
            cur = NULL;
            continue;
        }
        size_t nb, ne;
        int is_kernel = kernel_header(&c, p, &nb, &ne);
        if (in_ptx && !is_kernel)
            continue;
        in_ptx = 0;
        if (is_kernel) {
            if (sass_begin_kernel(s, name, c.s + nb, ne - nb, &cur) != 0) {
                rc = oom(d, name);
                goto fail;
            }
            in_kernel = 1;
            continue;
        }
        if (is_listing_noise(&c, p))
            continue;
        if (!starts(&c, p, "/*")) {
            rc = perr_near(&c, p, "unexpected text");
            goto fail;
        }
        iline L;
        if ((rc = parse_iline(&c, p, 0, &L)) != 0)
            goto fail;
        if (!L.has_addr) {
            rc = perr_near(&c, p, "expected address '/*0000*/'");
            goto fail;
        }
        if (!in_kernel) {
            rc = perr(&c, p, "instruction outside a 'Function :' block");
            goto fail;
        }
        if (L.has_lo)
            pending_line = c.line;
        if (!cur) /* a repeated kernel: skipped */
            continue;
        wc_inst *in = ivec_push(&cur->code);
        if (!in) {
            rc = oom(d, name);
            goto fail;
        }
        *in = L.in;
        in->pc = L.addr;
        wc_inst_finish(in);
        if (L.has_lo)
            pending = in;
    }
    if (pending_line) {
        c.len = 0;
        rc = wc_diag_set(d, WC_EINPUT, name, ls.line + 1, 1,
                         "expected the second encoding word of the "
                         "instruction on line %ld, got end of file",
                         pending_line);
        goto fail;
    }
    if ((rc = sass_finish(s, name, d)) != 0)
        goto fail;
    *out = s;
    return 0;
fail:
    wc_sass_free(s);
    return rc ? rc : WC_EINPUT;
}

int wc_sass_load(const char *path, wc_sass **out, wc_diag *d)
{
    char *buf;
    size_t len;
    *out = NULL;
    int rc = wc_read_file(path, &buf, &len, d);
    if (rc)
        return rc;
    rc = wc_sass_parse(path, buf, len, out, d);
    free(buf);
    return rc;
}

void wc_sass_merge(wc_sass *a, wc_sass *b)
{
    if (!a || !b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        sass_kernel *k = &b->k[i];
        int keep = !sass_find_kernel(a, k->name);
        if (keep && a->n == a->cap) {
            size_t nc = a->cap ? a->cap * 2 : 8;
            sass_kernel *nk = realloc(a->k, nc * sizeof *nk);
            if (nk) {
                a->k = nk;
                a->cap = nc;
            } else {
                keep = 0; /* out of memory: the kernel is dropped */
            }
        }
        if (keep) {
            a->k[a->n++] = *k;
            /* keep a sorted for the lookups of the next iterations */
            qsort(a->k, a->n, sizeof *a->k, kcmp);
        } else {
            free(k->name);
            free(k->file);
            free(k->code.v);
        }
    }
    b->n = 0;
    wc_sass_free(b);
}

size_t wc_sass_nkernels(const wc_sass *s)
{
    return s ? s->n : 0;
}

int wc_sass_has_kernel(const wc_sass *s, const char *kernel)
{
    return sass_find_kernel(s, kernel) != NULL;
}

const char *wc_sass_kernel_file(const wc_sass *s, const char *kernel)
{
    const sass_kernel *k = sass_find_kernel(s, kernel);
    return k ? k->file : NULL;
}

const wc_inst *wc_sass_find(const wc_sass *s, const char *kernel, uint64_t pc)
{
    const sass_kernel *k = sass_find_kernel(s, kernel);
    if (!k || k->code.n == 0)
        return NULL;
    const wc_inst *v = k->code.v;
    size_t n = k->code.n;
    /* listings are dense: try pc / 16 first */
    if ((pc & 15) == 0 && pc / 16 < n && v[pc / 16].pc == pc)
        return &v[pc / 16];
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].pc == pc)
            return &v[mid];
        if (v[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Hand-written microbenchmarks                                              */
/* ------------------------------------------------------------------------ */

#define UB_MAX_WARPS 64

typedef struct uwarp {
    unsigned id;
    int subcore;
    long line; /* of its .warp directive (0: implicit) */
    ivec code;
} uwarp;

typedef struct ustate {
    uwarp w[UB_MAX_WARPS];
    unsigned nw;
    int explicit_warp;
    unsigned reps;     /* .warps N, 0 when absent */
    long reps_line;
    size_t reps_col;
    unsigned threads;  /* .cta threads N, 0 when absent */
    long threads_line;
    size_t threads_col;
    char gpu[WC_CFG_STR_LEN];
    long gpu_line, gpu_col;
    int have_gpu;
} ustate;

/* Word [*b, *e) at p (up to white space). */
static size_t word_at(const pctx *c, size_t p, size_t *b)
{
    p = skip_ws(c, p);
    *b = p;
    while (p < c->len && !is_ws(c->s[p]))
        p++;
    return p;
}

/* Decimal number word at p in [lo, hi]; what names it in errors. */
static long dir_num(const pctx *c, size_t *p, unsigned lo, unsigned hi,
                    const char *what, unsigned *out)
{
    size_t b, e = word_at(c, *p, &b);
    uint64_t v = 0;
    if (b >= c->len)
        return perr(c, b, "expected %s at end of line", what), -1;
    if (scan_uint(c, b, &v) != e || starts(c, b, "0x"))
        return perr(c, b, "expected %s near '%.*s'", what,
                    (int)(e - b > 40 ? 40 : e - b), c->s + b),
               -1;
    if (v < lo || v > hi)
        return perr(c, b, "%s %llu out of range %u-%u", what,
                    (unsigned long long)v, lo, hi),
               -1;
    *out = (unsigned)v;
    *p = e;
    return 0;
}

static int dir_end(const pctx *c, size_t p, const char *dir)
{
    p = skip_ws(c, p);
    if (p < c->len) {
        char tok[48];
        near_tok(c, p, tok, sizeof tok);
        return perr(c, p, "unexpected '%s' after %s", tok, dir);
    }
    return 0;
}

static int ub_directive(const pctx *c, size_t p, ustate *u)
{
    size_t b = p, e = p + 1;
    while (e < c->len && is_alnum(c->s[e]))
        e++;
    unsigned v;
    if (ident_is(c, b + 1, e, "gpu")) {
        size_t nb, ne = word_at(c, e, &nb);
        if (nb >= c->len)
            return perr(c, nb, "expected GPU name after .gpu");
        if (ne - nb >= WC_CFG_STR_LEN)
            return perr(c, nb, "GPU name too long");
        for (size_t i = nb; i < ne; i++)
            if (!is_alnum(c->s[i]) && c->s[i] != '-' && c->s[i] != '.' &&
                c->s[i] != '/')
                return perr_near(c, i, "bad character in GPU name");
        if (u->have_gpu)
            return perr(c, b, "duplicate '.gpu'");
        memcpy(u->gpu, c->s + nb, ne - nb);
        u->gpu[ne - nb] = '\0';
        u->gpu_line = (long)c->line;
        u->gpu_col = (long)nb + 1;
        u->have_gpu = 1;
        return dir_end(c, ne, ".gpu");
    }
    if (ident_is(c, b + 1, e, "warp")) {
        size_t q = e;
        if (dir_num(c, &q, 0, UB_MAX_WARPS - 1, "warp number", &v) < 0)
            return WC_EINPUT;
        int sub = -1;
        size_t kb, ke = word_at(c, q, &kb);
        if (kb < c->len) {
            if (!ident_is(c, kb, ke, "subcore"))
                return perr_near(c, kb, "expected 'subcore'");
            unsigned sv;
            q = ke;
            if (dir_num(c, &q, 0, 3, "sub-core", &sv) < 0)
                return WC_EINPUT;
            sub = (int)sv;
        }
        if (dir_end(c, q, ".warp"))
            return WC_EINPUT;
        if (u->nw > 0 && !u->explicit_warp)
            return perr(c, b, "'.warp' after instructions that belong to no "
                              "warp");
        for (unsigned i = 0; i < u->nw; i++)
            if (u->w[i].id == v)
                return perr(c, b, "duplicate '.warp %u' (first on line %ld)",
                            v, u->w[i].line);
        uwarp *w = &u->w[u->nw++];
        memset(w, 0, sizeof *w);
        w->id = v;
        w->subcore = sub;
        w->line = c->line;
        u->explicit_warp = 1;
        return 0;
    }
    if (ident_is(c, b + 1, e, "warps")) {
        size_t q = e;
        if (dir_num(c, &q, 1, UB_MAX_WARPS, "warp count", &v) < 0)
            return WC_EINPUT;
        if (dir_end(c, q, ".warps"))
            return WC_EINPUT;
        if (u->reps)
            return perr(c, b, "duplicate '.warps'");
        u->reps = v;
        u->reps_line = c->line;
        u->reps_col = b;
        return 0;
    }
    if (ident_is(c, b + 1, e, "cta")) {
        size_t kb, ke = word_at(c, e, &kb);
        if (!ident_is(c, kb, ke, "threads"))
            return perr_near(c, kb, "unknown .cta option");
        size_t q = ke;
        if (dir_num(c, &q, 1, 1024, "thread count", &v) < 0)
            return WC_EINPUT;
        if (dir_end(c, q, ".cta threads"))
            return WC_EINPUT;
        if (u->threads)
            return perr(c, b, "duplicate '.cta threads'");
        u->threads = v;
        u->threads_line = c->line;
        u->threads_col = b;
        return 0;
    }
    char tok[48];
    near_tok(c, b, tok, sizeof tok);
    return perr(c, b, "unknown directive '%s'", tok);
}

void wc_ubench_free(wc_ubench *u)
{
    if (!u)
        return;
    if (u->code)
        for (unsigned i = 0; i < u->nwarps; i++)
            free(u->code[i]);
    free(u->code);
    free(u->ninsts);
    free(u->subcore);
    free(u->warp_id);
    free(u);
}

/* Build the result from the parsed state (checks that need the whole file). */
static int ub_build(ustate *u, const char *name, long last_line,
                    wc_ubench **out, wc_diag *d)
{
    if (u->reps && u->explicit_warp)
        return wc_diag_set(d, WC_EINPUT, name, u->reps_line,
                           (long)u->reps_col + 1,
                           "'.warps' cannot be combined with '.warp' blocks");
    if (u->nw == 0)
        return wc_diag_set(d, WC_EINPUT, name, last_line > 0 ? last_line : 1,
                           0, "no instructions");
    for (unsigned i = 0; i < u->nw; i++)
        if (u->w[i].code.n == 0)
            return wc_diag_set(d, WC_EINPUT, name, u->w[i].line, 1,
                               "warp %u has no instructions", u->w[i].id);
    unsigned nwarps = u->reps ? u->reps : u->nw;
    unsigned maxid = 0;
    for (unsigned i = 0; i < nwarps; i++) {
        unsigned id = u->reps ? i : u->w[i].id;
        if (id > maxid)
            maxid = id;
    }
    unsigned threads = u->threads ? u->threads : 32u * (maxid + 1);
    if (threads <= 32u * maxid)
        return wc_diag_set(d, WC_EINPUT, name, u->threads_line,
                           (long)u->threads_col + 1,
                           "'.cta threads %u' leaves warp %u without threads",
                           threads, maxid);
    wc_ubench *r = calloc(1, sizeof *r);
    if (!r)
        return oom(d, name);
    r->nwarps = nwarps;
    r->cta_threads = threads;
    memcpy(r->gpu, u->gpu, sizeof r->gpu);
    r->gpu_line = u->gpu_line;
    r->gpu_col = u->gpu_col;
    r->subcore = calloc(nwarps, sizeof *r->subcore);
    r->warp_id = calloc(nwarps, sizeof *r->warp_id);
    r->code = calloc(nwarps, sizeof *r->code);
    r->ninsts = calloc(nwarps, sizeof *r->ninsts);
    if (!r->subcore || !r->warp_id || !r->code || !r->ninsts)
        goto nomem;
    for (unsigned i = 0; i < nwarps; i++) {
        const uwarp *w = &u->w[u->reps ? 0 : i];
        unsigned id = u->reps ? i : w->id;
        r->warp_id[i] = id;
        r->subcore[i] = u->reps ? -1 : w->subcore;
        r->ninsts[i] = w->code.n;
        r->code[i] = malloc(w->code.n * sizeof *r->code[i]);
        if (!r->code[i])
            goto nomem;
        memcpy(r->code[i], w->code.v, w->code.n * sizeof *r->code[i]);
        unsigned lanes = threads - 32u * id;
        uint32_t m = lanes >= 32 ? 0xffffffffu : (uint32_t)((1u << lanes) - 1u);
        for (size_t k = 0; k < w->code.n; k++)
            r->code[i][k].mask &= m;
    }
    *out = r;
    return 0;
nomem:
    wc_ubench_free(r);
    return oom(d, name);
}

int wc_ubench_parse(const char *name, const char *text, size_t len,
                    wc_ubench **out, wc_diag *d)
{
    *out = NULL;
    if (!name)
        name = "<ubench>";
    ustate *u = calloc(1, sizeof *u);
    if (!u)
        return oom(d, name);
    lines ls = {text, text ? len : 0, 0, 0};
    pctx c = {name, 0, NULL, 0, d};
    int rc = 0;
    wc_inst *pending = NULL;
    long pending_line = 0;
    while (next_line(&ls, &c)) {
        size_t p = skip_ws(&c, 0), nb, ne;
        uint64_t hi;
        if (p >= c.len)
            continue;
        if (hi_word_line(&c, &hi)) {
            if (!pending) {
                rc = perr(&c, p, "encoding word without an instruction");
                goto done;
            }
            wc_ctrl ct;
            wc_ctrl_decode(hi, &ct);
            if (!pending->ctrl.valid) /* an explicit [..] code wins */
                set_ctrl(pending, &ct);
            pending = NULL;
            pending_line = 0;
            continue;
        }
        if (pending_line) {
            rc = perr(&c, p, "expected the second encoding word '/* 0x... */' "
                             "of the instruction on line %ld",
                      pending_line);
            goto done;
        }
        if (kernel_header(&c, p, &nb, &ne) || is_listing_noise(&c, p))
            continue;
        if (c.s[p] == '.') {
            if ((rc = ub_directive(&c, p, u)) != 0)
                goto done;
            continue;
        }
        iline L;
        if ((rc = parse_iline(&c, p, 1, &L)) != 0)
            goto done;
        if (!L.has_ctrl && !L.has_lo) {
            rc = perr_near(&c, p, "missing control code '[B------:R-:W-:-:S01]'");
            goto done;
        }
        if (u->nw == 0) {
            memset(&u->w[0], 0, sizeof u->w[0]);
            u->w[0].subcore = -1;
            u->nw = 1;
        }
        uwarp *w = &u->w[u->nw - 1];
        uint64_t pc = w->code.n ? w->code.v[w->code.n - 1].pc + 16 : 0;
        if (L.has_addr) {
            if (w->code.n && L.addr <= w->code.v[w->code.n - 1].pc) {
                rc = perr(&c, p, "address /*%04llx*/ does not follow the "
                                 "previous instruction",
                          (unsigned long long)L.addr);
                goto done;
            }
            pc = L.addr;
        }
        wc_inst *in = ivec_push(&w->code);
        if (!in) {
            rc = oom(d, name);
            goto done;
        }
        *in = L.in;
        in->pc = pc;
        if (L.has_ctrl)
            set_ctrl(in, &L.ctrl);
        wc_inst_finish(in);
        if (L.has_lo) {
            pending = in;
            pending_line = c.line;
        }
    }
    if (pending_line) {
        rc = wc_diag_set(d, WC_EINPUT, name, ls.line + 1, 1,
                         "expected the second encoding word of the "
                         "instruction on line %ld, got end of file",
                         pending_line);
        goto done;
    }
    rc = ub_build(u, name, ls.line, out, d);
done:
    for (unsigned i = 0; i < u->nw; i++)
        free(u->w[i].code.v);
    free(u);
    return rc;
}

int wc_ubench_load(const char *path, wc_ubench **out, wc_diag *d)
{
    char *buf;
    size_t len;
    *out = NULL;
    int rc = wc_read_file(path, &buf, &len, d);
    if (rc)
        return rc;
    rc = wc_ubench_parse(path, buf, len, out, d);
    free(buf);
    return rc;
}
