/* The caller's memory, carved into nodes. No malloc anywhere in libclrsig. */
#include "clrsig/clrsig.h"
#include "sig_internal.h"

void clrsig_arena_init(clrsig_arena *a, void *mem, size_t cap)
{
    a->base = mem;
    a->cap = mem ? cap : 0;
    a->used = 0;
}

void clrsig_arena_reset(clrsig_arena *a)
{
    a->used = 0;
}

void *sig_arena_alloc(clrsig_arena *a, size_t size)
{
    size_t start = (a->used + SIG_ARENA_ALIGN - 1) & ~(size_t)(SIG_ARENA_ALIGN - 1);
    if (start < a->used || start > a->cap || size > a->cap - start)
        return NULL;
    a->used = start + size;
    return a->base + start;
}
