/*
 * tests/fuzz/fuzz_trace_bin.c - libFuzzer target for the binary trace form
 * (common/trace_bin.c).
 *
 * Two properties, by the input's first bytes:
 *   - an input that starts with the binary magic "WCTRACEB" is written to a
 *     file and read completely through the trace API (every CTA and warp,
 *     with a skip, a rewind, seeks and wc_trace_cta_insts): any failure must
 *     be a WC_EINPUT naming the file, never a crash, and the counts of a
 *     successful read must agree with the CTA index;
 *     the same stream's bytes (wc_cta_raw) must decode to the same
 *     records wherever the ordinary read reads them;
 *   - any other input is written as a text kernel trace; when the text
 *     reader reads all of it without error, it is converted, and the binary
 *     form must give the same records (differential: the writer's and
 *     reader's encodings of masks, addresses and static records).
 */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char tpath[512], bpath[512];

static void cleanup(void)
{
    unlink(tpath);
    unlink(bpath);
    rmdir(dir);
}

/* Read every kernel; returns 0 or the error code; *n instructions read,
 * *h a hash of the records. */
/* The last instruction with addresses decoded by its bytes in this
 * kernel, as a template for wc_cta_raw_inst_like, which must give what
 * wc_cta_raw_inst gave (any template of the kernel gives its result), and
 * for wc_cta_raw_moved, whose moved template must be it. */
static struct {
    int used;
    uint32_t sid;
    size_t len;
    unsigned char b[512];
    wc_inst in;
} ft;

static void like_check(const wc_cta *c, const unsigned char *p, size_t len,
                       const wc_rawpos *s0, const wc_rawpos *s1,
                       const wc_inst *ref, uint32_t sid, unsigned fl)
{
    static wc_inst got;
    size_t ilen = s1->at - s0->at;
    if (ft.used) {
        wc_rawpos s = *s0;
        uint32_t sid2;
        unsigned fl2;
        assert(wc_cta_raw_inst_like(c, p, len, &s, ft.b, ft.len, &ft.in,
                                    ft.sid, &got, &sid2, &fl2) == 0);
        assert(sid2 == sid && (fl2 & ~WC_RAW_MOVED) == fl &&
               s.at == s1->at && s.pid == s1->pid && s.pmask == s1->pmask &&
               s.pbase == s1->pbase);
        assert(memcmp(&got, ref, sizeof got) == 0);
        /* the bytes alone, strided templates too (wc_cta_raw_moved) */
        wc_rawtmpl rt;
        uint64_t d;
        int all;
        s = *s0;
        if (wc_rawtmpl_prep(c, ft.b, ft.len, &ft.in, ft.sid, 1, &rt) &&
            wc_cta_raw_moved(p, len, &s, ft.b, &rt, &d, &all)) {
            wc_inst_moved(&got, &ft.in, d, all);
            assert(rt.sid == sid && s.at == s1->at && s.pid == s1->pid &&
                   s.pmask == s1->pmask && s.pbase == s1->pbase);
            assert(memcmp(&got, ref, sizeof got) == 0);
        } else {
            assert(memcmp(&s, s0, sizeof s) == 0);
        }
    }
    if (ilen <= sizeof ft.b) {
        ft.used = 1;
        ft.sid = sid;
        ft.len = ilen;
        memcpy(ft.b, p + s0->at, ilen);
        ft.in = *ref;
    }
}

