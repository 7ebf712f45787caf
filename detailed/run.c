/*
 * detailed/run.c - the GPU loop of the detailed model: the GPU-wide CTA
 * scheduler of the launch model (common/keys_launch.def: one CTA per
 * cta_dispatch cycles, CTA overheads before its warps start; occupancy from
 * registers, shared memory, warp and CTA slots), one cycle at a time for
 * every busy SM with jumps over cycles in which every SM sleeps, the
 * watchdog, results, the timeline and its Chrome trace-event output.
 * Entry points of dm.h.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wc_check.h"
#include "dm_int.h"

size_t dm_event_add(dm_gpu *gpu, uint64_t cycle, const dm_sm *sm,
                    unsigned sub, const dm_warp *w, const wc_inst *in)
{
    if (gpu->nev == gpu->capev) {
        size_t cap = gpu->capev ? 2 * gpu->capev : 1024;
        dm_event *n = realloc(gpu->ev, cap * sizeof *n);
        if (n)
            gpu->ev = n;
        uint8_t *fin = n ? realloc(gpu->evfin, cap) : NULL;
        if (!fin) {
            dm_fail(gpu, WC_EINTERNAL, "out of memory (timeline)");
            return 0;
        }
        gpu->evfin = fin;
        gpu->capev = cap;
    }
    gpu->evfin[gpu->nev] = 0;
    dm_event *e = &gpu->ev[gpu->nev++];
    memset(e, 0, sizeof *e);
    e->cycle = cycle;
    e->sm = sm->id;
    e->subcore = sub;
    e->warp = w->id;
    e->cta = (unsigned)sm->ctas[w->cta].num;
    e->pc = in->pc;
    snprintf(e->op, sizeof e->op, "%s", in->opcode);
    for (unsigned i = 0; i < in->nsrc; i++)
        if (WC_REG_IS_R(in->src[i]) && e->nsrc < 8)
            e->nsrc++;
    return gpu->ev_base + gpu->nev;
}

void dm_event_rfc(dm_gpu *gpu, size_t ref, unsigned n, const uint8_t *hit)
{
    if (ref == 0 || ref <= gpu->ev_base || ref - gpu->ev_base > gpu->nev)
        return;
    size_t i = ref - 1 - gpu->ev_base;
    dm_event *e = &gpu->ev[i];
    e->nsrc = (uint8_t)(n > 8 ? 8 : n);
    memcpy(e->rfc_hit, hit, e->nsrc);
    gpu->evfin[i] = 1;
}

/* Streaming: send the complete events at the front (all: every event, at
 * the end of a run) to the sink and drop them. */
static void event_flush(dm_gpu *gpu, int all)
{
    if (!gpu->o.sink || gpu->err)
        return;
    size_t k = 0;
    while (k < gpu->nev && (all || gpu->evfin[k])) {
        if (gpu->o.sink(gpu->o.sink_ctx, &gpu->ev[k]) != 0) {
            dm_fail(gpu, WC_EINTERNAL, "cannot write the timeline");
            return;
        }
        k++;
    }
    if (k == 0)
        return;
    memmove(gpu->ev, gpu->ev + k, (gpu->nev - k) * sizeof *gpu->ev);
    memmove(gpu->evfin, gpu->evfin + k, gpu->nev - k);
    gpu->nev -= k;
    gpu->ev_base += k;
}

/*
 * Per-thread pool of SMs kept across runs: the arrays of an SM (warp slots,
 * 5 KB each, CTA slots, in-flight table) were allocated and cleared for
 * every kernel, which on short kernels of a 132-SM GPU was most of the
 * time.  A run takes the pool's SMs when their array sizes fit its
 * parameters and resets what the last run used (dm_sm_reuse); results are
 * those of fresh SMs.  Freed at thread exit.
 */
typedef struct dm_pool {
    dm_sm *sms;
    unsigned n;
} dm_pool;

static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static int pool_ok;

static void pool_free(void *v)
{
    dm_pool *pl = v;
    if (!pl)
        return;
    for (unsigned i = 0; i < pl->n; i++)
        dm_sm_fini(&pl->sms[i]);
    free(pl->sms);
    free(pl);
}

static void pool_make_key(void)
{
    pool_ok = pthread_key_create(&pool_key, pool_free) == 0;
}

/* The pool of this thread (taken out of it: NULL when empty). */
static dm_pool *pool_take(void)
{
    pthread_once(&pool_once, pool_make_key);
    if (!pool_ok)
        return NULL;
    dm_pool *pl = pthread_getspecific(pool_key);
    if (pl)
        pthread_setspecific(pool_key, NULL);
    return pl;
}

static void gpu_fini(dm_gpu *gpu)
{
    dm_pool *pl = gpu->pool;
    if (gpu->sms && pl && pl->sms == gpu->sms) {
        /* back to the pool, without the trace's CTAs */
        for (unsigned i = 0; i < gpu->nsms; i++)
            dm_sm_drop_ctas(&gpu->sms[i]);
        if (pool_ok && pthread_getspecific(pool_key) == NULL &&
            pthread_setspecific(pool_key, pl) == 0)
            pl = NULL;
        pool_free(pl);
    } else if (gpu->sms) {
        for (unsigned i = 0; i < gpu->nsms; i++)
            dm_sm_fini(&gpu->sms[i]);
        free(gpu->sms);
    }
    dm_l2_free(gpu->l2);
    free(gpu->sm_at);
    free(gpu->sm_aw);
    free(gpu->sm_wb);
    free(gpu->sm_hp);
    free(gpu->sm_pos);
    free(gpu->sm_due);
    for (unsigned i = 0; i < DM_HDR; i++)
        free(gpu->hdr[i]);
    free(gpu->dec);
    free(gpu->ev);
    free(gpu->evfin);
}

