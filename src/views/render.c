/* The text log and the summary, rendered from trace records
 * (src/views/render.h). Used live by the profiler's writer thread and
 * offline by `clrtrace replay` / `clrtrace report`. */
#define _POSIX_C_SOURCE 200809L
#include "render.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hist.h"
#include "symbols.h"
#include "walk.h"
#include "format/words.h"
#include "base/table.h"
#include "base/text.h"

/* A thread's held-back line buffer at first (call text; PREFIX_MAX more go
 * before it); it grows to the longest line the thread holds back (a
 * process may have thousands of threads). */
#define INITIAL_PEND 256
/* Room for the line prefix (time, thread, duration, indentation). */
#define PREFIX_MAX (64 + 2 * CT_RENDER_MAX_INDENT)
/* Longest header or summary line (longer ones are cut, still ending in a
 * newline); call lines have their own limits (render.h). */
#define TEXT_LINE_MAX 2048
/* LINE records held until the UNWIND they go with (a tree filter may let
 * them out before the thread's events); past it the oldest is forgotten. */
#define RENDER_LINES_HELD 64
/* An opening line's end, after its call text in the held-back buffer. */
#define OPEN_END " {\n"
#define OPEN_END_LEN (sizeof OPEN_END - 1)
/* Most a folded line adds besides the end's text and the outs: " ->
 * exception ", "\n". */
#define FOLD_END_MAX 16
/* Most characters put_shown writes: 20 digits, '.', 20 more. */
#define FIXED_TEXT_MAX 48
/* Most characters put_uint writes: a u64's 20 digits, or a field of 24. */
#define UINT_TEXT_MAX 24

/* ------------------------------------------------------------- state */

/* A function's definition (the symbol table's) and its summary counts. */
typedef struct fn {
    const ct_function *def;
    uint64_t calls, total, self;
    uint64_t sum, min, max; /* every call's duration: summed, least, most */
    uint64_t jit;           /* ns its JIT compilation took (JIT records) */
    uint64_t jit_mark;      /* (opts.jit, lines) ns of a compilation not yet marked in
                               the tree: above the next call of it on jit_tid (or any
                               thread when 0: traces before 2.4) */
    uint64_t jit_tid;
    uint64_t exceptions;    /* calls that ended by an exception */
    uint64_t injected[4];   /* calls with a fault injected (INJECT): by action
                               (1 throw, 2 return, 3 delay; 0 unused) */
    ct_hist hist;           /* every call's duration (opts.stats, opts.histogram) */
    int hist_wanted;        /* 1: kept */
    uint64_t budget_skipped;/* calls left out by the budget or a limit (BUDGET) */
    uint32_t budget_step;   /* the budget's step (BUDGET records) */
    int budget_listed;      /* in ct_render.budget */
    /* Its calls open on one thread (serial open_owner; 0: none) are counted
     * here, those of other threads in their `open` tables: one thread at a
     * time calls most functions, and needs no table look-up per call. */
    uint64_t open_owner, open_n;
} fn;

/* Functions the summary names with the calls the budget or a limit left
 * out (the others are counted in budget_other). */
#define RENDER_BUDGET_FNS 64

/* An async call that returned its task before the task completed
 * (CT_FN_ASYNC, its id in the LEAVE): what its end's line needs. */
typedef struct acall {
    fn *f;
    uint64_t enter_ns, return_ns;
    size_t len;
    char call[];            /* its call text, len bytes */
} acall;
/* An async call's end that came before its return (its task completed on
 * another thread first): kept for that return. */
typedef struct aend {
    ct_rec_type type;
    uint64_t tid, time_ns;
    size_t len;
    char text[];            /* the end's text */
} aend;

typedef struct frame {
    ct_stack_frame h;       /* the function's key */
    fn *f;
    uint64_t start, child;
    uint64_t enter_ns;      /* the enter's time (an async call's) */
    char *call;             /* an async method's call text ("Name(args)"),
                               kept for the line of its end; NULL */
    size_t call_len;
    int nested;             /* a call of the same function is open below it on
                               the thread (recursion): its time is already in
                               that call's total */
    int injected;           /* a fault was injected into it (INJECT) */
} frame;

/* A thread's part of the renderer: the client area of its thread of the
 * walk (src/views/walk.h), whose stack holds the calls open, the outermost
 * CT_RENDER_MAX_FRAMES timed. Events of the thread were dropped when the
 * walk's thread counts some: pairing failures that follow are their echo. */
typedef struct thread {
    uint64_t serial;        /* 1, 2, ... in the order threads were made */
    ct_table open;          /* function key -> 1 + its kept frames open (the
                               functions whose fn.open_owner is another) */
    int pending;            /* an enter line is held back */
    struct thread *pprev, *pnext; /* the threads holding one back, by its time */
    char tid_text[UINT_TEXT_MAX]; /* the line prefix's thread field */
    size_t tid_len;
    uint64_t pend_time;
    unsigned pend_depth;
    const ct_function *pend_def; /* its function */
    size_t pend_len;        /* its call text's */
    size_t pend_cap;
    char *pend;             /* pend_cap bytes: PREFIX_MAX for the prefix, the call
                               text, room for the line's end: the line is made
                               here, around the text, and written from here */
} thread;

/* A prefix field's text for the value it last showed: most lines in a row
 * show the same time to the microsecond, and short calls the same
 * duration. */
typedef struct field {
    int valid;
    uint64_t shown;         /* the value as shown (put_shown's) */
    size_t len;
    char text[FIXED_TEXT_MAX];
} field;

struct ct_render {
    ct_render_opts opts;
    ct_render_sink sink;
    void *ctx;
    ct_symbols *sym;        /* functions and classes, value text */
    ct_table fns;           /* key -> fn */
    fn *recent_fn;          /* the one function_of gave last, for recent_key: a
                               call without children ends right after it began
                               (fns are freed only by ct_render_free) */
    uint64_t recent_key;
    ct_walk walk;           /* the threads and their stacks of calls */
    struct {                /* the event the walk is given (ct_render_record) */
        fn *f;              /* its function */
        const char *text;   /* the end's text: the return value ("int 0") or the
                               exception ("System.InvalidOperationException:
                               \"boom\""), or NULL */
        size_t text_len;
        size_t outs_len;    /* outs' text (out/ref parameters at return) */
        int line;           /* the text ends with the line an exception left it at */
        char *locals;       /* an UNWIND's frame's LOCALS text (owned), or NULL */
        size_t locals_len;
    } ev;
    /* LOCALS records (--locals) not yet matched with their UNWIND, oldest
     * first: their text ("total=150, i=3"), malloc'd. */
    struct { uint64_t tid, key, frame; char *text; size_t len; } locals[RENDER_LINES_HELD];
    unsigned nlocals;
    /* LINE records (--srcline) not yet matched with their UNWIND, oldest
     * first. */
    struct { uint64_t tid, key; uint32_t line, flags; } lines[RENDER_LINES_HELD];
    unsigned nlines;
    uint64_t dropped, events;
    /* --max-size: window_key, the number of the first SEGMENT record read
     * when it is not 0: the trace is the newest segments of one cut into
     * segment files, and calls that began before its first segment end in it
     * without their start, an end with no call open on its thread
     * (window_begun counts them, not shown). window_bytes: that SEGMENT's
     * bytes before; window_seen: a SEGMENT was read; window_said: the line
     * saying what was dropped was written (at the first event). */
    uint64_t window_key, window_bytes, window_begun;
    int window_seen, window_said;
    /* The threads holding an enter line back, oldest first (the events
     * come in time order): before a line of time T, those of them held
     * back from before T are written as opening lines ("... {"), so that
     * no line comes after one of a later time. */
    thread *phead, *ptail;
    int finished, have_end;
    int attached;           /* a trace of `clrtrace -p` (ct_header_attached) */
    uint64_t mapped, traced, unrewritten;
    ct_held *held;          /* HELD records summed per thread */
    size_t nheld;
    uint64_t jit_count, jit_ns; /* the process's JIT compilations (JIT record, key 0) */
    fn *budget[RENDER_BUDGET_FNS]; /* functions with calls left out (BUDGET records) */
    size_t nbudget;
    uint64_t budget_other;  /* left out of functions past them, or of no one function */
    char line[PREFIX_MAX + CT_RENDER_LINE_MAX + 2 * CT_RENDER_RET_MAX + CT_RENDER_SRC_MAX + 64];
    char ret[CT_RENDER_RET_MAX];
    char outs[CT_RENDER_RET_MAX]; /* "  v=12": out/ref parameters at return */
    /* Async calls by id % CT_RENDER_ASYNC_MAX (the profiler follows at most
     * that many at once, each in its own slot): the call whose task goes
     * on, or the end that came first; allocated at the first. */
    struct aslot { uint64_t id; acall *a; aend *e; } *async;
    field time_field, dur_field; /* the prefix's (prefix) */
};

static void emit(ct_render *r, const char *s, size_t n)
{
    if (n)
        r->sink(r->ctx, s, n);
}

