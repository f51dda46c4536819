/* JIT compilation on a thread (record.h): its time held, as the hooks' own,
 * and counted. */
#include "internal.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "agent/writer/writer.h"

/* The outermost compilation running on this thread, and how deep. */
static __thread uint64_t t_jit_start;
static __thread uint32_t t_jit_depth;

void ct_jit_started(void)
{
    /* Off the hooks, once a traced call wanted them: what the hooks need
     * to find the thread's Activity (activity.c). */
    ct_activity_wanted();
    if (t_jit_depth++ == 0)
        t_jit_start = ct_now_ns();
}

void ct_jit_finished(FunctionID id)
{
    if (!t_jit_depth || --t_jit_depth)
        return;
    uint64_t now = ct_now_ns();
    uint64_t ns = now > t_jit_start ? now - t_jit_start : 0;
    /* A thread with a buffer has traced calls: their times leave it out. */
    ct_tbuf *b = ct_rec_self;
    if (b)
        ct_ring_hold_jit(&b->ring, ns);
    const ct_mapped_fn *f = ct_registry_find(id);
    ct_writer_jit(f && f->hooked ? (uint64_t)(uintptr_t)f : 0, ns,
                  b ? b->tid : (uint64_t)syscall(SYS_gettid));
}
