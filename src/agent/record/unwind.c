/* The exception callbacks (record.h): they feed the model of each
 * thread's exceptions in flight (ehmodel.h) and close the traced frames an
 * exception pops, with an UNWIND record each that carries the exception's
 * object and message when they are still kept. */
#include "record.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ehmodel.h"
#include "agent/core/writer.h"
#include "agent/model/modules.h"
#include "agent/model/utf16.h"

/* The exceptions in flight on this thread (ehmodel.h), followed on every
 * thread, traced calls or not: a thread's buffer is made only at its first
 * traced call. Dynamic TLS (about 800 bytes): only the exception callbacks
 * touch it. */
static __thread ct_eh_state t_eh;

#ifdef CT_EH_LOG
#include <stdio.h>
/* "TID what name", the notation of the scripts in tests/unit/test_ehmodel.c. */
void ct_rec_eh_log(const char *what, const char *name)
{
    char line[512];
    int n = snprintf(line, sizeof line, "%ld %s%s%s\n", (long)syscall(SYS_gettid), what,
                     name ? " " : "", name ? name : "");
    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}
static const char *eh_name(FunctionID id)
{
    const ct_mapped_fn *f = ct_registry_find(id);
    return f ? f->name : "?";
}
#endif

/* The exception callbacks feed this thread's model of the exceptions in
 * flight (ehmodel.h, t_eh), which says which frames an exception has
 * popped; they are closed here with an UNWIND event each. A thread that has
 * made no traced call has no buffer and no frames (depth 0), but its
 * exceptions are followed all the same: traced calls may start inside a
 * catch or finally block, and an unhandled exception ends every thread. */

static void (*g_on_fatal)(void);

void ct_recorder_on_fatal(void (*fn)(void))
{
    g_on_fatal = fn;
}

/* The record of FunctionID id when it is traced, else NULL. */
static const ct_mapped_fn *traced_function(FunctionID id)
{
    const ct_mapped_fn *f = ct_registry_find(id);
    return f && f->hooked ? f : NULL;
}

/* The depth of the innermost open frame of traced function f on b's
 * thread (1: the outermost; normally the top one), or 0 when none is (past
 * the kept keys: the depth). A frame of the same method under another
 * record counts (the IL engine's generic code: its definition's or
 * instantiation's). */
static uint32_t frame_found_at(const ct_tbuf *b, const ct_mapped_fn *f)
{
    uint32_t d = ct_rec_of(b)->depth;
    if (d > CT_DROP_TRACK_FRAMES)
        return d;
    for (uint32_t i = d; i-- > 0;) {
        const ct_mapped_fn *k = (const ct_mapped_fn *)(uintptr_t)ct_rec_of(b)->frame_keys[i];
        if (ct_fn_same_method(k, f))
            return i + 1;
    }
    return 0;
}

/* Exception `serial` of b's thread as its slot keeps it, or NULL when a
 * later one took the slot (0: none). */
static const ct_rec_exc *kept_exc(const ct_tbuf *b, uint32_t serial)
{
    const ct_rec_exc *x = &ct_rec_of(b)->exc[serial % CT_EXC_SLOTS];
    return serial && x->serial == serial ? x : NULL;
}

/* The exception that ended a runtime-async call's resumed part goes on
 * (rtasync.c): leaving (caught 0) or caught by (caught 1) a resumed frame
 * of f not open on this thread; f NULL: its chain's task faults. */
static void rt_fault_goes(ct_tbuf *b, const ct_mapped_fn *f, int caught)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (!t->rt_fault_next || !ct_rec_recording())
        return;
    ct_rec_rt_fault_goes(b, f, caught, kept_exc(b, t->rt_fault_serial));
}

void ct_rec_rt_task_faults(ct_tbuf *b)
{
    rt_fault_goes(b, NULL, 0);
}

/* The shadow depth that puts the frame of f on top: frame_found_at's, or
 * the depth itself when none is found. */
static uint32_t frame_depth_of(const ct_tbuf *b, const ct_mapped_fn *f)
{
    uint32_t d = frame_found_at(b, f);
    return d ? d : ct_rec_of(b)->depth;
}

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
static void exc_capture_into(ct_rec_exc *x, uint32_t serial, ObjectID obj)
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
    exc_capture_into(x, 1, (ObjectID)obj);
}

