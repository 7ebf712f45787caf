/*
 * detailed/mem_unit.c - the memory unit of one SM: the per-sub-core memory
 * units (latch + queue, address calculation, coalescing) and the SM-shared
 * memory structures behind a round-robin arbiter (L1 data cache, shared
 * memory banks, L0 VL constant cache), producing the WAR / RAW events the
 * sub-core pipeline consumes.  Seed 000 section 5.4 (Tables 1 and 2),
 * section 6 (a unit per sub-core and one shared by the sub-cores, PRT);
 * seed 003 (address calculation and coalescing in separate steps).
 *
 * Life of a request (see the diagram in mem.h):
 *
 *   push(issue c) --> QUEUED --start S--> STARTED --grant L--> GRANTED --+
 *   holds a slot      S >= c + dispatch    ready to leave at             |
 *                     S >= address unit    S + sub_latency - dispatch    |
 *                     free (ii per regtype, (+ extra coalescer cycles)   |
 *                     lines x coalesce)    slot freed at L               |
 *                     WAR event if war <= sub_latency        WAR/RAW events
 *                                                            in the heap,
 *                                          polled in cycle order <------+
 *
 * Only the head of a sub-core's queue can be granted (in order), only the
 * oldest not-started request can start.  The arbiter grants one request per
 * mem_shared_ii cycles (longer for requests with several lines or
 * wavefronts), round robin over sub-cores whose head is ready, and stops
 * while the PRT (requests granted, RAW not yet polled) is full.
 *
 * Constant-path requests (LDC, the L0 VL constant cache) go through that
 * arbiter too when mem_const_ii = 0 (seed 000 section 5.4 puts the VL
 * constant cache among the SM-shared structures).  With mem_const_ii > 0
 * they have their own port, one request per mem_const_ii cycles, and leave
 * the L1 / shared-memory port to global and shared requests: issue 11, an
 * H100 SXM vector add (vadd-4096x256, 8 CTAs/SM, 5 LDC per warp against 3
 * LDG/STG) measured 9879 cycles where the shared arbiter gave +18% and
 * the interval model, which has no such contention, +4% (docs/model-
 * detailed.md, "Constant port").  Both ports grant in the same cycle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

enum { PATH_NONE = UA_PATH_NONE, PATH_GLOBAL = UA_PATH_GLOBAL,
       PATH_SHARED = UA_PATH_SHARED, PATH_CONST = UA_PATH_CONST };

/* What a request keeps of its class (dm_mem_class: 48 bytes, of which
 * the unit reads these after the push; speed only, so that the lines fit
 * in the entry) */
typedef struct mcl {
    long war, raw;       /* Table 2 latencies; raw < 0: no RAW              */
    uint16_t bits;       /* the row: 32, 64 or 128                         */
    uint8_t rt;          /* UA_RT_*                                        */
    uint8_t atomic, l2_only, is_write;
} mcl;

#define MREQ_LINES 2     /* lines kept in the entry (more: mreq.big)       */

typedef struct mreq {
    mcl cl;
    uint64_t tag;
    uint64_t issue;      /* issue cycle                                    */
    uint64_t leave;      /* earliest grant (address computed)              */
    uint64_t war_at;     /* WAR event cycle once emitted                   */
    uint32_t warp;
    uint8_t path;        /* PATH_*                                         */
    uint8_t war_done;
    uint8_t has_addr;    /* the instruction had per-lane addresses         */
    unsigned sub_lines;  /* lines the sub-core coalescer walks (global)    */
    unsigned units;      /* lines (global, const) or wavefronts (shared)   */
    uint32_t amask;      /* atomics: lanes of aaddr (0: no addresses)     */
    unsigned capbig;
    ua_line *big;        /* more than MREQ_LINES lines (owned by the ring
                            entry, reused)                                 */
    /* atomics: per-lane addresses, copied (msub.aaddr, by ring index: kept
     * out of the entry so that an entry is two host cache lines, not six) */
    uint64_t *aaddr;
    /* global / const: the lines, coalesced once at push, when at most
     * MREQ_LINES (req_lines): in the entry, whose lines the push and the
     * grant read anyway, rather than in a block of their own (a host cache
     * miss at each; speed only) */
    ua_line il[MREQ_LINES];
} mreq;
_Static_assert(sizeof(mreq) <= 128, "mreq: two host cache lines");
_Static_assert(MREQ_LINES >= DM_PRE_LINES, "mreq: pre's lines in the entry");

/* The lines of q (global / const: units of them). */
static inline const ua_line *req_lines(const mreq *q)
{
    return q->units <= MREQ_LINES ? q->il : q->big;
}

