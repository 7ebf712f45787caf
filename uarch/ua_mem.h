/*
 * uarch/ua_mem.h - part of uarch/ua.h (include that): memory-op classes,
 * coalescing into sectors, shared-memory wavefronts and bank conflicts, the
 * sectored cache with its indexing and write policies, and the per-kernel
 * counts both models report.
 *
 * Everything here is a function of the instruction and the GPU config only,
 * without time: the interval model (model/im_mem.c) and the detailed model
 * (detailed/mem_*.c) both call it and keep no copy, so that they see the
 * same requests, sectors, wavefronts and cache contents and differ only in
 * how they compose time.  docs/model-memory.md describes the layer; seed 000
 * section 5.4 (Tables 1 and 2) and section 6 are the spec.
 */
#ifndef UA_MEM_H
#define UA_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "wc.h"

/* The bits set in each byte value (ua_mem_counts.c). */
extern const uint8_t ua_popcount8[256];

/* Bits set in x (inline: without -mpopcnt __builtin_popcount is a call,
 * so the instruction only where the compiler targets it).  Sector masks
 * mostly have at most 8 bits (lines of up to 8 sectors): those take their
 * count from a 256-byte table (one load; the counts of two nibbles from a
 * constant took about 10 instructions, 5% of a memory-bound interval run). */
static inline unsigned ua_popcount32(uint32_t x)
{
#if defined(__POPCNT__) && (defined(__GNUC__) || defined(__clang__))
    return (unsigned)__builtin_popcount(x);
#else
    if (x < 256)
        return ua_popcount8[x];
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
#endif
}

/* ------------------------------------------------------------------------ */
/* Classification: path, seed 000 Table 2 row, atomics (ua_mem_class.c)      */
/* ------------------------------------------------------------------------ */

/* The Table 2 row family an instruction takes. */
typedef enum ua_mop {
    UA_MOP_LDG,    /* global / local / generic / texture loads, atomics    */
    UA_MOP_STG,    /* global / local / generic stores, reductions          */
    UA_MOP_LDS,    /* shared loads, shared atomics                         */
    UA_MOP_STS,    /* shared stores, shared reductions                     */
    UA_MOP_LDC,    /* LDC (L0 VL constant cache)                           */
    UA_MOP_LDGSTS, /* asynchronous global -> shared copy, bulk copies      */
    UA_MOP_FENCE,  /* MEMBAR, FENCE, CCTL ...: no data access              */
    UA_MOP_COUNT
} ua_mop;

/* Register type of the address (Table 2's third column). */
typedef enum ua_regtype { UA_RT_REGULAR, UA_RT_UNIFORM, UA_RT_IMM,
                          UA_RT_COUNT } ua_regtype;

/* Which structure serves the data. */
typedef enum ua_path {
    UA_PATH_NONE,   /* fences: no data                                     */
    UA_PATH_GLOBAL, /* L1 data cache (or L2 only), L2, DRAM                */
    UA_PATH_SHARED, /* shared memory banks                                 */
    UA_PATH_CONST,  /* L0 VL / L1 constant caches                          */
} ua_path;

/* The Table 2 latencies of every row, decoded once from the config with
 * the fall-backs for rows the paper does not list (ua_mem_class.c). */
typedef struct ua_mem_rows {
    long war[UA_MOP_COUNT][3][UA_RT_COUNT]; /* [mop][32/64/128 bit][rt]    */
    long raw[UA_MOP_COUNT][3][UA_RT_COUNT]; /* < 0: no RAW (stores, fences) */
} ua_mem_rows;

void ua_mem_rows_init(ua_mem_rows *r, const wc_gpu *g);

typedef struct ua_mem_class {
    ua_mop mop;
    ua_regtype rt;
    ua_path path;
    unsigned bits;  /* 32, 64 or 128: the Table 2 row                      */
    long war, raw;  /* Table 2 latencies; raw < 0 for stores / fences      */
    int l2_only;    /* global atomics / reductions, .BYPASS: skip the L1   */
    int atomic;     /* an atomic or a reduction (global or shared)         */
    int is_write;   /* the access writes memory and reads nothing back     */
    int has_dst;    /* writes a register (loads, atomics with a result)    */
} ua_mem_class;

/* 1 when in goes to the memory unit (its latency class is mem): data
 * accesses and fences. */
int ua_mem_is_mem(const wc_inst *in);
/* Classify a memory instruction (ua_mem_is_mem) and take its row from
 * rows.  Global atomics take the global-load row plus an L2 access;
 * reductions (RED, REDG: no destination register, Table 2 says stores make
 * no RAW) the global-store row; shared atomics the shared-load row. */
void ua_mem_classify(const ua_mem_rows *rows, const wc_inst *in,
                     ua_mem_class *cl);

