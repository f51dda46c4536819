/* The recorder's room inside (docs/architecture.md, "agent/record"): each
 * thread's recorder state, the shadow stack of its open frames, the event
 * records being built and published into the thread's ring (tbuf.h), the
 * values, conditions, exceptions and async calls the room's files share.
 * The room's own files include this header; the engines see it through
 * skeletons.h, whose inline skeletons read it. com/ includes record.h alone.
 *
 * Every inline function here reads or writes the thread's state and calls
 * nothing of the room's files: those that call into them are in skeletons.h,
 * above them all (no file of the room includes skeletons.h). */
#ifndef CLRTRACE_RECORD_INTERNAL_H
#define CLRTRACE_RECORD_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "capture.h"
#include "record.h"
#include "agent/hookside/clock.h"
#include "agent/hookside/tbuf.h"
#include "agent/model/modules.h"
#include "agent/model/plans/plans.h"
#include "agent/model/registry.h"
#include "agent/runtime/corprof_decls.h"
#include "agent/runtime/state.h"
#include "format/event.h"
#include "format/value.h"

#define CT_REC_HIDDEN __attribute__((visibility("hidden")))
#define CT_REC_INLINE static inline __attribute__((always_inline))

/* Each thread's recorder state (ct_rec_thread, in its buffer's engine
 * area): open frames are remembered up to CT_DROP_TRACK_FRAMES deep
 * (whether their enter event was dropped, so their leave is dropped too and
 * the call tree stays whole; their function, so the frames an exception
 * leaves close with theirs; their caller's SP, for tail calls); a byref
 * target is copied through a checked read of at most CT_BOUNCE_BYTES;
 * CT_CLASS_CACHE entries (a power of two) cache object classes (method
 * table -> ClassID), two ways a set: a large program's values name
 * thousands of classes, and each miss costs runtime queries here and, the
 * record being marked, a walk of its values by the writer (64 entries
 * missed on about one object in eight of the C# compiler's values). */
#define CT_DROP_TRACK_FRAMES 4096
#define CT_BOUNCE_BYTES 4096
#define CT_CLASS_CACHE 1024
#define CT_CLASS_SETS (CT_CLASS_CACHE / 2) /* two entries a set */
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
/* With it, its inner exceptions (docs/tracer.md, "Inner exceptions"): at
 * most CT_EXC_CHAIN_MAX of them in all, followed CT_EXC_CHAIN_DEPTH levels
 * down (an inner exception's inner exceptions are one level more), each
 * message cut at CT_EXC_INNER_MESSAGE_CHARS or the -s limit. */
#define CT_EXC_CHAIN_MAX 8
#define CT_EXC_CHAIN_DEPTH 4
#define CT_EXC_INNER_MESSAGE_CHARS 256
_Static_assert(CT_EXC_CHAIN_MAX <= CT_UNWIND_CHAIN_MAX, "a reader takes the whole chain");
_Static_assert(CT_EXC_CHAIN_DEPTH <= CT_EXC_NODE_DEPTH_MASK, "the node word holds the depth");
/* An async method's body (a state machine's MoveNext) that ends with its
 * task faulted or cancelled: the builder's SetException marks the frame
 * (ct_rec_async_fault), which then ends by that exception (an UNWIND
 * record with its values) instead of returning. At most this many frames
 * of one thread marked at once (continuations run inside SetException,
 * each its own); a deeper one ends as it returns. */
#define CT_ASYNC_FAULTS 4
/* The state machines of a thread's open async bodies, innermost last, kept
 * to tell which body a SetException is of (its builder is a field of the
 * body's state machine): at most this many at once (deeper ones are not
 * marked). */
#define CT_ASYNC_BODIES 16
/* Async calls followed at once (record/asynccall.c: the calls whose task
 * was not complete when they returned, until it completes; a power of two,
 * each 24 bytes): past it, or when the task's object header is in use (a
 * hash code, a lock), a call ends when it returns, counted in the closing
 * line. */
#define CT_ASYNC_CALLS 65536
_Static_assert((CT_ASYNC_CALLS & (CT_ASYNC_CALLS - 1)) == 0, "a power of two");
/* A task completed before its call's return was recorded is kept this long
 * for that return (longer: its call was not traced). */
#define CT_ASYNC_EARLY_NS 1000000000ull
/* A marked runtime-async frame (ct_rec_thread.rt) is a resumed part (not
 * recorded: hidden), or the outermost of its chain (root: not called by an
 * await of the frame below it: when it suspends, so has every frame above
 * it, and none below). */
enum { CT_RT_HIDDEN = 1, CT_RT_ROOT = 2 };
/* Runtime-async frames (record/rtasync.c) marked on one thread at once:
 * a deeper one's call is not followed (it ends as it suspends, without its
 * end). */
#define CT_RT_FRAMES 64
/* Bytes of each thread's state kept for the engine in use (ct_rec_engine:
 * the ELT engine's argmap snapshot, the IL engine's instantiation cache). */
#define CT_REC_ENGINE_BYTES 4096

/* At Shutdown, how long to wait for hooks still running on other threads
 * after recording stopped (polled every CT_QUIESCE_POLL_NS). */
#define CT_QUIESCE_WAIT_NS 200000000ull
#define CT_QUIESCE_POLL_NS 1000000L

/* A value that does not fit the record is captured again with the string
 * and array limits divided by CT_CAPTURE_RETRY_DIVISOR, up to
 * CT_CAPTURE_RETRIES times, then recorded as too large. */
#define CT_CAPTURE_RETRIES 4
#define CT_CAPTURE_RETRY_DIVISOR 16
/* A leave whose values take more than this many bytes counts its capture
 * as the tracer's time (ct_ring_hold); smaller ones are not worth a clock
 * read. */
#define CT_LEAVE_HOLD_MIN_BYTES 32
/* Bytes kept of a value captured by its range (a type that has no plan). */
#define CT_BY_RANGE_MAX_BYTES 64


