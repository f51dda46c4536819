#include "hooks.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "argmap.h"
#include "agent/model/classnames.h"
#include "agent/core/clock.h"
#include "format/event.h"
#include "format/value.h"
#include "agent/record/ehmodel.h"
#include "agent/engines/elt/asm/elt_stubs.h"
#include "agent/model/modules.h"
#include "agent/model/plans.h"
#include "agent/model/registry.h"
#include "agent/runtime/state.h"
#include "agent/core/tbuf.h"
#include "agent/model/utf16.h"
#include "agent/core/writer.h"
#include "agent/record/capture.h"

/* The IL engine's cache of generic instantiations per thread: entries,
 * and the most type handles an entry holds. */
#define CT_INST_CACHE 64
#define CT_INST_CACHE_HANDLES 3

/* The ELT engine's state of one thread: the engine area of its buffer
 * (tbuf.h), zeroed when a thread takes the buffer. */
typedef struct elt_thread {
    _Atomic int busy;             /* inside a hook (re-entry is dropped) */
    uint32_t depth;               /* open frames (the shadow stack) */
    uint32_t gate;                /* open frames of trigger functions */
    uint64_t dropped_frames[CT_DROP_TRACK_FRAMES / 64];
    uint64_t frame_keys[CT_DROP_TRACK_FRAMES]; /* each open frame's function key */
    uintptr_t frame_sp[CT_DROP_TRACK_FRAMES];  /* each open frame's caller SP (0: unknown) */
    uintptr_t stack_lo, stack_hi; /* the thread's stack (byref targets) */
    struct {
        uintptr_t mt;             /* an object's method table pointer */
        uint64_t cls;             /* its ClassID */
        const ct_plan *content;   /* the plan of its content (NULL: none) */
        uint8_t boxed;            /* the kind of value it boxes (CT_V_VOID: none) */
        uint8_t szarray, string;  /* T[]; System.String */
        uint8_t again;            /* no content plan yet: ask again */
        uint8_t told;             /* named in a marked record: 0 not yet, 1 while it
                                     had no content plan, 2 with its content plan */
    } class_cache[CT_CLASS_CACHE];
    /* The event being built names a class as it was not named before on
     * this thread (told): the record is marked CT_EVENT_NEW_CLASSES for the
     * writer, which looks for class ids in marked records only (writer.h). */
    uint8_t class_new;
    uint8_t bounce[CT_BOUNCE_BYTES];
    ct_argmap_snapshot snap;      /* the runtime's frame, while argmap learns */
    struct {
        uint32_t depth;           /* the frame's depth (its index on the shadow stack) */
        uint32_t arg;             /* the argument */
        uintptr_t target;         /* where it points, in this thread's stack */
    } outs[CT_OUT_TRACK];         /* ordered by depth, innermost last */
    uint32_t nouts;
    /* The latest exceptions thrown on this thread (ct_ex_thrown), at
     * serial % CT_EXC_SLOTS: the values of the UNWIND events of the frames
     * each one leaves, as ct_event_value words and bytes. */
    struct {
        uint32_t serial;          /* ct_eh_serial; 0: none */
        uint32_t nvalues;
        uint32_t len;
        uint8_t values[(4 + 16) + (4 + 16 + 2 * CT_EXC_MESSAGE_CHARS)];
    } exc[CT_EXC_SLOTS];
    /* The IL engine: the last instantiations of generic code found, by
     * definition and type handles (the registry's lock is taken on a miss
     * only). */
    struct {
        const ct_mapped_fn *def, *inst;
        uint32_t n;
        uintptr_t h[CT_INST_CACHE_HANDLES];
    } inst_cache[CT_INST_CACHE];
} elt_thread;

static inline elt_thread *E(const ct_tbuf *b)
{
    return (elt_thread *)(void *)b->engine;
}

/* A value that does not fit the record is captured again with the string
 * and array limits divided by CAPTURE_RETRY_DIVISOR, up to CAPTURE_RETRIES
 * times, then recorded as too large. */
#define CAPTURE_RETRIES 4
#define CAPTURE_RETRY_DIVISOR 16
/* Argument info fetched on the stack: 8 bytes of header plus 16 per range,
 * so up to 255 ranges. Larger infos record no values ("(?)"). */
#define ARG_INFO_MAX_BYTES 4096
/* Argument info fetched for a state machine's MoveNext (one range). */
#define SM_ARG_INFO_BYTES 256
/* A leave whose values take more than this many bytes counts its capture
 * as the tracer's time (ct_ring_hold); smaller ones are not worth a clock
 * read. */
#define LEAVE_HOLD_MIN_BYTES 32
/* Bytes kept of a value captured by its range (a type that has no plan). */
#define BY_RANGE_MAX_BYTES 64


static ct_layout g_layout;
/* CLRTRACE_TRIGGER is set: a thread captures values only inside a trigger
 * function's frame (tbuf.gate); its other calls are recorded without values
 * (the writer's filter hides them: src/views/treefilter.h). */
static int g_gated;
static ct_hook_mode g_mode;
static int g_naive;
static pthread_key_t g_thread_key;
static atomic_int g_open;
/* Attached to a running process (ct_hooks_attached): a return without an
 * open frame is a call entered before this trace began. */
static int g_attached;
/* The initial-exec model: one load off the thread pointer instead of a call
 * to __tls_get_addr in every hook (8 bytes of static TLS). */
static __thread ct_tbuf *t_self __attribute__((tls_model("initial-exec")));
/* The exceptions in flight on this thread (ehmodel.h), followed on every
 * thread, traced calls or not: a thread's buffer is made only at its first
 * traced call. Dynamic TLS (about 800 bytes): only the exception callbacks
 * touch it. */
static __thread ct_eh_state t_eh;
/* The record of AppContext.OnUnhandledException once mapped: hooked but not
 * traced, its enter hook tells us the runtime reports an unhandled exception
 * (unless the program traces it too, it records nothing). */
static _Atomic(uintptr_t) g_watch_unhandled;

static void on_unhandled(void);

#ifdef CT_EH_LOG
/* Debugging (cmake -DCLRTRACE_EH_LOG=ON): one stderr line per exception
 * callback and hook, "TID what name", the notation of the scripts in
 * tests/unit/test_ehmodel.c. */
#include <stdio.h>
static void eh_log(const char *what, const char *name)
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
#define EH_LOG(what, name) eh_log(what, name)
#else
#define EH_LOG(what, name) ((void)0)
#endif

void ct_hooks_watch_unhandled(const ct_mapped_fn *f)
{
    atomic_store(&g_watch_unhandled, (uintptr_t)f);
}

/* 1 when the hook must stop here: a watched function that is not traced.
 * Its enter hook does what it is watched for. */
static inline int watched(uintptr_t id, int enter)
{
    if (__builtin_expect(id != atomic_load_explicit(&g_watch_unhandled, memory_order_relaxed), 1))
        return 0;
    if (enter)
        on_unhandled();
    return !((const ct_mapped_fn *)id)->hooked;
}

/* ------------------------------------------------------------- threads */

/* A thread that ends hands its buffer to the writer, which drains it and
 * frees it for reuse. A hook running later on this thread (managed code in
 * another TLS destructor) gets a new buffer. */
static void thread_exit(void *p)
{
    ct_tbuf_orphan(p);
    t_self = NULL;
}

