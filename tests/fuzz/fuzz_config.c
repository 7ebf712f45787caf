/*
 * tests/fuzz/fuzz_config.c - libFuzzer target for the .cfg reader.
 *
 * The input is parsed as a config file that lives in a directory that does
 * not exist, so relative includes fail cleanly; absolute includes may only
 * reach regular files below 1 MiB (the reader's own rule).  Inputs naming
 * /proc, /sys or /dev are skipped so a replay never blocks on a device.
 * After a successful parse, every key is read back and --set is exercised.
 */
#include <stdint.h>
#include <string.h>

#include "wc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int mentions(const uint8_t *data, size_t size, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= size; i++)
        if (memcmp(data + i, s, n) == 0)
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (mentions(data, size, "/proc") || mentions(data, size, "/sys") ||
        mentions(data, size, "/dev"))
        return 0;
    wc_gpu g;
    wc_diag d;
    memset(&d, 0, sizeof d);
    int rc = wc_gpu_parse("/nonexistent-warpcast-fuzz/fuzz.cfg",
                          (const char *)data, size, &g, &d);
    char buf[4096];
    wc_diag_format(&d, buf, sizeof buf);
    if (rc != WC_OK)
        return 0;
    size_t n = 0;
    const wc_key_desc *k = wc_keys(&n);
    for (size_t i = 0; i < n; i++) {
        char v[128];
        wc_gpu_value_str(&g, &k[i], v, sizeof v);
        double x;
        if (wc_gpu_get_num(&g, k[i].name, &x) == WC_OK)
            wc_gpu_set_num(&g, k[i].name, x, &d);
    }
    for (int c = 0; c < WC_LAT_COUNT; c++) {
        (void)wc_gpu_lat(&g, c);
        (void)wc_gpu_ii(&g, c);
    }
    /* the first line, as a --set argument */
    size_t l = 0;
    while (l < size && l < sizeof buf - 1 && data[l] != '\n' && data[l])
        l++;
    memcpy(buf, data, l);
    buf[l] = '\0';
    wc_gpu_set(&g, buf, &d);
    return 0;
}
