/* Capture plans, part seven: the content of objects, by their runtime class
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
#include "agent/model/perm.h"
#include "internal.h"
#include "agent/runtime/state.h"

/* Base classes followed above an object's own class. */
#define CONTENT_MAX_BASES 32

/* Stands for "no content" in the cache (strings, boxed primitives, classes
 * with no instance field, classes the runtime cannot describe). */
static const ct_plan k_no_content = {.kind = CT_V_VOID, .type_name = "none"};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_content; /* {ClassID, 0} -> plan, or k_no_content;
                            * {ClassID, WAITING} -> a plan's wait (pctx.wait_at) */
#define WAITING 1u

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
    if (!arr) {
        c->wait_at = items + 1;
        return 1;
    }
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

/* A SEQ plan of this shape (elem, and key for a DICT) reached by q, named
 * tname. */
static const ct_plan *seq_plan(const ct_seq *q, ct_seq_shape shape, const ct_plan *elem,
                               const ct_plan *key, const char *tname)
{
    ct_seq *qp = ct_perm_alloc(sizeof *qp);
    if (!qp)
        return NULL;
    *qp = *q;
    ct_plan p = {.kind = CT_V_SEQ, .size = 8, .type_name = ct_pl_perm_text(tname),
                 .shape = (uint8_t)shape, .elem = elem, .key = key, .seq = qp};
    return ct_pl_new_plan(&p);
}

static const ct_plan *list_plan(const ct_seq *q, const ct_plan *elem, const char *tname)
{
    return seq_plan(q, CT_SEQ_LIST, elem, NULL, tname);
}

/* An object's class as the walks need it: its id, module, TypeDef, type
 * arguments and full name. */
typedef struct obj_class {
    ClassID cls;
    const ct_module *m;
    mdTypeDef td;
    ClassID args[CT_MAX_TYPE_ARGS];
    ULONG32 nargs;
    char full[CT_NAME_MAX * 3];
} obj_class;

/* The class of object obj (not 0); -1 when it cannot be described. Outside
 * a callback (the IL engine's probes) the runtime does not answer
 * GetClassFromObject: the class is then the object's MethodTable word. */
static int class_of_object(uint64_t obj, obj_class *o)
{
    ICorProfilerInfo *info = g_ct.info;
    ModuleID mod = 0;
    o->cls = 0;
    if (FAILED(info->lpVtbl->GetClassFromObject(info, (ObjectID)obj, &o->cls)))
        memcpy(&o->cls, (const void *)(uintptr_t)obj, sizeof o->cls);
    if (!o->cls || FAILED(info->lpVtbl->GetClassIDInfo2(info, o->cls, &mod, &o->td, NULL,
                                                       CT_MAX_TYPE_ARGS, &o->nargs, o->args)) ||
        o->nargs > CT_MAX_TYPE_ARGS)
        return -1;
    o->m = ct_module_get(mod);
    if (!o->m || !o->m->mdi || ct_typedef_name(o->m, o->td, 1, o->full, sizeof o->full) != 0)
        return -1;
    return 0;
}

/* The object reference at offset off of object obj. */
static uint64_t ref_at(uint64_t obj, uint32_t off)
{
    uint64_t ref;
    memcpy(&ref, (const void *)(uintptr_t)(obj + off), 8);
    return ref;
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
        c->wait_at = q.items + 1;
        return NULL;
    }
    obj_class n;
    if (class_of_object(node, &n) != 0 || n.nargs != 1 ||
        strcmp(n.full, "System.Collections.Generic.LinkedListNode`1") != 0 ||
        ct_pl_plan_fields(c, n.cls, n.m, n.td, n.args, n.nargs, 1, 1, f, 8, &nf, &size) < 0)
        return NULL;
    const ct_field *next = field_of(f, nf, "next", CT_V_OBJECT);
    int64_t item = field_at(f, nf, "item");
    if (!next || item < 0)
        return NULL;
    q.node_class = n.cls;
    q.entry_next = next->offset;
    q.entry_value = (uint32_t)item;
    const ct_plan *elem = ct_pl_elem_plan(c, args[0], struct_levels(), CT_MAX_VALUE_DEPTH);
    return elem ? list_plan(&q, elem, tname) : NULL;
}

