/*
 * detailed/sm.c - one SM: warp slots, CTA slots held to uarch's occupancy,
 * warps placed on sub-cores by uarch's assignment (ua_subcore), barriers, the
 * in-flight table of variable-latency instructions, CTAs dispatched ahead
 * of their start (launch model overheads), and the SM tick that runs
 * memory, then every sub-core's stages back to front, skipping quiet
 * sub-cores and sleeping while all of them are quiet (speed only).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dm_int.h"

void dm_fail(dm_gpu *gpu, int code, const char *what)
{
    if (gpu->err)
        return;
    gpu->err = code;
    wc_diag_set(gpu->d, code, "", 0, 0, "detailed model: %s", what);
}

/* The per-run parts of an SM (instruction caches, memory unit) and every
 * field that is not an array allocation, on sm's arrays (allocated and
 * cleared by the caller). */
static int sm_setup(dm_gpu *gpu, dm_sm *sm, unsigned id)
{
    const dm_params *p = &gpu->p;
    sm->id = id;
    sm->gpu = gpu;
    sm->p = p;
    sm->g = gpu->g;
    sm->l1i = dm_l1i_create(p);
    sm->mem = dm_mem_create(gpu->g, gpu->l2);
    if (!sm->l1i || !sm->mem)
        return -1;
    sm->nflfree = 0;
    for (uint32_t t = sm->capfl - 1; t >= 1; t--)
        sm->flfree[sm->nflfree++] = t;
    for (unsigned i = 0; i < p->nsub; i++) {
        dm_sub *s = &sm->sub[i];
        s->idx = i;
        s->ibuf = p->ibuf;
        s->calw = 2 * p->banks;
        s->vq_cap = p->vq_entries;
        s->l0i = dm_icache_create(p, sm->l1i);
        if (!s->l0i)
            return -1;
        s->ic_sets = dm_icache_sets(s->l0i);
        if (s->ic_sets > DM_IC_SETS)
            s->ic_sets = 0;
        s->last_issued = DM_NO_WARP;
        s->const_warp = DM_NO_WARP;
        s->wbq_min = UINT64_MAX;
        s->ctrl.warp = DM_NO_WARP;
        s->alloc.warp = DM_NO_WARP;
        s->pend_warp = -1;
        for (unsigned b = 0; b < DM_MAX_BANKS; b++)
            for (unsigned k = 0; k < DM_RFC_SLOTS; k++)
                s->rfc[b][k].warp = DM_NO_WARP;
    }
    return 0;
}

static uint32_t sm_capfl0(const dm_gpu *gpu)
{
    uint32_t cap = 64;
    if (gpu->o.fl_max && gpu->o.fl_max < cap)
        cap = gpu->o.fl_max < 2 ? 2 : gpu->o.fl_max; /* record 0 unused */
    return cap;
}

/* n bytes of pages of their own, zeroed (mmap), whatever malloc's history:
 * glibc serves a block of this size from the heap once a larger one was
 * freed (its mmap threshold rises), and the cold warp state of 132 SMs in
 * the heap, between their hot arrays, made the detailed model 4-10%
 * slower (speed only; measured in docs/model-detailed.md).  NULL when out
 * of memory. */
static void *dm_pages_alloc(size_t n)
{
#ifdef MAP_ANONYMOUS
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
#else
    void *p = NULL;
    return posix_memalign(&p, 4096, n) == 0 ? p : NULL;
#endif
}

static void dm_pages_free(void *p, size_t n)
{
    if (!p)
        return;
#ifdef MAP_ANONYMOUS
    munmap(p, n);
#else
    (void)n;
    free(p);
#endif
}

