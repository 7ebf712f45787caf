/*
 * gen/sass_emu_parse.c - the trace builder's own reader of `cuobjdump -sass`
 * listings: finds one kernel's instructions and decodes the operands the
 * emulation needs (registers, immediates, c[bank][offset], memory
 * references).  Header lines of any CUDA version (Fatbin sections, arch =,
 * .target, ptxasOptions, compressed, .headerflags ...) are skipped: only
 * `Function : NAME` lines and instruction lines (a PC comment, the
 * instruction, ';') matter here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sass_emu_int.h"

static const char *const se_mod_names[SM_COUNT] = {
    "128",
    "32",
    "64",
    "ALL",
    "AND",
    "ANY",
    "DIV",
    "EX",
    "F64",
    "HI",
    "L",
    "OR",
    "PASS_B",
    "S16",
    "S32",
    "S64",
    "S8",
    "SH",
    "SX32",
    "U16",
    "U32",
    "U64",
    "U8",
    "W",
    "WIDE",
    "X",
    "XOR",
    "LT",
    "LE",
    "GT",
    "GE",
    "EQ",
    "NE",
    "T",
    "F",
};

/* SM_* bits of the opcode's modifiers. */
static uint64_t mod_bits(const char *opc)
{
    uint64_t m = 0;
    const char *p = strchr(opc, '.');
    while (p) {
        p++;
        const char *e = strchr(p, '.');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        for (int i = 0; i < SM_COUNT; i++)
            if (strlen(se_mod_names[i]) == len && !memcmp(se_mod_names[i], p, len))
                m |= 1ull << i;
        p = e;
    }
    return m;
}

void se_kernel_free(se_kernel *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->ins[i].pre);
    free(k->ins);
    memset(k, 0, sizeof *k);
}

/* ---- small lexing helpers -------------------------------------------- */

static int is_ident(int c)
{
    return isalnum(c) || c == '_';
}

/* Register name at s (length n): kind and number, or SK_NONE. */
static int reg_name(const char *s, size_t n, int *num)
{
    if (n == 2 && !memcmp(s, "RZ", 2)) {
        *num = 255;
        return SK_R;
    }
    if (n == 3 && !memcmp(s, "URZ", 3)) {
        *num = 63;
        return SK_UR;
    }
    if (n == 2 && !memcmp(s, "PT", 2)) {
        *num = 7;
        return SK_P;
    }
    if (n == 3 && !memcmp(s, "UPT", 3)) {
        *num = 7;
        return SK_UP;
    }
    int kind = SK_NONE;
    size_t i = 0;
    if (n >= 3 && s[0] == 'U' && s[1] == 'R') {
        kind = SK_UR;
        i = 2;
    } else if (n >= 3 && s[0] == 'U' && s[1] == 'P') {
        kind = SK_UP;
        i = 2;
    } else if (n >= 2 && s[0] == 'R') {
        kind = SK_R;
        i = 1;
    } else if (n >= 2 && s[0] == 'P') {
        kind = SK_P;
        i = 1;
    } else {
        return SK_NONE;
    }
    int v = 0;
    for (; i < n; i++) {
        if (!isdigit((unsigned char)s[i]) || v > 1000)
            return SK_NONE;
        v = v * 10 + (s[i] - '0');
    }
    int lim = kind == SK_R ? 255 : kind == SK_UR ? 63 : 7;
    if (v > lim)
        return SK_NONE;
    *num = v;
    return kind;
}

static int sr_name(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int id;
    } t[] = {
        {"SRZ", SR_ZERO},          {"SR_TID.X", SR_TID_X},
        {"SR_TID.Y", SR_TID_Y},    {"SR_TID.Z", SR_TID_Z},
        {"SR_CTAID.X", SR_CTAID_X}, {"SR_CTAID.Y", SR_CTAID_Y},
        {"SR_CTAID.Z", SR_CTAID_Z}, {"SR_LANEID", SR_LANEID},
        {"SR_CgaCtaId", SR_CGACTAID},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strlen(t[i].name) == n && !memcmp(t[i].name, s, n))
            return t[i].id;
    return SR_UNKNOWN;
}

/* Parse an unsigned integer (0x hex or decimal) filling all of s[0..n). */
static int parse_uint(const char *s, size_t n, uint64_t *v)
{
    char buf[40];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (!isdigit((unsigned char)buf[0]))
        return -1;
    char *end;
    *v = strtoull(buf, &end, 0);
    return *end ? -1 : 0;
}

