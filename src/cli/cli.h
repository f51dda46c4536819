/* The clrtrace command: one function per subcommand. */
#ifndef CLRTRACE_CLI_H
#define CLRTRACE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "format/event.h"
#include "views/treefilter.h"
#include "views/render.h"
#include "views/walk.h"
#include "views/symbols.h"
#include "base/table.h"
#include "cli/export/export.h" /* what dump's formats provide */

int cmd_decode(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sigs(int argc, char **argv);

/* The launcher shared by run (record 0: the live text log) and record
 * (record 1: the binary trace in a directory). */
int cli_trace_command(int argc, char **argv, int record);

/* run|record -p PID (attach.c): traces the running process pid with the
 * settings given (the settings table's variables; NULL: not given), to
 * text_path (NULL: stderr, unless trace_path) and/or trace_path, until
 * Ctrl-C, SIGTERM or duration_ns (0: none). Returns the exit status: 0, or
 * 1 after one line on stderr. */
int cli_attach(const char *who, unsigned pid, const char *lib, const char *const *given,
               const char *text_path, const char *trace_path, uint64_t duration_ns);

/* The tree filters given on the command line (options.c). */
typedef struct cli_tree_filter {
    ct_filter_opts opts;                    /* opts.trigger points at trigger */
    char trigger[CT_FILTER_MAX_GLOBS_TEXT]; /* -T globs joined by ':' */
} cli_tree_filter;

/* The options' lines for --help texts (from the settings table). */
const char *cli_tree_filter_help(void);
/* Parses val as option a of setting id (src/format/settings.h, with
 * the option's bounds) into *num: 0, or -1 after one line ("clrtrace WHO: A
 * takes WHAT, not 'VAL'"). */
int cli_setting_value(const char *who, const char *a, int id, const char *val, uint64_t *num);

/* Most --tid options one command takes. */
#define CLI_MAX_TIDS 64

/* The selection: what an offline command reads of a trace (-F, -N, --tid,
 * --since, --until; applied by cli_trace_each before the tree filters): the
 * calls of functions whose name (as the trace names them,
 * "Demo.Shapes.Scale") matches an -F glob (all when none) and no -N glob,
 * on the threads --tid names (all when none), that began in the time range
 * (from the trace's start). Calls left out leave their time to their caller,
 * as for a function run -F did not trace. */
typedef struct cli_selection {
    char include[CT_FILTER_MAX_GLOBS_TEXT];
    char exclude[CT_FILTER_MAX_GLOBS_TEXT];
    uint64_t tids[CLI_MAX_TIDS];
    uint32_t ntids;
    uint64_t since, until;    /* ns; until 0: no end */
} cli_selection;

/* The options' lines for --help texts. */
const char *cli_selection_help(void);
/* Appends a glob to a ':'-separated list: 0, or -1 when it is empty, has a
 * ':' or does not fit. */
int cli_add_glob(char *list, size_t cap, const char *glob);

/* What an offline command reads of a trace: the selection, then the tree
 * filters (all-zero: everything). */
typedef struct cli_reading {
    cli_selection sel;
    cli_tree_filter tree;
} cli_reading;

/* --pid all. */
#define CLI_PID_ALL (-1L)

/* dump's formats. */
typedef enum cli_dump_format {
    CLI_DUMP_RECORDS, /* no option: the records, one line each */
    CLI_DUMP_FOLDED,
    CLI_DUMP_FLAME,
    CLI_DUMP_CHROME,
    CLI_DUMP_PERFETTO,
} cli_dump_format;

typedef struct cli_dump_opts {
    cli_dump_format format;
    int by_calls;            /* --calls */
    unsigned width;          /* --width (default FLAME_DEFAULT_WIDTH) */
    const char *title;       /* --title (NULL: the default) */
    uint64_t max_calls;      /* --max-calls (default CLI_CHROME_MAX_CALLS) */
    int flame_only, chrome_only; /* an option of --flame, of --chrome was given */
} cli_dump_opts;

/* Every option of an offline command (replay, report, dump, info), parsed
 * once by cli_offline_parse and passed to what reads and prints the trace. */
typedef struct cli_offline {
    const char *who;          /* the command ("replay"): names it in messages */
    const char *trace;        /* the one trace argument: DIR or a trace file */
    long pid;                 /* --pid: 0 the process the launcher started (or
                                 the first), CLI_PID_ALL each, else that pid */
    cli_reading reading;      /* the selection and (not info) the tree filters */
    int help;                 /* -h/--help: only the usage is wanted */
    ct_render_opts render;    /* replay, report: what is printed */
    const char *diff;         /* report --diff A: the trace compared with */
    cli_dump_opts dump;       /* dump */
} cli_offline;

/* Parses the arguments of offline command who (argv[0] the command) into
 * *o: 0 (o->help set when -h/--help came: nothing after it is read), or -1
 * after one usage-error line ("clrtrace WHO: ..."): an unknown option, a
 * bad value, a second trace or none, options that do not go together. */
int cli_offline_parse(cli_offline *o, const char *who, int argc, char **argv);

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
    const cli_reading *filter;    /* what cli_trace_each reads: the selection, then the
                                     tree filters (NULL: everything); named so for the
                                     exporters that copy it */
    int quiet_incomplete;         /* cli_trace_each does not say the trace is incomplete */
} cli_trace;

