/* The async body (a state machine's MoveNext) open as this thread's
 * innermost frame: whether it owns the builder a SetResult or SetException
 * is called on, and its mark to end by the exception its task got
 * (ct_rec_thread.bodies, .fault_exc). asynccall.c ends the async call of it. */
#include "internal.h"

int ct_rec_async_body_owns(ct_tbuf *b, uintptr_t builder)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (!builder || !t->depth || t->depth > CT_DROP_TRACK_FRAMES || !ct_rec_recording())
        return 0;
    /* An async body: a state machine with a builder (or, an async
     * iterator, a promise) to complete; an iterator's has none. */
    const ct_mapped_fn *top = (const ct_mapped_fn *)(uintptr_t)t->frame_keys[t->depth - 1];
    if (!top || !top->sm_offsets || top->sm_fault_at == CT_SM_NO_FIELD)
        return 0;
    /* The innermost open frame's own builder, not one of a state machine
     * run by untraced code above it (an untraced async method awaiting a
     * traced one): the builder is a field of the frame's state machine. A
     * box the GC moved since the body began is not found. */
    while (t->nbodies && t->bodies[t->nbodies - 1].depth > t->depth)
        t->nbodies--;
    return t->nbodies && t->bodies[t->nbodies - 1].depth == t->depth &&
           t->bodies[t->nbodies - 1].key == (uint64_t)(uintptr_t)top &&
           t->bodies[t->nbodies - 1].base + top->sm_fault_at == builder;
}

const ct_rec_exc *ct_rec_mark_fault(ct_tbuf *b, uint64_t exc)
{
    ct_rec_thread *t = ct_rec_of(b);
    /* Marks of frames closed since are stale; the same frame again (the
     * builder's overloads): the newest exception. */
    while (t->nfaults && t->fault_depth[t->nfaults - 1] > t->depth)
        t->nfaults--;
    uint32_t k = t->nfaults && t->fault_depth[t->nfaults - 1] == t->depth ? t->nfaults - 1
                                                                           : t->nfaults;
    if (k >= CT_ASYNC_FAULTS)
        return NULL;
    /* Any non-zero serial: the frame's own slot is read by its depth. The
     * exception whose lines were read where it was thrown (--srcline): its
     * serial, for the body's LINE record; else one no lines have. */
    ct_rec_exc_read(&t->fault_exc[k], 1, (ObjectID)exc);
    if (!t->fault_exc[k].serial)
        return NULL;
    t->fault_exc[k].serial = exc && exc == t->exc_lines_obj && t->exc_lines_serial
                                 ? t->exc_lines_serial
                                 : UINT32_MAX;
    t->fault_depth[k] = t->depth;
    t->nfaults = k + 1;
    return &t->fault_exc[k];
}
