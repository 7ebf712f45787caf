/*
 * common/wc.h - the one public header of the common layer.
 *
 * Owns: diagnostics, the instruction record every model consumes, the opcode
 * table, GPU configuration (one descriptor table for every key), and the
 * readers of Accel-Sim traces, cuobjdump SASS listings and hand-written SASS
 * microbenchmarks.
 *
 * Conventions: functions return 0 on success or a WC_E* code with the
 * wc_diag filled in.  Nothing here prints to stdout or exits.
 */
#ifndef WC_H
#define WC_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* Diagnostics                                                               */
/* ------------------------------------------------------------------------ */

enum {
    WC_OK = 0,
    WC_EUSAGE = 1,    /* bad command line / API misuse                       */
    WC_EINPUT = 2,    /* bad input file: file:line:col: error: ...           */
    WC_EINTERNAL = 3, /* out of memory, I/O failure, invariant broken        */
};

typedef struct wc_diag {
    int code;        /* WC_E* */
    char file[1024]; /* "" when not tied to a file                          */
    long line;       /* 1-based, 0 when not tied to a line                  */
    long col;        /* 1-based, 0 when unknown                             */
    char msg[1024];
} wc_diag;

/* Fill d and return code.  printf-style message. */
int wc_diag_set(wc_diag *d, int code, const char *file, long line, long col,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* "FILE:LINE:COL: error: MSG" (parts omitted when unknown). */
void wc_diag_format(const wc_diag *d, char *buf, size_t n);

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
    int64_t imm;                 /* trailing immediate of the trace (0)     */
    char opcode[WC_OPCODE_LEN];  /* full text with modifiers "LDG.E.128"    */
    uint64_t addr[WC_WARP_SIZE]; /* per-lane address when HAS_ADDR; lanes
                                    not in mask hold 0                      */
} wc_inst;

/* Fill unit/space/flags-derived fields and operand widths from op and the
 * opcode text's modifiers (".64", ".128", ".WIDE", DFMA pairs ...).  Used by
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

/* ------------------------------------------------------------------------ */
/* GPU configuration (common/keys.def)                                       */
/* ------------------------------------------------------------------------ */

#define WC_CFG_STR_LEN 64

typedef struct wc_gpu {
#define WC_KEY_I(name, def, lo, hi, unit, help) long name;
#define WC_KEY_R(name, def, lo, hi, unit, help) double name;
#define WC_KEY_S(name, def, unit, help) char name[WC_CFG_STR_LEN];
#include "keys.def"
#undef WC_KEY_I
#undef WC_KEY_R
#undef WC_KEY_S
    char source[1024]; /* file the config was loaded from */
} wc_gpu;

typedef enum { WC_KT_INT, WC_KT_REAL, WC_KT_STR } wc_key_type;

typedef struct wc_key_desc {
    const char *name;
    wc_key_type type;
    size_t offset;    /* in wc_gpu */
    double def, lo, hi;
    const char *sdef; /* default of a string key */
    const char *unit;
    const char *help;
} wc_key_desc;

const wc_key_desc *wc_keys(size_t *n);
const wc_key_desc *wc_key_find(const char *name);

/* Fill g with the table defaults. */
void wc_gpu_defaults(wc_gpu *g);
/* Directory holding gpus/, ubench/ ...: $WARPCAST_DATA, else the build's
 * data directory. */
const char *wc_data_dir(void);
/* Load NAME (data/gpus/NAME.cfg) or a path to a .cfg file over defaults. */
int wc_gpu_load(const char *name_or_path, wc_gpu *g, wc_diag *d);
/* Apply "key=value" (the --set what-if knob). */
int wc_gpu_set(wc_gpu *g, const char *assignment, wc_diag *d);
/* Generic numeric access by key name (calibration). */
int wc_gpu_get_num(const wc_gpu *g, const char *key, double *v);
int wc_gpu_set_num(wc_gpu *g, const char *key, double v, wc_diag *d);
/* Config name for a trace's "-binary version" (90 -> "h100-pcie"). */
const char *wc_gpu_for_binary(int binary_version);
/* Names of the bundled configs (sorted); returns count, *names malloc'd,
 * free with wc_free_names. */
size_t wc_gpu_list(char ***names);
void wc_free_names(char **names, size_t n);
/* Latency / initiation interval of a latency class in g. */
long wc_gpu_lat(const wc_gpu *g, int latclass);
long wc_gpu_ii(const wc_gpu *g, int latclass);
/* CTAs of this shape resident on one SM at once (occupancy from the warp,
 * register, shared memory and CTA-slot limits with their allocation
 * granularities); at least 1.  The one occupancy rule every model uses. */
