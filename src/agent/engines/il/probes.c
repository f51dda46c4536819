/* The IL engine's probes (probes.h): the addresses the rewritten code
 * hands over, read with the function's plans by the recorder's skeletons
 * (src/agent/record/record.h). */
#include "probes.h"

#include <string.h>

#include "agent/model/classnames.h"
#include "agent/model/plans/lineprobe.h"
#include "agent/model/plans/plans.h"
#include "agent/model/registry.h"
#include "agent/record/skeletons.h"

/* The IL engine's cache of generic instantiations per thread: entries,
 * and the most type handles an entry holds. */
#define CT_INST_CACHE 64
#define CT_INST_CACHE_HANDLES 3

/* The IL engine's part of a thread's state (ct_rec_engine): the last
 * instantiations of generic code found, by definition and type handles
 * (the registry's lock is taken on a miss only). */
typedef struct il_thread {
    struct {
        const ct_mapped_fn *def, *inst;
        uint32_t n;
        uintptr_t h[CT_INST_CACHE_HANDLES];
    } inst_cache[CT_INST_CACHE];
} il_thread;
_Static_assert(sizeof(il_thread) <= CT_REC_ENGINE_BYTES, "il_thread fits the engine area");

static inline il_thread *il_of(const ct_tbuf *b)
{
    return ct_rec_engine(b);
}

/* The argument addresses the probes at a method's entry hand over, one call
 * each, before its enter probe. */
static __thread uintptr_t t_probe_args[CT_PROBE_MAX_ARGS];
static __thread uint32_t t_probe_nargs;
/* How many the last enter probe took (--inject's decision reads them
 * again, right after it). */
static __thread uint32_t t_probe_entered;

/* The type handles generic code's entry hands over (CT_MAX_TYPE_ARGS + 1:
 * the class, then the method's type arguments). */
#define PROBE_MAX_HANDLES (CT_MAX_TYPE_ARGS + 1)
static __thread uintptr_t t_probe_targs[PROBE_MAX_HANDLES];
static __thread uint32_t t_probe_ntargs;

void ct_probe_targ(uintptr_t handle)
{
    uint32_t n = t_probe_ntargs;
    if (n < PROBE_MAX_HANDLES)
        t_probe_targs[n] = handle;
    t_probe_ntargs = n + 1;
}

void ct_probe_arg(uintptr_t addr)
{
    uint32_t n = t_probe_nargs;
    if (n < CT_PROBE_MAX_ARGS)
        t_probe_args[n] = addr;
    t_probe_nargs = n + 1;
}

/* The instantiation of definition def that the handles name, or def (also
 * when the class is not known: 0, a method of a generic class called on a
 * null `this`). */
static const ct_mapped_fn *probe_instance(ct_tbuf *b, const ct_mapped_fn *def, uint32_t n)
{
    if (n > PROBE_MAX_HANDLES || !t_probe_targs[0])
        return def;
    uintptr_t hash = (uintptr_t)def >> 4;
    for (uint32_t i = 0; i < n; i++)
        hash = hash * 31 + (t_probe_targs[i] >> 4);
    __typeof__(il_of(b)->inst_cache[0]) *e = &il_of(b)->inst_cache[hash & (CT_INST_CACHE - 1)];
    if (e->def == def && e->n == n && n <= CT_INST_CACHE_HANDLES &&
        !memcmp(e->h, t_probe_targs, n * sizeof *t_probe_targs))
        return e->inst;
    const ct_mapped_fn *inst = ct_registry_instance(def, t_probe_targs, n);
    if (!inst)
        return def;
    if (n <= CT_INST_CACHE_HANDLES) {
        e->def = def;
        e->inst = inst;
        e->n = n;
        memcpy(e->h, t_probe_targs, n * sizeof *t_probe_targs);
    }
    return inst;
}

/* Whether f's arguments can be read from the addresses the probes gave:
 * one per parameter (a state machine's MoveNext: its `this`), every plan
 * known (not shared generic code's, bound from the runtime's frame
 * information, which the IL engine does not have). */
