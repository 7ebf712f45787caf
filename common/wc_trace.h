/*
 * common/wc_trace.h - readers: Accel-Sim traces, hand-written SASS microbenchmarks and
 * cuobjdump -sass listings (control bits).
 *
 * Part of the common layer's public API; include "wc.h" for all of it.
 * Conventions: functions return 0 on success or a WC_E* code with the
 * wc_diag filled in.  Nothing here prints to stdout or exits.
 */
#ifndef WC_TRACE_H
#define WC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "wc_base.h"
#include "wc_config.h"
#include "wc_inst.h"

/* ------------------------------------------------------------------------ */
/* Traces                                                                    */
/* ------------------------------------------------------------------------ */

#define WC_KERNEL_NAME_MAX 4095 /* longest -kernel name accepted */

/* One kernel launch.  name and path are owned by the trace (one copy per
 * distinct string, so memory per launch stays small). */
typedef struct wc_kernel_info {
    const char *name;
    int id;
    unsigned grid[3], block[3];
    long shmem, nregs;
    int binary_version;
    int stream;
    int tracer_version;
    uint64_t shmem_base, local_base;
    const char *path;     /* the file actually read (may be .zst)     */
    int has_ctrl;         /* control bits joined from a SASS listing  */
    const char *ctrl_note; /* why a listing of the directory gives this
                              kernel no control bits (owned by the trace),
                              or NULL                                     */
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
/* Launch k (NULL past the end).  The record stays valid until
 * wc_trace_forget drops it (or wc_trace_close). */
const wc_kernel_info *wc_trace_kernel(const wc_trace *t, size_t k);
/* The caller is done with launches 0 .. below-1: their records, CTA
 * indexes (wc_trace_cta_insts) and idle open texts may be freed (not those
 * with a reader or CTA alive), and are read again if asked for later.  A
 * program that walks a long trace calls it as it goes, so memory does not
 * grow with the number of launches (16 bytes a launch stay). */
void wc_trace_forget(wc_trace *t, size_t below);
/* Unknown opcodes met so far: name and count (i < n). */
size_t wc_trace_unknown_ops(const wc_trace *t, const char *const **names,
                            const uint64_t **counts);
/* Warnings met so far (listings not used, ...), each once, in order;
 * owned by t.  A caller prints those past the count it has printed. */
size_t wc_trace_warnings(const wc_trace *t, const char *const **msgs);
/* Check kernel k's cuobjdump listing against its trace (the first CTA's
 * instructions: every PC listed, same opcodes), once per kernel; on a
 * mismatch the kernel runs without control bits (has_ctrl = 0, ctrl_note
 * and a warning say why).  wc_kreader_open calls it; a caller that reads
 * has_ctrl before opening a reader calls it first.  Errors: the trace's. */
int wc_trace_check_ctrl(wc_trace *t, size_t k, wc_diag *d);
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
/* Binary traces (docs/formats.md)                                           */
/* ------------------------------------------------------------------------ */

/* wc_trace_open recognises a binary trace by its magic number; every
 * function above then reads it, with records identical to those of the
 * text it was made from (wc_inst.line is 0: there are no lines). */
typedef struct wc_convert_stats {
    uint64_t in_bytes;   /* trace files as stored (plain or zstd)        */
    uint64_t text_bytes; /* their text, decompressed                     */
    uint64_t out_bytes;  /* the binary trace                             */
    uint64_t kernels, ctas, insts;
    uint64_t records;    /* static records over all kernels              */
} wc_convert_stats;

/* Write every kernel of t to out in the binary form (streaming: memory is
 * bounded by one CTA and the kernel's static table and CTA index).  The
 * file appears under its name only when complete. */
int wc_trace_convert(wc_trace *t, const char *out, wc_convert_stats *st,
                     wc_diag *d);
/* 1 when t was opened from a binary trace. */
int wc_trace_is_binary(const wc_trace *t);

/* The converted-trace cache (common/trace_cache.c; docs/user-guide.md,
 * "Trace cache"): the binary form of a text trace kept in a directory and
 * found again by the identity (absolute path; name, size, mtime, inode and
 * a hash of both ends of every file the trace can be made of). */
#define WC_TCACHE_PATH_MAX 4200
typedef struct wc_tcache_entry {
    char path[WC_TCACHE_PATH_MAX];    /* DIR/<hash>.wctb                 */
    char keypath[WC_TCACHE_PATH_MAX]; /* the key kept beside it          */
    char *key;                        /* owned; wc_tcache_entry_free     */
    size_t keylen;
    uint64_t bytes;                   /* the trace's files, as stored    */
    int hit;                          /* an entry for this key is there  */
    char *warn;                       /* hit: the trace's warnings found
                                         when it was converted, one per
                                         line ("" none; owned)           */
} wc_tcache_entry;

/* The cache directory into out: $WARPCAST_TRACE_CACHE, else
 * $XDG_CACHE_HOME/warpcast/traces, else ~/.cache/warpcast/traces; -1 when
 * caching is off (WARPCAST_TRACE_CACHE=off) or there is no home. */
int wc_tcache_dir(char *out, size_t n);
/* Size limit of the directory: $WARPCAST_TRACE_CACHE_MAX_MB, else 4 GiB. */
uint64_t wc_tcache_max_bytes(void);
/* Fill e for the text trace at path in cache directory dir (e->hit: the
 * entry is there and its key matches; its use time is renewed).  -1 when
 * the trace's files cannot be identified (not cached then). */
int wc_tcache_lookup(const char *path, const char *dir, wc_tcache_entry *e);
/* Convert t (opened from that path) into the entry, then trim dir to
 * max_bytes, least recently used first.  The warnings of t after the
 * conversion (wc_trace_warnings: listings that do not match ...; the
 * binary form does not repeat them) are kept with the entry, for
 * wc_tcache_lookup to hand back (e->warn).  Errors are the conversion's or
 * the directory's; nothing partial is left. */
int wc_tcache_store(wc_trace *t, const char *dir, const wc_tcache_entry *e,
                    uint64_t max_bytes, wc_convert_stats *st, wc_diag *d);
/* Remove the entry (one that would not open). */
void wc_tcache_drop(const wc_tcache_entry *e);
void wc_tcache_entry_free(wc_tcache_entry *e);

/* One instruction by reference (wc_cta_next_ref): no copy of the static
 * fields of a binary trace's instruction. */
#define WC_SID_NONE UINT32_MAX
typedef struct wc_iref {
    const wc_inst *in; /* every static field (pc, op .. opcode); mask and
                          addr[] are this instance's only when in is the
                          caller's buffer (always for text traces)       */
    uint32_t mask;     /* this instance's mask                            */
    uint32_t sid;      /* binary traces: the number of the static record
                          in the kernel's table (same number, same static
                          fields, pc included); WC_SID_NONE otherwise     */
} wc_iref;
/* As wc_cta_next, for any trace: 1 and *r, 0 at the end, or -code.  A
 * binary trace's instruction without lane addresses is handed out as a
 * pointer to its static record (owned by the trace, valid while it is
 * open) and its mask; anything else is decoded into buf. */
int wc_cta_next_ref(wc_cta *c, unsigned w, wc_inst *buf, wc_iref *r,
                    wc_diag *d);
/* The next instructions of warp stream w at once: 1 and *n (1..max) of
 * them in r[] (only the last may be decoded into buf), 0 at the end, or
 * -code.  The records stay valid until the next call. */
int wc_cta_next_refs(wc_cta *c, unsigned w, wc_inst *buf, wc_iref *r,
                     size_t max, size_t *n, wc_diag *d);
/* As wc_cta_next_refs with nbuf >= 1 buffers buf[0..nbuf): a binary
 * trace's strided full warps (the usual global accesses) are decoded into
 * buf[0], buf[1], ... in order without ending the batch until the last
 * buffer is taken; any other decoded record still ends it.  nbuf 1 is
 * wc_cta_next_refs. */
int wc_cta_next_refs_bufs(wc_cta *c, unsigned w, wc_inst *buf, size_t nbuf,
                          wc_iref *r, size_t max, size_t *n, wc_diag *d);
/* Speed only: the host addresses the next wc_cta_next_refs* call on
 * stream w reads first, after the CTA itself: out[0] the stream's state,
 * out[1] its next encoded byte (NULL when not known: a text trace, the
 * end, a chunk still to decode).  Read while the stream is in the host
 * caches (just after a call), prefetched shortly before the next one: the
 * detailed model refills a warp's few look-ahead instructions long after
 * its stream's lines left the caches (three dependent misses a refill). */
void wc_cta_next_addrs(const wc_cta *c, unsigned w, const void *out[2]);

/*
 * A binary trace's encoded warp streams, for a consumer that recognises a
 * repeated warp by its bytes (model/im_warp.c): the bytes of a stream
 * decode to the same instructions whenever they are equal (a stream
 * starts from one state), so comparing bytes verifies a repeat without
 * decoding it, and only the instructions with lane addresses need
 * decoding.
 */
/* Warp w's whole encoded stream when it is held in memory and nothing of
 * it has been read (a binary trace's inline stream): 1 with *p, *len and
 * *n (its instructions; the stream is the first *n that decode from *p),
 * else 0.  Valid while c is. */
int wc_cta_raw(const wc_cta *c, unsigned w, const unsigned char **p,
               size_t *len, uint64_t *n);
/* The decoder's state between two instructions of an encoded stream. */
typedef struct wc_rawpos {
    size_t at;                  /* byte position                          */
    uint32_t pid, pmask;        /* previous record number and mask       */
    uint64_t pbase;             /* previous address base                  */
} wc_rawpos;
/* The state at the start of a stream. */
void wc_rawpos_init(wc_rawpos *s);
#define WC_RAW_ADDR 1u          /* the record has lane addresses          */
#define WC_RAW_UNKNOWN 2u       /* its opcode is not in the table         */
#define WC_RAW_MOVED 4u         /* (wc_cta_raw_inst_like) its lanes are the
                                   template's, each moved by one difference */
#define WC_RAW_MASKED 8u        /* (wc_cta_raw_inst) its bytes give its mask
                                   (else it has the one before's)          */
/* Decode the instruction at s of p[0..len), an encoded stream of c's
 * kernel, into *in (every field) and *sid, with *flags (WC_RAW_*) of its
 * record; s moves past it.  0, or -1 when the bytes do not decode (nothing
 * is reported: reading the stream ordinarily reports it).  Counts nothing
 * (unknown opcodes are counted by the ordinary reads). */
int wc_cta_raw_inst(const wc_cta *c, const unsigned char *p, size_t len,
                    wc_rawpos *s, wc_inst *in, uint32_t *sid,
                    unsigned *flags);
/* wc_cta_raw_inst for an instruction expected to repeat a template
 * instruction: tp[0 .. tlen), its encoded bytes, decoded into *tin (static
 * record tsid) by c's kernel.  When the bytes at s have the template's
 * head, decode (from s's record state) to record tsid and the template's
 * mask, and after their address base have the template's lane bytes, *in
 * is *tin with its lanes moved by the difference of the bases, without
 * decoding them (the same result as wc_cta_raw_inst); otherwise
 * wc_cta_raw_inst.  Any template gives wc_cta_raw_inst's result, but for
 * WC_RAW_MOVED in *flags, set where the lanes were moved from *tin's. */
int wc_cta_raw_inst_like(const wc_cta *c, const unsigned char *p,
                         size_t len, wc_rawpos *s, const unsigned char *tp,
                         size_t tlen, const wc_inst *tin, uint32_t tsid,
                         wc_inst *in, uint32_t *sid, unsigned *flags);
/* Speed only: the instruction at s of p[0 .. len) when its lanes are
 * coded one offset from its base each (not strided), read without
 * decoding them: its record, mask, tag byte, base, the bytes of its lane
 * offsets (lanes[0 .. nlanes), inside p) and flags as wc_cta_raw_inst
 * gives them.  Two such instructions of one kernel with the same record,
 * mask, tag, base and lane bytes decode to the same instruction.  0 with
 * s moved past it (wc_cta_raw_inst's state), or -1 with s unchanged (an
 * instruction without addresses or with strided ones, a lane offset of
 * more than three bytes, bytes that do not decode). */
typedef struct wc_rawlanes {
    uint64_t base;
    const unsigned char *lanes;
    uint32_t nlanes, sid, mask;
    unsigned flags;
    uint8_t tag;
} wc_rawlanes;
int wc_cta_raw_lanes(const wc_cta *c, const unsigned char *p, size_t len,
                     wc_rawpos *s, wc_rawlanes *r);
/* Speed only: a template instruction (tp[0 .. tlen), its encoded bytes,
 * decoded into *tin, of record tsid) made ready for wc_cta_raw_moved:
 * where its bytes start, its base and its lanes' bytes.  1, or 0 when
 * it cannot serve as a template (its lanes strided and strided 0, bytes
 * that do not decode to *tin's record and mask); t->ok says the same. */
typedef struct wc_rawtmpl {
    uint64_t tbase;             /* its first active lane's address        */
    uint32_t head, tail_at, tlen; /* bytes of its head, where its lanes'
                                   bytes start, all its bytes            */
    uint32_t sid, mask;
    uint8_t has_id, has_mask, all, strided, ok; /* strided: its lanes
                                   decode from a base and a stride       */
} wc_rawtmpl;
int wc_rawtmpl_prep(const wc_cta *c, const unsigned char *tp, size_t tlen,
                    const wc_inst *tin, uint32_t tsid, int strided,
                    wc_rawtmpl *t);
/* Whether the bytes at s of p[0 .. len) repeat template t's (tp its bytes)
 * but for the address base, without decoding them: 1 with s moved past
 * them, *d the difference of the bases and *all (the instruction is
 * wc_inst_moved(in, tin, *d, *all), of record t->sid), else 0 with s
 * unchanged (decode it with wc_cta_raw_inst). */
int wc_cta_raw_moved(const unsigned char *p, size_t len, wc_rawpos *s,
                     const unsigned char *tp, const wc_rawtmpl *t,
                     uint64_t *d, int *all);
/* *in = *tin with each active lane moved by d (mod 2^64), or with all: every
 * lane (a record of every lane's address); inactive lanes else as tin's. */
void wc_inst_moved(wc_inst *in, const wc_inst *tin, uint64_t d, int all);
/* The instruction at s of an encoded stream of c's kernel when it is one
 * without lane addresses: 0 with its record *sid and mask *mask, s moved
 * past it (wc_cta_raw_inst would give the same, and a table record); -1
 * otherwise (an instruction with addresses, or bytes that do not decode),
 * s unchanged.  Reads no more than its few bytes. */
int wc_cta_raw_plain(const wc_cta *c, const unsigned char *p, size_t len,
                     wc_rawpos *s, uint32_t *sid, uint32_t *mask);
/* Static record sid of c's kernel (binary traces; NULL past the table). */
const wc_inst *wc_cta_static(const wc_cta *c, uint32_t sid);
/* Warp w as read to its end (its next read gives the end). */
void wc_cta_raw_skip(wc_cta *c, unsigned w);

/* ------------------------------------------------------------------------ */
/* Hand-written SASS microbenchmarks and cuobjdump listings                  */
/* ------------------------------------------------------------------------ */

typedef struct wc_ubench {
    char gpu[WC_CFG_STR_LEN]; /* from .gpu, "" when absent                 */
    long gpu_line, gpu_col;   /* where the .gpu name stands                */
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
/* The listing file kernel `name` was read from, or NULL. */
const char *wc_sass_kernel_file(const wc_sass *s, const char *kernel);
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

#endif /* WC_TRACE_H */
