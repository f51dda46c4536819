/* The walk of a trace's call stacks (src/views/walk.h), on hand-made
 * record sequences: each expectation follows from the header's text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "views/walk.h"

typedef struct frame {
    ct_stack_frame h;
    uint64_t start;
} frame;

/* The client: what the walk told it, as text. */
typedef struct seen {
    char log[1024];
    size_t len;
    int threads, freed;
    int stop_at_end; /* `end` returns this (0: go on) */
} seen;

typedef struct area {
    uint64_t magic;
    uint32_t opens;
} area;

static void note(seen *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->log + s->len, sizeof s->log - s->len, fmt, ap);
    va_end(ap);
    if (n > 0 && s->len + (size_t)n < sizeof s->log)
        s->len += (size_t)n;
}

static int on_thread(void *ctx, ct_walk_thread *t)
{
    seen *s = ctx;
    s->threads++;
    area *a = t->user;
    assert_non_null(a);
    assert_true(a->magic == 0 && a->opens == 0); /* zeroed */
    a->magic = 0xC0FFEE;
    return 0;
}

static void on_thread_free(void *ctx, ct_walk_thread *t)
{
    seen *s = ctx;
    assert_true(((area *)t->user)->magic == 0xC0FFEE);
    s->freed++;
}

static int on_open(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth, const ct_rec *rec,
                   int nomem)
{
    seen *s = ctx;
    frame *f = fp;
    assert_int_equal(nomem, 0);
    assert_int_equal(depth + 1, t->stack.depth);
    ((area *)t->user)->opens++;
    if (!f) {
        note(s, "+%llu@%u! ", (unsigned long long)rec->key, depth);
        return 0;
    }
    assert_true(f->h.key == rec->key);
    assert_true(f->start == 0); /* zeroed */
    f->start = t->now;
    note(s, "+%llu@%u ", (unsigned long long)rec->key, depth);
    return 0;
}

static int on_end(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth, ct_walk_end how,
                  uint64_t end_ns, const ct_rec *rec)
{
    static const char *const ways[] = { "ret", "exc", "tail", "missed", "open" };
    seen *s = ctx;
    frame *f = fp;
    assert_int_equal(depth + 1, t->stack.depth);
    assert_true((how == CT_WALK_OPEN) == (rec == NULL));
    if (!f) {
        note(s, "-?@%u:%s ", depth, ways[how]);
        return s->stop_at_end;
    }
    assert_true(f == ct_stack_top(&t->stack));
    assert_true(end_ns >= f->start);
    frame *caller = ct_walk_caller(t);
    note(s, "-%llu@%u:%s/%llu<%llu ", (unsigned long long)f->h.key, depth, ways[how],
         (unsigned long long)(end_ns - f->start),
         (unsigned long long)(caller ? caller->h.key : 0));
    return s->stop_at_end;
}

static int on_unmatched(void *ctx, ct_walk_thread *t, uint32_t depth, const ct_rec *rec)
{
    seen *s = ctx;
    assert_int_equal(depth, t->stack.depth);
    note(s, "?%llu@%u ", (unsigned long long)rec->key, depth);
    return 0;
}

static const ct_walk_ops k_ops = { .thread = on_thread, .thread_free = on_thread_free,
                                   .open = on_open, .end = on_end,
                                   .unmatched = on_unmatched };

static void walk_init(ct_walk *w, seen *s, uint32_t max)
{
    memset(s, 0, sizeof *s);
    ct_walk_init(w, &k_ops, s, sizeof(frame), max, sizeof(area));
}

static int rec_on(ct_walk *w, ct_rec_type type, uint64_t tid, uint64_t key, uint64_t t)
{
    ct_rec r = { .type = type, .key = key, .time_ns = t, .tid = tid };
    return ct_walk_record(w, &r);
}

static void ev(ct_walk *w, ct_rec_type type, uint64_t key, uint64_t t)
{
    assert_int_equal(rec_on(w, type, 7, key, t), 0);
}

