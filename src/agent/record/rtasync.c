/* A runtime-async method's logical call (.NET 11: CorMethodImpl miAsync,
 * no state machine). The runtime suspends such a method by returning from
 * its frame (no ret runs: the frame saved in a continuation object), and
 * resumes it, on any thread, by entering it again at its start, from where
 * a jump goes to the resume point: the IL at its entry runs once a call.
 * The IL engine follows the call with a local its rewrite adds, the call's
 * home (ilprobe.c): the entry writes the call's id there, with a salt
 * (canary), the runtime saves and restores it with the frame's other
 * locals, and every later probe of the call reads it.
 *
 *   - the entry (ct_rec_rt_begin): the call's ENTER was just recorded; its
 *     frame is marked as this call's;
 *   - a suspension: the frames of a chain that suspended are no longer on
 *     the stack. RuntimeAsyncTask<T>.HandleSuspended (watched) runs on the
 *     thread right after, and any probe of that thread looks first
 *     (ct_rec_rt_settle): a marked frame is gone when its home is below the
 *     probe's own frame (the stack pointer went past it) or no longer holds
 *     its canary (other frames took its place). Each gone frame ends with
 *     a LEAVE that carries the call's id and no return value: "(async: goes
 *     on)";
 *   - after each await (ct_rec_rt_resumed): on a thread where the call's
 *     frame is not open, the method was resumed: a frame not recorded
 *     (hidden) opens for this part, so that its callees nest under it and
 *     an exception leaving it is the call's;
 *   - its return (ct_rec_rt_return): in its first part, a LEAVE as any
 *     call's; later, an ASYNC_RETURN record with its result (the ring's
 *     CT_RING_RT_RETURN, which the writer turns into one);
 *   - an exception leaving a resumed part (ct_rec_rt_unwound): an
 *     ASYNC_FAULT record with it.
 */
#include <string.h>
#include <time.h>

#include "internal.h"

/* The canary's upper 32 bits: not 0, chosen at the first call. */
static _Atomic uint32_t g_salt;

static uint32_t salt(void)
{
    uint32_t s = atomic_load_explicit(&g_salt, memory_order_relaxed);
    if (s)
        return s;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint32_t mine = (uint32_t)(ts.tv_nsec * 2654435761u) ^ (uint32_t)ts.tv_sec ^ 0x5A5Au;
    if (!mine)
        mine = 1;
    uint32_t none = 0;
    return atomic_compare_exchange_strong(&g_salt, &none, mine) ? mine : none;
}

static uint64_t canary(uint32_t id)
{
    return (uint64_t)salt() << 32 | id;
}

/* A call whose ENTER was not recorded (left out by a condition, the budget
 * or a limit; dropped) is followed all the same, so that its frames close
 * as they suspend, but nothing of it is told: its id carries QUIET (ids are
 * below 2^25). */
#define QUIET 0x80000000u
#define TOLD(id) ((id) && !((id) & QUIET))

/* The call id a home holds (QUIET included), or 0 (not followed). */
static uint32_t home_id(uintptr_t home)
{
    uint64_t v;
    memcpy(&v, (const void *)home, 8);
    return (uint32_t)(v >> 32) == salt() ? (uint32_t)v : 0;
}

/* Each call followed, by id % CT_ASYNC_CALLS: its id and the id of the call
 * that awaited it (0: none, a root) in one word, and its function: an
 * exception that ends a call in a resumed part ends the calls that awaited
 * it, in turn, unless one catches it (rt_fault_next). */
typedef struct rt_call {
    _Atomic uint64_t word;
    _Atomic(const ct_mapped_fn *) fn;
} rt_call;
static rt_call g_calls[CT_ASYNC_CALLS];

static void note_call(uint32_t id, uint32_t parent, const ct_mapped_fn *fn)
{
    rt_call *c = &g_calls[id & (CT_ASYNC_CALLS - 1)];
    atomic_store_explicit(&c->word, 0, memory_order_relaxed);
    atomic_store_explicit(&c->fn, fn, memory_order_relaxed);
    atomic_store_explicit(&c->word, (uint64_t)id << 32 | parent, memory_order_release);
}

/* Call id's parent and function: 1, or 0 when its slot holds another. */
static int call_of(uint32_t id, uint32_t *parent, const ct_mapped_fn **fn)
{
    rt_call *c = &g_calls[id & (CT_ASYNC_CALLS - 1)];
    uint64_t w = atomic_load_explicit(&c->word, memory_order_acquire);
    *fn = atomic_load_explicit(&c->fn, memory_order_relaxed);
    if ((uint32_t)(w >> 32) != id || atomic_load_explicit(&c->word, memory_order_acquire) != w)
        return 0;
    *parent = (uint32_t)w;
    return 1;
}

/* Whether marked frame k of thread t is no longer on the stack, seen from a
 * probe whose frame is at sp. */
