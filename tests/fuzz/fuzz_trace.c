/*
 * tests/fuzz/fuzz_trace.c - libFuzzer target for the trace readers.
 *
 * The input is written to a temporary kernel trace file, opened with
 * wc_trace_open and read completely (every CTA, every warp, interleaved
 * with a skip and a rewind), so the header parser, the TB scan and the line
 * parser all see arbitrary bytes.  The CTA index is exercised too: a
 * reader seeks back and forth before the index exists, wc_trace_cta_insts
 * builds it and its counts must equal the decoded ones, and seeks through
 * it must give the CTAs of the sequential pass.  Each line is also given to
 * wc_trace_parse_line for every tracer version.  Inputs that start with the
 * zstd magic exercise the zstd path (kept small: decompression bombs would
 * only measure the disk).
 */
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <string.h>
#include <unistd.h>

#include "wc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char path[512];

static void cleanup(void)
{
    rmdir(dir);
}

/* Per CTA: decoded warp instructions and the first instruction's PC and
 * line, for comparing seeks with the sequential pass. */
#define MAXC 64
typedef struct ctarec {
    uint64_t insts, pc;
    uint32_t line;
} ctarec;

static ctarec first_of(wc_cta *c)
{
    wc_diag d;
    wc_inst in;
    ctarec x = {0, 0, 0};
    for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
        int g;
        while ((g = wc_cta_next(c, w, &in, &d)) == 1) {
            if (x.insts++ == 0) {
                x.pc = in.pc;
                x.line = in.line;
            }
        }
        if (g != 0)
            x.insts = UINT64_MAX; /* a bad line: not comparable */
        if (g != 0)
            break;
    }
    return x;
}

/* Sequential pass, then seeks (without and with the index) and the counts
 * of wc_trace_cta_insts, which must agree with it. */
static void check_index(const char *p, size_t k)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_kreader *r = NULL;
    ctarec seq[MAXC];
    uint64_t n = 0;
    int ok = 0;
    if (wc_trace_open(p, &t, &d) != 0 || wc_kreader_open(t, k, &r, &d) != 0)
        goto out;
    for (;;) {
        wc_cta *c = NULL;
        if (wc_kreader_next(r, &c, &d) != 0)
            goto out;
        if (!c)
            break;
        if (n < MAXC)
            seq[n] = first_of(c);
        n++;
        wc_cta_free(c);
    }
    ok = 1;
out:
    wc_kreader_close(r);
    wc_trace_close(t);
    if (!ok)
        return;
    /* a fresh trace: seeks before the index, then the index */
    if (wc_trace_open(p, &t, &d) != 0)
        return;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            const uint64_t *cnt;
            uint64_t m;
            int rc = wc_trace_cta_insts(t, k, &cnt, &m, &d);
            assert(rc == 0 && m == n);
            for (uint64_t i = 0; i < m && i < MAXC; i++)
                assert(seq[i].insts == UINT64_MAX || cnt[i] == seq[i].insts);
        }
        if (wc_kreader_open(t, k, &r, &d) != 0)
            break;
        uint64_t tg[] = {n / 2, 0, n, n ? n - 1 : 0, n / 3 + 1};
        for (unsigned i = 0; i < 5; i++) {
            wc_cta *c = NULL;
            int rc = wc_kreader_seek(r, tg[i], &d);
            assert(rc == 0);
            rc = wc_kreader_next(r, &c, &d);
            assert(rc == 0 && (c != NULL) == (tg[i] < n));
            if (c && tg[i] < MAXC) {
                ctarec x = first_of(c);
                assert(x.insts == seq[tg[i]].insts);
                assert(x.pc == seq[tg[i]].pc && x.line == seq[tg[i]].line);
            }
            wc_cta_free(c);
        }
        wc_kreader_close(r);
    }
    wc_trace_close(t);
}

static void read_all(wc_trace *t)
{
    wc_diag d;
    wc_inst in;
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        wc_kreader *r = NULL;
        if (wc_kreader_open(t, k, &r, &d) != 0)
            continue;
        unsigned cta = 0;
        for (;;) {
            wc_cta *c = NULL;
            if (cta == 1 && wc_kreader_skip(r, 1, &d) != 0)
                break;
            if (wc_kreader_next(r, &c, &d) != 0 || !c)
                break;
            unsigned nw = wc_cta_nwarps(c);
            for (unsigned w = 0; w < nw; w++) {
                int g = wc_cta_next(c, w, &in, &d);
                if (g == 1 && w + 1 < nw)
                    (void)wc_cta_next(c, w + 1, &in, &d);
                if (g == 1)
                    wc_cta_rewind(c, w, &d);
                while (wc_cta_next(c, w, &in, &d) == 1)
                    (void)wc_inst_sectors(&in);
            }
            wc_cta_free(c);
            cta++;
        }
        wc_kreader_close(r);
    }
    const char *const *names;
    const uint64_t *counts;
    (void)wc_trace_unknown_ops(t, &names, &counts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(dir, sizeof dir, "/tmp/wc-fuzz-trace-XXXXXX");
        if (!mkdtemp(dir))
            return 0;
        atexit(cleanup);
        snprintf(path, sizeof path, "%s/k.traceg", dir);
    }
    if (size >= 4 && data[0] == 0x28 && data[1] == 0xb5 && size > 256)
        return 0;
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);

    wc_diag d;
    wc_trace *t = NULL;
    if (wc_trace_open(path, &t, &d) == 0)
        read_all(t);
    size_t nk = wc_trace_nkernels(t);
    wc_trace_close(t);
    for (size_t k = 0; k < nk; k++)
        check_index(path, k);

    /* every line through the line parser, all versions */
    const char *p = (const char *)data, *e = p + size;
    wc_inst in;
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
        for (int v = 3; v <= 6; v++)
            (void)wc_trace_parse_line(p, n, v, &in, "fuzz", 1, &d);
        p += n + 1;
    }
    unlink(path);
    return 0;
}
