/* The settings table (src/format/settings.h): every bound accepted at
 * the limit and refused one past it, the spellings unique, the help lines
 * one per option. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "views/treefilter.h"
#include "format/expr.h"
#include "format/words.h"
#include "format/settings.h"
#include "format/value.h"

static int parse(ct_setting_id id, const char *text, int option, uint64_t *num)
{
    char want[CT_SETTING_WANT_MAX];
    want[0] = 0;
    int rc = ct_setting_parse(id, text, option, num, want, sizeof want);
    if (rc != 0)
        assert_true(want[0] != 0); /* a refusal always says what to use */
    return rc;
}

static void test_numbers_at_and_past_their_bounds(void **state)
{
    (void)state;
    char buf[32];
    for (int i = 0; i < CT_SETTING_COUNT; i++) {
        const ct_setting *s = &ct_settings[i];
        if (s->kind != CT_KIND_NUMBER)
            continue;
        uint64_t v = 12345;
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)s->max);
        assert_int_equal(parse(i, buf, 0, &v), 0);
        assert_true(v == s->max);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)s->max + 1);
        assert_int_equal(parse(i, buf, 0, &v), -1);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)s->min);
        assert_int_equal(parse(i, buf, 0, &v), 0);
        assert_true(v == s->min);
        if (s->min > 0) {
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)s->min - 1);
            assert_int_equal(parse(i, buf, 0, &v), -1);
        }
        /* 0 turns a filter off in the environment; its option starts at 1. */
        if (s->flags & CT_SETTING_ZERO_OFF) {
            assert_int_equal(parse(i, "0", 0, &v), 0);
            assert_int_equal(parse(i, "0", 1, &v), -1);
            assert_int_equal(parse(i, "1", 1, &v), 0);
        }
        /* Digits only. */
        assert_int_equal(parse(i, "+5", 0, &v), -1);
        assert_int_equal(parse(i, " 5", 0, &v), -1);
        assert_int_equal(parse(i, "0x10", 0, &v), -1);
        assert_int_equal(parse(i, "-1", 0, &v), -1);
        assert_int_equal(parse(i, "", 0, &v), -1);
        assert_int_equal(parse(i, "99999999999999999999999", 0, &v), -1);
        /* The default is a value the setting accepts. */
        assert_true(s->dflt <= s->max);
    }
    /* The bounds are the named constants. */
    assert_true(ct_settings[CT_SET_STRING_CHARS].max == CT_MAX_STRING_CHARS_OPTION);
    assert_true(ct_settings[CT_SET_ARRAY_ITEMS].max == CT_MAX_ARRAY_ITEMS_OPTION);
    assert_true(ct_settings[CT_SET_STRUCT_DEPTH].max == CT_MAX_VALUE_DEPTH);
    assert_true(ct_settings[CT_SET_DEPTH].max == CT_FILTER_MAX_FRAMES);
    assert_true(ct_settings[CT_SET_AFTER].max == CT_MAX_AFTER);
    assert_true(ct_settings[CT_SET_BUFFER_KB].min == CT_MIN_RING_KB);
    assert_true(ct_settings[CT_SET_BUFFER_KB].max == CT_MAX_RING_KB);
    assert_true(ct_settings[CT_SET_BUFFER_KB].dflt == CT_DEFAULT_RING_KB);
}

