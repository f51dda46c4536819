/* What the exporters provide (src/cli/export): the call-stack walk
 * (calls.c) and dump's formats, folded stacks (folded.c), the flame graph
 * (flame.c), Chrome JSON (chrome.c) and Perfetto's protobuf (perfetto.c).
 * They read a cli_trace (cli/input/input.h). */
#ifndef CLRTRACE_CLI_EXPORT_H
#define CLRTRACE_CLI_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/event.h"
#include "views/render.h"
#include "views/walk.h"
#include "views/symbols.h"
#include "base/table.h"
#include "cli/input/input.h" /* cli_trace: a trace opened for reading */


/* ------------------------------------------------ call stacks (calls.c)
 * The walk shared by dump --folded, --flame, --chrome and --perfetto: the
 * walk of views/walk.h (each thread's stack of open calls, ends paired with
 * calls as in the text renderer and the filters), with the functions of the
 * symbol table. Times on one thread never go back (an event earlier than
 * the thread's previous one is taken at the previous time), so a callee's
 * interval always lies inside its caller's. */

/* Deepest stack kept per thread. Calls below this depth are not reported
 * (counted in too_deep); their time stays in the deepest reported frame. */
#define CLI_CALLS_MAX_DEPTH 4096

typedef enum cli_call_end {
    CLI_END_RETURN,     /* LEAVE */
    CLI_END_EXCEPTION,  /* UNWIND */
    CLI_END_TAILCALL,   /* TAILCALL */
    CLI_END_UNFINISHED, /* never ended: open when the trace ends, or above a
                           frame whose end came without theirs (a missed
                           event); closed at that time */
} cli_call_end;

typedef struct cli_frame {
    ct_stack_frame h;   /* the function's key */
    const ct_function *fn;
    uint64_t start;     /* ns since the trace started (the clock's time: Chrome
                           and Perfetto slices) */
    uint64_t prog;      /* the thread's program time then (ct_walk_thread.prog:
                           the held time left out), which folded stacks and
                           flame graphs weigh durations by */
    uint64_t children;  /* program-time ns in callees that ended (not unfinished) */
    uint64_t aux;       /* the user's */
    uint8_t injected;   /* a fault was injected into the call (INJECT): its action
                           (CT_INJECT_THROW, RETURN, DELAY), or 0 */
} cli_frame;

/* The name of an injected fault's action ("throw", "return", "delay"). */
const char *cli_injected_name(uint8_t action);

/* A thread of the walk: tid, now (its latest time), stack (of cli_frame:
 * the calls open, the outermost CLI_CALLS_MAX_DEPTH kept), user (the
 * user's, freed by the user) and next (first-seen order). */
typedef ct_walk_thread cli_thread;

/* The innermost kept call of t, and its caller (NULL: none). */
static inline cli_frame *cli_top(const cli_thread *t)
{
    return ct_stack_top(&t->stack);
}

static inline cli_frame *cli_caller(const cli_thread *t)
{
    return ct_walk_caller(t);
}

typedef struct cli_calls cli_calls;

/* Callbacks (any may be NULL); each returns 0, or non-zero when out of
 * memory. */
typedef struct cli_calls_ops {
    /* A thread's first event. */
    int (*thread)(void *ctx, cli_calls *w, cli_thread *t);
    /* A call began: cli_top(t) is its frame (aux is 0). */
    int (*enter)(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *enter);
    /* A call ended at `end` (ns): cli_top(t) is its frame, frames below it
     * its callers. leave: the LEAVE record for CLI_END_RETURN, the UNWIND
     * record for CLI_END_EXCEPTION, else NULL.
     * The frame is popped after the call. */
    int (*leave)(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                 const ct_rec *leave);
    /* Every record that is not an event, after the walker took it (FUNCTION,
     * CLASS and THREAD records are in the symbol table by then). */
    int (*other)(void *ctx, cli_calls *w, const ct_rec *rec);
} cli_calls_ops;

