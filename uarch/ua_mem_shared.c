/*
 * uarch/ua_mem_shared.c - shared memory bank conflicts.  Shared memory has
 * shmem_banks banks of shmem_bank_bytes each; successive bank-words go to
 * successive banks.  One wavefront serves at most one distinct word per
 * bank, and lanes reading the same word are served together (broadcast),
 * so an access needs as many wavefronts as the busiest bank has distinct
 * words.  A 64-bit (128-bit) conflict-free access needs 2 (4) wavefronts.
 */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ua.h"

/* Words one lane may touch: 255-byte access, 1-byte banks, misaligned. */
#define MAX_WORDS_PER_LANE 256

/* No answer from a fast path (the next one, or the chains, decide). */
#define NO_FIT UINT32_MAX

/* log2 of v when v is a power of two, else -1. */
static int log2_exact(uint64_t v)
{
    return v && !(v & (v - 1)) ? __builtin_ctzll(v) : -1;
}

/*
 * The same count for up to 64 banks whose words all lie within 64 rows (a
 * row: one word of each bank) of the lowest, as in a tile (a 32-way
 * conflict of 4-byte words spans 32 rows).  Each lane marks its words as a
 * run of banks in one or more rows (a mask per row, one OR per row it
 * touches); the busiest bank is then the largest column count over the
 * rows, summed in bit-sliced counters (bit b of level j: bit j of bank b's
 * count).  NO_FIT when the words span more rows or wrap.  With the table of
 * affine accesses (affine_memo) this function went from 61% (synthetic
 * shared kernel) and 68% (tensor) of an interval run's host instructions
 * to 36% and 20%: callgrind, h100-pcie, 4.08G -> 2.69G and 4.91G -> 1.70G
 * in all.
 */
static unsigned rows_wavefronts(const wc_inst *in, uint64_t w, unsigned nb,
                                unsigned bank_bytes)
{
    int sb = log2_exact(bank_bytes), sn = log2_exact(nb);
#define WORD(a) (sb >= 0 ? (a) >> sb : (a) / bank_bytes)
#define ROW(x) (sn >= 0 ? (x) >> sn : (x) / nb)
    uint64_t fx[WC_WARP_SIZE], lx[WC_WARP_SIZE]; /* first, last word */
    uint64_t lo = UINT64_MAX, hi = 0;
    unsigned nl = 0;
    for (uint32_t m = in->mask; m; m &= m - 1, nl++) {
        uint64_t a = in->addr[__builtin_ctz(m)];
        if (a + w - 1 < a)
            return NO_FIT;
        fx[nl] = WORD(a);
        lx[nl] = WORD(a + w - 1);
        if (fx[nl] < lo)
            lo = fx[nl];
        if (lx[nl] > hi)
            hi = lx[nl];
    }
    uint64_t rlo = ROW(lo), rhi = ROW(hi);
    if (rhi - rlo >= 64)
        return NO_FIT;
    uint64_t row[64];
    unsigned nrows = (unsigned)(rhi - rlo) + 1;
    memset(row, 0, nrows * sizeof row[0]);
    for (unsigned i = 0; i < nl; i++) {
        uint64_t fw = fx[i], r = ROW(fw);
        unsigned b = (unsigned)(fw - r * nb);
        if (lx[i] == fw) { /* one word: the common case */
            row[r - rlo] |= 1ull << b;
            continue;
        }
        uint64_t left = lx[i] - fw + 1; /* words of this lane */
        for (unsigned k = (unsigned)(r - rlo);; k++) {
            unsigned len = nb - b;
            if (left < len)
                len = (unsigned)left;
            row[k] |= (len >= 64 ? UINT64_MAX : ((1ull << len) - 1)) << b;
            left -= len;
            if (left == 0)
                break;
            b = 0;
        }
    }
#undef WORD
#undef ROW
    /* column counts: up to 64 rows, 7 bit-sliced levels */
    uint64_t lv[7] = {0};
    for (unsigned k = 0; k < nrows; k++) {
        uint64_t c = row[k];
        for (int j = 0; j < 7 && c; j++) {
            uint64_t t = lv[j] & c;
            lv[j] ^= c;
            c = t;
        }
    }
    /* the largest count: keep the banks whose count has the highest bits */
    uint64_t cand = UINT64_MAX;
    unsigned most = 0;
    for (int j = 6; j >= 0; j--) {
        uint64_t t = cand & lv[j];
        if (t) {
            cand = t;
            most |= 1u << j;
        }
    }
    return most;
}

