/* The ELT engine (hooks.h): the runtime's enter/leave hooks with the
 * argument locations it gives (GetFunctionEnter3Info, or argmap's learned
 * ones), and the fast path's callbacks for the stubs of asm/. What they
 * record, and how, is the recorder's (src/agent/record/record.h). */
#include "hooks.h"

#include <string.h>

#include "argmap.h"
#include "agent/engines/elt/asm/elt_stubs.h"
#include "agent/writer/writer.h"
#include "agent/model/plans/plans.h"
#include "agent/model/registry.h"
#include "agent/runtime/state.h"

/* The ELT engine's part of a thread's state (ct_rec_engine). */
typedef struct elt_thread {
    ct_argmap_snapshot snap;      /* the runtime's frame, while argmap learns */
} elt_thread;
_Static_assert(sizeof(elt_thread) <= CT_REC_ENGINE_BYTES, "elt_thread fits the engine area");

static inline elt_thread *ct_elt(const ct_tbuf *b)
{
    return ct_rec_engine(b);
}

/* Argument info fetched on the stack: 8 bytes of header plus 16 per range,
 * so up to 255 ranges. Larger infos record no values ("(?)"). */
#define ARG_INFO_MAX_BYTES 4096
/* Argument info fetched for a state machine's MoveNext (one range). */
#define SM_ARG_INFO_BYTES 256

/* ------------------------------------------------ tail calls, unhooked
 *
 * The runtime's tail-call helper (ProfileTailcallNaked, vm/amd64/
 * asmhelpers.S) saves and reloads xmm0-xmm7 with movsd, 64 bits each, while
 * the JIT keeps values it believes preserved in xmm0/xmm1 across it
 * (targetamd64.h: RBM_PROFILER_TAILCALL_TRASH spares the float return
 * registers; Lowering::LowerFastTailCall puts the hook after the arguments
 * are computed). A Vector128/256 argument of a fast tail call then arrives
 * with its upper half zeroed: the program computes something else. So the
 * slow path registers no tail-call hook: the JIT then calls a bare `ret`
 * (jithelpers.cpp maps a NULL hook to JIT_ProfilerEnterLeaveTailcallStub)
 * and the program runs as it would untraced, tail calls included.
 *
 * The frame a tail call leaves is recognised instead when the next function
 * enters on the thread: the JIT passes every profiled method's caller SP to
 * the enter helper, which stores it in its frame (PROFILE_PLATFORM_SPECIFIC_
 * DATA.profiledRsp, offset 0x20; COR_PRF_ELT_INFO points at a handle whose
 * first word is that structure's address: vm/amd64/profiler.cpp). A
 * callee that replaced its caller's frame has the caller's caller SP; a
 * called function has a lower one (the stack grows down), below every frame
 * still live. So every open frame whose caller SP is not above the entering
 * function's has been left: by a tail call (no hook), and is closed as
 * such. A frame whose caller SP is not known (outside this thread's stack)
 * is never closed this way. */
#define ELT_CALLER_SP_OFFSET 0x20

static inline uintptr_t caller_sp(const ct_tbuf *b, COR_PRF_ELT_INFO elt)
{
#if !defined(__x86_64__)
    /* Another helper frame layout: not known, so frames are never closed
     * this way (tail calls then read as unfinished frames). */
    (void)b;
    (void)elt;
    return 0;
#endif
    uintptr_t data, sp;
    memcpy(&data, (const void *)(uintptr_t)elt, sizeof data);
    /* The helper's data is in its frame, above the handle; the caller SP
     * above both, inside this thread's stack, aligned. */
    if (data <= (uintptr_t)elt || data >= ct_rec_of(b)->stack_hi - ELT_CALLER_SP_OFFSET - sizeof sp)
        return 0;
    memcpy(&sp, (const void *)(data + ELT_CALLER_SP_OFFSET), sizeof sp);
    if (sp <= data || sp > ct_rec_of(b)->stack_hi || (sp & 7))
        return 0;
    return sp;
}

/* While argmap learns where a function's values are (learning): the
 * runtime's frame copied before asking it; else NULL. */
static ct_argmap_snapshot *learning_snap(ct_tbuf *b, int learning, COR_PRF_ELT_INFO elt)
{
    if (!learning)
        return NULL;
    ct_argmap_snapshot *snap = &ct_elt(b)->snap;
    ct_argmap_snap(snap, elt, ct_rec_of(b)->stack_hi);
    return snap;
}

/* A state machine's MoveNext (registry.h, sm_offsets): its values are
 * fields of the state machine, which its one argument range (`this`: the
 * struct's address, or the object reference of a class) points to. The
 * runtime hands MoveNext a valid state machine, boxed or on the stack, and
 * holds it still during the hook. 0 when the runtime gave no range. */
