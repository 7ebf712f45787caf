/*
 * common/wc_inst.h - unit, space and latency classes, the opcode table, registers,
 * control bits and the one instruction record every model consumes.
 *
 * Part of the common layer's public API; include "wc.h" for all of it.
 * Conventions: functions return 0 on success or a WC_E* code with the
 * wc_diag filled in.  Nothing here prints to stdout or exits.
 */
#ifndef WC_INST_H
#define WC_INST_H

#include <stddef.h>
#include <stdint.h>

#include "wc_base.h"

/* ------------------------------------------------------------------------ */
/* Unit classes, memory spaces, latency classes                              */
/* ------------------------------------------------------------------------ */

#define WC_UNITS(X)                                                            \
    X(FP32, "fp32")                                                            \
    X(FP16, "fp16")                                                            \
    X(INT, "int")                                                              \
    X(FP64, "fp64")                                                            \
    X(SFU, "sfu")                                                              \
    X(TENSOR, "tensor")                                                        \
    X(UNIFORM, "uniform")                                                      \
    X(BRANCH, "branch")                                                        \
    X(BARRIER, "barrier")                                                      \
    X(MEM_GLOBAL, "mem_global")                                                \
    X(MEM_LOCAL, "mem_local")                                                  \
    X(MEM_SHARED, "mem_shared")                                                \
    X(MEM_CONST, "mem_const")                                                  \
    X(MEM_TEX, "mem_tex")                                                      \
    X(ATOMIC, "atomic")                                                        \
    X(MISC, "misc")

typedef enum wc_unit {
#define X(e, s) WC_UNIT_##e,
    WC_UNITS(X)
#undef X
        WC_UNIT_COUNT
} wc_unit;
const char *wc_unit_name(int unit);

#define WC_SPACES(X)                                                           \
    X(NONE, "none")                                                            \
    X(GLOBAL, "global")                                                        \
    X(LOCAL, "local")                                                          \
    X(SHARED, "shared")                                                        \
    X(CONST, "const")                                                          \
    X(TEX, "tex")                                                              \
    X(GENERIC, "generic")

typedef enum wc_space {
#define X(e, s) WC_SPACE_##e,
    WC_SPACES(X)
#undef X
        WC_SPACE_COUNT
} wc_space;
const char *wc_space_name(int space);

/*
 * Latency classes: each opcode names one; the GPU config has keys
 * lat_<class> (cycles from issue to dependent issue, fixed-latency units)
 * and ii_<class> (initiation interval of the unit, cycles per warp
 * instruction on one sub-core).  Values live in data/gpus/, never in code.
 */
#define WC_LATCLASSES(X)                                                       \
    X(fp32)     /* FFMA FADD FMUL ...                                   */     \
    X(fp16)     /* HFMA2 HADD2 ...                                      */     \
    X(int)      /* IADD3 LOP3 SHF ISETP ...                             */     \
    X(imad)     /* IMAD IMUL (runs on the FMA-heavy pipe)               */     \
    X(imadwide) /* IMAD.WIDE, 64-bit result                             */     \
    X(fp64)     /* DFMA DADD DMUL                                       */     \
    X(sfu)      /* MUFU                                                 */     \
    X(conv)     /* F2I I2F F2F (conversion pipe)                        */     \
    X(tensor)   /* HMMA IMMA DMMA HGMMA ...                             */     \
    X(uniform)  /* UIADD3 UMOV ULDC ...                                 */     \
    X(branch)   /* BRA BRX RET CALL EXIT                                */     \
    X(misc)     /* MOV NOP S2R CS2R P2R ...                             */     \
    X(mem)      /* memory: variable latency, handled by the mem model   */

typedef enum wc_latclass {
#define X(c) WC_LAT_##c,
    WC_LATCLASSES(X)
#undef X
        WC_LAT_COUNT
} wc_latclass;
const char *wc_latclass_name(int lc);

/* ------------------------------------------------------------------------ */
/* Opcode table (common/opcodes.def)                                         */
/* ------------------------------------------------------------------------ */

/* Opcode flags. */
enum {
    WC_OPF_VARLAT = 1u << 0,  /* variable latency: result via dependence counter */
    WC_OPF_LOAD = 1u << 1,    /* reads memory                                  */
    WC_OPF_STORE = 1u << 2,   /* writes memory                                 */
    WC_OPF_ATOMIC = 1u << 3,  /* atomic / reduction                            */
    WC_OPF_CTRL = 1u << 4,    /* changes control flow (branch, exit, call)     */
    WC_OPF_EXIT = 1u << 5,    /* EXIT                                          */
    WC_OPF_BAR = 1u << 6,     /* CTA barrier (BAR.SYNC ...)                    */
    WC_OPF_HALF = 1u << 7,    /* executes on a 16-lane unit: latch busy 2 cy   */
    WC_OPF_DEPBAR = 1u << 8,  /* DEPBAR                                        */
    WC_OPF_NOP = 1u << 9,     /* NOP                                           */
    WC_OPF_UNIFORM = 1u << 10, /* writes uniform registers / uniform datapath */
    WC_OPF_SR = 1u << 11,     /* reads a special register (S2R CS2R S2UR)      */
    WC_OPF_FENCE = 1u << 12,  /* MEMBAR ERRBAR CCTL ...                        */
};

