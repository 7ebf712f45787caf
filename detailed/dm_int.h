/*
 * detailed/dm_int.h - private header of the detailed (cycle-level) layer.
 *
 * Shared only by the detailed/ sources.  Owns the data structures of the SM model
 * (seed 000 sections 4-6) and THE BOUNDARY between the sub-core pipeline
 * (dm_*.c, owner H4a) and the memory subsystem (mem_*.c, owner H4b).
 *
 * The memory boundary is detailed/mem.h (H4b wrote it first; this layer
 * follows it).
 *
 * ------------------------------------------------------------------------
 * One SM, one sub-core shown (x4, subcores_per_sm).  Every stage has one
 * tick; the SM ticks memory first, then each sub-core back to front
 * (write-back first, fetch last), so a stage sees the room the later stages
 * freed this cycle.  Queues are bounded, sizes from the config.
 *
 *            shared by the 4 sub-cores                       per sub-core
 *   +--------------------+   arbiter     +---------------+
 *   | L1 icache (SM)     |<--------------| L0 icache     |<-- stream buffer
 *   +--------------------+   1 req/cy    | (icache.c)    |    (icache_sb_lines)
 *                                        +-------+-------+
 *                                                | 1 instr / cycle
 *                                        FETCH (fetch.c) greedy on the last
 *                                                | issued warp, else youngest
 *                                        DECODE   with ibuffer room
 *                                                v
 *                          per warp: INSTRUCTION BUFFER (ibuffer_entries = 3)
 *                                                |
 *   L0 FL const cache <- tag check --  ISSUE (issue.c) CGGTY | GTO | LRR | RBA
 *   (mem: const_probe)                 eligibility: stall counter, yield,
 *                                      SB0-5 wait mask, DEPBAR.LE, unit
 *                                      input latch, mem queue room, barrier,
 *                                      scoreboard (dep_mode)
 *                                                | 1 instr / cycle
 *                                        CONTROL (control.c) SB increments
 *                                                | (visible next cycle), clock read
 *                     fixed latency  +-----------+-----------+ variable latency
 *                                    v                       v
 *            ALLOCATE (alloc.c) reserve the RF      memory: pushed at issue    
 *            read ports of the next 3 cycles        other (MUFU, DFMA, conv):
 *            (RFC first); hold and stall             vq -> RF read when ports
 *            upward when it cannot                   free (fixed first)
 *                                    |                       |
 *            RF: 2 banks x 1 read port (1024 bit), RFC 2 banks x 3 slots
 *                                    v                       v
 *            EXECUTE (exec.c) fixed latency units    memory events WAR / RAW  
 *            result queue: fixed writes never wait   var WB waits for a free
 *                                    |               write port (fixed first)
 *                                    +-----------+-----------+
 *                                                v
 *                                  WRITE-BACK: 1 write port per bank,
 *                                  SB decrements (WAR at read, RAW at WB)
 * ------------------------------------------------------------------------
 *
 * Cycle conventions (the numbers the tests assert depend on them):
 *   - An instruction issued in cycle t sits in Control in cycle t+1 (its
 *     clock value, CS2R SR_CLOCKLO, is t+1) and in Allocate from t+2.
 *   - Allocate in cycle c reserves read slots in cycles c+1..c+3.
 *   - SB increments done in Control (t+1) are seen by issue from t+2.
 *   - A stall counter S set by an instruction issued at t lets the warp
 *     issue again at t+S (S = 0 behaves as 1).
 */
#ifndef DM_INT_H
#define DM_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dm.h"
#include "ua.h"
#include "wc.h"

/* ======================================================================== */
/* Memory subsystem: detailed/mem.h (owner H4b) is the boundary.            */
/* ======================================================================== */
/*
 * The core uses: dm_l2_create/free (one per GPU), dm_mem_create/free (one
 * per SM), and per SM cycle c, in this order:
 *     dm_mem_tick(m, c); dm_mem_poll(m, c, ...)  -> WAR / RAW events
 *     sub-core stages back to front; at issue (cycle t) of a memory
 *     instruction: dm_mem_can_accept(m, sc) then dm_mem_push(m, sc, in,
 *     warp slot, tag, t); for a fixed-latency instruction with a constant
 *     operand: dm_mem_const_probe (ready cycle; issue waits, switching warp
 *     after const_miss_switch cycles).
 * Event cycles are the first cycle a waiting instruction may issue.  A RAW
 * event whose destination bank write port is taken by a fixed-latency
 * result that cycle is delayed (seed 000 5.3: the load loses).
 */
#include "mem.h"

/* ======================================================================== */
/* Core model (owner H4a)                                                   */
/* ======================================================================== */

#define DM_RING 8          /* per-warp instruction slots (ibuffer + pipe)   */
#define DM_RING_BUF (DM_RING + 1) /* decode buffers per warp: the ring's
                              and the look-ahead's, used in turn          */
#define DM_RING_FRONT 3    /* ring slots beyond the ibuffer (pipeline front) */
#define DM_FETCH_TO_IBUF 2 /* fetched in c, decoded in c+1, in the ibuffer
                              (issuable) from c+2 (seed 000 5.2)          */
#define DM_MAX_SUBCORES UA_MAX_SUBCORES
#define DM_MAX_BANKS UA_MAX_BANKS
#define DM_RFC_SLOTS UA_RFC_SLOTS /* seed 000 5.3.1 (uarch/ua_core.h)      */
#define DM_CAL 256         /* calendar rings (cycles); latencies must be less */
#define DM_SB 6            /* dependence counters SB0..SB5                  */
#define DM_SBL_MAX 48      /* scoreboard-mode pending entries per warp      */
#define DM_NO_WARP 0xffffffffu
#define DM_MAX_WARPS 256   /* SM warp slots (max_warps_per_sm bound)        */
#define DM_WMASK (DM_MAX_WARPS / 64) /* words of a per-position bit set     */
/* hwhy of a warp woken by sm.c mq_wake (hint 0, dm_shortcuts only): it slept
 * on a full memory queue with every other condition of eligible() met, and
 * nothing it depends on got worse since, so it is eligible exactly when the
 * queue has room (issue.c elig tests that without reading the warp).  A
 * raise of its counters (sm.c, Control's pending increments) turns it back
 * into a full test; dm_wake keeps it (a counter went down). */
#define DM_HW_QREADY 0xffu

/* Policy names are parsed once by uarch (ua_core_decode). */
enum { DM_POL_CGGTY = UA_POL_CGGTY, DM_POL_GTO = UA_POL_GTO,
       DM_POL_LRR = UA_POL_LRR, DM_POL_RBA = UA_POL_RBA };
