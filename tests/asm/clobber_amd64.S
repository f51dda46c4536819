/*
 * x86_64 helpers for tests/asm/test_stubs.c (System V, AT&T syntax).
 *
 *   void ct_test_call(void (*stub)(void), const struct ct_regs *in,
 *                     struct ct_regs *out, uint64_t misalign);
 *       Loads rax rcx rdx rbx rbp rsi rdi r8-r15 and xmm0-xmm15 (all 128 bits)
 *       from *in, calls stub the way JIT-compiled code calls a profiler
 *       helper, then stores every one of those registers to *out, and
 *       out->gpr[4] (the rsp slot) = rsp after the call - rsp before it.
 *       misalign = 0 calls with rsp % 16 == 0 (the ABI's alignment at a call);
 *       misalign = 8 calls with rsp % 16 == 8, to show the stubs realign.
 *       The callee-saved registers of the C caller are saved and restored.
 *       ct_test_call_ret marks the return address of that call (for the
 *       backtrace check). No CFI: rbp holds a test value across the call.
 *
 *   void ct_test_clobber(void);
 *       Writes garbage into every register a C callee may clobber:
 *       rax rcx rdx rsi rdi r8-r11 and xmm0-xmm15.
 *
 *   void ct_test_bad_leave_stub(void);
 *       A deliberately wrong leave stub (keeps no registers, only realigns and
 *       calls ct_fast_leave): the harness must catch it.
 *
 * struct ct_regs: uint64_t gpr[32] (index = hardware register number:
 * 0 rax 1 rcx 2 rdx 3 rbx 4 rsp 5 rbp 6 rsi 7 rdi 8-15 r8-r15), then
 * uint64_t vec[32][2] at offset 256 (xmmN at 256 + 16*N).
 */

#define G(n) (8 * (n))
#define V(n) (256 + 16 * (n))

        .text

        .globl  ct_test_call
        .type   ct_test_call, @function
        .globl  ct_test_call_ret
        .p2align 4
ct_test_call:
        pushq   %rbp
        movq    %rsp, %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15                    /* rbp - 40 */

        /* Block at the call-time rsp: [0] out, [8] stub, [16] our rbp,
         * [24] rsp before the call. */
        andq    $-16, %rsp
        subq    $32, %rsp
        subq    %rcx, %rsp
        movq    %rdx, 0(%rsp)
        movq    %rdi, 8(%rsp)
        movq    %rbp, 16(%rsp)
        movq    %rsp, 24(%rsp)

        movq    %rsi, %rax
        movups  V(0)(%rax), %xmm0
        movups  V(1)(%rax), %xmm1
        movups  V(2)(%rax), %xmm2
        movups  V(3)(%rax), %xmm3
        movups  V(4)(%rax), %xmm4
        movups  V(5)(%rax), %xmm5
        movups  V(6)(%rax), %xmm6
        movups  V(7)(%rax), %xmm7
        movups  V(8)(%rax), %xmm8
        movups  V(9)(%rax), %xmm9
        movups  V(10)(%rax), %xmm10
        movups  V(11)(%rax), %xmm11
        movups  V(12)(%rax), %xmm12
        movups  V(13)(%rax), %xmm13
        movups  V(14)(%rax), %xmm14
        movups  V(15)(%rax), %xmm15
        movq    G(1)(%rax), %rcx
        movq    G(2)(%rax), %rdx
        movq    G(3)(%rax), %rbx
        movq    G(5)(%rax), %rbp
        movq    G(6)(%rax), %rsi
        movq    G(7)(%rax), %rdi
        movq    G(8)(%rax), %r8
        movq    G(9)(%rax), %r9
        movq    G(10)(%rax), %r10
        movq    G(11)(%rax), %r11
        movq    G(12)(%rax), %r12
        movq    G(13)(%rax), %r13
        movq    G(14)(%rax), %r14
        movq    G(15)(%rax), %r15
        movq    G(0)(%rax), %rax

        call    *8(%rsp)
