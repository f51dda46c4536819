/* The exception callbacks (record.h): they feed the model of each
 * thread's exceptions in flight (ehmodel.h) and close the traced frames an
 * exception pops, with an UNWIND record each that carries the exception's
 * object and message when they are still kept. */
#include "record.h"

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

/* The shadow depth that puts the frame of traced function f on top: its
 * innermost open frame (normally the top one), or the depth itself when it
 * is not among the frames whose keys are kept. A frame of the same method
 * under another record counts (the IL engine's generic code: its
 * definition's or instantiation's). */
static uint32_t frame_depth_of(const ct_tbuf *b, const ct_mapped_fn *f)
{
    uint32_t d = ct_rec_of(b)->depth;
    if (d > CT_DROP_TRACK_FRAMES)
        return d;
    for (uint32_t i = d; i-- > 0;) {
        const ct_mapped_fn *k = (const ct_mapped_fn *)(uintptr_t)ct_rec_of(b)->frame_keys[i];
        if (k == f || (k && f->token && k->token == f->token && k->module == f->module))
            return i + 1;
    }
    return d;
}

/* System.Exception's ClassID and the offset of its _message field in an
 * object (EXC_NO_FIELD: not found), learned at the first exception. */
static _Atomic(uint64_t) g_exc_class;
static _Atomic(uint32_t) g_exc_message_offset;
#define EXC_NO_FIELD UINT32_MAX
/* Base classes followed from a thrown object's class to System.Exception,
 * and the fields of System.Exception looked at. */
#define EXC_MAX_BASES 64
#define EXC_MAX_FIELDS 64

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

/* Learns where System.Exception (ClassID cls) keeps _message: the runtime's
 * layout of its fields, named by CoreLib's metadata. */
static void learn_exception(ClassID cls)
{
    ICorProfilerInfo *info = g_ct.info;
    ModuleID mod = 0;
    COR_FIELD_OFFSET fo[EXC_MAX_FIELDS];
    ULONG nf = 0, size = 0;
    uint32_t offset = EXC_NO_FIELD;
    const ct_module *m = NULL;
    if (SUCCEEDED(info->lpVtbl->GetClassIDInfo2(info, cls, &mod, NULL, NULL, 0, NULL, NULL)) &&
        (m = ct_module_get(mod)) && m->mdi &&
        SUCCEEDED(info->lpVtbl->GetClassLayout(info, cls, fo, EXC_MAX_FIELDS, &nf, &size))) {
        for (ULONG i = 0; i < nf && i < EXC_MAX_FIELDS; i++) {
            WCHAR w[64];
            char name[64];
            ULONG len = 0, sig_len = 0, value_len = 0;
            DWORD attr = 0, cplus = 0;
            mdTypeDef owner = 0;
            PCCOR_SIGNATURE sig = NULL;
            const void *value = NULL;
            if (FAILED(m->mdi->lpVtbl->GetFieldProps(m->mdi, fo[i].ridOfField, &owner, w, 64,
                                                     &len, &attr, &sig, &sig_len, &cplus, &value,
                                                     &value_len)))
                continue;
            ct_utf16_to_utf8(w, len, name, sizeof name);
            /* An object reference inside the object, after its method table. */
            if (!strcmp(name, "_message") && fo[i].ulOffset >= 8 && fo[i].ulOffset + 8 <= size &&
                !(fo[i].ulOffset & 7))
                offset = fo[i].ulOffset;
        }
    }
    atomic_store(&g_exc_message_offset, offset);
    atomic_store(&g_exc_class, (uint64_t)cls);
}

/* 1 when an object of class cls is a System.Exception (the runtime wraps
 * anything else a program throws, unless its assembly asks not to). */
static int is_exception(ClassID cls)
{
    ICorProfilerInfo *info = g_ct.info;
    for (int i = 0; cls && i < EXC_MAX_BASES; i++) {
        uint64_t known = atomic_load(&g_exc_class);
        if (known ? cls == known : is_system_exception(cls)) {
            if (!known)
                learn_exception(cls);
            return 1;
        }
        ClassID parent = 0;
        if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, &parent, 0, NULL, NULL)))
            return 0;
        cls = parent;
    }
    return 0;
}

