/*
 * tests/unit/test_config.c - GPU configuration: the key table, the .cfg
 * reader (includes, every error path with its exact file:line:col), --set,
 * numeric access, latency classes, binary-version map and the bundled list.
 */
#include "check.h"
#include "wc.h"

#include <stdlib.h>
#include <sys/stat.h>

static char tmpdir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

/* Load tmpdir/name; returns the code, fills d. */
static int load_tmp(const char *name, wc_gpu *g, wc_diag *d)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return wc_gpu_load(path, g, d);
}

/* Expect an error at name:line:col whose message contains want. */
static void expect_err(const char *name, const char *text, long line,
                       long col, const char *want)
{
    wc_gpu g;
    wc_diag d;
    memset(&d, 0, sizeof d);
    write_file(name, text);
    int rc = load_tmp(name, &g, &d);
    CHECK_EQ_INT(rc, WC_EINPUT);
    CHECK_EQ_INT(d.code, WC_EINPUT);
    CHECK_EQ_INT(d.line, line);
    CHECK_EQ_INT(d.col, col);
    const char *base = strrchr(d.file, '/');
    CHECK_STR(base ? base + 1 : d.file, name);
    if (!strstr(d.msg, want))
        fprintf(stderr, "  message was: %s\n", d.msg);
    CHECK(strstr(d.msg, want) != NULL);
}

static void test_table(void)
{
    size_t n = 0;
    const wc_key_desc *k = wc_keys(&n);
    CHECK(n > 40);
    for (size_t i = 0; i < n; i++) {
        CHECK(k[i].name && k[i].unit && k[i].help);
        CHECK(wc_key_find(k[i].name) == &k[i]); /* names are unique */
        if (k[i].type != WC_KT_STR) {
            CHECK(k[i].lo <= k[i].def && k[i].def <= k[i].hi);
        }
    }
    CHECK(wc_key_find("num_sms") != NULL);
    CHECK(wc_key_find("lat_fp32") != NULL);
    CHECK(wc_key_find("ii_mem") != NULL);
    CHECK(wc_key_find("no_such_key") == NULL);
    wc_gpu g;
    wc_gpu_defaults(&g);
    CHECK_STR(g.name, "generic");
    CHECK_EQ_INT(g.subcores_per_sm, 4);
    char *md = NULL;
    CHECK_EQ_INT(wc_keys_markdown(&md), WC_OK);
    CHECK(md && strstr(md, "| `num_sms` | int |") != NULL);
    free(md);
}

