#include "modules.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "identity.h"
#include "perm.h"
#include "agent/runtime/state.h"
#include "utf16.h"

/* Modules fetched per ICorProfilerModuleEnum::Next call. */
#define MODULE_ENUM_BATCH 64
/* Most modules looked through when resolving one TypeRef. */
#define MAX_SCANNED_MODULES 4096

/* ofRead from [cor] CorOpenFlags. */
#define OF_READ 0x00000000u

enum { TABLE_TYPEREF = 0x01, TABLE_TYPEDEF = 0x02 };

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_modules;  /* {ModuleID, 0} -> ct_module */
static ct_table g_typerefs; /* {ModuleID, TypeRef} -> resolved_ref */
/* {ct_module, TypeDef | TYPEDEF_NAME_NS} -> its name (ct_typedef_name):
 * a method's declaring type and its parameters' types are named again for
 * each method mapped (GetNestedClassProps and GetTypeDefProps for each
 * level, UTF-16 to UTF-8: 5 % of the samples of the C# compiler traced with
 * values). At most CT_TYPEDEF_NAMES_KEPT are kept; past them names are made
 * each time. */
static ct_table g_names;
static size_t g_nnames;
#define TYPEDEF_NAME_NS 0x80000000u
static _Atomic(const ct_module *) g_corelib;

typedef struct resolved_ref {
    const ct_module *module;
    mdTypeDef td;
} resolved_ref;

/* The file name of a module's path is System.Private.CoreLib.dll: for a
 * module whose assembly has no name the runtime tells. */
static int path_is_corelib(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strcmp(slash ? slash + 1 : path, "System.Private.CoreLib.dll") == 0;
}

/* The identity of the assembly that module mdi belongs to, from its
 * definition (the manifest module's Assembly row): framework or not
 * (identity.h). -1 when the metadata does not say (a module with no
 * Assembly row). */
static int identity_is_framework(IMetaDataImport *mdi, const char *name)
{
    void *p = NULL;
    if (!mdi || FAILED(mdi->lpVtbl->QueryInterface(mdi, &IID_IMetaDataAssemblyImport, &p)) || !p)
        return -1;
    IMetaDataAssemblyImport *mda = p;
    int rc = -1;
    mdToken tk = 0;
    const void *key = NULL;
    ULONG key_len = 0, hash_alg = 0, name_len = 0;
    DWORD flags = 0;
    ASSEMBLYMETADATA md;
    memset(&md, 0, sizeof md);
    WCHAR w[CT_NAME_MAX];
    if (SUCCEEDED(mda->lpVtbl->GetAssemblyFromScope(mda, &tk)) && tk &&
        SUCCEEDED(mda->lpVtbl->GetAssemblyProps(mda, tk, &key, &key_len, &hash_alg, w, CT_NAME_MAX,
                                                &name_len, &md, &flags))) {
        char own[CT_NAME_MAX * 3];
        ct_utf16_to_utf8(w, name_len, own, sizeof own);
        rc = ct_assembly_is_framework(name ? name : own, key, key_len, flags);
    }
    mda->lpVtbl->Release(mda);
    return rc;
}

atomic_int ct_activity_assembly_seen;

