/*
 * Argument and return values: capture plans, raw capture, and text.
 *
 * The profiler builds one plan per parameter when a function is mapped
 * (from its signature and metadata). In a hook, ct_capture copies the bytes a
 * value needs — the primitive itself, string characters, array heads, struct
 * fields — into an event buffer, because the object may move or die as soon
 * as the hook returns. Later, off the hot path, ct_format_value turns those
 * raw bytes back into text. The same formatter serves the live log and the
 * offline reader: live and replayed text are identical.
 *
 * Raw encoding of one value (all integers little-endian, self-delimiting so a
 * reader can always skip it):
 *   primitives, ENUM, DECIMAL, PTR    the value's bytes (plan->size)
 *   STRING                            u64 address; if non-zero: i32 length,
 *                                     u32 n copied, n UTF-16 code units
 *   OBJECT                            u64 address, u64 class id; when bit 0
 *                                     of the class id is set (real class ids
 *                                     are aligned), the object is a string
 *                                     (the class id is layout.string_class
 *                                     | 1) and its characters follow as in
 *                                     STRING after the address: i32 length,
 *                                     u32 n, n UTF-16 code units; when bit 1
 *                                     is set, a boxed value (int, double,
 *                                     DateTime, ...): u8 its kind, then its
 *                                     bytes (ct_vkind_size of the kind)
 *   ARRAY (SZARRAY)                   u64 address; if non-zero: u64 class id,
 *                                     u32 length, u32 n copied, n elements
 *                                     each in its element plan's encoding
 *   STRUCT                            each field in order, in its own encoding
 *   NULLABLE                          u8 has-value, then the value if set
 *   BYREF                             u64 address; if non-zero and the
 *                                     target is capturable: the target value
 *   OPAQUE                            plan->size bytes, shown as hex
 *   ELIDED                            nothing (shown as {...})
 *   DATETIME, TIMESPAN, GUID, HALF,   the value's bytes (plan->size: 8, 8,
 *   I16, U16                          16, 2, 16, 16)
 *   VECTOR                            the value's bytes (plan->size)
 *   SPAN                              u64 address; if non-zero: i32 length,
 *                                     u32 n copied, n elements each in its
 *                                     element plan's encoding (a char span's
 *                                     are UTF-16 code units, as a string's)
 * Every read of the raw bytes is bounds-checked: a short or damaged record
 * formats as "<damaged>" rather than reading past the end.
 */
#ifndef CLRTRACE_VALUE_H
#define CLRTRACE_VALUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How deep struct fields (and byref/array/nullable wrappers) are followed. */
#define CT_MAX_VALUE_DEPTH 8
/* Default characters of a string kept (the -s option). */
#define CT_DEFAULT_STRING_CHARS 64
/* Default array elements kept (the --array-items option). */
#define CT_DEFAULT_ARRAY_ITEMS 8

typedef enum ct_vkind {
    CT_V_VOID,
    CT_V_BOOL, CT_V_CHAR,
    CT_V_I1, CT_V_U1, CT_V_I2, CT_V_U2, CT_V_I4, CT_V_U4, CT_V_I8, CT_V_U8,
    CT_V_R4, CT_V_R8, CT_V_I, CT_V_U,
    CT_V_DECIMAL,
    CT_V_STRING, CT_V_OBJECT, CT_V_ARRAY,
    CT_V_STRUCT, CT_V_ENUM, CT_V_NULLABLE,
    CT_V_PTR, CT_V_BYREF,
    CT_V_OPAQUE,
    CT_V_ELIDED,          /* not followed (past a depth limit): nothing is
                             captured; shown as {...} */
    /* Well-known CoreLib structs, shown as a person reads them (trace format
     * 2.2); each is its bytes, as passed. */
    CT_V_DATETIME,        /* System.DateTime: u64 ticks | kind << 62 */
    CT_V_TIMESPAN,        /* System.TimeSpan: i64 ticks */
    CT_V_GUID,            /* System.Guid: u32, u16, u16, 8 bytes */
    CT_V_HALF,            /* System.Half: IEEE 754 binary16 */
    CT_V_I16, CT_V_U16,   /* System.Int128, System.UInt128: low u64, high u64 */
    CT_V_SPAN,            /* Span<T>, ReadOnlySpan<T> of a T whose elements are
                             copied (ct_array_items_captured): elem, and the
                             _length field at value_offset (_reference at 0) */
    CT_V_VECTOR,          /* Vector64/128/256/512<T>, Vector<T>, Vector2/3/4:
                             size / elem->size elements of a primitive elem */
    CT_V_KIND_MAX = CT_V_VECTOR
} ct_vkind;

typedef struct ct_plan ct_plan;

typedef struct ct_field {
    const char *name;
    uint32_t offset;      /* within the struct's bytes */
    const ct_plan *plan;
} ct_field;

