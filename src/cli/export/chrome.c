/* clrtrace dump --chrome: the trace in the Chrome Trace Event Format (JSON),
 * which Perfetto (ui.perfetto.dev) and chrome://tracing open.
 *
 *   {"traceEvents":[
 *   {"name":"process_name","ph":"M","pid":4242,"tid":4242,"args":{"name":"dotnet Demo.dll"}},
 *   {"name":"thread_name","ph":"M","pid":4242,"tid":4242,"args":{"name":"thread 4242"}},
 *   {"name":"Demo.Shapes.Scale","cat":"clrtrace","ph":"X","ts":34.102,"dur":0.812,
 *    "pid":4242,"tid":4242,"args":{"p":"{X=1, Y=2}","k":"1.5","return":"{X=1.5, Y=3}"}},
 *   {"name":"Shop.Orders.Price","cat":"clrtrace","ph":"X","ts":51.2,"dur":3.1,"pid":4242,
 *    "tid":4250,"args":{"qty":"33","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736",
 *    "span_id":"00f067aa0ba902b7","return":"3307"}},
 *   ...
 *   ],
 *   "displayTimeUnit":"ns",
 *   "otherData":{...}}
 *
 * One complete event ("X") per call, written when the call ends (so a
 * callee comes before its caller); ts and dur are microseconds since the
 * trace started, with the nanoseconds as three decimals. The walk (calls.c)
 * keeps each thread's open calls; this file keeps, for each open call, the
 * text of its arguments, formatted at its ENTER by the symbol table exactly
 * as the text log formats them, and the W3C trace id and span id of the
 * Activity current on its thread then (args "trace_id" and "span_id", when
 * it entered under one: cli_call_ids). Nothing else of the trace is held,
 * but the async calls between their return and their task's end: each is
 * also a pair of async events ("b" at its enter, "e" at its task's end,
 * with its result or exception; cat "async", id the call's id), which
 * viewers show on a track of their own. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "cli/input/input.h"
#include "base/escape.h"

/* stdout is written in blocks of this size. */
#define CHROME_STDOUT_BUFFER (1 << 20)

/* Keys the args object uses itself; an argument of that name gets "#N". */
static const char *const k_reserved[] = { "return", "exception", "tailcall", "unfinished",
                                          "arguments", "trace_id", "span_id" };

/* The argument text of one thread's open calls: per call, from its frame's
 * aux to the next call's, pairs of (u32 length, key bytes, u32 length,
 * value bytes). */
typedef struct thread_args {
    char *buf;
    size_t len, cap;
} thread_args;

typedef struct chrome {
    FILE *out;
    uint32_t pid;
    uint64_t events;
    cli_async *async;         /* async calls between return and end (export.h) */
    char val[CHROME_ARGS_MAX + 1];
} chrome;

static void event_start(chrome *c)
{
    fputs(c->events++ ? ",\n{" : "{", c->out);
}

