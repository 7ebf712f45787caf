/*
 * model/im_warp.c - one warp's stream cut into intervals.
 *
 * Owns: the per-warp walk.  Each instruction issues at the earliest cycle
 * its constraints allow, alone on its sub-core:
 *
 *   base      previous issue + 1 (one issue slot per cycle)
 *   stall     previous issue + its stall count          (control bits)
 *   rf        previous issue + 1 + its register-bank read bubble
 *   sb wait   release of every dependence counter it waits on (control bits)
 *   scoreboard  sources ready (RAW), destinations free (WAW, WAR)  (no bits)
 *   unit      its pipe's initiation interval since the last use
 *   mem queue a free entry in the sub-core memory queue (seed 000 Table 1)
 *
 * The binding constraint names the cycles lost (dependency, memory level,
 * unit ...).  A wait on a long-latency producer (a memory access served by
 * L2 or DRAM) ends an interval: the distance already covered since the
 * producer issued is subtracted automatically, because times are absolute.
 * A CTA barrier ends a phase; the CTA keeps, per phase, the longest warp
 * and the demand every warp puts on the sub-core and SM resources.
 */
#include <math.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string.h>

#include "im_int.h"
#include "wc_pool.h"

void im_cta_reset(im_cta_acc *a)
{
    a->nphases = 0;
    a->warp_total_max = 0;
    a->l2_bytes = a->dram_bytes = 0;
    a->first_l2 = a->first_dram = a->post_l2 = a->post_dram = 1e300;
    a->atom_tail = 0;
    a->insts = a->intervals = 0;
    a->l1_hits = a->l2_hits = a->dram_sectors = 0;
    memset(&a->cnt, 0, sizeof a->cnt);
}

void im_cta_free(im_cta_acc *a)
{
    free(a->lmax);
    free(a->crit);
    free(a->dem);
    free(a->edge);
    free(a->atom_addr);
    free(a->atom_cnt);
    memset(a, 0, sizeof *a);
}

/* Count the ops of atomic in per address over the kernel (issue 11:
 * same-address atomics serialize at the L2; run_finish turns the most ops
 * on one address into a floor).  A direct-mapped table: an address whose
 * slot holds another keeps its own count only if it takes the slot over
 * with more ops; deterministic. */
static void atom_count(const im_par *p, im_cta_acc *a, const wc_inst *in)
{
    if (p->atom_op <= 0 || !(in->iflags & WC_IF_HAS_ADDR))
        return;
    if (!a->atom_addr) {
        a->atom_addr = calloc(IM_ATOM_TAB, sizeof *a->atom_addr);
        a->atom_cnt = calloc(IM_ATOM_TAB, sizeof *a->atom_cnt);
        if (!a->atom_addr || !a->atom_cnt) {
            free(a->atom_addr);
            free(a->atom_cnt);
            a->atom_addr = NULL;
            a->atom_cnt = NULL;
            return; /* out of memory: no serialization floor */
        }
    }
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!(in->mask & (1u << l)))
            continue;
        uint64_t ad = in->addr[l];
        size_t h = (size_t)((ad >> 2) * 0x9E3779B97F4A7C15ull >> 52) %
                   IM_ATOM_TAB;
        if (a->atom_addr[h] != ad + 1) {
            if (a->atom_cnt[h] > 1)
                continue; /* slot taken by a contended address */
            a->atom_addr[h] = ad + 1;
            a->atom_cnt[h] = 0;
        }
        if (++a->atom_cnt[h] > a->atom_max)
            a->atom_max = a->atom_cnt[h];
    }
}

/* Make phase p exist (zeroed). */
static int phase_at(im_cta_acc *a, size_t p)
{
    if (p < a->nphases)
        return 0;
    if (p >= a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 8;
        while (nc <= p)
            nc *= 2;
        double *l = realloc(a->lmax, nc * sizeof *l);
        if (!l)
            return -1;
        a->lmax = l;
        double *c = realloc(a->crit, nc * IM_CPI_COUNT * sizeof *c);
        if (!c)
            return -1;
        a->crit = c;
        double *dm = realloc(a->dem, nc * IM_NRES * sizeof *dm);
        if (!dm)
            return -1;
        a->dem = dm;
        double *ed = realloc(a->edge, nc * IM_NRES * sizeof *ed);
        if (!ed)
            return -1;
        a->edge = ed;
        a->cap = nc;
    }
    for (size_t i = a->nphases; i <= p; i++) {
        a->lmax[i] = -1;
        memset(a->crit + i * IM_CPI_COUNT, 0, IM_CPI_COUNT * sizeof(double));
        memset(a->dem + i * IM_NRES, 0, IM_NRES * sizeof(double));
        memset(a->edge + i * IM_NRES, 0, IM_NRES * sizeof(double));
    }
    a->nphases = p + 1;
    return 0;
}

/* 0 not memory, 1 global-like, 2 shared, 3 constant (uarch class) */
static int mem_kind(const wc_inst *in, const wc_opinfo *oi,
                    const im_par *p, ua_mem_class *cl)
{
    if (!(oi->flags & (WC_OPF_LOAD | WC_OPF_STORE | WC_OPF_ATOMIC)))
        return 0;
    ua_mem_classify(&p->rows, in, cl);
    return cl->path == UA_PATH_GLOBAL   ? 1
           : cl->path == UA_PATH_SHARED ? 2
           : cl->path == UA_PATH_CONST  ? 3
                                        : 0;
}

/* Register-bank reads of a fixed-latency instruction (seed 000 5.3): the
 * registers it reads from each single-ported bank (a register read twice
 * is read once; operands found in the register file cache need no read).
 * The operand list in order (bank, RF-cache slot, reuse bit) is static
 * (memo_fill); with the RF cache in use (p->rfc and control bits) the
 * lookups and updates happen per instance here.  Counts in cnt[], returns
 * the banks read as a mask. */
static unsigned rf_reads_dyn(im_walker *w, const im_static *s,
                             double cnt[UA_MAX_BANKS])
{
    /* counted as doubles, as the walk reads them (small integers: exact,
     * the same values as counting in unsigned and converting); only the
     * banks in the returned mask are written, and read (the first read of
     * a bank writes 1: no clearing of all eight per call) */
    unsigned bm = 0;
    if (!s->rd_dup) {
        /* no register twice (the common case): no search of the registers
         * read so far.  mixbig kernel 1 (4.65 M calls): the search was ~15
         * of the ~64 host instructions per call */
        for (unsigned i = 0; i < s->nrd; i++) {
            const im_rd *e = &s->rd[i];
            if (e->sl < UA_RFC_SLOTS) {
                int hit = w->rfc[e->b][e->sl] == e->r;
                w->rfc[e->b][e->sl] = e->reuse ? e->r : WC_REG_NONE;
                if (hit)
                    continue;
            }
            unsigned bit = 1u << e->b;
            cnt[e->b] = bm & bit ? cnt[e->b] + 1 : 1;
            bm |= bit;
        }
        return bm;
    }
    wc_reg seen[WC_MAX_SRC * 4];
    unsigned ns = 0;
    for (unsigned i = 0; i < s->nrd; i++) {
        const im_rd *e = &s->rd[i];
        wc_reg rr = e->r;
        if (e->sl < UA_RFC_SLOTS) {
            int hit = w->rfc[e->b][e->sl] == rr;
            w->rfc[e->b][e->sl] = e->reuse ? rr : WC_REG_NONE;
            if (hit)
                continue;
        }
        unsigned k;
        for (k = 0; k < ns; k++)
            if (seen[k] == rr)
                break;
        if (k < ns)
            continue;
        if (ns < WC_MAX_SRC * 4)
            seen[ns++] = rr;
        unsigned bit = 1u << e->b;
        cnt[e->b] = bm & bit ? cnt[e->b] + 1 : 1;
        bm |= bit;
    }
    return bm;
}

/* Static reads of an instruction without RF-cache lookups. */
static unsigned rf_reads_static(const im_static *s, unsigned cnt[UA_MAX_BANKS])
{
    wc_reg seen[WC_MAX_SRC * 4];
    unsigned ns = 0, bm = 0;
    for (unsigned i = 0; i < s->nrd; i++) {
        const im_rd *e = &s->rd[i];
        unsigned k;
        for (k = 0; k < ns; k++)
            if (seen[k] == e->r)
                break;
        if (k < ns)
            continue;
        if (ns < WC_MAX_SRC * 4)
            seen[ns++] = e->r;
        cnt[e->b]++;
        bm |= 1u << e->b;
    }
    return bm;
}

/* Registers of the scoreboard loops (no control bits), flattened in loop
 * order; n counts all, at most cap are stored. */
static unsigned flat_regs(const wc_reg *ops, const uint8_t *nregs,
                          unsigned nops, unsigned maxops, wc_reg *out,
                          unsigned cap)
{
    unsigned n = 0;
    for (unsigned s = 0; s < nops && s < maxops; s++) {
        wc_reg r = ops[s];
        if (WC_REG_IS_ZERO(r) || r >= IM_NREG)
            continue;
        unsigned nr = nregs[s] ? nregs[s] : 1;
        for (unsigned j = 0; j < nr && r + j < IM_NREG; j++) {
            if (n < cap)
                out[n] = (wc_reg)(r + j);
            n++;
        }
    }
    return n;
}

/* Register-bank operand list (rf reads) in order; n counts all. */
static unsigned flat_rd(const im_par *p, const wc_inst *in, im_rd *out,
                        unsigned cap)
{
    unsigned n = 0, slot = 0;
    /* banks a power of two: a mask, as ua_bank's remainder */
    unsigned bmask = p->banks > 0 && !(p->banks & (p->banks - 1))
                         ? (unsigned)p->banks - 1
                         : 0;
    for (unsigned s = 0; s < in->nsrc && s < WC_MAX_SRC; s++) {
        wc_reg r = in->src[s];
        if (!WC_REG_IS_R(r))
            continue;
        unsigned sl = slot++;
        if (r == WC_RZ)
            continue;
        unsigned nr = in->src_nregs[s] ? in->src_nregs[s] : 1;
        for (unsigned j = 0; j < nr; j++) {
            wc_reg rr = (wc_reg)(r + j);
            if (n < cap) {
                out[n].r = rr;
                out[n].b = (uint8_t)(bmask ? rr & bmask
                                           : ua_bank(&p->core, rr));
                out[n].sl = (uint8_t)(sl < UA_RFC_SLOTS ? sl : UA_RFC_SLOTS);
                out[n].reuse = (uint8_t)((in->ctrl.reuse >> sl) & 1u);
            }
            n++;
        }
    }
    return n;
}

static unsigned char key_flags(unsigned char f)
{
    return (unsigned char)(f & ~(WC_IF_HAS_ADDR | WC_IF_PRED_OFF));
}

#define KEY_FO (offsetof(wc_inst, iflags) - IM_KEY_OFF)

/* The mask of the key words: every byte but the per-instance iflags bits
 * (bytes, then words: independent of byte order). */
static void key_mask_init(im_walker *w)
{
    unsigned char m[IM_KEY_W * 8 + 1];
    memset(m, 0xff, sizeof m);
    if (KEY_FO < IM_KEY_W * 8)
        m[KEY_FO] = key_flags(0xff);
    memcpy(w->kmask, m, sizeof w->kmask);
}

/* The static bytes of in as an entry keeps them. */
static void key_make(const im_walker *w, im_static *s, const wc_inst *in)
{
    const unsigned char *b = (const unsigned char *)in + IM_KEY_OFF;
    for (size_t i = 0; i < IM_KEY_W; i++) {
        uint64_t x;
        memcpy(&x, b + 8 * i, 8);
        s->key[i] = x & w->kmask[i];
    }
    for (size_t i = IM_KEY_W * 8; i < IM_KEY_LEN; i++)
        s->key_tail[i - IM_KEY_W * 8] =
            i == KEY_FO ? key_flags(b[i]) : b[i];
}