static int gone(const ct_rec_thread *t, uint32_t k, uintptr_t sp)
{
    uintptr_t home = t->rt[k].home;
    uint64_t v;
    if (home < sp)
        return 1;
    memcpy(&v, (const void *)home, 8);
    return v != canary(t->rt[k].id);
}

/* Forgets the marks of frames closed otherwise (their depth past the
 * shadow stack's). */
static void forget_closed(ct_rec_thread *t)
{
    while (t->nrt && t->rt[t->nrt - 1].depth > t->depth)
        t->nrt--;
}

/* Closes the innermost frame, marked (k): silently when hidden, else by a
 * LEAVE with the call's id: no return value (f has one: missing), no out
 * values (an async method has none). */
static void close_suspended(ct_tbuf *b, uint32_t k, uint64_t now, int naive)
{
    ct_rec_thread *t = ct_rec_of(b);
    uint32_t id = t->rt[k].id, hidden = t->rt[k].flags & CT_RT_HIDDEN;
    uint64_t key = t->depth <= CT_DROP_TRACK_FRAMES ? t->frame_keys[t->depth - 1] : 0;
    t->nrt = k;
    int how = ct_rec_frame_close(b);
    if (hidden)
        return;
    if (how || !key || !TOLD(id)) {
        ct_rec_count_unrecorded(b, how);
        return;
    }
    const ct_mapped_fn *f = (const ct_mapped_fn *)(uintptr_t)key;
    ct_rec_event ev;
    ct_rec_begin(b, &ev, CT_REC_LEAVE, now, ct_rec_held(b), key, naive);
    if (f->has_ret)
        ct_event_value_commit_status(&ev.w, &ev.m, 0, CT_VALUE_MISSING);
    ct_rec_put_u64(&ev.w, &ev.m, id);
    if (naive)
        ct_rec_publish_naive(b, &ev);
    else
        ct_rec_publish(b, &ev);
}

/* Closes the marked frames at the top of this thread's stack, innermost
 * first: those gone from the stack as a probe whose frame is at sp sees it
 * (to_root 0), or a suspended chain's down to its root (to_root 1). A frame
 * open above a marked one (not marked) is running: so is everything under
 * it. */
static void close_chain(ct_tbuf *b, uintptr_t sp, int to_root, int naive)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (ct_rec_is_busy(b))
        return;
    ct_rec_busy(b, 1);
    uint64_t now = 0;
    forget_closed(t);
    if (to_root)
        t->rt_awaiting = 0;
    while (t->nrt && t->rt[t->nrt - 1].depth == t->depth && (to_root || gone(t, t->nrt - 1, sp))) {
        int root = (t->rt[t->nrt - 1].flags & CT_RT_ROOT) != 0;
        if (!now)
            now = ct_now_ns();
        close_suspended(b, t->nrt - 1, now, naive);
        forget_closed(t);
        if (to_root && root)
            break;
    }
    ct_rec_busy(b, 0);
}

void ct_rec_rt_settle_slow(ct_tbuf *b, uintptr_t sp, int naive)
{
    close_chain(b, sp, 0, naive);
}

void ct_rec_rt_awaiting(ct_tbuf *b, uintptr_t home)
{
    ct_rec_thread *t = ct_rec_of(b);
    uint32_t id = home_id(home);
    t->rt_awaiting = id && t->nrt && t->rt[t->nrt - 1].id == id ? t->rt[t->nrt - 1].depth : 0;
}

void ct_rec_rt_suspended(ct_tbuf *b, int naive)
{
    close_chain(b, 0, 1, naive);
}

void ct_rec_rt_begin(ct_tbuf *b, const ct_mapped_fn *def, uintptr_t home)
{
    ct_rec_thread *t = ct_rec_of(b);
    memset((void *)home, 0, 8);
    if (ct_rec_is_busy(b) || !t->depth || t->depth > CT_DROP_TRACK_FRAMES ||
        t->nrt >= CT_RT_FRAMES)
        return;
    uint32_t d = t->depth - 1;
    const ct_mapped_fn *k = (const ct_mapped_fn *)(uintptr_t)t->frame_keys[d];
    /* Its frame, recorded (the enter probe's; generic code: an
     * instantiation of def). */
    if (!k || (k != def && k->def != def))
        return;
    uint32_t id = ct_rec_async_new_id();
    if (!id)
        return;
    if (t->dropped_frames[d / 64] >> (d % 64) & 1)
        id |= QUIET;
    forget_closed(t);
    /* Called by an await of the frame below (rt_awaiting): of its chain;
     * else the root of a chain of its own (called through the method's
     * Task-returning entry). */
    int awaited = t->rt_awaiting && t->rt_awaiting == t->depth - 1 && t->nrt &&
                  t->rt[t->nrt - 1].depth == t->depth - 1;
    t->rt_awaiting = 0;
    t->rt[t->nrt].depth = t->depth;
    t->rt[t->nrt].id = id;
    t->rt[t->nrt].home = home;
    t->rt[t->nrt].flags = awaited ? 0 : CT_RT_ROOT;
    note_call(id, awaited ? t->rt[t->nrt - 1].id : 0, def);
    t->nrt++;
    uint64_t c = canary(id);
    memcpy((void *)home, &c, 8);
}