/* ns as microseconds: "34.102". */
static void put_us(FILE *out, uint64_t ns)
{
    fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static void thread_name_event(chrome *c, uint64_t tid, const char *name)
{
    char dflt[40];
    if (!name) {
        snprintf(dflt, sizeof dflt, "thread %" PRIu64, tid);
        name = dflt;
    }
    event_start(c);
    fprintf(c->out, "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%" PRIu64
                    ",\"args\":{\"name\":", c->pid, tid);
    ct_json_string(c->out, name, strlen(name));
    fputs("}}", c->out);
}

static int on_thread(void *ctx, cli_calls *w, cli_thread *t)
{
    chrome *c = ctx;
    if (!(t->user = calloc(1, sizeof(thread_args))))
        return -1;
    thread_name_event(c, t->tid, ct_symbols_thread_name(w->sym, t->tid));
    return 0;
}

/* An async call's span: a pair of async events ("b", "e") of its id, from
 * its enter on its thread to its task's end (or its return, when later),
 * with its result or exception (the text log's). */
static void async_span(chrome *c, const cli_async *a, uint64_t end, int faulted,
                       const char *text, size_t len)
{
    FILE *out = c->out;
    end = cli_async_last(a, end);
    for (int e = 0; e < 2; e++) {
        event_start(c);
        fputs("\"name\":", out);
        ct_json_string(out, a->name, strlen(a->name));
        fprintf(out, ",\"cat\":\"async\",\"ph\":\"%c\",\"id\":\"0x%" PRIx64 "\",\"ts\":",
                e ? 'e' : 'b', a->id);
        put_us(out, e ? end : a->start);
        fprintf(out, ",\"pid\":%u,\"tid\":%" PRIu64, c->pid, a->tid);
        if (e && (len || faulted)) {
            fputs(faulted ? ",\"args\":{\"exception\":" : ",\"args\":{\"return\":", out);
            if (len)
                ct_json_string(out, text, len);
            else
                fputs("true", out);
            putc('}', out);
        }
        putc('}', out);
    }
}

static int on_other(void *ctx, cli_calls *w, const ct_rec *rec)
{
    chrome *c = ctx;
    /* A thread named after its first event: the later name wins. */
    if (rec->type == CT_REC_THREAD && ct_walk_find(&w->walk, rec->tid))
        thread_name_event(ctx, rec->tid, ct_symbols_thread_name(w->sym, rec->tid));
    if (!ct_rec_is_async_end(rec->type))
        return 0;
    cli_async *a = cli_async_at(&c->async, rec->key);
    if (!a)
        return -1;
    int faulted;
    size_t len = cli_async_end_text(w->sym, a, rec, c->val, CT_RENDER_RET_MAX, &faulted);
    if (a->state != CLI_ASYNC_RETURNED) /* its call has not returned yet */
        return cli_async_keep_end(a, rec, faulted, c->val, len);
    async_span(c, a, rec->time_ns, faulted, c->val, len);
    cli_async_clear(a);
    return 0;
}

static int append(thread_args *a, const char *s, size_t n)
{
    if (a->cap - a->len < n + 4) {
        size_t cap = a->cap ? a->cap : 1024;
        while (cap - a->len < n + 4)
            cap *= 2;
        char *more = realloc(a->buf, cap);
        if (!more)
            return -1;
        a->buf = more;
        a->cap = cap;
    }
    uint32_t len = (uint32_t)n;
    memcpy(a->buf + a->len, &len, 4);
    memcpy(a->buf + a->len + 4, s, n);
    a->len += 4 + n;
    return 0;
}

/* Walks the pairs in a->buf[from..to): returns 1 with the next key and
 * value, 0 at the end. */
static int next_pair(const thread_args *a, size_t *pos, size_t to, const char **key,
                     uint32_t *klen, const char **val, uint32_t *vlen)
{
    if (*pos >= to)
        return 0;
    memcpy(klen, a->buf + *pos, 4);
    *key = a->buf + *pos + 4;
    *pos += 4 + *klen;
    memcpy(vlen, a->buf + *pos, 4);
    *val = a->buf + *pos + 4;
    *pos += 4 + *vlen;
    return 1;
}

/* The argument's name in its label: "double k=" -> "k", "this=" -> "this";
 * "argN" when the label has none, "name#N" when the name is taken (by an
 * earlier argument or a key of our own). */
static void arg_key(const char *label, uint32_t i, int (*taken)(void *ctx, const char *key),
                    void *ctx, char *out, size_t cap)
{
    size_t n = strlen(label);
    if (n && label[n - 1] == '=')
        n--;
    size_t s = n;
    while (s > 0 && label[s - 1] != ' ')
        s--;
    if (s == n) {
        snprintf(out, cap, "arg%u", i);
        return;
    }
    snprintf(out, cap, "%.*s", (int)(n - s), label + s);
    int t = 0;
    for (size_t k = 0; k < sizeof k_reserved / sizeof *k_reserved; k++)
        t |= !strcmp(out, k_reserved[k]);
    if (t || taken(ctx, out)) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "#%u", i);
    }
}

