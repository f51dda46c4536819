#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep (the profiler builds with _GNU_SOURCE) */
#endif
#include "ring.h"

#include "clock.h"

#include <sched.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

int ct_ring_prefetchw;
static int g_lossy;
static void (*g_wake)(void);
static int (*g_stopped)(void);

void ct_ring_setup(int lossy, void (*wake)(void), int (*stopped)(void))
{
    g_lossy = lossy;
    g_wake = wake;
    g_stopped = stopped;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    ct_ring_prefetchw = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c >> 8 & 1);
#endif
}

static void wake(void)
{
    if (g_wake)
        g_wake();
}

static int stopped(void)
{
    return g_stopped && g_stopped();
}

void ct_ring_init(ct_ring *r, uint8_t *mem, size_t cap, size_t record_max)
{
    memset(r, 0, sizeof *r);
    r->mem = mem;
    r->cap = cap;
    r->record_max = record_max < cap / 2 ? record_max : cap / 2;
}

void ct_ring_kick(ct_ring *r)
{
    /* Once kicked, every commit until the consumer has run comes here: a
     * plain load keeps them off the locked exchange, which the consumer's
     * stores to this line made cost more than the rest of a hook. */
    if (atomic_load_explicit(&r->kicked, memory_order_relaxed))
        return;
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (r->whead - r->tail_seen > r->cap / 2 &&
        !atomic_exchange_explicit(&r->kicked, 1, memory_order_relaxed))
        wake();
}

static int has_room(ct_ring *r, uint64_t need)
{
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    return r->cap - (r->whead - r->tail_seen) >= need;
}

static int wait_for_room(ct_ring *r, uint64_t need);

int ct_ring_wait(ct_ring *r, uint64_t need)
{
    if (need > r->cap)
        return 0;
    wake();
    if (g_lossy || stopped())
        return 0;
    uint64_t t0 = ct_now_ns();
    int ok = wait_for_room(r, need);
    uint64_t t1 = ct_now_ns();
    ct_ring_hold(r, t1 > t0 ? t1 - t0 : 0);
    return ok;
}

static int wait_for_room(ct_ring *r, uint64_t need)
{
    /* Lossless: wait as long as it takes, as strace does behind a slow
     * reader. Only a consumer that has stopped (the trace ended, or its
     * outputs failed and tracing ended with them) lets the record go. */
    for (int i = 0; i < CT_FULL_SPINS; i++) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
        if (has_room(r, need))
            return 1;
    }
    for (int i = 0; i < CT_FULL_YIELDS; i++) {
        sched_yield();
        if (has_room(r, need))
            return 1;
    }
    for (;;) {
        nanosleep(&(struct timespec){0, CT_FULL_SLEEP_NS}, NULL);
        if (has_room(r, need))
            return 1;
        if (stopped())
            return 0;
        wake();
    }
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

const uint8_t *ct_ring_peek(const ct_ring *r, uint64_t *pos, uint64_t end, uint64_t *size)
{
    size_t mask = r->cap - 1;
    while (*pos < end) {
        const uint8_t *p = r->mem + (*pos & mask);
        uint64_t n = ct_ring_align(8 + (size_t)rd32(p + 4));
        if (n > end - *pos || n > r->cap - (*pos & mask)) {
            /* Cannot happen with our own records; never loop on it. */
            *pos = end;
            return NULL;
        }
        if (p[0] != CT_RING_PAD) {
            *size = n;
            return p;
        }
        *pos += n;
    }
    return NULL;
}
