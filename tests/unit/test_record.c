/* The recorder (src/agent/record/record.h) alone, with its thread's ring:
 * frames pushed and popped (a dropped enter drops its leave; the gate of
 * trigger functions), values captured with hand-built plans into event
 * records read back from the ring, out arguments read again at return, the
 * enter and close skeletons, and records dropped when a lossy ring is full.
 * What the recorder asks of the runtime and of the rest of the profiler is
 * faked below (a tiny ICorProfilerInfo, the writer's hooks, the planner's
 * class queries). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/writer/writer.h"
#include "agent/model/classnames.h"
#include "agent/record/skeletons.h"

/* ------------------------------------------------------------ the fakes */

ct_state g_ct;

/* Objects' classes are their method table word; nothing is an array. */
static HRESULT fake_class_from_object(ICorProfilerInfo *self, ObjectID obj, ClassID *cls)
{
    (void)self;
    memcpy(cls, (const void *)(uintptr_t)obj, sizeof *cls);
    return S_OK;
}

static HRESULT fake_is_array_class(ICorProfilerInfo *self, ClassID cls, CorElementType *et,
                                   ClassID *elem, ULONG *rank)
{
    (void)self, (void)cls, (void)et, (void)elem, (void)rank;
    return S_FALSE;
}

static HRESULT fake_string_layout(ICorProfilerInfo *self, ULONG *len_off, ULONG *buf_off)
{
    (void)self;
    *len_off = 8;
    *buf_off = 12;
    return S_OK;
}

static const ICorProfilerInfoVtbl k_vtbl = {
    .GetClassFromObject = fake_class_from_object,
    .IsArrayClass = fake_is_array_class,
    .GetStringLayout2 = fake_string_layout,
};
static ICorProfilerInfo k_info = {&k_vtbl};

const ct_plan ct_plan_by_range = {.kind = CT_V_OPAQUE, .size = 0, .type_name = "?"};

ct_vkind ct_plan_boxed_kind(ClassID cls)
{
    (void)cls;
    return CT_V_VOID;
}

/* A Task<int>'s content (the TASK form: m_stateFlags, m_result), the one
 * class the async tests' tasks have. */
#define TASK_CLASS 0x7100
static const ct_plan k_i4_task = {.kind = CT_V_I4, .size = 4, .type_name = "int"};
static const ct_field k_task_fields[] = {{"m_stateFlags", 8, &k_i4_task},
                                         {"m_result", 12, &k_i4_task}};
static const ct_plan k_task_content = {.kind = CT_V_CLASS, .size = 16, .type_name = "Task<int>",
                                       .shape = CT_FORM_TASK, .count = 2,
                                       .fields = k_task_fields};

const ct_plan *ct_plan_content_known(ClassID cls)
{
    return cls == TASK_CLASS ? &k_task_content : NULL;
}

const ct_plan *ct_plan_content(ClassID cls, const void *obj, int *again)
{
    (void)obj;
    *again = 0;
    return ct_plan_content_known(cls);
}

int ct_plan_is_flat(const ct_plan *p, unsigned depth)
{
    (void)depth;
    return p->kind >= CT_V_BOOL && p->kind <= CT_V_U;
}

int ct_classid_name(ClassID cls, ct_name_style style, char *out, size_t cap)
{
    (void)cls, (void)style, (void)out, (void)cap;
    return -1;
}

static int g_unhandled;
/* An async body owning the builder SetResult/SetException is called on
 * (record/bodies.c): as the test says. */
static int g_body_owns;
/* --srcline's LINE records (exclines.c): not recorded here. */
void ct_rec_line_event(ct_tbuf *b, uint64_t now, uint64_t key, uint32_t serial)
{
    (void)b, (void)now, (void)key, (void)serial;
}

int ct_rec_async_body_owns(ct_tbuf *b, uintptr_t builder)
{
    (void)b, (void)builder;
    return g_body_owns;
}

/* Field offsets and exceptions read (record/excobject.c, bodies.c): none here (the
 * attached body's end of a faulted task is not tested here). */
void ct_rec_field_offsets(ClassID cls, const char *const *names, uint32_t *offsets, int n,
                          uint32_t size)
{
    (void)cls, (void)names, (void)size;
    for (int k = 0; k < n; k++)
        offsets[k] = CT_REC_NO_FIELD;
}

const ct_rec_exc *ct_rec_mark_fault(ct_tbuf *b, uint64_t exc)
{
    (void)b, (void)exc;
    return NULL;
}

void ct_rec_exc_capture(ct_rec_exc *x, uint64_t obj)
{
    (void)obj;
    x->serial = 0;
}

/* A condition's path that could not be read (model/when_bind.c counts them). */
void ct_when_unreadable(uint32_t index, uint32_t path)
{
    (void)index;
    (void)path;
}

void ct_rec_on_unhandled(void)
{
    g_unhandled++;
}

/* Trace ids (record/activity.c) stay off in this test: g_act.on is 0. */
ct_activity_state g_act;
atomic_int ct_activity_assembly_seen;
void ct_rec_activity_read(ct_tbuf *b)
{
    (void)b;
}

static int g_naive_events;
void ct_writer_naive_event(const uint8_t *rec, size_t len)
{
    (void)rec, (void)len;
    g_naive_events++;
}

void ct_writer_kick(void)
{
}

int ct_writer_stopped(void)
{
    return 0;
}

