/*
 * model/im_int.h - private header shared by the interval model's files.
 *
 *   im_kernel.c  im_run_kernel / im_run_insts: CTA stream -> result, CPI
 *   im_warp.c    one warp's stream -> per-phase solo time, demands, stack
 *   im_mem.c     coalescing, bank conflicts, functional L1 / L2 caches
 *   im_sched.c   SMs as processor-sharing servers of resident CTAs
 *
 * Data flow of one CTA:
 *
 *   dispatch (im_sched: earliest free SM slot, one CTA per cta_dispatch)
 *      |  SM s, slot q  ->  sub-core of warp w = assign(q * wpc + w)
 *      v
 *   for each warp: im_warp_run  (solo timeline; L1 of SM s, shared L2)
 *      |  phase p: solo time L[w][p], components, demand D[p][resource]
 *      v
 *   im_cta: T_alone = sum_p max(max_w L[w][p], max_r D[p][r] + E[p][r])
 *           + overheads   (E: lead + tail of the warps using r, im_warp.c)
 *      |  queueing: memory stall x (1 + k rho/(1-rho)), GPU-wide bandwidth
 *      v
 *   im_sched: the CTA joins SM s; all CTAs of an SM progress at
 *             1 / max(1, max_r sum_c D_c[r] / T_c)   (uniform slowdown)
 */
#ifndef IM_INT_H
#define IM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "im.h"
#include "ua.h"
#include "wc.h"

#define IM_MAXSUB UA_MAX_SUBCORES
#define IM_NREG 544          /* R, UR, P, UP ids of wc.h                  */
#define IM_MAX_PHASES 65536  /* barriers beyond this merge into the last */
#define IM_MEMQ_MAX 72      /* mem_queue_entries + mem_latch_entries bounds */

/* Resources of an SM: per sub-core issue, per sub-core pipe per latency
 * class, per sub-core memory address unit; SM-shared memory structures and
 * the shared FP64 unit. */
enum {
    IM_R_ISSUE = 0,
    IM_R_UNIT = IM_MAXSUB,
    IM_R_MEMSUB = IM_R_UNIT + IM_MAXSUB * WC_LAT_COUNT,
    IM_R_BANK = IM_R_MEMSUB + IM_MAXSUB, /* [sub][bank]: RF read port   */
    IM_R_SMMEM = IM_R_BANK + IM_MAXSUB * UA_MAX_BANKS,
    IM_R_FP64SM,
    IM_R_SMCONST,       /* own constant port (mem_const_ii > 0)         */
    IM_NRES
};
#define IM_RU(s, lc) (IM_R_UNIT + (s) * WC_LAT_COUNT + (lc))

/* Parameters read once per run from the config: the decoded ua_core and
 * what the walker reads most, in its units. */
typedef struct im_par {
    ua_core core;
    double lat[WC_LAT_COUNT], ii[WC_LAT_COUNT];
    ua_mem_rows rows;         /* seed 000 Table 2 (uarch)                 */
    double l1_lat, l2_lat, dram_lat;
    double atom_op; /* cycles one op holds its address at the L2 (issue 11) */
    double shared_ii, l1_line_cycles, wavefront_cycles;
    double const_ii;          /* > 0: LDC on its own SM port (IM_R_SMCONST) */
    double sub_ii_r, sub_ii_u, dispatch, sub_latency;
    int memq;                 /* queue + latch entries per sub-core      */
    int banks, ports, rfc;    /* register file                            */
    double read_window;       /* cycles to read operands after issue      */
    double dram_req_service;  /* one request at one DRAM channel, cycles  */
    double l2_req_service;
    int nsub, fp64_shared;
    int use_ctrl_auto, force_ctrl, force_sb;
    unsigned line_bytes, sector_bytes, l2_line_bytes;
    unsigned shmem_banks, shmem_bank_bytes;
    double l2_bw, dram_bw;    /* bytes per cycle for the modelled SMs     */
    double queue_k, rho_max, overlap, barrier_cycles;
    double cta_overhead, cta_warp_overhead, cta_dispatch, launch;
    int assign;               /* 0 rr, 1 srr, 2 shuffle                   */
    /* instruction fetch: per-SM L1 icache with a stream buffer */
    int icache_on;
    unsigned iline;
    long il1_size, il1_assoc;
    double il1_lat, il1_miss;
    unsigned isbuf;
    /* constant operands: L0 FL per sub-core, L1 per SM (cold misses) */
    int const_on;
    unsigned cline;
    double c_l0_miss, c_l1_miss;
} im_par;

