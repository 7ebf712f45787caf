/*
 * tests/bench/bench_reader.c - speed of the trace reader, the hot path of
 * every model.  Three parts, all timed in CPU seconds (user + system) so a
 * busy machine does not skew them:
 *
 *   1. the instruction-line parser alone (wc_trace_parse_line over lines
 *      held in memory), per kind of line: ALU, each address mode, the mix;
 *   2. the whole reader (kreader -> CTAs -> warp streams, round-robin over
 *      the warps) on a generated trace of about 320 MB, plain and zstd,
 *      with peak RSS to show memory is bounded by live CTAs;
 *   3. the per-kernel CTA index: wc_trace_cta_insts (a scan that does not
 *      decode instruction lines) and wc_kreader_seek to the last CTA,
 *      against reaching it with a linear skip.
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

#define WARPS 8    /* per CTA in the generated trace */
#define INSTS 2000 /* per warp */

enum { K_ALU, K_MODE0, K_MODE1, K_MODE2, K_MIX };
static const char *const kind_name[] = {"alu", "mode0", "mode1", "mode2",
                                        "mix"};

/*
 * One instruction line of the given kind.  As in real traces, the PC
 * decides the instruction (opcode, registers, width; for K_MIX also the
 * kind: 70% ALU, 10% each address mode with half the lanes active), and
 * only the mask-dependent addresses differ between warps and iterations.
 */
static size_t one_line(char *b, size_t cap, int kind, unsigned i, uint64_t *s,
                       unsigned cta, unsigned w)
{
    size_t k = 0;
    unsigned slot = i % 4096, pc = slot * 16;
    uint32_t h = (slot + 1) * 2654435761u;
    uint64_t base = 0x7f0000000000ull + ((uint64_t)cta << 20) +
                    ((uint64_t)w << 12) + i * 256u;
    int r = kind;
    if (kind == K_MIX) {
        unsigned x = (h >> 8) % 10;
        r = x < 7 ? K_ALU : x == 7 ? K_MODE1 : x == 8 ? K_MODE2 : K_MODE0;
    }
    unsigned lanes = kind == K_MIX ? 16 : 32;
    const char *mask = kind == K_MIX ? "0000ffff" : "ffffffff";
    if (r == K_ALU) {
        k += (size_t)snprintf(b + k, cap - k,
                              "%04x ffffffff 1 R%u FFMA 3 R%u R%u R%u 0 0 \n",
                              pc, h % 200, (h >> 3) % 200, (h >> 11) % 200,
                              (h >> 19) % 200);
    } else if (r == K_MODE1) {
        k += (size_t)snprintf(b + k, cap - k,
                              "%04x ffffffff 1 R4 LDG.E.64 1 R2 8 1 0x%llx 8 "
                              "0 \n",
                              pc, (unsigned long long)base);
    } else if (r == K_MODE2) {
        k += (size_t)snprintf(b + k, cap - k,
                              "%04x %s 0 STG.E 2 R2 R5 4 2 0x%llx", pc,
                              kind == K_MIX ? "ffff0000" : mask,
                              (unsigned long long)base);
        for (unsigned l = 1; l < lanes; l++)
            k += (size_t)snprintf(b + k, cap - k, " %d",
                                  (int)(lcg(s) % 64) - 16);
        k += (size_t)snprintf(b + k, cap - k, " 0 \n");
    } else {
        k += (size_t)snprintf(b + k, cap - k, "%04x %s 1 R6 LDS 1 R3 4 0",
                              pc, mask);
        for (unsigned l = 0; l < lanes; l++)
            k += (size_t)snprintf(
                b + k, cap - k, kind == K_MIX ? " 0x%llx" : " 0x%016llx",
                (unsigned long long)(base + lcg(s) % 4096));
        k += (size_t)snprintf(b + k, cap - k, " 0 \n");
    }
    return k;
}

/* ---- 1. the line parser ------------------------------------------------------- */

/* Lines in the order a round-robin reader meets them: WARPS warps, each
 * PC once per warp in turn (cold: every line a new PC, so no line repeats
 * the instruction of an earlier one). */
