/* Per-thread event buffers: what a thread's traced calls write into and the
 * writer thread drains (docs/tracer.md, "How events travel").
 *
 * Each thread that makes a traced call owns one ct_tbuf: its ring (ring.h:
 * a single-producer, single-consumer byte ring of whole trace records), the
 * count of events it dropped (lossy mode), and an engine area: the engine's
 * own per-thread state (the ELT hooks' shadow stack, caches, scratch), of a
 * size the engine gives at setup. The core never looks inside it.
 *
 * Buffers live on one append-only list. A thread that ends marks its buffer
 * orphaned; the writer drains it and marks it free; a new thread reuses a
 * free buffer (its engine area zeroed) before allocating one. Nothing is
 * ever freed. */
#ifndef CLRTRACE_TBUF_H
#define CLRTRACE_TBUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "format/settings.h" /* the ring's size: CT_DEFAULT_RING_KB and its bounds */
#include "ring.h"

/* Largest record an engine builds (values included); never more than half
 * the ring, so a record always fits after padding to the ring's end. Values
 * that do not fit are captured again with smaller limits. */
#define CT_RECORD_MAX_BYTES (128u * 1024u)
/* The engine area's alignment. */
#define CT_TBUF_ENGINE_ALIGN 64u

enum { CT_TBUF_IN_USE = 1, CT_TBUF_ORPHANED = 2, CT_TBUF_FREE = 3 };

/* Functions whose calls a thread counts apart when the budget or the limits
 * leave them out; the others are counted together (key 0). */
#define CT_TBUF_SKIP_SLOTS 16
/* With a budget, one hook in this many is timed (tbuf.hook_ns). */
#define CT_TBUF_MEASURE_EVERY 64

typedef struct ct_tbuf {
    /* Set when the buffer is made or taken by a thread. */
    struct ct_tbuf *next;         /* the list of all buffers */
    uint8_t *scratch;             /* CT_RECORD_MAX_BYTES, when asked for */
    uint64_t tid;                 /* OS thread id of the owner */
    _Atomic int state;            /* CT_TBUF_*, changes when a thread takes or leaves it */
    uint64_t dropped_reported;    /* the writer's: drops written as DROPPED records */
    uint64_t held_reported;       /* the writer's: ring.held written as HELD records */
    /* The writer's: the time of the last event it took (written each run
     * of events it takes: on a line of its own, not the owner's, which
     * reads tid at every event). */
    _Alignas(64) uint64_t merge_last;
    _Alignas(64) _Atomic uint64_t dropped; /* events dropped on this thread */
    /* Calls left out by the budget or the limits, per function key (0: the
     * others), counted by the owner (relaxed stores), read by the writer;
     * and the writer's: the counts it has taken, its events and the held
     * time at the budget's last window (src/agent/writer/budget_control.c). */
    struct {
        _Atomic uint64_t key, count;
    } skips[CT_TBUF_SKIP_SLOTS + 1];
    uint64_t skips_taken[CT_TBUF_SKIP_SLOTS + 1];
    uint64_t budget_events, budget_held, budget_dropped, budget_skips;
    /* With a budget: the owner's hooks timed now and then (one call in
     * CT_TBUF_MEASURE_EVERY), their own time beyond what they held: [0] a
     * recorded event, [1] a call left out (relaxed stores by the owner). */
    _Atomic uint64_t hook_ns[2], hook_n[2];
    uint32_t measure_tick;        /* the owner's */
    ct_ring ring;
    _Alignas(CT_TBUF_ENGINE_ALIGN) unsigned char engine[]; /* the engine's per-thread state */
} ct_tbuf;

/* The buffers' consumer (the writer, writer.h), set once by the composition
 * root (com/profiler.c) before ct_tbuf_setup: wake it (a ring filled up, a
 * thread ended) and whether it has stopped (a producer waiting for room
 * gives up). Passed on to the rings (ct_ring_setup); NULL: nothing is woken,
 * never stopped. */
void ct_tbuf_consumer(void (*wake)(void), int (*stopped)(void));

/* Sets the ring size, the mode, and the bytes of each buffer's engine area;
 * called once before any buffer is taken. */
void ct_tbuf_setup(uint32_t ring_kb, int lossy, size_t engine_bytes);

/* A buffer for the calling thread (tid): a free one reused, or a new one;
 * its engine area is zeroed. NULL when out of memory. with_scratch: a
 * CT_RECORD_MAX_BYTES scratch buffer for records built outside the ring. */
ct_tbuf *ct_tbuf_acquire(uint64_t tid, int with_scratch);

/* The owner ended: the writer drains the buffer and frees it for reuse. */
void ct_tbuf_orphan(ct_tbuf *b);

/* The first buffer of the list (acquire), for the writer. */
ct_tbuf *ct_tbuf_first(void);

/* Called by the writer once an orphaned buffer is empty. */
void ct_tbuf_release(ct_tbuf *b);
/* Between two traces (after an attach session, when the writer has read
 * every ring): each buffer's ring and scratch pages given back to the system
 * (madvise MADV_DONTNEED), so that a process attached to once does not keep
 * a ring's worth of memory for every thread that ran a traced method. The
 * buffers stay (a thread's pointer to its own stays valid); a hook still
 * finishing writes into fresh zero pages. */
void ct_tbuf_trim_all(void);

/* Forgets the calls counted as left out (a new trace begins). */
void ct_tbuf_reset_skips(ct_tbuf *b);

/* Counts n events dropped on this thread. */
static inline void ct_tbuf_count_drop(ct_tbuf *b, uint64_t n)
{
    atomic_fetch_add_explicit(&b->dropped, n, memory_order_relaxed);
}

#endif
