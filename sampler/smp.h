/*
 * sampler/smp.h - the one public header of the sampler (hybrid mode).
 *
 * Owns: cutting a kernel into regions (windows of consecutive CTAs that the
 * detailed model can run on their own), choosing the regions to simulate in
 * detail (systematic sampling with a random start, optionally stratified by
 * the interval model's signature of each region), the ratio-estimator
 * correction of the interval model's kernel estimate with its 95%
 * confidence interval, budget-driven choice of the sampling period from the
 * measured host cost of each model, and kernel-level reuse of identical
 * launches.  docs/sampler.md explains the design and its remaining biases.
 *
 *   interval model over every region ──► x_r, signature_r, warp insts
 *                  │                          │
 *                  │               strata (k-means of signatures)
 *                  │                          │
 *                  │            systematic sample, period K, start ~ seed
 *                  │                          │
 *                  │              detailed model on sampled regions ──► y_r
 *                  ▼                          ▼
 *   interval kernel estimate I  ×  stratified ratio  Σ_h R_h X_h / X
 *                               ± t(0.975, df) · standard error (fpc)
 *
 * Long kernels (smp_two_phase_insts) skip the whole-kernel interval pass:
 * two-phase sampling, the interval model on a sample of regions and the
 * detailed model on a subsample of those, carried to the kernel by the
 * per-region warp-instruction counts of the trace index.  Kernels whose
 * CTAs reuse each other's data run on regions spanning all SMs.  One-phase
 * regions on a slice are stand-ins for the whole run by default (each the
 * busiest SM's load on the slice, or the whole run's load on it where the
 * busiest is over 3% above the mean, a 1-SM slice widened to hold it only
 * where its DRAM or L2 is over half busy; smp_kernel_result.standin).
 *
 * Layering: the statistics and selection (smp_stats_*, smp_select) and the
 * sampling loop (smp_estimate) work on an abstract engine (smp_engine: "run
 * model M on region r"), so they are tested on synthetic populations;
 * smp_run_kernel binds the engine to the interval model (model/im.h) and the
 * detailed model (detailed/dm.h).
 *
 * Nothing here prints or exits; progress goes through a callback.
 */
#ifndef SMP_H
#define SMP_H

#include <stddef.h>
#include <stdint.h>

#include "ua.h"
#include "wc.h"

/* ------------------------------------------------------------------------ */
/* Options and results                                                       */
/* ------------------------------------------------------------------------ */

enum { SMP_INTERVAL = 0, SMP_DETAILED = 1, SMP_NMODELS = 2 };

/* Progress report: at most one every ~0.2 s, plus one at the end of each
 * kernel. */
typedef struct smp_progress {
    size_t kernel;          /* kernel index in the trace                    */
    const char *phase;      /* "interval", "detailed", "done"                */
    size_t regions_done;    /* regions handled in this phase                 */
    size_t regions_total;   /* regions this phase will handle                */
    double estimate_cycles; /* kernel estimate so far (0 when none yet)      */
    double elapsed_s;       /* host seconds since the kernel started         */
} smp_progress;

typedef void (*smp_progress_fn)(void *ctx, const smp_progress *p);

/* Zero or negative numeric fields mean "take the GPU config key of the same
 * meaning" (common/keys_sampler.def: smp_period, smp_small_kernel_insts,
 * smp_region_sms, smp_region_waves, smp_max_strata, smp_warmup_ctas). */
typedef struct smp_options {
    uint64_t seed;               /* random start of the systematic sample    */
    long period;                 /* every period-th region of a stratum      */
    double budget_s;             /* > 0: choose the period to fit this many
                                    host seconds (overrides period)          */
    int stratify;                /* 1: stratify by region signature          */
    int max_strata;              /* upper bound on strata (0 = config)       */
    int reuse;                   /* 1: simulate identical launches once      */
    uint64_t small_kernel_insts; /* kernels below: full detailed (0 = cfg)   */
    long region_sms;             /* SMs a region runs on (0 = config/auto)   */
    long region_waves;           /* waves of those SMs per region (0 = cfg)  */
    long warmup_ctas;            /* CTAs run before a region to warm caches,
                                    cycles not counted (< 0: config key)     */
    double bias;                 /* CI allowance for non-sampling error, as a
                                    fraction of the estimate (< 0: config)   */
    int self_profile;            /* also count host CPU cycles (perf_event);
                                    thread CPU time is always measured       */
    int jobs;                    /* threads for the sampled regions of a
                                    kernel (0 or 1: the calling thread); a
                                    context shares them among the kernels it
                                    runs at once.  Results are the same for
                                    any value; budget mode uses one.         */
    smp_progress_fn progress;    /* may be NULL                              */
    void *progress_ctx;
} smp_options;

