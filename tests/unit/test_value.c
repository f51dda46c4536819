/* Value capture and text. Objects are laid out in memory the way CoreCLR lays
 * them out on 64-bit (method table pointer, then the fields); expected text is
 * what C# itself prints (doubles and decimals checked against dotnet:
 * ToString(CultureInfo.InvariantCulture)), or the forms docs/tracer.md gives. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "format/value.h"
#include "views/value_text.h"
#include "views/value_wellknown.h"
#include "agent/record/capture.h"

static const ct_layout layout = { 8, 12, 8, 16, 0 };
static const ct_limits limits = { 5, 3, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };

static void fake_class_of(void *ctx, uint64_t obj, int named, ct_class_info *ci)
{
    (void)ctx;
    memset(ci, 0, sizeof *ci);
    ci->id = obj ? 0x1238 : 0;
}

static const char *fake_name_of(void *ctx, uint64_t cls, size_t *len)
{
    (void)ctx;
    if (cls != 0x1238)
        return NULL;
    *len = strlen("Demo.Shapes");
    return "Demo.Shapes";
}

static const ct_classes fake_classes = { fake_name_of, NULL, NULL };

static const char *roundtrip(const ct_plan *p, const void *src, char *text, size_t cap)
{
    uint8_t raw[1024];
    size_t n = ct_capture(p, src, &layout, &limits, fake_class_of, NULL, raw, sizeof raw);
    assert_true(n > 0 || p->kind == CT_V_VOID);
    ct_text t;
    ct_text_init(&t, text, cap);
    assert_int_equal(ct_format_value(p, raw, n, &fake_classes, &t), n);
    return text;
}

static const ct_plan p_i4 = { .kind = CT_V_I4, .size = 4, .type_name = "int" };
static const ct_plan p_u8 = { .kind = CT_V_U8, .size = 8, .type_name = "ulong" };
static const ct_plan p_i1 = { .kind = CT_V_I1, .size = 1, .type_name = "sbyte" };
static const ct_plan p_r8 = { .kind = CT_V_R8, .size = 8, .type_name = "double" };
static const ct_plan p_r4 = { .kind = CT_V_R4, .size = 4, .type_name = "float" };
static const ct_plan p_bool = { .kind = CT_V_BOOL, .size = 1, .type_name = "bool" };
static const ct_plan p_char = { .kind = CT_V_CHAR, .size = 2, .type_name = "char" };
static const ct_plan p_str = { .kind = CT_V_STRING, .size = 8, .type_name = "string" };
static const ct_plan p_obj = { .kind = CT_V_OBJECT, .size = 8, .type_name = "object" };
static const ct_plan p_dec = { .kind = CT_V_DECIMAL, .size = 16, .type_name = "decimal" };

static void test_primitives(void **state)
{
    (void)state;
    char t[256];
    int32_t i = -123;
    assert_string_equal(roundtrip(&p_i4, &i, t, sizeof t), "-123");
    uint64_t u = 18446744073709551615ull;
    assert_string_equal(roundtrip(&p_u8, &u, t, sizeof t), "18446744073709551615");
    int8_t b = -128;
    assert_string_equal(roundtrip(&p_i1, &b, t, sizeof t), "-128");
    uint8_t yes = 1, no = 0;
    assert_string_equal(roundtrip(&p_bool, &yes, t, sizeof t), "true");
    assert_string_equal(roundtrip(&p_bool, &no, t, sizeof t), "false");
    uint16_t c = 'x', nl = '\n', q = '\'', e = 0xE9;
    assert_string_equal(roundtrip(&p_char, &c, t, sizeof t), "'x'");
    assert_string_equal(roundtrip(&p_char, &nl, t, sizeof t), "'\\n'");
    assert_string_equal(roundtrip(&p_char, &q, t, sizeof t), "'\\''");
    assert_string_equal(roundtrip(&p_char, &e, t, sizeof t), "'\xC3\xA9'");
}

/* Expected strings: dotnet 10, double.ToString(CultureInfo.InvariantCulture). */
static void test_doubles_like_dotnet(void **state)
{
    (void)state;
    static const struct { double v; const char *want; } cases[] = {
        { 0, "0" }, { 1, "1" }, { -1, "-1" }, { 1.5, "1.5" }, { 0.1, "0.1" },
        { 0.0001, "0.0001" }, { 0.00001, "1E-05" }, { 0.000012345, "1.2345E-05" },
        { 1e14, "100000000000000" }, { 1e15, "1000000000000000" },
        { 1e16, "10000000000000000" }, { 1e17, "1E+17" },
        { 123456789012345.0, "123456789012345" }, { 1234567890123456.0, "1234567890123456" },
        { 12345678901234567890.0, "1.2345678901234567E+19" },
        { 1e300, "1E+300" }, { 1e-300, "1E-300" }, { 1.0 / 3, "0.3333333333333333" },
        { 2.5e-7, "2.5E-07" }, { 5e-324, "5E-324" }, { 1.7976931348623157e308, "1.7976931348623157E+308" },
        { 1e-4 * 1.5, "0.00015000000000000001" }, { -0.0, "-0" },
    };
    char t[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_format_double(cases[i].v, t, sizeof t);
        assert_string_equal(t, cases[i].want);
    }
    ct_format_double(__builtin_nan(""), t, sizeof t);
    assert_string_equal(t, "NaN");
    ct_format_double(-__builtin_inf(), t, sizeof t);
    assert_string_equal(t, "-Infinity");
    double k = 1.5;
    assert_string_equal(roundtrip(&p_r8, &k, t, sizeof t), "1.5");
}

/* Expected strings: dotnet 10, float.ToString(CultureInfo.InvariantCulture). */
static void test_floats_like_dotnet(void **state)
{
    (void)state;
    static const struct { float v; const char *want; } cases[] = {
        { 1.5f, "1.5" }, { 0.1f, "0.1" }, { -4.3f, "-4.3" }, { 1e10f, "1E+10" },
        { 1e7f, "10000000" }, { 1e8f, "100000000" }, { 1e9f, "1E+09" }, { 123456789.0f, "123456790" },
        { 3.4028235e38f, "3.4028235E+38" }, { 1.0f / 3, "0.33333334" }, { 1e-5f, "1E-05" },
        { 1e-4f, "0.0001" },
    };
    char t[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_format_float(cases[i].v, t, sizeof t);
        assert_string_equal(t, cases[i].want);
    }
    float f = -4.3f;
    assert_string_equal(roundtrip(&p_r4, &f, t, sizeof t), "-4.3");
}

/* xorshift64: the same numbers on every run. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Values per kind of the fast/reference comparison; CT_TEST_DOUBLES=N for
 * more (or fewer). */
#define SHORTEST_DEFAULT_COUNT 400000

static long shortest_count(void)
{
    const char *e = getenv("CT_TEST_DOUBLES");
    return e && atol(e) > 0 ? atol(e) : SHORTEST_DEFAULT_COUNT;
}

/* ct_format_double against the printf/strtod definition; counts the values
 * the fast path left to the reference (*fallbacks). */
static void same_double(double v, long *fallbacks)
{
    char fast[64], ref[64];
    size_t n = ct_format_double(v, fast, sizeof fast);
    ct_format_double_ref(v, ref, sizeof ref);
    if (strcmp(fast, ref) != 0)
        fail_msg("%a: %s, the reference %s", v, fast, ref);
    assert_int_equal(n, strlen(fast));
    uint64_t d;
    int e;
    if (isfinite(v) && v != 0 && ct_shortest_double(v, &d, &e) != 0)
        (*fallbacks)++;
}

static void same_float(float v, long *fallbacks)
{
    char fast[64], ref[64];
    size_t n = ct_format_float(v, fast, sizeof fast);
    ct_format_float_ref(v, ref, sizeof ref);
    if (strcmp(fast, ref) != 0)
        fail_msg("%a (float): %s, the reference %s", (double)v, fast, ref);
    assert_int_equal(n, strlen(fast));
    uint64_t d;
    int e;
    if (isfinite(v) && v != 0 && ct_shortest_float(v, &d, &e) != 0)
        (*fallbacks)++;
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The fast path (128-bit scaling, no printf) prints every double and float
 * as the printf/strtod search does: edge cases, then random bit patterns,
 * values of few significant bits (exact halves and ties) and short
 * decimals. */
static void test_shortest_matches_reference(void **state)
{
    (void)state;
    long fb = 0, n = shortest_count();
    static const double edges[] = {
        0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 0.125, 1.5, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23,
        9007199254740992.0, 9007199254740993.0, 999999999999999.9, 1e15 - 0.5,
        4.9406564584124654e-324, 2.2250738585072009e-308, 2.2250738585072014e-308,
        1.7976931348623157e308, 5e-324, 1e-323, 123456789012345678.0, 0.3,
    };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        same_double(edges[i], &fb);
        same_double(-edges[i], &fb);
    }
    same_double(NAN, &fb);
    same_double(-NAN, &fb);
    same_double(INFINITY, &fb);
    same_double(-INFINITY, &fb);
    for (int k = -1074; k <= 1023; k++) { /* powers of two and their neighbours */
        double p = ldexp(1.0, k);
        same_double(p, &fb);
        same_double(nextafter(p, 0), &fb);
        same_double(nextafter(p, INFINITY), &fb);
    }
    for (int k = -325; k <= 308; k++) { /* powers of ten and their neighbours */
        char text[16];
        snprintf(text, sizeof text, "1e%d", k);
        double p = strtod(text, NULL);
        same_double(p, &fb);
        same_double(nextafter(p, 0), &fb);
        same_double(nextafter(p, INFINITY), &fb);
        float f = strtof(text, NULL);
        same_float(f, &fb);
        same_float(nextafterf(f, 0), &fb);
        same_float(nextafterf(f, INFINITY), &fb);
    }
    for (uint64_t m = 1; m < 5000; m++) /* subnormals: the smallest and the largest */
        same_double(from_bits(m), &fb), same_double(from_bits((1ull << 52) - m), &fb);
    for (int k = -149; k <= 127; k++)
        same_float(ldexpf(1.0f, k), &fb);
    same_float(FLT_MAX, &fb);
    same_float(FLT_MIN, &fb);
    same_float(FLT_TRUE_MIN, &fb);
    same_float(NAN, &fb);
    same_float(-INFINITY, &fb);
    same_float(-0.0f, &fb);
    long edge_fb = fb;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (long i = 0; i < n; i++) {
        uint64_t b = next_random(&s);
        same_double(from_bits(b), &fb);
        /* few significant bits: exact values, ties, halves */
        same_double(from_bits(b & ~(((1ull << 52) - 1) >> (next_random(&s) % 53))), &fb);
        /* short decimals, as programs pass them */
        uint64_t r = next_random(&s);
        double dec = (double)(r % 10000000) / pow(10, (double)((r >> 32) % 12));
        same_double(r >> 63 ? -dec : dec, &fb);
        float f;
        uint32_t fb32 = (uint32_t)(b >> 16);
        memcpy(&f, &fb32, sizeof f);
        same_float(f, &fb);
        same_float((float)dec, &fb);
    }
    /* The reference decides only values too near a rounding boundary for
     * the 128-bit arithmetic that the exact path cannot hold: none here. */
    print_message("%ld values, %ld left to the reference (%ld edge cases)\n", 5 * n, fb, edge_fb);
    assert_int_equal(fb, 0);
}

/* Expected strings: dotnet 10, decimal.ToString(CultureInfo.InvariantCulture). */
static void test_decimal(void **state)
{
    (void)state;
    char t[64];
    struct { uint32_t flags, hi; uint64_t lo; } d = { 1u << 16, 0, 15 };
    assert_string_equal(roundtrip(&p_dec, &d, t, sizeof t), "1.5");
    d.flags = 0x80000000u | 4u << 16;
    d.lo = 1234500;
    assert_string_equal(roundtrip(&p_dec, &d, t, sizeof t), "-123.4500");
    /* decimal.MaxValue = 79228162514264337593543950335 */
    d.flags = 0;
    d.hi = 0xFFFFFFFF;
    d.lo = ~0ull;
    assert_string_equal(roundtrip(&p_dec, &d, t, sizeof t), "79228162514264337593543950335");
    d.flags = 3u << 16;
    d.hi = 0;
    d.lo = 5;
    assert_string_equal(roundtrip(&p_dec, &d, t, sizeof t), "0.005");
}

/* A System.String as CoreCLR lays it out: method table, int length, chars. */
typedef struct fake_string {
    uint64_t mt;
    int32_t length;
    uint16_t chars[32];
} fake_string;

static void test_strings(void **state)
{
    (void)state;
    char t[256];
    fake_string s = { 0, 3, { 'r', 'u', 'n' } };
    uint64_t ref = (uint64_t)(uintptr_t)&s;
    assert_string_equal(roundtrip(&p_str, &ref, t, sizeof t), "\"run\"");
    fake_string q = { 0, 4, { 'a', '"', '\\', '\n' } };
    ref = (uint64_t)(uintptr_t)&q;
    assert_string_equal(roundtrip(&p_str, &ref, t, sizeof t), "\"a\\\"\\\\\\n\"");
    /* Longer than the limit (5 chars): cut with the full length shown. */
    fake_string l = { 0, 12, { 'H', 'e', 'l', 'l', 'o', ',', ' ', 't', 'e', 's', 't', '!' } };
    ref = (uint64_t)(uintptr_t)&l;
    assert_string_equal(roundtrip(&p_str, &ref, t, sizeof t), "\"Hello\"...(12 chars)");
    /* A surrogate pair (U+1F600) and a lone surrogate. */
    fake_string e = { 0, 3, { 0xD83D, 0xDE00, 0xD800 } };
    ref = (uint64_t)(uintptr_t)&e;
    assert_string_equal(roundtrip(&p_str, &ref, t, sizeof t), "\"\xF0\x9F\x98\x80\\uD800\"");
    ref = 0;
    assert_string_equal(roundtrip(&p_str, &ref, t, sizeof t), "null");
}