const ct_module *ct_module_get(ModuleID id)
{
    if (!id)
        return NULL;
    ct_key key = {id, 0};
    pthread_mutex_lock(&g_lock);
    const ct_module *m = ct_table_get_key(&g_modules, key);
    pthread_mutex_unlock(&g_lock);
    if (m)
        return m;

    ICorProfilerInfo *info = g_ct.info;
    ct_module *mine = ct_perm_alloc(sizeof *mine);
    if (!mine)
        return NULL;
    mine->id = id;
    WCHAR w[CT_NAME_MAX];
    char path[CT_NAME_MAX * 3];
    ULONG len = 0;
    const BYTE *base = NULL;
    AssemblyID assembly = 0;
    path[0] = '\0';
    if (SUCCEEDED(info->lpVtbl->GetModuleInfo(info, id, &base, CT_NAME_MAX, &len, w, &assembly)))
        ct_utf16_to_utf8(w, len, path, sizeof path);
    if (path[0] == '/')
        mine->path = ct_perm_strdup(path);
    ModuleID manifest = 0;
    if (assembly) {
        WCHAR wa[CT_NAME_MAX];
        ULONG alen = 0;
        AppDomainID domain = 0;
        if (SUCCEEDED(info->lpVtbl->GetAssemblyInfo(info, assembly, CT_NAME_MAX, &alen, wa,
                                                    &domain, &manifest)) &&
            alen > 0 && alen <= CT_NAME_MAX) {
            char aname[CT_NAME_MAX * 3];
            /* The count includes the terminating NUL. */
            ct_utf16_to_utf8(wa, wa[alen - 1] ? alen : alen - 1, aname, sizeof aname);
            mine->assembly = ct_perm_strdup(aname);
        }
    }
    /* CoreLib by its assembly name (a single-file bundle's modules have no
     * path), else by its file name. */
    mine->corelib = mine->assembly ? !strcmp(mine->assembly, "System.Private.CoreLib")
                                   : path_is_corelib(path);
    IUnknown *unk = NULL;
    if (info->lpVtbl->GetModuleMetaData(info, id, OF_READ, &IID_IMetaDataImport, &unk) == S_OK &&
        unk) {
        mine->mdi = (IMetaDataImport *)unk;
        void *two = NULL;
        if (SUCCEEDED(mine->mdi->lpVtbl->QueryInterface(mine->mdi, &IID_IMetaDataImport2, &two)))
            mine->mdi2 = two;
    }
    /* Framework by the assembly's identity: its own definition, else (a
     * module of a multi-module assembly) its manifest module's. */
    int fw = identity_is_framework(mine->mdi, mine->assembly);
    if (fw < 0 && manifest && manifest != id) {
        IUnknown *mu = NULL;
        if (info->lpVtbl->GetModuleMetaData(info, manifest, OF_READ, &IID_IMetaDataImport, &mu) ==
                S_OK &&
            mu) {
            fw = identity_is_framework((IMetaDataImport *)mu, mine->assembly);
            mu->lpVtbl->Release(mu);
        }
    }
    mine->framework = mine->corelib || fw > 0;
    if (mine->assembly && !strcmp(mine->assembly, CT_ACTIVITY_ASSEMBLY))
        atomic_store_explicit(&ct_activity_assembly_seen, 1, memory_order_release);

    pthread_mutex_lock(&g_lock);
    m = ct_table_get_key(&g_modules, key);
    if (!m && ct_table_put_key(&g_modules, key, mine) == 0)
        m = mine;
    pthread_mutex_unlock(&g_lock);
    if (m != mine) {
        /* Lost a race (or the table is full): give the interfaces back; the
         * record itself stays in permanent memory, unused. */
        if (mine->mdi2)
            mine->mdi2->lpVtbl->Release(mine->mdi2);
        if (mine->mdi)
            mine->mdi->lpVtbl->Release(mine->mdi);
        return m;
    }
    if (m->corelib) {
        const ct_module *none = NULL;
        atomic_compare_exchange_strong(&g_corelib, &none, m);
    }
    return m;
}

/* Calls fn for each loaded module until it returns non-zero; returns that. */
static int each_loaded_module(int (*fn)(void *ctx, const ct_module *m), void *ctx)
{
    ICorProfilerInfo *info = g_ct.info;
    ICorProfilerModuleEnum *e = NULL;
    if (FAILED(info->lpVtbl->EnumModules(info, &e)) || !e)
        return 0;
    int rc = 0;
    unsigned seen = 0;
    for (;;) {
        ModuleID ids[MODULE_ENUM_BATCH];
        ULONG got = 0;
        if (FAILED(e->lpVtbl->Next(e, MODULE_ENUM_BATCH, ids, &got)) || got == 0)
            break;
        for (ULONG i = 0; i < got && !rc && seen < MAX_SCANNED_MODULES; i++, seen++) {
            const ct_module *m = ct_module_get(ids[i]);
            if (m)
                rc = fn(ctx, m);
        }
        if (rc || seen >= MAX_SCANNED_MODULES)
            break;
    }
    e->lpVtbl->Release(e);
    return rc;
}

