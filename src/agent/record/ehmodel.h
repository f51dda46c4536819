/* The exceptions in flight on one thread, rebuilt from the runtime's
 * exception callbacks, so that the hooks know which traced frames an
 * exception pops (docs/tracer.md, "Exceptions").
 *
 * A frame popped by an exception gets no leave hook. The runtime reports it
 * instead in the second pass of its dispatch: ExceptionUnwindFunctionEnter(F)
 * for each frame it passes, and ExceptionUnwindFunctionLeave when it moves on
 * to the next frame. That Leave carries no FunctionID, and the runtime keeps
 * one "function to report the leave of" per exception in flight (ExInfo's
 * m_pMDToReportFunctionLeave; exceptionhandling.cpp, NotifyFunctionEnter),
 * so the callbacks of nested exceptions interleave:
 *
 * - the frame that catches gets an UnwindFunctionEnter and no Leave
 *   (ExceptionCatcherEnter follows), and so does the last frame before a
 *   native boundary (a filter funclet whose exception is swallowed,
 *   CallDescrWorker, a reverse P/Invoke);
 * - a first pass that found no catcher leaves its last SearchFunctionEnter
 *   without a SearchFunctionLeave, and the second pass reports that leave as
 *   an UnwindFunctionLeave before its first UnwindFunctionEnter;
 * - an exception thrown in a finally, filter or catch block while another is
 *   dispatched has callbacks of its own in between, and may supersede the
 *   first (a "collided unwind": the first exception then gets no more
 *   callbacks at all);
 * - an exception that leaves managed code for a native frame that catches it
 *   (a filter, the runtime calling a static constructor) just ends: no
 *   callback says so.
 *
 * This model keeps a stack of the exceptions in flight (at most CT_EH_NESTING)
 * with, for each, the frame of its pending UnwindFunctionEnter and the
 * handlers it is running. Frames are placed by the thread's shadow stack:
 * `depth` is the number of traced frames open; a traced function's frame is
 * the one at index depth - 1, an untraced function's frame lies above it.
 * Each entry point returns the depth the caller must unwind the shadow stack
 * to (closing every frame above it as left by an exception), or CT_EH_NONE.
 *
 * Pure bookkeeping: no runtime calls, no allocation; unit-tested with the
 * callback sequences .NET 10 sends (tests/unit/test_ehmodel.c). */
#ifndef CLRTRACE_EHMODEL_H
#define CLRTRACE_EHMODEL_H

#include <stdint.h>

/* Exceptions followed at once on one thread (one thrown in a finally block of
 * another, and so on). A deeper one pushes out the oldest, which is then no
 * longer followed. */
#define CT_EH_NESTING 16
/* "No frame to close" (and "no filter running"). */
#define CT_EH_NONE UINT32_MAX

typedef struct ct_eh_ctx {
    uint64_t fid;           /* FunctionID of the pending UnwindFunctionEnter */
    uint64_t last_searched; /* FunctionID of the last SearchFunctionEnter */
    uint32_t depth;         /* shadow depth that places fid's frame (above) */
    uint32_t filter_depth;  /* shadow depth when the running filter started */
    uint32_t searched;      /* frames the first pass reported */
    uint32_t unwound;       /* frames the second pass reported */
    uint8_t pass;           /* 1: searching for a handler, 2: unwinding */
    uint8_t pending;        /* an UnwindFunctionEnter awaits its Leave */
    uint8_t traced;         /* ... for a traced function */
    uint8_t caught;         /* the first pass found a catcher */
    uint8_t in_finally;     /* running a finally (or fault) block */
    uint8_t in_catch;       /* running its catch block */
    uint8_t fatal;          /* unhandled: the process ends after the second pass */
    uint32_t serial;        /* which exception this is (ct_eh_serial) */
} ct_eh_ctx;

typedef struct ct_eh_state {
    uint32_t n;             /* exceptions in flight; ctx[n - 1] is the newest */
    uint32_t lost;          /* pushed out past CT_EH_NESTING (never reset) */
    uint32_t serials;       /* the last serial given */
    ct_eh_ctx ctx[CT_EH_NESTING];
} ct_eh_state;

/* Forgets every exception. (A zeroed state, such as a new thread's, is
 * reset already.) */
void ct_eh_reset(ct_eh_state *s);

/* ExceptionThrown. Exceptions that can no longer have a nested one (not
 * running a filter, finally or catch block) are over: they are dropped
 * first. */
void ct_eh_thrown(ct_eh_state *s);

/* The newest exception's serial, or 0 when none is in flight: each exception
 * ct_eh_thrown starts gets the next one (never 0), which says, for the
 * frames an exception unwinds, which thrown object it is. */
uint32_t ct_eh_serial(const ct_eh_state *s);

/* ExceptionSearchFunctionEnter / Leave, ExceptionSearchCatcherFound. */
void ct_eh_search_enter(ct_eh_state *s, uint64_t fid);
void ct_eh_search_leave(ct_eh_state *s);
void ct_eh_catcher_found(ct_eh_state *s);

/* ExceptionSearchFilterEnter (depth: the shadow depth now) and Leave. The
 * leave ends every exception thrown inside the filter (the runtime swallows
 * them) and returns the depth the filter started at: frames a swallowed
 * exception left open above it are closed. */
void ct_eh_filter_enter(ct_eh_state *s, uint32_t depth);
uint32_t ct_eh_filter_leave(ct_eh_state *s);

/* ExceptionUnwindFunctionEnter(fid): traced says whether the function is
 * traced, depth places its frame (for a traced function, the depth with its
 * frame on top). Older exceptions whose frame this one unwinds past are
 * superseded. Returns 1 when this is the last frame of an unhandled
 * exception (ct_eh_unhandled): the runtime ends the process once that
 * frame's finally blocks have run. */
int ct_eh_unwind_enter(ct_eh_state *s, uint64_t fid, int traced, uint32_t depth);

/* ExceptionUnwindFunctionLeave: the depth to unwind to (the pending frame
 * and any frame above it), or CT_EH_NONE for a Leave that closes nothing
 * (the first pass's missing SearchFunctionLeave, a Leave of no known
 * exception). *fid gets the function whose frame ends. */
uint32_t ct_eh_unwind_leave(ct_eh_state *s, uint64_t *fid);

/* ExceptionUnwindFinallyEnter / Leave. The enter returns the depth of the
 * frame whose finally block runs: frames above it are gone. */
uint32_t ct_eh_finally_enter(ct_eh_state *s);
void ct_eh_finally_leave(ct_eh_state *s);

/* ExceptionCatcherEnter(fid): the depth of the catching frame (frames above
 * it are gone), or CT_EH_NONE when the catcher is not the pending frame.
 * ExceptionCatcherLeave: the exception is over, and so are older ones whose
 * frames lie above the catcher. */
uint32_t ct_eh_catcher_enter(ct_eh_state *s, uint64_t fid);
void ct_eh_catcher_leave(ct_eh_state *s);

/* The runtime's unhandled-exception path started on this thread
 * (AppContext.OnUnhandledException entered during the first pass of the
 * newest exception, which found no catcher): marks it fatal. Returns 1 when
 * it did. */
int ct_eh_unhandled(ct_eh_state *s);

#endif
