/* The exception callbacks (record.h): they feed the model of each
 * thread's exceptions in flight (ehmodel.h) and close the traced frames an
 * exception pops, with an UNWIND record each that carries the exception's
 * object and message when they are still kept. */
#include "internal.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ehmodel.h"
#include "agent/writer/writer.h"
#include "agent/model/modules.h"
#include "agent/model/utf16.h"

/* The exceptions in flight on this thread (ehmodel.h), followed on every
 * thread, traced calls or not: a thread's buffer is made only at its first
 * traced call. Dynamic TLS (about 800 bytes): only the exception callbacks
 * touch it. */
static __thread ct_eh_state t_eh;

#ifdef CT_EH_LOG
#include <stdio.h>
/* "TID what name", the notation of the scripts in tests/unit/test_ehmodel.c. */
void ct_rec_eh_log(const char *what, const char *name)
{
    char line[512];
    int n = snprintf(line, sizeof line, "%ld %s%s%s\n", (long)syscall(SYS_gettid), what,
                     name ? " " : "", name ? name : "");
    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}
static const char *eh_name(FunctionID id)
{
    const ct_mapped_fn *f = ct_registry_find(id);
    return f ? f->name : "?";
}
#endif

/* The exception callbacks feed this thread's model of the exceptions in
 * flight (ehmodel.h, t_eh), which says which frames an exception has
 * popped; they are closed here with an UNWIND event each. A thread that has
 * made no traced call has no buffer and no frames (depth 0), but its
 * exceptions are followed all the same: traced calls may start inside a
 * catch or finally block, and an unhandled exception ends every thread. */

static void (*g_on_fatal)(void);

void ct_recorder_on_fatal(void (*fn)(void))
{
    g_on_fatal = fn;
}

/* The record of FunctionID id when it is traced, else NULL. */
static const ct_mapped_fn *traced_function(FunctionID id)
{
    const ct_mapped_fn *f = ct_registry_find(id);
    return f && f->hooked ? f : NULL;
}

/* The depth of the innermost open frame of traced function f on b's
 * thread (1: the outermost; normally the top one), or 0 when none is (past
 * the kept keys: the depth). A frame of the same method under another
 * record counts (the IL engine's generic code: its definition's or
 * instantiation's). */
static uint32_t frame_found_at(const ct_tbuf *b, const ct_mapped_fn *f)
{
    uint32_t d = ct_rec_of(b)->depth;
    if (d > CT_DROP_TRACK_FRAMES)
        return d;
    for (uint32_t i = d; i-- > 0;) {
        const ct_mapped_fn *k = (const ct_mapped_fn *)(uintptr_t)ct_rec_of(b)->frame_keys[i];
        if (ct_fn_same_method(k, f))
            return i + 1;
    }
    return 0;
}

/* Exception `serial` of b's thread as its slot keeps it, or NULL when a
 * later one took the slot (0: none). */
static const ct_rec_exc *kept_exc(const ct_tbuf *b, uint32_t serial)
{
    const ct_rec_exc *x = &ct_rec_of(b)->exc[serial % CT_EXC_SLOTS];
    return serial && x->serial == serial ? x : NULL;
}

/* The exception that ended a runtime-async call's resumed part goes on
 * (rtasync.c): leaving (caught 0) or caught by (caught 1) a resumed frame
 * of f not open on this thread; f NULL: its chain's task faults. */
static void rt_fault_goes(ct_tbuf *b, const ct_mapped_fn *f, int caught)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (!t->rt_fault_next || !ct_rec_recording())
        return;
    ct_rec_rt_fault_goes(b, f, caught, kept_exc(b, t->rt_fault_serial));
}

void ct_rec_rt_task_faults(ct_tbuf *b)
{
    rt_fault_goes(b, NULL, 0);
}

/* The shadow depth that puts the frame of f on top: frame_found_at's, or
 * the depth itself when none is found. */
static uint32_t frame_depth_of(const ct_tbuf *b, const ct_mapped_fn *f)
{
    uint32_t d = frame_found_at(b, f);
    return d ? d : ct_rec_of(b)->depth;
}

