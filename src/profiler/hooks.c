#include "hooks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "classnames.h"
#include "clrtrace/value.h"
#include "out.h"
#include "plans.h"
#include "registry.h"
#include "state.h"

/* Longest call text (one line); longer text is cut and ends in "...". */
#define LINE_MAX_BYTES (32 * 1024)
/* Longest return value text; longer text is cut and ends in "...". */
#define RET_MAX_BYTES (16 * 1024)
/* Raw captured values of one event. A value that does not fit is captured
 * again with smaller limits (CAPTURE_RETRIES times, each dividing the string
 * and array limits by CAPTURE_RETRY_DIVISOR), then shown as <too large>. */
#define CAPTURE_BUFFER_BYTES (128 * 1024)
#define CAPTURE_RETRIES 4
#define CAPTURE_RETRY_DIVISOR 16
/* Argument info fetched on the stack: 8 bytes of header plus 16 per range,
 * so up to 255 ranges. Larger infos print as "(?)". */
#define ARG_INFO_MAX_BYTES 4096
/* Indentation stops growing here so deep recursion keeps lines readable. */
#define MAX_INDENT 64
/* Frames timed per thread: the stack starts with INITIAL_FRAMES and doubles
 * when a call goes deeper (a rare reallocation in the hook), up to
 * MAX_FRAMES; deeper calls are printed but not timed (counted as dropped
 * events in the summary). */
#define INITIAL_FRAMES 256
#define MAX_FRAMES (64 * 1024)
/* Bytes kept of a value captured by its range (a type that has no plan). */
#define BY_RANGE_MAX_BYTES 64
/* At Shutdown, how long to wait for a thread that is inside a hook before
 * leaving its held-back line unwritten: tries x wait. */
#define FLUSH_LOCK_TRIES 100
#define FLUSH_LOCK_WAIT_NS 1000000
/* Room for the line prefix (time, thread, duration, indentation). */
#define PREFIX_MAX (48 + 2 * MAX_INDENT)

/* SZARRAY layout on 64-bit CoreCLR: method table pointer, then the u32
 * length (padded to 8), then the elements. The runtime has no API for the
 * single-dimension layout short of asking per object (GetArrayObjectInfo). */
#define ARRAY_LENGTH_OFFSET 8
#define ARRAY_DATA_OFFSET 16

/* Per-argument framing of the capture buffer: a status byte, a u32 length,
 * then the bytes. */
enum {
    RAW_PLAN = 0,      /* the plan's encoding */
    RAW_BY_RANGE = 1,  /* the range's bytes (no plan) */
    RAW_TOO_LARGE = 2, /* did not fit even with smaller limits */
    RAW_MISSING = 3,   /* no range */
    RAW_ADDRESS = 4    /* a byref whose target was not read: its u64 address */
};
/* Largest byref target copied through the checked read (process_vm_readv). */
#define BOUNCE_MAX_BYTES 4096
#define RAW_HEADER 5

typedef struct call_frame {
    const ct_function *fn;
    uint64_t start;   /* ns */
    uint64_t child;   /* ns spent in traced children */
} call_frame;

typedef struct ct_thread {
    pthread_mutex_t lock; /* the owner holds it in each hook; Shutdown to flush */
    struct ct_thread *next;
    int in_use;
    int tid;
    unsigned depth;       /* calls open on this thread */
    uintptr_t stack_lo, stack_hi; /* this thread's stack (0, 0 when unknown) */
    call_frame *frames;   /* frames_cap entries */
    unsigned frames_cap;
    const ct_function *unwinding;
    int busy;             /* inside one of our hooks (re-entry is skipped) */
    /* The enter line held back until the next event on this thread. */
    int pending;
    uint64_t pend_time;
    unsigned pend_depth;
    size_t pend_len;
    char pend[LINE_MAX_BYTES];
    char line[PREFIX_MAX + LINE_MAX_BYTES + RET_MAX_BYTES + 64];
    uint8_t raw[CAPTURE_BUFFER_BYTES];
    uint8_t bounce[BOUNCE_MAX_BYTES];
} ct_thread;

