/*
 * cli/cmd_predict.c - `warpcast predict TRACE`: the main job.
 *
 * Runs the interval model, the detailed model, or (default) the hybrid
 * sampler over every kernel of a trace and prints cycles, warp
 * instructions, IPC, the 95% interval (hybrid) and a stall / CPI breakdown.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dm.h"
#include "im.h"
#include "smp.h"
#include "study.h"

enum { MODE_INTERVAL, MODE_DETAILED, MODE_HYBRID };
static const char *const mode_names[] = {"interval", "detailed", "hybrid"};

static const char predict_help[] =
    "usage: warpcast predict [OPTIONS] TRACE\n"
    "\n"
    "Predicts the cycles of every kernel of TRACE.\n"
    "\n"
    "options:\n"
    "  --mode interval|detailed|hybrid   model (default hybrid: the interval\n"
    "                    model corrected by sampled detailed regions, with a 95%\n"
    "                    confidence interval)\n"
    "  --sample-period K hybrid: simulate every K-th region in detail\n"
    "  --budget SECONDS  hybrid: choose the period to fit this host time\n"
    "  --no-stratify     hybrid: one stratum per kernel\n"
    "  --no-reuse        hybrid: simulate identical launches again\n"
    "  --no-trace-cache  read a text trace as text (default: converted once\n"
    "                    to the binary form in the trace cache, see\n"
    "                    WARPCAST_TRACE_CACHE in the user guide)\n"
    "  --self-profile    report host time (and cycles) per warp instruction\n"
    "  --per-warp        interval: per-warp cycles and IPC\n"
    "  --timeline FILE   detailed: write issue events as Chrome trace-event\n"
    "                    JSON (opens in Perfetto)\n"
    "  --kernel N|REGEX  only the kernel with -kernel id N, or the kernels whose\n"
    "                    (demangled or raw) name matches REGEX (repeatable)\n"
    "  --gpu NAME|FILE   GPU config (default from the trace's -binary version)\n"
    "  --set KEY=VALUE   override a config key (repeatable): what-if studies\n"
    "  --jobs N          kernels (and their sampled regions) run on N threads\n"
    "                    (default: the online cores); output identical for any N\n"
    "  --format text|json|csv   --out FILE   --seed N   --quiet\n";

typedef struct kout {
    int id;
    const char *name;
    const char *mangled; /* the trace's raw name (name is demangled) */
    uint64_t cycles, warp_insts;
    double ipc;
    int has_ci;
    double ci[2];
    const char *how;
    const char *why;         /* hybrid, fully in detail: smp_full_why_name */
    int standin;             /* hybrid: stand-in regions (smp.h)           */
    uint64_t fold_bytes;     /* hybrid: their shared data's folded span    */
    size_t regions, sampled;
    size_t phase1;           /* hybrid, two-phase: interval-model regions  */
    uint64_t warm;
    double host_s;
    /* breakdown: names and values */
    int nstall;
    const char *stall_name[32];
    double stall[32];
    const char *stall_key; /* "stalls" (detailed) or "cpi_stack" (interval) */
    /* self profile */
    double cost_s[2];      /* seconds per warp instruction: interval, detailed */
    double cost_cyc[2];
    uint64_t cost_insts[2];
    int have_cyc;
    int split;             /* hybrid: the host time below was measured     */
    double model_s[2];     /* hybrid: CPU seconds in each model, less tests */
    double tests_s[2];     /* hybrid: in the sampler's tests, before / after
                              the pass                                     */
    /* per warp (interval) */
    im_result *pw;
    /* per-kernel counts (uarch/ua_mem.h) */
    ua_counts counts;
    int counts_estimated; /* hybrid two-phase: scaled from regions */
} kout;

typedef struct progress_ctx {
    int enabled;
    double t0, last;
    size_t nk;
} progress_ctx;

static void on_progress(void *ctx, const smp_progress *p)
{
    progress_ctx *pc = ctx;
    double now = wc_now();
    if (!pc->enabled || now - pc->t0 < 1.0)
        return;
    pc->last = now;
    fprintf(stderr, "\r[kernel %zu/%zu] %-8s regions %zu/%zu  estimate %.0f cycles   ",
            p->kernel + 1, pc->nk, p->phase, p->regions_done, p->regions_total,
            p->estimate_cycles);
    fflush(stderr);
}

static void progress_kernel(progress_ctx *pc, size_t k, const char *mode)
{
    double now = wc_now();
    if (!pc->enabled || now - pc->t0 < 1.0)
        return;
    fprintf(stderr, "\r[kernel %zu/%zu] %s ...                                 ",
            k + 1, pc->nk, mode);
    fflush(stderr);
    pc->last = now;
}

