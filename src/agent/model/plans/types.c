/* Capture plans, part one: turning a type into a plan. The fixed plans, the
 * plan cache (the planner's only shared state), the C# text of signature
 * types, ClassID lookups for generic arguments, and the plans of enums,
 * structs, Nullable<T>, arrays and classes, from a ClassID (ct_pl_plan_class)
 * or a signature type (ct_pl_plan_type); and the planning session every part
 * opens (ct_pl_open, ct_pl_close). It uses no other part: the parts are in
 * order, each over those before it (plans/internal.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/model/classnames.h"
#include "agent/model/loaded.h"
#include "clrsig/clrsig.h"
#include "base/table.h"
#include "agent/model/perm.h"
#include "internal.h"
#include "agent/runtime/state.h"
#include "agent/model/utf16.h"

/* Most named values kept per enum. */
#define ENUM_MAX_ITEMS 4096
/* Fields and enum values fetched per EnumFields call. */
#define FIELD_ENUM_BATCH 64

/* [cor] CorFieldAttr */
#define FD_STATIC 0x0010u
#define FD_LITERAL 0x0040u

/* ------------------------------------------------------ fixed plans */

#define FIXED(k, sz, nm) {.kind = (k), .size = (sz), .type_name = (nm)}
static const ct_plan k_void = FIXED(CT_V_VOID, 0, "void");
static const ct_plan k_bool = FIXED(CT_V_BOOL, 1, "bool");
static const ct_plan k_char = FIXED(CT_V_CHAR, 2, "char");
static const ct_plan k_i1 = FIXED(CT_V_I1, 1, "sbyte");
static const ct_plan k_u1 = FIXED(CT_V_U1, 1, "byte");
static const ct_plan k_i2 = FIXED(CT_V_I2, 2, "short");
static const ct_plan k_u2 = FIXED(CT_V_U2, 2, "ushort");
static const ct_plan k_i4 = FIXED(CT_V_I4, 4, "int");
static const ct_plan k_u4 = FIXED(CT_V_U4, 4, "uint");
static const ct_plan k_i8 = FIXED(CT_V_I8, 8, "long");
static const ct_plan k_u8 = FIXED(CT_V_U8, 8, "ulong");
static const ct_plan k_r4 = FIXED(CT_V_R4, 4, "float");
static const ct_plan k_r8 = FIXED(CT_V_R8, 8, "double");
static const ct_plan k_i = FIXED(CT_V_I, 8, "nint");
static const ct_plan k_u = FIXED(CT_V_U, 8, "nuint");
static const ct_plan k_string = FIXED(CT_V_STRING, 8, "string");
static const ct_plan k_object = FIXED(CT_V_OBJECT, 8, "object");
static const ct_plan k_decimal = FIXED(CT_V_DECIMAL, 16, "decimal");
static const ct_plan k_typedref = FIXED(CT_V_OPAQUE, 16, "TypedReference");
/* Well-known structs (value_wellknown.c says how each reads). */
static const ct_plan k_datetime = FIXED(CT_V_DATETIME, 8, "DateTime");
static const ct_plan k_timespan = FIXED(CT_V_TIMESPAN, 8, "TimeSpan");
static const ct_plan k_guid = FIXED(CT_V_GUID, 16, "Guid");
static const ct_plan k_half = FIXED(CT_V_HALF, 2, "Half");
static const ct_plan k_int128 = FIXED(CT_V_I16, 16, "Int128");
static const ct_plan k_uint128 = FIXED(CT_V_U16, 16, "UInt128");
static const ct_plan k_rune = FIXED(CT_V_RUNE, 4, "Rune");
const ct_plan ct_plan_by_range = FIXED(CT_V_OPAQUE, 0, "?");

const ct_plan *ct_pl_prim_plan(uint8_t et)
{
    switch (et) {
    case CLRSIG_ET_VOID: return &k_void;
    case CLRSIG_ET_BOOLEAN: return &k_bool;
    case CLRSIG_ET_CHAR: return &k_char;
    case CLRSIG_ET_I1: return &k_i1;
    case CLRSIG_ET_U1: return &k_u1;
    case CLRSIG_ET_I2: return &k_i2;
    case CLRSIG_ET_U2: return &k_u2;
    case CLRSIG_ET_I4: return &k_i4;
    case CLRSIG_ET_U4: return &k_u4;
    case CLRSIG_ET_I8: return &k_i8;
    case CLRSIG_ET_U8: return &k_u8;
    case CLRSIG_ET_R4: return &k_r4;
    case CLRSIG_ET_R8: return &k_r8;
    case CLRSIG_ET_I: return &k_i;
    case CLRSIG_ET_U: return &k_u;
    case CLRSIG_ET_STRING: return &k_string;
    case CLRSIG_ET_OBJECT: return &k_object;
    default: return NULL;
    }
}

/* CoreLib types with a fixed plan, by full name. */
static const struct {
    const char *name;
    const ct_plan *plan;
} k_corelib_plans[] = {
    {"System.Boolean", &k_bool}, {"System.Char", &k_char},     {"System.SByte", &k_i1},
    {"System.Byte", &k_u1},      {"System.Int16", &k_i2},      {"System.UInt16", &k_u2},
    {"System.Int32", &k_i4},     {"System.UInt32", &k_u4},     {"System.Int64", &k_i8},
    {"System.UInt64", &k_u8},    {"System.Single", &k_r4},     {"System.Double", &k_r8},
    {"System.IntPtr", &k_i},     {"System.UIntPtr", &k_u},     {"System.String", &k_string},
    {"System.Object", &k_object}, {"System.__Canon", &k_object}, {"System.Decimal", &k_decimal},
    {"System.TypedReference", &k_typedref}, {"System.DateTime", &k_datetime},
    {"System.TimeSpan", &k_timespan}, {"System.Guid", &k_guid}, {"System.Half", &k_half},
    {"System.Int128", &k_int128}, {"System.UInt128", &k_uint128},
    {"System.Text.Rune", &k_rune},
};

const ct_plan *ct_pl_corelib_plan(const char *full)
{
    for (size_t i = 0; i < sizeof k_corelib_plans / sizeof *k_corelib_plans; i++)
        if (!strcmp(full, k_corelib_plans[i].name))
            return k_corelib_plans[i].plan;
    return NULL;
}

static ct_vkind one_field_kind(ClassID cls, const char *full);

ct_vkind ct_plan_boxed_kind(ClassID cls)
{
    ICorProfilerInfo *info = g_ct.info;
    ModuleID mod = 0;
    mdTypeDef td = 0;
    ClassID parent = 0;
    ULONG32 nargs = 0;
    if (!cls || FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, 0, &nargs,
                                                      NULL)) || nargs)
        return CT_V_VOID;
    const ct_module *m = ct_module_get(mod);
    char full[CT_NAME_MAX * 3];
    if (!m || !m->corelib || !m->mdi || ct_typedef_name(m, td, 1, full, sizeof full) != 0)
        return CT_V_VOID;
    const ct_plan *p = ct_pl_corelib_plan(full);
    /* Only values of a fixed size, held right after the method table. */
    if (p)
        return ct_vkind_size(p->kind) ? p->kind : CT_V_VOID;
    return one_field_kind(cls, full);
}

/* ----------------------------------------------------------- caches */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_plans; /* {ClassID, budget} or {module, ENUM_TAG | td} -> plan */
#define ENUM_TAG (1ull << 40)
#define CLASS_TAG (1ull << 41)

static const ct_plan *cache_get(ct_key k)
{
    pthread_mutex_lock(&g_lock);
    const ct_plan *p = ct_table_get_key(&g_plans, k);
    pthread_mutex_unlock(&g_lock);
    return p;
}

static const ct_plan *cache_put(ct_key k, const ct_plan *p)
{
    pthread_mutex_lock(&g_lock);
    const ct_plan *old = ct_table_get_key(&g_plans, k);
    if (!old)
        ct_table_put_key(&g_plans, k, (void *)p);
    pthread_mutex_unlock(&g_lock);
    return old ? old : p;
}

const ct_plan *ct_pl_new_plan(const ct_plan *tmpl)
{
    ct_plan *p = ct_perm_alloc(sizeof *p);
    if (!p)
        return &ct_plan_by_range;
    *p = *tmpl;
    return p;
}

const char *ct_pl_perm_text(const char *s)
{
    const char *p = ct_perm_strdup(s);
    return p ? p : "?";
}

