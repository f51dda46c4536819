/* Portable PDBs: the debug directory that names one, the #Pdb stream and
 * the eight debug tables (dotnet/runtime docs/design/specs/
 * PortablePdb-Metadata.md), sequence point blobs, local scopes, state
 * machine kick-off methods and custom debug information. Same rules as the
 * rest of the library: every read is checked against the bytes first. */
#include <stdio.h>
#include <string.h>

#include "meta_internal.h"

#define DEBUG_ENTRY_SIZE 28
#define DEBUG_TYPE_CODEVIEW 2
#define DEBUG_TYPE_REPRODUCIBLE 16
#define DEBUG_TYPE_EMBEDDED_PDB 17
#define PORTABLE_PDB_MINOR 0x504D
#define CODEVIEW_HEADER 24 /* "RSDS", GUID, age */
#define PDB_STREAM_MIN 32  /* id, entry point, referenced tables */

/* Table ids of the debug tables' columns. */
enum { DOC = 0x30, MDI, SCOPE, VAR, CONST, IMPORT, SMM, CDI };

const uint8_t *clrmeta_kind_source_link(void)
{
    static const uint8_t kind[16] = { /* CC110556-A091-4D38-9FEC-25AB9A351A6A */
        0x56, 0x05, 0x11, 0xCC, 0x91, 0xA0, 0x38, 0x4D, 0x9F, 0xEC, 0x25, 0xAB, 0x9A, 0x35, 0x1A, 0x6A
    };
    return kind;
}

/* ------------------------------------------------------- debug directory */

clrmeta_status clrmeta_debug_directory(const clrmeta *md, clrmeta_debug_dir *out,
                                       clrmeta_error *err)
{
    if (!md || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    memset(out, 0, sizeof *out);
    if (md->debug_rva == 0 || md->debug_size == 0)
        return meta_ok(err);
    uint32_t n = md->debug_size / DEBUG_ENTRY_SIZE, dir;
    if (n > CLRMETA_MAX_DEBUG_ENTRIES)
        return meta_fail(err, CLRMETA_E_BAD_DEBUG, 0, "debug directory size");
    if (clrmeta_rva_to_offset(md, md->debug_rva, n * DEBUG_ENTRY_SIZE, &dir, NULL) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_DEBUG, 0, "debug directory RVA");
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = md->file + dir + i * DEBUG_ENTRY_SIZE;
        uint32_t at = dir + i * DEBUG_ENTRY_SIZE;
        uint32_t stamp = rd32(e + 4), type = rd32(e + 12), size = rd32(e + 16), ptr = rd32(e + 24);
        uint16_t minor = rd16(e + 10);
        if (type == DEBUG_TYPE_REPRODUCIBLE) {
            out->deterministic = 1;
            continue;
        }
        if (type != DEBUG_TYPE_CODEVIEW && type != DEBUG_TYPE_EMBEDDED_PDB)
            continue;
        if (!meta_fits(ptr, size, md->size))
            return meta_fail(err, CLRMETA_E_BAD_DEBUG, at + 24, "debug entry data");
        const uint8_t *d = md->file + ptr;
        if (type == DEBUG_TYPE_CODEVIEW) {
            if (minor != PORTABLE_PDB_MINOR || out->has_codeview)
                continue; /* a Windows PDB's entry, or a second one */
            if (size < CODEVIEW_HEADER + 1 || memcmp(d, "RSDS", 4) != 0)
                return meta_fail(err, CLRMETA_E_BAD_DEBUG, ptr, "CodeView RSDS signature");
            const uint8_t *nul = memchr(d + CODEVIEW_HEADER, 0, size - CODEVIEW_HEADER);
            if (!nul)
                return meta_fail(err, CLRMETA_E_BAD_DEBUG, ptr + CODEVIEW_HEADER,
                                 "CodeView path not NUL-terminated");
            out->has_codeview = 1;
            memcpy(out->pdb_id, d + 4, 16);
            memcpy(out->pdb_id + 16, e + 4, 4);
            (void)stamp;
            out->age = rd32(d + 20);
            out->pdb_path = (const char *)d + CODEVIEW_HEADER;
        } else if (!out->has_embedded) {
            if (size < 8 || memcmp(d, "MPDB", 4) != 0)
                return meta_fail(err, CLRMETA_E_BAD_DEBUG, ptr, "embedded PDB MPDB signature");
            uint32_t inflated = rd32(d + 4);
            if (inflated > CLRMETA_MAX_EMBEDDED_PDB)
                return meta_fail(err, CLRMETA_E_LIMIT, ptr + 4, "embedded PDB size");
            out->has_embedded = 1;
            out->embedded_offset = ptr + 8;
            out->embedded_size = size - 8;
            out->embedded_inflated = inflated;
        }
    }
    return meta_ok(err);
}

/* ---------------------------------------------------------------- #Pdb */

static uint32_t pdb_rows_of(const clrmeta_pdb *pdb, unsigned t)
{
    if (t >= CLRMETA_PDB_FIRST_TABLE && t < CLRMETA_PDB_FIRST_TABLE + CLRMETA_PDB_TABLE_COUNT)
        return pdb->tables[t - CLRMETA_PDB_FIRST_TABLE].rows;
    return t < 64 ? pdb->ts_rows[t] : 0;
}

/* HasCustomDebugInformation: HasCustomAttribute's 22 tables, then 5 debug
 * tables; 5 tag bits. */
