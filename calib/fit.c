/*
 * calib/fit.c - nonlinear least squares over GPU config keys.
 *
 * Owns cal_fit_problem(): GSL gsl_multifit_nlinear trust region with the
 * Levenberg-Marquardt subproblem on relative residuals
 *
 *     r_i = sqrt(weight_i * w_i) * (pred_i(x) - meas_i) / meas_i
 *
 * where w_i are robust weights (1 for the linear loss; Huber or Cauchy
 * weights refreshed by iteratively reweighted least squares otherwise).
 *
 * Parameters: the solver works on u_j = x_j / s_j (s_j = |start| or 1), so
 * every parameter is O(1).  Bounds from the key table are enforced by
 * clamping: the model always sees clamp(u_j s_j, lo_j, hi_j); a parameter
 * that ends at a bound is reported as such and its standard error is not
 * meaningful.  Integer keys are relaxed to reals for the solver, the model
 * sees them rounded; after the solver stops they are rounded and polished by
 * +-1 coordinate search.  The Jacobian is a forward difference (backward at
 * an upper bound), step 1% of the value (at least 1 for integer keys), its
 * np columns evaluated in parallel with the rows.
 *
 * Standard errors: covariance (J^T J)^-1 from gsl_multifit_nlinear_covar,
 * scaled by the residual variance 2 cost / (n - p).  Unidentifiable
 * parameters: components of the right singular vectors of the
 * column-normalised J whose singular value is below 1e-7 of the largest.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "cal_int.h"

#define FD_REL 1e-2
#define SV_TOL 1e-7
#define CORR_FLAG 0.95

typedef struct fitctx {
    const cal_problem *p;
    size_t np, n;             /* parameters, fitted rows                    */
    const cal_meas **rows;    /* fitted rows                                 */
    double s[CAL_MAX_PARAMS]; /* scales                                      */
    double lo[CAL_MAX_PARAMS], hi[CAL_MAX_PARAMS];
    int isint[CAL_MAX_PARAMS];
    double *wrob;             /* robust weight per fitted row               */
    wc_gpu *confs;            /* np + 1 scratch configurations              */
    double *pred;             /* (np + 1) * n predictions                   */
    double *cache_u, *cache_r;/* last f evaluation                          */
    int have_cache;
    int nevals;
    int err;
    wc_diag *d;
} fitctx;

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Model-space value of parameter j for solver value u. */
static double x_of_u(const fitctx *c, size_t j, double u)
{
    double x = clampd(u * c->s[j], c->lo[j], c->hi[j]);
    if (c->isint[j])
        x = clampd(floor(x + 0.5), c->lo[j], c->hi[j]);
    return x;
}

static int make_conf(fitctx *c, const double *x, wc_gpu *g)
{
    *g = *c->p->base;
    for (size_t j = 0; j < c->np; j++) {
        int rc = wc_gpu_set_num(g, c->p->keys[j], x[j], c->d);
        if (rc)
            return rc;
    }
    return 0;
}

static double resid(const fitctx *c, size_t i, double pred)
{
    const cal_meas *m = c->rows[i];
    double w = m->weight > 0 ? m->weight : 1.0;
    return sqrt(w * c->wrob[i]) * (pred - m->measured) / m->measured;
}

/* Residuals for nx parameter vectors xs (nx * np), into r (nx * n). */
static int eval_many(fitctx *c, const double *xs, size_t nx, double *r)
{
    for (size_t k = 0; k < nx; k++) {
        int rc = make_conf(c, xs + k * c->np, &c->confs[k]);
        if (rc)
            return rc;
    }
    int rc = cal_eval_batch(c->p->eval, c->p->ctx, c->confs, nx, c->rows,
                            c->n, c->p->threads, c->pred, c->d);
    if (rc)
        return rc;
    c->nevals += (int)nx;
    for (size_t k = 0; k < nx; k++)
        for (size_t i = 0; i < c->n; i++)
            r[k * c->n + i] = resid(c, i, c->pred[k * c->n + i]);
    return 0;
}

static double cost_of(const double *r, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += r[i] * r[i];
    return 0.5 * s;
}

