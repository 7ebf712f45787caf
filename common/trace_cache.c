/*
 * common/trace_cache.c - the converted-trace cache: the binary form of a
 * text trace, made once and found again by the identity of the files the
 * trace is made of.
 *
 * A text trace is parsed at about 40 bytes and 60-450 ns per warp
 * instruction; its binary form (common/trace_bin.c) is read at a few ns.
 * Users run the same trace many times (what-ifs, modes, seeds), so the
 * CLI converts a text trace once into a cache directory and reads the
 * binary form from then on: the same records, so the same results
 * (tests/unit/test_trace_bin.c, tests/unit/test_trace_cache.c).
 *
 * Key: the trace path made absolute, then for every file the trace can be
 * made of, sorted by name (a directory or kernelslist.g: its kernelslist.g,
 * every .traceg / .traceg.zst and every .sass listing of the directory;
 * one kernel file: that file and the directory's .sass listings): name,
 * size, modification time to the nanosecond, inode, and an FNV-1a hash of
 * its first and last 4 KiB (a rewrite within one clock tick that keeps the
 * size still changes the hash where it changed a header or the end).  The
 * cache file is named by two independent 64-bit hashes of the key, and
 * the key itself is kept beside it (NAME.key) and compared on lookup, so a
 * hash collision cannot hand one trace's records to another.
 *
 * Entries appear only when complete (temporary names, then rename), so
 * two processes converting the same trace at once both end with a good
 * entry.  After a store the directory is trimmed to a size limit, least
 * recently used first (a hit touches its entry).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wc.h"

/* Bytes hashed at each end of a file: a guard behind the size, time and
 * inode (a header and a last CTA), small enough that an application of
 * thousands of kernel files is keyed in milliseconds. */
#define TC_SAMPLE 4096u
#define TC_KEY_MAX (1u << 20)   /* a key longer than this: no caching   */

typedef struct kbuf {
    char *p;
    size_t n, cap;
    int oom;
} kbuf;

static void kb_put(kbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void kb_put(kbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->p ? b->p + b->n : NULL,
                          b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)w < b->cap) {
            b->n += (size_t)w;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->n + (size_t)w + 1)
            nc *= 2;
        if (nc > TC_KEY_MAX) {
            b->oom = 1;
            return;
        }
        char *q = realloc(b->p, nc);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = nc;
    }
}

