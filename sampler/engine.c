/*
 * sampler/engine.c - the sampling loop over an abstract pair of models.
 *
 *   interval(whole) ─► I, warp insts ──small──► detailed(whole): exact
 *        │
 *   proxy(r) for every r ─► weight z_r, signature_r (no model run)
 *        │
 *   strata ─► systematic sample (period, or budget: pilot then halving)
 *        │
 *   interval(region r), detailed(region r) for sampled r ─► x_r, y_r
 *        │
 *   smp_stats_ratio(x, y, strata, W_h = Z_h / Z) ─► I corrected, CI
 *
 * Everything here depends only on the engine's answers and the seed, so the
 * same seed gives the same estimate byte for byte; only budget mode looks at
 * the host clock (to choose the period).
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "smp.h"

/* Strata closer than this (in signature units: fractions of the CPI stack,
 * log CPI) are one phase. */
#define SMP_MIN_SEP 0.08
/* Progress reports at most this often (seconds). */
#define SMP_PROGRESS_EVERY 0.2
/* Above this fraction of the kernel's instructions in detail, simulating
 * the whole kernel in detail costs no more and is exact. */
#define SMP_FULL_FRACTION 0.5
/* Share of the interval model's composition gap (regions alone against the
 * whole run) taken as the non-sampling allowance of the interval.  The
 * whole gap: the detailed model may react to running regions alone up to
 * twice as strongly as the interval model, or not at all (vadd_ffma
 * 8192 x 256 on the H100 SXM: interval gap 6.3%, detailed about 9.5%,
 * error -3.36%; half the gap, 3.2%, missed it; docs/sampler.md). */
#define SMP_GAP_SHARE 1.0
/* Fewest regions of a stratum in a pilot sample (smp_plan.pilot_ci): with
 * two, a t quantile of one degree of freedom (12.7) leaves only regions
 * that agree exactly. */
#define SMP_PILOT_MIN 3

typedef struct loop {
    const smp_engine *e;
    const smp_plan *p;
    smp_kernel_result *r;
    size_t N; /* regions of the kernel now: the engine may change its layout
                 (aux, whole), so e->nregions is only the first guess and
                 every per-region array is sized by this */
    double t0, last_report;
} loop;

static void report(loop *L, const char *phase, size_t done, size_t total,
                   double est, int force)
{
    if (!L->p->progress)
        return;
    double now = wc_now();
    if (!force && now - L->last_report < SMP_PROGRESS_EVERY)
        return;
    L->last_report = now;
    smp_progress pr = {L->p->kernel, phase, done, total, est, now - L->t0};
    L->p->progress(L->p->progress_ctx, &pr);
}

/* One engine call, with its host cost booked to model m. */
void smp_host_cost_add(smp_host_cost *dst, const smp_host_cost *src)
{
    dst->seconds += src->seconds;
    dst->cycles += src->cycles;
    dst->have_cycles = src->have_cycles;
    dst->warp_insts += src->warp_insts;
    dst->runs += src->runs;
}

/* Model m on region `region` (< 0: the whole kernel), timed with clock c
 * and booked in h. */
static int timed(loop *L, smp_clock *c, int m, long region, smp_eval *ev,
                 smp_host_cost *h, wc_diag *d)
{
    double s0, c0, s1, c1;
    smp_clock_read(c, &s0, &c0);
    memset(ev, 0, sizeof *ev);
    int rc = region < 0 ? L->e->whole(L->e->ctx, m, ev, d)
                        : L->e->region(L->e->ctx, m, (size_t)region, ev, d);
    smp_clock_read(c, &s1, &c1);
    h->seconds += s1 - s0;
    h->cycles += c1 - c0;
    h->have_cycles = smp_clock_has_cycles(c);
    h->warp_insts += ev->warp_insts;
    h->runs++;
    return rc;
}

/* One engine call on this thread, booked to the result. */
static int call(loop *L, int m, long region, smp_eval *ev, wc_diag *d)
{
    return timed(L, L->p->clock, m, region, ev, &L->r->host[m], d);
}

