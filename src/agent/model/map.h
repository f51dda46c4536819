/* The profiler's former name of the project's hash table (base/table.h,
 * which replaced model/map.c: one table for the profiler, the views and
 * the CLI). Kept only for the IL engine (engines/il/ilprobe.c) until it
 * includes base/table.h itself; the model and the core use that. */
#ifndef CLRTRACE_MAP_H
#define CLRTRACE_MAP_H

#include "base/table.h"

typedef ct_table ct_map;

static inline void *ct_map_get(const ct_map *m, ct_key key)
{
    return ct_table_get_key(m, key);
}

static inline int ct_map_put(ct_map *m, ct_key key, void *value)
{
    return ct_table_put_key(m, key, value);
}

#endif
