/*
 * sampler/stats.c - the sampler's statistics: stratified ratio estimator
 * with its t-based 95% interval, systematic selection, and stratification of
 * regions by signature.
 *
 * Pure functions over arrays: no models, no I/O.  The formulas are those of
 * Cochran, "Sampling Techniques" (3rd ed.), ch. 6 (ratio estimator of a
 * total, separate ratio per stratum) and 5.10 (Satterthwaite's effective
 * degrees of freedom).  docs/sampler.md restates them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "smp.h"

const char *smp_how_name(int how)
{
    switch (how) {
    case SMP_HOW_SAMPLED: return "sampled";
    case SMP_HOW_FULL: return "full-detailed";
    case SMP_HOW_CENSUS: return "census";
    case SMP_HOW_SMALL_N: return "sample-too-small";
    case SMP_HOW_REUSED: return "reused";
    default: return "?";
    }
}

const char *smp_full_why_name(int why)
{
    switch (why) {
    case SMP_FULL_SMALL: return "small";
    case SMP_FULL_UNLIKE: return "slice-unlike";
    case SMP_FULL_COST: return "sample-cost";
    default: return NULL;
    }
}

int smp_stats_ratio(size_t n, const double *x, const double *y,
                    const int *stratum, int nstrata, const double *Nh,
                    const double *Wh, double fixed, double scale, double bias,
                    smp_estimate_out *out, wc_diag *d)
{
    memset(out, 0, sizeof *out);
    if (nstrata < 1 || n == 0)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "sampler: empty sample (%zu regions, %d strata)", n,
                           nstrata);
    size_t ns = (size_t)nstrata;
    double *acc = calloc(ns * 3, sizeof *acc);
    if (!acc)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    double *nh = acc, *xs = acc + ns, *ys = acc + 2 * ns;
    int rc = WC_OK;
    for (size_t i = 0; i < n; i++) {
        if (stratum[i] < 0 || (size_t)stratum[i] >= ns) {
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                             "sampler: region in stratum %d of %d", stratum[i],
                             nstrata);
            goto out;
        }
        size_t h = (size_t)stratum[i];
        nh[h] += 1;
        xs[h] += x[i];
        ys[h] += y[i];
    }
    double rho = 0, V = 0, dfden = 0;
    int census = 1;
    /* Strata of one sampled region (and more in the population): their
     * variance comes from collapsing them into one group (below). */
    double cW = 0, cWR = 0;
    size_t cL = 0;
    for (size_t h = 0; h < ns; h++) {
        if (Wh[h] <= 0 && Nh[h] <= 0)
            continue;
        if (nh[h] == 0 || xs[h] <= 0) {
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                             "sampler: stratum %zu has no usable sample", h);
            goto out;
        }
        double R = ys[h] / xs[h];
        rho += Wh[h] * R;
        if (nh[h] < Nh[h])
            census = 0;
        if (nh[h] < 2) {
            if (nh[h] < Nh[h]) {
                cL++;
                cW += Wh[h];
                cWR += Wh[h] * R;
            }
            continue;
        }
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            if ((size_t)stratum[i] == h) {
                double e = y[i] - R * x[i];
                ss += e * e;
            }
        double xbar = xs[h] / nh[h];
        double fpc = Nh[h] > 0 ? 1 - nh[h] / Nh[h] : 1;
        if (fpc < 0)
            fpc = 0;
        double vh = Wh[h] * Wh[h] * fpc * ss / (nh[h] - 1) /
                    (nh[h] * xbar * xbar);
        V += vh;
        dfden += vh * vh / (nh[h] - 1);
    }
    /* Collapsed strata (Wolter, Introduction to Variance Estimation, 2nd
     * ed., sec. 2.5; Cochran 5A.12): L >= 2 strata of one region each,
     * taken as one stratum for the variance,
     *   v_g = L / (L - 1) sum_h (1 - 1/N_h) W_h^2 (rho_h - rho_g)^2,
     *   rho_g = sum_h W_h rho_h / sum_h W_h,
     * with L - 1 degrees of freedom.  It overstates the variance by the
     * spread of the strata's true ratios (conservative); one such stratum
     * alone has none (SMP_HOW_SMALL_N). */
    int small = cL == 1;
    if (cL >= 2 && cW > 0) {
        double Rg = cWR / cW, ss = 0;
        for (size_t h = 0; h < ns; h++) {
            if ((Wh[h] <= 0 && Nh[h] <= 0) || nh[h] != 1 || nh[h] >= Nh[h])
                continue;
            double e = ys[h] / xs[h] - Rg;
            double fpc = Nh[h] > 0 ? 1 - 1 / Nh[h] : 1;
            ss += fpc * Wh[h] * Wh[h] * e * e;
        }
        double vg = (double)cL / (double)(cL - 1) * ss;
        V += vg;
        dfden += vg * vg / (double)(cL - 1);
    }
    out->ratio = rho;
    out->total = fixed + scale * rho;
    out->se = sqrt(V) * fabs(scale);
    out->how = SMP_HOW_SAMPLED;
    out->ci95[0] = out->ci95[1] = out->total;
    if (small) {
        out->how = SMP_HOW_SMALL_N;
        goto out;
    }
    out->has_ci = 1;
    double half = 0;
    if (census)
        out->how = SMP_HOW_CENSUS;
    if (!census && V > 0 && dfden > 0) {
        out->df = V * V / dfden;
        half = gsl_cdf_tdist_Pinv(0.975, out->df) * out->se;
    }
    double b = bias * fabs(out->total);
    half = sqrt(half * half + b * b);
    out->ci95[0] = out->total - half;
    out->ci95[1] = out->total + half;
