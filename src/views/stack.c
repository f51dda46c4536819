/* One thread's stack of open calls and the rule pairing ends with calls
 * (src/views/stack.h). */
#include "stack.h"

#include <stdlib.h>
#include <string.h>

void ct_stack_init(ct_stack *s, size_t frame_size, uint32_t max)
{
    memset(s, 0, sizeof *s);
    s->frame_size = frame_size < sizeof(ct_stack_frame) ? sizeof(ct_stack_frame) : frame_size;
    s->max = max;
}

void ct_stack_free(ct_stack *s)
{
    free(s->frames);
    s->frames = NULL;
    s->depth = s->kept = s->cap = 0;
}

void *ct_stack_push(ct_stack *s, uint64_t key, int *nomem)
{
    /* A call above one not kept is not kept either: the kept frames are
     * always the outermost open calls. */
    if (s->kept < s->depth || s->kept >= s->max) {
        s->depth++;
        return NULL;
    }
    if (s->kept == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : CT_STACK_INITIAL;
        if (cap > s->max)
            cap = s->max;
        unsigned char *more = realloc(s->frames, (size_t)cap * s->frame_size);
        if (!more) {
            if (nomem)
                *nomem = 1;
            s->depth++;
            return NULL;
        }
        s->frames = more;
        s->cap = cap;
    }
    void *f = s->frames + (size_t)s->kept * s->frame_size;
    memset(f, 0, s->frame_size);
    ((ct_stack_frame *)f)->key = key;
    s->kept++;
    s->depth++;
    return f;
}

long ct_stack_match(const ct_stack *s, uint64_t key)
{
    if (s->depth > s->kept)
        return CT_STACK_UNKEPT;
    for (uint32_t i = s->kept; i > 0; i--)
        if (((const ct_stack_frame *)ct_stack_at(s, i - 1))->key == key)
            return (long)(i - 1);
    return CT_STACK_UNMATCHED;
}

void ct_stack_pop(ct_stack *s)
{
    if (!s->depth)
        return;
    if (s->depth == s->kept)
        s->kept--;
    s->depth--;
}
