/*
 * detailed/mem_l2.c - the GPU-wide L2 cache and DRAM, shared by every SM's
 * memory unit.  Contents: a sectored set-associative cache (mem_cache.c)
 * with the L2 write policy.  Timing is approximate, not cycle exact: each
 * level is one bandwidth server (l2_bw, dram_bw bytes per cycle for the
 * whole GPU) that serves requests in call order; a request waits until the
 * server is free, and its latency is the level's fixed latency plus that
 * wait.  Throughput under load is therefore exact, latency under load a
 * queueing estimate.  No slices, no DRAM banks / row buffers, no NoC.
 *
 * Latencies are expressed as extra cycles over an L1 hit (l1_latency) so the
 * memory unit can add them to a Table 2 row.
 */
#include <stdlib.h>

#include "mem.h"

#define DM_L2_ATOM_TAB 4096

typedef struct dm_srv {
    double free_at, tmax, gap_lo, gap_hi;
} dm_srv;

struct dm_l2 {
    ua_cache *cache;
    double sector_bytes, l2_bw, dram_bw;
    long l2_extra, dram_extra; /* over an L1 hit */
    /* the two bandwidth servers: the cycle each is free again (free_at);
     * with dm_quantum (dm_l2_quantum: a quantum > 1), requests arrive up to a
     * quantum out of cycle order (an SM's late cycles before the next
     * SM's early ones): tmax is the latest arrival so far and [gap_lo,
     * gap_hi) the idle time the last in-order arrival left before it
     * (within the quantum).  A request arriving before tmax is served in
     * that gap when it fits (in cycle order it would have come first and
     * used it), so that out-of-order arrivals cost no bandwidth; else
     * behind the cursor.  In cycle order no request is early and this is
     * the plain FIFO server. */
    dm_srv l2s, drams;
    int ooo;     /* dm_l2_quantum was called with a quantum > 1 */
    double qstart;
    dm_l2_stats st;
    /* same-address atomics (issue 11): cycles one op holds its address,
     * and the cycle each recently used address is free again (direct
     * mapped on the address; an entry is reused once its address is free,
     * a busy one is kept and the newcomer goes unserialized) */
    double atom_op;
    uint64_t atom_addr[DM_L2_ATOM_TAB];
    double atom_free[DM_L2_ATOM_TAB];
    /* seed 000 Table 2, decoded once for every SM's memory unit (speed
     * only: one copy stays in the host caches, 132 copies did not) */
    ua_mem_rows rows;
};

dm_l2 *dm_l2_create(const wc_gpu *g)
{
    dm_l2 *l2 = calloc(1, sizeof *l2);
    if (!l2)
        return NULL;
    ua_cache_geom geom;
    ua_cache_geom_l2(g, &geom);
    l2->cache = ua_cache_create(&geom);
    if (!l2->cache) {
        free(l2);
        return NULL;
    }
    l2->sector_bytes = (double)g->sector_bytes;
    l2->l2_bw = g->l2_bw;
    l2->dram_bw = g->dram_bw;
    l2->l2_extra = g->l2_latency > g->l1_latency ? g->l2_latency - g->l1_latency : 0;
    l2->dram_extra =
        g->dram_latency > g->l1_latency ? g->dram_latency - g->l1_latency : 0;
    l2->atom_op = g->l2_atomic_same_addr_ns * g->clock_mhz / 1000.0;
    ua_mem_rows_init(&l2->rows, g);
    return l2;
}

void dm_l2_quantum(dm_l2 *l2, uint64_t c, uint64_t quantum)
{
    l2->qstart = (double)c;
    l2->ooo = quantum > 1;
}

const ua_mem_rows *dm_l2_rows(const dm_l2 *l2)
{
    return &l2->rows;
}

void dm_l2_free(dm_l2 *l2)
{
    if (!l2)
        return;
    ua_cache_free(l2->cache);
    free(l2);
}

/* Occupy server v of l2 (bandwidth bw) for n sectors from cycle t on;
 * returns the wait.  Out of cycle order (l2->ooo), an early request takes
 * the idle gap before the latest one when it fits (see struct dm_l2). */
static double serve(const dm_l2 *l2, dm_srv *v, double t, unsigned n,
                    double bw)
{
    double svc = (double)n * l2->sector_bytes / bw;
    if (l2->ooo && t < v->tmax) { /* early: the gap it would have used */
        double start = v->gap_lo > t ? v->gap_lo : t;
        if (start + svc <= v->gap_hi) {
            v->gap_lo = start + svc;
            return start - t;
        }
    } else if (l2->ooo) {
        v->tmax = t;
        if (t > v->free_at) { /* the server idles until t */
            v->gap_lo = v->free_at > l2->qstart ? v->free_at : l2->qstart;
            v->gap_hi = t;
        }
    }
    double start = v->free_at > t ? v->free_at : t;
    v->free_at = start + svc;
    return start - t;
}

static uint64_t ceil_cycles(double x)
{
    if (x <= 0)
        return 0;
    uint64_t c = (uint64_t)x;
    return (double)c < x ? c + 1 : c;
}