static void exc_capture(ct_tbuf *b, uint32_t serial, ObjectID obj)
{
    ct_rec_exc_read(&ct_rec_of(b)->exc[serial % CT_EXC_SLOTS], serial, obj);
}

/* An UNWIND event of the frame of function `key`, left by exception
 * `serial`: with its values when they are still kept, else without. */
static void unwind_event(ct_tbuf *b, uint64_t now, uint64_t key, uint32_t serial)
{
    ct_rec_unwind_event(b, now, key, kept_exc(b, serial));
}

/* Closes this thread's frames above `depth` (CT_EH_NONE: none) as left by an
 * exception: an UNWIND event each, with its own function. Frames deeper than
 * the kept keys are closed with the function of FunctionID fid (exact for
 * the one frame an unwind leave closes). */
static void unwind_to(ct_tbuf *b, uint32_t depth, FunctionID fid, uint64_t now, uint32_t serial)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (depth == CT_EH_NONE || t->depth <= depth || !ct_rec_recording() ||
        ct_rec_is_busy(b))
        return;
    ct_rec_busy(b, 1);
    /* The time read once the thread is marked (the writer's watermark, not
     * earlier than what it may still publish): a moment after `now`. */
    uint64_t marked = ct_now_ns();
    if (marked > now)
        now = marked;
    uint64_t deep_key = 0;
    if (t->depth > CT_DROP_TRACK_FRAMES)
        deep_key = (uint64_t)(uintptr_t)traced_function(fid);
    while (t->depth > depth) {
        uint32_t d = t->depth - 1;
        uint64_t key = d < CT_DROP_TRACK_FRAMES ? t->frame_keys[d] : deep_key;
        /* A resumed part of a runtime-async call (rtasync.c): the call ends
         * by the exception. */
        uint32_t rt_id = __builtin_expect(t->nrt != 0, 0) ? ct_rec_rt_unwinding(b, serial) : 0;
        int how = ct_rec_frame_close(b);
        if (rt_id) {
            ct_rec_exc_event(b, CT_REC_ASYNC_FAULT, now, rt_id, kept_exc(b, serial));
        } else if (how)
            ct_rec_count_unrecorded(b, how);
        else if (!key)
            ct_tbuf_count_drop(b, 1);
        else {
            ct_rec_end_verdict(b, (const ct_mapped_fn *)(uintptr_t)key, CT_REC_UNWIND, NULL,
                               NULL, kept_exc(b, serial), now, g_rec.naive);
            if (g_rec.srcline)
                ct_rec_line_event(b, now, key, serial);
            unwind_event(b, now, key, serial);
        }
    }
    ct_rec_busy(b, 0);
}

/* unwind_to on this thread, when it has a buffer (else it has no frames). */
static void unwind_self(uint32_t depth, FunctionID fid, uint64_t now, uint32_t serial)
{
    ct_tbuf *b = ct_rec_self;
    if (b)
        unwind_to(b, depth, fid, now, serial);
}

void ct_ex_thrown(ObjectID thrown)
{
    CT_EH_LOG_EVENT("thrown", NULL);
    ct_eh_thrown(&t_eh);
    /* A thread without a buffer has no frames this exception can leave. */
    ct_tbuf *b = ct_rec_self;
    if (b)
        ct_rec_of(b)->rt_fault_next = 0; /* another exception */
    if (b && ct_rec_recording())
        exc_capture(b, ct_eh_serial(&t_eh), thrown);
    /* --srcline: where it is thrown, when traced frames are open here. */
    if (b && g_rec.srcline && ct_rec_of(b)->depth && ct_rec_recording())
        ct_rec_exc_lines_read(b, ct_eh_serial(&t_eh), (uint64_t)thrown);
}

void ct_ex_search_enter(FunctionID id)
{
    CT_EH_LOG_EVENT("search", eh_name(id));
    ct_eh_search_enter(&t_eh, id);
}

void ct_ex_search_leave(void)
{
    CT_EH_LOG_EVENT("search-leave", NULL);
    ct_eh_search_leave(&t_eh);
}