static int ends(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Identity of one file: stat fields and the hash of both ends. */
static int key_file(kbuf *b, const char *path, const char *name,
                    uint64_t *bytes)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    static const size_t bufn = TC_SAMPLE;
    unsigned char *buf = malloc(bufn);
    if (!buf) {
        close(fd);
        return -1;
    }
    uint64_t h = WC_FNV1A_INIT;
    uint64_t size = (uint64_t)st.st_size;
    uint64_t offs[2] = {0, size > TC_SAMPLE ? size - TC_SAMPLE : 0};
    int rc = 0;
    for (int e = 0; e < (size > TC_SAMPLE ? 2 : 1) && !rc; e++) {
        size_t want = (size_t)(size < TC_SAMPLE ? size : TC_SAMPLE), got = 0;
        while (got < want) {
            ssize_t r = pread(fd, buf + got, want - got,
                              (off_t)(offs[e] + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                rc = -1;
                break;
            }
            got += (size_t)r;
        }
        h = wc_fnv1a(h, buf, got);
    }
    free(buf);
    close(fd);
    if (rc)
        return -1;
    *bytes += size;
    kb_put(b, "%s\t%llu\t%lld.%09ld\t%llu\t%016llx\n", name,
           (unsigned long long)size, (long long)st.st_mtim.tv_sec,
           (long)st.st_mtim.tv_nsec, (unsigned long long)st.st_ino,
           (unsigned long long)h);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Key of the text trace at path into b; -1 when it cannot be made (the
 * trace is then simply not cached). */
static int make_key(kbuf *b, const char *path, uint64_t *bytes)
{
    char abs[PATH_MAX];
    struct stat st;
    if (!realpath(path, abs) || stat(abs, &st) != 0)
        return -1;
    char dir[PATH_MAX]; /* the trace's directory */
    int isdir = S_ISDIR(st.st_mode);
    snprintf(dir, sizeof dir, "%s", abs);
    char *sl = isdir ? NULL : strrchr(dir, '/');
    if (sl == dir)
        dir[1] = '\0'; /* a file in "/" */
    else if (sl)
        *sl = '\0';
    kb_put(b, "warpcast trace cache 1\n%s\n", abs);
    if (!isdir && !ends(abs, ".g") && key_file(b, abs, abs, bytes) != 0)
        return -1;
    DIR *dp = opendir(dir);
    if (!dp)
        return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        const char *nm = e->d_name;
        int listed = !strcmp(nm, "kernelslist.g") || ends(nm, ".traceg") ||
                     ends(nm, ".traceg.zst");
        if (!ends(nm, ".sass") && !(listed && (isdir || ends(abs, ".g"))))
            continue; /* one kernel file: only it (keyed above) */
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            char **q = realloc(names, nc * sizeof *q);
            if (!q) {
                rc = -1;
                break;
            }
            names = q;
            cap = nc;
        }
        if (!(names[n] = strdup(nm))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(dp);
    if (!rc && n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && !rc; i++) {
        char p[PATH_MAX];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, names[i]) >= sizeof p)
            rc = -1;
        else
            rc = key_file(b, p, names[i], bytes);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc || b->oom ? -1 : 0;
}

static int mkdir_p(const char *dir)
{
    char p[PATH_MAX];
    if ((size_t)snprintf(p, sizeof p, "%s", dir) >= sizeof p)
        return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

int wc_tcache_dir(char *out, size_t n)
{
    const char *e = getenv("WARPCAST_TRACE_CACHE");
    if (e && (!strcmp(e, "off") || !strcmp(e, "0") || !*e))
        return -1;
    int w;
    if (e) {
        w = snprintf(out, n, "%s", e);
    } else if ((e = getenv("XDG_CACHE_HOME")) && *e == '/') {
        w = snprintf(out, n, "%s/warpcast/traces", e);
    } else if ((e = getenv("HOME")) && *e) {
        w = snprintf(out, n, "%s/.cache/warpcast/traces", e);
    } else {
        return -1;
    }
    return w > 0 && (size_t)w < n ? 0 : -1;
}

uint64_t wc_tcache_max_bytes(void)
{
    const char *e = getenv("WARPCAST_TRACE_CACHE_MAX_MB");
    if (e && *e) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(e, &end, 10);
        if (!errno && !*end && v > 0 && v < (1ull << 40))
            return (uint64_t)v << 20;
    }
    return (uint64_t)4 << 30; /* 4 GiB */
}

/* The whole of a small file of the entry (wc_read_file, NUL-terminated):
 * 0, or -1 when it is absent, unreadable or not under TC_KEY_MAX bytes. */
static int read_small(const char *path, char **out, size_t *n)
{
    struct stat st;
    wc_diag d;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size >= TC_KEY_MAX ||
        wc_read_file(path, out, n, &d) != 0)
        return -1;
    return 0;
}

/* A hash of the file at path (8 bytes a step) and its size: 0, or -1 when
 * it cannot be read.  An entry's is kept beside it (NAME.wctb.sum) and
 * checked when it is found: a damaged entry (a byte flipped in a block the
 * reader would meet only later, mid-run) is made again, not reported as
 * the trace's error on every run. */
