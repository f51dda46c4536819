/* libclril on method bodies made by hand from ECMA-335 II.25.4 and
 * Partition III: each decodes to the instructions and clauses written,
 * encodes back to the same bytes; probes inserted keep branches and clauses
 * right; every malformed body is an error with its offset; every limit is
 * taken at the limit and one past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clril/clril.h"

#define ARENA (256u << 20)
static uint8_t *g_mem;
static clril_arena g_a;
static uint8_t g_out[1 << 16];

static int setup(void **state)
{
    (void)state;
    g_mem = malloc(ARENA);
    return g_mem ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(g_mem);
    return 0;
}

static clril_status dec(const uint8_t *b, size_t len, clril_body *body, clril_error *e)
{
    clril_arena_init(&g_a, g_mem, ARENA);
    return clril_decode(b, len, &g_a, body, e);
}

/* Decodes b and encodes it back: the same bytes. */
static void same_back(const uint8_t *b, size_t len, clril_body *body)
{
    clril_error e;
    assert_int_equal(dec(b, len, body, &e), CLRIL_OK);
    assert_int_equal(body->size, len);
    clril_body copy = *body;
    size_t n;
    assert_int_equal(clril_encode(&copy, g_out, sizeof g_out, &n, &e), CLRIL_OK);
    assert_int_equal(n, len);
    assert_memory_equal(g_out, b, len);
}

static void expect_error(const uint8_t *b, size_t len, clril_status st, uint32_t offset)
{
    clril_body body;
    clril_error e = { 0, 0 };
    assert_int_equal(dec(b, len, &body, &e), st);
    assert_int_equal(e.code, st);
    assert_int_equal(e.offset, offset);
}

/* ldarg.0 ldarg.1 add ret: a tiny header (code size 4 << 2 | 2). */
static void test_tiny(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x12, 0x02, 0x03, 0x58, 0x2A };
    clril_body body;
    same_back(b, sizeof b, &body);
    assert_false(body.fat);
    assert_int_equal(body.max_stack, 8);
    assert_int_equal(body.code_size, 4);
    assert_int_equal(body.ninsns, 4);
    assert_int_equal(body.insns[2].op, 0x58);
    assert_int_equal(body.insns[3].op, CLRIL_RET);
    assert_int_equal(body.insns[3].offset, 3);
    assert_string_equal(clril_name(body.insns[2].op), "add");
}

/*   0: call 0x0A000001   5: leave.s 10   7: pop   8: leave.s 10   10: ret
 * try [0, 7) catch 0x01000005 handler [7, 10): a fat header (flags 0x1B:
 * fat, more sections, init locals), a zero byte, a small EH section. */
static const uint8_t k_small_eh[] = {
    0x1B, 0x30, 0x08, 0x00, 0x0B, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x28, 0x01, 0x00, 0x00, 0x0A, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A,
    0x00,
    0x01, 0x10, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x07, 0x07, 0x00, 0x03, 0x05, 0x00, 0x00, 0x01,
};

static void test_fat_small_eh(void **state)
{
    (void)state;
    clril_body body;
    same_back(k_small_eh, sizeof k_small_eh, &body);
    assert_true(body.fat);
    assert_int_equal(body.flags, 0x01B);
    assert_int_equal(body.ninsns, 5);
    assert_int_equal(body.insns[0].value, 0x0A000001);
    assert_int_equal(body.insns[1].op, CLRIL_LEAVE_S);
    assert_int_equal(body.insns[1].target, 4);
    assert_int_equal(body.insns[3].target, 4);
    assert_int_equal(body.neh, 1);
    assert_int_equal(body.nsections, 1);
    assert_false(body.sections[0].fat);
    const clril_clause *c = &body.eh[0];
    assert_int_equal(c->flags, CLRIL_CLAUSE_CATCH);
    assert_int_equal(c->try_start, 0);
    assert_int_equal(c->try_end, 2);
    assert_int_equal(c->handler_start, 2);
    assert_int_equal(c->handler_end, 4);
    assert_int_equal(c->class_token, 0x01000005);
}

