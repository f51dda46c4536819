/*
 * libclrmeta — an offline, hardened reader of .NET assembly metadata
 * (ECMA-335 Partition II.24–25: PE/COFF file, CLI header, metadata root,
 * streams, tables and heaps).
 *
 * This header is the library's manual; docs/libclrmeta.md explains the model
 * and the `clrtrace sigs` text format built on it.
 *
 * Three steps:
 *
 *   clrmeta md;
 *   clrmeta_error err;
 *   if (clrmeta_open(bytes, len, &md, &err) != CLRMETA_OK) {   // no allocation
 *       char msg[CLRMETA_MAX_MESSAGE];
 *       clrmeta_describe(&err, msg, sizeof msg);
 *       fprintf(stderr, "%s\n", msg);     // "bad PE header (e_lfanew ..., offset 0x3C)"
 *   }
 *   void *mem = malloc(clrmeta_index_size(&md));             // O(rows), optional
 *   clrmeta_build_index(&md, mem, clrmeta_index_size(&md), &err);
 *
 *   clrmeta_methoddef_row m;
 *   clrmeta_methoddef(&md, 1, &m, &err);   // m.name, m.sig.p / m.sig.len, ...
 *
 * Model. The caller owns the file bytes and keeps them alive (and unchanged)
 * as long as the clrmeta is used; every pointer the library hands out points
 * into them. clrmeta_open parses the headers and the table schema and never
 * allocates. The optional index (method → declaring type, type → enclosing
 * type, owner → generic parameters) lives in memory the caller passes to
 * clrmeta_build_index; functions marked [index] fail with CLRMETA_E_NO_INDEX
 * without it. Nothing is cached, so a clrmeta may be read from many threads.
 *
 * Error model: every fallible function returns a clrmeta_status (CLRMETA_OK
 * is 0) and, given a clrmeta_error*, fills it with the status, the file
 * offset where reading stopped (the first byte of the structure or table cell
 * that is wrong) and a short static name of that structure ("e_lfanew",
 * "#Strings", "TypeDef.Name"). Nothing aborts, nothing reads outside
 * [file, file+len), every offset, length, row id and heap index is checked
 * before it is used, and every walk along references is bounded.
 *
 * Tokens. References read from rows are full metadata tokens
 * (table << 24 | rid), decoded from simple and coded indexes. Their row ids
 * are not compared with the row counts when a row is read (a bad reference
 * does not make the row that holds it unreadable); every function that takes
 * a token or a row id checks it. A nil reference has rid 0. List columns
 * (TypeDef.FieldList, TypeDef.MethodList, MethodDef.ParamList, ...) are kept
 * as raw positions; use the clrmeta_list functions to follow them.
 */
#ifndef CLRMETA_CLRMETA_H
#define CLRMETA_CLRMETA_H

#include <stddef.h>
#include <stdint.h>

#include "clrsig/clrsig.h"

/* ------------------------------------------------------ version and exports */

/* The version of this header. It is clrtrace's version (the build fails to
 * configure when they differ); libclrmeta.so.MAJOR is the soname. */
#define CLRMETA_VERSION_MAJOR 0
#define CLRMETA_VERSION_MINOR 1
#define CLRMETA_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100), usable in #if. */
#define CLRMETA_VERSION_NUMBER \
    (CLRMETA_VERSION_MAJOR * 10000 + CLRMETA_VERSION_MINOR * 100 + CLRMETA_VERSION_PATCH)
/* "MAJOR.MINOR.PATCH" */
#define CLRMETA_VERSION_STRING \
    CLRMETA_VERSION_TEXT_(CLRMETA_VERSION_MAJOR) "." CLRMETA_VERSION_TEXT_(CLRMETA_VERSION_MINOR) \
    "." CLRMETA_VERSION_TEXT_(CLRMETA_VERSION_PATCH)
#define CLRMETA_VERSION_TEXT_(n) CLRMETA_VERSION_QUOTE_(n)
#define CLRMETA_VERSION_QUOTE_(n) #n

