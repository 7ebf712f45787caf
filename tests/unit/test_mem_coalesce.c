/*
 * tests/unit/test_mem_coalesce.c - coalescing of warp accesses into lines
 * and sectors (uarch/ua_mem_coalesce.c) and shared-memory bank conflicts
 * (uarch/ua_mem_shared.c): coalesced, strided, scattered, divergent and
 * uniform patterns; 1-way to 32-way conflicts and broadcast.
 */
#include <string.h>

#include "check.h"
#include "ua.h"

static void mk(wc_inst *in, const char *opcode, unsigned width, uint32_t mask)
{
    memset(in, 0, sizeof *in);
    strncpy(in->opcode, opcode, sizeof in->opcode - 1);
    size_t bl = strcspn(opcode, ".");
    in->op = (uint16_t)wc_op_lookup(opcode, bl);
    in->ndst = 1;
    in->dst[0] = 0;
    in->nsrc = 1;
    in->src[0] = 2;
    in->mask = mask;
    in->width = (uint8_t)width;
    in->depbar_sb = -1;
    wc_inst_finish(in);
    in->iflags |= WC_IF_HAS_ADDR;
}

/* lane l at base + l * stride */
static void strided(wc_inst *in, uint64_t base, uint64_t stride)
{
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in->addr[l] = (in->mask >> l & 1u) ? base + l * stride : 0;
}

static unsigned lines_of(const wc_inst *in, unsigned *sectors)
{
    static ua_line out[UA_MAX_LINES];
    unsigned n = ua_coalesce(in, 128, 32, out);
    *sectors = ua_lines_sectors(out, n);
    return n;
}

static void test_coalesce(void)
{
    wc_inst in;
    unsigned s, n;

    /* coalesced 32-bit: one line, four sectors */
    mk(&in, "LDG.E", 4, 0xffffffffu);
    strided(&in, 0x1000, 4);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(s, 4);
    CHECK_EQ_INT(s, wc_inst_sectors(&in));

    /* coalesced 64-bit and 128-bit: 2 and 4 lines */
    mk(&in, "LDG.E.64", 8, 0xffffffffu);
    strided(&in, 0x1000, 8);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(s, 8);
    mk(&in, "LDG.E.128", 16, 0xffffffffu);
    strided(&in, 0x1000, 16);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 4);
    CHECK_EQ_INT(s, 16);

    /* misaligned coalesced: spans two lines, five sectors */
    mk(&in, "LDG.E", 4, 0xffffffffu);
    strided(&in, 0x1000 + 16, 4);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(s, 5);
    CHECK_EQ_INT(s, wc_inst_sectors(&in));

    /* strided: 8 B -> 2 lines 8 sectors; 32 B -> 8 lines 32 sectors;
       128 B and more -> one line and one sector per lane */
    strided(&in, 0, 8);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(s, 8);
    strided(&in, 0, 32);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 8);
    CHECK_EQ_INT(s, 32);
    strided(&in, 0, 128);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 32);
    CHECK_EQ_INT(s, 32);
    strided(&in, 0, 4096);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 32);
    CHECK_EQ_INT(s, 32);

    /* scattered: a fixed pseudo-random pattern, checked against a count */
    wc_rng r;
    wc_rng_seed(&r, 7);
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in.addr[l] = (wc_rng_next(&r) % (1u << 14)) & ~3ull;
    n = lines_of(&in, &s);
    CHECK_EQ_INT(s, wc_inst_sectors(&in));
    {
        uint64_t seen[WC_WARP_SIZE];
        unsigned k = 0;
        for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
            uint64_t la = in.addr[l] / 128;
            unsigned j;
            for (j = 0; j < k && seen[j] != la; j++)
                ;
            if (j == k)
                seen[k++] = la;
        }
        CHECK_EQ_INT(n, k);
    }

    /* divergent: half the lanes (even lanes) of a coalesced access */
    mk(&in, "LDG.E", 4, 0x55555555u);
    strided(&in, 0x2000, 4);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(s, 4);
    /* lanes 0-7 only: one sector */
    mk(&in, "LDG.E", 4, 0x000000ffu);
    strided(&in, 0x2000, 4);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(s, 1);
    /* no active lane: nothing */
    mk(&in, "LDG.E", 4, 0);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 0);
    CHECK_EQ_INT(s, 0);

    /* uniform: every lane the same address */
    mk(&in, "LDG.E", 4, 0xffffffffu);
    strided(&in, 0x3004, 0);
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(s, 1);

    /* without addresses: taken as fully coalesced */
    mk(&in, "LDG.E.128", 16, 0xffffffffu);
    in.iflags &= (uint8_t)~WC_IF_HAS_ADDR;
    n = lines_of(&in, &s);
    CHECK_EQ_INT(n, 4);
    CHECK_EQ_INT(s, 16);
}

