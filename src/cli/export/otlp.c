/* clrtrace dump --otlp: the trace as OpenTelemetry spans, in an OTLP
 * ExportTraceServiceRequest (export.h, "OTLP"). The messages and field
 * numbers are opentelemetry-proto's (opentelemetry/proto/collector/trace/v1/
 * trace_service.proto, trace/v1/trace.proto, resource/v1/resource.proto,
 * common/v1/common.proto); tests/otlp/ declares the subset written here.
 * Encoded with pb.h (--perfetto's encoder).
 *
 * One span per call, written when the call ends (callees before callers):
 *   trace_id, span_id, parent_span_id (none for a root), name (the
 *   function's full name), kind INTERNAL;
 *   start_time_unix_nano / end_time_unix_nano: the header's start (Unix
 *   ns) plus the enter's and the end's time since the trace started, the
 *   trace's one clock for all threads (--chrome's and --perfetto's times):
 *   wall time, with the tracer's held time in, so spans line up with the
 *   program's own spans (the text log's durations leave the held time out);
 *   attributes: "arg.NAME" per argument, the text the text log shows
 *   (cli_call_args: strings quoted, "argN" for a nameless one, "NAME#N" for
 *   a repeated name, "arg.arguments" = "?" when the record's values do not
 *   match the parameters), as string values; "return" (the return value's
 *   text), "at_return" (out/ref arguments as the call returned, "v=12");
 *   "thread.id" (the OS thread id, OTel's semantic convention);
 *   "code.file.path", "code.line.number", "code.function.name" (OTel's
 *   code attributes: the function's source file, whole, its line and its
 *   full name) when the trace was recorded with --srcline;
 *   "clrtrace.tailcall" / "clrtrace.unfinished" = true for those ends;
 *   an exception: an event "exception" at the end time with
 *   exception.type (the class), exception.message (the message read, when
 *   it was; "..." after a cut one) and clrtrace.exception (the text log's
 *   text, inner exceptions included), and status ERROR with that text.
 *
 * Ids, when the program's tracing gave none (cli_otlp_ids): a seed is made
 * from the trace file's identity, its pid and start (Unix ns); each call
 * has its ordinal n (1, 2, ... in the order of the enters this walk sees);
 * span_id = mix(seed, n), and an outermost call of a thread starts a trace
 * with trace_id = mix(seed ^ "trace", n) . mix(that, tid) (mix: splitmix64's
 * finalizer; never zero; written big-endian). The same trace and options
 * give the same ids, so sending a trace twice sends the same spans.
 *
 * Memory: per open call its pending attributes (bytes in its thread's
 * buffer) and one batch of spans. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "pb.h"
#include "base/table.h"
#include "cli/input/input.h"

/* stdout is written in blocks of this size. */
#define OTLP_STDOUT_BUFFER (1 << 20)

/* Field numbers (opentelemetry-proto, see above). */
enum {
    F_REQUEST_RESOURCE_SPANS = 1,   /* ExportTraceServiceRequest */

    F_RS_RESOURCE = 1,              /* ResourceSpans */
    F_RS_SCOPE_SPANS = 2,
    F_RESOURCE_ATTRIBUTES = 1,      /* Resource */
    F_SS_SCOPE = 1,                 /* ScopeSpans */
    F_SS_SPANS = 2,
    F_SCOPE_NAME = 1,               /* InstrumentationScope */
    F_SCOPE_VERSION = 2,

    F_SPAN_TRACE_ID = 1,            /* Span */
    F_SPAN_SPAN_ID = 2,
    F_SPAN_PARENT_SPAN_ID = 4,
    F_SPAN_NAME = 5,
    F_SPAN_KIND = 6,
    F_SPAN_START = 7,               /* fixed64 */
    F_SPAN_END = 8,                 /* fixed64 */
    F_SPAN_ATTRIBUTES = 9,
    F_SPAN_EVENTS = 11,
    F_SPAN_STATUS = 15,
    SPAN_KIND_INTERNAL = 1,

