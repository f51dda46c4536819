/* The tree filters (src/views/treefilter.h) on hand-made event streams:
 * each expected output is worked out from the stream and the option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "views/treefilter.h"

/* What came out, as text: "E5@10 L5@20 ..." (type letter, key, time). */
typedef struct out {
    char text[1 << 16];
    size_t len;
    size_t events;
} out;

static void collect(void *ctx, const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    out *o = ctx;
    char c = '?';
    switch (rec->type) {
    case CT_REC_ENTER: c = 'E'; break;
    case CT_REC_LEAVE: c = 'L'; break;
    case CT_REC_TAILCALL: c = 'T'; break;
    case CT_REC_UNWIND: c = 'U'; break;
    case CT_REC_FUNCTION: c = 'F'; break;
    case CT_REC_END: c = 'X'; break;
    default: break;
    }
    if (c == 'E' || c == 'L' || c == 'T' || c == 'U') {
        o->events++;
        /* Held copies keep their values. */
        if (rec->values_len) {
            assert_non_null(rec->values);
            assert_int_equal(rec->values[0], (uint8_t)rec->key);
        }
        if (raw)
            assert_true(raw_len >= 8);
    }
    if (o->len < sizeof o->text - 64)
        o->len += (size_t)snprintf(o->text + o->len, sizeof o->text - o->len, "%s%c%llu@%llu",
                                   o->len ? " " : "", c, (unsigned long long)rec->key,
                                   (unsigned long long)rec->time_ns);
}

static void ev(ct_filter *f, ct_rec_type type, uint64_t tid, uint64_t key, uint64_t t)
{
    uint8_t values[4] = {(uint8_t)key, 1, 2, 3};
    ct_rec r = {.type = type, .tid = tid, .key = key, .time_ns = t};
    if (type == CT_REC_ENTER) {
        r.values = values;
        r.values_len = sizeof values;
        r.nvalues = 1;
    }
    assert_int_equal(ct_filter_record(f, &r, NULL, 0), 0);
}

static void fn(ct_filter *f, uint64_t key, const char *name)
{
    ct_rec r = {.type = CT_REC_FUNCTION, .key = key, .name = name,
                .name_len = (uint32_t)strlen(name)};
    assert_int_equal(ct_filter_record(f, &r, NULL, 0), 0);
}

static void end(ct_filter *f, uint64_t t)
{
    ct_rec r = {.type = CT_REC_END, .time_ns = t};
    assert_int_equal(ct_filter_record(f, &r, NULL, 0), 0);
}

/* Main(1) { A(2) { B(3) {} } C(4) {} }, times 0..70 */
static void tree(ct_filter *f)
{
    ev(f, CT_REC_ENTER, 7, 1, 0);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    ev(f, CT_REC_ENTER, 7, 3, 20);
    ev(f, CT_REC_LEAVE, 7, 3, 25);
    ev(f, CT_REC_LEAVE, 7, 2, 50);
    ev(f, CT_REC_ENTER, 7, 4, 55);
    ev(f, CT_REC_LEAVE, 7, 4, 56);
    ev(f, CT_REC_LEAVE, 7, 1, 70);
}

static void test_depth(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.depth = 2};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    tree(f);
    assert_string_equal(o.text, "E1@0 E2@10 L2@50 E4@55 L4@56 L1@70");
    assert_int_equal(ct_filter_hidden(f), 1);
    ct_filter_free(f);
}

static void test_min_time(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    /* A lasts 40, B 5, C 1, Main 70: with 10, B and C go. A's enter comes out
     * when A ends, Main's with it (per thread the order is kept). */
    ct_filter_opts opts = {.min_time_ns = 10};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    tree(f);
    assert_string_equal(o.text, "E1@0 E2@10 L2@50 L1@70");
    assert_int_equal(ct_filter_hidden(f), 2);
    ct_filter_free(f);
}