/* Keeps what the UNWIND events of the frames exception `serial` leaves
 * carry: the thrown object's address and class (an OBJECT value; the writer
 * names the class in a CLASS record), and its _message (a STRING value),
 * read now: the object may move before its frames unwind. Only runtime
 * calls that do not trigger a GC; nothing managed runs. */
static void exc_capture(ct_tbuf *b, uint32_t serial, ObjectID obj)
{
    ct_rec_exc *x = &ct_rec_of(b)->exc[serial % CT_EXC_SLOTS];
    x->serial = 0;
    ClassID cls = 0;
    ICorProfilerInfo *info = g_ct.info;
    if (!serial || !obj || FAILED(info->lpVtbl->GetClassFromObject(info, obj, &cls)) || !cls)
        return;
    uint8_t *p = x->values;
    uint64_t addr = (uint64_t)obj, id = (uint64_t)cls;
    uint32_t word = 16;
    memcpy(p, &word, 4);
    memcpy(p + 4, &addr, 8);
    memcpy(p + 12, &id, 8);
    x->len = 20;
    x->nvalues = 1;
    uint32_t off = is_exception(cls) ? atomic_load(&g_exc_message_offset) : EXC_NO_FIELD;
    if (off != EXC_NO_FIELD) {
        uint64_t ref;
        memcpy(&ref, (const void *)(uintptr_t)(obj + off), 8);
        uint32_t chars = g_ct.cfg.string_chars;
        ct_limits lim = {.string_chars = chars < CT_EXC_MESSAGE_CHARS ? chars : CT_EXC_MESSAGE_CHARS};
        size_t n = ct_capture(ct_unwind_plan(1), &ref, &g_rec.layout, &lim, NULL, NULL,
                              p + x->len + 4, sizeof x->values - x->len - 4);
        if (n) {
            word = (uint32_t)n;
            memcpy(p + x->len, &word, 4);
            x->len += 4 + (uint32_t)n;
            x->nvalues = 2;
        }
    }
    x->serial = serial;
}

/* An UNWIND event of the frame of function `key`, left by exception
 * `serial`: with its values when they are still kept, else without. */
static void unwind_event(ct_tbuf *b, uint64_t now, uint64_t key, uint32_t serial)
{
    const ct_rec_exc *x = &ct_rec_of(b)->exc[serial % CT_EXC_SLOTS];
    /* Built here (the fast path's buffers have no scratch): the header, the
     * values, padding. */
    uint8_t rec[CT_EVENT_BASE_BYTES + sizeof x->values + 8];
    ct_wbuf w;
    ct_event_mark m;
    if (!serial || x->serial != serial) {
        ct_rec_plain_as(b, CT_REC_UNWIND, now, key, g_rec.naive);
        return;
    }
    ct_wbuf_init(&w, rec, sizeof rec);
    ct_event_begin(&w, CT_REC_UNWIND, ct_rec_prog_time(b, now), b->tid, key, &m);
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
        ct_rec_plain_as(b, CT_REC_UNWIND, now, key, g_rec.naive);
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
        atomic_load_explicit(&t->busy, memory_order_relaxed))
        return;
    ct_rec_busy(b, 1);
    uint64_t deep_key = 0;
    if (t->depth > CT_DROP_TRACK_FRAMES)
        deep_key = (uint64_t)(uintptr_t)traced_function(fid);
    while (t->depth > depth) {
        uint32_t d = t->depth - 1;
        uint64_t key = d < CT_DROP_TRACK_FRAMES ? t->frame_keys[d] : deep_key;
        if (ct_rec_frame_close(b) || !key)
            ct_tbuf_count_drop(b, 1);
        else
            unwind_event(b, now, key, serial);
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
    if (b && ct_rec_recording())
        exc_capture(b, ct_eh_serial(&t_eh), thrown);
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
