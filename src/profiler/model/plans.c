#include "plans.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classnames.h"
#include "clrsig/clrsig.h"
#include "map.h"
#include "perm.h"
#include "state.h"
#include "utf16.h"

/* Longest parameter or field name kept (UTF-8 bytes). */
#define PARAM_NAME_MAX 256
/* Most generic parameters named per owner (more print as !n / !!n). */
#define GENERIC_PARAMS_MAX 64
/* Most instance fields shown per struct (the first ones by declaration). */
#define STRUCT_MAX_FIELDS 256
/* Most named values kept per enum. */
#define ENUM_MAX_ITEMS 4096
/* Fields and enum values fetched per EnumFields call. */
#define FIELD_ENUM_BATCH 64
/* Longest type text ("Dictionary<string, List<int>>") kept. */
#define TYPE_TEXT_MAX 1024
/* Longest label ("ref Dictionary<string, int> counts=") kept. */
#define LABEL_MAX (TYPE_TEXT_MAX + PARAM_NAME_MAX + 16)
/* Longest display name ("Demo.Outer<int>.Inner.Get<string>") kept. */
#define DISPLAY_MAX 2048
/* Longest method signature planned (bytes); longer ones are not decoded. */
#define SIG_MAX_BYTES 4096

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
const ct_plan ct_plan_by_range = FIXED(CT_V_OPAQUE, 0, "?");

static const ct_plan *prim_plan(uint8_t et)
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
    {"System.TypedReference", &k_typedref},
};

static const ct_plan *corelib_plan(const char *full)
{
    for (size_t i = 0; i < sizeof k_corelib_plans / sizeof *k_corelib_plans; i++)
        if (!strcmp(full, k_corelib_plans[i].name))
            return k_corelib_plans[i].plan;
    return NULL;
}

/* ----------------------------------------------------------- caches */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_map g_plans; /* {ClassID, budget} or {module, ENUM_TAG | td} -> plan */
#define ENUM_TAG (1ull << 40)
#define CLASS_TAG (1ull << 41)

static const ct_plan *cache_get(ct_key k)
{
    pthread_mutex_lock(&g_lock);
    const ct_plan *p = ct_map_get(&g_plans, k);
    pthread_mutex_unlock(&g_lock);
    return p;
}

static const ct_plan *cache_put(ct_key k, const ct_plan *p)
{
    pthread_mutex_lock(&g_lock);
    const ct_plan *old = ct_map_get(&g_plans, k);
    if (!old)
        ct_map_put(&g_plans, k, (void *)p);
    pthread_mutex_unlock(&g_lock);
    return old ? old : p;
}

static const ct_plan *new_plan(const ct_plan *tmpl)
{
    ct_plan *p = ct_perm_alloc(sizeof *p);
    if (!p)
        return &ct_plan_by_range;
    *p = *tmpl;
    return p;
}

static const char *perm_text(const char *s)
{
    const char *p = ct_perm_strdup(s);
    return p ? p : "?";
}

/* --------------------------------------------------- planning context */

typedef struct pctx {
    const ct_module *m;          /* scope of the tokens being read */
    mdTypeDef type_owner;        /* owner of !n */
    mdMethodDef method_owner;    /* owner of !!n (0 for fields) */
    const ClassID *cargs;
    uint32_t ncargs;
    int cknown;
    const ClassID *margs;
    uint32_t nmargs;
    int mknown;
    int allow_load;              /* may call GetClassFromToken & co. (mapper only) */
    clrsig_arena *arena;         /* parse trees of field signatures */
    clrsig_arena *scratch;       /* TypeSpec expansion while formatting */
    clrsig_type gnode[2][CT_MAX_TYPE_ARGS]; /* actual type arguments for the formatter */
} pctx;

static const ct_plan *plan_class(pctx *c, ClassID cls, unsigned sl, unsigned dl);
static const ct_plan *plan_type(pctx *c, const clrsig_type *t, unsigned sl, unsigned dl);

/* Stands in for "some reference type" among type arguments bound late
 * (ct_plan_late): never passed to the runtime. */
#define CANON_MARK ((ClassID)1)

static int is_canon(ClassID cls)
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

