/*
 * calib/cal.h - the one public header of the calibration layer.
 *
 * Owns: measurement readers (simple CSV, Nsight Compute CSV exports, the
 * key=value lists of empty-kernel runs, GT200-style latency/throughput
 * tables), matching of measurements to warpcast inputs, the nonlinear
 * least-squares fitter (GSL gsl_multifit_nlinear, trust region / LM on
 * relative residuals), the fit report (text and JSON) and the overlay .cfg
 * writer.  `warpcast calibrate` is a thin layer over cal_run().
 *
 *   measurements ──► cal_mset ──► cal_run ──► cal_report ──► text / JSON
 *        (files)      (matched)     │  ▲                    overlay .cfg
 *                                   ▼  │ predicted cycles
 *                         cal_eval_fn (interval | detailed | hybrid |
 *                                      analytic launch model | user)
 *
 * Conventions as in common/wc.h: 0 or a WC_E* code with the wc_diag filled;
 * nothing here prints to stdout or exits.  The report writers write to the
 * FILE* they are given.
 */
#ifndef CAL_H
#define CAL_H

#include <stdint.h>
#include <stdio.h>

#include "wc.h"

/* ------------------------------------------------------------------------ */
/* Measurements                                                              */
/* ------------------------------------------------------------------------ */

/* What a measurement is of. */
typedef enum cal_mkind {
    CAL_MK_TRACE,  /* cycles of one kernel of a trace (dir/kernelslist/.traceg) */
    CAL_MK_UBENCH, /* a hand-written .sass microbenchmark (detailed model)       */
    CAL_MK_EMPTY,  /* an empty kernel: ctas x threads, launch model only         */
} cal_mkind;

/* Which quantity of the run is compared. */
typedef enum cal_metric {
    CAL_METRIC_CYCLES,     /* kernel cycles (trace, empty) or ubench cycles   */
    CAL_METRIC_REGION,     /* ubench: last clock - first clock of warp 0      */
    CAL_METRIC_LATENCY,    /* ubench: REGION / timed instructions of warp 0   */
    CAL_METRIC_THROUGHPUT, /* ubench: thread-instructions per cycle: 32 x the
                              timed instructions of all warps / (latest last
                              clock - earliest first clock)                   */
} cal_metric;

const char *cal_metric_name(int metric);
const char *cal_mkind_name(int kind);

typedef struct cal_meas {
    cal_mkind kind;
    cal_metric metric;
    char label[256];    /* short name used in reports                        */
    char path[1024];    /* trace or .sass, resolved ("" for CAL_MK_EMPTY)    */
    char kernel[512];   /* kernel name to match, "" = by id or the only one  */
    long kernel_id;     /* -kernel id to match, -1 = not given                */
    long kidx;          /* matched index in the trace, -1 = not yet matched  */
    uint64_t ctas;      /* CAL_MK_EMPTY: grid size                            */
    unsigned threads;   /* CAL_MK_EMPTY: threads per CTA                      */
    double measured;    /* the measured value (cycles, or as the metric)     */
    double weight;      /* relative weight in the fit (default 1)            */
    int holdout;        /* 1: not fitted, only predicted (--holdout)         */
    char src[1024];     /* file:line it came from                             */
    char match[512];    /* how it was matched, for the report                */
    /* The profiler is part of the measurement (issue 11, clock domains):   */
    double mhz;         /* core clock the row was measured at (key=value
                           `frequency=`), 0 = the config's clock_mhz; the
                           evaluator predicts at this clock, so the physical
                           keys (*_ns, *_gbs) give the cycles at that clock */
    int launch_excluded;/* 1: the profiler's duration does not include the
                           launch front end (nsys timeline, profile_type=
                           nsys): predicted = model - launch_overhead +
                           nsys_launch_ns at the row's clock             */
} cal_meas;

typedef struct cal_mset {
    cal_meas *m;
    size_t n, cap;
} cal_mset;