/* What every entry of the two tables below starts with: the access's
 * mask, width and banks (the rest of its key follows) and its count. */
typedef struct memo_head {
    uint32_t mask, n;
    uint16_t w, bank_bytes;
    uint8_t nb, valid;
} memo_head;

/* k holds the count of an access of this mask, width and banks (the rest
 * of the key compared by the caller). */
static int head_same(const memo_head *k, uint32_t mask, uint64_t w,
                     unsigned nb, unsigned bank_bytes)
{
    return k->valid && k->mask == mask && k->w == w && k->nb == nb &&
           k->bank_bytes == bank_bytes;
}

/* k becomes the entry of such an access, its count not yet known (the
 * caller sets n and valid once it has counted). */
static void head_set(memo_head *k, uint32_t mask, uint64_t w, unsigned nb,
                     unsigned bank_bytes)
{
    k->valid = 0;
    k->mask = mask;
    k->w = (uint16_t)w;
    k->nb = (uint8_t)nb;
    k->bank_bytes = (uint16_t)bank_bytes;
}

/* The slot of hash h in a table of size entries (a power of two). */
static size_t memo_slot(uint64_t h, size_t size)
{
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return (size_t)(h >> 40) & (size - 1);
}

/* The tables' key of an access: the offset of its first lane's address in
 * a row of banks (moving every address by whole rows moves every word by
 * whole rows, so the count stays).  A power-of-two row (every GPU's) by a
 * mask: a division was 17M of mixbig kernel 4's host instructions. */
static uint64_t row_off(uint64_t a0, unsigned nb, unsigned bank_bytes)
{
    uint64_t row = (uint64_t)nb * bank_bytes;
    return row & (row - 1) ? a0 % row : a0 & (row - 1);
}

/* affine_memo's table: counts of tiled accesses, per thread. */
typedef struct memo_ent {
    memo_head k;
    uint64_t stride, off, step; /* step: between periods (0 for affine) */
    unsigned plog;              /* log2 of the period, 5 for affine, 6
                                   for a wrapped row (step: the wrap)   */
} memo_ent;
#define MEMO_SIZE 1024

/*
 * The count of a tiled access -- every active lane l at a0 + stride x (l -
 * l0) mod 2^plog + step x (l - l0) / 2^plog (plog 5, step 0: affine), all
 * below 2^62 so that no word wraps -- whose first lane's address has offset
 * off in a row, when the table has it, else NO_FIT with *slot set to the
 * entry to fill (its key written).  w and bank_bytes fit memo_head.
 */
static unsigned memo_find(uint32_t mask, uint64_t w, unsigned nb,
                          unsigned bank_bytes, uint64_t off, uint64_t stride,
                          uint64_t step, unsigned plog, memo_head **slot)
{
    static _Thread_local memo_ent memo[MEMO_SIZE];
    uint64_t h = (stride * 0x9e3779b97f4a7c15ull) ^ (off * 0xc2b2ae3d27d4eb4full) ^
                 ((uint64_t)mask * 0x165667b19e3779f9ull) ^ (w << 7) ^
                 ((uint64_t)nb << 17) ^ ((uint64_t)bank_bytes << 27) ^
                 (step * 0xd6e8feb86659fd93ull) ^ ((uint64_t)plog << 40);
    memo_ent *e = &memo[2 * memo_slot(h, MEMO_SIZE / 2)];
    for (int way = 0; way < 2; way++)
        if (head_same(&e[way].k, mask, w, nb, bank_bytes) &&
            e[way].stride == stride && e[way].off == off &&
            e[way].step == step && e[way].plog == plog)
            return e[way].k.n;
    e[1] = e[0]; /* the older way goes */
    head_set(&e->k, mask, w, nb, bank_bytes);
    e->stride = stride;
    e->off = off;
    e->step = step;
    e->plog = plog;
    *slot = &e->k;
    return NO_FIT;
}

