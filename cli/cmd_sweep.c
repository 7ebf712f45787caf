/*
 * cli/cmd_sweep.c - `warpcast sweep`: a what-if study over traces x config
 * points x modes.
 *
 * Points are the cartesian product of repeated --vary KEY=V1,V2,... (or
 * KEY=A:B:STEP) and the rows of --points FILE.csv.  Each point runs as a
 * child process (fork of this program running `predict` with --set for the
 * point), --jobs at a time; its rows are appended to --out as it finishes,
 * and the file is rewritten in canonical order at the end, so the table is
 * the same for any --jobs.  Points whose rows are already in --out are
 * skipped (resume).  --emit-jobs DIR writes one command per point for GNU
 * parallel (jobs.txt) and a Slurm job-array script (jobs.slurm) instead;
 * `warpcast merge` joins their outputs into the same table.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "study.h"

static const char sweep_help[] =
    "usage: warpcast sweep [OPTIONS] TRACE... --vary KEY=V1,V2,... [--out FILE]\n"
    "\n"
    "Runs a what-if study: every TRACE at every config point (and mode), in\n"
    "parallel, into one long table (CSV or JSON lines) with the columns trace,\n"
    "kernel_id, kernel, each varied key, mode, seed, cycles, warp_instructions,\n"
    "ipc, ci95_lo, ci95_hi.\n"
    "\n"
    "options:\n"
    "  --vary KEY=V1,V2,...  values of a config key (repeatable: the points are\n"
    "                    the cartesian product of all --vary options)\n"
    "  --vary KEY=A:B:STEP   the values A, A+STEP, ... up to B\n"
    "  --points FILE.csv one point per row; the header names the keys\n"
    "  --traces FILE     more traces, one path a line ('#' comments)\n"
    "  --mode M[,M...]   interval, detailed and/or hybrid (default hybrid)\n"
    "  --jobs N          points run at once (default: the number of cores)\n"
    "  --out FILE        the table; rows are added as points finish, points\n"
    "                    already in FILE are skipped (resume)\n"
    "  --format csv|json CSV (default) or JSON lines\n"
    "  --emit-jobs DIR   do not run: write DIR/jobs.txt (one command per point,\n"
    "                    for GNU parallel) and DIR/jobs.slurm (a job array);\n"
    "                    each writes DIR/parts/pNNNNN.csv, joined by\n"
    "                    'warpcast merge --out FILE DIR/parts'; with --out\n"
    "                    OLD, the points already in OLD are not emitted\n"
    "                    (merge the parts first: a point cut short in OLD is\n"
    "                    run again: 'warpcast merge --out FILE DIR/parts OLD')\n"
    "  --sample-period K, --budget S, --kernel N|NAME   passed to predict\n"
    "  --gpu NAME|FILE   --set KEY=VALUE (fixed for every point)   --seed N\n"
    "  --no-convert      read a text trace at every point (default: a text\n"
    "                    trace read by enough points to pay is converted once\n"
    "                    to the binary form, which gives the same results and\n"
    "                    reads several times faster: into the trace cache, or\n"
    "                    a temporary directory with WARPCAST_TRACE_CACHE=off;\n"
    "                    a trace already in the cache is read from there)\n"
    "  --quiet           no progress on stderr\n";

#define MAX_KEYS 16
#define MAX_PASS 64

typedef struct sweep {
    const char *gpu;
    const char *sets[CLI_MAX_SETS];
    int nsets;
    const char *pass[MAX_PASS]; /* predict options passed through */
    int npass;
    unsigned long long seed;
    int quiet, json, jobs;
    const char *out, *emit;
    char **traces;
    char **run;         /* what the points read: the trace, or its binary
                           form converted once for this sweep             */
    unsigned char *run_tmp; /* run[t] is this sweep's own: removed after  */
    size_t ntraces;
    int no_convert;
    const char *modes[3];
    int nmodes;
    int nkeys;
    char *keys[MAX_KEYS];
    char ***pts; /* pts[p][k] */
    size_t npts;
} sweep;

static _Noreturn void oom(void)
{
    fprintf(stderr, "warpcast sweep: out of memory\n");
    exit(WC_EINTERNAL);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        oom();
    return p;
}

/* Point values live until the end of the command: kept here, freed there. */
static char **pool;
static size_t npool, cpool;

static char *keep(char *v)
{
    if (npool == cpool) {
        cpool = cpool ? 2 * cpool : 64;
        pool = xrealloc(pool, cpool * sizeof *pool);
    }
    pool[npool++] = v;
    return v;
}

static void pool_free(void)
{
    for (size_t i = 0; i < npool; i++)
        free(pool[i]);
    free(pool);
    pool = NULL;
    npool = cpool = 0;
}

static void check_key(const char *cmd, const char *key)
{
    if (wc_key_find(key))
        return;
    const char *s = st_suggest_key(key);
    if (s)
        cli_usage_error(cmd, "unknown config key '%s'; did you mean '%s'?", key, s);
    cli_usage_error(cmd, "unknown config key '%s' (see 'warpcast gpus --keys')", key);
}

