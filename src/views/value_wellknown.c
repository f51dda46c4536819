/* The well-known CoreLib structs as a person reads them (value.h kinds
 * CT_V_DATETIME .. CT_V_U16, DTOFFSET, RUNE, DATEONLY, TIMEONLY), from their
 * raw bytes:
 *   DateTime  ISO 8601 with seven fraction digits, as .NET's "o" format:
 *             2024-05-06T07:08:09.1234567Z (Utc), no suffix (Unspecified);
 *             a Local value reads "... (local)": the process's offset is
 *             not in the trace
 *   TimeSpan  .NET's "c" format: [-][d.]hh:mm:ss[.fffffff]
 *   Guid      .NET's "D" format, lowercase: 0f8fad5b-d9cb-469f-a165-70867728950e
 *   Half      the shortest text that reads back as the same Half
 *   Int128, UInt128   decimal
 *   DateTimeOffset  .NET's "o" format with the offset:
 *             2024-05-06T09:08:09.1234567+02:00 (the clock time at the offset)
 *   Rune      as a char: 'x', '\u0007'; U+1F600 as its character
 *   DateOnly  ISO 8601 date, as .NET's "o" format: 2024-02-29
 *   TimeOnly  ISO 8601 time: HH:mm:ss, then the fraction of a second with
 *             its trailing zeros dropped when it is not 0: 13:45:30,
 *             13:45:30.1234567, 13:45:30.5 (.NET's "o" format always writes
 *             seven digits; its default text depends on the culture)
 *   Index     as .NET's Index.ToString: 3, ^1 (from the end)
 * The facts: DateTime's _dateData holds the ticks (100 ns since
 * 0001-01-01T00:00:00) in its low 62 bits and the kind (0 Unspecified, 1 Utc,
 * 2 Local, 3 Local in a DST overlap) in its top two; Guid's fields are
 * _a (u32), _b, _c (u16), _d.._k (bytes); Int128 keeps _lower then _upper;
 * DateTimeOffset keeps the UTC time as a DateTime (_dateTime, kind
 * Unspecified) then the offset in minutes (_offsetMinutes, i16); Rune its
 * scalar value (_value, u32); DateOnly the days since 0001-01-01
 * (_dayNumber, u32 or i32 by runtime version, at most DATEONLY_MAX_DAY);
 * TimeOnly the ticks since midnight (_ticks, u64, less than a day's); Index
 * its position (_value, i32), the complement ~n of n for ^n. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value_wellknown.h"
#include "base/bytes.h"
#include "value_text.h"

/* Ticks per day, and the largest valid DateTime (9999-12-31T23:59:59.9999999). */
#define TICKS_PER_DAY 864000000000ull
#define DATETIME_MAX_TICKS 3155378975999999999ull

/* Proleptic Gregorian date of `days` since 0001-01-01. */
static void civil(uint64_t days, unsigned *y, unsigned *m, unsigned *d)
{
    /* Days since 0000-03-01 in 400-year eras (146097 days each). */
    uint64_t z = days + 306;
    uint64_t era = z / 146097, doe = z % 146097;
    uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    uint64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = (unsigned)(era * 400 + yoe + (*m <= 2));
}

/* ticks as ISO 8601 date and time, then suffix. */
static void put_ticks(uint64_t ticks, const char *suffix, ct_text *t)
{
    unsigned y, mo, d;
    civil(ticks / TICKS_PER_DAY, &y, &mo, &d);
    uint64_t in_day = ticks % TICKS_PER_DAY, sec = in_day / 10000000u;
    ct_text_printf(t, "%04u-%02u-%02uT%02u:%02u:%02u.%07u%s", y, mo, d, (unsigned)(sec / 3600),
                   (unsigned)(sec / 60 % 60), (unsigned)(sec % 60),
                   (unsigned)(in_day % 10000000u), suffix);
}

static void put_datetime(const uint8_t *b, ct_text *t)
{
    uint64_t data = ct_get_le64(b), ticks = data & 0x3FFFFFFFFFFFFFFFull;
    unsigned kind = (unsigned)(data >> 62);
    if (ticks > DATETIME_MAX_TICKS) {
        ct_text_printf(t, "<DateTime ticks=%llu>", (unsigned long long)ticks);
        return;
    }
    put_ticks(ticks, kind == 1 ? "Z" : kind >= 2 ? " (local)" : "", t);
}

/* DateTimeOffset: its offset is at most 14 hours either way. */
#define DTO_MAX_OFFSET_MINUTES 840
#define TICKS_PER_MINUTE 600000000ll

