/* Call filters that follow the call tree (src/views/treefilter.h). */
#define _GNU_SOURCE
#include "treefilter.h"
#include "stack.h"
#include "base/table.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

int ct_filter_opts_active(const ct_filter_opts *o)
{
    return o && (o->depth || o->min_time_ns || o->after || (o->trigger && *o->trigger));
}

/* ------------------------------------------------------------ state */

/* An enter event held back (min_time): the record and its bytes. */
typedef struct held {
    ct_rec rec;
    uint8_t *bytes;  /* raw record, or the values when there was no raw */
    size_t len;
    int has_raw;
} held;

typedef struct frame {
    ct_stack_frame h; /* the function's key */
    held *pending;    /* the enter event, not passed on yet */
    uint8_t shown;    /* the call is shown (its events pass) */
    uint8_t trigger;  /* a trigger function: the gate is open inside */
} frame;

typedef struct thread {
    ct_stack stack;      /* the calls open (src/views/stack.h): the
                            outermost CT_FILTER_MAX_FRAMES followed */
    uint32_t shown;      /* shown calls open on the stack */
    uint32_t gate;       /* trigger calls open on the stack */
    uint32_t low;        /* frames [low, kept) may hold events; NO_PENDING: none */
    size_t held_bytes;
} thread;

static frame *frame_at(const thread *t, uint32_t i)
{
    return ct_stack_at(&t->stack, i);
}

struct ct_filter {
    ct_filter_opts o;
    char *trigger;
    ct_filter_emit emit;
    void *ctx;
    ct_table threads;             /* tid -> thread */
    ct_table triggers;            /* function key -> (void *)1: trigger functions */
    uint64_t calls;               /* enter events seen (for after) */
    uint64_t hidden;
    int finished;
};

#define NO_PENDING UINT32_MAX

