/*
 * sampler/bind.c - hybrid mode on real traces: regions of a kernel, the
 * engine bound to the interval model (model/im.h) and the detailed model
 * (detailed/dm.h), warm-up, kernel-level reuse, and the sampler context.
 *
 * Region = a window of consecutive CTAs (trace order) run on a slice of the
 * GPU: s SMs with s/num_sms of every GPU-wide resource (L2 capacity, L2 and
 * DRAM bandwidth, CTA dispatch rate), `waves` waves of the CTAs resident on
 * those SMs.  Both models run the same window on the same slice config, so
 * they differ only in how they model.  docs/sampler.md justifies the choice.
 *
 * One-phase sampling on a slice uses stand-in regions first (go_standin,
 * smp_standin): each region is the busiest SM's load on the slice, the
 * whole run in miniature (its ramp, its tail, an L2 that fills at the same
 * point); when the stand-ins are unlike the whole run (check_sharing,
 * after the pass), regions of smp_region_waves waves.
 *
 * Cross-CTA data reuse (check_sharing, check_overlap) switches a kernel to
 * regions on all SMs; long kernels get finer regions and the per-region
 * instruction counts of the trace index for two-phase sampling (eng_aux).
 *
 * Warm-up (neither model has a warm-start option): a region [f, f+c) with w
 * warm-up CTAs is measured as  T(f-w, w+c) - T(f-w, w), the extra time the
 * region adds after w CTAs that ran before it from a cold start, so caches,
 * instruction caches and the CTA pipeline are in the state the preceding
 * CTAs left; the same is done for both models.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dm.h"
#include "im.h"
#include "smp.h"
#include "wc_check.h"
#include "ua.h"

/* Cross-CTA reuse (check_sharing): a region on its slice reading more than
 * SMP_SHARE_RATIO times the whole kernel's DRAM sectors per warp
 * instruction, and at least SMP_SHARE_MIN more. */
#define SMP_SHARE_RATIO 1.5
#define SMP_SHARE_MIN 0.02
/* ... or whose interval cycles, composed to the whole kernel, miss the
 * whole-kernel interval run by more than this fraction. */
#define SMP_COMPOSE_GAP 0.25
/* check_overlap: sectors read by this many regions on average. */
#define SMP_SHARE_READS 2.0
/* Slice validity (bandwidth share): a region on its slice must see the
 * DRAM and L2 utilisation of the full GPU within this (absolute)... */
#define SMP_UTIL_GAP 0.10
/* The whole run's stand-in before the pass (busiest_load) rejects a slice
 * only when it is this far past the allowances (utilisation, absolute;
 * composition, fraction); nearer, the pass decides.  Measured against the
 * whole pass: 0.002-0.004 in utilisation, 0.009-0.021 in composition
 * (copy2 16384 x 256 on h100-sxm, mixed 8192 x 128 and 4096 x 256 i8
 * kernel 1 on h100-pcie; sampler.md). */
#define SMP_STANDIN_UTIL 0.02
#define SMP_STANDIN_COMPOSE 0.05
/* ... when either is above this utilisation. */
#define SMP_UTIL_BUSY 0.5
/* DRAM this busy is saturated (busy_two_phase). */
#define SMP_UTIL_SATURATED 0.95
/* ... and compose to the full GPU's cycles per instruction within this
 * fraction (the all-SM window of check_slice; smaller than
 * SMP_COMPOSE_GAP, which compares with the whole kernel, tail included). */
#define SMP_WINDOW_GAP 0.10
/* check_slice runs before the whole-kernel pass only when its all-SM
 * window is at most this share of the kernel's CTAs (else it costs about
 * as much as the pass it would save, and check_sharing decides after it). */
#define SMP_WINDOW_SHARE 0.5
/* ... and, on a slice quiet in DRAM (check_slice), runs its all-SM window
 * (with its warm-up wave) only when that is at most this share of the
 * kernel's CTAs; else check_sharing judges the slice after the pass.  The
 * window's verdict is there to spare the pass on a kernel whose slice is
 * invalid, yet it cost 22-32% of hybrid mode's host instructions on
 * compute and shared-memory kernels of 4-5 waves (mixed 8192 x 128: kernel
 * 3 0.94 G of 4.21 G, kernel 4 2.05 G of 6.24 G; callgrind), where only
 * its composition test can fail, and that failed on none of the 46 kernels
 * logged (stop 25: bench_hybrid's synthetic set, the H100 SXM kernels,
 * seven unseen shapes). */
#define SMP_WINDOW_COST 0.25
/* Sampling is worth it only when its predicted detailed-model cost (the
 * sampled regions with their warm-up CTAs, which run twice, see
 * eng_region_) plus the interval pass is under this share of the kernel's
 * detailed cost; otherwise the kernel runs in detail without the pass
 * (sample_worth).  The 20% below 1 is the allowance for the prediction's
 * error (region costs differ; the pass's share varies with the kernel). */
#define SMP_WORTH 0.8
/* Host cost of the interval model's whole-kernel pass as a share of the
 * detailed model's on the same kernel: measured 0.07-0.09 on the H100 SXM
 * memory kernels (copy2, vadd, vadd_ffma: 0.15-0.53 s against 1.7-6.9 s)
 * and up to about 0.17 on compute kernels (issue 13: 10 M/s against
 * 1.7 M/s); the larger is taken. */
#define SMP_PASS_COST 0.2
/* The fewest regions a sample on all SMs may rest on.  Regions on all
 * SMs are waves of the whole GPU, so a kernel of few waves has few of
 * them and smp_select takes 2 (one stratum, every K-th region, K = N/2):
 * one degree of freedom (Student's t = 12.7), and on a bandwidth-bound
 * kernel waves that differ in L2 / DRAM state (copy2 on 2 of 8 all-SM
 * regions: +4.3% / +7.8% of detailed at its two measured clocks, interval
 * +-22%).  Such a kernel has few regions, so its detailed run costs at most
 * a few samples' worth: it runs in detail.  (Regions on a slice are many
 * per wave; their samples are not limited here.) */
#define SMP_MIN_SAMPLE_ALL_SMS 3
/* small_rule probes the interval model's steady state only for kernels of
 * at least smp_small_kernel_insts / SMP_SMALL_PROBE warp instructions. */
#define SMP_SMALL_PROBE 16

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */

void smp_options_default(smp_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->period = 0;       /* config smp_period */
    o->stratify = 1;
    o->reuse = 1;
    o->warmup_ctas = -1; /* config smp_warmup_ctas */
    o->bias = -1;        /* config smp_bias */
}

/* ------------------------------------------------------------------------ */
/* Regions                                                                   */
/* ------------------------------------------------------------------------ */

/* Scale a GPU-wide numeric key by f (keys a config may lack are skipped). */
static void scale_key(wc_gpu *s, const char *key, double f, double quantum)
{
    double v;
    if (wc_gpu_get_num(s, key, &v) != 0 || v <= 0)
        return; /* absent, or off (l2_size 0: no L2 on a slice either) */
    v *= f;
    if (quantum > 0)
        v = fmax(quantum, floor(v / quantum) * quantum);
    wc_diag d;
    (void)wc_gpu_set_num(s, key, v, &d); /* out of bounds: keep the value */
}

/* The config of a slice of `sms` SMs of g with share f of every GPU-wide
 * resource (slice_share: sms / active, what each of its SMs has in the
 * full run). */
static void slice_config(const wc_gpu *g, long sms, double f, wc_gpu *s)
{
    *s = *g;
    if (sms >= g->num_sms)
        return;
    s->num_sms = sms;
    scale_key(s, "l2_bw", f, 0);
    scale_key(s, "dram_bw", f, 0);
    double v = 0;
    double set_bytes = (double)g->l2_assoc;
    if (wc_gpu_get_num(g, "l2_line_bytes", &v) == 0 && v > 0)
        set_bytes *= v;
    else
        set_bytes *= (double)g->l1_line_bytes;
    scale_key(s, "l2_size", f, set_bytes);
    scale_key(s, "cta_dispatch", 1 / f, 0); /* one dispatcher, shared */
}

/* What the interval model measured of the middle region on its slice
 * (run_mid, check_slice). */
typedef struct mid_meas {
    smp_eval mid;     /* the middle region on its slice                     */
    ua_counts counts; /* its counts (global sectors: warm_l2)               */
    uint64_t ctas;    /* its CTAs                                           */
    double dram;      /* its DRAM sectors per warp instruction              */
    double util[2];   /* its DRAM, L2 utilisation                           */
    int sliced;       /* 1: check_slice judged the slice already            */
} mid_meas;

typedef struct kbind {
    wc_trace *t;
    size_t k;
    const wc_gpu *g;
    wc_gpu slice;        /* a region's slice: the detailed model's config     */
    wc_gpu islice;       /* the same slice for the interval model (set_sms)   */
    long sms;            /* SMs of a region                                   */
    uint64_t ctas;       /* CTAs of the kernel                                */
    uint64_t rctas;      /* CTAs per region (the last one takes the rest)     */
    uint64_t warm;       /* warm-up CTAs before a region                      */
    size_t nregions;
    double *z;           /* per region: latency-bound warp cycles (weight)    */
    uint64_t *ins;       /* per region: warp instructions                     */
    long occ;            /* CTAs resident per SM (occ_eff)                    */
    long waves;          /* waves per region                                  */
    long warm_opt;       /* warm-up CTAs asked for (< 0: one wave)            */
    int shared;          /* 1: regions span all SMs (cross-CTA data reuse)    */
    int standin;         /* 1: regions are stand-ins for the whole run, the
                            busiest SM's load on the slice (go_standin)     */
    int standin_first;   /* 1: stand-ins as the first choice (smp_standin),
                            not because the slice's regions were unlike     */
    int aux_done;        /* 1: eng_aux laid the kernel out (not budget mode) */
    long slice_sms;      /* SMs of the slice layout before go_standin       */
    mid_meas reg;        /* its b->m (standin_first)                        */
    double dram_whole;   /* DRAM sectors per warp inst, whole-kernel interval */
    double dram_slice;   /* same, one region on its slice                     */
    double last_dram;    /* same, the last interval run                       */
    double last_util[2]; /* DRAM, L2 utilisation of the last interval run     */
    double compose_gap;  /* interval: whole composed from one region / whole - 1 */
    int slice_bad;       /* why slicing is not valid (SMP_SLICE_* bits)       */
    double util_full[2]; /* DRAM, L2 utilisation of the full GPU (interval) */
    mid_meas m;          /* the middle region on its slice (interval)         */
    ua_fold fold;        /* shared data folded into stand-ins' L2 (fold.n 0:
                            none; standin_fold)                              */
    uint64_t *fold_chunk; /* its chunks (owned)                               */
    uint32_t *fold_slot; /* their hash index (owned; NULL: bisected)         */
    int fold_done;       /* 1: standin_fold has run (judge_standin)          */
    int win_later;       /* 1: check_slice's window was not run (stand-ins
                            ahead): run it should they fail (check_sharing) */
    uint64_t win_first, win_ctas, win_warm; /* that window              */
    const smp_options *o;
    /* per-kernel counts: of a whole-kernel run (whole_model: the model that
     * made them, -1 none), and the sum over interval region runs */
    ua_counts counts, reg_counts;
    int whole_model;
    uint64_t reg_insts;
    uint64_t small;      /* effective small-kernel threshold (small_rule):
                            the configured one, or 0 when the kernel's
                            predicted detailed cost is not small            */
    int collapsed;       /* 1: sampling not worth it (sample_worth), the
                            kernel is one region and runs in detail         */
    int one_wave;        /* 1: every CTA resident at once (ceil(ctas /
                            num_sms) <= occupancy)                          */
    int one_wave_small;  /* 1: under the instruction threshold, sampled
                            only because it is of one wave (small_rule)     */
    pthread_mutex_t mu;  /* reg_counts / reg_insts (region runs in parallel) */
} kbind;

static uint64_t scale_u64(uint64_t v, double f)
{
    return (uint64_t)llround((double)v * f);
}

/* The kernel's counts from the interval regions' (two-phase): scaled by
 * the kernel's warp instructions over theirs. */
static void counts_scaled(const kbind *b, uint64_t insts, ua_counts *c)
{
    double f = b->reg_insts ? (double)insts / (double)b->reg_insts : 0;
    *c = b->reg_counts;
    for (int u = 0; u < WC_UNIT_COUNT; u++)
        c->warp_insts_by_unit[u] = scale_u64(c->warp_insts_by_unit[u], f);
    c->global_requests = scale_u64(c->global_requests, f);
    c->global_sectors = scale_u64(c->global_sectors, f);
    c->shared_wavefronts = scale_u64(c->shared_wavefronts, f);
    c->atomics = scale_u64(c->atomics, f);
    c->l1_hit_sectors = scale_u64(c->l1_hit_sectors, f);
    c->l2_hit_sectors = scale_u64(c->l2_hit_sectors, f);
    c->dram_bytes = scale_u64(c->dram_bytes, f);
}

/* The busiest SM's CTAs in the full run, ceil(ctas / num_sms). */
static uint64_t busiest_ctas(const kbind *b)
{
    uint64_t n = (uint64_t)b->g->num_sms;
    return (b->ctas + n - 1) / n;
}

/* How far the busiest SM's load is above the mean: ceil(ctas / num_sms)
 * over ctas / num_sms, less 1.  Stand-ins of the busiest load stand for
 * the whole run within SMP_UNEVEN of it (wave_ctas, widen_uneven). */
#define SMP_UNEVEN 0.03

static double load_excess(const kbind *b)
{
    return b->ctas ? (double)busiest_ctas(b) * (double)b->g->num_sms /
                             (double)b->ctas -
                         1
                   : 0;
}

/*
 * The CTAs of a stand-in region of `sms` SMs, and of a one-wave kernel's
 * region (in one wave the two are the same): the whole run's load on that
 * many SMs.  The dispatcher gives every SM q = ctas / num_sms CTAs and r =
 * ctas % num_sms of them one more; the kernel ends with those r, which
 * run their last CTA with the other SMs idle and the L2 and DRAM theirs.
 * A region of the busiest load (q + 1 on each SM) keeps all its SMs busy
 * to the end at s / active of the bandwidth, so its tail is served
 * num_sms / r times as slowly as the whole run's, and it asks (q + 1) /
 * (ctas / num_sms) times its share of the bandwidth throughout.  The
 * region mirrors the whole run instead: its share of the CTAs, round(ctas
 * s / num_sms), at least one SM of q + 1, which the dispatcher (both
 * models: one CTA to each idle SM first, then refills as slots free) lays
 * out as the whole GPU's, q on each SM and one more on some.  A 1-SM
 * region can only hold the busiest load, and a multi-wave kernel's
 * stand-ins keep it where it is within SMP_UNEVEN of the mean (many
 * CTAs a SM: the mirror would move the sampled windows, not the load;
 * `mixed` 16384 x 64 k5 on h100-sxm, 8-SM stand-ins of 993 CTAs instead
 * of 1000, went +1.49% -> +4.15%, the noise of its reuse stand-ins).
 * Measured (docs/sampler.md, "Regions that mirror the whole run's load"):
 * one-wave kernels of 130-250 CTAs on a100, up to +18.26% with intervals
 * missing on the busiest load, within 2.37%.
 */
