/*
 * model/im_sched.c - SMs as processor-sharing servers of resident CTAs.
 *
 * Owns: the GPU-wide CTA dispatch (trace order, one CTA every cta_dispatch
 * cycles, to the SM with a free slot and the fewest residents) and the
 * progress of the CTAs resident on an SM.  A CTA arrives with its solo time
 * T (alone on the SM) and its demand D[r] on every SM resource.  While a
 * set C of CTAs is resident, all of them progress at the same slowdown
 *
 *     slow = max(1, max_r sum_{c in C} D_c[r] / T_c)
 *
 * which is tracked with a per-SM virtual clock: a CTA finishes when the
 * SM's virtual time reaches its arrival virtual time + T.  Events per CTA
 * are O(resources it uses + log SMs) (a tournament tree over the SMs' next
 * completions, bitmaps of the SMs by resident count); memory is
 * O(SMs x slots).
 *
 *   state of one SM:   t (real), v (virtual), slow, residents{vfin, rate[]}
 *   advance(t'):       v += (t' - t) / slow
 *   next finish:       t + (min vfin - v) * slow
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "im_int.h"
#include "wc_pool.h"

int im_sched_init(im_sched *s, long nsm, int slots)
{
    memset(s, 0, sizeof *s);
    s->nsm = nsm;
    s->slots = slots;
    s->sm = calloc((size_t)nsm, sizeof *s->sm);
    /* one block for every SM's CTA records and one for the slot flags, not
     * two small blocks per SM: per-SM blocks freed at each kernel's end
     * fragmented the heap and let the peak RSS of a many-launch run grow
     * with the launch count (tests/unit/test_mem_launches.c) */
    size_t ncs = (size_t)nsm * (size_t)slots;
    im_rcta *cs = wc_pool_alloc(ncs * sizeof *cs, 0, 0);
    unsigned char *us = wc_pool_alloc(ncs, 0, 1);
    if (!s->sm || !cs || !us) {
        free(s->sm);
        wc_pool_free(cs, ncs * sizeof *cs, 0);
        wc_pool_free(us, ncs, 0);
        s->sm = NULL;
        return -1;
    }
    for (long i = 0; i < nsm; i++) {
        s->sm[i].slow = 1;
        s->sm[i].next = INFINITY;
        /* every field of a resident CTA is written when it arrives
         * (im_sched_add): no clearing, so a launch pays for what it uses */
        s->sm[i].c = cs + (size_t)i * (size_t)slots;
        s->sm[i].slot_used = us + (size_t)i * (size_t)slots;
    }
    s->tp = 1;
    while (s->tp < nsm)
        s->tp *= 2;
    s->lw = ((size_t)nsm + 63) / 64;
    s->tw = malloc(2 * (size_t)s->tp * sizeof *s->tw);
    s->lv = calloc(((size_t)slots + 1) * s->lw + 1, sizeof *s->lv);
    s->lvn = calloc((size_t)slots + 1, sizeof *s->lvn);
    if (!s->tw || !s->lv || !s->lvn) {
        im_sched_free(s);
        return -1;
    }
    for (long i = 0; i < s->tp; i++)
        s->tw[s->tp + i] = i < nsm ? i : -1;
    for (long j = s->tp - 1; j >= 1; j--)
        s->tw[j] = s->tw[2 * j]; /* all next = INFINITY: the lower wins */
    for (long i = 0; i < nsm; i++)
        s->lv[(size_t)i / 64] |= 1ull << (i % 64); /* all hold 0 CTAs */
    s->lvn[0] = nsm;
    s->t_dispatch = -INFINITY;
    return 0;
}

/* The earlier of the next completions of SMs a < b (-1: none): b only
 * when strictly earlier or a's is NaN (a scan in SM order keeps the first
 * of equal ones and never takes a NaN). */
static inline long tw_win(const im_sched *s, long a, long b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    double na = s->sm[a].next, nb = s->sm[b].next;
    return nb < na || (na != na && nb == nb) ? b : a;
}

/* SM i's next completion changed. */
static void tw_update(im_sched *s, long i)
{
    for (long j = (s->tp + i) / 2; j >= 1; j /= 2)
        s->tw[j] = tw_win(s, s->tw[2 * j], s->tw[2 * j + 1]);
}

/* SM i's resident count goes from a to b. */
static void lv_move(im_sched *s, long i, int a, int b)
{
    uint64_t bit = 1ull << (i % 64);
    size_t w = (size_t)i / 64;
    s->lv[(size_t)a * s->lw + w] &= ~bit;
    s->lv[(size_t)b * s->lw + w] |= bit;
    s->lvn[a]--;
    s->lvn[b]++;
}