enum { DM_DEP_AUTO = UA_DEP_AUTO, DM_DEP_CTRL = UA_DEP_CTRL,
       DM_DEP_SCOREBOARD = UA_DEP_SCOREBOARD };

/* Per-run parameters, read once from the wc_gpu (all timing from data/):
 * the decoded ua_core and flat copies of what the stages read most. */
typedef struct dm_params {
    ua_core core;
    unsigned nsub, ibuf, banks, read_ports, write_ports, read_window;
    int rfc;
    int policy, assign, dep;
    unsigned icache_line, inst_bytes, l0i_lines, l0i_assoc, l1i_lines,
        l1i_assoc, sb_lines, l1i_lat, l1i_miss_lat;
    unsigned icache_shift;   /* log2 icache_line when a power of two, else 0 */
    int icache_perfect;
    unsigned const_switch;
    int mem_oldest;          /* mem_issue_oldest (issue.c) */
    unsigned quirk_above, quirk_cycles, exit_yield_stall;
    unsigned vq_entries;
    unsigned sb_consumers;
    uint64_t watchdog;
    long lat[WC_LAT_COUNT], ii[WC_LAT_COUNT];
    int fp64_shared;
    long max_warps, max_ctas;
    /* launch model (common/keys_launch.def): GPU-wide dispatch interval,
     * per-CTA and per-warp slot time (0: none) */
    double cta_dispatch, cta_ovh, cta_warp_ovh;
} dm_params;

/* The icache line of code address a (speed only: a shift for the usual
 * power-of-two line, not a division per fetched instruction). */
static inline uint64_t dm_code_line(const dm_params *p, uint64_t a)
{
    return p->icache_shift ? a >> p->icache_shift : a / p->icache_line;
}

/* One fetched instruction in a warp's ring, kept in the warp's hot lines
 * (dm_warp.sh, by ring index % DM_RING).  Its record is the trace's static
 * one when the instruction has no lane addresses and is not a memory
 * instruction (the trace's table: shared by every warp, nothing copied),
 * else a decoded copy in the warp's cold buf[] (speed only). */
typedef struct dm_shot {
    uint64_t ready;   /* cycle it is decoded and in the ibuffer              */
    const wc_inst *in;
    uint8_t wait;     /* ctrl.wait when ctrl.valid, else 0                   */
    int8_t depbar_sb;
    uint8_t depbar_le, depbar_ids;
    uint8_t lc;       /* latency class                                       */
    uint8_t ismem;    /* 1 handled by the memory subsystem                   */
    uint8_t nounit;   /* NOP, DEPBAR...: no execution unit                   */
    uint8_t constop;  /* fixed latency with a c[][] operand (const_wait)     */
    uint8_t busy;     /* 1 until it leaves Control (var) / Allocate (fixed)  */
    uint8_t varlat;   /* 1 variable latency                                  */
    uint8_t bufi;     /* the cold decode buffer in points to (x->buf[bufi]),
                         DM_NO_BUF for a static record                       */
    uint8_t smask;    /* a memory instruction on its static record: the
                         memory unit takes it with mask (a header copy made
                         at issue, on the stack) */
    uint32_t mask;    /* its active lanes (smask)                            */
    /* bufi DM_PRE_BUF: the lines (wavefronts) of the memory instruction,
     * found at fetch (speed only: its issue reads this line and the shared
     * static header, not the decoded record, cold again by then) */
    dm_mem_pre pre;
} dm_shot;
_Static_assert(sizeof(dm_shot) == 64, "dm_shot: a ring slot a line");
#define DM_NO_BUF 0xffu
/* dm_shot.bufi of a memory instruction whose lane addresses were reduced
 * at decode to what the memory unit takes (dm_shot.pre);
 * its in is the static header (dm_hdr_get), with mask (smask) */
#define DM_PRE_BUF 0xfeu
#define DM_LAQ 4          /* dm_warp.laq: instructions read at once        */
#define DM_HDR 256        /* dm_gpu.hdr: static headers kept               */

/* Scoreboard-mode pending entry (dep_mode scoreboard, seed 000 Table 7). */
typedef struct dm_sbe {
    uint16_t reg;     /* first register                                      */
    uint8_t n;        /* registers                                           */
    uint8_t write;    /* 1 pending write (RAW/WAW), 0 pending read (WAR)     */
    uint64_t tag;     /* in-flight id, 0 for fixed-latency writes            */
    uint64_t ready;   /* cycle the entry clears, UINT64_MAX until known      */
} dm_sbe;

/* What a warp needs only when it fetches, issues or retires an instruction
 * (the ring's full records, the look-ahead, scoreboard entries): kept apart
 * from dm_warp so that the per-cycle scans read a few hundred bytes per
 * warp instead of 5 KB (speed only; sm->wcold, by warp slot). */
typedef struct dm_wcold {
    /* scoreboard mode (scoreboard.c); first, in the line of the first two
     * entries: a release (a memory event, long after the warp's state left
     * the host caches) reads the one line mostly (speed only) */
    _Alignas(64) unsigned nsbl;
    uint64_t sbmin;          /* speed only: at most the least ready of
                                sbl[0..nsbl); when above 0, exactly it     */
    dm_sbe sbl[DM_SBL_MAX];
    size_t ev[DM_RING];      /* timeline index + 1 of a ring slot, 0 = none
                                (written and read with a timeline only)    */
    /* decoded records (dm_warp.bufk: the look-ahead's): a ring slot holds
     * its buffer until it retires (dm_warp.bufuse), and the look-ahead
     * takes the lowest free one, so that a warp cycles through two or
     * three of them rather than all nine (speed only: the decoded records
     * of the whole GPU are megabytes, far beyond the host caches) */
    wc_inst buf[DM_RING_BUF];
} dm_wcold;