static int gpu_init(dm_gpu *gpu, const wc_gpu *g, const dm_options *o,
                    unsigned nsms, wc_diag *d)
{
    memset(gpu, 0, sizeof *gpu);
    gpu->g = g;
    gpu->d = d;
    if (o)
        gpu->o = *o;
    else
        dm_options_default(&gpu->o);
    int rc = dm_params_load(g, &gpu->p, d);
    if (rc)
        return rc;
    gpu->shortcuts = g->dm_shortcuts != 0;
    gpu->quantum = g->dm_quantum > 1 ? (uint64_t)g->dm_quantum : 1;
    gpu->pf_on = 1;
    wc_rng_seed(&gpu->rng, gpu->o.seed);
    gpu->l2 = dm_l2_create(g);
    if (gpu->l2)
        dm_l2_set_fold(gpu->l2, gpu->o.l2_fold);
    size_t nalloc = nsms ? nsms : 1;
    gpu->sm_at = calloc(nalloc, sizeof *gpu->sm_at);
    gpu->sm_words = (unsigned)((nalloc + 63) / 64);
    gpu->sm_aw = calloc(2 * (size_t)gpu->sm_words, sizeof *gpu->sm_aw);
    gpu->sm_wb = calloc((size_t)DM_WHEEL * gpu->sm_words, sizeof *gpu->sm_wb);
    gpu->sm_hp = calloc(nalloc, sizeof *gpu->sm_hp);
    gpu->sm_pos = calloc(nalloc, sizeof *gpu->sm_pos);
    gpu->sm_due = calloc(nalloc, sizeof *gpu->sm_due);
    gpu->dec = calloc(1, sizeof *gpu->dec);
    if (!gpu->l2 || !gpu->sm_at || !gpu->sm_aw || !gpu->sm_wb || !gpu->sm_hp ||
        !gpu->sm_pos || !gpu->sm_due || !gpu->dec)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "detailed model: out of memory or bad memory "
                           "configuration");
    for (unsigned i = 0; i < nsms; i++) { /* at 0: all awake */
        gpu->sm_pos[i] = DM_SM_NOPOS;
        gpu->sm_aw[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    dm_pool *pl = pool_take();
    int fits = pl && pl->n >= nsms;
    for (unsigned i = 0; fits && i < nsms; i++)
        fits = dm_sm_fits_arrays(gpu, &pl->sms[i]);
    if (pl && !fits) {
        pool_free(pl);
        pl = NULL;
    }
    if (pl) {
        gpu->pool = pl;
        gpu->sms = pl->sms;
        gpu->nsms = nsms;
        for (unsigned i = 0; i < nsms; i++)
            if (dm_sm_reuse(gpu, &gpu->sms[i], i) != 0) {
                gpu->nsms = pl->n; /* gpu_fini frees them all */
                gpu->pool = NULL;
                free(pl);
                return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                                   "detailed model: cannot create SM %u "
                                   "(out of memory or bad configuration)",
                                   i);
            }
        return 0;
    }
    pl = calloc(1, sizeof *pl);
    gpu->sms = calloc(nsms, sizeof *gpu->sms);
    if (!pl || !gpu->sms) {
        free(pl);
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "detailed model: out of memory");
    }
    pl->sms = gpu->sms;
    gpu->pool = pl;
    gpu->nsms = nsms;
    for (unsigned i = 0; i < nsms; i++)
        if (dm_sm_init(gpu, &gpu->sms[i], i) != 0) {
            gpu->pool = NULL; /* gpu_fini frees the SMs */
            free(pl);
            return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                               "detailed model: cannot create SM %u (out of "
                               "memory or bad configuration)",
                               i);
        }
    pl->n = nsms;
    return 0;
}

/*
 * No progress for the watchdog's span at cycle c, but is some progress
 * already scheduled?  A memory request the L2 and DRAM servers have timed
 * ends at its event's cycle, however far ahead a slow server put it
 * (gt200 with dram_bw = 1 byte a cycle: 171 CTAs of a streaming kernel
 * queue up to 210K cycles for their lines, past the watchdog's allowance
 * of one warp's request, and the run stopped as a hang at 2.8M of its
 * 3.1M cycles).  A hang has no such event: the watchdog fires once the
 * last one has passed.
 */
static int progress_ahead(const dm_gpu *gpu, uint64_t c)
{
    for (unsigned i = 0; i < gpu->nsms; i++) {
        uint64_t t = dm_mem_next_event(gpu->sms[i].mem);
        if (t != UINT64_MAX && t > c)
            return 1;
    }
    return 0;
}

static int watchdog(dm_gpu *gpu, uint64_t c);

