/*
 * common/json.c - the one JSON writer (common/wc_json.h).
 */
#include <math.h>
#include <string.h>

#include "wc_json.h"

void wc_json_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *run = p;
    fputc('"', f);
    for (; *p; p++) {
        if (*p >= 0x20 && *p != '"' && *p != '\\')
            continue; /* written in runs */
        if (p > run)
            fwrite(run, 1, (size_t)(p - run), f);
        run = p + 1;
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    if (p > run)
        fwrite(run, 1, (size_t)(p - run), f);
    fputc('"', f);
}

static void sep(wc_json *j, const char *key)
{
    if (j->depth > 0) {
        if (!j->first[j->depth])
            fputc(',', j->f);
        if (j->ws) {
            fputs(j->ws, j->f);
        } else if (j->pretty) {
            fputc('\n', j->f);
            for (int i = 0; i < j->depth; i++)
                fputs("  ", j->f);
        } else if (!j->first[j->depth]) {
            fputc(' ', j->f);
        }
        j->first[j->depth] = 0;
    }
    j->ws = NULL;
    if (key) {
        wc_json_string(j->f, key);
        fputs(": ", j->f);
    }
}

void wc_json_begin(wc_json *j, FILE *f, int pretty)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->pretty = pretty;
}

void wc_json_ws(wc_json *j, const char *ws) { j->ws = ws; }

static void open_(wc_json *j, const char *key, char c)
{
    sep(j, key);
    fputc(c, j->f);
    if (j->depth < 63)
        j->depth++;
    j->first[j->depth] = 1;
}

static void close_(wc_json *j, char c)
{
    int empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (j->pretty && !empty) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
}

void wc_json_obj(wc_json *j, const char *key) { open_(j, key, '{'); }
void wc_json_obj_end(wc_json *j) { close_(j, '}'); }
void wc_json_arr(wc_json *j, const char *key) { open_(j, key, '['); }
void wc_json_arr_end(wc_json *j) { close_(j, ']'); }

void wc_json_str(wc_json *j, const char *key, const char *v)
{
    sep(j, key);
    wc_json_string(j->f, v);
}

void wc_json_int(wc_json *j, const char *key, long long v)
{
    sep(j, key);
    fprintf(j->f, "%lld", v);
}

void wc_json_uint(wc_json *j, const char *key, unsigned long long v)
{
    sep(j, key);
    fprintf(j->f, "%llu", v);
}

void wc_json_num(wc_json *j, const char *key, double v)
{
    sep(j, key);
    if (!isfinite(v))
        fputs("null", j->f);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(j->f, "%.0f", v);
    else
        fprintf(j->f, "%.6g", v);
}

void wc_json_real(wc_json *j, const char *key, double v, int digits)
{
    sep(j, key);
    if (!isfinite(v))
        fputs("null", j->f);
    else
        fprintf(j->f, "%.*g", digits, v);
}

void wc_json_bool(wc_json *j, const char *key, int v)
{
    sep(j, key);
    fputs(v ? "true" : "false", j->f);
}

void wc_json_null(wc_json *j, const char *key)
{
    sep(j, key);
    fputs("null", j->f);
}

void wc_json_end(wc_json *j) { fputc('\n', j->f); }