/*
 * Closed form of a full warp of one-word lanes (width == bank_bytes, both
 * word-aligned) at a0 + stride x l, no word wrapping, over a power-of-two
 * number of banks: the words W0 + k l (k = stride / bank_bytes) are
 * distinct unless k is 0 (one word, broadcast: 1), and lanes l, m share a
 * bank when k (l - m) = 0 mod nb, that is when l = m mod p with p = nb /
 * gcd(k, nb); the busiest of the p classes of lanes holds ceil(32 / p)
 * words.  NO_FIT for any other access (the table counts it).
 */
static unsigned strided_closed(uint64_t a0, uint64_t stride, uint64_t w,
                               unsigned nb, unsigned bank_bytes)
{
    if (w != bank_bytes || (nb & (nb - 1)) || (bank_bytes & (bank_bytes - 1)) ||
        ((a0 | stride) & (bank_bytes - 1)))
        return NO_FIT;
    if (stride == 0)
        return 1;
    unsigned lnb = (unsigned)__builtin_ctz(nb);
    unsigned lg = (unsigned)(__builtin_ctzll(stride) -
                             __builtin_ctz(bank_bytes)); /* log2 gcd(k, 2^64) */
    unsigned lp = lg >= lnb ? 0 : lnb - lg;                /* log2 p */
    return lp >= 5 ? 1u : (unsigned)WC_WARP_SIZE >> lp;
}

#if defined(__SSE2__)
/* The OR of a vector's two 64-bit halves. */
static inline uint64_t or_halves(__m128i v)
{
    uint64_t t[2];
    _mm_storeu_si128((__m128i *)(void *)t, v);
    return t[0] | t[1];
}
#endif

/*
 * Whether a full warp's lanes are at a0 + stride x (l mod 2^pl) + step x
 * (l / 2^pl): a tile of 2^pl lanes a row (pl 5, step 0: affine).  Lanes of
 * the first period against the affine run, the rest against the lane a
 * period before; 2^pl is even, so the pairs of lanes align.  *any: the
 * addresses ORed.
 */
static int is_tile(const uint64_t *a, uint64_t s, uint64_t step, unsigned pl,
                   uint64_t *any)
{
    unsigned np = 1u << pl;
    uint64_t a0 = a[0], bad = 0, or = 0;
#if defined(__SSE2__)
    __m128i x = _mm_set_epi64x((long long)(a0 + s), (long long)a0);
    __m128i s2 = _mm_set1_epi64x((long long)(2 * s));
    __m128i vst = _mm_set1_epi64x((long long)step);
    __m128i vb = _mm_setzero_si128(), va = _mm_setzero_si128();
    for (unsigned l = 0; l < np; l += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)&a[l]);
        vb = _mm_or_si128(vb, _mm_xor_si128(v, x));
        va = _mm_or_si128(va, v);
        x = _mm_add_epi64(x, s2);
    }
    for (unsigned l = np; l < WC_WARP_SIZE; l += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)&a[l]);
        __m128i u = _mm_loadu_si128((const __m128i *)&a[l - np]);
        vb = _mm_or_si128(vb, _mm_xor_si128(v, _mm_add_epi64(u, vst)));
        va = _mm_or_si128(va, v);
    }
    bad = or_halves(vb);
    or = or_halves(va);
