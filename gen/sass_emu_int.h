/*
 * gen/sass_emu_int.h - private to gen/sass_emu*.c: the decoded form of one
 * kernel of a cuobjdump listing, as the trace builder needs it.
 */
#ifndef WC_SASS_EMU_INT_H
#define WC_SASS_EMU_INT_H

#include <stddef.h>
#include <stdint.h>

#include "wc.h"

enum {
    SK_NONE,
    SK_R,     /* general register, 255 = RZ                          */
    SK_UR,    /* uniform register, 63 = URZ                          */
    SK_P,     /* predicate, 7 = PT                                   */
    SK_UP,    /* uniform predicate, 7 = UPT                          */
    SK_SR,    /* special register (S2R, CS2R, S2UR)                  */
    SK_IMM,   /* integer immediate (hex or decimal)                  */
    SK_FIMM,  /* floating-point immediate                            */
    SK_CB,    /* c[bank][offset (+ index register)]                  */
    SK_MREF,  /* [R.64+UR+imm], desc[UR][...]: a memory reference    */
    SK_LABEL, /* `(.L_x_1)                                           */
    SK_OTHER
};

enum {
    SR_UNKNOWN,
    SR_ZERO,
    SR_TID_X, SR_TID_Y, SR_TID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z,
    SR_LANEID,
    SR_CGACTAID
};

enum { SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL };

/* Opcode modifiers the emulation tests (bits of se_ins.mods). */
enum {
    SM_128,
    SM_32,
    SM_64,
    SM_ALL,
    SM_AND,
    SM_ANY,
    SM_DIV,
    SM_EX,
    SM_F64,
    SM_HI,
    SM_L,
    SM_OR,
    SM_PASS_B,
    SM_S16,
    SM_S32,
    SM_S64,
    SM_S8,
    SM_SH,
    SM_SX32,
    SM_U16,
    SM_U32,
    SM_U64,
    SM_U8,
    SM_W,
    SM_WIDE,
    SM_X,
    SM_XOR,
    SM_LT,
    SM_LE,
    SM_GT,
    SM_GE,
    SM_EQ,
    SM_NE,
    SM_T,
    SM_F,
    SM_COUNT
};
#define SE_MOD(in, m) ((int)(((in)->mods >> SM_##m) & 1u))


typedef struct se_op {
    uint8_t k;
    uint8_t neg;   /* '-'                                 */
    uint8_t inv;   /* '!' or '~'                          */
    uint8_t absv;  /* |x|                                 */
    uint8_t wide;  /* .64 on a register                   */
    int16_t reg;   /* R/UR/P/UP number                    */
    int16_t sr;    /* SR_*                                */
    int64_t imm;   /* IMM value; CB and MREF: offset      */
    int16_t bank;  /* CB: bank, -1 when a register        */
    int16_t ix_r, ix_ur; /* CB / MREF registers, -1 none  */
    uint8_t ix_r64, ix_ur64, desc;
    uint8_t ix_scale; /* MREF: .X4/.X8/.X16 on the register */
    int col;       /* 1-based column in the listing line  */
} se_op;

#define SE_MAXOP 10
#define SE_MAXSRC 5 /* NVBit tracer: MAX_SRC */

typedef struct se_ins {
    uint32_t pc;
    long line;              /* listing line                         */
    int col;                /* column of the instruction text       */
    int8_t guard;           /* predicate number, -1 none            */
    uint8_t guard_neg, guard_u;
    char opc[64];           /* full opcode text "IMAD.WIDE.U32"     */
    char base[24];          /* mnemonic "IMAD"                      */
    uint64_t mods;          /* SM_* bits                            */
    uint8_t cls, alu;       /* set by the emulator before running   */
    uint8_t span, cbsz;     /* result registers; LDC bytes          */
    char *pre;              /* trace text after the mask, up to the
                               width (owned by the emulator)        */
    size_t prelen;
    int nop;
    se_op op[SE_MAXOP];
    /* trace line facts (NVBit tracer conventions) */
    int16_t tdst;           /* -1 none                              */
    uint8_t ntsrc;
    int16_t tsrc[SE_MAXSRC];
    uint8_t is_mem, width, space;
    int8_t mref;            /* index of the (first) memory operand  */
} se_ins;

typedef struct se_kernel {
    char name[512];
    se_ins *ins;
    size_t n;
    int binary_version;     /* from the listing's sm_XX, 0 unknown  */
    int max_reg;            /* highest general register touched, -1 */
} se_kernel;

/* Decode kernel `name` (NULL: the only one) of a listing held in text. */
int se_parse_kernel(const char *path, const char *text, size_t len,
                    const char *name, se_kernel *k, wc_diag *d);
void se_kernel_free(se_kernel *k);

#endif /* WC_SASS_EMU_INT_H */
