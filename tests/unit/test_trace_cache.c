/*
 * tests/unit/test_trace_cache.c - the converted-trace cache
 * (common/trace_cache.c): where it lives, what finds an entry again and
 * what does not (a touched file, a rewrite of the same size and time, a
 * foreign key), that an entry reads the same records as the text, and the
 * size limit (least recently used first).  The CLI's use of it (first run
 * converts, later runs identical) is in tests/study/run.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "synth_fixture.h"

static int count_wctb(const char *dir)
{
    DIR *dp = opendir(dir);
    int n = 0;
    if (!dp)
        return -1;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        size_t l = strlen(e->d_name);
        n += l > 5 && !strcmp(e->d_name + l - 5, ".wctb");
    }
    closedir(dp);
    return n;
}

/* Every instruction of every CTA of kernel 0, hashed (pc, op, mask,
 * first lane's address): the records a model reads. */
static uint64_t records_hash(const char *path)
{
    wc_trace *t = NULL;
    wc_diag d;
    wc_kreader *r = NULL;
    uint64_t h = 1469598103934665603ull;
    if (wc_trace_open(path, &t, &d) || wc_kreader_open(t, 0, &r, &d)) {
        fixture_show(&d);
        wc_trace_close(t);
        return 0;
    }
    wc_cta *c;
    while (wc_kreader_next(r, &c, &d) == 0 && c) {
        for (unsigned w = 0; w < wc_cta_nwarps(c); w++) {
            wc_inst in;
            while (wc_cta_next(c, w, &in, &d) == 1) {
                uint64_t v[4] = {in.pc, in.op, in.mask,
                                 in.width ? in.addr[0] : 0};
                for (int i = 0; i < 4; i++)
                    h = (h ^ v[i]) * 1099511628211ull;
            }
        }
        wc_cta_free(c);
    }
    wc_kreader_close(r);
    wc_trace_close(t);
    return h;
}

static void set_env(const char *k, const char *v)
{
    if (v)
        setenv(k, v, 1);
    else
        unsetenv(k);
}

static void test_dir(void)
{
    char p[512];
    set_env("WARPCAST_TRACE_CACHE", "off");
    CHECK(wc_tcache_dir(p, sizeof p) != 0);
    set_env("WARPCAST_TRACE_CACHE", "/x/y");
    CHECK(wc_tcache_dir(p, sizeof p) == 0 && !strcmp(p, "/x/y"));
    set_env("WARPCAST_TRACE_CACHE", NULL);
    set_env("XDG_CACHE_HOME", "/xdg");
    CHECK(wc_tcache_dir(p, sizeof p) == 0 &&
          !strcmp(p, "/xdg/warpcast/traces"));
    set_env("XDG_CACHE_HOME", NULL);
    set_env("HOME", "/home/u");
    CHECK(wc_tcache_dir(p, sizeof p) == 0 &&
          !strcmp(p, "/home/u/.cache/warpcast/traces"));
    set_env("WARPCAST_TRACE_CACHE_MAX_MB", "3");
    CHECK(wc_tcache_max_bytes() == 3u << 20);
    set_env("WARPCAST_TRACE_CACHE_MAX_MB", "junk");
    CHECK(wc_tcache_max_bytes() == (uint64_t)4 << 30);
    set_env("WARPCAST_TRACE_CACHE_MAX_MB", NULL);
}

static int lookup(const char *trace, const char *cdir, wc_tcache_entry *e)
{
    int rc = wc_tcache_lookup(trace, cdir, e);
    CHECK(rc == 0);
    return rc == 0 && e->hit;
}

static int store(const char *trace, const char *cdir, wc_tcache_entry *e,
                 uint64_t max)
{
    wc_trace *t = NULL;
    wc_diag d;
    wc_convert_stats st;
    int rc = wc_trace_open(trace, &t, &d) ||
             wc_tcache_store(t, cdir, e, max, &st, &d);
    if (rc)
        fixture_show(&d);
    wc_trace_close(t);
    return rc;
}