static void emitf(ct_render *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emitf(ct_render *r, const char *fmt, ...)
{
    char buf[TEXT_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf) {
        n = (int)sizeof buf - 1;
        buf[n - 1] = '\n';
    }
    emit(r, buf, (size_t)n);
}

/* The walk's callbacks (records). */
static int thread_made(void *ctx, ct_walk_thread *t);
static void thread_freed(void *ctx, ct_walk_thread *t);
static void clear_pending(ct_render *r, struct thread *th);
static int call_opened(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth,
                       const ct_rec *rec, int nomem);
static int call_ended(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth,
                      ct_walk_end how, uint64_t end_ns, const ct_rec *rec);
static int call_unmatched(void *ctx, ct_walk_thread *t, uint32_t depth, const ct_rec *rec);

ct_render *ct_render_new(const ct_render_opts *opts, ct_render_sink sink, void *ctx)
{
    ct_render *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->opts = *opts;
    r->sink = sink;
    r->ctx = ctx;
    r->sym = ct_symbols_new();
    if (!r->sym) {
        free(r);
        return NULL;
    }
    static const ct_walk_ops ops = { .thread = thread_made, .thread_free = thread_freed,
                                     .open = call_opened, .end = call_ended,
                                     .unmatched = call_unmatched };
    ct_walk_init(&r->walk, &ops, r, sizeof(frame), CT_RENDER_MAX_FRAMES, sizeof(thread));
    return r;
}

void ct_render_free(ct_render *r)
{
    if (!r)
        return;
    ct_walk_free(&r->walk);
    for (size_t i = 0; i < r->fns.cap; i++) {
        fn *f = r->fns.slots[i].value;
        if (f)
            ct_hist_free(&f->hist);
        free(f);
    }
    ct_table_free(&r->fns);
    for (size_t i = 0; r->async && i < CT_RENDER_ASYNC_MAX; i++) {
        free(r->async[i].a);
        free(r->async[i].e);
    }
    free(r->async);
    free(r->held);
    for (unsigned i = 0; i < r->nlocals; i++)
        free(r->locals[i].text);
    free(r->ev.locals);
    ct_symbols_free(r->sym);
    free(r);
}


/* Decimal digits of v, right-aligned in out[0..width) (wider when needed;
 * width at most UINT_TEXT_MAX); returns the characters written (no NUL). */
static size_t put_uint(char *out, uint64_t v, int width, char fill)
{
    char tmp[CT_DEC_MAX];
    size_t n = ct_put_dec(tmp, v), k = 0;
    if (n > sizeof tmp) /* never: said for the compiler, which cannot see it */
        n = sizeof tmp;
    for (; (int)(k + n) < width && k + n < UINT_TEXT_MAX; k++)
        out[k] = fill;
    ct_copy_small(out + k, tmp, n);
    return k + n;
}

static uint64_t pow10_of(unsigned decimals)
{
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    return scale;
}

/* v (in 1/unit) as put_fixed shows it: in 10^-decimals of the unit,
 * rounded half up. */
static uint64_t fixed_shown(uint64_t v, unsigned decimals, uint64_t unit)
{
    uint64_t q = unit / pow10_of(decimals);
    return (v + q / 2) / q;
}

/* r / 10^decimals as "int.frac" in a field of `width`. */
static size_t put_shown(char *out, uint64_t r, unsigned decimals, int width)
{
    uint64_t scale = pow10_of(decimals);
    char tmp[FIXED_TEXT_MAX];
    size_t n = put_uint(tmp, r / scale, 0, ' ');
    if (decimals) {
        tmp[n++] = '.';
        n += put_uint(tmp + n, r % scale, (int)decimals, '0');
    }
    size_t k = 0;
    for (; (int)(k + n) < width; k++)
        out[k] = ' ';
    ct_copy_small(out + k, tmp, n);
    return k + n;
}

/* v / 10^decimals as "int.frac", rounded half up, in a field of `width`. */
static size_t put_fixed(char *out, uint64_t v, unsigned decimals, uint64_t unit, int width)
{
    return put_shown(out, fixed_shown(v, decimals, unit), decimals, width);
}

/* Durations under this many ns are shown in us (duration_text). */
#define DURATION_US_BELOW 1000000u

/* "0.8 us", "12.3 ms", "1.52 s" in a field of `width` (0: none). */
static size_t duration_text(uint64_t ns, char *out, int width)
{
    size_t n;
    char tmp[40];
    if (ns < DURATION_US_BELOW) {
        n = put_fixed(tmp, ns, 1, 1000, 0);
        memcpy(tmp + n, " us", 3);
    } else if (ns < 1000000000u) {
        n = put_fixed(tmp, ns, 1, 1000000, 0);
        memcpy(tmp + n, " ms", 3);
    } else {
        n = put_fixed(tmp, ns, 2, 1000000000, 0);
        memcpy(tmp + n, " s", 2);
        n -= 1;
    }
    n += 3;
    size_t k = 0;
    for (; (int)(k + n) < width; k++)
        out[k] = ' ';
    ct_copy_small(out + k, tmp, n);
    return k + n;
}

void ct_format_duration(uint64_t ns, char *out, size_t cap)
{
    char tmp[48];
    size_t n = duration_text(ns, tmp, 0);
    if (!cap)
        return;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, tmp, n);
    out[n] = '\0';
}

