/*
 * common/config.c - GPU configuration: the one descriptor table of keys and
 * everything derived from it.
 *
 * Owns: the key table built from keys.def (name, type, offset in wc_gpu,
 * default, bounds, unit, help), the .cfg reader (wc_gpu_load, wc_gpu_parse),
 * the --set knob (wc_gpu_set), numeric access for calibration, the
 * latency-class accessors, the binary-version -> config map, the list of
 * bundled configs and the Markdown key reference.
 *
 * .cfg format (docs/gpus.md):
 *
 *     # comment
 *     key = value          # unit, source
 *     name = "quoted # ok" # strings may be quoted
 *     include other.cfg    # relative to the including file
 *
 * Later assignments override earlier ones, so a file sets its own keys after
 * its includes.  Setting one key twice in the same file is an error, as are
 * unknown keys, malformed numbers, values out of the key's bounds, include
 * cycles and includes nested deeper than WC_CFG_MAX_DEPTH.  Errors carry
 * file:line:col and echo the offending line with a caret under the column.
 */
#include "wc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef WC_DATA_DIR
#define WC_DATA_DIR "data"
#endif

#define WC_CFG_MAX_DEPTH 16            /* include nesting                   */
#define WC_CFG_MAX_BYTES (1L << 20)    /* one .cfg file                     */
#define WC_CFG_ECHO_MAX 160            /* characters of a line echoed back  */

/* ------------------------------------------------------------------------ */
/* The table                                                                 */
/* ------------------------------------------------------------------------ */

static const wc_key_desc keys_[] = {
#define WC_KEY_I(nm, def, lo, hi, unit, help)                                  \
    {#nm, WC_KT_INT, offsetof(wc_gpu, nm), (double)(def), (double)(lo),        \
     (double)(hi), NULL, unit, help},
#define WC_KEY_R(nm, def, lo, hi, unit, help)                                  \
    {#nm, WC_KT_REAL, offsetof(wc_gpu, nm), (double)(def), (double)(lo),       \
     (double)(hi), NULL, unit, help},
#define WC_KEY_S(nm, def, unit, help)                                          \
    {#nm, WC_KT_STR, offsetof(wc_gpu, nm), 0, 0, 0, def, unit, help},
#include "keys.def"
#undef WC_KEY_I
#undef WC_KEY_R
#undef WC_KEY_S
};

#define NKEYS (sizeof keys_ / sizeof keys_[0])

/* keys.def in order: a section marker (WC_KEY_GROUP: 0x100 | its modes),
 * then 0 for each key of the section. */
static const unsigned key_seq_[] = {
#define WC_KEY_GROUP(modes) 0x100u | (unsigned)(modes),
#define WC_KEY_I(nm, def, lo, hi, unit, help) 0u,
#define WC_KEY_R(nm, def, lo, hi, unit, help) 0u,
#define WC_KEY_S(nm, def, unit, help) 0u,
#include "keys.def"
#undef WC_KEY_I
#undef WC_KEY_R
#undef WC_KEY_S
#undef WC_KEY_GROUP
};

/* Keys of the memory and core sections (read by both models otherwise)
 * that only the detailed model reads: its front end, issue quirks, write
 * ports, queues, constant caches and memory-unit internals.  The interval
 * model reads none of them (model/, through uarch/ua_core's fields);
 * test_check.c asserts that changing one leaves interval cycles alone. */
static const char *const detailed_only_[] = {
    "ibuffer_entries",  "inst_bytes",         "icache_l0_bytes",
    "icache_l0_assoc",  "const_miss_switch",  "stall_quirk_above",
    "stall_quirk_cycles", "exit_yield_stall", "rf_write_ports",
    "vlat_queue",       "sb_max_consumers",   "watchdog_cycles",
    "dm_shortcuts",     "dm_quantum",         "cc_l0fl_size",
    "cc_l0fl_assoc",    "cc_l0vl_size",       "cc_l0vl_assoc",
    "cc_l1_size",       "cc_l1_assoc",        "mem_coalesce_cycles",
    "mem_prt_entries",  "mem_issue_oldest",
};

unsigned wc_key_modes(const wc_key_desc *k)
{
    if (!k || k < keys_ || k >= keys_ + NKEYS)
        return WC_MODES_ALL;
    size_t want = (size_t)(k - keys_), i = 0;
    unsigned modes = WC_MODES_ALL;
    for (size_t s = 0; s < sizeof key_seq_ / sizeof key_seq_[0]; s++) {
        if (key_seq_[s] & 0x100u) {
            modes = key_seq_[s] & WC_MODES_ALL;
            continue;
        }
        if (i++ == want)
            break;
    }
    for (size_t j = 0; j < sizeof detailed_only_ / sizeof detailed_only_[0];
         j++)
        if (strcmp(k->name, detailed_only_[j]) == 0)
            return modes & (WC_MODE_DETAILED | WC_MODE_HYBRID);
    return modes;
}

const wc_key_desc *wc_keys(size_t *n)
{
    if (n)
        *n = NKEYS;
    return keys_;
}

static long key_index_n(const char *name, size_t len)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strlen(keys_[i].name) == len &&
            memcmp(keys_[i].name, name, len) == 0)
            return (long)i;
    return -1;
}

