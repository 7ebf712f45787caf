/*
 * model/im_kernel.c - the interval model's entry points.
 *
 * Owns: reading the parameters once from the config (im_par_init, over
 * uarch's ua_core_decode), placing CTAs by uarch's occupancy and their warps
 * by uarch's sub-core assignment (ua_subcore),
 * turning one CTA's per-phase warp summaries into its solo time and CPI
 * components (sub-core imbalance, barriers, queueing), handing CTAs to the
 * SM scheduler, and the kernel result with its CPI stack.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wc_check.h"
#include "im_int.h"

static const char *const im_cpi_names[] = {
#define X(e, s) s,
    IM_CPIS(X)
#undef X
};

const char *im_cpi_name(int i)
{
    if (i < 0 || i >= IM_CPI_COUNT)
        return NULL;
    return im_cpi_names[i];
}

void im_options_default(im_options *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
}

void im_result_free(im_result *r)
{
    if (!r)
        return;
    free(r->warp_cta);
    free(r->warp_id);
    free(r->warp_sm);
    free(r->warp_subcore);
    free(r->warp_insts_of);
    free(r->warp_cycles);
    free(r->warp_ipc);
    r->warp_cta = NULL;
    r->warp_id = r->warp_sm = r->warp_subcore = NULL;
    r->warp_insts_of = NULL;
    r->warp_cycles = r->warp_ipc = NULL;
    r->nwarps = 0;
}

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */
/* ------------------------------------------------------------------------ */

int im_par_init(im_par *p, const wc_gpu *g, long sms, wc_diag *d)
{
    memset(p, 0, sizeof *p);
    int rc = ua_core_decode(g, &p->core, d);
    if (rc == 0)
        rc = ua_mem_check(g, d);
    if (rc)
        return rc;
    const ua_core *c = &p->core;
    for (int k = 0; k < WC_LAT_COUNT; k++) {
        p->lat[k] = (double)c->lat[k];
        p->ii[k] = (double)c->ii[k];
    }
    ua_mem_rows_init(&p->rows, g);
    p->l1_lat = (double)g->l1_latency;
    p->l2_lat = (double)g->l2_latency;
    p->dram_lat = (double)g->dram_latency;
    p->atom_op = g->l2_atomic_same_addr_ns * g->clock_mhz / 1000.0;
    p->shared_ii = (double)g->mem_shared_ii;
    p->const_ii = g->mem_const_ii > 0 ? (double)g->mem_const_ii : 0;
    p->l1_line_cycles = (double)g->l1_line_cycles;
    p->wavefront_cycles = (double)g->shmem_wavefront_cycles;
    p->sub_ii_r = (double)g->mem_sub_ii_regular;
    p->sub_ii_u = (double)g->mem_sub_ii_uniform;
    p->dispatch = (double)g->mem_dispatch_cycles;
    p->sub_latency = (double)g->mem_sub_latency;
    p->memq = (int)(g->mem_queue_entries + g->mem_latch_entries);
    if (p->memq > IM_MEMQ_MAX)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "mem_queue_entries + mem_latch_entries = %d: the "
                           "interval model holds at most %d",
                           p->memq, IM_MEMQ_MAX);
    p->banks = (int)c->banks;
    p->ports = (int)c->read_ports;
    p->rfc = c->rfc;
    p->read_window = (double)c->read_window;
    p->nsub = (int)c->nsub;
    p->fp64_shared = c->fp64_shared;
    p->line_bytes = (unsigned)g->l1_line_bytes;
    p->sector_bytes = (unsigned)g->sector_bytes;
    p->l2_line_bytes = (unsigned)g->l2_line_bytes;
    /* a line is a whole number of sectors, at most 32 (sector masks) */
    if (p->line_bytes % p->sector_bytes || p->l2_line_bytes % p->sector_bytes ||
        p->line_bytes / p->sector_bytes > 32 ||
        p->l2_line_bytes / p->sector_bytes > 32)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "sector_bytes = %u must divide l1_line_bytes = %u "
                           "and l2_line_bytes = %u into at most 32 sectors",
                           p->sector_bytes, p->line_bytes, p->l2_line_bytes);
    p->shmem_banks = (unsigned)g->shmem_banks;
    p->shmem_bank_bytes = (unsigned)g->shmem_bank_bytes;
    double frac = 1;
    if (sms > 0 && sms < g->num_sms)
        frac = (double)sms / (double)g->num_sms;
    p->l2_bw = g->l2_bw * frac;
    p->dram_bw = g->dram_bw * frac;
    /* M/D/1 service time of a 4-sector request at one channel: the
     * mem_partitions channels, im_mem_channels when that is unknown (0) */
    double parts = g->mem_partitions > 0 ? (double)g->mem_partitions
                                         : (double)g->im_mem_channels;
    p->dram_req_service = 4.0 * p->sector_bytes * parts / (p->dram_bw / frac);
    p->l2_req_service = 4.0 * p->sector_bytes * parts / (p->l2_bw / frac);
    p->queue_k = g->im_queue_k;
    p->rho_max = g->im_rho_max;
    p->overlap = g->im_overlap;
    p->barrier_cycles = (double)g->im_barrier_cycles;
    p->cta_overhead = c->cta_ovh;
    p->cta_warp_overhead = c->cta_warp_ovh;
    p->cta_dispatch = c->cta_dispatch;
    p->launch = c->launch;
    p->assign = c->assign;
    p->iline = c->icache_line;
    p->il1_size = g->icache_l1_bytes;
    p->il1_assoc = (long)c->l1i_assoc;
    p->il1_lat = (double)c->l1i_lat;
    p->il1_miss = (double)c->l1i_miss_lat;
    p->isbuf = c->sb_lines;
    p->icache_on = !c->icache_perfect && p->il1_size > 0;
    p->cline = (unsigned)g->cc_line_bytes;
    p->c_l0_miss = (double)g->cc_l0_miss_latency;
    p->c_l1_miss = (double)g->cc_l1_miss_latency;
    p->const_on = p->c_l0_miss > 0 || p->c_l1_miss > 0;
    p->force_ctrl = c->dep == UA_DEP_CTRL;
    p->force_sb = c->dep == UA_DEP_SCOREBOARD;
    p->use_ctrl_auto = c->dep == UA_DEP_AUTO;
    return WC_OK;
}

