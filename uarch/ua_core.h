/*
 * uarch/ua_core.h - part of uarch/ua.h (include that): the sub-core facts
 * both models share, without time.
 *
 *   - ua_core: the typed core parameters, decoded once from a wc_gpu
 *     (policy names parsed once; defaults and bounds only in
 *     common/keys*.def; an out-of-range or inconsistent value is a
 *     WC_EINPUT error naming the key(s), never replaced);
 *   - occupancy: the one rule for CTAs resident on one SM, and the error
 *     of a kernel that cannot fit at all;
 *   - warp-to-sub-core assignment (seed 001: rr, SRR, Shuffle);
 *   - register banks and the register file cache geometry (seed 000 5.3);
 *   - the pipeline depths both models count from (seed 000 5.1.1, 5.3).
 */
#ifndef UA_CORE_H
#define UA_CORE_H

#include <stdint.h>

#include "wc.h"

/* ---- structure (sizes of arrays; the key bounds never exceed them) ---- */

#define UA_MAX_SUBCORES 8 /* subcores_per_sm upper bound (keys_gpu.def)  */
#define UA_MAX_BANKS 8    /* rf_banks upper bound (keys_core.def)         */

/* Register file cache (seed 000 5.3.1): one entry per register bank, each
 * holding three 1024-bit values, one per regular source operand position
 * (slot) 0..2; "the RFC's total capacity is six 1024-bit operand values"
 * with two banks.  Operand positions >= UA_RFC_SLOTS are never cached. */
#define UA_RFC_SLOTS 3

/* Issue-to-allocate depth (seed 000 5.1.1, 5.3): an instruction issued in
 * cycle t is in Control in t+1 and in Allocate (fixed latency) or the
 * variable-latency queue's first register-file read from t+2.  A
 * fixed-latency result due lat cycles after issue is thus written
 * lat - UA_ISSUE_TO_ALLOC cycles after Allocate. */
#define UA_ISSUE_TO_ALLOC 2

/* ---- policy names (issue_policy, assign_policy, dep_mode) ------------- */

typedef enum { UA_POL_CGGTY, UA_POL_GTO, UA_POL_LRR, UA_POL_RBA,
               UA_POL_COUNT } ua_policy;
typedef enum { UA_ASSIGN_RR, UA_ASSIGN_SRR, UA_ASSIGN_SHUFFLE,
               UA_ASSIGN_COUNT } ua_assign;
typedef enum { UA_DEP_AUTO, UA_DEP_CTRL, UA_DEP_SCOREBOARD,
               UA_DEP_COUNT } ua_dep;

/* Names as written in a .cfg ("cggty", "srr", "scoreboard"); NULL when out
 * of range. */
const char *ua_policy_name(int v);
const char *ua_assign_name(int v);
const char *ua_dep_name(int v);

/* ---- typed core parameters ---------------------------------------------- */

/* Occupancy limits (keys_gpu.def), as the one rule reads them. */
typedef struct ua_occ_limits {
    long max_warps, max_ctas, max_threads_per_cta, warp_unit;
    long regs_per_sm, max_regs_per_thread, reg_unit, reg_per_cta;
    long shmem_per_sm, shmem_unit;
} ua_occ_limits;

typedef struct ua_core {
    ua_policy policy;
    ua_assign assign;
    ua_dep dep;
    unsigned nsub;                 /* sub-cores per SM                     */
    /* front-end */
    unsigned ibuf, inst_bytes, icache_line;
    unsigned l0i_lines, l0i_assoc, l1i_lines, l1i_assoc, sb_lines;
    unsigned l1i_lat, l1i_miss_lat;
    int icache_perfect;
    /* issue */
    unsigned const_switch, quirk_above, quirk_cycles, exit_yield_stall;
    int mem_oldest; /* mem_issue_oldest */
    /* register file (seed 000 5.3) */
    unsigned banks, read_ports, write_ports, read_window;
    unsigned bank_mask; /* banks - 1 when banks is a power of two, else 0 */
    int rfc;
    /* variable-latency non-memory queue, scoreboard what-if, watchdog */
    unsigned vq_entries, sb_consumers;
    uint64_t watchdog;
    /* execution: lat_ / ii_ per class, tensor latencies by type/shape
     * (0 = lat_tensor), one FP64 unit per SM */
    long lat[WC_LAT_COUNT], ii[WC_LAT_COUNT];
    long tensor_k16, tensor_int, tensor_fp64;
    /* MUFU by function (WC_MUFU_*; lat_mufu_* keys, 0 there = lat_sfu):
     * resolved here, so mufu[WC_MUFU_NONE] = lat_sfu */
    long mufu[8];
    int fp64_shared;
    ua_occ_limits occ;
    /* launch model (keys_launch.def) */
    double launch, cta_dispatch, cta_ovh, cta_warp_ovh;
} ua_core;