int dm_sm_init(dm_gpu *gpu, dm_sm *sm, unsigned id)
{
    const dm_params *p = &gpu->p;
    /* sm is zero: gpu_init calloc'ed it (not cleared again, so that the
     * pages of the sub-cores' calendars and RFC that no warp uses are never
     * touched) */
    sm->gpu = gpu;
    sm->nslots = (unsigned)(p->max_warps < 64 ? 64 : p->max_warps);
    if (sm->nslots > DM_MAX_WARPS)
        return -1;
    sm->nctas = (unsigned)p->max_ctas;
    /* 64-byte lines: a warp's hot fields in one (dm_warp) */
    /* calloc'ed (fresh pages come zero: the slots no warp uses are never
     * touched), aligned by hand */
    sm->warps_mem = calloc(sm->nslots * sizeof *sm->warps + 63, 1);
    sm->warps = sm->warps_mem
                    ? (dm_warp *)(((uintptr_t)sm->warps_mem + 63) &
                                  ~(uintptr_t)63)
                    : NULL;
    /* written before any read (cta_start): not cleared, so that the
     * pages of slots no warp uses are never touched (300 KB an SM) */
    sm->wcold = dm_pages_alloc(sm->nslots * sizeof *sm->wcold);
    sm->ctas = calloc(sm->nctas, sizeof *sm->ctas);
    sm->capfl = sm_capfl0(gpu);
    sm->fl = calloc(sm->capfl, sizeof *sm->fl);
    sm->flfree = calloc(sm->capfl, sizeof *sm->flfree);
    sm->hint = calloc(sm->nslots, sizeof *sm->hint);
    sm->hwhy = calloc(sm->nslots, sizeof *sm->hwhy);
    if (!sm->hint || !sm->hwhy || !sm->warps || !sm->wcold || !sm->ctas ||
        !sm->fl || !sm->flfree)
        return -1;
    sm->capfl_alloc = sm->capfl;
    sm->nsub_alloc = p->nsub;
    sm->vq_alloc = p->vq_entries;
    for (unsigned i = 0; i < sm->nctas; i++) {
        sm->ctas[i].slots = calloc(sm->nslots, sizeof(unsigned));
        if (!sm->ctas[i].slots)
            return -1;
    }
    for (unsigned i = 0; i < p->nsub; i++) {
        dm_sub *s = &sm->sub[i];
        s->warps = calloc(sm->nslots, sizeof *s->warps);
        s->vq = calloc(p->vq_entries, sizeof *s->vq);
        if (!s->warps || !s->vq)
            return -1;
    }
    return sm_setup(gpu, sm, id);
}

int dm_sm_fits_arrays(const dm_gpu *gpu, const dm_sm *sm)
{
    const dm_params *p = &gpu->p;
    unsigned nslots = (unsigned)(p->max_warps < 64 ? 64 : p->max_warps);
    if (sm->nslots != nslots || sm->nctas != (unsigned)p->max_ctas ||
        sm->capfl_alloc < sm_capfl0(gpu) || sm->nsub_alloc != p->nsub ||
        sm->vq_alloc != p->vq_entries)
        return 0;
    return 1;
}

/* Back to the state dm_sm_init leaves, keeping the arrays: only the warp
 * slots a run used (warps_hw), the CTA slots and the small per-slot arrays
 * are cleared; caches and the memory unit are made anew (they clear their
 * sets on first touch).  Results are those of a fresh SM. */
int dm_sm_reuse(dm_gpu *gpu, dm_sm *sm, unsigned id)
{
    const dm_params *p = &gpu->p;
    for (unsigned i = 0; i < sm->warps_hw; i++)
        free(sm->warps[i].clocks);
    memset(sm->warps, 0, sm->warps_hw * sizeof *sm->warps);
    for (unsigned i = 0; i < sm->nctas; i++) {
        dm_cta_slot *ct = &sm->ctas[i];
        unsigned *slots = ct->slots;
        if (ct->live && ct->cta)
            wc_cta_free(ct->cta);
        memset(ct, 0, sizeof *ct);
        memset(slots, 0, sm->nslots * sizeof *slots);
        ct->slots = slots;
    }
    dm_l1i_free(sm->l1i);
    dm_mem_free(sm->mem);
    memset(sm->hint, 0, sm->nslots * sizeof *sm->hint);
    memset(sm->hwhy, 0, sm->nslots * sizeof *sm->hwhy);
    /* the in-flight table starts at its first capacity (growth is part of
     * the run: tags follow from it); the larger block is kept */
    uint32_t cap0 = sm_capfl0(gpu);
    memset(sm->fl, 0, cap0 * sizeof *sm->fl);
    /* keep: arrays */
    dm_warp *warps = sm->warps;
    void *warps_mem = sm->warps_mem;
    dm_wcold *wcold = sm->wcold;
    dm_cta_slot *ctas = sm->ctas;
    dm_fl *fl = sm->fl;
    uint32_t *flfree = sm->flfree;
    uint64_t *hint = sm->hint;
    uint8_t *hwhy = sm->hwhy;
    unsigned nslots = sm->nslots, nctas = sm->nctas;
    uint32_t capfl_alloc = sm->capfl_alloc;
    unsigned *sw[DM_MAX_SUBCORES];
    dm_vop *vq[DM_MAX_SUBCORES];
    for (unsigned i = 0; i < DM_MAX_SUBCORES; i++) {
        dm_sub *s = &sm->sub[i];
        dm_icache_free(s->l0i);
        free(s->wbq);
        sw[i] = s->warps;
        vq[i] = s->vq;
        if (s->vq)
            memset(s->vq, 0, p->vq_entries * sizeof *s->vq);
        if (s->warps)
            memset(s->warps, 0, nslots * sizeof *s->warps);
    }
    /* the sub-cores' calendars and RFC (most of an SM's 40 KB) are only
     * written for warps: cleared where a warp ran */
    memset(sm, 0, offsetof(dm_sm, sub));
    for (unsigned i = 0; i < DM_MAX_SUBCORES; i++)
        memset(&sm->sub[i], 0,
               sm->sub[i].had_warps ? sizeof sm->sub[i]
                                    : offsetof(dm_sub, rfc));
    memset((char *)sm + offsetof(dm_sm, sub) + sizeof sm->sub, 0,
           sizeof *sm - offsetof(dm_sm, sub) - sizeof sm->sub);
    sm->warps = warps;
    sm->warps_mem = warps_mem;
    sm->wcold = wcold;
    sm->ctas = ctas;
    sm->fl = fl;
    sm->flfree = flfree;
    sm->hint = hint;
    sm->hwhy = hwhy;
    sm->nslots = nslots;
    sm->nctas = nctas;
    sm->capfl = cap0;
    sm->capfl_alloc = capfl_alloc;
    sm->nsub_alloc = p->nsub;
    sm->vq_alloc = p->vq_entries;
    for (unsigned i = 0; i < DM_MAX_SUBCORES; i++) {
        sm->sub[i].warps = sw[i];
        sm->sub[i].vq = vq[i];
    }
    return sm_setup(gpu, sm, id);
}

