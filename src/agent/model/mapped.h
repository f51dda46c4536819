/* A function's record (ct_mapped_fn), what the registry makes once per
 * function and the hooks read: its type alone, for the model's files that
 * plan or probe a function without the registry (lineprobe.c, the
 * planner), and for everyone through registry.h. */
#ifndef CLRTRACE_MAPPED_H
#define CLRTRACE_MAPPED_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "format/value.h"
#include "agent/runtime/corprof_decls.h"
#include "modules.h"
#include "when_bind.h"

/* One argument range as the runtime reports it (`this` first). */
typedef struct ct_arg {
    const char *label;    /* printed before the value: "int a=", "this=" */
    const ct_plan *plan;  /* NULL: late (known at the first call, see ct_late) */
} ct_arg;

/* What late binding needs: generic code shared between instantiations
 * (System.__Canon) whose class instantiation the runtime could not name at
 * map time. The first call resolves the exact instantiation from the frame
 * (GetFunctionInfo2) and plans the parameters typed by class type
 * parameters; every later call reuses those plans. */
typedef struct ct_late {
    ModuleID module;
    mdToken method;
    const uint8_t *sig;   /* a permanent copy of the method signature */
    uint32_t sig_len;
} ct_late;

/* Whether a function's late plans (those that need the runtime's view of
 * its first call's frame) are bound. */
typedef enum ct_late_state {
    CT_LATE_UNBOUND = 0,
    CT_LATE_BINDING = 1,  /* one thread binds them; the others go on without */
    CT_LATE_BOUND = 2
} ct_late_state;

/* Why a function is hooked for the profiler's own use (ct_mapped_fn.watched). */
enum {
    CT_WATCH_NONE = 0,
    CT_WATCH_UNHANDLED = 1,  /* AppContext.OnUnhandledException: the runtime's
                                unhandled-exception path */
    CT_WATCH_ASYNC_FAULT = 2,/* an async method builder's SetException(Exception):
                                the async body calling it ends by that exception */
    CT_WATCH_ASYNC_RESULT = 3,/* an async method builder's SetResult: the async
                                call whose task it completes ends with its result */
    CT_WATCH_RT_SUSPEND = 4, /* RuntimeAsyncTask<T>.HandleSuspended (.NET 11): the
                                runtime-async frames this thread ran have suspended */
    CT_WATCH_RT_FAULT = 5    /* Task.TrySetException: a runtime-async chain's task
                                faults with the exception no call of it handled */
};

/* A function the runtime mapped (one per FunctionID), as the profiler
 * knows it. (The CLI's ct_function, src/views/symbols.h, is what a
 * trace's FUNCTION record says; this is its source.) */