/* The watchdog's test at cycle c (both run loops): 0, with *last_prog
 * moved to c when a timed memory event is still to come, or its error. */
static int watchdog_check(dm_gpu *gpu, uint64_t c, uint64_t *last_prog)
{
    if (c <= *last_prog || c - *last_prog <= gpu->p.watchdog)
        return 0;
    if (progress_ahead(gpu, c)) {
        *last_prog = c; /* waiting for a timed memory event */
        return 0;
    }
    return watchdog(gpu, c);
}

static int watchdog(dm_gpu *gpu, uint64_t c)
{
    char buf[900];
    size_t o = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < gpu->nsms && o + 1 < sizeof buf; i++)
        if (dm_sm_busy(&gpu->sms[i])) {
            dm_sm_dump(&gpu->sms[i], buf + o, sizeof buf - o);
            o += strlen(buf + o);
        }
    return wc_diag_set(gpu->d, WC_EINTERNAL, "", 0, 0,
                       "detailed model: no progress for %llu cycles at "
                       "cycle %llu: %s",
                       (unsigned long long)gpu->p.watchdog,
                       (unsigned long long)c, buf);
}

/* The sleepers' min-heap (struct dm_gpu: sm_hp) on (at, SM index). */
static int hp_less(const dm_gpu *gpu, unsigned a, unsigned b)
{
    uint64_t x = gpu->sm_at[a].at, y = gpu->sm_at[b].at;
    return x < y || (x == y && a < b);
}

static void hp_put(dm_gpu *gpu, unsigned k, unsigned i)
{
    gpu->sm_hp[k] = i;
    gpu->sm_pos[i] = k;
}

/* Move SM i, at position k, to its place. */
static void hp_fix(dm_gpu *gpu, unsigned k, unsigned i)
{
    while (k > 0) {
        unsigned p = (k - 1) / 2;
        if (!hp_less(gpu, i, gpu->sm_hp[p]))
            break;
        hp_put(gpu, k, gpu->sm_hp[p]);
        k = p;
    }
    for (;;) {
        unsigned ch = 2 * k + 1;
        if (ch >= gpu->sm_nhp)
            break;
        if (ch + 1 < gpu->sm_nhp &&
            hp_less(gpu, gpu->sm_hp[ch + 1], gpu->sm_hp[ch]))
            ch++;
        if (!hp_less(gpu, gpu->sm_hp[ch], i))
            break;
        hp_put(gpu, k, gpu->sm_hp[ch]);
        k = ch;
    }
    hp_put(gpu, k, i);
}

/* SM i (its at set, > 0) falls asleep at cycle c. */
static void sm_sleep(dm_gpu *gpu, unsigned i, uint64_t c)
{
    uint64_t at = gpu->sm_at[i].at;
    gpu->sm_aw[i >> 6] &= ~((uint64_t)1 << (i & 63));
    gpu->sm_nsleep_pend += gpu->sm_at[i].pend != 0;
    if (at - c < DM_WHEEL) { /* c <= at */
        unsigned b = (unsigned)(at % DM_WHEEL);
        gpu->sm_wb[(size_t)b * gpu->sm_words + (i >> 6)] |=
            (uint64_t)1 << (i & 63);
        gpu->sm_wsum[b >> 6] |= (uint64_t)1 << (b & 63);
        gpu->sm_pos[i] = DM_SM_WHEEL;
        gpu->sm_nwheel++;
        return;
    }
    hp_fix(gpu, gpu->sm_nhp++, i);
}

/* SM i leaves the heap (its sleep ends or it moves to the wheel). */
static void hp_remove(dm_gpu *gpu, unsigned i)
{
    unsigned k = gpu->sm_pos[i];
    gpu->sm_pos[i] = DM_SM_NOPOS;
    unsigned last = gpu->sm_hp[--gpu->sm_nhp];
    if (last != i)
        hp_fix(gpu, k, last);
}

/* SM i's sleep ends. */
static void sm_unsleep(dm_gpu *gpu, unsigned i)
{
    gpu->sm_nsleep_pend -= gpu->sm_at[i].pend != 0;
    if (gpu->sm_pos[i] != DM_SM_WHEEL) {
        hp_remove(gpu, i);
        return;
    }
    unsigned b = (unsigned)(gpu->sm_at[i].at % DM_WHEEL);
    uint64_t *w = &gpu->sm_wb[(size_t)b * gpu->sm_words];
    w[i >> 6] &= ~((uint64_t)1 << (i & 63));
    int empty = 1;
    for (unsigned k = 0; k < gpu->sm_words && empty; k++)
        empty = w[k] == 0;
    if (empty)
        gpu->sm_wsum[b >> 6] &= ~((uint64_t)1 << (b & 63));
    gpu->sm_pos[i] = DM_SM_NOPOS;
    gpu->sm_nwheel--;
}

/* SM i must be looked at every cycle again (a launch). */
static void sm_awaken(dm_gpu *gpu, unsigned i)
{
    if (gpu->sm_pos[i] != DM_SM_NOPOS)
        sm_unsleep(gpu, i);
    gpu->sm_at[i].at = 0;
    gpu->sm_aw[i >> 6] |= (uint64_t)1 << (i & 63);
}

