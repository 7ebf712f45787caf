/*
 * tests/unit/test_mem_cache.c - the sectored set-associative LRU cache
 * (detailed/mem_cache.c), the L2 + DRAM bandwidth model (mem_l2.c) and the
 * constant caches (mem_const.c).  Includes the pointer-chasing methodology
 * of seed 004 (sec. IV: cache size, line size and associativity read off a
 * stride/size sweep), applied to the model as a check that the geometry
 * it was given is the geometry it shows.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mem.h"
#include "ua.h"

static ua_cache *mk(long size, long assoc, long line, long sector, int wb,
                    int walloc)
{
    ua_cache_geom g = {size, assoc, line, sector, wb, walloc, UA_SET_MOD};
    return ua_cache_create(&g);
}

static void test_hit_miss(void)
{
    ua_cache *c = mk(4096, 4, 128, 32, 0, 0); /* 8 sets */
    ua_cache_res r;
    CHECK(c != NULL);
    CHECK_EQ_INT(ua_cache_sets(c), 8);
    ua_cache_access(c, 0x1000, 0x3, 0, &r);
    CHECK_EQ_INT(r.miss, 0x3);
    CHECK_EQ_INT(r.tag_hit, 0);
    ua_cache_access(c, 0x1000, 0x3, 0, &r);
    CHECK_EQ_INT(r.miss, 0);
    /* sector miss on a present tag fetches only the missing sector */
    ua_cache_access(c, 0x1040, 0x4, 0, &r); /* address inside the line */
    CHECK_EQ_INT(r.tag_hit, 1);
    CHECK_EQ_INT(r.miss, 0x4);
    CHECK(ua_cache_probe(c, 0x1000, 0x7, NULL));
    CHECK(!ua_cache_probe(c, 0x1000, 0x8, NULL));
    ua_cache_stats st;
    ua_cache_stats_get(c, &st);
    CHECK_EQ_INT(st.accesses, 3);
    CHECK_EQ_INT(st.hits, 1);
    CHECK_EQ_INT(st.sector_misses, 3);
    /* fills in flight: a hit before the fill sees its ready time */
    ua_cache_set_ready(c, 0x1000, 0x4, 500);
    ua_cache_access(c, 0x1000, 0x4, 0, &r);
    CHECK_EQ_INT(r.miss, 0);
    CHECK_EQ_INT(r.ready, 500);
    ua_cache_free(c);

    /* invalid geometries */
    CHECK(mk(4096, 4, 128, 48, 0, 0) == NULL);
    CHECK(mk(4096, 0, 128, 32, 0, 0) == NULL);
    /* size 0: no cache, every access misses */
    c = mk(0, 4, 128, 32, 0, 0);
    CHECK(c != NULL);
    ua_cache_access(c, 0, 1, 0, &r);
    ua_cache_access(c, 0, 1, 0, &r);
    CHECK_EQ_INT(r.miss, 1);
    ua_cache_free(c);
    ua_cache_free(NULL);
}

/* LRU order within a set, and associativity: assoc lines of one set fit,
 * assoc + 1 in a cyclic order always miss. */
static void test_lru_assoc(void)
{
    for (long assoc = 1; assoc <= 8; assoc *= 2) {
        ua_cache *c = mk(16 * 128 * assoc, assoc, 128, 32, 0, 0); /* 16 sets */
        uint64_t set_stride = 16 * 128;
        ua_cache_res r;
        for (int pass = 0; pass < 3; pass++)
            for (long i = 0; i < assoc; i++) {
                ua_cache_access(c, (uint64_t)i * set_stride, 0xf, 0, &r);
                CHECK_EQ_INT(r.miss != 0, pass == 0);
            }
        ua_cache_stats st;
        ua_cache_stats_get(c, &st);
        CHECK_EQ_INT(st.evictions, 0);
        for (int pass = 0; pass < 3; pass++)
            for (long i = 0; i <= assoc; i++) {
                ua_cache_access(c, (uint64_t)(i + 100) * set_stride, 0xf, 0,
                                &r);
                CHECK(r.miss != 0);
            }
        ua_cache_free(c);
    }
    /* LRU, not FIFO: touching the oldest line protects it */
    ua_cache *c = mk(2 * 128, 2, 128, 32, 0, 0); /* 1 set, 2 ways */
    ua_cache_res r;
    ua_cache_access(c, 0, 0xf, 0, &r);   /* A */
    ua_cache_access(c, 128, 0xf, 0, &r); /* B */
    ua_cache_access(c, 0, 0xf, 0, &r);   /* A again: B is LRU */
    ua_cache_access(c, 256, 0xf, 0, &r); /* C evicts B */
    CHECK_EQ_INT(r.evicted, 1);
    CHECK_EQ_INT(r.evict_addr, 128);
    CHECK(ua_cache_probe(c, 0, 0xf, NULL));
    CHECK(!ua_cache_probe(c, 128, 0xf, NULL));
    ua_cache_free(c);
}

