/* Process-wide profiler state, set up once in Initialize. */
#ifndef CLRTRACE_STATE_H
#define CLRTRACE_STATE_H

#include "config.h"
#include "corprof_decls.h"

typedef struct ct_state {
    ICorProfilerInfo *info; /* the newest ICorProfilerInfo the runtime gave us */
    int info_version;       /* 3..15: which interface info really is */
    int runtime_major;      /* the runtime's major version (8 for .NET 8); 0: not known */
    ct_config cfg;
    int attached;           /* loaded by InitializeForAttach: classes loaded before it are unknown */
} ct_state;

extern ct_state g_ct;

#endif
