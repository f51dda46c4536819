/*
 * The binary trace: what the profiler's writer thread stores and what
 * `clrtrace replay/report/dump` read. The layout is specified in
 * docs/trace-format.md; this header is its C interface.
 *
 * Writing appends records to a caller-owned byte buffer (no allocation).
 * Reading walks a complete file image: every length and offset is checked,
 * and a damaged file yields an error with its byte offset, never a crash.
 */
#ifndef CLRTRACE_EVENT_H
#define CLRTRACE_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "value.h"

#define CT_TRACE_MAGIC "CLRTRACE"
/* 2.0: FUNCTION records carry the labels printed before each value, values
 * carry a status, the header a settings line, END the function counts. (1.0
 * was never written by a released profiler.) */
/* 2.1: the header ends with the parent process's pid. */
/* 2.2: plans of well-known structs (DateTime, TimeSpan, Guid, Half,
 * Int128, UInt128), spans and SIMD vectors; boxed values in OBJECT slots
 * (src/format/value.h); FUNCTION records' out mask, and the LEAVE
 * values it announces. */
/* 2.3: objects and collections by content: CLASS records may end with
 * the plan of their class's content (CLASS or SEQ), which OBJECT values
 * whose class id carries CT_CLASS_CONTENT follow; a repeated object
 * (CT_CLASS_SEEN); plans of multi-dimensional arrays, array segments and
 * memories, DateTimeOffset and Rune; arrays of any element; UNWIND records
 * may carry the exception (its object and message). */
/* 2.4: ZSTD records: a block of records compressed with zstd. */
/* 2.5: END may carry a fifth u64: traced functions the IL-probe engine left
 * as they were (not rewritten). */
/* 2.6: plans of more well-known CoreLib types (DateOnly, TimeOnly, Index,
 * Range), of inline arrays, and StringBuilder's text (SEQ shape TEXT); a 2.5
 * reader reports a FUNCTION or CLASS record that uses one as malformed.
 * UNWIND records may carry the exception's inner exceptions (its
 * InnerException chain, an AggregateException's InnerExceptions): a node
 * word after the message, then three values per inner exception. */
/* 2.7: every event carries, beside its time (now the clock since the
 * start, one clock for every thread), the time the tracer had held its
 * thread so far (ct_rec.held_ns): event records a u64 after the key, EVENTS
 * blocks a zigzag varint difference (head bit 3). Durations leave the held
 * time out (ct_rec_prog_ns); in traces before 2.7 the times are the threads'
 * program times and held_ns is 0. */
/* 2.9: an async method's logical call: a FUNCTION record flag
 * (CT_FN_ASYNC), the async call's id as the last value of its LEAVE when
 * its task was not complete, and ASYNC_RETURN / ASYNC_FAULT records when
 * that task completes; the TASK form's Exception field (value.h). 2.10: a
 * runtime-async method's call followed the same way (CT_FN_RT_ASYNC). */
#define CT_TRACE_VERSION_MAJOR 2
/* 2.11: a FUNCTION record may end with its method's source location (the
 * out mask written then even when 0): u32 line, u32 root length, the file
 * (ct_fn_src); older readers ignore it. LINE records (--srcline): the line
 * an exception left a frame at; a 2.10 reader reports the first as an
 * unknown record. */
/* 2.12: line probes (--at): a FUNCTION record with CT_FN_PROBE is a probe's
 * ("@ Orders.cs:42", its parameters the values it reads), each ENTER of it a
 * hit, its LEAVE right after; older readers show hits as calls. LOCALS
 * records (--locals): a frame's values as an exception passed through it; a
 * 2.11 reader reports the first as an unknown record. */
/* 2.13: INJECT records (--inject): a fault injected into a call; a 2.12
 * reader reports the first as an unknown record. */
/* 2.14: SEGMENT records (--max-size): a trace written as a set of segment
 * files, each starting with the header, a SEGMENT record and the
 * definitions so far; a 2.13 reader reports the first as an unknown
 * record. */
#define CT_TRACE_VERSION_MINOR 14
/* The first minor whose events carry the held time. */
#define CT_TRACE_MINOR_HELD 7

/* Largest payload of one record; longer records are rejected by the reader. */
#define CT_MAX_RECORD (16u * 1024 * 1024)
/* Most parameters a FUNCTION record may describe (plus `this` and return). */
#define CT_MAX_PARAMS 4096
/* Most nodes in one serialized capture plan, and its nesting depth. */
#define CT_MAX_PLAN_NODES 4096
#define CT_MAX_PLAN_DEPTH (CT_MAX_VALUE_DEPTH + 2)
/* Longest string (name, signature, command line) in a record. */
#define CT_MAX_STRING 65536
/* Most bytes of records one ZSTD record may hold once decompressed (the
 * reader allocates this much at most; the profiler's writer compresses
 * blocks of at most 1 MiB). */
#define CT_MAX_ZBLOCK (8u * 1024 * 1024)
/* The zstd level the profiler's writer compresses with (docs/performance.md:
 * level 3 compresses the compiler's trace 4% better but costs the writer a
 * fifth more time per byte). */
#define CT_ZSTD_LEVEL 2

