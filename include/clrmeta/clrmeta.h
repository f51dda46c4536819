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

/* The version of this header: clrtrace's, the VERSION of project() in
 * CMakeLists.txt, through the generated clrmeta_version.h (CLRMETA_VERSION_MAJOR,
 * _MINOR, _PATCH); libclrmeta.so.MAJOR is the soname. */
#include "clrmeta/clrmeta_version.h"
/* MAJOR * 10000 + MINOR * 100 + PATCH (0.2.0 is 200), usable in #if. */
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
    CLRMETA_E_LIMIT,           /* the file is larger than CLRMETA_MAX_FILE_SIZE (or a
                                  PDB limit below is passed) */
    CLRMETA_E_BAD_DEBUG,       /* the debug directory or one of its entries is cut or wrong */
    CLRMETA_E_NO_PDB,          /* no Portable PDB: no CodeView entry of one, no embedded one,
                                  or no file where the entry says */
    CLRMETA_E_BAD_PDB,         /* a #Pdb stream, debug table or debug blob is wrong */
    CLRMETA_E_INFLATE,         /* an embedded PDB does not inflate to its stated size */
    CLRMETA_E_PDB_MISMATCH,    /* the PDB's id is not the one the assembly names */
    CLRMETA_E_IO,              /* a file could not be read (clrmeta_pdb_load) */
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
    uint32_t debug_rva, debug_size; /* data directory 6 (Debug); 0 when absent */

    /* metadata root */
    uint16_t md_major, md_minor;
    const char *version;          /* NOT NUL-terminated: version_len bytes */
    uint32_t version_len;
    uint16_t md_flags;

    /* streams */
    clrmeta_heap tables_stream, strings, us, blob, guid;
    clrmeta_heap pdb;             /* #Pdb: only in a Portable PDB (clrmeta_pdb_open) */
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

/* ------------------------------------------------------------ Portable PDB */

/* A Portable PDB (the debug information every .NET build writes: a .pdb file
 * beside the assembly, or embedded in it, deflate-compressed) is metadata of
 * its own: a metadata root with a #Pdb stream and eight debug tables
 * (Document .. CustomDebugInformation, tables 0x30-0x37), whose references
 * into the assembly's tables (MethodDef rids) are sized by the row counts the
 * #Pdb stream copies. The format is specified in dotnet/runtime's
 * docs/design/specs/PortablePdb-Metadata.md; docs/libclrmeta.md has the model.
 *
 *   clrmeta_debug_dir dd;                          // the assembly's debug directory
 *   clrmeta_debug_directory(&md, &dd, &err);
 *   // dd.has_embedded: clrmeta_pdb_inflate into dd.embedded_inflated bytes;
 *   // else dd.pdb_path names the file; read it.
 *   clrmeta_pdb pdb;
 *   clrmeta_pdb_open(bytes, len, &pdb, &err);      // no allocation
 *   if (!clrmeta_pdb_matches(&pdb, &dd)) ...       // not this build's PDB
 *   clrmeta_sequence_point sp;
 *   clrmeta_pdb_method_line(&pdb, method_rid, &sp, &err);  // sp.start_line
 *
 * clrmeta_pdb_load does all of that from an assembly's path (it reads files
 * and allocates; clrmeta_pdb_free releases it). Everything else follows the
 * rules above: bounded, checked, errors with the offset in the PDB's bytes. */

/* The PDB id: the GUID of the CodeView entry, then its entry's time stamp. */
#define CLRMETA_PDB_ID_SIZE 20
/* Largest embedded PDB accepted (its stated inflated size): LIMIT above. */
#define CLRMETA_MAX_EMBEDDED_PDB (512u * 1024 * 1024)
/* Most debug directory entries read (28 bytes each); more: BAD_DEBUG. */
#define CLRMETA_MAX_DEBUG_ENTRIES 64
/* Longest document name (its parts joined, with the NUL); longer: LIMIT. */
#define CLRMETA_MAX_DOCUMENT_NAME 4096
/* Most parts in one document name blob; more: BAD_PDB. */
#define CLRMETA_MAX_DOCUMENT_PARTS 1024
/* Largest PDB file clrmeta_pdb_load reads. */
#define CLRMETA_MAX_PDB_FILE (512u * 1024 * 1024)

