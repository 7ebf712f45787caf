/*
 * detailed/mem.h - private header of the detailed model's memory subsystem
 * (detailed/mem_*.c).  Owns: the per-sub-core memory unit (queue + latch,
 * address calculation, coalescing), the SM-shared memory structures (arbiter,
 * L1 data cache, shared memory banks, constant caches) and the GPU-wide
 * L2 + DRAM.  The sub-core pipeline (detailed/dm_int.h) talks to it only
 * through the dm_mem_* calls below.
 *
 * Seed 000 section 5.4 (memory pipeline, Tables 1 and 2), 5.1.1 (L0 FL
 * constant cache looked up at issue), 6 (PRT, L0/L1 constant caches);
 * seed 003 (a memory unit per sub-core, address calculation and coalescing
 * in separate cycles); seed 004 (cache geometry seen through pointer chasing).
 *
 *   issue (cycle c)                                    sub-core s
 *     |  dm_mem_can_accept / dm_mem_push
 *     v
 *   [latch][queue x4]  holds a slot from issue until the request leaves
 *     |  head starts when the address unit is free:       S >= c + dispatch
 *     |  address unit busy max(ii_regular|ii_uniform, lines * coalesce)
 *     |  WAR released at S + (war - dispatch)      (when war <= sub_latency)
 *     v  ready to leave at S + (sub_latency - dispatch)
 *   ---------------- round-robin arbiter, one grant per mem_shared_ii ------
 *     |  leave at L (frees the slot)                      SM-shared
 *     v
 *   shared memory banks (wavefronts) | L1 data cache (lines, sectors) |
 *   L0 VL / L1 constant caches          busy max(shared_ii, units * cycles)
 *     |  WAR released at L + (war - sub_latency)   (when war > sub_latency)
 *     |  misses: dm_l2 (GPU-wide: L2 bandwidth, DRAM bandwidth + latency)
 *     v
 *   RAW released at L + (raw - sub_latency) + extra units + miss penalty
 *
 * With no contention a request therefore reproduces its Table 2 row exactly,
 * and a stream of independent requests reproduces Table 1 (slots freed at
 * L, address unit every 4 cycles, shared structures every 2 cycles).
 * Event times are cycles at which a waiting instruction may issue: tick the
 * memory unit before the issue stage of the same cycle (back to front).
 */
#ifndef DM_MEM_H
#define DM_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "ua.h"
#include "wc.h"

/* What a memory instruction does without time -- its class and Table 2
 * row, coalescing, shared-memory wavefronts, the sectored caches with their
 * indexing and write policies -- lives in uarch/ua_mem.h, shared with the
 * interval model.  This model adds the timing. */
#define dm_popcount32 ua_popcount32

/* ------------------------------------------------------------------------ */
/* GPU-wide L2 + DRAM (mem_l2.c)                                             */
/* ------------------------------------------------------------------------ */

typedef struct dm_l2 dm_l2;

typedef struct dm_l2_stats {
    uint64_t reads, writes;       /* line requests                          */
    uint64_t sector_hits, sector_misses;
    uint64_t read_sector_hits;    /* of reads only (counts.l2_hit_sectors)  */
    uint64_t dram_read_sectors, dram_write_sectors;
    double l2_busy_until, dram_busy_until;
} dm_l2_stats;

/* One per simulated GPU, shared by every SM.  NULL on a bad geometry or
 * out of memory. */
dm_l2 *dm_l2_create(const wc_gpu *g);
void dm_l2_free(dm_l2 *l2); /* accepts NULL */
/* The L2's addresses through f (ua_cache_set_fold; NULL: none). */
void dm_l2_set_fold(dm_l2 *l2, const struct ua_fold *f);
/* Speed only: ua_cache_prefetch of line_addr's L2 set. */
void dm_l2_prefetch(const dm_l2 *l2, uint64_t line_addr);
/* The SMs run cycles [c, c + quantum) one after the other (dm_quantum):
 * the L2 and DRAM servers let a request take back idle time from
 * max(c, its cycle - quantum + 1) on (mem_l2.c).  Never called: cycle
 * order, the plain FIFO servers. */