static uint64_t g_start_ns;
static ct_layout g_layout;
static pthread_key_t g_thread_key;
static pthread_mutex_t g_threads_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_thread *g_threads;
static unsigned long g_thread_count;
static atomic_ulong g_dropped;
static __thread ct_thread *t_self;

/* ---------------------------------------------------------------- time */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ct_now_ns(void)
{
    return mono_ns() - g_start_ns;
}

void ct_format_duration(uint64_t ns, char *out, size_t cap)
{
    if (ns < 1000000u)
        snprintf(out, cap, "%.1f us", (double)ns / 1e3);
    else if (ns < 1000000000u)
        snprintf(out, cap, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(out, cap, "%.2f s", (double)ns / 1e9);
}

/* ------------------------------------------------------------- threads */

static void flush_pending(ct_thread *ts);

/* A thread that ends hands its state back for reuse; a call it left open
 * (it cannot, for a managed thread, but be safe) is written out first. */
static void thread_exit(void *p)
{
    ct_thread *ts = p;
    pthread_mutex_lock(&ts->lock);
    flush_pending(ts);
    ts->depth = 0;
    ts->unwinding = NULL;
    ts->in_use = 0;
    pthread_mutex_unlock(&ts->lock);
    /* A hook running later on this thread (managed code in another TLS
     * destructor) gets a fresh state rather than one another thread may
     * have taken over. */
    t_self = NULL;
}

void ct_hooks_init(void)
{
    g_start_ns = mono_ns();
    pthread_key_create(&g_thread_key, thread_exit);
    ULONG len_off = 8, buf_off = 12;
    ICorProfilerInfo *info = g_ct.info;
    if (FAILED(info->lpVtbl->GetStringLayout2(info, &len_off, &buf_off))) {
        len_off = 8;
        buf_off = 12;
    }
    g_layout.string_length_offset = len_off;
    g_layout.string_chars_offset = buf_off;
    g_layout.array_length_offset = ARRAY_LENGTH_OFFSET;
    g_layout.array_data_offset = ARRAY_DATA_OFFSET;
}

/* This thread's state: made (or reused) at its first traced call, kept
 * until the thread ends. NULL when out of memory (the call goes unlogged). */
static ct_thread *thread_self(void)
{
    ct_thread *ts = t_self;
    if (ts)
        return ts;
    pthread_mutex_lock(&g_threads_lock);
    for (ts = g_threads; ts && ts->in_use; ts = ts->next)
        ;
    if (!ts) {
        ts = calloc(1, sizeof *ts);
        call_frame *frames = calloc(INITIAL_FRAMES, sizeof *frames);
        if (ts && frames) {
            pthread_mutex_init(&ts->lock, NULL);
            ts->frames = frames;
            ts->frames_cap = INITIAL_FRAMES;
            ts->next = g_threads;
            g_threads = ts;
        } else {
            free(ts);
            free(frames);
            ts = NULL;
        }
    }
    if (ts) {
        ts->in_use = 1;
        g_thread_count++;
    }
    pthread_mutex_unlock(&g_threads_lock);
    if (!ts)
        return NULL;
    uintptr_t lo = 0, hi = 0;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr = NULL;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            lo = (uintptr_t)addr;
            hi = lo + size;
        }
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_lock(&ts->lock);
    ts->stack_lo = lo;
    ts->stack_hi = hi;
    ts->tid = (int)syscall(SYS_gettid);
    ts->depth = 0;
    ts->pending = 0;
    ts->unwinding = NULL;
    pthread_mutex_unlock(&ts->lock);
    pthread_setspecific(g_thread_key, ts);
    t_self = ts;
    return ts;
}

/* Takes this thread's state for one hook; NULL when there is none or the
 * hook is re-entered on this thread (then the event is dropped). */