static void test_bundled(void)
{
    char **names = NULL;
    size_t n = wc_gpu_list(&names);
    const char *want[] = {"a100",       "gt200",      "h100-pcie",
                          "h100-sxm",   "rtx-2070s",  "rtx-2080ti", "rtx-3080",
                          "rtx-3080ti", "rtx-3090",   "rtx-4090",
                          "rtx-5070ti", "rtx-a6000",  "v100"};
    CHECK_EQ_INT(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n && i < sizeof want / sizeof want[0]; i++)
        CHECK_STR(names[i], want[i]);
    for (size_t i = 0; i < n; i++) {
        CHECK(names[i][0] != '_' && strncmp(names[i], "core-", 5) != 0 &&
              strncmp(names[i], "mem-", 4) != 0);
        wc_gpu g;
        wc_diag d;
        memset(&d, 0, sizeof d);
        int rc = wc_gpu_load(names[i], &g, &d);
        if (rc != WC_OK) {
            char buf[2048];
            wc_diag_format(&d, buf, sizeof buf);
            fprintf(stderr, "%s\n", buf);
        }
        CHECK_EQ_INT(rc, WC_OK);
        CHECK_STR(g.name, names[i]);
        CHECK(strcmp(g.arch, "unknown") != 0);
        CHECK(g.sm_version > 0);
        CHECK(strstr(g.source, names[i]) != NULL);
        /* the default config of its own binary version is itself, except
           for boards sharing sm_86 (rtx-a6000), sm_75 (rtx-2080ti) or sm_90
           (h100-pcie: the bundled sm_90 traces are from an H100 PCIe) */
        const char *def = wc_gpu_for_binary((int)g.sm_version);
        CHECK(def != NULL);
        if (def && g.sm_version != 86 && g.sm_version != 75 &&
            strcmp(names[i], "h100-sxm") != 0)
            CHECK_STR(def, names[i]);
        CHECK(g.max_warps_per_sm % g.subcores_per_sm == 0);
    }
    wc_free_names(names, n);

    wc_gpu g;
    wc_diag d;
    CHECK_EQ_INT(wc_gpu_load("rtx-a6000", &g, &d), WC_OK);
    CHECK_EQ_INT(g.num_sms, 84);
    CHECK_NEAR(g.clock_mhz, 1800, 0);
    CHECK_EQ_INT(g.max_warps_per_sm, 48);
    CHECK_EQ_INT(g.lat_fp32, 4);
    CHECK_EQ_INT(g.lat_fp16, 5);
    CHECK_EQ_INT(g.ii_mem, 4);
    CHECK_EQ_INT(g.fp64_shared, 1);
    CHECK_EQ_INT(g.l2_size, 6 * 1024 * 1024);
    CHECK_EQ_INT(wc_gpu_lat(&g, WC_LAT_fp32), 4);
    CHECK_EQ_INT(wc_gpu_ii(&g, WC_LAT_sfu), 8);
    CHECK_EQ_INT(wc_gpu_lat(&g, WC_LAT_mem), 32);
    CHECK_EQ_INT(wc_gpu_lat(&g, -1), -1);
    CHECK_EQ_INT(wc_gpu_ii(&g, WC_LAT_COUNT), -1);

    CHECK_EQ_INT(wc_gpu_load("gt200", &g, &d), WC_OK);
    CHECK_EQ_INT(g.num_sms, 30);
    CHECK_EQ_INT(g.subcores_per_sm, 1);
    CHECK_EQ_INT(g.lat_fp32, 24);
    CHECK_EQ_INT(g.ii_fp64, 32);
    CHECK_EQ_INT(g.ii_sfu, 16);

    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_gpu_load("no-such-gpu", &g, &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "unknown GPU 'no-such-gpu'") != NULL);
    CHECK(strstr(d.msg, "rtx-a6000") != NULL);
    CHECK_EQ_INT(wc_gpu_load("../etc/passwd", &g, &d), WC_EUSAGE);
    CHECK_EQ_INT(wc_gpu_load("/nonexistent/x.cfg", &g, &d), WC_EUSAGE);
    CHECK_EQ_INT(wc_gpu_load("core-ampere", &g, &d), WC_OK); /* loads, empty */
}

static void test_binary_map(void)
{
    CHECK_STR(wc_gpu_for_binary(90), "h100-pcie");
    CHECK_STR(wc_gpu_for_binary(86), "rtx-a6000");
    CHECK_STR(wc_gpu_for_binary(80), "a100");
    CHECK_STR(wc_gpu_for_binary(89), "rtx-4090");
    CHECK_STR(wc_gpu_for_binary(75), "rtx-2080ti");
    CHECK_STR(wc_gpu_for_binary(70), "v100");
    CHECK_STR(wc_gpu_for_binary(120), "rtx-5070ti");
    CHECK_STR(wc_gpu_for_binary(13), "gt200");
    CHECK(wc_gpu_for_binary(0) == NULL);
    CHECK(wc_gpu_for_binary(100) == NULL);
    CHECK(wc_gpu_for_binary(61) == NULL);
}