void dm_sm_drop_ctas(dm_sm *sm)
{
    if (sm->ctas)
        for (unsigned i = 0; i < sm->nctas; i++) {
            if (sm->ctas[i].live && sm->ctas[i].cta)
                wc_cta_free(sm->ctas[i].cta);
            sm->ctas[i].cta = NULL;
        }
}

void dm_sm_fini(dm_sm *sm)
{
    if (sm->warps) /* the slots past warps_hw were never used */
        for (unsigned i = 0; i < sm->warps_hw; i++)
            free(sm->warps[i].clocks);
    if (sm->ctas)
        for (unsigned i = 0; i < sm->nctas; i++) {
            if (sm->ctas[i].live && sm->ctas[i].cta)
                wc_cta_free(sm->ctas[i].cta);
            free(sm->ctas[i].slots);
        }
    for (unsigned i = 0; i < DM_MAX_SUBCORES; i++) {
        free(sm->sub[i].warps);
        free(sm->sub[i].vq);
        free(sm->sub[i].wbq);
        dm_icache_free(sm->sub[i].l0i);
    }
    free(sm->warps_mem);
    dm_pages_free(sm->wcold, sm->nslots * sizeof *sm->wcold);
    free(sm->ctas);
    dm_l1i_free(sm->l1i);
    dm_mem_free(sm->mem);
    free(sm->fl);
    free(sm->flfree);
    free(sm->hint);
    free(sm->hwhy);
}

uint64_t dm_fl_alloc(dm_sm *sm)
{
    if (sm->nflfree == 0) {
        uint32_t max = sm->gpu->o.fl_max;
        if (sm->capfl >= (max ? max : UINT32_MAX / 2)) {
            char what[160];
            snprintf(what, sizeof what,
                     "SM %u: %u variable-latency instructions in flight, no "
                     "free record left",
                     sm->id, sm->capfl - 1);
            dm_fail(sm->gpu, WC_EINTERNAL, what);
            return 0;
        }
        uint32_t cap = sm->capfl * 2;
        if (max && cap > max)
            cap = max;
        if (cap > sm->capfl_alloc) { /* else kept from an earlier run */
            dm_fl *f = realloc(sm->fl, cap * sizeof *f);
            if (!f) {
                dm_fail(sm->gpu, WC_EINTERNAL,
                        "out of memory (in-flight instruction records)");
                return 0;
            }
            sm->fl = f;
            uint32_t *q = realloc(sm->flfree, cap * sizeof *q);
            if (!q) {
                dm_fail(sm->gpu, WC_EINTERNAL,
                        "out of memory (in-flight instruction records)");
                return 0;
            }
            sm->flfree = q;
            sm->capfl_alloc = cap;
        }
        memset(sm->fl + sm->capfl, 0, (cap - sm->capfl) * sizeof *sm->fl);
        for (uint32_t t = cap - 1; t >= sm->capfl; t--)
            sm->flfree[sm->nflfree++] = t;
        sm->capfl = cap;
    }
    uint32_t t = sm->flfree[--sm->nflfree];
    uint32_t gen = sm->fl[t].gen + 1;
    memset(&sm->fl[t], 0, sizeof sm->fl[t]);
    sm->fl[t].used = 1;
    sm->fl[t].gen = gen;
    return (uint64_t)gen << 32 | t;
}


/* ---- occupancy ---------------------------------------------------------- */

