/*
 * libclrsig — a hardened decoder and formatter for ECMA-335 signature blobs.
 *
 * This header is the library's manual. It depends on nothing but libc and
 * never allocates: parsing writes nodes into a caller-owned arena, formatting
 * writes text into a caller-owned buffer.
 *
 * Three steps:
 *
 *   uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
 *   clrsig_arena arena;
 *   clrsig_arena_init(&arena, mem, sizeof mem);
 *
 *   clrsig_sig sig;
 *   clrsig_error err;
 *   if (clrsig_parse(blob, len, CLRSIG_KIND_METHOD, NULL, &arena, &sig, &err) != CLRSIG_OK)
 *       printf("error %s at offset %u\n", clrsig_strerror(err.code), err.offset);
 *
 *   char text[512];
 *   clrsig_format_sig(&sig, &(clrsig_format_opts){ .style = CLRSIG_STYLE_CSHARP },
 *                     NULL, text, sizeof text, NULL, &err);
 *
 * Error model: every function that can fail returns a clrsig_status and, when
 * given a clrsig_error*, fills it with the status and the byte offset in the
 * blob where decoding stopped. CLRSIG_OK is 0. Nothing aborts, nothing reads
 * outside [blob, blob+len), nothing recurses deeper than CLRSIG_MAX_DEPTH.
 *
 * The text forms (C# style and ILDasm style) are specified in docs/libclrsig.md.
 */
#ifndef CLRSIG_CLRSIG_H
#define CLRSIG_CLRSIG_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------ version and exports */

/* The version of this header: clrtrace's, the VERSION of project() in
 * CMakeLists.txt, through the generated clrsig_version.h (CLRSIG_VERSION_MAJOR,
 * _MINOR, _PATCH); libclrsig.so.MAJOR is the soname. */
#include "clrsig/clrsig_version.h"
/* MAJOR * 10000 + MINOR * 100 + PATCH (0.2.0 is 200), usable in #if. */
#define CLRSIG_VERSION_NUMBER \
    (CLRSIG_VERSION_MAJOR * 10000 + CLRSIG_VERSION_MINOR * 100 + CLRSIG_VERSION_PATCH)
/* "MAJOR.MINOR.PATCH" */
#define CLRSIG_VERSION_STRING \
    CLRSIG_VERSION_TEXT_(CLRSIG_VERSION_MAJOR) "." CLRSIG_VERSION_TEXT_(CLRSIG_VERSION_MINOR) \
    "." CLRSIG_VERSION_TEXT_(CLRSIG_VERSION_PATCH)
#define CLRSIG_VERSION_TEXT_(n) CLRSIG_VERSION_QUOTE_(n)
#define CLRSIG_VERSION_QUOTE_(n) #n

/* CLRSIG_API marks each function of the library: libclrsig is built with all
 * other symbols hidden, so these are the only ones libclrsig.so exports. With
 * GCC and clang it means default visibility. Define it before including this
 * header to choose otherwise, e.g. as `__attribute__((visibility("hidden")))`
 * when linking libclrsig.a into a shared library that must not export it. */
#ifndef CLRSIG_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define CLRSIG_API __attribute__((visibility("default")))
#else
#define CLRSIG_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ limits */

/* Deepest nesting of types (PTR, BYREF, SZARRAY, ARRAY, GENERICINST, FNPTR,
 * custom modifiers, PINNED each count one level). Real signatures rarely go
 * past 8; the limit keeps recursion bounded on hostile input. */
#define CLRSIG_MAX_DEPTH 64
/* Most parameters in one method, property or function-pointer signature.
 * A count is also rejected when it exceeds the bytes left in the blob. */
#define CLRSIG_MAX_PARAMS 4096
/* Most local variables in one LOCAL_SIG (the runtime caps locals at 0xFFFE). */
#define CLRSIG_MAX_LOCALS 0xFFFE
/* Most generic arguments in one GENERICINST or METHODSPEC, and most generic
 * parameters a method signature may declare. */