/* ------------------------------------------------------------- helpers */

static const ct_plan k_int = {.kind = CT_V_I4, .size = 4, .type_name = "int"};
static const ct_plan k_long = {.kind = CT_V_I8, .size = 8, .type_name = "long"};
static const ct_plan k_ref_int = {.kind = CT_V_BYREF, .size = 8, .type_name = "ref int",
                                  .elem = &k_int};
static const ct_plan k_object = {.kind = CT_V_OBJECT, .size = 8, .type_name = "object"};

/* Sets the recorder up (a lossy ring of ring_kb, values on) and returns
 * this thread's buffer, emptied, with no frames. */
static ct_tbuf *setup(uint32_t ring_kb)
{
    g_ct.info = &k_info;
    g_ct.cfg.object_depth = 2;
    g_ct.cfg.string_chars = 64;
    g_ct.cfg.array_items = 8;
    g_ct.cfg.value_bytes = 1024;
    ct_clock_init();
    ct_recorder_init(CT_HOOKS_SLOW, ring_kb, 1, 0);
    ct_recorder_open();
    ct_tbuf *b = ct_rec_thread_self();
    assert_non_null(b);
    assert_non_null(b->scratch);
    ct_ring_release(&b->ring, ct_ring_head(&b->ring));
    ct_recorder_reset_threads();
    atomic_store(&b->dropped, 0);
    return b;
}

/* The producer's mark of each record published() read (taken off before
 * decoding, as the writer does). */
static uint8_t g_marks[16];

/* The records published in b's ring since the last call, decoded into
 * recs[0..max) (their values point into the ring: read them first). */
/* The type byte each record published() read had in the ring. */
static uint8_t g_ring_types[64];

static size_t published(ct_tbuf *b, ct_rec *recs, size_t max)
{
    static uint8_t arena_mem[4096];
    ct_rarena arena = {arena_mem, sizeof arena_mem, 0};
    uint64_t pos = ct_ring_tail(&b->ring), end = ct_ring_head(&b->ring), size;
    const uint8_t *p;
    size_t n = 0;
    while ((p = ct_ring_peek(&b->ring, &pos, end, &size))) {
        ct_trace_status st;
        assert_true(n < max);
        if (n < sizeof g_marks)
            g_marks[n] = p[CT_EVENT_MARK_AT];
        ((uint8_t *)(uintptr_t)p)[CT_EVENT_MARK_AT] = 0;
        /* A runtime-async call's end, as the writer reads it. */
        if (n < sizeof g_ring_types / sizeof *g_ring_types)
            g_ring_types[n] = p[0];
        if (p[0] == CT_RING_RT_RETURN)
            ((uint8_t *)(uintptr_t)p)[0] = (uint8_t)CT_REC_ASYNC_RETURN;
        if (recs) /* NULL: skipped */
            assert_true(ct_read_record(p, (size_t)size, 0, &arena, &recs[n], &st) > 0);
        n++;
        pos += size;
    }
    ct_ring_release(&b->ring, pos);
    return n;
}

/* Value i of record r: its bytes and status. */
static const uint8_t *value_at(const ct_rec *r, uint32_t i, uint32_t *len, ct_value_status *st)
{
    size_t pos = 0;
    const uint8_t *v = NULL;
    for (uint32_t k = 0; k <= i; k++)
        assert_int_equal(ct_next_value(r, &pos, &v, len, st), 1);
    return v;
}

/* A function record of n arguments of the given plans (labels "a=" ...). */
typedef struct fake_fn {
    ct_mapped_fn f;
    ct_arg args[4];
} fake_fn;

static void fake_fn_init(fake_fn *ff, const ct_plan *const *plans, uint32_t n, const ct_plan *ret)
{
    memset(ff, 0, sizeof *ff);
    for (uint32_t i = 0; i < n; i++) {
        ff->args[i].label = "a=";
        ff->args[i].plan = plans[i];
    }
    ff->f.name = "Fake.Fn";
    ff->f.hooked = 1;
    ff->f.values = 1;
    ff->f.nargs = n;
    ff->f.args = ff->args;
    ff->f.has_ret = ret != NULL;
    ff->f.ret = ret;
}

/* --------------------------------------------------------------- frames */

static void test_frames_pushed_and_popped(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    ct_rec_thread *t = ct_rec_of(b);
    static fake_fn fns[3];
    uint64_t k[3];
    for (int i = 0; i < 3; i++) {
        fake_fn_init(&fns[i], NULL, 0, NULL);
        k[i] = (uint64_t)(uintptr_t)&fns[i].f;
    }
    ct_rec_frame_open(b, k[0], 0, 0x7000);
    ct_rec_frame_open(b, k[1], 1, 0x6000); /* its enter was dropped */
    ct_rec_frame_open(b, k[2], 0, 0);
    assert_int_equal(t->depth, 3);
    assert_true(ct_rec_top_key(b) == k[2]);
    assert_true(t->frame_sp[1] == 0x6000);
    assert_int_equal(ct_rec_frame_close(b), 0);
    assert_true(ct_rec_top_key(b) == k[1]);
    assert_int_equal(ct_rec_frame_close(b), 1); /* so is its leave */
    assert_int_equal(ct_rec_frame_close(b), 0);
    assert_int_equal(t->depth, 0);
    assert_true(ct_rec_top_key(b) == 0);
    assert_int_equal(ct_rec_frame_close(b), 0); /* nothing open: nothing happens */
    assert_int_equal(t->depth, 0);

    /* Past the frames kept, a frame's drop is not remembered. */
    for (uint32_t i = 0; i < CT_DROP_TRACK_FRAMES + 2; i++)
        ct_rec_frame_open(b, k[i % 3], 1, 0);
    assert_int_equal(t->depth, CT_DROP_TRACK_FRAMES + 2);
    assert_true(ct_rec_top_key(b) == 0);
    assert_int_equal(ct_rec_frame_close(b), 0);
    assert_int_equal(ct_rec_frame_close(b), 0);
    assert_int_equal(ct_rec_frame_close(b), 1);
    ct_recorder_reset_threads();
    assert_int_equal(t->depth, 0);
}

