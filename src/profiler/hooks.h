/* The slow-path enter/leave/tailcall hooks (SetEnterLeaveFunctionHooks3WithInfo),
 * the per-thread call stacks they keep, and the text lines they write
 * (docs/tracer.md, "Output"):
 *
 *    TIME(s)    TID   DURATION  CALL
 *   0.000041   4242     0.8 us    Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5) -> Point {X=1.5, Y=3}
 *
 * Each hook first captures (copies the values its plans name into the
 * thread's buffer), then formats (turns those bytes into text): two separate
 * steps, so that formatting can later move to a writer thread. A call's
 * enter line is held back until the next event on its thread shows whether
 * the call has children: a leaf folds onto one line, a call with children
 * opens `{` and is closed by `} -> value`. */
#ifndef CLRTRACE_HOOKS_H
#define CLRTRACE_HOOKS_H

#include <stdint.h>

#include "corprof_decls.h"

/* Called once from Initialize: time base and object layouts. */
void ct_hooks_init(void);

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_tailcall_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* Exceptions: a frame popped by unwinding gets no leave hook. The runtime
 * reports it with ExceptionUnwindFunctionEnter/Leave; these close the frame
 * as left by an exception. */
void ct_unwind_function_enter(FunctionID id);
void ct_unwind_function_leave(void);

/* At Shutdown: writes out the enter lines still held back (calls that have
 * not returned) and fills the counters of the summary. */
void ct_hooks_flush(unsigned long *threads, unsigned long *dropped);

/* Nanoseconds since the profiler started. */
uint64_t ct_now_ns(void);

/* "0.8 us", "12.3 ms", "1.52 s" into out[0..cap). */
void ct_format_duration(uint64_t ns, char *out, size_t cap);

#endif
