/* libclril internals: arena allocation and little-endian access. */
#ifndef CLRIL_INTERNAL_H
#define CLRIL_INTERNAL_H

#include <string.h>

#include "clril/clril.h"

/* n bytes aligned to 8 from the arena, or NULL when it is full. */
static inline void *il_alloc(clril_arena *a, size_t n)
{
    size_t at = (a->used + 7) & ~(size_t)7;
    if (at > a->cap || n > a->cap - at)
        return NULL;
    a->used = at + n;
    return a->base + at;
}

static inline uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static inline void wr16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

static inline clril_status il_fail(clril_error *err, clril_status st, uint32_t offset)
{
    if (err) {
        err->code = st;
        err->offset = offset;
    }
    return st;
}

/* Bytes of op's operand (a switch: its count word only). */
static inline uint32_t il_operand_size(int operand)
{
    switch (operand) {
    case CLRIL_OPERAND_VAR8: case CLRIL_OPERAND_I8: case CLRIL_OPERAND_BR8: return 1;
    case CLRIL_OPERAND_VAR16: return 2;
    case CLRIL_OPERAND_I32: case CLRIL_OPERAND_R32: case CLRIL_OPERAND_TOKEN:
    case CLRIL_OPERAND_BR32: case CLRIL_OPERAND_SWITCH: return 4;
    case CLRIL_OPERAND_I64: case CLRIL_OPERAND_R64: return 8;
    default: return 0;
    }
}

/* Fat header flags (II.25.4.3). */
#define IL_FAT_FORMAT 0x3u
#define IL_MORE_SECTS 0x8u
/* Data section kinds (II.25.4.5). */
#define IL_SECT_EHTABLE 0x01u
#define IL_SECT_FAT 0x40u
#define IL_SECT_MORE 0x80u
#define IL_SMALL_CLAUSE 12u
#define IL_FAT_CLAUSE 24u

#endif
