/*
 * cli/cmd_report.c - `warpcast report --out FILE.html RESULT...`: one
 * self-contained HTML file (inline SVG and CSS, no script, no network) from
 * predict JSON (per-kernel cycles and CPI-stack / stall bars), sweep tables
 * (CSV or JSON lines: total cycles and speed-up vs each varied key) and
 * calibrate JSON (measured vs predicted scatter with the errors).
 * The output depends only on the inputs (no dates), so it can be checked in.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "study.h"

static const char report_help[] =
    "usage: warpcast report --out FILE.html RESULT...\n"
    "\n"
    "Writes one self-contained HTML page (inline SVG, no network access) with\n"
    "the figures of each RESULT, which is one of\n"
    "  - the JSON of 'warpcast predict --format json': cycles per kernel and\n"
    "    the CPI stack (interval) or no-issue cycles (detailed) per kernel;\n"
    "  - a table of 'warpcast sweep' (CSV or JSON lines) or 'warpcast merge':\n"
    "    total cycles and speed-up against each varied key;\n"
    "  - the JSON of 'warpcast calibrate --format json': measured vs predicted\n"
    "    cycles before and after the fit, with the errors.\n"
    "\n"
    "options:\n"
    "  --out FILE.html   the page (default: standard output)\n"
    "  --title TEXT      page title (default \"warpcast report\")\n"
    "  --svg-dir DIR     also write each figure as a standalone SVG file,\n"
    "                    DIR/figNN-KIND.svg (NN from 01 in page order; KIND\n"
    "                    bars, stack, lines or scatter), for documents\n"
    "  --quiet           no summary on stderr\n";

static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a"};
#define NPAL (sizeof palette / sizeof palette[0])

static void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void fmt_num(char *b, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(b, n, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(b, n, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(b, n, "%.3gk", v / 1e3);
    else
        snprintf(b, n, "%.4g", v);
}

/* ---- axes ------------------------------------------------------------------ */
typedef struct axis {
    double lo, hi;
    int log;
    double px0, px1; /* pixel range */
} axis;

static double ax_map(const axis *a, double v)
{
    double t;
    if (a->log)
        t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    else
        t = (v - a->lo) / (a->hi - a->lo);
    return a->px0 + t * (a->px1 - a->px0);
}

static double nice_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
}

static void ax_fit(axis *a, double lo, double hi, int zero)
{
    if (a->log) {
        if (!(lo > 0))
            lo = 1;
        if (!(hi > lo))
            hi = lo * 10;
        a->lo = pow(10, floor(log10(lo)));
        a->hi = pow(10, ceil(log10(hi)));
        if (a->hi <= a->lo)
            a->hi = a->lo * 10;
        return;
    }
    if (zero && lo > 0)
        lo = 0;
    if (!(hi > lo)) {
        hi = lo + (lo != 0 ? fabs(lo) * 0.1 : 1);
        lo = lo - (lo != 0 ? fabs(lo) * 0.1 : 0);
    }
    double st = nice_step(hi - lo);
    a->lo = floor(lo / st) * st;
    a->hi = ceil(hi / st) * st;
}

/* One tick of an axis at pixel P: its grid line and its text B. */
static void ax_tick(FILE *f, int vertical, double p, double other0, double other1,
                    const char *b)
{
    if (vertical)
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                other0, p, other1, p, other0 - 4, p + 4, b);
    else
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                p, other0, p, other1, p, other0 + 16, b);
}

/* Draw ticks and grid of an axis; vertical = y axis. */
static void ax_draw(FILE *f, const axis *a, int vertical, double other0,
                    double other1, const char *label)
{
    char b[32];
    if (a->log) {
        for (double v = a->lo; v <= a->hi * 1.0001; v *= 10) {
            fmt_num(b, sizeof b, v);
            ax_tick(f, vertical, ax_map(a, v), other0, other1, b);
        }
    } else {
        double st = nice_step(a->hi - a->lo);
        for (double v = a->lo; v <= a->hi + st * 1e-6; v += st) {
            fmt_num(b, sizeof b, fabs(v) < st * 1e-9 ? 0 : v);
            ax_tick(f, vertical, ax_map(a, v), other0, other1, b);
        }
    }
    if (vertical) {
        double mid = (a->px0 + a->px1) / 2;
        fprintf(f, "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
                   "text-anchor=\"middle\">", other0 - 52, mid);
    } else {
        fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                (a->px0 + a->px1) / 2, other0 + 36);
    }
    html_text(f, label);
    fputs("</text>\n", f);
}