static void test_trigger_frames_open_the_gate(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    fake_fn trig, other;
    fake_fn_init(&trig, NULL, 0, NULL);
    fake_fn_init(&other, NULL, 0, NULL);
    trig.f.trigger = 1;
    g_rec.gated = 1;
    assert_false(ct_rec_gate_open(b, &other.f));
    assert_true(ct_rec_gate_open(b, &trig.f));
    ct_rec_frame_open(b, (uint64_t)(uintptr_t)&trig.f, 0, 0);
    ct_rec_frame_open(b, (uint64_t)(uintptr_t)&other.f, 0, 0);
    assert_true(ct_rec_gate_open(b, &other.f));
    ct_rec_frame_close(b);
    assert_true(ct_rec_gate_open(b, &other.f));
    ct_rec_frame_close(b);
    assert_false(ct_rec_gate_open(b, &other.f));
    g_rec.gated = 0;
    assert_true(ct_rec_gate_open(b, &other.f));
}

/* --------------------------------------------------------------- values */

static void test_values_captured_into_a_record(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    int32_t i4 = -7;
    int64_t i8 = 1234567890123;
    uint8_t odd[3] = {1, 2, 3};
    /* An object: its first word is its method table (the fake's class). */
    uint64_t obj_words[2] = {0xC1A50, 0};
    uint64_t obj_ref = (uint64_t)(uintptr_t)obj_words;
    int32_t target = 42;
    uint64_t byref = (uint64_t)(uintptr_t)&target;

    ct_rec_event ev;
    ct_rec_begin(b, &ev, CT_REC_ENTER, 77, 0, 0xF00, 0);
    assert_true(ev.inplace);
    ct_rec_value(b, &ev.w, &ev.m, &k_int, (uintptr_t)&i4, 4, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_long, (uintptr_t)&i8, 8, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_int, 0, 0, 0);                 /* no range */
    ct_rec_value(b, &ev.w, &ev.m, &k_int, (uintptr_t)odd, 3, 0);    /* not the plan's size */
    ct_rec_value(b, &ev.w, &ev.m, &k_object, (uintptr_t)&obj_ref, 8, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_ref_int, (uintptr_t)&byref, 8, 0);
    assert_int_equal(ev.m.nvalues, 6);
    assert_int_equal(ct_rec_of(b)->class_new, 1); /* the object's class, met first */
    assert_int_equal(ct_rec_publish(b, &ev), 1);
    assert_int_equal(ct_rec_of(b)->class_new, 0);

    ct_rec recs[4];
    assert_int_equal(published(b, recs, 4), 1);
    const ct_rec *r = &recs[0];
    assert_int_equal(g_marks[0], CT_EVENT_NEW_CLASSES); /* the writer names the class */
    assert_int_equal(r->type, CT_REC_ENTER);
    assert_true(r->key == 0xF00 && r->time_ns == 77 && r->tid == b->tid);
    assert_int_equal(r->nvalues, 6);
    uint32_t len;
    ct_value_status st;
    const uint8_t *v = value_at(r, 0, &len, &st);
    int32_t got4;
    memcpy(&got4, v, 4);
    assert_true(len == 4 && st == CT_VALUE_PLAN && got4 == -7);
    v = value_at(r, 1, &len, &st);
    int64_t got8;
    memcpy(&got8, v, 8);
    assert_true(len == 8 && st == CT_VALUE_PLAN && got8 == i8);
    value_at(r, 2, &len, &st);
    assert_true(len == 0 && st == CT_VALUE_MISSING);
    v = value_at(r, 3, &len, &st);
    assert_true(len == 3 && st == CT_VALUE_RANGE && !memcmp(v, odd, 3));
    v = value_at(r, 4, &len, &st);
    uint64_t addr, cls;
    memcpy(&addr, v, 8);
    memcpy(&cls, v + 8, 8);
    assert_true(len == 16 && st == CT_VALUE_PLAN && addr == obj_ref && cls == 0xC1A50);
    v = value_at(r, 5, &len, &st);
    memcpy(&addr, v, 8);
    memcpy(&got4, v + 8, 4);
    assert_true(len == 12 && st == CT_VALUE_PLAN && addr == byref && got4 == 42);

    /* The class was named in a marked record: not marked again. */
    ct_rec_begin(b, &ev, CT_REC_LEAVE, 78, 0, 0xF00, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_object, (uintptr_t)&obj_ref, 8, 0);
    assert_int_equal(ct_rec_of(b)->class_new, 0);
    assert_int_equal(ct_rec_publish(b, &ev), 1);
    assert_int_equal(published(b, recs, 4), 1);
    assert_int_equal(g_marks[0], 0);

    /* A record dropped after naming a class (the ring full): the class
     * cache forgets, so that the next record naming it is marked again. */
    ct_rec_forget_classes(b);
    uint64_t dropped = atomic_load(&b->dropped);
    while (ct_rec_plain(b, CT_REC_ENTER, 1, 0x42))
        ;
    ct_rec_begin(b, &ev, CT_REC_LEAVE, 79, 0, 0xF00, 0);
    assert_false(ev.inplace); /* no room in the ring: built in the scratch buffer */
    ct_rec_value(b, &ev.w, &ev.m, &k_object, (uintptr_t)&obj_ref, 8, 0);
    assert_int_equal(ct_rec_of(b)->class_new, 1);
    assert_int_equal(ct_rec_publish(b, &ev), 0);
    assert_true(atomic_load(&b->dropped) == dropped + 2);
    assert_int_equal(ct_rec_of(b)->class_new, 0);
    /* Forgotten by counting up: the class stays cached, not told. */
    const ct_rec_class *e = NULL;
    for (uint32_t i = 0; i < CT_CLASS_CACHE; i++)
        if (ct_rec_of(b)->class_cache[i].mt == 0xC1A50)
            e = &ct_rec_of(b)->class_cache[i];
    assert_non_null(e);
    assert_true(e->cls == 0xC1A50 && e->told >> 2 != ct_rec_of(b)->class_gen);
    published(b, NULL, SIZE_MAX);
    ct_rec_begin(b, &ev, CT_REC_LEAVE, 80, 0, 0xF00, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_object, (uintptr_t)&obj_ref, 8, 0);
    assert_int_equal(ct_rec_of(b)->class_new, 1);
    assert_int_equal(ct_rec_publish(b, &ev), 1);
    assert_int_equal(published(b, recs, 4), 1);
    assert_int_equal(g_marks[0], CT_EVENT_NEW_CLASSES);

    /* The count at its last value (told keeps 30 bits of it): one forget
     * more wraps it to 0 and clears the cache, lest an entry told 2^30
     * forgets ago read as told. */
    ct_rec_of(b)->class_gen = UINT32_MAX >> 2;
    ct_rec_begin(b, &ev, CT_REC_LEAVE, 81, 0, 0xF00, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_object, (uintptr_t)&obj_ref, 8, 0);
    assert_int_equal(ct_rec_of(b)->class_new, 1);
    assert_int_equal(e->told, (UINT32_MAX >> 2) << 2 | 1u);
    assert_int_equal(ct_rec_publish(b, &ev), 1);
    published(b, NULL, SIZE_MAX);
    ct_rec_forget_classes(b);
    assert_int_equal(ct_rec_of(b)->class_gen, 0);
    assert_true(e->mt == 0 && e->told == 0);
    ct_rec_begin(b, &ev, CT_REC_LEAVE, 82, 0, 0xF00, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_object, (uintptr_t)&obj_ref, 8, 0);
    assert_int_equal(ct_rec_of(b)->class_new, 1);
    assert_int_equal(ct_rec_publish(b, &ev), 1);
    assert_int_equal(published(b, recs, 4), 1);
    assert_int_equal(g_marks[0], CT_EVENT_NEW_CLASSES);
}

