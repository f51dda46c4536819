/* The budget, the writer's side (budget_control.c): once a window, each thread's
 * share of time the tracer took; past --max-overhead, the hottest function
 * one step down (ct_budget_step: values off, sampled, untraced), after a
 * quiet spell the last one a step back up; and the calls the hooks left out
 * (the budget, --limit, --rate) taken from every thread's counts. Each
 * change is a BUDGET record (the text log shows it) and, at start-up, a line
 * on stderr. Runs on the writer thread only. */
#ifndef CLRTRACE_CORE_BUDGET_H
#define CLRTRACE_CORE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "agent/model/registry.h"
#include "agent/hookside/tbuf.h"

/* The window the budget is kept over (a quarter of a second). A window
 * ends early, with a step down, as soon as the tracer's time on a thread
 * passes the budget's share of a whole window: a function that costs its
 * thread most of its time is stepped down within a few milliseconds. */
#define CT_BUDGET_WINDOW_NS 250000000ull
/* How often the writer looks at the threads' costs within a window. */
#define CT_BUDGET_CHECK_NS 2000000ull
/* What one recorded event (an enter or a leave) costs its thread beyond
 * the time the tracer measures as held, at least: the hook's own call and
 * its record, from bench/ (an enter and a leave, calls only: 28 ns). The
 * hooks time themselves now and then (tbuf.hook_ns): a slower hook (a
 * slower machine, a sanitizer build) counts what it took. */
#define CT_BUDGET_EVENT_NS 14u
/* What a call left out still costs its thread, at least: its enter and
 * leave hooks run and decide (an IL probe's pair, measured with
 * bench/run_attach.sh's service: about 30 ns a call); timed like events. */
#define CT_BUDGET_SKIP_NS 30u
/* The quiet spell doubles each time a function steps back up, at most
 * this many times. */
#define CT_BUDGET_MAX_BACKOFF 4
/* Windows in a row whose every thread stays under half the budget before
 * the last function stepped down is stepped back up. */
#define CT_BUDGET_QUIET_WINDOWS 5
/* Functions a window keeps the events of, to find the hottest (the others
 * of the window are not candidates). */
#define CT_BUDGET_TRACK 1024
/* Functions stepped down and not yet back (the others stay where they are). */
#define CT_BUDGET_STACK 256

typedef struct ct_budget_io {
    void (*emit)(const uint8_t *rec, size_t len); /* a record into the trace */
    int to_stderr;                                /* a line on stderr for each step (not
                                                     under attach: the process's stderr
                                                     is its own); the text log has the
                                                     record's (views/render.c) */
    /* Under attach with the IL engine: a function's code restored, or
     * rewritten again (NULL: none). */
    void (*untrace)(const ct_mapped_fn *f);
    void (*retrace)(const ct_mapped_fn *f);
} ct_budget_io;

/* Sets the outputs; pct: --max-overhead (0: no budget, the limits only). */
void ct_budget_setup(const ct_budget_io *io, uint32_t pct);
/* An event of function key (an ENTER counts the call) on b's thread. */
void ct_budget_event(ct_tbuf *b, uint64_t key, int enter);
/* The calls b's thread left out since the last take, into their functions'
 * counts (before its buffer is freed, and at each window). */
void ct_budget_take(ct_tbuf *b);
/* Once per writer round: a new window when one has passed (now: the clock). */
void ct_budget_tick(uint64_t now);
/* At the end: the last counts as records. */
void ct_budget_finish(uint64_t now);
/* After the end (the writer finished): one line for the CLI under attach,
 * "budget 5%: 7 steps (Svc.Handlers.Add untraced); 1211068 calls not
 * recorded", into out (empty when the budget and the limits did nothing). */
void ct_budget_report(char *out, size_t cap);

#endif
