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

#include "wc.h"

/* Bits set in x (inline: without -mpopcnt __builtin_popcount is a call). */
static inline unsigned dm_popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

/* ------------------------------------------------------------------------ */
/* Coalescing (mem_coalesce.c)                                               */
/* ------------------------------------------------------------------------ */

/* A warp access touches at most this many lines (32 lanes, each access of
 * up to 255 bytes spanning at most 9 lines of >= 32 bytes). */
#define DM_MAX_LINES (WC_WARP_SIZE * 9)

typedef struct dm_line {
    uint64_t addr;    /* line address (byte address of the line's start)   */
    uint32_t sectors; /* bit i: sector i of the line is touched             */
} dm_line;

/* The distinct lines (in first-touch lane order) and sectors the active
 * lanes of in touch, lines of line_bytes with sectors of sector_bytes
 * (line_bytes / sector_bytes <= 32).  Without per-lane addresses the access
 * is taken as fully coalesced (consecutive lanes, consecutive addresses
 * from 0).  Returns the number of lines written to out[DM_MAX_LINES]. */
unsigned dm_coalesce(const wc_inst *in, unsigned line_bytes,
                     unsigned sector_bytes, dm_line *out);
/* Total sectors of n lines. */
unsigned dm_lines_sectors(const dm_line *lines, unsigned n);

/* ------------------------------------------------------------------------ */
/* Shared memory banks (mem_shared.c)                                        */
/* ------------------------------------------------------------------------ */

/* Wavefronts (conflict-free passes) a shared-memory access needs: the most
 * distinct bank-words any bank must deliver.  Lanes reading the same word
 * share it (broadcast).  1 for a conflict-free 32-bit access, n for an
 * n-way conflict; 0 when no lane is active.  Without per-lane addresses the
 * access is taken as conflict free. */
unsigned dm_shmem_wavefronts(const wc_inst *in, unsigned banks,
                             unsigned bank_bytes);

/* ------------------------------------------------------------------------ */
/* Set-associative sectored cache with LRU (mem_cache.c)                     */
/* ------------------------------------------------------------------------ */

typedef struct dm_cache dm_cache;

typedef struct dm_cache_geom {
    long size;         /* bytes; 0 = no cache (every access misses)         */
    long assoc;        /* ways                                              */
    long line_bytes;
    long sector_bytes; /* line_bytes / sector_bytes <= 32                   */
    int write_back;    /* 1 write-back, 0 write-through                     */
    int write_alloc;   /* 1 write-allocate, 0 no-write-allocate             */
} dm_cache_geom;

typedef struct dm_cache_res {
    uint32_t miss;      /* sectors asked for that were not present          */
    int tag_hit;        /* the line was present (some sectors maybe not)    */
    uint64_t ready;     /* latest fill time of the present sectors asked
                           for (0 when none is pending): in-flight merge    */
    int evicted;        /* a valid line was replaced                        */
    uint64_t evict_addr;
    uint32_t evict_dirty; /* its dirty sectors (write back to next level)   */
} dm_cache_res;

typedef struct dm_cache_stats {
    uint64_t accesses, hits, misses; /* per line access: hit = no sector miss */
    uint64_t sector_hits, sector_misses, evictions, writebacks;
} dm_cache_stats;

/* Returns NULL when out of memory or the geometry is invalid. */
dm_cache *dm_cache_create(const dm_cache_geom *geom);
void dm_cache_free(dm_cache *c);
/* Access sectors of the line holding addr.  Reads: missing sectors are
 * allocated (the line replaces the LRU way on a tag miss).  Writes:
 * write-allocate lines take the written sectors as valid (dirty under
 * write-back); no-write-allocate misses leave the cache unchanged.
 * Every access makes the line most recently used. */
void dm_cache_access(dm_cache *c, uint64_t addr, uint32_t sectors,
                     int is_write, dm_cache_res *res);
/* The fill of the given sectors of addr's line completes at cycle t (hits
 * on them before t see res.ready = t). */
void dm_cache_set_ready(dm_cache *c, uint64_t addr, uint32_t sectors,
                        uint64_t t);
/* 1 when every given sector of addr's line is present (no LRU update, no
 * statistics); *ready (may be NULL) gets the line's fill time. */
int dm_cache_probe(const dm_cache *c, uint64_t addr, uint32_t sectors,
                   uint64_t *ready);
void dm_cache_stats_get(const dm_cache *c, dm_cache_stats *st);
long dm_cache_sets(const dm_cache *c);

/* ------------------------------------------------------------------------ */
/* GPU-wide L2 + DRAM (mem_l2.c)                                             */
/* ------------------------------------------------------------------------ */

typedef struct dm_l2 dm_l2;

