/* The enter/leave/tailcall hooks and the exception callbacks: capture only
 * (docs/tracer.md, "Hooks: capture, not formatting").
 *
 * Slow path (SetEnterLeaveFunctionHooks3WithInfo): the enter hook asks the
 * runtime for the argument ranges and copies the bytes each plan names into
 * an ENTER record (include/clrtrace/event.h); the leave hook does the same
 * for the return value. Fast path (--no-args, SetEnterLeaveFunctionHooks3
 * with the stubs of src/asm): ENTER/LEAVE/TAILCALL records without values.
 * Either way the record goes into this thread's buffer (tbuf.h): no
 * formatting, no lock in the common case, no allocation. The writer thread
 * (writer.h) does everything else. */
#ifndef CLRTRACE_HOOKS_H
#define CLRTRACE_HOOKS_H

#include <stdint.h>

#include "corprof_decls.h"

/* At Shutdown, how long to wait for hooks still running on other threads
 * after recording stopped (polled every CT_QUIESCE_POLL_NS). */
#define CT_QUIESCE_WAIT_NS 200000000ull
#define CT_QUIESCE_POLL_NS 1000000L

typedef enum ct_hook_mode {
    CT_HOOKS_SLOW,       /* values, WithInfo hooks */
    CT_HOOKS_SLOW_NULL,  /* WithInfo hooks that return at once (the floor) */
    CT_HOOKS_FAST,       /* fast-path stubs, calls and times */
    CT_HOOKS_FAST_NULL   /* fast-path stubs, empty callbacks */
} ct_hook_mode;

/* Called once from Initialize: object layouts, the buffers' size. naive:
 * the bench-only mode that renders in the hook. */
void ct_hooks_init(ct_hook_mode mode, uint32_t ring_kb, int lossy, int naive);

/* Recording starts (after the writer) and stops (at Shutdown or exit: waits
 * up to CT_QUIESCE_WAIT_NS for hooks in flight). */
void ct_hooks_open(void);
void ct_hooks_close(void);

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_tailcall_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* The floor: WithInfo hooks that do nothing. */
void ct_null_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_null_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_null_tailcall_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* Exceptions: a frame popped by unwinding gets no leave hook. The runtime
 * reports it with ExceptionUnwindFunctionEnter/Leave; these record an UNWIND
 * event for it. */
void ct_unwind_function_enter(FunctionID id);
void ct_unwind_function_leave(void);

#endif
