/*
 * uarch/ua_mem_cache.c - a set-associative, sectored cache with LRU
 * replacement and a choice of write policies; the building block of the
 * L1 data cache, the L2 and the constant caches of both models.  Timing
 * lives with the callers: the cache only knows contents, and per-line
 * "ready" values the caller sets so that hits on sectors whose fill is
 * still in flight can wait for it (the merge a pending request table /
 * MSHR does; the interval model does not use them).
 *
 * Set index: line number n = addr / line_bytes, then n mod sets
 * (UA_SET_MOD) or (n ^ n >> 7 ^ n >> 17) mod sets (UA_SET_XOR, keys
 * l1_set_hash / l2_set_hash).  A line's sectors are valid or
 * not individually (a sector miss on a present tag fetches only the
 * missing sectors); LRU is kept per line.
 *
 * Layout (speed only): one contiguous block per set (64-byte aligned
 * when a set takes a host cache line or more) holding, over its ways, the
 * tags (an empty way holds UA_EMPTY_TAG), then with 8 ways or more a
 * byte per way, the tag's fingerprint or 0 for an empty way (a lookup
 * compares 8 of them a word and reads only the tags that match: one host
 * cache line instead of all tags), then the ways in recency order (most recent first, bytes when assoc <= 256)
 * instead of use stamps (the victim of a full set is the last one, the one
 * with the oldest stamp), then the valid and dirty sector masks (bytes when
 * a line has at most 8 sectors).  The callers' fill times live in a
 * parallel array, absent when the caller never asks (ua_cache_create_untimed).
 * A set is cleared on its first touch (a bit per set), so making a cache
 * costs nothing for the sets a kernel never reaches.  The set index is a
 * mask for a power-of-two set count, else a precomputed multiply-shift
 * reduction (Lemire, Kaser and Kurz, "Faster remainder by direct
 * computation", 2019), equal to n mod sets for every 64-bit n.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ua.h"
#include "wc_pool.h"

#define UA_EMPTY_TAG UINT64_MAX

/* The access path's helpers, inlined into both copies of access_body. */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* Copies of the access path (speed only): the layout tests of the common
 * geometries fold into constants.  K_W4: 4 ways, tags compared in vectors,
 * byte-wide recency order and sector masks (the L1 data caches); K_W16:
 * 16 ways with fingerprints and a vector recency order (the L2s); K_B8:
 * any byte-mask layout; K_ANY: the rest. */
enum { K_ANY, K_B8, K_W4, K_W16 };
/* Their set blocks (cache_make's layout for those geometries). */
enum { W4_ORD = 32, W4_VALID = 36, W4_DIRTY = 40, W4_STRIDE = 48 };
enum { W16_FP = 128, W16_ORD = 144, W16_VALID = 160, W16_DIRTY = 176,
       W16_STRIDE = 192 };

struct ua_cache {
    long sets, assoc, line_bytes, sector_bytes;
    uint32_t full; /* mask of all sectors of a line */
    int write_back, write_alloc, set_hash;
    /* speed: line_bytes a power of two -> shift, else 0 */
    unsigned line_shift;
    int pow2;             /* sets a power of two: index = n & set_mask */
    uint64_t set_mask;
#ifdef __SIZEOF_INT128__
    unsigned __int128 mod_m; /* ceil(2^128 / sets) */
#endif
    int ord8, mask8;      /* byte-wide recency order / sector masks */
    /* speed (SSE2 hosts): fp16, the fingerprints of 9 to 16 ways compared
     * in one 16-byte vector; ord16, a byte-wide recency order of at most
     * 16 ways moved in one 16-byte vector (the 16 bytes from its start lie
     * in the set's block; the bytes past the order are written back as
     * read) */
    int fp16, ord16;
    int tag4; /* SSE2: 4 ways without fingerprints, tags compared in 2 vectors */
    int b8;   /* byte-wide sector masks and a line shift: ua_cache_access's
                 copy without those layout tests */
    int kind; /* K_*: the copy of access_body whose layout is constant */
    size_t off_fp, fp_bytes; /* fingerprints: fp_bytes 0 when assoc < 8 */
    size_t off_ord, off_valid, off_dirty;
    unsigned char *blk;   /* one block of stride bytes per set */
    size_t stride;
    uint64_t *ready;      /* [set * assoc + way]; NULL: untimed */
    /* byte per set: cleared and set up (done on first touch); a byte, not
     * a bit: one load and test per access */
    uint8_t *ready_set;
    ua_cache_stats st;
    const ua_fold *fold; /* shared data folded (ua_cache_set_fold), or NULL */
};

/* The arrays of one set. */
typedef struct cset {
    uint64_t *tag;    /* line address, UA_EMPTY_TAG when the way is empty  */
    uint64_t *ready;  /* fill completes at this cycle (NULL: untimed)      */
    uint8_t *fp;      /* tag fingerprints, 0: the way is empty (assoc >= 8) */
    void *ord;        /* the ways, most recently used first                */
    void *valid;      /* sectors present (0: way empty)                    */
    void *dirty;
} cset;

static inline uint32_t get_m(const ua_cache *c, const void *a, long w)
{
    return c->mask8 ? ((const uint8_t *)a)[w] : ((const uint32_t *)a)[w];
}

static inline void put_m(const ua_cache *c, void *a, long w, uint32_t v)
{
    if (c->mask8)
        ((uint8_t *)a)[w] = (uint8_t)v;
    else
        ((uint32_t *)a)[w] = v;
}

static inline cset set_at(const ua_cache *c, uint64_t idx)
{
    cset s;
    unsigned char *b = c->blk + (size_t)idx * c->stride;
    s.tag = (uint64_t *)(void *)b;
    s.fp = b + c->off_fp;
    s.ord = b + c->off_ord;
    s.valid = b + c->off_valid;
    s.dirty = b + c->off_dirty;
    s.ready = c->ready ? c->ready + (size_t)idx * (size_t)c->assoc : NULL;
    return s;
}

/* Blocks of at least this many bytes (an L2: 4.9 MB on an H100) are
 * allocated in whole huge pages and the kernel is asked to back them so
 * (speed only: an access to a random set no longer misses the host TLB). */
#define HUGE_BYTES ((size_t)2 << 20)