/* The declared name of generic parameter index of owner ("T"). */
static int generic_param_name(const ct_module *m, mdToken owner, uint32_t index, char *name,
                              size_t cap)
{
    IMetaDataImport *mdi2 = m ? m->mdi2 : NULL;
    HCORENUM e = NULL;
    mdGenericParam params[GENERIC_PARAMS_MAX];
    ULONG n = 0;
    int rc = -1;
    if (!mdi2 || !owner ||
        FAILED(mdi2->lpVtbl->EnumGenericParams(mdi2, &e, owner, params, GENERIC_PARAMS_MAX, &n)))
        goto done;
    for (ULONG i = 0; i < n; i++) {
        WCHAR w[PARAM_NAME_MAX];
        ULONG seq = 0, len = 0;
        DWORD flags = 0, reserved = 0;
        mdToken tk = 0;
        if (SUCCEEDED(mdi2->lpVtbl->GetGenericParamProps(mdi2, params[i], &seq, &flags, &tk,
                                                         &reserved, w, PARAM_NAME_MAX, &len)) &&
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
    if (cls && !is_canon(cls)) {
        clrsig_type *node = &c->gnode[is_method ? 1 : 0][index];
        memset(node, 0, sizeof *node);
        node->kind = CLRSIG_ET_INTERNAL;
        node->u.handle = cls;
        *actual = node;
        return 0;
    }
    return generic_param_name(c->m, is_method ? c->method_owner : c->type_owner, index, name,
                              cap);
}

static int r_handle_name(void *ctx, uint64_t handle, char *name, size_t cap)
{
    (void)ctx;
    return ct_classid_name((ClassID)handle, CT_NAME_SHORT, name, cap);
}

/* C# text of a type, short names, actual generic arguments where known. */
static void type_text(pctx *c, const clrsig_type *t, char *out, size_t cap)
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

/* --------------------------------------------------- ClassID lookups */

/* A CoreLib type by full name -> ClassID (loads it if needed). */
static ClassID corelib_class(const pctx *c, const char *full)
{
    mdTypeDef td = 0;
    ClassID cls = 0;
    const ct_module *corelib = ct_corelib(c->allow_load);
    if (!c->allow_load || !corelib || ct_corelib_typedef(full, &td) != 0 ||
        FAILED(g_ct.info->lpVtbl->GetClassFromToken(g_ct.info, corelib->id, td, &cls)))
        return 0;
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
    if (!c->allow_load || ct_resolve_type(c->m, token, 1, &def, &td) != 0)
        return CLS_FAIL;
    ICorProfilerInfo *info = g_ct.info;
    HRESULT hr = n ? info->lpVtbl->GetClassFromTokenAndTypeArgs(info, def->id, td, n, ids, out)
                   : info->lpVtbl->GetClassFromToken(info, def->id, td, out);
    return SUCCEEDED(hr) && *out ? CLS_OK : CLS_FAIL;
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
            items[count].name = perm_text(name);
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
    p.type_name = perm_text(name);
    p.count = count;
    p.items = kept;
    return cache_put(key, new_plan(&p));
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

static const ct_plan *elided(const char *type_name, uint32_t size)
{
    ct_plan p = {.kind = CT_V_ELIDED, .size = size, .type_name = perm_text(type_name)};
    return new_plan(&p);
}

static const ct_plan *opaque(const char *type_name, uint32_t size)
{
    ct_plan p = {.kind = CT_V_OPAQUE, .size = size, .type_name = perm_text(type_name)};
    return size ? new_plan(&p) : &ct_plan_by_range;
}

/* A struct, field by field. m/td/args describe the ClassID cls. */
static const ct_plan *plan_struct(pctx *outer, ClassID cls, const ct_module *m, mdTypeDef td,
                                  const ClassID *args, uint32_t nargs, const char *tname,
                                  unsigned sl, unsigned dl)
{
    ICorProfilerInfo *info = g_ct.info;
    COR_FIELD_OFFSET fo[STRUCT_MAX_FIELDS];
    ULONG nf = 0, size = 0;
    if (FAILED(info->lpVtbl->GetClassLayout(info, cls, fo, STRUCT_MAX_FIELDS, &nf, &size)))
        return &ct_plan_by_range;
    if (nf > STRUCT_MAX_FIELDS)
        nf = STRUCT_MAX_FIELDS;
    if (sl == 0 || dl == 0)
        return elided(tname, size);
    qsort(fo, nf, sizeof *fo, by_token);

    ct_field *fields = ct_perm_alloc((nf ? nf : 1) * sizeof *fields);
    if (!fields)
        return &ct_plan_by_range;
    pctx *fc = calloc(1, sizeof *fc);
    if (!fc)
        return &ct_plan_by_range;
    fc->m = m;
    fc->type_owner = td;
    fc->cargs = args;
    fc->ncargs = nargs;
    fc->cknown = 1;
    fc->mknown = 1;
    fc->allow_load = outer->allow_load;
    fc->arena = outer->arena;
    fc->scratch = outer->scratch;

    for (ULONG i = 0; i < nf; i++) {
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
                const ct_plan *p = plan_type(fc, s.field, sl - 1, dl - 1);
                if (p)
                    fp = p;
            }
            fc->arena->used = mark;
        }
        if (ct_plan_is_by_range(fp)) {
            /* Shown as bytes: up to the next field (or the struct's end). */
            uint32_t end = size;
            for (ULONG j = 0; j < nf; j++)
                if (fo[j].ulOffset > fo[i].ulOffset && fo[j].ulOffset < end)
                    end = fo[j].ulOffset;
            fp = opaque("?", end > fo[i].ulOffset ? end - fo[i].ulOffset : 0);
            if (ct_plan_is_by_range(fp))
                fp = elided("?", 0);
        }
        fields[i].name = perm_text(name);
        fields[i].offset = fo[i].ulOffset;
        fields[i].plan = fp;
    }
    free(fc);
    ct_plan p = {.kind = CT_V_STRUCT, .size = size, .type_name = perm_text(tname),
                 .count = (uint32_t)nf, .fields = fields};
    return new_plan(&p);
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
    const ct_plan *elem = plan_class(c, args[0], sl, dl - 1);
    if (ct_plan_is_by_range(elem))
        return &ct_plan_by_range;
    ct_plan p = {.kind = CT_V_NULLABLE, .size = size, .type_name = perm_text(tname),
                 .elem = elem, .value_offset = value_offset};
    return new_plan(&p);
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
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = perm_text(tname)};
        if (rank != 1 || dl == 0)
            return new_plan(&p);
        const ct_plan *elem = elem_cls ? plan_class(c, elem_cls, 0, dl - 1) : prim_plan((uint8_t)et);
        if (!elem || ct_plan_is_by_range(elem))
            return new_plan(&p);
        if (!ct_array_items_captured(elem)) {
            char en[TYPE_TEXT_MAX];
            ct_classid_name(elem_cls, CT_NAME_SHORT, en, sizeof en);
            elem = elided(en, elem->size);
        }
        p.kind = CT_V_ARRAY;
        p.elem = elem;
        return new_plan(&p);
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
        const ct_plan *fixed = corelib_plan(full);
        if (fixed)
            return fixed;
        if (!strcmp(full, "System.Nullable`1"))
            return plan_nullable(c, cls, m, args, nargs, tname, sl, dl);
    }
    switch (ct_typedef_kind(m, td)) {
    case CT_TYPE_ENUM:
        return plan_enum(m, td);
    case CT_TYPE_STRUCT:
        return plan_struct(c, cls, m, td, args, nargs, tname, sl, dl);
    case CT_TYPE_CLASS:
    default: {
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = perm_text(tname)};
        return new_plan(&p);
    }
    }
}