int cli_call_args(ct_symbols *sym, const ct_function *fn, const ct_rec *rec, char *val,
                  int (*taken)(void *ctx, const char *key),
                  int (*emit)(void *ctx, const char *key, size_t klen, const char *val,
                              size_t vlen),
                  void *ctx)
{
    if (fn->flags & CT_FN_NO_VALUES)
        return 0;
    if (rec->nvalues != fn->nparams)
        return emit(ctx, "arguments", 9, "?", 1);
    size_t pos = 0, budget = CHROME_ARGS_MAX;
    const uint8_t *v;
    uint32_t len;
    ct_value_status st;
    for (uint32_t i = 0; i < fn->nparams && ct_next_value(rec, &pos, &v, &len, &st) == 1; i++) {
        char key[256];
        arg_key(fn->labels[i], i, taken, ctx, key, sizeof key);
        size_t n;
        if (budget < 4) {
            memcpy(val, "...", 4);
            n = 3;
        } else {
            ct_text text;
            ct_text_init(&text, val, budget + 1);
            ct_symbols_value_text(sym, fn->plans[i], v, len, st, &text);
            n = ct_text_end(&text);
            budget -= n < budget ? n : budget;
        }
        int rc = emit(ctx, key, strlen(key), val, n);
        if (rc)
            return rc;
    }
    return 0;
}

int cli_call_ids(const uint8_t *ids,
                 int (*emit)(void *ctx, const char *key, size_t klen, const char *val,
                             size_t vlen),
                 void *ctx)
{
    if (ct_activity_none(ids))
        return 0;
    char trace[2 * CT_TRACE_ID_BYTES + 1], span[2 * CT_SPAN_ID_BYTES + 1];
    ct_trace_id_text(ids, trace);
    ct_span_id_text(ids + CT_TRACE_ID_BYTES, span);
    int rc = emit(ctx, "trace_id", 8, trace, 2 * CT_TRACE_ID_BYTES);
    return rc ? rc : emit(ctx, "span_id", 7, span, 2 * CT_SPAN_ID_BYTES);
}

/* The open call's pairs so far (from `from`, its first, to the end). */
typedef struct call_pairs {
    thread_args *a;
    size_t from;
} call_pairs;

static int pair_taken(void *ctx, const char *key)
{
    const call_pairs *p = ctx;
    size_t pos = p->from;
    const char *k, *val;
    uint32_t klen, vlen;
    while (next_pair(p->a, &pos, p->a->len, &k, &klen, &val, &vlen))
        if (klen == strlen(key) && !memcmp(k, key, klen))
            return 1;
    return 0;
}

static int pair_append(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
    const call_pairs *p = ctx;
    return append(p->a, key, klen) || append(p->a, val, vlen) ? -1 : 0;
}

