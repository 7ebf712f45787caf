/*
 * tests/bench/bench_reader.c - speed of the trace reader (the hot path of
 * the interval model) on a generated trace of about 320 MB: plain text and
 * zstd, MB/s of trace text, warp instructions/s, and peak RSS to show that
 * memory is bounded by live CTAs, not by the trace size.
 *
 * Usage: bench_reader [MB]   (default 320; WARPCAST_BENCH_MB also works)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "wc.h"

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* CPU seconds (user + system) used so far: robust to a busy machine. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* One warp's instruction lines: 70% ALU, 10% each address mode. */
static size_t warp_lines(char *b, size_t cap, unsigned n, uint64_t *s,
                         unsigned cta, unsigned w)
{
    size_t k = 0;
    for (unsigned i = 0; i < n && k + 600 < cap; i++) {
        unsigned pc = (i % 4096) * 16;
        unsigned r = (unsigned)(lcg(s) % 10);
        uint64_t base = 0x7f0000000000ull + ((uint64_t)cta << 20) +
                        ((uint64_t)w << 12) + i * 256u;
        if (r < 7) {
            k += (size_t)snprintf(b + k, cap - k,
                                  "%04x ffffffff 1 R%u FFMA 3 R%u R%u R%u "
                                  "0 0 \n",
                                  pc, (unsigned)(lcg(s) % 200),
                                  (unsigned)(lcg(s) % 200), i % 200,
                                  (i + 3) % 200);
        } else if (r == 7) {
            k += (size_t)snprintf(b + k, cap - k,
                                  "%04x ffffffff 1 R4 LDG.E.64 1 R2 8 1 "
                                  "0x%llx 8 0 \n",
                                  pc, (unsigned long long)base);
        } else if (r == 8) {
            k += (size_t)snprintf(b + k, cap - k,
                                  "%04x ffff0000 0 STG.E 2 R2 R5 4 2 0x%llx",
                                  pc, (unsigned long long)base);
            for (int l = 1; l < 16; l++)
                k += (size_t)snprintf(b + k, cap - k, " %d",
                                      (int)(lcg(s) % 64) - 16);
            k += (size_t)snprintf(b + k, cap - k, " 0 \n");
        } else {
            k += (size_t)snprintf(b + k, cap - k,
                                  "%04x 0000ffff 1 R6 LDS 1 R3 4 0", pc);
            for (int l = 0; l < 16; l++)
                k += (size_t)snprintf(b + k, cap - k, " 0x%llx",
                                      (unsigned long long)(base +
                                                           lcg(s) % 4096));
            k += (size_t)snprintf(b + k, cap - k, " 0 \n");
        }
    }
    return k;
}

#define WARPS 8
#define INSTS 2000

static int generate(const char *path, double mb, uint64_t *bytes)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    unsigned ctas = (unsigned)(mb * 1e6 / (WARPS * INSTS * 76.0)) + 1;
    fprintf(f,
            "-kernel name = _Z5benchPf\n-kernel id = 1\n"
            "-grid dim = (%u,1,1)\n-block dim = (%u,1,1)\n-shmem = 0\n"
            "-nregs = 32\n-binary version = 86\n-cuda stream id = 0\n"
            "-shmem base_addr = 0x00007f0000000000\n"
            "-local mem base_addr = 0x00007e0000000000\n"
            "-nvbit version = 1.7\n-accelsim tracer version = 5\n"
            "-enable lineinfo = 0\n\n#traces format = ...\n\n",
            ctas, WARPS * 32);
    size_t cap = (size_t)INSTS * 640;
    char *b = malloc(cap);
    uint64_t s = 42;
    for (unsigned c = 0; c < ctas; c++) {
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", c);
        for (unsigned w = 0; w < WARPS; w++) {
            fprintf(f, "warp = %u\ninsts = %u\n", w, INSTS);
            size_t k = warp_lines(b, cap, INSTS, &s, c, w);
            fwrite(b, 1, k, f);
            fputc('\n', f);
        }
        fprintf(f, "#END_TB\n\n");
    }
    free(b);
    *bytes = (uint64_t)ftell(f);
    return fclose(f);
}

static int compress_file(const char *in, const char *out)
{
    FILE *fi = fopen(in, "rb"), *fo = fopen(out, "wb");
    if (!fi || !fo)
        return -1;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
    size_t isz = ZSTD_CStreamInSize(), osz = ZSTD_CStreamOutSize();
    char *ib = malloc(isz), *ob = malloc(osz);
    size_t r;
    int last;
    do {
        r = fread(ib, 1, isz, fi);
        last = r < isz;
        ZSTD_inBuffer inb = {ib, r, 0};
        int done;
        do {
            ZSTD_outBuffer outb = {ob, osz, 0};
            size_t rem = ZSTD_compressStream2(cc, &outb, &inb,
                                              last ? ZSTD_e_end
                                                   : ZSTD_e_continue);
            if (ZSTD_isError(rem))
                return -1;
            fwrite(ob, 1, outb.pos, fo);
            done = last ? rem == 0 : inb.pos == inb.size;
        } while (!done);
    } while (!last);
    ZSTD_freeCCtx(cc);
    free(ib);
    free(ob);
    fclose(fi);
    return fclose(fo);
}