/* ------------------------------------------------ canonical arguments */

int ct_plan_is_canon(ClassID cls)
{
    char n[64];
    if (cls == CANON_MARK)
        return 1;
    return cls && ct_classid_name(cls, CT_NAME_FULL, n, sizeof n) == 0 &&
           !strcmp(n, "System.__Canon");
}

/* ------------------------------------------- resolver for type texts */

static int split_name(const char *full, char *ns, size_t ns_cap, char *name, size_t name_cap)
{
    const char *dot = strrchr(full, '.');
    if (!dot) {
        snprintf(ns, ns_cap, "%s", "");
        snprintf(name, name_cap, "%s", full);
    } else {
        snprintf(ns, ns_cap, "%.*s", (int)(dot - full), full);
        snprintf(name, name_cap, "%s", dot + 1);
    }
    return 0;
}

/* CoreLib's primitive types reached through a token (System.Decimal is
 * always one) print as their C# keywords, like the element types do. */
static int keyword_or_split(const char *full, char *ns, size_t ns_cap, char *name,
                            size_t name_cap)
{
    const char *kw = ct_corelib_keyword(full);
    if (kw) {
        snprintf(ns, ns_cap, "%s", "");
        snprintf(name, name_cap, "%s", kw);
        return 0;
    }
    return split_name(full, ns, ns_cap, name, name_cap);
}

static int r_type_name(void *ctx, uint32_t token, char *ns, size_t ns_cap, char *name,
                       size_t name_cap, uint32_t *enclosing, char *scope, size_t scope_cap)
{
    IMetaDataImport *mdi = ((pctx *)ctx)->m->mdi;
    WCHAR w[CLRSIG_MAX_NAME];
    char full[CLRSIG_MAX_NAME];
    ULONG len = 0;
    *enclosing = 0;
    if (scope_cap)
        scope[0] = '\0';
    if ((token >> 24) == 0x02) {
        DWORD flags = 0;
        mdToken extends = 0;
        if (FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, token, w, CLRSIG_MAX_NAME, &len, &flags,
                                                &extends)))
            return -1;
        ct_utf16_to_utf8(w, len, full, sizeof full);
        mdTypeDef outer = 0;
        if (mdi->lpVtbl->GetNestedClassProps(mdi, token, &outer) == S_OK && outer) {
            *enclosing = outer;
            snprintf(ns, ns_cap, "%s", "");
            snprintf(name, name_cap, "%s", full);
            return 0;
        }
        return keyword_or_split(full, ns, ns_cap, name, name_cap);
    }
    if ((token >> 24) == 0x01) {
        mdToken rscope = 0;
        if (FAILED(mdi->lpVtbl->GetTypeRefProps(mdi, token, &rscope, w, CLRSIG_MAX_NAME, &len)))
            return -1;
        ct_utf16_to_utf8(w, len, full, sizeof full);
        if ((rscope >> 24) == 0x01) {
            *enclosing = rscope;
            snprintf(ns, ns_cap, "%s", "");
            snprintf(name, name_cap, "%s", full);
            return 0;
        }
        return keyword_or_split(full, ns, ns_cap, name, name_cap);
    }
    return -1;
}

static int r_typespec(void *ctx, uint32_t token, const uint8_t **blob, uint32_t *len)
{
    IMetaDataImport *mdi = ((pctx *)ctx)->m->mdi;
    PCCOR_SIGNATURE sig = NULL;
    ULONG n = 0;
    if ((token >> 24) != 0x1B || FAILED(mdi->lpVtbl->GetTypeSpecFromToken(mdi, token, &sig, &n)))
        return -1;
    *blob = sig;
    *len = n;
    return 0;
}

/* A known, exact type argument (System.__Canon is shown by its declared
 * name: the code is shared by every reference type). */
static ClassID actual_arg(const pctx *c, int is_method, uint32_t index)
{
    const ClassID *args = is_method ? c->margs : c->cargs;
    uint32_t n = is_method ? c->nmargs : c->ncargs;
    int known = is_method ? c->mknown : c->cknown;
    if (!known || index >= n || index >= CT_MAX_TYPE_ARGS)
        return 0;
    return args[index];
}

static int r_generic_param(void *ctx, int is_method, uint32_t index, char *name, size_t cap,
                           const clrsig_type **actual)
{
    pctx *c = ctx;
    *actual = NULL;
    ClassID cls = actual_arg(c, is_method, index);
    if (cls && !ct_plan_is_canon(cls)) {
        clrsig_type *node = &c->gnode[is_method ? 1 : 0][index];
        memset(node, 0, sizeof *node);
        node->kind = CLRSIG_ET_INTERNAL;
        node->u.handle = cls;
        *actual = node;
        return 0;
    }
    return ct_generic_param_name(c->m, is_method ? c->method_owner : c->type_owner, index,
                                    name, cap);
}

static int r_handle_name(void *ctx, uint64_t handle, char *name, size_t cap)
{
    (void)ctx;
    return ct_classid_name((ClassID)handle, CT_NAME_SHORT, name, cap);
}

/* C# text of a type, short names, actual generic arguments where known. */
void ct_pl_type_text(pctx *c, const clrsig_type *t, char *out, size_t cap)
{
    clrsig_resolver r = {.ctx = c, .type_name = r_type_name, .typespec = r_typespec,
                         .generic_param = r_generic_param, .handle_name = r_handle_name};
    clrsig_format_opts opts = {.style = CLRSIG_STYLE_CSHARP, .short_names = 1,
                               .scratch = c->scratch};
    clrsig_error err;
    clrsig_status st = clrsig_format_type(t, &opts, &r, out, cap, NULL, &err);
    if (st != CLRSIG_OK && st != CLRSIG_E_OUTPUT_TRUNCATED)
        snprintf(out, cap, "?");
}

/* C# name of a TypeDef or TypeRef token, short ("List" for List`1). */
void ct_pl_token_text(pctx *c, uint32_t token, char *out, size_t cap)
{
    clrsig_resolver r = {.ctx = c, .type_name = r_type_name};
    clrsig_format_opts opts = {.style = CLRSIG_STYLE_CSHARP, .short_names = 1};
    clrsig_error err;
    clrsig_status st = clrsig_format_token(token, &opts, &r, out, cap, NULL, &err);
    if (st != CLRSIG_OK && st != CLRSIG_E_OUTPUT_TRUNCATED)
        snprintf(out, cap, "?");
}

/* --------------------------------------------------- ClassID lookups */

/* A CoreLib type by full name -> ClassID (loads it if needed; in a hook,
 * only one the runtime has loaded). */
static ClassID corelib_class(const pctx *c, const char *full)
{
    mdTypeDef td = 0;
    ClassID cls = 0;
    const ct_module *corelib = ct_corelib(c->allow_load);
    if (!corelib || ct_corelib_typedef(full, &td) != 0)
        return 0;
    if (!c->allow_load)
        return ct_loaded_find(corelib->id, td, 0, NULL);
    if (FAILED(g_ct.info->lpVtbl->GetClassFromToken(g_ct.info, corelib->id, td, &cls)))
        return 0;
    ct_loaded_note(corelib->id, td, 0, NULL, cls);
    return cls;
}

static const char *prim_full_name(uint8_t et)
{
    switch (et) {
    case CLRSIG_ET_BOOLEAN: return "System.Boolean";
    case CLRSIG_ET_CHAR: return "System.Char";
    case CLRSIG_ET_I1: return "System.SByte";
    case CLRSIG_ET_U1: return "System.Byte";
    case CLRSIG_ET_I2: return "System.Int16";
    case CLRSIG_ET_U2: return "System.UInt16";
    case CLRSIG_ET_I4: return "System.Int32";
    case CLRSIG_ET_U4: return "System.UInt32";
    case CLRSIG_ET_I8: return "System.Int64";
    case CLRSIG_ET_U8: return "System.UInt64";
    case CLRSIG_ET_R4: return "System.Single";
    case CLRSIG_ET_R8: return "System.Double";
    case CLRSIG_ET_I: return "System.IntPtr";
    case CLRSIG_ET_U: return "System.UIntPtr";
    case CLRSIG_ET_STRING: return "System.String";
    case CLRSIG_ET_OBJECT: return "System.Object";
    default: return NULL;
    }
}

/* Result of class_of_type beyond a ClassID. */
enum { CLS_OK = 0, CLS_FAIL = -1, CLS_LATE = 1 };