static void test_write_policies(void)
{
    ua_cache_res r;
    /* write-back, write-allocate: dirty sectors come back on eviction */
    ua_cache *c = mk(128, 1, 128, 32, 1, 1);
    ua_cache_access(c, 0, 0x5, 1, &r);
    CHECK(ua_cache_probe(c, 0, 0x5, NULL));
    ua_cache_access(c, 128, 0x1, 0, &r);
    CHECK_EQ_INT(r.evicted, 1);
    CHECK_EQ_INT(r.evict_dirty, 0x5);
    ua_cache_access(c, 256, 0x1, 0, &r); /* clean line: nothing to write */
    CHECK_EQ_INT(r.evict_dirty, 0);
    ua_cache_free(c);
    /* write-through, no-write-allocate: a write miss leaves the cache
       alone, a write hit updates without dirtying */
    c = mk(128, 1, 128, 32, 0, 0);
    ua_cache_access(c, 0, 0x1, 1, &r);
    CHECK_EQ_INT(r.miss, 0x1);
    CHECK(!ua_cache_probe(c, 0, 0x1, NULL));
    ua_cache_access(c, 0, 0x1, 0, &r);
    ua_cache_access(c, 0, 0x3, 1, &r);
    CHECK(ua_cache_probe(c, 0, 0x3, NULL));
    ua_cache_access(c, 128, 0x1, 0, &r);
    CHECK_EQ_INT(r.evict_dirty, 0);
    ua_cache_free(c);
}

/* Seed 004 sec. IV-B: average latency of a stride-s pointer chase over an
 * array of N bytes (hit 1, miss 10); the plot's steps give the geometry. */
static double chase(ua_cache *c, uint64_t n, uint64_t stride)
{
    ua_cache_res r;
    uint64_t lat = 0, acc = 0;
    for (int pass = 0; pass < 4; pass++)
        for (uint64_t a = 0; a < n; a += stride) {
            ua_cache_access(c, a, 1u << ((a % 128) / 32), 0, &r);
            if (pass > 0) {
                lat += r.miss ? 10 : 1;
                acc++;
            }
        }
    return (double)lat / (double)acc;
}

static void test_seed004_methodology(void)
{
    long size = 16384, assoc = 4, line = 128;
    /* size: the largest array with no misses */
    uint64_t found = 0;
    for (uint64_t n = 1024; n <= 65536; n += 1024) {
        ua_cache *c = mk(size, assoc, line, 32, 0, 0);
        if (chase(c, n, 32) == 1.0)
            found = n;
        ua_cache_free(c);
    }
    CHECK_EQ_INT(found, (uint64_t)size);
    /* line: just past the size, stride-4 B misses once per line */
    ua_cache *c = mk(size, assoc, line, line, 0, 0);
    double avg = chase(c, 2 * (uint64_t)size, 4);
    CHECK_NEAR(avg, 1.0 + 9.0 * 4.0 / (double)line, 1e-9);
    ua_cache_free(c);
    /* associativity: with stride = size/assoc (one set), assoc elements
       fit, assoc + 1 do not (LRU) */
    c = mk(size, assoc, line, 32, 0, 0);
    uint64_t way = (uint64_t)(size / assoc);
    CHECK_NEAR(chase(c, way * (uint64_t)assoc, way), 1.0, 1e-9);
    ua_cache_free(c);
    c = mk(size, assoc, line, 32, 0, 0);
    CHECK_NEAR(chase(c, way * (uint64_t)(assoc + 1), way), 10.0, 1e-9);
    ua_cache_free(c);
}

static void load_cfg(wc_gpu *g)
{
    wc_diag d;
    char path[2048];
    memset(&d, 0, sizeof d);
    snprintf(path, sizeof path, "%s/gpus/mem-ampere.cfg", wc_data_dir());
    wc_gpu_defaults(g);
    int rc = wc_gpu_load(path, g, &d);
    if (rc) {
        char buf[2200];
        wc_diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
    }
    CHECK_EQ_INT(rc, WC_OK);
}