/* Register with suffixes inside brackets or alone: "R2.64", "UR4", "R3.X4".
 * Returns the kind (SK_R/SK_UR) or SK_NONE. */
static int bracket_reg(const char *s, size_t n, int *num, uint8_t *wide,
                       uint8_t *scale)
{
    size_t i = 0;
    while (i < n && is_ident((unsigned char)s[i]))
        i++;
    int kind = reg_name(s, i, num);
    if (kind != SK_R && kind != SK_UR)
        return SK_NONE;
    *wide = 0;
    *scale = 1;
    while (i < n && s[i] == '.') {
        size_t j = ++i;
        while (i < n && is_ident((unsigned char)s[i]))
            i++;
        if (i - j == 2 && !memcmp(s + j, "64", 2))
            *wide = 1;
        else if (i - j == 2 && !memcmp(s + j, "X4", 2))
            *scale = 4;
        else if (i - j == 2 && !memcmp(s + j, "X8", 2))
            *scale = 8;
        else if (i - j == 3 && !memcmp(s + j, "X16", 3))
            *scale = 16;
    }
    return i == n ? kind : SK_NONE;
}

/* "R2.64+UR4+-0x10" inside brackets.  Fills ix_r/ix_ur/imm.  0 or -1. */
static int parse_addr_terms(const char *s, size_t n, se_op *o)
{
    size_t i = 0;
    o->ix_r = -1;
    o->ix_ur = -1;
    o->imm = 0;
    o->ix_scale = 1;
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        int neg = 0;
        if (i < n && (s[i] == '-' || s[i] == '+')) {
            neg = s[i] == '-';
            i++;
        }
        size_t j = i;
        while (i < n && s[i] != '+' && !(s[i] == '-' && i > j))
            i++;
        size_t e = i;
        while (e > j && s[e - 1] == ' ')
            e--;
        if (e == j)
            return -1;
        int num;
        uint8_t wide, scale;
        int kind = bracket_reg(s + j, e - j, &num, &wide, &scale);
        uint64_t v;
        if (kind == SK_R && !neg && o->ix_r < 0) {
            o->ix_r = (int16_t)num;
            o->ix_r64 = wide;
            o->ix_scale = scale;
        } else if (kind == SK_UR && !neg && o->ix_ur < 0) {
            o->ix_ur = (int16_t)num;
            o->ix_ur64 = wide;
        } else if (kind == SK_NONE && parse_uint(s + j, e - j, &v) == 0) {
            o->imm += neg ? -(int64_t)v : (int64_t)v;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Find the ']' matching the '[' at s[0]. */
static size_t close_bracket(const char *s, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '[')
            depth++;
        else if (s[i] == ']' && --depth == 0)
            return i;
    }
    return n;
}

