/*
 * common/diag.c - diagnostics: fill a wc_diag and format it as
 * "FILE:LINE:COL: error: MSG".  Never prints.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wc.h"

int wc_diag_set(wc_diag *d, int code, const char *file, long line, long col,
                const char *fmt, ...)
{
    if (!d)
        return code;
    d->code = code;
    d->file[0] = '\0';
    if (file)
        snprintf(d->file, sizeof d->file, "%s", file);
    d->line = line > 0 ? line : 0;
    d->col = col > 0 ? col : 0;
    d->msg[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void wc_diag_format(const wc_diag *d, char *buf, size_t n)
{
    if (!buf || n == 0)
        return;
    buf[0] = '\0';
    if (!d)
        return;
    size_t off = 0;
    int w;
    if (d->file[0]) {
        if (d->line > 0 && d->col > 0)
            w = snprintf(buf, n, "%s:%ld:%ld: ", d->file, d->line, d->col);
        else if (d->line > 0)
            w = snprintf(buf, n, "%s:%ld: ", d->file, d->line);
        else
            w = snprintf(buf, n, "%s: ", d->file);
        if (w < 0)
            return;
        off = (size_t)w < n ? (size_t)w : n - 1;
    }
    snprintf(buf + off, n - off, "error: %s", d->msg);
}