static uint64_t wave_ctas(const kbind *b, long sms)
{
    uint64_t n = (uint64_t)b->g->num_sms, s = (uint64_t)sms;
    uint64_t q = b->ctas / n, r = b->ctas % n;
    uint64_t busiest = busiest_ctas(b) * s;
    if (q == 0 || r == 0 || s >= n ||
        (!b->one_wave && load_excess(b) <= SMP_UNEVEN))
        return busiest;
    uint64_t m = (uint64_t)llround((double)b->ctas * (double)s / (double)n);
    if (m < q * s + 1)
        m = q * s + 1;
    return m < busiest ? m : busiest;
}

/* Regions of rctas CTAs: the last takes the remainder; a remainder under
 * half a region joins the region before it. */
static void set_rctas(kbind *b, uint64_t rctas)
{
    b->rctas = rctas < 1 ? 1 : rctas;
    uint64_t n = b->ctas / b->rctas, rem = b->ctas % b->rctas;
    if (n == 0 || rem * 2 >= b->rctas)
        n++;
    b->nregions = (size_t)n;
}

/*
 * The SMs the kernel occupies in the full run: all of them, or one per
 * CTA when it has fewer CTAs than the GPU has SMs (the dispatcher gives
 * an idle SM a CTA before a second one to a busy SM).  The SMs left idle
 * leave the L2, its bandwidth, DRAM's and the dispatcher to the busy
 * ones, so a slice is s of these, not s of num_sms: on h100-pcie a
 * one-wave `divergent` kernel of 36 CTAs (each on its own SM of 114)
 * gave its 1-SM stand-ins 1/114 of DRAM's bandwidth where each SM has
 * 1/36 of it, and hybrid mode said +4.3% / +6.7% (i4 / i16) with the
 * interval missing the detailed answer; with s / 36, +0.7% / +1.8%
 * (docs/sampler.md, "Kernels on fewer SMs than the GPU's").
 */
static long active_sms(const kbind *b)
{
    long n = b->g->num_sms;
    return b->ctas < (uint64_t)n ? (long)(b->ctas ? b->ctas : 1) : n;
}

/* A slice's share of the kernel's SMs, s / active (at most 1). */
static double slice_share(const kbind *b)
{
    long a = active_sms(b);
    return b->sms >= a ? 1.0 : (double)b->sms / (double)a;
}

/*
 * A one-wave kernel's regions (stand-ins or not: in one wave they are the
 * same) take at least SMP_ONE_WAVE_SMS SMs.  All its SMs start at once and
 * each runs its CTAs to the end, so a slice's one L2 and one DRAM server
 * at s / active of the bandwidth get every
 * burst of its SMs at the same moment and serve it active / s times as
 * slowly as the whole GPU's spread it over its channels while the SMs
 * drift apart ("a slice's memory servers", stop 34).  Measured on
 * one-wave kernels of 24-100 CTAs x 128 threads, i4 and i16, on h100-pcie
 * (docs/sampler.md, "Kernels on fewer SMs than the GPU's"): on 1 SM
 * `divergent` 100 CTAs +3.33% / +4.55% and `memory` 60 CTAs +3.42% /
 * +4.93%, all four intervals missing; on 4 SMs +0.57% / +1.25% and
 * +0.40% / +0.48%, covered, and every kernel of the nine kinds within
 * 1.9%.  The same holds where each SM runs one CTA at a time (occ_eff 1:
 * CTAs of 1024 threads on rtx-a6000, or of large shared memory), over any
 * number of waves: each CTA starts all its warps at once and cold, a
 * burst the slice's servers meet alone.  Measured on rtx-a6000 (84 SMs,
 * 250-400 CTAs of 1024 threads, docs/sampler.md, "Regions that mirror
 * the whole run's load"): on 1-SM stand-ins `chase` 400 x 1024 +8.10%,
 * `divergent` +4.37% to +6.07%; on 4 SMs +0.18%, +0.67% to +1.16%.
 */
#define SMP_ONE_WAVE_SMS 4

/* A region width asked for (--set smp_region_sms, the option): the
 * sampler then keeps it, widening nothing and judging no slice. */
static int width_asked(const kbind *b)
{
    return b->o->region_sms > 0 || b->g->smp_region_sms > 0;
}

/* Regions of s SMs (b->occ, b->waves, b->ctas set) with w warm-up CTAs
 * (< 0: one wave of the region's SMs). */
static void set_sms(kbind *b, long sms, long w)
{
    const wc_gpu *g = b->g;
    /* a one-wave kernel's regions, and a kernel's whose SMs hold one CTA
     * at a time, unless the width was asked for (--set smp_region_sms,
     * the option) */
    if ((b->one_wave || b->occ == 1) && sms < SMP_ONE_WAVE_SMS &&
        !width_asked(b))
        sms = SMP_ONE_WAVE_SMS;
    if (sms > g->num_sms)
        sms = g->num_sms;
    if (sms < 1)
        sms = 1;
    b->sms = sms;
    set_rctas(b, b->one_wave ? wave_ctas(b, sms)
                             : (uint64_t)(sms * b->occ * b->waves));
    b->warm = w < 0 ? (uint64_t)(sms * b->occ) : (uint64_t)w;
    long active = active_sms(b);
    slice_config(g, sms, slice_share(b), &b->slice);
    if (b->slice.max_ctas_per_sm > b->occ)
        b->slice.max_ctas_per_sm = b->occ;
    /* The interval model scales the L2/DRAM bandwidth to its `sms` itself
     * (im_par_init) and keeps the M/D/1 service time of one memory channel
     * of the full GPU: a slice has fewer channels, not slower ones.  Given
     * the slice config (bandwidth already scaled, num_sms = sms) it would
     * take the scaled bandwidth as the GPU's and stretch the service time
     * by num_sms / sms (3.6 -> 409.7 cycles on h100-pcie, 1-SM regions).
     * So it gets the slice with the full GPU's bandwidths and, for its
     * share, the SMs the kernel occupies (active_sms). */
    b->islice = b->slice;
    b->islice.num_sms = active > sms ? active : sms;
    b->islice.l2_bw = g->l2_bw;
    b->islice.dram_bw = g->dram_bw;
}

/*
 * Region layout.  Per SM, the full run keeps occ_eff = min(occupancy,
 * ceil(ctas / num_sms)) CTAs resident; a region gives each of its s SMs
 * occ_eff CTAs per wave (the slice config caps residency at occ_eff) for
 * min(waves, waves the kernel has) waves.
 */
static int layout(kbind *b, const wc_kernel_info *ki, const smp_options *o,
                  wc_diag *d)
{
    const wc_gpu *g = b->g;
    unsigned occ_one; /* the one occupancy rule (uarch) */
    int rc = ua_kernel_ctas_per_sm(g, ki, &occ_one, d);
    if (rc)
        return rc;
    long occ = (long)occ_one;
    b->ctas = ki->ctas;
    long per_sm = (long)busiest_ctas(b);
    b->one_wave = per_sm <= occ;
    if (per_sm < occ)
        occ = per_sm < 1 ? 1 : per_sm;
    long waves = o->region_waves > 0 ? o->region_waves : g->smp_region_waves;
    double kwaves = (double)b->ctas / ((double)occ * (double)g->num_sms);
    if ((double)waves > ceil(kwaves))
        waves = (long)ceil(kwaves);
    if (waves < 1)
        waves = 1;
    long sms = o->region_sms > 0 ? o->region_sms : g->smp_region_sms;
    if (sms <= 0) {
        /* Fewest SMs (at least 1) that still give ~smp_target_regions
         * regions; all SMs when the kernel is long enough for that. */
        double cta_per_region_sm = (double)occ * (double)waves;
        sms = (long)((double)b->ctas /
                     (cta_per_region_sm * (double)g->smp_target_regions));
        if (sms < 1)
            sms = 1;
    }
    b->occ = occ;
    b->waves = waves;
    b->warm_opt = o->warmup_ctas >= 0 ? o->warmup_ctas : g->smp_warmup_ctas;
    set_sms(b, sms, b->warm_opt);
    return 0;
}

static void region_window(const kbind *b, size_t r, uint64_t *first,
                          uint64_t *count)
{
    *first = (uint64_t)r * b->rctas;
    *count = r + 1 == b->nregions ? b->ctas - *first : b->rctas;
}

/* ------------------------------------------------------------------------ */
/* The two models                                                            */
/* ------------------------------------------------------------------------ */

/* Per-region weights and signatures from the per-warp output of the
 * whole-kernel interval run. */
static int take_proxies(kbind *b, const im_result *r, wc_diag *d)
{
    free(b->z);
    free(b->ins);
    b->z = calloc(b->nregions, sizeof *b->z);
    b->ins = calloc(b->nregions, sizeof *b->ins);
    if (!b->z || !b->ins)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    for (size_t w = 0; w < r->nwarps; w++) {
        uint64_t reg = r->warp_cta[w] / b->rctas;
        if (reg >= b->nregions)
            reg = b->nregions - 1;
        b->z[reg] += r->warp_cycles[w];
        b->ins[reg] += r->warp_insts_of[w];
    }
    return 0;
}

static int model_run(kbind *b, int m, int whole, int facts, uint64_t first,
                     uint64_t count, smp_eval *out, ua_counts *cnt,
                     wc_diag *d);

/*
 * Cross-CTA data reuse.  A slice of s SMs gets s/num_sms of the L2, and a
 * region run alone starts with it cold; when CTAs across the kernel read
 * the same data (a table, a gather footprint that fits the full L2), the
 * full run fetches it from DRAM once and then hits in L2, while every
 * region on its slice fetches it again: the region runs in a DRAM-bound
 * regime the full run never sees, and the two models' ratio there does not
 * carry over.  Detected by the interval model on the middle region on its
 * slice: its DRAM sectors per warp instruction against the whole kernel's,
 * and its cycles composed to the kernel (s / num_sms of them per
 * instruction) against the whole-kernel run.
 * Then regions span all SMs (whole waves, the full L2) and start after one
 * wave of warm-up CTAs; a kernel with too few waves for that runs fully in
 * detail (the engine's small-kernel rule).
 */
/* Cross-CTA reuse: the middle region on its slice reads more DRAM
 * sectors per warp instruction (b->m.dram) than the full GPU's dram, by
 * SMP_SHARE_RATIO and SMP_SHARE_MIN (dram < 0, unknown: none). */
static int reads_more(const kbind *b, double dram)
{
    return dram >= 0 && b->m.dram > SMP_SHARE_RATIO * dram &&
           b->m.dram - dram > SMP_SHARE_MIN;
}

/* The reuse and bandwidth parts of the verdict (slice_verdict). */
static int unlike_bits(kbind *b, double dram, const double util[2],
                       double ugap)
{
    int bad = 0;
    b->dram_slice = b->m.dram;
    if (reads_more(b, dram))
        bad |= SMP_SLICE_REUSE;
    b->util_full[0] = util[0];
    b->util_full[1] = util[1];
    /* Below half utilisation on both, the queueing wait is under half a
     * service time either way (M/D/1: rho / (2 (1 - rho))). */
    for (int i = 0; i < 2; i++)
        if (fabs(b->m.util[i] - util[i]) > ugap &&
            fmax(b->m.util[i], util[i]) > SMP_UTIL_BUSY)
            bad |= SMP_SLICE_BW;
    return bad;
}

/* The verdict on slicing from the middle region on its slice (b->m.mid,
 * b->m.dram, b->m.util) against the full GPU: DRAM sectors per
 * instruction `dram`, utilisation `util`, and cycles per instruction
 * (launch cost excluded) `cpi`, with `gap` the composition allowance and
 * `ugap` the utilisation one. */
static int slice_verdict(kbind *b, double dram, const double util[2],
                         double cpi, double gap, double ugap)
{
    int bad = unlike_bits(b, dram, util, ugap);
    double mine = b->m.mid.warp_insts
                      ? slice_share(b) *
                            (b->m.mid.cycles - b->m.mid.fixed) /
                            (double)b->m.mid.warp_insts
                      : cpi;
    b->compose_gap = cpi > 0 ? mine / cpi - 1 : 0;
    if (fabs(b->compose_gap) > gap)
        bad |= SMP_SLICE_COMPOSE;
    b->slice_bad |= bad;
    return bad;
}

/* The middle region on its slice in the interval model (b->m.mid ...). */
static int run_mid(kbind *b, wc_diag *d)
{
    uint64_t first, count;
    region_window(b, b->nregions / 2, &first, &count);
    memset(&b->m.mid, 0, sizeof b->m.mid);
    b->m.ctas = count;
    int rc = model_run(b, SMP_INTERVAL, 0, 1, first, count, &b->m.mid,
                       &b->m.counts, d);
    if (rc)
        return rc;
    b->m.dram = b->last_dram;
    b->m.util[0] = b->last_util[0];
    b->m.util[1] = b->last_util[1];
    return 0;
}

/* The interval model on CTAs [first, first + count) of config g on sms SMs
 * (0: all) after the w CTAs before them, by difference: one run, the
 * warm-up alone taken from its snapshot (the model walks CTAs at dispatch,
 * in order, so its state when the last warm-up CTA is dispatched is a run
 * of them alone, ended: im_options.snap_after).  Simulated cycles, warp
 * instructions, DRAM sectors, and DRAM / L2 utilisation (0 unless cycles
 * > 0) of the window's CTAs after the warm-up. */
typedef struct diff_run {
    double cyc, ins, sec, util[2];
} diff_run;

