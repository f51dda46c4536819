/* Thread names: the runtime reports a managed thread's name
 * (ThreadNameChanged) and, separately, which OS thread runs it
 * (ThreadAssignedToOSThread); a name may come first (Thread.Name set before
 * Start). When both are known, a THREAD record (OS thread id, name) goes to
 * the writer, and again whenever the name changes. */
#ifndef CLRTRACE_THREADS_H
#define CLRTRACE_THREADS_H

#include "agent/runtime/corprof_decls.h"

/* Managed threads remembered at once (a thread is forgotten when it is
 * destroyed); a thread past this many is not named. */
#define CT_MAX_THREADS_TRACKED 4096
/* Longest thread name kept, in UTF-8 bytes (longer names are cut at a
 * character boundary). */
#define CT_THREAD_NAME_MAX 256

void ct_threads_assigned(ThreadID id, DWORD os_tid);
void ct_threads_named(ThreadID id, ULONG cch, const WCHAR *name);
void ct_threads_destroyed(ThreadID id);

#endif