void ct_ex_catcher_found(void)
{
    CT_EH_LOG_EVENT("found", NULL);
    ct_eh_catcher_found(&t_eh);
}

void ct_ex_filter_enter(void)
{
    CT_EH_LOG_EVENT("filter", NULL);
    ct_tbuf *b = ct_rec_self;
    ct_eh_filter_enter(&t_eh, b ? ct_rec_of(b)->depth : 0);
}

void ct_ex_filter_leave(void)
{
    CT_EH_LOG_EVENT("filter-leave", NULL);
    uint64_t now = ct_now_ns();
    /* Frames left open above the filter were left by the exception thrown
     * inside it (the newest), which the leave ends. */
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_filter_leave(&t_eh);
    unwind_self(depth, 0, now, serial);
}

void ct_ex_unwind_function_enter(FunctionID id)
{
    CT_EH_LOG_EVENT("unwind", eh_name(id));
    uint64_t now = ct_now_ns();
    ct_tbuf *b = ct_rec_self;
    const ct_mapped_fn *f = b ? traced_function(id) : NULL;
    /* A runtime-async method's frame the runtime resumed and the probes did
     * not see resume (an exception its awaited callee threw comes out at
     * the resume point, before its code): not this thread's to close. */
    if (f && f->rt_async && !frame_found_at(b, f)) {
        rt_fault_goes(b, f, 0);
        f = NULL;
    }
    uint32_t depth = !b ? 0 : f ? frame_depth_of(b, f) : ct_rec_of(b)->depth;
    if (!ct_eh_unwind_enter(&t_eh, id, f != NULL, depth))
        return;
    /* The outermost managed frame of an unhandled exception: the runtime
     * terminates the process (abort) once its finally blocks have run, with
     * no callback and no Shutdown. Its frame and any above it are over;
     * finish the trace now. */
    if (b)
        unwind_to(b, f ? depth - 1 : depth, id, now, ct_eh_serial(&t_eh));
    if (g_on_fatal)
        g_on_fatal();
}

void ct_ex_unwind_function_leave(void)
{
    CT_EH_LOG_EVENT("unwind-leave", NULL);
    uint64_t now = ct_now_ns();
    uint64_t fid = 0;
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_unwind_leave(&t_eh, &fid);
    unwind_self(depth, (FunctionID)fid, now, serial);
}

void ct_ex_finally_enter(void)
{
    CT_EH_LOG_EVENT("finally", NULL);
    uint64_t now = ct_now_ns();
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_finally_enter(&t_eh);
    unwind_self(depth, 0, now, serial);
}

void ct_ex_finally_leave(void)
{
    CT_EH_LOG_EVENT("finally-leave", NULL);
    ct_eh_finally_leave(&t_eh);
}

void ct_ex_catcher_enter(FunctionID id)
{
    CT_EH_LOG_EVENT("catch", eh_name(id));
    ct_tbuf *b = ct_rec_self;
    if (b && __builtin_expect(ct_rec_of(b)->rt_fault_next != 0, 0)) {
        const ct_mapped_fn *f = traced_function(id);
        if (f && f->rt_async && !frame_found_at(b, f))
            rt_fault_goes(b, f, 1);
    }
    uint64_t now = ct_now_ns();
    uint32_t serial = ct_eh_serial(&t_eh);
    uint32_t depth = ct_eh_catcher_enter(&t_eh, id);
    unwind_self(depth, 0, now, serial);
}

void ct_ex_catcher_leave(void)
{
    CT_EH_LOG_EVENT("catch-leave", NULL);
    ct_eh_catcher_leave(&t_eh);
}

/* AppContext.OnUnhandledException (watched, see registry.c) entered on this
 * thread: the runtime's unhandled-exception path, or a program raising the
 * event itself (ExceptionHandling.RaiseAppDomainUnhandledExceptionEvent).
 * The model tells them apart: only the first is inside the first pass of an
 * exception that found no catcher. */
void ct_rec_on_unhandled(void)
{
    CT_EH_LOG_EVENT("unhandled", NULL);
    ct_eh_unhandled(&t_eh);
}