/* ------------------------------------------------------------------------ */
/* One kernel run                                                            */
/* ------------------------------------------------------------------------ */

/* A CTA as a set of warp streams (trace reader or arrays). */
typedef struct im_cta_src {
    unsigned nwarps;
    unsigned (*warp_id)(void *ctx, unsigned w);
    im_next_fn next;
    void *ctx;          /* passed to next after set_warp                   */
    void (*set_warp)(void *ctx, unsigned w);
    wc_cta *cta;        /* the trace's CTA (NULL: arrays)                 */
} im_cta_src;

typedef struct im_run {
    const wc_gpu *g;
    im_par p;
    im_options o;
    im_walker *w;
    im_cache *l1;       /* per SM, allocated lazily                        */
    im_icode *ic;       /* per SM instruction fetch                        */
    im_icode *cl1;      /* per SM constant lines                           */
    im_icode *cl0;      /* per SM x sub-core L0 FL constant lines          */
    unsigned char *l1_ready;
    im_cache l2;
    im_sched s;
    im_cta_acc acc;
    long nsm;
    int slots;
    unsigned wpc;
    double stack[IM_CPI_COUNT];
    /* kernel-level bandwidth floor: first access, bytes, least tail */
    double first_l2, first_dram, post_l2, post_dram, l2_bytes, dram_bytes;
    double atom_end; /* last atomic of any CTA performed at the L2 */
    im_result *r;
    size_t wcap;
} im_run;

