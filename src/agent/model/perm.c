#include "perm.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Chunks are carved front to back; a request larger than a quarter chunk
 * gets its own allocation so the tail of the current chunk is not wasted. */
#define PERM_CHUNK_BYTES (256 * 1024)
#define PERM_ALIGN 16

static pthread_mutex_t g_perm_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_chunk;
static size_t g_used = PERM_CHUNK_BYTES;

void *ct_perm_alloc(size_t n)
{
    n = (n + PERM_ALIGN - 1) & ~(size_t)(PERM_ALIGN - 1);
    if (n == 0)
        n = PERM_ALIGN;
    if (n > PERM_CHUNK_BYTES / 4)
        return calloc(1, n);
    pthread_mutex_lock(&g_perm_lock);
    if (g_used + n > PERM_CHUNK_BYTES) {
        uint8_t *c = calloc(1, PERM_CHUNK_BYTES);
        if (!c) {
            pthread_mutex_unlock(&g_perm_lock);
            return NULL;
        }
        g_chunk = c;
        g_used = 0;
    }
    void *p = g_chunk + g_used;
    g_used += n;
    pthread_mutex_unlock(&g_perm_lock);
    return p;
}

char *ct_perm_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = ct_perm_alloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}
