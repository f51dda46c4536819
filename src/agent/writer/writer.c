/* The writer thread (writer.h): its rounds over the threads' rings, the
 * queue of definitions, the trace file (blocks, zstd, segments under
 * --max-size) and the live log; its state is one struct, g_wr. */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "agent/model/classnames.h"
#include "budget_control.h"
#include "agent/hookside/clock.h"
#include "format/event.h"
#include "views/treefilter.h"
#include "views/render.h"
#include "agent/runtime/notes.h"
#include "base/pages.h"
#include "base/table.h"
#include "logstream.h"
#include "outputs.h"
#include "agent/model/plans/plans.h"
#include "agent/model/srcline.h"
#include "agent/hookside/tbuf.h"
#include "views/value_text.h"

/* First size tried for a FUNCTION record; it grows by 4x up to the format's
 * limit when the plans are larger. */
#define FUNCTION_RECORD_FIRST 4096u
/* Arena for decoding one FUNCTION record for the renderer: at least this,
 * or 4x the record. */
#define DECODE_ARENA_MIN (1u << 20)
/* Room for a DROPPED or END record (fixed size, with padding). */
#define SMALL_RECORD_BYTES 64
/* Room for the file header: the command line (CMDLINE_MAX), the filter and
 * the settings line (profiler.c) with their lengths. */
#define HEADER_BYTES_MAX 4096

typedef struct fnq_node {
    struct fnq_node *next;
    size_t len;
    uint8_t rec[];
} fnq_node;

typedef struct cursor {
    ct_tbuf *b;
    uint64_t pos, end;
    uint64_t time;
    int orphaned;
    int making;   /* its thread was inside a hook when the round began */
} cursor;

/* The writer's state, one struct: its lifecycle, the queue of definitions,
 * the trace file and its buffers, the rounds' cursors, the filter, the
 * counts. Only the writer thread touches it, but the fields the hooks and
 * other threads read or write: the atomics, the queue (its lock), the naive
 * mode's (its lock). */
static struct writer_state {
    /* Its lifecycle (ct_writer_start, ct_writer_stop) and the queue of
     * definitions the mapper's threads hand it (ct_writer_define). */
    ct_writer_config cfg;
    atomic_int started, stop_called, stopping, done;
    atomic_int kick;
    pthread_t thread;
    atomic_int have_thread;
    pthread_mutex_t fnq_lock;
    fnq_node *fnq_head, *fnq_tail;

    /* Naive mode: everything below happens under this lock in the hooks. */
    pthread_mutex_t naive_lock;

    /* The writer's own state (only the writer thread, or the naive lock). */
    ct_render *render;
    int bin_fd;
    uint8_t *bin_buf;
    size_t bin_len;
    ct_table seen_classes;
    uint64_t events;
    uint8_t *arena_mem;
    size_t arena_cap;
    int runtime_alive;
    int budget;        /* budget_control.h: a budget or a limit is set */
    void (*tick)(void); /* ct_writer_config.tick */
    uint64_t mapped, traced;
    atomic_ulong unrewritten; /* ct_writer_count_unrewritten */

    /* Rounds that handled something and writes that went through: a stop waits
     * while this moves (a slow reader slows the end too, as it slows the
     * program), and gives up only after CT_WRITER_STALL_NS without a change. */
    _Atomic uint64_t progress;

    /* Every output failed: tracing is over, hooks stop waiting for room. */
    atomic_int lost;

    /* With compression on (after the header, which stays as it is): the
     * zstd context and the buffer a ZSTD record is built in. */
    ZSTD_CCtx *zctx;
    uint8_t *zbuf;

    /* The binary trace's buffers and zstd's context, kept from one trace to the
     * next (an attach session each) and never freed: allocated and freed by
     * each session, 4 MiB and zstd's workspace went to a new glibc arena a
     * session, and the traced process grew 1.2 MB at each attach (issue 42). */
    struct {
        uint8_t *bin, *blk, *z, *pend;
        ZSTD_CCtx *zctx;
    } kept;

    /* A full buffer being compressed a piece at a time (CT_WRITER_ZSTD_PIECE
     * per turn of the writer's loop, between rounds), while g_wr.bin_buf fills:
     * compressing a whole megabyte at once held the writer so long that the
     * threads' rings filled up and they waited. */
    uint8_t *pend_buf;
    size_t pend_len;
    int pend_on;
    ct_zstd_job zjob;
    ct_wbuf zw;

    /* The writer's failures: one stderr line at start-up; under attach the
     * process's stderr is its own, so they are kept for the CLI instead
     * (ct_writer_notes). */
    ct_notes notes;

    /* --max-size: the binary trace as segment files (docs/trace-format.md,
     * "Segments"). Each starts with the header, a SEGMENT record and every
     * definition (FUNCTION, CLASS, THREAD record) written so far; when the next
     * write would pass cap, the files are renamed one older (NAME to NAME.1, ...,
     * NAME.(K-2) to NAME.(K-1), which deletes the oldest) and a new NAME begins. */
    struct {
        uint64_t cap;          /* a segment's most bytes; 0: one file */
        uint64_t len;          /* bytes in the current segment */
        uint64_t start_len;    /* of them, its header, SEGMENT and definitions */
        uint64_t index;        /* the current segment's number (from 0) */
        uint64_t before;       /* bytes of the segments before it */
        int dir;               /* the trace's folder (the writer's own descriptor) */
        int owned;             /* g_wr.bin_fd is a segment the writer opened (it closes it) */
        char name[256];        /* the trace's name in it */
        uint8_t hdr[256 + 3 * CT_MAX_STRING];
        size_t hdr_len;
        uint8_t *defs;         /* the definitions so far, as written */
        size_t defs_len, defs_cap;
        int defs_full;         /* they outgrew half a segment: no longer kept */
    } seg;

    /* Events go to the file in EVENTS blocks (docs/trace-format.md): a run of
     * one thread's events, each a few bytes when it has no values. */
    uint8_t *blk_buf;
    ct_wbuf blk;
    ct_events_mark blk_mark;

    /* The call filters (--depth, --min-time, --trigger, --after), or NULL. */
    ct_filter *filter;

    /* FUNCTION records carry source locations (--srcline). */
    int srcline;

    /* Every JIT compilation: how many, how long (the JIT record before END). */
    _Atomic uint64_t jit_count, jit_ns;

    /* The ids of the async calls the filter hid lately (ct_filter_async_verdict):
     * their end records, which follow, are left out too. */
    uint64_t async_hidden[CT_FILTER_ASYNC_DEFERRED];
    uint32_t async_hidden_next;

    /* The rounds: a cursor on each thread's ring, and the heap that merges
     * them by time. */
    cursor *cur;
    size_t cur_cap;
    size_t *heap;

    /* Set by a round that left events for the next (the watermark), and when
     * holding began. */
    int held;
    uint64_t held_since, held_floor;
} g_wr = {
    .fnq_lock = PTHREAD_MUTEX_INITIALIZER,
    .naive_lock = PTHREAD_MUTEX_INITIALIZER,
    .bin_fd = -1,
    .runtime_alive = 1,
    .notes = CT_NOTES_INIT,
    .seg = {.dir = -1},
};

/* ----------------------------------------------------------- outputs */


static void block_flush(void);


/* *slot's kept buffer of size bytes, allocated the first time; NULL
 * without memory. */
static void *kept(uint8_t **slot, size_t size)
{
    if (!*slot)
        *slot = malloc(size);
    return *slot;
}

#define writer_note(...) ct_notes_say(&g_wr.notes, __VA_ARGS__)

void ct_writer_notes(char *out, size_t cap)
{
    ct_notes_copy(&g_wr.notes, out, cap);
}


