/*
 * tests/unit/test_calib_hybrid.c - `calibrate --model hybrid` evaluates the
 * hybrid sampler (it used to evaluate the interval model silently): the
 * builtin evaluator's prediction is smp_run_kernel's estimate and not the
 * interval model's, and a fit of lat_fp32 against hybrid "measurements"
 * made at a known value recovers it.
 */
#include <stdlib.h>
#include <string.h>

#include "cal.h"
#include "check.h"
#include "im.h"
#include "smp.h"
#include "synth_fixture.h"

/* Cycles of kernel 0 of DIR on G by the hybrid sampler (seed 7) or the
 * interval model; -1 on error. */
static double model_cycles(const char *dir, const wc_gpu *g, int hybrid)
{
    wc_diag d;
    wc_trace *t = NULL;
    memset(&d, 0, sizeof d);
    if (wc_trace_open(dir, &t, &d) != 0)
        return -1;
    double c;
    if (hybrid) {
        smp_options o;
        smp_kernel_result r;
        smp_options_default(&o);
        o.seed = 7;
        int rc = smp_run_kernel(t, 0, g, &o, &r, &d);
        c = rc ? -1 : (double)r.cycles;
    } else {
        im_options o;
        im_result r;
        memset(&r, 0, sizeof r);
        im_options_default(&o);
        int rc = im_run_kernel(t, 0, g, &o, &r, &d);
        c = rc ? -1 : (double)r.cycles;
        im_result_free(&r);
    }
    wc_trace_close(t);
    return c;
}

static double hybrid_cycles(const char *dir, const wc_gpu *g)
{
    return model_cycles(dir, g, 1);
}

static double interval_cycles(const char *dir, const wc_gpu *g)
{
    return model_cycles(dir, g, 0);
}

int main(void)
{
    wc_synth_params sp;
    wc_synth_defaults(&sp, "latency");
    sp.ctas = 8;
    sp.iters = 4;
    sp.with_sass = 0;
    synth_fixture fx;
    if (synth_fixture_open(&fx, "calhy", &sp, "rtx-2070s", 0) != 0) {
        CHECK(0);
        CHECK_DONE();
    }
    const char *dir = fx.dir;
    wc_gpu g = fx.g, g2;
    wc_diag d;
    memset(&d, 0, sizeof d);

    /* the builtin evaluator for --model hybrid runs the sampler */
    cal_meas m;
    cal_meas_init(&m);
    m.kind = CAL_MK_TRACE;
    m.metric = CAL_METRIC_CYCLES;
    snprintf(m.label, sizeof m.label, "synth latency");
    snprintf(m.path, sizeof m.path, "%s", dir);
    m.kidx = 0;
    cal_builtin_ctx bh = {.model = CAL_MODEL_HYBRID, .seed = 7},
                    bi = {.model = CAL_MODEL_INTERVAL, .seed = 7};
    double ph = -1, pi = -1;
    CHECK_EQ_INT(cal_eval_builtin(&bh, &g, &m, &ph, &d), 0);
    CHECK_EQ_INT(cal_eval_builtin(&bi, &g, &m, &pi, &d), 0);
    double sh = hybrid_cycles(dir, &g), si = interval_cycles(dir, &g);
    fprintf(stderr, "hybrid %.0f (sampler %.0f), interval %.0f (model %.0f)\n",
            ph, sh, pi, si);
    CHECK(ph > 0 && ph == sh);
    CHECK(pi == si);
    CHECK(ph != pi); /* the two models differ on this trace */
    CHECK(cal_model_available(CAL_MODEL_HYBRID));

    /* measurements: the hybrid model at lat_fp32 = 6; fit from 9 */
    g2 = g;
    CHECK_EQ_INT(wc_gpu_set(&g2, "lat_fp32=6", &d), 0);
    m.measured = hybrid_cycles(dir, &g2);
    CHECK(m.measured > 0);
    cal_mset s;
    cal_mset_init(&s);
    CHECK_EQ_INT(cal_mset_add(&s, &m, &d), 0);
    const char *fit[] = {"lat_fp32"};
    cal_options o;
    cal_options_init(&o);
    o.gpu = "rtx-2070s";
    o.model = CAL_MODEL_HYBRID;
    o.fit = fit;
    o.nfit = 1;
    o.seed = 7;
    o.threads = 1;
    o.max_iter = 30;
    wc_gpu base = g;
    CHECK_EQ_INT(wc_gpu_set(&base, "lat_fp32=9", &d), 0);
    cal_report *rep = calloc(1, sizeof *rep);
    if (!rep) {
        CHECK(0);
        CHECK_DONE();
    }
    int rc = cal_fit(&o, &base, &s, rep, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "cal_fit: %s\n", d.msg);
    if (rc == 0) {
        fprintf(stderr, "hybrid fit: lat_fp32 %g -> %g, %.0f -> %.0f cycles "
                        "(measured %.0f)\n",
                rep->p[0].start, rep->p[0].value, rep->mres[0].before,
                rep->mres[0].after, m.measured);
        CHECK_EQ_INT(rep->model, CAL_MODEL_HYBRID);
        CHECK_NEAR(rep->p[0].value, 6, 0.5);
        CHECK_NEAR(rep->mres[0].after, m.measured, 0.5);
        CHECK(rep->mres[0].before != rep->mres[0].after);
    }
    cal_report_free(rep);
    free(rep);
    synth_fixture_close(&fx);
    CHECK_DONE();
}