void dm_l2_quantum(dm_l2 *l2, uint64_t c, uint64_t quantum);
/* Read or write sectors of one line, requested at cycle now by an SM.
 * Returns the extra cycles over an L1 hit seen by the requester: for a read
 * the L2 hit latency (l2_latency - l1_latency) or DRAM latency
 * (dram_latency - l1_latency) plus the time spent queueing for L2 and DRAM
 * bandwidth; for a write the queueing time only.  Bandwidth is modelled as
 * one server per level (sectors * sector_bytes / bw cycles each), so it is
 * exact for throughput and approximate for latency under load. */
uint64_t dm_l2_access(dm_l2 *l2, uint64_t line_addr, uint32_t sectors,
                      int is_write, uint64_t now);
/* An atomic / reduction of one warp instruction performed at the L2
 * (issue 11): lanes in mask at addr[], requested at cycle now.  Every line
 * is written at the L2 and performed after the L2 round trip (no DRAM
 * wait on a miss, see mem_l2.c); ops to one address serialize, each
 * holding it l2_atomic_same_addr_ns (distinct addresses in parallel).
 * Returns the extra cycles over an L1 hit until the last op is performed. */
uint64_t dm_l2_atomic(dm_l2 *l2, const ua_line *lines, unsigned nlines,
                      const uint64_t *addr, uint32_t mask, uint64_t now);
void dm_l2_stats_get(const dm_l2 *l2, dm_l2_stats *st);
/* Seed 000 Table 2 decoded from the l2's config (every SM's unit uses it). */
const ua_mem_rows *dm_l2_rows(const dm_l2 *l2);
/* Add the L2 read hit sectors and the DRAM bytes (read + written) to c. */
void dm_l2_counts_add(const dm_l2 *l2, ua_counts *c);

/* ------------------------------------------------------------------------ */
/* Constant caches of one SM (mem_const.c)                                   */
/* ------------------------------------------------------------------------ */

/* L0 FL per sub-core (operands of fixed-latency instructions, looked up at
 * issue), L0 VL per SM (LDC), both backed by the SM's L1 constant cache. */
typedef struct dm_cc dm_cc;

dm_cc *dm_cc_create(const wc_gpu *g, unsigned subcores);
void dm_cc_free(dm_cc *cc);
/* Fixed-latency operand at constant address addr on sub-core sc in cycle
 * now: the cycle it is available (now: hit; a miss starts the fill, which
 * completes cc_l0_miss_latency later, plus cc_l1_miss_latency when the L1
 * constant cache misses too; a fill in flight is waited for). */
uint64_t dm_cc_probe_fl(dm_cc *cc, unsigned sc, uint64_t addr, uint64_t now);
/* LDC access to the line of addr at cycle now: extra cycles over the
 * Table 2 (hit) row. */
uint64_t dm_cc_access_vl(dm_cc *cc, uint64_t addr, uint64_t now);
void dm_cc_stats(const dm_cc *cc, uint64_t *fl_hits, uint64_t *fl_misses,
                 uint64_t *vl_hits, uint64_t *vl_misses);

/* ------------------------------------------------------------------------ */
/* The memory unit of one SM (mem_unit.c: queues, arbiter, shared            */
/* structures, events) - the boundary the sub-core pipeline uses             */
/* ------------------------------------------------------------------------ */

typedef struct dm_mem dm_mem;

/* Completion events, two per pushed instruction.
 *   WAR: the instruction has read its source registers (release its read
 *        dependence counter).  Uncontended: issue + Table 2 WAR latency.
 *   RAW: its destination registers are written (release its write counter;
 *        consumers and overwriters may issue).  Uncontended: issue + Table 2
 *        RAW latency.  Instructions without a destination register get it
 *        when their access is complete (LDGSTS: data in shared memory, its
 *        Table 2 RAW; stores and fences: performed), never before WAR.
 * cycle is the first cycle a waiting instruction may issue. */
