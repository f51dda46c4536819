/* libclrsig behaviour that data files cannot express: each limit at its value
 * and one past it, arena exhaustion, the resolver (names, nesting, generic
 * parameters, TypeSpec expansion and its cycle guard), parameter names and
 * flags, and the type tree the tracer reads. Expected text follows the rules
 * in docs/libclrsig.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clrsig/clrsig.h"

static uint8_t mem[1 << 22];
static clrsig_arena arena;
static uint8_t blob[1 << 20];

static clrsig_status parse(const uint8_t *b, size_t n, clrsig_kind k, clrsig_sig *s, clrsig_error *e)
{
    clrsig_arena_init(&arena, mem, sizeof mem);
    return clrsig_parse(b, n, k, NULL, &arena, s, e);
}

/* n nested pointers around int32: a type of n + 1 levels. */
static size_t nested_ptrs(unsigned n)
{
    size_t len = 0;
    blob[len++] = 0x06;
    for (unsigned i = 0; i < n; i++)
        blob[len++] = 0x0F;
    blob[len++] = 0x08;
    return len;
}

static void test_depth_limit(void **state)
{
    (void)state;
    clrsig_sig s;
    clrsig_error e;
    size_t n = nested_ptrs(CLRSIG_MAX_DEPTH - 1);
    assert_int_equal(parse(blob, n, CLRSIG_KIND_FIELD, &s, &e), CLRSIG_OK);
    n = nested_ptrs(CLRSIG_MAX_DEPTH);
    assert_int_equal(parse(blob, n, CLRSIG_KIND_FIELD, &s, &e), CLRSIG_E_DEPTH);
    assert_int_equal(e.offset, 1 + CLRSIG_MAX_DEPTH);
    /* 50 000 pointers (the input that overflows unbounded decoders). */
    n = nested_ptrs(50000);
    assert_int_equal(parse(blob, n, CLRSIG_KIND_FIELD, &s, &e), CLRSIG_E_DEPTH);
    /* Modifier chains count as depth too. */
    size_t len = 0;
    blob[len++] = 0x06;
    for (unsigned i = 0; i < CLRSIG_MAX_DEPTH; i++) {
        blob[len++] = 0x20;
        blob[len++] = 0x45;
    }
    blob[len++] = 0x08;
    assert_int_equal(parse(blob, len, CLRSIG_KIND_FIELD, &s, &e), CLRSIG_E_DEPTH);
    assert_int_equal(parse(blob + 3, len - 3, CLRSIG_KIND_TYPESPEC, &s, &e), CLRSIG_OK);
}

/* A static void method with n int32 parameters. */
static size_t many_params(uint32_t n)
{
    uint32_t used;
    size_t len = 0;
    blob[len++] = 0x00;
    clrsig_write_u(n, blob + len, 4, &used);
    len += used;
    blob[len++] = 0x01;
    for (uint32_t i = 0; i < n; i++)
        blob[len++] = 0x08;
    return len;
}

static void test_param_limit(void **state)
{
    (void)state;
    clrsig_sig s;
    clrsig_error e;
    size_t n = many_params(CLRSIG_MAX_PARAMS);
    assert_int_equal(parse(blob, n, CLRSIG_KIND_METHOD, &s, &e), CLRSIG_OK);
    assert_int_equal(s.method.param_count, CLRSIG_MAX_PARAMS);
    n = many_params(CLRSIG_MAX_PARAMS + 1);
    assert_int_equal(parse(blob, n, CLRSIG_KIND_METHOD, &s, &e), CLRSIG_E_COUNT);
    assert_int_equal(e.offset, 1);
    /* A count larger than the bytes left fails before anything is allocated. */
    static const uint8_t huge[] = { 0x00, 0xDF, 0xFF, 0xFF, 0xFF, 0x01 };
    assert_int_equal(parse(huge, sizeof huge, CLRSIG_KIND_METHOD, &s, &e), CLRSIG_E_COUNT);
    assert_int_equal(arena.used, 0);
}

static size_t many_generic_args(uint32_t n)
{
    uint32_t used;
    size_t len = 0;
    blob[len++] = 0x15;
    blob[len++] = 0x12;
    blob[len++] = 0x49;
    clrsig_write_u(n, blob + len, 4, &used);
    len += used;
    for (uint32_t i = 0; i < n; i++)
        blob[len++] = 0x08;
    return len;
}