int im_par_init(im_par *p, const wc_gpu *g, long sms, wc_diag *d);

/* ---- im_mem.c ------------------------------------------------------------ */

/* A cache of uarch/ua_mem.h (NULL: not made yet). */
typedef struct im_cache {
    ua_cache *c;
} im_cache;

int im_cache_init(im_cache *c, const ua_cache_geom *geom);
void im_cache_free(im_cache *c);

/* Result of one memory instruction. */
typedef struct im_macc {
    int level;          /* 0 shared/const, 1 L1, 2 L2, 3 DRAM              */
    unsigned lines, sectors, wavefronts;
    unsigned l1_hit_sectors, l2_hit_sectors, dram_sectors;
    double l2_bytes, dram_bytes;
} im_macc;

/* Global/local access of class cl through the SM's L1 (may be NULL: no
 * L1) and the L2. */
void im_mem_global(const im_par *p, im_cache *l1, im_cache *l2,
                   const wc_inst *in, const ua_mem_class *cl, im_macc *a);
/* Shared memory wavefronts. */
unsigned im_mem_wavefronts(const im_par *p, const wc_inst *in);

/* Code lines an SM has fetched or prefetched, with the kernel time each
 * arrives (the L1 icache, taken as large enough for a kernel's code), and
 * the stream buffer's window. */
typedef struct im_icode {
    uint64_t *line;     /* line + 1, 0 = empty slot                        */
    double *ready;
    size_t cap, n;
    uint64_t sb_line;   /* stream buffer: lines sb_line+1 .. sb_end follow */
    uint64_t sb_end;    /* the last miss (sb_line) in sequence             */
    int oom;            /* 1: a line could not be remembered (out of
                           memory): the run fails (im_run_kernel) rather
                           than take it as a hit later                     */
} im_icode;

int im_icode_init(im_icode *c);
void im_icode_free(im_icode *c);
/* Kernel time at which `line` is in the SM's icache when first asked for
 * at kernel time `now` (may schedule a fill). */
double im_icode_fetch(im_icode *c, const im_par *p, uint64_t line,
                      double now);
/* Same table without the stream buffer: a first touch costs `cost`. */
double im_lines_fetch(im_icode *c, uint64_t line, double now, double cost);

/* ---- im_warp.c ----------------------------------------------------------- */

#define IM_ATOM_TAB 4096

/* Per-CTA accumulation, filled warp by warp. */
typedef struct im_cta_acc {
    size_t nphases, cap;
    double *lmax;       /* [phase] max solo time over warps                */
    double *crit;       /* [phase][IM_CPI_COUNT] components of that warp   */
    double *dem;        /* [phase][IM_NRES] demand                         */
    double *edge;       /* [phase][IM_NRES] sum over warps of own demand x
                           (lead + tail) on the resource: see im_warp.c    */
    double warp_total_max; /* max over warps of the sum of its phases      */
    double l2_bytes, dram_bytes;
    /* first L2 / DRAM access of the CTA (cycles after its start) and the
     * least time from the last one's data to the end of its warp */
    double first_l2, first_dram, post_l2, post_dram;
    /* atomics (issue 11): the longest time from a warp's end to its last
     * atomic performed at the L2 (the kernel waits for it), and, over the
     * whole kernel (not reset per CTA), the ops per address (direct-mapped
     * table, IM_ATOM_TAB) and their maximum */
    double atom_tail;
    uint64_t *atom_addr;
    uint32_t *atom_cnt;
    uint32_t atom_max;
    uint64_t insts, intervals;
    uint64_t l1_hits, l2_hits, dram_sectors;
    ua_counts cnt;      /* order-independent counts of the CTA (uarch)     */
} im_cta_acc;

void im_cta_reset(im_cta_acc *a);
void im_cta_free(im_cta_acc *a);

/* One warp's instruction source: 1 and *r pointing at the next *n >= 1
 * instructions (valid until the next call; wc_cta_next_refs: an r[i].in
 * may be a binary trace's static record, whose mask is r[i].mask), 0 at
 * the end, < 0 on error.  Pointers, not copies: a record is about 400
 * bytes, most of them lane addresses that only memory instructions read;
 * batches: one call per batch, not per instruction. */
#define IM_BATCH 256
/* Records decoded into the walker's buffers per batch (the binary reader's
 * strided full warps: a batch no longer ends at each global access). */
#define IM_NBUF 16
typedef int (*im_next_fn)(void *ctx, const wc_iref **r, size_t *n,
                          wc_diag *d);