/* CLRMETA_API marks each function of the library: libclrmeta is built with all
 * other symbols hidden, so these are the only ones libclrmeta.so exports. With
 * GCC and clang it means default visibility. Define it before including this
 * header to choose otherwise, e.g. as `__attribute__((visibility("hidden")))`
 * when linking libclrmeta.a into a shared library that must not export it. */
#ifndef CLRMETA_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define CLRMETA_API __attribute__((visibility("default")))
#else
#define CLRMETA_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ limits */

/* Largest file accepted: PE offsets and RVAs are 32-bit. */
#define CLRMETA_MAX_FILE_SIZE 0xFFFFFFFFu
/* Most rows in one table (a token's row id has 24 bits). */
#define CLRMETA_MAX_ROWS 0x00FFFFFFu
/* Longest stream name, including its NUL (ECMA-335 II.24.2.2). */
#define CLRMETA_MAX_STREAM_NAME 32
/* Most enclosing types / TypeRef scopes followed in one walk. A longer chain
 * (or a cycle) is CLRMETA_E_CYCLE. Same bound as libclrsig's own walk. */
#define CLRMETA_MAX_NESTING CLRSIG_MAX_NESTING
/* Most columns in one table (Assembly and AssemblyRef have 9). */
#define CLRMETA_MAX_COLUMNS 9
/* A buffer of this size holds any clrmeta_describe text. */
#define CLRMETA_MAX_MESSAGE 160

/* ------------------------------------------------------------------ errors */

typedef enum clrmeta_status {
    CLRMETA_OK = 0,
    CLRMETA_E_ARGUMENT,        /* a NULL or inconsistent argument */
    CLRMETA_E_TRUNCATED,       /* the file ends inside a header */
    CLRMETA_E_NOT_PE,          /* no "MZ" at offset 0 */
    CLRMETA_E_BAD_PE,          /* e_lfanew, PE signature, optional header magic */
    CLRMETA_E_NOT_CLI,         /* a PE file without a CLI header (not .NET) */
    CLRMETA_E_BAD_RVA,         /* an RVA range outside every section's file data */
    CLRMETA_E_BAD_CLI_HEADER,  /* CLI header too small or metadata directory empty */
    CLRMETA_E_BAD_METADATA,    /* no "BSJB", or the root header does not fit */
    CLRMETA_E_BAD_STREAM,      /* a stream header is cut, unterminated or out of range */
    CLRMETA_E_NO_TABLES,       /* no #~ or #- stream */
    CLRMETA_E_BAD_TABLES,      /* table stream header, unknown table, too many rows,
                                  tables larger than the stream */
    CLRMETA_E_BAD_INDEX,       /* a row id, table or column out of range */
    CLRMETA_E_BAD_CODED_INDEX, /* a coded index whose tag names no table */
    CLRMETA_E_BAD_STRING,      /* #Strings offset past the heap or no NUL before its end */
    CLRMETA_E_BAD_BLOB,        /* #Blob/#US offset past the heap, bad length prefix,
                                  or a blob running past the heap end */
    CLRMETA_E_BAD_GUID,        /* #GUID index past the heap */
    CLRMETA_E_CYCLE,           /* a nesting or scope chain loops or exceeds
                                  CLRMETA_MAX_NESTING */
    CLRMETA_E_NO_INDEX,        /* an [index] function called before clrmeta_build_index */
    CLRMETA_E_MEMORY,          /* the caller's index memory is too small */
    CLRMETA_E_LIMIT,           /* the file is larger than CLRMETA_MAX_FILE_SIZE */
    CLRMETA_STATUS_COUNT
} clrmeta_status;

typedef struct clrmeta_error {
    clrmeta_status code;
    uint32_t offset;   /* file offset where reading stopped */
    const char *what;  /* static name of the structure or cell; never NULL after a failure */
} clrmeta_error;

/* A short, constant English description of a status ("bad PE header", ...). */
CLRMETA_API const char *clrmeta_strerror(clrmeta_status code);

