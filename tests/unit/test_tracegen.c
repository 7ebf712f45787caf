/*
 * tests/unit/test_tracegen.c - `warpcast tracegen` (gen/sass_emu*.c).
 *
 * 1. The hand-written listing tests/tracegen/example.sass: per-lane global
 *    and shared addresses, a predicated EXIT that leaves a partial mask, a
 *    partial last warp, a uniform loop, data-dependent addresses from
 *    zero-filled buffers, base+delta compression; and the errors (an
 *    address fed by an instruction not emulated, a divergent branch, no or
 *    an unknown --kernel).
 * 2. The 15 kernels of ../shared/data/hw/h100-sxm/traces/: each is rebuilt
 *    from its kernels.sass and launch shape.  First with default pointer
 *    parameters (one CTA), compared line by line with the shared trace with
 *    addresses equal up to one base per buffer, which gives the bases; then
 *    with those bases as --param values over the whole grid, where every
 *    instruction line must be identical.  Skipped with a notice when
 *    ../shared is absent.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<zstd.h>)
#include <zstd.h>
#define TG_HAVE_ZSTD 1
#endif
#endif

#include "check.h"
#include "wc.h"
#include "wc_sassemu.h"

static void rmtree(const char *dir)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* ---- reading the example's trace through the library --------------------- */

typedef struct ex_inst {
    unsigned cta, warp;
    wc_inst in;
} ex_inst;

/* All instructions of a one-kernel trace, in file order. */
static ex_inst *read_all(const char *path, size_t *n)
{
    wc_diag d;
    wc_trace *t = NULL;
    *n = 0;
    if (wc_trace_open(path, &t, &d) != 0) {
        fprintf(stderr, "open %s: %s\n", path, d.msg);
        return NULL;
    }
    wc_kreader *r = NULL;
    ex_inst *v = NULL;
    size_t cap = 0;
    if (wc_kreader_open(t, 0, &r, &d) == 0) {
        wc_cta *cta;
        unsigned ci = 0;
        while (wc_kreader_next(r, &cta, &d) == 0 && cta) {
            for (unsigned w = 0; w < wc_cta_nwarps(cta); w++) {
                wc_inst in;
                while (wc_cta_next(cta, w, &in, &d) == 1) {
                    if (*n == cap) {
                        cap = cap ? 2 * cap : 256;
                        v = realloc(v, cap * sizeof *v);
                    }
                    v[*n].cta = ci;
                    v[*n].warp = wc_cta_warp_id(cta, w);
                    v[*n].in = in;
                    (*n)++;
                }
            }
            wc_cta_free(cta);
            ci++;
        }
        wc_kreader_close(r);
    }
    wc_trace_close(t);
    return v;
}

static const ex_inst *find(const ex_inst *v, size_t n, unsigned cta,
                           unsigned warp, uint64_t pc, int nth)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].cta == cta && v[i].warp == warp && v[i].in.pc == pc && nth-- == 0)
            return &v[i];
    return NULL;
}

static int count_pc(const ex_inst *v, size_t n, unsigned cta, unsigned warp,
                    uint64_t pc)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += v[i].cta == cta && v[i].warp == warp && v[i].in.pc == pc;
    return c;
}