struct cli_calls {
    ct_walk walk;            /* the threads (walk.first: first-seen order) and
                                their stacks; walk.dropped: events the profiler
                                lost (DROPPED records); walk.ended: an END record
                                came, later records are ignored */
    ct_symbols *sym;         /* functions, classes, thread names; value text */
    cli_calls_ops ops;
    void *ctx;
    cli_thread *first;       /* the first thread (walk.first) */
    uint64_t last_time;      /* the latest time in the trace (events, END) */
    uint64_t calls;          /* calls that ended (not unfinished), reported or not */
    uint64_t unfinished;     /* reported frames closed as CLI_END_UNFINISHED */
    uint64_t too_deep;       /* calls below CLI_CALLS_MAX_DEPTH (not reported) */
    uint64_t unmatched;      /* ends with no open call of their function on the thread */
    int finished;
};

/* NULL when out of memory. */
cli_calls *cli_calls_new(const cli_calls_ops *ops, void *ctx);
/* One record, in trace order (a cli_trace_each callback, ctx the walker). */
int cli_calls_record(void *walker, const ct_rec *rec);
/* Closes every call still open, on each thread from the innermost, as
 * CLI_END_UNFINISHED at last_time. Returns 0 or non-zero (out of memory). */
int cli_calls_finish(cli_calls *w);
void cli_calls_free(cli_calls *w);

/* ------------------------------------------------- async calls (calls.c)
 * The exporters that give an async call (trace format 2.9) a span from its
 * enter to its task's end (--chrome, --perfetto, --otlp) keep each such
 * call between its return and its end, or its end when that came first,
 * by id % CT_RENDER_ASYNC_MAX (the profiler follows at most that many at
 * once, each in a slot of its own). */
typedef struct cli_async {
    uint64_t id;
    int state;               /* CLI_ASYNC_FREE, _RETURNED or _ENDED (first) */
    const char *name;        /* the function's (the symbol table's) */
    const ct_function *fn;   /* _RETURNED: the function (its return plan reads a
                                runtime-async call's result) */
    uint64_t start, tid;     /* its enter's time and thread */
    uint64_t ret;            /* its return's time */
    uint64_t end;            /* _ENDED: its task's end */
    int faulted;             /* _ENDED: ended by an exception */
    char *text;              /* _ENDED: the end's text (malloc'd) */
    size_t len;
    void *extra;             /* the exporter's (malloc'd; freed with the slot) */
    size_t extra_len;
} cli_async;

enum { CLI_ASYNC_FREE, CLI_ASYNC_RETURNED, CLI_ASYNC_ENDED };

/* The slot of call id in *table (allocated at the first), emptied when it
 * held another id; NULL when out of memory. */
cli_async *cli_async_at(cli_async **table, uint64_t id);
/* Empties a slot (what it held freed). */
void cli_async_clear(cli_async *a);
/* Frees a table and what its slots hold. */
void cli_async_free(cli_async *table);
/* The text of an async call's end record into buf[0..cap): an ASYNC_FAULT's
 * exception or an ASYNC_RETURN's result, as the text log shows them (""
 * for a Task's; a runtime-async call's needs its function, a's when its
 * call has returned); its length, and *faulted. */
size_t cli_async_end_text(ct_symbols *sym, const cli_async *a, const ct_rec *rec, char *buf,
                          size_t cap, int *faulted);
/* An async call's end record met before its call's return: kept in a,
 * text[0..len) copied. 0, or -1 when out of memory. */
int cli_async_keep_end(cli_async *a, const ct_rec *rec, int faulted, const char *text,
                       size_t len);
/* The call of slot a returned (its frame f, at `ret`, on thread tid). */
void cli_async_returned(cli_async *a, const cli_frame *f, uint64_t ret, uint64_t tid);
/* When an async call's span ends: its task's end, or its return when
 * that came later. */
static inline uint64_t cli_async_last(const cli_async *a, uint64_t end)
{
    return a->ret > end ? a->ret : end;
}

/* ------------------------------------------------- dump formats */

/* Folded stacks (folded.c): the call tree of a trace aggregated by stack,
 * the data of dump --folded and dump --flame. Node 0 is the root (no
 * function); every other node is a distinct stack of function names, and
 * holds the weight of the calls that ended on it. At most FOLDED_MAX_NODES
 * stacks are kept: calls on further new stacks are counted in `lost`. */