static const uint8_t hcdi_tables[] = {
    CLRMETA_T_METHODDEF, CLRMETA_T_FIELD, CLRMETA_T_TYPEREF, CLRMETA_T_TYPEDEF, CLRMETA_T_PARAM,
    CLRMETA_T_INTERFACEIMPL, CLRMETA_T_MEMBERREF, CLRMETA_T_MODULE, CLRMETA_T_DECLSECURITY,
    CLRMETA_T_PROPERTY, CLRMETA_T_EVENT, CLRMETA_T_STANDALONESIG, CLRMETA_T_MODULEREF,
    CLRMETA_T_TYPESPEC, CLRMETA_T_ASSEMBLY, CLRMETA_T_ASSEMBLYREF, CLRMETA_T_FILE,
    CLRMETA_T_EXPORTEDTYPE, CLRMETA_T_MANIFESTRESOURCE, CLRMETA_T_GENERICPARAM,
    CLRMETA_T_GENERICPARAMCONSTRAINT, CLRMETA_T_METHODSPEC, DOC, SCOPE, VAR, CONST, IMPORT
};
#define HCDI_BITS 5

/* Column kinds of the debug tables: 'b' blob, 'g' guid, 's' string, 'w'/'d'
 * 2- and 4-byte constants, 'h' HasCustomDebugInformation, any other byte the
 * table id of a simple index (0x06 MethodDef, 0x30-0x37 the debug tables). */
static const char *const pdb_cols[CLRMETA_PDB_TABLE_COUNT] = {
    [DOC - DOC] = "bgbg",
    [MDI - DOC] = "\x30" "b",
    [SCOPE - DOC] = "\x06\x35\x33\x34" "dd",
    [VAR - DOC] = "wws",
    [CONST - DOC] = "sb",
    [IMPORT - DOC] = "\x35" "b",
    [SMM - DOC] = "\x06\x06",
    [CDI - DOC] = "hgb",
};

static const char *const pdb_names[CLRMETA_PDB_TABLE_COUNT] = {
    "Document", "MethodDebugInformation", "LocalScope", "LocalVariable", "LocalConstant",
    "ImportScope", "StateMachineMethod", "CustomDebugInformation"
};

static void pdb_layout(clrmeta_pdb *pdb)
{
    clrmeta *md = &pdb->md;
    md->string_width = (md->heap_sizes & 0x01) ? 4 : 2;
    md->guid_width = (md->heap_sizes & 0x02) ? 4 : 2;
    md->blob_width = (md->heap_sizes & 0x04) ? 4 : 2;
    for (unsigned t = 0; t < CLRMETA_PDB_TABLE_COUNT; t++) {
        clrmeta_table_info *ti = &pdb->tables[t];
        unsigned off = 0, c = 0;
        for (const char *k = pdb_cols[t]; *k; k++, c++) {
            unsigned w;
            switch (*k) {
            case 'b': w = md->blob_width; break;
            case 'g': w = md->guid_width; break;
            case 's': w = md->string_width; break;
            case 'w': w = 2; break;
            case 'd': w = 4; break;
            case 'h': {
                w = 2;
                for (size_t i = 0; i < sizeof hcdi_tables; i++)
                    if (pdb_rows_of(pdb, hcdi_tables[i]) >= (1u << (16 - HCDI_BITS)))
                        w = 4;
                break;
            }
            default: w = pdb_rows_of(pdb, (unsigned char)*k) > 0xFFFF ? 4 : 2; break;
            }
            ti->col_offset[c] = (uint8_t)off;
            ti->col_width[c] = (uint8_t)w;
            off += w;
        }
        ti->ncols = (uint8_t)c;
        ti->row_size = off;
    }
}

static const char *pdb_table_name(unsigned i)
{
    return pdb_names[i];
}

static clrmeta_status pdb_tables(clrmeta_pdb *pdb, clrmeta_error *err)
{
    uint32_t pos;
    clrmeta_status st = meta_table_header(&pdb->md, CLRMETA_PDB_FIRST_TABLE, CLRMETA_PDB_TABLE_COUNT,
                                          pdb->tables, CLRMETA_E_BAD_PDB,
                                          "Valid (not a debug table)", &pos, err);
    if (st != CLRMETA_OK)
        return st;
    pdb_layout(pdb);
    return meta_place_tables(&pdb->md, pdb->tables, CLRMETA_PDB_TABLE_COUNT, pos, pdb_table_name,
                             err);
}

static clrmeta_status pdb_stream(clrmeta_pdb *pdb, clrmeta_error *err)
{
    const clrmeta_heap *h = &pdb->md.pdb;
    if (!h->p)
        return meta_fail(err, CLRMETA_E_BAD_PDB, pdb->md.metadata_offset, "no #Pdb stream");
    if (h->size < PDB_STREAM_MIN)
        return meta_fail(err, CLRMETA_E_BAD_PDB, h->offset, "#Pdb stream size");
    memcpy(pdb->id, h->p, CLRMETA_PDB_ID_SIZE);
    pdb->entry_point = rd32(h->p + 20);
    pdb->referenced = rd64(h->p + 24);
    uint32_t pos = PDB_STREAM_MIN;
    for (unsigned t = 0; t < 64; t++) {
        if (!(pdb->referenced >> t & 1))
            continue;
        if (t >= CLRMETA_TABLE_COUNT)
            return meta_fail(err, CLRMETA_E_BAD_PDB, h->offset + 24,
                             "#Pdb ReferencedTypeSystemTables (not a type system table)");
        if (!meta_fits(pos, 4, h->size))
            return meta_fail(err, CLRMETA_E_BAD_PDB, h->offset + pos, "#Pdb TypeSystemTableRows");
        uint32_t rows = rd32(h->p + pos);
        if (rows > CLRMETA_MAX_ROWS)
            return meta_fail(err, CLRMETA_E_BAD_PDB, h->offset + pos, "#Pdb row count");
        pdb->ts_rows[t] = rows;
        pos += 4;
    }
    return CLRMETA_OK;
}

