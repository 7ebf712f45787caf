/*
 * tests/unit/test_sampler.c - the sampler's statistics, selection,
 * stratification and sampling loop on known synthetic populations (no
 * models, no traces).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "check.h"
#include "smp.h"

/* One stratum, hand-computed:
 *   x = 10 10 20 20 30 30 (X = 120), sampled 0 2 4 with y = 12 22 36
 *   R = 70 / 60 = 7/6, Y = 140
 *   e = 1/3, -4/3, 1;  s^2 = (1/9 + 16/9 + 1) / 2 = 13/9
 *   V = 6^2 (1 - 3/6) (13/9) / 3 = 26/3, se = 2.943920
 *   df = 2, t = 4.302653, half width = 12.666667 -> [127.3333, 152.6667] */
static void test_one_stratum(void)
{
    double x[3] = {10, 20, 30}, y[3] = {12, 22, 36};
    int st[3] = {0};
    double Nh[1] = {6}, Wh[1] = {1};
    smp_estimate_out o;
    wc_diag d;
    /* I = 120 = X, no fixed part: the estimate is the total. */
    CHECK_EQ_INT(smp_stats_ratio(3, x, y, st, 1, Nh, Wh, 0, 120, 0, &o, &d),
                 0);
    CHECK_NEAR(o.ratio, 7.0 / 6.0, 1e-12);
    CHECK_NEAR(o.total, 140, 1e-9);
    CHECK_NEAR(o.se, sqrt(26.0 / 3.0), 1e-9);
    CHECK_NEAR(o.df, 2, 1e-12);
    CHECK_EQ_INT(o.has_ci, 1);
    CHECK_EQ_INT(o.how, SMP_HOW_SAMPLED);
    CHECK_NEAR(o.ci95[0], 127.333333, 1e-4);
    CHECK_NEAR(o.ci95[1], 152.666667, 1e-4);
    /* The scale (I - fixed) multiplies estimate and interval, the fixed
     * part (launch overhead) is added. */
    CHECK_EQ_INT(smp_stats_ratio(3, x, y, st, 1, Nh, Wh, 10, 240, 0, &o, &d),
                 0);
    CHECK_NEAR(o.total, 290, 1e-9);
    CHECK_NEAR(o.ci95[0], 264.666667, 2e-4);
    CHECK_NEAR(o.ci95[1], 315.333333, 2e-4);
    /* The bias allowance widens the interval in quadrature:
     * sqrt(12.666667^2 + (0.05 * 140)^2) = 14.472195. */
    CHECK_EQ_INT(smp_stats_ratio(3, x, y, st, 1, Nh, Wh, 0, 120, 0.05, &o,
                                 &d),
                 0);
    CHECK_NEAR(o.ci95[1] - o.total, 14.472195, 1e-4);
}

/* Two strata (weights W_h = X_h / X = 120/140, 20/140; the sample means
 * of x equal the population means, so the numbers are those of the
 * ratio estimator of a total with X known):
 * stratum 0 as above (V0 = 26/3, n0 = 3); stratum 1:
 *   x = 5 5 5 5, sampled 0 1 with y = 6 8: R1 = 1.4, Y1 = 28,
 *   e = -1, 1, s^2 = 2, V1 = 16 (1/2) 2 / 2 = 8
 *   Y = 168, V = 50/3, se = 4.082483
 *   df = V^2 / (V0^2/2 + V1^2/1) = 2.735230, t = 3.36402
 *   half width = 13.7336 -> [154.2664, 181.7336] */
static void test_two_strata(void)
{
    double x[5] = {10, 20, 30, 5, 5}, y[5] = {12, 22, 36, 6, 8};
    int st[5] = {0, 0, 0, 1, 1};
    double Nh[2] = {6, 4}, Wh[2] = {120.0 / 140, 20.0 / 140};
    smp_estimate_out o;
    wc_diag d;
    CHECK_EQ_INT(smp_stats_ratio(5, x, y, st, 2, Nh, Wh, 0, 140, 0, &o, &d),
                 0);
    CHECK_NEAR(o.total, 168, 1e-9);
    CHECK_NEAR(o.se, sqrt(50.0 / 3.0), 1e-9);
    CHECK_NEAR(o.df, 2.7352297593, 1e-8);
    CHECK_NEAR(o.ci95[0], 154.2664, 1e-3);
    CHECK_NEAR(o.ci95[1], 181.7336, 1e-3);
}

/* n < 2 in a stratum that is not a census: estimate but no interval;
 * every stratum a census: degenerate interval. */
