/* Capture plans, part five: the content of objects, by their runtime class
 * (src/format/value.h, CT_V_CLASS and CT_V_SEQ). A plan is built the
 * first time the hooks meet an object of the class, from the runtime's
 * layout (GetClassLayout, up the base classes) and the metadata's field
 * names and signatures, with no type load (a struct field whose type the
 * runtime would have to load is shown as its bytes); then it is cached for
 * the process. CoreLib's List, Queue, Stack, HashSet and Dictionary,
 * LinkedList and BitArray are planned by their elements, T[] in an object slot by its elements, a
 * StringBuilder by its text. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "perm.h"
#include "plans_internal.h"
#include "agent/runtime/state.h"

/* Base classes followed above an object's own class. */
#define CONTENT_MAX_BASES 32

/* Stands for "no content" in the cache (strings, boxed primitives, classes
 * with no instance field, classes the runtime cannot describe). */
static const ct_plan k_no_content = {.kind = CT_V_VOID, .type_name = "none"};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_content; /* {ClassID, 0} -> plan, or k_no_content */

static const ct_plan *cached(ClassID cls)
{
    pthread_mutex_lock(&g_lock);
    const ct_plan *p = ct_table_get_key(&g_content, (ct_key){cls, 0});
    pthread_mutex_unlock(&g_lock);
    return p;
}

static const ct_plan *remember(ClassID cls, const ct_plan *p)
{
    pthread_mutex_lock(&g_lock);
    const ct_plan *had = ct_table_get_key(&g_content, (ct_key){cls, 0});
    if (had)
        p = had;
    else
        ct_table_put_key(&g_content, (ct_key){cls, 0}, (void *)p);
    pthread_mutex_unlock(&g_lock);
    return p;
}

/* The levels of planning below an object: struct fields as deep as the
 * struct depth option says. */
static unsigned struct_levels(void)
{
    return g_ct.cfg.struct_depth;
}

/* ----------------------------------------------------- collections */

typedef struct seq_kind {
    const char *full;          /* CoreLib's full name */
    ct_seq_shape shape;
    const char *items, *count; /* field names */
} seq_kind;

static const seq_kind k_seqs[] = {
    {"System.Collections.Generic.List`1", CT_SEQ_LIST, "_items", "_size"},
    {"System.Collections.Generic.Queue`1", CT_SEQ_QUEUE, "_array", "_size"},
    {"System.Collections.Generic.Stack`1", CT_SEQ_STACK, "_array", "_size"},
    {"System.Collections.Generic.HashSet`1", CT_SEQ_SET, "_entries", "_count"},
    {"System.Collections.Generic.Dictionary`2", CT_SEQ_DICT, "_entries", "_count"},
};

/* The offset of the field named `name` among fields[0..n), or -1. */
static int64_t field_at(const ct_field *fields, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(fields[i].name, name))
            return fields[i].offset;
    return -1;
}

/* A HashSet's or Dictionary's entry layout, learned from the entries array
 * the object holds (its element class): 0, 1 when the object has none yet
 * (plan again later), -1 when it is laid out otherwise. */