void ct_hooks_init(ct_hook_mode mode, uint32_t ring_kb, int lossy, int naive)
{
    g_gated = g_ct.cfg.filter.trigger != NULL;
    g_mode = mode;
    g_naive = naive;
    ct_tbuf_setup(ring_kb, lossy, sizeof(elt_thread));
    /* Once per process (an attached process starts a trace per session). */
    static int keyed;
    if (!keyed && pthread_key_create(&g_thread_key, thread_exit) == 0)
        keyed = 1;
    ULONG len_off = 8, buf_off = 12;
    ICorProfilerInfo *info = g_ct.info;
    if (FAILED(info->lpVtbl->GetStringLayout2(info, &len_off, &buf_off))) {
        len_off = 8;
        buf_off = 12;
    }
    g_layout.string_length_offset = len_off;
    g_layout.string_chars_offset = buf_off;
    g_layout.array_length_offset = CT_SZARRAY_LENGTH_OFFSET;
    g_layout.array_data_offset = CT_SZARRAY_DATA_OFFSET;
}

void ct_hooks_open(void)
{
    atomic_store(&g_open, 1);
}

void ct_hooks_stop(void)
{
    atomic_store(&g_open, 0);
}

void ct_hooks_close(void)
{
    atomic_store(&g_open, 0);
    /* Hooks past their check finish quickly; one that cannot (it waits for
     * something this thread holds) is left alone. */
    uint64_t start = ct_mono_raw_ns();
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next)
        while (atomic_load_explicit(&E(b)->busy, memory_order_acquire) &&
               ct_mono_raw_ns() - start < CT_QUIESCE_WAIT_NS)
            nanosleep(&(struct timespec){0, CT_QUIESCE_POLL_NS}, NULL);
}

void ct_hooks_attached(void)
{
    g_attached = 1;
}

static void forget_classes(ct_tbuf *b);

void ct_hooks_reset_threads(void)
{
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next) {
        elt_thread *t = E(b);
        t->depth = t->gate = t->nouts = 0;
        memset(t->dropped_frames, 0, sizeof t->dropped_frames);
        /* The new trace has no CLASS records yet. */
        forget_classes(b);
        t->class_new = 0;
    }
}

static inline int recording(void)
{
    return atomic_load_explicit(&g_open, memory_order_relaxed);
}

/* This thread's buffer: made (or reused) at its first traced call. NULL
 * when out of memory (the thread's calls go unrecorded). */