typedef struct dm_warp {
    /* hot: read by issue and fetch every cycle (first cache line, with a
     * copy of the eligibility fields of the next instruction to issue,
     * sh[iss % DM_RING], valid when iss != tail: nx_*) */
    _Alignas(64) int8_t live; /* slot holds a warp                           */
    int8_t done;             /* finished: nothing left, nothing in flight    */
    int8_t at_bar;           /* waiting at a CTA barrier                     */
    int8_t sbmode;           /* scoreboard dependence tracking               */
    int8_t la_valid;         /* look-ahead holds the next instruction        */
    int8_t src_end;          /* no more instructions to fetch                */
    int8_t prev_exit;        /* previous issued instruction was EXIT         */
    uint8_t sb[DM_SB];       /* dependence counters (visible)                */
    uint8_t nx_wait;
    int8_t nx_depbar_sb;
    uint8_t nx_depbar_le;
    uint32_t head;           /* oldest busy ring slot                        */
    uint32_t iss;            /* next to issue                                */
    uint32_t tail;           /* next free                                    */
    uint8_t nx_depbar_ids, nx_lc, nx_ismem, nx_nounit;
    uint64_t stall_until;    /* may issue from this cycle                    */
    uint64_t la_line;        /* icache line of the look-ahead (la_valid)     */
    uint64_t nx_ready;
    uint8_t sub;             /* sub-core                                     */
    uint8_t spos;            /* index in its sub-core's warps[] (position) */
    uint8_t yld;             /* the last issue set yield with a stall of 1:
                                it may not issue in cycle stall_until       */
    unsigned outstanding;    /* variable-latency instructions in flight      */
    dm_shot sh[DM_RING];     /* the ring: instruction buffer + pipeline front */
    /* warm, what Fetch reads of a warp each time (speed only: two host
     * lines, this and the look-ahead queue's, where the fields in
     * declaration order took three) */
    _Alignas(64) const wc_inst *la; /* look-ahead: next instruction to fetch
                                (a static record or x->buf[bufk])          */
    dm_wcold *x;             /* the cold part (sm->wcold[slot])              */
    /* instruction source: ubench array or trace stream */
    const wc_inst *code;
    wc_cta *tcta;
    uint64_t pcbase;         /* kernel code base (distinct kernels, lines)   */
    uint32_t la_mask;        /* its mask (a static record's is not)          */
    uint8_t laq_n, laq_i;    /* queued, taken (laq)                         */
    uint8_t laq_pre;         /* the last queued one is on la_pre             */
    uint8_t bufk;            /* the look-ahead's decode buffer               */
    uint8_t la_pre_ok;       /* the look-ahead is a memory instruction on its
                                static header (dm_gpu.hdr) with la_pre     */
    uint16_t bufuse;         /* bit i: x->buf[i] held by a ring slot         */
    unsigned stream;
    unsigned cta;            /* SM CTA slot                                  */
    /* speed only: the next instructions of the trace stream, read DM_LAQ
     * at a time (one call of the reader, which finds the stream's state
     * cold, for a few instructions); only the last can have been decoded
     * (then on la_pre, or in x->buf[bufk]).  Record and mask side by side,
     * in one host line.  (16 at a time: callgrind -1.4 %, but the larger
     * warp gave more host cache misses than the reads it saved.) */
    _Alignas(64) const wc_inst *laq_in[DM_LAQ];
    uint32_t laq_mask[DM_LAQ];
    /* speed only: where the next refill reads first (its stream's state
     * and next byte, wc_cta_next_addrs), prefetched with the CTA when the
     * last queued instruction is taken; in the queue's line */
    const void *laq_pf[2];
    uint64_t age;            /* launch sequence: larger = younger            */
    unsigned id;             /* warp id in its CTA (ubench: .warp N)         */
    unsigned uidx;           /* ubench warp index                            */
    dm_mem_pre la_pre;       /* la_pre_ok: its lanes' part (fetch.c)         */
    size_t ncode, pos;
    uint64_t *clocks;        /* ubench clock values                          */
    size_t nclocks, capclocks;
} dm_warp;
_Static_assert(offsetof(dm_warp, sh) == 64, "dm_warp: hot fields in line 0");
_Static_assert(offsetof(dm_warp, cta) < offsetof(dm_warp, la) + 64 &&
                   offsetof(dm_warp, age) - offsetof(dm_warp, laq_in) <= 64,
               "dm_warp: Fetch's fields in two lines");
_Static_assert(DM_RING_BUF <= 16, "dm_warp.bufuse: a bit per decode buffer");

/* Copy the eligibility fields of w's next instruction to line 0 (after
 * iss or tail moved). */
static inline void dm_next_load(dm_warp *w)
{
    if (w->iss == w->tail)
        return;
    const dm_shot *h = &w->sh[w->iss % DM_RING];
    w->nx_ready = h->ready;
    w->nx_wait = h->wait;
    w->nx_depbar_sb = h->depbar_sb;
    w->nx_depbar_le = h->depbar_le;
    w->nx_depbar_ids = h->depbar_ids;
    w->nx_lc = h->lc;
    w->nx_ismem = h->ismem;
    w->nx_nounit = h->nounit;
}

/* With control bits: the next instruction of w waits for its dependence
 * counters (wait mask, DEPBAR.LE).  Valid when iss != tail. */
static inline int dm_dep_blocked(const dm_warp *w)
{
    unsigned m = w->nx_wait;
    for (unsigned i = 0; m; i++, m >>= 1)
        if ((m & 1u) && w->sb[i])
            return 1;
    if (w->nx_depbar_sb >= 0 && w->nx_depbar_sb < DM_SB) {
        if (w->sb[w->nx_depbar_sb] > w->nx_depbar_le)
            return 1;
        for (unsigned i = 0; i < DM_SB; i++)
            if (((w->nx_depbar_ids >> i) & 1u) && w->sb[i])
                return 1;
    }
    return 0;
}

/* A latch between stages: the warp and ring slot of its instruction. */
typedef struct dm_latch {
    unsigned warp;           /* DM_NO_WARP when empty                        */
    uint32_t slot;           /* ring index                                   */
    uint64_t issue;          /* issue cycle                                  */
    uint64_t tag;            /* in-flight id (variable latency)              */
    int seen;                /* Control actions done                         */
} dm_latch;

/* Non-memory variable-latency instruction (MUFU, DFMA, conversions...). */
typedef struct dm_vop {
    unsigned warp;
    uint64_t tag;
    uint8_t lc;
    long lat;
    uint8_t nbank[DM_MAX_BANKS]; /* read slots still needed per bank        */
    uint8_t wbanks;              /* destination banks (mask)                */
    uint64_t issue;
} dm_vop;

/* Pending variable-latency write-back (memory or vop). */
typedef struct dm_wb {
    uint64_t tag;
    uint8_t banks;     /* bit mask of banks written                          */
    uint64_t cycle;    /* earliest write cycle                               */
} dm_wb;

