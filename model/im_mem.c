/*
 * model/im_mem.c - the interval model's fast functional memory model.
 *
 * Owns: coalescing a warp access into lines and sectors, shared-memory
 * bank conflicts (wavefronts), and set-associative sectored LRU caches used
 * functionally (hit or miss, no timing) for the per-SM L1 and the GPU-wide
 * L2, so that each access takes its latency from the level that serves it.
 * Bandwidth and queueing are charged by the callers from the sector counts.
 */
#include <stdlib.h>
#include <string.h>

#include "im_int.h"

static unsigned ilog2u(unsigned long v)
{
    unsigned s = 0;
    while ((1ul << (s + 1)) <= v)
        s++;
    return s;
}

int im_cache_init(im_cache *c, long size, long assoc, unsigned line_bytes,
                  unsigned sector_bytes)
{
    memset(c, 0, sizeof *c);
    if (size <= 0 || line_bytes == 0)
        return 0; /* no cache: every access misses */
    if (assoc < 1)
        assoc = 1;
    unsigned long lines = (unsigned long)size / line_bytes;
    if (lines < (unsigned long)assoc)
        lines = (unsigned long)assoc;
    c->ways = (unsigned)assoc;
    c->sets = (unsigned)(lines / (unsigned long)assoc);
    if (c->sets == 0)
        c->sets = 1;
    c->line_shift = ilog2u(line_bytes);
    c->sector_shift = ilog2u(sector_bytes ? sector_bytes : line_bytes);
    c->way = calloc((size_t)c->sets * c->ways, sizeof *c->way);
    return c->way ? 0 : -1;
}

void im_cache_free(im_cache *c)
{
    if (!c)
        return;
    free(c->way);
    memset(c, 0, sizeof *c);
}

static unsigned popc(uint32_t x)
{
    return (unsigned)__builtin_popcount(x);
}

/* The set of `line` (hashed so that power-of-two strides spread). */
static im_way *cache_set(const im_cache *c, uint64_t line)
{
    uint64_t h = line ^ (line >> 7) ^ (line >> 17);
    return c->way + (size_t)(h % c->sets) * c->ways;
}

uint32_t im_cache_access(im_cache *c, uint64_t line, uint32_t sectors,
                         int is_write, int write_alloc, unsigned *wb_sectors)
{
    if (wb_sectors)
        *wb_sectors = 0;
    if (!c || !c->way)
        return sectors;
    im_way *set = cache_set(c, line);
    uint64_t key = line + 1;
    c->now++;
    im_way *victim = set;
    for (unsigned w = 0; w < c->ways; w++) {
        im_way *x = set + w;
        if (x->tag == key) {
            uint32_t miss = sectors & ~x->valid;
            x->stamp = c->now;
            if (!is_write || write_alloc)
                x->valid |= sectors;
            if (is_write && write_alloc)
                x->dirty |= sectors;
            return miss;
        }
        if (victim->tag && (x->tag == 0 || x->stamp < victim->stamp))
            victim = x;
    }
    if (is_write && !write_alloc)
        return sectors;
    if (victim->tag && wb_sectors)
        *wb_sectors = popc(victim->dirty);
    victim->tag = key;
    victim->valid = sectors;
    victim->dirty = is_write ? sectors : 0;
    victim->stamp = c->now;
    return sectors;
}

/* ------------------------------------------------------------------------ */

typedef struct lineset {
    uint64_t line[WC_WARP_SIZE * 9];
    uint32_t sec[WC_WARP_SIZE * 9];
    unsigned n;
} lineset;

static int pow2(unsigned v)
{
    return v && !(v & (v - 1));
}