void smp_options_default(smp_options *o);

/* Why a result has no confidence interval, or how it was obtained. */
enum {
    SMP_HOW_SAMPLED = 0,   /* hybrid estimate with a CI                     */
    SMP_HOW_FULL = 1,      /* whole kernel in detailed mode (full_why)      */
    SMP_HOW_CENSUS = 2,    /* every region sampled: no sampling error       */
    SMP_HOW_SMALL_N = 3,   /* a stratum with n < 2 (and n < N): no CI       */
    SMP_HOW_REUSED = 4,    /* copied from an identical earlier launch       */
};
const char *smp_how_name(int how);

/* Why hybrid mode ran a kernel fully in detail (SMP_HOW_FULL;
 * smp_kernel_result.full_why), for the user: */
enum {
    SMP_FULL_NONE = 0,   /* not run fully in detail                         */
    SMP_FULL_SMALL = 1,  /* small: under smp_small_kernel_insts, in warp
                            instructions or in its predicted detailed cost  */
    SMP_FULL_UNLIKE = 2, /* regions on a slice of SMs would not stand for
                            the full GPU (slice_invalid), and regions on
                            all SMs are too few to sample                   */
    SMP_FULL_COST = 3,   /* the sample would cost about as much as the
                            kernel in detail                                */
};
/* "small", "slice-unlike", "sample-cost"; NULL for SMP_FULL_NONE */
const char *smp_full_why_name(int why);

/* Why slicing a kernel is not valid (smp_kernel_result.slice_invalid). */
enum {
    SMP_SLICE_REUSE = 1,   /* more DRAM sectors per instruction on the slice:
                              cross-CTA data reuse in the full L2           */
    SMP_SLICE_BW = 2,      /* DRAM or L2 utilisation unlike the full GPU's  */
    SMP_SLICE_COMPOSE = 4, /* cycles per instruction, composed, unlike it   */
    SMP_SLICE_OVERLAP = 8  /* two-phase: regions read common sectors        */
};

/* Host cost of one model while simulating a kernel. */
typedef struct smp_host_cost {
    double seconds;       /* thread CPU seconds (CLOCK_THREAD_CPUTIME_ID)     */
    double cycles;        /* host CPU cycles (perf_event via libpfm4), or 0   */
    int have_cycles;      /* 1 when cycles were counted                       */
    uint64_t warp_insts;  /* warp instructions this model simulated           */
    size_t runs;          /* model invocations                                */
} smp_host_cost;
/* dst += src (seconds, cycles, instructions, runs; have_cycles is src's). */
void smp_host_cost_add(smp_host_cost *dst, const smp_host_cost *src);