static void test_small_and_census(void)
{
    double x[5] = {1, 2, 3, 4, 5};
    double y[5] = {2, 4, 6, 8, 11};
    int st[5] = {0};
    double N5[1] = {5}, W1[1] = {1};
    smp_estimate_out o;
    wc_diag d;
    CHECK_EQ_INT(smp_stats_ratio(1, x, y, st, 1, N5, W1, 0, 15, 0, &o, &d), 0);
    CHECK_NEAR(o.total, 30, 1e-12);
    CHECK_EQ_INT(o.has_ci, 0);
    CHECK_EQ_INT(o.how, SMP_HOW_SMALL_N);

    /* Census: ratio 31/15, no sampling error; only the bias allowance. */
    CHECK_EQ_INT(smp_stats_ratio(5, x, y, st, 1, N5, W1, 0, 15, 0, &o, &d), 0);
    CHECK_NEAR(o.total, 31, 1e-12);
    CHECK_EQ_INT(o.has_ci, 1);
    CHECK_EQ_INT(o.how, SMP_HOW_CENSUS);
    CHECK_NEAR(o.ci95[0], 31, 1e-12);
    CHECK_NEAR(o.ci95[1], 31, 1e-12);
    CHECK_EQ_INT(smp_stats_ratio(5, x, y, st, 1, N5, W1, 0, 15, 0.1, &o, &d),
                 0);
    CHECK_NEAR(o.ci95[0], 27.9, 1e-12);

    /* A stratum with no sample is an error, not a silent zero. */
    double N2[2] = {5, 3}, W2[2] = {0.5, 0.5};
    CHECK(smp_stats_ratio(5, x, y, st, 2, N2, W2, 0, 15, 0, &o, &d) != 0);
}

/* Collapsed strata: three strata of one sampled region each, taken as one
 * group for the variance (Wolter 2.5):
 *   R = 1.2, 1.1, 1.0;  W = 0.25, 0.25, 0.5;  rho = rho_g = 1.075
 *   ss = sum (1 - 1/N_h) W_h^2 (R_h - rho_g)^2 = 0.0019921875
 *   v = 3/2 ss = 0.00298828125, se = 100 sqrt(v) = 5.466517, df = 2,
 *   t = 4.302653 -> [83.97947, 131.02053].
 * One such stratum beside a sampled one: no interval, as before. */
static void test_collapsed(void)
{
    double x[3] = {10, 20, 40}, y[3] = {12, 22, 40};
    int st[3] = {0, 1, 2};
    double Nh[3] = {4, 4, 8}, Wh[3] = {0.25, 0.25, 0.5};
    smp_estimate_out o;
    wc_diag d;
    CHECK_EQ_INT(smp_stats_ratio(3, x, y, st, 3, Nh, Wh, 0, 100, 0, &o, &d),
                 0);
    CHECK_NEAR(o.total, 107.5, 1e-9);
    CHECK_EQ_INT(o.has_ci, 1);
    CHECK_EQ_INT(o.how, SMP_HOW_SAMPLED);
    CHECK_NEAR(o.se, 5.46651740141747, 1e-9);
    CHECK_NEAR(o.df, 2, 1e-12);
    CHECK_NEAR(o.ci95[0], 83.97947398, 1e-6);
    CHECK_NEAR(o.ci95[1], 131.02052602, 1e-6);

    double x2[3] = {10, 20, 30}, y2[3] = {12, 22, 33};
    int st2[3] = {0, 0, 1};
    double N2[2] = {4, 4}, W2[2] = {0.5, 0.5};
    CHECK_EQ_INT(smp_stats_ratio(3, x2, y2, st2, 2, N2, W2, 0, 100, 0, &o, &d),
                 0);
    CHECK_EQ_INT(o.has_ci, 0);
    CHECK_EQ_INT(o.how, SMP_HOW_SMALL_N);
}

