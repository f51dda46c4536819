/* Compressed integers and tokens: the vectors of ECMA-335 II.23.2 and
 * II.23.2.8, the boundaries of each form, and round trips through our encoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clrsig/clrsig.h"

static void expect_u(const uint8_t *b, size_t len, uint32_t want, uint32_t want_used)
{
    uint32_t v = 0, used = 0;
    assert_int_equal(clrsig_read_u(b, len, &v, &used), CLRSIG_OK);
    assert_int_equal(v, want);
    assert_int_equal(used, want_used);
}

/* II.23.2: the table of examples in the spec. */
static void test_unsigned_spec_examples(void **state)
{
    (void)state;
    expect_u((const uint8_t[]){ 0x03 }, 1, 0x03, 1);
    expect_u((const uint8_t[]){ 0x7F }, 1, 0x7F, 1);
    expect_u((const uint8_t[]){ 0x80, 0x80 }, 2, 0x80, 2);
    expect_u((const uint8_t[]){ 0xAE, 0x57 }, 2, 0x2E57, 2);
    expect_u((const uint8_t[]){ 0xBF, 0xFF }, 2, 0x3FFF, 2);
    expect_u((const uint8_t[]){ 0xC0, 0x00, 0x40, 0x00 }, 4, 0x4000, 4);
    expect_u((const uint8_t[]){ 0xDF, 0xFF, 0xFF, 0xFF }, 4, 0x1FFFFFFF, 4);
}

static void test_unsigned_errors(void **state)
{
    (void)state;
    uint32_t v = 0xDEAD, used = 0xBEEF;
    /* Length is checked before each form is read: a 2-byte form with 1 byte. */
    assert_int_equal(clrsig_read_u((const uint8_t[]){ 0x80 }, 1, &v, &used), CLRSIG_E_TRUNCATED);
    assert_int_equal(clrsig_read_u((const uint8_t[]){ 0xC0, 0, 0 }, 3, &v, &used), CLRSIG_E_TRUNCATED);
    assert_int_equal(clrsig_read_u(NULL, 0, &v, &used), CLRSIG_E_TRUNCATED);
    for (unsigned b = 0xE0; b <= 0xFF; b++)
        assert_int_equal(clrsig_read_u((const uint8_t[]){ (uint8_t)b, 0, 0, 0 }, 4, &v, &used),
                         CLRSIG_E_BAD_COMPRESSED);
    assert_int_equal(v, 0xDEAD); /* outputs untouched on failure */
}

static void expect_s(const uint8_t *b, size_t len, int32_t want)
{
    int32_t v = 0;
    uint32_t used = 0;
    assert_int_equal(clrsig_read_s(b, len, &v, &used), CLRSIG_OK);
    assert_int_equal(v, want);
    assert_int_equal(used, len);
}

/* II.23.2: the signed examples. */
static void test_signed_spec_examples(void **state)
{
    (void)state;
    expect_s((const uint8_t[]){ 0x06 }, 1, 3);
    expect_s((const uint8_t[]){ 0x7B }, 1, -3);
    expect_s((const uint8_t[]){ 0x80, 0x80 }, 2, 64);
    expect_s((const uint8_t[]){ 0x01 }, 1, -64);
    expect_s((const uint8_t[]){ 0xC0, 0x00, 0x40, 0x00 }, 4, 8192);
    expect_s((const uint8_t[]){ 0x80, 0x01 }, 2, -8192);
    expect_s((const uint8_t[]){ 0xDF, 0xFF, 0xFF, 0xFE }, 4, 268435455);
    expect_s((const uint8_t[]){ 0xC0, 0x00, 0x00, 0x01 }, 4, -268435456);
}

/* II.23.2.8: TypeDefOrRefOrSpecEncoded. */
static void test_tokens(void **state)
{
    (void)state;
    uint32_t tok, used;
    assert_int_equal(clrsig_read_token((const uint8_t[]){ 0x49 }, 1, &tok, &used), CLRSIG_OK);
    assert_int_equal(tok, 0x01000012);
    assert_int_equal(clrsig_read_token((const uint8_t[]){ 0x08 }, 1, &tok, &used), CLRSIG_OK);
    assert_int_equal(tok, 0x02000002);
    assert_int_equal(clrsig_read_token((const uint8_t[]){ 0x0E }, 1, &tok, &used), CLRSIG_OK);
    assert_int_equal(tok, 0x1B000003);
    assert_int_equal(clrsig_read_token((const uint8_t[]){ 0x0F }, 1, &tok, &used),
                     CLRSIG_E_BAD_TOKEN_TAG);
    /* The largest rid a 29-bit value can carry is 0x7FFFFFF: above 0xFFFFFF. */
    assert_int_equal(clrsig_read_token((const uint8_t[]){ 0xC3, 0xFF, 0xFF, 0xFC }, 4, &tok, &used),
                     CLRSIG_OK);
    assert_int_equal(tok, 0x02FFFFFF);
    assert_int_equal(clrsig_read_token((const uint8_t[]){ 0xC4, 0x00, 0x00, 0x00 }, 4, &tok, &used),
                     CLRSIG_E_RID_OVERFLOW);
}