static void test_files(void)
{
    wc_gpu g;
    wc_diag d;

    /* include, override order, comments, quoting, CRLF, size suffix */
    write_file("base.cfg", "# base\nnum_sms = 10   # SMs, test\n"
                           "lat_fp32 = 7\nname = base\n");
    write_file("top.cfg", "include base.cfg   # comment\r\n"
                          "\n   # indented comment\n"
                          "num_sms = 20\n"
                          "name = \"amp # ere\"  # quoted hash\n"
                          "l2_size = 6MiB\n"
                          "clock_mhz = 1.5e3\n");
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(load_tmp("top.cfg", &g, &d), WC_OK);
    CHECK_EQ_INT(g.num_sms, 20);
    CHECK_EQ_INT(g.lat_fp32, 7);
    CHECK_STR(g.name, "amp # ere");
    CHECK_EQ_INT(g.l2_size, 6 * 1024 * 1024);
    CHECK_NEAR(g.clock_mhz, 1500, 0);
    CHECK(strstr(g.source, "top.cfg") != NULL);

    /* a file that sets no key is no GPU (it was the generic 1-SM
     * defaults): an error naming the file; an include that sets keys
     * counts (issue 12) */
    expect_err("empty.cfg", "", 0, 0, "sets no key (empty file)");
    expect_err("blank.cfg", "# only a comment\n\n", 0, 0, "sets no key");
    expect_err("incempty.cfg", "include blank.cfg\n", 0, 0, "sets no key");
    write_file("incbase.cfg", "include base.cfg\n");
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(load_tmp("incbase.cfg", &g, &d), WC_OK);
    CHECK_EQ_INT(g.num_sms, 10);
    write_file("incbundled.cfg", "include h100-pcie.cfg\n");
    CHECK_EQ_INT(load_tmp("incbundled.cfg", &g, &d), WC_OK);
    CHECK_STR(g.name, "h100-pcie");

    /* name defaults to the file stem */
    write_file("stem.cfg", "num_sms = 3\n");
    CHECK_EQ_INT(load_tmp("stem.cfg", &g, &d), WC_OK);
    CHECK_STR(g.name, "stem");

    /* include from a subdirectory resolves relative to the includer */
    char sub[512];
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    mkdir(sub, 0755);
    write_file("sub/inner.cfg", "include ../base.cfg\nnum_sms = 5\n");
    write_file("outer.cfg", "include sub/inner.cfg\n");
    CHECK_EQ_INT(load_tmp("outer.cfg", &g, &d), WC_OK);
    CHECK_EQ_INT(g.num_sms, 5);
    CHECK_EQ_INT(g.lat_fp32, 7);

    /* error paths, with exact positions */
    expect_err("e1.cfg", "num_sms = 4\n  nm_sms = 4\n", 2, 3,
               "unknown key 'nm_sms' (did you mean 'num_sms'?)");
    expect_err("e1b.cfg", "num_sms = 4\n  nm_sms = 4\n", 2, 3,
               "\n      nm_sms = 4\n      ^");
    expect_err("e2.cfg", "\nnum_sms = four\n", 2, 11,
               "expected an integer for 'num_sms', got 'four'");
    expect_err("e3.cfg", "num_sms = 4x\n", 1, 11, "expected an integer");
    expect_err("e4.cfg", "clock_mhz = 1.5.2\n", 1, 13, "expected a number");
    expect_err("e5.cfg", "subcores_per_sm = 9\n", 1, 19,
               "value 9 of 'subcores_per_sm' is out of bounds [1, 8]");
    expect_err("e6.cfg", "num_sms = 0   # zero\n", 1, 11, "out of bounds");
    expect_err("e7.cfg", "num_sms = 4\nlat_fp32 = 4\nnum_sms = 5\n", 3, 1,
               "duplicate key 'num_sms' (first set at line 1)");
    expect_err("e8.cfg", "num_sms 4\n", 1, 9, "expected '=' after 'num_sms'");
    expect_err("e9.cfg", "num_sms =    # nothing\n", 1, 14,
               "missing value for 'num_sms'");
    expect_err("e10.cfg", "= 4\n", 1, 1, "expected a key name");
    expect_err("e11.cfg", "name = \"open\n", 1, 8, "unterminated string");
    expect_err("e12.cfg", "name = \"a\" b\n", 1, 12,
               "unexpected text after the string");
    expect_err("e13.cfg",
               "name = 0123456789012345678901234567890123456789"
               "012345678901234567890123456789\n",
               1, 8, "longer than");
    expect_err("e14.cfg", "num_sms = 99999999999999999999\n", 1, 11,
               "expected an integer");
    expect_err("e15.cfg", "clock_mhz = nan\n", 1, 13, "expected a number");
    expect_err("e16.cfg", "num_sms = 4\ninclude   missing.cfg  # x\n", 2, 11,
               "cannot include");
    expect_err("e17.cfg", "include\n", 1, 1, "unknown key 'include'");
    expect_err("e18.cfg", "include sub\n", 1, 9, "not a regular file");

    /* an error inside an include is reported in the included file */
    write_file("bad-inner.cfg", "lat_fp32 = 4\nlat_fp32 = 5\n");
    write_file("bad-outer.cfg", "num_sms = 1\ninclude bad-inner.cfg\n");
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(load_tmp("bad-outer.cfg", &g, &d), WC_EINPUT);
    CHECK(strstr(d.file, "bad-inner.cfg") != NULL);
    CHECK_EQ_INT(d.line, 2);
    CHECK_EQ_INT(d.col, 1);

    /* the same key in an include and in the includer is an override */
    write_file("ovr.cfg", "include base.cfg\nlat_fp32 = 9\n");
    CHECK_EQ_INT(load_tmp("ovr.cfg", &g, &d), WC_OK);
    CHECK_EQ_INT(g.lat_fp32, 9);

    /* include cycles: self and a -> b -> a */
    expect_err("self.cfg", "num_sms = 2\ninclude self.cfg\n", 2, 9,
               "include cycle");
    write_file("cyc-b.cfg", "include cyc-a.cfg\n");
    write_file("cyc-a.cfg", "include cyc-b.cfg\n");
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(load_tmp("cyc-a.cfg", &g, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "include cycle") != NULL);
    CHECK(strstr(d.file, "cyc-b.cfg") != NULL);
    CHECK_EQ_INT(d.line, 1);
    CHECK_EQ_INT(d.col, 9);

    /* a failed load leaves g untouched */
    wc_gpu_defaults(&g);
    g.num_sms = 77;
    write_file("half.cfg", "num_sms = 3\nbogus = 1\n");
    CHECK_EQ_INT(load_tmp("half.cfg", &g, &d), WC_EINPUT);
    CHECK_EQ_INT(g.num_sms, 77);

    /* deep (non-cyclic) nesting is cut off */
    for (int i = 0; i < 20; i++) {
        char nm[32], txt[64];
        snprintf(nm, sizeof nm, "deep%d.cfg", i);
        snprintf(txt, sizeof txt, "include deep%d.cfg\n", i + 1);
        write_file(nm, txt);
    }
    write_file("deep20.cfg", "num_sms = 1\n");
    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(load_tmp("deep0.cfg", &g, &d), WC_EINPUT);
    CHECK(strstr(d.msg, "nested deeper") != NULL);

    /* in-memory parse */
    const char *txt = "num_sms = 12\nlat_sfu = 30\n";
    CHECK_EQ_INT(wc_gpu_parse("mem.cfg", txt, strlen(txt), &g, &d), WC_OK);
    CHECK_EQ_INT(g.num_sms, 12);
    CHECK_EQ_INT(g.lat_sfu, 30);
    const char nul[] = "num_sms = 1\0x\n";
    CHECK_EQ_INT(wc_gpu_parse("mem.cfg", nul, sizeof nul - 1, &g, &d),
                 WC_EINPUT);
    CHECK_EQ_INT(d.line, 1);
    CHECK_EQ_INT(d.col, 12);
    CHECK_EQ_INT(wc_gpu_parse("mem.cfg", "", 0, &g, &d), WC_OK);
}