static int gsl_f(const gsl_vector *u, void *params, gsl_vector *f)
{
    fitctx *c = params;
    double x[CAL_MAX_PARAMS];
    for (size_t j = 0; j < c->np; j++)
        x[j] = x_of_u(c, j, gsl_vector_get(u, j));
    double *r = c->cache_r;
    int rc = eval_many(c, x, 1, r);
    if (rc) {
        c->err = rc;
        c->have_cache = 0;
        return GSL_EBADFUNC;
    }
    for (size_t j = 0; j < c->np; j++)
        c->cache_u[j] = gsl_vector_get(u, j);
    c->have_cache = 1;
    for (size_t i = 0; i < c->n; i++) {
        if (!isfinite(r[i])) {
            c->err = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0,
                                 "model returned a non-finite prediction "
                                 "for %s", c->rows[i]->label);
            return GSL_EBADFUNC;
        }
        gsl_vector_set(f, i, r[i]);
    }
    return GSL_SUCCESS;
}

/* Forward-difference Jacobian in u, the np columns in one parallel batch. */
static int jacobian(fitctx *c, const double *u, gsl_matrix *J)
{
    size_t np = c->np, n = c->n;
    double x[CAL_MAX_PARAMS];
    for (size_t j = 0; j < np; j++)
        x[j] = x_of_u(c, j, u[j]);
    int same = c->have_cache;
    for (size_t j = 0; same && j < np; j++)
        same = c->cache_u[j] == u[j];
    double *xs = malloc((np + 1) * np * sizeof *xs);
    double *r = malloc((np + 1) * n * sizeof *r);
    double du[CAL_MAX_PARAMS];
    int rc = 0;
    if (!xs || !r) {
        rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < np; j++) {
        double *xj = xs + j * np;
        memcpy(xj, x, np * sizeof *x);
        double h = FD_REL * fmax(fabs(x[j]), c->s[j] * 1e-3);
        if (c->isint[j])
            h = fmax(1.0, floor(h + 0.5));
        if (h <= 0)
            h = 1e-6;
        double xp = x[j] + h;
        if (xp > c->hi[j])
            xp = x[j] - h;
        xp = clampd(xp, c->lo[j], c->hi[j]);
        xj[j] = xp;
        du[j] = (xp - x[j]) / c->s[j];
    }
    size_t nx = np;
    if (!same) {
        memcpy(xs + np * np, x, np * sizeof *x);
        nx = np + 1;
    }
    rc = eval_many(c, xs, nx, r);
    if (rc)
        goto out;
    if (!same) { /* r at x becomes the cached f evaluation */
        memcpy(c->cache_r, r + np * n, n * sizeof *r);
        memcpy(c->cache_u, u, np * sizeof *u);
        c->have_cache = 1;
    }
    const double *r0 = c->cache_r;
    /* Models that return whole cycles do not move for a tiny step: grow
     * the step of a column that stayed flat tenfold, up to 5 times. */
    for (int retry = 0; retry < 5; retry++) {
        size_t flat[CAL_MAX_PARAMS], nflat = 0;
        for (size_t j = 0; j < np; j++) {
            int moved = 0;
            for (size_t i = 0; i < n && !moved; i++)
                moved = r[j * n + i] != r0[i];
            if (!moved)
                flat[nflat++] = j;
        }
        if (nflat == 0)
            break;
        size_t ntry = 0;
        size_t tried[CAL_MAX_PARAMS];
        for (size_t f = 0; f < nflat; f++) {
            size_t j = flat[f];
            double h = 10.0 * fabs(du[j] * c->s[j]);
            if (h == 0)
                h = FD_REL * fmax(c->s[j], 1.0);
            double xp = x[j] + h;
            if (xp > c->hi[j])
                xp = x[j] - h;
            xp = clampd(xp, c->lo[j], c->hi[j]);
            if (c->isint[j])
                xp = floor(xp + 0.5);
            if (xp == x[j])
                continue;
            du[j] = (xp - x[j]) / c->s[j];
            memcpy(xs + ntry * np, x, np * sizeof *x);
            xs[ntry * np + j] = xp;
            tried[ntry++] = j;
        }
        if (ntry == 0)
            break;
        double *rr = malloc(ntry * n * sizeof *rr);
        if (!rr) {
            rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0, "out of memory");
            goto out;
        }
        rc = eval_many(c, xs, ntry, rr);
        if (!rc)
            for (size_t t = 0; t < ntry; t++)
                memcpy(r + tried[t] * n, rr + t * n, n * sizeof *rr);
        free(rr);
        if (rc)
            goto out;
    }
    for (size_t j = 0; j < np; j++)
        for (size_t i = 0; i < n; i++) {
            double v = du[j] != 0 ? (r[j * n + i] - r0[i]) / du[j] : 0.0;
            gsl_matrix_set(J, i, j, isfinite(v) ? v : 0.0);
        }