#define FOLDED_MAX_NODES (1u << 20)

typedef struct folded_node {
    const char *name;        /* the innermost function's full name ("" for the root) */
    const ct_function *fn;   /* a function of that name (its source location); NULL: root */
    uint32_t parent;         /* the root's parent is itself */
    uint32_t first_child, next_sibling; /* 0: none (children in no particular order) */
    uint32_t depth;          /* the root is 0 */
    uint64_t weight;         /* self time (ns) or calls, of calls that ended here */
    uint64_t ended;          /* calls that ended here */
} folded_node;

typedef struct folded_tree {
    folded_node *nodes;
    uint32_t n, cap;
    uint32_t *index;         /* hash of (parent, name) -> node + 1 */
    size_t index_cap;
    uint64_t lost;           /* calls not counted: past FOLDED_MAX_NODES */
    uint64_t too_deep, unfinished; /* from the walk */
    int by_calls;
    ct_symbols *sym;         /* the names */
} folded_tree;

/* Reads the trace into *tree (weights: self ns, or calls with by_calls).
 * Returns 0, or 1 after one error line (a damaged trace: what came before
 * the damage is in the tree). Free with folded_tree_free. */
int folded_collect(cli_trace *t, int by_calls, folded_tree *tree);
void folded_tree_free(folded_tree *tree);

/* clrtrace dump --folded: folded stacks on stdout, weighted by self time
 * (ns) or by calls. Returns 0, or 1 after one error line. */
int cli_dump_folded(cli_trace *t, int by_calls);

/* Flame graph options (flame.c). */
#define FLAME_DEFAULT_WIDTH 1200
#define FLAME_MIN_WIDTH 200
#define FLAME_MAX_WIDTH 100000
typedef struct flame_opts {
    int by_calls;
    unsigned width;          /* of the image, px */
    const char *title;       /* NULL: "Flame Graph" */
} flame_opts;

/* clrtrace dump --flame: an SVG flame graph on stdout. Returns 0, or 1
 * after one error line. */
int cli_dump_flame(cli_trace *t, const flame_opts *o);

/* Most text of one call's argument values, together (as the text log's
 * CT_RENDER_LINE_MAX), in dump --chrome: a value that does not fit is cut
 * and ends in "..."; values after it read "...". The return value is cut at
 * CT_RENDER_RET_MAX. */
#define CHROME_ARGS_MAX CT_RENDER_LINE_MAX

/* The argument keys of the call being exported, each ending in NUL: what
 * cli_call_args's `taken` asks (cli_keys_taken) and its `emit` adds
 * (cli_keys_add), cleared at each call (len = 0). */
typedef struct cli_keys {
    char *p;
    size_t len, cap;
} cli_keys;
int cli_keys_taken(const cli_keys *k, const char *key);
/* Adds key[0..n): 0, or -1 when out of memory. */
int cli_keys_add(cli_keys *k, const char *key, size_t n);

/* The arguments of a call as --chrome's args and --perfetto's debug
 * annotations show them (chrome.c): emit(ctx, key, value) for each, in
 * order, the value as the text log formats it (all together at most
 * CHROME_ARGS_MAX: the value that does not fit is cut, later ones read
 * "..."); or "arguments": "?" when the ENTER record's values do not match
 * the parameters; nothing for a function traced without values. The key is
 * the argument's name in its label ("double k=" -> "k"), "argN" when it has
 * none, "name#N" when it is a key of our own (return, exception, tailcall,
 * unfinished, arguments, trace_id, span_id) or taken(ctx, key) says an
 * earlier argument of the call has it. val: CHROME_ARGS_MAX + 1 bytes of scratch. Returns 0 or
 * emit's non-zero. */
int cli_call_args(ct_symbols *sym, const ct_function *fn, const ct_rec *rec, char *val,
                  int (*taken)(void *ctx, const char *key),
                  int (*emit)(void *ctx, const char *key, size_t klen, const char *val,
                              size_t vlen),
                  void *ctx);

