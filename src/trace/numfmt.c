/* Floating-point text as .NET (Core 3.0 and later) prints it with
 * ToString(CultureInfo.InvariantCulture): the shortest digits that read back
 * to the same value, fixed notation unless the decimal exponent is below -5
 * or the integer part would need more than 17 (double) / 9 (float) digits,
 * then d.dddE+XX with at least two exponent digits. Checked against dotnet
 * itself in tests/unit/test_value.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrtrace/value.h"

/* digits: the significant digits without a point; exp10: position of the
 * decimal point relative to the first digit (value = 0.d1d2... * 10^exp10). */
static void layout(int negative, const char *digits, int exp10, int max_int_digits,
                   char *out, size_t cap)
{
    char buf[64];
    size_t n = 0, nd = strlen(digits);
    if (negative)
        buf[n++] = '-';
    if (exp10 > max_int_digits || exp10 < -3) {
        buf[n++] = digits[0];
        if (nd > 1) {
            buf[n++] = '.';
            memcpy(buf + n, digits + 1, nd - 1);
            n += nd - 1;
        }
        int e = exp10 - 1;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "E%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (exp10 <= 0) {
        buf[n++] = '0';
        buf[n++] = '.';
        for (int i = 0; i < -exp10; i++)
            buf[n++] = '0';
        memcpy(buf + n, digits, nd);
        n += nd;
    } else {
        for (int i = 0; i < exp10; i++)
            buf[n++] = (size_t)i < nd ? digits[i] : '0';
        if ((size_t)exp10 < nd) {
            buf[n++] = '.';
            memcpy(buf + n, digits + exp10, nd - (size_t)exp10);
            n += nd - (size_t)exp10;
        }
    }
    buf[n] = '\0';
    snprintf(out, cap, "%s", buf);
}

static int special(double v, char *out, size_t cap)
{
    if (isnan(v)) {
        snprintf(out, cap, "NaN");
        return 1;
    }
    if (isinf(v)) {
        snprintf(out, cap, v < 0 ? "-Infinity" : "Infinity");
        return 1;
    }
    if (v == 0) {
        snprintf(out, cap, signbit(v) ? "-0" : "0");
        return 1;
    }
    return 0;
}

/* Splits "%.*e" text into digits (trailing zeros removed) and exp10. */
static void split(const char *e_text, char *digits, int *exp10)
{
    const char *p = e_text;
    if (*p == '-')
        p++;
    size_t n = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    *exp10 = atoi(p + 1) + 1;
}

/* The shortest "%.*e" precision that reads back to v: a binary search, as
 * reading back is monotone in the precision (1 to max digits). */
static int shortest_double(double v, char *text, size_t cap)
{
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(text, cap, "%.*e", mid - 1, v);
        if (strtod(text, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int shortest_float(float v, char *text, size_t cap)
{
    int lo = 1, hi = 9;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(text, cap, "%.*e", mid - 1, (double)v);
        if (strtof(text, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Whole numbers up to 2^53 print as integers (what the general path gives
 * for them, without the search). */
#define EXACT_INTEGER_LIMIT 9007199254740992.0

void ct_format_double(double v, char *out, size_t cap)
{
    if (special(v, out, cap))
        return;
    if (v == floor(v) && fabs(v) < EXACT_INTEGER_LIMIT && fabs(v) < 1e15) {
        snprintf(out, cap, "%lld", (long long)v);
        return;
    }
    char text[64], digits[32];
    int prec = shortest_double(v, text, sizeof text);
    snprintf(text, sizeof text, "%.*e", prec - 1, v);
    int exp10;
    split(text, digits, &exp10);
    layout(v < 0, digits, exp10, 17, out, cap);
}

void ct_format_float(float v, char *out, size_t cap)
{
    if (special(v, out, cap))
        return;
    if (v == floorf(v) && fabsf(v) < 1e7f) {
        snprintf(out, cap, "%lld", (long long)v);
        return;
    }
    char text[64], digits[32];
    int prec = shortest_float(v, text, sizeof text);
    snprintf(text, sizeof text, "%.*e", prec - 1, (double)v);
    int exp10;
    split(text, digits, &exp10);
    layout(v < 0, digits, exp10, 9, out, cap);
}
