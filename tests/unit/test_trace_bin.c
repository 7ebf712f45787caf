/*
 * tests/unit/test_trace_bin.c - the binary trace form (common/trace_bin.c).
 *
 * Exactness: every `warpcast synth` kind (plain, zstd, with a SASS listing)
 * and the ../shared real traces are converted, and the binary trace must
 * give the same kernels, CTA order, CTA index, warp streams and records
 * (every wc_inst field but line) as the text, also through seeks and
 * rewinds, and by reference (wc_cta_next_refs: static record, mask, lane
 * addresses of the last of a batch) in batches of 1, 7 and 256.  Bad input: every truncation of a converted file and byte flips
 * all through it give WC_EINPUT with the file named, or (a flip the
 * checksums cannot see) the same records; never a crash.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "wc.h"
#include "wc_synth.h"

static char tmpdir[256];

static int rm_cb(const char *p, const struct stat *sb, int flag,
                 struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

/* 1 unless r says its lanes are affine (lanes_affine) and they are not. */
static int affine_ok(const wc_inst *r)
{
    if (!r->lanes_affine)
        return 1;
    uint64_t s = r->addr[1] - r->addr[0];
    for (unsigned l = 0; l < WC_WARP_SIZE; l++)
        if (r->addr[l] != r->addr[0] + l * s)
            return 0;
    return (r->iflags & WC_IF_HAS_ADDR) != 0;
}

/* Records equal as the models see them (line aside; addr[] only with
 * WC_IF_HAS_ADDR; lanes_affine, a reader's hint, true where set). */
static int same(const wc_inst *a, const wc_inst *b)
{
    wc_inst x = *a, y = *b;
    x.line = y.line = 0;
    if (!affine_ok(&x) || !affine_ok(&y))
        return 0;
    x.lanes_affine = y.lanes_affine = 0;
    if (memcmp(&x, &y, offsetof(wc_inst, opcode)) != 0 ||
        strcmp(x.opcode, y.opcode) != 0)
        return 0;
    return !(x.iflags & WC_IF_HAS_ADDR) ||
           memcmp(x.addr, y.addr, sizeof x.addr) == 0;
}

/* Compare kernel k of a (text) and b (binary) CTA by CTA; returns the
 * number of instructions compared, or -1 on the first difference. */