static int is_corelib_cb(void *ctx, const ct_module *m)
{
    (void)ctx;
    return m->corelib;
}

const ct_module *ct_corelib(int scan)
{
    const ct_module *m = atomic_load(&g_corelib);
    if (!m && scan) {
        each_loaded_module(is_corelib_cb, NULL);
        m = atomic_load(&g_corelib);
    }
    return m;
}

/* FindTypeDefByName with a UTF-8 name. */
static int find_typedef(const ct_module *m, const char *name, mdToken enclosing, mdTypeDef *td)
{
    if (!m || !m->mdi)
        return -1;
    WCHAR w[CT_NAME_MAX];
    if (ct_utf8_to_utf16(name, w, CT_NAME_MAX) < 0)
        return -1;
    mdTypeDef found = 0;
    if (m->mdi->lpVtbl->FindTypeDefByName(m->mdi, w, enclosing, &found) != S_OK || !found)
        return -1;
    *td = found;
    return 0;
}

int ct_corelib_typedef(const char *full_name, mdTypeDef *td)
{
    return find_typedef(ct_corelib(1), full_name, 0, td);
}

int ct_typedef_field(const ct_module *m, mdTypeDef td, const char *name, mdFieldDef *fd)
{
    if (!m || !m->mdi)
        return -1;
    IMetaDataImport *mdi = m->mdi;
    HCORENUM e = NULL;
    mdFieldDef fields[64];
    ULONG got = 0;
    int found = -1;
    while (found < 0 && mdi->lpVtbl->EnumFields(mdi, &e, td, fields, 64, &got) == S_OK && got) {
        for (ULONG i = 0; i < got && found < 0; i++) {
            WCHAR w[CT_NAME_MAX];
            char utf8[CT_NAME_MAX * 3];
            ULONG len = 0;
            DWORD attr = 0, flags = 0;
            PCCOR_SIGNATURE sig = NULL;
            ULONG sig_len = 0, vlen = 0;
            const void *value = NULL;
            mdTypeDef owner = 0;
            if (FAILED(mdi->lpVtbl->GetFieldProps(mdi, fields[i], &owner, w, CT_NAME_MAX, &len,
                                                  &attr, &sig, &sig_len, &flags, &value, &vlen)))
                continue;
            ct_utf16_to_utf8(w, len && !w[len - 1] ? len - 1 : len, utf8, sizeof utf8);
            if (!strcmp(utf8, name)) {
                *fd = fields[i];
                found = 0;
            }
        }
    }
    if (e)
        mdi->lpVtbl->CloseEnum(mdi, e);
    return found;
}

typedef struct find_ctx {
    const char *name;
    const ct_module *skip1, *skip2;
    const ct_module *found;
    mdTypeDef td;
} find_ctx;

static int find_cb(void *ctx, const ct_module *m)
{
    find_ctx *c = ctx;
    if (m == c->skip1 || m == c->skip2)
        return 0;
    if (find_typedef(m, c->name, 0, &c->td) == 0) {
        c->found = m;
        return 1;
    }
    return 0;
}

