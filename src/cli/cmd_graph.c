/* clrtrace graph DIR GLOB: the callers and the callees of the functions
 * GLOB matches (uftrace's `graph`), with calls and times: for each such
 * function, how many of its calls each caller made and their time, and how
 * many calls of each function it made itself and their time. Read with the
 * exporters' call walk (export/calls.c); times leave the tracer's held
 * time out, as the text log's. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "cli.h"
#include "cli/export/export.h"
#include "format/words.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace graph [--pid N] [selection] [filters] DIR GLOB\n"
        "\n"
        "For each function of a binary trace whose full name matches GLOB (Ns.Type.Method,\n"
        "fnmatch(3) patterns joined by ':'): its calls and their total time, then its\n"
        "callers (the function each call was made from, <root> for none: a thread's\n"
        "outermost call) and its callees (the calls it made), each with calls and time,\n"
        "the largest time first. Calls still open at the end of the trace are not\n"
        "counted.\n"
        "\n"
        "%s"
        "\n"
        "Exit status: 0; 1 when the trace cannot be read or is damaged, or no function\n"
        "matches GLOB; 2 for a usage error.\n",
        cli_selection_help());
}

/* A function the glob matches: its calls, their time, and its edges. */
typedef struct target {
    const ct_function *fn;
    uint64_t calls, ns;
    ct_table callers, callees; /* other key + 1 -> cli_edge (cli.h) */
} target;

typedef struct graph {
    const char *glob;
    ct_table targets;         /* key -> target, NULL when it does not match */
    ct_table seen;            /* key -> 1 (matches) or 2 (does not): asked once */
    int oom;
} graph;

/* The target of function fn (NULL: it does not match). */
static target *target_of(graph *g, const ct_function *fn)
{
    uintptr_t seen = (uintptr_t)ct_table_get(&g->seen, fn->key);
    if (seen == 2)
        return NULL;
    if (seen == 1)
        return ct_table_get(&g->targets, fn->key);
    int match = fn->name && ct_glob_list_match(g->glob, fn->name);
    if (ct_table_put(&g->seen, fn->key, (void *)(uintptr_t)(match ? 1 : 2)) != 0) {
        g->oom = 1;
        return NULL;
    }
    if (!match)
        return NULL;
    target *tg = calloc(1, sizeof *tg);
    if (!tg || ct_table_put(&g->targets, fn->key, tg) != 0) {
        free(tg);
        g->oom = 1;
        return NULL;
    }
    tg->fn = fn;
    return tg;
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *rec)
{
    (void)w, (void)end, (void)rec;
    graph *g = ctx;
    const cli_frame *f = cli_top(t);
    const cli_frame *caller = cli_caller(t);
    if (how == CLI_END_UNFINISHED || !f->fn)
        return 0;
    uint64_t ns = t->prog - f->prog; /* the held time left out, as the text log */
    target *tg = target_of(g, f->fn);
    if (tg) {
        tg->calls++;
        tg->ns += ns;
        if (cli_edge_add(&tg->callers, caller ? caller->fn : NULL, ns) != 0)
            g->oom = 1;
    }
    target *up = caller && caller->fn ? target_of(g, caller->fn) : NULL;
    if (up)
        if (cli_edge_add(&up->callees, f->fn, ns) != 0)
            g->oom = 1;
    return g->oom ? -1 : 0;
}

/* Collects the values of a table (into a malloc'd array of *n). */
typedef struct collected {
    void **v;
    size_t n;
} collected;

static void collect(void *ctx, ct_key key, void *value)
{
    (void)key;
    collected *c = ctx;
    c->v[c->n++] = value;
}

static void **values(const ct_table *t, size_t *n)
{
    collected c = {calloc(t->used ? t->used : 1, sizeof *c.v), 0};
    if (c.v)
        ct_table_each(t, collect, &c);
    *n = c.n;
    return c.v;
}

static int targets_by_time(const void *a, const void *b)
{
    const target *x = *(target *const *)a, *y = *(target *const *)b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    return strcmp(x->fn->name, y->fn->name);
}

static void print_edges(const ct_table *t, const char *what)
{
    size_t n = 0;
    cli_edge **e = cli_edges_sorted(t, CLI_EDGES_BY_TIME, &n);
    printf("#  CALLS      TOTAL  %s\n", what);
    for (size_t i = 0; e && i < n; i++) {
        char d[32];
        ct_format_duration(e[i]->ns, d, sizeof d);
        printf("%8llu %10s  %s\n", (unsigned long long)e[i]->calls, d,
               e[i]->fn ? e[i]->fn->name : "<root>");
    }
    free(e);
}

static int graph_one(const cli_offline *o, const char *path)
{
    cli_trace t;
    if (cli_trace_open_pid(&t, "graph", path, o->pid) != 0)
        return 1;
    t.filter = &o->reading;
    graph g = {.glob = o->graph};
    cli_calls_ops ops = {.leave = on_leave};
    cli_calls *w = cli_calls_new(&ops, &g);
    if (!w) {
        fprintf(stderr, "clrtrace graph: out of memory\n");
        cli_trace_close(&t);
        return 1;
    }
    int rc = cli_trace_each(&t, "graph", cli_calls_record, w);
    if ((cli_calls_finish(w) != 0 || g.oom) && rc == 0) {
        fprintf(stderr, "clrtrace graph: out of memory\n");
        rc = 1;
    }
    size_t n = 0;
    target **tg = (target **)values(&g.targets, &n);
    if (tg)
        qsort(tg, n, sizeof *tg, targets_by_time);
    for (size_t i = 0; tg && i < n; i++) {
        char d[32];
        ct_format_duration(tg[i]->ns, d, sizeof d);
        printf("%s# graph: %s, %llu %s, %s\n", i ? "\n" : "", tg[i]->fn->name,
               (unsigned long long)tg[i]->calls, tg[i]->calls == 1 ? "call" : "calls", d);
        print_edges(&tg[i]->callers, "CALLERS");
        print_edges(&tg[i]->callees, "CALLEES");
    }
    if (!n && rc == 0) {
        fprintf(stderr, "clrtrace graph: no function of the trace matches '%s'\n", o->graph);
        rc = 1;
    }
    for (size_t i = 0; tg && i < n; i++) {
        cli_edges_free(&tg[i]->callers);
        cli_edges_free(&tg[i]->callees);
        free(tg[i]);
    }
    free(tg);
    ct_table_free(&g.targets);
    ct_table_free(&g.seen);
    cli_calls_free(w);
    cli_trace_close(&t);
    if (fflush(stdout) != 0) {
        perror("clrtrace: stdout");
        return 1;
    }
    return rc;
}

int cmd_graph(int argc, char **argv)
{
    cli_offline o;
    if (cli_offline_parse(&o, "graph", argc, argv) != 0)
        return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    return graph_one(&o, o.trace);
}