static ct_tbuf *thread_new(void)
{
    int slow = g_mode == CT_HOOKS_SLOW;
    ct_tbuf *b = ct_tbuf_acquire((uint64_t)syscall(SYS_gettid), slow);
    if (!b)
        return NULL;
    if (slow) {
        /* Byref targets are read in place only inside this stack. */
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            void *addr = NULL;
            size_t size = 0;
            if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
                E(b)->stack_lo = (uintptr_t)addr;
                E(b)->stack_hi = (uintptr_t)addr + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    pthread_setspecific(g_thread_key, b);
    t_self = b;
    return b;
}

static inline ct_tbuf *thread_self(void)
{
    ct_tbuf *b = t_self;
    return __builtin_expect(b != NULL, 1) ? b : thread_new();
}

/* -------------------------------------------------- dropping whole calls */

/* A frame of function `key` opens; `dropped`: its enter event was not
 * recorded. */
static inline void frame_open(ct_tbuf *b, uint64_t key, int dropped, uintptr_t caller_sp)
{
    uint32_t d = E(b)->depth++;
    if (d < CT_DROP_TRACK_FRAMES) {
        E(b)->frame_keys[d] = key;
        E(b)->frame_sp[d] = caller_sp;
        if (g_gated && key && ((const ct_mapped_fn *)(uintptr_t)key)->trigger)
            E(b)->gate++;
        uint64_t bit = 1ull << (d % 64);
        if (dropped)
            E(b)->dropped_frames[d / 64] |= bit;
        else
            E(b)->dropped_frames[d / 64] &= ~bit;
    }
}

/* A frame closes; returns 1 when its enter event was dropped (so is this). */
static inline int frame_close(ct_tbuf *b)
{
    if (!E(b)->depth)
        return 0;
    uint32_t d = --E(b)->depth;
    if (d >= CT_DROP_TRACK_FRAMES)
        return 0;
    uint64_t key = E(b)->frame_keys[d];
    if (g_gated && key && E(b)->gate && ((const ct_mapped_fn *)(uintptr_t)key)->trigger)
        E(b)->gate--;
    return E(b)->dropped_frames[d / 64] >> (d % 64) & 1;
}

/* Copies a built record into the ring; 1, or 0 when it was dropped. */
static int emit(ct_tbuf *b, const uint8_t *rec, size_t len)
{
    if (g_naive) {
        ct_writer_naive_event(rec, len);
        return 1;
    }
    uint8_t *p = ct_ring_reserve(&b->ring, len);
    if (!p) {
        ct_tbuf_count_drop(b, 1);
        return 0;
    }
    memcpy(p, rec, len);
    ct_ring_commit(&b->ring, len);
    return 1;
}

/* ------------------------------------------------------------- capture */

/* Learns System.String's class id from the first string met in an object
 * slot (a class-cache miss until then costs a name lookup, cached). */
static void note_string_class(ClassID cls)
{
    char name[32];
    if (ct_classid_name(cls, CT_NAME_FULL, name, sizeof name) == 0 &&
        (!strcmp(name, "System.String") || !strcmp(name, "string")))
        __atomic_store_n(&g_layout.string_class, (uint64_t)cls, __ATOMIC_RELAXED);
}

/* An object's class: GetClassFromObject, remembered per thread by the
 * object's method table pointer (its first word), which names its type;
 * with it, whether the object is a string, an array or a boxed primitive
 * or well-known struct, and the plan of its content (ct_plan_content). */
static void class_of(void *ctx, uint64_t object, int named, ct_class_info *out)
{
    ct_tbuf *b = ctx;
    uintptr_t mt;
    memcpy(&mt, (const void *)(uintptr_t)object, sizeof mt);
    memset(out, 0, sizeof *out);
    out->boxed = CT_V_VOID;
    if (!mt)
        return;
    __typeof__(E(b)->class_cache[0]) *e = &E(b)->class_cache[(mt >> 4) & (CT_CLASS_CACHE - 1)];
    if (e->mt != mt) {
        ClassID cls = 0;
        ICorProfilerInfo *info = g_ct.info;
        /* The ClassID of an object is its MethodTable, the object's first
         * word (vm/object.inl: GetTypeHandle wraps it, arrays included).
         * GetClassFromObject answers only inside a callback: the IL
         * engine's probes are not, and take the word itself. */
        if (FAILED(info->lpVtbl->GetClassFromObject(info, (ObjectID)object, &cls)))
            cls = (ClassID)mt;
        if (!cls)
            return;
        if (!__atomic_load_n(&g_layout.string_class, __ATOMIC_RELAXED))
            note_string_class(cls);
        CorElementType et = 0;
        ClassID elem = 0;
        ULONG rank = 0;
        e->mt = mt;
        e->cls = cls;
        e->boxed = (uint8_t)ct_plan_boxed_kind(cls);
        e->string = cls == __atomic_load_n(&g_layout.string_class, __ATOMIC_RELAXED);
        e->szarray = info->lpVtbl->IsArrayClass(info, cls, &et, &elem, &rank) == S_OK &&
                     rank == 1;
        e->content = NULL;
        e->again = !e->string && e->boxed == CT_V_VOID;
        e->told = 0;
    }
    if (e->again) {
        int again = 0;
        e->content = ct_plan_content((ClassID)e->cls, (const void *)(uintptr_t)object, &again);
        e->again = (uint8_t)again;
    }
    uint8_t told = e->content ? 2 : 1;
    if (named && e->told != told) {
        e->told = told;
        E(b)->class_new = 1;
    }
    out->id = e->cls;
    out->boxed = (ct_vkind)e->boxed;
    out->content = e->content;
    out->szarray = e->szarray;
    out->string = e->string;
}

/* Classes met while building a record that is then given up (a value
 * captured again with smaller limits, values left out, a record dropped)
 * may never reach the writer: the thread's class cache forgets everything,
 * so that the next record to name any class is marked again. */
static void forget_classes(ct_tbuf *b)
{
    memset(E(b)->class_cache, 0, sizeof E(b)->class_cache);
}

/* The bytes of the slot that holds a value of plan p: a reference or a
 * pointer, or the value itself. */
static ULONG slot_len(const ct_plan *p)
{
    switch (p->kind) {
    case CT_V_STRING: case CT_V_OBJECT: case CT_V_ARRAY: case CT_V_BYREF: case CT_V_PTR:
        return 8;
    default:
        return p->size;
    }
}

/* The length a range must have for the plan to read it as planned. */
static int range_fits(const ct_plan *p, ULONG len)
{
    return len == slot_len(p) || (p->kind == CT_V_ELIDED && p->size == 0);
}

/* 1 when the plan's encoding is empty (void, elided, a struct of nothing):
 * ct_capture then rightly returns 0. */
static int captures_nothing(const ct_plan *p, unsigned depth)
{
    if (p->kind == CT_V_VOID || p->kind == CT_V_ELIDED)
        return 1;
    if (p->kind != CT_V_STRUCT || depth > CT_MAX_VALUE_DEPTH)
        return 0;
    for (uint32_t i = 0; i < p->count; i++)
        if (!captures_nothing(p->fields[i].plan, depth + 1))
            return 0;
    return 1;
}

/* Copies n bytes at src into dst without faulting: 0, or -1 when the memory
 * cannot be read. */
static int checked_copy(void *dst, uintptr_t src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* Where a byref's target may be read from, or NULL. A byref can point
 * anywhere (CoreLib hands out (void*)1 for empty spans), so the target is
 * read in place only when it lies in this thread's stack (a local: any GC
 * reference in it is valid or null); otherwise only targets whose plan
 * follows no pointer are read, through a checked copy. */
static const void *byref_source(ct_tbuf *b, const ct_plan *target, uintptr_t addr)
{
    size_t n = target->size;
    if (target->kind == CT_V_STRING || target->kind == CT_V_OBJECT ||
        target->kind == CT_V_ARRAY)
        n = 8;
    if (!addr || n == 0)
        return NULL;
    if (addr >= E(b)->stack_lo && addr < E(b)->stack_hi && n <= E(b)->stack_hi - addr)
        return (const void *)addr;
    if (n > CT_BOUNCE_BYTES || !ct_plan_is_flat(target, 1) || checked_copy(E(b)->bounce, addr, n))
        return NULL;
    return E(b)->bounce;
}

/* Appends one value to the event being built in w; object_depth: the
 * levels of objects shown by content (0 for `this`: its class and address
 * say which object it is). */
static void capture_value(ct_tbuf *b, ct_wbuf *w, ct_event_mark *m, const ct_plan *p,
                          UINT_PTR addr, ULONG len, uint32_t object_depth)
{
    if (w->cap - w->len < 4 + BY_RANGE_MAX_BYTES + 8) {
        ct_event_value_reserve(w, 0);
        ct_event_value_commit_status(w, m, 0, CT_VALUE_TOO_LARGE);
        return;
    }
    size_t room = w->cap - w->len - 4;
    uint8_t *body = ct_event_value_reserve(w, room);
    if (!addr) {
        ct_event_value_commit_status(w, m, 0, CT_VALUE_MISSING);
        return;
    }
    /* The common cases without the general capture: a scalar's bytes; an
     * object's address and class (the encodings of src/format/value.h). */
    if (((p->kind >= CT_V_BOOL && p->kind <= CT_V_U) || p->kind == CT_V_ENUM) && len == p->size &&
        len <= 8) {
        memcpy(body, (const void *)addr, len);
        ct_event_value_commit_status(w, m, len, CT_VALUE_PLAN);
        return;
    }
    if (p->kind == CT_V_OBJECT && len == 8) {
        uint64_t obj;
        ct_class_info ci = {0};
        memcpy(&obj, (const void *)addr, 8);
        if (obj)
            class_of(b, obj, 1, &ci);
        /* A string, a boxed value or an object shown by content takes the
         * general capture below. */
        if (!ci.id || (ci.id & CT_CLASS_TAG_MASK) ||
            (!ci.string && ci.boxed == CT_V_VOID && (!ci.content || !object_depth))) {
            uint64_t cls = ci.id & CT_CLASS_TAG_MASK ? 0 : ci.id;
            memcpy(body, &obj, 8);
            memcpy(body + 8, &cls, 8);
            ct_event_value_commit_status(w, m, 16, CT_VALUE_PLAN);
            return;
        }
    }
    if (ct_plan_is_by_range(p) || !range_fits(p, len)) {
        size_t n = len < BY_RANGE_MAX_BYTES ? len : BY_RANGE_MAX_BYTES;
        memcpy(body, (const void *)addr, n);
        ct_event_value_commit_status(w, m, n, CT_VALUE_RANGE);
        return;
    }
    ct_limits lim = {g_ct.cfg.string_chars, g_ct.cfg.array_items, object_depth,
                     g_ct.cfg.value_bytes};
    const void *src = (const void *)addr;
    size_t skip = 0;
    if (p->kind == CT_V_BYREF && p->elem) {
        /* BYREF encoding: the address, then the target (if read). */
        uint64_t target;
        memcpy(&target, src, 8);
        memcpy(body, &target, 8);
        src = byref_source(b, p->elem, (uintptr_t)target);
        if (!src) {
            ct_event_value_commit_status(w, m, 8, CT_VALUE_ADDRESS);
            return;
        }
        p = p->elem;
        skip = 8;
    }
    for (int attempt = 0; attempt <= CAPTURE_RETRIES; attempt++) {
        size_t n = ct_capture(p, src, &g_layout, &lim, class_of, b, body + skip, room - skip);
        if (n || captures_nothing(p, 0)) {
            ct_event_value_commit_status(w, m, n + skip, CT_VALUE_PLAN);
            return;
        }
        if (E(b)->class_new)
            forget_classes(b);
        lim.string_chars /= CAPTURE_RETRY_DIVISOR;
        lim.array_items /= CAPTURE_RETRY_DIVISOR;
        lim.object_depth /= 2;
        lim.value_bytes /= CAPTURE_RETRY_DIVISOR;
    }
    ct_event_value_commit_status(w, m, 0, CT_VALUE_TOO_LARGE);
}

/* The levels of objects argument i of f is shown by: none for `this` (its
 * class and address say which object it is), else the option's. */
static inline uint32_t arg_object_depth(const ct_mapped_fn *f, uint32_t i)
{
    return i == 0 && ct_fn_has_this(f) ? 0 : g_ct.cfg.object_depth;
}

/* The values of state machine f, read from the fields of the state
 * machine whose `this` is at this_slot (the struct's address, or the
 * object reference of a class). */
static void state_machine_values(ct_tbuf *b, const ct_mapped_fn *f, UINT_PTR this_slot,
                                 ct_wbuf *w, ct_event_mark *m)
{
    uint64_t base;
    memcpy(&base, (const void *)this_slot, 8);
    for (uint32_t i = 0; i < f->nargs; i++) {
        const ct_plan *p = ct_arg_plan(f, i);
        uint32_t off = f->sm_offsets[i];
        UINT_PTR addr = base && off != CT_SM_NO_FIELD ? (UINT_PTR)(base + off) : 0;
        capture_value(b, w, m, p, addr, slot_len(p), arg_object_depth(f, i));
    }
}

/* A state machine's MoveNext (registry.h, sm_offsets): its values are
 * fields of the state machine, which its one argument range (`this`: the
 * struct's address, or the object reference of a class) points to. The
 * runtime hands MoveNext a valid state machine, boxed or on the stack, and
 * holds it still during the hook. 0 when the runtime gave no range. */
static int capture_state_machine(ct_tbuf *b, ct_mapped_fn *f, COR_PRF_ELT_INFO elt, ct_wbuf *w,
                                 ct_event_mark *m)
{
    ICorProfilerInfo *info = g_ct.info;
    COR_PRF_FRAME_INFO frame = 0;
    /* One range, but the runtime asks for room for more (40 bytes on .NET
     * 10 for a struct's MoveNext). */
    union {
        COR_PRF_FUNCTION_ARGUMENT_INFO info;
        uint64_t align[SM_ARG_INFO_BYTES / sizeof(uint64_t)];
    } args;
    ULONG size = sizeof args;
    if (FAILED(info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &size, &args.info)) ||
        args.info.numRanges != 1 || args.info.ranges[0].length != 8)
        return 0;
    state_machine_values(b, f, args.info.ranges[0].startAddress, w, m);
    return 1;
}