/* An object class a thread met (its class cache). */
typedef struct ct_rec_class {
    uintptr_t mt;             /* an object's method table pointer */
    uint64_t cls;             /* its ClassID */
    const ct_plan *content;   /* the plan of its content (NULL: none) */
    uint8_t boxed;            /* the kind of value it boxes (CT_V_VOID: none) */
    uint8_t szarray, string;  /* T[]; System.String */
    int32_t again;            /* no content plan yet: ask again (-1), or ask
                                 once the reference at again - 1 is not null
                                 (ct_plan_content) */
    uint32_t told;            /* named in a marked record: the thread's class_gen
                                 << 2 | 1 while it had no content plan, | 2 with
                                 its content plan; anything else: not yet */
} ct_rec_class;

/* An exception thrown on a thread: the values of the UNWIND events of the
 * frames it leaves, as ct_event_value words and bytes: its object, message
 * and node word, then each inner exception's (docs/trace-format.md). */
typedef struct ct_rec_exc {
    uint32_t serial;          /* ct_eh_serial; 0: none */
    uint32_t nvalues;
    uint32_t len;
    uint8_t values[(4 + 16) + (4 + 16 + 2 * CT_EXC_MESSAGE_CHARS) + (4 + 4) +
                   CT_EXC_CHAIN_MAX * ((4 + 16) + (4 + 16 + 2 * CT_EXC_INNER_MESSAGE_CHARS) +
                                       (4 + 4))];
} ct_rec_exc;

/* Traced frames whose line is kept per exception (--srcline): the
 * innermost ones; the UNWINDs of frames further out have no LINE. */
#define CT_EXC_LINES 32

typedef struct ct_rec_thread {
    _Atomic int busy;             /* inside a hook (re-entry is dropped) */
    uint32_t depth;               /* open frames (the shadow stack) */
    uint32_t nfaults;             /* async bodies marked (fault_depth), read at each close */
    uint32_t nrt;                 /* runtime-async frames marked (rt, below), read at each
                                     enter and close of the IL engine */
    /* An async call whose task faulted before it returned (its first body
     * threw before an await; asynccall.c): its id, for the return of the
     * frame at sync_depth (1: the outermost), forgotten once a frame below
     * it closes (read at each close, beside nfaults); 0: none. */
    uint32_t sync_id, sync_depth;
    /* An async call decided when its task ends (CT_RING_DEFER told) whose
     * task ended before its return took the id (asynccall.c): its verdict,
     * told after its LEAVE (late_id; 0: none); async_later: the LEAVE being
     * built was told deferred. */
    uint32_t late_id, async_later;
    uintptr_t late_task;
    const struct ct_mapped_fn *late_fn;
    uint32_t gate;                /* open frames of trigger functions */
    uint64_t dropped_frames[CT_DROP_TRACK_FRAMES / 64];
    /* Of the dropped frames, those a condition (--when) left out: their
     * end is left out too, and neither is counted as a drop. */
    uint64_t skipped_frames[CT_DROP_TRACK_FRAMES / 64];
    /* The values of the call being entered, as its condition reads them
     * (when_eval.c): each argument's slot and plan, in order; while `collect`
     * is set (a function with a condition, before its capture), values
     * are collected instead of captured, and out arguments not tracked. */
    uint32_t collect, nslots;
    uint64_t when_found;          /* a condition's path through a field the
                                     capture finds (a Task's Exception) */
    uintptr_t slot[CT_WHEN_MAX_ARGS];
    uint32_t slot_len[CT_WHEN_MAX_ARGS];
    const ct_plan *slot_plan[CT_WHEN_MAX_ARGS];
    uint64_t frame_keys[CT_DROP_TRACK_FRAMES]; /* each open frame's function key */
    uintptr_t frame_sp[CT_DROP_TRACK_FRAMES];  /* each open frame's caller SP (0: unknown) */
    uintptr_t stack_lo, stack_hi; /* the thread's stack (byref targets) */
    ct_rec_class class_cache[CT_CLASS_CACHE];
    /* The event being built names a class as it was not named before on
     * this thread (told): the record is marked CT_EVENT_NEW_CLASSES for the
     * writer, which looks for class ids in marked records only (writer.h). */
    uint8_t class_new;
    /* What the writer was told is forgotten by counting up (told). */
    uint32_t class_gen;
    uint8_t bounce[CT_BOUNCE_BYTES];
    struct {
        uint32_t depth;           /* the frame's depth (its index on the shadow stack) */
        uint32_t arg;             /* the argument */
        uintptr_t target;         /* where it points, in this thread's stack */
    } outs[CT_OUT_TRACK];         /* ordered by depth, innermost last */
    uint32_t nouts;
    /* The latest exceptions thrown on this thread (ct_ex_thrown), at
     * serial % CT_EXC_SLOTS. */
    ct_rec_exc exc[CT_EXC_SLOTS];
    uint32_t sampled;              /* calls of sampled functions seen (budget_check.c) */
    /* The Activity current on the thread (activity.c): the word that
     * holds its managed Thread object (act_handle: the runtime's handle to
     * it, which a GC updates: kept for the thread's life; else its
     * t_currentThread, valid in GC epoch act_slot_epoch) and the
     * ExecutionContext the ids were read from, each valid in GC epoch
     * act_*_epoch (epoch + 1; 0: not kept), and the ids last told the
     * writer (all zero: none). */
    uintptr_t act_slot, act_ec;
    uint32_t act_slot_epoch, act_ec_epoch, act_retry;
    uint8_t act_handle;
    uint8_t act_ids[CT_ACTIVITY_ID_BYTES];
    /* The engine's own (ct_rec_engine). */
    _Alignas(16) unsigned char engine[CT_REC_ENGINE_BYTES];
    /* Last, away from what every call touches: async bodies whose task
     * SetException faulted, innermost last (nfaults of them): the frame's
     * depth (1: the outermost frame) and the exception; the state machines
     * of async bodies being entered or open (their depth, 1 the outermost;
     * their record; their address as `this` gave it). */
    uint32_t fault_depth[CT_ASYNC_FAULTS];
    ct_rec_exc fault_exc[CT_ASYNC_FAULTS];
    uint32_t nbodies;
    struct {
        uint32_t depth;
        uint64_t key;
        uintptr_t base;
    } bodies[CT_ASYNC_BODIES];
    /* Where the engine found the return value of the LEAVE being built, an
     * async method's (f->async_stub: its task; set for those only, this
     * line being cold), or 0. */
    uintptr_t ret_at;
    /* The open frames of runtime-async calls (rtasync.c), innermost last
     * (nrt of them, above): the frame's depth (1: the outermost), the call's id,
     * its home (the method's local holding the id, in the frame), and
     * CT_RT_* flags. rt_awaiting: the depth of a runtime-async frame about
     * to make an awaited call (its callee, entered right above it, is
     * called directly: the same chain), else 0. */
    uint32_t rt_awaiting;
    /* After a resumed part ended by exception rt_fault_serial: the call
     * that awaited it (the runtime hands that exception to the first of the
     * calls awaiting in turn that has a handler, on this thread; those
     * without end by it), else 0. */
    uint32_t rt_fault_next, rt_fault_serial;
    struct {
        uint32_t depth, id;
        uintptr_t home;
        uint32_t flags;
    } rt[CT_RT_FRAMES];
    /* --srcline: the traced frames on the stack where exception
     * exc_lines_serial was thrown, innermost first, with the line each was
     * at (unwind.c); exc_lines_next: the first not yet matched with its
     * UNWIND. */
    struct {
        uint64_t key;
        uint32_t line, flags;
    } exc_lines[CT_EXC_LINES];
    uint32_t nexc_lines, exc_lines_next, exc_lines_serial;
    uint64_t exc_lines_obj;       /* that exception (its address when thrown) */
} ct_rec_thread;