static void test_flags_null_durations_globs(void **state)
{
    (void)state;
    uint64_t v = 7;
    static const char *const yes[] = {"1", "yes", "TRUE", "On"}, *const no[] = {"0", "no", "false", "OFF"};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(parse(CT_SET_ALL, yes[k], 0, &v), 0);
        assert_true(v == 1);
        assert_int_equal(parse(CT_SET_ALL, no[k], 0, &v), 0);
        assert_true(v == 0);
    }
    assert_int_equal(parse(CT_SET_ALL, "maybe", 0, &v), -1);
    assert_int_equal(parse(CT_SET_ALL, "2", 0, &v), -1);
    assert_int_equal(parse(CT_SET_NULL, "slow", 0, &v), 0);
    assert_true(v == 1);
    assert_int_equal(parse(CT_SET_NULL, "fast", 0, &v), 0);
    assert_true(v == 2);
    assert_int_equal(parse(CT_SET_NULL, "off", 0, &v), 0);
    assert_true(v == 0);
    assert_int_equal(parse(CT_SET_NULL, "faster", 0, &v), -1);
    /* Durations: at most one day; the option wants more than 0. */
    assert_int_equal(parse(CT_SET_MIN_TIME, "2.5ms", 1, &v), 0);
    assert_true(v == 2500000);
    assert_int_equal(parse(CT_SET_MIN_TIME, "86400s", 1, &v), 0);
    assert_int_equal(parse(CT_SET_MIN_TIME, "86401s", 1, &v), -1);
    assert_int_equal(parse(CT_SET_MIN_TIME, "0", 1, &v), -1);
    assert_int_equal(parse(CT_SET_MIN_TIME, "0", 0, &v), 0);
    assert_int_equal(parse(CT_SET_MIN_TIME, "5parsecs", 0, &v), -1);
    /* Pattern lists: CT_FILTER_MAX_GLOBS_TEXT - 1 characters, not one more. */
    char *g = malloc(CT_FILTER_MAX_GLOBS_TEXT + 1);
    assert_non_null(g);
    memset(g, 'a', CT_FILTER_MAX_GLOBS_TEXT);
    g[CT_FILTER_MAX_GLOBS_TEXT - 1] = 0;
    assert_int_equal(parse(CT_SET_INCLUDE, g, 0, &v), 0);
    g[CT_FILTER_MAX_GLOBS_TEXT - 1] = 'a';
    g[CT_FILTER_MAX_GLOBS_TEXT] = 0;
    assert_int_equal(parse(CT_SET_INCLUDE, g, 0, &v), -1);
    free(g);
}

static void test_spellings_unique(void **state)
{
    (void)state;
    for (int i = 0; i < CT_SETTING_COUNT; i++) {
        const ct_setting *a = &ct_settings[i];
        assert_non_null(a->env);
        assert_int_equal(strncmp(a->env, "CLRTRACE_", 9), 0);
        if (a->longopt) {
            assert_int_equal(ct_setting_by_option(a->longopt), i);
            assert_true(a->sets || a->kind == CT_KIND_NULL || a->arg); /* help names the value */
        }
        if (a->shortopt)
            assert_int_equal(ct_setting_by_option(a->shortopt), i);
        /* An option without a value sets a value the setting accepts. */
        if (a->sets) {
            uint64_t v;
            assert_int_equal(parse(i, a->sets, 0, &v), 0);
        }
        for (int j = i + 1; j < CT_SETTING_COUNT; j++)
            assert_string_not_equal(a->env, ct_settings[j].env);
    }
    assert_int_equal(ct_setting_by_option("--no-such-option"), -1);
}

/* CLRTRACE_WHEN: conditions one a line, each parsed; at most CT_WHEN_MAX. */
static void test_when(void **state)
{
    (void)state;
    uint64_t num = 0;
    char want[CT_SETTING_WANT_MAX];
    assert_int_equal(ct_setting_parse(CT_SET_WHEN, "A.B: x == 1\nC.*: !y\n", 1, &num, want,
                                      sizeof want), 0);
    assert_int_equal(ct_setting_parse(CT_SET_WHEN, "A.B: x == 1\nC.*: y >", 1, &num, want,
                                      sizeof want), -1);
    assert_non_null(strstr(want, "condition 2: expected a literal after '>'"));
    assert_non_null(strstr(want, "at offset 8"));
    assert_int_equal(ct_setting_parse(CT_SET_WHEN, "\n\n", 1, &num, want, sizeof want), -1);
    static char text[CT_WHEN_MAX_TEXT + 64];
    text[0] = '\0';
    for (unsigned i = 0; i < CT_WHEN_MAX; i++)
        strcat(text, "F: x\n");
    assert_int_equal(ct_setting_parse(CT_SET_WHEN, text, 1, &num, want, sizeof want), 0);
    strcat(text, "F: x");
    assert_int_equal(ct_setting_parse(CT_SET_WHEN, text, 1, &num, want, sizeof want), -1);
    assert_non_null(strstr(want, "at most 16 conditions"));
    assert_int_equal(ct_setting_by_option("--when"), CT_SET_WHEN);
}

