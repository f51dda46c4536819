/*
 * A bounds-checked reader of bytes: the trace reader (event_read.c) reads
 * records with it, the value text (src/views/value_text.c) the captured
 * values. A read past the end takes nothing and marks the cursor bad; every
 * later read fails too, so a caller may read a whole structure and check
 * `bad` once.
 */
#ifndef CLRTRACE_CURSOR_H
#define CLRTRACE_CURSOR_H

#include <stddef.h>
#include <stdint.h>

/* Most bytes of one little-endian integer (ct_take_u). */
#define CT_CURSOR_MAX_INT 8

typedef struct ct_cursor {
    const uint8_t *p;  /* the bytes */
    size_t n, pos;     /* their count, and where the next read begins */
    int bad;           /* a read went past the end (or was refused) */
} ct_cursor;

/* The next k bytes (pos moves past them), or NULL (bad set) when fewer
 * are left or the cursor is bad. */
static inline const uint8_t *ct_take(ct_cursor *c, size_t k)
{
    if (c->bad || k > c->n - c->pos) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *p = c->p + c->pos;
    c->pos += k;
    return p;
}

/* The unsigned value of the k (at most CT_CURSOR_MAX_INT) little-endian
 * bytes at b. */
static inline uint64_t ct_le(const uint8_t *b, size_t k)
{
    uint64_t v = 0;
    for (size_t i = 0; i < k; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

/* The next k bytes as a little-endian unsigned integer; 0 (bad set) when
 * they are not there or k is above CT_CURSOR_MAX_INT. */
static inline uint64_t ct_take_u(ct_cursor *c, size_t k)
{
    if (k > CT_CURSOR_MAX_INT) {
        c->bad = 1;
        return 0;
    }
    const uint8_t *p = ct_take(c, k);
    return p ? ct_le(p, k) : 0;
}

#endif
