/*
 * detailed/fetch.c - Fetch and Decode of one sub-core (seed 000 5.2).
 *
 * One instruction per cycle per sub-core.  The fetch scheduler follows the
 * warp that issued last (greedy, like the issue scheduler) unless that
 * warp's instruction buffer plus its fetches in flight already hold
 * ibuffer_entries instructions; then it takes the youngest warp with room.
 * A fetch that misses in the L0 icache waits for the fill; meanwhile the
 * slot goes to the youngest warp whose next line is present.  A fetched
 * instruction is decoded the next cycle and can issue the cycle after that
 * (two stages from fetch to issue).
 */
#include <stddef.h>
#include <string.h>

#include "dm_int.h"

/* Read the next instruction of w's stream into its look-ahead. */
int dm_warp_next(dm_sm *sm, dm_warp *w)
{
    w->la_valid = 0;
    if (w->src_end)
        return 0;
    if (w->code) {
        if (w->pos < w->ncode) {
            w->x->la = w->code[w->pos++];
            w->la_valid = 1;
            w->la_pc = w->x->la.pc;
        } else {
            w->src_end = 1;
        }
        return 0;
    }
    int rc = wc_cta_next(w->tcta, w->stream, &w->x->la, sm->gpu->d);
    if (rc > 0) {
        w->la_valid = 1;
        w->la_pc = w->x->la.pc;
        return 0;
    }
    w->src_end = 1;
    if (rc < 0) {
        sm->gpu->err = sm->gpu->d->code ? sm->gpu->d->code : WC_EINPUT;
        return -1;
    }
    return 0;
}

static uint64_t line_of(const dm_params *p, const dm_warp *w)
{
    return (w->pcbase + w->la_pc) / p->icache_line;
}

static void classify(dm_slot *sl)
{
    const wc_opinfo *oi = wc_inst_info(&sl->in);
    int lc = wc_inst_latclass(&sl->in);
    sl->lc = (uint8_t)(lc >= 0 && lc < WC_LAT_COUNT ? lc : WC_LAT_misc);
    sl->ismem = sl->lc == WC_LAT_mem;
    sl->varlat = sl->ismem || (oi->flags & WC_OPF_VARLAT) != 0;
    sl->nounit = (oi->flags & (WC_OPF_NOP | WC_OPF_DEPBAR)) != 0;
}

static void do_fetch(dm_sm *sm, dm_sub *s, dm_warp *w, uint64_t c)
{
    dm_slot *sl = &w->x->ring[w->tail % DM_RING];
    /* the per-lane addresses (a third of the record) only when present:
     * nothing reads them without WC_IF_HAS_ADDR */
    memcpy(&sl->in, &w->x->la, offsetof(wc_inst, addr));
    if (w->x->la.iflags & WC_IF_HAS_ADDR)
        memcpy(sl->in.addr, w->x->la.addr, sizeof w->x->la.addr);
    sl->ready = c + DM_FETCH_TO_IBUF; /* decode in c+1, ibuffer from c+2 */
    sl->busy = 1;
    sl->ev = 0;
    classify(sl);
    dm_shot *h = &w->sh[w->tail % DM_RING];
    h->ready = sl->ready;
    h->wait = sl->in.ctrl.valid ? sl->in.ctrl.wait : 0;
    h->depbar_sb = sl->in.depbar_sb;
    h->depbar_le = sl->in.depbar_le;
    h->depbar_ids = sl->in.depbar_ids;
    h->lc = sl->lc;
    h->ismem = sl->ismem;
    h->nounit = sl->nounit;
    h->constop = !sl->varlat && (sl->in.iflags & WC_IF_CONSTOP) != 0;
    w->tail++;
    dm_warp_next(sm, w);
    dm_want_update(s, w);
}

void dm_fetch_tick(dm_sm *sm, dm_sub *s, uint64_t c)
{
    const dm_params *p = sm->p;
    unsigned greedy = DM_NO_WARP;
    if (s->fetch_idle && sm->gpu->shortcuts)
        return; /* no warp had room, and none got some since */
    if (s->last_issued != DM_NO_WARP &&
        dm_wants(p->ibuf, &sm->warps[s->last_issued])) {
        greedy = s->last_issued;
        dm_warp *w = &sm->warps[greedy];
        if (dm_icache_access(s->l0i, line_of(p, w), c, 0)) {
            do_fetch(sm, s, w, c);
            return;
        }
    }
    /* youngest warp with room whose line is present (s->warps is in
     * launch order; s->fwant has the warps with room); else start the
     * miss of the youngest one */
    dm_warp *young = NULL;
    int all = !sm->gpu->shortcuts; /* dm_shortcuts 0: every warp */
    for (int i = all ? (int)s->nwarps - 1 : dm_bit_prev(s->fwant, (int)s->nwarps);
         i >= 0; i = all ? i - 1 : dm_bit_prev(s->fwant, i)) {
        unsigned wi = s->warps[i];
        if (wi == greedy)
            continue;
        dm_warp *w = &sm->warps[wi];
        if (!dm_wants(p->ibuf, w))
            continue;
        if (!young)
            young = w;
        if (dm_icache_access(s->l0i, line_of(p, w), c, 1)) {
            dm_icache_access(s->l0i, line_of(p, w), c, 0);
            do_fetch(sm, s, w, c);
            return;
        }
    }
    if (!young && greedy == DM_NO_WARP)
        s->fetch_idle = 1;
    else if (young && greedy == DM_NO_WARP &&
             dm_icache_access(s->l0i, line_of(p, young), c, 0))
        do_fetch(sm, s, young, c);
}