/* ------------------------------------------------------------------------ */
/* Coalescing (ua_mem_coalesce.c)                                            */
/* ------------------------------------------------------------------------ */

/* A warp access touches at most this many lines (32 lanes, each access of
 * up to 255 bytes spanning at most 9 lines of >= 32 bytes). */
#define UA_MAX_LINES (WC_WARP_SIZE * 9)

typedef struct ua_line {
    uint64_t addr;    /* line address (byte address of the line's start)   */
    uint32_t sectors; /* bit i: sector i of the line is touched             */
} ua_line;

/* The distinct lines (in first-touch lane order) and sectors the active
 * lanes of in touch, lines of line_bytes with sectors of sector_bytes
 * (line_bytes / sector_bytes <= 32).  Without per-lane addresses the access
 * is taken as fully coalesced (consecutive lanes, consecutive addresses
 * from 0).  Returns the number of lines written to out[UA_MAX_LINES]; 0 when
 * no lane is active. */
unsigned ua_coalesce(const wc_inst *in, unsigned line_bytes,
                     unsigned sector_bytes, ua_line *out);
/* A run of lines that follow each other: n >= 1 lines of 2^line_shift
 * bytes from addr (none past the top of the address space), every sector
 * of each but the first line's (first) and the last's (last; first == last
 * when n is 1). */
typedef struct ua_run {
    uint64_t addr;
    unsigned n, line_shift;
    uint32_t first, last;
} ua_run;

/* When in is a full warp the reader decoded as strided (lanes_affine) with
 * per-lane addresses, a stride of at most the access width and
 * power-of-two sizes: its lines as a run (the lines ua_coalesce gives, in
 * the same order) and 1; else 0 (ua_coalesce gives them).  Speed only: no
 * line array for the common access. */
int ua_coalesce_run(const wc_inst *in, unsigned line_bytes,
                    unsigned sector_bytes, ua_run *r);
/* Total sectors of n lines. */
unsigned ua_lines_sectors(const ua_line *lines, unsigned n);
/* Split the sectors of one line of from_line bytes into lines of to_line
 * bytes (sectors of sector_bytes in both): returns the number written to
 * out[32], in address order. */
unsigned ua_line_split(uint64_t line_addr, uint32_t sectors,
                       unsigned sector_bytes, unsigned to_line,
                       ua_line *out);

/* ------------------------------------------------------------------------ */
/* Shared memory banks (ua_mem_shared.c)                                     */
/* ------------------------------------------------------------------------ */

/* Wavefronts (conflict-free passes) a shared-memory access needs: the most
 * distinct bank-words any bank must deliver.  Lanes reading the same word
 * share it (broadcast).  1 for a conflict-free 32-bit access, n for an
 * n-way conflict; 0 when no lane is active.  Without per-lane addresses the
 * access is taken as conflict free. */
unsigned ua_shmem_wavefronts(const wc_inst *in, unsigned banks,
                             unsigned bank_bytes);

/* ------------------------------------------------------------------------ */
/* Set-associative sectored cache with LRU (ua_mem_cache.c)                  */
/* ------------------------------------------------------------------------ */

typedef struct ua_cache ua_cache;

/* Set index of a line number n in a cache of S sets. */
enum {
    UA_SET_MOD = 0,  /* n mod S                                            */
    UA_SET_XOR = 1,  /* (n ^ n >> 7 ^ n >> 17) mod S: power-of-two strides
                        spread over the sets                               */
};

typedef struct ua_cache_geom {
    long size;         /* bytes; 0 = no cache (every access misses)         */
    long assoc;        /* ways                                              */
    long line_bytes;
    long sector_bytes; /* line_bytes / sector_bytes <= 32                   */
    int write_back;    /* 1 write-back, 0 write-through                     */
    int write_alloc;   /* 1 write-allocate, 0 no-write-allocate             */
    int set_hash;      /* UA_SET_*                                          */
} ua_cache_geom;

/* The memory keys of g checked together (lines of whole sectors, caches
 * of one set at least, the L0 FL constant cache present, L1 lines of all
 * SMs bounded): 0, or WC_EINPUT naming the keys.  Both models call it once
 * per run. */
int ua_mem_check(const wc_gpu *g, wc_diag *d);

/* The L1 data cache / L2 geometry and policies of g (keys_mem.def). */
void ua_cache_geom_l1(const wc_gpu *g, ua_cache_geom *geom);
void ua_cache_geom_l2(const wc_gpu *g, ua_cache_geom *geom);

