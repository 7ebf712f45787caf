/*
 * cli/cmd_ubench.c - `warpcast ubench FILE.sass`: the detailed model on a
 * hand-written microbenchmark; prints the clock values each warp read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "study.h"
#include "dm.h"

static const char ubench_help[] =
    "usage: warpcast ubench [OPTIONS] FILE.sass\n"
    "\n"
    "Runs the detailed model on a hand-written SASS microbenchmark (one CTA on\n"
    "one SM) and prints, per warp, the values read by its CS2R/S2UR SR_CLOCKLO\n"
    "instructions: the cycle at which each passes the Control stage.\n"
    "\n"
    "options:\n"
    "  --timeline        also list every issued instruction (cycle, sub-core,\n"
    "                    warp, pc, op, register-file-cache hits)\n"
    "  --gpu NAME|FILE   GPU config (default: the file's .gpu, else rtx-a6000)\n"
    "  --set KEY=VALUE   override a config key (repeatable)\n"
    "  --format text|json|csv   --out FILE   --quiet\n";

static void print_json(FILE *f, const dm_ubench_result *r, int timeline)
{
    cli_json j;
    json_begin(&j, f, 0);
    json_obj(&j, NULL);
    json_arr(&j, "warps");
    for (unsigned w = 0; w < r->nwarps; w++) {
        json_obj(&j, NULL);
        json_uint(&j, "warp", r->warp[w]);
        json_uint(&j, "subcore", r->subcore[w]);
        json_arr(&j, "clocks");
        for (size_t i = 0; i < r->nclocks[w]; i++)
            json_uint(&j, NULL, r->clocks[w][i]);
        json_arr_end(&j);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_uint(&j, "cycles", r->cycles);
    if (timeline) {
        json_arr(&j, "timeline");
        for (size_t i = 0; i < r->nevents; i++) {
            const dm_event *e = &r->events[i];
            char pc[32];
            snprintf(pc, sizeof pc, "0x%04llx", (unsigned long long)e->pc);
            json_obj(&j, NULL);
            json_uint(&j, "cycle", e->cycle);
            json_uint(&j, "subcore", e->subcore);
            json_uint(&j, "warp", e->warp);
            json_str(&j, "pc", pc);
            json_str(&j, "op", e->op);
            json_arr(&j, "rfc_hit");
            for (unsigned s = 0; s < e->nsrc && s < 8; s++)
                json_bool(&j, NULL, e->rfc_hit[s]);
            json_arr_end(&j);
            json_obj_end(&j);
        }
        json_arr_end(&j);
    }
    json_obj_end(&j);
    json_end(&j);
}

static void print_text(FILE *f, const dm_ubench_result *r, int timeline)
{
    for (unsigned w = 0; w < r->nwarps; w++) {
        fprintf(f, "warp %u (sub-core %u): clocks", r->warp[w], r->subcore[w]);
        for (size_t i = 0; i < r->nclocks[w]; i++)
            fprintf(f, " %llu", (unsigned long long)r->clocks[w][i]);
        if (r->nclocks[w] >= 2) {
            fprintf(f, "  (deltas");
            for (size_t i = 1; i < r->nclocks[w]; i++)
                fprintf(f, " %llu",
                        (unsigned long long)(r->clocks[w][i] - r->clocks[w][i - 1]));
            fprintf(f, ")");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "cycles %llu\n", (unsigned long long)r->cycles);
    if (timeline) {
        fprintf(f, "%8s %7s %5s %8s  %-28s %s\n", "cycle", "subcore", "warp",
                "pc", "op", "rfc_hit");
        for (size_t i = 0; i < r->nevents; i++) {
            const dm_event *e = &r->events[i];
            fprintf(f, "%8llu %7u %5u %#8llx  %-28s", (unsigned long long)e->cycle,
                    e->subcore, e->warp, (unsigned long long)e->pc, e->op);
            for (unsigned s = 0; s < e->nsrc && s < 8; s++)
                fprintf(f, " %c", e->rfc_hit[s] ? 'H' : '-');
            fprintf(f, "\n");
        }
    }
}

int cmd_ubench(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *path = NULL;
    int timeline = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(ubench_help, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--timeline")) {
            timeline = 1;
            continue;
        }
        if (cli_common_opt(&c, argc, argv, &i, "ubench"))
            continue;
        if (argv[i][0] == '-' && argv[i][1])
            cli_unknown_option("ubench", ubench_help, argv[i]);
        if (path)
            cli_usage_error("ubench", "more than one FILE given");
        path = argv[i];
    }
    if (!path)
        cli_usage_error("ubench", "missing FILE.sass");

    wc_diag d;
    memset(&d, 0, sizeof d);
    wc_ubench *u = NULL;
    if (wc_ubench_load(path, &u, &d) != 0)
        cli_fail(&d);
    wc_gpu *g = malloc(sizeof *g);
    if (!g) {
        wc_diag_set(&d, WC_EINTERNAL, "", 0, 0, "out of memory");
        cli_fail(&d);
    }
    if (!c.gpu && u->gpu[0]) {
        /* the file's own .gpu: a name or file that does not load is an
         * error of the file, at its line */
        wc_diag gd;
        memset(&gd, 0, sizeof gd);
        if (cli_gpu_load(u->gpu, g, &gd) != 0) {
            wc_diag_set(&d, WC_EINPUT, path, u->gpu_line, u->gpu_col,
                        ".gpu %s: %s", u->gpu, gd.msg);
            cli_fail(&d);
        }
    }
    cli_load_gpu(&c, -1, u->gpu[0] ? u->gpu : "rtx-a6000", g);
    dm_options o;
    dm_options_default(&o);
    o.timeline = timeline;
    o.seed = c.seed;
    dm_ubench_result r;
    memset(&r, 0, sizeof r);
    char label[300];
    snprintf(label, sizeof label, "ubench %.200s: detailed model", path);
    cli_ticker_start(&c, label, NULL, NULL);
    int rc = dm_run_ubench(u, g, &o, &r, &d);
    cli_ticker_stop();
    if (rc != 0)
        cli_fail(&d);
    FILE *f = cli_open_out(&c);
    if (c.format == CLI_FMT_JSON)
        print_json(f, &r, timeline);
    else if (c.format == CLI_FMT_CSV)
        cli_ubench_csv(&r, f, timeline); /* clock reads, or the timeline */
    else
        print_text(f, &r, timeline);
    cli_close_out(&c, f);
    dm_ubench_result_free(&r);
    free(g);
    wc_ubench_free(u);
    return 0;
}