static void phys_clear_for(wc_gpu *g, const wc_key_desc *k);

const wc_key_desc *wc_key_find(const char *name)
{
    if (!name)
        return NULL;
    long i = key_index_n(name, strlen(name));
    return i < 0 ? NULL : &keys_[i];
}

static long *field_i(wc_gpu *g, const wc_key_desc *k)
{
    return (long *)(void *)((char *)g + k->offset);
}
static double *field_r(wc_gpu *g, const wc_key_desc *k)
{
    return (double *)(void *)((char *)g + k->offset);
}
static char *field_s(wc_gpu *g, const wc_key_desc *k)
{
    return (char *)g + k->offset;
}
static const void *field_c(const wc_gpu *g, const wc_key_desc *k)
{
    return (const char *)g + k->offset;
}

void wc_gpu_defaults(wc_gpu *g)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < NKEYS; i++) {
        const wc_key_desc *k = &keys_[i];
        switch (k->type) {
        case WC_KT_INT:
            *field_i(g, k) = (long)k->def;
            break;
        case WC_KT_REAL:
            *field_r(g, k) = k->def;
            break;
        case WC_KT_STR:
            snprintf(field_s(g, k), WC_CFG_STR_LEN, "%s", k->sdef);
            break;
        }
    }
}

/* $WARPCAST_DATA, else DIR/../share/warpcast next to the running program
 * (an installed warpcast: PREFIX/bin/warpcast -> PREFIX/share/warpcast, when
 * it holds gpus/), else the build's data directory. */
const char *wc_data_dir(void)
{
    const char *e = getenv("WARPCAST_DATA");
    if (e && *e)
        return e;
    static _Thread_local char rel[4096]; /* per thread: no data race */
    static _Thread_local int done;
    if (!done) {
        done = 1;
        char exe[4000];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = 0;
            char *slash = strrchr(exe, '/');
            struct stat sb;
            char probe[4200];
            if (slash) {
                *slash = 0;
                snprintf(rel, sizeof rel, "%s/../share/warpcast", exe);
                snprintf(probe, sizeof probe, "%s/gpus", rel);
                if (stat(probe, &sb) != 0 || !S_ISDIR(sb.st_mode))
                    rel[0] = 0;
            }
        }
    }
    return rel[0] ? rel : WC_DATA_DIR;
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* Edit distance, for "did you mean" (names are short). */
static size_t edit_distance(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b);
    if (na > 64 || nb > 64)
        return (size_t)-1;
    size_t row[65];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t cost = (tolower((unsigned char)a[i - 1]) == b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

/* " (did you mean 'x'?)" or "" */
static void suggest(const char *name, size_t len, char *buf, size_t n)
{
    size_t best = (size_t)-1;
    const char *who = NULL;
    for (size_t i = 0; i < NKEYS; i++) {
        size_t dd = edit_distance(name, len, keys_[i].name);
        if (dd < best) {
            best = dd;
            who = keys_[i].name;
        }
    }
    if (who && best <= 3 && best < len)
        snprintf(buf, n, " (did you mean '%s'?)", who);
    else if (n)
        buf[0] = '\0';
}

static void fmt_bound(double v, char *buf, size_t n)
{
    snprintf(buf, n, "%.15g", v);
}

/* The enumeration keys: string keys whose value selects behaviour (name,
 * arch and shmem_carveouts are information).  Each list is in the order of
 * its uarch enum (ua_policy, ua_assign, ua_dep; test_check asserts it).
 * parse_value checks them, so a bad value is reported where it was written:
 * the .cfg line or the --set argument. */
static const char *const enum_policy_[] = {"cggty", "gto", "lrr", "rba", NULL};
static const char *const enum_assign_[] = {"rr", "srr", "shuffle", NULL};
static const char *const enum_dep_[] = {"auto", "ctrl", "scoreboard", NULL};
/* arch is information, but its help names its values: anything else was
 * taken without a word (arch=bad, an empty value) */
static const char *const enum_arch_[] = {"unknown", "gt200",  "volta",
                                         "turing",  "ampere", "ada",
                                         "hopper",  "blackwell", NULL};

const char *const *wc_key_enum(const char *name)
{
    if (!name)
        return NULL;
    if (strcmp(name, "issue_policy") == 0)
        return enum_policy_;
    if (strcmp(name, "assign_policy") == 0)
        return enum_assign_;
    if (strcmp(name, "dep_mode") == 0)
        return enum_dep_;
    if (strcmp(name, "arch") == 0)
        return enum_arch_;
    return NULL;
}

/* shmem_carveouts: empty, or KiB sizes (integers 0 to 1048576) separated
 * by single commas; else writes a message to err and returns -1 (it took
 * "a", "1,,2", "-1", "1e400" and "0," without a word). */
static int check_carveouts(const char *s, size_t len, char *err, size_t errn)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        unsigned long v = 0;
        while (j < len && isdigit((unsigned char)s[j]) && v <= 1048576)
            v = v * 10 + (unsigned long)(s[j++] - '0');
        if (j == i || v > 1048576 || (j < len && s[j] != ',') ||
            (j < len && j + 1 == len)) {
            snprintf(err, errn,
                     "shmem_carveouts '%.*s': expected KiB sizes (0 to "
                     "1048576) separated by commas, as \"0,8,16,32\"",
                     (int)len, s);
            return -1;
        }
        i = j + 1;
    }
    return 0;
}