static void exc_capture(ct_tbuf *b, uint32_t serial, ObjectID obj)
{
    exc_capture_into(&ct_rec_of(b)->exc[serial % CT_EXC_SLOTS], serial, obj);
}

int ct_rec_async_body_owns(ct_tbuf *b, uintptr_t builder)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (!builder || !t->depth || t->depth > CT_DROP_TRACK_FRAMES || !ct_rec_recording())
        return 0;
    /* An async body: a state machine with a builder (or, an async
     * iterator, a promise) to complete; an iterator's has none. */
    const ct_mapped_fn *top = (const ct_mapped_fn *)(uintptr_t)t->frame_keys[t->depth - 1];
    if (!top || !top->sm_offsets || top->sm_fault_at == CT_SM_NO_FIELD)
        return 0;
    /* The innermost open frame's own builder, not one of a state machine
     * run by untraced code above it (an untraced async method awaiting a
     * traced one): the builder is a field of the frame's state machine. A
     * box the GC moved since the body began is not found. */
    while (t->nbodies && t->bodies[t->nbodies - 1].depth > t->depth)
        t->nbodies--;
    return t->nbodies && t->bodies[t->nbodies - 1].depth == t->depth &&
           t->bodies[t->nbodies - 1].key == (uint64_t)(uintptr_t)top &&
           t->bodies[t->nbodies - 1].base + top->sm_fault_at == builder;
}

const ct_rec_exc *ct_rec_mark_fault(ct_tbuf *b, uint64_t exc)
{
    ct_rec_thread *t = ct_rec_of(b);
    /* Marks of frames closed since are stale; the same frame again (the
     * builder's overloads): the newest exception. */
    while (t->nfaults && t->fault_depth[t->nfaults - 1] > t->depth)
        t->nfaults--;
    uint32_t k = t->nfaults && t->fault_depth[t->nfaults - 1] == t->depth ? t->nfaults - 1
                                                                           : t->nfaults;
    if (k >= CT_ASYNC_FAULTS)
        return NULL;
    /* Any non-zero serial: the frame's own slot is read by its depth. The
     * exception whose lines were read where it was thrown (--srcline): its
     * serial, for the body's LINE record; else one no lines have. */
    exc_capture_into(&t->fault_exc[k], 1, (ObjectID)exc);
    if (!t->fault_exc[k].serial)
        return NULL;
    t->fault_exc[k].serial = exc && exc == t->exc_lines_obj && t->exc_lines_serial
                                 ? t->exc_lines_serial
                                 : UINT32_MAX;
    t->fault_depth[k] = t->depth;
    t->nfaults = k + 1;
    return &t->fault_exc[k];
}

void ct_rec_async_fault(ct_tbuf *b, uintptr_t builder, uint64_t exc)
{
    if (!exc || ct_rec_is_busy(b) || !ct_rec_async_body_owns(b, builder))
        return;
    ct_rec_busy(b, 1);
    const ct_rec_exc *x = ct_rec_mark_fault(b, exc);
    /* The async call (its stub) ends by it too, when it is followed. */
    if (x)
        ct_rec_async_faulted(b, builder, x);
    ct_rec_busy(b, 0);
}

/* An UNWIND event of the frame of function `key`, left by exception
 * `serial`: with its values when they are still kept, else without. */
static void unwind_event(ct_tbuf *b, uint64_t now, uint64_t key, uint32_t serial)
{
    ct_rec_unwind_event(b, now, key, kept_exc(b, serial));
}

void ct_rec_unwind_event(ct_tbuf *b, uint64_t now, uint64_t key, const ct_rec_exc *x)
{
    ct_rec_exc_event(b, CT_REC_UNWIND, now, key, x);
}

