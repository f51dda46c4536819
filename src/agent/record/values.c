/* A value captured with its plan into the event being built (internal.h):
 * the common cases copied at once, the rest through ct_capture with the
 * thread's class cache; the out arguments remembered at enter and read
 * again at return. */
#include "internal.h"

#include <sys/uio.h>
#include <unistd.h>

#include "agent/model/classnames.h"

/* Learns System.String's class id from the first string met in an object
 * slot (a class-cache miss until then costs a name lookup, cached). */
static void note_string_class(ClassID cls)
{
    char name[32];
    if (ct_classid_name(cls, CT_NAME_FULL, name, sizeof name) == 0 &&
        (!strcmp(name, "System.String") || !strcmp(name, "string")))
        __atomic_store_n(&g_rec.layout.string_class, (uint64_t)cls, __ATOMIC_RELAXED);
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
    ct_rec_thread *t = ct_rec_of(b);
    /* Two ways a set, the latest first. Method tables are 8-byte aligned
     * and allocated near each other. */
    ct_rec_class *e = &t->class_cache[(((mt >> 3) ^ (mt >> 13)) & (CT_CLASS_SETS - 1)) * 2];
    if (e->mt != mt && e[1].mt == mt) {
        ct_rec_class hit = e[1];
        e[1] = e[0];
        e[0] = hit;
    } else if (e->mt != mt) {
        e[1] = e[0];
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
        if (!__atomic_load_n(&g_rec.layout.string_class, __ATOMIC_RELAXED))
            note_string_class(cls);
        CorElementType et = 0;
        ClassID elem = 0;
        ULONG rank = 0;
        e->mt = mt;
        e->cls = cls;
        e->boxed = (uint8_t)ct_plan_boxed_kind(cls);
        e->string = cls == __atomic_load_n(&g_rec.layout.string_class, __ATOMIC_RELAXED);
        e->szarray = info->lpVtbl->IsArrayClass(info, cls, &et, &elem, &rank) == S_OK &&
                     rank == 1;
        e->content = NULL;
        e->again = !e->string && e->boxed == CT_V_VOID ? -1 : 0;
        e->told = 0; /* never a told value: those have bit 0 or 1 set */
    }
    uint64_t waited_for = 1;
    if (e->again > 0)
        memcpy(&waited_for, (const uint8_t *)(uintptr_t)object + e->again - 1, sizeof waited_for);
    if (e->again && waited_for) {
        int again = 0;
        e->content = ct_plan_content((ClassID)e->cls, (const void *)(uintptr_t)object, &again);
        e->again = again;
    }
    uint32_t told = t->class_gen << 2 | (e->content ? 2u : 1u);
    if (named && e->told != told) {
        e->told = told;
        t->class_new = 1;
    }
    out->id = e->cls;
    out->boxed = (ct_vkind)e->boxed;
    out->content = e->content;
    out->szarray = e->szarray;
    out->string = e->string;
    /* A Task's exception (the Task form's last field): when it failed. */
    if (e->content && e->content->shape == CT_FORM_TASK &&
        ct_task_exception_at(e->content) != UINT32_MAX)
        out->found = ct_rec_task_exception((uintptr_t)object, e->content);
}

void ct_rec_class_info(ct_tbuf *b, uint64_t object, ct_class_info *out)
{
    class_of(b, object, 0, out);
}

void ct_rec_forget_classes(ct_tbuf *b)
{
    ct_rec_thread *t = ct_rec_of(b);
    /* Counted up: no entry is told in the new generation. Once the count
     * wraps (told keeps 30 bits of it), the entries are cleared, lest one
     * told 2^30 forgets ago read as told. */
    t->class_gen = (t->class_gen + 1) & (UINT32_MAX >> 2);
    if (!t->class_gen)
        memset(t->class_cache, 0, sizeof t->class_cache);
}

void ct_rec_restart(ct_tbuf *b, ct_rec_event *ev)
{
    if (ct_rec_of(b)->class_new)
        ct_rec_forget_classes(b);
    ct_wbuf_init(&ev->w, ev->area, b->ring.record_max);
    ct_event_begin(&ev->w, ev->type, 0, 0, b->tid, ev->key, &ev->m);
}

