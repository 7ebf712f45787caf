/*
 * tests/fuzz/fuzz_trace.c - libFuzzer target for the trace readers.
 *
 * The input is written to a temporary kernel trace file, opened with
 * wc_trace_open and read completely (every CTA, every warp, interleaved
 * with a skip and a rewind), so the header parser, the TB scan and the line
 * parser all see arbitrary bytes.  Each line is also given to
 * wc_trace_parse_line for every tracer version.  Inputs that start with the
 * zstd magic exercise the zstd path (kept small: decompression bombs would
 * only measure the disk).
 */
#include <stdio.h>
#include <stdlib.h>
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
    wc_trace_close(t);

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
