/* Floating-point text as .NET (Core 3.0 and later) prints it with
 * ToString(CultureInfo.InvariantCulture): the shortest digits that read back
 * to the same value, fixed notation unless the decimal exponent is below -5
 * or the integer part would need more than 17 (double) / 9 (float) digits,
 * then d.dddE+XX with at least two exponent digits. Checked against dotnet
 * itself in tests/unit/test_value.c.
 *
 * The definition (ct_format_double_ref): the smallest precision P, found by
 * a binary search over 1..17 (float: 1..9), whose "%.*e" text reads back
 * (strtod / strtof) to the value. The fast path (ct_shortest_double) runs
 * the same search without text: the value scaled to 17 decimal digits with
 * a 64-bit binary fraction, from a 128-bit table of powers of ten, gives
 * each precision's correctly rounded digits and their distance to the value;
 * reading back is a comparison of that distance with half the gap to the
 * neighbouring double. When a comparison is closer than the arithmetic's
 * error bound the fast path gives up and the reference decides. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/value.h"
#include "value_text.h"

typedef unsigned __int128 u128;

/* ---------------------------------------------------------- text out */

/* Copies buf[0..n) into out[0..cap) as snprintf("%s") would: cut to cap - 1
 * bytes, NUL-terminated. Returns n (the length wanted). */
static size_t put_out(const char *buf, size_t n, char *out, size_t cap)
{
    if (cap) {
        size_t k = n < cap ? n : cap - 1;
        memcpy(out, buf, k);
        out[k] = '\0';
    }
    return n;
}

/* digits: the significant digits without a point; exp10: position of the
 * decimal point relative to the first digit (value = 0.d1d2... * 10^exp10). */
static size_t layout(int negative, const char *digits, size_t nd, int exp10, int max_int_digits,
                     char *out, size_t cap)
{
    char buf[CT_NUM_TEXT_MAX]; /* "-", 17 digits, ".", "E-324"; or "-0.000" and 17 */
    size_t n = 0;
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
        unsigned a = (unsigned)(e < 0 ? -e : e);
        buf[n++] = 'E';
        buf[n++] = e < 0 ? '-' : '+';
        if (a < 10)
            buf[n++] = '0';
        n += ct_put_dec(buf + n, a);
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
    return put_out(buf, n, out, cap);
}

/* NaN, infinities and zeros as .NET prints them; 0 for other values. */
static size_t special(double v, char *out, size_t cap)
{
    if (isnan(v))
        return put_out("NaN", 3, out, cap);
    if (isinf(v))
        return v < 0 ? put_out("-Infinity", 9, out, cap) : put_out("Infinity", 8, out, cap);
    if (v == 0)
        return signbit(v) ? put_out("-0", 2, out, cap) : put_out("0", 1, out, cap);
    return 0;
}

/* A whole number below 10^15 / 10^7 in magnitude as an integer (what the
 * general path gives for it). */
static size_t integer(double v, char *out, size_t cap)
{
    char buf[24];
    size_t n = 0;
    uint64_t a;
    if (v < 0) {
        buf[n++] = '-';
        a = (uint64_t)-v;
    } else {
        a = (uint64_t)v;
    }
    n += ct_put_dec(buf + n, a);
    return put_out(buf, n, out, cap);
}

/* ------------------------------------------- the reference (printf) */

/* Splits "%.*e" text into digits (trailing zeros removed) and exp10. */
static size_t split(const char *e_text, char *digits, int *exp10)
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
    return n;
}

/* The shortest "%.*e" precision that reads back to v: a binary search
 * (1 to max digits). Reading back is monotone in the precision except,
 * rarely, at a power of two, whose lower neighbour is nearer: there the
 * search's answer is the definition. */
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

static size_t general_ref(double v, char *out, size_t cap)
{
    char text[64], digits[32];
    int prec = shortest_double(v, text, sizeof text);
    snprintf(text, sizeof text, "%.*e", prec - 1, v);
    int exp10;
    size_t nd = split(text, digits, &exp10);
    return layout(v < 0, digits, nd, exp10, 17, out, cap);
}

