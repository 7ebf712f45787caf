/*
 * common/trace.c - Accel-Sim trace readers: kernelslist.g, kernel headers,
 * streaming of thread blocks and per-warp instruction streams, the join of
 * control bits from cuobjdump listings, and hand-written .sass ubenches
 * presented as a one-CTA kernel.
 *
 * Streaming design (memory bounded by live CTAs/warps, not trace size):
 *
 *   kernel text (plain file, or zstd decompressed once to an unlinked
 *   temporary file)                       shared fd, refcounted (tsrc)
 *        |
 *   wc_kreader: sequential line scan  --  #BEGIN_TB / thread block /
 *        |      (memchr, 1 MiB buffer)     warp = W / insts = N / #END_TB
 *        |      records per warp: byte range, first line, N
 *        v
 *   wc_cta: per warp a small buffer filled with pread() over its own byte
 *           range; lines are parsed (trace_line.c) only when asked for.
 *
 * The scan checks the structure (counts, nesting); the per-line syntax is
 * checked when the line is read, with file:line:col diagnostics.
 *
 * CTA index (per kernel, cached in the trace, O(CTAs) memory): for CTA i
 * the scan position before it (byte offset and line number) and its warp
 * instruction count.  It is built by any reader that passes over every CTA
 * from the first without a gap (a full sequential pass, or
 * wc_trace_cta_insts, which runs the scan alone: instruction lines are
 * only counted, never decoded) and published when that reader reaches the
 * end of the kernel.  With it wc_kreader_seek / wc_kreader_skip are O(1).
 * Offsets are into the kernel text, i.e. the decompressed text for zstd;
 * the temporary file of a zstd kernel is kept after its last reader closes
 * (for the SRC_IDLE most recently used kernels), so the usual pattern
 * "wc_trace_cta_insts, then one reader per sampled region" decompresses
 * once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

#define HEAD_MAX (1u << 20)           /* kernel header must fit in here   */
#define SCAN_BUF (1u << 20)           /* kreader scan buffer              */
#define WARP_BUF (8u << 10)           /* per warp stream buffer           */
#define LINE_MAX_BYTES (16u << 20)    /* longest accepted line            */
#define WARN_MAX 64u                  /* warnings kept (then one "more")  */
#define CTRL_CHECK_INSTS 4096u        /* listing check: first CTA's insts */

/* ---- small helpers ------------------------------------------------------ */

static int oom(wc_diag *d)
{
    return wc_diag_set(d, WC_EINTERNAL, "", 0, 0, "out of memory");
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Trim [*p, *p+*n) of surrounding white space. */
static void trim(const char **p, size_t *n)
{
    while (*n > 0 && is_blank(**p))
        (*p)++, (*n)--;
    while (*n > 0 && is_blank((*p)[*n - 1]))
        (*n)--;
}

static int starts(const char *p, size_t n, const char *pre)
{
    size_t k = strlen(pre);
    return n >= k && memcmp(p, pre, k) == 0;
}

static int ends(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Unsigned decimal of exactly n bytes. */
static int num_u(const char *p, size_t n, uint64_t max, uint64_t *v)
{
    uint64_t x = 0;
    if (n == 0 || n > 20)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned)(unsigned char)p[i] - '0';
        if (c > 9 || x > (UINT64_MAX - c) / 10)
            return -1;
        x = x * 10 + c;
    }
    if (x > max)
        return -1;
    *v = x;
    return 0;
}

static int num_i(const char *p, size_t n, int64_t lo, int64_t hi, int64_t *v)
{
    int neg = n > 0 && p[0] == '-';
    uint64_t x;
    if (num_u(p + neg, n - (size_t)neg, (uint64_t)INT64_MAX, &x) != 0)
        return -1;
    int64_t y = neg ? -(int64_t)x : (int64_t)x;
    if (y < lo || y > hi)
        return -1;
    *v = y;
    return 0;
}

static int num_hex(const char *p, size_t n, uint64_t *v)
{
    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2, n -= 2;
    while (n > 16 && *p == '0')
        p++, n--;
    if (n == 0 || n > 16)
        return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        unsigned h;
        if (c >= '0' && c <= '9')
            h = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            h = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            h = (unsigned)(c - 'A' + 10);
        else
            return -1;
        x = x << 4 | h;
    }
    *v = x;
    return 0;
}

/* "a,b,c" (optionally in parentheses, spaces allowed) of unsigned ints. */
static int num_3(const char *p, size_t n, unsigned v[3])
{
    trim(&p, &n);
    if (n >= 2 && p[0] == '(' && p[n - 1] == ')')
        p++, n -= 2;
    for (int i = 0; i < 3; i++) {
        const char *c = memchr(p, ',', n);
        size_t len = i < 2 ? (c ? (size_t)(c - p) : n + 1) : n;
        if (len > n)
            return -1;
        const char *q = p;
        size_t m = len;
        trim(&q, &m);
        uint64_t x;
        if (num_u(q, m, UINT32_MAX, &x) != 0)
            return -1;
        v[i] = (unsigned)x;
        if (i < 2) {
            p += len + 1;
            n -= len + 1;
        }
    }
    return 0;
}

/* ---- line reader over an fd ------------------------------------------------ */

static void lb_init(lbuf *b, uint64_t off, uint64_t limit)
{
    b->beg = b->end = 0;
    b->off = off;
    b->limit = limit;
    b->eof = off >= limit;
}

/* Position b at off (same limit); keeps the buffered bytes when off is
 * among them. */
static void lb_seek(lbuf *b, uint64_t off)
{
    if (b->buf && off >= b->off && off <= b->off + b->end) {
        b->beg = (size_t)(off - b->off);
        return;
    }
    lb_init(b, off, b->limit);
}

/* Read more of b's range: keep the partial line, grow the buffer when the
 * line fills it. */
static int lb_fill(lbuf *b, int fd, size_t initcap, const char *path,
                   long lineno, wc_diag *d)
{
    for (;;) {
        if (b->beg > 0) {
            memmove(b->buf, b->buf + b->beg, b->end - b->beg);
            b->off += b->beg;
            b->end -= b->beg;
            b->beg = 0;
        }
        if (!b->buf || b->end == b->cap) {
            size_t nc = b->cap ? b->cap * 2 : initcap;
            uint64_t rest = b->limit - b->off;
            if (!b->cap && rest + 1 < nc)
                nc = (size_t)rest + 1; /* small ranges get small buffers */
            if (nc > LINE_MAX_BYTES + 1)
                return wc_diag_set(d, WC_EINPUT, path, lineno, 1,
                                   "line longer than %u bytes",
                                   LINE_MAX_BYTES);
            char *nb = realloc(b->buf, nc);
            if (!nb)
                return oom(d);
            b->buf = nb;
            b->cap = nc;
        }
        uint64_t pos = b->off + b->end;
        size_t want = b->cap - b->end;
        if (b->limit - pos < want)
            want = (size_t)(b->limit - pos);
        ssize_t r = want ? pread(fd, b->buf + b->end, want, (off_t)pos) : 0;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return wc_diag_set(d, WC_EINPUT, path, lineno, 0,
                               "read error: %s", strerror(errno));
        }
        if (r == 0)
            b->eof = 1;
        b->end += (size_t)r;
        return 0;
    }
}

/*
 * Next line of b: *line and *n (without the newline), *loff its offset.
 * Returns 1, 0 at the end, or a WC_E* code (d filled, file = path).
 */
static inline int lb_getline(lbuf *b, int fd, size_t initcap,
                             const char *path, long lineno, const char **line,
                             size_t *n, uint64_t *loff, wc_diag *d)
{
    for (;;) {
        char *nl = b->end > b->beg
                       ? memchr(b->buf + b->beg, '\n', b->end - b->beg)
                       : NULL;
        if (nl || (b->eof && b->end > b->beg)) {
            size_t e = nl ? (size_t)(nl - b->buf) : b->end;
            *line = b->buf + b->beg;
            *n = e - b->beg;
            *loff = b->off + b->beg;
            b->beg = nl ? e + 1 : e;
            return 1;
        }
        if (b->eof)
            return 0;
        int rc = lb_fill(b, fd, initcap, path, lineno, d);
        if (rc != 0) {
            *line = NULL;
            *n = 0;
            *loff = 0;
            return rc;
        }
    }
}

static void lb_free(lbuf *b)
{
    free(b->buf);
    b->buf = NULL;
    b->cap = 0;
}

/* ---- sources -------------------------------------------------------------- */

static void src_close(tsrc *s)
{
    close(s->fd);
    free(s);
}

/* Take kernel k off the idle list (t->mu held). */
static void idle_remove(wc_trace *t, const kent *k)
{
    for (unsigned i = 0; i < t->nidle; i++)
        if (t->idle[i] == k) {
            memmove(t->idle + i, t->idle + i + 1,
                    (t->nidle - i - 1) * sizeof t->idle[0]);
            t->nidle--;
            return;
        }
}

/* Kernel k's source has no user left: keep a zstd text among the SRC_IDLE
 * last used (the oldest is closed), close any other (t->mu held). */
static void idle_add(wc_trace *t, kent *k)
{
    if (k->kind != WCT_ZSTD) {
        src_close(k->src);
        k->src = NULL;
        return;
    }
    if (t->nidle == SRC_IDLE) {
        kent *old = t->idle[0];
        src_close(old->src);
        old->src = NULL;
        idle_remove(t, old);
    }
    t->idle[t->nidle++] = k;
}