    F_EVENT_TIME = 1,               /* Span.Event, fixed64 */
    F_EVENT_NAME = 2,
    F_EVENT_ATTRIBUTES = 3,

    F_STATUS_MESSAGE = 2,           /* Status */
    F_STATUS_CODE = 3,
    STATUS_CODE_ERROR = 2,

    F_KV_KEY = 1,                   /* KeyValue */
    F_KV_VALUE = 2,
    F_ANY_STRING = 1,               /* AnyValue */
    F_ANY_BOOL = 2,
    F_ANY_INT = 3,
};

/* What an open call keeps until it ends, at the start of its bytes in its
 * thread's buffer (then its arguments, encoded as Span.attributes). */
typedef struct pending {
    uint8_t trace_id[16];
    uint8_t span_id[8];
    uint8_t parent[8];         /* zero: a root span */
    uint8_t activity[8];       /* the activity span it entered under (zero: none known) */
    int from_program;          /* trace_id is the program's */
} pending;

struct cli_otlp {
    cli_calls *w;
    cli_otlp_sink sink;
    void *sink_ctx;
    cli_otlp_source src;
    uint32_t max_spans;
    uint64_t start_ns;         /* the header's start, Unix ns */
    uint64_t seed;
    uint64_t ordinal;          /* calls entered */
    pb resource;               /* the Resource message's body */
    pb batch;                  /* the request being made */
    size_t rs_start, ss_start; /* its open ResourceSpans and ScopeSpans */
    uint32_t in_batch;
    uint64_t spans, batches;
    int oom, stopped;
    /* The argument keys of the call being entered, each ending in NUL. */
    cli_keys keys;
    pb *cur;                   /* the thread buffer arguments go to */
    int attr_field;            /* as what: F_SPAN_ATTRIBUTES, or a line probe's hit's
                                  F_EVENT_ATTRIBUTES (an event of its caller's span) */
    cli_async *async;          /* async calls between return and end (export.h) */
    char val[CHROME_ARGS_MAX + 1];
    char key[CHROME_ARGS_MAX + 8];
};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void put_be64(uint8_t *out, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(v >> (56 - 8 * i));
}

static int is_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* ------------------------------------------------------------ attributes */

/* A KeyValue as field `field` of the message being made: key = string
 * (val NULL: key = true). */
static void kv_string(pb *b, uint32_t field, const char *key, size_t klen, const char *val,
                      size_t vlen)
{
    size_t kv = pb_open(b, field);
    pb_string(b, F_KV_KEY, key, klen);
    size_t any = pb_open(b, F_KV_VALUE);
    if (val)
        pb_string(b, F_ANY_STRING, val, vlen);
    else
        pb_uint(b, F_ANY_BOOL, 1);
    pb_close(b, any);
    pb_close(b, kv);
}

static void kv_int(pb *b, uint32_t field, const char *key, int64_t v)
{
    size_t kv = pb_open(b, field);
    pb_string(b, F_KV_KEY, key, strlen(key));
    size_t any = pb_open(b, F_KV_VALUE);
    pb_uint(b, F_ANY_INT, (uint64_t)v);
    pb_close(b, any);
    pb_close(b, kv);
}

void cli_otlp_service_name(const char *cmdline, size_t n, char *out, size_t cap)
{
    /* The words of the command line (split at spaces). */
    const char *first = NULL, *app = NULL;
    size_t first_len = 0, app_len = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && cmdline[i] == ' ')
            i++;
        size_t s = i;
        while (i < n && cmdline[i] != ' ')
            i++;
        if (i == s)
            break;
        const char *w = cmdline + s;
        size_t len = i - s;
        /* The file name of the word. */
        for (size_t k = len; k > 0; k--)
            if (w[k - 1] == '/') {
                w += k;
                len -= k;
                break;
            }
        if (!first) {
            first = w;
            first_len = len;
            if (!(len == 6 && !memcmp(w, "dotnet", 6)) &&
                !(len == 10 && !memcmp(w, "dotnet.exe", 10)))
                break;
        } else if (len > 4 && !memcmp(w + len - 4, ".dll", 4)) {
            app = w;
            app_len = len - 4;
            break;
        }
    }
    if (app) {
        first = app;
        first_len = app_len;
    }
    if (!first || !first_len) {
        first = "unknown_service";
        first_len = strlen(first);
    }
    if (first_len >= cap)
        first_len = cap - 1;
    memcpy(out, first, first_len);
    out[first_len] = 0;
}