static inline ct_rec_thread *ct_rec_of(const ct_tbuf *b)
{
    return (ct_rec_thread *)(void *)b->engine;
}

/* The engine's part of b's thread state: CT_REC_ENGINE_BYTES, zeroed when
 * a thread takes the buffer. */
static inline void *ct_rec_engine(const ct_tbuf *b)
{
    return ct_rec_of(b)->engine;
}

/* The recorder's process-wide settings (set by ct_recorder_init and the
 * lifecycle calls below; read by every event). */
typedef struct ct_recorder {
    atomic_int open;              /* recording */
    /* CLRTRACE_TRIGGER is set: a thread captures values only inside a
     * trigger function's frame (gate); its other calls are recorded
     * without values (the writer's filter hides them). */
    int gated;
    ct_hook_mode mode;
    /* Attached to a running process (ct_recorder_attached): a return without an
     * open frame is a call entered before this trace began. */
    int attached;
    /* The bench-only naive mode: read only off the event path (exceptions,
     * tail calls); the engines' naive entry points publish with
     * ct_rec_publish_naive and ct_rec_plain_naive. */
    int naive;
    /* A budget or a limit is set: each call asks ct_rec_budget. */
    int budgeted;
    /* --srcline: each exception's stack is read where it is thrown, and the
     * UNWIND of a traced frame it leaves is preceded by a LINE record (the
     * line the frame was at; unwind.c). */
    int srcline;
    /* The record of AppContext.OnUnhandledException once mapped: hooked but
     * not traced, its enter hook tells the exception model that the runtime
     * reports an unhandled exception. */
    _Atomic(uintptr_t) watch_unhandled;
    ct_layout layout;             /* strings' and arrays' layout */
} ct_recorder;

extern ct_recorder g_rec CT_REC_HIDDEN;
/* This thread's buffer (NULL until its first traced call).
 *
 * x86_64: the initial-exec model, one load off the thread pointer instead
 * of a call to __tls_get_addr in every hook. It puts the module's whole TLS
 * block (1.6 KB: the probes' argument arrays, the exception state) in
 * glibc's static TLS surplus when the runtime dlopens the profiler.
 * aarch64: a self-contained .NET 10 runtime leaves too little of that
 * surplus, dlopen fails and the runtime drops the profiler without a word
 * (seen under qemu-user, docs/arm64.md); there the compiler's default model
 * for -fPIC code is TLS descriptors, which cost a load and an indirect call
 * and need no static TLS. */
#if defined(__x86_64__)
#define CT_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define CT_TLS_MODEL
#endif
extern __thread ct_tbuf *ct_rec_self CT_TLS_MODEL CT_REC_HIDDEN;

/* Trace ids on calls (activity.c): the W3C ids of the Activity current on
 * the thread, read at each enter, told the writer in an ACTIVITY record
 * when they change. */
typedef struct ct_activity_state {
    int on;                       /* reading them (CLRTRACE_IDS, default on) */
    int gc_known;                 /* the runtime tells each GC (COR_PRF_HIGH_BASIC_GC):
                                     addresses are kept from call to call */
    _Atomic uint32_t epoch;       /* GCs started */
    _Atomic int learned;          /* 1: Thread's class and field known; -1: never */
    _Atomic int wanted;           /* a traced call came before what it needs was learned */
    /* 1: exposed_offset known (every thread's Thread object found from the
     * hooks of both engines); -1: never (the runtime's Thread is not laid
     * out as expected: the ELT engine's hooks ask the runtime, the IL
     * engine's probes record no ids); 0: not yet. */
    _Atomic int exposed;
    _Atomic int learning;         /* a thread is learning (the others leave it) */
    uint64_t thread_class;        /* System.Threading.Thread */
    uint32_t thread_field;        /* its [ThreadStatic] t_currentThread */
    uint32_t ec_offset;           /* Thread._executionContext */
    uint32_t internal_offset;     /* Thread._DONT_USE_InternalThread: the runtime's Thread */
    uint32_t exposed_offset;      /* in the runtime's Thread (a ThreadID): the handle to
                                     its managed Thread object (m_ExposedObject) */
} ct_activity_state;

extern ct_activity_state g_act CT_REC_HIDDEN;

/* The thread's current Activity read again (the ExecutionContext changed,
 * a GC ran, or nothing is kept): an ACTIVITY record when its ids changed. */
void ct_rec_activity_read(ct_tbuf *b);


/* The builder at address `builder` (its SetException's `this`) of an async
 * method's task got exception object exc (ct_mapped_fn.watched
 * CT_WATCH_ASYNC_FAULT): when this thread's innermost open frame is the
 * async body whose state machine holds that builder, it is marked to end
 * by that exception (its type, message and inner exceptions read now). The
 * engines call it from the enter of SetException. */
