/* Parse and format arbitrary blobs, checking invariants, not just survival:
 *  - bytes consumed never exceed the input; errors point inside it;
 *  - formatting is deterministic and never writes past the buffer;
 *  - a too-small buffer reports truncation and holds a prefix of the full text.
 * Input: byte 0 picks the kind and mode, the rest is the blob. A resolver
 * answers from the input itself (names, generic parameters, and TypeSpec
 * blobs that are slices of the input), so expansion and its cycle guard are
 * fuzzed too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrsig/clrsig.h"

static const uint8_t *g_data;
static size_t g_size;

static int r_type_name(void *ctx, uint32_t token, char *ns, size_t ns_cap, char *name,
                       size_t name_cap, uint32_t *enclosing, char *scope, size_t scope_cap)
{
    (void)ctx;
    uint32_t rid = token & 0xFFFFFF;
    if (rid % 7 == 0)
        return 1;
    if (rid % 3)
        snprintf(ns, ns_cap, "N%u", rid);
    else
        ns[0] = '\0';
    snprintf(name, name_cap, rid % 2 ? "T%u`%u" : "T%u", rid, rid % 4);
    snprintf(scope, scope_cap, "%s", (token >> 24) == 1 ? "Asm" : "");
    /* Nested chains, some of them cyclic. */
    *enclosing = rid % 5 == 0 ? (0x02000000u | ((rid * 3) % 11 + 1)) : 0;
    return 0;
}

static int r_typespec(void *ctx, uint32_t token, const uint8_t **blob, uint32_t *len)
{
    (void)ctx;
    if (g_size < 2)
        return 1;
    size_t start = (token & 0xFFFFFF) % g_size;
    *blob = g_data + start;
    *len = (uint32_t)(g_size - start);
    return 0;
}

static int r_generic(void *ctx, int is_method, uint32_t index, char *name, size_t cap,
                     const clrsig_type **actual)
{
    (void)ctx;
    static const clrsig_type str = { .kind = CLRSIG_ET_STRING };
    if (index % 3 == 0)
        return 1;
    if (index % 3 == 1) {
        snprintf(name, cap, "%s%u", is_method ? "M" : "T", index);
        return 0;
    }
    *actual = &str;
    return 0;
}

static const clrsig_resolver resolver = { NULL, r_type_name, r_typespec, r_generic, NULL };

static uint8_t arena_mem[1 << 20], scratch_mem[1 << 18];
static char text_a[1 << 16], text_b[1 << 16], small[300];

static void check_format(const clrsig_sig *s, clrsig_style style, const clrsig_resolver *r)
{
    clrsig_arena scratch;
    clrsig_arena_init(&scratch, scratch_mem, sizeof scratch_mem);
    clrsig_format_opts o = { .style = style, .scratch = &scratch };
    size_t need_a = 0, need_b = 0, need_s = 0;
    clrsig_status a = clrsig_format_sig(s, &o, r, text_a, sizeof text_a, &need_a, NULL);
    if (scratch.used != 0)
        abort(); /* expansion must give its scratch back */
    clrsig_status b = clrsig_format_sig(s, &o, r, text_b, sizeof text_b, &need_b, NULL);
    if (a != b || need_a != need_b || strcmp(text_a, text_b) != 0)
        abort(); /* deterministic */
    if (a == CLRSIG_OK && strlen(text_a) != need_a)
        abort();
    size_t cap = need_a % (sizeof small - 1);
    memset(small, 0x5A, sizeof small);
    clrsig_status c = clrsig_format_sig(s, &o, r, small, cap, &need_s, NULL);
    if (small[cap] != 0x5A || need_s != need_a)
        abort(); /* never past the buffer; size known */
    if (need_a >= cap && c != CLRSIG_E_OUTPUT_TRUNCATED && a == CLRSIG_OK)
        abort();
    if (cap && a == CLRSIG_OK && need_a < sizeof text_a) {
        size_t n = strlen(small);
        if (n >= cap || memcmp(small, text_a, n) != 0)
            abort(); /* a prefix of the full text */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    g_data = data + 1;
    g_size = size - 1;
    clrsig_kind kind = (clrsig_kind)(sel % 7);
    clrsig_parse_opts po = { .runtime_internal = (sel >> 3) & 1,
                             .pointer_size = (sel >> 4) & 1 ? 4 : 8,
                             .allow_trailing = (sel >> 5) & 1 };
    clrsig_arena arena;
    clrsig_arena_init(&arena, arena_mem, (sel >> 6) == 3 ? 512 : sizeof arena_mem);
    clrsig_sig s;
    clrsig_error err;
    clrsig_status st = clrsig_parse(g_data, g_size, kind, &po, &arena, &s, &err);
    if (st != err.code)
        abort();
    if (st != CLRSIG_OK) {
        if (err.offset > g_size)
            abort();
        return 0;
    }
    if (s.length > g_size || (!po.allow_trailing && s.length != g_size))
        abort();
    if (arena.used > arena.cap)
        abort();
    check_format(&s, CLRSIG_STYLE_CSHARP, NULL);
    check_format(&s, CLRSIG_STYLE_ILDASM, NULL);
    check_format(&s, CLRSIG_STYLE_CSHARP, &resolver);
    check_format(&s, CLRSIG_STYLE_ILDASM, &resolver);
    return 0;
}