static void test_select(void)
{
    enum { N = 100 };
    int st[N] = {0};
    unsigned char a[N], b[N];
    memset(a, 0, N);
    CHECK_EQ_INT(smp_select(N, st, 1, 10, 0, 7, a), 10);
    /* Systematic: every 10th from one start. */
    int first = -1, ok = 1;
    for (int i = 0; i < N; i++)
        if (a[i]) {
            if (first < 0)
                first = i;
            ok &= (i - first) % 10 == 0;
        }
    CHECK(first >= 0 && first < 10);
    CHECK(ok);
    /* Same seed, same sample; some other seed starts elsewhere. */
    memset(b, 0, N);
    smp_select(N, st, 1, 10, 0, 7, b);
    CHECK(memcmp(a, b, N) == 0);
    int differs = 0;
    for (uint64_t seed = 8; seed < 20 && !differs; seed++) {
        memset(b, 0, N);
        smp_select(N, st, 1, 10, 0, seed, b);
        differs = memcmp(a, b, N) != 0;
    }
    CHECK(differs);
    /* Power-of-two mode: halving the period gives a superset. */
    for (uint64_t seed = 1; seed < 30; seed++) {
        unsigned char c16[N], c8[N];
        memset(c16, 0, N);
        memset(c8, 0, N);
        CHECK_EQ_INT(smp_select(N, st, 1, 16, 1, seed, c16) >= 6, 1);
        smp_select(N, st, 1, 8, 1, seed, c8);
        int sup = 1;
        for (int i = 0; i < N; i++)
            sup &= !c16[i] || c8[i];
        CHECK(sup);
    }
    /* A small stratum still gets two (here: all three). */
    int st2[N];
    for (int i = 0; i < N; i++)
        st2[i] = i < 97 ? 0 : 1;
    memset(a, 0, N);
    smp_select(N, st2, 2, 50, 0, 3, a);
    CHECK_EQ_INT(a[97] + a[98] + a[99], 3);
    size_t n0 = 0;
    for (int i = 0; i < 97; i++)
        n0 += a[i];
    CHECK_EQ_INT(n0, 2);
}

static void test_stratify(void)
{
    enum { N = 60 };
    double sig[N][SMP_SIG_DIM];
    int st[N];
    wc_rng rng;
    wc_rng_seed(&rng, 5);
    /* Two phases: memory-heavy (0.7) and compute-heavy (0.1). */
    for (int i = 0; i < N; i++) {
        memset(sig[i], 0, sizeof sig[i]);
        sig[i][0] = (i % 3 == 0 ? 0.7 : 0.1) + 0.01 * wc_rng_uniform(&rng);
        sig[i][1] = 1 - sig[i][0];
    }
    int k = smp_stratify(N, (const double (*)[SMP_SIG_DIM])sig, 4, 0.08, 4,
                         st);
    CHECK_EQ_INT(k, 2);
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= st[i] == (i % 3 == 0 ? 0 : 1);
    CHECK(ok);
    /* One phase with noise: one stratum. */
    for (int i = 0; i < N; i++) {
        sig[i][0] = 0.4 + 0.02 * wc_rng_uniform(&rng);
        sig[i][1] = 0.5;
    }
    CHECK_EQ_INT(smp_stratify(N, (const double (*)[SMP_SIG_DIM])sig, 4,
                              0.08, 4, st),
                 1);
    /* min_size: a phase of 3 regions does not make a stratum of its own. */
    for (int i = 0; i < N; i++)
        sig[i][0] = i < 3 ? 0.9 : 0.1;
    CHECK_EQ_INT(smp_stratify(N, (const double (*)[SMP_SIG_DIM])sig, 4,
                              0.08, 4, st),
                 1);
}

/* ---- the sampling loop on a synthetic population ------------------------ */

typedef struct pop {
    size_t N;
    double *x, *y;    /* interval and "detailed" cycles per region */
    double sigv[2];   /* signature per phase */
    double c;         /* whole kernel = c * sum of regions */
    size_t calls[2];
} pop;

static int pop_region(void *ctx, int m, size_t r, smp_eval *out, wc_diag *d)
{
    (void)d;
    pop *P = ctx;
    P->calls[m]++;
    out->cycles = m == SMP_INTERVAL ? P->x[r] : P->y[r];
    out->warp_insts = 1000;
    return 0;
}

/* The weight is the interval cycles themselves (so W_h = X_h / X). */
static int pop_proxy(void *ctx, size_t r, smp_eval *out, wc_diag *d)
{
    (void)d;
    pop *P = ctx;
    out->cycles = P->x[r];
    out->warp_insts = 1000;
    out->sig[0] = P->sigv[r < P->N / 2 ? 0 : 1];
    return 0;
}

static int pop_whole(void *ctx, int m, smp_eval *out, wc_diag *d)
{
    (void)d;
    pop *P = ctx;
    double s = 0;
    for (size_t i = 0; i < P->N; i++)
        s += m == SMP_INTERVAL ? P->x[i] : P->y[i];
    out->cycles = P->c * s;
    out->warp_insts = 1000 * P->N;
    return 0;
}

