/*
 * tests/unit/test_kit.c - the hardware kit's results: Nsight Compute
 * exports with the program's output mixed in (calib/meas.c), a raw page
 * without its header, `calibrate --kit` on a made-up folder of the fixed
 * format (known launch keys recovered, memory keys, notes, the overlay) and
 * on the first real kit run (../shared/data/hw/h100-sxm/kit-run, a subset
 * of its rows so the detailed-model fits stay short; skipped with a notice
 * when ../shared is absent): FFMA latency 4 cycles, DFMA 8, launch, L2 and
 * DRAM latencies, the folded chains and the lost header reported.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cal.h"
#include "check.h"

static int parse(const char *text, const cal_read_opts *o, cal_mset *s,
                 wc_diag *d)
{
    cal_mset_init(s);
    memset(d, 0, sizeof *d);
    return cal_mset_parse(s, "n.csv", "dir", text, strlen(text), o, d);
}

static double fitted(const cal_kit_result *r, const char *key, double *se)
{
    for (size_t g = 0; g < r->ng; g++)
        for (size_t j = 0; j < r->g[g].rep.np; j++)
            if (!strcmp(r->g[g].rep.p[j].key, key)) {
                if (se)
                    *se = r->g[g].rep.p[j].se;
                return r->g[g].rep.p[j].value;
            }
    return NAN;
}

#define HDR "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\"," \
            "\"gpc__cycles_elapsed.max\"\n"
#define UNITS "\"\",\"\",\"\",\"\",\"cycle\"\n"

static void test_mixed_ncu(void)
{
    cal_mset s;
    wc_diag d;
    cal_read_opts o;
    memset(&o, 0, sizeof o);
    /* program lines before, between and after; one header per process */
    CHECK_EQ_INT(parse("empty,grid=1;block=32;iters=0,35961045,event-cycles\n"
                       HDR UNITS
                       "\"0\",\"k_empty()\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"3,541\"\n"
                       "empty,grid=2;block=32;iters=0,123,event-cycles\n"
                       HDR UNITS
                       "\"0\",\"k_empty()\",\"(64, 1, 1)\",\"(2, 1, 1)\",\"3,600\"\n"
                       "done\n", &o, &s, &d), 0);
    CHECK_EQ_INT(s.n, 2);
    if (s.n == 2) {
        CHECK_EQ_INT(s.m[0].kind, CAL_MK_EMPTY);
        CHECK_NEAR(s.m[0].measured, 3541, 0);
        CHECK_EQ_INT(s.m[1].ctas, 2);
        CHECK_EQ_INT(s.m[1].threads, 64);
        CHECK_STR(s.m[1].src, "n.csv:8");
    }
    cal_mset_free(&s);

    /* a raw page that lost its header: an error naming the cause ... */
    const char *headless = "empty,grid=1;block=32;iters=0,1,event-cycles\n" UNITS
                           "\"0\",\"k_empty()\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"3,541\"\n"
                           "empty,grid=1;block=32;iters=0,1,event-cycles\n" UNITS
                           "\"0\",\"k_empty()\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"3,415\"\n";
    CHECK_EQ_INT(parse(headless, &o, &s, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "without a header line") != NULL);
    cal_mset_free(&s);
    /* ... and read with a header borrowed from elsewhere */
    o.ncu_header = "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
                   "\"gpc__cycles_elapsed.max\"";
    CHECK_EQ_INT(parse(headless, &o, &s, &d), 0);
    CHECK_EQ_INT(s.n, 2);
    if (s.n == 2)
        CHECK_NEAR(s.m[1].measured, 3415, 0);
    cal_mset_free(&s);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A folder of the fixed kit's format made from known values. */
