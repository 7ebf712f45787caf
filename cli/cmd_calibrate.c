/*
 * cli/cmd_calibrate.c - `warpcast calibrate`: fit config parameters to
 * measured cycles (calib/, GSL trust-region least squares) and write the
 * result as an overlay config.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cal.h"
#include "cli.h"
#include "study.h"

static const char calibrate_help[] =
    "usage: warpcast calibrate --measured FILE --fit KEY[,KEY...] [OPTIONS]\n"
    "       warpcast calibrate --kit DIR --gpu BASE [--out NEW.cfg] [OPTIONS]\n"
    "\n"
    "Fits the chosen config keys so the model reproduces measured cycles\n"
    "(trust-region Levenberg-Marquardt on relative residuals) and reports\n"
    "fitted values with standard errors, correlations, residuals, MAPE before\n"
    "and after, and held-out error.\n"
    "\n"
    "--kit DIR reads a results folder of the hardware kit (calib/hw/run.sh,\n"
    "either format) and fits everything it identifies: unit latencies and\n"
    "throughputs (detailed model on the kit's listings), launch and CTA\n"
    "overheads (launch model), cache/DRAM/shared latencies and bandwidths;\n"
    "it lists the rows it cannot use and the keys left at BASE.\n"
    "\n"
    "options:\n"
    "  --kit DIR         kit results folder (instead of --measured/--fit)\n"
    "  --measured FILE   measurements (repeatable): a CSV `trace,cycles` or\n"
    "                    `ubench,cycles` (paths relative to the CSV), an Nsight\n"
    "                    Compute CSV export, or key=value lines (empty kernels)\n"
    "  --fit K1,K2,...   config keys to fit (repeatable)\n"
    "  --model interval|detailed|hybrid|launch   model evaluated (default interval)\n"
    "  --loss linear|huber|cauchy   robust loss (default linear)\n"
    "  --loss-scale X    relative residual where a robust loss bends (0.05)\n"
    "  --loo             leave-one-out refits (over-fitting check)\n"
    "  --holdout F       hold out a fraction F of the rows (chosen by --seed)\n"
    "  --select KEY=VAL  key=value files: keep lines with KEY=VAL\n"
    "  --ncu-metric NAME Nsight Compute column to use\n"
    "  --ncu-trace PATH  trace whose kernels the Nsight Compute rows describe\n"
    "  --threads N       threads for the finite-difference Jacobian\n"
    "  --max-iter N      iteration limit (100)\n"
    "  --out FILE.cfg    write the fitted overlay config (includes the base)\n"
    "  --report FILE     write the report there instead of stdout\n"
    "  --no-trace-cache  read text traces as text at every evaluation (default:\n"
    "                    converted once to the binary form, see predict)\n"
    "  --gpu NAME|FILE   base config (required)\n"
    "  --set KEY=VALUE   override a base key (repeatable)\n"
    "  --format text|json|csv (csv: the measurement table)   --seed N   --quiet\n";

#define MAX_LIST 256

static int split_fit(const char *v, const char **fit, size_t *n)
{
    char *dup = strdup(v);
    if (!dup)
        return -1;
    for (char *tok = strtok(dup, ","); tok; tok = strtok(NULL, ",")) {
        if (*n >= MAX_LIST)
            return -1;
        fit[(*n)++] = tok;
    }
    return 0; /* dup stays alive: fit[] points into it until exit */
}

typedef struct progress_eval {
    cal_builtin_ctx b;
    atomic_ulong n;
} progress_eval;

static int count_eval(void *ctx, const wc_gpu *g, const cal_meas *m, double *pred,
                      wc_diag *d)
{
    progress_eval *pe = ctx;
    atomic_fetch_add(&pe->n, 1);
    return cal_eval_builtin(&pe->b, g, m, pred, d);
}