static size_t general_ref_float(float v, char *out, size_t cap)
{
    char text[64], digits[32];
    int prec = shortest_float(v, text, sizeof text);
    snprintf(text, sizeof text, "%.*e", prec - 1, (double)v);
    int exp10;
    size_t nd = split(text, digits, &exp10);
    return layout(v < 0, digits, nd, exp10, 9, out, cap);
}

/* Whole numbers up to 2^53 print as integers (what the general path gives
 * for them, without the search). */
#define EXACT_INTEGER_LIMIT 9007199254740992.0

size_t ct_format_double_ref(double v, char *out, size_t cap)
{
    size_t n = special(v, out, cap);
    if (n)
        return n;
    if (v == floor(v) && fabs(v) < EXACT_INTEGER_LIMIT && fabs(v) < 1e15)
        return integer(v, out, cap);
    return general_ref(v, out, cap);
}

size_t ct_format_float_ref(float v, char *out, size_t cap)
{
    size_t n = special(v, out, cap);
    if (n)
        return n;
    if (v == floorf(v) && fabsf(v) < 1e7f)
        return integer(v, out, cap);
    return general_ref_float(v, out, cap);
}

/* ------------------------------------------ powers of ten, 128 bits */

/* 10^j for j in [POW10_MIN, POW10_MAX] as m * 2^exp2 with m in
 * [2^127, 2^128), cut (not rounded): m <= 10^j / 2^exp2 < m + 1. The range
 * covers 10^(16 - e) for every double's decimal exponent e (-324..308). */
#define POW10_MIN (-300)
#define POW10_MAX 350
/* The bignum that makes the table: 32-bit limbs, enough for 10^POW10_MAX
 * (1163 bits) and for 2^POW10_DIV_BITS. */
#define BIG_LIMBS 40
/* Negative powers are floor(2^POW10_DIV_BITS / 10^j): 10^300 < 2^997, so
 * at least 1180 - 997 = 183 bits are left, more than the 128 kept. */
#define POW10_DIV_BITS 1180

typedef struct pow10 {
    uint64_t hi, lo;
    int32_t exp2;
} pow10;

static pow10 g_pow10[POW10_MAX - POW10_MIN + 1];
static pthread_once_t g_pow10_once = PTHREAD_ONCE_INIT;

static int big_bits(const uint32_t *x)
{
    for (int i = BIG_LIMBS - 1; i >= 0; i--)
        if (x[i])
            return 32 * i + 32 - __builtin_clz(x[i]);
    return 0;
}

/* Bits [from, from + 128) of x (bits below 0 read as zeros). */
static u128 big_window(const uint32_t *x, int from)
{
    u128 m = 0;
    for (int b = 127; b >= 0; b--) {
        int at = from + b;
        int bit = at >= 0 && at < 32 * BIG_LIMBS ? (int)(x[at / 32] >> (at % 32) & 1) : 0;
        m = m << 1 | (u128)bit;
    }
    return m;
}

static void set_pow10(int j, const uint32_t *x, int scale2)
{
    int from = big_bits(x) - 128;
    u128 m = big_window(x, from);
    g_pow10[j - POW10_MIN] = (pow10){(uint64_t)(m >> 64), (uint64_t)m, from + scale2};
}

