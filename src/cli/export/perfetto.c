/* clrtrace dump --perfetto: the trace in Perfetto's native protobuf format
 * (a `Trace`: repeated TracePacket packet = 1), which ui.perfetto.dev and
 * trace_processor open. The messages and field numbers are Perfetto's
 * (protos/perfetto/trace/trace.proto, trace_packet.proto,
 * interned_data/interned_data.proto, track_event/track_event.proto,
 * track_descriptor.proto, process_descriptor.proto, thread_descriptor.proto,
 * debug_annotation.proto); tests/e2e/perfetto_subset.proto declares the
 * subset written here. The encoder is our own (pb.h, shared with --otlp);
 * no protobuf library.
 *
 * Packets, all on one sequence (trusted_packet_sequence_id 1):
 *   the process track: TrackDescriptor{uuid, process{pid, process_name =
 *     the command line}}, with SEQ_INCREMENTAL_STATE_CLEARED;
 *   per thread, at its first event (again when a THREAD record names it):
 *     TrackDescriptor{uuid, parent_uuid = the process's, thread{pid, tid,
 *     thread_name}};
 *   per call, TYPE_SLICE_BEGIN at its enter and TYPE_SLICE_END at its end on
 *     its thread's track, with SEQ_NEEDS_INCREMENTAL_STATE: the begin has
 *     name_iid, the arguments and, for a call entered under an Activity,
 *     its "trace_id" and "span_id" (cli_call_ids); the end has the return
 *     value ("return", "at return"), the exception, or tailcall/unfinished: true, all as debug
 *     annotations with the text --chrome's args have (cli_call_args).
 *     Function and annotation names are interned (InternedData event_names
 *     and debug_annotation_names), each in the packet that first uses it.
 *   per async call (trace format 2.9) that went on past its return, at its
 *     task's end: a TrackDescriptor{uuid, parent_uuid = the process's, name
 *     = the function}, and on that track a slice from the call's enter to
 *     the task's end with its result ("return") or its exception.
 * The timestamp is the header's start (Unix ns) plus the event's time since
 * the trace started (--chrome's ts, in ns), in the default trace clock.
 *
 * Each packet is written to stdout as soon as it is made, so memory grows
 * with the names (interned once) and the open calls (calls.c), not with the
 * trace; a damaged trace leaves a valid file of the packets before it. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "pb.h"
#include "cli/input/input.h"
#include "base/escape.h"

/* stdout is written in blocks of this size. */
#define PERFETTO_STDOUT_BUFFER (1 << 20)

/* Field numbers (Perfetto's protos, see above). */
enum {
    F_TRACE_PACKET = 1,             /* Trace.packet */

    F_PACKET_TIMESTAMP = 8,         /* TracePacket */
    F_PACKET_SEQUENCE_ID = 10,      /* trusted_packet_sequence_id */
    F_PACKET_TRACK_EVENT = 11,
    F_PACKET_INTERNED_DATA = 12,
    F_PACKET_SEQUENCE_FLAGS = 13,
    F_PACKET_TRACK_DESCRIPTOR = 60,

    SEQ_INCREMENTAL_STATE_CLEARED = 1,
    SEQ_NEEDS_INCREMENTAL_STATE = 2,

    F_TRACK_UUID = 1,               /* TrackDescriptor */
    F_TRACK_PROCESS = 3,
    F_TRACK_THREAD = 4,
    F_TRACK_PARENT_UUID = 5,
    F_TRACK_NAME = 2,

    F_PROCESS_PID = 1,              /* ProcessDescriptor */
    F_PROCESS_NAME = 6,

    F_THREAD_PID = 1,               /* ThreadDescriptor */
    F_THREAD_TID = 2,
    F_THREAD_NAME = 5,

    F_EVENT_DEBUG_ANNOTATIONS = 4,  /* TrackEvent */
    F_EVENT_TYPE = 9,
    F_EVENT_NAME_IID = 10,
    F_EVENT_TRACK_UUID = 11,
    TYPE_SLICE_BEGIN = 1,
    TYPE_SLICE_END = 2,
    TYPE_INSTANT = 3,               /* a line probe's hit (--at) */

    F_ANNOTATION_NAME_IID = 1,      /* DebugAnnotation */
    F_ANNOTATION_BOOL = 2,
    F_ANNOTATION_STRING = 6,

    F_INTERNED_EVENT_NAMES = 2,     /* InternedData */
    F_INTERNED_ANNOTATION_NAMES = 3,
    F_INTERNED_IID = 1,             /* EventName, DebugAnnotationName */
    F_INTERNED_NAME = 2,
};

