/* --inject's specs (src/format/inject_spec.h): the parser at and past each
 * limit, its errors with their offsets, and the selectors' choice of call
 * numbers (each expected answer worked out by hand from the spec). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/inject_spec.h"
#include "format/settings.h"

static ct_inject_spec g_s;
static ct_expr_error g_err;

static void ok(const char *text)
{
    if (ct_inject_parse(text, &g_s, &g_err) != 0)
        fail_msg("'%.80s': %s", text, g_err.message);
}

/* Parsing text fails at offset `at` with a message containing `what`. */
static void fails_at(const char *text, size_t at, const char *what)
{
    int rc = ct_inject_parse(text, &g_s, &g_err);
    if (rc == 0 || g_err.offset != at || !strstr(g_err.message, what))
        fail_msg("'%.80s': rc %d offset %zu '%s' (wanted offset %zu, '%s')", text, rc,
                 g_err.offset, g_err.message, at, what);
    char tail[32];
    snprintf(tail, sizeof tail, "at offset %zu", at);
    assert_non_null(strstr(g_err.message, tail));
}

static void utf16_is(const uint16_t *u, uint32_t n, const char *want)
{
    assert_int_equal(n, strlen(want));
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(u[i], (unsigned char)want[i]);
}

static void test_actions(void **state)
{
    (void)state;
    ok("Pay.Client.Charge: throw TimeoutException");
    assert_string_equal(g_s.glob, "Pay.Client.Charge");
    assert_int_equal(g_s.action, CT_INJECT_THROW);
    assert_string_equal(g_s.type, "TimeoutException");
    utf16_is(g_s.value.strings + g_s.msg_off, g_s.msg_len, CT_INJECT_MESSAGE);
    assert_int_equal(g_s.every | g_s.after | g_s.first | g_s.probability | g_s.has_when, 0);

    ok("  *.Send :throw System.Net.Http.HttpRequestException ( \"down \\\"now\\\"\" )  ");
    assert_string_equal(g_s.glob, "*.Send");
    assert_string_equal(g_s.type, "System.Net.Http.HttpRequestException");
    utf16_is(g_s.value.strings + g_s.msg_off, g_s.msg_len, "down \"now\"");

    ok("A.B: return 42");
    assert_int_equal(g_s.action, CT_INJECT_RETURN);
    assert_int_equal(ct_inject_value(&g_s)->kind, CT_XL_INT);
    assert_int_equal(ct_inject_value(&g_s)->mag, 42);
    ok("A.B: return -9.99m");
    assert_int_equal(ct_inject_value(&g_s)->kind, CT_XL_DEC);
    assert_int_equal(ct_inject_value(&g_s)->neg, 1);
    assert_int_equal(ct_inject_value(&g_s)->dec.m[0], 999);
    assert_int_equal(ct_inject_value(&g_s)->dec.scale, 2);
    ok("A.B: return \"a b\"");
    assert_int_equal(ct_inject_value(&g_s)->kind, CT_XL_STRING);
    assert_int_equal(ct_inject_value(&g_s)->len, 3);
    ok("A.B: return Status.Broken");
    assert_int_equal(ct_inject_value(&g_s)->kind, CT_XL_NAME);
    assert_string_equal(g_s.value.names + ct_inject_value(&g_s)->off, "Broken");
    ok("A.B: return null");
    assert_int_equal(ct_inject_value(&g_s)->kind, CT_XL_NULL);
    ok("A.B: return false");
    assert_int_equal(ct_inject_value(&g_s)->kind, CT_XL_BOOL);
    ok("A.B: return default");
    assert_int_equal(g_s.is_default, 1);

    ok("A.B: delay 200ms");
    assert_int_equal(g_s.action, CT_INJECT_DELAY);
    assert_int_equal(g_s.delay_ms, 200);
    ok("A.B: delay 1.5s");
    assert_int_equal(g_s.delay_ms, 1500);
    ok("A.B: delay 1500us"); /* rounded up to whole milliseconds */
    assert_int_equal(g_s.delay_ms, 2);

    char text[64];
    ct_inject_action_text(&g_s, text, sizeof text);
    assert_string_equal(text, "delay 1500us");
    ok("A.B: throw X(\"m\") every 2");
    ct_inject_action_text(&g_s, text, sizeof text);
    assert_string_equal(text, "throw X");
    ok("A.B: return \"a b\" every 2");
    ct_inject_action_text(&g_s, text, sizeof text);
    assert_string_equal(text, "return \"a b\"");
}