static void test_l2_dram(void)
{
    wc_gpu g;
    load_cfg(&g);
    g.l2_size = 1 << 20;
    g.l2_bw = 64;   /* 2 sectors per cycle */
    g.dram_bw = 16; /* one sector every 2 cycles */
    g.l1_latency = 30;
    g.l2_latency = 200;
    g.dram_latency = 500;
    dm_l2 *l2 = dm_l2_create(&g);
    CHECK(l2 != NULL);
    /* cold read: DRAM latency over the L1 hit */
    CHECK_EQ_INT(dm_l2_access(l2, 0, 0x1, 0, 0), 500 - 30);
    /* after the fill: an L2 hit */
    CHECK_EQ_INT(dm_l2_access(l2, 0, 0x1, 0, 1000), 200 - 30);
    /* before the fill completes: merged with it */
    CHECK_EQ_INT(dm_l2_access(l2, 128, 0xf, 0, 2000), 500 - 30);
    CHECK_EQ_INT(dm_l2_access(l2, 128, 0x1, 0, 2010), 2000 + 470 - 2010);
    dm_l2_free(l2);

    /* DRAM bandwidth: 64 four-sector misses at cycle 0 are served one
       after another at dram_bw; the last waits 63 * 4 * 32 / 16 cycles */
    l2 = dm_l2_create(&g);
    uint64_t prev = 0, last = 0;
    for (unsigned i = 0; i < 64; i++) {
        uint64_t e = dm_l2_access(l2, 4096 + 128ull * i, 0xf, 0, 0);
        CHECK(e >= prev);
        prev = e;
        last = e;
    }
    CHECK_EQ_INT(last, 470 + 63 * 8);
    dm_l2_stats st;
    dm_l2_stats_get(l2, &st);
    CHECK_EQ_INT(st.dram_read_sectors, 256);
    CHECK_NEAR(st.dram_busy_until, 256 * 2, 1e-9);
    /* spaced out below the bandwidth: no queueing */
    for (unsigned i = 0; i < 16; i++) {
        uint64_t t = 10000 + 8ull * i;
        CHECK_EQ_INT(dm_l2_access(l2, 1 << 19 | 128ull * i, 0xf, 0, t), 470);
    }
    /* L2 bandwidth on hits: 32 four-sector hits at one cycle */
    for (unsigned i = 0; i < 32; i++)
        last = dm_l2_access(l2, 4096 + 128ull * i, 0xf, 0, 20000);
    CHECK_EQ_INT(last, 170 + 31 * 2);
    dm_l2_free(l2);

    /* write-back L2: dirty lines reach DRAM only when evicted */
    g.l2_size = 128;
    g.l2_assoc = 1;
    l2 = dm_l2_create(&g);
    dm_l2_access(l2, 0, 0xf, 1, 0);
    dm_l2_stats_get(l2, &st);
    CHECK_EQ_INT(st.dram_write_sectors, 0);
    dm_l2_access(l2, 128, 0x1, 0, 100);
    dm_l2_stats_get(l2, &st);
    CHECK_EQ_INT(st.dram_write_sectors, 4);
    dm_l2_free(l2);
    dm_l2_free(NULL);
}

static void test_const(void)
{
    wc_gpu g;
    load_cfg(&g);
    dm_cc *cc = dm_cc_create(&g, 4);
    CHECK(cc != NULL);
    uint64_t a = 3u << 16 | 0x160;
    /* cold: L0 and L1 miss */
    CHECK_EQ_INT(dm_cc_probe_fl(cc, 0, a, 100),
                 100 + g.cc_l0_miss_latency + g.cc_l1_miss_latency);
    /* while the fill is in flight the same time comes back */
    CHECK_EQ_INT(dm_cc_probe_fl(cc, 0, a, 150),
                 100 + g.cc_l0_miss_latency + g.cc_l1_miss_latency);
    uint64_t t = 100 + (uint64_t)(g.cc_l0_miss_latency + g.cc_l1_miss_latency);
    CHECK_EQ_INT(dm_cc_probe_fl(cc, 0, a, t), t);         /* hit */
    CHECK_EQ_INT(dm_cc_probe_fl(cc, 0, a, t + 5), t + 5); /* hit */
    /* seed 000 5.4: an LDC (L0 VL) warms the L1 but not the L0 FL of
       another sub-core: the fixed-latency access waits 79 cycles */
    uint64_t b = 3u << 16 | 0x800;
    CHECK_EQ_INT(dm_cc_access_vl(cc, b, 1000),
                 g.cc_l0_miss_latency + g.cc_l1_miss_latency);
    CHECK_EQ_INT(dm_cc_access_vl(cc, b, 2000), 0);
    CHECK_EQ_INT(dm_cc_probe_fl(cc, 1, b, 3000), 3000 + 79);
    CHECK_EQ_INT(dm_cc_probe_fl(cc, 1, b, 3079), 3079);
    /* sub-cores have their own L0 FL */
    CHECK_EQ_INT(dm_cc_probe_fl(cc, 2, a, 4000), 4000 + 79);
    uint64_t fh, fm, vh, vm;
    dm_cc_stats(cc, &fh, &fm, &vh, &vm);
    CHECK_EQ_INT(fm, 3);
    CHECK_EQ_INT(vh, 1);
    CHECK_EQ_INT(vm, 1);
    dm_cc_free(cc);
}