typedef struct smp_kernel_result {
    uint64_t cycles;          /* hybrid estimate of the detailed model's
                                 kernel cycles                               */
    double estimate;          /* same, unrounded                             */
    double ci95[2];           /* 95% interval when has_ci                    */
    int has_ci;
    int how;                  /* SMP_HOW_*                                   */
    uint64_t warp_insts;      /* of the whole kernel                         */
    double ipc;               /* warp_insts / cycles                         */
    double interval_cycles;   /* interval model, whole kernel (I)            */
    double ratio;             /* estimate / interval_cycles                  */
    size_t regions;           /* N                                           */
    size_t sampled;           /* n (detailed regions)                        */
    size_t strata;
    long period;              /* period used (budget mode: the one chosen)   */
    uint64_t region_ctas;     /* CTAs per region                             */
    long region_sms;          /* SMs per region                              */
    int shared_data;          /* 1: cross-CTA data reuse seen, regions span
                                 all SMs (docs/sampler.md)                   */
    int standin;              /* 1: each region is a stand-in for the whole
                                 run, the busiest SM's load on a slice
                                 (docs/sampler.md, "Stand-in regions")       */
    uint64_t fold_bytes;      /* stand-ins: the span their shared data is
                                 folded into in a slice's L2, 0 none
                                 (docs/sampler.md, "Shared data in
                                 stand-ins")                                 */
    double dram_whole, dram_slice; /* DRAM sectors per warp instruction of
                                 the interval model: whole kernel, one
                                 region on its slice (0 when not measured)  */
    int full_why;             /* SMP_FULL_*: why SMP_HOW_FULL                */
    int slice_invalid;        /* why regions on a slice of SMs were judged
                                 unlike the full GPU (SMP_SLICE_* bits), 0:
                                 valid or not tested                         */
    double util_slice[2], util_full[2]; /* interval model's DRAM and L2
                                 utilisation: the middle region on its slice,
                                 the full GPU (all-SM window or whole
                                 kernel); 0 when not measured               */
    double df;                /* degrees of freedom of the t quantile        */
    long reused_from;         /* kernel index the result was copied from, -1 */
    uint64_t detailed_warp_insts; /* warp instructions run in detail         */
    double interval_composed; /* interval model composed from its sampled
                                 regions: fixed + compose * (ratio estimate
                                 of the regions' total), 0 when unknown; its
                                 gap to interval_cycles measures how unlike
                                 the full run the regions alone are        */
    uint64_t warm_ctas;       /* warm-up CTAs before a sampled region (by
                                 difference; each region at most the CTAs
                                 its slice ran before it), 0: none          */
    size_t phase1;            /* two-phase: regions run in the interval model
                                 (0: one-phase, interval over the whole kernel) */
    double grain;             /* CTA granularity allowance of the interval:
                                 one CTA's mean detailed time on an SM over
                                 the estimate (0: none; smp_engine.grain)   */
    int pilot;                /* 1: the pilot (half the period's sample) was
                                 precise enough and is the sample            */
    smp_host_cost host[SMP_NMODELS];
    /* thread CPU seconds of the sampler's tests, for --self-profile:
     * before the pass (the CTA index, the slice and reuse checks and their
     * windows in the interval model; in no host[] figure) and after it
     * (eval test_seconds: part of host[SMP_INTERVAL]) */
    double host_tests_pre, host_tests_post;
    double host_seconds;      /* wall seconds for this kernel                */
    ua_counts counts;         /* per-kernel counts: from the whole-kernel run
                                 (detailed when it ran the whole kernel, else
                                 the interval pass); two-phase: the interval
                                 regions' counts scaled to the kernel       */
    int counts_exact;         /* 0: counts scaled from regions (two-phase)   */
} smp_kernel_result;

/* ------------------------------------------------------------------------ */
/* Running on traces                                                         */
/* ------------------------------------------------------------------------ */

/* Sampler state kept across the kernels of an application (reuse table,
 * host-cost profile, hardware counter). */
typedef struct smp_ctx smp_ctx;

int smp_ctx_create(const smp_options *o, smp_ctx **out, wc_diag *d);
void smp_ctx_free(smp_ctx *c); /* accepts NULL */

/* Hybrid estimate of kernel k of t on g. */
int smp_ctx_run(smp_ctx *c, wc_trace *t, size_t k, const wc_gpu *g,
                smp_kernel_result *r, wc_diag *d);

/* smp_ctx_run in three steps, so that kernels can run on several threads
 * with the answers of one thread (cli predict --jobs):
 * - smp_ctx_plan, in trace order, on one thread: *from = the earlier
 *   identical launch kernel k reuses, or -1 (then k is entered in the reuse
 *   table, to be filled by smp_ctx_commit);
 * - smp_ctx_run_one, on any thread, for a kernel with from = -1: reads the
 *   context (options; host cost and budget in budget mode, which therefore
 *   needs trace order) and writes nothing in it;
 * - smp_ctx_commit, in trace order: books r (reuse table, host cost,
 *   budget).  A reused kernel's result is smp_ctx_reused, once `from` is
 *   committed. */
int smp_ctx_plan(smp_ctx *c, wc_trace *t, size_t k, long *from, wc_diag *d);
int smp_ctx_run_one(const smp_ctx *c, wc_trace *t, size_t k, const wc_gpu *g,
                    smp_kernel_result *r, wc_diag *d);