/* The offset of the field among fields[0..n) named `name` or, an
 * auto-property's, named by its property, of plan kind `kind`; -1 when
 * none. */
static int64_t named_field(const ct_field *fields, uint32_t n, const char *name, ct_vkind kind)
{
    const ct_field *f = field_of(fields, n, name, kind);
    return f ? (int64_t)f->offset : -1;
}

/* The fields of cls or of the first of its bases that declares a field
 * named `name` (at most CONTENT_MAX_BASES up): 0, or -1. */
static int fields_declaring(pctx *c, ClassID cls, const char *name, ct_field *f, uint32_t cap,
                            uint32_t *nf)
{
    ICorProfilerInfo *info = g_ct.info;
    for (uint32_t up = 0; cls && up <= CONTENT_MAX_BASES; up++) {
        ClassID parent = 0, args[CT_MAX_TYPE_ARGS];
        ModuleID mod = 0;
        mdTypeDef td = 0;
        ULONG32 nargs = 0;
        uint32_t size = 0;
        const ct_module *m;
        if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, &td, &parent, CT_MAX_TYPE_ARGS,
                                                 &nargs, args)) ||
            nargs > CT_MAX_TYPE_ARGS || !(m = ct_module_get(mod)) || !m->mdi)
            return -1;
        if (ct_pl_plan_fields(c, cls, m, td, args, nargs, 1, 1, f, cap, nf, &size) >= 0)
            for (uint32_t i = 0; i < *nf; i++)
                if (!strcmp(f[i].name, name))
                    return 0;
        cls = parent;
    }
    return -1;
}

/* A ConcurrentDictionary<K,V> (CT_WALK_BUCKETS): _tables, and in the
 * Tables object _buckets (VolatileNode[], each a Node reference) and
 * _countPerLock; the Node class (_key, _value, _next) learned from the first
 * node in the buckets: NULL with *again set while there is none; NULL when
 * laid out otherwise (then field by field). */
static const ct_plan *plan_buckets(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                   const ClassID *args, uint32_t nargs, const char *tname,
                                   const uint8_t *obj, int *again)
{
    ICorProfilerInfo *info = g_ct.info;
    ct_field f[16];
    uint32_t nf = 0, size = 0;
    if (nargs != 2 || ct_pl_plan_fields(c, cls, m, td, args, nargs, 1, 1, f, 16, &nf, &size) < 0)
        return NULL;
    ct_seq q = {.walk = CT_WALK_BUCKETS};
    int64_t tables_at = named_field(f, nf, "_tables", CT_V_OBJECT);
    if (tables_at < 0)
        return NULL;
    q.items = (uint32_t)tables_at;
    uint64_t tables = ref_at((uint64_t)(uintptr_t)obj, q.items);
    obj_class t;
    if (!tables) {
        *again = 1;
        c->wait_at = q.items + 1;
        return NULL;
    }
    if (class_of_object(tables, &t) != 0 ||
        ct_pl_plan_fields(c, t.cls, t.m, t.td, t.args, t.nargs, 1, 1, f, 16, &nf, &size) < 0)
        return NULL;
    int64_t buckets_at = named_field(f, nf, "_buckets", CT_V_OBJECT);
    int64_t counts_at = named_field(f, nf, "_countPerLock", CT_V_OBJECT);
    if (buckets_at < 0 || counts_at < 0)
        return NULL;
    q.head = (uint32_t)buckets_at;
    q.count = (uint32_t)counts_at;
    /* The buckets' element: a struct of one node reference (VolatileNode),
     * or the reference itself. */
    uint64_t buckets = ref_at(tables, q.head);
    ClassID acls = 0, ecls = 0;
    CorElementType et = 0;
    ULONG rank = 0;
    if (!buckets)
        return NULL;
    if (FAILED(info->lpVtbl->GetClassFromObject(info, (ObjectID)buckets, &acls)))
        memcpy(&acls, (const void *)(uintptr_t)buckets, sizeof acls);
    if (!acls || info->lpVtbl->IsArrayClass(info, acls, &et, &ecls, &rank) != S_OK || rank != 1)
        return NULL;
    q.entry_size = 8;
    if (et == CLRSIG_ET_VALUETYPE) {
        obj_class e = {.cls = ecls};
        ModuleID mod = 0;
        if (!ecls || FAILED(info->lpVtbl->GetClassIDInfo2(info, ecls, &mod, &e.td, NULL,
                                                         CT_MAX_TYPE_ARGS, &e.nargs, e.args)) ||
            e.nargs > CT_MAX_TYPE_ARGS || !(e.m = ct_module_get(mod)) || !e.m->mdi ||
            ct_pl_plan_fields(c, ecls, e.m, e.td, e.args, e.nargs, 1, 1, f, 16, &nf, &size) < 0 ||
            nf != 1 || f[0].offset != 0 || f[0].plan->kind != CT_V_OBJECT || size != 8)
            return NULL;
    } else if (et != CLRSIG_ET_CLASS) {
        return NULL;
    }
    uint32_t length;
    memcpy(&length, (const uint8_t *)(uintptr_t)buckets + CT_SZARRAY_LENGTH_OFFSET, 4);
    const uint8_t *data = (const uint8_t *)(uintptr_t)buckets + CT_SZARRAY_DATA_OFFSET;
    uint64_t node = 0;
    for (uint32_t i = 0; i < length && !node; i++)
        memcpy(&node, data + (size_t)i * 8, 8);
    if (!node) {
        *again = 1;
        return NULL;
    }
    obj_class n;
    if (class_of_object(node, &n) != 0 ||
        ct_pl_plan_fields(c, n.cls, n.m, n.td, n.args, n.nargs, 1, 1, f, 16, &nf, &size) < 0)
        return NULL;
    int64_t key = field_at(f, nf, "_key"), value = field_at(f, nf, "_value");
    int64_t next = named_field(f, nf, "_next", CT_V_OBJECT);
    if (key < 0 || value < 0 || next < 0)
        return NULL;
    q.node_class = n.cls;
    q.entry_key = (uint32_t)key;
    q.entry_value = (uint32_t)value;
    q.entry_next = (uint32_t)next;
    unsigned sl = struct_levels();
    const ct_plan *k = ct_pl_elem_plan(c, args[0], sl, CT_MAX_VALUE_DEPTH);
    const ct_plan *v = ct_pl_elem_plan(c, args[1], sl, CT_MAX_VALUE_DEPTH);
    return k && v ? seq_plan(&q, CT_SEQ_DICT, v, k, tname) : NULL;
}