typedef struct msub {
    mreq *ring;
    uint64_t *aaddr;     /* cap x WC_WARP_SIZE lane addresses (atomics)     */
    unsigned head, n, nstarted;
    uint64_t agu_free;   /* address unit free from this cycle              */
    /* speed only, copies of the ring (its entries are 128 bytes apart):
     * the head's leave and constant port (when nstarted), the issue cycle
     * of the first request not started (when nstarted < n) */
    uint64_t head_leave, next_issue;
    uint8_t head_cport;
} msub;

typedef struct hev {
    dm_mem_event e;
    uint64_t seq;
} hev;
_Static_assert(sizeof(hev) == 32, "hev: two siblings a host cache line");

struct dm_mem {
    /* first (mem.h dm_mem_can_accept): copies of nsub and cap, and of each
     * unit's n (msub.n), kept where they change */
    dm_mem_q q;
    /* configuration */
    const wc_gpu *g;
    const ua_mem_rows *rows; /* seed 000 Table 2, decoded once (uarch):
                                the l2's (one copy for every SM)       */
    unsigned nsub, cap, prt_cap;
    uint64_t dispatch, sub_after;  /* sub_after = sub_latency - dispatch */
    long sub_latency;
    uint64_t ii_regular, ii_uniform, coalesce_cycles, shared_ii;
    uint64_t const_ii;   /* 0: constant requests use the shared port      */
    uint64_t l1_line_cycles, wf_cycles;
    unsigned l1_line, sector, l2_line, banks, bank_bytes, cc_line;
    /* state */
    msub *sub;
    uint64_t shared_free;
    uint64_t const_free; /* own constant port (const_ii > 0)               */
    unsigned rr;
    /* speed only: bit sc when sub[sc].nstarted > 0 (its head may be
     * granted: gmask) and when sub[sc].nstarted < sub[sc].n (a request may
     * start: smask), so that the tick and next_action visit only those
     * units, in the same order */
    unsigned gmask, smask;
    unsigned prt_used;
    size_t pending;
    uint64_t last_done;
    ua_cache *l1;
    dm_l2 *l2;
    int own_l2;
    dm_cc *cc;
    /* heap[0] is 32 bytes past a 64-byte boundary of heap_mem, so that
     * the two children of a node (2i + 1, 2i + 2) share a host cache line
     * and a sift-down reads one line a level (speed only) */
    hev *heap;
    void *heap_mem;
    size_t nheap, capheap;
    /* speed only: cycle of the earliest event (UINT64_MAX: none), and a
     * cycle before which dm_mem_tick has nothing to do (0: look) */
    uint64_t ev_min, tick_idle;
    uint64_t seq;
    /* speed only: the line count and sectors of a global or constant
     * request without lane addresses, a function of its path, mask and
     * width alone (ua_coalesce lays its lanes out from address 0), by
     * (path, width) (push: nolines) */
    struct {
        uint32_t mask, sectors, n;
        uint8_t width, path;  /* path PATH_NONE: empty */
    } nam[4];
    ua_line scratch[UA_MAX_LINES];
    dm_mem_stats st;
    ua_counts cnt;       /* this SM's part of the kernel counts            */
};

/* ---- event heap (min on cycle, then push order) ---------------------- */

static int hev_less(const hev *a, const hev *b)
{
    return a->e.cycle < b->e.cycle ||
           (a->e.cycle == b->e.cycle && a->seq < b->seq);
}

static void emit(dm_mem *m, const mreq *q, unsigned sc, uint8_t kind,
                 uint64_t cycle)
{
    if (m->nheap >= m->capheap)
        return; /* cannot happen: capacity covers every request twice */
    hev h = {{cycle, q->tag, q->warp, (uint8_t)sc, kind}, m->seq++};
    size_t i = m->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!hev_less(&h, &m->heap[p]))
            break;
        m->heap[i] = m->heap[p];
        i = p;
    }
    m->heap[i] = h;
    m->ev_min = m->heap[0].e.cycle;
}

static hev heap_pop(dm_mem *m)
{
    hev top = m->heap[0], last = m->heap[--m->nheap];
    size_t i = 0, n = m->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && hev_less(&m->heap[c + 1], &m->heap[c]))
            c++;
        if (!hev_less(&m->heap[c], &last))
            break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (n > 0)
        m->heap[i] = last;
    m->ev_min = n ? m->heap[0].e.cycle : UINT64_MAX;
    return top;
}

/* ---- create / free ------------------------------------------------------ */

static uint64_t nonneg(long v)
{
    return v > 0 ? (uint64_t)v : 0;
}

