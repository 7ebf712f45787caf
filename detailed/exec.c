/*
 * detailed/exec.c - the back end of one sub-core: events of the memory
 * unit, the variable-latency queue of non-memory units (MUFU, conversions,
 * FP64 when variable) and the register-file write-back (seed 000 4, 5.3).
 *
 * Fixed-latency results go through the result queue and never wait: their
 * write slots are marked by Allocate.  Variable-latency results wait for a
 * bank write port free of fixed-latency writes (rf_write_ports per bank),
 * then release their write (RAW/WAW) dependence counter; a waiting consumer
 * issues in that same cycle.  Read (WAR) counters are released when the
 * source operands have been read: by the memory unit's WAR event, or by the
 * variable-latency queue once it got read slots not reserved by Allocate
 * (fixed-latency instructions have priority on the read ports).
 */
#include <string.h>
#include <stdlib.h>

#include "dm_int.h"

/* Release counter sb of w (none: sb < 0) and wake w.  Speed only: with
 * control bits the wake is skipped when it could not change what the
 * warp's next test finds.  A release that moves no counter (none named, a
 * raise it cancels, a counter at 0) changes nothing eligible() reads; one
 * that leaves a warp asleep on its counters (hint UINT64_MAX, reason
 * dep_counter: every test before the counters passed when it slept, and
 * none of them can fail again without an issue) still blocked leaves it
 * asleep for the same reason.  On copy2-16384x256 that is most of the
 * 2.1 M releases; each woke the warp for a full test and its sub-core for
 * a scan that found what the last one found.  In scoreboard mode the
 * caller releases entries next: always wake. */
static void sb_dec(dm_sm *sm, dm_warp *w, const dm_fl *f, int8_t sb)
{
    unsigned wi = (unsigned)(w - sm->warps);
    if (!f->raise_pending && sb >= 0 && sb < DM_SB && w->sb[sb] > 0) {
        w->sb[sb]--;
        if (!w->sbmode && sm->hint[wi] == UINT64_MAX &&
            sm->hwhy[wi] == DM_STALL_DEP_COUNTER && dm_dep_blocked(w))
            return;
    } else if (!w->sbmode) {
        return;
    }
    dm_wake(sm, wi);
}

/* The instruction of tag (record f) has completed: release its record. */
static void finish(dm_sm *sm, dm_fl *f, uint64_t tag)
{
    unsigned wi = f->warp;
    dm_warp *w = &sm->warps[wi];
    if (w->outstanding)
        w->outstanding--;
    dm_fl_put(sm, f, tag);
    dm_warp_check_done(sm, wi);
}

static int wbq_push(dm_sm *sm, dm_sub *s, uint64_t tag, uint8_t banks,
                    uint64_t cycle)
{
    if (s->wbq_n == s->wbq_cap) {
        unsigned cap = s->wbq_cap ? 2 * s->wbq_cap : 16;
        dm_wb *n = realloc(s->wbq, cap * sizeof *n);
        if (!n) {
            dm_fail(sm->gpu, WC_EINTERNAL, "out of memory (write-back queue)");
            return -1;
        }
        s->wbq = n;
        s->wbq_cap = cap;
    }
    s->wbq[s->wbq_n].tag = tag;
    s->wbq[s->wbq_n].banks = banks;
    s->wbq[s->wbq_n].cycle = cycle;
    s->wbq_n++;
    if (cycle < s->wbq_min) {
        s->wbq_min = cycle;
        dm_sub_requiet(s);
    }
    return 0;
}

/* f: the record of tag (dm_fl_get) */
static void on_war(dm_sm *sm, dm_fl *f, uint64_t tag, uint64_t c)
{
    dm_warp *w = &sm->warps[f->warp];
    if (f->war_done)
        return;
    f->war_done = 1;
    sb_dec(sm, w, f, f->rbar);
    if (w->sbmode)
        dm_sb_release(&sm->wcold[f->warp], tag, 0, c);
    if (!f->hasdst) {
        sb_dec(sm, w, f, f->wbar);
        f->wbar_done = 1;
        if (w->sbmode)
            dm_sb_release(&sm->wcold[f->warp], tag, 1, c);
        finish(sm, f, tag);
    }
}