/* The first SM of bitmap bm at or after rr, wrapping around (-1: none). */
static long lv_first(const im_sched *s, const uint64_t *bm, long rr)
{
    size_t w0 = (size_t)rr / 64;
    uint64_t x = bm[w0] & (~0ull << (rr % 64));
    for (size_t w = w0;;) {
        if (x)
            return (long)(w * 64) + __builtin_ctzll(x);
        if (++w == s->lw)
            break;
        x = bm[w];
    }
    for (size_t w = 0; w <= w0; w++)
        if (bm[w])
            return (long)(w * 64) + __builtin_ctzll(bm[w]);
    return -1;
}

void im_sched_free(im_sched *s)
{
    if (s->sm && s->nsm > 0) {
        size_t ncs = (size_t)s->nsm * (size_t)s->slots;
        wc_pool_free(s->sm[0].c, ncs * sizeof *s->sm[0].c, 0);
        wc_pool_free(s->sm[0].slot_used, ncs, 0);
    }
    free(s->sm);
    free(s->tw);
    free(s->lv);
    free(s->lvn);
    memset(s, 0, sizeof *s);
}

int im_sched_clone(const im_sched *s, im_sched *out)
{
    *out = *s;
    out->sm = NULL;
    out->tw = NULL;
    out->lv = NULL;
    out->lvn = NULL;
    size_t nsm = (size_t)s->nsm, ncs = nsm * (size_t)s->slots;
    size_t nlv = ((size_t)s->slots + 1) * s->lw + 1;
    size_t nlvn = (size_t)s->slots + 1, ntw = 2 * (size_t)s->tp;
    out->sm = malloc(nsm * sizeof *out->sm);
    /* the blocks as im_sched_init makes them (im_sched_free gives them
     * back to the pool) */
    im_rcta *cs = wc_pool_alloc(ncs * sizeof *cs, 0, 0);
    unsigned char *us = wc_pool_alloc(ncs, 0, 0);
    out->tw = malloc(ntw * sizeof *out->tw);
    out->lv = malloc(nlv * sizeof *out->lv);
    out->lvn = malloc(nlvn * sizeof *out->lvn);
    if (!out->sm || !cs || !us || !out->tw || !out->lv || !out->lvn) {
        free(out->sm);
        wc_pool_free(cs, ncs * sizeof *cs, 0);
        wc_pool_free(us, ncs, 0);
        free(out->tw);
        free(out->lv);
        free(out->lvn);
        memset(out, 0, sizeof *out);
        return -1;
    }
    memcpy(out->sm, s->sm, nsm * sizeof *out->sm);
    memcpy(out->tw, s->tw, ntw * sizeof *out->tw);
    memcpy(out->lv, s->lv, nlv * sizeof *out->lv);
    memcpy(out->lvn, s->lvn, nlvn * sizeof *out->lvn);
    for (size_t i = 0; i < nsm; i++) {
        const im_sm *m = &s->sm[i];
        /* the resident CTAs' records (the others are written on arrival)
         * and the slot flags */
        memcpy(cs + i * (size_t)s->slots, m->c, (size_t)m->n * sizeof *cs);
        memcpy(us + i * (size_t)s->slots, m->slot_used, (size_t)s->slots);
        out->sm[i].c = cs + i * (size_t)s->slots;
        out->sm[i].slot_used = us + i * (size_t)s->slots;
    }
    return 0;
}

static void sm_advance(im_sm *m, double t)
{
    if (t <= m->t)
        return;
    if (m->n > 0) {
        m->v += (t - m->t) / m->slow;
        m->busy += t - m->t;
    }
    m->t = t;
}

static void sm_reslow(im_sm *m)
{
    double u = 1;
    if (m->n > 0) /* the others hold 0 */
        for (int i = 0; i < m->ntch; i++)
            if (m->sum[m->tch[i]] > u)
                u = m->sum[m->tch[i]];
    m->slow = u;
}

static double sm_next_calc(const im_sm *m)
{
    if (m->n == 0)
        return INFINITY;
    double vmin = INFINITY;
    for (int i = 0; i < m->n; i++)
        if (m->c[i].vfin < vmin)
            vmin = m->c[i].vfin;
    double dt = (vmin - m->v) * m->slow;
    return m->t + (dt > 0 ? dt : 0);
}

static double sm_next(const im_sm *m)
{
    return m->next;
}