static void bin_write_all(const uint8_t *p, size_t len)
{
    size_t off = 0;
    while (g_wr.bin_fd >= 0 && off < len) {
        ssize_t n = write(g_wr.bin_fd, p + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            writer_note("writing the trace%s%s failed (%s); the rest of the trace is lost",
                        g_wr.cfg.binary_path ? " to " : "",
                        g_wr.cfg.binary_path ? g_wr.cfg.binary_path : "",
                        n < 0 ? strerror(errno) : "no progress");
            g_wr.bin_fd = -1;
            break;
        }
        off += (size_t)n;
        atomic_fetch_add_explicit(&g_wr.progress, 1, memory_order_relaxed);
    }
    g_wr.seg.len += off;
}

/* The start of a segment: the header, its SEGMENT record, the definitions. */
static void segment_prologue(void)
{
    uint8_t rec[64];
    ct_wbuf w;
    ct_wbuf_init(&w, rec, sizeof rec);
    ct_write_segment(&w, ct_now_ns(), g_wr.seg.index, g_wr.seg.before);
    g_wr.seg.len = 0;
    bin_write_all(g_wr.seg.hdr, g_wr.seg.hdr_len);
    bin_write_all(rec, w.len);
    if (g_wr.seg.defs_len)
        bin_write_all(g_wr.seg.defs, g_wr.seg.defs_len);
    g_wr.seg.start_len = g_wr.seg.len;
}

/* The current segment closed, the files renamed one older, a new one
 * begun. On a failure the trace goes on in the current file (a note says
 * so once). */
static void segment_next(void)
{
    char from[sizeof g_wr.seg.name + 24], to[sizeof g_wr.seg.name + 24];
    for (unsigned i = CT_MAX_SIZE_SEGMENTS - 1; i >= 1; i--) {
        if (i == 1)
            snprintf(from, sizeof from, "%s", g_wr.seg.name);
        else
            snprintf(from, sizeof from, "%s.%u", g_wr.seg.name, i - 1);
        snprintf(to, sizeof to, "%s.%u", g_wr.seg.name, i);
        if (renameat(g_wr.seg.dir, from, g_wr.seg.dir, to) != 0 && errno != ENOENT && i == 1)
            goto failed;
    }
    int fd = openat(g_wr.seg.dir, g_wr.seg.name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        goto failed;
    if (g_wr.seg.owned)
        close(g_wr.bin_fd);
    g_wr.bin_fd = fd;
    g_wr.seg.owned = 1;
    g_wr.seg.before += g_wr.seg.len;
    g_wr.seg.index++;
    segment_prologue();
    return;
failed:
    writer_note("--max-size: cannot begin a new segment of the trace (%s); it goes on in %s, "
                "past the size", strerror(errno), g_wr.seg.name);
    g_wr.seg.cap = 0;
}

/* A definition kept for the segments to come. */
static void segment_keep(const uint8_t *p, size_t len)
{
    if (g_wr.seg.defs_full)
        return;
    if (g_wr.seg.defs_len + len > g_wr.seg.cap / 2) {
        g_wr.seg.defs_full = 1;
        writer_note("--max-size: the functions' and classes' definitions outgrew half a "
                    "segment (%llu bytes); later segments may show some calls as '?' (give a "
                    "larger size)", (unsigned long long)(g_wr.seg.cap / 2));
        return;
    }
    if (g_wr.seg.defs_len + len > g_wr.seg.defs_cap) {
        size_t cap = g_wr.seg.defs_cap ? 2 * g_wr.seg.defs_cap : 64 * 1024;
        while (cap < g_wr.seg.defs_len + len)
            cap *= 2;
        uint8_t *m = realloc(g_wr.seg.defs, cap);
        if (!m) {
            g_wr.seg.defs_full = 1;
            return;
        }
        g_wr.seg.defs = m;
        g_wr.seg.defs_cap = cap;
    }
    memcpy(g_wr.seg.defs + g_wr.seg.defs_len, p, len);
    g_wr.seg.defs_len += len;
}

/* Whole records (or a ZSTD record of them) to the file: a new segment
 * first when they would pass the current one's size. */
static void bin_write(const uint8_t *p, size_t len)
{
    if (g_wr.seg.cap && g_wr.bin_fd >= 0 && g_wr.seg.len > g_wr.seg.start_len &&
        g_wr.seg.len + len > g_wr.seg.cap)
        segment_next();
    bin_write_all(p, len);
}

/* The pending buffer's next piece; when it was the last, the ZSTD record
 * (or, when it would not be smaller, the records as they are) goes out. */
static void pending_step(size_t piece)
{
    ct_trace_status st;
    if (!g_wr.pend_on || ct_zstd_step(&g_wr.zw, &g_wr.zjob, piece, &st))
        return;
    if (st == CT_TRACE_OK)
        bin_write(g_wr.zbuf, g_wr.zw.len);
    else
        bin_write(g_wr.pend_buf, g_wr.pend_len);
    g_wr.pend_on = 0;
    g_wr.pend_len = 0;
}

static void pending_finish(void)
{
    while (g_wr.pend_on)
        pending_step(SIZE_MAX);
}

/* What the buffer holds goes out: as it is, or (compressed) handed over as
 * the pending buffer once the one before is out. */
static void bin_flush(void)
{
    block_flush();
    if (!g_wr.bin_len)
        return;
    if (!g_wr.zctx || g_wr.bin_fd < 0) {
        bin_write(g_wr.bin_buf, g_wr.bin_len);
        g_wr.bin_len = 0;
        return;
    }
    pending_finish();
    uint8_t *full = g_wr.bin_buf;
    g_wr.bin_buf = g_wr.pend_buf;
    g_wr.pend_buf = full;
    g_wr.pend_len = g_wr.bin_len;
    g_wr.bin_len = 0;
    ct_wbuf_init(&g_wr.zw, g_wr.zbuf, CT_WRITER_FILE_BUFFER);
    if (ct_zstd_begin(&g_wr.zw, &g_wr.zjob, g_wr.pend_buf, g_wr.pend_len, g_wr.zctx) == CT_TRACE_OK) {
        g_wr.pend_on = 1;
    } else {
        bin_write(g_wr.pend_buf, g_wr.pend_len);
        g_wr.pend_len = 0;
    }
}

/* Everything written so far is in the file. */
static void bin_sync(void)
{
    bin_flush();
    pending_finish();
}


static void bin_put_raw(const uint8_t *p, size_t n);

static void block_flush(void)
{
    if (!g_wr.blk_mark.open)
        return;
    if (ct_events_end(&g_wr.blk, &g_wr.blk_mark) == CT_TRACE_OK)
        bin_put_raw(g_wr.blk.p, g_wr.blk.len);
    ct_wbuf_init(&g_wr.blk, g_wr.blk_buf, CT_WRITER_BLOCK_BYTES);
}

/* One event record from a ring into the block. */
static void block_event(const uint8_t *p)
{
    if (g_wr.bin_fd < 0)
        return;
    uint32_t nvalues = ct_event_nvalues(p), plen = ct_event_payload_len(p);
    uint64_t time = ct_event_time(p), held = ct_event_held(p), tid = ct_event_tid(p),
             key = ct_event_key(p);
    ct_rec_type type = ct_event_type(p);
    const uint8_t *values = p + CT_EVENT_BASE_BYTES;
    size_t values_len = 8 + (size_t)plen - CT_EVENT_BASE_BYTES;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (g_wr.blk_mark.open && g_wr.blk_mark.tid != tid)
            block_flush();
        if (!g_wr.blk_mark.open && ct_events_begin(&g_wr.blk, tid, time, key, &g_wr.blk_mark) != CT_TRACE_OK)
            break;
        if (ct_events_add(&g_wr.blk, &g_wr.blk_mark, type, time, held, key, nvalues, values,
                          values_len) == CT_TRACE_OK)
            return;
        block_flush();
    }
    /* Larger than a block: a block of its own (so that a reader before 2.7,
     * which knows no held time, stops at it with an error rather than
     * misreading an event record that has one). */
    size_t cap = 8 + 24 + CT_EVENTS_MAX_OVERHEAD + values_len + 8;
    uint8_t *mem = malloc(cap);
    if (!mem)
        return;
    ct_wbuf one;
    ct_events_mark m;
    ct_wbuf_init(&one, mem, cap);
    if (ct_events_begin(&one, tid, time, key, &m) == CT_TRACE_OK &&
        ct_events_add(&one, &m, type, time, held, key, nvalues, values, values_len) ==
            CT_TRACE_OK &&
        ct_events_end(&one, &m) == CT_TRACE_OK)
        bin_put_raw(one.p, one.len);
    free(mem);
}

