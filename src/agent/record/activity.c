/* The Activity current on a thread, read in the hook (skeletons.h,
 * ct_rec_activity): no managed code, no allocation, bounded hops, every
 * object's class checked. The path, as dotnet/runtime lays it out
 * (System.Private.CoreLib's Thread.cs, ExecutionContext.cs,
 * AsyncLocal.cs; System.Diagnostics.DiagnosticSource's Activity.cs):
 *
 *   the thread's managed Thread object: held by the runtime's handle
 *     (the runtime's Thread, the ThreadID, at exposed_offset: both engines),
 *     else [ThreadStatic] Thread.t_currentThread  (GetThreadStaticAddress2:
 *     the ELT engine's hooks only, see thread_slot)
 *     -> Thread._executionContext                 (null: the default context)
 *     -> ExecutionContext.m_localValues           (an IAsyncLocalValueMap)
 *     -> the map's entries: One/Two/Three/FourElementAsyncLocalValueMap
 *        (_item0.._item3, KeyValuePair<IAsyncLocal, object> inline, .NET 9
 *        on; _key1/_value1.._key4/_value4 before), MultiElement
 *        (_keyValues, a KeyValuePair[] of at most 16), ManyElement (a
 *        Dictionary: not followed, read as no Activity)
 *     -> the entry whose key is an AsyncLocal<Activity> (Activity.s_current)
 *     -> its value, an Activity (or a class derived from it)
 *     -> Activity._traceId (32 hex digits) and _spanId (16), strings; when
 *        the trace id is not set yet, the parent's (<Parent>k__BackingField),
 *        at most ACT_MAX_PARENTS up.
 *
 * Thread's ClassID, its field's token and where the runtime's Thread
 * keeps the handle are learned once, off the hooks (at a JIT or ReJIT
 * compilation or a thread's start after the first traced call, or an
 * attach session's start: ct_activity_learn); the other classes are
 * recognised by name when the hook first meets their method table, then
 * cached. Object addresses are read in the hook only (cooperative mode: no
 * GC moves them meanwhile); the handle is kept per thread for its life,
 * the address of the thread static and the ExecutionContext the ids were
 * read from until the next GC (ct_activity_gc: the runtime's
 * GarbageCollectionStarted). */
#include "internal.h"

#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/model/modules.h"
#include "agent/model/utf16.h"

ct_activity_state g_act CT_REC_HIDDEN;

/* What a method table is, as far as the walk cares. */
enum {
    ACT_OTHER = 1,
    ACT_EC,          /* System.Threading.ExecutionContext */
    ACT_MAP_EMPTY,
    ACT_MAP_ITEMS,   /* _item0.._item3 (KeyValuePair inline) */
    ACT_MAP_PAIRS,   /* _key1/_value1.._key4/_value4 */
    ACT_MAP_MULTI,   /* _keyValues: KeyValuePair[] */
    ACT_KEY,         /* AsyncLocal<Activity> */
    ACT_ACTIVITY,    /* System.Diagnostics.Activity or derived */
};

#define ACT_CLASSES 64          /* method tables remembered (a power of two) */
#define ACT_MAX_ENTRIES 16      /* a MultiElement map's most (MaxMultiElements) */
#define ACT_MAX_PARENTS 8
#define ACT_MAX_BASES 16
#define ACT_NO_FIELD CT_REC_NO_FIELD
#define ACT_RETRY_CALLS 256     /* a thread without a Thread object yet: calls between looks */
#define ACT_THREAD_SCAN 4096    /* bytes of the runtime's Thread searched for its handle */
#define ACT_LEARN_THREADS 64    /* threads the runtime lists, asked to learn it */

typedef struct act_class {
    _Atomic(uintptr_t) mt;      /* 0: free */
    _Atomic int kind;           /* 0 while being filled */
    uint32_t n;                 /* map entries */
    uint32_t off[8];            /* by kind: EC {m_localValues}; ITEMS {item i};
                                   PAIRS {key i, value i}; MULTI {_keyValues};
                                   ACTIVITY {_traceId, _spanId, parent} */
} act_class;

static act_class g_classes[ACT_CLASSES];

/* The offsets of class cls's own fields named names[0..n) (ACT_NO_FIELD:
 * none), each of size bytes (8 a reference, 16 a KeyValuePair of two). */
static void act_fields(ClassID cls, const char *const *names, uint32_t *offsets, int n,
                       uint32_t size)
{
    ct_rec_field_offsets(cls, names, offsets, n, size);
}

