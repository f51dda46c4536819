#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "out.h"
#include "registry.h"

typedef struct row {
    const char *name;
    unsigned long long calls, total, self;
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
    int oom;
} rows;

static void collect(void *ctx, const ct_function *f)
{
    rows *r = ctx;
    ct_function *mf = (ct_function *)f;
    unsigned long long calls = atomic_load_explicit(&mf->calls, memory_order_relaxed);
    if (!f->hooked || !calls || r->oom)
        return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        row *v = realloc(r->v, cap * sizeof *v);
        if (!v) {
            r->oom = 1;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (row){f->display, calls,
                         atomic_load_explicit(&mf->total_ns, memory_order_relaxed),
                         atomic_load_explicit(&mf->self_ns, memory_order_relaxed)};
}

static int by_total(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static const char *plural(unsigned long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

void ct_summary_write(unsigned long threads, unsigned long dropped)
{
    rows r = {0};
    ct_registry_each(collect, &r);
    qsort(r.v, r.n, sizeof *r.v, by_total);
    unsigned long long calls = 0;
    for (size_t i = 0; i < r.n; i++)
        calls += r.v[i].calls;
    ct_out_printf("\n# summary: %llu %s, %zu %s, %lu %s, %lu %s dropped\n", calls,
                  plural(calls, "call", "calls"), r.n, plural(r.n, "function", "functions"),
                  threads, plural(threads, "thread", "threads"), dropped,
                  plural(dropped, "event", "events"));
    ct_out_printf("#  CALLS      TOTAL       SELF  FUNCTION\n");
    for (size_t i = 0; i < r.n; i++) {
        char total[32], self[32];
        ct_format_duration(r.v[i].total, total, sizeof total);
        ct_format_duration(r.v[i].self, self, sizeof self);
        ct_out_printf("%8llu %10s %10s  %s\n", r.v[i].calls, total, self, r.v[i].name);
    }
    free(r.v);
}
