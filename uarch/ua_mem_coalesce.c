/*
 * uarch/ua_mem_coalesce.c - coalescing of a warp memory access into cache
 * lines and sectors (seed 000 section 6: the Pending Request Table that
 * tracks intra-warp coalescing; seed 003: the sub-core coalescer handles
 * one distinct line per cycle).  Pure functions, no state.  Used by both
 * models (model/im_mem.c, detailed/mem_unit.c).
 */
#include "ua.h"
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Add sector s of line la to out[0..*n): merge with an existing line. */
static void add_sector(ua_line *out, unsigned *n, uint64_t la, unsigned s)
{
    for (unsigned i = *n; i-- > 0;) {
        if (out[i].addr == la) {
            out[i].sectors |= 1u << s;
            return;
        }
    }
    if (*n >= UA_MAX_LINES)
        return;
    out[*n].addr = la;
    out[*n].sectors = 1u << s;
    (*n)++;
}

/* Fast path (speed only, the same lines and sectors as the lane walk
 * below): the active lanes, in rank order, at a0 + k * s with 0 <= s <= w
 * (coalesced, overlapping or broadcast; an access without addresses is
 * a0 = 0, s = w) touch exactly the bytes [a0, a0 + (cnt - 1) * s + w), so
 * their lines are consecutive, first-touched in address order, and their
 * sectors a contiguous run.  Sets [*lo, *hi] and returns 1 for such an
 * access (nothing wraps past 2^64), else 0. */
static int lane_range(const wc_inst *in, uint64_t w, uint64_t *lo,
                      uint64_t *hi)
{
    uint32_t m = in->mask;
    /* a full warp without counting (the popcount is a table walk where the
     * compiler does not target the instruction) */
    uint64_t cnt = m == 0xffffffffu ? WC_WARP_SIZE : ua_popcount32(m);
    if (!(in->iflags & WC_IF_HAS_ADDR)) {
        *lo = 0;
        *hi = cnt * w - 1;
        return 1;
    }
    const uint64_t *ad = in->addr;
    uint64_t a0 = ad[__builtin_ctz(m)], s = 0;
    m &= m - 1;
    if (m) {
        s = ad[__builtin_ctz(m)] - a0;
        if (s > w)
            return 0;
    }
    if (in->mask == 0xffffffffu && in->lanes_affine) {
        /* the reader decoded every lane as a0 + l * s: nothing to check
         * (on the memory trace this check was a third of ua_coalesce) */
    } else if (in->mask == 0xffffffffu) {
#if defined(__SSE2__)
        /* ad[l] == a0 + l * s (mod 2^64) for every lane, two lanes a
         * vector: every 32-bit half equal */
        __m128i e = _mm_set_epi64x((long long)(a0 + s), (long long)a0);
        __m128i s2 = _mm_set1_epi64x((long long)(2 * s));
        __m128i eq = _mm_set1_epi32(-1);
        /* unrolled (speed only: no loop control, 16 iterations) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
        for (unsigned l = 0; l < WC_WARP_SIZE; l += 2) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)&ad[l]);
            eq = _mm_and_si128(eq, _mm_cmpeq_epi32(x, e));
            e = _mm_add_epi64(e, s2);
        }
        if (_mm_movemask_epi8(eq) != 0xffff)
            return 0;
#else
        uint64_t e = a0;
        for (unsigned l = 1; l < WC_WARP_SIZE; l++) {
            e += s;
            if (ad[l] != e)
                return 0;
        }
#endif
    } else {
        uint64_t e = a0;
        for (; m; m &= m - 1) {
            e += s;
            if (ad[__builtin_ctz(m)] != e)
                return 0;
        }
    }
    uint64_t span = (cnt - 1) * s + w - 1;
    if (a0 > UINT64_MAX - span)
        return 0;
    *lo = a0;
    *hi = a0 + span;
    return 1;
}

/* The sector mask of a whole line of 2^sh sectors (2^sh <= 32). */
static inline uint32_t line_full(unsigned sh)
{
    return sh >= 5 ? 0xffffffffu : (1u << (1u << sh)) - 1u;
}

/* The lines and sectors of the bytes [lo, hi] (lines of 2^ls bytes,
 * sectors of 2^ss: a line of 1 to 32 sectors) as a run: its first line's
 * address, its line count and the sector masks of its first and last lines
 * (the others are whole); 0 when it is over UA_MAX_LINES lines. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int range_run(uint64_t lo, uint64_t hi, unsigned ls,
                            unsigned ss, ua_run *r)
{
    unsigned sh = ls - ss; /* sectors per line: 2^sh <= 32 */
    uint64_t smask = ((uint64_t)1 << sh) - 1;
    uint32_t full = line_full(sh);
    uint64_t fs = lo >> ss, lsn = hi >> ss;
    uint64_t fl = fs >> sh, ll = lsn >> sh;
    if (ll - fl >= UA_MAX_LINES)
        return 0;
    r->n = (unsigned)(ll - fl + 1);
    r->addr = fl << ls;
    r->line_shift = ls;
    uint32_t first = full & full << (unsigned)(fs & smask);
    uint32_t last = full >> (unsigned)(smask - (lsn & smask));
    if (r->n == 1)
        first = last = first & last;
    r->first = first;
    r->last = last;
    return 1;
}

/* The lines and sectors of the bytes [lo, hi] (range_run's lines, written
 * out): returns the number written to out, or 0 when they would not fit
 * (the caller takes the lane walk). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline unsigned range_lines(uint64_t lo, uint64_t hi, unsigned ls,
                                   unsigned ss, ua_line *out)
{
    ua_run r;
    if (!range_run(lo, hi, ls, ss, &r))
        return 0;
    uint32_t full = line_full(ls - ss);
    unsigned n = r.n;
    /* the line addresses by increment (no shift per line) */
    uint64_t a = r.addr, step = (uint64_t)1 << ls;
    for (ua_line *o = out, *e = out + n; o < e; o++, a += step) {
        o->addr = a;
        o->sectors = full;
    }
    out[0].sectors = r.first;
    out[n - 1].sectors = r.last;
    return n;
}

