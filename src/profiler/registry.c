#include "registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sigtext.h"
#include "state.h"
#include "utf16.h"

/* Longest name kept for one type or method (UTF-8 bytes). */
#define NAME_MAX_BYTES 1024
/* Most enclosing types followed for a nested type's name. */
#define MAX_NESTING 32
/* Longest signature text kept. */
#define SIG_TEXT_MAX 2048

/* ------------------------------------------------------------ the table */

/* Open addressing on FunctionID (never 0). Both tables grow at half load;
 * every access holds g_lock. The hooks never touch them: they get the record
 * address directly. */
typedef struct fn_table {
    ct_function **slots;
    size_t cap; /* power of two */
    size_t used;
} fn_table;

typedef struct module_entry {
    ModuleID id;
    int framework;
} module_entry;

typedef struct module_table {
    module_entry *slots;
    size_t cap;
    size_t used;
} module_table;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static fn_table g_functions;
static module_table g_modules;
static unsigned long g_hooked;

static size_t hash_id(UINT_PTR id)
{
    /* FunctionIDs are MethodDesc addresses: mix the aligned low bits away. */
    uint64_t x = (uint64_t)id;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static ct_function *fn_lookup(const fn_table *t, FunctionID id)
{
    if (!t->cap)
        return NULL;
    for (size_t i = hash_id(id) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        ct_function *f = t->slots[i];
        if (!f || f->id == id)
            return f;
    }
}

static void fn_put(ct_function **slots, size_t cap, ct_function *f)
{
    size_t i = hash_id(f->id) & (cap - 1);
    while (slots[i])
        i = (i + 1) & (cap - 1);
    slots[i] = f;
}

static int fn_insert(fn_table *t, ct_function *f)
{
    if ((t->used + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        ct_function **slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i])
                fn_put(slots, cap, t->slots[i]);
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    fn_put(t->slots, t->cap, f);
    t->used++;
    return 0;
}

static module_entry *module_lookup(module_table *t, ModuleID id)
{
    if (!t->cap)
        return NULL;
    for (size_t i = hash_id(id) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        module_entry *m = &t->slots[i];
        if (!m->id || m->id == id)
            return m->id ? m : NULL;
    }
}

static void module_insert(module_table *t, ModuleID id, int framework)
{
    if ((t->used + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        module_entry *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return; /* not cached: asked again next time */
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].id) {
                size_t j = hash_id(t->slots[i].id) & (cap - 1);
                while (slots[j].id)
                    j = (j + 1) & (cap - 1);
                slots[j] = t->slots[i];
            }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    size_t j = hash_id(id) & (t->cap - 1);
    while (t->slots[j].id)
        j = (j + 1) & (t->cap - 1);
    t->slots[j] = (module_entry){id, framework};
    t->used++;
}

/* ------------------------------------------------------------ the filter */

/* A module is framework code when it was loaded from a shared framework
 * directory (dotnet/shared/Microsoft.NETCore.App/<ver>/, also ASP.NET Core
 * and Windows Desktop). */
static int path_is_framework(const char *path)
{
    return strstr(path, "/shared/Microsoft.") != NULL;
}

static int module_is_framework(ModuleID mod)
{
    pthread_mutex_lock(&g_lock);
    module_entry *m = module_lookup(&g_modules, mod);
    int known = m != NULL, framework = m ? m->framework : 0;
    pthread_mutex_unlock(&g_lock);
    if (known)
        return framework;

    WCHAR w[NAME_MAX_BYTES];
    char path[NAME_MAX_BYTES * 3];
    ULONG len = 0;
    const BYTE *base = NULL;
    AssemblyID assembly = 0;
    if (FAILED(g_ct.info->lpVtbl->GetModuleInfo(g_ct.info, mod, &base, NAME_MAX_BYTES, &len, w,
                                                &assembly)))
        return 0; /* unknown: let the name filter decide */
    ct_utf16_to_utf8(w, len, path, sizeof path);
    framework = path_is_framework(path);

    pthread_mutex_lock(&g_lock);
    if (!module_lookup(&g_modules, mod))
        module_insert(&g_modules, mod, framework);
    pthread_mutex_unlock(&g_lock);
    return framework;
}

static int name_is_framework(const char *name)
{
    static const char *const prefixes[] = {"System.", "Microsoft.", "Internal."};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

/* --------------------------------------------------------------- names */

/* "Ns.Outer.Inner" for a TypeDef: GetTypeDefProps gives "Ns.Outer" for a
 * top-level type and the bare name for a nested one; GetNestedClassProps
 * walks outwards. */
static int type_name(IMetaDataImport *mdi, mdTypeDef td, char *out, size_t cap)
{
    mdTypeDef chain[MAX_NESTING];
    int n = 0;
    while (td && n < MAX_NESTING) {
        chain[n++] = td;
        mdTypeDef outer = 0;
        if (mdi->lpVtbl->GetNestedClassProps(mdi, td, &outer) != S_OK)
            break;
        td = outer;
    }
    size_t o = 0;
    out[0] = '\0';
    for (int i = n - 1; i >= 0; i--) {
        WCHAR w[NAME_MAX_BYTES];
        char part[NAME_MAX_BYTES];
        ULONG len = 0;
        DWORD flags = 0;
        mdToken extends = 0;
        if (FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, chain[i], w, NAME_MAX_BYTES, &len, &flags,
                                                &extends)))
            return -1;
        ct_utf16_to_utf8(w, len, part, sizeof part);
        int k = snprintf(out + o, cap - o, "%s%s", o ? "." : "", part);
        if (k < 0 || (size_t)k >= cap - o)
            return -1;
        o += (size_t)k;
    }
    return 0;
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static void free_function(ct_function *f)
{
    if (!f)
        return;
    if (f->name && strcmp(f->name, "?"))
        free((char *)f->name);
    free((char *)f->signature);
    free(f);
}

/* Everything the record needs, from metadata. Called without g_lock held:
 * it calls back into the runtime. */
static ct_function *build_function(FunctionID id)
{
    ct_function *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->id = id;
    f->name = "?";

    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tok = 0;
    IUnknown *unk = NULL;
    if (FAILED(g_ct.info->lpVtbl->GetFunctionInfo(g_ct.info, id, &cls, &mod, &tok)) ||
        FAILED(g_ct.info->lpVtbl->GetTokenAndMetaDataFromFunction(g_ct.info, id,
                                                                  &IID_IMetaDataImport, &unk,
                                                                  &tok)) ||
        !unk)
        return f; /* no metadata (IL stub, dynamic method): not hooked */
    IMetaDataImport *mdi = (IMetaDataImport *)unk;

    WCHAR wmethod[NAME_MAX_BYTES];
    ULONG wlen = 0, sig_len = 0, rva = 0;
    DWORD attr = 0, impl = 0;
    mdTypeDef td = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (SUCCEEDED(mdi->lpVtbl->GetMethodProps(mdi, tok, &td, wmethod, NAME_MAX_BYTES, &wlen,
                                              &attr, &sig, &sig_len, &rva, &impl))) {
        char method[NAME_MAX_BYTES], type[NAME_MAX_BYTES], full[2 * NAME_MAX_BYTES + 2];
        ct_utf16_to_utf8(wmethod, wlen, method, sizeof method);
        /* td is nil (0x02000000) only for malformed metadata; global
         * functions belong to <Module> (0x02000001), which has a name. */
        if ((td & 0x00FFFFFF) && type_name(mdi, td, type, sizeof type) == 0)
            snprintf(full, sizeof full, "%s.%s", type, method);
        else
            snprintf(full, sizeof full, "%s", method);
        char *name = dup_text(full);
        if (name)
            f->name = name;

        f->hooked = name != NULL;
        if (f->hooked && !g_ct.cfg.trace_all)
            f->hooked = !name_is_framework(name) && !module_is_framework(mod);

        if (f->hooked && g_ct.cfg.signatures && sig) {
            char text[SIG_TEXT_MAX];
            if (ct_sigtext(mdi, tok, td, full, sig, sig_len, text, sizeof text) == 0)
                f->signature = dup_text(text);
        }
    }
    mdi->lpVtbl->Release(mdi);
    return f;
}

/* ---------------------------------------------------------- the mapper */

UINT_PTR ct_function_mapper(FunctionID id, void *client_data, BOOL *hook)
{
    (void)client_data;
    pthread_mutex_lock(&g_lock);
    ct_function *f = fn_lookup(&g_functions, id);
    pthread_mutex_unlock(&g_lock);

    if (!f) {
        ct_function *mine = build_function(id);
        if (!mine) {
            /* Out of memory: no hooks. The return value must not be 0. */
            *hook = 0;
            return id;
        }
        pthread_mutex_lock(&g_lock);
        f = fn_lookup(&g_functions, id);
        if (!f) {
            if (fn_insert(&g_functions, mine) == 0) {
                f = mine;
                mine = NULL;
                if (f->hooked)
                    g_hooked++;
            }
        }
        pthread_mutex_unlock(&g_lock);
        if (mine) {
            /* Lost a race (or the table could not grow): keep the winner's. */
            free_function(mine);
            if (!f) {
                *hook = 0;
                return id;
            }
        }
    }
    *hook = f->hooked;
    return (UINT_PTR)f;
}

const ct_function *ct_registry_find(FunctionID id)
{
    pthread_mutex_lock(&g_lock);
    const ct_function *f = fn_lookup(&g_functions, id);
    pthread_mutex_unlock(&g_lock);
    return f;
}

void ct_registry_counts(unsigned long *mapped, unsigned long *hooked)
{
    pthread_mutex_lock(&g_lock);
    *mapped = (unsigned long)g_functions.used;
    *hooked = g_hooked;
    pthread_mutex_unlock(&g_lock);
}
