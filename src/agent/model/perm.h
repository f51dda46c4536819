/* Permanent memory: records, plans and names built once at map time and
 * read by the hooks until the process ends. Never freed. Thread-safe. */
#ifndef CLRTRACE_PERM_H
#define CLRTRACE_PERM_H

#include <stddef.h>

/* n zeroed bytes, 16-byte aligned, or NULL when out of memory. */
void *ct_perm_alloc(size_t n);

/* A permanent copy of s, or NULL when out of memory. */
char *ct_perm_strdup(const char *s);

#endif