static int run_differenced(const kbind *b, const wc_gpu *g, long sms,
                           uint64_t first, uint64_t count, uint64_t w,
                           diff_run *out, wc_diag *d)
{
    im_result r[2];
    memset(r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    im_options o;
    im_options_default(&o);
    o.cta_first = first - w;
    o.cta_count = w + count;
    o.sms = sms;
    o.snap_after = w;
    o.snap = w ? &r[1] : NULL;
    int rc = im_run_kernel(b->t, b->k, g, &o, &r[0], d);
    if (rc == 0) {
        double cyc = (double)r[0].sim_cycles - (double)r[1].sim_cycles;
        out->cyc = cyc;
        out->ins = (double)r[0].warp_insts - (double)r[1].warp_insts;
        out->sec = (double)r[0].dram_sectors - (double)r[1].dram_sectors;
        if (cyc > 0) {
            out->util[0] = (r[0].dram_util * (double)r[0].sim_cycles -
                            r[1].dram_util * (double)r[1].sim_cycles) /
                           cyc;
            out->util[1] = (r[0].l2_util * (double)r[0].sim_cycles -
                            r[1].l2_util * (double)r[1].sim_cycles) /
                           cyc;
        }
    }
    im_result_free(&r[0]);
    im_result_free(&r[1]);
    return rc;
}

/* The steady-state measure of the middle region on its slice: its CTAs
 * after w = min(s x occ, CTAs before it) warm-up CTAs, by difference
 * (run_differenced).  Leaves b alone; out->cyc = 0 when there is nothing
 * before the region or the difference is empty. */
static int mid_steady(const kbind *b, diff_run *out, wc_diag *d)
{
    uint64_t first, count;
    region_window(b, b->nregions / 2, &first, &count);
    uint64_t w = (uint64_t)b->sms * (uint64_t)b->occ;
    if (w > first)
        w = first;
    memset(out, 0, sizeof *out);
    if (w == 0)
        return 0;
    int rc = run_differenced(b, &b->islice, b->sms, first, count, w, out, d);
    if (rc == 0 && !(out->cyc > 0 && out->ins > 0))
        memset(out, 0, sizeof *out);
    return rc;
}

/*
 * The middle region on its slice after one slice-wave (s x occ CTAs) of
 * warm-up CTAs, differenced like a region (eng_region_): its steady-state
 * DRAM and L2 utilisation and cycles replace the cold run's in b->m.util
 * and b->m.mid, for a verdict against check_slice's steady all-SM window
 * (like against like).  The cold run's DRAM sectors per instruction stay:
 * cross-CTA reuse shows as a cold region's extra traffic.  Measured
 * (h100-sxm, interval): copy2 16384 x 256 on 5-SM slices, 2-wave regions:
 * DRAM 0.774 cold against 0.97 over the whole kernel, a ramp of one DRAM
 * round trip in a region of about two; the slice was judged
 * bandwidth-unlike and the kernel ran in detail.
 */
static int run_mid_steady(kbind *b, wc_diag *d)
{
    diff_run m;
    int rc = mid_steady(b, &m, d);
    if (rc == 0 && m.cyc > 0) {
        b->m.util[0] = m.util[0];
        b->m.util[1] = m.util[1];
        b->m.mid.cycles = b->m.mid.fixed + m.cyc;
        b->m.mid.warp_insts = (uint64_t)m.ins;
    }
    return rc;
}

static int may_slice(const kbind *b)
{
    return b->sms < b->g->num_sms && b->nregions >= 4 && !width_asked(b);
}

static void go_all_sms(kbind *b)
{
    b->shared = 1;
    b->standin = 0;
    set_sms(b, b->g->num_sms, -1);
}

/*
 * Stand-in regions: each region is the busiest SM's load on a slice of
 * `sms` SMs, ceil(ctas / num_sms) CTAs per SM of it (busiest_load), a
 * miniature of the whole run: its ramp, its tail, and the slice's share of
 * the footprint in the slice's share of the L2, so that an L2 that fills
 * part-way through the kernel fills at the same point of each region.
 * The first choice of one-phase sampling on a slice (smp_standin), and
 * the layout of a kernel whose regions of smp_region_waves waves are
 * unlike the full GPU because its whole run is unlike its steady state
 * (bandwidth, composition), with too few waves for regions on all SMs.  A
 * region starts cold, as the kernel does: no warm-up.  Measured
 * (docs/sampler.md, "Stand-in regions"): copy2 16384 x 256 on h100-sxm
 * and mixed 8192 x 128 kernel 1 on h100-pcie, both in detail before,
 * -0.22% and +1.57%; 46 kernels of unseen shapes, within 2.82% (regions
 * of two waves: 6.77%, three intervals missing).
 */
static void go_standin(kbind *b, long sms)
{
    b->shared = 0;
    b->slice_sms = sms;
    set_sms(b, sms, 0);
    set_rctas(b, wave_ctas(b, b->sms));
    b->warm = 0;
    b->standin = 1;
}

/* Kernel cycles per cycle of the regions' sum: s / active (slice_share)
 * for regions that split the kernel among the SMs it occupies; a stand-in
 * region is the whole run (each of the ctas / rctas regions lasts as long
 * as the kernel). */
static double compose_of(const kbind *b)
{
    if (b->standin)
        return b->ctas ? (double)b->rctas / (double)b->ctas : 0;
    return slice_share(b);
}

/*
 * Is sampling the current layout cheaper than the detailed model on the
 * whole kernel?  The detailed model's host cost follows simulated SM-cycles
 * (every SM ticks every cycle), so on regions of whole waves it is about
 * proportional to the CTAs it runs: the sample costs, as a share of the
 * whole kernel in detail, (n regions) x (region CTAs + twice the warm-up
 * CTAs, run once with the region and once alone) / CTAs, with n what
 * smp_select takes from one stratum: every K-th region, K = min(period,
 * max(1, N/2)).  `pass` is the share still to pay for the interval model
 * (SMP_PASS_COST before the whole-kernel pass, 0 after it).  Deterministic:
 * counts only, no measured time.
 */
/* Regions smp_select takes from one stratum. */
static size_t sample_n(const kbind *b)
{
    long period = b->o->period > 0 ? b->o->period : b->g->smp_period;
    size_t half = b->nregions / 2;
    size_t K = (size_t)period < half ? (size_t)period : half;
    if (K < 1)
        K = 1;
    return (b->nregions + K - 1) / K;
}

static int sample_worth(const kbind *b, double pass)
{
    if (b->nregions < 2 || b->ctas == 0)
        return 0;
    size_t n = sample_n(b);
    uint64_t warm = b->warm < b->ctas ? b->warm : 0;
    double share = (double)n * (double)(b->rctas + 2 * warm) /
                   (double)b->ctas;
    return share + pass < SMP_WORTH;
}

/* Sample b, as decided (sample_worth, and enough regions on all SMs)? */
static int sample_ok(const kbind *b, double pass)
{
    if (b->sms >= b->g->num_sms && b->nregions >= 2 &&
        sample_n(b) < SMP_MIN_SAMPLE_ALL_SMS)
        return 0;
    return sample_worth(b, pass);
}

/* The kernel as one region: the engine runs it in detail (one region is
 * under its four-region minimum), and without the interval pass when this
 * happens in eng_aux. */
static void collapse(kbind *b)
{
    b->nregions = 1;
    b->rctas = b->ctas;
    b->collapsed = 1;
}

/* Stand-in regions worth sampling: more than four, sample_ok with `pass`
 * still to pay, and a sample under half the kernel (else the engine runs
 * the kernel in detail, SMP_FULL_FRACTION in engine.c).  A kernel of many
 * waves on a wide slice has few stand-ins (about num_sms / s): 31008 and
 * 22800 CTAs of 1024 threads on h100-pcie (136 and 100 waves, 3 and 4
 * stand-ins) would have run in detail. */
static int standin_worth(const kbind *b, double pass)
{
    if (b->nregions <= 4 || !sample_ok(b, pass))
        return 0; /* the engine runs 4 regions or fewer in detail */
    /* the last region, the largest, may be in the sample */
    uint64_t last = b->ctas - (uint64_t)(b->nregions - 1) * b->rctas;
    return 2.0 * (double)sample_n(b) * (double)last < (double)b->ctas;
}

/* Would stand-ins on `sms` SMs be worth sampling, with `pass` still to
 * pay (b unchanged)? */
static int standin_worth_on(const kbind *b, long sms, double pass)
{
    kbind s = *b; /* a scratch copy: go_standin writes the layout only */
    go_standin(&s, sms);
    return standin_worth(&s, pass);
}

/* Would choose_standins take stand-ins, with `pass` still to pay? */
static int standins_ahead(const kbind *b, double pass)
{
    if (!b->g->smp_standin || b->shared || b->standin || !may_slice(b))
        return 0;
    return standin_worth_on(b, b->sms, pass);
}

/* Stand-ins as the first choice of one-phase sampling on a slice
 * (smp_standin), where worth sampling with `pass` still to pay; the
 * slice's measurements of its regions of w waves are kept for
 * check_sharing's fallback. */
static void choose_standins(kbind *b, double pass)
{
    if (!standins_ahead(b, pass)) /* too few: the regions of w waves */
        return;
    go_standin(b, b->sms);
    b->reg = b->m;
    b->standin_first = 1;
}

/*
 * Stand-ins for a kernel with cross-CTA reuse (stop 34).  A plain slice's
 * share of the L2 cannot hold what the full L2 shares among all SMs
 * (divergent 2048 x 256: a 1-SM stand-in composes to +162% of the whole
 * run); a folded stand-in can (smp_fold: the data its CTAs share folded
 * into its share of the L2, standin_fold).  On one SM it still misses by
 * up to 4.5%: the whole GPU dispatches CTAs that live unequally (gathers
 * that hit or miss) unevenly, and a slice's L2 and DRAM servers, at
 * s / num_sms of the bandwidth, queue a warp's gather num_sms / s times as
 * long behind itself as the whole GPU does.  A wider stand-in shows more
 * of the one and less of the other (docs/sampler.md, "Reuse kernels on
 * folded stand-ins of 8 SMs"; against `predict --mode detailed`): at 1 / 4 / 8 /
 * 16 SMs mixed 16384 x 64 i8 k5 on h100-pcie +3.65% / +2.82% / +2.53%,
 * divergent 2048 x 256 i16 on h100-sxm +3.13% / - / +2.40% / +1.65%; on 8
 * SMs every reuse case measured within 3% (max +2.53%).  So they take
 * SMP_REUSE_SMS SMs at least, where such stand-ins are worth sampling;
 * they are judged against the whole run after the pass like every
 * stand-in (check_sharing).  1 when b took them.
 */
#define SMP_REUSE_SMS 8

static int go_reuse_standin(kbind *b, long s0, double pass)
{
    if (!b->g->smp_fold || !b->g->smp_standin)
        return 0;
    long s = s0 > SMP_REUSE_SMS ? s0 : SMP_REUSE_SMS;
    if (s >= b->g->num_sms || !standin_worth_on(b, s, pass))
        return 0;
    go_standin(b, s);
    return 1;
}

/*
 * A slice found unlike the full GPU: regions on all SMs; where those are
 * too few to sample (sample_ok, with `pass` still to pay), stand-in
 * regions on the slice (go_standin), wider and folded for a verdict of
 * cross-CTA reuse (go_reuse_standin).  Stand-ins are judged against the
 * whole run after the pass (check_sharing).
 */
static void slice_unlike(kbind *b, double pass, int try_standin)
{
    long s0 = b->sms;
    go_all_sms(b);
    if (!try_standin || sample_ok(b, pass))
        return;
    if (b->slice_bad & SMP_SLICE_REUSE) {
        (void)go_reuse_standin(b, s0, pass); /* else all SMs, as before */
        return;
    }
    go_standin(b, s0);
    if (!standin_worth(b, pass))
        go_all_sms(b); /* as before: too few regions on all SMs */
}

/*
 * Stand-in regions after the whole pass: the middle one in the interval
 * model against the whole run (cycles, launch cost excluded; DRAM sectors
 * per instruction; DRAM and L2 utilisation); *bad gets the SMP_SLICE_*
 * bits of what is unlike.  Unlike it, the kernel gets the regions of w
 * waves when stand-ins were the first choice, else regions on all SMs or
 * the detailed model (check_sharing).  A stand-in is the whole run in
 * miniature, so its cycles are the kernel's, within SMP_WINDOW_GAP (the
 * allowance of a steady window against the full GPU's): measured within
 * 2.9% on the kernels of docs/sampler.md's table, +162% and +187% where
 * CTAs share data across the kernel.
 */
static int standin_fold(kbind *b, wc_diag *d);

/* Stand-ins standin_widen may widen: narrow, folding no shared data, of
 * a width not asked for. */
static int widenable(const kbind *b)
{
    return !b->fold.n && b->sms < SMP_ONE_WAVE_SMS && b->ctas > 0 &&
           !width_asked(b);
}

/* Narrow stand-ins that fold no shared data laid out again on
 * SMP_ONE_WAVE_SMS SMs (go_standin: they mirror the load), where those
 * are fewer than the GPU's and still worth sampling; slice_sms (the layout
 * check_sharing goes back to) is kept.  1 when b was widened. */
static int standin_widen(kbind *b)
{
    const wc_gpu *g = b->g;
    if (!widenable(b))
        return 0;
    kbind w = *b; /* a scratch copy: go_standin writes the layout only */
    go_standin(&w, SMP_ONE_WAVE_SMS);
    if (w.sms >= g->num_sms || !standin_worth(&w, 0))
        return 0;
    long s0 = b->slice_sms;
    go_standin(b, SMP_ONE_WAVE_SMS);
    b->slice_sms = s0;
    return 1;
}

/*
 * Stand-ins too narrow to hold the whole run's load.  A 1-SM stand-in
 * runs the busiest SM's ceil(ctas / num_sms) CTAs, and asks that over
 * ctas / num_sms times its share of the L2 and DRAM bandwidth; the
 * interval model's slice (channels of the full GPU's speed) absorbs the
 * excess, the detailed model's slower servers do not, so the ratio of the
 * two models does not carry over.  Where the excess is over SMP_UNEVEN
 * and the stand-ins fold no shared data (a kernel with cross-CTA reuse
 * keeps the width its verdict gave it: measured at 4 SMs, `mixed` 300 x
 * 1024 k5 on h100-sxm -12.37%), they take SMP_ONE_WAVE_SMS SMs, which
 * mirror the whole run (wave_ctas), if still worth sampling.  Measured
 * on multi-wave kernels of 250-1300 CTAs (docs/sampler.md, "Regions that
 * mirror the whole run's load"): `memory` 700 x 512 i4 on a100 (7 CTAs
 * on the busiest SM, 6.48 on average) +6.96%, interval missing -> -1.09%;
 * `chase` 700 x 512 i4 on h100-pcie -4.51% -> -2.98%.
 * The excess is bandwidth, so it is widened only where the servers are
 * busy: the middle 1-SM stand-in's slice over SMP_UTIL_BUSY on its DRAM
 * or L2 in the interval model (those two: 0.97 / 0.80 on a100, 0.97 /
 * 0.78 on h100-pcie; run_mid, *mid_done when that run is of the layout
 * left, which judge_standin then need not run again).  Below it the queueing wait is under half a service
 * time (M/D/1), and a kernel that barely uses them (`balanced` and
 * `imbalanced`, FMA only: 0; `compute` and `shared` 4096 x 256 / 3072 x 256
 * on h100-sxm: 0.06 / 0.006) keeps its 1-SM stand-ins: within 0.53% of the
 * detailed model on the 4-SM ones as on the 1-SM ones, at 2-4x less host
 * time (docs/sampler.md, "Widened only where the servers are busy").
 */
static int widen_uneven(kbind *b, int *mid_done, wc_diag *d)
{
    *mid_done = 0;
    if (load_excess(b) <= SMP_UNEVEN || !widenable(b))
        return 0;
    int rc = run_mid(b, d);
    if (rc)
        return rc;
    if (fmax(b->m.util[0], b->m.util[1]) > SMP_UTIL_BUSY && standin_widen(b))
        return 0; /* a new layout: its middle stand-in still to run */
    *mid_done = 1;
    return 0;
}

static int judge_standin(kbind *b, double whole, double fixed,
                         const double util[2], int *bad, wc_diag *d);

/* Narrow stand-ins judged unlike (*bad set): widened (standin_widen) and
 * judged again, *bad the new verdict; else left as they were. */
static int widen_unlike(kbind *b, double whole, double fixed,
                        const double util[2], int *bad, wc_diag *d)
{
    if (!*bad || !standin_widen(b))
        return 0;
    *bad = 0;
    return judge_standin(b, whole, fixed, util, bad, d);
}

/* The stand-ins' fold (smp_fold), once: serial, before any stand-in
 * region runs (judge_standin after the pass, standin_two_phase before
 * it). */
static int standin_fold_once(kbind *b, wc_diag *d)
{
    if (b->fold_done)
        return 0;
    b->fold_done = 1;
    return b->g->smp_fold ? standin_fold(b, d) : 0;
}

static int judge_standin(kbind *b, double whole, double fixed,
                         const double util[2], int *bad, wc_diag *d)
{
    int mid_done = 0;
    int rc = standin_fold_once(b, d);
    if (rc == 0)
        rc = widen_uneven(b, &mid_done, d);
    if (rc == 0 && !mid_done)
        rc = run_mid(b, d);
    if (rc)
        return rc;
    *bad = unlike_bits(b, b->dram_whole, util, SMP_UTIL_GAP);
    double mine = b->m.mid.cycles - b->m.mid.fixed;
    b->compose_gap = whole - fixed > 0 ? mine / (whole - fixed) - 1 : 0;
    if (fabs(b->compose_gap) > SMP_WINDOW_GAP)
        *bad |= SMP_SLICE_COMPOSE;
    return 0;
}

/*
 * The small-kernel rule on the predicted detailed cost, not the warp
 * instructions alone: the detailed model's host time follows simulated
 * SM-cycles, and a memory-bound kernel of few instructions per CTA but many
 * waves (copy2 16384 x 256 on the H100 SXM: 1.70M warp instructions, 4.3M
 * SM-cycles, 4-7 s) costs as much as a compute kernel of several times its
 * instructions.  From cheap facts (the CTA index's instruction count A, the
 * CTAs, the occupancy): SM-cycles >= A / sub-cores (issue bound) and >=
 * waves x SMs x dram_latency (each wave waits for at least one DRAM round
 * trip of its loads).  Small when A is under smp_small_kernel_insts and the
 * larger bound is under smp_small_kernel_insts / sub-cores (what a kernel
 * of that many instructions costs at the full issue rate); a compute-bound
 * kernel is thus judged as before.  Returns the threshold the engine is
 * given: the configured one when small, else 0 (sample it).
 */
static int small_rule(kbind *b, uint64_t small, double A, uint64_t *out,
                      wc_diag *d)
{
    const wc_gpu *g = b->g;
    *out = small;
    if (A >= (double)small)
        return 0;
    /* A kernel of one wave on regions of one wave on a slice: each region
     * is the load of its SMs in the full run (occ_eff CTAs each, all
     * resident from the start, no refill), so its detailed cost is s /
     * num_sms of the kernel's whatever the kernel's size, and the sample
     * costs n s / num_sms of it plus the interval pass (sample_worth
     * decides, after the slice check, as for larger kernels).  Measured on
     * the one-wave H100 SXM kernels of 80K-320K warp instructions: 3-7x
     * faster than detailed, within 1.1%.  Unless its slice is busy
     * (pre_pass_slice). */
    if (b->one_wave && b->waves == 1 && may_slice(b)) {
        b->one_wave_small = 1;
        *out = 0;
        return 0;
    }
    double sub = g->subcores_per_sm > 0 ? (double)g->subcores_per_sm : 1;
    double per_wave = (double)g->num_sms * (double)b->occ;
    double waves = per_wave > 0 ? ceil((double)b->ctas / per_wave) : 1;
    double sms = (double)b->ctas < (double)g->num_sms ? (double)b->ctas
                                                      : (double)g->num_sms;
    double lat = waves * sms * (double)g->dram_latency;
    double cost = fmax(A / sub, lat);
    if (cost >= (double)small / sub) {
        *out = 0;
        return 0;
    }
    /* Both bounds are lower bounds: a bandwidth-bound wave takes its
     * traffic over the bandwidth, not one round trip (vadd 4096 x 256,
     * h100-sxm: 4 waves, 0.36M SM-cycles by the bounds, 1.46M in the
     * detailed run, 0.6 s).  Where the kernel has slice waves before its
     * middle region, the interval model's steady state there (mid_steady,
     * one run of a few slice waves) predicts its SM-cycles as CTAs x s x
     * cycles per region CTA.  Only for a bandwidth-busy kernel (DRAM or L2
     * over SMP_UTIL_BUSY in that steady state), the case the bounds miss:
     * issue-bound kernels keep the issue bound, and sampled by the probe
     * those of 2-4 waves gave +3.91% (fp64 4096 x 256 i8) and -3.77%
     * (shared 4096 x 128 i8, h100-pcie) where detail is exact. */
    if (!may_slice(b) || A < (double)small / SMP_SMALL_PROBE)
        return 0;
    uint64_t first, count;
    region_window(b, b->nregions / 2, &first, &count);
    diff_run m;
    int rc = mid_steady(b, &m, d);
    if (rc)
        return rc;
    double pred = count ? (double)b->ctas * (double)b->sms * m.cyc /
                              (double)count
                        : 0;
    if (pred >= (double)small / sub &&
        (m.util[0] > SMP_UTIL_BUSY || m.util[1] > SMP_UTIL_BUSY))
        *out = 0;
    return 0;
}

/*
 * The busiest SM's load on the slice, a stand-in for the whole run: a
 * kernel ends with its busiest SM, which runs ceil(ctas / num_sms) CTAs;
 * the interval model runs that many CTAs per SM of the slice (from the
 * middle region on), so the run has the whole kernel's ramp, its tail and
 * the slice's share of its footprint (an L2 that fills part-way through
 * fills at the same point: the slice has its share of the L2).  Its
 * utilisation and cycles per instruction of the kernel (`total` warp
 * instructions) go to util and *cpi; nothing when the load is the whole
 * kernel.  Cost: s / num_sms of the whole pass.
 */
static int busiest_load(kbind *b, uint64_t total, double util[2],
                        double *cpi, wc_diag *d)
{
    uint64_t count = wave_ctas(b, b->sms);
    if (count >= b->ctas || total == 0)
        return 0;
    uint64_t first, rcount;
    region_window(b, b->nregions / 2, &first, &rcount);
    if (first + count > b->ctas)
        first = b->ctas - count;
    smp_eval tail;
    memset(&tail, 0, sizeof tail);
    int rc = model_run(b, SMP_INTERVAL, 0, 1, first, count, &tail, NULL, d);
    if (rc)
        return rc;
    util[0] = b->last_util[0];
    util[1] = b->last_util[1];
    *cpi = (tail.cycles - tail.fixed) / (double)total;
    return 0;
}

/*
 * Slice validity, decided before the whole-kernel pass (one- and two-phase
 * sampling).  A region runs on s SMs with s/num_sms of the L2 and DRAM
 * bandwidth; that stands for the full GPU only when the slice sees the
 * same memory system: the same DRAM and L2 utilisation (bandwidth share:
 * a bandwidth-bound region on a slice whose full kernel is not, or the
 * other way round, gives a ratio of the two models that does not carry
 * over), the same DRAM traffic per instruction (cross-CTA reuse, see
 * check_sharing) and the same cycles per instruction composed (s/num_sms
 * of the slice's).  The full GPU is the interval model on an all-SM window
 * of the same waves centred on the middle region.  When the window would
 * be more than SMP_WINDOW_SHARE of the kernel, this is left to
 * check_sharing after the whole pass (one-phase), unless `force`: done
 * anyway (two-phase, where there is no whole pass: the window is then a
 * small share).  `steady` (one-phase, when regions on all SMs would not be
 * worth sampling, so that a slice found invalid only after the pass would
 * cost the pass and the kernel in detail): the window runs after one wave
 * of warm-up CTAs and is differenced (see the body); a 2-wave window from
 * a cold start under-reads a bandwidth-bound kernel's utilisation
 * (vadd_ffma 8192 x 256, H100 SXM: DRAM 0.75 cold against 1.00 steady,
 * 0.92 over the whole kernel, which check_sharing then finds invalid).
 * Invalid: regions span all SMs; a kernel with fewer than four of those,
 * or whose sample would cost about as much as the kernel in detail
 * (sample_worth), runs fully in detail, and the engine skips the interval
 * pass for it.
 */
static int footprint_dram(kbind *b, double total, double *out, wc_diag *d);

/* check_slice's verdict from the interval model on the all-SM window of
 * wctas CTAs from wf, after w warm-up CTAs (differenced): regions on all
 * SMs when the slice is unlike it (*unlike). */
static int window_verdict(kbind *b, uint64_t wf, uint64_t wctas, uint64_t w,
                          int reuse_standin, int *unlike, wc_diag *d)
{
    diff_run m;
    *unlike = 0;
    int rc = run_differenced(b, b->g, 0, wf, wctas, w, &m, d);
    if (rc == 0) {
        double dram = m.ins > 0 ? m.sec / m.ins : 0;
        double cpi = m.ins > 0 ? m.cyc / m.ins : 0;
        b->m.sliced = 1;
        long s0 = b->sms;
        if (slice_verdict(b, dram, m.util, cpi, SMP_WINDOW_GAP,
                          SMP_UTIL_GAP)) {
            go_all_sms(b);
            *unlike = 1;
            /* reuse, and too few regions on all SMs: folded stand-ins
             * (before the pass only: after it, stand-ins were judged) */
            if (reuse_standin && (b->slice_bad & SMP_SLICE_REUSE) &&
                !sample_ok(b, SMP_PASS_COST))
                (void)go_reuse_standin(b, s0, SMP_PASS_COST);
        }
    }
    return rc;
}

static int check_slice(kbind *b, int force, int steady, uint64_t total,
                       wc_diag *d)
{
    const wc_gpu *g = b->g;
    if (!may_slice(b))
        return 0;
    uint64_t wave = (uint64_t)(g->num_sms * b->occ);
    uint64_t wctas = wave * (uint64_t)b->waves;
    if (wctas > b->ctas)
        wctas = b->ctas;
    if (!force && (double)wctas > SMP_WINDOW_SHARE * (double)b->ctas)
        return 0;
    int rc = run_mid(b, d);
    if (rc == 0 && steady)
        rc = run_mid_steady(b, d);
    if (rc)
        return rc;
    uint64_t first, count;
    region_window(b, b->nregions / 2, &first, &count);
    uint64_t mid = first + count / 2;
    uint64_t wf = mid > wctas / 2 ? mid - wctas / 2 : 0;
    if (wf + wctas > b->ctas)
        wf = b->ctas - wctas;
    /* steady: the window after one wave of warm-up CTAs, differenced like
     * a region (eng_region_), so that its utilisation is the steady
     * state's and not diluted by the ramp of a cold start. */
    uint64_t w = steady ? (wave < wf ? wave : wf) : 0;
    /* A slice that reads next to nothing from DRAM and keeps DRAM and L2
     * under half busy cannot fail the reuse and bandwidth tests (they need
     * SMP_SHARE_MIN more sectors per instruction, or a side over
     * SMP_UTIL_BUSY, and the full GPU reads no more per SM than a slice);
     * only composition is left, which check_sharing judges after the pass.
     * There an expensive window is not run (SMP_WINDOW_COST); the slice is
     * measured (b->m.mid, steady when asked) for check_sharing. */
    int quiet = b->m.dram <= SMP_SHARE_MIN &&
                b->m.util[0] <= SMP_UTIL_BUSY &&
                b->m.util[1] <= SMP_UTIL_BUSY;
    if (!force && quiet &&
        (double)(wctas + w) > SMP_WINDOW_COST * (double)b->ctas) {
        b->m.sliced = 1;
        return 0;
    }
    if (steady) {
        /* The whole run also has its ramp, its tail and (streaming more
         * than the L2 holds) an L2 that fills part-way through, which no
         * steady window shows and check_sharing judges after the pass.
         * Their stand-in first (s / num_sms of the pass), judged as
         * check_sharing will judge the pass, past a margin
         * (SMP_STANDIN_*): copy2 16384 x 256 (h100-sxm; L2 0.535 against
         * the slice's 0.679, the whole pass 0.538) passed the window, paid
         * the pass and ran in detail; now it runs in detail without it.
         * Within the margin the pass decides: mixed 8192 x 128 kernel 1
         * (DRAM 0.888 against 0.990, the pass 0.884: in detail) and 4096
         * x 256 i8 kernel 1 (0.887 against 0.989, the pass 0.889:
         * sampled, +2.3%) read alike here. */
        double u[2] = {b->m.util[0], b->m.util[1]};
        double c2 = 0;
        rc = busiest_load(b, total, u, &c2, d);
        if (rc)
            return rc;
        if (slice_verdict(b, b->m.dram, u, c2,
                          SMP_COMPOSE_GAP + SMP_STANDIN_COMPOSE,
                          SMP_UTIL_GAP + SMP_STANDIN_UTIL)) {
            b->m.sliced = 1;
            slice_unlike(b, SMP_PASS_COST, 1);
            return 0;
        }
        /* The stand-in read like the whole run, and stand-ins will be the
         * first choice (choose_standins): the pass judges them
         * (judge_standin) and, should they fail, the regions of w waves
         * (check_sharing), so the window, which judges only the latter,
         * is not run before it.  mixed 8192 x 128 kernel 1 (h100-pcie):
         * the window was 3 of its 4.5 waves in the interval model, about
         * as much as the pass. */
        if (standins_ahead(b, SMP_PASS_COST)) {
            /* unless CTAs across the kernel share data (footprint_dram:
             * two regions decoded, no model run), where the window's
             * reuse verdict spares a kernel that ends in detail the pass
             * (divergent 3648 x 256, 4 waves: test_sampler_trace) */
            double dram = -1;
            if ((rc = footprint_dram(b, (double)total, &dram, d)))
                return rc;
            if (!reads_more(b, dram)) {
                /* kept for the regions of w waves, should the stand-ins
                 * fail: check_sharing runs it then and judges them as
                 * here (its own test after the pass allows a larger
                 * composition gap) */
                b->win_later = 1;
                b->win_first = wf;
                b->win_ctas = wctas;
                b->win_warm = w;
                return 0;
            }
        }
    }
    int unlike;
    /* reuse stand-ins in one-phase sampling only: two-phase (force) has
     * no whole pass to judge them against */
    return window_verdict(b, wf, wctas, w, !force, &unlike, d);
}

/*
 * Cross-CTA data reuse.  A slice of s SMs gets s/num_sms of the L2, and a
 * region run alone starts with it cold; when CTAs across the kernel read
 * the same data (a table, a gather footprint that fits the full L2), the
 * full run fetches it from DRAM once and then hits in L2, while every
 * region on its slice fetches it again: the region runs in a DRAM-bound
 * regime the full run never sees, and the two models' ratio there does not
 * carry over.  Detected by the interval model on the middle region on its
 * slice: its DRAM sectors per warp instruction against the whole kernel's,
 * its DRAM and L2 utilisation against the whole kernel's, and its cycles
 * composed to the kernel (s / num_sms of them per instruction) against the
 * whole-kernel run.  After the whole pass, for kernels check_slice left
 * to it.
 * Then regions span all SMs (whole waves, the full L2) and start after one
 * wave of warm-up CTAs; a kernel with too few waves for that runs fully in
 * detail (the engine's small-kernel rule).
 */
static int check_sharing(kbind *b, double whole, double fixed,
                         double insts, const double util[2], wc_diag *d)
{
    uint64_t small = b->small;
    if (!may_slice(b) || insts < (double)small)
        return 0; /* regions given, or the kernel runs fully in detail */
    int rc, bad = 0, tried = 0;
    if (!b->aux_done) /* budget mode: nothing was chosen before the pass */
        choose_standins(b, 0);
    if (b->standin && b->standin_first) {
        if ((rc = judge_standin(b, whole, fixed, util, &bad, d)))
            return rc;
        /* Narrow stand-ins unlike the whole run, with no shared data
         * folded: once more on SMP_ONE_WAVE_SMS SMs that mirror the load
         * (widen_unlike), judged the same way (chase 700 x 512 i4 on v100,
         * 9 CTAs on the busiest SM, 8.75 on average: its 1-SM stand-in
         * judged unlike, on regions of two waves -5.55%; on 4-SM
         * stand-ins -1.53%).  Folded ones keep the width of their verdict
         * (on 8 SMs, mixed 400 x 1024 k5 on h100-sxm was -12.26%). */
        if ((rc = widen_unlike(b, whole, fixed, util, &bad, d)))
            return rc;
        if (!bad && standin_worth(b, 0))
            return 0;
        /* Stand-ins unlike the whole run (chase 4096 x 128 i8, h100-pcie:
         * +14.5%, a table shared across the kernel): the regions of
         * smp_region_waves waves, judged as before stand-ins were the
         * first choice. */
        b->standin = b->standin_first = 0;
        set_sms(b, b->slice_sms, b->warm_opt);
        b->m = b->reg;
        tried = 1;
        if (b->win_later) {
            /* the window check_slice left for now: the same verdict as
             * before the pass (a kernel it finds unlike gets what it
             * would have got then: regions on all SMs if worth sampling
             * with the pass still to pay, else the detailed model) */
            int unlike = 0;
            b->win_later = 0;
            if ((rc = window_verdict(b, b->win_first, b->win_ctas,
                                     b->win_warm, 0, &unlike, d)))
                return rc;
            if (unlike) {
                if (!sample_ok(b, SMP_PASS_COST))
                    collapse(b);
                return 0;
            }
        }
    }
    if (!b->standin) {
        if (!b->m.sliced && (rc = run_mid(b, d)))
            return rc;
        /* Against the whole run: the composition gap includes the
         * kernel's tail, hence the larger allowance. */
        double cpi = insts > 0 ? (whole - fixed) / insts : 0;
        if (!slice_verdict(b, b->dram_whole, util, cpi, SMP_COMPOSE_GAP,
                           SMP_UTIL_GAP)) {
            if (tried && !sample_ok(b, 0))
                collapse(b); /* judged worth sampling on the stand-ins */
            return 0;
        }
        /* The pass is paid; what is left to pay is the sample.  Stand-ins
         * judged unlike above are not judged again. */
        slice_unlike(b, 0, !tried);
        if (!b->standin) {
            if (!sample_ok(b, 0))
                collapse(b);
            return 0;
        }
    }
    /* Stand-ins because the slice's regions are unlike the full GPU
     * (found before the pass, or just now): unlike the whole run too,
     * regions on all SMs if worth sampling, else the detailed model. */
    if ((rc = judge_standin(b, whole, fixed, util, &bad, d)))
        return rc;
    if (!bad && standin_worth(b, 0))
        return 0;
    b->slice_bad |= bad;
    go_all_sms(b);
    if (!sample_ok(b, 0))
        collapse(b);
    return 0;
}

/*
 * L2 warm-up of regions on a slice (one-phase, after the whole pass).  A
 * region run alone starts with its slice's L2 empty.  In the full run of a
 * kernel that streams through more data than the L2 holds, the L2 is full
 * (of dirty lines too, on a write-back L2) from early on: every miss evicts,
 * and every dirty eviction costs DRAM bandwidth.  A cold region instead
 * fills empty ways and keeps its writes in the L2 until the L2 is full, so
 * on a DRAM-bound kernel it runs faster than its share of the full run, and
 * the two models run the fill differently: `warpcast synth --kind memory
 * --ctas 32768 --iters 4` (h100-pcie, 160-CTA regions on 10-SM slices,
 * 4.4 MB of L2, 48 KB of global accesses per CTA) gives a cold middle
 * region a detailed/interval ratio of 0.940 against 1.0004 for the whole
 * kernel (hybrid -6.0%); measured after 80 / 100 / 120 / 160 / 320
 * warm-up CTAs (by difference): 0.948 / 0.977 / 0.994 / 1.002 / 1.000: the
 * L2 reaches its steady state once the warm-up has streamed about twice its
 * capacity through it (filling it once, then turning over the dirty lines).
 * So on a kernel whose whole interval run keeps DRAM over SMP_UTIL_BUSY,
 * regions on a slice get b->warm = smp_warm_l2 x the slice's L2 capacity /
 * the kernel's global bytes per CTA warm-up CTAs, at most what sampling
 * can afford (sample_ok), and each region at most the CTAs its slice ran
 * before it in the full run (warm_cap).  The interval model's own
 * composition gap does not tell when the warm-up suffices (it is -0.9%
 * after 80 CTAs, where the ratio is still 0.948), so the amount comes from
 * the L2 capacity, not from a search.
 */
static void warm_l2(kbind *b, double dram_util, uint64_t sectors,
                    uint64_t ctas)
{
    const wc_gpu *g = b->g;
    double l2 = 0;
    if (g->smp_warm_l2 <= 0 || b->warm_opt != 0 || b->shared || b->standin ||
        b->sms >= g->num_sms || dram_util <= SMP_UTIL_BUSY || ctas == 0 ||
        sectors == 0 || wc_gpu_get_num(&b->slice, "l2_size", &l2) != 0 ||
        l2 <= 0)
        return;
    double per_cta = 32.0 * (double)sectors / (double)ctas;
    double n = ceil(g->smp_warm_l2 * l2 / per_cta);
    if (n > (double)b->ctas)
        n = (double)b->ctas;
    /* the most sampling affords: halve until worth it */
    for (b->warm = (uint64_t)n; b->warm > 0 && !sample_ok(b, 0);)
        b->warm /= 2;
}

/* The warm-up CTAs of a region starting at CTA first: b->warm, at most the
 * CTAs of the kernel before it and, on a slice, at most the CTAs its slice
 * ran before it in the full run (the slice's share of those dispatched
 * after the first wave: the first wave of the full run starts cold). */
static uint64_t warm_cap(const kbind *b, uint64_t first)
{
    uint64_t w = b->warm < first ? b->warm : first;
    long nsm = b->g->num_sms;
    if (b->sms < nsm && w > 0) {
        uint64_t wave = (uint64_t)nsm * (uint64_t)b->occ;
        uint64_t h = first > wave ? (first - wave) * (uint64_t)b->sms /
                                        (uint64_t)nsm
                                  : 0;
        if (w > h)
            w = h;
    }
    return w;
}

/* Model m on CTAs [first, first+count) of the slice (whole = 1: the whole
 * kernel on the full GPU).  cnt (may be NULL) gets the run's counts.
 * facts = 1 (one thread only; the whole-kernel run passes it): an interval
 * run leaves its DRAM sectors per instruction and utilisation in
 * b->last_dram / last_util; region runs, which may run on several threads
 * at once, pass 0 and leave b alone. */
static int model_run(kbind *b, int m, int whole, int facts, uint64_t first,
                     uint64_t count, smp_eval *out, ua_counts *cnt,
                     wc_diag *d)
{
    const wc_gpu *g = whole ? b->g : m == SMP_DETAILED ? &b->slice : &b->islice;
    long sms = whole ? 0 : b->sms;
    /* stand-ins take their shared data folded (standin_fold) */
    const ua_fold *fold = !whole && b->standin && b->fold.n ? &b->fold : NULL;
    int rc;
    if (m == SMP_DETAILED) {
        dm_options o;
        dm_options_default(&o);
        o.cta_first = first;
        o.cta_count = count;
        o.sms = sms;
        o.l2_fold = fold;
        dm_result r;
        memset(&r, 0, sizeof r);
        rc = dm_run_kernel(b->t, b->k, g, &o, &r, d);
        if (rc == 0) {
            out->cycles = (double)r.cycles;
            out->fixed = (double)(r.cycles - r.sim_cycles);
            out->warp_insts = r.warp_insts;
            if (cnt)
                *cnt = r.counts;
            if (whole) { /* exact: the detailed model ran it all */
                b->counts = r.counts;
                b->whole_model = SMP_DETAILED;
            }
        }
        dm_result_free(&r);
        return rc;
    }
    im_options o;
    im_options_default(&o);
    o.cta_first = first;
    o.cta_count = count;
    o.sms = sms;
    o.per_warp = whole;
    o.l2_fold = fold;
    im_result r;
    memset(&r, 0, sizeof r);
    rc = im_run_kernel(b->t, b->k, g, &o, &r, d);
    if (rc == 0) {
        out->cycles = (double)r.cycles;
        out->fixed = (double)(r.cycles - r.sim_cycles);
        out->warp_insts = r.warp_insts;
        if (facts) {
            b->last_dram = r.warp_insts ? (double)r.dram_sectors /
                                              (double)r.warp_insts
                                        : 0;
            b->last_util[0] = r.dram_util;
            b->last_util[1] = r.l2_util;
        }
        if (cnt)
            *cnt = r.counts;
        if (whole && b->whole_model != SMP_DETAILED) {
            b->counts = r.counts;
            b->whole_model = SMP_INTERVAL;
        }
        if (whole) {
            b->dram_whole = b->last_dram;
            double util[2] = {r.dram_util, r.l2_util};
            double t0, t1, c;
            smp_clock_read(NULL, &t0, &c); /* thread CPU seconds */
            rc = check_sharing(b, (double)r.cycles,
                               (double)(r.cycles - r.sim_cycles),
                               (double)r.warp_insts, util, d);
            smp_clock_read(NULL, &t1, &c);
            out->test_seconds = t1 - t0;
            if (rc == 0 && !b->collapsed &&
                r.warp_insts >= b->small) /* sampled */
                warm_l2(b, r.dram_util, r.counts.global_sectors, r.ctas);
            if (rc == 0)
                rc = take_proxies(b, &r, d);
        }
    }
    im_result_free(&r);
    return rc;
}

static int eng_proxy(void *ctx, size_t r, smp_eval *out, wc_diag *d)
{
    (void)d;
    const kbind *b = ctx;
    out->cycles = b->z[r];
    out->warp_insts = b->ins[r];
    /* Signature: log of the latency-bound CPI of the region's warps (its
     * instruction mix and dependence structure) and log of its instructions
     * per CTA (amount of work). */
    uint64_t first, count;
    region_window(b, r, &first, &count);
    if (b->ins[r] > 0 && b->z[r] > 0)
        out->sig[0] = log(b->z[r] / (double)b->ins[r]);
    if (count > 0 && b->ins[r] > 0)
        out->sig[1] = log((double)b->ins[r] / (double)count);
    return 0;
}

static int eng_region_(void *ctx, int m, size_t r, smp_eval *out,
                       wc_diag *d);

/* A region in model m; its warp instructions must be those the whole-kernel
 * pass gave it (debug builds: common/wc_check.h). */
static int eng_region(void *ctx, int m, size_t r, smp_eval *out, wc_diag *d)
{
    kbind *b = ctx;
    int rc = eng_region_(ctx, m, r, out, d);
    if (rc == 0 && WC_CHECKS_ON && b->ins) {
        char what[64];
        snprintf(what, sizeof what, "warp instructions of region %zu", r);
        rc = wc_check_same(wc_trace_kernel(b->t, b->k), what,
                           "whole-kernel pass", b->ins[r],
                           m == SMP_DETAILED ? "detailed region run"
                                             : "interval region run",
                           out->warp_insts, d);
    }
    return rc;
}

/* Region runs may be on several threads: their counts are summed under
 * b->mu (integer sums: the same in any order). */
static void add_reg_counts(kbind *b, const ua_counts *c, uint64_t insts)
{
    pthread_mutex_lock(&b->mu);
    ua_counts_add(&b->reg_counts, c);
    b->reg_insts += insts;
    pthread_mutex_unlock(&b->mu);
}

static int eng_region_(void *ctx, int m, size_t r, smp_eval *out, wc_diag *d)
{
    kbind *b = ctx;
    uint64_t first, count;
    region_window(b, r, &first, &count);
    uint64_t w = warm_cap(b, first);
    ua_counts cf, cp;
    if (w == 0) {
        int rc = model_run(b, m, 0, 0, first, count, out, &cf, d);
        if (rc == 0 && m == SMP_INTERVAL)
            add_reg_counts(b, &cf, out->warp_insts);
        return rc;
    }
    smp_eval full, pre;
    memset(&full, 0, sizeof full);
    memset(&pre, 0, sizeof pre);
    int rc = model_run(b, m, 0, 0, first - w, w + count, &full, &cf, d);
    if (rc == 0)
        rc = model_run(b, m, 0, 0, first - w, w, &pre, &cp, d);
    if (rc)
        return rc;
    if (m == SMP_INTERVAL) {
        ua_counts_sub(&cf, &cp); /* less the warm-up */
        add_reg_counts(b, &cf, full.warp_insts - pre.warp_insts);
    }
    /* The signature of the region is that of the window it ends. */
    *out = full;
    out->cycles = full.cycles - pre.cycles;
    out->warp_insts = full.warp_insts - pre.warp_insts;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Long kernels: two-phase sampling without a whole-kernel pass             */
/* ------------------------------------------------------------------------ */

/* Open-addressing set of 32-byte sector numbers (+1, 0 = empty).  Past
 * SMP_SECSET_MAX sectors it keeps a hashed sample of them, one in 2^lg
 * (the same sectors in any set of the same lg), so its memory stays
 * bounded (a table of at most 2 x SMP_SECSET_MAX entries, 8 MB) however
 * much a region reads; counts then stand for 2^lg times as many. */
#define SMP_SECSET_MAX (1u << 19)

typedef struct secset {
    uint64_t *v;
    size_t cap, n;
    unsigned lg;
} secset;

static inline size_t secset_slot(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

/* Is sector key in the sample of rate 2^-lg? */
static inline int secset_kept(unsigned lg, uint64_t key)
{
    if (lg == 0)
        return 1;
    uint64_t h = key * 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return (h >> (64 - lg)) == 0;
}

/* Put stored value v (key + 1, not present) into a table with room. */
static void secset_put(uint64_t *t, size_t cap, uint64_t v)
{
    size_t h = secset_slot(v, cap);
    while (t[h])
        h = (h + 1) & (cap - 1);
    t[h] = v;
}

/* Keep only the sample of rate 2^-lg (lg above the set's). */
static int secset_thin(secset *s, unsigned lg)
{
    if (lg <= s->lg)
        return 0;
    s->lg = lg;
    if (!s->cap)
        return 0;
    uint64_t *t = calloc(s->cap, sizeof *t);
    if (!t)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < s->cap; i++)
        if (s->v[i] && secset_kept(lg, s->v[i] - 1)) {
            secset_put(t, s->cap, s->v[i]);
            n++;
        }
    free(s->v);
    s->v = t;
    s->n = n;
    return 0;
}

static int secset_has(const secset *s, uint64_t key);

/* 1 added, 0 present or not in the sample, -1 out of memory. */
static int secset_add(secset *s, uint64_t key)
{
    if (!secset_kept(s->lg, key))
        return 0;
    if (s->n + 1 > SMP_SECSET_MAX && !secset_has(s, key)) {
        if (secset_thin(s, s->lg + 1) != 0)
            return -1;
        if (!secset_kept(s->lg, key))
            return 0;
    }
    key++;
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        uint64_t *v = calloc(cap, sizeof *v);
        if (!v)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i])
                secset_put(v, cap, s->v[i]);
        free(s->v);
        s->v = v;
        s->cap = cap;
    }
    size_t h = secset_slot(key, s->cap);
    while (s->v[h]) {
        if (s->v[h] == key)
            return 0;
        h = (h + 1) & (s->cap - 1);
    }
    s->v[h] = key;
    s->n++;
    return 1;
}

