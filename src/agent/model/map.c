#include "map.h"

#include <stdlib.h>

/* libxxhash, header-only: the profiler is dlopened into arbitrary processes,
 * so it carries the hash inline instead of depending on libxxhash.so.0. */
#define XXH_INLINE_ALL
#include <xxhash.h>

/* First table size, in slots. */
#define MAP_INITIAL_SLOTS 256

static size_t slot_of(ct_key k, size_t cap)
{
    return (size_t)XXH3_64bits(&k, sizeof k) & (cap - 1);
}

static int is_empty(ct_key k)
{
    return k.a == 0 && k.b == 0;
}

static int same(ct_key x, ct_key y)
{
    return x.a == y.a && x.b == y.b;
}

void *ct_map_get(const ct_map *m, ct_key key)
{
    if (!m->cap || is_empty(key))
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        const ct_map_slot *s = &m->slots[i];
        if (is_empty(s->key))
            return NULL;
        if (same(s->key, key))
            return s->value;
    }
}

static void place(ct_map_slot *slots, size_t cap, ct_key key, void *value)
{
    size_t i = slot_of(key, cap);
    while (!is_empty(slots[i].key) && !same(slots[i].key, key))
        i = (i + 1) & (cap - 1);
    slots[i].key = key;
    slots[i].value = value;
}

int ct_map_put(ct_map *m, ct_key key, void *value)
{
    if (is_empty(key) || !value)
        return -1;
    if (m->cap) {
        for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
            ct_map_slot *s = &m->slots[i];
            if (is_empty(s->key))
                break;
            if (same(s->key, key)) {
                s->value = value;
                return 0;
            }
        }
    }
    if ((m->used + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : MAP_INITIAL_SLOTS;
        ct_map_slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (!is_empty(m->slots[i].key))
                place(slots, cap, m->slots[i].key, m->slots[i].value);
        free(m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    place(m->slots, m->cap, key, value);
    m->used++;
    return 0;
}

void ct_map_each(const ct_map *m, void (*fn)(void *ctx, ct_key key, void *value), void *ctx)
{
    for (size_t i = 0; i < m->cap; i++)
        if (!is_empty(m->slots[i].key))
            fn(ctx, m->slots[i].key, m->slots[i].value);
}

void ct_map_clear(ct_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->used = 0;
}