static void coalesce(const im_par *p, const wc_inst *in, lineset *ls)
{
    ls->n = 0;
    unsigned lb = p->line_bytes, sb = p->sector_bytes;
    uint64_t w = in->width ? in->width : 4;
    if (!(in->iflags & WC_IF_HAS_ADDR)) {
        /* no addresses: take it as fully coalesced from a line boundary */
        uint64_t bytes = w * (uint64_t)__builtin_popcount(in->mask);
        uint64_t nl = (bytes + lb - 1) / lb;
        for (uint64_t i = 0; i < nl && ls->n < WC_WARP_SIZE * 9; i++) {
            uint64_t rem = bytes - i * lb;
            unsigned ns = (unsigned)((rem >= lb ? lb : rem) + sb - 1) / sb;
            ls->line[ls->n] = i;
            ls->sec[ls->n++] = ns >= 32 ? 0xffffffffu : ((1u << ns) - 1u);
        }
        return;
    }
    unsigned last = 0;
    if (pow2(lb) && pow2(sb) && w <= sb) {
        /* the usual case: no lane access crosses a sector; shifts, not
         * 64-bit divisions */
        unsigned ls_ = ilog2u(lb), ss = ilog2u(sb);
        for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
            if (!((in->mask >> l) & 1u))
                continue;
            uint64_t a = in->addr[l], e = a + w - 1;
            uint64_t line = a >> ls_;
            if ((e >> ls_) != line || (e >> ss) != (a >> ss))
                goto general; /* misaligned: the byte walk below */
            uint32_t m = 1u << (((unsigned)a & (lb - 1)) >> ss);
            unsigned j;
            if (ls->n && ls->line[last] == line)
                j = last;
            else {
                for (j = 0; j < ls->n; j++)
                    if (ls->line[j] == line)
                        break;
            }
            if (j == ls->n) {
                ls->line[j] = line;
                ls->sec[j] = 0;
                ls->n++;
            }
            ls->sec[j] |= m;
            last = j;
        }
        return;
    }
general:
    ls->n = 0;
    last = 0;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!((in->mask >> l) & 1u))
            continue;
        uint64_t a = in->addr[l], e = a + w - 1;
        for (uint64_t x = a; x <= e;) {
            uint64_t line = x / lb;
            uint64_t lend = (line + 1) * lb - 1;
            uint64_t hi = e < lend ? e : lend;
            unsigned s0 = (unsigned)((x % lb) / sb),
                     s1 = (unsigned)((hi % lb) / sb);
            uint32_t m = 0;
            for (unsigned s = s0; s <= s1 && s < 32; s++)
                m |= 1u << s;
            unsigned j;
            if (ls->n && ls->line[last] == line)
                j = last;
            else {
                for (j = 0; j < ls->n; j++)
                    if (ls->line[j] == line)
                        break;
            }
            if (j == ls->n) {
                if (ls->n == WC_WARP_SIZE * 9)
                    return;
                ls->line[j] = line;
                ls->sec[j] = 0;
                ls->n++;
            }
            ls->sec[j] |= m;
            last = j;
            if (hi == UINT64_MAX)
                break;
            x = hi + 1;
        }
    }
}