/* Slots of coalesce_pow2's line index: lines are looked up by hash while
 * they fill at most half of it, then by add_sector's scan. */
#define UA_LINE_SLOTS 128

/* add_sector through the index slot[] (line i's slot holds i + 1, 0:
 * empty) of the lines out[0..*n) of 2^ls bytes: the same lines, in the
 * same order, without a scan of them all per sector (a scattered warp
 * access of 32 lines took 496 comparisons). */
static inline void add_sector_hashed(ua_line *out, unsigned *n, uint64_t la,
                                     unsigned s, unsigned ls, uint16_t *slot)
{
    if (*n >= UA_LINE_SLOTS / 2) {
        add_sector(out, n, la, s);
        return;
    }
    unsigned h =
        (unsigned)(((la >> ls) * 0x9e3779b97f4a7c15ull) >> 57); /* 7 bits */
    for (; slot[h]; h = (h + 1) & (UA_LINE_SLOTS - 1)) {
        ua_line *o = &out[slot[h] - 1];
        if (o->addr == la) {
            o->sectors |= 1u << s;
            return;
        }
    }
    slot[h] = (uint16_t)(*n + 1);
    out[*n].addr = la;
    out[*n].sectors = 1u << s;
    (*n)++;
}

/* Power-of-two line and sector sizes (every config): shifts instead of
 * divisions, and a lane whose sectors the previous lane already added is
 * skipped (adding them again would change nothing). */
static unsigned coalesce_pow2(const wc_inst *in, unsigned ls, unsigned ss,
                              ua_line *out)
{
    unsigned n = 0, rank = 0;
    uint64_t w = in->width ? in->width : 4;
    int has_addr = (in->iflags & WC_IF_HAS_ADDR) != 0;
    uint64_t pf = 1, pl = 0; /* sector range of the previous lane (empty) */
    uint64_t smask = ((uint64_t)1 << (ls - ss)) - 1;
    uint64_t lo, hi;
    if (in->mask && lane_range(in, w, &lo, &hi)) {
        n = range_lines(lo, hi, ls, ss, out);
        if (n)
            return n;
    }
    uint16_t slot[UA_LINE_SLOTS];
    memset(slot, 0, sizeof slot);
    for (uint32_t m = in->mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint64_t a = has_addr ? in->addr[l] : (uint64_t)rank * w;
        rank++;
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        uint64_t fs = a >> ss, lsn = last >> ss;
        if (fs >= pf && lsn <= pl)
            continue;
        pf = fs;
        pl = lsn;
        for (uint64_t s = fs;; s++) {
            add_sector_hashed(out, &n, (s >> (ls - ss)) << ls,
                              (unsigned)(s & smask), ls, slot);
            if (s == lsn)
                break;
        }
    }
    return n;
}

/* Line and sector sizes as shifts: 1 when both are powers of two with a
 * line of 1 to 32 sectors (*ls, *ss their log2), -1 when both are powers
 * of two but the line is not (no lines), 0 when either is not a power of
 * two (or 0). */
static inline int pow2_sizes(unsigned line_bytes, unsigned sector_bytes,
                             unsigned *ls, unsigned *ss)
{
    if (!line_bytes || !sector_bytes || (line_bytes & (line_bytes - 1)) ||
        (sector_bytes & (sector_bytes - 1)))
        return 0;
    *ls = (unsigned)__builtin_ctz(line_bytes);
    *ss = (unsigned)__builtin_ctz(sector_bytes);
    return *ls < *ss || *ls - *ss > 5 ? -1 : 1;
}

/* A full warp the reader decoded as a0 + l * s (lanes_affine), power-of-
 * two sizes: lane_range and range_lines for it, straight-line (speed
 * only: the general path's frame and spills were about 100 host
 * instructions of its 157 a call on the memory trace).  0: the general
 * path decides (the same lines either way). */
/* The bytes [*lo, *hi] a lanes_affine full warp touches: 1, or 0 when
 * its lanes overlap no more than they touch (stride over the width) or
 * the range wraps (the general path decides). */
