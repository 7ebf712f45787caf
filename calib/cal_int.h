/*
 * calib/cal_int.h - private declarations shared by the files of calib/.
 *
 * Owns: the parallel evaluator (rows x configurations on a small pthread
 * pool) and helpers for parameter access used by fit.c and run.c.
 */
#ifndef CAL_INT_H
#define CAL_INT_H

#include "cal.h"

/* Evaluate rows[0..nrows) on each of nconf configurations: out[c*nrows+r].
 * Runs on up to `threads` threads; the first error wins and is returned. */
int cal_eval_batch(cal_eval_fn eval, void *ctx, const wc_gpu *confs,
                   size_t nconf, const cal_meas *const *rows, size_t nrows,
                   int threads, double *out, wc_diag *d);

/* Number of threads to use for `want` (0 = online CPUs, at most 16). */
int cal_threads(int want);

/* Bounds and integer-ness of a fittable key: WC_EUSAGE when the key is
 * unknown or not numeric. */
int cal_key_bounds(const char *key, double *lo, double *hi, int *is_int,
                   wc_diag *d);

/* Mean absolute percentage error of pred against m over rows with
 * use[i] (NULL = all); NAN when no row counts. */
double cal_mape(const cal_meas *m, const double *pred, const int *use,
                size_t n);

/* A ubench metric (cal_metric) from the per-warp clock values of one run
 * (clocks[w][0..nclk[w]) in program order) and its total cycles. */
int cal_ubench_metric(const cal_meas *m, const wc_ubench *u,
                      const double *const *clocks, const size_t *nclk,
                      double total, double *out, wc_diag *d);

/* Append printf-style text to a fixed buffer (truncates). */
void cal_appendf(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* CAL_INT_H */
