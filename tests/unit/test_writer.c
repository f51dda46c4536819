/* The writer thread (src/agent/writer/writer.c) alone, over the real thread
 * buffers and rings (hookside/tbuf.c, hookside/ring.c) and the real trace format:
 * two threads' events merged by time into a binary trace, a FUNCTION record
 * before the events of its function, a CLASS record written once before the
 * first event that names the class, a DROPPED record with a thread's count,
 * and the END record. The model's class names and content plans are stubs
 * here (they would ask the runtime). The trace is read back with the CLI's
 * reader (format/event.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/hookside/clock.h"
#include "agent/writer/outputs.h"
#include "agent/hookside/tbuf.h"
#include "agent/writer/writer.h"
#include "agent/model/classnames.h"
#include "agent/model/plans/plans.h"
#include "agent/model/srcline.h"
#include "format/event.h"

/* ------------------------------------------------ stubs of the model */

#define CLASS_ID 0x7f0000001000ull
#define CLASS_NAME "Demo.Failure"

static atomic_int g_named;       /* ct_classid_name calls */
static sem_t g_in_name, g_go_on; /* the writer held inside the first one */
static atomic_int g_hold_first;

/* Source locations (--srcline): no module is known here. */
const ct_module *ct_module_get(ModuleID id)
{
    (void)id;
    return NULL;
}

int ct_srcline_method(const ct_module *m, mdToken method, ct_fn_src *out)
{
    (void)m, (void)method, (void)out;
    return -1;
}

int ct_classid_name(ClassID cls, ct_name_style style, char *out, size_t cap)
{
    (void)style;
    if (atomic_fetch_add(&g_named, 1) == 0 && atomic_load(&g_hold_first)) {
        sem_post(&g_in_name);
        sem_wait(&g_go_on);
    }
    if (cls != CLASS_ID)
        return -1;
    snprintf(out, cap, "%s", CLASS_NAME);
    return 0;
}

int ct_method_handle_name(FunctionID fn, char *out, size_t cap)
{
    (void)fn;
    snprintf(out, cap, "?");
    return -1;
}

const ct_plan ct_plan_by_range; /* (plans.h's ct_arg_plan names it) */

const ct_plan *ct_plan_content_known(ClassID cls)
{
    (void)cls;
    return NULL;
}

void ct_outputs_children(const char *index_path, void (*emit)(const char *text, size_t len))
{
    (void)index_path, (void)emit;
}

/* ------------------------------------------------------------ events */

/* How long the test waits for the writer to take the first event. */
#define WRITER_WAIT_S 30

#define TID_A 101u
#define TID_B 102u

static void put_event(ct_tbuf *b, ct_rec_type type, uint64_t time, uint64_t key,
                      const uint8_t *values, uint16_t nvalues, size_t values_len, int mark)
{
    size_t len = CT_EVENT_BASE_BYTES + values_len;
    uint8_t *p = ct_ring_reserve(&b->ring, len);
    assert_non_null(p);
    /* As the recorder lays it out (format/event.h): the held time 0, the
     * ring's memory holds anything before (ASan fills it with 0xbe). */
    ct_event_put_header(p, type, time, 0, b->tid, key);
    ct_event_put_counts(p, nvalues, (uint32_t)(len - 8));
    p[CT_EVENT_MARK_AT] = mark ? CT_EVENT_NEW_CLASSES : 0;
    if (values_len)
        memcpy(p + CT_EVENT_BASE_BYTES, values, values_len);
    ct_ring_commit(&b->ring, len);
}

/* An UNWIND record (docs/trace-format.md): the exception, an object of
 * class CLASS_ID, and its null message. */
static void put_unwind(ct_tbuf *b, uint64_t time, uint64_t key)
{
    uint8_t v[4 + 16 + 4 + 8];
    uint32_t w0 = 16, w1 = 8;
    uint64_t addr = 0x7f0000200000ull + time, cls = CLASS_ID, none = 0;
    memcpy(v, &w0, 4);
    memcpy(v + 4, &addr, 8);
    memcpy(v + 12, &cls, 8);
    memcpy(v + 20, &w1, 4);
    memcpy(v + 24, &none, 8);
    put_event(b, CT_REC_UNWIND, time, key, v, 2, sizeof v, 0);
}

/* ------------------------------------------------------ the trace read */

typedef struct seen {
    ct_rec_type type;
    uint64_t time, tid, key, count;
    char name[64];
} seen;

#define MAX_SEEN 64