static void parse_operand(const char *s, size_t n, se_op *o)
{
    memset(o, 0, sizeof *o);
    o->ix_r = o->ix_ur = -1;
    o->k = SK_OTHER;
    while (n && s[n - 1] == ' ')
        n--;
    while (n && s[0] == ' ') {
        s++;
        n--;
    }
    for (;;) {
        if (n && s[0] == '-') {
            o->neg ^= 1;
        } else if (n && (s[0] == '!' || s[0] == '~')) {
            o->inv ^= 1;
        } else if (n && s[0] == '+') {
            ;
        } else if (n >= 2 && s[0] == '|' && s[n - 1] == '|') {
            o->absv = 1;
            n--;
        } else {
            break;
        }
        s++;
        n--;
    }
    if (n == 0)
        return;
    if ((n > 2 && !memcmp(s, "c[", 2)) || (n > 3 && !memcmp(s, "cx[", 3))) {
        size_t b = s[1] == 'x' ? 2 : 1;
        size_t e1 = b + close_bracket(s + b, n - b);
        if (e1 >= n || s[e1 + 1] != '[')
            return;
        size_t e2 = e1 + 1 + close_bracket(s + e1 + 1, n - e1 - 1);
        if (e2 >= n)
            return;
        uint64_t bank;
        if (parse_uint(s + b + 1, e1 - b - 1, &bank) == 0 && bank < 32)
            o->bank = (int16_t)bank;
        else
            o->bank = -1;
        if (parse_addr_terms(s + e1 + 2, e2 - e1 - 2, o) != 0)
            return;
        o->k = SK_CB;
        return;
    }
    if (n > 5 && !memcmp(s, "desc[", 5)) {
        size_t e1 = 4 + close_bracket(s + 4, n - 4);
        if (e1 + 1 >= n || s[e1 + 1] != '[')
            return;
        o->desc = 1;
        s += e1 + 1;
        n -= e1 + 1;
    }
    if (s[0] == '[') {
        size_t e = close_bracket(s, n);
        if (e >= n || parse_addr_terms(s + 1, e - 1, o) != 0)
            return;
        o->k = SK_MREF;
        return;
    }
    if (n >= 3 && (!memcmp(s, "SR_", 3) || (n == 3 && !memcmp(s, "SRZ", 3)))) {
        o->k = SK_SR;
        o->sr = (int16_t)sr_name(s, n);
        return;
    }
    if (s[0] == '`' || s[0] == '.') {
        o->k = SK_LABEL;
        return;
    }
    size_t i = 0;
    while (i < n && is_ident((unsigned char)s[i]))
        i++;
    int num;
    int kind = reg_name(s, i, &num);
    if (kind != SK_NONE) {
        o->k = (uint8_t)kind;
        o->reg = (int16_t)num;
        while (i < n && s[i] == '.') {
            size_t j = ++i;
            while (i < n && is_ident((unsigned char)s[i]))
                i++;
            if (i - j == 2 && !memcmp(s + j, "64", 2))
                o->wide = 1;
        }
        return;
    }
    if (isdigit((unsigned char)s[0])) {
        uint64_t v;
        if (parse_uint(s, n, &v) == 0) {
            o->k = SK_IMM;
            o->imm = o->neg ? -(int64_t)v : (int64_t)v;
            o->neg = 0;
        } else {
            o->k = SK_FIMM;
        }
        return;
    }
    if ((n >= 3 && (!memcmp(s, "INF", 3) || !memcmp(s, "QNAN", 4) ||
                    !memcmp(s, "NAN", 3))))
        o->k = SK_FIMM;
}

/* ---- trace-line facts ------------------------------------------------- */

static int is_number_tok(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* The NVBit tracer's access width: the first token of the opcode that is a
 * number (bits) or U<bits>, else 4 bytes. */
static unsigned tracer_width(const char *opc)
{
    const char *p = opc;
    while (*p) {
        const char *e = strchr(p, '.');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (is_number_tok(p, n))
            return (unsigned)atoi(p) / 8;
        if (n > 1 && p[0] == 'U' && is_number_tok(p + 1, n - 1))
            return (unsigned)atoi(p + 1) / 8;
        if (!e)
            break;
        p = e + 1;
    }
    return 4;
}

static int mem_space(const char *base)
{
    if (!strcmp(base, "LDS") || !strcmp(base, "STS") || !strcmp(base, "ATOMS") ||
        !strcmp(base, "LDSM") || !strcmp(base, "STSM"))
        return SP_SHARED;
    if (!strcmp(base, "LDL") || !strcmp(base, "STL"))
        return SP_LOCAL;
    return SP_GLOBAL;
}

/* How many consecutive registers operand i of in names. */
static int op_nregs(const se_ins *in, int i)
{
    const se_op *o = &in->op[i];
    if (o->wide)
        return 2;
    if (in->base[0] == 'D' && strcmp(in->base, "DEPBAR") != 0)
        return 2; /* DFMA, DADD, DMUL, DSETP: register pairs */
    if (i == 0) {
        if (SE_MOD(in, 128))
            return 4;
        if (SE_MOD(in, 64) || SE_MOD(in, WIDE) ||
            SE_MOD(in, F64) || (!strcmp(in->base, "CS2R") &&
                                      !SE_MOD(in, 32)))
            return 2;
    }
    return 1;
}

static void trace_facts(se_ins *in)
{
    in->tdst = -1;
    in->ntsrc = 0;
    in->mref = -1;
    for (int i = 0; i < in->nop; i++) {
        const se_op *o = &in->op[i];
        int reg = -1;
        if (o->k == SK_MREF) {
            reg = o->ix_r >= 0 ? o->ix_r : 255;
            if (in->mref < 0)
                in->mref = (int8_t)i;
        } else if (o->k == SK_R) {
            if (i == 0) {
                in->tdst = o->reg;
                continue;
            }
            reg = o->reg;
        } else if (o->k == SK_CB && o->ix_r >= 0) {
            reg = o->ix_r;
        }
        if (reg >= 0 && in->ntsrc < SE_MAXSRC)
            in->tsrc[in->ntsrc++] = (int16_t)reg;
    }
    in->is_mem = in->mref >= 0;
    if (in->is_mem) {
        in->width = (uint8_t)tracer_width(in->opc);
        in->space = (uint8_t)mem_space(in->base);
    }
}

/* ---- lines ------------------------------------------------------------- */

/* Decode one instruction text s[0..n) (after the PC comment). */
static int parse_ins(const char *path, long line, int col, const char *s,
                     size_t n, se_ins *in, wc_diag *d)
{
    memset(in, 0, sizeof *in);
    in->line = line;
    in->col = col;
    in->guard = -1;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '{'))
        i++;
    if (i < n && s[i] == '@') {
        i++;
        if (i < n && s[i] == '!') {
            in->guard_neg = 1;
            i++;
        }
        size_t j = i;
        while (i < n && is_ident((unsigned char)s[i]))
            i++;
        int num;
        int kind = reg_name(s + j, i - j, &num);
        if (kind != SK_P && kind != SK_UP)
            return wc_diag_set(d, WC_EINPUT, path, line, col + (long)j,
                               "bad guard predicate");
        in->guard = (int8_t)num;
        in->guard_u = kind == SK_UP;
        while (i < n && s[i] == ' ')
            i++;
    }
    size_t j = i;
    while (i < n && s[i] != ' ')
        i++;
    if (i == j || i - j >= sizeof in->opc)
        return wc_diag_set(d, WC_EINPUT, path, line, col + (long)j,
                           "expected an opcode");
    memcpy(in->opc, s + j, i - j);
    in->opc[i - j] = 0;
    size_t b = strcspn(in->opc, ".");
    if (b >= sizeof in->base)
        b = sizeof in->base - 1;
    memcpy(in->base, in->opc, b);
    in->base[b] = 0;
    in->mods = mod_bits(in->opc);
    /* operands, split at top-level commas */
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        if (i >= n)
            break;
        size_t st = i;
        int depth = 0;
        while (i < n && !(s[i] == ',' && depth == 0)) {
            if (s[i] == '[')
                depth++;
            else if (s[i] == ']')
                depth--;
            i++;
        }
        if (in->nop >= SE_MAXOP)
            return wc_diag_set(d, WC_EINPUT, path, line, col + (long)st,
                               "too many operands");
        se_op *o = &in->op[in->nop++];
        parse_operand(s + st, i - st, o);
        o->col = col + (int)st;
        if (i < n)
            i++; /* the comma */
    }
    trace_facts(in);
    return WC_OK;
}

