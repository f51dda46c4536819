/* Compressed integers and tokens against our own encoder, both ways:
 * decode(input) -> encode -> decode gives the same value (the encoder is
 * minimal, so the re-encoding is never longer), and encode(x) -> decode == x
 * for values taken from the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrsig/clrsig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t buf[4];
    uint32_t u, u2, used, used2, n;
    int32_t s, s2;

    if (clrsig_read_u(data, size, &u, &used) == CLRSIG_OK) {
        if (used > size || used > 4 || u > CLRSIG_MAX_COMPRESSED)
            abort();
        if (clrsig_write_u(u, buf, sizeof buf, &n) != CLRSIG_OK || n > used)
            abort();
        if (clrsig_read_u(buf, n, &u2, &used2) != CLRSIG_OK || u2 != u || used2 != n)
            abort();
    }
    if (clrsig_read_s(data, size, &s, &used) == CLRSIG_OK) {
        if (s < -(1 << 28) || s > (1 << 28) - 1)
            abort();
        if (clrsig_write_s(s, buf, sizeof buf, &n) != CLRSIG_OK || n > used)
            abort();
        if (clrsig_read_s(buf, n, &s2, &used2) != CLRSIG_OK || s2 != s)
            abort();
    }
    if (clrsig_read_token(data, size, &u, &used) == CLRSIG_OK) {
        if ((u & 0xFFFFFF) > CLRSIG_MAX_RID)
            abort();
        if (clrsig_write_token(u, buf, sizeof buf, &n) != CLRSIG_OK)
            abort();
        if (clrsig_read_token(buf, n, &u2, &used2) != CLRSIG_OK || u2 != u)
            abort();
    }
    if (size >= 4) {
        uint32_t x;
        memcpy(&x, data, 4);
        uint32_t v = x & 0x1FFFFFFF;
        if (clrsig_write_u(v, buf, 4, &n) != CLRSIG_OK ||
            clrsig_read_u(buf, n, &u2, &used2) != CLRSIG_OK || u2 != v)
            abort();
        int32_t sv = (int32_t)(x << 3) >> 3; /* any 29-bit signed value */
        if (clrsig_write_s(sv, buf, 4, &n) != CLRSIG_OK ||
            clrsig_read_s(buf, n, &s2, &used2) != CLRSIG_OK || s2 != sv)
            abort();
        if (clrsig_write_u(x | 0x20000000, buf, 4, &n) != CLRSIG_E_OVERFLOW)
            abort();
    }
    return 0;
}
