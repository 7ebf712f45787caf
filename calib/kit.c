/*
 * calib/kit.c - `warpcast calibrate --kit DIR`: one fit from a results
 * folder of the hardware kit (calib/hw/run.sh).
 *
 * Owns cal_kit_run(), its report and its overlay writer.  Two folder
 * formats are read:
 *
 *   format 2 (the kit since issue 11): bench.csv (clock,rep,test,param,
 *            value,unit), ncu.csv (one row per profiled launch), sass/K.sass
 *            with both encoding lines of every instruction.
 *   format 1 (the first kit, ../shared/data/hw/h100-sxm/kit-run/): raw.csv
 *            (rep,test,param,value,unit, no header), ncu-empty.csv and
 *            ncu-ffma.csv (Nsight Compute raw pages with the program's lines
 *            mixed in; ncu-empty.csv lost its header line), sass/all.sass
 *            (intact) and sass/K.sass (second encoding line missing: the
 *            listings are split again from all.sass, in memory).
 *
 * Fit groups, each an ordinary cal_fit() with the usual report:
 *   unit-latency, unit-throughput
 *           lat_* (one warp, scoreboard mode, perfect icache) then ii_*
 *           (one CTA of 32 warps): the detailed model runs each chain's own
 *           listing, metrics as the kit defines them, rescaled to the
 *           instructions the listing really times.
 *   launch  launch_overhead, cta_dispatch, cta_overhead, cta_warp_overhead:
 *           the launch model on gpc__cycles_elapsed.max of empty kernels.
 *   memory  l1_latency, l2_latency, dram_latency (pointer chase: load plus
 *           the IMAD.WIDE address step, lat_imadwide of the config),
 *           mem_raw_lds32_r and shmem_wavefront_cycles (shared chase with
 *           1..32-way bank conflicts), l2_bw and dram_bw (streams within and
 *           past the L2): a direct evaluator, pred = the key's meaning.
 * Rows that cannot be used are listed with the reason; measured quantities
 * without a config key (atomics, shared bandwidth, memissue) are reported
 * as measured, and memorder with the mem_issue_oldest it implies.
 * Nothing here prints: the CLI writes the report.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cal_int.h"

#define KIT_CHAIN 256 /* ops per chain in wcbench (CHAIN)                */

/* ------------------------------------------------------------------------ */
/* Rows of bench.csv / raw.csv                                               */
/* ------------------------------------------------------------------------ */

typedef struct krow {
    char clock[16];
    char test[64];
    char param[256];
    char unit[48];
    double value;
    long line;
} krow;

typedef struct ktab {
    krow *r;
    size_t n, cap;
    char file[1100];
} ktab;

static void note(cal_kit_result *res, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void note(cal_kit_result *res, const char *fmt, ...)
{
    size_t l = strlen(res->notes);
    if (l + 2 >= sizeof res->notes)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->notes + l, sizeof res->notes - l, fmt, ap);
    va_end(ap);
    l = strlen(res->notes);
    if (l + 1 < sizeof res->notes) {
        res->notes[l] = '\n';
        res->notes[l + 1] = '\0';
    }
}

static int file_exists(const char *dir, const char *name)
{
    char p[PATH_MAX];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int read_in(const char *dir, const char *name, char **buf, size_t *len,
                   wc_diag *d)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return wc_read_file(p, buf, len, d);
}

static int tab_add(ktab *t, const krow *r, wc_diag *d)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 256;
        krow *nr = realloc(t->r, nc * sizeof *nr);
        if (!nr)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        t->r = nr;
        t->cap = nc;
    }
    t->r[t->n++] = *r;
    return 0;
}

/* Split a line at commas (no quoting in the kit's own files). */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int parse_double(const char *s, double *v)
{
    char *e;
    errno = 0;
    *v = strtod(s, &e);
    while (*e == ' ' || *e == '\r')
        e++;
    return e != s && !*e && errno == 0 && isfinite(*v) ? 0 : -1;
}

/* bench.csv (header clock,rep,test,param,value,unit) or raw.csv
 * (rep,test,param,value,unit, no header: clock "none"). */
static int read_rows(const char *dir, const char *name, int fmt, ktab *t,
                     wc_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = read_in(dir, name, &buf, &len, d);
    if (rc)
        return rc;
    snprintf(t->file, sizeof t->file, "%s/%s", dir, name);
    long ln = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        ln++;
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
            line[--l] = '\0';
        if (!l || line[0] == '#')
            continue;
        if (fmt == 2 && ln == 1) {
            if (strcmp(line, "clock,rep,test,param,value,unit") != 0) {
                rc = wc_diag_set(d, WC_EINPUT, t->file, 1, 1,
                                 "expected the header "
                                 "clock,rep,test,param,value,unit");
                break;
            }
            continue;
        }
        char *f[8];
        size_t n = split(line, f, 8);
        size_t want = fmt == 2 ? 6 : 5, o = fmt == 2 ? 1 : 0;
        if (n != want) {
            rc = wc_diag_set(d, WC_EINPUT, t->file, ln, 1,
                             "%zu fields, want %zu", n, want);
            break;
        }
        krow r;
        memset(&r, 0, sizeof r);
        snprintf(r.clock, sizeof r.clock, "%s", fmt == 2 ? f[0] : "none");
        snprintf(r.test, sizeof r.test, "%s", f[o + 1]);
        snprintf(r.param, sizeof r.param, "%s", f[o + 2]);
        snprintf(r.unit, sizeof r.unit, "%s", f[o + 4]);
        r.line = ln;
        if (parse_double(f[o + 3], &r.value) != 0) {
            rc = wc_diag_set(d, WC_EINPUT, t->file, ln, 1,
                             "value '%s' is not a number", f[o + 3]);
            break;
        }
        if ((rc = tab_add(t, &r, d)))
            break;
    }
    free(buf);
    return rc;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of the rows of (clock, test, param, unit); 0 when none. */
static size_t tab_median(const ktab *t, const char *clock, const char *test,
                         const char *param, const char *unit, double *med,
                         long *line)
{
    double v[64];
    size_t n = 0;
    for (size_t i = 0; i < t->n && n < 64; i++) {
        const krow *r = &t->r[i];
        if (strcmp(r->clock, clock) || strcmp(r->test, test) ||
            strcmp(r->param, param) || (unit && strcmp(r->unit, unit)))
            continue;
        if (n == 0 && line)
            *line = r->line;
        v[n++] = r->value;
    }
    if (!n)
        return 0;
    qsort(v, n, sizeof v[0], cmp_dbl);
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    return n;
}

