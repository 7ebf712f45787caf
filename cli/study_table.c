/*
 * cli/study_table.c - the string table of the study commands: RFC 4180 CSV
 * and JSON-lines reading and writing, canonical row order, point identity,
 * and "did you mean" suggestions.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "study.h"

void st_init(st_table *t) { memset(t, 0, sizeof *t); }

void st_free(st_table *t)
{
    for (size_t r = 0; r < t->nrow; r++) {
        for (int c = 0; c < t->ncol; c++)
            free(t->row[r][c]);
        free(t->row[r]);
    }
    for (int c = 0; c < t->ncol; c++)
        free(t->col[c]);
    free(t->col);
    free(t->row);
    free(t->seq);
    memset(t, 0, sizeof *t);
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s ? s : "");
    char *p = malloc(n + 1);
    if (p)
        memcpy(p, s ? s : "", n + 1);
    return p;
}

int st_set_cols(st_table *t, int ncol, char *const *names)
{
    t->col = calloc((size_t)ncol, sizeof *t->col);
    if (!t->col)
        return -1;
    t->ncol = ncol;
    for (int c = 0; c < ncol; c++)
        if (!(t->col[c] = dupstr(names[c])))
            return -1;
    return 0;
}

int st_col(const st_table *t, const char *name)
{
    for (int c = 0; c < t->ncol; c++)
        if (!strcmp(t->col[c], name))
            return c;
    return -1;
}

int st_add(st_table *t, char *const *vals)
{
    if (t->nrow == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        char ***nr = realloc(t->row, nc * sizeof *nr);
        if (!nr)
            return -1;
        t->row = nr;
        size_t *ns = realloc(t->seq, nc * sizeof *ns);
        if (!ns)
            return -1;
        t->seq = ns;
        t->cap = nc;
    }
    char **row = calloc((size_t)t->ncol, sizeof *row);
    if (!row)
        return -1;
    for (int c = 0; c < t->ncol; c++)
        if (!(row[c] = dupstr(vals[c])))
            return -1;
    t->seq[t->nrow] = t->nrow;
    t->row[t->nrow++] = row;
    return 0;
}

/* ---- CSV ------------------------------------------------------------------ */
void csv_field(FILE *f, const char *s)
{
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void csv_free_fields(char **fields, int n)
{
    for (int i = 0; i < n; i++)
        free(fields[i]);
    free(fields);
}

int csv_record(const char *text, size_t len, size_t *pos, char ***fields)
{
    size_t p = *pos;
    *fields = NULL;
    if (p >= len)
        return 0;
    int n = 0, cap = 0;
    char **fs = NULL;
    char *buf = malloc(len - p + 1);
    if (!buf)
        return -1;
    for (;;) {
        size_t b = 0;
        int quoted = 0;
        if (p < len && text[p] == '"') {
            quoted = 1;
            p++;
            for (;;) {
                if (p >= len) {
                    free(buf);
                    csv_free_fields(fs, n);
                    *pos = len; /* the text ends inside it: a cut record */
                    return -1; /* unterminated quote */
                }
                if (text[p] == '"') {
                    if (p + 1 < len && text[p + 1] == '"') {
                        buf[b++] = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                buf[b++] = text[p++];
            }
        }
        while (p < len && text[p] != ',' && text[p] != '\n' && text[p] != '\r')
            buf[b++] = text[p++];
        (void)quoted;
        buf[b] = 0;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nf = realloc(fs, (size_t)cap * sizeof *nf);
            if (!nf) {
                free(buf);
                csv_free_fields(fs, n);
                return -1;
            }
            fs = nf;
        }
        fs[n++] = dupstr(buf);
        if (p < len && text[p] == ',') {
            p++;
            continue;
        }
        if (p >= len) { /* no newline: an interrupted record */
            free(buf);
            csv_free_fields(fs, n);
            *pos = len;
            return -1;
        }
        if (text[p] == '\r')
            p++;
        if (p < len && text[p] == '\n')
            p++;
        break;
    }
    free(buf);
    *pos = p;
    *fields = fs;
    return n;
}

char *st_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    while (b) {
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        char *nb = realloc(b, cap + 1);
        if (!nb) {
            free(b);
            b = NULL;
        } else
            b = nb;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        if (len)
            *len = n;
    }
    return b;
}

static int read_jsonl(const char *text, size_t len, st_table *t, char *err,
                      size_t nerr)
{
    size_t p = 0;
    while (p < len) {
        size_t eol = p;
        while (eol < len && text[eol] != '\n')
            eol++;
        if (eol >= len)
            break; /* interrupted last line */
        if (eol == p) {
            p++;
            continue;
        }
        jv o;
        size_t end = 0;
        if (jv_parse(text + p, eol - p, &o, &end, err, nerr) != 0)
            return -1;
        if (o.type != JV_OBJ) {
            jv_free(&o);
            snprintf(err, nerr, "a line is not a JSON object");
            return -1;
        }
        if (!t->ncol && st_set_cols(t, (int)o.n, o.keys) != 0) {
            jv_free(&o);
            return -1;
        }
        char **vals = calloc((size_t)t->ncol, sizeof *vals);
        if (!vals) {
            jv_free(&o);
            return -1;
        }
        for (int c = 0; c < t->ncol; c++) {
            const jv *v = jv_get(&o, t->col[c]);
            vals[c] = (char *)(v && (v->type == JV_STR || v->type == JV_NUM) ? v->str : "");
        }
        int rc = st_add(t, vals);
        free(vals);
        jv_free(&o);
        if (rc)
            return -1;
        p = eol + 1;
    }
    return 0;
}

int st_read(const char *path, st_table *t, char *err, size_t nerr)
{
    size_t len = 0;
    char *text = st_slurp(path, &len);
    if (!text) {
        snprintf(err, nerr, "%s: error: cannot read", path);
        return -1;
    }
    size_t p = 0;
    while (p < len && isspace((unsigned char)text[p]))
        p++;
    if (p < len && text[p] == '{') {
        char e2[256] = "";
        int rc = read_jsonl(text, len, t, e2, sizeof e2);
        if (rc)
            snprintf(err, nerr, "%s: error: %s", path, e2);
        free(text);
        return rc;
    }
    p = 0;
    char **fs;
    int n = csv_record(text, len, &p, &fs);
    if (n <= 0) {
        free(text);
        if (n == 0 && !t->ncol)
            return 0; /* empty file */
        snprintf(err, nerr, "%s:1: error: no CSV header", path);
        return -1;
    }
    if (st_set_cols(t, n, fs) != 0) {
        csv_free_fields(fs, n);
        free(text);
        return -1;
    }
    csv_free_fields(fs, n);
    size_t line = 2;
    for (;;) {
        int m = csv_record(text, len, &p, &fs);
        if (m == 0 || (m < 0 && p >= len))
            break;
        if (m != t->ncol) {
            snprintf(err, nerr, "%s:%zu: error: %d fields, the header has %d", path,
                     line, m, t->ncol);
            csv_free_fields(fs, m);
            free(text);
            return -1;
        }
        int rc = st_add(t, fs);
        csv_free_fields(fs, m);
        if (rc) {
            free(text);
            return -1;
        }
        line++;
    }
    free(text);
    return 0;
}

void st_write_header_csv(FILE *f, const st_table *t)
{
    for (int c = 0; c < t->ncol; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, t->col[c]);
    }
    fputc('\n', f);
}

