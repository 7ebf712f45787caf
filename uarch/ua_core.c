/*
 * uarch/ua_core.c - the typed core parameters (decoded once from the
 * config), the one occupancy rule, warp-to-sub-core assignment and the
 * policy names shared by the interval model, the detailed model, the
 * sampler and calibration.  No timing number is written here: values come
 * from data/gpus/ through common/keys*.def.
 */
#include <stdio.h>
#include <string.h>

#include "ua.h"

static const char *const pol_names[UA_POL_COUNT] = {"cggty", "gto", "lrr",
                                                    "rba"};
static const char *const asg_names[UA_ASSIGN_COUNT] = {"rr", "srr",
                                                       "shuffle"};
static const char *const dep_names[UA_DEP_COUNT] = {"auto", "ctrl",
                                                    "scoreboard"};

const char *ua_policy_name(int v)
{
    return v >= 0 && v < UA_POL_COUNT ? pol_names[v] : NULL;
}

const char *ua_assign_name(int v)
{
    return v >= 0 && v < UA_ASSIGN_COUNT ? asg_names[v] : NULL;
}

const char *ua_dep_name(int v)
{
    return v >= 0 && v < UA_DEP_COUNT ? dep_names[v] : NULL;
}

/* Index of v in names[0..n), or -1; on -1, d names the key and the
 * accepted values. */
static int pick(const wc_gpu *g, const char *key, const char *v,
                const char *const *names, int n, wc_diag *d)
{
    char list[128] = "";
    for (int i = 0; i < n; i++) {
        if (strcmp(v, names[i]) == 0)
            return i;
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s",
                 i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
    }
    wc_diag_set(d, WC_EINPUT, g->source, 0, 0, "%s '%s': expected %s", key, v,
                list);
    return -1;
}

/* Every numeric key of g inside the bounds of the key table (the loader
 * and --set check them; a config built in code must too). */
static int check_bounds(const wc_gpu *g, wc_diag *d)
{
    size_t n;
    const wc_key_desc *k = wc_keys(&n);
    for (size_t i = 0; i < n; i++) {
        double v;
        if (k[i].type == WC_KT_STR)
            continue;
        if (k[i].type == WC_KT_INT) {
            long x;
            memcpy(&x, (const char *)g + k[i].offset, sizeof x);
            v = (double)x;
        } else {
            memcpy(&v, (const char *)g + k[i].offset, sizeof v);
        }
        if (!(v >= k[i].lo && v <= k[i].hi))
            return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                               "value %.15g of '%s' is out of bounds "
                               "[%.15g, %.15g]",
                               v, k[i].name, k[i].lo, k[i].hi);
    }
    return 0;
}

/* A cache of `bytes` in lines of `line` bytes, `assoc` ways: whole lines,
 * whole sets. */
static int check_cache(const wc_gpu *g, const char *bytes_key, long bytes,
                       const char *line_key, long line, const char *assoc_key,
                       long assoc, wc_diag *d)
{
    if (bytes == 0)
        return 0;
    if (bytes % line != 0)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "%s = %ld is not a multiple of %s = %ld",
                           bytes_key, bytes, line_key, line);
    long lines = bytes / line;
    if (lines % assoc != 0)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "%s = %ld holds %ld lines of %s = %ld, not a "
                           "multiple of %s = %ld",
                           bytes_key, bytes, lines, line_key, line, assoc_key,
                           assoc);
    return 0;
}

