/*
 * detailed/issue.c - the Issue stage of one sub-core (seed 000 4, 5.1;
 * seed 001 IV-A).
 *
 * A warp is eligible when its oldest instruction is in the instruction
 * buffer and: its stall counter has expired, it did not set yield in the
 * previous cycle, the dependence counters of its wait mask are zero (and a
 * DEPBAR.LE's condition holds), the input latch of its execution unit will
 * be free (1 cycle for full-warp units, 2 for half-warp: ii_<class>), the
 * sub-core memory queue has room for a memory instruction, and it is not
 * waiting at a barrier.  The Control latch must be free (Allocate holding an
 * instruction stalls issue).  In scoreboard mode the scoreboards replace the
 * stall and dependence counters.
 *
 * Policies: CGGTY (greedy on the last issued warp, else the youngest
 * eligible), GTO (greedy, else oldest), LRR (round robin from the last
 * issued), RBA (fewest pending register-bank reads, ties to the oldest).
 * A fixed-latency instruction with a constant operand looks up the L0 FL
 * constant cache here: a miss blocks all issue for const_miss_switch
 * cycles, then the scheduler switches to the youngest other eligible warp.
 */
#include <string.h>

#include "dm_int.h"

static int eligible(const dm_sm *sm, const dm_sub *s, const dm_warp *w,
                    uint64_t c, int *why)
{
    const dm_params *p = sm->p;
    if (!w->live || w->done) {
        *why = DM_STALL_EXITED;
        return 0;
    }
    if (w->at_bar) {
        *why = DM_STALL_BARRIER;
        return 0;
    }
    if (w->iss == w->tail || w->nx_ready > c) {
        *why = (w->src_end && !w->la_valid && w->iss == w->tail)
                   ? DM_STALL_EXITED
                   : DM_STALL_IBUFFER;
        return 0;
    }
    if (c < w->stall_until) {
        *why = DM_STALL_STALL_COUNTER;
        return 0;
    }
    if (w->yld && w->stall_until == c) { /* yield: the cycle after issue */
        *why = DM_STALL_YIELD;
        return 0;
    }
    if (!w->sbmode) {
        if (dm_dep_blocked(w)) {
            *why = DM_STALL_DEP_COUNTER;
            return 0;
        }
    } else if (!dm_sb_ready(p, (dm_warp *)w, w->sh[w->iss % DM_RING].in,
                            c)) {
        *why = DM_STALL_SCOREBOARD;
        return 0;
    }
    if (w->nx_ismem) {
        if (!dm_mem_can_accept(sm->mem, s->idx)) {
            *why = DM_STALL_MEM_QUEUE;
            return 0;
        }
    } else if (!w->nx_nounit) {
        uint64_t f = (w->nx_lc == WC_LAT_fp64 && p->fp64_shared)
                         ? sm->fp64_free
                         : s->unit_free[w->nx_lc];
        if (c < f) {
            *why = DM_STALL_UNIT;
            return 0;
        }
    }
    return 1;
}

/* RBA score (seed 001 eq. 1 adapted): pending reads of the banks of the
 * regular source registers in the next read window. */
static unsigned rba_score(const dm_sm *sm, dm_sub *s, const dm_warp *w,
                          uint64_t c)
{
    const dm_params *p = sm->p;
    const wc_inst *in = w->sh[w->iss % DM_RING].in;
    unsigned q[DM_MAX_BANKS], sc = 0;
    for (unsigned b = 0; b < p->banks; b++) {
        q[b] = 0;
        for (unsigned k = 1; k <= p->read_window; k++)
            q[b] += *dm_rd(s, b, c + k);
    }
    for (unsigned i = 0; i < in->nsrc; i++)
        if (WC_REG_IS_R(in->src[i]) && in->src[i] != WC_RZ)
            sc += q[dm_bank(p, in->src[i])];
    return sc;
}

/* 0 when wi's next instruction does not wait for its constant operand,
 * else the cycle its constant line arrives (after c). */
static uint64_t const_wait(dm_sm *sm, dm_sub *s, unsigned wi, uint64_t c)
{
    const dm_warp *w = &sm->warps[wi];
    const dm_shot *sl = &w->sh[w->iss % DM_RING];
    if (!sl->constop)
        return 0;
    uint64_t r = dm_mem_const_probe(sm->mem, s->idx, sl->in->const_addr, c);
    return r > c ? r : 0;
}