#else
    for (unsigned l = 0; l < np; l++) {
        bad |= a[l] ^ (a0 + s * l);
        or |= a[l];
    }
    for (unsigned l = np; l < WC_WARP_SIZE; l++) {
        bad |= a[l] ^ (a[l - np] + step);
        or |= a[l];
    }
#endif
    *any = or;
    return bad == 0;
}

/*
 * Whether a full warp's lanes are at hi + ((a0 + stride x l) mod m), hi =
 * a0 with its bits below m (a power of two) cleared: a row of a tile
 * m bytes wide walked from a0 and wrapping around, as a rotated index
 * ((tid + k) % n) gives.  *any: the addresses ORed.
 */
static int is_wrap(const uint64_t *a, uint64_t s, uint64_t m, uint64_t *any)
{
    uint64_t a0 = a[0], hi = a0 & ~(m - 1), bad = 0, or = 0;
#if defined(__SSE2__)
    __m128i x = _mm_set_epi64x((long long)(a0 + s), (long long)a0);
    __m128i s2 = _mm_set1_epi64x((long long)(2 * s));
    __m128i vm = _mm_set1_epi64x((long long)(m - 1));
    __m128i vh = _mm_set1_epi64x((long long)hi);
    __m128i vb = _mm_setzero_si128(), va = _mm_setzero_si128();
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
    for (unsigned l = 0; l < WC_WARP_SIZE; l += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)&a[l]);
        __m128i want = _mm_or_si128(_mm_and_si128(x, vm), vh);
        vb = _mm_or_si128(vb, _mm_xor_si128(v, want));
        va = _mm_or_si128(va, v);
        x = _mm_add_epi64(x, s2);
    }
    bad = or_halves(vb);
    or = or_halves(va);
#else
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        bad |= a[l] ^ (hi | ((a0 + s * l) & (m - 1)));
        or |= a[l];
    }
#endif
    *any = or;
    return bad == 0;
}

/* Shapes of a full warp (full_shape). */
enum { SHAPE_NONE, SHAPE_TILE, SHAPE_WRAP };

/*
 * A full warp's shape, all its lanes below 2^62 so that no word wraps:
 * SHAPE_TILE with *stride, *step, *pl as is_tile's (pl 5, step 0: affine),
 * SHAPE_WRAP with *stride and *step = m as is_wrap's, else SHAPE_NONE.
 * The period (tile) or the wrap (rotated row) from the first lane of 2, 4,
 * 8, 16 that leaves the affine run.  In mixbig kernel 4, 545K of the 2.2M
 * shared accesses are a rotated 16-lane column read twice over (lanes
 * 16-31 as 0-15), which the pattern table took at about 400 host
 * instructions each (a pass over the lanes, a hash of 32 offsets, memcmp).
 */
static int full_shape(const wc_inst *in, uint64_t *stride, uint64_t *step,
                      unsigned *pl)
{
    const uint64_t high = ~(((uint64_t)1 << 62) - 1);
    const uint64_t *a = in->addr;
    uint64_t a0 = a[0], s = a[1] - a0, any;
    *stride = s;
    *step = 0;
    *pl = 5;
    /* the reader's strided warp: no lane to check when a stride below
     * 2^57 keeps the lanes between the first and the last */
    if (in->lanes_affine && !((a0 | a[WC_WARP_SIZE - 1]) & high) &&
        s + ((uint64_t)1 << 57) < ((uint64_t)1 << 58))
        return SHAPE_TILE;
    unsigned j = 1;
    while (j < 5 && a[1u << j] == a0 + (s << j))
        j++;
    if (j == 5 && a[WC_WARP_SIZE - 1] == a0 + s * (WC_WARP_SIZE - 1))
        return is_tile(a, s, 0, 5, &any) && !(any & high) ? SHAPE_TILE
                                                           : SHAPE_NONE;
    /* the first lane f off the run, past lane 2^(j-1) (on it), before
     * lane 2^j (off it) or lane 31 (off it when j is 5) */
    unsigned f = (1u << (j - 1)) + 1;
    while (a[f] == a0 + s * f)
        f++;
    if (j < 5 && f == 1u << j) {
        *step = a[f] - a0;
        *pl = j;
        if (is_tile(a, s, *step, j, &any) && !(any & high))
            return SHAPE_TILE;
    }
    uint64_t m = a0 + s * f - a[f];
    *step = m;
    if (m && !(m & (m - 1)) && is_wrap(a, s, m, &any) && !(any & high))
        return SHAPE_WRAP;
    return SHAPE_NONE;
}

