/*
 * cli/main.c - the warpcast program: command dispatch, common options,
 * error reporting and exit statuses.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "study.h"

#ifndef WC_VERSION
#define WC_VERSION "0.1.0"
#endif

int cmd_convert(int argc, char **argv); /* cli/cmd_convert.c */

static const char usage_text[] =
    "usage: warpcast COMMAND [OPTIONS] ...\n"
    "\n"
    "Predict how many cycles CUDA kernels take on an NVIDIA GPU.\n"
    "\n"
    "commands:\n"
    "  predict [OPTIONS] TRACE       predict kernel cycles (interval, detailed or hybrid)\n"
    "  ubench  [OPTIONS] FILE.sass   run the detailed model on a hand-written microbenchmark\n"
    "  info    [OPTIONS] TRACE       what a trace holds: kernels, launch, mix\n"
    "  calibrate [OPTIONS]           fit model parameters to measured cycles\n"
    "  gpus    [--keys]              list bundled GPU configs (or every config key)\n"
    "  synth   [OPTIONS] --out DIR   write a synthetic Accel-Sim trace (examples, tests)\n"
    "  tracegen LISTING --out DIR    build a kernel's trace from its cuobjdump listing\n"
    "  convert TRACE -o OUT          write TRACE in the compact binary form (faster reads)\n"
    "  sweep   [OPTIONS] TRACE...    what-if study over config points, in parallel\n"
    "  merge   --out FILE DIR|FILE...  join the partial tables of sweep --emit-jobs\n"
    "  report  --out FILE.html RESULT...  HTML report with plots (predict, sweep, calibrate)\n"
    "\n"
    "TRACE is a directory holding kernelslist.g, a kernelslist.g file, or one kernel\n"
    "trace (.traceg or .traceg.zst), or a binary trace made by convert.\n"
    "\n"
    "common options:\n"
    "  --gpu NAME|FILE     GPU config (default: from the trace's -binary version)\n"
    "  --set KEY=VALUE     override a config key (repeatable; the what-if knob)\n"
    "  --format text|json|csv   output format (default text)\n"
    "  --out FILE          write the output to FILE\n"
    "  --seed N            random seed (sampling); same seed, same output\n"
    "  --quiet             no progress or warnings on stderr\n"
    "\n"
    "exit status: 0 success, 1 usage error, 2 bad input file, 3 internal error.\n"
    "Run 'warpcast COMMAND --help' for the options of a command.\n";

/* --format json was given: errors are also a JSON object on stderr. */
static int json_errors;

/* {"error": {"file", "line", "col", "message", "status"}} on one line of
 * stderr (file, line, col null when unknown). */
static void json_error(int code, const char *file, long line, long col,
                       const char *msg)
{
    if (!json_errors)
        return;
    cli_json j;
    json_begin(&j, stderr, 0);
    json_obj(&j, NULL);
    json_obj(&j, "error");
    if (file && *file)
        json_str(&j, "file", file);
    else
        json_null(&j, "file");
    if (line > 0)
        json_int(&j, "line", line);
    else
        json_null(&j, "line");
    if (col > 0)
        json_int(&j, "col", col);
    else
        json_null(&j, "col");
    json_str(&j, "message", msg);
    json_int(&j, "status", code);
    json_obj_end(&j);
    json_obj_end(&j);
    json_end(&j);
}

_Noreturn void cli_fail(const wc_diag *dd)
{
    char buf[2600];
    wc_diag x = *dd, *d = &x;
    cli_tcache_name(d);
    wc_diag_format(d, buf, sizeof buf);
    fflush(stdout);
    fprintf(stderr, "%s\n", buf);
    int code = d->code;
    if (code != WC_EUSAGE && code != WC_EINPUT && code != WC_EINTERNAL)
        code = WC_EINTERNAL;
    json_error(code, d->file, d->line, d->col, d->msg);
    exit(code);
}

_Noreturn void cli_error_exit(int code, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "warpcast: %s\n", msg);
    json_error(code, NULL, 0, 0, msg);
    exit(code);
}

_Noreturn void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "warpcast%s%s: %s", cmd ? " " : "", cmd ? cmd : "", msg);
    fprintf(stderr, "\nTry 'warpcast %s%s--help'.\n", cmd ? cmd : "",
            cmd ? " " : "");
    json_error(WC_EUSAGE, NULL, 0, 0, msg);
    exit(WC_EUSAGE);
}

