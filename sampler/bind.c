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
 * Warm-up (neither model has a warm-start option): a region [f, f+c) with w
 * warm-up CTAs is measured as  T(f-w, w+c) - T(f-w, w), the extra time the
 * region adds after w CTAs that ran before it from a cold start, so caches,
 * instruction caches and the CTA pipeline are in the state the preceding
 * CTAs left; the same is done for both models.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dm.h"
#include "im.h"
#include "smp.h"

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

static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

/* CTAs of this kernel resident on one SM (occupancy limits of g). */
static long ctas_per_sm(const wc_gpu *g, const wc_kernel_info *ki)
{
    long warps = (long)ki->warps_per_cta;
    if (warps < 1)
        warps = 1;
    long n = g->max_ctas_per_sm;
    long by_warps = g->max_warps_per_sm / warps;
    if (by_warps < n)
        n = by_warps;
    if (ki->nregs > 0 && g->reg_alloc_unit > 0) {
        long per_warp = ceil_div(ki->nregs * WC_WARP_SIZE, g->reg_alloc_unit) *
                        g->reg_alloc_unit;
        long by_regs = g->regs_per_sm / (per_warp * warps);
        if (by_regs < n)
            n = by_regs;
    }
    if (ki->shmem > 0 && g->shmem_alloc_unit > 0) {
        long per_cta = ceil_div(ki->shmem, g->shmem_alloc_unit) *
                       g->shmem_alloc_unit;
        long by_shm = g->shmem_per_sm / per_cta;
        if (by_shm < n)
            n = by_shm;
    }
    return n < 1 ? 1 : n;
}

/* Scale a GPU-wide numeric key by f (keys a config may lack are skipped). */
static void scale_key(wc_gpu *s, const char *key, double f, double quantum)
{
    double v;
    if (wc_gpu_get_num(s, key, &v) != 0)
        return;
    v *= f;
    if (quantum > 0)
        v = fmax(quantum, floor(v / quantum) * quantum);
    wc_diag d;
    (void)wc_gpu_set_num(s, key, v, &d); /* out of bounds: keep the value */
}

