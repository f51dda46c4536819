/*
 * libclrtrace.so: the COM side of the profiler.
 *
 * The runtime (CORECLR_ENABLE_PROFILING=1, CORECLR_PROFILER=<our CLSID>,
 * CORECLR_PROFILER_PATH=<this file>) dlopens us, calls DllGetClassObject for
 * an IClassFactory, asks it for an ICorProfilerCallback2 and then QIs that
 * object for newer callback interfaces (eetoprofinterfaceimpl.cpp,
 * CoCreateProfiler/CreateProfiler). We answer up to ICorProfilerCallback4
 * (its ReJIT callbacks serve attach). There is one callback object per
 * process; it is static and never freed.
 *
 * Initialize picks the newest ICorProfilerInfo the runtime offers, sets the
 * event mask, the FunctionIDMapper2 (registry.c) and the slow-path ELT hooks
 * (hooks.c). InitializeForAttach (a running process, `clrtrace -p`) hands
 * over to attach.c; each of its sessions starts and ends a trace here. Every
 * callback we do not use returns S_OK.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach_control.h"
#include "agent/hookside/clock.h"
#include "base/folder.h"
#include "format/attach.h"
#include "format/launch.h"
#include "views/render.h"
#include "agent/runtime/config.h"
#include "agent/runtime/corprof_decls.h"
#include "agent/engines/elt/asm/elt_stubs.h"
#include "agent/engines/elt/hooks.h"
#include "agent/engines/il/ilprobe.h"
#include "agent/writer/logstream.h"
#include "agent/writer/outputs.h"
#include "agent/hookside/tbuf.h"
#include "agent/model/identity.h"
#include "agent/model/loaded.h"
#include "agent/model/registry.h"
#include "agent/model/inject_bind.h"
#include "agent/model/when_bind.h"
#include "agent/runtime/state.h"
#include "threads.h"
#include "agent/model/utf16.h"
#include "agent/writer/writer.h"
#include "agent/record/record.h"

/* Longest command line shown in the trace header (longer ones end in "..."). */
#define CMDLINE_MAX 512
/* Longest settings line of the header (runtime, limits, mode). */
#define SETTINGS_MAX 512
/* The header's filter description (longer text is cut and ends in "..."). */
#define FILTER_TEXT_MAX 1024

/* Our CLSID, {8B4B2E65-C262-4FCC-BAE6-2A302612F038}: pass it in
 * CORECLR_PROFILER (with the braces). Fixed forever; documented in
 * docs/tracer.md. */
static const CLSID CLSID_clrtrace = {
    0x8B4B2E65, 0xC262, 0x4FCC, {0xBA, 0xE6, 0x2A, 0x30, 0x26, 0x12, 0xF0, 0x38}};

ct_state g_ct;