/* Class cls's module and full name ("System.Threading.AsyncLocal`1"). */
static int act_name(ClassID cls, const ct_module **m, char *name, size_t cap, ClassID *parent,
                    ClassID *arg)
{
    ModuleID mod = 0;
    mdTypeDef td = 0;
    ULONG32 nargs = 0;
    ClassID args[1] = {0};
    if (FAILED(g_ct.info->lpVtbl->GetClassIDInfo2(g_ct.info, cls, &mod, &td, parent, 1, &nargs,
                                                  args)) ||
        !(*m = ct_module_get(mod)) || ct_typedef_name(*m, td, 1, name, cap) != 0)
        return -1;
    *arg = nargs ? args[0] : 0;
    return 0;
}

static int act_kind_of(uintptr_t mt);
static void learn_class(void);

/* Recognises class cls (the method table of an object met in the walk). */
static int act_classify(act_class *c, ClassID cls)
{
    static const char map_ns[] = "System.Threading.AsyncLocalValueMap.";
    const ct_module *m = NULL;
    char name[256];
    ClassID parent = 0, arg = 0;
    if (act_name(cls, &m, name, sizeof name, &parent, &arg) != 0)
        return ACT_OTHER;
    if (m->corelib && !strcmp(name, "System.Threading.ExecutionContext")) {
        static const char *const f[] = {"m_localValues"};
        act_fields(cls, f, c->off, 1, 8);
        return c->off[0] == ACT_NO_FIELD ? ACT_OTHER : ACT_EC;
    }
    if (m->corelib && !strncmp(name, map_ns, sizeof map_ns - 1)) {
        const char *k = name + sizeof map_ns - 1;
        static const char *const kinds[] = {"One", "Two", "Three", "Four"};
        if (!strcmp(k, "EmptyAsyncLocalValueMap"))
            return ACT_MAP_EMPTY;
        if (!strcmp(k, "MultiElementAsyncLocalValueMap")) {
            static const char *const f[] = {"_keyValues"};
            act_fields(cls, f, c->off, 1, 8);
            return c->off[0] == ACT_NO_FIELD ? ACT_OTHER : ACT_MAP_MULTI;
        }
        for (uint32_t n = 1; n <= 4; n++) {
            size_t kl = strlen(kinds[n - 1]);
            if (strncmp(k, kinds[n - 1], kl) || strcmp(k + kl, "ElementAsyncLocalValueMap"))
                continue;
            static const char *const items[] = {"_item0", "_item1", "_item2", "_item3"};
            static const char *const pairs[] = {"_key1", "_key2", "_key3", "_key4",
                                                "_value1", "_value2", "_value3", "_value4"};
            c->n = n;
            act_fields(cls, items, c->off, (int)n, 16);
            int ok = 1;
            for (uint32_t i = 0; i < n; i++)
                ok &= c->off[i] != ACT_NO_FIELD;
            if (ok)
                return ACT_MAP_ITEMS;
            uint32_t off[8];
            act_fields(cls, pairs, off, 8, 8);
            ok = 1;
            for (uint32_t i = 0; i < n; i++) {
                c->off[i] = off[i];
                c->off[4 + i] = off[4 + i];
                ok &= off[i] != ACT_NO_FIELD && off[4 + i] != ACT_NO_FIELD;
            }
            return ok ? ACT_MAP_PAIRS : ACT_OTHER;
        }
        return ACT_OTHER;
    }
    if (m->corelib && !strcmp(name, "System.Threading.AsyncLocal`1"))
        return arg && act_kind_of((uintptr_t)arg) == ACT_ACTIVITY ? ACT_KEY : ACT_OTHER;
    /* System.Diagnostics.Activity, or a class derived from it. */
    for (int i = 0; i < ACT_MAX_BASES && cls; i++) {
        if (!strcmp(name, "System.Diagnostics.Activity")) {
            static const char *const f[] = {"_traceId", "_spanId", "<Parent>k__BackingField"};
            act_fields(cls, f, c->off, 3, 8);
            return c->off[0] == ACT_NO_FIELD || c->off[1] == ACT_NO_FIELD ? ACT_OTHER
                                                                          : ACT_ACTIVITY;
        }
        cls = parent;
        if (!cls || act_name(cls, &m, name, sizeof name, &parent, &arg) != 0)
            break;
    }
    return ACT_OTHER;
}

/* The entry of method table mt (learned at its first sight), or NULL when
 * the table is full. */