/* Options of the measurement readers. */
typedef struct cal_read_opts {
    /* key=value lists: keep only lines whose KEY has VALUE, e.g.
     * "profile_type=ncu" (the default when NULL and the file has ncu lines:
     * nsys durations measure a different quantity).  "" keeps every line. */
    const char *select;
    /* Nsight Compute CSV: the metric column to use, NULL = first present of
     * gpc__cycles_elapsed.max, sm__cycles_elapsed.avg, "Elapsed Cycles". */
    const char *ncu_metric;
    /* Nsight Compute CSV has no trace paths: the trace to match its kernels
     * against (a directory, kernelslist.g or .traceg), NULL = none; then
     * kernels are matched by name and launch id when the trace is given
     * later with cal_mset_bind_trace(). */
    const char *ncu_trace;
    /* Nsight Compute raw page that lost its header line (calib/hw/run.sh
     * before issue 11 dropped it): the header line to use, taken from another
     * export of the same run (calib/kit.c checks the units rows agree), NULL
     * = none (such a file is then an error). */
    const char *ncu_header;
} cal_read_opts;

void cal_mset_init(cal_mset *s);
void cal_mset_free(cal_mset *s);
int cal_mset_add(cal_mset *s, const cal_meas *m, wc_diag *d);
void cal_meas_init(cal_meas *m);

/*
 * Read one measurement file and append its rows.  The format is detected
 * from the content:
 *   simple CSV      header `trace,cycles` | `ubench,cycles` | `ubench,metric,
 *                   value` (optional columns kernel, id, weight, holdout);
 *                   paths are relative to the CSV's directory
 *   Nsight Compute  `ncu --csv` raw page (one row per launch, metric columns,
 *                   a units row) or details page (one row per metric)
 *   key=value       lines `..., thread=T, block=B, cycles=C, ...`
 *                   (empty-kernel runs: CAL_MK_EMPTY)
 * Bad input gives WC_EINPUT with file:line:col.
 */
int cal_mset_read(cal_mset *s, const char *path, const cal_read_opts *o,
                  wc_diag *d);
/* Same, from memory (fuzzing, tests); dir resolves relative paths. */
int cal_mset_parse(cal_mset *s, const char *name, const char *dir,
                   const char *text, size_t len, const cal_read_opts *o,
                   wc_diag *d);

/*
 * Resolve each trace measurement to one kernel: by name and launch id when
 * given, by id, by name (the n-th occurrence for the n-th row of the same
 * name), or the only kernel of a one-kernel trace.  Fills kidx and match;
 * an ambiguous or missing match is WC_EINPUT naming the row's file:line.
 */
int cal_mset_match(cal_mset *s, wc_diag *d);

/* ------------------------------------------------------------------------ */
/* Models                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum cal_model {
    CAL_MODEL_INTERVAL, /* model/ (im_run_kernel)                             */
    CAL_MODEL_DETAILED, /* detailed/ (dm_run_kernel, dm_run_ubench)           */
    CAL_MODEL_HYBRID,   /* sampler/ (smp_run_kernel, predict's default mode)  */
    CAL_MODEL_LAUNCH,   /* the analytic launch model alone (empty kernels)     */
} cal_model;

const char *cal_model_name(int model);
int cal_model_parse(const char *s, cal_model *out);
/* 1 when the model was compiled in (its module present at build time). */
int cal_model_available(cal_model m);

/*
 * Predict measurement m on configuration g.  Must be safe to call from
 * several threads at once with distinct g.  Returns 0 and *pred, or a WC_E*
 * code.  cal_eval_builtin is the one behind cal_run: empty kernels always go
 * to the launch model; traces and ubenches to the chosen model.
 */
typedef int (*cal_eval_fn)(void *ctx, const wc_gpu *g, const cal_meas *m,
                           double *pred, wc_diag *d);
/* Opens the trace at path for an evaluation (NULL: wc_trace_open).  The
 * CLI passes one that reads a text trace's binary form from the trace
 * cache (cli/tcache.c): identical records, no text parsed per evaluation.
 * Called from the evaluation threads at once: it must be thread-safe. */
typedef int (*cal_open_fn)(void *ctx, const char *path, wc_trace **out,
                           wc_diag *d);
typedef struct cal_builtin_ctx {
    cal_model model;
    uint64_t seed;
    cal_open_fn open;
    void *open_ctx;
} cal_builtin_ctx;
int cal_eval_builtin(void *ctx, const wc_gpu *g, const cal_meas *m,
                     double *pred, wc_diag *d);

/*
 * The launch / dispatch model of common/keys_launch.def: cycles of a kernel
 * of `ctas` CTAs of `threads` threads (nregs registers and shmem bytes per
 * CTA, 0 when unknown) whose CTAs each run `cta_cycles` besides the CTA
 * overheads.  Event-driven over SM slots, exact for uniform CTAs.
 */
