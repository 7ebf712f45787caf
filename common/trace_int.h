/*
 * common/trace_int.h - private to the trace reader files (trace*.c).
 *
 * trace_io.c gives byte sources: the head of a plain or zstd file (headers
 * are read without decompressing the rest) and a file descriptor for
 * pread() over the whole decompressed text (zstd goes to an unlinked
 * temporary file once, so memory stays bounded by buffers, not the trace).
 */
#ifndef WC_TRACE_INT_H
#define WC_TRACE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "wc.h"

/* Kinds of input a path can hold, by content (magic bytes) and name. */
enum {
    WCT_PLAIN = 0, /* text                                  */
    WCT_ZSTD = 1,  /* zstd frames                           */
    WCT_XZ = 2,    /* xz (not supported: no liblzma)        */
};

/* Sniff the first bytes of path: WCT_PLAIN/ZSTD/XZ, or -1 if unreadable. */
int wct_sniff(const char *path);

/* First bytes of path, decompressed when zstd: at most max bytes into a
 * malloc'd NUL-terminated *buf; *len its length; *whole = 1 when that is
 * the entire content. */
int wct_head(const char *path, int kind, size_t max, char **buf, size_t *len,
             int *whole, wc_diag *d);

/* A descriptor for pread() over the text of path (kind as above); zstd is
 * decompressed once into an unlinked temporary file.  *size = text bytes. */
int wct_open(const char *path, int kind, int *fd, uint64_t *size, wc_diag *d);

#endif