/* The debug tables of a Portable PDB. */
typedef enum clrmeta_pdb_table {
    CLRMETA_PDB_DOCUMENT = 0x30,
    CLRMETA_PDB_METHODDEBUGINFORMATION = 0x31,
    CLRMETA_PDB_LOCALSCOPE = 0x32,
    CLRMETA_PDB_LOCALVARIABLE = 0x33,
    CLRMETA_PDB_LOCALCONSTANT = 0x34,
    CLRMETA_PDB_IMPORTSCOPE = 0x35,
    CLRMETA_PDB_STATEMACHINEMETHOD = 0x36,
    CLRMETA_PDB_CUSTOMDEBUGINFORMATION = 0x37
} clrmeta_pdb_table;
#define CLRMETA_PDB_FIRST_TABLE 0x30
#define CLRMETA_PDB_TABLE_COUNT 8

/* What an assembly's debug directory (PE data directory 6) says of its PDB. */
typedef struct clrmeta_debug_dir {
    int has_codeview;          /* a CodeView entry of a Portable PDB (minor version 0x504D) */
    uint8_t pdb_id[CLRMETA_PDB_ID_SIZE]; /* its GUID and its entry's TimeDateStamp */
    uint32_t age;
    const char *pdb_path;      /* the path the compiler wrote, NUL-terminated in the file */
    int has_embedded;          /* an EmbeddedPortablePdb entry (type 17) */
    uint32_t embedded_offset;  /* file offset of its deflate data (after "MPDB" and the size) */
    uint32_t embedded_size;    /* bytes of deflate data */
    uint32_t embedded_inflated; /* the size it inflates to, as stated */
    int deterministic;         /* a Reproducible entry (type 16) */
} clrmeta_debug_dir;

/* Reads md's debug directory. An assembly without one gives OK with nothing
 * set. BAD_DEBUG for a directory or entry outside the file, a CodeView entry
 * without "RSDS" or without a NUL-terminated path, an embedded entry without
 * "MPDB"; LIMIT for an embedded PDB above CLRMETA_MAX_EMBEDDED_PDB. */
CLRMETA_API clrmeta_status clrmeta_debug_directory(const clrmeta *md, clrmeta_debug_dir *out,
                                                   clrmeta_error *err);

/* Inflates the embedded PDB into out[0..cap) (cap >= dd->embedded_inflated):
 * raw deflate (zlib) that must give exactly embedded_inflated bytes, else
 * INFLATE (offset: the deflate data). MEMORY when cap is too small. */
CLRMETA_API clrmeta_status clrmeta_pdb_inflate(const clrmeta *md, const clrmeta_debug_dir *dd,
                                               uint8_t *out, size_t cap, clrmeta_error *err);

/* An opened Portable PDB. Filled by clrmeta_pdb_open, read-only afterwards. */
typedef struct clrmeta_pdb {
    clrmeta md;                /* its metadata root and heaps (md.file: the PDB's bytes) */
    uint8_t id[CLRMETA_PDB_ID_SIZE];
    uint32_t entry_point;      /* MethodDef token or 0 */
    uint64_t referenced;       /* bit t: the assembly's table t has a row count below */
    uint32_t ts_rows[64];      /* the assembly's row counts, by table (0 if not referenced) */
    clrmeta_table_info tables[CLRMETA_PDB_TABLE_COUNT]; /* [t - 0x30] */
} clrmeta_pdb;

/* Parses a Portable PDB's bytes: metadata root, streams, the #Pdb stream and
 * the debug tables' layout. Allocates nothing; the bytes must outlive pdb.
 * BAD_METADATA, BAD_STREAM, NO_TABLES, BAD_TABLES as clrmeta_open; BAD_PDB
 * for a missing or short #Pdb stream or a table stream naming any table but
 * the eight debug tables. */
CLRMETA_API clrmeta_status clrmeta_pdb_open(const uint8_t *bytes, size_t len, clrmeta_pdb *pdb,
                                            clrmeta_error *err);

/* 1 when pdb is the one dd names (its id equals dd->pdb_id), else 0. */
CLRMETA_API int clrmeta_pdb_matches(const clrmeta_pdb *pdb, const clrmeta_debug_dir *dd);

/* Rows in debug table t (0 for any other). */
CLRMETA_API uint32_t clrmeta_pdb_rows(const clrmeta_pdb *pdb, clrmeta_pdb_table t);

typedef struct clrmeta_document_row {
    clrmeta_blob name;                 /* the name blob (clrmeta_pdb_document_name) */
    const uint8_t *hash_algorithm;     /* GUID (16 bytes) or NULL */
    clrmeta_blob hash;
    const uint8_t *language;           /* GUID or NULL */
} clrmeta_document_row;

