/* The element names of C# tuples, from a TupleElementNamesAttribute blob
 * (the attribute C# puts on a parameter, or the return value's Param row,
 * whose type holds a named tuple). The names are a string[] listed in a
 * pre-order, depth-first walk of the type: each System.ValueTuple met
 * takes as many as it has elements (a long tuple's ValueTuple`8 all of
 * them, then its TRest again its own); a null string is an element without
 * a name. Pure decoding: no runtime, no metadata (plans/tuples.c applies
 * the names to a type). */
#ifndef CLRTRACE_TUPLENAMES_H
#define CLRTRACE_TUPLENAMES_H

#include <stddef.h>
#include <stdint.h>

/* Most names one attribute may give (a tuple of 16 elements takes 27:
 * 16, then 9 for its first TRest, then 2); past it, none is used. */
#define CT_TUPLE_NAMES_MAX 64
/* Longest name kept, in UTF-8 bytes with its NUL; a longer one makes the
 * whole attribute unused. */
#define CT_TUPLE_NAME_MAX 128

typedef struct ct_tuple_names {
    uint32_t count;                                /* names listed */
    uint8_t named[CT_TUPLE_NAMES_MAX];             /* 0: a null (no name) */
    char text[CT_TUPLE_NAMES_MAX][CT_TUPLE_NAME_MAX];
} ct_tuple_names;

/* Decodes blob[0..len): prolog 01 00, the string[] (u32 count, each string
 * a SerString: 0xFF for null, else its compressed length and UTF-8 bytes),
 * then the named-argument count. Returns 0 with *out filled; -1 when the
 * blob is malformed, the array is null, holds more than CT_TUPLE_NAMES_MAX
 * names, or a name is empty, too long or holds a control character or a
 * character that would end a value's text (",=(){}<>" or a space). */
int ct_tuple_names_parse(const uint8_t *blob, size_t len, ct_tuple_names *out);

/* Name i, or NULL for an element without a name (or i past the names). */
static inline const char *ct_tuple_name(const ct_tuple_names *n, uint32_t i)
{
    return i < n->count && n->named[i] ? n->text[i] : NULL;
}

/* 1 when some name is not null. */
int ct_tuple_names_any(const ct_tuple_names *n);

#endif
