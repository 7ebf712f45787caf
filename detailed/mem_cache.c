/*
 * detailed/mem_cache.c - a set-associative, sectored cache with LRU
 * replacement and a choice of write policies; the building block of the
 * L1 data cache, the L2 and the constant caches.  Timing lives with the
 * callers: the cache only knows contents, and per-line "ready" cycles so
 * that hits on sectors whose fill is still in flight wait for it (the
 * merge a pending request table / MSHR does).
 *
 * Set index: (addr / line_bytes) mod sets.  A line's sectors are valid or
 * not individually (a sector miss on a present tag fetches only the
 * missing sectors); LRU is kept per line.
 */
#include <stdlib.h>

#include "mem.h"

typedef struct cline {
    uint64_t tag;    /* line address                                       */
    uint64_t lru;    /* last use stamp                                     */
    uint64_t ready;  /* fill completes at this cycle                       */
    uint32_t valid;  /* sectors present (0: way empty)                     */
    uint32_t dirty;
} cline;

struct dm_cache {
    long sets, assoc, line_bytes, sector_bytes;
    uint32_t full; /* mask of all sectors of a line */
    int write_back, write_alloc;
    uint64_t stamp;
    cline *lines; /* sets * assoc */
    dm_cache_stats st;
};

dm_cache *dm_cache_create(const dm_cache_geom *g)
{
    if (!g || g->line_bytes <= 0 || g->sector_bytes <= 0 ||
        g->line_bytes % g->sector_bytes != 0 ||
        g->line_bytes / g->sector_bytes > 32 || g->assoc <= 0 || g->size < 0)
        return NULL;
    dm_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->assoc = g->assoc;
    c->line_bytes = g->line_bytes;
    c->sector_bytes = g->sector_bytes;
    long ns = g->line_bytes / g->sector_bytes;
    c->full = ns >= 32 ? 0xffffffffu : (1u << ns) - 1u;
    c->write_back = g->write_back;
    c->write_alloc = g->write_alloc;
    c->sets = g->size / (g->line_bytes * g->assoc);
    if (c->sets > 0) {
        c->lines = calloc((size_t)(c->sets * c->assoc), sizeof *c->lines);
        if (!c->lines) {
            free(c);
            return NULL;
        }
    }
    return c;
}

void dm_cache_free(dm_cache *c)
{
    if (!c)
        return;
    free(c->lines);
    free(c);
}

long dm_cache_sets(const dm_cache *c)
{
    return c->sets;
}

static cline *set_of(const dm_cache *c, uint64_t la)
{
    uint64_t idx = (la / (uint64_t)c->line_bytes) % (uint64_t)c->sets;
    return c->lines + idx * (uint64_t)c->assoc;
}

static cline *find(const dm_cache *c, uint64_t la)
{
    cline *s = set_of(c, la);
    for (long w = 0; w < c->assoc; w++)
        if (s[w].valid && s[w].tag == la)
            return &s[w];
    return NULL;
}

/* The way to replace in la's set: an empty one, else the LRU one. */
static cline *victim(const dm_cache *c, uint64_t la)
{
    cline *s = set_of(c, la), *v = &s[0];
    for (long w = 0; w < c->assoc; w++) {
        if (!s[w].valid)
            return &s[w];
        if (s[w].lru < v->lru)
            v = &s[w];
    }
    return v;
}

void dm_cache_access(dm_cache *c, uint64_t addr, uint32_t sectors,
                     int is_write, dm_cache_res *res)
{
    uint64_t la = addr - addr % (uint64_t)c->line_bytes;
    sectors &= c->full;
    res->miss = sectors;
    res->tag_hit = 0;
    res->ready = 0;
    res->evicted = 0;
    res->evict_addr = 0;
    res->evict_dirty = 0;
    c->st.accesses++;
    if (c->sets == 0) {
        c->st.misses++;
        c->st.sector_misses += (uint64_t)__builtin_popcount(sectors);
        return;
    }
    cline *l = find(c, la);
    if (l) {
        res->tag_hit = 1;
        res->miss = sectors & ~l->valid;
        if (sectors & l->valid)
            res->ready = l->ready;
    }
    unsigned nmiss = (unsigned)__builtin_popcount(res->miss);
    c->st.sector_misses += nmiss;
    c->st.sector_hits += (uint64_t)__builtin_popcount(sectors) - nmiss;
    if (res->miss)
        c->st.misses++;
    else
        c->st.hits++;

    if (!l && (!is_write || c->write_alloc)) {
        l = victim(c, la);
        if (l->valid) {
            res->evicted = 1;
            res->evict_addr = l->tag;
            res->evict_dirty = l->dirty;
            c->st.evictions++;
            if (l->dirty)
                c->st.writebacks++;
        }
        l->tag = la;
        l->valid = 0;
        l->dirty = 0;
        l->ready = 0;
    }
    if (!l)
        return; /* write miss, no-write-allocate */
    l->valid |= sectors;
    if (is_write && c->write_back)
        l->dirty |= sectors;
    l->lru = ++c->stamp;
}

void dm_cache_set_ready(dm_cache *c, uint64_t addr, uint32_t sectors,
                        uint64_t t)
{
    if (c->sets == 0 || !sectors)
        return;
    cline *l = find(c, addr - addr % (uint64_t)c->line_bytes);
    if (l && (l->valid & sectors) && t > l->ready)
        l->ready = t;
}

int dm_cache_probe(const dm_cache *c, uint64_t addr, uint32_t sectors,
                   uint64_t *ready)
{
    if (ready)
        *ready = 0;
    if (c->sets == 0)
        return 0;
    const cline *l = find(c, addr - addr % (uint64_t)c->line_bytes);
    sectors &= c->full;
    if (!l || (l->valid & sectors) != sectors)
        return 0;
    if (ready)
        *ready = l->ready;
    return 1;
}

void dm_cache_stats_get(const dm_cache *c, dm_cache_stats *st)
{
    *st = c->st;
}