static int run_init(im_run *x, const wc_gpu *g, const wc_kernel_info *ki,
                    const im_options *o, im_result *r, wc_diag *d)
{
    memset(x, 0, sizeof *x);
    x->g = g;
    if (o)
        x->o = *o;
    else
        im_options_default(&x->o);
    x->r = r;
    x->nsm = x->o.sms > 0 ? x->o.sms : g->num_sms;
    if (x->nsm < 1)
        x->nsm = 1;
    int rc = im_par_init(&x->p, g, x->nsm, d);
    if (rc)
        return rc;
    x->wpc = (unsigned)ki->warps_per_cta;
    if (x->wpc == 0) {
        unsigned long th = (unsigned long)ki->block[0] *
                           (ki->block[1] ? ki->block[1] : 1) *
                           (ki->block[2] ? ki->block[2] : 1);
        x->wpc = (unsigned)((th + 31) / 32);
    }
    if (x->wpc == 0)
        x->wpc = 1;
    unsigned occ; /* the one occupancy rule (uarch) */
    if ((rc = ua_kernel_ctas_per_sm(g, ki, &occ, d)) != 0)
        return rc;
    x->slots = (int)occ;
    x->w = calloc(1, sizeof *x->w);
    x->l1 = calloc((size_t)x->nsm, sizeof *x->l1);
    x->l1_ready = calloc((size_t)x->nsm, 1);
    x->ic = calloc((size_t)x->nsm, sizeof *x->ic);
    x->cl1 = calloc((size_t)x->nsm, sizeof *x->cl1);
    x->cl0 = calloc((size_t)x->nsm * IM_MAXSUB, sizeof *x->cl0);
    if (!x->w || !x->l1 || !x->l1_ready || !x->ic || !x->cl1 || !x->cl0)
        goto oom;
    x->w->p = &x->p;
    x->w->base = 1;
    x->w->wm_on = !x->o.no_warp_memo;
    x->w->use_ctrl = x->p.force_ctrl || (x->p.use_ctrl_auto && ki->has_ctrl);
    if (x->p.force_sb)
        x->w->use_ctrl = 0;
    ua_cache_geom l2g;
    ua_cache_geom_l2(g, &l2g);
    if (im_cache_init(&x->l2, &l2g) != 0)
        goto oom;
    ua_cache_set_fold(x->l2.c, x->o.l2_fold);
    if (im_sched_init(&x->s, x->nsm, x->slots) != 0)
        goto oom;
    r->occupancy_ctas = (unsigned)x->slots;
    r->counts.ctas_per_sm = x->slots;
    x->first_l2 = x->first_dram = x->post_l2 = x->post_dram = INFINITY;
    return WC_OK;
oom:
    return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
}

/* 1 when an instruction or constant line table could not grow (out of
 * memory): its line was not remembered, and a later fetch of it would be
 * taken as a hit, so the run fails instead of answering. */
static int icode_failed(const im_run *x)
{
    int bad = 0;
    for (long i = 0; i < x->nsm; i++) {
        if (x->ic)
            bad |= x->ic[i].oom;
        if (x->cl1)
            bad |= x->cl1[i].oom;
        if (x->cl0)
            for (long q = 0; q < IM_MAXSUB; q++)
                bad |= x->cl0[i * IM_MAXSUB + q].oom;
    }
    return bad;
}

static void run_free(im_run *x)
{
    if (x->l1)
        for (long i = 0; i < x->nsm; i++)
            im_cache_free(&x->l1[i]);
    if (x->ic)
        for (long i = 0; i < x->nsm; i++)
            im_icode_free(&x->ic[i]);
    free(x->ic);
    if (x->cl1)
        for (long i = 0; i < x->nsm; i++)
            im_icode_free(&x->cl1[i]);
    if (x->cl0)
        for (long i = 0; i < x->nsm * IM_MAXSUB; i++)
            im_icode_free(&x->cl0[i]);
    free(x->cl1);
    free(x->cl0);
    free(x->l1);
    free(x->l1_ready);
    im_walker_free(x->w);
    free(x->w);
    im_cache_free(&x->l2);
    im_sched_free(&x->s);
    im_cta_free(&x->acc);
}

static int push_warp(im_run *x, uint64_t cta, unsigned wid, long sm, int sub,
                     uint64_t n, double cyc)
{
    im_result *r = x->r;
    if (r->nwarps == x->wcap) {
        size_t nc = x->wcap ? x->wcap * 2 : 256;
#define GROW(f)                                                                \
    do {                                                                       \
        void *p_ = realloc(r->f, nc * sizeof *r->f);                           \
        if (!p_)                                                               \
            return -1;                                                         \
        r->f = p_;                                                             \
    } while (0)
        GROW(warp_cta);
        GROW(warp_id);
        GROW(warp_sm);
        GROW(warp_subcore);
        GROW(warp_insts_of);
        GROW(warp_cycles);
        GROW(warp_ipc);
#undef GROW
        x->wcap = nc;
    }
    size_t i = r->nwarps++;
    r->warp_cta[i] = cta;
    r->warp_id[i] = wid;
    r->warp_sm[i] = (unsigned)sm;
    r->warp_subcore[i] = (unsigned)sub;
    r->warp_insts_of[i] = n;
    r->warp_cycles[i] = cyc;
    r->warp_ipc[i] = cyc > 0 ? (double)n / cyc : 0;
    return 0;
}