/* The binary search trees walked in order (CT_WALK_TREE): the collection's
 * full name, its shape, the field that holds the tree's owner (or NULL),
 * the owner's root and count fields, the node's element, children and
 * flags. Auto-properties' fields go by their property's name. */
typedef struct tree_kind {
    const char *full;
    ct_seq_shape shape;
    const char *outer;
    const char *root, *count;
    const char *item, *left, *right;
    uint32_t flags;
} tree_kind;

static const tree_kind k_trees[] = {
    {"System.Collections.Generic.SortedSet`1", CT_SEQ_SET, NULL, "root", "count", "Item", "Left",
     "Right", 0},
    {"System.Collections.Generic.SortedDictionary`2", CT_SEQ_DICT, "_set", "root", "count", "Item",
     "Left", "Right", 0},
    {"System.Collections.Immutable.ImmutableList`1", CT_SEQ_LIST, NULL, "_root", "_count", "_key",
     "_left", "_right", CT_TREE_COUNT_IN_ROOT | CT_TREE_EMPTY_SENTINEL},
    {"System.Collections.Immutable.ImmutableSortedSet`1", CT_SEQ_SET, NULL, "_root", "_count",
     "_key", "_left", "_right", CT_TREE_COUNT_IN_ROOT | CT_TREE_EMPTY_SENTINEL},
};

/* A tree collection's plan; NULL with *again set while its root (or owner)
 * is not there yet; NULL when laid out otherwise (then field by field). */
