/*
 * Fast-path ELT hook stubs for x86_64, System V (Linux). GNU as, AT&T syntax.
 * Contract and sources: docs/asm.md; C declarations: elt_stubs.h.
 *
 * The JIT calls these directly from managed code (they are installed as the
 * CORINFO_HELP_PROF_FCN_* helpers by SetEnterLeaveFunctionHooks3):
 *
 *   enter     client id in r14, caller's SP in r15; the managed method's
 *             arguments are live in rdi rsi rdx rcx r8 r9 and xmm0-xmm7.
 *             The JIT assumes only rax r10 r11 xmm8-xmm15 (and the upper
 *             halves / AVX-512 state) are trashed (RBM_PROFILER_ENTER_TRASH).
 *   leave,    client id in rdi, caller's SP in rsi; the return value is live
 *   tailcall  in rax rdx xmm0 xmm1 (RBM_PROFILER_LEAVE_TRASH /
 *             RBM_PROFILER_TAILCALL_TRASH keep exactly those four).
 *
 * What each stub keeps, beyond the callee-saved registers that the C callback
 * keeps anyway (rbx rbp r12-r15, so r14/r15 survive too):
 *
 *   ct_fast_enter_stub     rdi rsi rdx rcx r8 r9 rax, xmm0-xmm7 (128 bits each)
 *   ct_fast_leave_stub     rax rdx, xmm0 xmm1 (128 bits each)
 *   ct_fast_tailcall_stub  rax rdx, xmm0 xmm1 (128 bits each)
 *
 * rax is not required on enter, but the runtime's own ProfileEnterNaked keeps
 * it and it costs two moves. r10/r11 are not kept: the JIT treats them as
 * trashed (r11 even holds the helper address for `call r11`).
 *
 * Each stub builds an rbp frame (so unwinders and gdb walk through it with the
 * CFI below), realigns rsp to 16 bytes whatever it was on entry, saves,
 * calls the C callback with the client id in rdi, restores, and returns.
 * Flags are not preserved (the JIT keeps nothing in them across a call).
 */

#if !defined(__x86_64__)
#error "elt_amd64.S is for x86_64 only"
#endif

/* endbr64 is a NOP on CPUs without CET; it makes the stubs valid targets of
 * the JIT's `call r11` under indirect-branch tracking. */
#define CT_LANDING_PAD endbr64

        .text

/* Global, hidden (the profiler passes their addresses; nothing links to them
 * from outside the shared object), typed and sized for tools. */
.macro CT_FUNC_BEGIN name
        .globl  \name
        .hidden \name
        .type   \name, @function
        .p2align 4
\name:
        .cfi_startproc
        CT_LANDING_PAD
.endm

.macro CT_FUNC_END name
        .cfi_endproc
        .size   \name, . - \name
.endm

/* push rbp; rbp = frame; rsp = 16-aligned, `size` bytes of save area.
 * `size` must be a multiple of 16 so rsp stays aligned for the call. */
.macro CT_PROLOGUE size
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbp, 0
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        andq    $-16, %rsp
        subq    $\size, %rsp
.endm

.macro CT_EPILOGUE
        movq    %rbp, %rsp
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        .cfi_restore %rbp
        ret
.endm

/* ------------------------------------------------------------------------
 * Enter. Save area (192 bytes, rsp 16-aligned):
 *   0..127   xmm0-xmm7
 *   128..183 rdi rsi rdx rcx r8 r9 rax
 *   184..191 padding
 */
CT_FUNC_BEGIN ct_fast_enter_stub
        CT_PROLOGUE 192
        movaps  %xmm0, 0(%rsp)
        movaps  %xmm1, 16(%rsp)
        movaps  %xmm2, 32(%rsp)
        movaps  %xmm3, 48(%rsp)
        movaps  %xmm4, 64(%rsp)
        movaps  %xmm5, 80(%rsp)
        movaps  %xmm6, 96(%rsp)
        movaps  %xmm7, 112(%rsp)
        movq    %rdi, 128(%rsp)
        movq    %rsi, 136(%rsp)
        movq    %rdx, 144(%rsp)
        movq    %rcx, 152(%rsp)
        movq    %r8, 160(%rsp)
        movq    %r9, 168(%rsp)
        movq    %rax, 176(%rsp)

        movq    %r14, %rdi              /* the JIT passes the client id in r14 */
        call    ct_fast_enter@PLT

        movaps  0(%rsp), %xmm0
        movaps  16(%rsp), %xmm1
        movaps  32(%rsp), %xmm2
        movaps  48(%rsp), %xmm3
        movaps  64(%rsp), %xmm4
        movaps  80(%rsp), %xmm5
        movaps  96(%rsp), %xmm6
        movaps  112(%rsp), %xmm7
        movq    128(%rsp), %rdi
        movq    136(%rsp), %rsi
        movq    144(%rsp), %rdx
        movq    152(%rsp), %rcx
        movq    160(%rsp), %r8
        movq    168(%rsp), %r9
        movq    176(%rsp), %rax
        CT_EPILOGUE
CT_FUNC_END ct_fast_enter_stub

/* ------------------------------------------------------------------------
 * Leave and tailcall: the same body around a different callback.
 * Save area (48 bytes): 0 xmm0, 16 xmm1, 32 rax, 40 rdx.
 * The client id is already in rdi, where the C callback wants it.
 */
.macro CT_RETURN_STUB name, callback
CT_FUNC_BEGIN \name
        CT_PROLOGUE 48
        movaps  %xmm0, 0(%rsp)
        movaps  %xmm1, 16(%rsp)
        movq    %rax, 32(%rsp)
        movq    %rdx, 40(%rsp)

        call    \callback\()@PLT

        movaps  0(%rsp), %xmm0
        movaps  16(%rsp), %xmm1
        movq    32(%rsp), %rax
        movq    40(%rsp), %rdx
        CT_EPILOGUE
CT_FUNC_END \name
.endm

CT_RETURN_STUB ct_fast_leave_stub, ct_fast_leave
CT_RETURN_STUB ct_fast_tailcall_stub, ct_fast_tailcall

/* Under -fcf-protection the compiler marks its objects IBT/SHSTK-compatible;
 * say the same for this one (landing pads above; plain call/ret only) so the
 * linker does not drop the marking for the whole shared object. */
#if defined(__CET__)
        .section .note.gnu.property, "a"
        .p2align 3
        .long   4                       /* name size ("GNU\0") */
        .long   16                      /* descriptor size */
        .long   5                       /* NT_GNU_PROPERTY_TYPE_0 */
        .asciz  "GNU"
        .long   0xc0000002              /* GNU_PROPERTY_X86_FEATURE_1_AND */
        .long   4
        .long   __CET__                 /* bit 0 IBT, bit 1 SHSTK */
        .p2align 3
#endif

        .section .note.GNU-stack, "", @progbits