int dm_sm_fits(const dm_sm *sm, unsigned nwarps, unsigned occ)
{
    return sm->live_ctas < occ && sm->live_ctas < sm->nctas &&
           sm->live_warps + nwarps <= sm->nslots;
}

/* The first warp slot from wi on that holds no live warp. */
static unsigned free_slot(const dm_sm *sm, unsigned wi)
{
    while (wi < DM_MAX_WARPS) {
        uint64_t x = ~sm->slot_live[wi >> 6] & (~(uint64_t)0 << (wi & 63));
        if (x)
            return (wi & ~63u) + (unsigned)__builtin_ctzll(x);
        wi = (wi | 63u) + 1;
    }
    while (sm->warps[wi].live)
        wi++;
    return wi;
}

static void slot_live_put(dm_sm *sm, unsigned wi, int on)
{
    if (wi < DM_MAX_WARPS)
        dm_bit_put(sm->slot_live, wi, on);
}

/* Create the warps of CTA slot ci (dispatched earlier or now). */
static int cta_start(dm_sm *sm, unsigned ci, const wc_ubench *u)
{
    const dm_params *p = sm->p;
    dm_cta_slot *ct = &sm->ctas[ci];
    wc_cta *cta = ct->cta;
    unsigned nw = ct->nwarps;
    unsigned wi = 0;
    ct->pending = 0;
    for (unsigned i = 0; i < nw; i++) {
        wi = free_slot(sm, wi);
        dm_warp *w = &sm->warps[wi];
        if (wi + 1 > sm->warps_hw)
            sm->warps_hw = wi + 1;
        free(w->clocks);
        /* the cold part (decode buffers, timeline references, scoreboard
         * entries 0..nsbl) is written before any read: not cleared */
        memset(w, 0, sizeof *w);
        w->x = &sm->wcold[wi];
        w->live = 1;
        slot_live_put(sm, wi, 1);
        sm->hint[wi] = 0; /* awake (its sub-core is touched below) */
        sm->hwhy[wi] = DM_STALL_IDLE;
        w->cta = ci;
        w->age = ++sm->gpu->seq;
        w->pcbase = ct->pcbase;
        w->uidx = i;
        uint64_t W;
        int fixed = -1;
        if (u) {
            w->code = u->code[i];
            w->ncode = u->ninsts[i];
            w->id = u->warp_id[i];
            W = w->id;
            fixed = u->subcore[i];
        } else {
            w->tcta = cta;
            w->stream = i;
            w->id = wc_cta_warp_id(cta, i);
            W = sm->warps_assigned++;
        }
        w->sub = (uint8_t)(fixed >= 0 ? (unsigned)fixed % p->nsub
                                       : ua_subcore(p->core.assign, p->nsub,
                                                    W, sm->gpu->o.seed,
                                                    sm->id));
        w->sbmode = p->dep == DM_DEP_SCOREBOARD ||
                    (p->dep == DM_DEP_AUTO && !ct->has_ctrl);
        if (w->sbmode) { /* only then: the cold part's pages are touched
                            by a warp that uses them */
            w->x->nsbl = 0;
            w->x->sbmin = 0;
        }
        ct->slots[i] = wi;
        dm_sub *s = &sm->sub[w->sub];
        w->spos = (uint8_t)s->nwarps;
        sm->hpos[wi] = (uint8_t)s->nwarps;
        s->had_warps = 1;
        s->warps[s->nwarps++] = wi;
        dm_bit_put(s->awake, w->spos, 1);
        dm_sub_touch(s);
        if (dm_warp_next(sm, w) != 0)
            return sm->gpu->err;
        dm_want_update(s, w);
    }
    sm->last_progress = sm->gpu->now;
    for (unsigned i = 0; i < nw; i++)
        dm_warp_check_done(sm, ct->slots[i]);
    return 0;
}

int dm_sm_launch(dm_sm *sm, wc_cta *cta, const wc_ubench *u, uint64_t num,
                 uint64_t pcbase, int has_ctrl, uint64_t start, wc_diag *d)
{
    unsigned nw = u ? u->nwarps : wc_cta_nwarps(cta);
    unsigned ci;
    for (ci = 0; ci < sm->nctas && sm->ctas[ci].live; ci++)
        ;
    if (ci == sm->nctas || sm->live_warps + nw > sm->nslots)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "detailed model: no room for a CTA of %u warps",
                           nw);
    dm_sm_wake(sm, sm->gpu->now);
    dm_cta_slot *ct = &sm->ctas[ci];
    ct->live = 1;
    ct->cta = cta;
    ct->num = num;
    ct->nwarps = nw;
    ct->done = 0;
    ct->at_bar = 0;
    ct->pcbase = pcbase;
    ct->has_ctrl = has_ctrl;
    ct->start = start;
    sm->live_ctas++;
    sm->live_warps += nw;
    if (u || start <= sm->gpu->now)
        return cta_start(sm, ci, u);
    ct->pending = 1;
    if (sm->npending++ == 0 || start < sm->next_start)
        sm->next_start = start;
    sm->last_progress = sm->gpu->now;
    return 0;
}

