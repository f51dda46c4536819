/* From file bytes to tables: DOS header → PE headers → section table → CLI
 * header → metadata root → stream headers → table stream header (ECMA-335
 * II.25 and II.24.2). Each step checks that what it is about to read lies
 * inside the file (or inside the enclosing structure) first; lengths are
 * added in 64 bits so that no sum wraps. */
#include <string.h>

#include "meta_internal.h"

#define DOS_HEADER_SIZE 0x40
#define COFF_HEADER_SIZE 20
#define SECTION_HEADER_SIZE 40
#define CLI_HEADER_SIZE 72
#define CLI_DIRECTORY 14
#define DEBUG_DIRECTORY 6
#define METADATA_ROOT_MIN 20  /* signature .. version length, then flags and count */
#define TABLES_HEADER_SIZE 24

static int fits(uint64_t off, uint64_t len, uint64_t size)
{
    return off <= size && len <= size - off;
}

clrmeta_status clrmeta_rva_to_offset(const clrmeta *md, uint32_t rva, uint32_t size,
                                     uint32_t *offset, clrmeta_error *err)
{
    if (!md || !offset)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    for (uint32_t i = 0; i < md->nsections; i++) {
        const uint8_t *s = md->file + md->sections_offset + (size_t)i * SECTION_HEADER_SIZE;
        uint32_t va = rd32(s + 12), raw_size = rd32(s + 16), raw_ptr = rd32(s + 20);
        if (rva < va || rva - va >= raw_size)
            continue;
        uint32_t rel = rva - va;
        if ((uint64_t)rel + size > raw_size)
            continue;
        uint64_t off = (uint64_t)raw_ptr + rel;
        if (!fits(off, size, md->size))
            continue;
        *offset = (uint32_t)off;
        return meta_ok(err);
    }
    return meta_fail(err, CLRMETA_E_BAD_RVA, 0, "RVA");
}

/* DOS header, PE signature, COFF header, optional header, section table. */
static clrmeta_status open_pe(clrmeta *md, uint32_t *cli_rva, uint32_t *cli_size,
                              uint32_t *dir_off, clrmeta_error *err)
{
    const uint8_t *f = md->file;
    uint32_t size = md->size;
    if (size < 2 || f[0] != 'M' || f[1] != 'Z')
        return meta_fail(err, CLRMETA_E_NOT_PE, 0, "no MZ signature");
    if (size < DOS_HEADER_SIZE)
        return meta_fail(err, CLRMETA_E_TRUNCATED, 0, "DOS header");
    uint32_t lfanew = rd32(f + 0x3C);
    if (!fits(lfanew, 4, size))
        return meta_fail(err, CLRMETA_E_BAD_PE, 0x3C, "e_lfanew past the end of the file");
    if (memcmp(f + lfanew, "PE\0\0", 4) != 0)
        return meta_fail(err, CLRMETA_E_BAD_PE, lfanew, "no PE\\0\\0 signature at e_lfanew");
    uint32_t coff = lfanew + 4;
    if (!fits(coff, COFF_HEADER_SIZE, size))
        return meta_fail(err, CLRMETA_E_TRUNCATED, coff, "COFF header");
    md->machine = rd16(f + coff);
    md->nsections = rd16(f + coff + 2);
    uint32_t opt_size = rd16(f + coff + 16);
    uint32_t opt = coff + COFF_HEADER_SIZE;
    if (!fits(opt, opt_size, size))
        return meta_fail(err, CLRMETA_E_TRUNCATED, opt, "optional header");
    if (opt_size < 2)
        return meta_fail(err, CLRMETA_E_BAD_PE, coff + 16, "SizeOfOptionalHeader");
    uint16_t magic = rd16(f + opt);
    uint32_t count_at, dirs_at;
    if (magic == 0x10B) {
        count_at = 92;
        dirs_at = 96;
    } else if (magic == 0x20B) {
        count_at = 108;
        dirs_at = 112;
        md->pe32plus = 1;
    } else {
        return meta_fail(err, CLRMETA_E_BAD_PE, opt, "optional header magic");
    }
    if (opt_size < count_at + 4)
        return meta_fail(err, CLRMETA_E_BAD_PE, coff + 16, "SizeOfOptionalHeader");
    uint32_t ndirs = rd32(f + opt + count_at);
    *dir_off = opt + dirs_at + CLI_DIRECTORY * 8;
    if (ndirs <= CLI_DIRECTORY || opt_size < dirs_at + (CLI_DIRECTORY + 1) * 8)
        return meta_fail(err, CLRMETA_E_NOT_CLI, opt + count_at,
                         "no CLI header: fewer than 15 data directories");
    *cli_rva = rd32(f + *dir_off);
    *cli_size = rd32(f + *dir_off + 4);
    md->debug_rva = rd32(f + opt + dirs_at + DEBUG_DIRECTORY * 8);
    md->debug_size = rd32(f + opt + dirs_at + DEBUG_DIRECTORY * 8 + 4);
    md->sections_offset = opt + opt_size;
    if (!fits(md->sections_offset, (uint64_t)md->nsections * SECTION_HEADER_SIZE, size))
        return meta_fail(err, CLRMETA_E_TRUNCATED, md->sections_offset, "section table");
    return CLRMETA_OK;
}

