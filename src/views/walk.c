/* The one walk of a trace's call stacks (src/views/walk.h). */
#include "walk.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* Where a thread's client area begins in its allocation. */
#define AREA_OFFSET \
    ((sizeof(ct_walk_thread) + alignof(max_align_t) - 1) / alignof(max_align_t) * \
     alignof(max_align_t))

void ct_walk_init(ct_walk *w, const ct_walk_ops *ops, void *ctx, size_t frame_size,
                  uint32_t max_frames, size_t thread_size)
{
    memset(w, 0, sizeof *w);
    if (ops)
        w->ops = *ops;
    w->ctx = ctx;
    w->frame_size = frame_size;
    w->max_frames = max_frames;
    w->thread_size = thread_size;
}

void ct_walk_free(ct_walk *w)
{
    for (ct_walk_thread *t = w->first, *n; t; t = n) {
        n = t->next;
        if (w->ops.thread_free)
            w->ops.thread_free(w->ctx, t);
        ct_stack_free(&t->stack);
        free(t);
    }
    w->first = w->last = w->recent = NULL;
    ct_table_free(&w->threads);
}

ct_walk_thread *ct_walk_find(const ct_walk *w, uint64_t tid)
{
    return ct_table_get(&w->threads, tid);
}

ct_walk_thread *ct_walk_thread_of(ct_walk *w, uint64_t tid)
{
    if (w->recent && w->recent->tid == tid)
        return w->recent;
    ct_walk_thread *t = ct_table_get(&w->threads, tid);
    if (t)
        return w->recent = t;
    t = calloc(1, w->thread_size ? AREA_OFFSET + w->thread_size : sizeof *t);
    if (!t)
        return NULL;
    t->tid = tid;
    if (w->thread_size)
        t->user = (unsigned char *)t + AREA_OFFSET;
    ct_stack_init(&t->stack, w->frame_size, w->max_frames);
    if (w->ops.thread && w->ops.thread(w->ctx, t) != 0) {
        free(t);
        return NULL;
    }
    if (ct_table_put(&w->threads, tid, t) != 0) {
        if (w->ops.thread_free)
            w->ops.thread_free(w->ctx, t);
        free(t);
        return NULL;
    }
    if (w->last)
        w->last->next = t;
    else
        w->first = t;
    w->last = t;
    return w->recent = t;
}

/* Tells `end` of t's innermost open call, then pops it. */
static int close_innermost(ct_walk *w, ct_walk_thread *t, ct_walk_end how, uint64_t end_ns,
                           const ct_rec *rec)
{
    int rc = 0;
    if (w->ops.end) {
        /* The innermost kept frame, when every open call is kept. */
        void *frame = t->stack.depth == t->stack.kept ? ct_stack_top(&t->stack) : NULL;
        rc = w->ops.end(w->ctx, t, frame, t->stack.depth - 1, how, end_ns, rec);
    }
    ct_stack_pop(&t->stack);
    return rc;
}

static int on_enter(ct_walk *w, ct_walk_thread *t, const ct_rec *rec)
{
    int nomem = 0;
    void *frame = ct_stack_push(&t->stack, rec->key, &nomem);
    return w->ops.open ? w->ops.open(w->ctx, t, frame, t->stack.depth - 1, rec, nomem) : 0;
}

static int on_end(ct_walk *w, ct_walk_thread *t, const ct_rec *rec)
{
    long k = ct_stack_match(&t->stack, rec->key);
    if (k == CT_STACK_UNMATCHED)
        return w->ops.unmatched ? w->ops.unmatched(w->ctx, t, t->stack.depth, rec) : 0;
    ct_walk_end how = rec->type == CT_REC_LEAVE    ? CT_WALK_RETURN
                      : rec->type == CT_REC_UNWIND ? CT_WALK_EXCEPTION
                                                   : CT_WALK_TAILCALL;
    if (k == CT_STACK_UNKEPT)
        return close_innermost(w, t, how, t->now, rec);
    /* The calls above k never ended: an event was missed. */
    while (t->stack.kept > (uint32_t)k + 1) {
        int rc = close_innermost(w, t, CT_WALK_MISSED, t->now, rec);
        if (rc)
            return rc;
    }
    return close_innermost(w, t, how, t->now, rec);
}

int ct_walk_event(ct_walk *w, ct_walk_thread *t, const ct_rec *rec)
{
    if (rec->time_ns > t->now)
        t->now = rec->time_ns;
    uint64_t prog = ct_rec_prog_ns(rec);
    if (prog > t->prog)
        t->prog = prog;
    t->held = rec->held_ns;
    return rec->type == CT_REC_ENTER ? on_enter(w, t, rec) : on_end(w, t, rec);
}

int ct_walk_record(ct_walk *w, const ct_rec *rec)
{
    if (w->ended)
        return 0;
    if (ct_rec_is_event(rec->type)) {
        ct_walk_thread *t = ct_walk_thread_of(w, rec->tid);
        return t ? ct_walk_event(w, t, rec) : -1;
    }
    if (rec->type == CT_REC_ACTIVITY) {
        ct_walk_thread *t = ct_walk_thread_of(w, rec->tid);
        if (!t)
            return -1;
        memcpy(t->ids, rec->trace_id, CT_TRACE_ID_BYTES);
        memcpy(t->ids + CT_TRACE_ID_BYTES, rec->span_id, CT_SPAN_ID_BYTES);
        return 0;
    }
    if (rec->type == CT_REC_DROPPED) {
        w->dropped += rec->count;
        ct_walk_thread *t = ct_walk_find(w, rec->tid);
        if (t)
            t->dropped += rec->count;
    } else if (rec->type == CT_REC_END) {
        w->ended = 1;
    }
    return 0;
}

int ct_walk_close(ct_walk *w, uint64_t end_ns)
{
    for (ct_walk_thread *t = w->first; t; t = t->next) {
        /* The end's program time: the held time since the thread's last
         * event is not known (its next HELD record may say): none. */
        uint64_t prog = end_ns > t->held ? end_ns - t->held : 0;
        if (prog > t->prog)
            t->prog = prog;
        while (t->stack.depth) {
            int rc = close_innermost(w, t, CT_WALK_OPEN, end_ns, NULL);
            if (rc)
                return rc;
        }
    }
    return 0;
}