double cal_launch_cycles(const wc_gpu *g, uint64_t ctas, unsigned threads,
                         long nregs, long shmem, double cta_cycles);
/* CTAs of that shape resident per SM: uarch's one occupancy rule
 * (ua_occupancy); 0 when one CTA cannot fit (cal_launch_cycles is then
 * NaN; ua_ctas_per_sm gives the error). */
unsigned cal_ctas_per_sm(const wc_gpu *g, unsigned threads, long nregs,
                         long shmem);

/* ------------------------------------------------------------------------ */
/* Fitting                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum cal_loss {
    CAL_LOSS_LINEAR, /* plain least squares                                  */
    CAL_LOSS_HUBER,  /* quadratic below loss_scale, linear above (IRLS)      */
    CAL_LOSS_CAUCHY, /* log(1 + (r/c)^2) (IRLS)                               */
} cal_loss;
const char *cal_loss_name(int loss);
int cal_loss_parse(const char *s, cal_loss *out);

#define CAL_MAX_PARAMS 64

typedef struct cal_options {
    const char *gpu;          /* base config: name or path (required)        */
    const char *const *sets;  /* "key=value" applied over the base, nsets    */
    size_t nsets;
    const char *const *measured; /* measurement files (--measured), nmeasured */
    size_t nmeasured;
    cal_read_opts read;       /* reader options (--select, --ncu-metric ...) */
    const char *const *fit;   /* keys to fit (--fit k1,k2 split), nfit       */
    size_t nfit;
    cal_model model;          /* --model (default interval)                   */
    cal_loss loss;            /* --loss (default linear)                      */
    double loss_scale;        /* relative residual where robust loss bends,
                                 0 = 0.05                                     */
    int loo;                  /* 1: leave-one-out refits (--loo)             */
    double holdout;           /* fraction of rows held out (--holdout F), 0  */
    uint64_t seed;            /* holdout choice, model seeds (--seed)         */
    int threads;              /* Jacobian threads, 0 = online CPUs (<= 16)   */
    int max_iter;             /* 0 = 100                                       */
    const char *out_cfg;      /* --out FILE.cfg: overlay written there       */
    /* Advanced: replace the builtin evaluator (tests, other models). */
    cal_eval_fn eval;
    void *eval_ctx;
    /* How the builtin evaluator opens traces (NULL: wc_trace_open). */
    cal_open_fn open;
    void *open_ctx;
} cal_options;

void cal_options_init(cal_options *o);

typedef struct cal_param_res {
    char key[64];
    int is_int;        /* integer key: fitted relaxed, then rounded         */
    double lo, hi;     /* bounds from the descriptor table                  */
    double start;      /* value in the base config (+ --set)                */
    double value;      /* fitted value                                      */
    double se;         /* standard error from the covariance (NAN unknown) */
    int at_bound;      /* value pinned at lo or hi                          */
    int unidentifiable;/* the data do not determine it (null direction of J) */
    int correlated_with; /* index of a parameter with |r| > 0.95, or -1     */
    double max_corr;   /* largest |r| with another parameter                */
} cal_param_res;

typedef struct cal_meas_res {
    double before;     /* prediction with the starting config               */
    double after;      /* prediction with the fitted config                 */
    double loo;        /* leave-one-out prediction (NAN when not run)       */
    double w_robust;   /* final robust weight (1 for linear loss)           */
} cal_meas_res;

typedef struct cal_report {
    char gpu[1024];          /* base config as given                          */
    char gpu_source[1024];   /* file it was loaded from                      */
    cal_model model;
    cal_loss loss;
    cal_mset meas;           /* the measurements (owned)                      */
    cal_meas_res *mres;      /* per measurement                               */
    size_t np;
    cal_param_res p[CAL_MAX_PARAMS];
    double corr[CAL_MAX_PARAMS * CAL_MAX_PARAMS]; /* row-major np x np       */
    /* convergence */
    int converged;           /* 1 when a GSL test was met                    */
    char stop_reason[128];   /* "small step", "small gradient", ...          */
    int iterations, nevals;
    double cost0, cost;      /* 0.5 sum of squared weighted residuals         */
    double mape_before, mape_after;    /* fitted rows, percent              */
    double mape_holdout_before, mape_holdout_after; /* held-out rows (NAN)  */
    double mape_loo;         /* leave-one-out MAPE, percent (NAN)             */
    size_t nfit_rows, nholdout_rows;
    double seconds;
    char notes[2048];        /* warnings worth reading (unidentifiable ...)  */
    wc_gpu fitted;           /* base config with fitted values               */
} cal_report;