void ct_rec_async_fault(ct_tbuf *b, uintptr_t builder, uint64_t exc);
/* Whether this thread's innermost open frame is the async body whose state
 * machine holds the builder at address `builder`. */
int ct_rec_async_body_owns(ct_tbuf *b, uintptr_t builder);
/* The async call whose LEAVE is being built (f->async_stub; the engine
 * set ret_at): when its task is not complete, the task is followed and the
 * LEAVE gets the call's id as its last value (record/asynccall.c). */
void ct_rec_async_call(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m,
                       uint64_t now);
/* The builder at `builder` (its SetResult's `this`) completes its task
 * with the result at `result` (len bytes, 0: its plan's size; result 0:
 * none, a Task's): when the
 * innermost open frame is the async body holding it and its call is
 * followed, an ASYNC_RETURN record ends that call (CT_WATCH_ASYNC_RESULT). */
void ct_rec_async_result(ct_tbuf *b, uintptr_t builder, uintptr_t result, size_t result_len,
                         int naive);
/* Under attach (the builders not rewritten), an async body f about to
 * return, its `this` at this_addr (as the enter probe gets it; its frame
 * still open): when its builder's task completed and its call is
 * followed, an ASYNC_RETURN (the result read from the task) or an
 * ASYNC_FAULT (the exception the task holds) ends that call. */
void ct_rec_async_body_end(ct_tbuf *b, const ct_mapped_fn *f, uintptr_t this_addr, int naive);

/* Marks this thread's innermost open frame (an async body) to end by
 * exception object exc, read now (class, message, inner exceptions): the
 * exception kept, or NULL (CT_ASYNC_FAULTS marked already, or not read). */
const ct_rec_exc *ct_rec_mark_fault(ct_tbuf *b, uint64_t exc);
/* The same for a task faulted with exception x (from ct_rec_async_fault):
 * an ASYNC_FAULT record. */
void ct_rec_async_faulted(ct_tbuf *b, uintptr_t builder, const ct_rec_exc *x);
/* The verdict of the async call whose task ended before its return took
 * its id (late_id, late_task, late_fn), told the writer after its LEAVE
 * (CT_RING_ASYNC_KEEP or _DROP). */
void ct_rec_async_late_verdict(ct_tbuf *b, int naive);
/* A new async call id (the numbers the task marks use too). */
uint32_t ct_rec_async_new_id(void);
/* Appends one u64 value (status PLAN: an async call's id, a class id) to
 * the event being built. */
void ct_rec_put_u64(ct_wbuf *w, ct_event_mark *m, uint64_t v);
/* The end record (type: ASYNC_RETURN, or the ring's CT_RING_RT_RETURN) of
 * async call id: first (its task's class; a runtime-async call's function
 * record), then its result (plan p at addr, len bytes; p NULL: none). */
void ct_rec_async_end_event(ct_tbuf *b, uint32_t type, uint32_t id, uint64_t first,
                            const ct_plan *p, uintptr_t addr, uint32_t len, uint64_t now,
                            int naive);

/* Runtime-async calls (record/rtasync.c; the IL engine's probes, home: the
 * address of the method's local that holds the call's id, sp: the probe's
 * own frame). After the ENTER of def's call (its frame the innermost): the
 * call followed, its id written to home (0 there when not). */
void ct_rec_rt_begin(ct_tbuf *b, const ct_mapped_fn *def, uintptr_t home);
/* After an await of the call whose home it is: a resumed part opens (a
 * frame not recorded) when the call's frame is not this thread's
 * innermost. */
void ct_rec_rt_resumed(ct_tbuf *b, const ct_mapped_fn *def, uintptr_t home, uintptr_t sp);
/* At its return (its value at ret_addr, 0: none): 1 when it ends in its
 * first part (the engine records the LEAVE, the frame being the
 * innermost); 0 when done here (an ASYNC_RETURN told, the resumed part's
 * frame closed). */
int ct_rec_rt_return(ct_tbuf *b, const ct_mapped_fn *def, uintptr_t home, uintptr_t ret_addr,
                     uintptr_t sp, int naive);
/* Before an awaited call of the call whose home it is (the callee,
 * runtime-async, is then of the same chain). */
void ct_rec_rt_awaiting(ct_tbuf *b, uintptr_t home);
/* A runtime-async chain this thread ran has suspended (HandleSuspended):
 * its marked frames, innermost first down to its root, closed as below. */
void ct_rec_rt_suspended(ct_tbuf *b, int naive);
/* The marked frames gone from the stack (suspended), innermost first, seen
 * from a probe whose frame is at sp, closed: a LEAVE with the call's id
 * each ("goes on"); a resumed part's, silently. */
void ct_rec_rt_settle_slow(ct_tbuf *b, uintptr_t sp, int naive);
/* The innermost frame, closing by an exception: when it is a resumed part
 * of a runtime-async call, that call's id (its end is an ASYNC_FAULT), else
 * 0; its mark is forgotten either way. */
uint32_t ct_rec_rt_unwinding(ct_tbuf *b, uint32_t serial);
/* Where the exception a resumed part ended by (rt_fault_next) goes next:
 * a frame of runtime-async method f not open on this thread, resumed by the
 * runtime with it (it comes out at the await), that it leaves (caught 0)
 * or that catches it (caught 1); or, f NULL, the task of the chain's root
 * (Task.TrySetException, watched: no call had a handler). The calls
 * awaiting in turn up to f (and f, when it leaves it; every one up to the
 * root for the task) end by it: an ASYNC_FAULT each, with exception x. */
void ct_rec_rt_fault_goes(ct_tbuf *b, const ct_mapped_fn *f, int caught, const ct_rec_exc *x);
/* Task.TrySetException (watched) on this thread: the task of a chain whose
 * resumed part ended by an exception no call handled (unwind.c). */
void ct_rec_rt_task_faults(ct_tbuf *b);

/* The exception that marked the frame being closed, at depth (1: the
 * outermost), or NULL; forgets marks of frames closed otherwise. */