static int capture_state_machine(ct_tbuf *b, const ct_mapped_fn *f, COR_PRF_ELT_INFO elt,
                                 ct_wbuf *w, ct_event_mark *m)
{
    ICorProfilerInfo *info = g_ct.info;
    COR_PRF_FRAME_INFO frame = 0;
    /* One range, but the runtime asks for room for more (40 bytes on .NET
     * 10 for a struct's MoveNext). */
    union {
        COR_PRF_FUNCTION_ARGUMENT_INFO info;
        uint64_t align[SM_ARG_INFO_BYTES / sizeof(uint64_t)];
    } args;
    ULONG size = sizeof args;
    if (FAILED(info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &size, &args.info)) ||
        args.info.numRanges != 1 || args.info.ranges[0].length != 8)
        return 0;
    ct_rec_state_machine(b, f, args.info.ranges[0].startAddress, w, m);
    return 1;
}

/* The argument values of the call into w; 0 when the runtime gave none
 * (the event then has no values and reads "(?)"). */
static int capture_args(ct_tbuf *b, const ct_mapped_fn *cf, const void *ctx, ct_wbuf *w,
                        ct_event_mark *m)
{
    /* The function's record, which the hooks update (the size of its
     * argument info, its late plans, argmap's learning). */
    ct_mapped_fn *f = (ct_mapped_fn *)cf;
    COR_PRF_ELT_INFO elt = (COR_PRF_ELT_INFO)(uintptr_t)ctx;
    if (f->sm_offsets)
        return capture_state_machine(b, f, elt, w, m);
    /* Known locations: read them without asking the runtime. */
    COR_PRF_FUNCTION_ARGUMENT_RANGE direct[CT_ARGMAP_MAX_DIRECT];
    if (f->nargs <= CT_ARGMAP_MAX_DIRECT && ct_argmap_enter(f, elt, direct)) {
        for (uint32_t i = 0; i < f->nargs; i++)
            ct_rec_value(b, w, m, ct_arg_plan(f, i), direct[i].startAddress, direct[i].length,
                         ct_rec_arg_depth(f, i));
        if (f->out_mask)
            ct_rec_outs_track(b, f, direct, f->nargs);
        return 1;
    }
    ct_argmap_snapshot *snap = learning_snap(b, ct_argmap_learning_enter(f), elt);
    ICorProfilerInfo *info = g_ct.info;
    /* Learn the size once per function: a first call with a zero size (and
     * no buffer) answers HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) and
     * the size needed; the size depends only on the signature. */
    COR_PRF_FRAME_INFO frame = 0;
    ULONG need = atomic_load_explicit(&f->arginfo_size, memory_order_relaxed);
    if (!need) {
        ULONG probe = 0;
        HRESULT hr = info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &probe, NULL);
        if ((hr == HRESULT_INSUFFICIENT_BUFFER || SUCCEEDED(hr)) && probe) {
            need = probe;
            atomic_store_explicit(&f->arginfo_size, need, memory_order_relaxed);
        }
    }
    union {
        COR_PRF_FUNCTION_ARGUMENT_INFO info;
        uint64_t align[ARG_INFO_MAX_BYTES / sizeof(uint64_t)];
    } args;
    if (!need || need > sizeof args)
        return 0;
    ULONG size = need;
    if (FAILED(info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &size, &args.info)) ||
        args.info.numRanges != f->nargs)
        return 0;
    /* Shared generic code: the plans come from the first call's frame; the
     * function's record is written again with them. */
    if (f->late && atomic_load(&f->late_state) == CT_LATE_UNBOUND && ct_plan_late(f, frame))
        ct_writer_define(f);
    if (snap)
        ct_argmap_learn_enter(f, snap, &args.info);
    for (ULONG i = 0; i < args.info.numRanges; i++)
        ct_rec_value(b, w, m, ct_arg_plan(f, i), args.info.ranges[i].startAddress,
                     args.info.ranges[i].length, ct_rec_arg_depth(f, i));
    if (f->out_mask)
        ct_rec_outs_track(b, f, args.info.ranges, args.info.numRanges);
    return 1;
}

/* The return value of a LEAVE (f->has_ret): where argmap learned it is,
 * or where the runtime says (a MISSING value when it does not, and out
 * arguments follow). */
static void capture_ret(ct_tbuf *b, const ct_mapped_fn *cf, const void *ctx, ct_wbuf *w,
                        ct_event_mark *m)
{
    ct_mapped_fn *f = (ct_mapped_fn *)cf;
    COR_PRF_ELT_INFO elt = (COR_PRF_ELT_INFO)(uintptr_t)ctx;
    COR_PRF_FUNCTION_ARGUMENT_RANGE range = {0, 0};
    if (ct_argmap_leave(f, elt, &range)) {
        if (__builtin_expect(f->async_stub, 0))
            ct_rec_of(b)->ret_at = (uintptr_t)range.startAddress;
        ct_rec_value(b, w, m, ct_arg_plan(f, f->nargs), range.startAddress, range.length,
                     g_ct.cfg.object_depth);
        return;
    }
    ct_argmap_snapshot *snap = learning_snap(b, ct_argmap_learning_leave(f), elt);
    ICorProfilerInfo *info = g_ct.info;
    COR_PRF_FRAME_INFO frame = 0;
    if (SUCCEEDED(info->lpVtbl->GetFunctionLeave3Info(info, f->id, elt, &frame, &range))) {
        if (snap)
            ct_argmap_learn_leave(f, snap, &range);
        if (__builtin_expect(f->async_stub, 0))
            ct_rec_of(b)->ret_at = (uintptr_t)range.startAddress;
        ct_rec_value(b, w, m, ct_arg_plan(f, f->nargs), range.startAddress, range.length,
                     g_ct.cfg.object_depth);
    } else if (f->out_mask) {
        /* The out values come after the return value's place. */
        ct_rec_value(b, w, m, ct_arg_plan(f, f->nargs), 0, 0, 0);
    }
}

