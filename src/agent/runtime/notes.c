/* Lines kept for the CLI or said on stderr (notes.h). */
#include "notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ct_notes_keep(ct_notes *n, int keep)
{
    pthread_mutex_lock(&n->lock);
    n->kept = keep;
    n->len = 0;
    n->text[0] = '\0';
    pthread_mutex_unlock(&n->lock);
}

void ct_notes_say(ct_notes *n, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&n->lock);
    if (!n->kept) {
        pthread_mutex_unlock(&n->lock);
        fprintf(stderr, "clrtrace: %s\n", line);
        return;
    }
    size_t len = strlen(line);
    if (n->len + len + 2 < sizeof n->text) {
        memcpy(n->text + n->len, line, len);
        n->text[n->len + len] = '\n';
        n->len += len + 1;
        n->text[n->len] = '\0';
    }
    pthread_mutex_unlock(&n->lock);
}

void ct_notes_copy(ct_notes *n, char *out, size_t cap)
{
    if (!cap)
        return;
    pthread_mutex_lock(&n->lock);
    snprintf(out, cap, "%s", n->text);
    pthread_mutex_unlock(&n->lock);
}
