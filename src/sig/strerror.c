#include "clrsig/clrsig.h"

static const char *const messages[CLRSIG_STATUS_COUNT] = {
    [CLRSIG_OK] = "ok",
    [CLRSIG_E_TRUNCATED] = "blob truncated",
    [CLRSIG_E_BAD_COMPRESSED] = "invalid compressed integer (111x prefix)",
    [CLRSIG_E_BAD_TOKEN_TAG] = "invalid TypeDefOrRefOrSpec tag 3",
    [CLRSIG_E_RID_OVERFLOW] = "token row id above 0xFFFFFF",
    [CLRSIG_E_NIL_TOKEN] = "nil token where a type is required",
    [CLRSIG_E_BAD_ELEMENT] = "element type not valid here",
    [CLRSIG_E_BAD_CALLCONV] = "calling convention not valid here",
    [CLRSIG_E_DEPTH] = "type nesting too deep",
    [CLRSIG_E_COUNT] = "count exceeds its limit or the bytes left",
    [CLRSIG_E_RANK] = "invalid array rank or shape",
    [CLRSIG_E_SENTINEL] = "misplaced sentinel",
    [CLRSIG_E_TRAILING] = "bytes after the end of the signature",
    [CLRSIG_E_ARENA_FULL] = "arena too small",
    [CLRSIG_E_OUTPUT_TRUNCATED] = "output buffer too small",
    [CLRSIG_E_CYCLE] = "TypeSpec refers to itself",
    [CLRSIG_E_RESOLVE] = "resolver failed",
    [CLRSIG_E_ARGUMENT] = "invalid argument",
    [CLRSIG_E_OVERFLOW] = "value out of range",
};

const char *clrsig_strerror(clrsig_status code)
{
    if ((unsigned)code >= CLRSIG_STATUS_COUNT || !messages[code])
        return "unknown error";
    return messages[code];
}