/* The same clause in a fat section (kind 0x41, size 28), as a finally. */
static void test_fat_eh(void **state)
{
    (void)state;
    uint8_t b[24 + 28];
    memcpy(b, k_small_eh, 24);
    static const uint8_t sect[] = {
        0x41, 0x1C, 0x00, 0x00,
        0x02, 0, 0, 0,  0x00, 0, 0, 0,  0x07, 0, 0, 0,  0x07, 0, 0, 0,  0x03, 0, 0, 0,
        0x00, 0, 0, 0,
    };
    memcpy(b + 24, sect, sizeof sect);
    clril_body body;
    same_back(b, sizeof b, &body);
    assert_true(body.sections[0].fat);
    assert_int_equal(body.eh[0].flags, CLRIL_CLAUSE_FINALLY);
    assert_int_equal(body.eh[0].handler_end, 4);
}

/* ldarg.0; switch (15, 16); ret; ret; ret — a tiny header of 17 bytes. */
static const uint8_t k_switch[] = { 0x46, 0x02, 0x45, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
                                    0x00, 0x02, 0x00, 0x00, 0x00, 0x2A, 0x2A, 0x2A };

static void test_switch(void **state)
{
    (void)state;
    clril_body body;
    same_back(k_switch, sizeof k_switch, &body);
    assert_int_equal(body.ninsns, 5);
    assert_int_equal(body.insns[1].op, CLRIL_SWITCH);
    assert_int_equal(body.insns[1].ntargets, 2);
    assert_int_equal(body.insns[1].targets[0], 3);
    assert_int_equal(body.insns[1].targets[1], 4);
}

/* Two-byte opcodes, prefixes and every operand size:
 *   ldarga 0x0100; volatile. ldind.i4; pop; unaligned. 1 ldarg.0; no. 3 pop;
 *   constrained. 0x1B000002; ldc.i8 -2; pop; ldc.r4 (bits 0x7FC00001);
 *   pop; ldc.r8 (bits 0xFFF8000000000001); pop; ldc.i4.s -1; pop; ldarg.s 2;
 *   pop; tail. call 0x06000003; ret */
static const uint8_t k_mixed[] = {
    0x03, 0x30, 0x04, 0x00, 0x3E, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xFE, 0x0A, 0x00, 0x01,  0xFE, 0x13,  0x4A,  0x26,  0xFE, 0x12, 0x01,  0x02,
    0xFE, 0x19, 0x03,  0x26,  0xFE, 0x16, 0x02, 0x00, 0x00, 0x1B,
    0x21, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  0x26,
    0x22, 0x01, 0x00, 0xC0, 0x7F,  0x26,
    0x23, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0xFF,  0x26,
    0x1F, 0xFF,  0x26,  0x0E, 0x02,  0x26,
    0xFE, 0x14,  0x28, 0x03, 0x00, 0x00, 0x06,  0x2A,
};

static void test_mixed(void **state)
{
    (void)state;
    clril_body body;
    same_back(k_mixed, sizeof k_mixed, &body);
    assert_int_equal(body.code_size, sizeof k_mixed - 12);
    assert_int_equal(body.insns[0].op, CLRIL_LDARGA);
    assert_int_equal(body.insns[0].value, 0x100);
    assert_int_equal(body.insns[1].op, 0xFE13);
    assert_int_equal(body.insns[4].op, 0xFE12);
    assert_int_equal(body.insns[4].value, 1);
    assert_int_equal(body.insns[6].op, 0xFE19);
    assert_int_equal(body.insns[8].op, 0xFE16);
    assert_int_equal(body.insns[8].value, 0x1B000002);
    assert_int_equal(body.insns[9].value, -2);
    assert_int_equal(body.insns[11].value, 0x7FC00001);
    assert_int_equal((uint64_t)body.insns[13].value, 0xFFF8000000000001ull);
    assert_int_equal(body.insns[15].value, -1);
    assert_int_equal(body.insns[17].value, 2);
    assert_int_equal(body.insns[19].op, CLRIL_TAIL);
    assert_string_equal(clril_name(CLRIL_TAIL), "tail.");
    assert_int_equal(body.ninsns, 22);
}