/* Forgets the out arguments of frames at depth d and deeper (ended, or
 * left by an exception or a tail call). */
static inline void outs_forget(ct_tbuf *b, uint32_t d)
{
    while (E(b)->nouts && E(b)->outs[E(b)->nouts - 1].depth >= d)
        E(b)->nouts--;
}

/* Remembers where f's out, ref and in arguments point, for the frame being
 * entered (at the current depth), when the target is in this thread's
 * stack: a local, still there when the call returns. A target elsewhere (a
 * field, an array element) may move with a GC before then: not read again. */
static void outs_track(ct_tbuf *b, const ct_mapped_fn *f,
                       const COR_PRF_FUNCTION_ARGUMENT_RANGE *r, uint32_t n)
{
    uint32_t d = E(b)->depth;
    outs_forget(b, d);
    for (uint32_t i = 0; i < n && i < 64; i++) {
        uintptr_t target;
        if (!(f->out_mask >> i & 1) || !r[i].startAddress || r[i].length != sizeof target)
            continue;
        memcpy(&target, (const void *)r[i].startAddress, sizeof target);
        if (target < E(b)->stack_lo || target >= E(b)->stack_hi || E(b)->nouts >= CT_OUT_TRACK)
            continue;
        E(b)->outs[E(b)->nouts].depth = d;
        E(b)->outs[E(b)->nouts].arg = i;
        E(b)->outs[E(b)->nouts].target = target;
        E(b)->nouts++;
    }
}

/* The LEAVE values of f's out arguments, in order: each target read again
 * (from the frame now closing, at the current depth), or MISSING. */
static void outs_capture(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m)
{
    uint32_t d = E(b)->depth;
    for (uint32_t i = 0; i < f->nargs && i < 64; i++) {
        if (!(f->out_mask >> i & 1))
            continue;
        uintptr_t target = 0;
        for (uint32_t k = E(b)->nouts; k > 0 && E(b)->outs[k - 1].depth >= d; k--)
            if (E(b)->outs[k - 1].depth == d && E(b)->outs[k - 1].arg == i)
                target = E(b)->outs[k - 1].target;
        const ct_plan *p = f->args[i].plan->elem;
        capture_value(b, w, m, p, target, slot_len(p), g_ct.cfg.object_depth);
    }
    outs_forget(b, d);
}

/* The argument values of the call into w; 0 when the runtime gave none
 * (the event then has no values and reads "(?)"). */
static int capture_args(ct_tbuf *b, ct_mapped_fn *f, COR_PRF_ELT_INFO elt, ct_wbuf *w,
                        ct_event_mark *m)
{
    if (f->sm_offsets)
        return capture_state_machine(b, f, elt, w, m);
    /* Known locations: read them without asking the runtime. */
    COR_PRF_FUNCTION_ARGUMENT_RANGE direct[CT_ARGMAP_MAX_DIRECT];
    if (f->nargs <= CT_ARGMAP_MAX_DIRECT && ct_argmap_enter(f, elt, direct)) {
        for (uint32_t i = 0; i < f->nargs; i++)
            capture_value(b, w, m, ct_arg_plan(f, i), direct[i].startAddress, direct[i].length,
                          arg_object_depth(f, i));
        if (f->out_mask)
            outs_track(b, f, direct, f->nargs);
        return 1;
    }
    ct_argmap_snapshot *snap = NULL;
    if (ct_argmap_learning_enter(f)) {
        snap = &E(b)->snap;
        ct_argmap_snap(snap, elt, E(b)->stack_hi);
    }
    ICorProfilerInfo *info = g_ct.info;
    /* Learn the size once per function: a first call with a zero size (and
     * no buffer) answers HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) and
     * the size needed; the size depends only on the signature. */
    COR_PRF_FRAME_INFO frame = 0;
    ULONG need = atomic_load_explicit(&f->arginfo_size, memory_order_relaxed);
    if (!need) {
        ULONG probe = 0;
        HRESULT hr = info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &probe, NULL);
        if ((hr == HRESULT_INSUFFICIENT_BUFFER || SUCCEEDED(hr)) && probe) {
            need = probe;
            atomic_store_explicit(&f->arginfo_size, need, memory_order_relaxed);
        }
    }
    union {
        COR_PRF_FUNCTION_ARGUMENT_INFO info;
        uint64_t align[ARG_INFO_MAX_BYTES / sizeof(uint64_t)];
    } args;
    if (!need || need > sizeof args)
        return 0;
    ULONG size = need;
    if (FAILED(info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &size, &args.info)) ||
        args.info.numRanges != f->nargs)
        return 0;
    /* Shared generic code: the plans come from the first call's frame; the
     * function's record is written again with them. */
    if (f->late && atomic_load(&f->late_state) == CT_LATE_UNBOUND && ct_plan_late(f, frame))
        ct_writer_define(f);
    if (snap)
        ct_argmap_learn_enter(f, snap, &args.info);
    for (ULONG i = 0; i < args.info.numRanges; i++)
        capture_value(b, w, m, ct_arg_plan(f, i), args.info.ranges[i].startAddress,
                      args.info.ranges[i].length, arg_object_depth(f, i));
    if (f->out_mask)
        outs_track(b, f, args.info.ranges, args.info.numRanges);
    return 1;
}

/* ----------------------------------------------------- the slow path */

/* Where a hook builds its record: in place in the ring when it has room for
 * the largest record in one piece, else in the thread's scratch buffer. */