static int run_full(loop *L, wc_diag *d)
{
    smp_eval ev;
    int rc = call(L, SMP_DETAILED, -1, &ev, d);
    if (rc)
        return rc;
    smp_kernel_result *r = L->r;
    r->how = SMP_HOW_FULL;
    r->estimate = ev.cycles;
    r->has_ci = 1;
    r->ci95[0] = r->ci95[1] = ev.cycles;
    r->detailed_warp_insts = ev.warp_insts;
    r->sampled = r->regions;
    if (ev.warp_insts)
        r->warp_insts = ev.warp_insts;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Region runs on several threads (smp_plan.jobs)                           */
/* ------------------------------------------------------------------------ */

/* One region's model runs: the interval model, then the detailed one, as
 * the bits of `models` ask. */
typedef struct rtask {
    size_t region;
    int models;                       /* bit m: run model m                  */
    smp_eval ev[SMP_NMODELS];
    smp_host_cost host[SMP_NMODELS];
    int rc;
    wc_diag d;
} rtask;

/* Called under the batch lock as each task completes (progress). */
typedef void (*rtask_done_fn)(loop *L, const rtask *t, void *ctx);

typedef struct rbatch {
    loop *L;
    rtask *t;
    size_t n, next;
    int failed;
    rtask_done_fn done;
    void *done_ctx;
    pthread_mutex_t mu;
} rbatch;

/* Run task t with clock c, its host cost booked in the task. */
static void rtask_run(loop *L, smp_clock *c, rtask *t)
{
    for (int m = 0; m < SMP_NMODELS && t->rc == 0; m++)
        if (t->models >> m & 1)
            t->rc = timed(L, c, m, (long)t->region, &t->ev[m], &t->host[m],
                          &t->d);
}

/* Take tasks in order until none is left (or one failed). */
static void rbatch_work(rbatch *B, smp_clock *c)
{
    for (;;) {
        pthread_mutex_lock(&B->mu);
        if (B->failed || B->next >= B->n) {
            pthread_mutex_unlock(&B->mu);
            return;
        }
        rtask *t = &B->t[B->next++];
        pthread_mutex_unlock(&B->mu);
        rtask_run(B->L, c, t);
        pthread_mutex_lock(&B->mu);
        if (t->rc)
            B->failed = 1;
        else if (B->done)
            B->done(B->L, t, B->done_ctx);
        pthread_mutex_unlock(&B->mu);
    }
}

static void *rbatch_thread(void *arg)
{
    rbatch *B = arg;
    /* this thread's own clock: thread CPU time and counters are per thread */
    smp_clock *c = smp_clock_create(B->L->p->want_cycles);
    rbatch_work(B, c);
    smp_clock_free(c);
    return NULL;
}

/*
 * The tasks on up to plan.jobs threads (this one included), taken in
 * order; their host costs are added to the result in task order.  The
 * first failed task in order gives the error: tasks are handed out in
 * order, so every task before it ran, as they would one after another.
 */
static int run_tasks(loop *L, rtask *t, size_t n, rtask_done_fn done,
                     void *done_ctx, wc_diag *d)
{
    rbatch B = {L, t, n, 0, 0, done, done_ctx, PTHREAD_MUTEX_INITIALIZER};
    size_t nth = L->p->jobs > 1 ? (size_t)L->p->jobs : 1;
    if (nth > n)
        nth = n;
    pthread_t *th = nth > 1 ? calloc(nth - 1, sizeof *th) : NULL;
    size_t started = 0;
    for (size_t i = 0; th && i + 1 < nth; i++) {
        if (pthread_create(&th[i], NULL, rbatch_thread, &B) != 0)
            break; /* fewer threads: the work is the same */
        started++;
    }
    rbatch_work(&B, L->p->clock);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&B.mu);
    for (size_t i = 0; i < n; i++) {
        if (t[i].rc) {
            *d = t[i].d;
            return t[i].rc;
        }
        for (int m = 0; m < SMP_NMODELS; m++)
            if (t[i].host[m].runs)
                smp_host_cost_add(&L->r->host[m], &t[i].host[m]);
    }
    return 0;
}

/* run_sample's progress: the estimate over the regions done so far. */
typedef struct sample_prog {
    double sx, sy;
    size_t *ndone, ntotal;
} sample_prog;

static void sample_done(loop *L, const rtask *t, void *ctx)
{
    sample_prog *s = ctx;
    s->sx += t->ev[SMP_INTERVAL].cycles;
    s->sy += t->ev[SMP_DETAILED].cycles;
    ++*s->ndone;
    report(L, "detailed", *s->ndone, s->ntotal,
           s->sx > 0 ? L->r->interval_cycles * s->sy / s->sx : 0, 0);
}