static void test_min_time_exact_and_open(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.min_time_ns = 5};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_ENTER, 1, 1, 100);
    ev(f, CT_REC_ENTER, 1, 2, 101);
    ev(f, CT_REC_UNWIND, 1, 2, 106);  /* exactly 5: shown */
    ev(f, CT_REC_ENTER, 1, 3, 107);   /* still open at the end: shown */
    end(f, 200);
    assert_string_equal(o.text, "E1@100 E2@101 U2@106 E3@107 X0@200");
    ct_filter_free(f);
}

/* A missed end (a dropped event): the end of 2 comes while 3 is open. The
 * stack rule (src/views/stack.h) pairs it with 2, as the renderer
 * does; 3 never ended and is judged as ending then: 10 < 15, hidden; 2
 * lasts 20 and 1 lasts 40, both shown. (Popping the top blindly paired the
 * end of 2 with 3, lost it and left 1 open.) */
static void test_missed_end_pairs_by_function(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.min_time_ns = 15};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_ENTER, 1, 1, 0);
    ev(f, CT_REC_ENTER, 1, 2, 10);
    ev(f, CT_REC_ENTER, 1, 3, 20);
    ev(f, CT_REC_LEAVE, 1, 2, 30);
    ev(f, CT_REC_LEAVE, 1, 1, 40);
    assert_string_equal(o.text, "E1@0 E2@10 L2@30 L1@40");
    assert_int_equal(ct_filter_hidden(f), 1);
    /* An unfinished call long enough is shown (its end never comes). */
    memset(&o, 0, sizeof o);
    ev(f, CT_REC_ENTER, 2, 1, 100);
    ev(f, CT_REC_ENTER, 2, 3, 101);
    ev(f, CT_REC_LEAVE, 2, 1, 200);
    assert_string_equal(o.text, "E1@100 E3@101 L1@200");
    /* An end of a function not open passes on: the consumer reports it. */
    memset(&o, 0, sizeof o);
    ev(f, CT_REC_ENTER, 3, 1, 300);
    ev(f, CT_REC_LEAVE, 3, 9, 320);
    ev(f, CT_REC_LEAVE, 3, 1, 340);
    assert_string_equal(o.text, "L9@320 E1@300 L1@340");
    ct_filter_free(f);
}

static void test_trigger_per_thread(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.trigger = "Ns.Gate*:Other"};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    fn(f, 1, "Ns.Main");
    fn(f, 2, "Ns.Gate.Run");
    fn(f, 3, "Ns.Work");
    ev(f, CT_REC_ENTER, 1, 1, 0);   /* hidden */
    ev(f, CT_REC_ENTER, 1, 3, 1);   /* hidden */
    ev(f, CT_REC_LEAVE, 1, 3, 2);
    ev(f, CT_REC_ENTER, 1, 2, 3);   /* the gate opens on thread 1 */
    ev(f, CT_REC_ENTER, 2, 3, 4);   /* thread 2: still closed */
    ev(f, CT_REC_LEAVE, 2, 3, 5);
    ev(f, CT_REC_ENTER, 1, 3, 6);   /* shown */
    ev(f, CT_REC_TAILCALL, 1, 3, 7);
    ev(f, CT_REC_LEAVE, 1, 2, 8);   /* closes */
    ev(f, CT_REC_ENTER, 1, 3, 9);   /* hidden again */
    ev(f, CT_REC_LEAVE, 1, 3, 10);
    ev(f, CT_REC_LEAVE, 1, 1, 11);
    assert_string_equal(o.text, "F1@0 F2@0 F3@0 E2@3 E3@6 T3@7 L2@8");
    assert_int_equal(ct_filter_hidden(f), 4);
    ct_filter_free(f);
}

static void test_after(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.after = 2};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    tree(f);
    /* Calls 1 (Main) and 2 (A) hidden; B and C shown. */
    assert_string_equal(o.text, "E3@20 L3@25 E4@55 L4@56");
    ct_filter_free(f);
}