/* What the walker needs of a static instruction, worked out once per PC
 * and kernel (im_warp.c, memo_get): everything below depends only on the
 * record's static fields (op .. depbar_ids, iflags less the per-instance
 * HAS_ADDR / PRED_OFF bits), which the entry keeps and compares, so a PC
 * whose record differs (another kernel's code, a hand-made trace) is
 * recomputed, never misread. */
#define IM_MEMO_N 4096          /* direct-mapped entries, by pc / 16      */
#define IM_SREG_IN 24           /* registers kept inline (more: scratch)  */
#define IM_KEY_OFF offsetof(wc_inst, op)
#define IM_KEY_LEN (offsetof(wc_inst, depbar_ids) + 1 - IM_KEY_OFF)
#define IM_KEY_W (IM_KEY_LEN / 8) /* compared as words, the rest as bytes */
typedef struct im_rd {
    wc_reg r;
    uint8_t b, sl, reuse;       /* bank, RF-cache slot, reuse bit         */
} im_rd;
typedef struct im_static {
    uint64_t pc;
    uint32_t sid;               /* static record number (wc_iref.sid)     */
    /* the walk's per-instance reads first (one line with pc and sid): the
     * record's control bits and flags, decoded here once, not per warp
     * instruction from the record (a second line) */
    uint8_t lc, mk, fixed;
    uint8_t rfc_dyn;            /* RF-cache lookups: reads[] per instance
                                   (!mk: memory reads no bank here)      */
    uint8_t bmask;              /* banks read (static reads[])            */
    uint8_t rd_dup;             /* rd[] names a register twice            */
    uint8_t ctrl_valid;         /* ctrl.valid                             */
    int8_t wbar, rbar;          /* ctrl.wbar, ctrl.rbar, 0-5 or -1        */
    int8_t depbar_wait;         /* DEPBAR.LE SBx, 0: x, else -1           */
    uint8_t constop, uniform;   /* WC_IF_CONSTOP, WC_IF_UADDR             */
    double stall;               /* ctrl.stall, at least 1                 */
    uint64_t iline;             /* pc / p->iline (instruction fetch)      */
    unsigned opflags;           /* wc_opinfo flags                        */
    double lat;                 /* ua_inst_lat (fixed / variable pipes)   */
    ua_mem_class mcl;           /* mk != 0                                */
    unsigned reads[UA_MAX_BANKS]; /* register-bank reads (!rfc_dyn)       */
    double dreads[UA_MAX_BANKS];  /* the same as doubles                  */
    uint8_t wait_sb[6], nwait;    /* dependence counters waited on         */
    unsigned nrd, nsreg, ndreg;
    const im_rd *rd;            /* operand reads in order (rfc_dyn)       */
    const wc_reg *sreg, *dreg;  /* scoreboard registers, in loop order    */
    uint64_t key[IM_KEY_W];     /* the static bytes, masked (im_warp.c)  */
    unsigned char key_tail[IM_KEY_LEN - IM_KEY_W * 8 + 1];
    im_rd rd_in[IM_SREG_IN];
    wc_reg sreg_in[IM_SREG_IN], dreg_in[IM_SREG_IN];
} im_static;

/*
 * The warp memo (im_warp.c).  A warp's walk is a function of its
 * instructions (static record number and mask of each), the outcome of its
 * memory accesses as the walk reads them (level, lines, sectors,
 * wavefronts, whether L2 / DRAM bytes moved: the caches are asked in
 * instruction order before the walk, so they see the same sequence), its
 * sub-core, the warps sharing it, and the waits its requests to the SM's
 * instruction and constant caches get.  A warp whose instructions and
 * outcomes equal a recorded one's makes the recorded requests at its own
 * times (changing the caches as its walk would); when every wait equals the
 * recorded one it adds the recorded result to its CTA instead of being
 * walked: the same numbers, bit for bit (the memo on and off give
 * identical results: test_warp_memo).  Only binary traces have static
 * record numbers; text traces are always walked.
 */
#define IM_WM_SLOTS 256     /* recorded warps per kernel run (by hash,
                               two ways)                                 */
#define IM_WM_SLOTS_LONG 16 /* ... of them (two ways) for a warp of more
                               than IM_WM_SHORT instructions or
                               IM_WM_SHORT_MEM memory outcomes: the
                               memo's memory stays under about 15 MB     */
