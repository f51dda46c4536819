#include "classnames.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/table.h"
#include "modules.h"
#include "perm.h"
#include "agent/runtime/state.h"
#include "utf16.h"

/* Longest name built for one class (longer names are cut). */
#define CLASS_NAME_MAX 1024

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_names; /* {ClassID, style + 1} -> permanent string */

static const struct {
    const char *full, *keyword;
} k_keywords[] = {
    {"System.Boolean", "bool"},   {"System.Char", "char"},      {"System.SByte", "sbyte"},
    {"System.Byte", "byte"},      {"System.Int16", "short"},    {"System.UInt16", "ushort"},
    {"System.Int32", "int"},      {"System.UInt32", "uint"},    {"System.Int64", "long"},
    {"System.UInt64", "ulong"},   {"System.Single", "float"},   {"System.Double", "double"},
    {"System.String", "string"},  {"System.Object", "object"},  {"System.Decimal", "decimal"},
    {"System.IntPtr", "nint"},    {"System.UIntPtr", "nuint"},  {"System.Void", "void"},
};

const char *ct_corelib_keyword(const char *full_name)
{
    for (size_t i = 0; i < sizeof k_keywords / sizeof *k_keywords; i++)
        if (!strcmp(full_name, k_keywords[i].full))
            return k_keywords[i].keyword;
    return NULL;
}

const char *ct_element_keyword(CorElementType et)
{
    switch (et) {
    case 0x01: return "void";
    case 0x02: return "bool";
    case 0x03: return "char";
    case 0x04: return "sbyte";
    case 0x05: return "byte";
    case 0x06: return "short";
    case 0x07: return "ushort";
    case 0x08: return "int";
    case 0x09: return "uint";
    case 0x0A: return "long";
    case 0x0B: return "ulong";
    case 0x0C: return "float";
    case 0x0D: return "double";
    case 0x0E: return "string";
    case 0x18: return "nint";
    case 0x19: return "nuint";
    case 0x1C: return "object";
    default: return NULL;
    }
}

typedef struct sbuf {
    char *p;
    size_t cap, len;
    int cut;
} sbuf;

static void put(sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n >= b->cap) {
        n = b->cap - 1 - b->len;
        b->cut = 1;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static int build(ClassID cls, ct_name_style style, unsigned depth, sbuf *b);

static ct_name_style arg_style(ct_name_style style)
{
    return style == CT_NAME_FULL ? CT_NAME_FULL : CT_NAME_SHORT;
}

/* Whether cls is System.__Canon: the stand-in for every reference type in
 * shared generic code, which no user should read. */
static int is_canon(ClassID cls, unsigned depth)
{
    char name[32];
    sbuf nb = {name, sizeof name, 0, 0};
    name[0] = '\0';
    return build(cls, CT_NAME_FULL, depth + 1, &nb) == 0 && !strcmp(name, "System.__Canon");
}

/* Appends "<a, b>" for args[from..to) of the generic type td of module m:
 * System.__Canon as the generic parameter's declared name ("T"). */
static void put_args(const ClassID *args, ULONG32 from, ULONG32 to, ct_name_style style,
                     unsigned depth, sbuf *b, const ct_module *m, mdTypeDef td)
{
    put(b, "<");
    for (ULONG32 i = from; i < to; i++) {
        if (i > from)
            put(b, ", ");
        char param[CT_NAME_MAX];
        if (is_canon(args[i], depth) && ct_generic_param_name(m, td, i, param, sizeof param) == 0)
            put(b, param);
        else if (build(args[i], arg_style(style), depth + 1, b) != 0)
            put(b, "?");
    }
    put(b, ">");
}

/* The arity a metadata name declares with its `N suffix (0 when none). */
static unsigned arity_of(const char *name, size_t *base_len)
{
    const char *tick = strrchr(name, '`');
    *base_len = strlen(name);
    if (!tick || !tick[1])
        return 0;
    unsigned n = 0;
    for (const char *p = tick + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        n = n * 10 + (unsigned)(*p - '0');
        if (n > CT_MAX_TYPE_ARGS)
            return 0;
    }
    *base_len = (size_t)(tick - name);
    return n;
}

/* A class's TypeDef name, part by part (ct_typedef_walk), each followed by
 * the type arguments its arity takes of the class's. */
typedef struct type_parts {
    sbuf *b;
    const ct_module *m;
    mdTypeDef td;
    ct_name_style style;
    unsigned depth;
    const ClassID *args;
    ULONG32 nargs, used;
} type_parts;

/* 1: the class is a CoreLib type with a keyword, its whole name. */
static int type_part(void *ctx, const char *part, int index, int count)
{
    type_parts *t = ctx;
    sbuf *b = t->b;
    if (index == 0 && t->m->corelib && t->nargs == 0 && count == 1) {
        const char *kw = ct_corelib_keyword(part);
        if (kw) {
            put(b, kw);
            return 1;
        }
    }
    const char *shown = part;
    if (index == 0 && t->style != CT_NAME_FULL && t->style != CT_NAME_DISPLAY)
        shown = ct_typedef_unqualified(part);
    if (index != 0)
        put(b, ".");
    size_t base_len;
    unsigned arity = arity_of(shown, &base_len);
    char base[CT_NAME_MAX * 3];
    memcpy(base, shown, base_len);
    base[base_len] = '\0';
    put(b, base);
    if (arity && t->used + arity <= t->nargs) {
        put_args(t->args, t->used, t->used + arity, t->style, t->depth, b, t->m, t->td);
        t->used += arity;
    }
    return 0;
}

static int build(ClassID cls, ct_name_style style, unsigned depth, sbuf *b)
{
    ICorProfilerInfo *info = g_ct.info;
    if (!cls || depth > CT_MAX_NESTING)
        return -1;

    CorElementType et = 0;
    ClassID elem = 0;
    ULONG rank = 0;
    if (info->lpVtbl->IsArrayClass(info, cls, &et, &elem, &rank) == S_OK) {
        const char *kw = ct_element_keyword(et);
        if (elem) {
            if (build(elem, style, depth + 1, b) != 0)
                return -1;
        } else if (kw) {
            put(b, kw);
        } else {
            return -1;
        }
        put(b, "[");
        for (ULONG i = 1; i < rank && i < 32; i++)
            put(b, ",");
        put(b, "]");
        return 0;
    }

    ModuleID mod = 0;
    mdTypeDef td = 0;
    ClassID parent = 0;
    ClassID args[CT_MAX_TYPE_ARGS];
    ULONG32 nargs = 0;
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, CT_MAX_TYPE_ARGS,
                                             &nargs, args)))
        return -1;
    if (nargs > CT_MAX_TYPE_ARGS)
        nargs = CT_MAX_TYPE_ARGS;
    const ct_module *m = ct_module_get(mod);
    if (!m || !m->mdi)
        return -1;

    type_parts t = {b, m, td, style, depth, args, nargs, 0};
    int rc = ct_typedef_walk(m, td, type_part, &t);
    if (rc)
        return rc < 0 ? -1 : 0; /* a keyword is the whole name */
    if (t.used < nargs)
        put_args(args, t.used, nargs, style, depth, b, m, td);
    return 0;
}

