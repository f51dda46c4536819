#include "utf16.h"

size_t ct_utf16_to_utf8(const WCHAR *in, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    if (cap == 0)
        return 0;
    for (size_t i = 0; i < n && in[i]; i++) {
        uint32_t c = in[i];
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && in[i + 1] >= 0xDC00 &&
            in[i + 1] <= 0xDFFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + (in[i + 1] - 0xDC00);
            i++;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            c = 0xFFFD;
        }
        char b[4];
        size_t k;
        if (c < 0x80) {
            b[0] = (char)c;
            k = 1;
        } else if (c < 0x800) {
            b[0] = (char)(0xC0 | (c >> 6));
            b[1] = (char)(0x80 | (c & 0x3F));
            k = 2;
        } else if (c < 0x10000) {
            b[0] = (char)(0xE0 | (c >> 12));
            b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[2] = (char)(0x80 | (c & 0x3F));
            k = 3;
        } else {
            b[0] = (char)(0xF0 | (c >> 18));
            b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
            b[3] = (char)(0x80 | (c & 0x3F));
            k = 4;
        }
        if (o + k >= cap)
            break;
        for (size_t j = 0; j < k; j++)
            out[o++] = b[j];
    }
    out[o] = '\0';
    return o;
}

long ct_utf8_to_utf16(const char *in, WCHAR *out, size_t cap)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t o = 0;
    while (*s) {
        uint32_t c;
        int extra;
        if (*s < 0x80) {
            c = *s;
            extra = 0;
        } else if ((*s & 0xE0) == 0xC0) {
            c = *s & 0x1F;
            extra = 1;
        } else if ((*s & 0xF0) == 0xE0) {
            c = *s & 0x0F;
            extra = 2;
        } else if ((*s & 0xF8) == 0xF0) {
            c = *s & 0x07;
            extra = 3;
        } else {
            return -1;
        }
        s++;
        for (int i = 0; i < extra; i++, s++) {
            if ((*s & 0xC0) != 0x80)
                return -1;
            c = c << 6 | (*s & 0x3F);
        }
        if (c >= 0x10000) {
            if (o + 2 >= cap)
                return -1;
            c -= 0x10000;
            out[o++] = (WCHAR)(0xD800 + (c >> 10));
            out[o++] = (WCHAR)(0xDC00 + (c & 0x3FF));
        } else {
            if (o + 1 >= cap)
                return -1;
            out[o++] = (WCHAR)c;
        }
    }
    if (o >= cap)
        return -1;
    out[o] = 0;
    return (long)o;
}
