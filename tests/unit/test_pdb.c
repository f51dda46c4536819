/* libclrmeta's Portable PDB reader on the captured PDBs of tests/meta/pdb
 * (tests/targets/Hello, standalone and embedded): documents, sequence points
 * as written by hand from Program.cs, the common source folder, and damaged
 * copies: a PDB of another build, a cut PDB at every length, a wrong
 * embedded size, a document name one byte past the caller's room.
 *
 * Usage: test_pdb DIR (tests/meta/pdb) SOURCE (tests/targets/Hello/Program.cs) */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clrmeta/clrmeta.h"
#include "pdb_walk.h"

static const char *g_dir, *g_source;

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void spill(const char *path, const uint8_t *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, len, f), len);
    fclose(f);
}

static clrmeta_pdb_file *load(const char *name, clrmeta_status want)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    clrmeta_pdb_file *f = NULL;
    clrmeta_error err;
    char where[1024];
    assert_int_equal(clrmeta_pdb_load(path, NULL, &f, where, sizeof where, &err), want);
    return f;
}

/* Program.cs, line 17: "        public static int Add(int a, int b) => a + b;"
 * (MathOps.Add, MethodDef 1): its one sequence point is "a + b", columns 48
 * to 53; Fib (MethodDef 3) is line 23; Divide (4) starts at "if (b == 0)",
 * line 30; Main (8) at its first statement, line 88. */
