#include "tbuf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/pages.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(ct_tbuf *) g_first;
static size_t g_ring_bytes = (size_t)CT_DEFAULT_RING_KB * 1024;
static size_t g_engine_bytes;
static void (*g_wake)(void);
static int (*g_stopped)(void);

void ct_tbuf_consumer(void (*wake)(void), int (*stopped)(void))
{
    g_wake = wake;
    g_stopped = stopped;
}

void ct_tbuf_setup(uint32_t ring_kb, int lossy, size_t engine_bytes)
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
    g_engine_bytes = engine_bytes;
    ct_ring_setup(lossy, g_wake, g_stopped);
}

ct_tbuf *ct_tbuf_first(void)
{
    return atomic_load_explicit(&g_first, memory_order_acquire);
}

static void reset_owner(ct_tbuf *b, uint64_t tid)
{
    b->tid = tid;
    ct_ring_take(&b->ring);
    memset(b->engine, 0, g_engine_bytes);
    /* (the writer took the last owner's counts before it freed the buffer) */
    ct_tbuf_reset_skips(b);
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
    /* The struct's alignment (its atomics on lines of their own) is more
     * than malloc promises. */
    size_t size = sizeof *b + g_engine_bytes;
    size = (size + CT_TBUF_ENGINE_ALIGN - 1) & ~(size_t)(CT_TBUF_ENGINE_ALIGN - 1);
    b = aligned_alloc(CT_TBUF_ENGINE_ALIGN, size);
    uint8_t *ring = malloc(g_ring_bytes);
    uint8_t *scratch = with_scratch ? malloc(CT_RECORD_MAX_BYTES) : NULL;
    if (!b || !ring || (with_scratch && !scratch)) {
        pthread_mutex_unlock(&g_lock);
        free(b);
        free(ring);
        free(scratch);
        return NULL;
    }
    memset(b, 0, size);
    ct_ring_init(&b->ring, ring, g_ring_bytes, CT_RECORD_MAX_BYTES);
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
    if (g_wake)
        g_wake();
}

void ct_tbuf_release(ct_tbuf *b)
{
    pthread_mutex_lock(&g_lock);
    if (atomic_load_explicit(&b->state, memory_order_acquire) == CT_TBUF_ORPHANED)
        atomic_store_explicit(&b->state, CT_TBUF_FREE, memory_order_release);
    pthread_mutex_unlock(&g_lock);
}

void ct_tbuf_reset_skips(ct_tbuf *b)
{
    for (uint32_t i = 0; i <= CT_TBUF_SKIP_SLOTS; i++) {
        atomic_store_explicit(&b->skips[i].key, 0, memory_order_relaxed);
        atomic_store_explicit(&b->skips[i].count, 0, memory_order_relaxed);
        b->skips_taken[i] = 0;
    }
    b->budget_events = b->budget_held = b->budget_dropped = b->budget_skips = 0;
    for (int k = 0; k < 2; k++) {
        atomic_store_explicit(&b->hook_ns[k], 0, memory_order_relaxed);
        atomic_store_explicit(&b->hook_n[k], 0, memory_order_relaxed);
    }
}

void ct_tbuf_trim_all(void)
{
    pthread_mutex_lock(&g_lock);
    for (ct_tbuf *b = atomic_load_explicit(&g_first, memory_order_relaxed); b; b = b->next) {
        ct_pages_release(b->ring.mem, b->ring.cap);
        ct_pages_release(b->scratch, CT_RECORD_MAX_BYTES);
    }
    pthread_mutex_unlock(&g_lock);
}
