/*
 * gen/synth.c - the synthetic trace generator: the project's own examples.
 *
 * Owns: building small but realistic SASS kernels (prologue, a loop body,
 * epilogue; real PCs that repeat as the loop is unrolled into each warp's
 * dynamic stream), running them "functionally" per warp to produce masks and
 * per-lane addresses, and writing them exactly as the Accel-Sim NVBit tracer
 * (version 5) and its post-processor do:
 *
 *   OUTDIR/kernelslist.g          MemcpyHtoD lines + kernel-N.traceg names
 *   OUTDIR/kernel-N.traceg[.zst]  header, #BEGIN_TB / warp = W / insts = N
 *   OUTDIR/kernels.sass           (with_sass) cuobjdump -sass style listing
 *                                 whose second encoding word carries the
 *                                 control bits at bit 41
 *
 * The control bits are the ones a compiler would choose: stall counts give
 * the fixed-latency schedule (latencies from the GPU config of the binary
 * version, table defaults when that config cannot be loaded), variable
 * latency producers (memory, S2R, MUFU, long fixed latencies) get a write
 * dependence counter that consumers wait on, stores get a read counter.
 *
 * Everything is a pure function of the parameters and the seed: per-warp
 * randomness comes from wc_rng seeded with a hash of (seed, cta, warp).
 * Memory is bounded by one warp's dynamic stream.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "gen_out.h"
#include "wc_synth.h"

/* ------------------------------------------------------------------------ */
/* Static program                                                            */
/* ------------------------------------------------------------------------ */

enum { SY_MAXSRC = 6 };

/* Mask kinds: which lanes an instance runs with. */
enum {
    MK_FULL,     /* every live lane of the warp                      */
    MK_NONE,     /* guard predicate false everywhere (@P0 EXIT)       */
    MK_IF,       /* lanes where this iteration's condition holds      */
    MK_ELSE,     /* the other live lanes                              */
    MK_BRIF,     /* branch over the if-part: lanes skipping it        */
    MK_BACK,     /* loop back edge: full while iterations remain      */
    MK_IDLE,     /* full when the warp has no loop work (skip branch) */
};

/* Address patterns. */
enum {
    AP_NONE,
    AP_STREAM,   /* grid-stride coalesced: elem = gtid + it * nthreads */
    AP_SCATTER,  /* random element per lane in a region               */
    AP_CHASE,    /* one random line per warp per iteration            */
    AP_SHARED,   /* shared: (lane * stride + slot) words, wraps       */
    AP_SHSTORE,  /* shared: warp-contiguous words                     */
    AP_WARPROW,  /* global: one row per warp (reduction output)       */
};

/* Executed only by some warps. */
enum { PATH_ALL, PATH_WORK, PATH_IDLE };

typedef struct sy_op {
    char opc[40];          /* "LDG.E.128"                                */
    char args[96];         /* SASS operands                               */
    int pred;              /* guard predicate 0-6, -1 none, 7 = !P0 ...    */
    int dst, dstn;         /* first GPR written, count; -1 none            */
    int pdst;              /* predicate written, -1 none                   */
    int nsrc;              /* GPR sources (as the tracer lists them)       */
    int src[SY_MAXSRC];
    int srcn[SY_MAXSRC];   /* registers per source (address pairs: 2)      */
    int psrc;              /* predicate read (besides the guard), -1 none  */
    int lc;                /* wc_latclass                                  */
    int varlat;            /* result through a dependence counter          */
    int mem;               /* 0, 1 load, 2 store                           */
    int width;             /* bytes per lane as the tracer computes it     */
    int ap;                /* address pattern                              */
    uint64_t base;         /* pattern base address                         */
    uint64_t region;       /* pattern region (elements or bytes)           */
    unsigned stride;       /* pattern parameter                            */
    int mk;                /* mask kind                                    */
    int path;              /* PATH_*                                       */
    int64_t imm;
    uint64_t pc;
    wc_ctrl ctrl;
} sy_op;

typedef struct sy_kernel {
    char name[160];
    sy_op *ops;
    size_t n, cap;
    size_t body_b, body_e; /* loop body [body_b, body_e)                   */
    long shmem;
    unsigned ctas, threads, iters;
    /* trips(w): loop iterations of a warp; see sy_trips */
    int trip_mode;         /* 0 all iters, 1 every 4th warp works (seed 001
                              unbalanced), 2 first 8 warps work (balanced),
                              3 random 1..iters per warp                      */
    int oom;
} sy_kernel;

enum { TRIP_ALL, TRIP_EVERY4, TRIP_FIRST8, TRIP_RANDOM };

static const uint64_t SY_SHMEM_BASE = 0x00007f5e00000000ull;
static const uint64_t SY_LOCAL_BASE = 0x00007f5ddd000000ull;
static const uint64_t SY_HEAP = 0x00007fb0fc400000ull;

static sy_op *sy_emit(sy_kernel *k, const char *opc, int lc, const char *args)
{
    if (k->n == k->cap) {
        size_t nc = k->cap ? k->cap * 2 : 32;
        sy_op *no = realloc(k->ops, nc * sizeof *no);
        if (!no) {
            k->oom = 1;
            return NULL;
        }
        k->ops = no;
        k->cap = nc;
    }
    sy_op *o = &k->ops[k->n++];
    memset(o, 0, sizeof *o);
    snprintf(o->opc, sizeof o->opc, "%s", opc);
    snprintf(o->args, sizeof o->args, "%s", args);
    o->pred = -1;
    o->dst = -1;
    o->pdst = -1;
    o->psrc = -1;
    o->lc = lc;
    o->mk = MK_FULL;
    o->path = PATH_ALL;
    return o;
}

/* Static instruction builders.  A NULL return means out of memory; the
 * builders below check k->oom once at the end instead of after each op. */
static sy_op sy_dummy;

static sy_op *op(sy_kernel *k, const char *opc, int lc, int dst, int dstn,
                 const char *args, int nsrc, ...)
{
    sy_op *o = sy_emit(k, opc, lc, args);
    if (!o) {
        memset(&sy_dummy, 0, sizeof sy_dummy);
        return &sy_dummy;
    }
    o->dst = dst;
    o->dstn = dst >= 0 ? dstn : 0;
    va_list ap;
    va_start(ap, nsrc);
    for (int i = 0; i < nsrc && i < SY_MAXSRC; i++) {
        int r = va_arg(ap, int);
        o->src[o->nsrc] = r;
        o->srcn[o->nsrc] = 1;
        o->nsrc++;
    }
    va_end(ap);
    return o;
}

/* Width rule of the tracer (get_datawidth_from_opcode): the first purely
 * numeric '.'-token of the opcode / 8, or U<bits> / 8, else 4 bytes. */