static void test_unpaired_end_passes(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.depth = 1};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_LEAVE, 3, 9, 1);
    assert_string_equal(o.text, "L9@1");
    ct_filter_free(f);
}

/* Beyond CT_FILTER_MAX_FRAMES the stack is only counted: with min_time the
 * deep calls are not held back; the balance stays right when they return. */
static void test_frame_limit(void **state)
{
    (void)state;
    out *o = calloc(1, sizeof *o);
    ct_filter_opts opts = {.min_time_ns = 1000};
    ct_filter *f = ct_filter_new(&opts, collect, o);
    uint32_t n = CT_FILTER_MAX_FRAMES + 10;
    for (uint32_t i = 0; i < n; i++)
        ev(f, CT_REC_ENTER, 1, 5, i);
    /* The 10 calls past the limit came out at once, with every held
     * ancestor before them: all n enters are out. */
    assert_int_equal(o->events, n);
    for (uint32_t i = 0; i < n; i++)
        ev(f, CT_REC_LEAVE, 1, 5, n + i);
    assert_int_equal(o->events, 2 * (size_t)n);
    ct_filter_free(f);
    free(o);
}

/* The held bytes per thread are bounded: the oldest go out early. */
static void test_held_limit(void **state)
{
    (void)state;
    out *o = calloc(1, sizeof *o);
    ct_filter_opts opts = {.min_time_ns = 1u << 30};
    ct_filter *f = ct_filter_new(&opts, collect, o);
    static uint8_t big[1 << 20];
    memset(big, 5, sizeof big);
    uint32_t n = CT_FILTER_MAX_HELD_BYTES / sizeof big + 3;
    for (uint32_t i = 0; i < n; i++) {
        ct_rec r = {.type = CT_REC_ENTER, .tid = 1, .key = 5, .time_ns = i, .values = big,
                    .values_len = sizeof big, .nvalues = 1};
        assert_int_equal(ct_filter_record(f, &r, NULL, 0), 0);
    }
    /* 16 fit; the first 3 went out to make room. */
    assert_int_equal(o->events, 3);
    ct_filter_finish(f);
    assert_int_equal(o->events, n);
    ct_filter_free(f);
    free(o);
}

/* --when at the end: function 2 (A) is decided at its end. */
static int key_is_2(uint64_t key)
{
    return key == 2;
}

static void reject(ct_filter *f, uint64_t tid, uint64_t key)
{
    ct_filter_reject(f, tid, key);
}

/* A kept: nothing changes, but A's events (and B's, inside it) come out at
 * A's end, after the other thread's. */
static void test_at_end_kept_in_order(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.at_end = key_is_2};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_ENTER, 7, 1, 0);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    ev(f, CT_REC_ENTER, 7, 3, 20);
    ev(f, CT_REC_LEAVE, 7, 3, 25);
    ev(f, CT_REC_ENTER, 8, 9, 30);   /* another thread: not held */
    assert_string_equal(o.text, "E1@0 E9@30");
    ev(f, CT_REC_LEAVE, 7, 2, 50);
    ev(f, CT_REC_LEAVE, 7, 1, 70);
    assert_string_equal(o.text, "E1@0 E9@30 E2@10 E3@20 L3@25 L2@50 L1@70");
    assert_int_equal(ct_filter_hidden(f), 0);
    ct_filter_free(f);
}

/* A rejected: its enter and end go, B stays (one level up); the reject is
 * the next end's only. */