/* Start the pending CTAs whose start cycle came, in dispatch order. */
static void start_pending(dm_sm *sm, uint64_t c)
{
    for (;;) {
        unsigned best = DM_NO_WARP;
        uint64_t next = UINT64_MAX;
        for (unsigned i = 0; i < sm->nctas; i++) {
            const dm_cta_slot *ct = &sm->ctas[i];
            if (!ct->live || !ct->pending)
                continue;
            if (ct->start <= c &&
                (best == DM_NO_WARP || ct->num < sm->ctas[best].num))
                best = i;
            else if (ct->start > c && ct->start < next)
                next = ct->start;
        }
        if (best == DM_NO_WARP) {
            sm->next_start = next;
            return;
        }
        sm->npending--;
        if (cta_start(sm, best, NULL) != 0)
            return;
    }
}

/* Positions and bit sets of s after warps left it. */
static void sub_rebuild(dm_sm *sm, dm_sub *s)
{
    memset(s->awake, 0, sizeof s->awake);
    memset(s->fwant, 0, sizeof s->fwant);
    memset(s->mqw, 0, sizeof s->mqw);
    for (unsigned i = 0; i < s->nwarps; i++) {
        unsigned wi = s->warps[i];
        dm_warp *w = &sm->warps[wi];
        w->spos = (uint8_t)i;
        sm->hpos[wi] = (uint8_t)i;
        dm_bit_put(s->awake, i, sm->hint[wi] != UINT64_MAX);
        dm_bit_put(s->mqw, i,
                   sm->hint[wi] == UINT64_MAX &&
                       sm->hwhy[wi] == DM_STALL_MEM_QUEUE);
        dm_want_update(s, w);
    }
}

static void cta_finish(dm_sm *sm, unsigned ci)
{
    dm_gpu *gpu = sm->gpu;
    dm_cta_slot *ct = &sm->ctas[ci];
    for (unsigned i = 0; i < ct->nwarps; i++) {
        unsigned wi = ct->slots[i];
        dm_warp *w = &sm->warps[wi];
        dm_sub *s = &sm->sub[w->sub];
        for (unsigned k = 0; k < s->nwarps; k++)
            if (s->warps[k] == wi) { /* keep launch (age) order */
                memmove(&s->warps[k], &s->warps[k + 1],
                        (s->nwarps - k - 1) * sizeof *s->warps);
                s->nwarps--;
                break;
            }
        if (s->last_issued == wi)
            s->last_issued = DM_NO_WARP;
        dm_sub_touch(s);
        if (s->const_warp == wi)
            s->const_warp = DM_NO_WARP;
        for (unsigned b = 0; b < DM_MAX_BANKS; b++)
            for (unsigned k = 0; k < DM_RFC_SLOTS; k++)
                if (s->rfc[b][k].warp == wi)
                    s->rfc[b][k].warp = DM_NO_WARP;
        if (gpu->uclk) {
            gpu->uclk[w->uidx] = w->clocks;
            gpu->nuclk[w->uidx] = w->nclocks;
            gpu->usub[w->uidx] = w->sub;
            w->clocks = NULL;
        }
        w->live = 0;
        slot_live_put(sm, wi, 0);
    }
    for (unsigned i = 0; i < sm->p->nsub; i++)
        sub_rebuild(sm, &sm->sub[i]);
    if (ct->cta)
        wc_cta_free(ct->cta);
    ct->cta = NULL;
    ct->live = 0;
    sm->live_ctas--;
    sm->live_warps -= ct->nwarps;
    gpu->ctas_done++;
}

void dm_bar_check(dm_sm *sm, unsigned ci)
{
    dm_cta_slot *ct = &sm->ctas[ci];
    if (ct->at_bar == 0 || ct->at_bar + ct->done < ct->nwarps)
        return;
    ct->at_bar = 0;
    for (unsigned i = 0; i < ct->nwarps; i++) {
        sm->warps[ct->slots[i]].at_bar = 0;
        dm_wake(sm, ct->slots[i]);
    }
    for (unsigned i = 0; i < ct->nwarps && ct->live; i++)
        dm_warp_check_done(sm, ct->slots[i]);
}