static inline uint8_t *build_area(ct_tbuf *b, int *inplace)
{
    uint8_t *p = g_naive ? NULL : ct_ring_inplace(&b->ring);
    *inplace = p != NULL;
    return p ? p : b->scratch;
}

static int finish_record(ct_tbuf *b, const ct_wbuf *w, int inplace)
{
    if (inplace) {
        ct_ring_commit(&b->ring, w->len);
        return 1;
    }
    return emit(b, w->p, w->len);
}

/* Ends the event record built in area (when it does not fit with its
 * values, it is written without them), marks it when it named a class new
 * to this thread, and publishes it; 1, or 0 when it was dropped. */
static int publish_event(ct_tbuf *b, ct_wbuf *w, ct_event_mark *m, uint8_t *area,
                         ct_rec_type type, uint64_t t, uint64_t key, int inplace)
{
    int whole = ct_event_end(w, m) == CT_TRACE_OK;
    if (!whole) {
        ct_wbuf_init(w, area, b->ring.record_max);
        ct_event_begin(w, type, t, b->tid, key, m);
        ct_event_end(w, m);
    }
    if (E(b)->class_new && whole)
        w->p[m->start + 1] = CT_EVENT_NEW_CLASSES;
    int ok = finish_record(b, w, inplace);
    if (E(b)->class_new) {
        if (!ok || !whole)
            forget_classes(b);
        E(b)->class_new = 0;
    }
    return ok;
}

/* ------------------------------------------------ tail calls, unhooked
 *
 * The runtime's tail-call helper (ProfileTailcallNaked, vm/amd64/
 * asmhelpers.S) saves and reloads xmm0-xmm7 with movsd, 64 bits each, while
 * the JIT keeps values it believes preserved in xmm0/xmm1 across it
 * (targetamd64.h: RBM_PROFILER_TAILCALL_TRASH spares the float return
 * registers; Lowering::LowerFastTailCall puts the hook after the arguments
 * are computed). A Vector128/256 argument of a fast tail call then arrives
 * with its upper half zeroed: the program computes something else. So the
 * slow path registers no tail-call hook: the JIT then calls a bare `ret`
 * (jithelpers.cpp maps a NULL hook to JIT_ProfilerEnterLeaveTailcallStub)
 * and the program runs as it would untraced, tail calls included.
 *
 * The frame a tail call leaves is recognised instead when the next function
 * enters on the thread: the JIT passes every profiled method's caller SP to
 * the enter helper, which stores it in its frame (PROFILE_PLATFORM_SPECIFIC_
 * DATA.profiledRsp, offset 0x20; COR_PRF_ELT_INFO points at a handle whose
 * first word is that structure's address: vm/amd64/profiler.cpp). A
 * callee that replaced its caller's frame has the caller's caller SP; a
 * called function has a lower one (the stack grows down), below every frame
 * still live. So every open frame whose caller SP is not above the entering
 * function's has been left: by a tail call (no hook), and is closed as
 * such. A frame whose caller SP is not known (outside this thread's stack)
 * is never closed this way. */
#define ELT_CALLER_SP_OFFSET 0x20

static inline uintptr_t caller_sp(const ct_tbuf *b, COR_PRF_ELT_INFO elt)
{
#if !defined(__x86_64__)
    /* Another helper frame layout: not known, so frames are never closed
     * this way (tail calls then read as unfinished frames). */
    (void)b;
    (void)elt;
    return 0;
#endif
    uintptr_t data, sp;
    memcpy(&data, (const void *)(uintptr_t)elt, sizeof data);
    /* The helper's data is in its frame, above the handle; the caller SP
     * above both, inside this thread's stack, aligned. */
    if (data <= (uintptr_t)elt || data >= E(b)->stack_hi - ELT_CALLER_SP_OFFSET - sizeof sp)
        return 0;
    memcpy(&sp, (const void *)(data + ELT_CALLER_SP_OFFSET), sizeof sp);
    if (sp <= data || sp > E(b)->stack_hi || (sp & 7))
        return 0;
    return sp;
}

static void plain_event(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key);

/* The program's time on this thread: the clock less the time the tracer
 * held the thread (ct_ring_held: its hooks' value capture and its waits for
 * ring room), so that no call's duration counts the tracer's own work. */
static inline uint64_t prog_time(const ct_tbuf *b, uint64_t now)
{
    uint64_t held = ct_ring_held(&b->ring);
    return now > held ? now - held : 0;
}

/* Closes, as left by tail calls, the open frames a function entering with
 * caller SP csp has replaced. */
static void close_frames_left(ct_tbuf *b, uintptr_t csp)
{
    if (!csp)
        return;
    uint64_t now = 0;
    while (E(b)->depth && E(b)->depth <= CT_DROP_TRACK_FRAMES) {
        uint32_t d = E(b)->depth - 1;
        uintptr_t sp = E(b)->frame_sp[d];
        if (!sp || sp > csp)
            break;
        uint64_t key = E(b)->frame_keys[d];
        if (!now)
            now = ct_now_ns();
        if (frame_close(b))
            ct_tbuf_count_drop(b, 1);
        else
            plain_event(b, CT_REC_TAILCALL, now, key);
    }
}

/* Begins an event record of function key at program time t in its area
 * (build_area), which it returns. */
static uint8_t *record_begin(ct_tbuf *b, ct_rec_type type, uint64_t t, uint64_t key,
                             ct_wbuf *w, ct_event_mark *m, int *inplace)
{
    uint8_t *area = build_area(b, inplace);
    ct_wbuf_init(w, area, b->ring.record_max);
    ct_event_begin(w, type, t, b->tid, key, m);
    return area;
}

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    if (!recording() || watched(id.clientID, 1))
        return;
    ct_mapped_fn *f = (ct_mapped_fn *)id.clientID;
    EH_LOG("enter", f->name);
    ct_tbuf *b = thread_self();
    if (!b)
        return;
    if (atomic_load_explicit(&E(b)->busy, memory_order_relaxed)) {
        /* Re-entered (the runtime ran managed code inside our hook). */
        ct_tbuf_count_drop(b, 1);
        return;
    }
    atomic_store_explicit(&E(b)->busy, 1, memory_order_relaxed);
    uintptr_t csp = caller_sp(b, elt);
    close_frames_left(b, csp);
    /* Out arguments of frames that ended without a leave (an exception, a
     * tail call) at this depth or deeper are not this call's. */
    if (E(b)->nouts)
        outs_forget(b, E(b)->depth);
    uint64_t key = (uint64_t)(uintptr_t)f;
    int inplace;
    ct_wbuf w;
    ct_event_mark m;
    uint8_t *area = record_begin(b, CT_REC_ENTER, 0, key, &w, &m, &inplace);
    uint64_t t;
    if (f->values && (!g_gated || E(b)->gate || f->trigger)) {
        /* The call starts now; the capture is the tracer's time. */
        uint64_t t0 = ct_now_ns();
        t = prog_time(b, t0);
        if (!capture_args(b, f, elt, &w, &m)) {
            /* Start again without values. */
            if (E(b)->class_new)
                forget_classes(b);
            ct_wbuf_init(&w, area, b->ring.record_max);
            ct_event_begin(&w, CT_REC_ENTER, 0, b->tid, key, &m);
        }
        uint64_t t1 = ct_now_ns();
        ct_ring_hold(&b->ring, t1 > t0 ? t1 - t0 : 0);
    } else {
        t = prog_time(b, ct_now_ns());
    }
    ct_event_set_time(&w, &m, t);
    frame_open(b, key, !publish_event(b, &w, &m, area, CT_REC_ENTER, t, key, inplace), csp);
    atomic_store_explicit(&E(b)->busy, 0, memory_order_release);
}