static void test_banks(void)
{
    wc_inst in;
    /* 32-bit, stride k words: gcd(k, 32)-way conflict */
    static const struct {
        unsigned stride_words, ways;
    } cases[] = {{1, 1},  {2, 2},  {3, 1},  {4, 4},   {8, 8},
                 {16, 16}, {32, 32}, {64, 32}, {33, 1}, {6, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mk(&in, "LDS", 4, 0xffffffffu);
        strided(&in, 0, 4ull * cases[i].stride_words);
        CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), cases[i].ways);
    }
    /* every n-way, n = 1..32: lane l hits bank (l mod (32/..)); build the
       conflict directly: lanes 0..n-1 same bank, distinct words */
    for (unsigned nway = 1; nway <= 32; nway++) {
        mk(&in, "LDS", 4, 0xffffffffu);
        for (unsigned l = 0; l < WC_WARP_SIZE; l++)
            in.addr[l] = l < nway ? 128ull * l : 4ull * l;
        CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), nway);
    }
    /* broadcast: all lanes one word; and pairs of lanes sharing words */
    mk(&in, "LDS", 4, 0xffffffffu);
    strided(&in, 0x40, 0);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 1);
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in.addr[l] = 4ull * (l / 2);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 1);
    /* broadcast does not hide a conflict: 2 words in bank 0 */
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in.addr[l] = l < 16 ? 0 : 128;
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 2);
    /* wide accesses: 64-bit and 128-bit conflict-free need 2 and 4 */
    mk(&in, "LDS.64", 8, 0xffffffffu);
    strided(&in, 0, 8);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 2);
    mk(&in, "LDS.128", 16, 0xffffffffu);
    strided(&in, 0, 16);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 4);
    /* 128-bit, stride 32 B: 8 way */
    strided(&in, 0, 32);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 8);
    /* inactive lanes do not conflict */
    mk(&in, "LDS", 4, 0x1u);
    strided(&in, 0, 128);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 1);
    mk(&in, "LDS", 4, 0);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 0);
    /* GT200-like 16 banks: stride 1 word, 32 lanes -> 2 */
    mk(&in, "LDS", 4, 0xffffffffu);
    strided(&in, 0, 4);
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 16, 4), 2);
    /* no addresses: conflict free */
    mk(&in, "LDS.128", 16, 0xffffffffu);
    in.iflags &= (uint8_t)~WC_IF_HAS_ADDR;
    CHECK_EQ_INT(ua_shmem_wavefronts(&in, 32, 4), 4);
}

/* The definition of bank conflicts: the most distinct words any bank
 * serves, words compared pairwise (what ua_shmem_wavefronts must give on
 * each of its paths: affine accesses from its per-thread table, words
 * within 64 rows by row masks, the rest by chains). */
