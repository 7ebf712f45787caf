/*
 * tests/unit/kernel_cycles.h - the cycles one model predicts for kernel 0 of
 * a trace, for tests that compare modes, GPUs or clocks on whole traces.
 *
 *     double c = kernel_cycles(dir, &g, KC_DETAILED);   (-1 on error,
 *                                                        reason on stderr)
 */
#ifndef KERNEL_CYCLES_H
#define KERNEL_CYCLES_H

#include <stdio.h>
#include <string.h>

#include "dm.h"
#include "im.h"
#include "smp.h"
#include "wc.h"

enum { KC_INTERVAL = 0, KC_DETAILED = 1, KC_HYBRID = 2 };

static inline double kernel_cycles(const char *dir, const wc_gpu *g, int mode)
{
    wc_diag d;
    wc_trace *t = NULL;
    if (wc_trace_open(dir, &t, &d) != 0) {
        fprintf(stderr, "open %s: %s\n", dir, d.msg);
        return -1;
    }
    double cyc = -1;
    if (mode == KC_INTERVAL) {
        im_result r;
        memset(&r, 0, sizeof r);
        if (im_run_kernel(t, 0, g, NULL, &r, &d) == 0) {
            cyc = (double)r.cycles;
            im_result_free(&r);
        }
    } else if (mode == KC_DETAILED) {
        dm_options o;
        dm_options_default(&o);
        dm_result r;
        memset(&r, 0, sizeof r);
        if (dm_run_kernel(t, 0, g, &o, &r, &d) == 0) {
            cyc = (double)r.cycles;
            dm_result_free(&r);
        }
    } else {
        smp_options o;
        smp_options_default(&o);
        smp_kernel_result r;
        memset(&r, 0, sizeof r);
        if (smp_run_kernel(t, 0, g, &o, &r, &d) == 0)
            cyc = (double)r.cycles;
    }
    if (cyc < 0)
        fprintf(stderr, "%s mode %d: %s\n", dir, mode, d.msg);
    wc_trace_close(t);
    return cyc;
}

#endif
