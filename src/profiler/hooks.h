/* The slow-path enter/leave/tailcall hooks (SetEnterLeaveFunctionHooks3WithInfo)
 * and the per-thread call depth they keep.
 *
 * For now each event becomes one text line:
 *
 *     <tid> <depth> <indent>> <signature or name>  [args <n>: <len> <len> ...]
 *     <tid> <depth> <indent>< <name>  [ret <len>]
 *
 * The argument and return-value ranges come from GetFunctionEnter3Info /
 * GetFunctionLeave3Info; only their lengths are shown yet. */
#ifndef CLRTRACE_HOOKS_H
#define CLRTRACE_HOOKS_H

#include "corprof_decls.h"

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_tailcall_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* Exceptions: a frame popped by unwinding gets no leave hook. The runtime
 * reports it with ExceptionUnwindFunctionEnter/Leave; these keep the depth
 * right and log the frame as left by an exception. */
void ct_unwind_function_enter(FunctionID id);
void ct_unwind_function_leave(void);

#endif
