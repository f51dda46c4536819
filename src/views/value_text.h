/* Captured values back to text (value_text.c, numfmt.c): what the live log,
 * `clrtrace replay` and the exporters print for a value. */
#ifndef CLRTRACE_VIEWS_VALUE_TEXT_H
#define CLRTRACE_VIEWS_VALUE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "base/text.h"
#include "format/value.h"

/* A class id's name for display ("Demo.Shapes"), NUL-terminated, and its
 * length in *len, kept by the reader while values are formatted; NULL when
 * it has none. Handed out, not copied: the text log shows a name per
 * object. */
typedef const char *(*ct_class_name)(void *ctx, uint64_t class_id, size_t *len);

/* What the reader knows of the classes a value names: their names and the
 * plans of their content (a CLASS record's). Either function may be NULL. */
typedef struct ct_classes {
    ct_class_name name;
    const ct_plan *(*content)(void *ctx, uint64_t class_id);
    void *ctx;
} ct_classes;

/* Formats one captured value (raw[0..n)) as text: 1.5, "run", Safe,
 * {X=1, Y=2}, Demo.Shapes@0x7f3a2c01e8a0, Demo.Order{Id=5, Sku="x"},
 * int[3] {1, 2, 3}, List<int>(2) {1, 2}, null. classes may be NULL. Returns
 * the raw bytes consumed, or 0 when the record is damaged ("<damaged>" is
 * written). */
size_t ct_format_value(const ct_plan *p, const uint8_t *raw, size_t n, const ct_classes *classes,
                       ct_text *out);

/* Calls fn with the class id of every object in a captured value (the ids
 * a formatter will ask names for), in the order it meets them: a class is
 * reported before its content is read (with classes->content, which fn may
 * make known). Stops quietly at damaged bytes. */
void ct_value_classes(const ct_plan *p, const uint8_t *raw, size_t n, const ct_classes *classes,
                      void (*fn)(void *ctx, uint64_t class_id), void *ctx);

/* Shortest text that reads back to the same double / float ("1.5", "0.1",
 * "1E+300", "NaN", "-Infinity"), as .NET Core 3.0+ prints them, into
 * out[0..cap) (cut to cap - 1 bytes, as snprintf). Returns the text's
 * length (CT_NUM_TEXT_MAX at most: never cut with a cap above it). No
 * printf and no allocation, except when the fast path gives up (see
 * ct_shortest_double). */
#define CT_NUM_TEXT_MAX 32
size_t ct_format_double(double v, char *out, size_t cap);
size_t ct_format_float(float v, char *out, size_t cap);

/* The definition the two above follow, as it was first written: the
 * smallest precision (a binary search over 1..17 / 1..9) whose "%.*e" text
 * reads back (strtod / strtof) to the value. Slow (about 1-2 us); kept as
 * the fast path's fallback and the tests' reference. */
size_t ct_format_double_ref(double v, char *out, size_t cap);
size_t ct_format_float_ref(float v, char *out, size_t cap);

/* The fast path alone: the reference's search done with 128-bit integers
 * (the value scaled by a power of ten from a table made once, on first
 * use). v finite and nonzero. *digits: the significant digits as an
 * integer, no trailing zeros; *exp10: v = 0.d1d2... * 10^exp10. Returns 0,
 * or -1 when a rounding boundary lies within the arithmetic's error and
 * the exact check (integers scaled to fit 126 bits) cannot hold the value:
 * none among the tests' millions; the reference decides those. */
int ct_shortest_double(double v, uint64_t *digits, int *exp10);
int ct_shortest_float(float v, uint64_t *digits, int *exp10);

#endif