static void test_at_end_rejected(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.at_end = key_is_2};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    tree(f);
    assert_string_equal(o.text, "E1@0 E2@10 E3@20 L3@25 L2@50 E4@55 L4@56 L1@70");
    ct_filter_free(f);
    memset(&o, 0, sizeof o);
    f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_ENTER, 7, 1, 0);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    ev(f, CT_REC_ENTER, 7, 3, 20);
    ev(f, CT_REC_LEAVE, 7, 3, 25);
    reject(f, 7, 2);
    ev(f, CT_REC_UNWIND, 7, 2, 50);
    ev(f, CT_REC_ENTER, 7, 2, 55);   /* again, kept */
    ev(f, CT_REC_LEAVE, 7, 2, 56);
    ev(f, CT_REC_LEAVE, 7, 1, 70);
    assert_string_equal(o.text, "E1@0 E3@20 L3@25 E2@55 L2@56 L1@70");
    assert_int_equal(ct_filter_hidden(f), 1);
    ct_filter_free(f);
}

/* An async call decided when its task ends (CT_RING_DEFER): its LEAVE
 * carries the call's id (last value); its events and the thread's after
 * them are held until the verdict: hidden (its enter and end) or kept. */
static void deferred_leave(ct_filter *f, uint64_t t, uint64_t id)
{
    /* Two values: 2 bytes (the first byte the key, as collect checks), then
     * the id. */
    uint8_t values[4 + 2 + 4 + 8] = {2, 0, 0, 0, 0, 0, 8, 0, 0, 0};
    memcpy(values + 10, &id, 8);
    ct_rec r = {.type = CT_REC_LEAVE, .tid = 7, .key = 2, .time_ns = t, .values = values,
                .values_len = sizeof values, .nvalues = 2};
    ct_filter_defer(f, 7, 2);
    assert_int_equal(ct_filter_record(f, &r, NULL, 0), 0);
}

static void test_at_end_async_verdict(void **state)
{
    (void)state;
    static out o;
    for (int keep = 0; keep < 2; keep++) {
        memset(&o, 0, sizeof o);
        ct_filter_opts opts = {.at_end = key_is_2};
        ct_filter *f = ct_filter_new(&opts, collect, &o);
        ev(f, CT_REC_ENTER, 7, 1, 0);
        ev(f, CT_REC_ENTER, 7, 2, 10);
        ev(f, CT_REC_ENTER, 7, 3, 20);
        ev(f, CT_REC_LEAVE, 7, 3, 25);
        deferred_leave(f, 50, 9);
        ev(f, CT_REC_ENTER, 7, 4, 55);
        ev(f, CT_REC_LEAVE, 7, 4, 56);
        assert_string_equal(o.text, "E1@0");             /* held until the verdict */
        assert_int_equal(ct_filter_async_verdict(f, 8, 0), 0); /* no call waits for 8 */
        assert_int_equal(ct_filter_async_verdict(f, 9, keep), keep ? 1 : 2);
        ev(f, CT_REC_LEAVE, 7, 1, 70);
        assert_string_equal(o.text, keep ? "E1@0 E2@10 E3@20 L3@25 L2@50 E4@55 L4@56 L1@70"
                                         : "E1@0 E3@20 L3@25 E4@55 L4@56 L1@70");
        assert_int_equal(ct_filter_hidden(f), keep ? 0 : 1);
        ct_filter_free(f);
    }
    /* A verdict that never comes: the END lets everything out. */
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.at_end = key_is_2};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    deferred_leave(f, 50, 9);
    end(f, 60);
    assert_string_equal(o.text, "E2@10 L2@50 X0@60");
    ct_filter_free(f);
}

/* A reject told for another function (a lost end) hides nothing. */
static void test_at_end_reject_other_key(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.at_end = key_is_2};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    reject(f, 7, 5);
    ev(f, CT_REC_LEAVE, 7, 2, 50);
    assert_string_equal(o.text, "E2@10 L2@50");
    ct_filter_free(f);
}

/* Nested: the inner A rejected, the outer kept; with a trigger on A, the
 * rejected A's subtree goes with it. */