void cal_report_free(cal_report *r);

/* The whole `warpcast calibrate` job: load config and measurements, match,
 * fit, predict before/after/LOO, write the overlay when out_cfg is set. */
int cal_run(const cal_options *o, cal_report *rep, wc_diag *d);

/* Lower level: fit the keys of o->fit to the already-read measurements s
 * (consumed into rep->meas) starting from base. */
int cal_fit(const cal_options *o, const wc_gpu *base, cal_mset *s,
            cal_report *rep, wc_diag *d);

/* Report writers (to the FILE* given). */
int cal_report_text(const cal_report *r, FILE *f);
int cal_report_json(const cal_report *r, FILE *f);
/* Overlay config: `include BASE` then the fitted keys with their standard
 * errors and a comment naming the data it was fitted to.  base_ref is the
 * include target as written (NULL = the report's gpu). */
int cal_write_overlay(const cal_report *r, const char *path,
                      const char *base_ref, wc_diag *d);

/* ------------------------------------------------------------------------ */
/* Generic fitter (exposed for tests): minimise relative residuals          */
/* (pred_i - meas_i) / meas_i over the parameters of a wc_gpu.               */
/* ------------------------------------------------------------------------ */

typedef struct cal_problem {
    const wc_gpu *base;
    size_t np;
    const char *const *keys;
    const cal_meas *m;
    size_t nm;
    const int *use;           /* nm flags: 1 = row fitted (NULL = all)       */
    cal_eval_fn eval;
    void *ctx;
    cal_loss loss;
    double loss_scale;
    int threads;
    int max_iter;
} cal_problem;

typedef struct cal_fit_out {
    double x[CAL_MAX_PARAMS];     /* fitted values                           */
    double x0[CAL_MAX_PARAMS];
    double se[CAL_MAX_PARAMS];
    double corr[CAL_MAX_PARAMS * CAL_MAX_PARAMS];
    int unident[CAL_MAX_PARAMS];
    int at_bound[CAL_MAX_PARAMS];
    int converged, iterations, nevals;
    double cost0, cost;
    char stop_reason[128];
} cal_fit_out;

int cal_fit_problem(const cal_problem *p, cal_fit_out *out, double *wrob,
                    wc_diag *d);

/* ------------------------------------------------------------------------ */
/* Hardware kit results folder (calib/hw/run.sh): calibrate --kit            */
/* ------------------------------------------------------------------------ */

#define CAL_KIT_MAX_GROUPS 5

typedef struct cal_kit_group {
    char name[32];       /* unit-latency, unit-throughput, launch, memory    */
    char method[256];    /* how its rows are predicted                        */
    cal_report rep;      /* the usual fit report                             */
} cal_kit_group;

typedef struct cal_kit_result {
    char dir[1024];
    char gpu[1024];
    int format;          /* 1: the first kit (raw.csv ...), 2: bench.csv     */
    char clock[16];      /* clock setting whose rows were fitted             */
    cal_kit_group g[CAL_KIT_MAX_GROUPS];
    size_t ng;
    char notes[8192];    /* rows and files not used, and why (lines)         */
    char unkeyed[16384]; /* measured quantities with no config key (lines)   */
    char left[2048];     /* keys the kit can fit that this run left at BASE  */
    wc_gpu fitted;       /* base with every identified key fitted            */
} cal_kit_result;

/* Read kit folder `dir`, fit every group its rows identify, starting from
 * o->gpu (+ o->sets); o->threads, o->max_iter, o->seed, o->loss apply. */
int cal_kit_run(const cal_options *o, const char *dir, cal_kit_result *res,
                wc_diag *d);
void cal_kit_result_free(cal_kit_result *r);
int cal_kit_report_text(const cal_kit_result *r, FILE *f);
/* Overlay config: `include BASE_REF` (NULL = the --gpu as given) then the
 * fitted keys, each with its group and standard error. */
int cal_kit_write_cfg(const cal_kit_result *r, const char *path,
                      const char *base_ref, wc_diag *d);

#endif /* CAL_H */