void smp_ctx_commit(smp_ctx *c, size_t k, const smp_kernel_result *r);
int smp_ctx_reused(const smp_ctx *c, size_t from, smp_kernel_result *r,
                   wc_diag *d);

/* One kernel with a throw-away context (no reuse across calls). */
int smp_run_kernel(wc_trace *t, size_t k, const wc_gpu *g,
                   const smp_options *o, smp_kernel_result *r, wc_diag *d);

/* Host cost per simulated warp instruction of model m so far in c:
 * seconds (and cycles when counted; *have_cycles says).  0 when unknown. */
double smp_ctx_cost_per_inst(const smp_ctx *c, int m, double *cycles,
                             int *have_cycles);

/* ------------------------------------------------------------------------ */
/* Engine interface: the sampling loop over an abstract pair of models       */
/* ------------------------------------------------------------------------ */

#define SMP_SIG_DIM 16

/* Two-phase sampling on stand-in regions (smp_standin_two_phase_insts,
 * engine aux's *two = 2): phase 2 takes a systematic sample of smp_period
 * of the stand-ins, at least SMP_STANDIN_PHASE2, phase 1 SMP_STANDIN_PHASE1
 * times as many; only with SMP_STANDIN_TWO_PHASE_MIN stand-ins or more,
 * so that phase 1 is a small share of them (docs/sampler.md, "Stand-ins
 * without the whole pass"). */
#define SMP_STANDIN_PHASE1 2
#define SMP_STANDIN_PHASE2 6
#define SMP_STANDIN_TWO_PHASE_MIN 48

/* What one model says about one region (or the whole kernel). */
typedef struct smp_eval {
    double cycles;           /* region: cycles; proxy: weight z_r > 0       */
    double fixed;            /* whole kernel: cycles no region accounts for
                                (launch overhead), not corrected            */
    uint64_t warp_insts;
    double sig[SMP_SIG_DIM]; /* proxy: signature of the region (dimensionless:
                                fractions, logarithms); unused entries 0    */
    size_t nregions;         /* whole(SMP_INTERVAL): regions of the kernel
                                when the engine changed its layout after
                                seeing the whole run (0: e->nregions)       */
    double compose;          /* whole(SMP_INTERVAL): kernel cycles per cycle
                                of the regions' sum (s / num_sms), 0 unknown */
    double test_seconds;     /* whole: thread CPU seconds of the call spent
                                on the sampler's tests after the run (the
                                stand-ins' judgement and fold, the reuse
                                and composition verdicts), reported apart
                                (smp_kernel_result.host_tests_post)         */
} smp_eval;

/*
 * The estimate is  D = fixed + (I - fixed) * rho,  rho = sum_h W_h rho_h,
 * where I is the interval model's whole-kernel estimate, rho_h the ratio of
 * detailed to interval cycles on the sampled regions of stratum h (both
 * models run on the same window), and W_h the stratum's share of the
 * regions' weights z_r (the interval model's latency-bound warp time).
 */
