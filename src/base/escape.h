/* Text into JSON strings and XML (escape.c): the trace's names and values
 * are UTF-8 from the runtime, but a damaged or hand-made trace may hold any
 * bytes, and the output must stay valid regardless. */
#ifndef CLRTRACE_BASE_ESCAPE_H
#define CLRTRACE_BASE_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes s[0..n) as a JSON string, quotes included: '"' and '\' escaped,
 * control characters as \u00XX, each byte that is not part of valid UTF-8
 * as \ufffd. */
void ct_json_string(FILE *out, const char *s, size_t n);
/* Writes s[0..n) as XML text or attribute content: & < > " ' as entities;
 * invalid UTF-8 and characters XML 1.0 does not allow (control characters
 * other than tab, newline, carriage return; U+FFFE, U+FFFF) as U+FFFD. */
void ct_xml_text(FILE *out, const char *s, size_t n);
/* Bytes of the UTF-8 sequence at s[0..n): 1-4, or 0 when it is not valid
 * (overlong, a surrogate, past U+10FFFF, cut short); *cp gets the code
 * point. */
size_t ct_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

#endif