/* System.String's class id as the layout knows it; any object here is a
 * string to this class_of. */
#define STRING_CLASS 0x5550u

static void string_class_of(void *ctx, uint64_t obj, int named, ct_class_info *ci)
{
    (void)ctx;
    memset(ci, 0, sizeof *ci);
    ci->id = obj ? STRING_CLASS : 0;
    ci->string = obj != 0;
}

/* Boxed objects: the class says which kind of value follows the method
 * table pointer (the profiler asks the runtime; here the object says). */
#define BOXED_INT_CLASS 0x5550ull
#define BOXED_DATETIME_CLASS 0x5560ull
static void boxed_class_of(void *ctx, uint64_t obj, int named, ct_class_info *ci)
{
    (void)ctx;
    uint64_t mt;
    memcpy(&mt, (const void *)(uintptr_t)obj, 8);
    memset(ci, 0, sizeof *ci);
    ci->boxed = mt == BOXED_INT_CLASS ? CT_V_I4 : mt == BOXED_DATETIME_CLASS ? CT_V_DATETIME
                                                                           : CT_V_VOID;
    ci->id = mt;
}

/* Spans (a ref and a length, as the runtime lays them out): a char span's
 * text cut at the string limit (5), other elements at the array limit (3). */
static void test_spans(void **state)
{
    (void)state;
    static const uint16_t chars[] = { 'h', 'e', 'l', 'l', 'o', '!', '!' };
    static const int32_t ints[] = { 4, 5, 6, 7 };
    static const ct_plan p_char16 = { .kind = CT_V_CHAR, .size = 2, .type_name = "char" };
    ct_plan text = { .kind = CT_V_SPAN, .size = 16, .type_name = "ReadOnlySpan<char>",
                     .elem = &p_char16, .value_offset = 8 };
    ct_plan nums = { .kind = CT_V_SPAN, .size = 16, .type_name = "Span<int>", .elem = &p_i4,
                     .value_offset = 8 };
    struct { const void *ref; int32_t length, pad; } span = { chars, 3, 0 };
    char t[128];
    assert_string_equal(roundtrip(&text, &span, t, sizeof t), "\"hel\"");
    span.length = 7;
    assert_string_equal(roundtrip(&text, &span, t, sizeof t), "\"hello\"...(7 chars)");
    span.ref = ints;
    span.length = 4;
    assert_string_equal(roundtrip(&nums, &span, t, sizeof t), "[4] {4, 5, 6, ...}");
    span.length = 2;
    assert_string_equal(roundtrip(&nums, &span, t, sizeof t), "[2] {4, 5}");
    span.ref = NULL;
    span.length = 0;
    assert_string_equal(roundtrip(&nums, &span, t, sizeof t), "[0] {}");
    assert_string_equal(roundtrip(&text, &span, t, sizeof t), "\"\"");
    /* More elements than the length says: damage. */
    uint8_t raw[64] = { 0 };
    uint64_t addr = 0x1000;
    int32_t len = 1;
    uint32_t n = 2;
    memcpy(raw, &addr, 8);
    memcpy(raw + 8, &len, 4);
    memcpy(raw + 12, &n, 4);
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    ct_format_value(&nums, raw, 16 + 8, &fake_classes, &tx);
    assert_non_null(strstr(t, "damaged"));
}

/* SIMD vectors: their bytes, written element by element as .NET does. */
static void test_vectors(void **state)
{
    (void)state;
    char t[128];
    int32_t v128[4] = { 1, -2, 3, 4 };
    ct_plan vi = { .kind = CT_V_VECTOR, .size = 16, .type_name = "Vector128<int>", .elem = &p_i4 };
    assert_string_equal(roundtrip(&vi, v128, t, sizeof t), "<1, -2, 3, 4>");
    float v2[2] = { 1.5f, 2 };
    ct_plan vf = { .kind = CT_V_VECTOR, .size = 8, .type_name = "Vector2", .elem = &p_r4 };
    assert_string_equal(roundtrip(&vf, v2, t, sizeof t), "<1.5, 2>");
    /* A size that is not a whole number of elements, or an element that is
     * not a number, is damage. */
    ct_plan bad = { .kind = CT_V_VECTOR, .size = 6, .type_name = "?", .elem = &p_i4 };
    uint8_t raw[8] = { 0 };
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    ct_format_value(&bad, raw, 6, &fake_classes, &tx);
    assert_non_null(strstr(t, "damaged"));
    bad.size = 16;
    bad.elem = &p_str;
    ct_text_init(&tx, t, sizeof t);
    ct_format_value(&bad, raw, 8, &fake_classes, &tx);
    assert_non_null(strstr(t, "damaged"));
}

static void count_class(void *ctx, uint64_t cls);

/* A field of unknown type is read only where it is: up to the next field, or
 * the value's end. issue 35: class Tail { string Name; int? Wrapped; } on
 * x64: Name at 8, Wrapped (8 bytes) at 16, the runtime's size 32 with the
 * 8-byte header before the object's address: Wrapped has 8 bytes, not 16. */
static void test_field_room(void **state)
{
    (void)state;
    const uint32_t tail[2] = {16, 8}; /* offsets in token order: any order */
    uint32_t end = 32 - CT_OBJECT_HEADER_BYTES;
    assert_int_equal(ct_field_room(tail, 2, 0, end), 8);  /* the last field: to the end */
    assert_int_equal(ct_field_room(tail, 2, 1, end), 8);  /* to the next field */
    /* At the limit: a field ending exactly at the value's end; one past it:
     * a field starting at the end has no room; beyond the layout: none. */
    const uint32_t at_end[1] = {23};
    assert_int_equal(ct_field_room(at_end, 1, 0, 24), 1);
    assert_int_equal(ct_field_room(at_end, 1, 0, 23), 0);
    assert_int_equal(ct_field_room(tail, 2, 2, end), 0);
    /* A struct (no header): Nullable<int> { bool hasValue at 0; int value at 4 }. */
    const uint32_t nullable[2] = {0, 4};
    assert_int_equal(ct_field_room(nullable, 2, 0, 8), 4);
    assert_int_equal(ct_field_room(nullable, 2, 1, 8), 4);
    /* Two fields at one offset (explicit layout): each up to the next one after it. */
    const uint32_t overlap[3] = {0, 0, 8};
    assert_int_equal(ct_field_room(overlap, 3, 1, 16), 8);
    assert_int_equal(ct_field_room(overlap, 3, 2, 16), 8);
}

static void test_boxed_values(void **state)
{
    (void)state;
    /* object o = 5; object d = DateTime(2024-05-06T07:08:09.1234567, Utc); a
     * plain object stays type@address. */
    uint64_t box_i[2] = { BOXED_INT_CLASS, 5 };
    uint64_t box_d[2] = { BOXED_DATETIME_CLASS, 638505760891234567ull | 1ull << 62 };
    uint64_t plain[2] = { 0x1238, 0 };
    const struct { const uint64_t *obj; const char *text; } cases[] = {
        { box_i, "int 5" }, { box_d, "DateTime 2024-05-06T07:08:09.1234567Z" },
        { plain, "Demo.Shapes@0x" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t ref = (uint64_t)(uintptr_t)cases[i].obj;
        uint8_t raw[64];
        size_t n = ct_capture(&p_obj, &ref, &layout, &limits, boxed_class_of, NULL, raw, sizeof raw);
        char t[128];
        ct_text tx;
        ct_text_init(&tx, t, sizeof t);
        assert_int_equal(ct_format_value(&p_obj, raw, n, &fake_classes, &tx), n);
        assert_int_equal(strncmp(t, cases[i].text, strlen(cases[i].text)), 0);
        /* No CLASS record is asked for a boxed value. */
        int classes = 0;
        ct_value_classes(&p_obj, raw, n, &fake_classes, count_class, &classes);
        assert_int_equal(classes, i == 2 ? 1 : 0);
    }
    /* A boxed kind the reader does not know is damage, not a crash. */
    uint8_t raw[32] = { 0 };
    uint64_t addr = 0x1000, cls = BOXED_INT_CLASS | 2;
    memcpy(raw, &addr, 8);
    memcpy(raw + 8, &cls, 8);
    raw[16] = 0xEE;
    char t[128];
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    ct_format_value(&p_obj, raw, 17 + 4, &fake_classes, &tx);
    assert_non_null(strstr(t, "damaged"));
}

static void count_class(void *ctx, uint64_t cls)
{
    (void)cls;
    ++*(int *)ctx;
}

/* A string in an object slot (object, or T in shared generic code) is
 * captured and shown as a string parameter is; it names no class. */
static void test_string_in_object_slot(void **state)
{
    (void)state;
    static const ct_layout with_string = { 8, 12, 8, 16, STRING_CLASS };
    fake_string s = { 0, 7, { 'a', 'l', 'p', 'h', 'a', '"', '!' } };
    uint64_t ref = (uint64_t)(uintptr_t)&s;
    uint8_t raw[256];
    size_t n = ct_capture(&p_obj, &ref, &with_string, &limits, string_class_of, NULL, raw,
                          sizeof raw);
    /* address, class id | 1, length, n = 5 (the -s limit), 5 UTF-16 units */
    assert_int_equal(n, 8 + 8 + 4 + 4 + 5 * 2);
    char t[256];
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&p_obj, raw, n, &fake_classes, &tx), n);
    assert_string_equal(t, "\"alpha\"...(7 chars)");
    int classes = 0;
    ct_value_classes(&p_obj, raw, n, &fake_classes, count_class, &classes);
    assert_int_equal(classes, 0);
    /* Cut short inside the characters: damaged, never read past the end. */
    ct_text_init(&tx, t, sizeof t);
    ct_format_value(&p_obj, raw, n - 1, &fake_classes, &tx);
    assert_non_null(strstr(t, "damaged"));
    /* Another class: address and class as before (one CLASS to name). */
    n = ct_capture(&p_obj, &ref, &with_string, &limits, fake_class_of, NULL, raw, sizeof raw);
    assert_int_equal(n, 16);
    ct_value_classes(&p_obj, raw, n, &fake_classes, count_class, &classes);
    assert_int_equal(classes, 1);
}

static void test_objects_and_arrays(void **state)
{
    (void)state;
    char t[256];
    uint64_t obj[2] = { 0, 0 };
    uint64_t ref = (uint64_t)(uintptr_t)obj;
    char want[64];
    snprintf(want, sizeof want, "Demo.Shapes@0x%llx", (unsigned long long)ref);
    assert_string_equal(roundtrip(&p_obj, &ref, t, sizeof t), want);

    struct { uint64_t mt; uint32_t len, pad; int32_t items[5]; } arr = { 0, 5, 0, { 1, 2, 3, 4, 5 } };
    static const ct_plan p_arr = { .kind = CT_V_ARRAY, .size = 8, .type_name = "int[]", .elem = &p_i4 };
    ref = (uint64_t)(uintptr_t)&arr;
    assert_string_equal(roundtrip(&p_arr, &ref, t, sizeof t), "int[5] {1, 2, 3, ...}");
    arr.len = 0;
    assert_string_equal(roundtrip(&p_arr, &ref, t, sizeof t), "int[0] {}");
    /* string[] with two strings */
    fake_string a = { 0, 1, { 'a' } }, b = { 0, 1, { 'b' } };
    struct { uint64_t mt; uint32_t len, pad; uint64_t items[2]; } sa =
        { 0, 2, 0, { (uint64_t)(uintptr_t)&a, (uint64_t)(uintptr_t)&b } };
    static const ct_plan p_sarr = { .kind = CT_V_ARRAY, .size = 8, .type_name = "string[]", .elem = &p_str };
    ref = (uint64_t)(uintptr_t)&sa;
    assert_string_equal(roundtrip(&p_sarr, &ref, t, sizeof t), "string[2] {\"a\", \"b\"}");
    ref = 0;
    assert_string_equal(roundtrip(&p_sarr, &ref, t, sizeof t), "null");
}

