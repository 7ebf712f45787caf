/*
 * sampler/engine.c - the sampling loop over an abstract pair of models.
 *
 *   interval(whole) ─► I, warp insts ──small──► detailed(whole): exact
 *        │
 *   interval(region r) for every r ─► x_r, signature_r
 *        │
 *   strata ─► systematic sample (period, or budget: pilot then halving)
 *        │
 *   detailed(region r) for sampled r ─► y_r
 *        │
 *   smp_stats_ratio(x, y, strata, scale = I / sum x) ─► estimate, CI
 *
 * Everything here depends only on the engine's answers and the seed, so the
 * same seed gives the same estimate byte for byte; only budget mode looks at
 * the host clock (to choose the period).
 */
#include <limits.h>
#include <math.h>
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

typedef struct loop {
    const smp_engine *e;
    const smp_plan *p;
    smp_kernel_result *r;
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
static int call(loop *L, int m, long region, smp_eval *ev, wc_diag *d)
{
    double s0, c0, s1, c1;
    smp_clock_read(L->p->clock, &s0, &c0);
    memset(ev, 0, sizeof *ev);
    int rc = region < 0 ? L->e->whole(L->e->ctx, m, ev, d)
                        : L->e->region(L->e->ctx, m, (size_t)region, ev, d);
    smp_clock_read(L->p->clock, &s1, &c1);
    smp_host_cost *h = &L->r->host[m];
    h->seconds += s1 - s0;
    h->cycles += c1 - c0;
    h->have_cycles = smp_clock_has_cycles(L->p->clock);
    h->warp_insts += ev->warp_insts;
    h->runs++;
    return rc;
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

/* Detailed model on every sampled region not yet run. */
static int run_sample(loop *L, const unsigned char *sampled, unsigned char *done,
                      const double *x, double *y, size_t ntotal,
                      size_t *ndone, wc_diag *d)
{
    size_t N = L->e->nregions;
    double sx = 0, sy = 0;
    for (size_t i = 0; i < N; i++)
        if (done[i]) {
            sx += x[i];
            sy += y[i];
        }
    for (size_t i = 0; i < N; i++) {
        if (!sampled[i] || done[i])
            continue;
        smp_eval ev;
        int rc = call(L, SMP_DETAILED, (long)i, &ev, d);
        if (rc)
            return rc;
        y[i] = ev.cycles;
        done[i] = 1;
        L->r->detailed_warp_insts += ev.warp_insts;
        sx += x[i];
        sy += y[i];
        ++*ndone;
        report(L, "detailed", *ndone, ntotal,
               sx > 0 ? L->r->interval_cycles * sy / sx : 0, 0);
    }
    return 0;
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
    size_t N = L->e->nregions;
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

int smp_estimate(const smp_engine *e, const smp_plan *p, smp_kernel_result *r,
                 wc_diag *d)
{
    loop L = {e, p, r, wc_now(), 0};
    size_t N = e->nregions;
    double *x = NULL, *y = NULL;
    double (*sig)[SMP_SIG_DIM] = NULL;
    uint64_t *ins = NULL;
    int *strat = NULL;
    unsigned char *sampled = NULL, *done = NULL, *tmp = NULL;
    int rc;

    memset(r->host, 0, sizeof r->host);
    r->sampled = r->strata = 0;
    r->regions = N;
    r->period = p->period;
    r->detailed_warp_insts = 0;
    r->df = 0;
    r->how = SMP_HOW_SAMPLED;

    smp_eval ev;
    report(&L, "interval", 0, N, 0, 1);
    if ((rc = call(&L, SMP_INTERVAL, -1, &ev, d)))
        goto out;
    r->interval_cycles = ev.cycles;
    r->warp_insts = ev.warp_insts;

    if (N < 4 || ev.warp_insts < p->small_kernel_insts) {
        if ((rc = run_full(&L, d)))
            goto out;
        goto finish;
    }

    x = calloc(N, sizeof *x);
    y = calloc(N, sizeof *y);
    sig = calloc(N, sizeof *sig);
    ins = calloc(N, sizeof *ins);
    strat = calloc(N, sizeof *strat);
    sampled = calloc(N, 1);
    done = calloc(N, 1);
    tmp = calloc(N, 1);
    if (!x || !y || !sig || !ins || !strat || !sampled || !done || !tmp) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    double X = 0;
    for (size_t i = 0; i < N; i++) {
        if ((rc = call(&L, SMP_INTERVAL, (long)i, &ev, d)))
            goto out;
        x[i] = ev.cycles;
        ins[i] = ev.warp_insts;
        memcpy(sig[i], ev.sig, sizeof sig[i]);
        X += x[i];
        report(&L, "interval", i + 1, N, r->interval_cycles, 0);
    }
    if (X <= 0) {
        /* Nothing the ratio could scale: the kernel is empty. */
        if ((rc = run_full(&L, d)))
            goto out;
        goto finish;
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
        /* Pilot: the coarsest sample (two regions per stratum), unless the
         * detailed model's cost is already known from earlier kernels. */
        smp_select(N, strat, ns, LONG_MAX, 1, p->seed, sampled);
        double cost = p->dm_cost_per_inst;
        if (cost <= 0) {
            if ((rc = run_sample(&L, sampled, done, x, y, count_set(sampled, N),
                                 &ndone, d)))
                goto out;
            const smp_host_cost *h = &r->host[SMP_DETAILED];
            cost = h->warp_insts ? h->seconds / (double)h->warp_insts : 0;
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
    if ((rc = run_sample(&L, sampled, done, x, y, n, &ndone, d)))
        goto out;
    r->sampled = n;

    smp_estimate_out est;
    if ((rc = smp_stats_ratio(N, x, y, sampled, strat, ns,
                              r->interval_cycles / X, &est, d)))
        goto out;
    r->estimate = est.total;
    r->has_ci = est.has_ci;
    r->ci95[0] = est.ci95[0];
    r->ci95[1] = est.ci95[1];
    r->how = est.how;
    r->df = est.df;

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
    free(sig);
    free(ins);
    free(strat);
    free(sampled);
    free(done);
    free(tmp);
    return rc;
}