/* --at: 'FILE:LINE' a line, at most CT_AT_MAX; ct_at_parse's bounds. */
static void test_at(void **state)
{
    (void)state;
    uint64_t num = 0;
    char want[CT_SETTING_WANT_MAX];
    assert_int_equal(ct_setting_parse(CT_SET_AT, "Orders.cs:42\nsrc/Shop/Cart.cs:7", 1, &num,
                                      want, sizeof want), 0);
    assert_int_equal(ct_setting_parse(CT_SET_AT, "Orders.cs:42\nCart.cs", 1, &num, want,
                                      sizeof want), -1);
    assert_non_null(strstr(want, "(line 2)"));
    static char text[CT_AT_MAX_TEXT + 64];
    text[0] = '\0';
    for (unsigned i = 0; i < CT_AT_MAX; i++)
        strcat(text, "A.cs:1\n");
    assert_int_equal(ct_setting_parse(CT_SET_AT, text, 1, &num, want, sizeof want), 0);
    strcat(text, "A.cs:1");
    assert_int_equal(ct_setting_parse(CT_SET_AT, text, 1, &num, want, sizeof want), -1);
    assert_non_null(strstr(want, "at most 16 lines"));
    assert_int_equal(ct_setting_by_option("--at"), CT_SET_AT);

    char file[CT_AT_MAX_FILE];
    uint32_t line = 0;
    assert_int_equal(ct_at_parse("a/b:c.cs:536870911", file, sizeof file, &line), 0);
    assert_string_equal(file, "a/b:c.cs"); /* the last ':' splits */
    assert_int_equal(line, CT_AT_MAX_LINE);
    assert_int_equal(ct_at_parse("c.cs:536870912", file, sizeof file, &line), -1);
    assert_int_equal(ct_at_parse("c.cs:0", file, sizeof file, &line), -1);
    assert_int_equal(ct_at_parse(":4", file, sizeof file, &line), -1);
    assert_int_equal(ct_at_parse("c.cs:", file, sizeof file, &line), -1);
    assert_int_equal(ct_at_parse("c.cs:4x", file, sizeof file, &line), -1);
    assert_int_equal(ct_at_parse("c.cs:-4", file, sizeof file, &line), -1);
    /* A file of CT_AT_MAX_FILE - 1 bytes, and one past it. */
    static char longest[CT_AT_MAX_FILE + 16];
    memset(longest, 'x', CT_AT_MAX_FILE - 1);
    strcpy(longest + CT_AT_MAX_FILE - 1, ":3");
    assert_int_equal(ct_at_parse(longest, file, sizeof file, &line), 0);
    assert_int_equal(strlen(file), CT_AT_MAX_FILE - 1);
    memset(longest, 'x', CT_AT_MAX_FILE);
    strcpy(longest + CT_AT_MAX_FILE, ":3");
    assert_int_equal(ct_at_parse(longest, file, sizeof file, &line), -1);
}

static void test_help_lines(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    for (int g = CT_GROUP_SELECT; g <= CT_GROUP_INJECT; g++)
        ct_settings_help(f, (ct_setting_group)g);
    fclose(f);
    /* Each option with help once, at column 2; every line within 80 columns;
     * the numbers filled in. */
    int options = 0;
    for (int i = 0; i < CT_SETTING_COUNT; i++)
        if (ct_settings[i].longopt && ct_settings[i].help && ct_settings[i].group != CT_GROUP_NONE)
            options++;
    int starts = 0;
    for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        assert_true(nl - line <= 80);
        if (line[0] == ' ' && line[1] == ' ' && (line[2] == '-' || !strncmp(line + 2, "    --", 6)))
            starts++;
    }
    assert_int_equal(starts, options);
    assert_null(strchr(text, '{'));
    assert_non_null(strstr(text, "  -s, --string-chars N   keep at most N characters of each string "
                                 "(default 64)\n"));
    assert_non_null(strstr(text, "      --buffer-kb N      per-thread buffer in KiB "
                                 "(16-1048576, default 512)\n"));
    assert_non_null(strstr(text, "  -D, --depth N          show calls at most N levels deep "
                                 "(1-65536)\n"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_at_and_past_their_bounds),
        cmocka_unit_test(test_flags_null_durations_globs),
        cmocka_unit_test(test_spellings_unique),
        cmocka_unit_test(test_help_lines),
        cmocka_unit_test(test_when),
        cmocka_unit_test(test_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