dm_mem *dm_mem_create(const wc_gpu *g, dm_l2 *l2)
{
    dm_mem *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->g = g;
    m->nsub = (unsigned)g->subcores_per_sm; /* bounds 1.. in the key table */
    m->cap = (unsigned)(g->mem_queue_entries + g->mem_latch_entries);
    m->q.nsub = m->nsub;
    m->q.cap = m->cap;
    m->prt_cap = (unsigned)g->mem_prt_entries;
    m->dispatch = nonneg(g->mem_dispatch_cycles);
    m->sub_latency = g->mem_sub_latency;
    m->sub_after = g->mem_sub_latency > g->mem_dispatch_cycles
                       ? (uint64_t)(g->mem_sub_latency - g->mem_dispatch_cycles)
                       : 0;
    m->ii_regular = nonneg(g->mem_sub_ii_regular);
    m->ii_uniform = nonneg(g->mem_sub_ii_uniform);
    m->coalesce_cycles = nonneg(g->mem_coalesce_cycles);
    m->shared_ii = nonneg(g->mem_shared_ii);
    m->const_ii = nonneg(g->mem_const_ii);
    m->l1_line_cycles = nonneg(g->l1_line_cycles);
    m->wf_cycles = nonneg(g->shmem_wavefront_cycles);
    m->l1_line = (unsigned)g->l1_line_bytes;
    m->sector = (unsigned)g->sector_bytes;
    m->l2_line = (unsigned)g->l2_line_bytes;
    m->banks = (unsigned)g->shmem_banks;
    m->bank_bytes = (unsigned)g->shmem_bank_bytes;
    m->cc_line = (unsigned)g->cc_line_bytes;
    m->ev_min = UINT64_MAX;
    if (m->cap == 0 || m->prt_cap == 0 || m->nsub > UA_MAX_SUBCORES)
        goto fail;

    m->sub = calloc(m->nsub, sizeof *m->sub);
    if (!m->sub)
        goto fail;
    for (unsigned s = 0; s < m->nsub; s++) {
        msub *ms = &m->sub[s];
        /* 64-byte aligned: an entry in two host cache lines */
        if (posix_memalign((void **)&ms->ring, 64, m->cap * sizeof(mreq)))
            ms->ring = NULL;
        else
            memset(ms->ring, 0, m->cap * sizeof(mreq));
        if (!ms->ring ||
            !(ms->aaddr = calloc((size_t)m->cap * WC_WARP_SIZE,
                                 sizeof *ms->aaddr)))
            goto fail;
        for (unsigned i = 0; i < m->cap; i++)
            ms->ring[i].aaddr = ms->aaddr + (size_t)i * WC_WARP_SIZE;
    }
    m->capheap = 2 * ((size_t)m->nsub * m->cap + m->prt_cap) + 8;
    if (posix_memalign(&m->heap_mem, 64, (m->capheap + 1) * sizeof *m->heap))
        m->heap_mem = NULL;
    if (!m->heap_mem)
        goto fail;
    m->heap = (hev *)((char *)m->heap_mem + sizeof *m->heap);
    ua_cache_geom geom;
    ua_cache_geom_l1(g, &geom);
    if (!(m->l1 = ua_cache_create(&geom)))
        goto fail;
    if (!(m->cc = dm_cc_create(g, m->nsub)))
        goto fail;
    if (l2) {
        m->l2 = l2;
    } else {
        if (!(m->l2 = dm_l2_create(g)))
            goto fail;
        m->own_l2 = 1;
    }
    m->rows = dm_l2_rows(m->l2);
    return m;
fail:
    dm_mem_free(m);
    return NULL;
}

void dm_mem_free(dm_mem *m)
{
    if (!m)
        return;
    if (m->sub)
        for (unsigned s = 0; s < m->nsub; s++) {
            for (unsigned i = 0; m->sub[s].ring && i < m->cap; i++)
                free(m->sub[s].ring[i].big);
            free(m->sub[s].ring);
            free(m->sub[s].aaddr);
        }
    free(m->sub);
    free(m->heap_mem);
    ua_cache_free(m->l1);
    dm_cc_free(m->cc);
    if (m->own_l2)
        dm_l2_free(m->l2);
    free(m);
}

/* ---- push ------------------------------------------------------------------ */

/* Keep the n lines of src in q (pre: those of pre instead); req_lines
 * finds them once q->units is n. */