/* Two phases: x ~ 100 with y = 1.2 x, x ~ 300 with y = 0.9 x, noise on y. */
static void pop_make(pop *P, size_t N, uint64_t seed)
{
    wc_rng rng;
    wc_rng_seed(&rng, seed);
    P->N = N;
    P->x = malloc(N * sizeof *P->x);
    P->y = malloc(N * sizeof *P->y);
    for (size_t i = 0; i < N; i++) {
        int ph = i >= N / 2;
        P->x[i] = (ph ? 300 : 100) * (0.8 + 0.4 * wc_rng_uniform(&rng));
        P->y[i] = P->x[i] * (ph ? 0.9 : 1.2) *
                  (0.9 + 0.2 * wc_rng_uniform(&rng));
    }
    P->sigv[0] = 0.2;
    P->sigv[1] = 0.7;
    P->c = 0.5;
    P->calls[0] = P->calls[1] = 0;
}

/* Two-phase auxiliary: warp instructions about proportional to x. */
static uint64_t *pop_ins;
static int pop_aux(void *ctx, size_t *n, const uint64_t **ins, double *fixed,
                   double *compose, int *two, wc_diag *d)
{
    (void)d;
    (void)two;
    pop *P = ctx;
    *n = P->N;
    *ins = pop_ins;
    *fixed = 0;
    *compose = P->c;
    return 0;
}

static int nprog;
static void on_progress(void *ctx, const smp_progress *p)
{
    (void)ctx;
    (void)p;
    nprog++;
}

static void test_loop(void)
{
    pop P;
    pop_make(&P, 1000, 11);
    smp_engine e = {&P, P.N, pop_whole, pop_proxy, pop_region, NULL, NULL};
    smp_plan p;
    memset(&p, 0, sizeof p);
    p.seed = 1;
    p.period = 20;
    p.stratify = 1;
    p.max_strata = 4;
    p.progress = on_progress;
    smp_kernel_result r1, r2;
    wc_diag d;
    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    double truth = 0;
    pop_whole(&P, SMP_DETAILED, &(smp_eval){0}, &d);
    for (size_t i = 0; i < P.N; i++)
        truth += P.y[i];
    truth *= P.c;

    CHECK_EQ_INT(smp_estimate(&e, &p, &r1, &d), 0);
    CHECK_EQ_INT(r1.strata, 2);
    CHECK_EQ_INT(r1.sampled, 50);
    CHECK_EQ_INT(r1.how, SMP_HOW_SAMPLED);
    CHECK_EQ_INT(r1.has_ci, 1);
    CHECK(fabs(r1.estimate - truth) / truth < 0.02);
    CHECK(nprog >= 2);
    /* Both models on the sample only; no full detailed run. */
    CHECK_EQ_INT(r1.host[SMP_DETAILED].runs, 50);
    CHECK_EQ_INT(r1.host[SMP_INTERVAL].runs, 51);
    CHECK_EQ_INT(r1.detailed_warp_insts, 50000);

    /* Same seed: the same answer, bit for bit. */
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK(memcmp(&r1.estimate, &r2.estimate, sizeof r1.estimate) == 0);
    CHECK(memcmp(r1.ci95, r2.ci95, sizeof r1.ci95) == 0);
    CHECK_EQ_INT(r1.cycles, r2.cycles);

    /* Coverage over seeds, and other seeds' answers inside seed 1's CI. */
    int cover = 0, inside = 0, runs = 200;
    for (int s = 1; s <= runs; s++) {
        p.seed = (uint64_t)s * 7919u;
        smp_estimate(&e, &p, &r2, &d);
        cover += r2.has_ci && r2.ci95[0] <= truth && truth <= r2.ci95[1];
        inside += r1.ci95[0] <= r2.estimate && r2.estimate <= r1.ci95[1];
    }
    fprintf(stderr, "synthetic: coverage %d/%d, other seeds inside %d/%d\n",
            cover, runs, inside, runs);
    CHECK(cover >= runs * 90 / 100);
    CHECK(inside >= runs * 75 / 100);

    /* Small kernels run fully in detail: exact. */
    p.seed = 1;
    p.small_kernel_insts = 2000000;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK_EQ_INT(r2.how, SMP_HOW_FULL);
    CHECK_NEAR(r2.estimate, truth, 1e-6 * truth);
    p.small_kernel_insts = 0;

    /* A period giving more than half the kernel runs it fully. */
    p.period = 1;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK_EQ_INT(r2.how, SMP_HOW_FULL);

    /* Budget mode: a known detailed cost picks the period that fits. */
    p.period = 0;
    p.budget_s = 1.0;
    p.dm_cost_per_inst = 1e-5; /* 10 ms per region: ~100 regions fit */
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK(r2.sampled >= 40 && r2.sampled <= 100);
    CHECK(r2.period >= 8 && r2.period <= 32);
    CHECK(fabs(r2.estimate - truth) / truth < 0.03);
    /* Budget too small for more than the pilot: the coarsest
     * power-of-two period, 2 to 4 regions per stratum. */
    p.dm_cost_per_inst = 10;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK(r2.sampled >= 4 && r2.sampled <= 8);
    CHECK_EQ_INT(r2.has_ci, 1);
    free(P.x);
    free(P.y);
}