static void do_issue(dm_sm *sm, dm_sub *s, unsigned wi, uint64_t c)
{
    const dm_params *p = sm->p;
    dm_warp *w = &sm->warps[wi];
    uint32_t idx = w->iss;
    dm_shot *sl = &w->sh[idx % DM_RING];
    if (sm->hwhy[wi] == DM_HW_QREADY)
        sm->hwhy[wi] = DM_STALL_IDLE; /* its next test is a full one */
    const wc_inst *in = sl->in;
    const wc_opinfo *oi = wc_inst_info(in);
    uint64_t tag = 0;
    unsigned st = 1, y = 0;
    dm_mem_class cl;

    if (!w->sbmode && in->ctrl.valid) {
        st = in->ctrl.stall;
        y = in->ctrl.yield;
        if (st > p->quirk_above && !y)
            st = p->quirk_cycles;
        if (st == 0)
            st = (y && ((in->mflags & WC_MF_ERRBAR) || w->prev_exit))
                     ? p->exit_yield_stall
                     : 1;
    }
    w->stall_until = c + st;
    /* yield bars the cycle after issue, c + 1: that cycle passes the stall
     * counter test only when st is 1 */
    w->yld = y && st == 1;
    if (!sl->ismem && !sl->nounit) {
        uint64_t f = c + (uint64_t)dm_inst_ii(p, in, sl->lc);
        if (sl->lc == WC_LAT_fp64 && p->fp64_shared)
            sm->fp64_free = f;
        else
            s->unit_free[sl->lc] = f;
    }
    if (sm->gpu->o.timeline)
        w->x->ev[idx % DM_RING] = dm_event_add(sm->gpu, c, sm, s->idx, w, in);
    if (sl->varlat) {
        tag = dm_fl_alloc(sm);
        if (tag) {
            dm_fl *f = dm_fl_get(sm, tag);
            int ctl = in->ctrl.valid && !w->sbmode;
            f->warp = wi;
            f->rbar = ctl ? in->ctrl.rbar : -1;
            f->wbar = ctl ? in->ctrl.wbar : -1;
            f->banks = dm_shot_banks(sm->gpu, sl);
            f->hasdst = 0;
            if (sl->ismem) {
                if (dm_shot_static(sl))
                    dm_smemo_class(sm->gpu, sm->mem, in, &cl);
                else
                    dm_mem_classify(sm->mem, in, &cl);
                f->hasdst = cl.raw >= 0;
            } else {
                for (unsigned i = 0; i < in->ndst; i++)
                    if (!WC_REG_IS_ZERO(in->dst[i]))
                        f->hasdst = 1;
            }
            w->outstanding++;
        }
        if (sl->ismem && tag) {
            uint8_t hit[WC_MAX_SRC], nb[DM_MAX_BANKS];
            /* a static record's reads worked out once (speed only) */
            const dm_rfcops *o =
                dm_shot_static(sl) ? dm_smemo_ops(sm->gpu, in) : NULL;
            unsigned n = o && o->ok ? dm_rfc_access_ops(p, s, wi, o,
                                                        in->ctrl.reuse, hit,
                                                        nb, 1)
                                    : dm_rfc_access(p, s, wi, in, hit, nb, 1);
            if (sm->gpu->o.timeline)
                dm_event_rfc(sm->gpu, w->x->ev[idx % DM_RING], n, hit);
            const wc_inst *min = in;
            wc_inst hdr; /* the static record with this instance's mask;
                            no lane addresses (addr[] is not read); not
                            made when the record has that mask (speed
                            only: the unit reads no other field that
                            differs, line is for diagnostics) */
            if (sl->smask && in->mask != sl->mask) {
                memcpy(&hdr, in, offsetof(wc_inst, addr));
                hdr.mask = sl->mask;
                hdr.line = 0;
                min = &hdr;
            }
            int prc =
                sl->bufi == DM_PRE_BUF
                    ? dm_mem_push_pre(sm->mem, s->idx, min, &cl,
                                      &sl->pre, wi, tag, c)
                    : dm_mem_push_cl(sm->mem, s->idx, min, &cl, wi, tag, c);
            if (prc != 0)
                dm_fail(sm->gpu, WC_EINTERNAL, "memory unit refused a push");
            sm->mem_quiet = 0;
        }
    }
    if (w->sbmode && dm_sb_issue(w, in, sl->varlat, tag,
                                 c + (uint64_t)dm_inst_lat(p, in, sl->lc)))
        dm_fail(sm->gpu, WC_EINTERNAL,
                "scoreboard full: a dependence entry would be dropped");
    if ((oi->flags & WC_OPF_BAR) && !(in->mflags & WC_MF_ARV)) {
        dm_cta_slot *ct = &sm->ctas[w->cta];
        w->at_bar = 1;
        ct->at_bar++;
        dm_bar_check(sm, w->cta);
    }
    w->prev_exit = (oi->flags & WC_OPF_EXIT) != 0;
    s->ctrl.warp = wi;
    s->qlim = 0; /* dm_sub_requiet */
    s->ctrl.slot = idx;
    s->ctrl.issue = c;
    s->ctrl.tag = tag;
    s->ctrl.seen = 0;
    w->iss++;
    dm_next_load(w);
    dm_want_update(s, w);
    s->fetch_idle = 0;
    s->fetch_until = 0;
    s->issued++;
    sm->gpu->insts++;
    if (in->unit < WC_UNIT_COUNT)
        sm->gpu->insts_by_unit[in->unit]++;
    s->last_issued = wi;
    sm->last_progress = c;
}

