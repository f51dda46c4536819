#include "registry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classnames.h"
#include "base/table.h"
#include "format/words.h"
#include "inject_bind.h"
#include "agent/model/plans/lineprobe.h"
#include "modules.h"
#include "perm.h"
#include "agent/model/plans/plans.h"
#include "clrsig/clrsig.h"
#include "agent/runtime/state.h"
#include "utf16.h"

/* The CoreLib method the runtime calls on its unhandled-exception path
 * (excep.cpp, InternalUnhandledExceptionFilter_Worker, raises
 * AppDomain.UnhandledException through it). */
#define WATCH_UNHANDLED "System.AppContext.OnUnhandledException"

/* The CoreLib methods an async method's state machine calls with the
 * exception that faults (or cancels) its task: each builder's
 * SetException(Exception), and for async iterators their promise's. */
static const char *const k_async_fault[] = {
    "System.Runtime.CompilerServices.AsyncTaskMethodBuilder.SetException",
    "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1.SetException",
    "System.Runtime.CompilerServices.AsyncValueTaskMethodBuilder.SetException",
    "System.Runtime.CompilerServices.AsyncValueTaskMethodBuilder`1.SetException",
    "System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder.SetException",
    "System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder`1.SetException",
    "System.Runtime.CompilerServices.AsyncVoidMethodBuilder.SetException",
    "System.Threading.Tasks.Sources.ManualResetValueTaskSourceCore`1.SetException",
};

/* The CoreLib methods that complete an async method's task with its
 * result (record/asynccall.c: each builder's m_task is its first field). */
static const char *const k_async_result[] = {
    "System.Runtime.CompilerServices.AsyncTaskMethodBuilder.SetResult",
    "System.Runtime.CompilerServices.AsyncTaskMethodBuilder`1.SetResult",
    "System.Runtime.CompilerServices.AsyncValueTaskMethodBuilder.SetResult",
    "System.Runtime.CompilerServices.AsyncValueTaskMethodBuilder`1.SetResult",
};

/* The CoreLib method each runtime-async chain calls on the thread it ran
 * on when it has suspended (after the Task-returning entry's call, and
 * after a resumed chain suspends again): AsyncHelpers.cs. */
#define WATCH_RT_SUSPEND "System.Runtime.CompilerServices.AsyncHelpers.RuntimeAsyncTask`1.HandleSuspended"

/* The CoreLib method that faults a runtime-async chain's task when no call
 * of it handled the exception (RuntimeAsyncTask<T>.DispatchContinuations). */
#define WATCH_RT_FAULT "System.Threading.Tasks.Task.TrySetException"

static const char *const k_rt_watches[] = {WATCH_RT_SUSPEND, WATCH_RT_FAULT};

#define COUNT(a) (sizeof a / sizeof *a)

/* Whether name is one of names[0..n). */
static int is_one_of(const char *name, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, names[i]))
            return 1;
    return 0;
}

/* Whether type (a CoreLib type's name followed by a dot) declares one of
 * names[0..n). */
static int declares_one_of(const char *type, const char *const *names, size_t n)
{
    size_t len = strlen(type);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(names[i], type, len) && !strchr(names[i] + len, '.'))
            return 1;
    return 0;
}

/* Whether type declares a watched async builder method. */
static int declares_async_watch(const char *type)
{
    return declares_one_of(type, k_async_fault, COUNT(k_async_fault)) ||
           declares_one_of(type, k_async_result, COUNT(k_async_result));
}

/* Whether f is watched for an async builder (planned as traced functions are). */
static int async_watch(const ct_mapped_fn *f)
{
    return f->watched == CT_WATCH_ASYNC_FAULT || f->watched == CT_WATCH_ASYNC_RESULT;
}

/* FunctionID -> record (base/table.h). Every access holds
 * g_lock; the hooks never touch the map: they get the record address as
 * their client id. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_functions;
/* Counts for the END record, kept apart from the map so that a signal
 * handler can read them without the lock (profiler.c). */
static _Atomic unsigned long g_hooked, g_mapped;
/* Set once at start-up, before any record is made. */
static ct_registry_events g_events;

void ct_registry_setup(const ct_registry_events *ev)
{
    g_events = *ev;
}

