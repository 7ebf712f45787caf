/*
 * detailed/mem_const.c - the constant caches of one SM (seed 000 sections
 * 5.1.1, 5.4 and 6).  Fixed-latency instructions with a c[bank][offset]
 * operand look the operand up in their sub-core's L0 fixed-latency (FL)
 * constant cache at issue; on a miss the scheduler waits (the issue stage's
 * business).  LDC instructions use a different cache, the L0 variable-
 * latency (VL) constant cache: an LDC does not warm the L0 FL cache (the
 * paper measured a 79-cycle miss after an LDC of the same address).  Both
 * L0 caches miss into the SM's L1 instruction/constant cache; an L1 miss is
 * served from L2 with a fixed latency (cc_l1_miss_latency; it does not
 * consume modelled L2 bandwidth: constant traffic is small).
 *
 * Fills complete cc_l0_miss_latency (+ cc_l1_miss_latency) cycles after the
 * miss; lines are present (tag allocated) from the miss on, with the fill
 * time recorded so that later accesses wait for it instead of missing again.
 */
#include <stdlib.h>

#include "mem.h"

struct dm_cc {
    unsigned nsub;
    ua_cache **fl;   /* per sub-core */
    ua_cache *vl;
    ua_cache *l1;
    uint64_t l0_miss, l1_miss;
    uint64_t fl_hits, fl_misses, vl_hits, vl_misses;
};

static ua_cache *mk(long size, long assoc, long line)
{
    ua_cache_geom g = {size, assoc, line, line, 0, 0, UA_SET_MOD};
    return ua_cache_create(&g);
}

dm_cc *dm_cc_create(const wc_gpu *g, unsigned subcores)
{
    dm_cc *cc = calloc(1, sizeof *cc);
    if (!cc)
        return NULL;
    cc->nsub = subcores;
    cc->fl = calloc(subcores ? subcores : 1, sizeof *cc->fl);
    if (!cc->fl)
        goto fail;
    for (unsigned s = 0; s < subcores; s++)
        if (!(cc->fl[s] = mk(g->cc_l0fl_size, g->cc_l0fl_assoc,
                             g->cc_line_bytes)))
            goto fail;
    cc->vl = mk(g->cc_l0vl_size, g->cc_l0vl_assoc, g->cc_line_bytes);
    cc->l1 = mk(g->cc_l1_size, g->cc_l1_assoc, g->cc_line_bytes);
    if (!cc->vl || !cc->l1)
        goto fail;
    /* constant bank 0 written by the launch: resident in the L1 constant
     * cache from cycle 0 (cc_bank0_preload; bank b is at b << 16) */
    for (long a = 0; a < g->cc_bank0_preload; a += g->cc_line_bytes) {
        ua_cache_res r;
        ua_cache_access(cc->l1, (uint64_t)a, 1u, 0, &r);
        ua_cache_set_ready(cc->l1, (uint64_t)a, 1u, 0);
    }
    cc->l0_miss = (uint64_t)g->cc_l0_miss_latency;
    cc->l1_miss = (uint64_t)g->cc_l1_miss_latency;
    return cc;
fail:
    dm_cc_free(cc);
    return NULL;
}

void dm_cc_free(dm_cc *cc)
{
    if (!cc)
        return;
    if (cc->fl)
        for (unsigned s = 0; s < cc->nsub; s++)
            ua_cache_free(cc->fl[s]);
    free(cc->fl);
    ua_cache_free(cc->vl);
    ua_cache_free(cc->l1);
    free(cc);
}

/* Bring addr's line into L0 cache l0 at now: returns the cycle it is there
 * (now on a hit, later on a miss or a fill in flight). */
static uint64_t access_l0(dm_cc *cc, ua_cache *l0, uint64_t addr, uint64_t now,
                          int *hit)
{
    ua_cache_res r;
    ua_cache_access(l0, addr, 1u, 0, &r);
    if (!r.miss) {
        *hit = r.ready <= now;
        return r.ready > now ? r.ready : now;
    }
    *hit = 0;
    ua_cache_res r1;
    ua_cache_access(cc->l1, addr, 1u, 0, &r1);
    uint64_t l1_at = now; /* line in the L1 constant cache */
    if (r1.miss) {
        l1_at = now + cc->l1_miss;
        ua_cache_set_ready(cc->l1, addr, 1u, l1_at);
    } else if (r1.ready > now) {
        l1_at = r1.ready; /* L1 fill still in flight */
    }
    uint64_t at = l1_at + cc->l0_miss;
    ua_cache_set_ready(l0, addr, 1u, at);
    return at;
}

uint64_t dm_cc_probe_fl(dm_cc *cc, unsigned sc, uint64_t addr, uint64_t now)
{
    if (sc >= cc->nsub)
        return now;
    ua_cache *l0 = cc->fl[sc];
    uint64_t ready;
    if (ua_cache_probe(l0, addr, 1u, &ready) && ready > now)
        return ready; /* fill in flight: the issue stage keeps waiting */
    int hit;
    uint64_t at = access_l0(cc, l0, addr, now, &hit);
    if (hit)
        cc->fl_hits++;
    else
        cc->fl_misses++;
    return at;
}

uint64_t dm_cc_access_vl(dm_cc *cc, uint64_t addr, uint64_t now)
{
    int hit;
    uint64_t at = access_l0(cc, cc->vl, addr, now, &hit);
    if (hit)
        cc->vl_hits++;
    else
        cc->vl_misses++;
    return at - now;
}

void dm_cc_stats(const dm_cc *cc, uint64_t *fl_hits, uint64_t *fl_misses,
                 uint64_t *vl_hits, uint64_t *vl_misses)
{
    *fl_hits = cc->fl_hits;
    *fl_misses = cc->fl_misses;
    *vl_hits = cc->vl_hits;
    *vl_misses = cc->vl_misses;
}
