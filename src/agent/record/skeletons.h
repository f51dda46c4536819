/* What the engines call (docs/tracer.md, "Hooks: capture, not
 * formatting"): the ELT engine's hooks (engines/elt/hooks.c: where the
 * runtime says the arguments are; the fast-path stubs) and the IL engine's
 * probes (engines/il/probes.c: the addresses its rewritten code hands
 * over). Each builds a call's records with the skeletons below, written
 * once: ct_rec_enter (an ENTER), ct_rec_close (a LEAVE or TAILCALL),
 * ct_rec_plain_call (the events without values); the engine gives only how
 * its values are found. No formatting, no lock in the common case, no
 * allocation: the writer thread (writer.h) does everything else.
 *
 * The skeletons and what they call on every event are static inline here,
 * so an engine's hook is one function. They call into the room's files
 * (internal.h), none of which includes this header. */
#ifndef CLRTRACE_RECORD_HOOKS_H
#define CLRTRACE_RECORD_HOOKS_H

#include "internal.h"


/* At a call's enter: the ACTIVITY record first when the thread's Activity
 * changed. The common case: two loads through the thread's kept
 * addresses and a compare. */
CT_REC_INLINE void ct_rec_activity(ct_tbuf *b)
{
    if (!g_act.on || !atomic_load_explicit(&ct_activity_assembly_seen, memory_order_relaxed))
        return;
    const ct_rec_thread *t = ct_rec_of(b);
    uint32_t e = atomic_load_explicit(&g_act.epoch, memory_order_relaxed) + 1;
    if (__builtin_expect(t->act_slot_epoch == e && t->act_ec_epoch == e && t->act_slot != 0,
                         1)) {
        uintptr_t th = *(const uintptr_t *)t->act_slot;
        uintptr_t ec = th ? *(const uintptr_t *)(th + g_act.ec_offset) : 0;
        if (__builtin_expect(ec == t->act_ec, 1))
            return;
    }
    ct_rec_activity_read(b);
}

static inline void ct_rec_rt_settle(ct_tbuf *b, uintptr_t sp, int naive)
{
    if (__builtin_expect(ct_rec_of(b)->nrt != 0, 0))
        ct_rec_rt_settle_slow(b, sp, naive);
}

/* 1 when the hook must stop here: a watched function that is not traced.
 * Its enter hook does what it is watched for. */
static inline int ct_rec_watched(uintptr_t id, int enter)
{
    const ct_mapped_fn *f = (const ct_mapped_fn *)id;
    if (__builtin_expect(!f->watched, 1))
        return 0;
    if (enter && id == atomic_load_explicit(&g_rec.watch_unhandled, memory_order_relaxed))
        ct_rec_on_unhandled();
    return !f->hooked;
}


static inline ct_tbuf *ct_rec_thread_self(void)
{
    ct_tbuf *b = ct_rec_self;
    return __builtin_expect(b != NULL, 1) ? b : ct_rec_thread_new();
}

static inline int ct_rec_budget(ct_tbuf *b, const ct_mapped_fn *f)
{
    if (__builtin_expect(!g_rec.budgeted, 1))
        return CT_BUDGET_RECORD;
    return ct_rec_budget_check(b, f);
}

static inline void ct_rec_close_left(ct_tbuf *b, uintptr_t csp, int naive)
{
    const ct_rec_thread *t = ct_rec_of(b);
    if (!csp || !t->depth || t->depth > CT_DROP_TRACK_FRAMES)
        return;
    uintptr_t sp = t->frame_sp[t->depth - 1];
    if (sp && sp <= csp)
        ct_rec_close_replaced(b, csp, naive);
}

/* ct_rec_end_verdict when f has conditions at the end. */
static inline void ct_rec_end_check(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_type how,
                                    ct_rec_ret_fn *ret, const void *ctx, const ct_rec_exc *x,
                                    uint64_t now, int naive)
{
    if (__builtin_expect(f && f->when_end != NULL, 0))
        ct_rec_end_verdict(b, f, how, ret, ctx, x, now, naive);
}

/* The enter of a call of f on b's thread, after the engine's checks
 * (recording, ct_rec_watched): the frames it replaced closed (csp: its
 * caller's SP, 0 when unknown), an ENTER record with the values args
 * finds when `values` and the gate is open, its frame opened. args and
 * naive are constants of the engine's entry point (no indirect call). */
