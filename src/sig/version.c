/* The version libclrsig was built as (include/clrsig/clrsig.h). */
#include "clrsig/clrsig.h"

unsigned clrsig_version_number(void)
{
    return CLRSIG_VERSION_NUMBER;
}

const char *clrsig_version_string(void)
{
    return CLRSIG_VERSION_STRING;
}
