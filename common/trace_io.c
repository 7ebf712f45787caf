/*
 * common/trace_io.c - byte sources of the trace readers: plain files and
 * zstd-compressed files (libzstd streaming API).
 *
 * A zstd trace is decompressed once, streaming, into an unlinked temporary
 * file ($TMPDIR or /tmp), which is then read with pread() like a plain
 * file: memory stays bounded by a few buffers whatever the trace size.
 * Headers are read from a decompressed prefix without touching the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "trace_int.h"

int wct_sniff(const char *path)
{
    unsigned char m[6] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, m, sizeof m);
    close(fd);
    if (n < 0)
        return -1;
    if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        return WCT_ZSTD;
    if (n >= 6 && m[0] == 0xfd && memcmp(m + 1, "7zXZ", 4) == 0 && m[5] == 0)
        return WCT_XZ;
    return WCT_PLAIN;
}

static int sys_err(wc_diag *d, int code, const char *path, const char *what)
{
    return wc_diag_set(d, code, path, 0, 0, "%s: %s", what, strerror(errno));
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Sink for decompressed bytes: a growing memory prefix or a file. */
typedef struct sink {
    int fd;      /* >= 0: write here                  */
    char *mem;   /* else append here, up to max bytes */
    size_t len, max;
    uint64_t total;
} sink;

static int sink_put(sink *s, const void *p, size_t n)
{
    s->total += n;
    if (s->fd >= 0)
        return write_all(s->fd, p, n);
    size_t room = s->max - s->len;
    if (n > room)
        n = room;
    memcpy(s->mem + s->len, p, n);
    s->len += n;
    return 0;
}

/*
 * Decompress the zstd file at path into s.  Stops early (returns 0 with
 * *complete = 0) once a memory sink is full.  Truncated or corrupt input is
 * WC_EINPUT naming the file.
 */
static int unzstd(const char *path, sink *s, int *complete, wc_diag *d)
{
    int rc = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return sys_err(d, WC_EINPUT, path, "cannot open");
    ZSTD_DStream *ds = ZSTD_createDStream();
    size_t insz = ZSTD_DStreamInSize(), outsz = ZSTD_DStreamOutSize();
    char *in = malloc(insz), *out = malloc(outsz);
    if (!ds || !in || !out) {
        rc = wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "out of memory");
        goto done;
    }
    ZSTD_initDStream(ds);
    size_t last = 1; /* 0 once a frame is complete and fully flushed */
    int any = 0;
    *complete = 0;
    for (;;) {
        ssize_t r = read(fd, in, insz);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = sys_err(d, WC_EINPUT, path, "read error");
            goto done;
        }
        if (r == 0)
            break;
        any = 1;
        ZSTD_inBuffer ib = {in, (size_t)r, 0};
        int full = 0;
        while (ib.pos < ib.size || full) {
            ZSTD_outBuffer ob = {out, outsz, 0};
            size_t ret = ZSTD_decompressStream(ds, &ob, &ib);
            if (ZSTD_isError(ret)) {
                rc = wc_diag_set(d, WC_EINPUT, path, 0, 0,
                                 "corrupt zstd data: %s",
                                 ZSTD_getErrorName(ret));
                goto done;
            }
            if (sink_put(s, out, ob.pos) != 0) {
                rc = sys_err(d, WC_EINTERNAL, path,
                             "cannot write the decompressed trace");
                goto done;
            }
            if (s->fd < 0 && s->len == s->max)
                goto done; /* prefix is enough */
            full = ob.pos == ob.size;
            last = ret;
        }
    }
    if (!any)
        rc = wc_diag_set(d, WC_EINPUT, path, 0, 0,
                         "empty file (not a zstd stream)");
    else if (last != 0)
        rc = wc_diag_set(d, WC_EINPUT, path, 0, 0,
                         "truncated zstd stream (file ends inside a frame)");
    else
        *complete = 1;
done:
    ZSTD_freeDStream(ds);
    free(in);
    free(out);
    close(fd);
    return rc;
}

int wct_head(const char *path, int kind, size_t max, char **buf, size_t *len,
             int *whole, wc_diag *d)
{
    char *mem = malloc(max + 1);
    if (!mem)
        return wc_diag_set(d, WC_EINTERNAL, path, 0, 0, "out of memory");
    *whole = 0;
    if (kind == WCT_ZSTD) {
        sink s = {-1, mem, 0, max, 0};
        int complete = 0;
        int rc = unzstd(path, &s, &complete, d);
        if (rc != 0) {
            free(mem);
            return rc;
        }
        *len = s.len;
        *whole = complete;
    } else {
        int fd = open(path, O_RDONLY);
        if (fd < 0) {
            free(mem);
            return sys_err(d, WC_EINPUT, path, "cannot open");
        }
        size_t got = 0;
        while (got < max) {
            ssize_t r = pread(fd, mem + got, max - got, (off_t)got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                int e = errno;
                close(fd);
                free(mem);
                errno = e;
                return sys_err(d, WC_EINPUT, path, "read error");
            }
            if (r == 0) {
                *whole = 1;
                break;
            }
            got += (size_t)r;
        }
        close(fd);
        *len = got;
    }
    mem[*len] = '\0';
    *buf = mem;
    return 0;
}

/* An unlinked temporary file in $TMPDIR or /tmp. */
static int temp_fd(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char tmpl[4096];
    size_t n = strlen(dir);
    if (n + 32 > sizeof tmpl)
        return -1;
    memcpy(tmpl, dir, n);
    memcpy(tmpl + n, "/warpcast-trace-XXXXXX", sizeof "/warpcast-trace-XXXXXX");
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        unlink(tmpl);
    return fd;
}

int wct_open(const char *path, int kind, int *fd, uint64_t *size, wc_diag *d)
{
    if (kind != WCT_ZSTD) {
        struct stat st;
        int f = open(path, O_RDONLY);
        if (f < 0)
            return sys_err(d, WC_EINPUT, path, "cannot open");
        if (fstat(f, &st) != 0) {
            close(f);
            return sys_err(d, WC_EINPUT, path, "cannot stat");
        }
        *fd = f;
        *size = (uint64_t)st.st_size;
        return 0;
    }
    int t = temp_fd();
    if (t < 0)
        return sys_err(d, WC_EINTERNAL, path,
                       "cannot create a temporary file to decompress into");
    sink s = {t, NULL, 0, 0, 0};
    int complete = 0;
    int rc = unzstd(path, &s, &complete, d);
    if (rc != 0) {
        close(t);
        return rc;
    }
    *fd = t;
    *size = s.total;
    return 0;
}
