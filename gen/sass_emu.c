/*
 * gen/sass_emu.c - `warpcast tracegen`: an Accel-Sim trace (tracer version
 * 5) from a kernel's cuobjdump listing and its launch shape, by running per
 * warp a functional emulation of the integer and address instructions.
 *
 * What is emulated: S2R/S2UR/CS2R (thread, CTA and lane ids), LDC/ULDC of
 * constant bank 0 (launch dims and kernel parameters), MOV, IMAD (.WIDE .HI
 * .X .SHL .MOV .IADD), IADD3 (.X, carries), LEA (.HI .X .SX32), SHF, SHL,
 * SHR, LOP3, LOP, PLOP3, ISETP (.EX), SEL, IMNMX/VIMNMX, IABS, PRMT, POPC,
 * FLO, BREV, VOTE, R2UR and the uniform (U*) forms; EXIT, and BRA when the
 * branch is uniform across the warp.  Loads return zero (zero-filled
 * buffers).  Every other instruction is written to the trace but its results
 * are marked unknown ("poisoned", with the instruction that made them);
 * an address, guard predicate or branch that depends on an unknown value is
 * an error naming that instruction's listing line.
 *
 * Trace conventions are the NVBit tracer's: destination = operand 0 when it
 * is a general register; sources = the other general registers, the base
 * register of memory operands (R255 when none) and the index register of
 * c[][]; width from the opcode's first numeric modifier (else 4 bytes);
 * addresses compressed as base+stride (mode 1) when the active lanes are
 * contiguous with one stride, else base+deltas (mode 2); immediate 0.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen_out.h"
#include "sass_emu_int.h"
#include "wc_sassemu.h"

/* ---- poison: why a value is unknown ------------------------------------ */

enum {
    PZ_OPCODE,  /* instruction not emulated                     */
    PZ_OPERAND, /* an operand form the emulation does not read  */
    PZ_BANK,    /* constant bank other than 0                   */
    PZ_ATOMIC,  /* value returned by an atomic                  */
    PZ_SREG,    /* special register not modelled                */
};
#define PZ(ins, why) ((uint32_t)(ins) + 1u + ((uint32_t)(why) << 24))
#define PZ_INS(p) (((p) & 0xffffffu) - 1u)
#define PZ_WHY(p) ((p) >> 24)

typedef struct se_warp {
    uint32_t r[256][32];
    uint32_t rpo[256];
    uint32_t ur[64], urpo[64];
    uint32_t p[8], ppo[8]; /* per predicate: lane bits            */
    uint32_t up, uppo[8];  /* uniform predicates: bit per UP       */
    uint32_t active;
    unsigned tid[32][3];
    unsigned cta[3];
    unsigned id;
} se_warp;

typedef struct se_ctx {
    const wc_tracegen_params *p;
    const se_kernel *k;
    const char *path;
    uint8_t *cb;          /* constant bank 0 image, 64 KiB */
    size_t cur;           /* index of the instruction being run */
    struct se_args *args; /* operand roles per instruction */
    gen_out line;         /* one warp's instruction lines */
    uint64_t insts, mem_insts;
    wc_diag *d;
} se_ctx;

#define CB_SIZE 65536u

enum {
    A_NONE,
    A_MOV,
    A_IMAD,
    A_IADD,
    A_LEA,
    A_SHF,
    A_SHL,
    A_SHR,
    A_LOP3,
    A_LOP,
    A_PLOP3,
    A_ISETP,
    A_SEL,
    A_IMNMX,
    A_IABS,
    A_PRMT,
    A_POPC,
    A_FLO,
    A_BREV,
    A_LDC,
};

enum {
    C_ALU, C_EXIT, C_BRA, C_BADCTRL, C_NOOP, C_SREG, C_R2UR, C_VOTE, C_LOAD,
    C_ATOM, C_MEMOTHER
};

/* Which semantics eval() applies to a mnemonic (uniform U* forms included). */
static uint8_t alu_of(const char *b)
{
    static const struct {
        const char *name;
        uint8_t alu;
    } t[] = {
        {"MOV", A_MOV},     {"MOV32I", A_MOV},  {"UMOV", A_MOV},
        {"IMAD", A_IMAD},   {"UIMAD", A_IMAD},  {"IADD3", A_IADD},
        {"UIADD3", A_IADD}, {"IADD", A_IADD},   {"IADD32I", A_IADD},
        {"LEA", A_LEA},     {"ULEA", A_LEA},    {"SHF", A_SHF},
        {"USHF", A_SHF},    {"SHL", A_SHL},     {"USHL", A_SHL},
        {"SHR", A_SHR},     {"USHR", A_SHR},    {"LOP3", A_LOP3},
        {"ULOP3", A_LOP3},  {"LOP", A_LOP},     {"LOP32I", A_LOP},
        {"ULOP", A_LOP},    {"PLOP3", A_PLOP3}, {"UPLOP3", A_PLOP3},
        {"ISETP", A_ISETP}, {"UISETP", A_ISETP}, {"SEL", A_SEL},
        {"USEL", A_SEL},    {"FSEL", A_SEL},    {"IMNMX", A_IMNMX},
        {"VIMNMX", A_IMNMX}, {"UIMNMX", A_IMNMX}, {"IABS", A_IABS},
        {"UIABS", A_IABS},  {"PRMT", A_PRMT},   {"UPRMT", A_PRMT},
        {"POPC", A_POPC},   {"UPOPC", A_POPC},  {"FLO", A_FLO},
        {"UFLO", A_FLO},    {"BREV", A_BREV},   {"UBREV", A_BREV},
        {"LDC", A_LDC},     {"ULDC", A_LDC},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(b, t[i].name))
            return t[i].alu;
    return A_NONE;
}

/* ---- parameters -------------------------------------------------------- */

void wc_tracegen_defaults(wc_tracegen_params *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < 3; i++)
        p->grid[i] = p->block[i] = 1;
    p->shmem_base = 0x00007f6300000000ull;
    p->local_base = 0x00007f6200000000ull;
    p->smem_reserved = 0x400;
    p->ptr_base = 0x00007f0000000000ull;
    p->ptr_step = 1ull << 32;
}

int wc_tracegen_add_param(wc_tracegen_params *p, const char *spec, wc_diag *d)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "--param needs OFFSET=VALUE[:SIZE], not '%s'", spec);
    if (p->nparams >= WC_TG_MAX_PARAMS)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "too many --param (at most %d)",
                           WC_TG_MAX_PARAMS);
    char *end;
    errno = 0;
    unsigned long long off = strtoull(spec, &end, 0);
    if (end != eq || end == spec || spec[0] == '-' || errno || off >= CB_SIZE)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "--param '%s': bad offset (0 .. 0xffff)", spec);
    const char *v = eq + 1;
    errno = 0;
    unsigned long long val;
    if (*v == '-')
        val = (unsigned long long)strtoll(v, &end, 0);
    else
        val = strtoull(v, &end, 0);
    if (end == v || errno || (*end && *end != ':'))
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "--param '%s': bad value (an integer)", spec);
    unsigned size = (off % 8) == 0 ? 8 : 4;
    if (*end == ':') {
        const char *sz = end + 1;
        unsigned long s = strtoul(sz, &end, 10);
        if (*end || (s != 1 && s != 2 && s != 4 && s != 8))
            return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                               "--param '%s': SIZE is 1, 2, 4 or 8", spec);
        size = (unsigned)s;
    }
    if (off + size > CB_SIZE || off % size)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "--param '%s': offset not aligned to the size", spec);
    wc_tg_param *q = &p->params[p->nparams++];
    q->offset = (uint32_t)off;
    q->value = val;
    q->size = size;
    return WC_OK;
}

/* Where kernel parameters start in constant bank 0. */
static uint32_t param_base(int bv)
{
    if (bv >= 90)
        return 0x210;
    if (bv >= 70)
        return 0x160;
    return 0x140;
}