static int entry_layout(pctx *c, const uint8_t *obj, uint32_t items, int dict, ct_seq *q)
{
    ICorProfilerInfo *info = g_ct.info;
    uint64_t arr;
    memcpy(&arr, obj + items, 8);
    if (!arr)
        return 1;
    ClassID acls = 0, ecls = 0, args[CT_MAX_TYPE_ARGS];
    CorElementType et = 0;
    ULONG rank = 0;
    ModuleID mod = 0;
    mdTypeDef td = 0;
    ULONG32 nargs = 0;
    /* Outside a callback (the IL engine's probes), the array's class is its
     * MethodTable word (hooks.c, class_of). */
    if (FAILED(info->lpVtbl->GetClassFromObject(info, (ObjectID)arr, &acls)))
        memcpy(&acls, (const void *)(uintptr_t)arr, sizeof acls);
    if (!acls || info->lpVtbl->IsArrayClass(info, acls, &et, &ecls, &rank) != S_OK ||
        rank != 1 || !ecls ||
        FAILED(info->lpVtbl->GetClassIDInfo2(info, ecls, &mod, &td, NULL, CT_MAX_TYPE_ARGS,
                                             &nargs, args)) ||
        nargs > CT_MAX_TYPE_ARGS)
        return -1;
    const ct_module *m = ct_module_get(mod);
    ct_field f[8];
    uint32_t nf = 0, size = 0;
    if (!m || !m->mdi ||
        ct_pl_plan_fields(c, ecls, m, td, args, nargs, 1, 1, f, 8, &nf, &size) < 0)
        return -1;
    int64_t next = field_at(f, nf, dict ? "next" : "Next");
    int64_t value = field_at(f, nf, dict ? "value" : "Value");
    int64_t key = dict ? field_at(f, nf, "key") : 0;
    if (next < 0 || value < 0 || key < 0 || !size)
        return -1;
    /* The entries must be size bytes apart: the array holds its length of
     * them (GetObjectSize2, ICorProfilerInfo4), else nothing is read.
     * Outside a callback the runtime does not answer: size is then its own
     * (GetClassLayout of the element class). */
    uint32_t length;
    size_t osize = 0;
    memcpy(&length, (const uint8_t *)(uintptr_t)arr + CT_SZARRAY_LENGTH_OFFSET, 4);
    HRESULT hr = g_ct.info_version < 4 ? E_FAIL
                                       : info->lpVtbl->GetObjectSize2(info, (ObjectID)arr, &osize);
    if (hr != CORPROF_E_UNSUPPORTED_CALL_SEQUENCE &&
        (FAILED(hr) || osize < CT_SZARRAY_DATA_OFFSET + (uint64_t)length * size))
        return -1;
    q->entry_size = size;
    q->entry_next = (uint32_t)next;
    q->entry_value = (uint32_t)value;
    q->entry_key = (uint32_t)key;
    return 0;
}

/* A CoreLib collection's SEQ plan; NULL when cls is none, or is laid out
 * otherwise (then *again is set when a later object may tell). */
static const ct_plan *plan_seq(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                               const char *full, const ClassID *args, uint32_t nargs,
                               const char *tname, const uint8_t *obj, int *again)
{
    const seq_kind *k = NULL;
    for (size_t i = 0; i < sizeof k_seqs / sizeof *k_seqs && !k; i++)
        if (!strcmp(full, k_seqs[i].full))
            k = &k_seqs[i];
    int dict = k && k->shape == CT_SEQ_DICT;
    if (!k || nargs != (dict ? 2u : 1u))
        return NULL;
    ct_field f[16];
    uint32_t nf = 0, size = 0;
    if (ct_pl_plan_fields(c, cls, m, td, args, nargs, 1, 1, f, 16, &nf, &size) < 0)
        return NULL;
    ct_seq q = {0};
    int64_t items = field_at(f, nf, k->items), count = field_at(f, nf, k->count);
    int64_t head = k->shape == CT_SEQ_QUEUE ? field_at(f, nf, "_head") : 0;
    int64_t free_count = k->shape >= CT_SEQ_SET ? field_at(f, nf, "_freeCount") : 0;
    if (items < 0 || count < 0 || head < 0 || free_count < 0)
        return NULL;
    q.items = (uint32_t)items;
    q.count = (uint32_t)count;
    q.head = (uint32_t)head;
    q.free_count = (uint32_t)free_count;
    if (k->shape >= CT_SEQ_SET) {
        int rc = entry_layout(c, obj, q.items, dict, &q);
        if (rc > 0)
            *again = 1;
        if (rc)
            return NULL;
    }
    unsigned sl = struct_levels();
    const ct_plan *elem = ct_pl_elem_plan(c, args[dict ? 1 : 0], sl, CT_MAX_VALUE_DEPTH);
    const ct_plan *key = dict ? ct_pl_elem_plan(c, args[0], sl, CT_MAX_VALUE_DEPTH) : NULL;
    if (!elem || (dict && !key))
        return NULL;
    ct_seq *qp = ct_perm_alloc(sizeof *qp);
    if (!qp)
        return NULL;
    *qp = q;
    ct_plan p = {.kind = CT_V_SEQ, .size = 8, .type_name = ct_pl_perm_text(tname),
                 .shape = (uint8_t)k->shape, .elem = elem, .key = key, .seq = qp};
    return ct_pl_new_plan(&p);
}

/* The field named `name` among fields[0..n) when its plan is of kind
 * `kind`, else NULL. */
static const ct_field *field_of(const ct_field *fields, uint32_t n, const char *name,
                                ct_vkind kind)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(fields[i].name, name))
            return fields[i].plan->kind == kind ? &fields[i] : NULL;
    return NULL;
}