/* ---- charts --------------------------------------------------------------------- */
typedef struct series {
    char name[256];
    size_t n;
    double x[512], y[512];
} series;

#define CH_W 760
#define CH_H 380
#define ML 80
#define MR 220
#define MT 34
#define MB 56

static void chart_begin(FILE *f, const char *title, int w, int h, const char *cls)
{
    fprintf(f, "<figure><svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n"
               "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>\n"
               "<text class=\"title\" x=\"%d\" y=\"20\">",
            cls, w, h, w, h, w, h, ML);
    html_text(f, title);
    fputs("</text>\n", f);
}

static void chart_end(FILE *f) { fputs("</svg></figure>\n", f); }

static void legend(FILE *f, int i, const char *name, int w)
{
    double x = w - MR + 16, y = MT + 8 + 18 * i;
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
               "<text x=\"%.1f\" y=\"%.1f\">",
            x, y, palette[(size_t)i % NPAL], x + 16, y + 10);
    char b[40];
    snprintf(b, sizeof b, "%s", name);
    if (strlen(name) > 30)
        memcpy(b + 27, "...", 4);
    html_text(f, b);
    fputs("</text>\n", f);
}

/* A tick of xy_chart's own x axis (categories, or nice values inside a
 * padded range) at pixel P, labelled TEXT. */
static void x_tick(FILE *f, double p, const char *text)
{
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
               "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
            p, CH_H - MB, p, MT, p, CH_H - MB + 16);
    html_text(f, text);
    fputs("</text>\n", f);
}

/* Line chart of series (markers, and lines unless scatter).  diag: draw y=x. */
static void xy_chart(FILE *f, const char *title, const char *xlab, const char *ylab,
                     series *s, size_t ns, int logxy, int scatter, int diag,
                     const char *cls, char *const *xcat, size_t nxcat)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            if (logxy && (!(s[i].x[k] > 0) || !(s[i].y[k] > 0)))
                continue;
            xlo = fmin(xlo, s[i].x[k]);
            xhi = fmax(xhi, s[i].x[k]);
            ylo = fmin(ylo, s[i].y[k]);
            yhi = fmax(yhi, s[i].y[k]);
        }
    if (!isfinite(xlo))
        xlo = 0, xhi = 1, ylo = 0, yhi = 1;
    if (diag) {
        xlo = ylo = fmin(xlo, ylo);
        xhi = yhi = fmax(xhi, yhi);
    }
    axis ax = {0, 0, logxy, ML, CH_W - MR}, ay = {0, 0, logxy, CH_H - MB, MT};
    if (xcat) {
        ax.lo = -0.5;
        ax.hi = (double)nxcat - 0.5;
    } else if (!logxy && xhi > xlo) {
        double pad = (xhi - xlo) * 0.05;
        ax.lo = xlo - pad;
        ax.hi = xhi + pad;
    } else
        ax_fit(&ax, xlo, xhi, 0);
    ax_fit(&ay, ylo, yhi, !logxy && !diag);
    chart_begin(f, title, CH_W, CH_H, cls);
    ax_draw(f, &ay, 1, ML, CH_W - MR, ylab);
    if (xcat || (!logxy && ax.hi > ax.lo)) {
        if (xcat) {
            for (size_t c = 0; c < nxcat; c++)
                x_tick(f, ax_map(&ax, (double)c), xcat[c]);
        } else {
            /* ticks at nice values inside the padded range */
            double st = nice_step(xhi > xlo ? xhi - xlo : 1);
            for (double v = ceil(ax.lo / st) * st; v <= ax.hi; v += st) {
                char b[32];
                fmt_num(b, sizeof b, fabs(v) < st * 1e-9 ? 0 : v);
                x_tick(f, ax_map(&ax, v), b);
            }
        }
        fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                (ax.px0 + ax.px1) / 2, CH_H - MB + 36);
        html_text(f, xlab);
        fputs("</text>\n", f);
    } else
        ax_draw(f, &ax, 0, CH_H - MB, MT, xlab);
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
            ML, MT, CH_W - MR - ML, CH_H - MB - MT);
    if (diag)
        fprintf(f, "<line class=\"diag\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                ax_map(&ax, ax.lo), ax_map(&ay, ay.lo), ax_map(&ax, ax.hi),
                ax_map(&ay, ay.hi));
    for (size_t i = 0; i < ns; i++) {
        const char *col = palette[i % NPAL];
        if (!scatter && s[i].n > 1) {
            fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" points=\"", col);
            for (size_t k = 0; k < s[i].n; k++)
                if (!logxy || (s[i].x[k] > 0 && s[i].y[k] > 0))
                    fprintf(f, "%.1f,%.1f ", ax_map(&ax, s[i].x[k]), ax_map(&ay, s[i].y[k]));
            fputs("\"/>\n", f);
        }
        for (size_t k = 0; k < s[i].n; k++) {
            if (logxy && !(s[i].x[k] > 0 && s[i].y[k] > 0))
                continue;
            char bx[32], by[32];
            fmt_num(bx, sizeof bx, s[i].x[k]);
            fmt_num(by, sizeof by, s[i].y[k]);
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>",
                    ax_map(&ax, s[i].x[k]), ax_map(&ay, s[i].y[k]), col);
            html_text(f, s[i].name);
            fprintf(f, ": %s, %s</title></circle>\n", xcat ? xcat[(size_t)s[i].x[k]] : bx, by);
        }
        legend(f, (int)i, s[i].name, CH_W);
    }
    chart_end(f);
}

