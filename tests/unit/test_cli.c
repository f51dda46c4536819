/* The CLI's pieces under dump --chrome / --flame / --folded: escaping text
 * into JSON and XML (src/cli/escape.c), the call-stack walk
 * (src/cli/export/calls.c), the folded-stack tree (folded.c) and the JSON writer
 * (chrome.c), fed records built by hand, with their limits at and one past
 * the limit. Expected outputs are written from RFC 8259 (JSON strings), XML
 * 1.0 (Char production), RFC 3629 (UTF-8) and cli.h's descriptions. */
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
#include "records.h"

/* ------------------------------------------------------------- escaping */

static char *escaped(void (*fn)(FILE *, const char *, size_t), const char *s, size_t n)
{
    static char *buf;
    size_t len;
    free(buf);
    buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(f, s, n);
    fclose(f);
    return buf;
}

#define JSON(lit) escaped(ct_json_string, lit, sizeof lit - 1)
#define XML(lit) escaped(ct_xml_text, lit, sizeof lit - 1)

static void test_json_plain(void **state)
{
    (void)state;
    assert_string_equal(JSON(""), "\"\"");
    assert_string_equal(JSON("Demo.Shapes.Scale"), "\"Demo.Shapes.Scale\"");
    /* / and DEL need no escape; U+2028 is valid in JSON text. */
    assert_string_equal(JSON("a/b\x7f"), "\"a/b\x7f\"");
    assert_string_equal(JSON("h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80 \xE2\x80\xA8"),
                        "\"h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80 \xE2\x80\xA8\"");
}

static void test_json_escapes(void **state)
{
    (void)state;
    assert_string_equal(JSON("say \"hi\""), "\"say \\\"hi\\\"\"");
    assert_string_equal(JSON("back\\slash"), "\"back\\\\slash\"");
    /* Every control character as \u00XX, NUL included. */
    assert_string_equal(JSON("\x01\t\n\r\x1f"), "\"\\u0001\\u0009\\u000a\\u000d\\u001f\"");
    assert_string_equal(JSON("a\0b"), "\"a\\u0000b\"");
    assert_string_equal(JSON(" "), "\" \"");
}

