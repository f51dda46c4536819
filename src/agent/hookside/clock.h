/* Event timestamps: nanoseconds since the profiler started.
 *
 * On x86_64 with an invariant TSC (CPUID 0x80000007, EDX bit 8) the hooks
 * read the time stamp counter (about 10 ns, against 25 ns for a vDSO
 * clock_gettime on the machine of docs/performance.md) and scale it with a
 * factor measured against CLOCK_MONOTONIC at start (CT_CLOCK_CALIBRATE_NS).
 * Elsewhere, or when the measured rate is implausible, CLOCK_MONOTONIC. */
#ifndef CLRTRACE_CLOCK_H
#define CLRTRACE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* How long the TSC is measured against CLOCK_MONOTONIC in ct_clock_init. */
#define CT_CLOCK_CALIBRATE_NS 1000000u
/* TSC rates believed (Hz); outside them CLOCK_MONOTONIC is used. */
#define CT_CLOCK_MIN_TSC_HZ 100000000ull
#define CT_CLOCK_MAX_TSC_HZ 20000000000ull

typedef struct ct_clock_state {
    int use_tsc;
    uint64_t tsc0;      /* TSC at start */
    uint64_t mult;      /* ns per tick, 32.32 fixed point */
    uint64_t mono0;     /* CLOCK_MONOTONIC at start, ns */
} ct_clock_state;

extern ct_clock_state g_clock;

/* Calibrates; called once from Initialize before any hook can run. */
void ct_clock_init(void);

static inline uint64_t ct_mono_raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t ct_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}
#endif

/* Nanoseconds since ct_clock_init. */
static inline uint64_t ct_now_ns(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(g_clock.use_tsc, 1)) {
        uint64_t d = ct_rdtsc() - g_clock.tsc0;
        if ((int64_t)d < 0)
            return 0;
        return (uint64_t)(((unsigned __int128)d * g_clock.mult) >> 32);
    }
#endif
    uint64_t m = ct_mono_raw_ns();
    return m > g_clock.mono0 ? m - g_clock.mono0 : 0;
}

#endif