static int file_sum(const char *path, uint64_t *h, uint64_t *size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    enum { CH = 1 << 20 };
    unsigned char *buf = malloc(CH);
    uint64_t x = 0x243F6A8885A308D3ull, n = 0;
    int rc = buf ? 0 : -1;
    for (ssize_t got; rc == 0 && (got = read(fd, buf, CH)) != 0;) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -1;
            break;
        }
        size_t i = 0, g = (size_t)got;
        for (; i + 8 <= g; i += 8) {
            uint64_t w;
            memcpy(&w, buf + i, 8);
            x = (x ^ w) * 0x9E3779B97F4A7C15ull;
            x ^= x >> 29;
        }
        for (; i < g; i++)
            x = (x ^ buf[i]) * 0x100000001B3ull;
        n += g;
    }
    free(buf);
    close(fd);
    *h = x ^ n;
    *size = n;
    return rc;
}

int wc_tcache_lookup(const char *trace, const char *cdir, wc_tcache_entry *e)
{
    memset(e, 0, sizeof *e);
    kbuf b = {NULL, 0, 0, 0};
    if (make_key(&b, trace, &e->bytes) != 0) {
        free(b.p);
        return -1;
    }
    uint64_t h1 = wc_fnv1a(WC_FNV1A_INIT, b.p, b.n);
    uint64_t h2 = wc_fnv1a(0x9e3779b97f4a7c15ull, b.p, b.n);
    h2 = wc_fnv1a(h2, "\x5c", 1);
    int w = snprintf(e->path, sizeof e->path, "%s/%016llx%016llx.wctb", cdir,
                     (unsigned long long)h1, (unsigned long long)h2);
    int w2 = snprintf(e->keypath, sizeof e->keypath, "%s.key", e->path);
    if (w <= 0 || (size_t)w >= sizeof e->path || w2 <= 0 ||
        (size_t)w2 >= sizeof e->keypath) {
        free(b.p);
        return -1;
    }
    e->key = b.p;
    e->keylen = b.n;
    char *k = NULL;
    size_t kn = 0;
    struct stat st;
    if (stat(e->path, &st) == 0 && S_ISREG(st.st_mode) &&
        read_small(e->keypath, &k, &kn) == 0 && kn == b.n &&
        memcmp(k, b.p, kn) == 0) {
        /* its bytes as written (NAME.wctb.sum); an entry without the sum
         * (an older warpcast's) or with another is made again */
        char sp[WC_TCACHE_PATH_MAX + 8], *sv = NULL;
        size_t sn;
        unsigned long long sh = 0, ss = 0;
        uint64_t fh, fs;
        snprintf(sp, sizeof sp, "%s.sum", e->path);
        int good = read_small(sp, &sv, &sn) == 0 &&
                   sscanf(sv, "%16llx %llu", &sh, &ss) == 2 &&
                   file_sum(e->path, &fh, &fs) == 0 && fh == sh && fs == ss;
        free(sv);
        if (good) {
            char wp[WC_TCACHE_PATH_MAX + 8];
            snprintf(wp, sizeof wp, "%s.warn", e->path);
            size_t wn;
            if (read_small(wp, &e->warn, &wn) != 0) /* an older entry */
                e->warn = NULL;
            e->hit = 1;
            utimensat(AT_FDCWD, e->path, NULL, 0); /* recently used */
        } else {
            (void)unlink(e->keypath); /* no longer found; remade */
        }
    }
    free(k);
    return 0;
}

void wc_tcache_entry_free(wc_tcache_entry *e)
{
    free(e->key);
    e->key = NULL;
    free(e->warn);
    e->warn = NULL;
}

/* The files of the entry at path (NAME.wctb): key and warnings first;
 * 0 when the entry itself was removed. */
static int unlink_entry(const char *path)
{
    char p[WC_TCACHE_PATH_MAX + 8];
    snprintf(p, sizeof p, "%s.key", path);
    unlink(p);
    snprintf(p, sizeof p, "%s.warn", path);
    unlink(p);
    snprintf(p, sizeof p, "%s.sum", path);
    unlink(p);
    return unlink(path);
}

void wc_tcache_drop(const wc_tcache_entry *e)
{
    (void)unlink_entry(e->path);
}

typedef struct centry {
    char name[80];
    uint64_t bytes;
    struct timespec used;
} centry;