static const act_class *act_class_of(uintptr_t mt)
{
    if (!mt)
        return NULL;
    uint32_t h = (uint32_t)((mt >> 3) * 2654435761u) & (ACT_CLASSES - 1);
    for (uint32_t i = 0; i < ACT_CLASSES; i++) {
        act_class *c = &g_classes[(h + i) & (ACT_CLASSES - 1)];
        uintptr_t have = atomic_load_explicit(&c->mt, memory_order_acquire);
        if (have == mt) {
            /* Another thread is filling it in: not known yet. */
            return atomic_load_explicit(&c->kind, memory_order_acquire) ? c : NULL;
        }
        if (have)
            continue;
        uintptr_t none = 0;
        if (!atomic_compare_exchange_strong(&c->mt, &none, mt)) {
            if (none == mt)
                return atomic_load_explicit(&c->kind, memory_order_acquire) ? c : NULL;
            continue;
        }
        int kind = act_classify(c, (ClassID)mt);
        atomic_store_explicit(&c->kind, kind, memory_order_release);
        return c;
    }
    return NULL;
}

static int act_kind_of(uintptr_t mt)
{
    const act_class *c = act_class_of(mt);
    return c ? atomic_load_explicit(&c->kind, memory_order_relaxed) : 0;
}

static inline uintptr_t ref_at(uintptr_t obj, uint32_t off)
{
    uintptr_t v;
    memcpy(&v, (const void *)(obj + off), 8);
    return v;
}

static inline uintptr_t mt_of(uintptr_t obj)
{
    return obj ? ref_at(obj, 0) : 0;
}

/* The hex digits of string s (exactly 2 n of them) as n bytes: 1, or 0
 * when s is null or not that. */
static int hex_string(uintptr_t s, uint8_t *out, uint32_t n)
{
    if (!s)
        return 0;
    int32_t len;
    memcpy(&len, (const void *)(s + g_rec.layout.string_length_offset), 4);
    if (len != (int32_t)(2 * n))
        return 0;
    const uint8_t *p = (const uint8_t *)(s + g_rec.layout.string_chars_offset);
    for (uint32_t i = 0; i < 2 * n; i++) {
        uint16_t ch;
        memcpy(&ch, p + 2 * i, 2);
        int d = ch >= '0' && ch <= '9' ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            return 0;
        if (i & 1)
            out[i / 2] = (uint8_t)(out[i / 2] | d);
        else
            out[i / 2] = (uint8_t)(d << 4);
    }
    return 1;
}

/* The ids of Activity a (trace id, span id) into ids: 1, or 0 when it has
 * none (not a W3C activity). */
static int activity_ids(uintptr_t a, const act_class *c, uint8_t *ids)
{
    if (!hex_string(ref_at(a, c->off[1]), ids + CT_TRACE_ID_BYTES, CT_SPAN_ID_BYTES))
        return 0;
    for (int hop = 0; a && hop <= ACT_MAX_PARENTS; hop++) {
        const act_class *ac = act_class_of(mt_of(a));
        if (!ac || atomic_load_explicit(&ac->kind, memory_order_relaxed) != ACT_ACTIVITY)
            return 0;
        if (hex_string(ref_at(a, ac->off[0]), ids, CT_TRACE_ID_BYTES))
            return 1;
        a = ac->off[2] == ACT_NO_FIELD ? 0 : ref_at(a, ac->off[2]);
    }
    return 0;
}

/* The value of map entry (key, value) when key is Activity.s_current and
 * value an Activity: its ids into ids, 1; 0 not this entry; -1 unknown
 * (a class not learned). */
static int entry(uintptr_t key, uintptr_t value, uint8_t *ids)
{
    if (!key)
        return 0;
    int k = act_kind_of(mt_of(key));
    if (!k)
        return -1;
    if (k != ACT_KEY)
        return 0;
    if (!value)
        return 1; /* Activity.Current is null: no ids */
    const act_class *vc = act_class_of(mt_of(value));
    if (!vc)
        return -1;
    if (atomic_load_explicit(&vc->kind, memory_order_relaxed) == ACT_ACTIVITY &&
        !activity_ids(value, vc, ids))
        memset(ids, 0, CT_ACTIVITY_ID_BYTES);
    return 1;
}

/* The ids of the Activity current in ExecutionContext ec into ids (zero:
 * none): 1, or 0 when they are not known (a class not learned: ask again
 * at the next call). */
