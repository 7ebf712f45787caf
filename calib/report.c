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

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);
}

static double relerr(double pred, double meas)
{
    return (pred - meas) / meas;
}

int cal_report_json(const cal_report *r, FILE *f)
{
    fputs("{\"gpu\": ", f);
    jstr(f, r->gpu);
    fputs(", \"gpu_source\": ", f);
    jstr(f, r->gpu_source);
    fprintf(f, ", \"model\": \"%s\", \"loss\": \"%s\", \"converged\": %s, "
               "\"stop_reason\": ",
            cal_model_name((int)r->model), cal_loss_name((int)r->loss),
            r->converged ? "true" : "false");
    jstr(f, r->stop_reason);
    fprintf(f, ", \"iterations\": %d, \"evaluations\": %d", r->iterations,
            r->nevals);
    fputs(", \"cost_before\": ", f);
    jnum(f, r->cost0);
    fputs(", \"cost_after\": ", f);
    jnum(f, r->cost);
    fputs(", \"mape_before\": ", f);
    jnum(f, r->mape_before);
    fputs(", \"mape_after\": ", f);
    jnum(f, r->mape_after);
    fputs(", \"mape_holdout_before\": ", f);
    jnum(f, r->mape_holdout_before);
    fputs(", \"mape_holdout_after\": ", f);
    jnum(f, r->mape_holdout_after);
    fputs(", \"mape_loo\": ", f);
    jnum(f, r->mape_loo);
    fprintf(f, ", \"rows_fitted\": %zu, \"rows_held_out\": %zu",
            r->nfit_rows, r->nholdout_rows);
    fputs(",\n \"params\": [", f);
    for (size_t j = 0; j < r->np; j++) {
        const cal_param_res *p = &r->p[j];
        fputs(j ? ",\n   {\"key\": " : "\n   {\"key\": ", f);
        jstr(f, p->key);
        fputs(", \"start\": ", f);
        jnum(f, p->start);
        fputs(", \"value\": ", f);
        jnum(f, p->value);
        fputs(", \"se\": ", f);
        jnum(f, p->se);
        fputs(", \"lo\": ", f);
        jnum(f, p->lo);
        fputs(", \"hi\": ", f);
        jnum(f, p->hi);
        fprintf(f, ", \"integer\": %s, \"at_bound\": %s, "
                   "\"unidentifiable\": %s, \"correlated_with\": ",
                p->is_int ? "true" : "false", p->at_bound ? "true" : "false",
                p->unidentifiable ? "true" : "false");
        if (p->correlated_with >= 0)
            jstr(f, r->p[p->correlated_with].key);
        else
            fputs("null", f);
        fputs(", \"max_corr\": ", f);
        jnum(f, p->max_corr);
        fputc('}', f);
    }
    fputs("],\n \"correlation\": [", f);
    for (size_t j = 0; j < r->np; j++) {
        fputs(j ? ", [" : "[", f);
        for (size_t k = 0; k < r->np; k++) {
            if (k)
                fputs(", ", f);
            jnum(f, r->corr[j * r->np + k]);
        }
        fputc(']', f);
    }
    fputs("],\n \"measurements\": [", f);
    for (size_t i = 0; i < r->meas.n; i++) {
        const cal_meas *m = &r->meas.m[i];
        const cal_meas_res *x = &r->mres[i];
        fputs(i ? ",\n   {\"label\": " : "\n   {\"label\": ", f);
        jstr(f, m->label);
        fprintf(f, ", \"kind\": \"%s\", \"metric\": \"%s\", \"source\": ",
                cal_mkind_name((int)m->kind), cal_metric_name((int)m->metric));
        jstr(f, m->src);
        fputs(", \"match\": ", f);
        jstr(f, m->match);
        fputs(", \"measured\": ", f);
        jnum(f, m->measured);
        fputs(", \"before\": ", f);
        jnum(f, x->before);
        fputs(", \"after\": ", f);
        jnum(f, x->after);
        fputs(", \"error_before\": ", f);
        jnum(f, relerr(x->before, m->measured));
        fputs(", \"error_after\": ", f);
        jnum(f, relerr(x->after, m->measured));
        fputs(", \"loo\": ", f);
        jnum(f, x->loo);
        fprintf(f, ", \"held_out\": %s, \"robust_weight\": ",
                m->holdout ? "true" : "false");
        jnum(f, x->w_robust);
        fputc('}', f);
    }
    fputs("],\n \"notes\": [", f);
    const char *p = r->notes;
    int first = 1;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char buf[sizeof r->notes];
        snprintf(buf, sizeof buf, "%.*s", (int)l, p);
        if (!first)
            fputs(", ", f);
        jstr(f, buf);
        first = 0;
        p += l + (e ? 1 : 0);
    }
    fputs("], \"seconds\": ", f);
    jnum(f, r->seconds);
    fputs("}\n", f);
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