/* Both models on every sampled region not yet run. */
static int run_sample(loop *L, const unsigned char *sampled, unsigned char *done,
                      double *x, double *y, size_t ntotal, size_t *ndone,
                      wc_diag *d)
{
    size_t N = L->N, n = 0;
    sample_prog sp = {0, 0, ndone, ntotal};
    for (size_t i = 0; i < N; i++) {
        if (done[i]) {
            sp.sx += x[i];
            sp.sy += y[i];
        } else if (sampled[i]) {
            n++;
        }
    }
    if (n == 0)
        return 0;
    rtask *t = calloc(n, sizeof *t);
    if (!t)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    for (size_t i = 0, j = 0; i < N; i++)
        if (sampled[i] && !done[i]) {
            t[j].region = i;
            t[j++].models = 1 << SMP_INTERVAL | 1 << SMP_DETAILED;
        }
    int rc = run_tasks(L, t, n, sample_done, &sp, d);
    for (size_t j = 0; rc == 0 && j < n; j++) {
        size_t i = t[j].region;
        x[i] = t[j].ev[SMP_INTERVAL].cycles;
        y[i] = t[j].ev[SMP_DETAILED].cycles;
        done[i] = 1;
        L->r->detailed_warp_insts += t[j].ev[SMP_DETAILED].warp_insts;
    }
    free(t);
    return rc;
}

static size_t count_set(const unsigned char *a, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += a[i] != 0;
    return c;
}

static uint64_t insts_of(const unsigned char *a, const uint64_t *ins,
                         size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i])
            s += ins[i];
    return s;
}

/* Budget mode: the power-of-two period whose sample fits the time left.
 * `sampled` holds the pilot (coarsest) sample, already run; cost is the
 * detailed model's seconds per warp instruction. */
static long budget_period(loop *L, const int *strat, int ns,
                          const unsigned char *sampled, const uint64_t *ins,
                          double cost, unsigned char *tmp)
{
    size_t N = L->N;
    double left = L->p->budget_s - (wc_now() - L->t0);
    uint64_t have = insts_of(sampled, ins, N);
    long best = LONG_MAX;
    /* Halve from the coarsest period while the extra work fits. */
    for (long K = 1; K <= (long)N; K *= 2) {
        memcpy(tmp, sampled, N);
        smp_select(N, strat, ns, K, 1, L->p->seed, tmp);
        double extra = (double)(insts_of(tmp, ins, N) - have) * cost;
        if (extra <= left) {
            best = K;
            break;
        }
    }
    return best;
}

/* CTA granularity (smp_engine.grain): one CTA's mean detailed time on an
 * SM, in cycles, from the n regions run in detail (y), or 0. */
static double grain_cycles(const loop *L, const double *y,
                           const unsigned char *done, size_t n)
{
    if (!L->e->grain)
        return 0;
    double share = L->e->grain(L->e->ctx), sy = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!done || done[i]) {
            sy += y[i];
            k++;
        }
    return share > 0 && k ? share * sy / (double)k : 0;
}

/* Widen the interval of r upwards by c cycles (CTA granularity).  The
 * effect is one-sided: the full run ends with its slowest SM, which the
 * detailed model's timing-sensitive dispatch may give one CTA more than
 * the even share the interval model's whole run and the regions assume,
 * never one less than the largest even share; so the upper bound moves by
 * c and the lower bound stays.  (Until stop 23 both moved, in quadrature:
 * `warpcast synth --kind compute --ctas 4096 --threads 128 --iters 16`,
 * h100-pcie, was -3.38% with [23735, 25095] against the detailed 25270,
 * 1.26 CTAs' time on an SM short; docs/sampler.md "CTA granularity".) */
static void widen(smp_kernel_result *r, double c)
{
    r->grain = r->estimate > 0 ? c / r->estimate : 0;
    if (!r->has_ci || c <= 0)
        return;
    r->ci95[1] += c;
}

/* The stratified ratio over the regions done, into est. */
static int ratio_over(loop *L, size_t N, const unsigned char *done,
                      const double *x, const double *y, const int *strat,
                      int ns, const double *z, double fixed, double bias,
                      smp_estimate_out *est, wc_diag *d)
{
    size_t n = count_set(done, N), j = 0;
    size_t nsz = (size_t)ns;
    double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys);
    double *Nh = calloc(nsz, sizeof *Nh), *Wh = calloc(nsz, sizeof *Wh);
    int *st = malloc(n * sizeof *st);
    int rc;
    if (!xs || !ys || !Nh || !Wh || !st) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    double Z = 0;
    for (size_t i = 0; i < N; i++) {
        Nh[strat[i]] += 1;
        Wh[strat[i]] += z[i];
        Z += z[i];
        if (done[i]) {
            xs[j] = x[i];
            ys[j] = y[i];
            st[j++] = strat[i];
        }
    }
    for (size_t h = 0; h < nsz; h++)
        Wh[h] = Z > 0 ? Wh[h] / Z : Nh[h] / (double)N;
    rc = smp_stats_ratio(n, xs, ys, st, ns, Nh, Wh, fixed,
                         L->r->interval_cycles - fixed, bias, est, d);