static int bench_parser(int kind, int cold)
{
    enum { NLINES = 4096 };
    size_t cap = (size_t)NLINES * 700, len = 0;
    char *buf = malloc(cap);
    size_t *off = malloc((NLINES + 1) * sizeof *off);
    if (!buf || !off)
        return 1;
    uint64_t s = 7;
    for (unsigned i = 0; i < NLINES; i++) {
        off[i] = len;
        len += cold ? one_line(buf + len, cap - len, kind, i, &s, 1, 2)
                    : one_line(buf + len, cap - len, kind, i / WARPS, &s, 1,
                               i % WARPS);
    }
    off[NLINES] = len;
    wc_inst in;
    wc_diag d;
    uint64_t lines = 0, bytes = 0, chk = 0;
    double c0 = cpu_seconds(), c;
    do {
        for (unsigned i = 0; i < NLINES; i++) {
            size_t n = off[i + 1] - off[i] - 1; /* without the newline */
            if (wc_trace_parse_line(buf + off[i], n, 5, &in, "bench", 1,
                                    &d) != 0) {
                char msg[2048];
                wc_diag_format(&d, msg, sizeof msg);
                fprintf(stderr, "bench_reader: %s\n", msg);
                return 1;
            }
            chk += in.addr[3] + in.op;
        }
        lines += NLINES;
        bytes += len;
    } while ((c = cpu_seconds() - c0) < 0.4);
    printf("%-5s%s %10.1f %12.3g %10.0f%s\n", kind_name[kind], cold ? "*" : " ",
           (double)len / NLINES, (double)lines / c, (double)bytes / 1e6 / c,
           chk == 1 ? " " : "");
    free(buf);
    free(off);
    return 0;
}

/* ---- 2. the reader -------------------------------------------------------------- */

static int generate(const char *path, double mb, uint64_t *bytes,
                    unsigned *nctas)
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
            size_t k = 0;
            for (unsigned i = 0; i < INSTS; i++)
                k += one_line(b + k, cap - k, K_MIX, i, &s, c, w);
            fwrite(b, 1, k, f);
            fputc('\n', f);
        }
        fprintf(f, "#END_TB\n\n");
    }
    free(b);
    *bytes = (uint64_t)ftell(f);
    *nctas = ctas;
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

static int fail(const wc_diag *d)
{
    char msg[2048];
    wc_diag_format(d, msg, sizeof msg);
    fprintf(stderr, "bench_reader: %s\n", msg);
    return 1;
}