static void test_generic_arg_limit(void **state)
{
    (void)state;
    clrsig_sig s;
    clrsig_error e;
    size_t n = many_generic_args(CLRSIG_MAX_GENERIC_ARGS);
    assert_int_equal(parse(blob, n, CLRSIG_KIND_TYPESPEC, &s, &e), CLRSIG_OK);
    assert_int_equal(s.field->u.inst.argc, CLRSIG_MAX_GENERIC_ARGS);
    n = many_generic_args(CLRSIG_MAX_GENERIC_ARGS + 1);
    assert_int_equal(parse(blob, n, CLRSIG_KIND_TYPESPEC, &s, &e), CLRSIG_E_COUNT);
    assert_int_equal(e.offset, 3);
}

static size_t many_locals(uint32_t n)
{
    uint32_t used;
    size_t len = 0;
    blob[len++] = 0x07;
    clrsig_write_u(n, blob + len, 4, &used);
    len += used;
    for (uint32_t i = 0; i < n; i++)
        blob[len++] = 0x08;
    return len;
}

static void test_locals_limit(void **state)
{
    (void)state;
    clrsig_sig s;
    clrsig_error e;
    assert_int_equal(parse(blob, many_locals(CLRSIG_MAX_LOCALS), CLRSIG_KIND_LOCALS, &s, &e),
                     CLRSIG_OK);
    assert_int_equal(s.count, CLRSIG_MAX_LOCALS);
    assert_int_equal(parse(blob, many_locals(CLRSIG_MAX_LOCALS + 1), CLRSIG_KIND_LOCALS, &s, &e),
                     CLRSIG_E_COUNT);
}

static void test_rank_limit(void **state)
{
    (void)state;
    clrsig_sig s;
    clrsig_error e;
    /* ARRAY int32 rank=32 sizes=32 x 1 lobounds=32 x 0 */
    size_t len = 0;
    blob[len++] = 0x14;
    blob[len++] = 0x08;
    blob[len++] = CLRSIG_MAX_RANK;
    blob[len++] = CLRSIG_MAX_RANK;
    for (int i = 0; i < CLRSIG_MAX_RANK; i++)
        blob[len++] = 1;
    blob[len++] = CLRSIG_MAX_RANK;
    for (int i = 0; i < CLRSIG_MAX_RANK; i++)
        blob[len++] = 0;
    assert_int_equal(parse(blob, len, CLRSIG_KIND_TYPESPEC, &s, &e), CLRSIG_OK);
    assert_int_equal(s.field->u.array.rank, CLRSIG_MAX_RANK);
    blob[2] = CLRSIG_MAX_RANK + 1;
    assert_int_equal(parse(blob, len, CLRSIG_KIND_TYPESPEC, &s, &e), CLRSIG_E_RANK);
    assert_int_equal(e.offset, 2);
}

static void test_arena_full(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x00, 0x03, 0x08, 0x0E, 0x1D, 0x0E, 0x15, 0x12, 0x49, 0x01, 0x08 };
    uint8_t small[1024];
    clrsig_sig s;
    clrsig_error e;
    size_t need = 0;
    /* Find the smallest arena that works; every smaller one fails cleanly. */
    for (size_t cap = 0; cap <= sizeof small; cap++) {
        clrsig_arena a;
        clrsig_arena_init(&a, small, cap);
        clrsig_status st = clrsig_parse(b, sizeof b, CLRSIG_KIND_METHOD, NULL, &a, &s, &e);
        if (st == CLRSIG_OK) {
            need = cap;
            break;
        }
        assert_int_equal(st, CLRSIG_E_ARENA_FULL);
        assert_true(a.used <= cap);
    }
    assert_true(need > 0);
    assert_true(need <= sizeof b * 48);
}