/* A value left without room is recorded as too large; the record stays. */
static void test_a_value_without_room(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    uint8_t mem[CT_EVENT_BASE_BYTES + 16];
    ct_wbuf w;
    ct_event_mark m;
    int32_t i4 = 5;
    ct_wbuf_init(&w, mem, sizeof mem);
    ct_event_begin(&w, CT_REC_ENTER, 1, 0, b->tid, 1, &m);
    ct_rec_value(b, &w, &m, &k_int, (uintptr_t)&i4, 4, 0);
    assert_int_equal(m.nvalues, 1);
    assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
    assert_int_equal(ct_event_nvalues(mem), 1);
    uint32_t word;
    memcpy(&word, mem + CT_EVENT_BASE_BYTES, 4);
    assert_int_equal(word >> CT_VALUE_STATUS_SHIFT, CT_VALUE_TOO_LARGE);
}

/* ----------------------------------------------------------------- outs */

static void test_outs_read_again_at_return(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    /* f(int a, ref int r, ref int far): r and far are re-read at return. */
    static const ct_plan *const plans[3] = {&k_int, &k_ref_int, &k_ref_int};
    fake_fn ff;
    fake_fn_init(&ff, plans, 3, &k_int);
    ff.f.out_mask = 6;
    int32_t a = 1, local = 10, ret = 99;
    static int32_t not_on_stack = 20;
    uintptr_t slot_local = (uintptr_t)&local, slot_far = (uintptr_t)&not_on_stack;
    COR_PRF_FUNCTION_ARGUMENT_RANGE r[3] = {
        {(uintptr_t)&a, 4}, {(uintptr_t)&slot_local, 8}, {(uintptr_t)&slot_far, 8}};

    ct_rec_frame_open(b, (uint64_t)(uintptr_t)&ff.f, 0, 0); /* a caller */
    ct_rec_outs_track(b, &ff.f, r, 3);
    assert_int_equal(ct_rec_of(b)->nouts, 1); /* the target on this stack only */
    ct_rec_frame_open(b, (uint64_t)(uintptr_t)&ff.f, 0, 0);
    local = 11; /* the callee writes its out argument */
    assert_int_equal(ct_rec_frame_close(b), 0);

    ct_rec_event ev;
    ct_rec_begin(b, &ev, CT_REC_LEAVE, 5, 0, (uint64_t)(uintptr_t)&ff.f, 0);
    ct_rec_value(b, &ev.w, &ev.m, &k_int, (uintptr_t)&ret, 4, 0);
    ct_rec_leave_outs(b, &ff.f, &ev.w, &ev.m, ct_now_ns());
    assert_int_equal(ct_rec_of(b)->nouts, 0);
    assert_int_equal(ct_rec_publish(b, &ev), 1);

    ct_rec recs[2];
    assert_int_equal(published(b, recs, 2), 1);
    assert_int_equal(recs[0].nvalues, 3);
    uint32_t len;
    ct_value_status st;
    int32_t got;
    const uint8_t *v = value_at(&recs[0], 0, &len, &st);
    memcpy(&got, v, 4);
    assert_true(st == CT_VALUE_PLAN && got == 99);
    v = value_at(&recs[0], 1, &len, &st);
    memcpy(&got, v, 4);
    assert_true(st == CT_VALUE_PLAN && len == 4 && got == 11);
    value_at(&recs[0], 2, &len, &st);
    assert_true(st == CT_VALUE_MISSING && len == 0);

    /* Outs of frames left without a leave are forgotten at the next enter
     * at that depth. */
    ct_rec_outs_track(b, &ff.f, r, 3);
    assert_int_equal(ct_rec_of(b)->nouts, 1);
    ct_rec_outs_forget(b, ct_rec_of(b)->depth);
    assert_int_equal(ct_rec_of(b)->nouts, 0);
}