clrmeta_status clrmeta_pdb_open(const uint8_t *bytes, size_t len, clrmeta_pdb *pdb,
                                clrmeta_error *err)
{
    if (!pdb || (!bytes && len))
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    memset(pdb, 0, sizeof *pdb);
    if (len > CLRMETA_MAX_FILE_SIZE)
        return meta_fail(err, CLRMETA_E_LIMIT, 0, "file size");
    clrmeta *md = &pdb->md;
    md->file = bytes;
    md->size = (uint32_t)len;
    md->metadata_offset = 0;
    md->metadata_size = (uint32_t)len;
    clrmeta_status st;
    if ((st = meta_open_root(md, err)) != CLRMETA_OK || (st = pdb_stream(pdb, err)) != CLRMETA_OK ||
        (st = pdb_tables(pdb, err)) != CLRMETA_OK) {
        memset(pdb, 0, sizeof *pdb);
        pdb->md.file = bytes;
        pdb->md.size = (uint32_t)len;
        return st;
    }
    return meta_ok(err);
}

int clrmeta_pdb_matches(const clrmeta_pdb *pdb, const clrmeta_debug_dir *dd)
{
    if (!pdb || !dd)
        return 0;
    if (dd->has_embedded && !dd->has_codeview)
        return 1; /* nothing to compare with: it came from the assembly itself */
    return dd->has_codeview && memcmp(pdb->id, dd->pdb_id, CLRMETA_PDB_ID_SIZE) == 0;
}

uint32_t clrmeta_pdb_rows(const clrmeta_pdb *pdb, clrmeta_pdb_table t)
{
    if (!pdb || (unsigned)t < CLRMETA_PDB_FIRST_TABLE ||
        (unsigned)t >= CLRMETA_PDB_FIRST_TABLE + CLRMETA_PDB_TABLE_COUNT)
        return 0;
    return pdb->tables[t - CLRMETA_PDB_FIRST_TABLE].rows;
}

/* ---------------------------------------------------------------- rows */

static const uint8_t *pdb_row(const clrmeta_pdb *pdb, unsigned t, uint32_t rid,
                              clrmeta_error *err, clrmeta_status *st)
{
    const clrmeta_table_info *ti = &pdb->tables[t - DOC];
    if (rid == 0 || rid > ti->rows) {
        *st = meta_fail(err, CLRMETA_E_BAD_INDEX, 0, pdb_names[t - DOC]);
        return NULL;
    }
    *st = CLRMETA_OK;
    return pdb->md.file + ti->offset + (size_t)(rid - 1) * ti->row_size;
}

/* pdb_row for a public row reader: pdb and its output out checked first
 * (CLRMETA_E_ARGUMENT). */
static const uint8_t *row_for(const clrmeta_pdb *pdb, const void *out, unsigned t, uint32_t rid,
                              clrmeta_error *err, clrmeta_status *st)
{
    if (!pdb || !out) {
        *st = meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
        return NULL;
    }
    return pdb_row(pdb, t, rid, err, st);
}

static uint32_t pdb_get(const clrmeta_pdb *pdb, unsigned t, const uint8_t *row, unsigned col)
{
    const clrmeta_table_info *ti = &pdb->tables[t - DOC];
    const uint8_t *p = row + ti->col_offset[col];
    return ti->col_width[col] == 2 ? rd16(p) : rd32(p);
}

static uint32_t cell_at(const clrmeta_pdb *pdb, unsigned t, const uint8_t *row, unsigned col)
{
    return (uint32_t)(row - pdb->md.file) + pdb->tables[t - DOC].col_offset[col];
}

static clrmeta_status blob_cell(const clrmeta_pdb *pdb, unsigned t, const uint8_t *row,
                                unsigned col, clrmeta_blob *out, clrmeta_error *err)
{
    if (meta_blob(&pdb->md.blob, pdb_get(pdb, t, row, col), out) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_BLOB, cell_at(pdb, t, row, col), "#Blob");
    return CLRMETA_OK;
}

static clrmeta_status guid_cell(const clrmeta_pdb *pdb, unsigned t, const uint8_t *row,
                                unsigned col, const uint8_t **out, clrmeta_error *err)
{
    if (clrmeta_guid(&pdb->md, pdb_get(pdb, t, row, col), out, NULL) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_GUID, cell_at(pdb, t, row, col), "#GUID");
    return CLRMETA_OK;
}

static clrmeta_status string_cell(const clrmeta_pdb *pdb, unsigned t, const uint8_t *row,
                                  unsigned col, const char **out, clrmeta_error *err)
{
    if (meta_string(&pdb->md, pdb_get(pdb, t, row, col), out) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_STRING, cell_at(pdb, t, row, col), "#Strings");
    return CLRMETA_OK;
}

clrmeta_status clrmeta_pdb_document(const clrmeta_pdb *pdb, uint32_t rid, clrmeta_document_row *out,
                                    clrmeta_error *err)
{
    clrmeta_status st;
    const uint8_t *r = row_for(pdb, out, DOC, rid, err, &st);
    if (!r)
        return st;
    if ((st = blob_cell(pdb, DOC, r, 0, &out->name, err)) != CLRMETA_OK ||
        (st = guid_cell(pdb, DOC, r, 1, &out->hash_algorithm, err)) != CLRMETA_OK ||
        (st = blob_cell(pdb, DOC, r, 2, &out->hash, err)) != CLRMETA_OK ||
        (st = guid_cell(pdb, DOC, r, 3, &out->language, err)) != CLRMETA_OK)
        return st;
    return meta_ok(err);
}

