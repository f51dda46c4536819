/* Reads everything of a Portable PDB through libclrmeta (test_pdb and
 * fuzz_pdb): under ASan, any read outside its bytes is caught. */
#ifndef CLRTRACE_TESTS_PDB_WALK_H
#define CLRTRACE_TESTS_PDB_WALK_H

#include <stdint.h>

#include "clrmeta/clrmeta.h"

static inline void pdb_walk(const clrmeta_pdb *pdb)
{
    char name[CLRMETA_MAX_DOCUMENT_NAME];
    size_t rl;
    clrmeta_pdb_source_root(pdb, name, sizeof name, &rl, NULL);
    for (uint32_t d = 1; d <= clrmeta_pdb_rows(pdb, CLRMETA_PDB_DOCUMENT); d++)
        clrmeta_pdb_document_name(pdb, d, name, sizeof name, NULL, NULL);
    for (uint32_t m = 1; m <= clrmeta_pdb_rows(pdb, CLRMETA_PDB_METHODDEBUGINFORMATION); m++) {
        clrmeta_sp_iter it;
        clrmeta_sequence_point sp;
        if (clrmeta_pdb_sequence_points(pdb, m, &it, NULL) == CLRMETA_OK)
            for (int i = 0; i < 100000 && clrmeta_sp_next(&it, &sp, NULL) == 1; i++)
                ;
        uint32_t first, n, k;
        clrmeta_pdb_local_scopes(pdb, m, &first, &n, NULL);
        for (uint32_t s = first; s < first + n; s++) {
            clrmeta_local_scope sc;
            if (clrmeta_pdb_local_scope(pdb, s, &sc, NULL) != CLRMETA_OK)
                continue;
            for (uint32_t v = 0; v < sc.variable_count; v++) {
                clrmeta_local_variable_row lv;
                clrmeta_pdb_local_variable(pdb, sc.first_variable + v, &lv, NULL);
            }
        }
        clrmeta_pdb_kickoff(pdb, m, &k, NULL);
        clrmeta_pdb_move_next(pdb, m, &k, NULL);
    }
}

#endif
