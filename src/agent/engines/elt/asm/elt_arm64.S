/*
 * Fast-path ELT hook stubs for aarch64 (AAPCS64, Linux). GNU as syntax.
 * Contract and sources: docs/asm.md; C declarations: elt_stubs.h.
 *
 * The JIT calls these directly from managed code (they are installed as the
 * CORINFO_HELP_PROF_FCN_* helpers by SetEnterLeaveFunctionHooks3), with `bl`
 * or, when the helper is out of range, through a register (`blr x12`):
 *
 *   all three  client id in x10 (REG_PROFILER_ENTER/LEAVE_ARG_FUNC_ID),
 *              caller's SP in x11; return address in lr (x30).
 *
 * On enter x0-x7 / q0-q7 hold the managed method's arguments and x8 the
 * return-buffer address; on leave and tailcall x0/x1 and q0-q3 may hold the
 * return value (an HFA/HVA of up to four 128-bit vectors). The JIT keeps the
 * same register set alive across all three hooks (the PROFILER_ENTER_TRASH
 * mask = callee trash minus x0-x7, x8, fp and v0-v7; LEAVE and TAILCALL are
 * the same mask), so each stub keeps:
 *
 *   x0-x8, q0-q7 (all 128 bits; AAPCS64 only guarantees the low 64 bits of
 *   v8-v15 to a caller, and the C callback may use the rest), and fp/lr,
 *
 * plus x19-x28 / d8-d15, which the C callback keeps by the ABI. x9-x17 are
 * trashed (x16/x17 may also be trashed by a linker veneer on the way here).
 *
 * Frame (224 bytes, sp stays 16-byte aligned as AAPCS64 and the hardware
 * require; managed code always calls with an aligned sp):
 *   0   fp, lr   (frame record: fp points here, so frame-pointer walkers
 *                 and the CFI below both work)
 *   16  x0 x1    32 x2 x3    48 x4 x5    64 x6 x7    80 x8, pad
 *   96  q0 q1    128 q2 q3   160 q4 q5   192 q6 q7
 */

#if !defined(__aarch64__)
#error "elt_arm64.S is for aarch64 only"
#endif

        .text

.macro CT_STUB name, callback
        .globl  \name
        .hidden \name
        .type   \name, %function
        .p2align 4
\name:
        .cfi_startproc
        hint    #34                     /* bti c: landing pad for blr; NOP before v8.5 */
        stp     x29, x30, [sp, #-224]!
        .cfi_def_cfa_offset 224
        .cfi_offset x29, -224
        .cfi_offset x30, -216
        mov     x29, sp
        .cfi_def_cfa_register x29
        stp     x0, x1, [sp, #16]
        stp     x2, x3, [sp, #32]
        stp     x4, x5, [sp, #48]
        stp     x6, x7, [sp, #64]
        str     x8, [sp, #80]
        stp     q0, q1, [sp, #96]
        stp     q2, q3, [sp, #128]
        stp     q4, q5, [sp, #160]
        stp     q6, q7, [sp, #192]

        mov     x0, x10                 /* the JIT passes the client id in x10 */
        bl      \callback

        ldp     q0, q1, [sp, #96]
        ldp     q2, q3, [sp, #128]
        ldp     q4, q5, [sp, #160]
        ldp     q6, q7, [sp, #192]
        ldp     x0, x1, [sp, #16]
        ldp     x2, x3, [sp, #32]
        ldp     x4, x5, [sp, #48]
        ldp     x6, x7, [sp, #64]
        ldr     x8, [sp, #80]
        ldp     x29, x30, [sp], #224
        .cfi_def_cfa sp, 0
        .cfi_restore x29
        .cfi_restore x30
        ret
        .cfi_endproc
        .size   \name, . - \name
.endm

CT_STUB ct_fast_enter_stub, ct_fast_enter
CT_STUB ct_fast_leave_stub, ct_fast_leave
CT_STUB ct_fast_tailcall_stub, ct_fast_tailcall

/* With -mbranch-protection=bti the compiler marks its objects BTI-compatible;
 * say the same for this one (every entry starts with bti c) so the linker
 * keeps the marking for the whole shared object. lr is never signed here, so
 * the PAC bit is not claimed. */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT == 1
        .section .note.gnu.property, "a"
        .p2align 3
        .long   4                       /* name size ("GNU\0") */
        .long   16                      /* descriptor size */
        .long   5                       /* NT_GNU_PROPERTY_TYPE_0 */
        .asciz  "GNU"
        .long   0xc0000000              /* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
        .long   4
        .long   1                       /* GNU_PROPERTY_AARCH64_FEATURE_1_BTI */
        .p2align 3
#endif

        .section .note.GNU-stack, "", %progbits