static int probe_values(const ct_mapped_fn *f, uint32_t nargs)
{
    if (!f->values || f->late)
        return 0;
    if (f->sm_offsets)
        return nargs == 1;
    if (nargs != f->nargs || nargs > CT_PROBE_MAX_ARGS)
        return 0;
    for (uint32_t i = 0; i < nargs; i++)
        if (!ct_arg_plan(f, i))
            return 0;
    return 1;
}

/* The values of the call at the addresses the probes gave (ctx: how many).
 * The thread is in cooperative mode (the probe's calli suppresses the GC
 * transition): nothing moves while the values are copied. */
static int capture_args(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                        ct_event_mark *m)
{
    uint32_t nargs = (uint32_t)(uintptr_t)ctx;
    if (f->sm_offsets) {
        ct_rec_state_machine(b, f, t_probe_args[0], w, m);
        return 1;
    }
    COR_PRF_FUNCTION_ARGUMENT_RANGE r[CT_PROBE_MAX_ARGS];
    for (uint32_t i = 0; i < nargs; i++) {
        const ct_plan *p = ct_arg_plan(f, i);
        r[i].startAddress = t_probe_args[i];
        r[i].length = ct_rec_slot_len(p);
        ct_rec_value(b, w, m, p, r[i].startAddress, r[i].length, ct_rec_arg_depth(f, i));
    }
    if (f->out_mask)
        ct_rec_outs_track(b, f, r, nargs);
    return 1;
}

/* The return value at the address the probe gave (ctx; 0: missing). */
static void capture_ret(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                        ct_event_mark *m)
{
    uintptr_t ret_addr = (uintptr_t)ctx;
    const ct_plan *p = ct_arg_plan(f, f->nargs);
    if (__builtin_expect(f->async_stub, 0))
        ct_rec_of(b)->ret_at = ret_addr;
    ct_rec_value(b, w, m, p, p ? ret_addr : 0, p ? ct_rec_slot_len(p) : 0, g_ct.cfg.object_depth);
}

CT_REC_INLINE void probe_enter(uintptr_t client_id, int naive)
{
    uint32_t nargs = t_probe_nargs, ntargs = t_probe_ntargs;
    t_probe_nargs = t_probe_ntargs = 0;
    t_probe_entered = nargs;
    if (!ct_rec_recording())
        return;
    /* An async builder's SetException: `this` (the builder's address) and
     * its exception, the argument after it (cooperative mode: nothing moves). */
    if (__builtin_expect(((const ct_mapped_fn *)client_id)->watched == CT_WATCH_ASYNC_FAULT, 0) &&
        nargs == 2 && t_probe_args[0] && t_probe_args[1]) {
        ct_tbuf *b = ct_rec_thread_self();
        uint64_t builder, exc;
        memcpy(&builder, (const void *)t_probe_args[0], 8);
        memcpy(&exc, (const void *)t_probe_args[1], 8);
        if (b)
            ct_rec_async_fault(b, (uintptr_t)builder, exc);
    } else if (__builtin_expect(((const ct_mapped_fn *)client_id)->watched ==
                                    CT_WATCH_ASYNC_RESULT, 0) &&
               (nargs == 1 || nargs == 2) && t_probe_args[0]) {
        /* SetResult: `this` (the builder's address), and the result. */
        ct_tbuf *b = ct_rec_thread_self();
        uint64_t builder;
        memcpy(&builder, (const void *)t_probe_args[0], 8);
        if (b)
            ct_rec_async_result(b, (uintptr_t)builder, nargs == 2 ? t_probe_args[1] : 0, 0,
                                naive);
    }
    /* RuntimeAsyncTask<T>.HandleSuspended: the runtime-async frames this
     * thread ran have suspended (record/rtasync.c). */
    if (__builtin_expect(((const ct_mapped_fn *)client_id)->watched == CT_WATCH_RT_SUSPEND, 0)) {
        ct_tbuf *b = ct_rec_self;
        if (b)
            ct_rec_rt_suspended(b, naive);
    } else if (__builtin_expect(((const ct_mapped_fn *)client_id)->watched ==
                                    CT_WATCH_RT_FAULT, 0)) {
        /* Task.TrySetException: a chain's task faults. */
        ct_tbuf *b = ct_rec_self;
        if (b && ct_rec_of(b)->rt_fault_next)
            ct_rec_rt_task_faults(b);
    }
    if (ct_rec_watched(client_id, 1))
        return;
    const ct_mapped_fn *f = (const ct_mapped_fn *)client_id;
    ct_tbuf *b = ct_rec_thread_self();
    if (!b)
        return;
    ct_rec_rt_settle(b, (uintptr_t)__builtin_frame_address(0), naive);
    /* (Past the frames whose keys are kept, the leave could not find the
     * instantiation again: the frame is its definition's.) */
    if (ntargs && f->definition && ct_rec_of(b)->depth < CT_DROP_TRACK_FRAMES)
        f = probe_instance(b, f, ntargs);
    ct_rec_enter(b, f, probe_values(f, nargs), 0, capture_args, (const void *)(uintptr_t)nargs,
                 naive);
}