static inline const ct_rec_exc *ct_rec_fault_at(ct_tbuf *b, uint32_t depth);
/* The UNWIND event of the frame of function key, with exception x's values
 * (NULL: without). */
void ct_rec_unwind_event(ct_tbuf *b, uint64_t now, uint64_t key, const ct_rec_exc *x);
/* The same with exception x's values for an event of another type
 * (ASYNC_FAULT: key is the async call's id). */
void ct_rec_exc_event(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key,
                      const ct_rec_exc *x);

/* --srcline (exclines.c): where exception `serial` is thrown on b's thread,
 * the lines its traced frames are at; before the UNWIND of such a frame of
 * function key, its LINE record. */
void ct_rec_exc_lines_read(ct_tbuf *b, uint32_t serial, uint64_t obj);
void ct_rec_line_event(ct_tbuf *b, uint64_t now, uint64_t key, uint32_t serial);

/* The watched function entered (unwind.c): the runtime's unhandled
 * exception path, or the program raising the event itself. */
void ct_rec_on_unhandled(void);

#ifdef CT_EH_LOG
/* Debugging (cmake -DCLRTRACE_EH_LOG=ON): one stderr line per exception
 * callback and hook, "TID what name" (unwind.c). */
void ct_rec_eh_log(const char *what, const char *name);
#define CT_EH_LOG_EVENT(what, name) ct_rec_eh_log(what, name)
#else
#define CT_EH_LOG_EVENT(what, name) ((void)0)
#endif

/* ---------------------------------------------------- the thread's state */

static inline int ct_rec_recording(void)
{
    return atomic_load_explicit(&g_rec.open, memory_order_relaxed);
}

static inline const ct_rec_exc *ct_rec_fault_at(ct_tbuf *b, uint32_t depth)
{
    ct_rec_thread *t = ct_rec_of(b);
    while (t->nfaults && t->fault_depth[t->nfaults - 1] > depth)
        t->nfaults--; /* a frame closed another way (an exception, a tail call) */
    if (!t->nfaults || t->fault_depth[t->nfaults - 1] != depth)
        return NULL;
    t->nfaults--;
    return &t->fault_exc[t->nfaults];
}

/* This thread's buffer made (or reused) at its first traced call (thread.c).
 * NULL when out of memory (the thread's calls go unrecorded). */
ct_tbuf *ct_rec_thread_new(void);

/* The time the tracer has held this thread so far (ct_ring_held: its hooks'
 * value capture, its waits for ring room, JIT compilation), stored in each
 * event beside the clock's time, so that no call's duration counts the
 * tracer's own work while the times stay one clock for every thread. */
static inline uint64_t ct_rec_held(const ct_tbuf *b)
{
    return ct_ring_held(&b->ring);
}

/* 1 when values may be captured for f on b's thread (CLRTRACE_TRIGGER:
 * only inside a trigger function's frame, or for the trigger itself). */
static inline int ct_rec_gate_open(const ct_tbuf *b, const ct_mapped_fn *f)
{
    return !g_rec.gated || ct_rec_of(b)->gate || f->trigger;
}

/* Inside a hook (busy) or out of it: the re-entry guard, and the writer's
 * mark (ct_ring.making: the thread may publish an event no earlier than
 * its last, writer.h). */
static inline void ct_rec_busy(ct_tbuf *b, int busy)
{
    memory_order mo = busy ? memory_order_relaxed : memory_order_release;
    atomic_store_explicit(&ct_rec_of(b)->busy, busy, mo);
    atomic_store_explicit(&b->ring.making, busy, mo);
}

/* Whether this thread is inside a hook already. */
static inline int ct_rec_is_busy(ct_tbuf *b)
{
    return atomic_load_explicit(&ct_rec_of(b)->busy, memory_order_relaxed);
}

/* A hook that reads its time before it enters the recorder (a leave: its
 * time is the call's end) marks its thread for the writer first, so that
 * the time it reads is never earlier than what the writer may still take
 * (writer.h); unmarked when the hook records nothing. Not inside another
 * hook (that one's mark stays). */
static inline void ct_rec_mark_self(void)
{
    ct_tbuf *b = ct_rec_self;
    if (b && !ct_rec_is_busy(b))
        atomic_store_explicit(&b->ring.making, 1, memory_order_relaxed);
}

static inline void ct_rec_unmark_self(void)
{
    ct_tbuf *b = ct_rec_self;
    if (b && !ct_rec_is_busy(b))
        atomic_store_explicit(&b->ring.making, 0, memory_order_release);
}

/* ------------------------------------------------ the shadow stack */

/* What became of a frame's enter event. */
enum {
    CT_FRAME_RECORDED = 0,
    CT_FRAME_DROPPED = 1,  /* not recorded: a full ring, a re-entry (counted) */
    CT_FRAME_SKIPPED = 2   /* left out by its condition (--when), the budget
                              or a limit (not counted as a drop) */
};

/* A frame of function `key` opens; state: CT_FRAME_*. A skipped frame of a
 * trigger function opens no gate: its subtree follows its choice. */
static inline void ct_rec_frame_open_as(ct_tbuf *b, uint64_t key, int state, uintptr_t caller_sp)
{
    ct_rec_thread *t = ct_rec_of(b);
    uint32_t d = t->depth++;
    if (d < CT_DROP_TRACK_FRAMES) {
        t->frame_keys[d] = key;
        t->frame_sp[d] = caller_sp;
        if (g_rec.gated && key && state != CT_FRAME_SKIPPED &&
            ((const ct_mapped_fn *)(uintptr_t)key)->trigger)
            t->gate++;
        uint64_t bit = 1ull << (d % 64);
        if (state != CT_FRAME_RECORDED)
            t->dropped_frames[d / 64] |= bit;
        else
            t->dropped_frames[d / 64] &= ~bit;
        if (state == CT_FRAME_SKIPPED)
            t->skipped_frames[d / 64] |= bit;
        else
            t->skipped_frames[d / 64] &= ~bit;
    }
}

/* A frame of function `key` opens; `dropped`: its enter event was not
 * recorded. */
