/*
 * detailed/scoreboard.c - scoreboard dependence tracking (seed 000 2, 6,
 * 7.5, Table 7), used for kernels without control bits (dep_mode auto) and
 * as a what-if (dep_mode scoreboard).
 *
 * Per warp: pending writes (RAW / WAW) of every register kind, and pending
 * reads of variable-latency instructions (WAR: operands are read after
 * issue, possibly after a younger instruction writes them).  A register
 * tracks at most sb_max_consumers pending readers; more stall issue.  A
 * fixed-latency write clears lat_<class> cycles after issue, a
 * variable-latency one at its write-back, a read when the operands are read.
 */
#include "dm_int.h"

static int overlaps(const dm_sbe *e, unsigned r, unsigned n)
{
    return r < (unsigned)e->reg + e->n && e->reg < r + n;
}

static unsigned nregs_of(uint8_t n)
{
    return n ? n : 1;
}

/* Drop the entries cleared by c.  Speed only: w->sbmin is a lower bound
 * of the entries' ready cycles (0 at a warp's start), exact after the
 * first purge (add and release keep it so), so that a purge with nothing
 * to drop returns at once. */
static void purge(dm_warp *w, uint64_t c)
{
    if (c < w->sbmin)
        return;
    unsigned k = 0;
    uint64_t m = UINT64_MAX;
    for (unsigned i = 0; i < w->nsbl; i++)
        if (w->x->sbl[i].ready > c) {
            if (w->x->sbl[i].ready < m)
                m = w->x->sbl[i].ready;
            w->x->sbl[k++] = w->x->sbl[i];
        }
    w->nsbl = k;
    w->sbmin = m;
}

int dm_sb_ready(const dm_params *p, dm_warp *w, const wc_inst *in,
                uint64_t c)
{
    purge(w, c);
    for (unsigned i = 0; i < in->nsrc; i++) {
        wc_reg r = in->src[i];
        if (r == WC_REG_NONE || WC_REG_IS_ZERO(r))
            continue;
        unsigned n = nregs_of(in->src_nregs[i]), readers = 0;
        for (unsigned j = 0; j < w->nsbl; j++) {
            const dm_sbe *e = &w->x->sbl[j];
            if (!overlaps(e, r, n))
                continue;
            if (e->write)
                return 0;
            readers++;
        }
        if (readers >= p->sb_consumers)
            return 0;
    }
    for (unsigned i = 0; i < in->ndst; i++) {
        wc_reg r = in->dst[i];
        if (r == WC_REG_NONE || WC_REG_IS_ZERO(r))
            continue;
        unsigned n = nregs_of(in->dst_nregs[i]);
        for (unsigned j = 0; j < w->nsbl; j++)
            if (overlaps(&w->x->sbl[j], r, n))
                return 0;
    }
    return w->nsbl + in->ndst + in->nsrc <= DM_SBL_MAX;
}

uint64_t dm_sb_next(const dm_warp *w, uint64_t c)
{
    if (w->sbmin > c) /* exact: every entry is past c */
        return w->sbmin;
    uint64_t t = UINT64_MAX;
    for (unsigned i = 0; i < w->nsbl; i++)
        if (w->x->sbl[i].ready > c && w->x->sbl[i].ready < t)
            t = w->x->sbl[i].ready;
    return t;
}

static int add(dm_warp *w, wc_reg r, unsigned n, int write, uint64_t tag,
               uint64_t ready)
{
    if (r == WC_REG_NONE || WC_REG_IS_ZERO(r))
        return 0;
    if (w->nsbl >= DM_SBL_MAX)
        return 1; /* dm_sb_ready keeps room: cannot happen */
    dm_sbe *e = &w->x->sbl[w->nsbl++];
    e->reg = r;
    e->n = (uint8_t)n;
    e->write = (uint8_t)write;
    e->tag = tag;
    e->ready = ready;
    if (ready < w->sbmin)
        w->sbmin = ready;
    return 0;
}

int dm_sb_issue(dm_warp *w, const wc_inst *in, int varlat, uint64_t tag,
                uint64_t fixed_ready)
{
    uint64_t never = UINT64_MAX;
    int lost = 0;
    for (unsigned i = 0; i < in->ndst; i++)
        lost += add(w, in->dst[i], nregs_of(in->dst_nregs[i]), 1,
                    varlat ? tag : 0, varlat && tag ? never : fixed_ready);
    if (varlat && tag)
        for (unsigned i = 0; i < in->nsrc; i++)
            lost += add(w, in->src[i], nregs_of(in->src_nregs[i]), 0, tag,
                        never);
    return lost;
}

void dm_sb_release(dm_warp *w, uint64_t tag, int write, uint64_t c)
{
    for (unsigned i = 0; i < w->nsbl; i++)
        if (w->x->sbl[i].tag == tag && w->x->sbl[i].write == write &&
            w->x->sbl[i].ready > c) {
            w->x->sbl[i].ready = c;
            if (c < w->sbmin)
                w->sbmin = c;
        }
}