static long long cmp_kernel(wc_trace *a, wc_trace *b, size_t k)
{
    wc_diag d;
    const wc_kernel_info *ka = wc_trace_kernel(a, k), *kb = wc_trace_kernel(b, k);
    wc_kreader *ra = NULL, *rb = NULL;
    CHECK_EQ_INT(wc_kreader_open(a, k, &ra, &d), 0);
    CHECK_EQ_INT(wc_kreader_open(b, k, &rb, &d), 0);
    CHECK_STR(kb->name, ka->name);
    for (unsigned j = 0; j < 3; j++) {
        CHECK_EQ_INT(kb->grid[j], ka->grid[j]);
        CHECK_EQ_INT(kb->block[j], ka->block[j]);
    }
    CHECK_EQ_INT(kb->id, ka->id);
    CHECK_EQ_INT(kb->shmem, ka->shmem);
    CHECK_EQ_INT(kb->nregs, ka->nregs);
    CHECK_EQ_INT(kb->binary_version, ka->binary_version);
    CHECK_EQ_INT(kb->tracer_version, ka->tracer_version);
    CHECK_EQ_INT(kb->has_ctrl, ka->has_ctrl);
    CHECK_EQ_INT(kb->ctas, ka->ctas);
    CHECK_EQ_INT(kb->warps_per_cta, ka->warps_per_cta);
    if (!ra || !rb) {
        wc_kreader_close(ra);
        wc_kreader_close(rb);
        return -1;
    }
    wc_inst *ia = malloc(sizeof *ia), *ib = malloc(sizeof *ib);
    long long n = 0;
    int bad = 0;
    for (;;) {
        wc_cta *ca = NULL, *cb = NULL;
        CHECK_EQ_INT(wc_kreader_next(ra, &ca, &d), 0);
        CHECK_EQ_INT(wc_kreader_next(rb, &cb, &d), 0);
        if (!ca || !cb) {
            CHECK(!ca && !cb);
            wc_cta_free(ca);
            wc_cta_free(cb);
            break;
        }
        unsigned xa[3], xb[3];
        wc_cta_index(ca, xa);
        wc_cta_index(cb, xb);
        CHECK(memcmp(xa, xb, sizeof xa) == 0);
        CHECK_EQ_INT(wc_cta_nwarps(cb), wc_cta_nwarps(ca));
        for (unsigned w = 0; w < wc_cta_nwarps(ca) && !bad; w++) {
            CHECK_EQ_INT(wc_cta_warp_id(cb, w), wc_cta_warp_id(ca, w));
            CHECK_EQ_INT(wc_cta_warp_len(cb, w), wc_cta_warp_len(ca, w));
            /* a few, rewind, then all: rewinds restart the decoder */
            for (int pass = 0; pass < 2 && !bad; pass++) {
                int ga, gb;
                unsigned i = 0;
                while ((ga = wc_cta_next(ca, w, ia, &d)) == 1) {
                    gb = wc_cta_next(cb, w, ib, &d);
                    if (gb != 1 || !same(ia, ib)) {
                        fprintf(stderr, "kernel %zu warp %u inst %u: %s\n",
                                k, w, i, gb == 1 ? "differs" : d.msg);
                        bad = 1;
                        break;
                    }
                    if (pass == 1)
                        n++;
                    if (pass == 0 && ++i == 3)
                        break;
                }
                CHECK(bad || ga == 1 ||
                      wc_cta_next(cb, w, ib, &d) == 0);
                if (pass == 0) {
                    wc_cta_rewind(ca, w, &d);
                    wc_cta_rewind(cb, w, &d);
                }
            }
        }
        wc_cta_free(ca);
        wc_cta_free(cb);
        if (bad)
            break;
    }
    CHECK(!bad);
    wc_kreader_close(ra);
    wc_kreader_close(rb);
    /* CTA index and seeks */
    const uint64_t *na, *nb;
    uint64_t ca_n, cb_n;
    CHECK_EQ_INT(wc_trace_cta_insts(a, k, &na, &ca_n, &d), 0);
    CHECK_EQ_INT(wc_trace_cta_insts(b, k, &nb, &cb_n, &d), 0);
    CHECK_EQ_INT(cb_n, ca_n);
    if (ca_n == cb_n)
        CHECK(memcmp(na, nb, ca_n * sizeof *na) == 0);
    if (ca_n > 0 && wc_kreader_open(a, k, &ra, &d) == 0 &&
        wc_kreader_open(b, k, &rb, &d) == 0) {
        uint64_t at[3] = {ca_n - 1, ca_n / 2, 0};
        for (int s = 0; s < 3; s++) {
            wc_cta *x = NULL, *y = NULL;
            CHECK_EQ_INT(wc_kreader_seek(ra, at[s], &d), 0);
            CHECK_EQ_INT(wc_kreader_seek(rb, at[s], &d), 0);
            CHECK_EQ_INT(wc_kreader_next(ra, &x, &d), 0);
            CHECK_EQ_INT(wc_kreader_next(rb, &y, &d), 0);
            if (x && y && wc_cta_nwarps(x) > 0) {
                unsigned w = wc_cta_nwarps(x) - 1;
                int gx = wc_cta_next(x, w, ia, &d);
                int gy = wc_cta_next(y, w, ib, &d);
                CHECK_EQ_INT(gy, gx);
                if (gx == 1 && gy == 1)
                    CHECK(same(ia, ib));
            }
            wc_cta_free(x);
            wc_cta_free(y);
        }
        CHECK_EQ_INT(wc_kreader_skip(rb, UINT64_MAX, &d), 0);
        wc_cta *z = NULL;
        CHECK_EQ_INT(wc_kreader_next(rb, &z, &d), 0);
        CHECK(z == NULL);
    }
    wc_kreader_close(ra);
    wc_kreader_close(rb);
    free(ia);
    free(ib);
    return bad ? -1 : n;
}

/* Kernel k of b (binary) read by reference (wc_cta_next_refs, batches of
 * `batch`) against a (text) read in full: the same static fields, mask and
 * addresses; a static record number names one static record.  Returns the
 * instructions compared, or -1 on the first difference. */