#define CLRSIG_MAX_GENERIC_ARGS 1024
/* Highest ARRAY rank (the runtime's own limit is 32). Sizes and lower bounds
 * may number at most the rank. */
#define CLRSIG_MAX_RANK 32
/* Most enclosing types followed when a resolver names a nested type. */
#define CLRSIG_MAX_NESTING 32
/* Most TypeSpec tokens expanded inside one another while formatting
 * (a cycle is reported as CLRSIG_E_CYCLE before this is reached). */
#define CLRSIG_MAX_TYPESPEC_EXPANSION 8
/* Most TypeSpec expansions in one formatting call, all depths together
 * (each TypeSpec may name several: without it, nesting 8 deep could mean
 * millions); past it a TypeSpec reads as its token and the call reports
 * CLRSIG_E_COUNT. */
#define CLRSIG_MAX_TYPESPEC_EXPANSIONS 256
/* Longest name a resolver may return for one namespace or type name. */
#define CLRSIG_MAX_NAME 1024
/* Largest compressed unsigned integer (ECMA-335 II.23.2). */
#define CLRSIG_MAX_COMPRESSED 0x1FFFFFFFu
/* Largest row id a token may carry. */
#define CLRSIG_MAX_RID 0x00FFFFFFu

/* An arena of this size holds any signature that fits in a 4 KiB blob. */
#define CLRSIG_ARENA_SIZE_RECOMMENDED (64 * 1024)

/* ------------------------------------------------------------------ errors */

typedef enum clrsig_status {
    CLRSIG_OK = 0,
    CLRSIG_E_TRUNCATED,        /* the blob ends inside an item */
    CLRSIG_E_BAD_COMPRESSED,   /* compressed integer with a 111x first byte */
    CLRSIG_E_BAD_TOKEN_TAG,    /* TypeDefOrRefOrSpecEncoded tag 3 */
    CLRSIG_E_RID_OVERFLOW,     /* row id above CLRSIG_MAX_RID */
    CLRSIG_E_NIL_TOKEN,        /* row id 0 where a type is required */
    CLRSIG_E_BAD_ELEMENT,      /* element type not valid here */
    CLRSIG_E_BAD_CALLCONV,     /* calling convention byte not valid for the kind */
    CLRSIG_E_DEPTH,            /* nesting deeper than CLRSIG_MAX_DEPTH */
    CLRSIG_E_COUNT,            /* a count above its limit or above the bytes left */
    CLRSIG_E_RANK,             /* ARRAY rank 0 or above CLRSIG_MAX_RANK, or more
                                  sizes/lower bounds than the rank */
    CLRSIG_E_SENTINEL,         /* SENTINEL outside a VARARG call site, or twice */
    CLRSIG_E_TRAILING,         /* bytes left after a complete signature */
    CLRSIG_E_ARENA_FULL,       /* the caller's arena is too small */
    CLRSIG_E_OUTPUT_TRUNCATED, /* the text did not fit; the buffer holds a prefix */
    CLRSIG_E_CYCLE,            /* a TypeSpec refers back to itself */
    CLRSIG_E_RESOLVE,          /* the resolver failed for a token */
    CLRSIG_E_ARGUMENT,         /* a NULL or inconsistent argument */
    CLRSIG_E_OVERFLOW,         /* a value does not fit (integer to encode, bounds) */
    CLRSIG_STATUS_COUNT
} clrsig_status;

typedef struct clrsig_error {
    clrsig_status code;
    uint32_t offset; /* byte offset in the blob where decoding stopped */
} clrsig_error;

/* A short, constant English description of a status ("blob truncated", ...). */
CLRSIG_API const char *clrsig_strerror(clrsig_status code);

/* ----------------------------------------------------------------- version */

/* The version of the library running: CLRSIG_VERSION_NUMBER and
 * CLRSIG_VERSION_STRING as they were when it was built, to compare with those
 * a program was compiled with (a shared library may be newer or older). */
