/* The writer thread: drains the per-thread buffers (tbuf.h) and the queue of
 * FUNCTION records, merges the events of all threads by time (within what
 * it has), names the classes of object values (CLASS records, the first
 * time each class id is seen), and writes the binary trace and/or feeds the
 * renderer (src/views/render.h) for the live text log. Both outputs
 * receive the same records in the same order, so the text log and `clrtrace
 * replay` of the binary trace are the same text.
 *
 * The bench-only naive mode (CLRTRACE_BENCH_NAIVE=1) has no thread: each
 * event is rendered and written by the hook itself, under one lock, one
 * write(2) per line — the "writes continuously to a file" design the
 * benchmark compares against. */
#ifndef CLRTRACE_WRITER_H
#define CLRTRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "views/treefilter.h"
#include "agent/model/registry.h"

/* Set by a producer in byte 1 of an event record in its ring (0 in the
 * trace format; the writer clears it): the record's values name a class
 * that this thread's earlier records did not. The writer looks for class
 * ids (to write each class's CLASS record once, before the first event
 * that names it) only in marked records and in UNWIND records: a class an
 * unmarked record names was in a marked record of the same thread before. */
#define CT_EVENT_NEW_CLASSES 1u

/* The writer sleeps this long when a round found nothing, doubling up to
 * CT_WRITER_IDLE_MAX_NS while it stays idle; a buffer past half full wakes
 * it at once. */
#define CT_WRITER_IDLE_NS 1000000L
#define CT_WRITER_IDLE_MAX_NS 16000000L
/* The merge writes the threads' events in time order (a watermark): a
 * round writes an event only once no thread can still publish an earlier
 * one. A thread inside a hook (ct_ring.making) may publish one no earlier
 * than the last it published; a thread outside one, none earlier than the
 * round's start less CT_WRITER_ORDER_SLACK_NS (the time its flag takes to
 * be seen; a hook marks its thread before it reads the time). The rest
 * waits for the next round, but never longer than CT_WRITER_ORDER_WAIT_NS
 * without the watermark moving (a thread held inside a hook): then a round
 * writes what it has, as it comes. */
#define CT_WRITER_ORDER_SLACK_NS 50000ull
#define CT_WRITER_ORDER_WAIT_NS 500000000ull
/* The binary trace is written in blocks of this size. */
#define CT_WRITER_FILE_BUFFER (1u << 20)
/* A full block is compressed this many bytes at a time, one piece per turn
 * of the writer's loop, while the next fills (compressing a whole block at
 * once held the writer long enough for the threads' rings to fill). */
#define CT_WRITER_ZSTD_PIECE (64u * 1024u)
/* Largest EVENTS record the writer builds (a run of one thread's events). */
#define CT_WRITER_BLOCK_BYTES (64u * 1024u)
/* At the end, the writer is waited for as long as it makes progress (a slow
 * reader delays the end as it delays the program); after this long without
 * any, the end of the trace is given up. */
#define CT_WRITER_STALL_NS 10000000000ull
#define CT_WRITER_STOP_POLL_NS 50000000L
/* What is written reaches the file at least this often (whole records): a
 * killed process leaves a trace that ends at most about this long before
 * its end (docs/tracer.md, "A killed program"). */
#define CT_WRITER_FLUSH_NS 500000000ull
/* The writer frees ring space at least every this many bytes it handles. */
#define CT_WRITER_TAIL_STEP (64u * 1024u)
/* Longest class name put in a CLASS record. */
#define CT_WRITER_CLASS_NAME_MAX 1024
/* Largest CLASS record with its content plan; a larger one is written
 * without the plan (its objects then read <damaged>: never in practice,
 * a plan has at most CT_MAX_OBJECT_FIELDS fields at the top). */
#define CT_WRITER_CLASS_RECORD_MAX (256u * 1024)