static int on_enter(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *rec)
{
    chrome *c = ctx;
    thread_args *a = t->user;
    cli_frame *f = cli_top(t);
    if (!a)
        return -1; /* its thread_args could not be made */
    f->aux = a->len;
    call_pairs p = { a, a->len };
    if (cli_call_args(w->sym, f->fn, rec, c->val, pair_taken, pair_append, &p) != 0)
        return -1;
    return cli_call_ids(t->ids, pair_append, &p);
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *rec)
{
    chrome *c = ctx;
    thread_args *a = t->user;
    const cli_frame *f = cli_top(t);
    FILE *out = c->out;
    if (!a)
        return -1;
    event_start(c);
    fputs("\"name\":", out);
    ct_json_string(out, f->fn->name, strlen(f->fn->name));
    if (f->fn->flags & CT_FN_PROBE) {
        /* A line probe's hit: an instant event on its thread. */
        fputs(",\"cat\":\"clrtrace\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", out);
        put_us(out, f->start);
    } else {
        fputs(",\"cat\":\"clrtrace\",\"ph\":\"X\",\"ts\":", out);
        put_us(out, f->start);
        fputs(",\"dur\":", out);
        put_us(out, end - f->start);
    }
    fprintf(out, ",\"pid\":%u,\"tid\":%" PRIu64 ",\"args\":{", c->pid, t->tid);
    size_t pos = f->aux;
    const char *key, *val;
    uint32_t klen, vlen;
    int n = 0;
    while (next_pair(a, &pos, a->len, &key, &klen, &val, &vlen)) {
        if (n++)
            putc(',', out);
        ct_json_string(out, key, klen);
        putc(':', out);
        ct_json_string(out, val, vlen);
    }
    a->len = f->aux;
    if (f->fn->src_file) { /* recorded with --srcline: where the function is */
        fputs(n++ ? ",\"code.file.path\":" : "\"code.file.path\":", out);
        ct_json_string(out, f->fn->src_file, strlen(f->fn->src_file));
        fprintf(out, ",\"code.line.number\":%u", f->fn->src_line);
    }
    const char *sep = n ? "," : "";
    if (f->fn->flags & CT_FN_PROBE) {
        /* (no end of its own) */
    } else if (how == CLI_END_RETURN) {
        ct_text text;
        ct_text_init(&text, c->val, CT_RENDER_RET_MAX);
        if (ct_symbols_return_text(w->sym, f->fn, rec, &text)) {
            size_t len = ct_text_end(&text);
            fprintf(out, "%s\"return\":", sep);
            ct_json_string(out, c->val, len);
            sep = ",";
        }
        /* out, ref and in arguments as the call returned: "v=12  x=6". */
        ct_text_init(&text, c->val, CT_RENDER_RET_MAX);
        if (ct_symbols_out_text(w->sym, f->fn, rec, &text)) {
            size_t len = ct_text_end(&text);
            fprintf(out, "%s\"at return\":", sep);
            ct_json_string(out, c->val + 2, len > 2 ? len - 2 : 0); /* past the leading "  " */
            sep = ",";
        }
    } else if (how == CLI_END_EXCEPTION && rec && rec->nvalues) {
        /* "exception": "System.InvalidOperationException: \"boom\"", as the
         * text log shows it (true when the record does not say which). */
        ct_text text;
        ct_text_init(&text, c->val, CT_RENDER_RET_MAX);
        fprintf(out, "%s\"exception\":", sep);
        if (ct_symbols_exception_text(w->sym, rec, &text))
            ct_json_string(out, c->val, ct_text_end(&text));
        else
            fputs("true", out);
        sep = ",";
    } else {
        static const char *const ending[] = { [CLI_END_EXCEPTION] = "exception",
                                              [CLI_END_TAILCALL] = "tailcall",
                                              [CLI_END_UNFINISHED] = "unfinished" };
        fprintf(out, "%s\"%s\":true", sep, ending[how]);
        sep = ",";
    }
    /* After whatever came before, or first (a line probe's hit, a return
     * with no value to show: nothing before it). */
    if (f->injected)
        fprintf(out, "%s\"injected\":\"%s\"", sep, cli_injected_name(f->injected));
    fputs("}}", out);
    uint64_t id = how == CLI_END_RETURN ? ct_symbols_async_id(f->fn, rec) : 0;
    cli_async *as = id ? cli_async_at(&c->async, id) : NULL;
    if (id && !as)
        return -1;
    if (as) {
        cli_async_returned(as, f, end, t->tid);
        if (as->state == CLI_ASYNC_ENDED) {
            async_span(c, as, as->end, as->faulted, as->text, as->len);
            cli_async_clear(as);
        } else {
            as->state = CLI_ASYNC_RETURNED;
        }
    }
    return 0;
}

struct cli_chrome {
    chrome c;
    cli_calls *w;
    const ct_trace_header *h;
    int oom;
};

cli_chrome *cli_chrome_new(FILE *out, const ct_trace_header *h)
{
    cli_chrome *x = calloc(1, sizeof *x);
    cli_calls_ops ops = { .thread = on_thread, .enter = on_enter, .leave = on_leave,
                          .other = on_other };
    if (!x || !(x->w = cli_calls_new(&ops, &x->c))) {
        free(x);
        return NULL;
    }
    x->h = h;
    x->c.out = out;
    x->c.pid = h->pid;
    fputs("{\"traceEvents\":[\n", out);
    event_start(&x->c);
    fprintf(out, "\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":",
            h->pid, h->pid);
    ct_json_string(out, h->cmdline, h->cmdline_len);
    fputs("}}", out);
    return x;
}