/* ----------------------------------------------------------- skeletons */

static int g_args_calls;

static int fake_args(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                     ct_event_mark *m)
{
    g_args_calls++;
    if (!ctx)
        return 0;
    ct_rec_value(b, w, m, ct_arg_plan(f, 0), (uintptr_t)ctx, 4, 0);
    return 1;
}

static void fake_ret(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                     ct_event_mark *m)
{
    ct_rec_value(b, w, m, ct_arg_plan(f, f->nargs), (uintptr_t)ctx, 4, 0);
}

/* ------------------------------------------------------- async calls */

/* A task object as the runtime lays one out (64-bit): the header word 4
 * bytes before the method table, then m_stateFlags (at 8) and m_result. */
typedef struct fake_task {
    uint32_t pad, header;
    uint64_t mt;
    uint32_t flags;
    int32_t result;
} fake_task;

static uintptr_t task_obj(fake_task *t)
{
    return (uintptr_t)&t->mt;
}

/* The stub's return value: the task reference at ctx (the engines set
 * ret_at where they found it). */
static void task_ret(ct_tbuf *b, const ct_mapped_fn *f, const void *ctx, ct_wbuf *w,
                     ct_event_mark *m)
{
    ct_rec_of(b)->ret_at = (uintptr_t)ctx;
    ct_rec_value(b, w, m, ct_arg_plan(f, f->nargs), (uintptr_t)ctx, 8, 0);
}

/* A call of async method f returning task t: its LEAVE's id (0: none). */
static uint64_t async_call(ct_tbuf *b, const ct_mapped_fn *f, fake_task *t)
{
    uintptr_t ref = task_obj(t);
    int32_t arg = 1;
    ct_rec_enter(b, f, 1, 0, fake_args, &arg, 0);
    ct_rec_close(CT_REC_LEAVE, f, 1, ct_now_ns(), task_ret, &ref, 0);
    ct_rec recs[4];
    assert_int_equal(published(b, recs, 4), 2);
    assert_int_equal(recs[1].type, CT_REC_LEAVE);
    if (recs[1].nvalues == 1)
        return 0;
    assert_int_equal(recs[1].nvalues, 2);
    uint32_t len;
    ct_value_status st;
    uint64_t id;
    memcpy(&id, value_at(&recs[1], 1, &len, &st), 8);
    assert_int_equal(len, 8);
    return id;
}

/* SetResult(result) of the builder holding task t, in a traced body: the
 * id of the ASYNC_RETURN it publishes (0: none) and its result. */
static uint64_t async_result(ct_tbuf *b, fake_task *t, int32_t result, int32_t *got)
{
    uintptr_t builder_field = task_obj(t); /* the builder's m_task */
    g_body_owns = 1;
    ct_rec_async_result(b, (uintptr_t)&builder_field, (uintptr_t)&result, 4, 0);
    g_body_owns = 0;
    ct_rec recs[2];
    if (published(b, recs, 2) == 0)
        return 0;
    assert_int_equal(recs[0].type, CT_REC_ASYNC_RETURN);
    assert_int_equal(recs[0].nvalues, 2);
    uint32_t len;
    ct_value_status st;
    uint64_t cls;
    memcpy(&cls, value_at(&recs[0], 0, &len, &st), 8);
    assert_true(cls == TASK_CLASS);
    memcpy(got, value_at(&recs[0], 1, &len, &st), 4);
    return recs[0].key;
}

/* An async method's call (record/asynccall.c): its LEAVE carries an id
 * when its task goes on, the task's header holding that id as its hash
 * code; the builder's SetResult ends it (ASYNC_RETURN of that id, with the
 * result); a task complete at the return, or whose header is in use, is
 * not followed; an end before the return gives the return its id. At most
 * CT_ASYNC_CALLS followed at once: the one past them is not. */