/* ------------------------------------------------------------ batches */

static void batch_open(cli_otlp *x)
{
    pb *b = &x->batch;
    b->len = 0;
    x->rs_start = pb_open(b, F_REQUEST_RESOURCE_SPANS);
    size_t r = pb_open(b, F_RS_RESOURCE);
    pb_raw(b, x->resource.p, x->resource.len);
    pb_close(b, r);
    x->ss_start = pb_open(b, F_RS_SCOPE_SPANS);
    size_t s = pb_open(b, F_SS_SCOPE);
    pb_string(b, F_SCOPE_NAME, "clrtrace", 8);
    pb_string(b, F_SCOPE_VERSION, CLRTRACE_VERSION, strlen(CLRTRACE_VERSION));
    pb_close(b, s);
}

/* Closes the batch and gives it to the sink: 0, -1 out of memory,
 * CLI_EACH_STOP when the sink stopped. */
static int batch_send(cli_otlp *x)
{
    pb *b = &x->batch;
    pb_close(b, x->ss_start);
    pb_close(b, x->rs_start);
    if (b->oom)
        return x->oom = -1;
    uint32_t n = x->in_batch;
    x->in_batch = 0;
    x->batches++;
    if (x->sink(x->sink_ctx, b->p, b->len, n) != 0) {
        x->stopped = 1;
        return CLI_EACH_STOP;
    }
    return 0;
}

/* ------------------------------------------------------------ the walk */

static int on_thread(void *ctx, cli_calls *w, cli_thread *t)
{
    (void)ctx, (void)w;
    t->user = calloc(1, sizeof(pb));
    return t->user ? 0 : -1;
}

static int key_taken(void *ctx, const char *key)
{
    return cli_keys_taken(&((const cli_otlp *)ctx)->keys, key);
}

static int arg_attribute(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
    cli_otlp *x = ctx;
    if (cli_keys_add(&x->keys, key, klen) != 0)
        return x->oom = -1;
    if (klen > sizeof x->key - 5)
        klen = sizeof x->key - 5;
    memcpy(x->key, "arg.", 4);
    memcpy(x->key + 4, key, klen);
    kv_string(x->cur, x->attr_field, x->key, 4 + klen, val, vlen);
    return x->cur->oom ? (x->oom = -1) : 0;
}

static int on_enter(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *rec)
{
    cli_otlp *x = ctx;
    cli_frame *f = cli_top(t);
    const cli_frame *caller = cli_caller(t);
    pb *b = t->user;
    pending me = {0}, up;
    if (caller)
        memcpy(&up, b->p + caller->aux, sizeof up);
    uint64_t n = ++x->ordinal;
    uint64_t sid = mix(x->seed ^ n);
    put_be64(me.span_id, sid ? sid : 1);
    cli_otlp_ids ids = {0};
    if (x->src.ids && x->src.ids(x->src.ctx, t->tid, rec, &ids) != 0)
        return x->oom = -1;
    if (!is_zero(ids.trace_id, 16)) {
        memcpy(me.trace_id, ids.trace_id, 16);
        memcpy(me.activity, ids.activity_span_id, 8);
        me.from_program = 1;
        if (caller && up.from_program && !memcmp(up.trace_id, ids.trace_id, 16) &&
            !memcmp(up.activity, ids.activity_span_id, 8))
            memcpy(me.parent, up.span_id, 8);
        else
            memcpy(me.parent, ids.activity_span_id, 8);
    } else if (caller) {
        memcpy(me.trace_id, up.trace_id, 16);
        memcpy(me.activity, up.activity, 8);
        me.from_program = up.from_program;
        memcpy(me.parent, up.span_id, 8);
    } else {
        uint64_t hi = mix(x->seed ^ 0x7472616365ull ^ n), lo = mix(hi ^ t->tid);
        put_be64(me.trace_id, hi ? hi : 1);
        put_be64(me.trace_id + 8, lo);
    }
    f->aux = b->len;
    pb_raw(b, &me, sizeof me);
    x->cur = b;
    x->attr_field = (f->fn->flags & CT_FN_PROBE) && caller ? F_EVENT_ATTRIBUTES : F_SPAN_ATTRIBUTES;
    x->keys.len = 0;
    if (cli_call_args(w->sym, f->fn, rec, x->val, key_taken, arg_attribute, x) != 0)
        return x->oom = -1;
    return b->oom ? (x->oom = -1) : 0;
}

