/*
 * tests/unit/test_calib_data.c - measurement readers, matching, the overlay,
 * and the H100 PCIe calibration example end to end (../shared/data/traces:
 * 175 Nsight Compute empty-kernel runs and the two simtune FFMA traces; the
 * fitted config must predict the 10- and 20-iteration kernels within 5%).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cal.h"
#include "check.h"

static int parse(const char *text, cal_mset *s, wc_diag *d)
{
    cal_mset_init(s);
    memset(d, 0, sizeof *d);
    cal_read_opts o;
    memset(&o, 0, sizeof o);
    return cal_mset_parse(s, "t.csv", "dir", text, strlen(text), &o, d);
}

static void test_readers(void)
{
    cal_mset s;
    wc_diag d;
    CHECK_EQ_INT(parse("trace,cycles,kernel,id\n"
                       "a/b,\"9,576\",_Z3fooi,3\n"
                       "# comment\n"
                       "/abs,14781,,\n", &s, &d), 0);
    CHECK_EQ_INT(s.n, 2);
    CHECK_NEAR(s.m[0].measured, 9576, 0);
    CHECK_STR(s.m[0].path, "dir/a/b");
    CHECK_STR(s.m[1].path, "/abs");
    CHECK_EQ_INT(s.m[0].kernel_id, 3);
    CHECK_STR(s.m[0].src, "t.csv:2");
    cal_mset_free(&s);

    /* ncu raw page with units row; empty kernels go to the launch model */
    CHECK_EQ_INT(parse("\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
                       "\"gpc__cycles_elapsed.max\"\n"
                       "\"\",\"\",\"\",\"\",\"cycle\"\n"
                       "\"0\",\"emptyKernel()\",\"(256, 1, 1)\","
                       "\"(1024, 2, 1)\",\"5,055\"\n"
                       "\"1\",\"ffmaKernel(int)\",\"(32, 1, 1)\","
                       "\"(1, 1, 1)\",\"9,576\"\n", &s, &d), 0);
    CHECK_EQ_INT(s.n, 2);
    CHECK_EQ_INT(s.m[0].kind, CAL_MK_EMPTY);
    CHECK_EQ_INT(s.m[0].ctas, 2048);
    CHECK_EQ_INT(s.m[0].threads, 256);
    CHECK_NEAR(s.m[0].measured, 5055, 0);
    CHECK_EQ_INT(s.m[1].kind, CAL_MK_TRACE);
    CHECK_STR(s.m[1].kernel, "ffmaKernel(int)");
    CHECK_NEAR(s.m[1].measured, 9576, 0);
    cal_mset_free(&s);

    /* ncu details page: Elapsed Cycles per launch, other metrics ignored */
    CHECK_EQ_INT(parse("==PROF== x\n\"ID\",\"Kernel Name\",\"Metric Name\","
                       "\"Metric Unit\",\"Metric Value\"\n"
                       "\"0\",\"k\",\"Duration\",\"usecond\",\"8.8\"\n"
                       "\"0\",\"k\",\"Elapsed Cycles\",\"cycle\",\"9,576\"\n"
                       "\"1\",\"k\",\"Elapsed Cycles\",\"cycle\",\"100\"\n",
                       &s, &d), 0);
    CHECK_EQ_INT(s.n, 2);
    CHECK_NEAR(s.m[0].measured, 9576, 0);
    CHECK_EQ_INT(s.m[1].kernel_id, 1);
    cal_mset_free(&s);

    /* key=value: ncu lines selected by default */
    CHECK_EQ_INT(parse("a=1, profile_type=ncu, thread=256, block=1024, "
                       "cycles=5055.00\n"
                       "a=1, profile_type=nsys, thread=256, block=1024, "
                       "cycles=3088.80\n", &s, &d), 0);
    CHECK_EQ_INT(s.n, 1);
    CHECK_EQ_INT(s.m[0].ctas, 1024);
    cal_mset_free(&s);

    /* errors carry file:line:col */
    CHECK_EQ_INT(parse("trace,cycles\na,12x\n", &s, &d), WC_EINPUT);
    CHECK_EQ_INT(d.line, 2);
    CHECK_EQ_INT(d.col, 3);
    cal_mset_free(&s);
    CHECK_EQ_INT(parse("thread=32, block=x, cycles=5\n", &s, &d), WC_EINPUT);
    CHECK_EQ_INT(d.line, 1);
    CHECK_EQ_INT(d.col, 18);
    cal_mset_free(&s);
    CHECK_EQ_INT(parse("\"ID\",\"Kernel Name\",\"x\"\n\"0\",\"k\n", &s, &d),
                 WC_EINPUT);
    cal_mset_free(&s);
    CHECK_EQ_INT(parse("ubench,metric,value\nx,bogus,1\n", &s, &d),
                 WC_EINPUT);
    CHECK_EQ_INT(d.col, 3);
    cal_mset_free(&s);
    CHECK_EQ_INT(parse("foo,bar\n1,2\n", &s, &d), WC_EINPUT);
    cal_mset_free(&s);
    CHECK_EQ_INT(parse("trace,cycles\na,-5\n", &s, &d), WC_EINPUT);
    cal_mset_free(&s);

    /* launch IDs: whole numbers 0..INT32_MAX in every reader (a huge one
     * was converted to long unchecked; -1 would mean "not given") */
    static const char *const bad_ids[] = {"1e300", "-1", "2.5", "2147483648"};
    for (int i = 0; i < 4; i++) {
        char t[256];
        snprintf(t, sizeof t, "trace,cycles,id\na,5,%s\n", bad_ids[i]);
        CHECK_EQ_INT(parse(t, &s, &d), WC_EINPUT);
        CHECK_EQ_INT(d.line, 2);
        CHECK_EQ_INT(d.col, 5);
        cal_mset_free(&s);
        snprintf(t, sizeof t, "\"ID\",\"Kernel Name\",\"sm__cycles_elapsed.avg\"\n"
                 "\"%s\",\"k\",\"100\"\n", bad_ids[i]);
        CHECK_EQ_INT(parse(t, &s, &d), WC_EINPUT);
        CHECK_EQ_INT(d.line, 2);
        cal_mset_free(&s);
        snprintf(t, sizeof t, "\"ID\",\"Kernel Name\",\"Metric Name\","
                 "\"Metric Value\"\n\"%s\",\"k\",\"Elapsed Cycles\",\"9\"\n",
                 bad_ids[i]);
        CHECK_EQ_INT(parse(t, &s, &d), WC_EINPUT);
        CHECK_EQ_INT(d.line, 2);
        cal_mset_free(&s);
    }
    CHECK_EQ_INT(parse("trace,cycles,id\na,5,2147483647\n", &s, &d), 0);
    CHECK_EQ_INT(s.m[0].kernel_id, 2147483647);
    cal_mset_free(&s);
}