CLRSIG_API unsigned clrsig_version_number(void);
CLRSIG_API const char *clrsig_version_string(void);

/* ------------------------------------------------------ compressed integers */

/* Decodes an unsigned compressed integer (1, 2 or 4 bytes, big-endian) from
 * p[0..len). Checks the length before reading each form. On success stores
 * the value and the bytes used. Fails with TRUNCATED or BAD_COMPRESSED. */
CLRSIG_API clrsig_status clrsig_read_u(const uint8_t *p, size_t len, uint32_t *value,
                                       uint32_t *used);

/* Decodes a signed compressed integer (sign bit rotated into bit 0; the
 * result is sign-extended from 6, 13 or 28 bits). */
CLRSIG_API clrsig_status clrsig_read_s(const uint8_t *p, size_t len, int32_t *value,
                                       uint32_t *used);

/* Decodes a TypeDefOrRefOrSpecEncoded token into a full metadata token
 * (0x02xxxxxx TypeDef, 0x01xxxxxx TypeRef, 0x1Bxxxxxx TypeSpec). Tag 3 is
 * BAD_TOKEN_TAG; a row id above CLRSIG_MAX_RID is RID_OVERFLOW. */
CLRSIG_API clrsig_status clrsig_read_token(const uint8_t *p, size_t len, uint32_t *token,
                                           uint32_t *used);

/* Encoders, the inverse of the readers. Write at most 4 bytes into out[cap];
 * return OVERFLOW when the value has no encoding, TRUNCATED when cap is too
 * small. */
CLRSIG_API clrsig_status clrsig_write_u(uint32_t value, uint8_t *out, size_t cap, uint32_t *used);
CLRSIG_API clrsig_status clrsig_write_s(int32_t value, uint8_t *out, size_t cap, uint32_t *used);
CLRSIG_API clrsig_status clrsig_write_token(uint32_t token, uint8_t *out, size_t cap,
                                            uint32_t *used);

/* ------------------------------------------------------------------- arena */

typedef struct clrsig_arena {
    uint8_t *base;
    size_t cap;
    size_t used;
} clrsig_arena;

/* Uses mem[0..cap) for nodes. Nothing is freed individually; reset to reuse. */
CLRSIG_API void clrsig_arena_init(clrsig_arena *a, void *mem, size_t cap);
CLRSIG_API void clrsig_arena_reset(clrsig_arena *a);

/* ------------------------------------------------------------ element types */

enum {
    CLRSIG_ET_END = 0x00, CLRSIG_ET_VOID = 0x01, CLRSIG_ET_BOOLEAN = 0x02,
    CLRSIG_ET_CHAR = 0x03, CLRSIG_ET_I1 = 0x04, CLRSIG_ET_U1 = 0x05,
    CLRSIG_ET_I2 = 0x06, CLRSIG_ET_U2 = 0x07, CLRSIG_ET_I4 = 0x08,
    CLRSIG_ET_U4 = 0x09, CLRSIG_ET_I8 = 0x0A, CLRSIG_ET_U8 = 0x0B,
    CLRSIG_ET_R4 = 0x0C, CLRSIG_ET_R8 = 0x0D, CLRSIG_ET_STRING = 0x0E,
    CLRSIG_ET_PTR = 0x0F, CLRSIG_ET_BYREF = 0x10, CLRSIG_ET_VALUETYPE = 0x11,
    CLRSIG_ET_CLASS = 0x12, CLRSIG_ET_VAR = 0x13, CLRSIG_ET_ARRAY = 0x14,
    CLRSIG_ET_GENERICINST = 0x15, CLRSIG_ET_TYPEDBYREF = 0x16,
    CLRSIG_ET_I = 0x18, CLRSIG_ET_U = 0x19, CLRSIG_ET_FNPTR = 0x1B,
    CLRSIG_ET_OBJECT = 0x1C, CLRSIG_ET_SZARRAY = 0x1D, CLRSIG_ET_MVAR = 0x1E,
    CLRSIG_ET_CMOD_REQD = 0x1F, CLRSIG_ET_CMOD_OPT = 0x20,
    CLRSIG_ET_INTERNAL = 0x21,      /* runtime only: raw TypeHandle pointer */
    CLRSIG_ET_CMOD_INTERNAL = 0x22, /* runtime only: required byte + pointer */
    CLRSIG_ET_CANON = 0x3E,         /* runtime only: System.__Canon */
    CLRSIG_ET_SENTINEL = 0x41, CLRSIG_ET_PINNED = 0x45
};