/* Value of "key=" in a k=v;k=v param, or -1. */
static double pget(const char *param, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = param; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=')
            return strtod(p + kl + 1, NULL);
        p = strchr(p, ';');
        if (p)
            p++;
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Listings                                                                  */
/* ------------------------------------------------------------------------ */

/* Function identifier of a cuobjdump "Function : NAME" (demangled simply):
 * "_Z6k_ffmaPxPff" -> "k_ffma". */
static void func_id(const char *mangled, char *out, size_t n)
{
    const char *p = mangled;
    if (!strncmp(p, "_Z", 2) && isdigit((unsigned char)p[2])) {
        char *e;
        long l = strtol(p + 2, &e, 10);
        if (l > 0 && (size_t)l < n && strlen(e) >= (size_t)l) {
            snprintf(out, n, "%.*s", (int)l, e);
            return;
        }
    }
    snprintf(out, n, "%.250s", p);
}

/* The line holds an encoding word comment "/+ 0x... +/". */
static int has_word(const char *p, size_t l)
{
    for (size_t i = 0; i + 5 <= l; i++)
        if (!memcmp(p + i, "/* 0x", 5))
            return 1;
    return 0;
}

/* From a cuobjdump listing, the instruction lines (both encoding lines) of
 * kernel `kname` (function identifier) as a ubench text; NULL if absent. */
static char *listing_of(const char *all, size_t len, const char *kname,
                        unsigned warps)
{
    size_t cap = 4096, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    n = (size_t)snprintf(out, cap, "# %s, split from sass/all.sass by "
                                   "calibrate --kit\n", kname);
    if (warps > 1)
        n += (size_t)snprintf(out + n, cap - n, ".warps %u\n", warps);
    int in = 0, found = 0;
    const char *p = all, *end = all + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        size_t l = (size_t)(e - p);
        const char *fn = l > 11 ? strstr(p, "Function : ") : NULL;
        if (fn && fn < e) {
            char mang[512], id[256];
            const char *q = fn + 11;
            size_t ml = 0;
            while (q + ml < e && !isspace((unsigned char)q[ml]) && ml < 511)
                ml++;
            memcpy(mang, q, ml);
            mang[ml] = '\0';
            func_id(mang, id, sizeof id);
            in = !strcmp(id, kname);
            found |= in;
        } else if (in && l > 0 && has_word(p, l)) {
            if (n + l + 2 > cap) {
                while (n + l + 2 > cap)
                    cap *= 2;
                char *no = realloc(out, cap);
                if (!no) {
                    free(out);
                    return NULL;
                }
                out = no;
            }
            memcpy(out + n, p, l);
            n += l;
            out[n++] = '\n';
            out[n] = '\0';
        }
        p = e + 1;
    }
    if (!found) {
        free(out);
        return NULL;
    }
    return out;
}

/* Instructions between the first and last clock read of warp 0 (clock
 * reads and NOPs excluded), and those of the chain's opcode. */
static size_t timed(const wc_ubench *u, const char *opname, size_t *nop)
{
    size_t first = SIZE_MAX, last = SIZE_MAX, n = 0;
    *nop = 0;
    if (!u->nwarps)
        return 0;
    for (size_t i = 0; i < u->ninsts[0]; i++)
        if (u->code[0][i].iflags & WC_IF_CLOCK) {
            if (first == SIZE_MAX)
                first = i;
            last = i;
        }
    if (first == SIZE_MAX)
        return 0;
    for (size_t i = first + 1; i < last; i++) {
        const wc_inst *in = &u->code[0][i];
        const wc_opinfo *oi = wc_op_info(in->op);
        if ((in->iflags & WC_IF_CLOCK) || (oi && (oi->flags & WC_OPF_NOP)))
            continue;
        n++;
        if (oi && !strcmp(oi->name, opname))
            (*nop)++;
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Groups                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct unit_op {
    const char *op;     /* wcbench OP                                     */
    const char *sass;   /* the SASS opcode of its chain                   */
    const char *lat;    /* key fitted by its latency row, NULL = none      */
    const char *ii;     /* key fitted by its throughput row               */
    int chain;          /* ops between the clock reads as the kit counts  */
} unit_op;

static const unit_op unit_ops[] = {
    {"ffma", "FFMA", "lat_fp32", "ii_fp32", KIT_CHAIN},
    {"fadd", "FADD", "lat_fp32", "ii_fp32", KIT_CHAIN},
    {"fmul", "FMUL", "lat_fp32", "ii_fp32", KIT_CHAIN},
    {"hfma2", "HFMA2", "lat_fp16", "ii_fp16", KIT_CHAIN},
    {"imad", "IMAD", "lat_imad", "ii_imad", KIT_CHAIN},
    {"iadd3", "IADD3", "lat_int", "ii_int", KIT_CHAIN},
    {"lop3", "LOP3", "lat_int", "ii_int", KIT_CHAIN},
    {"dfma", "DFMA", "lat_fp64", "ii_fp64", KIT_CHAIN},
    {"dadd", "DADD", "lat_fp64", "ii_fp64", KIT_CHAIN},
    {"mufu_ex2", "MUFU", "lat_mufu_ex2", "ii_sfu", KIT_CHAIN},
    {"mufu_rsq", "MUFU", "lat_mufu_rsq", "ii_sfu", KIT_CHAIN},
    {"mufu_sin", "MUFU", "lat_mufu_sin", "ii_sfu", KIT_CHAIN},
    {"mufu_lg2", "MUFU", "lat_mufu_lg2", "ii_sfu", KIT_CHAIN},
    {"mufu_rcp", "MUFU", "lat_mufu_rcp", "ii_sfu", KIT_CHAIN},
    {"mma_f16", "HMMA", "lat_tensor_k16", "ii_tensor", 64},
};

typedef struct kit_ctx {
    int fmt;
    const char *dir;
    char ref_clock[16];    /* clock whose rows are fitted                  */
    char *all_sass;        /* format 1: sass/all.sass                      */
    size_t all_len;
    char tmpdir[PATH_MAX]; /* format 1: repaired listings                  */
    ktab t;
} kit_ctx;

static void add_key(const char **keys, size_t *n, const char *k)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(keys[i], k))
            return;
    keys[(*n)++] = k;
}

