/*
 * uarch/ua_mem_coalesce.c - coalescing of a warp memory access into cache
 * lines and sectors (seed 000 section 6: the Pending Request Table that
 * tracks intra-warp coalescing; seed 003: the sub-core coalescer handles
 * one distinct line per cycle).  Pure functions, no state.  Used by both
 * models (model/im_mem.c, detailed/mem_unit.c).
 */
#include "ua.h"

/* Add sector s of line la to out[0..*n): merge with an existing line. */
static void add_sector(ua_line *out, unsigned *n, uint64_t la, unsigned s)
{
    for (unsigned i = *n; i-- > 0;) {
        if (out[i].addr == la) {
            out[i].sectors |= 1u << s;
            return;
        }
    }
    if (*n >= UA_MAX_LINES)
        return;
    out[*n].addr = la;
    out[*n].sectors = 1u << s;
    (*n)++;
}

/* Power-of-two line and sector sizes (every config): shifts instead of
 * divisions, and a lane whose sectors the previous lane already added is
 * skipped (adding them again would change nothing). */
static unsigned coalesce_pow2(const wc_inst *in, unsigned ls, unsigned ss,
                              ua_line *out)
{
    unsigned n = 0, rank = 0;
    uint64_t w = in->width ? in->width : 4;
    int has_addr = (in->iflags & WC_IF_HAS_ADDR) != 0;
    uint64_t pf = 1, pl = 0; /* sector range of the previous lane (empty) */
    uint64_t smask = ((uint64_t)1 << (ls - ss)) - 1;
    for (uint32_t m = in->mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint64_t a = has_addr ? in->addr[l] : (uint64_t)rank * w;
        rank++;
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        uint64_t fs = a >> ss, lsn = last >> ss;
        if (fs >= pf && lsn <= pl)
            continue;
        pf = fs;
        pl = lsn;
        for (uint64_t s = fs;; s++) {
            add_sector(out, &n, (s >> (ls - ss)) << ls, (unsigned)(s & smask));
            if (s == lsn)
                break;
        }
    }
    return n;
}

unsigned ua_coalesce(const wc_inst *in, unsigned line_bytes,
                     unsigned sector_bytes, ua_line *out)
{
    unsigned n = 0;
    if (line_bytes == 0 || sector_bytes == 0 || line_bytes < sector_bytes ||
        line_bytes / sector_bytes > 32)
        return 0;
    if (!(line_bytes & (line_bytes - 1)) && !(sector_bytes & (sector_bytes - 1)))
        return coalesce_pow2(in, (unsigned)__builtin_ctz(line_bytes),
                             (unsigned)__builtin_ctz(sector_bytes), out);
    uint64_t w = in->width ? in->width : 4;
    int has_addr = (in->iflags & WC_IF_HAS_ADDR) != 0;
    unsigned rank = 0;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!(in->mask & (1u << l)))
            continue;
        uint64_t a = has_addr ? in->addr[l] : (uint64_t)rank * w;
        rank++;
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        uint64_t first_sec = a / sector_bytes, last_sec = last / sector_bytes;
        for (uint64_t s = first_sec;; s++) {
            uint64_t byte = s * sector_bytes;
            uint64_t la = byte - byte % line_bytes;
            add_sector(out, &n, la, (unsigned)((byte - la) / sector_bytes));
            if (s == last_sec)
                break;
        }
    }
    return n;
}

unsigned ua_lines_sectors(const ua_line *lines, unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s += (unsigned)ua_popcount32(lines[i].sectors);
    return s;
}

unsigned ua_line_split(uint64_t line_addr, uint32_t sectors,
                       unsigned sector_bytes, unsigned to_line, ua_line *out)
{
    unsigned n = 0;
    if (sector_bytes == 0 || to_line == 0)
        return 0;
    for (uint32_t rest = sectors; rest; rest &= rest - 1) {
        unsigned i = (unsigned)__builtin_ctz(rest);
        uint64_t a = line_addr + (uint64_t)i * sector_bytes;
        uint64_t l = a - a % to_line;
        unsigned s = (unsigned)((a - l) / sector_bytes);
        if (s >= 32)
            continue;
        if (n && out[n - 1].addr == l) {
            out[n - 1].sectors |= 1u << s;
        } else if (n < 32) {
            out[n].addr = l;
            out[n].sectors = 1u << s;
            n++;
        }
    }
    return n;
}