static int ec_ids(uintptr_t ec, uint8_t *ids)
{
    memset(ids, 0, CT_ACTIVITY_ID_BYTES);
    if (!ec)
        return 1;
    const act_class *c = act_class_of(mt_of(ec));
    if (!c)
        return 0;
    if (atomic_load_explicit(&c->kind, memory_order_relaxed) != ACT_EC)
        return 1;
    uintptr_t map = ref_at(ec, c->off[0]);
    if (!map)
        return 1;
    const act_class *mc = act_class_of(mt_of(map));
    if (!mc)
        return 0;
    int r = 0;
    switch (atomic_load_explicit(&mc->kind, memory_order_relaxed)) {
    case ACT_MAP_ITEMS:
        for (uint32_t i = 0; i < mc->n && !r; i++)
            r = entry(ref_at(map, mc->off[i]), ref_at(map, mc->off[i] + 8), ids);
        break;
    case ACT_MAP_PAIRS:
        for (uint32_t i = 0; i < mc->n && !r; i++)
            r = entry(ref_at(map, mc->off[i]), ref_at(map, mc->off[4 + i]), ids);
        break;
    case ACT_MAP_MULTI: {
        uintptr_t arr = ref_at(map, mc->off[0]);
        if (!arr)
            break;
        uint32_t n;
        memcpy(&n, (const void *)(arr + g_rec.layout.array_length_offset), 4);
        uintptr_t data = arr + g_rec.layout.array_data_offset;
        for (uint32_t i = 0; i < n && i < ACT_MAX_ENTRIES && !r; i++)
            r = entry(ref_at(data, 16 * i), ref_at(data, 16 * i + 8), ids);
        break;
    }
    default:
        /* Empty, a Dictionary of more than 16 (not followed), or not a map. */
        return 1;
    }
    if (r < 0) {
        memset(ids, 0, CT_ACTIVITY_ID_BYTES);
        return 0;
    }
    return 1;
}

/* Reads the word at addr without faulting (process_vm_readv of this
 * process: a bad address is EFAULT, not SIGSEGV): 1, or 0 when it cannot
 * be read. Off the common path only (learning, a thread's first read). */
static int safe_word(uintptr_t addr, uintptr_t *out)
{
    if (!addr || (addr & 7))
        return 0;
    struct iovec local = {out, sizeof *out}, remote = {(void *)addr, sizeof *out};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof *out;
}

/* Where thread tid's t_currentThread is: 0 when the runtime does not say
 * (not allocated yet, or not asked where it answers: see thread_slot). */
static uintptr_t static_slot(ThreadID tid)
{
    ICorProfilerInfo *info = g_ct.info;
    AppDomainID ad = 0;
    void *addr = NULL;
    if (FAILED(info->lpVtbl->GetThreadAppDomain(info, tid, &ad)) ||
        FAILED(info->lpVtbl->GetThreadStaticAddress2(info, (ClassID)g_act.thread_class,
                                                     (mdFieldDef)g_act.thread_field, ad, tid,
                                                     &addr)))
        return 0;
    return (uintptr_t)addr;
}

/* 1 when obj is the managed Thread object of the runtime's Thread tid:
 * its class is Thread's and its _DONT_USE_InternalThread is tid (read
 * safely: obj may be anything). */
static int thread_object_of(uintptr_t obj, ThreadID tid)
{
    uintptr_t mt = 0, back = 0;
    return safe_word(obj, &mt) && mt == (uintptr_t)g_act.thread_class &&
           safe_word(obj + g_act.internal_offset, &back) && back == (uintptr_t)tid;
}

/* Where this thread's Thread object is held (t->act_handle set when the
 * word is the runtime's handle, kept for the thread's life): 0 when it has
 * none yet, or it cannot be found.
 *
 * The runtime's handle first: the runtime's Thread (the ThreadID) keeps a
 * handle to its managed Thread object (m_ExposedObject, created with the
 * Thread; a GC updates the object it holds), at exposed_offset, learned
 * off the hooks (ct_activity_learn). Checked for each thread once: the
 * object it holds is a Thread whose _DONT_USE_InternalThread is this
 * thread's ThreadID.
 *
 * Else the thread static t_currentThread, whose address only
 * GetThreadStaticAddress2 gives: a "SYNC" entry point of the profiling API
 * (PROFILER_TO_CLR_ENTRYPOINT_SYNC_EX, proftoeeinterfaceimpl.cpp), which
 * answers only on a thread whose callback state says it is inside a
 * callback (COR_PRF_CALLBACKSTATE_INCALLBACK). The runtime's ELT path sets
 * it around the enter/leave hooks (ProfileEnter/ProfileLeave); the IL
 * engine's probes are plain native calls from the rewritten managed code:
 * there it returns CORPROF_E_UNSUPPORTED_CALL_SEQUENCE (0x80131363). The
 * address is of an element of an array on the GC heap: kept until the next
 * GC only. */