int32_t ct_probe_inject(uintptr_t client_id)
{
    const ct_mapped_fn *f = (const ct_mapped_fn *)client_id;
    uint32_t nargs = t_probe_entered;
    t_probe_entered = 0;
    ct_tbuf *b = ct_rec_recording() ? ct_rec_thread_self() : NULL;
    return ct_rec_inject_decide(b, f, probe_values(f, nargs) ? capture_args : NULL,
                                (const void *)(uintptr_t)nargs);
}

/* A frame the probe closes: a LEAVE, with the return value at ret_addr
 * (when has_ret; else it reads missing) and the out arguments when f has
 * them; else a plain LEAVE or TAILCALL. */
CT_REC_INLINE void probe_close(ct_rec_type type, uintptr_t id, int has_ret, uintptr_t ret_addr,
                               int naive)
{
    ct_rec_mark_self();
    uint64_t now = ct_now_ns();
    if (ct_rec_watched(id, 0)) {
        ct_rec_unmark_self();
        return;
    }
    /* Generic code: the frame's record is the instantiation its entry
     * found. */
    const ct_mapped_fn *def = (const ct_mapped_fn *)id;
    if (def->definition && ct_rec_self) {
        uint64_t top = ct_rec_top_key(ct_rec_self);
        if (top && ((const ct_mapped_fn *)(uintptr_t)top)->def == def)
            id = (uintptr_t)top;
    }
    ct_rec_close(type, (const ct_mapped_fn *)id, has_ret, now, capture_ret, (const void *)ret_addr,
                 naive);
}

/* A runtime-async call (record/rtasync.c; home: the address of the
 * method's local that holds the call's id). After its entry: */
void ct_probe_rt_begin(uintptr_t home, uintptr_t client_id)
{
    ct_tbuf *b = ct_rec_recording() ? ct_rec_self : NULL;
    if (b)
        ct_rec_rt_begin(b, (const ct_mapped_fn *)client_id, home);
    else
        memset((void *)home, 0, 8);
}

/* Before each awaited call (one an await follows): */
void ct_probe_rt_awaiting(uintptr_t home, uintptr_t client_id)
{
    (void)client_id;
    ct_tbuf *b = ct_rec_recording() ? ct_rec_self : NULL;
    if (b)
        ct_rec_rt_awaiting(b, home);
}

/* After each await: */
void ct_probe_rt_resumed(uintptr_t home, uintptr_t client_id)
{
    ct_tbuf *b = ct_rec_recording() ? ct_rec_thread_self() : NULL;
    if (b)
        ct_rec_rt_resumed(b, (const ct_mapped_fn *)client_id, home,
                          (uintptr_t)__builtin_frame_address(0));
}

