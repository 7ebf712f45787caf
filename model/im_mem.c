/*
 * model/im_mem.c - the interval model's functional memory model.
 *
 * What a memory instruction does -- coalescing into lines and sectors,
 * shared-memory wavefronts, the sectored caches with their set indexing and
 * write policies -- is uarch/ua_mem.h, shared with the detailed model; this
 * file walks one warp access through the SM's L1 and the GPU-wide L2 the
 * way detailed/mem_unit.c and mem_l2.c do, functionally (hit or miss, no
 * timing), so that each access takes its latency from the level that serves
 * it.  Bandwidth and queueing are charged by the callers from the sector
 * counts.
 */
#include <stdlib.h>
#include <string.h>

#include "im_int.h"

int im_cache_init(im_cache *c, const ua_cache_geom *geom)
{
    c->c = ua_cache_create_untimed(geom); /* functional: no fill times */
    return c->c ? 0 : -1;
}

void im_cache_free(im_cache *c)
{
    if (!c)
        return;
    ua_cache_free(c->c);
    c->c = NULL;
}

/* Bits set in sub, a subset of set (whose count is n): the common cases
 * (none, all) without counting. */
static inline unsigned sub_count(uint32_t sub, uint32_t set, unsigned n)
{
    return sub == set ? n : sub ? ua_popcount32(sub) : 0;
}

/* The sector counts of one warp access, summed as integers (exact) and
 * turned into the byte counts of im_macc once. */
typedef struct macc_sum {
    unsigned l2, dram, l2_hit, dram_rd;
    int level;
} macc_sum;

/* The sectors sec (n of them) of L2 line addr asked of the L2. */
static inline void l2_line(im_cache *l2, uint64_t addr, uint32_t sec,
                           unsigned n, int is_write, macc_sum *a)
{
    ua_cache_res r;
    ua_cache_access(l2->c, addr, sec, is_write, &r);
    unsigned nm = sub_count(r.miss, sec, n);
    a->l2 += n;
    if (r.evicted && r.evict_dirty)
        a->dram += ua_popcount32(r.evict_dirty);
    if (is_write) {
        a->dram += sub_count(r.fwd, sec, n);
        return;
    }
    a->l2_hit += n - nm;
    if (a->level < 2)
        a->level = 2;
    if (nm) {
        a->dram_rd += nm;
        a->level = 3;
    }
}

/* Sectors of one L1 line to the L2 (split by L2 line when they differ);
 * n: their count. */
static inline void to_l2(const im_par *p, im_cache *l2, uint64_t line,
                         uint32_t sectors, unsigned n, int is_write,
                         macc_sum *a)
{
    if (p->l2_line_bytes == p->line_bytes) {
        l2_line(l2, line, sectors, n, is_write, a);
        return;
    }
    ua_line part[32];
    unsigned np = ua_line_split(line, sectors, p->sector_bytes,
                                p->l2_line_bytes, part);
    for (unsigned i = 0; i < np; i++)
        l2_line(l2, part[i].addr, part[i].sectors,
                ua_popcount32(part[i].sectors), is_write, a);
}

/* An access's outcome from its walk through the caches (ua_cache_walk,
 * ua_cache_walk_run): sectors, hits, bytes and the level it waits for
 * (stores: none past the L1). */
static inline void macc_walk(im_macc *a, const ua_walk *wk, double sb,
                             int store)
{
    a->sectors = wk->sectors;
    a->l1_hit_sectors = wk->l1_hit;
    a->l2_hit_sectors = wk->l2_hit;
    a->dram_sectors = wk->dram_rd;
    a->l2_bytes = (double)wk->l2 * sb;
    a->dram_bytes = (double)(wk->dram_wr + wk->dram_rd) * sb;
    a->level = store ? 1 : wk->level;
}

/* The n lines ls[] of a global access through the caches (has_addr,
 * l2_only, store: of the instruction and its class). */