static void test_runtime_mode_arguments(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x06, 0x3E };
    clrsig_sig s;
    clrsig_error e;
    clrsig_arena_init(&arena, mem, sizeof mem);
    clrsig_parse_opts o = { .runtime_internal = 1, .pointer_size = 2 };
    assert_int_equal(clrsig_parse(b, 2, CLRSIG_KIND_FIELD, &o, &arena, &s, &e), CLRSIG_E_ARGUMENT);
    o.pointer_size = 8;
    assert_int_equal(clrsig_parse(b, 2, CLRSIG_KIND_FIELD, &o, &arena, &s, &e), CLRSIG_OK);
    assert_int_equal(clrsig_parse(NULL, 2, CLRSIG_KIND_FIELD, &o, &arena, &s, &e), CLRSIG_E_ARGUMENT);
    assert_int_equal(clrsig_parse(b, 2, CLRSIG_KIND_FIELD, &o, NULL, &s, &e), CLRSIG_E_ARGUMENT);
}

static void test_allow_trailing(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x06, 0x08, 0xFF };
    clrsig_sig s;
    clrsig_error e;
    clrsig_arena_init(&arena, mem, sizeof mem);
    clrsig_parse_opts o = { .allow_trailing = 1 };
    assert_int_equal(clrsig_parse(b, 3, CLRSIG_KIND_FIELD, &o, &arena, &s, &e), CLRSIG_OK);
    assert_int_equal(s.length, 2);
}

/* ---- a resolver over a tiny fake metadata scope ---- */

typedef struct fake_type {
    uint32_t token;
    const char *ns, *name, *scope;
    uint32_t enclosing;
} fake_type;

static const fake_type fake_types[] = {
    { 0x02000002, "Demo", "Point", "", 0 },
    { 0x02000003, "Demo", "Outer`1", "", 0 },
    { 0x02000004, "", "Inner", "", 0x02000003 },
    { 0x02000005, "", "Deeper`2", "", 0x02000004 },
    { 0x01000012, "System.Collections.Generic", "List`1", "System.Collections", 0 },
    { 0x01000013, "System.Runtime.InteropServices", "InAttribute", "System.Runtime", 0 },
    { 0x01000014, "System.Runtime.CompilerServices", "IsVolatile", "System.Runtime", 0 },
    /* A cycle of enclosing types: must not loop. */
    { 0x02000010, "", "A", "", 0x02000011 },
    { 0x02000011, "", "B", "", 0x02000010 },
};

/* TypeSpec 1: List<int>; 2: refers to itself via a modifier; 3 -> 4 -> 3. */
static const uint8_t ts1[] = { 0x15, 0x12, 0x49, 0x01, 0x08 };
static const uint8_t ts2[] = { 0x1D, 0x20, 0x0A, 0x08 };       /* int modopt(TS 2)[] */
static const uint8_t ts3[] = { 0x1D, 0x12, 0x12 };             /* TS 4 [] */
static const uint8_t ts4[] = { 0x1D, 0x12, 0x0E };             /* TS 3 [] */

static int fake_type_name(void *ctx, uint32_t token, char *ns, size_t ns_cap, char *name,
                          size_t name_cap, uint32_t *enclosing, char *scope, size_t scope_cap)
{
    (void)ctx;
    for (size_t i = 0; i < sizeof fake_types / sizeof fake_types[0]; i++)
        if (fake_types[i].token == token) {
            snprintf(ns, ns_cap, "%s", fake_types[i].ns);
            snprintf(name, name_cap, "%s", fake_types[i].name);
            snprintf(scope, scope_cap, "%s", (token >> 24) == 1 ? fake_types[i].scope : "");
            *enclosing = fake_types[i].enclosing;
            return 0;
        }
    return 1;
}

/* TypeSpecs 0x10..0x16: List<TypeSpec rid+1, TypeSpec rid+1>, a binary
 * tree; 0x17: int. TypeSpec 0x10 expands into 255 TypeSpecs in all (1 + 2
 * + ... + 128), 8 deep. */
static int tree_typespec(uint32_t rid, const uint8_t **b, uint32_t *len)
{
    static uint8_t specs[8][8];
    uint8_t *t = specs[rid - 0x10];
    if (rid == 0x17) {
        t[0] = 0x08;
        *len = 1;
    } else {
        uint8_t child = (uint8_t)((rid + 1) << 2 | 2); /* TypeDefOrRef: TypeSpec rid + 1 */
        /* GENERICINST CLASS List 2 CLASS <child> CLASS <child> */
        const uint8_t bytes[8] = { 0x15, 0x12, 0x49, 0x02, 0x12, child, 0x12, child };
        memcpy(t, bytes, sizeof bytes);
        *len = sizeof bytes;
    }
    *b = t;
    return 0;
}

