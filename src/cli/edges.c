/* Callers and callees (cli.h, cli_edge): graph's table and top's Enter
 * pane, one table of edges each, keyed by the other function. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_edge_add(ct_table *t, const ct_function *fn, uint64_t ns)
{
    uint64_t key = fn ? fn->key : 0;
    cli_edge *e = ct_table_get(t, key + 1);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e || ct_table_put(t, key + 1, e) != 0) {
            free(e);
            return -1;
        }
        e->key = key;
        e->fn = fn;
    }
    e->calls++;
    e->ns += ns;
    return 0;
}

typedef struct edge_rows {
    cli_edge **rows;
    size_t n;
} edge_rows;

static void edge_each(void *ctx, ct_key key, void *value)
{
    (void)key;
    edge_rows *c = ctx;
    c->rows[c->n++] = value;
}

static const char *edge_name(const cli_edge *e)
{
    return e->fn ? e->fn->name : "";
}

static int by_calls(const void *a, const void *b)
{
    const cli_edge *x = *(cli_edge *const *)a, *y = *(cli_edge *const *)b;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return strcmp(edge_name(x), edge_name(y));
}

static int by_time(const void *a, const void *b)
{
    const cli_edge *x = *(cli_edge *const *)a, *y = *(cli_edge *const *)b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    return strcmp(edge_name(x), edge_name(y));
}

cli_edge **cli_edges_sorted(const ct_table *t, cli_edge_order order, size_t *n)
{
    edge_rows c = {calloc(t->used ? t->used : 1, sizeof *c.rows), 0};
    *n = 0;
    if (!c.rows)
        return NULL;
    ct_table_each(t, edge_each, &c);
    qsort(c.rows, c.n, sizeof *c.rows, order == CLI_EDGES_BY_TIME ? by_time : by_calls);
    *n = c.n;
    return c.rows;
}

void cli_edges_free(ct_table *t)
{
    size_t n = 0;
    cli_edge **e = cli_edges_sorted(t, CLI_EDGES_BY_CALLS, &n);
    for (size_t i = 0; e && i < n; i++)
        free(e[i]);
    free(e);
    ct_table_free(t);
}
