/*
 * detailed/params.c - reads the detailed model's parameters out of a wc_gpu
 * once per run through uarch's ua_core_decode (policies, front-end, register
 * file, latencies; checked there), the latency / initiation interval of one
 * instruction, option defaults and the names of the stall reasons.  No
 * timing number is written here: every value comes from data/gpus/ through
 * common/keys*.def.
 */
#include <math.h>
#include <string.h>

#include "dm_int.h"

const char *dm_stall_name(int reason)
{
    static const char *const names[] = {
#define X(e, s) s,
        DM_STALLS(X)
#undef X
    };
    if (reason < 0 || reason >= DM_STALL_COUNT)
        return "?";
    return names[reason];
}

void dm_options_default(dm_options *o)
{
    memset(o, 0, sizeof *o);
}

/* The longest wait the configuration makes legitimate without any
 * progress in between: every key in cycles (latencies, initiation
 * intervals, miss penalties; they can chain: a constant-cache miss behind
 * an icache miss) plus one warp request of l2 lines through the L2 and DRAM
 * bandwidth servers.  The watchdog fires only after watchdog_cycles beyond
 * it, so a legal config (ii_int = 100000, cc_l0_miss_latency = 37089) is
 * never a false alarm (fuzz_models, issue 12) and a real deadlock still is. */
static uint64_t longest_stall(const wc_gpu *g)
{
    size_t nk;
    const wc_key_desc *k = wc_keys(&nk);
    double s = 0;
    for (size_t i = 0; i < nk; i++) {
        double v;
        if (strcmp(k[i].unit, "cycles") != 0 ||
            strcmp(k[i].name, "watchdog_cycles") == 0 ||
            wc_gpu_get_num(g, k[i].name, &v) != 0 || !(v > 0))
            continue;
        s += v;
    }
    double bytes = 32.0 * (double)g->l2_line_bytes;
    if (g->l2_bw > 0)
        s += bytes / g->l2_bw;
    if (g->dram_bw > 0)
        s += bytes / g->dram_bw;
    return s < 1e15 ? (uint64_t)s + 1 : (uint64_t)1e15;
}

/* A fixed-latency write-back is booked in the DM_CAL-cycle ring: every
 * latency class's key (lat_*, but lat_mem) and these of the MUFU functions
 * and the tensor variants stay at most DM_FIXED_LAT_MAX (dm_params_load
 * rejects more; dm_key_limit tells calibration). */
#define DM_FIXED_LAT_MAX (DM_CAL - 9)
static const char *const fixed_keys[] = {
    "lat_mufu_ex2",  "lat_mufu_sin",   "lat_mufu_rcp",   "lat_mufu_rsq",
    "lat_mufu_lg2",  "lat_mufu_sqrt",  "lat_mufu_tanh",  "lat_tensor_k16",
    "lat_tensor_int", "lat_tensor_fp64"};

