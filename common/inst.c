/*
 * common/inst.c - completes an instruction record from its opcode: unit,
 * memory space, access width and per-operand register counts derived from
 * the table entry and the modifiers of the opcode text, so that every reader
 * (trace, cuobjdump listing, hand-written SASS) hands the models the same
 * record.  Also counts the 32-byte sectors a memory instruction touches.
 *
 * Operand conventions (all readers follow them):
 *   loads      dst = data;             src[0] = address
 *   stores     src[0] = address;       src[1..] = data
 *   atomics    dst = [pred,] data;     src[0] = address, src[1..] = data
 *   LDGSTS     src[0] = shared address, src[1] = global address
 *   MMA        dst[0] = D;             src[0..2] = A, B, C
 */
#include <string.h>

#include "wc.h"

/* Iterate over the '.'-separated modifiers of in->opcode. */
typedef struct mod_iter {
    const char *p;
} mod_iter;

static void mods_begin(mod_iter *it, const char *opcode)
{
    it->p = strchr(opcode, '.');
}

/* Next modifier: sets *s and *n, returns 0 at the end. */
static int mods_next(mod_iter *it, const char **s, size_t *n)
{
    if (!it->p || *it->p != '.')
        return 0;
    const char *b = it->p + 1;
    const char *e = b;
    while (*e && *e != '.')
        e++;
    *s = b;
    *n = (size_t)(e - b);
    it->p = *e ? e : NULL;
    return 1;
}

static int mod_is(const char *s, size_t n, const char *t)
{
    return strlen(t) == n && memcmp(s, t, n) == 0;
}

static int has_mod(const char *opcode, const char *t)
{
    mod_iter it;
    const char *s;
    size_t n;
    mods_begin(&it, opcode);
    while (mods_next(&it, &s, &n))
        if (mod_is(s, n, t))
            return 1;
    return 0;
}

/* Bytes per lane named by the modifiers (0 when none says). */
static unsigned mod_width(const char *opcode)
{
    mod_iter it;
    const char *s;
    size_t n;
    unsigned w = 0;
    mods_begin(&it, opcode);
    while (mods_next(&it, &s, &n)) {
        if (mod_is(s, n, "128"))
            w = 16;
        else if (mod_is(s, n, "64") || mod_is(s, n, "U64") ||
                 mod_is(s, n, "S64") || mod_is(s, n, "F64"))
            w = 8;
        else if (mod_is(s, n, "U8") || mod_is(s, n, "S8"))
            w = 1;
        else if (mod_is(s, n, "U16") || mod_is(s, n, "S16"))
            w = 2;
    }
    return w;
}

/* Bits of a numeric type modifier, 0 when s is not a type. */
static unsigned type_bits(const char *s, size_t n, int *is_float)
{
    static const struct {
        const char *name;
        unsigned bits;
        int fl;
    } types[] = {
        {"F16", 16, 1}, {"BF16", 16, 1}, {"F32", 32, 1}, {"TF32", 32, 1},
        {"F64", 64, 1}, {"E4M3", 8, 1},  {"E5M2", 8, 1}, {"S4", 4, 0},
        {"U4", 4, 0},   {"S8", 8, 0},    {"U8", 8, 0},   {"S16", 16, 0},
        {"U16", 16, 0}, {"S32", 32, 0},  {"U32", 32, 0}, {"S64", 64, 0},
        {"U64", 64, 0},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (mod_is(s, n, types[i].name)) {
            if (is_float)
                *is_float = types[i].fl;
            return types[i].bits;
        }
    }
    return 0;
}

static uint8_t regs_of_bits(unsigned long bits)
{
    unsigned long r = (bits + 31) / 32;
    if (r <= 1)
        return 1;
    if (r <= 2)
        return 2;
    return 4;
}

static uint8_t regs_of_bytes(unsigned w)
{
    return regs_of_bits((unsigned long)w * 8);
}