static int resolve_ref(const ct_module *m, mdTypeRef tok, int scan, unsigned depth,
                       const ct_module **def, mdTypeDef *td)
{
    if (depth > CT_MAX_NESTING || !m->mdi)
        return -1;
    ct_key key = {m->id, tok};
    pthread_mutex_lock(&g_lock);
    const resolved_ref *r = ct_table_get_key(&g_typerefs, key);
    pthread_mutex_unlock(&g_lock);
    if (r) {
        *def = r->module;
        *td = r->td;
        return 0;
    }

    WCHAR w[CT_NAME_MAX];
    char name[CT_NAME_MAX];
    ULONG len = 0;
    mdToken scope = 0;
    if (FAILED(m->mdi->lpVtbl->GetTypeRefProps(m->mdi, tok, &scope, w, CT_NAME_MAX, &len)))
        return -1;
    ct_utf16_to_utf8(w, len, name, sizeof name);

    const ct_module *found = NULL;
    mdTypeDef found_td = 0;
    if ((scope >> 24) == TABLE_TYPEREF) {
        /* Nested: find the enclosing type first, then this one inside it. */
        const ct_module *outer_m = NULL;
        mdTypeDef outer_td = 0;
        if (resolve_ref(m, scope, scan, depth + 1, &outer_m, &outer_td) != 0 ||
            find_typedef(outer_m, name, outer_td, &found_td) != 0)
            return -1;
        found = outer_m;
    } else {
        /* Top level: the referencing module itself, CoreLib (where most
         * framework types live, forwarded from facades like System.Runtime),
         * then every loaded module. The first definition found wins. */
        const ct_module *corelib = ct_corelib(scan);
        if (find_typedef(m, name, 0, &found_td) == 0) {
            found = m;
        } else if (find_typedef(corelib, name, 0, &found_td) == 0) {
            found = corelib;
        } else if (scan) {
            find_ctx c = {name, m, corelib, NULL, 0};
            if (each_loaded_module(find_cb, &c)) {
                found = c.found;
                found_td = c.td;
            }
        }
        if (!found)
            return -1;
    }

    resolved_ref *mine = ct_perm_alloc(sizeof *mine);
    if (mine) {
        mine->module = found;
        mine->td = found_td;
        pthread_mutex_lock(&g_lock);
        if (!ct_table_get_key(&g_typerefs, key))
            ct_table_put_key(&g_typerefs, key, mine);
        pthread_mutex_unlock(&g_lock);
    }
    *def = found;
    *td = found_td;
    return 0;
}

int ct_resolve_type(const ct_module *m, mdToken tok, int scan, const ct_module **def,
                    mdTypeDef *td)
{
    if (!m)
        return -1;
    if ((tok >> 24) == TABLE_TYPEDEF) {
        *def = m;
        *td = tok;
        return 0;
    }
    if ((tok >> 24) == TABLE_TYPEREF)
        return resolve_ref(m, tok, scan, 0, def, td);
    return -1;
}

int ct_typedef_walk(const ct_module *m, mdTypeDef td, ct_typedef_part_fn fn, void *ctx)
{
    if (!m || !m->mdi)
        return -1;
    IMetaDataImport *mdi = m->mdi;
    mdTypeDef chain[CT_MAX_NESTING];
    int n = 0;
    while (td && n < CT_MAX_NESTING) {
        chain[n++] = td;
        mdTypeDef outer = 0;
        if (mdi->lpVtbl->GetNestedClassProps(mdi, td, &outer) != S_OK)
            break;
        td = outer;
    }
    for (int i = n - 1; i >= 0; i--) {
        WCHAR w[CT_NAME_MAX];
        char part[CT_NAME_MAX * 3];
        ULONG len = 0;
        DWORD flags = 0;
        mdToken extends = 0;
        if (FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, chain[i], w, CT_NAME_MAX, &len, &flags,
                                                &extends)))
            return -1;
        ct_utf16_to_utf8(w, len, part, sizeof part);
        int rc = fn(ctx, part, n - 1 - i, n);
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct name_out {
    char *out;
    size_t cap, len;
    int with_ns;
} name_out;

static int name_part(void *ctx, const char *part, int index, int count)
{
    (void)count;
    name_out *o = ctx;
    const char *shown = index == 0 && !o->with_ns ? ct_typedef_unqualified(part) : part;
    int k = snprintf(o->out + o->len, o->cap - o->len, "%s%s", o->len ? "." : "", shown);
    if (k < 0 || (size_t)k >= o->cap - o->len)
        return -1;
    o->len += (size_t)k;
    return 0;
}