/* The listing file a ubench row uses: format 2 sass/K.sass as written by
 * run.sh; format 1 split again from all.sass into the temporary folder. */
static int listing_path(kit_ctx *k, const char *kname, int tput, char *path,
                        size_t n, wc_diag *d)
{
    if (k->fmt == 2) {
        snprintf(path, n, "%s/sass/%s%s.sass", k->dir, kname,
                 tput ? "-tput" : "");
        return 0;
    }
    if (!k->tmpdir[0]) {
        const char *td = getenv("TMPDIR");
        snprintf(k->tmpdir, sizeof k->tmpdir, "%s/wc-kit-XXXXXX",
                 td && td[0] ? td : "/tmp");
        if (!mkdtemp(k->tmpdir)) {
            k->tmpdir[0] = '\0';
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                               "cannot make a temporary folder");
        }
    }
    char *txt = listing_of(k->all_sass, k->all_len, kname, tput ? 32u : 1u);
    if (!txt)
        return wc_diag_set(d, WC_EINPUT, "sass/all.sass", 0, 0,
                           "no kernel %s in the listing", kname);
    snprintf(path, n, "%.3900s/%.60s%s.sass", k->tmpdir, kname,
             tput ? "-tput" : "");
    FILE *f = fopen(path, "w");
    int rc = 0;
    if (!f || fputs(txt, f) < 0)
        rc = wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "cannot write");
    if (f && fclose(f) != 0 && !rc)
        rc = wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "cannot write");
    free(txt);
    return rc;
}

static void tmp_cleanup(kit_ctx *k)
{
    if (!k->tmpdir[0])
        return;
    for (size_t i = 0; i < sizeof unit_ops / sizeof unit_ops[0]; i++)
        for (int tp = 0; tp < 2; tp++) {
            char p[PATH_MAX + 64];
            snprintf(p, sizeof p, "%s/k_%s%s.sass", k->tmpdir, unit_ops[i].op,
                     tp ? "-tput" : "");
            unlink(p);
        }
    rmdir(k->tmpdir);
    k->tmpdir[0] = '\0';
}

static int run_group(cal_kit_result *res, const cal_options *o,
                     const wc_gpu *base, cal_mset *s, const char *name,
                     const char *method, cal_model model, cal_eval_fn eval,
                     void *ectx, const char *const *keys, size_t nkeys,
                     wc_gpu *acc, wc_diag *d)
{
    if (res->ng >= CAL_KIT_MAX_GROUPS)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "too many groups");
    if (s->n < nkeys) {
        note(res, "%s: not fitted: %zu rows for %zu keys", name, s->n, nkeys);
        return 0;
    }
    cal_kit_group *g = &res->g[res->ng];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->method, sizeof g->method, "%s", method);
    cal_options go = *o;
    go.model = model;
    go.fit = keys;
    go.nfit = nkeys;
    go.eval = eval;
    go.eval_ctx = ectx;
    go.loo = 0;
    go.holdout = 0;
    go.out_cfg = NULL;
    int rc = cal_fit(&go, base, s, &g->rep, d);
    if (rc)
        return rc;
    res->ng++;
    for (size_t j = 0; j < g->rep.np; j++) {
        const cal_param_res *p = &g->rep.p[j];
        if (p->unidentifiable)
            continue;
        if ((rc = wc_gpu_set_num(acc, p->key, p->value, d)))
            return rc;
    }
    return 0;
}

/* Keep only keys that move at least one row's prediction by 0.1% when
 * changed by 25% (at least 1): the model may not use a key for these
 * listings at all (then the fit would wander off in a null direction). */
static int drop_insensitive(cal_kit_result *res, const cal_options *o,
                            const wc_gpu *g, const cal_mset *s,
                            const char **keys, size_t *nk, wc_diag *d)
{
    size_t n = s->n;
    double *p0 = calloc(n, sizeof *p0), *p1 = calloc(n, sizeof *p1);
    const cal_meas **rows = calloc(n, sizeof *rows);
    wc_gpu *h = malloc(sizeof *h);
    int rc = 0;
    if (!p0 || !p1 || !rows || !h)
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        rows[i] = &s->m[i];
    cal_builtin_ctx bc = {.model = CAL_MODEL_DETAILED, .seed = o->seed};
    if (!rc)
        rc = cal_eval_batch(cal_eval_builtin, &bc, g, 1, rows, n, o->threads,
                            p0, d);
    size_t kept = 0;
    for (size_t j = 0; !rc && j < *nk; j++) {
        double v = 0;
        *h = *g;
        wc_gpu_get_num(h, keys[j], &v);
        double nv = fmax(v * 1.25, v + 1);
        if ((rc = wc_gpu_set_num(h, keys[j], nv, d)) ||
            (rc = cal_eval_batch(cal_eval_builtin, &bc, h, 1, rows, n,
                                 o->threads, p1, d)))
            break;
        int moves = 0;
        for (size_t i = 0; i < n; i++)
            moves |= fabs(p1[i] - p0[i]) > 1e-3 * fabs(p0[i]);
        if (moves)
            keys[kept++] = keys[j];
        else
            note(res, "units: %s not fitted: no chain's prediction depends "
                      "on it (%g -> %g moves nothing)", keys[j], v, nv);
    }
    if (!rc)
        *nk = kept;
    free(p0);
    free(p1);
    free(rows);
    free(h);
    return rc;
}

/* --- units: the detailed model on the chains' listings ------------------ */
/* tput = 0: the latency rows (lat_* keys, icache_l1_miss_latency), one warp
 * each; tput = 1: the throughput rows (ii_* keys), one CTA of 32 warps, with
 * the latencies already fitted (acc). */