static unsigned ref_banks(const wc_inst *in, unsigned banks, unsigned bb)
{
    static uint64_t words[WC_WARP_SIZE * 256];
    unsigned n = 0, best = 0;
    uint64_t w = in->width ? in->width : 4;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!(in->mask >> l & 1))
            continue;
        uint64_t a = in->addr[l];
        uint64_t last = a + w - 1 < a ? UINT64_MAX : a + w - 1;
        for (uint64_t x = a / bb;; x++) {
            unsigned k = 0;
            while (k < n && words[k] != x)
                k++;
            if (k == n)
                words[n++] = x;
            if (x == last / bb)
                break;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned c = 0;
        for (unsigned j = 0; j < n; j++)
            c += words[j] % banks == words[i] % banks;
        if (c > best)
            best = c;
    }
    return best;
}

static void test_banks_ref(void)
{
    wc_rng r;
    wc_rng_seed(&r, 11);
    static const unsigned bank_n[] = {32, 16, 24, 64, 128, 1};
    static const unsigned bank_b[] = {4, 8, 1, 3};
    static const unsigned widths[] = {4, 8, 16, 1, 2, 12};
    static const uint64_t strides[] = {0, 4, 8, 16, 128, 132, 12, 4096,
                                       (uint64_t)-4};
    int bad = 0;
    for (int it = 0; it < 6000; it++) {
        wc_inst in;
        unsigned w = widths[wc_rng_next(&r) % 6];
        mk(&in, "LDS", w, wc_rng_next(&r) % 3 ? 0xffffffffu
                                              : (uint32_t)wc_rng_next(&r));
        unsigned nb = bank_n[wc_rng_next(&r) % 6];
        unsigned bb = bank_b[wc_rng_next(&r) % 4];
        uint64_t base = wc_rng_next(&r) % (1u << 16);
        if (wc_rng_next(&r) % 8 == 0)
            base = UINT64_MAX - wc_rng_next(&r) % 512; /* words wrap */
        uint64_t stride = strides[wc_rng_next(&r) % 9];
        unsigned kind = (unsigned)(wc_rng_next(&r) % 4);
        for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
            in.addr[l] = base + stride * l;               /* affine */
            if (kind == 1)                                /* swizzle */
                in.addr[l] = base + 16ull * (l ^ (l >> 2));
            if (kind == 2)                                /* tile, wraps */
                in.addr[l] = base + (stride * l) % 2048;
            if (kind == 3)                                /* scattered */
                in.addr[l] = base + wc_rng_next(&r) % (1u << 15);
        }
        /* twice: the second from the per-thread table when affine */
        unsigned want = ref_banks(&in, nb, bb);
        bad += ua_shmem_wavefronts(&in, nb, bb) != want;
        bad += ua_shmem_wavefronts(&in, nb, bb) != want;
    }
    CHECK_EQ_INT(bad, 0);
}

/* Full warps of each shape ua_shmem_wavefronts takes apart from the rest
 * (strided, marked lanes_affine by the reader or not: the closed form for
 * one-word lanes, else the table; a tile of 2-16 lanes a row; a row that
 * wraps at a power of two from a rotated start) and near misses of each
 * (one lane moved, addresses at 2^62 and above, a stride whose lanes wrap
 * the address space): every path against the definition, twice (the
 * second from the table). */