int ct_typedef_name(const ct_module *m, mdTypeDef td, int with_ns, char *out, size_t cap)
{
    if (!m || !m->mdi || !cap)
        return -1;
    ct_key key = {(uintptr_t)m, (td & ~TYPEDEF_NAME_NS) | (with_ns ? TYPEDEF_NAME_NS : 0)};
    pthread_mutex_lock(&g_lock);
    const char *kept = ct_table_get_key(&g_names, key);
    pthread_mutex_unlock(&g_lock);
    if (kept) {
        size_t n = strlen(kept);
        if (n >= cap)
            return -1; /* as the walk does when the name does not fit */
        memcpy(out, kept, n + 1);
        return 0;
    }
    name_out o = {out, cap, 0, with_ns};
    out[0] = '\0';
    int rc = ct_typedef_walk(m, td, name_part, &o);
    if (rc == 0) {
        pthread_mutex_lock(&g_lock);
        if (g_nnames < CT_TYPEDEF_NAMES_KEPT && !ct_table_get_key(&g_names, key)) {
            char *copy = ct_perm_strdup(out);
            if (copy && ct_table_put_key(&g_names, key, copy) == 0)
                g_nnames++;
        }
        pthread_mutex_unlock(&g_lock);
    }
    return rc;
}

/* The full name of a TypeDef or TypeRef token (no nesting), for base types. */
static int token_full_name(const ct_module *m, mdToken tok, char *out, size_t cap)
{
    WCHAR w[CT_NAME_MAX];
    ULONG len = 0;
    if ((tok >> 24) == TABLE_TYPEDEF) {
        DWORD flags = 0;
        mdToken extends = 0;
        if (FAILED(m->mdi->lpVtbl->GetTypeDefProps(m->mdi, tok, w, CT_NAME_MAX, &len, &flags,
                                                   &extends)))
            return -1;
    } else if ((tok >> 24) == TABLE_TYPEREF) {
        mdToken scope = 0;
        if (FAILED(m->mdi->lpVtbl->GetTypeRefProps(m->mdi, tok, &scope, w, CT_NAME_MAX, &len)))
            return -1;
    } else {
        return -1;
    }
    ct_utf16_to_utf8(w, len, out, cap);
    return 0;
}

ct_type_kind ct_typedef_kind(const ct_module *m, mdTypeDef td)
{
    if (!m || !m->mdi)
        return CT_TYPE_CLASS;
    WCHAR w[CT_NAME_MAX];
    char self[CT_NAME_MAX * 3], base[CT_NAME_MAX * 3];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (FAILED(m->mdi->lpVtbl->GetTypeDefProps(m->mdi, td, w, CT_NAME_MAX, &len, &flags,
                                               &extends)) ||
        !extends)
        return CT_TYPE_CLASS;
    ct_utf16_to_utf8(w, len, self, sizeof self);
    if (token_full_name(m, extends, base, sizeof base) != 0)
        return CT_TYPE_CLASS;
    /* System.Enum itself derives from System.ValueType but is a class. */
    if (!strcmp(base, "System.Enum"))
        return CT_TYPE_ENUM;
    if (!strcmp(base, "System.ValueType") && strcmp(self, "System.Enum"))
        return CT_TYPE_STRUCT;
    return CT_TYPE_CLASS;
}

/* The declared name of generic parameter index of owner ("T"). */
int ct_generic_param_count(const ct_module *m, mdToken owner)
{
    IMetaDataImport *mdi2 = m ? m->mdi2 : NULL;
    HCORENUM e = NULL;
    mdGenericParam params[CT_GENERIC_PARAMS_MAX];
    ULONG n = 0;
    if (!mdi2 || !owner ||
        FAILED(mdi2->lpVtbl->EnumGenericParams(mdi2, &e, owner, params, CT_GENERIC_PARAMS_MAX, &n)))
        n = 0;
    if (e)
        mdi2->lpVtbl->CloseEnum(mdi2, e);
    return (int)n;
}

