/*
 * common/wc_config.h - GPU configuration: one descriptor table (keys*.def) from which
 * loading, --set, listing and the docs are derived.
 *
 * Part of the common layer's public API; include "wc.h" for all of it.
 * Conventions: functions return 0 on success or a WC_E* code with the
 * wc_diag filled in.  Nothing here prints to stdout or exits.
 */
#ifndef WC_CONFIG_H
#define WC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "wc_base.h"

/* ------------------------------------------------------------------------ */
/* GPU configuration (common/keys.def)                                       */
/* ------------------------------------------------------------------------ */

#define WC_CFG_STR_LEN 64

typedef struct wc_gpu {
#define WC_KEY_I(name, def, lo, hi, unit, help) long name;
#define WC_KEY_R(name, def, lo, hi, unit, help) double name;
#define WC_KEY_S(name, def, unit, help) char name[WC_CFG_STR_LEN];
#include "keys.def"
#undef WC_KEY_I
#undef WC_KEY_R
#undef WC_KEY_S
    char source[1024]; /* file the config was loaded from */
} wc_gpu;

typedef enum { WC_KT_INT, WC_KT_REAL, WC_KT_STR } wc_key_type;

typedef struct wc_key_desc {
    const char *name;
    wc_key_type type;
    size_t offset;    /* in wc_gpu */
    double def, lo, hi;
    const char *sdef; /* default of a string key */
    const char *unit;
    const char *help;
} wc_key_desc;

const wc_key_desc *wc_keys(size_t *n);
const wc_key_desc *wc_key_find(const char *name);
/* The --mode values whose models read a key (bit set), derived from the
 * key's section in keys.def (WC_KEY_GROUP) and config.c's list of keys only
 * the detailed model reads.  A mode outside the set ignores the key. */
enum { WC_MODE_INTERVAL = 1, WC_MODE_DETAILED = 2, WC_MODE_HYBRID = 4 };
#define WC_MODES_ALL (WC_MODE_INTERVAL | WC_MODE_DETAILED | WC_MODE_HYBRID)
unsigned wc_key_modes(const wc_key_desc *k);
/* Accepted values of an enumeration key (NULL-terminated), or NULL when
 * name is not one (issue_policy, assign_policy, dep_mode). */
const char *const *wc_key_enum(const char *name);

/* Fill g with the table defaults. */
void wc_gpu_defaults(wc_gpu *g);
/* Directory holding gpus/, ubench/ ...: $WARPCAST_DATA, else the build's
 * data directory. */
const char *wc_data_dir(void);
/* Load NAME (data/gpus/NAME.cfg) or a path to a .cfg file over defaults. */
int wc_gpu_load(const char *name_or_path, wc_gpu *g, wc_diag *d);
/* Apply "key=value" (the --set what-if knob). */
int wc_gpu_set(wc_gpu *g, const char *assignment, wc_diag *d);
/* Generic numeric access by key name (calibration). */
int wc_gpu_get_num(const wc_gpu *g, const char *key, double *v);
int wc_gpu_set_num(wc_gpu *g, const char *key, double v, wc_diag *d);
/* Convert the physical keys in force (launch_overhead_ns, cta_dispatch_ns,
 * l2_latency_ns, dram_latency_ns, l2_bw_gbs, dram_bw_gbs; > 0) into their
 * cycle keys at clock_mhz.  wc_gpu_load, wc_gpu_parse, wc_gpu_set and
 * wc_gpu_set_num call it; call it after writing fields directly. */
void wc_gpu_resolve_clock(wc_gpu *g);
/* Config name for a trace's "-binary version" (90 -> "h100-pcie"). */
const char *wc_gpu_for_binary(int binary_version);
/* Names of the bundled configs (sorted); returns count, *names malloc'd,
 * free with wc_free_names. */
size_t wc_gpu_list(char ***names);
void wc_free_names(char **names, size_t n);
/* Latency / initiation interval of a latency class in g. */
long wc_gpu_lat(const wc_gpu *g, int latclass);
long wc_gpu_ii(const wc_gpu *g, int latclass);
/* Occupancy (CTAs resident per SM) is the uarch layer's one rule:
 * ua_ctas_per_sm in uarch/ua_core.h. */
/* Parse .cfg text held in memory (tests, fuzzing) over defaults; name is
 * used in diagnostics and includes resolve relative to its directory. */
int wc_gpu_parse(const char *name, const char *text, size_t len, wc_gpu *g,
                 wc_diag *d);
/* The value of key k in g as it would be written in a .cfg ("84", "1.8e3",
 * "ampere"; strings quoted when needed). */
int wc_gpu_value_str(const wc_gpu *g, const wc_key_desc *k, char *buf,
                     size_t n);
/* The key table as a Markdown table (malloc'd, free with free()). */
int wc_keys_markdown(char **out);

#endif /* WC_CONFIG_H */