/* Most processes one trace directory lists. */
#define CLI_MAX_PROCESSES 1024

/* One process's trace in a `record -o DIR` directory. */
typedef struct cli_proc {
    char path[CLI_TRACE_PATH_MAX];
    uint32_t pid, ppid;
    uint64_t start;
    char cmd[256];
    int root;                 /* DIR/trace.clrt: the process the launcher started */
} cli_proc;

/* The traces in dir (trace.clrt and trace.PID.clrt; at most
 * CLI_MAX_PROCESSES), the root first, then by start time: a malloc'd array
 * of *count entries for the caller to free, or NULL when dir cannot be read
 * or memory ran out. Files that are not readable traces are left out. */
cli_proc *cli_trace_list(const char *dir, int *count);
/* Whether path is a directory. */
int cli_is_dir(const char *path);

/* Opens a trace and reads the header: for a directory, the trace of
 * process pid (a cli_offline's pid; 0 or CLI_PID_ALL: the root process's,
 * DIR/trace.clrt, or when there is none the first process's); arg itself
 * when it is not a directory. On failure prints one line ("clrtrace WHO:
 * ...") and returns -1. A trace that ends without its END record is read to
 * where it ends: cli_trace_each then says so on stderr ("incomplete trace:
 * ... ends at offset N") and returns 0. */
int cli_trace_open_pid(cli_trace *t, const char *who, const char *arg, long pid);
/* The same for the root process. */
int cli_trace_open(cli_trace *t, const char *who, const char *arg);
/* Calls fn for each record in order (fn returns non-zero when out of
 * memory), through t->filter when one is set: then the records of calls the
 * selection leaves out or the tree filters hide are skipped, and enter
 * events held back for --min-time come at the latest at the end. Returns 0 at a clean end; on a damaged record prints
 * one line with its offset and returns 1. */
int cli_trace_each(cli_trace *t, const char *who, int (*fn)(void *ctx, const ct_rec *rec),
                   void *ctx);
/* Where the reader's error is: "offset N", and for an error inside a ZSTD
 * record, " (in the zstd block at file offset M)" (buf, returned). */
const char *cli_trace_where(const ct_reader *r, char *buf, size_t cap);
void cli_trace_close(cli_trace *t);

/* Renders o->trace to stdout (cmd_replay.c) as o->render says: lines
 * (replay) and/or the summary (report), of the processes o->pid names,
 * through o->reading. Returns the exit status. */
int cli_render(const cli_offline *o);
/* A cli_trace_each callback that gives each record to the ct_render r. */
int cli_render_feed(void *r, const ct_rec *rec);

/* Parses hex text ("20 01 08", "200108", "0x20,0x01") into out; returns the
 * byte count, or -1 (with a message in err) on a bad digit or overflow. */
long cli_parse_hex(const char *text, uint8_t *out, size_t cap, char *err, size_t errcap);

/* ------------------------------------------------- escaping (escape.c) */

/* Writes s[0..n) as a JSON string, quotes included: '"' and '\' escaped,
 * control characters as \u00XX, each byte that is not part of valid UTF-8
 * as \ufffd. */
void cli_json_string(FILE *out, const char *s, size_t n);
/* Writes s[0..n) as XML text or attribute content: & < > " ' as entities;
 * invalid UTF-8 and characters XML 1.0 does not allow (control characters
 * other than tab, newline, carriage return; U+FFFE, U+FFFF) as U+FFFD. */
void cli_xml_text(FILE *out, const char *s, size_t n);
/* Bytes of the UTF-8 sequence at s[0..n): 1-4, or 0 when it is not valid
 * (overlong, a surrogate, past U+10FFFF, cut short); *cp gets the code
 * point. */
size_t cli_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

#endif
