/*
 * The fast-path ELT stubs (src/agent/engines/elt/asm) under a register-level harness.
 *
 * For each stub, ct_test_call (clobber_<arch>.S) loads every general-purpose
 * and vector register with a known value, puts the client id where the JIT
 * puts it, and calls the stub the way JIT-compiled code does. The C callbacks
 * below then do what a real profiler callback might (floating-point work,
 * snprintf, memset/memcpy that may use wide vector registers) and finally call
 * ct_test_clobber, which overwrites every register a C callee may clobber.
 * After the stub returns, every register the JIT contract (docs/asm.md) says
 * survives must hold its value again. Also checked: the callback got the
 * right client id, was the only callback called, ran on a 16-byte aligned
 * stack, and an unwinder can walk from it through the stub (CFI).
 *
 * A deliberately wrong stub (keeps nothing) must be caught, to show the
 * harness can fail. Each run is a child process, so a stub that crashes (bad
 * alignment, bad CFI under the unwinder) is a failed check, not a lost run.
 * Prints "N passed, N failed"; exits non-zero on failure.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS under -std=c11 */
#include <execinfo.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elt_stubs.h"

struct ct_regs {
    uint64_t gpr[32];    /* index = hardware register number */
    uint64_t vec[32][2]; /* low, high 64 bits */
};

void ct_test_call(void (*stub)(void), const struct ct_regs *in, struct ct_regs *out, uint64_t misalign);
void ct_test_clobber(void);
void ct_test_bad_leave_stub(void);
extern const char ct_test_call_ret[];

enum { CB_ENTER, CB_LEAVE, CB_TAILCALL, CB_COUNT };

#define BIT(n) (UINT64_C(1) << (n))
#define BITS(lo, hi) (((UINT64_C(2) << (hi)) - 1) & ~((UINT64_C(1) << (lo)) - 1))

#if defined(__x86_64__)
static const char *const gpr_name[32] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                         "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
#define VEC_PREFIX "xmm"
enum { N_GPR = 16, N_VEC = 16, RAX = 0, RCX = 1, RDX = 2, RSP = 4, RSI = 6, RDI = 7, R14 = 14 };
/* rbx rbp r12-r15: callee-saved in System V, so any C function keeps them. */
#define CALLEE_SAVED (BIT(3) | BIT(5) | BITS(12, 15))
#define ARG_GPRS (BIT(RDI) | BIT(RSI) | BIT(RDX) | BIT(RCX) | BIT(8) | BIT(9))
static const uint64_t misaligns[] = {0, 8};
#elif defined(__aarch64__)
static const char *const gpr_name[32] = {
    "x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",  "x10",
    "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",
    "x22", "x23", "x24", "x25", "x26", "x27", "x28", "fp",  "lr",  "-"};
#define VEC_PREFIX "q"
enum { N_GPR = 31, N_VEC = 32, X10 = 10, RSP = 31 };
/* x19-x28 and fp: callee-saved in AAPCS64. */
#define CALLEE_SAVED BITS(19, 29)
/* sp must stay 16-byte aligned on aarch64 (hardware check), so no misaligned run. */
static const uint64_t misaligns[] = {0};
#else
#error "tests/asm/test_stubs.c: no harness for this architecture"
#endif

struct stub_case {
    const char *name;
    void (*stub)(void);
    int callback;       /* which callback the stub must call */
    int id_reg;         /* where the JIT puts the client id */
    uint64_t gpr_keep;  /* registers that must survive */
    uint32_t vec_full;  /* vector registers that must survive whole */
    uint32_t vec_low;   /* vector registers whose low 64 bits must survive */
    int expect_clobber; /* the negative control: must be caught */
};

