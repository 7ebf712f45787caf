/*
 * cli/json.c - the CLI's json_* names (cli.h), thin wrappers over the one
 * JSON writer of the library (common/wc_json.h, common/json.c).
 */
#include "cli.h"

void json_write_string(FILE *f, const char *s) { wc_json_string(f, s); }
void json_begin(cli_json *j, FILE *f, int pretty) { wc_json_begin(j, f, pretty); }
void json_obj(cli_json *j, const char *key) { wc_json_obj(j, key); }
void json_obj_end(cli_json *j) { wc_json_obj_end(j); }
void json_arr(cli_json *j, const char *key) { wc_json_arr(j, key); }
void json_arr_end(cli_json *j) { wc_json_arr_end(j); }
void json_str(cli_json *j, const char *key, const char *v) { wc_json_str(j, key, v); }
void json_int(cli_json *j, const char *key, long long v) { wc_json_int(j, key, v); }
void json_uint(cli_json *j, const char *key, unsigned long long v)
{
    wc_json_uint(j, key, v);
}
void json_num(cli_json *j, const char *key, double v) { wc_json_num(j, key, v); }
void json_bool(cli_json *j, const char *key, int v) { wc_json_bool(j, key, v); }
void json_null(cli_json *j, const char *key) { wc_json_null(j, key); }
void json_end(cli_json *j) { wc_json_end(j); }