static void bin_put(const uint8_t *p, size_t n)
{
    block_flush();
    bin_put_raw(p, n);
}

static void bin_put_raw(const uint8_t *p, size_t n)
{
    if (g_wr.bin_fd < 0)
        return;
    if (n > CT_WRITER_FILE_BUFFER - g_wr.bin_len)
        bin_flush();
    if (n > CT_WRITER_FILE_BUFFER) {
        /* A record larger than the buffer goes straight out, after what
         * came before it. */
        pending_finish();
        ct_wbuf zw;
        ct_wbuf_init(&zw, g_wr.zbuf, CT_WRITER_FILE_BUFFER);
        if (g_wr.zctx && ct_write_zstd(&zw, p, n, g_wr.zctx) == CT_TRACE_OK)
            bin_write(g_wr.zbuf, zw.len);
        else
            bin_write(p, n);
        return;
    }
    memcpy(g_wr.bin_buf + g_wr.bin_len, p, n);
    g_wr.bin_len += n;
}

static void text_line(const char *text, size_t len)
{
    ct_out_write(text, len);
}

static void text_sink(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    ct_out_write(text, len);
}

static ct_rarena arena_for(size_t len)
{
    size_t want = len * 4 > DECODE_ARENA_MIN ? len * 4 : DECODE_ARENA_MIN;
    if (want > g_wr.arena_cap) {
        uint8_t *m = realloc(g_wr.arena_mem, want);
        if (m) {
            g_wr.arena_mem = m;
            g_wr.arena_cap = want;
        }
    }
    return (ct_rarena){g_wr.arena_mem, g_wr.arena_cap, 0};
}

/* One record to both outputs. rec: its decoded form, when the caller has
 * it. */
static void output_now(const uint8_t *p, size_t len, const ct_rec *rec)
{
    bin_put(p, len);
    if (g_wr.seg.cap && (p[0] == CT_REC_FUNCTION || p[0] == CT_REC_CLASS || p[0] == CT_REC_THREAD))
        segment_keep(p, len);
    if (!g_wr.render)
        return;
    ct_rec mine;
    if (!rec) {
        ct_rarena a = arena_for(len);
        ct_trace_status st;
        if (ct_read_record(p, len, 0, &a, &mine, &st) <= 0)
            return;
        rec = &mine;
    }
    ct_render_record(g_wr.render, rec);
}


/* An event the filter passes on (or every event without one). */
static void output_event(const uint8_t *p, size_t len, const ct_rec *rec)
{
    block_event(p);
    if (g_wr.render)
        ct_render_record(g_wr.render, rec);
}

static void filter_emit(void *ctx, const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    (void)ctx;
    if (ct_rec_is_event(rec->type))
        output_event(raw, raw_len, rec);
    else
        output_now(raw, raw_len, g_wr.render ? rec : NULL);
}

/* A record that is not an event. The filter sees the names of functions
 * (triggers) and the END record (it lets out what it holds first). */
static void output(const uint8_t *p, size_t len, const ct_rec *rec)
{
    ct_rec mine;
    if (g_wr.filter && (p[0] == CT_REC_FUNCTION || p[0] == CT_REC_END) && !rec) {
        ct_rarena a = arena_for(len);
        ct_trace_status st;
        if (ct_read_record(p, len, 0, &a, &mine, &st) > 0)
            rec = &mine;
    }
    if (g_wr.filter && rec && (rec->type == CT_REC_FUNCTION || rec->type == CT_REC_END))
        ct_filter_record(g_wr.filter, rec, p, len);
    else
        output_now(p, len, rec);
}

/* -------------------------------------------------- FUNCTION records */

static void enqueue(fnq_node *n)
{
    pthread_mutex_lock(&g_wr.fnq_lock);
    if (g_wr.fnq_tail)
        g_wr.fnq_tail->next = n;
    else
        g_wr.fnq_head = n;
    g_wr.fnq_tail = n;
    pthread_mutex_unlock(&g_wr.fnq_lock);
}

/* A FUNCTION or THREAD record for the writer: queued (naive mode: written
 * now). Takes node. */
static void submit(fnq_node *node)
{
    if (g_wr.cfg.naive) {
        pthread_mutex_lock(&g_wr.naive_lock);
        if (!atomic_load(&g_wr.done))
            output(node->rec, node->len, NULL);
        pthread_mutex_unlock(&g_wr.naive_lock);
        free(node);
        return;
    }
    enqueue(node);
}


void ct_writer_define(const ct_mapped_fn *f)
{
    if (!atomic_load(&g_wr.started) || atomic_load(&g_wr.stopping))
        return;
    /* With -A, the parameters are the chosen values (labelled by their
     * paths; no out values); with -R, the return value is the chosen one. */
    const ct_chosen_fn *ca = f->values ? f->chosen_args : NULL;
    const ct_chosen_fn *cr = f->values ? f->chosen_ret : NULL;
    uint32_t n = !f->values ? 0 : ca ? ca->n : f->nargs;
    ct_fn_param *params = calloc(n ? n : 1, sizeof *params);
    if (!params)
        return;
    uint32_t flags = 0;
    if (!f->values)
        flags |= CT_FN_NO_VALUES;
    if (n && !ca && ct_fn_has_this(f))
        flags |= CT_FN_HAS_THIS;
    if (f->values && (f->async_stub || f->rt_async) && !cr)
        flags |= CT_FN_ASYNC;
    if (f->values && f->rt_async && !cr)
        flags |= CT_FN_RT_ASYNC;
    if (f->line_probe)
        flags |= CT_FN_PROBE;
    if (f->line_probe == 2)
        flags |= CT_FN_LOCALS;
    for (uint32_t i = 0; i < n; i++)
        params[i] = ca ? (ct_fn_param){ca->labels[i], 0, ca->plans[i]}
                       : (ct_fn_param){f->args[i].label, 0, ct_arg_plan(f, i)};
    ct_fn_param ret = {f->ret_label ? f->ret_label : "", 0, NULL};
    if (cr && cr->n)
        ret = (ct_fn_param){cr->labels[0], 0, cr->plans[0]};
    else if (f->values && f->has_ret)
        ret.plan = ct_arg_plan(f, f->nargs);
    ct_fn_src src = {NULL, 0, 0};
    if (g_wr.srcline)
        ct_srcline_method(ct_module_get(f->module), f->token, &src);
    fnq_node *node = NULL;
    for (size_t cap = FUNCTION_RECORD_FIRST; cap <= (size_t)CT_MAX_RECORD * 4; cap *= 4) {
        node = malloc(sizeof *node + cap);
        if (!node)
            break;
        ct_wbuf w;
        ct_wbuf_init(&w, node->rec, cap);
        if (ct_write_function_src(&w, (uint64_t)(uintptr_t)f, f->display, "", flags, n, params,
                                  ret.plan ? &ret : NULL, f->values && !ca ? f->out_mask : 0,
                                  &src) == CT_TRACE_OK) {
            node->next = NULL;
            node->len = w.len;
            break;
        }
        free(node);
        node = NULL;
    }
    free(params);
    if (!node)
        return; /* the function's events will show it as "?" */
    submit(node);
}


