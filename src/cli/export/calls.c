/* The call stacks of a trace, thread by thread (cli.h, "call stacks"): the
 * walk under dump --folded, --flame, --chrome and --perfetto, a client of
 * the one walk of views/walk.h, which pairs ends with enters as the text
 * renderer and the filters do: an end closes the innermost open call of
 * its function; calls above that one never ended (an event was missed) and
 * are closed as unfinished; an end with no open call of its function is
 * counted and ignored. */
#include <stdlib.h>
#include <string.h>

#include "export.h"

#include "format/inject_spec.h"
#include "cli/input/input.h"
#include "base/escape.h"

static int on_thread(void *ctx, ct_walk_thread *t)
{
    cli_calls *w = ctx;
    int rc = w->ops.thread ? w->ops.thread(w->ctx, w, t) : 0;
    if (!rc && !w->first)
        w->first = t;
    return rc;
}

static int on_open(void *ctx, ct_walk_thread *t, void *frame, uint32_t depth,
                   const ct_rec *rec, int nomem)
{
    (void)depth;
    cli_calls *w = ctx;
    cli_frame *f = frame;
    if (!f) {
        if (nomem)
            return -1;
        w->too_deep++;
        return 0;
    }
    f->fn = ct_symbols_function(w->sym, rec->key); /* known: cli_calls_record */
    f->start = t->now;
    f->prog = t->prog;
    f->injected = 0;
    return w->ops.enter ? w->ops.enter(w->ctx, w, t, rec) : 0;
}

static int on_end(void *ctx, ct_walk_thread *t, void *frame, uint32_t depth, ct_walk_end how,
                  uint64_t end, const ct_rec *rec)
{
    static const cli_call_end k_end[] = {
        [CT_WALK_RETURN] = CLI_END_RETURN, [CT_WALK_EXCEPTION] = CLI_END_EXCEPTION,
        [CT_WALK_TAILCALL] = CLI_END_TAILCALL, [CT_WALK_MISSED] = CLI_END_UNFINISHED,
        [CT_WALK_OPEN] = CLI_END_UNFINISHED,
    };
    (void)depth;
    cli_calls *w = ctx;
    cli_frame *f = frame;
    if (!f)
        return 0; /* not kept: nothing to report */
    cli_call_end e = k_end[how];
    /* The program time it took (t->prog >= f->prog: times on a thread never
     * go back). */
    uint64_t total = t->prog - f->prog;
    const ct_rec *leave = e == CLI_END_RETURN || e == CLI_END_EXCEPTION ? rec : NULL;
    int rc = w->ops.leave ? w->ops.leave(w->ctx, w, t, end, e, leave) : 0;
    if (e == CLI_END_UNFINISHED) {
        /* Its time stays its caller's own. */
        w->unfinished++;
    } else {
        w->calls++;
        cli_frame *caller = ct_walk_caller(t);
        if (caller)
            caller->children += total;
    }
    return rc;
}

static int on_unmatched(void *ctx, ct_walk_thread *t, uint32_t depth, const ct_rec *rec)
{
    (void)t, (void)depth, (void)rec;
    ((cli_calls *)ctx)->unmatched++;
    return 0;
}

cli_calls *cli_calls_new(const cli_calls_ops *ops, void *ctx)
{
    cli_calls *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->sym = ct_symbols_new();
    if (!w->sym) {
        free(w);
        return NULL;
    }
    if (ops)
        w->ops = *ops;
    w->ctx = ctx;
    static const ct_walk_ops k_ops = { .thread = on_thread, .open = on_open, .end = on_end,
                                       .unmatched = on_unmatched };
    ct_walk_init(&w->walk, &k_ops, w, sizeof(cli_frame), CLI_CALLS_MAX_DEPTH, 0);
    return w;
}

void cli_calls_free(cli_calls *w)
{
    if (!w)
        return;
    ct_walk_free(&w->walk);
    ct_symbols_free(w->sym);
    free(w);
}

const char *cli_injected_name(uint8_t action)
{
    return action == CT_INJECT_THROW    ? "throw"
           : action == CT_INJECT_RETURN ? "return"
           : action == CT_INJECT_DELAY  ? "delay"
                                        : "";
}

