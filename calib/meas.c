/*
 * calib/meas.c - reading measured cycles.
 *
 * Owns the three input formats of `warpcast calibrate --measured`:
 *
 *   simple CSV     a header naming the columns, then one row per measurement:
 *                    trace,cycles[,kernel][,id][,weight][,holdout][,label]
 *                    ubench,cycles | ubench,metric,value [,weight ...]
 *                    ctas,threads,cycles              (empty kernels)
 *                  paths relative to the CSV; `#` starts a comment line.
 *   Nsight Compute `ncu --csv` exports: the raw page (--page raw: one row per
 *                  launch, one column per metric, a units row under the
 *                  header) and the details page (default page: one row per
 *                  metric with "Metric Name", "Metric Unit", "Metric Value").
 *                  Numbers may carry thousands separators ("9,576").
 *   key=value      lines "a=b, c=d, ..." with thread=, block=, cycles=
 *                  (the simtune empty-kernel lists).
 *
 * Every error is WC_EINPUT at file:line:col.  cal_mset_match() then ties
 * each trace row to one kernel of its trace and records how.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cal_int.h"

/* ------------------------------------------------------------------------ */
/* Measurement sets                                                          */
/* ------------------------------------------------------------------------ */

void cal_meas_init(cal_meas *m)
{
    memset(m, 0, sizeof *m);
    m->kind = CAL_MK_TRACE;
    m->metric = CAL_METRIC_CYCLES;
    m->kernel_id = -1;
    m->kidx = -1;
    m->weight = 1.0;
}

void cal_mset_init(cal_mset *s)
{
    memset(s, 0, sizeof *s);
}

void cal_mset_free(cal_mset *s)
{
    if (!s)
        return;
    free(s->m);
    memset(s, 0, sizeof *s);
}

int cal_mset_add(cal_mset *s, const cal_meas *m, wc_diag *d)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 32;
        cal_meas *nm = realloc(s->m, nc * sizeof *nm);
        if (!nm)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        s->m = nm;
        s->cap = nc;
    }
    s->m[s->n++] = *m;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* CSV fields                                                                */
/* ------------------------------------------------------------------------ */

/* Nsight Compute raw pages of CUDA 13 have ~300 columns (device attributes
 * and launch statistics besides the metrics). */
#define MAX_FIELDS 1024
#define FIELD_LEN 1024

typedef struct row {
    size_t n;
    char f[MAX_FIELDS][FIELD_LEN];
    long col[MAX_FIELDS]; /* 1-based column of each field */
} row;

typedef struct src {
    const char *name, *text;
    size_t len, pos;
    long line;    /* line of the current record (1-based)                  */
    long nextline;
} src;

/* Read one CSV record (quotes may span lines).  Returns 1, 0 at the end, or
 * -WC_EINPUT. */
static int csv_record(src *s, row *r, wc_diag *d)
{
    if (s->pos >= s->len)
        return 0;
    r->n = 0;
    s->line = s->nextline;
    size_t linestart = s->pos;
    for (;;) {
        if (r->n == MAX_FIELDS)
            return -wc_diag_set(d, WC_EINPUT, s->name, s->line,
                                (long)(s->pos - linestart) + 1,
                                "more than %d fields", MAX_FIELDS);
        char *out = r->f[r->n];
        size_t k = 0;
        r->col[r->n] = (long)(s->pos - linestart) + 1;
        /* skip leading blanks */
        while (s->pos < s->len && (s->text[s->pos] == ' ' ||
                                   s->text[s->pos] == '\t'))
            s->pos++;
        int quoted = s->pos < s->len && s->text[s->pos] == '"';
        if (quoted) {
            long qline = s->nextline, qcol = (long)(s->pos - linestart) + 1;
            s->pos++;
            for (;;) {
                if (s->pos >= s->len)
                    return -wc_diag_set(d, WC_EINPUT, s->name, qline, qcol,
                                        "unterminated quoted field");
                char c = s->text[s->pos++];
                if (c == '"') {
                    if (s->pos < s->len && s->text[s->pos] == '"') {
                        s->pos++;
                    } else {
                        break;
                    }
                }
                if (c == '\n') {
                    s->nextline++;
                    linestart = s->pos;
                }
                if (c == '\0')
                    return -wc_diag_set(d, WC_EINPUT, s->name, s->nextline,
                                        (long)(s->pos - linestart),
                                        "NUL byte in input");
                if (k + 1 < FIELD_LEN)
                    out[k++] = c;
            }
            while (s->pos < s->len && (s->text[s->pos] == ' ' ||
                                       s->text[s->pos] == '\t' ||
                                       s->text[s->pos] == '\r'))
                s->pos++;
            if (s->pos < s->len && s->text[s->pos] != ',' &&
                s->text[s->pos] != '\n')
                return -wc_diag_set(d, WC_EINPUT, s->name, s->nextline,
                                    (long)(s->pos - linestart) + 1,
                                    "unexpected character after a quoted "
                                    "field");
        } else {
            while (s->pos < s->len && s->text[s->pos] != ',' &&
                   s->text[s->pos] != '\n') {
                char c = s->text[s->pos++];
                if (c == '\0')
                    return -wc_diag_set(d, WC_EINPUT, s->name, s->nextline,
                                        (long)(s->pos - linestart),
                                        "NUL byte in input");
                if (k + 1 < FIELD_LEN)
                    out[k++] = c;
            }
            while (k > 0 && isspace((unsigned char)out[k - 1]))
                k--;
        }
        out[k] = '\0';
        r->n++;
        if (s->pos >= s->len)
            break;
        if (s->text[s->pos] == '\n') {
            s->pos++;
            break;
        }
        s->pos++; /* ',' */
    }
    s->nextline++;
    return 1;
}

