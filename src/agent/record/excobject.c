/* An exception object read as an UNWIND carries it (its class, message and
 * inner exceptions), and the offsets of a class's fields by name, which
 * that reading, a task's (task.c) and the trace ids' (activity.c) use.
 * Runtime calls that trigger no GC and checked reads only: nothing managed
 * runs. */
#include <string.h>

#include "internal.h"
#include "agent/model/modules.h"
#include "agent/model/utf16.h"

/* System.Exception's ClassID and the offsets of its _message and
 * _innerException fields in an object (EXC_NO_FIELD: not found), learned at
 * the first exception; with them CoreLib's module and the TypeDef of
 * System.AggregateException (0: none). */
static _Atomic(uint64_t) g_exc_class;
static _Atomic(uint32_t) g_exc_message_offset, g_exc_inner_offset;
static _Atomic(uint64_t) g_corelib_module;
static _Atomic(uint32_t) g_agg_typedef;
/* System.AggregateException's ClassID and the offset of the field that
 * holds its inner exceptions (an Exception[], or a ReadOnlyCollection of
 * one, as the runtime's version has it), learned at the first
 * AggregateException; the ReadOnlyCollection's class and the offset of its
 * list, at the first one met. */
static _Atomic(uint64_t) g_agg_class, g_roc_class;
static _Atomic(uint32_t) g_agg_list_offset, g_roc_list_offset;
#define EXC_NO_FIELD CT_REC_NO_FIELD
/* Base classes followed from a thrown object's class to System.Exception,
 * and the fields of a class looked at. */
#define EXC_MAX_BASES 64

/* 1 when cls (its module and TypeDef) is CoreLib's System.Exception. */
static int is_system_exception(ClassID cls)
{
    ICorProfilerInfo *info = g_ct.info;
    ModuleID mod = 0;
    mdTypeDef td = 0;
    char name[32];
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, NULL, 0, NULL, NULL)))
        return 0;
    const ct_module *m = ct_module_get(mod);
    return m && m->corelib && ct_typedef_name(m, td, 1, name, sizeof name) == 0 &&
           !strcmp(name, "System.Exception");
}

/* The offsets of class cls's own object reference fields named
 * names[0..n) (EXC_NO_FIELD: none). */
static void ref_fields(ClassID cls, const char *const *names, uint32_t *offsets, int n)
{
    ct_rec_field_offsets(cls, names, offsets, n, 8);
}

/* Learns where System.Exception (ClassID cls) keeps _message and
 * _innerException, and which TypeDef of its module (CoreLib) is
 * System.AggregateException. */
static void learn_exception(ClassID cls)
{
    static const char *const names[] = {"_message", "_innerException"};
    uint32_t offsets[2];
    ref_fields(cls, names, offsets, 2);
    ModuleID mod = 0;
    const ct_module *m = NULL;
    WCHAR w[32];
    mdTypeDef agg = 0;
    if (SUCCEEDED(g_ct.info->lpVtbl->GetClassIDInfo2(g_ct.info, cls, &mod, NULL, NULL, 0, NULL,
                                                     NULL)) &&
        (m = ct_module_get(mod)) && m->mdi &&
        ct_utf8_to_utf16("System.AggregateException", w, 32) >= 0 &&
        m->mdi->lpVtbl->FindTypeDefByName(m->mdi, w, 0, &agg) != S_OK)
        agg = 0;
    atomic_store(&g_corelib_module, (uint64_t)mod);
    atomic_store(&g_agg_typedef, (uint32_t)agg);
    atomic_store(&g_exc_message_offset, offsets[0]);
    atomic_store(&g_exc_inner_offset, offsets[1]);
    atomic_store(&g_exc_class, (uint64_t)cls);
}

/* 1 when class cls (of module mod, TypeDef td) is System.AggregateException;
 * learns its field of inner exceptions the first time. */
static int is_aggregate(ClassID cls, ModuleID mod, mdTypeDef td)
{
    uint64_t known = atomic_load(&g_agg_class);
    if (known)
        return cls == known;
    uint32_t agg = atomic_load(&g_agg_typedef);
    if (!agg || td != agg || (uint64_t)mod != atomic_load(&g_corelib_module))
        return 0;
    /* .NET 9 and later: Exception[] _innerExceptions; before:
     * ReadOnlyCollection<Exception> m_innerExceptions. */
    static const char *const names[] = {"_innerExceptions", "m_innerExceptions"};
    uint32_t offsets[2];
    ref_fields(cls, names, offsets, 2);
    atomic_store(&g_agg_list_offset, offsets[0] != EXC_NO_FIELD ? offsets[0] : offsets[1]);
    atomic_store(&g_agg_class, (uint64_t)cls);
    return 1;
}

/* What an object of class cls is (the runtime wraps anything else a program
 * throws in an exception, unless its assembly asks not to). */