/* eligible() of a warp whose hint has passed; sets the next hint. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int elig_slow(dm_sm *sm, dm_sub *s, unsigned wi, uint64_t c, int *why)
{
    const dm_warp *w = &sm->warps[wi];
    if (eligible(sm, s, w, c, why))
        return 1;
    uint64_t h = c + 1;
    switch (*why) {
    case DM_STALL_STALL_COUNTER:
        h = w->stall_until;
        break;
    case DM_STALL_IBUFFER:
        h = w->iss == w->tail ? c + DM_FETCH_TO_IBUF : w->nx_ready;
        break;
    case DM_STALL_UNIT:
        h = (w->nx_lc == WC_LAT_fp64 && sm->p->fp64_shared)
                ? sm->fp64_free
                : s->unit_free[w->nx_lc];
        break;
    case DM_STALL_SCOREBOARD: /* entries clear by time or by an event */
        h = dm_sb_next(w, c);
        break;
    case DM_STALL_MEM_QUEUE:
        /* until the queue has room (sm.c mq_wake, after dm_mem_tick: only
         * a grant frees a slot) or a counter of Control is raised (sm.c:
         * the reason could become dep_counter); nothing else that
         * eligible() tests before the queue changes without this warp
         * issuing */
        h = UINT64_MAX;
        s->mq_sleep = 1;
        dm_bit_put(s->mqw, w->spos, 1);
        break;
    case DM_STALL_DEP_COUNTER:
    case DM_STALL_BARRIER:
    case DM_STALL_EXITED:
        h = UINT64_MAX; /* until dm_wake */
        break;
    default:
        break;
    }
    sm->hint[wi] = h;
    sm->hwhy[wi] = (uint8_t)*why;
    if (h == UINT64_MAX) /* asleep until dm_wake */
        dm_bit_put(s->awake, w->spos, 0);
    return 0;
}

/* eligible() behind the per-warp hint: a warp known to wait until a
 * later cycle (stall counter, decode, unit latch) or an event (dependence
 * counters, barrier) is skipped without touching it. */
static inline int elig(dm_sm *sm, dm_sub *s, unsigned wi, uint64_t c,
                       int *why)
{
    if (sm->gpu->shortcuts) {
        if (c < sm->hint[wi]) {
            *why = sm->hwhy[wi];
            return 0;
        }
        if (sm->hwhy[wi] == DM_HW_QREADY) { /* woken by mq_wake */
            if (dm_mem_can_accept(sm->mem, s->idx))
                return 1;
            /* asleep again, as elig_slow would put it */
            *why = DM_STALL_MEM_QUEUE;
            sm->hint[wi] = UINT64_MAX;
            sm->hwhy[wi] = DM_STALL_MEM_QUEUE;
            s->mq_sleep = 1;
            dm_bit_put(s->mqw, sm->hpos[wi], 1);
            dm_bit_put(s->awake, sm->hpos[wi], 0);
            return 0;
        }
    }
    return elig_slow(sm, s, wi, c, why);
}