/* A LIST plan of elem reached by q, named tname. */
static const ct_plan *list_plan(const ct_seq *q, const ct_plan *elem, const char *tname)
{
    ct_seq *qp = ct_perm_alloc(sizeof *qp);
    if (!qp)
        return NULL;
    *qp = *q;
    ct_plan p = {.kind = CT_V_SEQ, .size = 8, .type_name = ct_pl_perm_text(tname),
                 .shape = CT_SEQ_LIST, .elem = elem, .seq = qp};
    return ct_pl_new_plan(&p);
}

/* System.Collections.Generic.LinkedList<T>: a LIST walked from its head
 * node (CT_WALK_LINKED). The node class (LinkedListNode<T>, its next and
 * item fields) is learned from the head of the object met: NULL with *again
 * set when the list is empty (plan again later); NULL when laid out
 * otherwise (then field by field). */
static const ct_plan *plan_linked(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                  const ClassID *args, uint32_t nargs, const char *tname,
                                  const uint8_t *obj, int *again)
{
    ICorProfilerInfo *info = g_ct.info;
    ct_field f[8];
    uint32_t nf = 0, size = 0;
    if (nargs != 1 || ct_pl_plan_fields(c, cls, m, td, args, nargs, 1, 1, f, 8, &nf, &size) < 0)
        return NULL;
    const ct_field *head = field_of(f, nf, "head", CT_V_OBJECT);
    const ct_field *count = field_of(f, nf, "count", CT_V_I4);
    if (!head || !count)
        return NULL;
    ct_seq q = {.walk = CT_WALK_LINKED, .items = head->offset, .count = count->offset};
    uint64_t node;
    memcpy(&node, obj + q.items, 8);
    if (!node) {
        *again = 1;
        return NULL;
    }
    /* Outside a callback (the IL engine's probes), the node's class is its
     * MethodTable word, as in entry_layout. */
    ClassID ncls = 0, nargsv[CT_MAX_TYPE_ARGS];
    ModuleID mod = 0;
    mdTypeDef ntd = 0;
    ULONG32 nn = 0;
    char full[CT_NAME_MAX * 3];
    if (FAILED(info->lpVtbl->GetClassFromObject(info, (ObjectID)node, &ncls)))
        memcpy(&ncls, (const void *)(uintptr_t)node, sizeof ncls);
    if (!ncls || FAILED(info->lpVtbl->GetClassIDInfo2(info, ncls, &mod, &ntd, NULL,
                                                     CT_MAX_TYPE_ARGS, &nn, nargsv)) ||
        nn != 1)
        return NULL;
    const ct_module *nm = ct_module_get(mod);
    if (!nm || !nm->mdi || ct_typedef_name(nm, ntd, 1, full, sizeof full) != 0 ||
        strcmp(full, "System.Collections.Generic.LinkedListNode`1") != 0 ||
        ct_pl_plan_fields(c, ncls, nm, ntd, nargsv, nn, 1, 1, f, 8, &nf, &size) < 0)
        return NULL;
    const ct_field *next = field_of(f, nf, "next", CT_V_OBJECT);
    int64_t item = field_at(f, nf, "item");
    if (!next || item < 0)
        return NULL;
    q.node_class = ncls;
    q.entry_next = next->offset;
    q.entry_value = (uint32_t)item;
    const ct_plan *elem = ct_pl_elem_plan(c, args[0], struct_levels(), CT_MAX_VALUE_DEPTH);
    return elem ? list_plan(&q, elem, tname) : NULL;
}

/* System.Collections.BitArray: a LIST of bools (CT_WALK_BITS) from its
 * array, byte[] _array and _bitLength (.NET 9 on) or int[] m_array and
 * m_length (before); NULL when laid out otherwise (then field by field). */