static uintptr_t thread_slot(ct_rec_thread *t)
{
    ICorProfilerInfo *info = g_ct.info;
    ThreadID tid = 0;
    if (FAILED(info->lpVtbl->GetCurrentThreadID(info, &tid)) || !tid)
        return 0;
    int exposed = atomic_load_explicit(&g_act.exposed, memory_order_acquire);
    if (exposed == 1) {
        uintptr_t h = 0, obj = 0;
        if (safe_word(tid + g_act.exposed_offset, &h) && safe_word(h, &obj)) {
            if (!obj)
                return 0; /* no Thread object yet */
            if (thread_object_of(obj, tid)) {
                t->act_handle = 1;
                return h;
            }
        }
    } else if (!exposed) {
        /* Off the hooks, learn where the handle is (a callback asks). */
        atomic_store_explicit(&g_act.wanted, 1, memory_order_relaxed);
    }
    return static_slot(tid);
}

/* Tells the writer: from now on, this thread's calls are under ids. */
static void publish(ct_tbuf *b, const uint8_t *ids)
{
    uint8_t *p = ct_ring_reserve(&b->ring, CT_ACTIVITY_RING_BYTES);
    if (!p) {
        ct_tbuf_count_drop(b, 1);
        return;
    }
    ct_event_put_header(p, CT_REC_ACTIVITY, ct_now_ns(), ct_rec_held(b), b->tid, 0);
    ct_event_put_counts(p, 0, CT_ACTIVITY_RING_BYTES - 8);
    memcpy(p + CT_EVENT_BASE_BYTES, ids, CT_ACTIVITY_ID_BYTES);
    ct_ring_commit(&b->ring, CT_ACTIVITY_RING_BYTES);
    memcpy(ct_rec_of(b)->act_ids, ids, CT_ACTIVITY_ID_BYTES);
}

void ct_rec_activity_read(ct_tbuf *b)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (atomic_load_explicit(&g_act.learned, memory_order_acquire) != 1) {
        atomic_store_explicit(&g_act.wanted, 1, memory_order_relaxed);
        return;
    }
    /* Without GC notifications nothing is kept from one call to the next
     * (but the runtime's handle). */
    uint32_t e = g_act.gc_known ? atomic_load_explicit(&g_act.epoch, memory_order_relaxed) + 1
                                : 0;
    if (!e || t->act_slot_epoch != e || !t->act_slot) {
        if (t->act_slot && t->act_handle) {
            /* The handle stays; the objects moved. */
            t->act_slot_epoch = e;
            t->act_ec_epoch = 0;
        } else {
            if (!t->act_slot && t->act_slot_epoch == e && (t->act_retry++ % ACT_RETRY_CALLS))
                return; /* no thread object yet: looked for again every ACT_RETRY_CALLS */
            t->act_handle = 0;
            t->act_slot = thread_slot(t);
            t->act_slot_epoch = e;
            t->act_ec_epoch = 0;
            if (!t->act_slot)
                return;
        }
    }
    uintptr_t th = ref_at(t->act_slot, 0);
    uintptr_t ec = th ? ref_at(th, g_act.ec_offset) : 0;
    if (e && ec == t->act_ec && t->act_ec_epoch == e)
        return;
    uint8_t ids[CT_ACTIVITY_ID_BYTES];
    if (!ec_ids(ec, ids))
        return;
    t->act_ec = ec;
    t->act_ec_epoch = e;
    if (memcmp(ids, t->act_ids, CT_ACTIVITY_ID_BYTES))
        publish(b, ids);
}

void ct_activity_gc(void)
{
    atomic_fetch_add_explicit(&g_act.epoch, 1, memory_order_relaxed);
}

/* What thread tid tells of where the runtime's Thread keeps its handle:
 * 1 learned (exposed_offset), 0 nothing (no Thread object yet, or it moved
 * meanwhile: ask another thread, or another time), -1 no such handle in
 * the first ACT_THREAD_SCAN bytes of the runtime's Thread. Every word is
 * read safely: another thread's objects may move while they are read. */
