/*
 * common/reg.c - register names <-> wc_reg numbers (encoding in wc.h):
 * R0..R254 = 0..254, RZ = 255; UR0..UR62 = 256.., URZ = 319;
 * P0..P6 = 512.., PT = 519; UP0..UP6 = 528.., UPT = 535.
 */
#include <stdio.h>
#include <string.h>

#include "wc.h"

/* Decimal number of exactly len digits (no leading '+', at most 3 digits).
 * Returns -1 when malformed. */
static int parse_num(const char *s, size_t len)
{
    if (len == 0 || len > 3)
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (len > 1 && s[0] == '0')
        return -1;
    return v;
}

int wc_reg_parse(const char *s, size_t len, wc_reg *out)
{
    unsigned base, zero, max;
    size_t pre;
    if (!s || len < 2)
        return -1;
    if (s[0] == 'R') {
        base = 0, zero = WC_RZ, max = 254, pre = 1;
    } else if (s[0] == 'P') {
        base = WC_P_BASE, zero = WC_PT, max = 6, pre = 1;
    } else if (s[0] == 'U' && s[1] == 'R') {
        base = WC_UR_BASE, zero = WC_URZ, max = 62, pre = 2;
    } else if (s[0] == 'U' && s[1] == 'P') {
        base = WC_UP_BASE, zero = WC_UPT, max = 6, pre = 2;
    } else {
        return -1;
    }
    if (len == pre + 1 && (s[pre] == 'Z' || s[pre] == 'T')) {
        int z_ok = (s[pre] == 'Z') == (s[pre - 1] == 'R');
        if (!z_ok)
            return -1;
        *out = (wc_reg)zero;
        return 0;
    }
    int n = parse_num(s + pre, len - pre);
    if (n < 0 || (unsigned)n > max)
        return -1;
    *out = (wc_reg)(base + (unsigned)n);
    return 0;
}

void wc_reg_name(wc_reg r, char *buf, size_t n)
{
    if (!buf || n == 0)
        return;
    if (r == WC_RZ)
        snprintf(buf, n, "RZ");
    else if (WC_REG_IS_R(r))
        snprintf(buf, n, "R%u", (unsigned)r);
    else if (r == WC_URZ)
        snprintf(buf, n, "URZ");
    else if (WC_REG_IS_UR(r))
        snprintf(buf, n, "UR%u", (unsigned)r - WC_UR_BASE);
    else if (r == WC_PT)
        snprintf(buf, n, "PT");
    else if (WC_REG_IS_P(r))
        snprintf(buf, n, "P%u", (unsigned)r - WC_P_BASE);
    else if (r == WC_UPT)
        snprintf(buf, n, "UPT");
    else if (WC_REG_IS_UP(r))
        snprintf(buf, n, "UP%u", (unsigned)r - WC_UP_BASE);
    else if (r == WC_REG_NONE)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "?%u", (unsigned)r);
}