/* ----------------------------------------------------------------- version */

/* The version of the library running: CLRMETA_VERSION_NUMBER and
 * CLRMETA_VERSION_STRING as they were when it was built, to compare with those
 * a program was compiled with (a shared library may be newer or older). */
CLRMETA_API unsigned clrmeta_version_number(void);
CLRMETA_API const char *clrmeta_version_string(void);

/* One line: "<strerror> (<what>, offset 0x<hex>)", e.g. "bad PE header
 * (e_lfanew past the end of the file, offset 0x3C)", without a newline, cut to
 * fit out[cap] (CLRMETA_MAX_MESSAGE always suffices). Returns the length
 * written. */
CLRMETA_API size_t clrmeta_describe(const clrmeta_error *err, char *out, size_t cap);

/* ------------------------------------------------------------------ tables */

typedef enum clrmeta_table {
    CLRMETA_T_MODULE = 0x00, CLRMETA_T_TYPEREF = 0x01, CLRMETA_T_TYPEDEF = 0x02,
    CLRMETA_T_FIELDPTR = 0x03, CLRMETA_T_FIELD = 0x04, CLRMETA_T_METHODPTR = 0x05,
    CLRMETA_T_METHODDEF = 0x06, CLRMETA_T_PARAMPTR = 0x07, CLRMETA_T_PARAM = 0x08,
    CLRMETA_T_INTERFACEIMPL = 0x09, CLRMETA_T_MEMBERREF = 0x0A, CLRMETA_T_CONSTANT = 0x0B,
    CLRMETA_T_CUSTOMATTRIBUTE = 0x0C, CLRMETA_T_FIELDMARSHAL = 0x0D,
    CLRMETA_T_DECLSECURITY = 0x0E, CLRMETA_T_CLASSLAYOUT = 0x0F, CLRMETA_T_FIELDLAYOUT = 0x10,
    CLRMETA_T_STANDALONESIG = 0x11, CLRMETA_T_EVENTMAP = 0x12, CLRMETA_T_EVENTPTR = 0x13,
    CLRMETA_T_EVENT = 0x14, CLRMETA_T_PROPERTYMAP = 0x15, CLRMETA_T_PROPERTYPTR = 0x16,
    CLRMETA_T_PROPERTY = 0x17, CLRMETA_T_METHODSEMANTICS = 0x18, CLRMETA_T_METHODIMPL = 0x19,
    CLRMETA_T_MODULEREF = 0x1A, CLRMETA_T_TYPESPEC = 0x1B, CLRMETA_T_IMPLMAP = 0x1C,
    CLRMETA_T_FIELDRVA = 0x1D, CLRMETA_T_ENCLOG = 0x1E, CLRMETA_T_ENCMAP = 0x1F,
    CLRMETA_T_ASSEMBLY = 0x20, CLRMETA_T_ASSEMBLYPROCESSOR = 0x21, CLRMETA_T_ASSEMBLYOS = 0x22,
    CLRMETA_T_ASSEMBLYREF = 0x23, CLRMETA_T_ASSEMBLYREFPROCESSOR = 0x24,
    CLRMETA_T_ASSEMBLYREFOS = 0x25, CLRMETA_T_FILE = 0x26, CLRMETA_T_EXPORTEDTYPE = 0x27,
    CLRMETA_T_MANIFESTRESOURCE = 0x28, CLRMETA_T_NESTEDCLASS = 0x29,
    CLRMETA_T_GENERICPARAM = 0x2A, CLRMETA_T_METHODSPEC = 0x2B,
    CLRMETA_T_GENERICPARAMCONSTRAINT = 0x2C,
    CLRMETA_TABLE_COUNT = 0x2D
} clrmeta_table;

/* A full metadata token and its parts. */
#define CLRMETA_TOKEN(table, rid) (((uint32_t)(table) << 24) | ((uint32_t)(rid) & 0x00FFFFFFu))
#define CLRMETA_TOKEN_TABLE(token) ((uint32_t)(token) >> 24)
#define CLRMETA_TOKEN_RID(token) ((uint32_t)(token) & 0x00FFFFFFu)

