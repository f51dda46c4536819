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

/* The tree filters given on the command line (filteropts.c). */
typedef struct cli_filter {
    ct_filter_opts opts;                    /* opts.trigger points at trigger */
    char trigger[CT_FILTER_MAX_GLOBS_TEXT]; /* -T globs joined by ':' */
} cli_filter;

/* The options' lines for --help texts (from the settings table). */
const char *cli_filter_help(void);
/* Whether a is -D/--depth, -t/--min-time, -T/--trigger or --after. */
int cli_is_filter_option(const char *a);
/* Takes option a with its value (NULL: none given) into f: 1; 0 when a is
 * not a filter option; -1 after one error line ("clrtrace WHO: ..."). */
int cli_filter_option(const char *who, const char *a, const char *val, cli_filter *f);
/* Parses val as option a of setting id (src/format/settings.h, with
 * the option's bounds) into *num: 0, or -1 after one line ("clrtrace WHO: A
 * takes WHAT, not 'VAL'"). */
int cli_setting_value(const char *who, const char *a, int id, const char *val, uint64_t *num);
/* The options every offline command (replay, report, dump, info) shares
 * and its one trace argument: takes argv[*i] (and its value: *i advances)
 * as --pid (pid_all: "all" allowed), a tree filter into f (NULL: the
 * command takes none), or the trace into *trace. Returns 1, or -1 after one
 * usage-error line (an unknown option, a second trace, a bad value). */
int cli_offline_arg(const char *who, int argc, char **argv, int *i, const char **trace,
                    cli_filter *f, int pid_all);
/* 0 when a trace was given, else -1 after one usage-error line. */
int cli_offline_trace(const char *who, const char *trace);

/* Most --tid options one command takes. */
#define CLI_MAX_TIDS 64

/* What an offline command reads of a trace (cli_offline_arg's -F, -N,
 * --tid, --since, --until; applied by cli_trace_each before the tree
 * filters): the calls of functions whose name (as the trace names them,
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

/* The selection the command line made (all-zero: everything). */
const cli_selection *cli_selection_get(void);
/* The options' lines for --help texts. */
const char *cli_selection_help(void);
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
    int quiet_incomplete;         /* cli_trace_each does not say the trace is incomplete */
} cli_trace;

/* Most processes one trace directory lists. */
#define CLI_MAX_PROCESSES 1024
/* --pid all. */
#define CLI_PID_ALL (-1L)

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

/* --pid VALUE of replay/report/dump/info (allow_all: "all" too). Prints
 * one line and returns -1 when VALUE is not a pid. */
int cli_select_pid(const char *who, const char *val, int allow_all);
long cli_pid_choice(void);

/* Opens a trace and reads the header: for a directory, the root process's
 * trace (DIR/trace.clrt; when there is none, the first process's) or the
 * one --pid chose; arg itself when it is not a directory. On failure prints
 * one line ("clrtrace WHO: ...") and returns -1. A trace that ends without
 * its END record is read to where it ends: cli_trace_each then says so on
 * stderr ("incomplete trace: ... ends at offset N") and returns 0. */
int cli_trace_open(cli_trace *t, const char *who, const char *arg);
/* Calls fn for each record in order (fn returns non-zero when out of
 * memory), through t->filter when one is set: then the records of hidden
 * calls are skipped, and enter events held back for --min-time come at the
 * latest at the end. Returns 0 at a clean end; on a damaged record prints
 * one line with its offset and returns 1. */
int cli_trace_each(cli_trace *t, const char *who, int (*fn)(void *ctx, const ct_rec *rec),
                   void *ctx);
/* Where the reader's error is: "offset N", and for an error inside a ZSTD
 * record, " (in the zstd block at file offset M)" (buf, returned). */
const char *cli_trace_where(const ct_reader *r, char *buf, size_t cap);
void cli_trace_close(cli_trace *t);

/* Renders a trace to stdout (cmd_replay.c): lines (replay) and/or the
 * summary (report), through the tree filters f (NULL: none). Returns the
 * exit status. */
int cli_render(const char *who, const char *arg, const ct_render_opts *opts,
               const cli_filter *f);
/* A cli_trace_each callback that gives each record to the ct_render r. */
int cli_render_feed(void *r, const ct_rec *rec);

/* Parses hex text ("20 01 08", "200108", "0x20,0x01") into out; returns the
 * byte count, or -1 (with a message in err) on a bad digit or overflow. */
long cli_parse_hex(const char *text, uint8_t *out, size_t cap, char *err, size_t errcap);

/* ------------------------------------------------ call stacks (calls.c)
 * The walk shared by dump --folded, --flame, --chrome and --perfetto: the
 * walk of views/walk.h (each thread's stack of open calls, ends paired with
 * calls as in the text renderer and the filters), with the functions of the
 * symbol table. Times on one thread never go back (an event earlier than
 * the thread's previous one is taken at the previous time), so a callee's
 * interval always lies inside its caller's. */