/* 0 when s[0..len) is one of the values of k (or k is no enumeration);
 * else writes "KEY 'v': expected a, b or c" to err and returns -1. */
static int check_enum(const wc_key_desc *k, const char *s, size_t len,
                      char *err, size_t errn)
{
    const char *const *v = wc_key_enum(k->name);
    if (!v)
        return 0;
    size_t n = 0;
    for (; v[n]; n++)
        if (strlen(v[n]) == len && memcmp(v[n], s, len) == 0)
            return 0;
    int o = snprintf(err, errn, "%s '%.*s': expected ", k->name, (int)len, s);
    for (size_t i = 0; i < n && o >= 0 && (size_t)o < errn; i++)
        o += snprintf(err + o, errn - (size_t)o, "%s%s",
                      i == 0 ? "" : i == n - 1 ? " or " : ", ", v[i]);
    return -1;
}

/* Parse s[0..len) as the value of k into g.  On error writes a message to
 * err and returns -1. */
static int parse_value(const wc_key_desc *k, const char *s, size_t len,
                       wc_gpu *g, char *err, size_t errn)
{
    char tmp[128];
    if (k->type == WC_KT_STR) {
        if (len >= WC_CFG_STR_LEN) {
            snprintf(err, errn, "value of '%s' is longer than %d characters",
                     k->name, WC_CFG_STR_LEN - 1);
            return -1;
        }
        for (size_t i = 0; i < len; i++)
            if (!isprint((unsigned char)s[i])) {
                snprintf(err, errn, "value of '%s' holds a control character",
                         k->name);
                return -1;
            }
        if (check_enum(k, s, len, err, errn) != 0)
            return -1;
        if (strcmp(k->name, "shmem_carveouts") == 0 &&
            check_carveouts(s, len, err, errn) != 0)
            return -1;
        memcpy(field_s(g, k), s, len);
        field_s(g, k)[len] = '\0';
        return 0;
    }
    if (len == 0 || len >= sizeof tmp) {
        snprintf(err, errn, "expected %s for '%s'",
                 k->type == WC_KT_INT ? "an integer" : "a number", k->name);
        return -1;
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    double v;
    char *end = NULL;
    errno = 0;
    if (k->type == WC_KT_INT) {
        long long iv = strtoll(tmp, &end, 10);
        if (end == tmp || errno == ERANGE) {
            snprintf(err, errn, "expected an integer for '%s', got '%s'",
                     k->name, tmp);
            return -1;
        }
        long long mul = 1;
        if (strcmp(end, "KiB") == 0)
            mul = 1024LL;
        else if (strcmp(end, "MiB") == 0)
            mul = 1024LL * 1024;
        else if (strcmp(end, "GiB") == 0)
            mul = 1024LL * 1024 * 1024;
        else if (*end) {
            snprintf(err, errn,
                     "expected an integer for '%s', got '%s' (size suffixes: "
                     "KiB MiB GiB)", k->name, tmp);
            return -1;
        }
        if (iv > LLONG_MAX / mul || iv < LLONG_MIN / mul) {
            snprintf(err, errn, "value of '%s' is out of range", k->name);
            return -1;
        }
        v = (double)(iv * mul);
    } else {
        v = strtod(tmp, &end);
        if (end == tmp || *end || errno == ERANGE || !isfinite(v)) {
            snprintf(err, errn, "expected a number for '%s', got '%s'",
                     k->name, tmp);
            return -1;
        }
    }
    if (v < k->lo || v > k->hi) {
        char lo[32], hi[32];
        fmt_bound(k->lo, lo, sizeof lo);
        fmt_bound(k->hi, hi, sizeof hi);
        snprintf(err, errn, "value %s of '%s' is out of bounds [%s, %s]", tmp,
                 k->name, lo, hi);
        return -1;
    }
    if (k->type == WC_KT_INT)
        *field_i(g, k) = (long)v;
    else
        *field_r(g, k) = v;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The .cfg reader                                                           */
/* ------------------------------------------------------------------------ */

typedef struct cfg_ctx {
    int depth;
    char *stack[WC_CFG_MAX_DEPTH + 1]; /* canonical paths being read */
    long nset;                          /* keys set, includes counted    */
} cfg_ctx;

/* Fill d with "MSG\n    LINE\n    ^" at path:lineno:col. */
static int line_error(wc_diag *d, const char *path, long lineno, long col,
                      const char *line, size_t linelen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

static int line_error(wc_diag *d, const char *path, long lineno, long col,
                      const char *line, size_t linelen, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    char echo[WC_CFG_ECHO_MAX + 1];
    size_t n = linelen < WC_CFG_ECHO_MAX ? linelen : WC_CFG_ECHO_MAX;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)line[i];
        echo[i] = (c == '\t') ? ' ' : (isprint(c) ? (char)c : '?');
    }
    echo[n] = '\0';
    char caret[WC_CFG_ECHO_MAX + 2];
    size_t cpos = col > 0 ? (size_t)(col - 1) : 0;
    if (cpos > n)
        cpos = n;
    memset(caret, ' ', cpos);
    caret[cpos] = '^';
    caret[cpos + 1] = '\0';
    return wc_diag_set(d, WC_EINPUT, path, lineno, col, "%s\n    %s\n    %s",
                       msg, echo, caret);
}

static int is_key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Directory part of path ("." when none), into buf. */
static void dir_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, n, ".");
    else if (slash == path)
        snprintf(buf, n, "/");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