/* Complete the CTAs of m whose virtual finish time has come. */
static void sm_complete(im_sched *s, im_sm *m)
{
    int n0 = m->n;
    for (int i = 0; i < m->n;) {
        if (m->c[i].vfin <= m->v + 1e-9 * (1 + fabs(m->v))) {
            im_rcta *c = &m->c[i];
            double actual = m->t - c->arrive;
            if (actual > c->T)
                s->contention += actual - c->T;
            for (int k = 0; k < c->nnz; k++)
                m->sum[c->nz[k]] -= c->rate[c->nz[k]];
            s->l2_rate -= c->l2_rate;
            s->dram_rate -= c->dram_rate;
            m->slot_used[c->slot] = 0;
            if (m->t > s->end)
                s->end = m->t;
            m->c[i] = m->c[--m->n];
        } else {
            i++;
        }
    }
    if (m->n == 0) {
        for (int k = 0; k < m->ntch; k++)
            m->tbit[m->tch[k] / 64] = 0;
        m->ntch = 0;
        memset(m->sum, 0, sizeof m->sum);
        m->v = 0;
    }
    if (s->l2_rate < 0)
        s->l2_rate = 0;
    if (s->dram_rate < 0)
        s->dram_rate = 0;
    sm_reslow(m);
    m->next = sm_next_calc(m);
    long id = (long)(m - s->sm);
    if (m->n != n0)
        lv_move(s, id, n0, m->n);
    tw_update(s, id);
}

/* The earliest next completion over the SMs (INFINITY: none) and its SM
 * (the first of equal ones; -1 when none is finite). */
static double next_min(const im_sched *s, long *best)
{
    long b = s->tw[1];
    double bt = b >= 0 ? sm_next(&s->sm[b]) : INFINITY;
    if (!(bt < INFINITY)) {
        *best = -1;
        return INFINITY;
    }
    *best = b;
    return bt;
}

/* Process every completion up to time t (inclusive), in time order. */
static void run_until(im_sched *s, double t)
{
    for (;;) {
        long best;
        double bt = next_min(s, &best);
        if (best < 0 || bt > t)
            return;
        sm_advance(&s->sm[best], bt);
        sm_complete(s, &s->sm[best]);
    }
}

void im_sched_pick(im_sched *s, double cta_dispatch, long *sm, int *slot,
                   double *t)
{
    double td = s->dispatched ? s->t_dispatch + cta_dispatch : 0;
    for (;;) {
        run_until(s, td);
        /* the SM with the fewest CTAs, the first from rr on of those */
        long best = -1;
        for (int c = 0; c < s->slots && best < 0; c++)
            if (s->lvn[c])
                best = lv_first(s, s->lv + (size_t)c * s->lw, s->rr);
        if (best >= 0) {
            *sm = best;
            break;
        }
        /* all full: wait for the earliest completion */
        long b;
        double bt = next_min(s, &b);
        td = bt > td ? bt : td;
    }
    s->rr = (*sm + 1) % s->nsm;
    im_sm *m = &s->sm[*sm];
    int q = 0;
    while (q < s->slots - 1 && m->slot_used[q])
        q++;
    *slot = q;
    *t = td;
    s->t_dispatch = td;
    s->dispatched++;
}

void im_sched_add(im_sched *s, long sm, int slot, double t, double T,
                  const double *dem, double l2_rate, double dram_rate)
{
    im_sm *m = &s->sm[sm];
    sm_advance(m, t);
    if (m->n == 0)
        m->t = t;
    if (T < 1)
        T = 1;
    lv_move(s, sm, m->n, m->n + 1);
    im_rcta *c = &m->c[m->n++];
    c->slot = slot;
    c->arrive = t;
    c->T = T;
    m->slot_used[slot] = 1;
    c->vfin = m->v + T;
    /* a resource without demand adds 0 (0 / T): skipped, here, in the
     * sums and at completion (x + 0 and x - 0 are x: the sums never hold
     * -0, the only value that adding +0 would change) */
    c->nnz = 0;
    for (int r = 0; r < IM_NRES; r++) {
        if (dem[r] == 0)
            continue;
        c->rate[r] = dem[r] / T;
        m->sum[r] += c->rate[r];
        c->nz[c->nnz++] = (uint16_t)r;
        uint64_t bit = 1ull << (r % 64);
        if (!(m->tbit[r / 64] & bit)) {
            m->tbit[r / 64] |= bit;
            m->tch[m->ntch++] = (uint16_t)r;
        }
    }
    c->l2_rate = l2_rate;
    c->dram_rate = dram_rate;
    s->l2_rate += c->l2_rate;
    s->dram_rate += c->dram_rate;
    sm_reslow(m);
    m->next = sm_next_calc(m);
    tw_update(s, sm);
}

double im_sched_drain(im_sched *s)
{
    run_until(s, INFINITY);
    return s->end;
}
