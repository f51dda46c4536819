#include "ehmodel.h"

#include <string.h>

/* Where a frame lies on the thread's stack, comparable between frames: a
 * traced function's frame is the shadow frame at index depth - 1 (position
 * 2 * depth - 1); an untraced one lies above that frame and below the next
 * traced one (position 2 * depth). Untraced frames between the same two
 * traced frames share a position: their order is not known. */
static uint64_t position(int traced, uint32_t depth)
{
    return traced && depth ? 2 * (uint64_t)depth - 1 : 2 * (uint64_t)depth;
}

static ct_eh_ctx *top(ct_eh_state *s)
{
    return s->n ? &s->ctx[s->n - 1] : NULL;
}

static void drop_at(ct_eh_state *s, uint32_t i)
{
    memmove(&s->ctx[i], &s->ctx[i + 1], (s->n - i - 1) * sizeof s->ctx[0]);
    s->n--;
}

/* An exception can have a nested one only while it runs code of the
 * program: a filter (first pass), a finally or catch block (second pass). */
static int can_nest(const ct_eh_ctx *c)
{
    return c->pass == 1 ? c->filter_depth != CT_EH_NONE : c->in_finally || c->in_catch;
}

/* 1 when older exception o is over because a newer one reached a frame
 * below o's (unwinding it, or catching in it). Reaching o's own frame does
 * not end o: a newer exception that leaves a funclet of o's frame (the
 * runtime's collided unwind) unwinds the frame below next, which ends o
 * then; one caught in o's frame may be caught inside o's catch block, which
 * goes on (the callbacks are the same when it is caught by an outer clause
 * of the same method: o is then left over, harmless, until a later
 * exception passes below it). */
static int passed_over(const ct_eh_ctx *o, uint64_t pos)
{
    return o->pass == 2 && o->pending && pos < position(o->traced, o->depth);
}

/* Drops the exceptions older than the newest that it has passed over. */
static void drop_passed_over(ct_eh_state *s, uint32_t below, uint64_t pos)
{
    for (uint32_t i = below; i-- > 0;)
        if (passed_over(&s->ctx[i], pos))
            drop_at(s, i);
}

void ct_eh_reset(ct_eh_state *s)
{
    s->n = 0;
    s->lost = 0;
    s->serials = 0;
}

void ct_eh_thrown(ct_eh_state *s)
{
    while (s->n && !can_nest(top(s)))
        s->n--;
    if (s->n == CT_EH_NESTING) {
        drop_at(s, 0);
        s->lost++;
    }
    ct_eh_ctx *c = &s->ctx[s->n++];
    memset(c, 0, sizeof *c);
    c->pass = 1;
    c->filter_depth = CT_EH_NONE;
    if (++s->serials == 0)
        s->serials = 1;
    c->serial = s->serials;
}

uint32_t ct_eh_serial(const ct_eh_state *s)
{
    return s->n ? s->ctx[s->n - 1].serial : 0;
}

void ct_eh_search_enter(ct_eh_state *s, uint64_t fid)
{
    ct_eh_ctx *c = top(s);
    if (!c || c->pass != 1)
        return;
    c->searched++;
    c->last_searched = fid;
}

void ct_eh_search_leave(ct_eh_state *s)
{
    (void)s; /* the frame count is all the first pass needs */
}

void ct_eh_catcher_found(ct_eh_state *s)
{
    ct_eh_ctx *c = top(s);
    if (c && c->pass == 1)
        c->caught = 1;
}

void ct_eh_filter_enter(ct_eh_state *s, uint32_t depth)
{
    ct_eh_ctx *c = top(s);
    if (c && c->pass == 1)
        c->filter_depth = depth;
}

uint32_t ct_eh_filter_leave(ct_eh_state *s)
{
    /* The newest exception running a filter owns this leave; those thrown
     * inside the filter ended at its boundary (swallowed). */
    for (uint32_t i = s->n; i-- > 0;) {
        ct_eh_ctx *c = &s->ctx[i];
        if (c->pass == 1 && c->filter_depth != CT_EH_NONE) {
            uint32_t depth = c->filter_depth;
            c->filter_depth = CT_EH_NONE;
            s->n = i + 1;
            return depth;
        }
    }
    return CT_EH_NONE;
}

int ct_eh_unwind_enter(ct_eh_state *s, uint64_t fid, int traced, uint32_t depth)
{
    ct_eh_ctx *c = top(s);
    if (!c) {
        /* An exception whose start this thread did not see (thrown before
         * its first traced call): follow it from here. */
        ct_eh_thrown(s);
        c = top(s);
    }
    c->pass = 2;
    drop_passed_over(s, s->n - 1, position(traced, depth));
    c = top(s);
    c->pending = 1;
    c->fid = fid;
    c->traced = traced != 0;
    c->depth = depth;
    c->unwound++;
    /* The first pass reported the same frames (both walk the same stack and
     * skip the same collided frames); the last of them is the outermost
     * managed frame, after which the runtime terminates the process. */
    return c->fatal && !c->caught && c->unwound >= c->searched && fid == c->last_searched;
}

uint32_t ct_eh_unwind_leave(ct_eh_state *s, uint64_t *fid)
{
    ct_eh_ctx *c = top(s);
    if (!c)
        return CT_EH_NONE;
    if (c->pass == 1) {
        /* The first pass found no catcher and the second starts by
         * reporting its last searched frame's leave as an unwind leave. */
        c->pass = 2;
        return CT_EH_NONE;
    }
    if (!c->pending)
        return CT_EH_NONE;
    c->pending = 0;
    *fid = c->fid;
    if (!c->traced)
        return c->depth;
    return c->depth ? c->depth - 1 : 0;
}

uint32_t ct_eh_finally_enter(ct_eh_state *s)
{
    ct_eh_ctx *c = top(s);
    if (!c || c->pass != 2)
        return CT_EH_NONE;
    c->in_finally = 1;
    return c->pending ? c->depth : CT_EH_NONE;
}

void ct_eh_finally_leave(ct_eh_state *s)
{
    ct_eh_ctx *c = top(s);
    if (c)
        c->in_finally = 0;
}

uint32_t ct_eh_catcher_enter(ct_eh_state *s, uint64_t fid)
{
    ct_eh_ctx *c = top(s);
    if (!c)
        return CT_EH_NONE;
    c->pass = 2;
    c->in_catch = 1;
    return c->pending && c->fid == fid ? c->depth : CT_EH_NONE;
}

void ct_eh_catcher_leave(ct_eh_state *s)
{
    for (uint32_t i = s->n; i-- > 0;) {
        ct_eh_ctx *c = &s->ctx[i];
        if (!c->in_catch)
            continue;
        /* Resuming after the catch block pops every exception whose frames
         * lie above the catching frame. */
        uint64_t pos = position(c->traced, c->depth);
        int placed = c->pending;
        s->n = i;
        if (placed)
            drop_passed_over(s, s->n, pos);
        return;
    }
}

int ct_eh_unhandled(ct_eh_state *s)
{
    ct_eh_ctx *c = top(s);
    if (!c || c->pass != 1 || c->caught)
        return 0;
    c->fatal = 1;
    return 1;
}
