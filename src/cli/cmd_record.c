/* clrtrace record -o DIR [options] [--] program [args...]: the launcher of
 * cmd_run.c, writing the binary trace DIR/trace.clrt. */
#include "cli.h"

int cmd_record(int argc, char **argv)
{
    return cli_trace_command(argc, argv, 1);
}