/* Add the sleepers due at cycle c to due (and out of the wheel).  Every
 * sleeper wakes at or after the cycle gpu_cycle is called next (c never
 * passes the *next it returned), so the wheel holds wake cycles in
 * [c, c + DM_WHEEL) and bucket c % DM_WHEEL those of c exactly. */
static void sleepers_due(dm_gpu *gpu, uint64_t c, uint64_t *due)
{
    while (gpu->sm_nhp && gpu->sm_at[gpu->sm_hp[0]].at < c + DM_WHEEL) {
        unsigned i = gpu->sm_hp[0];
        hp_remove(gpu, i);
        gpu->sm_nsleep_pend -= gpu->sm_at[i].pend != 0;
        sm_sleep(gpu, i, c); /* c <= at < c + DM_WHEEL: to the wheel */
    }
    unsigned b = (unsigned)(c % DM_WHEEL);
    if (!(gpu->sm_wsum[b >> 6] >> (b & 63) & 1))
        return;
    gpu->sm_wsum[b >> 6] &= ~((uint64_t)1 << (b & 63));
    uint64_t *w = &gpu->sm_wb[(size_t)b * gpu->sm_words];
    for (unsigned k = 0; k < gpu->sm_words; k++) {
        for (uint64_t x = w[k]; x; x &= x - 1) {
            unsigned i = k * 64 + (unsigned)__builtin_ctzll(x);
            gpu->sm_nsleep_pend -= gpu->sm_at[i].pend != 0;
            gpu->sm_pos[i] = DM_SM_NOPOS;
            gpu->sm_nwheel--;
        }
        due[k] |= w[k];
        w[k] = 0;
    }
}

/* The earliest wake cycle of the sleepers (none due at c), UINT64_MAX
 * when none sleeps. */
static uint64_t sleepers_next(const dm_gpu *gpu, uint64_t c)
{
    uint64_t t = gpu->sm_nhp ? gpu->sm_at[gpu->sm_hp[0]].at : UINT64_MAX;
    if (!gpu->sm_nwheel)
        return t;
    unsigned b0 = (unsigned)((c + 1) % DM_WHEEL);
    for (unsigned n = 0; n <= DM_WHEEL / 64; n++) {
        unsigned wd = (b0 / 64 + n) % (DM_WHEEL / 64);
        uint64_t x = gpu->sm_wsum[wd];
        if (n == 0)
            x &= ~(uint64_t)0 << (b0 & 63);
        else if (n == DM_WHEEL / 64)
            x &= ((uint64_t)1 << (b0 & 63)) - 1;
        if (x) {
            unsigned b = wd * 64 + (unsigned)__builtin_ctzll(x);
            uint64_t w = c + 1 + ((b - b0) % DM_WHEEL);
            return w < t ? w : t;
        }
    }
    return t;
}

static uint64_t thread_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Speed only (struct dm_gpu: pf_on): nd more SM ticks; at the end of an
 * epoch, account its time and pick the next epoch's prefetch setting. */
static void pf_epoch(dm_gpu *gpu, unsigned nd)
{
#ifdef DM_PF_FIXED
    /* measurement builds (make CFLAGS=-DDM_PF_FIXED): prefetch always on,
     * so that callgrind instruction counts do not depend on host timing */
    (void)gpu;
    (void)nd;
    return;
#endif
    gpu->pf_ticks += nd;
    if (gpu->pf_ticks < DM_PF_EPOCH)
        return;
    uint64_t t = thread_ns();
    int on = gpu->pf_on != 0;
    if (gpu->pf_phase < 2 * DM_PF_TRIAL) {
        if (gpu->pf_t0 && t > gpu->pf_t0) {
            gpu->pf_ns[on] += t - gpu->pf_t0;
            gpu->pf_nt[on] += gpu->pf_ticks;
        }
        gpu->pf_on = !on;
        if (++gpu->pf_phase == 2 * DM_PF_TRIAL) {
            /* ns per tick with (1) and without (0), cross-multiplied */
            double a = (double)gpu->pf_ns[1] * (double)gpu->pf_nt[0];
            double b = (double)gpu->pf_ns[0] * (double)gpu->pf_nt[1];
            gpu->pf_on = gpu->pf_nt[0] && gpu->pf_nt[1] ? a < b : 1;
        }
    } else if (++gpu->pf_phase == 2 * DM_PF_TRIAL + DM_PF_KEEP) {
        gpu->pf_phase = 0;
        gpu->pf_on = 1;
        memset(gpu->pf_ns, 0, sizeof gpu->pf_ns);
        memset(gpu->pf_nt, 0, sizeof gpu->pf_nt);
    }
    gpu->pf_t0 = t;
    gpu->pf_ticks = 0;
}

/* One cycle of every busy SM; returns 1 while anything is busy.  *next:
 * the next cycle any SM may act in (c + 1 unless every busy SM sleeps
 * past it: then the GPU jumps there).  Only the awake SMs and the
 * sleepers due are looked at, in SM order; the others sleep (their tick
 * would only note a pending CTA start as progress) or are idle until a
 * launch. */