/* Reads the trace in fd; returns the records after the header. */
static size_t read_trace(int fd, seen *out, size_t cap, uint64_t *mapped, uint64_t *traced)
{
    off_t size = lseek(fd, 0, SEEK_END);
    assert_true(size > 0);
    uint8_t *data = malloc((size_t)size);
    assert_non_null(data);
    assert_int_equal(pread(fd, data, (size_t)size, 0), size);
    static uint8_t arena_mem[1 << 16];
    ct_rarena arena = {arena_mem, sizeof arena_mem, 0};
    ct_reader r;
    assert_int_equal(ct_reader_open(&r, data, (size_t)size, &arena), CT_TRACE_OK);
    size_t n = 0;
    ct_rec rec;
    int rc;
    while ((rc = ct_reader_next(&r, &rec)) == 1) {
        assert_true(n < cap);
        seen *s = &out[n++];
        memset(s, 0, sizeof *s);
        s->type = rec.type;
        s->time = rec.time_ns;
        s->tid = rec.tid;
        s->key = rec.key;
        s->count = rec.count;
        if (rec.type == CT_REC_FUNCTION || rec.type == CT_REC_CLASS)
            snprintf(s->name, sizeof s->name, "%.*s", (int)rec.name_len, rec.name);
        if (rec.type == CT_REC_END) {
            *mapped = rec.mapped;
            *traced = rec.traced;
        }
    }
    assert_int_equal(rc, 0);
    assert_true(r.ended && !r.incomplete);
    ct_reader_close(&r);
    free(data);
    return n;
}

static int start(int compress)
{
    int fd = memfd_create("trace", 0);
    assert_true(fd >= 0);
    ct_writer_config c = {
        .text = 0,
        .binary_fd = fd,
        .binary_path = "the test's trace",
        .compress = compress,
        .pid = 1234,
        .ppid = 1,
        .cmdline = "demo",
        .filter = "",
        .settings = "test",
    };
    assert_int_equal(ct_writer_start(&c), 0);
    return fd;
}

static int g_set_up;

static int setup(void **state)
{
    (void)state;
    if (!g_set_up) {
        ct_tbuf_consumer(ct_writer_kick, ct_writer_stopped);
        ct_tbuf_setup(CT_MIN_RING_KB, 0, 0);
        sem_init(&g_in_name, 0, 0);
        sem_init(&g_go_on, 0, 0);
        g_set_up = 1;
    }
    atomic_store(&g_named, 0);
    return 0;
}

static void check_merged(int compress)
{
    static const ct_mapped_fn fn = {.id = 1, .hooked = 1, .name = "Demo.Run",
                                    .display = "Demo.Run"};
    const uint64_t key = (uint64_t)(uintptr_t)&fn;
    int fd = start(compress);
    ct_writer_define(&fn);
    ct_tbuf *a = ct_tbuf_acquire(TID_A, 0), *b = ct_tbuf_acquire(TID_B, 0);
    assert_non_null(a);
    assert_non_null(b);

    /* The writer takes the first event (a class it has not seen) and stays
     * inside the class's name until both threads' others are there: it
     * then has them all at once, to merge. */
    atomic_store(&g_hold_first, 1);
    put_unwind(a, 5, key);
    /* Bounded: a writer that never names the class fails the test, never
     * hangs it. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += WRITER_WAIT_S;
    assert_int_equal(sem_timedwait(&g_in_name, &until), 0);
    put_event(a, CT_REC_ENTER, 10, key, NULL, 0, 0, 0);
    put_event(b, CT_REC_ENTER, 20, key, NULL, 0, 0, 0);
    put_event(a, CT_REC_LEAVE, 30, key, NULL, 0, 0, 0);
    put_event(b, CT_REC_ENTER, 40, key, NULL, 0, 0, 0);
    put_unwind(a, 50, key); /* the same class: no second CLASS record */
    put_unwind(b, 60, key);
    put_event(b, CT_REC_LEAVE, 70, key, NULL, 0, 0, 0);
    ct_tbuf_count_drop(b, 3);
    sem_post(&g_go_on);
    atomic_store(&g_hold_first, 0);

    ct_tbuf_orphan(a);
    ct_tbuf_orphan(b);
    ct_writer_stop(7, 5, 1);

    seen recs[MAX_SEEN];
    uint64_t mapped = 0, traced = 0;
    size_t n = read_trace(fd, recs, MAX_SEEN, &mapped, &traced);
    static const uint64_t times[] = {5, 10, 20, 30, 40, 50, 60, 70};
    static const uint64_t tids[] = {TID_A, TID_A, TID_B, TID_A, TID_B, TID_A, TID_B, TID_B};
    size_t nev = 0, nclass = 0, ndropped = 0, nfn = 0, nend = 0;
    for (size_t i = 0; i < n; i++) {
        const seen *s = &recs[i];
        if (ct_rec_is_event(s->type)) {
            assert_true(nev < sizeof times / sizeof *times);
            assert_true(s->time == times[nev] && s->tid == tids[nev]);
            assert_true(s->key == key);
            assert_int_equal(nfn, 1);    /* the FUNCTION record came first */
            if (s->type == CT_REC_UNWIND)
                assert_int_equal(nclass, 1); /* and the CLASS record */
            nev++;
        } else if (s->type == CT_REC_FUNCTION) {
            assert_true(s->key == key);
            assert_string_equal(s->name, "Demo.Run");
            nfn++;
        } else if (s->type == CT_REC_CLASS) {
            assert_true(s->key == CLASS_ID);
            assert_string_equal(s->name, CLASS_NAME);
            nclass++;
        } else if (s->type == CT_REC_DROPPED) {
            assert_true(s->tid == TID_B && s->count == 3);
            ndropped++;
        } else if (s->type == CT_REC_END) {
            assert_int_equal(i, n - 1);
            nend++;
        }
    }
    assert_int_equal(nev, sizeof times / sizeof *times);
    assert_int_equal(nfn, 1);
    assert_int_equal(nclass, 1);
    assert_int_equal(atomic_load(&g_named), 1);
    assert_int_equal(ndropped, 1);
    assert_int_equal(nend, 1);
    assert_true(mapped == 7 && traced == 5);
    assert_int_equal(ct_writer_stopped(), 1);
    assert_int_equal(ct_writer_reset(), 0);
    close(fd);
}