unsigned wc_gpu_ctas_per_sm(const wc_gpu *g, unsigned threads_per_cta,
                            long nregs, long shmem);
/* Parse .cfg text held in memory (tests, fuzzing) over defaults; name is
 * used in diagnostics and includes resolve relative to its directory. */
int wc_gpu_parse(const char *name, const char *text, size_t len, wc_gpu *g,
                 wc_diag *d);
/* The value of key k in g as it would be written in a .cfg ("84", "1.8e3",
 * "ampere"; strings quoted when needed). */
int wc_gpu_value_str(const wc_gpu *g, const wc_key_desc *k, char *buf,
                     size_t n);
/* The key table as a Markdown table (malloc'd, free with free()). */
int wc_keys_markdown(char **out);

/* ------------------------------------------------------------------------ */
/* Traces                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct wc_kernel_info {
    char name[512];
    int id;
    unsigned grid[3], block[3];
    long shmem, nregs;
    int binary_version;
    int stream;
    int tracer_version;
    uint64_t shmem_base, local_base;
    char path[1024];      /* the file actually read (may be .zst)     */
    int has_ctrl;         /* control bits joined from a SASS listing  */
    uint64_t ctas;        /* grid x*y*z                                */
    uint64_t warps_per_cta;
} wc_kernel_info;

typedef struct wc_trace wc_trace;   /* a kernelslist.g, directory or file */
typedef struct wc_kreader wc_kreader; /* streams the CTAs of one kernel  */
typedef struct wc_cta wc_cta;       /* one thread block: per-warp streams */

/* Open a directory holding kernelslist.g, a kernelslist.g, one .traceg or
 * .traceg.zst, or a hand-written .sass microbenchmark (one kernel, one CTA).
 * Only headers are read here. */
int wc_trace_open(const char *path, wc_trace **out, wc_diag *d);
void wc_trace_close(wc_trace *t);
size_t wc_trace_nkernels(const wc_trace *t);
const wc_kernel_info *wc_trace_kernel(const wc_trace *t, size_t k);
/* Unknown opcodes met so far: name and count (i < n). */
size_t wc_trace_unknown_ops(const wc_trace *t, const char *const **names,
                            const uint64_t **counts);
/* MemcpyHtoD lines of the kernelslist.g: count, and *bytes their total. */
size_t wc_trace_memcpy(const wc_trace *t, uint64_t *bytes);

/* Stream the CTAs of kernel k in trace order.  Any number of CTAs handed
 * out may be alive at once; memory is bounded by the number alive, not by
 * the trace size. */
int wc_kreader_open(wc_trace *t, size_t k, wc_kreader **out, wc_diag *d);
void wc_kreader_close(wc_kreader *r);
/* *cta = next CTA, or NULL at the end.  Free with wc_cta_free. */
int wc_kreader_next(wc_kreader *r, wc_cta **cta, wc_diag *d);
/* Skip n CTAs without decoding their instructions. */
int wc_kreader_skip(wc_kreader *r, uint64_t n, wc_diag *d);
/* Position the reader so the next wc_kreader_next returns CTA number cta
 * (trace order, 0-based).  O(1) once the kernel's CTA index exists (built by
 * the first full pass or by wc_trace_cta_insts); otherwise scans forward. */
int wc_kreader_seek(wc_kreader *r, uint64_t cta, wc_diag *d);
/* Per-CTA dynamic warp-instruction counts of kernel k (from the trace's
 * `insts = N` lines, without decoding instructions), in trace order.  The
 * array is owned by t (valid until wc_trace_close); *n = number of CTAs.
 * Builds and caches the kernel's CTA index (file offsets) as a side effect,
 * so later wc_kreader_seek calls are O(1). */
int wc_trace_cta_insts(wc_trace *t, size_t k, const uint64_t **insts,
                       uint64_t *n, wc_diag *d);

void wc_cta_free(wc_cta *c);
void wc_cta_index(const wc_cta *c, unsigned xyz[3]);
unsigned wc_cta_nwarps(const wc_cta *c);
/* Warp id as written in the trace (warp = W) of stream w. */
unsigned wc_cta_warp_id(const wc_cta *c, unsigned w);
uint64_t wc_cta_warp_len(const wc_cta *c, unsigned w);
/* Next instruction of warp stream w: returns 1 and fills *in, 0 at the end
 * of the stream, or -WC_EINPUT with d filled. */
int wc_cta_next(wc_cta *c, unsigned w, wc_inst *in, wc_diag *d);
/* Restart warp stream w from its first instruction. */
int wc_cta_rewind(wc_cta *c, unsigned w, wc_diag *d);

/* ------------------------------------------------------------------------ */
/* Hand-written SASS microbenchmarks and cuobjdump listings                  */
/* ------------------------------------------------------------------------ */