_Noreturn void cli_unknown_option(const char *cmd, const char *help,
                                  const char *arg)
{
    static const char *const common[] = {"--gpu", "--set", "--format", "--out",
                                         "--seed", "--quiet", "--help"};
    enum { MAXC = 96 };
    char names[MAXC][40];
    const char *cand[MAXC];
    size_t n = 0;
    for (size_t k = 0; k < sizeof common / sizeof common[0]; k++)
        cand[n++] = common[k];
    /* every "--word" the help text names */
    for (const char *p = help ? strstr(help, "--") : NULL; p && n < MAXC;
         p = strstr(p, "--")) {
        size_t l = 2;
        while (p[l] && (p[l] == '-' || (p[l] >= 'a' && p[l] <= 'z') ||
                        (p[l] >= '0' && p[l] <= '9')))
            l++;
        if (l > 2 && l < sizeof names[0]) {
            memcpy(names[n], p, l);
            names[n][l] = 0;
            cand[n] = names[n];
            n++;
        }
        p += l;
    }
    char name[64];
    const char *eq = strchr(arg, '=');
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
    const char *sg = name[0] == '-' ? st_closest(name, cand, n) : NULL;
    if (sg)
        cli_usage_error(cmd, "unknown option '%s'; did you mean '%s'?", arg, sg);
    if (arg[0] == '-' && arg[1])
        cli_usage_error(cmd, "unknown option '%s'", arg);
    cli_usage_error(cmd, "unexpected argument '%s'", arg);
}

void cli_common_init(cli_common *c)
{
    memset(c, 0, sizeof *c);
    c->format = CLI_FMT_TEXT;
}

static const char *need_value(int argc, char **argv, int *i, const char *cmd)
{
    const char *a = argv[*i];
    const char *eq = strchr(a, '=');
    if (a[0] == '-' && a[1] == '-' && eq)
        return eq + 1;
    if (*i + 1 >= argc)
        cli_usage_error(cmd, "option '%s' needs a value", a);
    return argv[++*i];
}

