/* clrtrace run: placeholder until the tracer lands (issue: the tracer). */
#include <stdio.h>

#include "cli.h"

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "clrtrace run: not built yet\n");
    return 2;
}