static const ct_plan *plan_tree(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                const char *full, const ClassID *args, uint32_t nargs,
                                const char *tname, const uint8_t *obj, int *again)
{
    const tree_kind *k = NULL;
    for (size_t i = 0; i < sizeof k_trees / sizeof *k_trees && !k; i++)
        if (!strcmp(full, k_trees[i].full))
            k = &k_trees[i];
    int dict = k && k->shape == CT_SEQ_DICT;
    if (!k || nargs != (dict ? 2u : 1u))
        return NULL;
    ct_field *f = malloc(STRUCT_MAX_FIELDS * sizeof *f);
    const ct_plan *result = NULL;
    uint32_t nf = 0, size = 0;
    if (!f || ct_pl_plan_fields(c, cls, m, td, args, nargs, 1, 1, f, 16, &nf, &size) < 0)
        goto done;
    ct_seq q = {.walk = CT_WALK_TREE, .outer = CT_SEQ_NO_OUTER, .flags = k->flags};
    uint64_t owner = (uint64_t)(uintptr_t)obj;
    if (k->outer) {
        /* SortedDictionary: its TreeSet<KeyValuePair<K,V>> _set. */
        int64_t at = named_field(f, nf, k->outer, CT_V_OBJECT);
        obj_class o;
        if (at < 0)
            goto done;
        q.outer = (uint32_t)at;
        owner = ref_at(owner, q.outer);
        if (!owner) {
            *again = 1;
            c->wait_at = q.outer + 1;
            goto done;
        }
        /* TreeSet<T>'s fields are its base SortedSet<T>'s. */
        if (class_of_object(owner, &o) != 0 || fields_declaring(c, o.cls, k->root, f, 16, &nf) < 0)
            goto done;
    }
    int64_t root = named_field(f, nf, k->root, CT_V_OBJECT);
    int64_t count = (k->flags & CT_TREE_COUNT_IN_ROOT) ? 0 : named_field(f, nf, k->count, CT_V_I4);
    if (root < 0 || count < 0)
        goto done;
    q.items = (uint32_t)root;
    uint64_t node = ref_at(owner, q.items);
    if (!node) {
        *again = 1;
        if (!k->outer) /* the root's reference is the object's own */
            c->wait_at = q.items + 1;
        goto done;
    }
    obj_class n;
    if (class_of_object(node, &n) != 0 ||
        ct_pl_plan_fields(c, n.cls, n.m, n.td, n.args, n.nargs, struct_levels() + 1,
                          CT_MAX_VALUE_DEPTH, f, STRUCT_MAX_FIELDS, &nf, &size) < 0)
        goto done;
    int64_t left = named_field(f, nf, k->left, CT_V_OBJECT);
    int64_t right = named_field(f, nf, k->right, CT_V_OBJECT);
    const ct_field *item = NULL;
    for (uint32_t i = 0; i < nf && !item; i++)
        if (!strcmp(f[i].name, k->item))
            item = &f[i];
    if (k->flags & CT_TREE_COUNT_IN_ROOT)
        count = named_field(f, nf, k->count, CT_V_I4);
    if (left < 0 || right < 0 || !item || count < 0)
        goto done;
    q.count = (uint32_t)count;
    q.node_class = n.cls;
    q.left = (uint32_t)left;
    q.right = (uint32_t)right;
    q.entry_value = item->offset;
    unsigned sl = struct_levels();
    if (dict) {
        /* The element is a KeyValuePair<K,V>: its key and value fields. */
        const ct_plan *kv = item->plan;
        int64_t kat = -1, vat = -1;
        if (kv->kind != CT_V_STRUCT)
            goto done;
        for (uint32_t i = 0; i < kv->count; i++) {
            if (!strcmp(kv->fields[i].name, "key"))
                kat = kv->fields[i].offset;
            else if (!strcmp(kv->fields[i].name, "value"))
                vat = kv->fields[i].offset;
        }
        if (kat < 0 || vat < 0)
            goto done;
        q.entry_key = item->offset + (uint32_t)kat;
        q.entry_value = item->offset + (uint32_t)vat;
    }
    const ct_plan *e = ct_pl_elem_plan(c, args[dict ? 1 : 0], sl, CT_MAX_VALUE_DEPTH);
    const ct_plan *key = dict ? ct_pl_elem_plan(c, args[0], sl, CT_MAX_VALUE_DEPTH) : NULL;
    if (e && (!dict || key))
        result = seq_plan(&q, k->shape, e, key, tname);
done:
    free(f);
    return result;
}