static void test_selectors(void **state)
{
    (void)state;
    ok("A.B: throw E every 2 after 3 4..9 probability 25% when amount > 100 && name == \"x\"");
    assert_int_equal(g_s.every, 2);
    assert_int_equal(g_s.after, 3);
    assert_int_equal(g_s.first, 4);
    assert_int_equal(g_s.last, 9);
    assert_int_equal(g_s.probability, 1073741824); /* 0.25 x (2^32 - 1), rounded */
    assert_int_equal(g_s.has_when, 1);
    assert_string_equal(g_s.when.glob, "A.B");
    assert_int_equal(g_s.when.npaths, 2);

    /* every 3 after 10: 12, 15, 18 of 1..20 */
    ok("A.B: throw E every 3 after 10");
    char got[64] = "";
    for (uint64_t n = 1; n <= 20; n++)
        if (ct_inject_selects(&g_s, n, 0))
            snprintf(got + strlen(got), sizeof got - strlen(got), "%llu ", (unsigned long long)n);
    assert_string_equal(got, "12 15 18 ");
    ok("A.B: throw E 3..5");
    for (uint64_t n = 1; n <= 7; n++)
        assert_int_equal(ct_inject_selects(&g_s, n, 0), n >= 3 && n <= 5);
    ok("A.B: throw E");
    assert_true(ct_inject_selects(&g_s, 1, 0) && ct_inject_selects(&g_s, 1000, 0));

    /* probability: the same seed, the same numbers; about P of them. */
    ok("A.B: throw E probability 0.3");
    int hits = 0;
    for (uint64_t n = 1; n <= 10000; n++) {
        int a = ct_inject_selects(&g_s, n, 7), b = ct_inject_selects(&g_s, n, 7);
        assert_int_equal(a, b);
        hits += a;
    }
    assert_in_range(hits, 2700, 3300);
    ok("A.B: throw E probability 1");
    for (uint64_t n = 1; n <= 1000; n++)
        assert_true(ct_inject_selects(&g_s, n, 99));
    ok("A.B: throw E probability 0.0000000001");
    assert_int_equal(g_s.probability, 1); /* the least above 0 */
}

static void test_errors(void **state)
{
    (void)state;
    fails_at("A.B throw E", 0, "expected 'GLOB: ACTION'");
    fails_at(": throw E", 0, "expected a method pattern");
    fails_at("A.B: explode", 5, "expected throw, return or delay");
    fails_at("A.B: throw", 10, "expected an exception type's name");
    fails_at("A.B: throw .E", 11, "expected an exception type's name");
    fails_at("A.B: throw E(", 13, "expected the message");
    fails_at("A.B: throw E(\"m", 13, "without its closing");
    fails_at("A.B: throw E(\"m\"", 16, "expected ')'");
    fails_at("A.B: return", 11, "expected a value after 'return'");
    fails_at("A.B: return 1x", 13, "a number followed by");
    fails_at("A.B: delay 5", 11, "with its unit");
    fails_at("A.B: delay soon", 11, "");
    fails_at("A.B: throw E every", 18, "every takes a whole number");
    fails_at("A.B: throw E every 0", 19, "every takes a whole number");
    fails_at("A.B: throw E every 2 every 3", 21, "a second 'every'");
    fails_at("A.B: throw E 5..3", 13, "LAST is below its FIRST");
    fails_at("A.B: throw E 5.3", 14, "expected '..'");
    fails_at("A.B: throw E probability 0", 25, "above 0 and at most 1");
    fails_at("A.B: throw E probability 1.01", 25, "above 0 and at most 1");
    fails_at("A.B: throw E sometimes", 13, "expected every N");
    fails_at("A.B: throw E when", 17, "expected a condition after 'when'");
    fails_at("A.B: throw E when x >", 21, "expected a literal");
    fails_at("A.B: throw E when return > 1", 18, "cannot name return");
}