static void test_malformed(void **state)
{
    (void)state;
    expect_error(NULL, 0, CLRIL_E_TRUNCATED, 0);
    static const uint8_t h0[] = { 0x00 }, h1[] = { 0x01 };
    expect_error(h0, 1, CLRIL_E_HEADER, 0);
    expect_error(h1, 1, CLRIL_E_HEADER, 0);
    uint8_t fat[12];
    memcpy(fat, k_small_eh, 12);
    fat[1] = 0x20; /* a fat header of 2 dwords */
    expect_error(fat, 12, CLRIL_E_HEADER, 0);
    expect_error(k_small_eh, 11, CLRIL_E_TRUNCATED, 0);
    /* code runs past the bytes */
    static const uint8_t cut[] = { 0x12, 0x02, 0x03, 0x58 };
    expect_error(cut, sizeof cut, CLRIL_E_TRUNCATED, 4);
    /* 0x24 is no opcode, nor FE 08 (the runtime's internal ldctarg), FE 1F */
    static const uint8_t bad1[] = { 0x0A, 0x00, 0x24 };
    expect_error(bad1, sizeof bad1, CLRIL_E_OPCODE, 2);
    static const uint8_t bad2[] = { 0x0A, 0xFE, 0x08 };
    expect_error(bad2, sizeof bad2, CLRIL_E_OPCODE, 1);
    static const uint8_t bad3[] = { 0x0A, 0xFE, 0x1F };
    expect_error(bad3, sizeof bad3, CLRIL_E_OPCODE, 1);
    /* FE as the last code byte; ldc.i4 with 2 of its 4 bytes */
    static const uint8_t t1[] = { 0x0A, 0x00, 0xFE };
    expect_error(t1, sizeof t1, CLRIL_E_TRUNCATED, 2);
    static const uint8_t t2[] = { 0x12, 0x00, 0x20, 0x01, 0x02 };
    expect_error(t2, sizeof t2, CLRIL_E_TRUNCATED, 2);
    /* br.s into the middle of ldc.i4, before the start, past the end */
    static const uint8_t br1[] = { 0x22, 0x2B, 0x01, 0x20, 0, 0, 0, 0, 0x2A };
    expect_error(br1, sizeof br1, CLRIL_E_BRANCH, 1);
    static const uint8_t br2[] = { 0x0E, 0x2B, 0xF0, 0x2A };
    expect_error(br2, sizeof br2, CLRIL_E_BRANCH, 1);
    static const uint8_t br3[] = { 0x0E, 0x2B, 0x02, 0x2A };
    expect_error(br3, sizeof br3, CLRIL_E_BRANCH, 1);
    /* a switch target inside an instruction */
    uint8_t sw[sizeof k_switch];
    memcpy(sw, k_switch, sizeof sw);
    sw[11] = 0xFD; /* second target: 14 - 3 = 11, inside the switch */
    expect_error(sw, sizeof sw, CLRIL_E_BRANCH, 2);
    /* sections: not an EH table; a size not 4 + 12n; cut; a clause that ends
     * inside an instruction; an unknown clause kind */
    uint8_t s[sizeof k_small_eh];
    memcpy(s, k_small_eh, sizeof s);
    s[24] = 0x02;
    expect_error(s, sizeof s, CLRIL_E_SECTION, 24);
    memcpy(s, k_small_eh, sizeof s);
    s[25] = 0x0F;
    expect_error(s, sizeof s, CLRIL_E_SECTION, 24);
    expect_error(k_small_eh, sizeof k_small_eh - 1, CLRIL_E_TRUNCATED, 24);
    memcpy(s, k_small_eh, sizeof s);
    s[32] = 0x06; /* try length 6: ends inside leave.s */
    expect_error(s, sizeof s, CLRIL_E_CLAUSE, 28);
    memcpy(s, k_small_eh, sizeof s);
    s[28] = 0x03;
    expect_error(s, sizeof s, CLRIL_E_CLAUSE, 28);
    /* fat header: MoreSects with no section after the code (the bytes end at
     * the code's end, or at the aligned start of the section) */
    expect_error(k_small_eh, 24, CLRIL_E_TRUNCATED, 24);
    expect_error(k_small_eh, 23, CLRIL_E_TRUNCATED, 23);
}