static long long cmp_refs(wc_trace *a, wc_trace *b, size_t k, size_t batch,
                          size_t nbuf)
{
    wc_diag d;
    wc_kreader *ra = NULL, *rb = NULL;
    CHECK_EQ_INT(wc_kreader_open(a, k, &ra, &d), 0);
    CHECK_EQ_INT(wc_kreader_open(b, k, &rb, &d), 0);
    wc_inst *ia = malloc(sizeof *ia), *buf = malloc(nbuf * sizeof *buf);
    wc_iref *r = calloc(batch, sizeof *r);
    size_t nsid = 1u << 16;
    const wc_inst **by_sid = calloc(nsid, sizeof *by_sid);
    long long n = 0;
    int bad = !ra || !rb || !ia || !buf || !r || !by_sid;
    while (!bad) {
        wc_cta *x = NULL, *y = NULL;
        CHECK_EQ_INT(wc_kreader_next(ra, &x, &d), 0);
        CHECK_EQ_INT(wc_kreader_next(rb, &y, &d), 0);
        CHECK((x == NULL) == (y == NULL));
        if (!x || !y) {
            wc_cta_free(x);
            wc_cta_free(y);
            break;
        }
        for (unsigned w = 0; w < wc_cta_nwarps(x) && !bad; w++) {
            size_t got = 0, at = 0, nd = 0; /* nd: buffers taken */
            const void *pf[2] = {NULL, NULL}; /* wc_cta_next_addrs */
            for (;;) {
                if (at == got) {
                    int g = nbuf == 1
                                ? wc_cta_next_refs(y, w, buf, r, batch, &got,
                                                   &d)
                                : wc_cta_next_refs_bufs(y, w, buf, nbuf, r,
                                                        batch, &got, &d);
                    int ga = wc_cta_next(x, w, ia, &d);
                    if (g != 1) {
                        CHECK_EQ_INT(g, 0);
                        CHECK_EQ_INT(ga, 0);
                        /* the stream's end: no next byte was named */
                        CHECK(pf[1] == NULL);
                        bad |= g != 0 || ga != 0;
                        break;
                    }
                    CHECK(got >= 1 && got <= batch);
                    /* the next refill's first reads: the stream's state,
                     * and a byte of its decoded bytes while any are left
                     * (none from a text trace) */
                    wc_cta_next_addrs(y, w, pf);
                    CHECK(pf[0] != NULL);
                    const void *tx[2];
                    wc_cta_next_addrs(x, w, tx);
                    CHECK(tx[1] == NULL);
                    at = 0;
                    nd = 0;
                    if (ga != 1) {
                        CHECK(0);
                        bad = 1;
                        break;
                    }
                } else if (wc_cta_next(x, w, ia, &d) != 1) {
                    CHECK(0);
                    bad = 1;
                    break;
                }
                const wc_iref *e = &r[at++];
                wc_inst s = *e->in;
                s.mask = e->mask;
                if (!(s.iflags & WC_IF_HAS_ADDR))
                    memcpy(s.addr, ia->addr, sizeof s.addr);
                else if (nbuf == 1)
                    CHECK(e->in == buf && at == got); /* last of a batch */
                else /* in the buffers, in order */
                    CHECK(e->in == buf + nd++ && nd <= nbuf);
                if (!same(&s, ia)) {
                    CHECK(0);
                    bad = 1;
                    break;
                }
                CHECK(e->sid != WC_SID_NONE);
                if (e->sid < nsid &&
                    !(e->in >= buf && e->in < buf + nbuf)) { /* one record a
                                                               number */
                    if (!by_sid[e->sid])
                        by_sid[e->sid] = e->in;
                    CHECK(by_sid[e->sid] == e->in);
                }
                n++;
            }
        }
        wc_cta_free(x);
        wc_cta_free(y);
    }
    wc_kreader_close(ra);
    wc_kreader_close(rb);
    free(ia);
    free(buf);
    free(r);
    free(by_sid);
    return bad ? -1 : n;
}

/* Templates for wc_cta_raw_inst_like: the first instruction with
 * addresses seen of each static record (its bytes and decoding), and the
 * last one seen of any record (a template of another record, or of the
 * same with other lanes: the ordinary decode must come out). */
