/*
 * uarch/ua_mem_check.c - the memory hierarchy keys of a wc_gpu checked
 * together, once per run (both models call it after ua_core_decode): the
 * key table bounds each key alone; a combination the cache model cannot
 * hold (a line that is not whole sectors, a cache smaller than one set, a
 * fixed-latency constant cache without a line, caches too large for
 * memory) is an input error naming the keys, never a hang or an
 * allocation failure later.
 */
#include "ua.h"

/* Lines of all L1 data caches of the GPU together (26 bytes each). */
#define UA_MAX_L1_LINES (1L << 24)

static int check_sectors(const wc_gpu *g, const char *line_key, long line,
                         wc_diag *d)
{
    if (line % g->sector_bytes != 0 || line / g->sector_bytes > 32)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "%s = %ld must be 1 to 32 whole sectors of "
                           "sector_bytes = %ld",
                           line_key, line, g->sector_bytes);
    return 0;
}

/* A cache of `size` bytes (0: none, unless required) holds one set of
 * `assoc` ways of `line` bytes at least. */
static int check_set(const wc_gpu *g, const char *size_key, long size,
                     const char *assoc_key, long assoc, const char *line_key,
                     long line, int required, wc_diag *d)
{
    if (size == 0 && !required)
        return 0;
    if (size < assoc * line)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "%s = %ld is smaller than one set: %s = %ld ways "
                           "of %s = %ld bytes",
                           size_key, size, assoc_key, assoc, line_key, line);
    return 0;
}

int ua_mem_check(const wc_gpu *g, wc_diag *d)
{
    int rc;
    if ((rc = check_sectors(g, "l1_line_bytes", g->l1_line_bytes, d)) != 0 ||
        (rc = check_sectors(g, "l2_line_bytes", g->l2_line_bytes, d)) != 0 ||
        (rc = check_set(g, "l1_size", g->l1_size, "l1_assoc", g->l1_assoc,
                        "l1_line_bytes", g->l1_line_bytes, 0, d)) != 0 ||
        (rc = check_set(g, "l2_size", g->l2_size, "l2_assoc", g->l2_assoc,
                        "l2_line_bytes", g->l2_line_bytes, 0, d)) != 0 ||
        /* an issue-time constant operand waits until its line is in the
         * L0 FL cache: without one set it never is */
        (rc = check_set(g, "cc_l0fl_size", g->cc_l0fl_size, "cc_l0fl_assoc",
                        g->cc_l0fl_assoc, "cc_line_bytes", g->cc_line_bytes,
                        1, d)) != 0 ||
        (rc = check_set(g, "cc_l0vl_size", g->cc_l0vl_size, "cc_l0vl_assoc",
                        g->cc_l0vl_assoc, "cc_line_bytes", g->cc_line_bytes,
                        0, d)) != 0 ||
        (rc = check_set(g, "cc_l1_size", g->cc_l1_size, "cc_l1_assoc",
                        g->cc_l1_assoc, "cc_line_bytes", g->cc_line_bytes, 0,
                        d)) != 0)
        return rc;
    if (g->l1_size / g->l1_line_bytes > UA_MAX_L1_LINES / g->num_sms)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "l1_size = %ld in lines of l1_line_bytes = %ld on "
                           "num_sms = %ld SMs: more than %ld lines in all",
                           g->l1_size, g->l1_line_bytes, g->num_sms,
                           UA_MAX_L1_LINES);
    return 0;
}