static void cb_put(uint8_t *cb, uint32_t off, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size && off + i < CB_SIZE; i++)
        cb[off + i] = (uint8_t)(v >> (8 * i));
}

static uint64_t cb_get(const uint8_t *cb, uint32_t off, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size && off + i < CB_SIZE; i++)
        v |= (uint64_t)cb[off + i] << (8 * i);
    return v;
}

/* Bytes a load of constant bank 0 by this instruction reads. */
static unsigned cb_size(const se_ins *in, int opi)
{
    if (!strcmp(in->base, "LDC") || !strcmp(in->base, "ULDC")) {
        if (SE_MOD(in, 64))
            return 8;
        if (SE_MOD(in, 128))
            return 16;
        if (SE_MOD(in, U8) || SE_MOD(in, S8))
            return 1;
        if (SE_MOD(in, U16) || SE_MOD(in, S16))
            return 2;
        return 4;
    }
    if (in->op[opi].wide || (SE_MOD(in, WIDE) && opi == 3))
        return 8;
    return 4;
}

static void note_slot(wc_tracegen_result *res, uint32_t off, unsigned size,
                      int pointer)
{
    for (int i = 0; i < res->nslots; i++)
        if (res->slots[i].offset == off) {
            if (size > res->slots[i].size)
                res->slots[i].size = size;
            res->slots[i].pointer |= pointer;
            return;
        }
    if (res->nslots >= WC_TG_MAX_PARAMS)
        return;
    int i = res->nslots++;
    while (i > 0 && res->slots[i - 1].offset > off) {
        res->slots[i] = res->slots[i - 1];
        i--;
    }
    memset(&res->slots[i], 0, sizeof res->slots[i]);
    res->slots[i].offset = off;
    res->slots[i].size = size;
    res->slots[i].pointer = pointer;
}

static void setup_cbank(const wc_tracegen_params *p, const se_kernel *k,
                        int bv, uint8_t *cb, wc_tracegen_result *res)
{
    for (int i = 0; i < 3; i++) {
        cb_put(cb, 0x0 + 4u * (unsigned)i, p->block[i], 4);
        cb_put(cb, 0xc + 4u * (unsigned)i, p->grid[i], 4);
    }
    uint32_t pb = param_base(bv);
    for (size_t i = 0; i < k->n; i++) {
        const se_ins *in = &k->ins[i];
        for (int o = 0; o < in->nop; o++) {
            const se_op *op = &in->op[o];
            if (op->k != SK_CB || op->bank != 0 || op->ix_r >= 0 ||
                op->ix_ur >= 0 || op->imm < (int64_t)pb || op->imm >= CB_SIZE)
                continue;
            unsigned size = cb_size(in, o);
            uint32_t off = (uint32_t)op->imm;
            if (size >= 8 && off % 8 == 0) {
                for (uint32_t q = off; q < off + size; q += 8) {
                    note_slot(res, q, 8, 1);
                    cb_put(cb, q, p->ptr_base + ((q - pb) / 8) * p->ptr_step, 8);
                }
            } else {
                note_slot(res, off, size, 0);
            }
        }
    }
    for (int i = 0; i < p->nparams; i++) {
        const wc_tg_param *q = &p->params[i];
        cb_put(cb, q->offset, q->value, q->size);
        note_slot(res, q->offset, q->size, 0);
        for (int s = 0; s < res->nslots; s++)
            if (res->slots[s].offset >= q->offset &&
                res->slots[s].offset < q->offset + q->size)
                res->slots[s].given = 1;
    }
    for (int s = 0; s < res->nslots; s++)
        res->slots[s].value = cb_get(cb, res->slots[s].offset,
                                     res->slots[s].size > 8 ? 8 : res->slots[s].size);
}

/* ---- operand values ----------------------------------------------------- */

static void pz(uint32_t *po, uint32_t v)
{
    if (v && !*po)
        *po = v;
}

static uint64_t cb_read(se_ctx *c, se_warp *w, const se_op *o, int lane,
                        unsigned size, uint32_t *po)
{
    if (o->bank != 0) {
        pz(po, PZ(c->cur, PZ_BANK));
        return 0;
    }
    int64_t off = o->imm;
    if (o->ix_r >= 0 && o->ix_r != 255) {
        off += (int32_t)w->r[o->ix_r][lane];
        pz(po, w->rpo[o->ix_r]);
    }
    if (o->ix_ur >= 0 && o->ix_ur != 63) {
        off += (int32_t)w->ur[o->ix_ur];
        pz(po, w->urpo[o->ix_ur]);
    }
    if (off < 0 || off + size > CB_SIZE) {
        pz(po, PZ(c->cur, PZ_OPERAND));
        return 0;
    }
    return cb_get(c->cb, (uint32_t)off, size);
}

static uint32_t rd32(se_ctx *c, se_warp *w, const se_op *o, int lane,
                     uint32_t *po)
{
    uint32_t v = 0;
    switch (o->k) {
    case SK_R:
        if (o->reg != 255) {
            v = w->r[o->reg][lane];
            pz(po, w->rpo[o->reg]);
        }
        break;
    case SK_UR:
        if (o->reg != 63) {
            v = w->ur[o->reg];
            pz(po, w->urpo[o->reg]);
        }
        break;
    case SK_IMM:
        v = (uint32_t)o->imm;
        break;
    case SK_CB:
        v = (uint32_t)cb_read(c, w, o, lane, 4, po);
        break;
    default:
        pz(po, PZ(c->cur, PZ_OPERAND));
        return 0;
    }
    if (o->absv && (int32_t)v < 0)
        v = 0u - v;
    if (o->neg)
        v = 0u - v;
    if (o->inv)
        v = ~v;
    return v;
}

/* 64-bit value: register pair, constant, or sign-extended immediate. */
static uint64_t rd64(se_ctx *c, se_warp *w, const se_op *o, int lane,
                     uint32_t *po)
{
    uint64_t v = 0;
    switch (o->k) {
    case SK_R:
        if (o->reg != 255) {
            int hi = o->reg + 1 <= 254 ? o->reg + 1 : 255;
            v = w->r[o->reg][lane];
            pz(po, w->rpo[o->reg]);
            if (hi != 255) {
                v |= (uint64_t)w->r[hi][lane] << 32;
                pz(po, w->rpo[hi]);
            }
        }
        break;
    case SK_UR:
        if (o->reg != 63) {
            int hi = o->reg + 1 <= 62 ? o->reg + 1 : 63;
            v = w->ur[o->reg];
            pz(po, w->urpo[o->reg]);
            if (hi != 63) {
                v |= (uint64_t)w->ur[hi] << 32;
                pz(po, w->urpo[hi]);
            }
        }
        break;
    case SK_IMM:
        v = (uint64_t)o->imm;
        break;
    case SK_CB:
        v = cb_read(c, w, o, lane, 8, po);
        break;
    default:
        pz(po, PZ(c->cur, PZ_OPERAND));
        return 0;
    }
    if (o->neg)
        v = 0u - v;
    if (o->inv)
        v = ~v;
    return v;
}

/* Predicate operand value for a lane (0/1), '!' applied. */
static int rdp(se_warp *w, const se_op *o, int lane, uint32_t *po)
{
    int v;
    if (o->k == SK_P) {
        v = (int)((w->p[o->reg] >> lane) & 1u);
        pz(po, w->ppo[o->reg]);
    } else if (o->k == SK_UP) {
        v = (int)((w->up >> o->reg) & 1u);
        pz(po, w->uppo[o->reg]);
    } else {
        v = 0;
    }
    return o->inv ? !v : v;
}

/* ---- writes ------------------------------------------------------------- */

/* Poison bookkeeping for a register written on lanes g. */
static void po_set(uint32_t *slot, uint32_t po, uint32_t g, uint32_t active)
{
    if (po)
        *slot = po;
    else if ((g & active) == active)
        *slot = 0;
}