static void test_example(const char *tmp)
{
    const uint64_t A = 0x7f0000000000ull, S = 0x7f6300000000ull;
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/example", tmp);
    wc_tracegen_params p;
    wc_tracegen_defaults(&p);
    p.listing = "tests/tracegen/example.sass";
    p.kernel = "example";
    p.grid[0] = 2;
    p.block[0] = 48;
    wc_diag d;
    CHECK(wc_tracegen_add_param(&p, "0x218=70:4", &d) == 0);
    wc_tracegen_result res;
    int rc = wc_tracegen_write(&p, dir, &res, &d);
    if (rc)
        fprintf(stderr, "example: %s:%ld: %s\n", d.file, d.line, d.msg);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(res.ctas, 2);
    CHECK_EQ_INT(res.warps, 4);
    CHECK_EQ_INT(res.nregs, 21); /* R18 + 3 */
    CHECK_EQ_INT(res.nslots, 2);
    CHECK_EQ_INT(res.slots[0].offset, 0x210);
    CHECK(res.slots[0].pointer && !res.slots[0].given);
    CHECK_EQ_INT(res.slots[0].value, A);
    CHECK(res.slots[1].given && res.slots[1].value == 70);
    snprintf(path, sizeof path, "%s/kernels.sass", dir);
    CHECK(access(path, R_OK) == 0);
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    size_t n = 0;
    ex_inst *v = read_all(path, &n);
    CHECK(v != NULL);
    if (!v)
        return;
    CHECK_EQ_INT(n, res.insts);
    CHECK_EQ_INT(n, 41 + 41 + 41 + 9);
    /* CTA 0 warp 0: LDG a[i], i = lane */
    const ex_inst *e = find(v, n, 0, 0, 0xc0, 0);
    CHECK(e && e->in.mask == 0xffffffffu && e->in.width == 4);
    if (e)
        for (int l = 0; l < 32; l++)
            CHECK_EQ_INT(e->in.addr[l], A + 4u * (unsigned)l);
    /* CTA 1: i = 48 + tid; lanes with i >= 70 exited at 0x80 */
    e = find(v, n, 1, 0, 0x80, 0);
    CHECK(e && e->in.mask == 0xffc00000u);
    e = find(v, n, 1, 0, 0xc0, 0);
    CHECK(e && e->in.mask == 0x003fffffu);
    if (e)
        CHECK_EQ_INT(e->in.addr[21], A + 4u * 69);
    /* warp 1 of CTA 1 (i = 80..95, 16 lanes) ends at the EXIT */
    e = find(v, n, 1, 1, 0x80, 0);
    CHECK(e && e->in.mask == 0x0000ffffu);
    CHECK_EQ_INT(count_pc(v, n, 1, 1, 0x90), 0);
    /* shared: window offset (0x400 + tid*8 + 0x10) - 0x400 above the base */
    e = find(v, n, 0, 1, 0x140, 0);
    CHECK(e && e->in.mask == 0x0000ffffu && e->in.width == 8);
    if (e) {
        CHECK_EQ_INT(e->in.addr[0], S + 32 * 8 + 0x10);
        CHECK_EQ_INT(e->in.addr[15], S + 47 * 8 + 0x10);
    }
    /* the address from loaded data: zero-filled, so a[0] for every lane */
    e = find(v, n, 0, 0, 0x170, 0);
    CHECK(e != NULL);
    if (e)
        for (int l = 0; l < 32; l++)
            CHECK_EQ_INT(e->in.addr[l], A);
    /* @P2 STG: lanes with i & 7 != 0, deltas (mode 2) */
    e = find(v, n, 1, 0, 0x1b0, 0);
    CHECK(e && e->in.mask == 0x003efefeu);
    if (e) {
        CHECK_EQ_INT(e->in.addr[1], A + 4u * 49 + 0x100);
        CHECK_EQ_INT(e->in.addr[21], A + 4u * 69 + 0x100);
        CHECK_EQ_INT(e->in.addr[0], 0);
    }
    /* the uniform loop runs 3 times; the last BRA is taken by no lane */
    CHECK_EQ_INT(count_pc(v, n, 0, 0, 0x1d0), 3);
    e = find(v, n, 0, 0, 0x1f0, 2);
    CHECK(e && e->in.mask == 0);
    e = find(v, n, 0, 0, 0x1f0, 1);
    CHECK(e && e->in.mask == 0xffffffffu);
    /* trace operands: NVBit conventions */
    e = find(v, n, 0, 0, 0x30, 0); /* LDC R5, c[0x0][RZ] */
    CHECK(e && e->in.ndst == 1 && e->in.nsrc == 1);
    free(v);

    /* the same with zstd: same instructions */
    p.zstd = 1;
    snprintf(dir, sizeof dir, "%s/example-zst", tmp);
    rc = wc_tracegen_write(&p, dir, &res, &d);
#ifdef TG_HAVE_ZSTD
    CHECK_EQ_INT(rc, 0);
    snprintf(path, sizeof path, "%s/kernel-1.traceg.zst", dir);
    v = read_all(path, &n);
    CHECK(v && n == 132);
    free(v);
#else
    CHECK_EQ_INT(rc, WC_EUSAGE);
#endif
    p.zstd = 0;

    /* 64-bit address idioms across a 4 GiB boundary: IADD3/IADD3.X carry,
     * LEA/LEA.HI.X, IMAD.WIDE.U32 agree (a 64-bit ISETP .EX compare of the
     * first two would EXIT lanes that differ); LOP3 0x96, PRMT, negated
     * IADD3, VIMNMX and SHF.R feed a shared address */
    p.kernel = "arith";
    p.grid[0] = 1;
    p.block[0] = 32;
    p.nparams = 0;
    CHECK(wc_tracegen_add_param(&p, "0x210=0x7ffffffff0", &d) == 0);
    snprintf(dir, sizeof dir, "%s/arith", tmp);
    rc = wc_tracegen_write(&p, dir, &res, &d);
    CHECK_EQ_INT(rc, 0);
    snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
    v = read_all(path, &n);
    CHECK(v && n == 23);
    if (v) {
        e = find(v, n, 0, 0, 0xb0, 0);
        CHECK(e && e->in.mask == 0);
        for (uint64_t pc = 0xc0; pc <= 0xe0; pc += 0x10) {
            e = find(v, n, 0, 0, pc, 0);
            CHECK(e && e->in.mask == 0xffffffffu);
            if (e)
                for (int l = 0; l < 32; l++)
                    CHECK_EQ_INT(e->in.addr[l], 0x7ffffffff0ull + 4u * (unsigned)l);
        }
        e = find(v, n, 0, 0, 0x150, 0);
        CHECK(e && e->in.addr[0] == S + 8 && e->in.addr[31] == S + 8);
        free(v);
    }

    /* an address fed by F2I (not emulated): error at its line, exit 2 */
    p.kernel = "bad_address";
    p.grid[0] = 1;
    p.block[0] = 32;
    snprintf(dir, sizeof dir, "%s/bad", tmp);
    rc = wc_tracegen_write(&p, dir, &res, &d);
    CHECK_EQ_INT(rc, WC_EINPUT);
    CHECK_EQ_INT(d.line, 97);
    CHECK(strstr(d.msg, "F2I.TRUNC.NTZ") && strstr(d.msg, "address of 'LDG.E'"));
    snprintf(path, sizeof path, "%s/kernelslist.g", dir);
    CHECK(access(path, F_OK) != 0);
    /* a branch taken by half the warp */
    p.kernel = "diverge";
    rc = wc_tracegen_write(&p, dir, &res, &d);
    CHECK_EQ_INT(rc, WC_EINPUT);
    CHECK(strstr(d.msg, "diverges") != NULL);
    /* no --kernel with three in the listing; an unknown one */
    p.kernel = NULL;
    rc = wc_tracegen_write(&p, dir, &res, &d);
    CHECK_EQ_INT(rc, WC_EUSAGE);
    CHECK(strstr(d.msg, "example, bad_address, diverge, arith") != NULL);
    p.kernel = "nope";
    CHECK_EQ_INT(wc_tracegen_write(&p, dir, &res, &d), WC_EUSAGE);
    /* a grid whose trace no disk holds (2^31 - 1 x 65535 thread blocks,
     * about 1e17 bytes): stopped after 16 thread blocks with a usage
     * error that says so, and nothing left that looks like a trace */
    {
        wc_tracegen_params q;
        wc_tracegen_defaults(&q);
        q.listing = "tests/tracegen/example.sass";
        q.kernel = "example";
        q.grid[0] = 2147483647u;
        q.grid[1] = 65535;
        q.block[0] = 48;
        CHECK(wc_tracegen_add_param(&q, "0x218=70:4", &d) == 0);
        snprintf(dir, sizeof dir, "%s/huge", tmp);
        rc = wc_tracegen_write(&q, dir, &res, &d);
        CHECK_EQ_INT(rc, WC_EUSAGE);
        CHECK(strstr(d.msg, "would take about") &&
              strstr(d.msg, "stopped after 16 of them"));
        snprintf(path, sizeof path, "%s/kernel-1.traceg", dir);
        CHECK(access(path, F_OK) != 0);
        snprintf(path, sizeof path, "%s/kernelslist.g", dir);
        CHECK(access(path, F_OK) != 0);
    }
    /* parameter syntax */
    CHECK(wc_tracegen_add_param(&p, "0x214=1", &d) == 0 &&
          p.params[p.nparams - 1].size == 4);
    CHECK(wc_tracegen_add_param(&p, "0x210", &d) == WC_EUSAGE);
    CHECK(wc_tracegen_add_param(&p, "0x212=1:4", &d) == WC_EUSAGE);
    CHECK(wc_tracegen_add_param(&p, "0x210=zz", &d) == WC_EUSAGE);
}

