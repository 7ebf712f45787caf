/*
 * cli/json.c - a minimal streaming JSON writer for the program's output.
 *
 * Numbers are printed with %.17g-free fixed rules so that output is byte
 * for byte deterministic: integers as integers, reals with up to 6
 * significant decimals (%.6g) unless they are integral.
 */
#include <math.h>
#include <string.h>

#include "cli.h"

void json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
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
    fputc('"', f);
}

static void sep(cli_json *j, const char *key)
{
    if (j->depth > 0) {
        if (!j->first[j->depth])
            fputc(',', j->f);
        if (j->pretty) {
            fputc('\n', j->f);
            for (int i = 0; i < j->depth; i++)
                fputs("  ", j->f);
        } else if (!j->first[j->depth]) {
            fputc(' ', j->f);
        }
        j->first[j->depth] = 0;
    }
    if (key) {
        json_write_string(j->f, key);
        fputs(": ", j->f);
    }
}

void json_begin(cli_json *j, FILE *f, int pretty)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->pretty = pretty;
}

static void open_(cli_json *j, const char *key, char c)
{
    sep(j, key);
    fputc(c, j->f);
    if (j->depth < 63)
        j->depth++;
    j->first[j->depth] = 1;
}

static void close_(cli_json *j, char c)
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

void json_obj(cli_json *j, const char *key) { open_(j, key, '{'); }
void json_obj_end(cli_json *j) { close_(j, '}'); }
void json_arr(cli_json *j, const char *key) { open_(j, key, '['); }
void json_arr_end(cli_json *j) { close_(j, ']'); }

void json_str(cli_json *j, const char *key, const char *v)
{
    sep(j, key);
    json_write_string(j->f, v);
}

void json_int(cli_json *j, const char *key, long long v)
{
    sep(j, key);
    fprintf(j->f, "%lld", v);
}

void json_uint(cli_json *j, const char *key, unsigned long long v)
{
    sep(j, key);
    fprintf(j->f, "%llu", v);
}

void json_num(cli_json *j, const char *key, double v)
{
    sep(j, key);
    if (!isfinite(v))
        fputs("null", j->f);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(j->f, "%.0f", v);
    else
        fprintf(j->f, "%.6g", v);
}

void json_bool(cli_json *j, const char *key, int v)
{
    sep(j, key);
    fputs(v ? "true" : "false", j->f);
}

void json_null(cli_json *j, const char *key)
{
    sep(j, key);
    fputs("null", j->f);
}

void json_end(cli_json *j) { fputc('\n', j->f); }
