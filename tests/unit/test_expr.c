/* Conditions (src/format/expr.h): the parser at and past each limit, its
 * errors with their offsets, and the evaluator over values given by a fake
 * resolver (each expected answer worked out from the literal and the
 * value by hand). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/expr.h"

static ct_expr g_e;
static ct_expr_error g_err;

static int parse(const char *text)
{
    return ct_expr_parse(text, &g_e, &g_err);
}

/* Parsing text fails at offset `at` with a message containing `what`. */
static void fails_at(const char *text, size_t at, const char *what)
{
    int rc = parse(text);
    if (rc == 0 || g_err.offset != at || !strstr(g_err.message, what))
        fail_msg("'%.60s': rc %d offset %zu '%s' (wanted offset %zu, '%s')", text, rc,
                 g_err.offset, g_err.message, at, what);
    char tail[32];
    snprintf(tail, sizeof tail, "at offset %zu", at);
    assert_non_null(strstr(g_err.message, tail));
}

static void ok(const char *text)
{
    if (parse(text) != 0)
        fail_msg("'%.60s': %s", text, g_err.message);
}

/* ------------------------------------------------------- the parser */

static void test_parse_shapes(void **state)
{
    (void)state;
    ok("Shop.Orders.Place: order.Total > 1000 && order.Customer.Country == \"PT\"");
    assert_string_equal(g_e.glob, "Shop.Orders.Place");
    assert_int_equal(g_e.npaths, 2);
    assert_int_equal(g_e.paths[0].nseg, 2);
    assert_string_equal(ct_expr_seg(&g_e, &g_e.paths[0], 0), "order");
    assert_string_equal(ct_expr_seg(&g_e, &g_e.paths[0], 1), "Total");
    assert_int_equal(g_e.paths[1].nseg, 3);
    assert_string_equal(ct_expr_seg(&g_e, &g_e.paths[1], 2), "Country");
    assert_int_equal(g_e.nodes[g_e.root].op, CT_XOP_AND);
    assert_int_equal(g_e.nodes[g_e.root].count, 2);
    assert_int_equal(ct_expr_needs_return(&g_e), 0);

    /* A line probe's pattern (--at FILE:LINE as given): to the colon after
     * the digits. */
    ok("Orders.cs:42: total > 100");
    assert_string_equal(g_e.glob, "Orders.cs:42");
    assert_string_equal(ct_expr_seg(&g_e, &g_e.paths[0], 0), "total");
    ok("src/Orders.cs:7:x");
    assert_string_equal(g_e.glob, "src/Orders.cs:7");

    ok("  *.Place :ok");
    assert_string_equal(g_e.glob, "*.Place");
    assert_int_equal(g_e.nodes[g_e.root].op, CT_XOP_TRUTH);

    ok("F: !(a == null || b != -5) && (c <= 0x1F || d >= 2.50m) && e < -1e3 && f == Paid");
    ok("F: x == Status.Paid");
    assert_int_equal(g_e.nodes[g_e.root].lit.kind, CT_XL_NAME);
    assert_string_equal(g_e.names + g_e.nodes[g_e.root].lit.off, "Paid");

    ok("F: s == \"a\\\"b\\\\c\\n\\t\\u00e9\\0\\r\\'\"");
    const ct_expr_lit *l = &g_e.nodes[g_e.root].lit;
    assert_int_equal(l->kind, CT_XL_STRING);
    const uint16_t want[] = {'a', '"', 'b', '\\', 'c', '\n', '\t', 0xe9, 0, '\r', '\''};
    assert_int_equal(l->len, 11);
    assert_memory_equal(g_e.strings + l->off, want, sizeof want);

    ok("F: s == \"\xc3\xa9\xf0\x9f\x98\x80\""); /* é, then U+1F600 as a surrogate pair */
    l = &g_e.nodes[g_e.root].lit;
    assert_int_equal(l->len, 3);
    assert_int_equal(g_e.strings[l->off], 0xe9);
    assert_int_equal(g_e.strings[l->off + 1], 0xD83D);
    assert_int_equal(g_e.strings[l->off + 2], 0xDE00);

    ok("F: return > 3 || exception == \"IOException\" || exception.Message == \"x\"");
    assert_int_equal(g_e.paths[0].root, CT_XROOT_RETURN);
    assert_int_equal(g_e.paths[1].root, CT_XROOT_EXCEPTION);
    assert_int_equal(ct_expr_needs_return(&g_e), 1);
    ok("F: this.Count > 0");
    assert_int_equal(g_e.paths[0].root, CT_XROOT_THIS);

    ok("F: n == -9223372036854775808 && u == 18446744073709551615 && h == 0xFFFFFFFFFFFFFFFF");
    ok("F: d == 79228162514264337593543950335 || d == 0.0000000000000000000000000001");
    ok("F: d == 1.5");
    l = &g_e.nodes[g_e.root].lit;
    assert_int_equal(l->kind, CT_XL_DEC);
    assert_int_equal(l->exact, 1);
    assert_int_equal(l->dec.m[0], 15);
    assert_int_equal(l->dec.scale, 1);
}