static int by_held(const void *a, const void *b)
{
    const ct_held *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int ct_held_add(ct_held **held, size_t *n, uint64_t tid, uint64_t ns)
{
    size_t i = 0;
    while (i < *n && (*held)[i].tid != tid)
        i++;
    if (i == *n) {
        ct_held *h = realloc(*held, (*n + 1) * sizeof *h);
        if (!h)
            return -1;
        *held = h;
        h[(*n)++] = (ct_held){tid, 0};
    }
    (*held)[i].ns += ns;
    return 0;
}

void ct_held_text(ct_held *held, size_t n, char *out, size_t cap)
{
    ct_text t;
    char d[32];
    uint64_t sum = 0;
    qsort(held, n, sizeof *held, by_held);
    for (size_t i = 0; i < n; i++)
        sum += held[i].ns;
    ct_text_init(&t, out, cap);
    ct_format_duration(sum, d, sizeof d);
    ct_text_printf(&t, "%s on %zu thread%s (", d, n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < CT_HELD_LIST_MAX; i++) {
        ct_format_duration(held[i].ns, d, sizeof d);
        ct_text_printf(&t, "%s%llu %s", i ? ", " : "", (unsigned long long)held[i].tid, d);
    }
    if (n > CT_HELD_LIST_MAX)
        ct_text_printf(&t, ", %zu more", n - CT_HELD_LIST_MAX);
    ct_text_put(&t, ")");
    ct_text_end(&t);
}

/* --------------------------------------------------------- the header */

void ct_render_header(ct_render *r, const ct_trace_header *h)
{
    char when[32] = "?";
    time_t secs = (time_t)(h->start_unix_ns / 1000000000u);
    struct tm utc;
    if (gmtime_r(&secs, &utc))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
    emitf(r, "# clrtrace: %.*s, pid %u, %s, filter: %.*s\n", (int)h->cmdline_len, h->cmdline,
          (unsigned)h->pid, when, (int)h->filter_len, h->filter);
    r->attached = ct_header_attached(h);
    if (!r->opts.lines)
        return;
    if (h->settings_len)
        emitf(r, "# %.*s\n", (int)h->settings_len, h->settings);
    emitf(r, "#  TIME(s)    TID   DURATION  CALL\n");
}

/* ------------------------------------------------------------ records */

static fn *remember(ct_render *r, uint64_t key, fn *f)
{
    r->recent_fn = f;
    r->recent_key = key;
    return f;
}

/* The summary counts of a key's function, made at its first event. */
static fn *function_of(ct_render *r, uint64_t key)
{
    if (r->recent_fn && r->recent_key == key)
        return r->recent_fn;
    fn *f = ct_table_get(&r->fns, key);
    if (f)
        return remember(r, key, f);
    const ct_function *def = ct_symbols_function(r->sym, key);
    if (!def || !(f = calloc(1, sizeof *f)))
        return NULL;
    f->def = def;
    f->hist_wanted = r->opts.stats || (r->opts.histogram && def->name &&
                                       ct_glob_list_match(r->opts.histogram, def->name));
    if (ct_table_put(&r->fns, key, f) != 0) {
        free(f);
        return NULL;
    }
    return remember(r, key, f);
}

/* The walk made a thread (its first event or DROPPED record). */
static int thread_made(void *ctx, ct_walk_thread *wt)
{
    (void)ctx;
    thread *t = wt->user;
    static uint64_t serials; /* the writer's thread, or the CLI's */
    t->serial = ++serials;
    t->tid_len = put_uint(t->tid_text, wt->tid, 6, ' ');
    t->pend_cap = PREFIX_MAX + INITIAL_PEND;
    t->pend = malloc(t->pend_cap);
    return t->pend ? 0 : -1;
}

static void thread_freed(void *ctx, ct_walk_thread *wt)
{
    ct_render *r = ctx;
    thread *t = wt->user;
    if (r)
        clear_pending(r, t);
    ct_table_free(&t->open);
    free(t->pend);
    /* The async call texts of calls still open. */
    for (uint32_t i = 0; i < wt->stack.kept; i++)
        free(((frame *)ct_stack_at(&wt->stack, i))->call);
}

/* "Point p={X=1, Y=2}, double k=1.5": f's labels and the values of rec
 * from *pos on (an event's values, a LOCALS record's after its first),
 * into t. */
static void values_text(ct_render *r, ct_text *t, const ct_function *f, const ct_rec *rec,
                        size_t *pos)
{
    const uint8_t *v;
    uint32_t len;
    ct_value_status st;
    for (uint32_t i = 0; i < f->nparams && ct_next_value(rec, pos, &v, &len, &st) == 1; i++) {
        if (i)
            ct_text_put(t, ", ");
        ct_text_putn(t, f->labels[i], f->label_lens[i]);
        ct_symbols_value_text(r->sym, f->plans[i], v, len, st, t);
    }
}

/* "Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5)" into t. */
static void call_text(ct_render *r, ct_text *t, const ct_function *f, const ct_rec *rec,
                      const uint8_t *ids)
{
    if (r->opts.ids) {
        if (ct_activity_none(ids)) {
            ct_text_put(t, "[-] ");
        } else {
            char trace[2 * CT_TRACE_ID_BYTES + 1], span[2 * CT_SPAN_ID_BYTES + 1];
            ct_trace_id_text(ids, trace);
            ct_span_id_text(ids + CT_TRACE_ID_BYTES, span);
            ct_text_put(t, "[");
            ct_text_put(t, trace);
            ct_text_put(t, "-");
            ct_text_put(t, span);
            ct_text_put(t, "] ");
        }
    }
    ct_text_putn(t, f->name, f->name_len);
    size_t pos = 0;
    if ((f->flags & CT_FN_PROBE) && rec->nvalues == f->nparams) {
        /* A line probe's hit: "@ Orders.cs:42  total=150, i=3". */
        if (f->nparams)
            ct_text_put(t, "  ");
        values_text(r, t, f, rec, &pos);
    } else if (f->flags & CT_FN_NO_VALUES) {
        ct_text_put(t, "(...)");
    } else if (rec->nvalues != f->nparams) {
        ct_text_put(t, "(?)");
    } else {
        ct_text_put(t, "(");
        values_text(r, t, f, rec, &pos);
        ct_text_put(t, ")");
    }
}

/* th->pend holds at least `need` bytes (those it holds kept); -1 when
 * memory ran out. */
static int pend_room(thread *th, size_t need)
{
    if (need <= th->pend_cap)
        return 0;
    size_t cap = th->pend_cap;
    while (cap < need)
        cap *= 2;
    char *more = realloc(th->pend, cap);
    if (!more)
        return -1;
    th->pend = more;
    th->pend_cap = cap;
    return 0;
}

/* The call's text into th->pend, after the prefix's room, cut at
 * CT_RENDER_LINE_MAX; text the buffer cannot hold grows it and is made
 * again (th->pend_len 0 when memory ran out). */
static void format_call(ct_render *r, thread *th, const ct_function *f, const ct_rec *rec,
                        const uint8_t *ids)
{
    for (;;) {
        size_t room = th->pend_cap - PREFIX_MAX - OPEN_END_LEN;
        if (room > CT_RENDER_LINE_MAX)
            room = CT_RENDER_LINE_MAX;
        ct_text t;
        ct_text_init(&t, th->pend + PREFIX_MAX, room);
        call_text(r, &t, f, rec, ids);
        if (t.len < room || room == CT_RENDER_LINE_MAX) {
            th->pend_len = ct_text_end(&t);
            return;
        }
        size_t want = t.len < CT_RENDER_LINE_MAX ? t.len + 1 : CT_RENDER_LINE_MAX;
        if (pend_room(th, PREFIX_MAX + want + OPEN_END_LEN) != 0) {
            th->pend_len = 0;
            return;
        }
    }
}

/* The prefix's time field: seconds, 6 decimals, 10 wide. */
static const field *time_field(ct_render *r, uint64_t t_ns)
{
    field *c = &r->time_field;
    uint64_t us = fixed_shown(t_ns, 6, 1000000000);
    if (!c->valid || c->shown != us) {
        c->len = put_shown(c->text, us, 6, 10);
        c->shown = us;
        c->valid = 1;
    }
    return c;
}

/* The prefix's duration field, 10 wide. */
static const field *duration_field(ct_render *r, uint64_t ns)
{
    field *c = &r->dur_field;
    if (ns >= DURATION_US_BELOW) {
        c->len = duration_text(ns, c->text, 10);
        c->valid = 0;
        return c;
    }
    uint64_t tenths = fixed_shown(ns, 1, 1000); /* all the text shows of ns */
    if (!c->valid || c->shown != tenths) {
        c->len = duration_text(ns, c->text, 10);
        c->shown = tenths;
        c->valid = 1;
    }
    return c;
}

/* The prefix's blanks (the duration's when it has none, the indentation),
 * copied: memset's `rep stos` took a quarter of prefix's time. Its fields
 * are copied by ct_copy_small: a call of memcpy each was as much again. */
#define BLANKS8 "        "
static const char k_blanks[] = BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8
    BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8 BLANKS8;
_Static_assert(sizeof k_blanks - 1 >= 2 + 2 * CT_RENDER_MAX_INDENT, "k_blanks too short");

/* The line prefix, written just before `end` (at least PREFIX_MAX bytes
 * into its buffer; the line's text follows): time (seconds, 6 decimals, 10
 * wide), thread (6 wide), duration (10 wide, or blanks), two spaces,
 * indentation. Returns its length. */
static size_t prefix(ct_render *r, char *end, uint64_t t_ns, const thread *th,
                     const uint64_t *dur, unsigned depth)
{
    const field *tf = time_field(r, t_ns);
    const field *df = dur ? duration_field(r, *dur) : NULL;
    unsigned indent = depth < CT_RENDER_MAX_INDENT ? depth : CT_RENDER_MAX_INDENT;
    size_t blanks = 2 + 2 * (size_t)indent;
    size_t len = tf->len + 1 + th->tid_len + 1 + (df ? df->len : 10) + blanks;
    char *out = end - len;
    size_t n = tf->len;
    ct_copy_small(out, tf->text, n);
    out[n++] = ' ';
    ct_copy_small(out + n, th->tid_text, th->tid_len);
    n += th->tid_len;
    out[n++] = ' ';
    if (df) {
        ct_copy_small(out + n, df->text, df->len);
        n += df->len;
    } else {
        memcpy(out + n, k_blanks, 10);
        n += 10;
    }
    ct_copy_small(out + n, k_blanks, blanks);
    return len;
}

static void put(char *line, size_t *n, const char *s, size_t len)
{
    ct_copy_small(line + *n, s, len);
    *n += len;
}

/* th holds its enter line back (at the list's end: the latest). */
static void set_pending(ct_render *r, thread *th)
{
    if (th->pending)
        clear_pending(r, th);
    th->pending = 1;
    th->pnext = NULL;
    th->pprev = r->ptail;
    if (r->ptail)
        r->ptail->pnext = th;
    else
        r->phead = th;
    r->ptail = th;
}

static void clear_pending(ct_render *r, thread *th)
{
    if (!th->pending)
        return;
    th->pending = 0;
    if (th->pprev)
        th->pprev->pnext = th->pnext;
    else
        r->phead = th->pnext;
    if (th->pnext)
        th->pnext->pprev = th->pprev;
    else
        r->ptail = th->pprev;
    th->pprev = th->pnext = NULL;
}

/* " at Orders.cs:42": def's source location as opts.srcline asks, into
 * out[CT_RENDER_SRC_MAX]; its length, 0 when not asked or not known. */
static size_t src_suffix(const ct_render *r, const ct_function *def, char *out)
{
    if (!r->opts.srcline || !def || !def->src_file)
        return 0;
    const char *file = def->src_file + (r->opts.srcline == 1 ? def->src_root : 0);
    char num[16];
    int nl = snprintf(num, sizeof num, ":%u", def->src_line);
    size_t len = strlen(file), room = CT_RENDER_SRC_MAX - 4 - (size_t)nl - 3;
    size_t n = 0;
    memcpy(out, " at ", 4);
    n = 4;
    if (len > room) {
        memcpy(out + n, "...", 3);
        n += 3;
        file += len - room;
        len = room;
    }
    memcpy(out + n, file, len);
    n += len;
    memcpy(out + n, num, (size_t)nl);
    return n + (size_t)nl;
}

/* Writes the held-back enter line as an opening line: "... {", then its
 * source location when asked. */
static void flush_pending(ct_render *r, thread *th)
{
    if (!th->pending)
        return;
    clear_pending(r, th);
    if (!r->opts.lines)
        return;
    char src[CT_RENDER_SRC_MAX];
    size_t sn = src_suffix(r, th->pend_def, src);
    if (sn && pend_room(th, PREFIX_MAX + th->pend_len + OPEN_END_LEN + sn) != 0)
        sn = 0;
    char *text = th->pend + PREFIX_MAX;
    size_t n = prefix(r, text, th->pend_time, th, NULL, th->pend_depth);
    /* A line probe's hit whose LEAVE the trace does not have (the trace
     * ended right after it) is a hit all the same: no " {". */
    size_t open = th->pend_def && (th->pend_def->flags & CT_FN_PROBE) ? 0 : OPEN_END_LEN - 1;
    memcpy(text + th->pend_len, OPEN_END, open);
    memcpy(text + th->pend_len + open, src, sn);
    text[th->pend_len + open + sn] = '\n';
    emit(r, text - n, n + th->pend_len + open + 1 + sn);
}

/* "# jit 1.23 ms" at the call's place in the tree (depth), above it. */
static void mark_jit(ct_render *r, thread *th, fn *f, const ct_rec *rec, unsigned depth)
{
    char d[32];
    ct_format_duration(f->jit_mark, d, sizeof d);
    f->jit_mark = 0;
    char *text = r->line + PREFIX_MAX;
    size_t n = prefix(r, text, rec->time_ns, th, NULL, depth);
    size_t k = 0;
    put(text, &k, "# jit ", 6);
    put(text, &k, d, strlen(d));
    put(text, &k, "\n", 1);
    emit(r, text - n, n + k);
}

/* Pairing failures count as dropped events, unless events of the thread
 * were dropped (they are their echo). */
static void count_dropped(ct_render *r, const ct_walk_thread *t, uint64_t n)
{
    if (!t->dropped)
        r->dropped += n;
}

/* The calls of f open on th (its kept frames). */
static uint64_t open_count(const thread *th, const fn *f)
{
    if (f->open_owner == th->serial)
        return f->open_n;
    uintptr_t n = (uintptr_t)ct_table_get(&th->open, f->def->key);
    return n ? n - 1 : 0;
}

/* One call of f more (d 1) or less (-1) open on th. */
static void open_change(thread *th, fn *f, int d)
{
    if (f->open_owner == th->serial) {
        if (d > 0 || f->open_n)
            f->open_n += (uint64_t)(int64_t)d;
        return;
    }
    uintptr_t n = (uintptr_t)ct_table_get(&th->open, f->def->key);
    uint64_t now = n ? n - 1 : 0;
    if (d > 0 && !now && !f->open_n) {
        f->open_owner = th->serial; /* no thread has it open: this one counts in f */
        f->open_n = 1;
        return;
    }
    if (d < 0 && !now)
        return;
    ct_table_put(&th->open, f->def->key, (void *)(uintptr_t)(now + (uint64_t)(int64_t)d + 1));
}

/* The walk opened a call of r->ev.f: its enter line is held back (the call
 * held back before has a child: it opens a block); its frame, timed when
 * it is kept, nested when a call of its function is open below it. */
static int call_opened(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth,
                       const ct_rec *rec, int nomem)
{
    (void)nomem;
    ct_render *r = ctx;
    thread *th = t->user;
    fn *f = r->ev.f;
    flush_pending(r, th);
    /* A line probe's hit counts as it is shown (its end may be past the
     * trace's). */
    if (f->def->flags & CT_FN_PROBE)
        f->calls++;
    if (f->jit_mark && (!f->jit_tid || f->jit_tid == rec->tid))
        mark_jit(r, th, f, rec, depth);
    if (r->opts.lines)
        format_call(r, th, f->def, rec, t->ids);
    th->pend_time = rec->time_ns;
    set_pending(r, th);
    th->pend_depth = depth;
    th->pend_def = f->def;
    frame *fr = fp;
    if (fr) {
        fr->f = f;
        fr->enter_ns = rec->time_ns;
        if ((f->def->flags & CT_FN_ASYNC) && r->opts.lines && th->pend_len &&
            (fr->call = malloc(th->pend_len)) != NULL) {
            memcpy(fr->call, th->pend + PREFIX_MAX, th->pend_len);
            fr->call_len = th->pend_len;
        }
        fr->start = ct_rec_prog_ns(rec); /* durations leave the held time out */
        fr->nested = open_count(th, f) > 0;
        fr->injected = 0;
        open_change(th, f, 1);
    }
    return 0;
}

/* A kept frame leaves: its function is open once less on the thread. */
static void forget(thread *th, frame *fr)
{
    if (fr->f)
        open_change(th, fr->f, -1);
    free(fr->call);
    fr->call = NULL;
}

/* Counts one call of f that took total ns (self: less its callees'). */
static void count_call(fn *f, uint64_t total, uint64_t self, int nested)
{
    /* (out of memory: the percentiles are of the calls counted before) */
    if (f->hist_wanted)
        (void)ct_hist_add(&f->hist, total);
    if (!(f->def->flags & CT_FN_PROBE)) /* (counted when it opened) */
        f->calls++;
    /* A function's total counts each call once: its outermost calls on
     * each thread (a recursive call's time is in its caller's). */
    if (!nested)
        f->total += total;
    f->sum += total;
    if (f->calls == 1 || total < f->min)
        f->min = total;
    if (total > f->max)
        f->max = total;
    f->self += self;
}

/* The summary counts of fr's call, ended at program time now (counted: 0
 * for an async call whose task goes on: it is counted at its end); its
 * duration, added to its caller's callees' time. */
static uint64_t time_call(ct_walk_thread *t, frame *fr, uint64_t now, int counted)
{
    fn *f = fr->f;
    uint64_t total = now > fr->start ? now - fr->start : 0;
    uint64_t self = total > fr->child ? total - fr->child : 0;
    if (counted)
        count_call(f, total, self, fr->nested);
    frame *caller = ct_walk_caller(t);
    if (caller)
        caller->child += total;
    return total;
}

/* The line of a call that ended (how) at now, `depth` calls deep: folded
 * onto its held-back enter line when it had no children, else "} -> value".
 * timed: 1 with its duration dur, 0 when it was not timed, -1 when it was
 * not entered on this thread. The end's text is r->ev's. */
static void end_line(ct_render *r, thread *th, uint64_t now, ct_walk_end how, int timed,
                     uint64_t dur, unsigned depth)
{
    /* (A line probe's hit has no duration.) */
    const uint64_t *d = timed == 1 && !(th->pending && th->pend_def &&
                                         (th->pend_def->flags & CT_FN_PROBE))
                            ? &dur : NULL;
    const char *ret = r->ev.text;
    size_t ret_len = r->ev.text_len;
    char *line;             /* the line's text, after its prefix's room */
    size_t n, pre;
    if (th->pending && timed >= 0 && th->pend_depth == depth) {
        clear_pending(r, th);
        if (!r->opts.lines)
            return;
        char src[CT_RENDER_SRC_MAX];
        /* The call's location, unless the exception's line says more. */
        size_t sn = r->ev.line ? 0 : src_suffix(r, th->pend_def, src);
        /* Folded onto the call text where it is, unless the end's text
         * does not fit and the buffer cannot grow. */
        if (pend_room(th, PREFIX_MAX + th->pend_len + ret_len + r->ev.outs_len + FOLD_END_MAX +
                              sn) == 0) {
            line = th->pend + PREFIX_MAX;
        } else {
            line = r->line + PREFIX_MAX;
            memcpy(line, th->pend + PREFIX_MAX, th->pend_len);
        }
        pre = prefix(r, line, th->pend_time, th, d, depth);
        n = th->pend_len;
        if (how == CT_WALK_EXCEPTION) {
            put(line, &n, " -> exception", 13);
            if (ret) {
                put(line, &n, " ", 1);
                put(line, &n, ret, ret_len);
            }
        } else if (how == CT_WALK_TAILCALL)
            put(line, &n, " -> tailcall", 12);
        else if (ret) {
            put(line, &n, " -> ", 4);
            put(line, &n, ret, ret_len);
        }
        put(line, &n, r->outs, r->ev.outs_len);
        put(line, &n, src, sn);
    } else {
        flush_pending(r, th);
        /* A line probe's hit whose line another thread's came after: it
         * has no end of its own to show. */
        if (!r->opts.lines || (timed >= 0 && r->ev.f && (r->ev.f->def->flags & CT_FN_PROBE)))
            return;
        line = r->line + PREFIX_MAX;
        pre = prefix(r, line, now, th, d, depth);
        n = 0;
        line[n++] = '}';
        if (how == CT_WALK_EXCEPTION) {
            put(line, &n, " exception", 10);
            if (ret) {
                put(line, &n, " ", 1);
                put(line, &n, ret, ret_len);
            }
        } else if (how == CT_WALK_TAILCALL)
            put(line, &n, " tailcall", 9);
        else if (ret) {
            put(line, &n, " -> ", 4);
            put(line, &n, ret, ret_len);
        }
        put(line, &n, r->outs, r->ev.outs_len);
        if (timed < 0) {
            static const char note[] = "  (not entered on this thread)";
            put(line, &n, note, sizeof note - 1);
        }
    }
    line[n++] = '\n';
    emit(r, line - pre, pre + n);
    if (r->ev.locals) {
        /* --locals: the frame's values as the exception passed, on a line
         * of its own under it. */
        char *l2 = r->line + PREFIX_MAX;
        size_t p2 = prefix(r, l2, now, th, NULL, depth + 1), k = 0;
        put(l2, &k, "locals: ", 8);
        put(l2, &k, r->ev.locals, r->ev.locals_len < CT_RENDER_LINE_MAX ? r->ev.locals_len
                                                                       : CT_RENDER_LINE_MAX);
        l2[k++] = '\n';
        emit(r, l2 - p2, p2 + k);
    }
}

/* The T of "Task<T> " or "ValueTask<T> " (an async call's return label):
 * the label its result is shown with ("int "); "" for a Task without one. */
static size_t result_label(const ct_function *def, char *out, size_t cap)
{
    const char *l = def->ret_label;
    size_t n = def->ret_label_len;
    /* A runtime-async method's return value is its task's T already. */
    if (def->flags & CT_FN_RT_ASYNC) {
        if (!l || !def->ret || n + 1 > cap)
            return 0;
        memcpy(out, l, n);
        return n;
    }
    const char *lt = l ? memchr(l, '<', n) : NULL;
    if (!lt || n < 3 || l[n - 1] != ' ' || l[n - 2] != '>')
        return 0;
    size_t len = (size_t)(l + n - 2 - (lt + 1));
    if (len + 2 > cap)
        return 0;
    memcpy(out, lt + 1, len);
    out[len++] = ' ';
    return len;
}

/* The line and the counts of the end of async call a (its task completed:
 * an ASYNC_RETURN or ASYNC_FAULT of type `type` at time_ns on thread t,
 * its text end[0..end_len)): its duration from its enter to the later of
 * that end and its return. */
static void async_line(ct_render *r, const acall *a, ct_rec_type type, ct_walk_thread *t,
                       uint64_t time_ns, const char *end, size_t end_len)
{
    /* The call ends when its task has ended and it has returned. */
    uint64_t last = time_ns > a->return_ns ? time_ns : a->return_ns;
    uint64_t dur = last > a->enter_ns ? last - a->enter_ns : 0;
    count_call(a->f, dur, dur, 0);
    if (type == CT_REC_ASYNC_FAULT)
        a->f->exceptions++;
    thread *th = t->user;
    flush_pending(r, th);
    if (!r->opts.lines)
        return;
    char *line = r->line + PREFIX_MAX;
    size_t pre = prefix(r, line, time_ns, th, &dur, t->stack.depth);
    size_t n = 0;
    put(line, &n, a->call, a->len);
    if (type == CT_REC_ASYNC_FAULT) {
        put(line, &n, " -> exception", 13);
        if (end_len)
            put(line, &n, " ", 1);
    } else if (end_len) {
        put(line, &n, " -> ", 4);
    }
    put(line, &n, end, end_len);
    static const char note[] = "  (async: task ended)";
    put(line, &n, note, sizeof note - 1);
    line[n++] = '\n';
    emit(r, line - pre, pre + n);
}

/* The text of an async call's end record into r->ret (the result, with the
 * label of the call's T when def says it; the exception): its length. */
static size_t async_end_text(ct_render *r, const ct_function *def, const ct_rec *rec)
{
    ct_text t;
    ct_text_init(&t, r->ret, sizeof r->ret);
    if (rec->type == CT_REC_ASYNC_FAULT) {
        ct_symbols_exception_text(r->sym, rec, &t);
    } else {
        char label[256];
        size_t ln = def ? result_label(def, label, sizeof label) : 0;
        size_t at = t.len;
        ct_text_putn(&t, label, ln);
        if (!ct_symbols_async_result_text(r->sym, def, rec, &t))
            t.len = at; /* no result: a Task's */
    }
    return ct_text_end(&t);
}

/* The slot of async call id (allocated at the first), or NULL. */
static struct aslot *async_slot(ct_render *r, uint64_t id)
{
    if (!r->async && !(r->async = calloc(CT_RENDER_ASYNC_MAX, sizeof *r->async)))
        return NULL;
    return &r->async[id % CT_RENDER_ASYNC_MAX];
}

/* Empties a slot (what it held is forgotten: a damaged trace's, or one
 * whose other half never came). */
static void async_clear(struct aslot *sl)
{
    free(sl->a);
    free(sl->e);
    sl->a = NULL;
    sl->e = NULL;
    sl->id = 0;
}

/* Whether the end of async call id came before its return. */
static int async_ended_first(ct_render *r, uint64_t id)
{
    const struct aslot *sl = r->async ? &r->async[id % CT_RENDER_ASYNC_MAX] : NULL;
    return sl && sl->e && sl->id == id;
}

/* Async call `id` returned its task (fr: its frame, ending): kept until an
 * end record of that id; when that came first, its line now. */
static void async_begin(ct_render *r, frame *fr, uint64_t id, uint64_t return_ns)
{
    size_t len = fr->call ? fr->call_len : 0;
    acall *a = malloc(sizeof *a + len);
    if (!a)
        return;
    a->f = fr->f;
    a->enter_ns = fr->enter_ns;
    a->return_ns = return_ns;
    a->len = len;
    if (len)
        memcpy(a->call, fr->call, len);
    struct aslot *sl = async_slot(r, id);
    if (!sl) {
        free(a);
        return;
    }
    if (sl->e && sl->id == id) {
        ct_walk_thread *t = ct_walk_thread_of(&r->walk, sl->e->tid);
        if (t) {
            /* Its text was made without the call's label: now with it. */
            char label[256];
            size_t ln = sl->e->type == CT_REC_ASYNC_RETURN && sl->e->len
                            ? result_label(a->f->def, label, sizeof label) : 0;
            if (ln + sl->e->len <= sizeof r->ret) {
                memcpy(r->ret, label, ln);
                memcpy(r->ret + ln, sl->e->text, sl->e->len);
                async_line(r, a, sl->e->type, t, sl->e->time_ns, r->ret, ln + sl->e->len);
            }
        }
        async_clear(sl);
        free(a);
        return;
    }
    async_clear(sl);
    sl->id = id;
    sl->a = a;
}

/* An ASYNC_RETURN or ASYNC_FAULT record: the end of the async call of its
 * id, or kept for that call's return when it has not come yet. */
static int async_end(ct_render *r, const ct_rec *rec)
{
    ct_walk_thread *t = ct_walk_thread_of(&r->walk, rec->tid);
    if (!t)
        return -1;
    struct aslot *sl = async_slot(r, rec->key);
    if (!sl)
        return -1;
    acall *a = sl->a && sl->id == rec->key ? sl->a : NULL;
    size_t n = async_end_text(r, a ? a->f->def : NULL, rec);
    if (a) {
        /* A line of this time: the enters held back from before it first. */
        thread *th = t->user;
        while (r->phead && r->phead != th && r->phead->pend_time < rec->time_ns)
            flush_pending(r, r->phead);
        async_line(r, a, rec->type, t, rec->time_ns, r->ret, n);
        async_clear(sl);
        return 0;
    }
    aend *e = malloc(sizeof *e + n);
    if (!e)
        return -1;
    e->type = rec->type;
    e->tid = rec->tid;
    e->time_ns = rec->time_ns;
    e->len = n;
    memcpy(e->text, r->ret, n);
    async_clear(sl);
    sl->id = rec->key;
    sl->e = e;
    return 0;
}

/* The walk closed a call. One whose end was missed (a dropped event, an
 * unwinding the runtime did not report) goes, uncounted, as a dropped
 * event, its enter line (when held back) with it. */
static int call_ended(void *ctx, ct_walk_thread *t, void *fp, uint32_t depth,
                      ct_walk_end how, uint64_t end_ns, const ct_rec *rec)
{
    (void)end_ns;
    ct_render *r = ctx;
    thread *th = t->user;
    frame *fr = fp;
    if (how == CT_WALK_MISSED) {
        count_dropped(r, t, 1);
        forget(th, fr);
        clear_pending(r, th);
        return 0;
    }
    if (how == CT_WALK_OPEN) /* the renderer never closes the walk */
        return 0;
    if (!fr) {
        count_dropped(r, t, 1);
        end_line(r, th, rec->time_ns, how, 0, 0, depth);
        return 0;
    }
    uint64_t id = how == CT_WALK_RETURN ? ct_symbols_async_id(fr->f->def, rec) : 0;
    uint64_t dur = time_call(t, fr, ct_rec_prog_ns(rec), !id);
    if (how == CT_WALK_EXCEPTION)
        fr->f->exceptions++;
    if (fr->injected && r->opts.lines) {
        static const char mark[] = "  [injected]";
        if (r->ev.outs_len + sizeof mark <= sizeof r->outs) {
            memcpy(r->outs + r->ev.outs_len, mark, sizeof mark - 1);
            r->ev.outs_len += sizeof mark - 1;
        }
    }
    /* (An end that came first is told right after this line.) */
    if (id && r->opts.lines && !async_ended_first(r, id)) {
        static const char note[] = "  (async: goes on)";
        if (r->ev.outs_len + sizeof note <= sizeof r->outs) {
            memcpy(r->outs + r->ev.outs_len, note, sizeof note - 1);
            r->ev.outs_len += sizeof note - 1;
        }
    }
    end_line(r, th, rec->time_ns, how, 1, dur, depth);
    if (id)
        async_begin(r, fr, id, rec->time_ns);
    forget(th, fr);
    return 0;
}

/* An end of a call not entered on this thread, as far as the trace says. */
static int call_unmatched(void *ctx, ct_walk_thread *t, uint32_t depth, const ct_rec *rec)
{
    ct_render *r = ctx;
    /* --max-size: a call begun in a segment no longer kept (an end with no
     * call open on its thread, and no events of the thread dropped). */
    if (r->window_key && depth == 0 && !t->dropped) {
        r->window_begun++;
        return 0;
    }
    count_dropped(r, t, 1);
    ct_walk_end how = rec->type == CT_REC_LEAVE    ? CT_WALK_RETURN
                      : rec->type == CT_REC_UNWIND ? CT_WALK_EXCEPTION
                                                   : CT_WALK_TAILCALL;
    end_line(r, t->user, rec->time_ns, how, -1, 0, depth);
    return 0;
}

/* The end's text of a LEAVE record into r->ev: the return value, and the
 * out/ref parameters at return. */
static void leave_text(ct_render *r, const ct_function *def, const ct_rec *rec)
{
    if (r->opts.lines && !(def->flags & CT_FN_NO_VALUES) && def->ret) {
        ct_text t;
        ct_text_init(&t, r->ret, sizeof r->ret);
        ct_text_putn(&t, def->ret_label, def->ret_label_len);
        /* (Nothing, label included, for a runtime-async call that goes on.) */
        int shown = ct_symbols_return_text(r->sym, def, rec, &t);
        r->ev.text_len = shown ? ct_text_end(&t) : 0;
        r->ev.text = shown ? r->ret : NULL;
    }
    if (r->opts.lines && def->out_mask) {
        ct_text t;
        ct_text_init(&t, r->outs, sizeof r->outs);
        ct_symbols_out_text(r->sym, def, rec, &t);
        r->ev.outs_len = ct_text_end(&t);
    }
}

/* The end's text of an UNWIND record into r->ev: "} exception
 * System.InvalidOperationException: \"boom\"" when the record says which. */
/* A LINE record: held for the UNWIND it goes with. */
static int line_record(ct_render *r, const ct_rec *rec)
{
    if (r->nlines == RENDER_LINES_HELD) {
        memmove(r->lines, r->lines + 1, sizeof r->lines[0] * (RENDER_LINES_HELD - 1));
        r->nlines--;
    }
    r->lines[r->nlines].tid = rec->tid;
    r->lines[r->nlines].key = rec->key;
    r->lines[r->nlines].line = rec->src_line;
    r->lines[r->nlines].flags = rec->flags;
    r->nlines++;
    return 0;
}

/* An INJECT record: the thread's innermost open call, of its function,
 * is marked (its end's line says "[injected]"); counted by action. */
static int inject_record(ct_render *r, const ct_rec *rec)
{
    ct_walk_thread *t = ct_walk_thread_of(&r->walk, rec->tid);
    fn *f = function_of(r, rec->key);
    if (!t || !f)
        return -1;
    f->injected[rec->inject_action & 3]++;
    frame *fr = t->stack.depth == t->stack.kept ? ct_stack_top(&t->stack) : NULL;
    if (fr && fr->h.key == rec->key)
        fr->injected = 1;
    return 0;
}

/* A LOCALS record: its text held for the UNWIND it goes with (value 0: the
 * frame's function; the others by its locals record's plans). */
static int locals_record(ct_render *r, const ct_rec *rec)
{
    fn *pf = function_of(r, rec->key);
    if (!pf || !r->opts.lines)
        return pf ? 0 : -1;
    size_t pos = 0;
    const uint8_t *v;
    uint32_t len;
    ct_value_status st;
    uint64_t owner = 0, id = 0;
    if (ct_next_value(rec, &pos, &v, &len, &st) != 1 || len != 16)
        return 0;
    memcpy(&owner, v, 8);
    memcpy(&id, v + 8, 8);
    ct_text t;
    ct_text_init(&t, r->ret, sizeof r->ret);
    values_text(r, &t, pf->def, rec, &pos);
    size_t n = ct_text_end(&t);
    char *text = malloc(n + 1);
    if (!text)
        return -1;
    memcpy(text, r->ret, n);
    text[n] = '\0';
    /* The same frame again (an exception its finally threw): the values
     * of the exception that leaves it. */
    for (unsigned i = 0; id && i < r->nlocals; i++)
        if (r->locals[i].tid == rec->tid && r->locals[i].key == owner &&
            r->locals[i].frame == id) {
            free(r->locals[i].text);
            r->locals[i].text = text;
            r->locals[i].len = n;
            return 0;
        }
    if (r->nlocals == RENDER_LINES_HELD) {
        free(r->locals[0].text);
        memmove(r->locals, r->locals + 1, sizeof r->locals[0] * (RENDER_LINES_HELD - 1));
        r->nlocals--;
    }
    r->locals[r->nlocals].tid = rec->tid;
    r->locals[r->nlocals].key = owner;
    r->locals[r->nlocals].frame = id;
    r->locals[r->nlocals].text = text;
    r->locals[r->nlocals].len = n;
    r->nlocals++;
    return 0;
}

/* The LOCALS text held for an UNWIND of function def on thread tid (the
 * oldest of that thread and function), into r->ev.locals (owned). */
static void take_locals(ct_render *r, uint64_t tid, const ct_function *def)
{
    unsigned i;
    for (i = 0; i < r->nlocals; i++)
        if (r->locals[i].tid == tid && r->locals[i].key == def->key)
            break;
    if (i == r->nlocals)
        return;
    free(r->ev.locals);
    r->ev.locals = r->locals[i].text;
    r->ev.locals_len = r->locals[i].len;
    memmove(r->locals + i, r->locals + i + 1, sizeof r->locals[0] * (r->nlocals - i - 1));
    r->nlocals--;
}

/* The line held for an UNWIND of function def on thread tid (the oldest of
 * that thread and function; those of the thread before it are forgotten): 1
 * and *line, *flags, or 0. */
static int take_line(ct_render *r, uint64_t tid, const ct_function *def, uint32_t *line,
                     uint32_t *flags)
{
    unsigned i, k = 0;
    for (i = 0; i < r->nlines; i++)
        if (r->lines[i].tid == tid && r->lines[i].key == def->key)
            break;
    if (i == r->nlines)
        return 0;
    *line = r->lines[i].line;
    *flags = r->lines[i].flags;
    for (unsigned j = 0; j < r->nlines; j++)
        if (j > i || r->lines[j].tid != tid)
            r->lines[k++] = r->lines[j];
    r->nlines = k;
    return 1;
}

static void unwind_text(ct_render *r, const ct_function *def, const ct_rec *rec)
{
    if (!r->opts.lines)
        return;
    if (r->nlocals)
        take_locals(r, rec->tid, def);
    size_t n = 0;
    if (rec->nvalues) {
        ct_text t;
        ct_text_init(&t, r->ret, sizeof r->ret);
        if (ct_symbols_exception_text(r->sym, rec, &t))
            n = ct_text_end(&t);
    }
    /* --srcline: " thrown at Program.cs:12" (the frame it came out of
     * first), " at Program.cs:20" (a frame it passed through). */
    uint32_t line, flags;
    if (r->opts.srcline && def->src_file && take_line(r, rec->tid, def, &line, &flags) &&
        n + CT_RENDER_SRC_MAX + 8 < sizeof r->ret) {
        const char *file = def->src_file + (r->opts.srcline == 1 ? def->src_root : 0);
        int k = snprintf(r->ret + n, CT_RENDER_SRC_MAX + 8, "%s%sat %s:%u", n ? " " : "",
                         flags & CT_LINE_THROWN ? "thrown " : "", file, line);
        if (k > 0)
            n += (size_t)k < CT_RENDER_SRC_MAX + 8 ? (size_t)k : CT_RENDER_SRC_MAX + 7;
        r->ev.line = 1;
    }
    if (n) {
        r->ev.text_len = n;
        r->ev.text = r->ret;
    }
}

static void finish(ct_render *r);

/* ------------------------------------------------------------ budget */

static const char *const k_budget_steps[] = {"recorded again", "values off",
                                             "sampled: one call in 16 per thread",
                                             "untraced"};

/* A BUDGET record: a line when it changed a function's step (lines), the
 * calls left out for the summary. */
static int budget_record(ct_render *r, const ct_rec *rec)
{
    if (!rec->key) {
        r->budget_other = rec->count;
        return 0;
    }
    fn *f = function_of(r, rec->key);
    if (!f)
        return -1;
    uint64_t more = rec->count > f->budget_skipped ? rec->count - f->budget_skipped : 0;
    f->budget_skipped = rec->count;
    if (more && !f->budget_listed) {
        if (r->nbudget < RENDER_BUDGET_FNS) {
            r->budget[r->nbudget++] = f;
            f->budget_listed = 1;
        } else {
            r->budget_other += rec->count;
        }
    }
    if (rec->step == f->budget_step || rec->step > CT_BUDGET_REC_STEP_MAX)
        return 0;
    f->budget_step = rec->step;
    if (!r->opts.lines)
        return 0;
    char t[32];
    snprintf(t, sizeof t, "%llu.%06llu", (unsigned long long)(rec->time_ns / 1000000000u),
             (unsigned long long)(rec->time_ns % 1000000000u / 1000u));
    if (rec->share_permille)
        emitf(r, "# budget at %s: %s %s (the tracer took %u.%u%% of thread %llu's time)\n", t,
              f->def->name, k_budget_steps[rec->step],
              rec->share_permille / 10, rec->share_permille % 10, (unsigned long long)rec->tid);
    else
        emitf(r, "# budget at %s: %s %s\n", t, f->def->name, k_budget_steps[rec->step]);
    return 0;
}

/* A SEGMENT record (--max-size). The first one read says whether older
 * segments were dropped (window_said: the line, at the first event). */
static void segment_record(ct_render *r, const ct_rec *rec)
{
    if (r->window_seen)
        return;
    r->window_seen = 1;
    r->window_key = rec->key;
    r->window_bytes = rec->count;
}

/* "# max-size: segments 0 to 3 (80.0 MiB) were dropped: the calls before
 * 183.204112 s", at the window's first event (time_ns). */
static void window_line(ct_render *r, uint64_t time_ns)
{
    r->window_said = 1;
    if (!r->opts.lines)
        return;
    char which[64];
    if (r->window_key == 1)
        snprintf(which, sizeof which, "segment 0 (%.1f MiB) was",
                 (double)r->window_bytes / (1024.0 * 1024.0));
    else
        snprintf(which, sizeof which, "segments 0 to %llu (%.1f MiB) were",
                 (unsigned long long)(r->window_key - 1),
                 (double)r->window_bytes / (1024.0 * 1024.0));
    emitf(r, "# max-size: %s dropped: the calls before %llu.%06llu s\n", which,
          (unsigned long long)(time_ns / 1000000000u),
          (unsigned long long)(time_ns % 1000000000u / 1000u));
}

/* "# budget: 123 calls not recorded: F 100 (untraced), G 23", when the
 * budget or a limit left any out. */
static void budget_line(ct_render *r)
{
    uint64_t total = r->budget_other;
    for (size_t i = 0; i < r->nbudget; i++)
        total += r->budget[i]->budget_skipped;
    if (!total)
        return;
    char text[TEXT_LINE_MAX - 64];
    size_t o = 0;
    for (size_t i = 0; i < r->nbudget && o + 1 < sizeof text; i++) {
        const fn *f = r->budget[i];
        int n = snprintf(text + o, sizeof text - o, "%s%s %llu%s%s%s", i ? ", " : "",
                         f->def->name, (unsigned long long)f->budget_skipped,
                         f->budget_step ? " (" : "",
                         f->budget_step ? k_budget_steps[f->budget_step] : "",
                         f->budget_step ? ")" : "");
        if (n < 0)
            break;
        o += (size_t)n;
    }
    if (o >= sizeof text)
        o = sizeof text - 1;
    text[o] = '\0';
    char other[48] = "";
    if (r->budget_other)
        snprintf(other, sizeof other, "%sothers %llu", o ? ", " : ": ",
                 (unsigned long long)r->budget_other);
    emitf(r, "# budget: %llu %s not recorded (the budget, --limit, --rate)%s%s%s\n",
          (unsigned long long)total, total == 1 ? "call" : "calls", o ? ": " : "", text, other);
}


int ct_render_record(ct_render *r, const ct_rec *rec)
{
    if (r->finished)
        return 0;
    switch (rec->type) {
    case CT_REC_FUNCTION: case CT_REC_CLASS:
        return ct_symbols_add(r->sym, rec);
    case CT_REC_THREAD: {
        if (ct_symbols_add(r->sym, rec) != 0)
            return -1;
        const char *name = ct_symbols_thread_name(r->sym, rec->tid);
        if (r->opts.lines && name) {
            /* "# thread 4243: worker-01", control characters as '?'. */
            char clean[CT_SYMBOLS_THREAD_NAME_MAX + 1];
            size_t n = 0;
            for (; name[n] && n < sizeof clean - 1; n++)
                clean[n] = (unsigned char)name[n] < 0x20 || name[n] == 0x7f ? '?' : name[n];
            clean[n] = '\0';
            emitf(r, "# thread %llu: %s\n", (unsigned long long)rec->tid, clean);
        }
        return 0;
    }
    case CT_REC_JIT: {
        if (!rec->key) {
            r->jit_count = rec->count;
            r->jit_ns = rec->time_ns;
            return 0;
        }
        fn *f = function_of(r, rec->key);
        if (f)
            f->jit += rec->time_ns;
        if (f && r->opts.jit && r->opts.lines) {
            f->jit_mark += rec->time_ns;
            f->jit_tid = rec->tid;
        }
        return f ? 0 : -1;
    }
    case CT_REC_HELD: {
        /* Not a thread with calls: threads whose calls are all hidden are
         * not counted, but their held time is. */
        return ct_held_add(&r->held, &r->nheld, rec->tid, rec->count);
    }
    case CT_REC_DROPPED: {
        ct_walk_thread *t = ct_walk_thread_of(&r->walk, rec->tid);
        r->dropped += rec->count;
        ct_walk_record(&r->walk, rec); /* counted in the thread too */
        return t ? 0 : -1;
    }
    case CT_REC_BUDGET:
        return budget_record(r, rec);
    case CT_REC_ACTIVITY:
        return ct_walk_record(&r->walk, rec);
    case CT_REC_LINE:
        return line_record(r, rec);
    case CT_REC_LOCALS:
        return locals_record(r, rec);
    case CT_REC_INJECT:
        return inject_record(r, rec);
    case CT_REC_SEGMENT:
        segment_record(r, rec);
        return 0;
    case CT_REC_ASYNC_RETURN: case CT_REC_ASYNC_FAULT:
        return async_end(r, rec);
    case CT_REC_END:
        r->have_end = 1;
        r->mapped = rec->mapped;
        r->traced = rec->traced;
        r->unrewritten = rec->unrewritten;
        finish(r);
        return 0;
    case CT_REC_ENTER: case CT_REC_LEAVE: case CT_REC_TAILCALL: case CT_REC_UNWIND: {
        if (r->window_key && !r->window_said)
            window_line(r, rec->time_ns);
        ct_walk_thread *t = ct_walk_thread_of(&r->walk, rec->tid);
        fn *f = function_of(r, rec->key);
        if (!t || !f)
            return -1;
        r->events++;
        r->ev.f = f;
        r->ev.text = NULL;
        r->ev.text_len = r->ev.outs_len = 0;
        r->ev.line = 0;
        free(r->ev.locals);
        r->ev.locals = NULL;
        r->ev.locals_len = 0;
        thread *th = t->user;
        if (rec->type == CT_REC_LEAVE)
            leave_text(r, f->def, rec);
        else if (rec->type == CT_REC_UNWIND)
            unwind_text(r, f->def, rec);
        /* The lines this event writes are of its time, or of this thread's
         * held-back enter: the other threads' enters held back from before
         * that are written first, as "... {" (their calls end later, on
         * lines of their own). */
        uint64_t at = th->pending ? th->pend_time : rec->time_ns;
        if (th->pending || rec->type != CT_REC_ENTER) /* an enter alone writes nothing yet */
            while (r->phead && r->phead != th && r->phead->pend_time < at)
                flush_pending(r, r->phead);
        ct_walk_event(&r->walk, t, rec); /* call_opened, call_ended, call_unmatched */
        return 0;
    }
    default:
        return 0;
    }
}

/* ------------------------------------------------------------ summary */

typedef struct row {
    const char *name;
    uint64_t calls, total, self, exceptions;
    uint64_t avg, min, max, jit;
    const ct_function *def;
    char *own;              /* a name made to tell it apart (malloc'd), or NULL */
    const ct_hist *hist;    /* its calls' durations (opts.stats) */
} row;

static int by_name(const void *a, const void *b)
{
    const row *const *x = a, *const *y = b;
    int c = strcmp((*x)->name, (*y)->name);
    return c ? c : ((*x)->def->key > (*y)->def->key) - ((*x)->def->key < (*y)->def->key);
}

/* "Name(double, Point)": the parameter types from the FUNCTION record's
 * labels ("double k=": the text before the last space), `this` left out;
 * "Name(...)" when the record has none (the fast path). */
static char *with_params(const ct_function *f)
{
    ct_text t;
    char buf[TEXT_LINE_MAX];
    ct_text_init(&t, buf, sizeof buf);
    ct_text_put(&t, f->name);
    if (f->flags & CT_FN_NO_VALUES) {
        ct_text_put(&t, "(...)");
    } else {
        ct_text_put(&t, "(");
        int first = 1;
        for (uint32_t i = 0; i < f->nparams; i++) {
            const char *l = f->labels[i], *sp = strrchr(l, ' ');
            if (!strcmp(l, "this=") || !sp)
                continue;
            if (!first)
                ct_text_put(&t, ", ");
            ct_text_putn(&t, l, (size_t)(sp - l));
            first = 0;
        }
        ct_text_put(&t, ")");
    }
    ct_text_end(&t);
    return strdup(buf);
}

/* Rows that share a name (overloads, instantiations of shared generic code)
 * get one that tells them apart: their parameter types, and when those
 * agree too, " #2", " #3", ... in the order of their keys. */
static void distinct_names(row *rows, size_t n)
{
    row **by = malloc((n ? n : 1) * sizeof *by);
    if (!by)
        return;
    for (size_t i = 0; i < n; i++)
        by[i] = &rows[i];
    qsort(by, n, sizeof *by, by_name);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !strcmp(by[j]->name, by[i]->name))
            j++;
        for (size_t k = i; j - i > 1 && k < j; k++)
            by[k]->own = with_params(by[k]->def);
        /* Ordinals among equal texts, counted before any is renamed. */
        unsigned *nth = j - i > 1 ? calloc(j - i, sizeof *nth) : NULL;
        for (size_t k = i; nth && k < j; k++)
            for (size_t m = i; m < k; m++)
                if (by[m]->own && by[k]->own && !strcmp(by[m]->own, by[k]->own))
                    nth[k - i]++;
        for (size_t k = i; nth && k < j; k++) {
            char *named = nth[k - i] && by[k]->own ? malloc(strlen(by[k]->own) + 16) : NULL;
            if (named) {
                sprintf(named, "%s #%u", by[k]->own, nth[k - i] + 1);
                free(by[k]->own);
                by[k]->own = named;
            }
        }
        free(nth);
        for (size_t k = i; k < j; k++)
            if (by[k]->own)
                by[k]->name = by[k]->own;
        i = j;
    }
    free(by);
}

