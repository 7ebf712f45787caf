/*
 * calib/report.c - the fit report (text, JSON) and the overlay config.
 *
 * Owns cal_report_text(), cal_report_json() and cal_write_overlay().  The
 * JSON object (docs/calibration.md):
 *   {"gpu", "gpu_source", "model", "loss", "converged", "stop_reason",
 *    "iterations", "evaluations", "cost_before", "cost_after",
 *    "mape_before", "mape_after", "mape_holdout_before",
 *    "mape_holdout_after", "mape_loo", "rows_fitted", "rows_held_out",
 *    "params": [{"key", "start", "value", "se", "lo", "hi", "integer",
 *                "at_bound", "unidentifiable", "correlated_with",
 *                "max_corr"}],
 *    "correlation": [[...]],
 *    "measurements": [{"label", "kind", "metric", "source", "match",
 *                      "measured", "before", "after", "error_before",
 *                      "error_after", "loo", "held_out", "robust_weight"}],
 *    "notes": [...], "seconds"}
 * Relative errors are (predicted - measured) / measured; NaN is null.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cal_int.h"
#include "wc_json.h"

static double relerr(double pred, double meas)
{
    return (pred - meas) / meas;
}

/* A real of the report: %.10g, NaN null. */
static void jnum(wc_json *j, const char *key, double v)
{
    wc_json_real(j, key, v, 10);
}

int cal_report_json(const cal_report *r, FILE *f)
{
    wc_json j;
    wc_json_begin(&j, f, 0);
    wc_json_obj(&j, NULL);
    wc_json_str(&j, "gpu", r->gpu);
    wc_json_str(&j, "gpu_source", r->gpu_source);
    wc_json_str(&j, "model", cal_model_name((int)r->model));
    wc_json_str(&j, "loss", cal_loss_name((int)r->loss));
    wc_json_bool(&j, "converged", r->converged);
    wc_json_str(&j, "stop_reason", r->stop_reason);
    wc_json_int(&j, "iterations", r->iterations);
    wc_json_int(&j, "evaluations", r->nevals);
    jnum(&j, "cost_before", r->cost0);
    jnum(&j, "cost_after", r->cost);
    jnum(&j, "mape_before", r->mape_before);
    jnum(&j, "mape_after", r->mape_after);
    jnum(&j, "mape_holdout_before", r->mape_holdout_before);
    jnum(&j, "mape_holdout_after", r->mape_holdout_after);
    jnum(&j, "mape_loo", r->mape_loo);
    wc_json_uint(&j, "rows_fitted", r->nfit_rows);
    wc_json_uint(&j, "rows_held_out", r->nholdout_rows);
    wc_json_ws(&j, "\n ");
    wc_json_arr(&j, "params");
    for (size_t k = 0; k < r->np; k++) {
        const cal_param_res *p = &r->p[k];
        wc_json_ws(&j, "\n   ");
        wc_json_obj(&j, NULL);
        wc_json_str(&j, "key", p->key);
        jnum(&j, "start", p->start);
        jnum(&j, "value", p->value);
        jnum(&j, "se", p->se);
        jnum(&j, "lo", p->lo);
        jnum(&j, "hi", p->hi);
        wc_json_bool(&j, "integer", p->is_int);
        wc_json_bool(&j, "at_bound", p->at_bound);
        wc_json_bool(&j, "unidentifiable", p->unidentifiable);
        if (p->correlated_with >= 0)
            wc_json_str(&j, "correlated_with", r->p[p->correlated_with].key);
        else
            wc_json_null(&j, "correlated_with");
        jnum(&j, "max_corr", p->max_corr);
        wc_json_obj_end(&j);
    }
    wc_json_arr_end(&j);
    wc_json_ws(&j, "\n ");
    wc_json_arr(&j, "correlation");
    for (size_t a = 0; a < r->np; a++) {
        wc_json_arr(&j, NULL);
        for (size_t b = 0; b < r->np; b++)
            jnum(&j, NULL, r->corr[a * r->np + b]);
        wc_json_arr_end(&j);
    }
    wc_json_arr_end(&j);
    wc_json_ws(&j, "\n ");
    wc_json_arr(&j, "measurements");
    for (size_t i = 0; i < r->meas.n; i++) {
        const cal_meas *m = &r->meas.m[i];
        const cal_meas_res *x = &r->mres[i];
        wc_json_ws(&j, "\n   ");
        wc_json_obj(&j, NULL);
        wc_json_str(&j, "label", m->label);
        wc_json_str(&j, "kind", cal_mkind_name((int)m->kind));
        wc_json_str(&j, "metric", cal_metric_name((int)m->metric));
        wc_json_str(&j, "source", m->src);
        wc_json_str(&j, "match", m->match);
        jnum(&j, "measured", m->measured);
        jnum(&j, "before", x->before);
        jnum(&j, "after", x->after);
        jnum(&j, "error_before", relerr(x->before, m->measured));
        jnum(&j, "error_after", relerr(x->after, m->measured));
        jnum(&j, "loo", x->loo);
        wc_json_bool(&j, "held_out", m->holdout);
        jnum(&j, "robust_weight", x->w_robust);
        wc_json_obj_end(&j);
    }
    wc_json_arr_end(&j);
    wc_json_ws(&j, "\n ");
    wc_json_arr(&j, "notes");
    const char *p = r->notes;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char buf[sizeof r->notes];
        snprintf(buf, sizeof buf, "%.*s", (int)l, p);
        wc_json_str(&j, NULL, buf);
        p += l + (e ? 1 : 0);
    }
    wc_json_arr_end(&j);
    jnum(&j, "seconds", r->seconds);
    wc_json_obj_end(&j);
    wc_json_end(&j);
    return ferror(f) ? WC_EINTERNAL : 0;
}