typedef struct wc_opinfo {
    const char *name; /* base name, upper case: "FFMA"                    */
    uint8_t unit;     /* wc_unit                                          */
    uint8_t lat;      /* wc_latclass                                      */
    uint8_t space;    /* wc_space for memory ops, WC_SPACE_NONE otherwise */
    uint16_t flags;   /* WC_OPF_*                                         */
    const char *doc;  /* one-line meaning                                 */
} wc_opinfo;

#define WC_OP_UNKNOWN 0 /* index 0 of the table is the unknown opcode */

/* Number of entries (including the unknown entry at 0). */
size_t wc_op_count(void);
const wc_opinfo *wc_op_info(unsigned op);
/* Look up the base name (text up to the first '.', len bytes). Returns
 * WC_OP_UNKNOWN when not in the table. */
unsigned wc_op_lookup(const char *name, size_t len);

/* ------------------------------------------------------------------------ */
/* Registers                                                                 */
/* ------------------------------------------------------------------------ */

typedef uint16_t wc_reg;
#define WC_REG_NONE ((wc_reg)0xffff)
#define WC_RZ ((wc_reg)255)           /* R0..R254 are 0..254, RZ = 255        */
#define WC_UR_BASE 256u               /* UR0..UR62 are 256.., URZ = 256 + 63  */
#define WC_URZ ((wc_reg)(WC_UR_BASE + 63))
#define WC_P_BASE 512u                /* P0..P6 are 512.., PT = 519           */
#define WC_PT ((wc_reg)(WC_P_BASE + 7))
#define WC_UP_BASE 528u               /* UP0..UP6 are 528.., UPT = 535        */
#define WC_UPT ((wc_reg)(WC_UP_BASE + 7))
#define WC_REG_IS_R(r) ((r) < 256u)
#define WC_REG_IS_UR(r) ((r) >= WC_UR_BASE && (r) < WC_UR_BASE + 64u)
#define WC_REG_IS_P(r) ((r) >= WC_P_BASE && (r) < WC_P_BASE + 8u)
#define WC_REG_IS_UP(r) ((r) >= WC_UP_BASE && (r) < WC_UP_BASE + 8u)
/* true for RZ, URZ, PT, UPT: reads are free, writes discarded */
#define WC_REG_IS_ZERO(r)                                                      \
    ((r) == WC_RZ || (r) == WC_URZ || (r) == WC_PT || (r) == WC_UPT)

/* Parse "R12", "RZ", "UR4", "URZ", "P0", "PT", "UP1", "UPT" (exact length
 * len).  Returns 0 and sets *out, or -1. */
int wc_reg_parse(const char *s, size_t len, wc_reg *out);
/* Write the name of r into buf ("R12"). */
void wc_reg_name(wc_reg r, char *buf, size_t n);

/* ------------------------------------------------------------------------ */
/* The instruction record                                                    */
/* ------------------------------------------------------------------------ */

#define WC_MAX_DST 4
#define WC_MAX_SRC 8
#define WC_WARP_SIZE 32
#define WC_OPCODE_LEN 48

/* Control bits (seed 000 section 4), from cuobjdump encodings or the
 * CuAssembler notation of hand-written SASS. */
typedef struct wc_ctrl {
    uint8_t valid;  /* 1 when the fields below are known                   */
    uint8_t stall;  /* stall counter, 0-15                                 */
    uint8_t yield;  /* 1 = yield bit set (switch warp)                     */
    int8_t wbar;    /* write (RAW/WAW) dependence counter 0-5, -1 none     */
    int8_t rbar;    /* read (WAR) dependence counter 0-5, -1 none          */
    uint8_t wait;   /* bit i: wait until SBi is zero before issuing        */
    uint8_t reuse;  /* bit i: regular source operand i has .reuse          */
} wc_ctrl;

/* Per-instance flags (wc_inst.iflags). */
enum {
    WC_IF_CLOCK = 1u << 0,      /* reads SR_CLOCKLO / SR_CLOCKHI (CS2R, S2UR) */
    WC_IF_UADDR = 1u << 1,      /* memory address held in uniform register(s) */
    WC_IF_CONSTOP = 1u << 2,    /* an operand reads c[bank][offset]           */
    WC_IF_HAS_ADDR = 1u << 3,   /* addr[] holds per-lane addresses            */
    WC_IF_PRED_OFF = 1u << 4,   /* guard predicate false for every lane       */
};

