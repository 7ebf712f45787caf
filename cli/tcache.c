/*
 * cli/tcache.c - opening a trace through the converted-trace cache
 * (common/trace_cache.c): a text trace is converted once to the binary
 * form, and later runs read that.  Results are identical either way; only
 * the host time changes (docs/user-guide.md, "Trace cache").
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Text traces smaller than this are read as they are: they parse in a
 * few milliseconds, less than making and finding an entry. */
#define TCACHE_MIN_BYTES (256u * 1024u)

/* The cache files this process read in place of the traces named on its
 * command line (cli_tcache_name): a message about a kernel of the binary
 * form (line 0: not about its bytes) names the trace the user gave, not a
 * file in the cache (`predict --gpu v100 --set max_warps_per_sm=1 T`
 * said "~/.cache/warpcast/traces/668c....wctb: error: kernel cannot run
 * on v100", and "T/kernel-1.traceg: error: ..." with --no-trace-cache). */
#define ALIASES 16
static struct {
    char from[WC_TCACHE_PATH_MAX];
    char to[1024];
} alias_[ALIASES];
static unsigned nalias_;
static pthread_mutex_t alias_mu_ = PTHREAD_MUTEX_INITIALIZER;

static void alias_add(const char *from, const char *to)
{
    pthread_mutex_lock(&alias_mu_);
    unsigned i = nalias_ % ALIASES;
    snprintf(alias_[i].from, sizeof alias_[i].from, "%s", from);
    snprintf(alias_[i].to, sizeof alias_[i].to, "%s", to);
    nalias_++;
    pthread_mutex_unlock(&alias_mu_);
}

void cli_tcache_name(wc_diag *d)
{
    if (!d || d->line != 0 || !d->file[0])
        return;
    pthread_mutex_lock(&alias_mu_);
    unsigned n = nalias_ < ALIASES ? nalias_ : ALIASES;
    for (unsigned i = 0; i < n; i++)
        if (strcmp(d->file, alias_[i].from) == 0) {
            snprintf(d->file, sizeof d->file, "%s", alias_[i].to);
            break;
        }
    pthread_mutex_unlock(&alias_mu_);
}

static void note_fail(const cli_common *c, const char *what, const wc_diag *d)
{
    if (c->quiet)
        return;
    char buf[2300];
    wc_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "warpcast: trace cache: %s: %s (reading the text trace)\n",
            what, buf);
}

/* The text's warnings, as the converting run printed them. */
static void print_warn(const cli_common *c, const char *w)
{
    while (w && *w && !c->quiet) {
        size_t n = strcspn(w, "\n");
        fprintf(stderr, "warning: %.*s\n", (int)n, w);
        w += n + (w[n] == '\n');
    }
}

int cli_open_trace(const cli_common *c, const char *path, int flags,
                   wc_trace **out, wc_diag *d)
{
    char dir[WC_TCACHE_PATH_MAX - 64];
    wc_tcache_entry e;
    int have = (flags & CLI_TCACHE) && wc_tcache_dir(dir, sizeof dir) == 0 &&
               wc_tcache_lookup(path, dir, &e) == 0;
    if (have && e.bytes < TCACHE_MIN_BYTES) {
        wc_tcache_entry_free(&e);
        have = 0;
    }
    wc_trace *b = NULL;
    wc_diag bd;
    memset(&bd, 0, sizeof bd);
    /* A hit is found before the text is opened (the entry's key is made
     * from the files' paths, sizes and times, not from what they hold):
     * opening the text only to close it again cost a zstd-compressed
     * header's decoder and the SASS listing's parse on every run
     * (strided2 1024 x 256 on the H100 SXM: 18 M of 634 M host
     * instructions in detailed mode; callgrind). */
    if (have && e.hit) {
        if (wc_trace_open(e.path, &b, &bd) == 0 && wc_trace_is_binary(b)) {
            *out = b;
            alias_add(e.path, path);
            print_warn(c, e.warn);
            wc_tcache_entry_free(&e);
            return 0;
        }
        wc_trace_close(b);
        b = NULL;
        wc_tcache_drop(&e); /* will not open (older format?): made again */
    }
    int rc = wc_trace_open(path, out, d);
    if (rc || !have || wc_trace_is_binary(*out)) {
        if (have)
            wc_tcache_entry_free(&e);
        return rc;
    }
    wc_convert_stats st;
    double t0 = wc_now();
    if (!(flags & CLI_TCACHE_NO_TICKER))
        cli_ticker_start(c, "converting to the binary form", NULL, NULL);
    rc = wc_tcache_store(*out, dir, &e, wc_tcache_max_bytes(), &st, &bd);
    if (!(flags & CLI_TCACHE_NO_TICKER))
        cli_ticker_stop();
    if (rc) {
        /* Read the text as if there were no cache, from a fresh open: a
         * fault of the trace itself (a bad line, maybe in a kernel this
         * run does not select) is then reported, or not, exactly as
         * without the cache; a fault of the cache is noted. */
        if (strncmp(bd.file, dir, strlen(dir)) == 0 || !bd.file[0])
            note_fail(c, "cannot convert", &bd);
        wc_tcache_entry_free(&e);
        wc_trace_close(*out);
        *out = NULL;
        return wc_trace_open(path, out, d);
    }
    /* the text was read through: its warnings are all known now, and the
     * binary form does not repeat them (unknown opcodes it does: the
     * command reports those from it) */
    cli_warn_trace(c, *out);
    if (wc_trace_open(e.path, &b, &bd) != 0) {
        note_fail(c, "cannot read the converted trace", &bd);
        wc_tcache_drop(&e);
        wc_tcache_entry_free(&e);
        return 0;
    }
    if (!c->quiet)
        fprintf(stderr,
                "warpcast: %s converted once to the binary form (%.1f s, "
                "%.2f bytes per warp instruction) in %s; later runs read "
                "it (WARPCAST_TRACE_CACHE=off or --no-trace-cache: never)\n",
                path, wc_now() - t0,
                st.insts ? (double)st.out_bytes / (double)st.insts : 0.0,
                dir);
    wc_trace_close(*out);
    *out = b;
    alias_add(e.path, path);
    wc_tcache_entry_free(&e);
    return 0;
}

/* For calibrate's evaluation threads: one at a time through the cache (a
 * trace is converted once, the others then find it), no ticker of its
 * own (calibrate's is running). */
static pthread_mutex_t cal_mu = PTHREAD_MUTEX_INITIALIZER;

int cli_open_trace_cal(void *ctx, const char *path, wc_trace **out,
                       wc_diag *d)
{
    pthread_mutex_lock(&cal_mu);
    int rc = cli_open_trace(ctx, path, CLI_TCACHE | CLI_TCACHE_NO_TICKER, out,
                            d);
    pthread_mutex_unlock(&cal_mu);
    return rc;
}