void dm_l2_set_fold(dm_l2 *l2, const struct ua_fold *f)
{
    ua_cache_set_fold(l2->cache, f);
}

void dm_l2_prefetch(const dm_l2 *l2, uint64_t line_addr)
{
    ua_cache_prefetch(l2->cache, line_addr);
}

uint64_t dm_l2_access(dm_l2 *l2, uint64_t line_addr, uint32_t sectors,
                      int is_write, uint64_t now)
{
    unsigned n = (unsigned)dm_popcount32(sectors);
    if (n == 0)
        return 0;
    double t = (double)now;
    double wait = serve(l2, &l2->l2s, t, n, l2->l2_bw);
    ua_cache_res r;
    ua_cache_access(l2->cache, line_addr, sectors, is_write, &r);
    unsigned nmiss = (unsigned)dm_popcount32(r.miss);
    l2->st.sector_hits += n - nmiss;
    l2->st.sector_misses += nmiss;
    if (!is_write)
        l2->st.read_sector_hits += n - nmiss;
    if (r.evicted && r.evict_dirty) {
        unsigned nd = (unsigned)dm_popcount32(r.evict_dirty);
        serve(l2, &l2->drams, t + wait, nd, l2->dram_bw);
        l2->st.dram_write_sectors += nd;
    }
    uint64_t extra;
    if (is_write) {
        l2->st.writes++;
        unsigned nf = (unsigned)dm_popcount32(r.fwd);
        if (nf) { /* write-through, or a miss without allocation */
            serve(l2, &l2->drams, t + wait, nf, l2->dram_bw);
            l2->st.dram_write_sectors += nf;
        }
        extra = ceil_cycles(wait);
    } else {
        l2->st.reads++;
        extra = (uint64_t)l2->l2_extra + ceil_cycles(wait);
        if (r.ready > now + extra) /* merged with a fill in flight */
            extra = r.ready - now;
        if (nmiss) {
            double dw = serve(l2, &l2->drams, t + wait, nmiss, l2->dram_bw);
            uint64_t dx = (uint64_t)l2->dram_extra + ceil_cycles(wait + dw);
            l2->st.dram_read_sectors += nmiss;
            ua_cache_set_ready(l2->cache, line_addr, r.miss, now + dx);
            if (dx > extra)
                extra = dx;
        }
    }
    l2->st.l2_busy_until = l2->l2s.free_at;
    l2->st.dram_busy_until = l2->drams.free_at;
    return extra;
}

uint64_t dm_l2_atomic(dm_l2 *l2, const ua_line *lines, unsigned nlines,
                      const uint64_t *addr, uint32_t mask, uint64_t now)
{
    uint64_t worst = 0;
    /* each line: written at the L2 (dirty, or forwarded by a write-through
     * L2), performed after the L2 round trip (l2_latency) plus the wait for
     * bandwidth; a miss is not waited for DRAM (MEAS atom_lane-1056x256 on
     * an H100 SXM: with a DRAM fill per line the kernel is +6%, without
     * -2%, as the interval model, which performs atomics at level 2) */
    for (unsigned i = 0; i < nlines; i++) {
        uint64_t e = (uint64_t)l2->l2_extra +
                     dm_l2_access(l2, lines[i].addr, lines[i].sectors, 1, now);
        if (e > worst)
            worst = e;
    }
    if (l2->atom_op <= 0 || !addr)
        return worst;
    /* same-address serialization: the lanes of one address, in lane order */
    uint32_t left = mask;
    while (left) {
        unsigned l = (unsigned)__builtin_ctz(left);
        uint64_t a = addr[l];
        unsigned n = 0;
        for (uint32_t m = left; m; m &= m - 1) {
            unsigned k = (unsigned)__builtin_ctz(m);
            if (addr[k] == a) {
                n++;
                left &= ~(1u << k);
            }
        }
        size_t h = (size_t)((a >> 2) * 0x9E3779B97F4A7C15ull >> 52) %
                   DM_L2_ATOM_TAB;
        double arrive = (double)now + (double)l2->l2_extra;
        double start = arrive;
        if (l2->atom_addr[h] == a + 1) {
            if (l2->atom_free[h] > start)
                start = l2->atom_free[h];
        } else if (l2->atom_free[h] > arrive) {
            /* slot busy with another address: leave it, no serialization */
            continue;
        }
        l2->atom_addr[h] = a + 1;
        l2->atom_free[h] = start + (double)n * l2->atom_op;
        /* the first op is performed at the L2 latency, the last n - 1 op
         * times later */
        uint64_t e = ceil_cycles(start + (double)(n - 1) * l2->atom_op -
                                 (double)now);
        if (e > worst)
            worst = e;
    }
    return worst;
}

void dm_l2_stats_get(const dm_l2 *l2, dm_l2_stats *st)
{
    *st = l2->st;
}

void dm_l2_counts_add(const dm_l2 *l2, ua_counts *c)
{
    c->l2_hit_sectors += l2->st.read_sector_hits;
    c->dram_bytes += (l2->st.dram_read_sectors + l2->st.dram_write_sectors) *
                     (uint64_t)l2->sector_bytes;
}