static int gpu_cycle(dm_gpu *gpu, uint64_t c, uint64_t *last_prog,
                     uint64_t *next)
{
    int busy = 0;
    uint64_t nx = UINT64_MAX;
    unsigned nw = gpu->sm_words;
    uint64_t *due = gpu->sm_aw + nw;
    gpu->now = c;
    memcpy(due, gpu->sm_aw, nw * sizeof *due);
    if (gpu->quantum > 1)
        dm_l2_quantum(gpu->l2, c, gpu->quantum);
    for (uint64_t q = 0; q < gpu->quantum; q++) /* quantum <= DM_WHEEL / 4 */
        sleepers_due(gpu, c + q, due);
    if (gpu->sm_nhp || gpu->sm_nwheel) { /* sleepers are busy */
        busy = 1;
        if (gpu->sm_nsleep_pend)
            *last_prog = c;
        nx = sleepers_next(gpu, c);
    }
    unsigned nd = 0;
    for (unsigned w = 0; w < nw; w++)
        for (uint64_t b = due[w]; b; b &= b - 1)
            gpu->sm_due[nd++] = w * 64 + (unsigned)__builtin_ctzll(b);
    int pf = gpu->pf_on != 0;
    for (unsigned j = 0; j < nd; j++) {
        /* speed only: an SM tick waits mostly for host cache misses on the
         * SM's state (132 SMs' state is far beyond the host caches): load
         * that of the SMs ticked next ahead, in three steps (each step's
         * pointers come from lines the step before loaded) */
        for (unsigned k = 1; pf && k <= 3 && j + k < nd; k++)
            dm_sm_prefetch(&gpu->sms[gpu->sm_due[j + k]], gpu->p.nsub,
                           (int)(3 - k));
        unsigned i = gpu->sm_due[j];
        struct dm_sm_at *a = &gpu->sm_at[i];
        dm_sm *sm = &gpu->sms[i];
        if (!dm_sm_busy(sm)) {
            a->busy = 0;
            a->at = gpu->shortcuts ? UINT64_MAX : 0;
            if (gpu->shortcuts) /* idle until a launch */
                gpu->sm_aw[i >> 6] &= ~((uint64_t)1 << (i & 63));
            continue;
        }
        busy = 1;
        uint64_t t;
        if (gpu->quantum == 1) {
            dm_sm_tick(sm, c);
            t = dm_sm_next(sm, c);
        } else {
            /* the SM through [c, c + quantum): from the cycle it is due
             * (a sleeper taken from the wheel for a later cycle of the
             * quantum), each cycle it may act in */
            uint64_t end = c + gpu->quantum;
            uint64_t cc = a->at > c && a->at < end ? a->at : c;
            for (;;) {
                gpu->now = cc;
                dm_sm_tick(sm, cc);
                t = dm_sm_next(sm, cc); /* cc + 1 when it cannot sleep */
                if (!dm_sm_busy(sm)) {
                    if (cc + 1 > gpu->idle_at)
                        gpu->idle_at = cc + 1;
                    t = end; /* looked at (and let go) next quantum */
                    break;
                }
                uint64_t nt = gpu->shortcuts && t > cc ? t : cc + 1;
                if (nt >= end)
                    break;
                cc = nt;
            }
            gpu->now = c;
            if (t < end) /* it ran through the quantum */
                t = end;
        }
        if (sm->last_progress > *last_prog)
            *last_prog = sm->last_progress;
        if (t < nx)
            nx = t;
        a->busy = 1;
        a->pend = sm->npending != 0;
        a->at = sm->wake && gpu->shortcuts ? t : 0;
        if (a->at > c)
            sm_sleep(gpu, i, c);
        else
            gpu->sm_aw[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    pf_epoch(gpu, nd);
    if (nx == UINT64_MAX || nx <= c || !gpu->shortcuts)
        nx = c + 1;
    *next = nx;
    return busy;
}

/* The cycle after c to simulate: next, but not past a cycle at which the
 * watchdog or max_cycles would stop the run (they must stop it there; an
 * SM waiting for a CTA start makes progress when ticked there). */
static uint64_t next_cycle(const dm_gpu *gpu, uint64_t c, uint64_t next,
                           uint64_t last_prog)
{
    uint64_t w = last_prog + gpu->p.watchdog + 1;
    if (w > c && w < next)
        next = w;
    if (gpu->o.max_cycles && gpu->o.max_cycles > c &&
        gpu->o.max_cycles < next)
        next = gpu->o.max_cycles;
    if (next < c + gpu->quantum) /* the SMs ran through the quantum */
        next = c + gpu->quantum;
    else if (gpu->quantum > 1)
        /* a jump (dm_shortcuts) over whole quanta only: the quanta stay
         * those of cycle-by-cycle stepping, multiples of the quantum from
         * 0, which set what the dispatcher and the shared servers see
         * together (a jump to any cycle shifted them, and fuzz_models
         * found cycles that dm_shortcuts 0 did not give) */
        next = c + (next - c) / gpu->quantum * gpu->quantum;
    return next > c ? next : c + 1;
}

static void collect(dm_gpu *gpu, uint64_t stall[DM_STALL_COUNT],
                    uint64_t *issue_cycles)
{
    for (unsigned i = 0; i < gpu->nsms; i++)
        for (unsigned s = 0; s < gpu->p.nsub; s++) {
            for (int k = 0; k < DM_STALL_COUNT; k++)
                stall[k] += gpu->sms[i].sub[s].stall[k];
            stall[gpu->sms[i].sub[s].qwhy] += gpu->sms[i].sub[s].qn;
            if (issue_cycles)
                *issue_cycles += gpu->sms[i].sub[s].issued;
        }
}

int dm_run_kernel(wc_trace *t, size_t k, const wc_gpu *g, const dm_options *o,
                  dm_result *r, wc_diag *d)
{
    memset(r, 0, sizeof *r);
    double t0 = wc_now();
    const wc_kernel_info *ki = wc_trace_kernel(t, k);
    if (!ki)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "detailed model: no kernel %zu", k);
    dm_options opt;
    if (o)
        opt = *o;
    else
        dm_options_default(&opt);
    uint64_t first = opt.cta_first;
    uint64_t count = ki->ctas > first ? ki->ctas - first : 0;
    if (opt.cta_count && opt.cta_count < count)
        count = opt.cta_count;
    long nsm = opt.sms > 0 ? opt.sms : g->num_sms;
    if (nsm < 1)
        nsm = 1;
    if ((uint64_t)nsm > count && count > 0)
        nsm = (long)count; /* SMs without a CTA only cost time */
    dm_gpu gpu;
    wc_kreader *kr = NULL;
    int rc = gpu_init(&gpu, g, &opt, (unsigned)nsm, d);
    if (rc)
        goto out;
    unsigned occ; /* the one occupancy rule (uarch) */
    if ((rc = ua_kernel_ctas_per_sm(g, ki, &occ, d)) != 0)
        goto out;
    if (ki->warps_per_cta > gpu.sms[0].nslots) {
        rc = wc_diag_set(d, WC_EINPUT, ki->path, 0, 0,
                         "CTA of %llu warps exceeds the SM's warp slots",
                         (unsigned long long)ki->warps_per_cta);
        goto out;
    }
    if ((rc = wc_kreader_open(t, k, &kr, d)) != 0)
        goto out;
    if (first && (rc = wc_kreader_skip(kr, first, d)) != 0)
        goto out;
    uint64_t launched = 0, c = 0, last_prog = 0;
    uint64_t pcbase = (uint64_t)(k + 1) << 36;
    unsigned next_sm = 0;
    double next_t = 0; /* earliest dispatch time of the next CTA (cycles) */
    uint64_t full_at = UINT64_MAX; /* ctas_done when every SM was full */
    for (;;) {
        /* the GPU-wide CTA scheduler: in order, one CTA per cta_dispatch
         * cycles (fractions accumulate), round robin to SMs with room;
         * room only appears when a CTA finishes */
        for (unsigned tries = 0; launched < count && tries < gpu.nsms &&
                                 next_t <= (double)c &&
                                 gpu.ctas_done != full_at;) {
            dm_sm *sm = &gpu.sms[next_sm];
            if (!dm_sm_fits(sm, (unsigned)ki->warps_per_cta, occ)) {
                next_sm = (next_sm + 1) % gpu.nsms;
                if (++tries == gpu.nsms)
                    full_at = gpu.ctas_done;
                continue;
            }
            wc_cta *cta = NULL;
            if ((rc = wc_kreader_next(kr, &cta, d)) != 0)
                goto out;
            if (!cta) {
                count = launched;
                break;
            }
            gpu.now = c;
            /* ready since this cycle: dispatched at next_t; else it
             * waited for a slot, which freed in this cycle */
            double td = next_t > (double)c - 1 ? next_t : (double)c;
            if (gpu.quantum > 1) {
                /* the slot may have freed anywhere in the last quantum,
                 * which the dispatcher did not see cycle by cycle: it
                 * catches up from there (start is not before c) */
                double lo = (double)c - (double)gpu.quantum + 1;
                td = next_t > lo - 1 ? next_t : lo > 0 ? lo : 0;
            }
            uint64_t start = (uint64_t)ceil(
                td + gpu.p.cta_ovh +
                gpu.p.cta_warp_ovh * (double)wc_cta_nwarps(cta));
            if (start < c)
                start = c;
            next_t = td + gpu.p.cta_dispatch;
            if ((rc = dm_sm_launch(sm, cta, NULL, first + launched, pcbase,
                                   ki->has_ctrl, start, d)) != 0)
                goto out;
            sm_awaken(&gpu, next_sm); /* look at it again */
            launched++;
            last_prog = c;
            next_sm = (next_sm + 1) % gpu.nsms;
            tries = 0;
        }
        uint64_t next;
        int busy = gpu_cycle(&gpu, c, &last_prog, &next);
        if (gpu.nev >= 4096)
            event_flush(&gpu, 0);
        if (gpu.err) {
            rc = gpu.err;
            goto out;
        }
        if (!busy && launched >= count)
            break;
        if (launched < count && gpu.ctas_done != full_at) {
            /* the dispatcher may act in the next cycle it is ready */
            double nd = ceil(next_t);
            uint64_t dc = nd > (double)c ? (uint64_t)nd : c + 1;
            if (dc < next)
                next = dc;
        }
        if ((rc = watchdog_check(&gpu, c, &last_prog)) != 0)
            goto out;
        if (opt.max_cycles && c >= opt.max_cycles) {
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                             "detailed model: max_cycles %llu reached",
                             (unsigned long long)opt.max_cycles);
            goto out;
        }
        c = next_cycle(&gpu, c, next, last_prog);
    }
    event_flush(&gpu, 1);
    if (gpu.err) {
        rc = gpu.err;
        goto out;
    }
    /* quantum > 1: the loop stops at the first quantum with nothing busy;
     * the kernel ended when its last SM went idle */
    if (gpu.quantum > 1 && gpu.idle_at && gpu.idle_at < c)
        c = gpu.idle_at;
    r->sim_cycles = c;
    r->cycles = c;
    if (first == 0 && launched == ki->ctas)
        r->cycles += (uint64_t)g->launch_overhead;
    r->warp_insts = gpu.insts;
    r->ctas = gpu.ctas_done;
    r->ipc = c ? (double)gpu.insts / (double)c : 0;
    collect(&gpu, r->stall, &r->issue_cycles);
    r->counts.ctas_per_sm = (long)occ;
    memcpy(r->counts.warp_insts_by_unit, gpu.insts_by_unit,
           sizeof gpu.insts_by_unit);
    for (unsigned i = 0; i < gpu.nsms; i++)
        dm_mem_counts_add(gpu.sms[i].mem, &r->counts);
    dm_l2_counts_add(gpu.l2, &r->counts);
    r->events = gpu.ev;
    r->nevents = gpu.nev;
    gpu.ev = NULL;
    rc = WC_CHECK(wc_check_kernel(
        "detailed", ki, first, opt.cta_count, r->ctas, r->cycles,
        first == 0 && launched == ki->ctas ? (double)g->launch_overhead : 0,
        d));
out:
    wc_kreader_close(kr);
    gpu_fini(&gpu);
    r->host_seconds = wc_now() - t0;
    return rc;
}