static int key_eq(const im_walker *w, const im_static *s, const wc_inst *in)
{
    const unsigned char *b = (const unsigned char *)in + IM_KEY_OFF;
    uint64_t diff = 0;
    for (size_t i = 0; i < IM_KEY_W; i++) {
        uint64_t x;
        memcpy(&x, b + 8 * i, 8);
        diff |= (x & w->kmask[i]) ^ s->key[i];
    }
    for (size_t i = IM_KEY_W * 8; i < IM_KEY_LEN; i++)
        if (s->key_tail[i - IM_KEY_W * 8] !=
            (i == KEY_FO ? key_flags(b[i]) : b[i]))
            return 0;
    return diff == 0;
}

static int mem_kind(const wc_inst *in, const wc_opinfo *oi,
                    const im_par *p, ua_mem_class *cl);

/* Work out s for in.  Returns 0, or 1 when the record has more registers
 * than an entry keeps (s then points at the walker's scratch arrays, which
 * must exist: big_*). */
static int memo_fill(im_walker *w, im_static *s, const wc_inst *in, int big)
{
    const im_par *p = w->p;
    const wc_opinfo *oi = wc_inst_info(in);
    s->pc = in->pc;
    key_make(w, s, in);
    s->iline = p->iline ? in->pc / p->iline : 0;
    s->nwait = 0;
    for (int i = 0; i < 6; i++)
        if ((in->ctrl.wait >> i) & 1)
            s->wait_sb[s->nwait++] = (uint8_t)i;
    int lc = wc_inst_latclass(in);
    s->lc = (uint8_t)lc;
    s->opflags = oi->flags;
    memset(&s->mcl, 0, sizeof s->mcl);
    s->mk = (uint8_t)mem_kind(in, oi, p, &s->mcl);
    s->fixed = !s->mk && !(oi->flags & WC_OPF_VARLAT);
    s->lat = lc == WC_LAT_sfu ? (double)ua_inst_lat(&p->core, in, lc)
                              : p->lat[lc];
    im_rd *rd = big ? w->big_rd : s->rd_in;
    wc_reg *sr = big ? w->big_sreg : s->sreg_in;
    wc_reg *dr = big ? w->big_dreg : s->dreg_in;
    unsigned cap = big ? WC_MAX_SRC * 256 : IM_SREG_IN;
    unsigned dcap = big ? WC_MAX_DST * 256 : IM_SREG_IN;
    s->nrd = s->mk ? 0 : flat_rd(p, in, rd, cap);
    s->nsreg = flat_regs(in->src, in->src_nregs, in->nsrc, WC_MAX_SRC, sr,
                         cap);
    s->ndreg = flat_regs(in->dst, in->dst_nregs, in->ndst, WC_MAX_DST, dr,
                         dcap);
    s->rd = rd;
    s->sreg = sr;
    s->dreg = dr;
    if (s->nrd > cap || s->nsreg > cap || s->ndreg > dcap)
        return 1;
    s->rfc_dyn = (uint8_t)(p->rfc && in->ctrl.valid && !s->mk);
    s->ctrl_valid = in->ctrl.valid != 0;
    s->wbar = in->ctrl.wbar >= 0 && in->ctrl.wbar < 6 ? in->ctrl.wbar : -1;
    s->rbar = in->ctrl.rbar >= 0 && in->ctrl.rbar < 6 ? in->ctrl.rbar : -1;
    s->depbar_wait = in->depbar_sb >= 0 && in->depbar_sb < 6 &&
                             in->depbar_le == 0
                         ? in->depbar_sb
                         : -1;
    s->stall = in->ctrl.stall ? (double)in->ctrl.stall : 1;
    s->constop = (in->iflags & WC_IF_CONSTOP) != 0;
    s->uniform = (in->iflags & WC_IF_UADDR) != 0;
    s->rd_dup = s->nrd > 32; /* long lists: searched, as any with a twin */
    for (unsigned i = 0; i < s->nrd; i++) {
        for (unsigned j = 0; j < i && !s->rd_dup; j++)
            s->rd_dup = rd[j].r == rd[i].r;
    }
    memset(s->reads, 0, sizeof s->reads);
    s->bmask = 0;
    if (!s->mk && !s->rfc_dyn)
        s->bmask = (uint8_t)rf_reads_static(s, s->reads);
    for (int b = 0; b < UA_MAX_BANKS; b++)
        s->dreads[b] = (double)s->reads[b];
    return 0;
}

/* The entry of in's PC, or of its static record number sid (a binary
 * trace's: same number, same static fields) (NULL: out of memory). */
static const im_static *memo_get_slow(im_walker *w, const wc_inst *in,
                                      uint32_t sid);

static inline const im_static *memo_get(im_walker *w, const wc_inst *in,
                                        uint32_t sid)
{
    if (sid != WC_SID_NONE) { /* the common hit inline */
        uint32_t i = sid & (IM_MEMO_N - 1);
        if (w->memo_full[i] && w->memo[i].sid == sid)
            return &w->memo[i];
    }
    return memo_get_slow(w, in, sid);
}

/* The scratch entry of a record with more registers than an entry keeps,
 * and its arrays: freed, all four. */
static void big_free(im_walker *w)
{
    free(w->big);
    free(w->big_rd);
    free(w->big_sreg);
    free(w->big_dreg);
    w->big = NULL;
    w->big_rd = NULL;
    w->big_sreg = w->big_dreg = NULL;
}

/* Note the kind of static record sid (memory path mk or none) for
 * key_word; out of memory: left unknown (keyed in full). */
static void sid_kind_set(im_walker *w, uint32_t sid, int mk)
{
    if (sid == WC_SID_NONE)
        return;
    if (sid >= w->sid_kind_n) {
        size_t n = w->sid_kind_n ? w->sid_kind_n : 256;
        while (n <= sid)
            n *= 2;
        uint8_t *k = realloc(w->sid_kind, n);
        if (!k)
            return;
        memset(k + w->sid_kind_n, 0, n - w->sid_kind_n);
        w->sid_kind = k;
        w->sid_kind_n = n;
    }
    w->sid_kind[sid] = mk ? 2 : 1;
}

/* memo_get's lookup by PC and its misses. */
static const im_static *memo_get_slow(im_walker *w, const wc_inst *in,
                                      uint32_t sid)
{
    size_t i = sid != WC_SID_NONE ? sid & (IM_MEMO_N - 1)
                                  : (in->pc >> 4) & (IM_MEMO_N - 1);
    im_static *s = &w->memo[i];
    if (sid == WC_SID_NONE && w->memo_full[i] && s->pc == in->pc &&
        key_eq(w, s, in))
        return s;
    s->sid = sid;
    w->memo_full[i] = memo_fill(w, s, in, 0) == 0;
    if (w->memo_full[i]) {
        sid_kind_set(w, sid, s->mk);
        return s;
    }
    if (!w->big) {
        w->big = malloc(sizeof *w->big);
        w->big_rd = malloc(WC_MAX_SRC * 256 * sizeof *w->big_rd);
        w->big_sreg = malloc(WC_MAX_SRC * 256 * sizeof *w->big_sreg);
        w->big_dreg = malloc(WC_MAX_DST * 256 * sizeof *w->big_dreg);
        if (!w->big || !w->big_rd || !w->big_sreg || !w->big_dreg) {
            big_free(w); /* all or none: a later call must not find
                            w->big alone */
            return NULL;
        }
    }
    memo_fill(w, w->big, in, 1);
    sid_kind_set(w, sid, w->big->mk);
    return w->big;
}

void im_walker_free(im_walker *w)
{
    if (!w)
        return;
    wc_pool_free(w->memo, IM_MEMO_N * sizeof *w->memo, 0);
    wc_pool_free(w->memo_full, IM_MEMO_N, 0);
    free(w->sid_kind);
    w->sid_kind = NULL;
    w->sid_kind_n = 0;
    if (w->wm)
        for (int i = 0; i <= IM_WM_SLOTS; i++) {
            im_wm *e = &w->wm[i];
            free(e->seq);
            free(e->aux);
            free(e->ev);
            free(e->ph);
            free(e->res);
            free(e->raw);
            free(e->seg);
            free(e->dec);
            free(e->wf);
            free(e->rt);
            free(e->ioff);
            free(e->iexp);
        }
    free(w->wm);
    free(w->wbuf);
    free(w->wcopy);
    free(w->wmoved);
    free(w->wdelta);
    free(w->wseg);
    free(w->wfc);
    w->wseg = NULL;
    w->wfc = NULL;
    free(w->wov);
    w->wmoved = NULL;
    w->wdelta = NULL;
    w->wov = NULL;
    w->wov_cap = w->nov = 0;
    free(w->pre);
    w->pre = NULL;
    free(w->waux);
    free(w->wkey);
    free(w->wat);
    w->wat = NULL;
    free(w->tscratch);
    w->tscratch = NULL;
    free(w->known);
    w->known = NULL;
    free(w->clean);
    w->clean = NULL;
    w->wm = NULL;
    w->wbuf = NULL;
    w->wcopy = NULL;
    w->waux = NULL;
    w->wkey = NULL;
    big_free(w);
    w->memo = NULL;
    w->memo_full = NULL;
}

/* Table 2 row of a memory instruction. */
#define CAUSE_NONE 255
#define CAUSE_CONST IM_CPI_COUNT /* cold constant line: mem_shared       */

/*
 * Edges of a resource-bound phase.  Warps sharing resource r cannot keep
 * it busy before they ask for it nor after their last use.  With the n
 * warps sharing it alike, r finishes no earlier than
 *
 *     lead + n x (this warp's demand),  lead = max_i (t_i - n x demand
 *                                                     before use i)
 *
 * over this warp's uses i of r at solo issue times t_i (phase time): the
 * prologue's latency and the cold code and constant lines that every warp
 * waits for at a kernel's start (seed 000 5.1.1, 5.2) are time r cannot
 * work.  The warp then ends its tail after its last use.
 * tt = t - t0 (phase time) and n (the warps sharing r: share_sm for the
 * SM's resources, r >= IM_R_SMMEM, else share_sub) come from the caller,
 * worked out once per instruction and warp, not per call (mixbig kernel 1:
 * ~18 M calls, ~6 host instructions each for n alone).
 */
static inline void dem_add(im_walker *w, int r, double v, double t,
                           double tt, double n)
{
    if (v <= 0)
        return;
    double c = tt - n * w->own[r];
    if (w->own[r] == 0) {
        w->used[w->nused++] = (uint16_t)r;
        w->lead[r] = c;
    } else if (c > w->lead[r]) {
        w->lead[r] = c;
    }
    w->own[r] += v;
    w->last[r] = t;
}

/* ---- the warp memo (im_int.h) ---------------------------------------- */

/* Grow *a (elements of size sz, capacity *cap) to hold n + 1; 0 or -1. */
static int grow(void **a, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc <= n)
        nc *= 2;
    void *b = realloc(*a, nc * sz);
    if (!b)
        return -1;
    *a = b;
    *cap = nc;
    return 0;
}
#define GROW(a, cap, n) grow((void **)&(a), &(cap), (n), sizeof *(a))

