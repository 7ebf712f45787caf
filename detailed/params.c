/*
 * detailed/params.c - reads the detailed model's parameters out of a wc_gpu
 * once per run (policies, front-end, register file, latencies), the
 * latency / initiation interval of one instruction, option defaults and the
 * names of the stall reasons.  No timing number is written here: every
 * value comes from data/gpus/ through common/keys*.def.
 */
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

static int pick(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static unsigned lines_of(long bytes, long line)
{
    return line > 0 ? (unsigned)(bytes / line) : 0;
}

int dm_params_load(const wc_gpu *g, dm_params *p, wc_diag *d)
{
    static const char *const pol[] = {"cggty", "gto", "lrr", "rba"};
    static const char *const asg[] = {"rr", "srr", "shuffle"};
    static const char *const dep[] = {"auto", "ctrl", "scoreboard"};
    memset(p, 0, sizeof *p);
    p->policy = pick(g->issue_policy, pol, 4);
    if (p->policy < 0)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "issue_policy '%s': expected cggty, gto, lrr or rba",
                           g->issue_policy);
    p->assign = pick(g->assign_policy, asg, 3);
    if (p->assign < 0)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "assign_policy '%s': expected rr, srr or shuffle",
                           g->assign_policy);
    p->dep = pick(g->dep_mode, dep, 3);
    if (p->dep < 0)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "dep_mode '%s': expected auto, ctrl or scoreboard",
                           g->dep_mode);
    if (g->subcores_per_sm > DM_MAX_SUBCORES || g->rf_banks > DM_MAX_BANKS)
        return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                           "subcores_per_sm <= %d and rf_banks <= %d",
                           DM_MAX_SUBCORES, DM_MAX_BANKS);
    p->nsub = (unsigned)g->subcores_per_sm;
    p->ibuf = (unsigned)g->ibuffer_entries;
    if (p->ibuf + 3 > DM_RING)
        p->ibuf = DM_RING - 3;
    p->banks = (unsigned)g->rf_banks;
    p->read_ports = (unsigned)g->rf_read_ports;
    p->write_ports = (unsigned)g->rf_write_ports;
    p->read_window = (unsigned)g->rf_read_window;
    p->rfc = (int)g->rfc_enabled;
    p->icache_line = (unsigned)g->icache_line_bytes;
    p->inst_bytes = (unsigned)g->inst_bytes;
    p->l0i_lines = lines_of(g->icache_l0_bytes, g->icache_line_bytes);
    p->l0i_assoc = (unsigned)g->icache_l0_assoc;
    p->l1i_lines = lines_of(g->icache_l1_bytes, g->icache_line_bytes);
    p->l1i_assoc = (unsigned)g->icache_l1_assoc;
    p->sb_lines = (unsigned)g->icache_stream_buffer;
    p->l1i_lat = (unsigned)g->icache_l1_latency;
    p->l1i_miss_lat = (unsigned)g->icache_l1_miss_latency;
    p->icache_perfect = (int)g->icache_perfect;
    p->const_switch = (unsigned)g->const_miss_switch;
    p->quirk_above = (unsigned)g->stall_quirk_above;
    p->quirk_cycles = (unsigned)g->stall_quirk_cycles;
    p->exit_yield_stall = (unsigned)g->exit_yield_stall;
    p->vq_entries = (unsigned)g->vlat_queue;
    p->sb_consumers = (unsigned)g->sb_max_consumers;
    p->watchdog = (uint64_t)g->watchdog_cycles;
    for (int c = 0; c < WC_LAT_COUNT; c++) {
        p->lat[c] = wc_gpu_lat(g, c);
        p->ii[c] = wc_gpu_ii(g, c);
        if (p->lat[c] >= DM_CAL - 8 && c != WC_LAT_mem)
            return wc_diag_set(d, WC_EUSAGE, "", 0, 0,
                               "lat_%s = %ld: the detailed model needs < %d",
                               wc_latclass_name(c), p->lat[c], DM_CAL - 8);
    }
    p->tensor_k16 = g->lat_tensor_k16;
    p->tensor_int = g->lat_tensor_int;
    p->tensor_fp64 = g->lat_tensor_fp64;
    p->fp64_shared = (int)g->fp64_shared;
    p->max_warps = g->max_warps_per_sm;
    p->max_ctas = g->max_ctas_per_sm;
    p->regs_per_sm = g->regs_per_sm;
    p->reg_unit = g->reg_alloc_unit;
    p->reg_per_cta = g->reg_alloc_per_cta;
    p->shmem_per_sm = g->shmem_per_sm;
    p->shmem_unit = g->shmem_alloc_unit;
    p->warp_unit = g->warp_alloc_unit;
    p->cta_dispatch = g->cta_dispatch;
    p->cta_ovh = g->cta_overhead;
    p->cta_warp_ovh = g->cta_warp_overhead;
    return 0;
}

/* Latency of in (class lc): tensor instructions by type and shape
 * (seed 000 section 6), everything else by its class. */
long dm_inst_lat(const dm_params *p, const wc_inst *in, unsigned lc)
{
    if (lc == WC_LAT_tensor) {
        const char *op = in->opcode;
        long v = 0;
        if (strncmp(op, "DMMA", 4) == 0)
            v = p->tensor_fp64;
        else if (strncmp(op, "IMMA", 4) == 0 || strncmp(op, "BMMA", 4) == 0)
            v = p->tensor_int;
        else if (strstr(op, ".16816") != NULL)
            v = p->tensor_k16;
        if (v > 0)
            return v;
    }
    return p->lat[lc];
}

long dm_inst_ii(const dm_params *p, const wc_inst *in, unsigned lc)
{
    (void)in;
    return p->ii[lc];
}