static void test_parse_errors(void **state)
{
    (void)state;
    /*                    0         1         2 */
    /*                    0123456789012345678901234 */
    fails_at("Shop.Orders.Place: x >", 22, "expected a literal after '>'");
    fails_at("F: order.Total > && y", 17, "expected a literal after '>', not '&&'");
    fails_at("F: x = 1", 5, "write '=='");
    fails_at("F: x == 1 &", 10, "expected && or ||");
    fails_at("F: x == 1 y", 10, "expected &&, || or the end, not 'y'");
    fails_at("F: (x == 1", 10, "expected ')' for the '(' at offset 3");
    fails_at("F: x == 1)", 9, "a ')' without its '('");
    fails_at("F: 5 < x", 3, "the name comes first");
    fails_at("F: x.", 5, "expected a name after '.'");
    fails_at("F: x == \"abc", 8, "closing");
    fails_at("F: x == \"a\\qb\"", 10, "unknown escape");
    fails_at("F: x == \"\\u12G4\"", 9, "4 hex digits");
    fails_at("F: x == \"a\x01\"", 10, "control character");
    fails_at("F: x == \"\xff\"", 9, "UTF-8");
    fails_at("F: x == 0x1FFFFFFFFFFFFFFFF", 8, "64 bits");
    fails_at("F: x == 1.", 10, "digits after the decimal point");
    fails_at("F: x == 1e", 9, "exponent");
    fails_at("F: x == 12abc", 10, "followed by 'a'");
    fails_at("F: x == 0x", 8, "hex digits");
    fails_at("F: x > true", 7, "true goes with == or != only");
    fails_at("F: x < null", 7, "null goes with == or != only");
    fails_at("F: x == a.", 9, "enum member's name after '.'");
    fails_at("F: ", 3, "expected a condition after ':'");
    fails_at("no colon", 0, "expected 'GLOB: EXPR'");
    fails_at(": x", 0, "method pattern before ':'");
    fails_at("A B: x", 1, "space");
    fails_at("F: x == 1 &&", 12, "the condition ends");
    fails_at("F: x == 1 || || y", 13, "expected a value's name, '!' or '(', not '||'");
    fails_at("F: null == x", 3, "the name comes first");
    fails_at("F: x == \"\xc3\"", 9, "UTF-8");
    /* Deciding at the end: no `this`; an exception's type, Message and
     * Message.Length only. */
    fails_at("F: return > 1 && this.N == 2", 17, "'this' is read at entry");
    fails_at("F: this.N == 2 || exception == null", 3, "test 'this' in a --when of its own");
    fails_at("F: exception.HResult == 1", 3, "an exception offers its type");
    fails_at("F: exception.Message.Count == 1", 3, "exception.Message.Length");
    fails_at("F: exception.Message.Length.X == 1", 3, "an exception offers");
    ok("F: exception == \"TimeoutException\" && exception.Message.Length > 3");
    ok("F: exception.Message == null || return.Items.Count == 2 && found.Id == 1");
    ok("F: this.N == 2 && x > 1");
    assert_int_equal(ct_expr_parse(NULL, &g_e, &g_err), -1);
}

/* Repeats s n times into out (NUL-ended). */
static char *repeat(char *out, const char *head, const char *s, unsigned n, const char *tail)
{
    size_t k = (size_t)sprintf(out, "%s", head);
    for (unsigned i = 0; i < n; i++)
        k += (size_t)sprintf(out + k, "%s", s);
    sprintf(out + k, "%s", tail);
    return out;
}

static char g_buf[8192];

