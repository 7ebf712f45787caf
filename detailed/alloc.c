/*
 * detailed/alloc.c - the Allocate stage, the register file read ports and
 * the register file cache (seed 000 5.1.1, 5.3, 5.3.1).
 *
 * Register r lives in bank r % rf_banks; each bank has rf_read_ports read
 * ports of 1024 bits (one warp register per cycle).  A fixed-latency
 * instruction in Allocate in cycle c must reserve, for every register it
 * reads from the RF (operands found in the RFC need none; a register read
 * twice by one instruction is read once; multi-register operands read each
 * of their registers from its own bank), a free read slot of its bank within
 * cycles c+1 .. c+rf_read_window.  It takes the earliest free slots; if any
 * bank lacks slots it stays in Allocate, which stalls Control and Issue.
 * Its result is written rf lat cycles after issue through the result queue:
 * the write slot is marked so a variable-latency write-back that cycle waits.
 *
 * RFC (one entry per bank and operand slot 0..UA_RFC_SLOTS-1, tagged with warp and
 * register): operand slot i of an instruction hits when the entry of its
 * bank and slot holds the same warp and register.  After the read the entry
 * is kept / allocated when the reuse bit of slot i is set and invalidated
 * otherwise, hit or not (Listing 4).
 */
#include <string.h>

#include "dm_int.h"

uint8_t dm_dst_banks(const dm_params *p, const wc_inst *in)
{
    uint8_t m = 0;
    for (unsigned i = 0; i < in->ndst; i++) {
        wc_reg r = in->dst[i];
        if (!WC_REG_IS_R(r) || r == WC_RZ)
            continue;
        unsigned n = in->dst_nregs[i] ? in->dst_nregs[i] : 1;
        for (unsigned k = 0; k < n; k++)
            m = (uint8_t)(m | (1u << dm_bank(p, (unsigned)r + k)));
    }
    return m;
}

unsigned dm_rfc_access(const dm_params *p, dm_sub *s, unsigned warp,
                       const wc_inst *in, uint8_t *hit,
                       uint8_t nbank[DM_MAX_BANKS], int commit)
{
    unsigned op = 0, nread = 0;
    /* the registers read from the RF so far (at most WC_MAX_SRC * 4 of
     * them), one bit each: registers are below WC_RZ (a linear search of
     * a list was 3.7% of the host instructions on a tensor kernel, whose
     * HMMAs read ten registers) */
    uint64_t seen[4] = {0, 0, 0, 0};
    _Static_assert(WC_RZ <= 256, "dm_rfc_access: a register's bit in seen");
    memset(nbank, 0, DM_MAX_BANKS);
    for (unsigned i = 0; i < in->nsrc; i++) {
        wc_reg r = in->src[i];
        if (!WC_REG_IS_R(r))
            continue;
        unsigned slot = op++;
        int all = r != WC_RZ;
        if (r == WC_RZ) {
            if (hit && slot < 8)
                hit[slot] = 0;
            continue;
        }
        unsigned n = in->src_nregs[i] ? in->src_nregs[i] : 1;
        for (unsigned k = 0; k < n; k++) {
            unsigned reg = (unsigned)r + k;
            if (reg >= WC_RZ)
                break;
            unsigned b = dm_bank(p, reg);
            int h = 0;
            dm_rfce *e = NULL;
            if (p->rfc && slot < DM_RFC_SLOTS) {
                e = &s->rfc[b][slot];
                h = e->warp == warp && e->reg == reg;
            }
            if (!h) {
                all = 0;
                uint64_t bit = (uint64_t)1 << (reg & 63);
                if (!(seen[reg >> 6] & bit) && nread < WC_MAX_SRC * 4) {
                    seen[reg >> 6] |= bit;
                    nread++;
                    nbank[b]++;
                }
            }
            if (commit && e) {
                if ((in->ctrl.reuse >> slot) & 1u) {
                    e->warp = warp;
                    e->reg = (uint16_t)reg;
                } else {
                    e->warp = DM_NO_WARP;
                }
            }
        }
        if (hit && slot < 8)
            hit[slot] = (uint8_t)all;
    }
    return op;
}