int st_is_number(const char *s)
{
    if (!*s)
        return 0;
    char *end;
    (void)strtod(s, &end);
    if (*end)
        return 0;
    /* JSON numbers: no leading '+', '.', hex, inf or nan */
    const char *p = s + (*s == '-');
    if (!isdigit((unsigned char)*p))
        return 0;
    if (p[0] == '0' && p[1] && p[1] != '.' && p[1] != 'e' && p[1] != 'E')
        return 0;
    for (; *p; p++)
        if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p))
            return 0;
    return 1;
}

void st_write_row(FILE *f, const st_table *t, char *const *vals, int json)
{
    if (json) {
        fputc('{', f);
        for (int c = 0; c < t->ncol; c++) {
            if (c)
                fputs(", ", f);
            json_write_string(f, t->col[c]);
            fputs(": ", f);
            /* names stay strings whatever they look like */
            int str = !strcmp(t->col[c], "trace") || !strcmp(t->col[c], "kernel") ||
                      !strcmp(t->col[c], "mode") || !strcmp(t->col[c], "mangled");
            if (!vals[c][0])
                fputs("null", f);
            else if (!str && st_is_number(vals[c]))
                fputs(vals[c], f);
            else
                json_write_string(f, vals[c]);
        }
        fputs("}\n", f);
        return;
    }
    for (int c = 0; c < t->ncol; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, vals[c]);
    }
    fputc('\n', f);
}

void st_write(FILE *f, const st_table *t, int json)
{
    if (!json)
        st_write_header_csv(f, t);
    for (size_t r = 0; r < t->nrow; r++)
        st_write_row(f, t, t->row[r], json);
}

int st_is_result_col(const char *name)
{
    static const char *const res[] = {"kernel_id", "kernel", "mangled", "cycles",
                                      "warp_instructions", "ipc", "ci95_lo",
                                      "ci95_hi"};
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        if (!strcmp(name, res[i]))
            return 1;
    return 0;
}

static int cmp_val(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (*a && *b && !*ea && !*eb)
        return x < y ? -1 : x > y;
    return strcmp(a, b);
}

static const st_table *sort_t;
static int sort_order[256];
static int sort_n;

static int row_cmp(const void *pa, const void *pb)
{
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    for (int k = 0; k < sort_n; k++) {
        int c = sort_order[k];
        int r = cmp_val(sort_t->row[ia][c], sort_t->row[ib][c]);
        if (r)
            return r;
    }
    return sort_t->seq[ia] < sort_t->seq[ib] ? -1 : sort_t->seq[ia] > sort_t->seq[ib];
}