/* ---- predict JSON ------------------------------------------------------------- */
static void short_name(char *b, size_t n, const char *name)
{
    snprintf(b, n, "%s", name);
    if (strlen(name) >= n && n > 4)
        memcpy(b + n - 4, "...", 4);
}

/* The kernel name left of a bar row at Y (the <text> left open). */
static void row_label(FILE *f, const jv *kk, int lw, double y)
{
    char nm[48];
    short_name(nm, sizeof nm, jv_str(jv_get(kk, "name"), "?"));
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", lw - 6, y + 14);
    html_text(f, nm);
}

static void report_predict(FILE *f, const jv *o, const char *path)
{
    const jv *ks = jv_get(o, "kernels");
    size_t nk = ks ? ks->n : 0;
    fputs("<section class=\"predict\"><h2>Prediction: ", f);
    html_text(f, path);
    fputs("</h2>\n<p>GPU <b>", f);
    html_text(f, jv_str(jv_get(o, "gpu"), "?"));
    fputs("</b>, mode <b>", f);
    html_text(f, jv_str(jv_get(o, "mode"), "?"));
    char b[32];
    fmt_num(b, sizeof b, jv_num(jv_get(o, "total_cycles"), 0));
    fprintf(f, "</b>, %zu kernels, total %s cycles.</p>\n", nk, b);
    if (!nk) {
        fputs("</section>\n", f);
        return;
    }
    /* cycles per kernel: horizontal bars */
    int rowh = 20, lw = 300;
    int h = MT + (int)nk * rowh + MB;
    double maxc = 0;
    for (size_t k = 0; k < nk; k++)
        maxc = fmax(maxc, jv_num(jv_get(&ks->items[k], "cycles"), 0));
    axis ax = {0, 0, 0, lw, CH_W - 40};
    ax_fit(&ax, 0, maxc, 1);
    chart_begin(f, "cycles per kernel", CH_W, h, "cycles");
    ax_draw(f, &ax, 0, h - MB, MT, "cycles");
    for (size_t k = 0; k < nk; k++) {
        const jv *kk = &ks->items[k];
        double c = jv_num(jv_get(kk, "cycles"), 0), y = MT + (double)k * rowh;
        fmt_num(b, sizeof b, c);
        row_label(f, kk, lw, y);
        fprintf(f, "</text><rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%d\" fill=\"%s\"><title>",
                lw, y + 3, ax_map(&ax, c) - lw, rowh - 6, palette[0]);
        html_text(f, jv_str(jv_get(kk, "mangled"), jv_str(jv_get(kk, "name"), "?")));
        fprintf(f, ": %s cycles</title></rect>\n", b);
        const jv *ci = jv_get(kk, "ci95");
        if (ci && ci->type == JV_ARR && ci->n == 2) {
            double x0 = ax_map(&ax, jv_num(&ci->items[0], c)),
                   x1 = ax_map(&ax, jv_num(&ci->items[1], c));
            fprintf(f, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    x0, y + rowh / 2.0, x1, y + rowh / 2.0);
        }
    }
    chart_end(f);
    /* CPI stack / stalls: 100% stacked bars */
    const char *key = NULL;
    for (size_t k = 0; k < nk && !key; k++) {
        if (jv_get(&ks->items[k], "cpi_stack"))
            key = "cpi_stack";
        else if (jv_get(&ks->items[k], "stalls"))
            key = "stalls";
    }
    if (key) {
        /* the categories used by any kernel, in order of first appearance */
        const char *cat[64];
        size_t ncat = 0;
        for (size_t k = 0; k < nk; k++) {
            const jv *st = jv_get(&ks->items[k], key);
            for (size_t i = 0; st && i < st->n; i++) {
                if (!(jv_num(&st->items[i], 0) > 0))
                    continue;
                size_t c = 0;
                while (c < ncat && strcmp(cat[c], st->keys[i]))
                    c++;
                if (c == ncat && ncat < 64)
                    cat[ncat++] = st->keys[i];
            }
        }
        int w = CH_W;
        if (h < MT + 18 * (int)ncat + 24)
            h = MT + 18 * (int)ncat + 24; /* room for the legend */
        axis ap = {0, 100, 0, lw, w - MR};
        chart_begin(f, !strcmp(key, "stalls") ? "no-issue cycles by reason (detailed model)"
                                              : "CPI stack (interval model)",
                    w, h, "cpistack");
        ax_draw(f, &ap, 0, h - MB, MT, "% of the kernel's cycles");
        for (size_t k = 0; k < nk; k++) {
            const jv *kk = &ks->items[k];
            const jv *st = jv_get(kk, key);
            double y = MT + (double)k * rowh, sum = 0, at = lw;
            for (size_t i = 0; st && i < st->n; i++)
                sum += fmax(0, jv_num(&st->items[i], 0));
            row_label(f, kk, lw, y);
            fputs("</text>\n", f);
            for (size_t c = 0; c < ncat && sum > 0; c++) {
                const jv *v = jv_get(st, cat[c]);
                double pct = 100 * fmax(0, jv_num(v, 0)) / sum;
                if (!(pct > 0))
                    continue;
                double wpx = ax_map(&ap, pct) - lw;
                fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                           "height=\"%d\" fill=\"%s\"><title>",
                        at, y + 3, wpx, rowh - 6, palette[c % NPAL]);
                html_text(f, cat[c]);
                fprintf(f, ": %.1f%%</title></rect>\n", pct);
                at += wpx;
            }
        }
        for (size_t c = 0; c < ncat; c++)
            legend(f, (int)c, cat[c], w);
        chart_end(f);
    }
    fputs("</section>\n", f);
}

