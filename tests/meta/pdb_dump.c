/* pdb_dump ASSEMBLY: an assembly's Portable PDB as libclrmeta reads it, in
 * the text tests/meta/srmpdb prints with System.Reflection.Metadata (the
 * oracle, tests/meta/oracle_pdb.sh compares the two). */
#include <stdio.h>
#include <string.h>

#include "clrmeta/clrmeta.h"

static void guid_text(const uint8_t *g, char out[37])
{
    static const uint8_t zero[16];
    if (!g)
        g = zero;
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
             g[13], g[14], g[15]);
}

static int fail(const char *what, const clrmeta_error *err)
{
    char msg[CLRMETA_MAX_MESSAGE];
    clrmeta_describe(err, msg, sizeof msg);
    fprintf(stderr, "pdb_dump: %s: %s\n", what, msg);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pdb_dump ASSEMBLY\n");
        return 2;
    }
    clrmeta_pdb_file *f;
    clrmeta_error err;
    char where[4096];
    if (clrmeta_pdb_load(argv[1], NULL, &f, where, sizeof where, &err) != CLRMETA_OK)
        return fail(where, &err);
    const clrmeta_pdb *pdb = &f->pdb;
    if (f->embedded) {
        printf("pdb embedded\n");
    } else {
        const char *base = strrchr(f->path, '/');
        printf("pdb file %s\n", base ? base + 1 : f->path);
    }
    printf("id ");
    for (int i = 0; i < CLRMETA_PDB_ID_SIZE; i++)
        printf("%02x", pdb->id[i]);
    printf("\n");
    int rc = 0;
    for (uint32_t d = 1; d <= clrmeta_pdb_rows(pdb, CLRMETA_PDB_DOCUMENT); d++) {
        clrmeta_document_row row;
        char name[CLRMETA_MAX_DOCUMENT_NAME], lang[37], hash[37];
        if (clrmeta_pdb_document(pdb, d, &row, &err) != CLRMETA_OK ||
            clrmeta_pdb_document_name(pdb, d, name, sizeof name, NULL, &err) != CLRMETA_OK) {
            rc = fail("document", &err);
            break;
        }
        guid_text(row.language, lang);
        guid_text(row.hash_algorithm, hash);
        printf("document %u %s lang=%s hash=%s hashlen=%u\n", d, name, lang, hash, row.hash.len);
    }
    unsigned long methods = 0, sps = 0, locals = 0;
    for (uint32_t m = 1; m <= clrmeta_pdb_rows(pdb, CLRMETA_PDB_METHODDEBUGINFORMATION) && !rc; m++) {
        clrmeta_sp_iter it;
        clrmeta_sequence_point sp;
        uint32_t first, nscopes, kickoff;
        if (clrmeta_pdb_sequence_points(pdb, m, &it, &err) != CLRMETA_OK ||
            clrmeta_pdb_local_scopes(pdb, m, &first, &nscopes, &err) != CLRMETA_OK ||
            clrmeta_pdb_kickoff(pdb, m, &kickoff, &err) != CLRMETA_OK) {
            rc = fail("method", &err);
            break;
        }
        int r = clrmeta_sp_next(&it, &sp, &err);
        if (r == 0 && nscopes == 0 && kickoff == 0)
            continue;
        printf("method 0x06%06x\n", m);
        methods++;
        for (; r == 1; r = clrmeta_sp_next(&it, &sp, &err)) {
            sps++;
            if (sp.hidden)
                printf("  sp %u hidden doc=%u\n", sp.il_offset, sp.document);
            else
                printf("  sp %u %u:%u-%u:%u doc=%u\n", sp.il_offset, sp.start_line,
                       sp.start_column, sp.end_line, sp.end_column, sp.document);
        }
        if (r < 0) {
            rc = fail("sequence points", &err);
            break;
        }
        for (uint32_t s = first; s < first + nscopes && !rc; s++) {
            clrmeta_local_scope sc;
            if (clrmeta_pdb_local_scope(pdb, s, &sc, &err) != CLRMETA_OK) {
                rc = fail("scope", &err);
                break;
            }
            printf("  scope %u %u import=%u\n", sc.start_offset, sc.length, sc.import_scope);
            for (uint32_t v = sc.first_variable; v < sc.first_variable + sc.variable_count; v++) {
                clrmeta_local_variable_row lv;
                if (clrmeta_pdb_local_variable(pdb, v, &lv, &err) != CLRMETA_OK) {
                    rc = fail("local", &err);
                    break;
                }
                printf("    local %u %s attrs=%u\n", lv.index, lv.name, lv.attributes);
                locals++;
            }
            for (uint32_t c = sc.first_constant; c < sc.first_constant + sc.constant_count && !rc;
                 c++) {
                clrmeta_local_constant_row lc;
                if (clrmeta_pdb_local_constant(pdb, c, &lc, &err) != CLRMETA_OK) {
                    rc = fail("constant", &err);
                    break;
                }
                printf("    const %s\n", lc.name);
            }
        }
        if (kickoff)
            printf("  kickoff 0x06%06x\n", kickoff);
        clrmeta_blob hb;
        int hf = 0;
        if (clrmeta_pdb_custom_debug(pdb, 0x06000000u | m, clrmeta_kind_hoisted_scopes(), &hb, &hf,
                                     &err) != CLRMETA_OK) {
            rc = fail("hoisted scopes", &err);
            break;
        }
        for (uint32_t i = 0; hf && i + 8 <= hb.len; i += 8) {
            uint32_t st, ln;
            memcpy(&st, hb.p + i, 4);
            memcpy(&ln, hb.p + i + 4, 4);
            printf("  hoisted %u %u\n", st, ln);
        }
    }
    clrmeta_blob sl;
    int found = 0;
    if (!rc && clrmeta_pdb_custom_debug(pdb, 0x00000001, clrmeta_kind_source_link(), &sl, &found,
                                        &err) != CLRMETA_OK)
        rc = fail("source link", &err);
    if (!rc && found)
        printf("sourcelink %u\n", sl.len);
    if (!rc)
        printf("methods %lu sequencepoints %lu locals %lu\n", methods, sps, locals);
    clrmeta_pdb_free(f);
    return rc;
}