static const struct stub_case cases[] = {
#if defined(__x86_64__)
    {"enter", ct_fast_enter_stub, CB_ENTER, R14, ARG_GPRS | BIT(RAX) | CALLEE_SAVED, 0xff, 0, 0},
    {"leave", ct_fast_leave_stub, CB_LEAVE, RDI, BIT(RAX) | BIT(RDX) | CALLEE_SAVED, 0x3, 0, 0},
    {"tailcall", ct_fast_tailcall_stub, CB_TAILCALL, RDI, BIT(RAX) | BIT(RDX) | CALLEE_SAVED, 0x3, 0, 0},
    {"bad leave stub", ct_test_bad_leave_stub, CB_LEAVE, RDI, BIT(RAX) | BIT(RDX) | CALLEE_SAVED, 0x3, 0, 1},
#else
    {"enter", ct_fast_enter_stub, CB_ENTER, X10, BITS(0, 8) | CALLEE_SAVED, 0xff, 0xff00, 0},
    {"leave", ct_fast_leave_stub, CB_LEAVE, X10, BITS(0, 8) | CALLEE_SAVED, 0xff, 0xff00, 0},
    {"tailcall", ct_fast_tailcall_stub, CB_TAILCALL, X10, BITS(0, 8) | CALLEE_SAVED, 0xff, 0xff00, 0},
    {"bad leave stub", ct_test_bad_leave_stub, CB_LEAVE, X10, BITS(0, 8) | CALLEE_SAVED, 0xff, 0xff00, 1},
#endif
};

/* ---- the callbacks ---------------------------------------------------- */

static struct {
    int calls[CB_COUNT];
    uintptr_t id;
    uintptr_t frame; /* the callback's frame address: 16-aligned iff entered aligned */
    int want_backtrace;
    int bt_n;
    void *bt[16];
} seen;

static volatile double sink;
static unsigned char scratch[8192];

/* What a profiler callback might do to the caller-saved state. */
static __attribute__((noinline)) void busy_work(uintptr_t id)
{
    double acc = (double)(id & 0xffff) + 0.5;
    for (int i = 1; i < 64; i++)
        acc = acc * 1.000001 + 1.0 / (double)i;
    char buf[64];
    snprintf(buf, sizeof buf, "%.9f %g", acc, acc / 3.0);
    memset(scratch, (int)(id & 0xff), sizeof scratch / 2);
    memcpy(scratch + sizeof scratch / 2, scratch, sizeof scratch / 2);
    sink = acc + buf[0] + scratch[4097];
}

static __attribute__((noinline)) void record(int which, uintptr_t id, uintptr_t frame)
{
    seen.calls[which]++;
    seen.id = id;
    seen.frame = frame;
    if (seen.want_backtrace)
        seen.bt_n = backtrace(seen.bt, (int)(sizeof seen.bt / sizeof seen.bt[0]));
    busy_work(id);
    ct_test_clobber();
}

void ct_fast_enter(uintptr_t client_id)
{
    record(CB_ENTER, client_id, (uintptr_t)__builtin_frame_address(0));
}

void ct_fast_leave(uintptr_t client_id)
{
    record(CB_LEAVE, client_id, (uintptr_t)__builtin_frame_address(0));
}

void ct_fast_tailcall(uintptr_t client_id)
{
    record(CB_TAILCALL, client_id, (uintptr_t)__builtin_frame_address(0));
}

/* ---- the harness ------------------------------------------------------ */

/* Shared with the child processes (one per run). */
static struct counts {
    int passed, failed;
} *counts;

static void fill(struct ct_regs *r, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    uint64_t x = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;
    for (int i = 0; i < 32; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        r->gpr[i] = x;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        r->vec[i][0] = x;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        r->vec[i][1] = x;
    }
}

/* Returns the number of registers that should have survived and did not. */
static int compare(const struct stub_case *c, const struct ct_regs *in, const struct ct_regs *out, int quiet)
{
    int bad = 0;
    for (int i = 0; i < N_GPR; i++) {
        if (!(c->gpr_keep & BIT(i)) || in->gpr[i] == out->gpr[i])
            continue;
        bad++;
        if (!quiet)
            printf("    %s: 0x%016" PRIx64 " became 0x%016" PRIx64 "\n", gpr_name[i], in->gpr[i], out->gpr[i]);
    }
    for (int i = 0; i < N_VEC; i++) {
        int full = (c->vec_full >> i) & 1, low = (c->vec_low >> i) & 1;
        if (!full && !low)
            continue;
        if (in->vec[i][0] == out->vec[i][0] && (!full || in->vec[i][1] == out->vec[i][1]))
            continue;
        bad++;
        if (!quiet)
            printf("    %s%d: %016" PRIx64 ":%016" PRIx64 " became %016" PRIx64 ":%016" PRIx64 "\n", VEC_PREFIX, i,
                   in->vec[i][1], in->vec[i][0], out->vec[i][1], out->vec[i][0]);
    }
    return bad;
}