typedef struct smp_engine {
    void *ctx;
    size_t nregions;
    /* Model m on the whole kernel.  whole(SMP_INTERVAL) is called first and
     * makes proxy() usable. */
    int (*whole)(void *ctx, int m, smp_eval *out, wc_diag *d);
    /* Cheap facts of region r from the whole-kernel interval run: weight
     * (cycles), warp instructions, signature. */
    int (*proxy)(void *ctx, size_t r, smp_eval *out, wc_diag *d);
    /* Model m on region r alone (0 <= r < nregions); called from several
     * threads at once when the plan's jobs > 1. */
    int (*region)(void *ctx, int m, size_t r, smp_eval *out, wc_diag *d);
    /* Two-phase sampling (long kernels; NULL: never).  Called first, before
     * whole(): the warp instructions of every region from a cheap scan of
     * the trace that decodes nothing (*ins owned by the engine), and the
     * region count (the engine may change its layout here).  fixed and
     * compose map the regions to the kernel:  kernel cycles ~ fixed +
     * compose * (sum of the regions' cycles)  (launch overhead; s / num_sms
     * for regions on s SMs).  Four regions or fewer (one when sampling
     * would cost about what the detailed model costs on the whole kernel):
     * the engine runs the kernel in detail without the interval pass.
     * *two (0 on entry): set to 1 to ask for two-phase sampling whatever
     * the kernel's size (smp_plan.two_phase_insts); 2 when the regions
     * are stand-ins for the whole run (each lasts as long as the kernel):
     * two-phase with the sample sizes of one-phase sampling
     * (SMP_STANDIN_PHASE1, SMP_STANDIN_PHASE2), where there are at least
     * SMP_STANDIN_TWO_PHASE_MIN of them. */
    int (*aux)(void *ctx, size_t *nregions, const uint64_t **ins,
               double *fixed, double *compose, int *two, wc_diag *d);
    /* CTA granularity of the kernel's end (NULL: none).  Called after the
     * sample has run (the layout is final then): the share of a region's
     * detailed cycles that one CTA on one SM accounts for (SMs / CTAs of a
     * region), when the full GPU hands CTAs to SMs as slots free (more than
     * one wave) and regions run on a slice with a fixed number of CTAs per
     * SM; 0 when that does not apply.  The full run ends with its slowest
     * SM, which may get a CTA more than the even share (the detailed
     * model's dispatch is timing-sensitive), a step no region on a slice
     * can show: its size, one CTA's mean time on an SM over the kernel
     * estimate, widens the interval (docs/sampler.md, "CTA granularity"). */
    double (*grain)(void *ctx);
} smp_engine;

/* Resolved settings of one estimate (config keys already applied). */
typedef struct smp_plan {
    uint64_t seed;
    long period;
    double budget_s;          /* > 0: budget mode                            */
    int stratify;
    int max_strata;
    uint64_t small_kernel_insts;
    double bias;              /* non-sampling allowance (fraction) of the CI */
    /* > 0 (not in budget mode): run every other sampled region of each
     * stratum first (a pilot, at least SMP_PILOT_MIN per stratum) and keep
     * it as the sample when its 95% sampling half-width is at most pilot_ci
     * of the estimate; else run the rest (the result of the whole sample,
     * as with 0) */
    double pilot_ci;
    size_t kernel;            /* for progress reports                        */
    smp_progress_fn progress;
    void *progress_ctx;
    /* Host-cost probe (may be NULL: then only wall time is used). */
    struct smp_clock *clock;
    /* Known cost per warp instruction of the detailed model (seconds),
     * 0 when unknown: then budget mode runs a pilot sample first. */
    double dm_cost_per_inst;
    /* Two-phase sampling for kernels of at least two_phase_insts warp
     * instructions (0: never; not in budget mode): the interval model on
     * about phase1 regions, the detailed model on about phase2 of those. */
    uint64_t two_phase_insts;
    size_t phase1, phase2;
    /* Threads for the region runs (<= 1: the calling thread; budget mode:
     * one).  engine.region() must then be safe to call from several
     * threads at once; the estimate does not depend on it. */
    int jobs;
    int want_cycles;          /* each region thread's clock counts cycles    */
} smp_plan;

/* Sample, simulate and estimate.  Fills every field of r except
 * region_ctas/region_sms/reused_from (left as they are). */
int smp_estimate(const smp_engine *e, const smp_plan *p, smp_kernel_result *r,
                 wc_diag *d);

/* ------------------------------------------------------------------------ */
/* Statistics and selection (pure functions, unit-tested)                    */
/* ------------------------------------------------------------------------ */

/* Stratified ratio of detailed to interval cycles from n sampled regions
 * (x interval, y detailed, stratum of each), with the stratum sizes Nh
 * (regions in the population) and weights Wh (summing to 1):
 *   rho_h = sum_{S_h} y / sum_{S_h} x,   rho = sum_h W_h rho_h
 *   v(rho) = sum_h W_h^2 (1 - n_h/N_h) s_eh^2 / (n_h xbar_h^2),
 *   e_i = y_i - rho_h x_i,  xbar_h = mean of x over S_h
 * (Cochran 6.9 / 6.13).  The estimate is fixed + scale * rho with scale
 * = I - fixed, its interval  +- scale t_{0.975,df} sqrt(v) with df by
 * Welch-Satterthwaite, widened in quadrature by bias * estimate (an
 * allowance for the non-sampling error of running regions alone; 0 = none).
 * Strata of one sampled region (n_h = 1 < N_h) are collapsed for the
 * variance when there are two or more of them (L of them:
 * v_g = L/(L-1) sum_h (1 - 1/N_h) W_h^2 (rho_h - rho_g)^2, rho_g their
 * W-weighted mean ratio, L - 1 degrees of freedom; conservative).
 * has_ci = 0 when exactly one stratum has n_h < 2 and n_h < N_h
 * (SMP_HOW_SMALL_N);
 * when every stratum is a census (or all residuals vanish) only the bias
 * allowance remains (SMP_HOW_CENSUS for a census). */