static void progress_clear(progress_ctx *pc)
{
    if (pc->enabled && pc->last > 0) {
        fprintf(stderr, "\r%70s\r", "");
        fflush(stderr);
    }
}

/* Output, streamed: a header, each kernel as its result is ready (in
 * trace order), a footer.  Only the total is kept across kernels. */
typedef struct outw {
    FILE *f;
    const wc_gpu *g;
    int mode, format, self_profile;
    cli_json j;
    uint64_t total;
    int begun; /* the header is written with the first kernel: an error
                  before it leaves stdout empty */
} outw;

static void out_begin(outw *w)
{
    if (w->begun)
        return;
    w->begun = 1;
    if (w->format == CLI_FMT_JSON) {
        json_begin(&w->j, w->f, 0);
        json_obj(&w->j, NULL);
        json_str(&w->j, "gpu", w->g->name);
        json_str(&w->j, "mode", mode_names[w->mode]);
        json_arr(&w->j, "kernels");
    } else if (w->format == CLI_FMT_CSV) {
        fprintf(w->f, "id,name,cycles,warp_instructions,ipc,ci95_lo,ci95_hi\n");
    } else {
        fprintf(w->f, "gpu %s, mode %s\n", w->g->name, mode_names[w->mode]);
        fprintf(w->f, "%4s  %-40s %14s %14s %8s  %s\n", "id", "kernel",
                "cycles", "warp insts", "IPC",
                w->mode == MODE_HYBRID ? "95% interval" : "");
    }
}

static void out_json(outw *w, const kout *k)
{
    cli_json *j = &w->j;
    {
        json_obj(j, NULL);
        json_int(j, "id", k->id);
        json_str(j, "name", k->name);
        json_str(j, "mangled", k->mangled);
        json_uint(j, "cycles", k->cycles);
        json_uint(j, "warp_instructions", k->warp_insts);
        json_num(j, "ipc", (double)(long long)(k->ipc * 1e4 + 0.5) / 1e4);
        if (k->has_ci) {
            json_arr(j, "ci95");
            json_num(j, NULL, (double)(long long)(k->ci[0] + 0.5));
            json_num(j, NULL, (double)(long long)(k->ci[1] + 0.5));
            json_arr_end(j);
        }
        if (k->how) {
            json_str(j, "estimate", k->how);
            if (k->why)
                json_str(j, "detail_reason", k->why);
            json_uint(j, "regions", k->regions);
            json_uint(j, "sampled_regions", k->sampled);
            if (k->phase1)
                json_uint(j, "phase1_regions", k->phase1);
            if (k->warm)
                json_uint(j, "warmup_ctas", k->warm);
            if (k->standin)
                json_bool(j, "stand_in_regions", 1);
            if (k->fold_bytes)
                json_uint(j, "stand_in_shared_fold_bytes", k->fold_bytes);
        }
        if (k->nstall) {
            json_obj(j, k->stall_key);
            for (int s = 0; s < k->nstall; s++)
                json_num(j, k->stall_name[s],
                         (double)(long long)(k->stall[s] + 0.5));
            json_obj_end(j);
        }
        json_obj(j, "counts");
        json_int(j, "ctas_per_sm", k->counts.ctas_per_sm);
        json_obj(j, "warp_insts_by_unit");
        for (int u = 0; u < WC_UNIT_COUNT; u++)
            json_uint(j, wc_unit_name(u), k->counts.warp_insts_by_unit[u]);
        json_obj_end(j);
        json_uint(j, "global_requests", k->counts.global_requests);
        json_uint(j, "global_sectors", k->counts.global_sectors);
        json_uint(j, "shared_wavefronts", k->counts.shared_wavefronts);
        json_uint(j, "atomics", k->counts.atomics);
        json_uint(j, "l1_hit_sectors", k->counts.l1_hit_sectors);
        json_uint(j, "l2_hit_sectors", k->counts.l2_hit_sectors);
        json_uint(j, "dram_bytes", k->counts.dram_bytes);
        if (k->counts_estimated)
            json_bool(j, "estimated", 1);
        json_obj_end(j);
        if (k->pw && k->pw->nwarps) {
            json_arr(j, "warps");
            for (size_t w2 = 0; w2 < k->pw->nwarps; w2++) {
                json_obj(j, NULL);
                json_uint(j, "cta", k->pw->warp_cta[w2]);
                json_uint(j, "warp", k->pw->warp_id[w2]);
                json_uint(j, "sm", k->pw->warp_sm[w2]);
                json_uint(j, "subcore", k->pw->warp_subcore[w2]);
                json_uint(j, "instructions", k->pw->warp_insts_of[w2]);
                json_num(j, "cycles", (double)(long long)(k->pw->warp_cycles[w2] + 0.5));
                json_num(j, "ipc", (double)(long long)(k->pw->warp_ipc[w2] * 1e4 + 0.5) / 1e4);
                json_obj_end(j);
            }
            json_arr_end(j);
        }
        if (w->self_profile) {
            json_obj(j, "self_profile");
            static const char *const mn[2] = {"interval", "detailed"};
            for (int m = 0; m < 2; m++) {
                if (!k->cost_insts[m])
                    continue;
                json_obj(j, mn[m]);
                json_uint(j, "warp_instructions", k->cost_insts[m]);
                json_num(j, "ns_per_warp_inst", k->cost_s[m] * 1e9);
                if (k->have_cyc)
                    json_num(j, "host_cycles_per_warp_inst", k->cost_cyc[m]);
                if (k->split)
                    json_num(j, "cpu_seconds", k->model_s[m]);
                json_obj_end(j);
            }
            if (k->split) {
                json_num(j, "tests_cpu_seconds_before_pass", k->tests_s[0]);
                json_num(j, "tests_cpu_seconds_after_pass", k->tests_s[1]);
            }
            json_obj_end(j);
        }
        json_obj_end(j);
    }
}

