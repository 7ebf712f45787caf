/*
 * cli/cmd_merge.c - `warpcast merge --out FILE DIR|FILE...`: join the
 * partial tables written by the jobs of `sweep --emit-jobs` (or several
 * sweeps of the same study) into one table in the canonical order of
 * `sweep`, so the result equals a local sweep's table.  A point found in
 * several inputs is taken from the first.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "study.h"

static const char merge_help[] =
    "usage: warpcast merge --out FILE [--format csv|json] DIR|FILE...\n"
    "\n"
    "Joins sweep tables (CSV or JSON lines; every *.csv, *.jsonl and *.json\n"
    "file of a DIR, in name order) into one table sorted like 'warpcast sweep'\n"
    "writes it.  All inputs must have the same columns.  A point present in\n"
    "several inputs is taken from the first one.\n"
    "\n"
    "options:\n"
    "  --out FILE        the merged table (default: standard output)\n"
    "  --format csv|json CSV (default) or JSON lines\n"
    "  --quiet           no summary on stderr\n";

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

typedef struct keyset {
    char **k;
    size_t n, cap;
} keyset;

static int ks_has(const keyset *ks, const char *k)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->k[i], k))
            return 1;
    return 0;
}

static int merge_file(const char *path, st_table *all, keyset *seen,
                      size_t *nfiles)
{
    st_table t;
    st_init(&t);
    char err[512];
    if (st_read(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err); /* FILE[:LINE]: error: ... */
        st_free(&t);
        return WC_EINPUT;
    }
    (*nfiles)++;
    if (!t.ncol) {
        st_free(&t);
        return 0;
    }
    if (!all->ncol && st_set_cols(all, t.ncol, t.col) != 0)
        return WC_EINTERNAL;
    if (t.ncol != all->ncol) {
        fprintf(stderr, "warpcast merge: %s: other columns than the first input\n", path);
        st_free(&t);
        return WC_EINPUT;
    }
    for (int c = 0; c < t.ncol; c++)
        if (strcmp(t.col[c], all->col[c])) {
            fprintf(stderr, "warpcast merge: %s: column %d is '%s', not '%s'\n",
                    path, c + 1, t.col[c], all->col[c]);
            st_free(&t);
            return WC_EINPUT;
        }
    keyset mine = {0};
    for (size_t r = 0; r < t.nrow; r++) {
        char key[4096];
        st_point_key(&t, r, key, sizeof key);
        if (ks_has(seen, key))
            continue; /* taken from an earlier input */
        if (!ks_has(&mine, key)) {
            if (mine.n == mine.cap) {
                mine.cap = mine.cap ? 2 * mine.cap : 16;
                char **nk = realloc(mine.k, mine.cap * sizeof *nk);
                if (!nk)
                    return WC_EINTERNAL;
                mine.k = nk;
            }
            mine.k[mine.n++] = strdup(key);
        }
        if (st_add(all, t.row[r]) != 0)
            return WC_EINTERNAL;
    }
    for (size_t i = 0; i < mine.n; i++) {
        if (seen->n == seen->cap) {
            seen->cap = seen->cap ? 2 * seen->cap : 64;
            char **nk = realloc(seen->k, seen->cap * sizeof *nk);
            if (!nk)
                return WC_EINTERNAL;
            seen->k = nk;
        }
        seen->k[seen->n++] = mine.k[i];
    }
    free(mine.k);
    st_free(&t);
    return 0;
}

static void merge_check_format(const char *v)
{
    if (strcmp(v, "csv") && strcmp(v, "json"))
        cli_usage_error("merge", "unknown format '%s' (csv or json: JSON lines)", v);
}

int cmd_merge(int argc, char **argv)
{
    int quiet = 0;
    const char **in = calloc((size_t)argc, sizeof *in);
    int nin = 0;
    if (!in)
        return WC_EINTERNAL;
    static const char *const vnames[] = {"--out", "--format"};
    static const st_value_check check[] = {NULL, merge_check_format};
    const char *vals[2] = {NULL, NULL};
    if (st_args("merge", merge_help, argc, argv, vnames, vals, check, 2, &quiet, in,
                &nin)) {
        free(in);
        return 0;
    }
    const char *out = vals[0];
    int json = vals[1] && !strcmp(vals[1], "json");
    if (!nin)
        cli_usage_error("merge", "no input: give DIR or FILE arguments");
    st_table all;
    st_init(&all);
    keyset seen = {0};
    size_t nfiles = 0;
    int rc = 0;
    for (int i = 0; i < nin && !rc; i++) {
        struct stat sb;
        if (stat(in[i], &sb) != 0) {
            fprintf(stderr, "%s: error: no such file or directory\n", in[i]);
            rc = WC_EINPUT;
            break;
        }
        if (!S_ISDIR(sb.st_mode)) {
            rc = merge_file(in[i], &all, &seen, &nfiles);
            continue;
        }
        DIR *d = opendir(in[i]);
        if (!d) {
            fprintf(stderr, "%s: error: cannot read the directory\n", in[i]);
            rc = WC_EINPUT;
            break;
        }
        char **names = NULL;
        size_t nn = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' ||
                !(ends_with(e->d_name, ".csv") || ends_with(e->d_name, ".jsonl") ||
                  ends_with(e->d_name, ".json")))
                continue;
            char **nn2 = realloc(names, (nn + 1) * sizeof *names);
            if (!nn2)
                break;
            names = nn2;
            size_t l = strlen(in[i]) + strlen(e->d_name) + 2;
            names[nn] = malloc(l);
            if (names[nn])
                snprintf(names[nn++], l, "%s/%s", in[i], e->d_name);
        }
        closedir(d);
        qsort(names, nn, sizeof *names, cmp_str);
        for (size_t k = 0; k < nn; k++) {
            if (!rc)
                rc = merge_file(names[k], &all, &seen, &nfiles);
            free(names[k]);
        }
        free(names);
    }
    if (!rc) {
        st_sort(&all);
        FILE *f = st_open_out("merge", out);
        if (!f) {
            rc = WC_EUSAGE;
        } else {
            if (all.ncol)
                st_write(f, &all, json);
            if (st_close_out(f) != 0)
                rc = WC_EINTERNAL;
            if (!quiet && !rc)
                fprintf(stderr, "merge: %zu rows of %zu points from %zu files\n",
                        all.nrow, seen.n, nfiles);
        }
    }
    for (size_t i = 0; i < seen.n; i++)
        free(seen.k[i]);
    free(seen.k);
    st_free(&all);
    free(in);
    return rc;
}