/*
 * The count of an access that is not a full warp, when affine (every
 * active lane l at a0 + stride x (l - l0), all below 2^62 so that no word
 * wraps) and in the table, else NO_FIT with *slot set to the entry to fill
 * (its key written) or NULL when the access is not affine.  w and
 * bank_bytes fit memo_head.
 */
static unsigned affine_memo(const wc_inst *in, uint64_t w, unsigned nb,
                            unsigned bank_bytes, memo_head **slot)
{
    *slot = NULL;
    uint32_t m = in->mask;
    unsigned l0 = (unsigned)__builtin_ctz(m);
    uint64_t a0 = in->addr[l0], stride = 0;
    uint32_t rest = m & (m - 1);
    if (rest) {
        unsigned l1 = (unsigned)__builtin_ctz(rest);
        stride = (in->addr[l1] - a0) / (l1 - l0);
    }
    const uint64_t high = ~(((uint64_t)1 << 62) - 1);
    for (; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint64_t a = in->addr[l];
        if (a != a0 + stride * (l - l0) || (a & high))
            return NO_FIT;
    }
    return memo_find(in->mask, w, nb, bank_bytes,
                     row_off(a0, nb, bank_bytes), stride, 0, 5, slot);
}

/* The count of a full warp of a shape (full_shape), by the closed form or
 * from the table, else NO_FIT with *slot as affine_memo's.  A wrapped row
 * is keyed by a0's offset in the larger of a row of banks and the wrap
 * (both powers of two): that and the stride give every lane's address
 * up to whole rows. */
static unsigned shape_memo(const wc_inst *in, uint64_t w, unsigned nb,
                           unsigned bank_bytes, memo_head **slot)
{
    *slot = NULL;
    uint64_t stride, step;
    unsigned pl;
    int shape = full_shape(in, &stride, &step, &pl);
    uint64_t a0 = in->addr[0], off;
    if (shape == SHAPE_NONE)
        return NO_FIT;
    if (shape == SHAPE_WRAP) {
        uint64_t row = (uint64_t)nb * bank_bytes;
        if (row & (row - 1))
            return NO_FIT;
        off = a0 & ((step > row ? step : row) - 1);
        pl = 6; /* a key apart from the tiles' */
    } else {
        if (pl == 5) {
            unsigned n = strided_closed(a0, stride, w, nb, bank_bytes);
            if (n != NO_FIT)
                return n;
        }
        off = row_off(a0, nb, bank_bytes);
    }
    return memo_find(UINT32_MAX, w, nb, bank_bytes, off, stride, step, pl,
                     slot);
}

/* pattern_memo's table: counts of other accesses, per thread. */
typedef struct pat_ent {
    memo_head k;
    uint64_t off;               /* the first active lane's offset in a row */
    uint32_t rel[WC_WARP_SIZE]; /* lane offsets from the first active lane
                                   (mod 2^32), 0 when the lane is inactive */
} pat_ent;
#define PAT_SIZE 1024

/*
 * The count of any access whose lanes lie below 2^62 and within 2 GiB
 * either side of the first active lane's address a0 (moving every address
 * by whole rows keeps the count), keyed by the mask, width, banks, a0's
 * offset in a row and the lanes' offsets from a0, when the table has it;
 * else NO_FIT with *slot set to the entry to fill (key written) or NULL
 * when the access does not qualify.  w and bank_bytes fit memo_head.
 * Offsets from a0 rather than from the lowest lane's row: one pass over the
 * lanes (vectorised for a full warp), no minimum to find first.
 */
