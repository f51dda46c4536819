/* The offline commands' options (src/cli/options.c): one cli_offline filled
 * from argv by cli_offline_parse, and each bad command line answered with
 * one line on stderr naming the command and what is wrong, as cli.h
 * describes. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli.h"

#define ARGC(a) ((int)(sizeof a / sizeof *a))

static char g_err[4096];

/* cli_offline_parse with stderr captured into g_err. */
static int parse(cli_offline *o, const char *who, int argc, const char *const *argv)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0 && dup2(fileno(tmp), 2) == 2);
    int rc = cli_offline_parse(o, who, argc, (char **)argv);
    fflush(stderr);
    assert_true(dup2(saved, 2) == 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(g_err, 1, sizeof g_err - 1, tmp);
    g_err[n] = '\0';
    fclose(tmp);
    return rc;
}

static void test_report_filled(void **state)
{
    (void)state;
    static cli_offline o;
    const char *argv[] = {"report", "--sort", "self", "-n", "3", "--percent", "-F", "Demo.*",
                          "-F", "App.*", "-N", "*Tick", "--tid", "7", "--tid", "9", "--since",
                          "1ms", "--until", "2s", "--pid", "42", "-D", "2", "-T", "Main",
                          "--min-time", "5us", "dir"};
    assert_int_equal(parse(&o, "report", ARGC(argv), argv), 0);
    assert_string_equal(g_err, "");
    assert_string_equal(o.who, "report");
    assert_string_equal(o.trace, "dir");
    assert_false(o.help);
    assert_int_equal(o.pid, 42);
    assert_int_equal(o.render.sort, CT_SORT_SELF);
    assert_int_equal(o.render.top, 3);
    assert_true(o.render.percent);
    assert_true(o.render.summary);
    assert_false(o.render.lines);
    assert_null(o.diff);
    assert_false(o.by_trace);
    const cli_selection *s = &o.reading.sel;
    assert_string_equal(s->include, "Demo.*:App.*");
    assert_string_equal(s->exclude, "*Tick");
    assert_int_equal(s->ntids, 2);
    assert_int_equal(s->tids[0], 7);
    assert_int_equal(s->tids[1], 9);
    assert_int_equal(s->since, 1000000);
    assert_int_equal(s->until, 2000000000);
    const ct_filter_opts *f = &o.reading.tree.opts;
    assert_int_equal(f->depth, 2);
    assert_int_equal(f->min_time_ns, 5000);
    assert_string_equal(f->trigger, "Main");
}

static void test_report_by_trace(void **state)
{
    (void)state;
    static cli_offline o;
    const char *argv[] = {"report", "--by-trace", "-n", "5", "--trace-id",
                          "4bf92f3577b34da6a3ce929d0e0e4736", "-F", "Shop.*", "dir"};
    assert_int_equal(parse(&o, "report", ARGC(argv), argv), 0);
    assert_string_equal(g_err, "");
    assert_true(o.by_trace);
    assert_null(o.table_option);
    assert_int_equal(o.render.top, 5);
    assert_true(o.reading.sel.by_trace);
    assert_string_equal(o.reading.sel.include, "Shop.*");
}

static void test_replay_and_dump_filled(void **state)
{
    (void)state;
    static cli_offline o;
    const char *replay[] = {"replay", "--no-summary", "--jit", "--pid", "all", "t.clrt"};
    assert_int_equal(parse(&o, "replay", ARGC(replay), replay), 0);
    assert_true(o.render.lines);
    assert_false(o.render.summary);
    assert_true(o.render.jit);
    assert_int_equal(o.pid, CLI_PID_ALL);
    assert_string_equal(o.trace, "t.clrt");

    const char *dump[] = {"dump", "--flame", "--calls", "--width", "800", "--title", "T", "d"};
    assert_int_equal(parse(&o, "dump", ARGC(dump), dump), 0);
    assert_int_equal(o.dump.format, CLI_DUMP_FLAME);
    assert_true(o.dump.by_calls);
    assert_int_equal(o.dump.width, 800);
    assert_string_equal(o.dump.title, "T");
    assert_int_equal(o.dump.max_calls, CLI_CHROME_MAX_CALLS);
    assert_int_equal(o.pid, 0);

    const char *chrome[] = {"dump", "d", "--chrome", "--max-calls", "0"};
    assert_int_equal(parse(&o, "dump", ARGC(chrome), chrome), 0);
    assert_int_equal(o.dump.format, CLI_DUMP_CHROME);
    assert_int_equal(o.dump.max_calls, 0);
    assert_int_equal(o.dump.width, FLAME_DEFAULT_WIDTH);
}