static void test_set(void)
{
    wc_gpu g;
    wc_diag d;
    wc_gpu_defaults(&g);
    CHECK_EQ_INT(wc_gpu_set(&g, "num_sms=42", &d), WC_OK);
    CHECK_EQ_INT(g.num_sms, 42);
    CHECK_EQ_INT(wc_gpu_set(&g, " clock_mhz = 1410.5 ", &d), WC_OK);
    CHECK_NEAR(g.clock_mhz, 1410.5, 0);
    CHECK_EQ_INT(wc_gpu_set(&g, "issue_policy=gto", &d), WC_OK);
    CHECK_STR(g.issue_policy, "gto");
    CHECK_EQ_INT(wc_gpu_set(&g, "name=\"my gpu\"", &d), WC_OK);
    CHECK_STR(g.name, "my gpu");
    CHECK_EQ_INT(wc_gpu_set(&g, "l2_size=40MiB", &d), WC_OK);
    CHECK_EQ_INT(g.l2_size, 40L * 1024 * 1024);
    /* the information keys hold what their help names */
    CHECK_EQ_INT(wc_gpu_set(&g, "arch=hopper", &d), WC_OK);
    CHECK_STR(g.arch, "hopper");
    CHECK_EQ_INT(wc_gpu_set(&g, "arch=bad", &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "arch 'bad': expected unknown, gt200") != NULL);
    CHECK_EQ_INT(wc_gpu_set(&g, "arch=", &d), WC_EUSAGE);
    CHECK_STR(g.arch, "hopper");
    CHECK_EQ_INT(wc_gpu_set(&g, "shmem_carveouts=0,8,16,228", &d), WC_OK);
    CHECK_STR(g.shmem_carveouts, "0,8,16,228");
    CHECK_EQ_INT(wc_gpu_set(&g, "shmem_carveouts=", &d), WC_OK);
    {
        static const char *const bad[] = {"a", "1,,2", "-1", "1e400", "0,",
                                          ",", "1048577", "8;16"};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char a[64];
            snprintf(a, sizeof a, "shmem_carveouts=%s", bad[i]);
            CHECK_EQ_INT(wc_gpu_set(&g, a, &d), WC_EUSAGE);
            CHECK(strstr(d.msg, "expected KiB sizes") != NULL);
        }
    }

    memset(&d, 0, sizeof d);
    CHECK_EQ_INT(wc_gpu_set(&g, "num_sms", &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "expected KEY=VALUE") != NULL);
    CHECK_EQ_INT(wc_gpu_set(&g, "=4", &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "missing key") != NULL);
    CHECK_EQ_INT(wc_gpu_set(&g, "num_sm=4", &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "unknown key 'num_sm' (did you mean 'num_sms'?)") !=
          NULL);
    CHECK_EQ_INT(d.line, 0);
    CHECK_STR(d.file, "");
    CHECK_EQ_INT(wc_gpu_set(&g, "num_sms=abc", &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "expected an integer for 'num_sms'") != NULL);
    CHECK_EQ_INT(wc_gpu_set(&g, "num_sms=", &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "missing value") != NULL);
    CHECK_EQ_INT(wc_gpu_set(&g, "num_sms=5000", &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "out of bounds [1, 1024]") != NULL);
    CHECK_EQ_INT(g.num_sms, 42); /* unchanged after errors */
}

