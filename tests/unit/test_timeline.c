/*
 * tests/unit/test_timeline.c - the streamed Chrome trace-event timeline of
 * the detailed model (dm_chrome_*, dm_options.sink) and the one JSON writer
 * (common/wc_json.h): a 2-kernel timeline is valid JSON, each kernel its
 * own process (distinct pid, "process_name" metadata with its id and
 * name), each sub-core a named thread, one "X" event per warp instruction,
 * and nothing kept in memory (the results hold no events).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dm.h"
#include "wc_json.h"
#include "synth_fixture.h"

/* ---- a strict JSON validator (RFC 8259 grammar, no semantics) ---------- */
static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *value(const char *p, int depth);

static const char *string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
                return NULL;
            }
        }
        p++;
    }
    return *p == '"' ? p + 1 : NULL;
}

static const char *number(const char *p)
{
    const char *s = p;
    if (*p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    if (*p == '0')
        p++;
    else
        while (isdigit((unsigned char)*p))
            p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p > s ? p : NULL;
}

static const char *value(const char *p, int depth)
{
    p = ws(p);
    if (depth > 64)
        return NULL;
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = string(ws(p));
                if (!p)
                    return NULL;
                p = ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = value(p, depth + 1);
            if (!p)
                return NULL;
            p = ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return string(p);
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    if (!strncmp(p, "null", 4))
        return p + 4;
    return number(p);
}

static int json_valid(const char *s)
{
    const char *e = value(s, 0);
    return e && *ws(e) == 0;
}

static char *slurp(FILE *f)
{
    long n;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0)
        return NULL;
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (!b)
        return NULL;
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = 0;
    return b;
}

static size_t count(const char *s, const char *pat)
{
    size_t n = 0;
    for (const char *p = strstr(s, pat); p; p = strstr(p + 1, pat))
        n++;
    return n;
}

static void test_validator(void)
{
    CHECK(json_valid("{\"a\": [1, -2.5e3, true, null, \"x\\n\"]}"));
    CHECK(!json_valid("{\"a\": [1, 2,]}"));
    CHECK(!json_valid("{\"a\" 1}"));
    CHECK(!json_valid("[01]"));
}

/* The writer: layouts and escapes. */
static void test_writer(void)
{
    FILE *f = tmpfile();
    if (!f) {
        CHECK(0);
        return;
    }
    wc_json j;
    wc_json_begin(&j, f, 0);
    wc_json_obj(&j, NULL);
    wc_json_str(&j, "s", "a\"b\\c\n\t\x01");
    wc_json_num(&j, "i", 3.0);
    wc_json_num(&j, "r", 0.125);
    wc_json_real(&j, "g", 1.0 / 3.0, 10);
    wc_json_num(&j, "nan", 0.0 / 0.0);
    wc_json_ws(&j, "\n ");
    wc_json_arr(&j, "a");
    wc_json_uint(&j, NULL, 18446744073709551615ull);
    wc_json_int(&j, NULL, -7);
    wc_json_bool(&j, NULL, 1);
    wc_json_null(&j, NULL);
    wc_json_arr_end(&j);
    wc_json_obj_end(&j);
    wc_json_end(&j);
    char *s = slurp(f);
    CHECK(s != NULL);
    if (s) {
        CHECK_STR(s, "{\"s\": \"a\\\"b\\\\c\\n\\t\\u0001\", \"i\": 3, "
                     "\"r\": 0.125, \"g\": 0.3333333333, \"nan\": null,\n"
                     " \"a\": [18446744073709551615, -7, true, null]}\n");
        CHECK(json_valid(s));
    }
    free(s);
    fclose(f);
}