static int src_get(wc_trace *t, kent *k, tsrc **out, wc_diag *d)
{
    int rc = 0;
    pthread_mutex_lock(&t->mu);
    if (!k->src) {
        tsrc *s = calloc(1, sizeof *s);
        if (!s) {
            rc = oom(d);
            goto out;
        }
        rc = wct_open(k->info.path,
                      k->kind == KIND_BIN ? WCT_PLAIN : k->kind, &s->fd,
                      &s->size, d);
        if (rc != 0) {
            free(s);
            goto out;
        }
        k->src = s;
    } else if (k->src->refs == 0) {
        idle_remove(t, k);
    }
    k->src->refs++;
    *out = k->src;
out:
    pthread_mutex_unlock(&t->mu);
    return rc;
}

static void src_put(wc_trace *t, kent *k, tsrc *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&t->mu);
    if (--s->refs == 0)
        idle_add(t, k);
    pthread_mutex_unlock(&t->mu);
}

static void ix_free(ctaix *ix)
{
    if (!ix)
        return;
    free(ix->off);
    free(ix->line);
    free(ix->insts);
}

/* ---- interned strings ---------------------------------------------------------- */

static uint64_t str_hash(const char *s, size_t n)
{
    return wc_fnv1a(WC_FNV1A_INIT, s, n);
}

/* The trace's one copy of s[0..n) (kernel names and paths repeat across
 * launches: memory per launch stays small); NULL when out of memory.
 * Only while the kernel list is built (single-threaded). */
const char *wct_intern(wc_trace *t, const char *s, size_t n)
{
    if ((t->npool + 1) * 2 > t->pool_cap) {
        size_t nc = t->pool_cap ? t->pool_cap * 2 : 64;
        char **np = calloc(nc, sizeof *np);
        if (!np)
            return NULL;
        for (size_t i = 0; i < t->pool_cap; i++) {
            if (!t->pool[i])
                continue;
            size_t h = (size_t)str_hash(t->pool[i], strlen(t->pool[i])) &
                       (nc - 1);
            while (np[h])
                h = (h + 1) & (nc - 1);
            np[h] = t->pool[i];
        }
        free(t->pool);
        t->pool = np;
        t->pool_cap = nc;
    }
    size_t h = (size_t)str_hash(s, n) & (t->pool_cap - 1);
    for (; t->pool[h]; h = (h + 1) & (t->pool_cap - 1))
        /* s may hold a NUL byte (bad input): then strncmp could match a
         * shorter entry and [n] read past it */
        if (strnlen(t->pool[h], n + 1) == n && memcmp(t->pool[h], s, n) == 0)
            return t->pool[h];
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    t->pool[h] = c;
    t->npool++;
    return c;
}

/* ---- kernel headers ---------------------------------------------------------- */

static int hdr_err(const char *path, long line, const char *l, const char *at,
                   wc_diag *d, const char *what)
{
    return wc_diag_set(d, WC_EINPUT, path, line, (long)(at - l) + 1, "%s",
                       what);
}

/* One "-key = value" header line. */
static int header_line(wc_trace *t, kent *k, const char *l, size_t n,
                       long line, unsigned *seen, wc_diag *d)
{
    const char *path = k->info.path;
    const char *eq = memchr(l, '=', n);
    if (!eq)
        return hdr_err(path, line, l, l, d,
                       "kernel header line without '=' (expected "
                       "'-key = value')");
    const char *key = l + 1, *val = eq + 1;
    size_t kn = (size_t)(eq - key), vn = n - (size_t)(val - l);
    trim(&key, &kn);
    /* the value column, for messages, is where the value starts */
    while (vn > 0 && is_blank(*val))
        val++, vn--;
    trim(&val, &vn);
    uint64_t u;
    int64_t i;
    wc_kernel_info *ki = &k->info;
#define KEY(s) (kn == sizeof(s) - 1 && memcmp(key, s, kn) == 0)
    if (KEY("kernel name")) {
        if (vn > WC_KERNEL_NAME_MAX)
            return hdr_err(path, line, l, val, d, "kernel name too long");
        if (!(ki->name = wct_intern(t, val, vn)))
            return oom(d);
        *seen |= 1;
    } else if (KEY("kernel id")) {
        if (num_i(val, vn, 0, INT32_MAX, &i) != 0)
            return hdr_err(path, line, l, val, d, "bad kernel id");
        ki->id = (int)i;
    } else if (KEY("grid dim")) {
        if (num_3(val, vn, ki->grid) != 0)
            return hdr_err(path, line, l, val, d,
                           "bad grid dim (expected (x,y,z))");
        if (!ki->grid[0] || !ki->grid[1] || !ki->grid[2])
            return hdr_err(path, line, l, val, d,
                           "grid dim has a zero extent");
        k->grid_line = line;
        k->grid_col = (long)(val - l) + 1;
        *seen |= 2;
    } else if (KEY("block dim")) {
        if (num_3(val, vn, ki->block) != 0)
            return hdr_err(path, line, l, val, d,
                           "bad block dim (expected (x,y,z))");
        if (!ki->block[0] || !ki->block[1] || !ki->block[2])
            return hdr_err(path, line, l, val, d,
                           "block dim has a zero extent");
        if ((uint64_t)ki->block[0] * ki->block[1] * ki->block[2] >
            (uint64_t)MAX_CTA_WARPS * WC_WARP_SIZE)
            return hdr_err(path, line, l, val, d,
                           "block dim has more than 32768 threads");
        k->block_line = line;
        k->block_col = (long)(val - l) + 1;
        *seen |= 4;
    } else if (KEY("shmem")) {
        if (num_i(val, vn, 0, INT32_MAX, &i) != 0)
            return hdr_err(path, line, l, val, d, "bad shmem size");
        ki->shmem = (long)i;
    } else if (KEY("nregs")) {
        if (num_i(val, vn, 0, 65536, &i) != 0)
            return hdr_err(path, line, l, val, d, "bad register count");
        ki->nregs = (long)i;
    } else if (KEY("binary version")) {
        if (num_i(val, vn, 0, 10000, &i) != 0)
            return hdr_err(path, line, l, val, d, "bad binary version");
        ki->binary_version = (int)i;
    } else if (KEY("cuda stream id")) {
        if (num_u(val, vn, UINT64_MAX, &u) != 0)
            return hdr_err(path, line, l, val, d, "bad cuda stream id");
        ki->stream = u > INT32_MAX ? INT32_MAX : (int)u;
    } else if (KEY("shmem base_addr")) {
        if (num_hex(val, vn, &ki->shmem_base) != 0)
            return hdr_err(path, line, l, val, d, "bad hex shmem base_addr");
    } else if (KEY("local mem base_addr")) {
        if (num_hex(val, vn, &ki->local_base) != 0)
            return hdr_err(path, line, l, val, d,
                           "bad hex local mem base_addr");
    } else if (KEY("accelsim tracer version")) {
        if (num_i(val, vn, 0, 1000, &i) != 0 || i < 3 || i > 6)
            return hdr_err(path, line, l, val, d,
                           "unsupported accelsim tracer version (3 to 6 "
                           "are read)");
        ki->tracer_version = (int)i;
        *seen |= 8;
    } else if (KEY("enable lineinfo")) {
        if (num_u(val, vn, 1, &u) != 0)
            return hdr_err(path, line, l, val, d,
                           "bad enable lineinfo (expected 0 or 1)");
        /* the line column is detected per line (trace_line.c) */
    }
    /* other keys (nvbit version, newer tracer fields) carry nothing we use */
#undef KEY
    return 0;
}

/* Parse the header at the head of kernel file k->info.path. */
static int read_header(wc_trace *t, kent *k, wc_diag *d)
{
    char *buf;
    size_t len;
    int whole;
    const char *path = k->info.path;
    int rc = wct_head(path, k->kind, HEAD_MAX, &buf, &len, &whole, d);
    if (rc != 0)
        return rc;
    unsigned seen = 0;
    long line = 0;
    size_t pos = 0;
    int found = 0;
    while (pos < len) {
        const char *l = buf + pos;
        const char *nl = memchr(l, '\n', len - pos);
        if (!nl && !whole)
            break; /* incomplete last line of the prefix */
        size_t n = nl ? (size_t)(nl - l) : len - pos;
        line++;
        const char *tl = l;
        size_t tn = n;
        trim(&tl, &tn);
        if (tn == 0) {
            /* blank */
        } else if (tl[0] == '#') {
            k->data_off = pos;
            k->data_line = line;
            found = 1;
            break;
        } else if (tl[0] == '-') {
            if ((rc = header_line(t, k, tl, tn, line, &seen, d)) != 0)
                goto out;
        } else {
            rc = wc_diag_set(d, WC_EINPUT, path, line, (long)(tl - l) + 1,
                             "unexpected line in the kernel header: "
                             "'%.*s'",
                             (int)(tn > 40 ? 40 : tn), tl);
            goto out;
        }
        pos += n + (nl ? 1 : 0);
    }
    if (!found) {
        if (!whole) {
            rc = wc_diag_set(d, WC_EINPUT, path, line, 0,
                             "kernel header not terminated by a '#' line "
                             "within %u bytes",
                             HEAD_MAX);
            goto out;
        }
        k->data_off = len; /* header only: a kernel without blocks */
        k->data_line = line + 1;
    }
    static const char *const need[] = {"-kernel name", "-grid dim",
                                       "-block dim",
                                       "-accelsim tracer version"};
    for (unsigned b = 0; b < 4; b++)
        if (!(seen & (1u << b))) {
            rc = wc_diag_set(d, WC_EINPUT, path, found ? k->data_line : 0, 0,
                             "kernel header lacks '%s = ...'", need[b]);
            goto out;
        }
    wc_kernel_info *ki = &k->info;
    ki->ctas = (uint64_t)ki->grid[0] * ki->grid[1] * ki->grid[2];
    uint64_t thr = (uint64_t)ki->block[0] * ki->block[1] * ki->block[2];
    ki->warps_per_cta = (thr + WC_WARP_SIZE - 1) / WC_WARP_SIZE;
out:
    free(buf);
    return rc;
}