static int guid_eq(const GUID *a, const GUID *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* -------------------------------------------------- the callback object */

static atomic_uint g_callback_refs;

#define CB_SELF ICorProfilerCallback3 *self
#define STUB0(name)                                                                      \
    static HRESULT cb_##name(CB_SELF)                                                    \
    {                                                                                    \
        (void)self;                                                                      \
        return S_OK;                                                                     \
    }
#define STUB(name, ...)                                                                  \
    static HRESULT cb_##name(CB_SELF, __VA_ARGS__)                                       \
    {                                                                                    \
        (void)self;                                                                      \
        return S_OK;                                                                     \
    }

static HRESULT cb_QueryInterface(CB_SELF, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (guid_eq(riid, &IID_IUnknown) || guid_eq(riid, &IID_ICorProfilerCallback) ||
        guid_eq(riid, &IID_ICorProfilerCallback2) || guid_eq(riid, &IID_ICorProfilerCallback3) ||
        guid_eq(riid, &IID_ICorProfilerCallback4)) {
        *ppv = self;
        atomic_fetch_add(&g_callback_refs, 1);
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG cb_AddRef(CB_SELF)
{
    (void)self;
    return atomic_fetch_add(&g_callback_refs, 1) + 1;
}

static ULONG cb_Release(CB_SELF)
{
    (void)self;
    /* Static object: the count is kept for COM's sake, nothing is freed. */
    unsigned prev = atomic_load(&g_callback_refs);
    while (prev && !atomic_compare_exchange_weak(&g_callback_refs, &prev, prev - 1))
        ;
    return prev ? prev - 1 : 0;
}

/* Newest first: Initialize keeps the first the runtime gives us. */
static const struct {
    const IID *iid;
    int version;
} k_info_versions[] = {
    {&IID_ICorProfilerInfo15, 15}, {&IID_ICorProfilerInfo14, 14}, {&IID_ICorProfilerInfo13, 13},
    {&IID_ICorProfilerInfo12, 12}, {&IID_ICorProfilerInfo11, 11}, {&IID_ICorProfilerInfo10, 10},
    {&IID_ICorProfilerInfo9, 9},   {&IID_ICorProfilerInfo8, 8},   {&IID_ICorProfilerInfo7, 7},
    {&IID_ICorProfilerInfo6, 6},   {&IID_ICorProfilerInfo5, 5},   {&IID_ICorProfilerInfo4, 4},
    {&IID_ICorProfilerInfo3, 3},
};

/* The newest ICorProfilerInfo unk offers, into g_ct (none: info NULL). */
static void pick_info(IUnknown *unk)
{
    for (size_t i = 0; i < sizeof k_info_versions / sizeof *k_info_versions; i++) {
        void *p = NULL;
        if (SUCCEEDED(unk->lpVtbl->QueryInterface(unk, k_info_versions[i].iid, &p)) && p) {
            g_ct.info = p;
            g_ct.info_version = k_info_versions[i].version;
            USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
            int type = 0;
            ULONG len = 0;
            WCHAR w[64];
            if (SUCCEEDED(g_ct.info->lpVtbl->GetRuntimeInformation(
                    g_ct.info, &instance, &type, &major, &minor, &build, &qfe, 64, &len, w)))
                g_ct.runtime_major = major;
            return;
        }
    }
}

/* The runtime version, e.g. "10.0.12", for the trace header. */
static void runtime_version(char *out, size_t cap)
{
    ICorProfilerInfo *info = g_ct.info;
    USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
    int type = 0;
    WCHAR w[64];
    ULONG len = 0;
    snprintf(out, cap, "unknown");
    if (FAILED(info->lpVtbl->GetRuntimeInformation(info, &instance, &type, &major, &minor, &build,
                                                   &qfe, 64, &len, w)))
        return;
    snprintf(out, cap, "%s %u.%u.%u", type == COR_PRF_CORE_CLR ? "CoreCLR" : "CLR", major, minor,
             build);
}

/* The process's command line, arguments joined by spaces. */
/* What is traced, for the header: "my code", "everything", or the
 * options that chose it, e.g. "assembly Demo, exclude *.Log*, depth 3". */
static void describe_filter(const ct_config *c, char *out, size_t cap)
{
    size_t n = 0;
#define ADD(...)                                                                     \
    do {                                                                             \
        if (n < cap) {                                                               \
            int k_ = snprintf(out + n, cap - n, __VA_ARGS__);                        \
            n += k_ > 0 ? (size_t)k_ : 0;                                            \
        }                                                                            \
    } while (0)
    if (c->assembly)
        ADD("assembly %s", c->assembly);
    if (c->include)
        ADD("%sinclude %s", n ? ", " : "", c->include);
    if (!c->assembly && !c->include)
        ADD("%s", c->trace_all ? "everything" : "my code (" CT_FRAMEWORK_RULE ")");
    if (c->exclude)
        ADD(", exclude %s", c->exclude);
    if (c->tree.trigger)
        ADD(", trigger %s", c->tree.trigger);
    if (c->tree.after)
        ADD(", after %llu calls", (unsigned long long)c->tree.after);
    if (c->tree.depth)
        ADD(", depth %u", c->tree.depth);
    if (c->tree.min_time_ns) {
        char d[32];
        ct_format_duration(c->tree.min_time_ns, d, sizeof d);
        ADD(", min-time %s", d);
    }
#undef ADD
    if (n >= cap && cap > 4)
        memcpy(out + cap - 4, "...", 4);
}

static void command_line(char *out, size_t cap)
{
    ct_proc_cmdline((unsigned)getpid(), CMDLINE_MAX, out, cap);
}

/* Reports a setup failure on stderr (one line) and in the launcher's index,
 * and gives the Info back. */
static HRESULT give_up(const char *cmdline, const char *what, HRESULT hr)
{
    fprintf(stderr, "clrtrace: %s failed (HRESULT 0x%08X); the program runs untraced\n", what,
            (unsigned)hr);
    ct_outputs_index(&g_ct.cfg, "declined", NULL, cmdline);
    if (g_ct.info) {
        g_ct.info->lpVtbl->Release(g_ct.info);
        g_ct.info = NULL;
    }
    return hr;
}

/* Sets the event mask; with trace ids on (CLRTRACE_IDS), also the
 * runtime's basic GC callbacks (COR_PRF_HIGH_BASIC_GC, ICorProfilerInfo5):
 * without them, each Activity read starts from the thread static again
 * (record/activity.c). */
static HRESULT set_event_mask(DWORD mask)
{
    ICorProfilerInfo *info = g_ct.info;
    int ids = g_ct.cfg.ids && g_ct.cfg.null_mode == CT_NULL_OFF && !g_ct.cfg.bench_naive;
    ct_activity_setup(ids, 0);
    if (ids && g_ct.info_version >= 5) {
        HRESULT hr = info->lpVtbl->SetEventMask2(info, mask, COR_PRF_HIGH_BASIC_GC);
        if (SUCCEEDED(hr)) {
            ct_activity_setup(ids, 1);
            return hr;
        }
    }
    return info->lpVtbl->SetEventMask(info, mask);
}

static atomic_ulong g_session_methods; /* attached: the methods rewritten */
static int g_attached;                 /* loaded by InitializeForAttach */

/* The END record's counts: functions JIT-compiled (the ELT engine's mapper
 * sees each once; the IL engine also looks at precompiled ones, so it
 * counts its compilations; attached: the methods rewritten) and functions
 * traced. Atomic loads only. */

static void end_counts(unsigned long *mapped, unsigned long *hooked)
{
    ct_registry_counts(mapped, hooked);
    if (g_attached)
        *mapped = atomic_load(&g_session_methods);
    else if (g_ct.cfg.il_engine)
        *mapped = ct_il_compiled();
}

/* Recording stops once: at Shutdown, or at process exit when the runtime
 * ended without calling Shutdown. */
static atomic_int g_stopped;

static void stop_tracing(int runtime_alive)
{
    if (atomic_exchange(&g_stopped, 1))
        return;
    ct_recorder_close();
    unsigned long mapped = 0, hooked = 0;
    end_counts(&mapped, &hooked);
    ct_writer_stop(mapped, hooked, runtime_alive);
}

static void stop_at_exit(void)
{
    if (!atomic_load(&g_stopped)) {
        ct_when_tell_unreadable();
        ct_rec_async_tell();
    }
    stop_tracing(0);
}

/* An unhandled exception is about to end the process (record.h, ct_recorder_on_fatal): abort()
 * follows, with no Shutdown, no exit handlers and our SIGABRT handler
 * already replaced by the runtime's PAL (PROCAbort restores the handlers it
 * found at start-up). The runtime is still alive: class names can still be
 * asked for. */
static void stop_on_fatal(void)
{
    stop_tracing(1);
}

/* Signals that end the process without Shutdown or exit handlers: a kill
 * (SIGTERM, SIGINT, SIGQUIT, SIGHUP) or abort() after an unhandled exception
 * (SIGABRT). On the first one the trace is finished (flushed, summary
 * written), then the action that was installed before ours runs as if we were
 * not there: the runtime's own handler, or the default (the exit status is the
 * program's). A signal that was ignored stays ignored: no handler of ours. */
static const int k_fatal_signals[] = { SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGABRT };
#define N_FATAL_SIGNALS (sizeof k_fatal_signals / sizeof k_fatal_signals[0])
static struct sigaction g_prev_action[N_FATAL_SIGNALS];

/* The trace is finished from a signal handler with async-signal-safe calls
 * only: the signal may have landed while this thread held a lock (the
 * registry's, malloc's, stdio's), and taking it again would hang the
 * process. So the handler only stops the hooks (atomics, nanosleep), reads
 * the registry's counts (atomic loads), tells the writer thread to finish
 * (futex) and waits for it (futex, clock_gettime); the writer, which takes
 * no signals, does the rest. If the writer needs a lock this thread holds,
 * it makes no progress and the wait ends after CT_WRITER_STALL_NS. */
static void stop_tracing_from_signal(void)
{
    if (atomic_exchange(&g_stopped, 1))
        return;
    ct_recorder_close();
    unsigned long mapped = 0, hooked = 0;
    end_counts(&mapped, &hooked);
    ct_writer_stop_from_signal(mapped, hooked);
}

static void finish_on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    stop_tracing_from_signal();
    for (size_t i = 0; i < N_FATAL_SIGNALS; i++) {
        if (k_fatal_signals[i] != sig)
            continue;
        struct sigaction *prev = &g_prev_action[i];
        if (prev->sa_flags & SA_SIGINFO) {
            if (prev->sa_sigaction) {
                errno = saved_errno;
                prev->sa_sigaction(sig, si, uc);
                return;
            }
        } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
            errno = saved_errno;
            prev->sa_handler(sig);
            return;
        }
        /* The default action: put it back and let the signal through again
         * (it is delivered once this handler returns). */
        sigaction(sig, prev, NULL);
        raise(sig);
    }
    errno = saved_errno;
}

static void finish_on_fatal_signals(void)
{
    for (size_t i = 0; i < N_FATAL_SIGNALS; i++) {
        struct sigaction now;
        if (sigaction(k_fatal_signals[i], NULL, &now) != 0 ||
            (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN))
            continue;
        g_prev_action[i] = now;
        struct sigaction ours;
        memset(&ours, 0, sizeof ours);
        ours.sa_sigaction = finish_on_signal;
        ours.sa_flags = SA_SIGINFO | SA_RESTART | (now.sa_flags & SA_ONSTACK);
        sigemptyset(&ours.sa_mask);
        sigaction(k_fatal_signals[i], &ours, NULL);
    }
}

/* Declines to load after a setup problem: one stderr line, then the program
 * runs untraced (the runtime goes on without a profiler). */
static HRESULT decline(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, fmt, a, b);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
}

