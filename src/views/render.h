/*
 * The text log and the summary table, rendered from trace records.
 *
 * One formatter, two users: the profiler's writer thread feeds it the
 * records it has just written (the live log of `clrtrace run`), and the CLI
 * feeds it the records of a trace file (`clrtrace replay`, `clrtrace
 * report`). Both see the same records in the same order, so the live text
 * and the replayed text are byte for byte the same.
 *
 *   # clrtrace: dotnet Demo.dll, pid 4242, 2026-11-22T03:14:15Z, filter: my code (framework by public key token)
 *   # CoreCLR 10.0.12, ICorProfilerInfo15, inlining disabled, strings 64 chars, ...
 *   #  TIME(s)    TID   DURATION  CALL
 *     0.034011   4242             Demo.Program.Main(string[] args=string[0] {}) {
 *     0.034102   4242     0.8 us    Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5) -> Point {X=1.5, Y=3}
 *     0.034202   4242    12.3 us  } -> int 0
 *
 *   # summary: 2 calls, 2 functions, 1 thread, 0 events dropped
 *   #  CALLS      TOTAL       SELF  FUNCTION
 *          1    12.3 us    11.5 us  Demo.Program.Main
 *          1     0.8 us     0.8 us  Demo.Shapes.Scale
 *   # clrtrace: shutdown, 746 functions JIT-compiled, 2 traced
 *
 * Per thread: a call's enter line is held back until the thread's next
 * event shows whether the call has children. A leaf folds onto one line
 * (`... -> value`), a call with children opens `{` and is closed by
 * `} -> value`; frames left by an exception or a tail call end in
 * `exception` / `tailcall`. Depth (indentation) is per thread. Names of
 * functions come from FUNCTION records, names of classes (object values)
 * from CLASS records. The summary is computed from the same events: calls,
 * inclusive (TOTAL) and exclusive (SELF) time per function.
 *
 * The renderer allocates (function and thread tables); it never reads
 * outside the records it is given.
 */
#ifndef CLRTRACE_RENDER_H
#define CLRTRACE_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"

/* Indentation stops growing at this depth so deep recursion stays readable. */
#define CT_RENDER_MAX_INDENT 64
/* Frames timed per thread; deeper calls are shown but not timed (each counts
 * as a dropped event in the summary). */
#define CT_RENDER_MAX_FRAMES (64 * 1024)
/* Longest call text (name and arguments) of one line; longer text is cut
 * and ends in "...". */
#define CT_RENDER_LINE_MAX (32 * 1024)
/* Longest return value text; longer text is cut and ends in "...". */
#define CT_RENDER_RET_MAX (16 * 1024)
/* Longest source location a call line ends with (" at FILE:LINE"); a longer
 * path keeps its end, after "...". */
#define CT_RENDER_SRC_MAX 512
/* Async calls whose task goes on after their return, kept for the line of
 * their end, and ends that came before their call's return, kept for it:
 * by id modulo this (the profiler follows at most CT_ASYNC_CALLS, as many,
 * at once, each id in a slot of its own). A call whose end never comes is
 * counted nowhere but its returning line. */
#define CT_RENDER_ASYNC_MAX 65536

/* Receives the text, whole lines at a time. */
typedef void (*ct_render_sink)(void *ctx, const char *text, size_t len);

/* Order of the summary table's rows (clrtrace report --sort). */
typedef enum ct_render_sort {
    CT_SORT_TOTAL = 0,  /* inclusive time, largest first (the default) */
    CT_SORT_SELF,       /* exclusive time, largest first */
    CT_SORT_CALLS,      /* number of calls, most first */
    CT_SORT_AVG,        /* a call's average duration, largest first */
    CT_SORT_MAX,        /* the longest call, largest first */
    CT_SORT_JIT,        /* JIT compilation time, largest first */
    CT_SORT_EXCEPTIONS, /* calls ended by an exception, most first */
} ct_render_sort;