static const ct_plan *plan_class(pctx *c, ClassID cls, unsigned sl, unsigned dl)
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
        return plan_type(c, spec, sl, dl);
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
            const ct_plan *fixed = corelib_plan(full);
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
    return plan_class(c, cls, sl, dl);
}

/* The plan of a signature type; NULL when it depends on a type argument not
 * known yet (late binding). */
static const ct_plan *plan_type(pctx *c, const clrsig_type *t, unsigned sl, unsigned dl)
{
    t = clrsig_strip(t);
    const ct_plan *prim = prim_plan(t->kind);
    if (prim)
        return prim;
    char text[TYPE_TEXT_MAX];
    switch (t->kind) {
    case CLRSIG_ET_PTR:
    case CLRSIG_ET_FNPTR: {
        type_text(c, t, text, sizeof text);
        ct_plan p = {.kind = CT_V_PTR, .size = 8, .type_name = perm_text(text)};
        return new_plan(&p);
    }
    case CLRSIG_ET_BYREF: {
        type_text(c, t, text, sizeof text);
        ct_plan p = {.kind = CT_V_BYREF, .size = 8, .type_name = NULL};
        /* Only a parameter's or return value's own byref is followed (by the
         * hook, after checking the target); a byref field (Span<T>) is only
         * an address: it may point anywhere, even at (void*)1. */
        if (dl == CT_MAX_VALUE_DEPTH) {
            const ct_plan *e = plan_type(c, t->u.elem, sl, dl - 1);
            if (!e)
                return NULL;
            if (!ct_plan_is_by_range(e) && e->kind != CT_V_VOID)
                p.elem = e;
        }
        p.type_name = perm_text(text);
        return new_plan(&p);
    }
    case CLRSIG_ET_SZARRAY: {
        type_text(c, t, text, sizeof text);
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = perm_text(text)};
        if (dl == 0)
            return new_plan(&p);
        const ct_plan *e = plan_type(c, t->u.elem, 0, dl - 1);
        if (!e)
            return NULL;
        if (ct_plan_is_by_range(e) || !ct_array_items_captured(e)) {
            char et[TYPE_TEXT_MAX];
            type_text(c, t->u.elem, et, sizeof et);
            e = elided(et, ct_plan_is_by_range(e) ? 0 : e->size);
        }
        p.kind = CT_V_ARRAY;
        p.elem = e;
        return new_plan(&p);
    }
    case CLRSIG_ET_ARRAY:
    case CLRSIG_ET_CLASS:
        type_text(c, t, text, sizeof text);
        goto object;
    case CLRSIG_ET_GENERICINST:
        if (t->u.inst.generic->kind == CLRSIG_ET_VALUETYPE)
            return plan_valuetype(c, t, t->u.inst.generic->u.token, t->u.inst.args,
                                  t->u.inst.argc, sl, dl);
        type_text(c, t, text, sizeof text);
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
        return is_canon(cls) ? &k_object : plan_class(c, cls, sl, dl);
    }
    case CLRSIG_ET_TYPEDBYREF:
        return &k_typedref;
    case CLRSIG_ET_CANON:
        return &k_object;
    case CLRSIG_ET_INTERNAL:
        return plan_class(c, (ClassID)t->u.handle, sl, dl);
    default:
        return &ct_plan_by_range;
    }
object : {
    ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = perm_text(text)};
    return new_plan(&p);
}
}

/* ------------------------------------------------------ whole methods */

typedef struct param_meta {
    char name[PARAM_NAME_MAX];
    uint16_t flags;
} param_meta;

/* Name and in/out flags of parameter i (0-based) of method md. */
static void read_param(const ct_module *m, mdMethodDef md, uint32_t i, param_meta *out)
{
    IMetaDataImport *mdi = m->mdi;
    mdParamDef pd = 0;
    snprintf(out->name, sizeof out->name, "arg%u", i + 1);
    out->flags = 0;
    /* Param rows are numbered from 1; sequence 0 is the return value. */
    if (mdi->lpVtbl->GetParamForMethodIndex(mdi, md, i + 1, &pd) != S_OK)
        return;
    WCHAR w[PARAM_NAME_MAX];
    ULONG wlen = 0, seq = 0, value_len = 0;
    DWORD attr = 0, cplus = 0;
    mdMethodDef owner = 0;
    const void *value = NULL;
    if (FAILED(mdi->lpVtbl->GetParamProps(mdi, pd, &owner, &seq, w, PARAM_NAME_MAX, &wlen, &attr,
                                          &cplus, &value, &value_len)))
        return;
    if (wlen > 1)
        ct_utf16_to_utf8(w, wlen, out->name, sizeof out->name);
    out->flags = (uint16_t)(attr & (CLRSIG_PARAM_IN | CLRSIG_PARAM_OUT));
}

