/* Text into JSON strings and XML (dump --chrome, dump --flame): the trace's
 * names and values are UTF-8 from the runtime, but a damaged or hand-made
 * trace may hold any bytes, and the output must stay valid regardless. */
#include <stdio.h>

#include "escape.h"

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
static const char k_replacement[] = "\xEF\xBF\xBD";

size_t ct_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    if (!n)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1Fu, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07u, min = 0x10000;
    } else {
        return 0; /* a continuation byte, C0/C1 (always overlong), F5..FF */
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

void ct_json_string(FILE *out, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    putc('"', out);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = ct_utf8_next(s + i, n - i, &cp);
        if (!k) {
            fputs("\\ufffd", out);
            i++;
        } else if (cp == '"' || cp == '\\') {
            putc('\\', out);
            putc((int)cp, out);
            i++;
        } else if (cp < 0x20) {
            fprintf(out, "\\u%04x", (unsigned)cp);
            i++;
        } else {
            fwrite(s + i, 1, k, out);
            i += k;
        }
    }
    putc('"', out);
}

void ct_xml_text(FILE *out, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = ct_utf8_next(s + i, n - i, &cp);
        if (!k)
            k = 1, cp = 0xFFFD;
        switch (cp) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE ||
                cp == 0xFFFF || cp == 0xFFFD)
                fputs(k_replacement, out);
            else
                fwrite(s + i, 1, k, out);
            break;
        }
        i += k;
    }
}
