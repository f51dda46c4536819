/* A single-producer, single-consumer byte ring of whole records: what one
 * traced thread writes and the writer thread reads (docs/tracer.md, "How
 * events travel").
 *
 * Records are trace records (src/format/event.h encoding: a u8 type,
 * a u8, a u16, a u32 payload length, the payload), each rounded up to
 * CT_RING_ALIGN bytes and never split by the ring's end: a record that would
 * cross it is preceded by a filler (type CT_RING_PAD) to the end. The
 * producer appends and publishes `head` with a release store; the consumer
 * reads up to that head and publishes `tail` the same way. Positions are
 * byte counts that only grow; the ring's size is a power of two, so a
 * position's place is `pos & (cap - 1)`.
 *
 * No lock, no allocation, no system call in the common case. When a record
 * does not fit, the producer wakes the consumer and waits for room as long
 * as the consumer is running (lossless), or gives up at once (lossy): the
 * waiting policy is set once by ct_ring_setup. */
#ifndef CLRTRACE_RING_H
#define CLRTRACE_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Records start at multiples of this in the ring. */
#define CT_RING_ALIGN 8u
/* How far ahead of its head the producer asks for ring lines to write
 * (ct_ring_commit). */
#define CT_RING_PREFETCH 4096u
/* The record type of the filler that skips to the ring's start. */
#define CT_RING_PAD 0xFFu
/* Smallest ring: room for one filler and one largest record. */
#define CT_RING_MIN_BYTES 64u
/* A full ring (lossless mode): the producer spins this many times, then
 * yields this many times, then sleeps CT_FULL_SLEEP_NS at a time until the
 * consumer has made room (or has stopped). */
#define CT_FULL_SPINS 200
#define CT_FULL_YIELDS 50
#define CT_FULL_SLEEP_NS 50000L

typedef struct ct_ring {
    /* Set once, read by both sides. */
    uint8_t *mem;                 /* cap bytes */
    size_t cap;                   /* a power of two, at least CT_RING_MIN_BYTES */
    size_t record_max;            /* largest record: at most cap / 2 */

    /* The producer's side, on a line of its own. */
    _Alignas(64) uint64_t whead;  /* bytes written (the producer's copy of head) */
    uint64_t tail_seen;           /* the last tail read */
    _Atomic uint64_t held;        /* ns the producer was held by the tracer: waiting
                                     for room (ct_ring_wait) and what its engine
                                     adds (ct_ring_hold); only grows; written by the
                                     producer, read by the consumer */
    _Atomic uint64_t jit;         /* of held, JIT compilation (ct_ring_hold_jit) */

    /* Shared, each on its own cache line. */
    _Alignas(64) _Atomic uint64_t head; /* bytes the consumer may read */
    /* Set by the producer while it is making a record (inside a hook, from
     * before it reads the record's time): the consumer's merge takes no
     * other ring's record later than this ring's last while it is set
     * (writer.h). Beside head: the line the consumer reads each round. */
    _Atomic int making;
    _Alignas(64) _Atomic uint64_t tail; /* bytes the consumer has released */
    _Atomic int kicked;           /* the consumer was woken for this ring */
} ct_ring;

/* The waiting policy of every ring: lossy (give up when full), how to wake
 * the consumer, and whether the consumer has stopped (a waiting producer
 * then gives up). Called once before any ring is used. */
void ct_ring_setup(int lossy, void (*wake)(void), int (*stopped)(void));

/* Makes r a ring over mem[0..cap) (cap a power of two, at least
 * CT_RING_MIN_BYTES) for records up to record_max bytes (at most cap / 2). */
void ct_ring_init(ct_ring *r, uint8_t *mem, size_t cap, size_t record_max);

/* A new producer takes over an empty ring (a thread reusing a buffer). */
static inline void ct_ring_take(ct_ring *r)
{
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
}

static inline size_t ct_ring_align(size_t n)
{
    return (n + CT_RING_ALIGN - 1) & ~(size_t)(CT_RING_ALIGN - 1);
}

/* ------------------------------------------------------------ producer */

/* Adds ns to the time the producer was held (the producer only). */
static inline void ct_ring_hold(ct_ring *r, uint64_t ns)
{
    atomic_store_explicit(&r->held, atomic_load_explicit(&r->held, memory_order_relaxed) + ns,
                          memory_order_relaxed);
}

/* Adds ns of JIT compilation: held as the tracer's own time, counted apart
 * (r->jit) so the tracer's figure leaves it out. */
static inline void ct_ring_hold_jit(ct_ring *r, uint64_t ns)
{
    ct_ring_hold(r, ns);
    atomic_store_explicit(&r->jit, atomic_load_explicit(&r->jit, memory_order_relaxed) + ns,
                          memory_order_relaxed);
}

static inline uint64_t ct_ring_held(const ct_ring *r)
{
    return atomic_load_explicit(&((ct_ring *)r)->held, memory_order_relaxed);
}

