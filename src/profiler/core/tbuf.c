#include "tbuf.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "writer.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(ct_tbuf *) g_first;
static size_t g_ring_bytes = (size_t)CT_DEFAULT_RING_KB * 1024;
static int g_lossy;

void ct_tbuf_setup(uint32_t ring_kb, int lossy)
{
    if (ring_kb < CT_MIN_RING_KB)
        ring_kb = CT_MIN_RING_KB;
    if (ring_kb > CT_MAX_RING_KB)
        ring_kb = CT_MAX_RING_KB;
    /* A power of two: positions wrap with a mask. */
    size_t bytes = (size_t)ring_kb * 1024, p2 = 1;
    while (p2 * 2 <= bytes)
        p2 *= 2;
    g_ring_bytes = p2;
    g_lossy = lossy;
}

ct_tbuf *ct_tbuf_first(void)
{
    return atomic_load_explicit(&g_first, memory_order_acquire);
}

static void reset_owner(ct_tbuf *b, uint64_t tid)
{
    b->tid = tid;
    b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
    atomic_store_explicit(&b->busy, 0, memory_order_relaxed);
    b->depth = 0;
    memset(b->dropped_frames, 0, sizeof b->dropped_frames);
    b->stack_lo = b->stack_hi = 0;
    memset(b->class_cache, 0, sizeof b->class_cache);
}

ct_tbuf *ct_tbuf_acquire(uint64_t tid, int with_scratch)
{
    pthread_mutex_lock(&g_lock);
    ct_tbuf *b = atomic_load_explicit(&g_first, memory_order_relaxed);
    for (; b; b = b->next)
        if (atomic_load_explicit(&b->state, memory_order_acquire) == CT_TBUF_FREE &&
            (b->scratch || !with_scratch))
            break;
    if (b) {
        /* Empty (the writer frees only drained buffers): head == tail. */
        reset_owner(b, tid);
        atomic_store_explicit(&b->state, CT_TBUF_IN_USE, memory_order_release);
        pthread_mutex_unlock(&g_lock);
        return b;
    }
    b = calloc(1, sizeof *b);
    uint8_t *ring = malloc(g_ring_bytes);
    uint8_t *scratch = with_scratch ? malloc(CT_RECORD_MAX_BYTES) : NULL;
    if (!b || !ring || (with_scratch && !scratch)) {
        pthread_mutex_unlock(&g_lock);
        free(b);
        free(ring);
        free(scratch);
        return NULL;
    }
    b->cap = g_ring_bytes;
    b->record_max = CT_RECORD_MAX_BYTES < b->cap / 2 ? CT_RECORD_MAX_BYTES : b->cap / 2;
    b->ring = ring;
    b->scratch = scratch;
    reset_owner(b, tid);
    atomic_store_explicit(&b->state, CT_TBUF_IN_USE, memory_order_relaxed);
    b->next = atomic_load_explicit(&g_first, memory_order_relaxed);
    atomic_store_explicit(&g_first, b, memory_order_release);
    pthread_mutex_unlock(&g_lock);
    return b;
}

void ct_tbuf_orphan(ct_tbuf *b)
{
    atomic_store_explicit(&b->state, CT_TBUF_ORPHANED, memory_order_release);
    ct_writer_kick();
}

void ct_tbuf_release(ct_tbuf *b)
{
    pthread_mutex_lock(&g_lock);
    if (atomic_load_explicit(&b->state, memory_order_acquire) == CT_TBUF_ORPHANED)
        atomic_store_explicit(&b->state, CT_TBUF_FREE, memory_order_release);
    pthread_mutex_unlock(&g_lock);
}

void ct_tbuf_kick(ct_tbuf *b)
{
    b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
    if (b->whead - b->tail_seen > b->cap / 2 &&
        !atomic_exchange_explicit(&b->kicked, 1, memory_order_relaxed))
        ct_writer_kick();
}

static int has_room(ct_tbuf *b, uint64_t need)
{
    b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
    return b->cap - (b->whead - b->tail_seen) >= need;
}

int ct_tbuf_wait(ct_tbuf *b, uint64_t need)
{
    if (need > b->cap)
        return 0;
    ct_writer_kick();
    if (g_lossy || ct_writer_stopped())
        return 0;
    /* Lossless: wait as long as it takes, as strace does behind a slow
     * reader. Only a writer that has stopped (the trace ended, or its
     * outputs failed and tracing ended with them) lets the event go. */
    for (int i = 0; i < CT_FULL_SPINS; i++) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
        if (has_room(b, need))
            return 1;
    }
    for (int i = 0; i < CT_FULL_YIELDS; i++) {
        sched_yield();
        if (has_room(b, need))
            return 1;
    }
    for (;;) {
        nanosleep(&(struct timespec){0, CT_FULL_SLEEP_NS}, NULL);
        if (has_room(b, need))
            return 1;
        if (ct_writer_stopped())
            return 0;
        ct_writer_kick();
    }
}