static void make_pow10(void)
{
    uint32_t x[BIG_LIMBS] = {1};
    for (int j = 0; j <= POW10_MAX; j++) {
        set_pow10(j, x, 0);
        uint64_t carry = 0;
        for (int i = 0; i < BIG_LIMBS; i++) {
            uint64_t t = (uint64_t)x[i] * 10 + carry;
            x[i] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    memset(x, 0, sizeof x);
    x[POW10_DIV_BITS / 32] = 1u << (POW10_DIV_BITS % 32);
    for (int j = 1; j <= -POW10_MIN; j++) {
        uint64_t rem = 0;
        for (int i = BIG_LIMBS - 1; i >= 0; i--) {
            uint64_t t = rem << 32 | x[i];
            x[i] = (uint32_t)(t / 10);
            rem = t % 10;
        }
        set_pow10(-j, x, -POW10_DIV_BITS);
    }
}

/* -------------------------------------------------- the fast path */

/* Error bounds of the scaled values below, in units of their 64-bit binary
 * fraction: each is at most 1 + 2^-5 below the truth, never above. */
#define SCALE_ERROR 2   /* the value's */
#define ROUND_MARGIN 2  /* a digit's rounding (the value against a half) */
#define RANGE_MARGIN 4  /* a distance against half the gap to a neighbour */

static const uint64_t k_pow10_u64[18] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull,
};

/* 5^k, for k <= 55 (the powers below 2^128). */
static u128 pow5(int k)
{
    u128 x = 1;
    while (k-- > 0)
        x *= 5;
    return x;
}

/* v = c * 2^q, as the search sees it. */
typedef struct scaled {
    u128 s;         /* v * 10^(16 - e) * 2^64, cut: 17 digits, a 64-bit fraction */
    u128 h_hi, h_lo; /* half the gap to the next / previous value, same units */
    int e;          /* v's decimal exponent: 10^e <= v < 10^(e + 1) */
    uint64_t c;     /* v = c * 2^q as the value's bits give them */
    int q, asymmetric;
} scaled;

/* c * 10^j * 2^q * 2^64 cut to an integer; c < 2^64, normalized so its top
 * bit is set; the result must be below 2^128. */
static u128 mul_pow10(uint64_t c, int q, int j)
{
    const pow10 *p = &g_pow10[j - POW10_MIN];
    u128 a = (u128)c * p->lo, b = (u128)c * p->hi;
    u128 mid = (a >> 64) + (uint64_t)b;
    u128 top = (b >> 64) + (mid >> 64); /* bits 128.. of the product */
    u128 hi128 = top << 64 | (uint64_t)mid;
    int sh = -(q + p->exp2 + 64); /* 69..75: checked by the ranges above */
    return hi128 >> (sh - 64);
}

/* 2^q2 * 10^j * 2^64, cut; q2 such that the result is below 2^120. */
static u128 pow2_pow10(int q2, int j)
{
    const pow10 *p = &g_pow10[j - POW10_MIN];
    u128 m = (u128)p->hi << 64 | p->lo;
    int sh = -(q2 + p->exp2 + 64);
    return sh >= 128 ? 0 : m >> sh;
}

/* 0, or -1 when the decimal exponent is too close to call. */
static int scale(uint64_t c, int q, int asymmetric, scaled *out)
{
    int lz = __builtin_clzll(c);
    uint64_t cn = c << lz;
    int qn = q - lz;
    /* floor(log10(2^k)) for the value's top bit k: 10^e0 <= v. */
    int k = qn + 63;
    int e = (int)(((int64_t)k * 78913) >> 18);
    const u128 lo17 = (u128)k_pow10_u64[16] << 64, hi17 = (u128)k_pow10_u64[17] << 64;
    u128 s = mul_pow10(cn, qn, 16 - e);
    if (s >= hi17) {
        e++;
        s = mul_pow10(cn, qn, 16 - e);
    }
    /* 10^e <= v (e's estimate is exact for every binary exponent of a
     * double), so below 10^16 is v exactly a power of ten, cut. */
    if (s < lo17)
        s = lo17;
    if (s + SCALE_ERROR > hi17) {
        /* Too near 10^(e + 1) to tell e, unless v is that power of ten. */
        if (q < 0 || q > 64 || e + 1 > 38 || ((u128)c << q) != pow5(e + 1) << (e + 1))
            return -1;
        e++;
        s = lo17;
    }
    out->s = s;
    out->e = e;
    out->c = c;
    out->q = q;
    out->asymmetric = asymmetric;
    out->h_hi = pow2_pow10(q - 1, 16 - e);
    out->h_lo = asymmetric ? pow2_pow10(q - 2, 16 - e) : out->h_hi;
    return 0;
}

/* v rounded to p significant digits: *d (10^p when it carries, as 9.96
 * to 2 digits), its distance to v (*dist) and side (*above). Returns 0, or
 * -1 when v is too close to a half to call. */
static int round_at(const scaled *sc, int p, uint64_t *d, u128 *dist, int *above)
{
    uint64_t div = k_pow10_u64[17 - p];
    uint64_t whole = (uint64_t)(sc->s >> 64);
    uint64_t q = whole / div, r = whole % div;
    u128 rem = (u128)r << 64 | (uint64_t)sc->s;
    u128 unit = (u128)div << 64, half = unit >> 1;
    u128 gap = rem > half ? rem - half : half - rem;
    if (gap <= ROUND_MARGIN)
        return -1;
    *above = rem > half;
    *d = *above ? q + 1 : q;
    *dist = *above ? unit - rem : rem;
    return 0;
}

static int bits128(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64);
    return hi ? 128 - __builtin_clzll(hi) : x ? 64 - __builtin_clzll((uint64_t)x) : 0;
}