static void test_structs_enums_nullable(void **state)
{
    (void)state;
    char t[256];
    static const ct_field pf[] = { { "X", 0, &p_r8 }, { "Y", 8, &p_r8 } };
    static const ct_plan p_point = { .kind = CT_V_STRUCT, .size = 16, .type_name = "Point",
                                     .count = 2, .fields = pf };
    double pt[2] = { 1, 2 };
    assert_string_equal(roundtrip(&p_point, pt, t, sizeof t), "{X=1, Y=2}");

    static const ct_field lf[] = { { "A", 0, &p_point }, { "B", 16, &p_point } };
    static const ct_plan p_line = { .kind = CT_V_STRUCT, .size = 32, .type_name = "Line",
                                    .count = 2, .fields = lf };
    double line[4] = { 1.5, 3, -0.25, 1e20 };
    assert_string_equal(roundtrip(&p_line, line, t, sizeof t), "{A={X=1.5, Y=3}, B={X=-0.25, Y=1E+20}}");

    static const ct_enum_item mi[] = { { "Fast", 0 }, { "Safe", 1 } };
    static const ct_plan p_mode = { .kind = CT_V_ENUM, .size = 4, .type_name = "Mode",
                                    .underlying = CT_V_I4, .count = 2, .items = mi };
    int32_t m = 1;
    assert_string_equal(roundtrip(&p_mode, &m, t, sizeof t), "Safe");
    m = -7;
    assert_string_equal(roundtrip(&p_mode, &m, t, sizeof t), "-7");

    static const ct_enum_item fi[] = { { "None", 0 }, { "Read", 1 }, { "Write", 2 }, { "Exec", 4 } };
    static const ct_plan p_flags = { .kind = CT_V_ENUM, .size = 1, .type_name = "Access", .is_flags = 1,
                                     .underlying = CT_V_U1, .count = 4, .items = fi };
    uint8_t fl = 3;
    assert_string_equal(roundtrip(&p_flags, &fl, t, sizeof t), "Read | Write");
    fl = 0;
    assert_string_equal(roundtrip(&p_flags, &fl, t, sizeof t), "None");
    fl = 9;
    assert_string_equal(roundtrip(&p_flags, &fl, t, sizeof t), "9");

    static const ct_plan p_nint = { .kind = CT_V_NULLABLE, .size = 8, .type_name = "int?",
                                    .elem = &p_i4, .value_offset = 4 };
    struct { uint8_t has, pad[3]; int32_t v; } ni = { 1, { 0 }, 42 };
    assert_string_equal(roundtrip(&p_nint, &ni, t, sizeof t), "42");
    ni.has = 0;
    assert_string_equal(roundtrip(&p_nint, &ni, t, sizeof t), "null");

    static const ct_plan p_ref = { .kind = CT_V_BYREF, .size = 8, .type_name = "ref int", .elem = &p_i4 };
    int32_t target = 5;
    uint64_t addr = (uint64_t)(uintptr_t)&target;
    char want[64];
    snprintf(want, sizeof want, "0x%llx -> 5", (unsigned long long)addr);
    assert_string_equal(roundtrip(&p_ref, &addr, t, sizeof t), want);
}

/* The well-known structs. Ticks computed independently (Python's datetime:
 * days and seconds since 0001-01-01 times 10^7); the texts are .NET's "o"
 * (DateTime), "c" (TimeSpan) and "D" (Guid) formats, Half and Int128 as
 * their ToString() prints them (each checked against dotnet 10). */
static const char *wellknown(ct_vkind k, const void *bytes, uint32_t size, char *t, size_t cap)
{
    ct_plan p = { .kind = k, .size = size, .type_name = "?" };
    return roundtrip(&p, bytes, t, cap);
}

static void test_wellknown(void **state)
{
    (void)state;
    char t[256];
    uint64_t d = 638505760891234567ull | 1ull << 62; /* 2024-05-06T07:08:09 + 1234567 ticks, Utc */
    assert_string_equal(wellknown(CT_V_DATETIME, &d, 8, t, sizeof t), "2024-05-06T07:08:09.1234567Z");
    d = 621355968000000000ull; /* the Unix epoch, Unspecified */
    assert_string_equal(wellknown(CT_V_DATETIME, &d, 8, t, sizeof t), "1970-01-01T00:00:00.0000000");
    d = 630874224000000000ull | 2ull << 62; /* a leap day, Local */
    assert_string_equal(wellknown(CT_V_DATETIME, &d, 8, t, sizeof t),
                        "2000-02-29T12:00:00.0000000 (local)");
    d = 504646848000000000ull | 3ull << 62; /* the day after 1600's leap day; Local in a DST overlap */
    assert_string_equal(wellknown(CT_V_DATETIME, &d, 8, t, sizeof t),
                        "1600-03-01T00:00:00.0000000 (local)");
    d = 3155378975999999999ull; /* DateTime.MaxValue, at the limit */
    assert_string_equal(wellknown(CT_V_DATETIME, &d, 8, t, sizeof t), "9999-12-31T23:59:59.9999999");
    d = 3155378976000000000ull; /* one past: not a DateTime */
    assert_string_equal(wellknown(CT_V_DATETIME, &d, 8, t, sizeof t),
                        "<DateTime ticks=3155378976000000000>");

    int64_t span = 0;
    assert_string_equal(wellknown(CT_V_TIMESPAN, &span, 8, t, sizeof t), "00:00:00");
    span = -1;
    assert_string_equal(wellknown(CT_V_TIMESPAN, &span, 8, t, sizeof t), "-00:00:00.0000001");
    span = INT64_MIN; /* TimeSpan.MinValue */
    assert_string_equal(wellknown(CT_V_TIMESPAN, &span, 8, t, sizeof t), "-10675199.02:48:05.4775808");
    span = INT64_MAX; /* TimeSpan.MaxValue */
    assert_string_equal(wellknown(CT_V_TIMESPAN, &span, 8, t, sizeof t), "10675199.02:48:05.4775807");

    /* new Guid("0f8fad5b-d9cb-469f-a165-70867728950e"): _a, _b, _c little-endian. */
    static const uint8_t g[16] = { 0x5b, 0xad, 0x8f, 0x0f, 0xcb, 0xd9, 0x9f, 0x46,
                                   0xa1, 0x65, 0x70, 0x86, 0x77, 0x28, 0x95, 0x0e };
    assert_string_equal(wellknown(CT_V_GUID, g, 16, t, sizeof t),
                        "0f8fad5b-d9cb-469f-a165-70867728950e");

    static const struct { uint16_t bits; const char *text; } halves[] = {
        { 0x3C00, "1" }, { 0x3E00, "1.5" }, { 0xC000, "-2" },
        { 0x2E66, "0.1" },    /* (Half)0.1 is 0.0999755859375 */
        { 0x7BFF, "65500" },  /* Half.MaxValue (65504): its shortest text, as .NET prints it */
        { 0x0001, "6E-08" },  /* Half.Epsilon, 2^-24 */
        { 0x0000, "0" }, { 0x7C00, "Infinity" },
    };
    for (size_t i = 0; i < sizeof halves / sizeof *halves; i++)
        assert_string_equal(wellknown(CT_V_HALF, &halves[i].bits, 2, t, sizeof t), halves[i].text);

    uint64_t i128[2] = { 0, 1ull << 63 }; /* Int128.MinValue */
    assert_string_equal(wellknown(CT_V_I16, i128, 16, t, sizeof t),
                        "-170141183460469231731687303715884105728");
    i128[0] = i128[1] = UINT64_MAX;
    assert_string_equal(wellknown(CT_V_I16, i128, 16, t, sizeof t), "-1");
    assert_string_equal(wellknown(CT_V_U16, i128, 16, t, sizeof t),
                        "340282366920938463463374607431768211455");
    i128[0] = 0;
    i128[1] = 1; /* 2^64 */
    assert_string_equal(wellknown(CT_V_U16, i128, 16, t, sizeof t), "18446744073709551616");
    /* A plan whose size is not the kind's is refused. */
    ct_plan bad = { .kind = CT_V_GUID, .size = 8, .type_name = "Guid" };
    uint8_t raw[16] = { 0 };
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    ct_format_value(&bad, raw, 8, &fake_classes, &tx);
    assert_non_null(strstr(t, "damaged"));
}


/* ------------------------------------------- objects by their content */

/* Fake objects as CoreCLR lays them out on 64-bit: the method table pointer
 * (here the class id itself), then the fields at the content plan's
 * offsets. */
#define NODE_CLASS 0x7000ull
#define LIST_CLASS 0x7100ull
#define DICT_CLASS 0x7200ull
#define ARRAY_CLASS 0x7300ull
typedef struct fake_node {
    uint64_t mt;
    int32_t value;
    int32_t pad;
    uint64_t next;
} fake_node;

static const ct_field node_fields[] = {
    { "Value", 8, &p_i4 },
    { "Next", 16, &p_obj },
};
static const ct_plan node_content = { .kind = CT_V_CLASS, .size = 24, .type_name = "Node",
                                      .count = 2, .fields = node_fields };
/* The same with a third field not shown (--object-fields 2). */
static const ct_plan node_cut = { .kind = CT_V_CLASS, .size = 24, .type_name = "Node",
                                  .count = 2, .fields = node_fields, .value_offset = 1 };
static int node_fields_cut;

static const ct_seq list_layout = { .items = 8, .count = 16 };
static const ct_plan list_content = { .kind = CT_V_SEQ, .size = 8, .type_name = "List<int>",
                                      .shape = CT_SEQ_LIST, .elem = &p_i4, .seq = &list_layout };
/* Dictionary<string, int>: entries of {u32 hash, i32 next, string key, int value}. */
static const ct_seq dict_layout = { .items = 8, .count = 16, .free_count = 20, .entry_size = 24,
                                    .entry_next = 4, .entry_key = 8, .entry_value = 16 };
static const ct_plan dict_content = { .kind = CT_V_SEQ, .size = 8,
                                      .type_name = "Dictionary<string, int>",
                                      .shape = CT_SEQ_DICT, .elem = &p_i4, .key = &p_str,
                                      .seq = &dict_layout };
static const ct_plan array_content = { .kind = CT_V_SEQ, .size = 8, .type_name = "int[]",
                                       .shape = CT_SEQ_ARRAY, .elem = &p_i4 };
/* StringBuilder: {m_ChunkChars, m_ChunkPrevious, m_ChunkLength, m_ChunkOffset}. */
#define TEXT_CLASS 0x7400ull
static const ct_seq text_layout = { .items = 8, .previous = 16, .count = 24, .head = 28 };
static const ct_plan text_content = { .kind = CT_V_SEQ, .size = 8, .type_name = "StringBuilder",
                                      .shape = CT_SEQ_TEXT, .elem = &p_char, .seq = &text_layout };

/* Objects in a form (ct_form): a Uri's two strings, a Version's four
 * ints, an IPAddress, a RuntimeType's handle, a Task<int>, a
 * CancellationTokenSource, a Lazy<int>; a plan whose fields do not fit its
 * form. */
#define URI_CLASS 0x7500ull
#define VERSION_CLASS 0x7600ull
#define IP_CLASS 0x7700ull
#define TYPE_CLASS 0x7800ull
#define TASK_CLASS 0x7900ull
#define CTS_CLASS 0x7a00ull
#define LAZY_CLASS 0x7b00ull
#define ODD_CLASS 0x7c00ull
#define ENCODING_CLASS 0x7d00ull
/* 2.7: a LinkedList<int> {head, count} of nodes {list, next, prev, item},
 * a BitArray {byte[] _array, _bitLength} and one of int[] (before .NET 9). */
#define LINKED_CLASS 0x7e00ull
#define LNODE_CLASS 0x7f00ull
#define BITS_CLASS 0x8000ull
#define BITS4_CLASS 0x8100ull
/* 2.8: trees walked in order (a SortedSet<int> {root, count} of nodes {left,
 * right, item}; an ImmutableList<int> whose count is its root's and whose
 * empty node has no left), a ConcurrentDictionary<int, int> {tables} with
 * Tables {buckets, countPerLock} and nodes {key, value, next}; exceptions
 * {message, inner} and an aggregate {message, inner exceptions[]}. */
#define TREE_CLASS 0x8200ull
#define TNODE_CLASS 0x8300ull
#define ITREE_CLASS 0x8400ull
#define CDICT_CLASS 0x8500ull
#define CNODE_CLASS 0x8600ull
#define EXC_CLASS 0x8700ull
#define AGG_CLASS 0x8800ull
static const ct_plan p_u4 = { .kind = CT_V_U4, .size = 4, .type_name = "uint" };
static const ct_plan p_u2 = { .kind = CT_V_U2, .size = 2, .type_name = "ushort" };
static const ct_plan p_nint = { .kind = CT_V_I, .size = 8, .type_name = "nint" };
static const ct_plan p_ipwords = { .kind = CT_V_ARRAY, .size = 8, .type_name = "ushort[]",
                                 .elem = &p_u2 };
static const ct_field uri_fields[] = { { "_originalUnicodeString", 8, &p_str },
                                       { "_string", 16, &p_str } };
static const ct_plan uri_content = { .kind = CT_V_CLASS, .size = 24, .type_name = "Uri",
                                     .count = 2, .fields = uri_fields, .shape = CT_FORM_TEXT };
static const ct_field version_fields[] = { { "_Major", 8, &p_i4 }, { "_Minor", 12, &p_i4 },
                                           { "_Build", 16, &p_i4 }, { "_Revision", 20, &p_i4 } };
static const ct_plan version_content = { .kind = CT_V_CLASS, .size = 24, .type_name = "Version",
                                         .count = 4, .fields = version_fields,
                                         .shape = CT_FORM_VERSION };
static const ct_field ip_fields[] = { { "_addressOrScopeId", 8, &p_u4 },
                                      { "_numbers", 16, &p_ipwords } };
static const ct_plan ip_content = { .kind = CT_V_CLASS, .size = 24, .type_name = "IPAddress",
                                    .count = 2, .fields = ip_fields, .shape = CT_FORM_IPADDRESS };