/* The pilot (smp_plan.pilot_ci): every other sampled region of each
 * stratum first, kept as the sample only when its sampling half-width is
 * within pilot_ci of the estimate.  Noisy regions: rejected, and the
 * result is the whole sample's, bit for bit.  Regions whose two models
 * agree exactly (one ratio everywhere): accepted, half the detailed runs,
 * the same estimate. */
static void test_pilot(void)
{
    pop P;
    pop_make(&P, 1000, 11);
    smp_engine e = {&P, P.N, pop_whole, pop_proxy, pop_region, NULL, NULL};
    smp_plan p;
    memset(&p, 0, sizeof p);
    p.seed = 1;
    p.period = 20;
    p.stratify = 1;
    p.max_strata = 4;
    smp_kernel_result r0, r1;
    wc_diag d;
    memset(&r0, 0, sizeof r0);
    memset(&r1, 0, sizeof r1);
    CHECK_EQ_INT(smp_estimate(&e, &p, &r0, &d), 0);
    p.pilot_ci = 0.005;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r1, &d), 0);
    CHECK_EQ_INT(r1.pilot, 0);
    CHECK_EQ_INT(r1.sampled, r0.sampled);
    CHECK(memcmp(&r0.estimate, &r1.estimate, sizeof r0.estimate) == 0);
    CHECK(memcmp(r0.ci95, r1.ci95, sizeof r0.ci95) == 0);
    CHECK_EQ_INT(r1.host[SMP_DETAILED].runs, r0.host[SMP_DETAILED].runs);

    /* one ratio in each phase: the pilot is exact */
    for (size_t i = 0; i < P.N; i++)
        P.y[i] = P.x[i] * (i >= P.N / 2 ? 0.75 : 1.25);
    p.pilot_ci = 0;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r0, &d), 0);
    CHECK_EQ_INT(r0.pilot, 0);
    p.pilot_ci = 0.005;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r1, &d), 0);
    CHECK_EQ_INT(r1.pilot, 1);
    CHECK_EQ_INT(r0.sampled, 50);
    CHECK_EQ_INT(r1.sampled, 26);
    CHECK_EQ_INT(r1.host[SMP_DETAILED].runs, 26);
    CHECK_NEAR(r1.estimate, r0.estimate, 1e-12 * r0.estimate);
    CHECK_EQ_INT(r1.has_ci, 1);

    /* Strata of two sampled regions (N = 40, period 20: two strata of 20,
     * two regions each): the pilot takes one region of each, collapsed
     * for the variance.  One ratio everywhere: kept, half the runs, the
     * same estimate; a different ratio in each stratum: the collapsed
     * variance is large, the whole sample runs, bit for bit. */
    pop Q;
    pop_make(&Q, 40, 5);
    smp_engine eq = {&Q, Q.N, pop_whole, pop_proxy, pop_region, NULL, NULL};
    smp_kernel_result q0, q1;
    memset(&q0, 0, sizeof q0);
    memset(&q1, 0, sizeof q1);
    for (size_t i = 0; i < Q.N; i++)
        Q.y[i] = Q.x[i] * 1.1;
    p.pilot_ci = 0;
    CHECK_EQ_INT(smp_estimate(&eq, &p, &q0, &d), 0);
    CHECK_EQ_INT(q0.strata, 2);
    CHECK_EQ_INT(q0.sampled, 4);
    p.pilot_ci = 0.005;
    CHECK_EQ_INT(smp_estimate(&eq, &p, &q1, &d), 0);
    CHECK_EQ_INT(q1.pilot, 1);
    CHECK_EQ_INT(q1.sampled, 2);
    CHECK_EQ_INT(q1.has_ci, 1);
    CHECK_NEAR(q1.estimate, q0.estimate, 1e-12 * q0.estimate);
    for (size_t i = 0; i < Q.N; i++)
        Q.y[i] = Q.x[i] * (i >= Q.N / 2 ? 0.75 : 1.25);
    p.pilot_ci = 0;
    CHECK_EQ_INT(smp_estimate(&eq, &p, &q0, &d), 0);
    p.pilot_ci = 0.005;
    CHECK_EQ_INT(smp_estimate(&eq, &p, &q1, &d), 0);
    CHECK_EQ_INT(q1.pilot, 0);
    CHECK_EQ_INT(q1.sampled, q0.sampled);
    CHECK(memcmp(&q0.estimate, &q1.estimate, sizeof q0.estimate) == 0);
    CHECK(memcmp(q0.ci95, q1.ci95, sizeof q0.ci95) == 0);
    free(Q.x);
    free(Q.y);

    /* budget mode keeps its own pilot */
    p.budget_s = 1.0;
    p.dm_cost_per_inst = 1e-5;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r1, &d), 0);
    CHECK_EQ_INT(r1.pilot, 0);
    free(P.x);
    free(P.y);
}