out:
    free(xs);
    free(ys);
    free(Nh);
    free(Wh);
    free(st);
    return rc;
}

/* The stratified ratio over the regions done, into the result. */
static int finish_estimate(loop *L, size_t N, const unsigned char *done,
                           const double *x, const double *y, const int *strat,
                           int ns, const double *z, double fixed, double bias,
                           wc_diag *d)
{
    smp_estimate_out est;
    smp_kernel_result *r = L->r;
    int rc = ratio_over(L, N, done, x, y, strat, ns, z, fixed, bias, &est, d);
    if (rc == 0) {
        r->sampled = count_set(done, N);
        r->estimate = est.total;
        r->has_ci = est.has_ci;
        r->ci95[0] = est.ci95[0];
        r->ci95[1] = est.ci95[1];
        r->how = est.how;
        r->df = est.df;
    }
    return rc;
}

/* Sampled regions of stratum h. */
static size_t sampled_in(size_t N, const int *strat, int h,
                         const unsigned char *sampled)
{
    size_t nh = 0;
    for (size_t i = 0; i < N; i++)
        nh += strat[i] == h && sampled[i];
    return nh;
}

/* The pilot of a sample: in each stratum, every other sampled region
 * (the first, third, ...).  A stratum that would keep fewer than
 * SMP_PILOT_MIN that way gives its first region alone when two or more
 * strata are in that case (their variance then comes from collapsing them,
 * smp_stats_ratio), else all of its regions.  Into pilot; 1 when it is
 * smaller than the sample. */
static int pilot_of(size_t N, const int *strat, int ns,
                    const unsigned char *sampled, unsigned char *pilot)
{
    int smaller = 0, few = 0;
    memset(pilot, 0, N);
    for (int h = 0; h < ns; h++) {
        size_t nh = sampled_in(N, strat, h, sampled);
        few += nh >= 2 && (nh + 1) / 2 < SMP_PILOT_MIN;
    }
    for (int h = 0; h < ns; h++) {
        size_t nh = sampled_in(N, strat, h, sampled);
        int halve = (nh + 1) / 2 >= SMP_PILOT_MIN;
        int one = !halve && nh >= 2 && few >= 2;
        size_t j = 0;
        for (size_t i = 0; i < N; i++)
            if (strat[i] == h && sampled[i]) {
                pilot[i] = one ? j == 0 : !halve || j % 2 == 0;
                smaller |= !pilot[i];
                j++;
            }
    }
    return smaller;
}

/* 1 when the pilot's sampling error (no bias allowance) is within
 * plan->pilot_ci of its estimate, else 0.  A pilot the statistics reject
 * (a stratum whose pilot regions have no usable sample, or no memory for
 * them) is not precise: the whole sample decides, as without a pilot, and
 * reports its own errors. */
static int pilot_precise(loop *L, size_t N, const unsigned char *done,
                         const double *x, const double *y, const int *strat,
                         int ns, const double *z, double fixed)
{
    smp_estimate_out est;
    wc_diag d;
    int rc = ratio_over(L, N, done, x, y, strat, ns, z, fixed, 0, &est, &d);
    return rc == 0 && est.has_ci && est.total > 0 &&
           0.5 * (est.ci95[1] - est.ci95[0]) <= L->p->pilot_ci * est.total;
}

/* two_phase's progress: the composed interval estimate over phase 1 so
 * far, then the corrected one over phase 2. */
typedef struct phase1_prog {
    double sx, sa;
    size_t k, n;
    const uint64_t *ains;
    double fixed, scale; /* scale: compose x A */
} phase1_prog;

static void phase1_done(loop *L, const rtask *t, void *ctx)
{
    phase1_prog *s = ctx;
    s->sx += t->ev[SMP_INTERVAL].cycles;
    s->sa += (double)s->ains[t->region];
    report(L, "interval", ++s->k, s->n,
           s->sa > 0 ? s->fixed + s->scale * s->sx / s->sa : 0, 0);
}

typedef struct phase2_prog {
    double sx, sy;
    size_t k, n;
    const double *x;    /* interval cycles of each phase-1 region */
    const rtask *t0;    /* the first task (index of a task: t - t0) */
    double interval;
    size_t *tj;         /* task -> phase-1 index */
} phase2_prog;