enum { TPL_N = 64, TPL_B = 512 };
typedef struct tpl {
    int used;
    uint32_t sid;
    size_t len;
    unsigned char b[TPL_B];
    wc_inst in;
} tpl;
static tpl tpls[TPL_N + 1];
static long long like_fast, like_calls, like_moved, raw_moved_n, plain_n,
    lanes_n, lanes_same;

/* Instructions read by wc_cta_raw_lanes, by their key (record, mask, tag,
 * base, lane bytes), with their decode: the same key must decode alike
 * (what the interval model's wavefront cache by bytes relies on). */
static struct lane_key {
    int used;
    uint32_t sid, mask, n;
    uint8_t tag;
    uint64_t base;
    unsigned char b[128];
    wc_inst in;
} lkeys[64];

static int lanes_check(const wc_rawlanes *r, const wc_inst *in)
{
    if (r->nlanes > sizeof lkeys[0].b)
        return 1;
    unsigned h = (unsigned)(r->base ^ r->sid ^ r->nlanes ^
                            (r->nlanes ? r->lanes[0] : 0)) % 64u;
    struct lane_key *k = &lkeys[h];
    if (k->used && k->sid == r->sid && k->mask == r->mask &&
        k->tag == r->tag && k->base == r->base && k->n == r->nlanes &&
        memcmp(k->b, r->lanes, r->nlanes) == 0) {
        lanes_same++;
        return !same(&k->in, in);
    }
    k->used = 1;
    k->sid = r->sid;
    k->mask = r->mask;
    k->tag = r->tag;
    k->base = r->base;
    k->n = r->nlanes;
    memcpy(k->b, r->lanes, r->nlanes);
    k->in = *in;
    return 0;
}

/* wc_cta_raw_inst_like from s0 with each template, against the ordinary
 * decode (*s1, *ref, sid, fl); then the instruction becomes a template.
 * 1 on a difference. */
static int like_check(const wc_cta *y, const unsigned char *p, size_t len,
                      const wc_rawpos *s0, const wc_rawpos *s1,
                      const wc_inst *ref, uint32_t sid, unsigned fl)
{
    static wc_inst got;
    size_t ilen = s1->at - s0->at;
    tpl *mine = &tpls[sid % TPL_N], *last = &tpls[TPL_N];
    const tpl *try[2] = {mine, last};
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        const tpl *t = try[k];
        if (!t->used)
            continue;
        wc_rawpos s = *s0;
        uint32_t sid2;
        unsigned fl2;
        like_calls++;
        if (wc_cta_raw_inst_like(y, p, len, &s, t->b, t->len, &t->in,
                                 t->sid, &got, &sid2, &fl2) != 0) {
            bad = 1;
            continue;
        }
        bad |= sid2 != sid || (fl2 & ~WC_RAW_MOVED) != fl ||
               s.at != s1->at || s.pid != s1->pid || s.pmask != s1->pmask ||
               s.pbase != s1->pbase ||
               memcmp(&got, ref, sizeof got) != 0;
        like_fast += t->sid == sid && t->len == ilen;
        like_moved += (fl2 & WC_RAW_MOVED) != 0;
        /* the bytes alone (strided templates too): where they say the
         * lanes are the template's moved, wc_inst_moved gives the
         * ordinary decode, and the position its */
        wc_rawtmpl rt;
        uint64_t dd;
        int all;
        s = *s0;
        if (wc_rawtmpl_prep(y, t->b, t->len, &t->in, t->sid, 1, &rt) &&
            wc_cta_raw_moved(p, len, &s, t->b, &rt, &dd, &all)) {
            wc_inst_moved(&got, &t->in, dd, all);
            bad |= rt.sid != sid || s.at != s1->at || s.pid != s1->pid ||
                   s.pmask != s1->pmask || s.pbase != s1->pbase ||
                   memcmp(&got, ref, sizeof got) != 0;
            raw_moved_n++;
        } else {
            bad |= memcmp(&s, s0, sizeof s) != 0; /* unchanged */
        }
    }
    if (ilen <= TPL_B) {
        tpl *slots[2] = {mine, last};
        for (int k = 0; k < 2; k++) {
            if (k == 0 && mine->used && mine->sid == sid)
                continue; /* keep the first of its record */
            slots[k]->used = 1;
            slots[k]->sid = sid;
            slots[k]->len = ilen;
            memcpy(slots[k]->b, p + s0->at, ilen);
            slots[k]->in = *ref;
        }
    }
    return bad;
}