static int keep_lines(mreq *q, const ua_line *src, const dm_mem_pre *pre,
                      unsigned n)
{
    ua_line *d = q->il;
    if (n > MREQ_LINES) {
        if (n > q->capbig) {
            unsigned cap = n < 16 ? 16 : n;
            ua_line *l = realloc(q->big, cap * sizeof *l);
            if (!l)
                return -1;
            q->big = l;
            q->capbig = cap;
        }
        d = q->big;
    }
    if (pre) {
        for (unsigned i = 0; i < n; i++) {
            d[i].addr = pre->addr[i];
            d[i].sectors = pre->sectors[i];
        }
        return 0;
    }
    memcpy(d, src, n * sizeof *d);
    return 0;
}

void dm_mem_classify(const dm_mem *m, const wc_inst *in, dm_mem_class *cl)
{
    ua_mem_classify(m->rows, in, cl);
}

int dm_mem_push(dm_mem *m, unsigned sc, const wc_inst *in, uint32_t warp,
                uint64_t tag, uint64_t issue_cycle)
{
    dm_mem_class cl;
    if (!dm_mem_can_accept(m, sc))
        return -1;
    dm_mem_classify(m, in, &cl);
    return dm_mem_push_cl(m, sc, in, &cl, warp, tag, issue_cycle);
}

int dm_mem_pre_make(dm_mem *m, const wc_inst *in, dm_mem_pre *pre)
{
    dm_mem_class cl;
    dm_mem_classify(m, in, &cl);
    return dm_mem_pre_make_cl(m, in, &cl, pre);
}

int dm_mem_pre_make_cl(dm_mem *m, const wc_inst *in, const dm_mem_class *cl,
                       dm_mem_pre *pre)
{
    if (cl->atomic)
        return 0;
    int path = (int)cl->path;
    if (path == PATH_GLOBAL || path == PATH_CONST) {
        unsigned lb = path == PATH_GLOBAL ? m->l1_line : m->cc_line;
        unsigned sb = path == PATH_GLOBAL ? m->sector : m->cc_line;
        unsigned n = ua_coalesce(in, lb, sb, m->scratch);
        if (n > DM_PRE_LINES)
            return 0;
        for (unsigned i = 0; i < n; i++) {
            pre->addr[i] = m->scratch[i].addr;
            pre->sectors[i] = m->scratch[i].sectors;
        }
        pre->n = (uint8_t)n;
        pre->units = n;
        return 1;
    }
    if (path == PATH_SHARED) {
        pre->n = 0;
        pre->units = ua_shmem_wavefronts(in, m->banks, m->bank_bytes);
        return 1;
    }
    return 0;
}

static int push(dm_mem *m, unsigned sc, const wc_inst *in,
                const dm_mem_class *cl, const dm_mem_pre *pre, uint32_t warp,
                uint64_t tag, uint64_t issue_cycle);

int dm_mem_push_cl(dm_mem *m, unsigned sc, const wc_inst *in,
                   const dm_mem_class *cl, uint32_t warp, uint64_t tag,
                   uint64_t issue_cycle)
{
    return push(m, sc, in, cl, NULL, warp, tag, issue_cycle);
}

int dm_mem_push_pre(dm_mem *m, unsigned sc, const wc_inst *in,
                    const dm_mem_class *cl, const dm_mem_pre *pre,
                    uint32_t warp, uint64_t tag, uint64_t issue_cycle)
{
    return push(m, sc, in, cl, pre, warp, tag, issue_cycle);
}

/* The line count of a global or constant request of in without lane
 * addresses, and its sectors in *sectors.  Speed only: its lines are
 * never looked at (the grant looks lines up only with addresses) and
 * their count and sectors are a function of path, mask and width (2.6% of
 * the host instructions on copy2, callgrind, went to ua_coalesce for its
 * LDCs), so they are kept by those rather than made at every push. */
static unsigned nolines(dm_mem *m, const wc_inst *in, int path, unsigned lb,
                        unsigned sb, unsigned *sectors)
{
    unsigned k = ((unsigned)in->width >> 2 ^ (path == PATH_CONST ? 2u : 0u)) & 3u;
    if (m->nam[k].path != path || m->nam[k].mask != in->mask ||
        m->nam[k].width != in->width) {
        unsigned n = ua_coalesce(in, lb, sb, m->scratch);
        m->nam[k].n = n;
        m->nam[k].sectors = ua_lines_sectors(m->scratch, n);
        m->nam[k].mask = in->mask;
        m->nam[k].width = in->width;
        m->nam[k].path = (uint8_t)path;
    }
    *sectors = m->nam[k].sectors;
    return m->nam[k].n;
}

