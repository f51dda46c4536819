/* The clrtrace command: one function per subcommand. */
#ifndef CLRTRACE_CLI_H
#define CLRTRACE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>
#include <string.h>

#include "clrmeta/clrmeta.h"
#include "format/event.h"
#include "format/words.h"
#include "views/treefilter.h"
#include "views/render.h"
#include "views/walk.h"
#include "views/symbols.h"
#include "base/table.h"
#include "base/escape.h"
#include "cli/input/input.h" /* a trace opened with the selection */
#include "cli/export/export.h" /* what dump's formats provide */

int cmd_decode(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_tui(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sigs(int argc, char **argv);

/* The launcher shared by run (record 0: the live text log) and record
 * (record 1: the binary trace in a directory). */
int cli_trace_command(int argc, char **argv, int record);
/* Whether record's option opt takes a value (--depth: 1; --failed: 0). */
int cli_trace_takes_value(const char *opt);

/* run|record -p PID (attach_client.c): traces the running process pid with the
 * settings given (the settings table's variables; NULL: not given), to
 * text_path (NULL: stderr, unless trace_path) and/or trace_path, until
 * Ctrl-C, SIGTERM or duration_ns (0: none). Returns the exit status: 0, or
 * 1 after one line on stderr. */
int cli_attach(const char *who, unsigned pid, const char *lib, const char *const *given,
               const char *text_path, const char *trace_path, uint64_t duration_ns);


/* The options' lines for --help texts (from the settings table). */
const char *cli_tree_filter_help(void);
/* Parses val as option a of setting id (src/format/settings.h, with
 * the option's bounds) into *num: 0, or -1 after one line ("clrtrace WHO: A
 * takes WHAT, not 'VAL'"). */
int cli_setting_value(const char *who, const char *a, int id, const char *val, uint64_t *num);
/* Parses val, the value of option opt, as a whole number from min to max
 * (ct_parse_whole, src/format/words.h: the one number parser) into *out: 0,
 * or -1 after one line ("clrtrace WHO: OPT takes WHAT from MIN to MAX, not
 * 'VAL'"; max UINT64_MAX: no range said). what: what the number counts ("a
 * number of rows"). */
int cli_number(const char *who, const char *opt, const char *val, uint64_t min, uint64_t max,
               const char *what, uint64_t *out);
/* argv with each --name=VALUE as two arguments, --name then VALUE (but
 * --srcline=full, whose value is its own), up to a "--" (the rest copied as
 * it is): into out, inline_val[k] set for a VALUE that came so; names holds
 * the names cut (names_cap bytes). The count, or -1 when there are more
 * than cap. The one reader of that form for every command. */
int cli_split_inline(int argc, char **argv, char **out, char *names, size_t names_cap,
                     unsigned char *inline_val, int cap);
/* Whether argument a is --name=VALUE: 1 with its name in name (cap bytes)
 * and *val its VALUE; 0 when not that form; -1 when the name does not fit.
 * What cli_split_inline and run's and record's reader cut it by. */
int cli_inline_form(const char *a, char *name, size_t cap, const char **val);
/* Most arguments a command takes (its argv split at '='). */
#define CLI_ARGS_MAX 4096
/* The largest process id -p and --pid take. */
#define CLI_PID_MAX 0x7fffffffu
/* The command line of `who` split by cli_split_inline into buffers of its
 * own (one command a process): *argc and *argv replaced, *inline_val (may be
 * NULL) its flags. 0, or -1 after one line (more than CLI_ARGS_MAX / 2
 * arguments). A loop over the result says "OPT takes no value" for an
 * argument flagged inline that no option took (cli_arg_unwanted). */
int cli_args_read(const char *who, int *argc, char ***argv, const unsigned char **inline_val);
/* The one line for option opt given a value it does not take; -1. */
int cli_no_value(const char *who, const char *opt);
/* 1 after that line when argv[i] is a VALUE given inline (--name=VALUE) to
 * an option argv[i - 1] that takes none; else 0. */
int cli_arg_unwanted(const char *who, char **argv, const unsigned char *inline_val, int i);


/* The options' lines for --help texts. */
const char *cli_selection_help(void);
/* Appends glob, the value of option opt of command who, to a ':'-separated
 * list: 0, or -1 after one line ("clrtrace WHO: OPT needs a pattern without
 * ':' ...") when it is empty, has a ':' or does not fit. */
int cli_add_glob(const char *who, const char *opt, char *list, size_t cap, const char *glob);

/* Appends condition text ('GLOB: EXPR', --when) to list (conditions one a
 * line, *n of them so far) after parsing it: 0, or -1 after one error line
 * naming the text and the offset of what is wrong. */
int cli_add_when(const char *who, const char *opt, char *list, size_t cap, unsigned *n,
                 const char *text);

/* Checks the parameter names of the conditions in list (one a line) against
 * the program's main assembly (`dotnet X.dll ...`, or an apphost with X.dll
 * beside it; when_check.c): 0 when every path's first name is a parameter
 * (or `this` of an instance method) of some method of that assembly its
 * glob matches, or when no method there matches, or the assembly cannot be
 * found or read (the profiler then tells); -1 after one line naming the
 * condition, a matching method and the name. */
int cli_when_check(const char *who, const char *list, char *const *program);

/* The program's main assembly: `dotnet X.dll ...`, or an apphost `dir/X`
 * with `dir/X.dll` beside it; into out, 0; -1: not found (when_check.c). */
int cli_main_assembly(char *const *program, char *out, size_t cap);

/* Nested types followed from a type to its outermost (deeper: no name). */
#define CLI_MAX_TYPE_NESTING 32
/* "Ns.Outer.Inner" of TypeDef or TypeRef token of md (a TypeRef's own
 * nesting not followed): 0, or -1 (not read, or longer than cap). */
int cli_type_full_name(const clrmeta *md, uint32_t token, char *out, size_t cap);
/* "Ns.Outer.Inner.Method" of MethodDef rid of md (method: its name), as the
 * profiler names it (nested types joined by '.'): 0, or -1 (when_check.c). */
int cli_method_full_name(const clrmeta *md, uint32_t rid, const char *method, char *out,
                         size_t cap);

/* An assembly's file mapped and its metadata read, indexed (when_check.c):
 * cli_assembly_open gives 0, or -1 (nothing to close: not a readable
 * assembly); cli_assembly_close releases it. */
typedef struct cli_assembly {
    void *map;
    size_t size;
    void *index;
    clrmeta md;
} cli_assembly;
int cli_assembly_open(const char *path, cli_assembly *a);
void cli_assembly_close(cli_assembly *a);

/* Whether s ends with tail. */
static inline int cli_ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

/* Appends a line probe 'FILE:LINE' (--at) to list (one a line, *n so far,
 * at most CT_AT_MAX): 0, or -1 after one line. */
/* One --inject 'GLOB: ACTION ...' parsed (format/inject_spec.h) and appended to
 * list as a line: 0, or -1 with one line on stderr (the offset in it). */
int cli_add_inject(const char *who, const char *opt, char *list, size_t cap, unsigned *n,
                   const char *text);
/* Checks the --inject specs of list (one a line) against the methods their
 * globs match in the program's main assembly (inject_check.c): 1 when each
 * throw's type was found (in the assembly, an assembly it references from
 * its folder or the runtime's, or CoreLib) and is usable, 0 when nothing
 * wrong is known (the assembly or a type not found here: the profiler then
 * checks), -1 after one line naming the spec, the method, why, and the
 * offset of what is wrong. corelib: its path (NULL: found beside the main
 * assembly, or from the runtime of the dotnet on PATH). */
int cli_inject_check(const char *who, const char *list, char *const *program,
                     const char *corelib);
/* The same for the process -p attaches to: its command line, its files
 * read through /proc/PID/root and /proc/PID/cwd (a container's too), the
 * CoreLib of the runtime it runs (beside the libcoreclr.so it mapped).
 * 0, or -1 after one line: the attach is then refused, the process
 * untouched. */
int cli_inject_check_pid(const char *who, const char *list, unsigned pid);
int cli_add_at(const char *who, const char *opt, char *list, size_t cap, unsigned *n,
               const char *text);

/* Checks each line probe of list (one a line) against the Portable PDBs of
 * the assemblies in the program's main assembly's folder (at_check.c): a
 * line with code in one of them is 0 (a note on stderr when the probe goes
 * at a later line); a file no PDB there names, a line in no method, a file
 * name two documents end with: -1 after one line saying which. 0 when the
 * main assembly cannot be found (the profiler then tells at the end). */
int cli_at_check(const char *who, const char *list, char *const *program);

/* Appends a chosen value's text ('GLOB@PATH,...' for -A, 'GLOB@return...'
 * for -R when ret) to list (one a line), after checking it
 * (ct_chosen_parse): 0, or -1 after one line naming opt. *n counts them
 * (at most CT_CHOSEN_MAX). */
int cli_add_chosen(const char *who, const char *opt, int ret, char *list, size_t cap,
                   unsigned *n, const char *text);

/* -A's paths checked as cli_when_check checks --when's (when_check.c): a
 * path whose first name no method its glob matches has is one line, -1;
 * -R's need a method that returns a value. 0 otherwise. */
int cli_chosen_check(const char *who, const char *args, const char *rets, char *const *program);



/* dump's formats. */
typedef enum cli_dump_format {
    CLI_DUMP_RECORDS, /* no option: the records, one line each */
    CLI_DUMP_FOLDED,
    CLI_DUMP_FLAME,
    CLI_DUMP_CHROME,
    CLI_DUMP_PERFETTO,
    CLI_DUMP_OTLP,    /* --otlp, --otlp-endpoint */
} cli_dump_format;

typedef struct cli_dump_opts {
    cli_dump_format format;
    int by_calls;            /* --calls */
    unsigned width;          /* --width (default FLAME_DEFAULT_WIDTH) */
    const char *title;       /* --title (NULL: the default) */
    uint64_t max_calls;      /* --max-calls (default CLI_CHROME_MAX_CALLS) */
    int flame_only, chrome_only; /* an option of --flame, of --chrome was given */
    cli_otlp_endpoint endpoint; /* --otlp-endpoint (endpoint.url[0] 0: stdout) */
    uint32_t otlp_max_spans; /* --otlp-max-spans (default CLI_OTLP_MAX_SPANS) */
    int otlp_only;           /* --otlp-max-spans was given */
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
    const char *graph;        /* graph's GLOB */
    char histogram[CT_FILTER_MAX_GLOBS_TEXT]; /* report --histogram's globs, ':'-joined */
    int by_trace;             /* report --by-trace: the table of trace ids */
    const char *table_option; /* report: the last option given of the function
                                 table's (--sort, --percent, ...), which
                                 --by-trace does not take */
    cli_dump_opts dump;       /* dump */
} cli_offline;

/* Parses the arguments of offline command who (argv[0] the command) into
 * *o: 0 (o->help set when -h/--help came: nothing after it is read), or -1
 * after one usage-error line ("clrtrace WHO: ..."): an unknown option, a
 * bad value, a second trace or none, options that do not go together. */
int cli_offline_parse(cli_offline *o, const char *who, int argc, char **argv);


/* Renders o->trace to stdout (cmd_replay.c) as o->render says: lines
 * (replay) and/or the summary (report), of the processes o->pid names,
 * through o->reading. Returns the exit status. */
int cli_render(const cli_offline *o);
/* A cli_trace_each callback that gives each record to the ct_render r. */
int cli_render_feed(void *r, const ct_rec *rec);

/* Parses hex text ("20 01 08", "200108", "0x20,0x01") into out; returns the
 * byte count, or -1 (with a message in err) on a bad digit or overflow. */
long cli_parse_hex(const char *text, uint8_t *out, size_t cap, char *err, size_t errcap);


/* Callers and callees (edges.c; graph, top): a table (base/table.h) of
 * edges to other functions, keyed by the other's key + 1. */
typedef struct cli_edge {
    uint64_t key;             /* the other function's (0: <root>) */
    const ct_function *fn;    /* NULL: <root> */
    uint64_t calls, ns;
} cli_edge;
typedef enum cli_edge_order { CLI_EDGES_BY_CALLS, CLI_EDGES_BY_TIME } cli_edge_order;
/* One call of ns to the edge of t to fn (NULL: <root>): 0, or -1 out of
 * memory. */
int cli_edge_add(ct_table *t, const ct_function *fn, uint64_t ns);
/* t's edges, most calls (or time) first, then by name: a malloc'd array of
 * *n, or NULL out of memory. */
cli_edge **cli_edges_sorted(const ct_table *t, cli_edge_order order, size_t *n);
/* Frees t's edges and t. */
void cli_edges_free(ct_table *t);

#endif