static inline void ct_rec_frame_open(ct_tbuf *b, uint64_t key, int dropped, uintptr_t caller_sp)
{
    ct_rec_frame_open_as(b, key, dropped ? CT_FRAME_DROPPED : CT_FRAME_RECORDED, caller_sp);
}

/* A frame closes; returns its CT_FRAME_* state: not RECORDED when its enter
 * event was not recorded (so is this; a drop is counted by the caller when
 * DROPPED). */
static inline int ct_rec_frame_close(ct_tbuf *b)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (!t->depth)
        return CT_FRAME_RECORDED;
    uint32_t d = --t->depth;
    if (d >= CT_DROP_TRACK_FRAMES)
        return CT_FRAME_RECORDED;
    uint64_t key = t->frame_keys[d];
    int skipped = (int)(t->skipped_frames[d / 64] >> (d % 64) & 1);
    if (g_rec.gated && key && t->gate && !skipped &&
        ((const ct_mapped_fn *)(uintptr_t)key)->trigger)
        t->gate--;
    if (skipped)
        return CT_FRAME_SKIPPED;
    return (int)(t->dropped_frames[d / 64] >> (d % 64) & 1);
}

/* A frame closed without its event (ct_rec_frame_close's how): counted as
 * dropped when it was lost. */
static inline void ct_rec_count_unrecorded(ct_tbuf *b, int how)
{
    if (how == CT_FRAME_DROPPED)
        ct_tbuf_count_drop(b, 1);
}

/* The budget and the limits, for a call of f about to be recorded on b's
 * thread (budget_check.c): CT_BUDGET_RECORD, CT_BUDGET_NO_VALUES_NOW or
 * CT_BUDGET_SKIP (not recorded: counted). */
enum { CT_BUDGET_RECORD = 0, CT_BUDGET_NO_VALUES_NOW = 1, CT_BUDGET_SKIP = 2 };
int ct_rec_budget_check(ct_tbuf *b, const ct_mapped_fn *f);

/* With a budget, whether this hook is one of those timed (and its start,
 * *m0, and the thread's held time then, *h0). */
static inline int ct_rec_measure_begin(ct_tbuf *b, uint64_t *m0, uint64_t *h0)
{
    if (__builtin_expect(!g_rec.budgeted, 1) || ++b->measure_tick % CT_TBUF_MEASURE_EVERY)
        return 0;
    *m0 = ct_now_ns();
    *h0 = ct_ring_held(&b->ring);
    return 1;
}

/* A timed hook ends: its time beyond what it held, as kind (0: an event,
 * 1: a call left out). */
static inline void ct_rec_measure_end(ct_tbuf *b, int kind, uint64_t m0, uint64_t h0)
{
    uint64_t now = ct_now_ns(), held = ct_ring_held(&b->ring) - h0;
    uint64_t ns = now > m0 + held ? now - m0 - held : 0;
    atomic_store_explicit(&b->hook_ns[kind],
                          atomic_load_explicit(&b->hook_ns[kind], memory_order_relaxed) + ns,
                          memory_order_relaxed);
    atomic_store_explicit(&b->hook_n[kind],
                          atomic_load_explicit(&b->hook_n[kind], memory_order_relaxed) + 1,
                          memory_order_relaxed);
}


/* The function of the top open frame when its key is kept, else 0. */
static inline uint64_t ct_rec_top_key(const ct_tbuf *b)
{
    const ct_rec_thread *t = ct_rec_of(b);
    return t->depth && t->depth <= CT_DROP_TRACK_FRAMES ? t->frame_keys[t->depth - 1] : 0;
}

/* ---------------------------------------------------------- publishing */

/* An event record being built: in place in the ring when it has room for
 * the largest record in one piece, else in the thread's scratch buffer. */
typedef struct ct_rec_event {
    ct_wbuf w;
    ct_event_mark m;
    uint8_t *area;
    int inplace;
    ct_rec_type type;
    uint64_t key;
} ct_rec_event;

/* Begins an event record of function key at clock time now, the thread
 * held `held` so far (naive: always in the scratch buffer; the naive
 * publish renders it). */
CT_REC_INLINE void ct_rec_begin(ct_tbuf *b, ct_rec_event *ev, ct_rec_type type, uint64_t now,
                                uint64_t held, uint64_t key, int naive)
{
    uint8_t *p = naive ? NULL : ct_ring_inplace(&b->ring);
    ev->inplace = p != NULL;
    ev->area = p ? p : b->scratch;
    ev->type = type;
    ev->key = key;
    ct_wbuf_init(&ev->w, ev->area, b->ring.record_max);
    ct_event_begin(&ev->w, type, now, held, b->tid, key, &ev->m);
}

/* Forgets the classes met while building a record that is given up (a
 * value captured again with smaller limits, values left out, a record
 * dropped): they may never reach the writer, so the thread's class cache
 * forgets having told any (class_gen counts up: the classes stay cached),
 * and the next record to name any class is marked again (values.c). */
void ct_rec_forget_classes(ct_tbuf *b);

/* The event begun again without values (time 0: set later; values.c). */
void ct_rec_restart(ct_tbuf *b, ct_rec_event *ev);


/* Ends the event (when it does not fit with its values, it is written
 * without them), marks it when it named a class new to this thread, and
 * publishes it into the ring (publish.c); 1, or 0 when it was dropped
 * (counted). The naive one renders it now instead. */
int ct_rec_publish(ct_tbuf *b, ct_rec_event *ev);
int ct_rec_publish_naive(ct_tbuf *b, ct_rec_event *ev);

/* Copies a built record into the ring; 1, or 0 when it was dropped
 * (counted). */
int ct_rec_emit(ct_tbuf *b, const uint8_t *rec, size_t len);

/* A record without values (the fast path's events, tail calls, unwinds, a
 * leave without values) of function key; now is the clock's time. 1, or 0
 * when it was dropped (counted). */
CT_REC_INLINE int ct_rec_plain(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key)
{
    uint8_t *p = ct_ring_reserve(&b->ring, CT_EVENT_BASE_BYTES);
    if (!p) {
        ct_tbuf_count_drop(b, 1);
        return 0;
    }
    ct_event_put_header(p, type, now, ct_rec_held(b), b->tid, key);
    ct_ring_commit(&b->ring, CT_EVENT_BASE_BYTES);
    return 1;
}

