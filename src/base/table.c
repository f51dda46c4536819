/* The hash table of table.h: linear probing, doubling at half load. */
#include "table.h"

#include <stdlib.h>

/* The slot a key starts from. Keys are addresses (FunctionIDs, ClassIDs,
 * ModuleIDs, aligned), metadata tokens and small counts: the second word is
 * spread by a multiplication before it joins the first, and the whole goes
 * through the MurmurHash3 finalizer, so that every input bit reaches the
 * low bits the mask keeps. (A u64 key, b == 0, hashes as it always did.) */
static size_t hash_key(ct_key key)
{
    uint64_t k = key.a ^ (key.b * 0x9E3779B97F4A7C15ull);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k;
}

static int same(ct_key x, ct_key y)
{
    return x.a == y.a && x.b == y.b;
}

void *ct_table_get_key(const ct_table *t, ct_key key)
{
    if (!t->cap)
        return NULL;
    for (size_t i = hash_key(key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        const ct_table_slot *s = &t->slots[i];
        if (!s->value)
            return NULL;
        if (same(s->key, key))
            return s->value;
    }
}

int ct_table_put_key(ct_table *t, ct_key key, void *value)
{
    if (!value)
        return -1;
    if ((t->used + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : CT_TABLE_INITIAL;
        ct_table_slot *s = calloc(cap, sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].value)
                continue;
            size_t j = hash_key(t->slots[i].key) & (cap - 1);
            while (s[j].value)
                j = (j + 1) & (cap - 1);
            s[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = s;
        t->cap = cap;
    }
    size_t i = hash_key(key) & (t->cap - 1);
    while (t->slots[i].value && !same(t->slots[i].key, key))
        i = (i + 1) & (t->cap - 1);
    if (!t->slots[i].value)
        t->used++;
    t->slots[i].key = key;
    t->slots[i].value = value;
    return 0;
}

void ct_table_each(const ct_table *t, void (*fn)(void *ctx, ct_key key, void *value), void *ctx)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].value)
            fn(ctx, t->slots[i].key, t->slots[i].value);
}

void ct_table_free(ct_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}