/* Reads the C#-style escaped string at s[0..n) (after its opening quote)
 * into out as UTF-8, up to its closing quote; "..." when the text says it
 * was cut ("...(N chars)" after the quote). Returns the length. */
static size_t unquote(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0, i = 0;
    for (; i < n && s[i] != '"' && o + 4 < cap; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < n) {
            char e = s[++i];
            if (e == 'n')
                c = '\n';
            else if (e == 'r')
                c = '\r';
            else if (e == 't')
                c = '\t';
            else if (e == '0')
                c = 0;
            else if (e == 'u' && i + 4 < n) {
                unsigned cp = 0;
                sscanf(s + i + 1, "%4x", &cp);
                i += 4;
                if (cp < 0x80) {
                    c = (char)cp;
                } else {
                    /* A C1 control or U+2028/2029 as UTF-8; a lone
                     * surrogate as U+FFFD. */
                    if (cp >= 0xD800 && cp <= 0xDFFF)
                        cp = 0xFFFD;
                    if (cp < 0x800) {
                        out[o++] = (char)(0xC0 | cp >> 6);
                    } else {
                        out[o++] = (char)(0xE0 | cp >> 12);
                        out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    }
                    out[o++] = (char)(0x80 | (cp & 0x3F));
                    continue;
                }
            } else
                c = e;
        }
        out[o++] = c;
    }
    if (i + 1 < n && s[i] == '"' && !strncmp(s + i + 1, "...", 3) && o + 3 < cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    return o;
}

/* The exception event and the status, from the text log's text of it. */
static void exception_event(cli_otlp *x, pb *b, uint64_t when, const char *text, size_t len)
{
    size_t ev = pb_open(b, F_SPAN_EVENTS);
    pb_fixed64(b, F_EVENT_TIME, when);
    pb_string(b, F_EVENT_NAME, "exception", 9);
    if (text) {
        /* "TYPE: \"MESSAGE\" <- INNER...": the type ends at ": " or " <- ". */
        size_t tl = 0;
        while (tl < len && !(text[tl] == ':' && tl + 1 < len && text[tl + 1] == ' ') &&
               !(text[tl] == ' ' && tl + 3 < len && !memcmp(text + tl, " <- ", 4)))
            tl++;
        kv_string(b, F_EVENT_ATTRIBUTES, "exception.type", 14, text, tl);
        if (tl + 3 < len && text[tl] == ':' && text[tl + 2] == '"') {
            char *msg = x->key;
            size_t ml = unquote(text + tl + 3, len - tl - 3, msg, sizeof x->key);
            kv_string(b, F_EVENT_ATTRIBUTES, "exception.message", 17, msg, ml);
        }
        kv_string(b, F_EVENT_ATTRIBUTES, "clrtrace.exception", 18, text, len);
    }
    pb_close(b, ev);
    size_t st = pb_open(b, F_SPAN_STATUS);
    if (text)
        pb_string(b, F_STATUS_MESSAGE, text, len);
    pb_uint(b, F_STATUS_CODE, STATUS_CODE_ERROR);
    pb_close(b, st);
}

/* How a span ends (span_out). */
enum { END_RETURN, END_EXCEPTION, END_TAILCALL, END_UNFINISHED };

