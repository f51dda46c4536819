/* clrtrace report DIR: the summary table of a binary trace (calls, total
 * and self time, calls ended by an exception per function), as at the end of
 * the text log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace report [--sort total|self|calls] [-n N] [--percent] [--stats]\n"
        "                       [--params] [selection] [filters] DIR\n"
        "\n"
        "Prints the summary of the trace in DIR (written by `clrtrace record -o DIR`;\n"
        "DIR may also be the trace file itself): the program's header line, then one\n"
        "row per function with its calls, total (inclusive) and self time, largest total\n"
        "first; the same table as at the end of `clrtrace replay DIR`. A function's\n"
        "total counts each call once: a recursive function's is the time of its\n"
        "outermost calls. When any call ended by an exception, an EXCEPTIONS column\n"
        "says how many of each function's calls did. The times leave out the time\n"
        "the tracer held the program (its last line says how long).\n"
        "\n"
        "options:\n"
        "  --sort KEY    order rows by total (inclusive) time, self time, or calls;\n"
        "                largest first, ties by name (default: total)\n"
        "  -n, --top N   show only the first N rows\n"
        "  --percent     add TOTAL%% and SELF%% columns: shares of the traced time (the\n"
        "                sum of every function's self time)\n"
        "  --stats       add AVG, MIN and MAX columns: each call's duration (a\n"
        "                recursive call's too)\n"
        "  --params      name every row with its parameter types, Area(double); rows\n"
        "                that share a name always are (and numbered #2, #3 when\n"
        "                those agree too)\n"
        "  --pid N|all   the process N of a recorded process tree, or each in turn\n"
        "                (default: the process the launcher started)\n"
        "filters (the table then counts only the calls shown):\n"
        "%s"
        "selection (before the filters; what is left out leaves its time to its caller):\n"
        "%s"
        "\n"
        "Exit status: 0; 1 when the trace cannot be read or is damaged (one line on\n"
        "stderr gives the byte offset); 2 for a usage error.\n",
        cli_filter_help(), cli_selection_help());
}

int cmd_report(int argc, char **argv)
{
    const char *dir = NULL;
    ct_render_opts o = { .lines = 0, .summary = 1 };
    static cli_filter filter;
    for (int i = 1; i < argc; i++) {
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--percent")) {
            o.percent = 1;
        } else if (!strcmp(argv[i], "--stats")) {
            o.stats = 1;
        } else if (!strcmp(argv[i], "--params")) {
            o.params = 1;
        } else if (!strcmp(argv[i], "--sort")) {
            if (val && !strcmp(val, "total"))
                o.sort = CT_SORT_TOTAL;
            else if (val && !strcmp(val, "self"))
                o.sort = CT_SORT_SELF;
            else if (val && !strcmp(val, "calls"))
                o.sort = CT_SORT_CALLS;
            else {
                fprintf(stderr, "clrtrace report: --sort takes total, self or calls\n");
                return 2;
            }
            i++;
        } else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--top")) {
            char *end = NULL;
            errno = 0;
            unsigned long n = val ? strtoul(val, &end, 10) : 0;
            if (!val || !*val || *end || errno || val[0] == '-' || n == 0 || n > UINT32_MAX) {
                fprintf(stderr, "clrtrace report: %s takes a whole number of rows (1 or more)\n",
                        argv[i]);
                return 2;
            }
            o.top = (uint32_t)n;
            i++;
        } else if (cli_offline_arg("report", argc, argv, &i, &dir, &filter, 1) < 0) {
            return 2;
        }
    }
    if (cli_offline_trace("report", dir) < 0)
        return 2;
    return cli_render("report", dir, &o, &filter);
}