static inline uint64_t wm_mix(uint64_t h, uint64_t x)
{
    h = (h ^ x) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* What the walk reads of a memory outcome besides the byte and sector
 * sums (those add up the same in any warp: the collection pass sums
 * them, and a recalled warp adds its own): two words. */
static void acc_key(const im_macc *a, uint64_t k[2])
{
    k[0] = (uint64_t)a->lines | (uint64_t)a->sectors << 32;
    k[1] = (uint64_t)a->wavefronts | (uint64_t)(unsigned)a->level << 32 |
           (uint64_t)(a->l2_bytes > 0) << 40 |
           (uint64_t)(a->dram_bytes > 0) << 41;
}

/*
 * The warp memo's word for an instruction: its static record and its
 * active mask, the mask reduced to whether any lane is active for a
 * record without a memory path (im_static.mk 0).  The walk reads such an
 * instruction's mask only for that: a barrier ends a phase, and nothing
 * else, when some lane is active; its issue, register reads, unit,
 * results and counts (ua_counts_inst: by unit) are the record's whatever
 * the lanes.  So two warps whose words are equal walk alike, and a warp
 * whose divergent branches give other lanes on another warp's path (the
 * `mixed` kernel's data-dependent branch) is recalled, not walked.  A
 * memory instruction keeps its mask (its lanes' addresses, its outcome
 * keyed beside it; mk 3, constant loads, too: kept whole, as is a record
 * not met, sid_kind 0).  The recorded sequence (im_wm.seq) keeps the
 * masks themselves: templates decode the stream from them.
 */
static inline uint64_t key_word(const im_walker *w, uint32_t sid,
                                uint32_t mask)
{
    if (sid < w->sid_kind_n && w->sid_kind[sid] == 1)
        mask = mask != 0;
    return (uint64_t)sid << 32 | mask;
}

/* The slots (way 0 and 1) of a warp of n instructions and naux memory
 * outcomes whose memo hash is h: two of IM_WM_SLOTS, or of the first
 * IM_WM_SLOTS_LONG for a long warp (the memo's memory bounded: a slot
 * keeps the warp's instructions, outcomes, requests and stream).  Two
 * ways: one way, two shapes of warp that alternate in one slot evict
 * each other (bench_interval's tensor kernel under stop 36's keys: half
 * its warps walked). */
static inline size_t wm_slot(uint64_t h, size_t n, size_t naux, int way)
{
    uint64_t x = way ? h >> 32 : h;
    if (n > IM_WM_SHORT || naux > IM_WM_SHORT_MEM)
        return x & (IM_WM_SLOTS_LONG - 1);
    return x & (IM_WM_SLOTS - 1);
}

/* Slot i stored or recalled now: first of w->wm_recent. */
static void wm_used(im_walker *w, size_t i)
{
    unsigned k = 0;
    while (k < w->wm_nrecent && w->wm_recent[k] != i)
        k++;
    if (k == w->wm_nrecent && k < IM_WM_RECENT)
        w->wm_nrecent++;
    if (k == IM_WM_RECENT)
        k--;
    for (; k > 0; k--)
        w->wm_recent[k] = w->wm_recent[k - 1];
    w->wm_recent[0] = (uint16_t)i;
}

/* The recorded warp equal to the one buffered (NULL: none). */
static const im_wm *wm_find(const im_walker *w, uint64_t h, int sub,
                            size_t n, size_t naux)
{
    const im_wm *e = &w->wm[wm_slot(h, n, naux, 0)];
    if (!e->full || e->hash != h)
        e = &w->wm[wm_slot(h, n, naux, 1)];
    if (!e->full || e->hash != h || e->sub != sub || e->n != n ||
        e->naux != naux || e->share_sub != w->share_sub ||
        e->share_sm != w->share_sm)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)w->wbuf[i].sid << 32 | w->wbuf[i].mask;
        if (e->seq[i] != x &&
            key_word(w, (uint32_t)(e->seq[i] >> 32), (uint32_t)e->seq[i]) !=
                key_word(w, w->wbuf[i].sid, w->wbuf[i].mask))
            return NULL;
    }
    if (naux && memcmp(e->aux, w->wkey, 2 * naux * sizeof *e->aux) != 0)
        return NULL;
    return e;
}

/* Cache waits are rounded to 1 / WAIT_GRID of a cycle (a power of two:
 * exact in binary, far below a cycle). */
#define WAIT_GRID 1048576.0

/* Ask the SM's instruction cache for a code line, or the constant caches
 * (the SM's L1, then the sub-core's L0) for a constant line, at warp time
 * q->rel, as the walk does; q gets the wait. */
static void ask(im_walker *w, int sub, im_wm_ev *q)
{
    const im_par *p = w->p;
    double now = w->cta_t + q->rel;
    double r;
    if (!q->konst) {
        r = im_icode_fetch(w->ic, p, q->line, now);
    } else {
        double r1 = im_lines_fetch(w->cl1, q->line, now, p->c_l1_miss);
        r = im_lines_fetch(&w->cl0[sub], q->line, now,
                           (r1 > now ? r1 - now : 0) + p->c_l0_miss);
    }
    /* The wait on the grid of WAIT_GRID cycles: `r - now` of fractional
     * times carries the rounding of how r was reached (a line fetched at
     * another warp's time, plus latencies), so warps that wait the same
     * number of cycles got waits differing in the last bit
     * (278.99999999999994 against 279) and the warp memo, which compares
     * waits exactly, walked them again (on h100-pcie bench_interval's
     * memory trace: 5616 of 8192 warps recalled before, 8152 after). */
    double wt = r > now ? nearbyint((r - now) * WAIT_GRID) / WAIT_GRID : 0;
    q->waited = wt > 0;
    q->wait = wt;
}

/* Make recorded warp e's cache requests at this warp's times, in order,
 * as its walk would (they change the caches as the walk would), up to the
 * first whose wait differs.  1: every wait as recorded (the walk would be
 * e's); 0: the requests made, with the waits they got, are in w->pre (the
 * walk takes them from there); -1: out of memory (nothing asked). */
#if defined(__GNUC__)
__attribute__((always_inline)) /* its one call (speed only: a call here
                                  was 3% of a compute kernel's pass) */
#endif
static inline int wm_check(im_walker *w, const im_wm *e, int sub)
{
    w->npre = 0;
    if (e->nev && GROW(w->pre, w->pre_cap, e->nev - 1))
        return -1;
    if ((!w->known && !(w->known = calloc(IM_WM_KNOWN, sizeof *w->known))) ||
        (!w->clean && !(w->clean = calloc(IM_WM_CLEAN, sizeof *w->clean))))
        return -1;
    /*
     * ask's work in the loop, and w->pre written only when a wait differs
     * (the waits before it are the recorded ones): most recalled warps get
     * every wait as recorded, about 4 million requests on a compute kernel
     * of 18 million warp instructions.
     *
     * A warp in a loop asks for the same few lines again and again.  The
     * caches (im_mem.c) answer a line they hold with its ready time, which
     * never changes, and change nothing unless the request moves the
     * stream buffer, which depends on the line and the buffer alone
     * (test_cache_contract in test_warp_memo.c).  So a request that changed
     * nothing (the line count and the stream buffer as before) is
     * answered again, for the same line and stream buffer, without asking
     * (known[], this check only: kgen).  The waits are worked out from the
     * answer as before.
     */
    const im_par *p = w->p;
    const double t0 = w->cta_t;
    const uint64_t gen = ++w->kgen;
    im_icode *ic = w->ic, *cl1 = w->cl1, *cl0 = &w->cl0[sub];
    /*
     * A clean check (every wait 0, the caches' line counts and stream
     * buffer as before it) of the same recorded warp on this SM sub-core,
     * with nothing changed in these caches since (counts only grow, the
     * stream buffer moves only forward or with a miss), made every request
     * of a held line: asked again at this CTA's later start (every request
     * at the same time or later), each gets the same answer, no later than
     * its time (wait 0), and changes nothing.  Not asked again.
     */
    struct im_wm_clean cs = {e->gen, ic, cl0, ic ? ic->n : 0,
                             cl1 ? cl1->n : 0, cl0->n,
                             ic ? ic->sb_line : 0, ic ? ic->sb_end : 0, t0};
    struct im_wm_clean *cr =
        &w->clean[((e->gen * 0x9E3779B97F4A7C15ull) ^
                   ((uintptr_t)cl0 >> 4) * 0xD6E8FEB86659FD93ull) >>
                  40 & (IM_WM_CLEAN - 1)];
    if (cr->gen == cs.gen && cr->ic == cs.ic && cr->cl0 == cs.cl0 &&
        cr->n_ic == cs.n_ic && cr->n_cl1 == cs.n_cl1 &&
        cr->n_cl0 == cs.n_cl0 && cr->sb_line == cs.sb_line &&
        cr->sb_end == cs.sb_end && cr->cta_t <= t0)
        return 1;
    int waited = 0;
    struct im_wm_known *const known = w->known;
    for (size_t i = 0; i < e->nev; i++) {
        const im_wm_ev *r = &e->ev[i];
        double now = t0 + r->rel;
        double rd;
        uint64_t key = r->line << 1 | r->konst;
        struct im_wm_known *k =
            &known[(key * 0x9E3779B97F4A7C15ull >> 40) & (IM_WM_KNOWN - 1)];
        if (!r->konst) {
            if (k->gen == gen && k->key == key && k->sb_line == ic->sb_line &&
                k->sb_end == ic->sb_end) {
                rd = k->r;
            } else {
                size_t n0 = ic->n;
                uint64_t sl = ic->sb_line, se = ic->sb_end;
                rd = im_icode_fetch(ic, p, r->line, now);
                if (ic->n == n0 && ic->sb_line == sl && ic->sb_end == se)
                    *k = (struct im_wm_known){key, gen, sl, se, rd, 0};
            }
        } else {
            double r1;
            if (k->gen == gen && k->key == key) {
                r1 = k->r1;
                rd = k->r;
            } else {
                size_t n1 = cl1->n, n0 = cl0->n;
                r1 = im_lines_fetch(cl1, r->line, now, p->c_l1_miss);
                rd = im_lines_fetch(cl0, r->line, now,
                                    (r1 > now ? r1 - now : 0) +
                                        p->c_l0_miss);
                if (cl1->n == n1 && cl0->n == n0)
                    *k = (struct im_wm_known){key, gen, 0, 0, rd, r1};
            }
        }
        /* as ask: the wait on the grid.  The same bits as recorded is the
         * same wait and the same `waited`: every event keeps waited ==
         * (wait > 0) (ask and the copy below set both) */
        double wt = rd > now ? nearbyint((rd - now) * WAIT_GRID) / WAIT_GRID
                             : 0;
        if (memcmp(&wt, &r->wait, sizeof wt) != 0) {
            memcpy(w->pre, e->ev, i * sizeof *w->pre);
            w->pre[i] = *r;
            w->pre[i].waited = wt > 0;
            w->pre[i].wait = wt;
            w->npre = i + 1;
            return 0;
        }
        waited |= wt > 0;
    }
    if (!waited && (ic ? ic->n : 0) == cs.n_ic &&
        (cl1 ? cl1->n : 0) == cs.n_cl1 && cl0->n == cs.n_cl0 &&
        (ic ? ic->sb_line : 0) == cs.sb_line &&
        (ic ? ic->sb_end : 0) == cs.sb_end)
        *cr = cs;
    return 1;
}

/* A warp's totals into its CTA (walked or recalled alike). */
static void sum_merge(im_cta_acc *acc, const im_wm_sum *s)
{
    acc->l2_bytes += s->l2_bytes;
    acc->dram_bytes += s->dram_bytes;
    acc->l1_hits += s->l1_hits;
    acc->l2_hits += s->l2_hits;
    acc->dram_sectors += s->dram_sectors;
    acc->intervals += s->intervals;
    acc->insts += s->insts;
    if (s->first_l2 < acc->first_l2)
        acc->first_l2 = s->first_l2;
    if (s->first_dram < acc->first_dram)
        acc->first_dram = s->first_dram;
    if (s->post_l2 < acc->post_l2)
        acc->post_l2 = s->post_l2;
    if (s->post_dram < acc->post_dram)
        acc->post_dram = s->post_dram;
    if (s->atom_tail > acc->atom_tail)
        acc->atom_tail = s->atom_tail;
    if (s->total > acc->warp_total_max)
        acc->warp_total_max = s->total;
}

/* One phase's end into the CTA: the length and CPI components of its
 * longest warp (the demands and edge terms are added by edges_flush, or
 * wm_replay for a recalled warp). */
static void phase_merge(im_cta_acc *acc, size_t phase, double len,
                        const double *comp)
{
    if (len > acc->lmax[phase]) {
        acc->lmax[phase] = len;
        memcpy(acc->crit + phase * IM_CPI_COUNT, comp,
               IM_CPI_COUNT * sizeof *comp);
    }
}

/* Add recorded warp e to the CTA, as walking it would. */
static int wm_replay(const im_wm *e, const im_wm_sum *own, im_cta_acc *acc)
{
    const im_wm_res *r = e->res;
    for (size_t i = 0; i < e->nph; i++) {
        const im_wm_phase *ph = &e->ph[i];
        if (phase_at(acc, ph->idx) != 0)
            return -1;
        phase_merge(acc, ph->idx, ph->len, ph->comp);
        double *D = acc->dem + (size_t)ph->idx * IM_NRES;
        double *E = acc->edge + (size_t)ph->idx * IM_NRES;
        for (uint32_t k = 0; k < ph->nres; k++, r++) {
            D[r->r] += r->own;
            E[r->r] += r->edge;
        }
    }
    im_wm_sum s = e->s;
    s.l2_bytes = own->l2_bytes;
    s.dram_bytes = own->dram_bytes;
    s.l1_hits = own->l1_hits;
    s.l2_hits = own->l2_hits;
    s.dram_sectors = own->dram_sectors;
    sum_merge(acc, &s);
    ua_counts_add(&acc->cnt, &e->s.cnt);
    return 0; /* its cache requests were made by wm_check */
}