/* Where one table lives and how its rows are laid out (filled by clrmeta_open
 * for all 45 tables, present or not). */
typedef struct clrmeta_table_info {
    uint32_t rows;
    uint32_t row_size;
    uint32_t offset;                          /* file offset of row 1 */
    uint8_t ncols;
    uint8_t col_offset[CLRMETA_MAX_COLUMNS];  /* byte offset of each column in a row */
    uint8_t col_width[CLRMETA_MAX_COLUMNS];   /* 1, 2 or 4 */
} clrmeta_table_info;

/* A heap or stream: its bytes in the file (p is NULL and size 0 when absent). */
typedef struct clrmeta_heap {
    const uint8_t *p;
    uint32_t size;
    uint32_t offset; /* file offset */
} clrmeta_heap;

/* An opened assembly. Every field is filled by clrmeta_open and read-only
 * afterwards (the index fields by clrmeta_build_index). */
typedef struct clrmeta {
    const uint8_t *file;
    uint32_t size;

    /* PE */
    int pe32plus;                 /* optional header magic 0x20B */
    uint16_t machine;
    uint16_t nsections;
    uint32_t sections_offset;     /* file offset of the section table */

    /* CLI header */
    uint32_t cli_offset;
    uint16_t runtime_major, runtime_minor;
    uint32_t cli_flags;
    uint32_t entry_point;         /* token or RVA, as stored */
    uint32_t metadata_offset, metadata_size;

    /* metadata root */
    uint16_t md_major, md_minor;
    const char *version;          /* NOT NUL-terminated: version_len bytes */
    uint32_t version_len;
    uint16_t md_flags;

    /* streams */
    clrmeta_heap tables_stream, strings, us, blob, guid;
    int uncompressed;             /* the table stream is #- */
    int minimal_delta;            /* a #JTD stream: every index is 4 bytes */

    /* table stream header */
    uint8_t tables_major, tables_minor, heap_sizes;
    uint64_t valid, sorted;
    uint8_t string_width, guid_width, blob_width;
    clrmeta_table_info tables[CLRMETA_TABLE_COUNT];

    /* index (clrmeta_build_index); NULL until built */
    const uint32_t *method_owner;  /* [MethodDef rows + 1]: TypeDef rid or 0 */
    const uint32_t *enclosing;     /* [TypeDef rows + 1]: TypeDef rid or 0 */
    const uint32_t *gp_start;      /* [TypeDef rows + MethodDef rows + 2] */
    const uint32_t *gp_rows;       /* [GenericParam rows]: rids grouped by owner */
} clrmeta;

/* Parses file[0..len): DOS header, e_lfanew, PE signature, COFF header,
 * optional header (PE32 or PE32+), data directory 14, section table, CLI
 * header, metadata root, stream headers, the table stream header and the
 * column layout of all tables. Allocates nothing; the bytes must outlive md.
 * Fails with TRUNCATED, NOT_PE, BAD_PE, NOT_CLI, BAD_RVA, BAD_CLI_HEADER,
 * BAD_METADATA, BAD_STREAM, NO_TABLES, BAD_TABLES or LIMIT. */
CLRMETA_API clrmeta_status clrmeta_open(const uint8_t *file, size_t len, clrmeta *md,
                                        clrmeta_error *err);

/* Maps [rva, rva+size) to a file offset: the range must lie inside one
 * section's raw data (SizeOfRawData) and inside the file. BAD_RVA otherwise. */
CLRMETA_API clrmeta_status clrmeta_rva_to_offset(const clrmeta *md, uint32_t rva, uint32_t size,
                                                 uint32_t *offset, clrmeta_error *err);

/* Rows in table t (0 for an absent or unknown table). */
CLRMETA_API uint32_t clrmeta_rows(const clrmeta *md, clrmeta_table t);