/* The key and value offsets of a KeyValuePair<K,V> (class kv): 0, or -1. */
static int pair_offsets(pctx *c, ClassID kv, uint32_t *key, uint32_t *value)
{
    ICorProfilerInfo *info = g_ct.info;
    ClassID args[CT_MAX_TYPE_ARGS];
    ModuleID mod = 0;
    mdTypeDef td = 0;
    ULONG32 nargs = 0;
    const ct_module *m;
    ct_field f[4];
    uint32_t nf = 0, size = 0;
    if (!kv || FAILED(info->lpVtbl->GetClassIDInfo2(info, kv, &mod, &td, NULL, CT_MAX_TYPE_ARGS,
                                                   &nargs, args)) ||
        nargs != 2 || !(m = ct_module_get(mod)) || !m->mdi ||
        ct_pl_plan_fields(c, kv, m, td, args, nargs, 1, 1, f, 4, &nf, &size) < 0)
        return -1;
    int64_t k = field_at(f, nf, "key"), v = field_at(f, nf, "value");
    if (k < 0 || v < 0)
        return -1;
    *key = (uint32_t)k;
    *value = (uint32_t)v;
    return 0;
}

/* ImmutableDictionary<K,V> (DICT) and ImmutableHashSet<T> (SET): a tree
 * (SortedInt32KeyNode, by hash) of hash buckets, each its first element
 * and an ImmutableList node tree of the others; _root and _count. The
 * bucket's layout is learned from the root's: NULL with *again set while
 * the collection is empty; NULL when laid out otherwise. */
