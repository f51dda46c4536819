/*
 * Fast-path enter/leave/tailcall hook stubs (docs/asm.md).
 *
 * In the `--no-args` mode the profiler registers these three stubs with
 * ICorProfilerInfo3::SetEnterLeaveFunctionHooks3 (not the WithInfo variant).
 * The runtime then installs them directly as the JIT helpers
 * CORINFO_HELP_PROF_FCN_ENTER / _LEAVE / _TAILCALL, and JIT-compiled code calls
 * them with a private register convention, not the C one:
 *
 *   amd64 (System V)  enter:          client id in r14 (caller SP in r15)
 *                     leave/tailcall: client id in rdi (caller SP in rsi)
 *   arm64             all three:      client id in x10 (caller SP in x11)
 *
 * and expects more registers to survive than a C function preserves:
 *
 *   amd64 enter:          rdi rsi rdx rcx r8 r9 (argument registers) and
 *                         xmm0-xmm7 (all 128 bits); the stub also keeps rax
 *   amd64 leave/tailcall: rax rdx xmm0 xmm1 (the return registers)
 *   arm64 (all three):    x0-x8 and q0-q7 (all 128 bits), fp
 *
 * plus everything callee-saved in the platform ABI. Never call the stubs from C:
 * their addresses are only for SetEnterLeaveFunctionHooks3. Each stub saves
 * what it must, aligns the stack to 16 bytes, calls the matching C callback
 * below with the client id as its only argument, restores, and returns.
 *
 * The C callbacks are ordinary functions that the user of the stubs (the
 * profiler; the unit test in tests/asm) must define: the references are strong
 * on purpose, so a missing callback is a link error and not a call to address 0
 * from inside managed code. A callback runs on the managed thread, in the
 * middle of a managed method's prolog or epilog: it must not throw, must not
 * longjmp out, and must not call back into the runtime in ways that can
 * trigger a GC (the JIT does not report GC refs across these calls).
 */
#ifndef CLRTRACE_ASM_ELT_STUBS_H
#define CLRTRACE_ASM_ELT_STUBS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stubs. Declared as functions taking nothing only so their addresses can
 * be taken; their real calling convention is described above. Pass them to
 * SetEnterLeaveFunctionHooks3 as FunctionEnter3* / FunctionLeave3* /
 * FunctionTailcall3*. Only built for x86_64 and aarch64 (src/agent/engines/elt/asm/CMakeLists.txt). */
void ct_fast_enter_stub(void);
void ct_fast_leave_stub(void);
void ct_fast_tailcall_stub(void);

/* The callbacks (defined by the user of the stubs). client_id is the
 * FunctionIDOrClientID the JIT baked into the call: the FunctionID, or the
 * value the profiler's FunctionIDMapper(2) returned for that function.
 * Called with a 16-byte aligned stack; free to clobber any register the
 * platform C ABI lets a callee clobber, including all SIMD registers. */
void ct_fast_enter(uintptr_t client_id);
void ct_fast_leave(uintptr_t client_id);
void ct_fast_tailcall(uintptr_t client_id);

#ifdef __cplusplus
}
#endif

#endif /* CLRTRACE_ASM_ELT_STUBS_H */