typedef enum ct_rec_type {
    CT_REC_FUNCTION = 1, /* a function was mapped: names and capture plans */
    CT_REC_THREAD = 2,   /* a thread got a name */
    CT_REC_ENTER = 3,
    CT_REC_LEAVE = 4,
    CT_REC_TAILCALL = 5,
    CT_REC_UNWIND = 6,   /* a frame left by an exception */
    CT_REC_DROPPED = 7,  /* events lost on a thread (lossy mode) */
    CT_REC_CLASS = 8,    /* a class id's display name */
    CT_REC_END = 9,      /* the process ended; totals */
    CT_REC_EVENTS = 10,  /* a block of one thread's events, compactly encoded (files
                            only; the reader hands out its events one by one, as
                            ENTER/LEAVE/TAILCALL/UNWIND) */
    CT_REC_HELD = 11,    /* (2.3) how long the tracer held a thread: time its
                            hooks spent capturing values and waiting for
                            buffer room, left out of every event time */
    CT_REC_JIT = 12,     /* (2.3) JIT compilation: of one traced function (key),
                            or the process's total (key 0); left out of every
                            event time */
    CT_REC_ZSTD = 13,    /* (2.4) records compressed with zstd (files only; the
                            reader hands out the records inside, never this one) */
    CT_REC_BUDGET = 14,  /* (2.8) the budget changed a function's step, or calls
                            of it were left out (the budget, --limit, --rate) */
    CT_REC_ACTIVITY = 15,/* (2.8) the Activity current on a thread changed: its
                            W3C trace id and span id (all zero: none) apply to
                            the thread's calls entered after it */
    CT_REC_ASYNC_RETURN = 16, /* (2.9) the task of an async call (key: its id,
                            the last value of the call's LEAVE) ran to
                            completion: the task's class id, then its result */
    CT_REC_ASYNC_FAULT = 17, /* (2.9) that task faulted or was cancelled: the
                            exception, as an UNWIND carries it */
    CT_REC_LINE = 18,    /* (2.11, --srcline) the source line a frame of function
                            key was at when an exception left it: its thread's
                            next UNWIND of that function is that frame's */
    CT_REC_LOCALS = 19,  /* (2.12, --locals) a frame's arguments and locals as an
                            exception passed through it (the first pass, before any
                            finally ran): an event-shaped record whose key is its
                            locals record (a FUNCTION record with CT_FN_LOCALS: the
                            labels and plans), value 0 the key of the function whose
                            frame it is and the frame's id (2 u64: a later LOCALS of
                            the same thread, function and id replaces it: the same
                            frame, left by an exception its finally threw), then the
                            values (none at all: they did not fit, the record says
                            nothing); its thread's next UNWIND of that function is
                            that frame's */
    CT_REC_INJECT = 20,  /* (2.13, --inject) the call of function key its thread just
                            entered (its innermost open frame of that function) had a
                            fault injected: u32 the --inject's number (from 0), u32 the
                            action (CT_INJECT_THROW, RETURN, DELAY: format/inject_spec.h) */
    CT_REC_SEGMENT = 21, /* (2.14, --max-size) the start of segment file `key` (from
                            0) of a trace cut into segments: time_ns when it was
                            begun, count the bytes of the segments before it (those a
                            reader may not have: the oldest are deleted) */
    CT_REC_TYPE_COUNT
} ct_rec_type;

typedef enum ct_trace_status {
    CT_TRACE_OK = 0,
    CT_TRACE_E_MAGIC,      /* not a clrtrace file */
    CT_TRACE_E_VERSION,    /* a major version this reader does not know */
    CT_TRACE_E_TRUNCATED,  /* a record runs past the end of the file */
    CT_TRACE_E_RECORD,     /* a record's contents do not parse */
    CT_TRACE_E_LIMIT,      /* a count or length above its named limit */
    CT_TRACE_E_NOMEM,      /* the caller's arena is exhausted */
    CT_TRACE_E_SPACE,      /* the writer's buffer is too small */
} ct_trace_status;

const char *ct_trace_strerror(ct_trace_status st);

/* ------------------------------------------------------------- the header */

typedef struct ct_trace_header {
    uint16_t major, minor;
    uint32_t pid;
    uint32_t ppid;            /* the parent process (0 in traces before 2.1) */
    uint64_t start_unix_ns;   /* wall clock at start */
    const char *cmdline;      /* points into the file image when read */
    uint32_t cmdline_len;
    const char *filter;       /* description of the filter in force */
    uint32_t filter_len;
    const char *settings;     /* runtime and limits: "CoreCLR 10.0.12, ..., structs 4 levels" */
    uint32_t settings_len;
} ct_trace_header;

/* The settings text a trace of a process clrtrace attached to ends with
 * (`clrtrace run|record -p PID`): its start is the attach, its end the
 * detach, and the END record's "mapped" count is the methods rewritten. */
#define CT_SETTINGS_ATTACHED ", attached"

/* Whether h is such a trace. */
int ct_header_attached(const ct_trace_header *h);

/* The engine that recorded the trace, from its settings: "il" (", engine
 * il", or "IL probes" before 2.9's writers), "elt" (", engine elt", or any
 * other settings text), NULL without settings. */
const char *ct_header_engine(const ct_trace_header *h);

/* ----------------------------------------------------------- the records */

