/*
 * tests/unit/test_h100sxm_fidelity.c - the 15 kernels measured on an H100
 * SXM (../shared/data/hw/h100-sxm/traces, measured.csv: gpc__cycles_elapsed
 * .max at the clock Nsight Compute locks, mhz_base, and unlocked,
 * mhz_boost) predicted with --gpu h100-sxm at each kernel's own measured
 * clock, in the interval, detailed and hybrid modes.  Asserts the MAPE and
 * the largest error per mode and clock reached by the clock-domain keys
 * (launch, CTA dispatch, L2/DRAM latency and bandwidth in ns and GB/s) and
 * the mechanisms of issue 11 (docs/validation.md, "H100 SXM"), as a
 * regression bound.  The detailed and hybrid modes skip the two largest
 * kernels (copy2-16384x256, vadd_ffma-8192x256) to keep the test short;
 * docs/validation.md has all of them.  Skipped with a notice without
 * ../shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernel_cycles.h"
#include "wc.h"
#include "im.h"
#include "dm.h"
#include "smp.h"

#define NMAX 32

typedef struct row {
    char name[128];
    double cyc[2], mhz[2];
} row;

static int read_measured(const char *path, row *rows, int *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    *n = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (*n < NMAX && fgets(line, sizeof line, f)) {
        row *r = &rows[*n];
        char *c = strchr(line, ',');
        if (!c || (size_t)(c - line) >= sizeof r->name)
            continue;
        memcpy(r->name, line, (size_t)(c - line));
        r->name[c - line] = '\0';
        if (sscanf(c + 1, "%lf,%lf,%lf,%lf", &r->cyc[0], &r->mhz[0],
                   &r->cyc[1], &r->mhz[1]) == 4)
            (*n)++;
    }
    fclose(f);
    return 0;
}

static int big_kernel(const char *name)
{
    return strncmp(name, "copy2-", 6) == 0 ||
           strncmp(name, "vadd_ffma-", 10) == 0;
}

int main(void)
{
    char buf[512];
    const char *csv = shared_path("data/hw/h100-sxm/traces/measured.csv", buf,
                                  sizeof buf);
    if (!csv) {
        CHECK_DONE();
    }
    row rows[NMAX];
    int n = 0;
    CHECK(read_measured(csv, rows, &n) == 0);
    CHECK(n == 15);
    wc_diag d;
    wc_gpu g0;
    CHECK(wc_gpu_load("h100-sxm", &g0, &d) == 0);

    /* --set clock_mhz converts the physical keys in one place */
    {
        wc_gpu a = g0, b = g0;
        CHECK(wc_gpu_set(&a, "clock_mhz=1000", &d) == 0);
        CHECK(wc_gpu_set_num(&b, "clock_mhz", 2000, &d) == 0);
        CHECK_NEAR(a.cta_dispatch, a.cta_dispatch_ns, 1e-12);
        CHECK_NEAR(b.cta_dispatch, 2 * b.cta_dispatch_ns, 1e-12);
        CHECK_NEAR(a.launch_overhead,
                   a.launch_overhead_ns + a.launch_core_cycles, 1e-9);
        CHECK_EQ_INT(b.dram_latency, (long)(2 * b.dram_latency_ns + 0.5));
        CHECK_NEAR(a.dram_bw, a.dram_bw_gbs, 1e-9);
        CHECK_NEAR(b.dram_bw, a.dram_bw / 2, 1e-9);
        /* an explicit cycle value wins over the time it replaces */
        CHECK(wc_gpu_set(&a, "dram_latency=777", &d) == 0);
        CHECK(wc_gpu_set(&a, "clock_mhz=1500", &d) == 0);
        CHECK_EQ_INT(a.dram_latency, 777);
        CHECK(a.dram_latency_ns == 0);
    }

    /* regression bounds (percent): MAPE and largest |error|, [mode][clock]
     * -- what this branch reaches, docs/validation.md "H100 SXM" */
    static const double mape_max[3][2] = {{2.3, 2.6}, {2.5, 2.6}, {2.5, 2.6}};
    /* largest: vadd-4096x256 in detailed/hybrid (+8.2% / +7.8% locked
     * since the memory queue's entries go to the oldest warp,
     * mem_issue_oldest; +10.1% / +9.7% unlocked, not explained yet),
     * ffma_ilp128 / vadd in interval; the target is 15% */
    static const double err_max[3][2] = {{4.5, 7.6}, {8.5, 10.5}, {8.5, 10.5}};
    static const char *mname[3] = {"interval", "detailed", "hybrid"};
    for (int m = 0; m < 3; m++)
        for (int c = 0; c < 2; c++) {
            double sum = 0, worst = 0;
            int cnt = 0;
            for (int i = 0; i < n; i++) {
                if (m > 0 && big_kernel(rows[i].name))
                    continue;
                wc_gpu g = g0;
                CHECK(wc_gpu_set_num(&g, "clock_mhz", rows[i].mhz[c], &d) ==
                      0);
                char dir[700];
                snprintf(dir, sizeof dir, "../shared/data/hw/h100-sxm/traces/%.200s",
                         rows[i].name);
                double p = kernel_cycles(dir, &g, m);
                CHECK(p > 0);
                if (p <= 0)
                    continue;
                double e = 100 * (p - rows[i].cyc[c]) / rows[i].cyc[c];
                sum += fabs(e);
                if (fabs(e) > worst)
                    worst = fabs(e);
                cnt++;
            }
            double mape = cnt ? sum / cnt : 100;
            fprintf(stderr, "h100-sxm %s %s: %d kernels, MAPE %.2f%%, max "
                    "%.2f%%\n", mname[m], c ? "unlocked" : "locked", cnt, mape,
                    worst);
            CHECK(mape <= mape_max[m][c]);
            CHECK(worst <= err_max[m][c]);
        }
    CHECK_DONE();
}