/* ---- the shared H100 traces ---------------------------------------------- */

#ifdef TG_HAVE_ZSTD
/* Line reader over a plain or zstd file. */
typedef struct lr {
    FILE *f;
    int z;
    ZSTD_DStream *ds;
    char in[1 << 16];
    ZSTD_inBuffer ib;
    char *buf;   /* decoded bytes not yet returned */
    size_t beg, end, cap;
    char *line;
    size_t lcap;
    int eof;
} lr;

static int lr_open(lr *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->f = fopen(path, "rb");
    if (!r->f)
        return -1;
    size_t pl = strlen(path);
    r->z = pl > 4 && !strcmp(path + pl - 4, ".zst");
    if (r->z)
        r->ds = ZSTD_createDStream();
    r->cap = 1 << 18;
    r->buf = malloc(r->cap);
    return 0;
}

static void lr_close(lr *r)
{
    if (r->f)
        fclose(r->f);
    if (r->ds)
        ZSTD_freeDStream(r->ds);
    free(r->buf);
    free(r->line);
    memset(r, 0, sizeof *r);
}

/* Refill r->buf after compacting; 0 when no more bytes. */
static size_t lr_fill(lr *r)
{
    if (r->beg) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->end -= r->beg;
        r->beg = 0;
    }
    if (r->end == r->cap) {
        r->cap *= 2;
        r->buf = realloc(r->buf, r->cap);
    }
    if (!r->z) {
        size_t got = fread(r->buf + r->end, 1, r->cap - r->end, r->f);
        r->end += got;
        return got;
    }
    for (;;) {
        if (r->ib.pos == r->ib.size) {
            size_t got = fread(r->in, 1, sizeof r->in, r->f);
            if (got == 0)
                return 0;
            r->ib.src = r->in;
            r->ib.size = got;
            r->ib.pos = 0;
        }
        ZSTD_outBuffer ob = {r->buf + r->end, r->cap - r->end, 0};
        size_t rc = ZSTD_decompressStream(r->ds, &ob, &r->ib);
        if (ZSTD_isError(rc))
            return 0;
        r->end += ob.pos;
        if (ob.pos)
            return ob.pos;
    }
}