static void wr_r(se_warp *w, int reg, int lane, uint32_t v)
{
    if (reg >= 0 && reg < 255)
        w->r[reg][lane] = v;
}

static void wr_p(se_warp *w, const se_op *o, int lane, int v)
{
    if (o->k == SK_P && o->reg != 7) {
        if (v)
            w->p[o->reg] |= 1u << lane;
        else
            w->p[o->reg] &= ~(1u << lane);
    } else if (o->k == SK_UP && o->reg != 7) {
        if (v)
            w->up |= 1u << o->reg;
        else
            w->up &= ~(1u << o->reg);
    }
}

static void po_p(se_warp *w, const se_op *o, uint32_t po, uint32_t g)
{
    if (o->k == SK_P && o->reg != 7)
        po_set(&w->ppo[o->reg], po, g, w->active);
    else if (o->k == SK_UP && o->reg != 7)
        po_set(&w->uppo[o->reg], po, g, w->active);
}

/* ---- operand roles ------------------------------------------------------ */

struct se_args;
typedef struct se_args {
    const se_op *dst;     /* R or UR destination, NULL when none */
    const se_op *pout[2];
    int npout;
    const se_op *val[8];  /* value operands in order              */
    int nval;
    const se_op *pin[4];  /* predicate inputs after the values    */
    int npin;
} se_args;

static int is_pred(const se_op *o)
{
    return o->k == SK_P || o->k == SK_UP;
}

static void roles(const se_ins *in, se_args *a)
{
    memset(a, 0, sizeof *a);
    int i = 0;
    if (in->nop > 0 && (in->op[0].k == SK_R || in->op[0].k == SK_UR))
        a->dst = &in->op[i++];
    while (i < in->nop && is_pred(&in->op[i]) && a->npout < 2)
        a->pout[a->npout++] = &in->op[i++];
    for (; i < in->nop; i++) {
        if (is_pred(&in->op[i])) {
            if (a->npin < 4)
                a->pin[a->npin++] = &in->op[i];
        } else if (a->nval < 8) {
            a->val[a->nval++] = &in->op[i];
        }
    }
}

/* Number of registers an unknown result spans. */
static int dst_span(const se_ins *in)
{
    if (strstr(in->base, "MMA"))
        return 8;
    if (SE_MOD(in, 128))
        return 4;
    if (SE_MOD(in, 64) || SE_MOD(in, WIDE) || SE_MOD(in, F64) ||
        (in->base[0] == 'D' && strcmp(in->base, "DEPBAR")))
        return 2;
    return 1;
}

/* Mark every result of in unknown on lanes g. */
static void poison_results(se_warp *w, const se_ins *in, const se_args *ap,
                           uint32_t po, uint32_t g)
{
    se_args a = *ap;
    if (a.dst) {
        int n = in->span;
        for (int j = 0; j < n; j++) {
            int r = a.dst->reg + j;
            if (a.dst->k == SK_R && r < 255)
                po_set(&w->rpo[r], po, ~0u, w->active);
            else if (a.dst->k == SK_UR && r < 63)
                po_set(&w->urpo[r], po, ~0u, w->active);
        }
    }
    for (int j = 0; j < a.npout; j++)
        po_p(w, a.pout[j], po, ~0u);
    (void)g;
}

/* ---- semantics ---------------------------------------------------------- */

static uint32_t lut3(uint32_t a, uint32_t b, uint32_t c, unsigned lut)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < 8; i++)
        if (lut & (1u << i))
            r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
    return r;
}

static int cmp32(const char *cmpk, int is_unsigned, uint32_t a, uint32_t b)
{
    int lt = is_unsigned ? a < b : (int32_t)a < (int32_t)b;
    int eq = a == b;
    if (!strcmp(cmpk, "LT"))
        return lt;
    if (!strcmp(cmpk, "LE"))
        return lt || eq;
    if (!strcmp(cmpk, "GT"))
        return !lt && !eq;
    if (!strcmp(cmpk, "GE"))
        return !lt;
    if (!strcmp(cmpk, "EQ"))
        return eq;
    if (!strcmp(cmpk, "NE"))
        return !eq;
    if (!strcmp(cmpk, "T"))
        return 1;
    return 0; /* F */
}

static const char *cmp_of(const se_ins *in)
{
    static const char *const c[] = {"LT", "LE", "GT", "GE", "EQ", "NE", "T", "F"};
    static const int bit[] = {SM_LT, SM_LE, SM_GT, SM_GE, SM_EQ, SM_NE, SM_T, SM_F};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if ((in->mods >> bit[i]) & 1u)
            return c[i];
    return NULL;
}

static int bop(const se_ins *in, int x, int y)
{
    if (SE_MOD(in, OR))
        return x || y;
    if (SE_MOD(in, XOR))
        return x != y;
    return x && y;
}

static uint32_t sreg(const se_warp *w, int sr, int lane, int *ok)
{
    *ok = 1;
    switch (sr) {
    case SR_ZERO:
    case SR_CGACTAID:
        return 0;
    case SR_TID_X:
    case SR_TID_Y:
    case SR_TID_Z:
        return w->tid[lane][sr - SR_TID_X];
    case SR_CTAID_X:
    case SR_CTAID_Y:
    case SR_CTAID_Z:
        return w->cta[sr - SR_CTAID_X];
    case SR_LANEID:
        return (uint32_t)lane;
    default:
        *ok = 0;
        return 0;
    }
}

/* Results of one lane. */
typedef struct se_res {
    uint32_t v[4];
    int nv;
    int pv[2];
    int np;
} se_res;

