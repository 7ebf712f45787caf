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

/* Drop the entries cleared by c.  Speed only: x->sbmin is a lower bound
 * of the entries' ready cycles (0 at a warp's start), exact after the
 * first purge (add and release keep it so), so that a purge with nothing
 * to drop returns at once. */
static void purge(dm_wcold *x, uint64_t c)
{
    if (c < x->sbmin)
        return;
    unsigned k = 0;
    uint64_t m = UINT64_MAX;
    for (unsigned i = 0; i < x->nsbl; i++)
        if (x->sbl[i].ready > c) {
            if (x->sbl[i].ready < m)
                m = x->sbl[i].ready;
            x->sbl[k++] = x->sbl[i];
        }
    x->nsbl = k;
    x->sbmin = m;
}

int dm_sb_ready(const dm_params *p, dm_warp *w, const wc_inst *in,
                uint64_t c)
{
    dm_wcold *x = w->x;
    purge(x, c);
    for (unsigned i = 0; i < in->nsrc; i++) {
        wc_reg r = in->src[i];
        if (r == WC_REG_NONE || WC_REG_IS_ZERO(r))
            continue;
        unsigned n = nregs_of(in->src_nregs[i]), readers = 0;
        for (unsigned j = 0; j < x->nsbl; j++) {
            const dm_sbe *e = &x->sbl[j];
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
        for (unsigned j = 0; j < x->nsbl; j++)
            if (overlaps(&x->sbl[j], r, n))
                return 0;
    }
    return x->nsbl + in->ndst + in->nsrc <= DM_SBL_MAX;
}

uint64_t dm_sb_next(const dm_warp *w, uint64_t c)
{
    const dm_wcold *x = w->x;
    if (x->sbmin > c) /* exact: every entry is past c */
        return x->sbmin;
    uint64_t t = UINT64_MAX;
    for (unsigned i = 0; i < x->nsbl; i++)
        if (x->sbl[i].ready > c && x->sbl[i].ready < t)
            t = x->sbl[i].ready;
    return t;
}

static int add(dm_wcold *x, wc_reg r, unsigned n, int write, uint64_t tag,
               uint64_t ready)
{
    if (r == WC_REG_NONE || WC_REG_IS_ZERO(r))
        return 0;
    if (x->nsbl >= DM_SBL_MAX)
        return 1; /* dm_sb_ready keeps room: cannot happen */
    dm_sbe *e = &x->sbl[x->nsbl++];
    e->reg = r;
    e->n = (uint8_t)n;
    e->write = (uint8_t)write;
    e->tag = tag;
    e->ready = ready;
    if (ready < x->sbmin)
        x->sbmin = ready;
    return 0;
}

int dm_sb_issue(dm_warp *w, const wc_inst *in, int varlat, uint64_t tag,
                uint64_t fixed_ready)
{
    uint64_t never = UINT64_MAX;
    int lost = 0;
    for (unsigned i = 0; i < in->ndst; i++)
        lost += add(w->x, in->dst[i], nregs_of(in->dst_nregs[i]), 1,
                    varlat ? tag : 0, varlat && tag ? never : fixed_ready);
    if (varlat && tag)
        for (unsigned i = 0; i < in->nsrc; i++)
            lost += add(w->x, in->src[i], nregs_of(in->src_nregs[i]), 0, tag,
                        never);
    return lost;
}

void dm_sb_release(dm_wcold *x, uint64_t tag, int write, uint64_t c)
{
    dm_sbe *e = x->sbl;
    unsigned n = x->nsbl, i = 0;
    if (tag) {
        /* speed only: a nonzero tag is one instruction's, whose entries
         * dm_sb_issue added together (purge keeps the order): they are one
         * run, and the scan stops after it (a tag recurs only after 2^32
         * records of one in-flight slot, sm.c dm_fl_alloc) */
        while (i < n && e[i].tag != tag)
            i++;
        for (; i < n && e[i].tag == tag; i++)
            if (e[i].write == write && e[i].ready > c) {
                e[i].ready = c;
                if (c < x->sbmin)
                    x->sbmin = c;
            }
        return;
    }
    for (; i < n; i++)
        if (e[i].tag == tag && e[i].write == write && e[i].ready > c) {
            e[i].ready = c;
            if (c < x->sbmin)
                x->sbmin = c;
        }
}