static void test_banks_shapes(void)
{
    wc_rng r;
    wc_rng_seed(&r, 29);
    static const unsigned bank_n[] = {32, 16, 24, 64, 1};
    static const unsigned bank_b[] = {4, 8, 1, 3};
    static const unsigned widths[] = {4, 8, 16, 1, 2, 12};
    static const uint64_t strides[] = {0,   4,   8,    12,  16,  128,
                                       132, 256, 4096, (uint64_t)-4,
                                       (uint64_t)-128, 2, 1, 36};
    int bad = 0;
    for (int it = 0; it < 20000; it++) {
        wc_inst in;
        unsigned w = widths[wc_rng_next(&r) % 6];
        mk(&in, "LDS", w, 0xffffffffu);
        unsigned nb = bank_n[wc_rng_next(&r) % 5];
        unsigned bb = bank_b[wc_rng_next(&r) % 4];
        if (wc_rng_next(&r) % 2) { /* the usual banks, most of the runs */
            nb = 32;
            bb = 4;
        }
        uint64_t base = wc_rng_next(&r) % (1u << 16);
        if (wc_rng_next(&r) % 16 == 0)
            base += ((uint64_t)1 << 62) - 4096; /* some lanes past 2^62 */
        uint64_t s = strides[wc_rng_next(&r) % 14];
        unsigned kind = (unsigned)(wc_rng_next(&r) % 4);
        unsigned pl = 1 + (unsigned)(wc_rng_next(&r) % 4); /* a period */
        uint64_t step = strides[wc_rng_next(&r) % 14];
        uint64_t m = (uint64_t)1 << (4 + wc_rng_next(&r) % 10); /* a wrap */
        uint64_t rot = wc_rng_next(&r) % 64;
        for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
            switch (kind) {
            case 0: /* strided */
                in.addr[l] = base + s * l;
                break;
            case 1: /* a tile of 2^pl lanes a row */
                in.addr[l] = base + s * (l & ((1u << pl) - 1)) +
                             step * (l >> pl);
                break;
            default: /* a row that wraps at m, from a rotated start */
                in.addr[l] = (base & ~(m - 1)) +
                             ((base + s * (l + rot)) & (m - 1));
                break;
            }
        }
        if (kind == 0 && wc_rng_next(&r) % 2)
            in.lanes_affine = 1; /* as the reader marks it */
        else if (wc_rng_next(&r) % 8 == 0) /* a near miss */
            in.addr[wc_rng_next(&r) % WC_WARP_SIZE] += 4;
        unsigned want = ref_banks(&in, nb, bb);
        bad += ua_shmem_wavefronts(&in, nb, bb) != want;
        bad += ua_shmem_wavefronts(&in, nb, bb) != want;
    }
    /* the reader's strided warp whose lanes wrap the address space (a
     * stride of 2^59): not of the strided shape, counted as any other */
    wc_inst in;
    mk(&in, "LDS", 4, 0xffffffffu);
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        in.addr[l] = 64 + ((uint64_t)1 << 59) * l;
    in.lanes_affine = 1;
    bad += ua_shmem_wavefronts(&in, 32, 4) != ref_banks(&in, 32, 4);
    CHECK_EQ_INT(bad, 0);
}

/* The definition, byte by byte: every active lane (rank order) adds each
 * sector its bytes touch to its line, lines in first-touch order (what
 * ua_coalesce must give whichever path it takes). */