void ct_writer_jit(uint64_t key, uint64_t ns, uint64_t tid)
{
    atomic_fetch_add_explicit(&g_wr.jit_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_wr.jit_ns, ns, memory_order_relaxed);
    if (!key || !atomic_load(&g_wr.started) || atomic_load(&g_wr.stopping))
        return;
    fnq_node *node = malloc(sizeof *node + SMALL_RECORD_BYTES);
    if (!node)
        return;
    ct_wbuf w;
    ct_wbuf_init(&w, node->rec, SMALL_RECORD_BYTES);
    if (ct_write_jit(&w, key, 1, ns, tid) != CT_TRACE_OK) {
        free(node);
        return;
    }
    node->next = NULL;
    node->len = w.len;
    submit(node);
}

void ct_writer_thread(uint64_t tid, const char *name)
{
    if (!atomic_load(&g_wr.started) || atomic_load(&g_wr.stopping))
        return;
    size_t cap = strlen(name) + 64;
    fnq_node *node = malloc(sizeof *node + cap);
    if (!node)
        return;
    ct_wbuf w;
    ct_wbuf_init(&w, node->rec, cap);
    if (ct_write_thread(&w, tid, name) != CT_TRACE_OK) {
        free(node);
        return;
    }
    node->next = NULL;
    node->len = w.len;
    submit(node);
}

/* A HELD record for the time the tracer held b's thread since the last one
 * (written when the thread's buffer is released, and at the end). */
static void report_held(ct_tbuf *b)
{
    /* The tracer's own: JIT compilation is the runtime's (JIT records). */
    uint64_t held = ct_ring_held(&b->ring) -
                    atomic_load_explicit(&b->ring.jit, memory_order_relaxed);
    if (held == b->held_reported)
        return;
    uint8_t buf[SMALL_RECORD_BYTES];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    if (ct_write_held(&w, b->tid, held - b->held_reported) == CT_TRACE_OK)
        output(buf, w.len, NULL);
    b->held_reported = held;
}

static size_t drain_functions(void)
{
    pthread_mutex_lock(&g_wr.fnq_lock);
    fnq_node *n = g_wr.fnq_head;
    g_wr.fnq_head = g_wr.fnq_tail = NULL;
    pthread_mutex_unlock(&g_wr.fnq_lock);
    size_t count = 0;
    while (n) {
        fnq_node *next = n->next;
        output(n->rec, n->len, NULL);
        free(n);
        n = next;
        count++;
    }
    return count;
}

/* ------------------------------------------------------------ events */

/* The plan of a class's content, for the walk of a value (the profiler's
 * cache: a class the hooks met). */
/* g_wr.seen_classes: a class whose CLASS record was written maps to the plan
 * of its content, or to k_no_content when it had none then. */
static const char k_no_content;

static const ct_plan *known_content(void *ctx, uint64_t cls)
{
    (void)ctx;
    /* on_class has met the class first: its map entry, without a lock. */
    const void *seen = ct_table_get_key(&g_wr.seen_classes, (ct_key){cls, 0});
    if (seen && seen != &k_no_content)
        return seen;
    return ct_plan_content_known((ClassID)cls);
}

/* A class a value names: its CLASS record (with the plan of its content)
 * once, before the event; again when its content plan came later (a
 * dictionary first met empty). The profiler's plans (a lock) are asked only
 * until a plan is known. */
static void on_class(void *ctx, uint64_t cls)
{
    (void)ctx;
    ct_key key = {cls, 0};
    void *seen = ct_table_get_key(&g_wr.seen_classes, key);
    if (seen && seen != &k_no_content)
        return;
    const ct_plan *content = ct_plan_content_known((ClassID)cls);
    if (seen && !content)
        return;
    ct_table_put_key(&g_wr.seen_classes, key, content ? (void *)content : (void *)&k_no_content);
    if (!g_wr.runtime_alive)
        return;
    char name[CT_WRITER_CLASS_NAME_MAX];
    if ((cls & CT_CLASS_TAG_MASK) == CT_CLASS_KEY_METHOD
            ? ct_method_handle_name((FunctionID)(cls - CT_CLASS_KEY_METHOD), name, sizeof name) != 0
            : ct_classid_name((ClassID)cls, CT_NAME_FULL, name, sizeof name) != 0)
        return;
    uint8_t small[CT_WRITER_CLASS_NAME_MAX + 32];
    uint8_t *buf = small;
    size_t cap = sizeof small;
    if (content) {
        cap = CT_WRITER_CLASS_RECORD_MAX;
        buf = malloc(cap);
        if (!buf)
            return;
    }
    ct_wbuf w;
    ct_wbuf_init(&w, buf, cap);
    if (ct_write_class_content(&w, cls, name, content) == CT_TRACE_OK)
        output(buf, w.len, NULL);
    if (buf != small)
        free(buf);
}

/* An event record's fields in rec (our own bytes, built by the hooks: not
 * checked again, as a file's records are); the renderer, the filter and
 * ct_next_value read no other field of an event. */
static void event_fields(const uint8_t *p, ct_rec *rec)
{
    rec->type = ct_event_type(p);
    rec->nvalues = ct_event_nvalues(p);
    rec->values = p + CT_EVENT_BASE_BYTES;
    rec->values_len = ct_event_payload_len(p) + 8 - CT_EVENT_BASE_BYTES;
    rec->key = ct_event_key(p);
    rec->time_ns = ct_event_time(p);
    rec->held_ns = ct_event_held(p);
    rec->tid = ct_event_tid(p);
}


/* The end of an async call (ASYNC_RETURN, ASYNC_FAULT; record/asynccall.c):
 * a record of its own, after the CLASS records its values name (the
 * task's class, with its content, whose plan reads the result). Its key is
 * the call's id, not a function. */
static void async_end_event(const uint8_t *p, size_t len, int rt)
{
    static const ct_classes classes = {NULL, known_content, NULL};
    for (uint32_t i = 0; i < CT_FILTER_ASYNC_DEFERRED; i++)
        if (g_wr.async_hidden[i] && g_wr.async_hidden[i] == ct_event_key(p)) {
            g_wr.async_hidden[i] = 0;
            return;
        }
    if (p[CT_EVENT_MARK_AT])
        ((uint8_t *)(uintptr_t)p)[CT_EVENT_MARK_AT] = 0;
    ct_rec rec;
    memset(&rec, 0, sizeof rec);
    event_fields(p, &rec);
    size_t pos = 0;
    const uint8_t *v;
    uint32_t vl;
    ct_value_status vs;
    const ct_plan *result = NULL;
    for (uint32_t i = 0; ct_next_value(&rec, &pos, &v, &vl, &vs) == 1; i++) {
        if (vs != CT_VALUE_PLAN)
            continue;
        if (rec.type == CT_REC_ASYNC_FAULT) {
            const ct_plan *plan = ct_unwind_plan(i);
            if (!plan)
                break;
            ct_value_classes(plan, v, vl, &classes, on_class, NULL);
        } else if (i == 0 && vl == 8 && rt) {
            /* A runtime-async call's (record/rtasync.c): its function's
             * record in place of a task's class, which is 0 in the trace;
             * the result by the plan of the function's return value. */
            uint64_t fn;
            memcpy(&fn, v, 8);
            memset((uint8_t *)(uintptr_t)v, 0, 8);
            const ct_mapped_fn *f = (const ct_mapped_fn *)(uintptr_t)fn;
            result = f && f->has_ret ? ct_arg_plan(f, f->nargs) : NULL;
        } else if (i == 0 && vl == 8) {
            uint64_t cls;
            memcpy(&cls, v, 8);
            on_class(NULL, cls);
            const ct_plan *c = ct_plan_content_known((ClassID)cls);
            if (c && c->kind == CT_V_CLASS && ct_task_result_at(c) == 1)
                result = c->fields[1].plan;
        } else if (i == 1 && result) {
            ct_value_classes(result, v, vl, &classes, on_class, NULL);
        }
    }
    output(p, len, &rec);
}