static void put_dtoffset(const uint8_t *b, ct_text *t)
{
    uint64_t utc = ct_get_le64(b) & 0x3FFFFFFFFFFFFFFFull;
    int16_t off;
    memcpy(&off, b + 8, 2);
    int64_t local = (int64_t)utc + off * TICKS_PER_MINUTE;
    if (utc > DATETIME_MAX_TICKS || off > DTO_MAX_OFFSET_MINUTES ||
        off < -DTO_MAX_OFFSET_MINUTES || local < 0 || (uint64_t)local > DATETIME_MAX_TICKS) {
        ct_text_printf(t, "<DateTimeOffset ticks=%llu offset=%d>", (unsigned long long)utc, off);
        return;
    }
    unsigned a = (unsigned)(off < 0 ? -off : off);
    char suffix[16];
    snprintf(suffix, sizeof suffix, "%c%02u:%02u", off < 0 ? '-' : '+', a / 60, a % 60);
    put_ticks((uint64_t)local, suffix, t);
}

/* The largest valid DateOnly (9999-12-31) and TimeOnly (23:59:59.9999999). */
#define DATEONLY_MAX_DAY 3652058
#define TIMEONLY_MAX_TICKS (TICKS_PER_DAY - 1)

static void put_dateonly(const uint8_t *b, ct_text *t)
{
    uint32_t day;
    memcpy(&day, b, 4);
    if (day > DATEONLY_MAX_DAY) {
        ct_text_printf(t, "<DateOnly day=%u>", day);
        return;
    }
    unsigned y, mo, d;
    civil((uint64_t)day, &y, &mo, &d);
    ct_text_printf(t, "%04u-%02u-%02u", y, mo, d);
}

static void put_timeonly(const uint8_t *b, ct_text *t)
{
    uint64_t ticks = ct_get_le64(b);
    if (ticks > TIMEONLY_MAX_TICKS) {
        ct_text_printf(t, "<TimeOnly ticks=%llu>", (unsigned long long)ticks);
        return;
    }
    uint64_t sec = ticks / 10000000u;
    unsigned frac = (unsigned)(ticks % 10000000u);
    ct_text_printf(t, "%02u:%02u:%02u", (unsigned)(sec / 3600), (unsigned)(sec / 60 % 60),
                   (unsigned)(sec % 60));
    if (!frac)
        return;
    char f[8];
    snprintf(f, sizeof f, "%07u", frac);
    size_t n = 7;
    while (f[n - 1] == '0')
        n--;
    ct_text_put(t, ".");
    ct_text_putn(t, f, n);
}

static void put_index(const uint8_t *b, ct_text *t)
{
    int32_t v;
    memcpy(&v, b, 4);
    if (v < 0)
        ct_text_printf(t, "^%u", (unsigned)~v);
    else
        ct_text_printf(t, "%u", (unsigned)v);
}

static void put_timespan(const uint8_t *b, ct_text *t)
{
    int64_t ticks = (int64_t)ct_get_le64(b);
    /* The magnitude without overflow at INT64_MIN. */
    uint64_t a = ticks < 0 ? 0 - (uint64_t)ticks : (uint64_t)ticks;
    uint64_t days = a / TICKS_PER_DAY, in_day = a % TICKS_PER_DAY, sec = in_day / 10000000u;
    unsigned frac = (unsigned)(in_day % 10000000u);
    if (ticks < 0)
        ct_text_put(t, "-");
    if (days)
        ct_text_printf(t, "%llu.", (unsigned long long)days);
    ct_text_printf(t, "%02u:%02u:%02u", (unsigned)(sec / 3600), (unsigned)(sec / 60 % 60),
                   (unsigned)(sec % 60));
    if (frac)
        ct_text_printf(t, ".%07u", frac);
}