CLRMETA_API clrmeta_status clrmeta_pdb_document(const clrmeta_pdb *pdb, uint32_t rid,
                                                clrmeta_document_row *out, clrmeta_error *err);
/* The document's path: its name blob's parts (each a #Blob of UTF-8) joined
 * by its separator, NUL-terminated in out[0..cap). *len (may be NULL) gets
 * the length without the NUL. LIMIT when longer than cap - 1 or
 * CLRMETA_MAX_DOCUMENT_NAME - 1 bytes. */
CLRMETA_API clrmeta_status clrmeta_pdb_document_name(const clrmeta_pdb *pdb, uint32_t rid,
                                                     char *out, size_t cap, size_t *len,
                                                     clrmeta_error *err);

/* The folder all the PDB's documents are in: the longest common prefix of
 * their absolute paths, cut after its last '/', into out[0..cap) with its
 * length in *len (0 and "" when they share none). Generated documents (a
 * path with an "/obj/" folder: AssemblyInfo.cs and the like) are left out
 * unless there are no others. O(documents). */
CLRMETA_API clrmeta_status clrmeta_pdb_source_root(const clrmeta_pdb *pdb, char *out, size_t cap,
                                                   size_t *len, clrmeta_error *err);

/* A sequence point: IL offset → source span. A hidden point (start_line
 * 0xFEEFEE, columns 0) marks code that belongs to no line. */
#define CLRMETA_HIDDEN_LINE 0xFEEFEEu
typedef struct clrmeta_sequence_point {
    uint32_t il_offset;
    uint32_t start_line, end_line;
    uint16_t start_column, end_column;
    uint32_t document;                 /* Document rid */
    int hidden;
} clrmeta_sequence_point;

/* A walk over one method's sequence points (MethodDebugInformation row =
 * the MethodDef's rid). Fill with clrmeta_pdb_sequence_points, then call
 * clrmeta_sp_next until it gives 0. */
typedef struct clrmeta_sp_iter {
    const clrmeta_pdb *pdb;
    clrmeta_blob blob;
    uint32_t blob_offset;              /* file offset of blob.p, for errors */
    uint32_t pos, document, local_sig, count;
    uint32_t prev_il, prev_line, prev_column;
    int any_visible;
} clrmeta_sp_iter;

/* BAD_INDEX when method_rid is past MethodDebugInformation (a method
 * without debug information has an empty blob: no points). */
CLRMETA_API clrmeta_status clrmeta_pdb_sequence_points(const clrmeta_pdb *pdb, uint32_t method_rid,
                                                       clrmeta_sp_iter *it, clrmeta_error *err);
/* 1: *sp is the next point; 0: no more; -1: the blob is wrong (err: BAD_PDB
 * at its offset: a bad compressed number, a zero IL delta, a line or column
 * out of range, a document rid past the table). */
CLRMETA_API int clrmeta_sp_next(clrmeta_sp_iter *it, clrmeta_sequence_point *sp,
                                clrmeta_error *err);

/* The method's first visible sequence point (its line): *found 0 when it has
 * none (no debug information, or only hidden points). */
CLRMETA_API clrmeta_status clrmeta_pdb_method_line(const clrmeta_pdb *pdb, uint32_t method_rid,
                                                   clrmeta_sequence_point *sp, int *found,
                                                   clrmeta_error *err);
/* The visible point in force at il_offset: the last visible one whose IL
 * offset is <= il_offset, when no hidden point comes between (*found 0
 * otherwise). */
CLRMETA_API clrmeta_status clrmeta_pdb_line_at(const clrmeta_pdb *pdb, uint32_t method_rid,
                                               uint32_t il_offset, clrmeta_sequence_point *sp,
                                               int *found, clrmeta_error *err);

/* Where a probe at a source line goes (clrmeta_pdb_find_line). */
typedef enum clrmeta_line_result {
    CLRMETA_LINE_FOUND,      /* method_rid, il_offset, line (maybe a later line) */
    CLRMETA_LINE_NO_FILE,    /* no document's path is the file or ends with /file */
    CLRMETA_LINE_AMBIGUOUS,  /* two documents do (document, other: their rids) */
    CLRMETA_LINE_NO_CODE,    /* the line is in no method (before, after: the nearest
                                lines with code around it, 0 when none) */
} clrmeta_line_result;