/* Whether value v of config key is one --set takes (its type and
 * bounds): 0, or -1 with the reason in err. */
static int check_value(const char *key, const char *v, char *err, size_t n)
{
    wc_gpu g;
    wc_diag d;
    char a[1200];
    memset(&d, 0, sizeof d);
    wc_gpu_defaults(&g);
    snprintf(a, sizeof a, "%s=%s", key, v);
    if (wc_gpu_set(&g, a, &d) == 0)
        return 0;
    snprintf(err, n, "%.500s", strncmp(d.msg, "--set: ", 7) ? d.msg : d.msg + 7);
    return -1;
}

static int key_index(sweep *s, const char *key)
{
    for (int k = 0; k < s->nkeys; k++)
        if (!strcmp(s->keys[k], key))
            return k;
    return -1;
}

static int add_key(sweep *s, const char *key)
{
    check_key("sweep", key);
    if (key_index(s, key) >= 0)
        cli_usage_error("sweep", "key '%s' is varied twice", key);
    if (s->nkeys >= MAX_KEYS)
        cli_usage_error("sweep", "at most %d varied keys", MAX_KEYS);
    s->keys[s->nkeys] = xstrdup(key);
    return s->nkeys++;
}

/* Multiply the current points by the values of key k. */
static void product(sweep *s, int k, char **vals, size_t nv)
{
    size_t np = s->npts * nv;
    char ***n = xrealloc(NULL, np * sizeof *n);
    size_t o = 0;
    for (size_t p = 0; p < s->npts; p++)
        for (size_t v = 0; v < nv; v++) {
            n[o] = xrealloc(NULL, MAX_KEYS * sizeof **n);
            memcpy(n[o], s->pts[p], MAX_KEYS * sizeof **n);
            n[o][k] = vals[v];
            o++;
        }
    for (size_t p = 0; p < s->npts; p++)
        free(s->pts[p]);
    free(s->pts);
    s->pts = n;
    s->npts = np;
}

static void parse_vary(sweep *s, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        cli_usage_error("sweep", "--vary needs KEY=V1,V2,... or KEY=A:B:STEP, not '%s'", arg);
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(eq - arg), arg);
    int k = add_key(s, key);
    const char *spec = eq + 1;
    char **vals = NULL;
    size_t nv = 0;
    double a, b, st;
    char c1, c2;
    int cnt = 0;
    if (strchr(spec, ':') &&
        sscanf(spec, "%lf%c%lf%c%lf%n", &a, &c1, &b, &c2, &st, &cnt) == 5 &&
        c1 == ':' && c2 == ':' && spec[cnt] == 0) {
        if (!(st > 0) || b < a)
            cli_usage_error("sweep", "--vary %s: the range A:B:STEP needs A <= B and STEP > 0", key);
        double span = (b - a) / st;
        if (span > 100000)
            cli_usage_error("sweep", "--vary %s: more than 100000 values", key);
        size_t m = (size_t)floor(span + 1e-9) + 1;
        vals = xrealloc(NULL, m * sizeof *vals);
        for (size_t i = 0; i < m; i++) {
            char buf[64];
            double x = a + (double)i * st;
            if (fabs(x) < 1e-12 * (fabs(st) + 1))
                x = 0;
            snprintf(buf, sizeof buf, "%.10g", x);
            vals[nv++] = keep(xstrdup(buf));
        }
    } else {
        char *copy = xstrdup(spec);
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
            vals = xrealloc(vals, (nv + 1) * sizeof *vals);
            vals[nv++] = keep(xstrdup(tok));
        }
        free(copy);
        if (!nv)
            cli_usage_error("sweep", "--vary %s: no values", key);
    }
    for (size_t i = 0; i < nv; i++) { /* a bad value fails here, not a point */
        char err[512];
        if (check_value(key, vals[i], err, sizeof err) != 0)
            cli_usage_error("sweep", "--vary %s: %s", key, err);
    }
    product(s, k, vals, nv);
    free(vals);
}

static void parse_points(sweep *s, const char *path)
{
    st_table t;
    st_init(&t);
    char err[512];
    if (st_read(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err); /* FILE[:LINE]: error: ... */
        st_free(&t);
        exit(WC_EINPUT);
    }
    if (!t.ncol || !t.nrow) {
        fprintf(stderr, "%s: error: no points (a header of keys and rows of values)\n", path);
        exit(WC_EINPUT);
    }
    int kk[MAX_KEYS];
    for (int c = 0; c < t.ncol; c++) {
        if (c >= MAX_KEYS)
            cli_usage_error("sweep", "at most %d varied keys", MAX_KEYS);
        kk[c] = add_key(s, t.col[c]);
    }
    size_t np = s->npts * t.nrow;
    char ***n = xrealloc(NULL, np * sizeof *n);
    size_t o = 0;
    for (size_t p = 0; p < s->npts; p++)
        for (size_t r = 0; r < t.nrow; r++) {
            n[o] = xrealloc(NULL, MAX_KEYS * sizeof **n);
            memcpy(n[o], s->pts[p], MAX_KEYS * sizeof **n);
            for (int c = 0; c < t.ncol; c++) {
                if (!t.row[r][c][0]) {
                    fprintf(stderr, "%s:%zu: error: empty value of '%s'\n", path,
                            r + 2, t.col[c]);
                    exit(WC_EINPUT);
                }
                char verr[512];
                if (check_value(t.col[c], t.row[r][c], verr, sizeof verr)) {
                    fprintf(stderr, "%s:%zu: error: %s\n", path, r + 2, verr);
                    exit(WC_EINPUT);
                }
                n[o][kk[c]] = keep(xstrdup(t.row[r][c]));
            }
            o++;
        }
    for (size_t p = 0; p < s->npts; p++)
        free(s->pts[p]);
    free(s->pts);
    s->pts = n;
    s->npts = np;
    st_free(&t);
}