static const ct_plan *plan_bits(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                const char *tname)
{
    static const char *const names[2][2] = {{"_array", "_bitLength"}, {"m_array", "m_length"}};
    ct_field f[8];
    uint32_t nf = 0, size = 0;
    if (ct_pl_plan_fields(c, cls, m, td, NULL, 0, struct_levels() + 1, CT_MAX_VALUE_DEPTH, f, 8,
                          &nf, &size) < 0)
        return NULL;
    for (int i = 0; i < 2; i++) {
        const ct_field *arr = field_of(f, nf, names[i][0], CT_V_ARRAY);
        const ct_field *len = field_of(f, nf, names[i][1], CT_V_I4);
        const ct_plan *e = arr ? arr->plan->elem : NULL;
        if (!len || !e || !((e->kind == CT_V_U1 && e->size == 1) ||
                            ((e->kind == CT_V_I4 || e->kind == CT_V_U4) && e->size == 4)))
            continue;
        ct_seq q = {.walk = CT_WALK_BITS, .items = arr->offset, .count = len->offset,
                    .entry_size = e->size};
        return list_plan(&q, ct_pl_prim_plan(CLRSIG_ET_BOOLEAN), tname);
    }
    return NULL;
}

/* System.Text.StringBuilder: a TEXT plan, its chunk fields' offsets from
 * the runtime's layout; NULL when it is laid out otherwise (then it is
 * shown field by field). */
static const ct_plan *plan_text(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                const char *tname)
{
    ct_field f[16];
    uint32_t nf = 0, size = 0;
    if (ct_pl_plan_fields(c, cls, m, td, NULL, 0, 1, 1, f, 16, &nf, &size) < 0)
        return NULL;
    static const char *const names[4] = {"m_ChunkChars", "m_ChunkPrevious", "m_ChunkLength",
                                         "m_ChunkOffset"};
    int64_t at[4];
    for (int k = 0; k < 4; k++) {
        at[k] = -1;
        for (uint32_t i = 0; i < nf; i++)
            if (!strcmp(f[i].name, names[k]) &&
                (k < 2 ? f[i].plan->size == 8 : f[i].plan->kind == CT_V_I4))
                at[k] = f[i].offset;
        if (at[k] < 0)
            return NULL;
    }
    ct_seq *qp = ct_perm_alloc(sizeof *qp);
    if (!qp)
        return NULL;
    memset(qp, 0, sizeof *qp);
    qp->items = (uint32_t)at[0];
    qp->previous = (uint32_t)at[1];
    qp->count = (uint32_t)at[2];
    qp->head = (uint32_t)at[3];
    ct_plan p = {.kind = CT_V_SEQ, .size = 8, .type_name = ct_pl_perm_text(tname),
                 .shape = CT_SEQ_TEXT, .elem = ct_pl_prim_plan(CLRSIG_ET_CHAR), .seq = qp};
    return ct_pl_new_plan(&p);
}

/* T[] in an object slot: a SEQ of its own elements. */
static const ct_plan *plan_array(pctx *c, CorElementType et, ClassID ecls, const char *tname)
{
    const ct_plan *elem = ecls ? ct_pl_elem_plan(c, ecls, struct_levels(), CT_MAX_VALUE_DEPTH)
                               : ct_pl_prim_plan((uint8_t)et);
    if (!elem || !ct_array_items_captured(elem))
        return NULL;
    ct_plan p = {.kind = CT_V_SEQ, .size = 8, .type_name = ct_pl_perm_text(tname),
                 .shape = CT_SEQ_ARRAY, .elem = elem};
    return ct_pl_new_plan(&p);
}

/* ------------------------------------------------------------ classes */

/* A boxed struct or enum: one unnamed field, its value after the method
 * table pointer. */
static const ct_plan *plan_boxed(pctx *c, ClassID cls, const char *tname)
{
    const ct_plan *v = ct_pl_plan_class(c, cls, struct_levels(), CT_MAX_VALUE_DEPTH - 1);
    if (!v || ct_plan_is_by_range(v) || v->kind == CT_V_ELIDED)
        return NULL;
    ct_field *f = ct_perm_alloc(sizeof *f);
    if (!f)
        return NULL;
    f->name = "";
    f->offset = 8;
    f->plan = v;
    ct_plan p = {.kind = CT_V_CLASS, .size = 8 + v->size, .type_name = ct_pl_perm_text(tname),
                 .count = 1, .fields = f};
    return ct_pl_new_plan(&p);
}

/* One level of a class's chain: the class and what describes it. */
typedef struct level {
    ClassID cls;
    const ct_module *m;
    mdTypeDef td;
    ClassID args[CT_MAX_TYPE_ARGS];
    ULONG32 nargs;
    int corelib_base;           /* a CoreLib base named in k_special */
} level;

