/*
 * uarch/ua.h - the public API of the uarch layer: what an instruction does on
 * a given GPU, without time.
 *
 * Sits between common/ (records, config, readers) and the two models.  Both
 * the interval model (model/) and the detailed model (detailed/), and the
 * sampler, ask this layer the hardware facts -- typed parameters decoded once
 * from the config, occupancy, sub-core assignment, scheduling-policy names,
 * memory-op classes, coalescing, shared-memory wavefronts, the sectored caches
 * and their policies, register banks -- so the models differ only in how they
 * compose time.
 *
 * Conventions as in common/wc.h: functions return 0 or a WC_E* code with the
 * wc_diag filled in; nothing here prints or exits.
 */
#ifndef UA_H
#define UA_H

#include "wc.h"

/* Core: typed parameters, occupancy, sub-core assignment, policy names,
 * register banks and the register file cache. */
#include "ua_core.h"

/* Memory: classification, coalescing, shared-memory wavefronts, caches. */
#include "ua_mem.h"

#endif /* UA_H */
