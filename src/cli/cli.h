/* The clrtrace command: one function per subcommand. */
#ifndef CLRTRACE_CLI_H
#define CLRTRACE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "clrtrace/event.h"
#include "clrtrace/render.h"

int cmd_decode(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sigs(int argc, char **argv);

/* The launcher shared by run (record 0: the live text log) and record
 * (record 1: the binary trace in a directory). */
int cli_trace_command(int argc, char **argv, int record);

/* Longest trace path handled. */
#define CLI_TRACE_PATH_MAX 4200

/* A binary trace opened for reading (tracefile.c). */
typedef struct cli_trace {
    char path[CLI_TRACE_PATH_MAX];
    uint8_t *data;
    size_t len;
    ct_reader reader;
    ct_rarena arena;
    uint8_t *arena_mem;
} cli_trace;

/* Opens DIR/trace.clrt, or arg itself when it is not a directory, and reads
 * the header. On failure prints one line ("clrtrace WHO: ...") and returns
 * -1. */
int cli_trace_open(cli_trace *t, const char *who, const char *arg);
/* Calls fn for each record in order (fn returns non-zero when out of
 * memory). Returns 0 at a clean end; on a damaged record prints one line
 * with its offset and returns 1. */
int cli_trace_each(cli_trace *t, const char *who, int (*fn)(void *ctx, const ct_rec *rec),
                   void *ctx);
void cli_trace_close(cli_trace *t);

/* Renders a trace to stdout (cmd_replay.c): lines (replay) and/or the
 * summary (report). Returns the exit status. */
int cli_render(const char *who, const char *arg, const ct_render_opts *opts);

/* Parses hex text ("20 01 08", "200108", "0x20,0x01") into out; returns the
 * byte count, or -1 (with a message in err) on a bad digit or overflow. */
long cli_parse_hex(const char *text, uint8_t *out, size_t cap, char *err, size_t errcap);

/* clrtrace dump --folded: folded stacks on stdout, weighted by self time
 * (ns) or by calls. Returns 0, or 1 after one error line. */
int cli_dump_folded(cli_trace *t, int by_calls);

#endif