/* Recording: each returns 0, or stops the recording (w->wm_rec = 0). */
static im_wm *rec(im_walker *w)
{
    return &w->wm[IM_WM_SLOTS];
}

static void rec_ev(im_walker *w, const im_wm_ev *q)
{
    im_wm *e = rec(w);
    if (GROW(e->ev, e->cap_ev, e->nev)) {
        w->wm_rec = 0;
        return;
    }
    e->ev[e->nev++] = *q;
}

/* The walk's next cache request: made now, or taken from w->pre (made by
 * wm_check for this warp); recorded.  0, or -1 when w->pre is out of step
 * with the walk (cannot happen: the walk up to a request is a function of
 * the waits before it). */
static int request(im_walker *w, int sub, im_wm_ev *q)
{
    if (w->iev < w->npre) {
        const im_wm_ev *r = &w->pre[w->iev++];
        if (r->line != q->line || r->konst != q->konst ||
            memcmp(&r->rel, &q->rel, sizeof r->rel) != 0)
            return -1;
        *q = *r;
    } else {
        ask(w, sub, q);
    }
    if (w->wm_rec)
        rec_ev(w, q);
    return 0;
}

static void rec_phase(im_walker *w, size_t phase, double len,
                      const double *comp)
{
    im_wm *e = rec(w);
    if (GROW(e->ph, e->cap_ph, e->nph)) {
        w->wm_rec = 0;
        return;
    }
    im_wm_phase *ph = &e->ph[e->nph++];
    ph->idx = (uint32_t)phase;
    ph->len = len;
    memcpy(ph->comp, comp, sizeof ph->comp);
    ph->nres = 0;
}

static void rec_res(im_walker *w, int r, double own, double edge)
{
    im_wm *e = rec(w);
    if (GROW(e->res, e->cap_res, e->nres)) {
        w->wm_rec = 0;
        return;
    }
    e->res[e->nres].r = (uint32_t)r;
    e->res[e->nres].own = own;
    e->res[e->nres++].edge = edge;
    e->ph[e->nph - 1].nres++;
}

/* Start recording the buffered warp (hash h). */
static void rec_begin(im_walker *w, uint64_t h, int sub, size_t n,
                      size_t naux)
{
    im_wm *e = rec(w);
    e->full = 0;
    e->nev = e->nph = e->nres = 0;
    e->n = e->naux = 0;
    if (GROW(e->seq, e->cap_n, n ? n - 1 : 0) ||
        (naux && GROW(e->aux, e->cap_aux, 2 * naux - 1))) {
        w->wm_rec = 0;
        return;
    }
    for (size_t i = 0; i < n; i++)
        e->seq[i] = (uint64_t)w->wbuf[i].sid << 32 | w->wbuf[i].mask;
    if (naux)
        memcpy(e->aux, w->wkey, 2 * naux * sizeof *e->aux);
    /* the encoded stream (bounded by the reader's inline streams): a
     * template for later warps, worked out when one asks (tmpl_make) */
    e->tmpl = -1;
    e->nraw = 0;
    if (w->raw_p && w->raw_len <= IM_WM_MAXRAW &&
        !GROW(e->raw, e->cap_raw, w->raw_len)) {
        memcpy(e->raw, w->raw_p, w->raw_len);
        e->nraw = w->raw_len;
        e->tmpl = 0;
    }
    e->n = n;
    e->naux = naux;
    e->hash = h;
    e->sub = sub;
    e->share_sub = w->share_sub;
    e->share_sm = w->share_sm;
    w->wm_rec = 1;
}

/* *a (capacity *cap elements of size sz, n <= lo used) cut to lo
 * elements when it holds more (out of memory: kept).  Cut to lo, not n:
 * a buffer the next short warps regrow would be cut again and again. */
static void fit(void **a, size_t *cap, size_t n, size_t sz, size_t lo)
{
    if (!*a || *cap <= lo || n > lo)
        return;
    size_t c = lo;
    void *q = realloc(*a, c * sz);
    if (q) {
        *a = q;
        *cap = c;
    }
}
#define FIT(a, cap, n, lo) fit((void **)&(a), &(cap), (n), sizeof *(a), (lo))

/* A short warp's slot keeps buffers of about its size.  The recording's
 * buffers move from slot to slot (rec_store swaps them), so buffers grown
 * for a long warp would otherwise spread over the IM_WM_SLOTS short slots
 * and the memo's memory would follow the longest warps, not the slots'
 * bound. */
static void wm_fit(im_wm *e)
{
    FIT(e->seq, e->cap_n, e->n, IM_WM_SHORT);
    FIT(e->aux, e->cap_aux, 2 * e->naux, 2 * IM_WM_SHORT_MEM);
    FIT(e->ev, e->cap_ev, e->nev, 2 * IM_WM_SHORT);
    FIT(e->ph, e->cap_ph, e->nph, 64);
    FIT(e->res, e->cap_res, e->nres, 4 * IM_WM_SHORT);
    FIT(e->raw, e->cap_raw, e->nraw, 65536);
    FIT(e->seg, e->cap_seg, e->nseg, IM_WM_SHORT_MEM);
    FIT(e->dec, e->cap_dec, e->nseg, IM_WM_SHORT_MEM);
    FIT(e->wf, e->cap_wf, e->nseg, IM_WM_SHORT_MEM);
    FIT(e->rt, e->cap_rt, e->nseg, IM_WM_SHORT_MEM);
    FIT(e->ioff, e->cap_ioff, e->n + 1, IM_WM_SHORT + 1);
    FIT(e->iexp, e->cap_iexp, e->n, IM_WM_SHORT);
}

/* The recording complete: into its slot (the slot's buffers become the
 * next recording's). */
static void rec_store(im_walker *w, const im_wm_sum *s)
{
    im_wm *e = rec(w);
    e->s = *s;
    e->full = 1;
    e->gen = ++w->wm_gen;
    w->wm_stored++;
    /* the way holding this hash, else an empty one, else the older */
    size_t i = wm_slot(e->hash, e->n, e->naux, 0),
           j = wm_slot(e->hash, e->n, e->naux, 1);
    const im_wm *a = &w->wm[i], *b = &w->wm[j];
    if (!(a->full && a->hash == e->hash) &&
        ((b->full && b->hash == e->hash) || !b->full ||
         (a->full && b->gen < a->gen)))
        i = j;
    im_wm *slot = &w->wm[i];
    im_wm t = *slot;
    *slot = *e;
    *e = t;
    e->full = 0;
    if (slot->n <= IM_WM_SHORT && slot->naux <= IM_WM_SHORT_MEM)
        wm_fit(slot);
    wm_used(w, i);
}

/* End of a phase at `end` (phase time): the phase's demand and own demand
 * x (lead + tail) into the CTA's sums, and the warp's per-phase state
 * cleared. */
static void edges_flush(im_walker *w, im_cta_acc *acc, size_t phase,
                        double t0, double end)
{
    double *E = acc->edge + phase * IM_NRES;
    double *D = acc->dem + phase * IM_NRES;
    for (unsigned i = 0; i < w->nused; i++) {
        int r = w->used[i];
        double tail = end - (w->last[r] - t0) - 1;
        double edge = w->own[r] * (w->lead[r] + (tail > 0 ? tail : 0));
        D[r] += w->own[r];
        E[r] += edge;
        if (w->wm_rec)
            rec_res(w, r, w->own[r], edge);
        w->own[r] = 0;
    }
    w->nused = 0;
}

/* The instruction to walk: a buffered static record, or a record with
 * addresses copied (the memo's collection pass), with this instance's
 * mask where the memory path reads it. */
static const wc_inst *inst_of(im_walker *w, const im_static *ms,
                              const wc_inst *in, uint32_t mask)
{
    if (ms->mk && in->mask != mask) {
        memcpy(&w->minst, in, offsetof(wc_inst, addr));
        w->minst.mask = mask;
        return &w->minst;
    }
    return in;
}

/* 1 when in is one of the walker's decoding buffers (w->in). */
static inline int in_bufs(const im_walker *w, const wc_inst *in)
{
    return (uintptr_t)in - (uintptr_t)w->in < sizeof w->in;
}

/* The outcomes w->waux[0 .. na): their sums in instruction order (the
 * walk's: shared ones add zeros) into *sum, their keys into w->wkey. */
static void outcomes_sum(im_walker *w, size_t na, im_wm_sum *sum)
{
    for (size_t j = 0; j < na; j++) {
        const im_macc *a = &w->waux[j];
        sum->l2_bytes += a->l2_bytes;
        sum->dram_bytes += a->dram_bytes;
        sum->l1_hits += a->l1_hit_sectors;
        sum->l2_hits += a->l2_hit_sectors;
        sum->dram_sectors += a->dram_sectors;
        acc_key(a, &w->wkey[2 * j]);
    }
}

/* The memo's hash of the buffered warp w->wbuf[0 .. nb) on sub-core sub
 * with outcomes keyed in w->wkey (of the instructions w->wat[0 .. na)):
 * instructions and outcomes in order. */
static uint64_t wm_hash(const im_walker *w, int sub, size_t nb, size_t na)
{
    uint64_t h = wm_mix(wm_mix(0x2545F4914F6CDD1Dull, (uint64_t)sub),
                        (uint64_t)w->share_sub << 32 | w->share_sm);
    /* by outcome: the instructions up to each memory one, then its key
     * (the same order as testing each instruction for an outcome, without
     * that test: 6 host instructions a warp instruction) */
    size_t i = 0;
    for (size_t j = 0; j < na; j++) {
        for (size_t e = w->wat[j]; i <= e; i++)
            h = wm_mix(h, key_word(w, w->wbuf[i].sid, w->wbuf[i].mask));
        h = wm_mix(wm_mix(h, w->wkey[2 * j]), w->wkey[2 * j + 1]);
    }
    for (; i < nb; i++)
        h = wm_mix(h, key_word(w, w->wbuf[i].sid, w->wbuf[i].mask));
    return h;
}


/* The outcome of memory instruction in (ms->mk 1: global or local,
 * through the caches, atomics counted; 2: shared, its wavefronts) into
 * *a, as the collection pass asks for it (collect, fast_collect). */
static inline void mem_outcome(im_walker *w, im_cta_acc *acc,
                               const im_static *ms, const wc_inst *in,
                               im_macc *a)
{
    const im_par *p = w->p;
    if (ms->mk == 1) {
        im_mem_global(p, w->l1, w->l2, in, &ms->mcl, a);
        if (ms->mcl.atomic && in->mask)
            atom_count(p, acc, in);
    } else {
        memset(a, 0, sizeof *a);
        a->wavefronts = im_mem_wavefronts(p, in);
    }
}

/* The memo's collection pass: pull the warp's instructions into w->wbuf
 * (copies of records with addresses into w->wcopy), ask the caches for the
 * memory instructions in order (outcomes into w->waux), and hash it all.
 * Stops at the end of the warp (*ended), or where the warp cannot be
 * recorded (no static record numbers, too long, out of memory): the
 * instructions not taken are left in *pend / *pend_n.  Returns 0 or an
 * error code.  The outcomes are summed and keyed once the pass is done
 * (reading them right after they are written stalled the host on loads
 * wider than the stores, store-to-load forwarding). */