/* Kernel k of a (text) and b (binary) by encoded streams (wc_cta_raw):
 * an unread inline stream's bytes decode (wc_cta_raw_inst) to the text's
 * records, with WC_RAW_ADDR where they have addresses; a stream read from
 * has no bytes to give until rewound; wc_cta_raw_skip ends it.  Returns
 * the warps given as bytes, or -1 on the first difference. */
static long long cmp_raw(wc_trace *a, wc_trace *b, size_t k)
{
    memset(tpls, 0, sizeof tpls); /* templates of this kernel only */
    memset(lkeys, 0, sizeof lkeys); /* keys of this kernel only */
    wc_diag d;
    wc_kreader *ra = NULL, *rb = NULL;
    CHECK_EQ_INT(wc_kreader_open(a, k, &ra, &d), 0);
    CHECK_EQ_INT(wc_kreader_open(b, k, &rb, &d), 0);
    wc_inst *ia = malloc(sizeof *ia), *ib = malloc(sizeof *ib);
    long long nw = 0;
    int bad = !ra || !rb || !ia || !ib;
    while (!bad) {
        wc_cta *x = NULL, *y = NULL;
        CHECK_EQ_INT(wc_kreader_next(ra, &x, &d), 0);
        CHECK_EQ_INT(wc_kreader_next(rb, &y, &d), 0);
        if (!x || !y) {
            wc_cta_free(x);
            wc_cta_free(y);
            break;
        }
        CHECK(!wc_cta_raw(x, 0, &(const unsigned char *){0}, &(size_t){0},
                          &(uint64_t){0})); /* text: no bytes */
        for (unsigned w = 0; w < wc_cta_nwarps(x) && !bad; w++) {
            const unsigned char *p;
            size_t len;
            uint64_t n;
            if (!wc_cta_raw(y, w, &p, &len, &n))
                continue;
            nw++;
            wc_rawpos s;
            wc_rawpos_init(&s);
            for (uint64_t i = 0; i < n && !bad; i++) {
                uint32_t sid;
                unsigned fl;
                wc_rawpos s0 = s;
                int g = wc_cta_raw_inst(y, p, len, &s, ib, &sid, &fl);
                if (g == 0 && (fl & WC_RAW_ADDR))
                    bad |= like_check(y, p, len, &s0, &s, ib, sid, fl);
                /* a mask its bytes do not give is the one before's */
                bad |= g == 0 && !(fl & WC_RAW_MASKED) && ib->mask != s0.pmask;
                /* an instruction without addresses reads alike by
                 * wc_cta_raw_plain, which reads no other */
                {
                    wc_rawpos s2 = s0;
                    uint32_t psid, pmask;
                    int pg = wc_cta_raw_plain(y, p, len, &s2, &psid, &pmask);
                    if (g == 0 && !(fl & WC_RAW_ADDR)) {
                        bad |= pg != 0 || psid != sid || pmask != ib->mask ||
                               s2.at != s.at || s2.pid != s.pid ||
                               s2.pmask != s.pmask;
                        plain_n++;
                    } else {
                        bad |= pg == 0 || memcmp(&s2, &s0, sizeof s2) != 0;
                    }
                }
                /* wc_cta_raw_lanes: where it reads an instruction, the
                 * record, mask, flags and state wc_cta_raw_inst gives,
                 * a base that is the address of lane 0 or of the first
                 * active lane, lane bytes that end with the instruction,
                 * and (lanes_check) a decode of its own; else nothing
                 * moved */
                {
                    wc_rawpos s3 = s0;
                    wc_rawlanes rl;
                    int lg = wc_cta_raw_lanes(y, p, len, &s3, &rl);
                    if (lg == 0) {
                        lanes_n++;
                        bad |= g != 0 || memcmp(&s3, &s, sizeof s) != 0 ||
                               rl.sid != sid || rl.mask != ib->mask ||
                               rl.flags != fl || !(fl & WC_RAW_ADDR) ||
                               (rl.base != ib->addr[0] &&
                                (!ib->mask ||
                                 rl.base !=
                                     ib->addr[__builtin_ctz(ib->mask)])) ||
                               rl.lanes + rl.nlanes != p + s.at ||
                               lanes_check(&rl, ib);
                    } else {
                        bad |= memcmp(&s3, &s0, sizeof s3) != 0;
                    }
                }
                bad |= g != 0 || wc_cta_next(x, w, ia, &d) != 1 ||
                       !same(ib, ia) ||
                       !(fl & WC_RAW_ADDR) !=
                           !(ia->iflags & WC_IF_HAS_ADDR) ||
                       wc_cta_static(y, sid) == NULL ||
                       wc_cta_static(y, sid)->pc != ia->pc;
            }
            CHECK(!bad);
            CHECK(s.at <= len);
            CHECK_EQ_INT(wc_cta_next(x, w, ia, &d), 0);
            /* read from: no bytes; rewound: the same bytes; skipped: the
             * end */
            CHECK_EQ_INT(wc_cta_next(y, w, ib, &d), 1);
            const unsigned char *p2 = NULL;
            CHECK(!wc_cta_raw(y, w, &p2, &len, &n));
            CHECK_EQ_INT(wc_cta_rewind(y, w, &d), 0);
            CHECK(wc_cta_raw(y, w, &p2, &len, &n) && p2 == p);
            wc_cta_raw_skip(y, w);
            CHECK_EQ_INT(wc_cta_next(y, w, ib, &d), 0);
        }
        wc_cta_free(x);
        wc_cta_free(y);
    }
    wc_kreader_close(ra);
    wc_kreader_close(rb);
    free(ia);
    free(ib);
    return bad ? -1 : nw;
}

