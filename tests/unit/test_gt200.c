/*
 * tests/unit/test_gt200.c - the detailed model on the GT200 of seed 004
 * (Wong et al., ISPASS 2010): with the shipped gt200 config (one issue unit,
 * 8 SPs, 2 SFUs, 1 DPU, scoreboards, fair round-robin scheduler, the seed's
 * instruction caches) every row of data/calib/gt200/tables.csv (Tables II-IV
 * and Fig. 6, run as data/ubench/gt200-*.sass) is reproduced: latencies
 * within one cycle, throughputs within 5 %.  Then a reduced calibration from
 * a perturbed start recovers the SP, SFU and DPU latencies and issue rates
 * exactly (the full 10-key fit of docs/calibration.md takes ~25 s).
 */
#include <stdlib.h>
#include <string.h>

#include "cal.h"
#include "check.h"
#include "dm.h"

/* The metrics of docs/calibration.md for one ubench run. */
static int metrics(const char *path, const wc_gpu *g, double *lat,
                   double *tput)
{
    char *buf = NULL;
    size_t len;
    wc_diag d;
    wc_ubench *u = NULL;
    dm_ubench_result r;
    memset(&d, 0, sizeof d);
    if (wc_read_file(path, &buf, &len, &d) != 0 ||
        wc_ubench_parse(path, buf, len, &u, &d) != 0) {
        fprintf(stderr, "%s: %s\n", path, d.msg);
        free(buf);
        return -1;
    }
    free(buf);
    int rc = dm_run_ubench(u, g, NULL, &r, &d);
    wc_ubench_free(u);
    if (rc) {
        fprintf(stderr, "%s: %s\n", path, d.msg);
        return -1;
    }
    uint64_t first = UINT64_MAX, last = 0, timed = 0;
    rc = -1;
    if (r.nwarps > 0 && r.nclocks[0] >= 2) {
        for (unsigned w = 0; w < r.nwarps; w++) {
            if (r.nclocks[w] < 2)
                goto out;
            if (r.clocks[w][0] < first)
                first = r.clocks[w][0];
            if (r.clocks[w][1] > last)
                last = r.clocks[w][1];
        }
        timed = 256; /* dependent operations between the clocks (gen-ubench.py) */
        *lat = (double)(r.clocks[0][1] - r.clocks[0][0]) / (double)timed;
        *tput = 32.0 * (double)timed * r.nwarps / (double)(last - first);
        rc = 0;
    }
out:
    dm_ubench_result_free(&r);
    return rc;
}

static void test_tables(const wc_gpu *g)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/calib/gt200/tables.csv", wc_data_dir());
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    unsigned rows = 0;
    double worst_lat = 0, worst_tput = 0;
    while (fgets(line, sizeof line, f)) {
        char ub[512], metric[32];
        double want;
        if (line[0] == '#' || strncmp(line, "ubench,", 7) == 0)
            continue;
        if (sscanf(line, "%511[^,],%31[^,],%lf", ub, metric, &want) != 3)
            continue;
        char sass[1024];
        snprintf(sass, sizeof sass, "%s/calib/gt200/%s", wc_data_dir(), ub);
        double lat = 0, tput = 0;
        CHECK_EQ_INT(metrics(sass, g, &lat, &tput), 0);
        rows++;
        if (strcmp(metric, "latency") == 0) {
            CHECK_NEAR(lat, want, 1.0);
            if (fabs(lat - want) > worst_lat)
                worst_lat = fabs(lat - want);
        } else {
            CHECK_NEAR(tput / want, 1.0, 0.05);
            if (fabs(tput / want - 1) > worst_tput)
                worst_tput = fabs(tput / want - 1);
        }
    }
    fclose(f);
    CHECK(rows >= 35);
    fprintf(stderr, "gt200: %u rows, worst latency %.2f cycles, worst "
                    "throughput %.1f %%\n",
            rows, worst_lat, 100 * worst_tput);
}

/* SP, SFU and DPU latency / issue rate from a perturbed start. */
static void test_recovery(void)
{
    char csv[] = "/tmp/wc-gt200-XXXXXX";
    int fd = mkstemp(csv);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        CHECK(0);
        return;
    }
    static const struct {
        const char *ub;
        const char *metric;
        double v;
    } rows[] = {
        {"gt200-iadd-lat", "latency", 24},   {"gt200-iadd-tput", "throughput", 7.9},
        {"gt200-rsq-lat", "latency", 28},    {"gt200-rsq-tput", "throughput", 2},
        {"gt200-dadd-lat", "latency", 48},   {"gt200-dadd-tput", "throughput", 1},
    };
    fprintf(f, "ubench,metric,value\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        fprintf(f, "%s/ubench/%s.sass,%s,%g\n", wc_data_dir(), rows[i].ub,
                rows[i].metric, rows[i].v);
    fclose(f);
    static const char *const sets[] = {"lat_int=20", "ii_int=2",
                                       "lat_sfu=20", "ii_sfu=8",
                                       "lat_fp64=40", "ii_fp64=16"};
    static const char *const fit[] = {"lat_int", "ii_int", "lat_sfu",
                                      "ii_sfu", "lat_fp64", "ii_fp64"};
    static const double want[] = {24, 4, 28, 16, 48, 32};
    const char *meas[] = {csv};
    cal_options o;
    cal_report rep;
    wc_diag d;
    memset(&d, 0, sizeof d);
    cal_options_init(&o);
    o.gpu = "gt200";
    o.sets = sets;
    o.nsets = 6;
    o.measured = meas;
    o.nmeasured = 1;
    o.fit = fit;
    o.nfit = 6;
    o.model = CAL_MODEL_DETAILED;
    int rc = cal_run(&o, &rep, &d);
    remove(csv);
    if (rc) {
        fprintf(stderr, "calibration: %s\n", d.msg);
        CHECK(0);
        return;
    }
    for (size_t i = 0; i < 6; i++)
        CHECK_NEAR(rep.p[i].value, want[i], 0.5);
    fprintf(stderr, "gt200 recovery: %.1f s, MAPE %.1f%% -> %.2f%%\n",
            rep.seconds, rep.mape_before, rep.mape_after);
    cal_report_free(&rep);
}

int main(void)
{
    wc_gpu g;
    wc_diag d;
    if (wc_gpu_load("gt200", &g, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    test_tables(&g);
    test_recovery();
    CHECK_DONE();
}