/* Split the extra cycles of a phase whose bottleneck is resource rb. */
static void phase_extra(const im_par *p, const double *D, int rb,
                        double L, double extra, double *comp)
{
    if (extra <= 0)
        return;
    if (rb >= IM_R_BANK && rb < IM_R_SMMEM) {
        comp[IM_CPI_UNIT] += extra; /* register bank read ports */
    } else if (rb < IM_R_BANK) {
        /* per sub-core resource: what a balanced spread would need is
         * contention, the rest is imbalance */
        int s = rb < IM_R_UNIT    ? rb - IM_R_ISSUE
                : rb < IM_R_MEMSUB ? (rb - IM_R_UNIT) / WC_LAT_COUNT
                                   : rb - IM_R_MEMSUB;
        int off = rb - (rb < IM_R_UNIT    ? IM_R_ISSUE + s
                        : rb < IM_R_MEMSUB ? IM_R_UNIT + s * WC_LAT_COUNT
                                           : IM_R_MEMSUB + s);
        double sum = 0;
        for (int k = 0; k < p->nsub; k++) {
            int idx = rb < IM_R_UNIT    ? IM_R_ISSUE + k
                      : rb < IM_R_MEMSUB ? IM_R_UNIT + k * WC_LAT_COUNT + off
                                         : IM_R_MEMSUB + k;
            sum += D[idx];
        }
        double bal = sum / p->nsub;
        double cont = bal > L ? bal - L : 0;
        if (cont > extra)
            cont = extra;
        comp[rb >= IM_R_MEMSUB ? IM_CPI_MEM_L1 : IM_CPI_UNIT] += cont;
        comp[IM_CPI_IMBALANCE] += extra - cont;
    } else if (rb == IM_R_SMMEM) {
        comp[IM_CPI_MEM_L1] += extra;
    } else if (rb == IM_R_SMCONST) {
        comp[IM_CPI_MEM_SHARED] += extra; /* constant port (LDC) */
    } else {
        comp[IM_CPI_UNIT] += extra;
    }
}

/* Solo time and components of the CTA in x->acc; fills dem_total.
 * A phase takes max(longest warp, max_r (demand_r + edge_r)): edge_r is
 * the demand-weighted lead + tail of the warps using r (im_warp.c), the
 * time r cannot work at the phase's start and end -- the serial prologue
 * of a kernel start (latency, cold code and constant lines: seed 000
 * 5.1.1, 5.2) and the drain after the last use. */
static double cta_time(im_run *x, unsigned nwarps, double *comp,
                       double *dem_total)
{
    const im_par *p = &x->p;
    im_cta_acc *a = &x->acc;
    memset(comp, 0, IM_CPI_COUNT * sizeof *comp);
    memset(dem_total, 0, IM_NRES * sizeof *dem_total);
    double T = 0, sumL = 0;
    for (size_t ph = 0; ph < a->nphases; ph++) {
        double L = a->lmax[ph] > 0 ? a->lmax[ph] : 0;
        const double *D = a->dem + ph * IM_NRES;
        const double *E = a->edge + ph * IM_NRES;
        double Dm = 0;
        int rb = 0;
        for (int r = 0; r < IM_NRES; r++) {
            dem_total[r] += D[r];
            if (D[r] <= 0)
                continue;
            double v = D[r] + E[r] / D[r];
            if (v > Dm) {
                Dm = v;
                rb = r;
            }
        }
        double big = L > Dm ? L : Dm, small = L > Dm ? Dm : L;
        double pt = big + p->overlap * small;
        for (int c = 0; c < IM_CPI_COUNT; c++)
            comp[c] += a->crit[ph * (size_t)IM_CPI_COUNT + (size_t)c];
        phase_extra(p, D, rb, L, pt - L, comp);
        T += pt;
        sumL += L;
    }
    /* barriers: the phases' longest warps differ -> time no warp needed */
    double excess = sumL - a->warp_total_max;
    if (excess > 0 && sumL > 0) {
        double keep = (sumL - excess) / sumL;
        double moved = 0;
        for (int c = 0; c < IM_CPI_COUNT; c++)
            if (c != IM_CPI_IMBALANCE && c != IM_CPI_UNIT) {
                double nv = comp[c] * keep;
                moved += comp[c] - nv;
                comp[c] = nv;
            }
        comp[IM_CPI_BARRIER] += moved;
    }
    double ovh = p->cta_overhead + p->cta_warp_overhead * nwarps;
    comp[IM_CPI_LAUNCH] += ovh;
    return T + ovh;
}