static void check_hello(const clrmeta_pdb *pdb)
{
    char line[256] = "";
    FILE *src = fopen(g_source, "r");
    assert_non_null(src);
    for (int i = 0; i < 17 && fgets(line, sizeof line, src); i++)
        ;
    fclose(src);
    assert_string_equal(line + 47, "a + b;\n");

    assert_int_equal(clrmeta_pdb_rows(pdb, CLRMETA_PDB_DOCUMENT), 3);
    char name[CLRMETA_MAX_DOCUMENT_NAME];
    size_t len = 0;
    assert_int_equal(clrmeta_pdb_document_name(pdb, 1, name, sizeof name, &len, NULL), CLRMETA_OK);
    assert_true(len > 30 && !strcmp(name + len - 30, "tests/targets/Hello/Program.cs"));
    char root[CLRMETA_MAX_DOCUMENT_NAME];
    size_t rl = 0;
    assert_int_equal(clrmeta_pdb_source_root(pdb, root, sizeof root, &rl, NULL), CLRMETA_OK);
    assert_int_equal(rl, len - strlen("Program.cs"));
    assert_memory_equal(root, name, rl);

    clrmeta_sequence_point sp;
    int found = 0;
    assert_int_equal(clrmeta_pdb_method_line(pdb, 1, &sp, &found, NULL), CLRMETA_OK);
    assert_true(found);
    assert_int_equal(sp.start_line, 17);
    assert_int_equal(sp.end_line, 17);
    assert_int_equal(sp.start_column, 48);
    assert_int_equal(sp.end_column, 53);
    assert_int_equal(sp.document, 1);
    assert_int_equal(clrmeta_pdb_method_line(pdb, 3, &sp, &found, NULL), CLRMETA_OK);
    assert_int_equal(sp.start_line, 23);
    assert_int_equal(clrmeta_pdb_method_line(pdb, 4, &sp, &found, NULL), CLRMETA_OK);
    assert_int_equal(sp.start_line, 30);
    assert_int_equal(clrmeta_pdb_method_line(pdb, 8, &sp, &found, NULL), CLRMETA_OK);
    assert_int_equal(sp.start_line, 88);
    /* Divide's IL past its start is still line 30 until the next point. */
    assert_int_equal(clrmeta_pdb_line_at(pdb, 4, 1, &sp, &found, NULL), CLRMETA_OK);
    assert_true(found);
    assert_int_equal(sp.start_line, 30);
    /* A method past the table: an error, not a crash. */
    assert_int_equal(clrmeta_pdb_method_line(pdb, 0x00FFFFFF, &sp, &found, NULL),
                     CLRMETA_E_BAD_INDEX);
    /* The name exactly fits, then one byte short. */
    assert_int_equal(clrmeta_pdb_document_name(pdb, 1, name, len + 1, NULL, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_document_name(pdb, 1, name, len, NULL, NULL), CLRMETA_E_LIMIT);
}

static void test_standalone(void **state)
{
    (void)state;
    clrmeta_pdb_file *f = load("Hello.dll", CLRMETA_OK);
    assert_false(f->embedded);
    check_hello(&f->pdb);
    clrmeta_pdb_free(f);
}

static void test_embedded(void **state)
{
    (void)state;
    clrmeta_pdb_file *f = load("HelloEmbedded.dll", CLRMETA_OK);
    assert_true(f->embedded);
    check_hello(&f->pdb);
    clrmeta_pdb_free(f);
}

/* Another build's PDB beside the assembly: refused. */
static void test_mismatch(void **state)
{
    (void)state;
    char tmp[] = "/tmp/test_pdb.XXXXXX", path[1024];
    assert_non_null(mkdtemp(tmp));
    size_t dl, pl;
    snprintf(path, sizeof path, "%s/Hello.dll", g_dir);
    uint8_t *dll = slurp(path, &dl);
    snprintf(path, sizeof path, "%s/Hello.pdb", g_dir);
    uint8_t *pdb = slurp(path, &pl);
    snprintf(path, sizeof path, "%s/Hello.dll", tmp);
    spill(path, dll, dl);
    clrmeta_pdb open;
    assert_int_equal(clrmeta_pdb_open(pdb, pl, &open, NULL), CLRMETA_OK);
    size_t id_at = (size_t)(open.md.pdb.p - pdb);
    pdb[id_at] ^= 1;
    char pp[1024];
    snprintf(pp, sizeof pp, "%s/Hello.pdb", tmp);
    spill(pp, pdb, pl);
    clrmeta_pdb_file *f = NULL;
    clrmeta_error err;
    assert_int_equal(clrmeta_pdb_load(path, NULL, &f, NULL, 0, &err), CLRMETA_E_PDB_MISMATCH);
    assert_null(f);
    unlink(pp);
    /* No PDB at all (and none where the CodeView entry says). */
    assert_int_equal(clrmeta_pdb_load(path, "/nonexistent-root", &f, NULL, 0, &err),
                     CLRMETA_E_NO_PDB);
    unlink(path);
    rmdir(tmp);
    free(dll);
    free(pdb);
}

/* The PDB cut at every length, and each byte of its tables flipped: errors
 * with offsets inside it, never a read outside (ASan run). */
static void test_damaged(void **state)
{
    (void)state;
    char path[1024];
    size_t pl;
    snprintf(path, sizeof path, "%s/Hello.pdb", g_dir);
    uint8_t *pdb = slurp(path, &pl);
    for (size_t n = 0; n < pl; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, pdb, n);
        clrmeta_pdb p;
        clrmeta_error err;
        if (clrmeta_pdb_open(cut, n, &p, &err) == CLRMETA_OK)
            pdb_walk(&p);
        else
            assert_true(err.offset <= n);
        free(cut);
    }
    uint8_t *copy = malloc(pl);
    for (size_t i = 0; i < pl; i++) {
        memcpy(copy, pdb, pl);
        copy[i] ^= 0xA5;
        clrmeta_pdb p;
        if (clrmeta_pdb_open(copy, pl, &p, NULL) == CLRMETA_OK)
            pdb_walk(&p);
    }
    free(copy);
    free(pdb);
}

/* An embedded PDB whose stated size is one byte more than it inflates to,
 * and its deflate data damaged: INFLATE. */