static const ct_field type_fields[] = { { "m_handle", 8, &p_nint } };
static const ct_plan type_content = { .kind = CT_V_CLASS, .size = 16, .type_name = "RuntimeType",
                                      .count = 1, .fields = type_fields, .shape = CT_FORM_TYPE };
static const ct_field task_fields[] = { { "m_stateFlags", 8, &p_i4 }, { "m_result", 12, &p_i4 } };
static const ct_plan task_content = { .kind = CT_V_CLASS, .size = 16, .type_name = "Task<int>",
                                      .count = 2, .fields = task_fields, .shape = CT_FORM_TASK };
static const ct_field cts_fields[] = { { "_state", 8, &p_i4 } };
static const ct_plan cts_content = { .kind = CT_V_CLASS, .size = 12,
                                     .type_name = "CancellationTokenSource", .count = 1,
                                     .fields = cts_fields, .shape = CT_FORM_CANCEL };
static const ct_field lazy_fields[] = { { "_state", 8, &p_obj }, { "_value", 16, &p_i4 } };
static const ct_plan lazy_content = { .kind = CT_V_CLASS, .size = 20, .type_name = "Lazy<int>",
                                      .count = 2, .fields = lazy_fields, .shape = CT_FORM_LAZY };
static const ct_field encoding_fields[] = { { "_codePage", 8, &p_i4 } };
static const ct_plan encoding_content = { .kind = CT_V_CLASS, .size = 12,
                                          .type_name = "UTF8Encoding", .count = 1,
                                          .fields = encoding_fields, .shape = CT_FORM_ENCODING };
static const ct_seq linked_layout = { .walk = CT_WALK_LINKED, .items = 8, .count = 16,
                                      .node_class = LNODE_CLASS, .entry_next = 16,
                                      .entry_value = 32 };
static const ct_plan linked_content = { .kind = CT_V_SEQ, .size = 8, .type_name = "LinkedList<int>",
                                        .shape = CT_SEQ_LIST, .elem = &p_i4,
                                        .seq = &linked_layout };
static const ct_seq bits_layout = { .walk = CT_WALK_BITS, .items = 8, .count = 16,
                                    .entry_size = 1 };
static const ct_plan bits_content = { .kind = CT_V_SEQ, .size = 8, .type_name = "BitArray",
                                      .shape = CT_SEQ_LIST, .elem = &p_bool, .seq = &bits_layout };
static const ct_seq bits4_layout = { .walk = CT_WALK_BITS, .items = 8, .count = 16,
                                     .entry_size = 4 };
static const ct_plan bits4_content = { .kind = CT_V_SEQ, .size = 8, .type_name = "BitArray",
                                       .shape = CT_SEQ_LIST, .elem = &p_bool,
                                       .seq = &bits4_layout };
static const ct_seq tree_layout = { .walk = CT_WALK_TREE, .items = 8, .count = 16,
                                    .node_class = TNODE_CLASS, .left = 8, .right = 16,
                                    .entry_value = 24, .outer = CT_SEQ_NO_OUTER };
static const ct_plan tree_content = { .kind = CT_V_SEQ, .size = 8, .type_name = "SortedSet<int>",
                                      .shape = CT_SEQ_SET, .elem = &p_i4, .seq = &tree_layout };
static const ct_seq itree_layout = { .walk = CT_WALK_TREE, .items = 8, .count = 28,
                                     .node_class = TNODE_CLASS, .left = 8, .right = 16,
                                     .entry_value = 24, .outer = CT_SEQ_NO_OUTER,
                                     .flags = CT_TREE_COUNT_IN_ROOT | CT_TREE_EMPTY_SENTINEL };
static const ct_plan itree_content = { .kind = CT_V_SEQ, .size = 8,
                                       .type_name = "ImmutableList<int>", .shape = CT_SEQ_LIST,
                                       .elem = &p_i4, .seq = &itree_layout };
static const ct_seq cdict_layout = { .walk = CT_WALK_BUCKETS, .items = 8, .head = 8, .count = 16,
                                     .entry_size = 8, .node_class = CNODE_CLASS,
                                     .entry_key = 8, .entry_value = 12, .entry_next = 16 };
static const ct_plan cdict_content = { .kind = CT_V_SEQ, .size = 8,
                                       .type_name = "ConcurrentDictionary<int, int>",
                                       .shape = CT_SEQ_DICT, .elem = &p_i4, .key = &p_i4,
                                       .seq = &cdict_layout };
static const ct_field exc_fields[] = { { "Message", 8, &p_str }, { "InnerException", 16, &p_obj } };
static const ct_plan exc_content = { .kind = CT_V_CLASS, .size = 24, .type_name = "Failure",
                                     .count = 2, .fields = exc_fields, .shape = CT_FORM_EXCEPTION };
static const ct_plan p_excs = { .kind = CT_V_ARRAY, .size = 8, .type_name = "Exception[]",
                                .elem = &p_obj };
static const ct_field agg_fields[] = { { "Message", 8, &p_str }, { "InnerExceptions", 24, &p_excs } };
static const ct_plan agg_content = { .kind = CT_V_CLASS, .size = 32, .type_name = "Aggregate",
                                     .count = 2, .fields = agg_fields, .shape = CT_FORM_EXCEPTION };
static const ct_field odd_fields[] = { { "X", 8, &p_i4 } };
static const ct_plan odd_content = { .kind = CT_V_CLASS, .size = 12, .type_name = "Odd",
                                     .count = 1, .fields = odd_fields, .shape = CT_FORM_TEXT };

static const ct_plan *content_of(uint64_t cls)
{
    switch (cls) {
    case URI_CLASS: return &uri_content;
    case VERSION_CLASS: return &version_content;
    case IP_CLASS: return &ip_content;
    case TYPE_CLASS: return &type_content;
    case TASK_CLASS: return &task_content;
    case CTS_CLASS: return &cts_content;
    case LAZY_CLASS: return &lazy_content;
    case ODD_CLASS: return &odd_content;
    case ENCODING_CLASS: return &encoding_content;
    case LINKED_CLASS: return &linked_content;
    case BITS_CLASS: return &bits_content;
    case BITS4_CLASS: return &bits4_content;
    case TREE_CLASS: return &tree_content;
    case ITREE_CLASS: return &itree_content;
    case CDICT_CLASS: return &cdict_content;
    case EXC_CLASS: return &exc_content;
    case AGG_CLASS: return &agg_content;
    case NODE_CLASS: return node_fields_cut ? &node_cut : &node_content;
    case LIST_CLASS: return &list_content;
    case DICT_CLASS: return &dict_content;
    case ARRAY_CLASS: return &array_content;
    case TEXT_CLASS: return &text_content;
    default: return NULL;
    }
}

static void content_class_of(void *ctx, uint64_t obj, int named, ct_class_info *ci)
{
    (void)ctx;
    uint64_t mt;
    memcpy(&mt, (const void *)(uintptr_t)obj, 8);
    memset(ci, 0, sizeof *ci);
    ci->id = mt;
    ci->string = mt == STRING_CLASS;
    ci->szarray = mt == ARRAY_CLASS;
    ci->content = content_of(mt);
}

/* When set, DICT_CLASS's full name (as the profiler's CLASS record has it). */
static const char *dict_full_name;

static const char *content_name_of(void *ctx, uint64_t cls, size_t *len)
{
    static char name[256];
    (void)ctx;
    const ct_plan *c = content_of(cls);
    if (!c)
        return NULL;
    if (cls == DICT_CLASS && dict_full_name)
        snprintf(name, sizeof name, "%s", dict_full_name);
    else
        snprintf(name, sizeof name, "Demo.%s", c->type_name);
    *len = strlen(name);
    return name;
}

static const ct_plan *content_plan_of(void *ctx, uint64_t cls)
{
    (void)ctx;
    return content_of(cls);
}

static const ct_classes content_classes = { content_name_of, content_plan_of, NULL };

/* Captures p at src with lim and formats it; returns the raw length. */
static size_t content_roundtrip(const ct_plan *p, const void *src, const ct_limits *lim,
                                char *text, size_t cap)
{
    static const ct_layout lay = { 8, 12, 8, 16, STRING_CLASS };
    uint8_t raw[2048];
    size_t n = ct_capture(p, src, &lay, lim, content_class_of, NULL, raw, sizeof raw);
    assert_true(n > 0);
    ct_text t;
    ct_text_init(&t, text, cap);
    assert_int_equal(ct_format_value(p, raw, n, &content_classes, &t), n);
    /* Every strict prefix is damaged, never read past. */
    for (size_t cut = 0; cut < n; cut++) {
        char tmp[512];
        ct_text tt;
        ct_text_init(&tt, tmp, sizeof tmp);
        assert_int_equal(ct_format_value(p, raw, cut, &content_classes, &tt), 0);
    }
    return n;
}

static void count_ids(void *ctx, uint64_t cls)
{
    (void)cls;
    ++*(int *)ctx;
}

static void test_objects_by_content(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 5, 3, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    /* a -> b -> a: the cycle is shown once. */
    fake_node a = { NODE_CLASS, 1, 0, 0 }, b = { NODE_CLASS, 2, 0, 0 };
    a.next = (uint64_t)(uintptr_t)&b;
    b.next = (uint64_t)(uintptr_t)&a;
    uint64_t ref = (uint64_t)(uintptr_t)&a;
    size_t n = content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.Node{Value=1, Next=Demo.Node{Value=2, Next=Demo.Node{<cycle>}}}");
    /* The classes are reported for each object, container first. */
    static const ct_layout lay = { 8, 12, 8, 16, STRING_CLASS };
    uint8_t raw[512];
    n = ct_capture(&p_obj, &ref, &lay, &lim, content_class_of, NULL, raw, sizeof raw);
    int ids = 0;
    ct_value_classes(&p_obj, raw, n, &content_classes, count_ids, &ids);
    assert_int_equal(ids, 3);
    /* Depth: at --object-depth 1 the inner node is shown by class. */
    lim.object_depth = 1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    char want[128];
    snprintf(want, sizeof want, "Demo.Node{Value=1, Next=Demo.Node@0x%llx}",
             (unsigned long long)(uintptr_t)&b);
    assert_string_equal(t, want);
    /* 0: by class only (as `this`). */
    lim.object_depth = 0;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    snprintf(want, sizeof want, "Demo.Node@0x%llx", (unsigned long long)(uintptr_t)&a);
    assert_string_equal(t, want);
    /* --value-bytes: b's address takes the value to 8+8+4+8 = 28 bytes: at
     * 28 it is shown by class, at 29 by content. */
    lim.object_depth = CT_DEFAULT_OBJECT_DEPTH;
    lim.value_bytes = 28;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    snprintf(want, sizeof want, "Demo.Node{Value=1, Next=Demo.Node@0x%llx}",
             (unsigned long long)(uintptr_t)&b);
    assert_string_equal(t, want);
    lim.value_bytes = 29;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.Node{Value=1, Next=Demo.Node{Value=2, Next=Demo.Node{<cycle>}}}");
    /* Shared, not a cycle: an array holding one node twice. */
    lim.value_bytes = CT_DEFAULT_VALUE_BYTES;
    b.next = 0;
    struct { uint64_t mt; uint32_t len, pad; uint64_t items[2]; } arr = {
        0, 2, 0, { (uint64_t)(uintptr_t)&b, (uint64_t)(uintptr_t)&b } };
    static const ct_plan p_nodes = { .kind = CT_V_ARRAY, .size = 8, .type_name = "Node[]",
                                     .elem = &p_obj };
    uint64_t aref = (uint64_t)(uintptr_t)&arr;
    content_roundtrip(&p_nodes, &aref, &lim, t, sizeof t);
    assert_string_equal(t, "object[2] {Demo.Node{Value=2, Next=null}, Demo.Node{<shown above>}}");
    /* Fields not shown. */
    node_fields_cut = 1;
    content_roundtrip(&p_obj, &aref, &lim, t, sizeof t);
    node_fields_cut = 0;
}

