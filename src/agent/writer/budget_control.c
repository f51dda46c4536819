#include "budget_control.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "format/event.h"

static ct_budget_io g_io;
static uint32_t g_pct;
static uint64_t g_window_start;
static uint32_t g_quiet;
/* This window's functions with events, and the functions stepped down. */
static ct_mapped_fn *g_track[CT_BUDGET_TRACK];
static uint32_t g_ntrack;
static ct_mapped_fn *g_stack[CT_BUDGET_STACK];
static uint32_t g_nstack;
/* Calls left out of functions past a thread's slots, and as last recorded
 * (a BUDGET record of key 0). */
static uint64_t g_other_skipped, g_other_recorded;
/* Functions whose left-out count changed since their last record. */
static ct_mapped_fn *g_changed[CT_BUDGET_TRACK];
static uint32_t g_nchanged;

/* Steps taken, calls left out (every function), and the first functions
 * stepped down (named in ct_budget_report). */
#define BUDGET_REPORT_NAMES 3
static uint64_t g_steps, g_skipped_total;
static ct_mapped_fn *g_named[BUDGET_REPORT_NAMES];
static uint32_t g_nnamed;

static const char *const k_steps[] = {"recorded again", "values off",
                                      "sampled: one call in 16 per thread", "untraced"};

void ct_budget_setup(const ct_budget_io *io, uint32_t pct)
{
    g_io = *io;
    g_pct = pct;
    /* A new trace (an attached process has one per session). */
    g_window_start = 0;
    g_quiet = g_ntrack = g_nstack = g_nchanged = g_nnamed = 0;
    g_other_skipped = g_other_recorded = g_steps = g_skipped_total = 0;
}

static void record(ct_mapped_fn *f, uint64_t now, uint64_t tid, uint32_t permille)
{
    uint8_t buf[96];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    if (ct_write_budget(&w, now, (uint64_t)(uintptr_t)f, tid, f->budget_skipped,
                        atomic_load_explicit(&f->budget_step, memory_order_relaxed),
                        permille) == CT_TRACE_OK && g_io.emit)
        g_io.emit(buf, w.len);
}

/* The BUDGET records of the counts that changed. */
static void record_changed(uint64_t now)
{
    for (uint32_t i = 0; i < g_nchanged; i++)
        record(g_changed[i], now, 0, 0);
    g_nchanged = 0;
    if (g_other_skipped != g_other_recorded) {
        uint8_t buf[96];
        ct_wbuf w;
        ct_wbuf_init(&w, buf, sizeof buf);
        if (ct_write_budget(&w, now, 0, 0, g_other_skipped, CT_BUDGET_FULL, 0) == CT_TRACE_OK &&
            g_io.emit)
            g_io.emit(buf, w.len);
        g_other_recorded = g_other_skipped;
    }
}

static void changed(ct_mapped_fn *f)
{
    for (uint32_t i = 0; i < g_nchanged; i++)
        if (g_changed[i] == f)
            return;
    if (g_nchanged < CT_BUDGET_TRACK)
        g_changed[g_nchanged++] = f;
}

void ct_budget_event(ct_tbuf *b, uint64_t key, int enter)
{
    b->budget_events++;
    if (!enter || !key || !g_pct)
        return;
    ct_mapped_fn *f = (ct_mapped_fn *)(uintptr_t)key;
    if (!f->budget_listed) {
        if (g_ntrack == CT_BUDGET_TRACK)
            return;
        f->budget_listed = 1;
        g_track[g_ntrack++] = f;
    }
    f->budget_events++;
}

void ct_budget_take(ct_tbuf *b)
{
    for (uint32_t i = 0; i <= CT_TBUF_SKIP_SLOTS; i++) {
        uint64_t key = atomic_load_explicit(&b->skips[i].key, memory_order_acquire);
        uint64_t n = atomic_load_explicit(&b->skips[i].count, memory_order_relaxed);
        if (n == b->skips_taken[i])
            continue;
        uint64_t more = n - b->skips_taken[i];
        b->skips_taken[i] = n;
        b->budget_skips += more;
        g_skipped_total += more;
        if (!key || i == CT_TBUF_SKIP_SLOTS) {
            g_other_skipped += more;
            continue;
        }
        ct_mapped_fn *f = (ct_mapped_fn *)(uintptr_t)key;
        f->budget_skipped += more;
        changed(f);
    }
}

