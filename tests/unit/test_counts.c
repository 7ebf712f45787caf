/*
 * tests/unit/test_counts.c - the per-kernel counts (uarch/ua_mem.h,
 * predict --format json "counts") of the interval and the detailed model.
 *
 * Both models take what a memory instruction does from uarch/ (class,
 * coalescing, wavefronts), so the order-independent counts -- CTAs per SM,
 * warp instructions per unit, global requests and sectors, shared-memory
 * wavefronts, atomics -- must be EQUAL on every trace; only the hit counts
 * and DRAM bytes may differ (access order).  Checked for every bundled GPU
 * config on every synthetic kind (small sizes), and on the real traces of
 * ../shared on the trace's own GPU (the long ones on a window of their
 * first CTAs, run identically by both models, to keep the test fast).
 *
 * Also the write-policy what-if: --set l1_write_alloc=1 --set
 * l1_write_back=1 must move both models on a store-heavy trace (the
 * interval model ignored the L1 policy keys before the uarch layer).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dm.h"
#include "im.h"
#include "ua.h"
#include "wc.h"
#include "wc_synth.h"

static void print_counts(const char *who, const ua_counts *c)
{
    fprintf(stderr, "  %-8s ctas/sm %ld requests %llu sectors %llu "
                    "wavefronts %llu atomics %llu units",
            who, c->ctas_per_sm, (unsigned long long)c->global_requests,
            (unsigned long long)c->global_sectors,
            (unsigned long long)c->shared_wavefronts,
            (unsigned long long)c->atomics);
    for (int u = 0; u < WC_UNIT_COUNT; u++)
        if (c->warp_insts_by_unit[u])
            fprintf(stderr, " %s=%llu", wc_unit_name(u),
                    (unsigned long long)c->warp_insts_by_unit[u]);
    fprintf(stderr, "\n");
}

/* Both models on every kernel of the trace at path on g (a CTA window of
 * cta_count CTAs when > 0); returns the number of kernels compared. */
static int compare(const char *path, const wc_gpu *g, uint64_t cta_count)
{
    wc_diag d;
    wc_trace *t = NULL;
    if (wc_trace_open(path, &t, &d) != 0) {
        fprintf(stderr, "%s: %s\n", path, d.msg);
        CHECK(0);
        return 0;
    }
    int n = 0;
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        im_options io;
        dm_options dopt;
        im_options_default(&io);
        dm_options_default(&dopt);
        io.cta_count = dopt.cta_count = cta_count;
        im_result ir;
        dm_result dr;
        int a = im_run_kernel(t, k, g, &io, &ir, &d);
        if (a)
            fprintf(stderr, "%s on %s: interval: %s\n", path, g->name, d.msg);
        CHECK(a == 0);
        int b = dm_run_kernel(t, k, g, &dopt, &dr, &d);
        if (b)
            fprintf(stderr, "%s on %s: detailed: %s\n", path, g->name, d.msg);
        CHECK(b == 0);
        if (a == 0 && b == 0) {
            int same = ua_counts_same_order_free(&ir.counts, &dr.counts);
            CHECK(same);
            CHECK_EQ_INT(ir.warp_insts, dr.warp_insts);
            CHECK(ir.counts.ctas_per_sm > 0);
            if (!same) {
                fprintf(stderr, "%s k%zu on %s: counts differ\n", path, k,
                        g->name);
                print_counts("interval", &ir.counts);
                print_counts("detailed", &dr.counts);
            }
            uint64_t sum = 0;
            for (int u = 0; u < WC_UNIT_COUNT; u++)
                sum += ir.counts.warp_insts_by_unit[u];
            CHECK_EQ_INT(sum, ir.warp_insts);
            n++;
        }
        if (a == 0)
            im_result_free(&ir);
        if (b == 0)
            dm_result_free(&dr);
    }
    wc_trace_close(t);
    return n;
}

static unsigned cap(unsigned v, unsigned max)
{
    return v && v < max ? v : max;
}

/* Every synthetic kind on every bundled GPU. */
static void synthetic(const char *base)
{
    char **names = NULL;
    size_t ng = wc_gpu_list(&names);
    CHECK(ng >= 10);
    const char *const *kinds = wc_synth_kinds();
    int kernels = 0, kinds_seen = 0;
    for (size_t i = 0; kinds[i]; i++, kinds_seen++) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s/%s", base, kinds[i]);
        wc_synth_params p;
        wc_synth_defaults(&p, kinds[i]);
        p.ctas = cap(p.ctas, 6);
        p.threads = cap(p.threads, 128);
        p.iters = cap(p.iters, 3);
        wc_diag d;
        CHECK(wc_synth_write(&p, dir, &d) == 0);
        for (size_t gi = 0; gi < ng; gi++) {
            wc_gpu g;
            if (wc_gpu_load(names[gi], &g, &d) != 0) {
                fprintf(stderr, "%s: %s\n", names[gi], d.msg);
                CHECK(0);
                continue;
            }
            kernels += compare(dir, &g, 0);
        }
    }
    CHECK(kinds_seen >= 10);
    fprintf(stderr, "synthetic: %d kinds x %zu GPUs, %d kernels compared\n",
            kinds_seen, ng, kernels);
    CHECK(kernels >= kinds_seen * (int)ng);
    for (size_t gi = 0; gi < ng; gi++)
        free(names[gi]);
    free(names);
}

