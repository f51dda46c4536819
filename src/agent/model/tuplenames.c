#include "tuplenames.h"

#include <string.h>

#include "clrsig/clrsig.h"

/* 1 for a byte that may stand in a name shown in a value's text. */
static int name_byte(uint8_t b)
{
    return b >= 0x20 && b != 0x7F && !strchr(" ,=(){}<>\"", b);
}

int ct_tuple_names_parse(const uint8_t *blob, size_t len, ct_tuple_names *out)
{
    out->count = 0;
    if (!blob || len < 6 || blob[0] != 1 || blob[1] != 0)
        return -1;
    uint32_t n = (uint32_t)blob[2] | (uint32_t)blob[3] << 8 | (uint32_t)blob[4] << 16 |
                 (uint32_t)blob[5] << 24;
    if (n == UINT32_MAX || n > CT_TUPLE_NAMES_MAX)
        return -1; /* a null array, or more names than kept */
    size_t at = 6;
    for (uint32_t i = 0; i < n; i++) {
        if (at >= len)
            return -1;
        if (blob[at] == 0xFF) {
            out->named[i] = 0;
            out->text[i][0] = '\0';
            at++;
            continue;
        }
        uint32_t sl = 0, used = 0;
        if (clrsig_read_u(blob + at, len - at, &sl, &used) != CLRSIG_OK)
            return -1;
        at += used;
        if (!sl || sl >= CT_TUPLE_NAME_MAX || sl > len - at)
            return -1;
        for (uint32_t k = 0; k < sl; k++)
            if (!name_byte(blob[at + k]))
                return -1;
        memcpy(out->text[i], blob + at, sl);
        out->text[i][sl] = '\0';
        out->named[i] = 1;
        at += sl;
    }
    /* NumNamed: two bytes the compiler always writes (0). */
    if (len - at < 2)
        return -1;
    out->count = n;
    return 0;
}

int ct_tuple_names_any(const ct_tuple_names *n)
{
    for (uint32_t i = 0; i < n->count; i++)
        if (n->named[i])
            return 1;
    return 0;
}
