/*
 * Calls grouped by the W3C trace id they were entered under (`clrtrace
 * report --by-trace`): per trace id, the calls entered under it (the id of
 * the thread's latest ACTIVITY record when the call entered), the span from
 * its first call's enter to its last call's end across threads (the TIME
 * clock), the sum of its outermost calls' durations (a call whose caller on
 * its thread was entered under another trace id, or under none, or that has
 * no caller; program time, the held time left out, as the summary's TOTAL)
 * and the threads its calls ran on. The calls under no Activity are one row
 * of their own (trace id all zero).
 *
 * A client of the one walk (walk.h): ends are paired with calls as the text
 * log and the summary pair them; calls still open at the end are timed to
 * the trace's last time (ct_bytrace_finish). Calls deeper than
 * CT_BYTRACE_MAX_FRAMES on a thread are counted, not timed.
 */
#ifndef CLRTRACE_BYTRACE_H
#define CLRTRACE_BYTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"

/* Frames timed per thread (as the summary's CT_RENDER_MAX_FRAMES). */
#define CT_BYTRACE_MAX_FRAMES (64 * 1024)

typedef struct ct_bytrace_row {
    uint8_t trace_id[CT_TRACE_ID_BYTES]; /* all zero: under no Activity */
    uint64_t calls;      /* calls entered under it */
    uint64_t first_ns;   /* its first call's enter (TIME clock) */
    uint64_t last_ns;    /* its last call's end (first_ns while none ended) */
    uint64_t outer_ns;   /* the sum of its outermost calls' durations */
    uint64_t *tids;      /* the threads its calls ran on, first-seen order */
    uint32_t ntids, tids_cap;
} ct_bytrace_row;

typedef struct ct_bytrace ct_bytrace;

/* The requests' wall times (each trace id's, from its first call's enter to
 * its last call's end; under no Activity left out): how many, and P50,
 * P90, P99 and the longest (views/hist.h: within 3.125 %). */
typedef struct ct_bytrace_latency {
    uint64_t n, p50, p90, p99, max;
} ct_bytrace_latency;

/* NULL when out of memory. */
ct_bytrace *ct_bytrace_new(void);

/* The latency of the requests of a finished ct_bytrace (ct_bytrace_finish):
 * 0, or -1 when out of memory. */
int ct_bytrace_latency_of(const ct_bytrace *b, ct_bytrace_latency *out);
void ct_bytrace_free(ct_bytrace *b);

/* One record, in trace order (events, ACTIVITY and END are read; an END
 * ends the walk). Returns 0, or -1 when out of memory. */
int ct_bytrace_record(ct_bytrace *b, const ct_rec *rec);

/* Closes the calls still open at the trace's last time (its latest event or
 * END) and sorts the rows: the largest wall time (last_ns - first_ns)
 * first, ties by trace id; the row of no Activity last. 0, or -1 when out
 * of memory. Later records are ignored. */
int ct_bytrace_finish(ct_bytrace *b);

/* The rows (after ct_bytrace_finish: in its order), *n of them; valid until
 * ct_bytrace_free. */
const ct_bytrace_row *ct_bytrace_rows(const ct_bytrace *b, size_t *n);

/* Whether the row is the calls under no Activity. */
int ct_bytrace_row_none(const ct_bytrace_row *r);

#endif