/* Offset of a pointer into the PDB's bytes. */
static uint32_t at_of(const clrmeta_pdb *pdb, const uint8_t *p)
{
    return (uint32_t)(p - pdb->md.file);
}

clrmeta_status clrmeta_pdb_document_name(const clrmeta_pdb *pdb, uint32_t rid, char *out,
                                         size_t cap, size_t *len, clrmeta_error *err)
{
    if (!pdb || !out || !cap)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    out[0] = '\0';
    if (len)
        *len = 0;
    clrmeta_document_row d;
    clrmeta_status st = clrmeta_pdb_document(pdb, rid, &d, err);
    if (st != CLRMETA_OK || d.name.len == 0)
        return st;
    if (cap > CLRMETA_MAX_DOCUMENT_NAME)
        cap = CLRMETA_MAX_DOCUMENT_NAME;
    const uint8_t *p = d.name.p;
    uint32_t n = d.name.len, pos = 1, parts = 0;
    char sep = (char)p[0];
    if ((uint8_t)sep > 0x7F)
        return meta_fail(err, CLRMETA_E_BAD_PDB, at_of(pdb, p), "document name separator");
    size_t w = 0;
    while (pos < n) {
        uint32_t index, used;
        if (clrsig_read_u(p + pos, n - pos, &index, &used) != CLRSIG_OK)
            return meta_fail(err, CLRMETA_E_BAD_PDB, at_of(pdb, p + pos), "document name part");
        if (++parts > CLRMETA_MAX_DOCUMENT_PARTS)
            return meta_fail(err, CLRMETA_E_BAD_PDB, at_of(pdb, p + pos), "document name parts");
        clrmeta_blob part;
        if (meta_blob(&pdb->md.blob, index, &part) != CLRMETA_OK)
            return meta_fail(err, CLRMETA_E_BAD_BLOB, at_of(pdb, p + pos), "document name part");
        pos += used;
        size_t need = (parts > 1 && sep ? 1 : 0) + part.len;
        if (need >= cap - w) {
            out[w] = '\0';
            return meta_fail(err, CLRMETA_E_LIMIT, at_of(pdb, p), "document name length");
        }
        if (parts > 1 && sep)
            out[w++] = sep;
        if (part.len)
            memcpy(out + w, part.p, part.len);
        w += part.len;
    }
    out[w] = '\0';
    if (len)
        *len = w;
    return meta_ok(err);
}

clrmeta_status clrmeta_pdb_source_root(const clrmeta_pdb *pdb, char *out, size_t cap, size_t *len,
                                       clrmeta_error *err)
{
    if (!pdb || !out || !cap || !len)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    out[0] = '\0';
    *len = 0;
    char name[CLRMETA_MAX_DOCUMENT_NAME];
    uint32_t ndocs = pdb->tables[DOC - DOC].rows;
    for (int pass = 0; pass < 2; pass++) {
        int any = 0;
        size_t n = 0;
        for (uint32_t d = 1; d <= ndocs; d++) {
            size_t nl;
            if (clrmeta_pdb_document_name(pdb, d, name, sizeof name, &nl, NULL) != CLRMETA_OK ||
                name[0] != '/' || (pass == 0 && strstr(name, "/obj/")))
                continue;
            if (!any) {
                any = 1;
                n = nl < cap ? nl : cap - 1;
                memcpy(out, name, n);
                continue;
            }
            size_t i = 0;
            while (i < n && out[i] == name[i])
                i++;
            n = i;
        }
        if (!any)
            continue;
        while (n > 0 && out[n - 1] != '/')
            n--;
        out[n] = '\0';
        *len = n;
        break;
    }
    return meta_ok(err);
}

/* ------------------------------------------------------ sequence points */

clrmeta_status clrmeta_pdb_sequence_points(const clrmeta_pdb *pdb, uint32_t method_rid,
                                           clrmeta_sp_iter *it, clrmeta_error *err)
{
    if (!pdb || !it)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    memset(it, 0, sizeof *it);
    it->pdb = pdb;
    clrmeta_status st;
    const uint8_t *r = pdb_row(pdb, MDI, method_rid, err, &st);
    if (!r)
        return st;
    it->document = pdb_get(pdb, MDI, r, 0);
    if ((st = blob_cell(pdb, MDI, r, 1, &it->blob, err)) != CLRMETA_OK)
        return st;
    it->blob_offset = it->blob.p ? at_of(pdb, it->blob.p) : 0;
    if (it->blob.len == 0)
        return meta_ok(err);
    /* Header: the local signature, then the first document when the row
     * names none. */
    uint32_t used;
    if (clrsig_read_u(it->blob.p, it->blob.len, &it->local_sig, &used) != CLRSIG_OK)
        return meta_fail(err, CLRMETA_E_BAD_PDB, it->blob_offset, "sequence points header");
    it->pos = used;
    if (it->document == 0) {
        if (clrsig_read_u(it->blob.p + it->pos, it->blob.len - it->pos, &it->document, &used) !=
            CLRSIG_OK)
            return meta_fail(err, CLRMETA_E_BAD_PDB, it->blob_offset + it->pos,
                             "sequence points initial document");
        it->pos += used;
    }
    if (it->document == 0 || it->document > pdb->tables[DOC - DOC].rows)
        return meta_fail(err, CLRMETA_E_BAD_PDB, it->blob_offset, "sequence points document");
    return meta_ok(err);
}