/* A frame's values as an exception passed (--locals, record/locals.c): a
 * LOCALS record of its own, after the CLASS records its values name (value
 * 0 is the frame's function; the others by its locals record's plans).
 * Written as it comes, as LINE records are: a tree filter holding the
 * frame's events back does not hold it (readers match it with the frame's
 * UNWIND). */
static void locals_event(const uint8_t *p, size_t len)
{
    static const ct_classes classes = {NULL, known_content, NULL};
    if (p[CT_EVENT_MARK_AT])
        ((uint8_t *)(uintptr_t)p)[CT_EVENT_MARK_AT] = 0;
    ct_rec rec;
    memset(&rec, 0, sizeof rec);
    event_fields(p, &rec);
    const ct_mapped_fn *pf = (const ct_mapped_fn *)(uintptr_t)rec.key;
    size_t pos = 0;
    const uint8_t *v;
    uint32_t vl;
    ct_value_status vs;
    for (uint32_t i = 0; ct_next_value(&rec, &pos, &v, &vl, &vs) == 1; i++) {
        if (i == 0 || vs != CT_VALUE_PLAN)
            continue;
        const ct_plan *plan = ct_enter_plan(pf, i - 1);
        if (!plan)
            break;
        ct_value_classes(plan, v, vl, &classes, on_class, NULL);
    }
    output_now(p, len, g_wr.render ? &rec : NULL);
}

/* A small record the writer made from a ring record (w: written, its
 * status st), read back and written out in order with the thread's
 * events. */
static void output_made(const ct_wbuf *w, ct_trace_status st)
{
    ct_rec rec;
    ct_rarena none = {NULL, 0, 0};
    if (st == CT_TRACE_OK && ct_read_record(w->p, w->len, 0, &none, &rec, &st) > 0)
        output(w->p, w->len, &rec);
}

/* One event record (len: its size with padding): CLASS records for new
 * classes first, then the event. Without a text log, an event without
 * values is only copied. */
static void process_event(ct_tbuf *b, const uint8_t *p, size_t len)
{
    uint8_t made[64];
    ct_wbuf w;
    if (len >= CT_ACTIVITY_RING_BYTES && ct_event_type(p) == CT_REC_ACTIVITY) {
        /* The thread's Activity changed (record/activity.c): an ACTIVITY
         * record. */
        ct_wbuf_init(&w, made, sizeof made);
        output_made(&w, ct_write_activity(&w, ct_event_time(p), ct_event_tid(p),
                                          p + CT_EVENT_BASE_BYTES,
                                          p + CT_EVENT_BASE_BYTES + CT_TRACE_ID_BYTES));
        return;
    }
    if (len >= CT_LINE_RING_BYTES && ct_event_type(p) == CT_REC_LINE) {
        /* The line a frame was at as an exception left it (--srcline,
         * record/exclines.c): a LINE record, before its UNWIND. */
        ct_wbuf_init(&w, made, sizeof made);
        output_made(&w, ct_write_line(&w, ct_event_time(p), ct_event_tid(p), ct_event_key(p),
                                      ct_get_le32(p + CT_EVENT_BASE_BYTES),
                                      ct_get_le32(p + CT_EVENT_BASE_BYTES + 4)));
        return;
    }
    if (len >= CT_INJECT_RING_BYTES && ct_event_type(p) == CT_REC_INJECT) {
        /* A fault injected (--inject, record/inject_decide.c). */
        ct_wbuf_init(&w, made, sizeof made);
        output_made(&w, ct_write_inject(&w, ct_event_time(p), ct_event_tid(p), ct_event_key(p),
                                        ct_get_le32(p + CT_EVENT_BASE_BYTES),
                                        ct_get_le32(p + CT_EVENT_BASE_BYTES + 4)));
        return;
    }
    if (len >= CT_EVENT_BASE_BYTES && ct_event_type(p) == CT_REC_LOCALS) {
        locals_event(p, len);
        return;
    }
    if (len >= CT_EVENT_BASE_BYTES && ct_rec_is_async_end(ct_event_type(p))) {
        async_end_event(p, len, 0);
        return;
    }
    if (len >= CT_EVENT_BASE_BYTES && ct_event_type(p) == (ct_rec_type)CT_RING_RT_RETURN) {
        /* A runtime-async call's end (record/rtasync.c): an ASYNC_RETURN. */
        ((uint8_t *)(uintptr_t)p)[0] = (uint8_t)CT_REC_ASYNC_RETURN;
        async_end_event(p, len, 1);
        return;
    }
    if (len >= CT_EVENT_BASE_BYTES && ct_event_type(p) == (ct_rec_type)CT_RING_REJECT) {
        /* The thread's next end is of a call its condition at the end
         * rejected (record.h, ct_rec_reject): the filter hides it. */
        if (g_wr.filter)
            ct_filter_reject(g_wr.filter, ct_event_tid(p), ct_event_key(p));
        return;
    }
    if (len >= CT_EVENT_BASE_BYTES && ct_event_type(p) == (ct_rec_type)CT_RING_DEFER) {
        /* An async call decided when its task ends (record/asynccall.c). */
        if (g_wr.filter)
            ct_filter_defer(g_wr.filter, ct_event_tid(p), ct_event_key(p));
        return;
    }
    if (len >= CT_EVENT_BASE_BYTES && (ct_event_type(p) == (ct_rec_type)CT_RING_ASYNC_KEEP ||
                                       ct_event_type(p) == (ct_rec_type)CT_RING_ASYNC_DROP)) {
        /* Its verdict: hidden, its end record is left out too. */
        if (g_wr.filter && ct_filter_async_verdict(g_wr.filter, ct_event_key(p),
                                                ct_event_type(p) ==
                                                    (ct_rec_type)CT_RING_ASYNC_KEEP) == 2)
            g_wr.async_hidden[g_wr.async_hidden_next++ % CT_FILTER_ASYNC_DEFERRED] = ct_event_key(p);
        return;
    }
    g_wr.events++;
    if (len < CT_EVENT_BASE_BYTES)
        return;
    /* The producer's mark (writer.h), taken off before the record is read:
     * the record is the writer's until the ring releases it (or, in naive
     * mode, the hook's own buffer). */
    ct_rec_type type = ct_event_type(p);
    if (b && g_wr.budget)
        ct_budget_event(b, ct_event_key(p), type == CT_REC_ENTER);
    int new_classes = p[CT_EVENT_MARK_AT] == CT_EVENT_NEW_CLASSES || type == CT_REC_UNWIND;
    if (p[CT_EVENT_MARK_AT])
        ((uint8_t *)(uintptr_t)p)[CT_EVENT_MARK_AT] = 0;
    uint32_t nvalues = ct_event_nvalues(p);
    int valued = nvalues && (type == CT_REC_ENTER || type == CT_REC_LEAVE ||
                             type == CT_REC_UNWIND);
    if (!valued && !g_wr.render && !g_wr.filter) {
        block_event(p);
        return;
    }
    /* The event's fields; no memset of the whole record: this runs for
     * every event. */
    ct_rec rec;
    rec.offset = 0;
    event_fields(p, &rec);
    if (valued && new_classes) {
        static const ct_classes classes = {NULL, known_content, NULL};
        const ct_mapped_fn *f = (const ct_mapped_fn *)(uintptr_t)rec.key;
        size_t pos = 0;
        const uint8_t *v;
        uint32_t vl;
        ct_value_status vs;
        for (uint32_t i = 0; ct_next_value(&rec, &pos, &v, &vl, &vs) == 1; i++) {
            if (vs != CT_VALUE_PLAN)
                continue;
            const ct_plan *plan = rec.type == CT_REC_UNWIND ? ct_unwind_plan(i)
                                  : rec.type == CT_REC_LEAVE ? ct_leave_plan(f, i)
                                                         : ct_enter_plan(f, i);
            if (!plan)
                break;
            ct_value_classes(plan, v, vl, &classes, on_class, NULL);
        }
    }
    if (g_wr.filter)
        ct_filter_record(g_wr.filter, &rec, p, len);
    else
        output_event(p, len, &rec);
}