/* Convert path to out; compare every kernel; returns instructions. */
static long long convert_and_compare(const char *path, const char *out,
                                     wc_convert_stats *st)
{
    wc_diag d;
    wc_trace *a = NULL, *b = NULL;
    CHECK_EQ_INT(wc_trace_open(path, &a, &d), 0);
    if (!a)
        return -1;
    CHECK_EQ_INT(wc_trace_convert(a, out, st, &d), 0);
    wc_trace_close(a);
    a = NULL;
    CHECK_EQ_INT(wc_trace_open(path, &a, &d), 0);
    CHECK_EQ_INT(wc_trace_open(out, &b, &d), 0);
    if (!a || !b) {
        fprintf(stderr, "%s: %s\n", out, d.msg);
        wc_trace_close(a);
        wc_trace_close(b);
        return -1;
    }
    CHECK(wc_trace_is_binary(b));
    CHECK(!wc_trace_is_binary(a));
    CHECK_EQ_INT(wc_trace_nkernels(b), wc_trace_nkernels(a));
    uint64_t ma, mb, na = wc_trace_memcpy(a, &ma), nb = wc_trace_memcpy(b, &mb);
    CHECK_EQ_INT(nb, na);
    CHECK_EQ_INT(mb, ma);
    long long n = 0;
    for (size_t k = 0; k < wc_trace_nkernels(a) && k < wc_trace_nkernels(b);
         k++) {
        long long m = cmp_kernel(a, b, k);
        long long m1 = cmp_refs(a, b, k, 1, 1), m7 = cmp_refs(a, b, k, 7, 1),
                  m256 = cmp_refs(a, b, k, 256, 1),
                  m7b = cmp_refs(a, b, k, 7, 3),
                  m256b = cmp_refs(a, b, k, 256, 16);
        CHECK(m1 == m && m7 == m && m256 == m && m7b == m && m256b == m);
        CHECK(cmp_raw(a, b, k) >= 0);
        if (m < 0)
            n = -1;
        else if (n >= 0)
            n += m;
    }
    const char *const *un_a, *const *un_b;
    const uint64_t *uc_a, *uc_b;
    size_t ua = wc_trace_unknown_ops(a, &un_a, &uc_a);
    size_t ub = wc_trace_unknown_ops(b, &un_b, &uc_b);
    CHECK_EQ_INT(ub, ua);
    wc_trace_close(a);
    wc_trace_close(b);
    CHECK_EQ_INT(st->insts, n);
    return n;
}