/* Before each ret, its value at ret_addr (0: none, a Task's): */
static void probe_rt_end(uintptr_t ret_addr, uintptr_t home, uintptr_t client_id)
{
    ct_tbuf *b = ct_rec_recording() ? ct_rec_thread_self() : NULL;
    if (b && !ct_rec_rt_return(b, (const ct_mapped_fn *)client_id, home, ret_addr,
                               (uintptr_t)__builtin_frame_address(0), 0))
        return;
    probe_close(CT_REC_LEAVE, client_id, ret_addr != 0, ret_addr, 0);
}

void ct_probe_rt_return(uintptr_t ret_addr, uintptr_t home, uintptr_t client_id)
{
    probe_rt_end(ret_addr, home, client_id);
}

void ct_probe_rt_leave(uintptr_t home, uintptr_t client_id)
{
    probe_rt_end(0, home, client_id);
}

/* An async body about to return (under attach, probes.h leave_this): its
 * task, when complete, ends its async call. Its own frame, the innermost
 * open one, is still open. */
static void probe_body_end(uintptr_t this_addr, uintptr_t client_id, int naive)
{
    if (!ct_rec_recording() || !this_addr)
        return;
    ct_tbuf *b = ct_rec_thread_self();
    if (b && ct_rec_of(b)->depth && ct_rec_top_key(b) == (uint64_t)client_id)
        ct_rec_async_body_end(b, (const ct_mapped_fn *)client_id, this_addr, naive);
}

/* A line probe's values (ctx: the probe): each at its input's address, or
 * a state machine's field at an offset from the reference (byref) there.
 * Cooperative mode: nothing moves while they are copied. */
static int capture_line(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                        ct_event_mark *m)
{
    const ct_line_probe *lp = ctx;
    for (uint32_t i = 0; i < f->nargs; i++) {
        const ct_line_value *v = &lp->vals[i];
        uintptr_t addr = t_probe_args[v->in];
        if (v->offset != CT_SM_NO_FIELD) {
            uint64_t base = 0;
            if (addr)
                memcpy(&base, (const void *)addr, 8);
            addr = base ? (uintptr_t)(base + v->offset) : 0;
        }
        const ct_plan *p = f->args[i].plan;
        ct_rec_value(b, w, m, p, addr, ct_rec_slot_len(p), ct_rec_arg_depth(f, i));
    }
    return 1;
}

_Static_assert(CT_LINE_MAX_VALUES <= CT_PROBE_MAX_ARGS, "a line probe's inputs are kept");

/* A line probe's (or a locals record's) call: its probe, and this thread's
 * buffer when the trace records; NULL otherwise. The inputs handed over
 * are taken (*n of them). */
static const ct_line_probe *line_begin(uintptr_t id, uint32_t *n, ct_tbuf **b)
{
    *n = t_probe_nargs;
    t_probe_nargs = t_probe_ntargs = 0;
    if (!ct_rec_recording())
        return NULL;
    *b = ct_rec_thread_self();
    return *b ? (const ct_line_probe *)id : NULL;
}

/* --locals: from the exception filter around a traced method's body (its
 * first pass: the frame as the throw left it), its locals record. */
static void probe_fault(uintptr_t id)
{
    uint32_t n;
    ct_tbuf *b = NULL;
    const ct_line_probe *lp = line_begin(id, &n, &b);
    if (lp && n == lp->nin)
        ct_rec_locals(b, lp->fn, lp->fn->def, n ? t_probe_args[0] : 0, capture_line, lp);
}

static void probe_line(uintptr_t id)
{
    uint32_t n;
    ct_tbuf *b = NULL;
    const ct_line_probe *lp = line_begin(id, &n, &b);
    if (!lp)
        return;
    ct_rec_enter(b, lp->fn, n == lp->nin, 0, capture_line, lp, 0);
    probe_close(CT_REC_LEAVE, (uintptr_t)lp->fn, 0, 0, 0);
}

/* The enter probe with k argument addresses in its own call (probes.h,
 * enter_with): the last k of the method's, after those ct_probe_arg took. */
