/* Where a function's arguments are, learned from the runtime and then read
 * directly (docs/tracer.md, "Argument locations").
 *
 * GetFunctionEnter3Info and GetFunctionLeave3Info cost far more than the rest
 * of a hook (they walk the method's signature on every call). For the
 * slow-path hooks the runtime saves the argument registers in its own frame
 * (ProfileEnterNaked) before calling ours, at addresses that are a fixed
 * distance from the eltInfo handle: the ranges the two calls return for a
 * register argument of a scalar type (a primitive, an enum, a reference, a
 * pointer, a byref) point there. So for each function the first
 * CT_ARGMAP_LEARN_CALLS calls ask the runtime and note each range's distance
 * from eltInfo, checking that the bytes there were already the argument's
 * before the runtime was asked (a copy the runtime makes during the call, of
 * `this` or of a struct, does not count). When every call agreed, later calls
 * read the arguments at those distances without asking.
 *
 * `this` is copied by the runtime, so it is located through the first
 * integer argument register, learned (and cross-checked) from plain static
 * functions; a float or double return value likewise through the first
 * floating-point argument register. Anything else — struct arguments or
 * returns, arguments on the stack, generic code with hidden arguments — keeps
 * asking the runtime. */
#ifndef CLRTRACE_ARGMAP_H
#define CLRTRACE_ARGMAP_H

#include <stdint.h>

#include "agent/runtime/corprof_decls.h"
#include "agent/model/registry.h"

/* Most arguments read directly (more: always ask). */
#define CT_ARGMAP_MAX_DIRECT 64
/* Calls per function that ask the runtime and must all agree. */
#define CT_ARGMAP_LEARN_CALLS 8
/* Bytes of the runtime's frame, from eltInfo up, copied before asking (the
 * saved registers lie inside; stack arguments and the caller's frame do
 * not). Distances below CT_ARGMAP_MIN_OFFSET (the eltInfo record the runtime
 * fills in during the call) are never used. */
#define CT_ARGMAP_WINDOW 512
#define CT_ARGMAP_MIN_OFFSET 16
/* Calls a function may wait for the register slot of `this` to be learned
 * before it gives up and always asks. */
#define CT_ARGMAP_MAX_TRIES 64
/* The runtime saves xmm0-xmm7, then rdi, rsi, rdx, rcx, r8, r9, in 8-byte
 * slots (PROFILE_PLATFORM_SPECIFIC_DATA, amd64 Unix): only distances in
 * that band around the learned rdi slot are used. */
#define CT_ARGMAP_FLOAT_SLOTS 8
#define CT_ARGMAP_INT_SLOTS 6
/* Functions that agree on a global register slot before it is trusted. */
#define CT_ARGMAP_SLOT_VOTES 2

/* The layout above is amd64's (System V): there the hooks learn argument
 * locations and read them directly. On any other architecture argmap learns
 * nothing and every call asks the runtime (GetFunctionEnter3Info /
 * GetFunctionLeave3Info): slower, never wrong. */
#if defined(__x86_64__)
#define CT_ARGMAP_LAYOUT 1
#else
#define CT_ARGMAP_LAYOUT 0
#endif

typedef struct ct_argmap_snapshot {
    uintptr_t elt;
    size_t len;                     /* bytes copied (the window, or less at the stack's end) */
    uint8_t bytes[CT_ARGMAP_WINDOW];
} ct_argmap_snapshot;

/* Copies the runtime's frame before asking it (limit: the stack's end, 0
 * when unknown). */
void ct_argmap_snap(ct_argmap_snapshot *s, COR_PRF_ELT_INFO elt, uintptr_t stack_hi);

/* Enter: 1 and the ranges of f's arguments when they can be read without
 * asking; 0 to ask (and then call ct_argmap_learn_enter). */
int ct_argmap_enter(const ct_mapped_fn *f, COR_PRF_ELT_INFO elt,
                    COR_PRF_FUNCTION_ARGUMENT_RANGE *ranges);
void ct_argmap_learn_enter(ct_mapped_fn *f, const ct_argmap_snapshot *s,
                           const COR_PRF_FUNCTION_ARGUMENT_INFO *info);

/* Leave: the same for the return value. */
int ct_argmap_leave(const ct_mapped_fn *f, COR_PRF_ELT_INFO elt,
                    COR_PRF_FUNCTION_ARGUMENT_RANGE *range);
void ct_argmap_learn_leave(ct_mapped_fn *f, const ct_argmap_snapshot *s,
                           const COR_PRF_FUNCTION_ARGUMENT_RANGE *range);

/* 1 while f still asks the runtime and learns (the caller snapshots first). */
int ct_argmap_learning_enter(const ct_mapped_fn *f);
int ct_argmap_learning_leave(const ct_mapped_fn *f);

#endif