enum { DM_MEM_EV_WAR = 1, DM_MEM_EV_RAW = 2 };

typedef struct dm_mem_event {
    uint64_t cycle;
    uint64_t tag;     /* the pipeline's token given to dm_mem_push          */
    uint32_t warp;
    uint8_t subcore;
    uint8_t kind;     /* DM_MEM_EV_*                                        */
} dm_mem_event;

typedef struct dm_mem_stats {
    uint64_t requests, grants, arb_wait_cycles, queue_wait_cycles;
    uint64_t l1_sector_hits, l1_sector_misses, shmem_wavefronts, lines;
    uint64_t cc_fl_hits, cc_fl_misses, cc_vl_hits, cc_vl_misses;
} dm_mem_stats;

/* One SM's memory unit (subcores_per_sm sub-core units + the SM-shared
 * structures).  l2 is the GPU-wide L2 (not owned; NULL: the unit makes a
 * private one).  NULL on a bad configuration or out of memory. */
dm_mem *dm_mem_create(const wc_gpu *g, dm_l2 *l2);
void dm_mem_free(dm_mem *m); /* accepts NULL */

/* The first member of every dm_mem (mem_unit.c keeps it): what
 * dm_mem_can_accept reads, so that the test is inline in the core's
 * per-cycle scans (speed only: it was an out-of-line call 15 M times on
 * the synthetic shared-memory kernel, 1.1% of the host instructions). */
typedef struct dm_mem_q {
    unsigned nsub, cap;            /* sub-core units, slots of each         */
    unsigned n[UA_MAX_SUBCORES];   /* requests in each unit (latch + queue) */
} dm_mem_q;

/* Can sub-core sc take another memory instruction in this cycle (a free
 * latch/queue slot)?  Ask at issue, after dm_mem_tick of the cycle. */
static inline int dm_mem_can_accept(const dm_mem *m, unsigned sc)
{
    const dm_mem_q *q = (const dm_mem_q *)(const void *)m;
    return sc < UA_MAX_SUBCORES && sc < q->nsub && q->n[sc] < q->cap;
}
/* Hand the memory instruction issued at cycle issue_cycle on sub-core sc
 * to the unit (call in the issue cycle).  Copies what it needs from in.
 * Returns 0, or -1 when no slot is free (ask dm_mem_can_accept first). */
int dm_mem_push(dm_mem *m, unsigned sc, const wc_inst *in, uint32_t warp,
                uint64_t tag, uint64_t issue_cycle);
/* The class of a memory instruction (uarch ua_mem_classify with the Table 2
 * rows this unit decoded from its config). */
typedef ua_mem_class dm_mem_class;
void dm_mem_classify(const dm_mem *m, const wc_inst *in, dm_mem_class *cl);
/* dm_mem_push with the class of in already made by dm_mem_classify (the
 * core classifies at issue; classifying once is faster). */
int dm_mem_push_cl(dm_mem *m, unsigned sc, const wc_inst *in,
                   const dm_mem_class *cl, uint32_t warp, uint64_t tag,
                   uint64_t issue_cycle);
/* What a push takes from a memory instruction's lane addresses, found
 * beforehand (dm_mem_pre_make, at fetch, while the decoded record is still
 * in the host caches; speed only, the push is the same): the lines of a
 * global or constant access (at most DM_PRE_LINES) or the wavefronts of a
 * shared one.  Atomics keep their addresses and are not taken. */