static int sp_fail(clrmeta_sp_iter *it, uint32_t at, const char *what, clrmeta_error *err)
{
    meta_fail(err, CLRMETA_E_BAD_PDB, it->blob_offset + at, what);
    it->pos = it->blob.len; /* a later call ends the walk */
    it->count = UINT32_MAX;
    return -1;
}

static int sp_u(clrmeta_sp_iter *it, uint32_t *v)
{
    uint32_t used;
    if (clrsig_read_u(it->blob.p + it->pos, it->blob.len - it->pos, v, &used) != CLRSIG_OK)
        return 0;
    it->pos += used;
    return 1;
}

static int sp_s(clrmeta_sp_iter *it, int32_t *v)
{
    uint32_t used;
    if (clrsig_read_s(it->blob.p + it->pos, it->blob.len - it->pos, v, &used) != CLRSIG_OK)
        return 0;
    it->pos += used;
    return 1;
}

int clrmeta_sp_next(clrmeta_sp_iter *it, clrmeta_sequence_point *sp, clrmeta_error *err)
{
    if (!it || !sp || !it->pdb) {
        meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
        return -1;
    }
    if (it->count == UINT32_MAX) {
        meta_fail(err, CLRMETA_E_BAD_PDB, it->blob_offset, "sequence points (after an error)");
        return -1;
    }
    for (;;) {
        if (it->pos >= it->blob.len) {
            meta_ok(err);
            return 0;
        }
        uint32_t at = it->pos, dil;
        if (!sp_u(it, &dil))
            return sp_fail(it, at, "sequence point IL offset", err);
        if (dil == 0 && it->count > 0) { /* a document record */
            uint32_t doc;
            if (!sp_u(it, &doc) || doc == 0 || doc > it->pdb->tables[0].rows)
                return sp_fail(it, at, "sequence points document record", err);
            it->document = doc;
            continue;
        }
        uint64_t il = it->count == 0 ? dil : (uint64_t)it->prev_il + dil;
        if (il >= 0x20000000u)
            return sp_fail(it, at, "sequence point IL offset", err);
        uint32_t dlines;
        if (!sp_u(it, &dlines))
            return sp_fail(it, at, "sequence point line span", err);
        int64_t dcols;
        if (dlines == 0) {
            uint32_t u;
            if (!sp_u(it, &u))
                return sp_fail(it, at, "sequence point column span", err);
            dcols = u;
        } else {
            int32_t s;
            if (!sp_s(it, &s))
                return sp_fail(it, at, "sequence point column span", err);
            dcols = s;
        }
        memset(sp, 0, sizeof *sp);
        sp->il_offset = (uint32_t)il;
        sp->document = it->document;
        it->prev_il = (uint32_t)il;
        it->count++;
        if (dlines == 0 && dcols == 0) {
            sp->hidden = 1;
            sp->start_line = sp->end_line = CLRMETA_HIDDEN_LINE;
            meta_ok(err);
            return 1;
        }
        int64_t line, col;
        if (!it->any_visible) {
            uint32_t u1, u2;
            if (!sp_u(it, &u1) || !sp_u(it, &u2))
                return sp_fail(it, at, "sequence point start", err);
            line = u1;
            col = u2;
        } else {
            int32_t s1, s2;
            if (!sp_s(it, &s1) || !sp_s(it, &s2))
                return sp_fail(it, at, "sequence point start", err);
            line = (int64_t)it->prev_line + s1;
            col = (int64_t)it->prev_column + s2;
        }
        int64_t end_line = line + dlines, end_col = col + dcols;
        if (line < 0 || line >= 0x20000000 || line == CLRMETA_HIDDEN_LINE || end_line >= 0x20000000 ||
            col < 0 || col >= 0x10000 || end_col < 0 || end_col >= 0x10000)
            return sp_fail(it, at, "sequence point line or column", err);
        it->any_visible = 1;
        it->prev_line = (uint32_t)line;
        it->prev_column = (uint32_t)col;
        sp->start_line = (uint32_t)line;
        sp->end_line = (uint32_t)end_line;
        sp->start_column = (uint16_t)col;
        sp->end_column = (uint16_t)end_col;
        meta_ok(err);
        return 1;
    }
}

/* The start of a question about method_rid's sequence points: the outputs
 * sp and found checked (CLRMETA_E_ARGUMENT), *found 0, the points'
 * iterator it opened. */
static clrmeta_status sp_begin(const clrmeta_pdb *pdb, uint32_t method_rid,
                               const clrmeta_sequence_point *sp, int *found, clrmeta_sp_iter *it,
                               clrmeta_error *err)
{
    if (!sp || !found)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    *found = 0;
    return clrmeta_pdb_sequence_points(pdb, method_rid, it, err);
}

clrmeta_status clrmeta_pdb_method_line(const clrmeta_pdb *pdb, uint32_t method_rid,
                                       clrmeta_sequence_point *sp, int *found, clrmeta_error *err)
{
    clrmeta_sp_iter it;
    clrmeta_status st = sp_begin(pdb, method_rid, sp, found, &it, err);
    if (st != CLRMETA_OK)
        return st;
    int r;
    while ((r = clrmeta_sp_next(&it, sp, err)) == 1) {
        if (!sp->hidden) {
            *found = 1;
            return meta_ok(err);
        }
    }
    return r < 0 ? err ? err->code : CLRMETA_E_BAD_PDB : meta_ok(err);
}