static int sy_tracer_width(const char *opc)
{
    const char *p = opc;
    while (*p) {
        const char *e = strchr(p, '.');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > 0) {
            size_t i = 0;
            int digits = 1;
            for (i = 0; i < n; i++)
                if (p[i] < '0' || p[i] > '9')
                    digits = 0;
            if (digits)
                return atoi(p) / 8;
            if (p[0] == 'U' && n > 1) {
                int d2 = 1;
                for (i = 1; i < n; i++)
                    if (p[i] < '0' || p[i] > '9')
                        d2 = 0;
                if (d2)
                    return atoi(p + 1) / 8;
            }
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 4;
}

static void mem_op(sy_op *o, int kind, int ap, uint64_t base, uint64_t region,
                   unsigned stride)
{
    o->mem = kind;
    o->varlat = 1;
    o->width = sy_tracer_width(o->opc);
    o->ap = ap;
    o->base = base;
    o->region = region;
    o->stride = stride;
}

/* ------------------------------------------------------------------------ */
/* Kernel templates                                                          */
/* ------------------------------------------------------------------------ */

/* Prologue shared by every kernel: stack pointer, thread / block ids,
 * global thread id in R0, uniform descriptor. */
static void prologue(sy_kernel *k)
{
    op(k, "MOV", WC_LAT_misc, 1, 1, "R1, c[0x0][0x28]", 0);
    sy_op *o = op(k, "S2R", WC_LAT_misc, 0, 1, "R0, SR_TID.X", 0);
    o->varlat = 1;
    o = op(k, "S2R", WC_LAT_misc, 3, 1, "R3, SR_CTAID.X", 0);
    o->varlat = 1;
    op(k, "IMAD", WC_LAT_imad, 0, 1, "R0, R3, c[0x0][0x0], R0", 2, 3, 0);
    op(k, "ULDC.64", WC_LAT_uniform, -1, 0, "UR4, c[0x0][0x118]", 0);
}

/* Loop tail: counter, compare, back edge.  R20 is the trip counter. */
static void loop_tail(sy_kernel *k)
{
    op(k, "IADD3", WC_LAT_int, 20, 1, "R20, R20, 0x1, RZ", 2, 20, 255);
    sy_op *o = op(k, "ISETP.GE.AND", WC_LAT_int, -1, 0,
                  "P0, PT, R20, c[0x0][0x16c], PT", 1, 20);
    o->pdst = 0;
    o = op(k, "BRA", WC_LAT_branch, -1, 0, "", 0);
    o->pred = 8; /* !P0 */
    o->psrc = 0;
    o->mk = MK_BACK;
}

static void loop_begin(sy_kernel *k)
{
    k->body_b = k->n;
}

static void loop_end(sy_kernel *k)
{
    loop_tail(k);
    k->body_e = k->n;
}

static void epilogue_exit(sy_kernel *k)
{
    op(k, "EXIT", WC_LAT_branch, -1, 0, "", 0);
}

/* The common tail: out[tid] = R<val> (a 4-byte store per lane through
 * R<addr>, the output pointer being the kernel parameter at c[0x0][param]),
 * streaming to heap, then EXIT. */
static void store_result_exit(sy_kernel *k, int addr, int val, unsigned param,
                              uint64_t heap)
{
    char args[64];
    snprintf(args, sizeof args, "R%d, R0, 0x4, c[0x0][0x%x]", addr, param);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, addr, 2, args, 1, 0);
    snprintf(args, sizeof args, "desc[UR4][R%d.64], R%d", addr, val);
    sy_op *o = op(k, "STG.E", WC_LAT_mem, -1, 0, args, 2, addr, val);
    o->srcn[0] = 2;
    mem_op(o, 2, AP_STREAM, heap, 0, 0);
    epilogue_exit(k);
}

/* compute: independent FFMA / IMAD chains (8 accumulators), throughput bound. */
static void build_compute(sy_kernel *k)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "I2F", WC_LAT_conv, 2, 1, "R2, R0", 1, 0)->varlat = 1;
    op(k, "MOV", WC_LAT_misc, 4, 1, "R4, 0x3f800000", 0);
    for (int a = 5; a < 12; a++) {
        char args[64];
        snprintf(args, sizeof args, "R%d, R4, R2, R%d", a, a - 1);
        op(k, "FFMA", WC_LAT_fp32, a, 1, args, 2, 4, 2);
    }
    loop_begin(k);
    for (int rep = 0; rep < 2; rep++)
        for (int a = 4; a < 12; a++) {
            char args[64];
            snprintf(args, sizeof args, "R%d, R%d, R2, R%d", a, a, a);
            op(k, "FFMA", WC_LAT_fp32, a, 1, args, 3, a, 2, a);
        }
    for (int a = 12; a < 16; a++) {
        char args[64];
        snprintf(args, sizeof args, "R%d, R%d, R0, R%d", a, a, a);
        op(k, "IMAD", WC_LAT_imad, a, 1, args, 3, a, 0, a);
    }
    loop_end(k);
    op(k, "FADD", WC_LAT_fp32, 4, 1, "R4, R4, R11", 2, 4, 11);
    store_result_exit(k, 6, 4, 0x160, SY_HEAP);
}

/* latency: one dependent FFMA chain and one dependent IMAD chain per warp. */
static void build_latency(sy_kernel *k)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "MOV", WC_LAT_misc, 2, 1, "R2, 0x3f800000", 0);
    op(k, "MOV", WC_LAT_misc, 4, 1, "R4, R0", 1, 0);
    loop_begin(k);
    for (int i = 0; i < 8; i++)
        op(k, "FFMA", WC_LAT_fp32, 4, 1, "R4, R4, R2, R2", 3, 4, 2, 2);
    for (int i = 0; i < 4; i++)
        op(k, "IMAD", WC_LAT_imad, 5, 1, "R5, R5, R5, R4", 3, 5, 5, 4);
    loop_end(k);
    store_result_exit(k, 6, 4, 0x160, SY_HEAP);
}

/* memory: streaming a[i] + b[i] -> c[i], 128-bit coalesced, grid-stride. */
static void build_memory(sy_kernel *k, uint64_t n_elems)
{
    uint64_t a = SY_HEAP, b = a + n_elems * 16 + 0x10000,
             c = b + n_elems * 16 + 0x10000;
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "MOV", WC_LAT_misc, 21, 1, "R21, c[0x0][0xc]", 0);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 2, 2, "R2, R0, 0x10, c[0x0][0x160]",
       1, 0);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 12, 2, "R12, R0, 0x10, c[0x0][0x168]",
       1, 0);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 14, 2, "R14, R0, 0x10, c[0x0][0x170]",
       1, 0);
    loop_begin(k);
    sy_op *o = op(k, "LDG.E.128", WC_LAT_mem, 4, 4, "R4, desc[UR4][R2.64]",
                  1, 2);
    o->srcn[0] = 2;
    mem_op(o, 1, AP_STREAM, a, 0, 0);
    o = op(k, "LDG.E.128", WC_LAT_mem, 8, 4, "R8, desc[UR4][R12.64]", 1, 12);
    o->srcn[0] = 2;
    mem_op(o, 1, AP_STREAM, b, 0, 0);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 2, 2, "R2, R21, 0x10, R2", 2, 21, 2);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 12, 2, "R12, R21, 0x10, R12", 2, 21,
       12);
    for (int i = 0; i < 4; i++) {
        char args[64];
        snprintf(args, sizeof args, "R%d, R%d, R%d", 4 + i, 4 + i, 8 + i);
        op(k, "FADD", WC_LAT_fp32, 4 + i, 1, args, 2, 4 + i, 8 + i);
    }
    o = op(k, "STG.E.128", WC_LAT_mem, -1, 0, "desc[UR4][R14.64], R4", 2, 14,
           4);
    o->srcn[0] = 2;
    o->srcn[1] = 4;
    mem_op(o, 2, AP_STREAM, c, 0, 0);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 14, 2, "R14, R21, 0x10, R14", 2, 21,
       14);
    loop_end(k);
    epilogue_exit(k);
}

/* divergent: data-dependent if/else with partial masks, gathers from random
 * addresses under the if-mask. */