static void test_at_end_nested_and_trigger(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.at_end = key_is_2};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    ev(f, CT_REC_ENTER, 7, 2, 0);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    ev(f, CT_REC_ENTER, 7, 3, 20);
    ev(f, CT_REC_LEAVE, 7, 3, 25);
    reject(f, 7, 2);
    ev(f, CT_REC_LEAVE, 7, 2, 30);
    ev(f, CT_REC_LEAVE, 7, 2, 40);
    assert_string_equal(o.text, "E2@0 E3@20 L3@25 L2@40");
    ct_filter_free(f);

    memset(&o, 0, sizeof o);
    ct_filter_opts topts = {.at_end = key_is_2, .trigger = "A"};
    f = ct_filter_new(&topts, collect, &o);
    fn(f, 2, "A");
    ev(f, CT_REC_ENTER, 7, 2, 0);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    ev(f, CT_REC_ENTER, 7, 3, 20);
    ev(f, CT_REC_LEAVE, 7, 3, 25);
    reject(f, 7, 2);
    ev(f, CT_REC_LEAVE, 7, 2, 30);
    ev(f, CT_REC_ENTER, 7, 4, 35);
    ev(f, CT_REC_LEAVE, 7, 4, 36);
    ev(f, CT_REC_LEAVE, 7, 2, 40);
    assert_string_equal(o.text, "F2@0 E2@0 E4@35 L4@36 L2@40");
    assert_int_equal(ct_filter_hidden(f), 2);
    ct_filter_free(f);
}

/* With --min-time too: a held enter let out into the queue is still left
 * out when its call is rejected; a caller's enter let out after it stays. */
static void test_at_end_with_min_time(void **state)
{
    (void)state;
    static out o;
    memset(&o, 0, sizeof o);
    ct_filter_opts opts = {.at_end = key_is_2, .min_time_ns = 5, .trigger = "A"};
    ct_filter *f = ct_filter_new(&opts, collect, &o);
    fn(f, 1, "A");
    ev(f, CT_REC_ENTER, 7, 1, 0);
    ev(f, CT_REC_ENTER, 7, 2, 10);
    ev(f, CT_REC_ENTER, 7, 3, 20);
    ev(f, CT_REC_LEAVE, 7, 3, 30);   /* 10: shown, lets out 1 and 2 */
    reject(f, 7, 2);
    ev(f, CT_REC_LEAVE, 7, 2, 40);
    ev(f, CT_REC_LEAVE, 7, 1, 70);
    assert_string_equal(o.text, "F1@0 E1@0 E3@20 L3@30 L1@70");
    ct_filter_free(f);
}

/* Held past CT_FILTER_MAX_HELD_BYTES: everything goes out, and the call
 * open then is shown whatever its end. At the limit, nothing goes out. */
static void test_at_end_held_limit(void **state)
{
    (void)state;
    out *o = calloc(1, sizeof *o);
    ct_filter_opts opts = {.at_end = key_is_2};
    static uint8_t big[1 << 20];
    memset(big, 5, sizeof big);
    for (int past = 0; past < 2; past++) {
        memset(o, 0, sizeof *o);
        ct_filter *f = ct_filter_new(&opts, collect, o);
        ct_rec r = {.type = CT_REC_ENTER, .tid = 1, .key = 2, .time_ns = 0};
        assert_int_equal(ct_filter_record(f, &r, NULL, 0), 0);
        /* Calls of 5 inside, each enter 1 MiB: 16 fill the limit exactly
         * (A's enter and the ends have no values); a 17th is past it. */
        uint32_t n = CT_FILTER_MAX_HELD_BYTES / sizeof big + (uint32_t)past;
        for (uint32_t i = 0; i < n; i++) {
            ct_rec e = {.type = CT_REC_ENTER, .tid = 1, .key = 5, .time_ns = 1 + 2 * i,
                        .values = big, .values_len = sizeof big, .nvalues = 1};
            ct_rec l = {.type = CT_REC_LEAVE, .tid = 1, .key = 5, .time_ns = 2 + 2 * i};
            assert_int_equal(ct_filter_record(f, &e, NULL, 0), 0);
            assert_int_equal(ct_filter_record(f, &l, NULL, 0), 0);
        }
        /* Past it, A's enter and every call inside went out. */
        assert_int_equal(o->events, past ? 2 * (size_t)n + 1 : 0);
        ct_filter_reject(f, 1, 2);
        ct_rec l = {.type = CT_REC_LEAVE, .tid = 1, .key = 2, .time_ns = 1000};
        assert_int_equal(ct_filter_record(f, &l, NULL, 0), 0);
        /* Within the limit A is left out; past it A was let out, and shown. */
        assert_int_equal(o->events, 2 * (size_t)n + (past ? 2 : 0));
        ct_filter_free(f);
    }
    free(o);
}