out:
    free(acc);
    return rc;
}

/* Largest power of two <= v (v >= 1). */
static long pow2_floor(long v)
{
    long p = 1;
    while (p <= v / 2)
        p *= 2;
    return p;
}

size_t smp_select(size_t N, const int *stratum, int nstrata, long period,
                  int pow2, uint64_t seed, unsigned char *sampled)
{
    wc_rng rng;
    wc_rng_seed(&rng, seed);
    size_t added = 0;
    if (period < 1)
        period = 1;
    for (int h = 0; h < nstrata; h++) {
        size_t Nh = 0;
        for (size_t i = 0; i < N; i++)
            Nh += stratum[i] == h;
        /* Draw u_h even for an empty stratum so strata keep their draws. */
        double u = wc_rng_uniform(&rng);
        if (Nh == 0)
            continue;
        long cap = Nh >= 2 ? (long)(Nh / 2) : 1;
        long K = period < cap ? period : cap;
        long start;
        if (pow2) {
            /* The start for the coarsest period any stratum could use
             * (power of two >= N_h), reduced mod K: nested samples. */
            long kmax = pow2_floor((long)Nh) * 2;
            K = pow2_floor(K);
            start = (long)(u * (double)kmax) % K;
        } else {
            start = (long)(u * (double)K);
        }
        size_t j = 0;
        for (size_t i = 0; i < N; i++) {
            if (stratum[i] != h)
                continue;
            if ((long)(j % (size_t)K) == start && !sampled[i]) {
                sampled[i] = 1;
                added++;
            }
            j++;
        }
    }
    return added;
}

/* ------------------------------------------------------------------------ */
/* Stratification                                                            */
/* ------------------------------------------------------------------------ */

static double dist2(const double *a, const double *b)
{
    double s = 0;
    for (int j = 0; j < SMP_SIG_DIM; j++)
        s += (a[j] - b[j]) * (a[j] - b[j]);
    return s;
}

/* Lloyd iterations from the given centres; returns 0 or -1 (oom). */
static int kmeans(size_t N, const double (*z)[SMP_SIG_DIM], int k,
                  double (*ctr)[SMP_SIG_DIM], int *lab)
{
    double (*sum)[SMP_SIG_DIM] = calloc((size_t)k, sizeof *sum);
    size_t *cnt = calloc((size_t)k, sizeof *cnt);
    if (!sum || !cnt) {
        free(sum);
        free(cnt);
        return -1;
    }
    for (int it = 0; it < 50; it++) {
        int changed = 0;
        for (size_t i = 0; i < N; i++) {
            int best = 0;
            double bd = dist2(z[i], ctr[0]);
            for (int c = 1; c < k; c++) {
                double dd = dist2(z[i], ctr[c]);
                if (dd < bd) {
                    bd = dd;
                    best = c;
                }
            }
            if (it == 0 || lab[i] != best)
                changed = 1;
            lab[i] = best;
        }
        if (!changed)
            break;
        memset(sum, 0, (size_t)k * sizeof *sum);
        memset(cnt, 0, (size_t)k * sizeof *cnt);
        for (size_t i = 0; i < N; i++) {
            cnt[lab[i]]++;
            for (int j = 0; j < SMP_SIG_DIM; j++)
                sum[lab[i]][j] += z[i][j];
        }
        for (int c = 0; c < k; c++)
            if (cnt[c])
                for (int j = 0; j < SMP_SIG_DIM; j++)
                    ctr[c][j] = sum[c][j] / (double)cnt[c];
    }
    free(sum);
    free(cnt);
    return 0;
}

/* Number the labels 0.. in order of first appearance (deterministic
 * stratum ids independent of the centre order). */
static int renumber(size_t N, int *lab, int k)
{
    int *map = malloc((size_t)k * sizeof *map);
    if (!map)
        return -1;
    for (int c = 0; c < k; c++)
        map[c] = -1;
    int next = 0;
    for (size_t i = 0; i < N; i++) {
        if (map[lab[i]] < 0)
            map[lab[i]] = next++;
        lab[i] = map[lab[i]];
    }
    free(map);
    return next;
}

/* Try k clusters; returns the number of strata (k when acceptable, 0 when
 * the split is rejected, -1 out of memory). */