static thread *thread_get(ct_filter *f, uint64_t tid)
{
    thread *t = ct_table_get(&f->threads, tid);
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->low = NO_PENDING;
    ct_stack_init(&t->stack, sizeof(frame), CT_FILTER_MAX_FRAMES);
    if (ct_table_put(&f->threads, tid, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

ct_filter *ct_filter_new(const ct_filter_opts *opts, ct_filter_emit emit, void *ctx)
{
    ct_filter *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->o = *opts;
    if (opts->trigger && *opts->trigger) {
        f->trigger = strdup(opts->trigger);
        if (!f->trigger) {
            free(f);
            return NULL;
        }
    }
    f->o.trigger = f->trigger;
    f->emit = emit;
    f->ctx = ctx;
    return f;
}

static void held_free(held *h)
{
    if (h) {
        free(h->bytes);
        free(h);
    }
}

void ct_filter_free(ct_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->threads.cap; i++) {
        thread *t = f->threads.slots[i].value;
        if (!t)
            continue;
        for (uint32_t k = 0; k < t->stack.kept; k++)
            held_free(frame_at(t, k)->pending);
        ct_stack_free(&t->stack);
        free(t);
    }
    ct_table_free(&f->threads);
    ct_table_free(&f->triggers);
    free(f->trigger);
    free(f);
}

uint64_t ct_filter_hidden(const ct_filter *f)
{
    return f->hidden;
}

/* ------------------------------------------------------------ passing on */

static void pass(ct_filter *f, const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    f->emit(f->ctx, rec, raw, raw_len);
}

static void let_out(ct_filter *f, thread *t, frame *fr)
{
    held *h = fr->pending;
    fr->pending = NULL;
    t->held_bytes -= h->len;
    pass(f, &h->rec, h->has_raw ? h->bytes : NULL, h->has_raw ? h->len : 0);
    held_free(h);
}

/* Passes on the held-back enter events of t's stack, outermost first (a
 * call below them is shown, so they are too). */
static void let_out_all(ct_filter *f, thread *t)
{
    for (uint32_t k = t->low; k < t->stack.kept; k++)
        if (frame_at(t, k)->pending)
            let_out(f, t, frame_at(t, k));
    t->low = NO_PENDING;
}

/* Holds rec back in fr; -1 when out of memory. */
static int hold(ct_filter *f, thread *t, frame *fr, const ct_rec *rec, const uint8_t *raw,
                size_t raw_len)
{
    held *h = malloc(sizeof *h);
    size_t len = raw ? raw_len : rec->values_len;
    uint8_t *bytes = malloc(len ? len : 1);
    if (!h || !bytes) {
        free(h);
        free(bytes);
        return -1;
    }
    h->rec = *rec;
    h->bytes = bytes;
    h->len = len;
    h->has_raw = raw != NULL;
    if (len)
        memcpy(bytes, raw ? raw : rec->values, len);
    if (raw) {
        if (rec->values)
            h->rec.values = bytes + (rec->values - raw);
    } else {
        h->rec.values = bytes;
    }
    /* Room first: the oldest held events go out when the thread holds too
     * much. */
    while (t->held_bytes + len > CT_FILTER_MAX_HELD_BYTES && t->low < t->stack.kept) {
        frame *old = frame_at(t, t->low++);
        if (old->pending)
            let_out(f, t, old);
    }
    fr->pending = h;
    t->held_bytes += len;
    uint32_t idx = t->stack.kept - 1; /* fr is the innermost frame */
    if (t->low == NO_PENDING || t->low > idx)
        t->low = idx;
    return 0;
}

static int on_enter(ct_filter *f, thread *t, const ct_rec *rec, const uint8_t *raw,
                    size_t raw_len)
{
    f->calls++;
    int nomem = 0;
    frame *fr = ct_stack_push(&t->stack, rec->key, &nomem);
    if (!fr) {
        /* Past CT_FILTER_MAX_FRAMES (or out of memory): not followed. */
        int rc = nomem ? -1 : 0;
        if (f->o.depth || (f->o.trigger && !t->gate) || f->calls <= f->o.after) {
            f->hidden++;
            return rc;
        }
        let_out_all(f, t);
        pass(f, rec, raw, raw_len);
        return rc;
    }
    fr->trigger = ct_table_get(&f->triggers, rec->key) != NULL;
    if (fr->trigger)
        t->gate++;
    int shown = f->calls > f->o.after && (!f->o.trigger || t->gate) &&
                (!f->o.depth || t->shown < f->o.depth);
    if (!shown) {
        f->hidden++;
        return 0;
    }
    fr->shown = 1;
    t->shown++;
    if (!f->o.min_time_ns) {
        pass(f, rec, raw, raw_len);
        return 0;
    }
    if (hold(f, t, fr, rec, raw, raw_len) != 0) {
        let_out_all(f, t);
        pass(f, rec, raw, raw_len);
        return -1;
    }
    return 0;
}

/* Pops the innermost frame into *out: the gate and the shown count follow. */
static void pop_frame(thread *t, frame *out)
{
    *out = *frame_at(t, t->stack.kept - 1);
    ct_stack_pop(&t->stack);
    if (t->low >= t->stack.kept)
        t->low = NO_PENDING;
    if (out->trigger)
        t->gate--;
    if (out->shown)
        t->shown--;
}

/* Whether a shown call held back for --min-time, entered at its pending
 * event's time and ended at `end`, is too short to show (then it is freed). */
static int too_short(ct_filter *f, thread *t, frame *fr, uint64_t end)
{
    uint64_t entered = fr->pending->rec.time_ns;
    if (end - entered < f->o.min_time_ns && end >= entered) {
        t->held_bytes -= fr->pending->len;
        held_free(fr->pending);
        fr->pending = NULL;
        f->hidden++;
        return 1;
    }
    return 0;
}

static void on_end_of_call(ct_filter *f, thread *t, const ct_rec *rec, const uint8_t *raw,
                           size_t raw_len)
{
    long k = ct_stack_match(&t->stack, rec->key);
    if (k == CT_STACK_UNKEPT) {
        ct_stack_pop(&t->stack);
        if (f->o.depth || (f->o.trigger && !t->gate))
            return;
        let_out_all(f, t);
        pass(f, rec, raw, raw_len);
        return;
    }
    if (k == CT_STACK_UNMATCHED) {
        /* Not entered as far as we know: the consumer reports it. */
        pass(f, rec, raw, raw_len);
        return;
    }
    frame fr;
    /* Calls above k never ended (a missed event): each is judged as if it
     * ended now; the consumer closes those it sees as unfinished. */
    while (t->stack.kept > (uint32_t)k + 1) {
        pop_frame(t, &fr);
        if (fr.pending && !too_short(f, t, &fr, rec->time_ns)) {
            let_out_all(f, t);
            let_out(f, t, &fr);
        }
    }
    pop_frame(t, &fr);
    if (!fr.shown)
        return;
    if (fr.pending && too_short(f, t, &fr, rec->time_ns))
        return;
    /* Shown: its callers go out, then it (when held back), then its end. */
    let_out_all(f, t);
    if (fr.pending)
        let_out(f, t, &fr);
    pass(f, rec, raw, raw_len);
}

void ct_filter_finish(ct_filter *f)
{
    if (f->finished)
        return;
    f->finished = 1;
    for (size_t i = 0; i < f->threads.cap; i++)
        if (f->threads.slots[i].value)
            let_out_all(f, f->threads.slots[i].value);
}

int ct_filter_record(ct_filter *f, const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    if (rec->type == CT_REC_FUNCTION) {
        int rc = 0;
        if (f->trigger && rec->name) {
            char name[CT_FILTER_MAX_GLOBS_TEXT];
            size_t n = rec->name_len < sizeof name - 1 ? rec->name_len : sizeof name - 1;
            memcpy(name, rec->name, n);
            name[n] = '\0';
            if (ct_glob_list_match(f->trigger, name))
                rc = ct_table_put(&f->triggers, rec->key, (void *)1);
        }
        pass(f, rec, raw, raw_len);
        return rc;
    }
    if (rec->type == CT_REC_END)
        ct_filter_finish(f);
    if (!ct_rec_is_event(rec->type) || f->finished) {
        pass(f, rec, raw, raw_len);
        return 0;
    }
    thread *t = thread_get(f, rec->tid);
    if (!t) {
        pass(f, rec, raw, raw_len);
        return -1;
    }
    if (rec->type == CT_REC_ENTER)
        return on_enter(f, t, rec, raw, raw_len);
    on_end_of_call(f, t, rec, raw, raw_len);
    return 0;
}
