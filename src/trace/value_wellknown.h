/* The well-known CoreLib structs' text (value_wellknown.c); private to
 * src/trace. */
#ifndef CLRTRACE_VALUE_WELLKNOWN_H
#define CLRTRACE_VALUE_WELLKNOWN_H

#include <stdint.h>

#include "clrtrace/value.h"

/* The bytes a well-known kind takes; 0 for any other kind. */
uint32_t ct_wellknown_size(ct_vkind k);
/* Appends the text of the value at b (ct_wellknown_size(k) bytes). */
void ct_wellknown_format(ct_vkind k, const uint8_t *b, ct_text *t);

#endif