static void build_divergent(sy_kernel *k)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "MOV", WC_LAT_misc, 8, 1, "R8, RZ", 0);
    op(k, "IMAD.SHL.U32", WC_LAT_imad, 9, 1, "R9, R0, 0x4, RZ", 1, 0);
    loop_begin(k);
    sy_op *o = op(k, "LOP3.LUT", WC_LAT_int, 10, 1,
                  "R10, R9, R20, RZ, 0x3c, !PT", 2, 9, 20);
    o = op(k, "ISETP.GT.U32.AND", WC_LAT_int, -1, 0, "P1, PT, R10, 0x7f, PT",
           1, 10);
    o->pdst = 1;
    o = op(k, "BSSY", WC_LAT_branch, -1, 0, "B0, `(.L_x_2)", 0);
    o = op(k, "BRA", WC_LAT_branch, -1, 0, "`(.L_x_3)", 0);
    o->pred = 1;
    o->psrc = 1;
    o->mk = MK_BRIF;
    /* if-part: gather + math */
    o = op(k, "IMAD.WIDE.U32", WC_LAT_imadwide, 2, 2,
           "R2, R10, 0x4, c[0x0][0x160]", 1, 10);
    o->mk = MK_IF;
    o = op(k, "LDG.E", WC_LAT_mem, 11, 1, "R11, desc[UR4][R2.64]", 1, 2);
    o->srcn[0] = 2;
    mem_op(o, 1, AP_SCATTER, SY_HEAP, 1u << 22, 0);
    o->mk = MK_IF;
    o = op(k, "FFMA", WC_LAT_fp32, 8, 1, "R8, R11, R11, R8", 3, 11, 11, 8);
    o->mk = MK_IF;
    o = op(k, "MUFU.RSQ", WC_LAT_sfu, 12, 1, "R12, R8", 1, 8);
    o->varlat = 1;
    o->mk = MK_IF;
    o = op(k, "FMUL", WC_LAT_fp32, 8, 1, "R8, R12, R8", 2, 12, 8);
    o->mk = MK_IF;
    o = op(k, "BRA", WC_LAT_branch, -1, 0, "`(.L_x_2)", 0);
    o->mk = MK_IF;
    /* else-part */
    o = op(k, "FADD", WC_LAT_fp32, 8, 1, "R8, R8, 1", 1, 8);
    o->mk = MK_ELSE;
    o = op(k, "IADD3", WC_LAT_int, 9, 1, "R9, R9, 0x3, RZ", 1, 9);
    o->mk = MK_ELSE;
    o = op(k, "BSYNC", WC_LAT_branch, -1, 0, "B0", 0);
    loop_end(k);
    store_result_exit(k, 6, 8, 0x168, SY_HEAP + (64ull << 20));
}

/* imbalanced / balanced (seed 001, Fig. 3/4): some warps run an FFMA loop,
 * the others go straight to the CTA barrier; everybody exits after it. */
static void build_imbalanced(sy_kernel *k)
{
    prologue(k);
    op(k, "SHF.R.U32.HI", WC_LAT_int, 5, 1, "R5, RZ, 0x5, R0", 1, 0);
    sy_op *o = op(k, "ISETP.NE.AND", WC_LAT_int, -1, 0,
                  "P0, PT, R5, RZ, PT", 1, 5);
    o->pdst = 0;
    o = op(k, "BRA", WC_LAT_branch, -1, 0, "`(.L_x_1)", 0);
    o->pred = 0;
    o->psrc = 0;
    o->mk = MK_IDLE;
    o = op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    o->path = PATH_WORK;
    o = op(k, "MOV", WC_LAT_misc, 2, 1, "R2, 0x3f800000", 0);
    o->path = PATH_WORK;
    loop_begin(k);
    for (int i = 0; i < 16; i++) {
        int a = 4 + (i % 8);
        char args[64];
        snprintf(args, sizeof args, "R%d, R%d, R2, R2", a, a);
        op(k, "FFMA", WC_LAT_fp32, a, 1, args, 3, a, 2, 2);
    }
    loop_end(k);
    for (size_t i = k->body_b; i < k->body_e && !k->oom; i++)
        k->ops[i].path = PATH_WORK;
    op(k, "BAR.SYNC.DEFER_BLOCKING", WC_LAT_branch, -1, 0, "0x0", 0);
    epilogue_exit(k);
}

/* shared: stage a tile with STS, barrier, then LDS with 1-, 2-, 4- and
 * 32-way bank conflicts feeding FFMAs. */
static void build_shared(sy_kernel *k)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "S2R", WC_LAT_misc, 7, 1, "R7, SR_LANEID", 0)->varlat = 1;
    op(k, "IMAD.SHL.U32", WC_LAT_imad, 6, 1, "R6, R7, 0x4, RZ", 1, 7);
    op(k, "I2F", WC_LAT_conv, 2, 1, "R2, R0", 1, 0)->varlat = 1;
    sy_op *o = op(k, "STS", WC_LAT_mem, -1, 0, "[R6], R2", 2, 6, 2);
    mem_op(o, 2, AP_SHSTORE, SY_SHMEM_BASE, (uint64_t)k->shmem, 0);
    op(k, "BAR.SYNC.DEFER_BLOCKING", WC_LAT_branch, -1, 0, "0x0", 0);
    loop_begin(k);
    static const unsigned strides[4] = {1, 2, 4, 32};
    for (int i = 0; i < 4; i++) {
        char args[64];
        snprintf(args, sizeof args, "R%d, [R6+0x%x]", 8 + i, i * 0x80);
        o = op(k, "LDS", WC_LAT_mem, 8 + i, 1, args, 1, 6);
        mem_op(o, 1, AP_SHARED, SY_SHMEM_BASE, (uint64_t)k->shmem,
               strides[i]);
    }
    for (int i = 0; i < 4; i++) {
        char args[64];
        snprintf(args, sizeof args, "R2, R%d, R%d, R2", 8 + i, 8 + i);
        op(k, "FFMA", WC_LAT_fp32, 2, 1, args, 3, 8 + i, 8 + i, 2);
    }
    loop_end(k);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 4, 2, "R4, R0, 0x4, c[0x0][0x160]",
       1, 0);
    o = op(k, "STG.E", WC_LAT_mem, -1, 0, "desc[UR4][R4.64], R2", 2, 4, 2);
    o->srcn[0] = 2;
    mem_op(o, 2, AP_STREAM, SY_HEAP, 0, 0);
    epilogue_exit(k);
}

/* chase: dependent loads (pointer chasing), one random line per step. */
static void build_chase(sy_kernel *k)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 2, 2, "R2, R0, 0x4, c[0x0][0x160]",
       1, 0);
    loop_begin(k);
    sy_op *o = op(k, "LDG.E.64", WC_LAT_mem, 2, 2, "R2, desc[UR4][R2.64]", 1,
                  2);
    o->srcn[0] = 2;
    mem_op(o, 1, AP_CHASE, SY_HEAP, 1u << 18, 0);
    loop_end(k);
    store_result_exit(k, 6, 2, 0x168, SY_HEAP + (64ull << 20));
}

/* fp64: independent DFMA chains (few FP64 units on consumer parts). */
static void build_fp64(sy_kernel *k)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "I2F.F64", WC_LAT_conv, 2, 2, "R2, R0", 1, 0)->varlat = 1;
    loop_begin(k);
    for (int a = 4; a < 12; a += 2) {
        char args[64];
        snprintf(args, sizeof args, "R%d, R%d, R2, R%d", a, a, a);
        sy_op *o = op(k, "DFMA", WC_LAT_fp64, a, 2, args, 3, a, 2, a);
        o->srcn[0] = o->srcn[1] = o->srcn[2] = 2;
        o->varlat = 1;
    }
    loop_end(k);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 12, 2, "R12, R0, 0x8, c[0x0][0x160]",
       1, 0);
    sy_op *o = op(k, "STG.E.64", WC_LAT_mem, -1, 0, "desc[UR4][R12.64], R4",
                  2, 12, 4);
    o->srcn[0] = o->srcn[1] = 2;
    mem_op(o, 2, AP_STREAM, SY_HEAP, 0, 0);
    epilogue_exit(k);
}