/* ---- building the kernel list ------------------------------------------------- */

/* Append launch k (NULL: made on demand from loff) to the list. */
static int launch_push(wc_trace *t, kent *k, uint64_t loff, wc_diag *d)
{
    if (t->nk == t->capk) {
        size_t nc = t->capk ? t->capk * 2 : 8;
        kent **nk = realloc(t->k, nc * sizeof *nk);
        if (nk)
            t->k = nk;
        uint64_t *no = realloc(t->loff, nc * sizeof *no);
        if (no)
            t->loff = no;
        if (!nk || !no)
            return oom(d);
        t->capk = nc;
    }
    t->k[t->nk] = k;
    t->loff[t->nk] = loff;
    t->nk++;
    return 0;
}

/* A new launch whose record is kept for the life of the trace. */
kent *wct_add_kernel(wc_trace *t, wc_diag *d)
{
    kent *k = calloc(1, sizeof *k);
    if (!k) {
        oom(d);
        return NULL;
    }
    if (launch_push(t, k, 0, d) != 0) {
        free(k);
        return NULL;
    }
    return k;
}

/* Free a launch record (no reader or CTA of it may be alive). */
static void kent_free(kent *k)
{
    if (!k)
        return;
    if (k->src)
        src_close(k->src);
    ix_free(k->ix);
    free(k->ix);
    wctb_kern_free(k);
    free(k->own_path);
    free(k);
}

static int set_path(char *dst, size_t n, const char *dir, const char *name,
                    size_t nlen)
{
    int w;
    if (name[0] == '/' || !dir || !*dir)
        w = snprintf(dst, n, "%.*s", (int)nlen, name);
    else
        w = snprintf(dst, n, "%s/%.*s", dir, (int)nlen, name);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

static const char *note_add(wc_trace *t, int warn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A kernel of the trace that no listing of the directory lists runs
 * without control bits: say so (once per kernel name). */
static void apply_sass(wc_trace *t, kent *k)
{
    if (!t->sass_any)
        return;
    wc_kernel_info *ki = &k->info;
    ki->has_ctrl = t->sass && wc_sass_has_kernel(t->sass, ki->name);
    if (!ki->has_ctrl)
        ki->ctrl_note = note_add(
            t, 1,
            "%s: no cuobjdump listing (*.sass) there lists kernel '%s': "
            "it runs without control bits",
            t->sass_dir, ki->name);
}

/* Find the kernel trace file named path (plain, or .zst beside it, or the
 * decompressed file beside a .xz) and read its header into k (zeroed,
 * info.id preset); errors at kernelslist line `line` when kl != NULL. */
static int load_kernel_file(wc_trace *t, kent *k, const char *path,
                            const char *kl, long line, wc_diag *d)
{
    char p[1024];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return wc_diag_set(d, WC_EINPUT, kl ? kl : path, line, kl ? 1 : 0,
                           "path too long");
    if (ends(p, ".xz")) {
        /* decompressed beside it?  then read that */
        char alt[1040];
        size_t al = strlen(p) - 3;
        memcpy(alt, p, al);
        alt[al] = '\0';
        if (exists(alt)) {
            p[al] = '\0';
        } else if (memcpy(alt + al, ".zst", 5), exists(alt) && al + 4 < sizeof p) {
            memcpy(p, alt, al + 5);
        } else {
            return wc_diag_set(d, WC_EINPUT, kl ? kl : path, line,
                               kl ? 1 : 0,
                               "xz-compressed traces are not supported; "
                               "decompress with unxz");
        }
    }
    if (!exists(p)) {
        char z[1040];
        size_t pl = strlen(p);
        memcpy(z, p, pl);
        memcpy(z + pl, ".zst", 5);
        struct stat sp;
        if ((!exists(z) || pl + 4 >= sizeof p) && stat(p, &sp) == 0)
            return wc_diag_set(d, WC_EINPUT, kl ? kl : path, line,
                               kl ? 1 : 0,
                               "kernel trace '%s' is not a regular file%s",
                               p, S_ISDIR(sp.st_mode) ? " (a directory)" : "");
        if (!exists(z) || pl + 4 >= sizeof p)
            return wc_diag_set(d, WC_EINPUT, kl ? kl : path, line,
                               kl ? 1 : 0,
                               "kernel trace '%s' not found (nor '%s.zst')",
                               p, p);
        memcpy(p, z, pl + 5);
    }
    int kind = wct_sniff(p);
    if (kind < 0)
        return wc_diag_set(d, WC_EINPUT, kl ? kl : path, line, kl ? 1 : 0,
                           "cannot read kernel trace '%s': %s", p,
                           strerror(errno));
    if (kind == WCT_XZ)
        return wc_diag_set(d, WC_EINPUT, kl ? kl : p, line, kl ? 1 : 0,
                           "xz-compressed traces are not supported; "
                           "decompress with unxz");
    k->kind = kind;
    k->info.name = "";
    if (!(k->own_path = strdup(p)))
        return oom(d);
    k->info.path = k->own_path;
    int rc = read_header(t, k, d);
    if (rc == 0)
        apply_sass(t, k);
    return rc;
}

/* Add a launch of kernel file path: its header is read (and checked) now;
 * with loff (kernelslist offset + 1) the record is dropped and made again
 * when asked for, else kept. */
static int add_kernel_file(wc_trace *t, const char *path, const char *kl,
                           long line, uint64_t loff, wc_diag *d)
{
    kent *k = calloc(1, sizeof *k);
    if (!k)
        return oom(d);
    k->info.id = (int)t->nk + 1;
    int rc = load_kernel_file(t, k, path, kl, line, d);
    if (rc == 0 && loff) {
        kent_free(k);
        k = NULL;
    }
    if (rc == 0)
        rc = launch_push(t, k, loff, d);
    if (rc != 0)
        kent_free(k);
    return rc;
}

/* Launch k's record made again from its kernelslist line (t->kmu held);
 * &t->stale when the file cannot be read as it was at open. */
static kent *kremake(wc_trace *t, size_t k)
{
    char buf[1200];
    if (!t->loff[k] || t->kl_fd < 0)
        return &t->stale;
    if (t->nlive == t->caplive) {
        size_t nc = t->caplive ? t->caplive * 2 : 16;
        size_t *nl = realloc(t->live, nc * sizeof *nl);
        if (!nl)
            return &t->stale;
        t->live = nl;
        t->caplive = nc;
    }
    ssize_t n = pread(t->kl_fd, buf, sizeof buf - 1, (off_t)(t->loff[k] - 1));
    if (n <= 0)
        return &t->stale;
    const char *s = buf;
    const char *nl = memchr(buf, '\n', (size_t)n);
    size_t sn = nl ? (size_t)(nl - buf) : (size_t)n;
    trim(&s, &sn);
    char p[1024];
    if (sn == 0 || set_path(p, sizeof p, t->kl_dir, s, sn) != 0)
        return &t->stale;
    kent *e = calloc(1, sizeof *e);
    if (!e)
        return &t->stale;
    e->info.id = (int)(k + 1);
    wc_diag d;
    if (load_kernel_file(t, e, p, NULL, 0, &d) != 0) {
        kent_free(e);
        return &t->stale;
    }
    t->k[k] = e;
    t->live[t->nlive++] = k;
    return e;
}

/* Launch k's record (k < t->nk), made again when dropped. */
static kent *kget(wc_trace *t, size_t k)
{
    pthread_mutex_lock(&t->kmu);
    kent *e = t->k[k] ? t->k[k] : kremake(t, k);
    pthread_mutex_unlock(&t->kmu);
    return e;
}

void wc_trace_forget(wc_trace *t, size_t below)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->kmu);
    for (size_t i = 0; i < t->nlive;) {
        size_t k = t->live[i];
        kent *e = t->k[k];
        int drop = k < below;
        if (drop) {
            pthread_mutex_lock(&t->mu);
            drop = !(e->src && e->src->refs) && e->ctrl_chk != 1;
            if (drop && e->src) { /* idle: close it */
                idle_remove(t, e);
                src_close(e->src);
                e->src = NULL;
            }
            pthread_mutex_unlock(&t->mu);
        }
        if (!drop) {
            i++;
            continue;
        }
        kent_free(e);
        t->k[k] = NULL;
        t->live[i] = t->live[--t->nlive];
    }
    pthread_mutex_unlock(&t->kmu);
}