/* Decode the core parameters of g.  Every numeric key of the table is
 * checked against its bounds, the policy names are parsed, and
 * combinations that cannot work are rejected.  Returns 0 or WC_EINPUT with
 * d naming the key(s) (file: g->source). */
int ua_core_decode(const wc_gpu *g, ua_core *c, wc_diag *d);

/* Latency of in (class lc): tensor instructions by type and shape (seed 000
 * section 6, the opcode's WC_MF_MMA_* facts), MUFU by function (the kit's
 * lat_mufu_* chains on an H100 SXM, issue 11), everything else by class. */
static inline long ua_inst_lat(const ua_core *c, const wc_inst *in, int lc)
{
    if (lc == WC_LAT_tensor) {
        long v = 0;
        if (in->mflags & WC_MF_MMA_FP64)
            v = c->tensor_fp64;
        else if (in->mflags & WC_MF_MMA_INT)
            v = c->tensor_int;
        else if (in->mflags & WC_MF_MMA_K16)
            v = c->tensor_k16;
        if (v > 0)
            return v;
    } else if (lc == WC_LAT_sfu) {
        return c->mufu[(in->mflags & WC_MF_MUFU_MASK) >> WC_MF_MUFU_SHIFT];
    }
    return c->lat[lc];
}

/* ---- occupancy: the one rule -------------------------------------------- */

/* Which limit bounds the CTAs resident on one SM. */
typedef enum { UA_LIM_CTAS, UA_LIM_WARPS, UA_LIM_REGS, UA_LIM_SHMEM } ua_limit;

/* Warps one CTA of threads_per_cta threads occupies (rounded up to
 * warp_alloc_unit), registers (reg_alloc_unit, per warp or per CTA) and
 * shared memory (shmem_alloc_unit). */
long ua_cta_warps(const ua_occ_limits *o, unsigned threads_per_cta);
long ua_cta_regs(const ua_occ_limits *o, unsigned threads_per_cta,
                 long nregs);
long ua_cta_shmem(const ua_occ_limits *o, long shmem);

/* CTAs of this shape resident on one SM at once: the minimum over the
 * CTA-slot, warp, register and shared-memory limits with their allocation
 * granularities (*limit: which one binds, may be NULL).  0 when one CTA
 * does not fit on an empty SM. */
unsigned ua_occupancy(const ua_occ_limits *o, unsigned threads_per_cta,
                      long nregs, long shmem, ua_limit *limit);

/* The occupancy of a kernel on g: *ctas >= 1, or WC_EINPUT when one CTA
 * cannot fit on an SM, d naming the limit exceeded and the key(s) that set
 * it (file: the kernel's trace, where), e.g. "a CTA needs 200064 bytes of
 * shared memory, shmem_per_sm = 65536". */
int ua_ctas_per_sm(const wc_gpu *g, unsigned threads_per_cta, long nregs,
                   long shmem, const char *where, unsigned *ctas,
                   wc_diag *d);

/* Threads of one CTA of kernel ki (block x*y*z; warps_per_cta x 32 when
 * the header gives no block shape). */
unsigned ua_kernel_threads(const wc_kernel_info *ki);
/* ua_ctas_per_sm for kernel ki (its threads, registers, shared memory;
 * errors name ki->path). */
int ua_kernel_ctas_per_sm(const wc_gpu *g, const wc_kernel_info *ki,
                          unsigned *ctas, wc_diag *d);

/* ---- warp-to-sub-core assignment (seed 001 IV-B) ------------------------- */

/* Sub-core of the W-th warp assigned on an SM: rr W mod N; SRR eq. (1)
 * (W + W/N) mod N; Shuffle a random permutation of 0..N-1 per group of N
 * warps, drawn from (seed, sm, W / N) so it is the same whatever the order
 * of the calls. */
unsigned ua_subcore(ua_assign a, unsigned nsub, uint64_t W, uint64_t seed,
                    uint64_t sm);

/* ---- register banks (seed 000 5.3) --------------------------------------- */

/* Bank of regular register reg. */
static inline unsigned ua_bank(const ua_core *c, unsigned reg)
{
    /* speed only: a mask for the usual 2 or 4 banks instead of a division
     * on every operand */
    return c->bank_mask ? reg & c->bank_mask : reg % c->banks;
}

#endif /* UA_CORE_H */