static void tell_defined(const ct_mapped_fn *f)
{
    if (g_events.on_defined)
        g_events.on_defined(f);
}

/* ------------------------------------------------------------ the filter */

static int name_is_framework(const char *name)
{
    static const char *const prefixes[] = {"System.", "Microsoft.", "Internal."};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

/* ------------------------------------------------------------- records */

static void describe(ct_mapped_fn *f, ClassID cls, ModuleID mod, mdToken tok,
                     const ClassID *margs, ULONG32 nm, int margs_known);

/* Whether the filter traces the method of module m named name. */
static int traces_name(const ct_module *m, const char *name)
{
    return ct_config_traces(&g_ct.cfg, name, m->assembly,
                            g_ct.cfg.trace_all || (!name_is_framework(name) && !m->framework));
}

int ct_registry_module_may_trace(const ct_module *m)
{
    const ct_config *c = &g_ct.cfg;
    if (c->tree.trigger || ct_lineprobe_in_module(m) || ct_inject_count())
        return 1;
    if (c->assembly)
        return m->assembly && ct_glob_list_match(c->assembly, m->assembly);
    return c->include || c->trace_all || !m->framework;
}

/* {module, TypeDef} -> TYPE_NONE or TYPE_SOME: ct_registry_type_may_trace's
 * answers, under g_types_lock (apart from g_lock: asked before a record is
 * looked for). Forgotten with the records (an attach session's filter is
 * its own). */
static pthread_mutex_t g_types_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_types;
#define TYPE_NONE ((void *)1)
#define TYPE_SOME ((void *)2)

static int list_given(const char *list)
{
    return list && *list;
}

/* The filter's rule (ct_name_rules_pass) for a name that begins with type
 * ("Ns.Type."): 0 when no such name passes. */
static int type_passes(const ct_module *m, const char *type)
{
    const ct_config *c = &g_ct.cfg;
    int pass;
    if (list_given(c->assembly))
        pass = m->assembly && ct_glob_list_match(c->assembly, m->assembly) &&
               (!list_given(c->include) || ct_glob_list_may_extend(c->include, type));
    else if (list_given(c->include))
        pass = ct_glob_list_may_extend(c->include, type);
    else
        pass = c->trace_all || (!name_is_framework(type) && !m->framework);
    if (!pass && list_given(c->tree.trigger))
        pass = ct_glob_list_may_extend(c->tree.trigger, type);
    return pass;
}

static int type_may_trace(const ct_module *m, mdTypeDef td)
{
    char type[CT_NAME_MAX * 3 + 2];
    /* Named as ct_method_props names it, then the dot before the method. */
    if (!(td & 0x00FFFFFF) || ct_typedef_name(m, td, 1, type, sizeof type - 1) != 0)
        return 1;
    size_t n = strlen(type);
    type[n] = '.';
    type[n + 1] = '\0';
    /* The watched methods' types (WATCH_UNHANDLED, the async builders,
     * WATCH_RT_SUSPEND, WATCH_RT_FAULT). */
    if (m->corelib && (!strcmp(type, "System.AppContext.") || declares_async_watch(type) ||
                       declares_one_of(type, k_rt_watches, COUNT(k_rt_watches))))
        return 1;
    return type_passes(m, type) || ct_lineprobe_in_type(m, td) || ct_inject_in_type(type);
}

int ct_registry_type_may_trace(const ct_module *m, mdTypeDef td)
{
    if (!m || !m->mdi)
        return 1;
    ct_key key = {m->id, td};
    pthread_mutex_lock(&g_types_lock);
    void *known = ct_table_get_key(&g_types, key);
    pthread_mutex_unlock(&g_types_lock);
    if (known)
        return known == TYPE_SOME;
    int may = type_may_trace(m, td);
    pthread_mutex_lock(&g_types_lock);
    ct_table_put_key(&g_types, key, may ? TYPE_SOME : TYPE_NONE);
    pthread_mutex_unlock(&g_types_lock);
    return may;
}

int ct_registry_method_may_trace(const ct_module *m, mdMethodDef tok)
{
    IMetaDataImport *mdi = m ? m->mdi : NULL;
    mdTypeDef td = 0;
    WCHAR w[1];
    ULONG wlen = 0, sig_len = 0, rva = 0;
    DWORD attr = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (!mdi || FAILED(mdi->lpVtbl->GetMethodProps(mdi, tok, &td, w, 1, &wlen, &attr, &sig,
                                                   &sig_len, &rva, &impl)))
        return 1;
    return ct_registry_type_may_trace(m, td);
}

/* [cor] CorMethodImpl miAsync (.NET 11): a runtime-async method, compiled
 * without a state machine. Its IL returns the awaited value where the
 * signature says Task<T>, and the runtime enters it again on each resume
 * (at its start, skipping to the resume point: the IL at its entry runs
 * once) without its arguments. The IL engine, with values, at start-up,
 * follows it as one logical call (record/rtasync.c); the ELT engine (whose
 * enter hook runs on each resume, with no leave at a suspension), the plain
 * probes (--no-args) and an attach do not hook it (docs/tracer.md, "Async
 * methods and iterators"). */
#define MI_ASYNC 0x2000u

/* Whether a runtime-async method can be hooked in this process: by the IL
 * engine with values, at start-up (after an attach the CoreLib methods that
 * tell its suspensions and its chain's faults, generic or not rewritten
 * then, are not watched), on .NET 11 or later (whose CoreLib those methods
 * are; .NET 10's preview of runtime-async has others). */
static int rt_async_hooked(void)
{
    return g_ct.cfg.il_engine && !g_ct.cfg.no_args && g_ct.cfg.null_mode == CT_NULL_OFF &&
           !g_ct.attached && g_ct.runtime_major >= 11;
}

int ct_registry_traces(const ct_module *m, mdMethodDef tok)
{
    char method[CT_NAME_MAX * 3], full[CT_METHOD_FULL_MAX];
    mdTypeDef td = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0;
    DWORD impl = 0;
    return ct_method_props(m, tok, method, full, &td, &sig, &sig_len, &impl) == 0 &&
           (!(impl & MI_ASYNC) || rt_async_hooked()) &&
           (traces_name(m, full) || ct_lineprobe_targets(m, tok) || ct_inject_targets(full));
}

/* Everything the record needs, from metadata and the runtime. Called
 * without g_lock held: it calls back into the runtime. */
static ct_mapped_fn *build_function(FunctionID id)
{
    ICorProfilerInfo *info = g_ct.info;
    ct_mapped_fn *f = ct_perm_alloc(sizeof *f);
    if (!f)
        return NULL;
    f->id = id;
    f->name = "?";
    f->display = "?";

    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tok = 0;
    ClassID margs[CT_MAX_TYPE_ARGS];
    ULONG32 nm = 0;
    int margs_known = 1;
    if (FAILED(info->lpVtbl->GetFunctionInfo2(info, id, 0, &cls, &mod, &tok, CT_MAX_TYPE_ARGS,
                                              &nm, margs))) {
        margs_known = 0;
        nm = 0;
        if (FAILED(info->lpVtbl->GetFunctionInfo(info, id, &cls, &mod, &tok)))
            return f; /* no metadata (IL stub, dynamic method): not hooked */
    }
    if (nm > CT_MAX_TYPE_ARGS)
        nm = CT_MAX_TYPE_ARGS;
    describe(f, cls, mod, tok, margs, nm, margs_known);
    return f;
}

/* Names, filter and plans of f, the function (mod, tok) of class cls (0:
 * not known) with method type arguments margs[0..nm). */
static void describe(ct_mapped_fn *f, ClassID cls, ModuleID mod, mdToken tok,
                     const ClassID *margs, ULONG32 nm, int margs_known)
{
    ICorProfilerInfo *info = g_ct.info;
    f->module = mod;
    f->token = tok;
    const ct_module *m = ct_module_get(mod);
    char method[CT_NAME_MAX * 3], full[CT_METHOD_FULL_MAX];
    mdTypeDef td = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0;
    DWORD impl = 0;
    if (!m || ct_method_props(m, tok, method, full, &td, &sig, &sig_len, &impl) != 0)
        return;
    const char *name = ct_perm_strdup(full);
    if (!name)
        return;
    f->name = name;
    f->display = name;
    f->rt_async = (impl & MI_ASYNC) != 0;
    f->hooked = (!f->rt_async || rt_async_hooked()) &&
                (traces_name(m, name) || ct_lineprobe_targets(m, tok) ||
                 ct_inject_targets(name));
    /* The runtime calls it when it finds an exception unhandled, before it
     * aborts the process (hooks.c follows it). */
    f->watched = !m->corelib                       ? CT_WATCH_NONE
                 : !strcmp(name, WATCH_UNHANDLED)  ? CT_WATCH_UNHANDLED
                 : rt_async_hooked() && !strcmp(name, WATCH_RT_SUSPEND) ? CT_WATCH_RT_SUSPEND
                 : rt_async_hooked() && !strcmp(name, WATCH_RT_FAULT)   ? CT_WATCH_RT_FAULT
                 : !g_ct.cfg.no_args && is_one_of(name, k_async_fault, COUNT(k_async_fault)) &&
                         sig_len >= 3 && (sig[0] & 0x20) /* HASTHIS */ &&
                         sig[1] == 1 /* one parameter */
                     ? CT_WATCH_ASYNC_FAULT
                 : !g_ct.cfg.no_args && is_one_of(name, k_async_result, COUNT(k_async_result)) &&
                         sig_len >= 3 && (sig[0] & 0x20) && sig[1] <= 1
                     ? CT_WATCH_ASYNC_RESULT
                     : CT_WATCH_NONE;
    f->trigger = f->hooked && g_ct.cfg.tree.trigger &&
                 ct_glob_list_match(g_ct.cfg.tree.trigger, name);
    /* A SetException watched is planned (its exception is read where a
     * traced call's argument is), not traced. */
    if (!f->hooked && !async_watch(f))
        return;

    ClassID cargs[CT_MAX_TYPE_ARGS];
    ULONG32 nc = 0;
    if (cls && FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, NULL,
                                                    CT_MAX_TYPE_ARGS, &nc, cargs)))
        nc = 0;
    if (nc > CT_MAX_TYPE_ARGS)
        nc = CT_MAX_TYPE_ARGS;
    /* The type's name by the compilers' convention ("Box`1") when the
     * runtime did not say; the signature's GENERIC flag for the method. */
    f->generic = nc || nm || strchr(name, '`') || (sig_len && (sig[0] & CLRSIG_CC_GENERIC));
    ct_method_info mi = {
        .module = m, .token = tok, .owner = td, .method_name = method,
        .sig = sig, .sig_len = sig_len,
        .cls = cls, .class_args = cargs, .nclass_args = nc,
        .method_args = margs, .nmethod_args = nm, .method_args_known = margs_known,
    };
    /* A state machine's MoveNext is shown as the async method (iterator)
     * it implements; everything else as itself. */
    if (ct_plan_state_machine(f, &mi) != 0)
        ct_plan_function(f, &mi);
    f->when = ct_when_bind(f, 0);
    f->when_end = ct_when_bind(f, 1);
    f->chosen_args = ct_chosen_bind(f, 0);
    f->chosen_ret = ct_chosen_bind(f, 1);
    if (f->hooked) {
        f->lines = ct_lineprobe_plan(f, &mi);
        f->locals = ct_lineprobe_locals_plan(f, &mi);
        f->inject = ct_inject_bind(f);
    }
}