static int try_k(size_t N, const double (*z)[SMP_SIG_DIM], int k,
                 double min_sep, size_t min_size, int *lab)
{
    double (*ctr)[SMP_SIG_DIM] = calloc((size_t)k, sizeof *ctr);
    double *dmin = malloc(N * sizeof *dmin);
    size_t *cnt = calloc((size_t)k, sizeof *cnt);
    int res = -1;
    if (!ctr || !dmin || !cnt)
        goto out;
    /* Farthest-point seeding from region 0: deterministic. */
    memcpy(ctr[0], z[0], sizeof ctr[0]);
    for (size_t i = 0; i < N; i++)
        dmin[i] = dist2(z[i], ctr[0]);
    for (int c = 1; c < k; c++) {
        size_t far = 0;
        for (size_t i = 1; i < N; i++)
            if (dmin[i] > dmin[far])
                far = i;
        memcpy(ctr[c], z[far], sizeof ctr[c]);
        for (size_t i = 0; i < N; i++) {
            double dd = dist2(z[i], ctr[c]);
            if (dd < dmin[i])
                dmin[i] = dd;
        }
    }
    if (kmeans(N, z, k, ctr, lab) != 0)
        goto out;
    for (size_t i = 0; i < N; i++)
        cnt[lab[i]]++;
    res = k;
    for (int c = 0; c < k && res; c++) {
        if (cnt[c] < min_size)
            res = 0;
        for (int e = c + 1; e < k && res; e++)
            if (sqrt(dist2(ctr[c], ctr[e])) < min_sep)
                res = 0;
    }
    if (res && renumber(N, lab, k) < 0)
        res = -1;
out:
    free(ctr);
    free(dmin);
    free(cnt);
    return res;
}

int smp_stratify(size_t N, const double (*sig)[SMP_SIG_DIM], int kmax,
                 double min_sep, size_t min_size, int *stratum)
{
    for (size_t i = 0; i < N; i++)
        stratum[i] = 0;
    if (N < 2 || kmax < 2)
        return 1;
    /* Signatures are dimensionless (fractions, logarithms): distances are
     * taken as they are, so min_sep is an absolute difference in them. */
    double (*z)[SMP_SIG_DIM] = malloc(N * sizeof *z);
    int *lab = malloc(N * sizeof *lab);
    int best = 1;
    if (!z || !lab)
        goto out;
    memcpy(z, sig, N * sizeof *z);
    for (int k = 2; k <= kmax && (size_t)k <= N; k++) {
        int r = try_k(N, (const double (*)[SMP_SIG_DIM])z, k, min_sep,
                      min_size, lab);
        if (r < 0)
            break;
        if (r == 0)
            break; /* a finer split would only be worse */
        best = r;
        memcpy(stratum, lab, N * sizeof *lab);
    }
out:
    free(z);
    free(lab);
    return best;
}

/* ------------------------------------------------------------------------ */
/* Two-phase (double) sampling                                               */
/* ------------------------------------------------------------------------ */

void smp_stats_two_phase(size_t N, double A, size_t n1, const double *x1,
                         const double *a1, const smp_estimate_out *est2,
                         double fixed, double compose, double bias,
                         smp_estimate_out *out)
{
    memset(out, 0, sizeof *out);
    double sx = 0, sa = 0;
    for (size_t i = 0; i < n1; i++) {
        sx += x1[i];
        sa += a1[i];
    }
    double Ra = sa > 0 ? sx / sa : 0;
    double Xhat = A * Ra;
    double rho = est2->ratio;
    double S = compose * Xhat * rho;
    out->ratio = rho;
    out->total = fixed + S;
    out->ci95[0] = out->ci95[1] = out->total;
    out->how = est2->how == SMP_HOW_CENSUS ? SMP_HOW_SAMPLED : est2->how;
    if (!est2->has_ci || n1 < 2)
        return;
    /* Phase 1: ratio estimator of the interval total from a (known). */
    double ss = 0;
    for (size_t i = 0; i < n1; i++) {
        double u = x1[i] - Ra * a1[i];
        ss += u * u;
    }
    double abar = sa / (double)n1, fpc = 1 - (double)n1 / (double)N;
    if (fpc < 0)
        fpc = 0;
    double rv1 = Ra * abar > 0 ? fpc * ss / (double)(n1 - 1) /
                                     ((double)n1 * Ra * abar * Ra * abar)
                               : 0;
    /* Phase 2: the stratified ratio's own (sampling) relative variance. */
    double rv2 = rho > 0 ? (est2->se / rho) * (est2->se / rho) : 0;
    double v1 = S * S * rv1, v2 = S * S * rv2, V = v1 + v2;
    out->se = sqrt(V);
    out->has_ci = 1;
    double half = 0;
    double den = v1 * v1 / (double)(n1 - 1) +
                 (est2->df > 0 ? v2 * v2 / est2->df : 0);
    if (V > 0 && den > 0) {
        out->df = V * V / den;
        half = gsl_cdf_tdist_Pinv(0.975, out->df) * out->se;
    }
    double b = bias * fabs(out->total);
    half = sqrt(half * half + b * b);
    out->ci95[0] = out->total - half;
    out->ci95[1] = out->total + half;
}
