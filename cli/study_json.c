/*
 * cli/study_json.c - a small recursive-descent JSON reader for the study
 * commands (report reads predict / calibrate JSON; sweep and merge read
 * JSON lines).  Numbers keep their text so that values round-trip.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study.h"

typedef struct jp {
    const char *s;
    size_t n, p;
    char *err;
    size_t nerr;
    int depth;
} jp;

static int fail(jp *j, const char *what)
{
    snprintf(j->err, j->nerr, "JSON: %s at offset %zu", what, j->p);
    return -1;
}

static void ws(jp *j)
{
    while (j->p < j->n && strchr(" \t\r\n", j->s[j->p]) && j->s[j->p])
        j->p++;
}

static int put_utf8(char *b, size_t *o, unsigned cp)
{
    if (cp < 0x80)
        b[(*o)++] = (char)cp;
    else if (cp < 0x800) {
        b[(*o)++] = (char)(0xc0 | (cp >> 6));
        b[(*o)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        b[(*o)++] = (char)(0xe0 | (cp >> 12));
        b[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[(*o)++] = (char)(0x80 | (cp & 0x3f));
    }
    return 0;
}

static int str(jp *j, char **out)
{
    j->p++; /* opening quote */
    char *b = malloc(j->n - j->p + 4);
    if (!b)
        return fail(j, "out of memory");
    size_t o = 0;
    while (j->p < j->n && j->s[j->p] != '"') {
        char c = j->s[j->p++];
        if (c != '\\') {
            b[o++] = c;
            continue;
        }
        if (j->p >= j->n)
            break;
        c = j->s[j->p++];
        switch (c) {
        case 'n': b[o++] = '\n'; break;
        case 't': b[o++] = '\t'; break;
        case 'r': b[o++] = '\r'; break;
        case 'b': b[o++] = '\b'; break;
        case 'f': b[o++] = '\f'; break;
        case 'u': {
            unsigned cp = 0;
            for (int k = 0; k < 4; k++) {
                if (j->p >= j->n) {
                    free(b);
                    return fail(j, "bad \\u escape");
                }
                char h = j->s[j->p++];
                cp <<= 4;
                if (h >= '0' && h <= '9') cp |= (unsigned)(h - '0');
                else if (h >= 'a' && h <= 'f') cp |= (unsigned)(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F') cp |= (unsigned)(h - 'A' + 10);
                else {
                    free(b);
                    return fail(j, "bad \\u escape");
                }
            }
            put_utf8(b, &o, cp);
            break;
        }
        default: b[o++] = c;
        }
    }
    if (j->p >= j->n) {
        free(b);
        return fail(j, "unterminated string");
    }
    j->p++;
    b[o] = 0;
    *out = b;
    return 0;
}

static int value(jp *j, jv *v);

static int push(jv *v, size_t *cap, char *key, jv *item)
{
    if (v->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        jv *ni = realloc(v->items, nc * sizeof *ni);
        if (!ni)
            return -1;
        v->items = ni;
        if (v->type == JV_OBJ) {
            char **nk = realloc(v->keys, nc * sizeof *nk);
            if (!nk)
                return -1;
            v->keys = nk;
        }
        *cap = nc;
    }
    if (v->type == JV_OBJ)
        v->keys[v->n] = key;
    v->items[v->n++] = *item;
    return 0;
}

static int value(jp *j, jv *v)
{
    memset(v, 0, sizeof *v);
    ws(j);
    if (j->p >= j->n)
        return fail(j, "unexpected end");
    if (++j->depth > 200)
        return fail(j, "nesting too deep");
    char c = j->s[j->p];
    int rc = 0;
    if (c == '{' || c == '[') {
        v->type = c == '{' ? JV_OBJ : JV_ARR;
        char close = c == '{' ? '}' : ']';
        size_t cap = 0;
        j->p++;
        ws(j);
        if (j->p < j->n && j->s[j->p] == close) {
            j->p++;
        } else {
            for (;;) {
                char *key = NULL;
                ws(j);
                if (v->type == JV_OBJ) {
                    if (j->p >= j->n || j->s[j->p] != '"') {
                        rc = fail(j, "expected a key");
                        break;
                    }
                    if ((rc = str(j, &key)) != 0)
                        break;
                    ws(j);
                    if (j->p >= j->n || j->s[j->p] != ':') {
                        free(key);
                        rc = fail(j, "expected ':'");
                        break;
                    }
                    j->p++;
                }
                jv item;
                if ((rc = value(j, &item)) != 0) {
                    free(key);
                    jv_free(&item);
                    break;
                }
                if (push(v, &cap, key, &item) != 0) {
                    free(key);
                    jv_free(&item);
                    rc = fail(j, "out of memory");
                    break;
                }
                ws(j);
                if (j->p < j->n && j->s[j->p] == ',') {
                    j->p++;
                    continue;
                }
                if (j->p < j->n && j->s[j->p] == close) {
                    j->p++;
                    break;
                }
                rc = fail(j, "expected ',' or a closing bracket");
                break;
            }
        }
    } else if (c == '"') {
        v->type = JV_STR;
        rc = str(j, &v->str);
    } else if (!strncmp(j->s + j->p, "true", 4) || !strncmp(j->s + j->p, "false", 5)) {
        v->type = JV_BOOL;
        v->num = c == 't';
        j->p += c == 't' ? 4 : 5;
    } else if (!strncmp(j->s + j->p, "null", 4)) {
        v->type = JV_NULL;
        j->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        size_t b = j->p;
        while (j->p < j->n && strchr("+-.eE0123456789", j->s[j->p]) && j->s[j->p])
            j->p++;
        v->type = JV_NUM;
        v->str = malloc(j->p - b + 1);
        if (!v->str)
            return fail(j, "out of memory");
        memcpy(v->str, j->s + b, j->p - b);
        v->str[j->p - b] = 0;
        char *end;
        v->num = strtod(v->str, &end);
        if (*end)
            rc = fail(j, "bad number");
        else if (!isfinite(v->num)) /* 9e999: out of a double's range */
            rc = fail(j, "number out of range");
    } else {
        rc = fail(j, "unexpected character");
    }
    j->depth--;
    return rc;
}

int jv_parse(const char *text, size_t len, jv *out, size_t *end, char *err,
             size_t nerr)
{
    jp j = {text, len, 0, err, nerr, 0};
    int rc = value(&j, out);
    if (rc) {
        jv_free(out);
        return rc;
    }
    ws(&j);
    if (end)
        *end = j.p;
    if (j.p < j.n) {
        jv_free(out);
        return fail(&j, "trailing text");
    }
    return 0;
}

void jv_free(jv *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        if (v->keys)
            free(v->keys[i]);
        if (v->items)
            jv_free(&v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->str);
    memset(v, 0, sizeof *v);
}

const jv *jv_get(const jv *o, const char *key)
{
    if (!o || o->type != JV_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key))
            return &o->items[i];
    return NULL;
}

double jv_num(const jv *v, double def)
{
    return v && v->type == JV_NUM ? v->num : def;
}

const char *jv_str(const jv *v, const char *def)
{
    return v && (v->type == JV_STR || v->type == JV_NUM) ? v->str : def;
}
