/*
 * common/util.c - small utilities shared by every layer: whole-file reads,
 * monotonic time, and the deterministic PRNG (xoshiro256** seeded through
 * splitmix64, as recommended by its authors).
 */
/* clock_gettime and CLOCK_MONOTONIC also when built with plain -std=c11 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wc.h"

int wc_read_file(const char *path, char **buf, size_t *len, wc_diag *d)
{
    *buf = NULL;
    if (len)
        *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return wc_diag_set(d, WC_EINPUT, path, 0, 0, "cannot open: %s",
                           strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *p = malloc(cap);
    if (!p)
        goto oom;
    for (;;) {
        if (n + 1 >= cap) {
            char *np = realloc(p, cap * 2);
            if (!np)
                goto oom;
            p = np;
            cap *= 2;
        }
        size_t r = fread(p + n, 1, cap - 1 - n, f);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(p);
        fclose(f);
        return wc_diag_set(d, WC_EINPUT, path, 0, 0, "read error: %s",
                           strerror(e));
    }
    fclose(f);
    p[n] = '\0';
    *buf = p;
    if (len)
        *len = n;
    return WC_OK;
oom:
    free(p);
    fclose(f);
    return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "out of memory");
}

double wc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void wc_rng_seed(wc_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t wc_rng_next(wc_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double wc_rng_uniform(wc_rng *r)
{
    return (double)(wc_rng_next(r) >> 11) * 0x1.0p-53;
}