void dm_result_free(dm_result *r)
{
    if (!r)
        return;
    free(r->events);
    r->events = NULL;
    r->nevents = 0;
}

int dm_run_ubench(const wc_ubench *u, const wc_gpu *g, const dm_options *o,
                  dm_ubench_result *r, wc_diag *d)
{
    memset(r, 0, sizeof *r);
    dm_gpu gpu;
    int rc = gpu_init(&gpu, g, o, 1, d);
    int has_ctrl = 0;
    if (rc)
        goto out;
    gpu.quantum = 1; /* one SM: cycle by cycle, exact */
    gpu.ubench = 1;
    r->nwarps = u->nwarps;
    r->warp = calloc(u->nwarps ? u->nwarps : 1, sizeof *r->warp);
    r->subcore = calloc(u->nwarps ? u->nwarps : 1, sizeof *r->subcore);
    r->clocks = calloc(u->nwarps ? u->nwarps : 1, sizeof *r->clocks);
    r->nclocks = calloc(u->nwarps ? u->nwarps : 1, sizeof *r->nclocks);
    if (!r->warp || !r->subcore || !r->clocks || !r->nclocks) {
        rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
        goto out;
    }
    gpu.uclk = r->clocks;
    gpu.nuclk = r->nclocks;
    gpu.usub = r->subcore;
    unsigned occ;
    if ((rc = ua_ctas_per_sm(g, u->nwarps * WC_WARP_SIZE, 0, 0, "", &occ,
                             d)) != 0)
        goto out;
    if (u->nwarps > gpu.sms[0].nslots) {
        rc = wc_diag_set(d, WC_EINPUT, "", 0, 0,
                         "microbenchmark has %u warps, the SM holds %u",
                         u->nwarps, gpu.sms[0].nslots);
        goto out;
    }
    for (unsigned i = 0; i < u->nwarps; i++) {
        r->warp[i] = u->warp_id[i];
        for (size_t j = 0; j < u->ninsts[i]; j++)
            if (u->code[i][j].ctrl.valid)
                has_ctrl = 1;
    }
    /* no launch costs: the microbenchmarks time regions with clocks */
    if ((rc = dm_sm_launch(&gpu.sms[0], NULL, u, 0, (uint64_t)1 << 36,
                           has_ctrl, 0, d)) != 0)
        goto out;
    sm_awaken(&gpu, 0);
    uint64_t c = 0, last_prog = 0;
    for (;;) {
        uint64_t next;
        int busy = gpu_cycle(&gpu, c, &last_prog, &next);
        if (gpu.nev >= 4096)
            event_flush(&gpu, 0);
        if (gpu.err) {
            rc = gpu.err;
            goto out;
        }
        if (!busy)
            break;
        if ((rc = watchdog_check(&gpu, c, &last_prog)) != 0)
            goto out;
        if (gpu.o.max_cycles && c >= gpu.o.max_cycles) {
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                             "detailed model: max_cycles %llu reached",
                             (unsigned long long)gpu.o.max_cycles);
            goto out;
        }
        c = next_cycle(&gpu, c, next, last_prog);
    }
    event_flush(&gpu, 1);
    if (gpu.err) {
        rc = gpu.err;
        goto out;
    }
    r->cycles = gpu.last_done;
    collect(&gpu, r->stall, NULL);
    r->events = gpu.ev;
    r->nevents = gpu.nev;
    gpu.ev = NULL;