ct_test_call_ret:
        xchgq   %rax, 0(%rsp)           /* rax = out; the returned rax on the stack */
        movq    %rcx, G(1)(%rax)
        movq    %rdx, G(2)(%rax)
        movq    %rbx, G(3)(%rax)
        movq    %rbp, G(5)(%rax)
        movq    %rsi, G(6)(%rax)
        movq    %rdi, G(7)(%rax)
        movq    %r8, G(8)(%rax)
        movq    %r9, G(9)(%rax)
        movq    %r10, G(10)(%rax)
        movq    %r11, G(11)(%rax)
        movq    %r12, G(12)(%rax)
        movq    %r13, G(13)(%rax)
        movq    %r14, G(14)(%rax)
        movq    %r15, G(15)(%rax)
        movups  %xmm0, V(0)(%rax)
        movups  %xmm1, V(1)(%rax)
        movups  %xmm2, V(2)(%rax)
        movups  %xmm3, V(3)(%rax)
        movups  %xmm4, V(4)(%rax)
        movups  %xmm5, V(5)(%rax)
        movups  %xmm6, V(6)(%rax)
        movups  %xmm7, V(7)(%rax)
        movups  %xmm8, V(8)(%rax)
        movups  %xmm9, V(9)(%rax)
        movups  %xmm10, V(10)(%rax)
        movups  %xmm11, V(11)(%rax)
        movups  %xmm12, V(12)(%rax)
        movups  %xmm13, V(13)(%rax)
        movups  %xmm14, V(14)(%rax)
        movups  %xmm15, V(15)(%rax)
        movq    0(%rsp), %rcx
        movq    %rcx, G(0)(%rax)
        movq    %rsp, %rcx
        subq    24(%rsp), %rcx
        movq    %rcx, G(4)(%rax)

        movq    16(%rsp), %rbp
        leaq    -40(%rbp), %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .size   ct_test_call, . - ct_test_call

/* Garbage: a different 64-bit value per register, xmm filled from the GPRs. */
        .globl  ct_test_clobber
        .type   ct_test_clobber, @function
        .p2align 4
ct_test_clobber:
        .cfi_startproc
        movabsq $0xbad0bad0bad00000, %rax
        movabsq $0xbad0bad0bad00001, %rcx
        movabsq $0xbad0bad0bad00002, %rdx
        movabsq $0xbad0bad0bad00006, %rsi
        movabsq $0xbad0bad0bad00007, %rdi
        movabsq $0xbad0bad0bad00008, %r8
        movabsq $0xbad0bad0bad00009, %r9
        movabsq $0xbad0bad0bad0000a, %r10
        movq    %rax, %xmm0
        movq    %rcx, %xmm1
        punpcklqdq %xmm1, %xmm0         /* xmm0 = rax:rcx (SSE2 only) */
        pshufd  $0x1b, %xmm0, %xmm1
        pshufd  $0x4e, %xmm0, %xmm2
        pshufd  $0xb1, %xmm0, %xmm3
        movq    %rdx, %xmm4
        movq    %rsi, %xmm5
        movq    %rdi, %xmm6
        movq    %r8, %xmm7
        movq    %r9, %xmm8
        movq    %r10, %xmm9
        pcmpeqd %xmm10, %xmm10          /* all ones */
        pxor    %xmm11, %xmm11          /* all zeros */
        movaps  %xmm0, %xmm12
        movaps  %xmm1, %xmm13
        movaps  %xmm2, %xmm14
        movaps  %xmm3, %xmm15
        movabsq $0xbad0bad0bad0000b, %r11
        ret
        .cfi_endproc
        .size   ct_test_clobber, . - ct_test_clobber

        .globl  ct_test_bad_leave_stub
        .type   ct_test_bad_leave_stub, @function
        .p2align 4
ct_test_bad_leave_stub:
        .cfi_startproc
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbp, 0
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        andq    $-16, %rsp
        call    ct_fast_leave@PLT
        movq    %rbp, %rsp
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        .cfi_restore %rbp
        ret
        .cfi_endproc
        .size   ct_test_bad_leave_stub, . - ct_test_bad_leave_stub

        .section .note.GNU-stack, "", @progbits
