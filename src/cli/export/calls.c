/* The call stacks of a trace, thread by thread (cli.h, "call stacks"): the
 * walk under dump --folded, --flame and --chrome. Ends are paired with
 * enters by the rule of src/views/stack.h, as the text renderer and
 * the filters pair them: an end closes the innermost open call of its
 * function; calls above that one never ended (an event was missed) and are
 * closed as unfinished; an end with no open call of its function is counted
 * and ignored. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

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
    return w;
}

void cli_calls_free(cli_calls *w)
{
    if (!w)
        return;
    for (cli_thread *t = w->first, *n; t; t = n) {
        n = t->next;
        ct_stack_free(&t->stack);
        free(t);
    }
    ct_table_free(&w->threads);
    ct_symbols_free(w->sym);
    free(w);
}

static cli_thread *thread_of(cli_calls *w, uint64_t tid, int *err)
{
    cli_thread *t = ct_table_get(&w->threads, tid);
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t || ct_table_put(&w->threads, tid, t) != 0) {
        free(t);
        return NULL;
    }
    t->tid = tid;
    ct_stack_init(&t->stack, sizeof(cli_frame), CLI_CALLS_MAX_DEPTH);
    if (w->last)
        w->last->next = t;
    else
        w->first = t;
    w->last = t;
    if (w->ops.thread && w->ops.thread(w->ctx, w, t) != 0)
        *err = -1;
    return t;
}

/* Closes the innermost kept frame at `end` and pops it. */
static int close_top(cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                     const ct_rec *leave)
{
    cli_frame *f = cli_top(t);
    uint64_t total = end - f->start; /* end >= start: times on a thread never go back */
    int rc = w->ops.leave ? w->ops.leave(w->ctx, w, t, end, how, leave) : 0;
    ct_stack_pop(&t->stack);
    if (how == CLI_END_UNFINISHED) {
        /* Its time stays its caller's own. */
        w->unfinished++;
    } else {
        w->calls++;
        cli_frame *caller = cli_top(t);
        if (caller)
            caller->children += total;
    }
    return rc;
}

static int on_enter(cli_calls *w, cli_thread *t, const ct_rec *rec, uint64_t now)
{
    const ct_function *fn = ct_symbols_function(w->sym, rec->key);
    if (!fn)
        return -1;
    int nomem = 0;
    cli_frame *f = ct_stack_push(&t->stack, rec->key, &nomem);
    if (!f) {
        if (nomem)
            return -1;
        w->too_deep++;
        return 0;
    }
    f->fn = fn;
    f->start = now;
    return w->ops.enter ? w->ops.enter(w->ctx, w, t, rec) : 0;
}

static int on_end(cli_calls *w, cli_thread *t, const ct_rec *rec, uint64_t now)
{
    long k = ct_stack_match(&t->stack, rec->key);
    if (k == CT_STACK_UNMATCHED) {
        w->unmatched++;
        return 0;
    }
    if (k == CT_STACK_UNKEPT) {
        /* Not kept, not checked: as the renderer does past its frames. */
        ct_stack_pop(&t->stack);
        return 0;
    }
    int rc = 0;
    while (t->stack.kept > (uint32_t)k + 1 && rc == 0)
        rc = close_top(w, t, now, CLI_END_UNFINISHED, NULL);
    if (rc)
        return rc;
    cli_call_end how = rec->type == CT_REC_LEAVE     ? CLI_END_RETURN
                       : rec->type == CT_REC_UNWIND ? CLI_END_EXCEPTION
                                                    : CLI_END_TAILCALL;
    return close_top(w, t, now, how, how == CLI_END_TAILCALL ? NULL : rec);
}

int cli_calls_record(void *walker, const ct_rec *rec)
{
    cli_calls *w = walker;
    if (w->ended || w->finished)
        return 0;
    switch (rec->type) {
    case CT_REC_ENTER: case CT_REC_LEAVE: case CT_REC_UNWIND: case CT_REC_TAILCALL: {
        int err = 0;
        cli_thread *t = thread_of(w, rec->tid, &err);
        if (!t || err)
            return -1;
        uint64_t now = rec->time_ns > t->now ? rec->time_ns : t->now;
        t->now = now;
        if (now > w->last_time)
            w->last_time = now;
        return rec->type == CT_REC_ENTER ? on_enter(w, t, rec, now) : on_end(w, t, rec, now);
    }
    case CT_REC_DROPPED:
        w->dropped += rec->count;
        break;
    case CT_REC_END:
        w->ended = 1;
        if (rec->time_ns > w->last_time)
            w->last_time = rec->time_ns;
        break;
    default:
        if (ct_symbols_add(w->sym, rec) != 0)
            return -1;
        break;
    }
    return w->ops.other ? w->ops.other(w->ctx, w, rec) : 0;
}

int cli_calls_finish(cli_calls *w)
{
    if (w->finished)
        return 0;
    w->finished = 1;
    for (cli_thread *t = w->first; t; t = t->next) {
        while (t->stack.depth > t->stack.kept)
            ct_stack_pop(&t->stack); /* not kept: nothing to report */
        while (t->stack.kept > 0) {
            /* The end of the trace is at least the thread's latest time. */
            int rc = close_top(w, t, w->last_time, CLI_END_UNFINISHED, NULL);
            if (rc)
                return rc;
        }
    }
    return 0;
}
