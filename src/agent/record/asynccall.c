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
#include <stdatomic.h>
#include <string.h>

#include "internal.h"
#include "agent/model/plans/plans.h"
#include "agent/runtime/notes.h"

/* Header bits (the runtime's syncblk.h; the word at 4 bytes before the
 * object's method table on 64-bit targets). */
#define HDR_HASH_OR_INDEX 0x08000000u
#define HDR_IS_HASHCODE 0x04000000u
#define HDR_SPIN_LOCK 0x10000000u
#define HDR_LOW_BITS 0x03FFFFFFu   /* hash, sync block index, or thin lock */
/* Ids fit a debug runtime's 25 bits of hash as well. */
#define ID_LIMIT (1u << 25)

/* A slot's word: its id << 8 | its state; 0: free. A thread takes a slot
 * with one compare-and-swap of the word (no lock: the hooks take none),
 * RESERVED while it writes cls and at, then publishes PENDING or EARLY. */
enum { SLOT_PENDING = 1, SLOT_EARLY = 2, SLOT_RESERVED = 3 };
#define WORD(id, state) ((uint64_t)(id) << 8 | (state))

typedef struct slot {
    _Atomic uint64_t word;
    uint64_t cls;    /* the task's class (its method table; 0: no task) */
    uint64_t at;     /* SLOT_EARLY: when it completed */
    const ct_mapped_fn *fn; /* SLOT_PENDING: the call's function */
} slot;

/* Slot of id: id % CT_ASYNC_CALLS (a power of two). */
static slot g_slots[CT_ASYNC_CALLS];
static _Atomic uint32_t g_next = 1;
static _Atomic uint64_t g_unfollowed;

static ct_notes g_notes = CT_NOTES_INIT;

