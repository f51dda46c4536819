/* An open-addressing hash table from u64 keys to non-NULL pointers (function
 * keys, class ids, thread ids): used by the renderer, the symbol table and
 * the CLI's call-stack walk. The caller owns the values. */
#ifndef CLRTRACE_TRACE_TABLE_H
#define CLRTRACE_TRACE_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* Initial slots (a power of two); the table doubles at half load. */
#define CT_TABLE_INITIAL 64

typedef struct ct_table_slot {
    uint64_t key;
    void *value; /* NULL: empty */
} ct_table_slot;

typedef struct ct_table {
    ct_table_slot *slots;
    size_t cap, used;
} ct_table;

/* The value of key, or NULL. */
void *ct_table_get(const ct_table *t, uint64_t key);
/* Sets key's value (non-NULL), replacing any; -1 when out of memory. */
int ct_table_put(ct_table *t, uint64_t key, void *value);
/* Frees the slots (not the values). */
void ct_table_free(ct_table *t);

#endif