/* ---------------------------------------------------------- the mapper */

/* 0 when function id's type is one the filter leaves out (its module and
 * token from the runtime, the type's answer kept). */
static int id_may_trace(FunctionID id)
{
    ICorProfilerInfo *info = g_ct.info;
    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tok = 0;
    if (FAILED(info->lpVtbl->GetFunctionInfo(info, id, &cls, &mod, &tok)))
        return 1;
    const ct_module *m = ct_module_get(mod);
    return !m || ct_registry_method_may_trace(m, tok);
}

UINT_PTR ct_function_mapper(FunctionID id, void *client_data, BOOL *hook)
{
    (void)client_data;
    ct_key key = {id, 0};
    pthread_mutex_lock(&g_lock);
    ct_mapped_fn *f = ct_table_get_key(&g_functions, key);
    pthread_mutex_unlock(&g_lock);

    if (!f && !id_may_trace(id)) {
        /* Left out by its type's name: no record (the IL engine asks again
         * for every method the runtime compiles or finds precompiled). */
        atomic_fetch_add(&g_mapped, 1);
        *hook = 0;
        return id;
    }
    if (!f) {
        ct_mapped_fn *mine = build_function(id);
        if (!mine) {
            /* Out of memory: no hooks. The return value must not be 0. */
            *hook = 0;
            return id;
        }
        pthread_mutex_lock(&g_lock);
        f = ct_table_get_key(&g_functions, key);
        int fresh = 0;
        if (!f && ct_table_put_key(&g_functions, key, mine) == 0) {
            f = mine;
            fresh = 1;
            atomic_fetch_add(&g_mapped, 1);
            if (f->hooked)
                atomic_fetch_add(&g_hooked, 1);
        }
        pthread_mutex_unlock(&g_lock);
        if (fresh && f->hooked) {
            /* A line probe's record before the method's, so before any hit. */
            for (uint32_t i = 0; f->lines && i < f->lines->n; i++)
                tell_defined(f->lines->p[i].fn);
            if (f->locals)
                tell_defined(f->locals->fn);
            tell_defined(f);
        }
        if (fresh && f->watched == CT_WATCH_UNHANDLED && g_events.on_watched)
            g_events.on_watched(f);
        if (!f) {
            /* The table could not grow: this function goes unhooked. The
             * record stays in permanent memory, unused. */
            *hook = 0;
            return id;
        }
    }
    *hook = f->hooked || f->watched;
    return (UINT_PTR)f;
}