/* One span into the batch: me's ids, name, start and end (ns since the
 * trace started), its argument attributes attrs[0..alen), thread.id, then
 * by `end_kind`: "return" (text, when not NULL) and "at_return" (outs),
 * the exception event (text: the text log's, or NULL), or the flag of a
 * tail call or an unfinished call; "clrtrace.async" for an async call's
 * span, which ends when its task does. */
static int span_out(cli_otlp *x, const pending *me, const ct_function *fn, const char *name,
                    uint64_t start, uint64_t end, uint64_t tid, const uint8_t *attrs, size_t alen,
                    int end_kind, const char *text, size_t len, const char *outs, size_t outs_len,
                    int async)
{
    if (!x->in_batch)
        batch_open(x);
    pb *b = &x->batch;
    size_t sp = pb_open(b, F_SS_SPANS);
    pb_bytes(b, F_SPAN_TRACE_ID, me->trace_id, 16);
    pb_bytes(b, F_SPAN_SPAN_ID, me->span_id, 8);
    if (!is_zero(me->parent, 8))
        pb_bytes(b, F_SPAN_PARENT_SPAN_ID, me->parent, 8);
    pb_string(b, F_SPAN_NAME, name, strlen(name));
    pb_uint(b, F_SPAN_KIND, SPAN_KIND_INTERNAL);
    pb_fixed64(b, F_SPAN_START, x->start_ns + start);
    pb_fixed64(b, F_SPAN_END, x->start_ns + end);
    pb_raw(b, attrs, alen);
    kv_int(b, F_SPAN_ATTRIBUTES, "thread.id", (int64_t)tid);
    if (fn && fn->src_file) { /* recorded with --srcline: OTel's code.* attributes */
        kv_string(b, F_SPAN_ATTRIBUTES, "code.file.path", 14, fn->src_file, strlen(fn->src_file));
        kv_int(b, F_SPAN_ATTRIBUTES, "code.line.number", (int64_t)fn->src_line);
        kv_string(b, F_SPAN_ATTRIBUTES, "code.function.name", 18, fn->name, strlen(fn->name));
    }
    if (async)
        kv_string(b, F_SPAN_ATTRIBUTES, "clrtrace.async", 14, NULL, 0);
    if (end_kind == END_RETURN) {
        if (text)
            kv_string(b, F_SPAN_ATTRIBUTES, "return", 6, text, len);
        if (outs)
            kv_string(b, F_SPAN_ATTRIBUTES, "at_return", 9, outs, outs_len);
    } else if (end_kind == END_EXCEPTION) {
        exception_event(x, b, x->start_ns + end, text, len);
    } else {
        kv_string(b, F_SPAN_ATTRIBUTES,
                  end_kind == END_TAILCALL ? "clrtrace.tailcall" : "clrtrace.unfinished",
                  end_kind == END_TAILCALL ? 17 : 19, NULL, 0);
    }
    pb_close(b, sp);
    if (b->oom)
        return x->oom = -1;
    x->spans++;
    if (++x->in_batch >= x->max_spans)
        return batch_send(x);
    return 0;
}

/* The span of async call a (its extra: its pending ids, then its argument
 * attributes), ended by its result or exception at `end`, or at its return
 * when that came later. */
