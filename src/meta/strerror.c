#include <stdio.h>

#include "clrmeta/clrmeta.h"

static const char *const messages[CLRMETA_STATUS_COUNT] = {
    [CLRMETA_OK] = "ok",
    [CLRMETA_E_ARGUMENT] = "invalid argument",
    [CLRMETA_E_TRUNCATED] = "file truncated",
    [CLRMETA_E_NOT_PE] = "not a PE file",
    [CLRMETA_E_BAD_PE] = "bad PE header",
    [CLRMETA_E_NOT_CLI] = "not a .NET assembly",
    [CLRMETA_E_BAD_RVA] = "RVA outside the file's sections",
    [CLRMETA_E_BAD_CLI_HEADER] = "bad CLI header",
    [CLRMETA_E_BAD_METADATA] = "bad metadata root",
    [CLRMETA_E_BAD_STREAM] = "bad metadata stream header",
    [CLRMETA_E_NO_TABLES] = "no metadata table stream",
    [CLRMETA_E_BAD_TABLES] = "bad metadata tables",
    [CLRMETA_E_BAD_INDEX] = "row index out of range",
    [CLRMETA_E_BAD_CODED_INDEX] = "invalid coded index tag",
    [CLRMETA_E_BAD_STRING] = "bad #Strings reference",
    [CLRMETA_E_BAD_BLOB] = "bad blob reference",
    [CLRMETA_E_BAD_GUID] = "bad #GUID reference",
    [CLRMETA_E_CYCLE] = "reference chain loops or is too long",
    [CLRMETA_E_NO_INDEX] = "index not built",
    [CLRMETA_E_MEMORY] = "index memory too small",
    [CLRMETA_E_LIMIT] = "file or size over a limit",
    [CLRMETA_E_BAD_DEBUG] = "bad debug directory",
    [CLRMETA_E_NO_PDB] = "no Portable PDB",
    [CLRMETA_E_BAD_PDB] = "bad Portable PDB",
    [CLRMETA_E_INFLATE] = "embedded PDB does not inflate",
    [CLRMETA_E_PDB_MISMATCH] = "PDB does not match the assembly",
    [CLRMETA_E_IO] = "cannot read the file",
};

const char *clrmeta_strerror(clrmeta_status code)
{
    if ((unsigned)code >= CLRMETA_STATUS_COUNT || !messages[code])
        return "unknown error";
    return messages[code];
}

size_t clrmeta_describe(const clrmeta_error *err, char *out, size_t cap)
{
    if (!out || !cap)
        return 0;
    if (!err) {
        out[0] = '\0';
        return 0;
    }
    int n = snprintf(out, cap, "%s (%s, offset 0x%X)", clrmeta_strerror(err->code),
                     err->what && err->what[0] ? err->what : "?", (unsigned)err->offset);
    if (n < 0) {
        out[0] = '\0';
        return 0;
    }
    return (size_t)n < cap ? (size_t)n : cap - 1;
}
