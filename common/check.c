/*
 * common/check.c - invariants of a model result (see wc_check.h).  Called from
 * one hook per model result in debug builds; a violation is WC_EINTERNAL:
 * a bug of warpcast, never of the input (the input was checked before the
 * model ran).
 */
#include <math.h>
#include <stdio.h>

#include "wc_check.h"

static const char *kname(const wc_kernel_info *ki)
{
    return ki && ki->name ? ki->name : "?";
}

static int fail(wc_diag *d, const char *model, const wc_kernel_info *ki,
                const char *what)
{
    return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                       "invariant violated (%s model, kernel %s): %s", model,
                       kname(ki), what);
}

int wc_check_kernel(const char *model, const wc_kernel_info *ki,
                    uint64_t cta_first, uint64_t cta_count, uint64_t ctas_run,
                    uint64_t cycles, double launch_cost, wc_diag *d)
{
    char m[200];
    uint64_t grid = ki ? ki->ctas : 0;
    uint64_t want = grid > cta_first ? grid - cta_first : 0;
    if (cta_count && cta_count < want)
        want = cta_count;
    if (ctas_run != want) {
        snprintf(m, sizeof m,
                 "%llu CTAs executed, the header asks for %llu (grid %llu, "
                 "window from CTA %llu)",
                 (unsigned long long)ctas_run, (unsigned long long)want,
                 (unsigned long long)grid, (unsigned long long)cta_first);
        return fail(d, model, ki, m);
    }
    if (want > 0 && cycles == 0)
        return fail(d, model, ki, "0 cycles for a kernel that ran CTAs");
    if (!(launch_cost >= 0) || (double)cycles < floor(launch_cost)) {
        snprintf(m, sizeof m, "%llu cycles, less than the launch cost %.17g",
                 (unsigned long long)cycles, launch_cost);
        return fail(d, model, ki, m);
    }
    return 0;
}

int wc_check_hybrid(const wc_kernel_info *ki, uint64_t cycles,
                    double estimate, int has_ci, double lo, double hi,
                    uint64_t warp_insts, uint64_t detailed_warp_insts,
                    int full, wc_diag *d)
{
    char m[200];
    if (!isfinite(estimate) || !(estimate > 0) || cycles == 0) {
        snprintf(m, sizeof m, "estimate %.17g (%llu cycles) is not positive",
                 estimate, (unsigned long long)cycles);
        return fail(d, "hybrid", ki, m);
    }
    if (fabs((double)cycles - estimate) > 0.5 + 1e-9 * estimate) {
        snprintf(m, sizeof m, "%llu cycles do not round the estimate %.17g",
                 (unsigned long long)cycles, estimate);
        return fail(d, "hybrid", ki, m);
    }
    double tol = 1e-9 * estimate;
    if (has_ci && !(lo - tol <= estimate && estimate <= hi + tol)) {
        snprintf(m, sizeof m,
                 "estimate %.17g outside its own 95%% interval [%.17g, %.17g]",
                 estimate, lo, hi);
        return fail(d, "hybrid", ki, m);
    }
    if (detailed_warp_insts > warp_insts ||
        (full && detailed_warp_insts != warp_insts)) {
        snprintf(m, sizeof m,
                 "%llu warp instructions run in detail, %llu in the kernel%s",
                 (unsigned long long)detailed_warp_insts,
                 (unsigned long long)warp_insts,
                 full ? " (the whole kernel ran in detail)" : "");
        return fail(d, "hybrid", ki, m);
    }
    return 0;
}

int wc_check_same(const wc_kernel_info *ki, const char *what,
                  const char *model_a, uint64_t a, const char *model_b,
                  uint64_t b, wc_diag *d)
{
    if (a == b)
        return 0;
    char m[200];
    snprintf(m, sizeof m, "%s: %s %llu, %s %llu", what, model_a,
             (unsigned long long)a, model_b, (unsigned long long)b);
    return fail(d, "hybrid", ki, m);
}