typedef struct ct_render_opts {
    int lines;    /* the three header lines and the call lines (replay, live log);
                     0: only the first header line (report) */
    int summary;  /* the summary table at the end */
    ct_render_sort sort;  /* row order; ties by name */
    uint32_t top;         /* at most this many rows; 0: all */
    int percent;          /* TOTAL% and SELF% columns: shares of the traced time
                             (the sum of every function's self time) */
    int stats;            /* AVG, MIN and MAX columns: each call's duration; and
                             P50, P90 and P99 (views/hist.h: within 3.125 %) */
    const char *histogram;/* globs (':'-separated): after the table, each matching
                             function's duration histogram (report --histogram) */
    int params;           /* every row names its parameter types (rows that share
                             a name always do) */
    int jit;              /* a JIT column: how long each function's JIT compilation
                             took (JIT records), time no call's duration holds; with
                             lines, a "# jit TIME" line above the call during which
                             the compilation happened (the first call of the function
                             on the thread that compiled it) */
    int srcline;          /* (lines) a call's opening or folded line ends with its
                             function's source location, " at Orders.cs:42" (2.11
                             traces recorded with --srcline): 1 its path from its
                             sources' common folder, 2 the whole path */
    int ids;              /* (lines) each call line begins with the W3C trace id and
                             span id of the Activity current when it was entered:
                             "[TRACEID-SPANID] ", or "[-] " under none */
} ct_render_opts;

typedef struct ct_render ct_render;

/* NULL when out of memory. */
ct_render *ct_render_new(const ct_render_opts *opts, ct_render_sink sink, void *ctx);
void ct_render_free(ct_render *r);

/* The header lines, from the trace's header. */
void ct_render_header(ct_render *r, const ct_trace_header *h);

/* One record, in trace order. An END record finishes the text (see
 * ct_render_finish) and adds the closing line; records after it are
 * ignored. Returns 0, or -1 when memory ran out (the record is lost; the
 * renderer stays usable). */
int ct_render_record(ct_render *r, const ct_rec *rec);

/* Ends the text when no END record came (a cut trace): the enter lines still
 * held back are written as open blocks, then the summary. Does nothing after
 * an END record or a previous call. */
void ct_render_finish(ct_render *r);

/* What the renderer has counted so far. */
typedef struct ct_render_totals {
    uint64_t calls;      /* calls that ended (timed) */
    uint64_t functions;  /* functions with at least one ended call */
    uint64_t threads;    /* threads with at least one event */
    uint64_t dropped;    /* DROPPED records' counts plus events that could not be paired */
    uint64_t events;     /* ENTER/LEAVE/TAILCALL/UNWIND records seen */
} ct_render_totals;

void ct_render_get_totals(const ct_render *r, ct_render_totals *t);

/* One function's row of the summary. */
typedef struct ct_render_row {
    const char *name;    /* as the summary names it (told apart from the others) */
    uint64_t calls, total, self, exceptions;
} ct_render_row;

/* Calls each for every row the summary would print (any order); returns 0, or
 * -1 when memory ran out. The names are valid during the call only. */
int ct_render_each_row(ct_render *r, void (*each)(void *ctx, const ct_render_row *row),
                       void *ctx);

/* "0.8 us", "12.3 ms", "1.52 s" into out[0..cap). */
void ct_format_duration(uint64_t ns, char *out, size_t cap);

/* One thread's time held by the tracer (HELD records, summed). */
typedef struct ct_held {
    uint64_t tid, ns;
} ct_held;

/* Adds ns to tid's entry of (*held)[0..*n), making it when there is none:
 * 0, or -1 when out of memory. */
int ct_held_add(ct_held **held, size_t *n, uint64_t tid, uint64_t ns);

/* Threads listed in a held text, the largest first; the rest are counted. */
#define CT_HELD_LIST_MAX 4

/* "12.3 ms on 3 threads (4242 10.1 ms, 4250 2.0 ms, 4251 0.2 ms)": the
 * time the tracer held the threads of held[0..n) (sorted in place, largest
 * first), into out[0..cap). */
void ct_held_text(ct_held *held, size_t n, char *out, size_t cap);

#endif