void dm_mem_events(dm_sm *sm, uint64_t c, size_t n)
{
    if (n == 0)
        n = dm_mem_poll(sm->mem, c, sm->evbuf, 64);
    for (; n > 0; n = dm_mem_poll(sm->mem, c, sm->evbuf, 64)) {
        for (size_t i = 0; i < n; i++) {
            const dm_mem_event *e = &sm->evbuf[i];
            uint64_t tag = e->tag;
            dm_fl *f = dm_fl_get(sm, tag);
            if (!f)
                continue; /* a late event of a finished instruction */
            if (e->kind == DM_MEM_EV_WAR) {
                on_war(sm, f, tag, c);
            } else if (e->kind == DM_MEM_EV_RAW && f->hasdst && !f->raw_done) {
                f->raw_done = 1;
                if (!f->war_done)
                    on_war(sm, f, tag, c);
                wbq_push(sm, &sm->sub[sm->warps[f->warp].sub], tag, f->banks,
                         e->cycle);
            }
        }
        sm->last_progress = c;
    }
}

void dm_writeback_tick(dm_sm *sm, dm_sub *s, uint64_t c)
{
    const dm_params *p = sm->p;
    unsigned k = 0;
    if (c < s->wbq_min && sm->gpu->shortcuts)
        return; /* nothing due (or the queue is empty) */
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < s->wbq_n; i++) {
        dm_wb q = s->wbq[i];
        int ok = q.cycle <= c;
        for (unsigned b = 0; ok && b < p->banks; b++)
            if ((((unsigned)q.banks >> b) & 1u) &&
                *dm_wr(s, b, c) >= p->write_ports)
                ok = 0;
        if (!ok) {
            s->wbq[k++] = q;
            if (q.cycle < next)
                next = q.cycle;
            continue;
        }
        for (unsigned b = 0; b < p->banks; b++)
            if (((unsigned)q.banks >> b) & 1u)
                (*dm_wr(s, b, c))++;
        dm_fl *f = dm_fl_get(sm, q.tag);
        if (!f)
            continue;
        dm_warp *w = &sm->warps[f->warp];
        sb_dec(sm, w, f, f->wbar);
        f->wbar_done = 1;
        if (w->sbmode)
            dm_sb_release(&sm->wcold[f->warp], q.tag, 1, c);
        finish(sm, f, q.tag);
        sm->last_progress = c;
    }
    s->wbq_n = k;
    s->wbq_min = next;
    dm_sub_requiet(s);
}

void dm_vq_tick(dm_sm *sm, dm_sub *s, uint64_t c)
{
    const dm_params *p = sm->p;
    if (s->vq_n == 0)
        return;
    dm_vop *v = &s->vq[0];
    unsigned left = 0;
    for (unsigned b = 0; b < p->banks; b++) {
        if (v->nbank[b] && *dm_rd(s, b, c) < p->read_ports) {
            (*dm_rd(s, b, c))++;
            v->nbank[b]--;
        }
        left += v->nbank[b];
    }
    if (left)
        return;
    /* operands read in c: WAR released; the result comes lat after issue */
    uint64_t tag = v->tag;
    dm_fl *f = dm_fl_get(sm, tag);
    if (f) {
        dm_warp *w = &sm->warps[f->warp];
        sb_dec(sm, w, f, f->rbar);
        if (w->sbmode)
            dm_sb_release(&sm->wcold[f->warp], tag, 0, c);
        f->war_done = 1;
    }
    uint64_t when = v->issue + (uint64_t)v->lat;
    if (when <= c)
        when = c + 1;
    wbq_push(sm, s, tag, v->wbanks, when);
    memmove(&s->vq[0], &s->vq[1], (s->vq_n - 1) * sizeof *s->vq);
    s->vq_n--;
    dm_sub_requiet(s);
    sm->last_progress = c;
}