/* The common start of a slow-path event that closes a frame (leave,
 * tailcall): this thread's buffer, marked busy; or NULL when nothing is to be
 * recorded (a re-entered hook or a frame whose enter was dropped counts as a
 * drop). */
static inline ct_tbuf *close_event_begin(void)
{
    if (!recording())
        return NULL;
    ct_tbuf *b = thread_self();
    if (!b)
        return NULL;
    if (g_attached && !E(b)->depth)
        return NULL; /* entered before the trace began */
    if (atomic_load_explicit(&E(b)->busy, memory_order_relaxed) || frame_close(b)) {
        ct_tbuf_count_drop(b, 1);
        return NULL;
    }
    atomic_store_explicit(&E(b)->busy, 1, memory_order_relaxed);
    return b;
}

/* The end of a LEAVE record's values (after the return value's): the out
 * arguments; then, when the capture took longer than a scalar's (which
 * costs less than reading the clock), its time is the tracer's, not the
 * caller's. now: when the leave began. */
static void leave_outs(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m,
                       uint64_t now)
{
    if (f->out_mask)
        outs_capture(b, f, w, m);
    if (w->len > CT_EVENT_BASE_BYTES + LEAVE_HOLD_MIN_BYTES) {
        uint64_t t1 = ct_now_ns();
        ct_ring_hold(&b->ring, t1 > now ? t1 - now : 0);
    }
}

void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    uint64_t now = ct_now_ns();
    ct_mapped_fn *f = (ct_mapped_fn *)id.clientID;
    if (watched(id.clientID, 0))
        return;
    EH_LOG("leave", f->name);
    ct_tbuf *b = close_event_begin();
    if (!b)
        return;
    uint64_t key = (uint64_t)(uintptr_t)f;
    int inplace;
    ct_wbuf w;
    ct_event_mark m;
    uint64_t t = prog_time(b, now);
    uint8_t *area = record_begin(b, CT_REC_LEAVE, t, key, &w, &m, &inplace);
    if (f->values && (f->has_ret || f->out_mask) && (!g_gated || E(b)->gate || f->trigger)) {
        ICorProfilerInfo *info = g_ct.info;
        COR_PRF_FRAME_INFO frame = 0;
        COR_PRF_FUNCTION_ARGUMENT_RANGE range = {0, 0};
        if (!f->has_ret) {
            /* void: only the out arguments */
        } else if (ct_argmap_leave(f, elt, &range)) {
            capture_value(b, &w, &m, ct_arg_plan(f, f->nargs), range.startAddress, range.length,
                          g_ct.cfg.object_depth);
        } else {
            ct_argmap_snapshot *snap = NULL;
            if (ct_argmap_learning_leave(f)) {
                snap = &E(b)->snap;
                ct_argmap_snap(snap, elt, E(b)->stack_hi);
            }
            if (SUCCEEDED(info->lpVtbl->GetFunctionLeave3Info(info, f->id, elt, &frame, &range))) {
                if (snap)
                    ct_argmap_learn_leave(f, snap, &range);
                capture_value(b, &w, &m, ct_arg_plan(f, f->nargs), range.startAddress,
                              range.length, g_ct.cfg.object_depth);
            } else if (f->out_mask) {
                /* The out values come after the return value's place. */
                capture_value(b, &w, &m, ct_arg_plan(f, f->nargs), 0, 0, 0);
            }
        }
        leave_outs(b, f, &w, &m, now);
    }
    publish_event(b, &w, &m, area, CT_REC_LEAVE, t, key, inplace);
    atomic_store_explicit(&E(b)->busy, 0, memory_order_release);
}

/* A record without values (tail call, unwind; the fast path's events); now
 * is the clock's time. */
static void plain_event(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key)
{
    uint8_t *p;
    now = prog_time(b, now);
    if (g_naive) {
        uint8_t rec[CT_EVENT_BASE_BYTES];
        p = rec;
        ct_wbuf w;
        ct_event_mark m;
        ct_wbuf_init(&w, rec, sizeof rec);
        ct_event_begin(&w, type, now, b->tid, key, &m);
        ct_event_end(&w, &m);
        ct_writer_naive_event(rec, w.len);
        if (type == CT_REC_ENTER)
            frame_open(b, key, 0, 0);
        return;
    }
    p = ct_ring_reserve(&b->ring, CT_EVENT_BASE_BYTES);
    if (!p) {
        ct_tbuf_count_drop(b, 1);
        if (type == CT_REC_ENTER)
            frame_open(b, key, 1, 0);
        return;
    }
    /* The record laid out by hand (little-endian, 8-byte aligned): type,
     * reserved, no values, payload length 24; time, thread, key. */
    uint64_t word0 = (uint64_t)type | (uint64_t)(CT_EVENT_BASE_BYTES - 8) << 32;
    memcpy(p, &word0, 8);
    memcpy(p + 8, &now, 8);
    memcpy(p + 16, &b->tid, 8);
    memcpy(p + 24, &key, 8);
    ct_ring_commit(&b->ring, CT_EVENT_BASE_BYTES);
    if (type == CT_REC_ENTER)
        frame_open(b, key, 0, 0);
}

void ct_null_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    (void)id;
    (void)elt;
}

void ct_null_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    (void)id;
    (void)elt;
}

/* ----------------------------------------------------- the fast path */

/* Called by the stubs of src/agent/engines/elt/asm straight from JIT-compiled code. */
static inline void fast_event(ct_rec_type type, uintptr_t id)
{
    if (g_mode != CT_HOOKS_FAST || !recording() || watched(id, type == CT_REC_ENTER))
        return;
    uint64_t now = ct_now_ns();
    ct_tbuf *b = thread_self();
    if (!b)
        return;
    if (type != CT_REC_ENTER && g_attached && !E(b)->depth)
        return; /* entered before the trace began */
    if (type != CT_REC_ENTER && frame_close(b)) {
        ct_tbuf_count_drop(b, 1);
        return;
    }
    plain_event(b, type, now, (uint64_t)id);
}

void ct_fast_enter(uintptr_t client_id)
{
    fast_event(CT_REC_ENTER, client_id);
}

void ct_fast_leave(uintptr_t client_id)
{
    fast_event(CT_REC_LEAVE, client_id);
}

void ct_fast_tailcall(uintptr_t client_id)
{
    fast_event(CT_REC_TAILCALL, client_id);
}

/* ------------------------------------------------ the IL engine's probes */

/* The argument addresses the probes at a method's entry hand over, one call
 * each, before its enter probe (src/agent/engines/il). */
static __thread uintptr_t t_probe_args[CT_PROBE_MAX_ARGS];
static __thread uint32_t t_probe_nargs;

/* The type handles generic code's entry hands over (CT_MAX_TYPE_ARGS + 1:
 * the class, then the method's type arguments). */
#define PROBE_MAX_HANDLES (CT_MAX_TYPE_ARGS + 1)
static __thread uintptr_t t_probe_targs[PROBE_MAX_HANDLES];
static __thread uint32_t t_probe_ntargs;

