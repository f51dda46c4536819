/* An async method's logical call: the call of the method (the stub the C#
 * compiler leaves in its place, which starts the state machine and returns
 * its task) goes on until that task completes (docs/tracer.md, "Async
 * methods and iterators").
 *
 * The task is followed by a mark in its object header: the runtime keeps
 * an object's identity hash code there (the header word before the
 * method table: the hash-or-sync-block-index bit, the is-hash-code bit and
 * 26 bits of hash, syncblk.h), and a garbage collection that moves the
 * object moves its header with it. When the stub returns a task that is
 * not complete and whose header is free (no hash code, no thin lock, no
 * sync block), the hook sets its hash code to the async call's id, as
 * RuntimeHelpers.GetHashCode would set one (the same compare-and-swap): the
 * program's own GetHashCode of that task then returns that id, an
 * arbitrary number as the runtime's are. When the state machine's builder
 * completes the task (SetResult, SetException, in a traced async body whose
 * state machine holds that builder), its header gives the id back.
 *
 * The completion may come first: the task's continuation may run on
 * another thread before the stub's return is recorded. The builder then
 * sets the mark itself and keeps the id as completed early; the stub's
 * return finds it and gives its LEAVE that id. A reader takes the two in
 * either order.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "record.h"
#include "agent/model/plans.h"

/* Header bits (the runtime's syncblk.h; the word at 4 bytes before the
 * object's method table on 64-bit targets). */
#define HDR_HASH_OR_INDEX 0x08000000u
#define HDR_IS_HASHCODE 0x04000000u
#define HDR_SPIN_LOCK 0x10000000u
#define HDR_LOW_BITS 0x03FFFFFFu   /* hash, sync block index, or thin lock */
/* Ids fit a debug runtime's 25 bits of hash as well. */
#define ID_LIMIT (1u << 25)

enum { SLOT_FREE = 0, SLOT_PENDING = 1, SLOT_EARLY = 2 };

typedef struct slot {
    uint32_t id;
    uint32_t state;
    uint64_t cls;    /* the task's class (its method table) */
    uint64_t at;     /* SLOT_EARLY: when it completed */
} slot;

/* Slot of id: id % CT_ASYNC_CALLS (a power of two). */
static slot g_slots[CT_ASYNC_CALLS];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t g_next = 1;
static _Atomic uint64_t g_unfollowed;

uint64_t ct_rec_async_unfollowed(void)
{
    return atomic_load_explicit(&g_unfollowed, memory_order_relaxed);
}

static uint32_t header_of(uintptr_t obj)
{
    return __atomic_load_n((const uint32_t *)(obj - 4), __ATOMIC_ACQUIRE);
}

/* The id obj's header holds as its hash code, or 0. */
static uint32_t mark_of(uintptr_t obj)
{
    uint32_t h = header_of(obj);
    uint32_t id = h & HDR_LOW_BITS;
    return (h & (HDR_HASH_OR_INDEX | HDR_IS_HASHCODE)) == (HDR_HASH_OR_INDEX | HDR_IS_HASHCODE) &&
                   id < ID_LIMIT
               ? id
               : 0;
}