/* Evaluate in for one lane.  Returns 0, or -1 when not emulated. */
static int eval(se_ctx *c, se_warp *w, const se_ins *in, const se_args *a,
                int lane, se_res *r, uint32_t *po)
{
    if (in->alu == A_NONE)
        return -1;
    const se_op *const *v = a->val;
    int nv = a->nval;
    memset(r, 0, sizeof *r);
    r->nv = 1;
    r->np = a->npout;
    int cin0 = 0, cin1 = 0;
    if (SE_MOD(in, X)) {
        if (a->npin > 0)
            cin0 = rdp(w, a->pin[0], lane, po);
        if (a->npin > 1)
            cin1 = rdp(w, a->pin[1], lane, po);
    }
    if (in->alu == A_MOV) {
        if (nv < 1)
            return -1;
        r->v[0] = rd32(c, w, v[0], lane, po);
        return 0;
    }
    if (in->alu == A_IMAD) {
        if (nv != 3)
            return -1;
        int uns = SE_MOD(in, U32);
        uint32_t x = rd32(c, w, v[0], lane, po), y = rd32(c, w, v[1], lane, po);
        uint64_t prod = uns ? (uint64_t)x * y
                            : (uint64_t)((int64_t)(int32_t)x * (int32_t)y);
        if (SE_MOD(in, WIDE)) {
            uint64_t z = rd64(c, w, v[2], lane, po);
            uint64_t s = prod + z + (uint64_t)cin0;
            r->v[0] = (uint32_t)s;
            r->v[1] = (uint32_t)(s >> 32);
            r->nv = 2;
            if (r->np)
                return -1;
            return 0;
        }
        uint32_t z = rd32(c, w, v[2], lane, po);
        if (SE_MOD(in, HI)) {
            uint64_t s = (prod >> 32) + z + (uint64_t)cin0;
            r->v[0] = (uint32_t)s;
            r->pv[0] = (int)(s >> 32) & 1;
            return 0;
        }
        uint64_t s = (uint64_t)(uint32_t)prod + z + (uint64_t)cin0;
        r->v[0] = (uint32_t)s;
        r->pv[0] = (int)(s >> 32) & 1;
        return 0;
    }
    if (in->alu == A_IADD) {
        if (nv < 2 || nv > 3)
            return -1;
        int x = SE_MOD(in, X);
        uint64_t t[3] = {0, 0, 0};
        for (int i = 0; i < nv; i++) {
            se_op o = *v[i];
            int neg = o.neg;
            o.neg = 0;
            uint32_t raw = rd32(c, w, &o, lane, po);
            t[i] = neg ? (uint64_t)(uint32_t)~raw + (x ? 0u : 1u) : raw;
        }
        uint64_t s1 = t[0] + t[1] + (uint64_t)cin0;
        uint64_t s2 = (s1 & 0xffffffffu) + t[2] + (uint64_t)cin1;
        r->v[0] = (uint32_t)s2;
        int co1 = (int)(s1 >> 32) != 0, co2 = (int)(s2 >> 32) != 0;
        if (r->np >= 2) {
            r->pv[0] = co1;
            r->pv[1] = co2;
        } else {
            r->pv[0] = co1 || co2;
        }
        return 0;
    }
    if (in->alu == A_LEA) {
        int hi = SE_MOD(in, HI), sx = SE_MOD(in, SX32);
        if (nv < 3 || nv > 4)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po);
        uint32_t y = rd32(c, w, v[1], lane, po);
        unsigned s = rd32(c, w, v[nv - 1], lane, po) & 63u;
        uint64_t sum;
        if (!hi) {
            if (nv != 3)
                return -1;
            sum = (uint64_t)(uint32_t)(s >= 32 ? 0 : x << s) + y + (uint64_t)cin0;
        } else {
            uint32_t z;
            if (sx) {
                if (nv != 3)
                    return -1;
                z = (int32_t)x < 0 ? 0xffffffffu : 0;
            } else {
                if (nv != 4)
                    return -1;
                z = rd32(c, w, v[2], lane, po);
            }
            uint64_t wv = ((uint64_t)z << 32) | x;
            uint32_t h = (uint32_t)((s >= 64 ? 0 : wv << s) >> 32);
            sum = (uint64_t)h + y + (uint64_t)cin0;
        }
        r->v[0] = (uint32_t)sum;
        r->pv[0] = (int)(sum >> 32) & 1;
        return 0;
    }
    if (in->alu == A_SHF) {
        if (nv != 3)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po);
        uint32_t s = rd32(c, w, v[1], lane, po);
        uint32_t z = rd32(c, w, v[2], lane, po);
        int is64 = SE_MOD(in, U64) || SE_MOD(in, S64);
        int sgn = SE_MOD(in, S32) || SE_MOD(in, S64);
        unsigned lim = is64 ? 64u : 32u;
        if (SE_MOD(in, W))
            s &= lim - 1;
        else if (s > lim)
            s = lim;
        uint64_t wv = ((uint64_t)z << 32) | x, res;
        if (SE_MOD(in, L))
            res = s >= 64 ? 0 : wv << s;
        else if (sgn)
            res = (uint64_t)((int64_t)wv >> (s >= 64 ? 63 : s));
        else
            res = s >= 64 ? 0 : wv >> s;
        r->v[0] = SE_MOD(in, HI) ? (uint32_t)(res >> 32) : (uint32_t)res;
        return 0;
    }
    if (in->alu == A_SHL || in->alu == A_SHR) {
        if (nv != 2)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po);
        uint32_t s = rd32(c, w, v[1], lane, po);
        if (in->alu == A_SHL)
            r->v[0] = s >= 32 ? 0 : x << s;
        else if (SE_MOD(in, U32))
            r->v[0] = s >= 32 ? 0 : x >> s;
        else
            r->v[0] = (uint32_t)((int32_t)x >> (s >= 32 ? 31 : s));
        return 0;
    }
    if (in->alu == A_LOP3) {
        int off = 0;
        if (!a->dst && nv == 5)
            off = 1; /* LOP3.LUT P0, Rd, a, b, c, lut */
        if (nv - off != 4 || v[3 + off]->k != SK_IMM)
            return -1;
        uint32_t x = rd32(c, w, v[off], lane, po);
        uint32_t y = rd32(c, w, v[off + 1], lane, po);
        uint32_t z = rd32(c, w, v[off + 2], lane, po);
        r->v[0] = lut3(x, y, z, (unsigned)v[3 + off]->imm & 0xffu);
        r->pv[0] = r->v[0] != 0;
        if (off)
            return -1; /* register result not at operand 0: not emulated */
        return 0;
    }
    if (in->alu == A_LOP) {
        if (nv != 2)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po), y = rd32(c, w, v[1], lane, po);
        if (SE_MOD(in, AND))
            r->v[0] = x & y;
        else if (SE_MOD(in, OR))
            r->v[0] = x | y;
        else if (SE_MOD(in, XOR))
            r->v[0] = x ^ y;
        else if (SE_MOD(in, PASS_B))
            r->v[0] = y;
        else
            return -1;
        r->pv[0] = r->v[0] != 0;
        return 0;
    }
    if (in->alu == A_PLOP3) {
        if (a->npin < 3 || nv < 1 || v[0]->k != SK_IMM)
            return -1;
        int p0 = rdp(w, a->pin[0], lane, po), p1 = rdp(w, a->pin[1], lane, po),
            p2 = rdp(w, a->pin[2], lane, po);
        unsigned idx = (unsigned)(p0 << 2 | p1 << 1 | p2);
        r->nv = 0;
        r->pv[0] = (int)(((unsigned)v[0]->imm >> idx) & 1u);
        r->pv[1] = nv > 1 && v[1]->k == SK_IMM
                       ? (int)(((unsigned)v[1]->imm >> idx) & 1u) : 0;
        return 0;
    }
    if (in->alu == A_ISETP) {
        const char *ck = cmp_of(in);
        if (nv != 2 || !ck || a->npin < 1)
            return -1;
        int uns = SE_MOD(in, U32);
        uint32_t x = rd32(c, w, v[0], lane, po), y = rd32(c, w, v[1], lane, po);
        int cmpv;
        if (SE_MOD(in, EX)) {
            if (a->npin < 2)
                return -1;
            int low = rdp(w, a->pin[1], lane, po);
            int eq = x == y;
            if (!strcmp(ck, "EQ"))
                cmpv = eq && low;
            else if (!strcmp(ck, "NE"))
                cmpv = !eq || low;
            else if (!strcmp(ck, "GT") || !strcmp(ck, "GE"))
                cmpv = cmp32("GT", uns, x, y) || (eq && low);
            else if (!strcmp(ck, "LT") || !strcmp(ck, "LE"))
                cmpv = cmp32("LT", uns, x, y) || (eq && low);
            else
                return -1;
        } else {
            cmpv = cmp32(ck, uns, x, y);
        }
        int pc = rdp(w, a->pin[0], lane, po);
        r->nv = 0;
        r->pv[0] = bop(in, cmpv, pc);
        r->pv[1] = bop(in, !cmpv, pc);
        return 0;
    }
    if (in->alu == A_SEL) {
        if (nv != 2 || a->npin < 1)
            return -1;
        int p = rdp(w, a->pin[0], lane, po);
        uint32_t x = rd32(c, w, v[0], lane, po), y = rd32(c, w, v[1], lane, po);
        r->v[0] = p ? x : y;
        return 0;
    }
    if (in->alu == A_IMNMX) {
        if (nv != 2 || a->npin < 1)
            return -1;
        int p = rdp(w, a->pin[0], lane, po);
        uint32_t x = rd32(c, w, v[0], lane, po), y = rd32(c, w, v[1], lane, po);
        int lt = SE_MOD(in, U32) ? x < y : (int32_t)x < (int32_t)y;
        r->v[0] = p ? (lt ? x : y) : (lt ? y : x);
        return 0;
    }
    if (in->alu == A_IABS) {
        if (nv != 1)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po);
        r->v[0] = (int32_t)x < 0 ? 0u - x : x;
        return 0;
    }
    if (in->alu == A_PRMT) {
        if (nv != 3 || strchr(in->opc, '.'))
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po);
        uint32_t sel = rd32(c, w, v[1], lane, po);
        uint32_t z = rd32(c, w, v[2], lane, po);
        uint64_t bytes = ((uint64_t)z << 32) | x;
        uint32_t out = 0;
        for (unsigned i = 0; i < 4; i++) {
            unsigned nib = (sel >> (4 * i)) & 15u;
            uint32_t byte = (uint32_t)(bytes >> (8 * (nib & 7u))) & 0xffu;
            if (nib & 8u)
                byte = (byte & 0x80u) ? 0xffu : 0;
            out |= byte << (8 * i);
        }
        r->v[0] = out;
        return 0;
    }
    if (in->alu == A_POPC) {
        if (nv != 1)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po);
        unsigned n = 0;
        for (; x; x &= x - 1)
            n++;
        r->v[0] = n;
        return 0;
    }
    if (in->alu == A_FLO) {
        if (nv != 1)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po);
        if (SE_MOD(in, S32) && (int32_t)x < 0)
            x = ~x;
        uint32_t idx = 0xffffffffu;
        for (int i = 31; i >= 0; i--)
            if (x >> i & 1u) {
                idx = (uint32_t)i;
                break;
            }
        r->v[0] = SE_MOD(in, SH) && idx != 0xffffffffu ? 31u - idx : idx;
        return 0;
    }
    if (in->alu == A_BREV) {
        if (nv != 1)
            return -1;
        uint32_t x = rd32(c, w, v[0], lane, po), y = 0;
        for (int i = 0; i < 32; i++)
            y |= ((x >> i) & 1u) << (31 - i);
        r->v[0] = y;
        return 0;
    }
    if (in->alu == A_LDC) {
        if (nv != 1 || v[0]->k != SK_CB)
            return -1;
        unsigned size = in->cbsz;
        uint64_t x = cb_read(c, w, v[0], lane, size > 8 ? 8 : size, po);
        if (size == 1 && SE_MOD(in, S8))
            x = (uint64_t)(int64_t)(int8_t)x;
        if (size == 2 && SE_MOD(in, S16))
            x = (uint64_t)(int64_t)(int16_t)x;
        r->v[0] = (uint32_t)x;
        if (size >= 8) {
            r->v[1] = (uint32_t)(x >> 32);
            r->nv = 2;
        }
        if (size == 16) {
            se_op hi = *v[0];
            hi.imm += 8;
            uint64_t y = cb_read(c, w, &hi, lane, 8, po);
            r->v[2] = (uint32_t)y;
            r->v[3] = (uint32_t)(y >> 32);
            r->nv = 4;
        }
        return 0;
    }
    return -1;
}