static void test_collections(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 5, 3, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    /* List<int> {1, 2, 3, 4} in an array of 6: 3 shown (--array-items 3). */
    struct { uint64_t mt; uint32_t len, pad; int32_t items[6]; } items = {
        ARRAY_CLASS, 6, 0, { 1, 2, 3, 4, 0, 0 } };
    struct { uint64_t mt; uint64_t items; int32_t size, version; } list = {
        LIST_CLASS, (uint64_t)(uintptr_t)&items, 4, 0 };
    uint64_t ref = (uint64_t)(uintptr_t)&list;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "List<int>(4) {1, 2, 3, ...}");
    /* A count past the array: shown as empty, never read past it. */
    list.size = 7;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "List<int>(0) {}");
    /* An array in an object slot. */
    uint64_t iref = (uint64_t)(uintptr_t)&items;
    content_roundtrip(&p_obj, &iref, &lim, t, sizeof t);
    assert_string_equal(t, "int[6] {1, 2, 3, ...}");
    /* Dictionary: {"x"=1, (free), "z"=3}: _count 3, _freeCount 1. */
    fake_string kx = { STRING_CLASS, 1, { 'x' } }, kz = { STRING_CLASS, 1, { 'z' } };
    struct entry { uint32_t hash; int32_t next; uint64_t key; int32_t value, pad; };
    struct { uint64_t mt; uint32_t len, pad; struct entry e[4]; } entries = {
        ARRAY_CLASS, 4, 0,
        { { 7, -1, (uint64_t)(uintptr_t)&kx, 1, 0 }, { 0, -3, 0, 0, 0 },
          { 9, -1, (uint64_t)(uintptr_t)&kz, 3, 0 }, { 0, 0, 0, 0, 0 } } };
    struct { uint64_t mt; uint64_t entries; int32_t count, free_count; } dict = {
        DICT_CLASS, (uint64_t)(uintptr_t)&entries, 3, 1 };
    ref = (uint64_t)(uintptr_t)&dict;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Dictionary<string, int>(2) {[\"x\"]=1, [\"z\"]=3}");
    /* A collection's name is written without namespaces in its type
     * arguments too, as the parameter's type is; a nested type's part after
     * a generic enclosing type stays. */
    static const struct {
        const char *full, *shown;
    } names[] = {
        {"System.Collections.Generic.Dictionary<string, System.Collections.Generic.List<int>>",
         "Dictionary<string, List<int>>"},
        {"System.Collections.Generic.Dictionary<Demo.Point, System.Collections.Generic.List<System.Collections.Generic.HashSet<int>>>",
         "Dictionary<Point, List<HashSet<int>>>"},
        {"Demo.Outer<System.Text.StringBuilder>.Items<int[]>", "Outer<StringBuilder>.Items<int[]>"},
        {"Lookup", "Lookup"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char want[256];
        dict_full_name = names[i].full;
        content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
        snprintf(want, sizeof want, "%s(2) {[\"x\"]=1, [\"z\"]=3}", names[i].shown);
        assert_string_equal(t, want);
    }
    dict_full_name = NULL;
}

static void test_grids_and_segments(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 5, 5, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    /* int[2,3] laid out as CoreCLR does: length, lengths, lower bounds, data. */
    struct { uint64_t mt; uint32_t len, pad; int32_t bounds[4]; int32_t data[6]; } grid = {
        0, 6, 0, { 2, 3, 0, 0 }, { 1, 0, 0, 0, 0, 6 } };
    static const ct_plan p_grid = { .kind = CT_V_MDARRAY, .size = 8, .type_name = "int[,]",
                                    .count = 2, .elem = &p_i4 };
    uint64_t ref = (uint64_t)(uintptr_t)&grid;
    content_roundtrip(&p_grid, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "int[2,3] {{1, 0, 0}, {0, 0, ...}}");
    /* ArraySegment<int>(backing, 1, 3) over an array of 5. */
    struct { uint64_t mt; uint32_t len, pad; int32_t data[5]; } backing = {
        ARRAY_CLASS, 5, 0, { 10, 20, 30, 40, 50 } };
    struct { uint64_t array; int32_t offset, count; } seg = { (uint64_t)(uintptr_t)&backing, 1, 3 };
    static const ct_plan p_seg = { .kind = CT_V_SEGMENT, .size = 16,
                                   .type_name = "ArraySegment<int>", .elem = &p_i4,
                                   .value_offset = 8, .count_offset = 12 };
    content_roundtrip(&p_seg, &seg, &lim, t, sizeof t);
    assert_string_equal(t, "ArraySegment<int>(3) {20, 30, 40}");
    /* Past the array's end: the count only. */
    seg.count = 5;
    content_roundtrip(&p_seg, &seg, &lim, t, sizeof t);
    assert_string_equal(t, "ArraySegment<int>(5)");
    /* ReadOnlyMemory<char> over a string, its start's flag bit ignored. */
    fake_string hw = { STRING_CLASS, 11, { 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd' } };
    struct { uint64_t obj; int32_t index, length; } mem = { (uint64_t)(uintptr_t)&hw,
                                                           (int32_t)(6u | 0x80000000u), 5 };
    static const ct_plan p_mem = { .kind = CT_V_SEGMENT, .size = 16,
                                   .type_name = "ReadOnlyMemory<char>", .elem = &p_char,
                                   .value_offset = 8, .count_offset = 12 };
    content_roundtrip(&p_mem, &mem, &lim, t, sizeof t);
    assert_string_equal(t, "ReadOnlyMemory<char>(5) \"world\"");
    /* DateTimeOffset as the runtime lays it out in .NET 10: the offset in
     * minutes (i16) at 0, the UTC DateTime at 8. 2024-05-06T07:08:07.1234567Z
     * at +02:00. */
    struct { int16_t minutes; int16_t pad[3]; uint64_t utc; } dto = { 120, { 0 },
                                                                      638505760871234567ull };
    static const ct_plan p_dto = { .kind = CT_V_DTOFFSET, .size = 16, .type_name = "DateTimeOffset",
                                   .underlying = CT_V_I2, .value_offset = 8, .count_offset = 0 };
    assert_string_equal(roundtrip(&p_dto, &dto, t, sizeof t), "2024-05-06T09:08:07.1234567+02:00");
    dto.minutes = -330;
    assert_string_equal(roundtrip(&p_dto, &dto, t, sizeof t), "2024-05-06T01:38:07.1234567-05:30");
    static const ct_plan p_rune = { .kind = CT_V_RUNE, .size = 4, .type_name = "Rune" };
    uint32_t rune = 'A';
    assert_string_equal(roundtrip(&p_rune, &rune, t, sizeof t), "'A'");
    rune = 0x110000;
    assert_string_equal(roundtrip(&p_rune, &rune, t, sizeof t), "<Rune 0x110000>");
}

/* Formats raw bytes (no capture) with plan p: the text, "<damaged>" when
 * they do not fit. */
static const char *format_raw(const ct_plan *p, const void *raw, size_t n, char *text, size_t cap)
{
    ct_text t;
    ct_text_init(&t, text, cap);
    ct_format_value(p, raw, n, &fake_classes, &t);
    return text;
}

/* 2.6: DateOnly and TimeOnly in ISO 8601, each at its largest value and one
 * past it; a short record is damaged. */
static void test_dateonly_timeonly(void **state)
{
    (void)state;
    char t[128];
    static const ct_plan p_date = { .kind = CT_V_DATEONLY, .size = 4, .type_name = "DateOnly" };
    static const ct_plan p_time = { .kind = CT_V_TIMEONLY, .size = 8, .type_name = "TimeOnly" };
    uint32_t day = 738944; /* new DateOnly(2024, 2, 29).DayNumber */
    assert_string_equal(roundtrip(&p_date, &day, t, sizeof t), "2024-02-29");
    day = 0;
    assert_string_equal(roundtrip(&p_date, &day, t, sizeof t), "0001-01-01");
    day = 3652058; /* DateOnly.MaxValue */
    assert_string_equal(roundtrip(&p_date, &day, t, sizeof t), "9999-12-31");
    day = 3652059;
    assert_string_equal(roundtrip(&p_date, &day, t, sizeof t), "<DateOnly day=3652059>");
    day = UINT32_MAX;
    assert_string_equal(roundtrip(&p_date, &day, t, sizeof t), "<DateOnly day=4294967295>");
    uint64_t ticks = 495300000000ull; /* new TimeOnly(13, 45, 30) */
    assert_string_equal(roundtrip(&p_time, &ticks, t, sizeof t), "13:45:30");
    ticks += 1234567;
    assert_string_equal(roundtrip(&p_time, &ticks, t, sizeof t), "13:45:30.1234567");
    ticks = 495300000000ull + 5000000; /* half a second: trailing zeros dropped */
    assert_string_equal(roundtrip(&p_time, &ticks, t, sizeof t), "13:45:30.5");
    ticks = 0;
    assert_string_equal(roundtrip(&p_time, &ticks, t, sizeof t), "00:00:00");
    ticks = 863999999999ull; /* TimeOnly.MaxValue */
    assert_string_equal(roundtrip(&p_time, &ticks, t, sizeof t), "23:59:59.9999999");
    ticks = 864000000000ull;
    assert_string_equal(roundtrip(&p_time, &ticks, t, sizeof t), "<TimeOnly ticks=864000000000>");
    /* Short records, and a plan whose size is not the kind's. */
    assert_string_equal(format_raw(&p_date, &day, 3, t, sizeof t), "<damaged>");
    assert_string_equal(format_raw(&p_time, &ticks, 7, t, sizeof t), "<damaged>");
    static const ct_plan bad = { .kind = CT_V_DATEONLY, .size = 8, .type_name = "DateOnly" };
    assert_string_equal(format_raw(&bad, &ticks, 8, t, sizeof t), "<damaged>");
    /* Boxed in an object slot: by its kind's name. */
    uint8_t boxed[8 + 8 + 1 + 4];
    uint64_t addr = 0x1000, cls = 0x2000 | CT_CLASS_BOXED;
    int32_t d = 738944;
    memcpy(boxed, &addr, 8);
    memcpy(boxed + 8, &cls, 8);
    boxed[16] = CT_V_DATEONLY;
    memcpy(boxed + 17, &d, 4);
    assert_string_equal(format_raw(&p_obj, boxed, sizeof boxed, t, sizeof t), "DateOnly 2024-02-29");
}

/* 2.6: Index and Range as .NET's ToString writes them: "^n" from the end,
 * Range "Start..End" with both ends always. */
static void test_index_range(void **state)
{
    (void)state;
    char t[128];
    static const ct_plan p_index = { .kind = CT_V_INDEX, .size = 4, .type_name = "Index" };
    int32_t v = 3;
    assert_string_equal(roundtrip(&p_index, &v, t, sizeof t), "3");
    v = ~1; /* ^1 */
    assert_string_equal(roundtrip(&p_index, &v, t, sizeof t), "^1");
    v = ~0; /* Index.End */
    assert_string_equal(roundtrip(&p_index, &v, t, sizeof t), "^0");
    v = INT32_MAX;
    assert_string_equal(roundtrip(&p_index, &v, t, sizeof t), "2147483647");
    v = INT32_MIN; /* ^int.MaxValue */
    assert_string_equal(roundtrip(&p_index, &v, t, sizeof t), "^2147483647");
    /* Start at 0, End at 4 (as .NET 10 lays it out), and the other way. */
    static const ct_plan p_range = { .kind = CT_V_RANGE, .size = 8, .type_name = "Range",
                                     .value_offset = 0, .count_offset = 4 };
    static const ct_plan p_swapped = { .kind = CT_V_RANGE, .size = 8, .type_name = "Range",
                                       .value_offset = 4, .count_offset = 0 };
    int32_t range[2] = { 1, 3 };
    assert_string_equal(roundtrip(&p_range, range, t, sizeof t), "1..3");
    assert_string_equal(roundtrip(&p_swapped, range, t, sizeof t), "3..1");
    range[0] = ~2; /* ^2.. is ^2..^0 */
    range[1] = ~0;
    assert_string_equal(roundtrip(&p_range, range, t, sizeof t), "^2..^0");
    range[0] = 0; /* ..^1 is 0..^1 */
    range[1] = ~1;
    assert_string_equal(roundtrip(&p_range, range, t, sizeof t), "0..^1");
    /* An offset past the last place an Index fits (4), a short record, a
     * plan whose size is not 8: damaged. */
    static const ct_plan p_bad = { .kind = CT_V_RANGE, .size = 8, .type_name = "Range",
                                   .value_offset = 5, .count_offset = 0 };
    assert_string_equal(format_raw(&p_bad, range, 8, t, sizeof t), "<damaged>");
    assert_string_equal(format_raw(&p_range, range, 7, t, sizeof t), "<damaged>");
    static const ct_plan p_big = { .kind = CT_V_RANGE, .size = 12, .type_name = "Range" };
    int32_t three[3] = { 0 };
    assert_string_equal(format_raw(&p_big, three, 12, t, sizeof t), "<damaged>");
    /* A boxed Index by its name; a boxed Range cannot be (no plan says where
     * its ends are). */
    uint8_t boxed[8 + 8 + 1 + 8];
    uint64_t addr = 0x1000, cls = 0x2000 | CT_CLASS_BOXED;
    v = ~1;
    memcpy(boxed, &addr, 8);
    memcpy(boxed + 8, &cls, 8);
    boxed[16] = CT_V_INDEX;
    memcpy(boxed + 17, &v, 4);
    assert_string_equal(format_raw(&p_obj, boxed, 21, t, sizeof t), "Index ^1");
    boxed[16] = CT_V_RANGE;
    memcpy(boxed + 17, range, 8);
    assert_string_equal(format_raw(&p_obj, boxed, 25, t, sizeof t), "<damaged>");
}

/* 2.6: an [InlineArray(N)] struct, its N elements as an array's: all of
 * them at the array-items limit, ", ..." one past it; elements a stride
 * apart; malformed records damaged. */
static void test_inline_arrays(void **state)
{
    (void)state;
    char t[256];
    static const ct_plan p_quad = { .kind = CT_V_INLINE, .size = 16, .type_name = "Quad",
                                    .count = 4, .elem = &p_i4, .value_offset = 4 };
    int32_t quad[4] = { 2, 4, 6, 8 };
    ct_limits lim = { 64, 4, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    content_roundtrip(&p_quad, quad, &lim, t, sizeof t);
    assert_string_equal(t, "{2, 4, 6, 8}");
    lim.array_items = 3;
    content_roundtrip(&p_quad, quad, &lim, t, sizeof t);
    assert_string_equal(t, "{2, 4, 6, ...}");
    lim.array_items = 0;
    content_roundtrip(&p_quad, quad, &lim, t, sizeof t);
    assert_string_equal(t, "{...}");
    /* Strings, two of them 8 bytes apart; shorts 4 bytes apart (padding). */
    fake_string a = { STRING_CLASS, 1, { 'a' } }, b = { STRING_CLASS, 2, { 'b', 'c' } };
    uint64_t words[2] = { (uint64_t)(uintptr_t)&a, (uint64_t)(uintptr_t)&b };
    static const ct_plan p_words = { .kind = CT_V_INLINE, .size = 16, .type_name = "Words",
                                     .count = 2, .elem = &p_str, .value_offset = 8 };
    lim.array_items = 8;
    content_roundtrip(&p_words, words, &lim, t, sizeof t);
    assert_string_equal(t, "{\"a\", \"bc\"}");
    static const ct_plan p_i2 = { .kind = CT_V_I2, .size = 2, .type_name = "short" };
    static const ct_plan p_spaced = { .kind = CT_V_INLINE, .size = 12, .type_name = "Spaced",
                                      .count = 3, .elem = &p_i2, .value_offset = 4 };
    int16_t spaced[6] = { -1, 99, -2, 99, -3, 99 };
    content_roundtrip(&p_spaced, spaced, &lim, t, sizeof t);
    assert_string_equal(t, "{-1, -2, -3}");
    /* More elements copied than the struct has; no element plan; none
     * counted in the plan. */
    uint8_t raw[4 + 5 * 4] = { 5 };
    assert_string_equal(format_raw(&p_quad, raw, sizeof raw, t, sizeof t), "<damaged>");
    static const ct_plan p_noelem = { .kind = CT_V_INLINE, .size = 16, .type_name = "Quad",
                                      .count = 4, .value_offset = 4 };
    raw[0] = 1;
    assert_string_equal(format_raw(&p_noelem, raw, 8, t, sizeof t), "<damaged>");
    static const ct_plan p_zero = { .kind = CT_V_INLINE, .size = 16, .type_name = "Quad",
                                    .count = 0, .elem = &p_i4, .value_offset = 4 };
    raw[0] = 0;
    assert_string_equal(format_raw(&p_zero, raw, 4, t, sizeof t), "<damaged>");
}

/* A StringBuilder chunk and its char[]. */
typedef struct fake_chunk {
    uint64_t mt, chars, previous;
    int32_t length, offset;
} fake_chunk;
typedef struct fake_chars {
    uint64_t mt;
    uint32_t length, pad;
    uint16_t data[8];
} fake_chars;

/* Links chunks[0..n) first to last, chunk i holding text[i*per..] (per
 * chars each, the last what is left); returns the last. */
static uint64_t link_chunks(fake_chunk *chunks, fake_chars *arrays, uint32_t n, const char *text,
                            uint32_t per)
{
    uint32_t len = (uint32_t)strlen(text);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = i * per, cl = i + 1 == n ? len - off : per;
        arrays[i].mt = ARRAY_CLASS;
        arrays[i].length = 8;
        for (uint32_t k = 0; k < cl; k++)
            arrays[i].data[k] = (uint16_t)text[off + k];
        chunks[i].mt = TEXT_CLASS;
        chunks[i].chars = (uint64_t)(uintptr_t)&arrays[i];
        chunks[i].previous = i ? (uint64_t)(uintptr_t)&chunks[i - 1] : 0;
        chunks[i].length = (int32_t)cl;
        chunks[i].offset = (int32_t)off;
    }
    return (uint64_t)(uintptr_t)&chunks[n - 1];
}

/* 2.6: a StringBuilder by its text, walked back from its last chunk: cut at
 * the string-chars limit as a string is (at it and one past it), its chunks
 * followed up to CT_MAX_TEXT_CHUNKS (at it and one past it: the length
 * only), a chain that does not add up showing the length only. */
static void test_string_builder(void **state)
{
    (void)state;
    static fake_chunk chunks[CT_MAX_TEXT_CHUNKS + 1];
    static fake_chars arrays[CT_MAX_TEXT_CHUNKS + 1];
    char t[512];
    ct_limits lim = { 6, 8, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    uint64_t ref = link_chunks(chunks, arrays, 1, "abcdef", 8);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"abcdef\"");
    ref = link_chunks(chunks, arrays, 3, "abcdef", 2); /* "ab" "cd" "ef" */
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"abcdef\"");
    lim.string_chars = 5;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"abcde\"...(6 chars)");
    lim.string_chars = 3; /* the last chunk is not copied at all */
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"abc\"...(6 chars)");
    /* A chunk that does not end where the next begins. */
    chunks[1].length = 1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"\"...(6 chars)");
    /* An empty builder. */
    ref = link_chunks(chunks, arrays, 1, "", 8);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"\"");
    /* CT_MAX_TEXT_CHUNKS chunks of one char: the text; one more: its length. */
    char many[CT_MAX_TEXT_CHUNKS + 2];
    memset(many, 'x', sizeof many - 1);
    many[CT_MAX_TEXT_CHUNKS] = '\0';
    lim.string_chars = 4;
    ref = link_chunks(chunks, arrays, CT_MAX_TEXT_CHUNKS, many, 1);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    char want[64];
    snprintf(want, sizeof want, "\"xxxx\"...(%d chars)", CT_MAX_TEXT_CHUNKS);
    assert_string_equal(t, want);
    many[CT_MAX_TEXT_CHUNKS] = 'x';
    many[CT_MAX_TEXT_CHUNKS + 1] = '\0';
    ref = link_chunks(chunks, arrays, CT_MAX_TEXT_CHUNKS + 1, many, 1);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    snprintf(want, sizeof want, "\"\"...(%d chars)", CT_MAX_TEXT_CHUNKS + 1);
    assert_string_equal(t, want);
    /* Malformed: more characters than the length, a negative length. */
    uint8_t raw[8 + 8 + 4 + 4 + 4] = { 0 };
    uint64_t addr = 0x1000, cls = TEXT_CLASS | CT_CLASS_CONTENT;
    int32_t len = 1;
    uint32_t n = 2;
    memcpy(raw, &addr, 8);
    memcpy(raw + 8, &cls, 8);
    memcpy(raw + 16, &len, 4);
    memcpy(raw + 20, &n, 4);
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&p_obj, raw, sizeof raw, &content_classes, &tx), 0);
    assert_string_equal(t, "<damaged>");
    len = -1;
    n = 0;
    memcpy(raw + 16, &len, 4);
    memcpy(raw + 20, &n, 4);
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&p_obj, raw, 24, &content_classes, &tx), 0);
    assert_string_equal(t, "<damaged>");
}