/* Our packets' sequence. */
#define SEQUENCE_ID 1

/* ------------------------------------------------------------ interning */

/* Strings -> iids (1, 2, ...), one table per kind of name. */
typedef struct intern {
    struct slot {
        char *s;
        size_t n;
        uint64_t hash, iid;
    } *slots;
    size_t cap, count;
} intern;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The iid of s; *fresh is 1 when it was just given (the caller interns it
 * in this packet), and *copy then the table's copy of s (it lives until
 * intern_free). 0 when out of memory. */
static uint64_t intern_get(intern *t, const char *s, size_t n, int *fresh, const char **copy_)
{
    *fresh = 0;
    if (t->count * 2 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        struct slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return 0;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].s)
                continue;
            size_t j = t->slots[i].hash & (cap - 1);
            while (slots[j].s)
                j = (j + 1) & (cap - 1);
            slots[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    uint64_t h = hash_bytes(s, n);
    size_t j = h & (t->cap - 1);
    for (; t->slots[j].s; j = (j + 1) & (t->cap - 1))
        if (t->slots[j].hash == h && t->slots[j].n == n && !memcmp(t->slots[j].s, s, n))
            return t->slots[j].iid;
    char *copy = malloc(n + 1);
    if (!copy)
        return 0;
    memcpy(copy, s, n);
    copy[n] = 0;
    t->slots[j] = (struct slot){ copy, n, h, ++t->count };
    *fresh = 1;
    *copy_ = copy;
    return t->count;
}

static void intern_free(intern *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].s);
    free(t->slots);
}

/* ------------------------------------------------------------ the writer */

/* A name first used by the packet being made: interned in it. */
typedef struct fresh_name {
    int field;                /* F_INTERNED_EVENT_NAMES or _ANNOTATION_NAMES */
    uint64_t iid;
    const char *s;            /* the intern table's copy */
    size_t n;
} fresh_name;

typedef struct perfetto {
    FILE *out;
    uint32_t pid;
    uint64_t start_ns;        /* the header's start, Unix ns */
    uint64_t process_uuid;
    pb pkt;                   /* the packet being made, as field 1 of Trace */
    size_t packet_start;
    size_t event;             /* where the open TrackEvent's body starts */
    intern event_names, annotation_names;
    fresh_name *fresh;        /* names the packet being made interns */
    size_t nfresh, fresh_cap;
    /* The annotation keys of the call whose begin is being made, each ending
     * in NUL (cli_call_args's taken). */
    cli_keys keys;
    int oom;
    /* Async calls between their return and their task's end (export.h),
     * and the async tracks made so far. */
    cli_async *async;
    uint64_t async_tracks;
    char val[CHROME_ARGS_MAX + 1];
} perfetto;

/* Track uuids: the process's is 2 * pid + 2, a thread's 2 * tid + 1 (never 0,
 * the implicit global track; distinct for all the processes and threads
 * alive together, so traces of a process tree do not clash; a few bytes
 * each as varints). */
static uint64_t process_uuid(uint32_t pid)
{
    return 2 * (uint64_t)pid + 2;
}

static uint64_t thread_uuid(uint64_t tid)
{
    return 2 * tid + 1;
}

static void packet_begin(perfetto *p)
{
    p->pkt.len = 0;
    p->nfresh = 0;
    p->packet_start = pb_open(&p->pkt, F_TRACE_PACKET);
    pb_uint(&p->pkt, F_PACKET_SEQUENCE_ID, SEQUENCE_ID);
}

/* Closes the packet (with the names it interns) and writes it out: 0, or
 * -1 when out of memory (nothing written). */
static int packet_end(perfetto *p)
{
    pb *b = &p->pkt;
    if (p->nfresh) {
        size_t data = pb_open(b, F_PACKET_INTERNED_DATA);
        for (size_t i = 0; i < p->nfresh; i++) {
            const fresh_name *f = &p->fresh[i];
            size_t m = pb_open(b, (uint32_t)f->field);
            pb_uint(b, F_INTERNED_IID, f->iid);
            pb_string(b, F_INTERNED_NAME, f->s, f->n);
            pb_close(b, m);
        }
        pb_close(b, data);
    }
    pb_close(b, p->packet_start);
    if (b->oom)
        return p->oom = -1;
    fwrite(b->p, 1, b->len, p->out);
    return 0;
}

/* The iid of a name of the kind `field` interns (an event's or an
 * annotation's), interned in the packet being made when it is new. 0 when
 * out of memory. */