/* Puts record mine under key unless another thread did first; the record
 * kept (NULL: the table could not grow). A new one is told (on_defined).
 * Not counted among the functions. */
static ct_mapped_fn *publish(ct_key key, ct_mapped_fn *mine)
{
    pthread_mutex_lock(&g_lock);
    ct_mapped_fn *f = ct_table_get_key(&g_functions, key);
    int fresh = !f && ct_table_put_key(&g_functions, key, mine) == 0;
    if (fresh)
        f = mine;
    pthread_mutex_unlock(&g_lock);
    if (fresh && f->hooked)
        tell_defined(f);
    return f;
}

ct_mapped_fn *ct_registry_definition(FunctionID id, ModuleID mod, mdToken tok)
{
    ct_key key = {mod, tok};
    pthread_mutex_lock(&g_lock);
    ct_mapped_fn *f = ct_table_get_key(&g_functions, key);
    pthread_mutex_unlock(&g_lock);
    if (f)
        return f;
    ct_mapped_fn *mine = ct_perm_alloc(sizeof *mine);
    if (!mine)
        return NULL;
    mine->id = id;
    mine->name = mine->display = "?";
    mine->definition = 1;
    /* Named with its type parameters (no class, no type arguments known):
     * the metadata's count of the method's own. */
    const ct_module *m = ct_module_get(mod);
    ClassID margs[CT_MAX_TYPE_ARGS] = {0};
    int nm = m ? ct_generic_param_count(m, tok) : 0;
    describe(mine, 0, mod, tok, margs, (ULONG32)(nm < CT_MAX_TYPE_ARGS ? nm : CT_MAX_TYPE_ARGS),
             0);
    return mine->hooked || async_watch(mine) || mine->watched == CT_WATCH_RT_SUSPEND
               ? publish(key, mine) : NULL;
}