static int group_units(kit_ctx *k, cal_kit_result *res, const cal_options *o,
                       const wc_gpu *base, wc_gpu *acc, int tput, wc_diag *d)
{
    if (!cal_model_available(CAL_MODEL_DETAILED)) {
        note(res, "units: not fitted: the detailed model is not built in");
        return 0;
    }
    cal_mset s;
    cal_mset_init(&s);
    const char *keys[32];
    size_t nk = 0;
    int rc = 0, fp32_lat = 0;
    for (size_t i = 0; !rc && i < sizeof unit_ops / sizeof unit_ops[0]; i++) {
        const unit_op *u = &unit_ops[i];
        for (int tp = tput; !rc && tp <= tput; tp++) {
            char test[64], kname[64], path[PATH_MAX];
            snprintf(test, sizeof test, "%s_%s", tp ? "tput" : "lat", u->op);
            double v = 0, tps = -1;
            long line = 0;
            size_t nrep = 0;
            for (size_t r = 0; r < k->t.n; r++)
                if (!strcmp(k->t.r[r].test, test) &&
                    !strcmp(k->t.r[r].clock, k->ref_clock)) {
                    nrep = tab_median(&k->t, k->ref_clock, test,
                                      k->t.r[r].param, NULL, &v, &line);
                    tps = pget(k->t.r[r].param, "threads_per_sm");
                    break;
                }
            if (!nrep)
                continue;
            snprintf(kname, sizeof kname, "k_%s", u->op);
            if ((rc = listing_path(k, kname, tp, path, sizeof path, d)))
                break;
            wc_ubench *ub = NULL;
            if (wc_ubench_load(path, &ub, d) != 0) {
                note(res, "%s:%ld: %s: not used: its listing does not load "
                          "(%s)", k->t.file, line, test, d->msg);
                memset(d, 0, sizeof *d);
                continue;
            }
            size_t nop = 0, n = timed(ub, u->sass, &nop);
            wc_ubench_free(ub);
            if (n == 0) {
                note(res, "%s:%ld: %s: not used: no instructions between the "
                          "clock reads of the listing", k->t.file, line, test);
                continue;
            }
            if (nop * 2 < (size_t)u->chain) {
                note(res, "%s:%ld: %s = %g: not used: folded by the compiler "
                          "(the listing times %zu %s for %d chained ops)",
                     k->t.file, line, test, v, nop, u->sass, u->chain);
                continue;
            }
            if (tp && tps > 0 && tps != 2048 && tps != 1024)
                note(res, "%s:%ld: %s ran %g threads per SM; the listing "
                          "runs one CTA of 32 warps", k->t.file, line, test,
                     tps);
            cal_meas m;
            cal_meas_init(&m);
            m.kind = CAL_MK_UBENCH;
            m.metric = tp ? CAL_METRIC_THROUGHPUT : CAL_METRIC_LATENCY;
            snprintf(m.path, sizeof m.path, "%.1000s", path);
            snprintf(m.label, sizeof m.label, "%s", test);
            snprintf(m.src, sizeof m.src, "%.1000s:%ld", k->t.file, line);
            /* the kit divides by its chain length, the model metric by the
             * instructions the listing times (chain + setup) */
            m.measured = tp ? v * (double)n / u->chain
                            : v * u->chain / (double)n;
            snprintf(m.match, sizeof m.match,
                     "%s%s listing, %zu timed insts (%zu %s), median of %zu, "
                     "kit value x %s",
                     kname, tp ? "-tput" : "", n, nop, u->sass, nrep,
                     tp ? "timed/chain" : "chain/timed");
            if ((rc = cal_mset_add(&s, &m, d)))
                break;
            double kv = 0;
            const char *lk = u->lat;
            /* lat_tensor_k16 = 0 means "use lat_tensor" */
            if (!strcmp(lk, "lat_tensor_k16") &&
                !wc_gpu_get_num(base, lk, &kv) && kv == 0)
                lk = "lat_tensor";
            add_key(keys, &nk, tp ? u->ii : lk);
            if (!tp && !strcmp(u->lat, "lat_fp32"))
                fp32_lat = 1;
        }
    }
    (void)fp32_lat;
    /* the latencies the kit measures (issue to dependent issue) are the
     * lat_* keys of scoreboard mode; with control bits the listing's stall
     * counts would stand in for them */
    wc_gpu *sb = NULL;
    if (!rc && s.n) {
        sb = malloc(sizeof *sb);
        if (!sb)
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        else {
            *sb = tput ? *acc : *base;
            rc = wc_gpu_set(sb, "dep_mode=scoreboard", d);
            /* one warp of straight-line code is fetch-bound in the model
             * where the chain is 4 cycles: the latency is "issue to
             * dependent issue", so it is fitted with a perfect icache
             * (the hardware's fetch cost stays in the residual) */
            if (!rc && !tput)
                rc = wc_gpu_set(sb, "icache_perfect=1", d);
            /* lat_mufu_* = 0 means "use lat_sfu": the fit starts there */
            for (size_t i = 0; !rc && i < sizeof unit_ops / sizeof *unit_ops;
                 i++) {
                double kv = 0;
                if (!strncmp(unit_ops[i].lat, "lat_mufu_", 9) &&
                    !wc_gpu_get_num(sb, unit_ops[i].lat, &kv) && kv == 0)
                    rc = wc_gpu_set_num(sb, unit_ops[i].lat,
                                        (double)sb->lat_sfu, d);
            }
        }
    }
    if (!rc && s.n)
        rc = drop_insensitive(res, o, sb, &s, keys, &nk, d);
    if (!rc && s.n && nk)
        rc = run_group(res, o, sb, &s, tput ? "unit-throughput" : "unit-latency",
                       tput ? "detailed model, scoreboard mode, on each "
                              "chain's listing run by one CTA of 32 warps "
                              "(latencies as fitted above)"
                            : "detailed model, scoreboard mode, perfect "
                              "icache, on each chain's listing run by one "
                              "warp",
                       CAL_MODEL_DETAILED, NULL, NULL, keys, nk, acc, d);
    else if (!rc)
        note(res, "units: no usable %s rows", tput ? "throughput" : "latency");
    free(sb);
    cal_mset_free(&s);
    return rc;
}

/* --- launch: empty kernels ------------------------------------------------ */

/* Format 1: ncu-empty.csv lost its header line.  Borrow the header of
 * ncu-ffma.csv (same run, same ncu, same device) when both units rows agree
 * on every column up to gpc__cycles_elapsed.max. */