CT_REC_INLINE void ct_rec_enter(ct_tbuf *b, const ct_mapped_fn *f, int values, uintptr_t csp,
                                ct_rec_args_fn *args, const void *ctx, int naive)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (ct_rec_is_busy(b)) {
        /* Re-entered (the runtime ran managed code inside our hook). */
        ct_tbuf_count_drop(b, 1);
        return;
    }
    ct_rec_busy(b, 1);
    uint64_t m0 = 0, h0 = 0;
    int measured = ct_rec_measure_begin(b, &m0, &h0);
    ct_rec_close_left(b, csp, naive);
    /* Out arguments of frames that ended without a leave (an exception, a
     * tail call) at this depth or deeper are not this call's. */
    if (t->nouts)
        ct_rec_outs_forget(b, t->depth);
    uint64_t key = (uint64_t)(uintptr_t)f;
    int budget = ct_rec_budget(b, f);
    if (budget == CT_BUDGET_SKIP) {
        ct_rec_frame_open_as(b, key, CT_FRAME_SKIPPED, csp);
        if (measured)
            ct_rec_measure_end(b, 1, m0, h0);
        ct_rec_busy(b, 0);
        return;
    }
    if (budget == CT_BUDGET_NO_VALUES_NOW)
        values = 0;
    if (!naive)
        ct_rec_activity(b);
    ct_rec_event ev;
    ct_rec_begin(b, &ev, CT_REC_ENTER, 0, 0, key, naive);
    /* The call starts now; the capture is the tracer's time. */
    uint64_t t0 = ct_now_ns(), held = ct_rec_held(b);
    int skip = 0;
    if (__builtin_expect(f->when != NULL || f->chosen_args != NULL, 0)) {
        /* A condition (--when) or chosen values (-A): the engine finds the
         * values as for a capture, but they are only collected (each
         * argument's slot and plan; nothing is copied), then read where
         * they are. A call whose condition does not hold is not recorded,
         * its frame kept; one whose condition holds is captured as any
         * other, or with -A its chosen values. */
        int got = values && ct_rec_gate_open(b, f) &&
                  ct_rec_collect_args(b, f, args, ctx, &ev.w, &ev.m);
        skip = f->when && (!got || !ct_rec_when_holds(b, f));
        if (!skip && got && f->chosen_args) {
            ct_rec_chosen_values(b, f, f->chosen_args, &ev.w, &ev.m);
        } else if (!skip && got) {
            /* Captured from the slots collected (or, past
             * CT_WHEN_MAX_ARGS of them, found again). */
            if (!ct_rec_values_collected(b, f, &ev.w, &ev.m) && !args(b, f, ctx, &ev.w, &ev.m))
                ct_rec_restart(b, &ev);
        }
        uint64_t t1 = ct_now_ns();
        ct_ring_hold(&b->ring, t1 > t0 ? t1 - t0 : 0);
    } else if (values && ct_rec_gate_open(b, f)) {
        if (!args(b, f, ctx, &ev.w, &ev.m))
            ct_rec_restart(b, &ev);
        uint64_t t1 = ct_now_ns();
        ct_ring_hold(&b->ring, t1 > t0 ? t1 - t0 : 0);
    }
    if (skip) {
        ct_rec_frame_open_as(b, key, CT_FRAME_SKIPPED, csp);
        if (measured)
            ct_rec_measure_end(b, 1, m0, h0);
        ct_rec_busy(b, 0);
        return;
    }
    ct_event_set_time(&ev.w, &ev.m, t0, held);
    int ok = naive ? ct_rec_publish_naive(b, &ev) : ct_rec_publish(b, &ev);
    ct_rec_frame_open(b, key, !ok, csp);
    if (measured)
        ct_rec_measure_end(b, 0, m0, h0);
    ct_rec_busy(b, 0);
}

/* The common start of an event that closes a frame (leave, tail call):
 * this thread's buffer, marked busy; or NULL when nothing is to be recorded
 * (a re-entered hook or a frame whose enter was dropped counts as a
 * drop). */
static inline ct_tbuf *ct_rec_close_begin(void)
{
    if (!ct_rec_recording())
        return NULL;
    ct_tbuf *b = ct_rec_thread_self();
    if (!b)
        return NULL;
    if (g_rec.attached && !ct_rec_of(b)->depth)
        return NULL; /* entered before the trace began */
    if (ct_rec_is_busy(b)) {
        ct_tbuf_count_drop(b, 1);
        return NULL;
    }
    /* Runtime-async frames gone from the stack close first (rtasync.c). */
    ct_rec_rt_settle(b, (uintptr_t)__builtin_frame_address(0), g_rec.naive);
    int how = ct_rec_frame_close(b);
    if (how) {
        ct_rec_count_unrecorded(b, how);
        return NULL;
    }
    ct_rec_busy(b, 1);
    return b;
}

/* The end of a call of f (type LEAVE or TAILCALL) that began at clock
 * time now (read after ct_rec_mark_self), after the engine's checks: its frame closed and a record
 * published, a LEAVE with values when f has values to show (has_ret: the
 * engine has its return value; or out arguments): the return value ret
 * finds (f->has_ret), then the out arguments. Else a record without
 * values. */
