/* --locals: a frame's values as an exception passes through it (internal.h,
 * ct_rec_locals). Called from the IL engine's exception filter around a
 * traced method's body, in the exception's first pass: before any finally
 * of the frame runs, the frame's locals as the throw left them. The filter
 * never catches. */
#include "internal.h"

void ct_rec_locals(ct_tbuf *b, const ct_mapped_fn *pf, const ct_mapped_fn *owner,
                   uint64_t frame, ct_rec_args_fn *args, const void *ctx)
{
    if (ct_rec_is_busy(b)) {
        ct_tbuf_count_drop(b, 1);
        return;
    }
    ct_rec_busy(b, 1);
    uint64_t t0 = ct_now_ns(), held = ct_rec_held(b);
    ct_rec_event ev;
    ct_rec_begin(b, &ev, CT_REC_LOCALS, t0, held, (uint64_t)(uintptr_t)pf, 0);
    uint64_t key = (uint64_t)(uintptr_t)owner;
    uint8_t *v = ct_event_value_reserve(&ev.w, 16);
    if (v) {
        memcpy(v, &key, 8);
        memcpy(v + 8, &frame, 8);
        ct_event_value_commit(&ev.w, &ev.m, 16);
        /* Values that do not fit: the record goes without any (its reader
         * ignores one without the frame's key). */
        if (!args(b, pf, ctx, &ev.w, &ev.m))
            ct_rec_restart(b, &ev);
        uint64_t t1 = ct_now_ns();
        ct_ring_hold(&b->ring, t1 > t0 ? t1 - t0 : 0);
        ct_rec_publish(b, &ev);
    }
    ct_rec_busy(b, 0);
}