/* ---- one warp ----------------------------------------------------------- */

static const char *pz_reason(uint32_t why)
{
    switch (why) {
    case PZ_OPERAND:
        return "an operand form tracegen does not read";
    case PZ_BANK:
        return "a constant bank other than c[0x0] (not modelled)";
    case PZ_ATOMIC:
        return "the value returned by an atomic (depends on the order of "
               "the other threads)";
    case PZ_SREG:
        return "a special register tracegen does not model";
    default:
        return "an instruction tracegen does not emulate";
    }
}

static int poison_error(se_ctx *c, uint32_t po, const char *what,
                        const se_ins *user)
{
    const se_ins *o = &c->k->ins[PZ_INS(po)];
    return wc_diag_set(c->d, WC_EINPUT, c->path, o->line, o->col,
                       "'%s' here is %s, and the %s of '%s' at line %ld "
                       "depends on its result",
                       o->opc, pz_reason(PZ_WHY(po)), what, user->opc,
                       user->line);
}

static int find_pc(const se_kernel *k, uint64_t pc, size_t *idx)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (k->ins[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < k->n && k->ins[lo].pc == pc) {
        *idx = lo;
        return 0;
    }
    return -1;
}

static int is_noop_ctrl(const char *b)
{
    static const char *const t[] = {
        "NOP",   "BAR",     "BSSY",  "BSYNC",  "WARPSYNC", "DEPBAR", "MEMBAR",
        "FENCE", "ERRBAR",  "CCTL",  "YIELD",  "NANOSLEEP", "BMOV",  "BREAK",
        "CGAERRBAR", "PMTRIG", "WARPGROUP", "ACQBULK", "UCGABAR_ARV",
        "UCGABAR_WAIT", "SYNCS", "ELECT", "BPT", "LDGDEPBAR", "ARRIVES",
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(b, t[i]))
            return 1;
    return 0;
}

static int is_bad_ctrl(const char *b)
{
    static const char *const t[] = {"CALL", "RET",  "BRX",  "JMX", "JMP",
                                    "JMXU", "BRXU", "RTT",  "KILL", "SSY",
                                    "SYNC", "PBK",  "BRK",  "CONT", "PCNT"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(b, t[i]))
            return 1;
    return 0;
}

static int is_load_dst(const char *b)
{
    return !strcmp(b, "LDG") || !strcmp(b, "LDS") || !strcmp(b, "LDL") ||
           !strcmp(b, "LD") || !strcmp(b, "LDSM");
}

static int is_atomic(const char *b)
{
    return !strncmp(b, "ATOM", 4);
}

/* Translate a lane's address to what the tracer records. */
static int lane_addr(se_ctx *c, const se_ins *in, uint64_t raw, uint64_t *out)
{
    if (in->space == SP_SHARED) {
        uint64_t off = raw & 0xffffffu;
        if (off < c->p->smem_reserved)
            return wc_diag_set(c->d, WC_EINPUT, c->path, in->line, in->col,
                               "shared address 0x%llx lies below the CTA's data "
                               "(window offset 0x%x; see --smem-reserved)",
                               (unsigned long long)off, c->p->smem_reserved);
        *out = c->p->shmem_base + off - c->p->smem_reserved;
    } else if (in->space == SP_LOCAL) {
        *out = c->p->local_base + (raw & 0xffffffu);
    } else {
        *out = raw;
    }
    return 0;
}

/* Lower-case hex of v, at least `min` digits, into p; returns the length. */
static size_t hexs(char *p, uint64_t v, int min)
{
    char t[16];
    int n = 0;
    do {
        t[n++] = "0123456789abcdef"[v & 15u];
        v >>= 4;
    } while (v || n < min);
    for (int i = 0; i < n; i++)
        p[i] = t[n - 1 - i];
    return (size_t)n;
}

static void emit_line(se_ctx *c, const se_ins *in, uint32_t mask,
                      const uint64_t *addr)
{
    gen_out *b = &c->line;
    char head[32];
    size_t n = hexs(head, in->pc, 4);
    head[n++] = ' ';
    n += hexs(head + n, mask, 8);
    head[n++] = ' ';
    gen_out_write(b, head, n);
    gen_out_write(b, in->pre, in->prelen);
    if (!in->is_mem)
        return;
    /* base+stride when the active lanes are contiguous with one stride */
    int ok = 1, first = -1, last_seen = 0;
    int64_t stride = 0;
    for (int s = 0; s < 32; s++) {
        int on = (int)((mask >> s) & 1u);
        if (on && first < 0) {
            first = s;
            if (s < 31 && ((mask >> (s + 1)) & 1u))
                stride = (int64_t)(addr[s + 1] - addr[s]);
            else {
                ok = 0;
                break;
            }
        } else if (first >= 0 && !last_seen) {
            if (on) {
                if (stride != (int64_t)(addr[s] - addr[s - 1])) {
                    ok = 0;
                    break;
                }
            } else {
                last_seen = 1;
            }
        } else if (last_seen && on) {
            ok = 0;
            break;
        }
    }
    if (ok && stride >= INT32_MIN && stride <= INT32_MAX) {
        char t[64];
        size_t m = 0;
        memcpy(t, "1 0x", 4);
        m = 4 + hexs(t + 4, first >= 0 ? addr[first] : 0, 1);
        m += (size_t)snprintf(t + m, sizeof t - m, " %d ", (int)stride);
        gen_out_write(b, t, m);
    } else {
        uint64_t last = 0;
        int any = 0;
        for (int s = 0; s < 32; s++) {
            if (!((mask >> s) & 1u))
                continue;
            if (!any)
                gen_out_printf(b, "2 0x%llx ", (unsigned long long)addr[s]);
            else
                gen_out_printf(b, "%lld ", (long long)(addr[s] - last));
            any = 1;
            last = addr[s];
        }
        if (!any)
            gen_out_write(b, "2 0x0 ", 6);
    }
    gen_out_write(b, "0 \n", 3);
}


