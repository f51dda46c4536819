/* "My code" by assembly identity (src/agent/model/identity.c) and the SHA-1
 * under it (src/base/sha1.c), alone: FIPS 180's test vectors; the ECMA
 * key's token; the token of tests/targets/Published's own key (user.snk,
 * given as the argument), which System.Reflection.AssemblyName reads from
 * the compiled assembly as 3c7874ed1f9cd5a5; the decision for CoreLib, a
 * framework key, the user's key and an unsigned assembly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/model/identity.h"
#include "base/sha1.h"

static const char *g_snk;

static void hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static void check_sha1(const char *msg, size_t len, const char *want)
{
    uint8_t d[20];
    char text[41];
    ct_sha1(msg, len, d);
    hex(d, 20, text);
    assert_string_equal(text, want);
}

static void sha1_vectors(void **state)
{
    (void)state;
    check_sha1("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    check_sha1("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
    /* 56 bytes: the length no longer fits the last block (two tail blocks). */
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha1(m, strlen(m), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    /* A million 'a's: many full blocks. */
    char *a = malloc(1000000);
    assert_non_null(a);
    memset(a, 'a', 1000000);
    check_sha1(a, 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    free(a);
    /* 64 bytes: one full block, then a tail block of padding only. */
    char b64[64];
    memset(b64, 'x', sizeof b64);
    uint8_t d1[20], d2[20];
    ct_sha1(b64, 64, d1);
    ct_sha1(b64, 64, d2);
    assert_memory_equal(d1, d2, 20);
}

/* The ECMA standard key (ECMA-335 II.6.2.1.3), 16 bytes, has the token
 * b77a5c561934e089: mscorlib's, System's, System.IO.Compression's. */
static void ecma_key(void **state)
{
    (void)state;
    const uint8_t key[16] = {0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};
    uint8_t t[8];
    char text[17];
    assert_int_equal(ct_public_key_token(key, sizeof key, CT_AF_PUBLIC_KEY, t), 0);
    hex(t, 8, text);
    assert_string_equal(text, "b77a5c561934e089");
    assert_true(ct_token_is_framework(t));
    assert_true(ct_assembly_is_framework("System.IO.Compression", key, sizeof key, CT_AF_PUBLIC_KEY));
}

/* The public key blob the C# compiler writes for a .snk key pair: the
 * signature and hash algorithms, the size, then CryptoAPI's PUBLICKEYBLOB
 * (BLOBHEADER type 6, RSAPUBKEY "RSA1", the modulus). */
static size_t public_key_of_snk(const char *path, uint8_t *out, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t snk[1024];
    size_t n = fread(snk, 1, sizeof snk, f);
    fclose(f);
    assert_true(n >= 20);
    uint32_t bitlen = snk[12] | snk[13] << 8 | snk[14] << 16 | (uint32_t)snk[15] << 24;
    size_t mod = bitlen / 8;
    assert_true(20 + mod <= n && 12 + 20 + mod <= cap);
    const uint8_t head[12] = {0x00, 0x24, 0, 0, 0x04, 0x80, 0, 0,
                              (uint8_t)(20 + mod), (uint8_t)((20 + mod) >> 8), 0, 0};
    memcpy(out, head, 12);
    const uint8_t blobheader[8] = {6, 2, 0, 0, 0x00, 0x24, 0, 0};
    memcpy(out + 12, blobheader, 8);
    memcpy(out + 20, "RSA1", 4);
    memcpy(out + 24, snk + 12, 8); /* bit length, public exponent */
    memcpy(out + 32, snk + 20, mod);
    return 32 + mod;
}

static void user_key(void **state)
{
    (void)state;
    if (!g_snk)
        skip();
    uint8_t key[512], t[8];
    char text[17];
    size_t len = public_key_of_snk(g_snk, key, sizeof key);
    assert_int_equal(len, 160);
    assert_int_equal(ct_public_key_token(key, len, CT_AF_PUBLIC_KEY, t), 0);
    hex(t, 8, text);
    assert_string_equal(text, "3c7874ed1f9cd5a5");
    /* A user's own key is "my code", even under a framework-like name. */
    assert_false(ct_token_is_framework(t));
    assert_false(ct_assembly_is_framework("Published", key, len, CT_AF_PUBLIC_KEY));
    assert_false(ct_assembly_is_framework("System.Mine", key, len, CT_AF_PUBLIC_KEY));
}

static void decisions(void **state)
{
    (void)state;
    /* CoreLib by name, whatever its key says. */
    assert_true(ct_assembly_is_framework("System.Private.CoreLib", NULL, 0, 0));
    /* Unsigned: my code. */
    assert_false(ct_assembly_is_framework("Demo", NULL, 0, 0));
    assert_false(ct_assembly_is_framework(NULL, NULL, 0, 0));
    /* A blob without afPublicKey is the token itself (8 bytes), else nothing. */
    const uint8_t ms[8] = {0xb0, 0x3f, 0x5f, 0x7f, 0x11, 0xd5, 0x0a, 0x3a};
    assert_true(ct_assembly_is_framework("System.Console", ms, 8, 0));
    assert_false(ct_assembly_is_framework("Odd", ms, 7, 0));
    uint8_t t[8];
    assert_int_equal(ct_public_key_token(ms, 8, 0, t), 0);
    assert_memory_equal(t, ms, 8);
    /* Each of the listed tokens is the framework's; one bit off is not. */
    static const char *const fw[] = {"b03f5f7f11d50a3a", "7cec85d7bea7798e", "cc7b13ffcd2ddd51",
                                     "adb9793829ddae60", "31bf3856ad364e35", "b77a5c561934e089"};
    for (size_t i = 0; i < sizeof fw / sizeof *fw; i++) {
        for (int k = 0; k < 8; k++) {
            unsigned v;
            sscanf(fw[i] + 2 * k, "%2x", &v);
            t[k] = (uint8_t)v;
        }
        assert_true(ct_token_is_framework(t));
        t[7] ^= 1;
        assert_false(ct_token_is_framework(t));
    }
}

int main(int argc, char **argv)
{
    g_snk = argc > 1 ? argv[1] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha1_vectors),
        cmocka_unit_test(ecma_key),
        cmocka_unit_test(user_key),
        cmocka_unit_test(decisions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