/* "TypeDef", "MethodDef", ... ("?" for an unknown table). */
CLRMETA_API const char *clrmeta_table_name(clrmeta_table t);
/* "TypeDef.Name", ... (NULL for an unknown table or column). */
CLRMETA_API const char *clrmeta_column_name(clrmeta_table t, unsigned col);

/* ------------------------------------------------------------------ heaps */

typedef struct clrmeta_blob {
    const uint8_t *p;
    uint32_t len;
} clrmeta_blob;

/* #Strings[offset]: a NUL-terminated UTF-8 string that ends inside the heap.
 * Offset 0 is "" (even without a heap). BAD_STRING otherwise. */
CLRMETA_API clrmeta_status clrmeta_string(const clrmeta *md, uint32_t offset, const char **out,
                                          clrmeta_error *err);
/* #Blob[offset]: compressed length, then the bytes, all inside the heap.
 * Offset 0 is the empty blob. BAD_BLOB otherwise. */
CLRMETA_API clrmeta_status clrmeta_blob_at(const clrmeta *md, uint32_t offset, clrmeta_blob *out,
                                           clrmeta_error *err);
/* #US[offset]: like a blob (UTF-16LE characters then one flag byte when the
 * length is odd; the bytes are returned as stored). */
CLRMETA_API clrmeta_status clrmeta_userstring(const clrmeta *md, uint32_t offset, clrmeta_blob *out,
                                              clrmeta_error *err);
/* #GUID[index], 1-based: 16 bytes. Index 0 gives NULL. BAD_GUID otherwise. */
CLRMETA_API clrmeta_status clrmeta_guid(const clrmeta *md, uint32_t index, const uint8_t **out,
                                        clrmeta_error *err);

/* ------------------------------------------------------------- raw cells */

/* The raw value of one cell: a constant, a heap offset, a simple index (rid),
 * or a coded index (tag in the low bits), widened to 32 bits. BAD_INDEX for
 * an unknown table, a rid outside 1..rows or a column past the table's. */
CLRMETA_API clrmeta_status clrmeta_cell(const clrmeta *md, clrmeta_table t, uint32_t rid,
                                        unsigned col, uint32_t *value, clrmeta_error *err);

/* Coded index kinds (II.24.2.6) and decoding into a token. */
typedef enum clrmeta_coded {
    CLRMETA_CI_TYPEDEFORREF, CLRMETA_CI_HASCONSTANT, CLRMETA_CI_HASCUSTOMATTRIBUTE,
    CLRMETA_CI_HASFIELDMARSHAL, CLRMETA_CI_HASDECLSECURITY, CLRMETA_CI_MEMBERREFPARENT,
    CLRMETA_CI_HASSEMANTICS, CLRMETA_CI_METHODDEFORREF, CLRMETA_CI_MEMBERFORWARDED,
    CLRMETA_CI_IMPLEMENTATION, CLRMETA_CI_CUSTOMATTRIBUTETYPE, CLRMETA_CI_RESOLUTIONSCOPE,
    CLRMETA_CI_TYPEORMETHODDEF,
    CLRMETA_CI_COUNT
} clrmeta_coded;

/* Decodes a raw coded index value into a token; BAD_CODED_INDEX when the tag
 * names no table (offset 0, what = the coded index kind). */
CLRMETA_API clrmeta_status clrmeta_decode_coded(clrmeta_coded kind, uint32_t value, uint32_t *token,
                                                clrmeta_error *err);

/* ------------------------------------------------------------- typed rows */

/* Each reader checks 1 <= rid <= rows (BAD_INDEX), resolves its strings,
 * blobs and GUIDs (BAD_STRING / BAD_BLOB / BAD_GUID, offset = the cell) and
 * decodes its references into tokens (BAD_CODED_INDEX). */

typedef struct clrmeta_module_row {
    uint16_t generation;
    const char *name;
    const uint8_t *mvid, *enc_id, *enc_base_id; /* 16 bytes each, or NULL */
} clrmeta_module_row;