static void test_async_calls(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    static const ct_plan *const plans[1] = {&k_int};
    fake_fn ff;
    fake_fn_init(&ff, plans, 1, &k_object);
    ff.f.async_stub = 1;
    ff.f.async_task_at = 0;
    int32_t got = 0;

    fake_task t = {.mt = TASK_CLASS, .flags = 0x2000000 /* WaitingForActivation */};
    uint64_t id = async_call(b, &ff.f, &t);
    assert_true(id != 0);
    /* The hash code bits (syncblk.h) and the id. */
    assert_int_equal(t.header, 0x0C000000u | (uint32_t)id);
    assert_true(async_result(b, &t, 42, &got) == id);
    assert_int_equal(got, 42);

    /* Complete at its return: not followed. */
    fake_task done = {.mt = TASK_CLASS, .flags = 0x1000000};
    assert_true(async_call(b, &ff.f, &done) == 0);
    assert_int_equal(done.header, 0);
    /* A header in use (a thin lock's thread id): not followed, counted. */
    fake_task locked = {.mt = TASK_CLASS, .header = 3, .flags = 0x2000000};
    assert_true(async_call(b, &ff.f, &locked) == 0);
    assert_int_equal(locked.header, 3);

    /* The end first (its continuation ran on another thread before the
     * return was recorded): the return takes its id. */
    fake_task early = {.mt = TASK_CLASS, .flags = 0x2000000};
    uint64_t eid = async_result(b, &early, 7, &got);
    assert_true(eid != 0 && eid != id);
    assert_true(async_call(b, &ff.f, &early) == eid);
    /* A body that does not own the builder ends nothing. */
    fake_task other = {.mt = TASK_CLASS, .flags = 0x2000000};
    uintptr_t field = task_obj(&other);
    int32_t r = 1;
    ct_rec_async_result(b, (uintptr_t)&field, (uintptr_t)&r, 4, 0);
    assert_int_equal(published(b, NULL, 4), 0);
    assert_int_equal(other.header, 0);

    /* CT_ASYNC_CALLS followed at once (the early one's slot was taken
     * back; no other is open): all followed; the next is not. */
    fake_task *many = calloc(CT_ASYNC_CALLS + 1, sizeof *many);
    assert_non_null(many);
    for (uint32_t i = 0; i <= CT_ASYNC_CALLS; i++) {
        many[i].mt = TASK_CLASS;
        many[i].flags = 0x2000000;
        uint64_t k = async_call(b, &ff.f, &many[i]);
        if (i < CT_ASYNC_CALLS)
            assert_true(k != 0);
        else
            assert_true(k == 0);
    }
    /* Each ends its own call, in any order. */
    for (uint32_t i = CT_ASYNC_CALLS; i-- > 0;)
        assert_true(async_result(b, &many[i], (int32_t)i, &got) == (many[i].header & 0x03FFFFFFu));
    free(many);
}

/* A runtime-async call (record/rtasync.c) on one thread: Main (not
 * runtime-async) calls Sum, which awaits Inner: after the entries, the
 * chain suspends (HandleSuspended): Inner's and Sum's frames close by a
 * LEAVE with no value and each call's id (the id the method's home holds);
 * each resumes (a frame not recorded) and ends by the ring's RT_RETURN,
 * its result by its plan; a call that ends in its first part is the
 * engine's LEAVE; one called through a Task-returning entry by a
 * runtime-async frame (no await: a root) suspends alone. */