static int secset_has(const secset *s, uint64_t key)
{
    key++;
    if (!s->cap)
        return 0;
    size_t h = secset_slot(key, s->cap);
    while (s->v[h]) {
        if (s->v[h] == key)
            return 1;
        h = (h + 1) & (s->cap - 1);
    }
    return 0;
}

/* Global-memory sectors read by region r (its first max_ctas CTAs; 0:
 * all), into set. */
static int region_sectors(kbind *b, size_t r, uint64_t max_ctas,
                          secset *set, wc_diag *d)
{
    uint64_t first, count;
    region_window(b, r, &first, &count);
    if (max_ctas && count > max_ctas)
        count = max_ctas;
    wc_kreader *kr = NULL;
    int rc = wc_kreader_open(b->t, b->k, &kr, d);
    if (rc == 0)
        rc = wc_kreader_seek(kr, first, d);
    /* by reference: only instructions with lane addresses are decoded
     * (into bufs), the others are their static records */
    enum { NBUF = 16, NREF = 64 };
    wc_inst *bufs = malloc(NBUF * sizeof *bufs);
    wc_iref refs[NREF];
    if (!bufs && rc == 0)
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    for (uint64_t c = 0; c < count && rc == 0; c++) {
        wc_cta *cta = NULL;
        if ((rc = wc_kreader_next(kr, &cta, d)) || !cta)
            break;
        unsigned nw = wc_cta_nwarps(cta);
        for (unsigned w = 0; w < nw && rc == 0; w++) {
            int got = 0;
            size_t n = 0;
            while (rc == 0 && (got = wc_cta_next_refs_bufs(
                                   cta, w, bufs, NBUF, refs, NREF, &n, d)) ==
                                  1) {
                for (size_t i = 0; i < n && rc == 0; i++) {
                    const wc_inst *in = refs[i].in;
                    if (!(in->iflags & WC_IF_HAS_ADDR) ||
                        (in->space != WC_SPACE_GLOBAL &&
                         in->space != WC_SPACE_GENERIC) ||
                        !(wc_inst_info(in)->flags & WC_OPF_LOAD))
                        continue;
                    uint32_t mask = refs[i].mask;
                    for (int l = 0; l < WC_WARP_SIZE; l++) {
                        if (!(mask >> l & 1u))
                            continue;
                        if (secset_add(set, in->addr[l] >> 5) < 0) {
                            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                             "out of memory");
                            break;
                        }
                    }
                }
            }
            if (got < 0 && rc == 0)
                rc = d->code ? d->code : WC_EINPUT;
        }
        wc_cta_free(cta);
    }
    free(bufs);
    wc_kreader_close(kr);
    return rc;
}