/* "out int value=": the parameter's type as C# writes it, then its name. */
static void param_label(pctx *c, const clrsig_type *t, const param_meta *pm, char *out,
                        size_t cap)
{
    char text[TYPE_TEXT_MAX];
    const clrsig_type *s = clrsig_strip(t);
    if (s->kind == CLRSIG_ET_BYREF) {
        const char *word = (pm->flags & CLRSIG_PARAM_OUT)  ? "out "
                           : (pm->flags & CLRSIG_PARAM_IN) ? "in "
                                                           : "ref ";
        type_text(c, s->u.elem, text, sizeof text);
        snprintf(out, cap, "%s%s %s=", word, text, pm->name);
    } else {
        type_text(c, t, text, sizeof text);
        snprintf(out, cap, "%s %s=", text, pm->name);
    }
}

/* Plans whose capture reads only the value's own bytes: safe on memory that
 * may hold garbage (an `out` parameter's target before the callee writes). */
int ct_plan_is_flat(const ct_plan *p, unsigned depth)
{
    if (!p || depth > CT_MAX_VALUE_DEPTH)
        return 0;
    switch (p->kind) {
    case CT_V_STRING: case CT_V_OBJECT: case CT_V_ARRAY: case CT_V_BYREF:
        return 0;
    case CT_V_STRUCT:
        for (uint32_t i = 0; i < p->count; i++)
            if (!ct_plan_is_flat(p->fields[i].plan, depth + 1))
                return 0;
        return 1;
    case CT_V_NULLABLE:
        return ct_plan_is_flat(p->elem, depth + 1);
    default:
        return 1;
    }
}

/* The plan of a parameter. Its byref target, if any, is checked by the hook
 * before it is read (hooks.c, byref_source): `out` targets included, whose
 * value is shown as it is at entry. */
static const ct_plan *param_plan(pctx *c, const clrsig_type *t)
{
    return plan_type(c, t, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH);
}

/* "Demo.Box<int>", "Demo.Pair<int, TValue>": a generic TypeDef named with
 * its known type arguments, and the declared names of the others (unknown,
 * or System.__Canon: code shared by every reference type). */
static void typedef_display(const ct_module *m, mdTypeDef td, const ClassID *args,
                            uint32_t nargs, char *out, size_t cap)
{
    char name[CT_NAME_MAX * 3];
    if (ct_typedef_name(m, td, 1, name, sizeof name) != 0) {
        snprintf(out, cap, "?");
        return;
    }
    size_t o = 0;
    uint32_t next = 0;
    out[0] = '\0';
    for (const char *r = name; *r && o + 1 < cap;) {
        if (*r != '`') {
            out[o++] = *r++;
            continue;
        }
        unsigned n = 0;
        for (r++; *r >= '0' && *r <= '9'; r++)
            n = n * 10 + (unsigned)(*r - '0');
        o += (size_t)snprintf(out + o, cap - o, "<");
        for (unsigned i = 0; i < n && o + 1 < cap; i++, next++) {
            char pn[TYPE_TEXT_MAX];
            if (next < nargs && args[next] && !is_canon(args[next]))
                ct_classid_name(args[next], CT_NAME_SHORT, pn, sizeof pn);
            else if (generic_param_name(m, td, next, pn, sizeof pn) != 0)
                snprintf(pn, sizeof pn, "!%u", next);
            o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", pn);
        }
        if (o + 1 < cap)
            o += (size_t)snprintf(out + o, cap - o, ">");
    }
    if (o >= cap)
        o = cap - 1;
    out[o] = '\0';
}

static void build_display(const ct_method_info *mi, char *out, size_t cap)
{
    char owner[DISPLAY_MAX];
    if (!(mi->owner & 0x00FFFFFF))
        owner[0] = '\0';
    else
        typedef_display(mi->module, mi->owner, mi->cls ? mi->class_args : NULL,
                        mi->cls ? mi->nclass_args : 0, owner, sizeof owner);
    size_t o = (size_t)snprintf(out, cap, "%s%s%s", owner, owner[0] ? "." : "", mi->method_name);
    if (o >= cap || !mi->nmethod_args)
        return;
    o += (size_t)snprintf(out + o, cap - o, "<");
    for (uint32_t i = 0; i < mi->nmethod_args && o + 1 < cap; i++) {
        char an[TYPE_TEXT_MAX];
        ClassID a = mi->method_args_known ? mi->method_args[i] : 0;
        if (!a || is_canon(a)) {
            if (generic_param_name(mi->module, mi->token, i, an, sizeof an) != 0)
                snprintf(an, sizeof an, "!!%u", i);
        } else {
            ct_classid_name(a, CT_NAME_SHORT, an, sizeof an);
        }
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", an);
    }
    if (o + 1 < cap)
        snprintf(out + o, cap - o, ">");
}

/* The plan of `this`: the object, or for a value type's method the address
 * of the struct and its fields. */