static int cmp_used(const void *a, const void *b)
{
    const centry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Remove least recently used entries (never keep) until the *.wctb
 * files of cdir hold at most max bytes. */
static void trim(const char *cdir, const char *keep, uint64_t max)
{
    DIR *dp = opendir(cdir);
    if (!dp)
        return;
    centry *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (!ends(de->d_name, ".wctb") || strlen(de->d_name) >= 80)
            continue;
        char p[PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(p, sizeof p, "%s/%s", cdir, de->d_name) >=
                sizeof p ||
            stat(p, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            centry *q = realloc(v, nc * sizeof *q);
            if (!q)
                break;
            v = q;
            cap = nc;
        }
        snprintf(v[n].name, sizeof v[n].name, "%s", de->d_name);
        v[n].bytes = (uint64_t)st.st_size;
        v[n].used = st.st_mtim;
        total += v[n].bytes;
        n++;
    }
    closedir(dp);
    if (total > max && n) {
        qsort(v, n, sizeof *v, cmp_used);
        const char *kb = strrchr(keep, '/');
        kb = kb ? kb + 1 : keep;
        for (size_t i = 0; i < n && total > max; i++) {
            if (!strcmp(v[i].name, kb))
                continue;
            char p[PATH_MAX];
            snprintf(p, sizeof p, "%s/%s", cdir, v[i].name);
            if (unlink_entry(p) == 0)
                total -= v[i].bytes;
        }
    }
    free(v);
}

int wc_tcache_store(wc_trace *t, const char *cdir, const wc_tcache_entry *e,
                    uint64_t max_bytes, wc_convert_stats *st, wc_diag *d)
{
    if (mkdir_p(cdir) != 0)
        return wc_diag_set(d, WC_EINPUT, cdir, 0, 0,
                           "cannot make the trace cache directory: %s",
                           strerror(errno));
    int rc = wc_trace_convert(t, e->path, st, d);
    if (rc)
        return rc;
    /* an entry counts only once its key is there (written last) */
    const char *const *msgs = NULL;
    size_t nw = wc_trace_warnings(t, &msgs);
    char wpath[WC_TCACHE_PATH_MAX + 8];
    snprintf(wpath, sizeof wpath, "%s.warn", e->path);
    char spath[WC_TCACHE_PATH_MAX + 8];
    snprintf(spath, sizeof spath, "%s.sum", e->path);
    uint64_t fh = 0, fs = 0;
    int ok = file_sum(e->path, &fh, &fs) == 0;
    if (!ok) {
        int er = errno;
        (void)unlink_entry(e->path);
        return wc_diag_set(d, WC_EINPUT, e->path, 0, 0,
                           "cannot read the trace cache entry back: %s",
                           strerror(er));
    }
    /* the warnings, the entry's sum, then the key */
    for (int pass = 0; pass < 3 && ok; pass++) {
        const char *dst = pass == 2 ? e->keypath : pass ? spath : wpath;
        char tmp[WC_TCACHE_PATH_MAX + 40];
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", dst, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        ok = f != NULL;
        if (ok && pass == 2)
            ok = fwrite(e->key, 1, e->keylen, f) == e->keylen;
        if (ok && pass == 1)
            ok = fprintf(f, "%016llx %llu\n", (unsigned long long)fh,
                         (unsigned long long)fs) > 0;
        for (size_t i = 0; ok && !pass && i < nw; i++)
            ok = fprintf(f, "%s\n", msgs[i]) >= 0;
        if (f && fclose(f) != 0)
            ok = 0;
        if (!ok || rename(tmp, dst) != 0) {
            int er = errno;
            unlink(tmp);
            (void)unlink_entry(e->path);
            return wc_diag_set(d, WC_EINPUT, dst, 0, 0,
                               "cannot write the trace cache entry: %s",
                               strerror(er));
        }
    }
    trim(cdir, e->path, max_bytes);
    return 0;
}
