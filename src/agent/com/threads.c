#include "threads.h"

#include <pthread.h>
#include <string.h>

#include "agent/runtime/state.h"
#include "agent/model/utf16.h"
#include "agent/writer/writer.h"

typedef struct entry {
    ThreadID id;
    uint64_t os;  /* 0: not known yet */
    int named;
    char name[CT_THREAD_NAME_MAX];
} entry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static entry g_threads[CT_MAX_THREADS_TRACKED];
static size_t g_count;

/* The entry of id, made when missing; NULL when the table is full. Under
 * g_lock. */
static entry *find(ThreadID id, int make)
{
    for (size_t i = 0; i < g_count; i++)
        if (g_threads[i].id == id)
            return &g_threads[i];
    if (!make || g_count == CT_MAX_THREADS_TRACKED)
        return NULL;
    entry *e = &g_threads[g_count++];
    memset(e, 0, sizeof *e);
    e->id = id;
    return e;
}

/* Asks the runtime for the OS thread of id (0 when it has none yet). */
static uint64_t os_thread_of(ThreadID id)
{
    ICorProfilerInfo *info = g_ct.info;
    DWORD os = 0;
    if (!info || FAILED(info->lpVtbl->GetThreadInfo(info, id, &os)))
        return 0;
    return os;
}

void ct_threads_assigned(ThreadID id, DWORD os_tid)
{
    char name[CT_THREAD_NAME_MAX];
    int emit = 0;
    pthread_mutex_lock(&g_lock);
    entry *e = find(id, 1);
    if (e) {
        e->os = os_tid;
        if (e->named) {
            memcpy(name, e->name, sizeof name);
            emit = 1;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (emit && os_tid)
        ct_writer_thread(os_tid, name);
}

void ct_threads_named(ThreadID id, ULONG cch, const WCHAR *wname)
{
    char name[CT_THREAD_NAME_MAX];
    /* The count may include a terminating NUL. */
    while (cch && wname && !wname[cch - 1])
        cch--;
    ct_utf16_to_utf8(wname ? wname : (const WCHAR *)u"", wname ? cch : 0, name, sizeof name);
    uint64_t known = os_thread_of(id);
    uint64_t os = 0;
    pthread_mutex_lock(&g_lock);
    entry *e = find(id, 1);
    if (e) {
        e->named = 1;
        memcpy(e->name, name, sizeof name);
        if (known)
            e->os = known;
        os = e->os;
    }
    pthread_mutex_unlock(&g_lock);
    if (os)
        ct_writer_thread(os, name);
}

void ct_threads_destroyed(ThreadID id)
{
    pthread_mutex_lock(&g_lock);
    entry *e = find(id, 0);
    if (e)
        *e = g_threads[--g_count];
    pthread_mutex_unlock(&g_lock);
}
