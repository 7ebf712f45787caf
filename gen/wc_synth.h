/*
 * gen/wc_synth.h - the synthetic trace generator: the project's own example
 * traces (make demo, tests, bench).  Not part of the library core: only the
 * CLI, the tests and the bench programs link it.
 */
#ifndef WC_SYNTH_H
#define WC_SYNTH_H

#include <stdint.h>

#include "wc.h"

/* ------------------------------------------------------------------------ */
/* Synthetic trace generator (gen/synth.c): the project's own examples     */
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

#endif /* WC_SYNTH_H */
