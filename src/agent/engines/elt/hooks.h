/* The enter/leave/tailcall hooks and the exception callbacks: capture only
 * (docs/tracer.md, "Hooks: capture, not formatting").
 *
 * Slow path (SetEnterLeaveFunctionHooks3WithInfo): the enter hook asks the
 * runtime for the argument ranges and copies the bytes each plan names into
 * an ENTER record (src/format/event.h); the leave hook does the same
 * for the return value. Fast path (--no-args, SetEnterLeaveFunctionHooks3
 * with the stubs of src/agent/engines/elt/asm): ENTER/LEAVE/TAILCALL records without values.
 * Either way the record goes into this thread's buffer (tbuf.h): no
 * formatting, no lock in the common case, no allocation. The writer thread
 * (writer.h) does everything else. */
#ifndef CLRTRACE_HOOKS_H
#define CLRTRACE_HOOKS_H

#include <stdint.h>

#include "agent/runtime/corprof_decls.h"

/* Each thread's engine state (hooks.c, in its buffer's engine area):
 * open frames are remembered up to CT_DROP_TRACK_FRAMES deep (whether
 * their enter event was dropped, so their leave is dropped too and the call
 * tree stays whole; their function, so the frames an exception leaves close
 * with theirs; their caller's SP, for tail calls); a byref target is copied
 * through a checked read of at most CT_BOUNCE_BYTES; CT_CLASS_CACHE entries
 * (a power of two) cache object classes (method table -> ClassID). */
#define CT_DROP_TRACK_FRAMES 4096
#define CT_BOUNCE_BYTES 4096
#define CT_CLASS_CACHE 64
/* Out, ref and in arguments whose target (in the thread's stack) is read
 * again at return, remembered per thread from enter to leave: at most this
 * many at once (more read "not read again" at return). */
#define CT_OUT_TRACK 128
/* The exceptions thrown on a thread whose type and message are kept for the
 * UNWIND events of the frames they leave: the latest CT_EXC_SLOTS (nested
 * deeper, the older ones' frames close without them), each message cut at
 * the -s limit or CT_EXC_MESSAGE_CHARS, whichever is smaller. */
#define CT_EXC_SLOTS 4
#define CT_EXC_MESSAGE_CHARS 1024

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

/* Called from Initialize (or at each attach session's start, hooks
 * closed): object layouts, the buffers' size (new threads' buffers take a
 * changed size). naive: the bench-only mode that renders in the hook. */
void ct_hooks_init(ct_hook_mode mode, uint32_t ring_kb, int lossy, int naive);

/* Recording starts (after the writer) and stops (at Shutdown or exit: waits
 * up to CT_QUIESCE_WAIT_NS for hooks in flight; atomics, clock_gettime and
 * nanosleep only, so a signal handler may call it). */
void ct_hooks_open(void);
void ct_hooks_close(void);
/* Recording stops, without waiting (the writer, when every output failed). */
void ct_hooks_stop(void);

/* Attach (com/attach.c): returns that find no open frame on their thread
 * belong to calls entered before the trace began, and are left out. */
void ct_hooks_attached(void);

/* Between two traces of one process (hooks closed): every thread's frames
 * and the classes it named forgotten. */
void ct_hooks_reset_threads(void);

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* The fast path's recording of a call's enter, leave and tail call, keyed
 * by the function's record (its client id): called by the fast-path stubs
 * (src/agent/engines/elt/asm) and by the IL-probe engine's probes (src/agent/engines/il). */
void ct_fast_enter(uintptr_t client_id);
void ct_fast_leave(uintptr_t client_id);
void ct_fast_tailcall(uintptr_t client_id);

/* The IL engine's probes with values (src/agent/engines/il): at a method's
 * entry, ct_probe_arg with each argument's address (`this` first; a state
 * machine's MoveNext: `this` only), then ct_probe_enter, which reads them
 * with the function's plans; before each ret ct_probe_return with the
 * address of the return value's home (or ct_probe_leave: void, or no
 * return value); ct_probe_tailcall before a tail call. Both leave probes
 * read the out arguments again. At most CT_PROBE_MAX_ARGS addresses are
 * kept: a method with more is recorded without values. */
#define CT_PROBE_MAX_ARGS 64
void ct_probe_arg(uintptr_t addr);
/* Generic code's entry hands over, before its arguments, the type handles
 * that name the instantiation running (registry.h, ct_registry_instance). */
void ct_probe_targ(uintptr_t handle);
void ct_probe_enter(uintptr_t client_id);
void ct_probe_leave(uintptr_t client_id);
void ct_probe_return(uintptr_t ret_addr, uintptr_t client_id);
void ct_probe_tailcall(uintptr_t client_id);

/* The floor: WithInfo hooks that do nothing. */
void ct_null_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);
void ct_null_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt);

/* The exception callbacks (profiler.c forwards them): a frame popped by an
 * exception gets no leave hook; these follow the exceptions in flight on the
 * calling thread (ehmodel.h) and record an UNWIND event for each traced
 * frame an exception pops, with the exception's class and message as
 * ct_ex_thrown read them (ct_unwind_plan). */
/* JIT compilation on this thread (JITCompilationStarted/Finished): its
 * time is held (left out of every event time, as the hooks' own) and
 * counted, per traced function too (ct_writer_jit). */
void ct_jit_started(void);
void ct_jit_finished(FunctionID id);

void ct_ex_thrown(ObjectID thrown);
void ct_ex_search_enter(FunctionID id);
void ct_ex_search_leave(void);
void ct_ex_catcher_found(void);
void ct_ex_filter_enter(void);
void ct_ex_filter_leave(void);
void ct_ex_unwind_function_enter(FunctionID id);
void ct_ex_unwind_function_leave(void);
void ct_ex_finally_enter(void);
void ct_ex_finally_leave(void);
void ct_ex_catcher_enter(FunctionID id);
void ct_ex_catcher_leave(void);

/* Called (once, from the thread that dies) when an unhandled exception is
 * about to end the process: the runtime then aborts with no Shutdown and
 * SIGABRT reset to its default action. The profiler finishes the trace. */
void ct_hooks_on_fatal(void (*fn)(void));

/* Watch f (AppContext.OnUnhandledException): hooked without being traced,
 * its enter hook tells the exception model that the runtime has found an
 * exception unhandled (registry.c). */
struct ct_mapped_fn;
void ct_hooks_watch_unhandled(const struct ct_mapped_fn *f);

#endif