static int collect(im_walker *w, int sub, im_next_fn next, void *ctx,
                   im_cta_acc *acc, size_t *nbuf, size_t *naux,
                   uint64_t *hash, int *ended, const wc_iref **pend,
                   size_t *pend_n, im_wm_sum *sum, wc_diag *d)
{
    const wc_iref *batch = NULL;
    size_t bi = 0, bcount = 0, nb = 0, na = 0, nc = 0;
    *ended = 0;
    for (;;) {
        if (bi == bcount) {
            int rc = next(ctx, &batch, &bcount, d);
            if (rc < 0)
                return -rc;
            if (rc == 0) {
                *ended = 1;
                bcount = bi = 0;
                break;
            }
            bi = 0;
        }
        /* a run of static records that are not memory instructions (most
         * of a warp), taken as the general path below takes them but with
         * its bounds tested once for the run: room in w->wbuf already
         * there (no growth), below IM_WM_MAXI.  Stops at the first record
         * the general path must see (it asks the memo again: a hit) */
        size_t lim = bcount - bi;
        if (lim > IM_WM_MAXI - nb)
            lim = IM_WM_MAXI - nb;
        if (lim <= w->wbuf_cap - nb) {
            const wc_iref *e = batch + bi + lim, *q = batch + bi;
            for (; q < e; q++) {
                if (q->sid == WC_SID_NONE || in_bufs(w, q->in))
                    break;
                const im_static *ms = memo_get(w, q->in, q->sid);
                if (!ms)
                    return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                       "out of memory");
                if (ms->mk)
                    break;
                w->wbuf[nb++] = *q;
            }
            bi = (size_t)(q - batch);
            if (bi == bcount)
                continue;
        }
        const wc_iref *ref = &batch[bi];
        if (ref->sid == WC_SID_NONE || nb == IM_WM_MAXI ||
            GROW(w->wbuf, w->wbuf_cap, nb))
            break;
        const wc_inst *in = ref->in;
        const im_static *ms = memo_get(w, in, ref->sid);
        if (!ms)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        int unstable = in_bufs(w, in); /* a reader's buffer */
        if (unstable && !w->wcopy &&
            !(w->wcopy = malloc(IM_WM_MAXU * sizeof *w->wcopy)))
            break; /* all at once: the buffer points into it */
        if (unstable && nc == IM_WM_MAXU)
            break;
        if (ms->mk && (GROW(w->waux, w->waux_cap, na) ||
                       GROW(w->wat, w->wat_cap, na) ||
                       GROW(w->wkey, w->wkey_cap, 2 * na + 1)))
            break;
        wc_iref *b = &w->wbuf[nb++];
        *b = *ref;
        if (ms->mk == 1 || ms->mk == 2) {
            const wc_inst *mi = inst_of(w, ms, in, ref->mask);
            w->wat[na] = (uint32_t)(nb - 1);
            mem_outcome(w, acc, ms, mi, &w->waux[na]);
            na++;
        }
        if (unstable) {
            /* the static fields are all the walk reads of it now */
            memcpy(&w->wcopy[nc], in, offsetof(wc_inst, addr));
            b->in = &w->wcopy[nc++];
        }
        bi++;
    }
    outcomes_sum(w, na, sum);
    *nbuf = nb;
    *naux = na;
    *hash = wm_hash(w, sub, nb, na);
    *pend = batch ? batch + bi : NULL;
    *pend_n = bcount - bi;
    return 0;
}

/* ---- templates: a recorded warp recognised by its encoded stream ------- */

/*
 * A binary trace's warp stream decodes to the same instructions wherever
 * its bytes are the same (wc_trace.h, wc_cta_raw), so a warp whose stream
 * has a recorded warp's bytes everywhere but in its instructions with lane
 * addresses, and whose instructions with addresses decode to the recorded
 * records and masks, has the recorded warp's instructions: its collection
 * pass needs those few decoded, not the whole stream.  Nothing of the
 * file is trusted: a stream that differs anywhere is collected as before.
 *
 *   recorded stream   [ same bytes ][addr inst][ same bytes ][addr inst]..
 *   this warp         [ same bytes ][addr inst'][ same bytes ][addr ins..
 *                                    decoded, its own addresses
 */

/* w->wmoved[j] (tmpl_match): the warp's instruction j of template e (j
 * below e->nseg) is the template's moved by w->wdelta[j] (TM_MOVED), not
 * decoded yet (TM_LAZY), every lane moved (TM_ALL: a record of every
 * lane's address) */
enum { TM_MOVED = 1, TM_LAZY = 2, TM_ALL = 4 };
/* or a shared-memory access read by its bytes (wfc_take), not decoded yet
 * (TM_RAW: from w->wseg[j].pos), its wavefronts known (TM_WFK:
 * w->wseg[j].wf) or to be put in the wfc slot w->wseg[j].slot once
 * counted (TM_FILL) */
enum { TM_RAW = 8, TM_WFK = 16, TM_FILL = 32 };

struct im_wseg {
    wc_rawpos pos;
    uint64_t gen;
    uint32_t wf, slot;
};

#define IM_WFC_N 4096u /* wfc entries (a power of two) */
#define IM_WFC_B (3u * (WC_WARP_SIZE - 1)) /* lane bytes (wc_cta_raw_lanes) */

/* A shared-memory access by its bytes (w->wfc): the same record, mask,
 * tag, base and lane offsets are the same instruction, so the same
 * wavefronts; wf UINT32_MAX until counted. */
struct im_wfc {
    uint64_t base, gen;
    uint32_t sid, mask, wf;
    uint8_t tag, n;
    unsigned char b[IM_WFC_B];
};

/* Below WF_LIM every byte of a shared-memory access counts as itself
 * (tmpl_wavefronts; im_wm_wf). */
#define WF_LIM ((uint64_t)1 << 62)

/* A lane's bytes in a shared-memory access (ua_shmem_wavefronts' width). */
static uint64_t wf_width(const wc_inst *in)
{
    return in->width ? in->width : 4;
}

/* *f for the shared-memory access in: its wavefronts and its active
 * lanes' span. */
static void wf_make(const im_par *p, const wc_inst *in, im_wm_wf *f)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t m = in->mask; m; m &= m - 1) {
        uint64_t a = in->addr[__builtin_ctz(m)];
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    f->n = im_mem_wavefronts(p, in);
    f->lo = in->mask ? lo : 0;
    f->span = in->mask ? hi - lo : 0;
    f->ok = in->mask && hi < WF_LIM && wf_width(in) <= WF_LIM - hi;
}

/* Work out where e's instructions with addresses sit in e->raw by
 * decoding it with c's kernel (the kernel e was read from): e->tmpl 1, or
 * -1 where e cannot serve (its stream does not decode to its
 * instructions; an unknown opcode, which the reader counts as it reads;
 * more instructions with addresses than w->wcopy holds). */
static void tmpl_make(im_walker *w, im_wm *e, const wc_cta *c)
{
    e->tmpl = -1;
    e->nseg = 0;
    if (!w->tscratch && !(w->tscratch = malloc(sizeof *w->tscratch)))
        return;
    wc_rawpos s;
    wc_rawpos_init(&s);
    if (GROW(e->ioff, e->cap_ioff, e->n) ||
        (e->n && GROW(e->iexp, e->cap_iexp, e->n - 1)))
        return;
    for (size_t i = 0; i < e->n; i++) {
        size_t beg = s.at;
        uint32_t sid;
        unsigned fl;
        if (beg > UINT32_MAX ||
            wc_cta_raw_inst(c, e->raw, e->nraw, &s, w->tscratch, &sid,
                            &fl) != 0 ||
            ((uint64_t)sid << 32 | w->tscratch->mask) != e->seq[i] ||
            (fl & WC_RAW_UNKNOWN))
            return;
        e->ioff[i] = (uint32_t)beg;
        e->iexp[i] = (fl & WC_RAW_MASKED) != 0;
        if (fl & WC_RAW_ADDR) {
            if (e->nseg == IM_WM_MAXU || GROW(e->seg, e->cap_seg, e->nseg) ||
                GROW(e->dec, e->cap_dec, e->nseg) ||
                GROW(e->wf, e->cap_wf, e->nseg) ||
                GROW(e->rt, e->cap_rt, e->nseg))
                return;
            /* a shared-memory access's wavefronts now: a repeat moved by
             * whole rows has as many, and is then not decoded
             * (tmpl_match) */
            const im_static *ms = memo_get(w, w->tscratch, sid);
            if (ms && ms->mk == 2)
                wf_make(w->p, w->tscratch, &e->wf[e->nseg]);
            else
                e->wf[e->nseg] = (im_wm_wf){0, 0, UINT32_MAX, 0};
            e->dec[e->nseg] = *w->tscratch;
            /* its bytes ready for tmpl_match; a strided full warp's
             * record decodes from two varints, at less than the cost of
             * its comparison and copy, but a shared-memory access is not
             * copied (tmpl_inst) */
            wc_rawtmpl_prep(c, e->raw + beg, s.at - beg, w->tscratch, sid,
                            1, &e->rt[e->nseg]);
            e->seg[e->nseg++] =
                (im_wm_seg){(uint32_t)i, (uint32_t)beg, (uint32_t)s.at};
        }
    }
    if (s.at > UINT32_MAX)
        return;
    e->ioff[e->n] = (uint32_t)s.at;
    e->raw_used = s.at;
    e->tmpl = 1;
}

/* The warp's instruction j of template e, decoded into w->wcopy[j] if it
 * was not (TM_LAZY). */
static const wc_inst *tmpl_inst(im_walker *w, const im_wm *e, size_t j)
{
    if (w->wmoved[j] & TM_RAW) {
        /* its bytes read it once (wc_cta_raw_lanes): they decode */
        wc_rawpos q = w->wseg[j].pos;
        uint32_t sid;
        unsigned fl;
        if (wc_cta_raw_inst(w->raw_cta, w->raw_p, w->raw_len, &q,
                            &w->wcopy[j], &sid, &fl) != 0)
            memset(&w->wcopy[j], 0, sizeof w->wcopy[j]); /* cannot happen */
        w->wmoved[j] &= (uint8_t)~TM_RAW;
    }
    if (w->wmoved[j] & TM_LAZY) {
        wc_inst_moved(&w->wcopy[j], &e->dec[j], w->wdelta[j],
                      (w->wmoved[j] & TM_ALL) != 0);
        w->wmoved[j] &= (uint8_t)~TM_LAZY;
    }
    return &w->wcopy[j];
}

/* The length of the longest common prefix of a[0 .. n) and b[0 .. n). */
static size_t same_prefix(const unsigned char *a, const unsigned char *b,
                          size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
#define SP_EQ(k)                                                               \
    _mm_cmpeq_epi8(                                                            \
        _mm_loadu_si128((const __m128i *)(const void *)(a + i + (k))),          \
        _mm_loadu_si128((const __m128i *)(const void *)(b + i + (k))))
    if (n >= 16) {
        unsigned ne = (unsigned)_mm_movemask_epi8(SP_EQ(0)) ^ 0xffffu;
        if (ne)
            return (size_t)__builtin_ctz(ne);
        /* the first 16 bytes agree: a long run is likely (a warp that
         * repeats its template to its end), so 64 bytes a step until a
         * difference, then 16 a step to find it */
        for (i = 16; i + 64 <= n; i += 64) {
            __m128i e = _mm_and_si128(_mm_and_si128(SP_EQ(0), SP_EQ(16)),
                                      _mm_and_si128(SP_EQ(32), SP_EQ(48)));
            if (_mm_movemask_epi8(e) != 0xffff)
                break;
        }
    }
    for (; i + 16 <= n; i += 16) { /* 16 bytes a step */
        unsigned ne = (unsigned)_mm_movemask_epi8(SP_EQ(0)) ^ 0xffffu;
        if (ne)
            return i + (size_t)__builtin_ctz(ne);
    }
#undef SP_EQ
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return i + (size_t)__builtin_ctzll(x ^ y) / 8;
#else
            break;
#endif
        }
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* Instruction idx of the warp has mask, not its template's (tmpl_fill);
 * 0, or -1 out of memory. */
static int tmpl_own_mask(im_walker *w, size_t idx, uint32_t mask)
{
    if (GROW(w->wov, w->wov_cap, w->nov))
        return -1;
    w->wov[w->nov].idx = (uint32_t)idx;
    w->wov[w->nov++].mask = mask;
    return 0;
}

