/* The version libclril was built as (include/clril/clril.h). */
#include "clril/clril.h"

unsigned clril_version_number(void)
{
    return CLRIL_VERSION_NUMBER;
}

const char *clril_version_string(void)
{
    return CLRIL_VERSION_STRING;
}