static int fake_typespec(void *ctx, uint32_t token, const uint8_t **b, uint32_t *len)
{
    (void)ctx;
    if (token >= 0x1B000010 && token <= 0x1B000017)
        return tree_typespec(token & 0xFF, b, len);
    switch (token) {
    case 0x1B000001: *b = ts1; *len = sizeof ts1; return 0;
    case 0x1B000002: *b = ts2; *len = sizeof ts2; return 0;
    case 0x1B000003: *b = ts3; *len = sizeof ts3; return 0;
    case 0x1B000004: *b = ts4; *len = sizeof ts4; return 0;
    default: return 1;
    }
}

static const clrsig_type string_type = { .kind = CLRSIG_ET_STRING };

static int fake_generic(void *ctx, int is_method, uint32_t index, char *name, size_t cap,
                        const clrsig_type **actual)
{
    (void)ctx;
    if (!is_method && index == 0) {
        snprintf(name, cap, "T");
        return 0;
    }
    if (is_method && index == 0) {
        *actual = &string_type;
        return 0;
    }
    return 1;
}

static const clrsig_resolver resolver = { NULL, fake_type_name, fake_typespec, fake_generic, NULL };

static void expect_text(const uint8_t *b, size_t n, clrsig_kind k, clrsig_style style, int short_names,
                        const char *want, clrsig_status want_st)
{
    clrsig_sig s;
    clrsig_error e;
    assert_int_equal(parse(b, n, k, &s, &e), CLRSIG_OK);
    static uint8_t scratch_mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
    clrsig_arena scratch;
    clrsig_arena_init(&scratch, scratch_mem, sizeof scratch_mem);
    clrsig_format_opts o = { .style = style, .short_names = short_names, .scratch = &scratch };
    char text[1024];
    assert_int_equal(clrsig_format_sig(&s, &o, &resolver, text, sizeof text, NULL, &e), want_st);
    assert_string_equal(text, want);
    assert_int_equal(scratch.used, 0); /* expansion returns its scratch */
}

#define CS CLRSIG_STYLE_CSHARP
#define IL CLRSIG_STYLE_ILDASM

static void test_resolver_names(void **state)
{
    (void)state;
    static const uint8_t point[] = { 0x06, 0x11, 0x08 };
    expect_text(point, 3, CLRSIG_KIND_FIELD, CS, 0, "Demo.Point", CLRSIG_OK);
    expect_text(point, 3, CLRSIG_KIND_FIELD, CS, 1, "Point", CLRSIG_OK);
    expect_text(point, 3, CLRSIG_KIND_FIELD, IL, 0, "valuetype Demo.Point", CLRSIG_OK);
    /* Nested generic types: Outer`1/Inner/Deeper`2 */
    static const uint8_t nested[] = { 0x06, 0x12, 0x14 }; /* TypeDef 5 */
    expect_text(nested, 3, CLRSIG_KIND_FIELD, CS, 0, "Demo.Outer.Inner.Deeper", CLRSIG_OK);
    expect_text(nested, 3, CLRSIG_KIND_FIELD, IL, 0, "class Demo.Outer`1/Inner/Deeper`2", CLRSIG_OK);
    /* A TypeRef with its scope; C# strips the arity. */
    static const uint8_t list[] = { 0x15, 0x12, 0x49, 0x01, 0x08 };
    expect_text(list, 5, CLRSIG_KIND_TYPESPEC, CS, 0, "System.Collections.Generic.List<int>", CLRSIG_OK);
    expect_text(list, 5, CLRSIG_KIND_TYPESPEC, IL, 0,
                "class [System.Collections]System.Collections.Generic.List`1<int32>", CLRSIG_OK);
    /* Unknown token: placeholder, not an error. */
    static const uint8_t unknown[] = { 0x06, 0x12, 0x7D }; /* TypeRef 0x1F */
    expect_text(unknown, 3, CLRSIG_KIND_FIELD, CS, 0, "<0x0100001F>", CLRSIG_OK);
    /* Enclosing-type cycle: bounded, reported as depth. */
    static const uint8_t cyc[] = { 0x06, 0x12, 0x40 }; /* TypeDef 0x10 */
    clrsig_sig s;
    clrsig_error e;
    char text[4096];
    assert_int_equal(parse(cyc, 3, CLRSIG_KIND_FIELD, &s, &e), CLRSIG_OK);
    assert_int_equal(clrsig_format_sig(&s, NULL, &resolver, text, sizeof text, NULL, &e), CLRSIG_E_DEPTH);
}

