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
#include <stdlib.h>
#include <string.h>

#include "dm_int.h"

/* The kept copy of the static header of b (a memory instruction decoded
 * with its lane addresses from static record sid), or NULL: none kept and
 * no room, or not a binary trace's record. */
static const wc_inst *hdr_get(dm_gpu *gpu, uint32_t sid, const wc_inst *b)
{
    if (sid == WC_SID_NONE || b->line != 0)
        return NULL;
    wc_inst **e = &gpu->hdr[sid % DM_HDR];
    if (!*e) {
        if (!(*e = calloc(1, sizeof **e)))
            return NULL;
        memcpy(*e, b, offsetof(wc_inst, addr));
        return *e;
    }
    /* the same static fields (the reader copies them from its table,
     * padding included, then sets mask and line 0) */
    if (memcmp(*e, b, offsetof(wc_inst, mask)) == 0 &&
        memcmp(&(*e)->line, &b->line,
               offsetof(wc_inst, addr) - offsetof(wc_inst, line)) == 0)
        return *e;
    return NULL;
}

/* Speed only: the lines the next refill of w's look-ahead queue reads
 * first (the CTA, the stream's state and its next byte: laq_pf). */
static inline void refill_prefetch(const dm_warp *w)
{
    __builtin_prefetch(w->tcta);
    if (w->laq_pf[0])
        __builtin_prefetch(w->laq_pf[0]);
    if (w->laq_pf[1])
        __builtin_prefetch(w->laq_pf[1]);
}

/* Read the next instruction of w's stream into its look-ahead: the
 * trace's static record when it has no lane addresses; a memory
 * instruction with lane addresses as the kept copy of its static header
 * and what the memory unit takes of its lanes (la_pre, found while the
 * decoded record is in the host caches); else decoded into the buffer of
 * the ring slot it will take (w->tail). */
int dm_warp_next(dm_sm *sm, dm_warp *w)
{
    dm_wcold *x = w->x;
    w->la_valid = 0;
    w->la_pre_ok = 0;
    if (w->src_end)
        return 0;
    if (w->code) {
        if (w->pos < w->ncode) {
            w->la = &w->code[w->pos++];
            w->la_mask = w->la->mask;
            w->la_valid = 1;
            w->la_line = dm_code_line(sm->p, w->pcbase + w->la->pc);
        } else {
            w->src_end = 1;
        }
        return 0;
    }
    if (w->laq_i == w->laq_n) {
        wc_iref r[DM_LAQ];
        size_t n = 0;
        wc_inst *d = sm->gpu->dec;
        /* again, now: lines prefetched when the last queued instruction
         * was taken may have left the nearer host caches since; the three
         * load in parallel rather than one after the other */
        refill_prefetch(w);
        int rc = wc_cta_next_refs(w->tcta, w->stream, d, r, DM_LAQ, &n,
                                  sm->gpu->d);
        if (rc <= 0 || n == 0) {
            w->src_end = 1;
            if (rc < 0) {
                sm->gpu->err =
                    sm->gpu->d->code ? sm->gpu->d->code : WC_EINPUT;
                return -1;
            }
            return 0;
        }
        w->laq_pre = 0;
        for (size_t i = 0; i < n; i++) {
            w->laq_in[i] = r[i].in;
            w->laq_mask[i] = r[i].mask;
        }
        if (r[n - 1].in == d) { /* decoded: the last one only */
            const wc_inst *hd;
            dm_mem_class cl;
            int lc = wc_inst_latclass(d);
            /* d's class is its kept header's (the same fields but mask) */
            if (lc == WC_LAT_mem &&
                (hd = hdr_get(sm->gpu, r[n - 1].sid, d)) != NULL &&
                (dm_smemo_class(sm->gpu, sm->mem, hd, &cl),
                 dm_mem_pre_make_cl(sm->mem, d, &cl, &w->la_pre))) {
                w->laq_in[n - 1] = hd;
                w->laq_pre = 1;
            } else {
                /* the ones before it are static records: bufk is still
                 * the look-ahead's buffer when it becomes the look-ahead */
                memcpy(&x->buf[w->bufk], d, sizeof *d);
                w->laq_in[n - 1] = &x->buf[w->bufk];
            }
        }
        w->laq_n = (uint8_t)n;
        w->laq_i = 0;
        wc_cta_next_addrs(w->tcta, w->stream, w->laq_pf);
    }
    unsigned i = w->laq_i++;
    w->la = w->laq_in[i];
    w->la_mask = w->laq_mask[i];
    w->la_pre_ok = w->laq_pre && w->laq_i == w->laq_n;
    if (w->laq_i == w->laq_n) /* the next call refills: its first reads,
                                 in parallel now rather than as three
                                 dependent misses then */
        refill_prefetch(w);
    w->la_valid = 1;
    w->la_line = dm_code_line(sm->p, w->pcbase + w->la->pc);
    return 0;
}

