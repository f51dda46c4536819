/* Per-thread event buffers: what the hooks write into and the writer thread
 * drains (docs/tracer.md, "How events travel").
 *
 * Each thread that makes a traced call owns one ct_tbuf: a single-producer,
 * single-consumer byte ring of whole trace records (include/clrtrace/event.h
 * encoding, each rounded up to 8 bytes), plus the hook's own per-thread
 * state. The owner appends records and publishes its head with a release
 * store; the writer thread reads up to that head and publishes its tail the
 * same way. No lock, no allocation, no system call in the common case: a
 * record that does not fit waits for the writer (for as long as it takes:
 * the default mode loses nothing) or, with CLRTRACE_LOSSY=1, is dropped and
 * counted.
 *
 * Buffers live on one append-only list. A thread that ends marks its buffer
 * orphaned; the writer drains it and marks it free; a new thread reuses a
 * free buffer before allocating one. Nothing is ever freed. */
#ifndef CLRTRACE_TBUF_H
#define CLRTRACE_TBUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "argmap.h"
#include "clrtrace/settings.h" /* the ring's size: CT_DEFAULT_RING_KB and its bounds */
/* Largest record the slow-path hooks build (values included); never more
 * than half the ring, so a record always fits after padding to the ring's
 * end. Values that do not fit are captured again with smaller limits. */
#define CT_RECORD_MAX_BYTES (128u * 1024u)
/* Records start at multiples of this in the ring. */
#define CT_RING_ALIGN 8u
/* The record type of the filler that skips to the ring's start. */
#define CT_RING_PAD 0xFFu
/* A full ring (lossless mode): the hook spins this many times, then yields
 * this many times, then sleeps CT_FULL_SLEEP_NS at a time until the writer
 * has made room (or has stopped: the trace ended or its outputs failed). */
#define CT_FULL_SPINS 200
#define CT_FULL_YIELDS 50
#define CT_FULL_SLEEP_NS 50000L
/* Open frames are remembered up to this depth: whether their enter event was
 * dropped (their leave event is dropped too: the call tree stays whole) and
 * their function (the frames an exception leaves are closed with theirs). */
#define CT_DROP_TRACK_FRAMES 4096
/* Bytes of a byref target copied through the checked read. */
#define CT_BOUNCE_BYTES 4096
/* Entries of the per-thread cache of object classes (method table -> ClassID),
 * a power of two. */
#define CT_CLASS_CACHE 64

enum { CT_TBUF_IN_USE = 1, CT_TBUF_ORPHANED = 2, CT_TBUF_FREE = 3 };

typedef struct ct_tbuf {
    /* Set when the buffer is made or taken by a thread; read by both sides
     * (the writer on every record: nothing here changes per event). */
    struct ct_tbuf *next;         /* the list of all buffers */
    size_t cap;                   /* ring bytes (a power of two) */
    size_t record_max;            /* largest record: min(CT_RECORD_MAX_BYTES, cap / 2) */
    uint8_t *ring;
    uint8_t *scratch;             /* CT_RECORD_MAX_BYTES, slow path only */
    uint64_t tid;                 /* OS thread id of the owner */
    _Atomic int state;            /* CT_TBUF_*, changes when a thread takes or leaves it */

    /* The owner thread's side, on lines of its own (no false sharing with
     * what the writer reads). */
    _Alignas(64) uint64_t whead;  /* bytes written (own copy of head) */
    uint64_t tail_seen;           /* last tail read */
    _Atomic int busy;             /* inside a hook (re-entry is dropped) */
    uint32_t depth;               /* open frames (the shadow stack) */
    uint32_t gate;                /* open frames of trigger functions (hooks.c) */
    uint64_t dropped_frames[CT_DROP_TRACK_FRAMES / 64];
    uint64_t frame_keys[CT_DROP_TRACK_FRAMES]; /* each open frame's function key */
    uintptr_t frame_sp[CT_DROP_TRACK_FRAMES];  /* each open frame's caller SP (0: unknown) */
    uintptr_t stack_lo, stack_hi; /* the thread's stack (byref targets) */
    struct {
        uintptr_t mt;             /* an object's method table pointer */
        uint64_t cls;             /* its ClassID */
    } class_cache[CT_CLASS_CACHE];
    uint8_t bounce[CT_BOUNCE_BYTES];
    ct_argmap_snapshot snap;      /* the runtime's frame, while argmap learns */

    /* Shared, each on its own cache line. */
    _Alignas(64) _Atomic uint64_t head; /* bytes the writer may read */
    _Alignas(64) _Atomic uint64_t tail; /* bytes the writer has consumed */
    uint64_t dropped_reported;    /* the writer's: drops written as DROPPED records */
    _Alignas(64) _Atomic uint64_t dropped; /* events dropped on this thread */
    _Atomic int kicked;           /* the writer was woken for this buffer */
} ct_tbuf;