void dm_warp_check_done_full(dm_sm *sm, unsigned wi)
{
    dm_warp *w = &sm->warps[wi];
    if (!w->live || w->done || w->at_bar || !w->src_end || w->la_valid ||
        w->iss != w->tail || w->head != w->tail || w->outstanding)
        return;
    w->done = 1;
    dm_want_update(&sm->sub[w->sub], w);
    if (sm->gpu->now > sm->gpu->last_done) /* SMs a quantum apart */
        sm->gpu->last_done = sm->gpu->now;
    dm_cta_slot *ct = &sm->ctas[w->cta];
    ct->done++;
    if (ct->done == ct->nwarps)
        cta_finish(sm, w->cta);
    else
        dm_bar_check(sm, w->cta);
}

/* ---- the SM cycle ------------------------------------------------------------ */

/* Nothing in s can act in cycle c: every stage would return at once and
 * Issue would only count its stall (the hint of its last scan holds). */
static int sub_quiet(dm_sm *sm, const dm_sub *s, uint64_t c)
{
#ifdef WC_CHECKS
    if (s->qlim != dm_sub_qlim(s) ||
        (c < s->qlim &&
         s->qwhy_now != (s->nwarps ? s->issue_idle_why : DM_STALL_IDLE)))
        dm_fail(sm->gpu, WC_EINTERNAL,
                "a sub-core's quiet limit is stale (dm_sub_requiet)");
#else
    (void)sm;
#endif
    return c < s->qlim;
}

/* Free the read / write slots of the cycles that passed (before c). */
static void cal_catch_up(dm_sub *s, uint64_t c)
{
    uint64_t from = s->cal_done;
    size_t w = s->calw;
    s->cal_done = c;
    if (from >= c)
        return;
    if (c - from <= 8) { /* the usual case: a cycle or a few */
        for (uint64_t x = from; x < c; x++) {
            uint8_t *q = &s->cal[(x % DM_CAL) * w];
            if (w == 4) { /* two banks: no call */
                uint32_t z = 0;
                memcpy(q, &z, sizeof z);
            } else {
                memset(q, 0, w);
            }
        }
        return;
    }
    if (c - from >= DM_CAL)
        from = c - DM_CAL;
    size_t a = (size_t)(from % DM_CAL), b = (size_t)(c % DM_CAL);
    if (a < b) {
        memset(&s->cal[a * w], 0, (b - a) * w);
    } else { /* wraps (or all DM_CAL slots when a == b) */
        memset(&s->cal[a * w], 0, (DM_CAL - a) * w);
        memset(&s->cal[0], 0, b * w);
    }
}

void dm_sm_wake(dm_sm *sm, uint64_t c)
{
    if (!sm->wake)
        return;
    uint64_t n = c - sm->sleep_from;
    for (unsigned i = 0; i < sm->p->nsub; i++) {
        dm_sub *s = &sm->sub[i];
        s->stall[s->nwarps ? s->issue_idle_why : DM_STALL_IDLE] += n;
    }
    sm->wake = 0;
}

/* After the tick of cycle c: sleep from c+1 when no sub-core can act
 * before a known cycle (or an event). */
static void sm_try_sleep(dm_sm *sm, uint64_t c)
{
    uint64_t t = sm->npending ? sm->next_start : UINT64_MAX;
    if (!sm->gpu->shortcuts)
        return; /* dm_shortcuts 0: never sleep */
    if (!dm_sm_busy(sm))
        return; /* not ticked until a launch: a sleep would count its
                   stalls until then (dm_sm_wake) */
    for (unsigned i = 0; i < sm->p->nsub; i++) {
        const dm_sub *s = &sm->sub[i];
        if (s->pend_warp >= 0 || !sub_quiet(sm, s, c + 1))
            return;
        if (s->qlim < t) /* quiet: its next writeback or issue scan */
            t = s->qlim;
    }
    if (t > c + 1) {
        sm->sleep_from = c + 1;
        sm->wake = t;
        sm->mem_next = dm_mem_next_cycle(sm->mem, c + 1);
    }
}

uint64_t dm_sm_next(const dm_sm *sm, uint64_t c)
{
    if (!sm->wake)
        return c + 1;
    return sm->mem_next < sm->wake ? sm->mem_next : sm->wake;
}

/* Wake the warps asleep on a full memory queue of a sub-core whose queue
 * has room now (after dm_mem_tick of the cycle: a grant freed a slot).
 * Returns 1 when it woke one. */