/* CoreLib bases whose objects are not shown by all their fields: a
 * delegate's and a reflection object's fields say nothing a reader wants
 * (class and address then); an exception is shown by its message. */
enum { BASE_NONE, BASE_HIDDEN, BASE_EXCEPTION };
static const struct {
    const char *full;
    int what;
} k_special[] = {
    {"System.Delegate", BASE_HIDDEN},
    {"System.Reflection.MemberInfo", BASE_HIDDEN},
    {"System.Exception", BASE_EXCEPTION},
};

/* Classes shown in a form (src/format/value.h, ct_form), the class itself
 * or a base: the fields the form reads, by the runtime's names, searched in
 * the class and its bases up to the one named (a Task<T>'s m_result is its
 * own, m_stateFlags its base Task's). A field may have two names (older
 * runtimes'); an optional one may be missing. Each field's kind is checked
 * by the form's rule (form_field_ok); when a field is missing or of another
 * kind, the class is shown field by field. */
#define FORM_MAX_FIELDS 4
typedef struct form_kind {
    const char *full;
    ct_form form;
    const char *fields[FORM_MAX_FIELDS];
    uint32_t required;          /* the first `required` must be found */
} form_kind;

static const form_kind k_forms[] = {
    {"System.Uri", CT_FORM_TEXT, {"_originalUnicodeString", "_string"}, 2},
    {"System.Globalization.CultureInfo", CT_FORM_TEXT, {"_name"}, 1},
    {"System.Version", CT_FORM_VERSION, {"_Major", "_Minor", "_Build", "_Revision"}, 4},
    {"System.Net.IPAddress", CT_FORM_IPADDRESS, {"_addressOrScopeId", "_numbers"}, 2},
    {"System.RuntimeType", CT_FORM_TYPE, {"m_handle"}, 1},
    {"System.Threading.Tasks.Task", CT_FORM_TASK, {"m_stateFlags", "m_result"}, 1},
    {"System.Threading.CancellationTokenSource", CT_FORM_CANCEL, {"_state"}, 1},
    {"System.Lazy`1", CT_FORM_LAZY, {"_state", "_value"}, 2},
    {"System.Text.Encoding", CT_FORM_ENCODING, {"_codePage"}, 1},
};

/* Whether field i of a form's plan may be the plan fp. */
static int form_field_ok(ct_form form, uint32_t i, const ct_plan *fp)
{
    int int4 = fp->size == 4 && (fp->kind == CT_V_I4 || fp->kind == CT_V_U4 ||
                                 fp->kind == CT_V_ENUM);
    switch (form) {
    case CT_FORM_TEXT:
        return fp->kind == CT_V_STRING;
    case CT_FORM_VERSION:
    case CT_FORM_CANCEL:
    case CT_FORM_ENCODING:
        return int4;
    case CT_FORM_IPADDRESS:
        return i == 0 ? int4 : fp->kind == CT_V_ARRAY && fp->elem && fp->elem->kind == CT_V_U2;
    case CT_FORM_TYPE:
        return fp->kind == CT_V_I || fp->kind == CT_V_U;
    case CT_FORM_TASK:
        /* VoidTaskResult, a struct of no field: no result. */
        return i == 0 ? int4
                      : !(fp->kind == CT_V_STRUCT && fp->count == 0) && !ct_plan_is_by_range(fp);
    case CT_FORM_LAZY:
        return i == 0 ? fp->kind == CT_V_OBJECT : !ct_plan_is_by_range(fp);
    default:
        return 0;
    }
}

static const ct_plan *plan_exception(pctx *c, const level *l, const char *tname)
{
    ct_field f[STRUCT_MAX_FIELDS];
    uint32_t nf = 0, size = 0;
    if (ct_pl_plan_fields(c, l->cls, l->m, l->td, l->args, l->nargs, 1, 1, f, STRUCT_MAX_FIELDS,
                          &nf, &size) < 0)
        return NULL;
    for (uint32_t i = 0; i < nf; i++)
        if (!strcmp(f[i].name, "_message") && f[i].plan->kind == CT_V_STRING) {
            ct_field *m = ct_perm_alloc(sizeof *m);
            if (!m)
                return NULL;
            m->name = "Message";
            m->offset = f[i].offset;
            m->plan = f[i].plan;
            ct_plan p = {.kind = CT_V_CLASS, .size = m->offset + 8,
                         .type_name = ct_pl_perm_text(tname), .count = 1, .fields = m};
            return ct_pl_new_plan(&p);
        }
    return NULL;
}