/* tensor: HMMA chains fed from shared memory. */
static void build_tensor(sy_kernel *k)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "S2R", WC_LAT_misc, 7, 1, "R7, SR_LANEID", 0)->varlat = 1;
    op(k, "IMAD.SHL.U32", WC_LAT_imad, 6, 1, "R6, R7, 0x10, RZ", 1, 7);
    loop_begin(k);
    sy_op *o = op(k, "LDS.128", WC_LAT_mem, 8, 4, "R8, [R6]", 1, 6);
    mem_op(o, 1, AP_SHARED, SY_SHMEM_BASE, (uint64_t)k->shmem, 4);
    o = op(k, "LDS.64", WC_LAT_mem, 12, 2, "R12, [R6+0x800]", 1, 6);
    mem_op(o, 1, AP_SHARED, SY_SHMEM_BASE, (uint64_t)k->shmem, 2);
    for (int a = 16; a < 32; a += 4) {
        char args[64];
        snprintf(args, sizeof args, "R%d, R8, R12, R%d", a, a);
        o = op(k, "HMMA.16816.F32", WC_LAT_tensor, a, 4, args, 3, 8, 12, a);
        o->srcn[0] = 4;
        o->srcn[1] = 2;
        o->srcn[2] = 4;
    }
    loop_end(k);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 2, 2, "R2, R0, 0x10, c[0x0][0x160]",
       1, 0);
    o = op(k, "STG.E.128", WC_LAT_mem, -1, 0, "desc[UR4][R2.64], R16", 2, 2,
           16);
    o->srcn[0] = 2;
    o->srcn[1] = 4;
    mem_op(o, 2, AP_STREAM, SY_HEAP, 0, 0);
    epilogue_exit(k);
}

/* mixed: a bit of everything in one loop body (loads, shared, FFMA, MUFU,
 * a divergent branch), plus a reduction row store. */
static void build_mixed_body(sy_kernel *k, uint64_t n_elems)
{
    prologue(k);
    op(k, "MOV", WC_LAT_misc, 20, 1, "R20, RZ", 0);
    op(k, "S2R", WC_LAT_misc, 7, 1, "R7, SR_LANEID", 0)->varlat = 1;
    op(k, "IMAD.SHL.U32", WC_LAT_imad, 6, 1, "R6, R7, 0x4, RZ", 1, 7);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 2, 2, "R2, R0, 0x4, c[0x0][0x160]",
       1, 0);
    op(k, "MOV", WC_LAT_misc, 9, 1, "R9, RZ", 0);
    op(k, "MOV", WC_LAT_misc, 21, 1, "R21, c[0x0][0xc]", 0);
    loop_begin(k);
    sy_op *o = op(k, "LDG.E", WC_LAT_mem, 4, 1, "R4, desc[UR4][R2.64]", 1, 2);
    o->srcn[0] = 2;
    mem_op(o, 1, AP_STREAM, SY_HEAP, n_elems, 0);
    o = op(k, "LDS", WC_LAT_mem, 5, 1, "R5, [R6]", 1, 6);
    mem_op(o, 1, AP_SHARED, SY_SHMEM_BASE, (uint64_t)k->shmem, 2);
    op(k, "IMAD.WIDE", WC_LAT_imadwide, 2, 2, "R2, R21, 0x4, R2", 2, 21, 2);
    op(k, "FFMA", WC_LAT_fp32, 9, 1, "R9, R4, R5, R9", 3, 4, 5, 9);
    op(k, "FFMA", WC_LAT_fp32, 10, 1, "R10, R4, R4, R10", 3, 4, 4, 10);
    op(k, "IADD3", WC_LAT_int, 11, 1, "R11, R11, R4, RZ", 2, 11, 4);
    o = op(k, "FSETP.GT.AND", WC_LAT_fp32, -1, 0, "P1, PT, R4, 0.5, PT", 1, 4);
    o->pdst = 1;
    o = op(k, "BRA", WC_LAT_branch, -1, 0, "`(.L_x_3)", 0);
    o->pred = 1;
    o->psrc = 1;
    o->mk = MK_BRIF;
    o = op(k, "MUFU.EX2", WC_LAT_sfu, 12, 1, "R12, R10", 1, 10);
    o->varlat = 1;
    o->mk = MK_IF;
    o = op(k, "FADD", WC_LAT_fp32, 9, 1, "R9, R9, R12", 2, 9, 12);
    o->mk = MK_IF;
    op(k, "STS", WC_LAT_mem, -1, 0, "[R6], R9", 2, 6, 9);
    mem_op(&k->ops[k->n - 1], 2, AP_SHSTORE, SY_SHMEM_BASE,
           (uint64_t)k->shmem, 0);
    loop_end(k);
    op(k, "BAR.SYNC.DEFER_BLOCKING", WC_LAT_branch, -1, 0, "0x0", 0);
    store_result_exit(k, 14, 9, 0x168, SY_HEAP + n_elems * 8 + (1u << 20));
}

/* ------------------------------------------------------------------------ */
/* Kinds                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const sy_kinds[] = {
    "compute", "latency", "memory", "divergent", "imbalanced", "balanced",
    "shared",  "chase",   "fp64",   "tensor",    "mixed",      NULL,
};

const char *const *wc_synth_kinds(void)
{
    return sy_kinds;
}

static int sy_kind_index(const char *kind)
{
    for (int i = 0; sy_kinds[i]; i++)
        if (kind && strcmp(kind, sy_kinds[i]) == 0)
            return i;
    return -1;
}

void wc_synth_defaults(wc_synth_params *p, const char *kind)
{
    memset(p, 0, sizeof *p);
    p->kind = kind ? kind : "mixed";
    p->ctas = 64;
    p->threads = 256;
    p->iters = 16;
    p->seed = 1;
    p->binary_version = 90;
    p->with_sass = 1;
    p->zstd = 0;
    if (!kind)
        return;
    if (strcmp(kind, "latency") == 0) {
        p->ctas = 1;
        p->threads = 32;
        p->iters = 64;
    } else if (strcmp(kind, "chase") == 0) {
        p->ctas = 4;
        p->threads = 32;
        p->iters = 32;
    } else if (strcmp(kind, "imbalanced") == 0 ||
               strcmp(kind, "balanced") == 0) {
        /* seed 001 Fig. 4: 1024 threads, 8 compute warps (4096 FMA each) */
        p->ctas = 1;
        p->threads = 1024;
        p->iters = 256;
    } else if (strcmp(kind, "memory") == 0) {
        p->ctas = 128;
        p->threads = 256;
        p->iters = 8;
    } else if (strcmp(kind, "mixed") == 0) {
        p->ctas = 48;
        p->threads = 128;
        p->iters = 8;
    }
}

/* Kernel names as nvcc would mangle them. */
static const char *sy_mangled(const char *kind)
{
    static const struct {
        const char *k, *n;
    } names[] = {
        {"compute", "_Z13computeKernelPfi"},
        {"latency", "_Z13latencyKernelPfi"},
        {"memory", "_Z12streamKernelPK6float4S1_PS_i"},
        {"divergent", "_Z15divergentKernelPKfPfi"},
        {"imbalanced", "_Z19imbalancedFmaKernelPfi"},
        {"balanced", "_Z17balancedFmaKernelPfi"},
        {"shared", "_Z12sharedKernelPfi"},
        {"chase", "_Z11chaseKernelPmPji"},
        {"fp64", "_Z10dfmaKernelPdi"},
        {"tensor", "_Z12tensorKernelP6float4i"},
        {"mixed", "_Z11mixedKernelPKfPfi"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].k, kind) == 0)
            return names[i].n;
    return "_Z6kernelv";
}