static void test_limit_text(void **state)
{
    (void)state;
    /* "F: x" then spaces up to the limit. */
    memset(g_buf, ' ', sizeof g_buf);
    memcpy(g_buf, "F: x", 4);
    g_buf[CT_EXPR_MAX_TEXT] = '\0';
    ok(g_buf);
    g_buf[CT_EXPR_MAX_TEXT] = ' ';
    g_buf[CT_EXPR_MAX_TEXT + 1] = '\0';
    fails_at(g_buf, CT_EXPR_MAX_TEXT, "longer than 1024 bytes");
}

static void test_limit_glob(void **state)
{
    (void)state;
    memset(g_buf, 'G', CT_EXPR_MAX_GLOB);
    strcpy(g_buf + CT_EXPR_MAX_GLOB, ": x");
    ok(g_buf);
    assert_int_equal(strlen(g_e.glob), CT_EXPR_MAX_GLOB);
    memset(g_buf, 'G', CT_EXPR_MAX_GLOB + 1);
    strcpy(g_buf + CT_EXPR_MAX_GLOB + 1, ": x");
    fails_at(g_buf, 0, "pattern longer than 256 bytes");
}

static void test_limit_depth(void **state)
{
    (void)state;
    /* 16 levels: 8 '!' and 8 '(' ... ')'. */
    char b[256];
    repeat(g_buf, "F: ", "!(", CT_EXPR_MAX_DEPTH / 2, "x");
    strcat(g_buf, repeat(b, "", ")", CT_EXPR_MAX_DEPTH / 2, ""));
    ok(g_buf);
    /* One more '!' at offset 3: the 17th level opens at 3 + 16. */
    repeat(g_buf, "F: !", "!(", CT_EXPR_MAX_DEPTH / 2, "x");
    strcat(g_buf, repeat(b, "", ")", CT_EXPR_MAX_DEPTH / 2, ""));
    fails_at(g_buf, 3 + CT_EXPR_MAX_DEPTH, "nested more than 16 deep");
    /* Parentheses alone. */
    repeat(g_buf, "F: ", "(", CT_EXPR_MAX_DEPTH, "x");
    strcat(g_buf, repeat(b, "", ")", CT_EXPR_MAX_DEPTH, ""));
    ok(g_buf);
    repeat(g_buf, "F: ", "(", CT_EXPR_MAX_DEPTH + 1, "x");
    strcat(g_buf, repeat(b, "", ")", CT_EXPR_MAX_DEPTH + 1, ""));
    fails_at(g_buf, 3 + CT_EXPR_MAX_DEPTH, "nested more than 16 deep");
    /* A long chain of && is one node, not a nesting. */
    repeat(g_buf, "F: x", " && x", 30, "");
    ok(g_buf);
    assert_int_equal(g_e.nodes[g_e.root].count, 31);
}

static void test_limit_nodes(void **state)
{
    (void)state;
    /* 31 "!x" (62 nodes), one "x" and the || over them: 64 nodes, 32 paths. */
    repeat(g_buf, "F: ", "!x || ", CT_EXPR_MAX_PATHS - 1, "x");
    ok(g_buf);
    assert_int_equal(g_e.nnodes, CT_EXPR_MAX_NODES);
    assert_int_equal(g_e.npaths, CT_EXPR_MAX_PATHS);
    /* The last "x" as "!x": 65 nodes; the || node is the one past (its
     * offset: where the list began). */
    repeat(g_buf, "F: ", "!x || ", CT_EXPR_MAX_PATHS - 1, "!x");
    fails_at(g_buf, 3, "more than 64 comparisons");
}

static void test_limit_paths(void **state)
{
    (void)state;
    repeat(g_buf, "F: x", " || x", CT_EXPR_MAX_PATHS - 1, "");
    ok(g_buf);
    repeat(g_buf, "F: x", " || x", CT_EXPR_MAX_PATHS, "");
    fails_at(g_buf, 3 + 5 * CT_EXPR_MAX_PATHS, "more than 32 values named");
}

static void test_limit_segments(void **state)
{
    (void)state;
    repeat(g_buf, "F: a", ".b", CT_EXPR_MAX_SEGMENTS - 1, " == 1");
    ok(g_buf);
    assert_int_equal(g_e.paths[0].nseg, CT_EXPR_MAX_SEGMENTS);
    repeat(g_buf, "F: a", ".b", CT_EXPR_MAX_SEGMENTS, " == 1");
    fails_at(g_buf, 4 + 2 * (CT_EXPR_MAX_SEGMENTS - 1) + 1, "more than 8 names");
}