static int async_out(cli_otlp *x, cli_async *a, uint64_t end, int faulted, const char *text,
                     size_t len)
{
    const pending *me = a->extra;
    int rc = span_out(x, me, a->fn, a->name, a->start, cli_async_last(a, end), a->tid,
                      (const uint8_t *)a->extra + sizeof *me, a->extra_len - sizeof *me,
                      faulted ? END_EXCEPTION : END_RETURN, faulted || len ? text : NULL, len,
                      NULL, 0, 1);
    cli_async_clear(a);
    return rc;
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *rec)
{
    cli_otlp *x = ctx;
    const cli_frame *f = cli_top(t);
    pb *tb = t->user;
    pending me;
    memcpy(&me, tb->p + f->aux, sizeof me);
    if (x->stopped) {
        tb->len = f->aux;
        return 0;
    }
    if (f->injected) {
        /* clrtrace.injected: the action of the fault injected (--inject). */
        const char *a = cli_injected_name(f->injected);
        kv_string(tb, F_SPAN_ATTRIBUTES, "clrtrace.injected", 17, a, strlen(a));
        if (tb->oom)
            return x->oom = -1;
    }
    const uint8_t *attrs = tb->p + f->aux + sizeof me;
    size_t alen = tb->len - f->aux - sizeof me;
    if ((f->fn->flags & CT_FN_PROBE) && cli_caller(t)) {
        /* A line probe's hit: an event of its caller's span, its values
         * the event's attributes ("arg.total"), kept with the caller's
         * until that span is made. */
        uint8_t *keep = alen ? malloc(alen) : NULL;
        if (alen && !keep)
            return x->oom = -1;
        if (alen)
            memcpy(keep, attrs, alen);
        tb->len = f->aux;
        size_t ev = pb_open(tb, F_SPAN_EVENTS);
        pb_fixed64(tb, F_EVENT_TIME, x->start_ns + f->start);
        pb_string(tb, F_EVENT_NAME, f->fn->name, strlen(f->fn->name));
        if (alen)
            pb_raw(tb, keep, alen);
        pb_close(tb, ev);
        free(keep);
        return tb->oom ? (x->oom = -1) : 0;
    }
    uint64_t id = how == CLI_END_RETURN ? ct_symbols_async_id(f->fn, rec) : 0;
    if (id) {
        /* The call goes on until its task ends: its span then. */
        cli_async *a = cli_async_at(&x->async, id);
        if (!a || !(a->extra = malloc(sizeof me + alen)))
            return x->oom = -1;
        memcpy(a->extra, &me, sizeof me);
        if (alen)
            memcpy((uint8_t *)a->extra + sizeof me, attrs, alen);
        a->extra_len = sizeof me + alen;
        cli_async_returned(a, f, end, t->tid);
        tb->len = f->aux;
        if (a->state == CLI_ASYNC_ENDED)
            return async_out(x, a, a->end, a->faulted, a->text, a->len);
        a->state = CLI_ASYNC_RETURNED;
        return 0;
    }
    ct_text text;
    int rc;
    if (how == CLI_END_RETURN) {
        char *outs = x->key;
        size_t rl = 0, ol = 0;
        ct_text_init(&text, x->val, CT_RENDER_RET_MAX);
        int has_ret = ct_symbols_return_text(w->sym, f->fn, rec, &text);
        rl = ct_text_end(&text);
        ct_text_init(&text, outs, sizeof x->key);
        int has_outs = ct_symbols_out_text(w->sym, f->fn, rec, &text);
        ol = ct_text_end(&text);
        rc = span_out(x, &me, f->fn, f->fn->name, f->start, end, t->tid, attrs, alen, END_RETURN,
                      has_ret ? x->val : NULL, rl, has_outs ? outs + 2 : NULL,
                      ol > 2 ? ol - 2 : 0, 0);
    } else if (how == CLI_END_EXCEPTION) {
        ct_text_init(&text, x->val, CT_RENDER_RET_MAX);
        int has = rec && rec->nvalues && ct_symbols_exception_text(w->sym, rec, &text);
        size_t len = ct_text_end(&text);
        rc = span_out(x, &me, f->fn, f->fn->name, f->start, end, t->tid, attrs, alen, END_EXCEPTION,
                      has ? x->val : NULL, has ? len : 0, NULL, 0, 0);
    } else {
        rc = span_out(x, &me, f->fn, f->fn->name, f->start, end, t->tid, attrs, alen,
                      how == CLI_END_TAILCALL ? END_TAILCALL : END_UNFINISHED, NULL, 0, NULL, 0,
                      0);
    }
    tb->len = f->aux;
    return rc;
}

/* An ASYNC_RETURN or ASYNC_FAULT record: the span of its call, or kept for
 * that call's return when it has not come yet. */