typedef struct ct_mapped_fn {
    FunctionID id;
    int hooked;                 /* passes the filter: traced */
    int watched;                /* CT_WATCH_*: hooked for the profiler's own use
                                   (engines/elt/hooks.c, engines/il/probes.c) */
    int trigger;                /* matches CLRTRACE_TRIGGER: values are captured only
                                   while such a frame is open on the thread (hooks.c) */
    atomic_uint arginfo_size;   /* bytes GetFunctionEnter3Info needs; 0 until learned */
    const char *name;           /* metadata name, "Demo.Box`1.Get"; "?" when unknown */
    const char *display;        /* as printed, "Demo.Box<int>.Get" */
    int generic;                /* its type or itself has type parameters: its IL
                                   serves other instantiations too (il/ilprobe.c) */
    ModuleID module;            /* the method's module and token */
    mdToken token;
    /* The IL engine's generic code: a definition's record (named with its
     * type parameters), or an instantiation's (its definition; the type
     * handles that name it: the declaring class, then the method's type
     * arguments). */
    int definition;
    const struct ct_mapped_fn *def;
    const uintptr_t *inst;
    uint32_t ninst;

    /* Line probes (lineprobe.h): this is one's record (its values are its
     * parameters; an ENTER is a hit, its LEAVE follows at once), or the
     * probes in this method (NULL: none). */
    int line_probe;             /* 1: a line probe's record; 2: a locals record (--locals) */
    const struct ct_line_probes *lines;
    /* --locals: the record of this method's frame's values as an exception
     * passes through it (lineprobe.h), or NULL. */
    const struct ct_line_probe *locals;

    /* Values. With values == 0 the call is printed as display + "(...)". */
    int values;
    uint32_t nargs;             /* ranges expected, `this` included */
    const ct_arg *args;
    int has_ret;                /* not void */
    const ct_plan *ret;         /* NULL with has_ret: late */
    const char *ret_label;      /* "int " */

    /* A compiler-generated state machine's MoveNext shown as the method it
     * implements (plans.h, ct_plan_state_machine): its nargs values are read
     * from the fields of `this` (the state machine) at these offsets, not
     * from argument ranges; CT_SM_NO_FIELD: a parameter with no field. NULL
     * for every other function. */
    const uint32_t *sm_offsets;
    /* With sm_offsets: where in the state machine the field is whose
     * SetException faults its task (an async method's <>t__builder, an
     * async iterator's <>v__promiseOfValueOrEnd); CT_SM_NO_FIELD: none. */
    uint32_t sm_fault_at;
    /* With sm_fault_at: the field is CoreLib's async method builder, whose
     * first word is a reference (its task): an attached body's end reads
     * it (record/asynccall.c). */
    int sm_task_first;
    /* An async method (AsyncStateMachineAttribute) returning a Task,
     * Task<T>, ValueTask or ValueTask<T>: its call goes on until its task
     * completes (record/asynccall.c); the task's reference is at
     * async_task_at in the return value (a ValueTask's _obj). */
    int async_stub;
    uint32_t async_task_at;
    /* A runtime-async method (.NET 11, CorMethodImpl miAsync: no state
     * machine; the runtime suspends and resumes its frame): its IL returns
     * the awaited value, so its return plan is the T of its Task<T> or
     * ValueTask<T> (none for Task, ValueTask); the IL engine follows its
     * call past a suspension to its end (record/rtasync.c). */
    int rt_async;

    /* Out, ref and in parameters whose target is read again at return (bit
     * i: argument i, of the first 64; known plans only, fixed at map time):
     * the LEAVE record carries one value for each after the return value,
     * and the FUNCTION record says which (ct_rec.out_mask). */
    uint64_t out_mask;

    /* The conditions (--when) that decide whether a call is recorded, bound
     * to its arguments (when_bind.h); NULL: none, every call is. */
    const ct_when_fn *when;
    /* Those that decide at its end (return, exception, out parameters):
     * the call is recorded, and a false one's end tells the writer, which
     * holds the call's events until then (ct_filter_opts.at_end). */
    const ct_when_fn *when_end;
    /* The values chosen (-A, -R) to capture instead of the arguments (then
     * no out values at return) or the return value (when_bind.h); NULL: none. */
    const ct_chosen_fn *chosen_args, *chosen_ret;
    /* The faults injected into its calls (--inject, inject_bind.h); NULL: none. */
    const struct ct_inject_fn *inject;

    const ct_late *late;        /* NULL when every plan is known */
    atomic_int late_state;      /* a ct_late_state */
    _Atomic(const ct_plan *const *) late_plans; /* nargs + 1 (return) once bound */

    /* Where the arguments and the return value are (argmap.h): the learning
     * calls that agreed (CT_ARGMAP_LEARN_CALLS: read them directly) or -1
     * (always ask the runtime); the learning attempts; the locations. */
    atomic_int enter_map, leave_map;
    atomic_uint enter_tries;
    _Atomic(uint32_t *) enter_locs;
    atomic_uint leave_loc;

    /* The budget (src/agent/record/budget_check.c, src/agent/writer/budget_control.c): its
     * step (ct_budget_step), set by the writer, read by the hooks; the calls
     * counted for --limit, and for --rate in the second rate_second. */
    atomic_uint budget_step;
    _Atomic uint64_t hits;
    _Atomic uint64_t rate_second, rate_hits;
    /* The writer's own: this window's events, the calls not recorded so far
     * (all threads), when it joined this window's list. */
    uint64_t budget_events, budget_skipped;
    int budget_listed;
    uint32_t budget_backoff;    /* times stepped back up: each doubles the quiet
                                   spell the next needs */
} ct_mapped_fn;

/* How far the budget has degraded a function. */
typedef enum ct_budget_step {
    CT_BUDGET_FULL = 0,      /* recorded as the options say */
    CT_BUDGET_NO_VALUES = 1, /* recorded without values */
    CT_BUDGET_SAMPLED = 2,   /* one call in CT_BUDGET_SAMPLE_EVERY recorded, without values */
    CT_BUDGET_UNTRACED = 3,  /* not recorded (attached, IL engine: its code restored) */
    CT_BUDGET_STEP_MAX = CT_BUDGET_UNTRACED
} ct_budget_step;
/* At CT_BUDGET_SAMPLED, the calls on a thread recorded: one in this many. */
#define CT_BUDGET_SAMPLE_EVERY 16

#define CT_SM_NO_FIELD UINT32_MAX

/* Whether f's first argument is `this` (its label, as the planner writes
 * it). */
static inline int ct_fn_has_this(const ct_mapped_fn *f)
{
    return f->nargs && f->args && !strcmp(f->args[0].label, "this=");
}

/* Whether records a and b are of the same method (the IL engine's generic
 * code has a record for its definition and one per instantiation; b's
 * token 0: not known, only b itself). */
static inline int ct_fn_same_method(const ct_mapped_fn *a, const ct_mapped_fn *b)
{
    return a == b || (a && b && b->token && a->token == b->token && a->module == b->module);
}

#endif
