/* A hash map from a two-word key to a pointer, hashed with XXH3_64bits
 * (libxxhash). Open addressing, grows at half load. Not thread-safe: each
 * user guards its map with its own lock. The key {0, 0} is reserved (empty
 * slot); values may not be NULL. */
#ifndef CLRTRACE_MAP_H
#define CLRTRACE_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ct_key {
    uint64_t a, b;
} ct_key;

typedef struct ct_map_slot {
    ct_key key;
    void *value;
} ct_map_slot;

typedef struct ct_map {
    ct_map_slot *slots;
    size_t cap; /* 0 or a power of two */
    size_t used;
} ct_map;

/* The value stored under key, or NULL. */
void *ct_map_get(const ct_map *m, ct_key key);

/* Stores value under key (replacing an existing one). Returns 0, or -1 when
 * the table cannot grow (the map is unchanged). */
int ct_map_put(ct_map *m, ct_key key, void *value);

/* Empties m and gives its table back. */
void ct_map_clear(ct_map *m);

/* Calls fn for every entry, in no particular order. */
void ct_map_each(const ct_map *m, void (*fn)(void *ctx, ct_key key, void *value), void *ctx);

#endif