/* -h stops the reading: no trace is needed, what follows is not read. */
/* --name=VALUE, as run and record take it, in every command that reads a
 * trace (issue 42): the same as --name VALUE; --srcline=full keeps its
 * own form; a value given so to an option that takes none is refused. */
static void test_inline_values(void **state)
{
    (void)state;
    static cli_offline o;
    const char *argv[] = {"replay", "--depth=3", "--min-time=5us", "-F", "Demo.*",
                          "--pid=42", "--srcline=full", "dir"};
    assert_int_equal(parse(&o, "replay", ARGC(argv), argv), 0);
    assert_string_equal(g_err, "");
    assert_int_equal(o.reading.tree.opts.depth, 3);
    assert_int_equal(o.reading.tree.opts.min_time_ns, 5000);
    assert_int_equal(o.pid, 42);
    assert_int_equal(o.render.srcline, 2);
    assert_string_equal(o.trace, "dir");
    const char *report[] = {"report", "--sort=self", "--top=3", "dir"};
    assert_int_equal(parse(&o, "report", ARGC(report), report), 0);
    assert_int_equal(o.render.sort, CT_SORT_SELF);
    assert_int_equal(o.render.top, 3);
    const char *flag[] = {"report", "--percent=1", "dir"};
    assert_int_equal(parse(&o, "report", ARGC(flag), flag), -1);
    assert_string_equal(g_err, "clrtrace report: --percent takes no value (try --help)\n");
    const char *empty[] = {"replay", "--depth=", "dir"};
    assert_int_equal(parse(&o, "replay", ARGC(empty), empty), -1);
    assert_string_equal(g_err, "clrtrace replay: --depth takes a whole number from 1 to 65536, "
                               "not ''\n");
}

/* The one number parser (ct_parse_whole) at its bounds and one past, and
 * cli_number's one line. */