typedef struct clrmeta_line_match {
    clrmeta_line_result result;
    uint32_t document, other;  /* Document rids */
    uint32_t method_rid;       /* the method whose code the line is in (the innermost:
                                  a lambda's, not its enclosing method's) */
    uint32_t il_offset;        /* its first sequence point starting on the line, or
                                  (a line without one: blank, a brace, a comment inside
                                  the method) the first after it: as gdb places a
                                  breakpoint */
    uint32_t line;             /* that point's line */
    uint32_t before, after;    /* NO_CODE: lines with code around it */
} clrmeta_line_match;

/* Finds where line `line` of the source file `file` (a path, or its last
 * parts: "Orders.cs", "Shop/Orders.cs"; '\\' and '/' alike) has code: the
 * methods whose visible sequence points in that document span the line, the
 * innermost of them, its first point on the line or after it. O(sequence
 * points of the PDB). Errors: BAD_PDB as clrmeta_sp_next, LIMIT for a
 * document name over CLRMETA_MAX_DOCUMENT_NAME. */
CLRMETA_API clrmeta_status clrmeta_pdb_find_line(const clrmeta_pdb *pdb, const char *file,
                                                 uint32_t line, clrmeta_line_match *out,
                                                 clrmeta_error *err);
/* The same for a method named by its MethodDef rid (`--at Shop.Cart.Sum:30`):
 * line `line` of the document of its first visible sequence point (an async
 * method's or iterator's stub has none: its MoveNext's), FOUND only when the
 * code there is the method's own or its MoveNext's (a lambda inside it, or
 * another method of the file: NO_CODE, method_rid 0); NO_FILE when the
 * method has no lines. */
CLRMETA_API clrmeta_status clrmeta_pdb_find_line_in_method(const clrmeta_pdb *pdb,
                                                           uint32_t method_rid, uint32_t line,
                                                           clrmeta_line_match *out,
                                                           clrmeta_error *err);

typedef struct clrmeta_local_scope {
    uint32_t method;                   /* MethodDef rid */
    uint32_t import_scope;             /* ImportScope rid */
    uint32_t start_offset, length;     /* the IL range [start, start + length) */
    uint32_t first_variable, variable_count; /* LocalVariable rids */
    uint32_t first_constant, constant_count; /* LocalConstant rids */
} clrmeta_local_scope;

/* The LocalScope rows of a method: [*first, *first + *count), found by a
 * binary search of the table (sorted by method, as the format requires; in
 * a table that is not, some scopes may be missed, never read out of range). */
CLRMETA_API clrmeta_status clrmeta_pdb_local_scopes(const clrmeta_pdb *pdb, uint32_t method_rid,
                                                    uint32_t *first, uint32_t *count,
                                                    clrmeta_error *err);
/* One LocalScope row; its variables and constants run to the next row's list
 * positions (or to the table's end), clamped to the table. */
CLRMETA_API clrmeta_status clrmeta_pdb_local_scope(const clrmeta_pdb *pdb, uint32_t rid,
                                                   clrmeta_local_scope *out, clrmeta_error *err);

/* The local variables in scope at IL offset il_offset of a method: those of
 * its LocalScope rows whose range holds it (outer scopes first), compiler
 * temporaries (attributes bit 0, DebuggerHidden) left out: their LocalVariable
 * rids into rids[0..cap), how many there are in *n (more than cap: only cap
 * written). */
#define CLRMETA_LOCAL_DEBUGGER_HIDDEN 0x1
CLRMETA_API clrmeta_status clrmeta_pdb_locals_at(const clrmeta_pdb *pdb, uint32_t method_rid,
                                                 uint32_t il_offset, uint32_t *rids, uint32_t cap,
                                                 uint32_t *n, clrmeta_error *err);

/* An async method's or iterator's locals that live across an await or a
 * yield are fields of its state machine (C#: `<name>5__N`, N the slot plus
 * one). The MoveNext method's StateMachineHoistedLocalScopes custom debug
 * information gives each slot's IL range, (u32 start, u32 length) pairs; a
 * slot with both 0 is the compiler's own. The slots whose range holds
 * il_offset into slots[0..cap), how many in *n. BAD_PDB for a blob that is
 * not whole pairs. */
CLRMETA_API clrmeta_status clrmeta_pdb_hoisted_at(const clrmeta_pdb *pdb, uint32_t move_next_rid,
                                                  uint32_t il_offset, uint32_t *slots,
                                                  uint32_t cap, uint32_t *n, clrmeta_error *err);