/* The W3C ids an ACTIVITY record carries (docs/trace-format.md). */
#define CT_TRACE_ID_BYTES 16
#define CT_SPAN_ID_BYTES 8
#define CT_ACTIVITY_ID_BYTES (CT_TRACE_ID_BYTES + CT_SPAN_ID_BYTES)

typedef struct ct_fn_param {
    const char *name;         /* the label printed before the value: "double k=",
                                 "this=", or for the return value "double " */
    uint32_t name_len;
    const ct_plan *plan;
} ct_fn_param;

typedef struct ct_rec {
    ct_rec_type type;
    uint64_t offset;          /* where the record starts in the file */
    uint64_t time_ns;         /* since the trace started (events; before 2.7, the
                                 thread's program time: the held time left out) */
    uint64_t held_ns;         /* events (2.7): ns the tracer had held the thread
                                 so far (its hooks' capture, waits for buffer
                                 room, JIT compilation); 0 before 2.7 */
    uint64_t tid;             /* OS thread id (events, THREAD, DROPPED) */
    uint64_t key;             /* FUNCTION/ENTER/LEAVE/TAILCALL/UNWIND: function key;
                                 CLASS: class id */
    /* FUNCTION */
    const char *name;         /* "Demo.Shapes.Scale"; CLASS/THREAD: the name */
    uint32_t name_len;
    const char *sig;          /* C#-style signature text */
    uint32_t sig_len;
    uint32_t flags;           /* FUNCTION: CT_FN_* */
    uint32_t nparams;         /* FUNCTION: parameters including `this` */
    ct_fn_param *params;      /* FUNCTION: nparams entries */
    ct_fn_param ret;          /* FUNCTION: the return plan (kind VOID for void) */
    uint64_t out_mask;        /* FUNCTION (2.2): bit i set when parameter i's target
                                 (out, ref, in) is captured again at return: the
                                 LEAVE records carry one value for each, in order,
                                 after the return value (a MISSING one when it was
                                 not read again) */
    const char *src_file;     /* FUNCTION (2.11): the method's source file (a path as
                                 its PDB names it), NULL when none */
    uint32_t src_file_len;
    uint32_t src_line;        /* its first line (its first visible sequence point) */
    uint32_t src_root;        /* bytes of src_file that are its module's common source
                                 folder, with its '/' (shown without them) */
    /* ENTER: the raw values, one per parameter; LEAVE: one (the return);
       UNWIND: the exception (ct_unwind_plan) */
    uint32_t nvalues;
    const uint8_t *values;    /* nvalues × (u32 status/length word, bytes) */
    size_t values_len;
    /* CLASS (2.3): the plan of the class's content, or NULL */
    const ct_plan *content;
    /* DROPPED / END; HELD: the nanoseconds; ZSTD: the bytes of records it
       holds (values, values_len: the compressed frame) */
    uint64_t count;
    /* END: functions the runtime mapped, and those traced; (2.5) traced
       functions the IL engine did not rewrite (0 when the record has none) */
    uint64_t mapped, traced, unrewritten;
    /* BUDGET (2.8): time_ns, key, tid (the thread over the budget; 0: none),
       count (the function's calls left out so far, every thread), its step
       (ct_budget_step's numbers) and the thread's share of time the tracer
       took in the second that went over, in thousandths (0: none) */
    uint32_t step, share_permille;
    /* INJECT (2.13): time_ns, tid, key, and the --inject's number and action */
    uint32_t inject_index, inject_action;
    /* ACTIVITY (2.8): time_ns, tid, and the W3C ids of the Activity current
       on the thread from then on (all zero: none) */
    uint8_t trace_id[CT_TRACE_ID_BYTES];
    uint8_t span_id[CT_SPAN_ID_BYTES];
} ct_rec;

/* An event's program time: its time less the time the tracer had held its
 * thread, the clock durations are measured by (the difference of two
 * events' program times leaves out what the tracer held between them). */
static inline uint64_t ct_rec_prog_ns(const ct_rec *r)
{
    return r->time_ns > r->held_ns ? r->time_ns - r->held_ns : 0;
}

/* ENTER, LEAVE, TAILCALL or UNWIND: a record of a call's start or end. */
static inline int ct_rec_is_event(ct_rec_type type)
{
    return type == CT_REC_ENTER || type == CT_REC_LEAVE || type == CT_REC_TAILCALL ||
           type == CT_REC_UNWIND;
}

enum {
    CT_FN_HAS_THIS = 1,
    CT_FN_STATIC = 2,
    CT_FN_NO_VALUES = 4,      /* values are not captured: calls read "Name(...)" */
    CT_FN_ASYNC = 8,          /* (2.9) an async method (its task is followed): a
                                 LEAVE that carries one value more than its return
                                 value and out values ends with the async call's id
                                 (a U8 value): the call goes on until an
                                 ASYNC_RETURN or ASYNC_FAULT record of that id */
    CT_FN_RT_ASYNC = 16,      /* (2.10) with CT_FN_ASYNC: a runtime-async method
                                 (.NET 11): its return value is its task's T (none
                                 for a Task or ValueTask); a LEAVE with its async
                                 call's id has no return value (a missing value in
                                 its place), and its call's ASYNC_RETURN has 0 for
                                 the task's class, then the result by the
                                 function's return plan */
    CT_FN_LOCALS = 64,        /* (2.12) with CT_FN_PROBE: a function's locals record
                                 (--locals), named "locals of NAME": its parameters are
                                 the arguments and locals its LOCALS records carry */
    CT_FN_PROBE = 32,         /* (2.12) a line probe (--at): each call of it is a hit
                                 of the line in its name, its values those of `this`,
                                 the arguments and the locals there; its LEAVE has no
                                 values and follows its ENTER at once */
};

