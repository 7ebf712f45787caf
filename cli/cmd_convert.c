/*
 * cli/cmd_convert.c - `warpcast convert TRACE -o OUT`: write a trace in the
 * binary form (docs/formats.md), which every command then reads like the
 * text it was made from, several times faster.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_convert(int argc, char **argv);

static const char convert_help[] =
    "usage: warpcast convert [OPTIONS] TRACE -o OUT\n"
    "\n"
    "Write TRACE (a directory holding kernelslist.g, a kernelslist.g, or one\n"
    ".traceg / .traceg.zst kernel) as one binary trace file OUT: a per-PC\n"
    "table of static instruction fields, compact zstd-compressed per-warp\n"
    "streams and a CTA index.  Every command reads OUT wherever it reads a\n"
    "trace, with identical results.  Control bits of a SASS listing beside\n"
    "the trace are joined now and kept in OUT.\n"
    "\n"
    "options:\n"
    "  -o, --out OUT   the binary trace to write (replaced when complete)\n"
    "  --quiet         print nothing on success\n";

int cmd_convert(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *path = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(convert_help, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) {
            if (i + 1 >= argc)
                cli_usage_error("convert", "%s needs a file name", argv[i]);
            out = argv[++i];
            continue;
        }
        if (cli_common_opt(&c, argc, argv, &i, "convert"))
            continue;
        if (argv[i][0] == '-' && argv[i][1])
            cli_unknown_option("convert", convert_help, argv[i]);
        if (path)
            cli_usage_error("convert", "more than one TRACE given");
        path = argv[i];
    }
    if (!path)
        cli_usage_error("convert", "missing TRACE");
    if (!out)
        cli_usage_error("convert", "missing -o OUT");

    wc_diag d;
    memset(&d, 0, sizeof d);
    wc_trace *t = NULL;
    if (wc_trace_open(path, &t, &d) != 0)
        cli_fail(&d);
    if (wc_trace_nkernels(t) == 0) { /* a binary form predict would reject */
        wc_diag_set(&d, WC_EINPUT, path, 0, 0, "the trace holds no kernel");
        cli_fail(&d);
    }
    cli_warn_trace(&c, t);
    wc_convert_stats st;
    cli_ticker_start(&c, "converting", NULL, NULL);
    int rc = wc_trace_convert(t, out, &st, &d);
    cli_ticker_stop();
    if (rc != 0)
        cli_fail(&d);
    cli_warn_trace(&c, t);
    cli_warn_unknown_ops(&c, t);
    wc_trace_close(t);
    if (!c.quiet) {
        double ins = st.insts ? (double)st.insts : 1.0;
        double ob = st.out_bytes ? (double)st.out_bytes : 1.0;
        printf("wrote %s: %llu kernels, %llu thread blocks, %llu warp "
               "instructions, %llu static records\n",
               out, (unsigned long long)st.kernels,
               (unsigned long long)st.ctas, (unsigned long long)st.insts,
               (unsigned long long)st.records);
        printf("size: %llu bytes (%.2f bytes per instruction); input %llu "
               "bytes as stored (%.1fx), %llu bytes of text (%.1fx, %.1f "
               "bytes per instruction)\n",
               (unsigned long long)st.out_bytes, (double)st.out_bytes / ins,
               (unsigned long long)st.in_bytes, (double)st.in_bytes / ob,
               (unsigned long long)st.text_bytes, (double)st.text_bytes / ob,
               (double)st.text_bytes / ins);
    }
    return 0;
}