/* The set block in huge pages? */
static int blk_huge(const ua_cache *c)
{
    return (size_t)c->sets * c->stride >= HUGE_BYTES;
}

/* The set block's bytes and alignment (wc_pool). */
static size_t blk_bytes(const ua_cache *c)
{
    size_t b = (size_t)c->sets * c->stride;
    return blk_huge(c) ? (b + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES : b;
}

static size_t blk_align(const ua_cache *c)
{
    if (blk_huge(c))
        return HUGE_BYTES;
    return c->stride % 64 == 0 ? 64 : 0;
}

static size_t ready_bytes(const ua_cache *c)
{
    return (size_t)c->sets * (size_t)c->assoc * sizeof *c->ready;
}

static ua_cache *cache_make(const ua_cache_geom *g, int timed)
{
    if (!g || g->line_bytes <= 0 || g->sector_bytes <= 0 ||
        g->line_bytes % g->sector_bytes != 0 ||
        g->line_bytes / g->sector_bytes > 32 || g->assoc <= 0 ||
        g->assoc > 65536 || g->size < 0)
        return NULL;
    ua_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->assoc = g->assoc;
    c->line_bytes = g->line_bytes;
    c->sector_bytes = g->sector_bytes;
    long ns = g->line_bytes / g->sector_bytes;
    c->full = ns >= 32 ? 0xffffffffu : (1u << ns) - 1u;
    c->write_back = g->write_back;
    c->write_alloc = g->write_alloc;
    c->set_hash = g->set_hash;
    c->sets = g->size / (g->line_bytes * g->assoc);
    if (!(g->line_bytes & (g->line_bytes - 1)))
        c->line_shift = (unsigned)__builtin_ctzl((unsigned long)g->line_bytes);
    if (c->sets > 0 && !(c->sets & (c->sets - 1))) {
        c->pow2 = 1;
        c->set_mask = (uint64_t)c->sets - 1;
    }
#ifdef __SIZEOF_INT128__
    if (c->sets > 0)
        c->mod_m = ~(unsigned __int128)0 / (unsigned __int128)c->sets + 1;
#endif
    if (c->sets > 0) {
        size_t a = (size_t)c->assoc;
        c->ord8 = a <= 256;
        c->mask8 = ns <= 8;
        size_t mw = c->mask8 ? 1 : 4;
        c->off_fp = 8 * a;
        c->fp_bytes = a >= 8 ? (a + 7) / 8 * 8 : 0;
        c->off_ord = c->off_fp + c->fp_bytes;
        c->off_valid = (c->off_ord + a * (c->ord8 ? 1 : 2) + mw - 1) / mw * mw;
        c->off_dirty = c->off_valid + a * mw;
        size_t st = c->off_dirty + a * mw;
        c->stride = st >= 64 ? (st + 63) / 64 * 64 : (st + 7) / 8 * 8;
        c->b8 = c->mask8 && c->line_shift > 0;
#if defined(__SSE2__)
        c->fp16 = c->fp_bytes == 16;
        c->tag4 = c->fp_bytes == 0 && a == 4;
        c->ord16 = c->ord8 && a == 16; /* no other field in the vector: a
                                          byte store to one just before
                                          would stall its load */
#endif
        c->kind = !c->b8                          ? K_ANY
                  : c->tag4 && c->ord8 && a == 4  ? K_W4
                  : c->fp16 && c->ord16 && a == 16 ? K_W16
                                                  : K_B8;
        /* the copies take the layout as constants (set_in) */
        if ((c->kind == K_W4 &&
             (c->off_ord != W4_ORD || c->off_valid != W4_VALID ||
              c->off_dirty != W4_DIRTY || c->stride != W4_STRIDE)) ||
            (c->kind == K_W16 &&
             (c->off_fp != W16_FP || c->off_ord != W16_ORD ||
              c->off_valid != W16_VALID || c->off_dirty != W16_DIRTY ||
              c->stride != W16_STRIDE)))
            c->kind = K_B8;
        size_t bytes = blk_bytes(c);
        /* cleared per set on first touch (set_of) */
        c->blk = wc_pool_alloc(bytes, blk_align(c), 0);
#ifdef MADV_HUGEPAGE
        if (c->blk && blk_huge(c))
            (void)madvise(c->blk, bytes, MADV_HUGEPAGE); /* a hint */
#endif
        c->ready = timed ? wc_pool_alloc(ready_bytes(c), 0, 0) : NULL;
        c->ready_set = calloc((size_t)c->sets, 1);
        if (!c->blk || (timed && !c->ready) || !c->ready_set) {
            wc_pool_free(c->blk, bytes, blk_align(c));
            wc_pool_free(c->ready, ready_bytes(c), 0);
            free(c->ready_set);
            free(c);
            return NULL;
        }
    }
    return c;
}

ua_cache *ua_cache_create(const ua_cache_geom *g)
{
    return cache_make(g, 1);
}

ua_cache *ua_cache_create_untimed(const ua_cache_geom *g)
{
    return cache_make(g, 0);
}

void ua_cache_free(ua_cache *c)
{
    if (!c)
        return;
    wc_pool_free(c->blk, blk_bytes(c), blk_align(c));
    wc_pool_free(c->ready, ready_bytes(c), 0);
    free(c->ready_set);
    free(c);
}

long ua_cache_sets(const ua_cache *c)
{
    return c->sets;
}

/* n mod sets. */
static inline uint64_t set_index(const ua_cache *c, uint64_t n)
{
    if (c->pow2)
        return n & c->set_mask;
#ifdef __SIZEOF_INT128__
    unsigned __int128 low = c->mod_m * n; /* mod 2^128 */
    uint64_t d = (uint64_t)c->sets;
    unsigned __int128 bot = ((low & UINT64_MAX) * d) >> 64;
    unsigned __int128 top = (low >> 64) * d;
    return (uint64_t)((bot + top) >> 64);
#else
    return n % (uint64_t)c->sets;
#endif
}

/* Index of the set of line la. */
/* The line number of addr. */
static inline uint64_t line_no(const ua_cache *c, uint64_t addr)
{
    return c->line_shift ? addr >> c->line_shift
                         : addr / (uint64_t)c->line_bytes;
}

/* Index of the set of line number ln. */
static inline uint64_t set_of_ln(const ua_cache *c, uint64_t ln)
{
    if (c->set_hash == UA_SET_XOR)
        ln ^= (ln >> 7) ^ (ln >> 17);
    return set_index(c, ln);
}

static inline uint64_t set_idx_of(const ua_cache *c, uint64_t la)
{
    return set_of_ln(c, line_no(c, la));
}

static inline int set_live(const ua_cache *c, uint64_t idx)
{
    return c->ready_set[idx] != 0;
}

/* Set idx, cleared on first touch. */
/* set_at with the layout of copy kind as constants (fewer live
 * registers in the access path). */
HOT_INLINE cset set_in(const ua_cache *c, uint64_t idx, const int kind,
                       const int tm)
{
    if (kind != K_W4 && kind != K_W16)
        return set_at(c, idx);
    cset s;
    size_t st = kind == K_W4 ? W4_STRIDE : W16_STRIDE;
    unsigned char *b = c->blk + (size_t)idx * st;
    s.tag = (uint64_t *)(void *)b;
    s.fp = b + (kind == K_W4 ? W4_ORD : W16_FP);
    s.ord = b + (kind == K_W4 ? W4_ORD : W16_ORD);
    s.valid = b + (kind == K_W4 ? W4_VALID : W16_VALID);
    s.dirty = b + (kind == K_W4 ? W4_DIRTY : W16_DIRTY);
    s.ready = tm && c->ready ? c->ready + (size_t)idx * (size_t)c->assoc
                             : NULL;
    return s;
}

/* First touch of the set of c whose block is b (fill times at ready, NULL
 * when untimed): all ways empty, in index order.  Cold and out of line:
 * the access path keeps its registers for the common case. */
static __attribute__((noinline, cold)) void set_clear(ua_cache *c,
                                                      unsigned char *b,
                                                      uint64_t *ready)
{
    size_t a = (size_t)c->assoc, mw = c->mask8 ? 1 : 4;
    uint64_t *tag = (uint64_t *)(void *)b;
    for (size_t w = 0; w < a; w++) {
        tag[w] = UA_EMPTY_TAG;
        if (c->ord8)
            (b + c->off_ord)[w] = (uint8_t)w;
        else
            ((uint16_t *)(void *)(b + c->off_ord))[w] = (uint16_t)w;
    }
    memset(b + c->off_fp, 0, c->fp_bytes);
    memset(b + c->off_valid, 0, a * mw);
    memset(b + c->off_dirty, 0, a * mw);
    if (ready)
        memset(ready, 0, a * sizeof *ready);
}

HOT_INLINE cset set_of(ua_cache *c, uint64_t idx, const int kind,
                       const int tm)
{
    cset st = set_in(c, idx, kind, tm);
    if (!set_live(c, idx)) {
        set_clear(c, (unsigned char *)st.tag, st.ready);
        c->ready_set[idx] = 1;
    }
    return st;
}

/* Start of the line holding addr. */
static inline uint64_t line_of(const ua_cache *c, uint64_t addr)
{
    if (c->line_shift)
        return addr & ~(((uint64_t)1 << c->line_shift) - 1);
    return addr - addr % (uint64_t)c->line_bytes;
}

/* The way of s holding la, or -1. */
static long find(const ua_cache *c, const cset *s, uint64_t la)
{
    for (long w = 0; w < c->assoc; w++)
        if (s->tag[w] == la && get_m(c, s->valid, w))
            return w;
    return -1;
}

/* Make way w of s the most recently used; pos: its place in the order
 * when the caller knows it (the victim of a full set is the last), else
 * -1. */
HOT_INLINE void touch(const ua_cache *c, cset *s, long w, long pos,
                      const int kind)
{
    if (kind == K_W4) {
        /* the 4 bytes of the order as a word: bytes 0 .. i shifted up
         * one with w first, the rest kept (all of them for the victim of
         * a full set, pos 3) */
        uint32_t o;
        memcpy(&o, s->ord, 4);
        if (pos == 3) {
            o = o << 8 | (uint32_t)w;
            memcpy(s->ord, &o, 4);
            return;
        }
        if ((o & 0xffu) == (uint32_t)w)
            return;
        long i = pos;
        if (i <= 0) {
            uint32_t x = o ^ (0x01010101u * (uint32_t)w);
            uint32_t z = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);
            i = (long)(__builtin_ctz(z) >> 3);
        }
        uint32_t keep = i >= 3 ? 0 : ~0u << (8 * (i + 1));
        o = (o & keep) | (((o << 8) | (uint32_t)w) & ~keep);
        memcpy(s->ord, &o, 4);
        return;
    }
#if defined(__SSE2__)
    if (kind == K_W16 || (kind != K_W4 && c->ord16)) {
        uint8_t *o = s->ord;
        if (kind == K_W16 && pos == 15) {
            /* the victim of a full set: every byte shifted up one */
            __m128i x = _mm_loadu_si128((const __m128i *)(void *)o);
            x = _mm_or_si128(_mm_slli_si128(x, 1), _mm_cvtsi32_si128((int)w));
            _mm_storeu_si128((__m128i *)(void *)o, x);
            return;
        }
        if (o[0] == w)
            return;
        __m128i x = _mm_loadu_si128((const __m128i *)(void *)o);
        /* w's place: pos, else its first byte (o[0 .. assoc) holds it
         * once, so no byte past the order comes first) */
        long i = pos > 0 ? pos
                         : (long)__builtin_ctz((unsigned)_mm_movemask_epi8(
                               _mm_cmpeq_epi8(x, _mm_set1_epi8((char)w))));
        /* bytes 0 .. i from x shifted up one byte with w first */
        __m128i y = _mm_or_si128(_mm_slli_si128(x, 1), _mm_cvtsi32_si128((int)w));
        __m128i m = _mm_cmplt_epi8(
            _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm_set1_epi8((char)(i + 1)));
        x = _mm_or_si128(_mm_and_si128(m, y), _mm_andnot_si128(m, x));
        _mm_storeu_si128((__m128i *)(void *)o, x);
        return;
    }
#endif
    if (c->ord8) {
        uint8_t *o = s->ord;
        if (o[0] == w)
            return;
        long i = pos > 0 ? pos : 1;
        while (o[i] != w)
            i++;
        if (i <= 8) {
            for (long k = i; k > 0; k--)
                o[k] = o[k - 1];
        } else {
            memmove(&o[1], &o[0], (size_t)i);
        }
        o[0] = (uint8_t)w;
    } else {
        uint16_t *o = s->ord;
        if (o[0] == w)
            return;
        long i = pos > 0 ? pos : 1;
        while (o[i] != w)
            i++;
        memmove(&o[1], &o[0], (size_t)i * sizeof *o);
        o[0] = (uint16_t)w;
    }
}

