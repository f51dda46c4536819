/* The well-known CoreLib structs' text (value_wellknown.c); private to
 * src/views. */
#ifndef CLRTRACE_VALUE_WELLKNOWN_H
#define CLRTRACE_VALUE_WELLKNOWN_H

#include <stdint.h>

#include "format/value.h"
#include "base/text.h"

/* Appends the text of the value at b (ct_vkind_size(k) bytes). */
void ct_wellknown_format(ct_vkind k, const uint8_t *b, ct_text *t);

/* An IPv4 address as IPAddress keeps it (the bytes in network order in a
 * little-endian uint): "127.0.0.1". */
void ct_wellknown_ipv4(uint32_t addr, ct_text *t);
/* An IPv6 address's eight 16-bit words (host order) and scope id as .NET's
 * IPAddress.ToString writes them (RFC 5952: the first longest run of two or
 * more zero words as "::", hex without leading zeros; an IPv4-mapped,
 * -compatible, SIIT or ISATAP address with its last 32 bits as IPv4 text;
 * "%scope" when not 0): "2001:db8::1", "::ffff:1.2.3.4". */
void ct_wellknown_ipv6(const uint16_t w[8], uint32_t scope, ct_text *t);
/* TaskStatus from a Task's m_stateFlags, as Task.Status reads them. */
const char *ct_wellknown_task_status(uint32_t flags);
/* Whether a Task of these flags ran to completion (its result is set). */
int ct_wellknown_task_done(uint32_t flags);
/* Whether a Task's m_stateFlags say it faulted or was cancelled. */
int ct_wellknown_task_failed(uint32_t flags);
/* An Encoding's name from its code page (Encoding._codePage), as
 * Encoding.WebName has it for the common ones ("utf-8", "utf-16",
 * "us-ascii", ...); others "codepage 437". */
void ct_wellknown_codepage(int32_t code_page, ct_text *t);

/* Most UTF-16 code units of an AggregateException's Message built for
 * display (ct_symbols_exception_text, an exception value's form); past them
 * it reads as a cut string. */
#define CT_EXC_TEXT_UNITS 4096
/* AggregateExceptions one inside another whose Message an exception value's
 * form builds (each level walks the values below it once more); past them
 * the Message reads as not known ("..."). */
#define CT_EXC_MESSAGE_LEVELS 4

/* A message built from pieces as UTF-16LE code units (an
 * AggregateException's Message: its own, then each inner exception's in
 * parentheses): kept whole up to the first piece that was cut (the whole
 * length is still known then) or that is not known (then neither is the
 * length). */
typedef struct ct_exc_msg {
    uint8_t *units;      /* UTF-16LE code units */
    uint32_t cap, n;     /* room and code units kept */
    int64_t length;      /* the whole message's length */
    int cut;             /* a piece was not kept whole: nothing more is kept */
    int unknown;         /* a piece is not known: the length is not either */
} ct_exc_msg;

/* Appends n units of a piece of `length` units. */
void ct_exc_msg_units(ct_exc_msg *b, const uint8_t *units, uint32_t n, int64_t length);
/* Appends ASCII text (another byte stands for one unit). */
void ct_exc_msg_ascii(ct_exc_msg *b, const char *s);
/* Appends Exception.Message's text for a null _message, "Exception of type
 * 'NAME' was thrown." (name NULL: not known, nor then is the message). */
void ct_exc_msg_default(ct_exc_msg *b, const char *name);

#endif