static int class_of_token(pctx *c, uint32_t token, const clrsig_type *const *args, uint32_t n,
                          ClassID *out);

/* The ClassID of a signature type, for generic arguments. Reference types
 * that have no cheap ClassID (arrays) use System.__Canon: the layout of an
 * instantiation depends only on which arguments are reference types. */
static int class_of_type(pctx *c, const clrsig_type *t, ClassID *out)
{
    t = clrsig_strip(t);
    const char *prim = prim_full_name(t->kind);
    if (prim) {
        *out = corelib_class(c, prim);
        return *out ? CLS_OK : CLS_FAIL;
    }
    switch (t->kind) {
    case CLRSIG_ET_VAR:
    case CLRSIG_ET_MVAR: {
        int is_method = t->kind == CLRSIG_ET_MVAR;
        if (!(is_method ? c->mknown : c->cknown))
            return CLS_LATE;
        *out = actual_arg(c, is_method, t->u.index);
        return *out ? CLS_OK : CLS_FAIL;
    }
    case CLRSIG_ET_CLASS:
    case CLRSIG_ET_VALUETYPE:
        return class_of_token(c, t->u.token, NULL, 0, out);
    case CLRSIG_ET_GENERICINST:
        return class_of_token(c, t->u.inst.generic->u.token, t->u.inst.args, t->u.inst.argc, out);
    case CLRSIG_ET_SZARRAY:
    case CLRSIG_ET_ARRAY:
    case CLRSIG_ET_CANON:
        *out = corelib_class(c, "System.__Canon");
        return *out ? CLS_OK : CLS_FAIL;
    case CLRSIG_ET_INTERNAL:
        *out = (ClassID)t->u.handle;
        return *out ? CLS_OK : CLS_FAIL;
    default:
        return CLS_FAIL;
    }
}

static int class_of_token(pctx *c, uint32_t token, const clrsig_type *const *args, uint32_t n,
                          ClassID *out)
{
    const ct_module *def = NULL;
    mdTypeDef td = 0;
    *out = 0;
    if (n > CT_MAX_TYPE_ARGS)
        return CLS_FAIL;
    ClassID ids[CT_MAX_TYPE_ARGS];
    for (uint32_t i = 0; i < n; i++) {
        int rc = class_of_type(c, args[i], &ids[i]);
        if (rc != CLS_OK)
            return rc;
    }
    if (ct_resolve_type(c->m, token, c->allow_load, &def, &td) != 0)
        return CLS_FAIL;
    if (!c->allow_load) {
        /* In a hook: only a value type the runtime has loaded already. */
        *out = ct_loaded_find(def->id, td, n, ids);
        return *out ? CLS_OK : CLS_FAIL;
    }
    ICorProfilerInfo *info = g_ct.info;
    HRESULT hr = n ? info->lpVtbl->GetClassFromTokenAndTypeArgs(info, def->id, td, n, ids, out)
                   : info->lpVtbl->GetClassFromToken(info, def->id, td, out);
    if (FAILED(hr) || !*out)
        return CLS_FAIL;
    ct_loaded_note(def->id, td, n, ids, *out);
    return CLS_OK;
}

/* ------------------------------------------------------------- enums */

