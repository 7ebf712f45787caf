/*
 * common/wc.h - the public API of the common layer, split by layer as
 * SQLite and zstd do: wc_base.h (diagnostics, utilities), wc_inst.h (the
 * instruction record and opcode table), wc_config.h (GPU configuration),
 * wc_trace.h (readers).  Include this one for all of them.
 *
 * Owns: diagnostics, the instruction record every model consumes, the opcode
 * table, GPU configuration (one descriptor table for every key), and the
 * readers of Accel-Sim traces, cuobjdump SASS listings and hand-written SASS
 * microbenchmarks.
 *
 * Conventions: functions return 0 on success or a WC_E* code with the
 * wc_diag filled in.  Nothing here prints to stdout or exits.
 */
#ifndef WC_H
#define WC_H

#include <stddef.h>
#include <stdint.h>

#include "wc_base.h"
#include "wc_inst.h"
#include "wc_config.h"
#include "wc_trace.h"

#endif /* WC_H */