static int run_cta(im_run *x, const im_cta_src *src, uint64_t cta_no,
                   wc_diag *d)
{
    long sm;
    int slot;
    double t;
    im_sched_pick(&x->s, x->p.cta_dispatch, &sm, &slot, &t);
    if (!x->l1_ready[sm]) {
        ua_cache_geom l1g;
        ua_cache_geom_l1(x->g, &l1g);
        if (im_cache_init(&x->l1[sm], &l1g) != 0 ||
            (x->p.icache_on && im_icode_init(&x->ic[sm]) != 0) ||
            (x->p.const_on && im_icode_init(&x->cl1[sm]) != 0))
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        /* constant bank 0 written by the launch (cc_bank0_preload) */
        for (long a = 0; x->p.const_on && a < x->g->cc_bank0_preload;
             a += (long)x->p.cline)
            (void)im_lines_fetch(&x->cl1[sm], (uint64_t)a / x->p.cline,
                                 0.0, 0);
        for (int q = 0; x->p.const_on && q < x->p.nsub; q++)
            if (im_icode_init(&x->cl0[sm * IM_MAXSUB + q]) != 0)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        x->l1_ready[sm] = 1;
    }
    x->w->l1 = x->l1[sm].c ? &x->l1[sm] : NULL;
    x->w->ic = x->ic[sm].line ? &x->ic[sm] : NULL;
    x->w->cta_t = t;
    x->w->cl1 = x->cl1[sm].line ? &x->cl1[sm] : NULL;
    x->w->cl0 = x->cl0 + sm * IM_MAXSUB;
    x->w->l2 = &x->l2;
    im_cta_reset(&x->acc);
    unsigned on_sub[IM_MAXSUB] = {0};
    for (unsigned w = 0; w < src->nwarps; w++) {
        uint64_t W = (uint64_t)slot * x->wpc + src->warp_id(src->ctx, w);
        on_sub[ua_subcore(x->p.core.assign, (unsigned)x->p.nsub, W, x->o.seed,
                          (uint64_t)sm)]++;
    }
    x->w->share_sm = src->nwarps;
    for (unsigned w = 0; w < src->nwarps; w++) {
        unsigned wid = src->warp_id(src->ctx, w);
        uint64_t W = (uint64_t)slot * x->wpc + wid;
        int sub = (int)ua_subcore(x->p.core.assign, (unsigned)x->p.nsub, W,
                                  x->o.seed, (uint64_t)sm);
        x->w->share_sub = on_sub[sub];
        src->set_warp(src->ctx, w);
        x->w->raw_cta = src->cta;
        x->w->raw_w = w;
        uint64_t n = 0;
        double cyc = 0;
        int rc = im_warp_run(x->w, sub, src->next, src->ctx, &x->acc, &n,
                             &cyc, d);
        if (rc)
            return rc;
        x->w->raw_cta = NULL;
        x->r->warps++;
        if (x->o.per_warp && push_warp(x, cta_no, wid, sm, sub, n, cyc))
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    }
    double comp[IM_CPI_COUNT], dem[IM_NRES];
    double T = cta_time(x, src->nwarps, comp, dem);
    const im_par *p = &x->p;
    /* GPU-wide bandwidth: queueing and the throughput bound, from the
     * natural demand of the resident CTAs and this one */
    double l2r = T > 0 ? x->acc.l2_bytes / T : 0;
    double drr = T > 0 ? x->acc.dram_bytes / T : 0;
    double rho_l2 = p->l2_bw > 0 ? (x->s.l2_rate + l2r) / p->l2_bw : 0;
    double rho_d = p->dram_bw > 0 ? (x->s.dram_rate + drr) / p->dram_bw : 0;
    /* below saturation: M/D/1 waiting per exposed L2 / DRAM access;
     * at saturation: the bandwidth bound */
    double Tq = T;
    double ql2 = fmin(rho_l2, p->rho_max), qd = fmin(rho_d, p->rho_max);
    double wl2 = p->queue_k * ql2 / (2 * (1 - ql2)) * p->l2_req_service;
    double wd = p->queue_k * qd / (2 * (1 - qd)) * p->dram_req_service;
    double xl2 = p->l2_lat > 0 ? comp[IM_CPI_MEM_L2] / p->l2_lat * wl2 : 0;
    double xd = p->dram_lat > 0 ? comp[IM_CPI_MEM_DRAM] / p->dram_lat * wd
                                : 0;
    comp[IM_CPI_MEM_L2] += xl2;
    comp[IM_CPI_MEM_DRAM] += xd;
    Tq += xl2 + xd;
    double rho = fmax(rho_l2, rho_d);
    if (rho > 1 && T * rho > Tq) {
        comp[rho_d >= rho_l2 ? IM_CPI_MEM_DRAM : IM_CPI_MEM_L2] +=
            T * rho - Tq;
        Tq = T * rho;
    }
    im_sched_add(&x->s, sm, slot, t, Tq, dem, l2r, drr);
    if (x->acc.atom_tail > 0 && t + Tq + x->acc.atom_tail > x->atom_end)
        x->atom_end = t + Tq + x->acc.atom_tail;
    for (int c = 0; c < IM_CPI_COUNT; c++)
        x->stack[c] += comp[c];
    x->r->warp_insts += x->acc.insts;
    x->r->intervals += x->acc.intervals;
    x->r->l1_hits += x->acc.l1_hits;
    x->r->l2_hits += x->acc.l2_hits;
    x->r->dram_sectors += x->acc.dram_sectors;
    x->acc.cnt.l1_hit_sectors = x->acc.l1_hits;
    x->acc.cnt.l2_hit_sectors = x->acc.l2_hits;
    x->acc.cnt.dram_bytes = (uint64_t)llround(x->acc.dram_bytes);
    ua_counts_add(&x->r->counts, &x->acc.cnt);
    x->r->ctas++;
    x->l2_bytes += x->acc.l2_bytes;
    x->dram_bytes += x->acc.dram_bytes;
    if (x->acc.l2_bytes > 0 && x->acc.first_l2 < 1e299) {
        x->first_l2 = fmin(x->first_l2, t + x->acc.first_l2);
        x->post_l2 = fmin(x->post_l2, x->acc.post_l2);
    }
    if (x->acc.dram_bytes > 0 && x->acc.first_dram < 1e299) {
        x->first_dram = fmin(x->first_dram, t + x->acc.first_dram);
        x->post_dram = fmin(x->post_dram, x->acc.post_dram);
    }
    return WC_OK;
}