static unsigned pattern_memo(const wc_inst *in, uint64_t w, unsigned nb,
                             unsigned bank_bytes, memo_head **slot)
{
    static _Thread_local pat_ent pat[PAT_SIZE];
    *slot = NULL;
    const uint64_t high = ~(((uint64_t)1 << 62) - 1);
    const uint64_t bias = (uint64_t)1 << 31; /* d + bias < 2^32: |d| fits */
    uint32_t rel[WC_WARP_SIZE];
    uint32_t m = in->mask;
    uint64_t a0 = in->addr[__builtin_ctz(m)], any, fit;
#if defined(__SSE2__)
    if (m == UINT32_MAX) {
        __m128i va0 = _mm_set1_epi64x((long long)a0),
                vb = _mm_set1_epi64x((long long)bias);
        __m128i va = _mm_setzero_si128(), vf = _mm_setzero_si128();
#if defined(__GNUC__)
#pragma GCC unroll 16
#endif
        for (unsigned l = 0; l < WC_WARP_SIZE; l += 2) {
            __m128i a = _mm_loadu_si128((const __m128i *)&in->addr[l]);
            __m128i d = _mm_sub_epi64(a, va0);
            va = _mm_or_si128(va, a);
            vf = _mm_or_si128(vf, _mm_add_epi64(d, vb));
            /* the low halves of the two lanes' offsets, side by side */
            _mm_storel_epi64((__m128i *)(void *)&rel[l],
                             _mm_shuffle_epi32(d, _MM_SHUFFLE(3, 1, 2, 0)));
        }
        uint64_t t[2];
        _mm_storeu_si128((__m128i *)(void *)t, va);
        any = t[0] | t[1];
        _mm_storeu_si128((__m128i *)(void *)t, vf);
        fit = t[0] | t[1];
    } else
#endif
    {
        memset(rel, 0, sizeof rel);
        any = fit = 0;
        for (; m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctz(m);
            uint64_t d = in->addr[l] - a0;
            any |= in->addr[l];
            fit |= d + bias;
            rel[l] = (uint32_t)d;
        }
    }
    if ((any & high) || (fit >> 32))
        return NO_FIT;
    uint64_t off = row_off(a0, nb, bank_bytes);
    uint64_t h = (uint64_t)in->mask * 0x9e3779b97f4a7c15ull ^ (w << 7) ^
                 ((uint64_t)nb << 17) ^ ((uint64_t)bank_bytes << 27) ^
                 off * 0xc2b2ae3d27d4eb4full;
    for (unsigned i = 0; i < WC_WARP_SIZE; i += 2) {
        uint64_t x = (uint64_t)rel[i] | (uint64_t)rel[i + 1] << 32;
        h = (h ^ x) * 0x100000001b3ull;
    }
    pat_ent *e = &pat[2 * memo_slot(h, PAT_SIZE / 2)];
    for (int way = 0; way < 2; way++)
        if (head_same(&e[way].k, in->mask, w, nb, bank_bytes) &&
            e[way].off == off && memcmp(e[way].rel, rel, sizeof rel) == 0)
            return e[way].k.n;
    e[1] = e[0]; /* the older way goes */
    head_set(&e->k, in->mask, w, nb, bank_bytes);
    e->off = off;
    memcpy(e->rel, rel, sizeof rel);
    *slot = &e->k;
    return NO_FIT;
}

/* Distinct words per bank: a chain of the words seen per bank (a bank
 * rarely sees more than a few).  Any access. */