/* kernelslist.g: MemcpyHtoD lines and kernel trace file names. */
static int read_kernelslist(wc_trace *t, const char *kl, const char *dir,
                            wc_diag *d)
{
    /* streamed: memory does not grow with the number of lines */
    FILE *fp = fopen(kl, "rb");
    if (!fp)
        return wc_diag_set(d, WC_EINPUT, kl, 0, 0, "cannot open: %s",
                           strerror(errno));
    if (!(t->kl_dir = strdup(dir ? dir : ""))) {
        fclose(fp);
        return oom(d);
    }
    t->kl_fd = open(kl, O_RDONLY | O_CLOEXEC);
    char *buf = NULL;
    size_t bcap = 0;
    int rc = 0;
    long line = 0;
    uint64_t pos = 0;
    ssize_t got;
    while (rc == 0 && (got = getline(&buf, &bcap, fp)) > 0) {
        const char *l = buf;
        uint64_t at = pos;
        size_t n = (size_t)got;
        pos += n;
        if (n && l[n - 1] == '\n')
            n--;
        line++;
        const char *s = l;
        size_t sn = n;
        trim(&s, &sn);
        if (sn == 0 || s[0] == '#')
            continue;
        if (memchr(s, '\0', sn)) {
            rc = wc_diag_set(d, WC_EINPUT, kl, line, 1,
                             "NUL byte in kernelslist");
        } else if (starts(s, sn, "MemcpyHtoD")) {
            /* MemcpyHtoD,0xADDR,BYTES */
            const char *f = s + 10, *e = s + sn;
            const char *c1 = f < e && *f == ',' ? f : NULL;
            const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(e - c1 - 1))
                                : NULL;
            uint64_t addr, bytes;
            if (!c1 || !c2)
                rc = wc_diag_set(d, WC_EINPUT, kl, line,
                                 (long)(f - l) + 1,
                                 "expected 'MemcpyHtoD,0xADDR,BYTES'");
            else if (num_hex(c1 + 1, (size_t)(c2 - c1 - 1), &addr) != 0)
                rc = wc_diag_set(d, WC_EINPUT, kl, line,
                                 (long)(c1 + 1 - l) + 1,
                                 "bad hex address in MemcpyHtoD");
            else if (num_u(c2 + 1, (size_t)(e - c2 - 1), UINT64_MAX,
                           &bytes) != 0)
                rc = wc_diag_set(d, WC_EINPUT, kl, line,
                                 (long)(c2 + 1 - l) + 1,
                                 "bad byte count in MemcpyHtoD");
            else {
                t->ncopy++;
                t->copy_bytes += bytes;
            }
        } else if (starts(s, sn, "Memcpy")) {
            /* other copies (DtoH ...) do not affect kernels */
        } else if (memchr(s, ',', sn) || memchr(s, ' ', sn) ||
                   memchr(s, '\t', sn)) {
            rc = wc_diag_set(d, WC_EINPUT, kl, line, (long)(s - l) + 1,
                             "unrecognised kernelslist line '%.*s' "
                             "(expected MemcpyHtoD,... or a kernel trace "
                             "file name)",
                             (int)(sn > 40 ? 40 : sn), s);
        } else {
            char p[1024];
            if (set_path(p, sizeof p, dir, s, sn) != 0)
                rc = wc_diag_set(d, WC_EINPUT, kl, line, 1,
                                 "kernel trace path too long");
            else
                rc = add_kernel_file(t, p, kl, line,
                                     t->kl_fd >= 0 ? at + 1 : 0, d);
        }
    }
    if (rc == 0 && ferror(fp))
        rc = wc_diag_set(d, WC_EINPUT, kl, line, 0, "read error: %s",
                         strerror(errno));
    free(buf);
    fclose(fp);
    return rc;
}

/* ---- control-bit join --------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The interned copy of the formatted text (one per distinct text; t->mu
 * not held); with warn, also appended to the warnings the first time.
 * NULL when out of memory. */
static const char *note_add(wc_trace *t, int warn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static const char *note_add(wc_trace *t, int warn, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *out = NULL;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->nnotes; i++)
        if (strcmp(t->notes[i], msg) == 0) {
            out = t->notes[i];
            warn = 0; /* already there */
            break;
        }
    if (!out) {
        if (t->nnotes == t->capnotes) {
            size_t nc = t->capnotes ? t->capnotes * 2 : 8;
            char **nn = realloc(t->notes, nc * sizeof *nn);
            if (!nn)
                goto done;
            t->notes = nn;
            t->capnotes = nc;
        }
        char *c = strdup(msg);
        if (!c)
            goto done;
        t->notes[t->nnotes++] = c;
        out = c;
    }
    if (warn && t->nwarn <= WARN_MAX) {
        if (!t->warn && !(t->warn = calloc(WARN_MAX + 1, sizeof *t->warn)))
            goto done;
        size_t i = t->nwarn++;
        t->warn[i] = i < WARN_MAX ? out : "more warnings not shown";
    }
done:
    pthread_mutex_unlock(&t->mu);
    return out;
}

size_t wc_trace_warnings(const wc_trace *t, const char *const **msgs)
{
    if (msgs)
        *msgs = t ? t->warn : NULL;
    return t ? t->nwarn : 0;
}

/* Load and merge every cuobjdump listing (*.sass) in dir; others are
 * ignored (a hand-written ubench is not a listing).  A listing that does
 * not parse is an error (file:line:col); a kernel of the trace that no
 * listing has runs without control bits, with a note and a warning. */
static int load_sass_dir(wc_trace *t, const char *dir, wc_diag *d)
{
    DIR *dh = opendir(dir && *dir ? dir : ".");
    if (!dh)
        return 0;
    char **names = NULL;
    size_t nn = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        if (!ends(e->d_name, ".sass"))
            continue;
        if (nn == cap) {
            size_t nc = cap ? cap * 2 : 8;
            char **nv = realloc(names, nc * sizeof *nv);
            if (!nv) {
                rc = oom(d);
                break;
            }
            names = nv;
            cap = nc;
        }
        if ((names[nn] = strdup(e->d_name)) == NULL) {
            rc = oom(d);
            break;
        }
        nn++;
    }
    closedir(dh);
    if (nn)
        qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn && rc == 0; i++) {
        char p[1024];
        wc_sass *s = NULL;
        if (set_path(p, sizeof p, dir, names[i], strlen(names[i])) != 0) {
            rc = wc_diag_set(d, WC_EINPUT, names[i], 0, 0,
                             "listing path too long");
            break;
        }
        if ((rc = wc_sass_load(p, &s, d)) != 0) {
            /* a hand-written microbenchmark beside the trace is no
             * listing: skipped; anything else must parse as one */
            wc_ubench *u = NULL;
            wc_diag du;
            if (rc == WC_EINPUT && wc_ubench_load(p, &u, &du) == 0) {
                wc_ubench_free(u);
                rc = 0;
                continue;
            }
            break;
        }
        if (wc_sass_nkernels(s) == 0) {
            note_add(t, 1, "%s: cuobjdump listing lists no kernel", p);
            wc_sass_free(s);
        } else if (!t->sass) {
            t->sass = s;
        } else {
            wc_sass_merge(t->sass, s);
        }
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    if (rc != 0 || nn == 0)
        return rc;
    /* each kernel is told about as it is read (apply_sass) */
    t->sass_any = 1;
    if (!(t->sass_dir = strdup(dir && *dir ? dir : ".")))
        return oom(d);
    return 0;
}

/* ---- hand-written microbenchmark ------------------------------------------------ */

static int open_ubench(wc_trace *t, const char *path, wc_diag *d)
{
    int rc = wc_ubench_load(path, &t->ub, d);
    if (rc != 0)
        return rc;
    kent *k = wct_add_kernel(t, d);
    if (!k)
        return WC_EINTERNAL;
    k->kind = KIND_UBENCH;
    wc_kernel_info *ki = &k->info;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    if (ends(base, ".sass"))
        bl -= 5;
    ki->name = wct_intern(t, base, bl);
    ki->path = wct_intern(t, path, strlen(path));
    if (!ki->name || !ki->path)
        return oom(d);
    ki->id = 1;
    ki->grid[0] = ki->grid[1] = ki->grid[2] = 1;
    ki->block[0] = t->ub->cta_threads ? t->ub->cta_threads
                                      : WC_WARP_SIZE * t->ub->nwarps;
    ki->block[1] = ki->block[2] = 1;
    ki->ctas = 1;
    ki->warps_per_cta = t->ub->nwarps;
    int all = 1;
    for (unsigned w = 0; w < t->ub->nwarps; w++)
        for (size_t i = 0; i < t->ub->ninsts[w]; i++)
            all &= t->ub->code[w][i].ctrl.valid != 0;
    ki->has_ctrl = all;
    return 0;
}

/* ---- open / close --------------------------------------------------------------- */

/* First non-blank byte of a plain file starts a kernel header ('-')? */
static int looks_kernel(const char *path)
{
    char *buf;
    size_t len;
    int whole;
    wc_diag d;
    if (wct_head(path, WCT_PLAIN, 4096, &buf, &len, &whole, &d) != 0)
        return 0;
    size_t i = 0;
    while (i < len && is_blank(buf[i]))
        i++;
    int r = i < len && buf[i] == '-';
    free(buf);
    return r;
}

