/*
 * cli/study.h - private header of the study commands (sweep, merge, report):
 * a small in-memory table of strings read from / written to RFC 4180 CSV or
 * JSON lines, a small JSON reader, "did you mean" suggestions.
 */
#ifndef WC_CLI_STUDY_H
#define WC_CLI_STUDY_H

#include <stddef.h>
#include <stdio.h>

/* ---- tables: every cell a string ---------------------------------------- */
typedef struct st_table {
    int ncol;
    char **col;      /* column names                                        */
    size_t nrow, cap;
    char ***row;     /* row[r][c], "" when empty                            */
    size_t *seq;     /* insertion order (stable sorting)                    */
} st_table;

void st_init(st_table *t);
void st_free(st_table *t);
int st_set_cols(st_table *t, int ncol, char *const *names);
int st_col(const st_table *t, const char *name); /* -1 when absent */
/* Append a row of ncol strings (copied). */
int st_add(st_table *t, char *const *vals);
/* Read a CSV (RFC 4180) or JSON-lines file (chosen by the first byte) into t.
 * An incomplete last line (no newline: an interrupted writer) is dropped.
 * Returns 0, or -1 with a message in err. */
int st_read(const char *path, st_table *t, char *err, size_t nerr);
/* Write as CSV or JSON lines. */
void st_write_header_csv(FILE *f, const st_table *t);
void st_write_row(FILE *f, const st_table *t, char *const *vals, int json);
void st_write(FILE *f, const st_table *t, int json);
/* Output columns of a sweep that are not part of a point's identity. */
int st_is_result_col(const char *name);
/* Sort rows canonically: trace, the varied keys (numerically when both
 * numbers), mode, seed, then insertion order. */
void st_sort(st_table *t);
/* The identity of row r's point (trace, keys, mode, seed) as one string. */
void st_point_key(const st_table *t, size_t r, char *buf, size_t n);

/* CSV field: quoted when it holds a comma, quote, CR or LF. */
void csv_field(FILE *f, const char *s);
/* Parse one CSV record from text at *pos; fields malloc'd.  Returns the
 * number of fields, 0 at end of text, -1 on an unterminated record. */
int csv_record(const char *text, size_t len, size_t *pos, char ***fields);
/* 1 when s is a JSON number (no leading '+' or '.', hex, inf or nan). */
int st_is_number(const char *s);
void csv_free_fields(char **fields, int n);

/* ---- a small JSON reader -------------------------------------------------- */
enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };
typedef struct jv {
    int type;
    double num;
    char *str;          /* JV_STR; the raw text for JV_NUM                 */
    size_t n;
    char **keys;        /* JV_OBJ                                           */
    struct jv *items;   /* JV_ARR, JV_OBJ                                   */
} jv;
/* Parse text; returns 0 or -1 with a message (with the offset) in err. */
int jv_parse(const char *text, size_t len, jv *out, size_t *end, char *err,
             size_t nerr);
void jv_free(jv *v);
const jv *jv_get(const jv *o, const char *key);
double jv_num(const jv *v, double def);
const char *jv_str(const jv *v, const char *def);
/* Read a whole file (NUL-terminated, malloc'd). */
char *st_slurp(const char *path, size_t *len);

/* ---- did you mean --------------------------------------------------------- */
/* The candidate closest to s (edit distance at most max(2, len/3)), or NULL. */
const char *st_closest(const char *s, const char *const *cand, size_t n);
/* Closest config key / bundled GPU name, or NULL. */
const char *st_suggest_key(const char *s);
const char *st_suggest_gpu(const char *s);

/* ---- command lines and outputs of the study commands ---------------------- */
/* The command line of merge and report: --help/-h (HELP on stdout; returns
 * 1), --quiet/-q (*QUIET = 1), the value options NAMES[0..NOPT) (the value
 * into VALS[k], the last one given wins, CHECK[k] when not NULL sees it
 * first and exits on a bad one) and the rest, in order, into IN[*NIN]
 * (room for argc).  A missing value or an unknown option ("did you mean"
 * the closest of NAMES, --quiet, --help) exits 1.  Returns 0. */
typedef void (*st_value_check)(const char *value);
int st_args(const char *cmd, const char *help, int argc, char **argv,
            const char *const *names, const char **vals,
            const st_value_check *check, size_t nopt, int *quiet,
            const char **in, int *nin);
/* PATH for writing, or stdout when PATH is NULL or "-"; NULL after
 * "warpcast CMD: cannot write 'PATH'" on stderr. */
FILE *st_open_out(const char *cmd, const char *path);
/* Closes what st_open_out() opened (flushes stdout); 0 or EOF. */
int st_close_out(FILE *f);

/* ---- kernels as people know them ------------------------------------------ */
/* The demangled C++ name (malloc'd; a copy of name when not mangled). */
char *cli_demangle(const char *name);
/* predict with several TRACE arguments: runs predict once per trace and joins
 * the outputs (text: a header per trace; csv: a trace column; json: an
 * object {"traces": [{"trace": ..., "result": {...}}]}).  Returns 0 when
 * argv holds at most one trace (nothing done), else 1 with *rc set. */
int cli_predict_multi(int argc, char **argv, int *rc);
/* --kernel VALUE: 1 when VALUE is a name / POSIX extended regular
 * expression rather than ids; match against both names of a kernel.
 * Exits with status 1 on a bad expression. */
int cli_kernel_is_regex(const char *v);
int cli_kernel_match(const char *re, const char *name, const char *mangled);

/* ---- CSV forms of outputs that had none (study_formats.c) ---------------- */
struct cal_report;
struct dm_ubench_result;
void cli_calibrate_csv(const struct cal_report *r, FILE *f);
void cli_ubench_csv(const struct dm_ubench_result *r, FILE *f, int timeline);
void cli_keys_csv(FILE *f);

/* ---- commands ------------------------------------------------------------- */
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