/*
 * The instructions without addresses from e's instruction i0 (at e->raw +
 * *te) up to i1 (at tend), against this stream's from *at (state *s): 1
 * when they are e's records with masks the memo takes alike (key_word:
 * one active lane as good as another where the walk does not read the
 * lanes), *at, *te and *s past them; else 0.  Masks that differ are noted
 * for tmpl_fill (tmpl_own_mask).
 *
 * The bytes are compared as far as they agree, and only an instruction
 * whose bytes differ is read (a data-dependent branch: other lanes
 * active).  From the same state, the same bytes decode alike; where the
 * masks differ (an instruction's bytes gave other lanes), the same bytes
 * give e's records, each with this stream's mask where its bytes give
 * none (e->iexp), until one gives a mask.
 */
static int tmpl_gap(im_walker *w, const im_wm *e, const wc_cta *c,
                    const unsigned char *p, size_t len, size_t *at,
                    size_t *te, wc_rawpos *s, size_t i0, size_t i1,
                    size_t tend)
{
    size_t pa = *at, ta = *te, i = i0;
    /* e's mask before instruction i */
    uint32_t tmask = i0 ? (uint32_t)e->seq[i0 - 1] : s->pmask;
    if (!i0 && s->pmask != UINT32_MAX)
        return 0; /* a stream starts from one state */
    while (i < i1) {
        size_t rest = tend - ta, room = len - pa;
        size_t lim = ta + same_prefix(p + pa, e->raw + ta,
                                      room < rest ? room : rest);
        if (s->pmask == tmask) {
            /* the instructions wholly in the same bytes, e's: up to the
             * gap's end, else up to the one holding the difference (the
             * first whose end is past lim, by bisection) */
            size_t k = i1;
            if (lim < tend) {
                size_t lo = i, hi = i1; /* ioff[lo] <= lim < ioff[hi + 1] */
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (e->ioff[mid + 1] <= lim)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                k = lo;
            }
            if (k > i) {
                pa += e->ioff[k] - ta;
                ta = e->ioff[k];
                s->pid = (uint32_t)(e->seq[k - 1] >> 32);
                s->pmask = tmask = (uint32_t)e->seq[k - 1];
                i = k;
            }
        } else {
            while (i < i1 && e->ioff[i + 1] <= lim) {
                uint32_t sid = (uint32_t)(e->seq[i] >> 32);
                uint32_t em = (uint32_t)e->seq[i];
                if (e->iexp[i]) {
                    s->pmask = em; /* the same mask: the same state again */
                } else if (s->pmask != em) {
                    if (key_word(w, sid, s->pmask) != key_word(w, sid, em) ||
                        tmpl_own_mask(w, i, s->pmask))
                        return 0;
                }
                s->pid = sid;
                tmask = em;
                pa += e->ioff[i + 1] - ta;
                ta = e->ioff[i + 1];
                i++;
                if (s->pmask == tmask)
                    break;
            }
            if (s->pmask == tmask)
                continue;
        }
        if (i >= i1)
            break;
        /* instruction i's bytes differ: read it */
        uint32_t sid = (uint32_t)(e->seq[i] >> 32), em = (uint32_t)e->seq[i];
        uint32_t wsid, wmask;
        s->at = pa;
        if (wc_cta_raw_plain(c, p, len, s, &wsid, &wmask) != 0 ||
            wsid != sid ||
            key_word(w, sid, wmask) != key_word(w, sid, em) ||
            (wmask != em && tmpl_own_mask(w, i, wmask)))
            return 0;
        tmask = em;
        pa = s->at;
        ta = e->ioff[i + 1];
        i++;
    }
    if (ta != tend)
        return 0;
    s->at = pa;
    *at = pa;
    *te = ta;
    return 1;
}

/* Speed only: template e's instruction j in this warp, a shared-memory
 * access at s whose bytes are not e's moved, taken by its bytes
 * (wc_cta_raw_lanes) without decoding its lanes: 1 with s moved past it,
 * w->wmoved[j] TM_RAW and its wavefronts from w->wfc when an instruction
 * with the same bytes and base was counted (TM_WFK), else its slot there
 * to fill (TM_FILL); 0 (s unchanged) where the ordinary decode is to
 * decide (strided lanes, long offsets, another record or mask: then no
 * match). */
static int wfc_take(im_walker *w, const im_wm *e, const wc_cta *c,
                    const unsigned char *p, size_t len, wc_rawpos *s,
                    size_t j)
{
    if (!w->wfc) {
        if (!(w->wfc = calloc(IM_WFC_N, sizeof *w->wfc)))
            return 0;
        for (unsigned i = 0; i < IM_WFC_N; i++)
            w->wfc[i].wf = UINT32_MAX; /* none counted */
    }
    if (!w->wseg && !(w->wseg = malloc(IM_WM_MAXU * sizeof *w->wseg)))
        return 0;
    wc_rawpos q = *s;
    wc_rawlanes r;
    if (wc_cta_raw_lanes(c, p, len, &q, &r) != 0 || r.nlanes > IM_WFC_B ||
        ((uint64_t)r.sid << 32 | r.mask) != e->seq[e->seg[j].idx] ||
        (r.flags & ~WC_RAW_MASKED) != WC_RAW_ADDR)
        return 0;
    uint64_t h = wm_mix(wm_mix(wm_mix(0x9E3779B97F4A7C15ull, r.base),
                               (uint64_t)r.sid << 32 | r.mask),
                        (uint64_t)r.tag << 8 | r.nlanes);
    /* the first 16 and the last 8 lane bytes (the comparison below is
     * of them all) */
    if (r.nlanes >= 16) {
        uint64_t x[3];
        memcpy(x, r.lanes, 16);
        memcpy(&x[2], r.lanes + r.nlanes - 8, 8);
        h = wm_mix(wm_mix(wm_mix(h, x[0]), x[1]), x[2]);
    } else {
        for (uint32_t i = 0; i < r.nlanes; i++)
            h = wm_mix(h, r.lanes[i]);
    }
    uint32_t slot = (uint32_t)(h >> 40) & (IM_WFC_N - 1);
    struct im_wfc *f = &w->wfc[slot];
    struct im_wseg *g = &w->wseg[j];
    g->pos = *s;
    if (f->wf != UINT32_MAX && f->n == r.nlanes && f->base == r.base &&
        f->sid == r.sid && f->mask == r.mask && f->tag == r.tag &&
        memcmp(f->b, r.lanes, r.nlanes) == 0) {
        g->wf = f->wf;
        w->wmoved[j] = TM_RAW | TM_WFK;
    } else {
        f->base = r.base;
        f->sid = r.sid;
        f->mask = r.mask;
        f->tag = r.tag;
        f->n = (uint8_t)r.nlanes;
        memcpy(f->b, r.lanes, r.nlanes);
        f->wf = UINT32_MAX;
        f->gen = ++w->wfc_gen;
        g->slot = slot;
        g->gen = f->gen;
        w->wmoved[j] = TM_RAW | TM_FILL;
    }
    *s = q;
    return 1;
}

/* 1 when the stream p[0 .. len) (of e->n instructions, from c's kernel)
 * is e's instructions: e's bytes outside its instructions with addresses,
 * and those decoding (into w->wcopy[0 .. e->nseg), addresses their own)
 * to e's records and masks.  0 otherwise. */
static int tmpl_match(im_walker *w, const im_wm *e, const wc_cta *c,
                      const unsigned char *p, size_t len)
{
    size_t at = 0, te = 0, ti = 0; /* ti: e's instruction at te */
    wc_rawpos s; /* this stream's state (its record and mask before at) */
    wc_rawpos_init(&s);
    w->nov = 0;
    for (size_t j = 0; j < e->nseg;) {
        const im_wm_seg *g = &e->seg[j];
        if (!tmpl_gap(w, e, c, p, len, &at, &te, &s, ti, g->idx, g->beg))
            return 0;
        s.at = at;
        wc_inst *in = &w->wcopy[j];
        const wc_inst *tin = &e->dec[j];
        uint32_t sid;
        unsigned fl;
        uint64_t dd = 0;
        int all;
        /* the template's bytes but for the base: its lanes moved, not
         * decoded until asked for (tmpl_inst: tmpl_wavefronts may not need
         * them); a strided full warp's record decodes from two varints, at
         * less than the cost of its comparison and copy, but for a
         * shared-memory access, which may need neither */
        if ((e->wf[j].n != UINT32_MAX || !e->rt[j].strided) &&
            wc_cta_raw_moved(p, len, &s, e->raw + g->beg, &e->rt[j], &dd,
                             &all)) {
            w->wmoved[j] = TM_MOVED | TM_LAZY | (all ? TM_ALL : 0);
        } else if (e->wf[j].n != UINT32_MAX &&
                   wfc_take(w, e, c, p, len, &s, j)) {
            dd = 0; /* not moved: its own bytes */
        } else {
            if (wc_cta_raw_inst(c, p, len, &s, in, &sid, &fl) != 0 ||
                ((uint64_t)sid << 32 | in->mask) != e->seq[g->idx] ||
                (fl & ~WC_RAW_MASKED) != WC_RAW_ADDR)
                return 0;
            /* both strided full warps of one stride: in is e's moved */
            int moved = in->lanes_affine && tin->lanes_affine &&
                        in->addr[1] - in->addr[0] ==
                            tin->addr[1] - tin->addr[0];
            w->wmoved[j] = moved ? TM_MOVED : 0;
            dd = in->addr[0] - tin->addr[0];
        }
        w->wdelta[j] = dd;
        at = s.at;
        te = g->end;
        ti = g->idx + 1;
        j++;
        if (!(w->wmoved[j - 1] & TM_MOVED))
            continue;
        /* Moved by dd: so is every later instruction whose bytes, and
         * those before it, repeat e's (the later bases are coded as
         * differences from the one before: a warp that is e moved repeats
         * e's bytes after its first base, as a CTA's warp repeats another
         * CTA's); those are taken without a look at their bytes, nothing
         * decoded. */
        size_t m = same_prefix(p + at, e->raw + te,
                               len - at < e->raw_used - te ? len - at
                                                           : e->raw_used - te);
        size_t k = j;
        while (k < e->nseg && e->seg[k].end <= te + m && e->rt[k].ok) {
            w->wmoved[k] = TM_MOVED | TM_LAZY | (e->rt[k].all ? TM_ALL : 0);
            w->wdelta[k] = dd;
            k++;
        }
        if (k > j) {
            const im_wm_seg *h = &e->seg[k - 1];
            at += h->end - te;
            te = h->end;
            ti = h->idx + 1;
            s.pid = (uint32_t)(e->seq[h->idx] >> 32); /* e's: the same */
            s.pmask = (uint32_t)e->seq[h->idx];
            s.pbase = e->rt[k - 1].tbase + dd; /* its base, moved */
            j = k;
        }
    }
    return tmpl_gap(w, e, c, p, len, &at, &te, &s, ti, e->n, e->raw_used);
}

/* w->wbuf[0 .. e->n) as collect leaves it for template e's instructions
 * (those with addresses in w->wcopy, as tmpl_match decoded them). */
static void tmpl_fill(im_walker *w, const im_wm *e, const wc_cta *c)
{
    const wc_inst *tab = wc_cta_static(c, 0); /* sids checked: in table */
    for (size_t k = 0; k < e->nseg; k++) {
        if (w->wmoved[k] & TM_RAW) {
            /* a shared-memory access read by its bytes (wfc_take): the
             * walk of buffered instructions reads its record's fields and
             * mask, and takes its wavefronts from the collection, not
             * from its lanes, which stay undecoded (tmpl_inst decodes
             * them if asked) */
            wc_inst *in = &w->wcopy[k];
            uint64_t q = e->seq[e->seg[k].idx];
            memcpy(in, tab + (q >> 32), offsetof(wc_inst, addr));
            in->mask = (uint32_t)q;
            in->line = 0;
#ifdef WC_CHECKS
            /* lanes nothing may read: a reader would move the results,
             * which the memo-off comparisons then catch */
            memset(in->addr, 0xa5, sizeof in->addr);
#endif
            continue;
        }
        tmpl_inst(w, e, k);
    }
    size_t j = 0;
    for (size_t i = 0; i < e->n; i++) {
        wc_iref *b = &w->wbuf[i];
        b->sid = (uint32_t)(e->seq[i] >> 32);
        b->mask = (uint32_t)e->seq[i];
        if (j < e->nseg && e->seg[j].idx == i)
            b->in = &w->wcopy[j++];
        else
            b->in = tab + b->sid;
    }
    for (size_t k = 0; k < w->nov; k++) /* this warp's own masks */
        w->wbuf[w->wov[k].idx].mask = w->wov[k].mask;
}

