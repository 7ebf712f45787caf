/*
 * common/wc_pool.h - per-thread reuse of the large blocks a model allocates
 * for every kernel (cache tag arrays, CTA slot tables, memo tables).
 *
 * A run of many kernels allocates and frees blocks of the same few sizes
 * once per launch.  Freed through malloc, those megabyte blocks left holes
 * in the heap that stayed resident, so the peak RSS of a 60,000-launch
 * interval run grew to 2x its heap while the heap itself stayed flat
 * (valgrind massif; tests/unit/test_mem_launches.c).  wc_pool_free keeps up
 * to WC_POOL_KEEP freed blocks per thread, and wc_pool_alloc hands one of
 * exactly the requested size and alignment back, so the next kernel reuses
 * the same pages.  Blocks kept by a thread are freed when it exits.
 * Library-internal (not installed).
 */
#ifndef WC_POOL_H
#define WC_POOL_H

#include <stddef.h>

#define WC_POOL_KEEP 8

/* size bytes aligned to align (0 or a power of two dividing size, as
 * aligned_alloc wants); zeroed when zero.  NULL when out of memory. */
void *wc_pool_alloc(size_t size, size_t align, int zero);
/* p from wc_pool_alloc with the same size and align (NULL is ignored). */
void wc_pool_free(void *p, size_t size, size_t align);

#endif