typedef struct ct_writer_config {
    int text;                  /* the live text log (out.h) */
    int binary_fd;             /* the binary trace, or -1 */
    const char *binary_path;   /* its name, for messages (NULL: not known here, as
                                  under attach: the CLI opened it) */
    int compress;              /* its records in ZSTD records (event.h) */
    uint64_t max_size;         /* --max-size: the binary trace cut into segment files
                                  of max_size / CT_MAX_SIZE_SEGMENTS bytes, the oldest
                                  deleted (0: one file) */
    int binary_dir;            /* with max_size: the folder of the binary trace (a
                                  descriptor, the caller's: the writer keeps a copy;
                                  segments are made, renamed and deleted there), or -1.
                                  binary_fd stays the caller's too: the writer closes
                                  only the segments it opened */
    const char *binary_name;   /* with max_size: the trace's name in that folder */
    int summary;               /* the summary table at the end of the text */
    int srcline;               /* FUNCTION records carry source locations (model/srcline.h);
                                  the text shows them: 1 from their common folder, 2 whole */
    int naive;                 /* bench only: render in the hook, no thread */
    uint32_t pid, ppid;
    uint64_t start_unix_ns;
    const char *cmdline, *filter, *settings;
    const ct_filter_opts *calls_filter; /* --depth, --min-time, --trigger, --after
                                           (src/views/treefilter.h), or NULL */
    void (*stop_engine)(void);  /* every output failed: the engine stops recording
                                   (its hooks return at once from then on) */
    const char *children_index; /* the root of a launcher's tree: the launcher's index;
                                   the text log ends naming the other traced processes
                                   (outputs.h), or NULL */
    int budget;                 /* --max-overhead, --limit or --rate: budget_control.h */
    int attached;               /* the budget's lines not on the process's stderr */
    uint32_t max_overhead;      /* --max-overhead (0: none) */
    void (*untrace)(const ct_mapped_fn *f); /* budget_control.h's ct_budget_io, or NULL */
    void (*retrace)(const ct_mapped_fn *f);
    void (*tick)(void);         /* every CT_WRITER_FLUSH_NS on the writer's thread (not
                                   while stopping): the recorder's work off the hooks
                                   that no callback may come for, or NULL */
} ct_writer_config;

/* Writes the header and starts the thread (not in naive mode). Returns 0, or
 * -1 when the thread or memory cannot be had (nothing is traced then). */
int ct_writer_start(const ct_writer_config *c);

/* Queues the FUNCTION record of f (at map time, and again when its late
 * plans are bound). */
void ct_writer_define(const ct_mapped_fn *f);

/* A JIT compilation of ns nanoseconds on thread tid: of the traced function
 * key (its JIT record is queued), or of another (key 0: counted in the END's
 * total). */
void ct_writer_jit(uint64_t key, uint64_t ns, uint64_t tid);

/* Queues a THREAD record: OS thread tid is named name (threads.c). */
void ct_writer_thread(uint64_t tid, const char *name);

/* Wakes the writer (a buffer filled up, a thread ended). Cheap when it is
 * already awake. */
void ct_writer_kick(void);

/* 1 once the writer has written its last record (nothing will be drained),
 * or when every output failed (tracing ended): a hook waiting for room
 * gives up. */
int ct_writer_stopped(void);

/* Drains everything, writes the END record (with the mapper's counts), the
 * end of the text log, and flushes. runtime_alive: class names may still be
 * asked of the runtime (0 at process exit without Shutdown). Waits while the
 * writer makes progress (CT_WRITER_STALL_NS); only the first call does
 * anything. */
void ct_writer_stop(uint64_t mapped, uint64_t traced, int runtime_alive);
/* A traced function the IL engine left as it was (its body could not be
 * rewritten): counted in the END record (an atomic add). */
void ct_writer_count_unrewritten(void);

/* The same from a signal handler: only async-signal-safe calls (atomics,
 * futex, clock_gettime, write); the writer thread does the work. */
void ct_writer_stop_from_signal(uint64_t mapped, uint64_t traced);

/* After ct_writer_stop finished the trace: back to the state before
 * ct_writer_start, for the next trace of the process (a later attach
 * session, com/attach_control.c). 0, or -1 when the writer did not finish (it
 * cannot be started again). */
int ct_writer_reset(void);

/* The writer's failure lines of an attached trace (ct_writer_config.attached:
 * the process's stderr is its own), one a line, for the CLI (at most
 * CT_NOTES_BYTES, agent/runtime/notes.h); forgotten at the next start. At start-up
 * they go to stderr. */
void ct_writer_notes(char *out, size_t cap);

/* Naive mode: renders and writes one event record now. */
void ct_writer_naive_event(const uint8_t *rec, size_t len);

#endif