/* In-flight variable-latency instruction record, indexed by tag. */
typedef struct dm_fl {
    unsigned warp;
    int8_t rbar, wbar;
    uint8_t banks;     /* destination banks                                  */
    uint8_t hasdst;    /* a RAW event will come                              */
    uint8_t war_done, raw_done;
    /* the counters of Control are raised the cycle after it (pend_sb), but a
     * release may come first when the configured WAR/RAW time is 0 (fuzz
     * found a deadlock): a release before the raise cancels that raise */
    uint8_t raise_pending, wbar_done;
    uint8_t used;
    uint32_t gen;      /* generation: tag = gen << 32 | index               */
} dm_fl;

/* Register file cache entry (seed 000 5.3.1): one per bank and slot. */
typedef struct dm_rfce {
    unsigned warp;     /* DM_NO_WARP = invalid                               */
    uint16_t reg;
} dm_rfce;

/* Speed only: the register reads of an instruction's regular source
 * operands as dm_rfc_access goes through them, worked out once per static
 * record (dm_smemo_ops): entry i reads register reg of bank `bank` for
 * operand slot `slot`; uid numbers the distinct registers (a register read
 * twice is read once).  live: the slots below 8 of operands other than RZ;
 * nop: the regular source operands. */
#define DM_RFC_OPS (WC_MAX_SRC * 4)
typedef struct dm_rfcops {
    uint8_t nop, n, live, ok; /* ok 0: more reads than e[] holds (not used) */
    struct {
        uint8_t reg, bank, slot, uid;
    } e[DM_RFC_OPS];
} dm_rfcops;

typedef struct dm_icache dm_icache;
typedef struct dm_l1i dm_l1i;
#define DM_IC_SETS 64 /* dm_sub.ic_known: L0 icaches of more sets keep none */

typedef struct dm_sub {
    /* first: what the SM tick reads of every sub-core every cycle
     * (sm.c sub_quiet) */
    uint64_t qlim;           /* speed only: quiet before this cycle, 0: not
                                quiet (dm_sub_requiet; sm.c sub_quiet)    */
    uint64_t issue_idle_until;
    uint64_t wbq_min;        /* earliest cycle of a wbq entry (MAX: none)    */
    uint64_t cal_done;       /* rd / wr slots of cycles before it cleared    */
    unsigned nwarps;
    unsigned vq_n;
    int pend_warp;           /* SB increments of Control, visible next cycle */
    int8_t pend_sb[2];
    uint64_t pend_tag;       /* the instruction whose counters are pending  */
    /* speed only, never a result: Issue found no eligible warp and every
     * warp is hinted past issue_idle_until (reason issue_idle_why); Fetch
     * found no warp with room (fetch_idle), or no line of a warp with room
     * ready before fetch_until (fetch.c fetch_sleep; 0: none).  Cleared by
     * whatever can change that (dm_wake, issue, a released ring slot,
     * warps arriving or leaving). */
    uint64_t fetch_until;
    uint8_t issue_idle_why;
    uint8_t fetch_idle;
    uint8_t had_warps;       /* a warp ran here: cal / rfc may be dirty
                                (dm_sm_reuse clears them only then)        */
    uint8_t mq_sleep;        /* speed only: a warp may sleep (hint
                                UINT64_MAX) on a full memory queue; sm.c
                                wakes such warps when the queue has room  */
    uint8_t qwhy_now;        /* speed only: the reason of a quiet cycle now
                                (dm_sub_requiet)                          */
    uint8_t qwhy;            /* speed only: quiet cycles (sm.c sub_quiet)
                                not yet in stall[]: qn of reason qwhy (in
                                this line: the quiet path leaves stall[]'s
                                line alone; run.c collect adds them)       */
    uint64_t qn;
    dm_latch ctrl;           /* Control latch                                */
    dm_latch alloc;          /* Allocate latch                               */
    unsigned idx;
    unsigned *warps;         /* SM warp slots on this sub-core               */
    unsigned ibuf;           /* ibuffer_entries (dm_params.ibuf)             */
    unsigned calw;           /* bytes of a cycle in cal: 2 x rf_banks        */
    /* speed only, by position in warps[] (dm_warp.spos): Issue's scans look
     * only at awake warps (every warp whose hint is not UINT64_MAX has its
     * bit; a stale bit only costs a look), Fetch's at warps that want a
     * fetch (dm_wants; kept exact, checked again when used) */
    uint64_t awake[DM_WMASK];
    uint64_t fwant[DM_WMASK];
    /* speed only: positions of warps that went to sleep on a full memory
     * queue (sm.c mq_wake looks only at these; a stale bit costs a look) */
    uint64_t mqw[DM_WMASK];
    unsigned last_issued;    /* warp slot of the last issue, DM_NO_WARP      */
    /* speed only (fetch.c ic_present): per L0 icache set (ic_sets of them,
     * 0: not kept), line + 1 of the line the last full access of that set
     * touched (0: none) and the cycle its fill is ready.  A full access
     * leaves its line in the L0 (a hit, or inserted from the stream buffer
     * or by a miss) as the set's most recently used way, its ready cycle
     * fixed, until the next full access of the set; so another access of
     * it (a hit, ready or not) would change nothing the cache's later
     * answers depend on */
    unsigned ic_sets;
    struct dm_ic_known {
        uint64_t line, ready;
    } ic_known[DM_IC_SETS];
    unsigned lrr_next;
    unsigned const_warp;     /* warp blocking issue on a const miss          */
    unsigned const_cycles;
    dm_vop *vq;
    unsigned vq_cap;
    dm_wb *wbq;
    unsigned wbq_n, wbq_cap;
    uint64_t unit_free[WC_LAT_COUNT];  /* input latch free from this cycle  */
    dm_icache *l0i;
    uint64_t stall[DM_STALL_COUNT];
    uint64_t issued;
    /* large arrays last: the fields above share a few cache lines */
    dm_rfce rfc[DM_MAX_BANKS][DM_RFC_SLOTS];
    /* per cycle (index cycle % DM_CAL): the reserved read slots of each
     * bank, then the writes of each bank (calw = 2 x rf_banks bytes); the
     * few cycles a tick reads or clears share one host cache line instead
     * of one line per bank and kind, and only calw x DM_CAL bytes are
     * ever touched (speed only; dm_rd / dm_wr) */
    uint8_t cal[DM_CAL * 2 * DM_MAX_BANKS];
} dm_sub;

/* Reserved read slots / writes of bank b in cycle x. */
static inline uint8_t *dm_rd(dm_sub *s, unsigned b, uint64_t x)
{
    return &s->cal[(x % DM_CAL) * s->calw + b];
}
static inline uint8_t *dm_wr(dm_sub *s, unsigned b, uint64_t x)
{
    return &s->cal[(x % DM_CAL) * s->calw + s->calw / 2 + b];
}