static void out_text(outw *w, const kout *k)
{
    FILE *f = w->f;
    char name[41];
    snprintf(name, sizeof name, "%s", k->name);
    fprintf(f, "%4d  %-40s %14llu %14llu %8.3f", k->id, name,
            (unsigned long long)k->cycles,
            (unsigned long long)k->warp_insts, k->ipc);
    if (k->has_ci)
        fprintf(f, "  [%.0f, %.0f]", k->ci[0], k->ci[1]);
    else if (k->how)
        fprintf(f, "  (%s)", k->how);
    if (k->why)
        fprintf(f, "  in detail: %s", k->why);
    if (k->standin)
        fprintf(f, "  stand-in regions%s",
                k->fold_bytes ? ", shared data folded" : "");
    fprintf(f, "\n");
    if (k->nstall) {
        double sum = 0;
        for (int s = 0; s < k->nstall; s++)
            sum += k->stall[s];
        fprintf(f, "      %s:", !strcmp(k->stall_key, "stalls")
                                    ? "no-issue cycles"
                                    : "CPI stack");
        for (int s = 0; s < k->nstall; s++)
            if (k->stall[s] > 0 && sum > 0)
                fprintf(f, " %s %.1f%%", k->stall_name[s],
                        100.0 * k->stall[s] / sum);
        fprintf(f, "\n");
    }
    if (w->self_profile) {
        static const char *const mn[2] = {"interval", "detailed"};
        for (int m = 0; m < 2; m++)
            if (k->cost_insts[m]) {
                fprintf(f, "      host cost %s: %.1f ns", mn[m],
                        k->cost_s[m] * 1e9);
                if (k->have_cyc)
                    fprintf(f, ", %.0f cycles", k->cost_cyc[m]);
                fprintf(f, " per warp instruction (%llu simulated)\n",
                        (unsigned long long)k->cost_insts[m]);
            }
        if (k->split)
            fprintf(f,
                    "      host CPU time %.3f s: interval model %.3f s, "
                    "detailed model %.3f s, sampler tests %.3f s (before "
                    "the pass %.3f s, after it %.3f s)\n",
                    k->model_s[0] + k->model_s[1] + k->tests_s[0] +
                        k->tests_s[1],
                    k->model_s[0], k->model_s[1],
                    k->tests_s[0] + k->tests_s[1], k->tests_s[0],
                    k->tests_s[1]);
    }
}

static void out_csv(outw *w, const kout *k)
{
    FILE *f = w->f;
    fprintf(f, "%d,", k->id);
    csv_field(f, k->name); /* RFC 4180: a name with a comma is one field */
    fprintf(f, ",%llu,%llu,%.4f,", (unsigned long long)k->cycles,
            (unsigned long long)k->warp_insts, k->ipc);
    if (k->has_ci)
        fprintf(f, "%.0f,%.0f\n", k->ci[0], k->ci[1]);
    else
        fprintf(f, ",\n");
}

static void out_kernel(outw *w, const kout *k)
{
    out_begin(w);
    w->total += k->cycles;
    if (w->format == CLI_FMT_JSON)
        out_json(w, k);
    else if (w->format == CLI_FMT_CSV)
        out_csv(w, k);
    else
        out_text(w, k);
}