int ct_rec_plain_naive(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key);

/* ct_rec_plain, or in the naive mode ct_rec_plain_naive (publish.c). */
int ct_rec_plain_as(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key, int naive);


/* Closes, as left by tail calls, the open frames a function entering with
 * caller SP csp has replaced: every open frame whose caller SP is known and
 * not above csp (publish.c). */
void ct_rec_close_replaced(ct_tbuf *b, uintptr_t csp, int naive);


/* ------------------------------------------------------------ values */

/* The bytes of the slot that holds a value of plan p: a reference or a
 * pointer, or the value itself. */
static inline uint32_t ct_rec_slot_len(const ct_plan *p)
{
    switch (p->kind) {
    case CT_V_STRING: case CT_V_OBJECT: case CT_V_ARRAY: case CT_V_BYREF: case CT_V_PTR:
        return 8;
    default:
        return p->size;
    }
}

/* The levels of objects argument i of f is shown by: none for `this` (its
 * class and address say which object it is), else the option's; a line
 * probe's `this` too (its fields are the state at the line). */
static inline uint32_t ct_rec_arg_depth(const ct_mapped_fn *f, uint32_t i)
{
    return i == 0 && ct_fn_has_this(f) && !f->line_probe ? 0 : g_ct.cfg.object_depth;
}

/* Appends one value of plan p, whose slot of len bytes is at addr (0:
 * missing), to the event being built; object_depth: the levels of objects
 * shown by content (values.c). */
void ct_rec_value(ct_tbuf *b, ct_wbuf *w, ct_event_mark *m, const ct_plan *p, uintptr_t addr,
                  size_t len, uint32_t object_depth);

/* The values of state machine f, read from the fields of the state
 * machine whose `this` is at this_slot (the struct's address, or the
 * object reference of a class). */
void ct_rec_state_machine(ct_tbuf *b, const ct_mapped_fn *f, uintptr_t this_slot, ct_wbuf *w,
                          ct_event_mark *m);

/* Remembers where f's out, ref and in arguments (the ranges r[0..n)) point,
 * for the frame being entered (at the current depth), when the target is
 * in this thread's stack: a local, still there when the call returns. */
void ct_rec_outs_track(ct_tbuf *b, const ct_mapped_fn *f, const COR_PRF_FUNCTION_ARGUMENT_RANGE *r,
                       uint32_t n);

/* Forgets the out arguments of frames at depth d and deeper (ended, or
 * left by an exception or a tail call). */
static inline void ct_rec_outs_forget(ct_tbuf *b, uint32_t d)
{
    ct_rec_thread *t = ct_rec_of(b);
    while (t->nouts && t->outs[t->nouts - 1].depth >= d)
        t->nouts--;
}

/* The end of a LEAVE record's values (after the return value's): the out
 * arguments; then, when the capture took longer than a scalar's (which
 * costs less than reading the clock), its time is the tracer's, not the
 * caller's. now: when the leave began (values.c). */
void ct_rec_leave_outs(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m,
                       uint64_t now);

/* What the capture knows of the object at `object` (its thread's class
 * cache; values.c), without naming its class in the record. */
void ct_rec_class_info(ct_tbuf *b, uint64_t object, ct_class_info *out);

/* The values of the call being entered captured from the slots collected
 * for its condition (and its out arguments tracked): 1, or 0 when they
 * were not all collected (values.c). */
int ct_rec_values_collected(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m);

/* 1 when every condition (--when) bound to f holds for the call being
 * entered, read from the slots collected while its values were captured
 * (when_eval.c); 0 when one does not or cannot be read. */
int ct_rec_when_holds(ct_tbuf *b, const ct_mapped_fn *f);
/* The same for one condition bound (when_eval.c). */
int ct_rec_when_bound_holds(ct_tbuf *b, const ct_when_bound *c);

/* The values chosen (-A: c is f->chosen_args, or -R: f->chosen_ret) of
 * the call, read along their paths from the slots collected (when_eval.c) and
 * appended to (w, m), one per path. */
void ct_rec_chosen_values(ct_tbuf *b, const ct_mapped_fn *f, const ct_chosen_fn *c, ct_wbuf *w,
                          ct_event_mark *m);

/* ----------------------------------------------------------- skeletons */

/* How an engine finds a call's values: its argument values appended to
 * (w, m), 1; or 0 when it has none (the event is then recorded without
 * values and reads "(?)"). ctx: the engine's (the runtime's eltInfo, the
 * probes' addresses). */
typedef int ct_rec_args_fn(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                           ct_event_mark *m);

/* --locals (locals.c): the values of a frame of function owner as an
 * exception passes through it (its first pass, from the IL engine's
 * filter): a LOCALS event of pf (its locals record), value 0 owner's key
 * and the frame's id (an address in it: the same frame seen again, by an
 * exception a finally of it throws, has the same), then the values args
 * finds (ctx: the engine's). */
/* --inject (inject_decide.c): at the entry of a call of f (f->inject set), after
 * its enter, which of f's faults acts on this call: k (its bound spec k-1:
 * the first whose condition holds and whose selectors choose the call), or
 * 0 (the call runs as usual). A condition reads the arguments args finds
 * (ctx: the engine's; args NULL or b NULL: none, so a condition is false).
 * An injected call gets an INJECT record on b's thread. No allocation, no
 * lock. */
int ct_rec_inject_decide(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_args_fn *args,
                         const void *ctx);

void ct_rec_locals(ct_tbuf *b, const ct_mapped_fn *pf, const ct_mapped_fn *owner,
                   uint64_t frame, ct_rec_args_fn *args, const void *ctx);
/* And its return value (f->has_ret), appended to (w, m). */
typedef void ct_rec_ret_fn(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                           ct_event_mark *m);

/* The values args (or ret) finds, collected instead of captured (--when,
 * -A, -R, --inject's conditions): each one's slot, length and plan noted in
 * b's thread state (slot[], slot_len[], slot_plan[], nslots), nothing
 * copied into (w, m). args: 1 when it found them. */
