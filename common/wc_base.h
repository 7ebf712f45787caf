/*
 * common/wc_base.h - diagnostics and the small utilities every layer shares.
 *
 * Part of the common layer's public API; include "wc.h" for all of it.
 * Conventions: functions return 0 on success or a WC_E* code with the
 * wc_diag filled in.  Nothing here prints to stdout or exits.
 */
#ifndef WC_BASE_H
#define WC_BASE_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* Diagnostics                                                               */
/* ------------------------------------------------------------------------ */

enum {
    WC_OK = 0,
    WC_EUSAGE = 1,    /* bad command line / API misuse                       */
    WC_EINPUT = 2,    /* bad input file: file:line:col: error: ...           */
    WC_EINTERNAL = 3, /* out of memory, I/O failure, invariant broken        */
};

typedef struct wc_diag {
    int code;        /* WC_E* */
    char file[1024]; /* "" when not tied to a file                          */
    long line;       /* 1-based, 0 when not tied to a line                  */
    long col;        /* 1-based, 0 when unknown                             */
    char msg[1024];
} wc_diag;

/* Fill d and return code.  printf-style message. */
int wc_diag_set(wc_diag *d, int code, const char *file, long line, long col,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* "FILE:LINE:COL: error: MSG" (parts omitted when unknown). */
void wc_diag_format(const wc_diag *d, char *buf, size_t n);

/* ------------------------------------------------------------------------ */
/* Small utilities shared by every layer                                     */
/* ------------------------------------------------------------------------ */

/* Read a whole file into a malloc'd NUL-terminated buffer. */
int wc_read_file(const char *path, char **buf, size_t *len, wc_diag *d);
/* Monotonic host time in seconds. */
double wc_now(void);
/* FNV-1a over n bytes, continuing from h (WC_FNV1A_INIT to start). */
#define WC_FNV1A_INIT 0xcbf29ce484222325ull
static inline uint64_t wc_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}
/* Deterministic PRNG (splitmix64 / xoshiro256**). */
typedef struct wc_rng {
    uint64_t s[4];
} wc_rng;
void wc_rng_seed(wc_rng *r, uint64_t seed);
uint64_t wc_rng_next(wc_rng *r);
double wc_rng_uniform(wc_rng *r); /* [0, 1) */

#endif /* WC_BASE_H */