static void test_parse_duration(void **state)
{
    (void)state;
    uint64_t ns = 0;
    assert_int_equal(ct_parse_duration("100us", &ns), 0);
    assert_int_equal(ns, 100000);
    assert_int_equal(ct_parse_duration("2.5ms", &ns), 0);
    assert_int_equal(ns, 2500000);
    assert_int_equal(ct_parse_duration("1s", &ns), 0);
    assert_int_equal(ns, 1000000000);
    assert_int_equal(ct_parse_duration("7ns", &ns), 0);
    assert_int_equal(ns, 7);
    assert_int_equal(ct_parse_duration("50", &ns), 0);
    assert_int_equal(ns, 50000);
    assert_int_equal(ct_parse_duration(".5us", &ns), 0);
    assert_int_equal(ns, 500);
    assert_int_equal(ct_parse_duration("86400s", &ns), 0);
    assert_int_equal(ns, CT_FILTER_MAX_MIN_TIME_NS);
    assert_int_equal(ct_parse_duration("86401s", &ns), -1);
    assert_int_equal(ct_parse_duration("99999999999999999999999s", &ns), -1);
    assert_int_equal(ct_parse_duration("", &ns), -1);
    assert_int_equal(ct_parse_duration("us", &ns), -1);
    assert_int_equal(ct_parse_duration("5 ms", &ns), -1);
    assert_int_equal(ct_parse_duration("-5ms", &ns), -1);
    assert_int_equal(ct_parse_duration("5m", &ns), -1);
    assert_int_equal(ct_parse_duration(NULL, &ns), -1);
}

/* --max-size's sizes (ct_parse_size): bytes, K, M, G, T as powers of 1024
 * (KB, KiB, any case), at most max: at the limit and one past it. */
static void test_parse_size(void **state)
{
    (void)state;
    uint64_t b = 0, max = 1ull << 40;
    assert_int_equal(ct_parse_size("8M", max, &b), 0);
    assert_int_equal(b, 8ull << 20);
    assert_int_equal(ct_parse_size("8388608", max, &b), 0);
    assert_int_equal(b, 8388608);
    assert_int_equal(ct_parse_size("512k", max, &b), 0);
    assert_int_equal(b, 512ull << 10);
    assert_int_equal(ct_parse_size("20MiB", max, &b), 0);
    assert_int_equal(b, 20ull << 20);
    assert_int_equal(ct_parse_size("3gb", max, &b), 0);
    assert_int_equal(b, 3ull << 30);
    assert_int_equal(ct_parse_size("1T", max, &b), 0);
    assert_int_equal(b, max);
    assert_int_equal(ct_parse_size("1099511627776", max, &b), 0);
    assert_int_equal(ct_parse_size("1099511627777", max, &b), -1);
    assert_int_equal(ct_parse_size("1025G", max, &b), -1);
    assert_int_equal(ct_parse_size("99999999999999999999999", max, &b), -1);
    assert_int_equal(ct_parse_size("", max, &b), -1);
    assert_int_equal(ct_parse_size("M", max, &b), -1);
    assert_int_equal(ct_parse_size("8 M", max, &b), -1);
    assert_int_equal(ct_parse_size("8MX", max, &b), -1);
    assert_int_equal(ct_parse_size("1.5M", max, &b), -1);
    assert_int_equal(ct_parse_size("-8M", max, &b), -1);
    assert_int_equal(ct_parse_size(NULL, max, &b), -1);
}