static uint8_t class_of(const se_ins *in)
{
    const char *b = in->base;
    if (!strcmp(b, "EXIT"))
        return C_EXIT;
    if (!strcmp(b, "BRA"))
        return C_BRA;
    if (is_bad_ctrl(b))
        return C_BADCTRL;
    if (is_noop_ctrl(b))
        return C_NOOP;
    if (!strcmp(b, "S2R") || !strcmp(b, "CS2R") || !strcmp(b, "S2UR"))
        return C_SREG;
    if (!strcmp(b, "R2UR"))
        return C_R2UR;
    if (!strcmp(b, "VOTE") || !strcmp(b, "VOTEU"))
        return C_VOTE;
    if (is_load_dst(b) && in->nop > 0 && in->op[0].k == SK_R)
        return C_LOAD;
    if (is_atomic(b))
        return C_ATOM;
    if (in->is_mem)
        return C_MEMOTHER;
    return C_ALU;
}

/* Per instruction, once: class, semantics and the constant part of its trace
 * line ("1 R2 LDG.E 1 R2 4 ", or up to "... 0 0 \n" without memory). */
static int prepare(se_kernel *k, se_args *args)
{
    for (size_t i = 0; i < k->n; i++) {
        se_ins *in = &k->ins[i];
        in->cls = class_of(in);
        in->alu = alu_of(in->base);
        in->span = (uint8_t)dst_span(in);
        in->cbsz = (uint8_t)cb_size(in, 1);
        gen_out b = {0};
        if (in->tdst >= 0)
            gen_out_printf(&b, "1 R%d ", in->tdst);
        else
            gen_out_write(&b, "0 ", 2);
        gen_out_write(&b, in->opc, strlen(in->opc));
        gen_out_printf(&b, " %u ", in->ntsrc);
        for (unsigned j = 0; j < in->ntsrc; j++)
            gen_out_printf(&b, "R%d ", in->tsrc[j]);
        if (in->is_mem)
            gen_out_printf(&b, "%u ", in->width);
        else
            gen_out_write(&b, "0 0 \n", 5);
        if (b.err) {
            free(b.buf);
            return -1;
        }
        in->pre = b.buf;
        in->prelen = b.n;
        roles(in, &args[i]);
    }
    return 0;
}

/* Run one warp; its lines go to c->line.  Returns the instruction count or
 * -1 with c->d set. */
