/* The per-thread ring (src/agent/hookside/ring.h) alone: records of every
 * length through rings of every size, wrapping many times; a producer and a
 * consumer thread at full speed; the lossy and stopped cases. Each record
 * carries its sequence number and a pattern derived from it, so the consumer
 * checks order and content without knowing what was written. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ring.h"

static atomic_int g_wakes;
static atomic_int g_stopped;

static void wake(void)
{
    atomic_fetch_add(&g_wakes, 1);
}

static int stopped(void)
{
    return atomic_load(&g_stopped);
}

/* A record of len bytes (len >= 16): type 1, the payload length, the
 * sequence number, then bytes derived from it. */
static void fill(uint8_t *p, size_t len, uint64_t seq)
{
    uint32_t plen = (uint32_t)(len - 8);
    p[0] = 1;
    p[1] = p[2] = p[3] = 0;
    memcpy(p + 4, &plen, 4);
    memcpy(p + 8, &seq, 8);
    for (size_t i = 16; i < len; i++)
        p[i] = (uint8_t)(seq * 31 + i);
}

/* Checks the record at p (size with padding) is seq's; returns its length. */
static size_t check(const uint8_t *p, uint64_t size, uint64_t seq)
{
    uint32_t plen;
    uint64_t got;
    memcpy(&plen, p + 4, 4);
    memcpy(&got, p + 8, 8);
    assert_int_equal(p[0], 1);
    assert_true(got == seq);
    assert_true(size == ct_ring_align(8 + (size_t)plen));
    for (size_t i = 16; i < 8 + (size_t)plen; i++)
        if (p[i] != (uint8_t)(seq * 31 + i))
            fail_msg("record %llu: byte %zu differs", (unsigned long long)seq, i);
    return 8 + plen;
}

/* Reads every record published, checking sequence numbers from *next. */
static void consume_all(ct_ring *r, uint64_t *next)
{
    uint64_t pos = ct_ring_tail(r), end = ct_ring_head(r), size;
    const uint8_t *p;
    while ((p = ct_ring_peek(r, &pos, end, &size))) {
        check(p, size, (*next)++);
        pos += size;
    }
    assert_true(pos == end);
    ct_ring_release(r, pos);
}

static void test_every_length_through_every_size(void **state)
{
    (void)state;
    ct_ring_setup(1, wake, stopped); /* lossy: a full ring says so at once */
    for (size_t cap = CT_RING_MIN_BYTES; cap <= 4096; cap *= 2) {
        uint8_t *mem = malloc(cap);
        assert_non_null(mem);
        for (size_t len = 16; len <= cap / 2; len++) {
            ct_ring r;
            ct_ring_init(&r, mem, cap, cap / 2);
            uint64_t seq = 0, next = 0;
            /* Past the end many times, at every offset the length gives. */
            while (r.whead < 5 * cap + 3 * len) {
                uint8_t *p = ct_ring_reserve(&r, len);
                if (!p) {
                    /* Full (an empty ring always has room for a record of
                     * at most cap / 2): drain it. */
                    assert_true(r.whead != ct_ring_tail(&r));
                    consume_all(&r, &next);
                    continue;
                }
                /* Never across the ring's end. */
                assert_true((size_t)(p - mem) + len <= cap);
                fill(p, len, seq++);
                ct_ring_commit(&r, len);
                if (seq % 3 == 0)
                    consume_all(&r, &next);
            }
            consume_all(&r, &next);
            assert_true(next == seq);
        }
        free(mem);
    }
}

static void test_lossy_full_and_stopped(void **state)
{
    (void)state;
    uint8_t mem[256];
    ct_ring r;
    ct_ring_setup(1, wake, stopped);
    ct_ring_init(&r, mem, sizeof mem, 128);
    /* 256 bytes: eight 32-byte records fit, the ninth does not (lossy). */
    for (int i = 0; i < 8; i++) {
        uint8_t *p = ct_ring_reserve(&r, 32);
        assert_non_null(p);
        fill(p, 32, (uint64_t)i);
        ct_ring_commit(&r, 32);
    }
    atomic_store(&g_wakes, 0);
    assert_null(ct_ring_reserve(&r, 32));
    assert_true(atomic_load(&g_wakes) >= 1); /* the consumer was woken */
    assert_null(ct_ring_inplace(&r));
    uint64_t next = 0;
    consume_all(&r, &next);
    assert_true(next == 8);
    assert_non_null(ct_ring_inplace(&r));
    /* Lossless, but the consumer has stopped: a full ring gives up. */
    ct_ring_setup(0, wake, stopped);
    atomic_store(&g_stopped, 1);
    for (int i = 0; i < 8; i++) {
        uint8_t *p = ct_ring_reserve(&r, 32);
        assert_non_null(p);
        fill(p, 32, 8 + (uint64_t)i);
        ct_ring_commit(&r, 32);
    }
    assert_null(ct_ring_reserve(&r, 32));
    atomic_store(&g_stopped, 0);
    /* A record larger than the ring can never fit. */
    assert_int_equal(ct_ring_wait(&r, sizeof mem + 8), 0);
}

/* ------------------------------------------------- two threads */

#define STRESS_RECORDS 400000u

typedef struct stress {
    ct_ring r;
    atomic_int done;
    uint64_t consumed;
    int bad;
} stress;

static void *consumer(void *arg)
{
    stress *s = arg;
    uint64_t next = 0;
    for (;;) {
        int finished = atomic_load(&s->done);
        uint64_t pos = ct_ring_tail(&s->r), end = ct_ring_head(&s->r), size;
        const uint8_t *p;
        while ((p = ct_ring_peek(&s->r, &pos, end, &size))) {
            uint64_t seq;
            memcpy(&seq, p + 8, 8);
            if (seq != next || p[0] != 1) {
                s->bad = 1;
                return NULL;
            }
            uint32_t plen;
            memcpy(&plen, p + 4, 4);
            for (size_t i = 16; i < 8 + (size_t)plen; i++)
                if (p[i] != (uint8_t)(seq * 31 + i)) {
                    s->bad = 1;
                    return NULL;
                }
            next++;
            pos += size;
        }
        ct_ring_release(&s->r, pos);
        ct_ring_rearm(&s->r);
        if (finished && pos == ct_ring_head(&s->r))
            break;
    }
    s->consumed = next;
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    ct_ring_setup(0, wake, stopped); /* lossless: the producer waits */
    atomic_store(&g_stopped, 0);
    static stress s;
    static uint8_t mem[4096];
    ct_ring_init(&s.r, mem, sizeof mem, 1024);
    atomic_store(&s.done, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, consumer, &s), 0);
    uint64_t x = 88172645463325252ull; /* xorshift: lengths 16..1024 */
    for (uint64_t seq = 0; seq < STRESS_RECORDS; seq++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t len = 16 + (size_t)(x % (1024 - 16 + 1));
        uint8_t *p = (seq & 1) ? ct_ring_inplace(&s.r) : NULL;
        if (!p)
            p = ct_ring_reserve(&s.r, len);
        assert_non_null(p); /* lossless: never dropped */
        fill(p, len, seq);
        ct_ring_commit(&s.r, len);
    }
    atomic_store(&s.done, 1);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(s.bad, 0);
    assert_true(s.consumed == STRESS_RECORDS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_length_through_every_size),
        cmocka_unit_test(test_lossy_full_and_stopped),
        cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