/* The length a range must have for the plan to read it as planned. */
static int range_fits(const ct_plan *p, size_t len)
{
    return len == ct_rec_slot_len(p) || (p->kind == CT_V_ELIDED && p->size == 0);
}

/* 1 when the plan's encoding is empty (void, elided, a struct of nothing):
 * ct_capture then rightly returns 0. */
static int captures_nothing(const ct_plan *p, unsigned depth)
{
    if (p->kind == CT_V_VOID || p->kind == CT_V_ELIDED || p->kind == CT_V_REDACTED)
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
    ct_rec_thread *t = ct_rec_of(b);
    if (addr >= t->stack_lo && addr < t->stack_hi && n <= t->stack_hi - addr)
        return (const void *)addr;
    if (n > CT_BOUNCE_BYTES || !ct_plan_is_flat(target, 1) || checked_copy(t->bounce, addr, n))
        return NULL;
    return t->bounce;
}

/* Appends one value to the event being built in w; object_depth: the
 * levels of objects shown by content (0 for `this`: its class and address
 * say which object it is). */
void ct_rec_value(ct_tbuf *b, ct_wbuf *w, ct_event_mark *m, const ct_plan *p, uintptr_t addr,
                  size_t len, uint32_t object_depth)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (t->collect) {
        /* A condition reads this value (when_eval.c); it is captured later, if
         * the condition holds. */
        if (t->nslots < CT_WHEN_MAX_ARGS) {
            t->slot[t->nslots] = addr;
            t->slot_len[t->nslots] = (uint32_t)len;
            t->slot_plan[t->nslots] = p;
        }
        t->nslots++;
        return;
    }
    if (w->cap - w->len < 4 + CT_BY_RANGE_MAX_BYTES + 8) {
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
    /* A secret: nothing of it is copied, whatever its range. */
    if (p->kind == CT_V_REDACTED) {
        ct_event_value_commit_status(w, m, 0, CT_VALUE_PLAN);
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
        size_t n = len < CT_BY_RANGE_MAX_BYTES ? len : CT_BY_RANGE_MAX_BYTES;
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
    for (int attempt = 0; attempt <= CT_CAPTURE_RETRIES; attempt++) {
        size_t n = ct_capture(p, src, &g_rec.layout, &lim, class_of, b, body + skip, room - skip);
        if (n || captures_nothing(p, 0)) {
            ct_event_value_commit_status(w, m, n + skip, CT_VALUE_PLAN);
            return;
        }
        if (ct_rec_of(b)->class_new)
            ct_rec_forget_classes(b);
        lim.string_chars /= CT_CAPTURE_RETRY_DIVISOR;
        lim.array_items /= CT_CAPTURE_RETRY_DIVISOR;
        lim.object_depth /= 2;
        lim.value_bytes /= CT_CAPTURE_RETRY_DIVISOR;
    }
    ct_event_value_commit_status(w, m, 0, CT_VALUE_TOO_LARGE);
}

int ct_rec_values_collected(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m)
{
    ct_rec_thread *t = ct_rec_of(b);
    uint32_t n = t->nslots;
    if (n > CT_WHEN_MAX_ARGS)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        ct_rec_value(b, w, m, t->slot_plan[i], t->slot[i], t->slot_len[i], ct_rec_arg_depth(f, i));
    if (f->out_mask && !f->sm_offsets) {
        COR_PRF_FUNCTION_ARGUMENT_RANGE r[CT_WHEN_MAX_ARGS];
        for (uint32_t i = 0; i < n; i++) {
            r[i].startAddress = t->slot[i];
            r[i].length = t->slot_len[i];
        }
        ct_rec_outs_track(b, f, r, n);
    }
    return 1;
}

/* The values of state machine f, read from the fields of the state
 * machine whose `this` is at this_slot (the struct's address, or the
 * object reference of a class). */
void ct_rec_state_machine(ct_tbuf *b, const ct_mapped_fn *f, uintptr_t this_slot, ct_wbuf *w,
                          ct_event_mark *m)
{
    uint64_t base;
    memcpy(&base, (const void *)this_slot, 8);
    /* Where the body's state machine is, for its builder's SetException
     * (unwind.c): the frame being entered is at the current depth. */
    ct_rec_thread *t = ct_rec_of(b);
    if (f->sm_fault_at != CT_SM_NO_FIELD && !t->collect) {
        uint32_t d = t->depth + 1;
        while (t->nbodies && t->bodies[t->nbodies - 1].depth >= d)
            t->nbodies--; /* bodies closed since */
        if (t->nbodies < CT_ASYNC_BODIES) {
            t->bodies[t->nbodies].depth = d;
            t->bodies[t->nbodies].key = (uint64_t)(uintptr_t)f;
            t->bodies[t->nbodies].base = (uintptr_t)base;
            t->nbodies++;
        }
    }
    for (uint32_t i = 0; i < f->nargs; i++) {
        const ct_plan *p = ct_arg_plan(f, i);
        uint32_t off = f->sm_offsets[i];
        uintptr_t addr = base && off != CT_SM_NO_FIELD ? (uintptr_t)(base + off) : 0;
        ct_rec_value(b, w, m, p, addr, ct_rec_slot_len(p), ct_rec_arg_depth(f, i));
    }
}

/* Remembers where f's out, ref and in arguments point, for the frame being
 * entered (at the current depth), when the target is in this thread's
 * stack: a local, still there when the call returns. A target elsewhere (a
 * field, an array element) may move with a GC before then: not read again. */
void ct_rec_outs_track(ct_tbuf *b, const ct_mapped_fn *f,
                       const COR_PRF_FUNCTION_ARGUMENT_RANGE *r, uint32_t n)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (t->collect)
        return; /* a condition's values: tracked when the call is captured */
    uint32_t d = t->depth;
    ct_rec_outs_forget(b, d);
    for (uint32_t i = 0; i < n && i < 64; i++) {
        uintptr_t target;
        if (!(f->out_mask >> i & 1) || !r[i].startAddress || r[i].length != sizeof target)
            continue;
        memcpy(&target, (const void *)r[i].startAddress, sizeof target);
        if (target < t->stack_lo || target >= t->stack_hi || t->nouts >= CT_OUT_TRACK)
            continue;
        t->outs[t->nouts].depth = d;
        t->outs[t->nouts].arg = i;
        t->outs[t->nouts].target = target;
        t->nouts++;
    }
}