static int borrow_header(kit_ctx *k, cal_kit_result *res, char **hdr,
                         wc_diag *d)
{
    *hdr = NULL;
    char *a = NULL, *b = NULL;
    size_t al = 0, bl = 0;
    int rc = read_in(k->dir, "ncu-ffma.csv", &a, &al, d);
    if (!rc)
        rc = read_in(k->dir, "ncu-empty.csv", &b, &bl, d);
    if (rc) {
        free(a);
        free(b);
        return rc;
    }
    /* header line and the line after it (units) of a; first units line of b */
    char *h = strstr(a, "\"ID\",\"");
    char *hu = h ? strchr(h, '\n') : NULL;
    char *bu = strstr(b, "\n\"\",\"");
    if (!h || !hu || !bu) {
        note(res, "ncu-empty.csv: not used: no header line, and "
                  "ncu-ffma.csv has no header to borrow");
        free(a);
        free(b);
        return 0;
    }
    size_t hl = (size_t)(hu - h);
    hu++;
    bu++;
    /* count columns of the header up to the metric */
    const char *m = strstr(h, "\"gpc__cycles_elapsed.max\"");
    if (!m || m > hu) {
        note(res, "ncu-empty.csv: not used: the borrowed header has no "
                  "gpc__cycles_elapsed.max");
        free(a);
        free(b);
        return 0;
    }
    size_t col = 0;
    for (const char *p = h; p < m; p++)
        col += *p == ',';
    /* units rows must agree on columns 0..col (quoted fields, no commas
     * inside units) */
    size_t c = 0;
    const char *p = hu, *q = bu;
    int same = 1;
    while (c <= col) {
        const char *pe = strchr(p, ','), *qe = strchr(q, ',');
        if (!pe || !qe || pe - p != qe - q || memcmp(p, q, (size_t)(pe - p))) {
            same = 0;
            break;
        }
        p = pe + 1;
        q = qe + 1;
        c++;
    }
    if (!same) {
        note(res, "ncu-empty.csv: not used: no header line, and the units "
                  "of ncu-ffma.csv differ in column %zu", c + 1);
    } else {
        *hdr = malloc(hl + 1);
        if (!*hdr)
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        else {
            memcpy(*hdr, h, hl);
            (*hdr)[hl] = '\0';
            note(res, "ncu-empty.csv: has no header line (run.sh kept the "
                      "program's first line instead); header taken from "
                      "ncu-ffma.csv of the same run: both units rows agree "
                      "on columns 1..%zu (gpc__cycles_elapsed.max is column "
                      "%zu)", col + 1, col + 1);
        }
    }
    free(a);
    free(b);
    return rc;
}

static int group_launch(kit_ctx *k, cal_kit_result *res, const cal_options *o,
                        const wc_gpu *base, wc_gpu *acc, wc_diag *d)
{
    cal_mset s;
    cal_mset_init(&s);
    int rc = 0;
    if (k->fmt == 1) {
        if (!file_exists(k->dir, "ncu-empty.csv")) {
            note(res, "launch: no ncu-empty.csv; launch.csv (cudaEvent "
                      "times, host launch latency included) is not used");
            return 0;
        }
        char *hdr = NULL;
        if ((rc = borrow_header(k, res, &hdr, d)) || !hdr)
            return rc;
        cal_read_opts ro = o->read;
        ro.ncu_header = hdr;
        ro.ncu_metric = "gpc__cycles_elapsed.max";
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/ncu-empty.csv", k->dir);
        rc = cal_mset_read(&s, p, &ro, d);
        free(hdr);
        note(res, "launch.csv: not used: cudaEvent times include the host's "
                  "launch latency (11000-100000 cycles, noisy)");
    } else {
        char *buf = NULL;
        size_t len = 0;
        if ((rc = read_in(k->dir, "ncu.csv", &buf, &len, d)))
            return rc;
        long ln = 0;
        char *save = NULL;
        for (char *line = strtok_r(buf, "\n", &save); !rc && line;
             line = strtok_r(NULL, "\n", &save)) {
            ln++;
            if (ln == 1 || line[0] == '#')
                continue;
            char *f[12];
            if (split(line, f, 12) != 9) {
                rc = wc_diag_set(d, WC_EINPUT, "ncu.csv", ln, 1,
                                 "want 9 fields (clock,rep,run,launch,"
                                 "kernel,grid,block,gpc_cycles_max,sm_mhz)");
                break;
            }
            if (strcmp(f[0], k->ref_clock) || strcmp(f[4], "k_empty"))
                continue;
            cal_meas m;
            cal_meas_init(&m);
            m.kind = CAL_MK_EMPTY;
            double g, b;
            if (parse_double(f[5], &g) || parse_double(f[6], &b) ||
                parse_double(f[7], &m.measured) || g < 1 || b < 1 ||
                b > 4096 || !(m.measured > 0)) {
                rc = wc_diag_set(d, WC_EINPUT, "ncu.csv", ln, 1,
                                 "bad grid, block or cycles");
                break;
            }
            m.ctas = (uint64_t)g;
            m.threads = (unsigned)b;
            snprintf(m.label, sizeof m.label, "empty %llux%u",
                     (unsigned long long)m.ctas, m.threads);
            snprintf(m.src, sizeof m.src, "%s/ncu.csv:%ld", k->dir, ln);
            snprintf(m.match, sizeof m.match, "k_empty, clock %s, launch model",
                     k->ref_clock);
            rc = cal_mset_add(&s, &m, d);
        }
        free(buf);
    }
    static const char *const keys[] = {"launch_overhead", "cta_dispatch",
                                       "cta_overhead", "cta_warp_overhead"};
    if (!rc && s.n >= 5)
        rc = run_group(res, o, base, &s, "launch",
                       "launch model on gpc__cycles_elapsed.max of empty "
                       "kernels", CAL_MODEL_LAUNCH, NULL, NULL, keys, 4, acc,
                       d);
    else if (!rc)
        note(res, "launch: %zu empty-kernel rows, too few to fit", s.n);
    cal_mset_free(&s);
    return rc;
}

/* --- memory: direct evaluator --------------------------------------------- */

/* m->kernel holds the formula: "addr+KEY" (pointer chase: the load plus the
 * IMAD.WIDE address step), "lds" (shared chase with m->kernel_id-way
 * conflicts), or "KEY" (the value itself: bandwidths). */