/* CLI header → metadata directory. */
static clrmeta_status open_cli(clrmeta *md, uint32_t cli_rva, uint32_t cli_size,
                               uint32_t dir_off, clrmeta_error *err)
{
    const uint8_t *f = md->file;
    if (cli_rva == 0)
        return meta_fail(err, CLRMETA_E_NOT_CLI, dir_off,
                         "no CLI header: data directory 14 is empty");
    if (cli_size < CLI_HEADER_SIZE)
        return meta_fail(err, CLRMETA_E_BAD_CLI_HEADER, dir_off + 4, "CLI header size");
    if (clrmeta_rva_to_offset(md, cli_rva, CLI_HEADER_SIZE, &md->cli_offset, NULL) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_RVA, dir_off, "CLI header RVA");
    const uint8_t *c = f + md->cli_offset;
    md->runtime_major = rd16(c + 4);
    md->runtime_minor = rd16(c + 6);
    uint32_t md_rva = rd32(c + 8), md_size = rd32(c + 12);
    md->cli_flags = rd32(c + 16);
    md->entry_point = rd32(c + 20);
    if (md_rva == 0 || md_size == 0)
        return meta_fail(err, CLRMETA_E_BAD_CLI_HEADER, md->cli_offset + 8, "metadata directory");
    if (clrmeta_rva_to_offset(md, md_rva, md_size, &md->metadata_offset, NULL) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_RVA, md->cli_offset + 8, "metadata RVA");
    md->metadata_size = md_size;
    return CLRMETA_OK;
}

/* Metadata root and stream headers (II.24.2.1, II.24.2.2); a Portable PDB's
 * #Pdb stream too. */
clrmeta_status meta_open_root(clrmeta *md, clrmeta_error *err)
{
    const uint8_t *m = md->file + md->metadata_offset;
    uint32_t msize = md->metadata_size, moff = md->metadata_offset;
    if (msize < METADATA_ROOT_MIN)
        return meta_fail(err, CLRMETA_E_BAD_METADATA, moff, "metadata root");
    if (rd32(m) != 0x424A5342u)
        return meta_fail(err, CLRMETA_E_BAD_METADATA, moff, "no BSJB signature");
    md->md_major = rd16(m + 4);
    md->md_minor = rd16(m + 6);
    uint32_t vlen = rd32(m + 12);
    if (!fits(16, (uint64_t)vlen + 4, msize))
        return meta_fail(err, CLRMETA_E_BAD_METADATA, moff + 12, "version length");
    md->version = (const char *)m + 16;
    const uint8_t *nul = memchr(m + 16, 0, vlen);
    md->version_len = nul ? (uint32_t)(nul - (m + 16)) : vlen;
    uint32_t pos = 16 + vlen;
    md->md_flags = rd16(m + pos);
    uint32_t nstreams = rd16(m + pos + 2);
    pos += 4;
    for (uint32_t i = 0; i < nstreams; i++) {
        if (!fits(pos, 8, msize))
            return meta_fail(err, CLRMETA_E_BAD_STREAM, moff + pos, "stream header");
        uint32_t soff = rd32(m + pos), ssize = rd32(m + pos + 4);
        uint32_t name_at = pos + 8;
        uint32_t room = msize - name_at;
        if (room > CLRMETA_MAX_STREAM_NAME)
            room = CLRMETA_MAX_STREAM_NAME;
        const uint8_t *end = memchr(m + name_at, 0, room);
        if (!end)
            return meta_fail(err, CLRMETA_E_BAD_STREAM, moff + name_at, "stream name");
        const char *name = (const char *)m + name_at;
        uint32_t name_len = (uint32_t)(end - (m + name_at));
        if (!fits(soff, ssize, msize))
            return meta_fail(err, CLRMETA_E_BAD_STREAM, moff + pos, "stream range");
        clrmeta_heap h = { m + soff, ssize, moff + soff };
        clrmeta_heap *slot = NULL;
        if (!strcmp(name, "#~") || !strcmp(name, "#-")) {
            if (!md->tables_stream.p) {
                slot = &md->tables_stream;
                md->uncompressed = name[1] == '-';
            }
        } else if (!strcmp(name, "#Strings")) {
            slot = &md->strings;
        } else if (!strcmp(name, "#US")) {
            slot = &md->us;
        } else if (!strcmp(name, "#Blob")) {
            slot = &md->blob;
        } else if (!strcmp(name, "#GUID")) {
            slot = &md->guid;
        } else if (!strcmp(name, "#Pdb")) {
            slot = &md->pdb;
        } else if (!strcmp(name, "#JTD")) {
            md->minimal_delta = 1;
        }
        if (slot && !slot->p)  /* the first stream of a name wins */
            *slot = h;
        /* The name is padded to a multiple of 4 bytes (with its NUL). The
         * padding may run past the metadata only for the last header. */
        pos = name_at + ((name_len + 1 + 3) & ~3u);
        if (pos > msize)
            pos = msize;
    }
    if (!md->tables_stream.p)
        return meta_fail(err, CLRMETA_E_NO_TABLES, moff, "#~ stream");
    return CLRMETA_OK;
}