/* CTA granularity (smp_engine.grain): the interval widens in quadrature by
 * one CTA's mean detailed time, share x mean(y) over the detailed sample;
 * the estimate itself does not move.  Checked in one- and two-phase mode. */
static double grain_share;
static double pop_grain(void *ctx)
{
    (void)ctx;
    return grain_share;
}

static void test_grain(void)
{
    pop P;
    pop_make(&P, 1000, 11);
    smp_plan p;
    memset(&p, 0, sizeof p);
    p.seed = 3;
    p.period = 20;
    p.stratify = 1;
    p.max_strata = 4;
    wc_diag d;
    smp_kernel_result r0, r1;
    memset(&r0, 0, sizeof r0);
    memset(&r1, 0, sizeof r1);
    smp_engine e0 = {&P, P.N, pop_whole, pop_proxy, pop_region, NULL, NULL};
    smp_engine e1 = {&P, P.N, pop_whole, pop_proxy, pop_region, NULL,
                     pop_grain};
    grain_share = 0.25;
    CHECK_EQ_INT(smp_estimate(&e0, &p, &r0, &d), 0);
    CHECK_EQ_INT(smp_estimate(&e1, &p, &r1, &d), 0);
    CHECK_EQ_INT(r0.has_ci, 1);
    CHECK_EQ_INT(r1.has_ci, 1);
    CHECK(r0.grain == 0);
    CHECK(memcmp(&r0.estimate, &r1.estimate, sizeof r0.estimate) == 0);
    /* The detailed sample of seed 3 again, by hand: systematic, period 20
     * per stratum, as smp_select does; mean of its y. */
    unsigned char *sel = calloc(P.N, 1);
    int *st = calloc(P.N, sizeof *st);
    /* Strata as the engine made them: the two halves of the population. */
    for (size_t i = 0; i < P.N; i++)
        st[i] = i >= P.N / 2;
    CHECK_EQ_INT(r1.strata, 2);
    size_t n = smp_select(P.N, st, 2, 20, 0, p.seed, sel);
    double sy = 0;
    for (size_t i = 0; i < P.N; i++)
        if (sel[i])
            sy += P.y[i];
    CHECK_EQ_INT(n, r1.sampled);
    double c = grain_share * sy / (double)n;
    /* one-sided: the lower bound stays, the upper one moves by c */
    CHECK(memcmp(&r0.ci95[0], &r1.ci95[0], sizeof r0.ci95[0]) == 0);
    CHECK_NEAR(r1.ci95[1], r0.ci95[1] + c, 1e-9 * r1.ci95[1]);
    CHECK_NEAR(r1.grain, c / r1.estimate, 1e-12);
    CHECK(c > 0);
    /* A share of 0 (a kernel of one wave, or regions on all SMs): as
     * without the callback. */
    grain_share = 0;
    CHECK_EQ_INT(smp_estimate(&e1, &p, &r1, &d), 0);
    CHECK(memcmp(r0.ci95, r1.ci95, sizeof r0.ci95) == 0);
    free(sel);
    free(st);
    free(P.x);
    free(P.y);
}

