/*
 * aarch64 helpers for tests/asm/test_stubs.c (AAPCS64, GNU as syntax).
 *
 *   void ct_test_call(void (*stub)(void), const struct ct_regs *in,
 *                     struct ct_regs *out, uint64_t misalign);
 *       Loads x0-x15, x19-x28, fp and q0-q31 (all 128 bits) from *in, calls
 *       stub with blr (as JIT-compiled code calls an out-of-range helper),
 *       then stores x0-x17, x19-x30 and q0-q31 to *out. x16/x17 carry the
 *       call target and are not checked; x18 (platform register) is never
 *       touched. misalign is ignored: sp must stay 16-byte aligned here.
 *       ct_test_call_ret marks the return address of that call. No CFI: fp
 *       holds a test value across the call.
 *
 *   void ct_test_clobber(void);
 *       Writes garbage into every register a C callee may clobber: x0-x17,
 *       q0-q7, q16-q31, and the upper 64 bits of v8-v15.
 *
 *   void ct_test_bad_leave_stub(void);
 *       A deliberately wrong leave stub (keeps nothing but fp/lr): the
 *       harness must catch it.
 *
 * struct ct_regs: uint64_t gpr[32] (xN at 8*N, fp = x29, lr = x30), then
 * uint64_t vec[32][2] at offset 256 (qN at 256 + 16*N).
 */

        .text

        .globl  ct_test_call
        .type   ct_test_call, %function
        .globl  ct_test_call_ret
        .p2align 4
