/*
 * uarch/ua_mem_class.c - classification of memory instructions: which
 * structure serves them (path), which row of seed 000 Table 2 they take
 * (instruction class, access width, register type that holds the address)
 * and the row's WAR and RAW latencies from the configuration (keys
 * mem_war_* / mem_raw_*, common/keys_mem.def), decoded once per run.
 *
 * Rows the paper does not list fall back to the nearest measured one:
 * 8/16-bit accesses use the 32-bit row, 128-bit LDC the 64-bit row, an
 * immediate address outside LDC the uniform row, a uniform LDGSTS the
 * regular row, any other missing row the regular row of its width, then
 * the 32-bit regular row.
 *
 * Atomics and reductions (Table 2 lists neither): an atomic that returns a
 * value (ATOM, ATOMG) reads its sources and writes a register like a load,
 * so it takes the global-load row, plus the L2 round trip where the
 * operation is performed.  A reduction (RED, REDG) writes no register; the
 * paper notes that stores generate no RAW/WAW dependence and measures their
 * WAR (address and data read), which is what a reduction has: it takes the
 * global-store row and its L2 access.  Shared atomics take the shared-load
 * row, shared reductions the shared-store row.
 */
#include <stddef.h>
#include <string.h>

#include "ua.h"

#define NO_KEY ((size_t)-1)

typedef struct row {
    ua_mop mop;
    unsigned bits;
    ua_regtype rt;
    size_t war, raw; /* offsets in wc_gpu */
} row;

#define MOP_ldg UA_MOP_LDG
#define MOP_stg UA_MOP_STG
#define MOP_lds UA_MOP_LDS
#define MOP_sts UA_MOP_STS
#define MOP_ldc UA_MOP_LDC
#define MOP_ldgsts UA_MOP_LDGSTS
#define RT_r UA_RT_REGULAR
#define RT_u UA_RT_UNIFORM
#define RT_i UA_RT_IMM

static const row rows[] = {
#define LD_(op, bits, rt)                                                      \
    {MOP_##op, bits, RT_##rt, offsetof(wc_gpu, mem_war_##op##bits##_##rt),     \
     offsetof(wc_gpu, mem_raw_##op##bits##_##rt)},
#define ST_(op, bits, rt)                                                      \
    {MOP_##op, bits, RT_##rt, offsetof(wc_gpu, mem_war_##op##bits##_##rt),     \
     NO_KEY},
    WC_MEM_LAT_ROWS(LD_) WC_MEM_LAT_ST_ROWS(ST_)
#undef LD_
#undef ST_
};

static const row *find_row(ua_mop mop, unsigned bits, ua_regtype rt)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].mop == mop && rows[i].bits == bits && rows[i].rt == rt)
            return &rows[i];
    return NULL;
}

static long key_at(const wc_gpu *g, size_t off)
{
    long v;
    memcpy(&v, (const char *)g + off, sizeof v);
    return v;
}

void ua_mem_rows_init(ua_mem_rows *r, const wc_gpu *g)
{
    static const unsigned bits_of[3] = {32, 64, 128};
    memset(r, 0, sizeof *r);
    for (int m = 0; m < UA_MOP_COUNT; m++)
        for (int w = 0; w < 3; w++)
            for (int t = 0; t < UA_RT_COUNT; t++) {
                /* a fence reads nothing: the cheapest store row for WAR */
                ua_mop look = m == UA_MOP_FENCE ? UA_MOP_STG : (ua_mop)m;
                unsigned bits = m == UA_MOP_FENCE ? 32 : bits_of[w];
                ua_regtype rt = m == UA_MOP_FENCE ? UA_RT_REGULAR
                                                  : (ua_regtype)t;
                if (look == UA_MOP_LDC && bits > 64)
                    bits = 64;
                const row *x = find_row(look, bits, rt);
                if (!x && rt == UA_RT_IMM)
                    x = find_row(look, bits, UA_RT_UNIFORM);
                if (!x)
                    x = find_row(look, bits, UA_RT_REGULAR);
                if (!x)
                    x = find_row(look, 32, UA_RT_REGULAR);
                r->war[m][w][t] = x ? key_at(g, x->war) : 0;
                r->raw[m][w][t] =
                    x && x->raw != NO_KEY && m != UA_MOP_FENCE
                        ? key_at(g, x->raw)
                        : -1;
            }
}

