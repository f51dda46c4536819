/* Call filters that follow the call tree (src/views/treefilter.h). */
#define _GNU_SOURCE
#include "treefilter.h"
#include "walk.h"
#include "base/table.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

int ct_filter_opts_active(const ct_filter_opts *o)
{
    return o && (o->depth || o->min_time_ns || o->after || o->failed ||
                 (o->trigger && *o->trigger));
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

/* A thread's part of the filter: the client area of its thread of the walk
 * (src/views/walk.h), whose stack holds the calls open, the outermost
 * CT_FILTER_MAX_FRAMES followed. */
typedef struct thread {
    uint32_t shown;      /* shown calls open on the stack */
    uint32_t gate;       /* trigger calls open on the stack */
    uint32_t low;        /* frames [low, kept) may hold events; NO_PENDING: none */
    size_t held_bytes;
} thread;

static frame *frame_at(const ct_walk_thread *wt, uint32_t i)
{
    return ct_stack_at(&wt->stack, i);
}

struct ct_filter {
    ct_filter_opts o;
    char *trigger;
    ct_filter_emit emit;
    void *ctx;
    ct_walk walk;                 /* the threads and their stacks of calls */
    ct_table triggers;            /* function key -> (void *)1: trigger functions */
    uint64_t calls;               /* enter events seen (for after) */
    uint64_t hidden;
    int finished;
    const uint8_t *raw;           /* the raw bytes of the event the walk is given */
    size_t raw_len;
};

#define NO_PENDING UINT32_MAX

static void held_free(held *h)
{
    if (h) {
        free(h->bytes);
        free(h);
    }
}

/* The walk made a thread, or frees one. */
static int thread_made(void *ctx, ct_walk_thread *wt)
{
    (void)ctx;
    ((thread *)wt->user)->low = NO_PENDING;
    return 0;
}

static void thread_freed(void *ctx, ct_walk_thread *wt)
{
    (void)ctx;
    for (uint32_t k = 0; k < wt->stack.kept; k++)
        held_free(frame_at(wt, k)->pending);
}

static int call_opened(void *ctx, ct_walk_thread *wt, void *fp, uint32_t depth,
                       const ct_rec *rec, int nomem);
static int call_ended(void *ctx, ct_walk_thread *wt, void *fp, uint32_t depth,
                      ct_walk_end how, uint64_t end_ns, const ct_rec *rec);
static int call_unmatched(void *ctx, ct_walk_thread *wt, uint32_t depth, const ct_rec *rec);

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
    static const ct_walk_ops ops = { .thread = thread_made, .thread_free = thread_freed,
                                     .open = call_opened, .end = call_ended,
                                     .unmatched = call_unmatched };
    ct_walk_init(&f->walk, &ops, f, sizeof(frame), CT_FILTER_MAX_FRAMES, sizeof(thread));
    return f;
}