/* Largest first; ties by name, so the order never depends on hashing. */
static int by_key(uint64_t x, uint64_t y, const row *a, const row *b)
{
    if (x != y)
        return x > y ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int by_total(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return by_key(x->total, y->total, x, y);
}

static int by_self(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return by_key(x->self, y->self, x, y);
}

static int by_calls(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return by_key(x->calls, y->calls, x, y);
}

static int by_avg(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return by_key(x->avg, y->avg, x, y);
}

static int by_max(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return by_key(x->max, y->max, x, y);
}

static int by_jit(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return by_key(x->jit, y->jit, x, y);
}

static int by_exceptions(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return by_key(x->exceptions, y->exceptions, x, y);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "# tracer held: 12.3 ms on 2 threads (...)", when the tracer held any
 * thread (HELD records): time left out of every duration above. */
static void held_line(ct_render *r)
{
    if (!r->nheld)
        return;
    char text[TEXT_LINE_MAX];
    ct_held_text(r->held, r->nheld, text, sizeof text);
    emitf(r, "# tracer held: %s, left out of the times above\n", text);
}

/* The summary's rows, named apart (rows[i].own freed by free_rows); NULL
 * when out of memory. */
static row *collect_rows(ct_render *r, size_t *count)
{
    row *rows = calloc(r->fns.used ? r->fns.used : 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; rows && i < r->fns.cap; i++) {
        fn *f = r->fns.slots[i].value;
        if (!f || !f->calls || (f->def->flags & CT_FN_PROBE))
            continue; /* (line probes: their hits on a line of their own) */
        rows[n++] = (row){f->def->name, f->calls, f->total, f->self, f->exceptions,
                          f->sum / f->calls, f->min, f->max, f->jit, f->def, NULL, &f->hist};
    }
    if (rows && r->opts.params) {
        for (size_t i = 0; i < n; i++)
            if ((rows[i].own = with_params(rows[i].def)) != NULL)
                rows[i].name = rows[i].own;
    } else if (rows) {
        distinct_names(rows, n);
    }
    *count = n;
    return rows;
}

static void free_rows(row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i].own);
    free(rows);
}