/* Calling conventions (low nibble) and flags of the first byte. */
enum {
    CLRSIG_CC_DEFAULT = 0x0, CLRSIG_CC_C = 0x1, CLRSIG_CC_STDCALL = 0x2,
    CLRSIG_CC_THISCALL = 0x3, CLRSIG_CC_FASTCALL = 0x4, CLRSIG_CC_VARARG = 0x5,
    CLRSIG_CC_FIELD = 0x6, CLRSIG_CC_LOCAL_SIG = 0x7, CLRSIG_CC_PROPERTY = 0x8,
    CLRSIG_CC_UNMANAGED = 0x9, CLRSIG_CC_GENERICINST = 0xA,
    CLRSIG_CC_NATIVEVARARG = 0xB,
    CLRSIG_CC_MASK = 0x0F,
    CLRSIG_CC_GENERIC = 0x10, CLRSIG_CC_HASTHIS = 0x20, CLRSIG_CC_EXPLICITTHIS = 0x40
};

/* -------------------------------------------------------------- type tree */

typedef struct clrsig_type clrsig_type;
typedef struct clrsig_method clrsig_method;

/* kind is the element type byte (CLRSIG_ET_*). Which union member is valid:
 *   primitives, STRING, OBJECT, TYPEDBYREF, I, U, CANON, VOID: none
 *   CLASS, VALUETYPE:          token (TypeDef, TypeRef or TypeSpec token)
 *   VAR, MVAR:                 index
 *   PTR, BYREF, SZARRAY, PINNED, SENTINEL: elem
 *   ARRAY:                     array
 *   GENERICINST:               inst (generic is a CLASS or VALUETYPE node)
 *   FNPTR:                     fnptr
 *   CMOD_REQD, CMOD_OPT:       mod  (token names the modifier type)
 *   CMOD_INTERNAL:             mod  (handle holds the pointer; required flag)
 *   INTERNAL:                  handle
 * A modifier node wraps the type it modifies: `20 T 08` is
 * CMOD_OPT{token=T, elem=I4}. PINNED appears only in local signatures. */
struct clrsig_type {
    uint8_t kind;
    uint8_t required;  /* CMOD_INTERNAL: 1 for required, 0 for optional */
    uint16_t reserved;
    uint32_t offset;   /* offset of this type's first byte in the blob */
    union {
        uint32_t token;
        uint32_t index;
        const clrsig_type *elem;
        uint64_t handle;
        struct {
            const clrsig_type *elem;
            uint32_t rank, nsizes, nlobounds;
            const uint32_t *sizes;
            const int32_t *lobounds;
        } array;
        struct {
            const clrsig_type *generic;
            uint32_t argc;
            const clrsig_type *const *args;
        } inst;
        const clrsig_method *fnptr;
        struct {
            uint32_t token;   /* CMOD_REQD/CMOD_OPT */
            uint64_t handle;  /* CMOD_INTERNAL */
            const clrsig_type *elem;
        } mod;
    } u;
};

/* A method, property or function-pointer signature. */
struct clrsig_method {
    uint8_t callconv;         /* the raw first byte */
    uint32_t generic_count;   /* when callconv & CLRSIG_CC_GENERIC */
    uint32_t param_count;     /* all parameters, including those after SENTINEL */
    uint32_t sentinel;        /* index of the first vararg parameter, or UINT32_MAX */
    const clrsig_type *ret;   /* return type (property: the property type) */
    const clrsig_type *const *params;
};