/* ---- reference: the cache as its contract states it, slowly ------------- */

/* Stamped LRU over a plain array, the set index by a 64-bit `%`: the fast
 * layout (flat tags, masks, multiply-shift set index, lazy clearing) must
 * take every decision this one takes. */
typedef struct ref_line {
    uint64_t tag, ready, stamp;
    uint32_t valid, dirty;
} ref_line;

typedef struct ref_cache {
    long sets, assoc, line;
    uint32_t full;
    int wb, wa, hash;
    uint64_t clock;
    ref_line *l;
} ref_cache;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void ref_access(ref_cache *c, uint64_t addr, uint32_t sectors,
                       int wr, ua_cache_res *r)
{
    uint64_t la = addr - addr % (uint64_t)c->line;
    sectors &= c->full;
    memset(r, 0, sizeof *r);
    r->miss = sectors;
    r->fwd = wr ? sectors : 0;
    if (c->sets == 0)
        return;
    uint64_t n = la / (uint64_t)c->line;
    if (c->hash == UA_SET_XOR)
        n ^= (n >> 7) ^ (n >> 17);
    ref_line *s = c->l + (size_t)(n % (uint64_t)c->sets) * (size_t)c->assoc;
    long l = -1, empty = -1, old = 0;
    for (long w = 0; w < c->assoc; w++) {
        if (!s[w].valid) {
            if (empty < 0)
                empty = w;
        } else if (s[w].tag == la) {
            l = w;
            break;
        }
        if (s[w].stamp < s[old].stamp)
            old = w;
    }
    if (l >= 0) {
        r->tag_hit = 1;
        r->miss = sectors & ~s[l].valid;
        if (sectors & s[l].valid)
            r->ready = s[l].ready;
    }
    if (l < 0 && (!wr || c->wa)) {
        if (empty < 0) /* full: least recent stamp over all ways */
            for (long w = 0; w < c->assoc; w++)
                if (s[w].stamp < s[old].stamp)
                    old = w;
        l = empty >= 0 ? empty : old;
        if (s[l].valid) {
            r->evicted = 1;
            r->evict_addr = s[l].tag;
            r->evict_dirty = s[l].dirty;
        }
        s[l].tag = la;
        s[l].valid = s[l].dirty = 0;
        s[l].ready = 0;
    }
    if (l < 0)
        return;
    s[l].valid |= sectors;
    if (wr && c->wb) {
        s[l].dirty |= sectors;
        r->fwd = 0;
    }
    s[l].stamp = ++c->clock;
}

