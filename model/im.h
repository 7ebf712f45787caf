/*
 * model/im.h - the one public header of the interval model.
 *
 * Owns: the fast analytical estimate of kernel cycles from a trace.  Each
 * warp's instruction stream is cut into intervals at long-latency events;
 * inside an interval the warp issues at the rate its mix allows (issue slot,
 * unit initiation intervals, register-bank read bubbles, the sub-core memory
 * queue), and a dependence costs its latency minus the distance already
 * covered.  Warps are combined per sub-core and per SM by the resources they
 * share (issue slots, units, SM memory structures, L1) and per GPU by L2 and
 * DRAM bandwidth; CTAs are dispatched in trace order onto SM slots given by
 * occupancy.  See docs/model-interval.md.
 *
 * Memory is bounded: CTAs are streamed, warps walked one at a time; nothing
 * proportional to the kernel is kept unless per-warp output is requested.
 * Nothing here prints or exits.
 */
#ifndef IM_H
#define IM_H

#include <stdint.h>

#include "ua.h"
#include "wc.h"

/* CPI stack components.  cpi[i] * warp_insts is the share of the kernel's
 * cycles attributed to component i; the components sum to cycles. */
#define IM_CPIS(X)                                                             \
    X(BASE, "base")             /* one issue slot per instruction         */   \
    X(FETCH, "fetch")           /* instruction cache misses (cold code)   */   \
    X(DEP, "dependency")        /* fixed / non-memory variable latency    */   \
    X(MEM_SHARED, "mem_shared") /* shared memory, constants                */   \
    X(MEM_L1, "mem_l1")         /* global/local served by L1, mem queue    */   \
    X(MEM_L2, "mem_l2")         /* served by L2 (incl. queueing)           */   \
    X(MEM_DRAM, "mem_dram")     /* served by DRAM (incl. queueing)         */   \
    X(UNIT, "unit")             /* unit/issue/RF contention                */   \
    X(BARRIER, "barrier")       /* waiting at CTA barriers                 */   \
    X(IMBALANCE, "imbalance")   /* sub-core imbalance, tail of last wave   */   \
    X(LAUNCH, "launch")         /* launch and CTA dispatch overheads       */

typedef enum im_cpi {
#define X(e, s) IM_CPI_##e,
    IM_CPIS(X)
#undef X
        IM_CPI_COUNT
} im_cpi;

/* Name of component i ("base", ...), NULL when out of range. */
const char *im_cpi_name(int i);

typedef struct im_options {
    uint64_t cta_first; /* first CTA of the window (trace order)            */
    uint64_t cta_count; /* CTAs in the window, 0 = all                      */
    long sms;           /* SMs to model, 0 = the config's num_sms           */
    int per_warp;       /* fill the per-warp arrays of the result           */
    uint64_t seed;      /* shuffle assignment policy                        */
    int no_warp_memo;   /* walk every warp (the warp memo off: tests)       */
    /* > 0 (im_run_kernel): when the window's first snap_after CTAs have
     * been dispatched, *snap gets the result of the window [cta_first,
     * cta_first + snap_after) alone, as a run of that window would give it
     * (the CTAs are walked at dispatch, in order, so nothing before that
     * point depends on the CTAs after it; its end is a copy of the
     * scheduler run to completion); not filled when the window is shorter
     * (snap->ctas 0).  Per-warp arrays are not filled; free with
     * im_result_free. */
    uint64_t snap_after;
    struct im_result *snap;
    const struct ua_fold *l2_fold; /* shared data folded into the L2 (a
                            sampler stand-in region, uarch/ua_mem.h), NULL */
} im_options;

void im_options_default(im_options *o);

typedef struct im_result {
    uint64_t cycles;     /* kernel cycles (+ launch_overhead when the window
                            is the whole kernel, as dm_run_kernel does)     */
    uint64_t sim_cycles; /* cycles without launch_overhead                  */
    uint64_t warp_insts; /* warp instructions of the window                 */
    uint64_t ctas;       /* CTAs of the window                              */
    uint64_t warps;      /* warps of the window                             */
    double ipc;          /* warp instructions per cycle (whole GPU)         */
    double cpi[IM_CPI_COUNT];
    /* aggregate facts (information, docs) */
    unsigned occupancy_ctas; /* resident CTAs per SM                        */
    double waves;            /* CTAs / (SMs x occupancy)                    */
    uint64_t intervals;      /* long-latency events that cut intervals      */
    uint64_t l1_hits, l2_hits, dram_sectors; /* sector counts               */
    double dram_util, l2_util; /* average bandwidth utilisation             */
    ua_counts counts;        /* per-kernel counts (predict: "counts")        */
    double host_seconds;
    uint64_t warps_recalled; /* warps added from the warp memo, not walked  */
    /* per warp, in trace order, when im_options.per_warp (else NULL / 0) */
    size_t nwarps;
    uint64_t *warp_cta;      /* CTA number in the window                    */
    unsigned *warp_id;       /* warp = W of the trace                       */
    unsigned *warp_sm;       /* SM it ran on                                */
    unsigned *warp_subcore;  /* sub-core within the SM                      */
    uint64_t *warp_insts_of; /* instructions                                */
    double *warp_cycles;     /* cycles alone on its sub-core (latency bound) */
    double *warp_ipc;        /* instructions / warp_cycles                  */
} im_result;

/* Estimate kernel k of t on g (all of it, or the CTA window of o; o NULL =
 * defaults).  Returns 0, or a WC_E* code with d filled.  r is valid (and
 * must be freed) on success. */
int im_run_kernel(wc_trace *t, size_t k, const wc_gpu *g, const im_options *o,
                  im_result *r, wc_diag *d);
void im_result_free(im_result *r);

/*
 * Lower-level entry: the model over warp streams built in memory (tests,
 * microbenchmarks).  warps[c * warps_per_cta + w] is the code of warp w of
 * CTA c, n[...] its length.  info gives grid / block / nregs / shmem;
 * info->has_ctrl selects control bits.
 */
int im_run_insts(const wc_kernel_info *info, const wc_inst *const *warps,
                 const size_t *n, const wc_gpu *g, const im_options *o,
                 im_result *r, wc_diag *d);

#endif /* IM_H */