static int learn_exposed_from(ThreadID tid)
{
    uintptr_t slot = static_slot(tid), obj = 0, again = 0;
    if (!slot || !safe_word(slot, &obj) || !thread_object_of(obj, tid))
        return 0;
    for (uint32_t off = 0; off < ACT_THREAD_SCAN; off += 8) {
        uintptr_t h = 0, v = 0;
        if (!safe_word(tid + off, &h))
            break;
        if (h != obj && safe_word(h, &v) && v == obj) {
            g_act.exposed_offset = off;
            return 1;
        }
    }
    /* Not there; unless obj moved during the scan. */
    return safe_word(slot, &again) && again == obj ? -1 : 0;
}

/* Learns exposed_offset from this thread (a managed thread in a callback,
 * where GetThreadStaticAddress2 answers), else from the others the
 * runtime lists (at most ACT_LEARN_THREADS; a thread the runtime does not
 * know, as an attach session's control thread, passes its check). */
static void learn_exposed(void)
{
    ICorProfilerInfo *info = g_ct.info;
    static const char *const f[] = {"_DONT_USE_InternalThread"};
    uint32_t off = ACT_NO_FIELD;
    act_fields((ClassID)g_act.thread_class, f, &off, 1, 8);
    if (off == ACT_NO_FIELD) {
        atomic_store(&g_act.exposed, -1);
        return;
    }
    g_act.internal_offset = off;
    ThreadID self = 0;
    int r = 0;
    if (SUCCEEDED(info->lpVtbl->GetCurrentThreadID(info, &self)) && self)
        r = learn_exposed_from(self);
    ICorProfilerThreadEnum *en = NULL;
    if (!r && g_ct.info_version >= 4 && SUCCEEDED(info->lpVtbl->EnumThreads(info, &en)) && en) {
        ThreadID ids[ACT_LEARN_THREADS];
        ULONG n = 0;
        if (SUCCEEDED(en->lpVtbl->Next(en, ACT_LEARN_THREADS, ids, &n)))
            for (ULONG i = 0; i < n && i < ACT_LEARN_THREADS && !r; i++)
                if (ids[i] != self)
                    r = learn_exposed_from(ids[i]);
        en->lpVtbl->Release(en);
    }
    if (r)
        atomic_store_explicit(&g_act.exposed, r, memory_order_release);
}

void ct_activity_tick(void)
{
    ct_activity_wanted();
}

void ct_activity_wanted(void)
{
    if (__builtin_expect(atomic_load_explicit(&g_act.wanted, memory_order_relaxed), 0) &&
        (!atomic_load_explicit(&g_act.learned, memory_order_relaxed) ||
         !atomic_load_explicit(&g_act.exposed, memory_order_relaxed)))
        ct_activity_learn();
}

void ct_activity_learn(void)
{
    if (!g_act.on)
        return;
    int busy = 0;
    if (!atomic_compare_exchange_strong(&g_act.learning, &busy, 1))
        return;
    if (!atomic_load(&g_act.learned))
        learn_class();
    if (atomic_load(&g_act.learned) == 1 && !atomic_load(&g_act.exposed))
        learn_exposed();
    atomic_store(&g_act.learning, 0);
}

/* Thread's class, its t_currentThread and _executionContext. */
static void learn_class(void)
{
    ICorProfilerInfo *info = g_ct.info;
    const ct_module *m = ct_corelib(1);
    if (!info || !m || !m->mdi)
        return;
    WCHAR w[64];
    mdTypeDef td = 0;
    mdFieldDef fd = 0;
    ClassID cls = 0;
    if (ct_utf8_to_utf16("System.Threading.Thread", w, 64) < 0 ||
        m->mdi->lpVtbl->FindTypeDefByName(m->mdi, w, 0, &td) != S_OK ||
        ct_typedef_field(m, td, "t_currentThread", &fd) != 0 ||
        FAILED(info->lpVtbl->GetClassFromToken(info, m->id, td, &cls)) || !cls) {
        atomic_store(&g_act.learned, -1);
        return;
    }
    static const char *const f[] = {"_executionContext"};
    uint32_t off;
    act_fields(cls, f, &off, 1, 8);
    if (off == ACT_NO_FIELD) {
        atomic_store(&g_act.learned, -1);
        return;
    }
    g_act.thread_class = (uint64_t)cls;
    g_act.thread_field = fd;
    g_act.ec_offset = off;
    atomic_store_explicit(&g_act.learned, 1, memory_order_release);
}

void ct_activity_setup(int on, int gc_known)
{
    g_act.on = on;
    g_act.gc_known = gc_known;
}