static void test_num(void)
{
    wc_gpu g;
    wc_diag d;
    double v = 0;
    wc_gpu_defaults(&g);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "lat_fp32", 6.4, &d), WC_OK);
    CHECK_EQ_INT(g.lat_fp32, 6);
    CHECK_EQ_INT(wc_gpu_get_num(&g, "lat_fp32", &v), WC_OK);
    CHECK_NEAR(v, 6, 0);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "launch_overhead", 1234.5, &d), WC_OK);
    CHECK_EQ_INT(wc_gpu_get_num(&g, "launch_overhead", &v), WC_OK);
    CHECK_NEAR(v, 1234.5, 0);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "num_sms", 0, &d), WC_EUSAGE);
    CHECK(strstr(d.msg, "out of bounds") != NULL);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "num_sms", NAN, &d), WC_EUSAGE);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "arch", 1, &d), WC_EUSAGE);
    CHECK_EQ_INT(wc_gpu_set_num(&g, "nope", 1, &d), WC_EUSAGE);
    CHECK_EQ_INT(wc_gpu_get_num(&g, "arch", &v), WC_EUSAGE);
    CHECK_EQ_INT(wc_gpu_get_num(&g, "nope", &v), WC_EUSAGE);

    char buf[80];
    CHECK_EQ_INT(wc_gpu_value_str(&g, wc_key_find("lat_fp32"), buf,
                                  sizeof buf), WC_OK);
    CHECK_STR(buf, "6");
    CHECK_EQ_INT(wc_gpu_value_str(&g, wc_key_find("launch_overhead"), buf,
                                  sizeof buf), WC_OK);
    CHECK_STR(buf, "1234.5");
    snprintf(g.name, sizeof g.name, "a # b");
    CHECK_EQ_INT(wc_gpu_value_str(&g, wc_key_find("name"), buf, sizeof buf),
                 WC_OK);
    CHECK_STR(buf, "\"a # b\"");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/wc_test_config.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("WARPCAST_DATA", WC_DATA_DIR, 1);
    CHECK_STR(wc_data_dir(), WC_DATA_DIR);
    test_table();
    test_bundled();
    test_binary_map();
    test_files();
    test_set();
    test_num();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", tmpdir);
    CHECK_DONE();
}