/* Youngest eligible warp other than skip (s->warps is in launch order,
 * oldest first), optionally without a pending constant miss.  Only awake
 * warps can be eligible.  After a scan that found none, every warp's hint
 * is past c and hwhy holds the reason eligible() would give; *minhint (if
 * asked) is the least of those hints and, with no_const, of the arrival
 * cycles of the constant lines the eligible ones wait for. */
static unsigned youngest(dm_sm *sm, dm_sub *s, uint64_t c, unsigned skip,
                         int no_const, uint64_t *minhint)
{
    int all = !sm->gpu->shortcuts; /* dm_shortcuts 0: every warp */
    uint64_t mh = UINT64_MAX;
    dm_bitwalk it; /* the scan clears no bit but its own (elig_slow) */
    dm_bitwalk_init(&it, s->awake, (int)s->nwarps, all);
    for (int i; (i = dm_bitwalk_next(&it)) >= 0;) {
        unsigned wi = s->warps[i];
        int why = DM_STALL_IDLE;
        if (wi == skip)
            continue;
        if (!all) { /* elig()'s first test, its hint kept */
            uint64_t h = sm->hint[wi];
            if (c < h) {
                if (h < mh)
                    mh = h;
                continue;
            }
        }
        if (elig(sm, s, wi, c, &why)) {
            uint64_t r;
            if (no_const && (r = const_wait(sm, s, wi, c)) != 0) {
                if (r < mh)
                    mh = r;
                continue;
            }
            return (unsigned)i;
        }
        if (sm->hint[wi] < mh)
            mh = sm->hint[wi];
    }
    if (minhint)
        *minhint = mh;
    return DM_NO_WARP;
}