static ct_thread *hook_begin(void)
{
    ct_thread *ts = thread_self();
    if (!ts)
        return NULL;
    pthread_mutex_lock(&ts->lock);
    if (ts->busy) {
        pthread_mutex_unlock(&ts->lock);
        atomic_fetch_add(&g_dropped, 1);
        return NULL;
    }
    ts->busy = 1;
    return ts;
}

static void hook_end(ct_thread *ts)
{
    ts->busy = 0;
    pthread_mutex_unlock(&ts->lock);
}

/* ------------------------------------------------------------- capture */

static uint64_t class_of(void *ctx, uint64_t object)
{
    (void)ctx;
    ClassID cls = 0;
    ICorProfilerInfo *info = g_ct.info;
    if (FAILED(info->lpVtbl->GetClassFromObject(info, (ObjectID)object, &cls)))
        return 0;
    return cls;
}

static int name_of(void *ctx, uint64_t cls, char *out, size_t cap)
{
    (void)ctx;
    return ct_classid_name((ClassID)cls, CT_NAME_FULL, out, cap);
}

/* The length a range must have for the plan to read it as planned. */
static int range_fits(const ct_plan *p, ULONG len)
{
    switch (p->kind) {
    case CT_V_STRING: case CT_V_OBJECT: case CT_V_ARRAY: case CT_V_BYREF: case CT_V_PTR:
        return len == 8;
    case CT_V_ELIDED:
        return p->size == 0 || len == p->size;
    default:
        return len == p->size;
    }
}

static void put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

/* 1 when the plan's encoding is empty (void, elided, a struct of nothing):
 * ct_capture then rightly returns 0. */
static int captures_nothing(const ct_plan *p, unsigned depth)
{
    if (p->kind == CT_V_VOID || p->kind == CT_V_ELIDED)
        return 1;
    if (p->kind != CT_V_STRUCT || depth > CT_MAX_VALUE_DEPTH)
        return 0;
    for (uint32_t i = 0; i < p->count; i++)
        if (!captures_nothing(p->fields[i].plan, depth + 1))
            return 0;
    return 1;
}

/* Copies n bytes at src into dst without faulting: 0, or -1 when the memory
 * cannot be read. */
static int checked_copy(void *dst, uintptr_t src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)src, n};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* Where a byref's target may be read from, or NULL. A byref can point
 * anywhere (CoreLib hands out (void*)1 for empty spans), so the target is
 * read in place only when it lies in this thread's stack (a local: any GC
 * reference in it is valid or null); otherwise only targets whose plan
 * follows no pointer are read, through a checked copy. */
static const void *byref_source(ct_thread *ts, const ct_plan *target, uintptr_t addr)
{
    size_t n = target->size;
    if (target->kind == CT_V_STRING || target->kind == CT_V_OBJECT ||
        target->kind == CT_V_ARRAY)
        n = 8;
    if (!addr || n == 0)
        return NULL;
    if (addr >= ts->stack_lo && addr < ts->stack_hi && n <= ts->stack_hi - addr)
        return (const void *)addr;
    if (n > BOUNCE_MAX_BYTES || !ct_plan_is_flat(target, 1) || checked_copy(ts->bounce, addr, n))
        return NULL;
    return ts->bounce;
}