void ct_rec_exc_event(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key,
                      const ct_rec_exc *x)
{
    /* Built here (the fast path's buffers have no scratch): the header, the
     * values, padding. */
    uint8_t rec[CT_EVENT_BASE_BYTES + sizeof x->values + 8];
    ct_wbuf w;
    ct_event_mark m;
    if (!x) {
        ct_rec_plain_as(b, type, now, key, g_rec.naive);
        return;
    }
    ct_wbuf_init(&w, rec, sizeof rec);
    ct_event_begin(&w, type, now, ct_rec_held(b), b->tid, key, &m);
    for (size_t pos = 0, i = 0; i < x->nvalues && pos + 4 <= x->len; i++) {
        uint32_t word, n;
        memcpy(&word, x->values + pos, 4);
        n = word & CT_VALUE_LEN_MASK;
        uint8_t *v = ct_event_value_reserve(&w, n);
        if (v)
            memcpy(v, x->values + pos + 4, n);
        ct_event_value_commit_status(&w, &m, n, (ct_value_status)(word >> CT_VALUE_STATUS_SHIFT));
        pos += 4 + n;
    }
    if (ct_event_end(&w, &m) != CT_TRACE_OK) {
        ct_rec_plain_as(b, type, now, key, g_rec.naive);
        return;
    }
    if (g_rec.naive)
        ct_writer_naive_event(rec, w.len);
    else
        ct_rec_emit(b, rec, w.len);
}

/* Closes this thread's frames above `depth` (CT_EH_NONE: none) as left by an
 * exception: an UNWIND event each, with its own function. Frames deeper than
 * the kept keys are closed with the function of FunctionID fid (exact for
 * the one frame an unwind leave closes). */
static void unwind_to(ct_tbuf *b, uint32_t depth, FunctionID fid, uint64_t now, uint32_t serial)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (depth == CT_EH_NONE || t->depth <= depth || !ct_rec_recording() ||
        ct_rec_is_busy(b))
        return;
    ct_rec_busy(b, 1);
    /* The time read once the thread is marked (the writer's watermark, not
     * earlier than what it may still publish): a moment after `now`. */
    uint64_t marked = ct_now_ns();
    if (marked > now)
        now = marked;
    uint64_t deep_key = 0;
    if (t->depth > CT_DROP_TRACK_FRAMES)
        deep_key = (uint64_t)(uintptr_t)traced_function(fid);
    while (t->depth > depth) {
        uint32_t d = t->depth - 1;
        uint64_t key = d < CT_DROP_TRACK_FRAMES ? t->frame_keys[d] : deep_key;
        /* A resumed part of a runtime-async call (rtasync.c): the call ends
         * by the exception. */
        uint32_t rt_id = __builtin_expect(t->nrt != 0, 0) ? ct_rec_rt_unwinding(b, serial) : 0;
        int how = ct_rec_frame_close(b);
        if (rt_id) {
            ct_rec_exc_event(b, CT_REC_ASYNC_FAULT, now, rt_id, kept_exc(b, serial));
        } else if (how)
            ct_rec_count_unrecorded(b, how);
        else if (!key)
            ct_tbuf_count_drop(b, 1);
        else {
            ct_rec_end_verdict(b, (const ct_mapped_fn *)(uintptr_t)key, CT_REC_UNWIND, NULL,
                               NULL, kept_exc(b, serial), now, g_rec.naive);
            if (g_rec.srcline)
                ct_rec_line_event(b, now, key, serial);
            unwind_event(b, now, key, serial);
        }
    }
    ct_rec_busy(b, 0);
}

/* unwind_to on this thread, when it has a buffer (else it has no frames). */
static void unwind_self(uint32_t depth, FunctionID fid, uint64_t now, uint32_t serial)
{
    ct_tbuf *b = ct_rec_self;
    if (b)
        unwind_to(b, depth, fid, now, serial);
}

void ct_ex_thrown(ObjectID thrown)
{
    CT_EH_LOG_EVENT("thrown", NULL);
    ct_eh_thrown(&t_eh);
    /* A thread without a buffer has no frames this exception can leave. */
    ct_tbuf *b = ct_rec_self;
    if (b)
        ct_rec_of(b)->rt_fault_next = 0; /* another exception */
    if (b && ct_rec_recording())
        exc_capture(b, ct_eh_serial(&t_eh), thrown);
    /* --srcline: where it is thrown, when traced frames are open here. */
    if (b && g_rec.srcline && ct_rec_of(b)->depth && ct_rec_recording())
        ct_rec_exc_lines_read(b, ct_eh_serial(&t_eh), (uint64_t)thrown);
}

void ct_ex_search_enter(FunctionID id)
{
    CT_EH_LOG_EVENT("search", eh_name(id));
    ct_eh_search_enter(&t_eh, id);
}