static void test_limit_ident(void **state)
{
    (void)state;
    repeat(g_buf, "F: ", "n", CT_EXPR_MAX_IDENT, " == 1");
    ok(g_buf);
    repeat(g_buf, "F: ", "n", CT_EXPR_MAX_IDENT + 1, " == 1");
    fails_at(g_buf, 3, "longer than 64 characters");
    /* An enum member's name too. */
    repeat(g_buf, "F: x == ", "m", CT_EXPR_MAX_IDENT + 1, "");
    fails_at(g_buf, 8, "longer than 64 characters");
}

static void test_limit_string(void **state)
{
    (void)state;
    repeat(g_buf, "F: s == \"", "a", CT_EXPR_MAX_STRING, "\"");
    ok(g_buf);
    assert_int_equal(g_e.nodes[g_e.root].lit.len, CT_EXPR_MAX_STRING);
    repeat(g_buf, "F: s == \"", "a", CT_EXPR_MAX_STRING + 1, "\"");
    fails_at(g_buf, 9 + CT_EXPR_MAX_STRING, "longer than 256 characters");
    /* Escapes count once: 256 of \u0041 fit, and the 257th does not. */
    char tail[512];
    repeat(g_buf, "F: s == \"", "\\u0041", 100, "");
    strcat(g_buf, repeat(tail, "", "a", CT_EXPR_MAX_STRING - 100, "\""));
    ok(g_buf);
    repeat(g_buf, "F: s == \"", "\\u0041", 101, "");
    strcat(g_buf, repeat(tail, "", "a", CT_EXPR_MAX_STRING - 100, "\""));
    fails_at(g_buf, 9 + 6 * 101 + CT_EXPR_MAX_STRING - 101, "longer than 256 characters");
}

/* -------------------------------------------------------- evaluation */

/* The fake resolver: each path by its text "a.b" from a table. */
typedef struct binding {
    const char *path;
    ct_xval v;
} binding;

typedef struct fake {
    const binding *b;
    size_t n;
    unsigned calls;
} fake;

static void resolve(void *ctx, const ct_expr *e, uint32_t i, ct_xval *out)
{
    fake *f = ctx;
    f->calls++;
    char name[256] = "";
    const ct_expr_path *p = &e->paths[i];
    for (unsigned k = 0; k < p->nseg; k++) {
        if (k)
            strcat(name, ".");
        strcat(name, ct_expr_seg(e, p, k));
    }
    for (size_t k = 0; k < f->n; k++)
        if (!strcmp(f->b[k].path, name)) {
            *out = f->b[k].v;
            return;
        }
    out->kind = CT_XV_UNKNOWN;
}

static const uint16_t k_pt[] = {'P', 'T'};
static const uint16_t k_ana[] = {'A', 'n', 'a'};
static const ct_enum_item k_status[] = {{"New", 0}, {"Paid", 1}, {"Shipped", 2}};
static const ct_enum_item k_sign[] = {{"Minus", 0xFF}, {"Zero", 0}, {"Plus", 1}};

static const binding k_values[] = {
    {"order.Total", {.kind = CT_XV_DECIMAL, .dec = {{125050, 0, 0}, 2, 0}}}, /* 1250.50 */
    {"order.Customer.Country", {.kind = CT_XV_STRING, .chars = k_pt, .len = 2}},
    {"order.Customer.Name", {.kind = CT_XV_STRING, .chars = k_ana, .len = 3}},
    {"order.Customer.Name.Length", {.kind = CT_XV_INT, .i = 3}},
    {"order.Lines.Count", {.kind = CT_XV_INT, .i = 2}},
    {"order.Note", {.kind = CT_XV_NULL}},
    {"order.Status", {.kind = CT_XV_ENUM, .u = 1, .items = k_status, .nitems = 3, .enum_size = 4}},
    {"sign", {.kind = CT_XV_ENUM, .u = 0xFF, .items = k_sign, .nitems = 3, .enum_signed = 1,
              .enum_size = 1}},
    {"ok", {.kind = CT_XV_BOOL, .b = 1}},
    {"no", {.kind = CT_XV_BOOL, .b = 0}},
    {"n", {.kind = CT_XV_INT, .i = -7}},
    {"big", {.kind = CT_XV_UINT, .u = UINT64_MAX}},
    {"ratio", {.kind = CT_XV_DOUBLE, .d = 0.25}},
    {"c", {.kind = CT_XV_UINT, .u = 'x'}},
    {"exception", {.kind = CT_XV_TYPE, .text = "System.InvalidOperationException"}},
    {"obj", {.kind = CT_XV_OBJECT}},
};