/* The global sectors two distant regions read, a quarter and three
 * quarters into the kernel (A, B: sampled alike, one lg; the first
 * max_ctas CTAs of each, 0: all), and how many both read (*common). */
static int two_regions(kbind *b, uint64_t max_ctas, secset *A, secset *B,
                       uint64_t *common, wc_diag *d)
{
    *common = 0;
    int rc = region_sectors(b, b->nregions / 4, max_ctas, A, d);
    if (rc == 0)
        rc = region_sectors(b, 3 * b->nregions / 4, max_ctas, B, d);
    if (rc)
        return rc;
    unsigned lg = A->lg > B->lg ? A->lg : B->lg;
    if (secset_thin(A, lg) != 0 || secset_thin(B, lg) != 0)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    for (size_t i = 0; i < B->cap; i++)
        if (B->v[i] && secset_has(A, B->v[i] - 1))
            ++*common;
    return 0;
}

/* Shared chunks of 2^SMP_FOLD_SHIFT bytes (standin_fold). */
#define SMP_FOLD_SHIFT 16

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct chunks (>> cs) of the sectors in s, ascending: *out
 * (malloc'd, NULL when none), *n. */
static int set_chunks(const secset *s, unsigned cs, uint64_t **out,
                      size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!s->n)
        return 0;
    /* distinct first (a chunk holds up to 2048 sectors: sorting the
     * sectors' chunks cost 3% of a reuse kernel's hybrid run), then
     * sorted; at most s->n chunks, so the set never thins */
    secset u = {0};
    for (size_t i = 0; i < s->cap; i++)
        if (s->v[i] && secset_add(&u, (s->v[i] - 1) >> cs) < 0) {
            free(u.v);
            return -1;
        }
    uint64_t *v = malloc(u.n * sizeof *v);
    if (!v) {
        free(u.v);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < u.cap; i++)
        if (u.v[i])
            v[m++] = u.v[i] - 1;
    free(u.v);
    qsort(v, m, sizeof *v, cmp_u64);
    *out = v;
    *n = m;
    return 0;
}

