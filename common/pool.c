/*
 * common/pool.c - per-thread reuse of large per-kernel blocks (wc_pool.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "wc_pool.h"

typedef struct pool_blk {
    void *p;
    size_t size, align;
} pool_blk;

typedef struct pool {
    pool_blk b[WC_POOL_KEEP];
    int n;
} pool;

static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static int pool_ok;

static void pool_destroy(void *v)
{
    pool *pl = v;
    for (int i = 0; i < pl->n; i++)
        free(pl->b[i].p);
    free(pl);
}

static void pool_make_key(void)
{
    pool_ok = pthread_key_create(&pool_key, pool_destroy) == 0;
}

static pool *pool_get(int create)
{
    pthread_once(&pool_once, pool_make_key);
    if (!pool_ok)
        return NULL;
    pool *pl = pthread_getspecific(pool_key);
    if (!pl && create) {
        pl = calloc(1, sizeof *pl);
        if (pl && pthread_setspecific(pool_key, pl) != 0) {
            free(pl);
            pl = NULL;
        }
    }
    return pl;
}

void *wc_pool_alloc(size_t size, size_t align, int zero)
{
    if (size == 0)
        size = 1;
    pool *pl = pool_get(0);
    if (pl)
        for (int i = pl->n - 1; i >= 0; i--)
            if (pl->b[i].size == size && pl->b[i].align == align) {
                void *p = pl->b[i].p;
                pl->b[i] = pl->b[--pl->n];
                if (zero)
                    memset(p, 0, size);
                return p;
            }
    void *p = align ? aligned_alloc(align, size) : malloc(size);
    if (p && zero)
        memset(p, 0, size);
    return p;
}

void wc_pool_free(void *p, size_t size, size_t align)
{
    if (!p)
        return;
    if (size == 0)
        size = 1;
    pool *pl = pool_get(1);
    if (!pl) {
        free(p);
        return;
    }
    if (pl->n == WC_POOL_KEEP) { /* drop the oldest */
        free(pl->b[0].p);
        memmove(pl->b, pl->b + 1, (WC_POOL_KEEP - 1) * sizeof *pl->b);
        pl->n--;
    }
    pl->b[pl->n++] = (pool_blk){p, size, align};
}