static void test_synth_kinds(void)
{
    const char *const *kinds = wc_synth_kinds();
    for (size_t i = 0; kinds[i]; i++) {
        wc_synth_params p;
        wc_synth_defaults(&p, kinds[i]);
        p.with_sass = 1;
        p.zstd = (int)(i % 2);
        if (p.ctas > 24)
            p.ctas = 24;
        char dir[512], out[600];
        snprintf(dir, sizeof dir, "%s/%s", tmpdir, kinds[i]);
        snprintf(out, sizeof out, "%s/%s.wct", tmpdir, kinds[i]);
        wc_diag d;
        CHECK_EQ_INT(wc_synth_write(&p, dir, &d), 0);
        wc_convert_stats st;
        long long n = convert_and_compare(dir, out, &st);
        CHECK(n > 0);
        /* compact: well under the ~40 bytes of text per instruction */
        CHECK(st.out_bytes * 4 < st.text_bytes);
        fprintf(stderr, "  %-10s %8lld insts  %5.2f B/inst binary, %5.1f "
                        "B/inst text\n",
                kinds[i], n, (double)st.out_bytes / (double)(n > 0 ? n : 1),
                (double)st.text_bytes / (double)(n > 0 ? n : 1));
    }
}

/* A CTA too big for one frame: warp streams in chunk lists. */
static void test_big_cta(void)
{
    wc_synth_params p;
    wc_synth_defaults(&p, "memory");
    p.ctas = 2;
    p.threads = 128;
    p.iters = 3000;
    char dir[512], out[600];
    snprintf(dir, sizeof dir, "%s/big", tmpdir);
    snprintf(out, sizeof out, "%s/big.wct", tmpdir);
    wc_diag d;
    CHECK_EQ_INT(wc_synth_write(&p, dir, &d), 0);
    wc_convert_stats st;
    long long n = convert_and_compare(dir, out, &st);
    CHECK(n > 200000); /* > 48 KiB of encoded instructions per CTA */
}

static void test_shared(void)
{
    static const char *const rel[] = {
        "data/traces/simple-trace-example",
        "data/traces/simtune-ffmakernel-1-32-10",
        "data/traces/simtune-ffmakernel-1-32-20",
    };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char buf[512], out[600];
        const char *p = shared_path(rel[i], buf, sizeof buf);
        if (!p)
            continue;
        snprintf(out, sizeof out, "%s/shared%zu.wct", tmpdir, i);
        wc_convert_stats st;
        CHECK(convert_and_compare(p, out, &st) > 0);
    }
}

/* Read every instruction of every kernel: 0, or the error code. */
static int read_all(const char *path, wc_diag *d, uint64_t *sum)
{
    wc_trace *t = NULL;
    int rc = wc_trace_open(path, &t, d);
    *sum = 0;
    wc_inst in;
    for (size_t k = 0; rc == 0 && k < wc_trace_nkernels(t); k++) {
        wc_kreader *r = NULL;
        if ((rc = wc_kreader_open(t, k, &r, d)) != 0)
            break;
        wc_cta *c = NULL;
        while (rc == 0 && (rc = wc_kreader_next(r, &c, d)) == 0 && c) {
            for (unsigned w = 0; w < wc_cta_nwarps(c) && rc == 0; w++) {
                int g;
                while ((g = wc_cta_next(c, w, &in, d)) == 1) {
                    *sum = *sum * 31 + in.pc + in.mask + in.op;
                    if (in.iflags & WC_IF_HAS_ADDR)
                        *sum += in.addr[31] + in.addr[0];
                }
                if (g < 0)
                    rc = -g;
            }
            wc_cta_free(c);
            c = NULL;
        }
        wc_kreader_close(r);
    }
    wc_trace_close(t);
    return rc;
}

