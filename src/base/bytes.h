/* Little-endian loads and stores: every byte layout the tracer defines (the
 * trace format, the value encoding, the diagnostics IPC) is little-endian.
 * A plain load or store on little-endian hosts, byte by byte elsewhere; no
 * alignment is assumed. (The installable libraries, src/sig, src/meta,
 * src/il, stand alone and keep their own.) */
#ifndef CLRTRACE_BASE_BYTES_H
#define CLRTRACE_BASE_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CT_BYTES_LE 1
#else
#define CT_BYTES_LE 0
#endif

static inline uint16_t ct_get_le16(const void *at)
{
    const uint8_t *p = at;
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ct_get_le32(const void *at)
{
    uint32_t v;
    if (CT_BYTES_LE) {
        memcpy(&v, at, 4);
        return v;
    }
    const uint8_t *p = at;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ct_get_le64(const void *at)
{
    uint64_t v;
    if (CT_BYTES_LE) {
        memcpy(&v, at, 8);
        return v;
    }
    const uint8_t *p = at;
    return (uint64_t)ct_get_le32(p) | (uint64_t)ct_get_le32(p + 4) << 32;
}

static inline void ct_put_le32(void *at, uint32_t v)
{
    if (CT_BYTES_LE) {
        memcpy(at, &v, 4);
        return;
    }
    uint8_t *p = at;
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ct_put_le64(void *at, uint64_t v)
{
    if (CT_BYTES_LE) {
        memcpy(at, &v, 8);
        return;
    }
    uint8_t *p = at;
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

#endif