static const ct_plan *plan_hash_tree(pctx *c, ClassID cls, const ct_module *m, mdTypeDef td,
                                     const ClassID *args, uint32_t nargs, int dict,
                                     const char *tname, const uint8_t *obj, int *again)
{
    ct_field *f = malloc(STRUCT_MAX_FIELDS * sizeof *f);
    const ct_plan *result = NULL;
    uint32_t nf = 0, size = 0;
    if (!f || nargs != (dict ? 2u : 1u) ||
        ct_pl_plan_fields(c, cls, m, td, args, nargs, 1, 1, f, 16, &nf, &size) < 0)
        goto done;
    ct_seq q = {.walk = CT_WALK_TREE, .outer = CT_SEQ_NO_OUTER, .flags = CT_TREE_EMPTY_SENTINEL};
    ct_seq in = {.walk = CT_WALK_TREE, .outer = CT_SEQ_NO_OUTER, .flags = CT_TREE_EMPTY_SENTINEL};
    int64_t root_at = named_field(f, nf, "_root", CT_V_OBJECT);
    int64_t count_at = named_field(f, nf, "_count", CT_V_I4);
    if (root_at < 0 || count_at < 0)
        goto done;
    q.items = (uint32_t)root_at;
    q.count = (uint32_t)count_at;
    uint64_t root = ref_at((uint64_t)(uintptr_t)obj, q.items);
    obj_class n;
    if (!root || class_of_object(root, &n) != 0 ||
        ct_pl_plan_fields(c, n.cls, n.m, n.td, n.args, n.nargs, 2, 2, f, 16, &nf, &size) < 0)
        goto done;
    int64_t left = named_field(f, nf, "_left", CT_V_OBJECT);
    int64_t right = named_field(f, nf, "_right", CT_V_OBJECT);
    const ct_field *bucket = field_of(f, nf, "_value", CT_V_STRUCT);
    if (left < 0 || right < 0 || !bucket)
        goto done;
    if (!ref_at(root, (uint32_t)left)) {
        *again = 1; /* the empty node: no bucket to learn from */
        goto done;
    }
    q.node_class = n.cls;
    q.left = (uint32_t)left;
    q.right = (uint32_t)right;
    /* The bucket's own fields (its plan's: f is used again below). */
    const uint32_t bucket_at = bucket->offset;
    const ct_field *first = NULL, *others = NULL;
    for (uint32_t i = 0; i < bucket->plan->count; i++) {
        const ct_field *bf = &bucket->plan->fields[i];
        if (!strcmp(bf->name, "_firstValue"))
            first = bf;
        else if (!strcmp(bf->name, "_additionalElements") && bf->plan->kind == CT_V_OBJECT)
            others = bf;
    }
    if (!first || !others)
        goto done;
    in.items = bucket_at + others->offset;
    uint64_t list = ref_at(root, in.items);
    obj_class l;
    if (!list || class_of_object(list, &l) != 0 || l.nargs != 1 ||
        ct_pl_plan_fields(c, l.cls, l.m, l.td, l.args, l.nargs, 1, 1, f, 16, &nf, &size) < 0)
        goto done;
    int64_t ikey = field_at(f, nf, "_key");
    int64_t ileft = named_field(f, nf, "_left", CT_V_OBJECT);
    int64_t iright = named_field(f, nf, "_right", CT_V_OBJECT);
    if (ikey < 0 || ileft < 0 || iright < 0)
        goto done;
    in.node_class = l.cls;
    in.left = (uint32_t)ileft;
    in.right = (uint32_t)iright;
    uint32_t first_at = bucket_at + first->offset, kat = 0, vat = 0;
    if (dict && pair_offsets(c, l.args[0], &kat, &vat) != 0)
        goto done;
    q.entry_key = first_at + kat;
    q.entry_value = first_at + vat;
    in.entry_key = (uint32_t)ikey + kat;
    in.entry_value = (uint32_t)ikey + vat;
    ct_seq *inner = ct_perm_alloc(sizeof *inner);
    if (!inner)
        goto done;
    *inner = in;
    q.inner = inner;
    unsigned sl = struct_levels();
    const ct_plan *e = ct_pl_elem_plan(c, args[dict ? 1 : 0], sl, CT_MAX_VALUE_DEPTH);
    const ct_plan *key = dict ? ct_pl_elem_plan(c, args[0], sl, CT_MAX_VALUE_DEPTH) : NULL;
    if (e && (!dict || key))
        result = seq_plan(&q, dict ? CT_SEQ_DICT : CT_SEQ_SET, e, key, tname);
done:
    free(f);
    return result;
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
    {"System.Reflection.RuntimeMethodInfo", CT_FORM_METHOD, {"m_handle"}, 1},
    {"System.Reflection.RuntimeConstructorInfo", CT_FORM_METHOD, {"m_handle"}, 1},
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
    case CT_FORM_METHOD:
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

/* An exception (trace format 2.8, CT_FORM_EXCEPTION): System.Exception's
 * _message as Message, then _innerException as InnerException or, for an
 * AggregateException of .NET 9 on, its Exception[] _innerExceptions as
 * InnerExceptions, an array value (not an object of its own: the inner
 * exceptions are one object level down, as an inner exception is; before
 * .NET 9 a ReadOnlyCollection, not read: the aggregate then shows its own
 * message and its first inner exception). chain[0..top] are the levels from
 * the class down to System.Exception (chain[top]). Without those fields:
 * the message alone, field by field. */
static const ct_plan *plan_exception(pctx *c, const level *chain, uint32_t top,
                                     const char *tname)
{
    const level *l = &chain[top];
    ct_field f[STRUCT_MAX_FIELDS];
    uint32_t nf = 0, size = 0;
    if (ct_pl_plan_fields(c, l->cls, l->m, l->td, l->args, l->nargs, 1, 1, f, STRUCT_MAX_FIELDS,
                          &nf, &size) < 0)
        return NULL;
    const ct_field *msg = field_of(f, nf, "_message", CT_V_STRING);
    const ct_field *inner = field_of(f, nf, "_innerException", CT_V_OBJECT);
    if (!msg)
        return NULL;
    ct_field got[2] = {{.name = "Message", .offset = msg->offset, .plan = msg->plan}};
    uint32_t n = 1;
    if (inner)
        got[n++] = (ct_field){.name = "InnerException", .offset = inner->offset,
                              .plan = inner->plan};
    for (uint32_t i = 0; inner && i < top; i++) {
        char full[CT_NAME_MAX * 3];
        const level *a = &chain[i];
        if (!a->m || !a->m->corelib || !a->m->mdi ||
            ct_typedef_name(a->m, a->td, 1, full, sizeof full) != 0 ||
            strcmp(full, "System.AggregateException") != 0)
            continue;
        ct_field af[8];
        uint32_t anf = 0, asize = 0;
        const ct_field *list = NULL;
        if (ct_pl_plan_fields(c, a->cls, a->m, a->td, a->args, a->nargs, 1, 1, af, 8, &anf,
                              &asize) >= 0)
            list = field_of(af, anf, "_innerExceptions", CT_V_OBJECT);
        const ct_plan *elem = list ? ct_pl_elem_plan(c, l->cls, 1, 1) : NULL;
        if (elem && elem->kind == CT_V_OBJECT && list->plan->type_name &&
            strchr(list->plan->type_name, '[')) {
            ct_plan ap = {.kind = CT_V_ARRAY, .size = 8, .type_name = list->plan->type_name,
                          .elem = elem};
            const ct_plan *arr = ct_pl_new_plan(&ap);
            if (arr)
                got[1] = (ct_field){.name = "InnerExceptions", .offset = list->offset,
                                    .plan = arr};
        }
        break;
    }
    uint32_t end = 8;
    for (uint32_t i = 0; i < n; i++)
        if (got[i].offset + got[i].plan->size > end)
            end = got[i].offset + got[i].plan->size;
    ct_field *fields = ct_perm_alloc(n * sizeof *fields);
    if (!fields)
        return NULL;
    memcpy(fields, got, n * sizeof *fields);
    ct_plan p = {.kind = CT_V_CLASS, .size = end, .type_name = ct_pl_perm_text(tname),
                 .count = n, .fields = fields,
                 .shape = (uint8_t)(n > 1 ? CT_FORM_EXCEPTION : CT_FORM_FIELDS)};
    return ct_pl_new_plan(&p);
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
    /* A Task's exception, last: found by the capture (values.c), when it
     * faulted or was cancelled (value.h, CT_TASK_EXCEPTION_FIELD). */
    static const ct_plan exception_plan = {.kind = CT_V_OBJECT, .size = 8,
                                           .type_name = "Exception"};
    if (k->form == CT_FORM_TASK && n < FORM_MAX_FIELDS)
        got[n++] = (ct_field){.name = CT_TASK_EXCEPTION_FIELD, .offset = CT_FIELD_FOUND,
                              .plan = &exception_plan};
    for (uint32_t i = 0; i < n; i++)
        if (got[i].offset != CT_FIELD_FOUND && got[i].offset + got[i].plan->size > end)
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
            result = plan_exception(c, chain, levels, tname);
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
    if (!strcmp(full, "System.Collections.Concurrent.ConcurrentDictionary`2")) {
        const ct_plan *b = plan_buckets(c, cls, m, td, args, nargs, tname, obj, again);
        if (b || *again)
            return b;
    }
    const ct_plan *t = plan_tree(c, cls, m, td, full, args, nargs, tname, obj, again);
    if (t || *again)
        return t;
    int idict = !strcmp(full, "System.Collections.Immutable.ImmutableDictionary`2");
    if (idict || !strcmp(full, "System.Collections.Immutable.ImmutableHashSet`1")) {
        t = plan_hash_tree(c, cls, m, td, args, nargs, idict, tname, obj, again);
        if (t || *again)
            return t;
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
    /* A class whose plan waits for an object with content (an empty
     * collection's: its layout is learned from its items): while the
     * reference that made it wait is null in the objects met, they are
     * empty too, and nothing is planned again (planning is names and
     * metadata reads: the C# compiler met about 20 000 empty collections). */
    pthread_mutex_lock(&g_lock);
    const ct_plan *p = ct_table_get_key(&g_content, (ct_key){cls, 0});
    uintptr_t wait_at = p ? 0 : (uintptr_t)ct_table_get_key(&g_content, (ct_key){cls, WAITING});
    pthread_mutex_unlock(&g_lock);
    if (p)
        return p == &k_no_content ? NULL : p;
    if (wait_at && ref_at((uint64_t)(uintptr_t)obj, (uint32_t)(wait_at - 1)) == 0) {
        *again = (int)wait_at;
        return NULL;
    }
    session ss = {0};
    pctx *c = ct_pl_open(&ss, NULL, 0);
    if (!c) {
        *again = -1;
        return NULL;
    }
    p = build(c, cls, obj, again);
    uint32_t waits = *again ? c->wait_at : 0;
    ct_pl_close(&ss, c);
    if (*again) {
        *again = waits ? (int)waits : -1;
        if (waits) {
            pthread_mutex_lock(&g_lock);
            ct_table_put_key(&g_content, (ct_key){cls, WAITING}, (void *)(uintptr_t)waits);
            pthread_mutex_unlock(&g_lock);
        }
        return NULL;
    }
    p = remember(cls, p ? p : &k_no_content);
    return p == &k_no_content ? NULL : p;
}

const ct_plan *ct_plan_content_known(ClassID cls)
{
    const ct_plan *p = cls ? cached(cls) : NULL;
    return p == &k_no_content ? NULL : p;
}
