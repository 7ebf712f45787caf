/*
 * tests/fuzz/fuzz_models.c - libFuzzer target for the three models under
 * random legal configs (issue 12).
 *
 * Once per process a few small traces are generated (gen/wc_synth.h) into
 * a temporary folder (removed at exit).  Each input picks a trace kind and
 * a mode (interval, detailed, hybrid), then sets up to 8 keys of the key
 * table at once, each to a value inside its bounds (its low end, high end,
 * default, or a point between skewed towards the low end).  The run must
 * end in WC_OK with cycles > 0, or in WC_EINPUT with a message; anything
 * else (WC_EINTERNAL, the detailed model's cycle cap, a crash) aborts.
 *
 * Input bytes: [kind] [mode] then groups of 4: [key hi] [key lo] [how] [x].
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dm.h"
#include "im.h"
#include "smp.h"
#include "wc.h"
#include "wc_synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const kinds[] = {"compute", "memory", "shared",
                                    "divergent", "chase", "mixed"};
#define NKINDS (sizeof kinds / sizeof kinds[0])
static char dirs[NKINDS][192];
static char root[128];
static wc_gpu base;
static int ready;

static void cleanup(void)
{
    char p[320];
    for (size_t i = 0; i < NKINDS; i++) {
        if (!dirs[i][0])
            continue;
        static const char *const files[] = {"kernelslist.g", "kernel-1.traceg",
                                            "kernel-1.sass"};
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            if (snprintf(p, sizeof p, "%s/%s", dirs[i], files[f]) <
                (int)sizeof p)
                unlink(p);
        }
        rmdir(dirs[i]);
    }
    if (root[0])
        rmdir(root);
}

static void setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/wc-fuzz-modelsXXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        abort();
    atexit(cleanup);
    wc_diag d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < NKINDS; i++) {
        wc_synth_params p;
        wc_synth_defaults(&p, kinds[i]);
        p.ctas = 3;
        p.threads = 64;
        p.iters = 2;
        p.seed = 1;
        snprintf(dirs[i], sizeof dirs[i], "%s/%s", root, kinds[i]);
        if (wc_synth_write(&p, dirs[i], &d) != 0) {
            fprintf(stderr, "fuzz_models: synth %s: %s\n", kinds[i], d.msg);
            abort();
        }
    }
    if (wc_gpu_load("h100-pcie", &base, &d) != 0) {
        fprintf(stderr, "fuzz_models: %s\n", d.msg);
        abort();
    }
    ready = 1;
}

static double pick(const wc_key_desc *k, unsigned how, unsigned x)
{
    double v;
    switch (how % 4) {
    case 0: v = k->lo; break;
    case 1: v = k->hi; break;
    case 2: v = k->def; break;
    default: {
        double f = (double)x / 255.0;
        v = k->lo + (k->hi - k->lo) * f * f * f * f;
    }
    }
    if (k->type == WC_KT_INT)
        v = floor(v);
    if (v < k->lo)
        v = k->lo;
    if (v > k->hi)
        v = k->hi;
    return v;
}

static void check(int rc, uint64_t cycles, const wc_diag *d, const char *m)
{
    if (rc == WC_OK && cycles > 0)
        return;
    if (rc == WC_EINPUT && d->msg[0])
        return;
    fprintf(stderr, "fuzz_models: %s: rc %d cycles %llu: %s\n", m, rc,
            (unsigned long long)cycles, d->msg);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ready)
        setup();
    if (size < 2)
        return 0;
    size_t kind = data[0] % NKINDS;
    unsigned mode = data[1] % 3u;
    wc_gpu *g = malloc(sizeof *g);
    if (!g)
        return 0;
    *g = base;
    size_t nk;
    const wc_key_desc *keys = wc_keys(&nk);
    wc_diag d;
    memset(&d, 0, sizeof d);
    for (size_t i = 2, n = 0; i + 4 <= size && n < 8; i += 4, n++) {
        const wc_key_desc *k =
            &keys[((size_t)data[i] << 8 | data[i + 1]) % nk];
        if (k->type == WC_KT_STR)
            continue;
        double v = pick(k, data[i + 2], data[i + 3]);
        if (getenv("WC_FUZZ_VERBOSE")) /* replaying an artifact: its config */
            fprintf(stderr, "fuzz_models: kind %zu mode %u set %s=%.17g\n",
                    kind, mode, k->name, v);
        if (wc_gpu_set_num(g, k->name, v, &d) != 0) {
            fprintf(stderr, "fuzz_models: set %s: %s\n", k->name, d.msg);
            abort(); /* a value inside the bounds must be accepted */
        }
    }
    wc_trace *t = NULL;
    if (wc_trace_open(dirs[kind], &t, &d) != 0) {
        fprintf(stderr, "fuzz_models: %s\n", d.msg);
        abort();
    }
    memset(&d, 0, sizeof d);
    int rc;
    if (mode == 0) {
        im_options io;
        im_options_default(&io);
        im_result r;
        memset(&r, 0, sizeof r);
        rc = im_run_kernel(t, 0, g, &io, &r, &d);
        check(rc, rc ? 1 : r.cycles, &d, "interval");
        if (rc == 0) {
            /* the warp memo is speed only: the walk of every warp gives
             * the same result under any config */
            im_result r2;
            memset(&r2, 0, sizeof r2);
            io.no_warp_memo = 1;
            int rc2 = im_run_kernel(t, 0, g, &io, &r2, &d);
            if (rc2 != 0 || r2.cycles != r.cycles ||
                r2.warp_insts != r.warp_insts ||
                memcmp(&r2.counts, &r.counts, sizeof r.counts) != 0) {
                fprintf(stderr,
                        "fuzz_models: interval: warp memo on %llu cycles, "
                        "off %llu (rc %d)\n",
                        (unsigned long long)r.cycles,
                        (unsigned long long)r2.cycles, rc2);
                abort();
            }
            im_result_free(&r2);
            im_result_free(&r);
        }
    } else if (mode == 1) {
        dm_options o;
        dm_options_default(&o);
        o.max_cycles = (uint64_t)1 << 30;
        dm_result r;
        memset(&r, 0, sizeof r);
        rc = dm_run_kernel(t, 0, g, &o, &r, &d);
        check(rc, rc ? 1 : r.cycles, &d, "detailed");
        if (rc == 0) {
            /* the shortcuts (skipped stages, sleeping SMs, jumps) are speed
             * only: the other setting gives the same cycles, instructions
             * and stall counts under any config */
            dm_result r2;
            memset(&r2, 0, sizeof r2);
            g->dm_shortcuts = !g->dm_shortcuts;
            int rc2 = dm_run_kernel(t, 0, g, &o, &r2, &d);
            int same = rc2 == 0 && r2.cycles == r.cycles &&
                       r2.warp_insts == r.warp_insts &&
                       r2.issue_cycles == r.issue_cycles;
            for (int s = 0; same && s < DM_STALL_COUNT; s++)
                same = r2.stall[s] == r.stall[s];
            if (!same) {
                fprintf(stderr,
                        "fuzz_models: detailed: dm_shortcuts %d gives %llu "
                        "cycles, %d gives %llu (rc %d)\n",
                        !g->dm_shortcuts, (unsigned long long)r.cycles,
                        (int)g->dm_shortcuts, (unsigned long long)r2.cycles, rc2);
                abort();
            }
            if (rc2 == 0)
                dm_result_free(&r2);
            dm_result_free(&r);
        }
    } else {
        /* the fuzz kernels are small: an odd-sized input samples them
         * anyway (no small-kernel fallback), on one thread and then on two,
         * which must agree to the cycle */
        smp_kernel_result rr[2];
        for (int j = 0; j < 2; j++) {
            smp_options so;
            smp_options_default(&so);
            if (size & 1)
                so.small_kernel_insts = 1;
            so.jobs = j + 1;
            smp_ctx *c = NULL;
            memset(&rr[j], 0, sizeof rr[j]);
            rc = smp_ctx_create(&so, &c, &d);
            if (rc == 0) {
                rc = smp_ctx_run(c, t, 0, g, &rr[j], &d);
                check(rc, rc ? 1 : rr[j].cycles, &d, "hybrid");
            } else {
                check(rc, 1, &d, "hybrid create");
            }
            smp_ctx_free(c);
            if (rc != 0)
                break;
        }
        if (rc == 0 && (rr[0].cycles != rr[1].cycles ||
                        rr[0].has_ci != rr[1].has_ci ||
                        rr[0].ci95[0] != rr[1].ci95[0] ||
                        rr[0].ci95[1] != rr[1].ci95[1])) {
            fprintf(stderr,
                    "fuzz_models: hybrid: jobs 1 gives %llu cycles, jobs 2 "
                    "%llu\n",
                    (unsigned long long)rr[0].cycles,
                    (unsigned long long)rr[1].cycles);
            abort();
        }
    }
    wc_trace_close(t);
    free(g);
    return 0;
}