/* ASYNC_RETURN or ASYNC_FAULT: the end of an async call (docs/trace-format.md). */
static inline int ct_rec_is_async_end(ct_rec_type type)
{
    return type == CT_REC_ASYNC_RETURN || type == CT_REC_ASYNC_FAULT;
}

/* A record shaped as an event (time, thread, key, held time, values) that
 * is no call's start or end: ASYNC_RETURN, ASYNC_FAULT, LOCALS. */
static inline int ct_rec_is_event_shaped(ct_rec_type type)
{
    return ct_rec_is_async_end(type) || type == CT_REC_LOCALS;
}

/* Each value of an ENTER/LEAVE record is a u32 word, then the bytes: the low
 * 28 bits are the length, the high 4 bits say what the bytes are. */
#define CT_VALUE_LEN_MASK 0x0FFFFFFFu
#define CT_VALUE_STATUS_SHIFT 28
typedef enum ct_value_status {
    CT_VALUE_PLAN = 0,      /* the plan's raw encoding (src/format/value.h) */
    CT_VALUE_RANGE = 1,     /* the first bytes of the argument range (no plan fits) */
    CT_VALUE_TOO_LARGE = 2, /* did not fit even with smaller limits (no bytes) */
    CT_VALUE_MISSING = 3,   /* the runtime gave no range (no bytes) */
    CT_VALUE_ADDRESS = 4,   /* a byref whose target was not read: its u64 address */
    CT_VALUE_STATUS_MAX = CT_VALUE_ADDRESS
} ct_value_status;

/* Iterates a raw-values blob of an ENTER/LEAVE record: returns 1 and the next
 * value's bytes (and its status when status is not NULL), 0 at the end, -1
 * when damaged. *pos starts at 0. */
int ct_next_value(const ct_rec *r, size_t *pos, const uint8_t **value, uint32_t *len,
                  ct_value_status *status);

/* The values of an UNWIND record (docs/trace-format.md; none in traces of
 * 2.2 and before, nor when the profiler did not learn the exception): value 0
 * is the exception object (OBJECT plan: u64 address, u64 class id, the class
 * named by a CLASS record), value 1 its Exception._message (STRING plan:
 * address 0 when the field is null). The plan of UNWIND value i, or NULL past
 * the last. */
#define CT_UNWIND_VALUES 2
/* Since 2.6 (docs/trace-format.md, "The values of UNWIND"): value 2 is the
 * exception's node word (U4 plan), and each inner exception follows as
 * three values, in the same order: its object, its _message, its node
 * word; the exceptions in preorder (an exception, then its inner
 * exceptions). The node word: */
#define CT_UNWIND_NODE_VALUES 3
#define CT_EXC_NODE_DEPTH_MASK 0xFFu    /* bits 0-7: depth (0: the thrown exception) */
#define CT_EXC_NODE_AGGREGATE 0x100u    /* bit 8: an AggregateException (or derived):
                                           its inner exceptions are InnerExceptions,
                                           its Message is built from theirs */
#define CT_EXC_NODE_INNER_SHIFT 16      /* bits 16-31: the inner exceptions it has
                                           (at most 0xFFFF), recorded or not */
#define CT_EXC_NODE_INNER_MAX 0xFFFFu
/* Most inner exceptions a reader takes from one UNWIND record (more is a
 * damaged chain). */
#define CT_UNWIND_CHAIN_MAX 64
const ct_plan *ct_unwind_plan(uint32_t i);

/* One exception of an UNWIND record's chain (ct_unwind_chain). */
typedef struct ct_exc_node {
    uint64_t object, class_id;      /* the exception (a CLASS record names the class) */
    const uint8_t *message;         /* its _message value (STRING plan) when message_status
                                       is CT_VALUE_PLAN, else not read (NULL) */
    uint32_t message_len;
    ct_value_status message_status;
    uint32_t depth;                 /* 0: the thrown exception; 1: its inner exceptions... */
    int aggregate;                  /* CT_EXC_NODE_AGGREGATE */
    uint32_t inner;                 /* the inner exceptions it has */
    uint32_t kept;                  /* of those, how many the record carries (the nodes
                                       of depth + 1 that follow it) */
} ct_exc_node;

/* The exceptions an UNWIND (or ASYNC_FAULT) record carries, into nodes[0..*n) (cap at
 * least 1; CT_UNWIND_CHAIN_MAX + 1 takes any chain a reader accepts):
 * returns 1 with the thrown exception at nodes[0] and its inner
 * exceptions in preorder after it (none in traces before 2.6); 0 when the
 * record carries no exception; -1 when the chain is damaged (nodes[0] and
 * *n = 1 are still the thrown exception's: a reader shows it, then that
 * the rest is damaged). */
int ct_unwind_chain(const ct_rec *r, ct_exc_node *nodes, uint32_t cap, uint32_t *n);

/* ----------------------------------------------------------------- writing */

