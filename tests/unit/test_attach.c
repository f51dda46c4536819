/* The attach protocol's request (src/format/attach.h): written and
 * read back; CT_ATTACH_MAX_SETTINGS settings at the limit and one past it,
 * CT_ATTACH_REQUEST_MAX bytes at the limit and one past it; malformed
 * requests refused with a line; the socket name and /proc/PID/stat's start
 * time; what attaching into a container reads (socket names matched by
 * prefix, NSpid, Uid/Gid lines, uid_map, the environment, musl in maps),
 * malformed text refused, never read past. */
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

#include "format/attach.h"

static char g_names[CT_ATTACH_MAX_SETTINGS + 1][32];
static const char *g_name[CT_ATTACH_MAX_SETTINGS + 1];
static const char *g_value[CT_ATTACH_MAX_SETTINGS + 1];

static void settings(size_t n, const char *value)
{
    for (size_t i = 0; i < n; i++) {
        snprintf(g_names[i], sizeof g_names[i], "CLRTRACE_S%zu", i);
        g_name[i] = g_names[i];
        g_value[i] = value;
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    static char buf[CT_ATTACH_REQUEST_MAX + 1];
    const char *names[] = {"CLRTRACE_ENGINE", "CLRTRACE_INCLUDE", "CLRTRACE_STRING_CHARS"};
    const char *values[] = {"il", "App.*:Lib.Thing=x", ""};
    size_t len = ct_attach_request_write(buf, sizeof buf, 1, 0, 3, names, values);
    assert_true(len > 0);
    assert_int_equal(strlen(buf), len);
    assert_string_equal(buf, "clrtrace-session 1\ntext 1\nbinary 0\nCLRTRACE_ENGINE=il\n"
                             "CLRTRACE_INCLUDE=App.*:Lib.Thing=x\nCLRTRACE_STRING_CHARS=\n");
    ct_attach_request r;
    char why[256];
    assert_int_equal(ct_attach_request_parse(buf, &r, why, sizeof why), 0);
    assert_int_equal(r.text, 1);
    assert_int_equal(r.binary, 0);
    assert_int_equal(r.n, 3);
    assert_string_equal(ct_attach_request_get(&r, "CLRTRACE_INCLUDE"), "App.*:Lib.Thing=x");
    assert_string_equal(ct_attach_request_get(&r, "CLRTRACE_STRING_CHARS"), "");
    assert_null(ct_attach_request_get(&r, "CLRTRACE_EXCLUDE"));
}

static void test_settings_at_and_past_the_limit(void **state)
{
    (void)state;
    static char buf[CT_ATTACH_REQUEST_MAX + 1];
    settings(CT_ATTACH_MAX_SETTINGS + 1, "1");
    assert_true(ct_attach_request_write(buf, sizeof buf, 0, 1, CT_ATTACH_MAX_SETTINGS, g_name,
                                        g_value) > 0);
    ct_attach_request r;
    char why[256];
    assert_int_equal(ct_attach_request_parse(buf, &r, why, sizeof why), 0);
    assert_int_equal(r.n, CT_ATTACH_MAX_SETTINGS);
    assert_int_equal(ct_attach_request_write(buf, sizeof buf, 0, 1, CT_ATTACH_MAX_SETTINGS + 1,
                                             g_name, g_value), 0);
    /* One more line than that, made by hand: refused by the reader. */
    size_t len = ct_attach_request_write(buf, sizeof buf, 0, 1, CT_ATTACH_MAX_SETTINGS, g_name,
                                         g_value);
    snprintf(buf + len, sizeof buf - len, "CLRTRACE_ONE_MORE=1\n");
    assert_int_equal(ct_attach_request_parse(buf, &r, why, sizeof why), -1);
    assert_non_null(strstr(why, "more settings"));
}

static void test_bytes_at_and_past_the_limit(void **state)
{
    (void)state;
    static char buf[CT_ATTACH_REQUEST_MAX + 64];
    static char value[CT_ATTACH_REQUEST_MAX];
    const char *names[] = {"CLRTRACE_INCLUDE"};
    const char *values[] = {value};
    /* The fixed part, then a value that fills the request to exactly
     * CT_ATTACH_REQUEST_MAX - 1 bytes (the NUL makes the limit). */
    size_t head = strlen("clrtrace-session 1\ntext 0\nbinary 1\nCLRTRACE_INCLUDE=\n");
    size_t fill = CT_ATTACH_REQUEST_MAX - 1 - head;
    memset(value, 'a', fill);
    value[fill] = '\0';
    assert_int_equal(ct_attach_request_write(buf, sizeof buf, 0, 1, 1, names, values),
                     CT_ATTACH_REQUEST_MAX - 1);
    value[fill] = 'a';
    value[fill + 1] = '\0';
    assert_int_equal(ct_attach_request_write(buf, sizeof buf, 0, 1, 1, names, values), 0);
}

static void test_malformed(void **state)
{
    (void)state;
    ct_attach_request r;
    char why[256];
    char bad_hello[] = "clrtrace-session 2\ntext 1\n";
    assert_int_equal(ct_attach_request_parse(bad_hello, &r, why, sizeof why), -1);
    assert_non_null(strstr(why, "not a clrtrace session request"));
    char empty[] = "";
    assert_int_equal(ct_attach_request_parse(empty, &r, why, sizeof why), -1);
    char odd[] = "clrtrace-session 1\ntext 2\n";
    assert_int_equal(ct_attach_request_parse(odd, &r, why, sizeof why), -1);
    char noname[] = "clrtrace-session 1\n=1\n";
    assert_int_equal(ct_attach_request_parse(noname, &r, why, sizeof why), -1);
    /* A writer never makes a line break inside a value or '=' in a name. */
    char buf[256];
    const char *names[] = {"CLRTRACE_A"}, *eq_name[] = {"A=B"}, *values[] = {"x\ny"},
               *plain[] = {"x"};
    assert_int_equal(ct_attach_request_write(buf, sizeof buf, 0, 0, 1, names, values), 0);
    assert_int_equal(ct_attach_request_write(buf, sizeof buf, 0, 0, 1, eq_name, plain), 0);
}

static void test_names(void **state)
{
    (void)state;
    char name[CT_ATTACH_SOCKET_MAX + 1];
    assert_int_equal(ct_attach_socket_name(4242, 987654321ull, name, sizeof name),
                     (int)strlen("clrtrace-attach-4242-987654321"));
    assert_string_equal(name, "clrtrace-attach-4242-987654321");
    assert_int_equal(ct_attach_socket_name(4242, 1, name, 8), -1);
    unsigned long long a = 0, b = 0;
    assert_int_equal(ct_proc_start_time((unsigned)getpid(), &a), 0);
    assert_int_equal(ct_proc_start_time((unsigned)getpid(), &b), 0);
    assert_true(a > 0 && a == b);
    /* The parent started no later than this process. */
    unsigned long long p = 0;
    assert_int_equal(ct_proc_start_time((unsigned)getppid(), &p), 0);
    assert_true(p <= a);
    assert_int_equal(ct_proc_start_time(0, &a), -1);
}

/* CLRTRACE_WHEN: one request line per condition, joined again by line
 * breaks; the joined text at its buffer's size and one byte past it. */
static void test_join(void **state)
{
    (void)state;
    static char buf[4096];
    const char *names[] = {"CLRTRACE_WHEN", "CLRTRACE_INCLUDE", "CLRTRACE_WHEN"};
    const char *values[] = {"A.B: x == 1", "A.*", "C.D: s == \"a=b\""};
    assert_true(ct_attach_request_write(buf, sizeof buf, 0, 1, 3, names, values) > 0);
    ct_attach_request r;
    char why[256], out[64];
    assert_int_equal(ct_attach_request_parse(buf, &r, why, sizeof why), 0);
    const char *joined = "A.B: x == 1\nC.D: s == \"a=b\"";
    size_t n = strlen(joined);
    assert_int_equal(ct_attach_request_join(&r, "CLRTRACE_WHEN", out, sizeof out), (long)n);
    assert_string_equal(out, joined);
    assert_int_equal(ct_attach_request_join(&r, "CLRTRACE_WHEN", out, n + 1), (long)n);
    assert_int_equal(ct_attach_request_join(&r, "CLRTRACE_WHEN", out, n), -1);
    assert_int_equal(ct_attach_request_join(&r, "CLRTRACE_INCLUDE", out, sizeof out), 3);
    assert_string_equal(out, "A.*");
    assert_int_equal(ct_attach_request_join(&r, "CLRTRACE_TRIGGER", out, sizeof out), -1);
}

static void test_cmdline(void **state)
{
    (void)state;
    char want[4096], got[4096 + 4];
    /* This process: its own path (argv[0], no arguments). */
    long n = ct_proc_read((unsigned)getpid(), "cmdline", want, sizeof want);
    assert_true(n > 1);
    ct_proc_cmdline((unsigned)getpid(), 4000, got, sizeof got);
    assert_string_equal(got, want);
    /* Cut at max bytes, then "...". */
    ct_proc_cmdline((unsigned)getpid(), 5, got, sizeof got);
    assert_int_equal(strlen(got), 8);
    assert_memory_equal(got, want, 5);
    assert_string_equal(got + 5, "...");
    /* Exactly max bytes long: cut too (the reader cannot tell it ended). */
    size_t len = strlen(want);
    ct_proc_cmdline((unsigned)getpid(), len, got, sizeof got);
    assert_int_equal(strlen(got), len + 3);
    ct_proc_cmdline((unsigned)getpid(), len + 1, got, sizeof got);
    assert_string_equal(got, want);
    /* No such process; too small an output. */
    ct_proc_cmdline(0, 100, got, sizeof got);
    assert_string_equal(got, "?");
    ct_proc_cmdline((unsigned)getpid(), 100, got, 50);
    assert_string_equal(got, "?");
}

static void test_socket_names(void **state)
{
    (void)state;
    char name[CT_ATTACH_SOCKET_MAX + 1];
    assert_int_equal(ct_attach_path_socket_name(7, 42, name, sizeof name),
                     (int)strlen("clrtrace-attach-7-42-socket"));
    assert_string_equal(name, "clrtrace-attach-7-42-socket");
    assert_int_equal(ct_attach_path_socket_name(7, 42, name, 10), -1);
    unsigned long long key = 0;
    assert_int_equal(ct_socket_name_key("dotnet-diagnostic-3-1090214-socket",
                                        CT_DIAG_SOCKET_PREFIX, 3, &key), 0);
    assert_true(key == 1090214);
    /* Another pid, a pid that only starts the same, no key, letters, no
     * suffix, something after it. */
    assert_int_equal(ct_socket_name_key("dotnet-diagnostic-3-1-socket", CT_DIAG_SOCKET_PREFIX, 31, &key), -1);
    assert_int_equal(ct_socket_name_key("dotnet-diagnostic-31-1-socket", CT_DIAG_SOCKET_PREFIX, 3, &key), -1);
    assert_int_equal(ct_socket_name_key("dotnet-diagnostic-3--socket", CT_DIAG_SOCKET_PREFIX, 3, &key), -1);
    assert_int_equal(ct_socket_name_key("dotnet-diagnostic-3-1x-socket", CT_DIAG_SOCKET_PREFIX, 3, &key), -1);
    assert_int_equal(ct_socket_name_key("dotnet-diagnostic-3-1", CT_DIAG_SOCKET_PREFIX, 3, &key), -1);
    assert_int_equal(ct_socket_name_key("dotnet-diagnostic-3-1-socket.x", CT_DIAG_SOCKET_PREFIX, 3, &key), -1);
    assert_int_equal(ct_socket_name_key("clrtrace-attach-3-1-socket", CT_DIAG_SOCKET_PREFIX, 3, &key), -1);
    assert_int_equal(ct_socket_name_key("clrtrace-attach-3-1-socket", CT_CONTROL_SOCKET_PREFIX, 3, &key), 0);
    /* Keys at 20 digits: the largest 64-bit number, and one past it. */
    assert_int_equal(ct_socket_name_key("clrtrace-attach-3-18446744073709551615-socket",
                                        CT_CONTROL_SOCKET_PREFIX, 3, &key), 0);
    assert_true(key == 18446744073709551615ull);
    assert_int_equal(ct_socket_name_key("clrtrace-attach-3-18446744073709551616-socket",
                                        CT_CONTROL_SOCKET_PREFIX, 3, &key), -1);
    assert_int_equal(ct_socket_name_key("clrtrace-attach-3-000000000000000000001-socket",
                                        CT_CONTROL_SOCKET_PREFIX, 3, &key), -1);
}

static void test_status(void **state)
{
    (void)state;
    unsigned v = 0, ids[4];
    const char *st = "Name:\tdotnet\nTgid:\t9975\nNSpid:\t9975\t3\nUid:\t0\t1000\t1000\t1000\n"
                     "Gid:\t5\t6\t7\t8\n";
    assert_int_equal(ct_status_nspid(st, &v), 0);
    assert_int_equal(v, 3);
    assert_int_equal(ct_status_ids(st, "Uid:", ids), 0);
    assert_int_equal(ids[1], 1000);
    assert_int_equal(ct_status_ids(st, "Gid:", ids), 0);
    assert_int_equal(ids[0], 5);
    assert_int_equal(ids[3], 8);
    /* One pid namespace; the last line without its line break. */
    assert_int_equal(ct_status_nspid("NSpid:\t42", &v), 0);
    assert_int_equal(v, 42);
    /* No such line, an empty one, a word, a number past 32 bits, too few
     * ids. */
    assert_int_equal(ct_status_nspid("Name:\tx\n", &v), -1);
    assert_int_equal(ct_status_nspid("NSpid:\n", &v), -1);
    assert_int_equal(ct_status_nspid("NSpid:\t1\tx\n", &v), -1);
    assert_int_equal(ct_status_nspid("NSpid:\t4294967296\n", &v), -1);
    assert_int_equal(ct_status_nspid("NSpid:\t4294967295\n", &v), 0);
    assert_int_equal(ct_status_ids("Uid:\t0\t0\t0\n", "Uid:", ids), -1);
    /* More pid namespaces than the kernel nests: refused. */
    char many[512] = "NSpid:";
    for (int i = 0; i < 34; i++)
        strcat(many, "\t1");
    assert_int_equal(ct_status_nspid(many, &v), -1);
}

static void test_uid_map(void **state)
{
    (void)state;
    unsigned in = 99;
    /* No user namespace: the identity. */
    assert_int_equal(ct_id_map_inside("         0          0 4294967295\n", 1000, &in), 0);
    assert_int_equal(in, 1000);
    /* A rootless container: the user is root inside, 100000... are 1... */
    const char *map = "0 1000 1\n1 100000 65536\n";
    assert_int_equal(ct_id_map_inside(map, 1000, &in), 0);
    assert_int_equal(in, 0);
    assert_int_equal(ct_id_map_inside(map, 100005, &in), 0);
    assert_int_equal(in, 6);
    /* Not mapped: root of the host, one past the range. */
    assert_int_equal(ct_id_map_inside(map, 0, &in), -1);
    assert_int_equal(ct_id_map_inside(map, 165536, &in), -1);
    /* Malformed lines. */
    assert_int_equal(ct_id_map_inside("0 1000\n", 1000, &in), -1);
    assert_int_equal(ct_id_map_inside("0 1000 1 2\n", 1000, &in), -1);
    assert_int_equal(ct_id_map_inside("a b c\n", 1000, &in), -1);
    assert_int_equal(ct_id_map_inside("", 1000, &in), -1);
}

static void test_environ_and_maps(void **state)
{
    (void)state;
    static const char env[] = "A=1\0TMPDIR=/var/tmp\0DOTNET_EnableDiagnostics=0\0TMPDIRX=no\0B";
    size_t n = sizeof env - 1;
    assert_string_equal(ct_environ_get(env, n, "TMPDIR"), "/var/tmp");
    assert_string_equal(ct_environ_get(env, n, "DOTNET_EnableDiagnostics"), "0");
    assert_null(ct_environ_get(env, n, "TMP"));
    assert_null(ct_environ_get(env, n, "B")); /* no '=': not a variable */
    /* The last string without its NUL: never read past n. */
    static const char cut[] = {'X', '=', '1', '2'};
    assert_null(ct_environ_get(cut, 3, "Y"));
    assert_int_equal(ct_maps_line_is_musl("7f00-7f10 r-xp 0 08:01 5 /lib/ld-musl-x86_64.so.1"), 1);
    assert_int_equal(ct_maps_line_is_musl("7f00-7f10 r-xp 0 08:01 5 /usr/lib/libc.musl-aarch64.so.1"), 1);
    assert_int_equal(ct_maps_line_is_musl("7f00-7f10 r-xp 0 08:01 5 /lib/x86_64-linux-gnu/libc.so.6"), 0);
    assert_int_equal(ct_maps_line_is_musl("7f00-7f10 r-xp 0 08:01 5 /opt/ld-musl-notes/libx.so"), 0);
    assert_int_equal(ct_maps_line_is_musl("7f00-7f10 rw-p 0 00:00 0 "), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_settings_at_and_past_the_limit),
        cmocka_unit_test(test_bytes_at_and_past_the_limit),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_cmdline),
        cmocka_unit_test(test_socket_names),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_uid_map),
        cmocka_unit_test(test_environ_and_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