/* ------------------------------------------------------ the slow path */

/* An async builder's SetException (CT_WATCH_ASYNC_FAULT) or SetResult
 * (CT_WATCH_ASYNC_RESULT): `this` (the builder's address) and the argument
 * after it (the exception; the result, when the task has one), read where
 * the runtime says they are. The argument info's room, in ranges. */
#define CT_ASYNC_WATCH_RANGES 16
static void async_watch(const ct_mapped_fn *f, COR_PRF_ELT_INFO elt)
{
    ct_tbuf *b = ct_rec_thread_self();
    ICorProfilerInfo *info = g_ct.info;
    COR_PRF_FRAME_INFO frame = 0;
    /* (The runtime asks for room beyond the ranges it fills: 136 bytes
     * for SetException's two on .NET 10; a smaller buffer is refused.) */
    _Alignas(16) unsigned char buf[sizeof(COR_PRF_FUNCTION_ARGUMENT_INFO) +
                                   CT_ASYNC_WATCH_RANGES * sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE)];
    COR_PRF_FUNCTION_ARGUMENT_INFO *args = (COR_PRF_FUNCTION_ARGUMENT_INFO *)(void *)buf;
    ULONG size = sizeof buf;
    if (!b || FAILED(info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &size, args)) ||
        args->numRanges < 1 || args->numRanges > 2 || args->ranges[0].length != 8 ||
        !args->ranges[0].startAddress)
        return;
    uint64_t builder;
    memcpy(&builder, (const void *)(uintptr_t)args->ranges[0].startAddress, 8);
    const COR_PRF_FUNCTION_ARGUMENT_RANGE *arg = args->numRanges == 2 ? &args->ranges[1] : NULL;
    if (f->watched == CT_WATCH_ASYNC_RESULT) {
        ct_rec_async_result(b, (uintptr_t)builder, arg ? (uintptr_t)arg->startAddress : 0,
                            arg ? arg->length : 0, g_rec.naive);
    } else if (arg && arg->length == 8 && arg->startAddress) {
        uint64_t exc;
        memcpy(&exc, (const void *)(uintptr_t)arg->startAddress, 8);
        ct_rec_async_fault(b, (uintptr_t)builder, exc);
    }
}

CT_REC_INLINE void elt_enter(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt, int naive)
{
    if (!ct_rec_recording())
        return;
    int watched = ((const ct_mapped_fn *)id.clientID)->watched;
    if (__builtin_expect(watched == CT_WATCH_ASYNC_FAULT || watched == CT_WATCH_ASYNC_RESULT, 0))
        async_watch((const ct_mapped_fn *)id.clientID, elt);
    if (ct_rec_watched(id.clientID, 1))
        return;
    const ct_mapped_fn *f = (const ct_mapped_fn *)id.clientID;
    CT_EH_LOG_EVENT("enter", f->name);
    ct_tbuf *b = ct_rec_thread_self();
    if (!b)
        return;
    ct_rec_enter(b, f, f->values, caller_sp(b, elt), capture_args, (const void *)(uintptr_t)elt,
                 naive);
}

CT_REC_INLINE void elt_leave(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt, int naive)
{
    ct_rec_mark_self();
    uint64_t now = ct_now_ns();
    const ct_mapped_fn *f = (const ct_mapped_fn *)id.clientID;
    if (ct_rec_watched(id.clientID, 0)) {
        ct_rec_unmark_self();
        return;
    }
    CT_EH_LOG_EVENT("leave", f->name);
    ct_rec_close(CT_REC_LEAVE, f, f->has_ret, now, capture_ret, (const void *)(uintptr_t)elt, naive);
}

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    elt_enter(id, elt, 0);
}

void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    elt_leave(id, elt, 0);
}

void ct_enter_hook_naive(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    elt_enter(id, elt, 1);
}

void ct_leave_hook_naive(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    elt_leave(id, elt, 1);
}

void ct_null_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    (void)id;
    (void)elt;
}

void ct_null_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    (void)id;
    (void)elt;
}

/* ----------------------------------------------------- the fast path */

/* Called by the stubs of asm/ straight from JIT-compiled code. */
void ct_fast_enter(uintptr_t client_id)
{
    ct_rec_plain_call(CT_REC_ENTER, client_id);
}

void ct_fast_leave(uintptr_t client_id)
{
    ct_rec_plain_call(CT_REC_LEAVE, client_id);
}

void ct_fast_tailcall(uintptr_t client_id)
{
    ct_rec_plain_call(CT_REC_TAILCALL, client_id);
}
