/*
 * common/trace_int.h - private to the trace reader files (trace*.c).
 *
 * trace_io.c gives byte sources: the head of a plain or zstd file (headers
 * are read without decompressing the rest) and a file descriptor for
 * pread() over the whole decompressed text (zstd goes to an unlinked
 * temporary file once, so memory stays bounded by buffers, not the trace).
 */
#ifndef WC_TRACE_INT_H
#define WC_TRACE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include "wc.h"

/* Kinds of input a path can hold, by content (magic bytes) and name. */
enum {
    WCT_PLAIN = 0, /* text                                  */
    WCT_ZSTD = 1,  /* zstd frames                           */
    WCT_XZ = 2,    /* xz (not supported: no liblzma)        */
};

/* Sniff the first bytes of path: WCT_PLAIN/ZSTD/XZ, or -1 if unreadable. */
int wct_sniff(const char *path);

/* First bytes of path, decompressed when zstd: at most max bytes into a
 * malloc'd NUL-terminated *buf; *len its length; *whole = 1 when that is
 * the entire content. */
int wct_head(const char *path, int kind, size_t max, char **buf, size_t *len,
             int *whole, wc_diag *d);

/* A descriptor for pread() over the text of path (kind as above); zstd is
 * decompressed once into an unlinked temporary file.  *size = text bytes. */
int wct_open(const char *path, int kind, int *fd, uint64_t *size, wc_diag *d);

#define MAX_CTA_WARPS 1024u
#define SRC_IDLE 2u /* zstd texts kept with no reader */

/* ---- types shared by trace.c and trace_bin.c ------------------------------------------------------------ */

typedef struct tsrc { /* an open kernel text, shared by readers and CTAs */
    int fd;
    uint64_t size;
    unsigned refs;
} tsrc;

typedef struct ctaix { /* the CTA index of one kernel */
    uint64_t n;       /* CTAs                                              */
    uint64_t *off;    /* [n + 1] scan position before CTA i; [n]: the end */
    int64_t *line;    /* [n + 1] line number at off[i]                     */
    uint64_t *insts;  /* [n] warp instructions of CTA i                   */
} ctaix;

typedef struct kent {
    wc_kernel_info info;
    int kind;          /* WCT_PLAIN, WCT_ZSTD, or KIND_UBENCH              */
    uint64_t data_off; /* first byte after the header                      */
    long data_line;    /* line number of that byte                         */
    tsrc *src;         /* open while a reader or CTA of it is alive, and
                          for zstd while among the SRC_IDLE last used     */
    ctaix *ix;         /* CTA index once built (immutable), or NULL        */
    int ctrl_chk;      /* listing vs trace: 0 unchecked, 1 checking, 2 done */
    int ctrl_bad;      /* a mismatch was reported for this kernel          */
    struct wctb_kern *bin; /* KIND_BIN: the kernel's place in the binary
                              trace and, once loaded, its static table    */
    long grid_line, grid_col;   /* where the header gives grid dim / block  */
    long block_line, block_col; /* dim (value column), for diagnostics      */
    char *own_path;    /* text kernels: the path (info.path), owned        */
} kent;

#define KIND_UBENCH 100
#define KIND_BIN 101 /* a kernel of a binary trace (trace_bin.c) */
#define KIND_STALE 102 /* a launch whose kernel file could not be read
                          again (changed since the trace was opened)    */

/*
 * Launches.  k[i] is launch i's record, or NULL while it is not in memory:
 * a kernelslist.g is read once at open (every header checked) and records
 * are made again on demand from the launch's line (loff[i] - 1 is its byte
 * offset in the kernelslist; 0: the record cannot be remade and is kept).
 * wc_trace_forget drops records a caller is done with, so memory does not
 * grow with the number of launches (k[] and loff[] only: 16 bytes each).
 * k[] and live[] are guarded by kmu (taken before mu).
 */