typedef struct clrmeta_typeref_row {
    uint32_t scope;    /* Module, ModuleRef, AssemblyRef or TypeRef (nested) token; rid 0: none */
    const char *name, *ns;
} clrmeta_typeref_row;

typedef struct clrmeta_typedef_row {
    uint32_t flags;
    const char *name, *ns;
    uint32_t extends;      /* TypeDef, TypeRef or TypeSpec token; rid 0: none */
    uint32_t field_list;   /* raw list positions */
    uint32_t method_list;
} clrmeta_typedef_row;

typedef struct clrmeta_field_row {
    uint16_t flags;
    const char *name;
    clrmeta_blob sig;
} clrmeta_field_row;

typedef struct clrmeta_methoddef_row {
    uint32_t rva;
    uint16_t impl_flags, flags;
    const char *name;
    clrmeta_blob sig;
    uint32_t param_list;   /* raw list position */
} clrmeta_methoddef_row;

typedef struct clrmeta_param_row {
    uint16_t flags;        /* CLRSIG_PARAM_IN / CLRSIG_PARAM_OUT and others (II.23.1.13) */
    uint16_t sequence;     /* 0: the return value, 1..n: parameters */
    const char *name;
} clrmeta_param_row;

typedef struct clrmeta_memberref_row {
    uint32_t parent;       /* TypeDef, TypeRef, ModuleRef, MethodDef or TypeSpec token */
    const char *name;
    clrmeta_blob sig;
} clrmeta_memberref_row;

typedef struct clrmeta_constant_row {
    uint8_t type;          /* element type */
    uint32_t parent;       /* Field, Param or Property token */
    clrmeta_blob value;
} clrmeta_constant_row;

typedef struct clrmeta_customattribute_row {
    uint32_t parent;       /* any HasCustomAttribute token */
    uint32_t type;         /* MethodDef or MemberRef token (the constructor) */
    clrmeta_blob value;
} clrmeta_customattribute_row;

typedef struct clrmeta_classlayout_row {
    uint16_t packing_size;
    uint32_t class_size;
    uint32_t parent;       /* TypeDef token */
} clrmeta_classlayout_row;

typedef struct clrmeta_standalonesig_row {
    clrmeta_blob sig;
} clrmeta_standalonesig_row;

typedef struct clrmeta_moduleref_row {
    const char *name;
} clrmeta_moduleref_row;

typedef struct clrmeta_typespec_row {
    clrmeta_blob sig;
} clrmeta_typespec_row;

typedef struct clrmeta_nestedclass_row {
    uint32_t nested, enclosing; /* TypeDef tokens */
} clrmeta_nestedclass_row;

typedef struct clrmeta_genericparam_row {
    uint16_t number, flags;
    uint32_t owner;        /* TypeDef or MethodDef token */
    const char *name;
} clrmeta_genericparam_row;

typedef struct clrmeta_methodspec_row {
    uint32_t method;       /* MethodDef or MemberRef token */
    clrmeta_blob instantiation;
} clrmeta_methodspec_row;

typedef struct clrmeta_genericparamconstraint_row {
    uint32_t owner;        /* GenericParam token */
    uint32_t constraint;   /* TypeDef, TypeRef or TypeSpec token */
} clrmeta_genericparamconstraint_row;

typedef struct clrmeta_assembly_row {
    uint32_t hash_alg;
    uint16_t major, minor, build, revision;
    uint32_t flags;
    clrmeta_blob public_key;
    const char *name, *culture;
} clrmeta_assembly_row;

typedef struct clrmeta_assemblyref_row {
    uint16_t major, minor, build, revision;
    uint32_t flags;
    clrmeta_blob public_key_or_token;
    const char *name, *culture;
    clrmeta_blob hash_value;
} clrmeta_assemblyref_row;