typedef struct dm_l2_stats {
    uint64_t reads, writes;       /* line requests                          */
    uint64_t sector_hits, sector_misses;
    uint64_t dram_read_sectors, dram_write_sectors;
    double l2_busy_until, dram_busy_until;
} dm_l2_stats;

/* One per simulated GPU, shared by every SM.  NULL on a bad geometry or
 * out of memory. */
dm_l2 *dm_l2_create(const wc_gpu *g);
void dm_l2_free(dm_l2 *l2); /* accepts NULL */
/* Read or write sectors of one line, requested at cycle now by an SM.
 * Returns the extra cycles over an L1 hit seen by the requester: for a read
 * the L2 hit latency (l2_latency - l1_latency) or DRAM latency
 * (dram_latency - l1_latency) plus the time spent queueing for L2 and DRAM
 * bandwidth; for a write the queueing time only.  Bandwidth is modelled as
 * one server per level (sectors * sector_bytes / bw cycles each), so it is
 * exact for throughput and approximate for latency under load. */
uint64_t dm_l2_access(dm_l2 *l2, uint64_t line_addr, uint32_t sectors,
                      int is_write, uint64_t now);
void dm_l2_stats_get(const dm_l2 *l2, dm_l2_stats *st);

/* ------------------------------------------------------------------------ */
/* Table 2 rows (mem_lat.c)                                                  */
/* ------------------------------------------------------------------------ */

typedef enum dm_mop {
    DM_MOP_LDG,    /* global / local / generic / texture loads, atomics   */
    DM_MOP_STG,    /* global / local / generic stores, reductions         */
    DM_MOP_LDS,    /* shared loads, shared atomics                        */
    DM_MOP_STS,    /* shared stores                                       */
    DM_MOP_LDC,    /* LDC (L0 VL constant cache)                          */
    DM_MOP_LDGSTS, /* asynchronous global -> shared copy, bulk copies     */
    DM_MOP_FENCE,  /* MEMBAR, FENCE, CCTL ...: no data access             */
} dm_mop;

typedef enum { DM_RT_REGULAR, DM_RT_UNIFORM, DM_RT_IMM } dm_regtype;

typedef struct dm_mem_class {
    dm_mop mop;
    dm_regtype rt;
    unsigned bits;   /* 32, 64 or 128: the Table 2 row                      */
    long war, raw;   /* Table 2 latencies; raw < 0 for stores / fences    */
    int l2_only;     /* global atomics / reductions, .BYPASS: skip the L1 */
    int has_dst;     /* writes a register (a DM_MEV_WB event)             */
} dm_mem_class;

/* Classify in (an instruction the core sends to the memory unit) and read
 * its Table 2 row from g. */
void dm_mem_classify(const wc_gpu *g, const wc_inst *in, dm_mem_class *cl);

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

/* Can sub-core sc take another memory instruction in this cycle (a free
 * latch/queue slot)?  Ask at issue, after dm_mem_tick of the cycle. */
int dm_mem_can_accept(const dm_mem *m, unsigned sc);
/* Hand the memory instruction issued at cycle issue_cycle on sub-core sc
 * to the unit (call in the issue cycle).  Copies what it needs from in.
 * Returns 0, or -1 when no slot is free (ask dm_mem_can_accept first). */
int dm_mem_push(dm_mem *m, unsigned sc, const wc_inst *in, uint32_t warp,
                uint64_t tag, uint64_t issue_cycle);
/* dm_mem_push with the class of in already made by dm_mem_classify (the
 * core classifies at issue; classifying once is faster). */
int dm_mem_push_cl(dm_mem *m, unsigned sc, const wc_inst *in,
                   const dm_mem_class *cl, uint32_t warp, uint64_t tag,
                   uint64_t issue_cycle);
/* Advance the unit to cycle now: once per cycle, increasing, before the
 * sub-core stages of the cycle. */
void dm_mem_tick(dm_mem *m, uint64_t now);
/* Pop events due at or before now, in cycle order; returns how many were
 * written to ev[max]. */
size_t dm_mem_poll(dm_mem *m, uint64_t now, dm_mem_event *ev, size_t max);
/* Instructions pushed whose events have not all been polled (0: idle). */
size_t dm_mem_pending(const dm_mem *m);
/* A cycle >= now before which neither dm_mem_tick nor dm_mem_poll can do
 * anything unless something is pushed (UINT64_MAX: nothing to do): the
 * core may skip both until then (speed only, never a result). */
uint64_t dm_mem_next_cycle(const dm_mem *m, uint64_t now);
/* Occupied latch/queue slots of sub-core sc. */
unsigned dm_mem_slots_used(const dm_mem *m, unsigned sc);
void dm_mem_stats_get(const dm_mem *m, dm_mem_stats *st);
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