static void mem_access(const im_par *p, im_cache *l1, im_cache *l2,
                       const ua_line *ls, unsigned n, int has_addr,
                       int l2_only, int store, im_macc *a)
{
    memset(a, 0, sizeof *a);
    a->level = 1;
    if (n == 0)
        return;
    a->lines = n;
    if (!has_addr) {
        a->sectors = ua_lines_sectors(ls, n);
        return; /* no addresses: no cache to ask (as detailed/mem_unit.c) */
    }
    int via_l1 = !l2_only && l1 && l1->c;
    int l2_same = p->l2_line_bytes == p->line_bytes;
    double sb = p->sector_bytes;
    ua_walk wk;
    if (l2_same &&
        ua_cache_walk(via_l1 ? l1->c : NULL, l2->c, ls, n, store, &wk)) {
        macc_walk(a, &wk, sb, store); /* as the loop below, in one call */
        return;
    }
    macc_sum m = {0, 0, 0, 0, 1};
    unsigned tot = 0, l1_hit = 0; /* the sectors, counted once per line */
    for (unsigned i = 0; i < n; i++) {
        uint64_t line = ls[i].addr;
        uint32_t s = ls[i].sectors;
        unsigned ns = ua_popcount32(s);
        tot += ns;
        if (!via_l1) {
            to_l2(p, l2, line, s, ns, store, &m);
            continue;
        }
        ua_cache_res r;
        ua_cache_access(l1->c, line, s, store, &r);
        if (store) {
            if (r.fwd)
                to_l2(p, l2, line, r.fwd, sub_count(r.fwd, s, ns), 1, &m);
        } else {
            unsigned nm = sub_count(r.miss, s, ns);
            l1_hit += ns - nm;
            if (r.miss)
                to_l2(p, l2, line, r.miss, nm, 0, &m);
        }
        if (r.evicted && r.evict_dirty)
            to_l2(p, l2, r.evict_addr, r.evict_dirty,
                  ua_popcount32(r.evict_dirty), 1, &m);
    }
    /* sums of whole sectors: exact, as adding the bytes line by line */
    a->sectors = tot;
    a->l1_hit_sectors = l1_hit;
    a->l2_hit_sectors = m.l2_hit;
    a->dram_sectors = m.dram_rd;
    a->l2_bytes = (double)m.l2 * sb;
    a->dram_bytes = (double)(m.dram + m.dram_rd) * sb;
    a->level = store ? 1 : m.level; /* stores do not wait for the level
                                       that takes them */
}

/* im_mem_global through a line array (out of line: the run's path does
 * without its frame). */
static __attribute__((noinline)) void mem_lines(const im_par *p, im_cache *l1,
                                                im_cache *l2,
                                                const wc_inst *in,
                                                const ua_mem_class *cl,
                                                im_macc *a)
{
    ua_line ls[UA_MAX_LINES];
    unsigned n = in->mask ? ua_coalesce(in, p->line_bytes, p->sector_bytes, ls)
                          : 0;
    mem_access(p, l1, l2, ls, n, (in->iflags & WC_IF_HAS_ADDR) != 0,
               cl->l2_only, cl->is_write, a);
}

void im_mem_global(const im_par *p, im_cache *l1, im_cache *l2,
                   const wc_inst *in, const ua_mem_class *cl, im_macc *a)
{
    /* a strided full warp (most accesses): its lines as a run, walked
     * without a line array (mem_access's walk for them) */
    ua_run rn;
    ua_walk wk;
    if (p->l2_line_bytes == p->line_bytes &&
        ua_coalesce_run(in, p->line_bytes, p->sector_bytes, &rn) &&
        ua_cache_walk_run(!cl->l2_only && l1 && l1->c ? l1->c : NULL, l2->c,
                          &rn, cl->is_write, &wk)) {
        memset(a, 0, sizeof *a);
        a->lines = rn.n;
        macc_walk(a, &wk, p->sector_bytes, cl->is_write);
        return;
    }
    mem_lines(p, l1, l2, in, cl, a);
}

/* Shared memory wavefronts (uarch). */
unsigned im_mem_wavefronts(const im_par *p, const wc_inst *in)
{
    return ua_shmem_wavefronts(in, p->shmem_banks, p->shmem_bank_bytes);
}