static void test_resolver_generics_and_in(void **state)
{
    (void)state;
    /* void (!0, !!0, !!1) */
    static const uint8_t m[] = { 0x00, 0x03, 0x01, 0x13, 0x00, 0x1E, 0x00, 0x1E, 0x01 };
    expect_text(m, sizeof m, CLRSIG_KIND_METHOD, CS, 0, "static void (T, string, !!1)", CLRSIG_OK);
    expect_text(m, sizeof m, CLRSIG_KIND_METHOD, IL, 0, "void (!T, string, !!1)", CLRSIG_OK);
    /* in parameter: modreq(InAttribute) int32& ; and a volatile field. */
    static const uint8_t in[] = { 0x00, 0x01, 0x01, 0x1F, 0x4D, 0x10, 0x08 };
    expect_text(in, sizeof in, CLRSIG_KIND_METHOD, CS, 0, "static void (in int)", CLRSIG_OK);
    expect_text(in, sizeof in, CLRSIG_KIND_METHOD, IL, 0,
                "void (int32& modreq([System.Runtime]System.Runtime.InteropServices.InAttribute))",
                CLRSIG_OK);
    static const uint8_t vol[] = { 0x06, 0x1F, 0x51, 0x08 };
    expect_text(vol, sizeof vol, CLRSIG_KIND_FIELD, CS, 0,
                "int modreq(System.Runtime.CompilerServices.IsVolatile)", CLRSIG_OK);
}

static void test_typespec_expansion(void **state)
{
    (void)state;
    static const uint8_t f1[] = { 0x06, 0x12, 0x06 }; /* class TypeSpec 1 */
    expect_text(f1, 3, CLRSIG_KIND_FIELD, CS, 0, "System.Collections.Generic.List<int>", CLRSIG_OK);
    static const uint8_t f2[] = { 0x06, 0x12, 0x0A }; /* TypeSpec 2: self-reference */
    expect_text(f2, 3, CLRSIG_KIND_FIELD, CS, 0, "int modopt(<0x1B000002>)[]", CLRSIG_E_CYCLE);
    static const uint8_t f3[] = { 0x06, 0x12, 0x0E }; /* 3 -> 4 -> 3 */
    expect_text(f3, 3, CLRSIG_KIND_FIELD, CS, 0, "<0x1B000003>[][]", CLRSIG_E_CYCLE);
}

/* CLRSIG_MAX_TYPESPEC_EXPANSIONS: 256 expansions in one call pass, 257 do
 * not (the 257th reads as its token). */
static void test_typespec_expansion_total(void **state)
{
    (void)state;
    static const uint8_t at[] = { 0x00, 0x02, 0x01, 0x12, 0x42, 0x12, 0x5E }; /* 255 + 1 */
    static const uint8_t past[] = { 0x00, 0x03, 0x01, 0x12, 0x42, 0x12, 0x5E, 0x12, 0x5E };
    clrsig_sig s;
    clrsig_error e;
    clrsig_arena scratch;
    static uint8_t scratch_mem[1 << 16];
    static char text[1 << 16];
    clrsig_format_opts o = { .style = CLRSIG_STYLE_CSHARP, .scratch = &scratch };
    clrsig_arena_init(&scratch, scratch_mem, sizeof scratch_mem);
    assert_int_equal(parse(at, sizeof at, CLRSIG_KIND_METHOD, &s, &e), CLRSIG_OK);
    assert_int_equal(clrsig_format_sig(&s, &o, &resolver, text, sizeof text, NULL, &e), CLRSIG_OK);
    assert_true(strstr(text, "<0x1B") == NULL);
    assert_true(strstr(text, "int, int") != NULL);
    assert_true(strstr(text, ", int)") != NULL);
    clrsig_arena_init(&scratch, scratch_mem, sizeof scratch_mem);
    assert_int_equal(parse(past, sizeof past, CLRSIG_KIND_METHOD, &s, &e), CLRSIG_OK);
    assert_int_equal(clrsig_format_sig(&s, &o, &resolver, text, sizeof text, NULL, &e),
                     CLRSIG_E_COUNT);
    size_t n = strlen(text);
    assert_true(n > 13 && strcmp(text + n - 13, "<0x1B000017>)") == 0);
}

