/* Lines for the user that cannot always go to stderr: under attach the
 * process's stderr is its own, so the profiler keeps them for the CLI,
 * which prints them after its detach line. One ct_notes per source of
 * lines (the conditions' binding, the trace writer); thread-safe. */
#ifndef CLRTRACE_RUNTIME_NOTES_H
#define CLRTRACE_RUNTIME_NOTES_H

#include <pthread.h>
#include <stddef.h>

/* Bytes of lines kept (the later ones are dropped). */
#define CT_NOTES_BYTES 2048

typedef struct ct_notes {
    pthread_mutex_t lock;
    int kept;                 /* 1: kept for the CLI; 0: to stderr */
    size_t len;
    char text[CT_NOTES_BYTES];
} ct_notes;

#define CT_NOTES_INIT {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}}

/* From now on, lines are kept (keep 1) or go to stderr (0); the lines kept
 * so far are forgotten. */
void ct_notes_keep(ct_notes *n, int keep);

/* One line (printf-style, no line break): "clrtrace: LINE" on stderr, or
 * kept. */
void ct_notes_say(ct_notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The lines kept, one a line, into out (NUL-ended). */
void ct_notes_copy(ct_notes *n, char *out, size_t cap);

#endif