typedef struct dm_cta_slot {
    int live;
    int pending;             /* dispatched, warps start at cycle start      */
    uint64_t start;
    uint64_t pcbase;         /* kept for the start of a pending CTA         */
    int has_ctrl;
    wc_cta *cta;             /* trace CTA (NULL for ubench)                 */
    uint64_t num;            /* CTA number in the run                       */
    unsigned nwarps, done, at_bar;
    unsigned *slots;         /* SM warp slots of its warps                  */
} dm_cta_slot;

typedef struct dm_gpu dm_gpu;

typedef struct dm_sm {
    unsigned id;
    dm_gpu *gpu;
    const dm_params *p;
    const wc_gpu *g;
    dm_sub sub[DM_MAX_SUBCORES];
    dm_warp *warps;          /* max_warps_per_sm slots (64-byte aligned)     */
    void *warps_mem;         /* the block warps lies in (free this)          */
    dm_wcold *wcold;         /* their cold parts, by slot                    */
    unsigned nslots;
    dm_cta_slot *ctas;
    unsigned nctas;
    unsigned live_ctas, live_warps; /* pending CTAs included             */
    unsigned npending;       /* CTAs dispatched whose warps have not started */
    unsigned pend_subs;      /* speed only: bit i when sub[i].pend_warp may
                                be >= 0 (set by Control, cleared by the
                                next tick, which handles them)           */
    uint64_t next_start;     /* earliest start of a pending CTA              */
    uint64_t warps_assigned; /* W of the assignment hash (seed 001)          */
    uint64_t fp64_free;      /* shared FP64 unit (fp64_shared)               */
    dm_mem *mem;
    dm_l1i *l1i;
    dm_fl *fl;               /* in-flight var-lat records, by tag            */
    uint32_t capfl;
    uint32_t *flfree;
    uint32_t nflfree;
    dm_mem_event evbuf[64];
    uint64_t last_progress;
    /* speed only: every sub-core is quiet (sm.c sub_quiet) in the cycles
     * sleep_from .. wake-1 unless a memory event or a CTA launch comes;
     * their stall counts are added when the SM wakes.  0: awake. */
    uint64_t wake, sleep_from;
    uint64_t mem_next;       /* asleep: dm_mem_next_cycle, skip mem before */
    uint64_t mem_quiet;      /* awake: dm_mem_quiet_until after the memory
                                events of the cycle, 0 after a push or a
                                tick while asleep: skip mem before         */
    /* issue hints per warp slot: not eligible before hint[w] (reason
     * hwhy[w]); UINT64_MAX until an event wakes it (dm_wake) */
    uint64_t *hint;
    uint8_t *hwhy;
    /* speed only: the position (dm_warp.spos) of each warp slot's warp, so
     * that Issue's fast paths need not read the warp */
    uint8_t hpos[DM_MAX_WARPS];
    /* speed only: warp slots below DM_MAX_WARPS whose warp is live (the
     * free slot search of cta_start reads no warp) */
    uint64_t slot_live[DM_WMASK];
    /* kept across runs (run.c's per-thread pool, dm_sm_reuse): warp slots
     * used so far, allocated sizes of the arrays */
    unsigned warps_hw;
    uint32_t capfl_alloc;
    unsigned nsub_alloc, vq_alloc;
} dm_sm;

static inline void dm_bit_put(uint64_t *m, unsigned i, int on)
{
    uint64_t b = (uint64_t)1 << (i & 63);
    if (on)
        m[i >> 6] |= b;
    else
        m[i >> 6] &= ~b;
}

/* The highest bit of m below position below, or -1. */
static inline int dm_bit_prev(const uint64_t *m, int below)
{
    if (below <= 0)
        return -1;
    int wd = (below - 1) >> 6;
    uint64_t x = m[wd];
    if ((below & 63) != 0)
        x &= ((uint64_t)1 << (below & 63)) - 1;
    for (;;) {
        if (x)
            return wd * 64 + 63 - __builtin_clzll(x);
        if (--wd < 0)
            return -1;
        x = m[wd];
    }
}

/* A walk over the set bits of m[] below position n, highest first (all:
 * every position below n, whatever m holds).  Speed only: each word is
 * read once, when the walk reaches it, rather than once a bit (dm_bit_prev
 * from each position was 2.5% of the host instructions on the synthetic
 * shared-memory kernel); so a change to a word the walk already read is
 * not seen.  Issue's and Fetch's scans change no bit but the one of the
 * position they are at, so they see what dm_bit_prev would. */
typedef struct dm_bitwalk {
    const uint64_t *m;
    uint64_t x;     /* bits of word wd not yet visited */
    int wd, all;
} dm_bitwalk;

static inline void dm_bitwalk_init(dm_bitwalk *it, const uint64_t *m, int n,
                                   int all)
{
    it->m = m;
    it->all = all;
    it->wd = n > 0 ? (n - 1) / 64 : -1;
    it->x = 0;
    if (it->wd >= 0) {
        it->x = all ? ~(uint64_t)0 : m[it->wd];
        if (n % 64)
            it->x &= ((uint64_t)1 << (n % 64)) - 1;
    }
}

/* The next position of the walk, or -1 when it is done. */
static inline int dm_bitwalk_next(dm_bitwalk *it)
{
    while (!it->x) {
        if (--it->wd < 0)
            return -1;
        it->x = it->all ? ~(uint64_t)0 : it->m[it->wd];
    }
    int b = 63 - __builtin_clzll(it->x);
    it->x &= ~((uint64_t)1 << b);
    return it->wd * 64 + b;
}

/* Something a waiting warp may depend on changed (counter, barrier). */
static inline void dm_wake(dm_sm *sm, unsigned wi)
{
    const dm_warp *w = &sm->warps[wi];
    dm_sub *s = &sm->sub[w->sub];
    sm->hint[wi] = 0;
    s->issue_idle_until = 0;
    s->qlim = 0; /* a warp here: not quiet (dm_sub_requiet) */
    dm_bit_put(s->awake, w->spos, 1);
}

/* Fetch would take an instruction of w (room in its ibuffer and ring). */
static inline int dm_wants(unsigned ibuf, const dm_warp *w)
{
    return w->live && !w->done && w->la_valid && w->tail - w->iss < ibuf &&
           w->tail - w->head < DM_RING;
}

