#include "hooks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "out.h"
#include "registry.h"
#include "state.h"

/* Longest line we write; longer signatures are cut. */
#define LINE_MAX_BYTES 4096
/* Argument info we fetch on the stack: 8 bytes of header plus 16 per range,
 * so up to 255 ranges. Larger infos are reported as "args ?". */
#define ARG_INFO_MAX_BYTES 4096
/* Indentation stops growing here so deep recursion keeps lines readable. */
#define MAX_INDENT 64

static __thread int t_depth;
static __thread int t_tid;
static __thread const ct_function *t_unwinding;

static int thread_id(void)
{
    if (!t_tid)
        t_tid = (int)syscall(SYS_gettid);
    return t_tid;
}

/* Appends printf-style text to line[*len..cap), keeping *len <= cap - 1. */
static void add(char *line, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(char *line, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = (size_t)n < cap - *len ? *len + (size_t)n : cap - 1;
}

static void begin_line(char *line, size_t cap, size_t *len, int depth, char mark)
{
    int indent = depth < MAX_INDENT ? depth : MAX_INDENT;
    add(line, cap, len, "%7d %3d %*s%c ", thread_id(), depth, 2 * indent, "", mark);
}

static void end_line(char *line, size_t cap, size_t *len)
{
    if (*len >= cap - 1)
        *len = cap - 2; /* keep room for the newline of a cut line */
    line[(*len)++] = '\n';
    ct_out_write(line, *len);
}

void ct_enter_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    ct_function *f = (ct_function *)id.clientID;
    ICorProfilerInfo *info = g_ct.info;
    int depth = t_depth++;

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
    HRESULT hr = E_FAIL;
    if (need && need <= sizeof args) {
        ULONG size = need;
        hr = info->lpVtbl->GetFunctionEnter3Info(info, f->id, elt, &frame, &size, &args.info);
    }

    char line[LINE_MAX_BYTES];
    size_t len = 0;
    begin_line(line, sizeof line, &len, depth, '>');
    add(line, sizeof line, &len, "%s", f->signature ? f->signature : f->name);
    if (SUCCEEDED(hr)) {
        add(line, sizeof line, &len, "  [args %u:", args.info.numRanges);
        for (ULONG i = 0; i < args.info.numRanges; i++)
            add(line, sizeof line, &len, " %u", args.info.ranges[i].length);
        add(line, sizeof line, &len, "]");
    } else {
        add(line, sizeof line, &len, "  [args ? (0x%08X, %u bytes)]", (unsigned)hr, need);
    }
    end_line(line, sizeof line, &len);
}

void ct_leave_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    ct_function *f = (ct_function *)id.clientID;
    ICorProfilerInfo *info = g_ct.info;
    int depth = t_depth > 0 ? --t_depth : 0;

    COR_PRF_FRAME_INFO frame = 0;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ret = {0, 0};
    HRESULT hr = info->lpVtbl->GetFunctionLeave3Info(info, f->id, elt, &frame, &ret);

    char line[LINE_MAX_BYTES];
    size_t len = 0;
    begin_line(line, sizeof line, &len, depth, '<');
    add(line, sizeof line, &len, "%s", f->name);
    if (FAILED(hr))
        add(line, sizeof line, &len, "  [ret ? (0x%08X)]", (unsigned)hr);
    else if (ret.startAddress)
        add(line, sizeof line, &len, "  [ret %u]", ret.length);
    else
        add(line, sizeof line, &len, "  [ret void]");
    end_line(line, sizeof line, &len);
}

void ct_tailcall_hook(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    ct_function *f = (ct_function *)id.clientID;
    ICorProfilerInfo *info = g_ct.info;
    int depth = t_depth > 0 ? --t_depth : 0;

    COR_PRF_FRAME_INFO frame = 0;
    info->lpVtbl->GetFunctionTailcall3Info(info, f->id, elt, &frame);

    char line[LINE_MAX_BYTES];
    size_t len = 0;
    begin_line(line, sizeof line, &len, depth, '<');
    add(line, sizeof line, &len, "%s  [tailcall]", f->name);
    end_line(line, sizeof line, &len);
}

void ct_unwind_function_enter(FunctionID id)
{
    const ct_function *f = ct_registry_find(id);
    t_unwinding = (f && f->hooked) ? f : NULL;
}

void ct_unwind_function_leave(void)
{
    const ct_function *f = t_unwinding;
    t_unwinding = NULL;
    if (!f)
        return;
    int depth = t_depth > 0 ? --t_depth : 0;
    char line[LINE_MAX_BYTES];
    size_t len = 0;
    begin_line(line, sizeof line, &len, depth, '<');
    add(line, sizeof line, &len, "%s  [exception]", f->name);
    end_line(line, sizeof line, &len);
}
