/* Compressed integers and TypeDefOrRefOrSpecEncoded tokens (ECMA-335 II.23.2).
 * Every reader checks the length of the form it is about to read before it
 * touches the bytes. */
#include "clrsig/clrsig.h"

clrsig_status clrsig_read_u(const uint8_t *p, size_t len, uint32_t *value, uint32_t *used)
{
    if (len < 1)
        return CLRSIG_E_TRUNCATED;
    uint8_t b0 = p[0];
    if ((b0 & 0x80) == 0) {
        *value = b0;
        *used = 1;
    } else if ((b0 & 0xC0) == 0x80) {
        if (len < 2)
            return CLRSIG_E_TRUNCATED;
        *value = ((uint32_t)(b0 & 0x3F) << 8) | p[1];
        *used = 2;
    } else if ((b0 & 0xE0) == 0xC0) {
        if (len < 4)
            return CLRSIG_E_TRUNCATED;
        *value = ((uint32_t)(b0 & 0x1F) << 24) | ((uint32_t)p[1] << 16) |
                 ((uint32_t)p[2] << 8) | p[3];
        *used = 4;
    } else {
        return CLRSIG_E_BAD_COMPRESSED;
    }
    return CLRSIG_OK;
}

clrsig_status clrsig_read_s(const uint8_t *p, size_t len, int32_t *value, uint32_t *used)
{
    uint32_t u, n;
    clrsig_status st = clrsig_read_u(p, len, &u, &n);
    if (st != CLRSIG_OK)
        return st;
    /* The sign bit was rotated into bit 0; the magnitude width depends on the
     * encoded length: 6, 13 or 28 bits. */
    uint32_t s = u >> 1;
    if (u & 1) {
        if (n == 1)
            s |= 0xFFFFFFC0u;
        else if (n == 2)
            s |= 0xFFFFE000u;
        else
            s |= 0xF0000000u;
    }
    *value = (int32_t)s;
    *used = n;
    return CLRSIG_OK;
}

static const uint32_t token_table[3] = { 0x02000000u, 0x01000000u, 0x1B000000u };

clrsig_status clrsig_read_token(const uint8_t *p, size_t len, uint32_t *token, uint32_t *used)
{
    uint32_t u;
    clrsig_status st = clrsig_read_u(p, len, &u, used);
    if (st != CLRSIG_OK)
        return st;
    uint32_t tag = u & 3, rid = u >> 2;
    if (tag == 3)
        return CLRSIG_E_BAD_TOKEN_TAG;
    if (rid > CLRSIG_MAX_RID)
        return CLRSIG_E_RID_OVERFLOW;
    *token = token_table[tag] | rid;
    return CLRSIG_OK;
}

clrsig_status clrsig_write_u(uint32_t value, uint8_t *out, size_t cap, uint32_t *used)
{
    if (value > CLRSIG_MAX_COMPRESSED)
        return CLRSIG_E_OVERFLOW;
    uint32_t n = value <= 0x7F ? 1 : value <= 0x3FFF ? 2 : 4;
    if (cap < n)
        return CLRSIG_E_TRUNCATED;
    if (n == 1) {
        out[0] = (uint8_t)value;
    } else if (n == 2) {
        out[0] = (uint8_t)(0x80 | (value >> 8));
        out[1] = (uint8_t)value;
    } else {
        out[0] = (uint8_t)(0xC0 | (value >> 24));
        out[1] = (uint8_t)(value >> 16);
        out[2] = (uint8_t)(value >> 8);
        out[3] = (uint8_t)value;
    }
    *used = n;
    return CLRSIG_OK;
}

clrsig_status clrsig_write_s(int32_t value, uint8_t *out, size_t cap, uint32_t *used)
{
    /* Pick the shortest width whose signed range holds the value, then rotate
     * the sign into bit 0 within that width. */
    uint32_t bits, u;
    if (value >= -64 && value <= 63)
        bits = 7;
    else if (value >= -8192 && value <= 8191)
        bits = 14;
    else if (value >= -(1 << 28) && value <= (1 << 28) - 1)
        bits = 29;
    else
        return CLRSIG_E_OVERFLOW;
    uint32_t mask = (1u << bits) - 1;
    u = (((uint32_t)value << 1) & mask) | (value < 0 ? 1u : 0u);
    /* Force the encoded length to the chosen width even when u is small. */
    uint32_t n = bits == 7 ? 1 : bits == 14 ? 2 : 4;
    if (cap < n)
        return CLRSIG_E_TRUNCATED;
    if (n == 1) {
        out[0] = (uint8_t)u;
    } else if (n == 2) {
        out[0] = (uint8_t)(0x80 | (u >> 8));
        out[1] = (uint8_t)u;
    } else {
        out[0] = (uint8_t)(0xC0 | (u >> 24));
        out[1] = (uint8_t)(u >> 16);
        out[2] = (uint8_t)(u >> 8);
        out[3] = (uint8_t)u;
    }
    *used = n;
    return CLRSIG_OK;
}

clrsig_status clrsig_write_token(uint32_t token, uint8_t *out, size_t cap, uint32_t *used)
{
    uint32_t tag, rid = token & 0x00FFFFFFu;
    switch (token >> 24) {
    case 0x02: tag = 0; break;
    case 0x01: tag = 1; break;
    case 0x1B: tag = 2; break;
    default: return CLRSIG_E_OVERFLOW;
    }
    if (rid > (CLRSIG_MAX_COMPRESSED >> 2))
        return CLRSIG_E_OVERFLOW;
    return clrsig_write_u((rid << 2) | tag, out, cap, used);
}