static void test_inflate(void **state)
{
    (void)state;
    char path[1024];
    size_t dl;
    snprintf(path, sizeof path, "%s/HelloEmbedded.dll", g_dir);
    uint8_t *dll = slurp(path, &dl);
    clrmeta md;
    clrmeta_debug_dir dd;
    assert_int_equal(clrmeta_open(dll, dl, &md, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_debug_directory(&md, &dd, NULL), CLRMETA_OK);
    assert_true(dd.has_embedded && dd.has_codeview && dd.deterministic);
    uint8_t *out = malloc(dd.embedded_inflated + 1);
    assert_int_equal(clrmeta_pdb_inflate(&md, &dd, out, dd.embedded_inflated, NULL), CLRMETA_OK);
    clrmeta_pdb p;
    assert_int_equal(clrmeta_pdb_open(out, dd.embedded_inflated, &p, NULL), CLRMETA_OK);
    assert_true(clrmeta_pdb_matches(&p, &dd));
    assert_int_equal(clrmeta_pdb_inflate(&md, &dd, out, dd.embedded_inflated - 1, NULL),
                     CLRMETA_E_MEMORY);
    clrmeta_debug_dir more = dd;
    more.embedded_inflated++;
    clrmeta_error err;
    assert_int_equal(clrmeta_pdb_inflate(&md, &more, out, more.embedded_inflated, &err),
                     CLRMETA_E_INFLATE);
    assert_int_equal(err.offset, dd.embedded_offset);
    dll[dd.embedded_offset + dd.embedded_size / 2] ^= 0xFF;
    dll[dd.embedded_offset] ^= 0xFF;
    assert_int_not_equal(clrmeta_pdb_inflate(&md, &dd, out, dd.embedded_inflated, NULL),
                         CLRMETA_OK);
    free(out);
    free(dll);
}

/* ------------------------------------------------- a PDB made here */

/* A Portable PDB of ndocs Documents whose name has `nparts` parts, each a
 * blob of part_len bytes 'a' (one blob, named by every part): metadata
 * root, #Pdb, #~ (Document: ndocs rows, all that name), #Blob, #GUID
 * (empty). Returns its size. */
static size_t make_pdb_docs(uint8_t *out, size_t cap, uint32_t ndocs, uint32_t nparts,
                            uint32_t part_len)
{
    uint8_t blob[16384];
    size_t bl = 0;
    blob[bl++] = 0;                         /* offset 0: the empty blob */
    uint32_t part_at = (uint32_t)bl;        /* the part: length, then bytes */
    if (part_len < 0x80) {
        blob[bl++] = (uint8_t)part_len;
    } else {
        blob[bl++] = (uint8_t)(0x80 | part_len >> 8);
        blob[bl++] = (uint8_t)part_len;
    }
    memset(blob + bl, 'a', part_len);
    bl += part_len;
    uint32_t name_at = (uint32_t)bl;        /* the name: '/', then a part index each */
    uint32_t name_len = 1 + nparts * (part_at < 0x80 ? 1 : 2);
    blob[bl++] = (uint8_t)(0x80 | name_len >> 8);
    blob[bl++] = (uint8_t)name_len;
    blob[bl++] = '/';
    for (uint32_t i = 0; i < nparts; i++)
        blob[bl++] = (uint8_t)part_at;
    while (bl % 4)
        blob[bl++] = 0;
    assert_true(bl < sizeof blob && part_at < 0x80);

    uint8_t tables[64];
    size_t tl = 0;
    memset(tables, 0, sizeof tables);
    tables[4] = 2;                          /* MajorVersion */
    tables[7] = 1;                          /* reserved */
    uint64_t valid = 1ull << 0x30;
    memcpy(tables + 8, &valid, 8);
    tl = 24;
    uint32_t rows = ndocs;
    memcpy(tables + tl, &rows, 4);
    tl += 4;
    for (uint32_t d = 0; d < ndocs; d++) {
        uint16_t name16 = (uint16_t)name_at; /* Name, HashAlgorithm, Hash, Language */
        memcpy(tables + tl, &name16, 2);
        tl += 8;
    }
    assert_true(tl <= sizeof tables);

    uint8_t pdbs[32] = {1, 2, 3};           /* id, entry point 0, no type system tables */
    static const char version[12] = "PDB v1.0";
    const struct { const char *name; const uint8_t *p; size_t len; } streams[] = {
        {"#Pdb", pdbs, sizeof pdbs}, {"#~", tables, tl}, {"#Blob", blob, bl}, {"#GUID", NULL, 0},
    };
    size_t head = 16 + sizeof version + 4, at;
    for (size_t i = 0; i < 4; i++)
        head += 8 + ((strlen(streams[i].name) + 4) & ~(size_t)3);
    assert_true(head + sizeof pdbs + tl + bl <= cap);
    memset(out, 0, head);
    memcpy(out, "BSJB", 4);
    out[4] = 1;
    out[6] = 1;
    uint32_t vlen = sizeof version;
    memcpy(out + 12, &vlen, 4);
    memcpy(out + 16, version, sizeof version);
    at = 16 + sizeof version;
    out[at + 2] = 4;                        /* streams */
    at += 4;
    size_t data = head;
    for (size_t i = 0; i < 4; i++) {
        uint32_t off = (uint32_t)data, size = (uint32_t)streams[i].len;
        memcpy(out + at, &off, 4);
        memcpy(out + at + 4, &size, 4);
        strcpy((char *)out + at + 8, streams[i].name);
        at += 8 + ((strlen(streams[i].name) + 4) & ~(size_t)3);
        if (streams[i].len)
            memcpy(out + data, streams[i].p, streams[i].len);
        data += streams[i].len;
    }
    return data;
}

static size_t make_pdb(uint8_t *out, size_t cap, uint32_t nparts, uint32_t part_len)
{
    return make_pdb_docs(out, cap, 1, nparts, part_len);
}

/* Where a line's probe goes (clrmeta_pdb_find_line), by hand from Program.cs:
 * line 17 is Add's one point (MethodDef 1, IL 0); line 31 ("{" after the if)
 * has no point: the next, line 32's throw (Divide, MethodDef 4, IL 3); line
 * 36 is blank between Divide (code up to line 34) and TryDivide (from 42);
 * line 64, a for header, has three points: the first (IL 0x12); a file
 * named by no document, and one two documents name. The IL offsets are
 * System.Reflection.Metadata's reading of this PDB (tests/meta/srmpdb:
 * "sp 3 32:17-32:67", "sp 18 64:18-64:27"). */
static void test_find_line(void **state)
{
    (void)state;
    clrmeta_pdb_file *f = load("Hello.dll", CLRMETA_OK);
    clrmeta_line_match m;
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "Program.cs", 17, &m, NULL), CLRMETA_OK);
    assert_int_equal(m.result, CLRMETA_LINE_FOUND);
    assert_true(m.method_rid == 1 && m.il_offset == 0 && m.line == 17 && m.document == 1);
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "Hello/Program.cs", 31, &m, NULL), CLRMETA_OK);
    assert_int_equal(m.result, CLRMETA_LINE_FOUND);
    assert_true(m.method_rid == 4 && m.il_offset == 3 && m.line == 32);
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "Program.cs", 36, &m, NULL), CLRMETA_OK);
    assert_int_equal(m.result, CLRMETA_LINE_NO_CODE);
    assert_true(m.before == 34 && m.after == 42);
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "Program.cs", 64, &m, NULL), CLRMETA_OK);
    assert_true(m.result == CLRMETA_LINE_FOUND && m.method_rid == 7 && m.il_offset == 0x12 &&
                m.line == 64);
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "gram.cs", 17, &m, NULL), CLRMETA_OK);
    assert_int_equal(m.result, CLRMETA_LINE_NO_FILE);
    /* By method (clrmeta_pdb_find_line_in_method): line 31 of Divide's
     * (method 4) file is its own; line 17 (Add's, method 1) is not. */
    assert_int_equal(clrmeta_pdb_find_line_in_method(&f->pdb, 4, 31, &m, NULL), CLRMETA_OK);
    assert_true(m.result == CLRMETA_LINE_FOUND && m.method_rid == 4 && m.il_offset == 3 &&
                m.line == 32);
    assert_int_equal(clrmeta_pdb_find_line_in_method(&f->pdb, 4, 17, &m, NULL), CLRMETA_OK);
    assert_true(m.result == CLRMETA_LINE_NO_CODE && m.method_rid == 0);
    /* C#'s hoisted field names: "<total>5__2" holds slot 1. */
    char hn[16];
    assert_int_equal(clrmeta_hoisted_local_name("<total>5__2", 1, hn, sizeof hn), 1);
    assert_string_equal(hn, "total");
    assert_int_equal(clrmeta_hoisted_local_name("<total>5__2", 0, hn, sizeof hn), 0);
    assert_int_equal(clrmeta_hoisted_local_name("<>5__1", 0, hn, sizeof hn), 0);
    assert_int_equal(clrmeta_hoisted_local_name("total5__1", 0, NULL, 0), 0);
    /* The locals in scope there: Greet's loop body (line 66) sees text and
     * i; TryDivide's catch (line 46) sees e, its try (line 42) none; with
     * room for one, the count is still 2. */
    uint32_t rids[4], n;
    clrmeta_local_variable_row lv;
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "Program.cs", 66, &m, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_locals_at(&f->pdb, m.method_rid, m.il_offset, rids, 4, &n, NULL),
                     CLRMETA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(clrmeta_pdb_local_variable(&f->pdb, rids[0], &lv, NULL), CLRMETA_OK);
    assert_string_equal(lv.name, "text");
    assert_int_equal(clrmeta_pdb_local_variable(&f->pdb, rids[1], &lv, NULL), CLRMETA_OK);
    assert_string_equal(lv.name, "i");
    assert_int_equal(clrmeta_pdb_locals_at(&f->pdb, m.method_rid, m.il_offset, rids, 1, &n, NULL),
                     CLRMETA_OK);
    assert_int_equal(n, 2);
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "Program.cs", 46, &m, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_locals_at(&f->pdb, m.method_rid, m.il_offset, rids, 4, &n, NULL),
                     CLRMETA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(clrmeta_pdb_local_variable(&f->pdb, rids[0], &lv, NULL), CLRMETA_OK);
    assert_string_equal(lv.name, "e");
    assert_int_equal(clrmeta_pdb_find_line(&f->pdb, "Program.cs", 42, &m, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_locals_at(&f->pdb, m.method_rid, m.il_offset, rids, 4, &n, NULL),
                     CLRMETA_OK);
    assert_int_equal(n, 0);
    clrmeta_pdb_free(f);
    static uint8_t bytes[4096];
    size_t size = make_pdb_docs(bytes, sizeof bytes, 2, 1, 8);
    clrmeta_pdb p;
    assert_int_equal(clrmeta_pdb_open(bytes, size, &p, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_find_line(&p, "aaaaaaaa", 1, &m, NULL), CLRMETA_OK);
    assert_true(m.result == CLRMETA_LINE_AMBIGUOUS && m.document == 1 && m.other == 2);
}

/* CLRMETA_MAX_DOCUMENT_NAME: a name of MAX - 1 bytes is read, one of MAX
 * is LIMIT; CLRMETA_MAX_DOCUMENT_PARTS parts are read, one more is
 * BAD_PDB. */
static void test_name_limits(void **state)
{
    (void)state;
    static uint8_t pdb_bytes[32768];
    static char name[CLRMETA_MAX_DOCUMENT_NAME + 16];
    clrmeta_pdb p;
    clrmeta_error err;
    size_t len;
    size_t n = make_pdb(pdb_bytes, sizeof pdb_bytes, 1, CLRMETA_MAX_DOCUMENT_NAME - 1);
    assert_int_equal(clrmeta_pdb_open(pdb_bytes, n, &p, &err), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_document_name(&p, 1, name, sizeof name, &len, &err), CLRMETA_OK);
    assert_int_equal(len, CLRMETA_MAX_DOCUMENT_NAME - 1);
    n = make_pdb(pdb_bytes, sizeof pdb_bytes, 1, CLRMETA_MAX_DOCUMENT_NAME);
    assert_int_equal(clrmeta_pdb_open(pdb_bytes, n, &p, &err), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_document_name(&p, 1, name, sizeof name, &len, &err),
                     CLRMETA_E_LIMIT);
    n = make_pdb(pdb_bytes, sizeof pdb_bytes, CLRMETA_MAX_DOCUMENT_PARTS, 1);
    assert_int_equal(clrmeta_pdb_open(pdb_bytes, n, &p, &err), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_document_name(&p, 1, name, sizeof name, &len, &err), CLRMETA_OK);
    assert_int_equal(len, 2 * CLRMETA_MAX_DOCUMENT_PARTS - 1); /* "a/a/.../a" */
    n = make_pdb(pdb_bytes, sizeof pdb_bytes, CLRMETA_MAX_DOCUMENT_PARTS + 1, 1);
    assert_int_equal(clrmeta_pdb_open(pdb_bytes, n, &p, &err), CLRMETA_OK);
    assert_int_equal(clrmeta_pdb_document_name(&p, 1, name, sizeof name, &len, &err),
                     CLRMETA_E_BAD_PDB);
    assert_true(err.offset < n);
}

/* CLRMETA_MAX_DEBUG_ENTRIES debug directory entries are read, one more is
 * BAD_DEBUG; an embedded PDB of CLRMETA_MAX_EMBEDDED_PDB bytes is accepted
 * (as stated), one more byte is LIMIT. */
static void test_debug_limits(void **state)
{
    (void)state;
    char path[1024];
    size_t dl;
    snprintf(path, sizeof path, "%s/HelloEmbedded.dll", g_dir);
    uint8_t *dll = slurp(path, &dl);
    clrmeta md;
    clrmeta_debug_dir dd;
    clrmeta_error err;
    assert_int_equal(clrmeta_open(dll, dl, &md, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_debug_directory(&md, &dd, NULL), CLRMETA_OK);
    /* The stated size (MPDB, then u32) at the limit and one past it. */
    uint32_t size_at = dd.embedded_offset - 4, v = CLRMETA_MAX_EMBEDDED_PDB;
    memcpy(dll + size_at, &v, 4);
    assert_int_equal(clrmeta_debug_directory(&md, &dd, &err), CLRMETA_OK);
    assert_int_equal(dd.embedded_inflated, CLRMETA_MAX_EMBEDDED_PDB);
    v++;
    memcpy(dll + size_at, &v, 4);
    assert_int_equal(clrmeta_debug_directory(&md, &dd, &err), CLRMETA_E_LIMIT);
    assert_int_equal(err.offset, size_at);
    /* The directory's size: 64 entries, then 65. */
    md.debug_size = CLRMETA_MAX_DEBUG_ENTRIES * 28;
    clrmeta_status st = clrmeta_debug_directory(&md, &dd, &err);
    assert_true(st != CLRMETA_E_BAD_DEBUG || strcmp(err.what, "debug directory size") != 0);
    md.debug_size = (CLRMETA_MAX_DEBUG_ENTRIES + 1) * 28;
    assert_int_equal(clrmeta_debug_directory(&md, &dd, &err), CLRMETA_E_BAD_DEBUG);
    assert_string_equal(err.what, "debug directory size");
    free(dll);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_pdb DIR SOURCE\n");
        return 2;
    }
    g_dir = argv[1];
    g_source = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standalone), cmocka_unit_test(test_embedded),
        cmocka_unit_test(test_mismatch),   cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_inflate),    cmocka_unit_test(test_name_limits),
        cmocka_unit_test(test_debug_limits), cmocka_unit_test(test_find_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