static void put_guid(const uint8_t *b, ct_text *t)
{
    uint32_t a;
    uint16_t b16, c16;
    memcpy(&a, b, 4);
    memcpy(&b16, b + 4, 2);
    memcpy(&c16, b + 6, 2);
    ct_text_printf(t, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", a, b16, c16, b[8], b[9],
                   b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* binary16 -> double, exactly. */
static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1F;
    unsigned man = h & 0x3FF;
    double v;
    if (exp == 0)
        v = (double)man / 1024.0 / 16384.0; /* subnormal: man * 2^-24 */
    else if (exp == 31)
        v = man ? (double)NAN : (double)INFINITY;
    else
        v = (1.0 + man / 1024.0) * (double)(1u << exp) / 32768.0; /* 2^(exp-15) */
    return sign ? -v : v;
}

/* double -> binary16, rounding to nearest even (as .NET's (Half) cast). */
static uint16_t double_to_half(double v)
{
    uint16_t best = 0;
    double bestd = -1;
    /* 65536 candidates would do; the two neighbours of a scaled search are
     * enough: find the nearest finite halves by bisection on the ordered
     * magnitudes. */
    uint16_t sign = v < 0 ? 0x8000 : 0;
    double a = v < 0 ? -v : v;
    uint16_t lo = 0, hi = 0x7BFF; /* 0 .. 65504 */
    if (a >= half_to_double(hi))
        return (uint16_t)(sign | (a > 65520.0 ? 0x7C00 : 0x7BFF));
    while (hi - lo > 1) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if (half_to_double(mid) <= a)
            lo = mid;
        else
            hi = mid;
    }
    for (uint16_t c = lo; c <= hi; c++) {
        double d = a - half_to_double(c);
        d = d < 0 ? -d : d;
        if (bestd < 0 || d < bestd || (d == bestd && !(c & 1))) {
            best = c;
            bestd = d;
        }
    }
    return (uint16_t)(sign | best);
}

static void put_half(const uint8_t *b, ct_text *t)
{
    uint16_t h;
    memcpy(&h, b, 2);
    double v = half_to_double(h);
    char s[64];
    if ((h & 0x7C00) == 0x7C00 || v == 0) {
        ct_format_double(v, s, sizeof s);
        ct_text_put(t, s);
        return;
    }
    /* The fewest significant digits that read back as the same Half, then
     * written as a double of that value would be (C#-style exponents). */
    for (int p = 1; p <= 5; p++) {
        char e[32];
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        double back = strtod(e, NULL);
        if (double_to_half(back) == h) {
            ct_format_double(back, s, sizeof s);
            ct_text_put(t, s);
            return;
        }
    }
    ct_format_double(v, s, sizeof s);
    ct_text_put(t, s);
}

static void put_u128(unsigned __int128 v, ct_text *t)
{
    char d[48];
    size_t n = 0;
    do {
        d[n++] = (char)('0' + (unsigned)(v % 10));
        v /= 10;
    } while (v);
    while (n)
        ct_text_putn(t, &d[--n], 1);
}

static void put_int128(const uint8_t *b, int is_signed, ct_text *t)
{
    unsigned __int128 v = (unsigned __int128)ct_get_le64(b + 8) << 64 | ct_get_le64(b);
    if (is_signed && (v >> 127)) {
        ct_text_put(t, "-");
        v = 0 - v;
    }
    put_u128(v, t);
}

void ct_wellknown_format(ct_vkind k, const uint8_t *b, ct_text *t)
{
    switch (k) {
    case CT_V_DATETIME: put_datetime(b, t); return;
    case CT_V_TIMESPAN: put_timespan(b, t); return;
    case CT_V_GUID: put_guid(b, t); return;
    case CT_V_HALF: put_half(b, t); return;
    case CT_V_I16: put_int128(b, 1, t); return;
    case CT_V_U16: put_int128(b, 0, t); return;
    case CT_V_DTOFFSET: put_dtoffset(b, t); return;
    case CT_V_DATEONLY: put_dateonly(b, t); return;
    case CT_V_TIMEONLY: put_timeonly(b, t); return;
    case CT_V_INDEX: put_index(b, t); return;
    default: return; /* RUNE: value_text.c writes it as a char */
    }
}

void ct_wellknown_ipv4(uint32_t addr, ct_text *t)
{
    ct_text_printf(t, "%u.%u.%u.%u", addr & 0xFF, addr >> 8 & 0xFF, addr >> 16 & 0xFF, addr >> 24);
}

/* Words w[from..to) with the first longest run (2 or more) of zeros as
 * "::" (.NET's AppendSections); returns whether the text ends with ':'. */
static int put_ipv6_words(const uint16_t *w, int from, int to, ct_text *t)
{
    int best = 0, best_at = -1, run = 0;
    for (int i = from; i < to; i++) {
        run = w[i] ? 0 : run + 1;
        if (run > best) {
            best = run;
            best_at = i - run + 1;
        }
    }
    if (best < 2)
        best_at = -1;
    int colon = 0, ends_colon = 0;
    for (int i = from; i < to; i++) {
        if (i == best_at) {
            ct_text_put(t, "::");
            colon = 0;
            ends_colon = 1;
            i += best - 1;
            continue;
        }
        if (colon)
            ct_text_put(t, ":");
        ct_text_printf(t, "%x", w[i]);
        colon = 1;
        ends_colon = 0;
    }
    return ends_colon;
}