/* The form plan of chain[0..top], top the level k names: its fields found
 * by name in those levels; NULL when one is missing or does not fit. */
static const ct_plan *plan_form(pctx *c, const level *chain, uint32_t top, const form_kind *k,
                                const char *tname)
{
    ct_field got[FORM_MAX_FIELDS];
    uint32_t n = 0, end = 8;
    ct_field *f = malloc(STRUCT_MAX_FIELDS * sizeof *f);
    if (!f)
        return NULL;
    for (uint32_t want = 0; want < FORM_MAX_FIELDS && k->fields[want]; want++) {
        int found = 0;
        for (uint32_t i = 0; i <= top && !found; i++) {
            const level *l = &chain[i];
            uint32_t nf = 0, size = 0;
            if (!l->m || !l->m->mdi ||
                ct_pl_plan_fields(c, l->cls, l->m, l->td, l->args, l->nargs, struct_levels() + 1,
                                  CT_MAX_VALUE_DEPTH, f, STRUCT_MAX_FIELDS, &nf, &size) < 0)
                continue;
            for (uint32_t j = 0; j < nf && !found; j++)
                if (!strcmp(f[j].name, k->fields[want]) && form_field_ok(k->form, n, f[j].plan)) {
                    got[n++] = f[j];
                    found = 1;
                }
        }
        if (!found && want < k->required) {
            free(f);
            return NULL;
        }
    }
    free(f);
    for (uint32_t i = 0; i < n; i++)
        if (got[i].offset + got[i].plan->size > end)
            end = got[i].offset + got[i].plan->size;
    ct_field *fields = ct_perm_alloc(n * sizeof *fields);
    if (!fields)
        return NULL;
    memcpy(fields, got, n * sizeof *fields);
    ct_plan p = {.kind = CT_V_CLASS, .size = end, .type_name = ct_pl_perm_text(tname),
                 .count = n, .fields = fields, .shape = (uint8_t)k->form};
    return ct_pl_new_plan(&p);
}

/* A class's instance fields, its base classes' first, the first
 * --object-fields of them planned. */
static const ct_plan *plan_fields(pctx *c, ClassID cls, const char *tname)
{
    ICorProfilerInfo *info = g_ct.info;
    level *chain = calloc(CONTENT_MAX_BASES + 1, sizeof *chain);
    if (!chain)
        return NULL;
    uint32_t levels = 0;
    const ct_plan *result = NULL;
    for (ClassID k = cls; k && levels <= CONTENT_MAX_BASES;) {
        level *l = &chain[levels];
        ClassID parent = 0;
        ModuleID mod = 0;
        char full[CT_NAME_MAX * 3];
        if (FAILED(info->lpVtbl->GetClassIDInfo2(info, k, &mod, &l->td, &parent,
                                                 CT_MAX_TYPE_ARGS, &l->nargs, l->args)) ||
            l->nargs > CT_MAX_TYPE_ARGS)
            goto done;
        l->cls = k;
        l->m = ct_module_get(mod);
        int named = l->m && l->m->mdi && ct_typedef_name(l->m, l->td, 1, full, sizeof full) == 0;
        for (size_t i = 0; named && i < sizeof k_forms / sizeof *k_forms; i++)
            if (!strcmp(full, k_forms[i].full)) {
                result = plan_form(c, chain, levels, &k_forms[i], tname);
                if (result)
                    goto done;
            }
        if (named && l->m->corelib)
            for (size_t i = 0; i < sizeof k_special / sizeof *k_special; i++)
                if (!strcmp(full, k_special[i].full))
                    l->corelib_base = k_special[i].what;
        if (l->corelib_base == BASE_HIDDEN)
            goto done;
        if (l->corelib_base == BASE_EXCEPTION) {
            result = plan_exception(c, l, tname);
            goto done;
        }
        levels++;
        k = parent;
    }
    uint32_t limit = g_ct.cfg.object_fields, shown = 0, total = 0, end = 8;
    ct_field *tmp = malloc((size_t)limit * sizeof *tmp);
    if (!tmp)
        goto done;
    for (uint32_t i = levels; i-- > 0;) {
        const level *l = &chain[i];
        uint32_t nf = 0, size = 0;
        int declared = l->m && l->m->mdi
                           ? ct_pl_plan_fields(c, l->cls, l->m, l->td, l->args, l->nargs,
                                               struct_levels() + 1, CT_MAX_VALUE_DEPTH,
                                               tmp + shown, limit - shown, &nf, &size)
                           : -1;
        if (declared < 0)
            continue;
        total += (uint32_t)declared;
        shown += nf;
    }
    for (uint32_t i = 0; i < shown; i++) {
        uint32_t e = tmp[i].offset + tmp[i].plan->size;
        if (e > end)
            end = e;
    }
    ct_field *fields = shown ? ct_perm_alloc(shown * sizeof *fields) : NULL;
    if (fields)
        memcpy(fields, tmp, shown * sizeof *fields);
    free(tmp);
    if (total && (!shown || fields)) {
        ct_plan p = {.kind = CT_V_CLASS, .size = end, .type_name = ct_pl_perm_text(tname),
                     .count = shown, .fields = fields, .value_offset = total - shown};
        result = ct_pl_new_plan(&p);
    }
done:
    free(chain);
    return result;
}

