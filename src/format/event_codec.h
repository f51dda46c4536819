/* What the trace format's writer (event_write.c) and reader (event_read.c)
 * share: the record frame and the EVENTS blocks' number coding
 * (docs/trace-format.md). Private to src/format. */
#ifndef CLRTRACE_EVENT_CODEC_H
#define CLRTRACE_EVENT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define REC_HEADER 8 /* u8 type, u8 reserved, u16 value count (events) or 0, u32 payload length */
#define REC_ALIGN 8  /* records start at multiples of 8; zero bytes pad the gaps */
#define EVENTS_HEADER 24 /* u64 tid, u64 base time, u64 base key */

static inline size_t align8(size_t n)
{
    return (n + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1);
}

/* Signed differences as unsigned varints: 0, -1, 1, -2, ... -> 0, 1, 2, 3. */
static inline uint64_t zigzag(uint64_t delta)
{
    int64_t v = (int64_t)delta;
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

#endif
