/*
 * The one walk of a trace's call stacks: each thread's stack of open calls
 * (views/stack.h), followed through the records in trace order, told to a
 * client as it happens. The text renderer (render.c: the live log, replay
 * and report), the tree filters (treefilter.c) and the CLI's call stacks
 * (src/cli/export/calls.c: folded stacks, flame graphs, Chrome JSON,
 * Perfetto) are its clients, so they agree on every trace.
 *
 * Records and what the walk makes of them:
 *   ENTER     a call opened: a frame is pushed on its thread's stack (the
 *             thread is made at its first event) and `open` is told, the
 *             frame NULL when the call is not kept (past max_frames, above a
 *             call not kept, or out of memory);
 *   LEAVE, UNWIND, TAILCALL
 *             a call ended, paired with an open call by the rule of
 *             views/stack.h: `end` is told of each call it closes, the
 *             innermost first, while its frame is still on the stack (the
 *             frames below it are its callers): first the calls above the
 *             paired one, whose ends were missed (CT_WALK_MISSED), then the
 *             paired one (CT_WALK_RETURN, _EXCEPTION, _TAILCALL). An end
 *             while calls that are not kept are open closes the innermost
 *             of those, unchecked (`end` with a NULL frame); an end with no
 *             open call of its function closes nothing (`unmatched`);
 *   DROPPED   the profiler lost events: counted (ct_walk.dropped, and the
 *             thread's when it exists);
 *   ACTIVITY  the thread's Activity changed: its ids (ct_walk_thread.ids)
 *             are those of the calls it enters from then on (the thread is
 *             made);
 *   END       the trace ended: every later record is ignored;
 *   others    (FUNCTION, CLASS, THREAD, JIT, HELD, ...) not the walk's.
 * A thread's time never goes back: an event earlier than the thread's
 * previous one is taken at the previous time (ct_walk_thread.now), so a
 * callee's interval always lies inside its caller's; the same holds for
 * its program time (ct_walk_thread.prog: the time less what the tracer
 * held the thread, ct_rec_prog_ns), by which durations are measured.
 *
 * Frames are the client's structs, of frame_size bytes, that begin with the
 * ct_stack_frame header (the function key); the walk zeroes each one it
 * pushes. Each thread may carry a client area of thread_size bytes.
 */
#ifndef CLRTRACE_WALK_H
#define CLRTRACE_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "stack.h"
#include "base/table.h"
#include "format/event.h"

/* How a call ended (the `end` callback). */
typedef enum ct_walk_end {
    CT_WALK_RETURN,    /* its LEAVE record */
    CT_WALK_EXCEPTION, /* its UNWIND record */
    CT_WALK_TAILCALL,  /* its TAILCALL record */
    CT_WALK_MISSED,    /* its end never came: a call below it ended first (the
                          record given is that call's end) */
    CT_WALK_OPEN,      /* still open when the walk was closed (ct_walk_close;
                          no record) */
} ct_walk_end;

typedef struct ct_walk_thread {
    uint64_t tid;
    uint64_t now;        /* the latest event time of the thread (the clock
                            since the start: the TIME column) */
    uint64_t prog;       /* the latest program time (ct_rec_prog_ns: the
                            held time left out) of the thread, the clock
                            durations are measured by */
    uint64_t held;       /* the held time of the thread's latest event */
    uint64_t dropped;    /* events of the thread the profiler lost (DROPPED
                            records that came once the thread was made) */
    ct_stack stack;      /* the calls open (stack.depth), the outermost
                            max_frames kept */
    uint8_t ids[CT_ACTIVITY_ID_BYTES]; /* the W3C trace id and span id the
                            thread's calls are made under from its latest
                            ACTIVITY record (all zero: none) */
    void *user;          /* the client's: its area of thread_size bytes
                            (zeroed), or when it asked for none NULL, for it
                            to set */
    struct ct_walk_thread *next; /* first-seen order */
} ct_walk_thread;

/* The client's callbacks; any may be NULL. The int ones return 0, or
 * non-zero to stop: the walk returns that value at once (a frame whose
 * `end` returned non-zero is popped all the same). */