/* pre: the lanes' part found before (dm_mem_pre_make), else NULL */
static int push(dm_mem *m, unsigned sc, const wc_inst *in,
                const dm_mem_class *cl, const dm_mem_pre *pre, uint32_t warp,
                uint64_t tag, uint64_t issue_cycle)
{
    if (!dm_mem_can_accept(m, sc))
        return -1;
    msub *s = &m->sub[sc];
    unsigned qi = s->head + s->n;
    mreq *q = &s->ring[qi >= m->cap ? qi - m->cap : qi];
    q->cl.war = cl->war;
    q->cl.raw = cl->raw;
    q->cl.bits = (uint16_t)cl->bits;
    q->cl.rt = (uint8_t)cl->rt;
    q->cl.atomic = cl->atomic != 0;
    q->cl.l2_only = cl->l2_only != 0;
    q->cl.is_write = cl->is_write != 0;
    q->path = (uint8_t)cl->path;
    q->has_addr = (in->iflags & WC_IF_HAS_ADDR) != 0;
    q->sub_lines = 0;
    q->units = 0;
    q->leave = q->war_at = 0;
    q->war_done = 0;
    /* the lines (wavefronts) are a pure function of the instruction:
     * found once here, used by the address unit and at the grant */
    if (q->path == PATH_GLOBAL || q->path == PATH_CONST) {
        unsigned lb = q->path == PATH_GLOBAL ? m->l1_line : m->cc_line;
        unsigned sb = q->path == PATH_GLOBAL ? m->sector : m->cc_line;
        unsigned n, sectors;
        if (!pre && !q->has_addr) {
            n = nolines(m, in, q->path, lb, sb, &sectors);
        } else {
            n = pre ? pre->n : ua_coalesce(in, lb, sb, m->scratch);
            if (keep_lines(q, m->scratch, pre, n) != 0)
                return -1;
            q->units = n; /* req_lines */
            sectors = q->path == PATH_GLOBAL ? ua_lines_sectors(req_lines(q), n)
                                             : 0;
        }
        q->units = n;
        if (q->path == PATH_GLOBAL) {
            q->sub_lines = n;
            m->cnt.global_requests += n;
            m->cnt.global_sectors += sectors;
        }
    } else if (q->path == PATH_SHARED) {
        q->units = pre ? pre->units
                       : ua_shmem_wavefronts(in, m->banks, m->bank_bytes);
        m->cnt.shared_wavefronts += q->units;
    }
    if (q->cl.atomic && in->mask)
        m->cnt.atomics++;
    q->amask = 0;
    if (q->cl.atomic && q->has_addr) {
        q->amask = in->mask;
        memcpy(q->aaddr, in->addr, WC_WARP_SIZE * sizeof *q->aaddr);
    }
    q->tag = tag;
    q->warp = warp;
    q->issue = issue_cycle;
    m->tick_idle = 0;
    if (s->nstarted == s->n)
        s->next_issue = issue_cycle;
    s->n++;
    m->q.n[sc] = s->n;
    m->smask |= 1u << sc;
    m->pending++;
    m->st.requests++;
    return 0;
}

/* ---- sub-core address units -------------------------------------------- */

/* Lines of a fully coalesced full-warp access of the row's width: the
 * extra lines or wavefronts beyond it cost time, the ones it has are in
 * the Table 2 latency already. */
static unsigned nominal_units(unsigned bits, unsigned row_bytes)
{
    unsigned bytes = WC_WARP_SIZE * (bits / 8);
    unsigned n = row_bytes ? (bytes + row_bytes - 1) / row_bytes : 1;
    return n ? n : 1;
}

static void start_head(dm_mem *m, unsigned sc, uint64_t now)
{
    msub *s = &m->sub[sc];
    mreq *q = &s->ring[(s->head + s->nstarted) % m->cap];
    uint64_t ii = q->cl.rt == UA_RT_REGULAR ? m->ii_regular : m->ii_uniform;
    uint64_t extra = 0;
    if (q->path == PATH_GLOBAL) {
        uint64_t walk = (uint64_t)q->sub_lines * m->coalesce_cycles;
        if (walk > ii)
            ii = walk;
        unsigned nom = nominal_units(q->cl.bits, m->l1_line);
        if (q->sub_lines > nom)
            extra = (uint64_t)(q->sub_lines - nom) * m->coalesce_cycles;
    }
    q->leave = now + m->sub_after + extra;
    s->agu_free = now + ii;
    if (s->nstarted == 0) {
        s->head_leave = q->leave;
        s->head_cport = q->path == PATH_CONST && m->const_ii;
    }
    s->nstarted++;
    m->gmask |= 1u << sc;
    if (s->nstarted < s->n)
        s->next_issue = s->ring[(s->head + s->nstarted) % m->cap].issue;
    else
        m->smask &= ~(1u << sc);
    m->st.queue_wait_cycles += now - (q->issue + m->dispatch);
    if (q->cl.war <= m->sub_latency) {
        uint64_t d = q->cl.war > (long)m->dispatch
                         ? (uint64_t)q->cl.war - m->dispatch
                         : 0;
        q->war_at = now + d;
        q->war_done = 1;
        emit(m, q, sc, DM_MEM_EV_WAR, q->war_at);
    }
}

