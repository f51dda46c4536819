/* The trace an offline command reads (tracefile.c): a trace file, or one
 * process's trace in a `record -o DIR` directory, opened and walked with
 * the user's selection (-F, -N, --tid, --since, --until, --pid) and tree
 * filters applied. Shared by the commands (src/cli) and the exporters
 * (src/cli/export), which both read traces this way. */
#ifndef CLRTRACE_CLI_INPUT_H
#define CLRTRACE_CLI_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "format/words.h"
#include "views/treefilter.h"

/* The tree filters given on the command line (options.c). */
typedef struct cli_tree_filter {
    ct_filter_opts opts;                    /* opts.trigger points at trigger */
    char trigger[CT_FILTER_MAX_GLOBS_TEXT]; /* -T globs joined by ':' */
} cli_tree_filter;

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
    int by_trace;             /* --trace-id: only calls entered under this trace id
                                 (the thread's latest ACTIVITY record), on every
                                 thread, with the calls below them */
    uint8_t trace_id[CT_TRACE_ID_BYTES];
} cli_selection;

/* What an offline command reads of a trace: the selection, then the tree
 * filters (all-zero: everything). */
typedef struct cli_reading {
    cli_selection sel;
    cli_tree_filter tree;
} cli_reading;

/* --pid all. */
#define CLI_PID_ALL (-1L)

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
    int joined;                   /* --max-size: data is the segment files joined (malloc'ed),
                                     not the file mapped */
    unsigned segments;            /* the segment files joined (0: one file) */
    uint64_t segments_bytes;      /* their bytes, as on disk */
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
/* fn's return that stops cli_trace_each quietly (fn said why): it then
 * returns 1. */
#define CLI_EACH_STOP 2
/* Calls fn for each record in order (fn returns non-zero when out of
 * memory, CLI_EACH_STOP to stop), through t->filter when one is set: then the records of calls the
 * selection leaves out or the tree filters hide are skipped, and enter
 * events held back for --min-time come at the latest at the end. Returns 0 at a clean end; on a damaged record prints
 * one line with its offset and returns 1. */
int cli_trace_each(cli_trace *t, const char *who, int (*fn)(void *ctx, const ct_rec *rec),
                   void *ctx);
/* Where the reader's error is: "offset N", and for an error inside a ZSTD
 * record, " (in the zstd block at file offset M)" (buf, returned). */
const char *cli_trace_where(const ct_reader *r, char *buf, size_t cap);
void cli_trace_close(cli_trace *t);

#endif
