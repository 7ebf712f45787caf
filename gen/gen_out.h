/*
 * gen/gen_out.h - private to gen/: the output sink the trace writers share
 * (synth.c, sass_emu.c).  One type, two uses:
 *
 *   file sink    gen_out_open(): buffered (1 MiB), plain or zstd-compressed
 *                (when the build has <zstd.h>; else plain), closed with
 *                gen_out_close(), which ends the zstd frame.
 *   memory sink  a zero-initialised gen_out: writes grow buf[0..n); the
 *                caller reads buf/n, resets n = 0 to reuse it, and frees buf
 *                (or calls gen_out_close()).
 *
 * Errors (write, compression, out of memory) are sticky in err; every later
 * write is dropped and gen_out_close() reports it.
 */
#ifndef WC_GEN_OUT_H
#define WC_GEN_OUT_H

#include <stddef.h>
#include <stdio.h>

typedef struct gen_out {
    FILE *f;   /* NULL: memory sink */
    char *buf; /* pending bytes (file sink) or the text (memory sink) */
    size_t n, cap;
    int zstd;
    int err;   /* 0, or -1 once anything failed */
    void *cctx; /* ZSTD_CCtx * when zstd */
    char *zbuf;
    size_t zcap;
} gen_out;

/* 1 when this build can write zstd (it has <zstd.h> and libzstd). */
int gen_out_have_zstd(void);

/* Opens PATH for writing ("wb"), zstd-compressed when ZSTD is non-zero and
 * the build has zstd.  -1 when PATH cannot be opened or memory runs out
 * (call gen_out_close() either way). */
int gen_out_open(gen_out *o, const char *path, int zstd);

void gen_out_write(gen_out *o, const char *s, size_t n);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void gen_out_printf(gen_out *o, const char *fmt, ...);

/* File sink: hands what is buffered to the file (zstd: ZSTD_e_continue). */
int gen_out_flush(gen_out *o);

/* File sink, a trace of `total` units (thread blocks) of which `done` are
 * written: 1 when the file, at the size those units give it
 * (bytes so far x total / done), would not fit in what the file system
 * holding it still offers, with *need (the projected size) and *avail (the
 * bytes written so far plus the free space) in bytes; 0 when it fits, when
 * done is 0, or when the free space cannot be told.  A projection: the
 * writers ask it after a few units and then now and then, so that a grid
 * too large for the disk stops before filling it. */
int gen_out_room(gen_out *o, unsigned long long done, unsigned long long total,
                 double *need, double *avail);

/* Whether a writer asks gen_out_room after `done` units: after 16, 32,
 * ..., 512 of them and every 1024 after (a zstd stream from 256 on: its
 * first units compress less well than the rest). */
int gen_out_room_due(const gen_out *o, unsigned long long done);

/* Ends the zstd frame, closes the file, frees everything and zeroes *O;
 * 0, or -1 when anything failed since gen_out_open(). */
int gen_out_close(gen_out *o);

#endif