static void test_entries(void)
{
    synth_fixture a, b;
    wc_synth_params sp;
    wc_synth_defaults(&sp, "memory");
    sp.ctas = 64;
    if (synth_fixture_open(&a, "tca", &sp, NULL, 0) != 0) {
        CHECK(0);
        return;
    }
    wc_synth_defaults(&sp, "compute");
    sp.ctas = 32;
    if (synth_fixture_open(&b, "tcb", &sp, NULL, 0) != 0) {
        CHECK(0);
        synth_fixture_close(&a);
        return;
    }
    char cdir[128];
    snprintf(cdir, sizeof cdir, "%s/cache/deeper", a.dir); /* made on store */

    wc_tcache_entry e;
    CHECK(!lookup(a.dir, cdir, &e));
    CHECK(e.bytes > 0);
    CHECK(store(a.dir, cdir, &e, (uint64_t)1 << 30) == 0);
    wc_tcache_entry_free(&e);
    CHECK(lookup(a.dir, cdir, &e)); /* found again */
    CHECK(records_hash(e.path) == records_hash(a.dir));
    CHECK(records_hash(e.path) != 0);
    wc_tcache_entry_free(&e);

    /* a byte of the entry flipped (a block the reader meets only mid-run):
     * not found, its key gone, so it is made again; found after that */
    {
        CHECK(lookup(a.dir, cdir, &e));
        int efd = open(e.path, O_RDWR);
        CHECK(efd >= 0);
        unsigned char eb = 0;
        if (efd >= 0) {
            CHECK(pread(efd, &eb, 1, 200) == 1);
            eb ^= 0x10;
            CHECK(pwrite(efd, &eb, 1, 200) == 1);
            close(efd);
        }
        struct stat sk0;
        CHECK(stat(e.keypath, &sk0) == 0);
        wc_tcache_entry_free(&e);
        CHECK(!lookup(a.dir, cdir, &e));
        CHECK(stat(e.keypath, &sk0) != 0);
        CHECK(store(a.dir, cdir, &e, (uint64_t)1 << 30) == 0);
        wc_tcache_entry_free(&e);
        CHECK(lookup(a.dir, cdir, &e));
        CHECK(records_hash(e.path) == records_hash(a.dir));
        wc_tcache_entry_free(&e);
    }

    /* the same trace named another way (a relative or ./ path) */
    char alt[256];
    snprintf(alt, sizeof alt, "%s/./", a.dir);
    CHECK(lookup(alt, cdir, &e));
    wc_tcache_entry_free(&e);

    /* one byte rewritten in place, size and times kept: the content
     * hash of the file's ends tells */
    char kf[256];
    snprintf(kf, sizeof kf, "%s/kernel-1.traceg", a.dir);
    struct stat st0;
    CHECK(stat(kf, &st0) == 0);
    int fd = open(kf, O_RDWR);
    CHECK(fd >= 0);
    char ch = 0;
    if (fd >= 0) {
        CHECK(pread(fd, &ch, 1, 2) == 1);
        char nc = ch == '#' ? '-' : '#';
        CHECK(pwrite(fd, &nc, 1, 2) == 1);
        struct timespec ts[2] = {st0.st_atim, st0.st_mtim};
        CHECK(futimens(fd, ts) == 0);
    }
    CHECK(!lookup(a.dir, cdir, &e));
    wc_tcache_entry_free(&e);
    if (fd >= 0) { /* back as it was: found again */
        CHECK(pwrite(fd, &ch, 1, 2) == 1);
        struct timespec ts[2] = {st0.st_atim, st0.st_mtim};
        CHECK(futimens(fd, ts) == 0);
        close(fd);
    }
    CHECK(lookup(a.dir, cdir, &e));
    wc_tcache_entry_free(&e);

    /* a newer modification time is a new key */
    struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    CHECK(utimensat(AT_FDCWD, kf, now, 0) == 0);
    CHECK(!lookup(a.dir, cdir, &e));
    wc_tcache_entry_free(&e);

    /* an entry whose key file says another trace is not taken */
    CHECK(!lookup(b.dir, cdir, &e));
    CHECK(store(b.dir, cdir, &e, (uint64_t)1 << 30) == 0);
    FILE *f = fopen(e.keypath, "r+");
    CHECK(f != NULL);
    if (f) {
        fputc('X', f);
        fclose(f);
    }
    wc_tcache_entry_free(&e);
    CHECK(!lookup(b.dir, cdir, &e));
    wc_tcache_entry_free(&e);
    CHECK_EQ_INT(count_wctb(cdir), 2);

    /* size limit: storing with a limit of one byte keeps only the new
     * entry */
    CHECK(!lookup(a.dir, cdir, &e)); /* the touched trace */
    CHECK(store(a.dir, cdir, &e, 1) == 0);
    CHECK_EQ_INT(count_wctb(cdir), 1);
    struct stat sk;
    CHECK(stat(e.path, &sk) == 0 && stat(e.keypath, &sk) == 0);
    wc_tcache_entry_free(&e);
    CHECK(lookup(a.dir, cdir, &e));
    wc_tcache_drop(&e);
    wc_tcache_entry_free(&e);
    CHECK_EQ_INT(count_wctb(cdir), 0);

    /* one kernel file named alone is its own entry */
    CHECK(!lookup(kf, cdir, &e));
    CHECK(store(kf, cdir, &e, (uint64_t)1 << 30) == 0);
    wc_tcache_entry_free(&e);
    CHECK(lookup(kf, cdir, &e));
    CHECK(records_hash(e.path) == records_hash(kf));
    wc_tcache_entry_free(&e);

    /* a trace that does not exist is not cached (and no crash) */
    char nope[256];
    snprintf(nope, sizeof nope, "%s/nope", a.dir);
    CHECK(wc_tcache_lookup(nope, cdir, &e) != 0);

    char rm[512];
    snprintf(rm, sizeof rm, "rm -rf '%s/cache'", a.dir);
    CHECK(system(rm) == 0);
    synth_fixture_close(&a);
    synth_fixture_close(&b);
}

int main(void)
{
    test_dir();
    test_entries();
    CHECK_DONE();
}