/* Next line (without '\n'), NULL at the end. */
static const char *lr_next(lr *r)
{
    for (;;) {
        char *nl = memchr(r->buf + r->beg, '\n', r->end - r->beg);
        if (nl) {
            size_t len = (size_t)(nl - (r->buf + r->beg));
            if (len + 1 > r->lcap) {
                r->lcap = len + 64;
                r->line = realloc(r->line, r->lcap);
            }
            memcpy(r->line, r->buf + r->beg, len);
            r->line[len] = 0;
            r->beg += len + 1;
            return r->line;
        }
        if (lr_fill(r) == 0) {
            if (r->end > r->beg) { /* last line without newline */
                size_t len = r->end - r->beg;
                if (len + 1 > r->lcap) {
                    r->lcap = len + 64;
                    r->line = realloc(r->line, r->lcap);
                }
                memcpy(r->line, r->buf + r->beg, len);
                r->line[len] = 0;
                r->beg = r->end;
                return r->line;
            }
            return NULL;
        }
    }
}

/* Skip the header: position after the first line starting with "#BEGIN_TB"
 * (returned lines start with the one after it). */
static int lr_body(lr *r)
{
    const char *l;
    while ((l = lr_next(r)))
        if (!strncmp(l, "#BEGIN_TB", 9))
            return 0;
    return -1;
}

#define NBUF 16
typedef struct bases {
    int n;
    uint64_t mine[NBUF]; /* buffer key: default pointer or shared base */
    int64_t delta[NBUF];
    int bad;
} bases;

/* Compare two instruction lines, addresses up to one offset per buffer.
 * Returns 0 when equal so. */