static int parse_text(cfg_ctx *cx, const char *path, const char *text,
                      size_t len, wc_gpu *g, wc_diag *d);

/* Read and parse the file at path as an include of (inc_path, lineno). */
static int include_file(cfg_ctx *cx, const char *from, long lineno, long col,
                        const char *line, size_t linelen, const char *target,
                        wc_gpu *g, wc_diag *d)
{
    char full[4096];
    if (target[0] == '/') {
        snprintf(full, sizeof full, "%s", target);
    } else {
        char dir[4096];
        dir_of(from, dir, sizeof dir);
        if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, target) >=
            sizeof full)
            return line_error(d, from, lineno, col, line, linelen,
                              "include path too long");
    }
    struct stat st;
    if (stat(full, &st) != 0 && target[0] != '/' && !strchr(target, '/')) {
        /* A bare name not beside the including file: a bundled config
         * ("include h100-pcie.cfg" in a user's what-if file). */
        char bundled[4096];
        if ((size_t)snprintf(bundled, sizeof bundled, "%s/gpus/%s",
                             wc_data_dir(), target) < sizeof bundled &&
            stat(bundled, &st) == 0)
            snprintf(full, sizeof full, "%s", bundled);
    }
    if (stat(full, &st) != 0)
        return line_error(d, from, lineno, col, line, linelen,
                          "cannot include '%s': %s", full, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return line_error(d, from, lineno, col, line, linelen,
                          "cannot include '%s': not a regular file", full);
    if (st.st_size > WC_CFG_MAX_BYTES)
        return line_error(d, from, lineno, col, line, linelen,
                          "cannot include '%s': larger than %ld bytes", full,
                          WC_CFG_MAX_BYTES);
    if (cx->depth >= WC_CFG_MAX_DEPTH)
        return line_error(d, from, lineno, col, line, linelen,
                          "includes nested deeper than %d", WC_CFG_MAX_DEPTH);
    char *canon = realpath(full, NULL);
    if (!canon)
        return line_error(d, from, lineno, col, line, linelen,
                          "cannot include '%s': %s", full, strerror(errno));
    for (int i = 0; i < cx->depth; i++)
        if (cx->stack[i] && strcmp(cx->stack[i], canon) == 0) {
            free(canon);
            return line_error(d, from, lineno, col, line, linelen,
                              "include cycle: '%s' is already being read",
                              full);
        }
    char *buf = NULL;
    size_t n = 0;
    int rc = wc_read_file(full, &buf, &n, d);
    if (rc != WC_OK) {
        free(canon);
        return line_error(d, from, lineno, col, line, linelen,
                          "cannot include '%s': %s", full, d ? d->msg : "");
    }
    cx->stack[cx->depth++] = canon;
    rc = parse_text(cx, full, buf, n, g, d);
    cx->depth--;
    free(canon);
    cx->stack[cx->depth] = NULL;
    free(buf);
    return rc;
}

/* Parse one line.  seen[] holds, per key, the line that set it in this file
 * (0 = not yet). */
