/*
 * cli/ticker.c - progress on stderr for commands whose work is one library
 * call with no progress callback of its own (ubench, calibrate): a thread
 * that, once the call has run for a second, rewrites one status line
 * ("LABEL ... N UNIT, T s") four times a second until it is stopped, then
 * clears it.  Only when cli_progress_ok() (stderr a terminal, no --quiet), so
 * pipes, files and tests see nothing.  WARPCAST_PROGRESS_AFTER (seconds,
 * default 1) moves the first line earlier or later: the tests that check the
 * line on a terminal set it to 0 instead of relying on a call that happens
 * to last over a second.
 */
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

struct cli_ticker {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, printed;
    char label[256];
    const char *unit;
    atomic_ulong *count;
    double t0;
};

static struct cli_ticker the_ticker;
static int ticker_on;

static double progress_after(void)
{
    const char *v = getenv("WARPCAST_PROGRESS_AFTER");
    if (!v || !*v)
        return 1.0;
    char *end;
    double a = strtod(v, &end);
    return *end == '\0' && a >= 0 && a <= 3600 ? a : 1.0;
}

static void *ticker_main(void *arg)
{
    struct cli_ticker *t = arg;
    double after = progress_after();
    long step_ns = after < 0.25 ? 50000000L : 250000000L;
    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += step_ns;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        int rc = pthread_cond_timedwait(&t->cv, &t->mu, &ts);
        if (t->stop)
            break;
        if (rc != ETIMEDOUT && rc != 0)
            break;
        double el = wc_now() - t->t0;
        if (el < after)
            continue;
        if (t->count)
            fprintf(stderr, "\r%s ... %lu %s, %.1f s   ", t->label,
                    atomic_load(t->count), t->unit ? t->unit : "", el);
        else
            fprintf(stderr, "\r%s ... %.1f s   ", t->label, el);
        fflush(stderr);
        t->printed = 1;
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

void cli_ticker_start(const cli_common *c, const char *label,
                      atomic_ulong *count, const char *unit)
{
    if (ticker_on || !cli_progress_ok(c))
        return;
    struct cli_ticker *t = &the_ticker;
    memset(t, 0, sizeof *t);
    snprintf(t->label, sizeof t->label, "%s", label);
    t->count = count;
    t->unit = unit;
    t->t0 = wc_now();
    if (pthread_mutex_init(&t->mu, NULL) != 0)
        return;
    if (pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        return;
    }
    if (pthread_create(&t->th, NULL, ticker_main, t) != 0) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        return; /* no progress, the work goes on */
    }
    ticker_on = 1;
}

void cli_ticker_stop(void)
{
    if (!ticker_on)
        return;
    struct cli_ticker *t = &the_ticker;
    pthread_mutex_lock(&t->mu);
    t->stop = 1;
    pthread_cond_signal(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->th, NULL);
    if (t->printed) {
        size_t n = strlen(t->label) + 40;
        fprintf(stderr, "\r%*s\r", (int)n, "");
        fflush(stderr);
    }
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    ticker_on = 0;
}
