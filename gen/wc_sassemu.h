/*
 * gen/wc_sassemu.h - trace builder from a cuobjdump listing and a launch
 * shape (`warpcast tracegen`).
 *
 * Runs, per warp, a functional emulation of the integer and address
 * instructions of one kernel of a `cuobjdump -sass` listing (S2R, LDC, IMAD,
 * LEA, IADD3, SHF, LOP3, ISETP, SEL, ...) and writes an Accel-Sim trace
 * directory (tracer version 5) whose memory instructions carry the real
 * per-lane addresses.  Exact for straight-line kernels and for branches that
 * are uniform across each warp; loads return zero (zero-filled buffers).
 * Not part of the library core: only the CLI and the tests link it.
 */
#ifndef WC_SASSEMU_H
#define WC_SASSEMU_H

#include <stdint.h>

#include "wc.h"

#define WC_TG_MAX_PARAMS 64

typedef struct wc_tg_param {
    uint32_t offset;    /* byte offset in constant bank 0 (e.g. 0x210)     */
    uint64_t value;
    unsigned size;      /* 4 or 8 bytes, little-endian                     */
} wc_tg_param;

typedef struct wc_tracegen_params {
    const char *listing;        /* cuobjdump -sass text file                   */
    const char *kernel;         /* function name; NULL: the listing's only one */
    unsigned grid[3], block[3]; /* launch shape (0 entries are taken as 1)      */
    unsigned shmem;             /* -shmem written in the header (bytes)         */
    int nregs;                  /* -nregs; 0: highest register used + 3         */
    int binary_version;         /* 0: from the listing's sm_XX (else 90)        */
    uint64_t shmem_base;        /* -shmem base_addr; shared lanes are relative  */
    uint64_t local_base;        /* -local mem base_addr                         */
    unsigned smem_reserved;     /* window offset where the CTA's shared data
                                   starts (sm_90: 0x400); trace shared address =
                                   shmem_base + offset - smem_reserved          */
    uint64_t ptr_base;          /* default pointer params: ptr_base + i*ptr_step */
    uint64_t ptr_step;
    wc_tg_param params[WC_TG_MAX_PARAMS]; /* --param overrides, in order   */
    int nparams;
    uint64_t max_warp_insts;    /* per-warp limit (loops); 0: 1<<24             */
    int zstd;                   /* write kernel-1.traceg.zst                    */
} wc_tracegen_params;

/* What one run did (for the CLI's summary). */
typedef struct wc_tracegen_result {
    char kernel[512];
    uint64_t ctas, warps, insts, mem_insts;
    int nregs, binary_version;
    int nslots;                 /* kernel-parameter slots the listing reads     */
    struct {
        uint32_t offset;
        unsigned size;          /* widest read                                   */
        uint64_t value;
        int given;              /* 1: from --param, 0: default                   */
        int pointer;            /* read 64 bits wide (default pointer)           */
    } slots[WC_TG_MAX_PARAMS];
} wc_tracegen_result;

/* Defaults: 1x1x1 launch, sm_90 constants, base addresses as NVBit prints
 * them on an H100 (shmem 0x00007f6300000000, local 0x00007f6200000000),
 * pointers from 0x00007f0000000000 every 4 GiB. */
void wc_tracegen_defaults(wc_tracegen_params *p);
/* Parse "OFFSET=VALUE[:SIZE]" (C integer syntax) into p->params. */
int wc_tracegen_add_param(wc_tracegen_params *p, const char *spec, wc_diag *d);
/* Build the trace directory outdir (created if missing): kernelslist.g,
 * kernel-1.traceg[.zst] and kernels.sass (a copy of the listing).  Errors:
 * WC_EINPUT with the listing's file:line:col (unsupported opcode feeding an
 * address or a branch, divergent branch, ...), WC_EUSAGE for bad parameters. */
int wc_tracegen_write(const wc_tracegen_params *p, const char *outdir,
                      wc_tracegen_result *res, wc_diag *d);

#endif /* WC_SASSEMU_H */
