/* The ELT engine: the runtime's enter/leave hooks (docs/tracer.md, "Hooks:
 * capture, not formatting").
 *
 * Slow path (SetEnterLeaveFunctionHooks3WithInfo): the enter hook asks the
 * runtime for the argument ranges (or reads them where argmap.h learned
 * they are) and hands them to the recorder, which copies the bytes each
 * plan names into an ENTER record; the leave hook does the same for the
 * return value. Fast path (--no-args, SetEnterLeaveFunctionHooks3 with the
 * stubs of src/agent/engines/elt/asm): ENTER/LEAVE/TAILCALL records without
 * values. What is recorded, and how, is the recorder's
 * (src/agent/record/record.h, which this header brings: its lifecycle, the
 * exception and JIT callbacks). */
#ifndef CLRTRACE_HOOKS_H
#define CLRTRACE_HOOKS_H

#include <stdint.h>

#include "agent/record/skeletons.h"
#include "agent/runtime/corprof_decls.h"

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
/* The same for the bench-only naive mode (CLRTRACE_BENCH_NAIVE=1): each
 * record rendered and written in the hook (ct_writer_naive_event). */
void ct_enter_hook_naive(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_leave_hook_naive(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* The floor: WithInfo hooks that do nothing. */
void ct_null_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_null_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* The fast path's recording of a call's enter, leave and tail call, keyed
 * by the function's record (its client id): called by the fast-path stubs
 * (src/agent/engines/elt/asm/elt_stubs.h). */
void ct_fast_enter(uintptr_t client_id);
void ct_fast_leave(uintptr_t client_id);
void ct_fast_tailcall(uintptr_t client_id);

#endif
