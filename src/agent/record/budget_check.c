/* The budget and the limits, the hooks' side: whether a call is recorded,
 * recorded without values, or left out (counted per function on the
 * thread, for the writer: src/agent/writer/budget_control.c). No lock, no
 * allocation; a function's step is the writer's, read relaxed. */
#include <stdatomic.h>

#include "internal.h"
#include "agent/hookside/clock.h"

/* One more call of function key left out on b's thread. */
static void count_skip(ct_tbuf *b, uint64_t key)
{
    uint32_t i = 0;
    for (; i < CT_TBUF_SKIP_SLOTS; i++) {
        uint64_t k = atomic_load_explicit(&b->skips[i].key, memory_order_relaxed);
        if (!k) {
            atomic_store_explicit(&b->skips[i].key, key, memory_order_release);
            break;
        }
        if (k == key)
            break;
    }
    /* (past the slots: slot CT_TBUF_SKIP_SLOTS, key 0) */
    uint64_t n = atomic_load_explicit(&b->skips[i].count, memory_order_relaxed);
    atomic_store_explicit(&b->skips[i].count, n + 1, memory_order_relaxed);
}

/* Whether --rate lets one more call of f through in this second. */
static int rate_allows(ct_mapped_fn *f)
{
    uint64_t second = ct_now_ns() / 1000000000ull;
    uint64_t was = atomic_load_explicit(&f->rate_second, memory_order_relaxed);
    if (was != second &&
        atomic_compare_exchange_strong_explicit(&f->rate_second, &was, second,
                                                memory_order_relaxed, memory_order_relaxed))
        atomic_store_explicit(&f->rate_hits, 0, memory_order_relaxed);
    return atomic_fetch_add_explicit(&f->rate_hits, 1, memory_order_relaxed) < g_ct.cfg.rate;
}

int ct_rec_budget_check(ct_tbuf *b, const ct_mapped_fn *cf)
{
    ct_mapped_fn *f = (ct_mapped_fn *)(uintptr_t)cf;
    unsigned step = atomic_load_explicit(&f->budget_step, memory_order_relaxed);
    int skip = step >= CT_BUDGET_UNTRACED;
    if (!skip && step == CT_BUDGET_SAMPLED)
        skip = ++ct_rec_of(b)->sampled % CT_BUDGET_SAMPLE_EVERY != 0;
    if (!skip && g_ct.cfg.limit)
        skip = atomic_fetch_add_explicit(&f->hits, 1, memory_order_relaxed) >= g_ct.cfg.limit;
    if (!skip && g_ct.cfg.rate)
        skip = !rate_allows(f);
    if (skip) {
        count_skip(b, (uint64_t)(uintptr_t)f);
        return CT_BUDGET_SKIP;
    }
    return step >= CT_BUDGET_NO_VALUES ? CT_BUDGET_NO_VALUES_NOW : CT_BUDGET_RECORD;
}
