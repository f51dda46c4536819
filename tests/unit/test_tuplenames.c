/* The TupleElementNamesAttribute blob decoder (src/agent/model/tuplenames.c)
 * alone: well-formed blobs as the C# compiler writes them, every malformed
 * one refused (no names, never a read past the blob), and its limits at
 * their value and one past. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/model/tuplenames.h"

/* A blob: prolog, count, then strings (NULL: a null one), NumNamed. */
static size_t build(uint8_t *b, size_t cap, uint32_t n, const char *const *names)
{
    size_t at = 0;
    b[at++] = 1;
    b[at++] = 0;
    for (int k = 0; k < 4; k++)
        b[at++] = (uint8_t)(n >> (8 * k));
    for (uint32_t i = 0; i < n; i++) {
        if (!names[i]) {
            b[at++] = 0xFF;
            continue;
        }
        size_t l = strlen(names[i]);
        assert_true(l < 0x4000 && at + 2 + l + 2 < cap);
        if (l >= 0x80) /* ECMA-335 II.23.2: two bytes, 10xxxxxx first */
            b[at++] = (uint8_t)(0x80 | l >> 8);
        b[at++] = (uint8_t)l;
        memcpy(b + at, names[i], l);
        at += l;
    }
    b[at++] = 0;
    b[at++] = 0;
    return at;
}

static void test_compiler_blobs(void **state)
{
    (void)state;
    ct_tuple_names n;
    uint8_t b[512];
    /* (int Id, string Name) */
    static const char *const two[] = {"Id", "Name"};
    size_t len = build(b, sizeof b, 2, two);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), 0);
    assert_int_equal(n.count, 2);
    assert_string_equal(ct_tuple_name(&n, 0), "Id");
    assert_string_equal(ct_tuple_name(&n, 1), "Name");
    assert_null(ct_tuple_name(&n, 2));
    assert_true(ct_tuple_names_any(&n));
    /* (int First, int): the second a null string. */
    static const char *const partly[] = {"First", NULL};
    len = build(b, sizeof b, 2, partly);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), 0);
    assert_string_equal(ct_tuple_name(&n, 0), "First");
    assert_null(ct_tuple_name(&n, 1));
    /* Only nulls: parsed, but no name. */
    static const char *const none[] = {NULL, NULL};
    len = build(b, sizeof b, 2, none);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), 0);
    assert_false(ct_tuple_names_any(&n));
    /* A name of two-byte characters (UTF-8 kept as is). */
    static const char *const utf[] = {"\xc3\xa9t\xc3\xa9", "x"};
    len = build(b, sizeof b, 2, utf);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), 0);
    assert_string_equal(ct_tuple_name(&n, 0), "\xc3\xa9t\xc3\xa9");
}

static void test_malformed(void **state)
{
    (void)state;
    ct_tuple_names n;
    uint8_t b[512];
    static const char *const two[] = {"Id", "Name"};
    size_t len = build(b, sizeof b, 2, two);
    /* Every cut of a good blob is refused, and reads nothing past it. */
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, b, cut);
        assert_int_equal(ct_tuple_names_parse(copy, cut, &n), -1);
        assert_int_equal(n.count, 0);
        free(copy);
    }
    assert_int_equal(ct_tuple_names_parse(NULL, 10, &n), -1);
    /* A bad prolog. */
    uint8_t bad[512];
    memcpy(bad, b, len);
    bad[0] = 2;
    assert_int_equal(ct_tuple_names_parse(bad, len, &n), -1);
    /* A null array (count 0xFFFFFFFF). */
    static const uint8_t null_array[] = {1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0};
    assert_int_equal(ct_tuple_names_parse(null_array, sizeof null_array, &n), -1);
    /* A string longer than what is left. */
    memcpy(bad, b, len);
    bad[6] = 0x40;
    assert_int_equal(ct_tuple_names_parse(bad, len, &n), -1);
    /* A bad compressed length (0xC0 needs four bytes; 0xE0 is invalid). */
    memcpy(bad, b, len);
    bad[6] = 0xE0;
    assert_int_equal(ct_tuple_names_parse(bad, len, &n), -1);
    /* An empty name, a control character, a character that ends a value. */
    static const char *const empty[] = {"", "x"};
    len = build(b, sizeof b, 2, empty);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), -1);
    static const char *const ctl[] = {"a\nb", "x"};
    len = build(b, sizeof b, 2, ctl);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), -1);
    static const char *const eq[] = {"a=b", "x"};
    len = build(b, sizeof b, 2, eq);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), -1);
}

static void test_limits(void **state)
{
    (void)state;
    ct_tuple_names n;
    static uint8_t b[CT_TUPLE_NAMES_MAX * 8 + CT_TUPLE_NAME_MAX + 64];
    const char *names[CT_TUPLE_NAMES_MAX + 1];
    for (int i = 0; i <= CT_TUPLE_NAMES_MAX; i++)
        names[i] = "n";
    /* CT_TUPLE_NAMES_MAX names: kept; one more: none. */
    size_t len = build(b, sizeof b, CT_TUPLE_NAMES_MAX, names);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), 0);
    assert_int_equal(n.count, CT_TUPLE_NAMES_MAX);
    len = build(b, sizeof b, CT_TUPLE_NAMES_MAX + 1, names);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), -1);
    /* A name of CT_TUPLE_NAME_MAX - 1 bytes: kept; one more: none. */
    char longest[CT_TUPLE_NAME_MAX + 1];
    memset(longest, 'a', sizeof longest);
    longest[CT_TUPLE_NAME_MAX - 1] = '\0';
    const char *one[2] = {longest, "x"};
    len = build(b, sizeof b, 2, one);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), 0);
    assert_int_equal(strlen(ct_tuple_name(&n, 0)), CT_TUPLE_NAME_MAX - 1);
    longest[CT_TUPLE_NAME_MAX - 1] = 'a';
    longest[CT_TUPLE_NAME_MAX] = '\0';
    len = build(b, sizeof b, 2, one);
    assert_int_equal(ct_tuple_names_parse(b, len, &n), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compiler_blobs),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