/* Two-phase estimate, hand-computed: N = 8 regions, A = 80 warp
 * instructions in all; phase 1 = 4 regions, a = 10 each, x = 10 12 14 12:
 *   R_a = 48/40 = 1.2, X^ = 96, u = -2 0 2 0, s_u^2 = 8/3,
 *   relvar(X^) = (1 - 4/8)(8/3) / (4 * 12^2) = 1/432
 * phase 2 ratio 1.1 with se 0.011 (relvar 1e-4, df 3); fixed 100,
 * compose 0.5:  S = 0.5 * 96 * 1.1 = 52.8, D = 152.8,
 *   V = S^2 (1/432 + 1e-4) = 6.732118, se = 2.594632
 *   df = V^2 / (v1^2/3 + v2^2/3) = 3.258717 */
static void test_two_phase(void)
{
    double x1[4] = {10, 12, 14, 12}, a1[4] = {10, 10, 10, 10};
    smp_estimate_out e2, o;
    memset(&e2, 0, sizeof e2);
    e2.ratio = 1.1;
    e2.se = 0.011;
    e2.df = 3;
    e2.has_ci = 1;
    e2.how = SMP_HOW_SAMPLED;
    smp_stats_two_phase(8, 80, 4, x1, a1, &e2, 100, 0.5, 0, &o);
    CHECK_NEAR(o.total, 152.8, 1e-9);
    CHECK_NEAR(o.se, 2.594632408, 1e-8);
    CHECK_NEAR(o.df, 3.258717172, 1e-8);
    CHECK_EQ_INT(o.has_ci, 1);
    double half = gsl_cdf_tdist_Pinv(0.975, o.df) * o.se;
    CHECK_NEAR(o.ci95[1] - o.total, half, 1e-9);
    CHECK_NEAR(o.total - o.ci95[0], half, 1e-9);
    /* Bias allowance in quadrature, as in the one-phase estimate. */
    smp_stats_two_phase(8, 80, 4, x1, a1, &e2, 100, 0.5, 0.01, &o);
    CHECK_NEAR(o.ci95[1] - o.total, sqrt(half * half + 1.528 * 1.528), 1e-9);
    /* Phase 2 without an interval: none here either. */
    e2.has_ci = 0;
    e2.how = SMP_HOW_SMALL_N;
    smp_stats_two_phase(8, 80, 4, x1, a1, &e2, 100, 0.5, 0, &o);
    CHECK_EQ_INT(o.has_ci, 0);
    CHECK_EQ_INT(o.how, SMP_HOW_SMALL_N);
    CHECK_NEAR(o.total, 152.8, 1e-9);
}

/* Two-phase loop on the population of test_loop: interval on about 100
 * regions, detailed on about 25 of them, whole-kernel runs never made. */
