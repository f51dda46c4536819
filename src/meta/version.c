/* The version libclrmeta was built as (include/clrmeta/clrmeta.h). */
#include "clrmeta/clrmeta.h"

unsigned clrmeta_version_number(void)
{
    return CLRMETA_VERSION_NUMBER;
}

const char *clrmeta_version_string(void)
{
    return CLRMETA_VERSION_STRING;
}
