/*
 * detailed/icache.c - instruction caches of the front-end (seed 000 5.2 and
 * 6, seed 003 2.1): a private L0 icache per sub-core with a stream-buffer
 * prefetcher, and an L1 icache per SM shared by the sub-cores through a
 * round-robin arbiter that accepts one request per cycle.
 *
 * Lines are identified by (kernel code base + pc) / icache_line_bytes, so
 * distinct kernels never share lines.  A miss in the L0 requests the line
 * and prefetches the icache_stream_buffer successive lines into the stream
 * buffer (replacing its contents); a later access that finds its line in
 * the stream buffer moves it into the L0 and the freed entry prefetches
 * the next successive line (a Jouppi stream buffer stays N lines ahead).  Fill times: L1 hit
 * icache_l1_latency after the arbiter grant, L1 miss adds
 * icache_l1_miss_latency.
 */
#include <stdlib.h>

#include "dm_int.h"

typedef struct ic_way {
    uint64_t line;   /* line number + 1, 0 = invalid */
    uint64_t ready;  /* fill completes              */
    uint64_t lru;
} ic_way;

typedef struct ic_sets {
    ic_way *w;
    unsigned sets, ways;
    uint64_t tick;
} ic_sets;

struct dm_l1i {
    ic_sets c;
    uint64_t arb_free; /* next cycle the arbiter grants */
    unsigned lat, miss_lat;
};

typedef struct ic_sb {
    uint64_t line;
    uint64_t ready;
    int valid;
} ic_sb;

struct dm_icache {
    ic_sets c;
    dm_l1i *l1;
    ic_sb *sb;
    unsigned nsb;
    int perfect;
};

static int sets_init(ic_sets *s, unsigned lines, unsigned assoc)
{
    if (assoc == 0)
        assoc = 1;
    if (lines < assoc)
        lines = assoc;
    s->ways = assoc;
    s->sets = lines / assoc;
    s->w = calloc((size_t)s->sets * s->ways, sizeof *s->w);
    return s->w ? 0 : -1;
}

static ic_way *sets_find(ic_sets *s, uint64_t line)
{
    ic_way *set = s->w + (size_t)(line % s->sets) * s->ways;
    for (unsigned i = 0; i < s->ways; i++)
        if (set[i].line == line + 1)
            return &set[i];
    return NULL;
}

static ic_way *sets_insert(ic_sets *s, uint64_t line, uint64_t ready)
{
    ic_way *set = s->w + (size_t)(line % s->sets) * s->ways;
    ic_way *v = &set[0];
    for (unsigned i = 0; i < s->ways; i++) {
        if (set[i].line == 0) {
            v = &set[i];
            break;
        }
        if (set[i].lru < v->lru)
            v = &set[i];
    }
    v->line = line + 1;
    v->ready = ready;
    v->lru = ++s->tick;
    return v;
}

dm_l1i *dm_l1i_create(const dm_params *p)
{
    dm_l1i *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (sets_init(&c->c, p->l1i_lines, p->l1i_assoc) != 0) {
        free(c);
        return NULL;
    }
    c->lat = p->l1i_lat;
    c->miss_lat = p->l1i_miss_lat;
    return c;
}

void dm_l1i_free(dm_l1i *c)
{
    if (!c)
        return;
    free(c->c.w);
    free(c);
}

/* Request line from the L1 through the arbiter in cycle c: fill time. */
static uint64_t l1_request(dm_l1i *l1, uint64_t line, uint64_t c)
{
    uint64_t t = l1->arb_free > c ? l1->arb_free : c;
    l1->arb_free = t + 1;
    ic_way *w = sets_find(&l1->c, line);
    if (w) {
        w->lru = ++l1->c.tick;
        uint64_t r = t + l1->lat;
        return r > w->ready + l1->lat ? r : w->ready + l1->lat;
    }
    uint64_t fill = t + l1->miss_lat;
    sets_insert(&l1->c, line, fill);
    return fill + l1->lat;
}

dm_icache *dm_icache_create(const dm_params *p, dm_l1i *l1)
{
    dm_icache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->l1 = l1;
    c->perfect = p->icache_perfect;
    c->nsb = p->sb_lines;
    if (sets_init(&c->c, p->l0i_lines, p->l0i_assoc) != 0 ||
        (c->nsb && !(c->sb = calloc(c->nsb, sizeof *c->sb)))) {
        dm_icache_free(c);
        return NULL;
    }
    return c;
}

void dm_icache_free(dm_icache *c)
{
    if (!c)
        return;
    free(c->c.w);
    free(c->sb);
    free(c);
}

uint64_t dm_icache_when(dm_icache *c, uint64_t line)
{
    if (c->perfect)
        return 0;
    const ic_way *w = sets_find(&c->c, line);
    if (w)
        return w->ready;
    for (unsigned i = 0; i < c->nsb; i++) /* as dm_icache_access probes */
        if (c->sb[i].valid && c->sb[i].line == line)
            return c->sb[i].ready;
    return UINT64_MAX;
}

unsigned dm_icache_sets(const dm_icache *c)
{
    return c->perfect ? 0 : c->c.sets;
}

int dm_icache_access(dm_icache *c, uint64_t line, uint64_t cycle,
                     int probe_only)
{
    if (c->perfect)
        return 1;
    ic_way *w = sets_find(&c->c, line);
    if (w) {
        if (!probe_only)
            w->lru = ++c->c.tick;
        return w->ready <= cycle;
    }
    for (unsigned i = 0; i < c->nsb; i++) {
        if (c->sb[i].valid && c->sb[i].line == line) {
            if (probe_only)
                return c->sb[i].ready <= cycle;
            w = sets_insert(&c->c, line, c->sb[i].ready);
            /* keep the stream going: refill the entry with the line after
             * the furthest one held */
            uint64_t far = line;
            for (unsigned k = 0; k < c->nsb; k++)
                if (c->sb[k].valid && c->sb[k].line > far)
                    far = c->sb[k].line;
            c->sb[i].line = far + 1;
            c->sb[i].ready = l1_request(c->l1, far + 1, cycle);
            return w->ready <= cycle;
        }
    }
    if (probe_only)
        return 0;
    /* miss: demand request, then restart the stream buffer after it */
    sets_insert(&c->c, line, l1_request(c->l1, line, cycle));
    for (unsigned i = 0; i < c->nsb; i++) {
        uint64_t l = line + 1 + i;
        c->sb[i].line = l;
        c->sb[i].valid = 1;
        ic_way *have = sets_find(&c->c, l);
        c->sb[i].ready = have ? have->ready : l1_request(c->l1, l, cycle);
    }
    return 0;
}