/* The answer for "F: expr". */
static ct_xtruth eval(const char *expr)
{
    char text[512];
    snprintf(text, sizeof text, "F: %s", expr);
    if (parse(text) != 0)
        fail_msg("'%s': %s", text, g_err.message);
    fake f = {k_values, sizeof k_values / sizeof k_values[0], 0};
    return ct_expr_eval(&g_e, resolve, &f);
}

#define T(x) assert_int_equal(eval(x), CT_XTRUE)
#define F(x) assert_int_equal(eval(x), CT_XFALSE)
#define U(x) assert_int_equal(eval(x), CT_XUNKNOWN)

static void test_eval_values(void **state)
{
    (void)state;
    /* decimals, exactly: 1250.50 */
    T("order.Total > 1000");
    T("order.Total == 1250.5");
    T("order.Total == 1250.500m");
    F("order.Total != 1250.50");
    F("order.Total > 1250.5000000000000000000001");
    T("order.Total < 1250.5000000000000000000001");
    T("order.Total >= 1250.5 && order.Total <= 1250.5");
    T("order.Total < 1.3e3");
    F("order.Total < -1");
    /* strings, ordinal */
    T("order.Customer.Country == \"PT\"");
    F("order.Customer.Country == \"pt\"");
    F("order.Customer.Country == \"PTX\"");
    T("order.Customer.Country != \"ES\"");
    T("order.Customer.Country > \"ES\"");
    T("order.Customer.Name.Length == 3");
    T("order.Lines.Count >= 2 && order.Lines.Count < 3");
    /* null */
    T("order.Note == null");
    F("order.Note != null");
    F("order.Note > 5");
    T("order.Customer.Name != null");
    F("order.Customer.Name == null");
    T("obj != null");
    U("obj == 5");
    /* enums by member, by value, signed */
    T("order.Status == Paid");
    T("order.Status == Status.Paid");
    F("order.Status == Shipped");
    T("order.Status < Shipped");
    T("order.Status == 1");
    U("order.Status == Refunded");
    T("sign == Minus");
    T("sign < Zero");
    T("sign == -1");
    T("sign < 0");
    /* integers, signed and unsigned, against both signs */
    T("n == -7");
    T("n < 0");
    T("n > -8");
    F("n >= 0");
    T("n < 18446744073709551615");
    T("big == 18446744073709551615");
    T("big == 0xFFFFFFFFFFFFFFFF");
    T("big > -1");
    T("n < -6.5");
    T("n == -7.0");
    T("ratio == 0.25");
    T("ratio < 1");
    T("c == \"x\"");
    T("c == 120");
    /* bools */
    T("ok");
    F("no");
    T("!no");
    T("ok == true && no == false");
    T("ok != false");
    /* exception type: full or short name */
    T("exception == \"InvalidOperationException\"");
    T("exception == \"System.InvalidOperationException\"");
    F("exception == \"OperationException\"");
    T("exception != \"IOException\"");
    /* a type the literal does not compare with */
    U("order.Customer.Country == 5");
    U("order.Total == \"5\"");
    U("ok == 1");
    U("n");
}

static void test_eval_three_valued(void **state)
{
    (void)state;
    U("missing == 1");
    U("!(missing == 1)");
    F("missing == 1 && no");
    T("missing == 1 || ok");
    U("missing == 1 && ok");
    U("missing == 1 || no");
    F("no && missing == 1");
    T("ok || missing == 1");
    /* unknown is not recorded */
    assert_int_equal(parse("F: missing == 1"), 0);
    fake f = {k_values, sizeof k_values / sizeof k_values[0], 0};
    assert_int_equal(ct_expr_holds(&g_e, resolve, &f), 0);
    assert_int_equal(parse("F: !(missing == 1)"), 0);
    assert_int_equal(ct_expr_holds(&g_e, resolve, &f), 0);
    /* short-circuit: the second path is not read once the first decides */
    assert_int_equal(parse("F: no && ok"), 0);
    f.calls = 0;
    assert_int_equal(ct_expr_eval(&g_e, resolve, &f), CT_XFALSE);
    assert_int_equal(f.calls, 1);
    /* precedence: && binds tighter than || */
    T("ok || no && no");
    F("(ok || no) && no");
    T("!no && !(no || no)");
}