static int64_t run_warp(se_ctx *c, se_warp *w)
{
    const se_kernel *k = c->k;
    uint64_t limit = c->p->max_warp_insts ? c->p->max_warp_insts : 1u << 24;
    uint64_t count = 0;
    size_t i = 0;
    while (w->active) {
        if (i >= k->n)
            return wc_diag_set(c->d, WC_EINPUT, c->path,
                               k->ins[k->n - 1].line, 0,
                               "warp %u of CTA (%u,%u,%u) runs past the last "
                               "instruction without EXIT",
                               w->id, w->cta[0], w->cta[1], w->cta[2]),
                   -1;
        if (++count > limit)
            return wc_diag_set(c->d, WC_EINPUT, c->path, k->ins[i].line,
                               k->ins[i].col,
                               "warp %u of CTA (%u,%u,%u) ran more than %llu "
                               "instructions (an endless loop?)",
                               w->id, w->cta[0], w->cta[1], w->cta[2],
                               (unsigned long long)limit),
                   -1;
        const se_ins *in = &k->ins[i];
        c->cur = i;
        uint32_t g = w->active;
        if (in->guard >= 0) {
            uint32_t gpo = 0;
            uint32_t pm;
            if (in->guard_u) {
                pm = ((w->up >> in->guard) & 1u) ? ~0u : 0u;
                gpo = w->uppo[in->guard];
            } else {
                pm = w->p[in->guard];
                gpo = w->ppo[in->guard];
            }
            if (gpo) {
                poison_error(c, gpo, "guard predicate", in);
                return -1;
            }
            g &= in->guard_neg ? ~pm : pm;
        }
        /* addresses, from the registers before the instruction writes */
        uint64_t addr[32];
        memset(addr, 0, sizeof addr);
        if (in->is_mem) {
            const se_op *m = &in->op[in->mref];
            uint32_t po = 0;
            for (int l = 0; l < 32; l++) {
                if (!((g >> l) & 1u))
                    continue;
                uint64_t a = (uint64_t)m->imm;
                if (m->ix_r >= 0 && m->ix_r != 255) {
                    se_op ro = *m;
                    ro.k = SK_R;
                    ro.reg = m->ix_r;
                    ro.neg = ro.inv = ro.absv = 0;
                    uint64_t rv = m->ix_r64 ? rd64(c, w, &ro, l, &po)
                                            : rd32(c, w, &ro, l, &po);
                    a += rv * m->ix_scale;
                }
                if (m->ix_ur >= 0 && m->ix_ur != 63) {
                    se_op uo = *m;
                    uo.k = SK_UR;
                    uo.reg = m->ix_ur;
                    uo.neg = uo.inv = uo.absv = 0;
                    a += m->ix_ur64 ? rd64(c, w, &uo, l, &po)
                                    : rd32(c, w, &uo, l, &po);
                }
                if (po) {
                    poison_error(c, po, "address", in);
                    return -1;
                }
                if (lane_addr(c, in, a, &addr[l]) != 0)
                    return -1;
            }
            c->mem_insts++;
        }
        emit_line(c, in, g, addr);
        size_t next = i + 1;
        if (in->cls == C_EXIT) {
            w->active &= ~g;
        } else if (in->cls == C_BRA) {
            uint32_t taken = g;
            const se_op *tgt = NULL;
            uint32_t po = 0;
            for (int o = 0; o < in->nop; o++) {
                if (is_pred(&in->op[o])) {
                    uint32_t t = 0;
                    for (int l = 0; l < 32; l++)
                        if (rdp(w, &in->op[o], l, &po))
                            t |= 1u << l;
                    taken &= t;
                } else if (in->op[o].k == SK_IMM) {
                    tgt = &in->op[o];
                }
            }
            if (po) {
                poison_error(c, po, "branch condition", in);
                return -1;
            }
            if (SE_MOD(in, DIV))
                taken = 0; /* warps never diverge here */
            if (taken) {
                if (taken != w->active)
                    return wc_diag_set(c->d, WC_EINPUT, c->path, in->line,
                                       in->col,
                                       "branch diverges in warp %u of CTA "
                                       "(%u,%u,%u): tracegen follows only "
                                       "branches that are uniform in a warp",
                                       w->id, w->cta[0], w->cta[1], w->cta[2]),
                           -1;
                if (!tgt || find_pc(k, (uint64_t)tgt->imm, &next) != 0)
                    return wc_diag_set(c->d, WC_EINPUT, c->path, in->line,
                                       in->col,
                                       "branch target is not an instruction "
                                       "address of this kernel"),
                           -1;
            }
        } else if (in->cls == C_BADCTRL) {
            return wc_diag_set(c->d, WC_EINPUT, c->path, in->line, in->col,
                               "'%s' is not supported by tracegen (straight-line "
                               "code and uniform branches only)", in->opc),
                   -1;
        } else if (in->cls == C_NOOP || !g) {
            ;
        } else if (in->cls == C_SREG) {
            const se_op *dst = &in->op[0];
            const se_op *src = in->nop > 1 ? &in->op[1] : NULL;
            int ok = src && src->k == SK_SR;
            int two = !strcmp(in->base, "CS2R") && !SE_MOD(in, 32);
            uint32_t po = ok ? 0 : PZ(i, PZ_OPERAND);
            for (int l = 0; l < 32 && ok; l++) {
                if (!((g >> l) & 1u))
                    continue;
                uint32_t val = sreg(w, src->sr, l, &ok);
                if (dst->k == SK_R) {
                    wr_r(w, dst->reg, l, val);
                    if (two)
                        wr_r(w, dst->reg + 1, l, 0);
                } else if (dst->k == SK_UR && dst->reg < 63) {
                    w->ur[dst->reg] = val;
                }
            }
            if (!ok)
                po = PZ(i, PZ_SREG);
            if (dst->k == SK_R && dst->reg < 255) {
                po_set(&w->rpo[dst->reg], po, g, w->active);
                if (two && dst->reg + 1 < 255)
                    po_set(&w->rpo[dst->reg + 1], po, g, w->active);
            } else if (dst->k == SK_UR && dst->reg < 63) {
                w->urpo[dst->reg] = po;
            }
        } else if (in->cls == C_R2UR) {
            const se_op *dst = &in->op[0];
            uint32_t po = 0;
            int l = __builtin_ctz(g);
            uint32_t val = in->nop > 1 ? rd32(c, w, &in->op[1], l, &po) : 0;
            if (in->nop < 2)
                po = PZ(i, PZ_OPERAND);
            if (dst->k == SK_UR && dst->reg < 63) {
                w->ur[dst->reg] = val;
                w->urpo[dst->reg] = po;
            }
        } else if (in->cls == C_VOTE) {
            /* VOTE.ANY Rd, Pd, Ps / VOTEU.ANY URd, UPd, Ps */
            uint32_t po = 0, bal = 0;
            const se_op *ps = NULL, *pd = NULL, *rd = NULL;
            for (int o = 0; o < in->nop; o++) {
                const se_op *op = &in->op[o];
                if (op->k == SK_R || op->k == SK_UR)
                    rd = op;
                else if (is_pred(op)) {
                    if (!pd && o < in->nop - 1)
                        pd = op;
                    else
                        ps = op;
                }
            }
            int any = 0, all = 1;
            for (int l = 0; l < 32; l++)
                if ((g >> l) & 1u) {
                    int pv = ps ? rdp(w, ps, l, &po) : 1;
                    bal |= (uint32_t)pv << l;
                    any |= pv;
                    all &= pv;
                }
            int pres = SE_MOD(in, ALL) ? all : any;
            if (!SE_MOD(in, ANY) && !SE_MOD(in, ALL))
                po = PZ(i, PZ_OPCODE);
            if (rd && rd->k == SK_R && rd->reg < 255) {
                for (int l = 0; l < 32; l++)
                    if ((g >> l) & 1u)
                        w->r[rd->reg][l] = bal;
                po_set(&w->rpo[rd->reg], po, g, w->active);
            } else if (rd && rd->k == SK_UR && rd->reg < 63) {
                w->ur[rd->reg] = bal;
                w->urpo[rd->reg] = po;
            }
            if (pd) {
                for (int l = 0; l < 32; l++)
                    if ((g >> l) & 1u)
                        wr_p(w, pd, l, pres);
                po_p(w, pd, po, g);
            }
        } else if (in->cls == C_LOAD) {
            int n = in->width >= 4 ? in->width / 4 : 1;
            if (!strcmp(in->base, "LDSM")) /* LDSM.16.M88.4: 4 registers */
                n = strstr(in->opc, ".4") ? 4 : strstr(in->opc, ".2") ? 2 : 1;
            for (int j = 0; j < n; j++) {
                int reg = in->op[0].reg + j;
                if (reg >= 255)
                    break;
                for (int l = 0; l < 32; l++)
                    if ((g >> l) & 1u)
                        w->r[reg][l] = 0; /* zero-filled buffers */
                po_set(&w->rpo[reg], 0, g, w->active);
            }
        } else if (in->cls == C_ATOM) {
            poison_results(w, in, &c->args[i], PZ(i, PZ_ATOMIC), g);
        } else if (in->cls == C_MEMOTHER) {
            ; /* stores, reductions, prefetches: no register result */
        } else {
            const se_args a = c->args[i];
            int uniform = a.dst ? a.dst->k == SK_UR
                                : (a.npout > 0 && a.pout[0]->k == SK_UP);
            se_res res[32];
            uint32_t po = 0;
            int bad = 0;
            for (int l = 0; l < 32 && !bad; l++) {
                if (!((g >> l) & 1u))
                    continue;
                if (eval(c, w, in, &a, l, &res[l], &po) != 0)
                    bad = 1;
                if (uniform)
                    break;
            }
            if (bad) {
                poison_results(w, in, &c->args[i], PZ(i, PZ_OPCODE), g);
            } else if (uniform) {
                int l = __builtin_ctz(g);
                if (a.dst)
                    for (int j = 0; j < res[l].nv; j++)
                        if (a.dst->reg + j < 63) {
                            w->ur[a.dst->reg + j] = res[l].v[j];
                            w->urpo[a.dst->reg + j] = po;
                        }
                for (int j = 0; j < a.npout && j < 2; j++) {
                    wr_p(w, a.pout[j], l, res[l].pv[j]);
                    po_p(w, a.pout[j], po, ~0u);
                }
            } else {
                for (int l = 0; l < 32; l++) {
                    if (!((g >> l) & 1u))
                        continue;
                    if (a.dst && a.dst->k == SK_R)
                        for (int j = 0; j < res[l].nv; j++)
                            wr_r(w, a.dst->reg + j, l, res[l].v[j]);
                    for (int j = 0; j < a.npout && j < 2; j++)
                        wr_p(w, a.pout[j], l, res[l].pv[j]);
                }
                int nvr = 1;
                for (int l = 0; l < 32; l++)
                    if ((g >> l) & 1u) {
                        nvr = res[l].nv;
                        break;
                    }
                if (a.dst && a.dst->k == SK_R)
                    for (int j = 0; j < nvr; j++)
                        if (a.dst->reg + j < 255)
                            po_set(&w->rpo[a.dst->reg + j], po, g, w->active);
                for (int j = 0; j < a.npout && j < 2; j++)
                    po_p(w, a.pout[j], po, g);
            }
        }
        i = next;
    }
    return (int64_t)count;
}

/* ---- the directory -------------------------------------------------------- */

static int mkdir_p(const char *dir, wc_diag *d)
{
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return wc_diag_set(d, WC_EUSAGE, dir, 0, 0, "path too long");
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return wc_diag_set(d, WC_EUSAGE, tmp, 0, 0,
                                   "cannot create directory: %s", strerror(errno));
            *p = '/';
        }
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return wc_diag_set(d, WC_EUSAGE, tmp, 0, 0,
                           "cannot create directory: %s", strerror(errno));
    return WC_OK;
}