int ua_core_decode(const wc_gpu *g, ua_core *c, wc_diag *d)
{
    int rc, v;
    memset(c, 0, sizeof *c);
    if ((rc = check_bounds(g, d)) != 0)
        return rc;
    if ((v = pick(g, "issue_policy", g->issue_policy, pol_names, UA_POL_COUNT,
                  d)) < 0)
        return WC_EINPUT;
    c->policy = (ua_policy)v;
    if ((v = pick(g, "assign_policy", g->assign_policy, asg_names,
                  UA_ASSIGN_COUNT, d)) < 0)
        return WC_EINPUT;
    c->assign = (ua_assign)v;
    if ((v = pick(g, "dep_mode", g->dep_mode, dep_names, UA_DEP_COUNT, d)) <
        0)
        return WC_EINPUT;
    c->dep = (ua_dep)v;
    /* array sizes (the key bounds keep inside them) */
    if (g->subcores_per_sm > UA_MAX_SUBCORES || g->rf_banks > UA_MAX_BANKS)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "subcores_per_sm = %ld, rf_banks = %ld: at most "
                           "%d and %d",
                           g->subcores_per_sm, g->rf_banks, UA_MAX_SUBCORES,
                           UA_MAX_BANKS);
    c->nsub = (unsigned)g->subcores_per_sm;
    /* front-end */
    if ((rc = check_cache(g, "icache_l0_bytes", g->icache_l0_bytes,
                          "icache_line_bytes", g->icache_line_bytes,
                          "icache_l0_assoc", g->icache_l0_assoc, d)) != 0 ||
        (rc = check_cache(g, "icache_l1_bytes", g->icache_l1_bytes,
                          "icache_line_bytes", g->icache_line_bytes,
                          "icache_l1_assoc", g->icache_l1_assoc, d)) != 0)
        return rc;
    if (g->inst_bytes > g->icache_line_bytes ||
        g->icache_line_bytes % g->inst_bytes != 0)
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "icache_line_bytes = %ld must be a multiple of "
                           "inst_bytes = %ld",
                           g->icache_line_bytes, g->inst_bytes);
    c->ibuf = (unsigned)g->ibuffer_entries;
    c->inst_bytes = (unsigned)g->inst_bytes;
    c->icache_line = (unsigned)g->icache_line_bytes;
    c->l0i_lines = (unsigned)(g->icache_l0_bytes / g->icache_line_bytes);
    c->l0i_assoc = (unsigned)g->icache_l0_assoc;
    c->l1i_lines = (unsigned)(g->icache_l1_bytes / g->icache_line_bytes);
    c->l1i_assoc = (unsigned)g->icache_l1_assoc;
    c->sb_lines = (unsigned)g->icache_stream_buffer;
    c->l1i_lat = (unsigned)g->icache_l1_latency;
    c->l1i_miss_lat = (unsigned)g->icache_l1_miss_latency;
    c->icache_perfect = (int)g->icache_perfect;
    /* issue */
    c->const_switch = (unsigned)g->const_miss_switch;
    c->mem_oldest = g->mem_issue_oldest != 0;
    c->quirk_above = (unsigned)g->stall_quirk_above;
    c->quirk_cycles = (unsigned)g->stall_quirk_cycles;
    c->exit_yield_stall = (unsigned)g->exit_yield_stall;
    /* register file */
    c->banks = (unsigned)g->rf_banks;
    c->bank_mask = c->banks > 1 && (c->banks & (c->banks - 1)) == 0
                       ? c->banks - 1
                       : 0;
    c->read_ports = (unsigned)g->rf_read_ports;
    c->write_ports = (unsigned)g->rf_write_ports;
    c->read_window = (unsigned)g->rf_read_window;
    c->rfc = (int)g->rfc_enabled;
    c->vq_entries = (unsigned)g->vlat_queue;
    c->sb_consumers = (unsigned)g->sb_max_consumers;
    c->watchdog = (uint64_t)g->watchdog_cycles;
    for (int k = 0; k < WC_LAT_COUNT; k++) {
        c->lat[k] = wc_gpu_lat(g, k);
        c->ii[k] = wc_gpu_ii(g, k);
    }
    c->tensor_k16 = g->lat_tensor_k16;
    c->tensor_int = g->lat_tensor_int;
    c->tensor_fp64 = g->lat_tensor_fp64;
    {
        const long f[8] = {0, g->lat_mufu_ex2, g->lat_mufu_sin,
                           g->lat_mufu_rcp, g->lat_mufu_rsq, g->lat_mufu_lg2,
                           g->lat_mufu_sqrt, g->lat_mufu_tanh};
        for (int k = 0; k < 8; k++)
            c->mufu[k] = f[k] > 0 ? f[k] : c->lat[WC_LAT_sfu];
    }
    c->fp64_shared = (int)g->fp64_shared;
    /* occupancy */
    ua_occ_limits *o = &c->occ;
    o->max_warps = g->max_warps_per_sm;
    o->max_ctas = g->max_ctas_per_sm;
    o->max_threads_per_cta = g->max_threads_per_cta;
    o->warp_unit = g->warp_alloc_unit;
    o->regs_per_sm = g->regs_per_sm;
    o->max_regs_per_thread = g->max_regs_per_thread;
    o->reg_unit = g->reg_alloc_unit;
    o->reg_per_cta = g->reg_alloc_per_cta;
    o->shmem_per_sm = g->shmem_per_sm;
    o->shmem_unit = g->shmem_alloc_unit;
    /* launch */
    c->launch = g->launch_overhead;
    c->cta_dispatch = g->cta_dispatch;
    c->cta_ovh = g->cta_overhead;
    c->cta_warp_ovh = g->cta_warp_overhead;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Occupancy                                                                 */