static uint64_t line_of(const dm_params *p, const dm_warp *w)
{
    (void)p;
    return w->la_line;
}

static void do_fetch(dm_sm *sm, dm_sub *s, dm_warp *w, uint64_t c)
{
    dm_wcold *x = w->x;
    dm_shot *h = &w->sh[w->tail % DM_RING];
    const wc_inst *in = w->la;
    const wc_opinfo *oi = wc_inst_info(in);
    int lc = wc_inst_latclass(in);
    h->lc = (uint8_t)(lc >= 0 && lc < WC_LAT_COUNT ? lc : WC_LAT_misc);
    h->ismem = h->lc == WC_LAT_mem;
    h->varlat = h->ismem || (oi->flags & WC_OPF_VARLAT) != 0;
    h->nounit = (oi->flags & (WC_OPF_NOP | WC_OPF_DEPBAR)) != 0;
    wc_inst *b = &x->buf[w->bufk];
    /* the memory unit reads the mask: the static record with this
     * instance's (as the trace reader decodes it), copied at issue to the
     * stack (speed only: a copy here went to a decode buffer that is cold
     * again by the issue) */
    h->smask = h->ismem && !w->code && in != b;
    h->mask = w->la_mask;
    h->bufi = DM_NO_BUF;
    if (w->la_pre_ok) { /* on the static header: smask is set */
        h->pre = w->la_pre;
        h->bufi = DM_PRE_BUF;
    } else if (in == b) { /* the slot holds the buffer until it retires */
        h->bufi = w->bufk;
        w->bufuse |= (uint16_t)(1u << w->bufk);
        /* at most DM_RING slots hold one: one of DM_RING_BUF is free */
        w->bufk = (uint8_t)__builtin_ctz(~(unsigned)w->bufuse);
    }
    h->in = in;
    h->ready = c + DM_FETCH_TO_IBUF; /* decode in c+1, ibuffer from c+2 */
    h->busy = 1;
    if (sm->gpu->o.timeline)
        x->ev[w->tail % DM_RING] = 0;
    h->wait = in->ctrl.valid ? in->ctrl.wait : 0;
    h->depbar_sb = in->depbar_sb;
    h->depbar_le = in->depbar_le;
    h->depbar_ids = in->depbar_ids;
    h->constop = !h->varlat && (in->iflags & WC_IF_CONSTOP) != 0;
    w->tail++;
    if (w->tail - w->iss == 1)
        dm_next_load(w);
    dm_warp_next(sm, w);
    dm_want_update(s, w);
}

/* dm_icache_access of s's L0 behind s->ic_known: an access of the line the
 * last full access of its set touched is answered without the cache, from
 * its ready cycle (its LRU stamp orders it only within its set, where it
 * is the newest already; its fill time stays).  A probe changes nothing; a
 * full access changes only its line's set.  (Speed only: while a fill is
 * in flight every warp waiting for it probed the cache every cycle,
 * 3.8% of the host instructions on strided2.) */
static inline int ic_present(dm_sub *s, uint64_t line, uint64_t c,
                             int probe_only)
{
    if (!s->ic_sets)
        return dm_icache_access(s->l0i, line, c, probe_only);
    struct dm_ic_known *k = &s->ic_known[line % s->ic_sets];
    if (k->line == line + 1)
        return k->ready <= c;
    int r = dm_icache_access(s->l0i, line, c, probe_only);
    if (!probe_only) { /* now in the L0, its set's newest way */
        k->line = line + 1;
        k->ready = dm_icache_when(s->l0i, line);
    }
    return r;
}