static uint64_t read_constant(const void *value, DWORD et)
{
    const uint8_t *b = value;
    size_t n;
    switch (et) {
    case CLRSIG_ET_BOOLEAN: case CLRSIG_ET_I1: case CLRSIG_ET_U1: n = 1; break;
    case CLRSIG_ET_CHAR: case CLRSIG_ET_I2: case CLRSIG_ET_U2: n = 2; break;
    case CLRSIG_ET_I4: case CLRSIG_ET_U4: n = 4; break;
    case CLRSIG_ET_I8: case CLRSIG_ET_U8: n = 8; break;
    default: return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static int underlying_of(uint8_t et, ct_vkind *kind, uint32_t *size)
{
    switch (et) {
    case CLRSIG_ET_I1: *kind = CT_V_I1; *size = 1; return 0;
    case CLRSIG_ET_BOOLEAN:
    case CLRSIG_ET_U1: *kind = CT_V_U1; *size = 1; return 0;
    case CLRSIG_ET_I2: *kind = CT_V_I2; *size = 2; return 0;
    case CLRSIG_ET_CHAR:
    case CLRSIG_ET_U2: *kind = CT_V_U2; *size = 2; return 0;
    case CLRSIG_ET_I4: *kind = CT_V_I4; *size = 4; return 0;
    case CLRSIG_ET_U4: *kind = CT_V_U4; *size = 4; return 0;
    case CLRSIG_ET_I:
    case CLRSIG_ET_I8: *kind = CT_V_I8; *size = 8; return 0;
    case CLRSIG_ET_U:
    case CLRSIG_ET_U8: *kind = CT_V_U8; *size = 8; return 0;
    default: return -1;
    }
}

/* The type name without its metadata arity suffix. */
static void strip_arity(char *name)
{
    char *w = name;
    for (const char *r = name; *r;) {
        if (*r == '`') {
            r++;
            while (*r >= '0' && *r <= '9')
                r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

static const ct_plan *plan_enum(const ct_module *m, mdTypeDef td)
{
    ct_key key = {m->id, ENUM_TAG | td};
    const ct_plan *cached = cache_get(key);
    if (cached)
        return cached;
    IMetaDataImport *mdi = m->mdi;
    ct_enum_item *items = calloc(ENUM_MAX_ITEMS, sizeof *items);
    if (!items)
        return &ct_plan_by_range;
    uint32_t count = 0;
    ct_plan p = {.kind = CT_V_ENUM, .underlying = CT_V_VOID};
    HCORENUM e = NULL;
    for (;;) {
        mdFieldDef fields[FIELD_ENUM_BATCH];
        ULONG got = 0;
        if (mdi->lpVtbl->EnumFields(mdi, &e, td, fields, FIELD_ENUM_BATCH, &got) != S_OK || !got)
            break;
        for (ULONG i = 0; i < got; i++) {
            WCHAR w[PARAM_NAME_MAX];
            char name[PARAM_NAME_MAX];
            ULONG len = 0, sig_len = 0, value_len = 0;
            DWORD attr = 0, cplus = 0;
            mdTypeDef owner = 0;
            PCCOR_SIGNATURE sig = NULL;
            const void *value = NULL;
            if (FAILED(mdi->lpVtbl->GetFieldProps(mdi, fields[i], &owner, w, PARAM_NAME_MAX, &len,
                                                  &attr, &sig, &sig_len, &cplus, &value,
                                                  &value_len)))
                continue;
            if (!(attr & FD_STATIC)) {
                /* value__: FIELD (0x06), then the underlying element type. */
                if (sig && sig_len >= 2 && sig[0] == 0x06)
                    underlying_of(sig[1], &p.underlying, &p.size);
                continue;
            }
            if (!(attr & FD_LITERAL) || !value || count >= ENUM_MAX_ITEMS)
                continue;
            ct_utf16_to_utf8(w, len, name, sizeof name);
            items[count].name = ct_pl_perm_text(name);
            items[count].value = read_constant(value, cplus);
            count++;
        }
    }
    if (e)
        mdi->lpVtbl->CloseEnum(mdi, e);
    if (p.underlying == CT_V_VOID) {
        free(items);
        return &ct_plan_by_range;
    }
    ct_enum_item *kept = ct_perm_alloc((count ? count : 1) * sizeof *kept);
    if (!kept) {
        free(items);
        return &ct_plan_by_range;
    }
    memcpy(kept, items, count * sizeof *kept);
    free(items);
    const void *data = NULL;
    ULONG data_len = 0;
    static const WCHAR flags_attr[] = {'S', 'y', 's', 't', 'e', 'm', '.', 'F', 'l', 'a', 'g', 's',
                                       'A', 't', 't', 'r', 'i', 'b', 'u', 't', 'e', 0};
    p.is_flags = mdi->lpVtbl->GetCustomAttributeByName(mdi, td, flags_attr, &data, &data_len) ==
                 S_OK;
    char name[CT_NAME_MAX * 3];
    if (ct_typedef_name(m, td, 0, name, sizeof name) != 0)
        snprintf(name, sizeof name, "enum");
    strip_arity(name);
    p.type_name = ct_pl_perm_text(name);
    p.count = count;
    p.items = kept;
    return cache_put(key, ct_pl_new_plan(&p));
}

/* ----------------------------------------------------- value types */


static int by_token(const void *a, const void *b)
{
    const COR_FIELD_OFFSET *x = a, *y = b;
    return x->ridOfField < y->ridOfField ? -1 : x->ridOfField > y->ridOfField;
}

/* "<Name>k__BackingField" (an auto-property's field) is shown as "Name". */
static void tidy_field_name(char *name)
{
    static const char suffix[] = ">k__BackingField";
    size_t n = strlen(name), k = sizeof suffix - 1;
    if (n > k + 1 && name[0] == '<' && !strcmp(name + n - k, suffix)) {
        memmove(name, name + 1, n - k - 1);
        name[n - k - 1] = '\0';
    }
}

const ct_plan *ct_pl_redact(const char *name, const ct_plan *p)
{
    if (!g_ct.cfg.redact || (p && p->kind == CT_V_REDACTED) ||
        !ct_secret_name(name, g_ct.cfg.redact_names))
        return p;
    /* (p NULL: a plan bound at the first call; a secret's needs none.) */
    const ct_plan *v = p && p->kind == CT_V_BYREF && p->elem ? p->elem : p;
    /* Never secrets: a bool, an enum, a CancellationToken, and an integer
     * of 16 bits or fewer named token (ValueTask's and IValueTaskSource's
     * version stamp, `short token`). */
    if (v && (v->kind == CT_V_BOOL || v->kind == CT_V_ENUM || v->shape == CT_FORM_TOKEN ||
              (v->type_name && strstr(v->type_name, "CancellationToken")) ||
              (v->kind >= CT_V_I1 && v->kind <= CT_V_U2 && v->kind != CT_V_CHAR &&
               (!strcmp(name, "token") || !strcmp(name, "_token")))))
        return p;
    ct_plan r = {.kind = CT_V_REDACTED, .size = p ? p->size : 0,
                 .type_name = p ? p->type_name : "?"};
    return ct_pl_new_plan(&r);
}

static const ct_plan *elided(const char *type_name, uint32_t size)
{
    ct_plan p = {.kind = CT_V_ELIDED, .size = size, .type_name = ct_pl_perm_text(type_name)};
    return ct_pl_new_plan(&p);
}

static const ct_plan *opaque(const char *type_name, uint32_t size)
{
    ct_plan p = {.kind = CT_V_OPAQUE, .size = size, .type_name = ct_pl_perm_text(type_name)};
    return size ? ct_pl_new_plan(&p) : &ct_plan_by_range;
}

/* Whether cls is a struct or an enum (its parent System.ValueType or
 * System.Enum), by the runtime's names. */
static int is_value_class(ClassID cls)
{
    ClassID parent = 0;
    char full[64];
    if (FAILED(g_ct.info->lpVtbl->GetClassIDInfo2(g_ct.info, cls, NULL, NULL, &parent, 0, NULL,
                                                  NULL)) ||
        !parent || ct_classid_name(parent, CT_NAME_FULL, full, sizeof full) != 0)
        return 0;
    return !strcmp(full, "System.ValueType") || !strcmp(full, "System.Enum");
}

/* Whether t (stripped) is a class, or a value type, possibly generic. */
static int is_token_kind(const clrsig_type *t, uint8_t kind)
{
    return t->kind == kind ||
           (t->kind == CLRSIG_ET_GENERICINST && t->u.inst.generic->kind == kind);
}

/* A planning context for the fields of (m, td) instantiated with args. */
static pctx *fields_ctx(const pctx *outer, const ct_module *m, mdTypeDef td, const ClassID *args,
                        uint32_t nargs)
{
    pctx *fc = calloc(1, sizeof *fc);
    if (!fc)
        return NULL;
    fc->m = m;
    fc->type_owner = td;
    fc->cargs = args;
    fc->ncargs = nargs;
    fc->cknown = 1;
    fc->mknown = 1;
    fc->allow_load = outer->allow_load;
    fc->arena = outer->arena;
    fc->scratch = outer->scratch;
    return fc;
}

/* The classes primed (ct_pl_prime), and how many at most. */
#define PRIMED_CLASSES_MAX 4096
static pthread_mutex_t g_primed_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_primed;
static size_t g_primed_count;

/* Whether cls is primed already; marks it when not. */
static int primed_before(ClassID cls)
{
    pthread_mutex_lock(&g_primed_lock);
    int seen = ct_table_get(&g_primed, cls) != NULL || g_primed_count >= PRIMED_CLASSES_MAX;
    if (!seen && ct_table_put(&g_primed, cls, (void *)1) == 0)
        g_primed_count++;
    pthread_mutex_unlock(&g_primed_lock);
    return seen;
}

/* Looks up, with loads allowed, the ClassIDs of cls's instance fields'
 * types (its base classes' too): structs planned (their own struct fields
 * looked up likewise), classes primed in turn while depth lasts. So they
 * are known to the hooks' planner (loaded.h) when the runtime's
 * ClassLoadFinished came before the attach. */
static void prime_class(pctx *outer, ClassID cls, unsigned depth)
{
    ICorProfilerInfo *info = g_ct.info;
    for (unsigned level = 0; cls && depth && level < 8 && !primed_before(cls); level++) {
        ModuleID mod = 0;
        mdTypeDef td = 0;
        ClassID parent = 0, args[CT_MAX_TYPE_ARGS];
        ULONG32 nargs = 0;
        COR_FIELD_OFFSET fo[STRUCT_MAX_FIELDS];
        ULONG nf = 0, sz = 0;
        if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, CT_MAX_TYPE_ARGS,
                                                 &nargs, args)) ||
            nargs > CT_MAX_TYPE_ARGS ||
            FAILED(info->lpVtbl->GetClassLayout(info, cls, fo, STRUCT_MAX_FIELDS, &nf, &sz)))
            return;
        const ct_module *m = ct_module_get(mod);
        pctx *fc = m && m->mdi ? fields_ctx(outer, m, td, args, nargs) : NULL;
        if (!fc)
            return;
        for (ULONG i = 0; i < nf && i < STRUCT_MAX_FIELDS; i++) {
            mdTypeDef owner = 0;
            PCCOR_SIGNATURE sig = NULL;
            ULONG sig_len = 0, len = 0, value_len = 0;
            DWORD attr = 0, cplus = 0;
            const void *value = NULL;
            WCHAR w[PARAM_NAME_MAX];
            clrsig_sig s;
            size_t mark = fc->arena->used;
            ClassID fcls = 0;
            if (SUCCEEDED(m->mdi->lpVtbl->GetFieldProps(m->mdi, fo[i].ridOfField, &owner, w,
                                                        PARAM_NAME_MAX, &len, &attr, &sig,
                                                        &sig_len, &cplus, &value, &value_len)) &&
                sig &&
                clrsig_parse(sig, sig_len, CLRSIG_KIND_FIELD, NULL, fc->arena, &s, NULL) ==
                    CLRSIG_OK &&
                !ct_pl_prim_plan(clrsig_strip(s.field)->kind)) {
                const clrsig_type *t = clrsig_strip(s.field);
                if (is_token_kind(t, CLRSIG_ET_VALUETYPE))
                    (void)ct_pl_plan_type(fc, t, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH);
                else if (is_token_kind(t, CLRSIG_ET_CLASS) && depth > 1 &&
                         class_of_type(fc, t, &fcls) == CLS_OK)
                    prime_class(outer, fcls, depth - 1);
            }
            fc->arena->used = mark;
        }
        free(fc);
        cls = parent;
    }
}

void ct_pl_prime(pctx *c, const clrsig_type *t)
{
    ClassID cls = 0;
    t = clrsig_strip(t);
    if (c->allow_load && g_ct.cfg.object_depth && is_token_kind(t, CLRSIG_ET_CLASS) &&
        class_of_type(c, t, &cls) == CLS_OK)
        prime_class(c, cls, g_ct.cfg.object_depth);
}

int ct_pl_plan_fields(pctx *outer, ClassID cls, const ct_module *m, mdTypeDef td,
                      const ClassID *args, uint32_t nargs, unsigned sl, unsigned dl,
                      ct_field *fields, uint32_t cap, uint32_t *nfields, uint32_t *size)
{
    ICorProfilerInfo *info = g_ct.info;
    COR_FIELD_OFFSET fo[STRUCT_MAX_FIELDS];
    ULONG nf = 0, sz = 0;
    if (FAILED(info->lpVtbl->GetClassLayout(info, cls, fo, STRUCT_MAX_FIELDS, &nf, &sz)))
        return -1;
    if (nf > STRUCT_MAX_FIELDS)
        nf = STRUCT_MAX_FIELDS;
    *size = sz;
    *nfields = 0;
    if (sl == 0 || dl == 0 || !fields)
        return 0;
    qsort(fo, nf, sizeof *fo, by_token);
    pctx *fc = fields_ctx(outer, m, td, args, nargs);
    if (!fc)
        return -1;
    uint32_t *offsets = NULL, end = 0;

    for (ULONG i = 0; i < nf && i < cap; i++) {
        WCHAR w[PARAM_NAME_MAX];
        char name[PARAM_NAME_MAX];
        ULONG len = 0, sig_len = 0, value_len = 0;
        DWORD attr = 0, cplus = 0;
        mdTypeDef owner = 0;
        PCCOR_SIGNATURE sig = NULL;
        const void *value = NULL;
        const ct_plan *fp = &ct_plan_by_range;
        snprintf(name, sizeof name, "?");
        if (SUCCEEDED(m->mdi->lpVtbl->GetFieldProps(m->mdi, fo[i].ridOfField, &owner, w,
                                                    PARAM_NAME_MAX, &len, &attr, &sig, &sig_len,
                                                    &cplus, &value, &value_len))) {
            ct_utf16_to_utf8(w, len, name, sizeof name);
            tidy_field_name(name);
            size_t mark = fc->arena->used;
            clrsig_sig s;
            if (sig && clrsig_parse(sig, sig_len, CLRSIG_KIND_FIELD, NULL, fc->arena, &s, NULL) ==
                           CLRSIG_OK) {
                const ct_plan *p = ct_pl_plan_type(fc, s.field, sl - 1, dl - 1);
                if (p)
                    fp = p;
            }
            fc->arena->used = mark;
        }
        if (ct_plan_is_by_range(fp)) {
            /* Shown as bytes: up to the next field, or the value's end (an
             * object's size counts its header, which is before its address). */
            if (!offsets) {
                offsets = malloc(nf * sizeof *offsets);
                for (ULONG j = 0; offsets && j < nf; j++)
                    offsets[j] = fo[j].ulOffset;
                end = is_value_class(cls) ? sz
                      : sz > CT_OBJECT_HEADER_BYTES ? sz - CT_OBJECT_HEADER_BYTES
                                                    : 0;
            }
            fp = opaque("?", offsets ? ct_field_room(offsets, (uint32_t)nf, (uint32_t)i, end) : 0);
            if (ct_plan_is_by_range(fp))
                fp = elided("?", 0);
        }
        fields[i].name = ct_pl_perm_text(name);
        fields[i].offset = fo[i].ulOffset;
        fields[i].plan = ct_pl_redact(name, fp);
        (*nfields)++;
    }
    free(offsets);
    free(fc);
    return (int)nf;
}

/* A struct, field by field. m/td/args describe the ClassID cls. */
const ct_plan *ct_pl_plan_struct(pctx *outer, ClassID cls, const ct_module *m, mdTypeDef td,
                                 const ClassID *args, uint32_t nargs, const char *tname,
                                 unsigned sl, unsigned dl)
{
    ct_field *tmp = sl && dl ? malloc(STRUCT_MAX_FIELDS * sizeof *tmp) : NULL;
    uint32_t nf = 0, size = 0;
    if ((sl && dl && !tmp) ||
        ct_pl_plan_fields(outer, cls, m, td, args, nargs, sl, dl, tmp, STRUCT_MAX_FIELDS, &nf,
                          &size) < 0) {
        free(tmp);
        return &ct_plan_by_range;
    }
    if (sl == 0 || dl == 0)
        return elided(tname, size);
    ct_field *fields = ct_perm_alloc((nf ? nf : 1) * sizeof *fields);
    if (fields)
        memcpy(fields, tmp, nf * sizeof *fields);
    free(tmp);
    if (!fields)
        return &ct_plan_by_range;
    ct_plan p = {.kind = CT_V_STRUCT, .size = size, .type_name = ct_pl_perm_text(tname),
                 .count = nf, .fields = fields};
    return ct_pl_new_plan(&p);
}

/* ValueTask<T>: its _obj and _result in the VALUETASK form (_token and
 * _continueOnCapturedContext left out); laid out otherwise, field by field. */
static const ct_plan *plan_valuetask(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                     const ClassID *args, uint32_t nargs, const char *tname,
                                     unsigned sl, unsigned dl)
{
    const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, args, nargs, tname, sl, dl);
    if (!st || st->kind != CT_V_STRUCT)
        return st;
    const ct_field *obj = NULL, *result = NULL;
    for (uint32_t i = 0; i < st->count; i++) {
        if (!strcmp(st->fields[i].name, "_obj") && st->fields[i].plan->kind == CT_V_OBJECT)
            obj = &st->fields[i];
        else if (!strcmp(st->fields[i].name, "_result") && !ct_plan_is_by_range(st->fields[i].plan))
            result = &st->fields[i];
    }
    ct_field *f = obj && result ? ct_perm_alloc(2 * sizeof *f) : NULL;
    if (!f)
        return st;
    f[0] = *obj;
    f[1] = *result;
    ct_plan p = *st;
    p.count = 2;
    p.fields = f;
    p.shape = CT_FORM_VALUETASK;
    return ct_pl_new_plan(&p);
}

/* Nullable<T>: a bool hasValue, then the value at the value field's offset. */
static const ct_plan *plan_nullable(pctx *c, ClassID cls, const ct_module *m,
                                    const ClassID *args, uint32_t nargs, const char *tname,
                                    unsigned sl, unsigned dl)
{
    ICorProfilerInfo *info = g_ct.info;
    COR_FIELD_OFFSET fo[4];
    ULONG nf = 0, size = 0;
    if (nargs != 1 ||
        FAILED(info->lpVtbl->GetClassLayout(info, cls, fo, sizeof fo / sizeof *fo, &nf, &size)) ||
        nf < 2)
        return &ct_plan_by_range;
    if (dl == 0)
        return elided(tname, size);
    uint32_t value_offset = 0;
    for (ULONG i = 0; i < nf && i < sizeof fo / sizeof *fo; i++) {
        WCHAR w[PARAM_NAME_MAX];
        char name[PARAM_NAME_MAX];
        ULONG len = 0, sig_len = 0, value_len = 0;
        DWORD attr = 0, cplus = 0;
        mdTypeDef owner = 0;
        PCCOR_SIGNATURE sig = NULL;
        const void *value = NULL;
        if (SUCCEEDED(m->mdi->lpVtbl->GetFieldProps(m->mdi, fo[i].ridOfField, &owner, w,
                                                    PARAM_NAME_MAX, &len, &attr, &sig, &sig_len,
                                                    &cplus, &value, &value_len))) {
            ct_utf16_to_utf8(w, len, name, sizeof name);
            if (!strcmp(name, "value"))
                value_offset = fo[i].ulOffset;
        }
    }
    if (!value_offset)
        return &ct_plan_by_range;
    const ct_plan *elem = ct_pl_plan_class(c, args[0], sl, dl - 1);
    if (ct_plan_is_by_range(elem))
        return &ct_plan_by_range;
    ct_plan p = {.kind = CT_V_NULLABLE, .size = size, .type_name = ct_pl_perm_text(tname),
                 .elem = elem, .value_offset = value_offset};
    return ct_pl_new_plan(&p);
}

/* Span<T> and ReadOnlySpan<T> of a T whose elements are copied: a SPAN plan
 * (its elements, a char span's text); NULL to plan it as the struct it is.
 * The layout is taken from the runtime's: _reference at 0, then _length. */
static const ct_plan *plan_span(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                const ClassID *args, ULONG32 nargs, const char *tname,
                                unsigned sl, unsigned dl)
{
    if (nargs != 1 || dl == 0)
        return NULL;
    const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, args, nargs, tname, sl, dl);
    if (!st || st->kind != CT_V_STRUCT || st->count != 2 ||
        strcmp(st->fields[0].name, "_reference") != 0 || st->fields[0].offset != 0 ||
        strcmp(st->fields[1].name, "_length") != 0 || st->fields[1].offset + 4 > st->size)
        return NULL;
    const ct_plan *elem = ct_pl_elem_plan(c, args[0], sl, dl);
    if (!elem)
        return NULL;
    ct_plan p = {.kind = CT_V_SPAN, .size = st->size, .type_name = ct_pl_perm_text(tname),
                 .elem = elem, .value_offset = st->fields[1].offset};
    return ct_pl_new_plan(&p);
}