typedef struct ct_wbuf {
    uint8_t *p;
    size_t cap, len;
    int overflow;      /* set when something did not fit; nothing partial is kept */
} ct_wbuf;

void ct_wbuf_init(ct_wbuf *w, void *mem, size_t cap);

/* Each writer appends one whole record, padded with zero bytes to a
 * multiple of 8, or, when it does not fit, nothing (and returns
 * CT_TRACE_E_SPACE). The header is padded the same way, so in a buffer that
 * starts at a file offset that is a multiple of 8, every record does too. */
ct_trace_status ct_write_header(ct_wbuf *w, uint32_t pid, uint32_t ppid, uint64_t start_unix_ns,
                                const char *cmdline, const char *filter, const char *settings);
/* A FUNCTION record. params[i].name and ret->name are the labels
 * (NUL-terminated; name_len is not read). ret NULL: void. out_mask: the
 * parameters re-read at return (ct_rec.out_mask), 0 for none. */
ct_trace_status ct_write_function_outs(ct_wbuf *w, uint64_t key, const char *name,
                                       const char *sig, uint32_t flags, uint32_t nparams,
                                       const ct_fn_param *params, const ct_fn_param *ret,
                                       uint64_t out_mask);
/* A FUNCTION record's source location (2.11): file NULL for none. */
typedef struct ct_fn_src {
    const char *file;
    uint32_t line;
    uint32_t root;      /* bytes of file that are the common source folder */
} ct_fn_src;
/* The same with the source location (src NULL or src->file NULL: none). */
ct_trace_status ct_write_function_src(ct_wbuf *w, uint64_t key, const char *name, const char *sig,
                                      uint32_t flags, uint32_t nparams, const ct_fn_param *params,
                                      const ct_fn_param *ret, uint64_t out_mask,
                                      const ct_fn_src *src);
ct_trace_status ct_write_thread(ct_wbuf *w, uint64_t tid, const char *name);
ct_trace_status ct_write_class(ct_wbuf *w, uint64_t class_id, const char *name);
/* The same with the plan of the class's content (NULL: none). */
ct_trace_status ct_write_class_content(ct_wbuf *w, uint64_t class_id, const char *name,
                                       const ct_plan *content);
ct_trace_status ct_write_dropped(ct_wbuf *w, uint64_t tid, uint64_t count);
/* A BUDGET record (ct_rec's fields). */
ct_trace_status ct_write_budget(ct_wbuf *w, uint64_t time_ns, uint64_t key, uint64_t tid,
                                uint64_t skipped, uint32_t step, uint32_t share_permille);
/* The budget's steps as a BUDGET record numbers them. */
enum {
    CT_BUDGET_REC_FULL = 0,      /* recorded as the options say */
    CT_BUDGET_REC_NO_VALUES = 1, /* without values */
    CT_BUDGET_REC_SAMPLED = 2,   /* one call in 16 per thread, without values */
    CT_BUDGET_REC_UNTRACED = 3,  /* not recorded */
    CT_BUDGET_REC_STEP_MAX = CT_BUDGET_REC_UNTRACED
};
/* A LINE record's flags. */
#define CT_LINE_THROWN 1u /* the frame the exception came out of first (of those traced) */
/* A LINE record: the frame of function key on thread tid was at source line
 * `line` (of the function's file) when the exception of its next UNWIND
 * left it. ct_rec: time_ns, tid, key, src_line, flags. */
ct_trace_status ct_write_line(ct_wbuf *w, uint64_t time_ns, uint64_t tid, uint64_t key,
                              uint32_t line, uint32_t flags);
/* In a thread's ring, a LINE is an event-shaped record: the header (type
 * CT_REC_LINE, the function's key, no values), then u32 line, u32 flags. */
#define CT_LINE_RING_BYTES (CT_EVENT_BASE_BYTES + 8)

/* An INJECT record: on thread tid, the call of function key just entered
 * had the fault of --inject number `index` (action: CT_INJECT_*) injected. */
ct_trace_status ct_write_inject(ct_wbuf *w, uint64_t time_ns, uint64_t tid, uint64_t key,
                                uint32_t index, uint32_t action);
/* In a thread's ring: the header (type CT_REC_INJECT, the function's key,
 * no values), then u32 index, u32 action. */
#define CT_INJECT_RING_BYTES (CT_EVENT_BASE_BYTES + 8)

/* A SEGMENT record: this file is segment `index` of the trace (--max-size),
 * begun at time_ns, after bytes_before bytes of earlier segments. ct_rec:
 * key, time_ns, count. */
ct_trace_status ct_write_segment(ct_wbuf *w, uint64_t time_ns, uint64_t index,
                                 uint64_t bytes_before);

/* An ACTIVITY record: from time_ns on, thread tid's calls are made under
 * the Activity whose ids are trace_id (16 bytes) and span_id (8 bytes);
 * both all zero: under none. */
ct_trace_status ct_write_activity(ct_wbuf *w, uint64_t time_ns, uint64_t tid,
                                  const uint8_t *trace_id, const uint8_t *span_id);
/* 1 when the ids (CT_ACTIVITY_ID_BYTES: trace id then span id) are all zero. */
int ct_activity_none(const uint8_t *ids);
/* "4bf92f3577b34da6a3ce929d0e0e4736" (32 lowercase hex digits and a NUL)
 * into out; and the inverse: 0 and the 16 bytes, or -1 when text is not 32
 * hex digits (either case). */
