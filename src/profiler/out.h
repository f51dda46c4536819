/* The text log's stream: a file (created mode 0600) or a copy of stderr,
 * written by the writer thread only (or, in the bench-only naive mode, by
 * the hooks under the writer's lock).
 *
 * The stream is never closed: Shutdown and process exit only flush it. */
#ifndef CLRTRACE_OUT_H
#define CLRTRACE_OUT_H

#include <stddef.h>

/* Opens path for writing (truncating), or a copy of stderr when path is
 * NULL. unbuffered: one write(2) per call (the naive mode). On failure
 * returns -1 and leaves the reason (strerror text) in why. */
int ct_out_open(const char *path, int unbuffered, char *why, size_t why_cap);

/* Writes len bytes (one or more complete lines). */
void ct_out_write(const char *text, size_t len);

/* printf-style convenience for the rare, non-hot lines. */
void ct_out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void ct_out_flush(void);

#endif
