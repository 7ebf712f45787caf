/*
 * uarch/ua_mem_shared.c - shared memory bank conflicts.  Shared memory has
 * shmem_banks banks of shmem_bank_bytes each; successive bank-words go to
 * successive banks.  One wavefront serves at most one distinct word per
 * bank, and lanes reading the same word are served together (broadcast),
 * so an access needs as many wavefronts as the busiest bank has distinct
 * words.  A 64-bit (128-bit) conflict-free access needs 2 (4) wavefronts.
 */
#include "ua.h"

/* Words one lane may touch: 255-byte access, 1-byte banks, misaligned. */
#define MAX_WORDS_PER_LANE 256

unsigned ua_shmem_wavefronts(const wc_inst *in, unsigned banks,
                             unsigned bank_bytes)
{
    if (banks == 0 || bank_bytes == 0 || in->mask == 0)
        return 0;
    uint64_t w = in->width ? in->width : 4;
    if (!(in->iflags & WC_IF_HAS_ADDR)) {
        /* conflict free: active lanes' bytes over the banks' width */
        uint64_t lanes = (uint64_t)ua_popcount32(in->mask);
        uint64_t per = w < bank_bytes ? bank_bytes : w;
        uint64_t row = (uint64_t)banks * bank_bytes;
        return (unsigned)((lanes * per + row - 1) / row);
    }
    /* distinct words per bank: a chain of the words seen per bank (a
     * bank rarely sees more than a few) */
    static _Thread_local uint64_t words[WC_WARP_SIZE * MAX_WORDS_PER_LANE];
    static _Thread_local int next[WC_WARP_SIZE * MAX_WORDS_PER_LANE];
    int head[256];
    unsigned count[256];
    unsigned nb = banks > 256 ? 256 : banks;
    for (unsigned b = 0; b < nb; b++) {
        head[b] = -1;
        count[b] = 0;
    }
    int nw = 0;
    unsigned best = 0;
    uint64_t bmask = (nb & (nb - 1)) ? 0 : nb - 1; /* x % nb by a mask */
    for (uint32_t m = in->mask; m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        uint64_t a = in->addr[l];
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        uint64_t fw = a / bank_bytes, lw = last / bank_bytes;
        for (uint64_t x = fw;; x++) {
            if (nw >= (int)(sizeof words / sizeof words[0]))
                break;
            unsigned b = (unsigned)(bmask ? x & bmask : x % nb);
            int k = head[b];
            while (k >= 0 && words[k] != x)
                k = next[k];
            if (k < 0) { /* a new word of bank b */
                words[nw] = x;
                next[nw] = head[b];
                head[b] = nw++;
                if (++count[b] > best)
                    best = count[b];
            }
            if (x == lw)
                break;
        }
    }
    return best;
}
