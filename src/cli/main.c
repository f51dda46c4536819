/* clrtrace: the command-line front end. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef CLRTRACE_VERSION
#error "CLRTRACE_VERSION is the project's version, set by CMakeLists.txt"
#endif

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    { "run", cmd_run, "run a program under the tracer and print its calls" },
    { "record", cmd_record, "run a program under the tracer and write a binary trace" },
    { "replay", cmd_replay, "print the text log of a binary trace" },
    { "report", cmd_report, "print the summary table of a binary trace" },
    { "info", cmd_info, "describe a binary trace: process, settings, counts, complete or not" },
    { "top", cmd_top, "a live table of a process's methods: calls/s, P50, P99, exceptions" },
    { "tui", cmd_tui, "browse a binary trace's call trees in the terminal" },
    { "graph", cmd_graph, "the callers and callees of chosen functions, with calls and times" },
    { "dump", cmd_dump, "print a binary trace's records, or folded stacks, a flame graph, Chrome JSON" },
    { "sigs", cmd_sigs, "print the signature of every method in an assembly" },
    { "decode", cmd_decode, "decode one signature blob given in hex" },
};

static void usage(FILE *to)
{
    fprintf(to, "usage: clrtrace COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(to, "\n'clrtrace COMMAND --help' describes each command; "
                "'clrtrace --version' prints the version.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("clrtrace %s\n", CLRTRACE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "clrtrace: unknown command '%s' (try 'clrtrace --help')\n", argv[1]);
    return 2;
}