/* Captures one value at the end of ts->raw[0..*pos); advances *pos. */
static void capture_value(ct_thread *ts, size_t *pos, const ct_plan *p, UINT_PTR addr, ULONG len)
{
    uint8_t *hdr = ts->raw + *pos;
    size_t room = CAPTURE_BUFFER_BYTES - *pos;
    if (room < RAW_HEADER + BY_RANGE_MAX_BYTES)
        return; /* the caller checks the room left before each value */
    uint8_t *body = hdr + RAW_HEADER;
    size_t n = 0;
    uint8_t status;
    if (!addr) {
        status = RAW_MISSING;
    } else if (ct_plan_is_by_range(p) || !range_fits(p, len)) {
        status = RAW_BY_RANGE;
        n = len < BY_RANGE_MAX_BYTES ? len : BY_RANGE_MAX_BYTES;
        memcpy(body, (const void *)addr, n);
    } else {
        ct_limits lim = {g_ct.cfg.string_chars, g_ct.cfg.array_items};
        const void *src = (const void *)addr;
        size_t skip = 0;
        if (p->kind == CT_V_BYREF && p->elem) {
            /* BYREF encoding: the address, then the target (if read). */
            uint64_t target;
            memcpy(&target, src, 8);
            memcpy(body, &target, 8);
            src = byref_source(ts, p->elem, (uintptr_t)target);
            if (!src) {
                hdr[0] = RAW_ADDRESS;
                put_u32(hdr + 1, 8);
                *pos += RAW_HEADER + 8;
                return;
            }
            p = p->elem;
            skip = 8;
        }
        status = RAW_TOO_LARGE;
        for (int attempt = 0; attempt <= CAPTURE_RETRIES; attempt++) {
            n = ct_capture(p, src, &g_layout, &lim, class_of, NULL, body + skip,
                           room - RAW_HEADER - skip);
            if (n || captures_nothing(p, 0)) {
                status = RAW_PLAN;
                break;
            }
            lim.string_chars /= CAPTURE_RETRY_DIVISOR;
            lim.array_items /= CAPTURE_RETRY_DIVISOR;
        }
        n = status == RAW_PLAN ? n + skip : 0;
    }
    hdr[0] = status;
    put_u32(hdr + 1, (uint32_t)n);
    *pos += RAW_HEADER + n;
}

/* Reads one framed value from raw[*pos..n); formats it into t. */
static void format_value(const ct_plan *p, const uint8_t *raw, size_t n, size_t *pos, ct_text *t)
{
    if (n - *pos < RAW_HEADER) {
        ct_text_put(t, "<damaged>");
        *pos = n;
        return;
    }
    uint8_t status = raw[*pos];
    uint32_t len;
    memcpy(&len, raw + *pos + 1, 4);
    const uint8_t *body = raw + *pos + RAW_HEADER;
    if (len > n - *pos - RAW_HEADER) {
        ct_text_put(t, "<damaged>");
        *pos = n;
        return;
    }
    *pos += RAW_HEADER + len;
    switch (status) {
    case RAW_PLAN:
        ct_format_value(p, body, len, name_of, NULL, t);
        break;
    case RAW_BY_RANGE: {
        ct_plan bytes = {.kind = CT_V_OPAQUE, .size = len, .type_name = "?"};
        ct_format_value(&bytes, body, len, name_of, NULL, t);
        break;
    }
    case RAW_TOO_LARGE:
        ct_text_put(t, "<too large>");
        break;
    case RAW_ADDRESS: {
        ct_plan addr = {.kind = CT_V_PTR, .size = 8, .type_name = "ref"};
        ct_format_value(&addr, body, len, name_of, NULL, t);
        break;
    }
    default:
        ct_text_put(t, "<unavailable>");
        break;
    }
}

/* Copies the arguments of the call into ts->raw. Returns the bytes used,
 * or 0 when the arguments are not available (the call prints "(?)"). */