void im_mem_global(const im_par *p, im_cache *l1, im_cache *l2,
                   const wc_inst *in, int is_store, int is_atomic,
                   im_macc *a)
{
    memset(a, 0, sizeof *a);
    a->level = 1;
    if (in->mask == 0)
        return;
    lineset ls;
    coalesce(p, in, &ls);
    a->lines = ls.n;
    unsigned spl = p->line_bytes / p->sector_bytes; /* sectors per L1 line */
    unsigned l2spl = p->l2_line_bytes / p->sector_bytes;
    if (l2spl == 0)
        l2spl = 1;
    for (unsigned i = 0; i < ls.n; i++) {
        uint32_t s = ls.sec[i];
        unsigned ns = popc(s);
        a->sectors += ns;
        uint32_t miss;
        if (is_store || is_atomic || !l1)
            miss = s; /* write-through / atomics at L2; no L1 */
        else
            miss = im_cache_access(l1, ls.line[i], s, 0, 0, NULL);
        if (is_store && l1) /* keep L1 coherent: a write-through updates */
            im_cache_access(l1, ls.line[i], s, 1, 0, NULL);
        a->l1_hit_sectors += ns - popc(miss);
        if (!miss)
            continue;
        if (a->level < 2)
            a->level = 2;
        if (l2spl == spl) { /* same line size: one L2 access per line */
            unsigned wb = 0;
            uint32_t m2 = im_cache_access(l2, ls.line[i], miss, is_store, 1,
                                          &wb);
            unsigned nm = popc(miss);
            a->l2_bytes += (double)nm * p->sector_bytes;
            a->dram_bytes += (double)wb * p->sector_bytes;
            if (!is_store && m2) {
                a->dram_sectors += popc(m2);
                a->dram_bytes += (double)popc(m2) * p->sector_bytes;
                a->level = 3;
            }
            a->l2_hit_sectors += nm - (is_store ? 0 : popc(m2));
            continue;
        }
        /* L2 line differs from the L1 line: map sectors */
        uint64_t first_sector = ls.line[i] * spl;
        for (unsigned k = 0; k < 32; k++) {
            if (!((miss >> k) & 1u))
                continue;
            uint64_t sector = first_sector + k;
            uint64_t l2line = sector / l2spl;
            uint32_t bit = 1u << (sector % l2spl);
            unsigned wb = 0;
            uint32_t m2 = im_cache_access(l2, l2line, bit, is_store,
                                          is_store ? 1 : 1, &wb);
            a->l2_bytes += p->sector_bytes;
            a->dram_bytes += (double)wb * p->sector_bytes;
            if (m2 && !is_store) {
                a->dram_sectors++;
                a->dram_bytes += p->sector_bytes;
                a->level = 3;
            } else if (!m2) {
                a->l2_hit_sectors++;
            }
        }
    }
    if (is_store && a->level > 1)
        a->level = 1; /* stores do not wait for the level that takes them */
}

/* Distinct bank words per bank: the most any bank must deliver. */
unsigned im_mem_wavefronts(const im_par *p, const wc_inst *in)
{
    if (in->mask == 0)
        return 0;
    if (!(in->iflags & WC_IF_HAS_ADDR)) {
        unsigned bytes = (in->width ? in->width : 4) *
                         (unsigned)__builtin_popcount(in->mask);
        unsigned per = p->shmem_banks * p->shmem_bank_bytes;
        return per ? (bytes + per - 1) / per : 1;
    }
    uint64_t words[WC_WARP_SIZE * 16];
    unsigned n = 0;
    uint64_t bb = p->shmem_bank_bytes ? p->shmem_bank_bytes : 4;
    uint64_t w = in->width ? in->width : 4;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!((in->mask >> l) & 1u))
            continue;
        uint64_t a = in->addr[l];
        for (uint64_t x = a / bb; x <= (a + w - 1) / bb && n < 512; x++) {
            unsigned j;
            for (j = 0; j < n; j++)
                if (words[j] == x)
                    break;
            if (j == n)
                words[n++] = x;
        }
    }
    unsigned cnt[256];
    unsigned nb = p->shmem_banks ? p->shmem_banks : 32;
    if (nb > 256)
        nb = 256;
    memset(cnt, 0, sizeof cnt);
    unsigned best = 0;
    for (unsigned j = 0; j < n; j++) {
        unsigned b = (unsigned)(words[j] % nb);
        if (++cnt[b] > best)
            best = cnt[b];
    }
    return best ? best : 1;
}

/* ------------------------------------------------------------------------ */
/* Instruction fetch                                                         */
/* ------------------------------------------------------------------------ */

int im_icode_init(im_icode *c)
{
    memset(c, 0, sizeof *c);
    c->cap = 256;
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
        if (icode_grow(c) != 0)
            return; /* not remembered: later warps take it as a hit */
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
        if (icode_grow(c) != 0)
            return r;
        i = icode_slot(c, line);
    }
    c->line[i] = line + 1;
    c->ready[i] = r;
    c->n++;
    return r;
}