/* ------------------------------------------------------------------------ */

static long round_up(long v, long u)
{
    return u > 1 ? (v + u - 1) / u * u : v;
}

static long warps_of(unsigned threads)
{
    long w = ((long)threads + WC_WARP_SIZE - 1) / WC_WARP_SIZE;
    return w < 1 ? 1 : w;
}

long ua_cta_warps(const ua_occ_limits *o, unsigned threads_per_cta)
{
    return round_up(warps_of(threads_per_cta), o->warp_unit);
}

long ua_cta_regs(const ua_occ_limits *o, unsigned threads_per_cta,
                 long nregs)
{
    if (nregs <= 0)
        return 0;
    if (o->reg_per_cta)
        return round_up(nregs * (long)threads_per_cta, o->reg_unit);
    return round_up(nregs * WC_WARP_SIZE, o->reg_unit) *
           warps_of(threads_per_cta);
}

long ua_cta_shmem(const ua_occ_limits *o, long shmem)
{
    return shmem > 0 ? round_up(shmem, o->shmem_unit) : 0;
}

unsigned ua_occupancy(const ua_occ_limits *o, unsigned threads_per_cta,
                      long nregs, long shmem, ua_limit *limit)
{
    ua_limit lim = UA_LIM_CTAS;
    long occ = o->max_ctas;
    long warps = ua_cta_warps(o, threads_per_cta);
    if (o->max_warps / warps < occ) {
        occ = o->max_warps / warps;
        lim = UA_LIM_WARPS;
    }
    long regs = ua_cta_regs(o, threads_per_cta, nregs);
    if (regs > 0 && o->regs_per_sm / regs < occ) {
        occ = o->regs_per_sm / regs;
        lim = UA_LIM_REGS;
    }
    long shm = ua_cta_shmem(o, shmem);
    if (shm > 0 && o->shmem_per_sm / shm < occ) {
        occ = o->shmem_per_sm / shm;
        lim = UA_LIM_SHMEM;
    }
    if (limit)
        *limit = lim;
    return occ < 0 ? 0u : (unsigned)occ;
}