static int parse_line(cfg_ctx *cx, const char *path, long lineno,
                      const char *line, size_t n, long *seen, wc_gpu *g,
                      wc_diag *d)
{
    const char *nul = memchr(line, '\0', n);
    if (nul)
        return line_error(d, path, lineno, (long)(nul - line) + 1, line, n,
                          "NUL byte in a config file");
    size_t p = 0;
    while (p < n && (line[p] == ' ' || line[p] == '\t'))
        p++;
    if (p == n || line[p] == '#')
        return WC_OK;
    size_t ks = p;
    while (p < n && is_key_char(line[p]))
        p++;
    size_t klen = p - ks;
    if (klen == 0)
        return line_error(d, path, lineno, (long)ks + 1, line, n,
                          "expected a key name");

    /* include FILE */
    if (klen == 7 && memcmp(line + ks, "include", 7) == 0 && p < n &&
        (line[p] == ' ' || line[p] == '\t')) {
        while (p < n && (line[p] == ' ' || line[p] == '\t'))
            p++;
        size_t fs = p;
        while (p < n && line[p] != '#')
            p++;
        size_t fe = p;
        while (fe > fs && (line[fe - 1] == ' ' || line[fe - 1] == '\t'))
            fe--;
        if (fe == fs)
            return line_error(d, path, lineno, (long)fs + 1, line, n,
                              "include needs a file name");
        char target[1024];
        if (fe - fs >= sizeof target)
            return line_error(d, path, lineno, (long)fs + 1, line, n,
                              "include path too long");
        memcpy(target, line + fs, fe - fs);
        target[fe - fs] = '\0';
        return include_file(cx, path, lineno, (long)fs + 1, line, n, target,
                            g, d);
    }

    long ki = key_index_n(line + ks, klen);
    if (ki < 0) {
        char hint[96];
        suggest(line + ks, klen, hint, sizeof hint);
        return line_error(d, path, lineno, (long)ks + 1, line, n,
                          "unknown key '%.*s'%s", (int)klen, line + ks, hint);
    }
    const wc_key_desc *k = &keys_[ki];
    while (p < n && (line[p] == ' ' || line[p] == '\t'))
        p++;
    if (p == n || line[p] != '=')
        return line_error(d, path, lineno, (long)p + 1, line, n,
                          "expected '=' after '%s'", k->name);
    p++;
    while (p < n && (line[p] == ' ' || line[p] == '\t'))
        p++;
    size_t vs = p, ve;
    if (p < n && line[p] == '"') {
        vs = ++p;
        while (p < n && line[p] != '"')
            p++;
        if (p == n)
            return line_error(d, path, lineno, (long)vs, line, n,
                              "unterminated string");
        ve = p++;
        while (p < n && (line[p] == ' ' || line[p] == '\t'))
            p++;
        if (p < n && line[p] != '#')
            return line_error(d, path, lineno, (long)p + 1, line, n,
                              "unexpected text after the string");
    } else {
        while (p < n && line[p] != '#')
            p++;
        ve = p;
        while (ve > vs && (line[ve - 1] == ' ' || line[ve - 1] == '\t'))
            ve--;
        if (ve == vs)
            return line_error(d, path, lineno, (long)vs + 1, line, n,
                              "missing value for '%s'", k->name);
    }
    if (seen[ki])
        return line_error(d, path, lineno, (long)ks + 1, line, n,
                          "duplicate key '%s' (first set at line %ld)",
                          k->name, seen[ki]);
    char err[256];
    if (parse_value(k, line + vs, ve - vs, g, err, sizeof err) != 0)
        return line_error(d, path, lineno, (long)vs + 1, line, n, "%s", err);
    phys_clear_for(g, k);
    seen[ki] = lineno;
    cx->nset++;
    return WC_OK;
}

static int parse_text(cfg_ctx *cx, const char *path, const char *text,
                      size_t len, wc_gpu *g, wc_diag *d)
{
    long *seen = calloc(NKEYS, sizeof *seen);
    if (!seen)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "out of memory");
    int rc = WC_OK;
    long lineno = 0;
    size_t pos = 0;
    while (pos < len && rc == WC_OK) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        lineno++;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        rc = parse_line(cx, path, lineno, line, n, seen, g, d);
    }
    free(seen);
    return rc;
}

/* Parse text as a .cfg named name over the contents of g.  Includes resolve
 * relative to the directory of name. */
static int parse_root(const char *name, const char *text, size_t len,
                      wc_gpu *g, long *nset, wc_diag *d)
{
    cfg_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.stack[0] = realpath(name, NULL); /* NULL for in-memory text: fine */
    cx.depth = 1;
    wc_gpu tmp = *g;
    int rc = parse_text(&cx, name, text, len, &tmp, d);
    free(cx.stack[0]);
    if (nset)
        *nset = cx.nset;
    if (rc == WC_OK)
        *g = tmp;
    return rc;
}

static void name_from_path(const char *path, char *buf, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t l = strlen(b);
    if (l > 4 && strcmp(b + l - 4, ".cfg") == 0)
        l -= 4;
    snprintf(buf, n, "%.*s", (int)l, b);
}