void ct_probe_targ(uintptr_t handle)
{
    uint32_t n = t_probe_ntargs;
    if (n < PROBE_MAX_HANDLES)
        t_probe_targs[n] = handle;
    t_probe_ntargs = n + 1;
}

/* The instantiation of definition def that the handles name, or def. */
static const ct_mapped_fn *probe_instance(ct_tbuf *b, const ct_mapped_fn *def, uint32_t n)
{
    if (n > PROBE_MAX_HANDLES)
        return def;
    uintptr_t hash = (uintptr_t)def >> 4;
    for (uint32_t i = 0; i < n; i++)
        hash = hash * 31 + (t_probe_targs[i] >> 4);
    __typeof__(E(b)->inst_cache[0]) *e = &E(b)->inst_cache[hash & (CT_INST_CACHE - 1)];
    if (e->def == def && e->n == n && n <= CT_INST_CACHE_HANDLES &&
        !memcmp(e->h, t_probe_targs, n * sizeof *t_probe_targs))
        return e->inst;
    const ct_mapped_fn *inst = ct_registry_instance(def, t_probe_targs, n);
    if (!inst)
        return def;
    if (n <= CT_INST_CACHE_HANDLES) {
        e->def = def;
        e->inst = inst;
        e->n = n;
        memcpy(e->h, t_probe_targs, n * sizeof *t_probe_targs);
    }
    return inst;
}

void ct_probe_arg(uintptr_t addr)
{
    uint32_t n = t_probe_nargs;
    if (n < CT_PROBE_MAX_ARGS)
        t_probe_args[n] = addr;
    t_probe_nargs = n + 1;
}

/* Whether f's arguments can be read from the addresses the probes gave:
 * one per parameter (a state machine's MoveNext: its `this`), every plan
 * known (not shared generic code's, bound from the runtime's frame
 * information, which the IL engine does not have). */
static int probe_values(const ct_mapped_fn *f, uint32_t nargs)
{
    if (!f->values || f->late)
        return 0;
    if (f->sm_offsets)
        return nargs == 1;
    if (nargs != f->nargs || nargs > CT_PROBE_MAX_ARGS)
        return 0;
    for (uint32_t i = 0; i < nargs; i++)
        if (!ct_arg_plan(f, i))
            return 0;
    return 1;
}

void ct_probe_enter(uintptr_t client_id)
{
    uint32_t nargs = t_probe_nargs, ntargs = t_probe_ntargs;
    t_probe_nargs = t_probe_ntargs = 0;
    if (!recording() || watched(client_id, 1))
        return;
    const ct_mapped_fn *f = (const ct_mapped_fn *)client_id;
    ct_tbuf *b = thread_self();
    if (!b)
        return;
    /* (Past the frames whose keys are kept, the leave could not find the
     * instantiation again: the frame is its definition's.) */
    if (ntargs && f->definition && E(b)->depth < CT_DROP_TRACK_FRAMES)
        f = probe_instance(b, f, ntargs);
    if (atomic_load_explicit(&E(b)->busy, memory_order_relaxed)) {
        ct_tbuf_count_drop(b, 1);
        return;
    }
    atomic_store_explicit(&E(b)->busy, 1, memory_order_relaxed);
    if (E(b)->nouts)
        outs_forget(b, E(b)->depth);
    uint64_t key = (uint64_t)(uintptr_t)f;
    int inplace;
    ct_wbuf w;
    ct_event_mark m;
    uint8_t *area = record_begin(b, CT_REC_ENTER, 0, key, &w, &m, &inplace);
    uint64_t t0 = ct_now_ns(), t = prog_time(b, t0);
    if (probe_values(f, nargs) && (!g_gated || E(b)->gate || f->trigger)) {
        /* The thread is in cooperative mode (the probe's calli suppresses
         * the GC transition): nothing moves while the values are copied. */
        if (f->sm_offsets) {
            state_machine_values(b, f, t_probe_args[0], &w, &m);
        } else {
            COR_PRF_FUNCTION_ARGUMENT_RANGE r[CT_PROBE_MAX_ARGS];
            for (uint32_t i = 0; i < nargs; i++) {
                const ct_plan *p = ct_arg_plan(f, i);
                r[i].startAddress = t_probe_args[i];
                r[i].length = slot_len(p);
                capture_value(b, &w, &m, p, r[i].startAddress, r[i].length,
                              arg_object_depth(f, i));
            }
            if (f->out_mask)
                outs_track(b, f, r, nargs);
        }
        uint64_t t1 = ct_now_ns();
        ct_ring_hold(&b->ring, t1 > t0 ? t1 - t0 : 0);
    }
    ct_event_set_time(&w, &m, t);
    frame_open(b, key, !publish_event(b, &w, &m, area, CT_REC_ENTER, t, key, inplace), 0);
    atomic_store_explicit(&E(b)->busy, 0, memory_order_release);
}

/* A frame the IL engine's probe closes: a LEAVE, with the return value at
 * ret_addr (when has_ret; else the value reads missing) and the out
 * arguments when f has them; else a plain LEAVE or TAILCALL. */
static void probe_close(ct_rec_type type, uintptr_t id, int has_ret, uintptr_t ret_addr)
{
    uint64_t now = ct_now_ns();
    if (watched(id, 0))
        return;
    /* Generic code: the frame's record is the instantiation its entry
     * found. */
    const ct_mapped_fn *def = (const ct_mapped_fn *)id;
    if (def->definition && t_self && E(t_self)->depth &&
        E(t_self)->depth <= CT_DROP_TRACK_FRAMES) {
        uint64_t top = E(t_self)->frame_keys[E(t_self)->depth - 1];
        if (top && ((const ct_mapped_fn *)(uintptr_t)top)->def == def)
            id = (uintptr_t)top;
    }
    ct_tbuf *b = close_event_begin();
    if (!b)
        return;
    const ct_mapped_fn *f = (const ct_mapped_fn *)id;
    uint64_t key = (uint64_t)id;
    if (type != CT_REC_LEAVE || !f->values || !(has_ret || f->out_mask) ||
        (g_gated && !E(b)->gate && !f->trigger)) {
        plain_event(b, type, now, key);
        atomic_store_explicit(&E(b)->busy, 0, memory_order_release);
        return;
    }
    int inplace;
    ct_wbuf w;
    ct_event_mark m;
    uint64_t t = prog_time(b, now);
    uint8_t *area = record_begin(b, CT_REC_LEAVE, t, key, &w, &m, &inplace);
    /* The out values come after the return value's place. */
    if (f->has_ret) {
        const ct_plan *p = ct_arg_plan(f, f->nargs);
        capture_value(b, &w, &m, p, p ? ret_addr : 0, p ? slot_len(p) : 0,
                      g_ct.cfg.object_depth);
    }
    leave_outs(b, f, &w, &m, now);
    publish_event(b, &w, &m, area, CT_REC_LEAVE, t, key, inplace);
    atomic_store_explicit(&E(b)->busy, 0, memory_order_release);
}

void ct_probe_leave(uintptr_t client_id)
{
    probe_close(CT_REC_LEAVE, client_id, 0, 0);
}

void ct_probe_return(uintptr_t ret_addr, uintptr_t client_id)
{
    probe_close(CT_REC_LEAVE, client_id, 1, ret_addr);
}

void ct_probe_tailcall(uintptr_t client_id)
{
    probe_close(CT_REC_TAILCALL, client_id, 0, 0);
}

/* ------------------------------------------------------------- the JIT */