/* w's ibuffer, ring or look-ahead changed. */
static inline void dm_want_update(dm_sub *s, const dm_warp *w)
{
    dm_bit_put(s->fwant, w->spos, dm_wants(s->ibuf, w));
}

/* Warps of s changed (launch, finish, ring slots): recompute Issue and
 * Fetch next cycle. */
static inline void dm_sub_touch(dm_sub *s)
{
    s->issue_idle_until = 0;
    s->fetch_idle = 0;
    s->fetch_until = 0;
    s->qlim = 0;
}

/* Speed only.  The cycle before which s is quiet: no warp in its Control or
 * Allocate latch or vector queue, Fetch idle (or waiting for icache fills
 * until fetch_until), no writeback due and Issue idle (issue_idle_until)
 * or without warps; 0 when not quiet.  sm.c's tick
 * tests `c < qlim` where it tested those six fields (twice a sub-core and
 * cycle: 4.5% of the host instructions on a shared-memory kernel); every
 * change of one of them calls this (or sets qlim 0 where the change makes
 * s busy), and WC_CHECKS builds compare the two (sm.c sub_quiet). */
static inline uint64_t dm_sub_qlim(const dm_sub *s)
{
    if ((!s->fetch_idle && !s->fetch_until) || s->ctrl.warp != DM_NO_WARP ||
        s->alloc.warp != DM_NO_WARP || s->vq_n != 0)
        return 0;
    uint64_t q = s->wbq_min;
    if (s->nwarps && s->issue_idle_until < q)
        q = s->issue_idle_until;
    if (!s->fetch_idle && s->fetch_until < q)
        q = s->fetch_until;
    return q;
}
static inline void dm_sub_requiet(dm_sub *s)
{
    s->qlim = dm_sub_qlim(s);
    /* the reason a quiet cycle counts (sm.c): with qlim, from the same
     * fields (nwarps changes only where qlim becomes 0) */
    s->qwhy_now = s->nwarps ? s->issue_idle_why : DM_STALL_IDLE;
}

#define DM_SMEMO 128      /* struct dm_gpu: smemo */
#define DM_PF_EPOCH 4096  /* struct dm_gpu: pf_on */
#define DM_PF_TRIAL 4
#define DM_PF_KEEP 48
#define DM_WHEEL 1024             /* struct dm_gpu: timing wheel's buckets */
#define DM_SM_NOPOS UINT32_MAX    /* struct dm_gpu: sm_pos */
#define DM_SM_WHEEL (UINT32_MAX - 1)

struct dm_gpu {
    const wc_gpu *g;
    dm_params p;
    dm_options o;
    dm_sm *sms;
    unsigned nsms;
    dm_l2 *l2;
    struct dm_pool *pool;    /* the per-thread pool the SMs came from       */
    uint64_t seq;            /* warp launch sequence                         */
    wc_rng rng;
    int ubench;
    dm_event *ev;            /* timeline (streaming: the events not yet sent) */
    uint8_t *evfin;          /* per ev: complete (operands read)             */
    size_t nev, capev;
    size_t ev_base;          /* events already sent to o.sink                */
    uint64_t insts, ctas_done, cta_launched;
    uint64_t insts_by_unit[WC_UNIT_COUNT]; /* issued, per unit (counts) */
    uint64_t **uclk;         /* ubench: clocks per warp (moved at the end)   */
    size_t *nuclk;
    unsigned *usub;
    uint64_t last_done;      /* cycle the last warp finished                 */
    uint64_t now;
    wc_diag *d;
    int err;                 /* first error (WC_E*), 0 none                  */
    /* speed only: per SM (index), the first cycle gpu_cycle must look at
     * it (0: every cycle; UINT64_MAX with busy 0: idle until a launch,
     * which resets it), whether it was busy, and whether it waits for a CTA
     * start (progress for the watchdog).  An SM asleep (dm_sm_next) is not
     * touched before that cycle: its tick would return at once. */
    struct dm_sm_at {
        uint64_t at;
        uint8_t busy, pend;
    } *sm_at;
    /* speed only: which SMs gpu_cycle looks at (an SM is in one of three
     * states): awake (at 0: every cycle; bit set in sm_aw), asleep (never
     * touched before at) or idle until a launch (neither).  A sleeper
     * waking within DM_WHEEL cycles is in the timing wheel: its bit in
     * sm_wb's bucket at % DM_WHEEL (sm_words words each; sm_wsum: the
     * non-empty buckets); one waking later is in the min-heap sm_hp on at
     * and moves to the wheel when it comes within DM_WHEEL cycles.  sm_pos:
     * an SM's heap position, DM_SM_WHEEL in the wheel, DM_SM_NOPOS awake
     * or idle.  Every cycle ticks the awake SMs and the sleepers due, in
     * SM order (sm_due), instead of scanning all SMs.  sm_aw holds
     * 2 * sm_words words: the awake set, then gpu_cycle's scratch (the set
     * due).  sm_nwheel: SMs in the wheel; sm_nsleep_pend: sleepers waiting
     * for a CTA start. */
    uint64_t *sm_aw, *sm_wb;
    uint64_t sm_wsum[DM_WHEEL / 64];
    unsigned *sm_hp, *sm_pos, *sm_due;
    unsigned sm_nhp, sm_nwheel, sm_nsleep_pend, sm_words;
    /* speed only: whether gpu_cycle prefetches the SMs' state.  That pays
     * where the busy SMs' state is beyond the host caches and costs ~8%
     * host instructions where it is not, which depends on the host and the
     * kernel: measured (run.c: pf_epoch) by thread CPU time per SM tick in
     * alternating epochs of DM_PF_EPOCH ticks with and without it
     * (DM_PF_TRIAL each), then the faster for DM_PF_KEEP epochs, again. */
    int pf_on;
    unsigned pf_phase;
    uint64_t pf_ticks, pf_t0, pf_ns[2], pf_nt[2];
    /* speed only: copies of the static headers (every field before addr,
     * line 0, mask of the first instance) of memory instructions with lane
     * addresses, by static record number % DM_HDR; a copy is used only for
     * a record whose header equals it but for the mask, and never freed
     * before the run ends (ring slots point to it) */
    wc_inst *hdr[DM_HDR];
    /* speed only: every warp's next instruction is decoded here first
     * (one host-cache-hot record for the GPU) and copied to the warp's
     * decode buffer only when a ring slot must hold it (fetch.c) */
    wc_inst *dec;
    /* speed only: dm_smemo_get's entries (direct mapped by record address) */
    struct dm_smemo {
        const wc_inst *in;   /* NULL: empty                                 */
        uint8_t banks;       /* dm_dst_banks(in)                            */
        uint8_t has_cl;      /* cl holds dm_mem_classify(in)                */
        uint8_t has_ops;     /* smemo_ops[] holds dm_rfcops_make(in)        */
        dm_mem_class cl;
    } smemo[DM_SMEMO];
    dm_rfcops smemo_ops[DM_SMEMO]; /* apart: the entries stay small */
    /* dm_quantum (docs/model-detailed.md, "Quantum"): gpu_cycle runs each
     * SM through cycles [c, c + quantum) before the next SM, so that an
     * SM's state is loaded into the host caches once a quantum instead of
     * once a cycle; 1 (kernels with dm_quantum 0, and microbenchmarks):
     * every SM every cycle, exact.  idle_at: the latest cycle + 1 at which
     * an SM's tick left it idle (the kernel's end, quantum > 1). */
    uint64_t quantum, idle_at;
    int shortcuts;           /* dm_shortcuts: 0 = every stage of every busy
                                SM ticks every cycle (no skipping, sleeping,
                                jumps, awake sets or hints)                  */
};

