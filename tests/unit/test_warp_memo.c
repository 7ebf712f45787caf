/*
 * tests/unit/test_warp_memo.c - the interval model's warp memo (im_int.h)
 * changes nothing: every kind of synthetic kernel, converted to the binary
 * form, predicted with the memo on and off, gives the same result bit for
 * bit (cycles, CPI stack, counts, per-warp times), and the memo is in use
 * (warps recalled) where warps repeat.  Text traces have no static record
 * numbers and are always walked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "h100sxm_traces.h"
#include "im.h"
#include "im_int.h"
#include "synth_fixture.h"

static int same_result(const im_result *a, const im_result *b)
{
    int ok = a->cycles == b->cycles && a->sim_cycles == b->sim_cycles &&
             a->warp_insts == b->warp_insts && a->ctas == b->ctas &&
             a->warps == b->warps && a->intervals == b->intervals &&
             a->l1_hits == b->l1_hits && a->l2_hits == b->l2_hits &&
             a->dram_sectors == b->dram_sectors &&
             memcmp(a->cpi, b->cpi, sizeof a->cpi) == 0 &&
             memcmp(&a->dram_util, &b->dram_util, sizeof a->dram_util) == 0 &&
             memcmp(&a->l2_util, &b->l2_util, sizeof a->l2_util) == 0 &&
             memcmp(&a->counts, &b->counts, sizeof a->counts) == 0 &&
             a->nwarps == b->nwarps;
    for (size_t i = 0; ok && i < a->nwarps; i++)
        ok = a->warp_insts_of[i] == b->warp_insts_of[i] &&
             memcmp(&a->warp_cycles[i], &b->warp_cycles[i],
                    sizeof(double)) == 0;
    return ok;
}

/* Kernel 0 of trace t with the memo on and off; sms SMs (0: all). */
static void compare(wc_trace *t, const wc_gpu *g, long sms, const char *what,
                    uint64_t *recalled)
{
    im_options o;
    im_options_default(&o);
    o.sms = sms;
    o.per_warp = 1;
    im_result on, off;
    wc_diag d;
    int rc1 = im_run_kernel(t, 0, g, &o, &on, &d);
    o.no_warp_memo = 1;
    int rc2 = im_run_kernel(t, 0, g, &o, &off, &d);
    CHECK(rc1 == 0 && rc2 == 0);
    if (rc1 || rc2)
        return;
    int same = same_result(&on, &off);
    if (!same)
        fprintf(stderr, "%s: memo on %llu cycles, off %llu\n", what,
                (unsigned long long)on.cycles, (unsigned long long)off.cycles);
    CHECK(same);
    CHECK_EQ_INT(off.warps_recalled, 0);
    *recalled = on.warps_recalled;
    im_result_free(&on);
    im_result_free(&off);
}

/* t converted to the binary form at bin and opened (NULL: the reason on
 * stderr). */
static wc_trace *binary_of(wc_trace *t, const char *bin, wc_diag *d)
{
    wc_convert_stats cs;
    wc_trace *tb = NULL;
    if (wc_trace_convert(t, bin, &cs, d) != 0 ||
        wc_trace_open(bin, &tb, d) != 0) {
        fixture_show(d);
        return NULL;
    }
    return tb;
}

/* Kernel 0 of the synthetic trace sp on gpu, with the config keys sets
 * (up to 3, NULL-ended; NULL: none) applied, memo on and off compared on
 * sms SMs (compare) from its binary form and, with text, from the text
 * too (never recalled).  The binary form's warps recalled; a case that
 * cannot be made fails a check and gives 0. */
