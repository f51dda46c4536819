/* The function registry: one record per FunctionID, built by the runtime's
 * FunctionIDMapper2 callback the first time a function is JIT-compiled.
 *
 * All metadata work (names, capture plans, the filter decision) happens
 * here, once per function; the hooks only read the record, whose address is
 * the client id the runtime hands them. Records live until the process ends. */
#ifndef CLRTRACE_REGISTRY_H
#define CLRTRACE_REGISTRY_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "format/value.h"
#include "agent/runtime/corprof_decls.h"
#include "mapped.h"
#include "modules.h"
#include "when_bind.h"


/* What the registry tells the rest of the profiler, set once by the
 * composition root (com/profiler.c) before the mapper is registered: the
 * model calls neither the writer nor an engine itself. Either may be NULL
 * (nothing is told). Called without the registry's lock held, once per new
 * record, on the thread that made it. */
typedef struct ct_registry_events {
    /* A new traced record (the mapper's, a definition's or an
     * instantiation's): its FUNCTION record is queued (writer.h), before any
     * event of the function. */
    void (*on_defined)(const ct_mapped_fn *f);
    /* A new record of a function the profiler watches for its own use
     * (ct_mapped_fn.watched: the runtime's unhandled-exception path). */
    void (*on_watched)(const ct_mapped_fn *f);
} ct_registry_events;

/* Sets what the registry tells (copied). */
void ct_registry_setup(const ct_registry_events *ev);

/* The FunctionIDMapper2 we register. Returns the record's address and sets
 * *hook (traced or watched). Racing calls for one FunctionID get the same
 * record. A new hooked record is told (on_defined) here, so its FUNCTION
 * record precedes every event of the function; a new watched one too
 * (on_watched). */
UINT_PTR ct_function_mapper(FunctionID id, void *client_data, BOOL *hook);

/* The record of the generic definition (mod, tok) that FunctionID id
 * instantiates (0: none known, after attach), made once (keyed by the
 * definition; not counted among the functions): named and planned with its
 * declared type parameters ("Demo.Box<T>.Set(T value)"). The IL engine's
 * probes of generic code, whose rewritten IL serves every instantiation,
 * carry it. NULL when it is not traced or memory ran out. */
ct_mapped_fn *ct_registry_definition(FunctionID id, ModuleID mod, mdToken tok);

/* The record of the instantiation of generic definition def named by the
 * type handles handles[0..n) (the declaring class, exact, then the method's
 * type arguments: what the IL engine's probes pass), made at its first
 * call and kept (not counted among the functions). NULL when it cannot be
 * made (the call is then recorded under its definition). Called from the
 * probes: the runtime answers only the queries it allows outside a
 * callback, so a plan that needs another type loaded stays unknown. */
const ct_mapped_fn *ct_registry_instance(const ct_mapped_fn *def, const uintptr_t *handles,
                                         uint32_t n);

/* Makes the record of instantiation id of definition def now (JIT time,
 * inside a callback: the runtime answers every query, so its plans are
 * whole) when id's code is its own (no System.__Canon among its type
 * arguments). */
void ct_registry_prepare_instance(const ct_mapped_fn *def, FunctionID id);

/* Whether the filter may trace any method of module m (0: none of its
 * methods needs to be looked at), and whether it traces method tok of it:
 * the filter's answer by name, as for the records. */
int ct_registry_module_may_trace(const ct_module *m);
int ct_registry_traces(const ct_module *m, mdMethodDef tok);

/* Whether the filter may trace (or the tracer watch) any method of TypeDef
 * td of module m: 0 only when it traces none, told from the type's name and
 * the globs' literal text (ct_glob_list_may_extend), so that the methods of
 * a type left out need no name of their own; kept per type. And the same
 * for method tok's type. A narrow filter (-F of one type) then costs the
 * IL engine one name per type of a module, not one per method, and nothing
 * per method the runtime compiles or finds precompiled outside it. */
int ct_registry_type_may_trace(const ct_module *m, mdTypeDef td);
int ct_registry_method_may_trace(const ct_module *m, mdMethodDef tok);

/* The record for id, or NULL when the mapper has not seen it. */
const ct_mapped_fn *ct_registry_find(FunctionID id);

/* Counts for the closing lines. Atomic loads only: async-signal-safe. */
void ct_registry_counts(unsigned long *mapped, unsigned long *hooked);

/* Calls fn for every record. Holds the registry lock: fn must not call back
 * into the registry. */
void ct_registry_each(void (*fn)(void *ctx, const ct_mapped_fn *f), void *ctx);

/* Between two traces of an attached process (com/attach_control.c): every record
 * is forgotten, so that the next trace's filter and settings decide anew.
 * The records stay in memory (rewritten code still running may name them),
 * and the counts start again from 0. */
void ct_registry_forget(void);

#endif