int ct_render_each_row(ct_render *r, void (*each)(void *ctx, const ct_render_row *row),
                       void *ctx)
{
    size_t n = 0;
    row *rows = collect_rows(r, &n);
    if (!rows)
        return -1;
    for (size_t i = 0; i < n; i++) {
        ct_render_row out = {rows[i].name, rows[i].calls, rows[i].total, rows[i].self,
                             rows[i].exceptions};
        each(ctx, &out);
    }
    free_rows(rows, n);
    return 0;
}

/* A row's SOURCE cell, "Program.cs:17" (opts.srcline 2: the whole path), into
 * out[cap]; its length, 0 when the function has no location. */
static size_t source_cell(const ct_render *r, const ct_function *def, char *out, size_t cap)
{
    if (!def || !def->src_file)
        return 0;
    const char *file = def->src_file + (r->opts.srcline == 1 ? def->src_root : 0);
    int n = snprintf(out, cap, "%s:%u", file, def->src_line);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* With opts.srcline: how many of the functions have no source location
 * (their module has no PDB), or that the trace has none at all. */
static void source_line(ct_render *r, const row *rows, size_t n)
{
    size_t without = 0;
    for (size_t i = 0; i < n; i++)
        without += !rows[i].def || !rows[i].def->src_file;
    if (!n || !without)
        return;
    if (without == n)
        emitf(r, "# source lines: none for these functions (recorded without --srcline, or "
                 "their assemblies have no Portable PDB)\n");
    else
        emitf(r, "# source lines: %zu of %zu functions have none (code the compiler made "
                 "without lines, or an assembly without a Portable PDB: framework code, "
                 "stripped builds)\n", without, n);
}

static int by_fn_name(const void *a, const void *b)
{
    const fn *x = *(const fn *const *)a, *y = *(const fn *const *)b;
    return strcmp(x->def->name, y->def->name);
}

/* "# line probes: @ Orders.cs:42 3 hits, @ Orders.cs:50 1 hit" (--at),
 * by name. */
static void probes_line(ct_render *r)
{
    size_t n = 0;
    fn **probes = calloc(r->fns.used ? r->fns.used : 1, sizeof *probes);
    for (size_t i = 0; probes && i < r->fns.cap; i++) {
        fn *f = r->fns.slots[i].value;
        if (f && f->calls && (f->def->flags & CT_FN_PROBE))
            probes[n++] = f;
    }
    /* One whole line (the sink takes whole lines). */
    size_t cap = 32;
    for (size_t i = 0; i < n; i++)
        cap += probes[i]->def->name_len + 40;
    char *line = n ? malloc(cap) : NULL;
    if (line) {
        qsort(probes, n, sizeof *probes, by_fn_name);
        size_t k = (size_t)snprintf(line, cap, "# line probes:");
        for (size_t i = 0; i < n && k < cap; i++)
            k += (size_t)snprintf(line + k, cap - k, "%s %.*s %llu %s", i ? "," : "",
                                  (int)probes[i]->def->name_len, probes[i]->def->name,
                                  (unsigned long long)probes[i]->calls,
                                  plural(probes[i]->calls, "hit", "hits"));
        if (k + 2 <= cap) {
            line[k++] = '\n';
            emit(r, line, k);
        }
    }
    free(line);
    free(probes);
}

/* "# injected: 5 calls: Shop.Client.Send 5 (4 throw, 1 delay)" (--inject),
 * by name. */
static void injected_line(ct_render *r)
{
    static const char *const what[] = {"", "throw", "return", "delay"};
    size_t n = 0;
    uint64_t all = 0;
    fn **fs = calloc(r->fns.used ? r->fns.used : 1, sizeof *fs);
    for (size_t i = 0; fs && i < r->fns.cap; i++) {
        fn *f = r->fns.slots[i].value;
        if (f && (f->injected[1] || f->injected[2] || f->injected[3])) {
            fs[n++] = f;
            all += f->injected[1] + f->injected[2] + f->injected[3];
        }
    }
    size_t cap = 64;
    for (size_t i = 0; i < n; i++)
        cap += fs[i]->def->name_len + 96;
    char *line = n ? malloc(cap) : NULL;
    if (line) {
        qsort(fs, n, sizeof *fs, by_fn_name);
        size_t k = (size_t)snprintf(line, cap, "# injected: %llu %s:", (unsigned long long)all,
                                    plural(all, "call", "calls"));
        for (size_t i = 0; i < n && k < cap; i++) {
            const fn *f = fs[i];
            k += (size_t)snprintf(line + k, cap - k, "%s %.*s %llu (", i ? "," : "",
                                  (int)f->def->name_len, f->def->name,
                                  (unsigned long long)(f->injected[1] + f->injected[2] +
                                                       f->injected[3]));
            for (int a = 1, first = 1; a <= 3 && k < cap; a++)
                if (f->injected[a]) {
                    k += (size_t)snprintf(line + k, cap - k, "%s%llu %s", first ? "" : ", ",
                                          (unsigned long long)f->injected[a], what[a]);
                    first = 0;
                }
            if (k < cap)
                k += (size_t)snprintf(line + k, cap - k, ")");
        }
        if (k + 2 <= cap) {
            line[k++] = '\n';
            emit(r, line, k);
        }
    }
    free(line);
    free(fs);
}

/* Bars of the histograms: the longest (the fullest bucket) this wide. */
#define HIST_BAR 40

/* After the table: each row with a histogram (opts.histogram), its calls'
 * durations by power of two ("# histogram: NAME, N calls", then one line
 * a non-empty range: "   1.0 ms ..   2.0 ms       12  ########"), in the
 * table's order. */
static void histograms(ct_render *r, const row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const ct_hist *h = rows[i].hist;
        if (!h || !h->n || !h->b || !ct_glob_list_match(r->opts.histogram, rows[i].def->name))
            continue;
        /* The buckets summed by power of two: [2^e, 2^(e+1)), 0 first. */
        uint64_t pow2[65] = {0}, most = 0;
        for (uint32_t b = 0; b < CT_HIST_BUCKETS; b++) {
            if (!h->b[b])
                continue;
            uint64_t lo, hi;
            ct_hist_bounds(b, &lo, &hi);
            uint32_t e = lo ? 64u - (uint32_t)__builtin_clzll(lo) : 0;
            pow2[e] += h->b[b];
        }
        for (uint32_t e = 0; e < 65; e++)
            if (pow2[e] > most)
                most = pow2[e];
        emitf(r, "\n# histogram: %s, %llu %s\n", rows[i].name, (unsigned long long)h->n,
              plural(h->n, "call", "calls"));
        for (uint32_t e = 0; e < 65; e++) {
            if (!pow2[e])
                continue;
            char lo[32], hi[32], bar[HIST_BAR + 1];
            uint64_t from = e ? 1ull << (e - 1) : 0, to = e == 0 ? 1 : e == 64 ? UINT64_MAX : 1ull << e;
            ct_format_duration(from, lo, sizeof lo);
            ct_format_duration(to, hi, sizeof hi);
            size_t w = (size_t)((double)pow2[e] * HIST_BAR / (double)most + 0.999);
            if (w > HIST_BAR)
                w = HIST_BAR;
            memset(bar, '#', w);
            bar[w] = '\0';
            emitf(r, "%10s .. %-10s %10llu  %s\n", lo, hi, (unsigned long long)pow2[e], bar);
        }
    }
}