static void test_method_names_and_flags(void **state)
{
    (void)state;
    /* instance bool M(int32, int32&, int32&, int32&) with names and flags */
    static const uint8_t b[] = { 0x20, 0x04, 0x02, 0x08, 0x10, 0x08, 0x10, 0x08, 0x10, 0x08 };
    clrsig_sig s;
    clrsig_error e;
    assert_int_equal(parse(b, sizeof b, CLRSIG_KIND_METHOD, &s, &e), CLRSIG_OK);
    const char *pn[] = { "a", "b", "c", "d" };
    const uint16_t pf[] = { 0, CLRSIG_PARAM_OUT, CLRSIG_PARAM_IN, 0 };
    clrsig_method_names names = { "Demo.Calc", "TryGet", NULL, pn, pf };
    char text[256];
    assert_int_equal(clrsig_format_method(&s.method, &names, &(clrsig_format_opts){ .style = CS },
                                          NULL, text, sizeof text, NULL, &e), CLRSIG_OK);
    assert_string_equal(text, "bool Demo.Calc.TryGet(int a, out int b, in int c, ref int d)");
    assert_int_equal(clrsig_format_method(&s.method, &names, &(clrsig_format_opts){ .style = IL },
                                          NULL, text, sizeof text, NULL, &e), CLRSIG_OK);
    assert_string_equal(text,
        "instance bool Demo.Calc::TryGet(int32 a, [out] int32& b, [in] int32& c, int32& d)");
}

/* The tree answers the tracer's questions. */
static void test_tree(void **state)
{
    (void)state;
    /* static Point Scale(Point, float64, string, !!0[]) */
    static const uint8_t b[] = { 0x10, 0x01, 0x04, 0x11, 0x08, 0x11, 0x08, 0x0D, 0x0E, 0x1D, 0x1E, 0x00 };
    clrsig_sig s;
    clrsig_error e;
    assert_int_equal(parse(b, sizeof b, CLRSIG_KIND_METHOD, &s, &e), CLRSIG_OK);
    assert_int_equal(s.method.generic_count, 1);
    assert_int_equal(s.method.param_count, 4);
    assert_int_equal(s.method.ret->kind, CLRSIG_ET_VALUETYPE);
    assert_int_equal(s.method.params[0]->kind, CLRSIG_ET_VALUETYPE);
    assert_int_equal(s.method.params[0]->u.token, 0x02000002);
    assert_int_equal(s.method.params[0]->offset, 5);
    assert_int_equal(s.method.params[1]->kind, CLRSIG_ET_R8);
    assert_int_equal(s.method.params[3]->kind, CLRSIG_ET_SZARRAY);
    assert_int_equal(s.method.params[3]->u.elem->kind, CLRSIG_ET_MVAR);
    assert_int_equal(s.method.sentinel, UINT32_MAX);
}

static void test_strip(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x07, 0x01, 0x20, 0x45, 0x45, 0x10, 0x08 };
    clrsig_sig s;
    clrsig_error e;
    assert_int_equal(parse(b, sizeof b, CLRSIG_KIND_LOCALS, &s, &e), CLRSIG_OK);
    assert_int_equal(clrsig_strip(s.list[0])->kind, CLRSIG_ET_BYREF);
}

static void test_utf8_truncation(void **state)
{
    (void)state;
    /* A resolver name with multi-byte characters is never cut inside one. */
    static const uint8_t b[] = { 0x06, 0x11, 0x08 };
    clrsig_sig s;
    clrsig_error e;
    assert_int_equal(parse(b, 3, CLRSIG_KIND_FIELD, &s, &e), CLRSIG_OK);
    /* "Demo.Point": ASCII; build one with é (C3 A9) via a local resolver. */
    clrsig_resolver r = resolver;
    r.type_name = NULL;
    char text[8];
    size_t need;
    assert_int_equal(clrsig_format_sig(&s, NULL, &r, text, sizeof text, &need, &e),
                     CLRSIG_E_OUTPUT_TRUNCATED);
    assert_int_equal(need, strlen("<0x02000002>"));
    assert_string_equal(text, "<0x0200");
}