static void test_eval_nan_and_decimals(void **state)
{
    (void)state;
    ct_expr_lit lit;
    memset(&lit, 0, sizeof lit);
    assert_int_equal(parse("F: x == 0.5"), 0);
    lit = g_e.nodes[g_e.root].lit;
    ct_xval v = {.kind = CT_XV_DOUBLE, .d = __builtin_nan("")};
    assert_int_equal(ct_expr_compare(&g_e, &v, CT_XCMP_EQ, &lit), CT_XFALSE);
    assert_int_equal(ct_expr_compare(&g_e, &v, CT_XCMP_NE, &lit), CT_XTRUE);
    assert_int_equal(ct_expr_compare(&g_e, &v, CT_XCMP_LT, &lit), CT_XFALSE);
    /* .NET's bytes: 1250.50 is flags (scale 2), hi 0, lo 125050. */
    uint8_t b[16] = {0};
    b[2] = 2;
    uint64_t lo = 125050;
    memcpy(b + 8, &lo, 8);
    ct_xdec d;
    assert_int_equal(ct_xdec_from_bytes(b, &d), 0);
    assert_int_equal(d.scale, 2);
    assert_int_equal(d.m[0], 125050);
    b[3] = 0x80; /* negative */
    assert_int_equal(ct_xdec_from_bytes(b, &d), 0);
    assert_int_equal(d.neg, 1);
    b[2] = 29; /* a scale past 28 */
    assert_int_equal(ct_xdec_from_bytes(b, &d), -1);
    b[2] = 2;
    b[0] = 1; /* low flag bits must be 0 */
    assert_int_equal(ct_xdec_from_bytes(b, &d), -1);
    /* -0 equals 0; the largest decimal against a literal past it. */
    ct_xval z = {.kind = CT_XV_DECIMAL, .dec = {{0, 0, 0}, 3, 1}};
    assert_int_equal(parse("F: x == 0"), 0);
    assert_int_equal(ct_expr_compare(&g_e, &z, CT_XCMP_EQ, &g_e.nodes[g_e.root].lit), CT_XTRUE);
    ct_xval max = {.kind = CT_XV_DECIMAL, .dec = {{~0u, ~0u, ~0u}, 0, 0}};
    /* Integers past 64 bits are decimals; past 96 bits, doubles. */
    assert_int_equal(parse("F: x == 79228162514264337593543950335"), 0);
    assert_int_equal(g_e.nodes[g_e.root].lit.kind, CT_XL_DEC);
    assert_int_equal(g_e.nodes[g_e.root].lit.exact, 1);
    assert_int_equal(ct_expr_compare(&g_e, &max, CT_XCMP_EQ, &g_e.nodes[g_e.root].lit), CT_XTRUE);
    assert_int_equal(parse("F: x == -9223372036854775809"), 0);
    assert_int_equal(g_e.nodes[g_e.root].lit.kind, CT_XL_DEC);
    ct_xval low = {.kind = CT_XV_INT, .i = INT64_MIN};
    assert_int_equal(ct_expr_compare(&g_e, &low, CT_XCMP_GT, &g_e.nodes[g_e.root].lit), CT_XTRUE);
    assert_int_equal(parse("F: x == 79228162514264337593543950336"), 0);
    assert_int_equal(g_e.nodes[g_e.root].lit.exact, 0);
    assert_int_equal(parse("F: x < 79228162514264337593543950336.0"), 0); /* past 96 bits: a double */
    assert_int_equal(g_e.nodes[g_e.root].lit.exact, 0);
    assert_int_equal(parse("F: x == 79228162514264337593543950335.0"), 0);
    assert_int_equal(g_e.nodes[g_e.root].lit.exact, 1);
    assert_int_equal(ct_expr_compare(&g_e, &max, CT_XCMP_EQ, &g_e.nodes[g_e.root].lit), CT_XTRUE);
    /* 0.1 as a decimal with scale 28 against 0.1 with scale 1 */
    ct_xval tenth = {.kind = CT_XV_DECIMAL, .dec = {{0, 0, 0}, 28, 0}};
    /* 10^27 = 0x33B2E3C9FD0803CE8000000 */
    tenth.dec.m[0] = 0xE8000000u;
    tenth.dec.m[1] = 0x9FD0803Cu;
    tenth.dec.m[2] = 0x033B2E3Cu;
    assert_int_equal(parse("F: x == 0.1"), 0);
    assert_int_equal(ct_expr_compare(&g_e, &tenth, CT_XCMP_EQ, &g_e.nodes[g_e.root].lit), CT_XTRUE);
}