/* Nsight Compute prints the profiled program's own stdout among its CSV
 * rows (every line of its export is quoted; the program's lines usually are
 * not).  Skip such lines at a record boundary; returns how many. */
static long skip_program_lines(src *s)
{
    long n = 0;
    while (s->pos < s->len && s->text[s->pos] != '"' &&
           s->text[s->pos] != '\n' && s->text[s->pos] != '\r') {
        const char *e = memchr(s->text + s->pos, '\n', s->len - s->pos);
        s->pos = e ? (size_t)(e - s->text) + 1 : s->len;
        s->nextline++;
        n++;
    }
    return n;
}

static int row_blank(const row *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->f[i][0])
            return 0;
    return 1;
}

/* Parse a number: blanks trimmed, thousands separators (',' between digit
 * groups) and a trailing unit-less '%' rejected.  Returns 0 or -1. */
static int parse_num(const char *s, double *v)
{
    char buf[FIELD_LEN];
    size_t k = 0;
    while (isspace((unsigned char)*s))
        s++;
    for (const char *p = s; *p && k + 1 < sizeof buf; p++) {
        if (*p == ',' && k > 0 && isdigit((unsigned char)p[-1]) &&
            isdigit((unsigned char)p[1]))
            continue;
        buf[k++] = *p;
    }
    while (k > 0 && isspace((unsigned char)buf[k - 1]))
        k--;
    buf[k] = '\0';
    if (k == 0)
        return -1;
    errno = 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end || errno == ERANGE || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

static int find_col(const row *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (ieq(h->f[i], name))
            return (int)i;
    return -1;
}

static void join_path(char *out, size_t n, const char *dir, const char *p)
{
    if (p[0] == '/' || !dir || !dir[0])
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%s/%s", dir, p);
}

static void set_src(cal_meas *m, const src *s)
{
    snprintf(m->src, sizeof m->src, "%s:%ld", s->name, s->line);
}

/* ------------------------------------------------------------------------ */
/* Simple CSV                                                                */
/* ------------------------------------------------------------------------ */

static int field_num(const src *s, const row *r, int c, const char *what,
                     double *v, wc_diag *d)
{
    if (c < 0 || (size_t)c >= r->n)
        return wc_diag_set(d, WC_EINPUT, s->name, s->line,
                           r->n ? r->col[r->n - 1] : 1,
                           "missing %s field", what);
    if (parse_num(r->f[c], v) != 0)
        return wc_diag_set(d, WC_EINPUT, s->name, s->line, r->col[c],
                           "%s '%s' is not a number", what, r->f[c]);
    return 0;
}

/* A kernel launch ID: a whole number in the range trace headers accept
 * (kernel id 0..INT32_MAX, common/trace.c), so it can be matched against
 * them.  Checked here because the value arrives as a double: converting an
 * out-of-range double to long is undefined, and a fraction or a negative
 * number (-1 means "not given" in cal_meas) would silently match another
 * launch or none. */
static int field_id(const src *s, const row *r, int c, const char *what,
                    long *id, wc_diag *d)
{
    double v;
    int rc = field_num(s, r, c, what, &v, d);
    if (rc)
        return rc;
    if (!(v >= 0 && v <= INT32_MAX && v == floor(v)))
        return wc_diag_set(d, WC_EINPUT, s->name, s->line, r->col[c],
                           "%s '%s' is not a kernel launch ID (a whole "
                           "number from 0 to %ld)", what, r->f[c],
                           (long)INT32_MAX);
    *id = (long)v;
    return 0;
}

static int parse_simple(cal_mset *set, src *s, const row *h, const char *dir,
                        wc_diag *d)
{
    int ctrace = find_col(h, "trace"), cub = find_col(h, "ubench");
    int ccyc = find_col(h, "cycles"), cval = find_col(h, "value");
    int cmet = find_col(h, "metric"), cker = find_col(h, "kernel");
    int cid = find_col(h, "id"), cw = find_col(h, "weight");
    int chold = find_col(h, "holdout"), clab = find_col(h, "label");
    int cctas = find_col(h, "ctas"), cthr = find_col(h, "threads");
    int cpath = ctrace >= 0 ? ctrace : cub;
    int cv = ccyc >= 0 ? ccyc : cval;
    /* every column one of these: a misspelt one (wieght) was ignored and
     * the fit silently another */
    static const char *const known[] = {
        "trace",  "ubench",  "ctas",   "threads", "cycles", "value",
        "metric", "kernel",  "id",     "weight",  "holdout", "label",
        /* notes for the reader, not read */
        "source", "note",    "notes",  "comment", "comments"};
    for (size_t i = 0; i < h->n; i++) {
        size_t k = 0;
        while (k < sizeof known / sizeof *known && !ieq(h->f[i], known[k]))
            k++;
        if (k == sizeof known / sizeof *known)
            return wc_diag_set(d, WC_EINPUT, s->name, s->line, h->col[i],
                               "unknown column '%s' (a measurement CSV has "
                               "trace, ubench or ctas,threads; cycles or "
                               "value; and may have metric, kernel, id, "
                               "weight, holdout, label, and notes in "
                               "source, note or comment)", h->f[i]);
    }
    if (cv < 0)
        return wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                           "header names no 'cycles' or 'value' column");
    if (cpath < 0 && (cctas < 0 || cthr < 0))
        return wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                           "header names no 'trace', 'ubench' or "
                           "'ctas,threads' columns");
    row *r = malloc(sizeof *r);
    if (!r)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    int rc = 0, got;
    while ((got = csv_record(s, r, d)) == 1) {
        if (row_blank(r) || r->f[0][0] == '#')
            continue;
        if (r->n > h->n) { /* a field no column names: another layout */
            rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, r->col[h->n],
                             "row has %zu fields, the header %zu", r->n,
                             h->n);
            break;
        }
        cal_meas m;
        cal_meas_init(&m);
        set_src(&m, s);
        if (cpath >= 0) {
            if ((size_t)cpath >= r->n || !r->f[cpath][0]) {
                rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                                 "missing path in column %d", cpath + 1);
                break;
            }
            m.kind = cpath == ctrace ? CAL_MK_TRACE : CAL_MK_UBENCH;
            join_path(m.path, sizeof m.path, dir, r->f[cpath]);
            snprintf(m.label, sizeof m.label, "%s", r->f[cpath]);
        } else {
            double c, t;
            if ((rc = field_num(s, r, cctas, "ctas", &c, d)) ||
                (rc = field_num(s, r, cthr, "threads", &t, d)))
                break;
            if (c < 1 || c > 1e12 || t < 1 || t > 4096 || c != floor(c) ||
                t != floor(t)) {
                rc = wc_diag_set(d, WC_EINPUT, s->name, s->line,
                                 r->col[cctas], "ctas/threads out of range");
                break;
            }
            m.kind = CAL_MK_EMPTY;
            m.ctas = (uint64_t)c;
            m.threads = (unsigned)t;
            snprintf(m.label, sizeof m.label, "empty %llux%u",
                     (unsigned long long)m.ctas, m.threads);
        }
        if ((rc = field_num(s, r, cv, cv == ccyc ? "cycles" : "value",
                            &m.measured, d)))
            break;
        if (!(m.measured > 0)) {
            rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, r->col[cv],
                             "measured value must be positive");
            break;
        }
        if (cmet >= 0 && (size_t)cmet < r->n && r->f[cmet][0]) {
            int k = -1;
            for (int i = 0; i <= CAL_METRIC_THROUGHPUT; i++)
                if (ieq(r->f[cmet], cal_metric_name(i)))
                    k = i;
            if (k < 0 || (m.kind != CAL_MK_UBENCH && k != 0)) {
                rc = wc_diag_set(d, WC_EINPUT, s->name, s->line,
                                 r->col[cmet],
                                 "unknown metric '%s' (cycles, or for a "
                                 "ubench region, latency, throughput)",
                                 r->f[cmet]);
                break;
            }
            m.metric = (cal_metric)k;
            cal_appendf(m.label, sizeof m.label, " %s", r->f[cmet]);
        }
        if (cker >= 0 && (size_t)cker < r->n)
            snprintf(m.kernel, sizeof m.kernel, "%s", r->f[cker]);
        if (cid >= 0 && (size_t)cid < r->n && r->f[cid][0]) {
            if ((rc = field_id(s, r, cid, "id", &m.kernel_id, d)))
                break;
        }
        if (cw >= 0 && (size_t)cw < r->n && r->f[cw][0]) {
            if ((rc = field_num(s, r, cw, "weight", &m.weight, d)))
                break;
            if (!(m.weight > 0)) {
                rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, r->col[cw],
                                 "weight must be positive");
                break;
            }
        }
        if (chold >= 0 && (size_t)chold < r->n && r->f[chold][0]) {
            double v;
            if ((rc = field_num(s, r, chold, "holdout", &v, d)))
                break;
            m.holdout = v != 0;
        }
        if (clab >= 0 && (size_t)clab < r->n && r->f[clab][0])
            snprintf(m.label, sizeof m.label, "%s", r->f[clab]);
        if ((rc = cal_mset_add(set, &m, d)))
            break;
    }
    if (got < 0)
        rc = -got;
    free(r);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Nsight Compute CSV                                                        */