out:
    free(xs);
    free(r);
    return rc;
}

static int gsl_df(const gsl_vector *uv, void *params, gsl_matrix *J)
{
    fitctx *c = params;
    double u[CAL_MAX_PARAMS];
    for (size_t j = 0; j < c->np; j++)
        u[j] = gsl_vector_get(uv, j);
    int rc = jacobian(c, u, J);
    if (rc) {
        c->err = rc;
        return GSL_EBADFUNC;
    }
    return GSL_SUCCESS;
}

static double robust_weight(cal_loss loss, double e, double k)
{
    double a = fabs(e) / k;
    switch (loss) {
    case CAL_LOSS_HUBER:
        return a <= 1.0 ? 1.0 : 1.0 / a;
    case CAL_LOSS_CAUCHY:
        return 1.0 / (1.0 + a * a);
    case CAL_LOSS_LINEAR:
    default:
        return 1.0;
    }
}

static const char *gsl_reason(int status, int info)
{
    if (status == GSL_SUCCESS)
        return info == 1 ? "small step (xtol)" : info == 2
                   ? "small gradient (gtol)" : "converged";
    if (status == GSL_EMAXITER)
        return "iteration limit reached";
    if (status == GSL_ENOPROG)
        return "no further progress (at a minimum of a discrete model)";
    return gsl_strerror(status);
}

/* One LM solve from u (in/out).  Returns 0 or a WC_E* code. */
static int lm_solve(fitctx *c, double *u, cal_fit_out *out)
{
    gsl_multifit_nlinear_parameters fp =
        gsl_multifit_nlinear_default_parameters();
    fp.trs = gsl_multifit_nlinear_trs_lm;
    fp.scale = gsl_multifit_nlinear_scale_more;
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = gsl_f;
    fdf.df = gsl_df;
    fdf.fvv = NULL;
    fdf.n = c->n;
    fdf.p = c->np;
    fdf.params = c;
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, c->n,
                                   c->np);
    gsl_vector *x0 = gsl_vector_alloc(c->np);
    int rc = 0;
    if (!w || !x0) {
        rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0,
                         "out of memory (GSL workspace)");
        goto out;
    }
    for (size_t j = 0; j < c->np; j++)
        gsl_vector_set(x0, j, u[j]);
    c->err = 0;
    int st = gsl_multifit_nlinear_init(x0, &fdf, w);
    if (st != GSL_SUCCESS) {
        rc = c->err ? c->err
                    : wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0,
                                  "GSL init failed: %s", gsl_strerror(st));
        goto out;
    }
    int info = 0;
    int maxit = c->p->max_iter > 0 ? c->p->max_iter : 100;
    st = gsl_multifit_nlinear_driver((size_t)maxit, 1e-12, 1e-12, 0.0, NULL,
                                     NULL, &info, w);
    if (c->err) {
        rc = c->err;
        goto out;
    }
    if (st != GSL_SUCCESS && st != GSL_EMAXITER && st != GSL_ENOPROG) {
        rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0,
                         "GSL solver failed: %s", gsl_strerror(st));
        goto out;
    }
    out->iterations += (int)gsl_multifit_nlinear_niter(w);
    out->converged = st == GSL_SUCCESS || st == GSL_ENOPROG;
    snprintf(out->stop_reason, sizeof out->stop_reason, "%s",
             gsl_reason(st, info));
    const gsl_vector *xs = gsl_multifit_nlinear_position(w);
    for (size_t j = 0; j < c->np; j++)
        u[j] = gsl_vector_get(xs, j);
out:
    gsl_vector_free(x0);
    if (w)
        gsl_multifit_nlinear_free(w);
    return rc;
}

/* Round integer parameters and polish them by +-1 steps while the cost
 * falls.  x (model space) in/out; *cost updated. */
