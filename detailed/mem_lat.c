/*
 * detailed/mem_lat.c - classification of memory instructions into the rows
 * of seed 000 Table 2 (instruction class, access width, register type that
 * holds the address) and lookup of the row's WAR and RAW latencies in the
 * configuration (keys mem_war_* / mem_raw_*, common/keys_mem.def).
 *
 * Rows the paper does not list fall back to the nearest measured one:
 * 8/16-bit accesses use the 32-bit row, 128-bit LDC the 64-bit row, an
 * immediate address outside LDC the uniform row, a uniform LDGSTS the
 * regular row.  Global atomics use the global-load row plus an L2 access,
 * reductions the global-store row, shared atomics the shared-load row.
 */
#include <stddef.h>
#include <string.h>

#include "mem.h"

#define MOP_ldg DM_MOP_LDG
#define MOP_stg DM_MOP_STG
#define MOP_lds DM_MOP_LDS
#define MOP_sts DM_MOP_STS
#define MOP_ldc DM_MOP_LDC
#define MOP_ldgsts DM_MOP_LDGSTS
#define RT_r DM_RT_REGULAR
#define RT_u DM_RT_UNIFORM
#define RT_i DM_RT_IMM
#define NO_KEY ((size_t)-1)

typedef struct row {
    dm_mop mop;
    unsigned bits;
    dm_regtype rt;
    size_t war, raw; /* offsets in wc_gpu */
} row;

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

static const row *find_row(dm_mop mop, unsigned bits, dm_regtype rt)
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

static int name_is(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list))
            return 1;
    return 0;
}

static int has_mod(const char *opcode, const char *mod)
{
    size_t n = strlen(mod);
    for (const char *p = strchr(opcode, '.'); p; p = strchr(p + 1, '.'))
        if (!strncmp(p + 1, mod, n) && (p[1 + n] == '.' || p[1 + n] == '\0'))
            return 1;
    return 0;
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

static dm_mop op_class(const wc_inst *in, int *l2_only)
{
    static const char *const ldg[] = {"LDG", "LD", "LDL", "TEX", "TEXS",
                                      "TLD", "TLDS", "TLD4", NULL};
    static const char *const stg[] = {"STG", "ST", "STL", NULL};
    static const char *const lds[] = {"LDS", "LDSM", "ATOMS", "SYNCS",
                                      "ARRIVES", NULL};
    static const char *const sts[] = {"STS", "STSM", "REDAS", NULL};
    static const char *const atom_g[] = {"ATOM", "ATOMG", NULL};
    static const char *const red_g[] = {"RED", "REDG", NULL};
    static const char *const bulk[] = {"LDGSTS", "UTMALDG", "UTMASTG",
                                       "UTMAREDG", "UBLKCP", "UBLKRED", NULL};
    const char *name = wc_op_info(in->op)->name;
    *l2_only = 0;
    if (name_is(name, ldg))
        return DM_MOP_LDG;
    if (name_is(name, stg))
        return DM_MOP_STG;
    if (name_is(name, lds))
        return DM_MOP_LDS;
    if (name_is(name, sts))
        return DM_MOP_STS;
    if (!strcmp(name, "LDC"))
        return DM_MOP_LDC;
    if (name_is(name, atom_g)) {
        *l2_only = 1;
        return DM_MOP_LDG;
    }
    if (name_is(name, red_g)) {
        *l2_only = 1;
        return DM_MOP_STG;
    }
    if (name_is(name, bulk)) {
        *l2_only = has_mod(in->opcode, "BYPASS");
        return DM_MOP_LDGSTS;
    }
    return DM_MOP_FENCE;
}

void dm_mem_classify(const wc_gpu *g, const wc_inst *in, dm_mem_class *cl)
{
    memset(cl, 0, sizeof *cl);
    cl->mop = op_class(in, &cl->l2_only);
    unsigned w = in->width ? in->width : 4;
    cl->bits = w <= 4 ? 32 : w <= 8 ? 64 : 128;
    if (cl->mop == DM_MOP_LDC) {
        int reg = in->nsrc > 0 && WC_REG_IS_R(in->src[0]) &&
                  !WC_REG_IS_ZERO(in->src[0]);
        cl->rt = reg ? DM_RT_REGULAR : DM_RT_IMM;
        if (cl->bits > 64)
            cl->bits = 64;
    } else if (cl->mop == DM_MOP_LDGSTS) {
        cl->rt = DM_RT_REGULAR;
    } else {
        cl->rt = (in->iflags & WC_IF_UADDR) ? DM_RT_UNIFORM : DM_RT_REGULAR;
    }
    cl->has_dst = cl->mop != DM_MOP_STG && cl->mop != DM_MOP_STS &&
                  cl->mop != DM_MOP_FENCE && cl->mop != DM_MOP_LDGSTS &&
                  reg_written(in);

    /* a fence reads nothing: it takes the cheapest store row for its WAR */
    dm_mop look = cl->mop == DM_MOP_FENCE ? DM_MOP_STG : cl->mop;
    unsigned bits = cl->mop == DM_MOP_FENCE ? 32 : cl->bits;
    dm_regtype rt = cl->mop == DM_MOP_FENCE ? DM_RT_REGULAR : cl->rt;
    const row *r = find_row(look, bits, rt);
    if (!r && rt == DM_RT_IMM)
        r = find_row(look, bits, DM_RT_UNIFORM);
    if (!r)
        r = find_row(look, bits, DM_RT_REGULAR);
    if (!r)
        r = find_row(look, 32, DM_RT_REGULAR);
    cl->war = r ? key_at(g, r->war) : 0;
    cl->raw = r && r->raw != NO_KEY ? key_at(g, r->raw) : -1;
}