static uint64_t memo_case(const wc_synth_params *sp, const char *prefix,
                          const char *gpu, const char *const *sets, long sms,
                          int text, const char *what)
{
    synth_fixture fx;
    if (synth_fixture_open(&fx, prefix, sp, gpu, 1) != 0) {
        CHECK(0);
        return 0;
    }
    int ok = 1;
    for (int j = 0; sets && j < 3 && sets[j] && ok; j++)
        ok = wc_gpu_set(&fx.g, sets[j], &fx.d) == 0;
    char bin[128];
    snprintf(bin, sizeof bin, "%s/t.wctb", fx.dir);
    wc_trace *tb = ok ? binary_of(fx.t, bin, &fx.d) : NULL;
    if (!tb) {
        if (!ok)
            fixture_show(&fx.d);
        CHECK(0);
        synth_fixture_close(&fx);
        return 0;
    }
    uint64_t rb = 0, rt = 0;
    compare(tb, &fx.g, sms, what, &rb);
    if (text) {
        compare(fx.t, &fx.g, sms, what, &rt);
        CHECK_EQ_INT(rt, 0); /* text: always walked */
    }
    wc_trace_close(tb);
    unlink(bin);
    synth_fixture_close(&fx);
    return rb;
}

/* What wm_check takes of the SM's caches (im_mem.c) to answer a request
 * again without asking (im_warp.c): a line held is answered with its ready
 * time whatever the request's time (and cost), and the request changes
 * nothing (line count, stream buffer) unless it moves the stream buffer,
 * which depends on the line and the buffer alone. */
static void test_cache_contract(void)
{
    im_par p;
    memset(&p, 0, sizeof p);
    p.il1_lat = 20;
    p.il1_miss = 100;
    p.isbuf = 4;
    im_icode c;
    CHECK_EQ_INT(im_icode_init(&c), 0);
    double r = im_icode_fetch(&c, &p, 100, 5.0); /* a miss */
    CHECK(r > 5.0 && c.n > 0);
    size_t n = c.n;
    uint64_t sl = c.sb_line, se = c.sb_end;
    const double at[] = {500.0, 1.0, 5.0, 1e6};
    for (unsigned i = 0; i < 4; i++) {
        CHECK(im_icode_fetch(&c, &p, 100, at[i]) == r);
        CHECK(c.n == n && c.sb_line == sl && c.sb_end == se);
    }
    /* the stream buffer's last line moves it; then a line in it, asked
     * at any time, changes nothing */
    double r2 = im_icode_fetch(&c, &p, 100 + p.isbuf, 50.0);
    CHECK(c.sb_end != se);
    n = c.n;
    sl = c.sb_line;
    se = c.sb_end;
    for (unsigned i = 0; i < 4; i++) {
        CHECK(im_icode_fetch(&c, &p, 101, at[i]) == r);
        CHECK(im_icode_fetch(&c, &p, 100 + p.isbuf, at[i]) == r2);
        CHECK(c.n == n && c.sb_line == sl && c.sb_end == se);
    }
    im_icode_free(&c);
    /* constant lines: held, the same answer at any time and cost */
    im_icode k;
    CHECK_EQ_INT(im_icode_init(&k), 0);
    double a = im_lines_fetch(&k, 7, 3.0, 50.0);
    size_t kn = k.n;
    CHECK(kn > 0);
    for (unsigned i = 0; i < 4; i++) {
        CHECK(im_lines_fetch(&k, 7, at[i], 10.0 * i) == a);
        CHECK(k.n == kn);
    }
    im_icode_free(&k);
}

/* A warp recalled by its bytes takes its template's shared-memory
 * wavefronts where every lane moved by whole rows of banks (im_warp.c,
 * tmpl_wavefronts), but not near 2^64, where the count clips a lane's
 * bytes: CTA `odd` of 64 has its two LDS.128 lanes at 2^64 - 8 and
 * 2^64 - 128 (one wavefront, its second lane's bytes clipped), the others
 * at 0x78 and 0 (two): the same bytes but for the first base.  The memo on
 * and off must agree (found by the stop-39 review: 1536 wavefronts with
 * the template's count against 3048). */