static int mq_wake(dm_sm *sm)
{
    int woke = 0, sc = sm->gpu->shortcuts;
    for (unsigned i = 0; i < sm->p->nsub; i++) {
        dm_sub *s = &sm->sub[i];
        if (!s->mq_sleep || !dm_mem_can_accept(sm->mem, i))
            continue;
        s->mq_sleep = 0;
        for (unsigned d = 0; d < DM_WMASK; d++) {
            uint64_t bits = s->mqw[d];
            s->mqw[d] = 0;
            for (; bits; bits &= bits - 1) {
                unsigned k = d * 64 + (unsigned)__builtin_ctzll(bits);
                if (k >= s->nwarps)
                    break;
                unsigned wi = s->warps[k];
                if (sm->hint[wi] == UINT64_MAX &&
                    sm->hwhy[wi] == DM_STALL_MEM_QUEUE) {
                    /* dm_wake without reading the warp: position k */
                    sm->hint[wi] = 0;
                    if (sc)
                        sm->hwhy[wi] = DM_HW_QREADY;
                    s->issue_idle_until = 0;
                    s->qlim = 0;
                    dm_bit_put(s->awake, k, 1);
                    woke = 1;
                }
            }
        }
    }
    return woke;
}

void dm_sm_tick(dm_sm *sm, uint64_t c)
{
    const dm_params *p = sm->p;
    size_t nev = 0;
    int mem_done = 0;
    if (sm->wake) {
        if (c < sm->wake) {
            /* asleep: only the memory unit can act */
            if (sm->npending)
                sm->last_progress = c;
            if (c < sm->mem_next)
                return;
            int granted = dm_mem_tick(sm->mem, c);
            sm->mem_quiet = 0;
            nev = dm_mem_poll(sm->mem, c, sm->evbuf, 64);
            /* only a grant frees a queue slot */
            int woke = granted ? mq_wake(sm) : 0;
            if (nev == 0 && !woke) {
                sm->mem_next = dm_mem_next_cycle(sm->mem, c + 1);
                if (!dm_sm_busy(sm)) /* drained: no longer ticked, count */
                    dm_sm_wake(sm, c + 1); /* the stalls up to c only */
                return;
            }
            mem_done = 1;
        }
        dm_sm_wake(sm, c);
    }
    if (sm->npending) {
        sm->last_progress = c; /* waiting for a CTA start is progress */
        if (c >= sm->next_start)
            start_pending(sm, c);
    }
    /* the sub-cores whose Control raised counters (a pend_warp >= 0 has
     * its bit), in order */
    for (unsigned b = sm->pend_subs; b; b &= b - 1) {
        dm_sub *s = &sm->sub[__builtin_ctz(b)];
        if (s->pend_warp >= 0) {
            dm_warp *w = &sm->warps[s->pend_warp];
            /* a release that came before this raise cancels it (no record
             * left: both were released) */
            dm_fl *f = dm_fl_get(sm, s->pend_tag);
            int done[2] = {!f || f->wbar_done, !f || f->war_done};
            if (f)
                f->raise_pending = 0;
            for (int k = 0; k < 2; k++) {
                int8_t sb = s->pend_sb[k];
                if (!done[k] && sb >= 0 && sb < DM_SB && w->sb[sb] < 63)
                    w->sb[sb]++;
            }
            if (sm->hint[s->pend_warp] == UINT64_MAX &&
                sm->hwhy[s->pend_warp] == DM_STALL_MEM_QUEUE)
                dm_wake(sm, (unsigned)s->pend_warp);
            else if (sm->hwhy[s->pend_warp] == DM_HW_QREADY)
                sm->hwhy[s->pend_warp] = DM_STALL_MEM_QUEUE; /* full test */
            s->pend_warp = -1;
        }
    }
    sm->pend_subs = 0;
    if (!mem_done && (c >= sm->mem_quiet || !sm->gpu->shortcuts)) {
        if (dm_mem_tick(sm->mem, c))
            mq_wake(sm); /* only a grant frees a queue slot */
        dm_mem_events(sm, c, nev);
        sm->mem_quiet = dm_mem_quiet_until(sm->mem);
    } else if (mem_done) {
        dm_mem_events(sm, c, nev);
        sm->mem_quiet = dm_mem_quiet_until(sm->mem);
    }
    /* speed only: each stage's own "nothing to do" test made here, before
     * the call, on the state the stages before it left (the stages make
     * them again) */
    int sc = sm->gpu->shortcuts;
    for (unsigned i = 0; i < p->nsub; i++) {
        dm_sub *s = &sm->sub[i];
        if (sc && sub_quiet(sm, s, c)) {
            uint8_t why = s->qwhy_now;
            if (why != s->qwhy) {
                s->stall[s->qwhy] += s->qn;
                s->qn = 0;
                s->qwhy = why;
            }
            s->qn++;
            continue;
        }
        cal_catch_up(s, c);
        if (!sc || c >= s->wbq_min)
            dm_writeback_tick(sm, s, c);
        if (s->vq_n)
            dm_vq_tick(sm, s, c);
        if (s->alloc.warp != DM_NO_WARP)
            dm_alloc_tick(sm, s, c);
        if (s->ctrl.warp != DM_NO_WARP)
            dm_control_tick(sm, s, c);
        if (s->nwarps == 0)
            s->stall[DM_STALL_IDLE]++;
        else if (s->ctrl.warp != DM_NO_WARP)
            s->stall[DM_STALL_PIPELINE]++;
        else if (sc && c < s->issue_idle_until)
            s->stall[s->issue_idle_why]++; /* nothing changed since */
        else
            dm_issue_tick(sm, s, c);
        if (!sc || !s->fetch_idle)
            dm_fetch_tick(sm, s, c);
    }
    sm_try_sleep(sm, c);
}