/* One step for f, down (+1) or up (-1), told. */
static void step(ct_mapped_fn *f, int dir, uint64_t now, uint64_t tid, uint32_t permille)
{
    unsigned s = atomic_load_explicit(&f->budget_step, memory_order_relaxed);
    unsigned to = dir > 0 ? s + 1 : s - 1;
    g_steps++;
    int named = 0;
    for (uint32_t i = 0; i < g_nnamed; i++)
        named |= g_named[i] == f;
    if (!named && g_nnamed < BUDGET_REPORT_NAMES)
        g_named[g_nnamed++] = f;
    atomic_store_explicit(&f->budget_step, to, memory_order_relaxed);
    if (to == CT_BUDGET_UNTRACED && g_io.untrace)
        g_io.untrace(f);
    if (s == CT_BUDGET_UNTRACED && g_io.retrace)
        g_io.retrace(f);
    record(f, now, tid, permille);
    char text[512];
    if (dir > 0)
        snprintf(text, sizeof text,
                 "budget: the tracer took %u.%u%% of thread %llu's time (over %u%%): %s %s",
                 permille / 10, permille % 10, (unsigned long long)tid, g_pct, f->display,
                 k_steps[to]);
    else
        snprintf(text, sizeof text, "budget: quiet for %u s: %s %s", g_quiet, f->display,
                 k_steps[to]);
    if (g_io.to_stderr)
        fprintf(stderr, "clrtrace: %s\n", text);
}

/* The function of this window with the most calls that can still step
 * down, or NULL. */
static ct_mapped_fn *hottest(void)
{
    ct_mapped_fn *best = NULL;
    for (uint32_t i = 0; i < g_ntrack; i++) {
        ct_mapped_fn *f = g_track[i];
        if (atomic_load_explicit(&f->budget_step, memory_order_relaxed) >= CT_BUDGET_STEP_MAX)
            continue;
        if (!best || f->budget_events > best->budget_events)
            best = f;
    }
    return best;
}

/* The largest cost on one thread since the window began (its thread id in
 * *tid); with reset, a new window begins for every thread. */
static uint64_t worst_cost(int reset, uint64_t *tid)
{
    uint64_t worst = 0;
    *tid = 0;
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next) {
        int st = atomic_load_explicit(&b->state, memory_order_acquire);
        if (st != CT_TBUF_IN_USE && st != CT_TBUF_ORPHANED)
            continue;
        ct_budget_take(b);
        uint64_t held = ct_ring_held(&b->ring) -
                        atomic_load_explicit(&b->ring.jit, memory_order_relaxed);
        uint64_t dropped = atomic_load_explicit(&b->dropped, memory_order_relaxed);
        uint64_t dh = held >= b->budget_held ? held - b->budget_held : 0;
        uint64_t dd = dropped >= b->budget_dropped ? dropped - b->budget_dropped : 0;
        /* The hooks' own cost as timed on this thread (not less than the
         * bench's figures, which include the runtime's part). */
        uint64_t n0 = atomic_load_explicit(&b->hook_n[0], memory_order_relaxed);
        uint64_t n1 = atomic_load_explicit(&b->hook_n[1], memory_order_relaxed);
        uint64_t ev_ns = n0 ? atomic_load_explicit(&b->hook_ns[0], memory_order_relaxed) / n0 : 0;
        uint64_t skip_ns = n1 ? 2 * atomic_load_explicit(&b->hook_ns[1], memory_order_relaxed) / n1
                              : 0;
        if (ev_ns < CT_BUDGET_EVENT_NS)
            ev_ns = CT_BUDGET_EVENT_NS;
        if (skip_ns < CT_BUDGET_SKIP_NS)
            skip_ns = CT_BUDGET_SKIP_NS;
        uint64_t cost = dh + (b->budget_events + dd) * ev_ns + b->budget_skips * skip_ns;
        if (reset) {
            b->budget_held = held;
            b->budget_dropped = dropped;
            b->budget_events = 0;
            b->budget_skips = 0;
        }
        if (cost > worst) {
            worst = cost;
            *tid = b->tid;
        }
    }
    return worst;
}