#define A(i) uintptr_t a##i
#define P(i) ct_probe_arg(a##i)
#define IL_ENTER_WITH(name, naive)                                                            \
    static void name##_with1(A(0), uintptr_t id)                                              \
    {                                                                                         \
        P(0);                                                                                 \
        probe_enter(id, naive);                                                               \
    }                                                                                         \
    static void name##_with2(A(0), A(1), uintptr_t id)                                        \
    {                                                                                         \
        P(0), P(1);                                                                           \
        probe_enter(id, naive);                                                               \
    }                                                                                         \
    static void name##_with3(A(0), A(1), A(2), uintptr_t id)                                  \
    {                                                                                         \
        P(0), P(1), P(2);                                                                     \
        probe_enter(id, naive);                                                               \
    }                                                                                         \
    static void name##_with4(A(0), A(1), A(2), A(3), uintptr_t id)                            \
    {                                                                                         \
        P(0), P(1), P(2), P(3);                                                               \
        probe_enter(id, naive);                                                               \
    }                                                                                         \
    static void name##_with5(A(0), A(1), A(2), A(3), A(4), uintptr_t id)                      \
    {                                                                                         \
        P(0), P(1), P(2), P(3), P(4);                                                         \
        probe_enter(id, naive);                                                               \
    }                                                                                         \
    static void name##_with6(A(0), A(1), A(2), A(3), A(4), A(5), uintptr_t id)                \
    {                                                                                         \
        P(0), P(1), P(2), P(3), P(4), P(5);                                                   \
        probe_enter(id, naive);                                                               \
    }