/* An instantiation's key: its definition and a hash of its type handles. */
static ct_key instance_key(const ct_mapped_fn *def, const uintptr_t *handles, uint32_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ handles[i]) * 0xFF51AFD7ED558CCDull;
    return (ct_key){(uint64_t)(uintptr_t)def | 1u, h};
}

const ct_mapped_fn *ct_registry_instance(const ct_mapped_fn *def, const uintptr_t *handles,
                                         uint32_t n)
{
    if (!def->definition || !n || n > CT_MAX_TYPE_ARGS + 1)
        return NULL;
    ct_key key = instance_key(def, handles, n);
    pthread_mutex_lock(&g_lock);
    ct_mapped_fn *f = ct_table_get_key(&g_functions, key);
    pthread_mutex_unlock(&g_lock);
    /* Two instantiations whose hashes collide: the first keeps the key,
     * the other is recorded under its definition. */
    if (f)
        return f->ninst == n && !memcmp(f->inst, handles, n * sizeof *handles) ? f : NULL;
    ct_mapped_fn *mine = ct_perm_alloc(sizeof *mine);
    uintptr_t *inst = ct_perm_alloc(n * sizeof *inst);
    if (!mine || !inst)
        return NULL;
    memcpy(inst, handles, n * sizeof *inst);
    mine->id = def->id;
    mine->name = mine->display = "?";
    mine->def = def;
    mine->inst = inst;
    mine->ninst = n;
    /* handles[0]: the declaring class, exact; the rest: the method's type
     * arguments. */
    describe(mine, (ClassID)handles[0], def->module, def->token, (const ClassID *)handles + 1,
             n - 1, 1);
    if (!mine->hooked)
        return NULL;
    f = publish(key, mine);
    return f && f->ninst == n && !memcmp(f->inst, handles, n * sizeof *handles) ? f : NULL;
}

