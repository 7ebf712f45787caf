/*
 * common/wc_json.h - the one JSON writer of warpcast (library and CLI).
 *
 * A small streaming writer onto a FILE: objects, arrays, strings, numbers,
 * booleans, null; compact ("a": 1, "b": 2) or pretty (2-space indent).
 * Output is byte for byte deterministic: json_num writes integral values as
 * integers and others with %.6g; wc_json_real takes its own precision;
 * non-finite numbers are null.  wc_json_ws sets the whitespace written
 * before the next element (after its comma), for hand-laid-out documents
 * (the calibration report, the Chrome trace-event timeline).
 *
 * Used by: cli/json.c (the json_* names of cli.h are thin wrappers),
 * calib/report.c (cal_report_json), detailed/run.c (timeline).
 */
#ifndef WC_JSON_H
#define WC_JSON_H

#include <stdio.h>

typedef struct wc_json {
    FILE *f;
    int depth;
    int first[64];  /* per depth: no element written yet                   */
    int pretty;
    const char *ws; /* whitespace before the next element, NULL: default   */
} wc_json;

void wc_json_begin(wc_json *j, FILE *f, int pretty);
void wc_json_obj(wc_json *j, const char *key); /* key NULL inside arrays  */
void wc_json_obj_end(wc_json *j);
void wc_json_arr(wc_json *j, const char *key);
void wc_json_arr_end(wc_json *j);
void wc_json_str(wc_json *j, const char *key, const char *v);
void wc_json_int(wc_json *j, const char *key, long long v);
void wc_json_uint(wc_json *j, const char *key, unsigned long long v);
/* Integral values as integers (below 1e15), others %.6g; NaN/inf null. */
void wc_json_num(wc_json *j, const char *key, double v);
/* %.<digits>g; NaN/inf null. */
void wc_json_real(wc_json *j, const char *key, double v, int digits);
void wc_json_bool(wc_json *j, const char *key, int v);
void wc_json_null(wc_json *j, const char *key);
/* Whitespace written before the next element instead of the default. */
void wc_json_ws(wc_json *j, const char *ws);
void wc_json_end(wc_json *j); /* newline */
/* Write s as a JSON string literal (with quotes). */
void wc_json_string(FILE *f, const char *s);

#endif /* WC_JSON_H */