/* The W3C ids of the Activity a call entered under (ids: its thread's
 * ct_walk_thread.ids at its ENTER) as --chrome's args and --perfetto's
 * debug annotations show them: emit(ctx, "trace_id", 32 lowercase hex
 * digits) then emit(ctx, "span_id", 16), the Activity's own span id;
 * nothing when the call entered under no Activity. Arguments of those names
 * are "trace_id#N", "span_id#N" (cli_call_args). Returns 0 or emit's
 * non-zero. */
int cli_call_ids(const uint8_t *ids,
                 int (*emit)(void *ctx, const char *key, size_t klen, const char *val,
                             size_t vlen),
                 void *ctx);

/* clrtrace dump --chrome: Chrome Trace Event Format JSON on stdout.
 * Returns 0, or 1 after one error line (the JSON is complete even then). */
/* Most calls dump --chrome writes by default: past them the JSON (about
 * 200 bytes a call) grows beyond what a browser's trace viewer opens; the
 * --max-calls option sets another limit (0: none). */
#define CLI_CHROME_MAX_CALLS 2000000u
/* The Chrome JSON of t, when t holds at most max_calls calls (0: any);
 * otherwise one line saying how to narrow them, and 1. */
int cli_dump_chrome(cli_trace *t, uint64_t max_calls);

/* The same in steps (chrome.c), for any record source (fuzz/fuzz_trace.c):
 * new writes the head of the JSON to out (NULL when out of memory); record
 * takes one record in trace order (a cli_trace_each callback); end closes
 * the calls still open, writes the tail (complete: the trace was read to
 * its end) and frees. The JSON is valid whatever the records; record and
 * end return non-zero when memory ran out (the JSON is still closed). */
typedef struct cli_chrome cli_chrome;
cli_chrome *cli_chrome_new(FILE *out, const ct_trace_header *h);
int cli_chrome_record(void *chrome, const ct_rec *rec);
int cli_chrome_end(cli_chrome *c, int complete);

/* clrtrace dump --perfetto (perfetto.c): Perfetto's protobuf trace (a
 * Trace of TracePackets: a track per thread under the process's, a
 * SLICE_BEGIN and a SLICE_END per call with --chrome's args as debug
 * annotations, names interned) on stdout, packet by packet. No limit on
 * calls. Returns 0, or 1 after one error line (the packets before a damaged
 * record are written whole, open calls closed). */
int cli_dump_perfetto(cli_trace *t);

/* The same in steps, for any record source (as cli_chrome_*): new writes
 * the process's track to out (NULL when out of memory); record takes one
 * record (a cli_trace_each callback); end closes the calls still open and
 * frees. The output is a valid trace whatever the records; record and end
 * return non-zero when memory ran out (the packets written are whole). */
typedef struct cli_perfetto cli_perfetto;
cli_perfetto *cli_perfetto_new(FILE *out, const ct_trace_header *h);
int cli_perfetto_record(void *perfetto, const ct_rec *rec);
int cli_perfetto_end(cli_perfetto *p);

/* ------------------------------------------------ OTLP (otlp.c, otlp_http.c)
 * clrtrace dump --otlp: the trace as OpenTelemetry spans, an OTLP
 * ExportTraceServiceRequest (opentelemetry-proto's
 * collector/trace/v1/trace_service.proto; tests/otlp/ holds the subset
 * written), on stdout or POSTed to a collector (OTLP/HTTP, protobuf).
 * Each call is a span named by its function; its parent is the enclosing
 * call (or the Activity's span, see cli_otlp_ids). The spans go out in
 * batches of at most max_spans, each batch one ResourceSpans (the process's
 * resource, scope "clrtrace") and on stdout one after the other: together
 * still one ExportTraceServiceRequest (repeated fields concatenate). */

/* Spans per batch (per request to an endpoint) by default: the
 * OpenTelemetry SDKs' batch span processor's default export batch; and the
 * most --otlp-max-spans takes. */
#define CLI_OTLP_MAX_SPANS 512u
#define CLI_OTLP_MAX_SPANS_LIMIT 1000000u