static int eval_direct(void *ctx, const wc_gpu *g, const cal_meas *m,
                       double *pred, wc_diag *d)
{
    (void)ctx;
    double v = 0, a = 0, w = 0;
    if (!strncmp(m->kernel, "addr+", 5)) {
        if (wc_gpu_get_num(g, m->kernel + 5, &v) ||
            wc_gpu_get_num(g, "lat_imadwide", &a))
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "no key %s",
                               m->kernel + 5);
        *pred = v + a;
        return 0;
    }
    if (!strcmp(m->kernel, "lds")) {
        if (wc_gpu_get_num(g, "mem_raw_lds32_r", &v) ||
            wc_gpu_get_num(g, "shmem_wavefront_cycles", &w))
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "no lds keys");
        *pred = v + (double)(m->kernel_id - 1) * w;
        return 0;
    }
    if (wc_gpu_get_num(g, m->kernel, &v))
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "no key %s", m->kernel);
    *pred = v;
    return 0;
}

static long gcd_l(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int add_direct(cal_mset *s, const kit_ctx *k, const krow *r,
                      const char *formula, long ways, const char *why,
                      wc_diag *d)
{
    double v = 0;
    long line = 0;
    size_t n = tab_median(&k->t, r->clock, r->test, r->param, r->unit, &v,
                          &line);
    if (!n)
        return 0;
    cal_meas m;
    cal_meas_init(&m);
    snprintf(m.label, sizeof m.label, "%.60s %.180s", r->test, r->param);
    for (size_t i = 0; i < s->n; i++) /* one row per (test, param) */
        if (!strcmp(s->m[i].label, m.label))
            return 0;
    m.kind = CAL_MK_EMPTY; /* not evaluated by the builtin models */
    m.measured = v;
    snprintf(m.kernel, sizeof m.kernel, "%s", formula);
    m.kernel_id = ways;
    snprintf(m.src, sizeof m.src, "%.1000s:%ld", k->t.file, line);
    snprintf(m.match, sizeof m.match, "%s, median of %zu (%s)", why, n,
             r->unit);
    return cal_mset_add(s, &m, d);
}

static int group_memory(kit_ctx *k, cal_kit_result *res, const cal_options *o,
                        const wc_gpu *base, wc_gpu *acc, wc_diag *d)
{
    cal_mset s;
    cal_mset_init(&s);
    const char *keys[16];
    size_t nk = 0;
    int rc = 0;
    double l2b = 0, l1b = 0;
    wc_gpu_get_num(base, "l2_size", &l2b);
    wc_gpu_get_num(base, "l1_size", &l1b);
    /* L1 plateau: the cached chase's smallest footprints; its end (l1_size
     * estimate) is reported, not fitted */
    double l1min = INFINITY;
    for (size_t i = 0; i < k->t.n; i++) {
        const krow *r = &k->t.r[i];
        if (strcmp(r->clock, k->ref_clock))
            continue;
        double by = pget(r->param, "bytes"), st = pget(r->param, "stride");
        if (!strcmp(r->test, "chase") && k->fmt == 2 && st >= 128 &&
            by <= 32768)
            l1min = fmin(l1min, r->value);
    }
    for (size_t i = 0; !rc && i < k->t.n; i++) {
        const krow *r = &k->t.r[i];
        if (strcmp(r->clock, k->ref_clock))
            continue;
        double by = pget(r->param, "bytes"), st = pget(r->param, "stride");
        int cached = !strcmp(r->test, "chase") && k->fmt == 2;
        int cg = !strcmp(r->test, "chasecg") ||
                 (!strcmp(r->test, "chase") && k->fmt == 1);
        if (cached && st >= 128 && by <= 32768) {
            rc = add_direct(&s, k, r, "addr+l1_latency", 0,
                            "cached chase within L1 (l1_latency + "
                            "lat_imadwide)", d);
            add_key(keys, &nk, "l1_latency");
        } else if (cg && st >= 128 && by <= 4096) {
            rc = add_direct(&s, k, r, "addr+l2_latency", 0,
                            "ld.cg chase, footprint of a few lines "
                            "(l2_latency + lat_imadwide)", d);
            add_key(keys, &nk, "l2_latency");
        } else if ((cg || cached) && st >= 128 && l2b > 0 && by >= 2 * l2b) {
            rc = add_direct(&s, k, r, "addr+dram_latency", 0,
                            "chase past twice the L2 size (dram_latency + "
                            "lat_imadwide; TLB misses included)", d);
            add_key(keys, &nk, "dram_latency");
        } else if (!strcmp(r->test, "shlat")) {
            long stv = (long)pget(r->param, "stride");
            long ways = stv > 0 ? gcd_l(stv, 32) : 1;
            rc = add_direct(&s, k, r, "lds", ways,
                            "shared chase (mem_raw_lds32_r + (ways-1) x "
                            "shmem_wavefront_cycles)", d);
            add_key(keys, &nk, "mem_raw_lds32_r");
            add_key(keys, &nk, "shmem_wavefront_cycles");
        } else if (!strcmp(r->test, "bw") && !strcmp(r->unit, "bytes/cycle")) {
            if (l2b > 0 && by <= l2b / 2) {
                rc = add_direct(&s, k, r, "l2_bw", 0,
                                "stream within half the L2 after a warm-up "
                                "pass", d);
                add_key(keys, &nk, "l2_bw");
            } else if (l2b > 0 && by >= 4 * l2b) {
                rc = add_direct(&s, k, r, "dram_bw", 0,
                                "stream past 4x the L2", d);
                add_key(keys, &nk, "dram_bw");
            }
        }
    }
    if (k->fmt == 1)
        note(res, "chase (first kit): the timed loop used ld.cg and its "
                  "warm-up loop was dead code, so L1 is never seen (1 KB to "
                  "256 KB read 274-325 cycles): l1_latency and l1_size are "
                  "not identified; stride-32 rows past the L2 mix DRAM with "
                  "L2 hits of the same 64-byte fetch and are not used for "
                  "dram_latency");
    if (isfinite(l1min)) {
        /* largest footprint still within 10% of the L1 plateau */
        double best = 0;
        for (size_t i = 0; i < k->t.n; i++) {
            const krow *r = &k->t.r[i];
            if (!strcmp(r->clock, k->ref_clock) && !strcmp(r->test, "chase") &&
                pget(r->param, "stride") >= 128 && r->value <= 1.1 * l1min)
                best = fmax(best, pget(r->param, "bytes"));
        }
        note(res, "l1_size: the cached chase stays within 10%% of the L1 "
                  "latency up to %.0f bytes (base l1_size %.0f; not fitted: "
                  "the sweep's step bounds it)", best, l1b);
    }
    if (!rc && s.n)
        rc = run_group(res, o, base, &s, "memory",
                       "direct: each row predicts its key (plus the "
                       "IMAD.WIDE step of a chase)", CAL_MODEL_LAUNCH,
                       eval_direct, NULL, keys, nk, acc, d);
    cal_mset_free(&s);
    return rc;
}

/* Measured quantities without a config key: reported as measured, one
 * line per (test, clock, param, unit); memissue rows of one warp on one
 * line (loads or inst = 1..16 in order). */
static void report_unkeyed(kit_ctx *k, cal_kit_result *res)
{
    static const char *const tests[] = {"atom", "shbw", "bw", "memissue",
                                        "imbalance", NULL};
    for (int t = 0; tests[t]; t++) {
        for (size_t i = 0; i < k->t.n; i++) {
            const krow *r = &k->t.r[i];
            if (strcmp(r->test, tests[t]))
                continue;
            int mi = !strcmp(r->test, "memissue");
            char key[256];
            snprintf(key, sizeof key, "%s", r->param);
            if (mi) { /* drop the ;inst= / ;loads= part */
                char *c = strstr(key, ";inst=");
                if (!c)
                    c = strstr(key, ";loads=");
                if (c)
                    *c = '\0';
            }
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++) {
                const krow *q = &k->t.r[j];
                if (strcmp(q->test, r->test) || strcmp(q->clock, r->clock) ||
                    strcmp(q->unit, r->unit))
                    continue;
                seen = mi ? !strncmp(q->param, key, strlen(key)) &&
                                q->param[strlen(key)] == ';'
                          : !strcmp(q->param, r->param);
            }
            if (seen)
                continue;
            size_t l = strlen(res->unkeyed);
            if (l + 300 >= sizeof res->unkeyed)
                return;
            if (!mi) {
                double v = 0;
                size_t n = tab_median(&k->t, r->clock, r->test, r->param,
                                      r->unit, &v, NULL);
                snprintf(res->unkeyed + l, sizeof res->unkeyed - l,
                         "%-9s %-46s %-5s %12.4g %s (median of %zu)\n",
                         r->test, r->param, r->clock, v, r->unit, n);
                continue;
            }
            l += (size_t)snprintf(res->unkeyed + l, sizeof res->unkeyed - l,
                                  "memissue %-22s %-5s cycles for 1..16 "
                                  "loads:", key, r->clock);
            for (int nld = 1; nld <= 16; nld++) {
                char p1[300], p2[300];
                double v = 0;
                snprintf(p1, sizeof p1, "%s;inst=%d", key, nld);
                snprintf(p2, sizeof p2, "%s;loads=%d", key, nld);
                if (!tab_median(&k->t, r->clock, r->test, p1, r->unit, &v,
                                NULL) &&
                    !tab_median(&k->t, r->clock, r->test, p2, r->unit, &v,
                                NULL))
                    continue;
                l += (size_t)snprintf(res->unkeyed + l,
                                      sizeof res->unkeyed - l, " %g", v);
            }
            snprintf(res->unkeyed + l, sizeof res->unkeyed - l, "\n");
        }
    }
    /* memorder: which warp takes a freed memory-queue entry, per clock
     * (mem_issue_oldest; docs/model-detailed.md, "Memory issue: oldest
     * first").  Telling only when warp 4 read the clock first after warp
     * 0 (warp 0 filled the queue, warp 4 was then the greedy warp): the
     * older warp's last load first then means the oldest one.  With warp 0
     * the later, both orders end warp 0 first. */
    for (size_t i = 0; i < k->t.n; i++) {
        const krow *r = &k->t.r[i];
        if (strcmp(r->test, "memorder") || strcmp(r->param, "warp=0;at=last"))
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(k->t.r[j].test, "memorder") &&
                   !strcmp(k->t.r[j].param, "warp=0;at=last") &&
                   !strcmp(k->t.r[j].clock, r->clock);
        double o = 0, y = 0, o0 = 0, y0 = 0;
        if (seen ||
            !tab_median(&k->t, r->clock, "memorder", "warp=0;at=last",
                        "cycles", &o, NULL) ||
            !tab_median(&k->t, r->clock, "memorder", "warp=4;at=last",
                        "cycles", &y, NULL) ||
            !tab_median(&k->t, r->clock, "memorder", "warp=0;at=first",
                        "cycles", &o0, NULL) ||
            !tab_median(&k->t, r->clock, "memorder", "warp=4;at=first",
                        "cycles", &y0, NULL))
            continue;
        size_t l = strlen(res->unkeyed);
        if (l + 400 >= sizeof res->unkeyed)
            return;
        l += (size_t)snprintf(res->unkeyed + l, sizeof res->unkeyed - l,
                              "memorder  %-5s warps 0 / 4: first clock read "
                              "%g / %g, last %g / %g cycles: ",
                              r->clock, o0, y0, o, y);
        if (y0 > o0)
            snprintf(res->unkeyed + l, sizeof res->unkeyed - l,
                     "freed queue entries go to the %s warp "
                     "(mem_issue_oldest = %d)\n",
                     o < y ? "oldest" : "greedy", o < y);
        else
            snprintf(res->unkeyed + l, sizeof res->unkeyed - l,
                     "inconclusive (warp 0 read the clock last, so it was "
                     "the greedy warp too)\n");
    }
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

void cal_kit_result_free(cal_kit_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->ng; i++)
        cal_report_free(&r->g[i].rep);
    r->ng = 0;
}