/* Sets obj's hash code to id when its header holds nothing: 1, else 0. */
static int mark(uintptr_t obj, uint32_t id)
{
    uint32_t *w = (uint32_t *)(obj - 4);
    uint32_t h = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    while (!(h & (HDR_HASH_OR_INDEX | HDR_IS_HASHCODE | HDR_SPIN_LOCK | HDR_LOW_BITS)))
        if (__atomic_compare_exchange_n(w, &h, h | HDR_HASH_OR_INDEX | HDR_IS_HASHCODE | id, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 1;
    return 0;
}

/* A free slot's id (g_lock held), or 0 when none is found nearby. A slot
 * completed early that no return claimed for a second is free again (its
 * call was not traced, or not followed). */
static uint32_t new_id(uint64_t now)
{
    for (int tries = 0; tries < 64; tries++) {
        uint32_t id = g_next++;
        if (g_next >= ID_LIMIT)
            g_next = 1;
        slot *s = &g_slots[id & (CT_ASYNC_CALLS - 1)];
        if (s->state == SLOT_FREE ||
            (s->state == SLOT_EARLY && now - s->at > CT_ASYNC_EARLY_NS))
            return id;
    }
    return 0;
}

static slot *slot_of(uint32_t id, uint64_t cls)
{
    slot *s = &g_slots[id & (CT_ASYNC_CALLS - 1)];
    return id && s->id == id && s->state != SLOT_FREE && s->cls == cls ? s : NULL;
}

/* Task's private state bits (Task.cs): complete, one way or another. */
#define TASK_COMPLETED_MASK (0x200000u | 0x400000u | 0x1000000u)

/* Whether task object obj (of class cls) is complete: its m_stateFlags,
 * where its content plan (the Task form) reads them. -1 when not known. */
static int task_done(uintptr_t obj, ClassID cls)
{
    const ct_plan *c = ct_plan_content_known(cls);
    if (!c || c->kind != CT_V_CLASS || c->shape != CT_FORM_TASK || !c->count)
        return -1;
    uint32_t flags;
    memcpy(&flags, (const void *)(obj + c->fields[0].offset), 4);
    return (flags & TASK_COMPLETED_MASK) != 0;
}

void ct_rec_async_call(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m,
                       uint64_t now)
{
    ct_rec_thread *t = ct_rec_of(b);
    uintptr_t at = t->ret_at;
    t->ret_at = 0;
    if (!at)
        return;
    uint64_t task;
    memcpy(&task, (const void *)(at + f->async_task_at), 8);
    if (!task)
        return; /* a ValueTask completed at once: no task */
    uint64_t cls;
    memcpy(&cls, (const void *)(uintptr_t)task, 8);
    uint32_t id = 0;
    pthread_mutex_lock(&g_lock);
    uint32_t had = mark_of((uintptr_t)task);
    slot *s = had ? slot_of(had, cls) : NULL;
    if (s && s->state == SLOT_EARLY) {
        /* Its task completed before this return was recorded. */
        s->state = SLOT_FREE;
        s->id = 0;
        id = had;
    } else if (!had && task_done((uintptr_t)task, (ClassID)cls) == 0) {
        id = new_id(now);
        if (id && mark((uintptr_t)task, id)) {
            s = &g_slots[id & (CT_ASYNC_CALLS - 1)];
            s->id = id;
            s->state = SLOT_PENDING;
            s->cls = cls;
        } else {
            id = 0;
            atomic_fetch_add_explicit(&g_unfollowed, 1, memory_order_relaxed);
        }
    } else if (had) {
        atomic_fetch_add_explicit(&g_unfollowed, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&g_lock);
    if (!id)
        return;
    uint64_t v = id;
    uint8_t *p = ct_event_value_reserve(w, 8);
    if (!p)
        return;
    memcpy(p, &v, 8);
    ct_event_value_commit_status(w, m, 8, CT_VALUE_PLAN);
}

/* The id of the async call whose task builder `builder` completes (its
 * first field, m_task, in every builder followed), or 0: a task marked by
 * a return (claimed), or not marked yet (marked now, kept as completed
 * early). *cls: the task's class. */
static uint32_t completing(uintptr_t builder, uint64_t now, uint64_t *cls)
{
    uint64_t task;
    memcpy(&task, (const void *)builder, 8);
    if (!task)
        return 0; /* completed before it needed a task: its call returned it */
    memcpy(cls, (const void *)(uintptr_t)task, 8);
    uint32_t id = 0;
    pthread_mutex_lock(&g_lock);
    uint32_t had = mark_of((uintptr_t)task);
    slot *s = had ? slot_of(had, *cls) : NULL;
    if (s && s->state == SLOT_PENDING) {
        s->state = SLOT_FREE;
        s->id = 0;
        id = had;
    } else if (!had) {
        id = new_id(now);
        if (id && mark((uintptr_t)task, id)) {
            s = &g_slots[id & (CT_ASYNC_CALLS - 1)];
            s->id = id;
            s->state = SLOT_EARLY;
            s->cls = *cls;
            s->at = now;
        } else {
            id = 0;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return id;
}

void ct_rec_async_result(ct_tbuf *b, uintptr_t builder, uintptr_t result, size_t result_len,
                         int naive)
{
    if (!builder || !ct_rec_async_body_owns(b, builder) || ct_rec_is_busy(b))
        return;
    ct_rec_busy(b, 1);
    uint64_t now = ct_now_ns(), cls = 0;
    uint32_t id = completing(builder, now, &cls);
    if (id) {
        ct_rec_event ev;
        ct_rec_begin(b, &ev, CT_REC_ASYNC_RETURN, now, ct_rec_held(b), id, naive);
        uint8_t *p = ct_event_value_reserve(&ev.w, 8);
        if (p) {
            memcpy(p, &cls, 8);
            ct_event_value_commit_status(&ev.w, &ev.m, 8, CT_VALUE_PLAN);
        }
        /* The result, by the plan of the Task<T>'s m_result. */
        const ct_plan *c = ct_plan_content_known((ClassID)cls);
        if (result && c && c->kind == CT_V_CLASS && c->shape == CT_FORM_TASK && c->count == 2)
            ct_rec_value(b, &ev.w, &ev.m, c->fields[1].plan, result,
                         result_len ? result_len : ct_rec_slot_len(c->fields[1].plan),
                         g_ct.cfg.object_depth);
        if (naive)
            ct_rec_publish_naive(b, &ev);
        else
            ct_rec_publish(b, &ev);
    }
    ct_rec_busy(b, 0);
}

void ct_rec_async_faulted(ct_tbuf *b, uintptr_t builder, const ct_rec_exc *x)
{
    uint64_t now = ct_now_ns(), cls = 0;
    uint32_t id = completing(builder, now, &cls);
    if (id)
        ct_rec_exc_event(b, CT_REC_ASYNC_FAULT, now, id, x);
}