int wc_trace_open(const char *path, wc_trace **out, wc_diag *d)
{
    *out = NULL;
    if (!path || !*path)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no trace path given");
    wc_trace *t = calloc(1, sizeof *t);
    if (!t)
        return oom(d);
    pthread_mutex_init(&t->mu, NULL);
    pthread_mutex_init(&t->ctrl_mu, NULL);
    pthread_mutex_init(&t->kmu, NULL);
    t->kl_fd = -1;
    t->stale.kind = KIND_STALE;
    t->stale.ctrl_chk = 2;
    t->stale.info.name = "";
    t->stale.info.path = "";
    int rc = 0, src = 0;
    wc_diag sd;
    memset(&sd, 0, sizeof sd);
    char dir[1024];
    struct stat st;
    if (strlen(path) >= sizeof dir - 32) {
        rc = wc_diag_set(d, WC_EINPUT, path, 0, 0, "path too long");
        goto fail;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        char kl[1024];
        snprintf(dir, sizeof dir, "%s", path);
        snprintf(kl, sizeof kl, "%s/kernelslist.g", path);
        if (!exists(kl)) {
            rc = wc_diag_set(d, WC_EINPUT, path, 0, 0,
                             "directory holds no kernelslist.g");
            goto fail;
        }
        /* listings first: each kernel is matched as it is read */
        src = load_sass_dir(t, dir, &sd);
        rc = read_kernelslist(t, kl, dir, d);
    } else {
        const char *sl = strrchr(path, '/');
        if (sl)
            snprintf(dir, sizeof dir, "%.*s", (int)(sl - path), path);
        else
            snprintf(dir, sizeof dir, ".");
        if (sl == path)
            snprintf(dir, sizeof dir, "/");
        if (exists(path) && wctb_sniff(path) == 1) {
            if ((rc = wctb_open(t, path, d)) != 0)
                goto fail;
            *out = t; /* no listings: control bits were joined when the
                         binary form was made */
            return 0;
        }
        if (ends(path, ".sass")) {
            rc = open_ubench(t, path, d);
            if (rc == 0)
                *out = t;
            else
                goto fail;
            return 0;
        }
        int kind = exists(path) ? wct_sniff(path) : WCT_PLAIN;
        if (kind == WCT_XZ) {
            rc = wc_diag_set(d, WC_EINPUT, path, 0, 0,
                             "xz-compressed traces are not supported; "
                             "decompress with unxz");
        } else if (kind == WCT_ZSTD || ends(path, ".traceg") ||
                   ends(path, ".zst") || !exists(path) ||
                   looks_kernel(path)) {
            src = load_sass_dir(t, dir, &sd);
            rc = add_kernel_file(t, path, NULL, 0, 0, d);
        } else {
            src = load_sass_dir(t, dir, &sd);
            rc = read_kernelslist(t, path, dir, d);
        }
    }
    if (rc != 0)
        goto fail;
    if (src != 0) { /* a listing's error, after the kernels' */
        *d = sd;
        rc = src;
        goto fail;
    }
    *out = t;
    return 0;
fail:
    wc_trace_close(t);
    return rc;
}

void wc_trace_close(wc_trace *t)
{
    if (!t)
        return;
    for (size_t k = 0; k < t->nk; k++)
        kent_free(t->k[k]); /* idle, or readers left open: release anyway */
    free(t->k);
    free(t->loff);
    free(t->live);
    if (t->kl_fd >= 0)
        close(t->kl_fd);
    free(t->kl_dir);
    free(t->sass_dir);
    wc_sass_free(t->sass);
    wc_ubench_free(t->ub);
    for (size_t i = 0; i < t->nunk; i++)
        free(t->unk_name[i]);
    free(t->unk_name);
    free(t->unk_count);
    for (size_t i = 0; i < t->pool_cap; i++)
        free(t->pool[i]);
    free(t->pool);
    for (size_t i = 0; i < t->nnotes; i++)
        free(t->notes[i]);
    free(t->notes);
    free(t->warn);
    pthread_mutex_destroy(&t->mu);
    pthread_mutex_destroy(&t->ctrl_mu);
    pthread_mutex_destroy(&t->kmu);
    free(t);
}

size_t wc_trace_nkernels(const wc_trace *t)
{
    return t ? t->nk : 0;
}

const wc_kernel_info *wc_trace_kernel(const wc_trace *t, size_t k)
{
    /* the record is made again when it was dropped (wc_trace_forget) */
    return t && k < t->nk ? &kget((wc_trace *)t, k)->info : NULL;
}

size_t wc_trace_memcpy(const wc_trace *t, uint64_t *bytes)
{
    if (bytes)
        *bytes = t ? t->copy_bytes : 0;
    return t ? (size_t)t->ncopy : 0;
}

size_t wc_trace_unknown_ops(const wc_trace *t, const char *const **names,
                            const uint64_t **counts)
{
    if (names)
        *names = t ? (const char *const *)t->unk_name : NULL;
    if (counts)
        *counts = t ? t->unk_count : NULL;
    return t ? t->nunk : 0;
}

void wct_count_unknown(wc_trace *t, const char *opcode)
{
    size_t n = strcspn(opcode, ".");
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < t->nunk; i++)
        if (strlen(t->unk_name[i]) == n &&
            memcmp(t->unk_name[i], opcode, n) == 0) {
            t->unk_count[i]++;
            goto out;
        }
    if (t->nunk == t->capunk) {
        size_t nc = t->capunk ? t->capunk * 2 : 8;
        char **nn = realloc(t->unk_name, nc * sizeof *nn);
        if (!nn)
            goto out;
        t->unk_name = nn;
        uint64_t *ncnt = realloc(t->unk_count, nc * sizeof *ncnt);
        if (!ncnt)
            goto out;
        t->unk_count = ncnt;
        t->capunk = nc;
    }
    char *s = malloc(n + 1);
    if (!s)
        goto out;
    memcpy(s, opcode, n);
    s[n] = '\0';
    t->unk_name[t->nunk] = s;
    t->unk_count[t->nunk++] = 1;
out:
    pthread_mutex_unlock(&t->mu);
}

/* ---- kernel reader: the TB scan ------------------------------------------------- */

static int kreader_open(wc_trace *t, size_t k, wc_kreader **out,
                        wc_diag *d);

int wc_kreader_open(wc_trace *t, size_t k, wc_kreader **out, wc_diag *d)
{
    *out = NULL;
    if (!t || k >= t->nk)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no kernel %zu in trace",
                           k);
    int crc = wc_trace_check_ctrl(t, k, d);
    if (crc != 0)
        return crc;
    return kreader_open(t, k, out, d);
}

/* wc_kreader_open without the listing check. */
static int kreader_open(wc_trace *t, size_t k, wc_kreader **out,
                        wc_diag *d)
{
    *out = NULL;
    wc_kreader *r = calloc(1, sizeof *r);
    if (!r)
        return oom(d);
    r->t = t;
    r->k = kget(t, k);
    if (r->k->kind == KIND_STALE) {
        free(r);
        return wc_diag_set(d, WC_EINPUT, "", 0, 0,
                           "kernel launch %zu: its trace file can no longer "
                           "be read as it was when the trace was opened",
                           k + 1);
    }
    if (r->k->kind == KIND_BIN) {
        int rc = wctb_load(t, r->k, d);
        if (rc == 0)
            rc = src_get(t, r->k, &r->src, d);
        if (rc != 0) {
            free(r);
            return rc;
        }
    } else if (r->k->kind != KIND_UBENCH) {
        int rc = src_get(t, r->k, &r->src, d);
        if (rc != 0) {
            free(r);
            return rc;
        }
        lb_init(&r->b, r->k->data_off, r->src->size);
        r->line = r->k->data_line;
        pthread_mutex_lock(&t->mu);
        r->bld_on = r->k->ix == NULL;
        pthread_mutex_unlock(&t->mu);
        r->chk_on = r->chk_dup = 1;
    }
    *out = r;
    return 0;
}

void wc_kreader_close(wc_kreader *r)
{
    if (!r)
        return;
    lb_free(&r->b);
    free(r->scratch);
    free(r->seen);
    ix_free(&r->bld);
    src_put(r->t, r->k, r->src);
    free(r);
}

static int scan_err(wc_kreader *r, long line, long col, wc_diag *d,
                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int scan_err(wc_kreader *r, long line, long col, wc_diag *d,
                    const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wc_diag_set(d, WC_EINPUT, r->k->info.path, line, col, "%s", msg);
}

#define CUT(n) ((int)((n) > 40 ? 40 : (n)))

/* Does trimmed line s/n open a structural element (not an instruction)? */
static int is_struct(const char *s, size_t n)
{
    return s[0] == '#' || starts(s, n, "warp") || starts(s, n, "insts") ||
           starts(s, n, "thread block");
}

/* "key = value": key of lower-case words (newer tracer fields). */
static int is_keyval(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == ' ' ||
                     s[i] == '_'))
        i++;
    return i > 0 && i < n && s[i] == '=' && s[0] != ' ';
}

/* Value after "key =" in a trimmed line, and its 1-based column. */
static int after_eq(const char *l, const char *s, size_t n, const char **v,
                    size_t *vn, long *col)
{
    const char *eq = memchr(s, '=', n);
    if (!eq)
        return -1;
    *v = eq + 1;
    *vn = n - (size_t)(eq + 1 - s);
    while (*vn > 0 && is_blank(**v))
        (*v)++, (*vn)--;
    *col = (long)(*v - l) + 1;
    return 0;
}

/* First byte of an instruction line (hex PC or decimal line number): such
 * a line is neither blank nor structure, so the scan only counts it. */
static inline int inst_start(char c)
{
    unsigned u = (unsigned)(unsigned char)c;
    return u - '0' <= 9u || (u | 0x20u) - 'a' <= 5u;
}

