/* --inject's IL (model/inject_bind.h says what a fault is): the code that runs
 * right after the enter probe of a method with faults bound,
 *
 *   ldc.i8 f; conv.i; ldc.i8 ct_probe_inject; conv.i; calli int32 (native int)
 *   dup; ldc.i4 1; bne.un NEXT1; pop; ACTION 1
 *   NEXT1: dup; ldc.i4 2; bne.un NEXT2; pop; ACTION 2 ...
 *   NEXTn: pop                          (then the body, as it was)
 *
 * where an ACTION is
 *   throw:  ldstr MESSAGE; newobj TYPE::.ctor(string); throw
 *           (a method returning Task, Task<T>, ValueTask or ValueTask<T>:
 *           the exception in a faulted task, as an async method's is:
 *           Task.FromException[<T>](e), ValueTask.FromException[<T>](e),
 *           returned)
 *   return: the value (a Task<T>'s: Task.FromResult<T>(v); a
 *           ValueTask<T>'s: new ValueTask<T>(v); a Task's:
 *           Task.CompletedTask; a ValueTask's: default), returned
 *   delay:  ldc.i4 MS; call Thread.Sleep(int32); br to the body
 * and "returned" is the code before the method's rets (its leave probe),
 * then ret. Every token is checked before it is used: an exception type
 * that is not an Exception with a public constructor (string), a value the
 * return type cannot hold, make no code for that fault (told once on the
 * notes; its calls run as usual) -- a bad token would fail the whole
 * method's compilation. Internal to agent/engines/il. */
#ifndef CLRTRACE_IL_INJECT_IL_H
#define CLRTRACE_IL_INJECT_IL_H

#include <stdint.h>

#include "clril/clril.h"
#include "agent/model/inject_bind.h"
#include "agent/model/modules.h"
#include "agent/model/registry.h"

/* Most instructions of the faults' code (CT_INJECT_MAX actions), and the
 * stack it needs (a decimal's five values, then the leave probe's three
 * above the value it stores). */
#define CT_IL_INJECT_MAX (8 + 24 * 8)
#define CT_IL_INJECT_STACK 8

/* What the faults' code is made from. */
typedef struct ct_il_inject_in {
    const ct_mapped_fn *f;      /* f->inject: its faults */
    const ct_module *m;
    ModuleID mod;
    mdToken tok;                /* the method */
    mdToken decide_sig;         /* StandAloneSig int32 (native int) */
    const clril_insn *leave;    /* the code before a ret (the value on the stack) */
    uint32_t nleave;
    int64_t ret_local;          /* a local of the return type (default of a
                                   struct), or -1 */
} ct_il_inject_in;

/* The faults' code into code[0..CT_IL_INJECT_MAX): its length, 0 when no
 * fault can be made (the method is rewritten without any). Branches to
 * the body name index n (the code's length: the instruction it is put
 * before). rets[0..*nrets): the indexes of the NOPs to become rets once
 * the code is in the body (clril_insert takes no ret). */
uint32_t ct_il_inject_code(const ct_il_inject_in *in, clril_insn *code, uint32_t *rets,
                           uint32_t *nrets);

#endif