static void test_reference(void)
{
    /* size, assoc, line, sector, hash, address span (0: all 64 bits) */
    static const long geo[][6] = {
        {4096, 4, 128, 32, UA_SET_MOD, 1 << 16},
        {50331648, 16, 128, 32, UA_SET_XOR, 1 << 26}, /* 24576 sets      */
        {3 * 7 * 128 * 5, 5, 128, 32, UA_SET_MOD, 1 << 16},
        {3 * 7 * 128 * 5, 5, 128, 32, UA_SET_XOR, 0},
        {1000 * 64 * 3, 3, 64, 4, UA_SET_MOD, 1 << 20}, /* 16 sectors    */
        {999 * 128 * 2, 2, 128, 4, UA_SET_XOR, 0},      /* 32 sectors    */
        {300 * 32 * 7, 300, 32, 32, UA_SET_MOD, 1 << 18}, /* wide order  */
        {96 * 11, 1, 96, 32, UA_SET_MOD, 1 << 14},      /* line not 2^k  */
        {0, 4, 128, 32, UA_SET_MOD, 1 << 12},           /* no cache      */
        /* 8 ways and more take the fingerprint lookup: full sets */
        {16 * 128 * 16, 16, 128, 32, UA_SET_MOD, 1 << 16},
        {8 * 64 * 8, 8, 64, 32, UA_SET_XOR, 1 << 14},
        {5 * 128 * 12, 12, 128, 32, UA_SET_MOD, 1 << 15}, /* 12: 8 + 4   */
    };
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        for (int wb = 0; wb < 2; wb++) {
            ua_cache_geom g = {geo[gi][0],      geo[gi][1],      geo[gi][2],
                               geo[gi][3],      wb,              !wb,
                               (int)geo[gi][4]};
            ua_cache *c = ua_cache_create(&g);
            CHECK(c != NULL);
            if (!c)
                continue;
            ref_cache rc = {0};
            rc.sets = g.size / (g.line_bytes * g.assoc);
            rc.assoc = g.assoc;
            rc.line = g.line_bytes;
            long ns = g.line_bytes / g.sector_bytes;
            rc.full = ns >= 32 ? 0xffffffffu : (1u << ns) - 1u;
            rc.wb = wb;
            rc.wa = !wb;
            rc.hash = (int)geo[gi][4];
            rc.l = calloc((size_t)(rc.sets * rc.assoc) + 1, sizeof *rc.l);
            CHECK_EQ_INT(ua_cache_sets(c), rc.sets);
            uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)gi * 7919u +
                            (wb ? 1u : 0u);
            uint64_t span = (uint64_t)geo[gi][5];
            long bad = 0;
            for (int i = 0; i < 200000 && rc.l; i++) {
                uint64_t x = rng_next(&seed);
                uint64_t addr = span ? x % span : x;
                if (span && (x >> 60) == 0)
                    addr |= 0xfff0000000000000ull; /* high bits too */
                uint32_t sec = (uint32_t)(rng_next(&seed) & 0xffffffffu);
                if ((x >> 40) % 5 == 0)
                    sec = 0; /* an access of no sector */
                int wr = (x >> 32) % 3 == 0;
                ua_cache_res a, b;
                ua_cache_access(c, addr, sec, wr, &a);
                ref_access(&rc, addr, sec, wr, &b);
                if (a.miss != b.miss || a.fwd != b.fwd ||
                    a.tag_hit != b.tag_hit || a.ready != b.ready ||
                    a.evicted != b.evicted || a.evict_addr != b.evict_addr ||
                    a.evict_dirty != b.evict_dirty)
                    bad++;
                if ((x >> 20) % 7 == 0) {
                    uint64_t t = (uint64_t)i + 1;
                    ua_cache_set_ready(c, addr, sec, t);
                    /* the reference: same rule */
                    uint64_t la = addr - addr % (uint64_t)rc.line;
                    uint64_t n = la / (uint64_t)rc.line;
                    if (rc.hash == UA_SET_XOR)
                        n ^= (n >> 7) ^ (n >> 17);
                    if (rc.sets && (sec & rc.full)) {
                        ref_line *s = rc.l + (size_t)(n % (uint64_t)rc.sets) *
                                                 (size_t)rc.assoc;
                        for (long w = 0; w < rc.assoc; w++)
                            if (s[w].tag == la && s[w].valid) {
                                if ((s[w].valid & sec) && t > s[w].ready)
                                    s[w].ready = t;
                                break;
                            }
                    }
                }
                uint64_t pr = 0;
                int hit = ua_cache_probe(c, addr ^ 0x40, sec, &pr);
                (void)hit;
            }
            CHECK_EQ_INT(bad, 0);
            free(rc.l);
            ua_cache_free(c);
        }
    }
}

