/*
 * tests/unit/test_synth.c - the synthetic trace generator: every kind
 * writes a trace directory the reader opens, with the header, CTA and warp
 * structure asked for, control bits joined from the .sass listing (a
 * producer right before a consumer of its counter has stall >= 2), EXIT at
 * the end of every warp, repeating loop PCs, and the same bytes for the
 * same seed.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "wc.h"
#include "wc_synth.h"

static char *slurp(const char *path, size_t *n)
{
    char *b = NULL;
    wc_diag d;
    if (wc_read_file(path, &b, n, &d) != 0)
        return NULL;
    return b;
}

static void rmtree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static void check_kind(const char *kind, const char *base)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", base, kind);
    wc_synth_params p;
    wc_synth_defaults(&p, kind);
    p.ctas = 3;
    p.threads = strcmp(kind, "imbalanced") == 0 ? 1024 : 96;
    p.iters = 4;
    p.seed = 7;
    wc_diag d;
    int rc = wc_synth_write(&p, dir, &d);
    if (rc)
        fprintf(stderr, "%s: %s\n", kind, d.msg);
    CHECK(rc == 0);
    wc_trace *t = NULL;
    rc = wc_trace_open(dir, &t, &d);
    if (rc) {
        char b[2200];
        wc_diag_format(&d, b, sizeof b);
        fprintf(stderr, "%s: %s\n", kind, b);
    }
    CHECK(rc == 0);
    if (rc)
        return;
    size_t nk = wc_trace_nkernels(t);
    CHECK(nk >= 1);
    for (size_t k = 0; k < nk; k++) {
        const wc_kernel_info *ki = wc_trace_kernel(t, k);
        CHECK_EQ_INT(ki->tracer_version, 5);
        CHECK_EQ_INT(ki->binary_version, p.binary_version);
        CHECK_EQ_INT(ki->block[0], p.threads);
        CHECK(ki->has_ctrl);
        /* the name as nvcc mangles it: _Z, the length of the function's
         * name, that name (every synthetic kernel's ends in "Kernel"),
         * then its parameters (a wrong length demangles to another name:
         * "_Z17imbalancedFmaKernelPfi" read as imbalancedFmaKern(long
         * double, long, float*, int)) */
        {
            const char *nm = ki->name;
            char *end = NULL;
            long len = strncmp(nm, "_Z", 2) == 0 ? strtol(nm + 2, &end, 10) : 0;
            int ok = len > 6 && end && (size_t)len < strlen(end) &&
                     strncmp(end + len - 6, "Kernel", 6) == 0;
            if (!ok)
                fprintf(stderr, "%s: kernel name %s is mangled wrong\n",
                        kind, nm);
            CHECK(ok);
        }
        wc_kreader *kr = NULL;
        CHECK(wc_kreader_open(t, k, &kr, &d) == 0);
        uint64_t ctas = 0;
        for (;;) {
            wc_cta *c = NULL;
            if (wc_kreader_next(kr, &c, &d) != 0 || !c)
                break;
            ctas++;
            CHECK_EQ_INT(wc_cta_nwarps(c), (p.threads + 31) / 32);
            for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
                wc_inst in;
                uint64_t n = 0, max_pc = 0, repeats = 0;
                int last_exit = 0, ctrl_ok = 1, stall_ok = 1;
                wc_ctrl prev = {0, 0, 0, -1, -1, 0, 0};
                while (wc_cta_next(c, w, &in, &d) == 1) {
                    n++;
                    /* seed 000 sec. 4: a producer whose next instruction
                     * waits on its counter needs stall >= 2 */
                    unsigned bars = 0;
                    if (prev.wbar >= 0)
                        bars |= 1u << prev.wbar;
                    if (prev.rbar >= 0)
                        bars |= 1u << prev.rbar;
                    if ((in.ctrl.wait & bars) && prev.stall < 2) {
                        fprintf(stderr, "%s: stall %u before %s at 0x%llx\n",
                                kind, prev.stall, in.opcode,
                                (unsigned long long)in.pc);
                        stall_ok = 0;
                    }
                    prev = in.ctrl;
                    if (in.pc <= max_pc && n > 1)
                        repeats++;
                    if (in.pc > max_pc)
                        max_pc = in.pc;
                    last_exit = (wc_inst_info(&in)->flags & WC_OPF_EXIT) != 0;
                    if (!in.ctrl.valid)
                        ctrl_ok = 0;
                    if (in.op == WC_OP_UNKNOWN)
                        fprintf(stderr, "%s: unknown opcode %s\n", kind,
                                in.opcode);
                    CHECK(in.op != WC_OP_UNKNOWN);
                }
                CHECK_EQ_INT(n, wc_cta_warp_len(c, w));
                CHECK(last_exit);
                CHECK(ctrl_ok);
                CHECK(stall_ok);
                if (strcmp(kind, "imbalanced") != 0 || w % 4 == 0)
                    CHECK(repeats > 0); /* the loop body ran again */
            }
            wc_cta_free(c);
        }
        wc_kreader_close(kr);
        CHECK(ctas >= 1);
        if (nk == 1)
            CHECK_EQ_INT(ctas, p.ctas);
    }
    wc_trace_close(t);
}