CT_REC_INLINE void ct_rec_close(ct_rec_type type, const ct_mapped_fn *f, int has_ret,
                                uint64_t now, ct_rec_ret_fn *ret, const void *ctx, int naive)
{
    ct_tbuf *b = ct_rec_close_begin();
    if (!b) {
        ct_rec_unmark_self(); /* the engine marked it (ct_rec_mark_self) */
        return;
    }
    uint64_t m0 = 0, h0 = 0;
    int measured = ct_rec_measure_begin(b, &m0, &h0);
    uint64_t key = (uint64_t)(uintptr_t)f;
    /* An async body whose task faulted (SetException): it ends by the
     * exception, as a throw would end it. */
    const ct_rec_exc *fault = __builtin_expect(ct_rec_of(b)->nfaults != 0, 0)
                                  ? ct_rec_fault_at(b, ct_rec_of(b)->depth + 1)
                                  : NULL;
    if (fault) {
        ct_rec_end_check(b, f, CT_REC_UNWIND, NULL, NULL, fault, now, naive);
        if (g_rec.srcline)
            ct_rec_line_event(b, now, key, fault->serial);
        ct_rec_unwind_event(b, now, key, fault);
        if (measured)
            ct_rec_measure_end(b, 0, m0, h0);
        ct_rec_busy(b, 0);
        return;
    }
    ct_rec_end_check(b, f, type, has_ret ? ret : NULL, ctx, NULL, now, naive);
    /* With -A, no out values (the chosen values stand for the arguments). */
    uint64_t outs = f->chosen_args ? 0 : f->out_mask;
    if (type != CT_REC_LEAVE || !f->values || !(has_ret || outs) || !ct_rec_gate_open(b, f)) {
        if (naive)
            ct_rec_plain_naive(b, type, now, key);
        else
            ct_rec_plain(b, type, now, key);
    } else {
        ct_rec_event ev;
        ct_rec_begin(b, &ev, CT_REC_LEAVE, now, ct_rec_held(b), key, naive);
        /* The out values come after the return value's place. */
        if (f->has_ret && __builtin_expect(f->chosen_ret != NULL, 0)) {
            /* -R: the return value collected, then the path read from it. */
            ct_rec_collect_ret(b, f, ret, ctx, &ev.w, &ev.m);
            ct_rec_chosen_values(b, f, f->chosen_ret, &ev.w, &ev.m);
        } else if (f->has_ret) {
            if (__builtin_expect(f->async_stub, 0))
                ct_rec_of(b)->ret_at = 0; /* the engine's ret sets it */
            ret(b, f, ctx, &ev.w, &ev.m);
        }
        if (outs)
            ct_rec_leave_outs(b, f, &ev.w, &ev.m, now);
        /* An async method's call: its id when its task goes on. */
        if (__builtin_expect(f->async_stub, 0) && f->has_ret && !f->chosen_ret)
            ct_rec_async_call(b, f, &ev.w, &ev.m, now);
        if (naive)
            ct_rec_publish_naive(b, &ev);
        else
            ct_rec_publish(b, &ev);
    }
    if (measured)
        ct_rec_measure_end(b, 0, m0, h0);
    /* An async call decided at its end whose task ended first: its
     * verdict now, after its LEAVE. */
    if (__builtin_expect(ct_rec_of(b)->late_id != 0, 0))
        ct_rec_async_late_verdict(b, naive);
    /* A faulted async call whose return was recorded otherwise (without
     * values): its id is not given to another. */
    if (__builtin_expect(ct_rec_of(b)->sync_id != 0, 0) &&
        ct_rec_of(b)->sync_depth > ct_rec_of(b)->depth)
        ct_rec_of(b)->sync_id = 0;
    ct_rec_busy(b, 0);
}

/* An enter, leave or tail call recorded without values and without the
 * re-entry guard (the fast path's stubs; the IL engine's probes without
 * values), of the function whose record is id. */
CT_REC_INLINE void ct_rec_plain_call(ct_rec_type type, uintptr_t id)
{
    if (g_rec.mode != CT_HOOKS_FAST || !ct_rec_recording() || ct_rec_watched(id, type == CT_REC_ENTER))
        return;
    ct_tbuf *b = ct_rec_thread_self();
    if (!b)
        return;
    /* Marked inside a hook before the time is read: the writer's watermark
     * (ct_ring.making). */
    ct_rec_busy(b, 1);
    uint64_t now = ct_now_ns();
    if (type == CT_REC_ENTER) {
        if (ct_rec_budget(b, (const ct_mapped_fn *)id) == CT_BUDGET_SKIP) {
            ct_rec_frame_open_as(b, (uint64_t)id, CT_FRAME_SKIPPED, 0);
        } else {
            ct_rec_activity(b);
            ct_rec_frame_open(b, (uint64_t)id, !ct_rec_plain(b, type, now, (uint64_t)id), 0);
        }
        ct_rec_busy(b, 0);
        return;
    }
    if (g_rec.attached && !ct_rec_of(b)->depth) {
        ct_rec_busy(b, 0);
        return; /* entered before the trace began */
    }
    int how = ct_rec_frame_close(b);
    if (how)
        ct_rec_count_unrecorded(b, how);
    else
        ct_rec_plain(b, type, now, (uint64_t)id);
    ct_rec_busy(b, 0);
}

#endif