typedef struct smp_estimate_out {
    double total;     /* fixed + scale * ratio                              */
    double se;        /* standard error of total (sampling only)            */
    double df;
    double ci95[2];
    int has_ci;
    int how;
    double ratio;     /* rho                                                */
} smp_estimate_out;

int smp_stats_ratio(size_t n, const double *x, const double *y,
                    const int *stratum, int nstrata, const double *Nh,
                    const double *Wh, double fixed, double scale, double bias,
                    smp_estimate_out *out, wc_diag *d);

/* Two-phase estimate from its parts (docs/sampler.md, "Long kernels"):
 * A = sum of a over all N regions (known), phase 1 = n1 regions with
 * interval cycles x1 and auxiliary a1, ratio rho of detailed to interval
 * cycles from phase 2 (est2: smp_stats_ratio with scale 1, fixed 0, no
 * bias, its strata weighted by phase 1).
 *   X^  = A * sum x1 / sum a1
 *   D   = fixed + compose * X^ * rho
 *   v   = S^2 (relvar(X^) + relvar(rho)),  S = compose * X^ * rho
 *   relvar(X^) = (1 - n1/N) s_u^2 / (n1 (R_a abar1)^2),  u = x - R_a a
 *   df by Welch-Satterthwaite (n1 - 1 and est2->df), bias as above. */
void smp_stats_two_phase(size_t N, double A, size_t n1, const double *x1,
                         const double *a1, const smp_estimate_out *est2,
                         double fixed, double compose, double bias,
                         smp_estimate_out *out);

/* Systematic sample: for each stratum h (regions of stratum h in index
 * order, N_h of them) a start s_h = floor(u_h * K_h) with u_h drawn from
 * rng in stratum order, then every K_h-th region, where
 * K_h = min(period, max(1, floor(N_h / 2))) so that a stratum of two or
 * more regions always gets at least two.  When pow2 is set, K_h is rounded
 * down to a power of two and the starts are drawn once for the largest
 * period so that halving the period gives a superset (budget mode).
 * sampled[i] is set to 1 for chosen regions (others left unchanged).
 * Returns the number newly set. */
size_t smp_select(size_t N, const int *stratum, int nstrata, long period,
                  int pow2, uint64_t seed, unsigned char *sampled);

/* Group regions into at most kmax strata by their signatures (deterministic
 * k-means with farthest-point seeding from region 0).  Signature components
 * are dimensionless (fractions, logarithms) and compared as they are; k
 * clusters are kept only when every pair of centres is more than min_sep
 * apart (Euclidean) and no stratum is smaller than min_size; k grows from 2
 * until a split is rejected.  Writes stratum[i]
 * and returns the number of strata (>= 1). */
int smp_stratify(size_t N, const double (*sig)[SMP_SIG_DIM], int kmax,
                 double min_sep, size_t min_size, int *stratum);

/* ------------------------------------------------------------------------ */
/* Host cost probe                                                           */
/* ------------------------------------------------------------------------ */

/* Thread CPU time, and task cycles through perf_event (libpfm4) when the
 * hardware counter can be opened. */
typedef struct smp_clock smp_clock;
/* want_cycles: also try the hardware cycle counter.  NULL only when out of
 * memory. */
smp_clock *smp_clock_create(int want_cycles);
void smp_clock_free(smp_clock *c);   /* accepts NULL */
/* Current thread CPU seconds and (when available) cycles. */
void smp_clock_read(smp_clock *c, double *seconds, double *cycles);
int smp_clock_has_cycles(const smp_clock *c);

#endif /* SMP_H */