void ct_writer_naive_event(const uint8_t *rec, size_t len)
{
    pthread_mutex_lock(&g_wr.naive_lock);
    if (!atomic_load(&g_wr.done))
        process_event(NULL, rec, len);
    pthread_mutex_unlock(&g_wr.naive_lock);
}

/* ------------------------------------------------------- the rounds */


/* Skips filler records; loads the time of the record at the cursor.
 * Returns 0 when the cursor is at its end. */
static int peek(cursor *c)
{
    uint64_t size;
    const uint8_t *p = ct_ring_peek(&c->b->ring, &c->pos, c->end, &size);
    if (p) {
        c->time = ct_event_time(p);
        return 1;
    }
    ct_ring_release(&c->b->ring, c->pos);
    return 0;
}

/* Handles the cursor's records up to its end, or (bounded) while their
 * time is at most `limit`: a run from one thread between two events of the
 * others. Frees the ring as it goes. */
static size_t drain(cursor *c, int bounded, uint64_t limit)
{
    ct_ring *r = &c->b->ring;
    size_t n = 0;
    uint64_t stored = c->pos, size;
    const uint8_t *p;
    uint64_t last = 0;
    while ((p = ct_ring_peek(r, &c->pos, c->end, &size))) {
        uint64_t t = ct_event_time(p);
        if (bounded && t > limit)
            break;
        last = t;
        process_event(c->b, p, (size_t)size);
        n++;
        c->pos += size;
        if (c->pos - stored >= CT_WRITER_TAIL_STEP) {
            ct_ring_release(r, c->pos);
            stored = c->pos;
        }
    }
    ct_ring_release(r, c->pos);
    if (n)
        c->b->merge_last = last;
    return n;
}

static int earlier(const cursor *a, size_t ia, const cursor *b, size_t ib)
{
    return a->time != b->time ? a->time < b->time : ia < ib;
}

static void heap_push(size_t *heap, size_t *n, size_t i)
{
    size_t k = (*n)++;
    heap[k] = i;
    while (k > 0) {
        size_t parent = (k - 1) / 2;
        if (!earlier(&g_wr.cur[heap[k]], heap[k], &g_wr.cur[heap[parent]], heap[parent]))
            break;
        size_t t = heap[k];
        heap[k] = heap[parent];
        heap[parent] = t;
        k = parent;
    }
}

static size_t heap_pop(size_t *heap, size_t *n)
{
    size_t top = heap[0];
    heap[0] = heap[--*n];
    size_t k = 0;
    for (;;) {
        size_t l = 2 * k + 1, r = l + 1, m = k;
        if (l < *n && earlier(&g_wr.cur[heap[l]], heap[l], &g_wr.cur[heap[m]], heap[m]))
            m = l;
        if (r < *n && earlier(&g_wr.cur[heap[r]], heap[r], &g_wr.cur[heap[m]], heap[m]))
            m = r;
        if (m == k)
            break;
        size_t t = heap[k];
        heap[k] = heap[m];
        heap[m] = t;
        k = m;
    }
    return top;
}


/* The earliest time cursor c's thread may still publish an event at, once
 * its events of this round are taken: inside a hook, no earlier than its
 * last; outside, no earlier than the round's start, less the slack. */
static uint64_t may_still_publish(const cursor *c, uint64_t start)
{
    if (c->making)
        return c->b->merge_last;
    return start > CT_WRITER_ORDER_SLACK_NS ? start - CT_WRITER_ORDER_SLACK_NS : 0;
}

/* One round: what every buffer holds now, merged by time, up to the
 * watermark (writer.h) unless `all`. Returns the records handled; g_wr.held
 * says whether some were left for the next round. */
static size_t round_once(int all)
{
    size_t n = 0;
    uint64_t start = ct_now_ns();
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next) {
        int st = atomic_load_explicit(&b->state, memory_order_acquire);
        if (st != CT_TBUF_IN_USE && st != CT_TBUF_ORPHANED)
            continue;
        if (n == g_wr.cur_cap) {
            size_t cap = g_wr.cur_cap ? 2 * g_wr.cur_cap : 64;
            cursor *c = realloc(g_wr.cur, cap * sizeof *c);
            if (c)
                g_wr.cur = c;
            size_t *h = c ? realloc(g_wr.heap, cap * sizeof *h) : NULL;
            if (h)
                g_wr.heap = h;
            if (!c || !h)
                break;
            g_wr.cur_cap = cap;
        }
        cursor *c = &g_wr.cur[n++];
        c->b = b;
        c->orphaned = st == CT_TBUF_ORPHANED;
        /* Before its head: an event it publishes after this is made after
         * this load (or begun before it, and no earlier than its last). */
        c->making = atomic_load_explicit(&b->ring.making, memory_order_seq_cst);
        c->end = ct_ring_head(&b->ring);
        c->pos = ct_ring_tail(&b->ring);
    }
    /* Held back too long (a thread held inside a hook): all that is here. */
    if (g_wr.held && start - g_wr.held_since > CT_WRITER_ORDER_WAIT_NS)
        all = 1;
    /* After the snapshot: every function an event names was queued before
     * the event was published. */
    size_t handled = drain_functions();
    size_t nheap = 0;
    /* The watermark: no event later than what a thread with nothing left
     * in this round may still publish. */
    uint64_t floor = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        cursor *c = &g_wr.cur[i];
        ct_tbuf *b = c->b;
        uint64_t dropped = atomic_load_explicit(&b->dropped, memory_order_relaxed);
        if (dropped != b->dropped_reported) {
            uint8_t buf[SMALL_RECORD_BYTES];
            ct_wbuf w;
            ct_wbuf_init(&w, buf, sizeof buf);
            if (ct_write_dropped(&w, b->tid, dropped - b->dropped_reported) == CT_TRACE_OK)
                output(buf, w.len, NULL);
            b->dropped_reported = dropped;
            handled++;
        }
        if (peek(c))
            heap_push(g_wr.heap, &nheap, i);
        else if (!all && may_still_publish(c, start) < floor)
            floor = may_still_publish(c, start);
    }
    int held = 0;
    while (nheap) {
        size_t i = heap_pop(g_wr.heap, &nheap);
        cursor *c = &g_wr.cur[i];
        if (c->time > floor) {
            held = 1;
            break;
        }
        /* This thread's events up to the next event of another thread, and
         * the watermark. */
        uint64_t limit = nheap && g_wr.cur[g_wr.heap[0]].time < floor ? g_wr.cur[g_wr.heap[0]].time : floor;
        handled += limit == UINT64_MAX ? drain(c, 0, 0) : drain(c, 1, limit);
        if (peek(c))
            heap_push(g_wr.heap, &nheap, i);
        else if (!all && may_still_publish(c, start) < floor)
            floor = may_still_publish(c, start);
    }
    /* The wait is bounded from the watermark's last move: threads that
     * wait for room while the writer drains them one by one keep it moving. */
    if (held && (!g_wr.held || floor > g_wr.held_floor))
        g_wr.held_since = start;
    g_wr.held_floor = floor;
    g_wr.held = held;
    for (size_t i = 0; i < n; i++) {
        cursor *c = &g_wr.cur[i];
        ct_ring_rearm(&c->b->ring);
        if (c->orphaned && ct_ring_head(&c->b->ring) == c->pos &&
            atomic_load_explicit(&c->b->dropped, memory_order_relaxed) ==
                c->b->dropped_reported) {
            report_held(c->b);
            if (g_wr.budget)
                ct_budget_take(c->b);
            ct_tbuf_release(c->b);
        }
    }
    return handled;
}

