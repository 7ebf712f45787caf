/*
 * tests/fuzz/fuzz_ncu.c - libFuzzer target for the measurement readers of
 * calib/ (simple CSV, Nsight Compute CSV raw/details pages, key=value
 * lists).  Any input must give 0 or a diagnostic, never a crash; on success
 * every row must hold a positive finite measurement.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cal_mset s;
    cal_mset_init(&s);
    wc_diag d;
    memset(&d, 0, sizeof d);
    cal_read_opts o;
    memset(&o, 0, sizeof o);
    int rc = cal_mset_parse(&s, "fuzz.csv", "/nonexistent", text, size, &o,
                            &d);
    if (rc == 0)
        for (size_t i = 0; i < s.n; i++)
            if (!(s.m[i].measured > 0) || !isfinite(s.m[i].measured))
                abort();
    if (rc != 0 && d.code != rc)
        abort();
    cal_mset_free(&s);
    free(text);
    return 0;
}