void dm_issue_tick(dm_sm *sm, dm_sub *s, uint64_t c)
{
    const dm_params *p = sm->p;
    unsigned n = s->nwarps;
    if (n == 0) {
        s->stall[DM_STALL_IDLE]++;
        return;
    }
    if (s->ctrl.warp != DM_NO_WARP) {
        s->stall[DM_STALL_PIPELINE]++;
        return;
    }
    if (c < s->issue_idle_until && sm->gpu->shortcuts) {
        /* nothing changed since the last scan */
        s->stall[s->issue_idle_why]++;
        return;
    }
    unsigned pick = DM_NO_WARP, wi;
    int why_greedy = -1, why_young = -1, young_scan = 0;
    uint64_t young_min = UINT64_MAX;
    if (p->policy == DM_POL_CGGTY || p->policy == DM_POL_GTO) {
        unsigned g = s->last_issued;
        if (g != DM_NO_WARP && elig(sm, s, g, c, &why_greedy)) {
            pick = sm->warps[g].spos;
        } else if (p->policy == DM_POL_CGGTY) {
            pick = youngest(sm, s, c, DM_NO_WARP, 0, &young_min);
            young_scan = 1;
        } else {
            for (unsigned i = 0; i < n && pick == DM_NO_WARP; i++) {
                int why = DM_STALL_IDLE;
                if (elig(sm, s, s->warps[i], c, &why))
                    pick = i;
                else if (why_young < 0 && why != DM_STALL_EXITED)
                    why_young = why;
            }
        }
    } else {
        unsigned best = ~0u;
        for (unsigned k = 0; k < n; k++) {
            unsigned i = p->policy == DM_POL_LRR ? (s->lrr_next + k) % n : k;
            int why = DM_STALL_IDLE;
            if (!elig(sm, s, s->warps[i], c, &why)) {
                if (why_young < 0 && why != DM_STALL_EXITED)
                    why_young = why;
                continue;
            }
            if (p->policy == DM_POL_LRR) {
                pick = i;
                break;
            }
            unsigned sc = rba_score(sm, s, &sm->warps[s->warps[i]], c);
            if (pick == DM_NO_WARP || sc < best) { /* ties: oldest first */
                best = sc;
                pick = i;
            }
        }
    }
    if (pick == DM_NO_WARP) {
        /* every warp was looked at: none can issue before its hint; the
         * youngest scan's reason is that of the youngest warp not exited */
        uint64_t until = UINT64_MAX;
        if (young_scan) {
            /* the scan saw every warp whose hint is not UINT64_MAX (the
             * awake set; all of them with dm_shortcuts 0) */
            until = young_min;
            for (unsigned i = n; i-- > 0 && why_young < 0;)
                if (sm->hwhy[s->warps[i]] != DM_STALL_EXITED &&
                    sm->hwhy[s->warps[i]] != DM_HW_QREADY) /* (none left) */
                    why_young = sm->hwhy[s->warps[i]];
        } else {
            for (unsigned i = n; i-- > 0;) {
                unsigned x = s->warps[i];
                if (sm->hint[x] < until)
                    until = sm->hint[x];
            }
        }
        int r = why_greedy >= 0 && why_greedy != DM_STALL_EXITED ? why_greedy
                : why_young >= 0                                  ? why_young
                                                                  : DM_STALL_EXITED;
        s->stall[r]++;
        s->issue_idle_until = until;
        s->issue_idle_why = (uint8_t)r;
        dm_sub_requiet(s);
        return;
    }
    wi = s->warps[pick];
    uint64_t cw = const_wait(sm, s, wi, c);
    if (cw) {
        if (s->const_warp != wi) {
            s->const_warp = wi;
            s->const_cycles = 0;
        }
        if (++s->const_cycles <= p->const_switch) {
            s->stall[DM_STALL_CONST_MISS]++;
            return;
        }
        /* switch to the youngest other eligible warp without a miss */
        uint64_t until = UINT64_MAX;
        pick = youngest(sm, s, c, wi, 1, &until);
        if (pick == DM_NO_WARP) {
            if (cw < until)
                until = cw;
            s->stall[DM_STALL_CONST_MISS]++;
            /* Speed only: the same scan finds the same nothing until a
             * warp's hint passes, a constant line these warps wait for
             * arrives (the picked one's included), or an event wakes a
             * warp (which clears issue_idle_until); on the way it probed
             * only lines in flight, which changes nothing.  So the
             * stall stands until then, as in the no-eligible-warp case
             * (the rescans were 10-14% of the host instructions on the
             * synthetic shared-memory and tensor kernels, callgrind). */
            if (sm->gpu->shortcuts && until > c + 1) {
                s->issue_idle_until = until;
                s->issue_idle_why = DM_STALL_CONST_MISS;
                dm_sub_requiet(s);
            }
            return;
        }
        wi = s->warps[pick];
    } else if (s->const_warp == wi) {
        s->const_warp = DM_NO_WARP;
    }
    if (p->mem_oldest && sm->warps[wi].nx_ismem) {
        /* memory issue oldest first (mem_issue_oldest): an older warp
         * whose next instruction is a memory one and that could issue
         * takes the memory-queue entry the pick would have taken (no
         * constant-cache wait: a memory instruction is variable latency,
         * so never constop, fetch.c) */
        int sc = sm->gpu->shortcuts;
        int found = 0;
        /* speed only: with dm_shortcuts, the awake warps alone (a warp
         * without its bit has hint UINT64_MAX and fails elig()'s first
         * test), oldest first, a word of the set at a time (elig() clears
         * no bit but the one of the warp it looks at) */
        for (unsigned d = 0; d * 64 < pick && !found; d++) {
            uint64_t bits = sc ? s->awake[d] : ~(uint64_t)0;
            if (pick - d * 64 < 64)
                bits &= ((uint64_t)1 << (pick - d * 64)) - 1;
            for (; bits; bits &= bits - 1) {
                unsigned i = d * 64 + (unsigned)__builtin_ctzll(bits);
                unsigned x = s->warps[i];
                int why = DM_STALL_IDLE;
                if (sc && c < sm->hint[x])
                    continue; /* elig()'s first test (asleep: not read) */
                if (sm->warps[x].nx_ismem && elig(sm, s, x, c, &why)) {
                    pick = i;
                    wi = x;
                    found = 1;
                    break;
                }
            }
        }
    }
    s->lrr_next = pick + 1 < n ? pick + 1 : 0; /* (pick + 1) % n: pick < n */
    do_issue(sm, s, wi, c);
}
