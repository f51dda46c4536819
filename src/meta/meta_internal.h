/* Private helpers shared by the files of libclrmeta. */
#ifndef CLRMETA_META_INTERNAL_H
#define CLRMETA_META_INTERNAL_H

#include "clrmeta/clrmeta.h"

/* Column kinds of the table schema (II.22). */
enum {
    COL_U16,    /* 2-byte constant */
    COL_U32,    /* 4-byte constant */
    COL_BYTE2,  /* 1-byte constant and a padding byte (Constant.Type) */
    COL_STRING, /* #Strings offset */
    COL_GUID,   /* #GUID index */
    COL_BLOB,   /* #Blob offset */
    COL_TABLE,  /* simple index into table `arg` */
    COL_CODED   /* coded index of kind `arg` */
};

typedef struct meta_col {
    uint8_t kind;
    uint8_t arg;
    const char *name; /* "Table.Column" */
} meta_col;

typedef struct meta_table_def {
    const char *name;
    uint8_t ncols;
    meta_col cols[CLRMETA_MAX_COLUMNS];
} meta_table_def;

#define META_NO_TABLE 0xFF
#define META_MAX_CODED_TABLES 22

typedef struct meta_coded_def {
    const char *name;
    uint8_t bits;
    uint8_t ntables;
    uint8_t tables[META_MAX_CODED_TABLES];
} meta_coded_def;

extern const meta_table_def meta_tables[CLRMETA_TABLE_COUNT];
extern const meta_coded_def meta_coded[CLRMETA_CI_COUNT];

/* Fills md->tables[*] column widths, offsets and row sizes from the row
 * counts and heap sizes already in md. */
void meta_layout(clrmeta *md);

static inline uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Fills *err (when given) and returns st. */
static inline clrmeta_status meta_fail(clrmeta_error *err, clrmeta_status st, uint32_t offset,
                                       const char *what)
{
    if (err) {
        err->code = st;
        err->offset = offset;
        err->what = what;
    }
    return st;
}

static inline clrmeta_status meta_ok(clrmeta_error *err)
{
    if (err) {
        err->code = CLRMETA_OK;
        err->offset = 0;
        err->what = "";
    }
    return CLRMETA_OK;
}

/* Row `rid` (1-based, already checked) of table t. */
static inline const uint8_t *meta_row(const clrmeta *md, unsigned t, uint32_t rid)
{
    const clrmeta_table_info *ti = &md->tables[t];
    return md->file + ti->offset + (size_t)(rid - 1) * ti->row_size;
}

/* The raw value of column col of a row pointer of table t. */
static inline uint32_t meta_get(const clrmeta *md, unsigned t, const uint8_t *row, unsigned col)
{
    const clrmeta_table_info *ti = &md->tables[t];
    const uint8_t *p = row + ti->col_offset[col];
    switch (ti->col_width[col]) {
    case 1: return p[0];
    case 2: return rd16(p);
    default: return rd32(p);
    }
}

/* File offset of a cell, for error reports. */
static inline uint32_t meta_cell_offset(const clrmeta *md, unsigned t, const uint8_t *row,
                                        unsigned col)
{
    return (uint32_t)(row - md->file) + md->tables[t].col_offset[col];
}

/* The metadata root at md->metadata_offset (size md->metadata_size) and its
 * stream headers, into md's heaps (open.c). */
clrmeta_status meta_open_root(clrmeta *md, clrmeta_error *err);

/* The table stream's header (into md) and the row counts of the tables it
 * says it has, into tables[0..count): those numbered first..first+count-1
 * (a Valid bit outside them: bad_valid, what bad_valid_what); *end the
 * position after the counts (and the optional extra data). */
clrmeta_status meta_table_header(clrmeta *md, unsigned first, unsigned count,
                                 clrmeta_table_info *tables, clrmeta_status bad_valid,
                                 const char *bad_valid_what, uint32_t *end, clrmeta_error *err);
/* Places tables[0..count) (rows and row sizes known) one after the other
 * from position pos of the table stream; BAD_TABLES (what: name(i)) when
 * one runs past it. */
clrmeta_status meta_place_tables(const clrmeta *md, clrmeta_table_info *tables, unsigned count,
                                 uint32_t pos, const char *(*name)(unsigned i), clrmeta_error *err);

static inline int meta_fits(uint64_t off, uint64_t len, uint64_t size)
{
    return off <= size && len <= size - off;
}

/* Strings/blobs without the public wrappers' argument checks. */
clrmeta_status meta_string(const clrmeta *md, uint32_t offset, const char **out);
clrmeta_status meta_blob(const clrmeta_heap *h, uint32_t offset, clrmeta_blob *out);

#endif