static int sy_build(sy_kernel *k, const char *kind, unsigned ctas,
                    unsigned threads, unsigned iters)
{
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", sy_mangled(kind));
    k->ctas = ctas;
    k->threads = threads;
    k->iters = iters;
    uint64_t n_elems = (uint64_t)ctas * threads * (iters ? iters : 1);
    if (strcmp(kind, "compute") == 0)
        build_compute(k);
    else if (strcmp(kind, "latency") == 0)
        build_latency(k);
    else if (strcmp(kind, "memory") == 0)
        build_memory(k, n_elems);
    else if (strcmp(kind, "divergent") == 0)
        build_divergent(k);
    else if (strcmp(kind, "imbalanced") == 0) {
        build_imbalanced(k);
        k->trip_mode = TRIP_EVERY4;
    } else if (strcmp(kind, "balanced") == 0) {
        build_imbalanced(k);
        k->trip_mode = TRIP_FIRST8;
    } else if (strcmp(kind, "shared") == 0) {
        k->shmem = (long)threads * 4 * 4;
        build_shared(k);
    } else if (strcmp(kind, "chase") == 0)
        build_chase(k);
    else if (strcmp(kind, "fp64") == 0)
        build_fp64(k);
    else if (strcmp(kind, "tensor") == 0) {
        k->shmem = 16384;
        build_tensor(k);
    } else {
        k->shmem = (long)threads * 4;
        build_mixed_body(k, n_elems);
        k->trip_mode = TRIP_RANDOM;
    }
    if (k->oom)
        return -1;
    for (size_t i = 0; i < k->n; i++)
        k->ops[i].pc = (uint64_t)i * 16;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Control bits: the compiler's schedule                                     */
/* ------------------------------------------------------------------------ */

/* Register ids for dependence tracking: GPRs 0-254, predicates 256+p. */
enum { SY_NREG = 264 };

typedef struct sy_sched {
    long ready[SY_NREG];   /* fixed-latency result ready at              */
    int wpend[SY_NREG];    /* write counter the register waits on, -1    */
    int rpend[SY_NREG];    /* read counter guarding a pending reader     */
    long t;                /* issue cycle of the previous instruction    */
    long prev;             /* index of the previous op, -1               */
    int next_w, next_r;
} sy_sched;

static void sy_regs_of(const sy_op *o, int *rd, int *nrd, int *wr, int *nwr)
{
    *nrd = 0;
    *nwr = 0;
    for (int s = 0; s < o->nsrc; s++)
        for (int j = 0; j < o->srcn[s]; j++)
            if (o->src[s] + j < 255)
                rd[(*nrd)++] = o->src[s] + j;
    if (o->psrc >= 0)
        rd[(*nrd)++] = 256 + o->psrc;
    if (o->dst >= 0)
        for (int j = 0; j < o->dstn; j++)
            if (o->dst + j < 255)
                wr[(*nwr)++] = o->dst + j;
    if (o->pdst >= 0)
        wr[(*nwr)++] = 256 + o->pdst;
}

static void sy_sched_one(sy_sched *s, sy_kernel *k, size_t i, const wc_gpu *g)
{
    sy_op *o = &k->ops[i];
    int rd[40], wr[8], nrd, nwr;
    sy_regs_of(o, rd, &nrd, wr, &nwr);
    unsigned wait = 0;
    long need = s->t + 1;
    for (int j = 0; j < nrd; j++) {
        if (s->wpend[rd[j]] >= 0)
            wait |= 1u << s->wpend[rd[j]];
        if (s->ready[rd[j]] > need)
            need = s->ready[rd[j]];
    }
    for (int j = 0; j < nwr; j++) {
        if (s->wpend[wr[j]] >= 0)
            wait |= 1u << s->wpend[wr[j]];
        if (s->rpend[wr[j]] >= 0)
            wait |= 1u << s->rpend[wr[j]];
        if (s->ready[wr[j]] > need) /* WAW with an in-flight fixed op */
            need = s->ready[wr[j]];
    }
    /* waiting clears everything the counters guarded */
    for (int r = 0; r < SY_NREG; r++) {
        if (s->wpend[r] >= 0 && (wait >> s->wpend[r]) & 1u)
            s->wpend[r] = -1;
        if (s->rpend[r] >= 0 && (wait >> s->rpend[r]) & 1u)
            s->rpend[r] = -1;
    }
    o->ctrl.valid = 1;
    o->ctrl.wait = (uint8_t)(o->ctrl.wait | wait);
    if (s->prev >= 0) {
        sy_op *p = &k->ops[s->prev];
        long st = need - s->t;
        if (st < 1)
            st = 1;
        if (st > 15)
            st = 15;
        if (st > p->ctrl.stall)
            p->ctrl.stall = (uint8_t)st;
        s->t += st;
    } else {
        s->t = 0;
    }
    long lat = wc_gpu_lat(g, o->lc);
    int varlat = o->varlat || o->mem || lat > 15;
    if (varlat && nwr > 0 && o->mem != 2) {
        if (o->ctrl.wbar < 0) { /* one counter per static op */
            o->ctrl.wbar = (int8_t)s->next_w;
            s->next_w = (s->next_w + 1) % 3;
        }
        int sb = o->ctrl.wbar;
        for (int j = 0; j < nwr; j++) {
            s->wpend[wr[j]] = sb;
            s->ready[wr[j]] = 0;
        }
    } else if (nwr > 0) {
        for (int j = 0; j < nwr; j++) {
            s->ready[wr[j]] = s->t + (lat > 0 ? lat : 1);
            s->wpend[wr[j]] = -1;
        }
    }
    if (o->mem && nrd > 0) {
        if (o->ctrl.rbar < 0) {
            o->ctrl.rbar = (int8_t)(3 + s->next_r);
            s->next_r = (s->next_r + 1) % 3;
        }
        int sb = o->ctrl.rbar;
        for (int j = 0; j < nrd; j++)
            if (rd[j] < 255)
                s->rpend[rd[j]] = sb;
    }
    if (o->lc == WC_LAT_branch && o->mk == MK_BACK)
        o->ctrl.yield = 1;
    s->prev = (long)i;
}

/* Whether some execution of the kernel skips op j right after op i: the
 * side of an if/else that i is not on, the loop work of an idle warp. */
static int sy_skippable(const sy_op *i, const sy_op *j)
{
    if ((j->mk == MK_IF || j->mk == MK_ELSE) && j->mk != i->mk)
        return 1;
    return j->path != i->path;
}

/* Raise the stall of op i to 2 if an op that can run right after it,
 * starting the search at j, waits on one of the counters in bars.  The
 * loop back edge goes from the end of the body to its start. */
static void sy_raise_stall(sy_kernel *k, size_t i, unsigned bars, size_t j,
                           int depth)
{
    sy_op *o = &k->ops[i];
    for (; j < k->n && depth < 64; j++, depth++) {
        if (j == k->body_e && i >= k->body_b && i < k->body_e)
            sy_raise_stall(k, i, bars, k->body_b, depth + 1);
        if ((k->ops[j].ctrl.wait & bars) && o->ctrl.stall < 2)
            o->ctrl.stall = 2;
        if (!sy_skippable(o, &k->ops[j]))
            return;
    }
}

/* Seed 000 sec. 4: Control raises a dependence counter the cycle after
 * issue and Issue sees it from the next cycle, so a producer whose next
 * instruction waits on its write or read counter needs stall >= 2 (else
 * the consumer slips through before the counter is up), as the compiler
 * does for LDG -> FFMA, MUFU -> FMUL, S2R -> IMAD. */
static void sy_counter_stalls(sy_kernel *k)
{
    for (size_t i = 0; i < k->n; i++) {
        const sy_op *o = &k->ops[i];
        unsigned bars = 0;
        if (o->ctrl.wbar >= 0)
            bars |= 1u << o->ctrl.wbar;
        if (o->ctrl.rbar >= 0)
            bars |= 1u << o->ctrl.rbar;
        if (bars)
            sy_raise_stall(k, i, bars, i + 1, 0);
    }
}

static void sy_control_bits(sy_kernel *k, const wc_gpu *g)
{
    sy_sched *s = calloc(1, sizeof *s);
    if (!s)
        return; /* control bits stay invalid: harmless */
    for (size_t i = 0; i < k->n; i++) {
        k->ops[i].ctrl.wbar = -1;
        k->ops[i].ctrl.rbar = -1;
        k->ops[i].ctrl.stall = 1;
    }
    for (int r = 0; r < SY_NREG; r++) {
        s->wpend[r] = -1;
        s->rpend[r] = -1;
    }
    s->prev = -1;
    /* P, B, B, E: the second copy of the body sees the loop-carried
     * producers; stall and wait values are merged (max / union). */
    for (size_t i = 0; i < k->body_b; i++)
        sy_sched_one(s, k, i, g);
    for (int rep = 0; rep < 2; rep++)
        for (size_t i = k->body_b; i < k->body_e; i++)
            sy_sched_one(s, k, i, g);
    for (size_t i = k->body_e; i < k->n; i++)
        sy_sched_one(s, k, i, g);
    /* the EXIT waits for every outstanding counter it does not depend on
     * only through memory ordering; compilers leave it at S05 */
    k->ops[k->n - 1].ctrl.stall = 5;
    sy_counter_stalls(k);
    free(s);
}

/* ------------------------------------------------------------------------ */
/* Dynamic streams                                                           */
/* ------------------------------------------------------------------------ */

static uint64_t sy_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t sy_hash(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return sy_mix(seed ^ sy_mix(a + 0x9e3779b97f4a7c15ull *
                                        sy_mix(b + 0x632be59bd9b4e019ull * c)));
}

typedef struct sy_warp {
    unsigned cta, w;       /* CTA index, warp in CTA          */
    uint32_t live;         /* lanes that exist                */
    unsigned trips;        /* loop iterations                 */
    uint64_t seed;
    uint32_t cond;         /* this iteration's if-mask        */
    unsigned nthreads;     /* grid threads                    */
    unsigned threads;      /* CTA threads                     */
} sy_warp;

static unsigned sy_trips(const sy_kernel *k, const sy_warp *wp)
{
    switch (k->trip_mode) {
    case TRIP_EVERY4:
        return wp->w % 4 == 0 ? k->iters : 0;
    case TRIP_FIRST8:
        return wp->w < 8 ? k->iters : 0;
    case TRIP_RANDOM: {
        wc_rng r;
        wc_rng_seed(&r, sy_hash(wp->seed, wp->cta, wp->w, 77));
        unsigned lo = k->iters / 2 ? k->iters / 2 : 1;
        return lo + (unsigned)(wc_rng_next(&r) % (k->iters - lo + 1));
    }
    default:
        return k->iters;
    }
}

static uint32_t sy_mask(const sy_op *o, const sy_warp *wp, unsigned it,
                        unsigned trips)
{
    switch (o->mk) {
    case MK_NONE:
        return 0;
    case MK_IF:
        return wp->cond & wp->live;
    case MK_ELSE:
        return ~wp->cond & wp->live;
    case MK_BRIF:
        return ~wp->cond & wp->live;
    case MK_BACK:
        return it + 1 < trips ? wp->live : 0;
    case MK_IDLE:
        return trips == 0 ? wp->live : 0;
    default:
        return wp->live;
    }
}

static void sy_addrs(const sy_op *o, const sy_warp *wp, unsigned it,
                     uint32_t mask, uint64_t *a)
{
    unsigned wd = (unsigned)o->width;
    for (unsigned l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u)) {
            a[l] = 0;
            continue;
        }
        uint64_t tid = (uint64_t)wp->w * 32 + l;
        uint64_t gtid = (uint64_t)wp->cta * wp->threads + tid;
        switch (o->ap) {
        case AP_STREAM:
            a[l] = o->base + (gtid + (uint64_t)it * wp->nthreads) * wd;
            break;
        case AP_SCATTER: {
            uint64_t h = sy_hash(wp->seed ^ o->pc, gtid, it, 3);
            a[l] = o->base + (h % (o->region ? o->region : 1)) * wd;
            break;
        }
        case AP_CHASE: {
            uint64_t h = sy_hash(wp->seed ^ o->pc, wp->cta * 64 + wp->w, it, 5);
            a[l] = o->base + (h % (o->region ? o->region : 1)) * 128 +
                   (uint64_t)l * wd % 128;
            break;
        }
        case AP_SHARED: {
            uint64_t words = o->region / 4 ? o->region / 4 : 1;
            uint64_t wi = ((uint64_t)l * o->stride * (wd / 4 ? wd / 4 : 1) +
                           (uint64_t)wp->w * 32 + it) %
                          words;
            a[l] = o->base + wi * 4;
            break;
        }
        case AP_SHSTORE: {
            uint64_t words = o->region / 4 ? o->region / 4 : 1;
            a[l] = o->base + (tid % words) * 4;
            break;
        }
        case AP_WARPROW:
            a[l] = o->base + ((uint64_t)wp->cta * 64 + wp->w) * 128 + l * 4u;
            break;
        default:
            a[l] = 0;
        }
    }
}

