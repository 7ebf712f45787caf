/*
 * calib/eval.c - predicting one measurement on one configuration.
 *
 * Owns: the analytic launch / dispatch model (common/keys_launch.def), the
 * builtin evaluator that sends each measurement to the chosen model, the
 * parallel batch evaluator used by the fitter, and small shared helpers.
 *
 * Launch model (exact for uniform CTAs under the in-order greedy CTA
 * scheduler): CTA k (0-based) is dispatched at
 *     t_k = max(k d, t_{k-S} + L)  =  max(k d, (k mod S) d + floor(k/S) L)
 * with d = cta_dispatch, S = num_sms x CTAs per SM (occupancy), and
 * L = cta_overhead + cta_warp_overhead x warps + cta_cycles the time a CTA
 * holds its slot.  Kernel = launch_overhead + t_{N-1} + L.  The closed form
 * holds because with equal L the earliest free slot is always the one used
 * S CTAs before.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cal_int.h"
#include "ua.h"

/* The model backends are switched on here once their headers are in the
 * tree and this file has been written against them. */
#ifndef CAL_HAVE_IM
#define CAL_HAVE_IM 1
#endif
#ifndef CAL_HAVE_DM
#define CAL_HAVE_DM 1
#endif
#if CAL_HAVE_IM
#include "im.h"
#endif
#if CAL_HAVE_DM
#include "dm.h"
#endif
#if CAL_HAVE_IM && CAL_HAVE_DM
#include "smp.h"
#endif

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const model_names[] = {"interval", "detailed", "hybrid",
                                          "launch"};
static const char *const loss_names[] = {"linear", "huber", "cauchy"};
static const char *const metric_names[] = {"cycles", "region", "latency",
                                           "throughput"};
static const char *const kind_names[] = {"trace", "ubench", "empty"};

#define NAME_OF(tab, i)                                                        \
    ((i) >= 0 && (size_t)(i) < sizeof tab / sizeof tab[0] ? tab[i] : "?")

const char *cal_model_name(int m) { return NAME_OF(model_names, m); }
const char *cal_loss_name(int l) { return NAME_OF(loss_names, l); }
const char *cal_metric_name(int m) { return NAME_OF(metric_names, m); }
const char *cal_mkind_name(int k) { return NAME_OF(kind_names, k); }

int cal_model_parse(const char *s, cal_model *out)
{
    for (size_t i = 0; i < sizeof model_names / sizeof model_names[0]; i++)
        if (strcmp(s, model_names[i]) == 0) {
            *out = (cal_model)i;
            return 0;
        }
    return -1;
}

int cal_loss_parse(const char *s, cal_loss *out)
{
    for (size_t i = 0; i < sizeof loss_names / sizeof loss_names[0]; i++)
        if (strcmp(s, loss_names[i]) == 0) {
            *out = (cal_loss)i;
            return 0;
        }
    return -1;
}

int cal_model_available(cal_model m)
{
    switch (m) {
    case CAL_MODEL_LAUNCH:
        return 1;
    case CAL_MODEL_INTERVAL:
        return CAL_HAVE_IM;
    case CAL_MODEL_HYBRID:
        return CAL_HAVE_IM && CAL_HAVE_DM;
    case CAL_MODEL_DETAILED:
        return CAL_HAVE_DM;
    }
    return 0;
}

void cal_appendf(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

int cal_key_bounds(const char *key, double *lo, double *hi, int *is_int,
                   wc_diag *d)
{
    const wc_key_desc *k = wc_key_find(key);
    if (!k)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "unknown config key '%s' in --fit", key);
    if (k->type == WC_KT_STR)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "config key '%s' is not numeric and cannot be "
                           "fitted", key);
    *lo = k->lo;
    *hi = k->hi;
    /* the detailed model's own limit (a latency past its result ring): a
     * trial step past it stopped the fit with that model's error */
    double ml = dm_key_limit(key);
    if (ml < *hi)
        *hi = ml > *lo ? ml : *lo;
    *is_int = k->type == WC_KT_INT;
    return 0;
}

double cal_mape(const cal_meas *m, const double *pred, const int *use,
                size_t n)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if ((use && !use[i]) || !isfinite(pred[i]))
            continue;
        s += fabs(pred[i] - m[i].measured) / m[i].measured;
        k++;
    }
    return k ? 100.0 * s / (double)k : NAN;
}

int cal_threads(int want)
{
    if (want > 0)
        return want > 64 ? 64 : want;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > 16 ? 16 : (int)n;
}