/* Every trace directory under the shared folder rel. */
static void real(const char *rel, uint64_t window)
{
    char dir[512];
    if (!shared_path(rel, dir, sizeof dir))
        return;
    DIR *dp = opendir(dir);
    CHECK(dp != NULL);
    if (!dp)
        return;
    int traces = 0;
    struct dirent *e;
    char **list = NULL;
    size_t nl = 0;
    while ((e = readdir(dp)) != NULL) {
        char path[1200], kl[1300];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(kl, sizeof kl, "%s/kernelslist.g", path);
        if (access(kl, R_OK) != 0)
            continue;
        char **nlist = realloc(list, (nl + 1) * sizeof *list);
        if (!nlist)
            break;
        list = nlist;
        list[nl++] = strdup(path);
    }
    closedir(dp);
    for (size_t i = 0; i < nl; i++) {
        wc_diag d;
        wc_trace *t = NULL;
        if (wc_trace_open(list[i], &t, &d) != 0) {
            fprintf(stderr, "%s: %s\n", list[i], d.msg);
            CHECK(0);
            free(list[i]);
            continue;
        }
        wc_gpu g;
        int rc = wc_gpu_load(
            wc_gpu_for_binary(wc_trace_kernel(t, 0)->binary_version), &g, &d);
        wc_trace_close(t);
        CHECK(rc == 0);
        if (rc == 0) {
            CHECK(compare(list[i], &g, window) >= 1);
            traces++;
        }
        free(list[i]);
    }
    free(list);
    fprintf(stderr, "%s: %d traces compared\n", dir, traces);
    CHECK(traces >= 1);
}

/* The L1 write policy moves both models on a store-heavy trace. */
static void write_policy(const char *base)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/memory-wp", base);
    wc_synth_params p;
    wc_synth_defaults(&p, "memory");
    p.ctas = 256;
    p.threads = 256;
    wc_diag d;
    CHECK(wc_synth_write(&p, dir, &d) == 0);
    wc_trace *t = NULL;
    CHECK(wc_trace_open(dir, &t, &d) == 0);
    if (!t)
        return;
    wc_gpu g0, g1;
    const char *gn = wc_gpu_for_binary(wc_trace_kernel(t, 0)->binary_version);
    CHECK(wc_gpu_load(gn, &g0, &d) == 0);
    /* an L2 smaller than the streamed data: stores reach DRAM */
    CHECK(wc_gpu_set(&g0, "l2_size=1048576", &d) == 0);
    g1 = g0;
    CHECK(wc_gpu_set(&g1, "l1_write_alloc=1", &d) == 0);
    CHECK(wc_gpu_set(&g1, "l1_write_back=1", &d) == 0);
    im_result i0, i1;
    dm_result d0, d1;
    CHECK(im_run_kernel(t, 0, &g0, NULL, &i0, &d) == 0);
    CHECK(im_run_kernel(t, 0, &g1, NULL, &i1, &d) == 0);
    CHECK(dm_run_kernel(t, 0, &g0, NULL, &d0, &d) == 0);
    CHECK(dm_run_kernel(t, 0, &g1, NULL, &d1, &d) == 0);
    fprintf(stderr,
            "write policy (l1_write_alloc=1 l1_write_back=1): interval %llu "
            "-> %llu, detailed %llu -> %llu\n",
            (unsigned long long)i0.cycles, (unsigned long long)i1.cycles,
            (unsigned long long)d0.cycles, (unsigned long long)d1.cycles);
    /* write-back keeps the stores' sectors out of the L2 and DRAM while
     * their lines stay in the L1: both models get faster (measured:
     * interval 27142 -> 25359, detailed 26592 -> 25665) */
    CHECK(i1.cycles < i0.cycles);
    CHECK(d1.cycles < d0.cycles);
    CHECK(i1.counts.dram_bytes < i0.counts.dram_bytes);
    CHECK(d1.counts.dram_bytes < d0.counts.dram_bytes);
    /* the policy changes no order-independent count */
    CHECK(ua_counts_same_order_free(&i0.counts, &i1.counts));
    CHECK(ua_counts_same_order_free(&i1.counts, &d1.counts));
    im_result_free(&i0);
    im_result_free(&i1);
    dm_result_free(&d0);
    dm_result_free(&d1);
    wc_trace_close(t);
}

int main(void)
{
    char base[] = "/tmp/warpcast-counts-XXXXXX";
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    synthetic(base);
    write_policy(base);
    real("data/traces", 0);
    /* the long hardware traces: the first 264 CTAs (two waves of 132 SMs) */
    real("data/hw/h100-sxm/traces", 264);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    CHECK_DONE();
}
