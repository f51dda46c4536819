/* Publishing event records into the thread's ring (internal.h), and the
 * bench-only naive mode's publishing, which renders each record in the hook
 * instead (ct_writer_naive_event): the engines' naive entry points use it,
 * so the ring's path never asks which mode runs. */
#include "internal.h"

#include "agent/writer/writer.h"

int ct_rec_emit(ct_tbuf *b, const uint8_t *rec, size_t len)
{
    uint8_t *p = ct_ring_reserve(&b->ring, len);
    if (!p) {
        ct_tbuf_count_drop(b, 1);
        return 0;
    }
    memcpy(p, rec, len);
    ct_ring_commit(&b->ring, len);
    return 1;
}

/* Ends the event: 1 when whole with its values; else it is begun again and
 * ended without them (0). A whole record that named a class new to this
 * thread is marked for the writer. */
static int seal(ct_tbuf *b, ct_rec_event *ev)
{
    int whole = ct_event_end(&ev->w, &ev->m) == CT_TRACE_OK;
    if (!whole) {
        /* Its header is still there: the same time and held time. */
        const uint8_t *h = ev->w.p + ev->m.start;
        uint64_t time = ct_event_time(h), held = ct_event_held(h);
        ct_wbuf_init(&ev->w, ev->area, b->ring.record_max);
        ct_event_begin(&ev->w, ev->type, time, held, b->tid, ev->key, &ev->m);
        ct_event_end(&ev->w, &ev->m);
    }
    if (ct_rec_of(b)->class_new && whole)
        ev->w.p[ev->m.start + CT_EVENT_MARK_AT] = CT_EVENT_NEW_CLASSES;
    return whole;
}

/* After the record was published (ok) or dropped: classes it named that
 * will not reach the writer are forgotten. */
static int settle(ct_tbuf *b, int ok, int whole)
{
    ct_rec_thread *th = ct_rec_of(b);
    if (th->class_new) {
        if (!ok || !whole)
            ct_rec_forget_classes(b);
        th->class_new = 0;
    }
    return ok;
}

int ct_rec_publish(ct_tbuf *b, ct_rec_event *ev)
{
    int whole = seal(b, ev), ok;
    if (ev->inplace) {
        ct_ring_commit(&b->ring, ev->w.len);
        ok = 1;
    } else {
        ok = ct_rec_emit(b, ev->w.p, ev->w.len);
    }
    return settle(b, ok, whole);
}

int ct_rec_publish_naive(ct_tbuf *b, ct_rec_event *ev)
{
    int whole = seal(b, ev);
    ct_writer_naive_event(ev->w.p, ev->w.len);
    return settle(b, 1, whole);
}

int ct_rec_plain_naive(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key)
{
    uint8_t rec[CT_EVENT_BASE_BYTES];
    ct_event_put_header(rec, type, now, ct_rec_held(b), b->tid, key);
    ct_writer_naive_event(rec, sizeof rec);
    return 1;
}

int ct_rec_plain_as(ct_tbuf *b, ct_rec_type type, uint64_t now, uint64_t key, int naive)
{
    return naive ? ct_rec_plain_naive(b, type, now, key) : ct_rec_plain(b, type, now, key);
}

void ct_rec_reject(ct_tbuf *b, uint64_t now, uint64_t key, int naive)
{
    ct_rec_marker(b, CT_RING_REJECT, now, key, naive);
}

void ct_rec_marker(ct_tbuf *b, uint32_t type, uint64_t now, uint64_t key, int naive)
{
    uint8_t rec[CT_EVENT_BASE_BYTES];
    ct_event_put_header(rec, (ct_rec_type)type, now, ct_rec_held(b), b->tid, key);
    if (naive)
        ct_writer_naive_event(rec, sizeof rec);
    else
        ct_rec_emit(b, rec, sizeof rec);
}

void ct_rec_close_replaced(ct_tbuf *b, uintptr_t csp, int naive)
{
    ct_rec_thread *t = ct_rec_of(b);
    uint64_t now = 0;
    while (t->depth && t->depth <= CT_DROP_TRACK_FRAMES) {
        uint32_t d = t->depth - 1;
        uintptr_t sp = t->frame_sp[d];
        if (!sp || sp > csp)
            break;
        uint64_t key = t->frame_keys[d];
        if (!now)
            now = ct_now_ns();
        int how = ct_rec_frame_close(b);
        if (how) {
            ct_rec_count_unrecorded(b, how);
        } else {
            ct_rec_end_verdict(b, (const ct_mapped_fn *)(uintptr_t)key, CT_REC_TAILCALL, NULL,
                               NULL, NULL, now, naive);
            ct_rec_plain_as(b, CT_REC_TAILCALL, now, key, naive);
        }
    }
}

void ct_rec_end_verdict(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_type how, ct_rec_ret_fn *ret,
                        const void *ctx, const ct_rec_exc *x, uint64_t now, int naive)
{
    if (!f || !f->when_end)
        return;
    int holds = ct_rec_when_end_holds(b, f, how, ret, ctx, x);
    if (!holds)
        ct_rec_reject(b, now, (uint64_t)(uintptr_t)f, naive);
    else if (holds == CT_WHEN_LATER)
        ct_rec_marker(b, CT_RING_DEFER, now, (uint64_t)(uintptr_t)f, naive);
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