static int opt_is(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

int cli_common_opt(cli_common *c, int argc, char **argv, int *i,
                   const char *cmd)
{
    const char *a = argv[*i];
    if (opt_is(a, "--gpu")) {
        c->gpu = need_value(argc, argv, i, cmd);
    } else if (opt_is(a, "--set")) {
        if (c->nsets >= CLI_MAX_SETS)
            cli_usage_error(cmd, "too many --set options (at most %d)",
                            CLI_MAX_SETS);
        c->sets[c->nsets++] = need_value(argc, argv, i, cmd);
    } else if (opt_is(a, "--format")) {
        const char *v = need_value(argc, argv, i, cmd);
        if (!strcmp(v, "text"))
            c->format = CLI_FMT_TEXT;
        else if (!strcmp(v, "json"))
            c->format = CLI_FMT_JSON, json_errors = 1;
        else if (!strcmp(v, "csv"))
            c->format = CLI_FMT_CSV;
        else
            cli_usage_error(cmd, "unknown format '%s' (text, json or csv)", v);
    } else if (opt_is(a, "--out")) {
        c->out = need_value(argc, argv, i, cmd);
    } else if (opt_is(a, "--seed")) {
        const char *v = need_value(argc, argv, i, cmd);
        char *end;
        c->seed = strtoull(v, &end, 0);
        if (*v == 0 || *end != 0 || *v == '-')
            cli_usage_error(cmd, "--seed needs a non-negative integer, not '%s'", v);
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
        c->quiet = 1;
    } else {
        return 0;
    }
    return 1;
}

int cli_gpu_load(const char *name, wc_gpu *g, wc_diag *d)
{
    int rc = wc_gpu_load(name, g, d);
    const char *sg = rc && strstr(d->msg, "unknown GPU '") ? st_suggest_gpu(name)
                                                         : NULL;
    if (sg) { /* "did you mean" (issue 14) */
        char m[sizeof d->msg];
        snprintf(m, sizeof m, "%.900s; did you mean '%.60s'?", d->msg, sg);
        memcpy(d->msg, m, sizeof m);
    }
    return rc;
}

void cli_load_gpu(const cli_common *c, int binary_version,
                  const char *fallback, wc_gpu *g)
{
    wc_diag d;
    memset(&d, 0, sizeof d);
    const char *name = c->gpu;
    if (!name)
        name = wc_gpu_for_binary(binary_version);
    if (!name)
        name = fallback;
    if (!name) {
        if (binary_version > 0)
            cli_error_exit(WC_EUSAGE,
                           "no bundled GPU config for binary version %d; pass "
                           "--gpu NAME|FILE (see 'warpcast gpus')",
                           binary_version);
        cli_error_exit(WC_EUSAGE,
                       "the input does not say which GPU it is for; pass "
                       "--gpu NAME|FILE (see 'warpcast gpus')");
    }
    if (cli_gpu_load(name, g, &d) != 0)
        cli_fail(&d);
    for (int i = 0; i < c->nsets; i++)
        if (wc_gpu_set(g, c->sets[i], &d) != 0)
            cli_fail(&d);
}

void cli_note_unused_sets(const cli_common *c, unsigned mode,
                          const char *mode_name)
{
    for (int i = 0; i < c->nsets && !c->quiet; i++) {
        const char *eq = strchr(c->sets[i], '=');
        size_t n = eq ? (size_t)(eq - c->sets[i]) : strlen(c->sets[i]);
        while (n > 0 && isspace((unsigned char)c->sets[i][n - 1]))
            n--;
        char key[96];
        snprintf(key, sizeof key, "%.*s", (int)n, c->sets[i]);
        const wc_key_desc *k = wc_key_find(key);
        int again = 0; /* once per key */
        for (int j = 0; j < i && !again; j++)
            again = strncmp(c->sets[j], key, n) == 0 &&
                    (c->sets[j][n] == '=' ||
                     isspace((unsigned char)c->sets[j][n]));
        if (k && !again && !(wc_key_modes(k) & mode))
            fprintf(stderr,
                    "warpcast: note: --set %s is not used by --mode %s\n",
                    k->name, mode_name);
    }
}

FILE *cli_open_out(const cli_common *c)
{
    if (!c->out || !strcmp(c->out, "-"))
        return stdout;
    FILE *f = fopen(c->out, "w");
    if (!f)
        cli_error_exit(WC_EINPUT, "cannot write '%s': %s", c->out,
                       strerror(errno));
    return f;
}

void cli_close_out(const cli_common *c, FILE *f)
{
    if (f != stdout) {
        if (fclose(f) != 0)
            cli_error_exit(WC_EINTERNAL, "error writing '%s'", c->out);
    } else if (fflush(f) != 0) {
        exit(WC_EINTERNAL);
    }
}

void cli_warn_unknown_ops(const cli_common *c, const wc_trace *t)
{
    if (c->quiet)
        return;
    const char *const *names = NULL;
    const uint64_t *counts = NULL;
    size_t nu = wc_trace_unknown_ops(t, &names, &counts);
    for (size_t i = 0; i < nu; i++)
        fprintf(stderr, "warning: unknown opcode '%s' (%llu times)\n", names[i],
                (unsigned long long)counts[i]);
}

void cli_warn_trace(const cli_common *c, const wc_trace *t)
{
    static size_t printed; /* one trace per run */
    const char *const *msgs = NULL;
    size_t n = wc_trace_warnings(t, &msgs);
    if (!c->quiet)
        for (size_t i = printed; i < n; i++)
            fprintf(stderr, "warning: %s\n", msgs[i]);
    printed = n;
}

int cli_progress_ok(const cli_common *c)
{
    return !c->quiet && isatty(2);
}

char *cli_mkdtemp(char *buf, size_t n, const char *name)
{
    const char *td = getenv("TMPDIR");
    int k = snprintf(buf, n, "%s/warpcast-%s-XXXXXX", td && *td ? td : "/tmp",
                     name);
    if (k > 0 && (size_t)k < n && mkdtemp(buf))
        return buf;
    k = snprintf(buf, n, "/tmp/warpcast-%s-XXXXXX", name);
    return k > 0 && (size_t)k < n ? mkdtemp(buf) : NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return WC_EUSAGE;
    }
    const char *cmd = argv[1];
    /* errors met before the option is parsed are JSON too */
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--format=json") ||
            (!strcmp(argv[i], "--format") && i + 1 < argc &&
             !strcmp(argv[i + 1], "json")))
            json_errors = 1;
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("warpcast %s\n", WC_VERSION);
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"predict", cmd_predict}, {"ubench", cmd_ubench},
        {"info", cmd_info},       {"calibrate", cmd_calibrate},
        {"gpus", cmd_gpus},       {"synth", cmd_synth},
        {"tracegen", cmd_tracegen},
        {"sweep", cmd_sweep},     {"merge", cmd_merge},
        {"report", cmd_report},   {"convert", cmd_convert},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    const char *names[sizeof cmds / sizeof cmds[0]];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        names[i] = cmds[i].name;
    const char *sg = st_closest(cmd, names, sizeof cmds / sizeof cmds[0]);
    if (sg) {
        fprintf(stderr, "warpcast: unknown command '%s'; did you mean '%s'?\n", cmd, sg);
        return WC_EUSAGE;
    }
    fprintf(stderr, "warpcast: unknown command '%s'\n\n", cmd);
    fputs(usage_text, stderr);
    return WC_EUSAGE;
}
