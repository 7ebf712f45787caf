/*
 * calib/run.c - the calibration job: options, measurements, fit, checks.
 *
 * Owns cal_run() (what `warpcast calibrate` calls) and cal_fit(): rows held
 * out (--holdout, or a holdout column) are predicted but not fitted; the
 * fit is redone without each fitted row for the leave-one-out error
 * (--loo), starting from the full fit.  GSL's abort-on-error handler is
 * switched off once, here, before any GSL call.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cal_int.h"

static pthread_once_t gsl_once = PTHREAD_ONCE_INIT;

static void gsl_quiet(void)
{
    gsl_set_error_handler_off();
}

void cal_options_init(cal_options *o)
{
    memset(o, 0, sizeof *o);
    o->model = CAL_MODEL_INTERVAL;
    o->loss = CAL_LOSS_LINEAR;
    o->loss_scale = 0.05;
}

void cal_report_free(cal_report *r)
{
    if (!r)
        return;
    cal_mset_free(&r->meas);
    free(r->mres);
    r->mres = NULL;
}

/* Configuration = base with the keys set to x. */
static int conf_with(const wc_gpu *base, const char *const *keys, size_t np,
                     const double *x, wc_gpu *out, wc_diag *d)
{
    *out = *base;
    for (size_t j = 0; j < np; j++) {
        int rc = wc_gpu_set_num(out, keys[j], x[j], d);
        if (rc)
            return rc;
    }
    return 0;
}

static int predict_all(cal_eval_fn eval, void *ctx, const wc_gpu *g,
                       const cal_mset *s, int threads, double *out,
                       wc_diag *d)
{
    const cal_meas **rows = calloc(s->n ? s->n : 1, sizeof *rows);
    if (!rows)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    for (size_t i = 0; i < s->n; i++)
        rows[i] = &s->m[i];
    int rc = cal_eval_batch(eval, ctx, g, 1, rows, s->n, threads, out, d);
    free(rows);
    return rc;
}