/* ------------------------------------------------------------------------ */
/* Launch model                                                              */
/* ------------------------------------------------------------------------ */

unsigned cal_ctas_per_sm(const wc_gpu *g, unsigned threads, long nregs,
                         long shmem)
{
    unsigned n;
    wc_diag d;
    (void)ua_ctas_per_sm(g, threads, nregs, shmem, NULL, &n, &d);
    return n; /* 0: cannot fit (the error is ua_ctas_per_sm's) */
}

double cal_launch_cycles(const wc_gpu *g, uint64_t ctas, unsigned threads,
                         long nregs, long shmem, double cta_cycles)
{
    if (ctas == 0)
        return g->launch_overhead;
    double warps = ceil((double)threads / WC_WARP_SIZE);
    double L = g->cta_overhead + g->cta_warp_overhead * warps + cta_cycles;
    double d = g->cta_dispatch;
    unsigned per = cal_ctas_per_sm(g, threads, nregs, shmem);
    if (per == 0)
        return NAN; /* callers check that the shape fits (ua_ctas_per_sm) */
    double S = (double)g->num_sms * (double)per;
    double k = (double)(ctas - 1);
    double waves = floor(k / S);
    double t = fmax(k * d, (k - waves * S) * d + waves * L);
    return g->launch_overhead + t + L;
}

/* ------------------------------------------------------------------------ */
/* Model backends                                                            */
/* ------------------------------------------------------------------------ */

#if CAL_HAVE_IM || CAL_HAVE_DM
static int eval_trace(const cal_builtin_ctx *bc, const wc_gpu *g,
                      const cal_meas *m, double *pred, wc_diag *d)
{
    wc_trace *t = NULL;
    int rc = bc->open ? bc->open(bc->open_ctx, m->path, &t, d)
                      : wc_trace_open(m->path, &t, d);
    if (rc)
        return rc;
    if (m->kidx < 0 || (size_t)m->kidx >= wc_trace_nkernels(t)) {
        wc_trace_close(t);
        return wc_diag_set(d, WC_EUSAGE, m->src, 0, 0,
                           "measurement %s is not matched to a kernel",
                           m->label);
    }
    size_t k = (size_t)m->kidx;
    switch (bc->model) {
#if CAL_HAVE_IM && CAL_HAVE_DM
    case CAL_MODEL_HYBRID: {
        /* the sampler of predict's default mode, same seed every
         * evaluation: the estimate is a deterministic function of the
         * config (sample positions included) */
        smp_options o;
        smp_options_default(&o);
        o.seed = bc->seed;
        smp_kernel_result r;
        memset(&r, 0, sizeof r);
        rc = smp_run_kernel(t, k, g, &o, &r, d);
        if (!rc)
            *pred = (double)r.cycles;
        break;
    }
#endif
#if CAL_HAVE_DM
    case CAL_MODEL_DETAILED: {
        dm_options o;
        dm_options_default(&o);
        o.seed = bc->seed;
        dm_result r;
        memset(&r, 0, sizeof r);
        rc = dm_run_kernel(t, k, g, &o, &r, d);
        if (!rc)
            *pred = (double)r.cycles;
        dm_result_free(&r);
        break;
    }
#endif
    default: {
#if CAL_HAVE_IM
        im_options o;
        im_options_default(&o);
        im_result r;
        memset(&r, 0, sizeof r);
        rc = im_run_kernel(t, k, g, &o, &r, d);
        if (!rc)
            *pred = (double)r.cycles;
        im_result_free(&r);
#else
        rc = wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                         "the %s model is not built in",
                         cal_model_name((int)bc->model));
#endif
        break;
    }
    }
    wc_trace_close(t);
    return rc;
}
#endif

/* Timed instructions of warp w: those strictly between its first and last
 * clock read (clock reads and NOPs excluded). */
static size_t timed_insts(const wc_ubench *u, unsigned w)
{
    size_t first = SIZE_MAX, last = SIZE_MAX;
    for (size_t i = 0; i < u->ninsts[w]; i++)
        if (u->code[w][i].iflags & WC_IF_CLOCK) {
            if (first == SIZE_MAX)
                first = i;
            last = i;
        }
    if (first == SIZE_MAX || last == first)
        return 0;
    size_t n = 0;
    for (size_t i = first + 1; i < last; i++) {
        const wc_opinfo *oi = wc_op_info(u->code[w][i].op);
        if (!(u->code[w][i].iflags & WC_IF_CLOCK) &&
            !(oi && (oi->flags & WC_OPF_NOP)))
            n++;
    }
    return n;
}

