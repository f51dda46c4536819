/*
 * One thread's stack of open calls, and the one rule that pairs an end with
 * the call it ends. The walk of a trace's call stacks (walk.h) keeps each
 * thread's stack with it; the text renderer (render.c), the tree filters
 * (treefilter.c) and the CLI's call stacks (src/cli/export/calls.c: folded
 * stacks, flame graphs, Chrome JSON, Perfetto) are that walk's clients, so
 * they agree on every trace, including one with missed events.
 *
 * The rule:
 *   - an enter pushes a frame; past `max` frames (or when memory runs out)
 *     the call is counted in `depth` but not kept, and neither is any call
 *     above it;
 *   - an end while calls are open that are not kept closes the innermost
 *     of those, unchecked (CT_STACK_UNKEPT);
 *   - otherwise an end of function KEY closes the innermost kept frame of
 *     KEY; the frames above it never ended (an event was missed: a dropped
 *     event, an unwinding the runtime did not report) and are closed first,
 *     as unfinished;
 *   - an end with no open frame of KEY is unmatched (CT_STACK_UNMATCHED):
 *     the stack stays as it is.
 *
 * Frames are the user's structs, of any size, that begin with the
 * ct_stack_frame header (the function key).
 */
#ifndef CLRTRACE_STACK_H
#define CLRTRACE_STACK_H

#include <stddef.h>
#include <stdint.h>

/* Frames allocated at a stack's first push; the array doubles up to max. */
#define CT_STACK_INITIAL 16

/* The start of every frame. */
typedef struct ct_stack_frame {
    uint64_t key; /* the function */
} ct_stack_frame;

typedef struct ct_stack {
    unsigned char *frames; /* kept frames, outermost first, frame_size bytes each */
    size_t frame_size;
    uint32_t depth;        /* calls open, kept or not */
    uint32_t kept;         /* frames kept: the outermost `kept` of the open calls */
    uint32_t cap;          /* frames allocated */
    uint32_t max;          /* most frames kept */
} ct_stack;

/* What an end closes (ct_stack_match). */
#define CT_STACK_UNMATCHED (-1L) /* no open call of its function */
#define CT_STACK_UNKEPT (-2L)    /* an open call that was not kept */

/* An empty stack of frames of frame_size bytes (at least
 * sizeof(ct_stack_frame)), keeping at most max. */
void ct_stack_init(ct_stack *s, size_t frame_size, uint32_t max);
void ct_stack_free(ct_stack *s);

/* A call of key began: its frame (zeroed, key set), innermost; NULL when
 * the call is not kept (depth grows all the same): past max, above a call
 * not kept, or out of memory (then *nomem is set when nomem is not NULL). */
void *ct_stack_push(ct_stack *s, uint64_t key, int *nomem);

/* Where an end of key's call lands: the index of the kept frame it closes
 * (frames above it, if any, never ended), CT_STACK_UNKEPT or
 * CT_STACK_UNMATCHED. Changes nothing. */
long ct_stack_match(const ct_stack *s, uint64_t key);

/* Removes the innermost open call: the innermost kept frame, or when calls
 * above the kept ones are open, one of those. */
void ct_stack_pop(ct_stack *s);

/* Frame i of the kept ones (0 the outermost), the innermost kept frame, and
 * the one below it; NULL when there is none. */
static inline void *ct_stack_at(const ct_stack *s, uint32_t i)
{
    return i < s->kept ? s->frames + (size_t)i * s->frame_size : NULL;
}

static inline void *ct_stack_top(const ct_stack *s)
{
    return s->kept ? ct_stack_at(s, s->kept - 1) : NULL;
}

static inline void *ct_stack_below_top(const ct_stack *s)
{
    return s->kept > 1 ? ct_stack_at(s, s->kept - 2) : NULL;
}

#endif