int cal_kit_run(const cal_options *o, const char *dir, cal_kit_result *res,
                wc_diag *d)
{
    memset(res, 0, sizeof *res);
    if (!o->gpu || !o->gpu[0])
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "calibrate --kit needs --gpu NAME|FILE");
    snprintf(res->dir, sizeof res->dir, "%s", dir);
    snprintf(res->gpu, sizeof res->gpu, "%s", o->gpu);
    kit_ctx k;
    memset(&k, 0, sizeof k);
    k.dir = dir;
    if (file_exists(dir, "bench.csv"))
        k.fmt = 2;
    else if (file_exists(dir, "raw.csv"))
        k.fmt = 1;
    else
        return wc_diag_set(d, WC_EINPUT, dir, 0, 0,
                           "not a kit results folder (no bench.csv or "
                           "raw.csv; made by calib/hw/run.sh)");
    res->format = k.fmt;
    wc_gpu *base = malloc(sizeof *base), *acc = malloc(sizeof *acc);
    if (!base || !acc) {
        free(base);
        free(acc);
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    }
    int rc = wc_gpu_load(o->gpu, base, d);
    for (size_t i = 0; !rc && i < o->nsets; i++)
        rc = wc_gpu_set(base, o->sets[i], d);
    if (!rc)
        rc = read_rows(dir, k.fmt == 2 ? "bench.csv" : "raw.csv", k.fmt, &k.t,
                       d);
    if (!rc) {
        /* the locked clock when the run has it (cycles inside the SM do not
         * depend on it; memory latencies in cycles do) */
        snprintf(k.ref_clock, sizeof k.ref_clock, "none");
        for (size_t i = 0; i < k.t.n; i++)
            if (!strcmp(k.t.r[i].clock, "base"))
                snprintf(k.ref_clock, sizeof k.ref_clock, "base");
        snprintf(res->clock, sizeof res->clock, "%s", k.ref_clock);
        if (k.fmt == 1) {
            note(res, "format 1 (the first kit): clock not controlled (plain "
                      "runs at the GPU's own clock); empty kernels from "
                      "Nsight Compute (locked clock)");
            rc = read_in(dir, "sass/all.sass", &k.all_sass, &k.all_len, d);
            if (!rc)
                note(res, "sass/K.sass: not used: run.sh kept only the first "
                          "encoding line of each instruction; the listings "
                          "are split again from sass/all.sass");
        }
    }
    *acc = *base;
    if (!rc)
        rc = group_units(&k, res, o, base, acc, 0, d);
    if (!rc)
        rc = group_units(&k, res, o, base, acc, 1, d);
    if (!rc)
        rc = group_launch(&k, res, o, base, acc, d);
    if (!rc)
        rc = group_memory(&k, res, o, base, acc, d);
    if (!rc)
        report_unkeyed(&k, res);
    if (!rc) {
        /* keys the kit could calibrate but this folder did not identify */
        static const char *const all[] = {
            "lat_fp32", "ii_fp32", "lat_fp16", "ii_fp16", "lat_int",
            "ii_int", "lat_imad", "ii_imad", "lat_fp64", "ii_fp64",
            "lat_mufu_ex2", "lat_mufu_sin", "lat_mufu_rcp", "lat_mufu_rsq",
            "lat_mufu_lg2", "ii_sfu", "lat_tensor", "ii_tensor",
            "launch_overhead", "cta_dispatch",
            "cta_overhead", "cta_warp_overhead", "l1_latency", "l2_latency",
            "dram_latency", "mem_raw_lds32_r", "shmem_wavefront_cycles",
            "l2_bw", "dram_bw", NULL};
        for (int i = 0; all[i]; i++) {
            int got = 0;
            for (size_t gi = 0; gi < res->ng && !got; gi++)
                for (size_t j = 0; j < res->g[gi].rep.np; j++)
                    if (!strcmp(res->g[gi].rep.p[j].key, all[i]) &&
                        !res->g[gi].rep.p[j].unidentifiable)
                        got = 1;
            if (!got) {
                size_t l = strlen(res->left);
                snprintf(res->left + l, sizeof res->left - l, "%s%s",
                         l ? " " : "", all[i]);
            }
        }
        res->fitted = *acc;
    }
    tmp_cleanup(&k);
    free(k.all_sass);
    free(k.t.r);
    free(base);
    free(acc);
    return rc;
}