enum { EXC_NOT, EXC_PLAIN, EXC_AGGREGATE };
static int exception_kind(ClassID cls)
{
    ICorProfilerInfo *info = g_ct.info;
    ClassID classes[EXC_MAX_BASES];
    ModuleID mods[EXC_MAX_BASES];
    mdTypeDef tds[EXC_MAX_BASES];
    for (int i = 0; cls && i < EXC_MAX_BASES; i++) {
        uint64_t known = atomic_load(&g_exc_class);
        if (known ? cls == known : is_system_exception(cls)) {
            if (!known)
                learn_exception(cls);
            for (int k = 0; k < i; k++)
                if (is_aggregate(classes[k], mods[k], tds[k]))
                    return EXC_AGGREGATE;
            return EXC_PLAIN;
        }
        ClassID parent = 0;
        if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mods[i], &tds[i], &parent, 0, NULL,
                                                 NULL)))
            return EXC_NOT;
        classes[i] = cls;
        cls = parent;
    }
    return EXC_NOT;
}

/* The class of object obj: GetClassFromObject, which answers only inside a
 * runtime callback; in an IL probe (an async builder's SetException) the
 * object's first word, its method table, which is its ClassID
 * (vm/object.inl), as the class cache takes it (values.c). */
static HRESULT class_of_object(uint64_t obj, ClassID *cls)
{
    if (SUCCEEDED(g_ct.info->lpVtbl->GetClassFromObject(g_ct.info, (ObjectID)obj, cls)))
        return S_OK;
    memcpy(cls, (const void *)(uintptr_t)obj, sizeof *cls);
    return *cls ? S_OK : E_FAIL;
}


/* ECMA-335 II.23.1.16: the element types of an array of references. */
#define EXC_ET_CLASS 0x12
#define EXC_ET_OBJECT 0x1c

/* 1 when obj is a one-dimensional array of object references. */
static int is_ref_array(uint64_t obj)
{
    ICorProfilerInfo *info = g_ct.info;
    ClassID cls = 0, elem = 0;
    CorElementType et = 0;
    ULONG rank = 0;
    return obj && SUCCEEDED(class_of_object(obj, &cls)) &&
           info->lpVtbl->IsArrayClass(info, cls, &et, &elem, &rank) == S_OK && rank == 1 &&
           (et == EXC_ET_CLASS || et == EXC_ET_OBJECT);
}

/* The inner exceptions of AggregateException obj: the array that holds
 * them (*items: its first element), its length; 0 when not known. */
static uint32_t aggregate_items(uint64_t obj, uint64_t *items)
{
    uint64_t list = ct_rec_ref_at(obj, atomic_load(&g_agg_list_offset));
    ClassID cls = 0;
    if (!list || FAILED(class_of_object(list, &cls)))
        return 0;
    if (!is_ref_array(list)) {
        /* A ReadOnlyCollection<Exception>: its IList, an Exception[]. */
        if (cls != atomic_load(&g_roc_class)) {
            static const char *const names[] = {"list"};
            uint32_t off;
            ref_fields(cls, names, &off, 1);
            atomic_store(&g_roc_list_offset, off);
            atomic_store(&g_roc_class, (uint64_t)cls);
        }
        list = ct_rec_ref_at(list, atomic_load(&g_roc_list_offset));
        if (!is_ref_array(list))
            return 0;
    }
    uint32_t length;
    memcpy(&length, (const void *)(uintptr_t)(list + g_rec.layout.array_length_offset), 4);
    *items = list + g_rec.layout.array_data_offset;
    return length;
}

/* Appends exception obj's message (a STRING value of at most max_chars
 * characters, or MISSING when its _message is not known) to x. */
static void exc_message(ct_rec_exc *x, uint64_t obj, uint32_t max_chars)
{
    uint8_t *p = x->values + x->len;
    uint32_t off = atomic_load(&g_exc_message_offset);
    size_t n = 0;
    if (off != EXC_NO_FIELD) {
        uint64_t ref = ct_rec_ref_at(obj, off);
        uint32_t chars = g_ct.cfg.string_chars;
        ct_limits lim = {.string_chars = chars < max_chars ? chars : max_chars};
        n = ct_capture(ct_unwind_plan(1), &ref, &g_rec.layout, &lim, NULL, NULL, p + 4,
                       sizeof x->values - x->len - 4);
    }
    uint32_t word = n ? (uint32_t)n : (uint32_t)CT_VALUE_MISSING << CT_VALUE_STATUS_SHIFT;
    memcpy(p, &word, 4);
    x->len += 4 + (uint32_t)n;
    x->nvalues++;
}

/* Appends a value of n bytes to x. */
static void exc_value(ct_rec_exc *x, const void *bytes, uint32_t n)
{
    memcpy(x->values + x->len, &n, 4);
    memcpy(x->values + x->len + 4, bytes, n);
    x->len += 4 + n;
    x->nvalues++;
}