/* The LEAVE values of f's out arguments, in order: each target read again
 * (from the frame now closing, at the current depth), or MISSING. */
static void outs_capture(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m)
{
    const ct_rec_thread *t = ct_rec_of(b);
    uint32_t d = t->depth;
    for (uint32_t i = 0; i < f->nargs && i < 64; i++) {
        if (!(f->out_mask >> i & 1))
            continue;
        uintptr_t target = 0;
        for (uint32_t k = t->nouts; k > 0 && t->outs[k - 1].depth >= d; k--)
            if (t->outs[k - 1].depth == d && t->outs[k - 1].arg == i)
                target = t->outs[k - 1].target;
        const ct_plan *p = f->args[i].plan->elem;
        ct_rec_value(b, w, m, p, target, ct_rec_slot_len(p), g_ct.cfg.object_depth);
    }
    ct_rec_outs_forget(b, d);
}

/* The end of a LEAVE record's values (after the return value's): the out
 * arguments; then, when the capture took longer than a scalar's (which
 * costs less than reading the clock), its time is the tracer's, not the
 * caller's. now: when the leave began. */
void ct_rec_leave_outs(ct_tbuf *b, const ct_mapped_fn *f, ct_wbuf *w, ct_event_mark *m,
                       uint64_t now)
{
    if (f->out_mask)
        outs_capture(b, f, w, m);
    if (w->len > CT_EVENT_BASE_BYTES + CT_LEAVE_HOLD_MIN_BYTES) {
        uint64_t t1 = ct_now_ns();
        ct_ring_hold(&b->ring, t1 > now ? t1 - now : 0);
    }
}