static void phase2_done(loop *L, const rtask *t, void *ctx)
{
    phase2_prog *s = ctx;
    s->sx += s->x[s->tj[t - s->t0]];
    s->sy += t->ev[SMP_DETAILED].cycles;
    report(L, "detailed", ++s->k, s->n,
           s->sx > 0 ? s->interval * s->sy / s->sx : 0, 0);
}

/* The detailed model on the phase-1 regions j (of n1, region idx[j])
 * marked in want and not done yet (tasks t, room for n1): yd[j] its
 * cycles, done[j] set. */
static int phase2_run(loop *L, rtask *t, const size_t *idx,
                      const unsigned char *want, unsigned char *done,
                      double *yd, size_t n1, phase2_prog *p2, wc_diag *d)
{
    size_t nt = 0;
    memset(t, 0, n1 * sizeof *t);
    for (size_t j = 0; j < n1; j++)
        if (want[j] && !done[j]) {
            t[nt].region = idx[j];
            t[nt].models = 1 << SMP_DETAILED;
            p2->tj[nt++] = j;
        }
    p2->t0 = t;
    int rc = run_tasks(L, t, nt, phase2_done, p2, d);
    if (rc)
        return rc;
    for (size_t i = 0; i < nt; i++) {
        size_t j = p2->tj[i];
        yd[j] = t[i].ev[SMP_DETAILED].cycles;
        done[j] = 1;
        L->r->detailed_warp_insts += t[i].ev[SMP_DETAILED].warp_insts;
    }
    return 0;
}

/* The phase-2 sample sel in phase-1 order: x2, y2, st2; returns its size. */
static size_t phase2_take(const unsigned char *sel, const double *x,
                          const double *yd, const int *strat, size_t n1,
                          double *x2, double *y2, int *st2)
{
    size_t n = 0;
    for (size_t j = 0; j < n1; j++)
        if (sel[j]) {
            x2[n] = x[j];
            y2[n] = yd[j];
            st2[n++] = strat[j];
        }
    return n;
}

/*
 * Two-phase sampling (long kernels): phase 1 runs the interval model on a
 * systematic sample of n1 of the N regions (period N / phase1, random
 * start); their interval cycles per instruction stratify them; phase 2
 * runs the detailed model on a systematic sample of the phase-1 regions
 * within each stratum.  The warp instructions of every region (a cheap
 * scan) are the auxiliary variable that carries phase 1 to the whole
 * kernel, so the unsampled bulk of the trace is never decoded.
 */