/* CLRIL_MAX_CODE_SIZE bytes of code (1864135 ldc.i8 and a ret) decode; a
 * header announcing one byte more is refused at the code size (offset 4). */
static void test_code_size_limit(void **state)
{
    (void)state;
    size_t len = 12 + CLRIL_MAX_CODE_SIZE;
    uint8_t *b = calloc(1, len);
    assert_non_null(b);
    b[0] = 0x03, b[1] = 0x30, b[2] = 8;
    uint32_t cs = CLRIL_MAX_CODE_SIZE;
    memcpy(b + 4, &cs, 4);
    assert_int_equal((CLRIL_MAX_CODE_SIZE - 1) % 9, 0);
    for (uint32_t i = 0; i < (CLRIL_MAX_CODE_SIZE - 1) / 9; i++)
        b[12 + 9 * i] = 0x21;
    b[len - 1] = 0x2A;
    clril_body body;
    clril_error e;
    assert_int_equal(dec(b, len, &body, &e), CLRIL_OK);
    assert_int_equal(body.ninsns, (CLRIL_MAX_CODE_SIZE - 1) / 9 + 1);
    cs++;
    memcpy(b + 4, &cs, 4);
    expect_error(b, len, CLRIL_E_LIMIT, 4);
    free(b);
}

/* A switch of CLRIL_MAX_SWITCH_TARGETS targets (each to the ret after it)
 * decodes; one more is refused at the switch. */
static void test_switch_limit(void **state)
{
    (void)state;
    uint32_t n = CLRIL_MAX_SWITCH_TARGETS;
    size_t code = 1 + 4 + 4 * (size_t)(n + 1) + 1, len = 12 + code;
    uint8_t *b = calloc(1, len);
    assert_non_null(b);
    b[0] = 0x03, b[1] = 0x30, b[2] = 8;
    uint32_t cs = (uint32_t)code - 4; /* without the spare target */
    memcpy(b + 4, &cs, 4);
    b[12] = 0x45;
    memcpy(b + 13, &n, 4);
    b[12 + cs - 1] = 0x2A;
    clril_body body;
    clril_error e;
    assert_int_equal(dec(b, 12 + cs, &body, &e), CLRIL_OK);
    assert_int_equal(body.insns[0].ntargets, n);
    assert_int_equal(body.insns[0].targets[n - 1], 1);
    n++;
    memcpy(b + 13, &n, 4);
    cs += 4;
    memcpy(b + 4, &cs, 4);
    b[12 + cs - 1] = 0x2A;
    expect_error(b, 12 + cs, CLRIL_E_LIMIT, 12);
    free(b);
}

/* A body with `count` fat clauses (each a finally over the one nop) in
 * `sections` sections. */
static uint8_t *clauses_body(uint32_t count, uint32_t sections, size_t *len)
{
    size_t per = count / sections;
    *len = 16 + (size_t)sections * 4 + (size_t)count * 24;
    uint8_t *b = calloc(1, *len);
    b[0] = 0x0B, b[1] = 0x30, b[2] = 8, b[4] = 2;
    b[12] = 0x00, b[13] = 0x2A; /* nop; ret */
    uint8_t *p = b + 16;
    for (uint32_t s = 0; s < sections; s++) {
        uint32_t k = s + 1 < sections ? (uint32_t)per : count - (uint32_t)per * (sections - 1);
        uint32_t hdr = 0x41u | (s + 1 < sections ? 0x80u : 0) | (4 + 24 * k) << 8;
        memcpy(p, &hdr, 4);
        p += 4;
        for (uint32_t i = 0; i < k; i++, p += 24) {
            p[0] = 2;  /* finally */
            p[8] = 1;  /* try [0, 1) */
            p[12] = 1; /* handler [1, 2) */
            p[16] = 1;
        }
    }
    return b;
}