/* ------------------------------------------------------------------------ */

static const char *const ncu_metrics[] = {
    "gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg", "Elapsed Cycles",
    "sm__cycles_elapsed.max", NULL};

static void ncu_fill(cal_meas *m, const src *s, const char *name, long id,
                     const cal_read_opts *o, const char *dir)
{
    set_src(m, s);
    m->kind = CAL_MK_TRACE;
    snprintf(m->kernel, sizeof m->kernel, "%s", name);
    m->kernel_id = id;
    if (o && o->ncu_trace && o->ncu_trace[0])
        snprintf(m->path, sizeof m->path, "%s", o->ncu_trace);
    else if (dir)
        snprintf(m->path, sizeof m->path, "%s", dir[0] ? dir : ".");
    snprintf(m->label, sizeof m->label, "%s#%ld", name, id);
}

/* Value in a cycle unit; scale by the unit when it is a known multiple. */
static int unit_scale(const char *u, double *scale)
{
    if (!u[0] || ieq(u, "cycle") || ieq(u, "cycles"))
        *scale = 1;
    else if (ieq(u, "Kcycle") || ieq(u, "kcycle"))
        *scale = 1e3;
    else if (ieq(u, "Mcycle"))
        *scale = 1e6;
    else
        return -1;
    return 0;
}