/* The ids the program's own tracing gave one call (the W3C trace context
 * of the Activity current on its thread when it entered), all zero when
 * unknown. A call with a trace id is a span of that trace: its parent is
 * the enclosing traced call when that call entered under the same trace id
 * and activity span id, otherwise activity_span_id (zero: a root span). A
 * call without one inherits its enclosing call's trace (its parent: that
 * call's span); an outermost call without one starts a trace of its own
 * (ids made from the trace file, otlp.c). */
typedef struct cli_otlp_ids {
    uint8_t trace_id[16];
    uint8_t activity_span_id[8];
} cli_otlp_ids;

/* Where the ids come from (NULL members: nothing): record sees every record
 * before the walk does (e.g. a thread's "activity changed" records); ids is
 * asked at each call's enter on thread tid (ids zeroed before). Each
 * returns 0, or non-zero when out of memory. */
typedef struct cli_otlp_source {
    int (*record)(void *ctx, const ct_rec *rec);
    int (*ids)(void *ctx, uint64_t tid, const ct_rec *enter, cli_otlp_ids *ids);
    void *ctx;
} cli_otlp_source;

/* Where a batch goes: req[0..len) is one whole ExportTraceServiceRequest of
 * `spans` spans. Returns 0, or non-zero to stop (after saying why). */
typedef int (*cli_otlp_sink)(void *ctx, const uint8_t *req, size_t len, uint32_t spans);

/* The exporter in steps, for any record source: new (NULL when out of
 * memory); record takes one record in trace order (a cli_trace_each
 * callback: 0, -1 out of memory, CLI_EACH_STOP when the sink stopped); end
 * closes the calls still open (as unfinished spans), sends the last batch
 * unless the sink stopped, and frees: 0, -1 out of memory, 1 the sink
 * stopped. ids may be NULL. */
typedef struct cli_otlp cli_otlp;
cli_otlp *cli_otlp_new(const ct_trace_header *h, uint32_t max_spans, cli_otlp_sink sink,
                       void *sink_ctx, const cli_otlp_source *ids);
int cli_otlp_record(void *otlp, const ct_rec *rec);
int cli_otlp_end(cli_otlp *x, uint64_t *spans, uint64_t *batches);

/* service.name of the resource: the program's name from the command line
 * (the file name of its first word; for "dotnet ... APP.dll ..." APP).
 * Into out[0..cap). */
void cli_otlp_service_name(const char *cmdline, size_t n, char *out, size_t cap);

/* An http:// endpoint (otlp_http.c). */
#define CLI_OTLP_URL_MAX 1024
typedef struct cli_otlp_endpoint {
    char url[CLI_OTLP_URL_MAX + 300]; /* what requests go to, in messages */
    char host[256];
    char port[8];
    char path[CLI_OTLP_URL_MAX];
} cli_otlp_endpoint;

/* Parses "http://HOST[:PORT][/PATH]" (HOST a name, an IPv4 address or
 * [IPv6]; PORT 80 when none; PATH "/v1/traces" when none or "/", else as
 * given): 0, or -1 with *why saying what is wrong. */
int cli_otlp_endpoint_parse(const char *url, cli_otlp_endpoint *e, const char **why);

/* Seconds to connect, and to send or wait for each part of the response. */
#define CLI_OTLP_CONNECT_SECONDS 10
#define CLI_OTLP_IO_SECONDS 30

/* POSTs body[0..len) (Content-Type: application/x-protobuf) to e: 0 when
 * the endpoint answered 2xx; else -1 with one line in err ("cannot reach
 * URL: WHY", "URL refused the spans: STATUS LINE"). */
int cli_otlp_post(const cli_otlp_endpoint *e, const uint8_t *body, size_t len, char *err,
                  size_t errcap);

typedef struct cli_otlp_opts {
    const cli_otlp_endpoint *endpoint; /* NULL: stdout */
    uint32_t max_spans;
    const cli_otlp_source *ids;        /* NULL: none */
} cli_otlp_opts;

/* clrtrace dump --otlp / --otlp-endpoint. Returns 0, or 1 after one error
 * line (a damaged trace: the spans before it are written or sent, open
 * calls closed; an endpoint that refused or could not be reached). */
int cli_dump_otlp(cli_trace *t, const cli_otlp_opts *o);

#endif