void ct_trace_id_text(const uint8_t *trace_id, char out[2 * CT_TRACE_ID_BYTES + 1]);
void ct_span_id_text(const uint8_t *span_id, char out[2 * CT_SPAN_ID_BYTES + 1]);
int ct_trace_id_parse(const char *text, uint8_t trace_id[CT_TRACE_ID_BYTES]);

/* ns more nanoseconds the tracer held thread tid (since its last HELD). */
ct_trace_status ct_write_held(ct_wbuf *w, uint64_t tid, uint64_t ns);
/* count JIT compilations that took ns: of function key (count 1) on thread
 * tid, or with key 0 the process's total (tid 0) (ct_rec: key, count, tid,
 * time_ns holds ns; tid is 0 in traces before 2.4). */
ct_trace_status ct_write_jit(ct_wbuf *w, uint64_t key, uint64_t count, uint64_t ns,
                             uint64_t tid);
/* The END record, with the count of traced functions left as they were
 * (2.5; the record is the 2.4 one when unrewritten is 0). */
ct_trace_status ct_write_end_unrewritten(ct_wbuf *w, uint64_t time_ns, uint64_t events,
                                         uint64_t mapped, uint64_t traced,
                                         uint64_t unrewritten);
/* A ZSTD record holding records[0..len) (whole records, as written into a
 * buffer that started at a multiple of 8), compressed at CT_ZSTD_LEVEL
 * into one zstd frame with its checksum, with cctx (ZSTD_createCCtx;
 * reused from block to block). CT_TRACE_E_SPACE
 * when the record would not be smaller than the records themselves or does
 * not fit (write them as they are then); CT_TRACE_E_LIMIT when len is above
 * CT_MAX_ZBLOCK. */
struct ZSTD_CCtx_s;
ct_trace_status ct_write_zstd(ct_wbuf *w, const uint8_t *records, size_t len,
                              struct ZSTD_CCtx_s *cctx);

/* The same record made a piece at a time, so that a writer can do other
 * work between the pieces (the profiler's writer drains the rings): begin,
 * then steps until one returns 0. records[0..len) must stay as they are
 * until then, and w be used for nothing else. */
typedef struct ct_zstd_job {
    const uint8_t *records;
    size_t len, done;        /* input bytes, and those handed to zstd */
    size_t undo, at, out_end; /* w->len before the record, its start, the output's limit */
    struct ZSTD_CCtx_s *cctx;
} ct_zstd_job;

/* Begins the ZSTD record of records[0..len) in w: CT_TRACE_OK, or (nothing
 * written) CT_TRACE_E_LIMIT above CT_MAX_ZBLOCK, CT_TRACE_E_SPACE when w
 * has no room for a record smaller than the records. */
ct_trace_status ct_zstd_begin(ct_wbuf *w, ct_zstd_job *j, const uint8_t *records, size_t len,
                              struct ZSTD_CCtx_s *cctx);
/* Compresses up to `piece` more input bytes: 1 while input is left; 0 when
 * the job is over, *st then being CT_TRACE_OK (the record is whole in w) or
 * CT_TRACE_E_SPACE (it would not be smaller than the records: w is as before
 * ct_zstd_begin, write the records as they are). */
int ct_zstd_step(ct_wbuf *w, ct_zstd_job *j, size_t piece, ct_trace_status *st);

/* Events are written in two steps so the hook can capture values straight
 * into the buffer: begin reserves the header, each value is appended with
 * ct_event_value (length-prefixed), and ct_event_end patches the lengths. */
typedef struct ct_event_mark {
    size_t start;
    uint32_t nvalues;
} ct_event_mark;

ct_trace_status ct_event_begin(ct_wbuf *w, ct_rec_type type, uint64_t time_ns, uint64_t held_ns,
                               uint64_t tid, uint64_t key, ct_event_mark *m);
/* Returns where `cap` bytes of value may be written; commit with the length
 * actually used. NULL when the buffer is full. */
uint8_t *ct_event_value_reserve(ct_wbuf *w, size_t cap);
void ct_event_value_commit(ct_wbuf *w, ct_event_mark *m, size_t used);
/* The same with a status other than CT_VALUE_PLAN. */
void ct_event_value_commit_status(ct_wbuf *w, ct_event_mark *m, size_t used,
                                  ct_value_status status);
/* Rewrites the event's time and held time (the profiler stamps ENTER after
 * capturing). */
void ct_event_set_time(ct_wbuf *w, const ct_event_mark *m, uint64_t time_ns, uint64_t held_ns);
ct_trace_status ct_event_end(ct_wbuf *w, ct_event_mark *m);

/* EVENTS blocks: one thread's events, each a head byte (kind, has-values,
 * has-held), zigzag varints of the time and key differences from the
 * previous event, (2.7) of the held time's when not 0, and the values
 * (docs/trace-format.md). The writer appends events while they fit, then
 * ends the block. */
typedef struct ct_events_mark {
    size_t start;             /* where the record starts; 0 len: no block open */
    uint64_t tid, time, key;  /* the thread; the previous event's time and key */
    uint64_t held;            /* the previous event's held time (0 at the start) */
    int open;
} ct_events_mark;

