/*
 * detailed/dm.h - the one public header of the detailed (cycle-level) model.
 *
 * Owns: the cycle-level model of modern NVIDIA SMs of seed 000 (sections
 * 4-6): 4 sub-cores with fetch / decode / L0 icache + stream buffer,
 * 3-entry instruction buffers, CGGTY issue driven by the control bits,
 * Control and Allocate stages, two register-file banks with a register
 * file cache, fixed-latency units with a result queue, and the memory
 * pipeline of detailed/mem_*.c; CTA scheduling over the SMs of a GPU.
 *
 * Entry points: dm_run_kernel (a kernel of a trace, or a window of its
 * CTAs, for the sampler) and dm_run_ubench (a hand-written .sass
 * microbenchmark: clock values per warp).  Nothing here prints or exits.
 */
#ifndef DM_H
#define DM_H

#include <stdint.h>
#include <stdio.h>

#include "ua.h"
#include "wc.h"
#include "wc_json.h"

/* Why a sub-core issued nothing in a cycle (the first reason that held for
 * the most advanced warp; summed over sub-core cycles). */
#define DM_STALLS(X)                                                           \
    X(IDLE, "idle")               /* no live warp on the sub-core           */ \
    X(IBUFFER, "ibuffer_empty")   /* fetch / icache miss                    */ \
    X(STALL_COUNTER, "stall_counter")                                          \
    X(YIELD, "yield")                                                          \
    X(DEP_COUNTER, "dep_counter") /* SB wait mask or DEPBAR.LE              */ \
    X(SCOREBOARD, "scoreboard")   /* dep_mode scoreboard                    */ \
    X(UNIT, "unit_busy")          /* execution unit input latch             */ \
    X(MEM_QUEUE, "mem_queue")     /* sub-core memory queue full             */ \
    X(CONST_MISS, "const_miss")   /* L0 FL constant cache miss              */ \
    X(BARRIER, "barrier")                                                      \
    X(PIPELINE, "pipeline")       /* Control / Allocate held (RF ports)     */ \
    X(EXITED, "exited")           /* warps done, CTA still running          */

typedef enum dm_stall {
#define X(e, s) DM_STALL_##e,
    DM_STALLS(X)
#undef X
        DM_STALL_COUNT
} dm_stall;
const char *dm_stall_name(int reason);

typedef struct dm_event dm_event;

typedef struct dm_options {
    int timeline;        /* record one dm_event per issued instruction       */
    /* timeline streaming: when set, each event is handed to sink once it is
     * complete (operands read), in issue order, and the result holds none:
     * memory stays bounded.  A nonzero return stops the run (WC_EINTERNAL). */
    int (*sink)(void *ctx, const dm_event *e);
    void *sink_ctx;
    uint64_t cta_first;  /* first CTA of the window (trace order)            */
    uint64_t cta_count;  /* CTAs in the window, 0 = all                      */
    long sms;            /* SMs to simulate, 0 = the config's num_sms        */
    uint64_t max_cycles; /* stop (WC_EINTERNAL) after this many, 0 = none    */
    uint64_t seed;       /* shuffle assignment policy                        */
    uint32_t fl_max;     /* in-flight variable-latency records per SM, 0 =
                            no limit but memory (a test hook: running out is
                            a WC_EINTERNAL error, never a dropped instruction) */
    const struct ua_fold *l2_fold; /* shared data folded into the L2 (a
                            sampler stand-in region, uarch/ua_mem.h), NULL */
} dm_options;
void dm_options_default(dm_options *o);

struct dm_event {
    uint64_t cycle;      /* issue cycle                                      */
    unsigned sm, subcore, warp; /* warp: id in its CTA (ubench: .warp N)     */
    unsigned cta;        /* CTA number in the run                            */
    uint64_t pc;
    char op[48];
    uint8_t nsrc;        /* regular source operands                          */
    uint8_t rfc_hit[8];  /* per regular source operand: read from the RFC    */
    uint64_t done;       /* cycle the instruction left the pipeline (est.)   */
};

typedef struct dm_result {
    uint64_t cycles;     /* simulated cycles (+ launch_overhead for a whole kernel) */
    uint64_t sim_cycles; /* simulated cycles only (CTA dispatch and overheads
                            of keys_launch.def included)                    */
    uint64_t warp_insts;
    uint64_t ctas;
    double ipc;          /* warp instructions per simulated cycle (whole GPU) */
    uint64_t stall[DM_STALL_COUNT];
    uint64_t issue_cycles; /* sub-core cycles with an issue                  */
    ua_counts counts;    /* per-kernel counts (predict: "counts")            */
    dm_event *events;
    size_t nevents;
    double host_seconds;
} dm_result;

/* Simulate kernel k of t on g: all of it, or the CTA window of o. */
int dm_run_kernel(wc_trace *t, size_t k, const wc_gpu *g, const dm_options *o,
                  dm_result *r, wc_diag *d);
void dm_result_free(dm_result *r);

typedef struct dm_ubench_result {
    unsigned nwarps;
    unsigned *warp;      /* .warp N of each warp                             */
    unsigned *subcore;   /* sub-core it ran on                               */
    uint64_t **clocks;   /* per warp: values read by its clock instructions  */
    size_t *nclocks;
    uint64_t cycles;     /* cycle the last warp finished                     */
    dm_event *events;
    size_t nevents;
    uint64_t stall[DM_STALL_COUNT];
} dm_ubench_result;

/* Run a microbenchmark: its warps form one CTA on SM 0. */
int dm_run_ubench(const wc_ubench *u, const wc_gpu *g, const dm_options *o,
                  dm_ubench_result *r, wc_diag *d);
void dm_ubench_result_free(dm_ubench_result *r);

/* Chrome trace-event JSON of issue events (opens in Perfetto), streamed:
 * dm_chrome_begin, then per kernel dm_chrome_kernel and its events
 * (dm_chrome_event is a dm_options.sink), then dm_chrome_end.  Each kernel
 * is a process (pid, "process_name" metadata: its name), each sub-core a
 * thread of it (tid sm * nsub + subcore, "thread_name": "SM s sub-core u"). */
typedef struct dm_chrome {
    wc_json j;
    unsigned pid, nsub;
    uint64_t offset;      /* added to the cycles of the kernel's events      */
    uint8_t *named;       /* per tid: thread_name written for this kernel    */
    size_t nnamed;
    int oom;
} dm_chrome;
void dm_chrome_begin(dm_chrome *w, FILE *f);
/* The events that follow belong to kernel pid named name; their cycles are
 * shifted by offset (kernels laid end to end); nsub: sub-cores per SM. */
void dm_chrome_kernel(dm_chrome *w, unsigned pid, const char *name,
                      uint64_t offset, unsigned nsub);
int dm_chrome_event(void *w, const dm_event *e);
/* Close the document; WC_EINTERNAL when a write failed. */
int dm_chrome_end(dm_chrome *w, wc_diag *d);
/* The whole document of n events of one run (pid 1). */
int dm_write_chrome_trace(const dm_event *ev, size_t n, FILE *f, wc_diag *d);

/* The largest value of config key the detailed model takes (its rings
 * hold a fixed-latency result up to DM_CAL cycles ahead, its instruction
 * buffer up to DM_RING slots), HUGE_VAL where it has no limit of its own;
 * calibration keeps a fitted key within it (calib/eval.c). */
double dm_key_limit(const char *key);

#endif /* DM_H */