CT_REC_INLINE int ct_rec_collect_args(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_args_fn *args,
                                      const void *ctx, ct_wbuf *w, ct_event_mark *m)
{
    ct_rec_thread *t = ct_rec_of(b);
    t->collect = 1;
    t->nslots = 0;
    int got = args(b, f, ctx, w, m);
    t->collect = 0;
    return got;
}

CT_REC_INLINE void ct_rec_collect_ret(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_ret_fn *ret,
                                      const void *ctx, ct_wbuf *w, ct_event_mark *m)
{
    ct_rec_thread *t = ct_rec_of(b);
    t->collect = 1;
    t->nslots = 0;
    ret(b, f, ctx, w, m);
    t->collect = 0;
}

/* 1 when every condition deciding at the end (f->when_end: on return,
 * exception or out arguments) holds for the call of f ending now on b's
 * thread (its frame just closed), ended by `how` (LEAVE: ret finds its
 * return value, ctx the engine's; UNWIND: x, the exception's values as
 * its UNWIND record carries them, NULL when not kept; TAILCALL: none of
 * them is known); 0 when one does not or cannot be read (when_eval.c). */
int ct_rec_when_end_holds(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_type how,
                          ct_rec_ret_fn *ret, const void *ctx, const ct_rec_exc *x);
/* ct_rec_when_end_holds's answer for an async method's call whose task goes
 * on (f->async_stub): decided when the task ends (CT_RING_DEFER). */
#define CT_WHEN_LATER 2
/* The same conditions over an async call's outcome: its result (how
 * LEAVE: the value at addr, len bytes, of plan p; none: p NULL) or its
 * exception (how UNWIND: x, NULL when not read): 1 when they hold. */
int ct_rec_when_outcome_holds(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_type how,
                              const ct_plan *p, uintptr_t addr, uint32_t len,
                              const ct_rec_exc *x);
/* An async method's call at its return (f->async_stub), its return value
 * (its task) at ret_addr: CT_WHEN_LATER when its task goes on, else 1 or 0
 * as its conditions hold for the task's outcome; -1: no task (decided on
 * the returned value itself). record/asynccall.c. */
int ct_rec_async_return_holds(ct_tbuf *b, const ct_mapped_fn *f, uintptr_t ret_addr);

/* Tells the writer that the end event about to be published on b's thread
 * (function key) ends a call whose condition at the end did not hold
 * (CT_RING_REJECT; publish.c). */
void ct_rec_reject(ct_tbuf *b, uint64_t now, uint64_t key, int naive);
/* A ring-only marker of type (CT_RING_*) with key, for the writer. */
void ct_rec_marker(ct_tbuf *b, uint32_t type, uint64_t now, uint64_t key, int naive);

/* Evaluates f's conditions at the end (if any) and tells the writer when
 * they do not hold (publish.c). */
void ct_rec_end_verdict(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_type how, ct_rec_ret_fn *ret,
                        const void *ctx, const ct_rec_exc *x, uint64_t now, int naive);


/* ------------------------ the runtime's objects (excobject.c, task.c) */

/* The class (method table) of object obj; 0 for null. */
static inline ClassID ct_rec_class_of(uint64_t obj)
{
    ClassID c = 0;
    if (obj)
        memcpy(&c, (const void *)(uintptr_t)obj, 8);
    return c;
}

/* Reads exception object obj into x as an UNWIND carries it (its class,
 * message and inner exceptions), x->serial set to serial; x->serial 0: not
 * read (no object, or not an exception's class known). */
void ct_rec_exc_read(ct_rec_exc *x, uint32_t serial, ObjectID obj);
/* The same, x->serial 1 when read. */
void ct_rec_exc_capture(ct_rec_exc *x, uint64_t obj);

/* The content plan of task object obj (class cls) when it is the Task
 * form's (m_stateFlags, then a Task<T>'s m_result), made at the first
 * object of its class (no type loaded); else NULL. */
const ct_plan *ct_rec_task_form(uintptr_t obj, ClassID cls);
/* Whether task object obj (of class cls) is complete. -1 when not known. */
int ct_rec_task_done(uintptr_t obj, ClassID cls);
/* The exception object task `task` holds when its m_stateFlags (its
 * content plan's first field) say it faulted or was cancelled; else 0. */
uint64_t ct_rec_task_exception(uintptr_t task, const ct_plan *content);

/* What a task object says of its end: complete or not, its result's slot
 * (the Task form's m_result) or its exception object. */
typedef struct ct_rec_outcome {
    int complete, faulted;
    const ct_plan *p;          /* the result's plan (NULL: none, a Task's) */
    uintptr_t addr;
    uint32_t len;
    uint64_t exc;              /* faulted: the exception (0: not found) */
} ct_rec_outcome;
/* Task object task's (class cls) end: 0 with *o filled, or -1 when the
 * task's form is not known. */
int ct_rec_task_outcome(uint64_t task, ClassID cls, ct_rec_outcome *o);
/* Whether f's conditions at the end hold for a complete task's outcome o,
 * its exception read into the caller's x when it has one (when_eval.c). */
int ct_rec_outcome_holds(ct_tbuf *b, const ct_mapped_fn *f, const ct_rec_outcome *o,
                         ct_rec_exc *x);

/* The offsets in an object of class cls of its own fields named
 * names[0..n) (CT_REC_NO_FIELD: none), each of size bytes, inside the
 * object after its method table and 8-byte aligned: the runtime's layout,
 * named by its module's metadata (its first CT_REC_MAX_FIELDS fields). Off
 * the event path (a class met the first time; excobject.c). */
#define CT_REC_NO_FIELD UINT32_MAX

/* The object reference at offset off of object obj (0 when obj is null or
 * off is CT_REC_NO_FIELD). */
static inline uint64_t ct_rec_ref_at(uint64_t obj, uint32_t off)
{
    uint64_t ref = 0;
    if (obj && off != CT_REC_NO_FIELD)
        memcpy(&ref, (const void *)(uintptr_t)(obj + off), 8);
    return ref;
}
#define CT_REC_MAX_FIELDS 64
void ct_rec_field_offsets(ClassID cls, const char *const *names, uint32_t *offsets, int n,
                          uint32_t size);

#endif
