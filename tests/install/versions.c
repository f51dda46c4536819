/* Built against the installed headers and libraries (tests/install/run.sh):
 * each library's version functions must give the version its header has.
 * Prints one line per library, "NAME STRING NUMBER", and exits 1 when a
 * library and its header disagree. */
#include <stdio.h>
#include <string.h>

#include <clril/clril.h>
#include <clrmeta/clrmeta.h>
#include <clrsig/clrsig.h>

static int check(const char *name, unsigned header_number, const char *header_string,
                 unsigned lib_number, const char *lib_string)
{
    int ok = header_number == lib_number && strcmp(header_string, lib_string) == 0;
    printf("%s %s %u\n", name, lib_string, lib_number);
    if (!ok)
        fprintf(stderr, "%s: the header says %s (%u), the library %s (%u)\n", name,
                header_string, header_number, lib_string, lib_number);
    return ok;
}

int main(void)
{
    int ok = check("clrsig", CLRSIG_VERSION_NUMBER, CLRSIG_VERSION_STRING,
                   clrsig_version_number(), clrsig_version_string());
    ok &= check("clrmeta", CLRMETA_VERSION_NUMBER, CLRMETA_VERSION_STRING,
                clrmeta_version_number(), clrmeta_version_string());
    ok &= check("clril", CLRIL_VERSION_NUMBER, CLRIL_VERSION_STRING, clril_version_number(),
                clril_version_string());
    return ok ? 0 : 1;
}