clrmeta_status clrmeta_pdb_line_at(const clrmeta_pdb *pdb, uint32_t method_rid, uint32_t il_offset,
                                   clrmeta_sequence_point *sp, int *found, clrmeta_error *err)
{
    clrmeta_sp_iter it;
    clrmeta_status st = sp_begin(pdb, method_rid, sp, found, &it, err);
    if (st != CLRMETA_OK)
        return st;
    clrmeta_sequence_point p;
    int r, have = 0;
    while ((r = clrmeta_sp_next(&it, &p, err)) == 1) {
        if (p.il_offset > il_offset)
            break;
        have = !p.hidden;
        if (have)
            *sp = p;
    }
    if (r < 0)
        return err ? err->code : CLRMETA_E_BAD_PDB;
    *found = have;
    return meta_ok(err);
}

/* ------------------------------------------------------ a line's code */

/* Whether document name `name` is `file` or ends with "/file" ('\\' and '/'
 * alike, case as written). */
static int names_file(const char *name, size_t nl, const char *file, size_t fl)
{
    if (fl == 0 || fl > nl)
        return 0;
    const char *tail = name + nl - fl;
    for (size_t i = 0; i < fl; i++) {
        char a = tail[i] == '\\' ? '/' : tail[i], b = file[i] == '\\' ? '/' : file[i];
        if (a != b)
            return 0;
    }
    return fl == nl || tail[-1] == '/' || tail[-1] == '\\' || file[0] == '/';
}

static clrmeta_status find_in_document(const clrmeta_pdb *pdb, uint32_t doc, uint32_t line,
                                       clrmeta_line_match *out, clrmeta_error *err);

