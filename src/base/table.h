/* The project's hash table: open addressing (linear probing) from a key of
 * two u64 words to a non-NULL pointer, doubling at half load. One table
 * serves the renderer, the symbol table and the CLI (u64 keys: function
 * keys, class ids, thread ids; ct_table_get/put) and the profiler's model
 * and writer (two-word keys: {FunctionID, 0}, {module, token}, {class id,
 * style}; ct_table_get_key/put_key).
 *
 * Not thread-safe, and it needs not be: every user of the profiler guards
 * its table with its own lock (the registry, the modules, the plans, the
 * class names) or is one thread (the writer's classes seen); the views and
 * the CLI are single-threaded. No reader runs beside a writer, so the table
 * can grow by reallocation. Any key may be stored (an empty slot is one
 * with a NULL value); values are never NULL. Nothing is removed but all at
 * once (ct_table_free). The caller owns the values. */
#ifndef CLRTRACE_TRACE_TABLE_H
#define CLRTRACE_TRACE_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* Initial slots (a power of two); the table doubles at half load. */
#define CT_TABLE_INITIAL 64

typedef struct ct_key {
    uint64_t a, b;
} ct_key;

typedef struct ct_table_slot {
    ct_key key;
    void *value; /* NULL: empty */
} ct_table_slot;

typedef struct ct_table {
    ct_table_slot *slots;
    size_t cap, used;
} ct_table;

/* The value of key, or NULL. */
void *ct_table_get_key(const ct_table *t, ct_key key);
/* Sets key's value (non-NULL), replacing any; -1 when out of memory or
 * value is NULL (the table is unchanged). */
int ct_table_put_key(ct_table *t, ct_key key, void *value);
/* Calls fn for every entry, in no particular order. */
void ct_table_each(const ct_table *t, void (*fn)(void *ctx, ct_key key, void *value), void *ctx);
/* Frees the slots (not the values): the table is empty. */
void ct_table_free(ct_table *t);

/* The same with a u64 key (the key {key, 0}). */
static inline void *ct_table_get(const ct_table *t, uint64_t key)
{
    return ct_table_get_key(t, (ct_key){key, 0});
}

static inline int ct_table_put(ct_table *t, uint64_t key, void *value)
{
    return ct_table_put_key(t, (ct_key){key, 0}, value);
}

#endif