/* ---- SM-shared structures ------------------------------------------------ */

/* Sectors of an L1 line to the L2, split by L2 line when they differ. */
static uint64_t to_l2(dm_mem *m, uint64_t line, uint32_t sectors, int is_write,
                      uint64_t now)
{
    uint64_t worst = 0;
    if (m->l2_line == m->l1_line) /* line is an L1 line: one L2 line */
        return dm_l2_access(m->l2, line, sectors, is_write, now);
    ua_line part[32];
    unsigned np = ua_line_split(line, sectors, m->sector, m->l2_line, part);
    for (unsigned i = 0; i < np; i++) {
        uint64_t e =
            dm_l2_access(m->l2, part[i].addr, part[i].sectors, is_write, now);
        if (e > worst)
            worst = e;
    }
    return worst;
}

/* Lines of one access from which global_access prefetches their sets. */
#define DM_PREFETCH_LINES 4

/* Speed only: the L1 set (unless l2_only) and the L2 set that line addr
 * will look up, asked of the host ahead of the lookups (ua_cache_prefetch). */
static void prefetch_line(const dm_mem *m, uint64_t addr, int l2_only)
{
    if (!l2_only)
        ua_cache_prefetch(m->l1, addr);
    dm_l2_prefetch(m->l2, addr);
}

/* Global / local / generic access of q at cycle now: returns the miss
 * penalty over an L1 hit (loads) or the time to perform (stores). */
static uint64_t global_access(dm_mem *m, const mreq *q, unsigned n,
                              uint64_t now)
{
    int store = q->cl.is_write;
    uint64_t worst = 0;
    const ua_line *lines = req_lines(q);
    if (n >= DM_PREFETCH_LINES && !(q->cl.atomic && q->cl.l2_only)) {
        /* speed only: a scattered access looks up many sets of the L1
         * and the L2 (4.9 MB of tags on an H100), mostly host cache
         * misses; asked for all at once, they overlap */
        for (unsigned i = 0; i < n; i++)
            prefetch_line(m, lines[i].addr, q->cl.l2_only);
    }
    for (unsigned i = 0; i < n; i++) {
        const ua_line *l = &lines[i];
        uint64_t pen = 0;
        if (q->cl.atomic && q->cl.l2_only) {
            /* performed at the L2, read-modify-write, same-address ops
             * serialized (issue 11): all lines at once */
            if (i == 0)
                pen = dm_l2_atomic(m->l2, lines, n,
                                   q->amask ? q->aaddr : NULL, q->amask,
                                   now);
        } else if (q->cl.l2_only) {
            pen = to_l2(m, l->addr, l->sectors, store, now);
        } else {
            ua_cache_res r;
            ua_cache_access(m->l1, l->addr, l->sectors, store, &r);
            unsigned nmiss = (unsigned)dm_popcount32(r.miss);
            if (store) {
                if (r.fwd) /* write-through, or a no-allocate miss */
                    pen = to_l2(m, l->addr, r.fwd, 1, now);
            } else {
                m->st.l1_sector_misses += nmiss;
                m->st.l1_sector_hits +=
                    (uint64_t)dm_popcount32(l->sectors) - nmiss;
                if (r.ready > now)
                    pen = r.ready - now; /* merged with a fill in flight */
                if (r.miss) {
                    uint64_t p2 = to_l2(m, l->addr, r.miss, 0, now);
                    ua_cache_set_ready(m->l1, l->addr, r.miss, now + p2);
                    if (p2 > pen)
                        pen = p2;
                }
            }
            if (r.evicted && r.evict_dirty)
                to_l2(m, r.evict_addr, r.evict_dirty, 1, now);
        }
        if (pen > worst)
            worst = pen;
    }
    return worst;
}

/* now + d, never before now */
static uint64_t after(uint64_t now, long d)
{
    return d > 0 ? now + (uint64_t)d : now;
}