static void summary(ct_render *r)
{
    size_t n = 0;
    row *rows = collect_rows(r, &n);
    uint64_t calls = 0, exceptions = 0;
    for (size_t i = 0; rows && i < n; i++) {
        calls += rows[i].calls;
        exceptions += rows[i].exceptions;
    }
    uint64_t traced_ns = 0;
    for (size_t i = 0; i < n; i++)
        traced_ns += rows[i].self;
    static int (*const order[])(const void *, const void *) = {
        [CT_SORT_TOTAL] = by_total, [CT_SORT_SELF] = by_self, [CT_SORT_CALLS] = by_calls,
        [CT_SORT_AVG] = by_avg, [CT_SORT_MAX] = by_max, [CT_SORT_JIT] = by_jit,
        [CT_SORT_EXCEPTIONS] = by_exceptions,
    };
    unsigned k = (unsigned)r->opts.sort;
    qsort(rows, n, sizeof *rows,
          k < sizeof order / sizeof *order && order[k] ? order[k] : by_total);
    emitf(r, "%s# summary: %llu %s, %zu %s, %llu %s, %llu %s dropped\n", r->opts.lines ? "\n" : "",
          (unsigned long long)calls, plural(calls, "call", "calls"), n,
          plural(n, "function", "functions"), (unsigned long long)r->walk.threads.used,
          plural(r->walk.threads.used, "thread", "threads"), (unsigned long long)r->dropped,
          plural(r->dropped, "event", "events"));
    if (r->window_begun)
        emitf(r, "# max-size: %llu %s began in the segments dropped (%s not shown)\n",
              (unsigned long long)r->window_begun, plural(r->window_begun, "call", "calls"),
              plural(r->window_begun, "its end", "their ends"));
    /* The EXCEPTIONS column when any call ended by an exception; JIT when
     * asked for (opts.jit). */
    int exc_col = exceptions != 0, jit_col = r->opts.jit;
    size_t shown = r->opts.top && r->opts.top < n ? r->opts.top : n;
    /* The SOURCE column (opts.srcline), as wide as its widest cell (at most
     * SOURCE_COL_MAX: wider cells push their line's name right). */
    enum { SOURCE_COL_MAX = 60 };
    int src_w = 0;
    char src[CT_RENDER_SRC_MAX];
    for (size_t i = 0; r->opts.srcline && i < shown; i++) {
        int w = (int)source_cell(r, rows[i].def, src, sizeof src);
        if (w > src_w)
            src_w = w < SOURCE_COL_MAX ? w : SOURCE_COL_MAX;
    }
    if (src_w && src_w < 6)
        src_w = 6;
    emitf(r, "%s%s%s%s%s%-*s  FUNCTION\n",
          r->opts.percent ? "#  CALLS      TOTAL  TOTAL%       SELF   SELF%"
                          : "#  CALLS      TOTAL       SELF",
          r->opts.stats ? "        AVG        MIN        MAX        P50        P90        P99" : "",
          jit_col ? "        JIT" : "",
          exc_col ? "  EXCEPTIONS" : "", src_w ? "  " : "", src_w, src_w ? "SOURCE" : "");
    for (size_t i = 0; i < shown; i++) {
        char total[32], self[32], exc[32] = "", stats[224] = "", jit[40] = "";
        char cell[CT_RENDER_SRC_MAX + 2] = "";
        if (src_w) {
            size_t sl = source_cell(r, rows[i].def, src, sizeof src);
            snprintf(cell, sizeof cell, "  %-*.*s", src_w, (int)sl, src);
        }
        if (jit_col) {
            char d[32];
            ct_format_duration(rows[i].jit, d, sizeof d);
            snprintf(jit, sizeof jit, " %10s", d);
        }
        ct_format_duration(rows[i].total, total, sizeof total);
        ct_format_duration(rows[i].self, self, sizeof self);
        if (exc_col)
            snprintf(exc, sizeof exc, "  %10llu", (unsigned long long)rows[i].exceptions);
        if (r->opts.stats) {
            char a[32], lo[32], hi[32], p[3][32];
            static const double q[3] = {0.50, 0.90, 0.99};
            ct_format_duration(rows[i].avg, a, sizeof a);
            ct_format_duration(rows[i].min, lo, sizeof lo);
            ct_format_duration(rows[i].max, hi, sizeof hi);
            for (int j = 0; j < 3; j++)
                ct_format_duration(ct_hist_quantile(rows[i].hist, q[j]), p[j], sizeof p[j]);
            snprintf(stats, sizeof stats, " %10s %10s %10s %10s %10s %10s", a, lo, hi, p[0], p[1],
                     p[2]);
        }
        if (r->opts.percent) {
            double d = traced_ns ? (double)traced_ns : 1.0;
            emitf(r, "%8llu %10s %6.1f%% %10s %6.1f%%%s%s%s%s  %s\n",
                  (unsigned long long)rows[i].calls, total, 100.0 * (double)rows[i].total / d, self,
                  100.0 * (double)rows[i].self / d, stats, jit, exc, cell, rows[i].name);
        } else {
            emitf(r, "%8llu %10s %10s%s%s%s%s  %s\n", (unsigned long long)rows[i].calls, total,
                  self, stats, jit, exc, cell, rows[i].name);
        }
    }
    if (r->opts.srcline)
        source_line(r, rows, n);
    if (r->opts.histogram)
        histograms(r, rows, n);
    free_rows(rows, n);
    probes_line(r);
    injected_line(r);
    held_line(r);
    budget_line(r);
    if (r->jit_count) {
        char d[32];
        ct_format_duration(r->jit_ns, d, sizeof d);
        emitf(r, "# jit: %llu %s compiled in %s, left out of the times above\n",
              (unsigned long long)r->jit_count, plural(r->jit_count, "method", "methods"), d);
    }
}

