/*
 * cli/cli.h - private header of the warpcast program.
 *
 * Owns: command dispatch, common options, output formatting (text, JSON,
 * CSV) and progress.  Only cli/ prints and exits; the library layers return
 * wc_diag errors which cli_fail() turns into "FILE:LINE:COL: error: ..." and
 * the exit status of ARCHITECTURE.md (0 ok, 1 usage, 2 bad input, 3 internal).
 */
#ifndef WC_CLI_H
#define WC_CLI_H

#include <stdatomic.h>
#include <stdio.h>
#include "wc.h"
#include "wc_json.h"

enum { CLI_FMT_TEXT, CLI_FMT_JSON, CLI_FMT_CSV };

#define CLI_MAX_SETS 64

typedef struct cli_common {
    const char *gpu;            /* --gpu NAME|FILE, NULL = from the trace      */
    const char *sets[CLI_MAX_SETS];
    int nsets;
    int format;                 /* CLI_FMT_*                                  */
    const char *out;            /* --out FILE, NULL = stdout                   */
    unsigned long long seed;    /* --seed N                                   */
    int quiet;
} cli_common;

/* Try to consume a common option at argv[*i] (and its value).  Returns 1 when
 * consumed, 0 when not a common option; exits with status 1 on a bad value. */
int cli_common_opt(cli_common *c, int argc, char **argv, int *i,
                   const char *cmd);
void cli_common_init(cli_common *c);
/* Load the GPU config: --gpu, else the trace's binary version, else
 * fallback; then apply --set.  Exits on error. */
/* wc_gpu_load, with "did you mean" on an unknown name (issue 14). */
int cli_gpu_load(const char *name, wc_gpu *g, wc_diag *d);
void cli_load_gpu(const cli_common *c, int binary_version,
                  const char *fallback, wc_gpu *g);
/* Open --out (or stdout).  Exits on error. */
FILE *cli_open_out(const cli_common *c);
void cli_close_out(const cli_common *c, FILE *f);

/* Print d and exit with its code. */
_Noreturn void cli_fail(const wc_diag *d);
/* Print "warpcast: MSG" (and, with --format json, the JSON error object)
 * and exit with code. */
_Noreturn void cli_error_exit(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Print "warpcast CMD: MSG" + hint and exit 1. */
_Noreturn void cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Unknown option ARG of CMD: "unknown option '--mdoe'; did you mean
 * '--mode'?" with the closest option named in HELP (the command's --help
 * text) or the common options, by edit distance; exits 1. */
_Noreturn void cli_unknown_option(const char *cmd, const char *help,
                                  const char *arg);
/* Report unknown opcodes once per name on stderr (unless --quiet). */
void cli_warn_unknown_ops(const cli_common *c, const wc_trace *t);
/* Open TRACE; with CLI_TCACHE a text trace of some size goes through the
 * converted-trace cache (cli/tcache.c): converted once, read in the binary
 * form afterwards, identical results.  Errors: wc_trace_open's. */
enum { CLI_TCACHE = 1, CLI_TCACHE_NO_TICKER = 2 };
/* d about a kernel of a trace cli_open_trace read from the cache: name
 * the trace the user gave instead of the cache file. */
void cli_tcache_name(wc_diag *d);
int cli_open_trace(const cli_common *c, const char *path, int flags,
                   wc_trace **out, wc_diag *d);
/* The same for calibrate (a cal_open_fn; ctx: the cli_common): serialised,
 * no ticker. */
int cli_open_trace_cal(void *ctx, const char *path, wc_trace **out,
                       wc_diag *d);
/* Print the trace's warnings not printed yet (unless --quiet). */
void cli_warn_trace(const cli_common *c, const wc_trace *t);
/* Note once on stderr each --set key the mode (WC_MODE_*, named mode)
 * ignores (wc_key_modes; unless --quiet). */
void cli_note_unused_sets(const cli_common *c, unsigned mode,
                          const char *mode_name);
/* Whether progress may be printed on stderr. */
int cli_progress_ok(const cli_common *c);
/* A new private folder "warpcast-NAME-XXXXXX" in $TMPDIR, else (unset,
 * too long, or not writable) in /tmp, written to buf[n]; buf or NULL. */
char *cli_mkdtemp(char *buf, size_t n, const char *name);
/* Progress for one long library call without a callback (cli/ticker.c):
 * after a second, "LABEL ... [*count UNIT,] T s" rewritten on stderr 4 times
 * a second until cli_ticker_stop() clears it; nothing unless
 * cli_progress_ok(c).  count (may be NULL) is read atomically. */
void cli_ticker_start(const cli_common *c, const char *label,
                      atomic_ulong *count, const char *unit);
void cli_ticker_stop(void);

/* ---- JSON: the library's one writer (common/wc_json.h) under the CLI's
 * names (cli/json.c) ------------------------------------------------------ */
typedef wc_json cli_json;
void json_begin(cli_json *j, FILE *f, int pretty);
void json_obj(cli_json *j, const char *key);   /* key NULL inside arrays */
void json_obj_end(cli_json *j);
void json_arr(cli_json *j, const char *key);
void json_arr_end(cli_json *j);
void json_str(cli_json *j, const char *key, const char *v);
void json_int(cli_json *j, const char *key, long long v);
void json_uint(cli_json *j, const char *key, unsigned long long v);
void json_num(cli_json *j, const char *key, double v);
void json_bool(cli_json *j, const char *key, int v);
void json_null(cli_json *j, const char *key);
void json_end(cli_json *j); /* newline */
/* Write s as a JSON string literal (with quotes). */
void json_write_string(FILE *f, const char *s);

/* ---- commands ---------------------------------------------------------- */
int cmd_info(int argc, char **argv);
int cmd_gpus(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_ubench(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_tracegen(int argc, char **argv);

#endif