static void test_wavefronts_wrap(int odd)
{
    char dir[] = "/tmp/wc-wmwrap-XXXXXX", path[160], bin[160];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "kernel-1.traceg\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "-kernel name = _Z4wrapPf\n-kernel id = 1\n"
               "-grid dim = (64,1,1)\n-block dim = (32,1,1)\n"
               "-shmem = 1024\n-nregs = 24\n-binary version = 90\n"
               "-cuda stream id = 0\n"
               "-shmem base_addr = 0x00007f5e00000000\n"
               "-local mem base_addr = 0x00007f5ddd000000\n"
               "-nvbit version = 1.7.4\n-accelsim tracer version = 5\n"
               "-enable lineinfo = 0\n\n");
    for (int c = 0; c < 64; c++) {
        int hi = c == odd;
        fprintf(f, "\n#BEGIN_TB\n\nthread block = %d,0,0\n\nwarp = 0\n"
                   "insts = 27\n0000 ffffffff 1 R1 MOV 0 0 0\n"
                   "0010 ffffffff 1 R6 S2R 0 0 0\n", c);
        for (int k = 0; k < 24; k++)
            fprintf(f, "%04x 00000003 1 R%d LDS.128 1 R6 16 0 %s 0\n",
                    0x20 + 16 * k, 8 + (k % 4) * 4,
                    hi ? "fffffffffffffff8 ffffffffffffff80" : "78 0");
        fprintf(f, "01a0 ffffffff 0 EXIT 0 0 0\n\n#END_TB\n");
    }
    fclose(f);
    wc_diag d;
    wc_gpu g;
    wc_trace *t = NULL, *tb = NULL;
    snprintf(bin, sizeof bin, "%s/k.wctb", dir);
    CHECK_EQ_INT(wc_gpu_load("h100-pcie", &g, &d), 0);
    if (wc_trace_open(dir, &t, &d) != 0)
        fixture_show(&d);
    else
        tb = binary_of(t, bin, &d);
    CHECK(tb != NULL);
    if (tb) {
        uint64_t rb = 0;
        compare(tb, &g, 4, "LDS lanes near 2^64", &rb);
        CHECK(rb > 0);
        printf("warp memo: lanes near 2^64 in CTA %d: %llu warps recalled, "
               "results identical\n", odd, (unsigned long long)rb);
        wc_trace_close(tb);
    }
    if (t)
        wc_trace_close(t);
    unlink(bin);
    unlink(path);
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_cache_contract();
    test_wavefronts_wrap(0);  /* the template's lanes near 2^64 */
    test_wavefronts_wrap(5);  /* a later warp's */
    static const char *kinds[] = {"compute", "latency",    "memory",
                                  "divergent", "imbalanced", "balanced",
                                  "shared",  "chase",      "fp64",
                                  "tensor",  "mixed"};
    /* on 4 SMs of each GPU: many waves, so that warps repeat */
    static const char *gpus[] = {"h100-pcie", "v100"};
    for (size_t gi = 0; gi < sizeof gpus / sizeof *gpus; gi++)
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            wc_synth_params sp;
            wc_synth_defaults(&sp, kinds[k]);
            sp.ctas = 48;
            sp.iters = 6;
            if (!strcmp(kinds[k], "memory") && gi == 1) {
                sp.ctas = 16; /* long warps: hundreds of records with */
                sp.iters = 80; /* addresses buffered per warp         */
            }
            char what[96];
            snprintf(what, sizeof what, "%s on %s", kinds[k], gpus[gi]);
            uint64_t rb = memo_case(&sp, "wm", gpus[gi], NULL, 4, 1, what);
            /* kernels whose warps repeat exactly are recalled; and
             * `mixed` (kernel 0: a data-dependent branch gives each warp
             * its own masks inside it, instructions without a memory
             * path, keyed by whether a lane is active since stop 36: 49 /
             * 148 of 192 warps, none before) */
            if (!strcmp(kinds[k], "compute") || !strcmp(kinds[k], "fp64") ||
                !strcmp(kinds[k], "tensor") || !strcmp(kinds[k], "mixed") ||
                (!strcmp(kinds[k], "memory") && gi == 0))
                CHECK(rb > 0);
            printf("warp memo %-10s %-9s: %llu warps recalled, results "
                   "identical\n", kinds[k], gpus[gi], (unsigned long long)rb);
        }
    /* Long warps (tensor, 32 iterations: 299 instructions, over
     * IM_WM_SHORT: the 16 long slots) of four shapes a sub-core: recalled
     * but for the first of each shape.  With those slots one way, two
     * shapes hashed to one slot evicted each other and half the warps were
     * walked (stop 36, bench_interval's tensor kernel). */
    {
        wc_synth_params sp;
        wc_synth_defaults(&sp, "tensor");
        sp.ctas = 64;
        sp.iters = 32;
        uint64_t nw = 64 * (sp.threads / 32);
        uint64_t rb = memo_case(&sp, "wml", "h100-pcie", NULL, 4, 0,
                                "tensor, long warps");
        printf("warp memo tensor long warps: %llu of %llu warps recalled, "
               "results identical\n", (unsigned long long)rb,
               (unsigned long long)nw);
        CHECK(rb * 10 >= nw * 9);
    }
    /* what-ifs that move what the memo keys on or waits for: code and
     * constant cache timing, sub-cores, cache geometry and policy, set
     * hashing, the warp-to-sub-core policy */
    static const char *whatif[][3] = {
        {"icache_l1_miss_latency=40", "icache_stream_buffer=0", NULL},
        {"icache_perfect=1", "cc_l1_miss_latency=900", NULL},
        {"subcores_per_sm=2", "l1_size=16384", "l1_assoc=2"},
        {"l2_size=262144", "l2_write_back=0", "l2_set_hash=1"},
        {"assign_policy=shuffle", "l1_write_alloc=1", NULL},
        {"l1_line_bytes=64", "l2_line_bytes=64", "dram_bw=100"},
    };
    static const char *wkinds[] = {"compute", "memory", "shared", "tensor"};
    uint64_t wtotal = 0;
    for (size_t wi = 0; wi < sizeof whatif / sizeof *whatif; wi++)
        for (size_t k = 0; k < sizeof wkinds / sizeof *wkinds; k++) {
            wc_synth_params sp;
            wc_synth_defaults(&sp, wkinds[k]);
            sp.ctas = 40;
            sp.iters = 5;
            char what[160];
            snprintf(what, sizeof what, "%s with %s", wkinds[k],
                     whatif[wi][0]);
            wtotal += memo_case(&sp, "wmw", "h100-pcie", whatif[wi], 3, 0,
                                what);
        }
    printf("warp memo: %zu what-ifs x %zu kinds identical, %llu warps "
           "recalled\n", sizeof whatif / sizeof *whatif,
           sizeof wkinds / sizeof *wkinds, (unsigned long long)wtotal);
    CHECK(wtotal > 0);

    /* the real H100 SXM kernels (third-party traces: ../shared) */
    char rp[512];
    wc_gpu g;
    wc_diag d;
    if (shared_path("data/hw/h100-sxm/traces", rp, sizeof rp) &&
        wc_gpu_load("h100-sxm", &g, &d) == 0) {
        char tmp[] = "/tmp/wc-wmr-XXXXXX";
        CHECK(mkdtemp(tmp) != NULL);
        uint64_t all = 0;
        for (size_t i = 0; i < H100SXM_NTRACES; i++) {
            char dir[640], bin[128];
            snprintf(dir, sizeof dir, "%s/%s", rp, h100sxm_traces[i]);
            snprintf(bin, sizeof bin, "%s/k.wctb", tmp);
            wc_trace *t = NULL, *tb = NULL;
            if (wc_trace_open(dir, &t, &d) != 0)
                fixture_show(&d);
            else
                tb = binary_of(t, bin, &d);
            if (!tb) {
                CHECK(0);
            } else {
                uint64_t rb = 0;
                compare(tb, &g, 0, h100sxm_traces[i], &rb);
                all += rb;
            }
            if (tb)
                wc_trace_close(tb);
            if (t)
                wc_trace_close(t);
            unlink(bin);
        }
        rmdir(tmp);
        printf("warp memo: %zu H100 SXM kernels identical, %llu warps "
               "recalled\n", H100SXM_NTRACES, (unsigned long long)all);
        CHECK(all > 0);
    }
    CHECK_DONE();
}
