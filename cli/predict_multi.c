/*
 * cli/predict_multi.c - the parts of `predict` added by issue 14 that live
 * outside cmd_predict.c: several traces in one command, and --kernel by name
 * or regular expression.
 */
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "study.h"

int cli_kernel_is_regex(const char *v)
{
    /* ids, lists and ranges ("3", "2,5", "3-7", "3:7") are numbers */
    return v[strspn(v, "0123456789,:- ")] != 0;
}

int cli_kernel_match(const char *re, const char *name, const char *mangled)
{
    regex_t rx;
    int e = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
    if (e != 0) {
        char msg[256];
        regerror(e, &rx, msg, sizeof msg);
        cli_usage_error("predict", "--kernel '%s': bad regular expression: %s", re, msg);
    }
    int hit = regexec(&rx, name, 0, NULL, 0) == 0 ||
              (mangled && regexec(&rx, mangled, 0, NULL, 0) == 0);
    regfree(&rx);
    return hit;
}

static int takes_value(const char *a)
{
    static const char *const v[] = {"--mode", "--sample-period", "--budget", "--timeline",
                                    "--kernel", "--gpu", "--set", "--format", "--out",
                                    "--seed", "--jobs"};
    if (strchr(a, '='))
        return 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!strcmp(a, v[i]))
            return 1;
    return 0;
}

static void copy_file(FILE *to, const char *path)
{
    size_t n = 0;
    char *t = st_slurp(path, &n);
    if (t)
        fwrite(t, 1, n, to);
    free(t);
}

/* The scratch directory of a multi-trace run and its one file, removed at
 * exit too: a bad trace ends the process inside cmd_predict (exit status
 * 2), which would leave them behind in $TMPDIR. */
static char multi_dir[PATH_MAX], multi_part[PATH_MAX + 8];

static void multi_cleanup(void)
{
    if (multi_part[0])
        unlink(multi_part);
    if (multi_dir[0])
        rmdir(multi_dir);
    multi_part[0] = multi_dir[0] = 0;
}

int cli_predict_multi(int argc, char **argv, int *rc)
{
    int ntr = 0, format = CLI_FMT_TEXT;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return 0;
        if (a[0] == '-' && a[1]) {
            const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : NULL;
            if (takes_value(a) && i + 1 < argc)
                v = argv[++i];
            if (v && (!strncmp(a, "--format", 8)))
                format = !strcmp(v, "json") ? CLI_FMT_JSON : !strcmp(v, "csv") ? CLI_FMT_CSV
                                                                              : CLI_FMT_TEXT;
            if (v && !strncmp(a, "--out", 5))
                out = v;
            continue;
        }
        ntr++;
    }
    if (ntr <= 1)
        return 0;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--timeline", 10))
            cli_usage_error("predict", "--timeline takes one TRACE");
    char *tdir = multi_dir, *part = multi_part;
    if (!cli_mkdtemp(tdir, sizeof multi_dir, "predict")) {
        fprintf(stderr, "warpcast predict: cannot create a temporary directory\n");
        *rc = WC_EINTERNAL;
        return 1;
    }
    snprintf(part, sizeof multi_part, "%s/part", tdir);
    atexit(multi_cleanup);
    char **av = calloc((size_t)argc + 3, sizeof *av);
    if (!av) {
        *rc = WC_EINTERNAL;
        return 1;
    }
    FILE *f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "warpcast predict: cannot write '%s'\n", out);
        *rc = WC_EUSAGE;
        free(av);
        return 1;
    }
    if (format == CLI_FMT_JSON)
        fputs("{\"traces\": [", f);
    int done = 0;
    *rc = 0;
    for (int t = 1; t < argc; t++) {
        const char *a = argv[t];
        if (a[0] == '-' && a[1]) {
            if (takes_value(a))
                t++;
            continue;
        }
        /* argv without the other traces and --out, plus --out part */
        int n = 0;
        for (int i = 0; i < argc; i++) {
            const char *b = argv[i];
            if (i > 0 && b[0] == '-' && b[1]) {
                int skip_out = !strcmp(b, "--out") || !strncmp(b, "--out=", 6);
                if (!skip_out)
                    av[n++] = argv[i];
                if (takes_value(b) && i + 1 < argc) {
                    if (!skip_out)
                        av[n++] = argv[i + 1];
                    i++;
                }
                continue;
            }
            if (i == 0 || i == t)
                av[n++] = argv[i];
        }
        av[n++] = "--out";
        av[n++] = part;
        av[n] = NULL;
        int r = cmd_predict(n, av); /* exits on a bad trace */
        if (r) {
            *rc = r;
            break;
        }
        if (format == CLI_FMT_JSON) {
            fputs(done ? ",\n {\"trace\": " : "\n {\"trace\": ", f);
            json_write_string(f, a);
            fputs(", \"result\": ", f);
            size_t len = 0;
            char *txt = st_slurp(part, &len);
            while (txt && len && (txt[len - 1] == '\n'))
                txt[--len] = 0;
            if (txt)
                fputs(txt, f);
            free(txt);
            fputc('}', f);
        } else if (format == CLI_FMT_CSV) {
            size_t len = 0, p = 0;
            char *txt = st_slurp(part, &len);
            char **fs;
            int nf, first = 1;
            while (txt && (nf = csv_record(txt, len, &p, &fs)) > 0) {
                if (first && done) {
                    csv_free_fields(fs, nf);
                    first = 0;
                    continue;
                }
                csv_field(f, first ? "trace" : a);
                for (int k = 0; k < nf; k++) {
                    fputc(',', f);
                    csv_field(f, fs[k]);
                }
                fputc('\n', f);
                csv_free_fields(fs, nf);
                first = 0;
            }
            free(txt);
        } else {
            fprintf(f, "%s== %s ==\n", done ? "\n" : "", a);
            copy_file(f, part);
        }
        done++;
    }
    if (format == CLI_FMT_JSON)
        fputs("]}\n", f);
    if ((f == stdout ? fflush(f) : fclose(f)) != 0 && !*rc)
        *rc = WC_EINTERNAL;
    multi_cleanup();
    free(av);
    return 1;
}
