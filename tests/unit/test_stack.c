/* The call-stack rule (src/views/stack.h), on hand-made sequences:
 * each expectation follows from the rule's text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "views/stack.h"

typedef struct frame {
    ct_stack_frame h;
    uint64_t start;
} frame;

static frame *push(ct_stack *s, uint64_t key, uint64_t start)
{
    int nomem = 0;
    frame *f = ct_stack_push(s, key, &nomem);
    assert_int_equal(nomem, 0);
    if (f) {
        assert_true(f->h.key == key);
        assert_true(f->start == 0); /* zeroed */
        f->start = start;
    }
    return f;
}

static void test_nested_calls_close_innermost_first(void **state)
{
    (void)state;
    ct_stack s;
    ct_stack_init(&s, sizeof(frame), 100);
    push(&s, 1, 10);
    push(&s, 2, 20);
    push(&s, 1, 30); /* recursion: 1 inside 2 inside 1 */
    assert_int_equal(s.depth, 3);
    /* An end of 1 closes the innermost 1. */
    assert_int_equal(ct_stack_match(&s, 1), 2);
    ct_stack_pop(&s);
    assert_int_equal(ct_stack_match(&s, 2), 1);
    ct_stack_pop(&s);
    assert_int_equal(ct_stack_match(&s, 1), 0);
    assert_true(((frame *)ct_stack_top(&s))->start == 10);
    ct_stack_pop(&s);
    assert_int_equal(s.depth, 0);
    assert_null(ct_stack_top(&s));
    /* Nothing open: any end is unmatched, and pop does nothing. */
    assert_int_equal(ct_stack_match(&s, 1), CT_STACK_UNMATCHED);
    ct_stack_pop(&s);
    assert_int_equal(s.depth, 0);
    ct_stack_free(&s);
}

static void test_missed_ends_leave_frames_above(void **state)
{
    (void)state;
    ct_stack s;
    ct_stack_init(&s, sizeof(frame), 100);
    push(&s, 1, 1);
    push(&s, 2, 2);
    push(&s, 3, 3);
    push(&s, 4, 4);
    /* 2 ends while 3 and 4 are open: they never ended; 2 is frame 1. */
    assert_int_equal(ct_stack_match(&s, 2), 1);
    /* An end of a function not open at all changes nothing. */
    assert_int_equal(ct_stack_match(&s, 9), CT_STACK_UNMATCHED);
    assert_int_equal(s.depth, 4);
    assert_true(((frame *)ct_stack_below_top(&s))->h.key == 3);
    ct_stack_free(&s);
}

static void test_max_frames_at_and_past_the_limit(void **state)
{
    (void)state;
    enum { MAX = 40 }; /* past CT_STACK_INITIAL: the array grows on the way */
    ct_stack s;
    ct_stack_init(&s, sizeof(frame), MAX);
    for (uint64_t k = 0; k < MAX; k++)
        assert_non_null(push(&s, k, 100 + k)); /* at the limit: kept */
    assert_null(push(&s, 1000, 0));             /* one past: counted, not kept */
    assert_null(push(&s, 1001, 0));
    assert_int_equal(s.depth, MAX + 2);
    assert_int_equal(s.kept, MAX);
    /* Ends while unkept calls are open close them, unchecked. */
    assert_int_equal(ct_stack_match(&s, 5), CT_STACK_UNKEPT);
    ct_stack_pop(&s);
    ct_stack_pop(&s);
    assert_int_equal(s.depth, MAX);
    assert_int_equal(s.kept, MAX);
    /* The kept frames kept their data through the array's growth. */
    for (uint32_t i = 0; i < MAX; i++)
        assert_true(((frame *)ct_stack_at(&s, i))->start == 100 + i);
    assert_int_equal(ct_stack_match(&s, MAX - 1), MAX - 1);
    /* Room again: the next call is kept. */
    ct_stack_pop(&s);
    assert_non_null(push(&s, 77, 0));
    ct_stack_free(&s);
}

static void test_small_frames_hold_the_key(void **state)
{
    (void)state;
    ct_stack s;
    ct_stack_init(&s, 1, 4); /* frame_size below the header: the header's size */
    assert_true(s.frame_size == sizeof(ct_stack_frame));
    int nomem = 0;
    assert_non_null(ct_stack_push(&s, 42, &nomem));
    assert_int_equal(ct_stack_match(&s, 42), 0);
    ct_stack_free(&s);
    /* max 0: nothing kept, every end closes an unkept call. */
    ct_stack_init(&s, sizeof(frame), 0);
    assert_null(ct_stack_push(&s, 1, &nomem));
    assert_int_equal(nomem, 0);
    assert_int_equal(ct_stack_match(&s, 1), CT_STACK_UNKEPT);
    ct_stack_pop(&s);
    assert_int_equal(ct_stack_match(&s, 1), CT_STACK_UNMATCHED);
    ct_stack_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_calls_close_innermost_first),
        cmocka_unit_test(test_missed_ends_leave_frames_above),
        cmocka_unit_test(test_max_frames_at_and_past_the_limit),
        cmocka_unit_test(test_small_frames_hold_the_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