typedef struct ct_enum_item {
    const char *name;
    uint64_t value;       /* zero-extended from the underlying size */
} ct_enum_item;

struct ct_plan {
    ct_vkind kind;
    uint32_t size;        /* bytes the value occupies where it is passed/stored */
    const char *type_name;/* how the type is shown: "int", "Point", "List<int>" */
    int is_flags;         /* ENUM: [Flags] */
    ct_vkind underlying;  /* ENUM: CT_V_I1..CT_V_U8 */
    uint32_t count;       /* STRUCT: fields; ENUM: items */
    const ct_field *fields;
    const ct_enum_item *items;
    const ct_plan *elem;  /* ARRAY, SPAN, VECTOR element, BYREF target, NULLABLE value */
    uint32_t value_offset;/* NULLABLE: offset of the value after the bool;
                             SPAN: offset of _length */
};

/* Where the runtime keeps string and array contents (from
 * ICorProfilerInfo3::GetStringLayout2 and the SZARRAY layout). */
typedef struct ct_layout {
    uint32_t string_length_offset;
    uint32_t string_chars_offset;
    uint32_t array_length_offset;
    uint32_t array_data_offset;
    uint64_t string_class;  /* System.String's class id once known (0 until then):
                               a string held in an OBJECT slot (object, T in shared
                               generic code) is then captured with its characters */
} ct_layout;

/* Capture limits (the -s and --array-items options). */
typedef struct ct_limits {
    uint32_t string_chars;
    uint32_t array_items;
} ct_limits;

/* Maps an object's address to its class id (the profiler calls
 * GetClassFromObject); NULL or a 0 result records class id 0. When boxed is
 * not NULL, *boxed gets the kind of the value a boxed CoreLib primitive or
 * well-known struct holds (its bytes follow the method table pointer),
 * CT_V_VOID for any other object. */
typedef uint64_t (*ct_class_of)(void *ctx, uint64_t object, ct_vkind *boxed);

/* The bytes of a fixed-size kind (BOOL..U, DECIMAL, the well-known structs);
 * 0 for kinds of any size. */
uint32_t ct_vkind_size(ct_vkind k);
/* The C# name of a fixed-size kind ("int", "DateTime"); NULL for others. */
const char *ct_vkind_name(ct_vkind k);

/* Whether an array's elements of this plan are copied (primitives, enums,
 * strings, decimals; NULL: no); other arrays record their length only. The
 * capture, the formatter and the plan builder all follow this one rule. */
int ct_array_items_captured(const ct_plan *elem);

/* Copies the raw encoding of the value at `src` (as passed: the value itself,
 * or for reference types the 8-byte slot holding the reference) into
 * out[0..cap). Returns the bytes written, or 0 when cap is too small (the
 * caller then records the value as lost). Reads only what the plan says. */
size_t ct_capture(const ct_plan *p, const void *src, const ct_layout *layout,
                  const ct_limits *limits, ct_class_of class_of, void *ctx,
                  uint8_t *out, size_t cap);

/* Names a class id for display ("Demo.Shapes"); returns 0 on success. */
typedef int (*ct_class_name)(void *ctx, uint64_t class_id, char *out, size_t cap);

typedef struct ct_text {
    char *p;
    size_t cap;
    size_t len;           /* full length, may exceed cap - 1 (then cut) */
} ct_text;

void ct_text_init(ct_text *t, char *buf, size_t cap);
void ct_text_put(ct_text *t, const char *s);
void ct_text_putn(ct_text *t, const char *s, size_t n);
void ct_text_printf(ct_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends text that did not fit with "..." (cut on a UTF-8 boundary) and
 * returns its length in t->p (t->len is set to it); text that fit is left
 * as it is. */
size_t ct_text_end(ct_text *t);

/* Formats one captured value (raw[0..n)) as text: 1.5, "run", Safe,
 * {X=1, Y=2}, Demo.Shapes@0x7f3a2c01e8a0, int[3] {1, 2, 3}, null. Returns the
 * raw bytes consumed, or 0 when the record is damaged ("<damaged>" is
 * written). */
size_t ct_format_value(const ct_plan *p, const uint8_t *raw, size_t n, ct_class_name name_of,
                       void *ctx, ct_text *out);

/* Calls fn with the class id of every object in a captured value (the ids
 * a formatter will ask names for). Stops quietly at damaged bytes. */
void ct_value_classes(const ct_plan *p, const uint8_t *raw, size_t n,
                      void (*fn)(void *ctx, uint64_t class_id), void *ctx);

/* Shortest text that reads back to the same double / float ("1.5", "0.1",
 * "1E+300", "NaN", "-Infinity"), as .NET Core 3.0+ prints them. */
void ct_format_double(double v, char *out, size_t cap);
void ct_format_float(float v, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