static int begin_recording(const ct_config *cfg, int text, int bin_fd, const char *bin_path,
                           int bin_dir, const char *bin_name,
                           const char *cmdline, int il, int fast, int attached);

/* The rooms joined here, the one place that knows them all: the model tells
 * the writer of new records and the ELT engine of the function it watches;
 * the buffers wake the writer and ask it whether it stopped. Before anything
 * maps a function or takes a buffer. */
static void connect_rooms(void)
{
    static const ct_registry_events events = {
        .on_defined = ct_writer_define,
        .on_watched = ct_recorder_watch_unhandled,
    };
    ct_registry_setup(&events);
    ct_tbuf_consumer(ct_writer_kick, ct_writer_stopped);
}

/* Bench only (bench/run_trace.sh, the start-up floor): CLRTRACE_BENCH_FLOOR=
 * MASK loads the profiler, sets event mask MASK (a number, as corprof.idl
 * has the COR_PRF_MONITOR values; CLRTRACE_BENCH_FLOOR_HIGH: the high mask)
 * and does nothing else: every callback returns at once. What the runtime
 * itself spends on a profiler and those events. */
static int g_floor;

static HRESULT cb_Initialize(CB_SELF, IUnknown *unk)
{
    (void)self;
    const char *floor_mask = getenv("CLRTRACE_BENCH_FLOOR");
    if (floor_mask && *floor_mask) {
        g_floor = 1;
        pick_info(unk);
        const char *high = getenv("CLRTRACE_BENCH_FLOOR_HIGH");
        return g_ct.info ? g_ct.info->lpVtbl->SetEventMask2(
                               g_ct.info, (DWORD)strtoul(floor_mask, NULL, 0),
                               high ? (DWORD)strtoul(high, NULL, 0) : 0)
                         : E_NOINTERFACE;
    }
    connect_rooms();
    char why[PATH_MAX + 256];
    ct_config *cfg = &g_ct.cfg;
    char cmdline[CMDLINE_MAX + 4];
    command_line(cmdline, sizeof cmdline);
    if (ct_config_from_env(cfg, why, sizeof why) != 0 || ct_when_load(cfg->when, why, sizeof why) != 0 ||
        ct_chosen_load(cfg->args_chosen, cfg->ret_chosen, why, sizeof why) != 0 ||
        ct_inject_load(cfg->inject, cfg->inject_seed, cfg->inject_seed_given, why,
                       sizeof why) != 0) {
        fprintf(stderr, "clrtrace: %s; the program runs untraced\n", why);
        ct_outputs_index(cfg, "declined", NULL, cmdline);
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    /* --no-follow: the launcher's own child only; its children run as if
     * no profiler were there (they keep ReadyToRun code). */
    if (!cfg->follow && ct_outputs_root(cfg) == 0) {
        ct_outputs_index(cfg, "unfollowed", NULL, cmdline);
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    int null_mode = cfg->null_mode != CT_NULL_OFF;
    /* The IL-probe engine: its probes record values (arguments) unless
     * --no-args. */
    int il = cfg->il_engine && !null_mode;
    int fast = cfg->no_args || cfg->null_mode == CT_NULL_FAST;
    /* No values on the fast path, none wanted from the empty hooks: no
     * plans either. */
    if (fast || null_mode)
        cfg->signatures = 0;
    int text = !null_mode && (cfg->output_path || !cfg->trace_path);
    ct_outputs outs = { .text_fd = -1, .bin_fd = -1 };
    if (!null_mode && ct_outputs_open(cfg, text, &outs, why, sizeof why) != 0) {
        ct_outputs_index(cfg, "declined", NULL, cmdline);
        return decline("clrtrace: cannot write the trace to %s%s; the program runs untraced\n",
                       why, "");
    }
    if (text)
        ct_out_open(outs.text_fd, outs.text_path[0] ? outs.text_path : "stderr", cfg->bench_naive);
    int bin_fd = outs.bin_fd;

    pick_info(unk);
    if (!g_ct.info)
        return give_up(cmdline, "QueryInterface for ICorProfilerInfo3 or newer", E_NOINTERFACE);

    ICorProfilerInfo *info = g_ct.info;
    ct_clock_init();
    ct_hook_mode mode = cfg->null_mode == CT_NULL_SLOW   ? CT_HOOKS_SLOW_NULL
                        : cfg->null_mode == CT_NULL_FAST ? CT_HOOKS_FAST_NULL
                        : fast                           ? CT_HOOKS_FAST
                                                         : CT_HOOKS_SLOW;
    ct_recorder_init(mode, cfg->buffer_kb, cfg->lossy, cfg->bench_naive);
    ct_recorder_on_fatal(stop_on_fatal);
    /* The fast path must not ask for argument, return value or frame
     * information: the runtime refuses such a mask with fast hooks. */
    /* JIT compilation: its time is left out of the calls' (hooks.c). */
    DWORD mask = COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_MONITOR_EXCEPTIONS |
                 COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_JIT_COMPILATION;
    /* The IL-probe engine: no enter/leave hooks (so the runtime keeps its
     * ReadyToRun code), the cache searches to refuse the precompiled code of
     * traced methods, JITInlining to keep them from being inlined. */
    if (il)
        mask = (mask & ~(DWORD)COR_PRF_MONITOR_ENTERLEAVE) | COR_PRF_MONITOR_CACHE_SEARCHES |
               COR_PRF_MONITOR_MODULE_LOADS;
    /* --srcline: the stack read where an exception is thrown (record/unwind.c). */
    if (cfg->srcline && !fast && !null_mode)
        mask |= COR_PRF_ENABLE_STACK_SNAPSHOT;
    /* Values: the classes the runtime loads are kept, so that an object's
     * struct fields, planned in the hooks, find their types (model/loaded.c). */
    if (!fast && !null_mode)
        mask |= COR_PRF_MONITOR_CLASS_LOADS;
    if (!fast && !il)
        mask |= COR_PRF_ENABLE_FUNCTION_ARGS | COR_PRF_ENABLE_FUNCTION_RETVAL |
                COR_PRF_ENABLE_FRAME_INFO;
    if (!cfg->allow_inlining && !il)
        mask |= COR_PRF_DISABLE_INLINING;
    HRESULT hr = set_event_mask(mask);
    if (FAILED(hr))
        return give_up(cmdline, "SetEventMask", hr);
    hr = info->lpVtbl->SetFunctionIDMapper2(info, ct_function_mapper, NULL);
    if (FAILED(hr))
        return give_up(cmdline, "SetFunctionIDMapper2", hr);
    if (il)
        hr = S_OK; /* the probes are in the IL (il/ilprobe.c) */
    else if (fast)
        hr = info->lpVtbl->SetEnterLeaveFunctionHooks3(
            info, (FunctionEnter3 *)(void *)ct_fast_enter_stub,
            (FunctionLeave3 *)(void *)ct_fast_leave_stub,
            (FunctionTailcall3 *)(void *)ct_fast_tailcall_stub);
    /* No slow-path tail-call hook: the runtime's helper for it loses the
     * upper half of vector registers (hooks.c, "tail calls, unhooked"). */
    else if (null_mode)
        hr = info->lpVtbl->SetEnterLeaveFunctionHooks3WithInfo(info, ct_null_enter_hook,
                                                               ct_null_leave_hook, NULL);
    else
        hr = info->lpVtbl->SetEnterLeaveFunctionHooks3WithInfo(
            info, cfg->bench_naive ? ct_enter_hook_naive : ct_enter_hook,
            cfg->bench_naive ? ct_leave_hook_naive : ct_leave_hook, NULL);
    if (FAILED(hr))
        return give_up(cmdline,
                       fast ? "SetEnterLeaveFunctionHooks3" : "SetEnterLeaveFunctionHooks3WithInfo",
                       hr);
    if (null_mode) {
        ct_outputs_index(cfg, "traced", &outs, cmdline);
        return S_OK; /* nothing is recorded, nothing is written */
    }
    /* --max-size: the segments are made beside the trace. */
    int bin_dir = -1;
    const char *bin_name = NULL;
    if (cfg->max_size && bin_fd >= 0 && outs.bin_path[0])
        bin_dir = ct_folder_open(outs.bin_path, &bin_name);
    int began = begin_recording(cfg, text, bin_fd, outs.bin_path, bin_dir, bin_name, cmdline,
                                il, fast, 0);
    if (bin_dir >= 0)
        close(bin_dir); /* the writer keeps a copy */
    if (began != 0)
        return give_up(cmdline, "starting the trace writer", E_OUTOFMEMORY);
    atexit(stop_at_exit);
    finish_on_fatal_signals();
    ct_outputs_index(cfg, "traced", &outs, cmdline);
    return S_OK;
}

/* The trace header's lines and the writer started, the hooks open:
 * recording begins. 0, or -1 (out of memory). */

/* The budget under attach with the IL engine: a function stepped down to
 * untraced gets its code back (RequestRevert), and its probes again when it
 * steps back up (budget.h). */
static void budget_untrace(const ct_mapped_fn *f)
{
    ModuleID mod = f->module;
    mdMethodDef tok = f->token;
    ct_il_methods one = {.mods = &mod, .toks = &tok, .n = 1, .cap = 1};
    ct_il_attach_revert(&one);
}

static void budget_retrace(const ct_mapped_fn *f)
{
    ModuleID mod = f->module;
    mdMethodDef tok = f->token;
    ct_il_methods one = {.mods = &mod, .toks = &tok, .n = 1, .cap = 1};
    ct_il_attach_rejit(&one);
}

static int begin_recording(const ct_config *cfg, int text, int bin_fd, const char *bin_path,
                           int bin_dir, const char *bin_name,
                           const char *cmdline, int il, int fast, int attached)
{
    char version[64], settings[SETTINGS_MAX];
    runtime_version(version, sizeof version);
    int n;
    if (il && fast)
        n = snprintf(settings, sizeof settings, "%s, ICorProfilerInfo%d, engine il, no arguments",
                     version, g_ct.info_version);
    else if (il)
        n = snprintf(settings, sizeof settings, "%s, ICorProfilerInfo%d, engine il, strings %u "
                     "chars, arrays %u items, structs %u levels, objects %u levels, %u fields, "
                     "%u bytes", version, g_ct.info_version, cfg->string_chars, cfg->array_items, cfg->struct_depth,
                     cfg->object_depth, cfg->object_fields, cfg->value_bytes);
    else if (fast)
        n = snprintf(settings, sizeof settings, "%s, ICorProfilerInfo%d, engine elt, inlining %s, "
                     "no arguments (fast path)", version, g_ct.info_version,
                     cfg->allow_inlining ? "allowed" : "disabled");
    else
        n = snprintf(settings, sizeof settings, "%s, ICorProfilerInfo%d, engine elt, inlining %s, "
                     "strings %u chars, arrays %u items, structs %u levels, objects %u levels, "
                     "%u fields, %u bytes", version, g_ct.info_version,
                     cfg->allow_inlining ? "allowed" : "disabled", cfg->string_chars,
                     cfg->array_items, cfg->struct_depth, cfg->object_depth, cfg->object_fields,
                     cfg->value_bytes);
    if (cfg->max_overhead && n > 0 && (size_t)n < sizeof settings)
        n += snprintf(settings + n, sizeof settings - (size_t)n, ", budget %u%%",
                      cfg->max_overhead);
    if (cfg->limit && n > 0 && (size_t)n < sizeof settings)
        n += snprintf(settings + n, sizeof settings - (size_t)n, ", limit %llu",
                      (unsigned long long)cfg->limit);
    if (cfg->rate && n > 0 && (size_t)n < sizeof settings)
        n += snprintf(settings + n, sizeof settings - (size_t)n, ", rate %llu/s",
                      (unsigned long long)cfg->rate);
    if (!cfg->redact && n > 0 && (size_t)n < sizeof settings)
        n += snprintf(settings + n, sizeof settings - (size_t)n, ", secrets shown");
    if (cfg->lossy && n > 0 && (size_t)n < sizeof settings)
        n += snprintf(settings + n, sizeof settings - (size_t)n, ", lossy");
    /* `info` reads "attached" here: the trace's start is the attach time,
     * its end the detach time. */
    if (attached && n > 0 && (size_t)n < sizeof settings)
        snprintf(settings + n, sizeof settings - (size_t)n, ", attached");
    char filter_text[FILTER_TEXT_MAX];
    describe_filter(cfg, filter_text, sizeof filter_text);
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    /* The writer's filter copies it at its start. */
    ct_filter_opts tree = cfg->tree;
    tree.at_end = ct_when_may_decide_at_end() ? ct_when_at_end : NULL;
    ct_writer_config wc = {
        .text = text,
        .binary_fd = bin_fd,
        .binary_path = bin_path,
        .compress = cfg->compress,
        .max_size = cfg->max_size,
        .binary_dir = bin_dir,
        .binary_name = bin_name,
        .summary = cfg->summary,
        .srcline = cfg->srcline,
        .naive = cfg->bench_naive,
        .pid = (uint32_t)getpid(),
        .ppid = (uint32_t)getppid(),
        .start_unix_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec,
        .cmdline = cmdline,
        .filter = filter_text,
        .calls_filter = &tree,
        .settings = settings,
        .stop_engine = ct_recorder_stop,
        .children_index = !attached && cfg->summary && ct_outputs_root(cfg) == 1
                              ? cfg->index_path : NULL,
        .budget = cfg->max_overhead || cfg->limit || cfg->rate,
        .attached = attached,
        .max_overhead = cfg->max_overhead,
        .untrace = attached && cfg->il_engine ? budget_untrace : NULL,
        .retrace = attached && cfg->il_engine ? budget_retrace : NULL,
        .tick = ct_activity_tick,
    };
    if (ct_writer_start(&wc) != 0)
        return -1;
    ct_recorder_open();
    return 0;
}

/* ------------------------------------------------------------ attach */

HRESULT ct_profiler_attach(IUnknown *unk)
{
    connect_rooms();
    pick_info(unk);
    if (!g_ct.info)
        return E_NOINTERFACE;
    /* ReJIT after attach needs ICorProfilerInfo10 (.NET Core 3.0). */
    if (g_ct.info_version < 10) {
        g_ct.info->lpVtbl->Release(g_ct.info);
        g_ct.info = NULL;
        return CT_E_RUNTIME_TOO_OLD;
    }
    g_attached = 1;
    g_ct.attached = 1;
    g_ct.cfg.il_engine = 1;
    /* Dormant until a session: ReJIT only (a flag for good once set). */
    HRESULT hr = g_ct.info->lpVtbl->SetEventMask(g_ct.info, COR_PRF_ENABLE_REJIT);
    if (FAILED(hr)) {
        g_ct.info->lpVtbl->Release(g_ct.info);
        g_ct.info = NULL;
    }
    return hr;
}

/* The last session's trace did not finish (its writer stalled): no other
 * session can start in this process. */
static int g_session_stuck;

int ct_profiler_session_start(const ct_config *cfg, int text_fd, int bin_fd, int bin_dir,
                              char *why, size_t cap)
{
    static int once;
    if (g_session_stuck) {
        snprintf(why, cap, "the trace of an earlier session in this process never finished; "
                           "no new one can start");
        return -1;
    }
    if (ct_when_load(cfg->when, why, cap) != 0 ||
        ct_chosen_load(cfg->args_chosen, cfg->ret_chosen, why, cap) != 0 ||
        ct_inject_load(cfg->inject, cfg->inject_seed, cfg->inject_seed_given, why, cap) != 0)
        return -1;
    ct_config *c = &g_ct.cfg;
    *c = *cfg;
    c->il_engine = 1;
    c->null_mode = CT_NULL_OFF;
    c->bench_naive = 0;
    c->follow = 0;
    int fast = c->no_args;
    if (fast)
        c->signatures = 0;
    ct_clock_init();
    ct_recorder_init(fast ? CT_HOOKS_FAST : CT_HOOKS_SLOW, c->buffer_kb, c->lossy, 0);
    ct_recorder_attached();
    if (text_fd >= 0)
        ct_out_open(text_fd, "the output of clrtrace -p", 0);
    atomic_store(&g_stopped, 0);
    atomic_store(&g_session_methods, 0);
    char cmdline[CMDLINE_MAX + 4];
    command_line(cmdline, sizeof cmdline);
    if (begin_recording(c, text_fd >= 0, bin_fd, NULL, bin_dir, CLRTRACE_TRACE_FILE, cmdline, 1,
                        fast, 1) != 0) {
        snprintf(why, cap, "cannot start the trace writer (out of memory)");
        return -1;
    }
    if (!once) {
        once = 1;
        atexit(stop_at_exit);
        finish_on_fatal_signals();
    }
    /* Exceptions close frames; threads are named; modules that load have
     * their methods chosen too. */
    HRESULT hr = set_event_mask(COR_PRF_ENABLE_REJIT | COR_PRF_MONITOR_EXCEPTIONS |
                                COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS |
                                (c->no_args ? 0 : COR_PRF_MONITOR_CLASS_LOADS) |
                                (c->srcline && !c->no_args ? COR_PRF_ENABLE_STACK_SNAPSHOT : 0));
    ct_activity_learn();
    if (FAILED(hr)) {
        snprintf(why, cap, "the runtime refused the event mask (HRESULT 0x%08X)", (unsigned)hr);
        ct_profiler_session_stop();
        return -1;
    }
    return 0;
}

void ct_profiler_session_methods(unsigned long n)
{
    atomic_store(&g_session_methods, n);
}

void ct_profiler_session_stop(void)
{
    g_ct.info->lpVtbl->SetEventMask(g_ct.info, COR_PRF_ENABLE_REJIT);
    stop_tracing(1);
    /* The text output's descriptor is closed by the caller: never written
     * again (its number may be the program's next). */
    ct_out_open(-1, "no output", 0);
    /* Ready for the next session: a trace of its own, frames and records
     * made anew. */
    if (ct_writer_reset() != 0) {
        g_session_stuck = 1;
        return;
    }
    ct_recorder_reset_threads();
    ct_registry_forget();
}

static HRESULT cb_Shutdown(CB_SELF)
{
    (void)self;
    if (g_floor)
        return S_OK;
    if (!atomic_load(&g_stopped)) {
        ct_when_tell_unreadable();
        ct_rec_async_tell();
    }
    stop_tracing(1);
    return S_OK;
}

/* Exceptions: forwarded to hooks.c, which follows them per thread. */
#define EX_CB0(name, call)                                                               \
    static HRESULT cb_##name(CB_SELF)                                                    \
    {                                                                                    \
        (void)self;                                                                      \
        call;                                                                            \
        return S_OK;                                                                     \
    }
#define EX_CB1(name, call)                                                               \
    static HRESULT cb_##name(CB_SELF, FunctionID id)                                     \
    {                                                                                    \
        (void)self;                                                                      \
        (void)id;                                                                        \
        call;                                                                            \
        return S_OK;                                                                     \
    }
EX_CB1(ExceptionSearchFunctionEnter, ct_ex_search_enter(id))
EX_CB0(ExceptionSearchFunctionLeave, ct_ex_search_leave())
EX_CB1(ExceptionSearchFilterEnter, ct_ex_filter_enter())
EX_CB0(ExceptionSearchFilterLeave, ct_ex_filter_leave())
EX_CB1(ExceptionSearchCatcherFound, ct_ex_catcher_found())
EX_CB1(ExceptionUnwindFunctionEnter, ct_ex_unwind_function_enter(id))
EX_CB0(ExceptionUnwindFunctionLeave, ct_ex_unwind_function_leave())
EX_CB1(ExceptionUnwindFinallyEnter, ct_ex_finally_enter())
EX_CB0(ExceptionUnwindFinallyLeave, ct_ex_finally_leave())
EX_CB0(ExceptionCatcherLeave, ct_ex_catcher_leave())

static HRESULT cb_ExceptionThrown(CB_SELF, ObjectID thrown)
{
    (void)self;
    ct_ex_thrown(thrown);
    return S_OK;
}

static HRESULT cb_ExceptionCatcherEnter(CB_SELF, FunctionID id, ObjectID obj)
{
    (void)self;
    (void)obj;
    ct_ex_catcher_enter(id);
    return S_OK;
}

STUB(AppDomainCreationStarted, AppDomainID id)
STUB(AppDomainCreationFinished, AppDomainID id, HRESULT hr)
STUB(AppDomainShutdownStarted, AppDomainID id)
STUB(AppDomainShutdownFinished, AppDomainID id, HRESULT hr)
STUB(AssemblyLoadStarted, AssemblyID id)
STUB(AssemblyLoadFinished, AssemblyID id, HRESULT hr)
STUB(AssemblyUnloadStarted, AssemblyID id)
STUB(AssemblyUnloadFinished, AssemblyID id, HRESULT hr)
STUB(ModuleLoadStarted, ModuleID id)
static HRESULT cb_ModuleLoadFinished(CB_SELF, ModuleID id, HRESULT hr)
{
    (void)self;
    if (g_attached && SUCCEEDED(hr))
        ct_attach_module_loaded(id);
    else if (g_ct.cfg.il_engine && SUCCEEDED(hr))
        ct_il_module_loaded(id);
    return S_OK;
}
STUB(ModuleUnloadStarted, ModuleID id)
STUB(ModuleUnloadFinished, ModuleID id, HRESULT hr)
STUB(ModuleAttachedToAssembly, ModuleID m, AssemblyID a)
STUB(ClassLoadStarted, ClassID id)
static HRESULT cb_ClassLoadFinished(CB_SELF, ClassID id, HRESULT hr)
{
    (void)self;
    if (SUCCEEDED(hr) && !g_floor)
        ct_loaded_class(id);
    return S_OK;
}
STUB(ClassUnloadStarted, ClassID id)
STUB(ClassUnloadFinished, ClassID id, HRESULT hr)
STUB(FunctionUnloadStarted, FunctionID id)
static HRESULT cb_JITCompilationStarted(CB_SELF, FunctionID id, BOOL safe)
{
    (void)self;
    (void)id;
    (void)safe;
    if (g_floor)
        return S_OK;
    ct_jit_started();
    if (g_ct.cfg.il_engine)
        ct_il_jit_started(id);
    return S_OK;
}

static HRESULT cb_JITCompilationFinished(CB_SELF, FunctionID id, HRESULT hr, BOOL safe)
{
    (void)self;
    (void)hr;
    (void)safe;
    if (!g_floor)
        ct_jit_finished(id);
    return S_OK;
}
static HRESULT cb_JITCachedFunctionSearchStarted(CB_SELF, FunctionID id, BOOL *use)
{
    (void)self;
    if (use)
        *use = !g_ct.cfg.il_engine || ct_il_use_precompiled(id);
    return S_OK;
}
STUB(JITCachedFunctionSearchFinished, FunctionID id, int result)
STUB(JITFunctionPitched, FunctionID id)
static HRESULT cb_JITInlining(CB_SELF, FunctionID caller, FunctionID callee, BOOL *inl)
{
    (void)self;
    (void)caller;
    if (inl && g_ct.cfg.il_engine && !ct_il_may_inline(callee))
        *inl = 0;
    return S_OK;
}
STUB(ThreadCreated, ThreadID id)
static HRESULT cb_ThreadDestroyed(CB_SELF, ThreadID id)
{
    (void)self;
    ct_threads_destroyed(id);
    return S_OK;
}

static HRESULT cb_ThreadAssignedToOSThread(CB_SELF, ThreadID id, DWORD os)
{
    (void)self;
    ct_threads_assigned(id, os);
    ct_activity_wanted();
    return S_OK;
}

STUB0(RemotingClientInvocationStarted)
STUB(RemotingClientSendingMessage, GUID *cookie, BOOL async)
STUB(RemotingClientReceivingReply, GUID *cookie, BOOL async)
STUB0(RemotingClientInvocationFinished)
STUB(RemotingServerReceivingMessage, GUID *cookie, BOOL async)
STUB0(RemotingServerInvocationStarted)
STUB0(RemotingServerInvocationReturned)
STUB(RemotingServerSendingReply, GUID *cookie, BOOL async)
STUB(UnmanagedToManagedTransition, FunctionID id, int reason)
STUB(ManagedToUnmanagedTransition, FunctionID id, int reason)
STUB(RuntimeSuspendStarted, int reason)
STUB0(RuntimeSuspendFinished)
STUB0(RuntimeSuspendAborted)
STUB0(RuntimeResumeStarted)
STUB0(RuntimeResumeFinished)
STUB(RuntimeThreadSuspended, ThreadID id)
STUB(RuntimeThreadResumed, ThreadID id)
STUB(MovedReferences, ULONG n, ObjectID oldStart[], ObjectID newStart[], ULONG len[])
STUB(ObjectAllocated, ObjectID obj, ClassID cls)
STUB(ObjectsAllocatedByClass, ULONG n, ClassID cls[], ULONG counts[])
STUB(ObjectReferences, ObjectID obj, ClassID cls, ULONG n, ObjectID refs[])
STUB(RootReferences, ULONG n, ObjectID refs[])
STUB(ExceptionOSHandlerEnter, UINT_PTR unused)
STUB(ExceptionOSHandlerLeave, UINT_PTR unused)
STUB(COMClassicVTableCreated, ClassID cls, REFGUID iid, void *vtbl, ULONG slots)
STUB(COMClassicVTableDestroyed, ClassID cls, REFGUID iid, void *vtbl)
STUB0(ExceptionCLRCatcherFound)
STUB0(ExceptionCLRCatcherExecute)
static HRESULT cb_ThreadNameChanged(CB_SELF, ThreadID id, ULONG cch, WCHAR name[])
{
    (void)self;
    ct_threads_named(id, cch, name);
    return S_OK;
}

static HRESULT cb_GarbageCollectionStarted(CB_SELF, int gens, BOOL collected[], int reason)
{
    (void)self, (void)gens, (void)collected, (void)reason;
    ct_activity_gc(); /* addresses kept by the threads' Activity reads are stale */
    return S_OK;
}
STUB(SurvivingReferences, ULONG n, ObjectID start[], ULONG len[])
STUB0(GarbageCollectionFinished)
STUB(FinalizeableObjectQueued, DWORD flags, ObjectID obj)
STUB(RootReferences2, ULONG n, ObjectID refs[], int kinds[], int flags[], UINT_PTR ids[])
STUB(HandleCreated, GCHandleID h, ObjectID obj)
STUB(HandleDestroyed, GCHandleID h)
static HRESULT cb_InitializeForAttach(CB_SELF, IUnknown *info, void *data, UINT cb)
{
    (void)self;
    return ct_attach_initialize(info, data, cb);
}
STUB0(ProfilerAttachComplete)
STUB0(ProfilerDetachSucceeded)
/* A ReJIT's callbacks run on a managed thread of the program (the first to
 * call the method after the request): where the Activity reads of the
 * probes learn what they need (attached, no JIT callback comes). */
static HRESULT cb_ReJITCompilationStarted(CB_SELF, FunctionID id, ReJITID rejit, BOOL safe)
{
    (void)self, (void)id, (void)rejit, (void)safe;
    ct_activity_wanted();
    return S_OK;
}
static HRESULT cb_GetReJITParameters(CB_SELF, ModuleID mod, mdMethodDef tok,
                                     ICorProfilerFunctionControl *ctl)
{
    (void)self;
    ct_activity_wanted();
    if (ctl)
        ct_il_rejit_parameters(mod, tok, ctl);
    return S_OK;
}
STUB(ReJITCompilationFinished, FunctionID id, ReJITID rejit, HRESULT hr, BOOL safe)
static HRESULT cb_ReJITError(CB_SELF, ModuleID mod, mdMethodDef tok, FunctionID id, HRESULT hr)
{
    (void)self;
    (void)id;
    (void)hr;
    ct_il_rejit_error(mod, tok);
    return S_OK;
}
STUB(MovedReferences2, ULONG n, ObjectID oldStart[], ObjectID newStart[], SIZE_T len[])
STUB(SurvivingReferences2, ULONG n, ObjectID start[], SIZE_T len[])

#define SLOT(name) .name = cb_##name
static const ICorProfilerCallback3Vtbl k_callback_vtbl = {
    SLOT(QueryInterface), SLOT(AddRef), SLOT(Release),
    SLOT(Initialize), SLOT(Shutdown),
    SLOT(AppDomainCreationStarted), SLOT(AppDomainCreationFinished),
    SLOT(AppDomainShutdownStarted), SLOT(AppDomainShutdownFinished),
    SLOT(AssemblyLoadStarted), SLOT(AssemblyLoadFinished),
    SLOT(AssemblyUnloadStarted), SLOT(AssemblyUnloadFinished),
    SLOT(ModuleLoadStarted), SLOT(ModuleLoadFinished),
    SLOT(ModuleUnloadStarted), SLOT(ModuleUnloadFinished), SLOT(ModuleAttachedToAssembly),
    SLOT(ClassLoadStarted), SLOT(ClassLoadFinished),
    SLOT(ClassUnloadStarted), SLOT(ClassUnloadFinished),
    SLOT(FunctionUnloadStarted), SLOT(JITCompilationStarted), SLOT(JITCompilationFinished),
    SLOT(JITCachedFunctionSearchStarted), SLOT(JITCachedFunctionSearchFinished),
    SLOT(JITFunctionPitched), SLOT(JITInlining),
    SLOT(ThreadCreated), SLOT(ThreadDestroyed), SLOT(ThreadAssignedToOSThread),
    SLOT(RemotingClientInvocationStarted), SLOT(RemotingClientSendingMessage),
    SLOT(RemotingClientReceivingReply), SLOT(RemotingClientInvocationFinished),
    SLOT(RemotingServerReceivingMessage), SLOT(RemotingServerInvocationStarted),
    SLOT(RemotingServerInvocationReturned), SLOT(RemotingServerSendingReply),
    SLOT(UnmanagedToManagedTransition), SLOT(ManagedToUnmanagedTransition),
    SLOT(RuntimeSuspendStarted), SLOT(RuntimeSuspendFinished), SLOT(RuntimeSuspendAborted),
    SLOT(RuntimeResumeStarted), SLOT(RuntimeResumeFinished),
    SLOT(RuntimeThreadSuspended), SLOT(RuntimeThreadResumed),
    SLOT(MovedReferences), SLOT(ObjectAllocated), SLOT(ObjectsAllocatedByClass),
    SLOT(ObjectReferences), SLOT(RootReferences),
    SLOT(ExceptionThrown), SLOT(ExceptionSearchFunctionEnter), SLOT(ExceptionSearchFunctionLeave),
    SLOT(ExceptionSearchFilterEnter), SLOT(ExceptionSearchFilterLeave),
    SLOT(ExceptionSearchCatcherFound), SLOT(ExceptionOSHandlerEnter), SLOT(ExceptionOSHandlerLeave),
    SLOT(ExceptionUnwindFunctionEnter), SLOT(ExceptionUnwindFunctionLeave),
    SLOT(ExceptionUnwindFinallyEnter), SLOT(ExceptionUnwindFinallyLeave),
    SLOT(ExceptionCatcherEnter), SLOT(ExceptionCatcherLeave),
    SLOT(COMClassicVTableCreated), SLOT(COMClassicVTableDestroyed),
    SLOT(ExceptionCLRCatcherFound), SLOT(ExceptionCLRCatcherExecute),
    SLOT(ThreadNameChanged), SLOT(GarbageCollectionStarted), SLOT(SurvivingReferences),
    SLOT(GarbageCollectionFinished), SLOT(FinalizeableObjectQueued), SLOT(RootReferences2),
    SLOT(HandleCreated), SLOT(HandleDestroyed),
    SLOT(InitializeForAttach), SLOT(ProfilerAttachComplete), SLOT(ProfilerDetachSucceeded),
    SLOT(ReJITCompilationStarted), SLOT(GetReJITParameters), SLOT(ReJITCompilationFinished),
    SLOT(ReJITError), SLOT(MovedReferences2), SLOT(SurvivingReferences2),
};
#undef SLOT

/* A designated initializer that forgets a slot leaves a NULL the runtime
 * would call; check the whole table once before handing it out. */
static int callback_vtbl_complete(void)
{
    void *slots[sizeof k_callback_vtbl / sizeof(void *)];
    memcpy(slots, &k_callback_vtbl, sizeof slots);
    for (size_t i = 0; i < sizeof slots / sizeof *slots; i++)
        if (!slots[i])
            return 0;
    return 1;
}

static ICorProfilerCallback3 g_callback = {&k_callback_vtbl};

/* ------------------------------------------------------- class factory */

static HRESULT cf_QueryInterface(IClassFactory *self, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    if (guid_eq(riid, &IID_IUnknown) || guid_eq(riid, &IID_IClassFactory)) {
        *ppv = self;
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG cf_AddRef(IClassFactory *self)
{
    (void)self;
    return 2; /* static object */
}

static ULONG cf_Release(IClassFactory *self)
{
    (void)self;
    return 1;
}

static HRESULT cf_CreateInstance(IClassFactory *self, IUnknown *outer, REFIID riid, void **ppv)
{
    (void)self;
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    return g_callback.lpVtbl->QueryInterface(&g_callback, riid, ppv);
}

static HRESULT cf_LockServer(IClassFactory *self, BOOL lock)
{
    (void)self;
    (void)lock;
    return S_OK;
}

static const IClassFactoryVtbl k_factory_vtbl = {
    cf_QueryInterface, cf_AddRef, cf_Release, cf_CreateInstance, cf_LockServer,
};
static IClassFactory g_factory = {&k_factory_vtbl};

/* The one exported symbol. */
__attribute__((visibility("default"))) HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid,
                                                                  void **ppv);

HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!rclsid || !guid_eq(rclsid, &CLSID_clrtrace))
        return CLASS_E_CLASSNOTAVAILABLE;
    if (!callback_vtbl_complete()) {
        fprintf(stderr, "clrtrace: internal error: incomplete callback table\n");
        return E_FAIL;
    }
    return g_factory.lpVtbl->QueryInterface(&g_factory, riid, ppv);
}