static void test_clause_limits(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = clauses_body(CLRIL_MAX_CLAUSES, 1, &len);
    clril_body body;
    clril_error e;
    assert_int_equal(dec(b, len, &body, &e), CLRIL_OK);
    assert_int_equal(body.neh, CLRIL_MAX_CLAUSES);
    free(b);
    b = clauses_body(CLRIL_MAX_CLAUSES + 1, 1, &len);
    expect_error(b, len, CLRIL_E_LIMIT, 16);
    free(b);
    b = clauses_body(CLRIL_MAX_SECTIONS, CLRIL_MAX_SECTIONS, &len);
    assert_int_equal(dec(b, len, &body, &e), CLRIL_OK);
    assert_int_equal(body.nsections, CLRIL_MAX_SECTIONS);
    same_back(b, len, &body);
    free(b);
    b = clauses_body(CLRIL_MAX_SECTIONS + 1, CLRIL_MAX_SECTIONS + 1, &len);
    expect_error(b, len, CLRIL_E_LIMIT, (uint32_t)(16 + CLRIL_MAX_SECTIONS * 28));
    free(b);
}

/* Entry code keeps the label of instruction 0 (a loop back to it does not
 * run the entry code again); code before a ret takes the ret's label (a
 * branch to the ret runs it). */