static void test_json_invalid_utf8(void **state)
{
    (void)state;
    /* Each byte that does not start a valid sequence becomes U+FFFD. */
    assert_string_equal(JSON("\x80"), "\"\\ufffd\"");
    assert_string_equal(JSON("a\xFF" "b"), "\"a\\ufffdb\"");
    assert_string_equal(JSON("\xC0\x80"), "\"\\ufffd\\ufffd\"");         /* overlong NUL */
    assert_string_equal(JSON("\xE0\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\""); /* overlong */
    assert_string_equal(JSON("\xED\xA0\x80"), "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate D800 */
    assert_string_equal(JSON("\xF4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* 110000 */
    assert_string_equal(JSON("x\xE2\x82"), "\"x\\ufffd\\ufffd\"");      /* cut short */
    assert_string_equal(JSON("\xE2\x82\xAC\xE2"), "\"\xE2\x82\xAC\\ufffd\"");
}

static void test_utf8_limits(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t n, len;
        uint32_t cp;
    } cases[] = {
        { "\x7F", 1, 1, 0x7F },
        { "\xC2\x80", 2, 2, 0x80 },     { "\xC1\xBF", 2, 0, 0 },
        { "\xDF\xBF", 2, 2, 0x7FF },    { "\xE0\xA0\x80", 3, 3, 0x800 },
        { "\xE0\x9F\xBF", 3, 0, 0 },    { "\xED\x9F\xBF", 3, 3, 0xD7FF },
        { "\xED\xBF\xBF", 3, 0, 0 },    { "\xEE\x80\x80", 3, 3, 0xE000 },
        { "\xEF\xBF\xBF", 3, 3, 0xFFFF }, { "\xF0\x90\x80\x80", 4, 4, 0x10000 },
        { "\xF0\x8F\xBF\xBF", 4, 0, 0 }, { "\xF4\x8F\xBF\xBF", 4, 4, 0x10FFFF },
        { "\xF4\x90\x80\x80", 4, 0, 0 }, { "\xF5\x80\x80\x80", 4, 0, 0 },
        { "\xF0\x90\x80", 3, 0, 0 },    { "\xC2\x41", 2, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint32_t cp = 0;
        size_t len = ct_utf8_next((const unsigned char *)cases[i].s, cases[i].n, &cp);
        assert_int_equal(len, cases[i].len);
        if (len)
            assert_int_equal(cp, cases[i].cp);
    }
}

static void test_xml(void **state)
{
    (void)state;
    assert_string_equal(XML("Demo.Util.First<T>"), "Demo.Util.First&lt;T&gt;");
    assert_string_equal(XML("a & \"b\" 'c'"), "a &amp; &quot;b&quot; &apos;c&apos;");
    /* Tab, newline, carriage return are XML characters; other controls and
     * U+FFFE/U+FFFF are not, and invalid UTF-8 is not text: U+FFFD. */
    assert_string_equal(XML("\t\n\r"), "\t\n\r");
    assert_string_equal(XML("a\x01" "b\0c"), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c");
    assert_string_equal(XML("\xEF\xBF\xBE\xEF\xBF\xBF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
    assert_string_equal(XML("\xC3\xA9\xFF"), "\xC3\xA9\xEF\xBF\xBD");
}

/* --------------------------------------------------------- the walk */

typedef struct seen {
    char log[8192];
    size_t len;
    uint64_t enters, leaves;
} seen;

static void note(seen *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->log + s->len, sizeof s->log - s->len, fmt, ap);
    va_end(ap);
    if (n > 0 && s->len + (size_t)n < sizeof s->log)
        s->len += (size_t)n;
}

static int on_enter(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *rec)
{
    seen *s = ctx;
    s->enters++;
    if (t->stack.depth <= 4)
        note(s, "+%s@%llu ", cli_top(t)->fn->name, (unsigned long long)cli_top(t)->start);
    return 0;
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *leave)
{
    static const char *const ways[] = { "ret", "exc", "tail", "unf" };
    seen *s = ctx;
    const cli_frame *f = cli_top(t);
    s->leaves++;
    assert_true(end >= f->start);
    /* The LEAVE record of a return, the UNWIND record of an exception. */
    assert_true((how == CLI_END_RETURN || how == CLI_END_EXCEPTION) == (leave != NULL));
    if (leave)
        assert_int_equal(leave->type, how == CLI_END_RETURN ? CT_REC_LEAVE : CT_REC_UNWIND);
    if (t->stack.depth <= 4)
        note(s, "-%s@%llu:%s/%llu ", f->fn->name, (unsigned long long)end, ways[how],
             (unsigned long long)f->children);
    return 0;
}

static cli_calls *walker(seen *s)
{
    memset(s, 0, sizeof *s);
    cli_calls_ops ops = { .enter = on_enter, .leave = on_leave };
    cli_calls *w = cli_calls_new(&ops, s);
    assert_non_null(w);
    static const char *const names[] = { "?", "A", "B", "C" };
    for (uint64_t k = 1; k <= 3; k++) {
        ct_rec r = { .type = CT_REC_FUNCTION, .key = k, .name = names[k], .name_len = 1 };
        assert_int_equal(cli_calls_record(w, &r), 0);
    }
    return w;
}

static void ev(cli_calls *w, ct_rec_type type, uint64_t key, uint64_t t)
{
    ct_rec r = { .type = type, .key = key, .time_ns = t, .tid = 7 };
    assert_int_equal(cli_calls_record(w, &r), 0);
}

static void test_walk_pairs(void **state)
{
    (void)state;
    seen s;
    cli_calls *w = walker(&s);
    ev(w, CT_REC_ENTER, 1, 10);
    ev(w, CT_REC_ENTER, 2, 20);
    ev(w, CT_REC_LEAVE, 2, 30);
    ev(w, CT_REC_ENTER, 3, 31);
    ev(w, CT_REC_UNWIND, 3, 35);
    ev(w, CT_REC_ENTER, 2, 36);
    ev(w, CT_REC_TAILCALL, 2, 40);
    ev(w, CT_REC_LEAVE, 1, 50);
    assert_int_equal(cli_calls_finish(w), 0);
    /* A's children: B 10 + C 4 + B 4. */
    assert_string_equal(s.log, "+A@10 +B@20 -B@30:ret/0 +C@31 -C@35:exc/0 +B@36 -B@40:tail/0 "
                               "-A@50:ret/18 ");
    assert_int_equal(w->calls, 4);
    assert_int_equal(w->unfinished + w->unmatched + w->too_deep, 0);
    assert_int_equal(w->last_time, 50);
    cli_calls_free(w);
}

static void test_walk_time_never_goes_back(void **state)
{
    (void)state;
    seen s;
    cli_calls *w = walker(&s);
    ev(w, CT_REC_ENTER, 1, 100);
    ev(w, CT_REC_ENTER, 2, 90);  /* taken at 100 */
    ev(w, CT_REC_LEAVE, 2, 95);  /* ends at 100 */
    ev(w, CT_REC_LEAVE, 1, 80);
    assert_int_equal(cli_calls_finish(w), 0);
    assert_string_equal(s.log, "+A@100 +B@100 -B@100:ret/0 -A@100:ret/0 ");
    cli_calls_free(w);
}

static void test_walk_missed_end(void **state)
{
    (void)state;
    seen s;
    cli_calls *w = walker(&s);
    ev(w, CT_REC_ENTER, 1, 10);
    ev(w, CT_REC_ENTER, 2, 20);
    ev(w, CT_REC_ENTER, 3, 25);
    /* A ends while B and C are open: their ends were missed. Their time
     * stays A's own. */
    ev(w, CT_REC_LEAVE, 1, 40);
    /* An end with no open call of its function. */
    ev(w, CT_REC_LEAVE, 2, 41);
    assert_int_equal(cli_calls_finish(w), 0);
    assert_string_equal(s.log, "+A@10 +B@20 +C@25 -C@40:unf/0 -B@40:unf/0 -A@40:ret/0 ");
    assert_int_equal(w->calls, 1);
    assert_int_equal(w->unfinished, 2);
    assert_int_equal(w->unmatched, 1);
    cli_calls_free(w);
}

static void test_walk_unfinished_at_end(void **state)
{
    (void)state;
    seen s;
    cli_calls *w = walker(&s);
    ev(w, CT_REC_ENTER, 1, 10);
    ev(w, CT_REC_ENTER, 2, 20);
    ev(w, CT_REC_LEAVE, 2, 30);
    ev(w, CT_REC_ENTER, 3, 40);
    ct_rec end = { .type = CT_REC_END, .time_ns = 99 };
    assert_int_equal(cli_calls_record(w, &end), 0);
    ev(w, CT_REC_LEAVE, 3, 120); /* after END: ignored */
    assert_int_equal(cli_calls_finish(w), 0);
    assert_string_equal(s.log, "+A@10 +B@20 -B@30:ret/0 +C@40 -C@99:unf/0 -A@99:unf/10 ");
    assert_int_equal(w->unfinished, 2);
    /* A trace cut short, no END: closed at the latest event time. */
    w = (cli_calls_free(w), walker(&s));
    ev(w, CT_REC_ENTER, 1, 10);
    ev(w, CT_REC_ENTER, 2, 20);
    ev(w, CT_REC_LEAVE, 2, 30);
    assert_int_equal(cli_calls_finish(w), 0);
    assert_string_equal(s.log, "+A@10 +B@20 -B@30:ret/0 -A@30:unf/10 ");
    cli_calls_free(w);
}

/* CLI_CALLS_MAX_DEPTH calls deep, every one is reported; one more is not
 * (too_deep), and its end is not either. */
static void test_walk_depth_limit(void **state)
{
    (void)state;
    seen s;
    for (uint32_t extra = 0; extra <= 1; extra++) {
        cli_calls *w = walker(&s);
        uint32_t n = CLI_CALLS_MAX_DEPTH + extra;
        for (uint32_t i = 0; i < n; i++)
            ev(w, CT_REC_ENTER, 1 + i % 2, 10 + i);
        assert_int_equal(s.enters, CLI_CALLS_MAX_DEPTH);
        assert_int_equal(w->too_deep, extra);
        for (uint32_t i = n; i-- > 0;)
            ev(w, CT_REC_LEAVE, 1 + i % 2, 100000 - i);
        assert_int_equal(s.leaves, CLI_CALLS_MAX_DEPTH);
        assert_int_equal(w->calls, CLI_CALLS_MAX_DEPTH);
        assert_int_equal(w->unmatched + w->unfinished, 0);
        assert_int_equal(w->first->stack.depth, 0);
        cli_calls_free(w);
    }
}

/* ------------------------------------------- folded stacks at the limit */

typedef struct tw {
    ct_wbuf w;
    ct_events_mark m;
    uint64_t t, n;
} tw;

static void tw_event(tw *x, ct_rec_type type, uint64_t key)
{
    x->t++;
    if (x->m.open && x->n % 65536 == 0)
        assert_int_equal(ct_events_end(&x->w, &x->m), CT_TRACE_OK);
    if (!x->m.open)
        assert_int_equal(ct_events_begin(&x->w, 7, x->t, key, &x->m), CT_TRACE_OK);
    assert_int_equal(ct_events_add(&x->w, &x->m, type, x->t, 0, key, 0, NULL, 0), CT_TRACE_OK);
    x->n++;
}

/* Writes mem[0..len) to a new file named from the mkstemp template path. */
static void write_temp(char *path, const uint8_t *mem, size_t len)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(mem, 1, len, f), len);
    fclose(f);
}

/* A call of function k (key k + 1) that makes the calls `inner` makes. */
#define CALL(x, k, inner)                      \
    do {                                        \
        tw_event(x, CT_REC_ENTER, (k) + 1);     \
        inner;                                  \
        tw_event(x, CT_REC_LEAVE, (k) + 1);     \
    } while (0)

/* K functions: K stacks one deep, K * K two deep, K three deep under f0;f0
 * and f0;f0;f0;f0: with K = 1023, 1023 + 1046529 + 1023 + 1 =
 * FOLDED_MAX_NODES stacks, all kept. Then f1;f1;f1 is one past: its one
 * call is lost, and nothing else. */
static void test_folded_node_limit(void **state)
{
    (void)state;
    enum { K = 1023 };
    _Static_assert(K + K * K + K + 1 == FOLDED_MAX_NODES, "the stacks fill the tree");
    size_t cap = 64u << 20;
    tw x = { 0 };
    uint8_t *mem = malloc(cap);
    assert_non_null(mem);
    ct_wbuf_init(&x.w, mem, cap);
    assert_int_equal(ct_write_header(&x.w, 4242, 1, 0, "test", "everything", ""), CT_TRACE_OK);
    for (unsigned k = 0; k < K; k++) {
        char name[16];
        snprintf(name, sizeof name, "f%04u", k);
        assert_int_equal(ct_write_function(&x.w, k + 1, name, "", CT_FN_STATIC | CT_FN_NO_VALUES,
                                           0, NULL, NULL), CT_TRACE_OK);
    }
    for (unsigned i = 0; i < K; i++)
        CALL(&x, i, for (unsigned j = 0; j < K; j++)
                        CALL(&x, j, if (i == 0 && j == 0) for (unsigned k = 0; k < K; k++)
                                        CALL(&x, k, if (k == 0) CALL(&x, 0, (void)0))));
    CALL(&x, 1, CALL(&x, 1, CALL(&x, 1, (void)0)));
    assert_int_equal(ct_events_end(&x.w, &x.m), CT_TRACE_OK);
    assert_int_equal(ct_write_end(&x.w, x.t + 1, x.n, K, K), CT_TRACE_OK);
    char path[] = "/tmp/clrtrace-test-cli-XXXXXX";
    write_temp(path, mem, x.w.len);
    free(mem);

    cli_trace t;
    assert_int_equal(cli_trace_open(&t, "test", path), 0);
    folded_tree tr;
    assert_int_equal(folded_collect(&t, 1, &tr), 0);
    cli_trace_close(&t);
    unlink(path);
    assert_int_equal(tr.n, FOLDED_MAX_NODES + 1); /* and the root */
    assert_int_equal(tr.lost, 1);
    uint64_t calls = 0;
    for (uint32_t i = 0; i < tr.n; i++)
        calls += tr.nodes[i].weight;
    assert_int_equal(calls, x.n / 2 - 1);
    folded_tree_free(&tr);
}

/* dump --folded writes its lines sorted by text (strcmp) without keeping
 * them: names that are prefixes of others, followed by characters below
 * and above ';' ("A" "A.B" "A<int, B>" "A2" "Ab"), nested at random, come
 * out in the order sorting the lines gives, each stack once, the calls all
 * counted. */
static void test_folded_order(void **state)
{
    (void)state;
    static const char *const names[] = { "A", "A.B", "A<int, B>", "A2", "Ab", "B", "A B" };
    enum { NF = sizeof names / sizeof *names, STEPS = 20000 };
    size_t cap = 4u << 20;
    tw x = { 0 };
    uint8_t *mem = malloc(cap);
    assert_non_null(mem);
    ct_wbuf_init(&x.w, mem, cap);
    assert_int_equal(ct_write_header(&x.w, 4242, 1, 0, "test", "everything", ""), CT_TRACE_OK);
    for (unsigned k = 0; k < NF; k++)
        assert_int_equal(ct_write_function(&x.w, k + 1, names[k], "", CT_FN_STATIC | CT_FN_NO_VALUES,
                                           0, NULL, NULL), CT_TRACE_OK);
    unsigned stack[8], depth = 0, calls = 0;
    uint32_t r = 12345;
    for (unsigned i = 0; i < STEPS || depth; i++) {
        r = r * 1103515245u + 12345u;
        if (i < STEPS && depth < 6 && (depth == 0 || (r >> 16) % 3)) {
            stack[depth++] = (r >> 8) % NF;
            tw_event(&x, CT_REC_ENTER, stack[depth - 1] + 1);
        } else {
            tw_event(&x, CT_REC_LEAVE, stack[--depth] + 1);
            calls++;
        }
    }
    assert_int_equal(ct_events_end(&x.w, &x.m), CT_TRACE_OK);
    assert_int_equal(ct_write_end(&x.w, x.t + 1, x.n, NF, NF), CT_TRACE_OK);
    char path[] = "/tmp/clrtrace-test-cli-XXXXXX", out[] = "/tmp/clrtrace-test-out-XXXXXX";
    write_temp(path, mem, x.w.len);
    free(mem);
    int ofd = mkstemp(out);
    assert_true(ofd >= 0);

    cli_trace t;
    assert_int_equal(cli_trace_open(&t, "test", path), 0);
    fflush(stdout);
    int saved = dup(1);
    assert_true(saved >= 0 && dup2(ofd, 1) == 1);
    assert_int_equal(cli_dump_folded(&t, 1), 0);
    fflush(stdout);
    assert_true(dup2(saved, 1) == 1);
    close(saved);
    cli_trace_close(&t);
    unlink(path);

    FILE *in = fdopen(ofd, "r");
    assert_non_null(in);
    rewind(in);
    char prev[512] = "", line[512];
    unsigned lines = 0, total = 0;
    while (fgets(line, sizeof line, in)) {
        char *sp = strrchr(line, ' ');
        assert_non_null(sp);
        total += (unsigned)strtoul(sp + 1, NULL, 10);
        *sp = 0;
        assert_true(lines == 0 || strcmp(prev, line) < 0); /* sorted, each stack once */
        snprintf(prev, sizeof prev, "%s", line);
        lines++;
    }
    fclose(in);
    unlink(out);
    assert_true(lines > 500);
    assert_int_equal(total, calls);
}

/* ----------------------------------------- argument text at the limit */

static const ct_plan p_str = { .kind = CT_V_STRING, .size = 8, .type_name = "string" };

/* A string value of n times c, as captured: address, length, n chars. */
static size_t put_string(uint8_t *out, char c, uint32_t n)
{
    uint64_t addr = 0x7f0000001000;
    uint32_t word = 8 + 4 + 4 + 2 * n; /* status CT_VALUE_PLAN */
    size_t k = 0;
    memcpy(out + k, &word, 4), k += 4;
    memcpy(out + k, &addr, 8), k += 8;
    memcpy(out + k, &n, 4), k += 4; /* length: as many as copied */
    memcpy(out + k, &n, 4), k += 4;
    for (uint32_t i = 0; i < n; i++, k += 2)
        out[k] = (uint8_t)c, out[k + 1] = 0;
    return k;
}

/* The JSON of one call of F(string a, string b, string c) with a of na
 * 'a's, b of nb 'b's and c "c". */
static char *chrome_of(uint32_t na, uint32_t nb)
{
    static uint8_t values[2 * CHROME_ARGS_MAX + 1024];
    ct_fn_param params[3] = { { "string a=", 9, &p_str }, { "string b=", 9, &p_str },
                              { "string c=", 9, &p_str } };
    ct_rec fn = { .type = CT_REC_FUNCTION, .key = 1, .name = "F", .name_len = 1, .nparams = 3,
                  .params = params };
    size_t len = put_string(values, 'a', na);
    len += put_string(values + len, 'b', nb);
    len += put_string(values + len, 'c', 1);
    ct_rec enter = { .type = CT_REC_ENTER, .key = 1, .tid = 7, .time_ns = 1000, .nvalues = 3,
                     .values = values, .values_len = len };
    ct_rec leave = { .type = CT_REC_LEAVE, .key = 1, .tid = 7, .time_ns = 2000 };
    ct_trace_header h = { .major = 2, .pid = 7, .cmdline = "t", .cmdline_len = 1 };
    char *json = NULL;
    size_t n;
    FILE *out = open_memstream(&json, &n);
    assert_non_null(out);
    cli_chrome *c = cli_chrome_new(out, &h);
    assert_non_null(c);
    assert_int_equal(cli_chrome_record(c, &fn), 0);
    assert_int_equal(cli_chrome_record(c, &enter), 0);
    assert_int_equal(cli_chrome_record(c, &leave), 0);
    assert_int_equal(cli_chrome_end(c, 0), 0);
    fclose(out);
    return json;
}

/* "KEY":"\"" + n times c + END as the JSON writes it. */
static char *member(const char *key, char c, size_t n, const char *end)
{
    char *s = malloc(n + 64);
    assert_non_null(s);
    int k = sprintf(s, "\"%s\":\"\\\"", key);
    memset(s + k, c, n);
    strcpy(s + k + n, end);
    return s;
}

static void test_chrome_args_limit(void **state)
{
    (void)state;
    /* a's text is 102 characters with its quotes; b's fills the rest. */
    size_t nb = CHROME_ARGS_MAX - 102 - 2;
    char *json = chrome_of(100, (uint32_t)nb);
    char *a = member("a", 'a', 100, "\\\"\",");
    char *b = member("b", 'b', nb, "\\\"\",\"c\":\"...\"}");
    assert_non_null(strstr(json, a));
    assert_non_null(strstr(json, b));
    free(json);
    free(b);
    /* One past: b is cut to the room left, ending in "...". */
    json = chrome_of(100, (uint32_t)nb + 1);
    b = member("b", 'b', nb + 2 - 1 - 3, "...\",\"c\":\"...\"}");
    assert_non_null(strstr(json, a));
    assert_non_null(strstr(json, b));
    free(json);
    free(b);
    /* Well below: every value whole. */
    json = chrome_of(100, 10);
    assert_non_null(strstr(json, "\"c\":\"\\\"c\\\"\"}"));
    free(json);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_plain),
        cmocka_unit_test(test_json_escapes),
        cmocka_unit_test(test_json_invalid_utf8),
        cmocka_unit_test(test_utf8_limits),
        cmocka_unit_test(test_xml),
        cmocka_unit_test(test_walk_pairs),
        cmocka_unit_test(test_walk_time_never_goes_back),
        cmocka_unit_test(test_walk_missed_end),
        cmocka_unit_test(test_walk_unfinished_at_end),
        cmocka_unit_test(test_walk_depth_limit),
        cmocka_unit_test(test_folded_node_limit),
        cmocka_unit_test(test_folded_order),
        cmocka_unit_test(test_chrome_args_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