/* Read every instruction of every warp; returns warp instructions. */
static int read_all(const char *path, uint64_t *insts, double *secs,
                    double *cpu)
{
    wc_diag d;
    wc_trace *t = NULL;
    double t0 = wc_now(), c0 = cpu_seconds();
    if (wc_trace_open(path, &t, &d) != 0)
        return fail(&d);
    wc_kreader *r = NULL;
    if (wc_kreader_open(t, 0, &r, &d) != 0)
        return fail(&d);
    wc_inst in;
    uint64_t n = 0, chk = 0;
    for (;;) {
        wc_cta *c = NULL;
        if (wc_kreader_next(r, &c, &d) != 0)
            return fail(&d);
        if (!c)
            break;
        /* round-robin over the warps, as a model would interleave them */
        unsigned nw = wc_cta_nwarps(c), live = nw;
        while (live) {
            live = 0;
            for (unsigned w = 0; w < nw; w++) {
                int g = wc_cta_next(c, w, &in, &d);
                if (g < 0)
                    return fail(&d);
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
}

/* ---- 3. CTA index and seek ------------------------------------------------------ */

/* First instruction of the last CTA reached by seek (index built first by
 * wc_trace_cta_insts) and by a linear skip on a fresh trace. */
static int bench_index(const char *path, uint64_t bytes, unsigned nctas)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_kreader *r = NULL;
    wc_cta *c = NULL;
    wc_inst a, b;
    const uint64_t *cnt;
    uint64_t n = 0, tot = 0;

    double c0 = cpu_seconds();
    if (wc_trace_open(path, &t, &d) != 0 ||
        wc_trace_cta_insts(t, 0, &cnt, &n, &d) != 0)
        return fail(&d);
    double cidx = cpu_seconds() - c0;
    for (uint64_t i = 0; i < n; i++)
        tot += cnt[i];
    c0 = cpu_seconds();
    const int reps = 1000;
    for (int i = 0; i < reps; i++) {
        if (wc_kreader_open(t, 0, &r, &d) != 0 ||
            wc_kreader_seek(r, nctas - 1, &d) != 0 ||
            wc_kreader_next(r, &c, &d) != 0 || !c ||
            wc_cta_next(c, 0, &a, &d) != 1)
            return fail(&d);
        wc_cta_free(c);
        wc_kreader_close(r);
    }
    double cseek = (cpu_seconds() - c0) / reps;
    wc_trace_close(t);

    c0 = cpu_seconds();
    if (wc_trace_open(path, &t, &d) != 0 ||
        wc_kreader_open(t, 0, &r, &d) != 0 ||
        wc_kreader_skip(r, nctas - 1, &d) != 0 ||
        wc_kreader_next(r, &c, &d) != 0 || !c ||
        wc_cta_next(c, 0, &b, &d) != 1)
        return fail(&d);
    double cskip = cpu_seconds() - c0;
    wc_cta_free(c);
    wc_kreader_close(r);
    wc_trace_close(t);

    printf("CTA index: %llu CTAs, %.3g warp insts, %.3f cpu s "
           "(%.0f MB/cpu-s)\n",
           (unsigned long long)n, (double)tot, cidx,
           (double)bytes / 1e6 / cidx);
    printf("last CTA: seek %.1f us, linear skip %.3f s (same first "
           "instruction: %s)\n",
           cseek * 1e6, cskip, a.pc == b.pc && a.imm == b.imm ? "yes" : "NO");
    return n == nctas && a.pc == b.pc ? 0 : 1;
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

    printf("line parser (wc_trace_parse_line, lines in memory, one core)\n");
    printf("%-6s %10s %12s %10s\n", "kind", "bytes/line", "lines/cpu-s",
           "MB/cpu-s");
    for (int k = K_ALU; k <= K_MIX; k++)
        if (bench_parser(k, 0) != 0)
            return 1;
    if (bench_parser(K_ALU, 1) != 0 || bench_parser(K_MIX, 1) != 0)
        return 1;
    printf("(* every line a new PC: no instruction text repeats)\n");

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
    unsigned nctas = 0;
    if (generate(plain, mb, &bytes, &nctas) != 0 ||
        compress_file(plain, zst) != 0) {
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
    if (rc == 0) {
        printf("\ntrace reader (%.0f MB of trace text, %.1f MB zstd, one "
               "core)\n",
               (double)bytes / 1e6, (double)st.st_size / 1e6);
        printf("%-6s %8s %8s %8s %10s %16s %8s\n", "input", "wall s",
               "cpu s", "MB/s", "MB/cpu-s", "warp insts/cpu-s", "RSS MB");
        printf("%-6s %8.2f %8.2f %8.0f %10.0f %16.3g %8.1f\n", "plain", s1,
               c1, (double)bytes / 1e6 / s1, (double)bytes / 1e6 / c1,
               (double)n1 / c1, (double)rss1 / 1024);
        printf("%-6s %8.2f %8.2f %8.0f %10.0f %16.3g %8.1f\n", "zstd", s2,
               c2, (double)bytes / 1e6 / s2, (double)bytes / 1e6 / c2,
               (double)n2 / c2, (double)rss2 / 1024);
        printf("(RSS before reading: %.1f MB; MB/s counts decompressed "
               "text; zstd includes decompression to a temporary file)\n\n",
               (double)rss0 / 1024);
        rc = bench_index(plain, bytes, nctas);
    }
    if (rc == 0) { /* 4. the binary form of the same trace */
        char bin[600];
        snprintf(bin, sizeof bin, "%s/kernel-1.wct", dir);
        wc_diag d;
        wc_trace *t = NULL;
        wc_convert_stats cs;
        double c0 = cpu_seconds();
        rc = wc_trace_open(plain, &t, &d);
        if (rc == 0)
            rc = wc_trace_convert(t, bin, &cs, &d);
        wc_trace_close(t);
        double cconv = cpu_seconds() - c0;
        uint64_t n3 = 0;
        double s3 = 0, c3 = 0;
        if (rc == 0)
            rc = read_all(bin, &n3, &s3, &c3);
        if (rc == 0) {
            printf("binary form (warpcast convert: %.1f MB, %.2f bytes per "
                   "warp instruction, converted in %.2f cpu-s)\n",
                   (double)cs.out_bytes / 1e6,
                   (double)cs.out_bytes / (double)(n3 ? n3 : 1), cconv);
            printf("%-6s %8s %8s %16s\n", "input", "wall s", "cpu s",
                   "M warp insts/cpu-s");
            printf("%-6s %8.2f %8.2f %16.1f\n", "text", s1, c1,
                   (double)n1 / c1 / 1e6);
            printf("%-6s %8.2f %8.2f %16.1f\n", "binary", s3, c3,
                   (double)n3 / c3 / 1e6);
            printf("binary / text read rate: %.1fx\n\n", c1 / c3);
            if (n3 != n1)
                rc = 1;
        } else {
            fail(&d);
        }
        unlink(bin);
    }
    if (!getenv("WC_KEEP"))
        unlink(plain);
    unlink(zst);
    rmdir(dir);
    if (rc != 0)
        return 1;
    return n1 == n2 ? 0 : 1;
}
