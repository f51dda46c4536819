/* A bounded text buffer that keeps counting past its end: what every text
 * writer of the project appends to (value text, the log, JSON). */
#ifndef CLRTRACE_BASE_TEXT_H
#define CLRTRACE_BASE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ct_text {
    char *p;
    size_t cap;
    size_t len;           /* full length, may exceed cap - 1 (then cut) */
} ct_text;

/* Runs up to this many bytes that fit are put inline (ct_text_putn), the
 * rest by a call. */
#define CT_TEXT_INLINE_MAX 16

/* The put functions do nothing when t is NULL. */
void ct_text_init(ct_text *t, char *buf, size_t cap);
/* ct_text_putn's own call: any run, cut where the buffer ends. */
void ct_text_putn_any(ct_text *t, const char *s, size_t n);

/* Runs up to this many bytes are copied by ct_copy_small's loads and
 * stores, longer ones by memcpy. */
#define CT_COPY_SMALL_MAX 32
/* ct_copy_ends is inlined even when the compiler would rather call it (it
 * then called ct_copy_small too, and the writer took 9 ns a call more): a
 * call costs more than its copy. */
#define CT_COPY_INLINE static inline __attribute__((always_inline))

/* ct_copy_small's step: w bytes (16, 8 or 4) at the start of s[0..n) and w
 * at its end, n >= w, which overlap when n < 2w; w known when compiling,
 * each copy is one load and one store. */
CT_COPY_INLINE void ct_copy_ends(char *d, const char *s, size_t n, size_t w)
{
    char a[CT_COPY_SMALL_MAX / 2], b[CT_COPY_SMALL_MAX / 2];
    memcpy(a, s, w);
    memcpy(b, s + n - w, w);
    memcpy(d, a, w);
    memcpy(d + n - w, b, w);
}

/* n bytes from s to d: the short runs most text is made of (names, "=",
 * ", ", digits, the line prefix's fields) by a load and a store or two,
 * without calling memcpy (whose call and size dispatch cost more than the
 * copy of a few bytes whose count is known only when running). */
static inline void ct_copy_small(char *d, const char *s, size_t n)
{
    if (n > CT_COPY_SMALL_MAX) {
        memcpy(d, s, n);
    } else if (n >= 16) {
        ct_copy_ends(d, s, n, 16);
    } else if (n >= 8) {
        ct_copy_ends(d, s, n, 8);
    } else if (n >= 4) {
        ct_copy_ends(d, s, n, 4);
    } else {
        if (n)
            d[0] = s[0];
        if (n > 1)
            d[1] = s[1];
        if (n > 2)
            d[2] = s[2];
    }
}

/* Inline: the writer thread puts a dozen short runs a line, and a call
 * each was its top entry (5 % of the process, text log). */
static inline void ct_text_putn(ct_text *t, const char *s, size_t n)
{
    if (t && n <= CT_TEXT_INLINE_MAX && t->len + n < t->cap) {
        ct_copy_small(t->p + t->len, s, n);
        t->len += n;
        t->p[t->len] = '\0';
        return;
    }
    ct_text_putn_any(t, s, n);
}
/* Inline: the length of a literal (most calls) is known when compiling. */
static inline void ct_text_put(ct_text *t, const char *s)
{
    if (t)
        ct_text_putn(t, s, strlen(s));
}
void ct_text_printf(ct_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends text that did not fit with "..." (cut on a UTF-8 boundary) and
 * returns its length in t->p (t->len is set to it); text that fit is left
 * as it is. */
size_t ct_text_end(ct_text *t);

/* Most decimal digits of a uint64_t. */
#define CT_DEC_MAX 20
/* The decimal digits of v into b[0..CT_DEC_MAX) (no NUL); returns their
 * count. Two digits a step, without printf: the text log writes a number
 * or more a line. */
size_t ct_put_dec(char *b, uint64_t v);

/* The value of hexadecimal digit c (either case), or -1. */
int ct_hex_digit(int c);

#endif