static void grant(dm_mem *m, unsigned sc, uint64_t now)
{
    msub *s = &m->sub[sc];
    mreq *q = &s->ring[s->head];
    int has_addr = q->has_addr;
    uint64_t units = q->units, unit_cycles = m->l1_line_cycles, pen = 0;
    unsigned nom = 1;

    switch (q->path) {
    case PATH_GLOBAL: {
        unsigned n = q->units;
        nom = nominal_units(q->cl.bits, m->l1_line);
        m->st.lines += n;
        if (has_addr)
            pen = global_access(m, q, n, now);
        break;
    }
    case PATH_SHARED:
        unit_cycles = m->wf_cycles;
        nom = nominal_units(q->cl.bits, m->banks * m->bank_bytes);
        m->st.shmem_wavefronts += units;
        break;
    case PATH_CONST: {
        unsigned n = q->units;
        nom = nominal_units(q->cl.bits, m->cc_line);
        const ua_line *lines = req_lines(q);
        if (has_addr)
            for (unsigned i = 0; i < n; i++) {
                uint64_t p = dm_cc_access_vl(m->cc, lines[i].addr, now);
                if (p > pen)
                    pen = p;
            }
        break;
    }
    default:
        units = 0;
        break;
    }
    uint64_t extra = units > nom ? (units - nom) * unit_cycles : 0;
    uint64_t occ = units * unit_cycles;
    if (q->path == PATH_CONST && m->const_ii) {
        if (occ < m->const_ii)
            occ = m->const_ii;
        m->const_free = now + occ; /* own port: the shared one stays free */
    } else {
        if (occ < m->shared_ii)
            occ = m->shared_ii;
        m->shared_free = now + occ;
    }
    m->st.grants++;
    m->st.arb_wait_cycles += now - q->leave;

    /* Table 2 times are issue-relative; an unloaded request is granted at
     * issue + sub_latency, so later phases count from the grant. */
    if (!q->war_done) {
        q->war_at = after(now, q->cl.war - m->sub_latency);
        emit(m, q, sc, DM_MEM_EV_WAR, q->war_at);
    }
    uint64_t done;
    if (q->cl.raw >= 0) {
        done = after(now, q->cl.raw - m->sub_latency) + extra + pen;
    } else if (q->path == PATH_NONE) {
        done = now + occ;
        if (m->last_done > done)
            done = m->last_done; /* a fence waits for what went before */
    } else {
        done = now + occ + pen;
    }
    if (done < q->war_at)
        done = q->war_at;
    if (done > m->last_done)
        m->last_done = done;
    emit(m, q, sc, DM_MEM_EV_RAW, done);

    s->head = (s->head + 1) % m->cap;
    s->n--;
    m->q.n[sc] = s->n;
    s->nstarted--;
    m->prt_used++;
    if (!s->nstarted)
        m->gmask &= ~(1u << sc);
    if (s->nstarted) {
        const mreq *h = &s->ring[s->head];
        s->head_leave = h->leave;
        s->head_cport = h->path == PATH_CONST && m->const_ii;
        if (h->path == PATH_GLOBAL && h->has_addr && h->units)
            /* its first line's sets, asked of the host before its grant */
            prefetch_line(m, req_lines(h)[0].addr, h->cl.l2_only);
    }
}

/* ---- tick / poll ------------------------------------------------------- */

/* The earliest cycle a start or a grant may happen with the state as it
 * is (UINT64_MAX: none; a full PRT waits for a RAW event). */
static uint64_t next_action(const dm_mem *m)
{
    uint64_t t = UINT64_MAX, leave = UINT64_MAX;
    for (unsigned b = m->gmask; b; b &= b - 1) { /* grant: see dm_mem_tick */
        const msub *s = &m->sub[__builtin_ctz(b)];
        uint64_t g = s->head_leave,
                 pf = s->head_cport ? m->const_free : m->shared_free;
        if (pf > g)
            g = pf;
        if (g < leave)
            leave = g;
    }
    for (unsigned b = m->smask; b; b &= b - 1) { /* start: see dm_mem_tick */
        const msub *s = &m->sub[__builtin_ctz(b)];
        uint64_t st = s->next_issue + m->dispatch;
        if (s->agu_free > st)
            st = s->agu_free;
        if (st < t)
            t = st;
    }
    if (leave != UINT64_MAX && m->prt_used < m->prt_cap && leave < t)
        t = leave;
    return t;
}