static inline long lru_way(const ua_cache *c, const cset *s)
{
    return c->ord8 ? ((const uint8_t *)s->ord)[c->assoc - 1]
                   : ((const uint16_t *)s->ord)[c->assoc - 1];
}

#if defined(__SSE2__)
/* Bit i (i < 2) set when 64-bit lane i of a equals that of b. */
static inline unsigned eq64_mask(__m128i a, __m128i b)
{
    __m128i e = _mm_cmpeq_epi32(a, b);
    e = _mm_and_si128(e, _mm_shuffle_epi32(e, _MM_SHUFFLE(2, 3, 0, 1)));
    return (unsigned)_mm_movemask_pd(_mm_castsi128_pd(e));
}
#endif

/* The fingerprint of line la: 1 to 255 (0 marks an empty way). */
static inline uint8_t fp_of(uint64_t la)
{
    uint8_t f = (uint8_t)((la * 0x9e3779b97f4a7c15ull) >> 56);
    return (uint8_t)(f + (f == 0));
}

/* Bytes p[0] .. p[7] as a word, p[i] in bits 8i .. 8i + 7 (one load on a
 * little-endian host). */
static inline uint64_t load8(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
           (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

/* 0x80 in each byte of x that is 0, 0 in the others (exact). */
static inline uint64_t zero_bytes(uint64_t x)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    return ~(((x & lo7) + lo7) | x | lo7);
}

/* With fingerprints, for a line la other than UA_EMPTY_TAG (fingerprint
 * f): the way of s holding la, or -1 with *empty the first empty way (-1:
 * none).  The ways the tag walk in ua_cache_access finds: a way holding a
 * line other than UA_EMPTY_TAG has sectors present and that line's
 * fingerprint (ua_cache_access keeps it so), a way is empty (UA_EMPTY_TAG,
 * no sector) exactly when its fingerprint is 0, and only the ways whose
 * fingerprint is f read their tag. */
HOT_INLINE long fp_find(const ua_cache *c, const cset *s, uint64_t la,
                       uint8_t f, long *empty, const int kind)
{
#if defined(__SSE2__)
    if (kind == K_W16 || c->fp16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s->fp);
        unsigned keep = kind == K_W16 ? 0xffffu : (1u << c->assoc) - 1u;
        /* f in every byte from a 32-bit word (a byte broadcast from a
         * spilled byte made a store-forwarding stall) */
        __m128i vf = _mm_set1_epi32((int)(0x01010101u * (uint32_t)f));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vf)) &
                     keep;
        for (; m; m &= m - 1) {
            long w = (long)__builtin_ctz(m);
            if (s->tag[w] == la)
                return w;
        }
        unsigned z = (unsigned)_mm_movemask_epi8(
                         _mm_cmpeq_epi8(x, _mm_setzero_si128())) & keep;
        *empty = z ? (long)__builtin_ctz(z) : -1;
        return -1;
    }