/* Whether field (a state machine's field name) holds the local of hoisted
 * slot `slot` (C#: "<total>5__2" for slot 1): 1 and its source name into
 * out (cap bytes; out may be NULL), or 0. */
CLRMETA_API int clrmeta_hoisted_local_name(const char *field, uint32_t slot, char *out,
                                           size_t cap);
/* Kind of StateMachineHoistedLocalScopes. */
CLRMETA_API const uint8_t *clrmeta_kind_hoisted_scopes(void);

typedef struct clrmeta_local_variable_row {
    uint16_t attributes;               /* 1: DebuggerHidden (a compiler temporary) */
    uint16_t index;                    /* the slot in the method's locals */
    const char *name;
} clrmeta_local_variable_row;

typedef struct clrmeta_local_constant_row {
    const char *name;
    clrmeta_blob signature;
} clrmeta_local_constant_row;

CLRMETA_API clrmeta_status clrmeta_pdb_local_variable(const clrmeta_pdb *pdb, uint32_t rid,
                                                      clrmeta_local_variable_row *out,
                                                      clrmeta_error *err);
CLRMETA_API clrmeta_status clrmeta_pdb_local_constant(const clrmeta_pdb *pdb, uint32_t rid,
                                                      clrmeta_local_constant_row *out,
                                                      clrmeta_error *err);

/* An async method's or iterator's MoveNext → the method written in the
 * source (StateMachineMethod, sorted by MoveNext: a binary search).
 * *kickoff_rid 0 when method_rid is none. */
CLRMETA_API clrmeta_status clrmeta_pdb_kickoff(const clrmeta_pdb *pdb, uint32_t method_rid,
                                               uint32_t *kickoff_rid, clrmeta_error *err);

/* The other way: the MoveNext of the state machine whose kick-off method is
 * kickoff_rid (a linear search of StateMachineMethod); 0 when none. */
CLRMETA_API clrmeta_status clrmeta_pdb_move_next(const clrmeta_pdb *pdb, uint32_t kickoff_rid,
                                                 uint32_t *move_next_rid, clrmeta_error *err);

/* The CustomDebugInformation value of kind `kind` (16-byte GUID) attached to
 * parent (a token: 0x00000001 the module, a MethodDef, a Document
 * (0x30000000 | rid), ...): *found 0 when none. Rows are sorted by parent;
 * the first match in table order wins. */
CLRMETA_API clrmeta_status clrmeta_pdb_custom_debug(const clrmeta_pdb *pdb, uint32_t parent,
                                                    const uint8_t kind[16], clrmeta_blob *out,
                                                    int *found, clrmeta_error *err);
/* The kind (16-byte GUID) of the module's Source Link map (a UTF-8 JSON
 * document). */
CLRMETA_API const uint8_t *clrmeta_kind_source_link(void);

/* ------------------------------------------------------- loading a PDB */

/* A PDB found and opened for an assembly, with the memory holding it. */
typedef struct clrmeta_pdb_file {
    clrmeta_pdb pdb;
    int embedded;                      /* 1: inflated from the assembly */
    char path[4096];                   /* the file read (embedded: the assembly) */
    uint8_t *bytes_;                   /* private: the PDB's bytes */
    size_t len_;
} clrmeta_pdb_file;

/* Reads the assembly at `assembly` (a path as this process sees it), finds
 * its Portable PDB and opens it:
 *  - embedded: inflated from the assembly;
 *  - else the CodeView entry's file: first beside the assembly (the entry's
 *    file name in the assembly's directory), then the entry's path itself,
 *    with `root` put before it when not NULL (e.g. "/proc/PID/root": the
 *    path as another mount namespace sees it).
 * The PDB must have the id the assembly names (PDB_MISMATCH otherwise).
 * NO_PDB when there is none, IO when a file cannot be read; any error of
 * the functions above (the offset then is in the file that was wrong, whose
 * path *out gets even on failure when out_path is given). On success *out is
 * malloc'd memory for clrmeta_pdb_free. */
CLRMETA_API clrmeta_status clrmeta_pdb_load(const char *assembly, const char *root,
                                            clrmeta_pdb_file **out, char *failed_path,
                                            size_t failed_cap, clrmeta_error *err);
CLRMETA_API void clrmeta_pdb_free(clrmeta_pdb_file *f);

#ifdef __cplusplus
}
#endif
#endif