int dm_mem_tick(dm_mem *m, uint64_t now)
{
    int acted = 0, granted = 0;
    if (now < m->tick_idle)
        return 0; /* nothing can start or be granted yet */
    if (m->gmask &&
        (now >= m->shared_free || (m->const_ii && now >= m->const_free)) &&
        m->prt_used < m->prt_cap) {
        /* round robin from rr; a grant makes its port busy (occupancy >= 1
         * cycle), so at most one grant per port and cycle.  Only the units
         * with a started head (gmask) can be granted: from rr up, then
         * from 0 (a grant changes only its own unit's bit) */
        unsigned first = m->rr, g = m->gmask;
        unsigned part[2] = {g & (~0u << first), g & ((1u << first) - 1u)};
        int one_port_done = 0;
        for (int h = 0; h < 2 && !one_port_done; h++)
            for (unsigned b = part[h]; b; b &= b - 1) {
                unsigned sc = (unsigned)__builtin_ctz(b);
                msub *s = &m->sub[sc];
                if (s->head_leave <= now &&
                    now >= (s->head_cport ? m->const_free : m->shared_free) &&
                    m->prt_used < m->prt_cap) {
                    grant(m, sc, now);
                    acted = granted = 1;
                    m->rr = sc + 1 == m->nsub ? 0 : sc + 1;
                    if (!m->const_ii) { /* one port: one grant */
                        one_port_done = 1;
                        break;
                    }
                }
            }
    }
    /* units with a request not started (smask), in order; a start changes
     * only its own unit's bit */
    for (unsigned b = m->smask; b; b &= b - 1) {
        unsigned sc = (unsigned)__builtin_ctz(b);
        msub *s = &m->sub[sc];
        if (now >= s->agu_free && now >= s->next_issue + m->dispatch) {
            start_head(m, sc, now);
            acted = 1;
        }
    }
    if (!acted)
        m->tick_idle = next_action(m);
    return granted;
}

size_t dm_mem_poll(dm_mem *m, uint64_t now, dm_mem_event *ev, size_t max)
{
    size_t k = 0;
    if (now < m->ev_min)
        return 0;
    while (k < max && m->nheap && m->heap[0].e.cycle <= now) {
        hev h = heap_pop(m);
        if (h.e.kind == DM_MEM_EV_RAW) {
            m->prt_used--;
            m->pending--;
            m->tick_idle = 0; /* a full PRT may grant again */
        }
        ev[k++] = h.e;
    }
    return k;
}

size_t dm_mem_pending(const dm_mem *m)
{
    return m->pending;
}

uint64_t dm_mem_next_event(const dm_mem *m)
{
    return m->nheap ? m->heap[0].e.cycle : UINT64_MAX;
}

uint64_t dm_mem_next_cycle(const dm_mem *m, uint64_t now)
{
    uint64_t t = dm_mem_next_event(m);
    uint64_t a = next_action(m); /* a full PRT waits for a RAW event */
    if (a < t)
        t = a;
    return t > now ? t : now;
}

uint64_t dm_mem_quiet_until(const dm_mem *m)
{
    /* tick_idle holds until a push or a RAW poll (both clear it), ev_min
     * until a tick emits or a poll pops */
    return m->tick_idle < m->ev_min ? m->tick_idle : m->ev_min;
}

void dm_mem_prefetch(const dm_mem *m, int stage)
{
    if (stage == 0) {
        const char *a = (const char *)&m->nsub, *b = (const char *)m->scratch;
        for (; a < b; a += 64)
            __builtin_prefetch(a);
        return;
    }
    for (unsigned i = 0; i < m->nsub; i += 64 / sizeof *m->sub)
        __builtin_prefetch(&m->sub[i]);
    __builtin_prefetch(m->heap);
}

unsigned dm_mem_slots_used(const dm_mem *m, unsigned sc)
{
    return sc < m->nsub ? m->sub[sc].n : 0;
}

void dm_mem_counts_add(const dm_mem *m, ua_counts *c)
{
    ua_counts x = m->cnt;
    x.l1_hit_sectors = m->st.l1_sector_hits;
    ua_counts_add(c, &x);
}

void dm_mem_stats_get(const dm_mem *m, dm_mem_stats *st)
{
    *st = m->st;
    dm_cc_stats(m->cc, &st->cc_fl_hits, &st->cc_fl_misses, &st->cc_vl_hits,
                &st->cc_vl_misses);
}

void dm_mem_dump(const dm_mem *m, char *buf, size_t n)
{
    int k = snprintf(buf, n,
                     "mem: pending %zu prt %u/%u events %zu shared_free %llu "
                     "const_free %llu slots",
                     m->pending, m->prt_used, m->prt_cap, m->nheap,
                     (unsigned long long)m->shared_free,
                     (unsigned long long)m->const_free);
    for (unsigned s = 0; s < m->nsub && k > 0 && (size_t)k < n; s++)
        k += snprintf(buf + k, n - (size_t)k, " %u:%u/%u(started %u)", s,
                      m->sub[s].n, m->cap, m->sub[s].nstarted);
}

uint64_t dm_mem_const_probe(dm_mem *m, unsigned sc, uint32_t const_addr,
                            uint64_t now)
{
    return dm_cc_probe_fl(m->cc, sc, const_addr, now);
}
