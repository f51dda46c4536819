/* Capture plans: how to copy and print each argument and the return value of
 * a function, built once when the function is mapped (docs/tracer.md,
 * "How values are captured").
 *
 * The plan of a parameter comes from its libclrsig parse tree, read with the
 * help of the module's metadata and the runtime's type information:
 *   - primitives, string, object/class references, pointers: fixed plans;
 *   - SZARRAY: an array plan with the element's plan;
 *   - enums: names and values of the literal fields, the underlying type
 *     from value__, [Flags] from FlagsAttribute;
 *   - System.Decimal, Nullable<T>: their own kinds;
 *   - other structs: field by field, offsets from GetClassLayout on the
 *     struct's ClassID (GetClassFromToken / GetClassFromTokenAndTypeArgs),
 *     names from GetFieldProps, nested up to CLRTRACE_STRUCT_DEPTH;
 *   - generic parameters (VAR/MVAR): the plan of the actual type argument.
 * Anything that cannot be planned is captured as the raw bytes of its range.
 */
#ifndef CLRTRACE_PLANS_H
#define CLRTRACE_PLANS_H

#include <stdint.h>

#include "format/value.h"
#include "agent/runtime/corprof_decls.h"
#include "agent/model/modules.h"
#include "agent/model/mapped.h"

/* SZARRAY layout on 64-bit CoreCLR: method table pointer, then the u32
 * length (padded to 8), then the elements. The runtime has no API for the
 * single-dimension layout short of asking per object (GetArrayObjectInfo). */
#define CT_SZARRAY_LENGTH_OFFSET 8
#define CT_SZARRAY_DATA_OFFSET 16

/* A plan whose value is captured as the bytes of its range, whatever their
 * length (kind CT_V_OPAQUE, size 0): used when a type cannot be planned. */
extern const ct_plan ct_plan_by_range;

static inline int ct_plan_is_by_range(const ct_plan *p)
{
    return p->kind == CT_V_OPAQUE && p->size == 0;
}

/* 1 when capturing p reads only the value's own bytes (no reference,
 * string, array or byref is followed): safe on memory that may hold garbage.
 * depth: the nesting level p sits at (recursion bound). */
int ct_plan_is_flat(const ct_plan *p, unsigned depth);

/* The kind of the value a boxed object of class cls holds, when cls is a
 * CoreLib primitive, decimal or well-known struct (System.Int32,
 * System.DateTime, ...); CT_V_VOID for any other class. Not cached: the
 * hooks keep the answer per thread with the class (hooks.c). */
ct_vkind ct_plan_boxed_kind(ClassID cls);

/* The plan of the content of an object of class cls (CT_V_CLASS or
 * CT_V_SEQ; src/format/value.h), obj one such object: built at the
 * first call for the class and cached. NULL when objects of cls are not
 * shown by content; *again is then set when a later object may tell (an
 * empty dictionary does not show its entries' layout): to -1 (any object
 * may), or to k > 0 (only an object whose reference at offset k - 1 is not
 * null: the others are empty too, and get the same answer). Called from
 * the hooks: loads no type. */
const ct_plan *ct_plan_content(ClassID cls, const void *obj, int *again);
/* The cached content plan of cls, or NULL (the writer: no planning). */
const ct_plan *ct_plan_content_known(ClassID cls);

/* 1 for the planner's own mark and System.__Canon: code shared by every
 * reference type (the registry leaves such instantiations unnamed). */
int ct_plan_is_canon(ClassID cls);

/* Every fact about a method the planner needs, gathered by the mapper. */
typedef struct ct_method_info {
    const ct_module *module;
    mdMethodDef token;
    mdTypeDef owner;             /* the method's TypeDef */
    const char *method_name;     /* "Get" */
    const uint8_t *sig;          /* MethodDef signature blob */
    uint32_t sig_len;
    ClassID cls;                 /* exact class, or 0 when the runtime cannot say */
    const ClassID *class_args;   /* the class's type arguments when cls != 0 */
    uint32_t nclass_args;
    const ClassID *method_args;  /* the method's type arguments */
    uint32_t nmethod_args;
    int method_args_known;
} ct_method_info;

/* Fills f->display, the labels and plans. Returns 0, or -1 when the
 * signature cannot be read (f->values stays 0). Called from the mapper
 * (preemptive mode: may load types). */
int ct_plan_function(ct_mapped_fn *f, const ct_method_info *mi);
/* Sets f->async_stub when f is an async method (AsyncStateMachineAttribute)
 * whose return value (plan ret) is a Task, Task<T>, ValueTask or
 * ValueTask<T>, with where the task's reference is in it. */
void ct_pl_async_stub(ct_mapped_fn *f, const ct_method_info *mi, const ct_plan *ret);

/* When f is the MoveNext of a compiler-generated state machine (an async
 * method, an iterator, an async iterator: a type "<Name>d__N" nested in the
 * method's type, named by the method's AsyncStateMachineAttribute,
 * IteratorStateMachineAttribute or AsyncIteratorStateMachineAttribute):
 * shows it as that method, "async Demo.Net.Fetch", with the method's
 * parameters read from the state machine's fields of the same names (`this`
 * from <>4__this), then the state (<>1__state), and sets f->sm_offsets;
 * MoveNext's own result when it has one (an iterator's bool) is the return
 * value (without signatures: the name only). Returns 0 then; -1 for any other
 * function, or when values are wanted and the state machine's class is not
 * known exactly (shared generic code): f is then planned as itself. */
int ct_plan_state_machine(ct_mapped_fn *f, const ct_method_info *mi);

/* Binds the late plans of f at its first call, from the exact instantiation
 * the frame reveals. Called from the enter hook: loads nothing; whatever
 * needs a type load is captured by range instead. Returns 1 when this call
 * bound them (the caller writes the function's record again), else 0. */
int ct_plan_late(ct_mapped_fn *f, COR_PRF_FRAME_INFO frame);

/* A plan's effective value for argument i (nargs: the return value). */
static inline const ct_plan *ct_arg_plan(const ct_mapped_fn *f, uint32_t i)
{
    const ct_plan *p = i < f->nargs ? f->args[i].plan : f->ret;
    if (p)
        return p;
    const ct_plan *const *late = atomic_load_explicit(&((ct_mapped_fn *)f)->late_plans,
                                                      memory_order_acquire);
    return late && late[i] ? late[i] : &ct_plan_by_range;
}

/* The plan of value i of an ENTER record of f: its argument's, or with -A
 * its chosen value's; NULL past them. */
static inline const ct_plan *ct_enter_plan(const ct_mapped_fn *f, uint32_t i)
{
    if (f->chosen_args)
        return i < f->chosen_args->n ? f->chosen_args->plans[i] : NULL;
    return i < f->nargs ? ct_arg_plan(f, i) : NULL;
}

/* The plan of value i of a LEAVE record of f: the return value (when f has
 * one), then the target of each parameter of f->out_mask in order; NULL
 * past them. */
static inline const ct_plan *ct_leave_plan(const ct_mapped_fn *f, uint32_t i)
{
    if (f->chosen_ret)
        return i < f->chosen_ret->n ? f->chosen_ret->plans[i] : NULL;
    if (f->has_ret) {
        if (i == 0)
            return ct_arg_plan(f, f->nargs);
        i--;
    }
    if (f->chosen_args)
        return NULL; /* no out values */
    for (uint32_t a = 0; a < f->nargs && a < 64; a++)
        if ((f->out_mask >> a & 1) && i-- == 0)
            return f->args[a].plan->elem;
    return NULL;
}

#endif