/*
 * Scan one thread block.  With rec, fill r->scratch (warp records) and
 * idx; *got = 1 for a block, 0 at the end of the trace; *ninsts = the
 * block's warp instructions.
 *
 *   OUT --#BEGIN_TB--> IN --warp = W--> (insts = N, N lines) --> IN
 *    ^                  |
 *    +----#END_TB-------+
 */
static int scan_cta(wc_kreader *r, int rec, unsigned idx[3], unsigned *nw,
                    int *got, uint64_t *ninsts, long *tbl, wc_diag *d)
{
    const wc_kernel_info *ki = &r->k->info;
    const char *path = ki->path;
    const char *l;
    size_t n;
    uint64_t loff;
    int in_tb = 0, have_idx = 0;
    long tb_line = 0;
    uint64_t wseen[MAX_CTA_WARPS / 64];
    *got = 0;
    *nw = 0;
    *ninsts = 0;
    for (;;) {
        long lno = r->line;
        int g = lb_getline(&r->b, r->src->fd, SCAN_BUF, path, lno, &l, &n,
                           &loff, d);
        if (g < 0 || g > 1)
            return g;
        if (g == 0)
            break;
        r->line++;
        const char *s = l;
        size_t sn = n;
        trim(&s, &sn);
        if (sn == 0)
            continue;
        long col = (long)(s - l) + 1;
        if (!in_tb) {
            if (starts(s, sn, "#BEGIN_TB")) {
                in_tb = 1;
                tb_line = *tbl = lno;
                memset(wseen, 0, sizeof wseen);
            } else if (starts(s, sn, "#END_TB")) {
                return scan_err(r, lno, col, d,
                                "#END_TB without #BEGIN_TB");
            } else if (s[0] != '#') {
                return scan_err(r, lno, col, d,
                                "expected #BEGIN_TB, found '%.*s'", CUT(sn), s);
            }
            continue;
        }
        if (starts(s, sn, "#END_TB")) {
            if (!have_idx)
                return scan_err(r, lno, col, d,
                                "thread block has no 'thread block = "
                                "x,y,z' line");
            if (*nw != ki->warps_per_cta)
                return scan_err(r, lno, col, d,
                                "thread block (%u,%u,%u) has %u warps but "
                                "block dim (%u,%u,%u) makes %llu",
                                idx[0], idx[1], idx[2], *nw, ki->block[0],
                                ki->block[1], ki->block[2],
                                (unsigned long long)ki->warps_per_cta);
            *got = 1;
            return 0;
        }
        if (starts(s, sn, "#BEGIN_TB"))
            return scan_err(r, lno, col, d,
                            "#BEGIN_TB inside a thread block (missing "
                            "#END_TB)");
        if (s[0] == '#')
            continue;
        const char *v;
        size_t vn;
        long vcol;
        if (starts(s, sn, "thread block") &&
            after_eq(l, s, sn, &v, &vn, &vcol) == 0) {
            if (num_3(v, vn, idx) != 0)
                return scan_err(r, lno, vcol, d,
                                "bad thread block index '%.*s' (expected "
                                "x,y,z)",
                                CUT(vn), v);
            if (have_idx)
                return scan_err(r, lno, col, d,
                                "second 'thread block =' line in one "
                                "thread block");
            if (idx[0] >= ki->grid[0] || idx[1] >= ki->grid[1] ||
                idx[2] >= ki->grid[2])
                return scan_err(r, lno, vcol, d,
                                "thread block (%u,%u,%u) outside grid dim "
                                "(%u,%u,%u)",
                                idx[0], idx[1], idx[2], ki->grid[0],
                                ki->grid[1], ki->grid[2]);
            r->idx_line = lno;
            r->idx_col = vcol;
            have_idx = 1;
            continue;
        }
        if (starts(s, sn, "insts"))
            return scan_err(r, lno, col, d,
                            "'insts =' without a preceding 'warp ='");
        if (!starts(s, sn, "warp") || after_eq(l, s, sn, &v, &vn, &vcol)) {
            if (is_keyval(s, sn))
                continue; /* newer tracer fields */
            return scan_err(r, lno, col, d,
                            "unexpected line in thread block: '%.*s' (more "
                            "instruction lines than 'insts =' says?)",
                            CUT(sn), s);
        }
        uint64_t wid;
        if (num_u(v, vn, UINT32_MAX, &wid) != 0)
            return scan_err(r, lno, vcol, d, "bad warp id '%.*s'", CUT(vn), v);
        if (wid >= ki->warps_per_cta)
            return scan_err(r, lno, vcol, d,
                            "warp id %llu out of range: block dim "
                            "(%u,%u,%u) makes %llu warps",
                            (unsigned long long)wid, ki->block[0],
                            ki->block[1], ki->block[2],
                            (unsigned long long)ki->warps_per_cta);
        if (wseen[wid / 64] >> (wid % 64) & 1)
            return scan_err(r, lno, vcol, d,
                            "warp %llu appears twice in one thread block",
                            (unsigned long long)wid);
        wseen[wid / 64] |= 1ull << (wid % 64);
        /* insts = N on the next non-blank line */
        long ilno;
        for (;;) {
            ilno = r->line;
            g = lb_getline(&r->b, r->src->fd, SCAN_BUF, path, ilno, &l, &n,
                           &loff, d);
            if (g < 0 || g > 1)
                return g;
            if (g == 0)
                return scan_err(r, ilno, 0, d,
                                "end of file after 'warp =', expected "
                                "'insts = N'");
            r->line++;
            s = l;
            sn = n;
            trim(&s, &sn);
            if (sn)
                break;
        }
        col = (long)(s - l) + 1;
        uint64_t ninst;
        if (!starts(s, sn, "insts") || after_eq(l, s, sn, &v, &vn, &vcol))
            return scan_err(r, ilno, col, d,
                            "expected 'insts = N', found '%.*s'", CUT(sn), s);
        if (num_u(v, vn, UINT64_MAX, &ninst) != 0)
            return scan_err(r, ilno, vcol, d, "bad instruction count '%.*s'",
                            CUT(vn), v);
        uint64_t off0 = loff + n + 1, end = off0;
        long line0 = r->line;
        for (uint64_t i = 0; i < ninst;) {
            /* fast path: whole buffered lines that start like an
             * instruction are counted with one memchr each */
            lbuf *b = &r->b;
            const char *p = b->buf ? b->buf + b->beg : NULL;
            const char *e = b->buf ? b->buf + b->end : NULL;
            while (i < ninst && p < e && inst_start(*p)) {
                const char *nl = memchr(p, '\n', (size_t)(e - p));
                if (!nl)
                    break;
                p = nl + 1;
                i++;
                r->line++;
            }
            if (p != b->buf + b->beg) {
                b->beg = (size_t)(p - b->buf);
                end = b->off + b->beg;
            }
            if (i == ninst)
                break;
            long xl = r->line;
            g = lb_getline(&r->b, r->src->fd, SCAN_BUF, path, xl, &l, &n,
                           &loff, d);
            if (g < 0 || g > 1)
                return g;
            const char *q = l;
            size_t qn = n;
            if (g == 1) {
                r->line++;
                trim(&q, &qn);
                if (qn == 0)
                    continue;
            }
            if (g == 0 || is_struct(q, qn)) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "insts = %llu but warp %llu has only %llu "
                         "instruction lines",
                         (unsigned long long)ninst, (unsigned long long)wid,
                         (unsigned long long)i);
                return wc_diag_set(d, WC_EINPUT, path, ilno, vcol, "%s",
                                   msg);
            }
            end = loff + n + 1;
            i++;
        }
        if (end > r->src->size)
            end = r->src->size;
        if (*nw >= MAX_CTA_WARPS)
            return scan_err(r, lno, col, d,
                            "more than 1024 warps in one thread block");
        if (rec) {
            if (*nw == r->cap_scratch) {
                unsigned nc = r->cap_scratch ? r->cap_scratch * 2 : 8;
                wstream *ns = realloc(r->scratch, nc * sizeof *ns);
                if (!ns)
                    return oom(d);
                r->scratch = ns;
                r->cap_scratch = nc;
            }
            wstream *w = &r->scratch[*nw];
            memset(w, 0, sizeof *w);
            w->id = (unsigned)wid;
            w->n = ninst;
            w->off0 = off0;
            w->end = ninst ? end : off0;
            w->line0 = w->line = line0;
            lb_init(&w->b, w->off0, w->end);
        }
        (*nw)++;
        *ninsts += ninst;
    }
    if (in_tb)
        return wc_diag_set(d, WC_EINPUT, path, tb_line, 1,
                           "thread block not closed by #END_TB (file ends)");
    return 0;
}

/* Append to the index being built; 0, or -1 when out of memory. */
static int bld_push(ctaix *x, uint64_t *cap, uint64_t off, long line)
{
    if (x->n + 1 >= *cap) {
        uint64_t nc = *cap ? *cap * 2 : 64;
        uint64_t *no = realloc(x->off, nc * sizeof *no);
        if (no)
            x->off = no;
        int64_t *nl = realloc(x->line, nc * sizeof *nl);
        if (nl)
            x->line = nl;
        uint64_t *ni = realloc(x->insts, nc * sizeof *ni);
        if (ni)
            x->insts = ni;
        if (!no || !nl || !ni)
            return -1;
        *cap = nc;
    }
    x->off[x->n] = off;
    x->line[x->n] = line;
    return 0;
}

