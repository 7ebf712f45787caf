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
 * are O(resources); memory is O(SMs x slots).
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
    s->t_dispatch = -INFINITY;
    return 0;
}

void im_sched_free(im_sched *s)
{
    if (s->sm && s->nsm > 0) {
        size_t ncs = (size_t)s->nsm * (size_t)s->slots;
        wc_pool_free(s->sm[0].c, ncs * sizeof *s->sm[0].c, 0);
        wc_pool_free(s->sm[0].slot_used, ncs, 0);
    }
    free(s->sm);
    memset(s, 0, sizeof *s);
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
    if (m->n > 0)
        for (int r = 0; r < IM_NRES; r++)
            if (m->sum[r] > u)
                u = m->sum[r];
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
    for (int i = 0; i < m->n;) {
        if (m->c[i].vfin <= m->v + 1e-9 * (1 + fabs(m->v))) {
            im_rcta *c = &m->c[i];
            double actual = m->t - c->arrive;
            if (actual > c->T)
                s->contention += actual - c->T;
            for (int r = 0; r < IM_NRES; r++)
                m->sum[r] -= c->rate[r];
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
        memset(m->sum, 0, sizeof m->sum);
        m->v = 0;
    }
    if (s->l2_rate < 0)
        s->l2_rate = 0;
    if (s->dram_rate < 0)
        s->dram_rate = 0;
    sm_reslow(m);
    m->next = sm_next_calc(m);
}

/* Process every completion up to time t (inclusive), in time order. */
static void run_until(im_sched *s, double t)
{
    for (;;) {
        long best = -1;
        double bt = INFINITY;
        for (long i = 0; i < s->nsm; i++) {
            double x = sm_next(&s->sm[i]);
            if (x < bt) {
                bt = x;
                best = i;
            }
        }
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
        long best = -1;
        int bn = s->slots;
        for (long k = 0; k < s->nsm; k++) {
            long i = (s->rr + k) % s->nsm;
            if (s->sm[i].n < bn) {
                bn = s->sm[i].n;
                best = i;
            }
        }
        if (best >= 0) {
            *sm = best;
            break;
        }
        /* all full: wait for the earliest completion */
        double bt = INFINITY;
        for (long i = 0; i < s->nsm; i++) {
            double x = sm_next(&s->sm[i]);
            if (x < bt)
                bt = x;
        }
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
    im_rcta *c = &m->c[m->n++];
    c->slot = slot;
    c->arrive = t;
    c->T = T;
    m->slot_used[slot] = 1;
    c->vfin = m->v + T;
    for (int r = 0; r < IM_NRES; r++) {
        c->rate[r] = dem[r] / T;
        m->sum[r] += c->rate[r];
    }
    c->l2_rate = l2_rate;
    c->dram_rate = dram_rate;
    s->l2_rate += c->l2_rate;
    s->dram_rate += c->dram_rate;
    sm_reslow(m);
    m->next = sm_next_calc(m);
}

double im_sched_drain(im_sched *s)
{
    run_until(s, INFINITY);
    return s->end;
}