/* The SIMD vectors: Vector64/128/256/512<T> and Vector<T> of a numeric T,
 * and Vector2/3/4 (floats): a VECTOR plan of the runtime's size; NULL for
 * any other type. */
static const ct_plan *plan_vector(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                  const char *full, const ClassID *args, ULONG32 nargs,
                                  const char *tname, unsigned sl, unsigned dl)
{
    static const char *const generic[] = {
        "System.Runtime.Intrinsics.Vector64`1", "System.Runtime.Intrinsics.Vector128`1",
        "System.Runtime.Intrinsics.Vector256`1", "System.Runtime.Intrinsics.Vector512`1",
        "System.Numerics.Vector`1",
    };
    static const char *const floats[] = {
        "System.Numerics.Vector2", "System.Numerics.Vector3", "System.Numerics.Vector4",
    };
    const ct_plan *elem = NULL;
    for (size_t i = 0; i < sizeof generic / sizeof *generic && !elem; i++)
        if (nargs == 1 && !strcmp(full, generic[i]))
            elem = ct_pl_plan_class(c, args[0], 0, dl ? dl - 1 : 0);
    for (size_t i = 0; i < sizeof floats / sizeof *floats && !elem; i++)
        if (nargs == 0 && !strcmp(full, floats[i]))
            elem = ct_pl_prim_plan(CLRSIG_ET_R4);
    if (!elem || elem->kind < CT_V_I1 || elem->kind > CT_V_U || elem->kind == CT_V_CHAR)
        return NULL;
    const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, args, nargs, tname, sl, dl);
    if (!st || ct_plan_is_by_range(st) || !st->size || st->size % elem->size)
        return NULL;
    ct_plan p = {.kind = CT_V_VECTOR, .size = st->size, .type_name = ct_pl_perm_text(tname),
                 .elem = elem};
    return ct_pl_new_plan(&p);
}