static void test_format2(void)
{
    char dir[] = "/tmp/wc-kit-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    wc_gpu g;
    wc_diag d;
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_gpu_load("h100-pcie", &g, &d), 0);
    /* truth for the launch keys: empty kernels from the launch model */
    CHECK_EQ_INT(wc_gpu_set(&g, "launch_overhead=3000", &d), 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "cta_dispatch=1.2", &d), 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "cta_overhead=200", &d), 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "cta_warp_overhead=3", &d), 0);
    char ncu[8192] = "clock,rep,run,launch,kernel,grid,block,gpc_cycles_max,sm_mhz\n";
    static const unsigned grids[] = {1, 132, 1024, 4096, 65536};
    static const unsigned blocks[] = {32, 256, 1024};
    int run = 0;
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 3; j++) {
            double c = cal_launch_cycles(&g, grids[i], blocks[j], 0, 0, 0);
            size_t l = strlen(ncu);
            run++;
            snprintf(ncu + l, sizeof ncu - l,
                     "base,1,%d,0,k_empty,%u,%u,%.0f,1569.0\n"
                     "none,1,%d,0,k_empty,%u,%u,%.0f,1960.0\n", run,
                     grids[i], blocks[j], c, run, grids[i], blocks[j],
                     c * 1.25);
        }
    put(dir, "ncu.csv", ncu);
    put(dir, "bench.csv",
        "clock,rep,test,param,value,unit\n"
        "base,1,chasecg,bytes=4096;stride=128,275,cycles/load\n"
        "base,2,chasecg,bytes=4096;stride=128,275,cycles/load\n"
        "base,1,chasecg,bytes=268435456;stride=128,541,cycles/load\n"
        "none,1,chasecg,bytes=268435456;stride=128,676,cycles/load\n"
        "base,1,chase,bytes=16384;stride=128,38,cycles/load\n"
        "base,1,chase,bytes=4096;stride=128,38,cycles/load\n"
        "base,1,chase,bytes=262144;stride=128,275,cycles/load\n"
        "base,1,shlat,stride=1,29,cycles/load\n"
        "base,1,shlat,stride=2,31,cycles/load\n"
        "base,1,shlat,stride=8,43,cycles/load\n"
        "base,1,shlat,stride=32,91,cycles/load\n"
        "base,1,bw,kind=read;bytes=8388608;grid=264;block=1024,3000,bytes/cycle\n"
        "base,1,bw,kind=read;bytes=8388608;grid=264;block=1024,4700,GB/s\n"
        "base,1,bw,kind=read;bytes=1073741824;grid=264;block=1024,1900,bytes/cycle\n"
        "base,1,atom,scope=cta;space=global;grid=1056;block=256;iters=32,0.9,atomics/cycle\n"
        "base,1,memissue,active=1;warp=0;loads=1,10,cycles\n"
        "base,1,memissue,active=1;warp=0;loads=2,11,cycles\n"
        "base,1,memorder,warp=0;at=first,0,cycles\n"
        "base,1,memorder,warp=0;at=last,37,cycles\n"
        "base,1,memorder,warp=4;at=first,6,cycles\n"
        "base,1,memorder,warp=4;at=last,85,cycles\n"
        "none,1,memorder,warp=0;at=first,0,cycles\n"
        "none,1,memorder,warp=0;at=last,85,cycles\n"
        "none,1,memorder,warp=4;at=first,6,cycles\n"
        "none,1,memorder,warp=4;at=last,57,cycles\n"
        "x,1,memorder,warp=0;at=first,6,cycles\n"
        "x,1,memorder,warp=0;at=last,43,cycles\n"
        "x,1,memorder,warp=4;at=first,0,cycles\n"
        "x,1,memorder,warp=4;at=last,85,cycles\n");
    cal_options o;
    cal_options_init(&o);
    o.gpu = "h100-pcie";
    o.threads = 1;
    cal_kit_result *r = calloc(1, sizeof *r);
    CHECK(r != NULL);
    if (!r)
        return;
    int rc = cal_kit_run(&o, dir, r, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s\n", d.msg);
    CHECK_EQ_INT(r->format, 2);
    CHECK_STR(r->clock, "base");
    CHECK_NEAR(fitted(r, "launch_overhead", NULL), 3000, 15);
    CHECK_NEAR(fitted(r, "cta_dispatch", NULL), 1.2, 0.01);
    CHECK_NEAR(fitted(r, "cta_overhead", NULL), 200, 10);
    CHECK_NEAR(fitted(r, "cta_warp_overhead", NULL), 3, 0.5);
    double lw = 0;
    wc_gpu_get_num(&g, "lat_imadwide", &lw);
    CHECK_NEAR(fitted(r, "l1_latency", NULL), 38 - lw, 0.5);
    CHECK_NEAR(fitted(r, "l2_latency", NULL), 275 - lw, 0.5);
    CHECK_NEAR(fitted(r, "dram_latency", NULL), 541 - lw, 0.5); /* clock base */
    CHECK_NEAR(fitted(r, "mem_raw_lds32_r", NULL), 29, 0.5);
    CHECK_NEAR(fitted(r, "shmem_wavefront_cycles", NULL), 2, 0.01);
    CHECK_NEAR(fitted(r, "l2_bw", NULL), 3000, 1);
    CHECK_NEAR(fitted(r, "dram_bw", NULL), 1900, 1);
    CHECK(strstr(r->left, "lat_fp32") != NULL);   /* no chain rows */
    CHECK(strstr(r->left, "l2_latency") == NULL);
    CHECK(strstr(r->unkeyed, "atom") != NULL);
    CHECK(strstr(r->unkeyed, "cycles for 1..16 loads: 10 11") != NULL);
    /* the three cases (cycles as the detailed model's ubench of the same
     * code gives them with mem_issue_oldest 1 and 0, from 181) */
    CHECK(strstr(r->unkeyed, "memorder  base  warps 0 / 4: first clock read "
                             "0 / 6, last 37 / 85 cycles: freed queue "
                             "entries go to the oldest warp "
                             "(mem_issue_oldest = 1)") != NULL);
    CHECK(strstr(r->unkeyed, "memorder  none  warps 0 / 4: first clock read "
                             "0 / 6, last 85 / 57 cycles: freed queue "
                             "entries go to the greedy warp "
                             "(mem_issue_oldest = 0)") != NULL);
    CHECK(strstr(r->unkeyed, "memorder  x     warps 0 / 4: first clock read "
                             "6 / 0, last 43 / 85 cycles: inconclusive") !=
          NULL);
    CHECK(strstr(r->notes, "l1_size: the cached chase stays within 10% of "
                           "the L1 latency up to 16384 bytes") != NULL);
    /* the overlay loads and carries the fitted values */
    char cfg[PATH_MAX];
    snprintf(cfg, sizeof cfg, "%s/fit.cfg", dir);
    CHECK_EQ_INT(cal_kit_write_cfg(r, cfg, "h100-pcie.cfg", &d), 0);
    wc_gpu f;
    CHECK_EQ_INT(wc_gpu_load(cfg, &f, &d), 0);
    double v = 0;
    CHECK_EQ_INT(wc_gpu_get_num(&f, "mem_raw_lds32_r", &v), 0);
    CHECK_NEAR(v, 29, 0);
    CHECK_EQ_INT(wc_gpu_get_num(&f, "launch_overhead", &v), 0);
    CHECK_NEAR(v, 3000, 15);
    cal_kit_result_free(r);
    free(r);
    /* not a kit folder */
    char empty[PATH_MAX];
    snprintf(empty, sizeof empty, "%s/none", dir);
    mkdir(empty, 0700);
    r = calloc(1, sizeof *r);
    CHECK_EQ_INT(cal_kit_run(&o, empty, r, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "not a kit results folder") != NULL);
    free(r);
    rmdir(empty);
    static const char *const files[] = {"ncu.csv", "bench.csv", "fit.cfg"};
    for (size_t i = 0; i < 3; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* The first kit run on an H100 SXM, as it is: a folder of symbolic links
 * to its files and a raw.csv holding a subset of its rows. */
static void test_shared_run(void)
{
    char buf[PATH_MAX], src[PATH_MAX];
    if (!shared_path("data/hw/h100-sxm/kit-run/raw.csv", buf, sizeof buf))
        return;
    if (!cal_model_available(CAL_MODEL_DETAILED)) {
        fprintf(stderr, "notice: detailed model not built, kit fit skipped\n");
        return;
    }
    CHECK(realpath("../shared/data/hw/h100-sxm/kit-run", src) != NULL);
    char dir[] = "/tmp/wc-kit-run-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[PATH_MAX], q[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/sass", dir);
    mkdir(p, 0700);
    static const char *const links[] = {"sass/all.sass", "ncu-empty.csv",
                                        "ncu-ffma.csv"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, links[i]);
        snprintf(q, sizeof q, "%s/%s", src, links[i]);
        CHECK_EQ_INT(symlink(q, p), 0);
    }
    /* rows: the FP32 and FP64 latency chains, FFMA throughput, IADD3
     * (folded), every chase and shlat row */
    FILE *in = fopen(buf, "r");
    snprintf(p, sizeof p, "%s/raw.csv", dir);
    FILE *out = fopen(p, "w");
    CHECK(in && out);
    char line[512];
    while (in && out && fgets(line, sizeof line, in)) {
        const char *t = strchr(line, ',');
        if (t && (!strncmp(t, ",lat_ffma,", 10) || !strncmp(t, ",tput_ffma,", 11) ||
                  !strncmp(t, ",lat_fadd,", 10) || !strncmp(t, ",lat_fmul,", 10) ||
                  !strncmp(t, ",lat_dfma,", 10) || !strncmp(t, ",lat_dadd,", 10) ||
                  !strncmp(t, ",lat_iadd3,", 11) ||
                  !strncmp(t, ",chase,", 7) || !strncmp(t, ",shlat,", 7)))
            fputs(line, out);
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    cal_options o;
    cal_options_init(&o);
    o.gpu = "h100-pcie";
    const char *sets[] = {"num_sms=132"};
    o.sets = sets;
    o.nsets = 1;
    cal_kit_result *r = calloc(1, sizeof *r);
    wc_diag d;
    memset(&d, 0, sizeof d);
    int rc = r ? cal_kit_run(&o, dir, r, &d) : -1;
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s: %s\n", d.file, d.msg);
    if (r && !rc) {
        CHECK_EQ_INT(r->format, 1);
        CHECK_NEAR(fitted(r, "lat_fp32", NULL), 4, 0);   /* FFMA: 4 cycles */
        CHECK_NEAR(fitted(r, "lat_fp64", NULL), 8, 0);   /* DFMA: 8 cycles */
        CHECK_NEAR(fitted(r, "ii_fp32", NULL), 1, 0);
        double se = 0;
        CHECK_NEAR(fitted(r, "launch_overhead", &se), 3290, 60);
        CHECK(se > 0 && se < 100);
        CHECK_NEAR(fitted(r, "cta_dispatch", NULL), 0.957, 0.03);
        CHECK_NEAR(fitted(r, "l2_latency", NULL), 270, 3);
        CHECK_NEAR(fitted(r, "dram_latency", NULL), 676, 5);
        CHECK_NEAR(fitted(r, "mem_raw_lds32_r", NULL), 29, 0);
        CHECK_NEAR(fitted(r, "shmem_wavefront_cycles", NULL), 2, 0);
        CHECK(strstr(r->notes, "lat_iadd3 = 0.375: not used: folded") != NULL);
        CHECK(strstr(r->notes, "header taken from ncu-ffma.csv") != NULL);
        CHECK(strstr(r->notes, "L1 is never seen") != NULL);
        CHECK(strstr(r->left, "l1_latency") != NULL);
        CHECK(strstr(r->left, "lat_int") != NULL);
        /* the launch fit: every empty kernel within 10% */
        for (size_t g = 0; g < r->ng; g++)
            if (!strcmp(r->g[g].name, "launch")) {
                CHECK_EQ_INT(r->g[g].rep.meas.n, 60);
                CHECK(r->g[g].rep.mape_after < 2.5);
            }
    }
    if (r)
        cal_kit_result_free(r);
    free(r);
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, links[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/raw.csv", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/sass", dir);
    rmdir(p);
    rmdir(dir);
}

int main(void)
{
    test_mixed_ncu();
    test_format2();
    test_shared_run();
    CHECK_DONE();
}