/* F2F / F2I / I2F / I2I / FRND: destination and source widths. */
static void conv_regs(wc_inst *in, const char *base)
{
    unsigned dbits = 32, sbits = 32, bits[2];
    int fl[2], nt = 0;
    mod_iter it;
    const char *s;
    size_t n;
    mods_begin(&it, in->opcode);
    while (mods_next(&it, &s, &n) && nt < 2) {
        int f = 0;
        unsigned b = type_bits(s, n, &f);
        if (b) {
            bits[nt] = b;
            fl[nt] = f;
            nt++;
        }
    }
    if (nt == 2) {
        dbits = bits[0];
        sbits = bits[1];
    } else if (nt == 1) {
        /* one type: it names the side of its kind */
        int dst_float = base[0] == 'I' && base[2] == 'F'; /* I2F */
        if (!strcmp(base, "F2F") || !strcmp(base, "FRND"))
            dbits = sbits = bits[0];
        else if (!strcmp(base, "I2I"))
            dbits = bits[0];
        else if (fl[0] == dst_float)
            dbits = bits[0];
        else
            sbits = bits[0];
    }
    for (unsigned i = 0; i < in->ndst; i++)
        if (WC_REG_IS_R(in->dst[i]))
            in->dst_nregs[i] = regs_of_bits(dbits);
    for (unsigned i = 0; i < in->nsrc; i++)
        if (WC_REG_IS_R(in->src[i]))
            in->src_nregs[i] = regs_of_bits(sbits);
}

/* MMA shapes: "16816" = m16 n8 k16, "884", "168256" ... */
static int mma_shape(const char *s, size_t n, unsigned *m, unsigned *nn,
                     unsigned *k)
{
    if (n < 3)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    size_t p;
    if (s[0] == '1' && s[1] == '6') {
        *m = 16;
        p = 2;
    } else if (s[0] == '8') {
        *m = 8;
        p = 1;
    } else if (s[0] == '6' && s[1] == '4') {
        *m = 64;
        p = 2;
    } else {
        return 0;
    }
    if (p >= n || s[p] != '8')
        return 0;
    *nn = 8;
    p++;
    if (p >= n || n - p > 3)
        return 0;
    unsigned kv = 0;
    for (; p < n; p++)
        kv = kv * 10 + (unsigned)(s[p] - '0');
    if (kv == 0)
        return 0;
    *k = kv;
    return 1;
}

static void mma_regs(wc_inst *in, const char *base)
{
    unsigned m = 0, n = 0, k = 0, cbits = 32, abits = 16, ntype = 0;
    int have_shape = 0;
    mod_iter it;
    const char *s;
    size_t len;
    if (!strcmp(base, "IMMA"))
        abits = 8, cbits = 32;
    else if (!strcmp(base, "BMMA"))
        abits = 1, cbits = 32;
    else if (!strcmp(base, "DMMA"))
        abits = 64, cbits = 64;
    mods_begin(&it, in->opcode);
    while (mods_next(&it, &s, &len)) {
        unsigned b;
        if (!have_shape && mma_shape(s, len, &m, &n, &k)) {
            have_shape = 1;
        } else if ((b = type_bits(s, len, NULL)) != 0) {
            /* HMMA: accumulator type first, then input type;
             * IMMA: input types only */
            if (!strcmp(base, "HMMA") && ntype == 0)
                cbits = b;
            else if (!strcmp(base, "HMMA") || !strcmp(base, "IMMA"))
                abits = b;
            ntype++;
        }
    }
    if (!have_shape)
        return;
    unsigned long a = (unsigned long)m * k * abits / 32;
    unsigned long bb = (unsigned long)k * n * abits / 32;
    unsigned long c = (unsigned long)m * n * cbits / 32;
    if (in->ndst > 0 && WC_REG_IS_R(in->dst[0]))
        in->dst_nregs[0] = regs_of_bits(c);
    if (in->nsrc > 0 && WC_REG_IS_R(in->src[0]))
        in->src_nregs[0] = regs_of_bits(a);
    if (in->nsrc > 1 && WC_REG_IS_R(in->src[1]))
        in->src_nregs[1] = regs_of_bits(bb);
    if (in->nsrc > 2 && WC_REG_IS_R(in->src[2]))
        in->src_nregs[2] = regs_of_bits(c);
}