int ua_ctas_per_sm(const wc_gpu *g, unsigned threads_per_cta, long nregs,
                   long shmem, const char *where, unsigned *ctas,
                   wc_diag *d)
{
    ua_occ_limits o = {
        .max_warps = g->max_warps_per_sm,
        .max_ctas = g->max_ctas_per_sm,
        .max_threads_per_cta = g->max_threads_per_cta,
        .warp_unit = g->warp_alloc_unit,
        .regs_per_sm = g->regs_per_sm,
        .max_regs_per_thread = g->max_regs_per_thread,
        .reg_unit = g->reg_alloc_unit,
        .reg_per_cta = g->reg_alloc_per_cta,
        .shmem_per_sm = g->shmem_per_sm,
        .shmem_unit = g->shmem_alloc_unit,
    };
    ua_limit lim;
    unsigned n = ua_occupancy(&o, threads_per_cta, nregs, shmem, &lim);
    *ctas = n;
    if (n > 0)
        return 0;
    const char *f = where ? where : "";
    switch (lim) {
    case UA_LIM_WARPS:
        return wc_diag_set(d, WC_EINPUT, f, 0, 0,
                           "kernel cannot run on %s: a CTA of %u threads "
                           "needs %ld warps (warp_alloc_unit = %ld), "
                           "max_warps_per_sm = %ld",
                           g->name, threads_per_cta,
                           ua_cta_warps(&o, threads_per_cta), o.warp_unit,
                           o.max_warps);
    case UA_LIM_REGS:
        return wc_diag_set(d, WC_EINPUT, f, 0, 0,
                           "kernel cannot run on %s: a CTA of %u threads x "
                           "%ld registers needs %ld registers "
                           "(reg_alloc_unit = %ld), regs_per_sm = %ld",
                           g->name, threads_per_cta, nregs,
                           ua_cta_regs(&o, threads_per_cta, nregs),
                           o.reg_unit, o.regs_per_sm);
    case UA_LIM_SHMEM:
        return wc_diag_set(d, WC_EINPUT, f, 0, 0,
                           "kernel cannot run on %s: a CTA needs %ld bytes "
                           "of shared memory (shmem_alloc_unit = %ld), "
                           "shmem_per_sm = %ld",
                           g->name, ua_cta_shmem(&o, shmem), o.shmem_unit,
                           o.shmem_per_sm);
    default:
        return wc_diag_set(d, WC_EINPUT, f, 0, 0,
                           "kernel cannot run on %s: max_ctas_per_sm = %ld",
                           g->name, o.max_ctas);
    }
}

unsigned ua_kernel_threads(const wc_kernel_info *ki)
{
    uint64_t t = (uint64_t)ki->block[0] * ki->block[1] * ki->block[2];
    if (t == 0)
        t = ki->warps_per_cta * WC_WARP_SIZE;
    return t > UINT32_MAX ? UINT32_MAX : (unsigned)t;
}

int ua_kernel_ctas_per_sm(const wc_gpu *g, const wc_kernel_info *ki,
                          unsigned *ctas, wc_diag *d)
{
    return ua_ctas_per_sm(g, ua_kernel_threads(ki), ki->nregs, ki->shmem,
                          ki->path, ctas, d);
}

/* ------------------------------------------------------------------------ */
/* Warp-to-sub-core assignment                                               */
/* ------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

unsigned ua_subcore(ua_assign a, unsigned nsub, uint64_t W, uint64_t seed,
                    uint64_t sm)
{
    unsigned N = nsub ? nsub : 1;
    switch (a) {
    case UA_ASSIGN_SRR:
        return (unsigned)((W + W / N) % N);
    case UA_ASSIGN_SHUFFLE: {
        unsigned perm[UA_MAX_SUBCORES];
        if (N > UA_MAX_SUBCORES)
            N = UA_MAX_SUBCORES;
        for (unsigned i = 0; i < N; i++)
            perm[i] = i;
        uint64_t h = mix64(seed ^ mix64(sm * 0x9e37 + W / N));
        for (unsigned i = N - 1; i > 0; i--) {
            unsigned j = (unsigned)(h % (i + 1));
            h = mix64(h);
            unsigned t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        return perm[W % N];
    }
    default:
        return (unsigned)(W % N);
    }
}