static int cmp_tolerant(const char *a, const char *b, const wc_tracegen_params *p,
                        bases *bs)
{
    for (;;) {
        while (*a == ' ')
            a++;
        while (*b == ' ')
            b++;
        if (!*a || !*b)
            return *a || *b;
        size_t la = strcspn(a, " "), lb = strcspn(b, " ");
        if (la > 2 && lb > 2 && !strncmp(a, "0x", 2) && !strncmp(b, "0x", 2)) {
            uint64_t x = strtoull(a, NULL, 16), y = strtoull(b, NULL, 16);
            uint64_t key;
            if (x >= p->ptr_base && x < p->ptr_base + 64 * p->ptr_step)
                key = p->ptr_base + (x - p->ptr_base) / p->ptr_step * p->ptr_step;
            else if (x >= p->shmem_base && x < p->shmem_base + (1u << 24))
                key = p->shmem_base;
            else
                key = 0;
            int i;
            for (i = 0; i < bs->n && bs->mine[i] != key; i++)
                ;
            if (i == bs->n) {
                if (bs->n == NBUF)
                    return 1;
                bs->mine[i] = key;
                bs->delta[i] = (int64_t)(y - x);
                bs->n++;
            } else if (bs->delta[i] != (int64_t)(y - x)) {
                bs->bad = 1;
                return 1;
            }
        } else if (la != lb || strncmp(a, b, la)) {
            return 1;
        }
        a += la;
        b += lb;
    }
}

/* Compare bodies.  tolerant: addresses up to per-buffer bases (and stop after
 * the first CTA); else lines must be identical.  Returns the number of
 * instruction lines compared, or -1 on the first difference. */
static long long compare(const char *mine, const char *theirs,
                         const wc_tracegen_params *p, int tolerant, bases *bs,
                         const char *name)
{
    lr a, b;
    if (lr_open(&a, mine) || lr_open(&b, theirs)) {
        lr_close(&a);
        lr_close(&b);
        return -1;
    }
    long long n = 0, ln = 0;
    int ok = lr_body(&a) == 0 && lr_body(&b) == 0;
    while (ok) {
        const char *xs = lr_next(&a); /* stays valid: b has its own buffer */
        const char *y = lr_next(&b);
        ln++;
        if (!xs || !y) {
            ok = !xs && !y;
            break;
        }
        if (tolerant && !strncmp(xs, "#END_TB", 7))
            break;
        int same = !strcmp(xs, y);
        if (!same && tolerant && isxdigit((unsigned char)xs[0]))
            same = cmp_tolerant(xs, y, p, bs) == 0;
        if (!same) {
            fprintf(stderr, "%s: body line %lld differs:\n  tracegen: %s\n  shared:   %s\n",
                    name, ln, xs, y);
            ok = 0;
        }
        n += isxdigit((unsigned char)xs[0]) != 0;
    }
    lr_close(&a);
    lr_close(&b);
    return ok ? n : -1;
}