static void test_runtime_async_calls(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    static const ct_plan *const plans[1] = {&k_int};
    fake_fn main_fn, sum, inner;
    fake_fn_init(&main_fn, plans, 1, &k_int);
    fake_fn_init(&sum, plans, 1, &k_int);
    fake_fn_init(&inner, plans, 1, &k_int);
    sum.f.rt_async = inner.f.rt_async = 1;
    int32_t arg = 20, result = 10;
    uint64_t home_sum = 0, home_inner = 0, home_root = 0;
    ct_rec recs[8];
    uint32_t len;
    ct_value_status st;
    uint64_t id, fn;
    int32_t got;

    ct_rec_enter(b, &main_fn.f, 1, 0, fake_args, &arg, 0);
    ct_rec_enter(b, &sum.f, 1, 0, fake_args, &arg, 0);
    ct_rec_rt_begin(b, &sum.f, (uintptr_t)&home_sum);
    ct_rec_rt_awaiting(b, (uintptr_t)&home_sum);
    ct_rec_enter(b, &inner.f, 1, 0, fake_args, &arg, 0);
    ct_rec_rt_begin(b, &inner.f, (uintptr_t)&home_inner);
    assert_true(home_sum != 0 && home_inner != 0 && home_sum != home_inner);
    assert_true((uint32_t)(home_sum >> 32) == (uint32_t)(home_inner >> 32)); /* the salt */
    ct_rec_rt_suspended(b, 0);
    assert_int_equal(ct_rec_of(b)->depth, 1);
    assert_int_equal(published(b, recs, 8), 5);
    const uint64_t ids[2] = {(uint32_t)home_inner, (uint32_t)home_sum};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(recs[3 + i].type, CT_REC_LEAVE);
        assert_int_equal(recs[3 + i].nvalues, 2);
        value_at(&recs[3 + i], 0, &len, &st);
        assert_int_equal(st, CT_VALUE_MISSING);
        memcpy(&id, value_at(&recs[3 + i], 1, &len, &st), 8);
        assert_true(id == ids[i]);
    }
    /* Inner resumes (its home restored in another frame) and returns. */
    uint64_t moved = home_inner;
    ct_rec_rt_resumed(b, &inner.f, (uintptr_t)&moved, 0);
    assert_int_equal(ct_rec_of(b)->depth, 2);
    assert_int_equal(ct_rec_rt_return(b, &inner.f, (uintptr_t)&moved, (uintptr_t)&result, 0, 0), 0);
    assert_int_equal(ct_rec_of(b)->depth, 1);
    assert_int_equal(published(b, recs, 8), 1);
    assert_int_equal(g_ring_types[0], CT_RING_RT_RETURN);
    assert_true(recs[0].key == ids[0]);
    memcpy(&fn, value_at(&recs[0], 0, &len, &st), 8);
    assert_true(fn == (uint64_t)(uintptr_t)&inner.f);
    memcpy(&got, value_at(&recs[0], 1, &len, &st), 4);
    assert_int_equal(got, 10);
    /* Sum: resumed, it ends as well. */
    ct_rec_rt_resumed(b, &sum.f, (uintptr_t)&home_sum, 0);
    result = 41;
    assert_int_equal(ct_rec_rt_return(b, &sum.f, (uintptr_t)&home_sum, (uintptr_t)&result, 0, 0), 0);
    assert_int_equal(published(b, recs, 8), 1);
    assert_true(recs[0].key == ids[1]);
    assert_int_equal(ct_rec_of(b)->nrt, 0);

    /* Ends in its first part: the engine's own LEAVE. */
    ct_rec_enter(b, &sum.f, 1, 0, fake_args, &arg, 0);
    ct_rec_rt_begin(b, &sum.f, (uintptr_t)&home_sum);
    assert_int_equal(ct_rec_rt_return(b, &sum.f, (uintptr_t)&home_sum, (uintptr_t)&result, 0, 0), 1);
    ct_rec_close(CT_REC_LEAVE, &sum.f, 1, ct_now_ns(), fake_ret, &result, 0);
    assert_int_equal(published(b, recs, 8), 2);
    assert_int_equal(recs[1].type, CT_REC_LEAVE);
    assert_int_equal(recs[1].nvalues, 1);
    assert_int_equal(ct_rec_of(b)->nrt, 0);

    /* Sum calls Inner through its Task-returning entry (no await): Inner is
     * a root; its chain's suspension closes it alone. */
    ct_rec_enter(b, &sum.f, 1, 0, fake_args, &arg, 0);
    ct_rec_rt_begin(b, &sum.f, (uintptr_t)&home_sum);
    ct_rec_enter(b, &inner.f, 1, 0, fake_args, &arg, 0);
    ct_rec_rt_begin(b, &inner.f, (uintptr_t)&home_root);
    ct_rec_rt_suspended(b, 0);
    assert_int_equal(ct_rec_of(b)->depth, 2);
    assert_int_equal(published(b, recs, 8), 3);
    assert_int_equal(recs[2].type, CT_REC_LEAVE);
    assert_true(recs[2].key == (uint64_t)(uintptr_t)&inner.f);
}

static void test_enter_and_close_skeletons(void **state)
{
    (void)state;
    ct_tbuf *b = setup(512);
    static const ct_plan *const plans[1] = {&k_int};
    fake_fn ff;
    fake_fn_init(&ff, plans, 1, &k_int);
    int32_t arg = 3, ret = 9;
    uint64_t key = (uint64_t)(uintptr_t)&ff.f;

    ct_rec_enter(b, &ff.f, 1, 0, fake_args, &arg, 0);
    assert_int_equal(ct_rec_of(b)->depth, 1);
    assert_int_equal(atomic_load(&ct_rec_of(b)->busy), 0);
    ct_rec_close(CT_REC_LEAVE, &ff.f, 1, ct_now_ns(), fake_ret, &ret, 0);
    assert_int_equal(ct_rec_of(b)->depth, 0);
    /* An engine that finds no values: the ENTER has none. */
    ct_rec_enter(b, &ff.f, 1, 0, fake_args, NULL, 0);
    /* A tail call: no values. */
    ct_rec_close(CT_REC_TAILCALL, &ff.f, 1, ct_now_ns(), fake_ret, &ret, 0);

    ct_rec recs[8];
    assert_int_equal(published(b, recs, 8), 4);
    ct_rec_type types[4] = {CT_REC_ENTER, CT_REC_LEAVE, CT_REC_ENTER, CT_REC_TAILCALL};
    uint32_t nvalues[4] = {1, 1, 0, 0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(recs[i].type, types[i]);
        assert_true(recs[i].key == key);
        assert_int_equal(recs[i].nvalues, nvalues[i]);
        if (i)
            assert_true(recs[i].time_ns >= recs[i - 1].time_ns);
    }
    uint32_t len;
    ct_value_status st;
    int32_t got;
    memcpy(&got, value_at(&recs[1], 0, &len, &st), 4);
    assert_int_equal(got, 9);

    /* A re-entered hook records nothing and counts a drop. */
    atomic_store(&ct_rec_of(b)->busy, 1);
    ct_rec_enter(b, &ff.f, 1, 0, fake_args, &arg, 0);
    assert_int_equal(atomic_load(&b->dropped), 1);
    atomic_store(&ct_rec_of(b)->busy, 0);
    assert_int_equal(ct_rec_of(b)->depth, 0);

    /* Tail calls: an entering function whose caller SP is at or above an
     * open frame's closes that frame as left by a tail call. */
    ct_rec_enter(b, &ff.f, 0, 0x5000, fake_args, &arg, 0);
    ct_rec_enter(b, &ff.f, 0, 0x5000, fake_args, &arg, 0);
    assert_int_equal(ct_rec_of(b)->depth, 1);
    ct_rec_enter(b, &ff.f, 0, 0x4000, fake_args, &arg, 0);
    assert_int_equal(ct_rec_of(b)->depth, 2);
    assert_int_equal(published(b, recs, 8), 4);
    assert_int_equal(recs[1].type, CT_REC_TAILCALL);
    assert_int_equal(recs[2].type, CT_REC_ENTER);

    /* Naive: rendered at once, nothing in the ring. */
    g_naive_events = 0;
    ct_rec_enter(b, &ff.f, 1, 0, fake_args, &arg, 1);
    ct_rec_close(CT_REC_LEAVE, &ff.f, 1, ct_now_ns(), fake_ret, &ret, 1);
    assert_int_equal(g_naive_events, 2);
    assert_int_equal(published(b, recs, 8), 0);
}