/* "(x, y, z)" -> x*y*z; 0 when malformed. */
static uint64_t dim3_product(const char *s)
{
    uint64_t p = 1;
    int n = 0;
    while (*s) {
        if (isdigit((unsigned char)*s)) {
            char *e;
            unsigned long long v = strtoull(s, &e, 10);
            if (v == 0 || v > 1u << 31)
                return 0;
            p *= v;
            n++;
            s = e;
        } else {
            s++;
        }
    }
    return n >= 1 && n <= 3 ? p : 0;
}

static int name_has_empty(const char *s)
{
    for (; *s; s++)
        if (strncasecmp(s, "empty", 5) == 0)
            return 1;
    return 0;
}

/* Columns of a raw page header. */
typedef struct ncu_cols {
    int id, name, grid, block, metric;
} ncu_cols;

static int ncu_raw_header(const src *s, const row *h, const cal_read_opts *o,
                          ncu_cols *c, wc_diag *d)
{
    c->id = find_col(h, "ID");
    c->name = find_col(h, "Kernel Name");
    c->grid = find_col(h, "Grid Size");
    c->block = find_col(h, "Block Size");
    c->metric = -1;
    if (o && o->ncu_metric) {
        c->metric = find_col(h, o->ncu_metric);
        if (c->metric < 0)
            return wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                               "no column '%s' in the Nsight Compute export",
                               o->ncu_metric);
    }
    for (size_t i = 0; c->metric < 0 && ncu_metrics[i]; i++)
        c->metric = find_col(h, ncu_metrics[i]);
    if (c->metric < 0)
        return wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                           "no cycle metric column (gpc__cycles_elapsed.max, "
                           "sm__cycles_elapsed.avg or Elapsed Cycles)");
    if (c->id < 0 || c->name < 0)
        return wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                           "Nsight Compute header without 'ID' and "
                           "'Kernel Name' columns");
    return 0;
}

/* Raw page: a header, a units row, one row per launch.  Tolerates what
 * Nsight Compute prints around it when the program writes to stdout too:
 * unquoted program lines anywhere (skipped) and one header (+ units row) per
 * profiled process when exports are concatenated (each replaces the last). */