void dm_rfcops_make(const dm_params *p, const wc_inst *in, dm_rfcops *o)
{
    _Static_assert(WC_RZ <= 256 && DM_RFC_OPS <= 32 && WC_MAX_SRC <= 8,
                   "dm_rfcops: a register in a byte, a uid and a slot in a "
                   "32-bit mask");
    unsigned op = 0, n = 0, nu = 0;
    uint8_t uid_of[256];
    uint64_t seen[4] = {0, 0, 0, 0};
    o->live = 0;
    o->ok = 0;
    for (unsigned i = 0; i < in->nsrc; i++) {
        wc_reg r = in->src[i];
        if (!WC_REG_IS_R(r))
            continue;
        unsigned slot = op++;
        if (r == WC_RZ)
            continue;
        if (slot < 8)
            o->live |= (uint8_t)(1u << slot);
        unsigned nr = in->src_nregs[i] ? in->src_nregs[i] : 1;
        for (unsigned k = 0; k < nr; k++) {
            unsigned reg = (unsigned)r + k;
            if (reg >= WC_RZ)
                break;
            if (n == DM_RFC_OPS) { /* more than an entry holds */
                o->ok = 0;
                return;
            }
            uint64_t bit = (uint64_t)1 << (reg & 63);
            if (!(seen[reg >> 6] & bit)) {
                seen[reg >> 6] |= bit;
                uid_of[reg] = (uint8_t)nu++;
            }
            o->e[n].reg = (uint8_t)reg;
            o->e[n].bank = (uint8_t)dm_bank(p, reg);
            o->e[n].slot = (uint8_t)slot;
            o->e[n].uid = uid_of[reg];
            n++;
        }
    }
    o->nop = (uint8_t)op;
    o->n = (uint8_t)n;
    o->ok = 1;
}

unsigned dm_rfc_access_ops(const dm_params *p, dm_sub *s, unsigned warp,
                           const dm_rfcops *o, uint8_t reuse, uint8_t *hit,
                           uint8_t nbank[DM_MAX_BANKS], int commit)
{
    uint32_t missed = 0; /* distinct registers read from the RF */
    unsigned nohit = 0;  /* slots with a register not in the RFC */
    int rfc = p->rfc != 0;
    memset(nbank, 0, DM_MAX_BANKS);
    for (unsigned i = 0; i < o->n; i++) {
        unsigned b = o->e[i].bank, slot = o->e[i].slot, reg = o->e[i].reg;
        dm_rfce *e = NULL;
        int h = 0;
        if (rfc && slot < DM_RFC_SLOTS) {
            e = &s->rfc[b][slot];
            h = e->warp == warp && e->reg == reg;
        }
        if (!h) {
            uint32_t bit = (uint32_t)1 << o->e[i].uid;
            nohit |= 1u << slot;
            if (!(missed & bit)) {
                missed |= bit;
                nbank[b]++;
            }
        }
        if (commit && e) {
            if (((unsigned)reuse >> slot) & 1u) {
                e->warp = warp;
                e->reg = (uint16_t)reg;
            } else {
                e->warp = DM_NO_WARP;
            }
        }
    }
    if (hit)
        for (unsigned k = 0; k < o->nop && k < 8; k++)
            hit[k] = (uint8_t)(((o->live & ~nohit) >> k) & 1u);
    return o->nop;
}

/* The RFC update of dm_rfc_access_ops(..., commit = 1) alone, by the
 * instruction's reads o (Allocate looked the operands up already):
 * allocation by reuse bits, invalidation of the slots read. */
static void rfc_commit_ops(const dm_params *p, dm_sub *s, unsigned warp,
                           const dm_rfcops *o, uint8_t reuse)
{
    if (!p->rfc)
        return;
    for (unsigned i = 0; i < o->n; i++) {
        unsigned slot = o->e[i].slot;
        if (slot >= DM_RFC_SLOTS)
            continue;
        dm_rfce *e = &s->rfc[o->e[i].bank][slot];
        if (((unsigned)reuse >> slot) & 1u) {
            e->warp = warp;
            e->reg = o->e[i].reg;
        } else {
            e->warp = DM_NO_WARP;
        }
    }
}

/* Cycles bank b has to read need registers: rf_read_window, or more for
 * an instruction that reads more registers of one bank than the window has
 * cycles (HMMA.16816: 10 source registers on 2 banks); without this it
 * would wait in Allocate forever.  reserve takes one port of a bank per
 * cycle for an instruction, so the window is need cycles, whatever
 * rf_read_ports (need / rf_read_ports deadlocked with rf_read_ports > 1
 * and need > rf_read_window: fuzz_models, issue 12). */
