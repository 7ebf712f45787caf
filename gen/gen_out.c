/*
 * gen/gen_out.c - the trace writers' output sink: buffered file (plain or
 * zstd) or growable memory text.  See gen_out.h.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* libzstd is required (common/trace_bin.c needs it too): no silent
 * fallback, which left an object built before `make deps` without zstd
 * output after the header arrived (make does not rebuild it) */
#include <zstd.h>
#define GO_HAVE_ZSTD 1

#include "gen_out.h"

int gen_out_have_zstd(void)
{
#ifdef GO_HAVE_ZSTD
    return 1;
#else
    return 0;
#endif
}

static int go_flush(gen_out *o, int end)
{
#ifdef GO_HAVE_ZSTD
    if (o->zstd) {
        ZSTD_inBuffer in = {o->buf, o->n, 0};
        for (;;) {
            ZSTD_outBuffer out = {o->zbuf, o->zcap, 0};
            size_t rem = ZSTD_compressStream2(
                o->cctx, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
            if (ZSTD_isError(rem))
                return o->err = -1;
            if (out.pos && fwrite(o->zbuf, 1, out.pos, o->f) != out.pos)
                return o->err = -1;
            if (end ? rem == 0 : in.pos == in.size)
                break;
        }
        o->n = 0;
        return 0;
    }
#endif
    (void)end;
    if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
        o->err = -1;
    o->n = 0;
    return o->err;
}

int gen_out_flush(gen_out *o)
{
    if (o->err || !o->f)
        return o->err;
    return go_flush(o, 0);
}

void gen_out_write(gen_out *o, const char *s, size_t n)
{
    if (o->err)
        return;
    if (!o->f && o->n + n > o->cap) { /* memory sink: grow */
        size_t nc = o->cap ? o->cap : 4096;
        while (nc < o->n + n)
            nc *= 2;
        char *nb = realloc(o->buf, nc);
        if (!nb) {
            o->err = -1;
            return;
        }
        o->buf = nb;
        o->cap = nc;
    }
    if (o->n + n > o->cap) {
        go_flush(o, 0);
        if (n > o->cap) {
            if (!o->zstd) {
                if (fwrite(s, 1, n, o->f) != n)
                    o->err = -1;
                return;
            }
            while (n > 0 && !o->err) {
                size_t c = n < o->cap ? n : o->cap;
                memcpy(o->buf, s, c);
                o->n = c;
                go_flush(o, 0);
                s += c;
                n -= c;
            }
            return;
        }
    }
    memcpy(o->buf + o->n, s, n);
    o->n += n;
}

void gen_out_printf(gen_out *o, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        gen_out_write(o, tmp, (size_t)n);
        return;
    }
    /* longer than the stack buffer (a long kernel name): format again */
    char *big = malloc((size_t)n + 1);
    if (!big) {
        o->err = -1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    gen_out_write(o, big, (size_t)n);
    free(big);
}

int gen_out_open(gen_out *o, const char *path, int zstd)
{
    memset(o, 0, sizeof *o);
    o->cap = 1u << 20;
    o->buf = malloc(o->cap);
    if (!o->buf)
        return o->err = -1;
    o->f = fopen(path, "wb");
    if (!o->f)
        return o->err = -1;
#ifdef GO_HAVE_ZSTD
    if (zstd) {
        o->zstd = 1;
        o->cctx = ZSTD_createCCtx();
        o->zcap = ZSTD_CStreamOutSize();
        o->zbuf = malloc(o->zcap);
        if (!o->cctx || !o->zbuf)
            o->err = -1;
        else {
            ZSTD_CCtx_setParameter(o->cctx, ZSTD_c_compressionLevel, 3);
            /* a checksum, as the zstd tool writes: a flipped byte is an
             * error of the file, not other results */
            ZSTD_CCtx_setParameter(o->cctx, ZSTD_c_checksumFlag, 1);
        }
    }
#else
    (void)zstd;
#endif
    return o->err;
}

int gen_out_room(gen_out *o, unsigned long long done, unsigned long long total,
                 double *need, double *avail)
{
    *need = *avail = 0;
    if (!o->f || o->err || done == 0 || done >= total)
        return 0;
    off_t pos = ftello(o->f);
    struct statvfs sv;
    if (pos < 0 || fstatvfs(fileno(o->f), &sv) != 0)
        return 0;
    double have = (double)pos + (double)o->n;
    *need = have * (double)total / (double)done;
    *avail = have + (double)sv.f_bavail * (double)sv.f_frsize;
    return *need > *avail;
}

int gen_out_room_due(const gen_out *o, unsigned long long done)
{
    if (done < (o->zstd ? 256u : 16u))
        return 0;
    return done % 1024 == 0 || (done < 1024 && !(done & (done - 1)));
}

int gen_out_close(gen_out *o)
{
    int err = o->err;
    if (o->f) {
        if (!err)
            err = go_flush(o, 1);
        if (fclose(o->f) != 0)
            err = -1;
    }
#ifdef GO_HAVE_ZSTD
    ZSTD_freeCCtx(o->cctx);
#endif
    free(o->zbuf);
    free(o->buf);
    memset(o, 0, sizeof *o);
    return err;
}