static int two_phase(loop *L, size_t N, const uint64_t *ains, double A,
                     double fixed, double compose, int standin, wc_diag *d)
{
    const smp_plan *p = L->p;
    smp_kernel_result *r = L->r;
    size_t m = p->phase1 > 0 ? N / p->phase1 : 1;
    /* stand-ins (aux's *two = 2): phase 2 takes what one-phase sampling
     * would, a systematic sample of period smp_period (at least
     * SMP_STANDIN_PHASE2), and phase 1 SMP_STANDIN_PHASE1 times that */
    size_t n2s = 0;
    if (standin) {
        size_t per = p->period > 0 ? (size_t)p->period : 1;
        n2s = (N + per - 1) / per;
        if (n2s < SMP_STANDIN_PHASE2)
            n2s = SMP_STANDIN_PHASE2;
        m = N / (SMP_STANDIN_PHASE1 * n2s);
    }
    if (m < 1)
        m = 1;
    wc_rng rng;
    wc_rng_seed(&rng, p->seed ^ 0x7068617365310000ull); /* "phase1" */
    size_t start = (size_t)(wc_rng_uniform(&rng) * (double)m);
    size_t n1 = (N - start + m - 1) / m;
    size_t *idx = malloc(n1 * sizeof *idx);
    double *x = malloc(n1 * sizeof *x), *a = malloc(n1 * sizeof *a);
    double (*sig)[SMP_SIG_DIM] = calloc(n1, sizeof *sig);
    int *strat = calloc(n1, sizeof *strat);
    unsigned char *sampled = calloc(n1, 1);
    double *x2 = malloc(n1 * sizeof *x2), *y2 = malloc(n1 * sizeof *y2);
    int *st2 = malloc(n1 * sizeof *st2);
    int rc = 0, ns = 1;
    double *Nh = NULL, *Wh = NULL, *yd = NULL;
    unsigned char *done = NULL, *pil = NULL;
    size_t *tj = calloc(n1 ? n1 : 1, sizeof *tj);
    rtask *t = NULL;
    if (!idx || !x || !a || !sig || !strat || !sampled || !x2 || !y2 ||
        !st2 || !tj) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    double sx = 0, sa = 0;
    if (!(t = calloc(n1, sizeof *t))) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < n1; j++) {
        idx[j] = start + j * m;
        t[j].region = idx[j];
        t[j].models = 1 << SMP_INTERVAL;
    }
    phase1_prog p1 = {0, 0, 0, n1, ains, fixed, compose * A};
    if ((rc = run_tasks(L, t, n1, phase1_done, &p1, d)))
        goto out;
    for (size_t j = 0; j < n1; j++) {
        x[j] = t[j].ev[SMP_INTERVAL].cycles;
        a[j] = (double)ains[idx[j]];
        sx += x[j];
        sa += a[j];
        /* Signature as in one-phase mode: log CPI, log work. */
        if (a[j] > 0 && x[j] > 0)
            sig[j][0] = log(x[j] / a[j]);
        if (a[j] > 0)
            sig[j][1] = log(a[j]);
    }
    r->interval_cycles = sa > 0 ? fixed + compose * A * sx / sa : 0;
    r->interval_composed = r->interval_cycles;
    long k = standin ? (long)(n1 / n2s)
                     : p->phase2 > 0 ? (long)(n1 / p->phase2) : 1;
    if (k < 1)
        k = 1;
    /* Strata of at least four phase-2 regions: a stratum's variance from two
     * or three residuals is too unstable for the t interval. */
    size_t min_size = 4 * (size_t)k < 8 ? 8 : 4 * (size_t)k;
    if (p->stratify)
        ns = smp_stratify(n1, (const double (*)[SMP_SIG_DIM])sig,
                          p->max_strata, SMP_MIN_SEP, min_size, strat);
    r->strata = (size_t)ns;
    smp_select(n1, strat, ns, k, 0, p->seed, sampled);
    Nh = calloc((size_t)ns, sizeof *Nh);
    Wh = calloc((size_t)ns, sizeof *Wh);
    yd = calloc(n1, sizeof *yd);
    done = calloc(n1, 1);
    pil = calloc(n1, 1);
    if (!Nh || !Wh || !yd || !done || !pil) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < n1; j++) {
        Nh[strat[j]] += 1;
        Wh[strat[j]] += sx > 0 ? x[j] / sx : 1.0 / (double)n1;
    }
    /* Phase 2 with a pilot first, as in one-phase mode (smp_estimate):
     * half of each stratum's phase-2 regions; when the ratio rho from them
     * alone has a 95% half-width within pilot_ci of it, they are the
     * sample (more phase-2 regions would only sharpen rho; phase 1's share
     * of the interval is not theirs to narrow), else the rest runs and the
     * result is the whole sample's, bit for bit (one draw, the same
     * order). */
    phase2_prog p2 = {0, 0, 0, count_set(sampled, n1), x, NULL,
                      r->interval_cycles, tj};
    smp_estimate_out e2, est;
    if (p->pilot_ci > 0 && pilot_of(n1, strat, ns, sampled, pil)) {
        if ((rc = phase2_run(L, t, idx, pil, done, yd, n1, &p2, d)))
            goto out;
        size_t n2 = phase2_take(pil, x, yd, strat, n1, x2, y2, st2);
        smp_estimate_out ep;
        wc_diag dq;
        if (smp_stats_ratio(n2, x2, y2, st2, ns, Nh, Wh, 0, 1, 0, &ep,
                            &dq) == 0 &&
            ep.has_ci && ep.total > 0 &&
            0.5 * (ep.ci95[1] - ep.ci95[0]) <= p->pilot_ci * ep.total) {
            memcpy(sampled, pil, n1);
            r->pilot = 1;
        }
    }
    if ((rc = phase2_run(L, t, idx, sampled, done, yd, n1, &p2, d)))
        goto out;
    size_t n2 = phase2_take(sampled, x, yd, strat, n1, x2, y2, st2);
    if ((rc = smp_stats_ratio(n2, x2, y2, st2, ns, Nh, Wh, 0, 1, 0, &e2, d)))
        goto out;
    smp_stats_two_phase(N, A, n1, x, a, &e2, fixed, compose, p->bias, &est);
    r->phase1 = n1;
    r->sampled = n2;
    r->period = (long)(m * (size_t)k);
    r->estimate = est.total;
    r->has_ci = est.has_ci;
    r->ci95[0] = est.ci95[0];
    r->ci95[1] = est.ci95[1];
    r->how = est.how;
    r->df = est.df;
    widen(r, grain_cycles(L, y2, NULL, n2));