void ct_filter_free(ct_filter *f)
{
    if (!f)
        return;
    ct_walk_free(&f->walk);
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

/* Passes on the event the walk is given. */
static void pass_event(ct_filter *f, const ct_rec *rec)
{
    pass(f, rec, f->raw, f->raw_len);
}

static void let_out(ct_filter *f, thread *t, frame *fr)
{
    held *h = fr->pending;
    fr->pending = NULL;
    t->held_bytes -= h->len;
    pass(f, &h->rec, h->has_raw ? h->bytes : NULL, h->has_raw ? h->len : 0);
    held_free(h);
}

/* Passes on the held-back enter events of wt's stack, outermost first (a
 * call below them is shown, so they are too). */
static void let_out_all(ct_filter *f, ct_walk_thread *wt)
{
    thread *t = wt->user;
    for (uint32_t k = t->low; k < wt->stack.kept; k++)
        if (frame_at(wt, k)->pending)
            let_out(f, t, frame_at(wt, k));
    t->low = NO_PENDING;
}

/* Holds rec back in fr, wt's innermost frame; -1 when out of memory. */
static int hold(ct_filter *f, ct_walk_thread *wt, frame *fr, const ct_rec *rec)
{
    thread *t = wt->user;
    const uint8_t *raw = f->raw;
    held *h = malloc(sizeof *h);
    size_t len = raw ? f->raw_len : rec->values_len;
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
    while (t->held_bytes + len > CT_FILTER_MAX_HELD_BYTES && t->low < wt->stack.kept) {
        frame *old = frame_at(wt, t->low++);
        if (old->pending)
            let_out(f, t, old);
    }
    fr->pending = h;
    t->held_bytes += len;
    uint32_t idx = wt->stack.kept - 1; /* fr is the innermost frame */
    if (t->low == NO_PENDING || t->low > idx)
        t->low = idx;
    return 0;
}

/* The walk opened a call: shown or hidden, held back for --min-time. */
static int call_opened(void *ctx, ct_walk_thread *wt, void *fp, uint32_t depth,
                       const ct_rec *rec, int nomem)
{
    (void)depth;
    ct_filter *f = ctx;
    thread *t = wt->user;
    frame *fr = fp;
    f->calls++;
    if (!fr) {
        /* Past CT_FILTER_MAX_FRAMES (or out of memory): not followed. */
        int rc = nomem ? -1 : 0;
        if (f->o.depth || (f->o.trigger && !t->gate) || f->calls <= f->o.after) {
            f->hidden++;
            return rc;
        }
        let_out_all(f, wt);
        pass_event(f, rec);
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
    if (!f->o.min_time_ns && !f->o.failed) {
        pass_event(f, rec);
        return 0;
    }
    if (hold(f, wt, fr, rec) != 0) {
        let_out_all(f, wt);
        pass_event(f, rec);
        return -1;
    }
    return 0;
}

/* Takes wt's innermost frame, which the walk pops next, into *out: its
 * held event with it, the gate and the shown count follow. */
static void take_frame(ct_walk_thread *wt, frame *fr, frame *out)
{
    thread *t = wt->user;
    *out = *fr;
    fr->pending = NULL;
    if (t->low >= wt->stack.kept - 1)
        t->low = NO_PENDING;
    if (out->trigger)
        t->gate--;
    if (out->shown)
        t->shown--;
}

/* Whether a shown call held back for --min-time, entered at its pending
 * event's time and ended by `end`, is too short to show (then it is freed):
 * its duration as the text log gives it (program times: the held time left
 * out). */
static void drop_pending(ct_filter *f, thread *t, frame *fr);

static int too_short(ct_filter *f, thread *t, frame *fr, const ct_rec *end_rec)
{
    uint64_t entered = ct_rec_prog_ns(&fr->pending->rec), end = ct_rec_prog_ns(end_rec);
    if (end - entered < f->o.min_time_ns && end >= entered) {
        drop_pending(f, t, fr);
        return 1;
    }
    return 0;
}

/* A call held back and not shown after all: its enter is freed. */
static void drop_pending(ct_filter *f, thread *t, frame *fr)
{
    t->held_bytes -= fr->pending->len;
    held_free(fr->pending);
    fr->pending = NULL;
    f->hidden++;
}

/* The walk closed a call: its end passes when the call is shown. */
static int call_ended(void *ctx, ct_walk_thread *wt, void *fp, uint32_t depth,
                      ct_walk_end how, uint64_t end_ns, const ct_rec *rec)
{
    (void)depth, (void)end_ns;
    ct_filter *f = ctx;
    thread *t = wt->user;
    if (how == CT_WALK_OPEN) /* the filter never closes the walk */
        return 0;
    if (!fp) {
        /* Not followed. */
        if (f->o.depth || (f->o.trigger && !t->gate))
            return 0;
        let_out_all(f, wt);
        pass_event(f, rec);
        return 0;
    }
    frame fr;
    take_frame(wt, fp, &fr);
    if (how == CT_WALK_MISSED) {
        /* It never ended (a missed event): judged as if it ended now; the
         * consumer closes those it sees as unfinished. */
        if (fr.pending && f->o.failed) {
            drop_pending(f, t, &fr);
            return 0;
        }
        if (fr.pending && !too_short(f, t, &fr, rec)) {
            let_out_all(f, wt);
            let_out(f, t, &fr);
        }
        return 0;
    }
    if (!fr.shown)
        return 0;
    if (fr.pending && too_short(f, t, &fr, rec))
        return 0;
    if (fr.pending && f->o.failed && how != CT_WALK_EXCEPTION) {
        /* Neither it nor a call below it ended by an exception. */
        drop_pending(f, t, &fr);
        return 0;
    }
    /* Shown: its callers go out, then it (when held back), then its end. */
    let_out_all(f, wt);
    if (fr.pending)
        let_out(f, t, &fr);
    pass_event(f, rec);
    return 0;
}

/* Not entered as far as we know: the consumer reports it. */
static int call_unmatched(void *ctx, ct_walk_thread *wt, uint32_t depth, const ct_rec *rec)
{
    (void)wt, (void)depth;
    pass_event(ctx, rec);
    return 0;
}

void ct_filter_finish(ct_filter *f)
{
    if (f->finished)
        return;
    f->finished = 1;
    /* In the order of the walk's table of threads, as always. */
    for (size_t i = 0; i < f->walk.threads.cap; i++)
        if (f->walk.threads.slots[i].value)
            let_out_all(f, f->walk.threads.slots[i].value);
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
    ct_walk_thread *wt = ct_walk_thread_of(&f->walk, rec->tid);
    if (!wt) {
        pass(f, rec, raw, raw_len);
        return -1;
    }
    f->raw = raw;
    f->raw_len = raw_len;
    /* call_opened, call_ended, call_unmatched */
    return ct_walk_event(&f->walk, wt, rec);
}
