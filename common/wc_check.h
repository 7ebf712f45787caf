/*
 * common/wc_check.h - invariants of a model result, checked in debug builds
 * (SQLite's invariant checker, ChampSim's watchdog; issue 12).
 *
 * Each model calls one hook per result, WC_CHECK(wc_check_...(...)): with
 * WC_CHECKS defined (make DEBUG=1, and every SAN= build, which CI runs) it
 * checks the result and turns a violation into WC_EINTERNAL with a message
 * naming the model, the kernel and the broken invariant; otherwise the call
 * compiles away.  The functions themselves are always built (unit tests
 * call them with deliberately broken results).  Nothing here prints.
 */
#ifndef WC_CHECK_RESULT_H
#define WC_CHECK_RESULT_H

#include <stdint.h>

#include "wc.h"

#ifdef WC_CHECKS
#define WC_CHECKS_ON 1
#else
#define WC_CHECKS_ON 0
#endif
/* 0 when checks are off, else the value of the check call */
#define WC_CHECK(call) (WC_CHECKS_ON ? (call) : 0)

/* One kernel (or CTA window) run by the interval or the detailed model.
 * model: "interval" / "detailed"; ki: the trace header of the kernel;
 * cta_first, cta_count: the window asked for (cta_count 0 = to the end);
 * ctas_run: the CTAs the model executed, counted by the model (each CTA
 * once: a CTA lost or run twice changes it); cycles: the result;
 * launch_cost: the launch cycles the model included in cycles (0 for a
 * window).  Invariants: cycles > 0 when a CTA ran, cycles >= launch_cost,
 * ctas_run == the CTAs of the header in the window. */
int wc_check_kernel(const char *model, const wc_kernel_info *ki,
                    uint64_t cta_first, uint64_t cta_count, uint64_t ctas_run,
                    uint64_t cycles, double launch_cost, wc_diag *d);

/* A hybrid (sampled) estimate: cycles its rounding, estimate > 0 and
 * finite, inside its own 95% interval [lo, hi] when has_ci; warp
 * instructions run in detail at most those of the kernel (all of them
 * when full, the whole kernel ran in detail). */
int wc_check_hybrid(const wc_kernel_info *ki, uint64_t cycles,
                    double estimate, int has_ci, double lo, double hi,
                    uint64_t warp_insts, uint64_t detailed_warp_insts,
                    int full, wc_diag *d);

/* Counts of two model runs over the same CTAs (the sampler's whole-kernel
 * interval pass and a region run in either model): what: the quantity
 * ("warp instructions of region 3"); a by model_a, b by model_b; equal. */
int wc_check_same(const wc_kernel_info *ki, const char *what,
                  const char *model_a, uint64_t a, const char *model_b,
                  uint64_t b, wc_diag *d);

#endif /* WC_CHECK_RESULT_H */