static inline int affine_span(const wc_inst *in, uint64_t *lo, uint64_t *hi)
{
    uint64_t w = in->width ? in->width : 4;
    uint64_t a0 = in->addr[0], s = in->addr[1] - a0;
    if (s > w)
        return 0;
    uint64_t span = (WC_WARP_SIZE - 1) * s + w - 1;
    if (a0 > UINT64_MAX - span)
        return 0;
    *lo = a0;
    *hi = a0 + span;
    return 1;
}

static inline unsigned coalesce_affine(const wc_inst *in, unsigned line_bytes,
                                       unsigned sector_bytes, ua_line *out)
{
    unsigned ls, ss;
    uint64_t lo, hi;
    if (pow2_sizes(line_bytes, sector_bytes, &ls, &ss) != 1 ||
        !affine_span(in, &lo, &hi))
        return 0;
    return range_lines(lo, hi, ls, ss, out);
}

/* ua_coalesce_run of a lanes_affine full warp with addresses, lines of
 * 2^ls bytes and sectors of 2^ss (a line of 1 to 32 sectors):
 * coalesce_affine's range and range_lines' lines, as a run. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int run_of(const wc_inst *in, unsigned ls, unsigned ss,
                         ua_run *r)
{
    uint64_t a0, hi;
    return affine_span(in, &a0, &hi) && range_run(a0, hi, ls, ss, r);
}

int ua_coalesce_run(const wc_inst *in, unsigned line_bytes,
                    unsigned sector_bytes, ua_run *r)
{
    unsigned ls, ss;
    if (!in->lanes_affine || in->mask != 0xffffffffu ||
        !(in->iflags & WC_IF_HAS_ADDR))
        return 0;
    /* the common geometry with its shifts as constants (speed only: the
     * variable shifts took 98 host instructions a call on the memory
     * trace) */
    if (line_bytes == 128 && sector_bytes == 32)
        return run_of(in, 7, 5, r);
    if (pow2_sizes(line_bytes, sector_bytes, &ls, &ss) != 1)
        return 0;
    return run_of(in, ls, ss, r);
}

static unsigned coalesce_any(const wc_inst *in, unsigned line_bytes,
                             unsigned sector_bytes, ua_line *out);

unsigned ua_coalesce(const wc_inst *in, unsigned line_bytes,
                     unsigned sector_bytes, ua_line *out)
{
    if (in->lanes_affine && in->mask == 0xffffffffu &&
        (in->iflags & WC_IF_HAS_ADDR)) {
        unsigned n = coalesce_affine(in, line_bytes, sector_bytes, out);
        if (n)
            return n;
    }
    return coalesce_any(in, line_bytes, sector_bytes, out);
}

/* ua_coalesce's general path: out of line, so that the frame it needs is
 * not set up for the affine one. */
static __attribute__((noinline)) unsigned
coalesce_any(const wc_inst *in, unsigned line_bytes, unsigned sector_bytes,
             ua_line *out)
{
    unsigned n = 0;
    /* powers of two (every config) first: the checks below as shifts */
    unsigned ls, ss;
    int pw = pow2_sizes(line_bytes, sector_bytes, &ls, &ss);
    if (pw)
        return pw > 0 ? coalesce_pow2(in, ls, ss, out) : 0;
    /* line_bytes / sector_bytes > 32, without a division */
    if (line_bytes == 0 || sector_bytes == 0 || line_bytes < sector_bytes ||
        (uint64_t)line_bytes >= 33 * (uint64_t)sector_bytes)
        return 0;
    uint64_t w = in->width ? in->width : 4;
    int has_addr = (in->iflags & WC_IF_HAS_ADDR) != 0;
    unsigned rank = 0;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!(in->mask & (1u << l)))
            continue;
        uint64_t a = has_addr ? in->addr[l] : (uint64_t)rank * w;
        rank++;
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        uint64_t first_sec = a / sector_bytes, last_sec = last / sector_bytes;
        for (uint64_t s = first_sec;; s++) {
            uint64_t byte = s * sector_bytes;
            uint64_t la = byte - byte % line_bytes;
            add_sector(out, &n, la, (unsigned)((byte - la) / sector_bytes));
            if (s == last_sec)
                break;
        }
    }
    return n;
}

unsigned ua_lines_sectors(const ua_line *lines, unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += (unsigned)ua_popcount32(lines[i].sectors);
    return s;
}

unsigned ua_line_split(uint64_t line_addr, uint32_t sectors,
                       unsigned sector_bytes, unsigned to_line, ua_line *out)
{
    unsigned n = 0;
    if (sector_bytes == 0 || to_line == 0)
        return 0;
    for (uint32_t rest = sectors; rest; rest &= rest - 1) {
        unsigned i = (unsigned)__builtin_ctz(rest);
        uint64_t a = line_addr + (uint64_t)i * sector_bytes;
        uint64_t l = a - a % to_line;
        unsigned s = (unsigned)((a - l) / sector_bytes);
        if (s >= 32)
            continue;
        if (n && out[n - 1].addr == l) {
            out[n - 1].sectors |= 1u << s;
        } else if (n < 32) {
            out[n].addr = l;
            out[n].sectors = 1u << s;
            n++;
        }
    }
    return n;
}