ct_trace_status ct_events_begin(ct_wbuf *w, uint64_t tid, uint64_t base_time, uint64_t base_key,
                                ct_events_mark *m);
/* One event (type ENTER..UNWIND; values: nvalues x (u32 word, bytes) as in
 * an event record). CT_TRACE_E_SPACE when it does not fit, or when held_ns
 * is below the previous event's (a block's held times never go back): end
 * the block and begin another. */
ct_trace_status ct_events_add(ct_wbuf *w, ct_events_mark *m, ct_rec_type type, uint64_t time_ns,
                              uint64_t held_ns, uint64_t key, uint32_t nvalues,
                              const uint8_t *values, size_t values_len);
ct_trace_status ct_events_end(ct_wbuf *w, ct_events_mark *m);
/* The most bytes one event takes in a block, with values_len bytes of values. */
#define CT_EVENTS_MAX_OVERHEAD (1 + 10 + 10 + 10 + 10 + 10)

/* ------------------------------------------------ an event record's header
 *
 * An ENTER, LEAVE, TAILCALL or UNWIND record starts with this header
 * (little-endian), then its values: the one layout that ct_event_begin,
 * the profiler's recorder (which writes it straight into its ring) and the
 * profiler's writer (which reads it back from the ring) share. */
#define CT_EVENT_TYPE_AT 0    /* u8 ct_rec_type */
#define CT_EVENT_MARK_AT 1    /* u8: 0 in a file; in a ring, the producer's mark */
#define CT_EVENT_NVALUES_AT 2 /* u16 values */
#define CT_EVENT_LEN_AT 4     /* u32 payload length: the record less these 8 bytes */
#define CT_EVENT_TIME_AT 8    /* u64 time, ns */
#define CT_EVENT_TID_AT 16    /* u64 OS thread id */
#define CT_EVENT_KEY_AT 24    /* u64 function key */
#define CT_EVENT_HELD_AT 32   /* (2.7) u64 ns the tracer had held the thread */
/* Bytes of an event record with no values: the smallest record (a
 * multiple of 8, so it needs no padding); its values start here. (In
 * traces before 2.7 there is no held time: the values start at 32.) */
#define CT_EVENT_BASE_BYTES (8 + 32)
#define CT_EVENT_BASE_BYTES_2_6 (8 + 24)

/* In a thread's ring (not in a file), an ACTIVITY change is an event-shaped
 * record: the header above (type CT_REC_ACTIVITY, key 0, no values) and the
 * ids (trace id, then span id) at CT_EVENT_BASE_BYTES; the profiler's
 * writer stores it as an ACTIVITY record (ct_write_activity). */
#define CT_ACTIVITY_RING_BYTES (CT_EVENT_BASE_BYTES + CT_ACTIVITY_ID_BYTES)

/* In a thread's ring only (never in a file): the thread's next end event
 * (LEAVE, TAILCALL or UNWIND) ends a call whose condition deciding at its
 * end (--when on return, exception or an out argument) does not hold. An
 * event-shaped record of this type with the call's key and no values; the
 * profiler's writer hides the call (ct_filter_reject). */
#define CT_RING_REJECT 0x40u
/* In a thread's ring only: the thread's next end, a LEAVE of function key
 * (an async method's call, its condition at the end deciding on its task's
 * result: --when return or exception), carries the async call's id as its
 * last value, and is decided later: CT_RING_ASYNC_KEEP or _DROP (key: that
 * id), from the thread that ends the call, before its ASYNC end record. */
#define CT_RING_DEFER 0x41u
#define CT_RING_ASYNC_KEEP 0x42u
#define CT_RING_ASYNC_DROP 0x43u
/* In a thread's ring only: the end of a runtime-async call in a part of it
 * the runtime resumed (record/rtasync.c): key the async call's id, values
 * the function's record (a u64, the profiler's own) and the result by its
 * return plan; the writer turns it into an ASYNC_RETURN whose first value
 * (the task's class) is 0. */
#define CT_RING_RT_RETURN 0x44u

/* The header of an event record with no values (yet) at p: type, mark 0,
 * no values, payload length CT_EVENT_BASE_BYTES - 8, time, thread, key,
 * held time. */
static inline void ct_event_put_header(uint8_t *p, ct_rec_type type, uint64_t time_ns,
                                       uint64_t held_ns, uint64_t tid, uint64_t key)
{
    uint64_t word0 = (uint64_t)(uint8_t)type | (uint64_t)(CT_EVENT_BASE_BYTES - 8) << 32;
    ct_put_le64(p, word0);
    ct_put_le64(p + CT_EVENT_TIME_AT, time_ns);
    ct_put_le64(p + CT_EVENT_TID_AT, tid);
    ct_put_le64(p + CT_EVENT_KEY_AT, key);
    ct_put_le64(p + CT_EVENT_HELD_AT, held_ns);
}

/* The count of values and the payload length of the event record at p. */
static inline void ct_event_put_counts(uint8_t *p, uint32_t nvalues, uint32_t payload_len)
{
    p[CT_EVENT_NVALUES_AT] = (uint8_t)nvalues;
    p[CT_EVENT_NVALUES_AT + 1] = (uint8_t)(nvalues >> 8);
    ct_put_le32(p + CT_EVENT_LEN_AT, payload_len);
}

