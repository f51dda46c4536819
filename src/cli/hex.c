#include <stdio.h>

#include "cli.h"
#include "base/text.h"


long cli_parse_hex(const char *text, uint8_t *out, size_t cap, char *err, size_t errcap)
{
    size_t n = 0;
    int hi = -1;
    for (const char *p = text; *p; p++) {
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && hi < 0) {
            p++;
            continue;
        }
        if (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n' || *p == ':' || *p == '-') {
            if (hi >= 0) { /* a lone digit: "8" means 08 */
                if (n >= cap)
                    goto too_long;
                out[n++] = (uint8_t)hi;
                hi = -1;
            }
            continue;
        }
        int v = ct_hex_digit((unsigned char)*p);
        if (v < 0) {
            snprintf(err, errcap, "not a hex digit: '%c' at column %zu", *p, (size_t)(p - text) + 1);
            return -1;
        }
        if (hi < 0) {
            hi = v;
        } else {
            if (n >= cap)
                goto too_long;
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        if (n >= cap)
            goto too_long;
        out[n++] = (uint8_t)hi;
    }
    return (long)n;
too_long:
    snprintf(err, errcap, "more than %zu bytes", cap);
    return -1;
}