#endif
    uint64_t bf = 0x0101010101010101ull * f;
    long a = c->assoc, e = -1;
    for (long b = 0; b < a; b += 8) {
        uint64_t x = load8(s->fp + b);
        uint64_t keep = a - b >= 8 ? ~(uint64_t)0
                                   : ((uint64_t)1 << (8 * (a - b))) - 1;
        for (uint64_t m = zero_bytes(x ^ bf) & keep; m; m &= m - 1) {
            long w = b + (long)(__builtin_ctzll(m) >> 3);
            if (s->tag[w] == la)
                return w;
        }
        if (e < 0) {
            uint64_t z = zero_bytes(x) & keep;
            if (z)
                e = b + (long)(__builtin_ctzll(z) >> 3);
        }
    }
    *empty = e;
    return -1;
}

/* Byte-wide sector masks (b8: kind != K_ANY, a constant in each copy of
 * access_body, so the layout tests fold away). */
#define GETM(a, w) (b8 ? (uint32_t)((const uint8_t *)(a))[w] : get_m(c, a, w))
#define PUTM(a, w, v)                                                        \
    do {                                                                     \
        if (b8)                                                              \
            ((uint8_t *)(a))[w] = (uint8_t)(v);                              \
        else                                                                 \
            put_m(c, a, w, v);                                               \
    } while (0)

/* Bits set in a sector mask x of c (x <= full): one table load with
 * byte-wide masks. */
#define PC_M(x) (b8 ? (unsigned)ua_popcount8[(x) & 0xffu] : ua_popcount32(x))

/* tm: the timed path of ua_cache_access, counting every statistic; 0: the
 * walk's (untimed, sectors within full; the walk counts accesses, hits,
 * misses and sectors itself, once per walk, and access_body only evictions
 * and write-backs).
 * b8 kinds have a line shift, so no line address there is UA_EMPTY_TAG. */
