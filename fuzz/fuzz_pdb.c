/* libFuzzer harness for libclrmeta's Portable PDB reader. An input that
 * starts with "MZ" is an assembly: its debug directory read, an embedded
 * PDB (at most FUZZ_MAX_INFLATED bytes) inflated and read; anything else is
 * a PDB's bytes. tests/meta/pdb_walk.h reads everything. Seeds: the captured
 * PDBs of tests/meta/pdb (fuzz/run.sh). */
#include <stdint.h>
#include <stdlib.h>

#include "pdb_walk.h"

#define FUZZ_MAX_INFLATED (4u * 1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 2 && data[0] == 'M' && data[1] == 'Z') {
        clrmeta md;
        clrmeta_debug_dir dd;
        if (clrmeta_open(data, size, &md, NULL) != CLRMETA_OK ||
            clrmeta_debug_directory(&md, &dd, NULL) != CLRMETA_OK || !dd.has_embedded ||
            dd.embedded_inflated > FUZZ_MAX_INFLATED)
            return 0;
        uint8_t *out = malloc(dd.embedded_inflated ? dd.embedded_inflated : 1);
        clrmeta_pdb p;
        if (out && clrmeta_pdb_inflate(&md, &dd, out, dd.embedded_inflated, NULL) == CLRMETA_OK &&
            clrmeta_pdb_open(out, dd.embedded_inflated, &p, NULL) == CLRMETA_OK)
            pdb_walk(&p);
        free(out);
        return 0;
    }
    clrmeta_pdb p;
    if (clrmeta_pdb_open(data, size, &p, NULL) == CLRMETA_OK)
        pdb_walk(&p);
    return 0;
}