/* Deepest stack kept per thread. Calls below this depth are not reported
 * (counted in too_deep); their time stays in the deepest reported frame. */
#define CLI_CALLS_MAX_DEPTH 4096

typedef enum cli_call_end {
    CLI_END_RETURN,     /* LEAVE */
    CLI_END_EXCEPTION,  /* UNWIND */
    CLI_END_TAILCALL,   /* TAILCALL */
    CLI_END_UNFINISHED, /* never ended: open when the trace ends, or above a
                           frame whose end came without theirs (a missed
                           event); closed at that time */
} cli_call_end;

typedef struct cli_frame {
    ct_stack_frame h;   /* the function's key */
    const ct_function *fn;
    uint64_t start;     /* ns since the trace started */
    uint64_t children;  /* ns in callees that ended (not unfinished) */
    uint64_t aux;       /* the user's */
} cli_frame;

/* A thread of the walk: tid, now (its latest time), stack (of cli_frame:
 * the calls open, the outermost CLI_CALLS_MAX_DEPTH kept), user (the
 * user's, freed by the user) and next (first-seen order). */
typedef ct_walk_thread cli_thread;

/* The innermost kept call of t, and its caller (NULL: none). */
static inline cli_frame *cli_top(const cli_thread *t)
{
    return ct_stack_top(&t->stack);
}

static inline cli_frame *cli_caller(const cli_thread *t)
{
    return ct_walk_caller(t);
}

typedef struct cli_calls cli_calls;

/* Callbacks (any may be NULL); each returns 0, or non-zero when out of
 * memory. */
typedef struct cli_calls_ops {
    /* A thread's first event. */
    int (*thread)(void *ctx, cli_calls *w, cli_thread *t);
    /* A call began: cli_top(t) is its frame (aux is 0). */
    int (*enter)(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *enter);
    /* A call ended at `end` (ns): cli_top(t) is its frame, frames below it
     * its callers. leave: the LEAVE record for CLI_END_RETURN, the UNWIND
     * record for CLI_END_EXCEPTION, else NULL.
     * The frame is popped after the call. */
    int (*leave)(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                 const ct_rec *leave);
    /* Every record that is not an event, after the walker took it (FUNCTION,
     * CLASS and THREAD records are in the symbol table by then). */
    int (*other)(void *ctx, cli_calls *w, const ct_rec *rec);
} cli_calls_ops;

struct cli_calls {
    ct_walk walk;            /* the threads (walk.first: first-seen order) and
                                their stacks; walk.dropped: events the profiler
                                lost (DROPPED records); walk.ended: an END record
                                came, later records are ignored */
    ct_symbols *sym;         /* functions, classes, thread names; value text */
    cli_calls_ops ops;
    void *ctx;
    cli_thread *first;       /* the first thread (walk.first) */
    uint64_t last_time;      /* the latest time in the trace (events, END) */
    uint64_t calls;          /* calls that ended (not unfinished), reported or not */
    uint64_t unfinished;     /* reported frames closed as CLI_END_UNFINISHED */
    uint64_t too_deep;       /* calls below CLI_CALLS_MAX_DEPTH (not reported) */
    uint64_t unmatched;      /* ends with no open call of their function on the thread */
    int finished;
};

/* NULL when out of memory. */
cli_calls *cli_calls_new(const cli_calls_ops *ops, void *ctx);
/* One record, in trace order (a cli_trace_each callback, ctx the walker). */
int cli_calls_record(void *walker, const ct_rec *rec);
/* Closes every call still open, on each thread from the innermost, as
 * CLI_END_UNFINISHED at last_time. Returns 0 or non-zero (out of memory). */
int cli_calls_finish(cli_calls *w);
void cli_calls_free(cli_calls *w);

/* ------------------------------------------------- dump formats */

/* Folded stacks (folded.c): the call tree of a trace aggregated by stack,
 * the data of dump --folded and dump --flame. Node 0 is the root (no
 * function); every other node is a distinct stack of function names, and
 * holds the weight of the calls that ended on it. At most FOLDED_MAX_NODES
 * stacks are kept: calls on further new stacks are counted in `lost`. */
#define FOLDED_MAX_NODES (1u << 20)

typedef struct folded_node {
    const char *name;        /* the innermost function's full name ("" for the root) */
    uint32_t parent;         /* the root's parent is itself */
    uint32_t first_child, next_sibling; /* 0: none (children in no particular order) */
    uint32_t depth;          /* the root is 0 */
    uint64_t weight;         /* self time (ns) or calls, of calls that ended here */
    uint64_t ended;          /* calls that ended here */
} folded_node;

typedef struct folded_tree {
    folded_node *nodes;
    uint32_t n, cap;
    uint32_t *index;         /* hash of (parent, name) -> node + 1 */
    size_t index_cap;
    uint64_t lost;           /* calls not counted: past FOLDED_MAX_NODES */
    uint64_t too_deep, unfinished; /* from the walk */
    int by_calls;
    ct_symbols *sym;         /* the names */
} folded_tree;