/* The element plan of a sequence (array, segment, collection) of T: NULL
 * when its elements cannot be copied. */
const ct_plan *ct_pl_elem_plan(pctx *c, ClassID t, unsigned sl, unsigned dl)
{
    const ct_plan *e = dl ? ct_pl_plan_class(c, t, sl, dl - 1) : NULL;
    return e && !ct_plan_is_by_range(e) && (e->kind == CT_V_CHAR || ct_array_items_captured(e))
               ? e
               : NULL;
}

/* ArraySegment<T> (_array, _offset, _count), Memory<T> and
 * ReadOnlyMemory<T> (_object, _index, _length): a SEGMENT plan, the
 * offsets taken from the runtime's layout; NULL for any other type. */
static const ct_plan *plan_segment(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                   const char *full, const ClassID *args, ULONG32 nargs,
                                   const char *tname, unsigned sl, unsigned dl)
{
    static const char *const names[][4] = {
        {"System.ArraySegment`1", "_array", "_offset", "_count"},
        {"System.Memory`1", "_object", "_index", "_length"},
        {"System.ReadOnlyMemory`1", "_object", "_index", "_length"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (nargs != 1 || strcmp(full, names[i][0]) != 0)
            continue;
        const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, args, nargs, tname, 1, 1);
        const ct_plan *elem = ct_pl_elem_plan(c, args[0], sl, dl);
        if (!elem || !st || st->kind != CT_V_STRUCT || st->count != 3 ||
            strcmp(st->fields[0].name, names[i][1]) != 0 || st->fields[0].offset != 0 ||
            strcmp(st->fields[1].name, names[i][2]) != 0 ||
            strcmp(st->fields[2].name, names[i][3]) != 0 || st->fields[1].offset + 4 > st->size ||
            st->fields[2].offset + 4 > st->size)
            return NULL;
        ct_plan p = {.kind = CT_V_SEGMENT, .size = st->size, .type_name = ct_pl_perm_text(tname),
                     .elem = elem, .value_offset = st->fields[1].offset,
                     .count_offset = st->fields[2].offset};
        return ct_pl_new_plan(&p);
    }
    return NULL;
}

/* DateTimeOffset: a DTOFFSET plan with where the runtime put its UTC
 * DateTime (_dateTime: value_offset) and its offset in minutes
 * (_offsetMinutes: count_offset, underlying I2 or I4); NULL when it is laid
 * out otherwise. */
static const ct_plan *plan_dtoffset(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                    const char *tname)
{
    const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, NULL, 0, tname, 1, 1);
    int64_t at = -1, minutes = -1;
    ct_vkind mk = CT_V_VOID;
    for (uint32_t i = 0; st && st->kind == CT_V_STRUCT && i < st->count; i++) {
        if (!strcmp(st->fields[i].name, "_dateTime") &&
            st->fields[i].plan->kind == CT_V_DATETIME)
            at = st->fields[i].offset;
        if (!strcmp(st->fields[i].name, "_offsetMinutes") &&
            (st->fields[i].plan->kind == CT_V_I2 || st->fields[i].plan->kind == CT_V_I4)) {
            minutes = st->fields[i].offset;
            mk = st->fields[i].plan->kind;
        }
    }
    if (!st || st->size != 16 || at < 0 || at + 8 > 16 || minutes < 0 ||
        minutes + ct_vkind_size(mk) > 16)
        return NULL;
    ct_plan p = {.kind = CT_V_DTOFFSET, .size = 16, .type_name = ct_pl_perm_text(tname),
                 .underlying = mk, .value_offset = (uint32_t)at,
                 .count_offset = (uint32_t)minutes};
    return ct_pl_new_plan(&p);
}

/* CoreLib structs that are one field, shown as a well-known kind: the
 * field's name and kind as the runtime lays them out (checked, not
 * assumed). */
static const struct {
    const char *full;
    const char *field;
    ct_vkind field_kind, field_kind2; /* the field's type: one of the two */
    ct_vkind kind;
    const char *name;
} k_one_field[] = {
    /* _dayNumber: int in older runtimes, uint in newer ones */
    {"System.DateOnly", "_dayNumber", CT_V_I4, CT_V_U4, CT_V_DATEONLY, "DateOnly"},
    {"System.TimeOnly", "_ticks", CT_V_U8, CT_V_I8, CT_V_TIMEONLY, "TimeOnly"},
    {"System.Index", "_value", CT_V_I4, CT_V_I4, CT_V_INDEX, "Index"},
};

/* A one-field CoreLib struct of k_one_field: its well-known plan; NULL for
 * any other type, or one laid out otherwise (then it reads as a struct). */
static const ct_plan *plan_one_field(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                     const char *full, const char *tname)
{
    for (size_t i = 0; i < sizeof k_one_field / sizeof *k_one_field; i++) {
        if (strcmp(full, k_one_field[i].full) != 0)
            continue;
        ct_vkind k = k_one_field[i].kind;
        const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, NULL, 0, tname, 1, 1);
        if (!st || st->kind != CT_V_STRUCT || st->count != 1 || st->size != ct_vkind_size(k) ||
            st->fields[0].offset != 0 || strcmp(st->fields[0].name, k_one_field[i].field) != 0 ||
            (st->fields[0].plan->kind != k_one_field[i].field_kind &&
             st->fields[0].plan->kind != k_one_field[i].field_kind2))
            return NULL;
        ct_plan p = {.kind = k, .size = ct_vkind_size(k), .type_name = k_one_field[i].name};
        return ct_pl_new_plan(&p);
    }
    return NULL;
}

/* A boxed one-field CoreLib struct (DateOnly): its well-known kind once its
 * layout is checked (the class's plan, cached); VOID for any other type. */
static ct_vkind one_field_kind(ClassID cls, const char *full)
{
    size_t i = 0;
    while (i < sizeof k_one_field / sizeof *k_one_field && strcmp(full, k_one_field[i].full) != 0)
        i++;
    if (i == sizeof k_one_field / sizeof *k_one_field)
        return CT_V_VOID;
    session ss = {0};
    pctx *c = ct_pl_open(&ss, NULL, 0);
    if (!c)
        return CT_V_VOID;
    const ct_plan *p = ct_pl_plan_class(c, cls, 1, 1);
    ct_pl_close(&ss, c);
    return p && p->kind == k_one_field[i].kind ? p->kind : CT_V_VOID;
}

