/*
 * tests/unit/test_check.c - reliability checks of issue 12:
 *   - the invariant checker (common/wc_check.h) catches deliberately broken
 *     results and passes good ones;
 *   - the detailed model's watchdog never fires on a legal config whose
 *     latencies and intervals are all at their upper bounds (fuzz_models
 *     found false alarms with ii_int = 100000, cc_l0_miss_latency = 37089);
 *   - enumeration keys are checked where they are written (.cfg line, --set)
 *     and config.c's value lists agree with uarch's enums;
 *   - the key -> mode table (wc_key_modes): a key a mode is said to ignore
 *     does not change that mode's cycles.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dm.h"
#include "dm_int.h"
#include "im.h"
#include "ua.h"
#include "wc.h"
#include "wc_check.h"
#include "wc_synth.h"

static wc_kernel_info kinfo(uint64_t ctas)
{
    wc_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    ki.name = "k";
    ki.ctas = ctas;
    return ki;
}

static void test_kernel_invariants(void)
{
    wc_kernel_info ki = kinfo(10);
    wc_diag d;
    /* good: whole kernel, a window, a window running past the end */
    CHECK_EQ_INT(wc_check_kernel("detailed", &ki, 0, 0, 10, 5000, 1000, &d), 0);
    CHECK_EQ_INT(wc_check_kernel("interval", &ki, 4, 3, 3, 700, 0, &d), 0);
    CHECK_EQ_INT(wc_check_kernel("interval", &ki, 8, 5, 2, 700, 0, &d), 0);
    CHECK_EQ_INT(wc_check_kernel("interval", &ki, 0, 0, 10, 1000, 1000.4, &d),
                 0); /* rounding of a fractional launch cost */
    /* broken: a CTA lost, a CTA run twice, no cycles, below the launch */
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_check_kernel("detailed", &ki, 0, 0, 9, 5000, 0, &d),
                 WC_EINTERNAL);
    CHECK(strstr(d.msg, "invariant violated (detailed model, kernel k)") !=
          NULL);
    CHECK(strstr(d.msg, "9 CTAs executed, the header asks for 10") != NULL);
    CHECK_EQ_INT(wc_check_kernel("interval", &ki, 4, 3, 4, 700, 0, &d),
                 WC_EINTERNAL);
    CHECK_EQ_INT(wc_check_kernel("interval", &ki, 0, 0, 10, 0, 0, &d),
                 WC_EINTERNAL);
    CHECK(strstr(d.msg, "0 cycles") != NULL);
    CHECK_EQ_INT(wc_check_kernel("detailed", &ki, 0, 0, 10, 999, 1000, &d),
                 WC_EINTERNAL);
    CHECK(strstr(d.msg, "less than the launch cost") != NULL);
}

static void test_hybrid_invariants(void)
{
    wc_kernel_info ki = kinfo(10);
    wc_diag d;
    CHECK_EQ_INT(wc_check_hybrid(&ki, 1000, 1000.3, 1, 900, 1100, 50, 20, 0,
                                 &d),
                 0);
    CHECK_EQ_INT(wc_check_hybrid(&ki, 1000, 1000, 0, 0, 0, 50, 50, 1, &d), 0);
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_check_hybrid(&ki, 1200, 1200, 1, 900, 1100, 50, 20, 0, &d),
                 WC_EINTERNAL);
    CHECK(strstr(d.msg, "outside its own 95% interval") != NULL);
    CHECK_EQ_INT(wc_check_hybrid(&ki, 1000, 1003, 0, 0, 0, 50, 20, 0, &d),
                 WC_EINTERNAL); /* cycles not the estimate */
    CHECK_EQ_INT(wc_check_hybrid(&ki, 0, 0, 0, 0, 0, 50, 20, 0, &d),
                 WC_EINTERNAL);
    CHECK_EQ_INT(wc_check_hybrid(&ki, 1000, 1000, 0, 0, 0, 50, 60, 0, &d),
                 WC_EINTERNAL); /* more in detail than in the kernel */
    CHECK_EQ_INT(wc_check_hybrid(&ki, 1000, 1000, 0, 0, 0, 50, 40, 1, &d),
                 WC_EINTERNAL); /* whole kernel in detail, counts differ */
    CHECK_EQ_INT(wc_check_same(&ki, "warp instructions of region 1", "a", 7,
                               "b", 7, &d),
                 0);
    CHECK_EQ_INT(wc_check_same(&ki, "warp instructions of region 1", "a", 7,
                               "b", 8, &d),
                 WC_EINTERNAL);
    CHECK(strstr(d.msg, "region 1: a 7, b 8") != NULL);
}