int ct_classid_name(ClassID cls, ct_name_style style, char *out, size_t cap)
{
    if (!cap)
        return -1;
    ct_key key = {cls, (uint64_t)style + 1};
    pthread_mutex_lock(&g_lock);
    const char *cached = ct_table_get_key(&g_names, key);
    pthread_mutex_unlock(&g_lock);
    if (cached) {
        snprintf(out, cap, "%s", cached);
        return 0;
    }
    char name[CLASS_NAME_MAX];
    sbuf b = {name, sizeof name, 0, 0};
    name[0] = '\0';
    if (build(cls, style, 0, &b) != 0) {
        snprintf(out, cap, "?");
        return -1;
    }
    char *mine = ct_perm_strdup(name);
    if (mine) {
        pthread_mutex_lock(&g_lock);
        if (!ct_table_get_key(&g_names, key))
            ct_table_put_key(&g_names, key, mine);
        pthread_mutex_unlock(&g_lock);
    }
    snprintf(out, cap, "%s", name);
    return 0;
}

int ct_method_handle_name(FunctionID fn, char *out, size_t cap)
{
    ICorProfilerInfo *info = g_ct.info;
    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tok = 0;
    if (!cap)
        return -1;
    snprintf(out, cap, "?");
    if (!fn || FAILED(info->lpVtbl->GetFunctionInfo(info, fn, &cls, &mod, &tok)))
        return -1;
    const ct_module *m = ct_module_get(mod);
    IMetaDataImport *mdi = m ? m->mdi : NULL;
    WCHAR wname[CT_NAME_MAX];
    ULONG wlen = 0, rva = 0, sig_len = 0;
    DWORD attr = 0, impl = 0;
    mdTypeDef td = 0;
    PCCOR_SIGNATURE sig = NULL;
    char method[CT_NAME_MAX * 3], type[CLASS_NAME_MAX];
    if (!mdi || FAILED(mdi->lpVtbl->GetMethodProps(mdi, tok, &td, wname, CT_NAME_MAX, &wlen, &attr,
                                                   &sig, &sig_len, &rva, &impl)))
        return -1;
    ct_utf16_to_utf8(wname, wlen, method, sizeof method);
    if ((cls ? ct_classid_name(cls, CT_NAME_FULL, type, sizeof type)
             : ct_typedef_name(m, td, 1, type, sizeof type)) != 0)
        return -1;
    snprintf(out, cap, "%s.%s", type, method);
    return 0;
}