/* The config of a slice of `sms` SMs of g. */
static void slice_config(const wc_gpu *g, long sms, wc_gpu *s)
{
    *s = *g;
    if (sms >= g->num_sms)
        return;
    double f = (double)sms / (double)g->num_sms;
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

typedef struct kbind {
    wc_trace *t;
    size_t k;
    const wc_gpu *g;
    wc_gpu slice;
    long sms;            /* SMs of a region                                   */
    uint64_t ctas;       /* CTAs of the kernel                                */
    uint64_t rctas;      /* CTAs per region (the last one takes the rest)     */
    uint64_t warm;       /* warm-up CTAs before a region                      */
    size_t nregions;
    double *z;           /* per region: latency-bound warp cycles (weight)    */
    uint64_t *ins;       /* per region: warp instructions                     */
} kbind;

/*
 * Region layout.  Per SM, the full run keeps occ_eff = min(occupancy,
 * ceil(ctas / num_sms)) CTAs resident; a region gives each of its s SMs
 * occ_eff CTAs per wave (the slice config caps residency at occ_eff) for
 * min(waves, waves the kernel has) waves.
 */
static void layout(kbind *b, const wc_kernel_info *ki, const smp_options *o)
{
    const wc_gpu *g = b->g;
    long occ = ctas_per_sm(g, ki);
    b->ctas = ki->ctas;
    long per_sm = (long)((b->ctas + (uint64_t)g->num_sms - 1) /
                         (uint64_t)g->num_sms);
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
    if (sms > g->num_sms)
        sms = g->num_sms;
    b->sms = sms;
    b->rctas = (uint64_t)(sms * occ * waves);
    if (b->rctas < 1)
        b->rctas = 1;
    /* The last region takes the remainder; a remainder under half a region
     * joins the region before it. */
    uint64_t n = b->ctas / b->rctas, rem = b->ctas % b->rctas;
    if (n == 0 || rem * 2 >= b->rctas)
        n++;
    b->nregions = (size_t)n;
    long w = o->warmup_ctas >= 0 ? o->warmup_ctas : g->smp_warmup_ctas;
    b->warm = w < 0 ? (uint64_t)(sms * occ) : (uint64_t)w;
    slice_config(g, sms, &b->slice);
    if (b->slice.max_ctas_per_sm > occ)
        b->slice.max_ctas_per_sm = occ;
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

/* Model m on CTAs [first, first+count) of the slice (whole = 1: the whole
 * kernel on the full GPU). */
static int model_run(kbind *b, int m, int whole, uint64_t first,
                     uint64_t count, smp_eval *out, wc_diag *d)
{
    const wc_gpu *g = whole ? b->g : &b->slice;
    long sms = whole ? 0 : b->sms;
    int rc;
    if (m == SMP_DETAILED) {
        dm_options o;
        dm_options_default(&o);
        o.cta_first = first;
        o.cta_count = count;
        o.sms = sms;
        dm_result r;
        memset(&r, 0, sizeof r);
        rc = dm_run_kernel(b->t, b->k, g, &o, &r, d);
        if (rc == 0) {
            out->cycles = (double)r.cycles;
            out->fixed = (double)(r.cycles - r.sim_cycles);
            out->warp_insts = r.warp_insts;
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
    im_result r;
    memset(&r, 0, sizeof r);
    rc = im_run_kernel(b->t, b->k, g, &o, &r, d);
    if (rc == 0) {
        out->cycles = (double)r.cycles;
        out->fixed = (double)(r.cycles - r.sim_cycles);
        out->warp_insts = r.warp_insts;
        if (whole)
            rc = take_proxies(b, &r, d);
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

static int eng_region(void *ctx, int m, size_t r, smp_eval *out, wc_diag *d)
{
    kbind *b = ctx;
    uint64_t first, count;
    region_window(b, r, &first, &count);
    uint64_t w = b->warm < first ? b->warm : first;
    if (w == 0)
        return model_run(b, m, 0, first, count, out, d);
    smp_eval full, pre;
    memset(&full, 0, sizeof full);
    memset(&pre, 0, sizeof pre);
    int rc = model_run(b, m, 0, first - w, w + count, &full, d);
    if (rc == 0)
        rc = model_run(b, m, 0, first - w, w, &pre, d);
    if (rc)
        return rc;
    /* The signature of the region is that of the window it ends. */
    *out = full;
    out->cycles = full.cycles - pre.cycles;
    out->warp_insts = full.warp_insts - pre.warp_insts;
    return 0;
}

static int eng_whole(void *ctx, int m, smp_eval *out, wc_diag *d)
{
    return model_run(ctx, m, 1, 0, 0, out, d);
}

/* ------------------------------------------------------------------------ */
/* Kernel-level reuse                                                        */
/* ------------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

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
        h = fnv(h, &nw, sizeof nw);
        for (unsigned w = 0; w < nw && !rc; w++) {
            int got;
            while ((got = wc_cta_next(c, w, &in, d)) == 1) {
                h = fnv(h, &in.pc, sizeof in.pc);
                h = fnv(h, &in.mask, sizeof in.mask);
                h = fnv(h, &in.op, sizeof in.op);
                h = fnv(h, &in.width, sizeof in.width);
                h = fnv(h, &in.iflags, sizeof in.iflags);
                h = fnv(h, in.dst, sizeof in.dst);
                h = fnv(h, in.src, sizeof in.src);
                h = fnv(h, &in.ctrl, sizeof in.ctrl);
                h = fnv(h, &in.imm, sizeof in.imm);
                if (in.iflags & WC_IF_HAS_ADDR)
                    h = fnv(h, in.addr, sizeof in.addr);
            }
            if (got < 0)
                rc = d->code ? d->code : WC_EINPUT;
            else
                h = fnv(h, "|", 1);
        }
        wc_cta_free(c);
        if (rc)
            break;
    }
    wc_kreader_close(kr);
    *out = h;
    return rc;
}

typedef struct reuse_ent {
    size_t k;
    int hashed;
    uint64_t hash;
    smp_kernel_result res;
    char name[512];
    unsigned grid[3], block[3];
    long shmem, nregs;
} reuse_ent;

struct smp_ctx {
    smp_options o;
    smp_clock *clock;
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
    c->clock = smp_clock_create(c->o.self_profile || c->o.budget_s > 0);
    if (!c->clock) {
        free(c);
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    }
    c->budget_left = c->o.budget_s;
    *out = c;
    return 0;
}

void smp_ctx_free(smp_ctx *c)
{
    if (!c)
        return;
    smp_clock_free(c->clock);
    free(c->ents);
    free(c);
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

static int same_launch(const reuse_ent *e, const wc_kernel_info *ki)
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
        if (!same_launch(e, ki))
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

static int remember(smp_ctx *c, wc_trace *t, size_t k, uint64_t hash,
                    int hashed, const smp_kernel_result *r, wc_diag *d)
{
    if (c->nents == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        reuse_ent *n = realloc(c->ents, cap * sizeof *n);
        if (!n)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        c->ents = n;
        c->cap = cap;
    }
    const wc_kernel_info *ki = wc_trace_kernel(t, k);
    reuse_ent *e = &c->ents[c->nents++];
    memset(e, 0, sizeof *e);
    e->k = k;
    e->hash = hash;
    e->hashed = hashed;
    e->res = *r;
    snprintf(e->name, sizeof e->name, "%s", ki->name);
    memcpy(e->grid, ki->grid, sizeof e->grid);
    memcpy(e->block, ki->block, sizeof e->block);
    e->shmem = ki->shmem;
    e->nregs = ki->nregs;
    return 0;
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

int smp_ctx_run(smp_ctx *c, wc_trace *t, size_t k, const wc_gpu *g,
                smp_kernel_result *r, wc_diag *d)
{
    memset(r, 0, sizeof *r);
    r->reused_from = -1;
    if (k >= wc_trace_nkernels(t))
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "sampler: no kernel %zu in the trace", k);
    if (c->t != t) { /* the reuse table belongs to one trace */
        c->t = t;
        c->nents = 0;
    }
    const smp_options *o = &c->o;
    double t0 = wc_now();
    uint64_t hash = 0;
    int hashed = 0, rc;
    if (o->reuse) {
        reuse_ent *e;
        if ((rc = find_reuse(c, t, k, &e, &hash, &hashed, d)))
            return rc;
        if (e) {
            size_t from = e->k;
            *r = e->res;
            r->reused_from = (long)from;
            r->how = SMP_HOW_REUSED;
            memset(r->host, 0, sizeof r->host);
            r->host_seconds = wc_now() - t0;
            return 0;
        }
    }

    kbind b;
    memset(&b, 0, sizeof b);
    b.t = t;
    b.k = k;
    b.g = g;
    layout(&b, wc_trace_kernel(t, k), o);

    /* Hold a reader open so a compressed kernel is decompressed once for
     * all the model runs of this kernel. */
    wc_kreader *hold = NULL;
    if ((rc = wc_kreader_open(t, k, &hold, d)))
        return rc;

    smp_plan p;
    memset(&p, 0, sizeof p);
    p.seed = o->seed;
    p.period = o->period > 0 ? o->period : g->smp_period;
    p.budget_s = o->budget_s > 0 ? budget_share(c, t, k) : 0;
    p.stratify = o->stratify;
    p.max_strata = o->max_strata > 0 ? o->max_strata : (int)g->smp_max_strata;
    p.bias = o->bias >= 0 ? o->bias : g->smp_bias;
    p.small_kernel_insts = o->small_kernel_insts
                               ? o->small_kernel_insts
                               : (uint64_t)g->smp_small_kernel_insts;
    p.kernel = k;
    p.progress = o->progress;
    p.progress_ctx = o->progress_ctx;
    p.clock = c->clock;
    p.dm_cost_per_inst = smp_ctx_cost_per_inst(c, SMP_DETAILED, NULL, NULL);

    smp_engine e = {&b, b.nregions, eng_whole, eng_proxy, eng_region};
    rc = smp_estimate(&e, &p, r, d);
    wc_kreader_close(hold);
    free(b.z);
    free(b.ins);
    if (rc)
        return rc;
    r->region_ctas = b.rctas;
    r->region_sms = b.sms;
    r->reused_from = -1;
    for (int m = 0; m < SMP_NMODELS; m++) {
        c->cost[m].seconds += r->host[m].seconds;
        c->cost[m].cycles += r->host[m].cycles;
        c->cost[m].have_cycles = r->host[m].have_cycles;
        c->cost[m].warp_insts += r->host[m].warp_insts;
        c->cost[m].runs += r->host[m].runs;
    }
    if (o->budget_s > 0)
        c->budget_left -= r->host_seconds;
    if (o->reuse)
        return remember(c, t, k, hash, hashed, r, d);
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