/* Sets the ring size and mode; called once before any hook runs. */
void ct_tbuf_setup(uint32_t ring_kb, int lossy);

/* A buffer for the calling thread (tid): a free one reused, or a new one.
 * NULL when out of memory. with_scratch: the slow path's scratch buffer. */
ct_tbuf *ct_tbuf_acquire(uint64_t tid, int with_scratch);

/* The owner ended: the writer drains the buffer and frees it for reuse. */
void ct_tbuf_orphan(ct_tbuf *b);

/* The first buffer of the list (acquire), for the writer. */
ct_tbuf *ct_tbuf_first(void);

/* Called by the writer once an orphaned buffer is empty. */
void ct_tbuf_release(ct_tbuf *b);

/* Waits (lossless) or gives up (lossy) until `need` bytes are free; returns
 * 1 when they are, 0 when the event must be dropped. Out of line: the slow
 * case of ct_tbuf_reserve. */
int ct_tbuf_wait(ct_tbuf *b, uint64_t need);

/* Wakes the writer when the ring is past half full. */
void ct_tbuf_kick(ct_tbuf *b);

static inline size_t ct_align8(size_t n)
{
    return (n + CT_RING_ALIGN - 1) & ~(size_t)(CT_RING_ALIGN - 1);
}

/* Where `len` bytes (len <= b->record_max) of one record may be written, or
 * NULL when the event must be dropped (the caller counts it). Pads to the
 * ring's start when the record would cross its end. */
static inline uint8_t *ct_tbuf_reserve(ct_tbuf *b, size_t len)
{
    size_t len8 = ct_align8(len);
    size_t off = (size_t)(b->whead & (b->cap - 1));
    size_t to_end = b->cap - off;
    uint64_t need = len8 <= to_end ? len8 : to_end + len8;
    if (b->cap - (b->whead - b->tail_seen) < need) {
        b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
        if (b->cap - (b->whead - b->tail_seen) < need && !ct_tbuf_wait(b, need))
            return NULL;
    }
    if (len8 > to_end) {
        /* A filler record to the end: type, reserved, u32 payload length. */
        uint8_t *p = b->ring + off;
        uint32_t plen = (uint32_t)(to_end - 8);
        p[0] = CT_RING_PAD;
        p[1] = p[2] = p[3] = 0;
        __builtin_memcpy(p + 4, &plen, 4);
        b->whead += to_end;
        off = 0;
    }
    return b->ring + off;
}

/* Where a record of up to b->record_max bytes may be built in place (then
 * committed with its real length), or NULL when the ring has not that much
 * room in one piece (the caller builds elsewhere and uses ct_tbuf_reserve). */
static inline uint8_t *ct_tbuf_inplace(ct_tbuf *b)
{
    size_t off = (size_t)(b->whead & (b->cap - 1));
    if (b->cap - off < b->record_max)
        return NULL;
    if (b->cap - (b->whead - b->tail_seen) < b->record_max) {
        b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
        if (b->cap - (b->whead - b->tail_seen) < b->record_max)
            return NULL;
    }
    return b->ring + off;
}

/* Publishes the record of `len` bytes written at the reserved place. */
static inline void ct_tbuf_commit(ct_tbuf *b, size_t len)
{
    b->whead += ct_align8(len);
    atomic_store_explicit(&b->head, b->whead, memory_order_release);
    if (b->whead - b->tail_seen > b->cap / 2)
        ct_tbuf_kick(b);
}

/* Counts n events dropped on this thread. */
static inline void ct_tbuf_count_drop(ct_tbuf *b, uint64_t n)
{
    atomic_fetch_add_explicit(&b->dropped, n, memory_order_relaxed);
}

#endif