static void test_calls_pair_and_nest(void **state)
{
    (void)state;
    seen s;
    ct_walk w;
    walk_init(&w, &s, 100);
    ev(&w, CT_REC_ENTER, 1, 10);
    ev(&w, CT_REC_ENTER, 2, 20);
    ev(&w, CT_REC_LEAVE, 2, 30);
    ev(&w, CT_REC_ENTER, 3, 31);
    ev(&w, CT_REC_UNWIND, 3, 35);
    ev(&w, CT_REC_ENTER, 1, 36); /* recursion: the inner 1 ends first */
    ev(&w, CT_REC_TAILCALL, 1, 40);
    ev(&w, CT_REC_LEAVE, 1, 50);
    assert_string_equal(s.log, "+1@0 +2@1 -2@1:ret/10<1 +3@1 -3@1:exc/4<1 +1@1 -1@1:tail/4<1 "
                               "-1@0:ret/40<0 ");
    assert_int_equal(s.threads, 1);
    assert_int_equal(w.first->stack.depth, 0);
    assert_int_equal(((area *)w.first->user)->opens, 4);
    ct_walk_free(&w);
    assert_int_equal(s.freed, 1);
}

static void test_time_never_goes_back(void **state)
{
    (void)state;
    seen s;
    ct_walk w;
    walk_init(&w, &s, 100);
    ev(&w, CT_REC_ENTER, 1, 100);
    ev(&w, CT_REC_ENTER, 2, 90); /* taken at 100 */
    ev(&w, CT_REC_LEAVE, 2, 95);
    ev(&w, CT_REC_LEAVE, 1, 120);
    assert_string_equal(s.log, "+1@0 +2@1 -2@1:ret/0<1 -1@0:ret/20<0 ");
    assert_true(w.first->now == 120);
    ct_walk_free(&w);
}

static void test_missed_and_unmatched_ends(void **state)
{
    (void)state;
    seen s;
    ct_walk w;
    walk_init(&w, &s, 100);
    ev(&w, CT_REC_ENTER, 1, 10);
    ev(&w, CT_REC_ENTER, 2, 20);
    ev(&w, CT_REC_ENTER, 3, 25);
    /* 1 ends while 2 and 3 are open: their ends were missed, each closed
     * at 1's end, the innermost first, each over its callers. */
    ev(&w, CT_REC_LEAVE, 1, 40);
    /* An end with no open call of its function: nothing closes. */
    ev(&w, CT_REC_LEAVE, 2, 41);
    ev(&w, CT_REC_ENTER, 3, 42);
    ev(&w, CT_REC_LEAVE, 1, 43);
    assert_string_equal(s.log, "+1@0 +2@1 +3@2 -3@2:missed/15<2 -2@1:missed/20<1 "
                               "-1@0:ret/30<0 ?2@0 +3@0 ?1@1 ");
    assert_int_equal(w.first->stack.depth, 1);
    ct_walk_free(&w);
}

/* max_frames deep, every call is kept; one more is not, nor a call above
 * it; ends while unkept calls are open close them, unchecked. */
static void test_max_frames_at_and_past_the_limit(void **state)
{
    (void)state;
    enum { MAX = 40 };
    seen s;
    ct_walk w;
    for (uint32_t extra = 0; extra <= 2; extra++) {
        walk_init(&w, &s, MAX);
        for (uint32_t i = 0; i < MAX + extra; i++)
            ev(&w, CT_REC_ENTER, 1 + i % 2, 10 + i);
        ct_walk_thread *t = w.first;
        assert_int_equal(t->stack.depth, MAX + extra);
        assert_int_equal(t->stack.kept, MAX);
        s.len = 0;
        s.log[0] = '\0';
        /* The unkept ones close whatever their records say. */
        for (uint32_t i = 0; i < extra; i++)
            ev(&w, CT_REC_LEAVE, 99, 200);
        if (extra == 0)
            assert_string_equal(s.log, "");
        else if (extra == 1)
            assert_string_equal(s.log, "-?@40:ret ");
        else
            assert_string_equal(s.log, "-?@41:ret -?@40:ret ");
        s.len = 0;
        s.log[0] = '\0';
        /* The innermost kept call ends: kept ones are checked again. */
        ev(&w, CT_REC_LEAVE, 2, 300);
        assert_string_equal(s.log, "-2@39:ret/251<1 ");
        assert_int_equal(t->stack.depth, MAX - 1);
        ct_walk_free(&w);
    }
    /* The last kept call and the first unkept one, as `open` sees them. */
    walk_init(&w, &s, 2);
    ev(&w, CT_REC_ENTER, 1, 1);
    ev(&w, CT_REC_ENTER, 2, 2);
    ev(&w, CT_REC_ENTER, 3, 3);
    assert_string_equal(s.log, "+1@0 +2@1 +3@2! ");
    ct_walk_free(&w);
}