typedef struct fake_pair_obj {
    uint64_t mt;
    uint64_t a, b;
} fake_pair_obj;

typedef struct fake_ints_obj {
    uint64_t mt;
    int32_t v[4];
} fake_ints_obj;

typedef struct fake_words {
    uint64_t mt;
    uint32_t length, pad;
    uint16_t w[8];
} fake_words;

static void test_forms(void **state)
{
    (void)state;
    char t[512], want[128];
    ct_limits lim = { 5, 8, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    /* Uri: _originalUnicodeString when set, else _string; cut as strings are. */
    fake_string abc = { STRING_CLASS, 3, { 'a', 'b', 'c' } };
    fake_string xy = { STRING_CLASS, 2, { 'x', 'y' } };
    fake_string six = { STRING_CLASS, 6, { 'a', 'b', 'c', 'd', 'e', 'f' } };
    fake_pair_obj uri = { URI_CLASS, 0, (uint64_t)(uintptr_t)&abc };
    uint64_t ref = (uint64_t)(uintptr_t)&uri;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"abc\"");
    uri.a = (uint64_t)(uintptr_t)&xy;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"xy\"");
    uri.a = (uint64_t)(uintptr_t)&six; /* 5 characters kept of 6 */
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "\"abcde\"...(6 chars)");
    uri.a = uri.b = 0;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "null");
    /* Version: Build and Revision when not -1. */
    fake_ints_obj ver = { VERSION_CLASS, { 1, 2, 3, 4 } };
    ref = (uint64_t)(uintptr_t)&ver;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "1.2.3.4");
    ver.v[3] = -1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "1.2.3");
    ver.v[2] = -1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "1.2");
    /* IPAddress: IPv4 (network order in a little-endian uint), IPv6 words
     * with the scope id; seven words kept of eight: no text. */
    fake_pair_obj ip = { IP_CLASS, 0x0100007Full, 0 };
    ref = (uint64_t)(uintptr_t)&ip;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "127.0.0.1");
    fake_words words = { 0, 8, 0, { 0x2001, 0xdb8, 0, 0, 0, 0, 0, 1 } };
    ip.a = 0;
    ip.b = (uint64_t)(uintptr_t)&words;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "2001:db8::1");
    ip.a = 3;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "2001:db8::1%3");
    lim.array_items = 7;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "<IPv6 address>");
    lim.array_items = 8;
    /* Type: the handle named as a class id; a TypeDesc's (tagged) is not. */
    fake_pair_obj type = { TYPE_CLASS, NODE_CLASS, 0 };
    ref = (uint64_t)(uintptr_t)&type;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "typeof(Demo.Node)");
    static const ct_layout lay = { 8, 12, 8, 16, STRING_CLASS };
    uint8_t raw[256];
    size_t n = ct_capture(&p_obj, &ref, &lay, &lim, content_class_of, NULL, raw, sizeof raw);
    int ids = 0;
    ct_value_classes(&p_obj, raw, n, &content_classes, count_ids, &ids);
    assert_int_equal(ids, 2); /* the RuntimeType, and the type it names */
    type.a = NODE_CLASS | 2;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "typeof(?)");
    /* Task<int>: its status; the result once it ran to completion. */
    fake_ints_obj task = { TASK_CLASS, { 0x1000000, 42 } };
    ref = (uint64_t)(uintptr_t)&task;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.Task<int>{Status=RanToCompletion, Result=42}");
    static const struct {
        int32_t flags;
        const char *text;
    } statuses[] = {
        { 0x2000400, "Demo.Task<int>{Status=WaitingForActivation}" },
        { 0, "Demo.Task<int>{Status=Created}" },
        { 0x10000, "Demo.Task<int>{Status=WaitingToRun}" },
        { 0x30000, "Demo.Task<int>{Status=Running}" },
        { 0x830000, "Demo.Task<int>{Status=WaitingForChildrenToComplete}" },
        { 0x1200000, "Demo.Task<int>{Status=Faulted}" },
        { 0x1400000, "Demo.Task<int>{Status=Canceled}" },
    };
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
        task.v[0] = statuses[i].flags;
        content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
        assert_string_equal(t, statuses[i].text);
    }
    /* CancellationToken: None without a source, else the source's state;
     * the source past --object-depth by class and address. */
    static const ct_field token_fields[] = { { "_source", 0, &p_obj } };
    static const ct_plan token = { .kind = CT_V_STRUCT, .size = 8, .type_name = "CancellationToken",
                                   .count = 1, .fields = token_fields, .shape = CT_FORM_TOKEN };
    fake_ints_obj cts = { CTS_CLASS, { 0 } };
    uint64_t src = 0;
    content_roundtrip(&token, &src, &lim, t, sizeof t);
    assert_string_equal(t, "None");
    src = (uint64_t)(uintptr_t)&cts;
    content_roundtrip(&token, &src, &lim, t, sizeof t);
    assert_string_equal(t, "{IsCancellationRequested=false}");
    cts.v[0] = 2;
    content_roundtrip(&token, &src, &lim, t, sizeof t);
    assert_string_equal(t, "{IsCancellationRequested=true}");
    content_roundtrip(&p_obj, &src, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.CancellationTokenSource{IsCancellationRequested=true}");
    lim.object_depth = 0;
    content_roundtrip(&token, &src, &lim, t, sizeof t);
    snprintf(want, sizeof want, "Demo.CancellationTokenSource@0x%llx",
             (unsigned long long)(uintptr_t)&cts);
    assert_string_equal(t, want);
    lim.object_depth = CT_DEFAULT_OBJECT_DEPTH;
    /* Lazy<int>: the value once created (no _state left). */
    fake_pair_obj lazy = { LAZY_CLASS, 0, 40 };
    ref = (uint64_t)(uintptr_t)&lazy;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.Lazy<int>{Value=40}");
    lazy.a = (uint64_t)(uintptr_t)&cts;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.Lazy<int>{IsValueCreated=false}");
    /* 2.7: ValueTask<int>: its result when it holds no object, else the
     * object (a Task in its form, past --object-depth by class and address);
     * a first field that is not an object reads field by field. */
    static const ct_field vt_fields[] = { { "_obj", 0, &p_obj }, { "_result", 8, &p_i4 } };
    static const ct_plan vtask = { .kind = CT_V_STRUCT, .size = 16, .type_name = "ValueTask<int>",
                                   .count = 2, .fields = vt_fields, .shape = CT_FORM_VALUETASK };
    static const ct_field vt_odd_fields[] = { { "_obj", 0, &p_i4 }, { "_result", 8, &p_i4 } };
    static const ct_plan vt_odd = { .kind = CT_V_STRUCT, .size = 16, .type_name = "ValueTask<int>",
                                    .count = 2, .fields = vt_odd_fields,
                                    .shape = CT_FORM_VALUETASK };
    struct {
        uint64_t obj;
        int32_t result;
        int16_t token;
        uint8_t context, pad;
    } vt = { 0, 5, 0, 1, 0 };
    content_roundtrip(&vtask, &vt, &lim, t, sizeof t);
    assert_string_equal(t, "{Result=5}");
    task.v[0] = 0x1000000;
    vt.obj = (uint64_t)(uintptr_t)&task;
    vt.result = 0;
    content_roundtrip(&vtask, &vt, &lim, t, sizeof t);
    assert_string_equal(t, "{Source=Demo.Task<int>{Status=RanToCompletion, Result=42}}");
    vt.obj = (uint64_t)(uintptr_t)&cts;
    content_roundtrip(&vtask, &vt, &lim, t, sizeof t);
    assert_string_equal(t, "{Source=Demo.CancellationTokenSource{IsCancellationRequested=true}}");
    lim.object_depth = 0;
    content_roundtrip(&vtask, &vt, &lim, t, sizeof t);
    snprintf(want, sizeof want, "{Source=Demo.CancellationTokenSource@0x%llx}",
             (unsigned long long)(uintptr_t)&cts);
    assert_string_equal(t, want);
    lim.object_depth = CT_DEFAULT_OBJECT_DEPTH;
    vt.obj = 7;
    vt.result = 5;
    content_roundtrip(&vt_odd, &vt, &lim, t, sizeof t);
    assert_string_equal(t, "{_obj=7, _result=5}");
    /* Malformed: an object announcing content no class has. */
    uint8_t vbad[8 + 8 + 4] = { 0 };
    uint64_t vaddr = 0x1000, vcls = (NODE_CLASS + 0x10) | CT_CLASS_CONTENT;
    memcpy(vbad, &vaddr, 8);
    memcpy(vbad + 8, &vcls, 8);
    ct_text vtx;
    ct_text_init(&vtx, t, sizeof t);
    assert_int_equal(ct_format_value(&vtask, vbad, sizeof vbad, &content_classes, &vtx), 0);
    assert_string_equal(t, "<damaged>");
    /* 2.7: an Encoding by the name of its code page, others by number. */
    static const struct {
        int32_t code_page;
        const char *text;
    } pages[] = {
        { 65001, "utf-8" },      { 1200, "utf-16" },    { 1201, "utf-16BE" },
        { 12000, "utf-32" },     { 12001, "utf-32BE" }, { 20127, "us-ascii" },
        { 28591, "iso-8859-1" }, { 65000, "utf-7" },    { 437, "codepage 437" },
        { 0, "codepage 0" },     { -1, "codepage -1" },
    };
    fake_ints_obj enc = { ENCODING_CLASS, { 0 } };
    ref = (uint64_t)(uintptr_t)&enc;
    for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
        enc.v[0] = pages[i].code_page;
        content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
        assert_string_equal(t, pages[i].text);
    }
    /* Fields that do not fit the form: field by field. */
    fake_ints_obj odd = { ODD_CLASS, { 1 } };
    ref = (uint64_t)(uintptr_t)&odd;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.Odd{X=1}");
    /* Malformed: a Uri string of more characters than its length. */
    uint8_t bad[8 + 8 + 8 + 8 + 4 + 4 + 4] = { 0 };
    uint64_t addr = 0x1000, cls = URI_CLASS | CT_CLASS_CONTENT, one = 1;
    int32_t len = 1;
    uint32_t kept = 2;
    memcpy(bad, &addr, 8);
    memcpy(bad + 8, &cls, 8);
    memcpy(bad + 24, &one, 8);
    memcpy(bad + 32, &len, 4);
    memcpy(bad + 36, &kept, 4);
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&p_obj, bad, sizeof bad, &content_classes, &tx), 0);
    assert_string_equal(t, "<damaged>");
}

