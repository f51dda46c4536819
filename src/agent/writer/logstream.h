/* The text log's stream: a file (created mode 0600) or a copy of stderr,
 * written by the writer thread only (or, in the bench-only naive mode, by
 * the hooks under the writer's lock). Every write(2) holds whole lines; on a
 * stream that is not a regular file (stderr, a pipe, a terminal, which the
 * program's traced children may write to as well) at most PIPE_BUF bytes,
 * so the lines of different processes never mix.
 *
 * The stream is never closed: Shutdown and process exit only flush it. */
#ifndef CLRTRACE_OUT_H
#define CLRTRACE_OUT_H

#include <stddef.h>

/* Takes fd (opened by the caller, outputs.h) as the log's stream; name is
 * for messages. unbuffered: one write per call (the naive mode). Returns 0. */
int ct_out_open(int fd, const char *name, int unbuffered);

/* 0 once a write has failed (reported on stderr once): the log is over. */
int ct_out_ok(void);

/* Writes len bytes (one or more complete lines). */
void ct_out_write(const char *text, size_t len);

/* printf-style convenience for the rare, non-hot lines. */
void ct_out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void ct_out_flush(void);

#endif