/* One trace line, exactly as the tracer prints it. */
static void sy_line(gen_out *out, const sy_op *o, const sy_warp *wp,
                    unsigned it, unsigned trips)
{
    char line[2048];
    size_t n = 0;
    uint32_t mask = sy_mask(o, wp, it, trips);
#define PUT(...)                                                               \
    do {                                                                       \
        int r_ = snprintf(line + n, sizeof line - n, __VA_ARGS__);             \
        if (r_ > 0)                                                            \
            n += (size_t)r_ < sizeof line - n ? (size_t)r_ : sizeof line - n - 1; \
    } while (0)
    PUT("%04llx %08x ", (unsigned long long)o->pc, mask);
    if (o->dst >= 0)
        PUT("1 R%d ", o->dst);
    else
        PUT("0 ");
    PUT("%s %d ", o->opc, o->nsrc);
    for (int s = 0; s < o->nsrc; s++)
        PUT("R%d ", o->src[s]);
    if (o->mem) {
        uint64_t a[32];
        sy_addrs(o, wp, it, mask, a);
        PUT("%d ", o->width);
        /* base_stride_compress, then base_delta_compress */
        int first = -1, ok = 1, last_found = 0;
        int64_t stride = 0;
        for (int l = 0; l < 32 && ok; l++) {
            int on = (mask >> l) & 1u;
            if (on && first < 0) {
                first = l;
                if (l < 31 && ((mask >> (l + 1)) & 1u))
                    stride = (int64_t)(a[l + 1] - a[l]);
                else
                    ok = 0;
            } else if (first >= 0 && !last_found) {
                if (on) {
                    if (stride != (int64_t)(a[l] - a[l - 1]))
                        ok = 0;
                } else
                    last_found = 1;
            } else if (last_found && on)
                ok = 0;
        }
        if (ok) {
            PUT("1 0x%llx %d ", (unsigned long long)(first >= 0 ? a[first] : 0),
                (int)stride);
        } else {
            uint64_t prev = 0;
            int started = 0;
            for (int l = 0; l < 32; l++) {
                if (!((mask >> l) & 1u))
                    continue;
                if (!started) {
                    PUT("2 0x%llx ", (unsigned long long)a[l]);
                    started = 1;
                } else
                    PUT("%lld ", (long long)(a[l] - prev));
                prev = a[l];
            }
        }
    } else {
        PUT("0 ");
    }
    PUT("%lld \n", (long long)o->imm);
#undef PUT
    gen_out_write(out, line, n);
}