/* Which blob a caller hands over; it decides the grammar used. */
typedef enum clrsig_kind {
    CLRSIG_KIND_METHOD,     /* MethodDefSig / MethodRefSig / StandAloneMethodSig */
    CLRSIG_KIND_FIELD,      /* FieldSig (0x06) */
    CLRSIG_KIND_PROPERTY,   /* PropertySig (0x08 | HASTHIS) */
    CLRSIG_KIND_LOCALS,     /* LocalVarSig (0x07) */
    CLRSIG_KIND_TYPESPEC,   /* TypeSpec blob: one type */
    CLRSIG_KIND_METHODSPEC, /* MethodSpec blob (0x0A) */
    CLRSIG_KIND_ANY         /* decide from the first byte (TYPESPEC if it is
                               not a calling convention) */
} clrsig_kind;

/* A parsed blob. For METHOD/PROPERTY: method. FIELD: field (the field type).
 * LOCALS: list/count (the locals). TYPESPEC: field (the type). METHODSPEC:
 * list/count (the generic arguments). */
typedef struct clrsig_sig {
    clrsig_kind kind;
    uint32_t length;            /* bytes consumed (== blob length on success) */
    clrsig_method method;
    const clrsig_type *field;
    uint32_t count;
    const clrsig_type *const *list;
} clrsig_sig;

/* Parsing modes. */
typedef struct clrsig_parse_opts {
    /* Accept what the runtime hands a profiler: INTERNAL (0x21) followed by a
     * raw pointer of pointer_size bytes, CANON (0x3E), CMOD_INTERNAL (0x22:
     * one byte "required" + pointer). pointer_size must then be 4 or 8. */
    int runtime_internal;
    uint32_t pointer_size;
    /* Accept trailing bytes after a complete signature (the runtime's own
     * parser ignores them; the default reports CLRSIG_E_TRAILING). */
    int allow_trailing;
} clrsig_parse_opts;

/* Parses blob[0..len) as `kind` into nodes allocated from `arena`.
 * opts may be NULL (strict ECMA-335). On failure the arena may hold partial
 * nodes (reset it) and err (if not NULL) holds the status and offset. */
CLRSIG_API clrsig_status clrsig_parse(const uint8_t *blob, size_t len, clrsig_kind kind,
                                      const clrsig_parse_opts *opts, clrsig_arena *arena,
                                      clrsig_sig *out, clrsig_error *err);

/* Parses one Type (II.23.2.12) starting at blob[0]; *used receives its length.
 * Trailing bytes are left for the caller. */
CLRSIG_API clrsig_status clrsig_parse_type(const uint8_t *blob, size_t len,
                                           const clrsig_parse_opts *opts, clrsig_arena *arena,
                                           const clrsig_type **out, uint32_t *used,
                                           clrsig_error *err);

/* Skips custom modifiers and PINNED wrappers: the type a value really has. */
CLRSIG_API const clrsig_type *clrsig_strip(const clrsig_type *t);

/* ---------------------------------------------------------------- resolver */

/* Answers the formatter's questions about tokens and generic parameters.
 * Every callback is optional (NULL means "cannot answer") and returns 0 on
 * success, non-zero when it cannot answer; the formatter then prints an
 * explicit placeholder (see docs/libclrsig.md). Strings are UTF-8 and copied
 * into the caller's buffers of `cap` bytes (at most CLRSIG_MAX_NAME). */