int cal_kit_report_text(const cal_kit_result *r, FILE *f)
{
    fprintf(f, "kit folder: %s (format %d), base: %s, fitted clock: %s\n",
            r->dir, r->format, r->gpu, r->clock);
    for (size_t i = 0; i < r->ng; i++) {
        fprintf(f, "\n=== group %s: %s\n", r->g[i].name, r->g[i].method);
        cal_report_text(&r->g[i].rep, f);
    }
    if (r->unkeyed[0])
        fprintf(f, "\n=== measured, no config key (the model has no such "
                   "parameter yet)\n%s", r->unkeyed);
    if (r->notes[0])
        fprintf(f, "\n=== rows and files not used, and why\n%s", r->notes);
    fprintf(f, "\n=== keys left at the base config: %s\n",
            r->left[0] ? r->left : "(none)");
    return ferror(f) ? -1 : 0;
}

int cal_kit_write_cfg(const cal_kit_result *r, const char *path,
                      const char *base_ref, wc_diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "cannot write");
    fprintf(f, "# Fitted by `warpcast calibrate --kit %s --gpu %s`\n", r->dir,
            r->gpu);
    fprintf(f, "# (kit format %d, clock %s); values with standard errors.\n",
            r->format, r->clock);
    fprintf(f, "include %s\n", base_ref ? base_ref : r->gpu);
    for (size_t i = 0; i < r->ng; i++) {
        const cal_report *rep = &r->g[i].rep;
        fprintf(f, "\n# --- %s: %s; MAPE %.3g%% -> %.3g%% over %zu rows\n",
                r->g[i].name, r->g[i].method, rep->mape_before,
                rep->mape_after, rep->nfit_rows);
        for (size_t j = 0; j < rep->np; j++) {
            const cal_param_res *p = &rep->p[j];
            if (p->unidentifiable) {
                fprintf(f, "# %s: not identified by the data\n", p->key);
                continue;
            }
            char v[64];
            if (p->is_int)
                snprintf(v, sizeof v, "%.0f", p->value);
            else
                snprintf(v, sizeof v, "%.6g", p->value);
            fprintf(f, "%-24s = %-12s # fitted (kit, %s), std.err %.3g%s\n",
                    p->key, v, r->g[i].name, p->se,
                    p->at_bound ? ", at a bound" : "");
        }
    }
    if (r->left[0])
        fprintf(f, "\n# left at the base config (not identified by this "
                   "run): %s\n", r->left);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "cannot write");
    return 0;
}