static void add_trace(sweep *s, const char *p)
{
    s->traces = xrealloc(s->traces, (s->ntraces + 1) * sizeof *s->traces);
    s->traces[s->ntraces++] = xstrdup(p);
}

static void read_traces(sweep *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "warpcast sweep: cannot read '%s'\n", path);
        exit(WC_EINPUT);
    }
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strlen(p);
        while (n && strchr(" \t\r\n", p[n - 1]))
            p[--n] = 0;
        if (!n || *p == '#')
            continue;
        add_trace(s, p);
    }
    fclose(f);
}

static void add_modes(sweep *s, const char *v)
{
    char *copy = xstrdup(v);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        static const char *const known[] = {"interval", "detailed", "hybrid"};
        const char *m = NULL;
        for (int i = 0; i < 3; i++)
            if (!strcmp(tok, known[i]))
                m = known[i];
        if (!m) {
            const char *sg = st_closest(tok, known, 3);
            if (sg)
                cli_usage_error("sweep", "unknown mode '%s'; did you mean '%s'?", tok, sg);
            cli_usage_error("sweep", "unknown mode '%s' (interval, detailed or hybrid)", tok);
        }
        int dup = 0;
        for (int i = 0; i < s->nmodes; i++)
            dup |= s->modes[i] == m;
        if (!dup)
            s->modes[s->nmodes++] = m;
    }
    free(copy);
}

/* ---- the output table ----------------------------------------------------- */
static void table_cols(const sweep *s, st_table *t)
{
    char *cols[MAX_KEYS + 12];
    int n = 0;
    cols[n++] = "trace";
    cols[n++] = "kernel_id";
    cols[n++] = "kernel";
    for (int k = 0; k < s->nkeys; k++)
        cols[n++] = s->keys[k];
    cols[n++] = "mode";
    cols[n++] = "seed";
    cols[n++] = "cycles";
    cols[n++] = "warp_instructions";
    cols[n++] = "ipc";
    cols[n++] = "ci95_lo";
    cols[n++] = "ci95_hi";
    if (st_set_cols(t, n, cols) != 0)
        oom();
}

/* Job j = (trace, mode, point). */
typedef struct job {
    size_t trace, point;
    int mode;
} job;

static job job_of(const sweep *s, size_t j)
{
    job r;
    r.point = j % s->npts;
    j /= s->npts;
    r.mode = (int)(j % (size_t)s->nmodes);
    r.trace = j / (size_t)s->nmodes;
    return r;
}

/* The point identity, as st_point_key writes it for a row of t. */
static void job_key(const sweep *s, const st_table *t, job jb, char *buf, size_t n)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", s->seed);
    char **vals = xrealloc(NULL, (size_t)t->ncol * sizeof *vals);
    for (int c = 0; c < t->ncol; c++) {
        const char *cn = t->col[c];
        int k = key_index((sweep *)s, cn);
        vals[c] = !strcmp(cn, "trace")  ? s->traces[jb.trace]
                  : !strcmp(cn, "mode") ? (char *)s->modes[jb.mode]
                  : !strcmp(cn, "seed") ? seed
                  : k >= 0              ? s->pts[jb.point][k]
                                        : "";
    }
    st_table one = *t;
    one.nrow = 1;
    one.row = &vals;
    st_point_key(&one, 0, buf, n);
    free(vals);
}

static int same_cols(const st_table *a, const st_table *b)
{
    if (a->ncol != b->ncol)
        return 0;
    for (int c = 0; c < a->ncol; c++)
        if (strcmp(a->col[c], b->col[c]))
            return 0;
    return 1;
}

/* ---- running a point ----------------------------------------------------------- */

/* Convert text trace t for its n points: into the trace cache entry ce
 * (cdir not NULL), else (or when that fails) into tmpdir, removed after
 * the sweep.  A trace that cannot be opened or converted is left to the
 * points. */