int wc_gpu_parse(const char *name, const char *text, size_t len, wc_gpu *g,
                 wc_diag *d)
{
    if (!name || !g || (!text && len))
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "wc_gpu_parse: NULL argument");
    wc_gpu_defaults(g);
    int rc = parse_root(name, text ? text : "", len, g, NULL, d);
    if (rc == WC_OK) {
        snprintf(g->source, sizeof g->source, "%s", name);
        wc_gpu_resolve_clock(g);
    }
    return rc;
}

static int is_path(const char *s)
{
    size_t l = strlen(s);
    return strchr(s, '/') != NULL || (l > 4 && strcmp(s + l - 4, ".cfg") == 0);
}

int wc_gpu_load(const char *name_or_path, wc_gpu *g, wc_diag *d)
{
    if (!name_or_path || !*name_or_path || !g)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0, "no GPU config named");
    char path[4096];
    int bundled = !is_path(name_or_path);
    if (bundled) {
        for (const char *c = name_or_path; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' &&
                *c != '.')
                return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                                   "bad GPU name '%s'", name_or_path);
        snprintf(path, sizeof path, "%s/gpus/%s.cfg", wc_data_dir(),
                 name_or_path);
    } else {
        snprintf(path, sizeof path, "%s", name_or_path);
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (bundled) {
            char **names = NULL;
            size_t nn = wc_gpu_list(&names);
            char list[700] = "";
            size_t off = 0;
            for (size_t i = 0; i < nn && off < sizeof list; i++) {
                int w = snprintf(list + off, sizeof list - off, "%s%s",
                                 i ? " " : "", names[i]);
                if (w < 0)
                    break;
                off += (size_t)w;
            }
            wc_free_names(names, nn);
            return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                               "unknown GPU '%s' (bundled: %s)", name_or_path,
                               nn ? list : "none found");
        }
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "cannot open GPU config '%s': %s", path,
                           errno ? strerror(errno) : "not a regular file");
    }
    if (st.st_size > WC_CFG_MAX_BYTES)
        return wc_diag_set(d, WC_EINPUT, path, 0, 0,
                           "config file larger than %ld bytes",
                           WC_CFG_MAX_BYTES);
    char *buf = NULL;
    size_t n = 0;
    int rc = wc_read_file(path, &buf, &n, d);
    if (rc != WC_OK)
        return rc;
    wc_gpu tmp;
    wc_gpu_defaults(&tmp);
    long nset = 0;
    rc = parse_root(path, buf, n, &tmp, &nset, d);
    free(buf);
    if (rc != WC_OK)
        return rc;
    /* A file that sets nothing would be the generic defaults (one SM): a
     * wrong path or an empty file, never a GPU. */
    if (nset == 0)
        return wc_diag_set(d, WC_EINPUT, path, 0, 0,
                           "GPU config sets no key (%s): start from a "
                           "bundled one with 'include NAME.cfg' (see "
                           "'warpcast gpus')",
                           n == 0 ? "empty file"
                                  : "nothing but comments, blank lines or "
                                    "includes that set nothing");
    if (strcmp(tmp.name, "generic") == 0 || tmp.name[0] == '\0')
        name_from_path(path, tmp.name, sizeof tmp.name);
    size_t pl = strlen(path);
    if (pl >= sizeof tmp.source)
        pl = sizeof tmp.source - 1;
    memcpy(tmp.source, path, pl);
    tmp.source[pl] = '\0';
    wc_gpu_resolve_clock(&tmp);
    *g = tmp;
    return WC_OK;
}

/* ------------------------------------------------------------------------ */
/* Clock domains                                                             */
/* ------------------------------------------------------------------------ */

/* Quantities outside the SM's clock domain have physical keys (ns, GB/s);
 * the models read only the cycle keys.  This is the one place that converts
 * (at clock_mhz), so `--set clock_mhz=X` predicts the cycles measured at X
 * (issue 11 item 5: an empty kernel and a DRAM stream take the same time,
 * not the same cycles, at 1575 and 1955 MHz).  A physical key is in force
 * while > 0; setting its cycle key explicitly (a file line after it, --set,
 * a fit) clears it, so the last one set wins. */
typedef struct phys_key {
    const char *phys, *cycles;
    int kind; /* 0 time -> cycles, 1 GB/s -> bytes/cycle, 2 launch */
} phys_key;

static const phys_key phys_keys_[] = {
    {"launch_overhead_ns", "launch_overhead", 2},
    {"cta_dispatch_ns", "cta_dispatch", 0},
    {"l2_latency_ns", "l2_latency", 0},
    {"dram_latency_ns", "dram_latency", 0},
    {"l2_bw_gbs", "l2_bw", 1},
    {"dram_bw_gbs", "dram_bw", 1},
};