#define DM_PRE_LINES 2
typedef struct dm_mem_pre {
    uint64_t addr[DM_PRE_LINES];    /* the lines (ua_line.addr)           */
    uint32_t sectors[DM_PRE_LINES]; /* their sectors (ua_line.sectors)    */
    uint32_t units;      /* lines (global, const) or wavefronts (shared)   */
    uint8_t n;           /* lines                                          */
} dm_mem_pre;
/* 1 when *pre holds what a push of in needs (then dm_mem_push_pre may
 * replace dm_mem_push_cl, with in's header: no lane address is read). */
int dm_mem_pre_make(dm_mem *m, const wc_inst *in, dm_mem_pre *pre);
/* dm_mem_pre_make with the class of in already made (dm_mem_classify). */
int dm_mem_pre_make_cl(dm_mem *m, const wc_inst *in, const dm_mem_class *cl,
                       dm_mem_pre *pre);
/* dm_mem_push_cl with the lanes' part from pre: in's addr[] is not read. */
int dm_mem_push_pre(dm_mem *m, unsigned sc, const wc_inst *in,
                    const dm_mem_class *cl, const dm_mem_pre *pre,
                    uint32_t warp, uint64_t tag, uint64_t issue_cycle);
/* Advance the unit to cycle now: once per cycle, increasing, before the
 * sub-core stages of the cycle.  Returns 1 when it granted a request (a
 * latch/queue slot was freed: dm_mem_can_accept may have changed), else 0. */
int dm_mem_tick(dm_mem *m, uint64_t now);
/* Pop events due at or before now, in cycle order; returns how many were
 * written to ev[max]. */
size_t dm_mem_poll(dm_mem *m, uint64_t now, dm_mem_event *ev, size_t max);
/* Instructions pushed whose events have not all been polled (0: idle). */
size_t dm_mem_pending(const dm_mem *m);
/* The cycle of the earliest memory event scheduled (a WAR or RAW of a
 * request the servers have timed), UINT64_MAX when none. */
uint64_t dm_mem_next_event(const dm_mem *m);
/* A cycle >= now before which neither dm_mem_tick nor dm_mem_poll can do
 * anything unless something is pushed (UINT64_MAX: nothing to do): the
 * core may skip both until then (speed only, never a result). */
uint64_t dm_mem_next_cycle(const dm_mem *m, uint64_t now);
/* Cheap after dm_mem_tick and dm_mem_poll of a cycle: a cycle before which
 * neither can do anything unless something is pushed (0: unknown; never
 * later than dm_mem_next_cycle).  Speed only, never a result. */
uint64_t dm_mem_quiet_until(const dm_mem *m);
/* Speed only, never a result: start loading into the host caches what
 * the next dm_mem_tick / dm_mem_poll read: stage 0 the unit itself, stage
 * 1 (later, once the unit is in) what its pointers lead to. */
void dm_mem_prefetch(const dm_mem *m, int stage);
/* Occupied latch/queue slots of sub-core sc. */
unsigned dm_mem_slots_used(const dm_mem *m, unsigned sc);
void dm_mem_stats_get(const dm_mem *m, dm_mem_stats *st);
/* Add this SM's counts (requests, sectors, wavefronts, atomics, L1 hit
 * sectors) to c. */
void dm_mem_counts_add(const dm_mem *m, ua_counts *c);
/* One-line state summary for the watchdog (never printed here). */
void dm_mem_dump(const dm_mem *m, char *buf, size_t n);

/* L0 FL constant cache of sub-core sc, looked up at issue for an operand
 * c[bank][offset] (const_addr = bank << 16 | offset, wc_inst.const_addr).
 * Returns the cycle the operand is available: now on a hit; on a miss the
 * line is requested (once: later probes see the same fill) and the cycle it
 * arrives is returned (now + cc_l0_miss_latency when the L1 constant cache
 * hits).  The issue scheduler holds the instruction until then. */
uint64_t dm_mem_const_probe(dm_mem *m, unsigned sc, uint32_t const_addr,
                            uint64_t now);

#endif /* DM_MEM_H */
