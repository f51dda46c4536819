/* Private helpers shared by the parser and the formatters. */
#ifndef CLRSIG_SIG_INTERNAL_H
#define CLRSIG_SIG_INTERNAL_H

#include "clrsig/clrsig.h"

/* Every arena allocation is aligned for pointers and 64-bit integers. */
#define SIG_ARENA_ALIGN 8

/* Aligned allocation from the caller's arena; NULL when it does not fit. */
void *sig_arena_alloc(clrsig_arena *a, size_t size);

#endif