HOT_INLINE void access_body(ua_cache *c, uint64_t idx, uint64_t la,
                            uint32_t sectors, int is_write,
                            ua_cache_res *res, ua_cache_stats *cs,
                            const int kind, const int tm)
{
    const int b8 = kind != K_ANY;
    /* the layout: constants in the K_W4 and K_W16 copies */
    const long A = kind == K_W4 ? 4 : kind == K_W16 ? 16 : c->assoc;
    const size_t FPB = kind == K_W4 ? 0 : kind == K_W16 ? 16 : c->fp_bytes;
#if defined(__SSE2__)
    const int TAG4 = kind == K_W4 ? 1 : kind == K_W16 ? 0 : c->tag4;
#endif
    if (tm)
        sectors &= c->full; /* the walk passes masks within full */
    res->miss = sectors;
    res->fwd = is_write ? sectors : 0;
    res->tag_hit = 0;
    res->ready = 0;
    res->evicted = 0;
    res->evict_addr = 0;
    res->evict_dirty = 0;
    if (tm)
        cs->accesses++;
    cset s = set_of(c, idx, kind, tm);
    /* the way holding la, and the first empty way: by fingerprint (8 ways
     * or more), else one pass over the tags (an empty way holds
     * UA_EMPTY_TAG; the masks are read only where a tag could be an empty
     * way's) */
    long l = -1, empty = -1, pos = -1;
    const uint64_t *tg = s.tag;
    uint8_t f = FPB ? fp_of(la) : 0;
    if (FPB && (b8 || la != UA_EMPTY_TAG)) {
        l = fp_find(c, &s, la, f, &empty, kind);
#if defined(__SSE2__)
    } else if (TAG4 && (b8 || la != UA_EMPTY_TAG)) {
        /* the ways holding la and UA_EMPTY_TAG as bit masks (a 64-bit
         * compare from two 32-bit halves); the first of the first, else
         * the first empty way: as the walk below */
        __m128i t01 = _mm_loadu_si128((const __m128i *)(const void *)tg);
        __m128i t23 = _mm_loadu_si128((const __m128i *)(const void *)(tg + 2));
        __m128i vl = _mm_set1_epi64x((long long)la);
        __m128i ve = _mm_set1_epi32(-1);
        unsigned mm = eq64_mask(t01, vl) | eq64_mask(t23, vl) << 2;
        if (mm) {
            l = (long)__builtin_ctz(mm);
        } else if (kind == K_W4) {
            /* a way is empty exactly when no sector is valid (its tag is
             * then UA_EMPTY_TAG, which no line address of a b8 kind is):
             * the first 0 of the 4 valid bytes as a word (SSE2 hosts are
             * little-endian) */
            uint32_t vw;
            memcpy(&vw, s.valid, 4);
            uint32_t z = ~(((vw & 0x7f7f7f7fu) + 0x7f7f7f7fu) | vw | 0x7f7f7f7fu);
            empty = z ? (long)(__builtin_ctz(z) >> 3) : -1;
        } else {
            unsigned me = eq64_mask(t01, ve) | eq64_mask(t23, ve) << 2;
            for (; me; me &= me - 1) {
                long w = (long)__builtin_ctz(me);
                if (!GETM(s.valid, w)) {
                    empty = w;
                    break;
                }
            }
        }
#endif
    } else {
        for (long w = 0; w < A; w++) {
            uint64_t t = tg[w];
            if (t == la) {
                if (la != UA_EMPTY_TAG || GETM(s.valid, w)) {
                    l = w;
                    break;
                }
                if (empty < 0)
                    empty = w;
            } else if (t == UA_EMPTY_TAG && empty < 0 &&
                       !GETM(s.valid, w)) {
                empty = w;
            }
        }
    }
    uint32_t v = 0;
    if (l >= 0) {
        v = GETM(s.valid, l);
        res->tag_hit = 1;
        res->miss = sectors & ~v;
        if ((sectors & v) && s.ready)
            res->ready = s.ready[l];
    }
    if (tm) {
        /* counted once: a line access mostly misses all or none */
        unsigned nsec = PC_M(sectors);
        unsigned nmiss = res->miss == sectors ? nsec
                         : res->miss          ? PC_M(res->miss)
                                              : 0;
        cs->sector_misses += nmiss;
        cs->sector_hits += (uint64_t)nsec - nmiss;
        if (res->miss)
            cs->misses++;
        else
            cs->hits++;
    }

    if (l < 0 && (!is_write || c->write_alloc)) {
        /* the first empty way, else the least recently used one */
        if (empty >= 0) {
            l = empty;
        } else {
            l = kind == K_W4    ? ((const uint8_t *)s.ord)[3]
                : kind == K_W16 ? ((const uint8_t *)s.ord)[15]
                                : lru_way(c, &s);
            pos = A - 1;
        }
        v = GETM(s.valid, l);
        if (v) {
            uint32_t dl = GETM(s.dirty, l);
            res->evicted = 1;
            res->evict_addr = s.tag[l];
            res->evict_dirty = dl;
            cs->evictions++;
            if (dl)
                cs->writebacks++;
        }
        s.tag[l] = la;
        if (FPB)
            s.fp[l] = f;
        v = 0;
        PUTM(s.dirty, l, 0);
        if (s.ready)
            s.ready[l] = 0;
    }
    if (l < 0)
        return; /* write miss, no-write-allocate: all go on (res->fwd) */
    v |= sectors;
    PUTM(s.valid, l, v);
    if (!v) {
        s.tag[l] = UA_EMPTY_TAG; /* nothing present: the way stays empty */
        if (FPB)
            s.fp[l] = 0;
    }
    if (is_write && c->write_back) {
        PUTM(s.dirty, l, GETM(s.dirty, l) | sectors);
        res->fwd = 0; /* written back on eviction */
    }
    touch(c, &s, l, pos, kind);
}

#undef GETM
#undef PUTM
#undef PC_M

/* An access to a cache without sets: every sector misses. */
static void access_none(ua_cache *c, uint32_t sectors, int is_write,
                        ua_cache_res *res)
{
    sectors &= c->full;
    memset(res, 0, sizeof *res);
    res->miss = sectors;
    res->fwd = is_write ? sectors : 0;
    c->st.accesses++;
    c->st.misses++;
    c->st.sector_misses += (uint64_t)ua_popcount32(sectors);
}

/* ua_cache_access of line la in set idx (c has sets). */
static void access_at(ua_cache *c, uint64_t idx, uint64_t la,
                      uint32_t sectors, int is_write, ua_cache_res *res)
{
    switch (c->kind) {
    case K_W4:
        access_body(c, idx, la, sectors, is_write, res, &c->st, K_W4, 1);
        break;
    case K_W16:
        access_body(c, idx, la, sectors, is_write, res, &c->st, K_W16, 1);
        break;
    case K_B8:
        access_body(c, idx, la, sectors, is_write, res, &c->st, K_B8, 1);
        break;
    default:
        access_body(c, idx, la, sectors, is_write, res, &c->st, K_ANY, 1);
        break;
    }
}