int cal_report_text(const cal_report *r, FILE *f)
{
    fprintf(f, "calibration of %s (%s), model %s, loss %s\n", r->gpu,
            r->gpu_source, cal_model_name((int)r->model),
            cal_loss_name((int)r->loss));
    fprintf(f, "solver: %s after %d iterations, %d model evaluations, "
               "%.2f s; cost %.6g -> %.6g\n",
            r->converged ? "converged" : "NOT converged", r->iterations,
            r->nevals, r->seconds, r->cost0, r->cost);
    fprintf(f, "  stop: %s\n\n", r->stop_reason);
    fprintf(f, "%-22s %14s %14s %12s %8s  %s\n", "parameter", "start",
            "fitted", "std.err", "max|r|", "flags");
    for (size_t j = 0; j < r->np; j++) {
        const cal_param_res *p = &r->p[j];
        char flags[256] = "";
        if (p->is_int)
            cal_appendf(flags, sizeof flags, "int ");
        if (p->at_bound)
            cal_appendf(flags, sizeof flags, "AT-BOUND ");
        if (p->unidentifiable)
            cal_appendf(flags, sizeof flags, "UNIDENTIFIABLE ");
        if (p->correlated_with >= 0)
            cal_appendf(flags, sizeof flags, "CORRELATED(%s)",
                        r->p[p->correlated_with].key);
        fprintf(f, "%-22s %14.6g %14.6g %12.4g %8.3f  %s\n", p->key,
                p->start, p->value, p->se, p->max_corr, flags);
    }
    fprintf(f, "\n%-34s %12s %12s %8s %12s %8s %8s\n", "measurement",
            "measured", "before", "err%", "after", "err%", "loo%");
    for (size_t i = 0; i < r->meas.n; i++) {
        const cal_meas *m = &r->meas.m[i];
        const cal_meas_res *x = &r->mres[i];
        fprintf(f, "%-34.34s %12.6g %12.6g %+8.2f %12.6g %+8.2f ", m->label,
                m->measured, x->before, 100 * relerr(x->before, m->measured),
                x->after, 100 * relerr(x->after, m->measured));
        if (isfinite(x->loo))
            fprintf(f, "%+8.2f", 100 * relerr(x->loo, m->measured));
        else
            fprintf(f, "%8s", "-");
        fprintf(f, "%s\n", m->holdout ? "  held out" : "");
    }
    fprintf(f, "\nMAPE fitted rows (%zu): %.3f%% before, %.3f%% after\n",
            r->nfit_rows, r->mape_before, r->mape_after);
    if (r->nholdout_rows)
        fprintf(f, "MAPE held-out rows (%zu): %.3f%% before, %.3f%% after\n",
                r->nholdout_rows, r->mape_holdout_before,
                r->mape_holdout_after);
    if (isfinite(r->mape_loo))
        fprintf(f, "MAPE leave-one-out: %.3f%%\n", r->mape_loo);
    fprintf(f, "\nmatching:\n");
    for (size_t i = 0; i < r->meas.n; i++)
        fprintf(f, "  %s (%s): %s\n", r->meas.m[i].label, r->meas.m[i].src,
                r->meas.m[i].match[0] ? r->meas.m[i].match : "-");
    if (r->notes[0])
        fprintf(f, "\nnotes:\n%s", r->notes);
    return ferror(f) ? WC_EINTERNAL : 0;
}