static void convert_one(sweep *s, size_t t, size_t n, const char *cdir,
                        const wc_tcache_entry *ce, const char *tmpdir)
{
    wc_trace *tr = NULL;
    wc_diag d;
    if (wc_trace_open(s->traces[t], &tr, &d) != 0)
        return;
    if (!wc_trace_is_binary(tr) && cdir) {
        /* into the trace cache: later sweeps and predicts read it */
        wc_convert_stats cs;
        if (wc_tcache_store(tr, cdir, ce, wc_tcache_max_bytes(), &cs, &d) ==
            0)
            s->run[t] = xstrdup(ce->path);
    }
    if (!s->run[t] && !wc_trace_is_binary(tr)) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/trace%zu.wctb", tmpdir, t);
        wc_convert_stats cs;
        double t0 = wc_now();
        if (wc_trace_convert(tr, path, &cs, &d) == 0) {
            s->run[t] = xstrdup(path);
            s->run_tmp[t] = 1;
            if (!s->quiet && isatty(2))
                fprintf(stderr, "sweep: %s converted once for %zu points "
                        "(%.1f s)\n", s->traces[t], n, wc_now() - t0);
        } else {
            unlink(path);
        }
    }
    wc_trace_close(tr);
}

/* A text trace that two points or more read is converted once to the
 * binary form (s->run[t]: the trace cache's entry, or a file in tmpdir);
 * the points read that: the same results (every command reads either form
 * alike), the text parsed once.  An entry the cache already holds is read
 * whatever the number of points. */
static void convert_traces(sweep *s, const unsigned char *skip, size_t njobs,
                           const char *tmpdir)
{
    if (s->no_convert)
        return;
    s->run = xrealloc(NULL, s->ntraces * sizeof *s->run);
    s->run_tmp = xrealloc(NULL, s->ntraces);
    for (size_t t = 0; t < s->ntraces; t++) {
        s->run[t] = NULL;
        s->run_tmp[t] = 0;
        /* converting costs about 1.7 text reads (vectorAdd-like memory
         * trace, 6.9 M warp insts: convert 2.2 s, interval predict 1.3 s
         * from text, 0.7 s from binary); an interval point saves about
         * half a read, a hybrid or detailed point (the interval pass and
         * the regions, or the whole detailed run: copy2 7.3 s -> 4.0 s)
         * one or more: convert when the points save two reads */
        size_t n = 0, halves = 0;
        for (size_t j = 0; j < njobs; j++) {
            job jb = job_of(s, j);
            if (skip[j] || jb.trace != t)
                continue;
            n++;
            halves += strcmp(s->modes[jb.mode], "interval") ? 2 : 1;
        }
        char cdir[WC_TCACHE_PATH_MAX - 64];
        wc_tcache_entry ce;
        memset(&ce, 0, sizeof ce);
        int cached = wc_tcache_dir(cdir, sizeof cdir) == 0 &&
                     wc_tcache_lookup(s->traces[t], cdir, &ce) == 0;
        if (cached && ce.hit) /* converted by an earlier run */
            s->run[t] = xstrdup(ce.path);
        else if (halves >= 4)
            convert_one(s, t, n, cached ? cdir : NULL, &ce, tmpdir);
        wc_tcache_entry_free(&ce);
    }
}

static void child_argv(const sweep *s, job jb, const char *outpath, char **av,
                       int *ac, char bufs[][256])
{
    int n = 0, nb = 0;
    av[n++] = "predict";
    av[n++] = "--quiet";
    av[n++] = "--no-trace-cache"; /* the sweep converted what pays */
    if (s->jobs > 1) {
        /* points already run side by side: one thread each, not each its
         * own --jobs (default: every core) for kernels and regions */
        av[n++] = "--jobs";
        av[n++] = "1";
    }
    av[n++] = "--mode";
    av[n++] = (char *)s->modes[jb.mode];
    av[n++] = "--format";
    av[n++] = "csv";
    av[n++] = "--out";
    av[n++] = (char *)outpath;
    snprintf(bufs[nb], 256, "%llu", s->seed);
    av[n++] = "--seed";
    av[n++] = bufs[nb++];
    if (s->gpu) {
        av[n++] = "--gpu";
        av[n++] = (char *)s->gpu;
    }
    for (int i = 0; i < s->nsets; i++) {
        av[n++] = "--set";
        av[n++] = (char *)s->sets[i];
    }
    for (int k = 0; k < s->nkeys; k++) {
        snprintf(bufs[nb], 256, "%s=%s", s->keys[k], s->pts[jb.point][k]);
        av[n++] = "--set";
        av[n++] = bufs[nb++];
    }
    for (int i = 0; i < s->npass; i++)
        av[n++] = (char *)s->pass[i];
    av[n++] = s->run && s->run[jb.trace] ? s->run[jb.trace]
                                         : s->traces[jb.trace];
    av[n] = NULL;
    *ac = n;
}

