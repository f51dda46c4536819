/* clrtrace dump --folded: the trace as folded stacks (one line per distinct
 * call stack, frames joined by ';', then a space and a weight), the input of
 * flame graph tools. The weight is self time in nanoseconds, or with --calls
 * the number of calls that ended with that stack. Each thread keeps its own
 * stack (calls.c); equal stacks of different threads add up. Calls still
 * open at the end of the trace are not counted.
 *
 * The stacks are aggregated as a tree (folded_tree, cli.h) that dump --flame
 * draws as well: a node per distinct stack, found from its caller's node and
 * its function's name. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* No node: a call past FOLDED_MAX_NODES distinct stacks (not counted). */
#define NO_NODE UINT64_MAX
/* Longest stack text printed: a longer one keeps its innermost frames that
 * fit, after "...;". */
#define FOLDED_MAX_LINE (1u << 20)

static uint64_t name_hash(uint32_t parent, const char *s)
{
    uint64_t h = 1469598103934665603ull ^ parent;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h ^ (h >> 29);
}

static int index_insert(folded_tree *tr, uint32_t node)
{
    const folded_node *n = &tr->nodes[node];
    size_t j = name_hash(n->parent, n->name) & (tr->index_cap - 1);
    while (tr->index[j])
        j = (j + 1) & (tr->index_cap - 1);
    tr->index[j] = node + 1;
    return 0;
}

/* The child of parent named name, made when new; NO_NODE past the limit or
 * when out of memory (*oom then set). */
static uint64_t child(folded_tree *tr, uint32_t parent, const char *name, int *oom)
{
    if (tr->index_cap) {
        size_t j = name_hash(parent, name) & (tr->index_cap - 1);
        for (; tr->index[j]; j = (j + 1) & (tr->index_cap - 1)) {
            const folded_node *n = &tr->nodes[tr->index[j] - 1];
            if (n->parent == parent && !strcmp(n->name, name))
                return tr->index[j] - 1;
        }
    }
    if (tr->n > FOLDED_MAX_NODES) /* the root and FOLDED_MAX_NODES stacks */
        return NO_NODE;
    if (tr->n == tr->cap) {
        uint32_t cap = tr->cap * 2;
        folded_node *more = realloc(tr->nodes, cap * sizeof *more);
        if (!more)
            return *oom = 1, NO_NODE;
        tr->nodes = more;
        tr->cap = cap;
    }
    if ((size_t)(tr->n + 1) * 2 > tr->index_cap) {
        size_t cap = tr->index_cap * 2;
        uint32_t *idx = calloc(cap, sizeof *idx);
        if (!idx)
            return *oom = 1, NO_NODE;
        free(tr->index);
        tr->index = idx;
        tr->index_cap = cap;
        for (uint32_t i = 1; i < tr->n; i++)
            index_insert(tr, i);
    }
    uint32_t id = tr->n++;
    folded_node *p = &tr->nodes[parent];
    tr->nodes[id] = (folded_node){ name, parent, 0, p->first_child, p->depth + 1, 0, 0 };
    p->first_child = id;
    index_insert(tr, id);
    return id;
}

static int on_enter(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *rec)
{
    folded_tree *tr = ctx;
    cli_frame *f = cli_top(t);
    uint64_t parent = cli_caller(t) ? cli_caller(t)->aux : 0;
    int oom = 0;
    f->aux = parent == NO_NODE ? NO_NODE : child(tr, (uint32_t)parent, f->fn->name, &oom);
    return oom ? -1 : 0;
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *rec)
{
    folded_tree *tr = ctx;
    const cli_frame *f = cli_top(t);
    if (how == CLI_END_UNFINISHED)
        return 0;
    if (f->aux == NO_NODE) {
        tr->lost++;
        return 0;
    }
    uint64_t total = end - f->start;
    uint64_t self = total > f->children ? total - f->children : 0;
    folded_node *n = &tr->nodes[f->aux];
    n->weight += tr->by_calls ? 1 : self;
    n->ended++;
    return 0;
}