/* ---- calibrate JSON ------------------------------------------------------------- */
static void report_calibrate(FILE *f, const jv *o, const char *path)
{
    const jv *ms = jv_get(o, "measurements");
    size_t n = ms ? ms->n : 0;
    fputs("<section class=\"calibrate\"><h2>Calibration: ", f);
    html_text(f, path);
    fputs("</h2>\n<p>GPU <b>", f);
    html_text(f, jv_str(jv_get(o, "gpu"), "?"));
    fputs("</b>, model <b>", f);
    html_text(f, jv_str(jv_get(o, "model"), "?"));
    fprintf(f, "</b>: MAPE %.2f%% before, %.2f%% after the fit (%zu measurements).</p>\n",
            jv_num(jv_get(o, "mape_before"), NAN), jv_num(jv_get(o, "mape_after"), NAN), n);
    series *s = calloc(2, sizeof *s);
    if (!s)
        return;
    snprintf(s[0].name, sizeof s[0].name, "before the fit");
    snprintf(s[1].name, sizeof s[1].name, "after the fit");
    for (size_t i = 0; i < n && i < 512; i++) {
        const jv *m = &ms->items[i];
        double meas = jv_num(jv_get(m, "measured"), NAN);
        s[0].x[s[0].n] = meas;
        s[0].y[s[0].n++] = jv_num(jv_get(m, "before"), NAN);
        s[1].x[s[1].n] = meas;
        s[1].y[s[1].n++] = jv_num(jv_get(m, "after"), NAN);
    }
    xy_chart(f, "measured vs predicted cycles (log-log; on the diagonal = exact)",
             "measured cycles", "predicted cycles", s, 2, 1, 1, 1, "scatter", NULL, 0);
    free(s);
    fputs("<table><tr><th>measurement</th><th>measured</th><th>before</th><th>error</th>"
          "<th>after</th><th>error</th></tr>\n", f);
    for (size_t i = 0; i < n; i++) {
        const jv *m = &ms->items[i];
        fputs("<tr><td>", f);
        html_text(f, jv_str(jv_get(m, "label"), "?"));
        fprintf(f, "</td><td>%.6g</td><td>%.6g</td><td>%+.2f%%</td><td>%.6g</td>"
                   "<td>%+.2f%%</td></tr>\n",
                jv_num(jv_get(m, "measured"), NAN), jv_num(jv_get(m, "before"), NAN),
                100 * jv_num(jv_get(m, "error_before"), NAN),
                jv_num(jv_get(m, "after"), NAN),
                100 * jv_num(jv_get(m, "error_after"), NAN));
    }
    fputs("</table></section>\n", f);
}

