/* --inject's decision at a call's entry (internal.h, ct_rec_inject_decide):
 * each fault bound to the method (model/inject_bind.h) in turn, its condition
 * read from the argument slots as --when reads them, then its selectors on
 * the number of calls that met the condition; the first that chooses the
 * call acts, and an INJECT record says so. */
#include "internal.h"

#include "agent/model/inject_bind.h"

/* An INJECT record of f's call on b's thread: spec index's action. */
static void inject_event(ct_tbuf *b, const ct_mapped_fn *f, const ct_inject_bound *ib)
{
    uint8_t *p = ct_ring_reserve(&b->ring, CT_INJECT_RING_BYTES);
    if (!p) {
        ct_tbuf_count_drop(b, 1);
        return;
    }
    ct_event_put_header(p, CT_REC_INJECT, ct_now_ns(), ct_rec_held(b), b->tid,
                        (uint64_t)(uintptr_t)f);
    ct_event_put_counts(p, 0, CT_INJECT_RING_BYTES - 8);
    ct_put_le32(p + CT_EVENT_BASE_BYTES, ib->index);
    ct_put_le32(p + CT_EVENT_BASE_BYTES + 4, ib->spec->action);
    ct_ring_commit(&b->ring, CT_INJECT_RING_BYTES);
}

int ct_rec_inject_decide(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_args_fn *args,
                         const void *ctx)
{
    const ct_inject_fn *in = f->inject;
    if (!in)
        return 0;
    /* The slots, collected once (nothing captured) for the conditions;
     * -1: they cannot be read (every condition is then false). */
    int slots = 0;
    int busy = b && ct_rec_is_busy(b);
    for (uint32_t j = 0; j < in->n; j++) {
        ct_inject_bound *ib = (ct_inject_bound *)&in->b[j];
        if (atomic_load_explicit(&ib->off, memory_order_relaxed))
            continue;
        if (ib->spec->has_when) {
            if (!slots) {
                slots = -1;
                if (b && !busy && args) {
                    ct_wbuf w = {0};
                    ct_event_mark m = {0};
                    ct_rec_busy(b, 1);
                    if (ct_rec_collect_args(b, f, args, ctx, &w, &m))
                        slots = 1;
                    ct_rec_busy(b, 0);
                }
            }
            if (slots < 0 || !ct_rec_when_bound_holds(b, &ib->when))
                continue;
        }
        uint64_t n = atomic_fetch_add_explicit(&ib->calls, 1, memory_order_relaxed) + 1;
        if (!ct_inject_selects(ib->spec, n, ct_inject_seed()))
            continue;
        if (b && !busy)
            inject_event(b, f, ib);
        return (int)j + 1;
    }
    return 0;
}