static void check(int ok, const char *what)
{
    if (ok) {
        counts->passed++;
    } else {
        counts->failed++;
        printf("FAIL: %s\n", what);
    }
}

static void run_case(const struct stub_case *c, uint64_t misalign, uint64_t seed)
{
    char what[160];
    struct ct_regs in, out;
    fill(&in, seed);
    /* A client id with high bits set, so a truncation shows. */
    uintptr_t id = (uintptr_t)(UINT64_C(0xfeedface00000000) | (seed << 8) | (uint64_t)c->callback);
    in.gpr[c->id_reg] = id;
    memset(&out, 0xa5, sizeof out);
    memset(&seen, 0, sizeof seen);
    seen.want_backtrace = !c->expect_clobber;

    ct_test_call(c->stub, &in, &out, misalign);

    snprintf(what, sizeof what, "%s (sp%%16=%d, seed %" PRIu64 ")", c->name, misalign ? 8 : 0, seed);
    char msg[256];

    int others = 0;
    for (int i = 0; i < CB_COUNT; i++)
        others += i == c->callback ? 0 : seen.calls[i];
    snprintf(msg, sizeof msg, "%s: calls its callback once and no other", what);
    check(seen.calls[c->callback] == 1 && others == 0, msg);

    snprintf(msg, sizeof msg, "%s: callback got client id 0x%" PRIxPTR " (got 0x%" PRIxPTR ")", what, id, seen.id);
    check(seen.id == id, msg);

    snprintf(msg, sizeof msg, "%s: callback ran on a 16-byte aligned stack (frame %#" PRIxPTR ")", what, seen.frame);
    check(seen.frame % 16 == 0, msg);

#if defined(__x86_64__)
    snprintf(msg, sizeof msg, "%s: rsp is restored (moved by %" PRId64 ")", what, (int64_t)out.gpr[RSP]);
    check(out.gpr[RSP] == 0, msg);
#endif

    if (c->expect_clobber) {
        int bad = compare(c, &in, &out, 1);
        snprintf(msg, sizeof msg, "%s: the harness catches a stub that keeps nothing (%d registers lost)", what, bad);
        check(bad > 0, msg);
        return;
    }

    snprintf(msg, sizeof msg, "%s: every register the JIT contract keeps survives", what);
    int bad = compare(c, &in, &out, 1);
    check(bad == 0, msg);
    if (bad)
        compare(c, &in, &out, 0);

    /* CFI: unwinding from inside the callback must pass through the stub and
     * land on the instruction after the harness's call. */
    int through = 0;
    for (int k = 0; k + 1 < seen.bt_n; k++) {
        uintptr_t pc = (uintptr_t)seen.bt[k], stub = (uintptr_t)c->stub;
        if (pc > stub && pc - stub < 256 && (uintptr_t)seen.bt[k + 1] == (uintptr_t)ct_test_call_ret)
            through = 1;
    }
    snprintf(msg, sizeof msg, "%s: the unwinder walks from the callback through the stub (%d frames)", what,
             seen.bt_n);
    check(through, msg);
    if (!through)
        for (int k = 0; k < seen.bt_n; k++)
            printf("    frame %d: %p\n", k, seen.bt[k]);
}

/* One run in a child process: a crash inside the stub is one failed check. */
static void run_isolated(const struct stub_case *c, uint64_t misalign, uint64_t seed)
{
    pid_t pid = fork();
    if (pid == 0) {
        run_case(c, misalign, seed);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        check(0, "fork/waitpid");
        return;
    }
    if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s (sp%%16=%d, seed %" PRIu64 "): the run died (%s %d)", c->name,
                 misalign ? 8 : 0, seed, WIFSIGNALED(status) ? "signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        check(0, msg);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    counts = mmap(NULL, sizeof *counts, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (counts == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    /* The first backtrace() loads the unwinder (and may allocate): do it here,
     * not inside a callback with test values in every register. */
    void *warm[4];
    (void)backtrace(warm, 4);

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t m = 0; m < sizeof misaligns / sizeof misaligns[0]; m++)
            for (uint64_t seed = 1; seed <= 3; seed++)
                run_isolated(&cases[i], misaligns[m], seed + 16 * i + 64 * m);

    printf("%d passed, %d failed\n", counts->passed, counts->failed);
    return counts->failed ? 1 : 0;
}