/* ---- sweep table --------------------------------------------------------------- */
typedef struct pt {
    char **v;      /* the point's cells (trace, keys, mode, seed) */
    double cycles; /* summed over the kernels */
} pt;

static int all_numeric(const st_table *t, int c)
{
    for (size_t r = 0; r < t->nrow; r++) {
        char *e;
        strtod(t->row[r][c], &e);
        if (!t->row[r][c][0] || *e)
            return 0;
    }
    return 1;
}

static void report_sweep(FILE *f, st_table *t, const char *path)
{
    int ccyc = st_col(t, "cycles"), ctr = st_col(t, "trace"), cmo = st_col(t, "mode");
    int keys[64], nkeys = 0;
    for (int c = 0; c < t->ncol && nkeys < 64; c++)
        if (!st_is_result_col(t->col[c]) && strcmp(t->col[c], "trace") &&
            strcmp(t->col[c], "mode") && strcmp(t->col[c], "seed"))
            keys[nkeys++] = c;
    st_sort(t);
    /* points: consecutive rows with one point key after sorting */
    pt *p = calloc(t->nrow + 1, sizeof *p);
    size_t np = 0;
    char prev[4096] = "", key[4096];
    for (size_t r = 0; r < t->nrow; r++) {
        st_point_key(t, r, key, sizeof key);
        if (!np || strcmp(key, prev)) {
            p[np].v = t->row[r];
            p[np++].cycles = 0;
            snprintf(prev, sizeof prev, "%s", key);
        }
        p[np - 1].cycles += strtod(t->row[r][ccyc], NULL);
    }
    fputs("<section class=\"sweep\"><h2>Sweep: ", f);
    html_text(f, path);
    fprintf(f, "</h2>\n<p>%zu points, %zu rows; y = the trace's cycles summed over its "
               "kernels.</p>\n", np, t->nrow);
    for (int ki = 0; ki < nkeys; ki++) {
        int kc = keys[ki], num = all_numeric(t, kc);
        /* x categories when not numeric */
        char *cat[256];
        size_t ncat = 0;
        for (size_t i = 0; i < np && !num; i++) {
            size_t c = 0;
            while (c < ncat && strcmp(cat[c], p[i].v[kc]))
                c++;
            if (c == ncat && ncat < 256)
                cat[ncat++] = p[i].v[kc];
        }
        /* series: points that agree on everything but this key */
        series *s = calloc(12, sizeof *s);
        char sk[12][1024];
        size_t ns = 0, dropped = 0;
        if (!s)
            break;
        for (size_t i = 0; i < np; i++) {
            char id[1024] = "", nm[256] = "";
            size_t at = 0;
            const char *tr = ctr >= 0 ? p[i].v[ctr] : "";
            const char *base = strrchr(tr, '/');
            base = base && base[1] ? base + 1 : tr;
            at += (size_t)snprintf(nm + at, sizeof nm - at, "%s", base);
            if (cmo >= 0 && at < sizeof nm)
                at += (size_t)snprintf(nm + at, sizeof nm - at, " %s", p[i].v[cmo]);
            for (int o = 0; o < nkeys && at < sizeof nm; o++)
                if (o != ki)
                    at += (size_t)snprintf(nm + at, sizeof nm - at, " %s=%s",
                                           t->col[keys[o]], p[i].v[keys[o]]);
            snprintf(id, sizeof id, "%s|%s", tr, nm);
            size_t si = 0;
            while (si < ns && strcmp(sk[si], id))
                si++;
            if (si == ns) {
                if (ns == 12) {
                    dropped++;
                    continue;
                }
                snprintf(sk[ns], sizeof sk[ns], "%s", id);
                snprintf(s[ns].name, sizeof s[ns].name, "%s", nm);
                ns++;
            }
            if (s[si].n < 512) {
                double x = 0;
                if (num)
                    x = strtod(p[i].v[kc], NULL);
                else
                    for (size_t c = 0; c < ncat; c++)
                        if (!strcmp(cat[c], p[i].v[kc]))
                            x = (double)c;
                s[si].x[s[si].n] = x;
                s[si].y[s[si].n++] = p[i].cycles;
            }
        }
        /* order each series by x */
        for (size_t i = 0; i < ns; i++)
            for (size_t a = 1; a < s[i].n; a++)
                for (size_t b = a; b > 0 && s[i].x[b - 1] > s[i].x[b]; b--) {
                    double tx = s[i].x[b], ty = s[i].y[b];
                    s[i].x[b] = s[i].x[b - 1];
                    s[i].y[b] = s[i].y[b - 1];
                    s[i].x[b - 1] = tx;
                    s[i].y[b - 1] = ty;
                }
        char title[256];
        snprintf(title, sizeof title, "cycles vs %s", t->col[kc]);
        xy_chart(f, title, t->col[kc], "cycles", s, ns, 0, 0, 0, "curve",
                 num ? NULL : cat, ncat);
        /* speed-up against the first value of each series */
        for (size_t i = 0; i < ns; i++) {
            double y0 = s[i].n ? s[i].y[0] : 0;
            for (size_t k = 0; k < s[i].n; k++)
                s[i].y[k] = s[i].y[k] > 0 ? y0 / s[i].y[k] : 0;
        }
        snprintf(title, sizeof title, "speed-up vs %s (cycles at the smallest %s / cycles)",
                 t->col[kc], t->col[kc]);
        xy_chart(f, title, t->col[kc], "speed-up", s, ns, 0, 0, 0, "speedup",
                 num ? NULL : cat, ncat);
        if (dropped)
            fprintf(f, "<p>%zu more series not drawn (at most 12 per figure).</p>\n", dropped);
        free(s);
    }
    /* the table of totals */
    fputs("<table><tr><th>trace</th>", f);
    for (int k = 0; k < nkeys; k++) {
        fputs("<th>", f);
        html_text(f, t->col[keys[k]]);
        fputs("</th>", f);
    }
    fputs("<th>mode</th><th>cycles</th></tr>\n", f);
    for (size_t i = 0; i < np; i++) {
        fputs("<tr><td>", f);
        html_text(f, ctr >= 0 ? p[i].v[ctr] : "");
        fputs("</td>", f);
        for (int k = 0; k < nkeys; k++) {
            fputs("<td>", f);
            html_text(f, p[i].v[keys[k]]);
            fputs("</td>", f);
        }
        fputs("<td>", f);
        html_text(f, cmo >= 0 ? p[i].v[cmo] : "");
        fprintf(f, "</td><td>%.0f</td></tr>\n", p[i].cycles);
    }
    fputs("</table></section>\n", f);
    free(p);
}

