/* Calls grouped by trace id (src/views/bytrace.h, report --by-trace), on
 * hand-made record sequences: each expectation follows from the header's
 * text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "views/bytrace.h"

/* Trace id with every byte b (0: none); span id every byte b too. */
static void activity(ct_bytrace *b, uint64_t tid, uint8_t id, uint64_t t)
{
    ct_rec r = { .type = CT_REC_ACTIVITY, .tid = tid, .time_ns = t };
    memset(r.trace_id, id, sizeof r.trace_id);
    memset(r.span_id, id, sizeof r.span_id);
    assert_int_equal(ct_bytrace_record(b, &r), 0);
}

static void ev(ct_bytrace *b, ct_rec_type type, uint64_t tid, uint64_t key, uint64_t t,
               uint64_t held)
{
    ct_rec r = { .type = type, .tid = tid, .key = key, .time_ns = t, .held_ns = held };
    assert_int_equal(ct_bytrace_record(b, &r), 0);
}

static const ct_bytrace_row *row_of(const ct_bytrace *b, uint8_t id, size_t *at)
{
    size_t n;
    const ct_bytrace_row *rows = ct_bytrace_rows(b, &n);
    for (size_t i = 0; i < n; i++)
        if (rows[i].trace_id[0] == id && rows[i].trace_id[15] == id) {
            *at = i;
            return &rows[i];
        }
    fail_msg("no row of id %u", id);
    return NULL;
}

/* Calls of one trace across threads, one under another, another trace,
 * calls under none; order slowest first, none last. */
static void test_rows_across_threads(void **state)
{
    (void)state;
    ct_bytrace *b = ct_bytrace_new();
    assert_non_null(b);
    activity(b, 1, 0xA, 5);
    ev(b, CT_REC_ENTER, 1, 100, 10, 0); /* f: outermost of A */
    ev(b, CT_REC_ENTER, 1, 101, 20, 0); /* g: under f, same trace: not outermost */
    activity(b, 3, 0xB, 12);
    ev(b, CT_REC_ENTER, 3, 200, 15, 0);
    ev(b, CT_REC_LEAVE, 3, 200, 25, 0);  /* B: 15..25 */
    ev(b, CT_REC_LEAVE, 1, 101, 30, 0);
    activity(b, 2, 0xA, 35);
    ev(b, CT_REC_ENTER, 2, 300, 40, 0);
    ev(b, CT_REC_LEAVE, 1, 100, 50, 0);  /* f: 40 */
    ev(b, CT_REC_LEAVE, 2, 300, 70, 4);  /* h: 30, less 4 held */
    activity(b, 1, 0, 75);
    ev(b, CT_REC_ENTER, 1, 400, 80, 0);
    ev(b, CT_REC_LEAVE, 1, 400, 90, 0);
    assert_int_equal(ct_bytrace_finish(b), 0);

    size_t n, at;
    ct_bytrace_rows(b, &n);
    assert_int_equal(n, 3);
    const ct_bytrace_row *a = row_of(b, 0xA, &at);
    assert_int_equal(at, 0);
    assert_false(ct_bytrace_row_none(a));
    assert_int_equal(a->calls, 3);
    assert_int_equal(a->first_ns, 10);
    assert_int_equal(a->last_ns, 70);
    assert_int_equal(a->outer_ns, 40 + 26);
    assert_int_equal(a->ntids, 2);
    assert_int_equal(a->tids[0], 1);
    assert_int_equal(a->tids[1], 2);
    const ct_bytrace_row *bb = row_of(b, 0xB, &at);
    assert_int_equal(at, 1);
    assert_int_equal(bb->calls, 1);
    assert_int_equal(bb->last_ns - bb->first_ns, 10);
    assert_int_equal(bb->outer_ns, 10);
    assert_int_equal(bb->ntids, 1);
    assert_int_equal(bb->tids[0], 3);
    const ct_bytrace_row *none = row_of(b, 0, &at);
    assert_int_equal(at, 2);
    assert_true(ct_bytrace_row_none(none));
    assert_int_equal(none->calls, 1);
    assert_int_equal(none->outer_ns, 10);
    ct_bytrace_free(b);
}

/* The Activity changes inside a call: its callee is an outermost call of
 * the new trace; the call keeps the trace it entered under. A call still
 * open is timed to the END; records after END are ignored. */
static void test_change_inside_a_call_and_open_calls(void **state)
{
    (void)state;
    ct_bytrace *b = ct_bytrace_new();
    assert_non_null(b);
    activity(b, 1, 0xA, 0);
    ev(b, CT_REC_ENTER, 1, 100, 10, 0);
    activity(b, 1, 0xB, 15);
    ev(b, CT_REC_ENTER, 1, 101, 20, 0);
    ev(b, CT_REC_LEAVE, 1, 101, 30, 0);
    ev(b, CT_REC_ENTER, 1, 102, 40, 0); /* never ends */
    ev(b, CT_REC_END, 0, 0, 100, 0);
    ev(b, CT_REC_ENTER, 1, 103, 200, 0); /* after END: ignored */
    assert_int_equal(ct_bytrace_finish(b), 0);
    size_t n, at;
    ct_bytrace_rows(b, &n);
    assert_int_equal(n, 2);
    const ct_bytrace_row *a = row_of(b, 0xA, &at);
    assert_int_equal(a->calls, 1);
    assert_int_equal(a->outer_ns, 90);  /* 10 .. END */
    assert_int_equal(a->last_ns, 100);
    const ct_bytrace_row *bb = row_of(b, 0xB, &at);
    assert_int_equal(bb->calls, 2);
    assert_int_equal(bb->outer_ns, 10 + 60); /* its caller is A's */
    assert_int_equal(bb->first_ns, 20);
    assert_int_equal(bb->last_ns, 100);
    ct_bytrace_free(b);
}

/* Equal wall times: by trace id; no calls: no rows. */
static void test_ties_and_empty(void **state)
{
    (void)state;
    ct_bytrace *b = ct_bytrace_new();
    assert_non_null(b);
    assert_int_equal(ct_bytrace_finish(b), 0);
    size_t n;
    ct_bytrace_rows(b, &n);
    assert_int_equal(n, 0);
    ct_bytrace_free(b);

    b = ct_bytrace_new();
    assert_non_null(b);
    activity(b, 1, 0xC, 0);
    ev(b, CT_REC_ENTER, 1, 1, 10, 0);
    ev(b, CT_REC_LEAVE, 1, 1, 20, 0);
    activity(b, 2, 0x3, 0);
    ev(b, CT_REC_ENTER, 2, 1, 30, 0);
    ev(b, CT_REC_LEAVE, 2, 1, 40, 0);
    assert_int_equal(ct_bytrace_finish(b), 0);
    const ct_bytrace_row *rows = ct_bytrace_rows(b, &n);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].trace_id[0], 0x3);
    assert_int_equal(rows[1].trace_id[0], 0xC);
    ct_bytrace_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_across_threads),
        cmocka_unit_test(test_change_inside_a_call_and_open_calls),
        cmocka_unit_test(test_ties_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
