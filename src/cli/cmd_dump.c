/* clrtrace dump DIR: the records of a binary trace, one line each (for
 * looking inside a trace and for tests). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace dump [--folded [--calls]] DIR\n"
        "\n"
        "--folded prints folded stacks instead (frames joined by ';', a space, then the\n"
        "self time in ns, or the number of calls with --calls): the input of flame graph\n"
        "tools such as flamegraph.pl.\n"
        "\n"
        "Without --folded, prints the header and every record of the trace in DIR (or the trace file\n"
        "itself), one line each, in file order:\n"
        "  header   version, pid, start (Unix ns), command line, filter, settings\n"
        "  FUNCTION key, flags, parameters, name\n"
        "  CLASS    class id, name          THREAD  thread id, name\n"
        "  ENTER / LEAVE / TAILCALL / UNWIND  time (ns), thread id, key, values\n"
        "  DROPPED  thread id, events       END     time, events, functions mapped, traced\n"
        "\n"
        "Exit status: 0; 1 when the trace cannot be read or is damaged; 2 usage error.\n");
}

static const char *const k_names[] = {
    "?", "FUNCTION", "THREAD", "ENTER", "LEAVE", "TAILCALL", "UNWIND", "DROPPED", "CLASS", "END",
    "EVENTS",
};
_Static_assert(sizeof k_names / sizeof *k_names == CT_REC_TYPE_COUNT, "a name per record type");

static int dump(void *ctx, const ct_rec *r)
{
    (void)ctx;
    const char *name = (unsigned)r->type < CT_REC_TYPE_COUNT ? k_names[r->type] : "?";
    printf("%" PRIu64 " %s", r->offset, name);
    switch (r->type) {
    case CT_REC_FUNCTION:
        printf(" key=0x%" PRIx64 " flags=%u params=%u %.*s\n", r->key, r->flags, r->nparams,
               (int)r->name_len, r->name);
        break;
    case CT_REC_CLASS:
        printf(" class=0x%" PRIx64 " %.*s\n", r->key, (int)r->name_len, r->name);
        break;
    case CT_REC_THREAD:
        printf(" tid=%" PRIu64 " %.*s\n", r->tid, (int)r->name_len, r->name);
        break;
    case CT_REC_ENTER: case CT_REC_LEAVE: case CT_REC_TAILCALL: case CT_REC_UNWIND:
        printf(" t=%" PRIu64 " tid=%" PRIu64 " key=0x%" PRIx64 " values=%u\n", r->time_ns, r->tid,
               r->key, r->nvalues);
        break;
    case CT_REC_DROPPED:
        printf(" tid=%" PRIu64 " events=%" PRIu64 "\n", r->tid, r->count);
        break;
    case CT_REC_END:
        printf(" t=%" PRIu64 " events=%" PRIu64 " mapped=%" PRIu64 " traced=%" PRIu64 "\n",
               r->time_ns, r->count, r->mapped, r->traced);
        break;
    default:
        printf("\n");
        break;
    }
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    int fold = 0, calls = 0;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--folded")) {
            fold = 1;
        } else if (!strcmp(argv[i], "--calls")) {
            calls = 1;
        } else if (argv[i][0] == '-' || dir) {
            usage(stderr);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir || (calls && !fold)) {
        usage(stderr);
        return 2;
    }
    cli_trace t;
    if (cli_trace_open(&t, "dump", dir) != 0)
        return 1;
    if (fold) {
        int frc = cli_dump_folded(&t, calls);
        cli_trace_close(&t);
        return frc;
    }
    const ct_trace_header *h = &t.reader.header;
    printf("header version=%u.%u pid=%u start=%" PRIu64 " cmdline=%.*s filter=%.*s settings=%.*s\n",
           h->major, h->minor, h->pid, h->start_unix_ns, (int)h->cmdline_len, h->cmdline,
           (int)h->filter_len, h->filter, (int)h->settings_len, h->settings);
    int rc = cli_trace_each(&t, "dump", dump, NULL);
    cli_trace_close(&t);
    return rc;
}