static void phys_clear_for(wc_gpu *g, const wc_key_desc *k)
{
    for (size_t i = 0; i < sizeof phys_keys_ / sizeof phys_keys_[0]; i++)
        if (strcmp(k->name, phys_keys_[i].cycles) == 0)
            *field_r(g, wc_key_find(phys_keys_[i].phys)) = 0;
}

void wc_gpu_resolve_clock(wc_gpu *g)
{
    double f = g->clock_mhz > 0 ? g->clock_mhz : 1;
    for (size_t i = 0; i < sizeof phys_keys_ / sizeof phys_keys_[0]; i++) {
        const phys_key *p = &phys_keys_[i];
        double v = *field_r(g, wc_key_find(p->phys));
        if (!(v > 0))
            continue;
        const wc_key_desc *ck = wc_key_find(p->cycles);
        double c = p->kind == 1 ? v * 1000.0 / f : v * f / 1000.0;
        if (p->kind == 2)
            c += g->launch_core_cycles;
        if (c < ck->lo)
            c = ck->lo;
        if (c > ck->hi)
            c = ck->hi;
        if (ck->type == WC_KT_INT)
            *field_i(g, ck) = (long)nearbyint(c);
        else
            *field_r(g, ck) = c;
    }
}

/* ------------------------------------------------------------------------ */
/* --set and numeric access                                                  */
/* ------------------------------------------------------------------------ */

int wc_gpu_set(wc_gpu *g, const char *assignment, wc_diag *d)
{
    if (!g || !assignment)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0, "--set: nothing to set");
    const char *eq = strchr(assignment, '=');
    if (!eq)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "--set '%s': expected KEY=VALUE", assignment);
    const char *ks = assignment, *ke = eq;
    while (ks < ke && isspace((unsigned char)*ks))
        ks++;
    while (ke > ks && isspace((unsigned char)ke[-1]))
        ke--;
    if (ke == ks)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "--set '%s': missing key before '='", assignment);
    long ki = key_index_n(ks, (size_t)(ke - ks));
    if (ki < 0) {
        char hint[96];
        suggest(ks, (size_t)(ke - ks), hint, sizeof hint);
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "--set: unknown key '%.*s'%s (warpcast gpus --keys "
                           "lists them)", (int)(ke - ks), ks, hint);
    }
    const char *vs = eq + 1, *ve = eq + strlen(eq);
    while (vs < ve && isspace((unsigned char)*vs))
        vs++;
    while (ve > vs && isspace((unsigned char)ve[-1]))
        ve--;
    if (ve - vs >= 2 && *vs == '"' && ve[-1] == '"') {
        vs++;
        ve--;
    }
    if (ve == vs && keys_[ki].type != WC_KT_STR)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "--set %s: missing value", keys_[ki].name);
    char err[256];
    wc_gpu tmp = *g;
    if (parse_value(&keys_[ki], vs, (size_t)(ve - vs), &tmp, err,
                    sizeof err) != 0)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0, "--set: %s", err);
    phys_clear_for(&tmp, &keys_[ki]);
    wc_gpu_resolve_clock(&tmp);
    *g = tmp;
    return WC_OK;
}

int wc_gpu_get_num(const wc_gpu *g, const char *key, double *v)
{
    const wc_key_desc *k = wc_key_find(key);
    if (!g || !k || k->type == WC_KT_STR)
        return WC_EUSAGE;
    if (v)
        *v = k->type == WC_KT_INT ? (double)*(const long *)field_c(g, k)
                                  : *(const double *)field_c(g, k);
    return WC_OK;
}

int wc_gpu_set_num(wc_gpu *g, const char *key, double v, wc_diag *d)
{
    const wc_key_desc *k = wc_key_find(key);
    if (!g || !k)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0, "unknown key '%s'",
                           key ? key : "(null)");
    if (k->type == WC_KT_STR)
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "key '%s' is not numeric", k->name);
    if (!isfinite(v))
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "value of '%s' is not finite", k->name);
    if (k->type == WC_KT_INT)
        v = nearbyint(v);
    if (v < k->lo || v > k->hi) {
        char lo[32], hi[32];
        fmt_bound(k->lo, lo, sizeof lo);
        fmt_bound(k->hi, hi, sizeof hi);
        return wc_diag_set(d, WC_EUSAGE, NULL, 0, 0,
                           "value %.15g of '%s' is out of bounds [%s, %s]", v,
                           k->name, lo, hi);
    }
    if (k->type == WC_KT_INT)
        *field_i(g, k) = (long)v;
    else
        *field_r(g, k) = v;
    phys_clear_for(g, k);
    wc_gpu_resolve_clock(g);
    return WC_OK;
}