static void test_limits(void **state)
{
    (void)state;
    /* CT_INJECT_MAX_DELAY_MS (10 minutes) and one past it. */
    ok("A.B: delay 600000ms");
    assert_int_equal(g_s.delay_ms, CT_INJECT_MAX_DELAY_MS);
    fails_at("A.B: delay 600001ms", 11, "a delay from 1ms to 600s");
    fails_at("A.B: delay 0ms", 11, "a delay from 1ms to 600s");
    /* CT_INJECT_MAX_COUNT and one past it. */
    ok("A.B: throw E every 1000000000");
    assert_int_equal(g_s.every, CT_INJECT_MAX_COUNT);
    fails_at("A.B: throw E every 1000000001", 19, "from 1 to 1000000000");
    /* CT_INJECT_MAX_TYPE bytes of a type name and one past it. */
    char text[CT_EXPR_MAX_TEXT + 8];
    int n = snprintf(text, sizeof text, "A.B: throw ");
    memset(text + n, 'E', CT_INJECT_MAX_TYPE);
    text[n + CT_INJECT_MAX_TYPE] = '\0';
    ok(text);
    assert_int_equal(strlen(g_s.type), CT_INJECT_MAX_TYPE);
    text[n + CT_INJECT_MAX_TYPE] = 'E';
    text[n + CT_INJECT_MAX_TYPE + 1] = '\0';
    fails_at(text, (size_t)n, "longer than 256 bytes");
    /* CT_EXPR_MAX_TEXT bytes in all and one past it. */
    n = snprintf(text, sizeof text, "A.B: return \"");
    memset(text + n, 'x', CT_EXPR_MAX_TEXT - (size_t)n - 1);
    text[CT_EXPR_MAX_TEXT - 1] = '"';
    text[CT_EXPR_MAX_TEXT] = '\0';
    /* (the value's string is longer than a literal may be: the parse fails
     * in the literal, not at the length) */
    assert_int_not_equal(ct_inject_parse(text, &g_s, &g_err), 0);
    assert_null(strstr(g_err.message, "an --inject longer"));
    text[CT_EXPR_MAX_TEXT] = 'x';
    text[CT_EXPR_MAX_TEXT + 1] = '\0';
    fails_at(text, CT_EXPR_MAX_TEXT, "an --inject longer than 1024 bytes");

    /* CLRTRACE_INJECT: CT_INJECT_MAX lines, and one more. */
    char list[CT_INJECT_MAX_TEXT];
    size_t len = 0;
    for (unsigned i = 0; i <= CT_INJECT_MAX; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%sA.B%u: return %u", i ? "\n" : "",
                                i, i);
    uint64_t num = 0;
    char want[CT_SETTING_WANT_MAX];
    assert_int_not_equal(ct_setting_parse(CT_SET_INJECT, list, 0, &num, want, sizeof want), 0);
    assert_non_null(strstr(want, "at most 8 lines"));
    *strrchr(list, '\n') = '\0';
    assert_int_equal(ct_setting_parse(CT_SET_INJECT, list, 0, &num, want, sizeof want), 0);
    /* A line that does not parse says which and why. */
    assert_int_not_equal(ct_setting_parse(CT_SET_INJECT, "A.B: return 1\nA.C: nope", 0, &num, want,
                                          sizeof want), 0);
    assert_non_null(strstr(want, "line 2: expected throw, return or delay"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
