/* The IL engine's probes (ilprobe.h rewrites methods to call them): what
 * its rewritten code hands the recorder (src/agent/record/record.h).
 *
 * With values: at a method's entry, the enter probe with the addresses of
 * its last CT_PROBE_ENTER_ADDRS arguments or fewer (`this` first; a state
 * machine's MoveNext: `this` only) in the same call (enter_with), after
 * ct_probe_arg with each of the earlier ones' (a method with more); it
 * reads them with the function's plans; before each
 * ret ct_probe_return with the address of the return value's home (or
 * ct_probe_leave: void, or no return value); ct_probe_tailcall before a
 * tail call. Both leave probes read the out arguments again. At most
 * CT_PROBE_MAX_ARGS addresses are kept: a method with more is recorded
 * without values. Without values (--no-args), the plain probes: ENTER,
 * LEAVE and TAILCALL records with times only. */
#ifndef CLRTRACE_IL_PROBES_H
#define CLRTRACE_IL_PROBES_H

#include <stdint.h>

#define CT_PROBE_MAX_ARGS 64
/* The most argument addresses the enter probe takes in its own call: one
 * call at the entry instead of one per argument, which the JIT compiles
 * faster (each unmanaged calli is a call site of its own). */
#define CT_PROBE_ENTER_ADDRS 6

void ct_probe_arg(uintptr_t addr);
/* --inject: right after the enter probe of a method with faults bound
 * (model/inject_bind.h), which acts on this call: k (the method's bound spec
 * k-1), or 0 (record.h, ct_rec_inject_decide). */
int32_t ct_probe_inject(uintptr_t client_id);
/* Generic code's entry hands over, before its arguments, the type handles
 * that name the instantiation running (registry.h, ct_registry_instance). */
void ct_probe_targ(uintptr_t handle);

/* A runtime-async method's (record/rtasync.c), with values: home is the
 * address of the local the rewrite adds for the call's id; after the enter
 * probe, ct_probe_rt_begin; before each awaited call (a call an await
 * follows), ct_probe_rt_awaiting; after each await, ct_probe_rt_resumed;
 * before each ret, ct_probe_rt_return with the return value's home (its
 * task's T) or ct_probe_rt_leave (a Task or ValueTask). The leave probes
 * record the LEAVE when the call ends in its first part. */
void ct_probe_rt_begin(uintptr_t home, uintptr_t client_id);
void ct_probe_rt_awaiting(uintptr_t home, uintptr_t client_id);
void ct_probe_rt_resumed(uintptr_t home, uintptr_t client_id);
void ct_probe_rt_return(uintptr_t ret_addr, uintptr_t home, uintptr_t client_id);
void ct_probe_rt_leave(uintptr_t home, uintptr_t client_id);

/* A line probe's hit (model/plans/lineprobe.h; id: its ct_line_probe), its
 * inputs' addresses handed over in calls of up to CT_PROBE_ENTER_ADDRS
 * each (one native call per batch, not per value): args6 with six, as
 * many times as needed, then line_with[k] with the last k (0 to
 * CT_PROBE_ENTER_ADDRS) and the probe: void (uintptr_t addr..., uintptr_t
 * id). */
typedef struct ct_il_line_probes {
    uintptr_t args6;
    uintptr_t line_with[CT_PROBE_ENTER_ADDRS + 1];
    /* --locals: the same, from the exception filter around a method's body
     * (id: its locals record, model/plans/lineprobe.h). */
    uintptr_t fault_with[CT_PROBE_ENTER_ADDRS + 1];
} ct_il_line_probes;
const ct_il_line_probes *ct_il_line_probes_get(void);

/* The probes that record a call's enter and end, as the rewritten code
 * calls them (client_id: the function's record, generic code's its
 * definition's). */
typedef struct ct_il_probes {
    void (*enter)(uintptr_t client_id);
    void (*leave)(uintptr_t client_id);
    void (*ret)(uintptr_t ret_addr, uintptr_t client_id); /* with values only */
    void (*tailcall)(uintptr_t client_id);
    /* With values, under attach, an async body's (a MoveNext whose state
     * machine has a builder) in place of leave: the address of its `this`
     * (as the enter probe gets it): the builder's task, when it completed,
     * ends its async call (record.h, ct_rec_async_body_end). */
    void (*leave_this)(uintptr_t this_addr, uintptr_t client_id);
    /* With values: enter_with[k] (k from 1 to CT_PROBE_ENTER_ADDRS) is the
     * enter probe taking k argument addresses, then client_id: void
     * (uintptr_t addr..., uintptr_t client_id). */
    uintptr_t enter_with[CT_PROBE_ENTER_ADDRS + 1];
} ct_il_probes;

/* The probes for this process's trace: with values or without, and in the
 * bench-only naive mode (g_ct.cfg.bench_naive) those that render each
 * record at once. */
const ct_il_probes *ct_il_probes_for(int values);

#endif
