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

#include "export.h"
#include "cli/input/input.h"
#include "base/escape.h"

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
static uint64_t child(folded_tree *tr, uint32_t parent, const ct_function *fn, int *oom)
{
    const char *name = fn->name;
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
    tr->nodes[id] = (folded_node){ name, fn, parent, 0, p->first_child, p->depth + 1, 0, 0 };
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
    f->aux = parent == NO_NODE ? NO_NODE : child(tr, (uint32_t)parent, f->fn, &oom);
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
    (void)end;
    uint64_t total = t->prog - f->prog; /* the held time left out, as the text log */
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
    tr->nodes[0] = (folded_node){ "", NULL, 0, 0, 0, 0, 0, 0 };
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

/* The ';'-joined names of node's stack, outermost first, cut to its
 * innermost frames after "...;" past FOLDED_MAX_LINE. */
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

/* The lines come out sorted by their text (strcmp), as a depth-first walk
 * of the tree: no line is kept, only the current stack's text. Among the
 * children of a node, each child c is two items: its own line (key
 * "c"), and the lines of the stacks under it (key "c;": they all start with
 * "c;"). Sorting a node's items by key orders its lines exactly as sorting
 * the texts would, even when one name is another's prefix ("M" "M2" "M;x"). */
typedef struct item {
    uint32_t node;
    uint32_t under;          /* 1: the lines of the stacks under node */
} item;

static const folded_tree *g_tree; /* for by_key (qsort has no context) */

static int by_key(const void *a, const void *b)
{
    const item *x = a, *y = b;
    const char *p = g_tree->nodes[x->node].name, *q = g_tree->nodes[y->node].name;
    size_t lp = strlen(p), lq = strlen(q);
    if (lp < lq && !memcmp(p, q, lp))
        /* p + "" is a prefix of q's key; p + ";" against q's next character */
        return !x->under ? -1 : (unsigned char)q[lp] < ';' ? 1 : -1;
    if (lq < lp && !memcmp(p, q, lq))
        return !y->under ? 1 : (unsigned char)p[lq] < ';' ? -1 : 1;
    int r = strcmp(p, q);
    return r ? r : (int)x->under - (int)y->under;
}

/* The items of node's children, sorted; NULL when out of memory. */
static item *items_of(const folded_tree *tr, uint32_t node, size_t *n)
{
    size_t k = 0;
    for (uint32_t c = tr->nodes[node].first_child; c; c = tr->nodes[c].next_sibling)
        k += (tr->nodes[c].ended ? 1 : 0) + (tr->nodes[c].first_child ? 1 : 0);
    item *it = malloc((k ? k : 1) * sizeof *it);
    if (!it)
        return NULL;
    k = 0;
    for (uint32_t c = tr->nodes[node].first_child; c; c = tr->nodes[c].next_sibling) {
        if (tr->nodes[c].ended)
            it[k++] = (item){ c, 0 };
        if (tr->nodes[c].first_child)
            it[k++] = (item){ c, 1 };
    }
    g_tree = tr;
    qsort(it, k, sizeof *it, by_key);
    *n = k;
    return it;
}

typedef struct cut_line {
    char *text;
    uint64_t weight;
} cut_line;

static int by_text(const void *a, const void *b)
{
    return strcmp(((const cut_line *)a)->text, ((const cut_line *)b)->text);
}

typedef struct walk_level {
    item *items;
    size_t n, next;
    size_t path_len;         /* the text of the stack down to this level's parent */
} walk_level;

int cli_dump_folded(cli_trace *t, int by_calls)
{
    folded_tree tr;
    int rc = folded_collect(t, by_calls, &tr);
    if (!tr.nodes)
        return rc;
    /* Stacks whose text is longer than FOLDED_MAX_LINE print cut ("...;"
     * first): rare, so made beforehand and merged into the sorted walk. */
    size_t *len = calloc(tr.n, sizeof *len);
    cut_line *cut = NULL;
    size_t ncut = 0, cutcap = 0, nextcut = 0;
    int oom = !len;
    for (uint32_t i = 1; !oom && i < tr.n; i++) {
        len[i] = (tr.nodes[i].parent ? len[tr.nodes[i].parent] + 1 : 0) + strlen(tr.nodes[i].name);
        if (len[i] <= FOLDED_MAX_LINE || !tr.nodes[i].ended)
            continue;
        if (ncut == cutcap) {
            cutcap = cutcap ? 2 * cutcap : 16;
            cut_line *more = realloc(cut, cutcap * sizeof *more);
            if (!(oom = !more))
                cut = more;
        }
        if (!oom && !(oom = !(cut[ncut].text = stack_text(&tr, i))))
            cut[ncut++].weight = tr.nodes[i].weight;
    }
    if (ncut)
        qsort(cut, ncut, sizeof *cut, by_text);
    walk_level *lv = calloc((size_t)CLI_CALLS_MAX_DEPTH + 2, sizeof *lv);
    char *path = NULL;
    size_t path_cap = 0;
    int depth = 0;
    oom |= !lv || !(lv[0].items = items_of(&tr, 0, &lv[0].n));
    while (!oom && depth >= 0) {
        walk_level *l = &lv[depth];
        if (l->next == l->n) {
            free(l->items);
            l->items = NULL;
            depth--;
            continue;
        }
        item it = l->items[l->next++];
        const folded_node *nd = &tr.nodes[it.node];
        size_t nl = strlen(nd->name), at = l->path_len + (depth ? 1 : 0);
        if (at + nl + 1 > path_cap) {
            size_t cap = (at + nl + 1) * 2;
            char *more = realloc(path, cap);
            if ((oom = !more))
                break;
            path = more;
            path_cap = cap;
        }
        if (depth)
            path[l->path_len] = ';';
        memcpy(path + at, nd->name, nl + 1);
        if (it.under) {
            if (depth + 1 > (int)CLI_CALLS_MAX_DEPTH + 1) /* never: no deeper stack is kept */
                continue;
            walk_level *down = &lv[depth + 1];
            *down = (walk_level){ NULL, 0, 0, at + nl };
            if ((oom = !(down->items = items_of(&tr, it.node, &down->n))))
                break;
            depth++;
            continue;
        }
        if (len[it.node] > FOLDED_MAX_LINE)
            continue; /* printed from cut[] */
        for (; nextcut < ncut && strcmp(cut[nextcut].text, path) < 0; nextcut++)
            printf("%s %" PRIu64 "\n", cut[nextcut].text, cut[nextcut].weight);
        printf("%s %" PRIu64 "\n", path, nd->weight);
    }
    if (oom) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        rc = 1;
    }
    for (; !oom && nextcut < ncut; nextcut++)
        printf("%s %" PRIu64 "\n", cut[nextcut].text, cut[nextcut].weight);
    for (int d = 0; lv && d <= (int)CLI_CALLS_MAX_DEPTH + 1; d++)
        free(lv[d].items);
    for (size_t i = 0; i < ncut; i++)
        free(cut[i].text);
    free(cut);
    free(lv);
    free(path);
    free(len);
    folded_tree_free(&tr);
    return rc;
}