static const char css[] =
    "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
    "svg.chart{background:#fff;display:block}svg text{font-size:11px;fill:#222}"
    "svg text.title{font-size:13px;font-weight:bold}svg text.label{font-size:12px}"
    "rect.bg{fill:#fff}rect.frame{fill:none;stroke:#888}line.grid{stroke:#e4e4e4}"
    "line.diag{stroke:#888;stroke-dasharray:4 3}line.ci{stroke:#000;stroke-width:2}"
    "polyline.series{stroke-width:2}figure{margin:8px 0}"
    "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
    "padding:2px 6px;text-align:right}td:first-child{text-align:left}";

/* Each <svg ...>...</svg> of the page as DIR/figNN-KIND.svg, standalone:
 * an XML declaration and the page's CSS inside the SVG. */
static int write_svgs(const char *page, const char *dir, int quiet)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "warpcast report: cannot create '%s'\n", dir);
        return WC_EUSAGE;
    }
    int n = 0;
    for (const char *p = strstr(page, "<svg "); p; p = strstr(p, "<svg ")) {
        const char *open_end = strchr(p, '>');
        const char *end = strstr(p, "</svg>");
        if (!open_end || !end)
            break;
        end += strlen("</svg>");
        char kind[32] = "figure";
        const char *cl = strstr(p, "class=\"chart ");
        if (cl && cl < open_end) {
            cl += strlen("class=\"chart ");
            size_t k = 0;
            while (k + 1 < sizeof kind && cl[k] && cl[k] != '"' && cl[k] != ' ')
                kind[k] = cl[k], k++;
            kind[k] = 0;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/fig%02d-%s.svg", dir, ++n, kind);
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "warpcast report: cannot write '%s'\n", path);
            return WC_EUSAGE;
        }
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
        fwrite(p, 1, (size_t)(open_end + 1 - p), f);
        fprintf(f, "\n<style>text{font-family:sans-serif}%s</style>", css);
        fwrite(open_end + 1, 1, (size_t)(end - open_end - 1), f);
        fputc('\n', f);
        if (fclose(f) != 0)
            return WC_EINTERNAL;
        p = end;
    }
    if (!quiet)
        fprintf(stderr, "report: %d figures in %s\n", n, dir);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    int quiet = 0;
    const char **in = calloc((size_t)argc + 1, sizeof *in);
    int nin = 0;
    if (!in)
        return WC_EINTERNAL;
    static const char *const names[] = {"--out", "--title", "--svg-dir"};
    const char *vals[3] = {NULL, "warpcast report", NULL};
    if (st_args("report", report_help, argc, argv, names, vals, NULL, 3, &quiet, in,
                &nin)) {
        free(in);
        return 0;
    }
    const char *out = vals[0], *title = vals[1], *svg_dir = vals[2];
    if (!nin)
        cli_usage_error("report", "no RESULT given (predict or calibrate JSON, sweep table)");
    /* read everything first: no half-written page on a bad input */
    jv *docs = calloc((size_t)nin, sizeof *docs);
    st_table *tabs = calloc((size_t)nin, sizeof *tabs);
    int *kind = calloc((size_t)nin, sizeof *kind); /* 1 predict 2 calibrate 3 sweep */
    if (!docs || !tabs || !kind)
        return WC_EINTERNAL;
    int rc = 0;
    for (int i = 0; i < nin && !rc; i++) {
        size_t len = 0;
        char *text = st_slurp(in[i], &len);
        if (!text) {
            fprintf(stderr, "%s: error: cannot read\n", in[i]);
            rc = WC_EINPUT;
            break;
        }
        char err[512];
        jv o;
        size_t p = 0;
        while (p < len && strchr(" \t\r\n", text[p]) && text[p])
            p++;
        if (p < len && text[p] == '{' && jv_parse(text, len, &o, NULL, err, sizeof err) == 0) {
            if (jv_get(&o, "kernels"))
                kind[i] = 1;
            else if (jv_get(&o, "measurements"))
                kind[i] = 2;
            else {
                fprintf(stderr, "%s: error: a JSON object that is neither a prediction "
                                "('kernels') nor a calibration ('measurements')\n", in[i]);
                jv_free(&o);
                rc = WC_EINPUT;
            }
            docs[i] = o;
        } else {
            st_init(&tabs[i]);
            if (st_read(in[i], &tabs[i], err, sizeof err) != 0) {
                fprintf(stderr, "%s (not a predict/calibrate JSON or sweep table)\n",
                        err);
                rc = WC_EINPUT;
            } else if (st_col(&tabs[i], "cycles") < 0 || st_col(&tabs[i], "trace") < 0) {
                fprintf(stderr, "%s: error: a table without 'trace' and 'cycles' columns "
                                "(not a sweep table)\n", in[i]);
                rc = WC_EINPUT;
            } else {
                /* every cycles cell a finite number (or empty): inf or
                 * nan drew NaN coordinates, text counted as 0 */
                int cc = st_col(&tabs[i], "cycles");
                for (size_t r = 0; r < tabs[i].nrow && !rc; r++) {
                    const char *v = tabs[i].row[r][cc];
                    if (v[0] &&
                        (!st_is_number(v) || !isfinite(strtod(v, NULL)))) {
                        fprintf(stderr, "%s:%zu: error: cycles '%s' is not a "
                                        "finite number\n", in[i], r + 2, v);
                        rc = WC_EINPUT;
                    }
                }
                if (!rc)
                    kind[i] = 3;
            }
        }
        free(text);
    }
    char *page = NULL;
    size_t page_len = 0;
    if (!rc) {
        FILE *f = st_open_out("report", out);
        FILE *html = f;
        if (f && svg_dir) {
            f = open_memstream(&page, &page_len); /* the page, split below */
            if (!f)
                return WC_EINTERNAL;
        }
        if (!f) {
            rc = WC_EUSAGE;
        } else {
            fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<title>", f);
            html_text(f, title);
            fprintf(f, "</title><style>%s</style></head>\n<body><h1>", css);
            html_text(f, title);
            fputs("</h1>\n", f);
            for (int i = 0; i < nin; i++) {
                if (kind[i] == 1)
                    report_predict(f, &docs[i], in[i]);
                else if (kind[i] == 2)
                    report_calibrate(f, &docs[i], in[i]);
                else if (kind[i] == 3)
                    report_sweep(f, &tabs[i], in[i]);
            }
            fputs("<p class=\"foot\">written by warpcast report</p></body></html>\n", f);
            if (svg_dir) {
                if (fclose(f) != 0)
                    rc = WC_EINTERNAL;
                f = html;
                if (!rc && fwrite(page, 1, page_len, f) != page_len)
                    rc = WC_EINTERNAL;
                if (!rc)
                    rc = write_svgs(page, svg_dir, quiet);
            }
            if (st_close_out(f) != 0 && !rc)
                rc = WC_EINTERNAL;
            if (!rc && !quiet && out)
                fprintf(stderr, "report: %s (%d results)\n", out, nin);
        }
    }
    for (int i = 0; i < nin; i++) {
        jv_free(&docs[i]);
        st_free(&tabs[i]);
    }
    free(page);
    free(docs);
    free(tabs);
    free(kind);
    free(in);
    return rc;
}
