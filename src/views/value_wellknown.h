/* The well-known CoreLib structs' text (value_wellknown.c); private to
 * src/views. */
#ifndef CLRTRACE_VALUE_WELLKNOWN_H
#define CLRTRACE_VALUE_WELLKNOWN_H

#include <stdint.h>

#include "format/value.h"
#include "base/text.h"

/* Appends the text of the value at b (ct_vkind_size(k) bytes). */
void ct_wellknown_format(ct_vkind k, const uint8_t *b, ct_text *t);

#endif