void dm_sm_prefetch(const dm_sm *sm, unsigned nsub, int stage)
{
    if (stage == 0) {
        /* the lines of the struct a tick reads: its head, each sub-core's
         * first fields, latches, awake set and stall counts, the pointers
         * and the sleep / hint fields at its end */
        __builtin_prefetch(sm);
        for (unsigned i = 0; i < nsub && i < DM_MAX_SUBCORES; i++) {
            const char *b = (const char *)&sm->sub[i];
            __builtin_prefetch(b);
            __builtin_prefetch(b + 64);
            __builtin_prefetch(b + 128);
            __builtin_prefetch(b + 192);
            __builtin_prefetch((const char *)&sm->sub[i].stall);
            __builtin_prefetch((const char *)&sm->sub[i].rfc);
        }
        __builtin_prefetch(&sm->mem);
        __builtin_prefetch(&sm->capfl);
        __builtin_prefetch(&sm->wake);
        __builtin_prefetch(&sm->hwhy);
    } else if (stage == 1) {
        dm_mem_prefetch(sm->mem, 0);
        for (unsigned i = 0; i < sm->nslots; i += 64 / sizeof *sm->hint)
            __builtin_prefetch(&sm->hint[i]);
        __builtin_prefetch(sm->hwhy);
        /* each sub-core's warp list and the warp its greedy scheduler
         * looks at first */
        for (unsigned i = 0; i < nsub && i < DM_MAX_SUBCORES; i++) {
            const dm_sub *s = &sm->sub[i];
            if (!s->nwarps)
                continue;
            __builtin_prefetch(s->warps);
            if (s->last_issued != DM_NO_WARP)
                __builtin_prefetch(&sm->warps[s->last_issued]);
        }
    } else {
        dm_mem_prefetch(sm->mem, 1);
    }
}

/* Busy SMs are ticked; idle ones count no stalls. */
int dm_sm_busy(const dm_sm *sm)
{
    return sm->live_ctas > 0 || dm_mem_pending(sm->mem) > 0;
}

void dm_sm_dump(const dm_sm *sm, char *buf, size_t n)
{
    size_t o = 0;
#define PUT(...)                                                               \
    do {                                                                       \
        if (o < n) {                                                           \
            int k_ = snprintf(buf + o, n - o, __VA_ARGS__);                    \
            if (k_ > 0)                                                        \
                o += (size_t)k_;                                               \
        }                                                                      \
    } while (0)
    PUT("SM%u ctas=%u (starting %u) warps=%u mem_pending=%zu;", sm->id,
        sm->live_ctas, sm->npending, sm->live_warps, dm_mem_pending(sm->mem));
    for (unsigned i = 0; i < sm->p->nsub; i++) {
        const dm_sub *s = &sm->sub[i];
        PUT(" sub%u[ctrl=%d alloc=%d vq=%u wbq=%u]", i,
            s->ctrl.warp == DM_NO_WARP ? -1 : (int)s->ctrl.warp,
            s->alloc.warp == DM_NO_WARP ? -1 : (int)s->alloc.warp, s->vq_n,
            s->wbq_n);
        for (unsigned k = 0; k < s->nwarps; k++) {
            const dm_warp *w = &sm->warps[s->warps[k]];
            PUT(" w%u(iss=%u/%u %s done=%d bar=%d out=%u sb=%u%u%u%u%u%u "
                "st=%llu sbl=%u)",
                w->id, w->iss, w->tail,
                w->iss != w->tail ? w->sh[w->iss % DM_RING].in->opcode : "-",
                w->done, w->at_bar, w->outstanding, w->sb[0], w->sb[1],
                w->sb[2], w->sb[3], w->sb[4], w->sb[5],
                (unsigned long long)w->stall_until,
                w->sbmode ? w->x->nsbl : 0);
            for (unsigned e = 0; w->sbmode && e < w->x->nsbl && e < 4; e++)
                PUT("[r%u%s t%llu]", w->x->sbl[e].reg, w->x->sbl[e].write ? "w" : "r",
                    (unsigned long long)w->x->sbl[e].tag);
        }
    }
#undef PUT
}