static int parse_ncu_raw(cal_mset *set, src *s, const row *h0, const char *dir,
                         const cal_read_opts *o, wc_diag *d)
{
    ncu_cols c;
    int rc = ncu_raw_header(s, h0, o, &c, d);
    if (rc)
        return rc;
    row *r = malloc(sizeof *r);
    row *h = malloc(sizeof *h);
    if (!r || !h) {
        free(r);
        free(h);
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    }
    memcpy(h, h0, sizeof *h);
    int got;
    double scale = 1;
    int first = 1;
    for (;;) {
        skip_program_lines(s);
        if ((got = csv_record(s, r, d)) != 1)
            break;
        if (row_blank(r))
            continue;
        if (r->n > 0 && ieq(r->f[0], "ID")) { /* the next process's header */
            memcpy(h, r, sizeof *h);
            if ((rc = ncu_raw_header(s, h, o, &c, d)))
                break;
            first = 1;
            scale = 1;
            continue;
        }
        (void)first;
        {
            first = 0;
            /* units row: ID column empty (one per profiled process when
             * the header lines are missing) */
            if ((size_t)c.id < r->n && !r->f[c.id][0]) {
                if ((size_t)c.metric < r->n &&
                    unit_scale(r->f[c.metric], &scale) != 0) {
                    rc = wc_diag_set(d, WC_EINPUT, s->name, s->line,
                                     r->col[c.metric],
                                     "unit '%s' of the cycle metric is not "
                                     "a cycle count", r->f[c.metric]);
                    break;
                }
                continue;
            }
        }
        cal_meas m;
        cal_meas_init(&m);
        long id;
        if ((rc = field_id(s, r, c.id, "ID", &id, d)))
            break;
        if ((size_t)c.name >= r->n) {
            rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                             "missing Kernel Name field");
            break;
        }
        ncu_fill(&m, s, r->f[c.name], id, o, dir);
        /* empty kernels (name holds "empty") with no trace given: the
         * launch model from the grid and block columns */
        if (!(o && o->ncu_trace) && name_has_empty(r->f[c.name]) &&
            c.grid >= 0 && c.block >= 0 && (size_t)c.grid < r->n &&
            (size_t)c.block < r->n) {
            uint64_t g = dim3_product(r->f[c.grid]);
            uint64_t b = dim3_product(r->f[c.block]);
            if (g == 0 || b == 0 || b > 4096) {
                rc = wc_diag_set(d, WC_EINPUT, s->name, s->line,
                                 r->col[g == 0 ? c.grid : c.block],
                                 "bad grid or block size");
                break;
            }
            m.kind = CAL_MK_EMPTY;
            m.ctas = g;
            m.threads = (unsigned)b;
            m.path[0] = '\0';
            snprintf(m.label, sizeof m.label, "empty %llux%u",
                     (unsigned long long)g, m.threads);
            snprintf(m.match, sizeof m.match,
                     "empty kernel '%.200s' launch %ld, launch model",
                     r->f[c.name], id);
        }
        if ((rc = field_num(s, r, c.metric, h->f[c.metric], &m.measured, d)))
            break;
        m.measured *= scale;
        if (!(m.measured > 0)) {
            rc = wc_diag_set(d, WC_EINPUT, s->name, s->line,
                             r->col[c.metric], "cycles must be positive");
            break;
        }
        if ((rc = cal_mset_add(set, &m, d)))
            break;
    }
    if (got < 0)
        rc = -got;
    free(r);
    free(h);
    return rc;
}

static int parse_ncu_details(cal_mset *set, src *s, const row *h,
                             const char *dir, const cal_read_opts *o,
                             wc_diag *d)
{
    int cid = find_col(h, "ID"), cname = find_col(h, "Kernel Name");
    int cmn = find_col(h, "Metric Name"), cmu = find_col(h, "Metric Unit");
    int cmv = find_col(h, "Metric Value");
    if (cmn < 0 || cmv < 0)
        return wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                           "details page needs 'Metric Name' and "
                           "'Metric Value' columns");
    row *r = malloc(sizeof *r);
    if (!r)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    int rc = 0, got;
    /* per launch ID the best metric found: rank in ncu_metrics */
    size_t start = set->n;
    int *rank = NULL;
    size_t nrank = 0;
    for (;;) {
        skip_program_lines(s);
        if ((got = csv_record(s, r, d)) != 1)
            break;
        if (row_blank(r) || (r->n > 0 && ieq(r->f[0], "ID")))
            continue; /* a repeated header (one per profiled process) */
        if ((size_t)cmn >= r->n || (size_t)cmv >= r->n ||
            (size_t)cid >= r->n || (size_t)cname >= r->n) {
            rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, 1,
                             "row has %zu fields, the header %zu", r->n,
                             h->n);
            break;
        }
        int k = -1;
        if (o && o->ncu_metric) {
            if (ieq(r->f[cmn], o->ncu_metric))
                k = 0;
        } else {
            for (int i = 0; ncu_metrics[i]; i++)
                if (ieq(r->f[cmn], ncu_metrics[i]))
                    k = i;
        }
        if (k < 0)
            continue;
        long id;
        double v, sc = 1;
        if ((rc = field_id(s, r, cid, "ID", &id, d)) ||
            (rc = field_num(s, r, cmv, "Metric Value", &v, d)))
            break;
        if (cmu >= 0 && (size_t)cmu < r->n &&
            unit_scale(r->f[cmu], &sc) != 0) {
            rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, r->col[cmu],
                             "unit '%s' is not a cycle count", r->f[cmu]);
            break;
        }
        if (!(v > 0)) {
            rc = wc_diag_set(d, WC_EINPUT, s->name, s->line, r->col[cmv],
                             "cycles must be positive");
            break;
        }
        size_t j = start;
        for (; j < set->n; j++)
            if (set->m[j].kernel_id == id)
                break;
        if (j == set->n) {
            cal_meas m;
            cal_meas_init(&m);
            ncu_fill(&m, s, r->f[cname], id, o, dir);
            m.measured = v * sc;
            if ((rc = cal_mset_add(set, &m, d)))
                break;
            int *nr = realloc(rank, (nrank + 1) * sizeof *nr);
            if (!nr) {
                rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
                break;
            }
            rank = nr;
            rank[nrank++] = k;
        } else if (k < rank[j - start]) {
            set->m[j].measured = v * sc;
            set_src(&set->m[j], s);
            rank[j - start] = k;
        }
    }
    if (got < 0)
        rc = -got;
    free(rank);
    free(r);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* key=value lines                                                           */