/* Dynamic stream of one warp into a growable memory sink (the count
 * precedes the lines in the file). */
static int sy_write_warp(gen_out *out, gen_out *tmp, const sy_kernel *k,
                         sy_warp *wp)
{
    unsigned trips = sy_trips(k, wp);
    uint64_t count = 0;
    tmp->n = 0;
    for (size_t i = 0; i < k->body_b; i++) {
        const sy_op *o = &k->ops[i];
        if (o->path == PATH_WORK && trips == 0)
            continue;
        if (o->path == PATH_IDLE && trips != 0)
            continue;
        sy_line(tmp, o, wp, 0, trips);
        count++;
    }
    for (unsigned it = 0; it < trips; it++) {
        wc_rng r;
        wc_rng_seed(&r, sy_hash(wp->seed, wp->cta, wp->w, 1000 + it));
        wp->cond = (uint32_t)wc_rng_next(&r);
        for (size_t i = k->body_b; i < k->body_e; i++) {
            const sy_op *o = &k->ops[i];
            uint32_t m = sy_mask(o, wp, it, trips);
            /* instructions of an if/else side nobody takes are skipped by
             * the warp (BSSY/BRA jump over them) */
            if ((o->mk == MK_IF || o->mk == MK_ELSE) && m == 0)
                continue;
            sy_line(tmp, o, wp, it, trips);
            count++;
        }
    }
    for (size_t i = k->body_e; i < k->n; i++) {
        const sy_op *o = &k->ops[i];
        if (o->path == PATH_WORK && trips == 0)
            continue;
        sy_line(tmp, o, wp, trips ? trips - 1 : 0, trips);
        count++;
    }
    if (tmp->err)
        return -1;
    gen_out_printf(out, "warp = %u\ninsts = %llu\n", wp->w,
              (unsigned long long)count);
    gen_out_write(out, tmp->buf, tmp->n);
    gen_out_write(out, "\n", 1);
    return out->err;
}

static int sy_write_kernel(const sy_kernel *k, int id,
                           const wc_synth_params *p, const char *path,
                           wc_diag *d)
{
    gen_out out;
    if (gen_out_open(&out, path, p->zstd) != 0) {
        gen_out_close(&out);
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "cannot write: %s",
                           strerror(errno));
    }
    /* the warp buffer: grows as needed (one warp at a time) */
    gen_out tmp;
    memset(&tmp, 0, sizeof tmp);
    int max_reg = 1;
    for (size_t i = 0; i < k->n; i++) {
        const sy_op *o = &k->ops[i];
        if (o->dst >= 0 && o->dst + o->dstn - 1 > max_reg)
            max_reg = o->dst + o->dstn - 1;
        for (int s = 0; s < o->nsrc; s++)
            if (o->src[s] < 255 && o->src[s] + o->srcn[s] - 1 > max_reg)
                max_reg = o->src[s] + o->srcn[s] - 1;
    }
    gen_out_printf(&out, "-kernel name = %s\n", k->name);
    gen_out_printf(&out, "-kernel id = %d\n", id);
    gen_out_printf(&out, "-grid dim = (%u,1,1)\n", k->ctas);
    gen_out_printf(&out, "-block dim = (%u,1,1)\n", k->threads);
    gen_out_printf(&out, "-shmem = %ld\n", k->shmem);
    gen_out_printf(&out, "-nregs = %d\n", (max_reg + 3 + 1) & ~1);
    gen_out_printf(&out, "-binary version = %d\n", p->binary_version);
    gen_out_printf(&out, "-cuda stream id = 0\n");
    gen_out_printf(&out, "-shmem base_addr = 0x%016llx\n",
              (unsigned long long)SY_SHMEM_BASE);
    gen_out_printf(&out, "-local mem base_addr = 0x%016llx\n",
              (unsigned long long)SY_LOCAL_BASE);
    gen_out_printf(&out, "-nvbit version = 1.7.4\n");
    gen_out_printf(&out, "-accelsim tracer version = 5\n");
    gen_out_printf(&out, "-enable lineinfo = 0\n\n");
    gen_out_printf(&out, "#traces format = [line_num] PC mask dest_num "
                    "[reg_dests] opcode src_num [reg_srcs] mem_width "
                    "[adrrescompress?] [mem_addresses] immediate\n\n\n\n");
    unsigned nw = (k->threads + 31) / 32;
    int rc = 0;
    /* per-warp streams go through a private in-memory sink */
    tmp.cap = 1u << 16;
    tmp.buf = malloc(tmp.cap);
    if (!tmp.buf)
        rc = -1;
    for (unsigned c = 0; c < k->ctas && rc == 0; c++) {
        gen_out_printf(&out, "#BEGIN_TB\n\nthread block = %u,0,0\n\n", c);
        for (unsigned w = 0; w < nw && rc == 0; w++) {
            sy_warp wp;
            memset(&wp, 0, sizeof wp);
            wp.cta = c;
            wp.w = w;
            wp.seed = p->seed;
            wp.threads = k->threads;
            wp.nthreads = k->ctas * k->threads;
            unsigned lanes = k->threads - w * 32;
            wp.live = lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u);
            rc = sy_write_warp(&out, &tmp, k, &wp);
        }
        gen_out_printf(&out, "#END_TB\n%s", c + 1 < k->ctas ? "\n" : "");
        double need, avail;
        if (rc == 0 && gen_out_room_due(&out, c + 1ull) &&
            gen_out_room(&out, c + 1ull, k->ctas, &need, &avail)) {
            free(tmp.buf);
            gen_out_close(&out);
            remove(path);
            return wc_diag_set(d, WC_EUSAGE, path, 0, 0,
                               "the trace would take about %.3g GB (%u "
                               "thread blocks) where the file system has "
                               "%.3g GB; stopped after %u of them (fewer "
                               "--ctas or --iters, or --zstd)",
                               need / 1e9, k->ctas, avail / 1e9, c + 1);
        }
    }
    free(tmp.buf);
    if (gen_out_close(&out) != 0 || rc != 0)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0,
                           "write failed (out of memory or disk full)");
    return WC_OK;
}

/* ------------------------------------------------------------------------ */
/* cuobjdump -sass listing                                                   */
/* ------------------------------------------------------------------------ */

static uint64_t sy_ctrl_word(const wc_ctrl *c)
{
    uint64_t v = (uint64_t)(c->stall & 15u);
    if (!c->yield)
        v |= 1u << 4;
    v |= (uint64_t)(c->wbar >= 0 ? (unsigned)c->wbar : 7u) << 5;
    v |= (uint64_t)(c->rbar >= 0 ? (unsigned)c->rbar : 7u) << 8;
    v |= (uint64_t)(c->wait & 63u) << 11;
    v |= (uint64_t)(c->reuse & 15u) << 17;
    return v << 41;
}