/* ------------------------------------------------------------- dropping */

static void test_dropped_when_the_lossy_ring_is_full(void **state)
{
    (void)state;
    ct_tbuf *b = setup(256);
    size_t cap = b->ring.cap, n = 0;
    while (ct_rec_plain(b, CT_REC_ENTER, ct_now_ns(), 0x42))
        n++;
    /* (A record that would cross the ring's end pads to it first.) */
    assert_true(n <= cap / CT_EVENT_BASE_BYTES && n + 1 >= cap / CT_EVENT_BASE_BYTES);
    assert_int_equal(atomic_load(&b->dropped), 1);

    /* An enter dropped for want of room drops its leave too, counted. */
    static const ct_plan *const plans[1] = {&k_int};
    fake_fn ff;
    fake_fn_init(&ff, plans, 1, &k_int);
    int32_t arg = 1, ret = 2;
    ct_rec_enter(b, &ff.f, 1, 0, fake_args, &arg, 0);
    assert_int_equal(atomic_load(&b->dropped), 2);
    assert_int_equal(ct_rec_of(b)->depth, 1);
    uint64_t pos = ct_ring_tail(&b->ring), end = ct_ring_head(&b->ring), size;
    while (ct_ring_peek(&b->ring, &pos, end, &size))
        pos += size;
    ct_ring_release(&b->ring, pos); /* room again */
    ct_rec_close(CT_REC_LEAVE, &ff.f, 1, ct_now_ns(), fake_ret, &ret, 0);
    assert_int_equal(atomic_load(&b->dropped), 3);
    assert_int_equal(ct_rec_of(b)->depth, 0);
    ct_rec recs[2];
    assert_int_equal(published(b, recs, 2), 0);

    /* With room, the next call is whole. */
    ct_rec_enter(b, &ff.f, 1, 0, fake_args, &arg, 0);
    ct_rec_close(CT_REC_LEAVE, &ff.f, 1, ct_now_ns(), fake_ret, &ret, 0);
    assert_int_equal(published(b, recs, 2), 2);
    assert_int_equal(atomic_load(&b->dropped), 3);
}

/* A watched function that is not traced: its enter tells, nothing else. */
static void test_watched_function(void **state)
{
    (void)state;
    setup(512);
    fake_fn ff;
    fake_fn_init(&ff, NULL, 0, NULL);
    ff.f.hooked = 0;
    ff.f.watched = CT_WATCH_UNHANDLED;
    g_unhandled = 0;
    ct_recorder_watch_unhandled(&ff.f);
    assert_int_equal(ct_rec_watched((uintptr_t)&ff.f, 1), 1);
    assert_int_equal(ct_rec_watched((uintptr_t)&ff.f, 0), 1);
    assert_int_equal(g_unhandled, 1);
    /* Another function, not watched; one watched for an async fault: not
     * the unhandled path's. */
    fake_fn other, fault;
    fake_fn_init(&other, NULL, 0, NULL);
    fake_fn_init(&fault, NULL, 0, NULL);
    fault.f.hooked = 0;
    fault.f.watched = CT_WATCH_ASYNC_FAULT;
    assert_int_equal(ct_rec_watched((uintptr_t)&other.f, 1), 0);
    assert_int_equal(ct_rec_watched((uintptr_t)&fault.f, 1), 1);
    assert_int_equal(g_unhandled, 1);
    ct_recorder_watch_unhandled(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_pushed_and_popped),
        cmocka_unit_test(test_trigger_frames_open_the_gate),
        cmocka_unit_test(test_values_captured_into_a_record),
        cmocka_unit_test(test_a_value_without_room),
        cmocka_unit_test(test_outs_read_again_at_return),
        cmocka_unit_test(test_enter_and_close_skeletons),
        cmocka_unit_test(test_dropped_when_the_lossy_ring_is_full),
        cmocka_unit_test(test_watched_function),
        cmocka_unit_test(test_async_calls),
        cmocka_unit_test(test_runtime_async_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