static void run_finish(im_run *x, int whole)
{
    im_result *r = x->r;
    r->warps_recalled = x->w->wm_hits;
    double end = im_sched_drain(&x->s);
    /* SM idle time while the kernel runs (tail of the last wave, uneven
     * CTAs) over the SMs that ran something */
    double busy = 0;
    long used = 0;
    for (long i = 0; i < x->nsm; i++)
        if (x->l1_ready[i]) {
            busy += x->s.sm[i].busy;
            used++;
        }
    busy /= (double)(used ? used : 1);
    double idle = end - busy > 0 ? end - busy : 0;
    double sum = 0;
    x->stack[IM_CPI_UNIT] += x->s.contention;
    for (int c = 0; c < IM_CPI_COUNT; c++)
        sum += x->stack[c];
    double stack[IM_CPI_COUNT];
    for (int c = 0; c < IM_CPI_COUNT; c++)
        stack[c] = sum > 0 ? x->stack[c] * (end - idle) / sum : 0;
    stack[IM_CPI_IMBALANCE] += idle;
    /* bandwidth floor: every byte through L2 / DRAM after the first
     * request, then the last request's latency (a burst served FIFO) */
    const im_par *p = &x->p;
    if (x->dram_bytes > 0 && p->dram_bw > 0 && isfinite(x->first_dram)) {
        double f = x->first_dram + x->dram_bytes / p->dram_bw + p->dram_lat +
                   (isfinite(x->post_dram) ? x->post_dram : 0);
        if (f > end) {
            stack[IM_CPI_MEM_DRAM] += f - end;
            end = f;
        }
    }
    if (x->l2_bytes > 0 && p->l2_bw > 0 && isfinite(x->first_l2)) {
        double f = x->first_l2 + x->l2_bytes / p->l2_bw + p->l2_lat +
                   (isfinite(x->post_l2) ? x->post_l2 : 0);
        if (f > end) {
            stack[IM_CPI_MEM_L2] += f - end;
            end = f;
        }
    }
    /* issue 11: the kernel ends when its last reduction / atomic is
     * performed at the L2 (a RED has no consumer, so no warp waits for it:
     * measured atom_lane-1056x256 on an H100 SXM was 5-6% above a model
     * that ended with the last warp); ops to one address serialize there,
     * l2_atomic_same_addr_ns each, a floor from the kernel start */
    if (x->atom_end > end) {
        stack[IM_CPI_MEM_L2] += x->atom_end - end;
        end = x->atom_end;
    }
    if (x->acc.atom_max > 1 && p->atom_op > 0) {
        double f = p->l2_lat + (double)(x->acc.atom_max - 1) * p->atom_op;
        if (f > end) {
            stack[IM_CPI_MEM_L2] += f - end;
            end = f;
        }
    }
    double launch = whole ? x->p.launch : 0;
    stack[IM_CPI_LAUNCH] += launch;
    r->sim_cycles = (uint64_t)llround(end);
    r->cycles = (uint64_t)llround(end + launch);
    r->ipc = end > 0 ? (double)r->warp_insts / end : 0;
    for (int c = 0; c < IM_CPI_COUNT; c++)
        r->cpi[c] = r->warp_insts ? stack[c] / (double)r->warp_insts : 0;
    /* utilisation: bytes / (bandwidth x time) */
    r->dram_util = end > 0 && p->dram_bw > 0
                       ? x->dram_bytes / (p->dram_bw * end)
                       : 0;
    r->l2_util = end > 0 && p->l2_bw > 0 ? x->l2_bytes / (p->l2_bw * end) : 0;
    r->waves = (double)r->ctas / ((double)x->nsm * x->slots);
}

