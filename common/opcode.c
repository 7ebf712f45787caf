/*
 * common/opcode.c - the opcode table (built from opcodes.def), name lookup,
 * and the names of unit classes, memory spaces and latency classes.
 *
 * Lookup: a sorted index over the table, built once (pthread_once, so it is
 * safe from any thread), searched by binary search on the base name.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "wc.h"

static const wc_opinfo op_table[] = {
#define WC_OP(name, unit, lat, space, flags, doc)                              \
    {#name, WC_UNIT_##unit, WC_LAT_##lat, WC_SPACE_##space, (uint16_t)(flags), \
     doc},
#include "opcodes.def"
#undef WC_OP
};

#define OP_N (sizeof op_table / sizeof op_table[0])

static uint16_t op_sorted[OP_N - 1]; /* indices 1.., sorted by name */
static pthread_once_t op_once = PTHREAD_ONCE_INIT;

static int cmp_idx(const void *a, const void *b)
{
    uint16_t ia = *(const uint16_t *)a, ib = *(const uint16_t *)b;
    return strcmp(op_table[ia].name, op_table[ib].name);
}

static void op_init(void)
{
    for (size_t i = 1; i < OP_N; i++)
        op_sorted[i - 1] = (uint16_t)i;
    qsort(op_sorted, OP_N - 1, sizeof op_sorted[0], cmp_idx);
}

size_t wc_op_count(void)
{
    return OP_N;
}

const wc_opinfo *wc_op_info(unsigned op)
{
    return op < OP_N ? &op_table[op] : &op_table[WC_OP_UNKNOWN];
}

/* strcmp of the n bytes at s (no NUL) against the NUL-terminated t. */
static int cmp_n(const char *s, size_t n, const char *t)
{
    size_t i = 0;
    for (; i < n && t[i]; i++) {
        if (s[i] != t[i])
            return (unsigned char)s[i] < (unsigned char)t[i] ? -1 : 1;
    }
    if (i < n)
        return 1;
    return t[i] ? -1 : 0;
}

unsigned wc_op_lookup(const char *name, size_t len)
{
    if (!name)
        return WC_OP_UNKNOWN;
    const char *dot = memchr(name, '.', len);
    if (dot)
        len = (size_t)(dot - name);
    if (len == 0)
        return WC_OP_UNKNOWN;
    pthread_once(&op_once, op_init);
    size_t lo = 0, hi = OP_N - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_n(name, len, op_table[op_sorted[mid]].name);
        if (c == 0)
            return op_sorted[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return WC_OP_UNKNOWN;
}

const char *wc_unit_name(int unit)
{
    static const char *const names[] = {
#define X(e, s) s,
        WC_UNITS(X)
#undef X
    };
    return unit >= 0 && unit < WC_UNIT_COUNT ? names[unit] : "?";
}

const char *wc_space_name(int space)
{
    static const char *const names[] = {
#define X(e, s) s,
        WC_SPACES(X)
#undef X
    };
    return space >= 0 && space < WC_SPACE_COUNT ? names[space] : "?";
}

const char *wc_latclass_name(int lc)
{
    static const char *const names[] = {
#define X(c) #c,
        WC_LATCLASSES(X)
#undef X
    };
    return lc >= 0 && lc < WC_LAT_COUNT ? names[lc] : "?";
}
