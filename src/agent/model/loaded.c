/* The classes the runtime has loaded (loaded.h). */
#include "loaded.h"

#include <pthread.h>
#include <string.h>

#include "agent/runtime/state.h"
#include "base/table.h"
#include "perm.h"

typedef struct vt_entry {
    ClassID cls;
    uint32_t nargs;
    ClassID args[]; /* nargs of them */
} vt_entry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_types; /* {module, td | args hash << 32} -> vt_entry */
static unsigned long g_kept, g_dropped;

static ct_key key_of(ModuleID module, mdTypeDef td, uint32_t nargs, const ClassID *args)
{
    uint64_t h = 1469598103934665603ull ^ nargs;
    for (uint32_t i = 0; i < nargs; i++) {
        h ^= (uint64_t)args[i];
        h *= 1099511628211ull;
    }
    return (ct_key){(uint64_t)module, (uint64_t)td | (h ^ h >> 32) << 32};
}

void ct_loaded_note(ModuleID module, mdTypeDef td, uint32_t nargs, const ClassID *args, ClassID cls)
{
    if (!module || !cls || nargs > CT_LOADED_TYPE_ARGS)
        return;
    ct_key k = key_of(module, td, nargs, args);
    pthread_mutex_lock(&g_lock);
    if (!ct_table_get_key(&g_types, k)) {
        vt_entry *e = g_kept < CT_LOADED_CLASSES ? ct_perm_alloc(sizeof *e + nargs * sizeof *args) : NULL;
        if (e) {
            e->cls = cls;
            e->nargs = nargs;
            if (nargs)
                memcpy(e->args, args, nargs * sizeof *args);
            if (ct_table_put_key(&g_types, k, e) == 0)
                g_kept++;
        } else {
            g_dropped++;
        }
    }
    pthread_mutex_unlock(&g_lock);
}

ClassID ct_loaded_find(ModuleID module, mdTypeDef td, uint32_t nargs, const ClassID *args)
{
    if (!module || nargs > CT_LOADED_TYPE_ARGS)
        return 0;
    ct_key k = key_of(module, td, nargs, args);
    pthread_mutex_lock(&g_lock);
    const vt_entry *e = ct_table_get_key(&g_types, k);
    ClassID cls = 0;
    /* Two instantiations of one hash: the first kept wins, the other is
     * not found (its fields read as bytes), never taken for the first. */
    if (e && e->nargs == nargs && (!nargs || !memcmp(e->args, args, nargs * sizeof *args)))
        cls = e->cls;
    pthread_mutex_unlock(&g_lock);
    return cls;
}

void ct_loaded_class(ClassID cls)
{
    ICorProfilerInfo *info = g_ct.info;
    ModuleID mod = 0;
    mdTypeDef td = 0;
    ClassID args[CT_LOADED_TYPE_ARGS];
    ULONG32 nargs = 0;
    if (!cls || FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, NULL,
                                                     CT_LOADED_TYPE_ARGS, &nargs, args)) ||
        nargs > CT_LOADED_TYPE_ARGS)
        return;
    /* More type arguments than kept: GetClassIDInfo2 gave only the first. */
    ULONG32 all = 0;
    if (nargs == CT_LOADED_TYPE_ARGS &&
        (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, NULL, 0, &all, NULL)) ||
         all > CT_LOADED_TYPE_ARGS))
        return;
    ct_loaded_note(mod, td, nargs, args, cls);
}

void ct_loaded_counts(unsigned long *kept, unsigned long *dropped)
{
    pthread_mutex_lock(&g_lock);
    *kept = g_kept;
    *dropped = g_dropped;
    pthread_mutex_unlock(&g_lock);
}