#define IM_WM_SHORT 256
#define IM_WM_SHORT_MEM 64
#define IM_WM_RECENT 16     /* slots last stored or recalled: templates   */
#define IM_WM_MAXI 16384    /* longest warp buffered and recorded        */
#define IM_WM_MAXU 4096     /* records with addresses copied per warp    */
#define IM_WM_MAXRAW 65536  /* encoded stream bytes kept per warp        */
#define IM_WM_KNOWN 64      /* cache answers wm_check keeps (power of 2) */
#define IM_WM_CLEAN 2048    /* clean checks wm_check keeps (power of 2)  */

typedef struct im_wm_res {
    double own, edge;   /* demand on resource r, its edge term           */
    uint32_t r;
} im_wm_res;
typedef struct im_wm_phase {
    double len, comp[IM_CPI_COUNT];
    uint32_t idx, nres;
} im_wm_phase;
/* What a warp adds to its CTA besides the per-phase terms. */
typedef struct im_wm_sum {
    double l2_bytes, dram_bytes;
    uint64_t l1_hits, l2_hits, dram_sectors, intervals, insts;
    double first_l2, first_dram, post_l2, post_dram, atom_tail, total;
    ua_counts cnt;
} im_wm_sum;
/* A request a warp made of its SM's instruction cache (a new code line) or
 * constant caches (a constant operand), in walk order, with the wait it
 * got: the walk is a function of its instructions and these waits. */
typedef struct im_wm_ev {
    uint64_t line;
    double rel;         /* warp time of the request                      */
    double wait;        /* ready - now, when ready > now                 */
    uint8_t konst, waited;
} im_wm_ev;
/* An instruction with lane addresses in a recorded warp's encoded stream
 * (the template, im_warp.c): its number in the warp and its bytes. */
typedef struct im_wm_seg {
    uint32_t idx, beg, end;
} im_wm_seg;
/* The wavefronts of a template's shared-memory access (im_wm.wf): n, or
 * UINT32_MAX where it is not one; its active lanes' addresses lie in
 * [lo, lo + span] with their bytes below 2^62 (ok 1: a count that moving
 * every lane by whole rows of banks keeps while they stay there; near
 * 2^64 the count clips a lane's bytes, uarch/ua_mem_shared.c). */
typedef struct im_wm_wf {
    uint64_t lo, span;
    uint32_t n;
    int ok;
} im_wm_wf;
typedef struct im_wm {
    int full, sub;
    uint64_t gen;       /* this recording's number in the run (1, 2 ..)  */
    uint64_t hash;
    unsigned share_sub, share_sm;
    size_t n, naux, nev, nph, nres;
    size_t cap_n, cap_aux, cap_ev, cap_ph, cap_res;
    uint64_t *seq;      /* sid << 32 | mask, per instruction              */
    uint64_t *aux;      /* memory outcomes, two words per memory inst.    */
    im_wm_ev *ev;       /* the cache requests, in order                   */
    im_wm_phase *ph;
    im_wm_res *res;
    im_wm_sum s;
    /* binary traces: the warp's encoded stream as it was read (raw), and,
     * once worked out (tmpl 1; -1: cannot serve), where its instructions
     * with addresses sit in it and the bytes its n instructions take: a
     * later warp whose stream has the same bytes outside those
     * instructions has the same instructions (im_warp.c, fast_collect) */
    unsigned char *raw;
    size_t nraw, cap_raw, raw_used, nseg, cap_seg, cap_dec, cap_wf, cap_rt;
    int tmpl;
    im_wm_seg *seg;
    wc_inst *dec;       /* [nseg]: those instructions decoded: a later
                           warp's that repeat their bytes after the address
                           base are these, moved to its base
                           (wc_cta_raw_moved)                              */
    wc_rawtmpl *rt;     /* [nseg]: their bytes (wc_rawtmpl_prep)          */
    uint32_t *ioff;     /* [n + 1]: where each instruction starts in raw  */
    uint8_t *iexp;      /* [n]: 1 where its bytes give its mask           */
    size_t cap_ioff, cap_iexp;
    im_wm_wf *wf;       /* [nseg]: dec[j]'s wavefronts                    */
} im_wm;