int cal_write_overlay(const cal_report *r, const char *path,
                      const char *base_ref, wc_diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0,
                           "cannot write overlay config");
    /* include target: relative to the overlay (config.c resolves includes
     * against the including file): the base's file name when both sit in
     * one directory, else its absolute path */
    char incbuf[PATH_MAX + 8];
    const char *inc = base_ref;
    if (!inc) {
        char src[PATH_MAX], odir[PATH_MAX], tmp[PATH_MAX];
        char r_src_fallback[PATH_MAX] = "";
        snprintf(incbuf, sizeof incbuf, "%s", r->gpu_source);
        if (!realpath(r->gpu_source, src) && !strchr(r->gpu, '/')) {
            /* a bundled name: data/gpus/NAME.cfg */
            char guess[PATH_MAX];
            snprintf(guess, sizeof guess, "%.2000s/gpus/%.200s.cfg",
                     wc_data_dir(), r->gpu);
            snprintf(incbuf, sizeof incbuf, "%s", guess);
            snprintf(r_src_fallback, sizeof r_src_fallback, "%s", guess);
        }
        if (realpath(r_src_fallback[0] ? r_src_fallback : r->gpu_source,
                     src)) {
            snprintf(incbuf, sizeof incbuf, "%s", src);
            snprintf(tmp, sizeof tmp, "%s", path);
            char *sl = strrchr(tmp, '/');
            if (sl)
                *sl = '\0';
            else
                snprintf(tmp, sizeof tmp, ".");
            char *ss = strrchr(src, '/');
            if (realpath(tmp, odir) && ss) {
                *ss = '\0';
                if (strcmp(odir, src) == 0)
                    snprintf(incbuf, sizeof incbuf, "%s", ss + 1);
            }
        }
        inc = incbuf;
    }
    time_t now = time(NULL);
    struct tm tmv;
    char date[32] = "";
    if (gmtime_r(&now, &tmv))
        strftime(date, sizeof date, "%Y-%m-%d", &tmv);
    fprintf(f, "# Calibration overlay written by warpcast calibrate on %s.\n",
            date);
    fprintf(f, "# Base: %s (%s); model %s, loss %s.\n", r->gpu, r->gpu_source,
            cal_model_name((int)r->model), cal_loss_name((int)r->loss));
    fprintf(f, "# Fitted to %zu measurements (%zu held out):\n",
            r->nfit_rows, r->nholdout_rows);
    /* name each distinct source file once */
    for (size_t i = 0; i < r->meas.n; i++) {
        char file[1024];
        snprintf(file, sizeof file, "%s", r->meas.m[i].src);
        char *c = strrchr(file, ':');
        if (c)
            *c = '\0';
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            char o[1024];
            snprintf(o, sizeof o, "%s", r->meas.m[j].src);
            char *oc = strrchr(o, ':');
            if (oc)
                *oc = '\0';
            seen = strcmp(o, file) == 0;
        }
        if (!seen) {
            size_t cnt = 0;
            for (size_t j = 0; j < r->meas.n; j++)
                if (strncmp(r->meas.m[j].src, file, strlen(file)) == 0)
                    cnt++;
            fprintf(f, "#   %s (%zu rows)\n", file, cnt);
        }
    }
    fprintf(f, "# MAPE %.3f%% before, %.3f%% after", r->mape_before,
            r->mape_after);
    if (isfinite(r->mape_loo))
        fprintf(f, ", leave-one-out %.3f%%", r->mape_loo);
    if (r->nholdout_rows)
        fprintf(f, ", held-out %.3f%%", r->mape_holdout_after);
    fprintf(f, ".\n\ninclude %s\n\n", inc);
    for (size_t j = 0; j < r->np; j++) {
        const cal_param_res *p = &r->p[j];
        char val[64];
        if (p->is_int)
            snprintf(val, sizeof val, "%.0f", p->value);
        else
            snprintf(val, sizeof val, "%.6g", p->value);
        fprintf(f, "%-20s = %-12s # fitted, std.err %.3g (start %.6g)%s%s\n",
                p->key, val, p->se, p->start,
                p->unidentifiable ? ", NOT IDENTIFIABLE" : "",
                p->at_bound ? ", at bound" : "");
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0,
                           "error writing overlay config");
    return 0;
}