/* "Function : NAME" at the start of a trimmed line: the name, else NULL. */
static const char *function_name(const char *s, size_t n, size_t *len)
{
    static const char key[] = "Function : ";
    size_t kl = sizeof key - 1;
    if (n <= kl || memcmp(s, key, kl) != 0)
        return NULL;
    const char *p = s + kl;
    size_t m = n - kl;
    while (m && (p[m - 1] == ' ' || p[m - 1] == '\r' || p[m - 1] == '\t'))
        m--;
    *len = m;
    return p;
}

static int arch_of(const char *s, size_t n)
{
    /* "arch = sm_90", "code for sm_90", ".target sm_90" */
    for (size_t i = 0; i + 3 < n; i++)
        if (!memcmp(s + i, "sm_", 3) && isdigit((unsigned char)s[i + 3]))
            return atoi(s + i + 3);
    return 0;
}

int se_parse_kernel(const char *path, const char *text, size_t len,
                    const char *name, se_kernel *k, wc_diag *d)
{
    memset(k, 0, sizeof *k);
    k->max_reg = -1;
    char names[2048];
    size_t nl = 0;
    int nfunc = 0, arch = 0, in_kernel = 0;
    size_t cap = 0;
    long line = 0;
    names[0] = 0;
    for (size_t pos = 0; pos < len;) {
        const char *s = text + pos;
        const char *e = memchr(s, '\n', len - pos);
        size_t n = e ? (size_t)(e - s) : len - pos;
        pos += n + 1;
        line++;
        size_t t = 0;
        while (t < n && (s[t] == ' ' || s[t] == '\t'))
            t++;
        const char *ts = s + t;
        size_t tn = n - t;
        while (tn && (ts[tn - 1] == '\r' || ts[tn - 1] == ' '))
            tn--;
        size_t fl;
        const char *fn = function_name(ts, tn, &fl);
        if (fn) {
            if (in_kernel == 1)
                in_kernel = 2; /* done; go on collecting names */
            nfunc++;
            if (nl + fl + 3 < sizeof names) {
                if (nl)
                    names[nl++] = ',', names[nl++] = ' ';
                memcpy(names + nl, fn, fl);
                nl += fl;
                names[nl] = 0;
            }
            if (!in_kernel &&
                ((name && strlen(name) == fl && !memcmp(name, fn, fl)) ||
                 (!name && nfunc == 1))) {
                in_kernel = 1;
                if (fl >= sizeof k->name)
                    fl = sizeof k->name - 1;
                memcpy(k->name, fn, fl);
                k->name[fl] = 0;
                k->binary_version = arch;
            }
            continue;
        }
        if (in_kernel != 1) {
            if ((tn >= 4 && !memcmp(ts, "arch", 4)) ||
                (tn >= 8 && !memcmp(ts, "code for", 8)))
                arch = arch_of(ts, tn) ? arch_of(ts, tn) : arch;
            continue;
        }
        if ((tn >= 5 && !memcmp(ts, ".....", 5)) ||
            (tn >= 6 && !memcmp(ts, "Fatbin", 6))) {
            in_kernel = 2;
            continue;
        }
        /* a PC comment, the instruction text, ';', the encoding comment */
        if (tn < 5 || ts[0] != '/' || ts[1] != '*' || !isxdigit((unsigned char)ts[2]))
            continue;
        const char *ce = strstr(ts, "*/");
        if (!ce || ce > ts + tn)
            continue;
        uint64_t pc;
        {
            char buf[24];
            size_t hl = (size_t)(ce - ts - 2);
            if (hl == 0 || hl >= sizeof buf)
                continue;
            memcpy(buf, ts + 2, hl);
            buf[hl] = 0;
            char *end;
            pc = strtoull(buf, &end, 16);
            if (*end)
                continue;
        }
        const char *is = ce + 2;
        const char *lim = ts + tn;
        const char *semi = memchr(is, ';', (size_t)(lim - is));
        const char *cm = strstr(is, "/*");
        const char *ie = semi ? semi : (cm && cm < lim ? cm : lim);
        while (is < ie && *is == ' ')
            is++;
        while (ie > is && (ie[-1] == ' ' || ie[-1] == '}'))
            ie--;
        if (ie == is)
            continue;
        if (k->n == cap) {
            cap = cap ? cap * 2 : 256;
            se_ins *ni = realloc(k->ins, cap * sizeof *ni);
            if (!ni) {
                se_kernel_free(k);
                return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "out of memory");
            }
            k->ins = ni;
        }
        se_ins *in = &k->ins[k->n];
        int col = (int)(is - s) + 1;
        if (parse_ins(path, line, col, is, (size_t)(ie - is), in, d) != 0) {
            se_kernel_free(k);
            return d->code;
        }
        in->pc = (uint32_t)pc;
        if (k->n && in->pc <= k->ins[k->n - 1].pc) {
            se_kernel_free(k);
            return wc_diag_set(d, WC_EINPUT, path, line, 3,
                               "instruction addresses must increase");
        }
        for (int o = 0; o < in->nop; o++) {
            const se_op *op = &in->op[o];
            int hi = -1;
            if (op->k == SK_R && op->reg != 255)
                hi = op->reg + op_nregs(in, o) - 1;
            else if ((op->k == SK_MREF || op->k == SK_CB) && op->ix_r >= 0 &&
                     op->ix_r != 255)
                hi = op->ix_r + (op->ix_r64 ? 1 : 0);
            if (hi > 254)
                hi = 254;
            if (hi > k->max_reg)
                k->max_reg = hi;
        }
        k->n++;
    }
    if (!in_kernel) {
        if (nfunc == 0)
            return wc_diag_set(d, WC_EINPUT, path, 0, 0,
                               "no 'Function :' in the listing (is it "
                               "cuobjdump -sass output?)");
        return wc_diag_set(d, WC_EUSAGE, path, 0, 0,
                           "kernel '%s' is not in the listing (it has: %s)",
                           name ? name : "", names);
    }
    if (!name && nfunc > 1) {
        se_kernel_free(k);
        return wc_diag_set(d, WC_EUSAGE, path, 0, 0,
                           "the listing holds several kernels (%s); pick one "
                           "with --kernel NAME", names);
    }
    if (k->n == 0) {
        se_kernel_free(k);
        return wc_diag_set(d, WC_EINPUT, path, 0, 0,
                           "kernel '%s' has no instructions", name ? name : "");
    }
    return WC_OK;
}
