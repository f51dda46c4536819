/* A bounded text buffer that keeps counting past its end: what every text
 * writer of the project appends to (value text, the log, JSON). */
#ifndef CLRTRACE_BASE_TEXT_H
#define CLRTRACE_BASE_TEXT_H

#include <stddef.h>
#include <string.h>

typedef struct ct_text {
    char *p;
    size_t cap;
    size_t len;           /* full length, may exceed cap - 1 (then cut) */
} ct_text;

/* The put functions do nothing when t is NULL. */
void ct_text_init(ct_text *t, char *buf, size_t cap);
void ct_text_putn(ct_text *t, const char *s, size_t n);
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

/* The value of hexadecimal digit c (either case), or -1. */
int ct_hex_digit(int c);

#endif
