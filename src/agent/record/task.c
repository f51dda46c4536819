/* What a Task object says of its end, read where it is: its state flags,
 * its result's slot (the Task form's content plan, model/plans/types.c),
 * the exception a faulted or cancelled task holds. For an async call's end
 * (asynccall.c, rtasync.c), its conditions on the outcome (when_eval.c) and a
 * Task's Exception value (values.c). */
#include <string.h>

#include "internal.h"
#include "agent/model/plans/plans.h"

#define TASK_FAULTED 0x200000u
#define TASK_CANCELED 0x400000u
#define TASK_COMPLETED_MASK (TASK_FAULTED | TASK_CANCELED | 0x1000000u)

/* The content plan of task object obj (class cls) when it is the Task
 * form's (m_stateFlags, then a Task<T>'s m_result), made at the first
 * object of its class (no type loaded); else NULL. */
const ct_plan *ct_rec_task_form(uintptr_t obj, ClassID cls)
{
    int again = 0;
    const ct_plan *c = ct_plan_content(cls, (const void *)obj, &again);
    return c && c->kind == CT_V_CLASS && c->shape == CT_FORM_TASK && c->count ? c : NULL;
}

/* Task object obj's m_stateFlags, where its Task form content plan c reads
 * them. */
static uint32_t task_flags(uintptr_t obj, const ct_plan *c)
{
    uint32_t flags;
    memcpy(&flags, (const void *)(obj + c->fields[0].offset), 4);
    return flags;
}

/* Whether task object obj (of class cls) is complete. -1 when not known. */
int ct_rec_task_done(uintptr_t obj, ClassID cls)
{
    const ct_plan *c = ct_rec_task_form(obj, cls);
    return c ? (task_flags(obj, c) & TASK_COMPLETED_MASK) != 0 : -1;
}

/* ------------------------------------------ a task's exception (attach) */

/* Where a faulted or cancelled task keeps its exception (Task.cs,
 * TaskExceptionHolder.cs, ExceptionDispatchInfo.cs): the Task's
 * m_contingentProperties, its m_exceptionsHolder, then the first of its
 * m_faultExceptions (a List<ExceptionDispatchInfo>: _items[0]) or its
 * m_cancellationException, and that ExceptionDispatchInfo's _exception.
 * Each offset learned at the first object of its class, in one go per
 * class (classes other than the first ones met: looked up each time). */
typedef struct learned_ref {
    _Atomic uint64_t cls;
    _Atomic uint32_t off[2];
} learned_ref;

static learned_ref g_cp, g_holder, g_list, g_edi;
static _Atomic uint32_t g_task_cp = CT_REC_NO_FIELD - 1; /* unknown */

/* The offsets of names[0..n) in class cls (its own reference fields),
 * through l's cache. */
static void offsets_of(learned_ref *l, ClassID cls, const char *const *names, int n,
                       uint32_t *off)
{
    if (atomic_load(&l->cls) == (uint64_t)cls) {
        for (int k = 0; k < n; k++)
            off[k] = atomic_load(&l->off[k]);
        return;
    }
    ct_rec_field_offsets(cls, names, off, n, 8);
    for (int k = 0; k < n; k++)
        atomic_store(&l->off[k], off[k]);
    atomic_store(&l->cls, (uint64_t)cls);
}

/* Task's m_contingentProperties, searched from cls up through its bases
 * (a task's class derives from Task; the offset is Task's for them all). */
static uint32_t contingent_offset(ClassID cls)
{
    uint32_t off = atomic_load(&g_task_cp);
    if (off != CT_REC_NO_FIELD - 1)
        return off;
    static const char *const name[] = {"m_contingentProperties"};
    for (int depth = 0; cls && depth < 8; depth++) {
        ct_rec_field_offsets(cls, name, &off, 1, 8);
        if (off != CT_REC_NO_FIELD) {
            atomic_store(&g_task_cp, off);
            return off;
        }
        ClassID parent = 0;
        if (FAILED(g_ct.info->lpVtbl->GetClassIDInfo2(g_ct.info, cls, NULL, NULL, &parent, 0,
                                                      NULL, NULL)))
            break;
        cls = parent;
    }
    return CT_REC_NO_FIELD;
}

/* The exception object task (class cls, faulted or cancelled) holds, or 0. */
static uint64_t task_exception(uint64_t task, ClassID cls, int canceled)
{
    static const char *const cp_names[] = {"m_exceptionsHolder"};
    static const char *const holder_names[] = {"m_faultExceptions", "m_cancellationException"};
    static const char *const list_names[] = {"_items"};
    static const char *const edi_names[] = {"_exception"};
    uint32_t off[2];
    uint64_t cp = ct_rec_ref_at(task, contingent_offset(cls));
    if (!cp)
        return 0;
    offsets_of(&g_cp, ct_rec_class_of(cp), cp_names, 1, off);
    uint64_t holder = ct_rec_ref_at(cp, off[0]);
    if (!holder)
        return 0;
    offsets_of(&g_holder, ct_rec_class_of(holder), holder_names, 2, off);
    uint64_t edi = 0;
    if (!canceled) {
        uint32_t items_off[1];
        uint64_t list = ct_rec_ref_at(holder, off[0]);
        if (list)
            offsets_of(&g_list, ct_rec_class_of(list), list_names, 1, items_off);
        uint64_t items = list ? ct_rec_ref_at(list, items_off[0]) : 0;
        uint32_t length = 0;
        if (items)
            memcpy(&length, (const void *)(uintptr_t)(items + g_rec.layout.array_length_offset),
                   4);
        edi = length ? ct_rec_ref_at(items + g_rec.layout.array_data_offset, 0) : 0;
    } else {
        edi = ct_rec_ref_at(holder, off[1]);
    }
    if (!edi)
        return 0;
    offsets_of(&g_edi, ct_rec_class_of(edi), edi_names, 1, off);
    return ct_rec_ref_at(edi, off[0]);
}

uint64_t ct_rec_task_exception(uintptr_t task, const ct_plan *content)
{
    if (!task || !content || !content->count)
        return 0;
    uint32_t flags = task_flags(task, content);
    if (!(flags & (TASK_FAULTED | TASK_CANCELED)))
        return 0;
    return task_exception(task, ct_rec_class_of(task), !(flags & TASK_FAULTED));
}

int ct_rec_task_outcome(uint64_t task, ClassID cls, ct_rec_outcome *o)
{
    memset(o, 0, sizeof *o);
    const ct_plan *c = ct_rec_task_form((uintptr_t)task, cls);
    if (!c)
        return -1;
    uint32_t flags = task_flags((uintptr_t)task, c);
    o->complete = (flags & TASK_COMPLETED_MASK) != 0;
    o->faulted = (flags & (TASK_FAULTED | TASK_CANCELED)) != 0;
    if (o->faulted) {
        o->exc = task_exception(task, cls, !(flags & TASK_FAULTED));
    } else if (o->complete && ct_task_result_at(c) == 1) {
        o->p = c->fields[1].plan;
        o->addr = (uintptr_t)(task + c->fields[1].offset);
        o->len = ct_rec_slot_len(o->p);
    }
    return 0;
}