struct wc_trace {
    kent **k;
    uint64_t *loff;
    size_t nk, capk;
    size_t *live;          /* launches with a record that can be dropped */
    size_t nlive, caplive;
    int kl_fd;             /* the kernelslist, open for remaking records */
    char *kl_dir;          /* directory kernel file names are relative to */
    kent stale;            /* what a launch that cannot be remade gets    */
    int sass_any;          /* the directory has *.sass files (notes)     */
    char *sass_dir;
    pthread_mutex_t kmu;
    wc_sass *sass;   /* merged cuobjdump listings of the directory, or NULL */
    wc_ubench *ub;   /* for a .sass microbenchmark                          */
    uint64_t ncopy, copy_bytes;
    char **unk_name;
    uint64_t *unk_count;
    size_t nunk, capunk;
    char **pool;           /* interned kernel names and paths (hash set,
                              pool_cap a power of two)                    */
    size_t npool, pool_cap;
    char **notes;          /* distinct notes and warnings (interned)      */
    size_t nnotes, capnotes;
    const char **warn;     /* warnings, in order, each once (WARN_MAX)    */
    size_t nwarn;
    kent *idle[SRC_IDLE];  /* kernels whose zstd text is kept idle, LRU */
    unsigned nidle;
    pthread_mutex_t mu;    /* sources, indexes, unknown-opcode counts */
    pthread_mutex_t ctrl_mu; /* held while a listing is checked (threads
                                opening that kernel wait for the answer) */
};

typedef struct lbuf { /* line reader over [off, limit) of an fd */
    char *buf;
    size_t cap, beg, end;
    uint64_t off;   /* file offset of buf[0]       */
    uint64_t limit; /* read nothing at or past it  */
    int eof;
} lbuf;

typedef struct wstream {
    /* speed only: the fields the binary reader's every call reads
     * (wc_cta_next_refs_bufs) first, in one host line; they were spread
     * over three behind the text reader's line buffer */
    uint64_t n, done;
    unsigned char *dec;
    size_t dlen, dpos;
    uint64_t cleft;     /* instructions left in the current chunk */
    uint32_t pid, pmask;
    int inl;            /* stream held in the CTA frame (dec not owned) */
    unsigned id;
    uint64_t pbase;
    /* KIND_BIN: off0/end are the byte range of the warp's chunks, pos the
     * next chunk; dec[dpos..dlen) the decoded rest of the current chunk */
    uint64_t pos;
    size_t dcap;
    uint64_t off0, end; /* byte range of the instruction lines */
    long line0, line;   /* line number of off0 / of the next line */
    lbuf b;
} wstream;

struct wc_cta {
    wc_trace *t;
    kent *k;
    tsrc *src;
    unsigned idx[3];
    unsigned nwarps;
    wstream *w;
    void *zdc;          /* KIND_BIN: ZSTD_DCtx, created on first use      */
    unsigned char *cbuf; /* KIND_BIN: compressed chunk buffer             */
    size_t ccap;
    unsigned char *frame; /* KIND_BIN: the decoded CTA frame              */
};

struct wc_kreader {
    wc_trace *t;
    kent *k;
    tsrc *src;
    lbuf b;
    long line;       /* line number of the next line the scan reads */
    int ub_done;     /* ubench: the one CTA was handed out          */
    wstream *scratch; /* warp records of the CTA being scanned      */
    unsigned cap_scratch;
    uint64_t cta;    /* number of the CTA the next scan meets       */
    ctaix bld;       /* index being built (bld.n CTAs so far)       */
    uint64_t bld_cap;
    int bld_on;      /* still building: no gap, no error, no OOM    */
    int chk_on;      /* has met every CTA from the first: checks the
                        CTA count and duplicate block ids           */
    int chk_dup;     /* the duplicate-id bitmap is usable           */
    unsigned char *seen; /* [ctas / 8] block ids met (chk_dup)      */
    long idx_line, idx_col; /* 'thread block =' value of the last CTA  */
};


/* trace.c helpers used by trace_bin.c */
kent *wct_add_kernel(wc_trace *t, wc_diag *d);
const char *wct_intern(wc_trace *t, const char *s, size_t n);
void wct_count_unknown(wc_trace *t, const char *opcode);

/* trace_bin.c: the binary trace form (docs/formats.md) */
int wctb_sniff(const char *path);                 /* 1: binary trace     */
int wctb_open(wc_trace *t, const char *path, wc_diag *d);
int wctb_load(wc_trace *t, kent *k, wc_diag *d);  /* table + CTA index   */
int wctb_cta(wc_kreader *r, wc_cta *c, wc_diag *d); /* CTA r->cta into c  */
int wctb_next(wc_cta *c, wstream *s, wc_inst *in, wc_diag *d);
void wctb_rewind(wstream *s);
void wctb_cta_free(wc_cta *c);
void wctb_kern_free(kent *k);

#endif
