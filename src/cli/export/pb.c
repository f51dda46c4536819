/* The protobuf encoder (pb.h). */
#include <stdlib.h>
#include <string.h>

#include "pb.h"
#include "base/escape.h"

int pb_room(pb *b, size_t n)
{
    if (b->oom)
        return -1;
    if (b->cap - b->len >= n)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return -1;
        }
        cap *= 2;
    }
    uint8_t *more = realloc(b->p, cap);
    if (!more) {
        b->oom = 1;
        return -1;
    }
    b->p = more;
    b->cap = cap;
    return 0;
}

size_t pb_varint_to(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

void pb_varint(pb *b, uint64_t v)
{
    if (pb_room(b, PB_VARINT_MAX) == 0)
        b->len += pb_varint_to(b->p + b->len, v);
}

void pb_tag(pb *b, uint32_t field, int wire)
{
    pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void pb_uint(pb *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, PB_WIRE_VARINT);
    pb_varint(b, v);
}

static void put_le(pb *b, uint64_t v, size_t n)
{
    if (pb_room(b, n) != 0)
        return;
    for (size_t i = 0; i < n; i++)
        b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

void pb_fixed64(pb *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, PB_WIRE_I64);
    put_le(b, v, 8);
}

void pb_fixed32(pb *b, uint32_t field, uint32_t v)
{
    pb_tag(b, field, PB_WIRE_I32);
    put_le(b, v, 4);
}

void pb_double(pb *b, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    pb_fixed64(b, field, bits);
}

void pb_raw(pb *b, const void *s, size_t n)
{
    if (n && pb_room(b, n) == 0) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

void pb_bytes(pb *b, uint32_t field, const void *s, size_t n)
{
    pb_tag(b, field, PB_WIRE_LEN);
    pb_varint(b, n);
    pb_raw(b, s, n);
}

size_t pb_open(pb *b, uint32_t field)
{
    pb_tag(b, field, PB_WIRE_LEN);
    return b->len;
}

void pb_close(pb *b, size_t start)
{
    if (b->oom)
        return;
    uint8_t head[PB_VARINT_MAX];
    size_t body = b->len - start, n = pb_varint_to(head, body);
    if (pb_room(b, n) != 0)
        return;
    memmove(b->p + start + n, b->p + start, body);
    memcpy(b->p + start, head, n);
    b->len += n;
}

void pb_string(pb *b, uint32_t field, const char *s, size_t n)
{
    size_t start = pb_open(b, field);
    if (pb_room(b, n) != 0)
        return;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = u[i] < 0x80 ? 1 : ct_utf8_next(u + i, n - i, &cp);
        if (k == 0) {
            if (pb_room(b, 3 + (n - i)) != 0)
                return;
            memcpy(b->p + b->len, "\xef\xbf\xbd", 3);
            b->len += 3;
            i++;
        } else {
            memcpy(b->p + b->len, u + i, k);
            b->len += k;
            i += k;
        }
    }
    pb_close(b, start);
}

void pb_free(pb *b)
{
    free(b->p);
    *b = (pb){0};
}
