/* The IL-probe engine (--engine=il): instead of the runtime's enter/leave
 * hooks, the IL of each chosen method is rewritten, when the JIT is about to
 * compile it, to call the tracer itself: at its entry, before each ret and
 * before a tail call. Every other method keeps its ReadyToRun or tiered
 * code, and the runtime runs no hook for it.
 *
 * A probe is an unmanaged `calli` whose signature carries
 * modopt(CallConvSuppressGCTransition): the JIT emits a plain native call,
 * the thread stays in cooperative mode (no GC can run in the probe). The
 * probes (probes.h: with values, or without) are keyed by
 * the function's record (generic code: its definition's); with values
 * they are handed the arguments' addresses at the entry and the return
 * value's at each ret.
 *
 * docs/tracer.md, "The IL-probe engine", says what it cannot see. */
#ifndef CLRTRACE_ILPROBE_H
#define CLRTRACE_ILPROBE_H

#include <stddef.h>

#include "agent/runtime/corprof_decls.h"

/* Largest IL body rewritten (code and sections); a larger one is left
 * as it is. */
#define CT_IL_MAX_BODY (1u << 20)

/* JITCompilationStarted: rewrites the body of function id when it is
 * traced and not rewritten yet. Never fails the compilation: a body that
 * cannot be rewritten runs as it is. */
void ct_il_jit_started(FunctionID id);

/* JITCachedFunctionSearchStarted: 0 when id is traced (its ReadyToRun code
 * is refused, so the JIT compiles it from the IL the engine rewrites), or
 * when its ReadyToRun code has a traced method inlined (compiled by the
 * JIT, it calls the traced method: JITInlining refuses to inline it); 1
 * otherwise. */
int ct_il_use_precompiled(FunctionID id);

/* ModuleLoadFinished: notes the methods of the module whose ReadyToRun
 * code inlines a traced method of it (EnumNgenModuleMethodsInliningThisMethod,
 * ICorProfilerInfo6), before any of its code runs. */
void ct_il_module_loaded(ModuleID mod);

/* JITInlining: 0 when callee is traced (a rewritten method is never inlined:
 * its probes would be lost). */
int ct_il_may_inline(FunctionID callee);

/* Attach (com/attach_control.c): the methods chosen in a running process. */
typedef struct ct_il_methods {
    ModuleID *mods;
    mdMethodDef *toks;
    size_t n, cap;
    unsigned long skipped; /* chosen by the filter, generic code that cannot be
                              rewritten after attach (CoreLib's) */
    int failed;            /* out of memory: the list is short */
} ct_il_methods;

/* Every loaded module's methods that the filter traces and that can be
 * rewritten, into s (ct_il_methods_free): 0, or -1 (s may hold some). From
 * the control thread (not a managed thread). */
int ct_il_attach_methods(ct_il_methods *s);
void ct_il_methods_free(ct_il_methods *s);
/* The same for one module (loaded during a session), added to s; and s
 * grown by more's methods (0, or -1 out of memory). */
void ct_il_attach_module(ct_il_methods *s, ModuleID mod);
int ct_il_methods_append(ct_il_methods *s, const ct_il_methods *more);

/* ReJIT of s's methods with the probes (ICorProfilerInfo10::
 * RequestReJITWithInliners): the runtime asks GetReJITParameters for each
 * (ct_il_rejit_parameters). Its HRESULT. */
HRESULT ct_il_attach_rejit(const ct_il_methods *s);

/* Their original code back (ICorProfilerInfo4::RequestRevert): new calls run
 * it; calls already inside the rewritten code finish there. */
void ct_il_attach_revert(const ct_il_methods *s);

/* GetReJITParameters: the probes' body for (mod, tok) through ctl; a body
 * that cannot be rewritten runs as it was, counted. */
void ct_il_rejit_parameters(ModuleID mod, mdMethodDef tok, ICorProfilerFunctionControl *ctl);

/* ReJITError for (mod, tok): counted as left as it was. */
void ct_il_rejit_error(ModuleID mod, mdMethodDef tok);

/* At the end of a session, before the revert: what the user should know
 * about the chosen methods, as lines ending in '\n' into out (at most cap
 * bytes, NUL-terminated; none: ""): the methods the runtime did not let the
 * engine rewrite, and every method never called since the attach, by name
 * (not called, or called only from code compiled before the attach that
 * ReJIT cannot recompile: a dynamic method that inlined it). Forgets the
 * session's methods. */
void ct_il_attach_report(char *out, size_t cap);

/* Functions the JIT compiled (an atomic load: a signal handler may ask). */
unsigned long ct_il_compiled(void);

#endif