typedef struct fake_lnode {
    uint64_t mt;
    uint64_t list, next, prev;
    int32_t item, pad;
} fake_lnode;

typedef struct fake_linked {
    uint64_t mt;
    uint64_t head;
    int32_t count, version;
} fake_linked;

/* Links nodes[0..n) in a circle holding 1..n; the list's head is the first. */
static void link_nodes(fake_linked *l, fake_lnode *nodes, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        nodes[i].mt = LNODE_CLASS;
        nodes[i].list = (uint64_t)(uintptr_t)l;
        nodes[i].next = (uint64_t)(uintptr_t)&nodes[(i + 1) % n];
        nodes[i].prev = (uint64_t)(uintptr_t)&nodes[(i + n - 1) % n];
        nodes[i].item = (int32_t)i + 1;
    }
    l->mt = LINKED_CLASS;
    l->head = n ? (uint64_t)(uintptr_t)&nodes[0] : 0;
    l->count = (int32_t)n;
}

/* 2.7: a LinkedList<T> as a list from its head, its walk bounded by the
 * array-items limit (at the count and one short of it), ending at the head,
 * a node of another class or fewer nodes than the count: the nodes before. */
/* A tree node as both walks read it: {mt, left, right, item, count}. */
typedef struct fake_tnode {
    uint64_t mt;
    uint64_t left, right;
    int32_t item, count;
} fake_tnode;

typedef struct fake_tree {
    uint64_t mt;
    uint64_t root;
    int32_t count, pad;
} fake_tree;

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* 2.8: trees in order, bounded by the items kept, the tree depth
 * (CT_MAX_TREE_DEPTH levels followed, one more not) and the nodes' class;
 * the immutable trees' count in their root and their empty node. */
static void test_trees(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 5, 8, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    /*      20
     *    10  30   */
    fake_tnode n10 = { TNODE_CLASS, 0, 0, 10, 1 }, n30 = { TNODE_CLASS, 0, 0, 30, 1 };
    fake_tnode n20 = { TNODE_CLASS, addr_of(&n10), addr_of(&n30), 20, 3 };
    fake_tree set = { TREE_CLASS, addr_of(&n20), 3, 0 };
    uint64_t ref = addr_of(&set);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "SortedSet<int>(3) {10, 20, 30}");
    lim.array_items = 2;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "SortedSet<int>(3) {10, 20, ...}");
    lim.array_items = 8;
    /* A node of another class: the elements before it. */
    n30.mt = NODE_CLASS;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "SortedSet<int>(3) {10, 20, ...}");
    n30.mt = TNODE_CLASS;
    /* A left chain of CT_MAX_TREE_DEPTH nodes is walked; one more is not. */
    static fake_tnode chain[CT_MAX_TREE_DEPTH + 1];
    for (uint32_t depth = CT_MAX_TREE_DEPTH; depth <= CT_MAX_TREE_DEPTH + 1; depth++) {
        for (uint32_t i = 0; i < depth; i++) {
            chain[i].mt = TNODE_CLASS;
            chain[i].left = i + 1 < depth ? addr_of(&chain[i + 1]) : 0;
            chain[i].right = 0;
            chain[i].item = (int32_t)(depth - i);
        }
        set.root = addr_of(&chain[0]);
        set.count = (int32_t)depth;
        lim.array_items = 2;
        content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
        char want[64];
        snprintf(want, sizeof want, depth == CT_MAX_TREE_DEPTH ? "SortedSet<int>(%u) {1, 2, ...}"
                                                                : "SortedSet<int>(%u) {...}",
                 depth);
        assert_string_equal(t, want);
    }
    lim.array_items = 8;
    /* ImmutableList: the count is the root's; a node whose left is null is
     * the empty node, not an element. */
    fake_tnode empty = { TNODE_CLASS, 0, 0, 0, 0 };
    fake_tnode i7 = { TNODE_CLASS, addr_of(&empty), addr_of(&empty), 7, 1 };
    fake_tnode i9 = { TNODE_CLASS, addr_of(&empty), addr_of(&empty), 9, 1 };
    fake_tnode i8 = { TNODE_CLASS, addr_of(&i7), addr_of(&i9), 8, 3 };
    fake_tree list = { ITREE_CLASS, addr_of(&i8), 0, 0 };
    ref = addr_of(&list);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "ImmutableList<int>(3) {7, 8, 9}");
    list.root = addr_of(&empty);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "ImmutableList<int>(0) {}");
}

typedef struct fake_cnode {
    uint64_t mt;
    int32_t key, value;
    uint64_t next;
} fake_cnode;

typedef struct fake_tables {
    uint64_t mt;
    uint64_t buckets, counts;
} fake_tables;

/* An array as CoreCLR lays it out: method table, length, then the items. */
static void *fake_array(uint32_t length, size_t item)
{
    uint8_t *a = calloc(1, 16 + (size_t)length * item);
    assert_non_null(a);
    memcpy(a + 8, &length, 4);
    return a;
}

/* 2.8: a ConcurrentDictionary by bucket, each bucket's chain in order; its
 * count the counts per lock added up (CT_MAX_BUCKET_LOCKS of them, one
 * more: none); at most CT_MAX_BUCKETS_SCANNED buckets looked through. */
static void test_concurrent_dictionary(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 5, 8, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    fake_cnode b = { CNODE_CLASS, 2, 20, 0 }, a = { CNODE_CLASS, 1, 10, 0 };
    fake_cnode c = { CNODE_CLASS, 3, 30, 0 };
    a.next = addr_of(&c);
    uint8_t *buckets = fake_array(5, 8), *counts = fake_array(2, 4);
    uint64_t at1 = addr_of(&a), at3 = addr_of(&b);
    memcpy(buckets + 16 + 8, &at1, 8);
    memcpy(buckets + 16 + 24, &at3, 8);
    int32_t per[2] = { 1, 2 };
    memcpy(counts + 16, per, 8);
    fake_tables tables = { 0, addr_of(buckets), addr_of(counts) };
    struct { uint64_t mt, tables; } dict = { CDICT_CLASS, addr_of(&tables) };
    uint64_t ref = addr_of(&dict);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "ConcurrentDictionary<int, int>(3) {[1]=10, [3]=30, [2]=20}");
    lim.array_items = 1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "ConcurrentDictionary<int, int>(3) {[1]=10, ...}");
    lim.array_items = 8;
    /* A node of another class ends the walk. */
    c.mt = NODE_CLASS;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "ConcurrentDictionary<int, int>(3) {[1]=10, ...}");
    c.mt = CNODE_CLASS;
    free(buckets);
    free(counts);
    /* The locks' counts: CT_MAX_BUCKET_LOCKS of 1 each, then one more. */
    for (uint32_t locks = CT_MAX_BUCKET_LOCKS; locks <= CT_MAX_BUCKET_LOCKS + 1; locks++) {
        counts = fake_array(locks, 4);
        buckets = fake_array(1, 8);
        int32_t *ones = (int32_t *)(void *)(counts + 16);
        for (uint32_t i = 0; i < locks; i++)
            ones[i] = 1;
        tables.buckets = addr_of(buckets);
        tables.counts = addr_of(counts);
        content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
        char want[64];
        if (locks == CT_MAX_BUCKET_LOCKS)
            snprintf(want, sizeof want, "ConcurrentDictionary<int, int>(%u) {...}", locks);
        else
            snprintf(want, sizeof want, "ConcurrentDictionary<int, int>(0) {}");
        assert_string_equal(t, want);
        free(buckets);
        free(counts);
    }
    /* The one node in the last bucket looked through, then one past it. */
    b.next = 0;
    counts = fake_array(1, 4);
    memcpy(counts + 16, &(int32_t){ 1 }, 4);
    tables.counts = addr_of(counts);
    for (uint32_t last = CT_MAX_BUCKETS_SCANNED - 1; last <= CT_MAX_BUCKETS_SCANNED; last++) {
        buckets = fake_array(last + 1, 8);
        memcpy(buckets + 16 + 8 * (size_t)last, &at3, 8);
        tables.buckets = addr_of(buckets);
        content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
        assert_string_equal(t, last < CT_MAX_BUCKETS_SCANNED
                                   ? "ConcurrentDictionary<int, int>(1) {[2]=20}"
                                   : "ConcurrentDictionary<int, int>(1) {...}");
        free(buckets);
    }
    free(counts);
}

/* 2.8: an exception with its inner exception (left out when null), an
 * aggregate with .NET's Message built from its inner exceptions' (its own
 * "Exception of type ..." when null), "..." when one is not known. */