/* Read every instruction of every warp; returns warp instructions. */
static int read_all(const char *path, uint64_t *insts, double *secs,
                    double *cpu)
{
    wc_diag d;
    wc_trace *t = NULL;
    double t0 = wc_now(), c0 = cpu_seconds();
    if (wc_trace_open(path, &t, &d) != 0)
        goto fail;
    wc_kreader *r = NULL;
    if (wc_kreader_open(t, 0, &r, &d) != 0)
        goto fail;
    wc_inst in;
    uint64_t n = 0, chk = 0;
    for (;;) {
        wc_cta *c = NULL;
        if (wc_kreader_next(r, &c, &d) != 0)
            goto fail;
        if (!c)
            break;
        /* round-robin over the warps, as a model would interleave them */
        unsigned nw = wc_cta_nwarps(c), live = nw;
        while (live) {
            live = 0;
            for (unsigned w = 0; w < nw; w++) {
                int g = wc_cta_next(c, w, &in, &d);
                if (g < 0)
                    goto fail;
                if (g == 1) {
                    live++;
                    n++;
                    chk += in.addr[5] + in.pc;
                }
            }
        }
        wc_cta_free(c);
    }
    wc_kreader_close(r);
    wc_trace_close(t);
    *secs = wc_now() - t0;
    *cpu = cpu_seconds() - c0;
    *insts = n + (chk == 1); /* keep chk alive */
    return 0;
fail: {
    char msg[2048];
    wc_diag_format(&d, msg, sizeof msg);
    fprintf(stderr, "bench_reader: %s\n", msg);
    return 1;
}
}

int main(int argc, char **argv)
{
    double mb = 320;
    const char *e = getenv("WARPCAST_BENCH_MB");
    if (argc > 1)
        mb = atof(argv[1]);
    else if (e)
        mb = atof(e);
    if (mb <= 0)
        mb = 320;
    const char *tmp = getenv("TMPDIR");
    char dir[512], plain[600], zst[600];
    snprintf(dir, sizeof dir, "%s/wc-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(plain, sizeof plain, "%s/kernel-1.traceg", dir);
    snprintf(zst, sizeof zst, "%s/kernel-2.traceg.zst", dir);
    uint64_t bytes = 0;
    if (generate(plain, mb, &bytes) != 0 || compress_file(plain, zst) != 0) {
        fprintf(stderr, "bench_reader: cannot write %s\n", dir);
        return 1;
    }
    struct stat st;
    stat(zst, &st);
    long rss0 = peak_rss_kb();

    uint64_t n1 = 0, n2 = 0;
    double s1 = 0, s2 = 0, c1 = 0, c2 = 0;
    int rc = read_all(plain, &n1, &s1, &c1);
    long rss1 = peak_rss_kb();
    if (rc == 0)
        rc = read_all(zst, &n2, &s2, &c2);
    long rss2 = peak_rss_kb();
    if (!getenv("WC_KEEP")) unlink(plain);
    unlink(zst);
    rmdir(dir);
    if (rc != 0)
        return 1;
    printf("trace reader (%.0f MB of trace text, %.1f MB zstd, one core)\n",
           (double)bytes / 1e6, (double)st.st_size / 1e6);
    printf("%-6s %8s %8s %8s %10s %14s %8s\n", "input", "wall s", "cpu s",
           "MB/s", "MB/cpu-s", "warp insts/s", "RSS MB");
    printf("%-6s %8.2f %8.2f %8.0f %10.0f %14.3g %8.1f\n", "plain", s1, c1,
           (double)bytes / 1e6 / s1, (double)bytes / 1e6 / c1,
           (double)n1 / s1, (double)rss1 / 1024);
    printf("%-6s %8.2f %8.2f %8.0f %10.0f %14.3g %8.1f\n", "zstd", s2, c2,
           (double)bytes / 1e6 / s2, (double)bytes / 1e6 / c2,
           (double)n2 / s2, (double)rss2 / 1024);
    printf("(RSS before reading: %.1f MB; MB/s counts decompressed text; "
           "zstd includes decompression to a temporary file)\n",
           (double)rss0 / 1024);
    return n1 == n2 ? 0 : 1;
}