int cli_chrome_record(void *chrome_, const ct_rec *rec)
{
    cli_chrome *x = chrome_;
    if (cli_calls_record(x->w, rec) != 0)
        return x->oom = -1;
    return 0;
}

int cli_chrome_end(cli_chrome *x, int complete)
{
    FILE *out = x->c.out;
    const ct_trace_header *h = x->h;
    cli_calls *w = x->w;
    int rc = x->oom ? -1 : 0;
    if (cli_calls_finish(w) != 0)
        rc = -1;
    complete = complete && w->walk.ended && !rc;
    fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"clrtrace\",", out);
    fprintf(out, "\"trace_format\":\"%u.%u\",\"command\":", h->major, h->minor);
    ct_json_string(out, h->cmdline, h->cmdline_len);
    fputs(",\"filter\":", out);
    ct_json_string(out, h->filter, h->filter_len);
    fputs(",\"settings\":", out);
    ct_json_string(out, h->settings, h->settings_len);
    fprintf(out,
            ",\"start_unix_ns\":\"%" PRIu64 "\",\"complete\":%s,\"calls\":%" PRIu64
            ",\"unfinished\":%" PRIu64 ",\"too_deep\":%" PRIu64 ",\"unmatched\":%" PRIu64
            ",\"dropped\":%" PRIu64 "}}\n",
            h->start_unix_ns, complete ? "true" : "false", w->calls, w->unfinished, w->too_deep,
            w->unmatched, w->walk.dropped);
    if (w->too_deep)
        fprintf(stderr, "clrtrace dump: %" PRIu64 " %s deeper than %u levels left out of the "
                        "JSON (their time is in their caller at that depth)\n",
                w->too_deep, w->too_deep == 1 ? "call" : "calls", CLI_CALLS_MAX_DEPTH);
    for (cli_thread *th = w->first; th; th = th->next) {
        thread_args *a = th->user;
        if (a)
            free(a->buf);
        free(a);
    }
    cli_calls_free(w);
    cli_async_free(x->c.async);
    free(x);
    return rc;
}

static int count_enter(void *ctx, const ct_rec *rec)
{
    if (rec->type == CT_REC_ENTER)
        ++*(uint64_t *)ctx;
    return 0;
}

int cli_dump_chrome(cli_trace *t, uint64_t max_calls)
{
    if (max_calls) {
        /* A first reading counts what the selection and filters keep. */
        cli_trace c;
        uint64_t calls = 0;
        if (cli_trace_open(&c, "dump", t->path) != 0)
            return 1;
        c.filter = t->filter;
        c.quiet_incomplete = 1;
        int rc = cli_trace_each(&c, "dump", count_enter, &calls);
        cli_trace_close(&c);
        if (rc)
            return rc;
        if (calls > max_calls) {
            fprintf(stderr, "clrtrace dump: %llu calls are more than a browser opens as Chrome "
                    "JSON (--max-calls %llu); keep fewer with -F/-N GLOB, --tid N, "
                    "--since/--until TIME, -D N or -t TIME, use --folded or --flame, or "
                    "--max-calls 0 for all\n", (unsigned long long)calls,
                    (unsigned long long)max_calls);
            return 1;
        }
    }
    static char obuf[CHROME_STDOUT_BUFFER];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    cli_chrome *x = cli_chrome_new(stdout, &t->reader.header);
    if (!x) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        return 1;
    }
    int rc = cli_trace_each(t, "dump", cli_chrome_record, x);
    if (cli_chrome_end(x, rc == 0) != 0 && rc == 0) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        rc = 1;
    }
    if (fflush(stdout) != 0) {
        perror("clrtrace dump: stdout");
        return 1;
    }
    return rc;
}