/* ---- traces ------------------------------------------------------------- */

static char root[] = "/tmp/wc-check-XXXXXX";
static const char *const kinds[] = {"compute", "memory", "shared", "mixed"};
#define NK (sizeof kinds / sizeof kinds[0])
static char dirs[NK][96];

static int make_traces(void)
{
    if (!mkdtemp(root))
        return -1;
    for (size_t i = 0; i < NK; i++) {
        wc_synth_params p;
        wc_diag d;
        wc_synth_defaults(&p, kinds[i]);
        p.ctas = 3;
        p.threads = 64;
        p.iters = 2;
        p.seed = 1;
        snprintf(dirs[i], sizeof dirs[i], "%s/%s", root, kinds[i]);
        if (wc_synth_write(&p, dirs[i], &d) != 0) {
            fprintf(stderr, "synth: %s\n", d.msg);
            return -1;
        }
    }
    return 0;
}

static void rm_tree(void)
{
    char p[400];
    for (size_t i = 0; i < NK; i++) {
        if (!dirs[i][0])
            continue;
        DIR *dh = opendir(dirs[i]);
        if (dh) {
            struct dirent *e;
            while ((e = readdir(dh)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                snprintf(p, sizeof p, "%.96s/%.255s", dirs[i], e->d_name);
                unlink(p);
            }
            closedir(dh);
        }
        rmdir(dirs[i]);
    }
    rmdir(root);
}

/* cycles of kernel 0 of dir in mode (WC_MODE_INTERVAL / _DETAILED); 0 and
 * *rc set when the model returns an error */
static uint64_t cycles_of(const char *dir, unsigned mode, const wc_gpu *g,
                          int *rc, wc_diag *d)
{
    wc_trace *t = NULL;
    *rc = wc_trace_open(dir, &t, d);
    if (*rc)
        return 0;
    uint64_t c = 0;
    if (mode == WC_MODE_INTERVAL) {
        im_result r;
        *rc = im_run_kernel(t, 0, g, NULL, &r, d);
        if (*rc == 0) {
            c = r.cycles;
            im_result_free(&r);
        }
    } else {
        dm_result r;
        *rc = dm_run_kernel(t, 0, g, NULL, &r, d);
        if (*rc == 0) {
            c = r.cycles;
            dm_result_free(&r);
        }
    }
    wc_trace_close(t);
    return c;
}

static void test_watchdog_extremes(const wc_gpu *base)
{
    wc_gpu g = *base;
    wc_diag d;
    size_t nk;
    const wc_key_desc *k = wc_keys(&nk);
    /* every latency / interval / penalty at its upper bound, the
     * bandwidths at their lower bounds, the watchdog at its lower bound */
    for (size_t i = 0; i < nk; i++)
        if (k[i].type != WC_KT_STR && !strcmp(k[i].unit, "cycles") &&
            strcmp(k[i].name, "watchdog_cycles") != 0) {
            /* fixed latencies: the detailed model's calendar holds < 248
             * (the tensor variants' too: their write-backs are booked in
             * it like every fixed-latency one) */
            int fixed = !strncmp(k[i].name, "lat_", 4) &&
                        strcmp(k[i].name, "lat_mem") != 0;
            CHECK_EQ_INT(wc_gpu_set_num(&g, k[i].name, fixed ? 239 : k[i].hi,
                                        &d),
                         0);
        }
    CHECK_EQ_INT(wc_gpu_set_num(&g, "l2_bw", 0.01, &d), 0);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "dram_bw", 0.01, &d), 0);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "watchdog_cycles", 20000, &d), 0);
    dm_params p;
    CHECK_EQ_INT(dm_params_load(&g, &p, &d), 0);
    CHECK(p.watchdog > 1000000); /* derived from the config */
    dm_params pb;
    CHECK_EQ_INT(dm_params_load(base, &pb, &d), 0);
    CHECK(pb.watchdog >= (uint64_t)base->watchdog_cycles);
    for (size_t i = 0; i < NK; i++) {
        int rc;
        uint64_t c = cycles_of(dirs[i], WC_MODE_DETAILED, &g, &rc, &d);
        if (rc)
            fprintf(stderr, "%s: %s\n", kinds[i], d.msg);
        CHECK_EQ_INT(rc, 0);
        CHECK(c > 1000000);
    }
}

