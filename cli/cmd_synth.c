/*
 * cli/cmd_synth.c - `warpcast synth`: write a synthetic Accel-Sim trace
 * directory from the project's own generator (examples, tests, benches).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "wc_synth.h"

static const char synth_help[] =
    "usage: warpcast synth --kind KIND --out DIR [OPTIONS]\n"
    "\n"
    "Writes DIR/kernelslist.g and DIR/kernel-1.traceg (tracer version 5).\n"
    "\n"
    "options:\n"
    "  --kind KIND       workload kind (see below)\n"
    "  --ctas N          grid size\n"
    "  --threads N       threads per block\n"
    "  --iters N         loop trip count (instructions per warp scale)\n"
    "  --binary-version V  -binary version written in the header\n"
    "  --sass            also write a cuobjdump-style listing with control bits\n"
    "  --zstd            compress the kernel trace (.traceg.zst)\n"
    "  --seed N          generator seed\n";

static unsigned parse_u(const char *opt, const char *v)
{
    char *end;
    unsigned long x = strtoul(v, &end, 0);
    if (!*v || *end || *v == '-' || x > 0xffffffffUL)
        cli_usage_error("synth", "%s needs a non-negative integer, not '%s'",
                        opt, v);
    return (unsigned)x;
}

int cmd_synth(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *kind = NULL;
    const char *vals[4] = {NULL, NULL, NULL, NULL};
    int sass = 0, zst = 0, seed_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(synth_help, stdout);
            fputs("\nkinds:", stdout);
            for (const char *const *k = wc_synth_kinds(); *k; k++)
                printf(" %s", *k);
            fputs("\n", stdout);
            return 0;
        }
        static const char *const vopt[4] = {"--ctas", "--threads", "--iters",
                                            "--binary-version"};
        int done = 0;
        for (int o = 0; o < 4; o++)
            if (!strcmp(a, vopt[o])) {
                if (i + 1 >= argc)
                    cli_usage_error("synth", "option '%s' needs a value", a);
                vals[o] = argv[++i];
                done = 1;
            }
        if (done)
            continue;
        if (!strcmp(a, "--kind")) {
            if (i + 1 >= argc)
                cli_usage_error("synth", "option '--kind' needs a value");
            kind = argv[++i];
        } else if (!strcmp(a, "--sass")) {
            sass = 1;
        } else if (!strcmp(a, "--zstd")) {
            zst = 1;
        } else if (!strncmp(a, "--seed", 6)) {
            seed_given = 1;
            cli_common_opt(&c, argc, argv, &i, "synth");
        } else if (cli_common_opt(&c, argc, argv, &i, "synth")) {
            continue;
        } else {
            cli_unknown_option("synth", synth_help, a);
        }
    }
    if (!kind)
        cli_usage_error("synth", "missing --kind");
    if (!c.out)
        cli_usage_error("synth", "missing --out DIR");
    int known = 0;
    for (const char *const *k = wc_synth_kinds(); *k; k++)
        known |= !strcmp(*k, kind);
    if (!known)
        cli_usage_error("synth", "unknown kind '%s'", kind);
    wc_synth_params p;
    wc_synth_defaults(&p, kind);
    if (vals[0])
        p.ctas = parse_u("--ctas", vals[0]);
    if (vals[1])
        p.threads = parse_u("--threads", vals[1]);
    if (vals[2])
        p.iters = parse_u("--iters", vals[2]);
    if (vals[3])
        p.binary_version = (int)parse_u("--binary-version", vals[3]);
    if (seed_given)
        p.seed = c.seed;
    p.with_sass = sass;
    p.zstd = zst;
    wc_diag d;
    memset(&d, 0, sizeof d);
    if (wc_synth_write(&p, c.out, &d) != 0)
        cli_fail(&d);
    if (!c.quiet)
        printf("wrote %s (kind %s, %u CTAs x %u threads, %u iterations)\n",
               c.out, kind, p.ctas, p.threads, p.iters);
    return 0;
}
