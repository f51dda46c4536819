/* Attach: the profiler loaded into a running process (`clrtrace run|record
 * -p PID`), src/format/attach.h has the protocol. attach.c takes the
 * sessions on the control socket; profiler.c starts and ends each trace. */
#ifndef CLRTRACE_ATTACH_PROFILER_H
#define CLRTRACE_ATTACH_PROFILER_H

#include <stddef.h>

#include "agent/runtime/config.h"
#include "agent/runtime/corprof_decls.h"

/* What InitializeForAttach returns on a runtime without ReJIT after attach
 * (ICorProfilerInfo10, .NET Core 3.0): E_NOTIMPL, which the CLI names. */
#define CT_E_RUNTIME_TOO_OLD ((HRESULT)0x80004001)

/* InitializeForAttach (attach.c): checks the client data, opens the control
 * socket, starts its thread. */
HRESULT ct_attach_initialize(IUnknown *unk, const void *data, UINT cb);

/* ModuleLoadFinished while attached: during a session, the module's
 * methods that the filter chooses are rewritten too (by the control
 * thread, soon after). */
void ct_attach_module_loaded(ModuleID mod);

/* profiler.c: the Info and the dormant event mask (ReJIT enabled). */
HRESULT ct_profiler_attach(IUnknown *unk);

/* profiler.c: one trace with settings cfg to the outputs given (-1: none),
 * bin_dir the binary trace's folder for --max-size's segments (-1: none).
 * The descriptors stay the caller's (the writer keeps copies of what it
 * needs): 0, or -1 with one line in why. */
int ct_profiler_session_start(const ct_config *cfg, int text_fd, int bin_fd, int bin_dir,
                              char *why, size_t cap);
/* The methods rewritten in this session (the END record's count). */
void ct_profiler_session_methods(unsigned long n);
/* The trace finished, and everything ready for the next session. */
void ct_profiler_session_stop(void);

#endif
