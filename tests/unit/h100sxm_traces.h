/*
 * tests/unit/h100sxm_traces.h - the 15 H100 SXM kernels measured in
 * ../shared/data/hw/h100-sxm/traces (one directory each), for the tests
 * that run all of them.
 */
#ifndef H100SXM_TRACES_H
#define H100SXM_TRACES_H

#include <stddef.h>

static const char *const h100sxm_traces[] = {
    "atom_lane-1056x256", "copy2-16384x256", "dfma_dep64-132x256",
    "empty-1x32", "ffma_dep64-132x256", "ffma_dep64-1x32",
    "ffma_dep64-4224x32", "ffma_dep64_dyn200k-264x256",
    "ffma_ilp128-132x128", "imad_dep128-132x512", "mufu64-132x256",
    "smem32-132x256", "strided2-1024x256", "vadd-4096x256",
    "vadd_ffma-8192x256"};
#define H100SXM_NTRACES (sizeof h100sxm_traces / sizeof *h100sxm_traces)

#endif