/* The outermost compilation running on this thread, and how deep. */
static __thread uint64_t t_jit_start;
static __thread uint32_t t_jit_depth;

void ct_jit_started(void)
{
    if (t_jit_depth++ == 0)
        t_jit_start = ct_now_ns();
}

void ct_jit_finished(FunctionID id)
{
    if (!t_jit_depth || --t_jit_depth)
        return;
    uint64_t now = ct_now_ns();
    uint64_t ns = now > t_jit_start ? now - t_jit_start : 0;
    /* A thread with a buffer has traced calls: their times leave it out. */
    if (t_self)
        ct_ring_hold_jit(&t_self->ring, ns);
    const ct_mapped_fn *f = ct_registry_find(id);
    ct_writer_jit(f && f->hooked ? (uint64_t)(uintptr_t)f : 0, ns,
                  t_self ? t_self->tid : (uint64_t)syscall(SYS_gettid));
}

/* ---------------------------------------------------------- exceptions */

/* The exception callbacks feed this thread's model of the exceptions in
 * flight (ehmodel.h, t_eh), which says which frames an exception has
 * popped; they are closed here with an UNWIND event each. A thread that has
 * made no traced call has no buffer and no frames (depth 0), but its
 * exceptions are followed all the same: traced calls may start inside a
 * catch or finally block, and an unhandled exception ends every thread. */

static void (*g_on_fatal)(void);

void ct_hooks_on_fatal(void (*fn)(void))
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
    uint32_t d = E(b)->depth;
    if (d > CT_DROP_TRACK_FRAMES)
        return d;
    for (uint32_t i = d; i-- > 0;) {
        const ct_mapped_fn *k = (const ct_mapped_fn *)(uintptr_t)E(b)->frame_keys[i];
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
    __typeof__(E(b)->exc[0]) *x = &E(b)->exc[serial % CT_EXC_SLOTS];
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
        size_t n = ct_capture(ct_unwind_plan(1), &ref, &g_layout, &lim, NULL, NULL,
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
    const __typeof__(E(b)->exc[0]) *x = &E(b)->exc[serial % CT_EXC_SLOTS];
    /* Built here (the fast path's buffers have no scratch): the header, the
     * values, padding. */
    uint8_t rec[CT_EVENT_BASE_BYTES + sizeof x->values + 8];
    ct_wbuf w;
    ct_event_mark m;
    if (!serial || x->serial != serial) {
        plain_event(b, CT_REC_UNWIND, now, key);
        return;
    }
    ct_wbuf_init(&w, rec, sizeof rec);
    ct_event_begin(&w, CT_REC_UNWIND, prog_time(b, now), b->tid, key, &m);
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
        plain_event(b, CT_REC_UNWIND, now, key);
        return;
    }
    emit(b, rec, w.len);
}

/* Closes this thread's frames above `depth` (CT_EH_NONE: none) as left by an
 * exception: an UNWIND event each, with its own function. Frames deeper than
 * the kept keys are closed with the function of FunctionID fid (exact for
 * the one frame an unwind leave closes). */
static void unwind_to(ct_tbuf *b, uint32_t depth, FunctionID fid, uint64_t now, uint32_t serial)
{
    if (depth == CT_EH_NONE || E(b)->depth <= depth || !recording() ||
        atomic_load_explicit(&E(b)->busy, memory_order_relaxed))
        return;
    atomic_store_explicit(&E(b)->busy, 1, memory_order_relaxed);
    uint64_t deep_key = 0;
    if (E(b)->depth > CT_DROP_TRACK_FRAMES)
        deep_key = (uint64_t)(uintptr_t)traced_function(fid);
    while (E(b)->depth > depth) {
        uint32_t d = E(b)->depth - 1;
        uint64_t key = d < CT_DROP_TRACK_FRAMES ? E(b)->frame_keys[d] : deep_key;
        if (frame_close(b) || !key)
            ct_tbuf_count_drop(b, 1);
        else
            unwind_event(b, now, key, serial);
    }
    atomic_store_explicit(&E(b)->busy, 0, memory_order_release);
}

void ct_ex_thrown(ObjectID thrown)
{
    EH_LOG("thrown", NULL);
    ct_eh_thrown(&t_eh);
    /* A thread without a buffer has no frames this exception can leave. */
    ct_tbuf *b = t_self;
    if (b && recording())
        exc_capture(b, ct_eh_serial(&t_eh), thrown);
}

void ct_ex_search_enter(FunctionID id)
{
    EH_LOG("search", eh_name(id));
    ct_eh_search_enter(&t_eh, id);
}

void ct_ex_search_leave(void)
{
    EH_LOG("search-leave", NULL);
    ct_eh_search_leave(&t_eh);
}

void ct_ex_catcher_found(void)
{
    EH_LOG("found", NULL);
    ct_eh_catcher_found(&t_eh);
}

void ct_ex_filter_enter(void)
{
    EH_LOG("filter", NULL);
    ct_tbuf *b = t_self;
    ct_eh_filter_enter(&t_eh, b ? E(b)->depth : 0);
}

void ct_ex_filter_leave(void)
{
    EH_LOG("filter-leave", NULL);
    uint64_t now = ct_now_ns();
    /* Frames left open above the filter were left by the exception thrown
     * inside it (the newest), which the leave ends. */
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_filter_leave(&t_eh);
    ct_tbuf *b = t_self;
    if (b)
        unwind_to(b, depth, 0, now, serial);
}

void ct_ex_unwind_function_enter(FunctionID id)
{
    EH_LOG("unwind", eh_name(id));
    uint64_t now = ct_now_ns();
    ct_tbuf *b = t_self;
    const ct_mapped_fn *f = b ? traced_function(id) : NULL;
    uint32_t depth = !b ? 0 : f ? frame_depth_of(b, f) : E(b)->depth;
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
    EH_LOG("unwind-leave", NULL);
    uint64_t now = ct_now_ns();
    uint64_t fid = 0;
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_unwind_leave(&t_eh, &fid);
    ct_tbuf *b = t_self;
    if (b)
        unwind_to(b, depth, (FunctionID)fid, now, serial);
}

void ct_ex_finally_enter(void)
{
    EH_LOG("finally", NULL);
    uint64_t now = ct_now_ns();
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_finally_enter(&t_eh);
    ct_tbuf *b = t_self;
    if (b)
        unwind_to(b, depth, 0, now, serial);
}

void ct_ex_finally_leave(void)
{
    EH_LOG("finally-leave", NULL);
    ct_eh_finally_leave(&t_eh);
}

void ct_ex_catcher_enter(FunctionID id)
{
    EH_LOG("catch", eh_name(id));
    uint64_t now = ct_now_ns();
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_catcher_enter(&t_eh, id);
    ct_tbuf *b = t_self;
    if (b)
        unwind_to(b, depth, 0, now, serial);
}

void ct_ex_catcher_leave(void)
{
    EH_LOG("catch-leave", NULL);
    ct_eh_catcher_leave(&t_eh);
}

/* AppContext.OnUnhandledException (watched, see registry.c) entered on this
 * thread: the runtime's unhandled-exception path, or a program raising the
 * event itself (ExceptionHandling.RaiseAppDomainUnhandledExceptionEvent).
 * The model tells them apart: only the first is inside the first pass of an
 * exception that found no catcher. */
static void on_unhandled(void)
{
    EH_LOG("unhandled", NULL);
    ct_eh_unhandled(&t_eh);
}