static void test_glob_list(void **state)
{
    (void)state;
    assert_true(ct_glob_list_match("Demo.*", "Demo.Shapes.Scale"));
    assert_true(ct_glob_list_match("x:Demo.Util.*:y", "Demo.Util.Pad"));
    assert_false(ct_glob_list_match("Demo.Util.*", "Demo.Shapes.Scale"));
    assert_false(ct_glob_list_match("", "a"));
    assert_false(ct_glob_list_match("::", "a"));
    assert_false(ct_glob_list_match(NULL, "a"));
    assert_true(ct_glob_list_match("*..ctor", "Demo.Point..ctor"));
}

/* A type's methods are left out unnamed only when no glob can match them. */
static void test_glob_may_extend(void **state)
{
    (void)state;
    const char *f = "Microsoft.CodeAnalysis.CSharp.CSharpCompilation.*";
    assert_true(ct_glob_list_may_extend(f, "Microsoft.CodeAnalysis.CSharp.CSharpCompilation."));
    /* A nested type: longer than the glob's literal text. */
    assert_true(ct_glob_list_may_extend(f, "Microsoft.CodeAnalysis.CSharp.CSharpCompilation.Ref."));
    assert_false(ct_glob_list_may_extend(f, "Microsoft.CodeAnalysis.CSharp.CSharpCompiler."));
    assert_false(ct_glob_list_may_extend(f, "System.String."));
    /* The type's name shorter than the literal text ("Demo." of "Demo.Util.Pad"). */
    assert_true(ct_glob_list_may_extend("Demo.Util.Pad", "Demo."));
    assert_true(ct_glob_list_may_extend("Demo.Util.Pad", "Demo.Util."));
    assert_false(ct_glob_list_may_extend("Demo.Util.Pad", "Demo.Utils."));
    /* A literal glob shorter than the type: no method of it. */
    assert_false(ct_glob_list_may_extend("Demo.Util", "Demo.Util.Inner."));
    /* Wildcards anywhere: unsure. */
    assert_true(ct_glob_list_may_extend("*.Pad", "Other."));
    assert_true(ct_glob_list_may_extend("Demo.?til.*", "Demo.Util."));
    assert_true(ct_glob_list_may_extend("Demo.[UV]til.*", "Demo.Vtil."));
    assert_true(ct_glob_list_may_extend("x:Demo.*", "Demo.Util."));
    assert_false(ct_glob_list_may_extend("x:y", "Demo.Util."));
    assert_false(ct_glob_list_may_extend("", "Demo."));
    assert_false(ct_glob_list_may_extend(NULL, "Demo."));
    /* Whatever may_extend says no to, match says no to. */
    const char *names[] = {"Demo.Util.Pad", "Demo.Util.Inner.Go", "Other.Pad", "Demo.Vtil.X"};
    const char *globs[] = {"Demo.Util", "Demo.Util.*", "*.Pad", "Demo.[UV]til.X", "Demo.Util.Pad"};
    const char *types[] = {"Demo.Util.", "Demo.Util.Inner.", "Other.", "Demo.Vtil."};
    for (size_t g = 0; g < sizeof globs / sizeof *globs; g++)
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            if (ct_glob_list_match(globs[g], names[i]))
                assert_true(ct_glob_list_may_extend(globs[g], types[i]));
}

static void test_opts_active(void **state)
{
    (void)state;
    ct_filter_opts none = {0};
    assert_false(ct_filter_opts_active(&none));
    ct_filter_opts empty_trigger = {.trigger = ""};
    assert_false(ct_filter_opts_active(&empty_trigger));
    ct_filter_opts d = {.depth = 1};
    assert_true(ct_filter_opts_active(&d));
    assert_false(ct_filter_opts_active(NULL));
}