/* The first cycle a probe of line finds it ready (dm_icache_when), from
 * s->ic_known when it has the line. */
static uint64_t ic_when(dm_sub *s, uint64_t line)
{
    if (s->ic_sets) {
        const struct dm_ic_known *k = &s->ic_known[line % s->ic_sets];
        if (k->line == line + 1)
            return k->ready;
    }
    return dm_icache_when(s->l0i, line);
}

/* Speed only.  Fetch found no line ready in cycle c for any warp with room
 * (the greedy warp's and the youngest one's looked up in full, the others
 * probed): let it rest until the first of those lines is ready.  Exact:
 * until a warp's room, the greedy warp or the warps change (each clears
 * fetch_until), the next ticks would repeat the same lookups; the probes
 * change nothing, and the full lookups find lines now in the L0 (the last
 * full lookups put them there) and only touch them again, in the same
 * order, which leaves their sets' recency order as it is (dm_sub.
 * ic_known), so the L0 and its stream buffer stay as they are and each
 * lookup's answer changes first when its line's fill time comes. */
static void fetch_sleep(dm_sm *sm, dm_sub *s, uint64_t c)
{
    uint64_t u = UINT64_MAX;
    for (unsigned d = 0; d < DM_WMASK; d++)
        for (uint64_t b = s->fwant[d]; b; b &= b - 1) {
            unsigned k = d * 64 + (unsigned)__builtin_ctzll(b);
            if (k >= s->nwarps)
                break;
            const dm_warp *w = &sm->warps[s->warps[k]];
            if (!dm_wants(s->ibuf, w))
                continue;
            uint64_t t = ic_when(s, line_of(sm->p, w));
            if (t < u)
                u = t;
        }
    if (u > c + 1 && u != UINT64_MAX) {
        s->fetch_until = u;
        dm_sub_requiet(s);
    }
}

void dm_fetch_tick(dm_sm *sm, dm_sub *s, uint64_t c)
{
    const dm_params *p = sm->p;
    unsigned greedy = DM_NO_WARP;
    if (sm->gpu->shortcuts && (s->fetch_idle || c < s->fetch_until))
        return; /* no warp had room, and none got some since; or no line
                   of one is ready before fetch_until (fetch_sleep) */
    if (s->fetch_until) { /* it passed */
        s->fetch_until = 0;
        s->qlim = 0; /* dm_sub_requiet: not quiet */
    }
    if (s->last_issued != DM_NO_WARP &&
        dm_wants(p->ibuf, &sm->warps[s->last_issued])) {
        greedy = s->last_issued;
        dm_warp *w = &sm->warps[greedy];
        if (ic_present(s, line_of(p, w), c, 0)) {
            do_fetch(sm, s, w, c);
            return;
        }
    }
    /* youngest warp with room whose line is present (s->warps is in
     * launch order; s->fwant has the warps with room); else start the
     * miss of the youngest one */
    dm_warp *young = NULL;
    int all = !sm->gpu->shortcuts; /* dm_shortcuts 0: every warp */
    dm_bitwalk it; /* the scan changes no bit before it fetches */
    dm_bitwalk_init(&it, s->fwant, (int)s->nwarps, all);
    for (int i; (i = dm_bitwalk_next(&it)) >= 0;) {
        unsigned wi = s->warps[i];
        if (wi == greedy)
            continue;
        dm_warp *w = &sm->warps[wi];
        if (!dm_wants(p->ibuf, w))
            continue;
        if (!young)
            young = w;
        if (ic_present(s, line_of(p, w), c, 1)) {
            ic_present(s, line_of(p, w), c, 0);
            do_fetch(sm, s, w, c);
            return;
        }
    }
    if (!young && greedy == DM_NO_WARP) {
        s->fetch_idle = 1;
        dm_sub_requiet(s);
    } else if (young && greedy == DM_NO_WARP &&
               ic_present(s, line_of(p, young), c, 0)) {
        do_fetch(sm, s, young, c);
    } else if (sm->gpu->shortcuts) {
        fetch_sleep(sm, s, c);
    }
}
