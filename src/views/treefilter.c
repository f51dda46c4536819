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
    return o && (o->depth || o->min_time_ns || o->after || o->failed || o->at_end ||
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
    uint8_t verdict;  /* decided at its end (at_end): events are queued */
    uint32_t enter_q; /* its enter's place in the thread's queue, or NO_Q */
    uint32_t q_at;    /* the queue's length when it opened */
} frame;

/* An event passed on while a call decided at its end is open: held in
 * order; level: the stack index of the call it is an event of. */
typedef struct qitem {
    held *h;          /* NULL: left out */
    uint32_t level;
} qitem;

/* A thread's part of the filter: the client area of its thread of the walk
 * (src/views/walk.h), whose stack holds the calls open, the outermost
 * CT_FILTER_MAX_FRAMES followed. */
typedef struct thread {
    uint32_t shown;      /* shown calls open on the stack */
    uint32_t gate;       /* trigger calls open on the stack */
    uint32_t low;        /* frames [low, kept) may hold events; NO_PENDING: none */
    size_t held_bytes;
    uint32_t vopen;      /* calls decided at their end open on the stack */
    qitem *q;            /* events passed on meanwhile, in order */
    uint32_t qlen, qcap;
    uint8_t reject;      /* the next end is of a call rejected (reject_key) */
    uint64_t reject_key;
    uint8_t defer;       /* the next end is of an async call decided later (defer_key) */
    uint64_t defer_key;
    /* Async calls ended, waiting for their verdict (each counted in vopen):
     * their id, their enter's and end's places in the queue. */
    struct deferred {
        uint64_t id;
        uint32_t enter_q, end_q;
    } deferred[CT_FILTER_ASYNC_DEFERRED];
    uint32_t ndeferred;
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
#define NO_Q UINT32_MAX
/* The level of events not of a followed call (deeper than any). */
#define DEEP UINT32_MAX

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
    thread *t = wt->user;
    for (uint32_t k = 0; k < wt->stack.kept; k++)
        held_free(frame_at(wt, k)->pending);
    for (uint32_t i = 0; i < t->qlen; i++)
        held_free(t->q[i].h);
    free(t->q);
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

/* A copy of rec (its raw bytes, or its values), or NULL. */
static held *held_copy(const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    held *h = malloc(sizeof *h);
    size_t len = raw ? raw_len : rec->values_len;
    uint8_t *bytes = malloc(len ? len : 1);
    if (!h || !bytes) {
        free(h);
        free(bytes);
        return NULL;
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
    return h;
}

/* Passes on the events queued on t, in order, and empties the queue. */
static void flush_queue(ct_filter *f, thread *t)
{
    for (uint32_t i = 0; i < t->qlen; i++) {
        held *h = t->q[i].h;
        if (!h)
            continue;
        t->held_bytes -= h->len;
        pass(f, &h->rec, h->has_raw ? h->bytes : NULL, h->has_raw ? h->len : 0);
        held_free(h);
    }
    t->qlen = 0;
}

/* The calls decided at their end open on wt are shown whatever their end
 * (the queue is let out: too much held, or no memory, or the trace ends). */
static void give_up_verdicts(ct_filter *f, ct_walk_thread *wt)
{
    thread *t = wt->user;
    for (uint32_t k = 0; k < wt->stack.kept; k++)
        frame_at(wt, k)->verdict = 0;
    t->vopen = 0;
    t->ndeferred = 0;
    flush_queue(f, t);
}

/* Passes on an event of wt (of the call at stack index level, DEEP for
 * one not followed): queued while a call decided at its end is open.
 * Returns its place in the queue, or NO_Q. */
static uint32_t out_event(ct_filter *f, ct_walk_thread *wt, uint32_t level, const ct_rec *rec,
                          const uint8_t *raw, size_t raw_len)
{
    thread *t = wt->user;
    if (!t->vopen) {
        pass(f, rec, raw, raw_len);
        return NO_Q;
    }
    held *h = held_copy(rec, raw, raw_len);
    if (h && t->held_bytes + h->len > CT_FILTER_MAX_HELD_BYTES)
        give_up_verdicts(f, wt);
    if (h && t->vopen && t->qlen == t->qcap) {
        uint32_t cap = t->qcap ? 2 * t->qcap : 64;
        qitem *q = realloc(t->q, cap * sizeof *q);
        if (q) {
            t->q = q;
            t->qcap = cap;
        }
    }
    if (!h || !t->vopen || t->qlen == t->qcap) {
        if (t->vopen)
            give_up_verdicts(f, wt); /* no memory: shown as they come */
        held_free(h);
        pass(f, rec, raw, raw_len);
        return NO_Q;
    }
    t->held_bytes += h->len;
    t->q[t->qlen].h = h;
    t->q[t->qlen].level = level;
    return t->qlen++;
}

/* Passes on the event the walk is given, of the call at stack index level. */
static uint32_t pass_event(ct_filter *f, ct_walk_thread *wt, uint32_t level, const ct_rec *rec)
{
    return out_event(f, wt, level, rec, f->raw, f->raw_len);
}

/* Passes on fr's held-back enter (fr: the frame at stack index k, or
 * taken from there). */
static void let_out_frame(ct_filter *f, ct_walk_thread *wt, frame *fr, uint32_t k)
{
    thread *t = wt->user;
    held *h = fr->pending;
    fr->pending = NULL;
    t->held_bytes -= h->len;
    uint32_t at = out_event(f, wt, k, &h->rec, h->has_raw ? h->bytes : NULL,
                            h->has_raw ? h->len : 0);
    if (fr->verdict)
        fr->enter_q = at;
    held_free(h);
}

static void let_out(ct_filter *f, ct_walk_thread *wt, uint32_t k)
{
    let_out_frame(f, wt, frame_at(wt, k), k);
}

/* Passes on the held-back enter events of wt's stack, outermost first (a
 * call below them is shown, so they are too). */
static void let_out_all(ct_filter *f, ct_walk_thread *wt)
{
    thread *t = wt->user;
    for (uint32_t k = t->low; k < wt->stack.kept; k++)
        if (frame_at(wt, k)->pending)
            let_out(f, wt, k);
    t->low = NO_PENDING;
}

/* Holds rec back in fr, wt's innermost frame; -1 when out of memory. */
static int hold(ct_filter *f, ct_walk_thread *wt, frame *fr, const ct_rec *rec)
{
    thread *t = wt->user;
    held *h = held_copy(rec, f->raw, f->raw_len);
    if (!h)
        return -1;
    size_t len = h->len;
    /* Room first: the oldest held events go out when the thread holds too
     * much. */
    while (t->held_bytes + len > CT_FILTER_MAX_HELD_BYTES && t->low < wt->stack.kept) {
        uint32_t k = t->low++;
        if (frame_at(wt, k)->pending)
            let_out(f, wt, k);
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
        pass_event(f, wt, DEEP, rec);
        return rc;
    }
    uint32_t idx = wt->stack.kept - 1; /* fr is the innermost frame */
    fr->trigger = ct_table_get(&f->triggers, rec->key) != NULL;
    if (fr->trigger)
        t->gate++;
    fr->enter_q = NO_Q;
    fr->verdict = f->o.at_end && f->o.at_end(rec->key);
    if (fr->verdict) {
        fr->q_at = t->qlen;
        t->vopen++;
    }
    int shown = f->calls > f->o.after && (!f->o.trigger || t->gate) &&
                (!f->o.depth || t->shown < f->o.depth);
    if (!shown) {
        f->hidden++;
        return 0;
    }
    fr->shown = 1;
    t->shown++;
    if (!f->o.min_time_ns && !f->o.failed) {
        uint32_t at = pass_event(f, wt, idx, rec);
        if (fr->verdict)
            fr->enter_q = at;
        return 0;
    }
    if (hold(f, wt, fr, rec) != 0) {
        let_out_all(f, wt);
        uint32_t at = pass_event(f, wt, idx, rec);
        if (fr->verdict)
            fr->enter_q = at;
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

/* A call decided at its end, rejected: its enter and end are left out
 * (idx: its stack index), and with a trigger on it, everything under it. */
static void rejected(ct_filter *f, thread *t, frame *fr, uint32_t idx)
{
    if (fr->pending) {
        drop_pending(f, t, fr);
    } else if (fr->enter_q != NO_Q && fr->enter_q < t->qlen && t->q[fr->enter_q].h) {
        held *h = t->q[fr->enter_q].h;
        t->held_bytes -= h->len;
        held_free(h);
        t->q[fr->enter_q].h = NULL;
        f->hidden++;
    }
    if (!fr->trigger)
        return;
    for (uint32_t i = fr->q_at; i < t->qlen; i++) {
        held *h = t->q[i].h;
        if (!h || t->q[i].level <= idx)
            continue;
        if (h->rec.type == CT_REC_ENTER)
            f->hidden++;
        t->held_bytes -= h->len;
        held_free(h);
        t->q[i].h = NULL;
    }
}

static int ended(ct_filter *f, ct_walk_thread *wt, thread *t, frame *fr, uint32_t idx,
                 ct_walk_end how, const ct_rec *rec, uint32_t *end_q);

/* The async call id a LEAVE carries as its last value (a u64), or 0. */
static uint64_t leave_async_id(const ct_rec *rec)
{
    size_t pos = 0;
    const uint8_t *v = NULL;
    uint32_t len = 0;
    ct_value_status st = CT_VALUE_MISSING;
    uint64_t id = 0;
    if (rec->type != CT_REC_LEAVE || rec->nvalues < 2)
        return 0;
    for (uint32_t i = 0; i < rec->nvalues; i++)
        if (ct_next_value(rec, &pos, &v, &len, &st) != 1)
            return 0;
    if (st == CT_VALUE_PLAN && len == 8)
        memcpy(&id, v, 8);
    return id;
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
    int reject = 0, defer = 0;
    if (how != CT_WALK_MISSED) {
        /* The reject (defer) told before an end is that end's. */
        reject = t->reject && t->reject_key == rec->key;
        defer = how == CT_WALK_RETURN && t->defer && t->defer_key == rec->key;
        t->reject = 0;
        t->defer = 0;
    }
    if (!fp) {
        /* Not followed. */
        if (f->o.depth || (f->o.trigger && !t->gate))
            return 0;
        let_out_all(f, wt);
        pass_event(f, wt, DEEP, rec);
        return 0;
    }
    uint32_t idx = wt->stack.kept - 1;
    frame fr;
    take_frame(wt, fp, &fr);
    uint32_t end_q = NO_Q;
    if (!fr.verdict)
        return ended(f, wt, t, &fr, idx, how, rec, &end_q);
    int rc = 0;
    if (reject) {
        rejected(f, t, &fr, idx);
    } else {
        rc = ended(f, wt, t, &fr, idx, how, rec, &end_q);
        uint64_t id = defer ? leave_async_id(rec) : 0;
        if (id && t->ndeferred < CT_FILTER_ASYNC_DEFERRED) {
            /* Its verdict comes with its task's end: the queue holds on. */
            t->deferred[t->ndeferred++] = (struct deferred){id, fr.enter_q, end_q};
            return rc;
        }
    }
    if (t->vopen && !--t->vopen)
        flush_queue(f, t);
    return rc;
}

/* Frees queued event i of t (left out). */
static void drop_queued(ct_filter *f, thread *t, uint32_t i)
{
    if (i == NO_Q || i >= t->qlen || !t->q[i].h)
        return;
    held *h = t->q[i].h;
    if (h->rec.type == CT_REC_ENTER)
        f->hidden++;
    t->held_bytes -= h->len;
    held_free(h);
    t->q[i].h = NULL;
}

/* Thread tid's part of the filter, to be told of its next end; NULL. */
static thread *told(ct_filter *f, uint64_t tid)
{
    ct_walk_thread *wt = f->finished ? NULL : ct_walk_thread_of(&f->walk, tid);
    return wt ? wt->user : NULL;
}

void ct_filter_defer(ct_filter *f, uint64_t tid, uint64_t key)
{
    thread *t = told(f, tid);
    if (t) {
        t->defer = 1;
        t->defer_key = key;
    }
}

int ct_filter_async_verdict(ct_filter *f, uint64_t id, int keep)
{
    for (ct_walk_thread *wt = f->walk.first; wt && id; wt = wt->next) {
        thread *t = wt->user;
        for (uint32_t i = 0; i < t->ndeferred; i++) {
            if (t->deferred[i].id != id)
                continue;
            struct deferred d = t->deferred[i];
            t->deferred[i] = t->deferred[--t->ndeferred];
            /* Hidden: its enter and end (an enter held back for --min-time
             * is not in the queue: then it is shown). */
            int hide = !keep && d.enter_q != NO_Q;
            if (hide) {
                drop_queued(f, t, d.enter_q);
                drop_queued(f, t, d.end_q);
            }
            if (t->vopen && !--t->vopen)
                flush_queue(f, t);
            return hide ? 2 : 1;
        }
    }
    return 0;
}

/* A call closed (not rejected): its end passes when it is shown (*end_q:
 * its place in the queue, or NO_Q). */
static int ended(ct_filter *f, ct_walk_thread *wt, thread *t, frame *frp, uint32_t idx,
                 ct_walk_end how, const ct_rec *rec, uint32_t *end_q)
{
    frame fr = *frp;
    if (how == CT_WALK_MISSED) {
        /* It never ended (a missed event): judged as if it ended now; the
         * consumer closes those it sees as unfinished. */
        if (fr.pending && f->o.failed) {
            drop_pending(f, t, &fr);
            return 0;
        }
        if (fr.pending && !too_short(f, t, &fr, rec)) {
            let_out_all(f, wt);
            let_out_frame(f, wt, &fr, idx);
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
        let_out_frame(f, wt, &fr, idx);
    *end_q = pass_event(f, wt, idx, rec);
    return 0;
}

/* Not entered as far as we know: the consumer reports it. */
static int call_unmatched(void *ctx, ct_walk_thread *wt, uint32_t depth, const ct_rec *rec)
{
    (void)depth;
    ((thread *)wt->user)->reject = 0;
    ((thread *)wt->user)->defer = 0;
    pass_event(ctx, wt, DEEP, rec);
    return 0;
}

void ct_filter_reject(ct_filter *f, uint64_t tid, uint64_t key)
{
    thread *t = told(f, tid);
    if (t) {
        t->reject = 1;
        t->reject_key = key;
    }
}

void ct_filter_finish(ct_filter *f)
{
    if (f->finished)
        return;
    f->finished = 1;
    /* In the order of the walk's table of threads, as always. */
    for (size_t i = 0; i < f->walk.threads.cap; i++) {
        ct_walk_thread *wt = f->walk.threads.slots[i].value;
        if (wt) {
            give_up_verdicts(f, wt);
            let_out_all(f, wt);
        }
    }
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