static void test_close_and_end_record(void **state)
{
    (void)state;
    seen s;
    ct_walk w;
    walk_init(&w, &s, 2);
    ev(&w, CT_REC_ENTER, 1, 10);
    assert_int_equal(rec_on(&w, CT_REC_ENTER, 8, 2, 11), 0); /* a second thread */
    ev(&w, CT_REC_ENTER, 2, 20);
    ev(&w, CT_REC_ENTER, 3, 30); /* not kept */
    /* Thread by thread in first-seen order, from the innermost. */
    s.len = 0;
    assert_int_equal(ct_walk_close(&w, 99), 0);
    assert_string_equal(s.log, "-?@2:open -2@1:open/79<1 -1@0:open/89<0 -2@0:open/88<0 ");
    assert_int_equal(s.threads, 2);
    assert_true(w.first->tid == 7 && w.first->next->tid == 8 && w.last->tid == 8);
    /* DROPPED: the walk's count, and the thread's when it exists. */
    assert_int_equal(rec_on(&w, CT_REC_DROPPED, 7, 0, 0), 0);
    ct_rec drop = { .type = CT_REC_DROPPED, .tid = 7, .count = 3 };
    assert_int_equal(ct_walk_record(&w, &drop), 0);
    drop.tid = 9;
    assert_int_equal(ct_walk_record(&w, &drop), 0);
    assert_true(w.dropped == 6 && w.first->dropped == 3 && w.last->dropped == 0);
    assert_null(ct_walk_find(&w, 9));
    /* After END nothing is followed. */
    s.len = 0;
    s.log[0] = '\0';
    assert_int_equal(rec_on(&w, CT_REC_END, 0, 0, 100), 0);
    ev(&w, CT_REC_ENTER, 1, 101);
    assert_int_equal(ct_walk_record(&w, &drop), 0);
    assert_string_equal(s.log, "");
    assert_true(w.dropped == 6 && w.ended);
    ct_walk_free(&w);
    assert_int_equal(s.freed, 2);
}

/* A callback's non-zero value stops the walk at once; the frame it was
 * told of is popped all the same. */
static void test_callback_stops_the_walk(void **state)
{
    (void)state;
    seen s;
    ct_walk w;
    walk_init(&w, &s, 100);
    ev(&w, CT_REC_ENTER, 1, 10);
    ev(&w, CT_REC_ENTER, 2, 20);
    ev(&w, CT_REC_ENTER, 3, 30);
    s.stop_at_end = 5;
    assert_int_equal(rec_on(&w, CT_REC_LEAVE, 7, 1, 40), 5);
    assert_string_equal(s.log, "+1@0 +2@1 +3@2 -3@2:missed/10<2 ");
    assert_int_equal(w.first->stack.depth, 2);
    assert_int_equal(ct_walk_close(&w, 50), 5);
    assert_int_equal(w.first->stack.depth, 1);
    ct_walk_free(&w);
}

/* No ops, no thread area: the walk still follows the stacks. */
static int refuse(void *ctx, ct_walk_thread *t)
{
    (void)ctx;
    assert_null(t->user);
    return -1;
}

static void test_bare_walk_and_refused_thread(void **state)
{
    (void)state;
    ct_walk w;
    ct_walk_init(&w, NULL, NULL, 1, 4, 0);
    assert_int_equal(rec_on(&w, CT_REC_ENTER, 7, 1, 1), 0);
    assert_int_equal(rec_on(&w, CT_REC_LEAVE, 7, 2, 2), 0);
    assert_int_equal(w.first->stack.depth, 1);
    assert_true(w.first->stack.frame_size == sizeof(ct_stack_frame));
    assert_int_equal(ct_walk_close(&w, 3), 0);
    assert_int_equal(w.first->stack.depth, 0);
    ct_walk_free(&w);
    ct_walk_ops ops = { .thread = refuse };
    ct_walk_init(&w, &ops, NULL, sizeof(frame), 4, 0);
    assert_int_equal(rec_on(&w, CT_REC_ENTER, 7, 1, 1), -1);
    assert_null(w.first);
    assert_null(ct_walk_find(&w, 7));
    ct_walk_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_pair_and_nest),
        cmocka_unit_test(test_time_never_goes_back),
        cmocka_unit_test(test_missed_and_unmatched_ends),
        cmocka_unit_test(test_max_frames_at_and_past_the_limit),
        cmocka_unit_test(test_close_and_end_record),
        cmocka_unit_test(test_callback_stops_the_walk),
        cmocka_unit_test(test_bare_walk_and_refused_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