/* The window ends (now): a step down when the tracer's cost on a thread
 * went over the budget (over), after a quiet spell one back up. */
static void end_window(uint64_t now, int over)
{
    uint64_t span = now > g_window_start ? now - g_window_start : 1, tid = 0;
    uint64_t worst = worst_cost(1, &tid);
    uint32_t permille = (uint32_t)(worst * 1000 / span > 1000 ? 1000 : worst * 1000 / span);
    if (over) {
        ct_mapped_fn *f = hottest();
        if (f) {
            if (g_nstack < CT_BUDGET_STACK &&
                atomic_load_explicit(&f->budget_step, memory_order_relaxed) == CT_BUDGET_FULL)
                g_stack[g_nstack++] = f;
            step(f, +1, now, tid, permille);
        }
        g_quiet = 0;
    } else if (g_pct && permille * 2 < g_pct * 10) {
        ct_mapped_fn *f = g_nstack ? g_stack[g_nstack - 1] : NULL;
        uint32_t backoff = f && f->budget_backoff < CT_BUDGET_MAX_BACKOFF ? f->budget_backoff
                                                                          : CT_BUDGET_MAX_BACKOFF;
        if (f && ++g_quiet >= (uint32_t)CT_BUDGET_QUIET_WINDOWS << backoff) {
            f->budget_backoff++;
            step(f, -1, now, 0, 0);
            if (atomic_load_explicit(&f->budget_step, memory_order_relaxed) == CT_BUDGET_FULL)
                g_nstack--;
            g_quiet = 0;
        }
    } else {
        g_quiet = 0;
    }
    for (uint32_t i = 0; i < g_ntrack; i++) {
        g_track[i]->budget_events = 0;
        g_track[i]->budget_listed = 0;
    }
    g_ntrack = 0;
    record_changed(now);
    g_window_start = now;
}

void ct_budget_tick(uint64_t now)
{
    static uint64_t last_check;
    if (!g_window_start)
        g_window_start = last_check = now;
    if (now - g_window_start >= CT_BUDGET_WINDOW_NS) {
        end_window(now, 0);
        return;
    }
    if (!g_pct || now - last_check < CT_BUDGET_CHECK_NS)
        return;
    last_check = now;
    uint64_t tid;
    if (worst_cost(0, &tid) > CT_BUDGET_WINDOW_NS / 100 * g_pct)
        end_window(now, 1);
}

void ct_budget_finish(uint64_t now)
{
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next)
        if (atomic_load_explicit(&b->state, memory_order_acquire) != CT_TBUF_FREE)
            ct_budget_take(b);
    record_changed(now);
}

void ct_budget_report(char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (!g_steps && !g_skipped_total)
        return;
    size_t o = 0;
    int n = g_pct ? snprintf(out, cap, "budget %u%%: %llu step%s", g_pct,
                             (unsigned long long)g_steps, g_steps == 1 ? "" : "s")
                  : snprintf(out, cap, "limits");
    for (uint32_t i = 0; n > 0 && (o += (size_t)n) < cap && i < g_nnamed; i++) {
        unsigned s = atomic_load_explicit(&g_named[i]->budget_step, memory_order_relaxed);
        n = snprintf(out + o, cap - o, "%s%s %s", i ? ", " : " (", g_named[i]->display,
                     k_steps[s]);
    }
    if (n > 0 && o < cap && g_nnamed)
        o += (size_t)snprintf(out + o, cap - o, ")");
    if (o < cap)
        snprintf(out + o, cap - o, "; %llu calls not recorded, counted in the trace",
                 (unsigned long long)g_skipped_total);
}