/* Most bits of the exact quantities (2 * a remainder must fit). */
#define EXACT_BITS 126

/* Exactly what round_at and reads_back tell approximately, every quantity
 * times 2^k2 5^k5 to be an integer below 2^EXACT_BITS: v's p-digit rounding
 * (*d; an exact half goes to the even digit, as printf rounds) and whether
 * it reads back (a text exactly half way between two doubles reads back to
 * the one whose c is even). The values near a rounding boundary are mostly
 * short in binary (integers, fractions of few bits), and fit. Returns 1 or
 * 0, or -1 when a quantity would not fit. */
static int exact_at(const scaled *sc, int p, uint64_t *d)
{
    int a = sc->e + 1 - p; /* the digit's unit is 10^a */
    int k5 = a < 0 ? -a : 0;
    int k2 = 2 - sc->q;
    if (k2 < -a)
        k2 = -a;
    if (k2 < 0)
        k2 = 0;
    int v2 = sc->q + k2, u2 = a + k2, u5 = a + k5; /* all >= 0 */
    if (k5 > 55 || u5 > 55 || u2 > EXACT_BITS || v2 > EXACT_BITS)
        return -1;
    u128 f5 = pow5(k5), u5p = pow5(u5);
    if (64 - __builtin_clzll(sc->c) + v2 + bits128(f5) > EXACT_BITS ||
        bits128(u5p) + u2 > EXACT_BITS)
        return -1;
    u128 v = ((u128)sc->c << v2) * f5;
    u128 unit = u5p << u2;
    u128 h_hi = f5 << (v2 - 1);
    u128 h_lo = sc->asymmetric ? h_hi >> 1 : h_hi;
    u128 q = v / unit, r = v % unit;
    int up = 2 * r > unit || (2 * r == unit && (q & 1));
    u128 dist = up ? unit - r : r, bound = up ? h_hi : h_lo;
    *d = (uint64_t)q + (uint64_t)up;
    return dist < bound || (dist == bound && !(sc->c & 1));
}

/* Whether v's p-digit rounding reads back to v: 1 yes, 0 no, -1 too close
 * to call. */
static int reads_back(const scaled *sc, int p)
{
    uint64_t d;
    u128 dist;
    int above;
    if (round_at(sc, p, &d, &dist, &above) != 0) {
        /* At (or near) a half, as 0.125 to 2 digits: both neighbours are
         * half a digit away, which is too far unless the gap between
         * doubles is wider than a digit. */
        u128 half = (u128)k_pow10_u64[17 - p] << 63;
        u128 widest = sc->h_hi > sc->h_lo ? sc->h_hi : sc->h_lo;
        return half > widest + ROUND_MARGIN + RANGE_MARGIN ? 0 : -1;
    }
    u128 bound = above ? sc->h_hi : sc->h_lo;
    u128 diff = dist > bound ? dist - bound : bound - dist;
    if (diff <= RANGE_MARGIN)
        return -1;
    return dist < bound;
}

/* The reference's binary search, on the scaled value. */
static int shortest(uint64_t c, int q, int asymmetric, int max_p, uint64_t *digits, int *exp10)
{
    scaled sc;
    pthread_once(&g_pow10_once, make_pow10);
    if (scale(c, q, asymmetric, &sc) != 0)
        return -1;
    int lo = 1, hi = max_p;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        uint64_t d;
        int ok = reads_back(&sc, mid);
        if (ok < 0 && (ok = exact_at(&sc, mid, &d)) < 0)
            return -1;
        if (ok)
            hi = mid;
        else
            lo = mid + 1;
    }
    uint64_t d;
    u128 dist;
    int above;
    if (round_at(&sc, lo, &d, &dist, &above) != 0 && exact_at(&sc, lo, &d) < 0)
        return -1;
    int e = sc.e;
    if (d == k_pow10_u64[lo]) {
        d = 1;
        e++;
    }
    while (d % 10 == 0)
        d /= 10;
    *digits = d;
    *exp10 = e + 1;
    return 0;
}

