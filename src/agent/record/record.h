/* The recorder as com/ sees it (com/profiler.c, which forwards the
 * runtime's callbacks): its lifecycle, JIT time, the exception callbacks,
 * the trace ids' set-up. Declarations only; the room's state is in
 * internal.h, what the engines call in skeletons.h. */
#ifndef CLRTRACE_RECORD_H
#define CLRTRACE_RECORD_H

#include <stdint.h>

#include "agent/model/mapped.h"
#include "agent/runtime/corprof_decls.h"

typedef enum ct_hook_mode {
    CT_HOOKS_SLOW,       /* values, WithInfo hooks */
    CT_HOOKS_SLOW_NULL,  /* WithInfo hooks that return at once (the floor) */
    CT_HOOKS_FAST,       /* fast-path stubs, calls and times */
    CT_HOOKS_FAST_NULL   /* fast-path stubs, empty callbacks */
} ct_hook_mode;

/* ------------------------------------------------------ trace ids (activity.c) */

/* Learns Thread's class and t_currentThread, and where the runtime's
 * Thread keeps its handle to the managed Thread object (off the hooks: a
 * JIT or ReJIT compilation's callback, a thread's start, an attach
 * session's start); the runtime's GarbageCollectionStarted. */
void ct_activity_learn(void);
void ct_activity_gc(void);
/* How trace ids are read in this trace (com/profiler.c, as it sets the
 * event mask): on (CLRTRACE_IDS), and whether the runtime tells each GC
 * (COR_PRF_HIGH_BASIC_GC: addresses are kept from call to call). */
void ct_activity_setup(int on, int gc_known);

/* The writer's tick (ct_writer_config.tick), on its own thread, which the
 * runtime does not know: what the hooks asked for and no callback came to
 * learn (a thread gets its Thread object after the last JIT compilation),
 * learned from the threads the runtime lists. */
void ct_activity_tick(void);

/* A callback on a managed thread: learns what the hooks asked for and is
 * not known yet (cheap when nothing is wanted). */
void ct_activity_wanted(void);

/* ------------------------------------------------------- the lifecycle */

/* Called from Initialize (or at each attach session's start, hooks
 * closed): object layouts, the buffers' size (new threads' buffers take a
 * changed size). naive: the bench-only mode that renders in the hook (the
 * engines then use their naive entry points). */
void ct_recorder_init(ct_hook_mode mode, uint32_t ring_kb, int lossy, int naive);

/* Recording starts (after the writer) and stops (at Shutdown or exit: waits
 * up to CT_QUIESCE_WAIT_NS for hooks in flight; atomics, clock_gettime and
 * nanosleep only, so a signal handler may call it). */
void ct_recorder_open(void);
void ct_recorder_close(void);
/* Recording stops, without waiting (the writer, when every output failed). */
void ct_recorder_stop(void);

/* Attach (com/attach_control.c): returns that find no open frame on their thread
 * belong to calls entered before the trace began, and are left out. */
void ct_recorder_attached(void);

/* Between two traces of one process (hooks closed): every thread's frames
 * and the classes it named forgotten. */
void ct_recorder_reset_threads(void);

/* Watch f (AppContext.OnUnhandledException): hooked without being traced,
 * its enter hook or probe tells the exception model that the runtime has
 * found an exception unhandled (registry.c). */
void ct_recorder_watch_unhandled(const ct_mapped_fn *f);
/* Says (a note on stderr) how many async calls ended at their return
 * though their task was not complete (the table full, the task's header in
 * use), when any. */
void ct_rec_async_tell(void);


/* Called (once, from the thread that dies) when an unhandled exception is
 * about to end the process: the runtime then aborts with no Shutdown and
 * SIGABRT reset to its default action. The profiler finishes the trace. */
void ct_recorder_on_fatal(void (*fn)(void));

/* JIT compilation on this thread (JITCompilationStarted/Finished, jit.c):
 * its time is held (left out of every event time, as the hooks' own) and
 * counted, per traced function too (ct_writer_jit). */
void ct_jit_started(void);
void ct_jit_finished(FunctionID id);

/* The exception callbacks (unwind.c; profiler.c forwards them): a frame
 * popped by an exception gets no leave hook; these follow the exceptions in
 * flight on the calling thread (ehmodel.h) and record an UNWIND event for
 * each traced frame an exception pops, with the exception's class and
 * message as ct_ex_thrown read them (ct_unwind_plan). */
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

#endif