/* The template of this warp: a recorded warp whose stream this warp's
 * repeats (tmpl_match), one on the same sub-core with the same sharing
 * first (then the hash collect would make is its hash when the outcomes
 * agree); NULL when none. */
static im_wm *tmpl_find(im_walker *w, int sub, const unsigned char *p,
                        size_t len, uint64_t n)
{
    const wc_cta *c = w->raw_cta;
    /* among the slots last stored or recalled (speed only: any template
     * gives the same collection) */
    for (int pass = 0; pass < 2; pass++)
        for (unsigned k = 0; k < w->wm_nrecent; k++) {
            im_wm *e = &w->wm[w->wm_recent[k]];
            if (!e->full || e->n != n || e->tmpl < 0)
                continue;
            int same = e->sub == sub && e->share_sub == w->share_sub &&
                       e->share_sm == w->share_sm;
            if (same != (pass == 0))
                continue;
            if (e->tmpl == 0)
                tmpl_make(w, e, c);
            if (e->tmpl == 1 && tmpl_match(w, e, c, p, len))
                return e;
        }
    return NULL;
}

/* tmpl_wavefronts where the template's count does not serve: the count
 * of the instruction's bytes if met before (wfc_take), else counted (and
 * kept for the next with its bytes). */
static __attribute__((noinline)) unsigned tmpl_wavefronts_own(im_walker *w,
                                                             im_wm *t,
                                                             size_t j)
{
    if (w->wmoved[j] & TM_WFK)
        return w->wseg[j].wf;
    unsigned n = im_mem_wavefronts(w->p, tmpl_inst(w, t, j));
    if (w->wmoved[j] & TM_FILL) {
        struct im_wfc *c = &w->wfc[w->wseg[j].slot];
        if (c->gen == w->wseg[j].gen) /* not taken by another since */
            c->wf = n;
        w->wmoved[j] &= (uint8_t)~TM_FILL;
    }
    return n;
}

/* im_mem_wavefronts of template t's instruction j in this warp (a
 * shared-memory access; fast_collect matched the warp to t: the same
 * record and mask).  Speed only: where its lanes are t's moved by one
 * difference (tmpl_match) of whole rows of banks (a row a power of two:
 * every lane keeps its bank, and lanes keep sharing or not sharing a
 * word), the count is t's, worked out once per template (a kernel whose
 * CTAs index the same shared array: the same addresses in every CTA).
 * The instruction is then not decoded at all. */
static unsigned tmpl_wavefronts(im_walker *w, im_wm *t, size_t j)
{
    const im_par *p = w->p;
    uint64_t row = (uint64_t)p->shmem_banks * p->shmem_bank_bytes;
    im_wm_wf *f = &t->wf[j];
    if (f->n == UINT32_MAX) /* not counted when made (out of memory) */
        wf_make(p, &t->dec[j], f);
    uint64_t d = w->wdelta[j], lo = f->lo + d; /* the moved lanes' least */
    uint64_t wd = wf_width(&t->dec[j]), room = lo < WF_LIM ? WF_LIM - lo : 0;
    if ((w->wmoved[j] & TM_MOVED) && row && !(row & (row - 1)) &&
        !(d & (row - 1)) && f->ok && wd <= room && f->span <= room - wd)
        return f->n; /* the moved lanes' bytes below WF_LIM too */
    return tmpl_wavefronts_own(w, t, j);
}

/* collect for a warp with a template: the same results (*ended), its
 * instructions with addresses decoded and asked for in order, the rest
 * taken from the template.  *hit: the recorded warp wm_find would find,
 * when it is the template (its hash *hash; w->wbuf then not filled:
 * tmpl_fill), else NULL.  0, -1 when the warp has no template (nothing
 * read or asked), or an error code. */
static int fast_collect(im_walker *w, int sub, im_cta_acc *acc,
                        size_t *nbuf, size_t *naux, uint64_t *hash,
                        const im_wm **hit, im_wm_sum *sum, wc_diag *d)
{
    const unsigned char *rp;
    size_t rl;
    uint64_t n;
    if (!w->raw_cta || !wc_cta_raw(w->raw_cta, w->raw_w, &rp, &rl, &n))
        return -1;
    w->raw_p = rp; /* recorded with the warp (rec_begin) */
    w->raw_len = rl;
    if (n > IM_WM_MAXI ||
        (!w->wcopy && !(w->wcopy = malloc(IM_WM_MAXU * sizeof *w->wcopy))) ||
        (!w->wmoved && !(w->wmoved = malloc(IM_WM_MAXU))) ||
        (!w->wdelta &&
         !(w->wdelta = malloc(IM_WM_MAXU * sizeof *w->wdelta))))
        return -1;
    im_wm *t = tmpl_find(w, sub, rp, rl, n);
    if (!t)
        return -1;
    size_t ns = t->nseg;
    if (GROW(w->wbuf, w->wbuf_cap, n - 1) ||
        (ns && (GROW(w->waux, w->waux_cap, ns - 1) ||
                GROW(w->wat, w->wat_cap, ns - 1) ||
                GROW(w->wkey, w->wkey_cap, 2 * ns - 1))))
        return -1;
    size_t na = 0;
    for (size_t j = 0; j < ns; j++) {
        /* the template's record for the memo (the same record) */
        uint32_t sid = (uint32_t)(t->seq[t->seg[j].idx] >> 32);
        const im_static *ms = memo_get(w, &t->dec[j], sid);
        if (!ms)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        if (ms->mk != 1 && ms->mk != 2)
            continue;
        w->wat[na] = t->seg[j].idx;
        if (ms->mk == 2) {
            unsigned wf = tmpl_wavefronts(w, t, j);
#ifdef WC_CHECKS
            if (wf != im_mem_wavefronts(w->p, tmpl_inst(w, t, j)))
                return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                   "a template's wavefronts are not its "
                                   "repeat's");
#endif
            memset(&w->waux[na], 0, sizeof w->waux[na]);
            w->waux[na].wavefronts = wf;
        } else {
            mem_outcome(w, acc, ms, tmpl_inst(w, t, j), &w->waux[na]);
        }
        na++;
    }
    outcomes_sum(w, na, sum);
    wc_cta_raw_skip(w->raw_cta, w->raw_w);
    *nbuf = (size_t)n;
    *naux = na;
    if (t->sub == sub && t->share_sub == w->share_sub &&
        t->share_sm == w->share_sm && t->naux == na &&
        (na == 0 || memcmp(t->aux, w->wkey, 2 * na * sizeof *t->aux) == 0)) {
        *hit = t;
        *hash = t->hash;
        return 0;
    }
    *hit = NULL;
    tmpl_fill(w, t, w->raw_cta);
    *hash = wm_hash(w, sub, (size_t)n, na);
    return 0;
}

int im_warp_run(im_walker *w, int sub, im_next_fn next, void *ctx,
                im_cta_acc *acc, uint64_t *insts, double *cycles, wc_diag *d)
{
    const im_par *p = w->p;
    if (phase_at(acc, 0) != 0)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    if (!w->memo || !w->memo_full) {
        /* the entries are written before they are read (memo_full): only
         * the flags are cleared, not the 4096 entries' pages */
        if (!w->memo)
            w->memo = wc_pool_alloc(IM_MEMO_N * sizeof *w->memo, 0, 0);
        if (w->memo && !w->memo_full)
            w->memo_full = wc_pool_alloc(IM_MEMO_N, 0, 1);
        if (!w->memo || !w->memo_full)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        key_mask_init(w);
    }
    if (w->wm_on && !w->wm && !(w->wm = calloc(IM_WM_SLOTS + 1, sizeof *w->wm)))
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    /* ---- the warp memo: collect, recall or record ---- */
    size_t nbuf = 0, naux = 0, pend_n = 0;
    const wc_iref *pend = NULL;
    int ended = 0;
    im_wm_sum csum; /* the warp's byte and sector sums (collection) */
    w->npre = w->iev = 0;
    w->wm_rec = 0;
    if (w->wm_on && w->wm_stored >= 128 && w->wm_found * 4 < w->wm_stored)
        w->wm_on = 0; /* warps rarely repeat here: the memo does not pay
                         (deterministic: a function of the trace) */
    w->raw_p = NULL;
    if (w->wm_on) {
        uint64_t h = 0;
        memset(&csum, 0, sizeof csum);
        const im_wm *hit = NULL;
        int rc = fast_collect(w, sub, acc, &nbuf, &naux, &h, &hit, &csum, d);
        if (rc > 0)
            return rc;
        if (rc == 0) {
            ended = 1;
        } else {
            rc = collect(w, sub, next, ctx, acc, &nbuf, &naux, &h, &ended,
                         &pend, &pend_n, &csum, d);
            if (rc)
                return rc;
        }
        if (ended) {
            const im_wm *e = hit ? hit : wm_find(w, h, sub, nbuf, naux);
            w->wm_found += e != NULL;
            int ck = e ? wm_check(w, e, sub) : 0;
            if (ck < 0)
                return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                   "out of memory");
            if (ck == 1) {
                if (wm_replay(e, &csum, acc) != 0)
                    return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                       "out of memory");
                w->wm_hits++;
                wm_used(w, (size_t)(e - w->wm));
                *insts = e->s.insts;
                *cycles = e->s.total;
                return 0;
            }
            if (hit) /* walked after all: its instructions buffered */
                tmpl_fill(w, hit, w->raw_cta);
            rec_begin(w, h, sub, nbuf, naux);
        }
    }
    double comp[IM_CPI_COUNT];
    memset(comp, 0, sizeof comp);
    size_t phase = 0;
    ua_counts cnt0 = acc->cnt;
    im_wm_sum ws;
    memset(&ws, 0, sizeof ws);
    ws.first_l2 = ws.first_dram = ws.post_l2 = ws.post_dram = 1e300;
    double t0 = w->base; /* phase start */
    double prev = w->base - 1, next_ok = w->base;
    double total = 0;
    uint64_t n = 0;
    int qpos = 0;
    int memq = p->memq; /* <= IM_MEMQ_MAX (im_par_init) */
    for (int i = 0; i < memq; i++)
        w->memq[i] = w->base - 1;
    if (w->reg_dirty) { /* the previous warp used the scoreboard */
        memset(w->reg_ready, 0, sizeof w->reg_ready);
        memset(w->reg_war, 0, sizeof w->reg_war);
        w->reg_dirty = 0;
    }
    for (int i = 0; i < 6; i++)
        w->sb_ready[i] = w->base;
    for (int i = 0; i < WC_LAT_COUNT; i++)
        w->unit_free[i] = w->base;
    w->addr_free = w->base;
    for (int b = 0; b < UA_MAX_BANKS; b++)
        w->bank_next[b] = w->vbank_next[b] = w->base;
    for (int b = 0; b < UA_MAX_BANKS; b++)
        for (int s = 0; s < UA_RFC_SLOTS; s++)
            w->rfc[b][s] = WC_REG_NONE;
    const wc_inst *in = NULL;
    const wc_iref *batch = NULL;
    size_t bi = 0, bcount = 0, ai = 0;
    /* sources in order: the buffered instructions (stage 0; memory
     * outcomes in w->waux), the rest of the collection's last batch
     * (stage 1), then the stream */
    int stage = w->wm_on ? 0 : 2, buffered = 0;
    uint64_t cur_line = UINT64_MAX;
    double last_l2 = -1, last_dram = -1; /* data time of the last access */
    double last_atom = -1; /* last atomic performed at the L2 */
    int rc = 0;
    /* the walker's fields fixed for the warp, read once: the loop's stores
     * through w (unsigned, uint16_t) could alias them for the compiler */
    const int use_ctrl = w->use_ctrl != 0;
    const int have_cl1 = w->cl1 != NULL, have_ic = w->ic != NULL;
    const double nsub = w->share_sub, nsm = w->share_sm;
    for (;;) {
        if (bi == bcount) {
            bi = bcount = 0;
            while (bcount == 0 && stage < 2) {
                buffered = stage == 0;
                batch = stage == 0 ? w->wbuf : pend;
                bcount = stage == 0 ? nbuf : pend_n;
                stage++;
            }
            if (bcount == 0) {
                buffered = 0;
                if (ended) {
                    rc = 0;
                    break;
                }
                if ((rc = next(ctx, &batch, &bcount, d)) != 1)
                    break;
            }
        }
        const wc_iref *ref = &batch[bi++];
        const uint32_t mask = ref->mask;
        const im_static *ms = memo_get(w, ref->in, ref->sid);
        if (!ms)
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        /* a static record (no addresses): the memory path reads the
         * instance's mask from the record */
        in = inst_of(w, ms, ref->in, mask);
        int lc = ms->lc;
        int ctrl = use_ctrl & ms->ctrl_valid;
        const ua_mem_class *mcl = &ms->mcl;
        int mk = ms->mk;
        n++;
        /* fixed latency, or variable latency outside the memory unit
         * (MUFU, DFMA, S2R, conversions): both read the register file */
        int fixed = ms->fixed;
        double dreads[UA_MAX_BANKS];
        const double *reads = ms->dreads;
        unsigned bm = ms->bmask;
        if (ms->rfc_dyn) {
            bm = rf_reads_dyn(w, ms, dreads);
            reads = dreads;
        }
        /* ---- earliest issue and its binding constraint ---- */
        double e = prev + 1;
        int cause = CAUSE_NONE;
#define BIND(x, c)                                                             \
    do {                                                                       \
        double x_ = (x);                                                       \
        if (x_ > e) {                                                          \
            e = x_;                                                            \
            cause = (c);                                                       \
        }                                                                      \
    } while (0)
        /* every read of a bank within the read window after issue */
        if (fixed)
            for (unsigned m = bm; m; m &= m - 1) {
                int b = __builtin_ctz(m);
                BIND(w->bank_next[b] + reads[b] - 1 - p->read_window,
                     IM_CPI_UNIT);
            }
        if (have_ic && ms->iline != cur_line) {
            /* a new code line: wait until it is in the SM's icache (cold
             * misses are shared by every warp that asks meanwhile) */
            cur_line = ms->iline;
            im_wm_ev q = {cur_line, prev + 1 - w->base, 0, 0, 0};
            if (request(w, sub, &q) != 0)
                return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                   "warp memo out of step");
            if (q.waited)
                BIND(prev + 1 + q.wait, IM_CPI_FETCH);
        }
        if (have_cl1 && ms->constop && !mk) {
            /* constant operand of a fixed-latency instruction: looked up
             * in the sub-core's L0 FL constant cache at issue; a cold line
             * comes from the SM's L1 constant cache or, first, the L2 */
            im_wm_ev q = {in->const_addr / p->cline, e - w->base, 0, 1, 0};
            if (request(w, sub, &q) != 0)
                return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                   "warp memo out of step");
            if (q.waited)
                BIND(e + q.wait, CAUSE_CONST);
        }
        if (ctrl) {
            BIND(next_ok, IM_CPI_DEP);
            for (unsigned i = 0; i < ms->nwait; i++) {
                int sb = ms->wait_sb[i];
                BIND(w->sb_ready[sb], w->sb_cause[sb]);
            }
            if (ms->depbar_wait >= 0)
                BIND(w->sb_ready[ms->depbar_wait],
                     w->sb_cause[ms->depbar_wait]);
        } else {
            for (unsigned i = 0; i < ms->nsreg; i++) {
                wc_reg r = ms->sreg[i];
                BIND(w->reg_ready[r], w->reg_cause[r]);
            }
            for (unsigned i = 0; i < ms->ndreg; i++) {
                wc_reg r = ms->dreg[i];
                /* WAW only against a later-completing producer */
                if (w->reg_ready[r] > e + p->lat[lc])
                    BIND(w->reg_ready[r] - p->lat[lc], w->reg_cause[r]);
                BIND(w->reg_war[r], IM_CPI_MEM_L1);
            }
        }
        if (!mk)
            BIND(w->unit_free[lc], IM_CPI_UNIT);
        if (mk)
            BIND(w->memq[qpos] + 1, IM_CPI_MEM_L1);