/* Allocate reads one register of a bank per cycle for an instruction: an
 * instruction with more registers of a bank than rf_read_window cycles
 * must get a longer window whatever rf_read_ports (it deadlocked with
 * rf_read_ports > 1: fuzz_models, issue 12). */
static void test_read_ports(const wc_gpu *base)
{
    for (long ports = 1; ports <= 16; ports *= 4) {
        wc_gpu g = *base;
        wc_diag d;
        CHECK_EQ_INT(wc_gpu_set_num(&g, "rf_read_window", 1, &d), 0);
        CHECK_EQ_INT(wc_gpu_set_num(&g, "rf_read_ports", (double)ports, &d),
                     0);
        for (size_t i = 0; i < NK; i++) {
            int rc;
            uint64_t c = cycles_of(dirs[i], WC_MODE_DETAILED, &g, &rc, &d);
            if (rc)
                fprintf(stderr, "rf_read_ports=%ld %s: %s\n", ports,
                        kinds[i], d.msg);
            CHECK_EQ_INT(rc, 0);
            CHECK(c > 0);
        }
    }
}

static void test_enums(const wc_gpu *base)
{
    /* config.c's lists are uarch's enums, in order */
    const char *const *v = wc_key_enum("issue_policy");
    CHECK(v != NULL);
    for (int i = 0; v && i < UA_POL_COUNT; i++)
        CHECK(v[i] && !strcmp(v[i], ua_policy_name(i)));
    CHECK(v && v[UA_POL_COUNT] == NULL);
    v = wc_key_enum("assign_policy");
    for (int i = 0; v && i < UA_ASSIGN_COUNT; i++)
        CHECK(v[i] && !strcmp(v[i], ua_assign_name(i)));
    CHECK(v && v[UA_ASSIGN_COUNT] == NULL);
    v = wc_key_enum("dep_mode");
    for (int i = 0; v && i < UA_DEP_COUNT; i++)
        CHECK(v[i] && !strcmp(v[i], ua_dep_name(i)));
    CHECK(v && v[UA_DEP_COUNT] == NULL);
    CHECK(wc_key_enum("name") == NULL);
    /* --set: a usage error naming the argument, not the .cfg */
    static const char *const bad[] = {"issue_policy=bogus",
                                      "assign_policy=rrr", "dep_mode=",
                                      "dep_mode=ctrl2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wc_gpu g = *base;
        wc_diag d;
        memset(&d, 0, sizeof d);
        CHECK_EQ_INT(wc_gpu_set(&g, bad[i], &d), WC_EUSAGE);
        CHECK(strncmp(d.msg, "--set: ", 7) == 0);
        CHECK(strstr(d.msg, "expected") != NULL);
        CHECK(d.file[0] == 0);
        CHECK(strcmp(g.issue_policy, base->issue_policy) == 0);
    }
    wc_gpu g = *base;
    wc_diag d;
    CHECK_EQ_INT(wc_gpu_set(&g, "issue_policy=gto", &d), 0);
    CHECK_STR(g.issue_policy, "gto");
    /* .cfg: file:line:col of the value */
    static const char cfg[] = "num_sms = 4\n\nissue_policy = gtoo\n";
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_gpu_parse("mem.cfg", cfg, sizeof cfg - 1, &g, &d),
                 WC_EINPUT);
    CHECK_STR(d.file, "mem.cfg");
    CHECK_EQ_INT(d.line, 3);
    CHECK_EQ_INT(d.col, 16);
    CHECK(strstr(d.msg, "issue_policy 'gtoo': expected cggty, gto, lrr or "
                        "rba") != NULL);
}