static void test_exception_form(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 16, 8, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    fake_string m1 = { STRING_CLASS, 4, { 'o', 'u', 't', 'r' } };
    fake_string m2 = { STRING_CLASS, 5, { 'i', 'n', 'n', 'e', 'r' } };
    fake_string ma = { STRING_CLASS, 5, { 'b', 'a', 't', 'c', 'h' } };
    struct { uint64_t mt, message, inner; } inner = { EXC_CLASS, addr_of(&m2), 0 };
    struct { uint64_t mt, message, inner; } outer = { EXC_CLASS, addr_of(&m1), addr_of(&inner) };
    uint64_t ref = addr_of(&outer);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "Demo.Failure{Message=\"outr\", InnerException=Demo.Failure{Message=\"inner\"}}");
    uint8_t *list = fake_array(2, 8);
    uint64_t refs[2] = { addr_of(&outer), addr_of(&inner) };
    memcpy(list + 16, refs, 16);
    struct { uint64_t mt, message, inner, list; } agg = { AGG_CLASS, addr_of(&ma), addr_of(&outer),
                                                          addr_of(list) };
    ref = addr_of(&agg);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    static const char full[] = "Demo.Aggregate{Message=\"batch (outr) (inner)\", InnerExceptions="
                               "object[2] {Demo.Failure{Message=\"outr\", InnerException="
                               "Demo.Failure@0x";
    assert_true(strncmp(t, full, sizeof full - 1) == 0);
    assert_non_null(strstr(t, "}, Demo.Failure{Message=\"inner\"}}}"));
    /* Its own message null: .NET's default text. */
    agg.message = 0;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    static const char dflt[] = "Demo.Aggregate{Message=\"Exception of type 'Demo.Aggregate' was "
                               "thrown. (outr) (inner)\", ";
    assert_true(strncmp(t, dflt, sizeof dflt - 1) == 0);
    /* Inner exceptions past the object depth: not known. */
    agg.message = addr_of(&ma);
    lim.object_depth = 1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    static const char cut[] = "Demo.Aggregate{Message=\"batch\"..., InnerExceptions=object[2] "
                              "{Demo.Failure@0x";
    assert_true(strncmp(t, cut, sizeof cut - 1) == 0);
    free(list);
    /* Aggregates one in another: CT_EXC_MESSAGE_LEVELS of them built whole,
     * one more not known. */
    lim.object_depth = CT_MAX_OBJECT_DEPTH;
    fake_string ms = { STRING_CLASS, 1, { 'a' } }, mp = { STRING_CLASS, 1, { 'p' } };
    struct { uint64_t mt, message, inner, list; } aggs[CT_EXC_MESSAGE_LEVELS + 1];
    struct { uint64_t mt, message, inner; } plain = { EXC_CLASS, addr_of(&mp), 0 };
    uint8_t *lists[CT_EXC_MESSAGE_LEVELS + 1];
    for (uint32_t n = CT_EXC_MESSAGE_LEVELS; n <= CT_EXC_MESSAGE_LEVELS + 1; n++) {
        for (uint32_t i = 0; i < n; i++) {
            lists[i] = fake_array(1, 8);
            uint64_t in = i + 1 < n ? addr_of(&aggs[i + 1]) : addr_of(&plain);
            memcpy(lists[i] + 16, &in, 8);
            aggs[i].mt = AGG_CLASS;
            aggs[i].message = addr_of(&ms);
            aggs[i].inner = in;
            aggs[i].list = addr_of(lists[i]);
        }
        ref = addr_of(&aggs[0]);
        content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
        const char *want = n == CT_EXC_MESSAGE_LEVELS
                               ? "Demo.Aggregate{Message=\"a (a (a (a (p))))\", "
                               : "Demo.Aggregate{Message=\"a (a (a (a (a\"..., ";
        assert_true(strncmp(t, want, strlen(want)) == 0);
        for (uint32_t i = 0; i < n; i++)
            free(lists[i]);
    }
}

static void test_linked_list(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 5, 3, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    fake_lnode nodes[4];
    fake_linked l;
    link_nodes(&l, nodes, 3);
    uint64_t ref = (uint64_t)(uintptr_t)&l;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "LinkedList<int>(3) {1, 2, 3}");
    lim.array_items = 2;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "LinkedList<int>(3) {1, 2, ...}");
    lim.array_items = 8;
    link_nodes(&l, nodes, 0);
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "LinkedList<int>(0) {}");
    /* A count past the nodes: the walk stops back at the head. */
    link_nodes(&l, nodes, 3);
    l.count = 5;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "LinkedList<int>(5) {1, 2, 3, ...}");
    /* A node of another class, a null next: the nodes before it. */
    nodes[2].mt = NODE_CLASS;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "LinkedList<int>(5) {1, 2, ...}");
    nodes[2].mt = LNODE_CLASS;
    nodes[0].next = 0;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "LinkedList<int>(5) {1, ...}");
    /* A negative count: none. */
    link_nodes(&l, nodes, 3);
    l.count = -1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "LinkedList<int>(0) {}");
    /* Malformed: more elements kept than the count. */
    uint8_t raw[8 + 8 + 4 + 4 + 4] = { 0 };
    uint64_t addr = 0x1000, cls = LINKED_CLASS | CT_CLASS_CONTENT;
    int32_t count = 0;
    uint32_t n = 1;
    memcpy(raw, &addr, 8);
    memcpy(raw + 8, &cls, 8);
    memcpy(raw + 16, &count, 4);
    memcpy(raw + 20, &n, 4);
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&p_obj, raw, sizeof raw, &content_classes, &tx), 0);
    assert_string_equal(t, "<damaged>");
}

typedef struct fake_bits {
    uint64_t mt;
    uint64_t array;
    int32_t length, version;
} fake_bits;

/* 2.7: a BitArray as its bools, little-endian in bytes or ints, cut at
 * the array-items limit (at the length and one short of it); a length its
 * array cannot hold (one bit past it): none. */
static void test_bit_array(void **state)
{
    (void)state;
    char t[512];
    ct_limits lim = { 5, 10, CT_DEFAULT_OBJECT_DEPTH, CT_DEFAULT_VALUE_BYTES };
    struct { uint64_t mt; uint32_t len, pad; uint8_t b[8]; } bytes = { 0, 2, 0, { 0x09, 0x02 } };
    fake_bits bits = { BITS_CLASS, (uint64_t)(uintptr_t)&bytes, 10, 0 };
    uint64_t ref = (uint64_t)(uintptr_t)&bits;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(10) {true, false, false, true, false, false, false, false, "
                           "false, true}");
    lim.array_items = 9;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(10) {true, false, false, true, false, false, false, false, "
                           "false, ...}");
    bits.length = 16; /* all the array holds */
    lim.array_items = 1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(16) {true, ...}");
    bits.length = 17;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(0) {}");
    bits.length = -1;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(0) {}");
    bits.array = 0;
    bits.length = 3;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(0) {}");
    /* An int[] of one element: 32 bits, bit 9 in its second byte. */
    struct { uint64_t mt; uint32_t len, pad; uint32_t w[1]; } ints = { 0, 1, 0, { 0x201 } };
    fake_bits bits4 = { BITS4_CLASS, (uint64_t)(uintptr_t)&ints, 32, 0 };
    ref = (uint64_t)(uintptr_t)&bits4;
    lim.array_items = 10;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(32) {true, false, false, false, false, false, false, false, "
                           "false, true, ...}");
    bits4.length = 33;
    content_roundtrip(&p_obj, &ref, &lim, t, sizeof t);
    assert_string_equal(t, "BitArray(0) {}");
    /* Malformed: more bits kept than the length. */
    uint8_t raw[8 + 8 + 4 + 4 + 2] = { 0 };
    uint64_t addr = 0x1000, cls = BITS_CLASS | CT_CLASS_CONTENT;
    int32_t count = 1;
    uint32_t n = 2;
    memcpy(raw, &addr, 8);
    memcpy(raw + 8, &cls, 8);
    memcpy(raw + 16, &count, 4);
    memcpy(raw + 20, &n, 4);
    raw[24] = 1;
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&p_obj, raw, sizeof raw, &content_classes, &tx), 0);
    assert_string_equal(t, "<damaged>");
}

/* IPv6 text as .NET's IPAddress.ToString writes it. */
static void test_ipv6_text(void **state)
{
    (void)state;
    static const struct {
        uint16_t w[8];
        uint32_t scope;
        const char *text;
    } cases[] = {
        { { 0, 0, 0, 0, 0, 0, 0, 0 }, 0, "::" },
        { { 0, 0, 0, 0, 0, 0, 0, 1 }, 0, "::1" },
        { { 1, 0, 0, 0, 0, 0, 0, 0 }, 0, "1::" },
        { { 1, 0, 2, 0, 0, 0, 0, 0 }, 0, "1:0:2::" },
        { { 1, 0, 0, 2, 0, 0, 3, 4 }, 0, "1::2:0:0:3:4" },     /* the first of two runs */
        { { 1, 0, 2, 3, 4, 5, 6, 7 }, 0, "1:0:2:3:4:5:6:7" }, /* one zero stays */
        { { 0xfe80, 0, 0, 0, 0xabcd, 0, 0, 1 }, 12, "fe80::abcd:0:0:1%12" },
        { { 0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304 }, 0, "::ffff:1.2.3.4" },
        { { 0, 0, 0, 0, 0, 0, 0x0102, 0x0304 }, 0, "::1.2.3.4" },
        { { 0, 0, 0, 0, 0xffff, 0, 0x0102, 0x0304 }, 0, "::ffff:0:1.2.3.4" },
        { { 0xfe80, 0, 0, 0, 0, 0x5efe, 0x0102, 0x0304 }, 0, "fe80::5efe:1.2.3.4" },
        { { 0, 0, 0, 0, 0, 0xffff, 0, 0 }, 0, "::ffff:0:0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char t[64];
        ct_text tx;
        ct_text_init(&tx, t, sizeof t);
        ct_wellknown_ipv6(cases[i].w, cases[i].scope, &tx);
        assert_string_equal(t, cases[i].text);
    }
}

static void test_content_damage(void **state)
{
    (void)state;
    /* An object announcing content the reader has no plan for; a repeated
     * object with a bad flag; an unknown tag. */
    const uint64_t tags[] = { (NODE_CLASS + 0x10) | CT_CLASS_CONTENT, NODE_CLASS | CT_CLASS_SEEN,
                              NODE_CLASS | 5 };
    for (size_t i = 0; i < 3; i++) {
        uint8_t raw[32] = { 0 };
        uint64_t addr = 0x1000;
        memcpy(raw, &addr, 8);
        memcpy(raw + 8, &tags[i], 8);
        raw[16] = 2;
        char t[64];
        ct_text tx;
        ct_text_init(&tx, t, sizeof t);
        assert_int_equal(ct_format_value(&p_obj, raw, sizeof raw, &content_classes, &tx), 0);
        assert_string_equal(t, "<damaged>");
    }
}

static void test_damaged_and_small_buffers(void **state)
{
    (void)state;
    uint8_t raw[64];
    fake_string s = { 0, 3, { 'r', 'u', 'n' } };
    uint64_t ref = (uint64_t)(uintptr_t)&s;
    size_t n = ct_capture(&p_str, &ref, &layout, &limits, NULL, NULL, raw, sizeof raw);
    assert_int_equal(n, 8 + 4 + 4 + 6);
    /* Too small an output for the capture: 0, nothing claimed. */
    assert_int_equal(ct_capture(&p_str, &ref, &layout, &limits, NULL, NULL, raw, 10), 0);
    /* Every truncation of the raw record is reported as damaged, never read past. */
    char t[128];
    for (size_t cut = 0; cut < n; cut++) {
        ct_text tx;
        ct_text_init(&tx, t, sizeof t);
        assert_int_equal(ct_format_value(&p_str, raw, cut, NULL, &tx), 0);
        assert_string_equal(t, "<damaged>");
    }
    /* Text that does not fit is cut, never overflowed. */
    char small[4];
    ct_text tx;
    ct_text_init(&tx, small, sizeof small);
    assert_int_equal(ct_format_value(&p_str, raw, n, NULL, &tx), n);
    assert_string_equal(small, "\"ru");
    assert_int_equal(tx.len, 5);
}

/* Found by fuzz/fuzz_trace: a plan read from a damaged trace said "int" with
 * a size of 16 bytes; the formatter shifted a 64-bit value by 64 and more.
 * Plans from files are not trusted: a fixed-size kind must carry its size. */
static void test_regression_oversized_plan(void **state)
{
    (void)state;
    static const ct_plan bad_int = { .kind = CT_V_I4, .size = 16, .type_name = "int" };
    static const ct_plan bad_enum = { .kind = CT_V_ENUM, .size = 12, .type_name = "E", .underlying = CT_V_I4 };
    uint8_t raw[16] = { 1 };
    char t[64];
    ct_text tx;
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&bad_int, raw, sizeof raw, NULL, &tx), 0);
    assert_string_equal(t, "<damaged>");
    ct_text_init(&tx, t, sizeof t);
    assert_int_equal(ct_format_value(&bad_enum, raw, sizeof raw, NULL, &tx), 0);
    assert_string_equal(t, "<damaged>");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_primitives),
        cmocka_unit_test(test_string_in_object_slot),
        cmocka_unit_test(test_doubles_like_dotnet),
        cmocka_unit_test(test_floats_like_dotnet),
        cmocka_unit_test(test_shortest_matches_reference),
        cmocka_unit_test(test_decimal),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_objects_and_arrays),
        cmocka_unit_test(test_structs_enums_nullable),
        cmocka_unit_test(test_wellknown),
        cmocka_unit_test(test_field_room),
        cmocka_unit_test(test_boxed_values),
        cmocka_unit_test(test_spans),
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_objects_by_content),
        cmocka_unit_test(test_collections),
        cmocka_unit_test(test_grids_and_segments),
        cmocka_unit_test(test_content_damage),
        cmocka_unit_test(test_dateonly_timeonly),
        cmocka_unit_test(test_index_range),
        cmocka_unit_test(test_inline_arrays),
        cmocka_unit_test(test_string_builder),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_linked_list),
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_concurrent_dictionary),
        cmocka_unit_test(test_exception_form),
        cmocka_unit_test(test_bit_array),
        cmocka_unit_test(test_ipv6_text),
        cmocka_unit_test(test_damaged_and_small_buffers),
        cmocka_unit_test(test_regression_oversized_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