static int int_polish(fitctx *c, double *x, double *cost)
{
    size_t np = c->np, n = c->n;
    int any = 0;
    for (size_t j = 0; j < np; j++)
        any |= c->isint[j];
    if (!any)
        return 0;
    double *xs = malloc(2 * np * np * sizeof *xs);
    double *r = malloc(2 * np * n * sizeof *r);
    int rc = 0;
    if (!xs || !r) {
        rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    for (int pass = 0; pass < 50; pass++) {
        size_t nx = 0;
        size_t which[2 * CAL_MAX_PARAMS];
        for (size_t j = 0; j < np; j++) {
            if (!c->isint[j])
                continue;
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                double v = x[j] + sgn;
                if (v < c->lo[j] || v > c->hi[j])
                    continue;
                memcpy(xs + nx * np, x, np * sizeof *x);
                xs[nx * np + j] = v;
                which[nx++] = j;
            }
        }
        if (nx == 0)
            break;
        rc = eval_many(c, xs, nx, r);
        if (rc)
            goto out;
        size_t best = nx;
        double bc = *cost;
        for (size_t k = 0; k < nx; k++) {
            double ck = cost_of(r + k * n, n);
            if (ck < bc - 1e-14 * (1 + bc)) {
                bc = ck;
                best = k;
            }
        }
        if (best == nx)
            break;
        x[which[best]] = xs[best * np + which[best]];
        *cost = bc;
    }
out:
    free(xs);
    free(r);
    return rc;
}

/* Standard errors, correlations, identifiability at model-space x. */
static int uncertainty(fitctx *c, const double *x, double cost,
                       cal_fit_out *out)
{
    size_t np = c->np, n = c->n;
    gsl_matrix *J = gsl_matrix_alloc(n, np);
    gsl_matrix *C = gsl_matrix_alloc(np, np);
    gsl_matrix *A = gsl_matrix_alloc(n, np);
    gsl_matrix *V = gsl_matrix_alloc(np, np);
    gsl_vector *S = gsl_vector_alloc(np);
    gsl_vector *wk = gsl_vector_alloc(np);
    int rc = 0;
    if (!J || !C || !A || !V || !S || !wk) {
        rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    double u[CAL_MAX_PARAMS];
    for (size_t j = 0; j < np; j++)
        u[j] = x[j] / c->s[j];
    c->have_cache = 0;
    rc = jacobian(c, u, J);
    if (rc)
        goto out;
    int st = gsl_multifit_nlinear_covar(J, 1e-10, C);
    if (st != GSL_SUCCESS) {
        rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0,
                         "covariance failed: %s", gsl_strerror(st));
        goto out;
    }
    double s2 = n > np ? 2.0 * cost / (double)(n - np) : NAN;
    for (size_t j = 0; j < np; j++) {
        double cjj = gsl_matrix_get(C, j, j);
        out->se[j] = cjj > 0 && isfinite(s2) ? c->s[j] * sqrt(s2 * cjj) : NAN;
        for (size_t k = 0; k < np; k++) {
            double ckk = gsl_matrix_get(C, k, k);
            double v = cjj > 0 && ckk > 0
                           ? gsl_matrix_get(C, j, k) / sqrt(cjj * ckk)
                           : (j == k ? 1.0 : 0.0);
            out->corr[j * np + k] = v;
        }
        out->unident[j] = !(cjj > 0);
    }
    /* SVD of the column-normalised Jacobian. */
    for (size_t j = 0; j < np; j++) {
        gsl_vector_view col = gsl_matrix_column(J, j);
        double nrm = gsl_blas_dnrm2(&col.vector);
        for (size_t i = 0; i < n; i++)
            gsl_matrix_set(A, i, j,
                           nrm > 0 ? gsl_matrix_get(J, i, j) / nrm : 0.0);
        if (!(nrm > 0))
            out->unident[j] = 1;
    }
    st = gsl_linalg_SV_decomp(A, V, S, wk);
    if (st != GSL_SUCCESS) {
        rc = wc_diag_set(c->d, WC_EINTERNAL, "", 0, 0, "SVD failed: %s",
                         gsl_strerror(st));
        goto out;
    }
    double smax = gsl_vector_get(S, 0);
    for (size_t k = 0; k < np; k++) {
        if (smax > 0 && gsl_vector_get(S, k) >= SV_TOL * smax)
            continue;
        for (size_t j = 0; j < np; j++)
            if (fabs(gsl_matrix_get(V, j, k)) > 0.2)
                out->unident[j] = 1;
    }
out:
    gsl_matrix_free(J);
    gsl_matrix_free(C);
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(S);
    gsl_vector_free(wk);
    return rc;
}