/* Appends exception obj (class cls, kind EXC_PLAIN or EXC_AGGREGATE) at
 * depth `depth` of the chain, then its inner exceptions (an
 * AggregateException's InnerExceptions, else its InnerException), while
 * *left allows and down to CT_EXC_CHAIN_DEPTH: each its object, message and
 * node word (docs/trace-format.md). The room is x's: the values of
 * CT_EXC_CHAIN_MAX inner exceptions. */
static void exc_node(ct_rec_exc *x, uint64_t obj, ClassID cls, int kind, uint32_t depth,
                     uint32_t *left)
{
    if (depth) {
        uint64_t v[2] = {obj, (uint64_t)cls};
        exc_value(x, v, 16);
        exc_message(x, obj, CT_EXC_INNER_MESSAGE_CHARS);
    }
    uint64_t items = 0, one = ct_rec_ref_at(obj, atomic_load(&g_exc_inner_offset));
    uint32_t count = kind == EXC_AGGREGATE ? aggregate_items(obj, &items) : one != 0;
    uint32_t word = depth | (kind == EXC_AGGREGATE ? CT_EXC_NODE_AGGREGATE : 0) |
                    (count < CT_EXC_NODE_INNER_MAX ? count : CT_EXC_NODE_INNER_MAX)
                        << CT_EXC_NODE_INNER_SHIFT;
    exc_value(x, &word, 4);
    if (depth == CT_EXC_CHAIN_DEPTH)
        return;
    for (uint32_t i = 0; i < count && i < CT_EXC_NODE_INNER_MAX && *left; i++) {
        uint64_t inner = kind == EXC_AGGREGATE ? ct_rec_ref_at(items + 8ull * i, 0) : one;
        ClassID icls = 0;
        int ikind = EXC_NOT;
        if (!inner ||
            FAILED(class_of_object(inner, &icls)) ||
            (ikind = exception_kind(icls)) == EXC_NOT)
            return;
        (*left)--;
        exc_node(x, inner, icls, ikind, depth + 1, left);
    }
}

/* Keeps what the UNWIND events of the frames exception `serial` leaves
 * carry: the thrown object's address and class (an OBJECT value; the writer
 * names the class in a CLASS record), its _message (a STRING value), read
 * now: the object may move before its frames unwind; then its node word
 * and its inner exceptions. Only runtime calls that do not trigger a GC;
 * nothing managed runs. */
void ct_rec_exc_read(ct_rec_exc *x, uint32_t serial, ObjectID obj)
{
    x->serial = 0;
    ClassID cls = 0;
    if (!serial || !obj || FAILED(class_of_object(obj, &cls)) || !cls)
        return;
    uint64_t v[2] = {(uint64_t)obj, (uint64_t)cls};
    x->len = 0;
    x->nvalues = 0;
    exc_value(x, v, 16);
    int kind = exception_kind(cls);
    if (kind != EXC_NOT) {
        uint32_t left = CT_EXC_CHAIN_MAX;
        exc_message(x, obj, CT_EXC_MESSAGE_CHARS);
        exc_node(x, obj, cls, kind, 0, &left);
    }
    x->serial = serial;
}

void ct_rec_exc_capture(ct_rec_exc *x, uint64_t obj)
{
    ct_rec_exc_read(x, 1, (ObjectID)obj);
}

void ct_rec_field_offsets(ClassID cls, const char *const *names, uint32_t *offsets, int n,
                          uint32_t size)
{
    ICorProfilerInfo *info = g_ct.info;
    ModuleID mod = 0;
    COR_FIELD_OFFSET fo[CT_REC_MAX_FIELDS];
    ULONG nf = 0, osize = 0;
    const ct_module *m = NULL;
    for (int k = 0; k < n; k++)
        offsets[k] = CT_REC_NO_FIELD;
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, NULL, NULL, 0, NULL, NULL)) ||
        !(m = ct_module_get(mod)) || !m->mdi ||
        FAILED(info->lpVtbl->GetClassLayout(info, cls, fo, CT_REC_MAX_FIELDS, &nf, &osize)))
        return;
    for (ULONG i = 0; i < nf && i < CT_REC_MAX_FIELDS; i++) {
        WCHAR w[64];
        char name[64];
        ULONG len = 0, sig_len = 0, value_len = 0;
        DWORD attr = 0, cplus = 0;
        mdTypeDef owner = 0;
        PCCOR_SIGNATURE sig = NULL;
        const void *value = NULL;
        if (FAILED(m->mdi->lpVtbl->GetFieldProps(m->mdi, fo[i].ridOfField, &owner, w, 64, &len,
                                                 &attr, &sig, &sig_len, &cplus, &value,
                                                 &value_len)))
            continue;
        ct_utf16_to_utf8(w, len, name, sizeof name);
        /* Inside the object, after its method table, aligned. */
        for (int k = 0; k < n; k++)
            if (!strcmp(name, names[k]) && fo[i].ulOffset >= 8 &&
                fo[i].ulOffset + size <= osize && !(fo[i].ulOffset & 7))
                offsets[k] = fo[i].ulOffset;
    }
}
