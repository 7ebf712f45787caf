/*
 * detailed/mem_shared.c - shared memory bank conflicts.  Shared memory has
 * shmem_banks banks of shmem_bank_bytes each; successive bank-words go to
 * successive banks.  One wavefront serves at most one distinct word per
 * bank, and lanes reading the same word are served together (broadcast),
 * so an access needs as many wavefronts as the busiest bank has distinct
 * words.  A 64-bit (128-bit) conflict-free access needs 2 (4) wavefronts.
 */
#include <stdlib.h>

#include "mem.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Words one lane may touch: 255-byte access, 1-byte banks, misaligned. */
#define MAX_WORDS_PER_LANE 256

unsigned dm_shmem_wavefronts(const wc_inst *in, unsigned banks,
                             unsigned bank_bytes)
{
    if (banks == 0 || bank_bytes == 0 || in->mask == 0)
        return 0;
    uint64_t w = in->width ? in->width : 4;
    if (!(in->iflags & WC_IF_HAS_ADDR)) {
        /* conflict free: active lanes' bytes over the banks' width */
        uint64_t lanes = (uint64_t)__builtin_popcount(in->mask);
        uint64_t per = w < bank_bytes ? bank_bytes : w;
        uint64_t row = (uint64_t)banks * bank_bytes;
        return (unsigned)((lanes * per + row - 1) / row);
    }
    static _Thread_local uint64_t words[WC_WARP_SIZE * MAX_WORDS_PER_LANE];
    size_t nw = 0;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!(in->mask & (1u << l)))
            continue;
        uint64_t a = in->addr[l];
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        uint64_t fw = a / bank_bytes, lw = last / bank_bytes;
        for (uint64_t x = fw; nw < sizeof words / sizeof words[0]; x++) {
            words[nw++] = x;
            if (x == lw)
                break;
        }
    }
    qsort(words, nw, sizeof words[0], cmp_u64);
    unsigned count[256] = {0};
    unsigned best = 0;
    unsigned nb = banks > 256 ? 256 : banks;
    for (size_t i = 0; i < nw; i++) {
        if (i > 0 && words[i] == words[i - 1])
            continue; /* broadcast */
        unsigned b = (unsigned)(words[i] % nb);
        if (++count[b] > best)
            best = count[b];
    }
    return best;
}