int dm_params_load(const wc_gpu *g, dm_params *p, wc_diag *d)
{
    ua_core c;
    int rc = ua_core_decode(g, &c, d);
    if (rc == 0)
        rc = ua_mem_check(g, d);
    if (rc)
        return rc;
    memset(p, 0, sizeof *p);
    /* the ring holds the instruction buffer and the pipeline front */
    if (c.ibuf > dm_key_limit("ibuffer_entries"))
        return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                           "ibuffer_entries = %u: the detailed model holds "
                           "at most %d",
                           c.ibuf, DM_RING - DM_RING_FRONT);
    for (int k = 0; k < WC_LAT_COUNT; k++)
        if (c.lat[k] > DM_FIXED_LAT_MAX && k != WC_LAT_mem)
            return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                               "lat_%s = %ld: the detailed model needs < %d",
                               wc_latclass_name(k), c.lat[k],
                               DM_FIXED_LAT_MAX + 1);
    /* the keys of the MUFU functions' latencies (c.mufu[1..7], ua_core.c's
     * order; 0 there takes lat_sfu, checked above) and of the tensor
     * variants' (0: lat_tensor), in fixed_keys' order */
    const long fixed[] = {c.mufu[1], c.mufu[2],      c.mufu[3],
                          c.mufu[4], c.mufu[5],      c.mufu[6],
                          c.mufu[7], c.tensor_k16,   c.tensor_int,
                          c.tensor_fp64};
    _Static_assert(sizeof fixed / sizeof fixed[0] ==
                       sizeof fixed_keys / sizeof fixed_keys[0],
                   "a value for each of fixed_keys");
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (fixed[k] > DM_FIXED_LAT_MAX)
            return wc_diag_set(d, WC_EINPUT, g->source, 0, 0,
                               "%s = %ld: the detailed model needs < %d",
                               fixed_keys[k], fixed[k], DM_FIXED_LAT_MAX + 1);
    p->core = c;
    p->policy = (int)c.policy;
    p->assign = (int)c.assign;
    p->dep = (int)c.dep;
    p->nsub = c.nsub;
    p->ibuf = c.ibuf;
    p->banks = c.banks;
    p->read_ports = c.read_ports;
    p->write_ports = c.write_ports;
    p->read_window = c.read_window;
    p->rfc = c.rfc;
    p->icache_line = c.icache_line;
    p->icache_shift = (c.icache_line & (c.icache_line - 1)) == 0
                          ? (unsigned)__builtin_ctz(c.icache_line)
                          : 0; /* as ua_mem_cache.c's line_shift */
    p->inst_bytes = c.inst_bytes;
    p->l0i_lines = c.l0i_lines;
    p->l0i_assoc = c.l0i_assoc;
    p->l1i_lines = c.l1i_lines;
    p->l1i_assoc = c.l1i_assoc;
    p->sb_lines = c.sb_lines;
    p->l1i_lat = c.l1i_lat;
    p->l1i_miss_lat = c.l1i_miss_lat;
    p->icache_perfect = c.icache_perfect;
    p->const_switch = c.const_switch;
    p->mem_oldest = c.mem_oldest;
    p->quirk_above = c.quirk_above;
    p->quirk_cycles = c.quirk_cycles;
    p->exit_yield_stall = c.exit_yield_stall;
    p->vq_entries = c.vq_entries;
    p->sb_consumers = c.sb_consumers;
    p->watchdog = c.watchdog + longest_stall(g);
    memcpy(p->lat, c.lat, sizeof p->lat);
    memcpy(p->ii, c.ii, sizeof p->ii);
    p->fp64_shared = c.fp64_shared;
    p->max_warps = c.occ.max_warps;
    p->max_ctas = c.occ.max_ctas;
    p->cta_dispatch = c.cta_dispatch;
    p->cta_ovh = c.cta_ovh;
    p->cta_warp_ovh = c.cta_warp_ovh;
    return 0;
}

/* Latency of in (class lc): tensor instructions by type and shape
 * (seed 000 section 6), everything else by its class. */
long dm_inst_lat(const dm_params *p, const wc_inst *in, unsigned lc)
{
    return ua_inst_lat(&p->core, in, (int)lc);
}

long dm_inst_ii(const dm_params *p, const wc_inst *in, unsigned lc)
{
    (void)in;
    return p->ii[lc];
}

double dm_key_limit(const char *key)
{
    if (!key)
        return HUGE_VAL;
    if (!strcmp(key, "ibuffer_entries"))
        return DM_RING - DM_RING_FRONT;
    for (size_t i = 0; i < sizeof fixed_keys / sizeof fixed_keys[0]; i++)
        if (!strcmp(key, fixed_keys[i]))
            return DM_FIXED_LAT_MAX;
    if (!strncmp(key, "lat_", 4))
        for (int k = 0; k < WC_LAT_COUNT; k++)
            if (k != WC_LAT_mem && !strcmp(key + 4, wc_latclass_name(k)))
                return DM_FIXED_LAT_MAX;
    return HUGE_VAL;
}