/*
 * The CTAs against the header's grid dim: none beyond the grid's count
 * (any reader: r->cta is the trace position), and, for a reader that has
 * met every CTA from the first, no block id twice and exactly the grid's
 * count at the end of the kernel.  got = 0: the end was reached.
 */
static int check_cta(wc_kreader *r, const unsigned idx[3], int got, long tbl,
                     wc_diag *d)
{
    const kent *k = r->k;
    const wc_kernel_info *ki = &k->info;
    if (!got) {
        if (r->chk_on && r->cta != ki->ctas)
            return wc_diag_set(d, WC_EINPUT, ki->path, k->grid_line,
                               k->grid_col,
                               "grid dim (%u,%u,%u) makes %llu thread "
                               "blocks but the trace holds %llu (cut "
                               "short?)",
                               ki->grid[0], ki->grid[1], ki->grid[2],
                               (unsigned long long)ki->ctas,
                               (unsigned long long)r->cta);
        return 0;
    }
    if (r->cta >= ki->ctas)
        return wc_diag_set(d, WC_EINPUT, ki->path, tbl, 1,
                           "more thread blocks than grid dim (%u,%u,%u) "
                           "makes (%llu)",
                           ki->grid[0], ki->grid[1], ki->grid[2],
                           (unsigned long long)ki->ctas);
    if (!r->chk_on)
        return 0;
    if (!r->seen && r->chk_dup) {
        /* one bit per block id; beyond 2^32 blocks only the count is
         * checked */
        r->seen = ki->ctas <= (1ull << 32) ? calloc((size_t)((ki->ctas + 7) / 8), 1)
                                           : NULL;
        if (!r->seen)
            r->chk_dup = 0;
    }
    if (r->chk_dup) {
        uint64_t lin = idx[0] + (uint64_t)ki->grid[0] *
                                    (idx[1] + (uint64_t)ki->grid[1] * idx[2]);
        unsigned char bit = (unsigned char)(1u << (lin % 8));
        if (r->seen[lin / 8] & bit)
            return wc_diag_set(d, WC_EINPUT, ki->path, r->idx_line,
                               r->idx_col,
                               "thread block (%u,%u,%u) appears twice in "
                               "the trace",
                               idx[0], idx[1], idx[2]);
        r->seen[lin / 8] |= bit;
    }
    return 0;
}

/*
 * scan_cta, keeping count of CTAs and building the kernel's CTA index
 * while this reader has met every CTA from the first: at the end of the
 * kernel the index is published (first one wins).  Out of memory only
 * stops the building.
 */
static int scan_next(wc_kreader *r, int rec, unsigned idx[3], unsigned *nw,
                     int *got, wc_diag *d)
{
    uint64_t pos = r->b.off + r->b.beg, ninsts;
    long line = r->line, tbl = 0;
    int rc = scan_cta(r, rec, idx, nw, got, &ninsts, &tbl, d);
    if (rc == 0)
        rc = check_cta(r, idx, *got, tbl, d);
    if (rc != 0) {
        r->bld_on = 0;
        return rc;
    }
    int build = r->bld_on && r->cta == r->bld.n;
    if (build && bld_push(&r->bld, &r->bld_cap, pos, line) != 0) {
        r->bld_on = build = 0;
        ix_free(&r->bld);
        memset(&r->bld, 0, sizeof r->bld);
    }
    if (*got) {
        if (build)
            r->bld.insts[r->bld.n++] = ninsts;
        r->cta++;
        return 0;
    }
    if (build) { /* the end: off[n], line[n] were just pushed */
        ctaix *ix = malloc(sizeof *ix);
        r->bld_on = 0;
        if (!ix)
            return 0;
        *ix = r->bld;
        memset(&r->bld, 0, sizeof r->bld);
        /* to its size: kept for the life of the trace, one per launch */
        uint64_t *no = realloc(ix->off, (ix->n + 1) * sizeof *no);
        int64_t *nl = realloc(ix->line, (ix->n + 1) * sizeof *nl);
        uint64_t *ni = realloc(ix->insts, (ix->n + 1) * sizeof *ni);
        if (no)
            ix->off = no;
        if (nl)
            ix->line = nl;
        if (ni)
            ix->insts = ni;
        pthread_mutex_lock(&r->t->mu);
        if (!r->k->ix)
            r->k->ix = ix, ix = NULL;
        pthread_mutex_unlock(&r->t->mu);
        ix_free(ix);
        free(ix);
    }
    return 0;
}

/* The kernel's CTA index, or NULL. */
static ctaix *get_ix(wc_trace *t, kent *k)
{
    pthread_mutex_lock(&t->mu);
    ctaix *ix = k->ix;
    pthread_mutex_unlock(&t->mu);
    return ix;
}

int wc_kreader_next(wc_kreader *r, wc_cta **cta, wc_diag *d)
{
    *cta = NULL;
    wc_cta *c = calloc(1, sizeof *c);
    if (!c)
        return oom(d);
    c->t = r->t;
    c->k = r->k;
    if (r->k->kind == KIND_UBENCH) {
        if (r->ub_done) {
            free(c);
            return 0;
        }
        r->ub_done = 1;
        const wc_ubench *u = r->t->ub;
        c->nwarps = u->nwarps;
        c->w = calloc(u->nwarps ? u->nwarps : 1, sizeof *c->w);
        if (!c->w) {
            free(c);
            return oom(d);
        }
        for (unsigned w = 0; w < u->nwarps; w++) {
            c->w[w].id = u->warp_id ? u->warp_id[w] : w;
            c->w[w].n = u->ninsts[w];
        }
        *cta = c;
        return 0;
    }
    if (r->k->kind == KIND_BIN) {
        int g = wctb_cta(r, c, d);
        if (g <= 0) {
            wctb_cta_free(c); /* the frame and decoder of a failed read */
            free(c);
            return -g;
        }
        c->src = r->src;
        pthread_mutex_lock(&r->t->mu);
        r->src->refs++;
        pthread_mutex_unlock(&r->t->mu);
        *cta = c;
        return 0;
    }
    unsigned nw;
    int got;
    int rc = scan_next(r, 1, c->idx, &nw, &got, d);
    if (rc != 0 || !got) {
        free(c);
        return rc;
    }
    c->w = malloc((nw ? nw : 1) * sizeof *c->w);
    if (!c->w) {
        free(c);
        return oom(d);
    }
    if (nw)
        memcpy(c->w, r->scratch, nw * sizeof *c->w);
    c->nwarps = nw;
    if (r->cta == r->k->info.ctas && !get_ix(r->t, r->k)) {
        /* The grid's last CTA, in a kernel not yet checked to its end:
         * look past it now, so a reader that stops at the grid's count
         * still sees a trace with more CTAs than its header. */
        unsigned pidx[3], pnw;
        int pgot;
        rc = scan_next(r, 0, pidx, &pnw, &pgot, d);
        if (rc != 0) {
            free(c->w);
            free(c);
            return rc;
        }
    }
    c->src = r->src;
    pthread_mutex_lock(&r->t->mu);
    r->src->refs++;
    pthread_mutex_unlock(&r->t->mu);
    *cta = c;
    return 0;
}

int wc_kreader_skip(wc_kreader *r, uint64_t n, wc_diag *d)
{
    if (r->k->kind == KIND_UBENCH) {
        if (n > 0)
            r->ub_done = 1;
        return 0;
    }
    if (r->k->kind == KIND_BIN) {
        uint64_t left = r->k->info.ctas - r->cta;
        r->cta += n < left ? n : left;
        return 0;
    }
    if (get_ix(r->t, r->k))
        return wc_kreader_seek(r, n > UINT64_MAX - r->cta ? UINT64_MAX
                                                         : r->cta + n,
                               d);
    for (uint64_t i = 0; i < n; i++) {
        unsigned idx[3], nw;
        int got;
        int rc = scan_next(r, 0, idx, &nw, &got, d);
        if (rc != 0)
            return rc;
        if (!got)
            return 0;
    }
    return 0;
}

int wc_kreader_seek(wc_kreader *r, uint64_t cta, wc_diag *d)
{
    if (r->k->kind == KIND_UBENCH) {
        r->ub_done = cta > 0;
        return 0;
    }
    if (r->k->kind == KIND_BIN) {
        r->cta = cta < r->k->info.ctas ? cta : r->k->info.ctas;
        return 0;
    }
    ctaix *ix = get_ix(r->t, r->k);
    if (ix) {
        if (cta > ix->n)
            cta = ix->n;
        lb_seek(&r->b, ix->off[cta]);
        r->line = (long)ix->line[cta];
        if (cta != r->cta)
            r->chk_on = 0; /* a gap: the kernel was checked by the pass
                              that built the index */
        r->cta = cta;
        return 0;
    }
    if (cta < r->cta) { /* no index yet: from the start */
        lb_seek(&r->b, r->k->data_off);
        r->line = r->k->data_line;
        r->cta = 0;
        r->chk_on = 1;
        if (r->seen)
            memset(r->seen, 0, (size_t)((r->k->info.ctas + 7) / 8));
    }
    return wc_kreader_skip(r, cta - r->cta, d);
}