static void test_merged_by_time(void **state)
{
    (void)state;
    check_merged(0);
}

/* The same again after a reset (an attached process's next session), the
 * trace compressed: the buffers are reused, the CLASS record is written
 * again (a new trace). */
static void test_again_compressed(void **state)
{
    (void)state;
    check_merged(1);
}

/* Waits (bounded) until the writer took everything b's ring holds. */
static void wait_taken(ct_tbuf *b)
{
    for (int i = 0; i < WRITER_WAIT_S * 1000 && ct_ring_tail(&b->ring) != ct_ring_head(&b->ring);
         i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    assert_true(ct_ring_tail(&b->ring) == ct_ring_head(&b->ring));
}

/* The watermark (issue 35): an event stamped before another thread's but
 * published after it (B inside a hook since its time t0 + 500, A's event
 * at t0 + 1000 published meanwhile) still comes first: the writer holds
 * A's while B is inside a hook, for at most CT_WRITER_ORDER_WAIT_NS. */
static void test_time_order_across_threads(void **state)
{
    (void)state;
    static const ct_mapped_fn fn = {.id = 1, .hooked = 1, .name = "Demo.Run",
                                    .display = "Demo.Run"};
    const uint64_t key = (uint64_t)(uintptr_t)&fn;
    int fd = start(0);
    ct_writer_define(&fn);
    ct_tbuf *a = ct_tbuf_acquire(TID_A, 0), *b = ct_tbuf_acquire(TID_B, 0);
    assert_non_null(a);
    assert_non_null(b);
    uint64_t t0 = ct_now_ns();
    put_event(b, CT_REC_ENTER, t0, key, NULL, 0, 0, 0);
    ct_writer_kick();
    wait_taken(b);
    atomic_store(&b->ring.making, 1);            /* B: inside a hook, its time t0 + 500 */
    put_event(a, CT_REC_ENTER, t0 + 1000, key, NULL, 0, 0, 0);
    ct_writer_kick();
    nanosleep(&(struct timespec){0, 20000000}, NULL); /* rounds meanwhile */
    /* Held, not taken, while B is inside its hook (well within the wait). */
    assert_true(ct_ring_tail(&a->ring) != ct_ring_head(&a->ring));
    put_event(b, CT_REC_LEAVE, t0 + 500, key, NULL, 0, 0, 0);
    atomic_store(&b->ring.making, 0);
    ct_writer_kick();
    wait_taken(a);
    ct_tbuf_orphan(a);
    ct_tbuf_orphan(b);
    ct_writer_stop(1, 1, 1);
    seen recs[MAX_SEEN];
    uint64_t mapped = 0, traced = 0;
    size_t n = read_trace(fd, recs, MAX_SEEN, &mapped, &traced), nev = 0;
    const uint64_t times[] = {t0, t0 + 500, t0 + 1000};
    for (size_t i = 0; i < n; i++)
        if (ct_rec_is_event(recs[i].type)) {
            assert_true(nev < 3);
            assert_true(recs[i].time == times[nev]);
            nev++;
        }
    assert_int_equal(nev, 3);
    assert_int_equal(ct_writer_reset(), 0);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_merged_by_time, setup),
        cmocka_unit_test_setup(test_again_compressed, setup),
        cmocka_unit_test_setup(test_time_order_across_threads, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