static unsigned window_of(const dm_params *p, unsigned need)
{
    return need > p->read_window ? need : p->read_window;
}

/* Reserve need[b] read slots of each bank in cycles c+1..c+window; all or
 * nothing. */
static int reserve(const dm_params *p, dm_sub *s, const uint8_t *need,
                   uint64_t c)
{
    for (unsigned b = 0; b < p->banks; b++) {
        unsigned freeslots = 0;
        if (!need[b])
            continue;
        unsigned win = window_of(p, need[b]);
        for (unsigned k = 1; k <= win; k++)
            freeslots += *dm_rd(s, b, c + k) < p->read_ports;
        if (freeslots < need[b])
            return 0;
    }
    for (unsigned b = 0; b < p->banks; b++) {
        unsigned left = need[b];
        unsigned win = window_of(p, need[b]);
        for (unsigned k = 1; k <= win && left; k++) {
            uint8_t *x = dm_rd(s, b, c + k);
            if (*x < p->read_ports) {
                (*x)++;
                left--;
            }
        }
    }
    return 1;
}

void dm_release_slot(dm_sub *s, dm_warp *w, uint32_t idx)
{
    s->fetch_idle = 0;
    s->fetch_until = 0;
    s->qlim = 0; /* dm_sub_requiet: Fetch to look again */
    w->sh[idx % DM_RING].busy = 0;
    while (w->head != w->iss && !w->sh[w->head % DM_RING].busy) {
        unsigned b = w->sh[w->head % DM_RING].bufi;
        if (b < DM_RING_BUF) /* its decode buffer is free again */
            w->bufuse &= (uint16_t)~(1u << b);
        w->head++;
    }
    dm_want_update(s, w);
}

void dm_alloc_tick(dm_sm *sm, dm_sub *s, uint64_t c)
{
    const dm_params *p = sm->p;
    if (s->alloc.warp == DM_NO_WARP)
        return;
    unsigned wi = s->alloc.warp;
    dm_warp *w = &sm->warps[wi];
    dm_shot *sl = &w->sh[s->alloc.slot % DM_RING];
    const wc_inst *in = sl->in;
    uint8_t need[DM_MAX_BANKS], hit[8] = {0};
    /* a static record's reads worked out once (speed only) */
    const dm_rfcops *o =
        dm_shot_static(sl) ? dm_smemo_ops(sm->gpu, in) : NULL;
    if (o && !o->ok)
        o = NULL;
    unsigned n = o ? dm_rfc_access_ops(p, s, wi, o, in->ctrl.reuse, hit,
                                       need, 0)
                   : dm_rfc_access(p, s, wi, in, hit, need, 0);
    if (!reserve(p, s, need, c))
        return; /* hold: Control and Issue stall behind us */
    if (o) {
        rfc_commit_ops(p, s, wi, o, in->ctrl.reuse);
    } else { /* the lookup again, with the update (the same one) */
        uint8_t scratch[DM_MAX_BANKS];
        dm_rfc_access(p, s, wi, in, NULL, scratch, 1);
    }
    if (sm->gpu->o.timeline)
        dm_event_rfc(sm->gpu, w->x->ev[s->alloc.slot % DM_RING], n, hit);
    /* result queue: the write happens lat cycles after issue (shifted by
     * the cycles this instruction was held) */
    uint8_t wb = dm_shot_banks(sm->gpu, sl);
    if (wb) {
        long lat = dm_inst_lat(p, in, sl->lc);
        /* issued UA_ISSUE_TO_ALLOC cycles before this Allocate */
        uint64_t when = c + (uint64_t)(lat > UA_ISSUE_TO_ALLOC
                                           ? lat - UA_ISSUE_TO_ALLOC
                                           : 1);
        for (unsigned b = 0; b < p->banks; b++)
            if (((unsigned)wb >> b) & 1u) {
                uint8_t *x = dm_wr(s, b, when);
                if (*x < 255)
                    (*x)++;
            }
    }
    dm_release_slot(s, w, s->alloc.slot);
    s->alloc.warp = DM_NO_WARP; /* qlim stays 0: Fetch to look again */
    sm->last_progress = c;
    dm_warp_check_done(sm, wi);
}