/* One shared kernel folder.  Returns 1 when it matched exactly. */
static int check_shared_kernel(const char *root, const char *name,
                               const char *tmp)
{
    char kdir[1200], trace[1300], listing[1300], out[1200], mine[1300];
    snprintf(kdir, sizeof kdir, "%s/%s", root, name);
    snprintf(trace, sizeof trace, "%s/kernel-1.traceg.zst", kdir);
    snprintf(listing, sizeof listing, "%s/kernels.sass", kdir);
    snprintf(out, sizeof out, "%s/%s", tmp, name);
    wc_diag d;
    wc_trace *t = NULL;
    if (wc_trace_open(trace, &t, &d) != 0) {
        fprintf(stderr, "%s: %s\n", trace, d.msg);
        CHECK(0);
        return 0;
    }
    wc_kernel_info ki = *wc_trace_kernel(t, 0);
    /* the name is owned by the trace: keep a copy past its close */
    char kname[512];
    snprintf(kname, sizeof kname, "%s", ki.name);
    ki.name = kname;
    ki.path = "";
    wc_trace_close(t);
    /* the folder name says the launch shape: NAME-GRIDxBLOCK */
    const char *dash = strrchr(name, '-');
    unsigned g = 0, bl = 0;
    CHECK(dash && sscanf(dash + 1, "%ux%u", &g, &bl) == 2);
    CHECK_EQ_INT(ki.grid[0], g);
    CHECK_EQ_INT(ki.block[0], bl);

    wc_tracegen_params p;
    wc_tracegen_defaults(&p);
    p.listing = listing;
    p.kernel = ki.name;
    for (int i = 0; i < 3; i++) {
        p.grid[i] = ki.grid[i];
        p.block[i] = ki.block[i];
    }
    p.shmem = (unsigned)ki.shmem;
    p.shmem_base = ki.shmem_base;
    p.local_base = ki.local_base;
    /* pass 1: default pointers, first CTA, addresses up to per-buffer bases */
    unsigned full_grid[3] = {p.grid[0], p.grid[1], p.grid[2]};
    p.grid[0] = p.grid[1] = p.grid[2] = 1;
    wc_tracegen_result res;
    int rc = wc_tracegen_write(&p, out, &res, &d);
    if (rc)
        fprintf(stderr, "%s: %s:%ld: %s\n", name, d.file, d.line, d.msg);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        return 0;
    snprintf(mine, sizeof mine, "%s/kernel-1.traceg", out);
    bases bs;
    memset(&bs, 0, sizeof bs);
    long long n1 = compare(mine, trace, &p, 1, &bs, name);
    CHECK(n1 > 0 && !bs.bad);
    if (n1 <= 0)
        return 0;
    /* the bases found become parameters */
    for (int i = 0; i < bs.n; i++) {
        if (bs.mine[i] >= p.ptr_base && bs.mine[i] < p.ptr_base + 64 * p.ptr_step) {
            uint64_t slot = (bs.mine[i] - p.ptr_base) / p.ptr_step;
            char spec[80];
            snprintf(spec, sizeof spec, "0x%llx=0x%llx",
                     (unsigned long long)(0x210 + 8 * slot),
                     (unsigned long long)(bs.mine[i] + (uint64_t)bs.delta[i]));
            CHECK(wc_tracegen_add_param(&p, spec, &d) == 0);
        } else {
            CHECK_EQ_INT(bs.delta[i], 0); /* shared: same base and offsets */
        }
    }
    /* pass 2: whole grid, every line identical; header fields equal */
    for (int i = 0; i < 3; i++)
        p.grid[i] = full_grid[i];
    rc = wc_tracegen_write(&p, out, &res, &d);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        return 0;
    if (wc_trace_open(mine, &t, &d) == 0) {
        const wc_kernel_info *mk = wc_trace_kernel(t, 0);
        CHECK_STR(mk->name, ki.name);
        CHECK_EQ_INT(mk->nregs, ki.nregs);
        CHECK_EQ_INT(mk->shmem, ki.shmem);
        CHECK_EQ_INT(mk->binary_version, ki.binary_version);
        CHECK_EQ_INT(mk->tracer_version, ki.tracer_version);
        CHECK(mk->shmem_base == ki.shmem_base && mk->local_base == ki.local_base);
        CHECK(!memcmp(mk->grid, ki.grid, sizeof ki.grid) &&
              !memcmp(mk->block, ki.block, sizeof ki.block));
        int hdr = mk->nregs == ki.nregs && mk->shmem == ki.shmem;
        wc_trace_close(t);
        long long n2 = compare(mine, trace, &p, 0, &bs, name);
        CHECK(n2 > 0 && (uint64_t)n2 == res.insts);
        fprintf(stderr, "tracegen %-28s %9lld instructions, %s\n", name, n2,
                n2 > 0 && hdr ? "identical" : "DIFFERENT");
        rmtree(out);
        return n2 > 0 && hdr;
    }
    CHECK(0);
    return 0;
}
#endif

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_shared(const char *tmp)
{
    char buf[512];
    const char *root = shared_path("data/hw/h100-sxm/traces", buf, sizeof buf);
    if (!root)
        return;
#ifndef TG_HAVE_ZSTD
    fprintf(stderr, "notice: built without zstd.h, shared traces skipped\n");
    (void)tmp;
#else
    DIR *dd = opendir(root);
    CHECK(dd != NULL);
    if (!dd)
        return;
    char *names[64];
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(dd)) && nn < 64) {
        char kpath[1200];
        snprintf(kpath, sizeof kpath, "%s/%s/kernel-1.traceg.zst", root, de->d_name);
        if (de->d_name[0] != '.' && access(kpath, R_OK) == 0)
            names[nn++] = strdup(de->d_name);
    }
    closedir(dd);
    qsort(names, (size_t)nn, sizeof names[0], cmp_names);
    int exact = 0;
    for (int i = 0; i < nn; i++) {
        exact += check_shared_kernel(root, names[i], tmp);
        free(names[i]);
    }
    fprintf(stderr, "tracegen: %d of %d shared H100 kernels identical\n", exact, nn);
    CHECK_EQ_INT(nn, 15);
    CHECK_EQ_INT(exact, nn);
#endif
}

int main(void)
{
    char tmp[] = "/tmp/wc_tracegen_XXXXXX";
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "mkdtemp failed\n");
        return 1;
    }
    test_example(tmp);
    test_shared(tmp);
    rmtree(tmp);
    CHECK_DONE();
}