/* --kit DIR: cal_kit_run, then the report (text) and the overlay. */
static int run_kit(const cli_common *c, cal_options *o, const char *dir,
                   const char *report, size_t nmeasured, size_t nfit)
{
    if (nmeasured || nfit)
        cli_usage_error("calibrate", "--kit chooses its rows and keys itself: "
                                     "no --measured or --fit with it");
    if (!c->gpu)
        cli_usage_error("calibrate", "missing --gpu NAME|FILE (the base config)");
    if (c->format == CLI_FMT_JSON)
        cli_usage_error("calibrate", "--kit writes a text report only");
    o->gpu = c->gpu;
    o->sets = c->sets;
    o->nsets = (size_t)c->nsets;
    o->seed = c->seed;
    wc_diag d;
    memset(&d, 0, sizeof d);
    cal_kit_result *res = calloc(1, sizeof *res);
    if (!res) {
        wc_diag_set(&d, WC_EINTERNAL, "", 0, 0, "out of memory");
        cli_fail(&d);
    }
    char label[300];
    snprintf(label, sizeof label, "calibrate --kit %.200s", dir);
    cli_ticker_start(c, label, NULL, NULL);
    int rc = cal_kit_run(o, dir, res, &d);
    cli_ticker_stop();
    if (rc != 0)
        cli_fail(&d);
    if (c->out && cal_kit_write_cfg(res, c->out, NULL, &d) != 0)
        cli_fail(&d);
    FILE *f = st_open_out("calibrate", report);
    if (!f)
        return WC_EUSAGE;
    cal_kit_report_text(res, f);
    st_close_out(f);
    cal_kit_result_free(res);
    free(res);
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *measured[MAX_LIST], *fit[MAX_LIST];
    size_t nmeasured = 0, nfit = 0;
    cal_options o;
    cal_options_init(&o);
    const char *report = NULL, *kit = NULL;
    int tcache = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(calibrate_help, stdout);
            return 0;
        }
        if (cli_common_opt(&c, argc, argv, &i, "calibrate"))
            continue;
        static const char *const vopts[] = {
            "--measured", "--fit", "--model", "--loss", "--loss-scale",
            "--holdout", "--select", "--ncu-metric", "--ncu-trace",
            "--threads", "--max-iter", "--report", "--kit", NULL};
        int isv = 0;
        for (int k = 0; vopts[k]; k++)
            isv |= !strcmp(a, vopts[k]);
        if (isv && i + 1 >= argc)
            cli_usage_error("calibrate", "option '%s' needs a value", a);
        const char *v = isv ? argv[++i] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--measured")) {
            if (nmeasured >= MAX_LIST)
                cli_usage_error("calibrate", "too many --measured files");
            measured[nmeasured++] = v;
        } else if (!strcmp(a, "--fit")) {
            if (split_fit(v, fit, &nfit) != 0)
                cli_usage_error("calibrate", "too many --fit keys");
        } else if (!strcmp(a, "--model")) {
            if (cal_model_parse(v, &o.model) != 0)
                cli_usage_error("calibrate", "unknown model '%s'", v);
        } else if (!strcmp(a, "--loss")) {
            if (cal_loss_parse(v, &o.loss) != 0)
                cli_usage_error("calibrate", "unknown loss '%s' (linear, huber or cauchy)", v);
        } else if (!strcmp(a, "--loss-scale")) {
            o.loss_scale = strtod(v, &end);
            if (!*v || *end || !(o.loss_scale > 0))
                cli_usage_error("calibrate", "--loss-scale needs a positive number");
        } else if (!strcmp(a, "--holdout")) {
            o.holdout = strtod(v, &end);
            if (!*v || *end || !(o.holdout >= 0 && o.holdout < 1))
                cli_usage_error("calibrate", "--holdout needs a fraction in [0, 1)");
        } else if (!strcmp(a, "--select")) {
            o.read.select = v;
        } else if (!strcmp(a, "--ncu-metric")) {
            o.read.ncu_metric = v;
        } else if (!strcmp(a, "--ncu-trace")) {
            o.read.ncu_trace = v;
        } else if (!strcmp(a, "--threads")) {
            long x = strtol(v, &end, 10);
            if (!*v || *end || x < 0 || x > 1024)
                cli_usage_error("calibrate", "--threads needs 0..1024");
            o.threads = (int)x;
        } else if (!strcmp(a, "--max-iter")) {
            long x = strtol(v, &end, 10);
            if (!*v || *end || x < 1 || x > 100000)
                cli_usage_error("calibrate", "--max-iter needs 1..100000");
            o.max_iter = (int)x;
        } else if (!strcmp(a, "--kit")) {
            kit = v;
        } else if (!strcmp(a, "--report")) {
            report = v;
        } else if (!strcmp(a, "--loo")) {
            o.loo = 1;
        } else if (!strcmp(a, "--no-trace-cache")) {
            tcache = 0;
        } else {
            cli_unknown_option("calibrate", calibrate_help, a);
        }
    }
    if (kit)
        return run_kit(&c, &o, kit, report, nmeasured, nfit);
    if (!nmeasured)
        cli_usage_error("calibrate", "missing --measured FILE");
    if (!nfit)
        cli_usage_error("calibrate", "missing --fit KEY[,KEY...]");
    if (!c.gpu)
        cli_usage_error("calibrate", "missing --gpu NAME|FILE (the base config)");
    if (nfit > CAL_MAX_PARAMS)
        cli_usage_error("calibrate", "at most %d keys can be fitted at once",
                        CAL_MAX_PARAMS);
    o.gpu = c.gpu;
    o.sets = c.sets;
    o.nsets = (size_t)c.nsets;
    o.measured = measured;
    o.nmeasured = nmeasured;
    o.fit = fit;
    o.nfit = nfit;
    o.seed = c.seed;
    o.out_cfg = c.out;

    wc_diag d;
    memset(&d, 0, sizeof d);
    cal_report *rep = calloc(1, sizeof *rep);
    if (!rep) {
        wc_diag_set(&d, WC_EINTERNAL, "", 0, 0, "out of memory");
        cli_fail(&d);
    }
    /* progress: count the model evaluations through a wrapper of the
     * builtin evaluator (same calls, same results; only on a terminal) */
    if (tcache) { /* text traces read from the trace cache */
        o.open = cli_open_trace_cal;
        o.open_ctx = &c;
    }
    progress_eval pe = {{o.model, o.seed, o.open, o.open_ctx}, 0};
    if (!o.eval && cli_progress_ok(&c) && cal_model_available(o.model)) {
        o.eval = count_eval;
        o.eval_ctx = &pe;
    }
    char label[64];
    snprintf(label, sizeof label, "calibrate: %s model, %zu key%s", cal_model_name(o.model),
             nfit, nfit == 1 ? "" : "s");
    cli_ticker_start(&c, label, o.eval == count_eval ? &pe.n : NULL, "row predictions");
    int rc = cal_run(&o, rep, &d);
    cli_ticker_stop();
    if (rc != 0)
        cli_fail(&d);
    FILE *f = st_open_out("calibrate", report);
    if (!f)
        return WC_EUSAGE;
    if (c.format == CLI_FMT_JSON)
        cal_report_json(rep, f);
    else if (c.format == CLI_FMT_CSV)
        cli_calibrate_csv(rep, f); /* the measurement table */
    else
        cal_report_text(rep, f);
    st_close_out(f);
    cal_report_free(rep);
    free(rep);
    return 0;
}