_Static_assert(CT_PROBE_ENTER_ADDRS == 6, "one enter probe per number of addresses");
#define IL_ENTER_WITH_LIST(name)                                                              \
    {0, (uintptr_t)name##_with1, (uintptr_t)name##_with2, (uintptr_t)name##_with3,           \
     (uintptr_t)name##_with4, (uintptr_t)name##_with5, (uintptr_t)name##_with6}

/* The probes with values, publishing into the ring (ring) or, in the
 * bench-only naive mode, rendering each record at once (naive). */
#define IL_VALUE_PROBES(name, naive)                                     \
    IL_ENTER_WITH(name, naive)                                           \
    static void name##_enter(uintptr_t client_id)                        \
    {                                                                    \
        probe_enter(client_id, naive);                                   \
    }                                                                    \
    static void name##_leave(uintptr_t client_id)                        \
    {                                                                    \
        probe_close(CT_REC_LEAVE, client_id, 0, 0, naive);               \
    }                                                                    \
    static void name##_return(uintptr_t ret_addr, uintptr_t client_id)   \
    {                                                                    \
        probe_close(CT_REC_LEAVE, client_id, 1, ret_addr, naive);        \
    }                                                                    \
    static void name##_tailcall(uintptr_t client_id)                     \
    {                                                                    \
        probe_close(CT_REC_TAILCALL, client_id, 0, 0, naive);            \
    }                                                                    \
    static void name##_leave_this(uintptr_t this_addr, uintptr_t client_id) \
    {                                                                    \
        probe_body_end(this_addr, client_id, naive);                     \
        probe_close(CT_REC_LEAVE, client_id, 0, 0, naive);               \
    }                                                                    \
    static const ct_il_probes name = {name##_enter, name##_leave, name##_return, name##_tailcall, \
                                      name##_leave_this, IL_ENTER_WITH_LIST(name)};

IL_VALUE_PROBES(probes_ring, 0)
IL_VALUE_PROBES(probes_naive, 1)

/* Without values: times only. */
static void probe_enter_plain(uintptr_t client_id)
{
    ct_rec_plain_call(CT_REC_ENTER, client_id);
}

static void probe_leave_plain(uintptr_t client_id)
{
    ct_rec_plain_call(CT_REC_LEAVE, client_id);
}

static void probe_tailcall_plain(uintptr_t client_id)
{
    ct_rec_plain_call(CT_REC_TAILCALL, client_id);
}

/* A line probe's batches (probes.h, ct_il_line_probes): six addresses,
 * kept in one thread-local lookup; the last k with the probe. */
#define KEEP(i)                                            \
    do {                                                   \
        if (n + (i) < CT_PROBE_MAX_ARGS)                   \
            t_probe_args[n + (i)] = a##i;                  \
    } while (0)
static void line_args6(A(0), A(1), A(2), A(3), A(4), A(5))
{
    uint32_t n = t_probe_nargs;
    KEEP(0); KEEP(1); KEEP(2); KEEP(3); KEEP(4); KEEP(5);
    t_probe_nargs = n + 6;
}
/* A probe taking the last k addresses and its probe's id: kept, then
 * `target` called (line_with1 ... line_with6, fault_with1 ...). */
#define WITH_K(name, target)                                                                 \
    static void name##0(uintptr_t id)                                                        \
    {                                                                                        \
        target(id);                                                                          \
    }                                                                                        \
    static void name##1(A(0), uintptr_t id)                                                  \
    {                                                                                        \
        uint32_t n = t_probe_nargs;                                                          \
        KEEP(0);                                                                             \
        t_probe_nargs = n + 1;                                                               \
        target(id);                                                                          \
    }                                                                                        \
    static void name##2(A(0), A(1), uintptr_t id)                                            \
    {                                                                                        \
        uint32_t n = t_probe_nargs;                                                          \
        KEEP(0); KEEP(1);                                                                    \
        t_probe_nargs = n + 2;                                                               \
        target(id);                                                                          \
    }                                                                                        \
    static void name##3(A(0), A(1), A(2), uintptr_t id)                                      \
    {                                                                                        \
        uint32_t n = t_probe_nargs;                                                          \
        KEEP(0); KEEP(1); KEEP(2);                                                           \
        t_probe_nargs = n + 3;                                                               \
        target(id);                                                                          \
    }                                                                                        \
    static void name##4(A(0), A(1), A(2), A(3), uintptr_t id)                                \
    {                                                                                        \
        uint32_t n = t_probe_nargs;                                                          \
        KEEP(0); KEEP(1); KEEP(2); KEEP(3);                                                  \
        t_probe_nargs = n + 4;                                                               \
        target(id);                                                                          \
    }                                                                                        \
    static void name##5(A(0), A(1), A(2), A(3), A(4), uintptr_t id)                          \
    {                                                                                        \
        uint32_t n = t_probe_nargs;                                                          \
        KEEP(0); KEEP(1); KEEP(2); KEEP(3); KEEP(4);                                         \
        t_probe_nargs = n + 5;                                                               \
        target(id);                                                                          \
    }                                                                                        \
    static void name##6(A(0), A(1), A(2), A(3), A(4), A(5), uintptr_t id)                    \
    {                                                                                        \
        uint32_t n = t_probe_nargs;                                                          \
        KEEP(0); KEEP(1); KEEP(2); KEEP(3); KEEP(4); KEEP(5);                                \
        t_probe_nargs = n + 6;                                                               \
        target(id);                                                                          \
    }
#define WITH_K_LIST(name)                                                                    \
    {(uintptr_t)name##0, (uintptr_t)name##1, (uintptr_t)name##2, (uintptr_t)name##3,         \
     (uintptr_t)name##4, (uintptr_t)name##5, (uintptr_t)name##6}
_Static_assert(CT_PROBE_ENTER_ADDRS == 6, "one batch probe per number of addresses");
WITH_K(line_with, probe_line)
WITH_K(fault_with, probe_fault)
#undef KEEP

const ct_il_line_probes *ct_il_line_probes_get(void)
{
    static const ct_il_line_probes lines = {(uintptr_t)line_args6, WITH_K_LIST(line_with),
                                            WITH_K_LIST(fault_with)};
    return &lines;
}

const ct_il_probes *ct_il_probes_for(int values)
{
    static const ct_il_probes plain = {probe_enter_plain, probe_leave_plain, NULL,
                                       probe_tailcall_plain, NULL, {0}};
    return !values ? &plain : g_ct.cfg.bench_naive ? &probes_naive : &probes_ring;
}