static uint64_t name_iid(perfetto *p, int field, const char *s, size_t n)
{
    intern *t = field == F_INTERNED_EVENT_NAMES ? &p->event_names : &p->annotation_names;
    int fresh;
    const char *copy = NULL;
    uint64_t iid = intern_get(t, s, n, &fresh, &copy);
    if (!iid || !fresh)
        return iid;
    if (p->nfresh == p->fresh_cap) {
        size_t cap = p->fresh_cap ? p->fresh_cap * 2 : 16;
        fresh_name *more = realloc(p->fresh, cap * sizeof *more);
        if (!more)
            return 0;
        p->fresh = more;
        p->fresh_cap = cap;
    }
    p->fresh[p->nfresh++] = (fresh_name){ field, iid, copy, n };
    return iid;
}

/* A TrackEvent of `type` at ts (ns since the trace started) on a track; its
 * fields follow until event_end. */
static void event_begin(perfetto *p, uint64_t ts, uint64_t track, int type)
{
    pb *b = &p->pkt;
    pb_uint(b, F_PACKET_TIMESTAMP, p->start_ns + ts);
    pb_uint(b, F_PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
    p->event = pb_open(b, F_PACKET_TRACK_EVENT);
    pb_uint(b, F_EVENT_TYPE, (uint64_t)type);
    pb_uint(b, F_EVENT_TRACK_UUID, track);
}

static void event_end(perfetto *p)
{
    pb_close(&p->pkt, p->event);
}

/* A debug annotation of the open event: key = the text value, or, with
 * val NULL, key = true. */
static int annotation(perfetto *p, const char *key, size_t klen, const char *val, size_t vlen)
{
    pb *b = &p->pkt;
    uint64_t iid = name_iid(p, F_INTERNED_ANNOTATION_NAMES, key, klen);
    if (!iid)
        return p->oom = -1;
    size_t m = pb_open(b, F_EVENT_DEBUG_ANNOTATIONS);
    pb_uint(b, F_ANNOTATION_NAME_IID, iid);
    if (val)
        pb_string(b, F_ANNOTATION_STRING, val, vlen);
    else
        pb_uint(b, F_ANNOTATION_BOOL, 1);
    pb_close(b, m);
    return b->oom ? (p->oom = -1) : 0;
}

static void thread_track(perfetto *p, uint64_t tid, const char *name)
{
    char dflt[40];
    if (!name) {
        snprintf(dflt, sizeof dflt, "thread %" PRIu64, tid);
        name = dflt;
    }
    pb *b = &p->pkt;
    packet_begin(p);
    size_t d = pb_open(b, F_PACKET_TRACK_DESCRIPTOR);
    pb_uint(b, F_TRACK_UUID, thread_uuid(tid));
    pb_uint(b, F_TRACK_PARENT_UUID, p->process_uuid);
    size_t t = pb_open(b, F_TRACK_THREAD);
    pb_uint(b, F_THREAD_PID, p->pid);
    pb_uint(b, F_THREAD_TID, tid);
    pb_string(b, F_THREAD_NAME, name, strlen(name));
    pb_close(b, t);
    pb_close(b, d);
    packet_end(p);
}

static int on_thread(void *ctx, cli_calls *w, cli_thread *t)
{
    perfetto *p = ctx;
    thread_track(p, t->tid, ct_symbols_thread_name(w->sym, t->tid));
    return p->oom;
}

/* An async call's track uuid: odd multiples of 2^40 are no process's or
 * thread's (2 * pid + 2, 2 * tid + 1 stay far below). */
static uint64_t async_uuid(uint64_t n)
{
    return (2 * n + 1) << 40;
}

/* An async call's slice, from its enter to its task's end (or its return,
 * when that came later), on a track of its own under the process's, named
 * after its function: its result ("return") or exception. */
static int async_slice(perfetto *p, const cli_async *a, uint64_t end, int faulted,
                       const char *text, size_t len)
{
    end = cli_async_last(a, end);
    uint64_t track = async_uuid(++p->async_tracks);
    pb *b = &p->pkt;
    packet_begin(p);
    size_t d = pb_open(b, F_PACKET_TRACK_DESCRIPTOR);
    pb_uint(b, F_TRACK_UUID, track);
    pb_uint(b, F_TRACK_PARENT_UUID, p->process_uuid);
    pb_string(b, F_TRACK_NAME, a->name, strlen(a->name));
    pb_close(b, d);
    if (packet_end(p))
        return -1;
    packet_begin(p);
    event_begin(p, a->start, track, TYPE_SLICE_BEGIN);
    uint64_t iid = name_iid(p, F_INTERNED_EVENT_NAMES, a->name, strlen(a->name));
    if (!iid)
        return p->oom = -1;
    pb_uint(b, F_EVENT_NAME_IID, iid);
    event_end(p);
    if (packet_end(p))
        return -1;
    packet_begin(p);
    event_begin(p, end, track, TYPE_SLICE_END);
    if (faulted ? annotation(p, "exception", 9, len ? text : NULL, len)
                : len ? annotation(p, "return", 6, text, len) : 0)
        return -1;
    event_end(p);
    return packet_end(p);
}

static int on_other(void *ctx, cli_calls *w, const ct_rec *rec)
{
    perfetto *p = ctx;
    /* A thread named after its first event: the descriptor again, named. */
    if (rec->type == CT_REC_THREAD && ct_walk_find(&w->walk, rec->tid))
        thread_track(p, rec->tid, ct_symbols_thread_name(w->sym, rec->tid));
    if (!ct_rec_is_async_end(rec->type) || p->oom)
        return p->oom;
    cli_async *a = cli_async_at(&p->async, rec->key);
    if (!a)
        return p->oom = -1;
    int faulted;
    size_t len = cli_async_end_text(w->sym, a, rec, p->val, CT_RENDER_RET_MAX, &faulted);
    if (a->state != CLI_ASYNC_RETURNED) /* its call has not returned yet */
        return cli_async_keep_end(a, rec, faulted, p->val, len) ? (p->oom = -1) : 0;
    int rc = async_slice(p, a, rec->time_ns, faulted, p->val, len);
    cli_async_clear(a);
    return rc;
}

static int key_taken(void *ctx, const char *key)
{
    return cli_keys_taken(&((const perfetto *)ctx)->keys, key);
}

static int arg_annotation(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
    perfetto *p = ctx;
    if (cli_keys_add(&p->keys, key, klen) != 0)
        return p->oom = -1;
    return annotation(p, key, klen, val, vlen);
}

static int on_enter(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *rec)
{
    perfetto *p = ctx;
    const cli_frame *f = cli_top(t);
    const char *name = f->fn->name;
    packet_begin(p);
    event_begin(p, f->start, thread_uuid(t->tid),
                (f->fn->flags & CT_FN_PROBE) ? TYPE_INSTANT : TYPE_SLICE_BEGIN);
    uint64_t iid = name_iid(p, F_INTERNED_EVENT_NAMES, name, strlen(name));
    if (!iid)
        return p->oom = -1;
    pb_uint(&p->pkt, F_EVENT_NAME_IID, iid);
    p->keys.len = 0;
    if (cli_call_args(w->sym, f->fn, rec, p->val, key_taken, arg_annotation, p) != 0 ||
        cli_call_ids(t->ids, arg_annotation, p) != 0)
        return p->oom = -1;
    if (f->fn->src_file) { /* recorded with --srcline: where the function is */
        char line[16];
        int ll = snprintf(line, sizeof line, "%u", f->fn->src_line);
        if (annotation(p, "code.file.path", 14, f->fn->src_file, strlen(f->fn->src_file)) != 0 ||
            annotation(p, "code.line.number", 16, line, (size_t)ll) != 0)
            return p->oom = -1;
    }
    event_end(p);
    return packet_end(p);
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *rec)
{
    perfetto *p = ctx;
    const cli_frame *f = cli_top(t);
    if (f->fn->flags & CT_FN_PROBE)
        return 0; /* a line probe's hit: an instant event, no end */
    packet_begin(p);
    event_begin(p, end, thread_uuid(t->tid), TYPE_SLICE_END);
    ct_text text;
    int rc = 0;
    if (how == CLI_END_RETURN) {
        ct_text_init(&text, p->val, CT_RENDER_RET_MAX);
        if (ct_symbols_return_text(w->sym, f->fn, rec, &text))
            rc |= annotation(p, "return", 6, p->val, ct_text_end(&text));
        /* out, ref and in arguments as the call returned: "v=12  x=6". */
        ct_text_init(&text, p->val, CT_RENDER_RET_MAX);
        if (ct_symbols_out_text(w->sym, f->fn, rec, &text)) {
            size_t len = ct_text_end(&text);
            rc |= annotation(p, "at return", 9, p->val + 2, len > 2 ? len - 2 : 0);
        }
    } else if (how == CLI_END_EXCEPTION && rec && rec->nvalues) {
        /* The exception as the text log shows it (true when the record does
         * not say which). */
        ct_text_init(&text, p->val, CT_RENDER_RET_MAX);
        if (ct_symbols_exception_text(w->sym, rec, &text))
            rc |= annotation(p, "exception", 9, p->val, ct_text_end(&text));
        else
            rc |= annotation(p, "exception", 9, NULL, 0);
    } else {
        static const char *const ending[] = { [CLI_END_EXCEPTION] = "exception",
                                              [CLI_END_TAILCALL] = "tailcall",
                                              [CLI_END_UNFINISHED] = "unfinished" };
        rc |= annotation(p, ending[how], strlen(ending[how]), NULL, 0);
    }
    if (f->injected) {
        const char *a = cli_injected_name(f->injected);
        rc |= annotation(p, "injected", 8, a, strlen(a));
    }
    if (rc)
        return p->oom = -1;
    event_end(p);
    if (packet_end(p))
        return -1;
    /* An async call: its own slice too, to its task's end. */
    uint64_t id = how == CLI_END_RETURN ? ct_symbols_async_id(f->fn, rec) : 0;
    cli_async *a = id ? cli_async_at(&p->async, id) : NULL;
    if (id && !a)
        return p->oom = -1;
    if (a) {
        cli_async_returned(a, f, end, t->tid);
        if (a->state == CLI_ASYNC_ENDED) {
            rc = async_slice(p, a, a->end, a->faulted, a->text, a->len);
            cli_async_clear(a);
            return rc;
        }
        a->state = CLI_ASYNC_RETURNED;
    }
    return 0;
}

struct cli_perfetto {
    perfetto p;
    cli_calls *w;
};

cli_perfetto *cli_perfetto_new(FILE *out, const ct_trace_header *h)
{
    cli_perfetto *x = calloc(1, sizeof *x);
    cli_calls_ops ops = { .thread = on_thread, .enter = on_enter, .leave = on_leave,
                          .other = on_other };
    if (!x || !(x->w = cli_calls_new(&ops, &x->p))) {
        free(x);
        return NULL;
    }
    perfetto *p = &x->p;
    p->out = out;
    p->pid = h->pid;
    p->start_ns = h->start_unix_ns;
    p->process_uuid = process_uuid(h->pid);
    /* The process's track, which clears the sequence's incremental state. */
    pb *b = &p->pkt;
    packet_begin(p);
    pb_uint(b, F_PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
    size_t d = pb_open(b, F_PACKET_TRACK_DESCRIPTOR);
    pb_uint(b, F_TRACK_UUID, p->process_uuid);
    size_t m = pb_open(b, F_TRACK_PROCESS);
    pb_uint(b, F_PROCESS_PID, h->pid);
    pb_string(b, F_PROCESS_NAME, h->cmdline, h->cmdline_len);
    pb_close(b, m);
    pb_close(b, d);
    packet_end(p);
    return x;
}

int cli_perfetto_record(void *perfetto_, const ct_rec *rec)
{
    cli_perfetto *x = perfetto_;
    if (x->p.oom)
        return -1;
    return cli_calls_record(x->w, rec) != 0 ? (x->p.oom = -1) : 0;
}

int cli_perfetto_end(cli_perfetto *x)
{
    perfetto *p = &x->p;
    cli_calls *w = x->w;
    int rc = p->oom;
    if (!rc && cli_calls_finish(w) != 0)
        rc = -1;
    if (w->too_deep)
        fprintf(stderr, "clrtrace dump: %" PRIu64 " %s deeper than %u levels left out of the "
                        "trace (their time is in their caller at that depth)\n",
                w->too_deep, w->too_deep == 1 ? "call" : "calls", CLI_CALLS_MAX_DEPTH);
    cli_calls_free(w);
    cli_async_free(p->async);
    intern_free(&p->event_names);
    intern_free(&p->annotation_names);
    free(p->pkt.p);
    free(p->fresh);
    free(p->keys.p);
    free(x);
    return rc ? -1 : 0;
}

int cli_dump_perfetto(cli_trace *t)
{
    static char obuf[PERFETTO_STDOUT_BUFFER];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    cli_perfetto *x = cli_perfetto_new(stdout, &t->reader.header);
    if (!x || x->p.oom) {
        if (x)
            cli_perfetto_end(x);
        fprintf(stderr, "clrtrace dump: out of memory\n");
        return 1;
    }
    int rc = cli_trace_each(t, "dump", cli_perfetto_record, x);
    if (cli_perfetto_end(x) != 0 && rc == 0) {
        fprintf(stderr, "clrtrace dump: out of memory\n");
        rc = 1;
    }
    if (fflush(stdout) != 0) {
        perror("clrtrace dump: stdout");
        return 1;
    }
    return rc;
}