void ct_rec_rt_resumed(ct_tbuf *b, const ct_mapped_fn *def, uintptr_t home, uintptr_t sp)
{
    ct_rec_of(b)->rt_awaiting = 0;
    uint32_t id = home_id(home);
    if (!id)
        return;
    if (ct_rec_of(b)->nrt)
        close_chain(b, sp, 0, 0);
    ct_rec_thread *t = ct_rec_of(b);
    if (ct_rec_is_busy(b))
        return;
    forget_closed(t);
    if (t->nrt && t->rt[t->nrt - 1].id == id && t->rt[t->nrt - 1].depth == t->depth)
        return; /* the await did not suspend: the same frame goes on */
    if (t->nrt >= CT_RT_FRAMES || t->depth >= CT_DROP_TRACK_FRAMES)
        return; /* its end is told all the same, without a frame */
    ct_rec_frame_open_as(b, (uint64_t)(uintptr_t)def, CT_FRAME_SKIPPED, 0);
    t->rt[t->nrt].depth = t->depth;
    t->rt[t->nrt].id = id;
    t->rt[t->nrt].home = home;
    t->rt[t->nrt].flags = CT_RT_HIDDEN | CT_RT_ROOT; /* the dispatcher called it */
    t->nrt++;
}

int ct_rec_rt_return(ct_tbuf *b, const ct_mapped_fn *def, uintptr_t home, uintptr_t ret_addr,
                     uintptr_t sp, int naive)
{
    uint32_t id = home_id(home);
    if (!id)
        return 1;
    if (ct_rec_of(b)->nrt)
        close_chain(b, sp, 0, naive);
    ct_rec_thread *t = ct_rec_of(b);
    if (ct_rec_is_busy(b))
        return 0;
    forget_closed(t);
    if (t->nrt && t->rt[t->nrt - 1].id == id && t->rt[t->nrt - 1].depth == t->depth) {
        int hidden = (int)(t->rt[t->nrt - 1].flags & CT_RT_HIDDEN);
        t->nrt--;
        if (!hidden)
            return 1; /* it ends in its first part: a LEAVE as any call's */
        ct_rec_frame_close(b);
    }
    if (!TOLD(id))
        return 0;
    /* Its end, in a part resumed: the result, by the function's plan. */
    ct_rec_busy(b, 1);
    const ct_plan *rp = def->has_ret && ret_addr ? ct_arg_plan(def, def->nargs) : NULL;
    ct_rec_async_end_event(b, CT_RING_RT_RETURN, id, (uint64_t)(uintptr_t)def, rp, ret_addr,
                           rp ? ct_rec_slot_len(rp) : 0, ct_now_ns(), naive);
    ct_rec_busy(b, 0);
    return 0;
}

uint32_t ct_rec_rt_unwinding(ct_tbuf *b, uint32_t serial)
{
    ct_rec_thread *t = ct_rec_of(b);
    forget_closed(t);
    if (!t->nrt || t->rt[t->nrt - 1].depth != t->depth)
        return 0;
    uint32_t k = --t->nrt;
    if (!(t->rt[k].flags & CT_RT_HIDDEN))
        return 0;
    /* The call that awaited it is where the exception goes next. */
    uint32_t parent = 0;
    const ct_mapped_fn *fn;
    t->rt_fault_next = call_of(t->rt[k].id, &parent, &fn) ? parent : 0;
    t->rt_fault_serial = serial;
    return TOLD(t->rt[k].id) ? t->rt[k].id : 0;
}

void ct_rec_rt_fault_goes(ct_tbuf *b, const ct_mapped_fn *f, int caught, const ct_rec_exc *x)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (!t->rt_fault_next || ct_rec_is_busy(b))
        return;
    ct_rec_busy(b, 1);
    uint64_t now = ct_now_ns();
    uint32_t id = t->rt_fault_next;
    t->rt_fault_next = 0;
    /* At most CT_RT_FRAMES calls up (a slot reused makes no loop). */
    for (uint32_t n = 0; id && n < CT_RT_FRAMES; n++) {
        uint32_t parent = 0;
        const ct_mapped_fn *fn = NULL;
        if (!call_of(id, &parent, &fn) || !fn)
            break;
        int here = f && ct_fn_same_method(fn, f);
        if (here && caught)
            break;
        if (TOLD(id))
            ct_rec_exc_event(b, CT_REC_ASYNC_FAULT, now, id, x);
        if (here)
            break;
        id = parent;
    }
    ct_rec_busy(b, 0);
}