/* Reads the trace into *tree (weights: self ns, or calls with by_calls).
 * Returns 0, or 1 after one error line (a damaged trace: what came before
 * the damage is in the tree). Free with folded_tree_free. */
int folded_collect(cli_trace *t, int by_calls, folded_tree *tree);
void folded_tree_free(folded_tree *tree);

/* clrtrace dump --folded: folded stacks on stdout, weighted by self time
 * (ns) or by calls. Returns 0, or 1 after one error line. */
int cli_dump_folded(cli_trace *t, int by_calls);

/* Flame graph options (flame.c). */
#define FLAME_DEFAULT_WIDTH 1200
#define FLAME_MIN_WIDTH 200
#define FLAME_MAX_WIDTH 100000
typedef struct flame_opts {
    int by_calls;
    unsigned width;          /* of the image, px */
    const char *title;       /* NULL: "Flame Graph" */
} flame_opts;

/* clrtrace dump --flame: an SVG flame graph on stdout. Returns 0, or 1
 * after one error line. */
int cli_dump_flame(cli_trace *t, const flame_opts *o);

/* Most text of one call's argument values, together (as the text log's
 * CT_RENDER_LINE_MAX), in dump --chrome: a value that does not fit is cut
 * and ends in "..."; values after it read "...". The return value is cut at
 * CT_RENDER_RET_MAX. */
#define CHROME_ARGS_MAX CT_RENDER_LINE_MAX

/* The arguments of a call as --chrome's args and --perfetto's debug
 * annotations show them (chrome.c): emit(ctx, key, value) for each, in
 * order, the value as the text log formats it (all together at most
 * CHROME_ARGS_MAX: the value that does not fit is cut, later ones read
 * "..."); or "arguments": "?" when the ENTER record's values do not match
 * the parameters; nothing for a function traced without values. The key is
 * the argument's name in its label ("double k=" -> "k"), "argN" when it has
 * none, "name#N" when it is a key of our own (return, exception, tailcall,
 * unfinished, arguments) or taken(ctx, key) says an earlier argument of the
 * call has it. val: CHROME_ARGS_MAX + 1 bytes of scratch. Returns 0 or
 * emit's non-zero. */
int cli_call_args(ct_symbols *sym, const ct_function *fn, const ct_rec *rec, char *val,
                  int (*taken)(void *ctx, const char *key),
                  int (*emit)(void *ctx, const char *key, size_t klen, const char *val,
                              size_t vlen),
                  void *ctx);

/* clrtrace dump --chrome: Chrome Trace Event Format JSON on stdout.
 * Returns 0, or 1 after one error line (the JSON is complete even then). */
/* Most calls dump --chrome writes by default: past them the JSON (about
 * 200 bytes a call) grows beyond what a browser's trace viewer opens; the
 * --max-calls option sets another limit (0: none). */
#define CLI_CHROME_MAX_CALLS 2000000u
/* The Chrome JSON of t, when t holds at most max_calls calls (0: any);
 * otherwise one line saying how to narrow them, and 1. */
int cli_dump_chrome(cli_trace *t, uint64_t max_calls);

/* The same in steps (chrome.c), for any record source (fuzz/fuzz_trace.c):
 * new writes the head of the JSON to out (NULL when out of memory); record
 * takes one record in trace order (a cli_trace_each callback); end closes
 * the calls still open, writes the tail (complete: the trace was read to
 * its end) and frees. The JSON is valid whatever the records; record and
 * end return non-zero when memory ran out (the JSON is still closed). */
typedef struct cli_chrome cli_chrome;
cli_chrome *cli_chrome_new(FILE *out, const ct_trace_header *h);
int cli_chrome_record(void *chrome, const ct_rec *rec);
int cli_chrome_end(cli_chrome *c, int complete);

/* clrtrace dump --perfetto (perfetto.c): Perfetto's protobuf trace (a
 * Trace of TracePackets: a track per thread under the process's, a
 * SLICE_BEGIN and a SLICE_END per call with --chrome's args as debug
 * annotations, names interned) on stdout, packet by packet. No limit on
 * calls. Returns 0, or 1 after one error line (the packets before a damaged
 * record are written whole, open calls closed). */
int cli_dump_perfetto(cli_trace *t);

/* The same in steps, for any record source (as cli_chrome_*): new writes
 * the process's track to out (NULL when out of memory); record takes one
 * record (a cli_trace_each callback); end closes the calls still open and
 * frees. The output is a valid trace whatever the records; record and end
 * return non-zero when memory ran out (the packets written are whole). */
typedef struct cli_perfetto cli_perfetto;
cli_perfetto *cli_perfetto_new(FILE *out, const ct_trace_header *h);
int cli_perfetto_record(void *perfetto, const ct_rec *rec);
int cli_perfetto_end(cli_perfetto *p);

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