/* Waits (lossless) or gives up (lossy) until `need` bytes are free: 1 when
 * they are, 0 when the record must be dropped. The slow case of
 * ct_ring_reserve; the time it waits is added to r->held. */
int ct_ring_wait(ct_ring *r, uint64_t need);

/* Wakes the consumer when the ring is past half full (once until it ran). */
void ct_ring_kick(ct_ring *r);

/* Where `len` bytes (len <= r->record_max) of one record may be written, or
 * NULL when it must be dropped (the caller counts it). Pads to the ring's
 * start when the record would cross its end. */
static inline uint8_t *ct_ring_reserve(ct_ring *r, size_t len)
{
    size_t len8 = ct_ring_align(len);
    size_t off = (size_t)(r->whead & (r->cap - 1));
    size_t to_end = r->cap - off;
    uint64_t need = len8 <= to_end ? len8 : to_end + len8;
    if (r->cap - (r->whead - r->tail_seen) < need) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (r->cap - (r->whead - r->tail_seen) < need && !ct_ring_wait(r, need))
            return NULL;
    }
    if (len8 > to_end) {
        /* A filler record to the end: type, reserved, u32 payload length. */
        uint8_t *p = r->mem + off;
        uint32_t plen = (uint32_t)(to_end - 8);
        p[0] = CT_RING_PAD;
        p[1] = p[2] = p[3] = 0;
        __builtin_memcpy(p + 4, &plen, 4);
        r->whead += to_end;
        off = 0;
    }
    return r->mem + off;
}

/* Where a record of up to r->record_max bytes may be built in place (then
 * committed with its real length), or NULL when the ring has not that much
 * room in one piece (the caller builds elsewhere and uses ct_ring_reserve). */
static inline uint8_t *ct_ring_inplace(ct_ring *r)
{
    size_t off = (size_t)(r->whead & (r->cap - 1));
    if (r->cap - off < r->record_max)
        return NULL;
    if (r->cap - (r->whead - r->tail_seen) < r->record_max) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (r->cap - (r->whead - r->tail_seen) < r->record_max)
            return NULL;
    }
    return r->mem + off;
}

/* Whether this CPU has PREFETCHW (CPUID 0x80000001 ECX bit 8, PRFCHW);
 * set by ct_ring_setup. */
extern int ct_ring_prefetchw;

/* A hint that the line holding p is about to be written here. */
static inline void ct_ring_prefetch_write(const uint8_t *p)
{
#if defined(__x86_64__)
    /* __builtin_prefetch(p, 1) is a plain PREFETCHT0 unless the compiler
     * targets PRFCHW; the instruction itself only where CPUID says so. */
    if (ct_ring_prefetchw)
        __asm__ volatile("prefetchw %0" ::"m"(*p));
#elif defined(__GNUC__)
    __builtin_prefetch(p, 1, 3);
#else
    (void)p;
#endif
}

/* Publishes the record of `len` bytes written at the reserved place. */
static inline void ct_ring_commit(ct_ring *r, size_t len)
{
    r->whead += ct_ring_align(len);
    /* The lines the producer writes next were last read by the consumer on
     * another CPU: taking each back for writing, when the record is built,
     * stalled the hooks for about as long as all their other work (full
     * capture 340 -> 180 ns per call, the fast path 105 -> 40, measured
     * side by side: docs/performance.md). So ask for them for writing a
     * few kilobytes ahead, two lines per record (records are mostly under
     * 128 bytes). */
    ct_ring_prefetch_write(r->mem + ((r->whead + CT_RING_PREFETCH) & (r->cap - 1)));
    ct_ring_prefetch_write(r->mem + ((r->whead + CT_RING_PREFETCH + 64) & (r->cap - 1)));
    atomic_store_explicit(&r->head, r->whead, memory_order_release);
    if (r->whead - r->tail_seen > r->cap / 2)
        ct_ring_kick(r);
}

/* ------------------------------------------------------------ consumer */

/* What the producer has published: read records at positions below it. */
static inline uint64_t ct_ring_head(ct_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_acquire);
}

/* Where the consumer is: the first position not released. */
static inline uint64_t ct_ring_tail(ct_ring *r)
{
    return atomic_load_explicit(&r->tail, memory_order_relaxed);
}

/* The record at *pos (pos < end <= head), fillers skipped: its bytes, and
 * its size with padding in *size; NULL when none is left before end (then
 * *pos is end). A record whose length runs past end or the ring's end
 * (never one of ours) ends the read at end. */
const uint8_t *ct_ring_peek(const ct_ring *r, uint64_t *pos, uint64_t end, uint64_t *size);

/* Releases everything before pos to the producer. */
static inline void ct_ring_release(ct_ring *r, uint64_t pos)
{
    atomic_store_explicit(&r->tail, pos, memory_order_release);
}

/* The consumer ran: a later fill wakes it again. */
static inline void ct_ring_rearm(ct_ring *r)
{
    atomic_store_explicit(&r->kicked, 0, memory_order_relaxed);
}

#endif