static void test_bad_input(void)
{
    wc_synth_params p;
    wc_synth_defaults(&p, "mixed");
    p.ctas = 4;
    p.iters = 4;
    char dir[512], good[600], bad[600];
    snprintf(dir, sizeof dir, "%s/badsrc", tmpdir);
    snprintf(good, sizeof good, "%s/good.wct", tmpdir);
    snprintf(bad, sizeof bad, "%s/bad.wct", tmpdir);
    wc_diag d;
    CHECK_EQ_INT(wc_synth_write(&p, dir, &d), 0);
    wc_trace *t = NULL;
    CHECK_EQ_INT(wc_trace_open(dir, &t, &d), 0);
    wc_convert_stats st;
    CHECK_EQ_INT(wc_trace_convert(t, good, &st, &d), 0);
    wc_trace_close(t);
    FILE *f = fopen(good, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    unsigned char *buf = malloc(st.out_bytes);
    CHECK_EQ_INT(fread(buf, 1, st.out_bytes, f), st.out_bytes);
    fclose(f);
    uint64_t ref;
    CHECK_EQ_INT(read_all(good, &d, &ref), 0);
    size_t n = (size_t)st.out_bytes;
    /* truncations: always an input error naming the file */
    int trunc_ok = 1;
    size_t step = n / 300 + 1;
    /* (below 8 bytes there is no magic number: not a binary trace) */
    for (size_t len = 8; len < n; len += (len < 64 ? 1 : step)) {
        f = fopen(bad, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
        uint64_t s;
        int rc = read_all(bad, &d, &s);
        if (rc != WC_EINPUT || strcmp(d.file, bad) != 0) {
            fprintf(stderr, "truncated at %zu: rc %d %s\n", len, rc, d.msg);
            trunc_ok = 0;
        }
    }
    CHECK(trunc_ok);
    /* byte flips: an input error, or the same records */
    int flip_ok = 1, errors = 0, flips = 0;
    for (size_t at = 0; at < n; at += (at < 64 ? 1 : step), flips++) {
        unsigned char o = buf[at];
        buf[at] = (unsigned char)(o ^ (0x5a + at % 7));
        f = fopen(bad, "wb");
        fwrite(buf, 1, n, f);
        fclose(f);
        buf[at] = o;
        uint64_t s;
        int rc = read_all(bad, &d, &s);
        if (rc == WC_EINPUT)
            errors++;
        else if (rc != 0 || s != ref) {
            fprintf(stderr, "flip at %zu: rc %d, %s\n", at, rc,
                    rc ? d.msg : "different records");
            flip_ok = 0;
        }
    }
    CHECK(flip_ok);
    CHECK(errors > flips * 9 / 10); /* checksums see nearly all of them */
    /* the message: file:offset: error: ... */
    f = fopen(bad, "wb");
    fwrite(buf, 1, n / 2, f);
    fclose(f);
    uint64_t s;
    CHECK_EQ_INT(read_all(bad, &d, &s), WC_EINPUT);
    char msg[1200];
    wc_diag_format(&d, msg, sizeof msg);
    CHECK(strncmp(msg, bad, strlen(bad)) == 0 && strstr(msg, ": error: "));
    /* a future version is refused with a clear message */
    memcpy(buf + 8, "\x02\0\0\0", 4);
    f = fopen(bad, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    CHECK_EQ_INT(read_all(bad, &d, &s), WC_EINPUT);
    CHECK(strstr(d.msg, "version 2") != NULL);
    free(buf);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/wc-test-trace-bin-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_synth_kinds();
    test_big_cta();
    test_shared();
    test_bad_input();
    /* wc_cta_raw_inst_like was tried against the ordinary decode with a
     * template of the same record (its lanes moved, or decoded when they
     * differ) and of another */
    fprintf(stderr, "raw_inst_like: %lld calls, %lld with a template of "
            "the record and length, %lld moved; raw_moved (strided "
            "templates too) %lld moved\n", like_calls, like_fast, like_moved,
            raw_moved_n);
    CHECK(like_fast > 1000);
    CHECK(like_calls > like_fast);
    CHECK(like_moved > 100);
    CHECK(raw_moved_n > like_moved); /* strided records moved too */
    CHECK(plain_n > 100000);
    /* the shared kernel's wrapped lanes (stride 32 words) are read so, and
     * many repeat a key */
    fprintf(stderr, "wc_cta_raw_lanes: %lld instructions, %lld repeated keys\n",
            lanes_n, lanes_same);
    CHECK(lanes_n > 1000 && lanes_same > 50);
    nftw(tmpdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    CHECK_DONE();
}
