/* The clrtrace command: one function per subcommand. */
#ifndef CLRTRACE_CLI_H
#define CLRTRACE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "clrtrace/event.h"
#include "clrtrace/filter.h"
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

/* The tree filters given on the command line (filteropts.c). */
typedef struct cli_filter {
    ct_filter_opts opts;                    /* opts.trigger points at trigger */
    char trigger[CT_FILTER_MAX_GLOBS_TEXT]; /* -T globs joined by ':' */
} cli_filter;

/* Largest --after. */
#define CLI_AFTER_MAX 1000000000000000000ull

/* The options' lines for --help texts. */
extern const char cli_filter_help[];
/* Whether a is -D/--depth, -t/--min-time, -T/--trigger or --after. */
int cli_is_filter_option(const char *a);
/* Takes option a with its value into f: 1; 0 when a is not a filter option;
 * -1 after one error line ("clrtrace WHO: ..."). */
int cli_filter_option(const char *who, const char *a, const char *val, cli_filter *f);
/* Appends a glob to a ':'-separated list: 0, or -1 when it is empty, has a
 * ':' or does not fit. */
int cli_add_glob(char *list, size_t cap, const char *glob);

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
    const ct_filter_opts *filter; /* applied by cli_trace_each when set and active */
} cli_trace;

/* Opens DIR/trace.clrt, or arg itself when it is not a directory, and reads
 * the header. On failure prints one line ("clrtrace WHO: ...") and returns
 * -1. */
int cli_trace_open(cli_trace *t, const char *who, const char *arg);
/* Calls fn for each record in order (fn returns non-zero when out of
 * memory), through t->filter when one is set: then the records of hidden
 * calls are skipped, and enter events held back for --min-time come at the
 * latest at the end. Returns 0 at a clean end; on a damaged record prints
 * one line with its offset and returns 1. */
int cli_trace_each(cli_trace *t, const char *who, int (*fn)(void *ctx, const ct_rec *rec),
                   void *ctx);
void cli_trace_close(cli_trace *t);

/* Renders a trace to stdout (cmd_replay.c): lines (replay) and/or the
 * summary (report), through the tree filters f (NULL: none). Returns the
 * exit status. */
int cli_render(const char *who, const char *arg, const ct_render_opts *opts,
               const cli_filter *f);

/* Parses hex text ("20 01 08", "200108", "0x20,0x01") into out; returns the
 * byte count, or -1 (with a message in err) on a bad digit or overflow. */
long cli_parse_hex(const char *text, uint8_t *out, size_t cap, char *err, size_t errcap);

/* clrtrace dump --folded: folded stacks on stdout, weighted by self time
 * (ns) or by calls. Returns 0, or 1 after one error line. */
int cli_dump_folded(cli_trace *t, int by_calls);

#endif