void ct_registry_prepare_instance(const ct_mapped_fn *def, FunctionID id)
{
    ICorProfilerInfo *info = g_ct.info;
    uintptr_t handles[CT_MAX_TYPE_ARGS + 1];
    ClassID margs[CT_MAX_TYPE_ARGS];
    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tok = 0;
    ULONG32 nm = 0;
    if (!def->definition ||
        FAILED(info->lpVtbl->GetFunctionInfo2(info, id, 0, &cls, &mod, &tok, CT_MAX_TYPE_ARGS,
                                              &nm, margs)) ||
        !cls || nm > CT_MAX_TYPE_ARGS || ct_plan_is_canon(cls))
        return;
    ClassID cargs[CT_MAX_TYPE_ARGS];
    ULONG32 nc = 0;
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, NULL, CT_MAX_TYPE_ARGS, &nc,
                                             cargs)) ||
        nc > CT_MAX_TYPE_ARGS)
        return;
    /* Code shared by reference types (System.__Canon) serves instantiations
     * only its probes tell apart. */
    for (uint32_t i = 0; i < nc; i++)
        if (ct_plan_is_canon(cargs[i]))
            return;
    handles[0] = cls;
    for (uint32_t i = 0; i < nm; i++) {
        if (!margs[i] || ct_plan_is_canon(margs[i]))
            return;
        handles[1 + i] = margs[i];
    }
    ct_registry_instance(def, handles, nm + 1);
}

const ct_mapped_fn *ct_registry_find(FunctionID id)
{
    ct_key key = {id, 0};
    pthread_mutex_lock(&g_lock);
    const ct_mapped_fn *f = ct_table_get_key(&g_functions, key);
    pthread_mutex_unlock(&g_lock);
    return f;
}

void ct_registry_counts(unsigned long *mapped, unsigned long *hooked)
{
    *mapped = atomic_load(&g_mapped);
    *hooked = atomic_load(&g_hooked);
}

typedef struct each_ctx {
    void (*fn)(void *ctx, const ct_mapped_fn *f);
    void *ctx;
} each_ctx;

static void each_entry(void *ctx, ct_key key, void *value)
{
    (void)key;
    each_ctx *e = ctx;
    e->fn(e->ctx, value);
}

void ct_registry_each(void (*fn)(void *ctx, const ct_mapped_fn *f), void *ctx)
{
    each_ctx e = {fn, ctx};
    pthread_mutex_lock(&g_lock);
    ct_table_each(&g_functions, each_entry, &e);
    pthread_mutex_unlock(&g_lock);
}

void ct_registry_forget(void)
{
    pthread_mutex_lock(&g_types_lock);
    ct_table_free(&g_types);
    pthread_mutex_unlock(&g_types_lock);
    pthread_mutex_lock(&g_lock);
    ct_table_free(&g_functions);
    atomic_store(&g_mapped, 0);
    atomic_store(&g_hooked, 0);
    pthread_mutex_unlock(&g_lock);
    ct_lineprobe_forget();
}