static const ct_plan *this_plan(pctx *c, const ct_method_info *mi, int *late)
{
    ct_type_kind kind = ct_typedef_kind(mi->module, mi->owner);
    if (kind == CT_TYPE_CLASS) {
        /* Only a fallback: the object's own class is what gets printed. */
        char text[DISPLAY_MAX];
        typedef_display(mi->module, mi->owner, mi->cls ? mi->class_args : NULL,
                        mi->cls ? mi->nclass_args : 0, text, sizeof text);
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = perm_text(text)};
        return new_plan(&p);
    }
    ct_plan p = {.kind = CT_V_BYREF, .size = 8, .type_name = "this"};
    if (mi->cls) {
        const ct_plan *e = plan_class(c, mi->cls, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH - 1);
        if (!ct_plan_is_by_range(e))
            p.elem = e;
    } else {
        *late = 1;
        return NULL;
    }
    return new_plan(&p);
}

/* Arenas for one planning session: parse trees and formatter scratch. */
typedef struct session {
    uint8_t *mem;
    clrsig_arena arena, scratch;
} session;

static int session_open(session *s)
{
    s->mem = malloc(2 * CLRSIG_ARENA_SIZE_RECOMMENDED);
    if (!s->mem)
        return -1;
    clrsig_arena_init(&s->arena, s->mem, CLRSIG_ARENA_SIZE_RECOMMENDED);
    clrsig_arena_init(&s->scratch, s->mem + CLRSIG_ARENA_SIZE_RECOMMENDED,
                      CLRSIG_ARENA_SIZE_RECOMMENDED);
    return 0;
}

int ct_plan_function(ct_mapped_fn *f, const ct_method_info *mi)
{
    char display[DISPLAY_MAX];
    build_display(mi, display, sizeof display);
    f->display = perm_text(display);
    if (!g_ct.cfg.signatures || !mi->module || !mi->module->mdi || !mi->sig ||
        mi->sig_len > SIG_MAX_BYTES)
        return -1;

    session ss;
    if (session_open(&ss) != 0)
        return -1;
    pctx *c = calloc(1, sizeof *c);
    param_meta *pm = NULL;
    int rc = -1;
    if (!c)
        goto done;
    c->m = mi->module;
    c->type_owner = mi->owner;
    c->method_owner = mi->token;
    c->cargs = mi->class_args;
    c->ncargs = mi->nclass_args;
    c->cknown = mi->cls != 0;
    c->margs = mi->method_args;
    c->nmargs = mi->nmethod_args;
    c->mknown = mi->method_args_known;
    c->allow_load = 1;
    c->arena = &ss.arena;
    c->scratch = &ss.scratch;

    clrsig_sig sig;
    if (clrsig_parse(mi->sig, mi->sig_len, CLRSIG_KIND_METHOD, NULL, &ss.arena, &sig, NULL) !=
        CLRSIG_OK)
        goto done;
    const clrsig_method *meth = &sig.method;
    if (meth->sentinel != UINT32_MAX)
        goto done; /* vararg call sites: ranges do not follow the signature */
    uint32_t np = meth->param_count;
    int has_this = (meth->callconv & CLRSIG_CC_HASTHIS) && !(meth->callconv & CLRSIG_CC_EXPLICITTHIS);
    uint32_t nargs = np + (has_this ? 1 : 0);
    ct_arg *args = ct_perm_alloc((nargs ? nargs : 1) * sizeof *args);
    pm = calloc(np ? np : 1, sizeof *pm);
    if (!args || !pm)
        goto done;
    for (uint32_t i = 0; i < np; i++)
        read_param(mi->module, mi->token, i, &pm[i]);

    int late = 0;
    uint32_t a = 0;
    if (has_this) {
        args[a].label = "this=";
        args[a].plan = this_plan(c, mi, &late);
        a++;
    }
    for (uint32_t i = 0; i < np; i++, a++) {
        char label[LABEL_MAX];
        param_label(c, meth->params[i], &pm[i], label, sizeof label);
        args[a].label = perm_text(label);
        args[a].plan = param_plan(c, meth->params[i]);
        if (!args[a].plan)
            late = 1;
    }
    const clrsig_type *ret = clrsig_strip(meth->ret);
    if (ret->kind != CLRSIG_ET_VOID) {
        char text[TYPE_TEXT_MAX], label[TYPE_TEXT_MAX + 2];
        type_text(c, meth->ret, text, sizeof text);
        snprintf(label, sizeof label, "%s ", text);
        f->ret_label = perm_text(label);
        f->ret = plan_type(c, meth->ret, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH);
        f->has_ret = 1;
        if (!f->ret)
            late = 1;
    }
    if (late) {
        ct_late *l = ct_perm_alloc(sizeof *l);
        uint8_t *copy = ct_perm_alloc(mi->sig_len);
        if (l && copy) {
            memcpy(copy, mi->sig, mi->sig_len);
            l->module = mi->module->id;
            l->method = mi->token;
            l->sig = copy;
            l->sig_len = mi->sig_len;
            f->late = l;
        }
    }
    f->args = args;
    f->nargs = nargs;
    f->values = 1;
    rc = 0;
done:
    free(pm);
    free(c);
    free(ss.mem);
    return rc;
}

/* ------------------------------------------------- state machines */

/* Compiler-generated state machines, shown as the method they implement. The
 * attribute on that method names the state machine type; the word is put
 * before the method's name. */
static const struct {
    const char *attribute;
    const char *word;
} k_state_machines[] = {
    {"System.Runtime.CompilerServices.AsyncStateMachineAttribute", "async "},
    {"System.Runtime.CompilerServices.IteratorStateMachineAttribute", "iterator "},
    {"System.Runtime.CompilerServices.AsyncIteratorStateMachineAttribute", "async iterator "},
};
/* Methods of one name looked at in the declaring type (overloads). */
#define SM_OVERLOADS_MAX 32
/* The state machine's field holding the state (C# compilers). */
#define SM_STATE_FIELD "<>1__state"
/* The field holding the method's `this` (C# compilers). */
#define SM_THIS_FIELD "<>4__this"