static void test_two_phase_loop(void)
{
    pop P;
    pop_make(&P, 1000, 11);
    wc_rng rng;
    wc_rng_seed(&rng, 5);
    pop_ins = malloc(P.N * sizeof *pop_ins);
    double truth = 0;
    for (size_t i = 0; i < P.N; i++) {
        pop_ins[i] = (uint64_t)(P.x[i] * 10 *
                                (0.95 + 0.1 * wc_rng_uniform(&rng)));
        truth += P.y[i];
    }
    truth *= P.c;
    smp_engine e = {&P, P.N, pop_whole, pop_proxy, pop_region, pop_aux, NULL};
    smp_plan p;
    memset(&p, 0, sizeof p);
    p.seed = 1;
    p.period = 20;
    p.stratify = 1;
    p.max_strata = 4;
    p.two_phase_insts = 1000;
    p.phase1 = 100;
    p.phase2 = 25;
    smp_kernel_result r1, r2;
    wc_diag d;
    memset(&r1, 0, sizeof r1);
    CHECK_EQ_INT(smp_estimate(&e, &p, &r1, &d), 0);
    CHECK_EQ_INT(r1.phase1, 100);
    CHECK(r1.strata >= 2);
    CHECK(r1.sampled >= 20 && r1.sampled <= 30);
    CHECK_EQ_INT(r1.host[SMP_INTERVAL].runs, 100);
    CHECK_EQ_INT(r1.host[SMP_DETAILED].runs, r1.sampled);
    CHECK_EQ_INT(r1.has_ci, 1);
    CHECK(fabs(r1.estimate - truth) / truth < 0.03);
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK(memcmp(&r1.estimate, &r2.estimate, sizeof r1.estimate) == 0);
    int cover = 0, runs = 200;
    for (int s = 1; s <= runs; s++) {
        p.seed = (uint64_t)s * 7919u;
        smp_estimate(&e, &p, &r2, &d);
        cover += r2.has_ci && r2.ci95[0] <= truth && truth <= r2.ci95[1];
    }
    fprintf(stderr, "two-phase: coverage %d/%d\n", cover, runs);
    CHECK(cover >= runs * 90 / 100);
    /* The phase-2 pilot: rejected on this population (rho varies), the
     * whole sample's result bit for bit; with one ratio everywhere it is
     * kept: half the detailed runs, the same estimate. */
    p.seed = 1;
    p.pilot_ci = 0.005;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK_EQ_INT(r2.pilot, 0);
    CHECK_EQ_INT(r2.sampled, r1.sampled);
    CHECK(memcmp(&r1.estimate, &r2.estimate, sizeof r1.estimate) == 0);
    CHECK(memcmp(r1.ci95, r2.ci95, sizeof r1.ci95) == 0);
    double *ysave = malloc(P.N * sizeof *ysave);
    if (ysave) {
        memcpy(ysave, P.y, P.N * sizeof *ysave);
        for (size_t i = 0; i < P.N; i++)
            P.y[i] = P.x[i] * 1.2;
        p.pilot_ci = 0;
        CHECK_EQ_INT(smp_estimate(&e, &p, &r1, &d), 0);
        p.pilot_ci = 0.005;
        CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
        CHECK_EQ_INT(r1.pilot, 0);
        CHECK_EQ_INT(r2.pilot, 1);
        CHECK(r2.sampled < r1.sampled && r2.sampled * 2 + 4 >= r1.sampled);
        CHECK_EQ_INT(r2.host[SMP_DETAILED].runs, r2.sampled);
        CHECK_NEAR(r2.estimate, r1.estimate, 1e-9 * r1.estimate);
        CHECK_EQ_INT(r2.has_ci, 1);
        memcpy(P.y, ysave, P.N * sizeof *ysave);
        free(ysave);
        p.pilot_ci = 0;
    }
    /* Below the threshold: the one-phase path. */
    p.two_phase_insts = (uint64_t)1 << 62;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r2, &d), 0);
    CHECK_EQ_INT(r2.phase1, 0);
    free(pop_ins);
    free(P.x);
    free(P.y);
}

/* The engine may change its region count after the whole-kernel interval
 * run (sampler/bind.c: cross-CTA reuse moves regions onto all SMs): the
 * loop must size and walk its arrays by the count whole() reports, not by
 * e->nregions (heap overflow in run_sample, issue 12). */
static size_t shrink_bad;
static int shrink_whole(void *ctx, int m, smp_eval *out, wc_diag *d)
{
    int rc = pop_whole(ctx, m, out, d);
    if (m == SMP_INTERVAL)
        out->nregions = ((pop *)ctx)->N;
    return rc;
}
static int shrink_region(void *ctx, int m, size_t r, smp_eval *out, wc_diag *d)
{
    if (r >= ((pop *)ctx)->N) {
        shrink_bad++;
        r = 0;
    }
    return pop_region(ctx, m, r, out, d);
}

static void test_layout_change(void)
{
    pop P;
    pop_make(&P, 1000, 11);
    /* The first guess is larger than the layout the engine settles on. */
    smp_engine e = {&P, 4 * P.N, shrink_whole, pop_proxy, shrink_region,
                    NULL, NULL};
    smp_plan p;
    memset(&p, 0, sizeof p);
    p.seed = 1;
    p.period = 20;
    p.stratify = 1;
    p.max_strata = 4;
    smp_kernel_result r;
    wc_diag d;
    memset(&r, 0, sizeof r);
    shrink_bad = 0;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r, &d), 0);
    CHECK_EQ_INT(r.regions, P.N);
    CHECK_EQ_INT(r.sampled, 50);
    CHECK_EQ_INT(shrink_bad, 0);
    /* Budget mode (pilot, then the period search) walks the same arrays. */
    p.period = 0;
    p.budget_s = 1.0;
    p.dm_cost_per_inst = 1e-5;
    CHECK_EQ_INT(smp_estimate(&e, &p, &r, &d), 0);
    CHECK_EQ_INT(r.regions, P.N);
    CHECK_EQ_INT(shrink_bad, 0);
    free(P.x);
    free(P.y);
}

int main(void)
{
    test_layout_change();
    test_one_stratum();
    test_two_strata();
    test_two_phase();
    test_two_phase_loop();
    test_small_and_census();
    test_select();
    test_stratify();
    test_loop();
    test_pilot();
    test_collapsed();
    test_grain();
    CHECK_DONE();
}