int cal_fit_problem(const cal_problem *p, cal_fit_out *out, double *wrob_out,
                    wc_diag *d)
{
    fitctx c;
    memset(&c, 0, sizeof c);
    memset(out, 0, sizeof *out);
    c.p = p;
    c.np = p->np;
    c.d = d;
    int rc = 0;
    if (p->np == 0 || p->np > CAL_MAX_PARAMS)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "number of parameters to fit must be 1..%d",
                           CAL_MAX_PARAMS);
    for (size_t i = 0; i < p->nm; i++)
        if (!p->use || p->use[i])
            c.n++;
    if (c.n < c.np)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "%zu measurements cannot determine %zu parameters",
                           c.n, c.np);
    c.rows = calloc(c.n, sizeof *c.rows);
    c.wrob = calloc(c.n, sizeof *c.wrob);
    c.confs = calloc(2 * c.np + 1, sizeof *c.confs);
    c.pred = calloc((2 * c.np + 1) * c.n, sizeof *c.pred);
    c.cache_u = calloc(c.np, sizeof *c.cache_u);
    c.cache_r = calloc(c.n, sizeof *c.cache_r);
    double *r = calloc(c.n, sizeof *r);
    if (!c.rows || !c.wrob || !c.confs || !c.pred || !c.cache_u ||
        !c.cache_r || !r) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0, k = 0; i < p->nm; i++) {
        if (p->use && !p->use[i])
            continue;
        if (!(p->m[i].measured > 0) || !isfinite(p->m[i].measured)) {
            rc = wc_diag_set(d, WC_EINPUT, p->m[i].src, 0, 0,
                             "measured value of %s must be positive",
                             p->m[i].label);
            goto out;
        }
        c.rows[k] = &p->m[i];
        c.wrob[k++] = 1.0;
    }
    double x[CAL_MAX_PARAMS], u[CAL_MAX_PARAMS];
    for (size_t j = 0; j < c.np; j++) {
        rc = cal_key_bounds(p->keys[j], &c.lo[j], &c.hi[j], &c.isint[j], d);
        if (rc)
            goto out;
        if (wc_gpu_get_num(p->base, p->keys[j], &x[j]) != 0) {
            rc = wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                             "cannot read key '%s'", p->keys[j]);
            goto out;
        }
        out->x0[j] = x[j];
        c.s[j] = fabs(x[j]) > 0 ? fabs(x[j]) : 1.0;
        u[j] = x[j] / c.s[j];
    }
    /* cost at the start */
    rc = eval_many(&c, x, 1, r);
    if (rc)
        goto out;
    out->cost0 = cost_of(r, c.n);

    double k = p->loss_scale > 0 ? p->loss_scale : 0.05;
    int rounds = p->loss == CAL_LOSS_LINEAR ? 1 : 10;
    for (int it = 0; it < rounds; it++) {
        rc = lm_solve(&c, u, out);
        if (rc)
            goto out;
        if (p->loss == CAL_LOSS_LINEAR)
            break;
        /* new robust weights from unweighted relative errors */
        for (size_t j = 0; j < c.np; j++)
            x[j] = x_of_u(&c, j, u[j]);
        rc = eval_many(&c, x, 1, r);
        if (rc)
            goto out;
        double dw = 0;
        for (size_t i = 0; i < c.n; i++) {
            double e = (c.pred[i] - c.rows[i]->measured) / c.rows[i]->measured;
            double w = robust_weight(p->loss, e, k);
            dw = fmax(dw, fabs(w - c.wrob[i]));
            c.wrob[i] = w;
        }
        c.have_cache = 0;
        if (dw < 1e-3)
            break;
    }
    for (size_t j = 0; j < c.np; j++)
        x[j] = x_of_u(&c, j, u[j]);
    rc = eval_many(&c, x, 1, r);
    if (rc)
        goto out;
    double cost = cost_of(r, c.n);
    rc = int_polish(&c, x, &cost);
    if (rc)
        goto out;
    out->cost = cost;
    for (size_t j = 0; j < c.np; j++) {
        out->x[j] = x[j];
        double tol = 1e-9 * fmax(1.0, fabs(x[j]));
        out->at_bound[j] = x[j] <= c.lo[j] + tol || x[j] >= c.hi[j] - tol;
    }
    rc = uncertainty(&c, x, cost, out);
    if (rc)
        goto out;
    out->nevals = c.nevals;
    if (wrob_out)
        for (size_t i = 0, kk = 0; i < p->nm; i++) {
            if (p->use && !p->use[i]) {
                wrob_out[i] = NAN;
                continue;
            }
            wrob_out[i] = c.wrob[kk++];
        }
out:
    free(c.rows);
    free(c.wrob);
    free(c.confs);
    free(c.pred);
    free(c.cache_u);
    free(c.cache_r);
    free(r);
    return rc;
}