/* Chosen values (-A, -R): the grammar, and CT_CHOSEN_MAX_PATHS at and one
 * past the limit. */
static void test_chosen(void **state)
{
    (void)state;
    static ct_expr e;
    ct_expr_error err;
    assert_int_equal(ct_chosen_parse("Shop.Orders.Place@order.Total, order.Customer.Name,this",
                                     0, &e, &err), 0);
    assert_string_equal(e.glob, "Shop.Orders.Place");
    assert_int_equal(e.npaths, 3);
    assert_int_equal(e.paths[0].root, CT_XROOT_PARAM);
    assert_int_equal(e.paths[1].nseg, 3);
    assert_string_equal(ct_expr_seg(&e, &e.paths[1], 2), "Name");
    assert_int_equal(e.paths[2].root, CT_XROOT_THIS);
    assert_int_equal(ct_chosen_parse("*.Get@return.Items.Count", 1, &e, &err), 0);
    assert_int_equal(e.paths[0].root, CT_XROOT_RETURN);
    /* Malformed. */
    assert_int_equal(ct_chosen_parse("Shop.Orders.Place", 0, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("@order", 0, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A.B@", 0, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A.B@order,", 0, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A.B@order.", 0, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A.B@order > 1", 0, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A:B@order", 0, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A.B@return", 0, &e, &err), -1);
    assert_non_null(strstr(err.message, "-R"));
    assert_int_equal(ct_chosen_parse("A.B@order", 1, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A.B@return,return", 1, &e, &err), -1);
    assert_int_equal(ct_chosen_parse("A.B@exception", 0, &e, &err), -1);
    /* CT_CHOSEN_MAX_PATHS paths, then one more. */
    char text[CT_EXPR_MAX_TEXT + 1] = "A.B@p0";
    for (unsigned i = 1; i < CT_CHOSEN_MAX_PATHS; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",p%u", i);
    assert_int_equal(ct_chosen_parse(text, 0, &e, &err), 0);
    assert_int_equal(e.npaths, CT_CHOSEN_MAX_PATHS);
    strcat(text, ",q");
    assert_int_equal(ct_chosen_parse(text, 0, &e, &err), -1);
    assert_non_null(strstr(err.message, "more than"));
    /* CT_EXPR_MAX_SEGMENTS names in a path, then one more. */
    strcpy(text, "A.B@a");
    for (unsigned i = 1; i < CT_EXPR_MAX_SEGMENTS; i++)
        strcat(text, ".b");
    assert_int_equal(ct_chosen_parse(text, 0, &e, &err), 0);
    strcat(text, ".c");
    assert_int_equal(ct_chosen_parse(text, 0, &e, &err), -1);
    /* CT_EXPR_MAX_TEXT bytes, then one more. */
    memset(text, 0, sizeof text);
    strcpy(text, "A.B@x");
    memset(text + 5, ' ', CT_EXPR_MAX_TEXT - 5);
    assert_int_equal(ct_chosen_parse(text, 0, &e, &err), 0);
    char longer[CT_EXPR_MAX_TEXT + 2];
    memcpy(longer, text, CT_EXPR_MAX_TEXT);
    longer[CT_EXPR_MAX_TEXT] = ' ';
    longer[CT_EXPR_MAX_TEXT + 1] = '\0';
    assert_int_equal(ct_chosen_parse(longer, 0, &e, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_shapes),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_limit_text),
        cmocka_unit_test(test_limit_glob),
        cmocka_unit_test(test_limit_depth),
        cmocka_unit_test(test_limit_nodes),
        cmocka_unit_test(test_limit_paths),
        cmocka_unit_test(test_limit_segments),
        cmocka_unit_test(test_limit_ident),
        cmocka_unit_test(test_limit_string),
        cmocka_unit_test(test_eval_values),
        cmocka_unit_test(test_eval_three_valued),
        cmocka_unit_test(test_eval_nan_and_decimals),
        cmocka_unit_test(test_chosen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