/* Turn a predict CSV into rows of the study table. */
static int collect(const sweep *s, st_table *all, job jb, const char *path,
                   FILE *out, int json)
{
    st_table r;
    st_init(&r);
    char err[512];
    if (st_read(path, &r, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        st_free(&r);
        return -1;
    }
    static const char *const want[] = {"id", "name", "cycles", "warp_instructions",
                                       "ipc", "ci95_lo", "ci95_hi"};
    int ci[7];
    for (int i = 0; i < 7; i++)
        if ((ci[i] = st_col(&r, want[i])) < 0) {
            fprintf(stderr, "warpcast sweep: %s: no column '%s'\n", path, want[i]);
            st_free(&r);
            return -1;
        }
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", s->seed);
    char **vals = xrealloc(NULL, (size_t)all->ncol * sizeof *vals);
    /* the rows of a point go out in one write(): an interrupted sweep
     * leaves whole points (resume runs a point with missing rows again) */
    char *mbuf = NULL;
    size_t mlen = 0;
    FILE *mem = out ? open_memstream(&mbuf, &mlen) : NULL;
    if (out && !mem)
        oom();
    for (size_t row = 0; row < r.nrow; row++) {
        char **rv = r.row[row];
        int n = 0;
        vals[n++] = s->traces[jb.trace];
        vals[n++] = rv[ci[0]];
        vals[n++] = rv[ci[1]];
        for (int k = 0; k < s->nkeys; k++)
            vals[n++] = s->pts[jb.point][k];
        vals[n++] = (char *)s->modes[jb.mode];
        vals[n++] = seed;
        for (int i = 2; i < 7; i++)
            vals[n++] = rv[ci[i]];
        if (st_add(all, vals) != 0)
            oom();
        if (mem)
            st_write_row(mem, all, vals, json);
    }
    if (mem) {
        fclose(mem);
        fflush(out);
        size_t off = 0;
        while (off < mlen) {
            ssize_t w = write(fileno(out), mbuf + off, mlen - off);
            if (w <= 0) {
                if (w < 0 && errno == EINTR)
                    continue;
                fprintf(stderr, "warpcast sweep: error writing '%s'\n", s->out);
                break;
            }
            off += (size_t)w;
        }
        free(mbuf);
    }
    free(vals);
    st_free(&r);
    return 0;
}

static void shell_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

static int emit_jobs(const sweep *s, size_t njobs, const unsigned char *skip)
{
    if (mkdir(s->emit, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "warpcast sweep: cannot create '%s'\n", s->emit);
        return WC_EUSAGE;
    }
    char dir[PATH_MAX], cwd[PATH_MAX], self[PATH_MAX], p[PATH_MAX + 32];
    if (!realpath(s->emit, dir) || !getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "warpcast sweep: cannot resolve '%s'\n", s->emit);
        return WC_EUSAGE;
    }
    ssize_t ln = readlink("/proc/self/exe", self, sizeof self - 1);
    if (ln <= 0)
        snprintf(self, sizeof self, "warpcast");
    else
        self[ln] = 0;
    snprintf(p, sizeof p, "%s/parts", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/logs", dir);
    mkdir(p, 0777);
    snprintf(p, sizeof p, "%s/jobs.txt", dir);
    FILE *f = fopen(p, "w");
    if (!f) {
        fprintf(stderr, "warpcast sweep: cannot write '%s'\n", p);
        return WC_EUSAGE;
    }
    size_t nemit = 0;
    for (size_t j = 0; j < njobs; j++) {
        if (skip[j])
            continue; /* already in --out (resume) */
        nemit++;
        job jb = job_of(s, j);
        fputs("cd ", f);
        shell_quote(f, cwd);
        fputs(" && ", f);
        shell_quote(f, self);
        fprintf(f, " sweep --quiet --jobs 1 --format %s --mode %s --seed %llu",
                s->json ? "json" : "csv", s->modes[jb.mode], s->seed);
        if (s->gpu) {
            fputs(" --gpu ", f);
            shell_quote(f, s->gpu);
        }
        for (int i = 0; i < s->nsets; i++) {
            fputs(" --set ", f);
            shell_quote(f, s->sets[i]);
        }
        for (int i = 0; i < s->npass; i++) {
            fputc(' ', f);
            shell_quote(f, s->pass[i]);
        }
        for (int k = 0; k < s->nkeys; k++) {
            char kv[512];
            snprintf(kv, sizeof kv, "%s=%s", s->keys[k], s->pts[jb.point][k]);
            fputs(" --vary ", f);
            shell_quote(f, kv);
        }
        char part[PATH_MAX + 64];
        snprintf(part, sizeof part, "%s/parts/p%05zu.%s", dir, j + 1,
                 s->json ? "jsonl" : "csv");
        fputs(" --out ", f);
        shell_quote(f, part);
        fputs(" -- ", f);
        shell_quote(f, s->traces[jb.trace]);
        fputc('\n', f);
    }
    if (fclose(f) != 0)
        return WC_EINTERNAL;
    snprintf(p, sizeof p, "%s/jobs.slurm", dir);
    f = fopen(p, "w");
    if (!f) {
        fprintf(stderr, "warpcast sweep: cannot write '%s'\n", p);
        return WC_EUSAGE;
    }
    if (nemit == 0)
        fprintf(f,
                "#!/bin/bash\n"
                "# Every point of the sweep is already in its --out: nothing to run.\n"
                "exit 0\n");
    else
        fprintf(f,
                "#!/bin/bash\n"
                "# A Slurm job array: one task per point of the sweep.\n"
                "#   sbatch %s/jobs.slurm\n"
                "#   warpcast merge --out study.csv %s/parts     (when all are done)\n"
                "#SBATCH --job-name=warpcast-sweep\n"
                "#SBATCH --array=1-%zu\n"
                "#SBATCH --ntasks=1\n"
                "#SBATCH --cpus-per-task=1\n"
                "#SBATCH --output=%s/logs/%%A_%%a.log\n"
                "set -euo pipefail\n"
                "line=$(sed -n \"${SLURM_ARRAY_TASK_ID}p\" '%s/jobs.txt')\n"
                "eval \"$line\"\n",
                dir, dir, nemit, dir, dir);
    if (fclose(f) != 0)
        return WC_EINTERNAL;
    chmod(p, 0755);
    if (!s->quiet && nemit < njobs)
        fprintf(stderr, "sweep: %zu of %zu points already in %s: not emitted\n",
                njobs - nemit, njobs, s->out);
    if (!s->quiet)
        fprintf(stderr,
                "wrote %zu jobs: %s/jobs.txt (GNU parallel: parallel < %s/jobs.txt)\n"
                "and %s/jobs.slurm (sbatch); then: warpcast merge --out FILE %s/parts%s%s\n",
                nemit, dir, dir, dir, dir, nemit < njobs ? " " : "",
                nemit < njobs ? s->out : "");
    return 0;
}

static double now_s(void) { return wc_now(); }

int cmd_sweep(int argc, char **argv)
{
    static sweep s; /* static: what it holds stays reachable on every exit path */
    memset(&s, 0, sizeof s);
    s.pts = xrealloc(NULL, sizeof *s.pts);
    s.pts[0] = xrealloc(NULL, MAX_KEYS * sizeof **s.pts);
    s.npts = 1;
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    s.jobs = nc > 0 ? (int)nc : 1;
    int only_pos = 0;
    static const char *const opts[] = {
        "--vary", "--points", "--traces", "--mode", "--jobs", "--out", "--format",
        "--emit-jobs", "--sample-period", "--budget", "--kernel", "--gpu", "--set",
        "--seed", "--quiet", "--no-convert", "--help"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || !a[1]) {
            add_trace(&s, a);
            continue;
        }
        if (!strcmp(a, "--")) {
            only_pos = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(sweep_help, stdout);
            return 0;
        }
        if (!strcmp(a, "--no-convert")) {
            s.no_convert = 1;
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            s.quiet = 1;
            continue;
        }
        const char *eq = strchr(a, '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        int known = 0;
        for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++)
            known |= !strcmp(name, opts[o]);
        if (!known) {
            const char *sg = st_closest(name, opts, sizeof opts / sizeof opts[0]);
            if (sg)
                cli_usage_error("sweep", "unknown option '%s'; did you mean '%s'?", a, sg);
            cli_usage_error("sweep", "unknown option '%s'", a);
        }
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
            if (i + 1 >= argc)
                cli_usage_error("sweep", "option '%s' needs a value", a);
            v = argv[++i];
        }
        if (!strcmp(name, "--vary"))
            parse_vary(&s, v);
        else if (!strcmp(name, "--points"))
            parse_points(&s, v);
        else if (!strcmp(name, "--traces"))
            read_traces(&s, v);
        else if (!strcmp(name, "--mode"))
            add_modes(&s, v);
        else if (!strcmp(name, "--jobs")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 1 || n > 4096)
                cli_usage_error("sweep", "--jobs needs a number from 1 to 4096, not '%s'", v);
            s.jobs = (int)n;
        } else if (!strcmp(name, "--out"))
            s.out = v;
        else if (!strcmp(name, "--format")) {
            if (!strcmp(v, "csv"))
                s.json = 0;
            else if (!strcmp(v, "json"))
                s.json = 1;
            else
                cli_usage_error("sweep", "unknown format '%s' (csv or json: JSON lines)", v);
        } else if (!strcmp(name, "--emit-jobs"))
            s.emit = v;
        else if (!strcmp(name, "--gpu"))
            s.gpu = v;
        else if (!strcmp(name, "--set")) {
            if (s.nsets >= CLI_MAX_SETS)
                cli_usage_error("sweep", "too many --set options");
            const char *e2 = strchr(v, '=');
            if (!e2)
                cli_usage_error("sweep", "--set needs KEY=VALUE, not '%s'", v);
            char key[128];
            snprintf(key, sizeof key, "%.*s", (int)(e2 - v), v);
            check_key("sweep", key);
            s.sets[s.nsets++] = v;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            s.seed = strtoull(v, &end, 0);
            if (!*v || *end || *v == '-')
                cli_usage_error("sweep", "--seed needs a non-negative integer, not '%s'", v);
        } else { /* passed to predict */
            if (s.npass + 2 > MAX_PASS)
                cli_usage_error("sweep", "too many options");
            s.pass[s.npass++] = name[2] == 's' ? "--sample-period"
                                : name[2] == 'b' ? "--budget" : "--kernel";
            s.pass[s.npass++] = v;
        }
    }
    if (!s.ntraces)
        cli_usage_error("sweep", "missing TRACE (or --traces FILE)");
    if (!s.nkeys)
        cli_usage_error("sweep", "nothing to vary: give --vary KEY=V1,V2,... or --points FILE.csv");
    if (!s.nmodes)
        s.modes[s.nmodes++] = "hybrid";
    for (size_t t = 0; t < s.ntraces; t++)
        if (access(s.traces[t], R_OK) != 0) {
            fprintf(stderr, "%s: error: cannot read the trace\n", s.traces[t]);
            return WC_EINPUT;
        }
    size_t njobs = s.ntraces * (size_t)s.nmodes * s.npts;

    st_table all;
    st_init(&all);
    table_cols(&s, &all);
    /* resume: the rows already in --out */
    int to_stdout = !s.out || !strcmp(s.out, "-");
    if (!to_stdout && access(s.out, F_OK) == 0) {
        st_table old;
        st_init(&old);
        char err[512];
        if (st_read(s.out, &old, err, sizeof err) != 0) {
            fprintf(stderr, "%s (the table of --out)\n", err);
            st_free(&old);
            st_free(&all);
            return WC_EINPUT;
        }
        if (old.ncol && !same_cols(&old, &all)) {
            fprintf(stderr,
                    "warpcast sweep: '%s' holds another study (other columns); "
                    "choose another --out\n", s.out);
            st_free(&old);
            st_free(&all);
            return WC_EUSAGE;
        }
        for (size_t r = 0; r < old.nrow; r++)
            if (st_add(&all, old.row[r]) != 0)
                oom();
        st_free(&old);
    }
    size_t nold = all.nrow;
    size_t ndone = nold;
    char **done = xrealloc(NULL, (nold + 1) * sizeof *done);
    for (size_t r = 0; r < nold; r++) {
        char key[4096];
        st_point_key(&all, r, key, sizeof key);
        done[r] = xstrdup(key);
    }
    /* A point is done when its rows are there; one with fewer rows than
     * another point of the same trace and mode was cut short: run again. */
    unsigned char *skip = xrealloc(NULL, njobs);
    size_t *cnt = xrealloc(NULL, njobs * sizeof *cnt);
    size_t *rowjob = xrealloc(NULL, (nold + 1) * sizeof *rowjob);
    size_t ntm = s.ntraces * (size_t)s.nmodes;
    size_t *maxc = xrealloc(NULL, ntm * sizeof *maxc);
    for (size_t i = 0; i < ntm; i++)
        maxc[i] = 0;
    for (size_t r = 0; r < nold; r++)
        rowjob[r] = (size_t)-1;
    for (size_t j = 0; j < njobs; j++) {
        char key[4096];
        job jb = job_of(&s, j);
        job_key(&s, &all, jb, key, sizeof key);
        cnt[j] = 0;
        for (size_t r = 0; r < nold; r++)
            if (rowjob[r] == (size_t)-1 && !strcmp(done[r], key)) {
                rowjob[r] = j;
                cnt[j]++;
            }
        size_t tm = jb.trace * (size_t)s.nmodes + (size_t)jb.mode;
        if (cnt[j] > maxc[tm])
            maxc[tm] = cnt[j];
    }
    size_t todo = 0;
    for (size_t j = 0; j < njobs; j++) {
        job jb = job_of(&s, j);
        size_t tm = jb.trace * (size_t)s.nmodes + (size_t)jb.mode;
        skip[j] = cnt[j] > 0 && cnt[j] == maxc[tm];
        todo += !skip[j];
    }
    /* drop the rows of points run again */
    size_t keep = 0;
    for (size_t r = 0; r < nold; r++) {
        if (rowjob[r] != (size_t)-1 && !skip[rowjob[r]]) {
            for (int c = 0; c < all.ncol; c++)
                free(all.row[r][c]);
            free(all.row[r]);
            continue;
        }
        all.row[keep] = all.row[r];
        all.seq[keep] = keep;
        keep++;
    }
    all.nrow = keep;
    nold = keep;
    free(cnt);
    free(rowjob);
    free(maxc);
    for (size_t r = 0; r < ndone; r++)
        free(done[r]);
    free(done);
    if (s.emit) {
        /* --emit-jobs with a previous --out: the points in it are not
         * emitted; --out itself is left as it is (merge it with the parts) */
        int rc = emit_jobs(&s, njobs, skip);
        free(skip);
        st_free(&all);
        return rc;
    }
    FILE *out = NULL;
    if (!to_stdout) {
        /* rewrite what was read (drops an interrupted last line), then append */
        out = fopen(s.out, "w");
        if (!out) {
            fprintf(stderr, "warpcast sweep: cannot write '%s'\n", s.out);
            return WC_EUSAGE;
        }
        st_write(out, &all, s.json);
        fflush(out);
    }
    if (!s.quiet && nold && isatty(2))
        fprintf(stderr, "sweep: %zu of %zu points already in %s\n", njobs - todo,
                njobs, s.out);

    char tdir[PATH_MAX];
    char *tmpdir = cli_mkdtemp(tdir, sizeof tdir, "sweep");
    if (!tmpdir) {
        fprintf(stderr, "warpcast sweep: cannot create a temporary directory\n");
        return WC_EINTERNAL;
    }
    convert_traces(&s, skip, njobs, tmpdir);
    pid_t *pid = xrealloc(NULL, (size_t)s.jobs * sizeof *pid);
    size_t *pj = xrealloc(NULL, (size_t)s.jobs * sizeof *pj);
    for (int i = 0; i < s.jobs; i++)
        pid[i] = 0;
    int progress = !s.quiet && isatty(2);
    double t0 = now_s();
    size_t next = 0, finished = 0, failed = 0;
    int running = 0, worst = 0;
    for (;;) {
        while (running < s.jobs && next < njobs) {
            if (skip[next]) {
                next++;
                continue;
            }
            int slot = 0;
            while (pid[slot])
                slot++;
            char part[PATH_MAX + 32];
            snprintf(part, sizeof part, "%s/p%zu.csv", tmpdir, next);
            fflush(NULL);
            pid_t c = fork();
            if (c < 0) {
                fprintf(stderr, "warpcast sweep: fork failed\n");
                worst = WC_EINTERNAL;
                next = njobs;
                break;
            }
            if (c == 0) {
                char *av[64 + 2 * CLI_MAX_SETS + MAX_PASS + 2 * MAX_KEYS];
                char bufs[MAX_KEYS + 2][256];
                int ac;
                child_argv(&s, job_of(&s, next), part, av, &ac, bufs);
                int rc = cmd_predict(ac, av);
                fflush(NULL);
                _exit(rc);
            }
            pid[slot] = c;
            pj[slot] = next;
            running++;
            next++;
        }
        if (!running)
            break;
        int st = 0;
        pid_t w = waitpid(-1, &st, 0);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        int slot = -1;
        for (int i = 0; i < s.jobs; i++)
            if (pid[i] == w)
                slot = i;
        if (slot < 0)
            continue;
        pid[slot] = 0;
        running--;
        size_t j = pj[slot];
        job jb = job_of(&s, j);
        char part[PATH_MAX + 32];
        snprintf(part, sizeof part, "%s/p%zu.csv", tmpdir, j);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : WC_EINTERNAL;
        if (code == 0 && collect(&s, &all, jb, part, out, s.json) == 0) {
            finished++;
        } else {
            failed++;
            if (code == 0)
                code = WC_EINTERNAL;
            if (code > worst)
                worst = code;
            if (progress)
                fputc('\n', stderr);
            fprintf(stderr, "warpcast sweep: point failed (exit %d): %s, mode %s",
                    code, s.traces[jb.trace], s.modes[jb.mode]);
            for (int k = 0; k < s.nkeys; k++)
                fprintf(stderr, ", %s=%s", s.keys[k], s.pts[jb.point][k]);
            fputc('\n', stderr);
        }
        unlink(part);
        if (progress) {
            fprintf(stderr, "\rsweep: %zu/%zu points done, %d running, %zu failed, %.1f s   ",
                    finished, todo, running, failed, now_s() - t0);
            fflush(stderr);
        }
    }
    if (progress)
        fputc('\n', stderr);
    for (size_t t = 0; s.run && t < s.ntraces; t++)
        if (s.run[t]) {
            if (s.run_tmp[t])
                unlink(s.run[t]);
            free(s.run[t]);
        }
    free(s.run);
    free(s.run_tmp);
    rmdir(tmpdir);

    /* the final table, in canonical order */
    st_sort(&all);
    if (to_stdout) {
        st_write(stdout, &all, s.json);
        if (fflush(stdout) != 0)
            worst = WC_EINTERNAL;
    } else {
        if (fclose(out) != 0) {
            fprintf(stderr, "warpcast sweep: error writing '%s'\n", s.out);
            return WC_EINTERNAL;
        }
        char tmp[PATH_MAX + 16];
        snprintf(tmp, sizeof tmp, "%s.tmp", s.out);
        FILE *f = fopen(tmp, "w");
        if (!f) {
            fprintf(stderr, "warpcast sweep: cannot write '%s'\n", tmp);
            return WC_EUSAGE;
        }
        st_write(f, &all, s.json);
        if (fclose(f) != 0 || rename(tmp, s.out) != 0) {
            fprintf(stderr, "warpcast sweep: error writing '%s'\n", s.out);
            return WC_EINTERNAL;
        }
    }
    if (!s.quiet && isatty(2))
        fprintf(stderr, "sweep: %zu points run, %zu skipped, %zu failed, %.1f s\n",
                finished, njobs - todo, failed, now_s() - t0);
    st_free(&all);
    free(pid);
    free(pj);
    free(skip);
    for (size_t p = 0; p < s.npts; p++)
        free(s.pts[p]);
    free(s.pts);
    for (size_t t = 0; t < s.ntraces; t++)
        free(s.traces[t]);
    free(s.traces);
    for (int k = 0; k < s.nkeys; k++)
        free(s.keys[k]);
    pool_free();
    return worst;
}