int wc_trace_cta_insts(wc_trace *t, size_t k, const uint64_t **insts,
                       uint64_t *n, wc_diag *d)
{
    *insts = NULL;
    *n = 0;
    if (!t || k >= t->nk)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no kernel %zu in trace",
                           k);
    kent *ke = kget(t, k);
    ctaix *ix = get_ix(t, ke);
    if (!ix && ke->kind == KIND_UBENCH) {
        ctaix *u = calloc(1, sizeof *u);
        uint64_t *cnt = calloc(1, sizeof *cnt);
        if (!u || !cnt) {
            free(u);
            free(cnt);
            return oom(d);
        }
        for (unsigned w = 0; w < t->ub->nwarps; w++)
            cnt[0] += t->ub->ninsts[w];
        u->n = 1;
        u->insts = cnt;
        pthread_mutex_lock(&t->mu);
        if (!ke->ix)
            ke->ix = u, u = NULL;
        ix = ke->ix;
        pthread_mutex_unlock(&t->mu);
        ix_free(u);
        free(u);
    } else if (!ix && ke->kind == KIND_BIN) {
        int rc = wctb_load(t, ke, d);
        if (rc != 0)
            return rc;
        ix = get_ix(t, ke);
    } else if (!ix) {
        /* one scan over the kernel builds and publishes the index */
        wc_kreader *r;
        int rc = wc_kreader_open(t, k, &r, d);
        if (rc == 0)
            rc = wc_kreader_skip(r, UINT64_MAX, d);
        wc_kreader_close(r);
        if (rc != 0)
            return rc;
        if (!(ix = get_ix(t, ke)))
            return oom(d); /* the only way the pass builds nothing */
    }
    *insts = ix->insts;
    *n = ix->n;
    return 0;
}

/* ---- CTAs and warp streams ------------------------------------------------------ */

void wc_cta_free(wc_cta *c)
{
    if (!c)
        return;
    for (unsigned w = 0; w < c->nwarps; w++)
        lb_free(&c->w[w].b);
    wctb_cta_free(c);
    free(c->w);
    src_put(c->t, c->k, c->src);
    free(c);
}

void wc_cta_index(const wc_cta *c, unsigned xyz[3])
{
    xyz[0] = c->idx[0];
    xyz[1] = c->idx[1];
    xyz[2] = c->idx[2];
}

unsigned wc_cta_nwarps(const wc_cta *c)
{
    return c->nwarps;
}

unsigned wc_cta_warp_id(const wc_cta *c, unsigned w)
{
    return w < c->nwarps ? c->w[w].id : 0;
}

uint64_t wc_cta_warp_len(const wc_cta *c, unsigned w)
{
    return w < c->nwarps ? c->w[w].n : 0;
}

/* Length of the opcode without its modifiers. */
static size_t op_base(const char *op)
{
    return strcspn(op, ".");
}

/* A trace instruction the listing does not match: reported once per
 * kernel.  While the kernel's first CTA is checked (ctrl_chk == 1) the
 * kernel loses its control bits; later (a PC only some CTAs reach) only
 * the instruction goes without. */
static void ctrl_mismatch(wc_trace *t, kent *k, const wc_inst *in,
                          const wc_inst *si, const char *lfile)
{
    pthread_mutex_lock(&t->mu);
    int first = !k->ctrl_bad, checking = k->ctrl_chk == 1;
    k->ctrl_bad = 1;
    pthread_mutex_unlock(&t->mu);
    if (!first)
        return;
    char what[160];
    if (si)
        snprintf(what, sizeof what,
                 "is %.*s in the trace (line %u) but %.*s in the listing",
                 (int)op_base(in->opcode), in->opcode, (unsigned)in->line,
                 (int)op_base(si->opcode), si->opcode);
    else
        snprintf(what, sizeof what,
                 "of the trace (line %u, %.*s) is not in the listing",
                 (unsigned)in->line, (int)op_base(in->opcode), in->opcode);
    char where[64] = "";
    if (si)
        snprintf(where, sizeof where, ":%u", (unsigned)si->line);
    const char *n = note_add(
        t, 1,
        "%s%s: listing does not match the trace of kernel '%s' (%s): PC "
        "0x%04llx %s; %s",
        lfile ? lfile : "?", where, k->info.name, k->info.path,
        (unsigned long long)in->pc, what,
        checking ? "control bits not used for this kernel"
                 : "control bits not used for this instruction");
    if (checking)
        k->info.ctrl_note = n;
}

/* Copy control bits, reuse and constant-operand info from the listing. */
static void join_ctrl(wc_trace *t, kent *k, wc_inst *in)
{
    const wc_inst *si = wc_sass_find(t->sass, k->info.name, in->pc);
    if (!si || op_base(si->opcode) != op_base(in->opcode) ||
        memcmp(si->opcode, in->opcode, op_base(in->opcode)) != 0) {
        ctrl_mismatch(t, k, in, si,
                      wc_sass_kernel_file(t->sass, k->info.name));
        return;
    }
    in->ctrl = si->ctrl;
    in->iflags = (uint8_t)(in->iflags |
                           (si->iflags & (WC_IF_CONSTOP | WC_IF_UADDR |
                                          WC_IF_CLOCK)));
    in->const_addr = si->const_addr;
    if (si->depbar_sb >= 0) {
        in->depbar_sb = si->depbar_sb;
        in->depbar_le = si->depbar_le;
        in->depbar_ids = si->depbar_ids;
    }
}

int wc_trace_check_ctrl(wc_trace *t, size_t k, wc_diag *d)
{
    if (!t || k >= t->nk)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no kernel %zu in trace",
                           k);
    kent *ke = kget(t, k);
    pthread_mutex_lock(&t->mu);
    int done = ke->ctrl_chk == 2;
    pthread_mutex_unlock(&t->mu);
    if (done)
        return 0;
    pthread_mutex_lock(&t->ctrl_mu);
    pthread_mutex_lock(&t->mu);
    int todo = ke->ctrl_chk == 0 && ke->info.has_ctrl &&
               ke->kind != KIND_UBENCH && ke->kind != KIND_BIN;
    ke->ctrl_chk = todo ? 1 : 2;
    pthread_mutex_unlock(&t->mu);
    if (!todo) {
        pthread_mutex_unlock(&t->ctrl_mu);
        return 0;
    }
    wc_kreader *r = NULL;
    wc_cta *c = NULL;
    int rc = kreader_open(t, k, &r, d);
    if (rc == 0)
        rc = wc_kreader_next(r, &c, d);
    unsigned left = CTRL_CHECK_INSTS;
    for (unsigned w = 0; rc == 0 && c && w < wc_cta_nwarps(c) && left &&
                         !ke->ctrl_bad;
         w++) {
        wc_inst in;
        int g = 0;
        while (left && !ke->ctrl_bad && (g = wc_cta_next(c, w, &in, d)) == 1)
            left--;
        if (left && !ke->ctrl_bad && g < 0)
            rc = -g;
    }
    wc_cta_free(c);
    wc_kreader_close(r);
    pthread_mutex_lock(&t->mu);
    if (ke->ctrl_bad)
        ke->info.has_ctrl = 0;
    ke->ctrl_chk = 2;
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_unlock(&t->ctrl_mu);
    return rc;
}

int wc_cta_next(wc_cta *c, unsigned w, wc_inst *in, wc_diag *d)
{
    if (w >= c->nwarps) {
        wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no warp stream %u in CTA", w);
        return -WC_EUSAGE;
    }
    wstream *s = &c->w[w];
    if (s->done >= s->n) {
        lb_free(&s->b); /* keep memory to the live streams */
        free(s->dec);
        s->dec = NULL;
        s->dcap = 0;
        return 0;
    }
    if (c->k->kind == KIND_UBENCH) {
        *in = c->t->ub->code[w][s->done++];
        if (in->op == WC_OP_UNKNOWN)
            wct_count_unknown(c->t, in->opcode);
        return 1;
    }
    if (c->k->kind == KIND_BIN) {
        int g = wctb_next(c, s, in, d);
        if (g == 1 && in->op == WC_OP_UNKNOWN)
            wct_count_unknown(c->t, in->opcode);
        return g;
    }
    const char *path = c->k->info.path;
    for (;;) {
        const char *l;
        size_t n;
        uint64_t loff;
        long lno = s->line;
        int g = lb_getline(&s->b, c->src->fd, WARP_BUF, path, lno, &l, &n,
                           &loff, d);
        if (g < 0 || g > 1)
            return -g;
        if (g == 0) {
            wc_diag_set(d, WC_EINPUT, path, lno, 0,
                        "warp %u ends after %llu of its %llu instructions "
                        "(file changed while read?)",
                        s->id, (unsigned long long)s->done,
                        (unsigned long long)s->n);
            return -WC_EINPUT;
        }
        s->line++;
        size_t i = 0;
        while (i < n && is_blank(l[i]))
            i++;
        if (i == n)
            continue;
        int rc = wc_trace_parse_line(l, n, c->k->info.tracer_version, in,
                                     path, lno, d);
        if (rc != 0)
            return -rc;
        break;
    }
    s->done++;
    if (c->k->info.has_ctrl)
        join_ctrl(c->t, c->k, in);
    if (in->op == WC_OP_UNKNOWN)
        wct_count_unknown(c->t, in->opcode);
    return 1;
}

int wc_cta_rewind(wc_cta *c, unsigned w, wc_diag *d)
{
    if (w >= c->nwarps)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0, "no warp stream %u in CTA",
                           w);
    wstream *s = &c->w[w];
    s->done = 0;
    if (c->k->kind == KIND_BIN) {
        wctb_rewind(s);
        return 0;
    }
    s->line = s->line0;
    lb_init(&s->b, s->off0, s->end);
    return 0;
}