void ct_wellknown_ipv6(const uint16_t w[8], uint32_t scope, ct_text *t)
{
    /* IPv4-compatible or -mapped (0:0:0:0:0:0 or ffff), SIIT (ffff:0), with
     * a non-zero seventh word; or ISATAP (0:5efe in words 4 and 5). */
    int v4 = (!w[0] && !w[1] && !w[2] && !w[3] && w[6] &&
              ((!w[4] && (!w[5] || w[5] == 0xFFFF)) || (w[4] == 0xFFFF && !w[5]))) ||
             (!w[4] && w[5] == 0x5EFE);
    if (v4) {
        if (!put_ipv6_words(w, 0, 6, t))
            ct_text_put(t, ":");
        ct_text_printf(t, "%u.%u.%u.%u", w[6] >> 8, w[6] & 0xFF, w[7] >> 8, w[7] & 0xFF);
    } else {
        put_ipv6_words(w, 0, 8, t);
    }
    if (scope)
        ct_text_printf(t, "%%%u", scope);
}

/* Task's private state bits (the runtime's Task.cs, stable since .NET 4). */
enum {
    TASK_STARTED = 0x10000,
    TASK_DELEGATE_INVOKED = 0x20000,
    TASK_FAULTED = 0x200000,
    TASK_CANCELED = 0x400000,
    TASK_WAITING_ON_CHILDREN = 0x800000,
    TASK_RAN_TO_COMPLETION = 0x1000000,
    TASK_WAITING_FOR_ACTIVATION = 0x2000000
};

const char *ct_wellknown_task_status(uint32_t f)
{
    if (f & TASK_FAULTED)
        return "Faulted";
    if (f & TASK_CANCELED)
        return "Canceled";
    if (f & TASK_RAN_TO_COMPLETION)
        return "RanToCompletion";
    if (f & TASK_WAITING_ON_CHILDREN)
        return "WaitingForChildrenToComplete";
    if (f & TASK_DELEGATE_INVOKED)
        return "Running";
    if (f & TASK_STARTED)
        return "WaitingToRun";
    if (f & TASK_WAITING_FOR_ACTIVATION)
        return "WaitingForActivation";
    return "Created";
}

int ct_wellknown_task_done(uint32_t f)
{
    return !(f & (TASK_FAULTED | TASK_CANCELED)) && (f & TASK_RAN_TO_COMPLETION);
}

int ct_wellknown_task_failed(uint32_t f)
{
    return (f & (TASK_FAULTED | TASK_CANCELED)) != 0;
}

void ct_wellknown_codepage(int32_t cp, ct_text *t)
{
    static const struct {
        int32_t code_page;
        const char *name;
    } names[] = {
        {65001, "utf-8"},      {1200, "utf-16"},    {1201, "utf-16BE"},
        {12000, "utf-32"},     {12001, "utf-32BE"}, {20127, "us-ascii"},
        {28591, "iso-8859-1"}, {65000, "utf-7"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code_page == cp) {
            ct_text_put(t, names[i].name);
            return;
        }
    ct_text_printf(t, "codepage %d", cp);
}

void ct_exc_msg_units(ct_exc_msg *b, const uint8_t *units, uint32_t n, int64_t length)
{
    if (b->unknown)
        return;
    b->length += length;
    for (uint32_t i = 0; i < n && !b->cut; i++) {
        if (b->n == b->cap) {
            b->cut = 1;
            break;
        }
        memcpy(b->units + 2 * b->n++, units + 2 * i, 2);
    }
    if ((int64_t)n < length)
        b->cut = 1;
}

void ct_exc_msg_ascii(ct_exc_msg *b, const char *s)
{
    for (; *s; s++) {
        uint8_t u[2] = { (uint8_t)(*s & 0x7f), 0 };
        ct_exc_msg_units(b, u, 1, 1);
    }
}

void ct_exc_msg_default(ct_exc_msg *b, const char *name)
{
    if (!name) {
        b->unknown = 1;
        return;
    }
    ct_exc_msg_ascii(b, "Exception of type '");
    ct_exc_msg_ascii(b, name);
    ct_exc_msg_ascii(b, "' was thrown.");
}