/* The chunks (>> cs sectors) both A and B read, ascending: *out
 * (malloc'd or NULL), *n; -1 out of memory. */
static int shared_chunks(const secset *A, const secset *B, unsigned cs,
                         uint64_t **out, size_t *n)
{
    uint64_t *ca = NULL, *cb = NULL;
    size_t na = 0, nb = 0, m = 0;
    *out = NULL;
    *n = 0;
    if (set_chunks(A, cs, &ca, &na) || set_chunks(B, cs, &cb, &nb)) {
        free(ca);
        return -1;
    }
    size_t i = 0, j = 0;
    while (i < na && j < nb) { /* ca[] keeps the intersection */
        if (ca[i] < cb[j])
            i++;
        else if (cb[j] < ca[i])
            j++;
        else {
            ca[m++] = ca[i];
            i++;
            j++;
        }
    }
    free(cb);
    if (m == 0) {
        free(ca);
        ca = NULL;
    }
    *out = ca;
    *n = m;
    return 0;
}

/*
 * The fold of the data all CTAs share, for stand-in regions (ua_fold in
 * uarch/ua_mem.h): the 64 KB chunks two distant stand-ins (a quarter and
 * three quarters into the kernel) both read are shared; the shared data's
 * footprint is what the two read in those chunks, by capture-recapture
 * (|A| |B| / |A∩B| sectors), and a stand-in's share of it is its share of
 * the CTAs (rctas / ctas).  Data only neighbouring CTAs share lies within
 * a stand-in and is not folded.  b->fold.n stays 0 where the two read no
 * sector in common in those chunks (private data interleaved within a
 * chunk).  chase 4096 x 128 i8 (h100-pcie): its 1-SM stand-in composes
 * to +14.5% of the whole interval run plain, -5.6% folded
 * (docs/sampler.md, "Shared data in stand-ins").
 */
static int standin_fold(kbind *b, wc_diag *d)
{
    secset A = {0}, B = {0};
    free(b->fold_chunk);
    free(b->fold_slot);
    b->fold_chunk = NULL;
    b->fold_slot = NULL;
    memset(&b->fold, 0, sizeof b->fold);
    /* whole lines in a chunk (ua_fold keeps a line whole only then), and
     * an L2 to fold into */
    double l2 = 0;
    long line_b = b->g->l2_line_bytes;
    if (line_b <= 0 || (1L << SMP_FOLD_SHIFT) % line_b != 0 ||
        wc_gpu_get_num(&b->slice, "l2_size", &l2) != 0 || l2 <= 0)
        return 0;
    const unsigned cs = SMP_FOLD_SHIFT - 5; /* sector -> chunk */
    uint64_t common = 0, *ca = NULL;
    size_t nch = 0;
    /* An eighth of each first: two stand-ins of private data (streaming
     * kernels, most of them) read no chunk in common, and are not
     * decoded whole (copy2, h100-sxm: the fold cost 5-9% of its hybrid
     * time decoding them) */
    uint64_t pre = b->rctas / 8 ? b->rctas / 8 : 1;
    int rc = two_regions(b, pre, &A, &B, &common, d);
    if (rc == 0 && shared_chunks(&A, &B, cs, &ca, &nch) != 0)
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    free(ca);
    ca = NULL;
    free(A.v);
    free(B.v);
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    if (rc || nch == 0)
        return rc;
    nch = 0;
    rc = two_regions(b, 0, &A, &B, &common, d);
    if (rc == 0 && shared_chunks(&A, &B, cs, &ca, &nch) != 0)
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    if (rc == 0 && nch) {
        ua_fold probe = {SMP_FOLD_SHIFT, nch, ca, 1, NULL, 0};
        uint32_t *pslot = ua_fold_index(&probe); /* NULL: bisected */
        double na = 0, nb = 0, both = 0;
        for (size_t i = 0; i < A.cap; i++)
            na += A.v[i] && ua_fold_in(&probe, (A.v[i] - 1) << 5);
        for (size_t i = 0; i < B.cap; i++)
            if (B.v[i] && ua_fold_in(&probe, (B.v[i] - 1) << 5)) {
                nb++;
                both += secset_has(&A, B.v[i] - 1);
            }
        if (both > 0) {
            double foot = na * nb / both * 32 *
                          (double)(UINT64_C(1) << A.lg); /* bytes */
            double f = (double)b->rctas / (double)b->ctas;
            double line = (double)b->g->l2_line_bytes;
            double span = ceil(foot * f / line) * line;
            double top = (double)nch * (double)(UINT64_C(1) << SMP_FOLD_SHIFT);
            if (span < line)
                span = line;
            if (span > top)
                span = top;
            b->fold_chunk = ca;
            ca = NULL;
            b->fold.shift = SMP_FOLD_SHIFT;
            b->fold.n = nch;
            b->fold.chunk = b->fold_chunk;
            b->fold.span = (uint64_t)span;
            /* the probe's index: the same chunks (it does not hang on
             * the span) */
            b->fold.slot = probe.slot;
            b->fold.slot_lg = probe.slot_lg;
            b->fold_slot = pslot;
            pslot = NULL;
        }
        free(pslot);
    }
    free(ca);
    free(A.v);
    free(B.v);
    return rc;
}

/*
 * Cross-CTA reuse without a whole-kernel run: the sectors two distant
 * regions (a quarter and three quarters into the kernel) read in common.
 * With |A|, |B| sectors and |A∩B| in common, the kernel's footprint is
 * about |A| |B| / |A∩B| (capture-recapture), so each sector is read by
 * about N |A∩B| / |B| regions; at SMP_SHARE_READS or more and a footprint
 * that fits the L2, the full run serves the re-reads from L2 while each
 * region alone fetches them from DRAM (see check_sharing).
 */
static int check_overlap(kbind *b, wc_diag *d)
{
    if (!may_slice(b))
        return 0;
    secset A = {0}, B = {0};
    uint64_t common = 0;
    int rc = two_regions(b, 0, &A, &B, &common, d);
    if (rc == 0 && common > 0) {
        double reads = (double)b->nregions * (double)common / (double)A.n;
        double foot = (double)A.n * (double)A.n / (double)common * 32 *
                      (double)(UINT64_C(1) << A.lg);
        double l2 = 0;
        (void)wc_gpu_get_num(b->g, "l2_size", &l2);
        b->dram_whole = 1 / reads; /* reported: sector reads per region */
        if (reads >= SMP_SHARE_READS && (l2 <= 0 || foot <= l2)) {
            b->slice_bad |= SMP_SLICE_OVERLAP;
            go_all_sms(b);
        }
    }
    free(A.v);
    free(B.v);
    return rc;
}

/*
 * The whole kernel's DRAM read sectors per warp instruction, estimated
 * without a model run when its footprint fits the L2: the full run then
 * reads each sector from DRAM about once (interval model: dram_sectors are
 * the L2's read misses), so its DRAM reads are its footprint, which the
 * sectors two distant regions read in common give by capture-recapture
 * (|A| |B| / |A∩B|, at most what the regions read in all).  -1: unknown
 * (no sector in common, or a footprint over the L2).
 */
static int footprint_dram(kbind *b, double total, double *out, wc_diag *d)
{
    *out = -1;
    secset A = {0}, B = {0};
    uint64_t common = 0;
    int rc = two_regions(b, 0, &A, &B, &common, d);
    if (rc == 0 && common > 0 && total > 0) {
        double scale = (double)(UINT64_C(1) << A.lg); /* sampled sets */
        double nb = (double)B.n;
        double foot = (double)A.n * nb / (double)common * scale;
        double all = (double)b->nregions * ((double)A.n + nb) / 2 * scale;
        if (foot > all)
            foot = all;
        double l2 = 0;
        (void)wc_gpu_get_num(b->g, "l2_size", &l2);
        if (l2 <= 0 || foot * 32 <= l2)
            *out = foot / total;
    }
    free(A.v);
    free(B.v);
    return rc;
}

/*
 * Slice validity before the whole pass for a kernel of few waves, where
 * check_slice's all-SM window would cost about as much as the pass (over
 * SMP_WINDOW_SHARE of the kernel) and regions on all SMs would not be
 * worth sampling: an invalid slice then means the kernel runs in detail,
 * and learning it only after the pass (check_sharing) makes hybrid slower
 * than detailed (divergent 2048 x 256, imbalanced and balanced 256 x 1024,
 * mixed kernel 1 on h100-pcie: 0.6-0.9x).  Cheap stand-ins for the whole
 * run, judged by the verdict check_sharing makes after the pass:
 * - cross-CTA reuse: the middle region's DRAM reads per instruction on its
 *   slice against the whole kernel's estimated from its footprint
 *   (footprint_dram: decoding two regions, no model run);
 * - the tail: a kernel of few waves ends with its busiest SM, which runs
 *   ceil(ctas / num_sms) CTAs, while a region has occ_eff x waves CTAs per
 *   SM; the interval model runs that busiest SM's load (that many CTAs per
 *   SM of the slice, from the middle region on) and its cycles and
 *   utilisation stand for the whole run's (composition with
 *   SMP_COMPOSE_GAP, bandwidth share).
 * Cost: two regions decoded, the middle region and the tail run on the
 * slice (s / num_sms of a few waves each).  A slice judged valid here is
 * judged again after the pass (check_sharing).
 */
static int pre_pass_slice(kbind *b, uint64_t total, wc_diag *d)
{
    int rc = run_mid(b, d);
    if (rc)
        return rc;
    b->m.sliced = 1;
    /* A one-wave kernel under the instruction threshold (small_rule): its
     * all-SM window is the whole kernel, so the bandwidth share of its
     * slice can only be judged after the pass, and an invalid verdict
     * then costs the pass on top of the detailed run (chase 1024 x 128 on
     * h100-pcie: slice DRAM utilisation 0.85, whole kernel 0.68, found
     * after the pass: 0.9x).  Below SMP_UTIL_BUSY on both DRAM and L2 the
     * bandwidth test cannot fail (it needs one side above it and the
     * full GPU, which reads no more per SM than a slice, above the
     * slice); above it the kernel stays small: in detail, no pass. */
    if (b->one_wave_small && (b->m.util[0] > SMP_UTIL_BUSY ||
                              b->m.util[1] > SMP_UTIL_BUSY)) {
        collapse(b);
        return 0;
    }
    double dram = -1;
    if ((rc = footprint_dram(b, (double)total, &dram, d)))
        return rc;
    if (dram < 0)
        dram = b->m.dram; /* unknown: no reuse verdict */
    double util[2] = {b->m.util[0], b->m.util[1]};
    double cpi = 0; /* 0: no composition verdict */
    if ((rc = busiest_load(b, total, util, &cpi, d)))
        return rc;
    if (slice_verdict(b, dram, util, cpi, SMP_COMPOSE_GAP, SMP_UTIL_GAP))
        slice_unlike(b, SMP_PASS_COST, 1);
    return 0;
}