static void test_two_kernels(void)
{
    wc_synth_params sp;
    wc_synth_defaults(&sp, "mixed"); /* several kernels: the first two */
    sp.ctas = 6;
    sp.iters = 2;
    synth_fixture fx;
    if (synth_fixture_open(&fx, "tl", &sp, "a100", 1) != 0) {
        CHECK(0);
        return;
    }
    wc_trace *t = fx.t;
    wc_gpu g = fx.g;
    wc_diag d;
    memset(&d, 0, sizeof d);
    FILE *f = tmpfile();
    if (!f || wc_trace_nkernels(t) < 2) {
        CHECK(0);
        if (f)
            fclose(f);
        synth_fixture_close(&fx);
        return;
    }
    dm_chrome ch;
    dm_chrome_begin(&ch, f);
    uint64_t off = 0, insts = 0;
    for (size_t k = 0; k < 2; k++) {
        const wc_kernel_info *ki = wc_trace_kernel(t, k);
        char name[300];
        snprintf(name, sizeof name, "kernel %d: %.200s", ki->id, ki->name);
        dm_chrome_kernel(&ch, (unsigned)(k + 1), name, off,
                         (unsigned)g.subcores_per_sm);
        dm_options o;
        dm_result r;
        dm_options_default(&o);
        o.timeline = 1;
        o.sink = dm_chrome_event;
        o.sink_ctx = &ch;
        CHECK_EQ_INT(dm_run_kernel(t, k, &g, &o, &r, &d), 0);
        CHECK_EQ_INT(r.nevents, 0); /* streamed, none kept */
        insts += r.warp_insts;
        off += r.cycles;
        dm_result_free(&r);
    }
    CHECK_EQ_INT(dm_chrome_end(&ch, &d), 0);
    char *s = slurp(f);
    CHECK(s != NULL);
    if (s) {
        CHECK(json_valid(s));
        CHECK_EQ_INT(count(s, "\"ph\": \"X\""), insts);
        CHECK_EQ_INT(count(s, "\"name\": \"process_name\""), 2);
        CHECK(strstr(s, "\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1,") != NULL);
        CHECK(strstr(s, "\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 2,") != NULL);
        char want[300];
        snprintf(want, sizeof want, "\"args\": {\"name\": \"kernel %d: %.200s\"}",
                 wc_trace_kernel(t, 1)->id, wc_trace_kernel(t, 1)->name);
        CHECK(strstr(s, want) != NULL);
        CHECK(strstr(s, "\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 2, "
                        "\"tid\": 0, \"args\": {\"name\": \"SM 0 sub-core 0\"}") != NULL);
        /* the second kernel's events come after the first's end */
        const char *p2 = strstr(s, "\"pid\": 2, \"args\"");
        CHECK(p2 != NULL && strstr(p2, "\"pid\": 1, \"tid\"") == NULL);
    }
    free(s);
    fclose(f);
    synth_fixture_close(&fx);
}

typedef struct collect {
    dm_event *ev;
    size_t n, cap;
} collect;

static int collect_ev(void *ctx, const dm_event *e)
{
    collect *c = ctx;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
        dm_event *x = realloc(c->ev, cap * sizeof *x);
        if (!x)
            return 1;
        c->ev = x;
        c->cap = cap;
    }
    c->ev[c->n++] = *e;
    return 0;
}

/* Streamed events are the in-memory events, complete and in order. */
static void test_stream_equals_memory(void)
{
    wc_synth_params sp;
    wc_synth_defaults(&sp, "mixed");
    sp.ctas = 40;
    sp.iters = 3;
    sp.with_sass = 1;
    synth_fixture fx;
    if (synth_fixture_open(&fx, "tl", &sp, "rtx-2070s", 1) != 0) {
        CHECK(0);
        return;
    }
    wc_trace *t = fx.t;
    wc_gpu g = fx.g;
    wc_diag d;
    memset(&d, 0, sizeof d);
    for (size_t k = 0; k < wc_trace_nkernels(t); k++) {
        dm_options o;
        dm_result a, b;
        collect c = {NULL, 0, 0};
        dm_options_default(&o);
        o.timeline = 1;
        CHECK_EQ_INT(dm_run_kernel(t, k, &g, &o, &a, &d), 0);
        o.sink = collect_ev;
        o.sink_ctx = &c;
        CHECK_EQ_INT(dm_run_kernel(t, k, &g, &o, &b, &d), 0);
        CHECK_EQ_INT(b.cycles, a.cycles);
        CHECK_EQ_INT(c.n, a.nevents);
        CHECK_EQ_INT(b.nevents, 0);
        size_t bad = 0;
        for (size_t i = 0; i < c.n && i < a.nevents; i++)
            bad += memcmp(&c.ev[i], &a.events[i], sizeof c.ev[i]) != 0;
        CHECK_EQ_INT(bad, 0);
        free(c.ev);
        dm_result_free(&a);
        dm_result_free(&b);
    }
    synth_fixture_close(&fx);
}

int main(void)
{
    test_validator();
    test_writer();
    test_two_kernels();
    test_stream_equals_memory();
    CHECK_DONE();
}