/* ------------------------------------------------------- the thread */

void ct_writer_kick(void)
{
    if (!atomic_load_explicit(&g_wr.have_thread, memory_order_relaxed))
        return;
    if (atomic_exchange_explicit(&g_wr.kick, 1, memory_order_relaxed) == 0)
        syscall(SYS_futex, &g_wr.kick, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int ct_writer_stopped(void)
{
    return atomic_load_explicit(&g_wr.done, memory_order_acquire) ||
           atomic_load_explicit(&g_wr.lost, memory_order_relaxed);
}

/* After a write failed: with no output left, tracing ends here (the
 * failure was reported on stderr, once per output); the program runs on
 * untraced and no hook waits for room any more. */
static void check_outputs(void)
{
    if (atomic_load_explicit(&g_wr.lost, memory_order_relaxed))
        return;
    int text_ok = g_wr.render && ct_out_ok();
    if (text_ok || g_wr.bin_fd >= 0)
        return;
    atomic_store_explicit(&g_wr.lost, 1, memory_order_release);
    if (g_wr.cfg.stop_engine)
        g_wr.cfg.stop_engine();
}

static void finish(void)
{
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next)
        if (atomic_load_explicit(&b->state, memory_order_acquire) != CT_TBUF_FREE)
            report_held(b);
    if (g_wr.budget)
        ct_budget_finish(ct_now_ns());
    drain_functions(); /* the last JIT records */
    uint8_t buf[SMALL_RECORD_BYTES];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    uint64_t jits = atomic_load_explicit(&g_wr.jit_count, memory_order_relaxed);
    if (jits && ct_write_jit(&w, 0, jits, atomic_load_explicit(&g_wr.jit_ns, memory_order_relaxed), 0) ==
                    CT_TRACE_OK)
        output(buf, w.len, NULL);
    ct_wbuf_init(&w, buf, sizeof buf);
    if (ct_write_end_unrewritten(&w, ct_now_ns(), g_wr.events, g_wr.mapped, g_wr.traced,
                                 atomic_load(&g_wr.unrewritten)) == CT_TRACE_OK)
        output(buf, w.len, NULL);
    if (g_wr.render) {
        ct_render_finish(g_wr.render);
        if (g_wr.cfg.children_index)
            ct_outputs_children(g_wr.cfg.children_index, text_line);
    }
    bin_sync();
    ct_out_flush();
    atomic_store_explicit(&g_wr.done, 1, memory_order_release);
}

static void *writer_main(void *arg)
{
    (void)arg;
    long idle = CT_WRITER_IDLE_NS;
    uint64_t last_flush = ct_mono_raw_ns();
    for (;;) {
        int stopping = atomic_load_explicit(&g_wr.stopping, memory_order_acquire);
        size_t n = round_once(stopping);
        if (n)
            atomic_fetch_add_explicit(&g_wr.progress, 1, memory_order_relaxed);
        pending_step(CT_WRITER_ZSTD_PIECE);
        /* What is written reaches the file at least every CT_WRITER_FLUSH_NS,
         * whole records only: a process killed (SIGKILL, the OOM killer, a
         * crash) leaves a trace that ends at most that long before it. */
        if (g_wr.budget)
            ct_budget_tick(ct_now_ns());
        uint64_t now = ct_mono_raw_ns();
        if (now - last_flush >= CT_WRITER_FLUSH_NS) {
            bin_flush();
            ct_out_flush();
            last_flush = now;
            if (g_wr.tick && !stopping)
                g_wr.tick();
        }
        check_outputs();
        if (stopping) {
            /* Events committed while this round ran are taken by the next;
             * stop after a round that found nothing. */
            if (n == 0)
                break;
            continue;
        }
        if (n || g_wr.pend_on) {
            idle = CT_WRITER_IDLE_NS;
            continue;
        }
        /* Events left for the next round: it comes soon. */
        if (g_wr.held)
            idle = CT_WRITER_IDLE_NS;
        if (atomic_exchange_explicit(&g_wr.kick, 0, memory_order_relaxed))
            continue;
        struct timespec ts = {0, idle};
        syscall(SYS_futex, &g_wr.kick, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
        atomic_store_explicit(&g_wr.kick, 0, memory_order_relaxed);
        if (idle < CT_WRITER_IDLE_MAX_NS)
            idle *= 2;
    }
    finish();
    syscall(SYS_futex, &g_wr.done, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
    return NULL;
}

/* The budget's outputs (budget_control.h). */
static void budget_emit(const uint8_t *rec, size_t len)
{
    output(rec, len, NULL);
}

int ct_writer_start(const ct_writer_config *c)
{
    g_wr.cfg = *c;
    g_wr.srcline = c->srcline;
    ct_notes_keep(&g_wr.notes, c->attached);
    g_wr.budget = c->budget;
    g_wr.tick = c->tick;
    if (g_wr.budget) {
        ct_budget_io io = {budget_emit, !c->attached, c->untrace, c->retrace};
        ct_budget_setup(&io, c->max_overhead);
    }
    g_wr.bin_fd = c->binary_fd;
    if (g_wr.bin_fd >= 0 && (!(g_wr.bin_buf = kept(&g_wr.kept.bin, CT_WRITER_FILE_BUFFER)) ||
                          !(g_wr.blk_buf = kept(&g_wr.kept.blk, CT_WRITER_BLOCK_BYTES))))
        return -1;
    ct_wbuf_init(&g_wr.blk, g_wr.blk_buf, CT_WRITER_BLOCK_BYTES);
    if (c->calls_filter && ct_filter_opts_active(c->calls_filter) &&
        !(g_wr.filter = ct_filter_new(c->calls_filter, filter_emit, NULL)))
        return -1;
    if (c->text) {
        ct_render_opts o = { .lines = 1, .summary = c->summary, .srcline = c->srcline };
        if (!(g_wr.render = ct_render_new(&o, text_sink, NULL)))
            return -1;
    }
    ct_trace_header h = {
        .major = CT_TRACE_VERSION_MAJOR, .minor = CT_TRACE_VERSION_MINOR,
        .pid = c->pid, .ppid = c->ppid, .start_unix_ns = c->start_unix_ns,
        .cmdline = c->cmdline, .cmdline_len = (uint32_t)strlen(c->cmdline),
        .filter = c->filter, .filter_len = (uint32_t)strlen(c->filter),
        .settings = c->settings, .settings_len = (uint32_t)strlen(c->settings),
    };
    if (g_wr.render)
        ct_render_header(g_wr.render, &h);
    if (g_wr.bin_fd >= 0) {
        uint8_t hdr[HEADER_BYTES_MAX];
        ct_wbuf w;
        ct_wbuf_init(&w, hdr, sizeof hdr);
        if (ct_write_header(&w, c->pid, c->ppid, c->start_unix_ns, c->cmdline, c->filter, c->settings) !=
            CT_TRACE_OK)
            return -1;
        bin_put(hdr, w.len);
        /* --max-size: segment 0's SEGMENT record after the header, which
         * each segment repeats. */
        if (c->max_size && c->binary_dir >= 0 && c->binary_name &&
            w.len <= sizeof g_wr.seg.hdr && strlen(c->binary_name) < sizeof g_wr.seg.name &&
            (g_wr.seg.dir = fcntl(c->binary_dir, F_DUPFD_CLOEXEC, 3)) >= 0) {
            g_wr.seg.cap = c->max_size / CT_MAX_SIZE_SEGMENTS;
            snprintf(g_wr.seg.name, sizeof g_wr.seg.name, "%s", c->binary_name);
            memcpy(g_wr.seg.hdr, hdr, w.len);
            g_wr.seg.hdr_len = w.len;
            uint8_t rec[64];
            ct_wbuf sw;
            ct_wbuf_init(&sw, rec, sizeof rec);
            ct_write_segment(&sw, 0, 0, 0);
            bin_put(rec, sw.len);
            g_wr.seg.start_len = w.len + sw.len;
        }
        bin_flush();
        /* Without memory for compression, the trace is written as it is. */
        if (c->compress && !g_wr.kept.zctx)
            g_wr.kept.zctx = ZSTD_createCCtx();
        if (c->compress && g_wr.kept.zctx && kept(&g_wr.kept.z, CT_WRITER_FILE_BUFFER) &&
            kept(&g_wr.kept.pend, CT_WRITER_FILE_BUFFER)) {
            g_wr.zbuf = g_wr.kept.z;
            g_wr.pend_buf = g_wr.kept.pend;
            g_wr.zctx = g_wr.kept.zctx;
        }
    }
    if (!c->naive) {
        /* The writer takes no signals: they belong to the program. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int rc = pthread_create(&g_wr.thread, NULL, writer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc != 0)
            return -1;
        pthread_setname_np(g_wr.thread, "clrtrace-writer");
        atomic_store(&g_wr.have_thread, 1);
    }
    atomic_store(&g_wr.started, 1);
    return 0;
}

/* Waits for the writer to finish: as long as it makes progress, and at most
 * CT_WRITER_STALL_NS without any. Only system calls that are
 * async-signal-safe (futex, clock_gettime): a signal handler waits here
 * too. Returns 1 when the writer finished. */
static int wait_done(void)
{
    uint64_t seen = atomic_load(&g_wr.progress), since = ct_mono_raw_ns();
    while (!atomic_load_explicit(&g_wr.done, memory_order_acquire)) {
        struct timespec ts = {0, CT_WRITER_STOP_POLL_NS};
        syscall(SYS_futex, &g_wr.done, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
        uint64_t p = atomic_load(&g_wr.progress), now = ct_mono_raw_ns();
        if (p != seen) {
            seen = p;
            since = now;
        } else if (now - since > CT_WRITER_STALL_NS) {
            return 0;
        }
    }
    return 1;
}

static int begin_stop(uint64_t mapped, uint64_t traced, int runtime_alive)
{
    if (!atomic_load(&g_wr.started) || atomic_exchange(&g_wr.stop_called, 1))
        return 0;
    /* Read by the writer after it sees g_wr.stopping (release/acquire). */
    g_wr.mapped = mapped;
    g_wr.traced = traced;
    g_wr.runtime_alive = runtime_alive;
    atomic_store_explicit(&g_wr.stopping, 1, memory_order_release);
    ct_writer_kick();
    return 1;
}

void ct_writer_count_unrewritten(void)
{
    atomic_fetch_add(&g_wr.unrewritten, 1);
}

void ct_writer_stop(uint64_t mapped, uint64_t traced, int runtime_alive)
{
    if (g_wr.cfg.naive) {
        if (!atomic_load(&g_wr.started) || atomic_exchange(&g_wr.stop_called, 1))
            return;
        pthread_mutex_lock(&g_wr.naive_lock);
        atomic_store(&g_wr.stopping, 1);
        g_wr.mapped = mapped;
        g_wr.traced = traced;
        g_wr.runtime_alive = runtime_alive;
        finish();
        pthread_mutex_unlock(&g_wr.naive_lock);
        return;
    }
    if (!begin_stop(mapped, traced, runtime_alive))
        return;
    if (wait_done())
        pthread_join(g_wr.thread, NULL);
    else
        writer_note("the trace writer made no progress for %llu s; the end of the trace may be "
                    "missing", (unsigned long long)(CT_WRITER_STALL_NS / 1000000000u));
}

int ct_writer_reset(void)
{
    if (!atomic_load(&g_wr.started))
        return 0;
    /* Only after a stop that ended the writer thread: nothing runs here. */
    if (!atomic_load(&g_wr.done) || g_wr.cfg.naive)
        return -1;
    drain_functions(); /* queued after the end: not this trace's */
    if (g_wr.render)
        ct_render_free(g_wr.render);
    g_wr.render = NULL;
    if (g_wr.filter)
        ct_filter_free(g_wr.filter);
    g_wr.filter = NULL;
    /* Kept for the next trace (g_wr.kept); the file buffer and the one being
     * compressed swap roles, so each goes back to the slot it now fills. */
    if (g_wr.bin_buf)
        g_wr.kept.bin = g_wr.bin_buf;
    if (g_wr.pend_buf)
        g_wr.kept.pend = g_wr.pend_buf;
    /* Their pages back to the system until the next trace writes them. */
    ct_pages_release(g_wr.kept.bin, CT_WRITER_FILE_BUFFER);
    ct_pages_release(g_wr.kept.blk, CT_WRITER_BLOCK_BYTES);
    ct_pages_release(g_wr.kept.z, CT_WRITER_FILE_BUFFER);
    ct_pages_release(g_wr.kept.pend, CT_WRITER_FILE_BUFFER);
    g_wr.bin_buf = g_wr.blk_buf = g_wr.zbuf = g_wr.pend_buf = NULL;
    g_wr.pend_on = 0;
    g_wr.pend_len = 0;
    g_wr.zctx = NULL;
    if (g_wr.seg.owned && g_wr.bin_fd >= 0)
        close(g_wr.bin_fd);
    g_wr.bin_fd = -1;
    g_wr.bin_len = 0;
    if (g_wr.seg.dir >= 0)
        close(g_wr.seg.dir);
    free(g_wr.seg.defs);
    memset(&g_wr.seg, 0, sizeof g_wr.seg);
    g_wr.seg.dir = -1;
    ct_table_free(&g_wr.seen_classes);
    memset(&g_wr.blk_mark, 0, sizeof g_wr.blk_mark);
    g_wr.events = g_wr.mapped = g_wr.traced = 0;
    g_wr.runtime_alive = 1;
    atomic_store(&g_wr.unrewritten, 0);
    atomic_store(&g_wr.jit_count, 0);
    atomic_store(&g_wr.jit_ns, 0);
    atomic_store(&g_wr.lost, 0);
    atomic_store(&g_wr.kick, 0);
    atomic_store(&g_wr.have_thread, 0);
    atomic_store(&g_wr.stopping, 0);
    atomic_store(&g_wr.stop_called, 0);
    atomic_store(&g_wr.done, 0);
    atomic_store(&g_wr.started, 0);
    /* The rings' memory back to the system until the next trace uses it
     * (issue 42: each thread's ring stayed resident after a session). */
    ct_tbuf_trim_all();
    /* Each thread's held time is counted from here. */
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next)
        b->held_reported = ct_ring_held(&b->ring) -
                           atomic_load_explicit(&b->ring.jit, memory_order_relaxed);
    return 0;
}

void ct_writer_stop_from_signal(uint64_t mapped, uint64_t traced)
{
    /* The naive mode writes under a lock: nothing to do safely here. */
    if (g_wr.cfg.naive || !begin_stop(mapped, traced, 1))
        return;
    if (!wait_done()) {
        static const char msg[] = "clrtrace: the trace writer made no progress; the end of the "
                                  "trace may be missing\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    }
}