typedef struct ua_cache_res {
    uint32_t miss;      /* sectors asked for that were not present          */
    uint32_t fwd;       /* writes: sectors the next level must take now
                           (write-through, or a no-write-allocate miss)     */
    int tag_hit;        /* the line was present (some sectors maybe not)    */
    uint64_t ready;     /* caller's fill time of the present sectors asked
                           for (0 when none is pending): in-flight merge    */
    int evicted;        /* a valid line was replaced                        */
    uint64_t evict_addr;
    uint32_t evict_dirty; /* its dirty sectors (write back to next level)   */
} ua_cache_res;

typedef struct ua_cache_stats {
    uint64_t accesses, hits, misses; /* per line access: hit = no sector miss */
    uint64_t sector_hits, sector_misses, evictions, writebacks;
} ua_cache_stats;

/* Returns NULL when out of memory or the geometry is invalid.  Memory:
 * sets x ways x 11 to 27 bytes (8 of them fill times), allocated once and
 * cleared per set on its first access (the cost of a cache is what its
 * users touch). */
ua_cache *ua_cache_create(const ua_cache_geom *geom);
/* For a caller that never asks for fill times (no ua_cache_set_ready;
 * res.ready and probe's *ready stay 0): the same cache without their
 * array. */
ua_cache *ua_cache_create_untimed(const ua_cache_geom *geom);
void ua_cache_free(ua_cache *c); /* accepts NULL */
/* Access sectors of the line holding addr.  Reads: missing sectors are
 * allocated (the line replaces the LRU way on a tag miss).  Writes: a
 * present line takes the written sectors as valid; a missing one is
 * allocated under write-allocate, else the cache is unchanged; written
 * sectors are dirty under write-back, and res.fwd says what the next level
 * takes now (all of them under write-through or without allocation).
 * Every access makes the line most recently used. */
void ua_cache_access(ua_cache *c, uint64_t addr, uint32_t sectors,
                     int is_write, ua_cache_res *res);
/* The caller's fill of the given sectors of addr's line completes at t
 * (hits on them before t see res.ready = t). */
void ua_cache_set_ready(ua_cache *c, uint64_t addr, uint32_t sectors,
                        uint64_t t);
/* 1 when every given sector of addr's line is present (no LRU update, no
 * statistics); *ready (may be NULL) gets the line's fill time. */
int ua_cache_probe(const ua_cache *c, uint64_t addr, uint32_t sectors,
                   uint64_t *ready);
/* Speed only: asks the host to bring the arrays of addr's set (its tags,
 * order and masks, and its fill times) into its cache ahead of an access
 * to it; the cache is unchanged.  For a caller with several lines to look
 * up at once (a scattered warp access), whose host cache misses then
 * overlap instead of following one another. */
void ua_cache_prefetch(const ua_cache *c, uint64_t addr);
/* What a run of line accesses through an L1 and the L2 behind it did
 * (ua_cache_walk), in sectors. */
typedef struct ua_walk {
    unsigned sectors; /* asked for by the lines                          */
    unsigned l1_hit;  /* reads the L1 served                             */
    unsigned l2;      /* asked of the L2: misses, writes, write-backs    */
    unsigned l2_hit;  /* reads the L2 served                             */
    unsigned dram_rd; /* reads the L2 missed                             */
    unsigned dram_wr; /* written to DRAM: L2 write-through, write-backs  */
    int level;        /* the farthest level a read reached: 1, 2 or 3    */
} ua_walk;
/* The n lines ls[], all reads or all writes, through l1 (NULL: straight
 * to l2) and l2, line by line in order: each line's L1 access, then the
 * sectors the L1 missed (reads) or forwards (writes) asked of the L2 as
 * the same line, then the write-back of a dirty L1 victim.  The same
 * accesses, contents and statistics as those ua_cache_access calls (speed
 * only: one call, the common geometries' copies inlined, a run of lines
 * takes the next sets without a division; an L2 with a fold sees the
 * folded addresses, as its ua_cache_access would).  Returns 0 (and does
 * nothing) unless both caches are untimed, have sets, take the same line
 * size with 4 ways (l1) and 16 ways (l2) of at most 8 sectors, l1 has no
 * fold and n is at most UA_MAX_LINES. */
int ua_cache_walk(ua_cache *l1, ua_cache *l2, const ua_line *ls, unsigned n,
                  int is_write, ua_walk *w);
/* ua_cache_walk of the lines of run r (ua_coalesce_run): the same
 * accesses, contents, statistics and result as of its lines in an array;
 * 0 (nothing done) where ua_cache_walk would return 0 or r's lines are not
 * the caches' (speed only: no line array, and the next line's address and
 * sets without a test). */
int ua_cache_walk_run(ua_cache *l1, ua_cache *l2, const ua_run *r,
                      int is_write, ua_walk *w);