static void test_key_modes(const wc_gpu *base)
{
    CHECK_EQ_INT(wc_key_modes(wc_key_find("num_sms")), WC_MODES_ALL);
    CHECK_EQ_INT(wc_key_modes(wc_key_find("l1_size")), WC_MODES_ALL);
    CHECK_EQ_INT(wc_key_modes(wc_key_find("im_queue_k")),
                 WC_MODE_INTERVAL | WC_MODE_HYBRID);
    CHECK_EQ_INT(wc_key_modes(wc_key_find("smp_period")), WC_MODE_HYBRID);
    CHECK_EQ_INT(wc_key_modes(wc_key_find("cc_l0fl_size")),
                 WC_MODE_DETAILED | WC_MODE_HYBRID);
    /* what the table says a mode ignores does not change its cycles */
    size_t nk;
    const wc_key_desc *k = wc_keys(&nk);
    uint64_t ref[2][NK];
    wc_diag d;
    for (unsigned m = 0; m < 2; m++)
        for (size_t i = 0; i < NK; i++) {
            int rc;
            ref[m][i] = cycles_of(dirs[i], m ? WC_MODE_DETAILED
                                             : WC_MODE_INTERVAL,
                                  base, &rc, &d);
            CHECK_EQ_INT(rc, 0);
        }
    size_t ignored[2] = {0, 0};
    for (size_t j = 0; j < nk; j++) {
        if (k[j].type == WC_KT_STR)
            continue;
        unsigned modes = wc_key_modes(&k[j]);
        for (unsigned m = 0; m < 2; m++) {
            unsigned mode = m ? WC_MODE_DETAILED : WC_MODE_INTERVAL;
            if (modes & mode)
                continue;
            ignored[m]++;
            for (int e = 0; e < 2; e++) {
                wc_gpu g = *base;
                if (wc_gpu_set_num(&g, k[j].name, e ? k[j].hi : k[j].lo,
                                   &d) != 0)
                    continue;
                for (size_t i = 0; i < NK; i++) {
                    int rc;
                    uint64_t c = cycles_of(dirs[i], mode, &g, &rc, &d);
                    if (rc == WC_EINPUT)
                        continue; /* checked, not used: a combination */
                    if (rc != 0 || c != ref[m][i])
                        fprintf(stderr,
                                "%s=%g changes %s cycles of %s: %llu -> "
                                "%llu (rc %d)\n",
                                k[j].name, e ? k[j].hi : k[j].lo,
                                m ? "detailed" : "interval", kinds[i],
                                (unsigned long long)ref[m][i],
                                (unsigned long long)c, rc);
                    CHECK(rc == 0 && c == ref[m][i]);
                }
            }
        }
    }
    fprintf(stderr, "keys ignored: %zu by interval, %zu by detailed\n",
            ignored[0], ignored[1]);
    CHECK(ignored[0] >= 30 && ignored[1] >= 10);
}

int main(void)
{
    test_kernel_invariants();
    test_hybrid_invariants();
    wc_gpu base;
    wc_diag d;
    if (wc_gpu_load("h100-pcie", &base, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        CHECK(0);
        CHECK_DONE();
    }
    test_enums(&base);
    if (make_traces() == 0) {
        test_watchdog_extremes(&base);
        test_read_ports(&base);
        test_key_modes(&base);
    } else {
        CHECK(0);
    }
    rm_tree();
    CHECK_DONE();
}