out:
    free(t);
    free(idx);
    free(x);
    free(a);
    free(sig);
    free(strat);
    free(sampled);
    free(x2);
    free(y2);
    free(st2);
    free(Nh);
    free(Wh);
    free(yd);
    free(done);
    free(pil);
    free(tj);
    return rc;
}

int smp_estimate(const smp_engine *e, const smp_plan *p, smp_kernel_result *r,
                 wc_diag *d)
{
    loop L = {e, p, r, e->nregions, wc_now(), 0};
    size_t N = e->nregions;
    double *x = NULL, *y = NULL, *z = NULL;
    double (*sig)[SMP_SIG_DIM] = NULL;
    uint64_t *ins = NULL;
    int *strat = NULL;
    unsigned char *sampled = NULL, *done = NULL, *tmp = NULL;
    int rc;

    memset(r->host, 0, sizeof r->host);
    r->host_tests_pre = r->host_tests_post = 0;
    r->sampled = r->strata = 0;
    r->regions = N;
    r->period = p->period;
    r->detailed_warp_insts = 0;
    r->df = 0;
    r->how = SMP_HOW_SAMPLED;
    r->phase1 = 0;
    r->interval_composed = 0;
    r->grain = 0;
    r->pilot = 0;

    smp_eval ev;
    report(&L, "interval", 0, 1, 0, 1);
    if (e->aux && p->budget_s <= 0) {
        /* The per-region instruction counts come from the trace's CTA index
         * (no decoding): long kernels go to two-phase sampling, small ones
         * straight to the detailed model without the interval pass. */
        size_t na = 0;
        const uint64_t *ains = NULL;
        double fx = 0, comp = 1, A = 0;
        int two = 0;
        double a0, a1, c0, c1;
        smp_clock_read(p->clock, &a0, &c0);
        rc = e->aux(e->ctx, &na, &ains, &fx, &comp, &two, d);
        smp_clock_read(p->clock, &a1, &c1);
        r->host_tests_pre += a1 - a0;
        if (rc)
            goto out;
        N = L.N = na;
        r->regions = N;
        for (size_t i = 0; i < na; i++)
            A += (double)ains[i];
        if ((two == 2 && na >= SMP_STANDIN_TWO_PHASE_MIN) ||
            ((two == 1 || (p->two_phase_insts > 0 &&
                           A >= (double)p->two_phase_insts)) &&
             na >= 8 && p->phase1 >= 4 && na >= 2 * p->phase1)) {
            N = L.N = na;
            r->regions = N;
            r->warp_insts = (uint64_t)A;
            if ((rc = two_phase(&L, N, ains, A, fx, comp, two == 2, d)))
                goto out;
            goto finish;
        }
        /* Small, or so few regions that the sample (at least two) would
         * hold half the kernel (a kernel that cannot be sliced, with too
         * few waves for regions on all SMs): exact, and without the
         * interval pass that would not be used. */
        if (A < (double)p->small_kernel_insts ||
            2.0 / (double)na >= SMP_FULL_FRACTION) {
            N = L.N = na;
            r->regions = N;
            r->warp_insts = (uint64_t)A;
            if ((rc = run_full(&L, d)))
                goto out;
            goto finish;
        }
    }
    if ((rc = call(&L, SMP_INTERVAL, -1, &ev, d)))
        goto out;
    r->host_tests_post += ev.test_seconds;
    r->interval_cycles = ev.cycles;
    r->warp_insts = ev.warp_insts;
    if (ev.nregions) {
        N = L.N = ev.nregions;
        r->regions = N;
    }
    double compose = ev.compose;
    double fixed = ev.fixed < ev.cycles ? ev.fixed : 0;

    if (N < 4 || ev.warp_insts < p->small_kernel_insts) {
        if ((rc = run_full(&L, d)))
            goto out;
        goto finish;
    }

    x = calloc(N, sizeof *x);
    y = calloc(N, sizeof *y);
    z = calloc(N, sizeof *z);
    sig = calloc(N, sizeof *sig);
    ins = calloc(N, sizeof *ins);
    strat = calloc(N, sizeof *strat);
    sampled = calloc(N, 1);
    done = calloc(N, 1);
    tmp = calloc(N, 1);
    if (!x || !y || !z || !sig || !ins || !strat || !sampled || !done ||
        !tmp) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < N; i++) {
        memset(&ev, 0, sizeof ev);
        if ((rc = e->proxy(e->ctx, i, &ev, d)))
            goto out;
        z[i] = ev.cycles;
        ins[i] = ev.warp_insts;
        memcpy(sig[i], ev.sig, sizeof sig[i]);
    }

    int budget = p->budget_s > 0;
    long period = p->period > 0 ? p->period : 1;
    size_t min_size = budget ? N / 32 : (size_t)period;
    if (min_size < 4)
        min_size = 4;
    int ns = p->stratify ? smp_stratify(N, (const double (*)[SMP_SIG_DIM])sig,
                                        p->max_strata, SMP_MIN_SEP, min_size,
                                        strat)
                         : 1;
    r->strata = (size_t)ns;

    size_t ndone = 0;
    if (budget) {
        /* Pilot: the coarsest sample (two to four regions per stratum),
         * unless the detailed model's cost is known from earlier kernels. */
        smp_select(N, strat, ns, LONG_MAX, 1, p->seed, sampled);
        double cost = p->dm_cost_per_inst;
        if (cost <= 0) {
            if ((rc = run_sample(&L, sampled, done, x, y, count_set(sampled, N),
                                 &ndone, d)))
                goto out;
            const smp_host_cost *h = &r->host[SMP_DETAILED];
            const smp_host_cost *hi = &r->host[SMP_INTERVAL];
            /* Both models run on each sampled region: cost per region
             * instruction of the pair (the whole-kernel interval run is
             * already paid). */
            double sec = h->seconds + hi->seconds * (double)(hi->runs - 1) /
                                          (double)hi->runs;
            cost = h->warp_insts ? sec / (double)h->warp_insts : 0;
        }
        period = budget_period(&L, strat, ns, sampled, ins, cost, tmp);
        if (period != LONG_MAX)
            smp_select(N, strat, ns, period, 1, p->seed, sampled);
        r->period = period == LONG_MAX ? (long)N : period;
    } else {
        smp_select(N, strat, ns, period, 0, p->seed, sampled);
    }
    size_t n = count_set(sampled, N);
    if (ndone == 0 && (double)insts_of(sampled, ins, N) >=
                          SMP_FULL_FRACTION * (double)r->warp_insts) {
        if ((rc = run_full(&L, d)))
            goto out;
        goto finish;
    }
    /* The pilot first: a kernel whose regions agree (the ratio of the two
     * models the same in each) is known as well from half of them; the
     * rest of the sample only where the pilot's interval is wide.  Both
     * come from one draw, so a kernel that needs the whole sample gets the
     * same regions, and the same answer, as without a pilot. */
    if (!budget && p->pilot_ci > 0 && pilot_of(N, strat, ns, sampled, tmp)) {
        if ((rc = run_sample(&L, tmp, done, x, y, n, &ndone, d)))
            goto out;
        if (pilot_precise(&L, N, done, x, y, strat, ns, z, fixed)) {
            memcpy(sampled, tmp, N);
            r->pilot = 1;
        }
    }
    if ((rc = run_sample(&L, sampled, done, x, y, n, &ndone, d)))
        goto out;
    double bias = p->bias;
    if (compose > 0) {
        double sx = 0, si = 0, st = 0;
        for (size_t i = 0; i < N; i++) {
            st += (double)ins[i];
            if (done[i]) {
                sx += x[i];
                si += (double)ins[i];
            }
        }
        r->interval_composed = si > 0 ? fixed + compose * st * sx / si : 0;
        /* The regions alone differ from the full run by this much in the
         * interval model; allow SMP_GAP_SHARE of it for the detailed model
         * reacting otherwise to the same change (docs/sampler.md). */
        if (r->interval_composed > 0 && r->interval_cycles > 0) {
            double gap = fabs(r->interval_composed / r->interval_cycles - 1);
            if (SMP_GAP_SHARE * gap > bias)
                bias = SMP_GAP_SHARE * gap;
        }
    }
    if ((rc = finish_estimate(&L, N, done, x, y, strat, ns, z, fixed, bias,
                              d)))
        goto out;
    widen(r, grain_cycles(&L, y, done, N));

finish:
    r->cycles = r->estimate > 0 ? (uint64_t)llround(r->estimate) : 0;
    r->ratio = r->interval_cycles > 0 ? r->estimate / r->interval_cycles : 0;
    r->ipc = r->cycles ? (double)r->warp_insts / (double)r->cycles : 0;
    r->host_seconds = wc_now() - L.t0;
    report(&L, "done", N, N, r->estimate, 1);
    rc = 0;
out:
    free(x);
    free(y);
    free(z);
    free(sig);
    free(ins);
    free(strat);
    free(sampled);
    free(done);
    free(tmp);
    return rc;
}