/* Range: a RANGE plan with where the runtime put its Start and End (two
 * Index auto-properties); NULL when it is laid out otherwise. */
static const ct_plan *plan_range(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                 const char *tname)
{
    const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, NULL, 0, tname, 1, 1);
    int64_t at[2] = {-1, -1};
    static const char *const names[2] = {"Start", "End"};
    for (uint32_t i = 0; st && st->kind == CT_V_STRUCT && i < st->count; i++)
        for (int k = 0; k < 2; k++)
            if (!strcmp(st->fields[i].name, names[k]) && st->fields[i].plan->kind == CT_V_INDEX)
                at[k] = st->fields[i].offset;
    if (!st || st->size != 8 || at[0] < 0 || at[0] > 4 || at[1] < 0 || at[1] > 4 ||
        at[0] == at[1])
        return NULL;
    ct_plan p = {.kind = CT_V_RANGE, .size = 8, .type_name = "Range",
                 .value_offset = (uint32_t)at[0], .count_offset = (uint32_t)at[1]};
    return ct_pl_new_plan(&p);
}

/* An [InlineArray(N)] struct (any module's): an INLINE plan of its one
 * field's type, N of them; NULL for any other type, or one laid out
 * otherwise. N is the attribute's argument (blob: prolog 1, then the i32);
 * the elements are the runtime's size / N bytes apart, each at least the
 * field's size. */
static const ct_plan *plan_inline_array(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                        const ClassID *args, ULONG32 nargs, const char *tname,
                                        unsigned sl, unsigned dl)
{
    static const WCHAR attr[] = u"System.Runtime.CompilerServices.InlineArrayAttribute";
    const uint8_t *blob = NULL;
    ULONG len = 0;
    if (m->mdi->lpVtbl->GetCustomAttributeByName(m->mdi, td, attr, (const void **)&blob, &len) !=
            S_OK ||
        !blob || len < 6 || blob[0] != 1 || blob[1] != 0)
        return NULL;
    int32_t n;
    memcpy(&n, blob + 2, 4);
    const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, args, nargs, tname, sl, dl);
    if (n <= 0 || !st || ct_plan_is_by_range(st) || st->kind != CT_V_STRUCT || st->count != 1 ||
        st->fields[0].offset != 0 || st->size % (uint32_t)n)
        return NULL;
    const ct_plan *elem = st->fields[0].plan;
    uint32_t stride = st->size / (uint32_t)n;
    if (ct_plan_is_by_range(elem) || !elem->size || elem->size > stride)
        return NULL;
    ct_plan p = {.kind = CT_V_INLINE, .size = st->size, .type_name = st->type_name,
                 .count = (uint32_t)n, .elem = elem, .value_offset = stride};
    return ct_pl_new_plan(&p);
}

/* A struct whose one field is the array it wraps (ImmutableArray<T>): an
 * ARRAY plan named by the struct; NULL when it is laid out otherwise. */
static const ct_plan *plan_wrapped_array(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                         const ClassID *args, ULONG32 nargs, const char *tname,
                                         unsigned sl, unsigned dl)
{
    const ct_plan *st = nargs == 1 ? ct_pl_plan_struct(c, cls, m, td, args, nargs, tname, 1, 1)
                                   : NULL;
    const ct_plan *elem = st ? ct_pl_elem_plan(c, args[0], sl, dl) : NULL;
    if (!elem || !ct_array_items_captured(elem) || st->kind != CT_V_STRUCT || st->count != 1 ||
        st->fields[0].offset != 0 || st->size != 8)
        return NULL;
    ct_plan p = {.kind = CT_V_ARRAY, .size = 8, .type_name = ct_pl_perm_text(tname),
                 .elem = elem};
    return ct_pl_new_plan(&p);
}

static const ct_plan *build_class_plan(pctx *c, ClassID cls, unsigned sl, unsigned dl)
{
    ICorProfilerInfo *info = g_ct.info;
    char tname[TYPE_TEXT_MAX];
    ct_classid_name(cls, CT_NAME_SHORT, tname, sizeof tname);

    CorElementType et = 0;
    ClassID elem_cls = 0;
    ULONG rank = 0;
    if (info->lpVtbl->IsArrayClass(info, cls, &et, &elem_cls, &rank) == S_OK) {
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = ct_pl_perm_text(tname)};
        if (rank == 0 || rank > CT_MAX_ARRAY_RANK || dl == 0)
            return ct_pl_new_plan(&p);
        const ct_plan *elem = elem_cls ? ct_pl_plan_class(c, elem_cls, sl, dl - 1)
                                       : ct_pl_prim_plan((uint8_t)et);
        if (!elem || ct_plan_is_by_range(elem))
            return ct_pl_new_plan(&p);
        if (!ct_array_items_captured(elem)) {
            char en[TYPE_TEXT_MAX];
            ct_classid_name(elem_cls, CT_NAME_SHORT, en, sizeof en);
            elem = elided(en, elem->size);
        }
        p.kind = rank == 1 ? CT_V_ARRAY : CT_V_MDARRAY;
        p.count = rank == 1 ? 0 : rank;
        p.elem = elem;
        return ct_pl_new_plan(&p);
    }

    ModuleID mod = 0;
    mdTypeDef td = 0;
    ClassID parent = 0;
    ClassID *args = ct_perm_alloc(CT_MAX_TYPE_ARGS * sizeof *args);
    ULONG32 nargs = 0;
    if (!args || FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent,
                                                      CT_MAX_TYPE_ARGS, &nargs, args)))
        return &ct_plan_by_range;
    if (nargs > CT_MAX_TYPE_ARGS)
        nargs = CT_MAX_TYPE_ARGS;
    const ct_module *m = ct_module_get(mod);
    char full[CT_NAME_MAX * 3];
    if (!m || !m->mdi || ct_typedef_name(m, td, 1, full, sizeof full) != 0)
        return &ct_plan_by_range;
    if (m->corelib) {
        const ct_plan *fixed = ct_pl_corelib_plan(full);
        if (fixed)
            return fixed;
        if (!strcmp(full, "System.Nullable`1"))
            return plan_nullable(c, cls, m, args, nargs, tname, sl, dl);
        if (!strcmp(full, "System.Span`1") || !strcmp(full, "System.ReadOnlySpan`1")) {
            const ct_plan *span = plan_span(c, cls, m, td, args, nargs, tname, sl, dl);
            if (span)
                return span;
        }
        const ct_plan *vec = plan_vector(c, cls, m, td, full, args, nargs, tname, sl, dl);
        if (vec)
            return vec;
        const ct_plan *seg = plan_segment(c, cls, m, td, full, args, nargs, tname, sl, dl);
        if (seg)
            return seg;
        const ct_plan *one = plan_one_field(c, cls, m, td, full, tname);
        if (one)
            return one;
        if (!strcmp(full, "System.Range")) {
            const ct_plan *range = plan_range(c, cls, m, td, tname);
            if (range)
                return range;
        }
        if (!strcmp(full, "System.Threading.CancellationToken")) {
            /* Its one field, the source object: shown in the TOKEN form. */
            const ct_plan *st = ct_pl_plan_struct(c, cls, m, td, NULL, 0, tname, sl, dl);
            if (st && st->kind == CT_V_STRUCT && st->count == 1 &&
                !strcmp(st->fields[0].name, "_source") && st->fields[0].plan->kind == CT_V_OBJECT) {
                ct_plan p = *st;
                p.shape = CT_FORM_TOKEN;
                return ct_pl_new_plan(&p);
            }
            return st;
        }
        if (!strcmp(full, "System.Threading.Tasks.ValueTask`1"))
            return plan_valuetask(c, cls, m, td, args, nargs, tname, sl, dl);
        if (!strcmp(full, "System.DateTimeOffset")) {
            const ct_plan *dto = plan_dtoffset(c, cls, m, td, tname);
            if (dto)
                return dto;
        }
    }
    if (!strcmp(full, "System.Collections.Immutable.ImmutableArray`1")) {
        const ct_plan *arr = plan_wrapped_array(c, cls, m, td, args, nargs, tname, sl, dl);
        if (arr)
            return arr;
    }
    switch (ct_typedef_kind(m, td)) {
    case CT_TYPE_ENUM:
        return plan_enum(m, td);
    case CT_TYPE_STRUCT: {
        const ct_plan *inl = plan_inline_array(c, cls, m, td, args, nargs, tname, sl, dl);
        return inl ? inl : ct_pl_plan_struct(c, cls, m, td, args, nargs, tname, sl, dl);
    }
    case CT_TYPE_CLASS:
    default: {
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = ct_pl_perm_text(tname)};
        return ct_pl_new_plan(&p);
    }
    }
}