static int on_other(void *ctx, cli_calls *w, const ct_rec *rec)
{
    cli_otlp *x = ctx;
    if (!ct_rec_is_async_end(rec->type) || x->stopped)
        return 0;
    cli_async *a = cli_async_at(&x->async, rec->key);
    if (!a)
        return x->oom = -1;
    int faulted;
    size_t len = cli_async_end_text(w->sym, a, rec, x->val, CT_RENDER_RET_MAX, &faulted);
    if (a->state == CLI_ASYNC_RETURNED)
        return async_out(x, a, rec->time_ns, faulted, x->val, len);
    return cli_async_keep_end(a, rec, faulted, x->val, len) ? (x->oom = -1) : 0;
}

cli_otlp *cli_otlp_new(const ct_trace_header *h, uint32_t max_spans, cli_otlp_sink sink,
                       void *sink_ctx, const cli_otlp_source *ids)
{
    cli_otlp *x = calloc(1, sizeof *x);
    cli_calls_ops ops = { .thread = on_thread, .enter = on_enter, .leave = on_leave,
                          .other = on_other };
    if (!x || !(x->w = cli_calls_new(&ops, x))) {
        free(x);
        return NULL;
    }
    x->sink = sink;
    x->sink_ctx = sink_ctx;
    if (ids)
        x->src = *ids;
    x->max_spans = max_spans ? max_spans : CLI_OTLP_MAX_SPANS;
    x->start_ns = h->start_unix_ns;
    x->seed = mix(mix(h->pid) ^ h->start_unix_ns);
    char name[256];
    cli_otlp_service_name(h->cmdline, h->cmdline_len, name, sizeof name);
    pb *r = &x->resource;
    kv_string(r, F_RESOURCE_ATTRIBUTES, "service.name", 12, name, strlen(name));
    kv_int(r, F_RESOURCE_ATTRIBUTES, "process.pid", h->pid);
    kv_string(r, F_RESOURCE_ATTRIBUTES, "process.command_line", 20, h->cmdline, h->cmdline_len);
    if (r->oom) {
        cli_otlp_end(x, NULL, NULL);
        return NULL;
    }
    return x;
}

int cli_otlp_record(void *otlp, const ct_rec *rec)
{
    cli_otlp *x = otlp;
    if (x->oom)
        return -1;
    if (x->stopped)
        return CLI_EACH_STOP;
    if (x->src.record && x->src.record(x->src.ctx, rec) != 0)
        return x->oom = -1;
    int rc = cli_calls_record(x->w, rec);
    if (x->stopped)
        return CLI_EACH_STOP;
    return rc || x->oom ? (x->oom = -1) : 0;
}

int cli_otlp_end(cli_otlp *x, uint64_t *spans, uint64_t *batches)
{
    cli_calls *w = x->w;
    int rc = x->oom;
    if (!rc && !x->stopped && cli_calls_finish(w) != 0)
        rc = -1;
    /* Async calls whose task had not ended when the trace did: their span
     * to their return, unfinished. */
    for (size_t i = 0; x->async && i < CT_RENDER_ASYNC_MAX; i++) {
        cli_async *a = &x->async[i];
        const pending *me = a->extra;
        if (!rc && !x->stopped && a->state == CLI_ASYNC_RETURNED &&
            span_out(x, me, a->fn, a->name, a->start, a->ret, a->tid,
                     (const uint8_t *)a->extra + sizeof *me, a->extra_len - sizeof *me,
                     END_UNFINISHED, NULL, 0, NULL, 0, 1) != 0)
            rc = -1;
    }
    cli_async_free(x->async);
    x->async = NULL;
    if (!rc && !x->stopped && x->in_batch && batch_send(x) == -1)
        rc = -1;
    if (w->too_deep)
        fprintf(stderr, "clrtrace dump: %" PRIu64 " %s deeper than %u levels left out of the "
                        "spans (their time is in their caller at that depth)\n",
                w->too_deep, w->too_deep == 1 ? "call" : "calls", CLI_CALLS_MAX_DEPTH);
    if (spans)
        *spans = x->spans;
    if (batches)
        *batches = x->batches;
    for (cli_thread *t = w->first; t; t = t->next) {
        pb_free(t->user);
        free(t->user);
        t->user = NULL;
    }
    cli_calls_free(w);
    int stopped = x->stopped;
    pb_free(&x->resource);
    pb_free(&x->batch);
    free(x->keys.p);
    free(x);
    return rc ? -1 : stopped ? 1 : 0;
}