/* Secrets' names (issues 27 and 35): a keyword equal to the whole name or
 * to its last words, without case and the characters that join words;
 * --redact's names anywhere inside; the first CT_SECRET_NAME_MAX bytes
 * compared, one more not. */
static void test_secret_names(void **state)
{
    (void)state;
    /* The real ones. */
    assert_true(ct_secret_name("password", NULL));
    assert_true(ct_secret_name("userPassword", NULL));
    assert_true(ct_secret_name("X_API_KEY", NULL));
    assert_true(ct_secret_name("ApiKey", NULL));
    assert_true(ct_secret_name("apiKey", NULL));
    assert_true(ct_secret_name("APIKey", NULL));
    assert_true(ct_secret_name("access_token", NULL));
    assert_true(ct_secret_name("_sessionToken", NULL));
    assert_true(ct_secret_name("AuthToken", NULL));
    assert_true(ct_secret_name("Connection-String", NULL));
    assert_true(ct_secret_name("dbConnectionString", NULL));
    assert_true(ct_secret_name("AUTHORIZATION", NULL));
    assert_true(ct_secret_name("token", NULL));
    assert_true(ct_secret_name("client_secret", NULL));
    /* The near misses: a keyword inside a word, or not at the end. */
    assert_false(ct_secret_name("maxTokens", NULL));
    assert_false(ct_secret_name("tokenizer", NULL));
    assert_false(ct_secret_name("IsPasswordValid", NULL));
    assert_false(ct_secret_name("secretary", NULL));
    assert_false(ct_secret_name("spinner", NULL));
    assert_false(ct_secret_name("cookieJarSize", NULL));
    assert_false(ct_secret_name("CancellationToken", NULL));
    assert_false(ct_secret_name("cancellationToken", NULL));
    assert_false(ct_secret_name("_cancellationTokenSource", NULL));
    assert_false(ct_secret_name("user", NULL));
    assert_false(ct_secret_name("author", NULL));
    assert_false(ct_secret_name("", NULL));
    assert_false(ct_secret_name(NULL, NULL));
    /* --redact: anywhere inside. */
    assert_true(ct_secret_name("userName", "user"));
    assert_true(ct_secret_name("ssn", "nothing:S_S_N"));
    assert_true(ct_secret_name("maxTokens", "token"));
    assert_false(ct_secret_name("userName", "nothing::"));
    char name[CT_SECRET_NAME_MAX + 2];
    for (size_t end = CT_SECRET_NAME_MAX; end <= CT_SECRET_NAME_MAX + 1; end++) {
        memset(name, 'x', end);
        memcpy(name + end - 7, "_secret", 7);
        name[end] = '\0';
        assert_int_equal(ct_secret_name(name, NULL), end == CT_SECRET_NAME_MAX);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_min_time),
        cmocka_unit_test(test_min_time_exact_and_open),
        cmocka_unit_test(test_missed_end_pairs_by_function),
        cmocka_unit_test(test_trigger_per_thread),
        cmocka_unit_test(test_after),
        cmocka_unit_test(test_unpaired_end_passes),
        cmocka_unit_test(test_frame_limit),
        cmocka_unit_test(test_held_limit),
        cmocka_unit_test(test_parse_duration),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_glob_list),
        cmocka_unit_test(test_glob_may_extend),
        cmocka_unit_test(test_secret_names),
        cmocka_unit_test(test_opts_active),
        cmocka_unit_test(test_at_end_kept_in_order),
        cmocka_unit_test(test_at_end_async_verdict),
        cmocka_unit_test(test_at_end_rejected),
        cmocka_unit_test(test_at_end_reject_other_key),
        cmocka_unit_test(test_at_end_nested_and_trigger),
        cmocka_unit_test(test_at_end_with_min_time),
        cmocka_unit_test(test_at_end_held_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