const ct_plan *ct_pl_plan_class(pctx *c, ClassID cls, unsigned sl, unsigned dl)
{
    if (!cls)
        return &ct_plan_by_range;
    ct_key key = {cls, CLASS_TAG | (uint64_t)sl << 8 | dl};
    const ct_plan *p = cache_get(key);
    if (p)
        return p;
    p = build_class_plan(c, cls, sl, dl);
    /* A plan that failed only for want of a type load may succeed later. */
    return c->allow_load || !ct_plan_is_by_range(p) ? cache_put(key, p) : p;
}

/* A VALUETYPE (or value-type GENERICINST) token of c's module. */
static const ct_plan *plan_valuetype(pctx *c, const clrsig_type *t, uint32_t token,
                                     const clrsig_type *const *args, uint32_t nargs, unsigned sl,
                                     unsigned dl)
{
    if ((token >> 24) == 0x1B) {
        /* A TypeSpec in a VALUETYPE position: plan what it stands for. */
        const uint8_t *blob;
        uint32_t len, used;
        const clrsig_type *spec;
        if (nargs || r_typespec(c, token, &blob, &len) != 0 ||
            clrsig_parse_type(blob, len, NULL, c->arena, &spec, &used, NULL) != CLRSIG_OK)
            return &ct_plan_by_range;
        return ct_pl_plan_type(c, spec, sl, dl);
    }
    const ct_module *def = NULL;
    mdTypeDef td = 0;
    if (ct_resolve_type(c->m, token, c->allow_load, &def, &td) != 0)
        return &ct_plan_by_range;
    if (nargs == 0) {
        if (ct_typedef_kind(def, td) == CT_TYPE_ENUM)
            return plan_enum(def, td);
        char full[CT_NAME_MAX * 3];
        if (def->corelib && ct_typedef_name(def, td, 1, full, sizeof full) == 0) {
            const ct_plan *fixed = ct_pl_corelib_plan(full);
            if (fixed)
                return fixed;
        }
    }
    ClassID cls = 0;
    int rc = nargs ? class_of_type(c, t, &cls) : class_of_token(c, token, NULL, 0, &cls);
    if (rc == CLS_LATE)
        return NULL;
    if (rc != CLS_OK)
        return &ct_plan_by_range;
    return ct_pl_plan_class(c, cls, sl, dl);
}

/* The plan of a signature type; NULL when it depends on a type argument not
 * known yet (late binding). */
const ct_plan *ct_pl_plan_type(pctx *c, const clrsig_type *t, unsigned sl, unsigned dl)
{
    t = clrsig_strip(t);
    const ct_plan *prim = ct_pl_prim_plan(t->kind);
    if (prim)
        return prim;
    char text[TYPE_TEXT_MAX];
    switch (t->kind) {
    case CLRSIG_ET_PTR:
    case CLRSIG_ET_FNPTR: {
        ct_pl_type_text(c, t, text, sizeof text);
        ct_plan p = {.kind = CT_V_PTR, .size = 8, .type_name = ct_pl_perm_text(text)};
        return ct_pl_new_plan(&p);
    }
    case CLRSIG_ET_BYREF: {
        ct_pl_type_text(c, t, text, sizeof text);
        ct_plan p = {.kind = CT_V_BYREF, .size = 8, .type_name = NULL};
        /* Only a parameter's or return value's own byref is followed (by the
         * hook, after checking the target); a byref field (Span<T>) is only
         * an address: it may point anywhere, even at (void*)1. */
        if (dl == CT_MAX_VALUE_DEPTH) {
            const ct_plan *e = ct_pl_plan_type(c, t->u.elem, sl, dl - 1);
            if (!e)
                return NULL;
            if (!ct_plan_is_by_range(e) && e->kind != CT_V_VOID)
                p.elem = e;
        }
        p.type_name = ct_pl_perm_text(text);
        return ct_pl_new_plan(&p);
    }
    case CLRSIG_ET_SZARRAY:
    case CLRSIG_ET_ARRAY: {
        ct_pl_type_text(c, t, text, sizeof text);
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = ct_pl_perm_text(text)};
        if (dl == 0)
            return ct_pl_new_plan(&p);
        const clrsig_type *et = t->kind == CLRSIG_ET_ARRAY ? t->u.array.elem : t->u.elem;
        const ct_plan *e = ct_pl_plan_type(c, et, sl, dl - 1);
        if (!e)
            return NULL;
        if (ct_plan_is_by_range(e) || !ct_array_items_captured(e)) {
            char en[TYPE_TEXT_MAX];
            ct_pl_type_text(c, et, en, sizeof en);
            e = elided(en, ct_plan_is_by_range(e) ? 0 : e->size);
        }
        p.kind = t->kind == CLRSIG_ET_ARRAY ? CT_V_MDARRAY : CT_V_ARRAY;
        p.count = t->kind == CLRSIG_ET_ARRAY ? t->u.array.rank : 0;
        p.elem = e;
        return ct_pl_new_plan(&p);
    }
    case CLRSIG_ET_CLASS:
        ct_pl_type_text(c, t, text, sizeof text);
        goto object;
    case CLRSIG_ET_GENERICINST:
        if (t->u.inst.generic->kind == CLRSIG_ET_VALUETYPE)
            return plan_valuetype(c, t, t->u.inst.generic->u.token, t->u.inst.args,
                                  t->u.inst.argc, sl, dl);
        ct_pl_type_text(c, t, text, sizeof text);
        goto object;
    case CLRSIG_ET_VALUETYPE:
        return plan_valuetype(c, t, t->u.token, NULL, 0, sl, dl);
    case CLRSIG_ET_VAR:
    case CLRSIG_ET_MVAR: {
        int is_method = t->kind == CLRSIG_ET_MVAR;
        if (!(is_method ? c->mknown : c->cknown))
            return NULL;
        ClassID cls = actual_arg(c, is_method, t->u.index);
        if (!cls)
            return &ct_plan_by_range;
        return ct_plan_is_canon(cls) ? &k_object : ct_pl_plan_class(c, cls, sl, dl);
    }
    case CLRSIG_ET_TYPEDBYREF:
        return &k_typedref;
    case CLRSIG_ET_CANON:
        return &k_object;
    case CLRSIG_ET_INTERNAL:
        return ct_pl_plan_class(c, (ClassID)t->u.handle, sl, dl);
    default:
        return &ct_plan_by_range;
    }
object : {
    ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = ct_pl_perm_text(text)};
    return ct_pl_new_plan(&p);
}
}

/* ------------------------------------------------- the planning session */

/* The arenas and the context every part plans in (ct_pl_close frees
 * them). */
pctx *ct_pl_open(session *s, const ct_method_info *mi, int allow_load)
{
    s->mem = malloc(2 * CLRSIG_ARENA_SIZE_RECOMMENDED);
    if (!s->mem)
        return NULL;
    clrsig_arena_init(&s->arena, s->mem, CLRSIG_ARENA_SIZE_RECOMMENDED);
    clrsig_arena_init(&s->scratch, s->mem + CLRSIG_ARENA_SIZE_RECOMMENDED,
                      CLRSIG_ARENA_SIZE_RECOMMENDED);
    pctx *c = calloc(1, sizeof *c);
    if (!c) {
        free(s->mem);
        s->mem = NULL;
        return NULL;
    }
    c->allow_load = allow_load;
    c->arena = &s->arena;
    c->scratch = &s->scratch;
    if (!mi)
        return c;
    c->m = mi->module;
    c->type_owner = mi->owner;
    c->method_owner = mi->token;
    c->cargs = mi->class_args;
    c->ncargs = mi->nclass_args;
    c->cknown = mi->cls != 0;
    c->margs = mi->method_args;
    c->nmargs = mi->nmethod_args;
    c->mknown = mi->method_args_known;
    return c;
}

void ct_pl_close(session *s, pctx *c)
{
    free(c);
    free(s->mem);
}
