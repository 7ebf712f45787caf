/*
 * uarch/ua_mem.h - part of uarch/ua.h (include that): memory-op classes,
 * coalescing into sectors, shared-memory wavefronts and bank conflicts, the
 * sectored cache with its indexing and write policies.
 */
#ifndef UA_MEM_H
#define UA_MEM_H

#include "wc.h"

#endif /* UA_MEM_H */
