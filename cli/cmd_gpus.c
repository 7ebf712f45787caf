/*
 * cli/cmd_gpus.c - `warpcast gpus`: the bundled GPU configs, and with
 * --keys the descriptor table of every config key (also as Markdown for
 * docs/config-keys.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char gpus_help[] =
    "usage: warpcast gpus [--keys [--markdown]] [--format text|json]\n"
    "\n"
    "Lists the bundled GPU configs (data/gpus/*.cfg) with their main figures.\n"
    "--keys lists every configuration key: type, default, bounds, unit, help.\n";

static void key_default(const wc_key_desc *k, char *buf, size_t n)
{
    if (k->type == WC_KT_STR)
        snprintf(buf, n, "%s", k->sdef ? k->sdef : "");
    else if (k->type == WC_KT_INT)
        snprintf(buf, n, "%.0f", k->def);
    else
        snprintf(buf, n, "%g", k->def);
}

static int list_keys(const cli_common *c, int markdown)
{
    size_t n = 0;
    const wc_key_desc *keys = wc_keys(&n);
    FILE *f = cli_open_out(c);
    static const char *const tname[] = {"int", "real", "string"};
    if (c->format == CLI_FMT_JSON) {
        cli_json j;
        json_begin(&j, f, 0);
        json_obj(&j, NULL);
        json_arr(&j, "keys");
        for (size_t i = 0; i < n; i++) {
            char def[128];
            key_default(&keys[i], def, sizeof def);
            json_obj(&j, NULL);
            json_str(&j, "name", keys[i].name);
            json_str(&j, "type", tname[keys[i].type]);
            json_str(&j, "default", def);
            if (keys[i].type != WC_KT_STR) {
                json_num(&j, "min", keys[i].lo);
                json_num(&j, "max", keys[i].hi);
            }
            json_str(&j, "unit", keys[i].unit);
            json_str(&j, "help", keys[i].help);
            json_obj_end(&j);
        }
        json_arr_end(&j);
        json_obj_end(&j);
        json_end(&j);
    } else if (markdown) {
        char *md = NULL;
        if (wc_keys_markdown(&md) != 0) {
            fprintf(stderr, "warpcast gpus: out of memory\n");
            exit(WC_EINTERNAL);
        }
        fputs(md, f);
        free(md);
    } else {
        for (size_t i = 0; i < n; i++) {
            char def[128];
            key_default(&keys[i], def, sizeof def);
            fprintf(f, "%-28s %-6s %-10s %-14s %s\n", keys[i].name,
                    tname[keys[i].type], def, keys[i].unit, keys[i].help);
        }
    }
    cli_close_out(c, f);
    return 0;
}

int cmd_gpus(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    int keys = 0, markdown = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(gpus_help, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--keys")) {
            keys = 1;
            continue;
        }
        if (!strcmp(argv[i], "--markdown")) {
            markdown = 1;
            continue;
        }
        if (cli_common_opt(&c, argc, argv, &i, "gpus"))
            continue;
        cli_usage_error("gpus", "unexpected argument '%s'", argv[i]);
    }
    if (keys)
        return list_keys(&c, markdown);

    char **names = NULL;
    size_t n = wc_gpu_list(&names);
    FILE *f = cli_open_out(&c);
    cli_json j;
    if (c.format == CLI_FMT_JSON) {
        json_begin(&j, f, 0);
        json_obj(&j, NULL);
        json_arr(&j, "gpus");
    } else if (c.format == CLI_FMT_CSV) {
        fprintf(f, "name,arch,sms,subcores_per_sm,clock_mhz,max_warps_per_sm\n");
    } else {
        fprintf(f, "%-14s %-10s %5s %9s %10s %10s\n", "name", "arch", "SMs",
                "sub-cores", "clock MHz", "warps/SM");
    }
    wc_gpu *g = malloc(sizeof *g);
    wc_diag d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; g && i < n; i++) {
        if (wc_gpu_load(names[i], g, &d) != 0)
            cli_fail(&d);
        if (c.format == CLI_FMT_JSON) {
            json_obj(&j, NULL);
            json_str(&j, "name", names[i]);
            json_str(&j, "arch", g->arch);
            json_int(&j, "sms", g->num_sms);
            json_int(&j, "subcores_per_sm", g->subcores_per_sm);
            json_num(&j, "clock_mhz", g->clock_mhz);
            json_int(&j, "max_warps_per_sm", g->max_warps_per_sm);
            json_obj_end(&j);
        } else if (c.format == CLI_FMT_CSV) {
            fprintf(f, "%s,%s,%ld,%ld,%g,%ld\n", names[i], g->arch, g->num_sms,
                    g->subcores_per_sm, g->clock_mhz, g->max_warps_per_sm);
        } else {
            fprintf(f, "%-14s %-10s %5ld %9ld %10g %10ld\n", names[i], g->arch,
                    g->num_sms, g->subcores_per_sm, g->clock_mhz,
                    g->max_warps_per_sm);
        }
    }
    free(g);
    if (c.format == CLI_FMT_JSON) {
        json_arr_end(&j);
        json_obj_end(&j);
        json_end(&j);
    }
    cli_close_out(&c, f);
    wc_free_names(names, n);
    return 0;
}