clrmeta_status meta_table_header(clrmeta *md, unsigned first, unsigned count,
                                 clrmeta_table_info *tables, clrmeta_status bad_valid,
                                 const char *bad_valid_what, uint32_t *end, clrmeta_error *err)
{
    const clrmeta_heap *ts = &md->tables_stream;
    const uint8_t *t = ts->p;
    if (ts->size < TABLES_HEADER_SIZE)
        return meta_fail(err, CLRMETA_E_BAD_TABLES, ts->offset, "table stream header");
    md->tables_major = t[4];
    md->tables_minor = t[5];
    md->heap_sizes = t[6];
    md->valid = rd64(t + 8);
    md->sorted = rd64(t + 16);
    uint64_t known = (count >= 64 ? ~0ull : ((1ull << count) - 1)) << first;
    if (md->valid & ~known)
        return meta_fail(err, bad_valid, ts->offset + 8, bad_valid_what);
    uint32_t pos = TABLES_HEADER_SIZE;
    for (unsigned i = 0; i < count; i++) {
        if (!(md->valid >> (first + i) & 1))
            continue;
        if (!fits(pos, 4, ts->size))
            return meta_fail(err, CLRMETA_E_BAD_TABLES, ts->offset + pos, "row counts");
        uint32_t rows = rd32(t + pos);
        if (rows > CLRMETA_MAX_ROWS)
            return meta_fail(err, CLRMETA_E_BAD_TABLES, ts->offset + pos, "row count");
        tables[i].rows = rows;
        pos += 4;
    }
    if (md->heap_sizes & 0x40) { /* an extra 4 bytes, honoured by CoreCLR and SRM */
        if (!fits(pos, 4, ts->size))
            return meta_fail(err, CLRMETA_E_BAD_TABLES, ts->offset + pos, "extra data");
        pos += 4;
    }
    *end = pos;
    return CLRMETA_OK;
}

clrmeta_status meta_place_tables(const clrmeta *md, clrmeta_table_info *tables, unsigned count,
                                 uint32_t pos, const char *(*name)(unsigned i), clrmeta_error *err)
{
    const clrmeta_heap *ts = &md->tables_stream;
    uint64_t at = pos;
    for (unsigned i = 0; i < count; i++) {
        clrmeta_table_info *ti = &tables[i];
        uint64_t bytes = (uint64_t)ti->rows * ti->row_size;
        if (!fits(at, bytes, ts->size))
            return meta_fail(err, CLRMETA_E_BAD_TABLES, ts->offset + (uint32_t)at, name(i));
        ti->offset = ts->offset + (uint32_t)at;
        at += bytes;
    }
    return CLRMETA_OK;
}

static const char *table_name(unsigned i)
{
    return meta_tables[i].name;
}

/* Table stream header, row counts, schema, and the check that the tables fit. */
static clrmeta_status open_tables(clrmeta *md, clrmeta_error *err)
{
    uint32_t pos;
    clrmeta_status st = meta_table_header(md, 0, CLRMETA_TABLE_COUNT, md->tables,
                                          CLRMETA_E_BAD_TABLES, "Valid (unknown table)", &pos, err);
    if (st != CLRMETA_OK)
        return st;
    meta_layout(md);
    return meta_place_tables(md, md->tables, CLRMETA_TABLE_COUNT, pos, table_name, err);
}

clrmeta_status clrmeta_open(const uint8_t *file, size_t len, clrmeta *md, clrmeta_error *err)
{
    if (!md || (!file && len))
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    memset(md, 0, sizeof *md);
    if (len > CLRMETA_MAX_FILE_SIZE)
        return meta_fail(err, CLRMETA_E_LIMIT, 0, "file size");
    md->file = file;
    md->size = (uint32_t)len;
    uint32_t cli_rva = 0, cli_size = 0, dir_off = 0;
    clrmeta_status st;
    if ((st = open_pe(md, &cli_rva, &cli_size, &dir_off, err)) != CLRMETA_OK ||
        (st = open_cli(md, cli_rva, cli_size, dir_off, err)) != CLRMETA_OK ||
        (st = meta_open_root(md, err)) != CLRMETA_OK ||
        (st = open_tables(md, err)) != CLRMETA_OK) {
        const uint8_t *keep = md->file;
        uint32_t keep_size = md->size;
        memset(md, 0, sizeof *md);
        md->file = keep;
        md->size = keep_size;
        return st;
    }
    return meta_ok(err);
}