void ua_cache_stats_get(const ua_cache *c, ua_cache_stats *st);
long ua_cache_sets(const ua_cache *c);

/*
 * Folding of shared data into a slice's L2 (sampler stand-in regions).  A
 * stand-in runs share f of a kernel's CTAs on a slice whose L2 is f of the
 * GPU's; data every CTA reads (a lookup table, a matrix all CTAs multiply
 * by) is fetched once by the whole GPU and then served from its L2, while
 * the slice alone would take as many cold misses per SM as the GPU in all
 * and, where the data is larger than its share of the L2, miss on every
 * re-read.  Folded, the shared chunks become a span of f of their size:
 * the slice's accesses per shared sector, its cold misses per SM and the
 * shared data's size against its L2 are the full run's.  The map applies
 * to the addresses an L2 sees (ua_cache_set_fold); an L1 sees the real
 * ones.
 */
typedef struct ua_fold {
    unsigned shift;        /* a chunk is addr >> shift                       */
    size_t n;              /* shared chunks                                   */
    const uint64_t *chunk; /* their numbers, ascending                        */
    uint64_t span;         /* folded bytes: a multiple of the line size,
                              at least one line, at most n << shift; the
                              line size divides 1 << shift (else a line
                              at the span's end would be split)          */
    /* speed only (ua_fold_index; NULL: the chunks are bisected): a hash
     * index of the chunks, 2^slot_lg slots holding rank + 1 (0: empty) */
    const uint32_t *slot;
    unsigned slot_lg;
} ua_fold;
/* Builds f's hash index (f->slot, f->slot_lg) over its chunks as they are
 * now, so that ua_fold_addr and ua_fold_in take O(1) instead of a
 * bisection; the same results.  Returns the index (the caller frees it,
 * after f's last use), or NULL with f left to bisect (out of memory, or no
 * chunks). */
uint32_t *ua_fold_index(ua_fold *f);
/* addr's place in the folded span when it lies in a shared chunk (the
 * chunks' bytes in ascending order, modulo span, back in those chunks);
 * other addresses unchanged. */
uint64_t ua_fold_addr(const ua_fold *f, uint64_t addr);
/* 1 when addr lies in one of f's shared chunks. */
int ua_fold_in(const ua_fold *f, uint64_t addr);
/* Every later access, fill time and probe of c takes its addresses
 * through f (NULL: none); f must outlive c's use. */
void ua_cache_set_fold(ua_cache *c, const ua_fold *f);

/* ------------------------------------------------------------------------ */
/* Per-kernel counts (ua_mem_counts.c)                                       */
/* ------------------------------------------------------------------------ */

/* What a kernel did, in both models.  The order-independent ones (all but
 * the hit counts and dram_bytes) are equal between the interval and the
 * detailed model on every trace: they come from the functions above. */
typedef struct ua_counts {
    long ctas_per_sm;          /* resident CTAs per SM (occupancy)          */
    uint64_t warp_insts_by_unit[WC_UNIT_COUNT];
    uint64_t global_requests;  /* cache lines the coalescer produced        */
    uint64_t global_sectors;   /* sectors of those lines                    */
    uint64_t shared_wavefronts;
    uint64_t atomics;          /* active atomic / reduction warp insts      */
    uint64_t l1_hit_sectors;   /* load sectors served by the L1             */
    uint64_t l2_hit_sectors;   /* read sectors served by the L2             */
    uint64_t dram_bytes;       /* read + written                            */
} ua_counts;

/* Count one executed warp instruction (cl NULL: not a memory one; lines,
 * sectors, wavefronts as ua_coalesce / ua_shmem_wavefronts gave them). */
static inline void ua_counts_inst(ua_counts *c, const wc_inst *in,
                                  const ua_mem_class *cl, unsigned lines,
                                  unsigned sectors, unsigned wavefronts)
{
    if (in->unit < WC_UNIT_COUNT)
        c->warp_insts_by_unit[in->unit]++;
    if (!cl || in->mask == 0)
        return;
    if (cl->path == UA_PATH_GLOBAL) {
        c->global_requests += lines;
        c->global_sectors += sectors;
    } else if (cl->path == UA_PATH_SHARED) {
        c->shared_wavefronts += wavefronts;
    }
    if (cl->atomic)
        c->atomics++;
}

/* dst += src (ctas_per_sm: the larger). */
void ua_counts_add(ua_counts *dst, const ua_counts *src);
/* dst -= src for the additive counts (ctas_per_sm kept): what a run added
 * since src was taken of the same counts. */
void ua_counts_sub(ua_counts *dst, const ua_counts *src);
/* 1 when the order-independent counts of a and b are equal. */
int ua_counts_same_order_free(const ua_counts *a, const ua_counts *b);

#endif /* UA_MEM_H */