out:
    gpu_fini(&gpu);
    if (rc)
        dm_ubench_result_free(r);
    return rc;
}

void dm_ubench_result_free(dm_ubench_result *r)
{
    if (!r)
        return;
    if (r->clocks)
        for (unsigned i = 0; i < r->nwarps; i++)
            free(r->clocks[i]);
    free(r->clocks);
    free(r->nclocks);
    free(r->warp);
    free(r->subcore);
    free(r->events);
    memset(r, 0, sizeof *r);
}

void dm_chrome_begin(dm_chrome *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    wc_json_begin(&w->j, f, 0);
    wc_json_obj(&w->j, NULL);
    wc_json_arr(&w->j, "traceEvents");
}

void dm_chrome_kernel(dm_chrome *w, unsigned pid, const char *name,
                      uint64_t offset, unsigned nsub)
{
    w->pid = pid;
    w->offset = offset;
    w->nsub = nsub ? nsub : 1;
    if (w->named)
        memset(w->named, 0, w->nnamed);
    wc_json_ws(&w->j, "\n");
    wc_json_obj(&w->j, NULL);
    wc_json_str(&w->j, "name", "process_name");
    wc_json_str(&w->j, "ph", "M");
    wc_json_uint(&w->j, "pid", pid);
    wc_json_obj(&w->j, "args");
    wc_json_str(&w->j, "name", name);
    wc_json_obj_end(&w->j);
    wc_json_obj_end(&w->j);
    wc_json_ws(&w->j, "\n");
    wc_json_obj(&w->j, NULL);
    wc_json_str(&w->j, "name", "process_sort_index");
    wc_json_str(&w->j, "ph", "M");
    wc_json_uint(&w->j, "pid", pid);
    wc_json_obj(&w->j, "args");
    wc_json_uint(&w->j, "sort_index", pid);
    wc_json_obj_end(&w->j);
    wc_json_obj_end(&w->j);
}

