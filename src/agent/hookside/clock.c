#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (the profiler builds with _GNU_SOURCE) */
#endif
#include "clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

ct_clock_state g_clock;

#if defined(__x86_64__)
static int invariant_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
}
#endif

void ct_clock_init(void)
{
    g_clock.use_tsc = 0;
    g_clock.mono0 = ct_mono_raw_ns();
#if defined(__x86_64__)
    if (!invariant_tsc())
        return;
    /* Bracket both ends with clock reads so each pair is taken close
     * together; the factor's error is about 2 x 25 ns over the window. */
    uint64_t m0 = ct_mono_raw_ns(), t0 = ct_rdtsc(), m1, t1;
    do {
        m1 = ct_mono_raw_ns();
        t1 = ct_rdtsc();
    } while (m1 - m0 < CT_CLOCK_CALIBRATE_NS);
    uint64_t ticks = t1 - t0, ns = m1 - m0;
    if (!ticks || !ns)
        return;
    uint64_t hz = (uint64_t)((unsigned __int128)ticks * 1000000000u / ns);
    if (hz < CT_CLOCK_MIN_TSC_HZ || hz > CT_CLOCK_MAX_TSC_HZ)
        return;
    g_clock.mult = (uint64_t)(((unsigned __int128)ns << 32) / ticks);
    /* Time zero is the start of the window, like mono0. */
    g_clock.tsc0 = t0 - (uint64_t)(((unsigned __int128)(m0 - g_clock.mono0) << 32) / g_clock.mult);
    g_clock.use_tsc = 1;
#endif
}
