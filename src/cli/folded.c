/* clrtrace dump --folded: the trace as folded stacks (one line per distinct
 * call stack, frames joined by ';', then a space and a weight), the input of
 * flame graph tools. The weight is self time in nanoseconds, or with --calls
 * the number of calls that ended with that stack. Each thread keeps its own
 * stack; calls still open at the end of the trace are not counted. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Deepest stack followed; deeper frames are counted under the last one kept. */
#define FOLDED_MAX_DEPTH 1024
/* Most threads and most distinct stacks kept (bounded memory on any trace). */
#define FOLDED_MAX_THREADS 4096
#define FOLDED_MAX_STACKS (1u << 20)

typedef struct frame {
    uint64_t key, start, children;
} frame;

typedef struct thread_stack {
    uint64_t tid;
    uint32_t depth;          /* may exceed FOLDED_MAX_DEPTH; frames beyond are not stored */
    frame *frames;
} thread_stack;

typedef struct fn_name {
    uint64_t key;
    const char *name;
    uint32_t len;
} fn_name;

typedef struct stack_entry {
    char *path;
    uint64_t weight;
} stack_entry;

typedef struct folded {
    int by_calls, overflow;
    fn_name *fns;
    size_t nfns, capfns;
    thread_stack threads[FOLDED_MAX_THREADS];
    size_t nthreads;
    stack_entry *stacks;     /* open addressing on the path */
    size_t capstacks, nstacks;
    char path[FOLDED_MAX_DEPTH * 64];
} folded;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static int add_weight(folded *f, const char *path, uint64_t w)
{
    if (f->nstacks * 2 >= f->capstacks) {
        if (f->capstacks >= FOLDED_MAX_STACKS * 2)
            return f->overflow = 1, 0;
        size_t cap = f->capstacks ? f->capstacks * 2 : 1024;
        stack_entry *s = calloc(cap, sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < f->capstacks; i++)
            if (f->stacks[i].path) {
                size_t j = hash(f->stacks[i].path) & (cap - 1);
                while (s[j].path)
                    j = (j + 1) & (cap - 1);
                s[j] = f->stacks[i];
            }
        free(f->stacks);
        f->stacks = s;
        f->capstacks = cap;
    }
    size_t j = hash(path) & (f->capstacks - 1);
    while (f->stacks[j].path && strcmp(f->stacks[j].path, path))
        j = (j + 1) & (f->capstacks - 1);
    if (!f->stacks[j].path) {
        if (!(f->stacks[j].path = strdup(path)))
            return -1;
        f->nstacks++;
    }
    f->stacks[j].weight += w;
    return 0;
}

static const fn_name *find_fn(const folded *f, uint64_t key)
{
    for (size_t i = f->nfns; i-- > 0;) /* newest first: a function may be redefined */
        if (f->fns[i].key == key)
            return &f->fns[i];
    return NULL;
}

static thread_stack *thread_of(folded *f, uint64_t tid)
{
    for (size_t i = 0; i < f->nthreads; i++)
        if (f->threads[i].tid == tid)
            return &f->threads[i];
    if (f->nthreads == FOLDED_MAX_THREADS)
        return NULL;
    thread_stack *t = &f->threads[f->nthreads];
    t->frames = malloc(FOLDED_MAX_DEPTH * sizeof *t->frames);
    if (!t->frames)
        return NULL;
    t->tid = tid;
    t->depth = 0;
    f->nthreads++;
    return t;
}

/* The ';'-joined names of frames[0..n). */
static void build_path(folded *f, const thread_stack *t, uint32_t n)
{
    size_t len = 0, cap = sizeof f->path;
    f->path[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        const fn_name *fn = find_fn(f, t->frames[i].key);
        int w = snprintf(f->path + len, cap - len, "%s%.*s", i ? ";" : "", fn ? (int)fn->len : 1,
                         fn ? fn->name : "?");
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
}

static int on_record(void *ctx, const ct_rec *r)
{
    folded *f = ctx;
    switch (r->type) {
    case CT_REC_FUNCTION:
        if (f->nfns == f->capfns) {
            size_t cap = f->capfns ? f->capfns * 2 : 256;
            fn_name *n = realloc(f->fns, cap * sizeof *n);
            if (!n)
                return -1;
            f->fns = n;
            f->capfns = cap;
        }
        f->fns[f->nfns++] = (fn_name){ r->key, r->name, r->name_len };
        return 0;
    case CT_REC_ENTER: {
        thread_stack *t = thread_of(f, r->tid);
        if (!t)
            return 0;
        if (t->depth < FOLDED_MAX_DEPTH)
            t->frames[t->depth] = (frame){ r->key, r->time_ns, 0 };
        t->depth++;
        return 0;
    }
    case CT_REC_LEAVE: case CT_REC_UNWIND: case CT_REC_TAILCALL: {
        thread_stack *t = thread_of(f, r->tid);
        if (!t || !t->depth)
            return 0;
        uint32_t d = --t->depth;
        if (d >= FOLDED_MAX_DEPTH)
            return 0;
        frame *fr = &t->frames[d];
        uint64_t total = r->time_ns > fr->start ? r->time_ns - fr->start : 0;
        uint64_t self = total > fr->children ? total - fr->children : 0;
        if (d > 0)
            t->frames[d - 1].children += total;
        build_path(f, t, d + 1);
        return add_weight(f, f->path, f->by_calls ? 1 : self) < 0 ? -1 : 0;
    }
    default:
        return 0;
    }
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const stack_entry *)a)->path, ((const stack_entry *)b)->path);
}

int cli_dump_folded(cli_trace *t, int by_calls)
{
    folded *f = calloc(1, sizeof *f);
    if (!f) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        return 1;
    }
    f->by_calls = by_calls;
    int rc = cli_trace_each(t, "dump", on_record, f);
    if (rc == 0) {
        size_t n = 0;
        for (size_t i = 0; i < f->capstacks; i++)
            if (f->stacks[i].path)
                f->stacks[n++] = f->stacks[i];
        qsort(f->stacks, n, sizeof *f->stacks, by_path);
        for (size_t i = 0; i < n; i++)
            printf("%s %" PRIu64 "\n", f->stacks[i].path, f->stacks[i].weight);
        if (f->overflow)
            fprintf(stderr, "clrtrace dump: more than %u distinct stacks; the rest were not "
                            "counted\n", FOLDED_MAX_STACKS);
        f->capstacks = n;
    }
    for (size_t i = 0; i < f->capstacks; i++)
        free(f->stacks[i].path);
    free(f->stacks);
    for (size_t i = 0; i < f->nthreads; i++)
        free(f->threads[i].frames);
    free(f->fns);
    free(f);
    return rc;
}