static inline ct_rec_type ct_event_type(const uint8_t *p)
{
    return (ct_rec_type)p[CT_EVENT_TYPE_AT];
}

static inline uint32_t ct_event_nvalues(const uint8_t *p)
{
    return ct_get_le16(p + CT_EVENT_NVALUES_AT);
}

static inline uint32_t ct_event_payload_len(const uint8_t *p)
{
    return ct_get_le32(p + CT_EVENT_LEN_AT);
}

static inline uint64_t ct_event_time(const uint8_t *p)
{
    return ct_get_le64(p + CT_EVENT_TIME_AT);
}

static inline uint64_t ct_event_tid(const uint8_t *p)
{
    return ct_get_le64(p + CT_EVENT_TID_AT);
}

static inline uint64_t ct_event_key(const uint8_t *p)
{
    return ct_get_le64(p + CT_EVENT_KEY_AT);
}

static inline uint64_t ct_event_held(const uint8_t *p)
{
    return ct_get_le64(p + CT_EVENT_HELD_AT);
}

/* ----------------------------------------------------------------- reading */

/* Memory for decoded plans and parameter arrays (caller-owned, reusable). */
typedef struct ct_rarena {
    uint8_t *base;
    size_t cap, used;
} ct_rarena;

typedef struct ct_reader {
    const uint8_t *data;
    size_t len, pos;          /* the file image, and where the next record starts */
    ct_trace_header header;
    ct_rarena *arena;         /* FUNCTION records' plans are allocated here */
    ct_trace_status error;
    uint64_t error_offset;    /* in the record stream (ct_rec.offset) */
    int error_in_zstd;        /* the error is inside the ZSTD record at error_zstd_at */
    uint64_t error_zstd_at;   /* (a file offset) */
    /* Inside an EVENTS block: where its bytes are (the file, or a
     * decompressed block) and the stream offset of blk_data[0], the next
     * event, the block's end, the thread, the previous event's time and key. */
    int in_block;
    const uint8_t *blk_data;
    uint64_t blk_base;
    size_t blk_pos, blk_end;
    uint64_t blk_tid, blk_time, blk_key, blk_held;
    /* The trace is older than 2.7: event records without the held time. */
    int before_held;
    /* Inside a ZSTD record: its records decompressed in z[0..zlen) (z is
     * the reader's, zcap bytes, freed by ct_reader_close), the next one at
     * zpos; z_at is the ZSTD record's file offset, z_base the stream offset
     * of z[0]. shift: stream offset minus file offset after the ZSTD
     * records read so far. */
    int in_zstd;
    uint8_t *z;
    size_t zcap, zlen, zpos;
    uint64_t z_at, z_base;
    uint64_t shift;
    void *dctx;
    uint64_t zstd_records;    /* ZSTD records read so far */
    /* The END record was read. At the end of the file without it, the trace
     * is incomplete: the process was killed or crashed (or is still
     * running) and cut_offset is where the readable part ends. */
    int ended;
    int incomplete;
    uint64_t cut_offset;
} ct_reader;

/* The file's first bytes, enough to learn the header's size. */
#define CT_TRACE_PREFIX_BYTES 16
/* Largest header the format allows: three strings and the fixed fields. */
#define CT_MAX_HEADER (CT_TRACE_PREFIX_BYTES + 3 * (4 + CT_MAX_STRING) + 32)

/* From a file's first CT_TRACE_PREFIX_BYTES bytes: how many bytes the
 * header takes with its padding (what ct_reader_open needs to read the
 * header alone), or 0 when data does not start a trace of a known major
 * version or declares a header above CT_MAX_HEADER. */
size_t ct_header_bytes(const uint8_t *data, size_t len);

/* Reads the header. Offsets (ct_rec.offset, error_offset) are in the
 * record stream: the file with each ZSTD record replaced by the records it
 * holds (the file offset itself in a trace without ZSTD records). */
ct_trace_status ct_reader_open(ct_reader *r, const uint8_t *data, size_t len, ct_rarena *arena);
/* Frees what the reader allocated for ZSTD records (at most
 * CT_MAX_ZBLOCK bytes and a zstd context); the reader may not be used
 * after. Records read before point into that memory: read them first. */
void ct_reader_close(ct_reader *r);
/* The next record: 1 and *rec, 0 at the end of what can be read, -1 on
 * error (r->error, r->error_offset). A file that ends without its END
 * record, or with less than one whole record left (a writer stopped in the
 * middle of it), ends with 0 too, and r->incomplete is set with
 * r->cut_offset (a file offset): everything before stands. A damaged
 * record is an error. Plans of FUNCTION records stay valid as long as the
 * arena is not reset; other pointers point into the file image, or, for
 * records inside a ZSTD record, into the reader's memory, valid until the
 * next call. */
int ct_reader_next(ct_reader *r, ct_rec *rec);

/* Decodes the one record at data[0..len) (no file header): returns the
 * record's total size with its padding (> 0, a multiple of 8), 0 when data
 * holds less than a whole record (also for len 0), or -1 with *error set
 * when the record is damaged. rec->offset is set to `offset`. */
long ct_read_record(const uint8_t *data, size_t len, uint64_t offset, ct_rarena *arena,
                    ct_rec *rec, ct_trace_status *error);

#endif