/* An untimed cache decides the same and reports no fill times. */
static void test_untimed(void)
{
    ua_cache_geom g = {3 * 7 * 128 * 5, 5, 128, 32, 1, 1, UA_SET_XOR};
    ua_cache *a = ua_cache_create(&g), *b = ua_cache_create_untimed(&g);
    CHECK(a && b);
    if (!a || !b)
        return;
    uint64_t seed = 12345;
    long bad = 0;
    for (int i = 0; i < 50000; i++) {
        uint64_t x = rng_next(&seed);
        uint64_t addr = x % (1u << 18);
        uint32_t sec = (uint32_t)(x >> 40) & 0xf;
        int wr = (x >> 32) % 4 == 0;
        ua_cache_res ra, rb;
        ua_cache_access(a, addr, sec, wr, &ra);
        ua_cache_access(b, addr, sec, wr, &rb);
        ua_cache_set_ready(a, addr, sec, (uint64_t)i + 1);
        ua_cache_set_ready(b, addr, sec, (uint64_t)i + 1);
        if (ra.miss != rb.miss || ra.evicted != rb.evicted ||
            ra.evict_addr != rb.evict_addr || rb.ready != 0)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    ua_cache_free(a);
    ua_cache_free(b);
}

/* Two L1 + L2 pairs for the walk tests (c[0], c[1] and c[2], c[3]): an
 * L1 of 4 ways and 64 sets under the given write policy, an L2 of 16 ways
 * and 96 sets (not a power of two); 1 when all four were made (c[] set
 * either way, NULL where not). */
static int walk_caches(int l1_wb, ua_cache *c[4])
{
    ua_cache_geom g1 = {64L * 4 * 128, 4, 128, 32, l1_wb, l1_wb, UA_SET_MOD};
    ua_cache_geom g2 = {96L * 16 * 128, 16, 128, 32, 1, 1, UA_SET_MOD};
    for (int i = 0; i < 4; i++)
        c[i] = ua_cache_create_untimed(i % 2 ? &g2 : &g1);
    CHECK(c[0] && c[1] && c[2] && c[3]);
    return c[0] && c[1] && c[2] && c[3];
}

/* ua_cache_walk against the ua_cache_access calls it stands for: an L1
 * (4 ways) and an L2 (16 ways, a set count not a power of two) walked with
 * random runs of lines (across the last set, and across the top of the
 * address space, where the walk's next-set shortcut must not apply; some
 * sector masks with bits past a line's sectors), reads and writes, under
 * both L1 write policies (write-back: dirty victims written back to the
 * L2): the same results and the same statistics. */
/* A fold for the walk tests' L2s: 4 of the 8 chunks of 64 KB their lines
 * lie in, folded into 100 lines; hashed (mode 2, ua_fold_index) or
 * bisected (mode 1); mode 0: none.  *slot: the index to free. */
static const uint64_t walk_chunks[4] = {1, 3, 4, 6};

static void walk_fold(int mode, ua_cache *c[4], ua_fold *f, uint32_t **slot)
{
    ua_fold z = {16, 4, walk_chunks, 100 * 128, NULL, 0};
    *f = z;
    *slot = mode == 2 ? ua_fold_index(f) : NULL;
    if (mode == 2)
        CHECK(*slot != NULL && f->slot == *slot);
    if (mode) {
        ua_cache_set_fold(c[1], f);
        ua_cache_set_fold(c[3], f);
    }
}

static void walk_same(int l1_wb, int fold)
{
    ua_cache *c[4];
    ua_fold f;
    uint32_t *slot = NULL;
    if (!walk_caches(l1_wb, c))
        goto out;
    walk_fold(fold, c, &f, &slot);
    ua_cache *a1 = c[0], *a2 = c[1], *b1 = c[2], *b2 = c[3];
    uint64_t x = 12345;
    int bad = 0;
    for (int it = 0; it < 20000; it++) {
        ua_line ls[8];
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned n = 1 + (unsigned)(x >> 61);
        uint64_t base = (x >> 20) % 4096 * 128;
        if ((x >> 40) % 16 == 0) /* runs across the top of the address
                                    space: line 0 is not the next one */
            base = 0 - (uint64_t)128 * (1 + (x >> 44) % 4);
        int is_write = (x >> 13) % 3 == 0;
        int no_l1 = (x >> 17) % 7 == 0;
        for (unsigned i = 0; i < n; i++) {
            ls[i].addr = base + 128 * (i + ((x >> (8 + i)) & 1) * 3);
            ls[i].sectors = 1 + (uint32_t)((x >> (3 * i)) % 15);
            if ((x >> 50) % 16 == i) /* a caller's bits past the line's
                                        sectors: the caches ignore them */
                ls[i].sectors |= 0x30u;
        }
        ua_walk w;
        CHECK(ua_cache_walk(no_l1 ? NULL : a1, a2, ls, n, is_write, &w) == 1);
        unsigned tot = 0, l1_hit = 0, nl2 = 0, l2_hit = 0, rd = 0, wr = 0;
        int level = 1;
        for (unsigned i = 0; i < n; i++) {
            unsigned ns = ua_popcount32(ls[i].sectors);
            uint32_t q = ls[i].sectors;
            ua_cache_res r = {0};
            tot += ns;
            if (!no_l1) {
                ua_cache_access(b1, ls[i].addr, q, is_write, &r);
                q = is_write ? r.fwd : r.miss;
                if (!is_write)
                    l1_hit += ns - ua_popcount32(q);
            }
            if (no_l1 || q) {
                ua_cache_res r2;
                ua_cache_access(b2, ls[i].addr, q, is_write, &r2);
                nl2 += ua_popcount32(q);
                if (r2.evicted)
                    wr += ua_popcount32(r2.evict_dirty);
                if (is_write) {
                    wr += ua_popcount32(r2.fwd);
                } else {
                    unsigned nm = ua_popcount32(r2.miss);
                    l2_hit += ua_popcount32(q) - nm;
                    level = nm ? 3 : level < 2 ? 2 : level;
                    rd += nm;
                }
            }
            if (r.evicted && r.evict_dirty) {
                ua_cache_res r3;
                ua_cache_access(b2, r.evict_addr, r.evict_dirty, 1, &r3);
                nl2 += ua_popcount32(r.evict_dirty);
                if (r3.evicted)
                    wr += ua_popcount32(r3.evict_dirty);
                wr += ua_popcount32(r3.fwd);
            }
        }
        if (w.sectors != tot || w.l1_hit != l1_hit || w.l2 != nl2 ||
            w.l2_hit != l2_hit || w.dram_rd != rd || w.dram_wr != wr ||
            w.level != level)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    ua_cache_stats sa, sb;
    ua_cache *ca[2] = {a1, a2}, *cb[2] = {b1, b2};
    for (int k = 0; k < 2; k++) {
        ua_cache_stats_get(ca[k], &sa);
        ua_cache_stats_get(cb[k], &sb);
        CHECK(sa.accesses == sb.accesses && sa.hits == sb.hits &&
              sa.misses == sb.misses && sa.sector_hits == sb.sector_hits &&
              sa.sector_misses == sb.sector_misses &&
              sa.evictions == sb.evictions && sa.writebacks == sb.writebacks);
        CHECK(sa.accesses > 0 && sa.evictions > 0);
    }
out:
    for (int i = 0; i < 4; i++)
        ua_cache_free(c[i]);
    free(slot);
}

/* ua_cache_walk_run against ua_cache_walk of the same lines in an array:
 * runs of 1 to 8 lines with partial first and last lines, across the last
 * set, reads and writes, with and without the L1, under both L1 write
 * policies: the same results and statistics; and the runs the walk must
 * decline (another line size, sectors past the line). */
static void walk_run_same(int l1_wb, int fold)
{
    ua_cache *c[4];
    ua_fold f;
    uint32_t *slot = NULL;
    if (!walk_caches(l1_wb, c))
        goto out;
    walk_fold(fold, c, &f, &slot);
    ua_cache *a1 = c[0], *a2 = c[1], *b1 = c[2], *b2 = c[3];
    uint64_t x = 777;
    int bad = 0;
    for (int it = 0; it < 20000; it++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        ua_run r;
        r.n = 1 + (unsigned)(x >> 61);
        r.addr = (x >> 20) % 4096 * 128;
        r.line_shift = 7;
        r.first = 0xfu & (0xfu << ((x >> 8) & 3));
        r.last = 0xfu >> ((x >> 10) & 3);
        if (r.n == 1)
            r.first = r.last = r.first & r.last ? r.first & r.last : 0x2;
        ua_line ls[8];
        for (unsigned i = 0; i < r.n; i++) {
            ls[i].addr = r.addr + 128 * (uint64_t)i;
            ls[i].sectors = i == 0 ? r.first : i == r.n - 1 ? r.last : 0xfu;
        }
        int is_write = (x >> 13) % 3 == 0;
        int no_l1 = (x >> 17) % 7 == 0;
        ua_walk wa, wb;
        CHECK(ua_cache_walk_run(no_l1 ? NULL : a1, a2, &r, is_write, &wa) == 1);
        CHECK(ua_cache_walk(no_l1 ? NULL : b1, b2, ls, r.n, is_write, &wb) == 1);
        if (memcmp(&wa, &wb, sizeof wa) != 0)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    ua_cache_stats sa, sb;
    ua_cache *ca[2] = {a1, a2}, *cb[2] = {b1, b2};
    for (int k = 0; k < 2; k++) {
        ua_cache_stats_get(ca[k], &sa);
        ua_cache_stats_get(cb[k], &sb);
        CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        CHECK(sa.accesses > 0 && sa.evictions > 0);
    }
    ua_walk w;
    ua_run r = {0x1000, 2, 6, 0x3, 0x3}; /* 64-byte lines: not the caches' */
    CHECK(ua_cache_walk_run(a1, a2, &r, 0, &w) == 0);
    r.line_shift = 7;
    r.first = 0x13; /* a sector past the line */
    CHECK(ua_cache_walk_run(a1, a2, &r, 0, &w) == 0);
    r.first = 0x3;
    r.addr = 0x1040; /* not a line's start */
    CHECK(ua_cache_walk_run(a1, a2, &r, 0, &w) == 0);
    r.addr = 0 - (uint64_t)128; /* the second line past the top */
    CHECK(ua_cache_walk_run(a1, a2, &r, 0, &w) == 0);
    r.n = 1; /* the last line of the address space alone */
    CHECK(ua_cache_walk_run(a1, a2, &r, 0, &w) == 1);
out:
    for (int i = 0; i < 4; i++)
        ua_cache_free(c[i]);
    free(slot);
}

/* The walks with and without a fold on the L2 (a folded L2 sees the
 * folded addresses, as its own accesses would: the walk against
 * ua_cache_access line by line), its chunks hashed or bisected. */
static void test_walk(void)
{
    for (int fold = 0; fold < 3; fold++) {
        walk_same(0, fold);
        walk_same(1, fold);
        walk_run_same(0, fold);
        walk_run_same(1, fold);
    }
}

/* Shared data folded into a slice's L2 (ua_fold, sampler stand-ins):
 * the shared chunks' bytes in order, modulo the span, back in those
 * chunks; other addresses unchanged; a line stays whole; the cache takes
 * the folded address for accesses, fill times and probes (its walks:
 * test_walk); the hash index (ua_fold_index) answers as the bisection. */
static void test_fold(void)
{
    const uint64_t ch[3] = {0x10, 0x12, 0x40}; /* chunks of 64 KB */
    ua_fold f = {16, 3, ch, 96 * 1024, NULL, 0}; /* 1.5 chunks */
    CHECK(ua_fold_in(&f, 0x100000));
    CHECK(ua_fold_in(&f, 0x12ffff));
    CHECK(!ua_fold_in(&f, 0x110000));
    CHECK(!ua_fold_in(&f, 0x3ffff0));
    /* outside: unchanged */
    CHECK_EQ_INT(ua_fold_addr(&f, 0x110080), 0x110080);
    CHECK_EQ_INT(ua_fold_addr(&f, 0x0), 0x0);
    /* within the span: unchanged (rank 0, and the first half of rank 1) */
    CHECK_EQ_INT(ua_fold_addr(&f, 0x100080), 0x100080);
    CHECK_EQ_INT(ua_fold_addr(&f, 0x127f80), 0x127f80);
    /* past it: 96 KB back */
    CHECK_EQ_INT(ua_fold_addr(&f, 0x128000), 0x100000);
    CHECK_EQ_INT(ua_fold_addr(&f, 0x400000 + 0x1234), 0x108000 + 0x1234);
    /* every address lands in a shared chunk, inside the span, and the
     * bytes of one 128-byte line fold to one line */
    for (uint64_t i = 0; i < 3; i++)
        for (uint64_t off = 0; off < 65536; off += 4093) {
            uint64_t a = ch[i] << 16 | off, fa = ua_fold_addr(&f, a);
            CHECK(ua_fold_in(&f, fa));
            size_t r = fa >> 16 == 0x10 ? 0 : fa >> 16 == 0x12 ? 1 : 2;
            CHECK((r << 16 | (fa & 0xffff)) < f.span);
            CHECK_EQ_INT(ua_fold_addr(&f, a & ~(uint64_t)127) >> 7, fa >> 7);
        }
    /* the cache: two shared lines a span apart are one line */
    ua_cache *c = mk(64L * 1024, 16, 128, 32, 1, 1);
    CHECK(c != NULL);
    if (!c)
        return;
    ua_cache_set_fold(c, &f);
    ua_cache_res r;
    ua_cache_access(c, 0x100100, 0xf, 0, &r);
    CHECK_EQ_INT(r.miss, 0xf);
    ua_cache_access(c, 0x128100, 0xf, 0, &r); /* folds onto 0x100100 */
    CHECK_EQ_INT(r.miss, 0);
    ua_cache_set_ready(c, 0x128100, 0x1, 77);
    uint64_t ready = 0;
    CHECK(ua_cache_probe(c, 0x100100, 0x1, &ready));
    CHECK_EQ_INT(ready, 77);
    ua_cache_access(c, 0x110100, 0xf, 0, &r); /* not shared: its own line */
    CHECK_EQ_INT(r.miss, 0xf);
    ua_cache_set_fold(c, NULL); /* off again: 0x128100 is its own line */
    ua_cache_access(c, 0x128100, 0xf, 0, &r);
    CHECK_EQ_INT(r.miss, 0xf);
    ua_cache_free(c);
    /* the hash index: the same ranks as the bisection, shared or not, for
     * chunks of many ranks (collisions and all) */
    uint64_t many[300];
    for (int i = 0; i < 300; i++)
        many[i] = 5 + (uint64_t)i * 3 + (uint64_t)(i / 7) * 1000;
    ua_fold hb = {16, 300, many, 123 * 4096, NULL, 0}, hh = hb;
    uint32_t *slot = ua_fold_index(&hh);
    CHECK(slot != NULL && hh.slot_lg >= 10);
    int bad = 0;
    uint64_t x = 99;
    for (int i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t a = (x >> 24) % ((uint64_t)50000 << 16);
        if (ua_fold_in(&hb, a) != ua_fold_in(&hh, a) ||
            ua_fold_addr(&hb, a) != ua_fold_addr(&hh, a))
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    free(slot);
    ua_fold none = {16, 0, many, 4096, NULL, 0};
    CHECK(ua_fold_index(&none) == NULL && none.slot == NULL);
}

int main(void)
{
    test_fold();
    test_walk();
    test_reference();
    test_untimed();
    test_hit_miss();
    test_lru_assoc();
    test_write_policies();
    test_seed004_methodology();
    test_l2_dram();
    test_const();
    CHECK_DONE();
}