ct_test_call:
        stp     x29, x30, [sp, #-176]!
        mov     x29, sp
        stp     x19, x20, [sp, #16]
        stp     x21, x22, [sp, #32]
        stp     x23, x24, [sp, #48]
        stp     x25, x26, [sp, #64]
        stp     x27, x28, [sp, #80]
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        stp     x2, x0, [sp, #160]      /* out, stub */

        mov     x17, x0
        add     x16, x1, #256
        ldp     q0, q1, [x16, #0]
        ldp     q2, q3, [x16, #32]
        ldp     q4, q5, [x16, #64]
        ldp     q6, q7, [x16, #96]
        ldp     q8, q9, [x16, #128]
        ldp     q10, q11, [x16, #160]
        ldp     q12, q13, [x16, #192]
        ldp     q14, q15, [x16, #224]
        ldp     q16, q17, [x16, #256]
        ldp     q18, q19, [x16, #288]
        ldp     q20, q21, [x16, #320]
        ldp     q22, q23, [x16, #352]
        ldp     q24, q25, [x16, #384]
        ldp     q26, q27, [x16, #416]
        ldp     q28, q29, [x16, #448]
        ldp     q30, q31, [x16, #480]
        ldp     x2, x3, [x1, #16]
        ldp     x4, x5, [x1, #32]
        ldp     x6, x7, [x1, #48]
        ldp     x8, x9, [x1, #64]
        ldp     x10, x11, [x1, #80]
        ldp     x12, x13, [x1, #96]
        ldp     x14, x15, [x1, #112]
        ldp     x19, x20, [x1, #152]
        ldp     x21, x22, [x1, #168]
        ldp     x23, x24, [x1, #184]
        ldp     x25, x26, [x1, #200]
        ldp     x27, x28, [x1, #216]
        ldr     x29, [x1, #232]
        ldp     x0, x1, [x1, #0]

        blr     x17
ct_test_call_ret:
        stp     x0, x1, [sp, #-16]!
        ldr     x0, [sp, #(16 + 160)]   /* out */
        stp     x2, x3, [x0, #16]
        stp     x4, x5, [x0, #32]
        stp     x6, x7, [x0, #48]
        stp     x8, x9, [x0, #64]
        stp     x10, x11, [x0, #80]
        stp     x12, x13, [x0, #96]
        stp     x14, x15, [x0, #112]
        stp     x16, x17, [x0, #128]
        stp     x19, x20, [x0, #152]
        stp     x21, x22, [x0, #168]
        stp     x23, x24, [x0, #184]
        stp     x25, x26, [x0, #200]
        stp     x27, x28, [x0, #216]
        stp     x29, x30, [x0, #232]
        ldp     x2, x3, [sp], #16       /* the returned x0, x1 */
        stp     x2, x3, [x0, #0]
        add     x16, x0, #256
        stp     q0, q1, [x16, #0]
        stp     q2, q3, [x16, #32]
        stp     q4, q5, [x16, #64]
        stp     q6, q7, [x16, #96]
        stp     q8, q9, [x16, #128]
        stp     q10, q11, [x16, #160]
        stp     q12, q13, [x16, #192]
        stp     q14, q15, [x16, #224]
        stp     q16, q17, [x16, #256]
        stp     q18, q19, [x16, #288]
        stp     q20, q21, [x16, #320]
        stp     q22, q23, [x16, #352]
        stp     q24, q25, [x16, #384]
        stp     q26, q27, [x16, #416]
        stp     q28, q29, [x16, #448]
        stp     q30, q31, [x16, #480]

        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        ldp     x19, x20, [sp, #16]
        ldp     x21, x22, [sp, #32]
        ldp     x23, x24, [sp, #48]
        ldp     x25, x26, [sp, #64]
        ldp     x27, x28, [sp, #80]
        ldp     x29, x30, [sp], #176
        ret
        .size   ct_test_call, . - ct_test_call

        .globl  ct_test_clobber
        .type   ct_test_clobber, %function
        .p2align 4
ct_test_clobber:
        .cfi_startproc
        movz    x9, #0xbad0
        movk    x9, #0xbad0, lsl #16
        movk    x9, #0xbad0, lsl #32
        movk    x9, #0xbad0, lsl #48
        add     x0, x9, #0
        add     x1, x9, #1
        add     x2, x9, #2
        add     x3, x9, #3
        add     x4, x9, #4
        add     x5, x9, #5
        add     x6, x9, #6
        add     x7, x9, #7
        add     x8, x9, #8
        add     x10, x9, #10
        add     x11, x9, #11
        add     x12, x9, #12
        add     x13, x9, #13
        add     x14, x9, #14
        add     x15, x9, #15
        add     x16, x9, #16
        add     x17, x9, #17
        dup     v0.2d, x0
        dup     v1.2d, x1
        dup     v2.2d, x2
        dup     v3.2d, x3
        dup     v4.2d, x4
        dup     v5.2d, x5
        dup     v6.2d, x6
        dup     v7.2d, x7
        mov     v8.d[1], x8             /* only d8-d15 (low halves) are callee-saved */
        mov     v9.d[1], x9
        mov     v10.d[1], x10
        mov     v11.d[1], x11
        mov     v12.d[1], x12
        mov     v13.d[1], x13
        mov     v14.d[1], x14
        mov     v15.d[1], x15
        dup     v16.2d, x16
        dup     v17.2d, x17
        movi    v18.2d, #0
        movi    v19.2d, #0xffffffffffffffff
        mov     v20.16b, v0.16b
        mov     v21.16b, v1.16b
        mov     v22.16b, v2.16b
        mov     v23.16b, v3.16b
        mov     v24.16b, v4.16b
        mov     v25.16b, v5.16b
        mov     v26.16b, v6.16b
        mov     v27.16b, v7.16b
        mov     v28.16b, v16.16b
        mov     v29.16b, v17.16b
        mov     v30.16b, v18.16b
        mov     v31.16b, v19.16b
        ret
        .cfi_endproc
        .size   ct_test_clobber, . - ct_test_clobber

        .globl  ct_test_bad_leave_stub
        .type   ct_test_bad_leave_stub, %function
        .p2align 4
ct_test_bad_leave_stub:
        .cfi_startproc
        stp     x29, x30, [sp, #-16]!
        .cfi_def_cfa_offset 16
        .cfi_offset x29, -16
        .cfi_offset x30, -8
        mov     x29, sp
        mov     x0, x10
        bl      ct_fast_leave
        ldp     x29, x30, [sp], #16
        .cfi_def_cfa_offset 0
        .cfi_restore x29
        .cfi_restore x30
        ret
        .cfi_endproc
        .size   ct_test_bad_leave_stub, . - ct_test_bad_leave_stub

        .section .note.GNU-stack, "", %progbits