/* o.snap: the result the run would give if it ended now (run_finish on a
 * copy of the scheduler; the run itself goes on unchanged). */
static int snapshot(im_run *x, int whole, im_result *out)
{
    im_run y = *x;
    *out = *x->r;
    out->nwarps = 0;
    out->warp_cta = NULL;
    out->warp_id = out->warp_sm = out->warp_subcore = NULL;
    out->warp_insts_of = NULL;
    out->warp_cycles = out->warp_ipc = NULL;
    if (im_sched_clone(&x->s, &y.s) != 0)
        return -1;
    y.r = out;
    run_finish(&y, whole);
    im_sched_free(&y.s);
    return 0;
}

/* ---- trace source ---------------------------------------------------------- */

typedef struct trace_ctx {
    wc_cta *c;
    unsigned w;
    wc_inst *buf;       /* decoded here (the walker's buffer)             */
    const im_walker *wk; /* its caches (speed only: trace_prefetch)       */
    wc_iref r[IM_BATCH];
} trace_ctx;

/* Speed only: the L1 and L2 sets of the first line of each global access
 * with addresses in a batch just read, asked of the host now, so that
 * their host cache misses (the L2's tags are 4.9 MB on an H100) overlap
 * one another and the walk of the instructions before them. */
static void trace_prefetch(const trace_ctx *tc, size_t n)
{
    const im_walker *w = tc->wk;
    for (size_t i = 0; i < n; i++) {
        const wc_inst *in = tc->r[i].in;
        uintptr_t at = (uintptr_t)in, b0 = (uintptr_t)tc->buf;
        if (at - b0 >= IM_NBUF * sizeof *in || !in->mask ||
            !(in->iflags & WC_IF_HAS_ADDR) || in->space == WC_SPACE_SHARED)
            continue;
        uint64_t a = in->addr[__builtin_ctz(in->mask)];
        if (w->l1)
            ua_cache_prefetch(w->l1->c, a);
        if (w->l2 && w->l2->c)
            ua_cache_prefetch(w->l2->c, a);
    }
}

static unsigned trace_wid(void *ctx, unsigned w)
{
    return wc_cta_warp_id(((trace_ctx *)ctx)->c, w);
}
static void trace_set(void *ctx, unsigned w)
{
    ((trace_ctx *)ctx)->w = w;
}
static int trace_next(void *ctx, const wc_iref **r, size_t *n, wc_diag *d)
{
    trace_ctx *tc = ctx;
    *r = tc->r;
    int rc = wc_cta_next_refs_bufs(tc->c, tc->w, tc->buf, IM_NBUF, tc->r,
                                   IM_BATCH, n, d);
    if (rc == 1)
        trace_prefetch(tc, *n);
    return rc;
}