static size_t capture_enter(ct_thread *ts, ct_function *f, COR_PRF_ELT_INFO elt)
{
    ICorProfilerInfo *info = g_ct.info;
    /* Learn the size once per function: a first call with a zero size (and
     * no buffer) answers HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) and
     * the size needed; the size depends only on the signature. */
    COR_PRF_FRAME_INFO frame = 0;
    ULONG need = atomic_load_explicit(&f->arginfo_size, memory_order_relaxed);
    if (!need) {
        ULONG probe = 0;
        HRESULT hr = info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &probe, NULL);
        if ((hr == HRESULT_INSUFFICIENT_BUFFER || SUCCEEDED(hr)) && probe) {
            need = probe;
            atomic_store_explicit(&f->arginfo_size, need, memory_order_relaxed);
        }
    }
    union {
        COR_PRF_FUNCTION_ARGUMENT_INFO info;
        uint64_t align[ARG_INFO_MAX_BYTES / sizeof(uint64_t)];
    } args;
    if (!need || need > sizeof args)
        return 0;
    ULONG size = need;
    if (FAILED(info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &size, &args.info)) ||
        args.info.numRanges != f->nargs)
        return 0;
    if (f->late && atomic_load(&f->late_state) == 0)
        ct_plan_late(f, frame);
    size_t pos = 0;
    for (ULONG i = 0; i < args.info.numRanges; i++) {
        if (CAPTURE_BUFFER_BYTES - pos < RAW_HEADER + BY_RANGE_MAX_BYTES)
            return 0;
        capture_value(ts, &pos, ct_arg_plan(f, i), args.info.ranges[i].startAddress,
                      args.info.ranges[i].length);
    }
    return pos ? pos : 1;
}

/* --------------------------------------------------------------- text */

/* Ends text that did not fit with "..." (on a UTF-8 boundary). */
static size_t text_end(ct_text *t)
{
    if (t->len < t->cap)
        return t->len;
    size_t n = t->cap - 1;
    size_t cut = n >= 3 ? n - 3 : 0;
    while (cut > 0 && ((unsigned char)t->p[cut] & 0xC0) == 0x80)
        cut--;
    memcpy(t->p + cut, "...", 3);
    t->p[cut + 3] = '\0';
    return cut + 3;
}

/* "Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5)" into ts->pend. */
static void format_call(ct_thread *ts, const ct_function *f, size_t raw_len)
{
    ct_text t;
    ct_text_init(&t, ts->pend, sizeof ts->pend);
    ct_text_put(&t, f->display);
    if (!f->values) {
        ct_text_put(&t, "(...)");
    } else if (!raw_len) {
        ct_text_put(&t, "(?)");
    } else {
        ct_text_put(&t, "(");
        size_t pos = 0;
        for (uint32_t i = 0; i < f->nargs; i++) {
            if (i)
                ct_text_put(&t, ", ");
            ct_text_put(&t, f->args[i].label);
            format_value(ct_arg_plan(f, i), ts->raw, raw_len, &pos, &t);
        }
        ct_text_put(&t, ")");
    }
    ts->pend_len = text_end(&t);
}

/* The line prefix: time, thread, duration (or blanks), indentation. */
static size_t prefix(char *out, uint64_t t_ns, int tid, const uint64_t *dur, unsigned depth)
{
    char d[32] = "";
    if (dur)
        ct_format_duration(*dur, d, sizeof d);
    unsigned indent = depth < MAX_INDENT ? depth : MAX_INDENT;
    int n = snprintf(out, PREFIX_MAX, "%10.6f %6d %10s  %*s", (double)t_ns / 1e9, tid, d,
                     (int)(2 * indent), "");
    return n < 0 ? 0 : (size_t)n < PREFIX_MAX ? (size_t)n : PREFIX_MAX - 1;
}

/* Writes the held-back enter line as an opening line: "... {". */
static void flush_pending(ct_thread *ts)
{
    if (!ts->pending)
        return;
    ts->pending = 0;
    size_t n = prefix(ts->line, ts->pend_time, ts->tid, NULL, ts->pend_depth);
    memcpy(ts->line + n, ts->pend, ts->pend_len);
    n += ts->pend_len;
    memcpy(ts->line + n, " {\n", 3);
    ct_out_write(ts->line, n + 3);
}

/* How a frame ends. */
typedef enum ending { END_RETURN, END_EXCEPTION, END_TAILCALL } ending;

/* Pops f's frame; *dur gets its duration when it was timed (returns 1).
 * Returns 0 for an untimed frame, -1 when f is not open on this thread. */
