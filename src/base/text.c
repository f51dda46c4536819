/* A bounded text buffer that keeps counting past its end. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

void ct_text_init(ct_text *t, char *buf, size_t cap)
{
    t->p = buf;
    t->cap = buf ? cap : 0;
    t->len = 0;
    if (t->cap)
        buf[0] = '\0';
}

void ct_text_putn_any(ct_text *t, const char *s, size_t n)
{
    if (!t)
        return;
    if (t->cap && t->len < t->cap - 1) {
        size_t room = t->cap - 1 - t->len;
        size_t k = n < room ? n : room;
        ct_copy_small(t->p + t->len, s, k);
        t->p[t->len + k] = '\0';
    }
    t->len += n;
}

void ct_text_printf(ct_text *t, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    if (!t)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        ct_text_putn(t, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

size_t ct_text_end(ct_text *t)
{
    if (!t->cap)
        return 0;
    if (t->len < t->cap)
        return t->len;
    size_t n = t->cap - 1;
    size_t cut = n >= 3 ? n - 3 : 0;
    while (cut > 0 && ((unsigned char)t->p[cut] & 0xC0) == 0x80)
        cut--;
    if (cut + 3 > n) { /* a buffer too small for "..." keeps what fits */
        t->len = n;
        return n;
    }
    memcpy(t->p + cut, "...", 3);
    t->p[cut + 3] = '\0';
    t->len = cut + 3;
    return cut + 3;
}

/* "00" .. "99". */
static const char k_digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* 10^0 .. 10^19: v has n digits when it is below k_pow10[n]. */
static const uint64_t k_pow10[CT_DEC_MAX] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u,
};

size_t ct_put_dec(char *b, uint64_t v)
{
    if (v < 10) {
        b[0] = (char)('0' + v);
        return 1;
    }
    /* Digits counted first, by comparisons (not a division each), then
     * written from the last. */
    size_t n = 2;
    while (n < CT_DEC_MAX && v >= k_pow10[n])
        n++;
    size_t at = n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        at -= 2;
        memcpy(b + at, k_digit_pairs + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(b, k_digit_pairs + 2 * v, 2);
    else
        b[0] = (char)('0' + v);
    return n;
}

int ct_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