/* The implemented method's name from a state machine type's metadata name:
 * "<Leaf>d__6" and "<Leaf>d__6`1" give "Leaf", "<<Main>g__Local|0_0>d" gives
 * "<Main>g__Local|0_0". -1 for any other name. */
static int sm_method_name(const char *type_name, char *out, size_t cap)
{
    size_t len = strlen(type_name);
    const char *tick = strrchr(type_name, '`');
    if (tick)
        len = (size_t)(tick - type_name);
    if (len < 4 || type_name[0] != '<')
        return -1;
    size_t end = len;
    while (end > 0 && type_name[end - 1] >= '0' && type_name[end - 1] <= '9')
        end--;
    if (end < len) { /* "__N" */
        if (end < 2 || type_name[end - 1] != '_' || type_name[end - 2] != '_')
            return -1;
        end -= 2;
    }
    if (end < 3 || type_name[end - 1] != 'd' || type_name[end - 2] != '>')
        return -1;
    size_t n = end - 3; /* between the first '<' and the '>' before 'd' */
    if (!n || n >= cap)
        return -1;
    memcpy(out, type_name + 1, n);
    out[n] = '\0';
    return 0;
}

/* 1 when custom attribute blob data[0..len) (prolog 01 00, then the Type
 * argument as a SerString: "Ns.Outer+<Leaf>d__6") names the type whose own
 * metadata name is sm_name. */
static int attribute_names(const uint8_t *data, ULONG len, const char *sm_name)
{
    uint32_t n = 0, used = 0;
    if (len < 3 || data[0] != 1 || data[1] != 0 || data[2] == 0xFF ||
        clrsig_read_u(data + 2, len - 2, &n, &used) != CLRSIG_OK || n > len - 2 - used)
        return 0;
    const char *s = (const char *)data + 2 + used;
    size_t own = strlen(sm_name);
    if (n < own || memcmp(s + n - own, sm_name, own) != 0)
        return 0;
    return n == own || s[n - own - 1] == '+' || s[n - own - 1] == '.';
}

/* The method of type `owner` named `name` that carries a state-machine
 * attribute naming sm_name; its kind (index into k_state_machines). 0 when
 * there is none. */
static mdMethodDef sm_find_method(const ct_module *m, mdTypeDef owner, const char *name,
                                  const char *sm_name, size_t *kind)
{
    IMetaDataImport *mdi = m->mdi;
    WCHAR wname[CT_NAME_MAX];
    if (ct_utf8_to_utf16(name, wname, CT_NAME_MAX) < 0)
        return 0;
    HCORENUM e = NULL;
    mdMethodDef mds[SM_OVERLOADS_MAX];
    ULONG got = 0;
    HRESULT hr = mdi->lpVtbl->EnumMethodsWithName(mdi, &e, owner, wname, mds, SM_OVERLOADS_MAX,
                                                  &got);
    if (e)
        mdi->lpVtbl->CloseEnum(mdi, e);
    if (FAILED(hr))
        return 0;
    for (ULONG i = 0; i < got && i < SM_OVERLOADS_MAX; i++)
        for (size_t k = 0; k < sizeof k_state_machines / sizeof *k_state_machines; k++) {
            WCHAR wattr[128];
            const void *data = NULL;
            ULONG len = 0;
            if (ct_utf8_to_utf16(k_state_machines[k].attribute, wattr, 128) >= 0 &&
                mdi->lpVtbl->GetCustomAttributeByName(mdi, mds[i], wattr, &data, &len) == S_OK &&
                data && attribute_names(data, len, sm_name)) {
                *kind = k;
                return mds[i];
            }
        }
    return 0;
}

/* The field of struct plan sp named name, or NULL. */
static const ct_field *sm_field(const ct_plan *sp, const char *name)
{
    for (uint32_t i = 0; i < sp->count; i++)
        if (!strcmp(sp->fields[i].name, name))
            return &sp->fields[i];
    return NULL;
}

/* The metadata arity suffix of a name ("`1"), 0 without one. */
static uint32_t name_arity(const char *name)
{
    const char *tick = strrchr(name, '`');
    return tick ? (uint32_t)strtoul(tick + 1, NULL, 10) : 0;
}

