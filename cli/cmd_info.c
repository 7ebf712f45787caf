/*
 * cli/cmd_info.c - `warpcast info TRACE`: what a trace holds.
 *
 * Streams every kernel once (bounded memory) and reports launch shape,
 * dynamic warp instructions, the mix by unit class, memory instructions by
 * space and access width, average active lanes and whether control bits
 * were joined from a SASS listing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define INFO_WIDTHS 6 /* 1 2 4 8 16 other */

typedef struct kstats {
    uint64_t ctas, warps, insts, lanes;
    uint64_t mix[WC_UNIT_COUNT];
    uint64_t mem[WC_SPACE_COUNT][INFO_WIDTHS];
} kstats;

static int width_slot(unsigned w)
{
    switch (w) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return 5;
    }
}

static const char *const width_names[INFO_WIDTHS] = {"1", "2", "4", "8",
                                                     "16", "other"};

static int popcount32(uint32_t x)
{
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

static int scan_kernel(wc_trace *t, size_t k, kstats *s, wc_diag *d)
{
    wc_kreader *r = NULL;
    wc_inst *in = malloc(sizeof *in);
    int rc = in ? wc_kreader_open(t, k, &r, d) : WC_EINTERNAL;
    if (!in)
        wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
    while (rc == 0) {
        wc_cta *c = NULL;
        rc = wc_kreader_next(r, &c, d);
        if (rc != 0 || !c)
            break;
        s->ctas++;
        unsigned nw = wc_cta_nwarps(c);
        s->warps += nw;
        for (unsigned w = 0; w < nw && rc == 0; w++) {
            int got;
            while ((got = wc_cta_next(c, w, in, d)) == 1) {
                s->insts++;
                s->lanes += (uint64_t)popcount32(in->mask);
                if (in->unit < WC_UNIT_COUNT)
                    s->mix[in->unit]++;
                if (in->space != WC_SPACE_NONE && in->space < WC_SPACE_COUNT)
                    s->mem[in->space][width_slot(in->width)]++;
            }
            if (got < 0)
                rc = d->code ? d->code : WC_EINPUT;
        }
        wc_cta_free(c);
    }
    wc_kreader_close(r);
    free(in);
    return rc;
}

static void print_text(FILE *f, const wc_kernel_info *ki, const kstats *s)
{
    fprintf(f, "kernel %d: %s\n", ki->id, ki->name);
    fprintf(f, "  grid (%u,%u,%u)  block (%u,%u,%u)  ctas %llu  warps %llu\n",
            ki->grid[0], ki->grid[1], ki->grid[2], ki->block[0], ki->block[1],
            ki->block[2], (unsigned long long)s->ctas,
            (unsigned long long)s->warps);
    fprintf(f, "  binary version %d  registers %ld  shared memory %ld bytes\n",
            ki->binary_version, ki->nregs, ki->shmem);
    fprintf(f, "  warp instructions %llu  average active lanes %.2f\n",
            (unsigned long long)s->insts,
            s->insts ? (double)s->lanes / (double)s->insts : 0.0);
    if (ki->has_ctrl || !ki->ctrl_note)
        fprintf(f, "  control bits: %s\n", ki->has_ctrl ? "yes" : "no");
    else
        fprintf(f, "  control bits: no (%s)\n", ki->ctrl_note);
    fprintf(f, "  mix:");
    for (int u = 0; u < WC_UNIT_COUNT; u++)
        if (s->mix[u])
            fprintf(f, " %s %llu", wc_unit_name(u),
                    (unsigned long long)s->mix[u]);
    fprintf(f, "\n");
    int any = 0;
    for (int sp = 1; sp < WC_SPACE_COUNT; sp++)
        for (int w = 0; w < INFO_WIDTHS; w++)
            if (s->mem[sp][w]) {
                if (!any)
                    fprintf(f, "  memory (space.bytes-per-lane):");
                any = 1;
                fprintf(f, " %s.%s %llu", wc_space_name(sp), width_names[w],
                        (unsigned long long)s->mem[sp][w]);
            }
    if (any)
        fprintf(f, "\n");
}

static void print_json_kernel(cli_json *j, const wc_kernel_info *ki,
                              const kstats *s)
{
    json_obj(j, NULL);
    json_int(j, "id", ki->id);
    json_str(j, "name", ki->name);
    json_arr(j, "grid");
    for (int i = 0; i < 3; i++)
        json_uint(j, NULL, ki->grid[i]);
    json_arr_end(j);
    json_arr(j, "block");
    for (int i = 0; i < 3; i++)
        json_uint(j, NULL, ki->block[i]);
    json_arr_end(j);
    json_uint(j, "ctas", s->ctas);
    json_uint(j, "warps", s->warps);
    json_uint(j, "warp_instructions", s->insts);
    json_obj(j, "mix");
    for (int u = 0; u < WC_UNIT_COUNT; u++)
        if (s->mix[u])
            json_uint(j, wc_unit_name(u), s->mix[u]);
    json_obj_end(j);
    json_obj(j, "memory");
    for (int sp = 1; sp < WC_SPACE_COUNT; sp++)
        for (int w = 0; w < INFO_WIDTHS; w++)
            if (s->mem[sp][w]) {
                char key[64];
                snprintf(key, sizeof key, "%s.%s", wc_space_name(sp),
                         width_names[w]);
                json_uint(j, key, s->mem[sp][w]);
            }
    json_obj_end(j);
    json_num(j, "avg_active_lanes",
             s->insts ? (double)((uint64_t)(100.0 * (double)s->lanes /
                                            (double)s->insts + 0.5)) / 100.0
                      : 0.0);
    json_bool(j, "control_bits", ki->has_ctrl);
    if (!ki->has_ctrl && ki->ctrl_note)
        json_str(j, "control_bits_note", ki->ctrl_note);
    json_int(j, "binary_version", ki->binary_version);
    json_int(j, "nregs", ki->nregs);
    json_int(j, "shmem", ki->shmem);
    json_obj_end(j);
}

static const char info_help[] =
    "usage: warpcast info [OPTIONS] TRACE\n"
    "\n"
    "Per kernel: name, grid, block, CTAs, warps, dynamic warp instructions,\n"
    "mix by unit class, memory instructions by space and width, average active\n"
    "lanes, and whether control bits were joined from a cuobjdump listing.\n"
    "\n"
    "options: --format text|json|csv  --out FILE  --quiet\n"
    "         --no-trace-cache  read a text trace as text (default: through\n"
    "                           the trace cache, see predict)\n";

int cmd_info(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *path = NULL;
    int tcache = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(info_help, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--no-trace-cache")) {
            tcache = 0;
            continue;
        }
        if (cli_common_opt(&c, argc, argv, &i, "info"))
            continue;
        if (argv[i][0] == '-' && argv[i][1])
            cli_unknown_option("info", info_help, argv[i]);
        if (path)
            cli_usage_error("info", "more than one TRACE given");
        path = argv[i];
    }
    if (!path)
        cli_usage_error("info", "missing TRACE");

    wc_diag d;
    memset(&d, 0, sizeof d);
    wc_trace *t = NULL;
    if (cli_open_trace(&c, path, tcache ? CLI_TCACHE : 0, &t, &d) != 0)
        cli_fail(&d);
    size_t nk = wc_trace_nkernels(t);
    if (nk == 0) { /* as predict: nothing to describe is bad input */
        wc_diag_set(&d, WC_EINPUT, path, 0, 0, "the trace holds no kernel");
        cli_fail(&d);
    }
    /* Every kernel is scanned before anything is printed (an error leaves
     * stdout empty).  Up to KEEP_MAX kernels the statistics are kept;
     * past it they are scanned a second time while printing, so memory
     * does not grow with the number of launches. */
    enum { KEEP_MAX = 256 };
    int keep = nk <= KEEP_MAX;
    kstats *st = calloc(keep && nk ? nk : 1, sizeof *st);
    if (!st) {
        wc_diag_set(&d, WC_EINTERNAL, "", 0, 0, "out of memory");
        cli_fail(&d);
    }
    cli_warn_trace(&c, t);
    for (size_t k = 0; k < nk; k++) {
        if (scan_kernel(t, k, &st[keep ? k : 0], &d) != 0)
            cli_fail(&d);
        cli_warn_trace(&c, t);
        if (!keep)
            wc_trace_forget(t, k + 1);
    }

    FILE *f = cli_open_out(&c);
    cli_json j;
    if (c.format == CLI_FMT_JSON) {
        json_begin(&j, f, 0);
        json_obj(&j, NULL);
        json_arr(&j, "kernels");
    } else if (c.format == CLI_FMT_CSV) {
        fprintf(f, "id,name,grid_x,grid_y,grid_z,block_x,block_y,block_z,ctas,"
                   "warps,warp_instructions,control_bits");
        for (int u = 0; u < WC_UNIT_COUNT; u++)
            fprintf(f, ",%s", wc_unit_name(u));
        fprintf(f, "\n");
    }
    for (size_t k = 0; k < nk; k++) {
        const kstats *sk = &st[keep ? k : 0];
        if (!keep) {
            memset(st, 0, sizeof *st);
            if (scan_kernel(t, k, st, &d) != 0)
                cli_fail(&d);
        }
        const wc_kernel_info *ki = wc_trace_kernel(t, k);
        if (c.format == CLI_FMT_JSON) {
            print_json_kernel(&j, ki, sk);
        } else if (c.format == CLI_FMT_CSV) {
            fprintf(f, "%d,%s,%u,%u,%u,%u,%u,%u,%llu,%llu,%llu,%d", ki->id,
                    ki->name, ki->grid[0], ki->grid[1], ki->grid[2],
                    ki->block[0], ki->block[1], ki->block[2],
                    (unsigned long long)sk->ctas,
                    (unsigned long long)sk->warps,
                    (unsigned long long)sk->insts, ki->has_ctrl);
            for (int u = 0; u < WC_UNIT_COUNT; u++)
                fprintf(f, ",%llu", (unsigned long long)sk->mix[u]);
            fprintf(f, "\n");
        } else {
            if (k)
                fprintf(f, "\n");
            print_text(f, ki, sk);
        }
        if (!keep)
            wc_trace_forget(t, k + 1);
    }
    if (c.format == CLI_FMT_JSON) {
        json_arr_end(&j);
        json_obj_end(&j);
        json_end(&j);
    }
    cli_warn_unknown_ops(&c, t);
    cli_close_out(&c, f);
    free(st);
    wc_trace_close(t);
    return 0;
}