static void test_h100(void)
{
    if (!cal_model_available(CAL_MODEL_INTERVAL)) {
        fprintf(stderr, "notice: interval model not built, H100 fit skipped\n");
        return;
    }
    /* The measurements are third-party data: read them from ../shared,
     * never from a copy in the project. */
    char e[1024], f[1024], out[1024], buf[1024];
    if (!shared_path("data/traces/h100-pcie-emptykernel-cycles.txt", buf,
                     sizeof buf))
        return;
    if (!realpath(buf, e))
        return;
    snprintf(f, sizeof f, "/tmp/warpcast-test-ffma-%d.csv", (int)getpid());
    FILE *csv = fopen(f, "w");
    CHECK(csv != NULL);
    if (!csv)
        return;
    fprintf(csv, "trace,cycles,label\n");
    static const char *const ffma[] = {"simtune-ffmakernel-1-32-10",
                                       "simtune-ffmakernel-1-32-20"};
    for (int i = 0; i < 2; i++) {
        char rel[256], dir[1024], gt[1100];
        snprintf(rel, sizeof rel, "data/traces/%s", ffma[i]);
        if (!shared_path(rel, buf, sizeof buf) || !realpath(buf, dir)) {
            fclose(csv);
            return;
        }
        snprintf(gt, sizeof gt, "%s/gt", dir);
        FILE *g = fopen(gt, "r");
        long cyc = 0;
        CHECK(g && fscanf(g, "%ld", &cyc) == 1);
        if (g)
            fclose(g);
        fprintf(csv, "%s,%ld,%s\n", dir, cyc, ffma[i]);
    }
    fclose(csv);
    snprintf(out, sizeof out, "/tmp/warpcast-test-h100-%d.cfg", (int)getpid());
    const char *meas[] = {e, f};
    const char *keys[] = {"launch_overhead", "cta_dispatch", "cta_overhead",
                          "cta_warp_overhead", "icache_l1_miss_latency"};
    cal_options o;
    cal_options_init(&o);
    o.gpu = "h100-pcie";
    o.measured = meas;
    o.nmeasured = 2;
    o.fit = keys;
    o.nfit = 5;
    o.model = CAL_MODEL_INTERVAL;
    o.out_cfg = out;
    cal_report r;
    wc_diag d;
    memset(&d, 0, sizeof d);
    int rc = cal_run(&o, &r, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc) {
        fprintf(stderr, "%s\n", d.msg);
        return;
    }
    CHECK_EQ_INT(r.meas.n, 177);
    CHECK(r.mape_after < 2.0);
    for (size_t i = 0; i < r.meas.n; i++)
        if (r.meas.m[i].kind == CAL_MK_TRACE) {
            double err = (r.mres[i].after - r.meas.m[i].measured) /
                         r.meas.m[i].measured;
            fprintf(stderr, "h100 %s: measured %.0f, fitted %.0f (%+.2f%%)\n",
                    r.meas.m[i].label, r.meas.m[i].measured, r.mres[i].after,
                    100 * err);
            CHECK(fabs(err) < 0.05);
        }
    CHECK(r.p[1].value > 0.9 && r.p[1].value < 1.2); /* cta_dispatch */
    CHECK(r.p[2].correlated_with == 3);
    /* the overlay loads and gives the fitted values */
    wc_gpu g;
    CHECK_EQ_INT(wc_gpu_load(out, &g, &d), 0);
    CHECK_NEAR(g.cta_dispatch, r.p[1].value, 1e-5 * r.p[1].value);
    FILE *js = tmpfile();
    CHECK_EQ_INT(cal_report_json(&r, js), 0);
    CHECK_EQ_INT(cal_report_text(&r, js), 0);
    fclose(js);
    remove(out);
    remove(f);
    cal_report_free(&r);
}

int main(void)
{
    test_readers();
    test_h100();
    CHECK_DONE();
}
