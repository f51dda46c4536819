/* The trace output: one file (or stderr), written line by line.
 *
 * Lines are handed over whole, so lines from different threads never mix.
 * The file is never closed: late callbacks may still write after Shutdown,
 * so Shutdown only flushes (and so does process exit). */
#ifndef CLRTRACE_OUT_H
#define CLRTRACE_OUT_H

#include <stddef.h>

/* Opens path for writing (truncating), or uses stderr when path is NULL.
 * On failure returns -1 and leaves the reason (strerror text) in why. */
int ct_out_open(const char *path, char *why, size_t why_cap);

/* Writes len bytes (one or more complete lines). */
void ct_out_write(const char *text, size_t len);

/* printf-style convenience for the rare, non-hot lines. */
void ct_out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void ct_out_flush(void);

#endif
