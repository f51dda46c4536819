/* The protobuf encoder of the exporters (pb.c): --perfetto's packets and
 * --otlp's requests, written by hand (no protobuf library). A message is
 * built in one growing buffer; a nested message or other length-delimited
 * field is written in place after its tag (pb_open) and pb_close then moves
 * its body up to put its length, a minimal varint, before it. */
#ifndef CLRTRACE_CLI_EXPORT_PB_H
#define CLRTRACE_CLI_EXPORT_PB_H

#include <stddef.h>
#include <stdint.h>

enum { PB_WIRE_VARINT = 0, PB_WIRE_I64 = 1, PB_WIRE_LEN = 2, PB_WIRE_I32 = 5 };

/* Longest varint: 10 bytes (a uint64 of 64 significant bits). */
#define PB_VARINT_MAX 10

typedef struct pb {
    uint8_t *p;
    size_t len, cap;
    int oom;          /* memory ran out: every later write does nothing */
} pb;

/* Room for n more bytes: 0, or -1 (oom set) when memory ran out. */
int pb_room(pb *b, size_t n);
/* v as a varint at out (PB_VARINT_MAX bytes of room): its length. */
size_t pb_varint_to(uint8_t *out, uint64_t v);
void pb_varint(pb *b, uint64_t v);
void pb_tag(pb *b, uint32_t field, int wire);
/* A varint field (uint64, uint32, int32 and int64 that are not negative,
 * bool, enum; a negative int64 as its two's complement, 10 bytes). */
void pb_uint(pb *b, uint32_t field, uint64_t v);
/* fixed64 and double fields (8 bytes, little-endian), fixed32 (4). */
void pb_fixed64(pb *b, uint32_t field, uint64_t v);
void pb_fixed32(pb *b, uint32_t field, uint32_t v);
void pb_double(pb *b, uint32_t field, double v);
/* A bytes field: s[0..n) as they are. */
void pb_bytes(pb *b, uint32_t field, const void *s, size_t n);
/* A string field: s[0..n) as UTF-8, each byte that is not part of a valid
 * sequence as U+FFFD (as --chrome's JSON escapes it). */
void pb_string(pb *b, uint32_t field, const char *s, size_t n);
/* Bytes already encoded (whole fields), appended as they are. */
void pb_raw(pb *b, const void *s, size_t n);
/* Opens a length-delimited field: returns where its body starts. */
size_t pb_open(pb *b, uint32_t field);
/* Closes the field pb_open opened at start (the innermost open one). */
void pb_close(pb *b, size_t start);
void pb_free(pb *b);

#endif