int cal_fit(const cal_options *o, const wc_gpu *base, cal_mset *s,
            cal_report *rep, wc_diag *d)
{
    pthread_once(&gsl_once, gsl_quiet);
    double t0 = wc_now();
    memset(rep, 0, sizeof *rep);
    rep->meas = *s;
    cal_mset_init(s);
    rep->model = o->model;
    rep->loss = o->loss;
    snprintf(rep->gpu, sizeof rep->gpu, "%s", o->gpu ? o->gpu : base->name);
    snprintf(rep->gpu_source, sizeof rep->gpu_source, "%s", base->source);
    rep->mape_holdout_before = rep->mape_holdout_after = NAN;
    rep->mape_loo = NAN;
    size_t n = rep->meas.n, np = o->nfit;
    int rc = 0;
    int *use = NULL, *use2 = NULL;
    double *before = NULL, *after = NULL, *wrob = NULL;
    cal_fit_out *fo = NULL;
    if (np == 0 || np > CAL_MAX_PARAMS)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "--fit names %zu keys (1..%d allowed)", np,
                           CAL_MAX_PARAMS);
    for (size_t j = 0; j < np; j++)
        for (size_t k = 0; k < j; k++)
            if (strcmp(o->fit[j], o->fit[k]) == 0)
                return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                                   "--fit names '%s' twice", o->fit[j]);
    rep->mres = calloc(n ? n : 1, sizeof *rep->mres);
    use = calloc(n ? n : 1, sizeof *use);
    use2 = calloc(n ? n : 1, sizeof *use2);
    before = calloc(n ? n : 1, sizeof *before);
    after = calloc(n ? n : 1, sizeof *after);
    wrob = calloc(n ? n : 1, sizeof *wrob);
    fo = calloc(1, sizeof *fo);
    if (!rep->mres || !use || !use2 || !before || !after || !wrob || !fo) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    cal_builtin_ctx bctx = {o->model, o->seed, o->open, o->open_ctx};
    cal_eval_fn eval = o->eval ? o->eval : cal_eval_builtin;
    void *ctx = o->eval ? o->eval_ctx : &bctx;

    /* rows to fit */
    wc_rng rng;
    wc_rng_seed(&rng, o->seed ^ 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < n; i++) {
        int hold = rep->meas.m[i].holdout;
        if (o->holdout > 0 && wc_rng_uniform(&rng) < o->holdout)
            hold = 1;
        rep->meas.m[i].holdout = hold;
        use[i] = !hold;
        rep->nfit_rows += (size_t)use[i];
    }
    rep->nholdout_rows = n - rep->nfit_rows;

    rc = predict_all(eval, ctx, base, &rep->meas, o->threads, before, d);
    if (rc)
        goto out;

    cal_problem pb;
    memset(&pb, 0, sizeof pb);
    pb.base = base;
    pb.np = np;
    pb.keys = o->fit;
    pb.m = rep->meas.m;
    pb.nm = n;
    pb.use = use;
    pb.eval = eval;
    pb.ctx = ctx;
    pb.loss = o->loss;
    pb.loss_scale = o->loss_scale;
    pb.threads = o->threads;
    pb.max_iter = o->max_iter;
    rc = cal_fit_problem(&pb, fo, wrob, d);
    if (rc)
        goto out;
    rc = conf_with(base, o->fit, np, fo->x, &rep->fitted, d);
    if (rc)
        goto out;
    rc = predict_all(eval, ctx, &rep->fitted, &rep->meas, o->threads, after,
                     d);
    if (rc)
        goto out;

    rep->np = np;
    rep->converged = fo->converged;
    snprintf(rep->stop_reason, sizeof rep->stop_reason, "%s",
             fo->stop_reason);
    rep->iterations = fo->iterations;
    rep->nevals = fo->nevals;
    rep->cost0 = fo->cost0;
    rep->cost = fo->cost;
    memcpy(rep->corr, fo->corr, sizeof rep->corr);
    for (size_t j = 0; j < np; j++) {
        cal_param_res *p = &rep->p[j];
        snprintf(p->key, sizeof p->key, "%s", o->fit[j]);
        rc = cal_key_bounds(o->fit[j], &p->lo, &p->hi, &p->is_int, d);
        if (rc)
            goto out;
        p->start = fo->x0[j];
        p->value = fo->x[j];
        p->se = fo->se[j];
        p->at_bound = fo->at_bound[j];
        p->unidentifiable = fo->unident[j];
        p->correlated_with = -1;
        p->max_corr = 0;
        for (size_t k = 0; k < np; k++) {
            double r = fabs(fo->corr[j * np + k]);
            if (k == j || !(r > p->max_corr))
                continue;
            p->max_corr = r;
            if (r > 0.95)
                p->correlated_with = (int)k;
        }
        if (p->unidentifiable)
            cal_appendf(rep->notes, sizeof rep->notes,
                        "%s is not identifiable from these measurements; "
                        "fix it (--set) or add data that moves it.\n",
                        p->key);
        else if (p->correlated_with >= 0)
            cal_appendf(rep->notes, sizeof rep->notes,
                        "%s and %s are correlated (|r| = %.3f): the data "
                        "determine a combination of them.\n",
                        p->key, o->fit[p->correlated_with], p->max_corr);
        if (p->at_bound)
            cal_appendf(rep->notes, sizeof rep->notes,
                        "%s ended at its bound; its standard error is not "
                        "meaningful.\n", p->key);
    }
    if (!rep->converged)
        cal_appendf(rep->notes, sizeof rep->notes,
                    "the solver did not converge: %s.\n", rep->stop_reason);
    for (size_t i = 0; i < n; i++) {
        rep->mres[i].before = before[i];
        rep->mres[i].after = after[i];
        rep->mres[i].loo = NAN;
        rep->mres[i].w_robust = use[i] ? wrob[i] : NAN;
        use2[i] = !use[i];
    }
    rep->mape_before = cal_mape(rep->meas.m, before, use, n);
    rep->mape_after = cal_mape(rep->meas.m, after, use, n);
    if (rep->nholdout_rows) {
        rep->mape_holdout_before = cal_mape(rep->meas.m, before, use2, n);
        rep->mape_holdout_after = cal_mape(rep->meas.m, after, use2, n);
    }

    if (o->loo && rep->nfit_rows > np) {
        double sum = 0;
        size_t cnt = 0;
        cal_problem lp = pb;
        lp.base = &rep->fitted;
        lp.use = use2;
        for (size_t i = 0; i < n; i++) {
            if (!use[i])
                continue;
            memcpy(use2, use, n * sizeof *use);
            use2[i] = 0;
            cal_fit_out *lo = calloc(1, sizeof *lo);
            if (!lo) {
                rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
                goto out;
            }
            rc = cal_fit_problem(&lp, lo, NULL, d);
            wc_gpu g;
            if (!rc)
                rc = conf_with(base, o->fit, np, lo->x, &g, d);
            free(lo);
            if (rc)
                goto out;
            double v;
            rc = eval(ctx, &g, &rep->meas.m[i], &v, d);
            if (rc)
                goto out;
            rep->mres[i].loo = v;
            sum += fabs(v - rep->meas.m[i].measured) /
                   rep->meas.m[i].measured;
            cnt++;
        }
        rep->mape_loo = cnt ? 100.0 * sum / (double)cnt : NAN;
    } else if (o->loo) {
        cal_appendf(rep->notes, sizeof rep->notes,
                    "leave-one-out skipped: %zu fitted rows for %zu "
                    "parameters.\n", rep->nfit_rows, np);
    }
out:
    rep->seconds = wc_now() - t0;
    free(use);
    free(use2);
    free(before);
    free(after);
    free(wrob);
    free(fo);
    return rc;
}

int cal_run(const cal_options *o, cal_report *rep, wc_diag *d)
{
    pthread_once(&gsl_once, gsl_quiet);
    memset(rep, 0, sizeof *rep);
    if (!o->gpu || !o->gpu[0])
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "calibrate needs --gpu NAME|FILE");
    if (o->nmeasured == 0)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "calibrate needs at least one --measured FILE");
    if (!o->eval && !cal_model_available(o->model))
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "the %s model is not built into this warpcast",
                           cal_model_name((int)o->model));
    wc_gpu *g = malloc(sizeof *g);
    if (!g)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    cal_mset s;
    cal_mset_init(&s);
    int rc = wc_gpu_load(o->gpu, g, d);
    for (size_t i = 0; !rc && i < o->nsets; i++)
        rc = wc_gpu_set(g, o->sets[i], d);
    for (size_t i = 0; !rc && i < o->nmeasured; i++)
        rc = cal_mset_read(&s, o->measured[i], &o->read, d);
    if (!rc && s.n == 0)
        rc = wc_diag_set(d, WC_EINPUT, o->measured[0], 0, 0,
                         "no measurements selected");
    if (!rc)
        rc = cal_mset_match(&s, d);
    if (!rc)
        rc = cal_fit(o, g, &s, rep, d);
    if (!rc && o->out_cfg)
        rc = cal_write_overlay(rep, o->out_cfg, NULL, d);
    cal_mset_free(&s);
    free(g);
    return rc;
}