int im_run_kernel(wc_trace *t, size_t k, const wc_gpu *g, const im_options *o,
                  im_result *r, wc_diag *d)
{
    memset(r, 0, sizeof *r);
    if (o && o->snap)
        memset(o->snap, 0, sizeof *o->snap);
    double t0 = wc_now();
    const wc_kernel_info *ki = wc_trace_kernel(t, k);
    if (!ki)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no kernel %zu", k);
    im_run x;
    int rc = run_init(&x, g, ki, o, r, d);
    wc_kreader *kr = NULL;
    trace_ctx *tc = NULL;
    if (rc)
        goto done;
    if (!(tc = malloc(sizeof *tc))) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto done;
    }
    rc = wc_kreader_open(t, k, &kr, d);
    if (rc)
        goto done;
    if (x.o.cta_first) {
        rc = wc_kreader_skip(kr, x.o.cta_first, d);
        if (rc)
            goto done;
    }
    uint64_t i = 0;
    for (;;) {
        if (x.o.cta_count && i >= x.o.cta_count)
            break;
        wc_cta *c = NULL;
        rc = wc_kreader_next(kr, &c, d);
        if (rc)
            goto done;
        if (!c)
            break;
        tc->c = c;
        tc->w = 0;
        tc->buf = x.w->in;
        tc->wk = x.w;
        im_cta_src src = {wc_cta_nwarps(c), trace_wid, trace_next, tc,
                          trace_set, c};
        rc = run_cta(&x, &src, i, d);
        wc_cta_free(c);
        if (rc)
            goto done;
        i++;
        if (x.o.snap && i == x.o.snap_after &&
            snapshot(&x, x.o.cta_first == 0 && i >= ki->ctas, x.o.snap)) {
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
            goto done;
        }
    }
    if (icode_failed(&x)) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto done;
    }
    {
        int whole = x.o.cta_first == 0 &&
                    (x.o.cta_count == 0 || x.o.cta_count >= ki->ctas);
        run_finish(&x, whole);
        rc = WC_CHECK(wc_check_kernel("interval", ki, x.o.cta_first,
                                      x.o.cta_count, r->ctas, r->cycles,
                                      whole ? x.p.launch : 0, d));
    }
done:
    wc_kreader_close(kr);
    free(tc);
    run_free(&x);
    r->host_seconds = wc_now() - t0;
    if (rc)
        im_result_free(r);
    return rc;
}

/* ---- in-memory source -------------------------------------------------------- */

#define ARR_BATCH 1

typedef struct arr_ctx {
    const wc_inst *const *warps;
    const size_t *n;
    size_t first;   /* index of the CTA's warp 0 */
    size_t cur, pos;
    wc_iref r[ARR_BATCH];
} arr_ctx;

static unsigned arr_wid(void *ctx, unsigned w)
{
    (void)ctx;
    return w;
}
static void arr_set(void *ctx, unsigned w)
{
    arr_ctx *a = ctx;
    a->cur = a->first + w;
    a->pos = 0;
}
static int arr_next(void *ctx, const wc_iref **r, size_t *n, wc_diag *d)
{
    (void)d;
    arr_ctx *a = ctx;
    size_t k = 0;
    /* one record a call: batches that touch records ahead of the walker
     * (400 bytes each) measured 2x slower (bench_interval, model alone) */
    while (k < ARR_BATCH && a->pos < a->n[a->cur]) {
        const wc_inst *in = &a->warps[a->cur][a->pos++];
        a->r[k].in = in;
        a->r[k].mask = in->mask;
        a->r[k].sid = WC_SID_NONE;
        k++;
    }
    *r = a->r;
    *n = k;
    return k > 0;
}

int im_run_insts(const wc_kernel_info *info, const wc_inst *const *warps,
                 const size_t *n, const wc_gpu *g, const im_options *o,
                 im_result *r, wc_diag *d)
{
    memset(r, 0, sizeof *r);
    double t0 = wc_now();
    im_run x;
    int rc = run_init(&x, g, info, o, r, d);
    arr_ctx *ac = NULL;
    if (rc)
        goto done;
    if (!(ac = malloc(sizeof *ac))) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto done;
    }
    uint64_t ctas = info->ctas ? info->ctas
                               : (uint64_t)info->grid[0] *
                                     (info->grid[1] ? info->grid[1] : 1) *
                                     (info->grid[2] ? info->grid[2] : 1);
    uint64_t first = x.o.cta_first, last = ctas;
    if (x.o.cta_count && first + x.o.cta_count < last)
        last = first + x.o.cta_count;
    for (uint64_t c = first; c < last; c++) {
        ac->warps = warps;
        ac->n = n;
        ac->first = (size_t)(c * x.wpc);
        ac->cur = ac->pos = 0;
        im_cta_src src = {x.wpc, arr_wid, arr_next, ac, arr_set, NULL};
        rc = run_cta(&x, &src, c - first, d);
        if (rc)
            goto done;
    }
    if (icode_failed(&x)) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto done;
    }
    run_finish(&x, first == 0 && last == ctas);
done:
    free(ac);
    run_free(&x);
    r->host_seconds = wc_now() - t0;
    if (rc)
        im_result_free(r);
    return rc;
}