typedef struct ct_walk_ops {
    /* A thread was made (its first event, or ct_walk_thread_of): non-zero
     * when the client cannot take it (out of memory): the thread is not
     * made and thread_free is not called for it. */
    int (*thread)(void *ctx, ct_walk_thread *t);
    /* A thread is freed (ct_walk_free): its frames are still on its stack. */
    void (*thread_free)(void *ctx, ct_walk_thread *t);
    /* A call opened with `depth` calls open below it on t. frame: its
     * frame, the innermost; NULL when it is not kept (nomem: because memory
     * ran out). */
    int (*open)(void *ctx, ct_walk_thread *t, void *frame, uint32_t depth,
                const ct_rec *enter, int nomem);
    /* A call ended at end_ns (t->now, or ct_walk_close's time; t->prog is
     * the program time then), `how`: it
     * has `depth` calls open below it, frame is its frame, still the
     * innermost (ct_walk_caller(t): its caller), NULL when it was not kept.
     * rec: the end record that closed it (LEAVE, UNWIND or TAILCALL; for
     * CT_WALK_MISSED the end of the call below), NULL for CT_WALK_OPEN.
     * It is popped once this returns. */
    int (*end)(void *ctx, ct_walk_thread *t, void *frame, uint32_t depth, ct_walk_end how,
               uint64_t end_ns, const ct_rec *rec);
    /* An end with no open call of its function on t (`depth` calls open):
     * the stack stays as it is. */
    int (*unmatched)(void *ctx, ct_walk_thread *t, uint32_t depth, const ct_rec *rec);
} ct_walk_ops;

typedef struct ct_walk {
    ct_walk_ops ops;
    void *ctx;
    size_t frame_size;       /* each frame's bytes, the ct_stack_frame header first */
    size_t thread_size;      /* each thread's client area (0: none) */
    uint32_t max_frames;     /* frames kept per thread */
    ct_table threads;        /* tid -> ct_walk_thread */
    ct_walk_thread *first, *last;
    ct_walk_thread *recent;  /* the thread ct_walk_thread_of gave last: most records
                                in a row are one thread's (threads are freed only
                                by ct_walk_free) */
    uint64_t dropped;        /* events the profiler lost (DROPPED records) */
    int ended;               /* an END record came: later records are ignored */
} ct_walk;

/* An empty walk: frames of frame_size bytes (at least the header), at most
 * max_frames kept per thread, a client area of thread_size bytes per thread
 * (0: none); ops (NULL: none) called with ctx. */
void ct_walk_init(ct_walk *w, const ct_walk_ops *ops, void *ctx, size_t frame_size,
                  uint32_t max_frames, size_t thread_size);
/* Frees every thread (thread_free first) and the walk's tables. */
void ct_walk_free(ct_walk *w);

/* The thread tid, made (empty, `thread` told) when the walk has none yet;
 * NULL when out of memory or refused by `thread`. */
ct_walk_thread *ct_walk_thread_of(ct_walk *w, uint64_t tid);
/* The thread tid, or NULL when the walk has none. */
ct_walk_thread *ct_walk_find(const ct_walk *w, uint64_t tid);

/* One record in trace order (see above). Returns 0, -1 when out of memory
 * (an event's thread could not be made), or a callback's non-zero value. */
int ct_walk_record(ct_walk *w, const ct_rec *rec);
/* One event (ENTER, LEAVE, UNWIND or TAILCALL) of thread t, which the
 * client got from ct_walk_thread_of: ct_walk_record without the lookup.
 * Returns 0 or a callback's non-zero value. */
int ct_walk_event(ct_walk *w, ct_walk_thread *t, const ct_rec *rec);

/* Closes every call still open, thread by thread in first-seen order, each
 * from the innermost, as CT_WALK_OPEN at end_ns. Returns 0 or a callback's
 * non-zero value (the call it was told of is closed, the rest stay open). */
int ct_walk_close(ct_walk *w, uint64_t end_ns);

/* The caller of t's innermost kept call (NULL: none): in `end`, the caller
 * of the call that ends; in `open`, of the call that opened. */
static inline void *ct_walk_caller(const ct_walk_thread *t)
{
    return ct_stack_below_top(&t->stack);
}

#endif