static unsigned chain_wavefronts(const wc_inst *in, uint64_t w, unsigned nb,
                                 unsigned bank_bytes)
{
    static _Thread_local uint64_t words[WC_WARP_SIZE * MAX_WORDS_PER_LANE];
    static _Thread_local int next[WC_WARP_SIZE * MAX_WORDS_PER_LANE];
    int head[256];
    unsigned count[256];
    for (unsigned b = 0; b < nb; b++) {
        head[b] = -1;
        count[b] = 0;
    }
    int nw = 0;
    unsigned best = 0;
    uint64_t bmask = (nb & (nb - 1)) ? 0 : nb - 1; /* x % nb by a mask */
    for (uint32_t m = in->mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint64_t a = in->addr[l];
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        uint64_t fw = a / bank_bytes, lw = last / bank_bytes;
        for (uint64_t x = fw;; x++) {
            if (nw >= (int)(sizeof words / sizeof words[0]))
                break;
            unsigned b = (unsigned)(bmask ? x & bmask : x % nb);
            int k = head[b];
            while (k >= 0 && words[k] != x)
                k = next[k];
            if (k < 0) { /* a new word of bank b */
                words[nw] = x;
                next[nw] = head[b];
                head[b] = nw++;
                if (++count[b] > best)
                    best = count[b];
            }
            if (x == lw)
                break;
        }
    }
    return best;
}

/*
 * ua_shmem_wavefronts past the shape table: the pattern table, then the
 * rows or the chains, the count kept in k (the shape table's entry to
 * fill) or the pattern table's.  Out of line, so that the common call (a
 * hit in the shape table) does without the large frame of the counts.
 */
static __attribute__((noinline)) unsigned count_slow(const wc_inst *in,
                                                     uint64_t w, unsigned nb,
                                                     unsigned bank_bytes,
                                                     memo_head *k)
{
    unsigned n;
    /* Not of a shape (a swizzle, a scatter): a second table on the whole
     * pattern of lane offsets from its first row. */
    if (!k && w <= UINT16_MAX && bank_bytes <= UINT16_MAX) {
        n = pattern_memo(in, w, nb, bank_bytes, &k);
        if (n != NO_FIT)
            return n;
    }
    n = rows_wavefronts(in, w, nb, bank_bytes);
    if (n == NO_FIT)
        n = chain_wavefronts(in, w, nb, bank_bytes);
    if (k) {
        k->n = n;
        k->valid = 1;
    }
    return n;
}

unsigned ua_shmem_wavefronts(const wc_inst *in, unsigned banks,
                             unsigned bank_bytes)
{
    if (banks == 0 || bank_bytes == 0 || in->mask == 0)
        return 0;
    uint64_t w = in->width ? in->width : 4;
    if (!(in->iflags & WC_IF_HAS_ADDR)) {
        /* conflict free: active lanes' bytes over the banks' width */
        uint64_t lanes = (uint64_t)ua_popcount32(in->mask);
        uint64_t per = w < bank_bytes ? bank_bytes : w;
        uint64_t row = (uint64_t)banks * bank_bytes;
        return (unsigned)((lanes * per + row - 1) / row);
    }
    unsigned nb = banks > 256 ? 256 : banks;
    if (nb <= 64) {
        /* A warp's lanes at a0 + stride x lane (a tile row or column, the
         * usual shared access), or a full warp over a tile of 2, 4, 8 or
         * 16 such lanes a row: the count is a function of the mask, width,
         * strides and a0's offset in a row of banks (moving every address
         * by whole rows moves every word by whole rows), so it is kept per
         * thread in a small table (memo_find) and an LDS in a loop is
         * counted once; a full warp of one-word lanes at a stride has a
         * closed form (strided_closed), and one the reader decoded as
         * strided (lanes_affine) is not checked lane by lane. */
        memo_head *k = NULL;
        unsigned n = NO_FIT;
        if (w <= UINT16_MAX && bank_bytes <= UINT16_MAX) { /* fit the key */
            n = in->mask == UINT32_MAX
                    ? shape_memo(in, w, nb, bank_bytes, &k)
                    : affine_memo(in, w, nb, bank_bytes, &k);
            if (n != NO_FIT)
                return n;
        }
        return count_slow(in, w, nb, bank_bytes, k);
    }
    return chain_wavefronts(in, w, nb, bank_bytes);
}