static void finish(ct_render *r)
{
    if (r->finished)
        return;
    r->finished = 1;
    for (ct_walk_thread *t = r->walk.first; t; t = t->next)
        flush_pending(r, t->user);
    if (r->opts.summary)
        summary(r);
    if (!r->have_end)
        return;
    /* One line, written whole (a shared output gets whole lines). */
    char line[256];
    int n = r->attached
                ? snprintf(line, sizeof line, "# clrtrace: detached, %llu %s rewritten, %llu traced",
                           (unsigned long long)r->mapped, plural(r->mapped, "method", "methods"),
                           (unsigned long long)r->traced)
                : snprintf(line, sizeof line, "# clrtrace: shutdown, %llu functions JIT-compiled, "
                           "%llu traced", (unsigned long long)r->mapped,
                           (unsigned long long)r->traced);
    if (r->unrewritten && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, ", %llu of them left as they were (the IL "
                 "engine could not rewrite them)", (unsigned long long)r->unrewritten);
    emitf(r, "%s\n", line);
}

void ct_render_finish(ct_render *r)
{
    finish(r);
}

void ct_render_get_totals(const ct_render *r, ct_render_totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->fns.cap; i++) {
        const fn *f = r->fns.slots[i].value;
        if (f && f->calls) {
            t->calls += f->calls;
            t->functions++;
        }
    }
    t->threads = r->walk.threads.used; /* with an event or a DROPPED record */
    t->dropped = r->dropped;
    t->events = r->events;
}