static int pop_frame(ct_thread *ts, const ct_function *f, uint64_t now, uint64_t *dur)
{
    if (ts->depth == 0) {
        atomic_fetch_add(&g_dropped, 1);
        return -1;
    }
    if (ts->depth > ts->frames_cap) {
        ts->depth--;
        atomic_fetch_add(&g_dropped, 1);
        return 0;
    }
    unsigned top = ts->depth - 1;
    if (ts->frames[top].fn != f) {
        /* A frame we never saw close (missed unwinding): find f below it
         * and drop the frames above. */
        unsigned k = top;
        while (k > 0 && ts->frames[k - 1].fn != f)
            k--;
        if (k == 0) {
            atomic_fetch_add(&g_dropped, 1);
            return -1;
        }
        atomic_fetch_add(&g_dropped, top - (k - 1));
        top = k - 1;
        ts->depth = k;
        ts->pending = 0;
    }
    call_frame *fr = &ts->frames[top];
    uint64_t total = now > fr->start ? now - fr->start : 0;
    uint64_t self = total > fr->child ? total - fr->child : 0;
    ct_function *mf = (ct_function *)f;
    atomic_fetch_add_explicit(&mf->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&mf->total_ns, total, memory_order_relaxed);
    atomic_fetch_add_explicit(&mf->self_ns, self, memory_order_relaxed);
    if (top > 0)
        ts->frames[top - 1].child += total;
    ts->depth = top;
    *dur = total;
    return 1;
}

/* Closes f's frame: folds it onto its held-back enter line when it had no
 * children, else writes "} -> value". ret: the formatted return value
 * ("int 0") or NULL. */
static void close_frame(ct_thread *ts, const ct_function *f, uint64_t now, ending how,
                        const char *ret, size_t ret_len)
{
    uint64_t dur = 0;
    int timed = pop_frame(ts, f, now, &dur);
    const uint64_t *d = timed == 1 ? &dur : NULL;
    unsigned depth = ts->depth;
    size_t n;
    char *line = ts->line;
    if (ts->pending && timed >= 0 && ts->pend_depth == depth) {
        ts->pending = 0;
        n = prefix(line, ts->pend_time, ts->tid, d, depth);
        memcpy(line + n, ts->pend, ts->pend_len);
        n += ts->pend_len;
        if (how == END_EXCEPTION) {
            memcpy(line + n, " -> exception", 13);
            n += 13;
        } else if (how == END_TAILCALL) {
            memcpy(line + n, " -> tailcall", 12);
            n += 12;
        } else if (ret) {
            memcpy(line + n, " -> ", 4);
            memcpy(line + n + 4, ret, ret_len);
            n += 4 + ret_len;
        }
    } else {
        flush_pending(ts);
        n = prefix(line, now, ts->tid, d, depth);
        line[n++] = '}';
        if (how == END_EXCEPTION) {
            memcpy(line + n, " exception", 10);
            n += 10;
        } else if (how == END_TAILCALL) {
            memcpy(line + n, " tailcall", 9);
            n += 9;
        } else if (ret) {
            memcpy(line + n, " -> ", 4);
            memcpy(line + n + 4, ret, ret_len);
            n += 4 + ret_len;
        }
        if (timed < 0) {
            static const char note[] = "  (not entered on this thread)";
            memcpy(line + n, note, sizeof note - 1);
            n += sizeof note - 1;
        }
    }
    line[n++] = '\n';
    ct_out_write(line, n);
}

/* --------------------------------------------------------------- hooks */

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    ct_function *f = (ct_function *)id.clientID;
    ct_thread *ts = hook_begin();
    if (!ts)
        return;
    uint64_t now = ct_now_ns();
    /* The call held back has a child: it opens a block. */
    flush_pending(ts);

    size_t raw_len = f->values ? capture_enter(ts, f, elt) : 0;
    format_call(ts, f, raw_len);
    ts->pending = 1;
    ts->pend_time = now;
    ts->pend_depth = ts->depth;
    if (ts->depth == ts->frames_cap && ts->frames_cap < MAX_FRAMES) {
        call_frame *more = realloc(ts->frames, 2 * ts->frames_cap * sizeof *more);
        if (more) {
            ts->frames = more;
            ts->frames_cap *= 2;
        }
    }
    if (ts->depth < ts->frames_cap) {
        call_frame *fr = &ts->frames[ts->depth];
        fr->fn = f;
        fr->child = 0;
        /* Timed from here: the hook's own work is not the callee's. */
        fr->start = ct_now_ns();
    }
    ts->depth++;
    hook_end(ts);
}

