/*
 * uarch/ua_mem_counts.c - the per-kernel counts both models report
 * (predict --format json: "counts").  The counting itself is
 * ua_counts_inst (ua_mem.h), called by each model for every warp
 * instruction it executes, with the lines, sectors and wavefronts that
 * ua_coalesce / ua_shmem_wavefronts gave it.
 */
#include "ua.h"

/* ua_popcount32's table: the count of byte i. */
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
const uint8_t ua_popcount8[256] = {B6(0), B6(1), B6(1), B6(2)};
#undef B2
#undef B4
#undef B6

void ua_counts_add(ua_counts *dst, const ua_counts *src)
{
    if (src->ctas_per_sm > dst->ctas_per_sm)
        dst->ctas_per_sm = src->ctas_per_sm;
    for (int u = 0; u < WC_UNIT_COUNT; u++)
        dst->warp_insts_by_unit[u] += src->warp_insts_by_unit[u];
    dst->global_requests += src->global_requests;
    dst->global_sectors += src->global_sectors;
    dst->shared_wavefronts += src->shared_wavefronts;
    dst->atomics += src->atomics;
    dst->l1_hit_sectors += src->l1_hit_sectors;
    dst->l2_hit_sectors += src->l2_hit_sectors;
    dst->dram_bytes += src->dram_bytes;
}

void ua_counts_sub(ua_counts *dst, const ua_counts *src)
{
    for (int u = 0; u < WC_UNIT_COUNT; u++)
        dst->warp_insts_by_unit[u] -= src->warp_insts_by_unit[u];
    dst->global_requests -= src->global_requests;
    dst->global_sectors -= src->global_sectors;
    dst->shared_wavefronts -= src->shared_wavefronts;
    dst->atomics -= src->atomics;
    dst->l1_hit_sectors -= src->l1_hit_sectors;
    dst->l2_hit_sectors -= src->l2_hit_sectors;
    dst->dram_bytes -= src->dram_bytes;
}

int ua_counts_same_order_free(const ua_counts *a, const ua_counts *b)
{
    for (int u = 0; u < WC_UNIT_COUNT; u++)
        if (a->warp_insts_by_unit[u] != b->warp_insts_by_unit[u])
            return 0;
    return a->ctas_per_sm == b->ctas_per_sm &&
           a->global_requests == b->global_requests &&
           a->global_sectors == b->global_sectors &&
           a->shared_wavefronts == b->shared_wavefronts &&
           a->atomics == b->atomics;
}
