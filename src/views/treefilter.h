/*
 * Call filters that need the call tree: --depth, --min-time, --trigger and
 * --after (docs/cli.md, "Filters").
 *
 * A filter sits between a source of trace records in trace order and their
 * consumer. It follows each thread's stack of calls (the walk of walk.h)
 * and passes on only the events of the calls that are shown; records that
 * are not events (FUNCTION, CLASS, THREAD, DROPPED, END) always pass. The same code serves
 * the profiler's writer thread (what is written to the trace and the live
 * log) and the CLI's readers (`clrtrace replay --depth 2 DIR`).
 *
 *   depth      only calls at most this many levels deep, counting the shown
 *              calls on the thread's stack (the outermost shown call is
 *              level 1)
 *   min_time   only calls that last at least this long. A call's enter
 *              event is held back until its end shows its duration (or a
 *              descendant turns out to be shown: a parent lasts at least as
 *              long as its children), so events come out later than they
 *              happened - per thread they keep their order
 *   trigger    only calls made while a function whose full name matches one
 *              of these globs is running on the same thread, that function
 *              included (a per-thread gate)
 *   after      the first N calls (of every thread, in trace order) are not
 *              shown; the calls they make after that are
 *   failed     only calls that ended by an exception (an UNWIND), and the
 *              calls open around them when they did (their callers, each
 *              with its enter and its end): each enter is held back, as for
 *              min_time, until its call ends by an exception or one below
 *              it does
 *   at_end     calls whose condition decides at their end: every event
 *              passed on while one is open on the thread is held back in
 *              order until the outermost ends; a call rejected at its end
 *              (ct_filter_reject) is then left out (its enter and end; with
 *              a trigger on its function, everything under it too)
 *
 * A call is shown when every filter set shows it; hiding a call hides its
 * enter and its end (leave, tail call or unwind) together, so the call tree
 * stays balanced. Calls still open when the trace ends are shown (their
 * duration is unknown).
 *
 * Limits: each thread's stack is followed CT_FILTER_MAX_FRAMES deep; deeper
 * calls are shown or hidden as a whole by depth (they are deeper than any
 * depth limit that fits) and are never held back. Enter events held back
 * for min_time take at most CT_FILTER_MAX_HELD_BYTES per thread: past that,
 * the oldest are let out at once (shown even if they turn out short).
 * Events held for at_end count in the same bytes: past them, everything
 * held is let out and the calls open then are shown whatever their end.
 */
#ifndef CLRTRACE_FILTER_H
#define CLRTRACE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "format/words.h"
#include "format/settings.h" /* CT_FILTER_MAX_FRAMES */

/* Bytes of held-back enter events per thread (min_time, failed). */
#define CT_FILTER_MAX_HELD_BYTES (16u * 1024 * 1024)
/* Async calls per thread whose verdict waits for their task's end. */
#define CT_FILTER_ASYNC_DEFERRED 64

typedef struct ct_filter_opts {
    uint32_t depth;        /* 0: any depth */
    uint64_t min_time_ns;  /* 0: any duration */
    const char *trigger;   /* ':'-separated globs on full names; NULL or "": none */
    uint64_t after;        /* calls not shown at the start; 0: none */
    int failed;            /* only calls that ended by an exception, with the calls
                              open around them (their callers) */
    /* The profiler's conditions that decide at a call's end (--when on
       return, exception or an out argument): 1 for the function keys that
       have one. The events of such a call and of the calls it makes are
       held back until its end, which ct_filter_reject may have marked:
       then the call's enter and end are hidden (with a trigger on it, its
       whole subtree). NULL: none. */
    int (*at_end)(uint64_t key);
} ct_filter_opts;

/* Whether opts asks for any filtering (else the filter passes everything and
 * is best not used). */
int ct_filter_opts_active(const ct_filter_opts *opts);

/* Receives each record passed on. raw/raw_len: the caller's raw bytes of the
 * record when it gave some (an event record as laid out in a thread's
 * buffer), else NULL/0. */
typedef void (*ct_filter_emit)(void *ctx, const ct_rec *rec, const uint8_t *raw, size_t raw_len);

typedef struct ct_filter ct_filter;

/* NULL when out of memory. Keeps a copy of opts->trigger. */
ct_filter *ct_filter_new(const ct_filter_opts *opts, ct_filter_emit emit, void *ctx);
void ct_filter_free(ct_filter *f);

/* One record in trace order. raw (may be NULL): the record's bytes, handed
 * back to emit with it; when given, rec->values must point into raw. An END
 * record first lets out everything held back. Returns 0, or -1 when memory
 * ran out (the record was passed on unfiltered). */
int ct_filter_record(ct_filter *f, const ct_rec *rec, const uint8_t *raw, size_t raw_len);

/* The next end event of thread tid (of function key) ends a call whose
 * condition at the end did not hold (opts.at_end): the call is hidden. */
void ct_filter_reject(ct_filter *f, uint64_t tid, uint64_t key);

/* The next end of thread tid, a LEAVE of function key carrying an async
 * call's id (its last value), ends a call decided at its end whose verdict
 * comes later (ct_filter_async_verdict): its events, and the thread's after
 * them, stay held back until then (at most CT_FILTER_ASYNC_DEFERRED such
 * calls per thread; past them one is shown). */
void ct_filter_defer(ct_filter *f, uint64_t tid, uint64_t key);
/* The verdict of the async call of that id: kept (keep) or hidden (its
 * enter and end). Returns 2 when it was hidden, 1 when kept, 0 when no
 * call waited for it (its end record then goes as it is). */
int ct_filter_async_verdict(ct_filter *f, uint64_t id, int keep);

/* Lets out every held-back enter event (the trace ended without an END). */
void ct_filter_finish(ct_filter *f);

/* Calls hidden so far (each enter event not passed on). */
uint64_t ct_filter_hidden(const ct_filter *f);


#endif