int cli_calls_record(void *walker, const ct_rec *rec)
{
    cli_calls *w = walker;
    if (w->walk.ended || w->finished)
        return 0;
    if (ct_rec_is_event(rec->type)) {
        ct_walk_thread *t = ct_walk_thread_of(&w->walk, rec->tid);
        if (!t)
            return -1;
        if (rec->time_ns > w->last_time)
            w->last_time = rec->time_ns;
        if (rec->type == CT_REC_ENTER && !ct_symbols_function(w->sym, rec->key))
            return -1;
        return ct_walk_event(&w->walk, t, rec);
    }
    if (rec->type == CT_REC_INJECT) {
        /* The thread's innermost call, when it is that function's. */
        ct_walk_thread *t = ct_walk_thread_of(&w->walk, rec->tid);
        cli_frame *f = t && t->stack.depth == t->stack.kept ? cli_top(t) : NULL;
        if (!t)
            return -1;
        if (f && f->h.key == rec->key)
            f->injected = (uint8_t)rec->inject_action;
        return 0;
    }
    if (rec->type == CT_REC_END) {
        if (rec->time_ns > w->last_time)
            w->last_time = rec->time_ns;
    } else if (rec->type != CT_REC_DROPPED && ct_symbols_add(w->sym, rec) != 0) {
        return -1;
    }
    ct_walk_record(&w->walk, rec); /* DROPPED counted, END ends the walk */
    return w->ops.other ? w->ops.other(w->ctx, w, rec) : 0;
}

int cli_calls_finish(cli_calls *w)
{
    if (w->finished)
        return 0;
    w->finished = 1;
    /* The end of the trace is at least each thread's latest time. */
    return ct_walk_close(&w->walk, w->last_time);
}

int cli_keys_taken(const cli_keys *k, const char *key)
{
    for (size_t pos = 0; pos < k->len; pos += strlen(k->p + pos) + 1)
        if (!strcmp(k->p + pos, key))
            return 1;
    return 0;
}

int cli_keys_add(cli_keys *k, const char *key, size_t n)
{
    if (k->cap - k->len < n + 1) {
        size_t cap = k->cap ? k->cap : 1024;
        while (cap - k->len < n + 1)
            cap *= 2;
        char *more = realloc(k->p, cap);
        if (!more)
            return -1;
        k->p = more;
        k->cap = cap;
    }
    memcpy(k->p + k->len, key, n);
    k->p[k->len + n] = 0;
    k->len += n + 1;
    return 0;
}

/* ------------------------------------------------------------ async calls */

cli_async *cli_async_at(cli_async **table, uint64_t id)
{
    if (!*table && !(*table = calloc(CT_RENDER_ASYNC_MAX, sizeof **table)))
        return NULL;
    cli_async *a = &(*table)[id % CT_RENDER_ASYNC_MAX];
    if (a->id != id) {
        cli_async_clear(a);
        a->id = id;
    }
    return a;
}

void cli_async_clear(cli_async *a)
{
    free(a->text);
    free(a->extra);
    memset(a, 0, sizeof *a);
}

void cli_async_free(cli_async *table)
{
    for (size_t i = 0; table && i < CT_RENDER_ASYNC_MAX; i++)
        cli_async_clear(&table[i]);
    free(table);
}

size_t cli_async_end_text(ct_symbols *sym, const cli_async *a, const ct_rec *rec, char *buf,
                          size_t cap, int *faulted)
{
    ct_text text;
    ct_text_init(&text, buf, cap);
    *faulted = rec->type == CT_REC_ASYNC_FAULT;
    if (*faulted)
        ct_symbols_exception_text(sym, rec, &text);
    else
        ct_symbols_async_result_text(sym, a && a->state == CLI_ASYNC_RETURNED ? a->fn : NULL,
                                     rec, &text);
    return ct_text_end(&text);
}

int cli_async_keep_end(cli_async *a, const ct_rec *rec, int faulted, const char *text,
                       size_t len)
{
    free(a->text);
    if (!(a->text = malloc(len ? len : 1)))
        return -1;
    memcpy(a->text, text, len);
    a->len = len;
    a->end = rec->time_ns;
    a->faulted = faulted;
    a->state = CLI_ASYNC_ENDED;
    return 0;
}

void cli_async_returned(cli_async *a, const cli_frame *f, uint64_t ret, uint64_t tid)
{
    a->name = f->fn->name;
    a->fn = f->fn;
    a->start = f->start;
    a->ret = ret;
    a->tid = tid;
}