int ct_plan_state_machine(ct_mapped_fn *f, const ct_method_info *mi)
{
    const ct_module *m = mi->module;
    if (!m || !m->mdi || strcmp(mi->method_name, "MoveNext"))
        return -1;
    /* Values need the state machine's exact class (its field layout). */
    if (g_ct.cfg.signatures && !mi->cls)
        return -1;
    IMetaDataImport *mdi = m->mdi;
    WCHAR w[CT_NAME_MAX];
    ULONG wlen = 0;
    DWORD tflags = 0;
    mdToken extends = 0;
    mdTypeDef outer = 0;
    char sm_name[CT_NAME_MAX * 3], method[CT_NAME_MAX * 3];
    if (FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, mi->owner, w, CT_NAME_MAX, &wlen, &tflags,
                                            &extends)))
        return -1;
    ct_utf16_to_utf8(w, wlen, sm_name, sizeof sm_name);
    size_t kind = 0;
    mdMethodDef md;
    if (sm_method_name(sm_name, method, sizeof method) != 0 ||
        mdi->lpVtbl->GetNestedClassProps(mdi, mi->owner, &outer) != S_OK || !outer ||
        !(md = sm_find_method(m, outer, method, sm_name, &kind)))
        return -1;
    mdTypeDef md_owner = 0;
    ULONG sig_len = 0, rva = 0;
    DWORD attr = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (FAILED(mdi->lpVtbl->GetMethodProps(mdi, md, &md_owner, w, CT_NAME_MAX, &wlen, &attr, &sig,
                                           &sig_len, &rva, &impl)) ||
        !sig || sig_len > SIG_MAX_BYTES)
        return -1;

    /* The state machine's type arguments: the declaring types' first, then
     * the method's own (its metadata name's arity). */
    uint32_t marity = name_arity(sm_name);
    uint32_t ncargs = mi->cls ? mi->nclass_args : 0;
    if (marity > ncargs)
        marity = ncargs;
    uint32_t nhead = ncargs - marity;

    char mname[CT_NAME_MAX * 3], display[DISPLAY_MAX], shown[DISPLAY_MAX + 32];
    ct_utf16_to_utf8(w, wlen, mname, sizeof mname);
    ct_method_info kick = {
        .module = m, .token = md, .owner = outer, .method_name = mname,
        .cls = mi->cls, .class_args = mi->class_args, .nclass_args = nhead,
        .method_args = mi->class_args + nhead, .nmethod_args = marity, .method_args_known = 1,
    };
    build_display(&kick, display, sizeof display);
    snprintf(shown, sizeof shown, "%s%s", k_state_machines[kind].word, display);
    if (!g_ct.cfg.signatures) {
        /* Names only (or the fast path): "async Demo.Net.Fetch(...)". */
        f->display = perm_text(shown);
        return 0;
    }

    session ss;
    if (session_open(&ss) != 0)
        return -1;
    int rc = -1;
    param_meta *pm = NULL;
    pctx *c = calloc(1, sizeof *c);
    if (!c)
        goto done;
    c->m = m;
    c->type_owner = outer;
    c->method_owner = md;
    c->cargs = mi->class_args;
    c->ncargs = nhead;
    c->cknown = 1;
    c->margs = mi->class_args + nhead;
    c->nmargs = marity;
    c->mknown = 1;
    c->allow_load = 1;
    c->arena = &ss.arena;
    c->scratch = &ss.scratch;

    /* The state machine's fields, one level more than a parameter's struct
     * so that the fields get the configured depth. */
    char tname[TYPE_TEXT_MAX];
    ct_classid_name(mi->cls, CT_NAME_SHORT, tname, sizeof tname);
    const ct_plan *sp = plan_struct(c, mi->cls, m, mi->owner, mi->class_args, mi->nclass_args,
                                    tname, g_ct.cfg.struct_depth + 1, CT_MAX_VALUE_DEPTH);
    clrsig_sig msig;
    if (sp->kind != CT_V_STRUCT ||
        clrsig_parse(sig, sig_len, CLRSIG_KIND_METHOD, NULL, &ss.arena, &msig, NULL) != CLRSIG_OK ||
        msig.method.sentinel != UINT32_MAX)
        goto done;
    const clrsig_method *meth = &msig.method;
    uint32_t np = meth->param_count;
    int has_this = (meth->callconv & CLRSIG_CC_HASTHIS) != 0;
    uint32_t n = np + (has_this ? 1 : 0) + 1; /* + the state */
    ct_arg *args = ct_perm_alloc(n * sizeof *args);
    uint32_t *offsets = ct_perm_alloc(n * sizeof *offsets);
    pm = calloc(np ? np : 1, sizeof *pm);
    if (!args || !offsets || !pm)
        goto done;
    uint32_t a = 0;
    const ct_field *fd;
    /* `this` only when kept: the compiler hoists it only when the method
     * uses it after its first await (or yield). */
    if (has_this && (fd = sm_field(sp, SM_THIS_FIELD))) {
        args[a].label = "this=";
        args[a].plan = fd->plan;
        offsets[a++] = fd->offset;
    }
    for (uint32_t i = 0; i < np; i++, a++) {
        char label[LABEL_MAX];
        read_param(m, md, i, &pm[i]);
        /* A parameter the compiler did not hoist reads <unavailable>. */
        param_label(c, meth->params[i], &pm[i], label, sizeof label);
        fd = sm_field(sp, pm[i].name);
        args[a].label = perm_text(label);
        args[a].plan = fd ? fd->plan : &ct_plan_by_range;
        offsets[a] = fd ? fd->offset : CT_SM_NO_FIELD;
    }
    fd = sm_field(sp, SM_STATE_FIELD);
    args[a].label = SM_STATE_FIELD "=";
    args[a].plan = fd ? fd->plan : &k_i4;
    offsets[a++] = fd ? fd->offset : CT_SM_NO_FIELD;
    n = a;

    f->display = perm_text(shown);
    f->args = args;
    f->nargs = n;
    f->sm_offsets = offsets;
    f->has_ret = 0;
    f->values = 1;
    rc = 0;
done:
    free(pm);
    free(c);
    free(ss.mem);
    return rc;
}