/*
 * The ubench metrics from per-warp clock values.  clocks[w] holds nclk[w]
 * values in program order.
 */
int cal_ubench_metric(const cal_meas *m, const wc_ubench *u,
                      const double *const *clocks, const size_t *nclk,
                      double total, double *out, wc_diag *d)
{
    if (m->metric == CAL_METRIC_CYCLES) {
        *out = total;
        return 0;
    }
    if (u->nwarps == 0 || nclk[0] < 2)
        return wc_diag_set(d, WC_EINPUT, m->path, 0, 0,
                           "%s: metric %s needs two clock reads in warp 0",
                           m->label, cal_metric_name((int)m->metric));
    double region0 = clocks[0][nclk[0] - 1] - clocks[0][0];
    if (m->metric == CAL_METRIC_REGION) {
        *out = region0;
        return 0;
    }
    if (m->metric == CAL_METRIC_LATENCY) {
        size_t n = timed_insts(u, 0);
        if (n == 0)
            return wc_diag_set(d, WC_EINPUT, m->path, 0, 0,
                               "%s: no instructions between the clock reads "
                               "of warp 0", m->label);
        *out = region0 / (double)n;
        return 0;
    }
    double t0 = INFINITY, t1 = -INFINITY, ops = 0;
    for (unsigned w = 0; w < u->nwarps; w++) {
        if (nclk[w] < 2)
            continue;
        t0 = fmin(t0, clocks[w][0]);
        t1 = fmax(t1, clocks[w][nclk[w] - 1]);
        ops += (double)timed_insts(u, w) * WC_WARP_SIZE;
    }
    if (!(t1 > t0) || ops <= 0)
        return wc_diag_set(d, WC_EINPUT, m->path, 0, 0,
                           "%s: throughput needs timed instructions between "
                           "two clock reads", m->label);
    *out = ops / (t1 - t0);
    return 0;
}

#if CAL_HAVE_DM
static int eval_ubench(const cal_builtin_ctx *bc, const wc_gpu *g,
                       const cal_meas *m, double *pred, wc_diag *d)
{
    wc_ubench *u = NULL;
    int rc = wc_ubench_load(m->path, &u, d);
    if (rc)
        return rc;
    dm_options o;
    dm_options_default(&o);
    o.seed = bc->seed;
    dm_ubench_result r;
    memset(&r, 0, sizeof r);
    rc = dm_run_ubench(u, g, &o, &r, d);
    if (!rc) {
        const double **ck = calloc(u->nwarps + 1, sizeof *ck);
        size_t *nk = calloc(u->nwarps + 1, sizeof *nk);
        double *all = NULL;
        size_t tot = 0;
        for (unsigned w = 0; w < r.nwarps; w++)
            tot += r.nclocks[w];
        all = calloc(tot + 1, sizeof *all);
        if (!ck || !nk || !all) {
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        } else {
            /* result warps are in ubench order (warp[i] = .warp N) */
            size_t off = 0;
            for (unsigned w = 0; w < u->nwarps; w++) {
                ck[w] = all + off;
                if (w < r.nwarps) {
                    for (size_t i = 0; i < r.nclocks[w]; i++)
                        all[off + i] = (double)r.clocks[w][i];
                    nk[w] = r.nclocks[w];
                    off += nk[w];
                }
            }
            rc = cal_ubench_metric(m, u, ck, nk, (double)r.cycles, pred, d);
        }
        free(ck);
        free(nk);
        free(all);
    }
    dm_ubench_result_free(&r);
    wc_ubench_free(u);
    return rc;
}
#endif

static int eval_at_clock(const cal_builtin_ctx *bc, const wc_gpu *g,
                         const cal_meas *m, double *pred, wc_diag *d);

/* A row measured at its own clock (m->mhz) is predicted at that clock: the
 * physical keys are re-resolved there (wc_gpu_resolve_clock), the cycle
 * keys stay.  A row whose profiler leaves out the launch front end
 * (m->launch_excluded: nsys durations) is predicted with the part of the
 * launch the profiler sees (nsys_launch_ns) instead of launch_overhead.  docs/calibration.md, "The profiler is part of the
 * measurement". */