static void point_cols(const st_table *t)
{
    sort_n = 0;
    int ct = st_col(t, "trace");
    if (ct >= 0)
        sort_order[sort_n++] = ct;
    for (int c = 0; c < t->ncol && sort_n < 250; c++)
        if (!st_is_result_col(t->col[c]) && strcmp(t->col[c], "trace") &&
            strcmp(t->col[c], "mode") && strcmp(t->col[c], "seed"))
            sort_order[sort_n++] = c;
    int cm = st_col(t, "mode"), cs = st_col(t, "seed");
    if (cm >= 0)
        sort_order[sort_n++] = cm;
    if (cs >= 0)
        sort_order[sort_n++] = cs;
}

void st_sort(st_table *t)
{
    if (t->nrow < 2)
        return;
    size_t *idx = malloc(t->nrow * sizeof *idx);
    char ***nr = malloc(t->nrow * sizeof *nr);
    size_t *ns = malloc(t->nrow * sizeof *ns);
    if (!idx || !nr || !ns) {
        free(idx);
        free(nr);
        free(ns);
        return;
    }
    for (size_t r = 0; r < t->nrow; r++)
        idx[r] = r;
    sort_t = t;
    point_cols(t);
    qsort(idx, t->nrow, sizeof *idx, row_cmp);
    for (size_t r = 0; r < t->nrow; r++) {
        nr[r] = t->row[idx[r]];
        ns[r] = r;
    }
    free(t->row);
    free(t->seq);
    free(idx);
    t->row = nr;
    t->seq = ns;
    t->cap = t->nrow;
}

void st_point_key(const st_table *t, size_t r, char *buf, size_t n)
{
    point_cols(t);
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < sort_n && at < n; k++) {
        int w = snprintf(buf + at, n - at, "%s=%s\x1f", t->col[sort_order[k]],
                         t->row[r][sort_order[k]]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/* ---- did you mean ------------------------------------------------------------ */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 1000;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t m = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < m)
                m = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < m)
                m = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < m)
                m = d[i - 2][j - 2] + 1; /* transposition */
            d[i][j] = m;
        }
    return d[la][lb];
}

const char *st_closest(const char *s, const char *const *cand, size_t n)
{
    size_t best = (size_t)-1;
    const char *bc = NULL;
    size_t lim = strlen(s) / 3;
    if (lim < 2)
        lim = 2;
    for (size_t i = 0; i < n; i++) {
        size_t dd = edit_distance(s, cand[i]);
        /* a candidate containing s (or contained) is a good guess too */
        if (dd > lim && strlen(s) >= 4 && (strstr(cand[i], s) || strstr(s, cand[i])))
            dd = lim;
        if (dd < best) {
            best = dd;
            bc = cand[i];
        }
    }
    return best <= lim ? bc : NULL;
}

const char *st_suggest_key(const char *s)
{
    size_t n = 0;
    const wc_key_desc *k = wc_keys(&n);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names)
        return NULL;
    for (size_t i = 0; i < n; i++)
        names[i] = k[i].name;
    const char *r = st_closest(s, names, n);
    free(names);
    return r;
}

const char *st_suggest_gpu(const char *s)
{
    static char keep[128];
    char **names = NULL;
    size_t n = wc_gpu_list(&names);
    const char *r = st_closest(s, (const char *const *)names, n);
    if (r)
        snprintf(keep, sizeof keep, "%s", r);
    wc_free_names(names, n);
    return r ? keep : NULL;
}

/* ---- command lines and outputs of the study commands ----------------------- */
int st_args(const char *cmd, const char *help, int argc, char **argv,
            const char *const *names, const char **vals,
            const st_value_check *check, size_t nopt, int *quiet,
            const char **in, int *nin)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(help, stdout);
            return 1;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            *quiet = 1;
            continue;
        }
        size_t k = 0;
        while (k < nopt && strcmp(a, names[k]))
            k++;
        if (k < nopt) {
            if (i + 1 >= argc)
                cli_usage_error(cmd, "option '%s' needs a value", a);
            if (check && check[k])
                check[k](argv[i + 1]);
            vals[k] = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            const char *opts[16];
            size_t n = 0;
            for (k = 0; k < nopt && n < 14; k++)
                opts[n++] = names[k];
            opts[n++] = "--quiet";
            opts[n++] = "--help";
            const char *sg = st_closest(a, opts, n);
            if (sg)
                cli_usage_error(cmd, "unknown option '%s'; did you mean '%s'?", a, sg);
            cli_usage_error(cmd, "unknown option '%s'", a);
        } else {
            in[(*nin)++] = a;
        }
    }
    return 0;
}

FILE *st_open_out(const char *cmd, const char *path)
{
    FILE *f = path && strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f)
        fprintf(stderr, "warpcast %s: cannot write '%s'\n", cmd, path);
    return f;
}

int st_close_out(FILE *f)
{
    return f == stdout ? fflush(f) : fclose(f);
}
