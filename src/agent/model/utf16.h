/* UTF-16 (the runtime's WCHAR strings) to UTF-8. */
#ifndef CLRTRACE_UTF16_H
#define CLRTRACE_UTF16_H

#include <stddef.h>

#include "agent/runtime/corprof_decls.h"

/* Converts in[0..n) (stopping early at a NUL) into out[0..cap), always
 * NUL-terminated when cap > 0, never splitting a UTF-8 sequence. Unpaired
 * surrogates become U+FFFD. Returns the bytes written, without the NUL. */
size_t ct_utf16_to_utf8(const WCHAR *in, size_t n, char *out, size_t cap);

/* Converts NUL-terminated UTF-8 into out[0..cap) UTF-16 code units, NUL
 * included. Returns the units written without the NUL, or -1 when the text
 * is not valid UTF-8 or does not fit. */
long ct_utf8_to_utf16(const char *in, WCHAR *out, size_t cap);

#endif