int wc_gpu_value_str(const wc_gpu *g, const wc_key_desc *k, char *buf,
                     size_t n)
{
    if (!g || !k || !buf || n == 0)
        return WC_EUSAGE;
    switch (k->type) {
    case WC_KT_INT:
        snprintf(buf, n, "%ld", *(const long *)field_c(g, k));
        break;
    case WC_KT_REAL:
        snprintf(buf, n, "%.15g", *(const double *)field_c(g, k));
        break;
    case WC_KT_STR: {
        const char *s = field_c(g, k);
        if (strchr(s, '#') || (s[0] && (isspace((unsigned char)s[0]) ||
                                        s[0] == '"')) || !s[0])
            snprintf(buf, n, "\"%s\"", s);
        else
            snprintf(buf, n, "%s", s);
        break;
    }
    }
    return WC_OK;
}

long wc_gpu_lat(const wc_gpu *g, int latclass)
{
    switch (latclass) {
#define X(c)                                                                   \
    case WC_LAT_##c:                                                           \
        return g->lat_##c;
        WC_LATCLASSES(X)
#undef X
    default:
        return -1;
    }
}

long wc_gpu_ii(const wc_gpu *g, int latclass)
{
    switch (latclass) {
#define X(c)                                                                   \
    case WC_LAT_##c:                                                           \
        return g->ii_##c;
        WC_LATCLASSES(X)
#undef X
    default:
        return -1;
    }
}

/* ------------------------------------------------------------------------ */
/* Bundled configs                                                           */
/* ------------------------------------------------------------------------ */

const char *wc_gpu_for_binary(int binary_version)
{
    switch (binary_version) {
    case 13: return "gt200";      /* sm_13: GT200 (Tesla)                 */
    case 70: return "v100";       /* sm_70: GV100                         */
    case 75: return "rtx-2080ti"; /* sm_75: TU10x                         */
    case 80: return "a100";       /* sm_80: GA100                         */
    case 86: return "rtx-a6000";  /* sm_86: GA10x (seed 000 reference)    */
    case 89: return "rtx-4090";   /* sm_89: AD10x                         */
    case 90: return "h100-pcie";  /* sm_90: GH100                         */
    case 120: return "rtx-5070ti"; /* sm_120: GB20x (consumer Blackwell)  */
    default: return NULL;         /* sm_100 (B200) etc.: no bundled match */
    }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t wc_gpu_list(char ***names)
{
    if (!names)
        return 0;
    *names = NULL;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/gpus", wc_data_dir());
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    char **v = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        const char *s = e->d_name;
        size_t l = strlen(s);
        if (l <= 4 || strcmp(s + l - 4, ".cfg") != 0)
            continue;
        if (s[0] == '_' || s[0] == '.' || strncmp(s, "core-", 5) == 0 ||
            strncmp(s, "mem-", 4) == 0)
            continue; /* include-only fragments */
        char **nv = realloc(v, (n + 1) * sizeof *v);
        if (!nv)
            break;
        v = nv;
        v[n] = malloc(l - 3);
        if (!v[n])
            break;
        memcpy(v[n], s, l - 4);
        v[n][l - 4] = '\0';
        n++;
    }
    closedir(dp);
    if (n)
        qsort(v, n, sizeof *v, cmp_names);
    *names = v;
    return n;
}

void wc_free_names(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ------------------------------------------------------------------------ */
/* Key reference                                                             */
/* ------------------------------------------------------------------------ */

int wc_keys_markdown(char **out)
{
    if (!out)
        return WC_EUSAGE;
    *out = NULL;
    size_t cap = 256 + NKEYS * 256, off = 0;
    char *s = malloc(cap);
    if (!s)
        return WC_EINTERNAL;
    off += (size_t)snprintf(s, cap,
                            "| key | type | default | bounds | unit | meaning |\n"
                            "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < NKEYS; i++) {
        const wc_key_desc *k = &keys_[i];
        char def[48], lo[32], hi[32], bounds[72];
        if (k->type == WC_KT_STR) {
            snprintf(def, sizeof def, "\"%s\"", k->sdef);
            snprintf(bounds, sizeof bounds, "-");
        } else {
            fmt_bound(k->def, def, sizeof def);
            fmt_bound(k->lo, lo, sizeof lo);
            fmt_bound(k->hi, hi, sizeof hi);
            snprintf(bounds, sizeof bounds, "%s .. %s", lo, hi);
        }
        const char *ty = k->type == WC_KT_INT    ? "int"
                         : k->type == WC_KT_REAL ? "real"
                                                 : "string";
        for (;;) {
            int w = snprintf(s + off, cap - off,
                             "| `%s` | %s | %s | %s | %s | %s |\n", k->name,
                             ty, def, bounds, k->unit, k->help);
            if (w < 0) {
                free(s);
                return WC_EINTERNAL;
            }
            if ((size_t)w < cap - off) {
                off += (size_t)w;
                break;
            }
            char *ns = realloc(s, cap * 2);
            if (!ns) {
                free(s);
                return WC_EINTERNAL;
            }
            s = ns;
            cap *= 2;
        }
    }
    *out = s;
    return WC_OK;
}