clrmeta_status clrmeta_pdb_find_line(const clrmeta_pdb *pdb, const char *file, uint32_t line,
                                     clrmeta_line_match *out, clrmeta_error *err)
{
    if (!pdb || !file || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    memset(out, 0, sizeof *out);
    out->result = CLRMETA_LINE_NO_FILE;
    size_t fl = strlen(file);
    char name[CLRMETA_MAX_DOCUMENT_NAME];
    uint32_t doc = 0;
    for (uint32_t d = 1; d <= pdb->tables[DOC - DOC].rows; d++) {
        size_t nl;
        clrmeta_status st = clrmeta_pdb_document_name(pdb, d, name, sizeof name, &nl, err);
        if (st != CLRMETA_OK)
            return st;
        if (!names_file(name, nl, file, fl))
            continue;
        if (doc) {
            out->result = CLRMETA_LINE_AMBIGUOUS;
            out->document = doc;
            out->other = d;
            return meta_ok(err);
        }
        doc = d;
    }
    if (!doc)
        return meta_ok(err);
    return find_in_document(pdb, doc, line, out, err);
}

/* clrmeta_pdb_find_line in document doc (out cleared but for its result). */
static clrmeta_status find_in_document(const clrmeta_pdb *pdb, uint32_t doc, uint32_t line,
                                       clrmeta_line_match *out, clrmeta_error *err)
{
    out->document = doc;
    out->result = CLRMETA_LINE_NO_CODE;
    uint64_t best_span = UINT64_MAX;
    for (uint32_t m = 1; m <= pdb->tables[MDI - DOC].rows; m++) {
        clrmeta_sp_iter it;
        clrmeta_sequence_point sp;
        clrmeta_status st = clrmeta_pdb_sequence_points(pdb, m, &it, err);
        if (st != CLRMETA_OK)
            return st;
        uint32_t lo = UINT32_MAX, hi = 0, at_line = UINT32_MAX, at_il = 0;
        int r;
        while ((r = clrmeta_sp_next(&it, &sp, err)) == 1) {
            if (sp.hidden || sp.document != doc)
                continue;
            if (sp.start_line < lo)
                lo = sp.start_line;
            if (sp.end_line > hi)
                hi = sp.end_line;
            /* The first point on the line or after it (the lowest line, then
             * the lowest IL offset). */
            if (sp.start_line >= line &&
                (sp.start_line < at_line || (sp.start_line == at_line && sp.il_offset < at_il))) {
                at_line = sp.start_line;
                at_il = sp.il_offset;
            }
            if (sp.end_line < line && sp.end_line > out->before)
                out->before = sp.end_line;
            if (sp.start_line > line && (!out->after || sp.start_line < out->after))
                out->after = sp.start_line;
        }
        if (r < 0)
            return err ? err->code : CLRMETA_E_BAD_PDB;
        if (lo > line || hi < line || at_line == UINT32_MAX || (uint64_t)(hi - lo) >= best_span)
            continue;
        best_span = hi - lo;
        out->result = CLRMETA_LINE_FOUND;
        out->method_rid = m;
        out->il_offset = at_il;
        out->line = at_line;
    }
    return meta_ok(err);
}

clrmeta_status clrmeta_pdb_find_line_in_method(const clrmeta_pdb *pdb, uint32_t method_rid,
                                               uint32_t line, clrmeta_line_match *out,
                                               clrmeta_error *err)
{
    if (!pdb || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    memset(out, 0, sizeof *out);
    out->result = CLRMETA_LINE_NO_FILE;
    clrmeta_sequence_point sp;
    int found = 0;
    uint32_t mn = 0, kick = 0;
    clrmeta_status st = clrmeta_pdb_method_line(pdb, method_rid, &sp, &found, err);
    if (st == CLRMETA_OK && !found &&
        (st = clrmeta_pdb_move_next(pdb, method_rid, &mn, err)) == CLRMETA_OK && mn)
        st = clrmeta_pdb_method_line(pdb, mn, &sp, &found, err);
    if (st != CLRMETA_OK || !found)
        return st;
    if ((st = find_in_document(pdb, sp.document, line, out, err)) != CLRMETA_OK ||
        out->result != CLRMETA_LINE_FOUND || out->method_rid == method_rid)
        return st;
    if ((st = clrmeta_pdb_kickoff(pdb, out->method_rid, &kick, err)) != CLRMETA_OK)
        return st;
    if (kick != method_rid) {
        out->result = CLRMETA_LINE_NO_CODE; /* the line's code is another method's */
        out->method_rid = out->il_offset = out->line = 0;
    }
    return meta_ok(err);
}

int clrmeta_hoisted_local_name(const char *field, uint32_t slot, char *out, size_t cap)
{
    char suffix[24];
    int sl = snprintf(suffix, sizeof suffix, ">5__%u", slot + 1);
    size_t fl = field ? strlen(field) : 0;
    if (sl <= 0 || fl <= (size_t)sl + 1 || field[0] != '<' ||
        strcmp(field + fl - (size_t)sl, suffix) != 0)
        return 0;
    if (out && cap)
        snprintf(out, cap, "%.*s", (int)(fl - (size_t)sl - 1), field + 1);
    return 1;
}

/* ---------------------------------------------------------- local scopes */

/* Rows [lo, hi) of table t whose simple-index column col equals key, in a
 * table sorted by that column (binary search; O(log rows)). */
static void sorted_range(const clrmeta_pdb *pdb, unsigned t, unsigned col, uint32_t key,
                         uint32_t *first, uint32_t *count)
{
    uint32_t rows = pdb->tables[t - DOC].rows, lo = 1, hi = rows + 1;
    while (lo < hi) { /* first row whose key >= key */
        uint32_t mid = lo + (hi - lo) / 2;
        clrmeta_status st;
        if (pdb_get(pdb, t, pdb_row(pdb, t, mid, NULL, &st), col) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t start = lo;
    hi = rows + 1;
    while (lo < hi) { /* first row whose key > key */
        uint32_t mid = lo + (hi - lo) / 2;
        clrmeta_status st;
        if (pdb_get(pdb, t, pdb_row(pdb, t, mid, NULL, &st), col) <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = start;
    *count = lo - start;
}

clrmeta_status clrmeta_pdb_local_scopes(const clrmeta_pdb *pdb, uint32_t method_rid,
                                        uint32_t *first, uint32_t *count, clrmeta_error *err)
{
    if (!pdb || !first || !count)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    sorted_range(pdb, SCOPE, 0, method_rid, first, count);
    return meta_ok(err);
}

/* A list column: positions [start, next row's start) clamped to the list's
 * table. */
static void list_run(const clrmeta_pdb *pdb, unsigned t, uint32_t rid, unsigned col,
                     unsigned target, uint32_t *start, uint32_t *n)
{
    uint32_t rows = pdb->tables[t - DOC].rows, trows = pdb->tables[target - DOC].rows;
    clrmeta_status st;
    uint32_t s = pdb_get(pdb, t, pdb_row(pdb, t, rid, NULL, &st), col);
    uint32_t e = rid < rows ? pdb_get(pdb, t, pdb_row(pdb, t, rid + 1, NULL, &st), col) : trows + 1;
    if (s == 0)
        s = 1;
    if (e > trows + 1)
        e = trows + 1;
    *start = s;
    *n = e > s ? e - s : 0;
}

clrmeta_status clrmeta_pdb_local_scope(const clrmeta_pdb *pdb, uint32_t rid, clrmeta_local_scope *out,
                                       clrmeta_error *err)
{
    clrmeta_status st;
    const uint8_t *r = row_for(pdb, out, SCOPE, rid, err, &st);
    if (!r)
        return st;
    out->method = pdb_get(pdb, SCOPE, r, 0);
    out->import_scope = pdb_get(pdb, SCOPE, r, 1);
    out->start_offset = pdb_get(pdb, SCOPE, r, 4);
    out->length = pdb_get(pdb, SCOPE, r, 5);
    list_run(pdb, SCOPE, rid, 2, VAR, &out->first_variable, &out->variable_count);
    list_run(pdb, SCOPE, rid, 3, CONST, &out->first_constant, &out->constant_count);
    return meta_ok(err);
}

clrmeta_status clrmeta_pdb_local_variable(const clrmeta_pdb *pdb, uint32_t rid,
                                          clrmeta_local_variable_row *out, clrmeta_error *err)
{
    clrmeta_status st;
    const uint8_t *r = row_for(pdb, out, VAR, rid, err, &st);
    if (!r)
        return st;
    out->attributes = (uint16_t)pdb_get(pdb, VAR, r, 0);
    out->index = (uint16_t)pdb_get(pdb, VAR, r, 1);
    if ((st = string_cell(pdb, VAR, r, 2, &out->name, err)) != CLRMETA_OK)
        return st;
    return meta_ok(err);
}

clrmeta_status clrmeta_pdb_local_constant(const clrmeta_pdb *pdb, uint32_t rid,
                                          clrmeta_local_constant_row *out, clrmeta_error *err)
{
    clrmeta_status st;
    const uint8_t *r = row_for(pdb, out, CONST, rid, err, &st);
    if (!r)
        return st;
    if ((st = string_cell(pdb, CONST, r, 0, &out->name, err)) != CLRMETA_OK ||
        (st = blob_cell(pdb, CONST, r, 1, &out->signature, err)) != CLRMETA_OK)
        return st;
    return meta_ok(err);
}

clrmeta_status clrmeta_pdb_locals_at(const clrmeta_pdb *pdb, uint32_t method_rid,
                                     uint32_t il_offset, uint32_t *rids, uint32_t cap, uint32_t *n,
                                     clrmeta_error *err)
{
    if (!pdb || !n || (cap && !rids))
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    *n = 0;
    uint32_t first, count;
    sorted_range(pdb, SCOPE, 0, method_rid, &first, &count);
    for (uint32_t s = first; s < first + count; s++) {
        clrmeta_local_scope sc;
        clrmeta_status st = clrmeta_pdb_local_scope(pdb, s, &sc, err);
        if (st != CLRMETA_OK)
            return st;
        if (il_offset < sc.start_offset || il_offset - sc.start_offset >= sc.length)
            continue;
        for (uint32_t v = sc.first_variable; v < sc.first_variable + sc.variable_count; v++) {
            clrmeta_local_variable_row lv;
            if ((st = clrmeta_pdb_local_variable(pdb, v, &lv, err)) != CLRMETA_OK)
                return st;
            if (lv.attributes & CLRMETA_LOCAL_DEBUGGER_HIDDEN)
                continue;
            if (*n < cap)
                rids[*n] = v;
            ++*n;
        }
    }
    return meta_ok(err);
}

const uint8_t *clrmeta_kind_hoisted_scopes(void)
{
    static const uint8_t kind[16] = { /* 6DA9A61E-F8C7-4874-BE62-68BC5630DF71 */
        0x1E, 0xA6, 0xA9, 0x6D, 0xC7, 0xF8, 0x74, 0x48, 0xBE, 0x62, 0x68, 0xBC, 0x56, 0x30, 0xDF, 0x71
    };
    return kind;
}

clrmeta_status clrmeta_pdb_hoisted_at(const clrmeta_pdb *pdb, uint32_t move_next_rid,
                                      uint32_t il_offset, uint32_t *slots, uint32_t cap,
                                      uint32_t *n, clrmeta_error *err)
{
    if (!pdb || !n || (cap && !slots))
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    *n = 0;
    clrmeta_blob b;
    int found = 0;
    clrmeta_status st = clrmeta_pdb_custom_debug(pdb, CLRMETA_TOKEN(CLRMETA_T_METHODDEF, move_next_rid),
                                                 clrmeta_kind_hoisted_scopes(), &b, &found, err);
    if (st != CLRMETA_OK || !found)
        return st;
    if (b.len % 8)
        return meta_fail(err, CLRMETA_E_BAD_PDB, at_of(pdb, b.p), "hoisted local scopes");
    for (uint32_t i = 0; i < b.len / 8; i++) {
        uint32_t start = rd32(b.p + 8 * i), len = rd32(b.p + 8 * i + 4);
        if (len == 0 || il_offset < start || il_offset - start >= len)
            continue;
        if (*n < cap)
            slots[*n] = i;
        ++*n;
    }
    return meta_ok(err);
}

clrmeta_status clrmeta_pdb_kickoff(const clrmeta_pdb *pdb, uint32_t method_rid, uint32_t *kickoff_rid,
                                   clrmeta_error *err)
{
    if (!pdb || !kickoff_rid)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    *kickoff_rid = 0;
    uint32_t first, n;
    sorted_range(pdb, SMM, 0, method_rid, &first, &n);
    if (n) {
        clrmeta_status st;
        *kickoff_rid = pdb_get(pdb, SMM, pdb_row(pdb, SMM, first, NULL, &st), 1);
    }
    return meta_ok(err);
}

clrmeta_status clrmeta_pdb_move_next(const clrmeta_pdb *pdb, uint32_t kickoff_rid,
                                     uint32_t *move_next_rid, clrmeta_error *err)
{
    if (!pdb || !move_next_rid)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    *move_next_rid = 0;
    for (uint32_t rid = 1; rid <= pdb->tables[SMM - DOC].rows && kickoff_rid; rid++) {
        clrmeta_status st;
        const uint8_t *r = pdb_row(pdb, SMM, rid, NULL, &st);
        if (pdb_get(pdb, SMM, r, 1) == kickoff_rid) {
            *move_next_rid = pdb_get(pdb, SMM, r, 0);
            break;
        }
    }
    return meta_ok(err);
}

/* A token as a HasCustomDebugInformation coded value (tag in the low bits);
 * 0 when its table is not one the coded index names. */
static uint32_t hcdi_encode(uint32_t token)
{
    uint32_t t = token >> 24, rid = token & 0x00FFFFFFu;
    for (uint32_t i = 0; i < sizeof hcdi_tables; i++)
        if (hcdi_tables[i] == t)
            return rid << HCDI_BITS | i;
    return 0;
}

clrmeta_status clrmeta_pdb_custom_debug(const clrmeta_pdb *pdb, uint32_t parent, const uint8_t kind[16],
                                        clrmeta_blob *out, int *found, clrmeta_error *err)
{
    if (!pdb || !kind || !out || !found)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    *found = 0;
    out->p = NULL;
    out->len = 0;
    uint32_t key = hcdi_encode(parent), first, n;
    if (!key)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "parent token");
    sorted_range(pdb, CDI, 0, key, &first, &n);
    for (uint32_t rid = first; rid < first + n; rid++) {
        clrmeta_status st;
        const uint8_t *r = pdb_row(pdb, CDI, rid, err, &st), *g;
        if (!r)
            return st;
        if ((st = guid_cell(pdb, CDI, r, 1, &g, err)) != CLRMETA_OK)
            return st;
        if (g && memcmp(g, kind, 16) == 0) {
            if ((st = blob_cell(pdb, CDI, r, 2, out, err)) != CLRMETA_OK)
                return st;
            *found = 1;
            break;
        }
    }
    return meta_ok(err);
}
