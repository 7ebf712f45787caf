/*
 * detailed/control.c - the Control stage of one sub-core (seed 000 4 and
 * 5.1.1).
 *
 * Every instruction spends the cycle after its issue here.  Control raises
 * the dependence counters named by its write / read counter fields (the
 * increments are seen by Issue from the next cycle: a consumer right behind
 * its producer needs a stall counter of 2) and reads the clock for CS2R /
 * S2UR SR_CLOCKLO.  Then a fixed-latency instruction moves to Allocate when
 * Allocate is free; a memory instruction (already handed to the memory
 * unit at issue) leaves; another variable-latency instruction enters the
 * sub-core's variable-latency queue when it has room.  While an
 * instruction cannot leave, Issue is stalled.
 */
#include <stdlib.h>
#include <string.h>

#include "dm_int.h"

static void record_clock(dm_gpu *gpu, dm_warp *w, uint64_t c)
{
    if (w->nclocks == w->capclocks) {
        size_t cap = w->capclocks ? 2 * w->capclocks : 16;
        uint64_t *n = realloc(w->clocks, cap * sizeof *n);
        if (!n) {
            dm_fail(gpu, WC_EINTERNAL, "out of memory (clock records)");
            return;
        }
        w->clocks = n;
        w->capclocks = cap;
    }
    w->clocks[w->nclocks++] = c;
}

static int to_vq(dm_sm *sm, dm_sub *s, dm_warp *w, dm_shot *sl)
{
    const dm_params *p = sm->p;
    if (s->vq_n >= s->vq_cap)
        return 0;
    dm_vop *v = &s->vq[s->vq_n++];
    s->qlim = 0; /* dm_sub_requiet */
    uint8_t hit[8] = {0};
    unsigned n = dm_rfc_access(p, s, s->ctrl.warp, sl->in, hit, v->nbank, 1);
    if (sm->gpu->o.timeline)
        dm_event_rfc(sm->gpu, w->x->ev[s->ctrl.slot % DM_RING], n, hit);
    v->warp = s->ctrl.warp;
    v->tag = s->ctrl.tag;
    v->lc = sl->lc;
    v->lat = dm_inst_lat(p, sl->in, sl->lc);
    v->wbanks = dm_shot_banks(sm->gpu, sl);
    v->issue = s->ctrl.issue;
    (void)w;
    return 1;
}

void dm_control_tick(dm_sm *sm, dm_sub *s, uint64_t c)
{
    if (s->ctrl.warp == DM_NO_WARP)
        return;
    dm_warp *w = &sm->warps[s->ctrl.warp];
    dm_shot *sl = &w->sh[s->ctrl.slot % DM_RING];
    const wc_inst *in = sl->in;
    if (!s->ctrl.seen) {
        s->ctrl.seen = 1;
        if (in->ctrl.valid && !w->sbmode) {
            s->pend_warp = (int)s->ctrl.warp;
            s->pend_sb[0] = in->ctrl.wbar;
            s->pend_sb[1] = in->ctrl.rbar;
            s->pend_tag = s->ctrl.tag;
            /* an instruction whose variable-latency record could not be
             * made never releases its counters: do not raise them */
            if (sl->varlat && !s->ctrl.tag)
                s->pend_warp = -1;
            if (!sl->varlat)
                s->pend_warp = -1; /* fixed latency: no counters */
            if (s->pend_warp >= 0)
                sm->pend_subs |= 1u << (unsigned)(s - sm->sub);
            dm_fl *pf = s->pend_warp >= 0 ? dm_fl_get(sm, s->pend_tag) : NULL;
            if (pf)
                pf->raise_pending = 1;
        }
        if ((in->iflags & WC_IF_CLOCK) && sm->gpu->ubench)
            record_clock(sm->gpu, w, c);
    }
    if (sl->ismem || (sl->varlat && !s->ctrl.tag)) {
        dm_release_slot(s, w, s->ctrl.slot);
    } else if (sl->varlat) {
        if (!to_vq(sm, s, w, sl))
            return;
        dm_release_slot(s, w, s->ctrl.slot);
    } else {
        if (s->alloc.warp != DM_NO_WARP)
            return;
        s->alloc = s->ctrl;
    }
    /* qlim stays 0 (dm_sub_requiet): a slot released (Fetch to look
     * again) or the Allocate latch taken */
    s->ctrl.warp = DM_NO_WARP;
    dm_warp_check_done(sm, (unsigned)(w - sm->warps));
}