int ct_shortest_double(double v, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t m = bits & ((1ull << 52) - 1);
    int be = (int)(bits >> 52 & 0x7ff);
    if (be == 0x7ff || (be == 0 && m == 0))
        return -1;
    if (be == 0)
        return shortest(m, -1074, 0, 17, digits, exp10);
    return shortest(m | 1ull << 52, be - 1075, m == 0 && be > 1, 17, digits, exp10);
}

int ct_shortest_float(float v, uint64_t *digits, int *exp10)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t m = bits & ((1u << 23) - 1);
    int be = (int)(bits >> 23 & 0xff);
    if (be == 0xff || (be == 0 && m == 0))
        return -1;
    if (be == 0)
        return shortest(m, -149, 0, 9, digits, exp10);
    return shortest(m | 1u << 23, be - 150, m == 0 && be > 1, 9, digits, exp10);
}

static size_t general(double v, uint64_t d, int exp10, int max_int_digits, char *out, size_t cap)
{
    char digits[24];
    size_t nd = ct_put_dec(digits, d);
    return layout(v < 0, digits, nd, exp10, max_int_digits, out, cap);
}

/* Decimal places short_decimal tries (most values a program passes have
 * few), and the bound of their digits as an integer: 10^15, so at most 15
 * digits (DBL_DIG), which no other decimal of 15 digits or fewer reads back
 * to the same double. */
#define SHORT_PLACES 6
#define SHORT_DIGITS_BELOW 1e15

/* v's shortest digits when v reads back from m / 10^k, m an integer below
 * SHORT_DIGITS_BELOW and k at most SHORT_PLACES, found by trying each k:
 * then the reference's search ends at m's digits (no shorter decimal reads
 * back, and at m's precision the correctly rounded digits are m's, v being
 * within half an ulp of it). a * 10^k is within 0.25 of m (two roundings of
 * 2^-53 on a value below 10^15), and the division is correctly rounded, so
 * the check is exact. Returns 0, or -1 when there is no such m. */
static int short_decimal(double v, uint64_t *digits, int *exp10)
{
    static const double p10[SHORT_PLACES + 1] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    double a = fabs(v);
    for (int k = 1; k <= SHORT_PLACES; k++) {
        double x = a * p10[k];
        if (!(x < SHORT_DIGITS_BELOW))
            return -1;
        double m = nearbyint(x);
        if (m == 0 || m / p10[k] != a)
            continue;
        /* No trailing zero: m / 10 would have read back at k - 1 (at 0, v
         * is a whole number, which ct_format_double writes before). */
        char tmp[CT_DEC_MAX];
        *digits = (uint64_t)m;
        *exp10 = (int)ct_put_dec(tmp, *digits) - k;
        return 0;
    }
    return -1;
}

size_t ct_format_double(double v, char *out, size_t cap)
{
    size_t n = special(v, out, cap);
    if (n)
        return n;
    if (fabs(v) < 1e15 && v == (double)(int64_t)v)
        return integer(v, out, cap);
    uint64_t d;
    int exp10;
    if (short_decimal(v, &d, &exp10) == 0 || ct_shortest_double(v, &d, &exp10) == 0)
        return general(v, d, exp10, 17, out, cap);
    return general_ref(v, out, cap);
}

size_t ct_format_float(float v, char *out, size_t cap)
{
    size_t n = special(v, out, cap);
    if (n)
        return n;
    if (fabsf(v) < 1e7f && v == (float)(int32_t)v)
        return integer(v, out, cap);
    uint64_t d;
    int exp10;
    if (ct_shortest_float(v, &d, &exp10) == 0)
        return general(v, d, exp10, 9, out, cap);
    return general_ref_float(v, out, cap);
}