/* Slot of chunk ch in a fold's index of 2^lg slots (Fibonacci hashing:
 * the multiplier's top bits). */
static inline size_t fold_slot(uint64_t ch, unsigned lg)
{
    return (size_t)((ch * 0x9e3779b97f4a7c15ull) >> (64 - lg));
}

/* The index of addr's chunk in f, or f->n when it is not shared: through
 * f's hash index where it has one (ua_fold_index), else by bisection. */
static inline size_t fold_rank(const ua_fold *f, uint64_t addr)
{
    uint64_t ch = addr >> f->shift;
    if (f->slot) {
        size_t m = ((size_t)1 << f->slot_lg) - 1;
        for (size_t h = fold_slot(ch, f->slot_lg);; h = (h + 1) & m) {
            uint32_t s = f->slot[h];
            if (!s)
                return f->n;
            if (f->chunk[s - 1] == ch)
                return s - 1;
        }
    }
    size_t lo = 0, hi = f->n;
    while (lo < hi) { /* the first chunk >= ch */
        size_t mid = lo + (hi - lo) / 2;
        if (f->chunk[mid] < ch)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->n && f->chunk[lo] == ch ? lo : f->n;
}

uint32_t *ua_fold_index(ua_fold *f)
{
    f->slot = NULL;
    f->slot_lg = 0;
    if (f->n == 0 || f->n >= UINT32_MAX / 4)
        return NULL;
    unsigned lg = 4;
    while (((size_t)1 << lg) < 2 * f->n) /* at most half full */
        lg++;
    size_t cap = (size_t)1 << lg;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return NULL;
    for (size_t i = 0; i < f->n; i++) {
        size_t h = fold_slot(f->chunk[i], lg);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = (uint32_t)i + 1;
    }
    f->slot = t;
    f->slot_lg = lg;
    return t;
}

int ua_fold_in(const ua_fold *f, uint64_t addr)
{
    return fold_rank(f, addr) < f->n;
}

uint64_t ua_fold_addr(const ua_fold *f, uint64_t addr)
{
    size_t r = fold_rank(f, addr);
    if (r == f->n)
        return addr;
    uint64_t low_mask = (UINT64_C(1) << f->shift) - 1;
    uint64_t v = (((uint64_t)r << f->shift) | (addr & low_mask)) % f->span;
    return f->chunk[v >> f->shift] << f->shift | (v & low_mask);
}

void ua_cache_access(ua_cache *c, uint64_t addr, uint32_t sectors,
                     int is_write, ua_cache_res *res)
{
    if (c->sets == 0) {
        access_none(c, sectors, is_write, res);
        return;
    }
    if (c->fold)
        addr = ua_fold_addr(c->fold, addr);
    uint64_t la = line_of(c, addr);
    access_at(c, set_idx_of(c, la), la, sectors, is_write, res);
}

/* Lines of one walk from which walk_body prefetches their sets first. */
#define UA_PREFETCH_LINES 4

/* Speed only: set idx's block (at most a few host lines: 192 bytes at 16
 * ways) and its fill times asked of the host (ua_cache_prefetch).  Always
 * inlined: as a function of its own GCC 12 found it without effect (it
 * only prefetches) and dropped its calls, prefetches and all. */
HOT_INLINE void set_prefetch(const ua_cache *c, uint64_t idx)
{
    const unsigned char *b = c->blk + (size_t)idx * c->stride;
    for (size_t o = 0; o < c->stride; o += 64)
        __builtin_prefetch(b + o);
    __builtin_prefetch(b + c->stride - 1);
    if (c->ready) {
        const uint64_t *r = c->ready + (size_t)idx * (size_t)c->assoc;
        __builtin_prefetch(r);
        __builtin_prefetch(r + c->assoc - 1);
    }
}

void ua_cache_prefetch(const ua_cache *c, uint64_t addr)
{
    if (c->sets == 0)
        return;
    if (c->fold)
        addr = ua_fold_addr(c->fold, addr);
    set_prefetch(c, set_idx_of(c, line_of(c, addr)));
}

/* Bits set in sub, a subset of set (whose count is n): the common cases
 * (none, all) without counting. */
static inline unsigned sub_count(uint32_t sub, uint32_t set, unsigned n)
{
    return sub == set ? n : sub ? ua_popcount32(sub) : 0;
}

/* The write-back of a dirty L1 victim to the L2 (rare: L1s are
 * write-through by default). */
static __attribute__((noinline)) void walk_back(ua_cache *l2, uint64_t addr,
                                                uint32_t dirty, ua_walk *w)
{
    ua_cache_res r;
    unsigned n = ua_popcount32(dirty);
    ua_cache_access(l2, addr, dirty, 1, &r);
    w->l2 += n;
    if (r.evicted && r.evict_dirty)
        w->dram_wr += ua_popcount32(r.evict_dirty);
    w->dram_wr += sub_count(r.fwd, dirty, n);
}

/* Bits set in sub, a subset of set (whose count is n), sub a byte-wide
 * sector mask (the walk's caches have at most 8 sectors a line; set may
 * hold a caller's stray bits, then sub != set). */
static inline unsigned sub8(uint32_t sub, uint32_t set, unsigned n)
{
    return sub == set ? n : ua_popcount8[sub & 0xffu];
}

/* A cache's line statistics of one walk, added once at its end: a accesses
 * (m of them missing a sector), asking for sec sectors, sm of them
 * missing. */
static inline void stats_add(ua_cache_stats *st, unsigned a, unsigned m,
                             unsigned sec, unsigned sm)
{
    st->accesses += a;
    st->hits += a - m;
    st->misses += m;
    st->sector_hits += sec - sm;
    st->sector_misses += sm;
}

/* ua_cache_walk for the caches it takes; is_write a constant in each copy
 * (the write-policy branches fold away).  The set indices of a run of
 * lines (line numbers that follow each other, n mod sets in both caches)
 * are the next sets, without a division; a line number is below 2^63, so
 * its successor does not wrap.  The caches' access, hit, miss and sector
 * counts are summed here and added once per walk (access_body with tm 0
 * counts only evictions and write-backs); few sums are kept per line (the
 * loop's values fit the host's registers better), the rest follow from
 * them: a read asks the L2 for exactly the sectors the L1 missed.
 * aff: the lines are those of run rn (ls unused): each line's address,
 * sets and sectors follow from the previous line's without a load or a
 * test (on the memory trace, with ua_coalesce_run, 860 host instructions
 * a walk of 4 lines where the line array took 910 and its coalescing 138
 * more). */
HOT_INLINE void walk_body(ua_cache *l1, ua_cache *l2, const ua_line *ls,
                          const ua_run *rn, unsigned n, const int is_write,
                          const int has1, const int aff, ua_walk *w)
{
    /* has1: l1 != NULL, a constant in each copy */
    if (!has1)
        l1 = NULL;
#if defined(__GNUC__)
    else if (!l1)
        __builtin_unreachable();
#endif
    /* tot: sectors asked for; stray: those outside a line (a caller's
     * stray bits: no cache counts them); sm1, m1: sectors the L1 missed
     * and lines missing one; sq, a2 (writes): sectors asked of the L2 and
     * its accesses; sm2, m2: sectors the L2 missed and lines missing one;
     * wb: asked of the L2 by write-backs of L1 victims */
    unsigned tot = 0, stray = 0, sm1 = 0, m1 = 0, sq = 0, a2 = 0, sm2 = 0,
             m2 = 0, dram_wr = 0, wb = 0;
    const unsigned sh = l2->line_shift;
    const uint32_t full = l2->full; /* l1's too: same line and sectors */
    const int run = (!l1 || l1->set_hash == UA_SET_MOD) &&
                    l2->set_hash == UA_SET_MOD;
    const uint64_t last1 = l1 ? (uint64_t)l1->sets - 1 : 0;
    const uint64_t last2 = (uint64_t)l2->sets - 1;
    const uint64_t lmask = ~(((uint64_t)1 << sh) - 1), lb = (uint64_t)1 << sh;
    /* next: the address of the line after the last one; 1 (no line's)
     * before the first and after the last line of the address space */
    uint64_t set1 = 0, set2 = 0, next = 1;
    /* aff: the lines of rn, la the next one's address */
    uint64_t ra = aff ? rn->addr : 0;
    /* fo: the L2's fold (a stand-in's shared data); l2a[i]: line i's
     * address as the L2 sees it, folded before the prefetches below */
    const ua_fold *fo = l2->fold;
    uint64_t l2a[UA_MAX_LINES];
    if (!aff && n >= UA_PREFETCH_LINES) {
        /* speed only: the sets of a scattered access asked of the host
         * at once, so that their misses overlap (ua_cache_prefetch) */
        for (unsigned i = 0; i < n; i++) {
            uint64_t ln = ls[i].addr >> sh;
            if (l1)
                set_prefetch(l1, set_of_ln(l1, ln));
            if (fo) {
                l2a[i] = ua_fold_addr(fo, ls[i].addr & lmask);
                ln = l2a[i] >> sh;
            }
            set_prefetch(l2, set_of_ln(l2, ln));
        }
    } else if (fo && !aff) {
        for (unsigned i = 0; i < n; i++)
            l2a[i] = ua_fold_addr(fo, ls[i].addr & lmask);
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t la;
        uint32_t s, sf; /* sf: what the caches see */
        unsigned ns;
        if (aff) {
            /* lines that follow each other, none past the top of the
             * address space (ua_coalesce_run), sectors within the line */
            la = ra;
            ra += lb;
            if (run && i) {
                set1 = set1 == last1 ? 0 : set1 + 1;
                set2 = set2 == last2 ? 0 : set2 + 1;
            } else {
                uint64_t ln = la >> sh;
                set1 = l1 ? set_of_ln(l1, ln) : 0;
                set2 = set_of_ln(l2, ln);
            }
            s = i == 0 ? rn->first : i == n - 1 ? rn->last : full;
            sf = s;
            ns = ua_popcount8[s & 0xffu];
            tot += ns;
        } else {
            const ua_line *p = ls + i;
            la = p->addr & lmask;
            if (run && la == next) {
                set1 = set1 == last1 ? 0 : set1 + 1;
                set2 = set2 == last2 ? 0 : set2 + 1;
            } else {
                uint64_t ln = la >> sh;
                set1 = l1 ? set_of_ln(l1, ln) : 0;
                set2 = set_of_ln(l2, ln);
            }
            next = la + lb ? la + lb : 1;
            s = p->sectors;
            sf = s & full;
            ns = ua_popcount32(s);
            tot += ns;
            if (s != sf)
                stray += ns - ua_popcount8[sf & 0xffu];
        }
        uint64_t la2 = la; /* the L2's address of the line */
        if (fo) {
            /* its set from the folded line (the run's next set is not
             * the folded line's) */
            la2 = aff ? ua_fold_addr(fo, la) : l2a[i];
            set2 = set_of_ln(l2, la2 >> sh);
        }
        uint32_t q = s; /* asked of the L2 (s: sf to the cache) */
        unsigned nq = ns;
        ua_cache_res r;
        r.evict_addr = 0; /* without l1: no victim */
        r.evict_dirty = 0;
        if (l1) {
            access_body(l1, set1, la, sf, is_write, &r, &l1->st, K_W4, 0);
            unsigned nm1 = sub8(r.miss, s, ns);
            sm1 += nm1;
            if (is_write)
                m1 += nm1 != 0; /* reads: the L2's accesses */
            if (is_write) {
                q = r.fwd;
                nq = sub8(r.fwd, s, ns);
            } else {
                q = r.miss;
                nq = nm1;
            }
        }
        if (!l1 || q) {
            ua_cache_res r2;
            access_body(l2, set2, la2, l1 ? q : sf, is_write, &r2, &l2->st,
                        K_W16, 0);
            unsigned nm = sub8(r2.miss, q, nq);
            if (!is_write && l1)
                m1++; /* a read asks the L2 exactly when the L1 missed */
            if (is_write) {
                a2++;
                sq += nq;
                dram_wr += sub8(r2.fwd, q, nq);
            }
            sm2 += nm;
            m2 += nm != 0;
            if (r2.evict_dirty) /* 0 without a victim */
                dram_wr += ua_popcount8[r2.evict_dirty & 0xffu];
        }
        if (r.evict_dirty) {
            ua_walk b = {0};
            walk_back(l2, r.evict_addr, r.evict_dirty, &b);
            wb += b.l2;
            dram_wr += b.dram_wr;
        }
    }
    if (!is_write) {
        /* a read asks the L2 for what the L1 missed: every sector of a
         * line without l1 */
        sq = l1 ? sm1 : tot;
        a2 = l1 ? m1 : n;
    }
    if (l1)
        stats_add(&l1->st, n, m1, tot - stray, sm1);
    /* the L2's sectors: those asked for (sq; without l1, the lines' own,
     * less stray bits) */
    stats_add(&l2->st, a2, m2, l1 ? sq : tot - stray, sm2);
    w->sectors = tot;
    w->l1_hit = is_write || !l1 ? 0 : tot - sm1;
    w->l2 = sq + wb;
    w->l2_hit = is_write ? 0 : sq - sm2;
    w->dram_rd = is_write ? 0 : sm2;
    w->dram_wr = dram_wr;
    w->level = is_write ? 1 : sm2 ? 3 : a2 ? 2 : 1;
}

/* The walks without GCC's straight-line vectorizer (speed only: it packed
 * the per-walk statistics into vectors, about 60 host instructions where
 * the adds take 10; 20 of the 880 a walk of 4 lines took on the memory
 * trace). */
#if defined(__GNUC__) && !defined(__clang__)
#define WALK_FN __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define WALK_FN
#endif

/* The caches ua_cache_walk takes. */
static inline int walk_ok(const ua_cache *l1, const ua_cache *l2)
{
    return !((l1 && (l1->kind != K_W4 || l1->ready || l1->fold ||
                     l1->line_bytes != l2->line_bytes)) ||
             l2->kind != K_W16 || l2->ready);
}

WALK_FN int ua_cache_walk(ua_cache *l1, ua_cache *l2, const ua_line *ls,
                          unsigned n, int is_write, ua_walk *w)
{
    if (!walk_ok(l1, l2) || (l2->fold && n > UA_MAX_LINES))
        return 0;
    if (is_write) {
        if (l1)
            walk_body(l1, l2, ls, NULL, n, 1, 1, 0, w);
        else
            walk_body(l1, l2, ls, NULL, n, 1, 0, 0, w);
    } else {
        if (l1)
            walk_body(l1, l2, ls, NULL, n, 0, 1, 0, w);
        else
            walk_body(l1, l2, ls, NULL, n, 0, 0, 0, w);
    }
    return 1;
}

WALK_FN int ua_cache_walk_run(ua_cache *l1, ua_cache *l2, const ua_run *r,
                              int is_write, ua_walk *w)
{
    /* the caches' lines, whole, from a line's start, none past the top of
     * the address space, sectors within a line */
    if (!walk_ok(l1, l2) || r->n - 1u >= UA_MAX_LINES ||
        r->line_shift != l2->line_shift ||
        (r->addr & ~(UINT64_MAX << r->line_shift)) ||
        r->addr > UINT64_MAX - ((uint64_t)(r->n - 1) << r->line_shift) ||
        ((r->first | r->last) & ~l2->full))
        return 0;
    if (is_write) {
        if (l1)
            walk_body(l1, l2, NULL, r, r->n, 1, 1, 1, w);
        else
            walk_body(l1, l2, NULL, r, r->n, 1, 0, 1, w);
    } else {
        if (l1)
            walk_body(l1, l2, NULL, r, r->n, 0, 1, 1, w);
        else
            walk_body(l1, l2, NULL, r, r->n, 0, 0, 1, w);
    }
    return 1;
}

void ua_cache_set_ready(ua_cache *c, uint64_t addr, uint32_t sectors,
                        uint64_t t)
{
    if (c->sets == 0 || !sectors || !c->ready)
        return;
    if (c->fold)
        addr = ua_fold_addr(c->fold, addr);
    uint64_t la = line_of(c, addr);
    uint64_t idx = set_idx_of(c, la);
    if (!set_live(c, idx))
        return; /* never touched: nothing present */
    cset s = set_at(c, idx);
    long l = find(c, &s, la);
    if (l >= 0 && (get_m(c, s.valid, l) & sectors) && t > s.ready[l])
        s.ready[l] = t;
}

int ua_cache_probe(const ua_cache *c, uint64_t addr, uint32_t sectors,
                   uint64_t *ready)
{
    if (ready)
        *ready = 0;
    if (c->sets == 0)
        return 0;
    if (c->fold)
        addr = ua_fold_addr(c->fold, addr);
    uint64_t la = line_of(c, addr);
    uint64_t idx = set_idx_of(c, la);
    if (!set_live(c, idx))
        return 0;
    cset s = set_at(c, idx);
    long l = find(c, &s, la);
    sectors &= c->full;
    if (l < 0 || (get_m(c, s.valid, l) & sectors) != sectors)
        return 0;
    if (ready && s.ready)
        *ready = s.ready[l];
    return 1;
}

void ua_cache_stats_get(const ua_cache *c, ua_cache_stats *st)
{
    *st = c->st;
}

void ua_cache_geom_l1(const wc_gpu *g, ua_cache_geom *geom)
{
    geom->size = g->l1_size;
    geom->assoc = g->l1_assoc;
    geom->line_bytes = g->l1_line_bytes;
    geom->sector_bytes = g->sector_bytes;
    geom->write_back = (int)g->l1_write_back;
    geom->write_alloc = (int)g->l1_write_alloc;
    geom->set_hash = (int)g->l1_set_hash;
}

void ua_cache_geom_l2(const wc_gpu *g, ua_cache_geom *geom)
{
    geom->size = g->l2_size;
    geom->assoc = g->l2_assoc;
    geom->line_bytes = g->l2_line_bytes;
    geom->sector_bytes = g->sector_bytes;
    geom->write_back = (int)g->l2_write_back;
    geom->write_alloc = (int)g->l2_write_alloc;
    geom->set_hash = (int)g->l2_set_hash;
}

void ua_cache_set_fold(ua_cache *c, const ua_fold *f)
{
    c->fold = f && f->n && f->span ? f : NULL;
}

