/* The recorder's process-wide state and each thread's (record.h): set up,
 * opened, closed; a thread's buffer made at its first traced call. */
#include "internal.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

ct_recorder g_rec;
__thread ct_tbuf *ct_rec_self CT_TLS_MODEL;

static pthread_key_t g_thread_key;

/* A thread that ends hands its buffer to the writer, which drains it and
 * frees it for reuse. A hook running later on this thread (managed code in
 * another TLS destructor) gets a new buffer. */
static void thread_exit(void *p)
{
    ct_tbuf_orphan(p);
    ct_rec_self = NULL;
}

void ct_recorder_init(ct_hook_mode mode, uint32_t ring_kb, int lossy, int naive)
{
    g_rec.gated = g_ct.cfg.tree.trigger != NULL;
    g_rec.budgeted = g_ct.cfg.max_overhead || g_ct.cfg.limit || g_ct.cfg.rate;
    g_rec.mode = mode;
    g_rec.naive = naive;
    g_rec.srcline = g_ct.cfg.srcline && mode != CT_HOOKS_FAST && !naive;
    ct_tbuf_setup(ring_kb, lossy, sizeof(ct_rec_thread));
    /* Once per process (an attached process starts a trace per session). */
    static int keyed;
    if (!keyed && pthread_key_create(&g_thread_key, thread_exit) == 0)
        keyed = 1;
    ULONG len_off = 8, buf_off = 12;
    ICorProfilerInfo *info = g_ct.info;
    if (FAILED(info->lpVtbl->GetStringLayout2(info, &len_off, &buf_off))) {
        len_off = 8;
        buf_off = 12;
    }
    g_rec.layout.string_length_offset = len_off;
    g_rec.layout.string_chars_offset = buf_off;
    g_rec.layout.array_length_offset = CT_SZARRAY_LENGTH_OFFSET;
    g_rec.layout.array_data_offset = CT_SZARRAY_DATA_OFFSET;
}

void ct_recorder_open(void)
{
    atomic_store(&g_rec.open, 1);
}

void ct_recorder_stop(void)
{
    atomic_store(&g_rec.open, 0);
}

void ct_recorder_close(void)
{
    atomic_store(&g_rec.open, 0);
    /* Hooks past their check finish quickly; one that cannot (it waits for
     * something this thread holds) is left alone. */
    uint64_t start = ct_mono_raw_ns();
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next)
        while (atomic_load_explicit(&ct_rec_of(b)->busy, memory_order_acquire) &&
               ct_mono_raw_ns() - start < CT_QUIESCE_WAIT_NS)
            nanosleep(&(struct timespec){0, CT_QUIESCE_POLL_NS}, NULL);
}

void ct_recorder_attached(void)
{
    g_rec.attached = 1;
}

void ct_recorder_reset_threads(void)
{
    for (ct_tbuf *b = ct_tbuf_first(); b; b = b->next) {
        ct_rec_thread *t = ct_rec_of(b);
        t->depth = t->gate = t->nouts = 0;
        memset(t->dropped_frames, 0, sizeof t->dropped_frames);
        memset(t->skipped_frames, 0, sizeof t->skipped_frames);
        t->sampled = 0;
        ct_tbuf_reset_skips(b);
        /* The new trace has no CLASS records yet, nor the thread's
         * Activity: read again at its next call. */
        ct_rec_forget_classes(b);
        t->class_new = 0;
        memset(t->act_ids, 0, sizeof t->act_ids);
        t->act_ec_epoch = 0;
    }
}

void ct_recorder_watch_unhandled(const ct_mapped_fn *f)
{
    atomic_store(&g_rec.watch_unhandled, (uintptr_t)f);
}

ct_tbuf *ct_rec_thread_new(void)
{
    int slow = g_rec.mode == CT_HOOKS_SLOW;
    ct_tbuf *b = ct_tbuf_acquire((uint64_t)syscall(SYS_gettid), slow);
    if (!b)
        return NULL;
    if (slow) {
        /* Byref targets are read in place only inside this stack. */
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            void *addr = NULL;
            size_t size = 0;
            if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
                ct_rec_of(b)->stack_lo = (uintptr_t)addr;
                ct_rec_of(b)->stack_hi = (uintptr_t)addr + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    pthread_setspecific(g_thread_key, b);
    ct_rec_self = b;
    return b;
}