/* Number of registers an address register of this op spans. */
static uint8_t addr_regs(const wc_inst *in, unsigned space)
{
    (void)in;
    return space == WC_SPACE_GLOBAL || space == WC_SPACE_GENERIC ? 2 : 1;
}

static void mem_regs(wc_inst *in, const wc_opinfo *oi, const char *base)
{
    uint8_t data = regs_of_bytes(in->width ? in->width : 4);
    unsigned first_data = 1;
    if (!strcmp(base, "LDSM") || !strcmp(base, "STSM")) {
        data = has_mod(in->opcode, "4") ? 4 : has_mod(in->opcode, "2") ? 2 : 1;
    }
    if (!strcmp(base, "LDGSTS")) {
        if (in->nsrc > 0 && !WC_REG_IS_ZERO(in->src[0]))
            in->src_nregs[0] = 1;
        if (in->nsrc > 1 && !WC_REG_IS_ZERO(in->src[1]))
            in->src_nregs[1] = 2;
        return;
    }
    if (in->space == WC_SPACE_TEX || in->space == WC_SPACE_NONE)
        return;
    if (in->nsrc > 0 && !(oi->flags & WC_OPF_UNIFORM) &&
        (WC_REG_IS_R(in->src[0]) || WC_REG_IS_UR(in->src[0])) &&
        !WC_REG_IS_ZERO(in->src[0]))
        in->src_nregs[0] = addr_regs(in, in->space);
    if (oi->flags & (WC_OPF_LOAD | WC_OPF_ATOMIC))
        for (unsigned i = 0; i < in->ndst; i++)
            if (WC_REG_IS_R(in->dst[i]))
                in->dst_nregs[i] = data;
    if (oi->flags & (WC_OPF_STORE | WC_OPF_ATOMIC))
        for (unsigned i = first_data; i < in->nsrc; i++)
            if (WC_REG_IS_R(in->src[i]))
                in->src_nregs[i] = data;
}