typedef struct clrsig_resolver {
    void *ctx;
    /* TypeDef or TypeRef token → namespace and name (name as in metadata,
     * with its `N arity suffix), the enclosing type's token for a nested type
     * (0 when not nested), and for a TypeRef its resolution scope's name (the
     * assembly or module, empty when unknown). */
    int (*type_name)(void *ctx, uint32_t token, char *ns, size_t ns_cap,
                     char *name, size_t name_cap, uint32_t *enclosing,
                     char *scope, size_t scope_cap);
    /* TypeSpec token → its blob (which must stay valid during the call). */
    int (*typespec)(void *ctx, uint32_t token, const uint8_t **blob, uint32_t *len);
    /* Generic parameter → either a name (written to name) or an actual type
     * (stored in *actual, which must stay valid during the call; it is
     * formatted as if it stood in place of the parameter). */
    int (*generic_param)(void *ctx, int is_method, uint32_t index, char *name,
                         size_t name_cap, const clrsig_type **actual);
    /* Runtime TypeHandle (ELEMENT_TYPE_INTERNAL) → a type name. */
    int (*handle_name)(void *ctx, uint64_t handle, char *name, size_t name_cap);
} clrsig_resolver;

/* --------------------------------------------------------------- formatting */

typedef enum clrsig_style {
    CLRSIG_STYLE_CSHARP, /* int Scale(Point p, double k) */
    CLRSIG_STYLE_ILDASM  /* int32 Scale(valuetype Demo.Point, float64) */
} clrsig_style;

/* Parameter attribute flags (Param row Flags, II.23.1.13) the formatter uses
 * to tell `ref` from `out` and `in`. */
enum { CLRSIG_PARAM_IN = 0x0001, CLRSIG_PARAM_OUT = 0x0002 };

typedef struct clrsig_format_opts {
    clrsig_style style;
    /* C# style: write types without their namespace (Point instead of
     * Demo.Point); nested types still show their enclosing type. */
    int short_names;
    /* Scratch arena for expanding TypeSpec tokens through the resolver; with
     * none, TypeSpec tokens print as placeholders. */
    clrsig_arena *scratch;
} clrsig_format_opts;

/* Optional names for a method signature: the declaring type (already
 * formatted text), the method's name, generic parameter names, parameter
 * names and flags (CLRSIG_PARAM_*), each array of param_count entries or NULL. */
typedef struct clrsig_method_names {
    const char *owner;
    const char *name;
    const char *const *generic_names;   /* generic_count entries or NULL */
    const char *const *param_names;     /* param_count entries or NULL */
    const uint16_t *param_flags;        /* param_count entries or NULL */
} clrsig_method_names;

/* Each formatter writes NUL-terminated text into out[0..cap). If the text
 * does not fit, the buffer holds the longest prefix that fits (cut at a UTF-8
 * boundary) and the result is CLRSIG_E_OUTPUT_TRUNCATED; *needed (optional)
 * receives the full length without the NUL either way. cap 0 writes nothing.
 * Resolver failures are not errors (placeholders are printed); TypeSpec cycles
 * and expansion depth are reported as CLRSIG_E_CYCLE / CLRSIG_E_DEPTH with the
 * text up to that point. */

/* One type. */
CLRSIG_API clrsig_status clrsig_format_type(const clrsig_type *t, const clrsig_format_opts *opts,
                                            const clrsig_resolver *r, char *out, size_t cap,
                                            size_t *needed, clrsig_error *err);

/* A method signature, with optional names. */
CLRSIG_API clrsig_status clrsig_format_method(const clrsig_method *m,
                                              const clrsig_method_names *names,
                                              const clrsig_format_opts *opts,
                                              const clrsig_resolver *r, char *out, size_t cap,
                                              size_t *needed, clrsig_error *err);

/* Any parsed blob in its canonical one-line form (docs/libclrsig.md). */
CLRSIG_API clrsig_status clrsig_format_sig(const clrsig_sig *s, const clrsig_format_opts *opts,
                                           const clrsig_resolver *r, char *out, size_t cap,
                                           size_t *needed, clrsig_error *err);

/* Formats the name of a TypeDef/TypeRef token as it appears in types:
 * namespace-qualified, nested types joined with '.', `N suffixes removed in
 * C# style. */
CLRSIG_API clrsig_status clrsig_format_token(uint32_t token, const clrsig_format_opts *opts,
                                             const clrsig_resolver *r, char *out, size_t cap,
                                             size_t *needed, clrsig_error *err);

#ifdef __cplusplus
}
#endif
#endif