typedef struct im_walker {
    const im_par *p;
    int use_ctrl;       /* this kernel: control bits drive dependences    */
    im_cache *l1, *l2;
    /* every warp starts at time base (the same for all: a warp's walk
     * depends on its instructions, not on where the walker stood) */
    double base;
    int reg_dirty;      /* reg_ready / reg_war hold a warp's times        */
    double reg_ready[IM_NREG];
    uint8_t reg_cause[IM_NREG];
    double reg_war[IM_NREG];
    double sb_ready[6];
    uint8_t sb_cause[6];
    double unit_free[WC_LAT_COUNT];
    double memq[IM_MEMQ_MAX];
    double addr_free;
    wc_reg rfc[UA_MAX_BANKS][UA_RFC_SLOTS]; /* RF cache: [bank][operand slot] */
    double bank_next[UA_MAX_BANKS]; /* next free read slot of each RF bank */
    double vbank_next[UA_MAX_BANKS]; /* same, variable-latency reads     */
    struct im_icode *ic; /* this SM's code lines (NULL: perfect fetch)     */
    double cta_t;       /* kernel time at which the current CTA started   */
    im_icode *cl1;      /* this SM's constant lines (L1 constant cache)   */
    im_icode *cl0;      /* per sub-core L0 FL constant caches of this SM  */
    unsigned share_sub; /* warps of the current CTA on this warp's sub-core */
    unsigned share_sm;  /* warps of the current CTA                        */
    /* this warp's demand in the current phase (own), the time it first
     * could be served less what the sharing warps ask meanwhile (lead) and
     * its last use (last), per resource; used lists the resources */
    double own[IM_NRES], lead[IM_NRES], last[IM_NRES];
    uint16_t used[IM_NRES];
    unsigned nused;
    wc_inst in[IM_NBUF]; /* decoding buffers of a trace source           */
    im_static *memo;    /* [IM_MEMO_N], allocated by the first warp       */
    uint8_t *memo_full; /* [IM_MEMO_N]: 1 where memo[i] is filled         */
    /* per static record number (a binary trace's sid) met so far: 1 an
     * instruction without a memory path (its mask keys the warp memo by
     * whether a lane is active), 2 one with it, 0 not met (im_warp.c,
     * key_word) */
    uint8_t *sid_kind;
    size_t sid_kind_n;
    uint64_t kmask[IM_KEY_W]; /* key bytes that count (all but per-instance
                                 iflags bits)                            */
    wc_inst minst;      /* a static record with this instance's mask      */
    /* warp memo: the table ([IM_WM_SLOTS] + one being recorded), whether
     * the warp being walked is recorded, its buffered instructions, copies
     * of those with addresses, their memory outcomes */
    int wm_on;
    im_wm *wm;
    int wm_rec;
    wc_iref *wbuf;
    size_t wbuf_cap;
    wc_inst *wcopy;     /* [IM_WM_MAXU] */
    uint8_t *wmoved;    /* [IM_WM_MAXU]: tmpl_match: wcopy[j] is its
                           template's dec[j] moved by wdelta[j], or will
                           be (TM_* in im_warp.c)                         */
    uint64_t *wdelta;   /* [IM_WM_MAXU]                                   */
    /* [IM_WM_MAXU] (tmpl_match): a shared-memory access read by its bytes
     * but not decoded (TM_RAW in im_warp.c): where it starts, and its
     * wavefronts or the wfc slot they are to fill */
    struct im_wseg *wseg;
    /* speed only: shared-memory accesses' wavefronts by their bytes
     * (record, mask, tag, base, lane offsets: the same instruction),
     * direct-mapped; a kernel whose warps index a shared array alike in
     * every CTA but not moved from one warp to the next (im_warp.c, wfc_*) */
    struct im_wfc *wfc;
    uint64_t wfc_gen;
    struct im_wov {     /* tmpl_match: instruction idx of the warp has   */
        uint32_t idx, mask; /* mask, not its template's (tmpl_fill)       */
    } *wov;
    size_t nov, wov_cap;
    im_macc *waux;
    size_t waux_cap;
    uint64_t *wkey;     /* what the walk reads of waux (two words each)   */
    size_t wkey_cap;
    uint32_t *wat;      /* [memory outcome]: its instruction in wbuf      */
    size_t wat_cap;
    uint64_t wm_hits, wm_stored; /* warps recalled, recorded            */
    uint16_t wm_recent[IM_WM_RECENT]; /* slots last stored or recalled,
                                          latest first (tmpl_find)       */
    unsigned wm_nrecent;
    uint64_t wm_found;  /* lookups that found the warp's instructions     */
    /* requests already made for the warp being walked (a recall that
     * stopped at a request whose wait differed): their waits, in order */
    im_wm_ev *pre;
    /* wm_check's answers of this SM's caches to requests that changed
     * nothing, by line (IM_WM_KNOWN, direct-mapped; valid in check kgen):
     * see im_warp.c, wm_check */
    struct im_wm_known {
        uint64_t key;       /* line << 1 | konst                          */
        uint64_t gen;
        uint64_t sb_line, sb_end; /* the stream buffer then              */
        double r, r1;       /* ready (constant: L0 and L1)                */
    } *known;
    uint64_t kgen;
    /* wm_check's clean checks (every wait 0 and nothing changed in the
     * caches), by recorded warp and SM sub-core (IM_WM_CLEAN,
     * direct-mapped): the caches' counts then and the CTA's start */
    struct im_wm_clean {
        uint64_t gen;       /* the recorded warp's im_wm.gen (0: empty)   */
        const im_icode *ic, *cl0;
        size_t n_ic, n_cl1, n_cl0;
        uint64_t sb_line, sb_end;
        double cta_t;
    } *clean;
    uint64_t wm_gen;    /* the last im_wm.gen given                       */
    size_t npre, pre_cap, iev;
    /* binary traces: the CTA the warp comes from (NULL: another source)
     * and its number there, for fast_collect; the warp's encoded stream
     * while it is walked (raw_p NULL: none) */
    wc_cta *raw_cta;
    unsigned raw_w;
    const unsigned char *raw_p;
    size_t raw_len;
    wc_inst *tscratch;  /* a decoding buffer for templates               */
    im_static *big;     /* one record too large for an entry (scratch)    */
    im_rd *big_rd;
    wc_reg *big_sreg, *big_dreg;
} im_walker;