static const ct_plan *build(pctx *c, ClassID cls, const uint8_t *obj, int *again)
{
    ICorProfilerInfo *info = g_ct.info;
    char tname[TYPE_TEXT_MAX];
    ct_classid_name(cls, CT_NAME_SHORT, tname, sizeof tname);
    CorElementType et = 0;
    ClassID ecls = 0;
    ULONG rank = 0;
    if (info->lpVtbl->IsArrayClass(info, cls, &et, &ecls, &rank) == S_OK)
        return rank == 1 ? plan_array(c, et, ecls, tname) : NULL;
    ClassID args[CT_MAX_TYPE_ARGS];
    ModuleID mod = 0;
    mdTypeDef td = 0;
    ULONG32 nargs = 0;
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, NULL, CT_MAX_TYPE_ARGS,
                                             &nargs, args)) ||
        nargs > CT_MAX_TYPE_ARGS)
        return NULL;
    const ct_module *m = ct_module_get(mod);
    char full[CT_NAME_MAX * 3];
    if (!m || !m->mdi || ct_typedef_name(m, td, 1, full, sizeof full) != 0)
        return NULL;
    if (m->corelib && ct_pl_corelib_plan(full))
        return NULL; /* string, object, boxed primitives: not by content */
    switch (ct_typedef_kind(m, td)) {
    case CT_TYPE_ENUM:
    case CT_TYPE_STRUCT:
        return plan_boxed(c, cls, tname);
    default:
        break;
    }
    const ct_plan *text = m->corelib && !strcmp(full, "System.Text.StringBuilder")
                              ? plan_text(c, cls, m, td, tname)
                              : NULL;
    if (text)
        return text;
    /* LinkedList<T> and BitArray live in System.Collections. */
    if (!strcmp(full, "System.Collections.Generic.LinkedList`1")) {
        const ct_plan *l = plan_linked(c, cls, m, td, args, nargs, tname, obj, again);
        if (l || *again)
            return l;
    }
    if (!strcmp(full, "System.Collections.BitArray")) {
        const ct_plan *b = plan_bits(c, cls, m, td, tname);
        if (b)
            return b;
    }
    /* By full name: Stack<T> lives in System.Collections, the others in
     * CoreLib; the fields are checked by name. */
    const ct_plan *q = plan_seq(c, cls, m, td, full, args, nargs, tname, obj, again);
    if (q || *again)
        return q;
    return plan_fields(c, cls, tname);
}

const ct_plan *ct_plan_content(ClassID cls, const void *obj, int *again)
{
    *again = 0;
    if (!cls || !obj)
        return NULL;
    const ct_plan *p = cached(cls);
    if (p)
        return p == &k_no_content ? NULL : p;
    session ss = {0};
    pctx *c = ct_pl_open(&ss, NULL, 0);
    if (!c) {
        *again = 1;
        return NULL;
    }
    p = build(c, cls, obj, again);
    ct_pl_close(&ss, c);
    if (*again)
        return NULL;
    p = remember(cls, p ? p : &k_no_content);
    return p == &k_no_content ? NULL : p;
}

const ct_plan *ct_plan_content_known(ClassID cls)
{
    const ct_plan *p = cls ? cached(cls) : NULL;
    return p == &k_no_content ? NULL : p;
}