#undef BIND
        if (cause == CAUSE_CONST)
            cause = IM_CPI_MEM_SHARED;
        if (cause != CAUSE_NONE && cause != IM_CPI_DEP &&
            cause != IM_CPI_UNIT)
            ws.intervals++; /* a long-latency event cut an interval */
        comp[IM_CPI_BASE] += 1;
        if (cause != CAUSE_NONE)
            comp[cause] += e - (prev + 1);
        double t = e;
        /* ---- demands and results ---- */
        double tt = t - t0;
        dem_add(w, IM_R_ISSUE + sub, 1, t, tt, nsub);
        /* RF reads: fixed latency in the window after issue; variable
         * latency from the queue after Control, with the slots left (its
         * own clock here), one register per bank and cycle */
        double vread_end = 0;
        for (unsigned m = bm; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            {
                double *bn = fixed ? &w->bank_next[b] : &w->vbank_next[b];
                double first = fixed ? t + 1 : t + UA_ISSUE_TO_ALLOC;
                double st = *bn > first ? *bn : first;
                *bn = st + reads[b];
                if (*bn > vread_end)
                    vread_end = *bn;
                dem_add(w, IM_R_BANK + sub * UA_MAX_BANKS + b, reads[b],
                        t, tt, nsub);
            }
        }
        /* MUFU by function (lat_mufu_*, issue 11), as the detailed model */
        double lat = ms->lat, war = 0;
        int lcause = IM_CPI_DEP;
        if (!mk) {
            if (lc == WC_LAT_fp64 && p->fp64_shared)
                dem_add(w, IM_R_FP64SM, p->ii[lc], t, tt, nsm);
            else
                dem_add(w, IM_RU(sub, lc), p->ii[lc], t, tt, nsub);
            w->unit_free[lc] = t + p->ii[lc];
            ua_counts_inst(&acc->cnt, in, NULL, 0, 0, 0);
            if (!fixed && vread_end - t > lat)
                lat = vread_end - t; /* result after its operands are read */
        } else {
            double raw;
            raw = mcl->raw >= 0 ? (double)mcl->raw : p->l1_lat;
            war = (double)mcl->war;
            double sub_ii = ms->uniform ? p->sub_ii_u : p->sub_ii_r;
            /* sub-core address unit and queue (seed 000 Table 1) */
            double S = t + p->dispatch;
            if (w->addr_free > S)
                S = w->addr_free;
            w->addr_free = S + sub_ii;
            w->memq[qpos] = S + (p->sub_latency - p->dispatch);
            if (++qpos == memq)
                qpos = 0;
            dem_add(w, IM_R_MEMSUB + sub, sub_ii, t, tt, nsub);
            double smb = p->shared_ii;
            lat = raw;
            unsigned c_lines = 0, c_sectors = 0, c_wf = 0;
            if (mk == 1) {
                im_macc a;
                int st = mcl->is_write;
                int at = mcl->atomic;
                if (buffered) /* asked in the collection pass */
                    a = w->waux[ai++];
                else
                    im_mem_global(p, w->l1, w->l2, in, mcl, &a);
                c_lines = a.lines;
                c_sectors = a.sectors;
                double lines = a.lines ? a.lines : 1;
                if (lines * p->l1_line_cycles > smb)
                    smb = lines * p->l1_line_cycles;
                ws.l2_bytes += a.l2_bytes;
                ws.dram_bytes += a.dram_bytes;
                ws.l1_hits += a.l1_hit_sectors;
                ws.l2_hits += a.l2_hit_sectors;
                ws.dram_sectors += a.dram_sectors;
                lat += (lines - 1) * p->l1_line_cycles;
                if (at && a.level < 2)
                    a.level = 2;
                if (at && mask && !buffered)
                    atom_count(p, acc, in);
                if (a.level == 2)
                    lat += p->l2_lat - p->l1_lat;
                else if (a.level == 3)
                    lat += p->dram_lat - p->l1_lat;
                if (at && mask && t + lat > last_atom)
                    last_atom = t + lat;
                if (a.l2_bytes > 0 && !st) {
                    if (t - w->base < ws.first_l2)
                        ws.first_l2 = t - w->base;
                    if (t + lat > last_l2)
                        last_l2 = t + lat;
                }
                if (a.dram_bytes > 0 && !st) {
                    if (t - w->base < ws.first_dram)
                        ws.first_dram = t - w->base;
                    if (t + lat > last_dram)
                        last_dram = t + lat;
                }
                lcause = a.level == 3   ? IM_CPI_MEM_DRAM
                         : a.level == 2 ? IM_CPI_MEM_L2
                                        : IM_CPI_MEM_L1;
            } else if (mk == 2) {
                unsigned wf = buffered ? w->waux[ai++].wavefronts
                                       : im_mem_wavefronts(p, in);
                c_wf = wf;
                if (wf > 1)
                    lat += (wf - 1) * p->wavefront_cycles;
                if (wf * p->wavefront_cycles > smb)
                    smb = wf * p->wavefront_cycles;
                lcause = IM_CPI_MEM_SHARED;
            } else {
                lcause = IM_CPI_MEM_SHARED;
            }
            if (mask == 0) /* predicated off: no access */
                lat = war;
            if (mk == 3 && p->const_ii > 0) /* own port, as dm's mem_unit */
                dem_add(w, IM_R_SMCONST, p->const_ii, t, tt, nsm);
            else
                dem_add(w, IM_R_SMMEM, smb, t, tt, nsm);
            ua_counts_inst(&acc->cnt, in, mcl, c_lines, c_sectors, c_wf);
        }
        /* results: dependence counters or register scoreboard */
        double done = t + lat;
        if (ctrl) {
            int wb = ms->wbar, rb = ms->rbar;
            if (wb >= 0) {
                if (done > w->sb_ready[wb]) {
                    w->sb_ready[wb] = done;
                    w->sb_cause[wb] = (uint8_t)lcause;
                }
            }
            if (rb >= 0 && t + war > w->sb_ready[rb]) {
                w->sb_ready[rb] = t + war;
                w->sb_cause[rb] = IM_CPI_MEM_L1;
            }
            next_ok = t + ms->stall;
        } else {
            w->reg_dirty = 1;
            for (unsigned i = 0; i < ms->ndreg; i++) {
                wc_reg r = ms->dreg[i];
                w->reg_ready[r] = done;
                w->reg_cause[r] = (uint8_t)lcause;
            }
            if (mk && war > 0)
                for (unsigned i = 0; i < ms->nsreg; i++) {
                    wc_reg r = ms->sreg[i];
                    if (t + war > w->reg_war[r])
                        w->reg_war[r] = t + war;
                }
        }
        prev = t;
        /* ---- barriers end a phase ---- */
        if ((ms->opflags & WC_OPF_BAR) && mask != 0) {
            double len = t + 1 - t0;
            total += len;
            phase_merge(acc, phase, len, comp);
            if (w->wm_rec)
                rec_phase(w, phase, len, comp);
            memset(comp, 0, sizeof comp);
            edges_flush(w, acc, phase, t0, len);
            if (phase + 1 < IM_MAX_PHASES) {
                if (phase_at(acc, phase + 1) != 0)
                    return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                       "out of memory");
                phase++;
            }
            t0 = t + 1 + p->barrier_cycles;
            prev = t0 - 1;
            next_ok = t0;
        }
    }
    if (rc < 0)
        return -rc;
    double len = prev + 1 - t0;
    if (n == 0)
        len = 0;
    total += len;
    phase_merge(acc, phase, len, comp);
    if (w->wm_rec)
        rec_phase(w, phase, len, comp);
    edges_flush(w, acc, phase, t0, len);
    ws.total = total;
    double end = prev + 1;
    if (last_l2 >= 0)
        ws.post_l2 = end - last_l2 > 0 ? end - last_l2 : 0;
    if (last_atom > end)
        ws.atom_tail = last_atom - end;
    if (last_dram >= 0)
        ws.post_dram = end - last_dram > 0 ? end - last_dram : 0;
    ws.insts = n;
    sum_merge(acc, &ws);
    if (w->wm_rec) {
        ws.cnt = acc->cnt;
        ua_counts_sub(&ws.cnt, &cnt0);
        rec_store(w, &ws);
    }
    *insts = n;
    *cycles = total;
    return 0;
}