/* ------------------------------------------------------------------------ */
/* Instruction fetch                                                         */
/* ------------------------------------------------------------------------ */

int im_icode_init(im_icode *c)
{
    memset(c, 0, sizeof *c);
    /* small: a kernel's code and constants are a few lines per SM, and a
     * run makes six tables per SM (a 4 KiB table each was 1/4 of an
     * interval compute run's page faults); icode_grow doubles it */
    c->cap = 16;
    c->line = calloc(c->cap, sizeof *c->line);
    c->ready = calloc(c->cap, sizeof *c->ready);
    c->sb_line = c->sb_end = UINT64_MAX - 1024;
    if (!c->line || !c->ready) {
        im_icode_free(c);
        return -1;
    }
    return 0;
}

void im_icode_free(im_icode *c)
{
    if (!c)
        return;
    free(c->line);
    free(c->ready);
    memset(c, 0, sizeof *c);
}

static size_t icode_slot(const im_icode *c, uint64_t line)
{
    size_t i = (size_t)((line * 0x9e3779b97f4a7c15ull) >> 20) & (c->cap - 1);
    while (c->line[i] && c->line[i] != line + 1)
        i = (i + 1) & (c->cap - 1);
    return i;
}

static int icode_grow(im_icode *c)
{
    im_icode n = *c;
    n.cap = c->cap * 2;
    n.line = calloc(n.cap, sizeof *n.line);
    n.ready = calloc(n.cap, sizeof *n.ready);
    if (!n.line || !n.ready) {
        free(n.line);
        free(n.ready);
        return -1;
    }
    for (size_t i = 0; i < c->cap; i++)
        if (c->line[i]) {
            size_t j = icode_slot(&n, c->line[i] - 1);
            n.line[j] = c->line[i];
            n.ready[j] = c->ready[i];
        }
    free(c->line);
    free(c->ready);
    *c = n;
    return 0;
}

/* Remember that `line` arrives at r (no-op when known). */
static void icode_put(im_icode *c, uint64_t line, double r)
{
    size_t i = icode_slot(c, line);
    if (c->line[i])
        return;
    if (2 * (c->n + 1) > c->cap) {
        if (icode_grow(c) != 0) {
            c->oom = 1; /* the run reports it (icode_failed) */
            return;
        }
        i = icode_slot(c, line);
    }
    c->line[i] = line + 1;
    c->ready[i] = r;
    c->n++;
}

/* Seed 000 5.2: a miss fetches the line and restarts the stream buffer on
 * the next icache_stream_buffer lines (they come with it); a hit in the
 * stream buffer prefetches the next successive line, so a warp walking
 * straight-line code stays behind the buffer once it has started. */
double im_icode_fetch(im_icode *c, const im_par *p, uint64_t line,
                      double now)
{
    if (!c->line)
        return now;
    double cost = p->il1_lat + p->il1_miss;
    size_t i = icode_slot(c, line);
    if (c->line[i]) {
        double r = c->ready[i];
        if (line > c->sb_line && line <= c->sb_end &&
            line + p->isbuf > c->sb_end) {
            uint64_t from = c->sb_end + 1;
            c->sb_end = line + p->isbuf;
            for (uint64_t l = from; l <= c->sb_end; l++)
                icode_put(c, l, (r > now ? r : now) + cost);
        }
        return r;
    }
    double r = now + cost;
    icode_put(c, line, r);
    c->sb_line = line;
    c->sb_end = line + p->isbuf;
    for (uint64_t l = line + 1; l <= c->sb_end; l++)
        icode_put(c, l, r);
    return r;
}

double im_lines_fetch(im_icode *c, uint64_t line, double now, double cost)
{
    if (!c->line)
        return now;
    size_t i = icode_slot(c, line);
    if (c->line[i])
        return c->ready[i];
    double r = now + cost;
    if (2 * (c->n + 1) > c->cap) {
        if (icode_grow(c) != 0) {
            c->oom = 1;
            return r;
        }
        i = icode_slot(c, line);
    }
    c->line[i] = line + 1;
    c->ready[i] = r;
    c->n++;
    return r;
}
