/*
 * tests/unit/synth_fixture.h - the set-up several unit tests share: a
 * synthetic trace written into a fresh temporary directory, optionally with
 * a GPU config loaded and the trace opened, and the clean-up that removes
 * it again.  Header-only, like check.h (static inline: a test that uses
 * part of it does not warn about the rest).
 *
 *     synth_fixture fx;
 *     wc_synth_params sp;
 *     wc_synth_defaults(&sp, "mixed");
 *     sp.ctas = 6;
 *     if (synth_fixture_open(&fx, "tl", &sp, "a100", 1) != 0) {
 *         CHECK(0);
 *         return;
 *     }
 *     ... fx.dir, fx.g, fx.t, fx.d ...
 *     synth_fixture_close(&fx);
 */
#ifndef WC_SYNTH_FIXTURE_H
#define WC_SYNTH_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wc.h"
#include "wc_synth.h"

typedef struct synth_fixture {
    char dir[64];  /* /tmp/wc-PREFIX-XXXXXX, holding the trace */
    wc_gpu g;      /* loaded when a GPU was named */
    wc_trace *t;   /* open when asked for, else NULL */
    wc_diag d;     /* the set-up's diagnostic; free for the test's use */
} synth_fixture;

/* Removes DIR and the files directly in it (what the generators write). */
static inline void fixture_rm_tree(const char *dir)
{
    DIR *dp = opendir(dir);
    if (dp) {
        struct dirent *e;
        char p[1024];
        while ((e = readdir(dp)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
        closedir(dp);
    }
    rmdir(dir);
}

/* D's message on stderr. */
static inline void fixture_show(const wc_diag *d)
{
    char buf[2048];
    wc_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}

/* Writes SP's trace into a fresh /tmp/wc-PREFIX-XXXXXX, then loads GPU
 * (unless NULL) and opens the trace (when OPEN_TRACE).  0, or -1 with the
 * reason on stderr and nothing left behind. */
static inline int synth_fixture_open(synth_fixture *fx, const char *prefix,
                                     const wc_synth_params *sp,
                                     const char *gpu, int open_trace)
{
    memset(fx, 0, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/wc-%.16s-XXXXXX", prefix);
    if (!mkdtemp(fx->dir)) {
        fprintf(stderr, "mkdtemp %s failed\n", fx->dir);
        fx->dir[0] = '\0';
        return -1;
    }
    if (wc_synth_write(sp, fx->dir, &fx->d) != 0 ||
        (gpu && wc_gpu_load(gpu, &fx->g, &fx->d) != 0) ||
        (open_trace && wc_trace_open(fx->dir, &fx->t, &fx->d) != 0)) {
        fixture_show(&fx->d);
        fixture_rm_tree(fx->dir);
        fx->dir[0] = '\0';
        return -1;
    }
    return 0;
}

/* Closes the trace and removes the directory. */
static inline void synth_fixture_close(synth_fixture *fx)
{
    if (fx->t)
        wc_trace_close(fx->t);
    fx->t = NULL;
    if (fx->dir[0])
        fixture_rm_tree(fx->dir);
    fx->dir[0] = '\0';
}

#endif