static unsigned ref_coalesce(const wc_inst *in, unsigned lb, unsigned sb,
                             ua_line *out)
{
    unsigned n = 0, rank = 0;
    uint64_t w = in->width ? in->width : 4;
    for (unsigned l = 0; l < WC_WARP_SIZE; l++) {
        if (!(in->mask >> l & 1u))
            continue;
        uint64_t a = (in->iflags & WC_IF_HAS_ADDR) ? in->addr[l]
                                                   : (uint64_t)rank * w;
        rank++;
        uint64_t last = a + (w - 1) < a ? UINT64_MAX : a + (w - 1);
        for (uint64_t b = a;;) { /* each sector of [a, last] */
            uint64_t la = b - b % lb;
            uint32_t bit = 1u << ((b - la) / sb);
            unsigned i = 0;
            while (i < n && out[i].addr != la)
                i++;
            if (i == n && n < UA_MAX_LINES) {
                out[n].addr = la;
                out[n++].sectors = 0;
            }
            if (i < n)
                out[i].sectors |= bit;
            uint64_t next = (b / sb + 1) * sb;
            if (next > last || next <= b)
                break;
            b = next;
        }
    }
    return n;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* ua_coalesce against ref_coalesce: identical lines, order and sectors. */
static int same_as_ref(const wc_inst *in, unsigned lb, unsigned sb)
{
    static ua_line a[UA_MAX_LINES], b[UA_MAX_LINES];
    unsigned na = ua_coalesce(in, lb, sb, a);
    unsigned nb = ref_coalesce(in, lb, sb, b);
    if (na != nb)
        return 0;
    for (unsigned i = 0; i < na; i++)
        if (a[i].addr != b[i].addr || a[i].sectors != b[i].sectors)
            return 0;
    return 1;
}

/* The contiguous fast path (base + rank * stride with stride <= width,
 * full and partial masks, no addresses) and the lane walk (everything
 * else) give what the definition gives, over structured and random
 * accesses and line / sector sizes (powers of two and not). */
static void test_coalesce_paths(void)
{
    static const unsigned widths[] = {1, 2, 4, 8, 12, 16, 32, 255};
    static const unsigned geoms[][2] = {{128, 32}, {32, 32}, {64, 4},
                                        {1024, 32}, {256, 8}, {96, 32},
                                        {128, 4}};
    static const uint64_t bases[] = {0, 4, 0x1000, 0x7fb0fc800010ull,
                                     0x7fb0fc80007cull, 127,
                                     UINT64_MAX - 200, UINT64_MAX - 4000};
    static const uint32_t masks[] = {0xffffffffu, 0x1u, 0x80000000u,
                                     0x0000ffffu, 0xaaaaaaaau, 0xf0f0f00fu};
    wc_inst in;
    int bad = 0, cases = 0;
    for (size_t g = 0; g < sizeof geoms / sizeof geoms[0]; g++)
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (size_t mi = 0; mi < sizeof masks / sizeof masks[0]; mi++)
                for (size_t bi = 0; bi < sizeof bases / sizeof bases[0];
                     bi++) {
                    unsigned w = widths[wi];
                    mk(&in, "LDG.E", w, masks[mi]);
                    /* stride 0 (broadcast), below, at and above w,
                     * negative */
                    const uint64_t strides[] = {0, 1, w / 2, w, w + 1,
                                                (uint64_t)-(int64_t)w, 128};
                    for (size_t si = 0; si < 7; si++) {
                        uint64_t b = bases[bi], st = strides[si];
                        /* lanes by rank (the fast path's form) and by
                         * lane number */
                        unsigned r = 0;
                        for (unsigned l = 0; l < WC_WARP_SIZE; l++)
                            in.addr[l] = (in.mask >> l & 1u)
                                             ? b + st * r++
                                             : rnd();
                        cases++;
                        bad += !same_as_ref(&in, geoms[g][0], geoms[g][1]);
                        strided(&in, b, st);
                        cases++;
                        bad += !same_as_ref(&in, geoms[g][0], geoms[g][1]);
                        /* one lane off the pattern */
                        unsigned hi = 31u - (unsigned)__builtin_clz(in.mask);
                        in.addr[hi] += 1 + (rnd() & 63);
                        cases++;
                        bad += !same_as_ref(&in, geoms[g][0], geoms[g][1]);
                    }
                    in.iflags &= (uint8_t)~WC_IF_HAS_ADDR;
                    cases++;
                    bad += !same_as_ref(&in, geoms[g][0], geoms[g][1]);
                }
    /* random: scattered, clustered, random masks and widths */
    for (int k = 0; k < 20000; k++) {
        unsigned w = widths[rnd() % 8];
        uint32_t m = (uint32_t)rnd();
        if (k % 3 == 0)
            m = 0xffffffffu;
        mk(&in, "LDG.E", w, m);
        uint64_t b = rnd() >> (rnd() % 64);
        uint64_t spread = (uint64_t)1 << (rnd() % 16);
        for (unsigned l = 0; l < WC_WARP_SIZE; l++)
            in.addr[l] = k % 2 ? b + rnd() % spread : b + l * (rnd() % 3) * w;
        const unsigned *gm = geoms[rnd() % (sizeof geoms / sizeof geoms[0])];
        cases++;
        bad += !same_as_ref(&in, gm[0], gm[1]);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(cases > 20000);
}

/* lanes_affine (the binary reader's hint on a strided full warp) gives the
 * lines and sectors of the lane check it skips: strides within, at and
 * past the width, negative ones, bases across line boundaries. */
static void test_coalesce_affine(void)
{
    static const unsigned widths[] = {1, 4, 8, 16};
    static const int64_t strides[] = {0, 1, 4, 8, 16, 17, 32, 128, -4, -16};
    static const uint64_t bases[] = {0x1000, 0x1000 + 16, 0x107c, 0x2fff0};
    static ua_line a[UA_MAX_LINES], b[UA_MAX_LINES];
    for (unsigned wi = 0; wi < 4; wi++)
        for (unsigned si = 0; si < 10; si++)
            for (unsigned bi = 0; bi < 4; bi++) {
                wc_inst in;
                mk(&in, "LDG.E", widths[wi], 0xffffffffu);
                in.width = (uint8_t)widths[wi];
                strided(&in, bases[bi], (uint64_t)strides[si]);
                in.lanes_affine = 0;
                unsigned na = ua_coalesce(&in, 128, 32, a);
                in.lanes_affine = 1;
                unsigned nb = ua_coalesce(&in, 128, 32, b);
                CHECK_EQ_INT(na, nb);
                for (unsigned i = 0; i < na && i < nb; i++) {
                    CHECK(a[i].addr == b[i].addr);
                    CHECK(a[i].sectors == b[i].sectors);
                }
            }
}

/* ua_coalesce_run gives, as a run, the lines ua_coalesce gives (the
 * common 128/32 geometry and others), and declines what is not a strided
 * full warp within its width (a partial mask, no hint, a stride past the
 * width, an access past the top of the address space). */
static void test_coalesce_run(void)
{
    static const unsigned widths[] = {1, 4, 8, 16};
    static const int64_t strides[] = {0, 1, 4, 8, 16, 17, 32, 128, -4, -16};
    static const uint64_t bases[] = {0x1000, 0x1000 + 16, 0x107c, 0x2fff0,
                                     0x38, UINT64_MAX - 300};
    static const unsigned geo[][2] = {{128, 32}, {64, 32}, {256, 32},
                                      {128, 16}, {32, 32}, {96, 32}};
    static ua_line a[UA_MAX_LINES];
    int bad = 0, runs = 0;
    for (unsigned g = 0; g < 6; g++)
        for (unsigned wi = 0; wi < 4; wi++)
            for (unsigned si = 0; si < 10; si++)
                for (unsigned bi = 0; bi < 6; bi++)
                    for (int aff = 0; aff < 2; aff++) {
                        wc_inst in;
                        mk(&in, "LDG.E", widths[wi], 0xffffffffu);
                        strided(&in, bases[bi], (uint64_t)strides[si]);
                        in.lanes_affine = (uint8_t)aff;
                        unsigned n = ua_coalesce(&in, geo[g][0], geo[g][1], a);
                        ua_run r;
                        if (!ua_coalesce_run(&in, geo[g][0], geo[g][1], &r))
                            continue;
                        runs++;
                        bad += !aff || strides[si] < 0 ||
                               strides[si] > (int64_t)widths[wi] ||
                               r.n != n || geo[g][0] != 1u << r.line_shift;
                        for (unsigned i = 0; i < n && i < r.n; i++) {
                            uint32_t full = (1u << (geo[g][0] / geo[g][1])) - 1;
                            uint32_t s = i == 0       ? r.first
                                         : i == n - 1 ? r.last
                                                      : full;
                            bad += a[i].addr != r.addr + ((uint64_t)i << r.line_shift) ||
                                   a[i].sectors != s;
                        }
                    }
    CHECK_EQ_INT(bad, 0);
    CHECK(runs > 400);
}

int main(void)
{
    test_coalesce_run();
    test_coalesce_affine();
    test_coalesce();
    test_banks();
    test_banks_ref();
    test_banks_shapes();
    test_coalesce_paths();
    CHECK_DONE();
}