void ct_rec_async_tell(void)
{
    uint64_t n = atomic_exchange(&g_unfollowed, 0);
    if (n)
        ct_notes_say(&g_notes,
                     "%llu async call%s ended as %s returned though %s task went on (more than "
                     "%u followed at once, or the task's object header in use)",
                     (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "it" : "they",
                     n == 1 ? "its" : "their", (unsigned)CT_ASYNC_CALLS);
}

uint32_t ct_rec_async_new_id(void)
{
    for (;;) {
        uint32_t id = atomic_fetch_add_explicit(&g_next, 1, memory_order_relaxed) % ID_LIMIT;
        if (id)
            return id;
    }
}

static slot *slot_at(uint32_t id)
{
    return &g_slots[id & (CT_ASYNC_CALLS - 1)];
}

/* The id obj's header holds as its hash code, or 0. */
static uint32_t mark_of(uintptr_t obj)
{
    uint32_t h = __atomic_load_n((const uint32_t *)(obj - 4), __ATOMIC_ACQUIRE);
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

/* A new id, its slot taken in `state` for a task of class cls (at: now);
 * 0 when no free slot is found nearby. A slot completed early that no
 * return claimed for CT_ASYNC_EARLY_NS is free again (its call was not
 * traced, or not followed). */
static uint32_t take_new(uint32_t state, uint64_t cls, uint64_t now, const ct_mapped_fn *fn)
{
    for (int tries = 0; tries < 64; tries++) {
        uint32_t id = atomic_fetch_add_explicit(&g_next, 1, memory_order_relaxed) % ID_LIMIT;
        if (!id)
            continue;
        slot *s = slot_at(id);
        uint64_t w = atomic_load_explicit(&s->word, memory_order_acquire);
        if (w && !((w & 0xFF) == SLOT_EARLY && now - s->at > CT_ASYNC_EARLY_NS))
            continue;
        if (!atomic_compare_exchange_strong(&s->word, &w, WORD(id, SLOT_RESERVED)))
            continue;
        s->cls = cls;
        s->at = now;
        s->fn = fn;
        atomic_store_explicit(&s->word, WORD(id, state), memory_order_release);
        return id;
    }
    return 0;
}

/* Frees id's slot when it holds id in `state` for class cls: 1 (*fn, when
 * not NULL: the slot's function), else 0. */
static int take(uint32_t id, uint32_t state, uint64_t cls, const ct_mapped_fn **fn)
{
    slot *s = slot_at(id);
    uint64_t w = WORD(id, state);
    if (atomic_load_explicit(&s->word, memory_order_acquire) != w || s->cls != cls)
        return 0;
    const ct_mapped_fn *mine = s->fn;
    if (!atomic_compare_exchange_strong(&s->word, &w, 0))
        return 0;
    if (fn)
        *fn = mine;
    return 1;
}

static void release(uint32_t id)
{
    atomic_store_explicit(&slot_at(id)->word, 0, memory_order_release);
}

/* The id of the async call of task object `task` (class cls), when it is
 * followed. The side that comes first (mine: SLOT_PENDING, the call's
 * return, of function fn; SLOT_EARLY, the task's end) marks the task with a
 * new id; the other finds the mark and takes the id (*other_fn: the
 * function the return left, NULL when the end came first). Either may lose
 * the race to mark it: it lets its own slot go and takes the winner's. 0:
 * not followed (the task's header in use, no slot free). */
static uint32_t meet(uintptr_t task, uint64_t cls, uint32_t mine, uint64_t now,
                     const ct_mapped_fn *fn, const ct_mapped_fn **other_fn, int *took)
{
    uint32_t other = mine == SLOT_PENDING ? SLOT_EARLY : SLOT_PENDING;
    uint32_t had = mark_of(task);
    *took = 0;
    if (other_fn)
        *other_fn = NULL;
    if (!had) {
        uint32_t id = take_new(mine, cls, now, fn);
        if (!id)
            return 0;
        if (mark(task, id))
            return id;
        release(id);
        had = mark_of(task);
    }
    if (!had || !take(had, other, cls, other_fn))
        return 0;
    *took = 1;
    return had;
}

/* Task's private state bits (Task.cs): complete, one way or another. */
void ct_rec_put_u64(ct_wbuf *w, ct_event_mark *m, uint64_t v)
{
    uint8_t *p = ct_event_value_reserve(w, 8);
    if (!p)
        return;
    memcpy(p, &v, 8);
    ct_event_value_commit_status(w, m, 8, CT_VALUE_PLAN);
}

void ct_rec_async_call(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m,
                       uint64_t now)
{
    ct_rec_thread *t = ct_rec_of(b);
    uintptr_t at = t->ret_at;
    int later = t->async_later;
    t->ret_at = 0;
    t->async_later = 0;
    if (t->sync_id && t->sync_depth == t->depth + 1) {
        /* Its task faulted before it returned (its first body threw
         * before an await): that end was recorded then. */
        uint32_t id = t->sync_id;
        t->sync_id = 0;
        if (take(id, SLOT_EARLY, 0, NULL))
            ct_rec_put_u64(w, m, id);
        return;
    }
    if (!at)
        return;
    uint64_t task;
    memcpy(&task, (const void *)(at + f->async_task_at), 8);
    if (!task)
        return; /* a ValueTask completed at once: no task */
    uint64_t cls;
    memcpy(&cls, (const void *)(uintptr_t)task, 8);
    /* A task complete and not marked: its end was not seen (its body not
     * traced, or a GC moved its state machine during the body): the call
     * ends here, its task's state in its value. */
    if (!mark_of((uintptr_t)task) && ct_rec_task_done((uintptr_t)task, (ClassID)cls) != 0)
        return;
    int took = 0;
    uint32_t id = meet((uintptr_t)task, cls, SLOT_PENDING, now, f, NULL, &took);
    if (id) {
        ct_rec_put_u64(w, m, id);
        /* Told deferred, but its task ended first: no verdict came with
         * that end (its call was not known then); it is told after this
         * LEAVE. */
        if (later && took) {
            t->late_id = id;
            t->late_task = (uintptr_t)task;
            t->late_fn = f;
        }
    } else {
        atomic_fetch_add_explicit(&g_unfollowed, 1, memory_order_relaxed);
    }
}

/* Whether the frame below this thread's innermost (an async body) is the
 * call of that body's method: its stub, which started it. */
static int stub_below(const ct_rec_thread *t)
{
    if (t->depth < 2 || t->depth > CT_DROP_TRACK_FRAMES)
        return 0;
    const ct_mapped_fn *body = (const ct_mapped_fn *)(uintptr_t)t->frame_keys[t->depth - 1];
    const ct_mapped_fn *stub = (const ct_mapped_fn *)(uintptr_t)t->frame_keys[t->depth - 2];
    static const char word[] = "async ";
    return body && stub && stub->async_stub && body->display && stub->display &&
           !strncmp(body->display, word, sizeof word - 1) &&
           !strcmp(body->display + sizeof word - 1, stub->display);
}

/* A task faulted before its call returned (its first body threw before an
 * await; the call, its stub, is the frame below): an id its return takes
 * (sync_id), or 0 when the frame below is not that call. */
static uint32_t sync_fault_id(ct_tbuf *b, uint64_t now)
{
    ct_rec_thread *t = ct_rec_of(b);
    uint32_t id = stub_below(t) ? take_new(SLOT_EARLY, 0, now, NULL) : 0;
    if (id) {
        t->sync_id = id;
        t->sync_depth = t->depth - 1;
    }
    return id;
}

/* The id of the async call whose task builder `builder` completes (its
 * first field, m_task, in every builder followed), or 0: the task met as
 * above; no task yet and `faulted`: the call below, when it is the body's
 * stub (its return takes the id: sync_id). *cls: the task's class. */
static uint32_t completing(ct_tbuf *b, uintptr_t builder, uint64_t now, uint64_t *cls,
                           int faulted, const ct_mapped_fn **fn)
{
    *fn = NULL;
    uint64_t task;
    memcpy(&task, (const void *)builder, 8);
    if (!task) {
        /* Completed before it needed a task: its call returns it, a result
         * shown there; a fault is not (a task's exception is not read), so
         * the call's end is recorded now, under an id its return takes. */
        *cls = 0;
        return faulted ? sync_fault_id(b, now) : 0;
    }
    memcpy(cls, (const void *)(uintptr_t)task, 8);
    int took = 0;
    return meet((uintptr_t)task, *cls, SLOT_EARLY, now, NULL, fn, &took);
}

/* The verdict of async call id (of function fn, when it has conditions
 * deciding at its end) on its outcome, told the writer before its end
 * record: how LEAVE with its result (plan p at addr, len bytes; p NULL:
 * none) or UNWIND with its exception (x; NULL: not read). */
static void verdict(ct_tbuf *b, const ct_mapped_fn *fn, uint32_t id, ct_rec_type how,
                    const ct_plan *p, uintptr_t addr, uint32_t len, const ct_rec_exc *x,
                    uint64_t now, int naive)
{
    if (!fn || !fn->when_end)
        return;
    int keep = ct_rec_when_outcome_holds(b, fn, how, p, addr, len, x);
    ct_rec_marker(b, keep ? CT_RING_ASYNC_KEEP : CT_RING_ASYNC_DROP, now, id, naive);
}

void ct_rec_async_end_event(ct_tbuf *b, uint32_t type, uint32_t id, uint64_t first,
                            const ct_plan *p, uintptr_t addr, uint32_t len, uint64_t now,
                            int naive)
{
    ct_rec_event ev;
    ct_rec_begin(b, &ev, (ct_rec_type)type, now, ct_rec_held(b), id, naive);
    ct_rec_put_u64(&ev.w, &ev.m, first);
    if (p)
        ct_rec_value(b, &ev.w, &ev.m, p, addr, len, g_ct.cfg.object_depth);
    if (naive)
        ct_rec_publish_naive(b, &ev);
    else
        ct_rec_publish(b, &ev);
}

void ct_rec_async_result(ct_tbuf *b, uintptr_t builder, uintptr_t result, size_t result_len,
                         int naive)
{
    if (!builder || !ct_rec_async_body_owns(b, builder) || ct_rec_is_busy(b))
        return;
    ct_rec_busy(b, 1);
    uint64_t now = ct_now_ns(), cls = 0;
    const ct_mapped_fn *fn;
    uint32_t id = completing(b, builder, now, &cls, 0, &fn);
    if (id) {
        uint64_t task;
        memcpy(&task, (const void *)builder, 8);
        const ct_plan *c = task ? ct_rec_task_form((uintptr_t)task, (ClassID)cls) : NULL;
        const ct_plan *rp = c && ct_task_result_at(c) == 1 && result ? c->fields[1].plan : NULL;
        uint32_t rlen = rp ? (uint32_t)(result_len ? result_len : ct_rec_slot_len(rp)) : 0;
        verdict(b, fn, id, CT_REC_LEAVE, rp, result, rlen, NULL, now, naive);
        ct_rec_async_end_event(b, CT_REC_ASYNC_RETURN, id, cls, rp, result, rlen, now, naive);
    }
    ct_rec_busy(b, 0);
}

void ct_rec_async_late_verdict(ct_tbuf *b, int naive)
{
    ct_rec_thread *t = ct_rec_of(b);
    uint32_t id = t->late_id;
    uint64_t task = t->late_task;
    const ct_mapped_fn *f = t->late_fn;
    t->late_id = 0;
    ct_rec_outcome o;
    if (!f || !task || ct_rec_task_outcome(task, ct_rec_class_of(task), &o) != 0 || !o.complete)
        return;
    ct_rec_exc x;
    int keep = ct_rec_outcome_holds(b, f, &o, &x);
    ct_rec_marker(b, keep ? CT_RING_ASYNC_KEEP : CT_RING_ASYNC_DROP, ct_now_ns(), id, naive);
}

void ct_rec_async_body_end(ct_tbuf *b, const ct_mapped_fn *f, uintptr_t this_addr, int naive)
{
    if (f->sm_fault_at == CT_SM_NO_FIELD || !f->sm_task_first || ct_rec_is_busy(b))
        return;
    uint64_t base, task;
    memcpy(&base, (const void *)this_addr, 8);
    if (!base)
        return;
    memcpy(&task, (const void *)(uintptr_t)(base + f->sm_fault_at), 8); /* the builder's m_task */
    ClassID cls = task ? ct_rec_class_of(task) : 0;
    ct_rec_outcome o;
    if (!task || ct_rec_task_outcome(task, cls, &o) != 0 || !o.complete)
        return; /* awaiting again */
    ct_rec_busy(b, 1);
    uint64_t now = ct_now_ns();
    /* This body completed its task: a fault ends it too, as SetException's
     * mark does at start-up. */
    const ct_rec_exc *x = o.faulted && o.exc ? ct_rec_mark_fault(b, o.exc) : NULL;
    const ct_mapped_fn *fn = NULL;
    uint32_t id = mark_of((uintptr_t)task);
    if (id && !take(id, SLOT_PENDING, (uint64_t)cls, &fn)) {
        id = 0; /* not this session's, or ended already */
    } else if (!id && o.faulted) {
        id = sync_fault_id(b, now); /* faulted before its call returned */
    }
    if (id)
        verdict(b, fn, id, o.faulted ? CT_REC_UNWIND : CT_REC_LEAVE, o.p, o.addr, o.len, x, now,
                naive);
    if (id && o.faulted) {
        ct_rec_exc_event(b, CT_REC_ASYNC_FAULT, now, id, x);
    } else if (id) {
        ct_rec_async_end_event(b, CT_REC_ASYNC_RETURN, id, (uint64_t)cls, o.p, o.addr, o.len,
                               now, naive);
    }
    ct_rec_busy(b, 0);
}

void ct_rec_async_faulted(ct_tbuf *b, uintptr_t builder, const ct_rec_exc *x)
{
    uint64_t now = ct_now_ns(), cls = 0;
    const ct_mapped_fn *fn;
    uint32_t id = completing(b, builder, now, &cls, 1, &fn);
    if (!id)
        return;
    verdict(b, fn, id, CT_REC_UNWIND, NULL, 0, 0, x, now, g_rec.naive);
    ct_rec_exc_event(b, CT_REC_ASYNC_FAULT, now, id, x);
}

void ct_rec_async_fault(ct_tbuf *b, uintptr_t builder, uint64_t exc)
{
    if (!exc || ct_rec_is_busy(b) || !ct_rec_async_body_owns(b, builder))
        return;
    ct_rec_busy(b, 1);
    const ct_rec_exc *x = ct_rec_mark_fault(b, exc);
    /* The async call (its stub) ends by it too, when it is followed. */
    if (x)
        ct_rec_async_faulted(b, builder, x);
    ct_rec_busy(b, 0);
}