static void out_end(outw *w, double host_s)
{
    out_begin(w);
    if (w->format == CLI_FMT_JSON) {
        json_arr_end(&w->j);
        json_uint(&w->j, "total_cycles", w->total);
        json_num(&w->j, "host_seconds", host_s);
        json_obj_end(&w->j);
        json_end(&w->j);
    } else if (w->format == CLI_FMT_TEXT) {
        fprintf(w->f, "total cycles %llu\n", (unsigned long long)w->total);
    }
}

static long parse_long(const char *opt, const char *v)
{
    char *end;
    long x = strtol(v, &end, 0);
    if (!*v || *end || x < 0)
        cli_usage_error("predict", "%s needs a non-negative integer, not '%s'",
                        opt, v);
    return x;
}

#define MAX_KSEL 256

/* Every --kernel id must name a kernel of the trace: otherwise an error
 * (exit 2) saying which ids exist, as ranges ("1-3 7"). */
static void check_ksel(wc_trace *t, const char *path, const long *ksel,
                       int nksel)
{
    size_t nk = wc_trace_nkernels(t);
    for (int s = 0; s < nksel; s++) {
        size_t k = 0;
        while (k < nk && wc_trace_kernel(t, k)->id != ksel[s]) {
            k++;
            if ((k & 63) == 0) /* launch records are read again later */
                wc_trace_forget(t, k);
        }
        wc_trace_forget(t, nk);
        if (k < nk)
            continue;
        char ids[256] = "";
        size_t off = 0;
        for (size_t i = 0; i < nk && off + 24 < sizeof ids; i++) {
            int a = wc_trace_kernel(t, i)->id, b = a;
            while (i + 1 < nk && wc_trace_kernel(t, i + 1)->id == b + 1)
                b = wc_trace_kernel(t, ++i)->id;
            int w = a == b ? snprintf(ids + off, sizeof ids - off, "%s%d",
                                      off ? " " : "", a)
                           : snprintf(ids + off, sizeof ids - off, "%s%d-%d",
                                      off ? " " : "", a, b);
            if (w < 0)
                break;
            off += (size_t)w;
            if (i + 1 < nk && off + 24 >= sizeof ids)
                snprintf(ids + off, sizeof ids - off, " ...");
        }
        wc_diag d;
        wc_diag_set(&d, WC_EINPUT, path, 0, 0,
                    "--kernel %ld: the trace has no kernel with that id "
                    "(its kernel ids: %s)",
                    ksel[s], ids);
        cli_fail(&d);
    }
}

/* ------------------------------------------------------------------------ */
/* Kernels in parallel (--jobs): workers take kernels in trace order, the    */
/* main thread prints them in trace order as they complete.                  */
/* ------------------------------------------------------------------------ */

typedef struct pjob {
    size_t k, seq;           /* trace kernel, rank among the selected ones   */
    int state;               /* 0 free, 1 running, 2 done                    */
    long from;               /* hybrid: the earlier launch it reuses, -1     */
    int rc;
    wc_diag d;
    kout o;
    smp_kernel_result sr;    /* hybrid                                       */
} pjob;

typedef struct prun {
    /* read-only while the run lasts */
    wc_trace *t;
    const wc_gpu *g;
    int mode, per_warp, timeline, jobs;
    unsigned long long seed;
    const long *ksel;
    int nksel;
    const char *const *kre;
    int nkre;
    dm_chrome *chrome;
    progress_ctx *pc;
    size_t nk;
    /* under mu */
    smp_ctx *sctx;           /* plan, commit and reused only               */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next_k;           /* next trace kernel to look at                 */
    size_t seq_next, seq_out; /* next rank to hand out / to print            */
    int done;                /* every kernel handed out                      */
    pjob *ring;              /* W slots, rank % W                            */
    size_t W;
    uint64_t tl_offset;      /* timeline (one job)                           */
} prun;

/* Launches before this one are done with (mu held): the oldest in flight,
 * else the next to look at. */
static size_t oldest(const prun *P)
{
    const pjob *o = &P->ring[P->seq_out % P->W];
    return o->state && o->seq == P->seq_out ? o->k : P->next_k;
}

/* The next selected kernel, in its ring slot (mu held); NULL when none is
 * left.  Waits while the ring is full. */
