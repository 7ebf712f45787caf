/*
 * tests/unit/test_atomics_l2.c - issue 11 mechanisms on synthetic traces,
 * in the interval and the detailed model:
 *   - a reduction (REDG) is performed at the L2 and the kernel waits for
 *     it; a store does not make the kernel wait (docs/model-detailed.md);
 *   - same-address atomics serialize at the L2 (l2_atomic_same_addr_ns):
 *     a kernel whose REDs hit one address per CTA takes longer than one
 *     with distinct addresses, more so with more ops per address, and not
 *     at all with the key 0;
 *   - MUFU latency by function (lat_mufu_*, 0 = lat_sfu).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernel_cycles.h"
#include "wc.h"
#include "im.h"
#include "dm.h"

static char dir[64];

/* ctas CTAs of 4 warps; each warp one `op` of 32 lanes then EXIT.
 * per: lanes per address (1: distinct, 32: one per warp); share: CTAs per
 * address group (same base for `share` consecutive CTAs). */
static int write_trace(const char *op, unsigned ctas, unsigned stride,
                       unsigned share)
{
    char path[128];
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("kernel-1.traceg\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "-kernel name = k\n-kernel id = 1\n-grid dim = (%u,1,1)\n"
               "-block dim = (128,1,1)\n-shmem = 0\n-nregs = 16\n"
               "-binary version = 90\n-cuda stream id = 0\n"
               "-shmem base_addr = 0x00007f6300000000\n"
               "-local mem base_addr = 0x00007f6200000000\n"
               "-nvbit version = 1.7.4\n-accelsim tracer version = 5\n\n",
            ctas);
    for (unsigned c = 0; c < ctas; c++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", c);
        for (unsigned w = 0; w < 4; w++) {
            unsigned long long base =
                0x7f0000000000ull +
                (stride ? ((unsigned long long)c * 4 + w) * 128
                        : (unsigned long long)(c / share) * 128);
            fprintf(f, "warp = %u\ninsts = 2\n", w);
            fprintf(f, "0000 ffffffff 0 %s 2 R2 R7 4 1 0x%llx %u 0\n", op,
                    base, stride);
            fprintf(f, "0010 ffffffff 0 EXIT 0 0 0\n\n");
        }
        fprintf(f, "#END_TB\n\n");
    }
    return fclose(f);
}

static double kern(int mode, const wc_gpu *g, const char *op, unsigned ctas,
                   unsigned stride, unsigned share)
{
    if (write_trace(op, ctas, stride, share) != 0)
        return -1;
    return kernel_cycles(dir, g, mode);
}

#define RED "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"
#define STG "STG.E"

int main(void)
{
    strcpy(dir, "/tmp/wc-atomXXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    wc_diag d;
    wc_gpu g;
    CHECK(wc_gpu_load("h100-sxm", &g, &d) == 0);
    CHECK(g.l2_atomic_same_addr_ns > 0);
    wc_gpu g0 = g;
    CHECK(wc_gpu_set(&g0, "l2_atomic_same_addr_ns=0", &d) == 0);
    static const char *mname[2] = {"interval", "detailed"};

    for (int m = 0; m < 2; m++) {
        /* drain: one CTA, a RED ends later than a store by about the L2
         * round trip; the store does not wait */
        double red = kern(m, &g0, RED, 1, 4, 1);
        double stg = kern(m, &g0, STG, 1, 4, 1);
        fprintf(stderr, "%s: RED %g STG %g (l2_latency %ld)\n", mname[m], red,
                stg, g0.l2_latency);
        CHECK(red > 0 && stg > 0);
        CHECK(red >= stg + 0.5 * (double)(g0.l2_latency - g0.l1_latency));

        /* same address: 132 CTAs; distinct lanes, one address per warp,
         * per CTA, per 4 CTAs */
        double dist = kern(m, &g, RED, 132, 4, 1);
        double cta1 = kern(m, &g, RED, 132, 0, 1);
        double cta4 = kern(m, &g, RED, 132, 0, 4);
        double off = kern(m, &g0, RED, 132, 0, 4);
        double dist0 = kern(m, &g0, RED, 132, 4, 1);
        fprintf(stderr,
                "%s: distinct %g, 128 ops/address %g, 512 ops/address %g "
                "(key 0: %g, distinct %g)\n",
                mname[m], dist, cta1, cta4, off, dist0);
        CHECK(dist > 0 && cta1 > 0 && cta4 > 0 && off > 0);
        CHECK(dist == dist0); /* distinct addresses never wait */
        CHECK(cta1 > dist);
        CHECK(cta4 > cta1);
        /* 512 ops at one address take at least 511 op times after the
         * first */
        double op = g.l2_atomic_same_addr_ns * g.clock_mhz / 1000.0;
        CHECK(cta4 >= 511 * op);
        CHECK(off < cta4 / 4);
    }

    /* MUFU latency by function */
    {
        wc_gpu a;
        CHECK(wc_gpu_load("h100-pcie", &a, &d) == 0);
        ua_core c;
        CHECK(ua_core_decode(&a, &c, &d) == 0);
        wc_inst in;
        memset(&in, 0, sizeof in);
        in.op = (uint16_t)wc_op_lookup("MUFU", 4);
        strcpy(in.opcode, "MUFU.RSQ");
        wc_inst_finish(&in);
        CHECK_EQ_INT((in.mflags & WC_MF_MUFU_MASK) >> WC_MF_MUFU_SHIFT,
                     WC_MUFU_RSQ);
        CHECK_EQ_INT(ua_inst_lat(&c, &in, WC_LAT_sfu), a.lat_sfu);
        CHECK(wc_gpu_set(&a, "lat_mufu_rsq=37", &d) == 0);
        CHECK(ua_core_decode(&a, &c, &d) == 0);
        CHECK_EQ_INT(ua_inst_lat(&c, &in, WC_LAT_sfu), 37);
        strcpy(in.opcode, "MUFU.COS");
        wc_inst_finish(&in);
        CHECK_EQ_INT((in.mflags & WC_MF_MUFU_MASK) >> WC_MF_MUFU_SHIFT,
                     WC_MUFU_SIN);
        CHECK_EQ_INT(ua_inst_lat(&c, &in, WC_LAT_sfu), a.lat_sfu);
        strcpy(in.opcode, "FFMA");
        in.op = (uint16_t)wc_op_lookup("FFMA", 4);
        wc_inst_finish(&in);
        CHECK_EQ_INT(in.mflags & WC_MF_MUFU_MASK, 0);
        wc_gpu s;
        CHECK(wc_gpu_load("h100-sxm", &s, &d) == 0);
        CHECK(s.lat_mufu_ex2 < s.lat_mufu_rsq);
    }

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_DONE();
}