static void test_numbers(void **state)
{
    (void)state;
    uint64_t n = 0;
    assert_int_equal(ct_parse_whole("1", 1, 10, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(ct_parse_whole("10", 1, 10, &n), 0);
    assert_int_equal(n, 10);
    assert_int_equal(ct_parse_whole("0", 1, 10, &n), -1);
    assert_int_equal(ct_parse_whole("11", 1, 10, &n), -1);
    assert_int_equal(ct_parse_whole("18446744073709551615", 0, UINT64_MAX, &n), 0);
    assert_true(n == UINT64_MAX);
    assert_int_equal(ct_parse_whole("18446744073709551616", 0, UINT64_MAX, &n), -1);
    assert_int_equal(ct_parse_whole("", 0, 10, &n), -1);
    assert_int_equal(ct_parse_whole(NULL, 0, 10, &n), -1);
    assert_int_equal(ct_parse_whole("-1", 0, 10, &n), -1);
    assert_int_equal(ct_parse_whole(" 1", 0, 10, &n), -1);
    assert_int_equal(ct_parse_whole("0x1", 0, 10, &n), -1);
    static cli_offline o;
    const char *top[] = {"report", "-n", "4294967296", "dir"};
    assert_int_equal(parse(&o, "report", ARGC(top), top), -1);
    assert_string_equal(g_err, "clrtrace report: -n takes a number of rows from 1 to 4294967295, "
                               "not '4294967296'\n");
    const char *last[] = {"report", "--top=4294967295", "dir"};
    assert_int_equal(parse(&o, "report", ARGC(last), last), 0);
    assert_int_equal(o.render.top, 4294967295u);
    const char *spans[] = {"dump", "--otlp", "--otlp-max-spans=0", "dir"};
    assert_int_equal(parse(&o, "dump", ARGC(spans), spans), -1);
    assert_string_equal(g_err, "clrtrace dump: --otlp-max-spans takes a number of spans from 1 "
                               "to 1000000, not '0'\n");
    const char *pid[] = {"replay", "--pid=2147483648", "dir"};
    assert_int_equal(parse(&o, "replay", ARGC(pid), pid), -1);
    assert_string_equal(g_err, "clrtrace replay: --pid takes a process id or all, not "
                               "'2147483648'\n");
    const char *pid_last[] = {"replay", "--pid=2147483647", "dir"};
    assert_int_equal(parse(&o, "replay", ARGC(pid_last), pid_last), 0);
    assert_int_equal(o.pid, 2147483647L);
}

/* The one reader of --name=VALUE: split up to a "--", the rest as it is
 * (a program's own arguments). */
static void test_split(void **state)
{
    (void)state;
    const char *argv[] = {"top", "--batch=2", "--depth=3", "--", "prog", "--x=1"};
    char *out[16];
    char names[64];
    unsigned char inl[16];
    int n = cli_split_inline(ARGC(argv), (char **)argv, out, names, sizeof names, inl, 16);
    assert_int_equal(n, 8);
    const char *want[] = {"top", "--batch", "2", "--depth", "3", "--", "prog", "--x=1"};
    const unsigned char want_inl[] = {0, 0, 1, 0, 1, 0, 0, 0};
    for (int k = 0; k < n; k++) {
        assert_string_equal(out[k], want[k]);
        assert_int_equal(inl[k], want_inl[k]);
    }
    assert_int_equal(cli_split_inline(ARGC(argv), (char **)argv, out, names, sizeof names, inl,
                                      7), -1);
}

static void test_help(void **state)
{
    (void)state;
    static cli_offline o;
    const char *argv[] = {"info", "--help", "--bogus"};
    assert_int_equal(parse(&o, "info", ARGC(argv), argv), 0);
    assert_true(o.help);
    assert_string_equal(g_err, "");
}

/* Each bad command line: -1 and exactly one line. */
static void test_errors(void **state)
{
    (void)state;
    static cli_offline o;
    static const struct {
        const char *who;
        const char *argv[6];
        const char *err;
    } cases[] = {
        {"replay", {"replay", "--bogus", "dir"},
         "clrtrace replay: unknown option '--bogus' (try --help)\n"},
        {"info", {"info", "-D", "2", "dir"},
         "clrtrace info: unknown option '-D' (try --help)\n"},
        {"report", {"report", "a", "b"}, "clrtrace report: one trace at a time (try --help)\n"},
        {"report", {"report", "--jit"}, "clrtrace report: no trace given (try --help)\n"},
        {"report", {"report", "--sort", "size", "dir"},
         "clrtrace report: --sort takes total, self, calls, avg, max, jit or exceptions\n"},
        {"dump", {"dump", "--pid", "all", "dir"},
         "clrtrace dump: --pid takes a process id, not 'all'\n"},
        {"dump", {"dump", "--calls", "dir"},
         "clrtrace dump: --calls goes with --folded or --flame (try --help)\n"},
        {"dump", {"dump", "--folded", "--chrome", "dir"},
         "clrtrace dump: --chrome: one of --folded, --flame, --chrome, --perfetto, --otlp (try --help)\n"},
        {"replay", {"replay", "--tid", "x", "dir"},
         "clrtrace replay: --tid takes a thread id (at most 64 of them), not 'x'\n"},
        {"replay", {"replay", "--since", "soon", "dir"},
         "clrtrace replay: --since takes a time from the trace's start (100ms, 1.5s; a bare "
         "number is us), not 'soon'\n"},
        {"replay", {"replay", "-F", "a:b", "dir"},
         "clrtrace replay: -F needs a pattern without ':' (patterns together at most 4095 "
         "characters)\n"},
        {"replay", {"replay", "dir", "-N"}, "clrtrace replay: -N needs a value (try --help)\n"},
        {"report", {"report", "--by-trace", "--sort", "calls", "dir"},
         "clrtrace report: --sort does not go with --by-trace (try --help)\n"},
        {"report", {"report", "--percent", "--by-trace", "dir"},
         "clrtrace report: --percent does not go with --by-trace (try --help)\n"},
        {"replay", {"replay", "--by-trace", "dir"},
         "clrtrace replay: unknown option '--by-trace' (try --help)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int argc = 0;
        while (argc < 6 && cases[k].argv[argc])
            argc++;
        assert_int_equal(parse(&o, cases[k].who, argc, cases[k].argv), -1);
        assert_string_equal(g_err, cases[k].err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_filled),
        cmocka_unit_test(test_report_by_trace),
        cmocka_unit_test(test_replay_and_dump_filled),
        cmocka_unit_test(test_inline_values),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