static int utf8_name(void *ctx, uint32_t token, char *ns, size_t ns_cap, char *name,
                     size_t name_cap, uint32_t *enclosing, char *scope, size_t scope_cap)
{
    (void)ctx; (void)token; (void)scope_cap;
    snprintf(ns, ns_cap, "%s", "");
    snprintf(name, name_cap, "%s", "ab\xC3\xA9\xE2\x82\xAC"); /* abé€ */
    scope[0] = '\0';
    *enclosing = 0;
    return 0;
}

static void test_utf8_boundary(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x06, 0x11, 0x08 };
    clrsig_sig s;
    clrsig_error e;
    assert_int_equal(parse(b, 3, CLRSIG_KIND_FIELD, &s, &e), CLRSIG_OK);
    clrsig_resolver r = { NULL, utf8_name, NULL, NULL, NULL };
    char text[16];
    /* cap 4: "ab" + first byte of é would fit: must stop at "ab". */
    assert_int_equal(clrsig_format_sig(&s, NULL, &r, text, 4, NULL, &e), CLRSIG_E_OUTPUT_TRUNCATED);
    assert_string_equal(text, "ab");
    assert_int_equal(clrsig_format_sig(&s, NULL, &r, text, 5, NULL, &e), CLRSIG_E_OUTPUT_TRUNCATED);
    assert_string_equal(text, "ab\xC3\xA9");
    assert_int_equal(clrsig_format_sig(&s, NULL, &r, text, 7, NULL, &e), CLRSIG_E_OUTPUT_TRUNCATED);
    assert_string_equal(text, "ab\xC3\xA9");
    assert_int_equal(clrsig_format_sig(&s, NULL, &r, text, 8, NULL, &e), CLRSIG_OK);
}

static void test_strerror(void **state)
{
    (void)state;
    for (int i = 0; i < CLRSIG_STATUS_COUNT; i++)
        assert_true(strlen(clrsig_strerror((clrsig_status)i)) > 0);
    assert_string_equal(clrsig_strerror((clrsig_status)999), "unknown error");
}

/* The version API: the library reports the version of the header it was
 * built with; the string is MAJOR.MINOR.PATCH and the number
 * MAJOR * 10000 + MINOR * 100 + PATCH, usable in #if. */
#if CLRSIG_VERSION_NUMBER != \
    CLRSIG_VERSION_MAJOR * 10000 + CLRSIG_VERSION_MINOR * 100 + CLRSIG_VERSION_PATCH
#error "CLRSIG_VERSION_NUMBER is not MAJOR * 10000 + MINOR * 100 + PATCH in #if"
#endif
static void test_version(void **state)
{
    (void)state;
    assert_int_equal(clrsig_version_number(), CLRSIG_VERSION_NUMBER);
    assert_string_equal(clrsig_version_string(), CLRSIG_VERSION_STRING);
    int vmajor = CLRSIG_VERSION_MAJOR;
    int vminor = CLRSIG_VERSION_MINOR;
    int vpatch = CLRSIG_VERSION_PATCH;
    assert_true(vmajor >= 0 && vminor >= 0 && vminor < 100 && vpatch >= 0 && vpatch < 100);
    assert_int_equal(CLRSIG_VERSION_NUMBER, vmajor * 10000 + vminor * 100 + vpatch);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", vmajor, vminor, vpatch);
    assert_string_equal(CLRSIG_VERSION_STRING, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_param_limit),
        cmocka_unit_test(test_generic_arg_limit),
        cmocka_unit_test(test_locals_limit),
        cmocka_unit_test(test_rank_limit),
        cmocka_unit_test(test_arena_full),
        cmocka_unit_test(test_runtime_mode_arguments),
        cmocka_unit_test(test_allow_trailing),
        cmocka_unit_test(test_resolver_names),
        cmocka_unit_test(test_resolver_generics_and_in),
        cmocka_unit_test(test_typespec_expansion),
        cmocka_unit_test(test_typespec_expansion_total),
        cmocka_unit_test(test_method_names_and_flags),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_strip),
        cmocka_unit_test(test_utf8_truncation),
        cmocka_unit_test(test_utf8_boundary),
        cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