int ua_mem_is_mem(const wc_inst *in)
{
    return wc_inst_latclass(in) == WC_LAT_mem;
}

/* Asynchronous / bulk copies between global and shared memory. */
static int is_bulk(const char *name)
{
    if (name[0] == 'L')
        return !strcmp(name, "LDGSTS"); /* == WC_MF_LDGSTS */
    if (name[0] != 'U')
        return 0;
    return !strcmp(name, "UTMALDG") || !strcmp(name, "UTMASTG") ||
           !strcmp(name, "UTMAREDG") || !strcmp(name, "UBLKCP") ||
           !strcmp(name, "UBLKRED");
}

static int reg_written(const wc_inst *in)
{
    for (unsigned i = 0; i < in->ndst && i < WC_MAX_DST; i++) {
        wc_reg r = in->dst[i];
        if ((WC_REG_IS_R(r) || WC_REG_IS_UR(r)) && !WC_REG_IS_ZERO(r))
            return 1;
    }
    return 0;
}

void ua_mem_classify(const ua_mem_rows *rows_, const wc_inst *in,
                     ua_mem_class *cl)
{
    memset(cl, 0, sizeof *cl);
    const wc_opinfo *oi = wc_op_info(in->op);
    unsigned f = oi->flags;
    int ld = (f & WC_OPF_LOAD) != 0, st = (f & WC_OPF_STORE) != 0,
        at = (f & WC_OPF_ATOMIC) != 0;
    cl->atomic = at;
    if (!ld && !st && !at) {
        cl->mop = UA_MOP_FENCE;
        cl->path = UA_PATH_NONE;
    } else if (oi->space == WC_SPACE_SHARED) {
        cl->mop = st && !ld ? UA_MOP_STS : UA_MOP_LDS;
        cl->path = UA_PATH_SHARED;
        cl->is_write = st && !ld && !at;
    } else if (oi->space == WC_SPACE_CONST) {
        cl->mop = UA_MOP_LDC;
        cl->path = UA_PATH_CONST;
    } else if (is_bulk(oi->name)) {
        cl->mop = UA_MOP_LDGSTS;
        cl->path = UA_PATH_GLOBAL;
        cl->l2_only = (in->mflags & WC_MF_BYPASS) != 0;
    } else {
        /* global, local, generic, texture / surface, attributes */
        cl->mop = st && !ld ? UA_MOP_STG : UA_MOP_LDG;
        cl->path = UA_PATH_GLOBAL;
        cl->l2_only = at;
        cl->is_write = st && !ld;
    }
    unsigned w = in->width ? in->width : 4;
    cl->bits = w <= 4 ? 32 : w <= 8 ? 64 : 128;
    if (cl->mop == UA_MOP_LDC) {
        int reg = in->nsrc > 0 && WC_REG_IS_R(in->src[0]) &&
                  !WC_REG_IS_ZERO(in->src[0]);
        cl->rt = reg ? UA_RT_REGULAR : UA_RT_IMM;
        if (cl->bits > 64)
            cl->bits = 64;
    } else if (cl->mop == UA_MOP_LDGSTS) {
        cl->rt = UA_RT_REGULAR;
    } else {
        cl->rt = (in->iflags & WC_IF_UADDR) ? UA_RT_UNIFORM : UA_RT_REGULAR;
    }
    cl->has_dst = cl->mop != UA_MOP_STG && cl->mop != UA_MOP_STS &&
                  cl->mop != UA_MOP_FENCE && cl->mop != UA_MOP_LDGSTS &&
                  reg_written(in);
    int wi = cl->bits == 32 ? 0 : cl->bits == 64 ? 1 : 2;
    cl->war = rows_->war[cl->mop][wi][cl->rt];
    cl->raw = rows_->raw[cl->mop][wi][cl->rt];
}