/* ------------------------------------------------------------ the command */

static int to_stdout(void *ctx, const uint8_t *req, size_t len, uint32_t spans)
{
    (void)ctx, (void)spans;
    if (fwrite(req, 1, len, stdout) != len) {
        perror("clrtrace dump: stdout");
        return -1;
    }
    return 0;
}

static int to_endpoint(void *ctx, const uint8_t *req, size_t len, uint32_t spans)
{
    (void)spans;
    char err[CLI_OTLP_URL_MAX + 600];
    if (cli_otlp_post(ctx, req, len, err, sizeof err) != 0) {
        fprintf(stderr, "clrtrace dump: %s\n", err);
        return -1;
    }
    return 0;
}

/* The trace's own ids (format 2.8): each thread's latest ACTIVITY record
 * gives the calls it enters their trace id and the Activity's span. */
static int activity_record(void *ctx, const ct_rec *rec)
{
    if (rec->type != CT_REC_ACTIVITY)
        return 0;
    ct_table *threads = ctx;
    uint8_t *ids = ct_table_get(threads, rec->tid + 1);
    if (!ids) {
        if (!(ids = malloc(CT_ACTIVITY_ID_BYTES)))
            return -1;
        if (ct_table_put(threads, rec->tid + 1, ids) != 0) {
            free(ids);
            return -1;
        }
    }
    memcpy(ids, rec->trace_id, CT_TRACE_ID_BYTES);
    memcpy(ids + CT_TRACE_ID_BYTES, rec->span_id, CT_SPAN_ID_BYTES);
    return 0;
}

static int activity_ids(void *ctx, uint64_t tid, const ct_rec *enter, cli_otlp_ids *ids)
{
    (void)enter;
    const uint8_t *have = ct_table_get(ctx, tid + 1);
    if (have) {
        memcpy(ids->trace_id, have, CT_TRACE_ID_BYTES);
        memcpy(ids->activity_span_id, have + CT_TRACE_ID_BYTES, CT_SPAN_ID_BYTES);
    }
    return 0;
}

static void free_value(void *ctx, ct_key key, void *value)
{
    (void)ctx, (void)key;
    free(value);
}

int cli_dump_otlp(cli_trace *t, const cli_otlp_opts *o)
{
    static char obuf[OTLP_STDOUT_BUFFER];
    if (!o->endpoint)
        setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    /* Without ids of the caller's, the trace's own (ACTIVITY records). */
    ct_table threads = {0};
    cli_otlp_source own = {activity_record, activity_ids, &threads};
    cli_otlp *x = cli_otlp_new(&t->reader.header, o->max_spans,
                               o->endpoint ? to_endpoint : to_stdout, (void *)o->endpoint,
                               o->ids ? o->ids : &own);
    if (!x) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        return 1;
    }
    int rc = cli_trace_each(t, "dump", cli_otlp_record, x);
    uint64_t spans = 0, batches = 0;
    int end = cli_otlp_end(x, &spans, &batches);
    ct_table_each(&threads, free_value, NULL);
    ct_table_free(&threads);
    if (end == -1 && rc == 0)
        fprintf(stderr, "clrtrace dump: out of memory\n");
    if (end != 0)
        rc = 1;
    if (!o->endpoint && fflush(stdout) != 0) {
        perror("clrtrace dump: stdout");
        return 1;
    }
    if (o->endpoint && end == 0)
        fprintf(stderr, "clrtrace dump: %" PRIu64 " %s sent to %s in %" PRIu64 " %s\n", spans,
                spans == 1 ? "span" : "spans", o->endpoint->url, batches,
                batches == 1 ? "request" : "requests");
    return rc;
}