/* Replaces reference-type arguments by CANON_MARK. */
static void canonicalize(ClassID *args, uint32_t n)
{
    ICorProfilerInfo *info = g_ct.info;
    for (uint32_t i = 0; i < n; i++) {
        CorElementType et = 0;
        ClassID elem = 0;
        ULONG rank = 0;
        ModuleID mod = 0;
        mdTypeDef td = 0;
        char full[CT_NAME_MAX * 3];
        const ct_module *m;
        if (!args[i] || info->lpVtbl->IsArrayClass(info, args[i], &et, &elem, &rank) == S_OK ||
            FAILED(info->lpVtbl->GetClassIDInfo2(info, args[i], &mod, &td, NULL, 0, NULL, NULL)) ||
            !(m = ct_module_get(mod))) {
            args[i] = CANON_MARK;
            continue;
        }
        if (m->corelib && ct_typedef_name(m, td, 1, full, sizeof full) == 0) {
            const ct_plan *fixed = corelib_plan(full);
            if (fixed) {
                if (fixed->kind == CT_V_STRING || fixed->kind == CT_V_OBJECT)
                    args[i] = CANON_MARK;
                continue;
            }
        }
        if (ct_typedef_kind(m, td) == CT_TYPE_CLASS)
            args[i] = CANON_MARK;
    }
}

int ct_plan_late(ct_mapped_fn *f, COR_PRF_FRAME_INFO frame)
{
    int expected = CT_LATE_UNBOUND;
    if (!f->late || !atomic_compare_exchange_strong(&f->late_state, &expected, CT_LATE_BINDING))
        return 0;
    ICorProfilerInfo *info = g_ct.info;
    const ct_late *l = f->late;
    const ct_plan **plans = ct_perm_alloc((f->nargs + 1) * sizeof *plans);
    ClassID cls = 0, margs[CT_MAX_TYPE_ARGS], cargs[CT_MAX_TYPE_ARGS];
    ModuleID mod = 0;
    mdToken tok = 0;
    ULONG32 nm = 0, nc = 0;
    session ss = {0};
    pctx *c = NULL;
    const ct_module *m = ct_module_get(l->module);
    if (!plans || !m ||
        FAILED(info->lpVtbl->GetFunctionInfo2(info, f->id, frame, &cls, &mod, &tok,
                                              CT_MAX_TYPE_ARGS, &nm, margs)) ||
        !cls ||
        FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, NULL, CT_MAX_TYPE_ARGS, &nc,
                                             cargs)) ||
        session_open(&ss) != 0 || !(c = calloc(1, sizeof *c)))
        goto done;
    mdTypeDef owner = 0;
    {
        WCHAR w[2];
        ULONG wl = 0, sl = 0, rva = 0;
        DWORD attr = 0, impl = 0;
        PCCOR_SIGNATURE s = NULL;
        m->mdi->lpVtbl->GetMethodProps(m->mdi, l->method, &owner, w, 2, &wl, &attr, &s, &sl, &rva,
                                       &impl);
    }
    /* The plans serve every instantiation sharing this code: a reference
     * type argument stands for all of them (CANON_MARK, captured as an
     * object); value type arguments are the same for every call. */
    canonicalize(cargs, nc > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nc);
    canonicalize(margs, nm > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nm);
    c->m = m;
    c->type_owner = owner;
    c->method_owner = l->method;
    c->cargs = cargs;
    c->ncargs = nc > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nc;
    c->cknown = 1;
    c->margs = margs;
    c->nmargs = nm > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nm;
    c->mknown = 1;
    c->allow_load = 0;
    c->arena = &ss.arena;
    c->scratch = &ss.scratch;
    clrsig_sig sig;
    if (clrsig_parse(l->sig, l->sig_len, CLRSIG_KIND_METHOD, NULL, &ss.arena, &sig, NULL) !=
        CLRSIG_OK)
        goto done;
    uint32_t first = f->nargs - sig.method.param_count;
    for (uint32_t i = 0; i < f->nargs; i++) {
        if (f->args[i].plan)
            continue;
        if (i < first) {
            /* `this` of a value type's method: laid out as the exact class
             * (every instantiation sharing the code has that layout), its
             * fields planned with the canonical arguments. */
            ct_plan p = {.kind = CT_V_BYREF, .size = 8, .type_name = "this"};
            ModuleID cm = 0;
            mdTypeDef ctd = 0;
            char tname[TYPE_TEXT_MAX];
            const ct_module *cmod;
            typedef_display(m, owner, cargs, c->ncargs, tname, sizeof tname);
            if (SUCCEEDED(info->lpVtbl->GetClassIDInfo2(info, cls, &cm, &ctd, NULL, 0, NULL,
                                                        NULL)) &&
                (cmod = ct_module_get(cm)) && cmod->mdi) {
                const ct_plan *e = plan_struct(c, cls, cmod, ctd, cargs, c->ncargs, tname,
                                               g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH - 1);
                if (!ct_plan_is_by_range(e))
                    p.elem = e;
            }
            plans[i] = new_plan(&p);
            continue;
        }
        const ct_plan *p = param_plan(c, sig.method.params[i - first]);
        plans[i] = p ? p : &ct_plan_by_range;
    }
    if (f->has_ret && !f->ret) {
        const ct_plan *p = plan_type(c, sig.method.ret, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH);
        plans[f->nargs] = p ? p : &ct_plan_by_range;
    }
done:
    if (plans) {
        for (uint32_t i = 0; i <= f->nargs; i++)
            if (!plans[i])
                plans[i] = &ct_plan_by_range;
        atomic_store_explicit(&f->late_plans, (const ct_plan *const *)plans,
                              memory_order_release);
    }
    free(c);
    free(ss.mem);
    atomic_store(&f->late_state, CT_LATE_BOUND);
    return 1;
}