static void sy_sass_inst(gen_out *o, uint64_t pc, const char *pred,
                         const char *text, uint64_t lo, uint64_t hi)
{
    char ins[176], pf[16];
    snprintf(ins, sizeof ins, "%s ;", text);
    snprintf(pf, sizeof pf, "%s%s", pred, pred[0] ? " " : "");
    gen_out_printf(o, "        /*%04llx*/%19s%-56s/* 0x%016llx */\n",
              (unsigned long long)pc, pf, ins, (unsigned long long)lo);
    gen_out_printf(o, "%91s/* 0x%016llx */\n", "", (unsigned long long)hi);
}

static void sy_write_sass_kernel(gen_out *o, const sy_kernel *k, int sm)
{
    gen_out_printf(o, "\t\tFunction : %s\n", k->name);
    gen_out_printf(o,
              "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED "
              "EF_CUDA_64BIT_ADDRESS EF_CUDA_SM%d "
              "EF_CUDA_VIRTUAL_SM(EF_CUDA_SM%d)\"\n",
              sm, sm);
    for (size_t i = 0; i < k->n; i++) {
        const sy_op *op_ = &k->ops[i];
        char pred[16] = "";
        if (op_->pred >= 0 && op_->pred < 8)
            snprintf(pred, sizeof pred, "@P%d", op_->pred);
        else if (op_->pred >= 8)
            snprintf(pred, sizeof pred, "@!P%d", op_->pred - 8);
        char text[160];
        if (strcmp(op_->opc, "BRA") == 0 && op_->mk == MK_BACK)
            snprintf(text, sizeof text, "BRA 0x%llx",
                     (unsigned long long)k->ops[k->body_b].pc);
        else if (op_->args[0])
            snprintf(text, sizeof text, "%s %s", op_->opc, op_->args);
        else
            snprintf(text, sizeof text, "%s", op_->opc);
        uint64_t h = sy_mix((uint64_t)i * 131 + (uint64_t)(unsigned char)
                                                    op_->opc[0]);
        uint64_t lo = (h & (uint64_t)0xffffffffffff0000u) |
                      ((uint64_t)(op_->dst >= 0 ? op_->dst : 0xff) << 8) |
                      (h & 0xffu);
        uint64_t hi = sy_ctrl_word(&op_->ctrl) | (h >> 40 & 0xffffffull);
        sy_sass_inst(o, op_->pc, pred, text, lo, hi);
    }
    /* the trailing self-loop and padding cuobjdump shows after EXIT */
    uint64_t pc = k->n * 16;
    wc_ctrl c = {1, 0, 0, -1, -1, 0, 0};
    char text[64];
    snprintf(text, sizeof text, "BRA 0x%llx", (unsigned long long)pc);
    sy_sass_inst(o, pc, "", text, 0xfffffff000007947ull,
                 sy_ctrl_word(&c) | 0x383ffffull);
    for (int i = 1; i < 4; i++) {
        c.stall = 0;
        sy_sass_inst(o, pc + (uint64_t)i * 16, "", "NOP",
                     0x0000000000007918ull, sy_ctrl_word(&c));
    }
    gen_out_printf(o, "\t\t..........\n\n\n");
}

/* ------------------------------------------------------------------------ */
/* Directory                                                                 */
/* ------------------------------------------------------------------------ */

static int sy_mkdir(const char *dir, wc_diag *d)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return wc_diag_set(d, WC_EINPUT, tmp, 0, 0,
                                   "cannot create directory: %s",
                                   strerror(errno));
            *p = '/';
        }
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return wc_diag_set(d, WC_EINPUT, tmp, 0, 0,
                           "cannot create directory: %s", strerror(errno));
    return WC_OK;
}

/* The kernels of an application of this kind. */
static size_t sy_app_kinds(const char *kind, const char **out)
{
    if (strcmp(kind, "mixed") == 0) {
        out[0] = "mixed";
        out[1] = "memory";
        out[2] = "compute";
        out[3] = "shared";
        out[4] = "divergent";
        return 5;
    }
    out[0] = kind;
    return 1;
}

int wc_synth_write(const wc_synth_params *p, const char *outdir, wc_diag *d)
{
    if (!p || !outdir)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "synth: no parameters");
    if (sy_kind_index(p->kind) < 0)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "synth: unknown kind '%s'", p->kind ? p->kind : "");
    if (p->ctas == 0 || p->threads == 0 || p->threads > 1024)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "synth: need ctas >= 1 and 1 <= threads <= 1024");
    if (p->zstd && !gen_out_have_zstd())
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "synth: built without libzstd");
    int rc = sy_mkdir(outdir, d);
    if (rc)
        return rc;
    wc_gpu g;
    wc_diag gd;
    const char *gname = wc_gpu_for_binary(p->binary_version);
    if (!gname || wc_gpu_load(gname, &g, &gd) != 0)
        wc_gpu_defaults(&g);

    const char *kinds[8];
    size_t nk = sy_app_kinds(p->kind, kinds);
    char path[1200];
    snprintf(path, sizeof path, "%s/kernelslist.g", outdir);
    FILE *kl = fopen(path, "w");
    if (!kl)
        return wc_diag_set(d, WC_EINPUT, path, 0, 0, "cannot write: %s",
                           strerror(errno));
    uint64_t bytes = (uint64_t)p->ctas * p->threads * 16;
    fprintf(kl, "MemcpyHtoD,0x%016llx,%llu\n", (unsigned long long)SY_HEAP,
            (unsigned long long)bytes);
    gen_out sass;
    int have_sass = 0;
    if (p->with_sass) {
        char sp[1200];
        snprintf(sp, sizeof sp, "%s/kernels.sass", outdir);
        if (gen_out_open(&sass, sp, 0) != 0) {
            gen_out_close(&sass);
            fclose(kl);
            return wc_diag_set(d, WC_EINPUT, sp, 0, 0, "cannot write: %s",
                               strerror(errno));
        }
        have_sass = 1;
        int sm = p->binary_version;
        gen_out_printf(&sass, "\nFatbin elf code:\n================\narch = sm_%d\n"
                         "code version = [1,7]\nhost = linux\n"
                         "compile_size = 64bit\n\n\tcode for sm_%d\n",
                  sm, sm);
    }
    for (size_t i = 0; i < nk && rc == 0; i++) {
        sy_kernel k;
        unsigned ctas = p->ctas, threads = p->threads, iters = p->iters;
        if (nk > 1) { /* an application: vary sizes a little per kernel */
            wc_rng r;
            wc_rng_seed(&r, p->seed * 31 + i);
            ctas = ctas / 2 + (unsigned)(wc_rng_next(&r) % (ctas + 1));
            if (!ctas)
                ctas = 1;
        }
        if (sy_build(&k, kinds[i], ctas, threads, iters) != 0) {
            free(k.ops);
            rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
            break;
        }
        sy_control_bits(&k, &g);
        snprintf(path, sizeof path, "%s/kernel-%zu.traceg%s", outdir, i + 1,
                 p->zstd ? ".zst" : "");
        rc = sy_write_kernel(&k, (int)i + 1, p, path, d);
        if (rc == 0) {
            fprintf(kl, "kernel-%zu.traceg\n", i + 1);
            if (have_sass)
                sy_write_sass_kernel(&sass, &k, p->binary_version);
        }
        free(k.ops);
    }
    if (fclose(kl) != 0 && rc == 0)
        rc = wc_diag_set(d, WC_EINTERNAL, outdir, 0, 0,
                         "cannot write kernelslist.g");
    if (have_sass && gen_out_close(&sass) != 0 && rc == 0)
        rc = wc_diag_set(d, WC_EINTERNAL, outdir, 0, 0,
                         "cannot write kernels.sass");
    return rc;
}