/*
 * Two-phase for a DRAM-busy kernel below smp_two_phase_insts?  The whole
 * interval pass is what one-phase hybrid mode pays most on a memory-bound
 * kernel: the interval model runs it at about 1/20 of the detailed model's
 * host cost (bench_interval, memory), so one-phase hybrid cannot pass 20x
 * there (27.6M-instruction streaming kernel: pass 1.27 s of 2.52 s, 8.6x).
 * Two-phase needs no pass, but its estimate rests on composition (the
 * kernel as s / num_sms times the sum of its regions), which holds for a
 * kernel whose DRAM is saturated: its time is its traffic over the
 * bandwidth, however the CTAs fall in waves.  Below saturation the kernel's
 * tail (its last, partial wave, latency-bound) costs time no region shows:
 * `mixed` kernel 1 at 8192 x 128 (5.8M, 4.5 waves, DRAM 0.86 on the full
 * GPU, 0.91 on the slice) composes to -10% of its whole interval run and
 * two-phase gave -7.9% (interval missed), one-phase +2.7% (covered); the
 * streaming kernels that take this path run at 0.986-0.999.  So: the
 * middle region on its slice (an interval run of one region) keeps DRAM at
 * least SMP_UTIL_SATURATED busy.  Only where
 * two-phase's slice check (check_slice, forced: an all-SM window of a
 * region's waves) is at most SMP_WINDOW_SHARE of the kernel, as for the
 * one-phase pre-check: on a kernel of 1-2 waves the window is the kernel
 * and two-phase cost more than the pass it saves (memory 1024 x 256 i64,
 * 1.12 waves: 1.19 s against 0.52 s one-phase; 2048 x 256 i32: 0.66 s
 * against 0.51 s).
 */
static int busy_two_phase(kbind *b, uint64_t total, wc_diag *d)
{
    const wc_gpu *g = b->g;
    uint64_t wctas = (uint64_t)(g->num_sms * b->occ) * (uint64_t)b->waves;
    if (g->smp_two_phase_busy_insts <= 0 ||
        total < (uint64_t)g->smp_two_phase_busy_insts ||
        total < b->small || !may_slice(b) ||
        (double)wctas > SMP_WINDOW_SHARE * (double)b->ctas)
        return 0;
    int rc = run_mid(b, d);
    if (rc)
        return -rc;
    return b->m.util[0] >= SMP_UTIL_SATURATED;
}

/*
 * The slice check of a busy two-phase kernel (busy_two_phase: its middle
 * region keeps DRAM saturated on its slice) without check_slice's all-SM
 * window.  That window is the interval model on a region's waves over
 * all SMs (up to SMP_WINDOW_SHARE of the kernel): the `mixed`
 * application's streaming kernel (8192 x 128, h100-pcie) spent 0.176 of
 * its 0.344 s of hybrid host time in it, more than in both models'
 * runs together.  On a saturated slice its three tests reduce to one:
 * - bandwidth share: a slice gets s / num_sms of the DRAM and L2
 *   bandwidth, so a full GPU reading the same sectors per instruction as
 *   the slice is as saturated (and its L2 as busy);
 * - composition: a saturated kernel's time is its traffic over the
 *   bandwidth, on the slice and on the full GPU alike;
 * - so both hold unless the full GPU reads fewer sectors per instruction
 *   than the slice: cross-CTA reuse, which footprint_dram estimates
 *   without a model run (two regions decoded).
 * Where it finds reuse, or the finer regions' slice (set_sms after
 * busy_two_phase) is no longer saturated, the window judges as before.
 * Measured (stop 36, window and slice side by side, every kernel of
 * bench_hybrid and tests/bench/unseen.py that takes this path): the six
 * streaming kernels it spares read alike on both (DRAM utilisation
 * within 0.002, DRAM sectors per instruction equal; cycles per
 * instruction composed within 1.2% on five, 7.6% on memory 32768 x 256
 * i4's 2-SM slice, under the window's SMP_WINDOW_GAP), so every window
 * passed and no estimate changes; the divergent gathers that take this
 * path (4096 x 256 i8 on h100-pcie and a100: window DRAM sectors per
 * instruction 0.25 against the slice's 0.92) are found by the footprint
 * (0.12) and the window still runs for them.  Host instructions of the
 * streaming kernel above: 3.75 G -> 2.00 G (callgrind).
 */
static int busy_slice(kbind *b, uint64_t total, wc_diag *d)
{
    if (!may_slice(b))
        return 0;
    int rc = run_mid(b, d);
    if (rc)
        return rc;
    if (b->m.util[0] >= SMP_UTIL_SATURATED) {
        double dram = -1;
        if ((rc = footprint_dram(b, (double)total, &dram, d)))
            return rc;
        if (!reads_more(b, dram)) {
            b->m.sliced = 1;
            b->dram_slice = b->m.dram;
            return 0;
        }
    }
    return check_slice(b, 1, 0, total, d);
}

/*
 * A two-phase kernel (long, or DRAM-busy: busy_two_phase) whose slice
 * check found cross-CTA reuse, with too few regions on all SMs to sample:
 * folded stand-ins (go_reuse_standin) in one-phase sampling, where they
 * are worth it with the pass to pay, rather than the whole kernel in
 * detail.  Two-phase has no whole pass to judge such stand-ins against;
 * one-phase pays it, and judges them after it as for any kernel of
 * reuse stand-ins (check_sharing; unlike, the kernel runs in detail
 * then).  The pass costs the interval model's share of the detailed
 * model's time (about a tenth on divergent gathers: 142 against 1305 ns
 * a warp instruction, `mixed` 6000 x 192 kernel 5 on h100-pcie, 13.5M
 * warp instructions, which ran in detail: 17.6 s).  1 when b took them.
 */
static int reuse_one_phase(kbind *b)
{
    if (!b->shared || !(b->slice_bad & SMP_SLICE_REUSE) || width_asked(b) ||
        sample_ok(b, SMP_PASS_COST))
        return 0;
    return go_reuse_standin(b, 1, SMP_PASS_COST);
}

/*
 * Stand-ins without the whole pass (smp_standin_two_phase_insts).  A
 * stand-in is the whole run in miniature, so the interval model on a
 * sample of the stand-ins carries the kernel as the whole pass does:
 * composed, the stand-ins of bench_hybrid's sampled kernels are within
 * 1.9% of their whole runs (interval model), and every first-choice
 * stand-in of docs/sampler.md's tables within 2.9% of it except where
 * CTAs share data across the kernel (+162% to +187%, and `chase`'s table
 * +14.5%), which the fold finds (standin_fold: shared chunks of two
 * distant stand-ins).  On a kernel of a few waves the whole pass is most
 * of hybrid mode's host time (`mixed` 8192 x 128 kernel 1, h100-pcie:
 * 0.30 of 0.47 s; docs/validation.md section 6), and what it adds to the
 * estimate is the stand-ins' composition gap, which the CI's bias
 * allowance already covers.  So a first-choice stand-in layout of a
 * kernel of at least smp_standin_two_phase_insts warp instructions, whose
 * stand-ins fold no shared data (the fold, the test for it, and the
 * widening of uneven loads done now, as judge_standin would after the
 * pass; with smp_fold 0 nothing tests for shared data, so the whole pass
 * judges them) and number at
 * least SMP_STANDIN_TWO_PHASE_MIN, takes two-phase sampling over the
 * stand-ins (engine aux *two = 2).  1 when it does, 0 when not, -code on
 * an error.
 */
static int standin_two_phase(kbind *b, uint64_t total, wc_diag *d)
{
    const wc_gpu *g = b->g;
    if (!b->standin || !b->standin_first || b->collapsed || !g->smp_fold ||
        g->smp_standin_two_phase_insts <= 0 ||
        total < (uint64_t)g->smp_standin_two_phase_insts ||
        b->nregions < SMP_STANDIN_TWO_PHASE_MIN)
        return 0;
    int rc = standin_fold_once(b, d);
    if (rc)
        return -rc;
    if (b->fold.n)
        return 0; /* shared data: judged against the whole run */
    /* on a scratch copy (the widening writes the layout only), so that a
     * kernel left to the pass keeps the layout it had; a widened layout is
     * worth sampling (standin_widen), an unwidened one was (choose_standins,
     * with the pass to pay) */
    kbind w = *b;
    int mid_done;
    if ((rc = widen_uneven(&w, &mid_done, d)) != 0)
        return -rc;
    if (w.nregions < SMP_STANDIN_TWO_PHASE_MIN)
        return 0;
    *b = w;
    return 1;
}

static int eng_aux(void *ctx, size_t *nregions, const uint64_t **ins,
                   double *fixed, double *compose, int *two, wc_diag *d)
{
    kbind *b = ctx;
    b->aux_done = 1;
    const uint64_t *ci = NULL;
    uint64_t nc = 0;
    int rc = wc_trace_cta_insts(b->t, b->k, &ci, &nc, d);
    if (rc)
        return rc;
    if (nc != b->ctas) { /* the trace reader checks this; kept as a guard */
        const wc_kernel_info *ki = wc_trace_kernel(b->t, b->k);
        return wc_diag_set(d, WC_EINPUT, ki->path, 0, 0,
                           "kernel %d has %llu thread blocks in its trace, "
                           "%llu in its header",
                           ki->id, (unsigned long long)nc,
                           (unsigned long long)b->ctas);
    }
    uint64_t total = 0;
    for (uint64_t i = 0; i < nc; i++)
        total += ci[i];
    const wc_gpu *g = b->g;
    uint64_t small = b->small;
    int tp = total >= (uint64_t)g->smp_two_phase_insts &&
             g->smp_two_phase_insts > 0;
    int busy = 0;
    if (!tp) {
        busy = busy_two_phase(b, total, d);
        if (busy < 0)
            return -busy;
        tp = *two = busy;
    }
    if (tp) {
        /* Finer regions: the detailed sample is a count, not a share. */
        if (!width_asked(b)) {
            long sms = (long)((double)b->ctas /
                              ((double)b->occ * (double)b->waves *
                               (double)g->smp_two_phase_regions));
            set_sms(b, sms, b->warm_opt);
        }
        if ((rc = busy ? busy_slice(b, total, d)
                       : check_slice(b, 1, 0, total, d)))
            return rc;
        if (reuse_one_phase(b)) {
            *two = 0; /* the whole pass, which judges the stand-ins */
        } else {
            if ((rc = check_overlap(b, d)))
                return rc;
            /* no whole pass: DRAM-busy from the middle region on its
             * slice or the all-SM window around it (cold: the busier of
             * the two) */
            warm_l2(b, fmax(b->m.util[0], b->util_full[0]),
                    b->m.counts.global_sectors, b->m.ctas);
        }
    } else if (total >= small) {
        /* One-phase: decide on the slice before the whole pass when that
         * is cheap, so a kernel that cannot be sliced and has too few
         * waves for all-SM regions goes to the detailed model without it. */
        int steady = may_slice(b);
        if (steady) {
            /* Would regions on all SMs be worth sampling, should the slice
             * prove invalid?  If not, a slice judged valid here and invalid
             * after the pass costs the pass and the kernel in detail: judge
             * it on the steady state, as the whole pass would. */
            kbind all = *b;
            go_all_sms(&all);
            /* sample_ok, the test the kernel will meet: with
             * sample_worth alone copy2 16384 x 256 (h100-sxm, 8 all-SM
             * regions, a sample of 2 < SMP_MIN_SAMPLE_ALL_SMS) was checked
             * on a cold window (DRAM 0.77, as its cold slice), passed,
             * paid the pass, was found bandwidth-unlike after it (whole
             * kernel 0.97) and ran in detail: 0.87x. */
            steady = !sample_ok(&all, SMP_PASS_COST);
        }
        uint64_t wctas = (uint64_t)(g->num_sms * b->occ) * (uint64_t)b->waves;
        if (steady &&
            (double)(wctas < b->ctas ? wctas : b->ctas) >
                SMP_WINDOW_SHARE * (double)b->ctas)
            rc = pre_pass_slice(b, total, d);
        else
            rc = check_slice(b, 0, steady, total, d);
        if (rc)
            return rc;
        /* Regions on a slice, as judged so far: stand-ins for the whole
         * run (smp_standin), judged against it after the pass
         * (check_sharing). */
        choose_standins(b, SMP_PASS_COST);
        if (!sample_ok(b, SMP_PASS_COST))
            collapse(b);
        int st = standin_two_phase(b, total, d);
        if (st < 0)
            return -st;
        if (st)
            *two = 2;
    }
    free(b->ins);
    b->ins = calloc(b->nregions, sizeof *b->ins);
    if (!b->ins)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    for (uint64_t i = 0; i < nc; i++) {
        uint64_t reg = i / b->rctas;
        if (reg >= b->nregions)
            reg = b->nregions - 1;
        b->ins[reg] += ci[i];
    }
    *nregions = b->nregions;
    *ins = b->ins;
    *fixed = g->launch_overhead;
    *compose = compose_of(b);
    return 0;
}

static int eng_whole(void *ctx, int m, smp_eval *out, wc_diag *d)
{
    kbind *b = ctx;
    int rc = model_run(b, m, 1, 1, 0, 0, out, NULL, d);
    if (rc == 0 && m == SMP_INTERVAL) {
        out->nregions = b->nregions;
        out->compose = compose_of(b);
    }
    return rc;
}

/*
 * CTA granularity.  On the full GPU the CTA scheduler refills SMs as their
 * slots free, so from the second wave on an SM whose CTAs happen to end a
 * few cycles early takes a CTA more than the even share, and the kernel
 * ends with its slowest SM.  The detailed model's finish times are
 * sensitive to the cycle phase of each SM's dispatches (compute 2048 x 256,
 * h100-pcie: 19 CTAs on some SMs, 17.96 on average, +1067 cycles = 5% of
 * the kernel; the interval model's smooth times keep 18), while a region
 * on a slice runs a fixed number of CTAs per SM and cannot show that step.
 * The step is one CTA's time on an SM: SMs / CTAs of a region times the
 * region's detailed cycles.  Regions on all SMs include the scheduler's
 * refill themselves, and a kernel of one wave or less is never refilled.
 */
static double eng_grain(void *ctx)
{
    const kbind *b = ctx;
    const wc_gpu *g = b->g;
    if (b->shared || b->sms >= g->num_sms || b->rctas == 0 ||
        b->ctas <= (uint64_t)(g->num_sms * b->occ))
        return 0;
    return (double)b->sms / (double)b->rctas;
}

/* ------------------------------------------------------------------------ */
/* Kernel-level reuse                                                        */
/* ------------------------------------------------------------------------ */


/* Hash of everything either model reads from the kernel's instruction
 * streams: per CTA and warp, each instruction's pc, opcode, mask, operands,
 * control bits and per-lane addresses. */