static void test_insert_labels(void **state)
{
    (void)state;
    /* 0: nop  1: ldarg.0  2: brtrue.s 0  4: ldarg.0  5: brfalse.s 8  7: nop  8: ret */
    static const uint8_t b[] = { 0x26, 0x00, 0x02, 0x2D, 0xFC, 0x02, 0x2C, 0x01, 0x00, 0x2A };
    clril_body body;
    clril_error e;
    assert_int_equal(dec(b, sizeof b, &body, &e), CLRIL_OK);
    assert_int_equal(body.insns[2].target, 0);
    assert_int_equal(body.insns[4].target, 6);
    clril_insn ret_code[] = { { .op = CLRIL_LDC_I4, .value = 9 }, { .op = CLRIL_POP } };
    assert_int_equal(clril_insert(&body, 6, ret_code, 2, CLRIL_TAKE_LABEL, &g_a, &e), CLRIL_OK);
    clril_insn entry[] = { { .op = CLRIL_LDC_I4_S, .value = 7 }, { .op = CLRIL_POP } };
    assert_int_equal(clril_insert(&body, 0, entry, 2, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_OK);
    assert_int_equal(body.ninsns, 11);
    size_t n;
    assert_int_equal(clril_encode(&body, g_out, sizeof g_out, &n, &e), CLRIL_OK);
    /* 0: ldc.i4.s 7  2: pop  3: nop  4: ldarg.0  5: brtrue.s 3 (the nop, not
     * the entry code)  7: ldarg.0  8: brfalse.s 11 (the code before the ret)
     * 10: nop  11: ldc.i4 9  16: pop  17: ret */
    static const uint8_t want[] = { 0x4A, 0x1F, 0x07, 0x26, 0x00, 0x02, 0x2D, 0xFC, 0x02, 0x2C,
                                    0x01, 0x00, 0x20, 0x09, 0x00, 0x00, 0x00, 0x26, 0x2A };
    assert_int_equal(n, sizeof want);
    assert_memory_equal(g_out, want, sizeof want);
}

/* A short branch whose displacement grows past 127 becomes long; a tiny
 * header past 63 bytes of code becomes fat. */
static void test_promotion(void **state)
{
    (void)state;
    uint8_t b[1 + 2 + 50 + 1];
    b[0] = (uint8_t)((sizeof b - 1) << 2 | 2);
    b[1] = 0x2B, b[2] = 50; /* br.s over 50 nops to the ret */
    memset(b + 3, 0x00, 50);
    b[53] = 0x2A;
    clril_body body;
    clril_error e;
    same_back(b, sizeof b, &body);
    assert_int_equal(dec(b, sizeof b, &body, &e), CLRIL_OK);
    clril_insn nops[100];
    for (int i = 0; i < 100; i++)
        nops[i] = (clril_insn){ .op = CLRIL_NOP };
    assert_int_equal(clril_insert(&body, 1, nops, 100, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_OK);
    size_t n;
    assert_int_equal(clril_encode(&body, g_out, sizeof g_out, &n, &e), CLRIL_OK);
    assert_int_equal(body.insns[0].op, CLRIL_BR);
    assert_true(body.fat);
    assert_int_equal(n, 12 + 5 + 150 + 1);
    assert_int_equal(g_out[0], 0x03);
    assert_int_equal(g_out[1], 0x30);
    assert_int_equal(g_out[12], 0x38);
    int32_t d;
    memcpy(&d, g_out + 13, 4);
    assert_int_equal(d, 150);
    clril_body r;
    assert_int_equal(dec(g_out, n, &r, &e), CLRIL_OK);
    assert_int_equal(r.insns[0].target, 151);
    assert_int_equal(r.insns[151].op, CLRIL_RET);
}

/* A small clause whose try grows past 255 bytes is written fat. */
static void test_clause_promotion(void **state)
{
    (void)state;
    clril_body body;
    clril_error e;
    assert_int_equal(dec(k_small_eh, sizeof k_small_eh, &body, &e), CLRIL_OK);
    clril_insn nops[300];
    for (int i = 0; i < 300; i++)
        nops[i] = (clril_insn){ .op = CLRIL_NOP };
    assert_int_equal(clril_insert(&body, 1, nops, 300, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_OK);
    size_t n;
    assert_int_equal(clril_encode(&body, g_out, sizeof g_out, &n, &e), CLRIL_OK);
    clril_body r;
    assert_int_equal(dec(g_out, n, &r, &e), CLRIL_OK);
    assert_true(r.sections[0].fat);
    assert_int_equal(r.eh[0].try_start, 0);
    assert_int_equal(r.eh[0].try_end, 302);
    assert_int_equal(r.eh[0].handler_start, 302);
    assert_int_equal(r.eh[0].handler_end, 304);
    assert_int_equal(r.insns[301].op, CLRIL_LEAVE_S); /* still 3 bytes from the ret */
    assert_int_equal(r.insns[301].target, 304);
}

/* Inserted code may branch forward inside itself, or to the instruction it
 * is put before (index n): `ldarg.0; brtrue.s +2; nop; nop; br.s at`. */
static void test_insert_branches(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x12, 0x02, 0x03, 0x58, 0x2A };
    clril_insn code[] = {
        { .op = CLRIL_LDARG_0 }, { .op = CLRIL_BRTRUE_S, .target = 3 }, { .op = CLRIL_NOP },
        { .op = CLRIL_NOP }, { .op = CLRIL_BR_S, .target = 5 },
    };
    clril_body body;
    clril_error e;
    size_t n;
    assert_int_equal(dec(b, sizeof b, &body, &e), CLRIL_OK);
    assert_int_equal(clril_insert(&body, 0, code, 5, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_OK);
    assert_int_equal(clril_encode(&body, g_out, sizeof g_out, &n, &e), CLRIL_OK);
    static const uint8_t want[] = { 0x2E, 0x02, 0x2D, 0x01, 0x00, 0x00, 0x2B, 0x00,
                                    0x02, 0x03, 0x58, 0x2A };
    assert_int_equal(n, sizeof want);
    assert_memory_equal(g_out, want, sizeof want);
    /* Before the ret, taking its label: the br.s still reaches the ret. */
    assert_int_equal(dec(b, sizeof b, &body, &e), CLRIL_OK);
    assert_int_equal(clril_insert(&body, 3, code, 5, CLRIL_TAKE_LABEL, &g_a, &e), CLRIL_OK);
    assert_int_equal(body.insns[4].target, 6);
    assert_int_equal(body.insns[7].target, 8);
    assert_int_equal(body.insns[8].op, CLRIL_RET);
    /* Out of the code, back, onto itself, or a leave: refused. */
    for (uint32_t bad = 0; bad < 4; bad++) {
        clril_insn c[] = { { .op = CLRIL_NOP }, { .op = CLRIL_BR_S, .target = 2 } };
        c[1].target = bad == 0 ? 3 : bad == 1 ? 0 : 1;
        if (bad == 3)
            c[1] = (clril_insn){ .op = CLRIL_LEAVE_S, .target = 2 };
        assert_int_equal(dec(b, sizeof b, &body, &e), CLRIL_OK);
        assert_int_equal(clril_insert(&body, 0, c, 2, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_E_ARG);
    }
}

static void test_insert_errors(void **state)
{
    (void)state;
    static const uint8_t b[] = { 0x12, 0x02, 0x03, 0x58, 0x2A };
    clril_body body;
    clril_error e;
    assert_int_equal(dec(b, sizeof b, &body, &e), CLRIL_OK);
    clril_insn br = { .op = CLRIL_BR_S }, ret = { .op = CLRIL_RET }, sw = { .op = CLRIL_SWITCH };
    clril_insn bad = { .op = 0x24 }, nop = { .op = CLRIL_NOP };
    assert_int_equal(clril_insert(&body, 5, &nop, 1, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_E_ARG);
    assert_int_equal(clril_insert(&body, 0, &br, 1, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_E_ARG);
    assert_int_equal(clril_insert(&body, 0, &ret, 1, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_E_ARG);
    assert_int_equal(clril_insert(&body, 0, &sw, 1, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_E_ARG);
    assert_int_equal(clril_insert(&body, 0, &bad, 1, CLRIL_KEEP_LABEL, &g_a, &e), CLRIL_E_ARG);
    clril_insn *many = calloc(CLRIL_MAX_INSERT + 1, sizeof *many);
    assert_non_null(many);
    assert_int_equal(clril_insert(&body, 4, many, CLRIL_MAX_INSERT + 1, CLRIL_KEEP_LABEL, &g_a,
                                  &e), CLRIL_E_LIMIT);
    assert_int_equal(clril_insert(&body, 4, many, CLRIL_MAX_INSERT, CLRIL_KEEP_LABEL, &g_a, &e),
                     CLRIL_OK);
    assert_int_equal(body.ninsns, 4 + CLRIL_MAX_INSERT);
    free(many);
    /* An output too small: the size needed is given. */
    size_t n;
    uint8_t small[8];
    assert_int_equal(clril_encode(&body, small, sizeof small, &n, &e), CLRIL_E_SPACE);
    assert_int_equal(n, 12 + 4 + CLRIL_MAX_INSERT);
}

static void test_locals(void **state)
{
    (void)state;
    uint8_t out[512];
    size_t n;
    uint32_t first;
    clril_error e;
    static const uint8_t two[] = { 0x08, 0x0A }; /* int32, int64 */
    assert_int_equal(clril_locals_append(NULL, 0, two, 2, 2, out, sizeof out, &n, &first, &e),
                     CLRIL_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(out, "\x07\x02\x08\x0A", 4);
    assert_int_equal(first, 0);
    static const uint8_t one[] = { 0x07, 0x01, 0x0E }; /* string */
    assert_int_equal(clril_locals_append(one, 3, two + 1, 1, 1, out, sizeof out, &n, &first, &e),
                     CLRIL_OK);
    assert_memory_equal(out, "\x07\x02\x0E\x0A", 4);
    assert_int_equal(first, 1);
    /* 127 locals and one more: the count takes two bytes (0x80 0x80) */
    uint8_t big[2 + 127];
    big[0] = 0x07, big[1] = 0x7F;
    memset(big + 2, 0x08, 127);
    assert_int_equal(clril_locals_append(big, sizeof big, two, 1, 1, out, sizeof out, &n, &first,
                                         &e), CLRIL_OK);
    assert_int_equal(n, 3 + 128);
    assert_memory_equal(out, "\x07\x80\x80", 3);
    assert_int_equal(first, 127);
    static const uint8_t notlocals[] = { 0x06, 0x08 };
    assert_int_equal(clril_locals_append(notlocals, 2, two, 1, 1, out, sizeof out, &n, &first, &e),
                     CLRIL_E_LOCALS);
    assert_int_equal(e.offset, 0);
    /* CLRIL_MAX_LOCALS in all, and one past */
    uint8_t m[3] = { 0x07, 0xBF, 0xFD }; /* 0x3FFD locals (their types not read) */
    uint32_t k = CLRIL_MAX_LOCALS - 0x3FFD;
    uint8_t *types = calloc(1, k + 1);
    memset(types, 0x08, k + 1);
    uint8_t *o = malloc(k + 16);
    assert_int_equal(clril_locals_append(m, 3, types, k, k, o, k + 16, &n, &first, &e), CLRIL_OK);
    assert_int_equal(first, 0x3FFD);
    assert_int_equal(clril_locals_append(m, 3, types, k + 1, k + 1, o, k + 16, &n, &first, &e),
                     CLRIL_E_LIMIT);
    free(o);
    free(types);
    /* too small an output: what it needs */
    assert_int_equal(clril_locals_append(one, 3, two, 2, 2, out, 4, &n, &first, &e), CLRIL_E_SPACE);
    assert_int_equal(n, 5);
}

/* What the format leaves free comes back as read: a non-zero byte in the
 * padding before a section, a section without a clause, its reserved word
 * (bodies the fuzzer found). */
static void test_free_bytes(void **state)
{
    (void)state;
    uint8_t b[sizeof k_small_eh];
    memcpy(b, k_small_eh, sizeof b);
    b[23] = 0xFF;
    b[26] = 0x34;
    clril_body body;
    same_back(b, sizeof b, &body);
    assert_int_equal(body.sections[0].pad[0], 0xFF);
    assert_int_equal(body.sections[0].reserved, 0x34);
    /* an empty code and one small section of no clause */
    static const uint8_t empty[] = { 0x1B, 0x30, 0x00, 0x11, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0x01, 0x04, 0x00, 0x10 };
    same_back(empty, sizeof empty, &body);
    assert_int_equal(body.ninsns, 0);
    assert_int_equal(body.nsections, 1);
    assert_int_equal(body.neh, 0);
}

/* The version API: the library reports the version of the header it was
 * built with; the string is MAJOR.MINOR.PATCH and the number
 * MAJOR * 10000 + MINOR * 100 + PATCH, usable in #if. */
#if CLRIL_VERSION_NUMBER != \
    CLRIL_VERSION_MAJOR * 10000 + CLRIL_VERSION_MINOR * 100 + CLRIL_VERSION_PATCH
#error "CLRIL_VERSION_NUMBER is not MAJOR * 10000 + MINOR * 100 + PATCH in #if"
#endif
static void test_version(void **state)
{
    (void)state;
    assert_int_equal(clril_version_number(), CLRIL_VERSION_NUMBER);
    assert_string_equal(clril_version_string(), CLRIL_VERSION_STRING);
    int vmajor = CLRIL_VERSION_MAJOR;
    int vminor = CLRIL_VERSION_MINOR;
    int vpatch = CLRIL_VERSION_PATCH;
    assert_true(vmajor >= 0 && vminor >= 0 && vminor < 100 && vpatch >= 0 && vpatch < 100);
    assert_int_equal(CLRIL_VERSION_NUMBER, vmajor * 10000 + vminor * 100 + vpatch);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", vmajor, vminor, vpatch);
    assert_string_equal(CLRIL_VERSION_STRING, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_tiny),
        cmocka_unit_test(test_fat_small_eh),
        cmocka_unit_test(test_fat_eh),
        cmocka_unit_test(test_switch),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_free_bytes),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_code_size_limit),
        cmocka_unit_test(test_switch_limit),
        cmocka_unit_test(test_clause_limits),
        cmocka_unit_test(test_insert_labels),
        cmocka_unit_test(test_promotion),
        cmocka_unit_test(test_clause_promotion),
        cmocka_unit_test(test_insert_branches),
        cmocka_unit_test(test_insert_errors),
        cmocka_unit_test(test_locals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