void ct_ex_search_leave(void)
{
    CT_EH_LOG_EVENT("search-leave", NULL);
    ct_eh_search_leave(&t_eh);
}

void ct_ex_catcher_found(void)
{
    CT_EH_LOG_EVENT("found", NULL);
    ct_eh_catcher_found(&t_eh);
}

void ct_ex_filter_enter(void)
{
    CT_EH_LOG_EVENT("filter", NULL);
    ct_tbuf *b = ct_rec_self;
    ct_eh_filter_enter(&t_eh, b ? ct_rec_of(b)->depth : 0);
}

void ct_ex_filter_leave(void)
{
    CT_EH_LOG_EVENT("filter-leave", NULL);
    uint64_t now = ct_now_ns();
    /* Frames left open above the filter were left by the exception thrown
     * inside it (the newest), which the leave ends. */
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_filter_leave(&t_eh);
    unwind_self(depth, 0, now, serial);
}

void ct_ex_unwind_function_enter(FunctionID id)
{
    CT_EH_LOG_EVENT("unwind", eh_name(id));
    uint64_t now = ct_now_ns();
    ct_tbuf *b = ct_rec_self;
    const ct_mapped_fn *f = b ? traced_function(id) : NULL;
    /* A runtime-async method's frame the runtime resumed and the probes did
     * not see resume (an exception its awaited callee threw comes out at
     * the resume point, before its code): not this thread's to close. */
    if (f && f->rt_async && !frame_found_at(b, f)) {
        rt_fault_goes(b, f, 0);
        f = NULL;
    }
    uint32_t depth = !b ? 0 : f ? frame_depth_of(b, f) : ct_rec_of(b)->depth;
    if (!ct_eh_unwind_enter(&t_eh, id, f != NULL, depth))
        return;
    /* The outermost managed frame of an unhandled exception: the runtime
     * terminates the process (abort) once its finally blocks have run, with
     * no callback and no Shutdown. Its frame and any above it are over;
     * finish the trace now. */
    if (b)
        unwind_to(b, f ? depth - 1 : depth, id, now, ct_eh_serial(&t_eh));
    if (g_on_fatal)
        g_on_fatal();
}

void ct_ex_unwind_function_leave(void)
{
    CT_EH_LOG_EVENT("unwind-leave", NULL);
    uint64_t now = ct_now_ns();
    uint64_t fid = 0;
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_unwind_leave(&t_eh, &fid);
    unwind_self(depth, (FunctionID)fid, now, serial);
}

void ct_ex_finally_enter(void)
{
    CT_EH_LOG_EVENT("finally", NULL);
    uint64_t now = ct_now_ns();
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_finally_enter(&t_eh);
    unwind_self(depth, 0, now, serial);
}

void ct_ex_finally_leave(void)
{
    CT_EH_LOG_EVENT("finally-leave", NULL);
    ct_eh_finally_leave(&t_eh);
}

void ct_ex_catcher_enter(FunctionID id)
{
    CT_EH_LOG_EVENT("catch", eh_name(id));
    ct_tbuf *b = ct_rec_self;
    if (b && __builtin_expect(ct_rec_of(b)->rt_fault_next != 0, 0)) {
        const ct_mapped_fn *f = traced_function(id);
        if (f && f->rt_async && !frame_found_at(b, f))
            rt_fault_goes(b, f, 1);
    }
    uint64_t now = ct_now_ns();
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_catcher_enter(&t_eh, id);
    unwind_self(depth, 0, now, serial);
}

void ct_ex_catcher_leave(void)
{
    CT_EH_LOG_EVENT("catch-leave", NULL);
    ct_eh_catcher_leave(&t_eh);
}

/* AppContext.OnUnhandledException (watched, see registry.c) entered on this
 * thread: the runtime's unhandled-exception path, or a program raising the
 * event itself (ExceptionHandling.RaiseAppDomainUnhandledExceptionEvent).
 * The model tells them apart: only the first is inside the first pass of an
 * exception that found no catcher. */
void ct_rec_on_unhandled(void)
{
    CT_EH_LOG_EVENT("unhandled", NULL);
    ct_eh_unhandled(&t_eh);
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