static int write_small(const char *path, const char *text, size_t n, wc_diag *d)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return wc_diag_set(d, WC_EUSAGE, path, 0, 0, "cannot write: %s",
                           strerror(errno));
    int bad = fwrite(text, 1, n, f) != n;
    if (fclose(f) != 0 || bad)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "write error");
    return WC_OK;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int wc_tracegen_write(const wc_tracegen_params *p, const char *outdir,
                      wc_tracegen_result *res, wc_diag *d)
{
    wc_tracegen_result dummy;
    if (!res)
        res = &dummy;
    memset(res, 0, sizeof *res);
    if (!p->listing)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no listing given");
    unsigned grid[3], block[3];
    uint64_t threads = 1, ctas = 1;
    for (int i = 0; i < 3; i++) {
        grid[i] = p->grid[i] ? p->grid[i] : 1;
        block[i] = p->block[i] ? p->block[i] : 1;
        threads *= block[i];
        ctas *= grid[i];
    }
    if (threads > 1024)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "a block has at most 1024 threads (got %llu)",
                           (unsigned long long)threads);
    if (p->zstd && !gen_out_have_zstd())
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "built without libzstd: cannot write .zst");
    char *text = NULL;
    size_t len = 0;
    if (wc_read_file(p->listing, &text, &len, d) != 0)
        return d->code;
    se_kernel k;
    if (se_parse_kernel(p->listing, text, len, p->kernel, &k, d) != 0) {
        free(text);
        return d->code;
    }
    se_args *args = calloc(k.n, sizeof *args);
    if (!args || prepare(&k, args) != 0) {
        free(args);
        se_kernel_free(&k);
        free(text);
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    }
    int bv = p->binary_version ? p->binary_version
                               : (k.binary_version ? k.binary_version : 90);
    int nregs = p->nregs > 0 ? p->nregs : k.max_reg + 3;
    se_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.k = &k;
    c.path = p->listing;
    c.d = d;
    c.args = args;
    c.cb = calloc(CB_SIZE, 1);
    se_warp *w = malloc(sizeof *w);
    int rc = WC_OK;
    gen_out out;
    memset(&out, 0, sizeof out);
    char path[1200];
    if (!c.cb || !w) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto done;
    }
    setup_cbank(p, &k, bv, c.cb, res);
    if ((rc = mkdir_p(outdir, d)) != 0)
        goto done;
    snprintf(path, sizeof path, "%s/kernelslist.g", outdir);
    if ((rc = write_small(path, "kernel-1.traceg\n", 16, d)) != 0)
        goto done;
    snprintf(path, sizeof path, "%s/kernels.sass", outdir);
    if (!same_file(p->listing, path) && (rc = write_small(path, text, len, d)) != 0)
        goto done;
    snprintf(path, sizeof path, "%s/kernel-1.traceg%s", outdir,
             p->zstd ? ".zst" : "");
    {
        /* a stale sibling would shadow or confuse the reader */
        char other[1200];
        snprintf(other, sizeof other, "%s/kernel-1.traceg%s", outdir,
                 p->zstd ? "" : ".zst");
        remove(other);
    }
    if (gen_out_open(&out, path, p->zstd) != 0) {
        rc = wc_diag_set(d, WC_EUSAGE, path, 0, 0, "cannot write: %s",
                         strerror(errno));
        goto done;
    }
    {
        gen_out h = {0};
        gen_out_printf(&h, "-kernel name = %s\n-kernel id = 1\n", k.name);
        gen_out_printf(&h, "-grid dim = (%u,%u,%u)\n-block dim = (%u,%u,%u)\n",
                   grid[0], grid[1], grid[2], block[0], block[1], block[2]);
        gen_out_printf(&h, "-shmem = %u\n-nregs = %d\n-binary version = %d\n",
                   p->shmem, nregs, bv);
        gen_out_printf(&h, "-cuda stream id = 0\n-shmem base_addr = 0x%016llx\n"
                       "-local mem base_addr = 0x%016llx\n",
                   (unsigned long long)p->shmem_base,
                   (unsigned long long)p->local_base);
        gen_out_printf(&h, "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n");
        gen_out_printf(&h, "#traces format = [line_num] PC mask dest_num [reg_dests] "
                       "opcode src_num [reg_srcs] mem_width [adrrescompress?] "
                       "[mem_addresses] immediate\n\n");
        if (h.err) {
            free(h.buf);
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
            goto done;
        }
        gen_out_write(&out, h.buf, h.n);
        free(h.buf);
    }
    unsigned nwarps = (unsigned)((threads + 31) / 32);
    int top = k.max_reg + 4 < 255 ? k.max_reg + 4 : 255;
    gen_out cta = {0};
    unsigned long long written = 0; /* thread blocks (gen_out_room) */
    for (unsigned z = 0; z < grid[2] && !rc; z++)
        for (unsigned y = 0; y < grid[1] && !rc; y++)
            for (unsigned x = 0; x < grid[0] && !rc; x++) {
                cta.n = 0;
                gen_out_printf(&cta, "#BEGIN_TB\n\nthread block = %u,%u,%u\n\n", x, y,
                           z);
                for (unsigned wi = 0; wi < nwarps; wi++) {
                    memset(w->r, 0, sizeof w->r[0] * (size_t)top);
                    memset(w->rpo, 0, sizeof w->rpo);
                    memset(w->ur, 0, sizeof w->ur);
                    memset(w->urpo, 0, sizeof w->urpo);
                    memset(w->ppo, 0, sizeof w->ppo);
                    memset(w->uppo, 0, sizeof w->uppo);
                    memset(w->p, 0, sizeof w->p);
                    w->p[7] = ~0u;
                    w->up = 1u << 7;
                    w->active = 0;
                    w->id = wi;
                    w->cta[0] = x;
                    w->cta[1] = y;
                    w->cta[2] = z;
                    for (unsigned l = 0; l < 32; l++) {
                        uint64_t t = (uint64_t)wi * 32 + l;
                        if (t >= threads)
                            break;
                        w->active |= 1u << l;
                        w->tid[l][0] = (unsigned)(t % block[0]);
                        w->tid[l][1] = (unsigned)((t / block[0]) % block[1]);
                        w->tid[l][2] = (unsigned)(t / ((uint64_t)block[0] * block[1]));
                    }
                    c.line.n = 0;
                    int64_t n = run_warp(&c, w);
                    if (n < 0) {
                        rc = d->code;
                        break;
                    }
                    c.insts += (uint64_t)n;
                    gen_out_printf(&cta, "warp = %u\ninsts = %lld\n", wi, (long long)n);
                    gen_out_write(&cta, c.line.buf, c.line.n);
                }
                gen_out_write(&cta, "#END_TB\n\n", 9);
                if (cta.err || c.line.err) {
                    if (!rc)
                        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
                    break;
                }
                if (!rc) {
                    /* a flush per CTA (the header goes with the first)
                     * keeps the .zst byte-for-byte as it always was: left
                     * buffered, a trace under 1 MiB would reach zstd as one
                     * ZSTD_e_end call, which writes the content size */
                    gen_out_write(&out, cta.buf, cta.n);
                    gen_out_flush(&out);
                    double need, avail;
                    if (gen_out_room_due(&out, ++written) &&
                        gen_out_room(&out, written, ctas, &need, &avail))
                        rc = wc_diag_set(
                            d, WC_EUSAGE, path, 0, 0,
                            "the trace would take about %.3g GB (%llu "
                            "thread blocks, %.3g KB each so far) where the "
                            "file system has %.3g GB; stopped after %llu "
                            "of them (a smaller --grid, or --zstd)",
                            need / 1e9, (unsigned long long)ctas,
                            need / (double)ctas / 1e3, avail / 1e9,
                            written);
                }
            }
    free(cta.buf);
    if (gen_out_close(&out) != 0 && !rc)
        rc = wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "write error");
    if (rc) { /* leave no directory that looks complete */
        remove(path);
        snprintf(path, sizeof path, "%s/kernelslist.g", outdir);
        remove(path);
    }
    res->ctas = ctas;
    res->warps = ctas * nwarps;
    res->insts = c.insts;
    res->mem_insts = c.mem_insts;
    res->nregs = nregs;
    res->binary_version = bv;
    snprintf(res->kernel, sizeof res->kernel, "%s", k.name);
done:
    if (out.f)
        gen_out_close(&out);
    free(c.line.buf);
    free(args);
    free(c.cb);
    free(w);
    se_kernel_free(&k);
    free(text);
    return rc;
}