/* Frees the walker's memo (not the walker). */
void im_walker_free(im_walker *w);

/* Walk one warp on sub-core `sub`; adds to acc.  *insts, *cycles get the
 * warp's instruction count and solo time. */
int im_warp_run(im_walker *w, int sub, im_next_fn next, void *ctx,
                im_cta_acc *acc, uint64_t *insts, double *cycles,
                wc_diag *d);

/* ---- im_sched.c ---------------------------------------------------------- */

typedef struct im_rcta {
    double vfin;        /* virtual finish time                            */
    double rate[IM_NRES]; /* natural demand rates D[r] / T (set for the
                             nz[0 .. nnz) resources with a demand only)  */
    uint16_t nz[IM_NRES];
    int nnz;
    double l2_rate, dram_rate;
    double arrive, T;   /* real arrival time, solo time                  */
    int slot;
} im_rcta;

typedef struct im_sm {
    double t, v, slow;
    double next;        /* real time of the next completion (cached)     */
    int n;
    im_rcta *c;
    double sum[IM_NRES];
    /* the resources whose sum changed since it was last cleared (all
     * others hold 0): tch[0 .. ntch), a bit each in tbit */
    uint16_t tch[IM_NRES];
    int ntch;
    uint64_t tbit[(IM_NRES + 63) / 64];
    double busy, last_change;
    unsigned char *slot_used;
} im_sm;

typedef struct im_sched {
    im_sm *sm;
    long nsm;
    int slots;
    double l2_rate, dram_rate; /* natural demand of resident CTAs (GPU)   */
    double t_dispatch;         /* time of the last dispatch               */
    double end;                /* latest completion                       */
    long rr;
    /* speed (the same picks as a scan over the SMs): a tournament tree
     * over the SMs' next completions (tw[1] the earliest, ties to the
     * lower SM; leaves at tw[tp + i]), and per resident count c the SMs
     * holding c CTAs (bitmap lv[c * lw ..], lvn[c] of them) */
    long *tw, tp;
    uint64_t *lv;
    long *lvn;
    size_t lw;
    uint64_t dispatched;
    double contention;         /* sum over CTAs of (actual - solo) time    */
} im_sched;

int im_sched_init(im_sched *s, long nsm, int slots);
void im_sched_free(im_sched *s);
/* out = a deep copy of s (0, or -1 out of memory: out empty). */
int im_sched_clone(const im_sched *s, im_sched *out);
/* Time of the next dispatch and the SM / slot it goes to. */
void im_sched_pick(im_sched *s, double cta_dispatch, long *sm, int *slot,
                   double *t);
/* Add a CTA dispatched at t to sm/slot with solo time T, SM demands and
 * natural (uncontended) L2 / DRAM byte rates. */
void im_sched_add(im_sched *s, long sm, int slot, double t, double T,
                  const double *dem, double l2_rate, double dram_rate);
/* Run every SM to completion; returns the last completion time. */
double im_sched_drain(im_sched *s);

#endif /* IM_INT_H */