static pjob *take(prun *P)
{
    while (!P->done) {
        while (P->seq_next >= P->seq_out + P->W)
            pthread_cond_wait(&P->cv, &P->mu);
        if (P->next_k >= P->nk) {
            P->done = 1;
            pthread_cond_broadcast(&P->cv);
            break;
        }
        size_t k = P->next_k++;
        const wc_kernel_info *ki = wc_trace_kernel(P->t, k);
        char *dname = cli_demangle(ki->name);
        if (!dname) {
            wc_diag d;
            wc_diag_set(&d, WC_EINTERNAL, "", 0, 0, "out of memory");
            cli_fail(&d);
        }
        if (P->nksel || P->nkre) {
            int want = 0;
            for (int s = 0; s < P->nksel; s++)
                want |= ki->id == P->ksel[s];
            for (int s = 0; s < P->nkre && !want; s++)
                want |= cli_kernel_match(P->kre[s], dname, ki->name);
            if (!want) {
                free(dname);
                wc_trace_forget(P->t, oldest(P));
                continue;
            }
        }
        pjob *j = &P->ring[P->seq_next % P->W];
        memset(j, 0, sizeof *j);
        j->k = k;
        j->seq = P->seq_next++;
        j->state = 1;
        j->from = -1;
        j->o.id = ki->id;
        j->o.name = dname;
        j->o.mangled = ki->name;
        if (P->mode == MODE_HYBRID)
            j->rc = smp_ctx_plan(P->sctx, P->t, k, &j->from, &j->d);
        return j;
    }
    return NULL;
}

static void from_smp(kout *o, const smp_kernel_result *r)
{
    o->cycles = r->cycles;
    o->warp_insts = r->warp_insts;
    o->ipc = r->cycles ? (double)r->warp_insts / (double)r->cycles : 0;
    o->counts = r->counts;
    o->counts_estimated = !r->counts_exact;
    o->has_ci = r->has_ci;
    o->ci[0] = r->ci95[0];
    o->ci[1] = r->ci95[1];
    o->how = smp_how_name(r->how);
    o->why = r->how == SMP_HOW_FULL ? smp_full_why_name(r->full_why) : NULL;
    o->standin = r->standin;
    o->fold_bytes = r->fold_bytes;
    o->regions = r->regions;
    o->sampled = r->sampled;
    o->phase1 = r->phase1;
    o->warm = r->warm_ctas;
    o->host_s = r->host_seconds;
    for (int m = 0; m < 2; m++) {
        o->cost_insts[m] = r->host[m].warp_insts;
        if (r->host[m].warp_insts) {
            o->cost_s[m] = r->host[m].seconds / (double)r->host[m].warp_insts;
            o->cost_cyc[m] = r->host[m].cycles / (double)r->host[m].warp_insts;
        }
        o->have_cyc |= r->host[m].have_cycles;
        o->model_s[m] = r->host[m].seconds;
    }
    o->split = 1;
    o->tests_s[0] = r->host_tests_pre;
    o->tests_s[1] = r->host_tests_post;
    o->model_s[0] -= r->host_tests_post; /* the pass's call held them */
    if (o->model_s[0] < 0)
        o->model_s[0] = 0;
    if (r->host[0].warp_insts) /* the model's own cost, tests apart */
        o->cost_s[0] = o->model_s[0] / (double)r->host[0].warp_insts;
}