typedef struct wc_ubench {
    char gpu[WC_CFG_STR_LEN]; /* from .gpu, "" when absent                 */
    unsigned nwarps;
    int *subcore;             /* per warp: sub-core from ".warp N subcore S",
                                 -1 = let the assignment policy decide       */
    unsigned *warp_id;        /* per warp: N of ".warp N"                    */
    wc_inst **code;           /* per warp: instructions in program order     */
    size_t *ninsts;
    unsigned cta_threads;     /* .cta threads N (default 32 * nwarps)        */
} wc_ubench;

int wc_ubench_load(const char *path, wc_ubench **out, wc_diag *d);
/* Parse from memory (fuzzing, tests); name is used in diagnostics. */
int wc_ubench_parse(const char *name, const char *text, size_t len,
                    wc_ubench **out, wc_diag *d);
void wc_ubench_free(wc_ubench *u);

/* cuobjdump -sass listing: control bits per (kernel, pc). */
typedef struct wc_sass wc_sass;
int wc_sass_load(const char *path, wc_sass **out, wc_diag *d);
int wc_sass_parse(const char *name, const char *text, size_t len,
                  wc_sass **out, wc_diag *d);
void wc_sass_free(wc_sass *s);
/* Merge b into a (b is consumed). */
void wc_sass_merge(wc_sass *a, wc_sass *b);
/* Number of kernels, and whether kernel `name` is present. */
size_t wc_sass_nkernels(const wc_sass *s);
int wc_sass_has_kernel(const wc_sass *s, const char *kernel);
/* The listed instruction of kernel at pc (control bits, reuse, constant
 * operands), or NULL. */
const wc_inst *wc_sass_find(const wc_sass *s, const char *kernel,
                            uint64_t pc);
/* Decode the control bits held in the high 64-bit word of a Volta+
 * instruction encoding (bit 41 on: stall 0-3, yield when bit 4 is 0,
 * write counter 5-7, read counter 8-10 (7 = none), wait mask 11-16). */
void wc_ctrl_decode(uint64_t hi, wc_ctrl *c);
/* Parse "[B------:R-:W-:-:S01]" (CuAssembler notation). Returns 0 or the
 * 0-based column of the offending character + 1 as a negative number. */
int wc_ctrl_parse(const char *s, size_t len, wc_ctrl *c);

/* ------------------------------------------------------------------------ */
/* Parse one trace instruction line (exposed for tests and fuzzing).         */
/* ------------------------------------------------------------------------ */

/* Parse one instruction line of an Accel-Sim trace of the given tracer
 * version (3-6) into *in.  file/line are used in diagnostics. */
int wc_trace_parse_line(const char *s, size_t len, int tracer_version,
                        wc_inst *in, const char *file, long line,
                        wc_diag *d);

/* ------------------------------------------------------------------------ */
/* Small utilities shared by every layer                                     */
/* ------------------------------------------------------------------------ */

/* Read a whole file into a malloc'd NUL-terminated buffer. */
int wc_read_file(const char *path, char **buf, size_t *len, wc_diag *d);
/* Monotonic host time in seconds. */
double wc_now(void);
/* Deterministic PRNG (splitmix64 / xoshiro256**). */
typedef struct wc_rng {
    uint64_t s[4];
} wc_rng;
void wc_rng_seed(wc_rng *r, uint64_t seed);
uint64_t wc_rng_next(wc_rng *r);
double wc_rng_uniform(wc_rng *r); /* [0, 1) */

/* ------------------------------------------------------------------------ */
/* Synthetic trace generator (common/synth.c): the project's own examples     */
/* ------------------------------------------------------------------------ */

typedef struct wc_synth_params {
    const char *kind;   /* compute | latency | memory | divergent | imbalanced
                           | mixed | shared | tensor ...                     */
    unsigned ctas;      /* grid size (x)                                      */
    unsigned threads;   /* block size (x)                                     */
    unsigned iters;     /* loop trip count: instructions per warp scale       */
    uint64_t seed;      /* deterministic generation                           */
    int binary_version; /* -binary version written in the header (e.g. 86)    */
    int with_sass;      /* also write a cuobjdump-style .sass with control bits */
    int zstd;           /* write kernel-N.traceg.zst instead of plain text     */
} wc_synth_params;
/* Names of the kinds (NULL-terminated). */
const char *const *wc_synth_kinds(void);
/* Fill defaults for a kind. */
void wc_synth_defaults(wc_synth_params *p, const char *kind);
/* Write an Accel-Sim trace directory (kernelslist.g + kernel-1.traceg ...)
 * into outdir (created if missing). */
int wc_synth_write(const wc_synth_params *p, const char *outdir, wc_diag *d);

#endif /* WC_H */