int cal_eval_builtin(void *ctx, const wc_gpu *g, const cal_meas *m,
                     double *pred, wc_diag *d)
{
    const cal_builtin_ctx *bc = ctx;
    if (m->mhz > 0 && m->mhz != g->clock_mhz) {
        wc_gpu *h = malloc(sizeof *h);
        if (!h)
            return wc_diag_set(d, WC_EINTERNAL, m->src, 0, 0,
                               "out of memory");
        *h = *g;
        h->clock_mhz = m->mhz;
        wc_gpu_resolve_clock(h);
        int rc = eval_at_clock(bc, h, m, pred, d);
        free(h);
        return rc;
    }
    return eval_at_clock(bc, g, m, pred, d);
}

static int eval_at_clock(const cal_builtin_ctx *bc, const wc_gpu *g,
                         const cal_meas *m, double *pred, wc_diag *d)
{
    int rc = 0;
    switch (m->kind) {
    case CAL_MK_EMPTY: {
        unsigned occ;
        rc = ua_ctas_per_sm(g, m->threads, 0, 0, m->src, &occ, d);
        if (rc)
            return rc;
        *pred = cal_launch_cycles(g, m->ctas, m->threads, 0, 0, 0.0);
        if (m->launch_excluded)
            *pred += g->nsys_launch_ns * g->clock_mhz / 1000.0 -
                     g->launch_overhead;
        return 0;
    }
    case CAL_MK_UBENCH:
#if CAL_HAVE_DM
        return eval_ubench(bc, g, m, pred, d);
#else
        (void)bc;
        return wc_diag_set(d, WC_EUSAGE, m->src, 0, 0,
                           "%s: microbenchmarks need the detailed model, "
                           "which is not built in", m->label);
#endif
    case CAL_MK_TRACE:
#if CAL_HAVE_IM || CAL_HAVE_DM
        if (bc->model == CAL_MODEL_LAUNCH)
            break;
        rc = eval_trace(bc, g, m, pred, d);
        if (rc == 0 && m->launch_excluded)
            *pred += g->nsys_launch_ns * g->clock_mhz / 1000.0 -
                     g->launch_overhead;
        return rc;
#else
        break;
#endif
    }
    return wc_diag_set(d, WC_EUSAGE, m->src, 0, 0,
                       "%s: the %s model cannot predict a %s measurement",
                       m->label, cal_model_name((int)bc->model),
                       cal_mkind_name((int)m->kind));
}

/* ------------------------------------------------------------------------ */
/* Parallel batch evaluation                                                 */
/* ------------------------------------------------------------------------ */

typedef struct batch {
    cal_eval_fn eval;
    void *ctx;
    const wc_gpu *confs;
    const cal_meas *const *rows;
    size_t nrows, ntasks;
    double *out;
    pthread_mutex_t mu;
    size_t next;
    int rc;
    wc_diag d;
} batch;

static void *batch_worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->mu);
        size_t t = b->next++;
        int stop = b->rc != 0;
        pthread_mutex_unlock(&b->mu);
        if (stop || t >= b->ntasks)
            break;
        size_t c = t / b->nrows, r = t % b->nrows;
        wc_diag dl;
        memset(&dl, 0, sizeof dl);
        double v = NAN;
        int rc = b->eval(b->ctx, &b->confs[c], b->rows[r], &v, &dl);
        b->out[t] = v;
        if (rc) {
            pthread_mutex_lock(&b->mu);
            if (!b->rc) {
                b->rc = rc;
                b->d = dl;
            }
            pthread_mutex_unlock(&b->mu);
        }
    }
    return NULL;
}

int cal_eval_batch(cal_eval_fn eval, void *ctx, const wc_gpu *confs,
                   size_t nconf, const cal_meas *const *rows, size_t nrows,
                   int threads, double *out, wc_diag *d)
{
    batch b;
    memset(&b, 0, sizeof b);
    b.eval = eval;
    b.ctx = ctx;
    b.confs = confs;
    b.rows = rows;
    b.nrows = nrows;
    b.ntasks = nconf * nrows;
    b.out = out;
    if (b.ntasks == 0)
        return 0;
    if (pthread_mutex_init(&b.mu, NULL) != 0)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "pthread_mutex_init");
    size_t nt = (size_t)cal_threads(threads);
    if (nt > b.ntasks)
        nt = b.ntasks;
    pthread_t tid[64];
    size_t started = 0;
    for (size_t i = 1; i < nt; i++) {
        if (pthread_create(&tid[started], NULL, batch_worker, &b) != 0)
            break; /* fewer threads is fine */
        started++;
    }
    batch_worker(&b);
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&b.mu);
    if (b.rc) {
        *d = b.d;
        return b.rc;
    }
    return 0;
}