/* The model on kernel j->k (any thread); errors stay in j. */
static void compute(prun *P, pjob *j)
{
    kout *o = &j->o;
    wc_trace *t = P->t;
    size_t k = j->k;
    const wc_gpu *g = P->g;
    wc_diag *d = &j->d;
    if (j->rc)
        return;
    /* the listing against the trace before a model reads has_ctrl */
    if ((j->rc = wc_trace_check_ctrl(t, k, d)) != 0)
        return;
    if (P->jobs == 1)
        progress_kernel(P->pc, k, mode_names[P->mode]);
    if (P->mode == MODE_INTERVAL) {
        im_options io;
        im_options_default(&io);
        io.per_warp = P->per_warp;
        io.seed = P->seed;
        im_result *r = calloc(1, sizeof *r);
        if (!r) {
            j->rc = wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
            return;
        }
        double k0 = wc_now();
        if ((j->rc = im_run_kernel(t, k, g, &io, r, d)) != 0) {
            free(r);
            return;
        }
        o->host_s = wc_now() - k0;
        o->cycles = r->cycles;
        o->warp_insts = r->warp_insts;
        o->ipc = r->cycles ? (double)r->warp_insts / (double)r->cycles : 0;
        o->stall_key = "cpi_stack";
        for (int s = 0; s < IM_CPI_COUNT && s < 32; s++) {
            o->stall_name[s] = im_cpi_name(s);
            o->stall[s] = r->cpi[s] * (double)r->warp_insts;
        }
        o->nstall = IM_CPI_COUNT;
        o->counts = r->counts;
        o->cost_insts[0] = r->warp_insts;
        o->cost_s[0] = r->warp_insts ? o->host_s / (double)r->warp_insts : 0;
        if (P->per_warp)
            o->pw = r;
        else {
            im_result_free(r);
            free(r);
        }
    } else if (P->mode == MODE_DETAILED) {
        dm_options dopt;
        dm_options_default(&dopt);
        dopt.timeline = P->timeline;
        dopt.seed = P->seed;
        const wc_kernel_info *ki = wc_trace_kernel(t, k);
        if (P->timeline) {
            /* streamed: each kernel a process of the trace (pid: its
             * launch index, named by -kernel id and name), laid end to end
             * (one job) */
            char pname[600];
            snprintf(pname, sizeof pname, "kernel %d: %.500s", ki->id,
                     ki->name);
            dm_chrome_kernel(P->chrome, (unsigned)(k + 1), pname,
                             P->tl_offset, (unsigned)g->subcores_per_sm);
            dopt.sink = dm_chrome_event;
            dopt.sink_ctx = P->chrome;
        }
        dm_result r;
        memset(&r, 0, sizeof r);
        double k0 = wc_now();
        if ((j->rc = dm_run_kernel(t, k, g, &dopt, &r, d)) != 0) {
            dm_result_free(&r);
            return;
        }
        o->host_s = wc_now() - k0;
        o->cycles = r.cycles;
        o->warp_insts = r.warp_insts;
        o->ipc = r.cycles ? (double)r.warp_insts / (double)r.cycles : 0;
        o->stall_key = "stalls";
        for (int s = 0; s < DM_STALL_COUNT && s < 32; s++) {
            o->stall_name[s] = dm_stall_name(s);
            o->stall[s] = (double)r.stall[s];
        }
        o->nstall = DM_STALL_COUNT;
        o->counts = r.counts;
        o->cost_insts[1] = r.warp_insts;
        o->cost_s[1] = r.warp_insts ? o->host_s / (double)r.warp_insts : 0;
        P->tl_offset += r.cycles;
        dm_result_free(&r);
    } else if (j->from < 0) {
        /* reused kernels get their result when printed (the launch they
         * copy is committed by then) */
        j->rc = smp_ctx_run_one(P->sctx, t, k, g, &j->sr, d);
    }
}

static void *worker(void *arg)
{
    prun *P = arg;
    for (;;) {
        pthread_mutex_lock(&P->mu);
        pjob *j = take(P);
        pthread_mutex_unlock(&P->mu);
        if (!j)
            return NULL;
        compute(P, j);
        pthread_mutex_lock(&P->mu);
        j->state = 2;
        pthread_cond_broadcast(&P->cv);
        pthread_mutex_unlock(&P->mu);
    }
}

