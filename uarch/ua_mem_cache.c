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
 * Layout (speed only): one contiguous block per set holding arrays over
 * its ways (tags first: a lookup reads a line or two), and the ways in
 * recency order (most recent first) instead of use stamps: the victim of
 * a full set is the last one, the one with the oldest stamp.
 */
#include <stdlib.h>
#include <string.h>

#include "ua.h"

struct ua_cache {
    long sets, assoc, line_bytes, sector_bytes;
    uint32_t full; /* mask of all sectors of a line */
    int write_back, write_alloc, set_hash;
    /* speed: line_bytes (sets) a power of two -> shift (mask), else 0 */
    unsigned line_shift;
    uint64_t set_mask;
    /* one block of stride bytes per set, each an array over its ways:
     * tag, ready, valid, dirty, ord (see cset) */
    unsigned char *blk;
    size_t stride;
    /* bit per set: its recency order is set up (done on first touch, so
     * a big cache costs nothing for the sets a kernel never reaches) */
    uint8_t *ready_set;
    ua_cache_stats st;
};

/* The arrays of one set. */
typedef struct cset {
    uint64_t *tag;    /* line address                                      */
    uint64_t *ready;  /* fill completes at this cycle                      */
    uint32_t *valid;  /* sectors present (0: way empty)                    */
    uint32_t *dirty;
    uint16_t *ord;    /* the ways, most recently used first                */
} cset;

static inline cset set_at(const ua_cache *c, uint64_t idx)
{
    cset s;
    size_t a = (size_t)c->assoc;
    s.tag = (uint64_t *)(void *)(c->blk + (size_t)idx * c->stride);
    s.ready = s.tag + a;
    s.valid = (uint32_t *)(void *)(s.ready + a);
    s.dirty = s.valid + a;
    s.ord = (uint16_t *)(void *)(s.dirty + a);
    return s;
}

ua_cache *ua_cache_create(const ua_cache_geom *g)
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
    if (c->sets > 0 && !(c->sets & (c->sets - 1)))
        c->set_mask = (uint64_t)c->sets - 1;
    if (c->sets > 0) {
        size_t a = (size_t)c->assoc;
        c->stride = (a * (8 + 8 + 4 + 4 + 2) + 7) / 8 * 8;
        c->blk = calloc((size_t)c->sets, c->stride);
        c->ready_set = calloc((size_t)c->sets / 8 + 1, 1);
        if (!c->blk || !c->ready_set) {
            free(c->blk);
            free(c->ready_set);
            free(c);
            return NULL;
        }
    }
    return c;
}

void ua_cache_free(ua_cache *c)
{
    if (!c)
        return;
    free(c->blk);
    free(c->ready_set);
    free(c);
}

long ua_cache_sets(const ua_cache *c)
{
    return c->sets;
}

/* The set of line la. */
static inline cset set_of(const ua_cache *c, uint64_t la)
{
    uint64_t ln = c->line_shift ? la >> c->line_shift
                                : la / (uint64_t)c->line_bytes;
    if (c->set_hash == UA_SET_XOR)
        ln ^= (ln >> 7) ^ (ln >> 17);
    uint64_t idx = c->set_mask ? ln & c->set_mask : ln % (uint64_t)c->sets;
    cset st = set_at(c, idx);
    uint8_t bit = (uint8_t)(1u << (idx & 7));
    if (!(c->ready_set[idx >> 3] & bit)) {
        /* first touch: ways in index order (all empty) */
        for (long w = 0; w < c->assoc; w++)
            st.ord[w] = (uint16_t)w;
        c->ready_set[idx >> 3] |= bit;
    }
    return st;
}

/* Start of the line holding addr. */
static uint64_t line_of(const ua_cache *c, uint64_t addr)
{
    if (c->line_shift)
        return addr & ~(((uint64_t)1 << c->line_shift) - 1);
    return addr - addr % (uint64_t)c->line_bytes;
}

/* The way of s holding la, or -1. */
static long find(const ua_cache *c, const cset *s, uint64_t la)
{
    for (long w = 0; w < c->assoc; w++)
        if (s->tag[w] == la && s->valid[w])
            return w;
    return -1;
}

/* Make way w of s the most recently used. */
static void touch(cset *s, uint16_t w)
{
    uint16_t *o = s->ord;
    if (o[0] == w)
        return;
    long i = 1;
    while (o[i] != w)
        i++;
    memmove(&o[1], &o[0], (size_t)i * sizeof *o);
    o[0] = w;
}

void ua_cache_access(ua_cache *c, uint64_t addr, uint32_t sectors,
                     int is_write, ua_cache_res *res)
{
    uint64_t la = line_of(c, addr);
    sectors &= c->full;
    res->miss = sectors;
    res->fwd = is_write ? sectors : 0;
    res->tag_hit = 0;
    res->ready = 0;
    res->evicted = 0;
    res->evict_addr = 0;
    res->evict_dirty = 0;
    c->st.accesses++;
    if (c->sets == 0) {
        c->st.misses++;
        c->st.sector_misses += (uint64_t)ua_popcount32(sectors);
        return;
    }
    cset s = set_of(c, la);
    /* one pass: the way holding la, and the first empty way */
    long l = -1, empty = -1;
    for (long w = 0; w < c->assoc; w++) {
        if (!s.valid[w]) {
            if (empty < 0)
                empty = w;
        } else if (s.tag[w] == la) {
            l = w;
            break;
        }
    }
    if (l >= 0) {
        res->tag_hit = 1;
        res->miss = sectors & ~s.valid[l];
        if (sectors & s.valid[l])
            res->ready = s.ready[l];
    }
    unsigned nmiss = (unsigned)ua_popcount32(res->miss);
    c->st.sector_misses += nmiss;
    c->st.sector_hits += (uint64_t)ua_popcount32(sectors) - nmiss;
    if (res->miss)
        c->st.misses++;
    else
        c->st.hits++;

    if (l < 0 && (!is_write || c->write_alloc)) {
        /* the first empty way, else the least recently used one */
        l = empty >= 0 ? empty : s.ord[c->assoc - 1];
        if (s.valid[l]) {
            res->evicted = 1;
            res->evict_addr = s.tag[l];
            res->evict_dirty = s.dirty[l];
            c->st.evictions++;
            if (s.dirty[l])
                c->st.writebacks++;
        }
        s.tag[l] = la;
        s.valid[l] = 0;
        s.dirty[l] = 0;
        s.ready[l] = 0;
    }
    if (l < 0)
        return; /* write miss, no-write-allocate: all go on (res->fwd) */
    s.valid[l] |= sectors;
    if (is_write && c->write_back) {
        s.dirty[l] |= sectors;
        res->fwd = 0; /* written back on eviction */
    }
    touch(&s, (uint16_t)l);
}

void ua_cache_set_ready(ua_cache *c, uint64_t addr, uint32_t sectors,
                        uint64_t t)
{
    if (c->sets == 0 || !sectors)
        return;
    uint64_t la = line_of(c, addr);
    cset s = set_of(c, la);
    long l = find(c, &s, la);
    if (l >= 0 && (s.valid[l] & sectors) && t > s.ready[l])
        s.ready[l] = t;
}

int ua_cache_probe(const ua_cache *c, uint64_t addr, uint32_t sectors,
                   uint64_t *ready)
{
    if (ready)
        *ready = 0;
    if (c->sets == 0)
        return 0;
    uint64_t la = line_of(c, addr);
    cset s = set_of(c, la);
    long l = find(c, &s, la);
    sectors &= c->full;
    if (l < 0 || (s.valid[l] & sectors) != sectors)
        return 0;
    if (ready)
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
