/* The u64-keyed hash table of table.h: linear probing, doubling at half load. */
#include "table.h"

#include <stdlib.h>

static size_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k;
}

void *ct_table_get(const ct_table *t, uint64_t key)
{
    if (!t->cap)
        return NULL;
    for (size_t i = hash64(key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (!t->slots[i].value)
            return NULL;
        if (t->slots[i].key == key)
            return t->slots[i].value;
    }
}

int ct_table_put(ct_table *t, uint64_t key, void *value)
{
    if ((t->used + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : CT_TABLE_INITIAL;
        ct_table_slot *s = calloc(cap, sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].value)
                continue;
            size_t j = hash64(t->slots[i].key) & (cap - 1);
            while (s[j].value)
                j = (j + 1) & (cap - 1);
            s[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = s;
        t->cap = cap;
    }
    size_t i = hash64(key) & (t->cap - 1);
    while (t->slots[i].value && t->slots[i].key != key)
        i = (i + 1) & (t->cap - 1);
    if (!t->slots[i].value)
        t->used++;
    t->slots[i].key = key;
    t->slots[i].value = value;
    return 0;
}

void ct_table_free(ct_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}