CLRMETA_API clrmeta_status clrmeta_module(const clrmeta *md, uint32_t rid, clrmeta_module_row *out,
                                          clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_typeref(const clrmeta *md, uint32_t rid,
                                           clrmeta_typeref_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_typedef(const clrmeta *md, uint32_t rid,
                                           clrmeta_typedef_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_field(const clrmeta *md, uint32_t rid, clrmeta_field_row *out,
                                         clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_methoddef(const clrmeta *md, uint32_t rid,
                                             clrmeta_methoddef_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_param(const clrmeta *md, uint32_t rid, clrmeta_param_row *out,
                                         clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_memberref(const clrmeta *md, uint32_t rid,
                                             clrmeta_memberref_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_constant(const clrmeta *md, uint32_t rid,
                                            clrmeta_constant_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_customattribute(const clrmeta *md, uint32_t rid,
                                                   clrmeta_customattribute_row *out,
                                                   clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_classlayout(const clrmeta *md, uint32_t rid,
                                               clrmeta_classlayout_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_standalonesig(const clrmeta *md, uint32_t rid,
                                                 clrmeta_standalonesig_row *out,
                                                 clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_moduleref(const clrmeta *md, uint32_t rid,
                                             clrmeta_moduleref_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_typespec(const clrmeta *md, uint32_t rid,
                                            clrmeta_typespec_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_nestedclass(const clrmeta *md, uint32_t rid,
                                               clrmeta_nestedclass_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_genericparam(const clrmeta *md, uint32_t rid,
                                                clrmeta_genericparam_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_methodspec(const clrmeta *md, uint32_t rid,
                                              clrmeta_methodspec_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_genericparamconstraint(const clrmeta *md, uint32_t rid,
                                                          clrmeta_genericparamconstraint_row *out,
                                                          clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_assembly(const clrmeta *md, uint32_t rid,
                                            clrmeta_assembly_row *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_assemblyref(const clrmeta *md, uint32_t rid,
                                               clrmeta_assemblyref_row *out, clrmeta_error *err);

/* ------------------------------------------------------------------ lists */

/* A run of rows owned by one parent: a TypeDef's fields or methods, a
 * method's params, an owner's generic parameters. Entries are read through
 * the pointer table (FieldPtr, MethodPtr, ParamPtr) when it has rows, and
 * through the index for generic parameters. */
typedef struct clrmeta_list {
    uint8_t table;      /* the table the rids belong to */
    uint8_t via;        /* 0 direct, else the pointer table (or 0xFF: index) */
    uint32_t start;     /* first position */
    uint32_t count;
    const uint32_t *perm; /* via 0xFF: rids */
} clrmeta_list;

/* The i-th rid of a list (0 <= i < count), or 0 when a pointer table entry
 * is out of range. */
CLRMETA_API uint32_t clrmeta_list_rid(const clrmeta *md, const clrmeta_list *l, uint32_t i);

/* A list runs from the parent's list column to the next row's (or to the end
 * of the table for the last row). Positions are clamped to the table (or
 * pointer table) and a run whose end precedes its start is empty. */
CLRMETA_API clrmeta_status clrmeta_type_fields(const clrmeta *md, uint32_t typedef_rid,
                                               clrmeta_list *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_type_methods(const clrmeta *md, uint32_t typedef_rid,
                                                clrmeta_list *out, clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_method_params(const clrmeta *md, uint32_t method_rid,
                                                 clrmeta_list *out, clrmeta_error *err);

/* ------------------------------------------------------------------ index */

/* Bytes clrmeta_build_index needs: 4 * (2 * TypeDef rows + 2 * MethodDef rows
 * + GenericParam rows + 4) + 3 (alignment slack). Row counts are bounded by
 * the table stream, so this is O(file size). */
CLRMETA_API size_t clrmeta_index_size(const clrmeta *md);

/* Builds, in mem[0..cap) (any alignment), in O(rows):
 *  - method → declaring TypeDef, from the TypeDef.MethodList runs. A run that
 *    starts before the previous type's run ends is cut to start there, so a
 *    method belongs to at most one type (the first whose run holds it);
 *  - TypeDef → enclosing TypeDef, from NestedClass (the first row naming a
 *    type wins; rows with a rid out of range are skipped);
 *  - TypeDef/MethodDef → its GenericParam rows, in table order (rows whose
 *    owner is out of range are skipped).
 * Reads no strings and fails only with ARGUMENT, or MEMORY when cap <
 * clrmeta_index_size(md); rows whose references are bad are skipped. */
CLRMETA_API clrmeta_status clrmeta_build_index(clrmeta *md, void *mem, size_t cap,
                                               clrmeta_error *err);

/* [index] The TypeDef that declares a method (0 when none does). */
CLRMETA_API clrmeta_status clrmeta_method_owner(const clrmeta *md, uint32_t method_rid,
                                                uint32_t *typedef_rid, clrmeta_error *err);
/* [index] The enclosing TypeDef of a nested type (0 when not nested). */
CLRMETA_API clrmeta_status clrmeta_enclosing(const clrmeta *md, uint32_t typedef_rid,
                                             uint32_t *enclosing_rid, clrmeta_error *err);
/* [index] The GenericParam rows owned by a TypeDef or MethodDef token. */
CLRMETA_API clrmeta_status clrmeta_generic_params(const clrmeta *md, uint32_t owner,
                                                  clrmeta_list *out, clrmeta_error *err);
/* [index] The name of the first GenericParam of owner whose Number is
 * `number` (BAD_INDEX when there is none). */
CLRMETA_API clrmeta_status clrmeta_generic_param_name(const clrmeta *md, uint32_t owner,
                                                      uint32_t number, const char **name,
                                                      clrmeta_error *err);

/* Follows a TypeRef's ResolutionScope through enclosing TypeRefs (at most
 * CLRMETA_MAX_NESTING, else CYCLE) to the outermost one's scope: a Module,
 * ModuleRef or AssemblyRef token, or rid 0 when it has none. */
CLRMETA_API clrmeta_status clrmeta_typeref_root_scope(const clrmeta *md, uint32_t typeref_rid,
                                                      uint32_t *scope, clrmeta_error *err);

/* A TypeDef or TypeRef token's namespace and name (pointers into #Strings)
 * and the token of the type that encloses it (TypeDef: [index] from
 * NestedClass; TypeRef: its scope when that is a TypeRef), 0 when none. */
CLRMETA_API clrmeta_status clrmeta_type_name(const clrmeta *md, uint32_t token, const char **ns,
                                             const char **name, uint32_t *enclosing,
                                             clrmeta_error *err);

/* --------------------------------------------------------------- resolver */

/* The state behind a clrsig_resolver. type_rid and method_rid give the
 * generic context: !n names the n-th GenericParam of TypeDef type_rid, !!n of
 * MethodDef method_rid (0: no context; the formatter then prints !n / !!n).
 * The caller may change them between format calls. */
typedef struct clrmeta_sig_context {
    const clrmeta *md;
    uint32_t type_rid;
    uint32_t method_rid;
    /* Private: the last type named (the formatter asks for each name twice). */
    struct {
        uint32_t token, enclosing;
        const char *ns, *name, *scope_prefix, *scope;
        size_t ns_len, name_len, scope_len;
    } last;
} clrmeta_sig_context;

/* [index] Fills r with callbacks over md:
 *  - type_name: TypeDef/TypeRef → namespace, name, enclosing token; a
 *    TypeRef's scope is its AssemblyRef's name, ".module NAME" for a
 *    ModuleRef, "" for the module itself or none. Fails (the formatter prints
 *    a placeholder) for a bad token or a name of CLRSIG_MAX_NAME bytes or more.
 *  - typespec: TypeSpec token → its blob.
 *  - generic_param: a name from the context (see clrmeta_generic_param_name).
 * ctx must outlive r; use one context per thread. */
CLRMETA_API clrmeta_status clrmeta_resolver_init(clrsig_resolver *r, clrmeta_sig_context *ctx,
                                                 const clrmeta *md, clrmeta_error *err);

#ifdef __cplusplus
}
#endif
#endif