static int read_all(const char *p, uint64_t *n, uint64_t *h, int check)
{
    wc_diag d;
    wc_trace *t = NULL;
    wc_inst in;
    *n = *h = 0;
    int rc = wc_trace_open(p, &t, &d);
    for (size_t k = 0; rc == 0 && k < wc_trace_nkernels(t); k++) {
        wc_kreader *r = NULL;
        uint64_t kn = 0;
        if ((rc = wc_kreader_open(t, k, &r, &d)) != 0)
            break;
        ft.used = 0; /* templates of this kernel only */
        for (;;) {
            wc_cta *c = NULL;
            if ((rc = wc_kreader_next(r, &c, &d)) != 0 || !c)
                break;
            for (unsigned w = 0; w < wc_cta_nwarps(c) && rc == 0; w++) {
                int g = wc_cta_next(c, w, &in, &d);
                if (g == 1)
                    wc_cta_rewind(c, w, &d);
                while ((g = wc_cta_next(c, w, &in, &d)) == 1) {
                    kn++;
                    *h = *h * 1000003u + in.pc * 31 + in.mask + in.op +
                         in.width + in.iflags + (uint64_t)in.imm;
                    if (in.iflags & WC_IF_HAS_ADDR)
                        for (unsigned l = 0; l < WC_WARP_SIZE; l++)
                            *h = *h * 7 + in.addr[l];
                    (void)wc_inst_sectors(&in);
                }
                if (g < 0)
                    rc = -g;
                /* the same stream by reference, batches of 1..7 (the
                 * binary reader's fast path for runs of records without
                 * addresses): the same count and the same ending */
                if (rc == 0 && wc_cta_rewind(c, w, &d) == 0) {
                    wc_iref refs[7];
                    uint64_t m = 0;
                    size_t got = 0;
                    size_t max = 1 + (w % 7);
                    int gr;
                    while ((gr = wc_cta_next_refs(c, w, &in, refs, max,
                                                  &got, &d)) == 1) {
                        m += got;
                        /* the next refill's first reads: in bounds (the
                         * sanitizer checks the byte read here) */
                        const void *pf[2];
                        wc_cta_next_addrs(c, w, pf);
                        assert(pf[0] != NULL);
                        if (pf[1]) {
                            volatile unsigned char b =
                                *(const volatile unsigned char *)pf[1];
                            (void)b;
                        }
                    }
                    assert(gr == 0);
                    uint64_t direct = 0;
                    if (wc_cta_rewind(c, w, &d) == 0)
                        while (wc_cta_next(c, w, &in, &d) == 1)
                            direct++;
                    assert(m == direct);
                    /* with several decode buffers (the interval walker's
                     * batches of strided accesses): the same records, in
                     * the same order */
                    if (wc_cta_rewind(c, w, &d) == 0) {
                        static wc_inst bufs[16];
                        wc_inst one;
                        size_t nb = 1 + (w % 16);
                        uint64_t hb = 0, hd = 0, mb = 0;
                        while ((gr = wc_cta_next_refs_bufs(
                                    c, w, bufs, nb, refs, max, &got,
                                    &d)) == 1)
                            for (size_t i = 0; i < got; i++, mb++) {
                                const wc_inst *x = refs[i].in;
                                hb = hb * 1000003u + x->pc * 31 +
                                     refs[i].mask + x->op;
                                if (x->iflags & WC_IF_HAS_ADDR) {
                                    /* lane addresses: decoded */
                                    assert(x >= bufs && x < bufs + nb);
                                    hb = hb * 7 + x->addr[31];
                                }
                            }
                        assert(gr == 0 && mb == direct);
                        if (wc_cta_rewind(c, w, &d) == 0)
                            while (wc_cta_next(c, w, &one, &d) == 1) {
                                hd = hd * 1000003u + one.pc * 31 +
                                     one.mask + one.op;
                                if (one.iflags & WC_IF_HAS_ADDR)
                                    hd = hd * 7 + one.addr[31];
                            }
                        assert(hb == hd);
                    }
                }
                /* the stream by its bytes (wc_cta_raw, the interval
                 * model's recognition of repeated warps): decoded at once
                 * with wc_cta_raw_inst, the same records as the ordinary
                 * read wherever that reads; never a crash where it does
                 * not; skipped, the stream ends */
                if (wc_cta_rewind(c, w, &d) == 0) {
                    const unsigned char *rp;
                    size_t rl;
                    uint64_t rn;
                    if (wc_cta_raw(c, w, &rp, &rl, &rn)) {
                        static wc_inst one, two;
                        wc_diag d2;
                        wc_rawpos s;
                        wc_rawpos_init(&s);
                        for (uint64_t i = 0; i < rn; i++) {
                            uint32_t sid;
                            unsigned fl;
                            wc_rawpos s0 = s;
                            int ok = wc_cta_raw_inst(c, rp, rl, &s, &one,
                                                     &sid, &fl) == 0;
                            if (ok && (fl & WC_RAW_ADDR))
                                like_check(c, rp, rl, &s0, &s, &one, sid,
                                           fl);
                            /* wc_cta_raw_plain: the same instruction when
                             * it has no addresses, else nothing read */
                            {
                                wc_rawpos s2 = s0;
                                uint32_t psid, pm;
                                int pg = wc_cta_raw_plain(c, rp, rl, &s2,
                                                          &psid, &pm);
                                if (ok && !(fl & WC_RAW_ADDR))
                                    assert(pg == 0 && psid == sid &&
                                           pm == one.mask &&
                                           s2.at == s.at);
                                else
                                    assert(pg != 0 && s2.at == s0.at);
                                if (ok && !(fl & WC_RAW_MASKED))
                                    assert(one.mask == s0.pmask);
                            }
                            /* wc_cta_raw_lanes: where it reads, the
                             * record, mask, flags and state of the full
                             * decode, which must then succeed (the interval
                             * model decodes it later); else nothing read */
                            {
                                wc_rawpos s3 = s0;
                                wc_rawlanes lr;
                                if (wc_cta_raw_lanes(c, rp, rl, &s3, &lr) == 0)
                                    assert(ok &&
                                           memcmp(&s3, &s, sizeof s) == 0 &&
                                           lr.sid == sid &&
                                           lr.mask == one.mask &&
                                           lr.flags == fl &&
                                           lr.lanes + lr.nlanes == rp + s.at);
                                else
                                    assert(memcmp(&s3, &s0, sizeof s3) == 0);
                            }
                            int gn = wc_cta_next(c, w, &two, &d2);
                            if (rc == 0)
                                assert(gn == 1 && ok);
                            if (!ok || gn != 1)
                                break;
                            assert(s.at <= rl);
                            assert(memcmp(&one, &two,
                                          offsetof(wc_inst, addr)) == 0);
                            assert(!(fl & WC_RAW_ADDR) ==
                                   !(one.iflags & WC_IF_HAS_ADDR));
                            assert(wc_cta_static(c, sid) != NULL);
                            if (one.iflags & WC_IF_HAS_ADDR)
                                assert(memcmp(one.addr, two.addr,
                                              sizeof one.addr) == 0);
                        }
                        wc_cta_raw_skip(c, w);
                        assert(wc_cta_next(c, w, &two, &d2) == 0);
                    }
                }
            }
            wc_cta_free(c);
            if (rc)
                break; /* a warp's error, not overwritten by the next CTA */
        }
        wc_kreader_close(r);
        *n += kn;
        if (rc == 0 && check) {
            const uint64_t *cnt;
            uint64_t m, sum = 0;
            rc = wc_trace_cta_insts(t, k, &cnt, &m, &d);
            for (uint64_t i = 0; rc == 0 && i < m; i++)
                sum += cnt[i];
            assert(rc != 0 || sum == kn);
            /* seeks: the last, the first, past the end */
            if (rc == 0 && wc_kreader_open(t, k, &r, &d) == 0) {
                uint64_t tg[] = {m ? m - 1 : 0, 0, m, m / 2};
                for (unsigned i = 0; i < 4 && rc == 0; i++) {
                    wc_cta *c = NULL;
                    assert(wc_kreader_seek(r, tg[i], &d) == 0);
                    rc = wc_kreader_next(r, &c, &d);
                    assert(rc != 0 || (c != NULL) == (tg[i] < m));
                    wc_cta_free(c);
                }
                if (rc == 0)
                    assert(wc_kreader_skip(r, 3, &d) == 0);
                wc_kreader_close(r);
            }
        }
    }
    wc_trace_close(t);
    if (rc && check)
        assert(rc == WC_EINPUT && strcmp(d.file, p) == 0);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/wc-fuzz-trace-bin-XXXXXX");
        if (!mkdtemp(dir))
            return 0;
        snprintf(tpath, sizeof tpath, "%s/k.traceg", dir);
        snprintf(bpath, sizeof bpath, "%s/k.wct", dir);
        atexit(cleanup);
    }
    int bin = size >= 8 && memcmp(data, "WCTRACEB", 8) == 0;
    const char *p = bin ? bpath : tpath;
    FILE *f = fopen(p, "wb");
    if (!f)
        return 0;
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);
    uint64_t n, h;
    if (bin) {
        (void)read_all(bpath, &n, &h, 1);
        return 0;
    }
    /* text: convert what reads cleanly; the binary must read the same */
    if (read_all(tpath, &n, &h, 0) != 0)
        return 0;
    wc_diag d;
    wc_trace *t = NULL;
    if (wc_trace_open(tpath, &t, &d) != 0)
        return 0;
    wc_convert_stats st;
    int rc = wc_trace_convert(t, bpath, &st, &d);
    wc_trace_close(t);
    assert(rc == 0); /* a text that reads cleanly converts */
    uint64_t bn, bh;
    rc = read_all(bpath, &bn, &bh, 1);
    assert(rc == 0 && bn == n && bh == h && st.insts == n);
    return 0;
}