int dm_chrome_event(void *ctx, const dm_event *e)
{
    dm_chrome *w = ctx;
    size_t tid = (size_t)e->sm * w->nsub + e->subcore;
    if (tid >= w->nnamed) {
        size_t n = (tid + 1) * 2;
        uint8_t *x = realloc(w->named, n);
        if (!x) {
            w->oom = 1;
            return WC_EINTERNAL;
        }
        memset(x + w->nnamed, 0, n - w->nnamed);
        w->named = x;
        w->nnamed = n;
    }
    if (!w->named[tid]) {
        char nm[64];
        w->named[tid] = 1;
        snprintf(nm, sizeof nm, "SM %u sub-core %u", e->sm, e->subcore);
        wc_json_ws(&w->j, "\n");
        wc_json_obj(&w->j, NULL);
        wc_json_str(&w->j, "name", "thread_name");
        wc_json_str(&w->j, "ph", "M");
        wc_json_uint(&w->j, "pid", w->pid);
        wc_json_uint(&w->j, "tid", tid);
        wc_json_obj(&w->j, "args");
        wc_json_str(&w->j, "name", nm);
        wc_json_obj_end(&w->j);
        wc_json_obj_end(&w->j);
    }
    char pc[32];
    snprintf(pc, sizeof pc, "0x%llx", (unsigned long long)e->pc);
    wc_json_ws(&w->j, "\n");
    wc_json_obj(&w->j, NULL);
    wc_json_str(&w->j, "name", e->op);
    wc_json_str(&w->j, "ph", "X");
    wc_json_uint(&w->j, "ts", e->cycle + w->offset);
    wc_json_uint(&w->j, "dur", 1);
    wc_json_uint(&w->j, "pid", w->pid);
    wc_json_uint(&w->j, "tid", tid);
    wc_json_obj(&w->j, "args"); /* sm, sub-core: the thread's name */
    wc_json_uint(&w->j, "warp", e->warp);
    wc_json_uint(&w->j, "cta", e->cta);
    wc_json_str(&w->j, "pc", pc);
    wc_json_obj_end(&w->j);
    wc_json_obj_end(&w->j);
    return ferror(w->j.f) ? WC_EINTERNAL : 0;
}

int dm_chrome_end(dm_chrome *w, wc_diag *d)
{
    wc_json_ws(&w->j, "\n");
    wc_json_arr_end(&w->j);
    wc_json_str(&w->j, "displayTimeUnit", "ns");
    wc_json_obj_end(&w->j);
    wc_json_end(&w->j);
    free(w->named);
    w->named = NULL;
    w->nnamed = 0;
    if (w->oom)
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "out of memory (timeline)");
    if (ferror(w->j.f))
        return wc_diag_set(d, WC_EINTERNAL, "", 0, 0,
                           "cannot write the timeline");
    return 0;
}

int dm_write_chrome_trace(const dm_event *ev, size_t n, FILE *f, wc_diag *d)
{
    dm_chrome w;
    unsigned nsub = 1;
    for (size_t i = 0; i < n; i++)
        if (ev[i].subcore + 1 > nsub)
            nsub = ev[i].subcore + 1;
    dm_chrome_begin(&w, f);
    dm_chrome_kernel(&w, 1, "detailed model", 0, nsub);
    for (size_t i = 0; i < n; i++)
        dm_chrome_event(&w, &ev[i]);
    return dm_chrome_end(&w, d);
}