int main(void)
{
    char base[] = "/tmp/warpcast-synth-XXXXXX";
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    for (const char *const *k = wc_synth_kinds(); *k; k++)
        check_kind(*k, base);

    /* determinism: same seed, same bytes; another seed, other addresses */
    wc_synth_params p;
    wc_diag d;
    char a[1100], b[1100], c[1100], pa[1200], pb[1200], pc[1200];
    snprintf(a, sizeof a, "%s/det-a", base);
    snprintf(b, sizeof b, "%s/det-b", base);
    snprintf(c, sizeof c, "%s/det-c", base);
    wc_synth_defaults(&p, "divergent");
    p.ctas = 2;
    p.iters = 3;
    CHECK(wc_synth_write(&p, a, &d) == 0);
    CHECK(wc_synth_write(&p, b, &d) == 0);
    p.seed = 99;
    CHECK(wc_synth_write(&p, c, &d) == 0);
    snprintf(pa, sizeof pa, "%s/kernel-1.traceg", a);
    snprintf(pb, sizeof pb, "%s/kernel-1.traceg", b);
    snprintf(pc, sizeof pc, "%s/kernel-1.traceg", c);
    size_t na = 0, nb = 0, nc = 0;
    char *ta = slurp(pa, &na), *tb = slurp(pb, &nb), *tc = slurp(pc, &nc);
    CHECK(ta && tb && tc);
    if (ta && tb && tc) {
        CHECK(na == nb && memcmp(ta, tb, na) == 0);
        CHECK(na != nc || memcmp(ta, tc, na) != 0);
        /* the tracer's exact header and address compression forms */
        CHECK(strstr(ta, "-accelsim tracer version = 5\n") != NULL);
        CHECK(strstr(ta, "\n#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\n"
                         "insts = ") != NULL);
        CHECK(strstr(ta, " LDG.E 1 R2 4 2 0x") != NULL); /* base+delta */
        CHECK(strstr(ta, " STG.E 2 R6 R8 4 1 0x") != NULL); /* base+stride */
    }
    free(ta);
    free(tb);
    free(tc);

    /* a kernel whose trace no disk holds (2^32 - 1 CTAs of 1024 threads,
     * petabytes): stopped after 16 CTAs with a usage error that says so,
     * the kernel's file removed */
    {
        wc_synth_defaults(&p, "memory");
        p.ctas = 4294967295u;
        p.threads = 1024;
        p.iters = 4;
        char h[1100], ph[1200];
        snprintf(h, sizeof h, "%s/huge", base);
        CHECK_EQ_INT(wc_synth_write(&p, h, &d), WC_EUSAGE);
        CHECK(strstr(d.msg, "would take about") &&
              strstr(d.msg, "stopped after 16 of them"));
        snprintf(ph, sizeof ph, "%s/kernel-1.traceg", h);
        CHECK(access(ph, F_OK) != 0);
    }

    /* zstd output is read back the same */
    wc_synth_defaults(&p, "latency");
    p.zstd = 1;
    char z[1100];
    snprintf(z, sizeof z, "%s/zst", base);
    int rc = wc_synth_write(&p, z, &d);
    if (rc == 0) {
        wc_trace *t = NULL;
        CHECK(wc_trace_open(z, &t, &d) == 0);
        if (t) {
            CHECK_EQ_INT(wc_trace_nkernels(t), 1);
            wc_trace_close(t);
        }
    } else {
        fprintf(stderr, "notice: zstd output not available: %s\n", d.msg);
    }

    /* bad parameters are usage errors */
    wc_synth_defaults(&p, "nonsense");
    CHECK_EQ_INT(wc_synth_write(&p, z, &d), WC_EUSAGE);
    wc_synth_defaults(&p, "compute");
    p.threads = 0;
    CHECK_EQ_INT(wc_synth_write(&p, z, &d), WC_EUSAGE);
    rmtree(base);
    CHECK_DONE();
}