/* ------------------------------------------------------------------------ */

/* Find "key=" in line [p, e) and copy its value; returns column or 0. */
static long kv_get(const char *p, const char *e, const char *key, char *val,
                   size_t n)
{
    size_t kl = strlen(key);
    const char *q = p;
    while (q < e) {
        while (q < e && (*q == ' ' || *q == '\t' || *q == ','))
            q++;
        const char *ks = q;
        while (q < e && *q != '=' && *q != ',')
            q++;
        const char *ke = q;
        while (ke > ks && isspace((unsigned char)ke[-1]))
            ke--;
        if (q < e && *q == '=') {
            q++;
            while (q < e && (*q == ' ' || *q == '\t'))
                q++;
            const char *vs = q;
            while (q < e && *q != ',')
                q++;
            const char *ve = q;
            while (ve > vs && isspace((unsigned char)ve[-1]))
                ve--;
            if ((size_t)(ke - ks) == kl && strncmp(ks, key, kl) == 0) {
                size_t vl = (size_t)(ve - vs);
                if (vl >= n)
                    vl = n - 1;
                memcpy(val, vs, vl);
                val[vl] = '\0';
                return (long)(vs - p) + 1;
            }
        }
    }
    return 0;
}

static int parse_kv(cal_mset *set, src *s, const cal_read_opts *o,
                    wc_diag *d)
{
    const char *sel = o ? o->select : NULL;
    char selbuf[256] = "";
    if (!sel && strstr(s->text, "profile_type=ncu"))
        sel = "profile_type=ncu";
    char skey[128] = "", sval[128] = "";
    if (sel && sel[0]) {
        const char *eq = strchr(sel, '=');
        if (!eq || eq == sel)
            return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                               "--select wants KEY=VALUE, not '%s'", sel);
        snprintf(selbuf, sizeof selbuf, "%s", sel);
        snprintf(skey, sizeof skey, "%.*s", (int)(eq - sel), sel);
        snprintf(sval, sizeof sval, "%s", eq + 1);
    }
    long line = 0;
    size_t pos = 0;
    while (pos < s->len) {
        const char *p = s->text + pos;
        const char *e = memchr(p, '\n', s->len - pos);
        if (!e)
            e = s->text + s->len;
        pos = (size_t)(e - s->text) + 1;
        line++;
        const char *q = p;
        while (q < e && isspace((unsigned char)*q))
            q++;
        if (q == e || *q == '#')
            continue;
        if (memchr(p, '\0', (size_t)(e - p)))
            return wc_diag_set(d, WC_EINPUT, s->name, line, 1,
                               "NUL byte in input");
        char v[128];
        if (skey[0]) {
            if (!kv_get(p, e, skey, v, sizeof v) || strcmp(v, sval) != 0)
                continue;
        }
        char tb[64], bb[64], cb[64];
        long ct = kv_get(p, e, "thread", tb, sizeof tb);
        long cbk = kv_get(p, e, "block", bb, sizeof bb);
        long cc = kv_get(p, e, "cycles", cb, sizeof cb);
        if (!ct || !cbk || !cc)
            return wc_diag_set(d, WC_EINPUT, s->name, line, 1,
                               "line lacks %s= (want thread=, block=, "
                               "cycles=)",
                               !ct ? "thread" : !cbk ? "block" : "cycles");
        double t, b, c;
        if (parse_num(tb, &t) || t < 1 || t > 4096 || t != floor(t))
            return wc_diag_set(d, WC_EINPUT, s->name, line, ct,
                               "thread= '%s' is not a block size 1..4096",
                               tb);
        if (parse_num(bb, &b) || b < 1 || b > 1e12 || b != floor(b))
            return wc_diag_set(d, WC_EINPUT, s->name, line, cbk,
                               "block= '%s' is not a grid size", bb);
        if (parse_num(cb, &c) || !(c > 0))
            return wc_diag_set(d, WC_EINPUT, s->name, line, cc,
                               "cycles= '%s' is not a positive number", cb);
        cal_meas m;
        cal_meas_init(&m);
        m.kind = CAL_MK_EMPTY;
        m.ctas = (uint64_t)b;
        m.threads = (unsigned)t;
        m.measured = c;
        /* The profiler is part of the measurement: the row's clock
         * (`frequency=`, MHz) and whether its duration includes the launch
         * front end (Nsight Systems timeline durations do not: fidelity
         * analysis of the H100 PCIe data, 1024 x 256 threads: ncu 4.6 us,
         * nsys 1.76 us; docs/calibration.md). */
        char fb[64], pb[64];
        long cf = kv_get(p, e, "frequency", fb, sizeof fb);
        if (cf) {
            double mhz;
            if (parse_num(fb, &mhz) || !(mhz >= 1 && mhz <= 10000))
                return wc_diag_set(d, WC_EINPUT, s->name, line, cf,
                                   "frequency= '%s' is not a clock in MHz "
                                   "1..10000", fb);
            m.mhz = mhz;
        }
        const char *prof = "";
        if (kv_get(p, e, "profile_type", pb, sizeof pb)) {
            if (strcmp(pb, "nsys") == 0) {
                m.launch_excluded = 1;
                prof = " nsys";
            } else if (strcmp(pb, "ncu") == 0) {
                prof = " ncu";
            }
        }
        snprintf(m.src, sizeof m.src, "%s:%ld", s->name, line);
        snprintf(m.label, sizeof m.label, "empty %llux%u%s",
                 (unsigned long long)m.ctas, m.threads, prof);
        snprintf(m.match, sizeof m.match, "empty kernel, launch model%s%s",
                 selbuf[0] ? ", selected by " : "", selbuf);
        int rc = cal_mset_add(set, &m, d);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

int cal_mset_parse(cal_mset *set, const char *name, const char *dir,
                   const char *text, size_t len, const cal_read_opts *o,
                   wc_diag *d)
{
    src s = {name, text, len, 0, 1, 1};
    /* skip a UTF-8 BOM and ncu's "==PROF==" banner lines */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        s.pos = 3;
    while (s.pos < len && (strncmp(text + s.pos, "==", 2) == 0 ||
                           text[s.pos] == '#' || text[s.pos] == '\n')) {
        const char *e = memchr(text + s.pos, '\n', len - s.pos);
        s.pos = e ? (size_t)(e - text) + 1 : len;
        s.nextline++;
    }
    if (s.pos >= len)
        return wc_diag_set(d, WC_EINPUT, name, s.nextline, 1,
                           "no measurements in file");
    /* Nsight Compute export with the program's output before its header
     * (ncu prints the program's stdout where it comes): start at the
     * header, a line beginning with "ID", when the first line is not
     * quoted.  With o->ncu_header, a raw page without any header line. */
    if (text[s.pos] != '"') {
        size_t p = s.pos;
        long ln = s.nextline;
        int hdr = 0, quoted = 0;
        while (p < len) {
            if (len - p >= 6 && memcmp(text + p, "\"ID\",\"", 6) == 0) {
                hdr = 1;
                break;
            }
            quoted |= text[p] == '"'; /* a line that starts quoted */
            const char *nl = memchr(text + p, '\n', len - p);
            if (!nl)
                break;
            p = (size_t)(nl - text) + 1;
            ln++;
        }
        if (hdr) {
            s.pos = p;
            s.nextline = ln;
        } else if (quoted && o && o->ncu_header) {
            src hs = {name, o->ncu_header, strlen(o->ncu_header), 0, 1, 1};
            row *h = malloc(sizeof *h);
            if (!h)
                return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
            int got = csv_record(&hs, h, d);
            int rc = got < 0 ? -got
                   : got == 0 ? wc_diag_set(d, WC_EUSAGE, name, 1, 1,
                                            "empty borrowed header")
                              : parse_ncu_raw(set, &s, h, dir, o, d);
            free(h);
            return rc;
        } else if (quoted) {
            return wc_diag_set(d, WC_EINPUT, name, s.nextline, 1,
                               "Nsight Compute rows without a header line "
                               "(\"ID\",...): the export lost it (calib/hw/"
                               "run.sh before issue 11); `warpcast calibrate "
                               "--kit` takes it from another export of the "
                               "same run");
        }
    }
    /* key=value list: first line holds '=' and no quote */
    const char *e = memchr(text + s.pos, '\n', len - s.pos);
    size_t l1 = e ? (size_t)(e - (text + s.pos)) : len - s.pos;
    if (memchr(text + s.pos, '=', l1) && !memchr(text + s.pos, '"', l1)) {
        src k = {name, text, len, 0, 1, 1};
        return parse_kv(set, &k, o, d);
    }
    row *h = malloc(sizeof *h);
    if (!h)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    int got = csv_record(&s, h, d);
    int rc;
    if (got < 0) {
        rc = -got;
    } else if (got == 0) {
        rc = wc_diag_set(d, WC_EINPUT, name, s.line, 1, "no header line");
    } else if (find_col(h, "Kernel Name") >= 0 && find_col(h, "ID") >= 0) {
        if (find_col(h, "Metric Name") >= 0)
            rc = parse_ncu_details(set, &s, h, dir, o, d);
        else
            rc = parse_ncu_raw(set, &s, h, dir, o, d);
    } else {
        rc = parse_simple(set, &s, h, dir, d);
    }
    free(h);
    return rc;
}

int cal_mset_read(cal_mset *set, const char *path, const cal_read_opts *o,
                  wc_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = wc_read_file(path, &buf, &len, d);
    if (rc)
        return rc;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *sl = strrchr(dir, '/');
    if (sl)
        *sl = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    rc = cal_mset_parse(set, path, dir, buf, len, o, d);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                  */
/* ------------------------------------------------------------------------ */

/* The function identifier of a kernel name, mangled or demangled:
 * "_Z10ffmaKerneli" and "ffmaKernel(int)" both give "ffmaKernel". */
static void base_name(const char *s, char *out, size_t n)
{
    if (s[0] == '_' && s[1] == 'Z') {
        const char *p = s + 2;
        if (*p == 'N') { /* nested: take the last component */
            p++;
            char last[512] = "";
            while (isdigit((unsigned char)*p)) {
                long l = strtol(p, (char **)&p, 10);
                if (l <= 0 || (size_t)l >= sizeof last || strlen(p) < (size_t)l)
                    break;
                snprintf(last, sizeof last, "%.*s", (int)l, p);
                p += l;
            }
            snprintf(out, n, "%s", last[0] ? last : s);
            return;
        }
        if (isdigit((unsigned char)*p)) {
            long l = strtol(p, (char **)&p, 10);
            if (l > 0 && strlen(p) >= (size_t)l) {
                snprintf(out, n, "%.*s", (int)l, p);
                return;
            }
        }
        snprintf(out, n, "%s", s);
        return;
    }
    const char *e = strchr(s, '(');
    if (!e)
        e = s + strlen(s);
    const char *b = s;
    for (const char *p = s; p < e; p++)
        if (*p == ' ' || (*p == ':' && p[1] == ':'))
            b = p + (*p == ':' ? 2 : 1);
    /* drop template arguments */
    const char *t = memchr(b, '<', (size_t)(e - b));
    if (t)
        e = t;
    snprintf(out, n, "%.*s", (int)(e - b), b);
}

static int name_match(const char *want, const char *have)
{
    if (strcmp(want, have) == 0)
        return 2;
    char a[512], b[512];
    base_name(want, a, sizeof a);
    base_name(have, b, sizeof b);
    return a[0] && strcmp(a, b) == 0;
}

int cal_mset_match(cal_mset *set, wc_diag *d)
{
    for (size_t i = 0; i < set->n; i++) {
        cal_meas *m = &set->m[i];
        if (m->kind != CAL_MK_TRACE) {
            if (m->kind == CAL_MK_UBENCH && !m->match[0])
                snprintf(m->match, sizeof m->match, "ubench %.400s, metric %s",
                         m->path, cal_metric_name((int)m->metric));
            continue;
        }
        if (!m->path[0])
            return wc_diag_set(d, WC_EINPUT, m->src, 0, 0,
                               "%s: no trace to match against (give the "
                               "trace with --ncu-trace)", m->label);
        wc_trace *t = NULL;
        wc_diag td;
        memset(&td, 0, sizeof td);
        if (wc_trace_open(m->path, &t, &td) != 0) {
            char msg[1400];
            wc_diag_format(&td, msg, sizeof msg);
            return wc_diag_set(d, WC_EINPUT, m->src, 0, 0,
                               "cannot open trace of this row: %s", msg);
        }
        size_t nk = wc_trace_nkernels(t);
        long found = -1;
        char how[1400] = "";
        if (m->kernel[0]) {
            /* n-th row naming this kernel (same file) -> n-th such kernel */
            size_t nth = 0;
            for (size_t j = 0; j < i; j++)
                if (set->m[j].kind == CAL_MK_TRACE &&
                    strcmp(set->m[j].kernel, m->kernel) == 0 &&
                    strcmp(set->m[j].path, m->path) == 0)
                    nth++;
            size_t seen = 0;
            for (size_t k = 0; k < nk && found < 0; k++) {
                const wc_kernel_info *ki = wc_trace_kernel(t, k);
                if (!name_match(m->kernel, ki->name))
                    continue;
                if (seen++ == nth) {
                    found = (long)k;
                    snprintf(how, sizeof how,
                             "kernel '%s' (occurrence %zu) = trace kernel "
                             "id %d '%s'", m->kernel, nth + 1, ki->id,
                             ki->name);
                }
            }
        } else if (m->kernel_id >= 0) {
            size_t nid = 0;
            for (size_t k = 0; k < nk; k++)
                if (wc_trace_kernel(t, k)->id == m->kernel_id) {
                    if (nid++ == 0) {
                        found = (long)k;
                        snprintf(how, sizeof how, "kernel id %ld '%s'",
                                 m->kernel_id, wc_trace_kernel(t, k)->name);
                    }
                }
            if (nid > 1) { /* two launches of one id: which is meant? */
                wc_trace_close(t);
                return wc_diag_set(d, WC_EINPUT, m->src, 0, 0,
                                   "%s: %zu kernels of %s have id %ld "
                                   "(ambiguous: name a kernel column)",
                                   m->label, nid, m->path, m->kernel_id);
            }
        } else if (nk == 1) {
            found = 0;
            snprintf(how, sizeof how, "the only kernel, id %d '%s'",
                     wc_trace_kernel(t, 0)->id, wc_trace_kernel(t, 0)->name);
        }
        wc_trace_close(t);
        if (found < 0)
            return wc_diag_set(d, WC_EINPUT, m->src, 0, 0,
                               "%s: no kernel of %s matches (%zu kernels; "
                               "name a kernel or id column)",
                               m->label, m->path, nk);
        m->kidx = found;
        snprintf(m->match, sizeof m->match, "%.500s", how);
    }
    return 0;
}
