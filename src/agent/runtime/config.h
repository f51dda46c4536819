/* Settings read once from the environment in Initialize, through the
 * settings table (src/format/settings.h; docs/tracer.md). */
#ifndef CLRTRACE_CONFIG_H
#define CLRTRACE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "views/treefilter.h"
#include "format/settings.h" /* every variable's name, bounds and default */

/* CLRTRACE_NULL: hooks that return at once, for measuring the runtime's own
 * cost (bench/). The values are those ct_setting_parse gives. */
typedef enum ct_null_mode {
    CT_NULL_OFF = 0,
    CT_NULL_SLOW = 1,  /* "1"/"slow": slow-path WithInfo hooks, empty */
    CT_NULL_FAST = 2   /* "fast": fast-path stubs calling empty callbacks */
} ct_null_mode;

typedef struct ct_config {
    const char *output_path; /* CLRTRACE_OUTPUT; NULL means stderr (when there is a text log) */
    const char *trace_path;  /* CLRTRACE_TRACE: the binary trace; NULL: none. Without
                                CLRTRACE_OUTPUT, a binary trace means no text log. */
    int lossy;               /* CLRTRACE_LOSSY=1: drop events when a buffer is full */
    int follow;              /* CLRTRACE_FOLLOW=0: only the launcher's own child is traced */
    int ids;                 /* CLRTRACE_IDS=0: no trace ids read at calls */
    int srcline;             /* CLRTRACE_SRCLINE: 1 functions' source locations (shown
                                from their common folder), 2 the same with whole paths */
    int compress;            /* CLRTRACE_COMPRESS=0: the binary trace without ZSTD records */
    uint64_t max_size;       /* CLRTRACE_MAX_SIZE: the binary trace's most bytes (0: no bound) */
    uint32_t launcher_pid;   /* CLRTRACE_LAUNCHER_PID (set by `clrtrace run/record`): the
                                process whose parent it is is the root of the tree; 0:
                                not known (the environment alone loaded us) */
    const char *index_path;  /* CLRTRACE_INDEX (set by the launcher): each traced
                                process adds one line there (outputs.h) */
    int no_args;             /* CLRTRACE_NO_ARGS=1: fast path, calls and times only */
    int il_engine;           /* the IL-probe engine (src/agent/engines/il): CLRTRACE_ENGINE=il,
                                or auto (the default) without -a (settings.h) */
    ct_null_mode null_mode;  /* CLRTRACE_NULL */
    int bench_naive;         /* CLRTRACE_BENCH_NAIVE=1 (bench only): render and write
                                each event in the hook, unbuffered */
    uint32_t buffer_kb;      /* CLRTRACE_BUFFER_KB: per-thread ring */
    int trace_all;           /* CLRTRACE_ALL=1: also framework code */
    int allow_inlining;      /* CLRTRACE_INLINING=1: let the JIT inline (inlinees get no hooks) */
    int signatures;          /* CLRTRACE_SIGNATURES=0: bare names, no argument values */
    int summary;             /* CLRTRACE_SUMMARY=0: no summary table at shutdown */
    uint32_t string_chars;   /* CLRTRACE_STRING_CHARS */
    uint32_t array_items;    /* CLRTRACE_ARRAY_ITEMS */
    uint32_t struct_depth;   /* CLRTRACE_STRUCT_DEPTH */
    uint32_t object_depth;   /* CLRTRACE_OBJECT_DEPTH */
    uint32_t object_fields;  /* CLRTRACE_OBJECT_FIELDS */
    uint32_t value_bytes;    /* CLRTRACE_VALUE_BYTES */
    int redact;              /* CLRTRACE_REDACT: secrets' values are not captured */
    uint32_t max_overhead;   /* CLRTRACE_MAX_OVERHEAD: % of a thread's time; 0 off */
    uint64_t limit;          /* CLRTRACE_LIMIT: calls recorded per method; 0 off */
    uint64_t rate;           /* CLRTRACE_RATE: calls recorded per method a second; 0 off */
    const char *redact_names;/* CLRTRACE_REDACT_NAMES: more names of secrets */
    const char *include;     /* CLRTRACE_INCLUDE: globs on full names, ':'-separated;
                                when set, only matching functions are traced */
    const char *exclude;     /* CLRTRACE_EXCLUDE: globs on full names never traced */
    const char *args_chosen; /* CLRTRACE_ARGS_CHOSEN: -A's 'GLOB@PATH,...', one a line */
    const char *ret_chosen;  /* CLRTRACE_RET_CHOSEN: -R's 'GLOB@return...', one a line */
    int locals;              /* CLRTRACE_LOCALS: a frame's arguments and locals as an exception
                                passes through it (--locals) */
    const char *inject;      /* CLRTRACE_INJECT: faults 'GLOB: ACTION ...', one a line
                                (NULL: none; model/inject_bind.h binds them) */
    uint64_t inject_seed;    /* CLRTRACE_INJECT_SEED */
    int inject_seed_given;
    int inject_checked;      /* CLRTRACE_INJECT_CHECKED: the launcher checked the types */
    const char *at;          /* CLRTRACE_AT: line probes 'FILE:LINE', one a line (NULL: none) */
    const char *when;        /* CLRTRACE_WHEN: conditions 'GLOB: EXPR', one a line
                                (model/when_bind.h binds them) */
    const char *assembly;    /* CLRTRACE_ASSEMBLY: globs on assembly names; when set,
                                only their functions are traced */
    ct_filter_opts tree;     /* the tree filters (CLRTRACE_DEPTH, CLRTRACE_MIN_TIME,
                                CLRTRACE_TRIGGER, CLRTRACE_AFTER): applied by the
                                writer; the trigger also gates the hooks' values */
} ct_config;

/* Whether a function is traced (hooked), from its full name
 * ("Demo.Shapes.Scale"), its assembly's simple name ("Demo"; NULL when not
 * known) and whether the default filter ("my code", or everything with
 * CLRTRACE_ALL) would trace it. An assembly list replaces the default (and
 * an include list then narrows it); otherwise an include list replaces the
 * default. Trigger functions are always traced. An exclude list always wins.
 * Globs are fnmatch(3) patterns (':'-separated lists; '*' also matches '.';
 * limit CT_FILTER_MAX_GLOBS_TEXT). */
int ct_config_traces(const ct_config *c, const char *full_name, const char *assembly,
                     int by_default);

/* Fills c from the environment. Strings point into the environment.
 * Returns 0, or -1 with one line of explanation in why (no newline) when a
 * variable holds a value that is not allowed: the profiler then declines to
 * load and the program runs untraced. */
int ct_config_from_env(ct_config *c, char *why, size_t why_cap);

/* The same from another source of settings: lookup(ctx, "CLRTRACE_...")
 * gives a variable's text, or NULL (an attach session's request). Strings
 * point into what lookup returns. */
typedef const char *(*ct_config_lookup)(void *ctx, const char *name);
int ct_config_from(ct_config *c, ct_config_lookup lookup, void *ctx, char *why, size_t why_cap);

#endif