/* ---- params.c ---- */
int dm_params_load(const wc_gpu *g, dm_params *p, wc_diag *d);
long dm_inst_lat(const dm_params *p, const wc_inst *in, unsigned lc);
long dm_inst_ii(const dm_params *p, const wc_inst *in, unsigned lc);

/* ---- icache.c: L0 per sub-core + stream buffer, L1 per SM ---- */
dm_l1i *dm_l1i_create(const dm_params *p);
void dm_l1i_free(dm_l1i *c);
dm_icache *dm_icache_create(const dm_params *p, dm_l1i *l1);
void dm_icache_free(dm_icache *c);
/* 1 when the line is present in cycle c; 0 on a miss (requests and
 * stream-buffer prefetches are started as needed).  probe_only: no side
 * effects. */
int dm_icache_access(dm_icache *c, uint64_t line, uint64_t cycle,
                     int probe_only);
/* The first cycle from which a probe of line finds it ready, as long as no
 * full access changes c: its fill time in the L0, else in the stream
 * buffer; UINT64_MAX when it is in neither (0: a perfect cache). */
uint64_t dm_icache_when(dm_icache *c, uint64_t line);
/* Sets of c (a line's set: line % sets); 0 for a perfect cache. */
unsigned dm_icache_sets(const dm_icache *c);

/* ---- sm.c ---- */
int dm_sm_init(dm_gpu *gpu, dm_sm *sm, unsigned id);
/* 1 when sm's arrays have the sizes gpu's parameters need */
int dm_sm_fits_arrays(const dm_gpu *gpu, const dm_sm *sm);
/* sm as dm_sm_init leaves it, on its arrays (a run may have used it) */
int dm_sm_reuse(dm_gpu *gpu, dm_sm *sm, unsigned id);
/* Free the trace CTAs an SM still holds (a run that stopped early). */
void dm_sm_drop_ctas(dm_sm *sm);
void dm_sm_fini(dm_sm *sm);
void dm_sm_tick(dm_sm *sm, uint64_t c);
/* Speed only, never a result: start loading into the host caches the
 * lines of sm (nsub sub-cores) that its next tick reads.  gpu_cycle calls
 * it a few SMs ahead: stage 0 the SM's own lines, stage 1 and 2 (later,
 * once those are in) what its pointers lead to. */
void dm_sm_prefetch(const dm_sm *sm, unsigned nsub, int stage);
/* Leave the sleep of dm_sm_tick before cycle c (count the stalls). */
void dm_sm_wake(dm_sm *sm, uint64_t c);
/* After the tick of cycle c: the next cycle the SM may act in (c + 1
 * unless it sleeps; a launch wakes it). */
uint64_t dm_sm_next(const dm_sm *sm, uint64_t c);
int dm_sm_busy(const dm_sm *sm);
void dm_sm_dump(const dm_sm *sm, char *buf, size_t n);
/* Can the SM take one more CTA of nwarps warps now, with at most occ of
 * them resident (occ: uarch's ua_ctas_per_sm, the one occupancy rule)? */
int dm_sm_fits(const dm_sm *sm, unsigned nwarps, unsigned occ);
/* Launch a CTA: either the warps of a trace CTA or of a microbenchmark.
 * Its slot is taken now (gpu->now; dm_sm_fits said it fits); its warps
 * start in cycle start (>= now: the CTA's launch overhead,
 * keys_launch.def). */
int dm_sm_launch(dm_sm *sm, wc_cta *cta, const wc_ubench *u, uint64_t num,
                 uint64_t pcbase, int has_ctrl, uint64_t start, wc_diag *d);
/* In-flight records: tags carry a generation so that a late event of a
 * finished instruction never lands on the record's next user. */
uint64_t dm_fl_alloc(dm_sm *sm);
/* The record of tag; NULL when stale or unknown.  Inline (speed only:
 * every memory event, write-back and Control step asks, 1.3% of the host
 * instructions on copy2 as a call). */
static inline dm_fl *dm_fl_get(dm_sm *sm, uint64_t tag)
{
    uint32_t i = (uint32_t)(tag & 0xffffffffu);
    if (i == 0 || i >= sm->capfl || !sm->fl[i].used ||
        sm->fl[i].gen != (uint32_t)(tag >> 32))
        return NULL;
    return &sm->fl[i];
}
/* Free f, the record of tag (dm_fl_get(sm, tag) == f). */
static inline void dm_fl_put(dm_sm *sm, dm_fl *f, uint64_t tag)
{
    f->used = 0;
    sm->flfree[sm->nflfree++] = (uint32_t)(tag & 0xffffffffu);
}
static inline void dm_fl_release(dm_sm *sm, uint64_t tag)
{
    dm_fl *f = dm_fl_get(sm, tag);
    if (f)
        dm_fl_put(sm, f, tag);
}
/* Mark warp slot wi done when it has nothing left and nothing in flight
 * (dm_warp_check_done: its usual "not yet" answer inline, speed only). */
void dm_warp_check_done_full(dm_sm *sm, unsigned wi);
static inline void dm_warp_check_done(dm_sm *sm, unsigned wi)
{
    const dm_warp *w = &sm->warps[wi];
    if (w->src_end && w->iss == w->tail) /* else it has more to issue */
        dm_warp_check_done_full(sm, wi);
}
/* Release the barrier of CTA slot cta when every live warp arrived. */
void dm_bar_check(dm_sm *sm, unsigned cta);
/* A ring slot's instruction left the pipeline front (alloc.c). */
void dm_release_slot(dm_sub *s, dm_warp *w, uint32_t idx);
void dm_fail(dm_gpu *gpu, int code, const char *what);