void folded_tree_free(folded_tree *tr)
{
    free(tr->nodes);
    free(tr->index);
    ct_symbols_free(tr->sym);
    memset(tr, 0, sizeof *tr);
}

int folded_collect(cli_trace *t, int by_calls, folded_tree *tr)
{
    memset(tr, 0, sizeof *tr);
    tr->by_calls = by_calls;
    tr->cap = 1024;
    tr->index_cap = 2048;
    tr->nodes = malloc(tr->cap * sizeof *tr->nodes);
    tr->index = calloc(tr->index_cap, sizeof *tr->index);
    cli_calls_ops ops = { .enter = on_enter, .leave = on_leave };
    cli_calls *w = tr->nodes && tr->index ? cli_calls_new(&ops, tr) : NULL;
    if (!w) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        folded_tree_free(tr);
        return 1;
    }
    tr->nodes[0] = (folded_node){ "", 0, 0, 0, 0, 0, 0 };
    tr->n = 1;
    int rc = cli_trace_each(t, "dump", cli_calls_record, w);
    if (cli_calls_finish(w) != 0 && rc == 0) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        rc = 1;
    }
    tr->too_deep = w->too_deep;
    tr->unfinished = w->unfinished;
    if (tr->lost)
        fprintf(stderr, "clrtrace dump: more than %u distinct stacks; %" PRIu64 " %s on the "
                        "others not counted\n", FOLDED_MAX_NODES, tr->lost,
                tr->lost == 1 ? "call" : "calls");
    if (tr->too_deep)
        fprintf(stderr, "clrtrace dump: %" PRIu64 " %s deeper than %u levels left out (their "
                        "time is in their caller at that depth)\n", tr->too_deep,
                tr->too_deep == 1 ? "call" : "calls", CLI_CALLS_MAX_DEPTH);
    /* The nodes' names point into the symbol table: the tree keeps it. */
    tr->sym = w->sym;
    w->sym = NULL;
    cli_calls_free(w);
    return rc;
}

typedef struct line {
    char *text;
    uint64_t weight;
} line;

static int by_text(const void *a, const void *b)
{
    return strcmp(((const line *)a)->text, ((const line *)b)->text);
}

/* The ';'-joined names of node's stack, outermost first. */
static char *stack_text(const folded_tree *tr, uint32_t node)
{
    size_t len = 0;
    int cut = 0;
    uint32_t i = node;
    for (; i != 0; i = tr->nodes[i].parent) {
        size_t n = strlen(tr->nodes[i].name) + (len ? 1 : 0);
        if (len + n > FOLDED_MAX_LINE) {
            cut = 1;
            break;
        }
        len += n;
    }
    uint32_t stop = i; /* the outermost frame that fits is below stop */
    size_t total = len + (cut ? 4 : 0);
    char *s = malloc(total + 1);
    if (!s)
        return NULL;
    size_t pos = total;
    s[pos] = '\0';
    for (i = node; i != stop; i = tr->nodes[i].parent) {
        size_t n = strlen(tr->nodes[i].name);
        pos -= n;
        memcpy(s + pos, tr->nodes[i].name, n);
        if (pos)
            s[--pos] = ';';
    }
    if (cut)
        memcpy(s, "...;", 4);
    return s;
}

int cli_dump_folded(cli_trace *t, int by_calls)
{
    folded_tree tr;
    int rc = folded_collect(t, by_calls, &tr);
    if (!tr.nodes)
        return rc;
    line *lines = calloc(tr.n, sizeof *lines);
    size_t n = 0;
    int oom = !lines;
    for (uint32_t i = 1; !oom && i < tr.n; i++) {
        if (!tr.nodes[i].ended)
            continue;
        lines[n].weight = tr.nodes[i].weight;
        oom = !(lines[n++].text = stack_text(&tr, i));
    }
    if (oom) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        rc = 1;
    } else {
        qsort(lines, n, sizeof *lines, by_text);
        for (size_t i = 0; i < n; i++)
            printf("%s %" PRIu64 "\n", lines[i].text, lines[i].weight);
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i].text);
    free(lines);
    folded_tree_free(&tr);
    return rc;
}