int cmd_predict(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *path = NULL, *timeline = NULL;
    int mode = MODE_HYBRID, self_profile = 0, per_warp = 0;
    int stratify = 1, reuse = 1;
    long period = 0;
    double budget = 0;
    long ksel[MAX_KSEL];
    int nksel = 0;
    const char *kre[MAX_KSEL]; /* --kernel by name / regular expression */
    int nkre = 0;
    int mrc;
    int tcache = 1;
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    int jobs = nproc > 0 ? (int)(nproc < 256 ? nproc : 256) : 1;
    if (cli_predict_multi(argc, argv, &mrc)) /* several TRACEs */
        return mrc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(predict_help, stdout);
            return 0;
        }
        if (cli_common_opt(&c, argc, argv, &i, "predict"))
            continue;
        int has_val = !strcmp(a, "--mode") || !strcmp(a, "--sample-period") ||
                      !strcmp(a, "--budget") || !strcmp(a, "--timeline") ||
                      !strcmp(a, "--kernel") || !strcmp(a, "--jobs");
        if (has_val && i + 1 >= argc)
            cli_usage_error("predict", "option '%s' needs a value", a);
        if (!strcmp(a, "--mode")) {
            const char *v = argv[++i];
            if (!strcmp(v, "interval"))
                mode = MODE_INTERVAL;
            else if (!strcmp(v, "detailed"))
                mode = MODE_DETAILED;
            else if (!strcmp(v, "hybrid"))
                mode = MODE_HYBRID;
            else
                cli_usage_error("predict",
                                "unknown mode '%s' (interval, detailed or hybrid)", v);
        } else if (!strcmp(a, "--sample-period")) {
            period = parse_long(a, argv[++i]);
            if (period < 1)
                cli_usage_error("predict", "--sample-period must be at least 1");
        } else if (!strcmp(a, "--budget")) {
            char *end;
            const char *v = argv[++i];
            budget = strtod(v, &end);
            if (!*v || *end || !(budget > 0))
                cli_usage_error("predict", "--budget needs a positive number of seconds, not '%s'", v);
        } else if (!strcmp(a, "--timeline")) {
            timeline = argv[++i];
        } else if (!strcmp(a, "--kernel")) {
            if (nksel >= MAX_KSEL || nkre >= MAX_KSEL)
                cli_usage_error("predict", "too many --kernel options");
            if (cli_kernel_is_regex(argv[i + 1]))
                kre[nkre++] = argv[++i];
            else
                ksel[nksel++] = parse_long(a, argv[++i]);
        } else if (!strcmp(a, "--jobs")) {
            long n = parse_long(a, argv[++i]);
            if (n < 1 || n > 256)
                cli_usage_error("predict", "--jobs must be 1 to 256");
            jobs = (int)n;
        } else if (!strcmp(a, "--self-profile")) {
            self_profile = 1;
        } else if (!strcmp(a, "--per-warp")) {
            per_warp = 1;
        } else if (!strcmp(a, "--no-stratify")) {
            stratify = 0;
        } else if (!strcmp(a, "--no-reuse")) {
            reuse = 0;
        } else if (!strcmp(a, "--no-trace-cache")) {
            tcache = 0;
        } else if (a[0] == '-' && a[1]) {
            cli_unknown_option("predict", predict_help, a);
        } else {
            if (path)
                cli_usage_error("predict", "more than one TRACE given");
            path = a;
        }
    }
    if (!path)
        cli_usage_error("predict", "missing TRACE");
    if (timeline && mode != MODE_DETAILED)
        cli_usage_error("predict", "--timeline needs --mode detailed");
    if (per_warp && mode != MODE_INTERVAL)
        cli_usage_error("predict", "--per-warp needs --mode interval");
    if ((period || budget > 0) && mode != MODE_HYBRID)
        cli_usage_error("predict", "--sample-period and --budget need --mode hybrid");

    /* outputs first: a path that cannot be written fails now, with the
     * reason, not after the run */
    FILE *f = cli_open_out(&c);
    FILE *tf = NULL;
    dm_chrome chrome;
    if (timeline) {
        tf = fopen(timeline, "w");
        if (!tf) {
            fprintf(stderr, "warpcast predict: cannot write '%s': %s\n",
                    timeline, strerror(errno));
            return WC_EINPUT;
        }
        dm_chrome_begin(&chrome, tf);
    }

    double t0 = wc_now();
    wc_diag d;
    memset(&d, 0, sizeof d);
    wc_trace *t = NULL;
    if (cli_open_trace(&c, path, tcache ? CLI_TCACHE : 0, &t, &d) != 0)
        cli_fail(&d);
    size_t nk = wc_trace_nkernels(t);
    if (nk == 0) {
        wc_diag_set(&d, WC_EINPUT, path, 0, 0, "the trace holds no kernel");
        cli_fail(&d);
    }
    check_ksel(t, path, ksel, nksel);
    wc_gpu *g = malloc(sizeof *g);
    if (!g) {
        wc_diag_set(&d, WC_EINTERNAL, "", 0, 0, "out of memory");
        cli_fail(&d);
    }
    cli_load_gpu(&c, wc_trace_kernel(t, 0)->binary_version, NULL, g);
    /* A timeline lays kernels end to end and a budget is shared in trace
     * order: one at a time. */
    if (timeline || budget > 0 || jobs < 1)
        jobs = 1;
    cli_note_unused_sets(&c, mode == MODE_INTERVAL   ? WC_MODE_INTERVAL
                             : mode == MODE_DETAILED ? WC_MODE_DETAILED
                                                     : WC_MODE_HYBRID,
                         mode_names[mode]);
    if (g->dm_quantum > 1 && mode != MODE_INTERVAL && !c.quiet)
        fprintf(stderr,
                "warpcast: note: dm_quantum %ld: the detailed model runs "
                "the SMs %ld cycles apart (faster, cycles close to the "
                "exact model's, not equal: docs/model-detailed.md, "
                "\"Quantum\")\n",
                g->dm_quantum, g->dm_quantum);

    progress_ctx pc = {cli_progress_ok(&c), t0, 0, nk};
    prun P;
    memset(&P, 0, sizeof P);
    P.t = t;
    P.g = g;
    P.mode = mode;
    P.per_warp = per_warp;
    P.timeline = timeline != NULL;
    P.seed = c.seed;
    P.ksel = ksel;
    P.nksel = nksel;
    P.kre = kre;
    P.nkre = nkre;
    P.chrome = timeline ? &chrome : NULL;
    P.pc = &pc;
    P.nk = nk;
    P.jobs = jobs;
    if (mode == MODE_HYBRID) {
        smp_options so;
        smp_options_default(&so);
        so.seed = c.seed;
        if (period)
            so.period = period;
        so.budget_s = budget;
        so.stratify = stratify;
        so.reuse = reuse;
        so.self_profile = self_profile;
        so.jobs = jobs; /* shared by the kernels running at once */
        if (jobs == 1) { /* the progress line is one thread's */
            so.progress = on_progress;
            so.progress_ctx = &pc;
        }
        if (smp_ctx_create(&so, &P.sctx, &d) != 0)
            cli_fail(&d);
    }
    /* In flight: at most 2 x jobs kernels beyond the one printed next, so
     * memory does not grow with the number of launches. */
    P.W = 2 * (size_t)jobs;
    P.ring = calloc(P.W, sizeof *P.ring);
    pthread_t *th = jobs > 1 ? calloc((size_t)jobs, sizeof *th) : NULL;
    if (!P.ring || (jobs > 1 && !th)) {
        wc_diag_set(&d, WC_EINTERNAL, "", 0, 0, "out of memory");
        cli_fail(&d);
    }
    pthread_mutex_init(&P.mu, NULL);
    pthread_cond_init(&P.cv, NULL);
    int nth = 0;
    for (int i = 0; i < jobs && jobs > 1; i++) {
        if (pthread_create(&th[i], NULL, worker, &P) != 0)
            break;
        nth++;
    }
    if (jobs > 1 && nth == 0)
        P.jobs = 1; /* no thread could start: run here */

    outw w = {f, g, mode, c.format, self_profile, {0}, 0, 0};
    for (size_t seq = 0;; seq++) {
        pjob *j = NULL;
        if (P.jobs == 1) {
            pthread_mutex_lock(&P.mu);
            j = take(&P);
            pthread_mutex_unlock(&P.mu);
            if (!j)
                break;
            compute(&P, j);
        } else {
            pthread_mutex_lock(&P.mu);
            for (;;) {
                pjob *s2 = &P.ring[seq % P.W];
                if (s2->state == 2 && s2->seq == seq) {
                    j = s2;
                    break;
                }
                if (P.done && P.seq_next <= seq)
                    break;
                pthread_cond_wait(&P.cv, &P.mu);
            }
            pthread_mutex_unlock(&P.mu);
            if (!j)
                break;
        }
        if (j->rc == 0 && mode == MODE_HYBRID) {
            pthread_mutex_lock(&P.mu);
            if (j->from >= 0)
                j->rc = smp_ctx_reused(P.sctx, (size_t)j->from, &j->sr,
                                       &j->d);
            else
                smp_ctx_commit(P.sctx, j->k, &j->sr);
            pthread_mutex_unlock(&P.mu);
            if (j->rc == 0)
                from_smp(&j->o, &j->sr);
        }
        if (j->rc != 0) {
            fflush(f);
            cli_fail(&j->d); /* the first failing kernel in trace order */
        }
        cli_warn_trace(&c, t);
        out_kernel(&w, &j->o);
        free((char *)j->o.name);
        if (j->o.pw) {
            im_result_free(j->o.pw);
            free(j->o.pw);
        }
        pthread_mutex_lock(&P.mu);
        memset(j, 0, sizeof *j);
        P.seq_out = seq + 1;
        /* memory stays bounded by the kernels in flight */
        wc_trace_forget(t, oldest(&P));
        pthread_cond_broadcast(&P.cv);
        pthread_mutex_unlock(&P.mu);
    }
    for (int i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    progress_clear(&pc);
    double host_s = wc_now() - t0;

    if (timeline) {
        if (dm_chrome_end(&chrome, &d) != 0)
            cli_fail(&d);
        if (fclose(tf) != 0) {
            fprintf(stderr, "warpcast predict: error writing '%s': %s\n",
                    timeline, strerror(errno));
            return WC_EINTERNAL;
        }
    }
    out_end(&w, host_s);
    cli_warn_unknown_ops(&c, t);
    cli_warn_trace(&c, t);
    cli_close_out(&c, f);
    pthread_mutex_destroy(&P.mu);
    pthread_cond_destroy(&P.cv);
    free(th);
    free(P.ring);
    free(g);
    smp_ctx_free(P.sctx);
    wc_trace_close(t);
    return 0;
}
