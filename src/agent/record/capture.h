/* Raw capture in a hook (capture.c): the bytes a value's plan names, copied
 * into an event record, because the object may move or die as soon as the
 * hook returns. The encoding is format/value.h's. */
#ifndef CLRTRACE_RECORD_CAPTURE_H
#define CLRTRACE_RECORD_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "format/value.h"

/* What the capture knows of an object's class. */
typedef struct ct_class_info {
    uint64_t id;             /* the class id (0: unknown: recorded as 0) */
    ct_vkind boxed;          /* the kind of the value a boxed CoreLib primitive or
                                well-known struct holds (its bytes follow the
                                method table pointer); CT_V_VOID otherwise */
    const ct_plan *content;  /* CLASS or SEQ plan of its content, or NULL */
    int szarray;             /* a one-dimensional zero-based array (T[]) */
    int string;              /* System.String */
    uint64_t found;          /* what the content's field at CT_FIELD_FOUND reads
                                (a Task form's Exception: the exception object a
                                faulted or cancelled task holds; 0: null) */
} ct_class_info;

/* Describes the object at an address (the profiler calls GetClassFromObject
 * and its class plans); fills *out, zeroed first. named: the class id is
 * written into the value as an object's class, which a reader names from
 * the trace's CLASS record (ct_value_classes reports it); 0 when it is
 * only looked at (a typed array's id, a span's backing object). */
typedef void (*ct_class_of)(void *ctx, uint64_t object, int named, ct_class_info *out);

/* Copies the raw encoding of the value at `src` (as passed: the value itself,
 * or for reference types the 8-byte slot holding the reference) into
 * out[0..cap). Returns the bytes written, or 0 when cap is too small (the
 * caller then records the value as lost). Reads only what the plan says. */
size_t ct_capture(const ct_plan *p, const void *src, const ct_layout *layout,
                  const ct_limits *limits, ct_class_of class_of, void *ctx,
                  uint8_t *out, size_t cap);

#endif