/* ---- stage ticks (one file each), back to front ---- */
/* Handle the n events already in sm->evbuf, then poll for more. */
void dm_mem_events(dm_sm *sm, uint64_t c, size_t n);         /* exec.c    */
void dm_writeback_tick(dm_sm *sm, dm_sub *s, uint64_t c);   /* exec.c    */
void dm_vq_tick(dm_sm *sm, dm_sub *s, uint64_t c);          /* exec.c    */
void dm_alloc_tick(dm_sm *sm, dm_sub *s, uint64_t c);       /* alloc.c   */
void dm_control_tick(dm_sm *sm, dm_sub *s, uint64_t c);     /* control.c */
void dm_issue_tick(dm_sm *sm, dm_sub *s, uint64_t c);       /* issue.c   */
void dm_fetch_tick(dm_sm *sm, dm_sub *s, uint64_t c);       /* fetch.c   */
/* Read the next instruction of w's stream into its look-ahead (fetch.c). */
int dm_warp_next(dm_sm *sm, dm_warp *w);

/* ---- register file (alloc.c) ---- */
static inline unsigned dm_bank(const dm_params *p, unsigned reg)
{
    return ua_bank(&p->core, reg);
}
/* Banks written by the destination registers of in (mask). */
uint8_t dm_dst_banks(const dm_params *p, const wc_inst *in);
/* RFC lookup for the regular sources of in read by warp: per-operand hit
 * flags (hit may be NULL) and per-bank register reads still needed.  When
 * commit is set the RFC is updated (allocation by reuse bits, invalidation
 * of the slots read).  Returns the number of regular source operands. */
unsigned dm_rfc_access(const dm_params *p, dm_sub *s, unsigned warp,
                       const wc_inst *in, uint8_t *hit,
                       uint8_t nbank[DM_MAX_BANKS], int commit);

/* Speed only.  What the stages derive from an instruction's static fields
 * alone (destination banks; the memory class, made on first use), kept by
 * record address for the run.  Only for records that stay put and unchanged
 * while the run lasts: the trace's static records, the kept headers
 * (dm_gpu.hdr, never freed before the run ends) and microbenchmark code,
 * i.e. a ring slot whose bufi is DM_NO_BUF or DM_PRE_BUF (dm_shot_static);
 * never a decode buffer, whose record changes.  Exact: the memo is the
 * function's value on the same fields.  (The class was 1.3% and the banks
 * 0.7% of the host instructions on copy2, callgrind.) */
static inline struct dm_smemo *dm_smemo_get(dm_gpu *gpu, const wc_inst *in)
{
    size_t h = (size_t)((((uint64_t)(uintptr_t)in >> 3) *
                         0x9e3779b97f4a7c15ull) >> 57) % DM_SMEMO;
    struct dm_smemo *e = &gpu->smemo[h];
    if (e->in != in) {
        e->in = in;
        e->banks = dm_dst_banks(&gpu->p, in);
        e->has_cl = 0;
        e->has_ops = 0;
    }
    return e;
}

/* The register reads of in's regular sources (struct dm_rfcops). */
void dm_rfcops_make(const dm_params *p, const wc_inst *in, dm_rfcops *o);
/* dm_rfc_access of an instruction by its reads o (dm_rfcops_make of it)
 * and its reuse bits: the same hit flags, reads per bank, RFC update and
 * return value. */
unsigned dm_rfc_access_ops(const dm_params *p, dm_sub *s, unsigned warp,
                           const dm_rfcops *o, uint8_t reuse, uint8_t *hit,
                           uint8_t nbank[DM_MAX_BANKS], int commit);

/* dm_rfcops_make of a static record in (dm_shot_static), by the memo. */
static inline const dm_rfcops *dm_smemo_ops(dm_gpu *gpu, const wc_inst *in)
{
    struct dm_smemo *e = dm_smemo_get(gpu, in);
    dm_rfcops *o = &gpu->smemo_ops[e - gpu->smemo];
    if (!e->has_ops) {
        dm_rfcops_make(&gpu->p, in, o);
        e->has_ops = 1;
    }
    return o;
}

/* The record of ring slot sl stays put and unchanged for the run
 * (dm_smemo_get may keep what it derives from it). */
static inline int dm_shot_static(const dm_shot *sl)
{
    return sl->bufi == DM_NO_BUF || sl->bufi == DM_PRE_BUF;
}

/* dm_dst_banks of sl's instruction (by the memo when its record is static). */
static inline uint8_t dm_shot_banks(dm_gpu *gpu, const dm_shot *sl)
{
    return dm_shot_static(sl) ? dm_smemo_get(gpu, sl->in)->banks
                              : dm_dst_banks(&gpu->p, sl->in);
}

/* dm_mem_classify of a static record in (dm_shot_static), by the memo. */
static inline void dm_smemo_class(dm_gpu *gpu, const dm_mem *m,
                                  const wc_inst *in, dm_mem_class *cl)
{
    struct dm_smemo *e = dm_smemo_get(gpu, in);
    if (!e->has_cl) {
        dm_mem_classify(m, in, &e->cl);
        e->has_cl = 1;
    }
    *cl = e->cl;
}

/* ---- scoreboard mode (scoreboard.c) ---- */
int dm_sb_ready(const dm_params *p, dm_warp *w, const wc_inst *in,
                uint64_t c);
/* Earliest cycle after c at which an entry of w clears by itself
 * (UINT64_MAX: only an event can, and it calls dm_wake). */
uint64_t dm_sb_next(const dm_warp *w, uint64_t c);
/* Returns the number of entries that found no room (an internal error). */
int dm_sb_issue(dm_warp *w, const wc_inst *in, int varlat, uint64_t tag,
                uint64_t fixed_ready);
void dm_sb_release(dm_wcold *x, uint64_t tag, int write, uint64_t c);

/* ---- timeline (run.c) ---- */
/* Returns the event's reference (0: none) for dm_event_rfc. */
size_t dm_event_add(dm_gpu *gpu, uint64_t cycle, const dm_sm *sm,
                    unsigned sub, const dm_warp *w, const wc_inst *in);
/* The event's operands were read (RFC hits of its n regular sources): it is
 * complete and may be streamed. */
void dm_event_rfc(dm_gpu *gpu, size_t ref, unsigned n, const uint8_t *hit);

#endif /* DM_INT_H */