static int stream_hash(wc_trace *t, size_t k, uint64_t *out, wc_diag *d)
{
    wc_kreader *kr = NULL;
    int rc = wc_kreader_open(t, k, &kr, d);
    if (rc)
        return rc;
    uint64_t h = 0xcbf29ce484222325ull;
    wc_inst in;
    for (;;) {
        wc_cta *c = NULL;
        if ((rc = wc_kreader_next(kr, &c, d)) || !c)
            break;
        unsigned nw = wc_cta_nwarps(c);
        h = wc_fnv1a(h, &nw, sizeof nw);
        for (unsigned w = 0; w < nw && !rc; w++) {
            int got;
            while ((got = wc_cta_next(c, w, &in, d)) == 1) {
                h = wc_fnv1a(h, &in.pc, sizeof in.pc);
                h = wc_fnv1a(h, &in.mask, sizeof in.mask);
                h = wc_fnv1a(h, &in.op, sizeof in.op);
                h = wc_fnv1a(h, &in.width, sizeof in.width);
                h = wc_fnv1a(h, &in.iflags, sizeof in.iflags);
                h = wc_fnv1a(h, in.dst, sizeof in.dst);
                h = wc_fnv1a(h, in.src, sizeof in.src);
                h = wc_fnv1a(h, &in.ctrl, sizeof in.ctrl);
                h = wc_fnv1a(h, &in.imm, sizeof in.imm);
                if (in.iflags & WC_IF_HAS_ADDR)
                    h = wc_fnv1a(h, in.addr, sizeof in.addr);
            }
            if (got < 0)
                rc = d->code ? d->code : WC_EINPUT;
            else
                h = wc_fnv1a(h, "|", 1);
        }
        wc_cta_free(c);
        if (rc)
            break;
    }
    wc_kreader_close(kr);
    *out = h;
    return rc;
}

/* An earlier launch that was simulated (not itself reused).  Its name,
 * grid, block, shared memory and registers are those of kernel k of the
 * table's trace (interned there, nothing copied); res is filled when the
 * kernel is committed (ready). */
typedef struct reuse_ent {
    size_t k;
    wc_kernel_info key;    /* k's name (interned), grid, block, shmem and
                              nregs: compared without reading k again */
    int hashed, ready;
    uint64_t hash;
    smp_kernel_result res;
} reuse_ent;

/* Kernels of a context running at once (smp_ctx_run_one on several
 * threads): they share the context's region threads. */
typedef struct smp_load {
    pthread_mutex_t mu;
    int running;
} smp_load;

struct smp_ctx {
    smp_options o;
    smp_load *load;        /* mutable through a const context */
    wc_trace *t;           /* trace the reuse table refers to */
    reuse_ent *ents;
    size_t nents, cap;
    smp_host_cost cost[SMP_NMODELS]; /* accumulated over kernels */
    double budget_left;
};

int smp_ctx_create(const smp_options *o, smp_ctx **out, wc_diag *d)
{
    smp_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    if (o)
        c->o = *o;
    else
        smp_options_default(&c->o);
    c->budget_left = c->o.budget_s;
    if (!(c->load = calloc(1, sizeof *c->load))) {
        free(c);
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    }
    pthread_mutex_init(&c->load->mu, NULL);
    *out = c;
    return 0;
}

void smp_ctx_free(smp_ctx *c)
{
    if (!c)
        return;
    if (c->load) {
        pthread_mutex_destroy(&c->load->mu);
        free(c->load);
    }
    free(c->ents);
    free(c);
}

/* This kernel starts (delta 1) or ends (-1); returns the kernels running
 * with it, itself included. */
static int load_add(const smp_ctx *c, int delta)
{
    pthread_mutex_lock(&c->load->mu);
    int n = c->load->running += delta;
    pthread_mutex_unlock(&c->load->mu);
    return n;
}

double smp_ctx_cost_per_inst(const smp_ctx *c, int m, double *cycles,
                             int *have_cycles)
{
    const smp_host_cost *h = &c->cost[m];
    double n = (double)h->warp_insts;
    if (cycles)
        *cycles = n > 0 ? h->cycles / n : 0;
    if (have_cycles)
        *have_cycles = h->have_cycles;
    return n > 0 ? h->seconds / n : 0;
}

static int same_launch(const wc_kernel_info *e, const wc_kernel_info *ki)
{
    return strcmp(e->name, ki->name) == 0 &&
           memcmp(e->grid, ki->grid, sizeof e->grid) == 0 &&
           memcmp(e->block, ki->block, sizeof e->block) == 0 &&
           e->shmem == ki->shmem && e->nregs == ki->nregs;
}

/* An earlier identical launch, or NULL.  Hashes lazily: a kernel's stream
 * is hashed only once another launch with its name, grid and block
 * appears. */
static int find_reuse(smp_ctx *c, wc_trace *t, size_t k, reuse_ent **hit,
                      uint64_t *hash, int *hashed, wc_diag *d)
{
    *hit = NULL;
    *hashed = 0;
    const wc_kernel_info *ki = wc_trace_kernel(t, k);
    for (size_t i = 0; i < c->nents; i++) {
        reuse_ent *e = &c->ents[i];
        if (!same_launch(&e->key, ki))
            continue;
        int rc;
        if (!*hashed) {
            if ((rc = stream_hash(t, k, hash, d)))
                return rc;
            *hashed = 1;
        }
        if (!e->hashed) {
            if ((rc = stream_hash(t, e->k, &e->hash, d)))
                return rc;
            e->hashed = 1;
        }
        if (e->hash == *hash) {
            *hit = e;
            return 0;
        }
    }
    return 0;
}

static int remember(smp_ctx *c, const wc_kernel_info *ki, size_t k,
                    uint64_t hash, int hashed, wc_diag *d)
{
    if (c->nents == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        reuse_ent *n = realloc(c->ents, cap * sizeof *n);
        if (!n)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        c->ents = n;
        c->cap = cap;
    }
    reuse_ent *e = &c->ents[c->nents++];
    memset(e, 0, sizeof *e);
    e->k = k;
    e->key = *ki;
    e->key.path = NULL; /* not kept: the launch record may be dropped */
    e->key.ctrl_note = NULL;
    e->hash = hash;
    e->hashed = hashed;
    return 0;
}

static reuse_ent *entry_of(smp_ctx *c, size_t k)
{
    for (size_t i = c->nents; i-- > 0;) /* appended in trace order */
        if (c->ents[i].k == k)
            return &c->ents[i];
    return NULL;
}

/* This kernel's share of what is left of the budget: proportional to its
 * warps among the kernels not run yet (trace order). */
static double budget_share(const smp_ctx *c, wc_trace *t, size_t k)
{
    double mine = 0, rest = 0;
    size_t nk = wc_trace_nkernels(t);
    for (size_t i = k; i < nk; i++) {
        const wc_kernel_info *ki = wc_trace_kernel(t, i);
        double w = (double)ki->ctas * (double)ki->warps_per_cta;
        if (i == k)
            mine = w;
        rest += w;
    }
    if (c->budget_left <= 0)
        return 1e-9; /* spent: the pilot sample only */
    return rest > 0 ? c->budget_left * mine / rest : c->budget_left;
}

int smp_ctx_plan(smp_ctx *c, wc_trace *t, size_t k, long *from, wc_diag *d)
{
    *from = -1;
    if (k >= wc_trace_nkernels(t))
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "sampler: no kernel %zu in the trace", k);
    if (c->t != t) { /* the reuse table belongs to one trace */
        c->t = t;
        c->nents = 0;
    }
    if (!c->o.reuse)
        return 0;
    reuse_ent *e;
    uint64_t hash = 0;
    int hashed = 0;
    int rc = find_reuse(c, t, k, &e, &hash, &hashed, d);
    if (rc)
        return rc;
    if (e) {
        *from = (long)e->k;
        return 0;
    }
    return remember(c, wc_trace_kernel(t, k), k, hash, hashed, d);
}

int smp_ctx_reused(const smp_ctx *c, size_t from, smp_kernel_result *r,
                   wc_diag *d)
{
    const reuse_ent *e = entry_of((smp_ctx *)c, from);
    if (!e || !e->ready)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "sampler: kernel %zu reused before it was "
                           "committed",
                           from);
    *r = e->res;
    r->reused_from = (long)from;
    r->how = SMP_HOW_REUSED;
    memset(r->host, 0, sizeof r->host);
    r->host_seconds = 0;
    return 0;
}



int smp_ctx_run_one(const smp_ctx *c, wc_trace *t, size_t k, const wc_gpu *g,
                    smp_kernel_result *r, wc_diag *d)
{
    memset(r, 0, sizeof *r);
    r->reused_from = -1;
    if (k >= wc_trace_nkernels(t))
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "sampler: no kernel %zu in the trace", k);
    const smp_options *o = &c->o;
    int rc;

    kbind b;
    memset(&b, 0, sizeof b);
    b.t = t;
    b.k = k;
    b.g = g;
    b.o = o;
    b.whole_model = -1;
    if ((rc = layout(&b, wc_trace_kernel(t, k), o, d)))
        return rc;

    /* Hold a reader open so a compressed kernel is decompressed once for
     * all the model runs of this kernel. */
    wc_kreader *hold = NULL;
    if ((rc = wc_kreader_open(t, k, &hold, d)))
        return rc;
    /* A clock of this thread (kernels may run on several). */
    int want_cycles = o->self_profile || o->budget_s > 0;
    smp_clock *clock = smp_clock_create(want_cycles);
    if (!clock) {
        wc_kreader_close(hold);
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    }

    smp_plan p;
    memset(&p, 0, sizeof p);
    p.seed = o->seed;
    p.period = o->period > 0 ? o->period : g->smp_period;
    p.budget_s = o->budget_s > 0 ? budget_share(c, t, k) : 0;
    p.stratify = o->stratify;
    p.max_strata = o->max_strata > 0 ? o->max_strata : (int)g->smp_max_strata;
    p.bias = o->bias >= 0 ? o->bias : g->smp_bias;
    p.pilot_ci = g->smp_pilot_ci;
    {
        /* The small-kernel rule on the predicted detailed cost (from the
         * CTA index: instructions, no decoding). */
        const uint64_t *ci = NULL;
        uint64_t nc = 0;
        if ((rc = wc_trace_cta_insts(t, k, &ci, &nc, d))) {
            smp_clock_free(clock);
            wc_kreader_close(hold);
            return rc;
        }
        double A = 0;
        for (uint64_t i = 0; i < nc; i++)
            A += (double)ci[i];
        rc = small_rule(&b,
                        o->small_kernel_insts
                            ? o->small_kernel_insts
                            : (uint64_t)g->smp_small_kernel_insts,
                        A, &b.small, d);
        if (rc) {
            smp_clock_free(clock);
            wc_kreader_close(hold);
            return rc;
        }
    }
    p.small_kernel_insts = b.small;
    p.kernel = k;
    p.progress = o->progress;
    p.progress_ctx = o->progress_ctx;
    p.clock = clock;
    /* budget mode only (one thread, trace order): the cost so far */
    p.dm_cost_per_inst = o->budget_s > 0 ? smp_ctx_cost_per_inst(
                                               c, SMP_DETAILED, NULL, NULL)
                                         : 0;

    p.two_phase_insts = g->smp_two_phase_insts > 0
                            ? (uint64_t)g->smp_two_phase_insts
                            : 0;
    p.phase1 = (size_t)g->smp_phase1_regions;
    p.phase2 = (size_t)g->smp_phase2_regions;
    p.want_cycles = want_cycles;
    smp_engine e = {&b,         b.nregions, eng_whole, eng_proxy,
                    eng_region, eng_aux,    eng_grain};
    /* The region threads: the context's share per kernel running now
     * (predict --jobs N runs up to N kernels at once, each on a thread of
     * its own; a kernel alone gets all N).  Budget mode times its regions
     * one after another. */
    int running = load_add(c, 1);
    p.jobs = o->budget_s > 0 || o->jobs <= 1 ? 1 : o->jobs / running;
    if (p.jobs < 1)
        p.jobs = 1;
    pthread_mutex_init(&b.mu, NULL);
    rc = smp_estimate(&e, &p, r, d);
    pthread_mutex_destroy(&b.mu);
    (void)load_add(c, -1);
    smp_clock_free(clock);
    wc_kreader_close(hold);
    free(b.z);
    free(b.ins);
    free(b.fold_chunk);
    free(b.fold_slot);
    if (rc == 0)
        rc = WC_CHECK(wc_check_hybrid(
            wc_trace_kernel(t, k), r->cycles, r->estimate, r->has_ci,
            r->ci95[0], r->ci95[1], r->warp_insts, r->detailed_warp_insts,
            r->how == SMP_HOW_FULL, d));
    if (rc)
        return rc;
    r->region_ctas = b.rctas;
    r->region_sms = b.sms;
    r->warm_ctas = r->how == SMP_HOW_FULL ? 0 : b.warm;
    r->shared_data = b.shared;
    r->standin = r->how != SMP_HOW_FULL && b.standin;
    r->fold_bytes = r->standin && b.fold.n ? b.fold.span : 0;
    r->dram_whole = b.dram_whole;
    r->dram_slice = b.dram_slice;
    r->slice_invalid = b.slice_bad;
    /* why in detail: under the (effective) small-kernel threshold, or a
     * one-wave kernel under the instruction threshold whose slice is busy
     * (pre_pass_slice); a slice found unlike the full GPU with too few
     * all-SM regions; else the sample's cost (sample_worth, the engine's
     * half-the-kernel and four-region rules) */
    r->full_why = r->how != SMP_HOW_FULL ? SMP_FULL_NONE
                  : r->warp_insts < b.small || b.one_wave_small
                      ? SMP_FULL_SMALL
                  : b.slice_bad ? SMP_FULL_UNLIKE
                                : SMP_FULL_COST;
    memcpy(r->util_slice, b.m.util, sizeof r->util_slice);
    memcpy(r->util_full, b.util_full, sizeof r->util_full);
    r->reused_from = -1;
    if (b.whole_model >= 0) {
        r->counts = b.counts;
        r->counts_exact = 1;
    } else {
        const wc_kernel_info *ki = wc_trace_kernel(t, k);
        counts_scaled(&b, r->warp_insts, &r->counts);
        unsigned occ = 0;
        wc_diag od;
        if (ua_kernel_ctas_per_sm(g, ki, &occ, &od) == 0)
            r->counts.ctas_per_sm = (long)occ;
        r->counts_exact = 0;
    }
    return 0;
}

void smp_ctx_commit(smp_ctx *c, size_t k, const smp_kernel_result *r)
{
    if (r->how == SMP_HOW_REUSED)
        return;
    for (int m = 0; m < SMP_NMODELS; m++)
        smp_host_cost_add(&c->cost[m], &r->host[m]);
    if (c->o.budget_s > 0)
        c->budget_left -= r->host_seconds;
    reuse_ent *e = entry_of(c, k);
    if (e) {
        e->res = *r;
        e->ready = 1;
    }
}

int smp_ctx_run(smp_ctx *c, wc_trace *t, size_t k, const wc_gpu *g,
                smp_kernel_result *r, wc_diag *d)
{
    double t0 = wc_now();
    long from;
    int rc = smp_ctx_plan(c, t, k, &from, d);
    if (rc)
        return rc;
    if (from >= 0) {
        rc = smp_ctx_reused(c, (size_t)from, r, d);
        r->host_seconds = wc_now() - t0;
        return rc;
    }
    if ((rc = smp_ctx_run_one(c, t, k, g, r, d)))
        return rc;
    smp_ctx_commit(c, k, r);
    return 0;
}

int smp_run_kernel(wc_trace *t, size_t k, const wc_gpu *g,
                   const smp_options *o, smp_kernel_result *r, wc_diag *d)
{
    smp_ctx *c = NULL;
    int rc = smp_ctx_create(o, &c, d);
    if (rc)
        return rc;
    rc = smp_ctx_run(c, t, k, g, r, d);
    smp_ctx_free(c);
    return rc;
}