int ct_generic_param_name(const ct_module *m, mdToken owner, uint32_t index, char *name,
                          size_t cap)
{
    IMetaDataImport *mdi2 = m ? m->mdi2 : NULL;
    HCORENUM e = NULL;
    mdGenericParam params[CT_GENERIC_PARAMS_MAX];
    ULONG n = 0;
    int rc = -1;
    if (!mdi2 || !owner ||
        FAILED(mdi2->lpVtbl->EnumGenericParams(mdi2, &e, owner, params, CT_GENERIC_PARAMS_MAX, &n)))
        goto done;
    for (ULONG i = 0; i < n; i++) {
        WCHAR w[CT_NAME_MAX];
        ULONG seq = 0, len = 0;
        DWORD flags = 0, reserved = 0;
        mdToken tk = 0;
        if (SUCCEEDED(mdi2->lpVtbl->GetGenericParamProps(mdi2, params[i], &seq, &flags, &tk,
                                                         &reserved, w, CT_NAME_MAX, &len)) &&
            seq == index) {
            ct_utf16_to_utf8(w, len, name, cap);
            rc = name[0] ? 0 : -1;
            break;
        }
    }
done:
    if (e)
        mdi2->lpVtbl->CloseEnum(mdi2, e);
    return rc;
}

int ct_module_each_method(const ct_module *m, int (*type_ok)(const ct_module *m, mdTypeDef td),
                          ct_method_fn fn, void *ctx)
{
    IMetaDataImport *mdi = m ? m->mdi : NULL;
    HCORENUM te = NULL;
    mdTypeDef tds[64];
    ULONG nt = 0;
    int rc = 0;
    while (mdi && !rc && SUCCEEDED(mdi->lpVtbl->EnumTypeDefs(mdi, &te, tds, 64, &nt)) && nt) {
        for (ULONG i = 0; i < nt && !rc; i++) {
            if (type_ok && !type_ok(m, tds[i]))
                continue;
            HCORENUM me = NULL;
            mdMethodDef toks[64];
            ULONG nm = 0;
            while (!rc && SUCCEEDED(mdi->lpVtbl->EnumMethods(mdi, &me, tds[i], toks, 64, &nm)) && nm)
                for (ULONG k = 0; k < nm && !rc; k++)
                    rc = fn(ctx, m, toks[k]);
            if (me)
                mdi->lpVtbl->CloseEnum(mdi, me);
        }
    }
    if (te)
        mdi->lpVtbl->CloseEnum(mdi, te);
    return rc;
}

int ct_method_props(const ct_module *m, mdMethodDef tok, char *method, char *full,
                    mdTypeDef *td, PCCOR_SIGNATURE *sig, ULONG *sig_len, DWORD *impl)
{
    IMetaDataImport *mdi = m->mdi;
    WCHAR wmethod[CT_NAME_MAX];
    ULONG wlen = 0, rva = 0;
    DWORD attr = 0;
    *impl = 0;
    if (!mdi || FAILED(mdi->lpVtbl->GetMethodProps(mdi, tok, td, wmethod, CT_NAME_MAX, &wlen,
                                                   &attr, sig, sig_len, &rva, impl)))
        return -1;
    ct_utf16_to_utf8(wmethod, wlen, method, CT_NAME_MAX * 3);
    char type[CT_NAME_MAX * 3];
    if ((*td & 0x00FFFFFF) && ct_typedef_name(m, *td, 1, type, sizeof type) == 0)
        snprintf(full, CT_METHOD_FULL_MAX, "%s.%s", type, method);
    else
        snprintf(full, CT_METHOD_FULL_MAX, "%s", method);
    return 0;
}

int ct_method_full_name(const ct_module *m, mdMethodDef tok, char *out, size_t cap)
{
    char method[CT_NAME_MAX * 3], full[CT_METHOD_FULL_MAX];
    mdTypeDef td = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0;
    DWORD impl = 0;
    if (ct_method_props(m, tok, method, full, &td, &sig, &sig_len, &impl) != 0)
        return -1;
    return (size_t)snprintf(out, cap, "%s", full) < cap ? 0 : -1;
}