void wc_inst_finish(wc_inst *in)
{
    in->opcode[WC_OPCODE_LEN - 1] = '\0';
    if (in->ndst > WC_MAX_DST)
        in->ndst = WC_MAX_DST;
    if (in->nsrc > WC_MAX_SRC)
        in->nsrc = WC_MAX_SRC;
    if (in->op >= wc_op_count())
        in->op = WC_OP_UNKNOWN;
    const wc_opinfo *oi = wc_op_info(in->op);
    in->unit = oi->unit;
    in->space = oi->space;

    char base[WC_OPCODE_LEN];
    size_t bl = strcspn(in->opcode, ".");
    memcpy(base, in->opcode, bl);
    base[bl] = '\0';

    /* modifier facts (wc_inst.mflags) */
    in->mflags = 0;
    if (has_mod(in->opcode, "WIDE"))
        in->mflags |= WC_MF_WIDE;
    if (has_mod(in->opcode, "ARV"))
        in->mflags |= WC_MF_ARV;
    if (has_mod(in->opcode, "BYPASS"))
        in->mflags |= WC_MF_BYPASS;
    if (!strcmp(base, "ERRBAR"))
        in->mflags |= WC_MF_ERRBAR;
    if (!strcmp(base, "LDGSTS"))
        in->mflags |= WC_MF_LDGSTS;
    if (!strcmp(base, "IMMA") || !strcmp(base, "BMMA"))
        in->mflags |= WC_MF_MMA_INT;
    else if (!strcmp(base, "DMMA"))
        in->mflags |= WC_MF_MMA_FP64;
    if (has_mod(in->opcode, "16816"))
        in->mflags |= WC_MF_MMA_K16;
    if (!strcmp(base, "MUFU")) {
        unsigned f = WC_MUFU_NONE;
        if (has_mod(in->opcode, "EX2"))
            f = WC_MUFU_EX2;
        else if (has_mod(in->opcode, "SIN") || has_mod(in->opcode, "COS"))
            f = WC_MUFU_SIN;
        else if (has_mod(in->opcode, "RCP") || has_mod(in->opcode, "RCP64H"))
            f = WC_MUFU_RCP;
        else if (has_mod(in->opcode, "RSQ") || has_mod(in->opcode, "RSQ64H"))
            f = WC_MUFU_RSQ;
        else if (has_mod(in->opcode, "LG2"))
            f = WC_MUFU_LG2;
        else if (has_mod(in->opcode, "SQRT"))
            f = WC_MUFU_SQRT;
        else if (has_mod(in->opcode, "TANH"))
            f = WC_MUFU_TANH;
        in->mflags |= (uint16_t)(f << WC_MF_MUFU_SHIFT);
    }

    int is_mem = (oi->flags & (WC_OPF_LOAD | WC_OPF_STORE | WC_OPF_ATOMIC)) != 0;
    if (is_mem && in->width == 0) {
        unsigned w = mod_width(in->opcode);
        if (!strcmp(base, "LDSM") || !strcmp(base, "STSM"))
            w = 16;
        in->width = (uint8_t)(w ? w : 4);
    }
    if (!is_mem && in->op != WC_OP_UNKNOWN && oi->space == WC_SPACE_NONE)
        in->width = 0;

    for (unsigned i = 0; i < WC_MAX_DST; i++)
        in->dst_nregs[i] = i < in->ndst ? 1 : 0;
    for (unsigned i = 0; i < WC_MAX_SRC; i++)
        in->src_nregs[i] = i < in->nsrc ? 1 : 0;

    if (is_mem) {
        mem_regs(in, oi, base);
        if (in->nsrc > 0 && WC_REG_IS_UR(in->src[0]) &&
            !(oi->flags & WC_OPF_UNIFORM))
            in->iflags |= WC_IF_UADDR;
    } else if (oi->unit == WC_UNIT_FP64) {
        for (unsigned i = 0; i < in->ndst; i++)
            if (WC_REG_IS_R(in->dst[i]))
                in->dst_nregs[i] = 2;
        for (unsigned i = 0; i < in->nsrc; i++)
            if (WC_REG_IS_R(in->src[i]))
                in->src_nregs[i] = 2;
    } else if (oi->lat == WC_LAT_conv) {
        conv_regs(in, base);
    } else if (oi->unit == WC_UNIT_TENSOR) {
        mma_regs(in, base);
    } else if ((!strcmp(base, "IMAD") || !strcmp(base, "UIMAD")) &&
               (in->mflags & WC_MF_WIDE)) {
        if (in->ndst > 0)
            in->dst_nregs[0] = 2;
        if (in->nsrc > 2 && !WC_REG_IS_ZERO(in->src[2]))
            in->src_nregs[2] = 2;
    } else if (!strcmp(base, "CS2R") || !strcmp(base, "CS2UR")) {
        if (in->ndst > 0 && !has_mod(in->opcode, "32"))
            in->dst_nregs[0] = 2;
    } else if (!strcmp(base, "ULDC") || !strcmp(base, "UMOV") ||
               !strcmp(base, "MOV")) {
        if (in->ndst > 0 && has_mod(in->opcode, "64"))
            in->dst_nregs[0] = 2;
    }
}

int wc_inst_latclass(const wc_inst *in)
{
    const wc_opinfo *oi = wc_op_info(in->op);
    if (oi->lat == WC_LAT_imad && (in->mflags & WC_MF_WIDE))
        return WC_LAT_imadwide;
    return oi->lat;
}

unsigned wc_inst_sectors(const wc_inst *in)
{
    if (!(in->iflags & WC_IF_HAS_ADDR))
        return 0;
    uint64_t w = in->width ? in->width : 1;
    uint64_t sec[10 * WC_WARP_SIZE];
    unsigned ns = 0;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!(in->mask & (1u << l)))
            continue;
        uint64_t a = in->addr[l];
        uint64_t first = a >> 5;
        uint64_t last = (a + w - 1 < a ? UINT64_MAX : a + w - 1) >> 5;
        for (uint64_t s = first; s <= last && ns < sizeof sec / sizeof sec[0];
             s++) {
            unsigned j;
            for (j = 0; j < ns; j++)
                if (sec[j] == s)
                    break;
            if (j == ns)
                sec[ns++] = s;
            if (s == UINT64_MAX)
                break;
        }
    }
    return ns;
}