static void test_round_trip_unsigned(void **state)
{
    (void)state;
    /* Every value near each form's boundaries, plus a sweep with a stride. */
    static const uint32_t edges[] = { 0, 1, 0x7E, 0x7F, 0x80, 0x81, 0x3FFE, 0x3FFF, 0x4000,
                                      0x4001, 0x1FFFFFFE, 0x1FFFFFFF };
    uint8_t buf[4];
    uint32_t used, back, used2;
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        assert_int_equal(clrsig_write_u(edges[i], buf, 4, &used), CLRSIG_OK);
        assert_int_equal(clrsig_read_u(buf, used, &back, &used2), CLRSIG_OK);
        assert_int_equal(back, edges[i]);
        assert_int_equal(used, used2);
        assert_int_equal(used, edges[i] < 0x80 ? 1 : edges[i] < 0x4000 ? 2 : 4);
    }
    for (uint32_t v = 0; v <= CLRSIG_MAX_COMPRESSED - 9973; v += 9973) {
        assert_int_equal(clrsig_write_u(v, buf, 4, &used), CLRSIG_OK);
        assert_int_equal(clrsig_read_u(buf, used, &back, &used2), CLRSIG_OK);
        assert_int_equal(back, v);
    }
    assert_int_equal(clrsig_write_u(0x20000000, buf, 4, &used), CLRSIG_E_OVERFLOW);
    assert_int_equal(clrsig_write_u(0x4000, buf, 3, &used), CLRSIG_E_TRUNCATED);
}

static void test_round_trip_signed(void **state)
{
    (void)state;
    uint8_t buf[4];
    uint32_t used, used2;
    int32_t back;
    for (int32_t v = -(1 << 28); v <= (1 << 28) - 1; v += 7919) {
        assert_int_equal(clrsig_write_s(v, buf, 4, &used), CLRSIG_OK);
        assert_int_equal(clrsig_read_s(buf, used, &back, &used2), CLRSIG_OK);
        assert_int_equal(back, v);
    }
    static const int32_t edges[] = { -64, -65, 63, 64, -8192, -8193, 8191, 8192,
                                     -(1 << 28), (1 << 28) - 1, 0, -1, 1 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        assert_int_equal(clrsig_write_s(edges[i], buf, 4, &used), CLRSIG_OK);
        assert_int_equal(clrsig_read_s(buf, used, &back, &used2), CLRSIG_OK);
        assert_int_equal(back, edges[i]);
    }
    assert_int_equal(clrsig_write_s((1 << 28), buf, 4, &used), CLRSIG_E_OVERFLOW);
    assert_int_equal(clrsig_write_s(-(1 << 28) - 1, buf, 4, &used), CLRSIG_E_OVERFLOW);
}

static void test_round_trip_tokens(void **state)
{
    (void)state;
    static const uint32_t toks[] = { 0x02000001, 0x01000012, 0x1B000003, 0x02FFFFFF,
                                     0x0100FFFF, 0x1B001FFF };
    uint8_t buf[4];
    uint32_t used, back, used2;
    for (size_t i = 0; i < sizeof toks / sizeof toks[0]; i++) {
        assert_int_equal(clrsig_write_token(toks[i], buf, 4, &used), CLRSIG_OK);
        assert_int_equal(clrsig_read_token(buf, used, &back, &used2), CLRSIG_OK);
        assert_int_equal(back, toks[i]);
    }
    assert_int_equal(clrsig_write_token(0x06000001, buf, 4, &used), CLRSIG_E_OVERFLOW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unsigned_spec_examples),
        cmocka_unit_test(test_unsigned_errors),
        cmocka_unit_test(test_signed_spec_examples),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_round_trip_unsigned),
        cmocka_unit_test(test_round_trip_signed),
        cmocka_unit_test(test_round_trip_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