/* Opcode modifier facts (wc_inst.mflags), decoded once from the opcode text
 * by wc_inst_finish so that no model compares strings in its hot path. */
enum {
    WC_MF_WIDE = 1u << 0,      /* .WIDE (IMAD.WIDE: 64-bit result)           */
    WC_MF_ARV = 1u << 1,       /* .ARV: barrier arrive, no wait (BAR.ARV)    */
    WC_MF_BYPASS = 1u << 2,    /* .BYPASS: bulk copy bypasses the L1         */
    WC_MF_ERRBAR = 1u << 3,    /* the opcode is ERRBAR                       */
    WC_MF_LDGSTS = 1u << 4,    /* the opcode is LDGSTS (global -> shared)    */
    WC_MF_MMA_K16 = 1u << 5,   /* MMA shape with K = 16 (HMMA.16816)         */
    WC_MF_MMA_INT = 1u << 6,   /* integer / binary MMA (IMMA, BMMA)          */
    WC_MF_MMA_FP64 = 1u << 7,  /* FP64 MMA (DMMA)                            */
    /* bits 8..10: the MUFU function (WC_MUFU_*), 0 when not a MUFU */
    WC_MF_MUFU_SHIFT = 8,
    WC_MF_MUFU_MASK = 7u << 8,
};

/* MUFU functions with their own latency (keys lat_mufu_*, issue 11: the kit
 * measures EX2 17, SIN 23, RSQ/LG2 39, RCP 41 cycles per chain step on an
 * H100 SXM); the value is (in->mflags & WC_MF_MUFU_MASK) >> WC_MF_MUFU_SHIFT. */
enum { WC_MUFU_NONE, WC_MUFU_EX2, WC_MUFU_SIN, WC_MUFU_RCP, WC_MUFU_RSQ,
       WC_MUFU_LG2, WC_MUFU_SQRT, WC_MUFU_TANH };

typedef struct wc_inst {
    uint64_t pc;                 /* byte offset in the kernel's code         */
    uint32_t mask;               /* active lanes AND guard predicate         */
    uint32_t line;               /* line in the source file (diagnostics)   */
    uint16_t op;                 /* index in the opcode table               */
    uint8_t unit;                /* wc_unit (copied from the table)         */
    uint8_t space;               /* wc_space                                */
    uint8_t width;               /* bytes accessed per lane, 0 = no memory  */
    uint8_t ndst, nsrc;          /* regular+uniform+predicate operands      */
    uint8_t iflags;              /* WC_IF_*                                 */
    uint16_t mflags;             /* WC_MF_* (wc_inst_finish)                */
    wc_reg dst[WC_MAX_DST];
    wc_reg src[WC_MAX_SRC];
    uint8_t dst_nregs[WC_MAX_DST]; /* consecutive registers per operand (1,2,4) */
    uint8_t src_nregs[WC_MAX_SRC];
    wc_ctrl ctrl;
    /* DEPBAR.LE SBx, N {, ids}: */
    int8_t depbar_sb;            /* -1 when not a DEPBAR                    */
    uint8_t depbar_le;           /* N                                       */
    uint8_t depbar_ids;          /* bit mask of the optional id list        */
    uint32_t const_addr;         /* (bank << 16) | offset when CONSTOP      */
    /* 1: addr[l] == addr[0] + l * (addr[1] - addr[0]) (mod 2^64) for all
     * 32 lanes -- the binary reader's strided full warp, which it decodes
     * so -- and a coalescer need not check the lanes; 0: not known.  In
     * the padding before imm (the record's size is unchanged); every
     * reader clears it with the rest of the record. */
    uint8_t lanes_affine;
    int64_t imm;                 /* trailing immediate of the trace (0)     */
    char opcode[WC_OPCODE_LEN];  /* full text with modifiers "LDG.E.128"    */
    uint64_t addr[WC_WARP_SIZE]; /* per-lane address when HAS_ADDR; lanes
                                    not in mask hold 0                      */
} wc_inst;

/* Fill unit/space/flags-derived fields, the modifier facts (mflags) and
 * operand widths from op and the opcode text's modifiers (".64", ".128",
 * ".WIDE", DFMA pairs ...).  Used by
 * every reader so all consumers see the same record. */
void wc_inst_finish(wc_inst *in);
/* The opcode's table entry. */
static inline const wc_opinfo *wc_inst_info(const wc_inst *in)
{
    return wc_op_info(in->op);
}
/* Number of distinct 32-byte sectors the active lanes touch. */
unsigned wc_inst_sectors(const wc_inst *in);
/* Latency class of this instance: the table's, refined by modifiers
 * (IMAD.WIDE -> imadwide).  Use this rather than wc_inst_info()->lat. */
int wc_inst_latclass(const wc_inst *in);

#endif /* WC_INST_H */
