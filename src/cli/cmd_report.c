/* clrtrace report DIR: the summary table of a binary trace (calls, total
 * and self time per function), as at the end of the text log. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace report DIR\n"
        "\n"
        "Prints the summary of the trace in DIR (written by `clrtrace record -o DIR`;\n"
        "DIR may also be the trace file itself): the program's header line, then one\n"
        "row per function with its calls, total (inclusive) and self time, largest total\n"
        "first; the same table as at the end of `clrtrace replay DIR`.\n"
        "\n"
        "Exit status: 0; 1 when the trace cannot be read or is damaged (one line on stderr\n"
        "gives the byte offset); 2 for a usage error.\n");
}

int cmd_report(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "clrtrace report: unknown option '%s' (try --help)\n", argv[i]);
            return 2;
        } else if (dir) {
            fprintf(stderr, "clrtrace report: one trace at a time (try --help)\n");
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "clrtrace report: no trace given (try --help)\n");
        return 2;
    }
    return cli_render("report", dir, 0, 1);
}