void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    uint64_t now = ct_now_ns();
    ct_function *f = (ct_function *)id.clientID;
    ct_thread *ts = hook_begin();
    if (!ts)
        return;
    /* The return value: captured into the buffer, then formatted. */
    char ret[RET_MAX_BYTES];
    size_t ret_len = 0;
    const char *retp = NULL;
    if (f->values && f->has_ret) {
        ICorProfilerInfo *info = g_ct.info;
        COR_PRF_FRAME_INFO frame = 0;
        COR_PRF_FUNCTION_ARGUMENT_RANGE range = {0, 0};
        size_t pos = 0;
        const ct_plan *p = ct_arg_plan(f, f->nargs);
        if (SUCCEEDED(info->lpVtbl->GetFunctionLeave3Info(info, f->id, elt, &frame, &range)))
            capture_value(ts, &pos, p, range.startAddress, range.length);
        ct_text t;
        ct_text_init(&t, ret, sizeof ret);
        ct_text_put(&t, f->ret_label);
        if (pos) {
            size_t read = 0;
            format_value(p, ts->raw, pos, &read, &t);
        } else {
            ct_text_put(&t, "?");
        }
        ret_len = text_end(&t);
        retp = ret;
    }
    close_frame(ts, f, now, END_RETURN, retp, ret_len);
    hook_end(ts);
}

void ct_tailcall_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    uint64_t now = ct_now_ns();
    ct_function *f = (ct_function *)id.clientID;
    ICorProfilerInfo *info = g_ct.info;
    COR_PRF_FRAME_INFO frame = 0;
    info->lpVtbl->GetFunctionTailcall3Info(info, f->id, elt, &frame);
    ct_thread *ts = hook_begin();
    if (!ts)
        return;
    close_frame(ts, f, now, END_TAILCALL, NULL, 0);
    hook_end(ts);
}

void ct_unwind_function_enter(FunctionID id)
{
    const ct_function *f = ct_registry_find(id);
    ct_thread *ts = t_self;
    if (ts)
        ts->unwinding = (f && f->hooked) ? f : NULL;
}

void ct_unwind_function_leave(void)
{
    uint64_t now = ct_now_ns();
    if (!t_self || !t_self->unwinding)
        return;
    ct_thread *ts = hook_begin();
    if (!ts)
        return;
    const ct_function *f = ts->unwinding;
    ts->unwinding = NULL;
    if (f)
        close_frame(ts, f, now, END_EXCEPTION, NULL, 0);
    hook_end(ts);
}

void ct_hooks_flush(unsigned long *threads, unsigned long *dropped)
{
    pthread_mutex_lock(&g_threads_lock);
    for (ct_thread *ts = g_threads; ts; ts = ts->next) {
        /* A thread inside a hook finishes it quickly; one that cannot (it
         * waits for something this thread holds) keeps its line. */
        int locked = 0;
        for (int i = 0; i < FLUSH_LOCK_TRIES && !(locked = !pthread_mutex_trylock(&ts->lock)); i++)
            nanosleep(&(struct timespec){0, FLUSH_LOCK_WAIT_NS}, NULL);
        if (!locked)
            continue;
        flush_pending(ts);
        pthread_mutex_unlock(&ts->lock);
    }
    *threads = g_thread_count;
    pthread_mutex_unlock(&g_threads_lock);
    *dropped = atomic_load(&g_dropped);
}
