/* Calls grouped by trace id (src/views/bytrace.h), a client of the walk. */
#include "bytrace.h"

#include "hist.h"

#include <stdlib.h>
#include <string.h>

#include "walk.h"
#include "base/table.h"

typedef struct frame {
    ct_stack_frame h;
    uint32_t row;        /* index in rows */
    int outer;           /* its caller (if any) is not under its trace id */
    uint64_t prog;       /* the thread's program time at its enter */
} frame;

struct ct_bytrace {
    ct_walk walk;
    ct_table index;      /* trace id (two u64 words) -> row index + 1 */
    ct_bytrace_row *rows;
    size_t n, cap;
    uint64_t last_ns;    /* the latest event or END time */
    int finished;
    int nomem;
};

static ct_key id_key(const uint8_t *id)
{
    ct_key k;
    memcpy(&k.a, id, 8);
    memcpy(&k.b, id + 8, 8);
    return k;
}

/* The index of the row of trace id `id`, made when new; -1 out of memory. */
static long row_of(ct_bytrace *b, const uint8_t *id, uint64_t now)
{
    ct_key k = id_key(id);
    uintptr_t v = (uintptr_t)ct_table_get_key(&b->index, k);
    if (v)
        return (long)(v - 1);
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        ct_bytrace_row *more = realloc(b->rows, cap * sizeof *more);
        if (!more)
            return -1;
        b->rows = more;
        b->cap = cap;
    }
    if (ct_table_put_key(&b->index, k, (void *)(uintptr_t)(b->n + 1)) != 0)
        return -1;
    ct_bytrace_row *r = &b->rows[b->n];
    memset(r, 0, sizeof *r);
    memcpy(r->trace_id, id, CT_TRACE_ID_BYTES);
    r->first_ns = r->last_ns = now;
    return (long)b->n++;
}

static int add_tid(ct_bytrace_row *r, uint64_t tid)
{
    /* The latest thread first: a request's calls come in runs. */
    if (r->ntids && r->tids[r->ntids - 1] == tid)
        return 0;
    for (uint32_t i = 0; i < r->ntids; i++)
        if (r->tids[i] == tid)
            return 0;
    if (r->ntids == r->tids_cap) {
        uint32_t cap = r->tids_cap ? 2 * r->tids_cap : 4;
        uint64_t *more = realloc(r->tids, cap * sizeof *more);
        if (!more)
            return -1;
        r->tids = more;
        r->tids_cap = cap;
    }
    r->tids[r->ntids++] = tid;
    return 0;
}

static int on_open(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth, const ct_rec *rec,
                   int nomem)
{
    (void)depth, (void)rec;
    ct_bytrace *b = ctx;
    if (nomem)
        return -1;
    long i = row_of(b, t->ids, t->now);
    if (i < 0)
        return -1;
    ct_bytrace_row *r = &b->rows[i];
    r->calls++;
    if (t->now < r->first_ns)
        r->first_ns = t->now;
    if (add_tid(r, t->tid) != 0)
        return -1;
    frame *f = fp;
    if (f) {
        const frame *caller = ct_walk_caller(t);
        f->row = (uint32_t)i;
        f->outer = !caller || caller->row != (uint32_t)i;
        f->prog = t->prog;
    }
    return 0;
}

static int on_end(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth, ct_walk_end how,
                  uint64_t end_ns, const ct_rec *rec)
{
    (void)depth, (void)how, (void)rec;
    ct_bytrace *b = ctx;
    const frame *f = fp;
    if (!f)
        return 0; /* not kept: counted, not timed */
    ct_bytrace_row *r = &b->rows[f->row];
    if (end_ns > r->last_ns)
        r->last_ns = end_ns;
    if (f->outer)
        r->outer_ns += t->prog - f->prog; /* a thread's program time never goes back */
    return 0;
}

ct_bytrace *ct_bytrace_new(void)
{
    ct_bytrace *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    static const ct_walk_ops ops = { .open = on_open, .end = on_end };
    ct_walk_init(&b->walk, &ops, b, sizeof(frame), CT_BYTRACE_MAX_FRAMES, 0);
    return b;
}

void ct_bytrace_free(ct_bytrace *b)
{
    if (!b)
        return;
    ct_walk_free(&b->walk);
    ct_table_free(&b->index);
    for (size_t i = 0; i < b->n; i++)
        free(b->rows[i].tids);
    free(b->rows);
    free(b);
}

int ct_bytrace_record(ct_bytrace *b, const ct_rec *rec)
{
    if (b->finished || b->walk.ended)
        return 0;
    if ((ct_rec_is_event(rec->type) || rec->type == CT_REC_END) && rec->time_ns > b->last_ns)
        b->last_ns = rec->time_ns;
    if (ct_walk_record(&b->walk, rec) != 0) {
        b->nomem = 1;
        return -1;
    }
    return 0;
}

int ct_bytrace_row_none(const ct_bytrace_row *r)
{
    static const uint8_t zero[CT_TRACE_ID_BYTES];
    return !memcmp(r->trace_id, zero, sizeof zero);
}

static int slowest_first(const void *a, const void *b)
{
    const ct_bytrace_row *x = a, *y = b;
    int nx = ct_bytrace_row_none(x), ny = ct_bytrace_row_none(y);
    if (nx != ny)
        return nx - ny;
    uint64_t wx = x->last_ns - x->first_ns, wy = y->last_ns - y->first_ns;
    if (wx != wy)
        return wx > wy ? -1 : 1;
    return memcmp(x->trace_id, y->trace_id, CT_TRACE_ID_BYTES);
}

int ct_bytrace_finish(ct_bytrace *b)
{
    if (b->finished)
        return b->nomem ? -1 : 0;
    b->finished = 1;
    if (ct_walk_close(&b->walk, b->last_ns) != 0)
        b->nomem = 1;
    if (b->n > 1)
        qsort(b->rows, b->n, sizeof *b->rows, slowest_first);
    return b->nomem ? -1 : 0;
}

const ct_bytrace_row *ct_bytrace_rows(const ct_bytrace *b, size_t *n)
{
    *n = b->n;
    return b->rows;
}

int ct_bytrace_latency_of(const ct_bytrace *b, ct_bytrace_latency *out)
{
    size_t n = 0;
    const ct_bytrace_row *rows = ct_bytrace_rows(b, &n);
    ct_hist h = {0};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (!ct_bytrace_row_none(&rows[i]))
            rc = ct_hist_add(&h, rows[i].last_ns - rows[i].first_ns);
    out->n = h.n;
    out->p50 = ct_hist_quantile(&h, 0.50);
    out->p90 = ct_hist_quantile(&h, 0.90);
    out->p99 = ct_hist_quantile(&h, 0.99);
    out->max = h.max;
    ct_hist_free(&h);
    return rc;
}
