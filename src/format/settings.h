/*
 * Every setting of the profiler, written once: its environment variable, the
 * launcher's option for it, its type, bounds, default and help line. The
 * launcher (src/cli/cmd_run.c) parses and exports options from this table,
 * the profiler (src/agent/runtime/config.c) reads the environment through it, and
 * `clrtrace run --help` prints its option lines from it, so a bound or a
 * spelling cannot differ between them. docs/tracer.md lists the same table.
 */
#ifndef CLRTRACE_SETTINGS_H
#define CLRTRACE_SETTINGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The largest --depth, and the calls the tree filter (views/treefilter.h)
 * follows per thread. */
#define CT_FILTER_MAX_FRAMES 65536u
/* Largest --limit and --rate. */
#define CT_MAX_LIMIT 1000000000000ull
/* The budget under `-p` when --max-overhead is not given (% of a thread's
 * time): a live service must not be hurt by a forgotten broad filter. */
#define CT_ATTACH_DEFAULT_MAX_OVERHEAD 5

/* Largest accepted string-character and array-item counts (-s, --array-items).
 * What really fits in one event is bounded by the per-thread capture buffer:
 * a value that does not fit is captured again with smaller limits. */
#define CT_MAX_STRING_CHARS_OPTION 1000000u
#define CT_MAX_ARRAY_ITEMS_OPTION 1000000u
/* Default nesting of struct fields followed (--struct-depth); the largest is
 * CT_MAX_VALUE_DEPTH (src/format/value.h). */
#define CT_DEFAULT_STRUCT_DEPTH 4u
/* The per-thread event ring (--buffer-kb, rounded down to a power of two):
 * default and bounds. */
#define CT_DEFAULT_RING_KB 512u
#define CT_MIN_RING_KB 16u
#define CT_MAX_RING_KB (1024u * 1024u)
/* --max-size: the binary trace is cut into CT_MAX_SIZE_SEGMENTS segment
 * files of a quarter of it each, the oldest deleted when a new one would
 * pass it. The smallest: two writer buffers (1 MiB each) a segment; the
 * largest: 1 TiB. */
#define CT_MAX_SIZE_SEGMENTS 4u
#define CT_MIN_MAX_SIZE (8ull << 20)
#define CT_MAX_MAX_SIZE (1ull << 40)
/* Largest --after / CLRTRACE_AFTER. */
#define CT_MAX_AFTER 1000000000000000000ull

typedef enum ct_setting_id {
    CT_SET_OUTPUT,        /* CLRTRACE_OUTPUT: the text log's file */
    CT_SET_TRACE,         /* CLRTRACE_TRACE: the binary trace's file */
    CT_SET_ALL,
    CT_SET_INCLUDE,
    CT_SET_EXCLUDE,
    CT_SET_ASSEMBLY,
    CT_SET_WHEN,
    CT_SET_AT,            /* CLRTRACE_AT: line probes 'FILE:LINE', one a line (--at) */
    CT_SET_INJECT,        /* CLRTRACE_INJECT: faults 'GLOB: ACTION ...', one a line (--inject) */
    CT_SET_INJECT_SEED,   /* CLRTRACE_INJECT_SEED: probability's seed (--inject-seed) */
    CT_SET_INJECT_CHECKED,/* CLRTRACE_INJECT_CHECKED: the launcher found each throw's
                             type usable (inject_check.c): a reference to one whose
                             assembly is not loaded yet may be used */
    CT_SET_DEPTH,
    CT_SET_MIN_TIME,
    CT_SET_TRIGGER,
    CT_SET_AFTER,
    CT_SET_FAILED,        /* CLRTRACE_FAILED: only calls that ended by an exception, with
                             their callers (--failed) */
    CT_SET_STRING_CHARS,
    CT_SET_ARRAY_ITEMS,
    CT_SET_STRUCT_DEPTH,
    CT_SET_OBJECT_DEPTH,
    CT_SET_OBJECT_FIELDS,
    CT_SET_VALUE_BYTES,
    CT_SET_LOCALS,        /* CLRTRACE_LOCALS: each traced frame an exception leaves, its
                             arguments and locals as the exception passed (--locals) */
    CT_SET_REDACT,        /* CLRTRACE_REDACT: 0 shows secrets' values too (--no-redact) */
    CT_SET_REDACT_NAMES,  /* CLRTRACE_REDACT_NAMES: more names of secrets (--redact) */
    CT_SET_ARGS_CHOSEN,   /* CLRTRACE_ARGS_CHOSEN: -A 'GLOB@PATH,...', one a line */
    CT_SET_RET_CHOSEN,    /* CLRTRACE_RET_CHOSEN: -R 'GLOB@return...', one a line */
    CT_SET_MAX_OVERHEAD,  /* CLRTRACE_MAX_OVERHEAD: the budget, % of a thread's time */
    CT_SET_LIMIT,         /* CLRTRACE_LIMIT: calls recorded per method */
    CT_SET_RATE,          /* CLRTRACE_RATE: calls recorded per method and second */
    CT_SET_NO_ARGS,
    CT_SET_ENGINE,
    CT_SET_LOSSY,
    CT_SET_BUFFER_KB,
    CT_SET_INLINING,
    CT_SET_FOLLOW,
    CT_SET_COMPRESS,
    CT_SET_MAX_SIZE,      /* CLRTRACE_MAX_SIZE: the binary trace's most bytes, its
                             oldest segments deleted past it (--max-size) */
    CT_SET_IDS,           /* CLRTRACE_IDS: 0 reads no trace ids (--no-ids) */
    CT_SET_SRCLINE,       /* CLRTRACE_SRCLINE: each function's file:line from its
                             Portable PDB (--srcline[=full]) */
    CT_SET_NULL,
    CT_SET_SUMMARY,
    CT_SET_SIGNATURES,
    CT_SET_BENCH_NAIVE,
    CT_SET_LAUNCHER_PID,
    CT_SET_INDEX,
    CT_SETTING_COUNT
} ct_setting_id;

typedef enum ct_setting_kind {
    CT_KIND_FLAG,     /* 1/yes/true/on or 0/no/false/off, any case */
    CT_KIND_NUMBER,   /* a whole number in [min, max]: decimal digits only */
    CT_KIND_GLOBS,    /* fnmatch(3) patterns joined by ':' (at most
                         CT_FILTER_MAX_GLOBS_TEXT - 1 characters) */
    CT_KIND_DURATION, /* a number and ns, us, ms or s (ct_parse_duration) */
    CT_KIND_PATH,     /* a file name */
    CT_KIND_NULL,     /* 0/off, 1/slow, fast (ct_null_mode) */
    CT_KIND_ENGINE,   /* elt (CT_ENGINE_ELT), il (CT_ENGINE_IL) or auto (CT_ENGINE_AUTO) */
    CT_KIND_SRCLINE,  /* 0/off, 1/on (paths from the sources' common root), full
                         (2: whole paths) */
    CT_KIND_WHEN,     /* conditions 'GLOB: EXPR' (src/format/expr.h), one a
                         line: at most CT_WHEN_MAX, each at most
                         CT_EXPR_MAX_TEXT bytes */
    CT_KIND_AT,       /* line probes 'FILE:LINE' (src/format/words.h, ct_at_parse),
                         one a line: at most CT_AT_MAX */
    CT_KIND_INJECT,   /* faults 'GLOB: ACTION ...' (src/format/inject_spec.h), one a
                         line: at most CT_INJECT_MAX */
    CT_KIND_SIZE,     /* bytes: a whole number, alone or with K, M, G or T
                         (ct_parse_size), in [min, max] */
    CT_KIND_CHOSEN,   /* chosen values 'GLOB@PATH[,PATH...]' (src/format/expr.h,
                         ct_chosen_parse), one a line: at most CT_CHOSEN_MAX;
                         CT_SET_RET_CHOSEN's: -R's, one path */
} ct_setting_kind;

/* Where a setting's option is listed in --help. */
typedef enum ct_setting_group {
    CT_GROUP_NONE,     /* no option: environment only, or the launcher's own */
    CT_GROUP_SELECT,   /* which functions are traced */
    CT_GROUP_FILTER,   /* the tree filters: run/record and replay/report/dump */
    CT_GROUP_VALUES,   /* how values are captured */
    CT_GROUP_MODE,     /* how the tracer runs */
    CT_GROUP_INJECT,   /* faults injected (--inject) */
} ct_setting_group;

enum {
    CT_SETTING_REPEAT = 1,   /* the option may be given again: GLOBS joined by ':' */
    CT_SETTING_ZERO_OFF = 2, /* NUMBER/DURATION: 0 (the default) means off; the
                                option takes 1 and up (more than 0) */
    CT_SETTING_OFF_WORD = 4, /* NUMBER: the word "off" is 0 (the option's too) */
    CT_SETTING_PER_SECOND = 8, /* NUMBER: may end in "/s" (a rate) */
};

/* CT_SET_ENGINE's values. auto, the default: the IL engine, except with
 * CT_SET_ALL (every method: the ELT engine, faster there) and the empty
 * hooks of CT_SET_NULL (the ELT engine's own); docs/tracer.md, "Which engine
 * is the default". */
enum { CT_ENGINE_ELT = 0, CT_ENGINE_IL = 1, CT_ENGINE_AUTO = 2 };

typedef struct ct_setting {
    const char *env;       /* "CLRTRACE_STRING_CHARS" */
    const char *shortopt;  /* "-s", or NULL */
    const char *longopt;   /* "--string-chars", or NULL: no option */
    ct_setting_kind kind;
    ct_setting_group group;
    unsigned flags;        /* CT_SETTING_* */
    uint64_t min, max;     /* NUMBER */
    uint64_t dflt;         /* FLAG, NUMBER, NULL: the value when unset or empty */
    const char *sets;      /* an option without a value: the value it sets ("0" for
                              --no-summary); NULL: the option takes a value */
    const char *arg;       /* the value's name in --help: "N", "GLOB", "TIME" */
    const char *help;      /* --help text: lines joined by '\n'; "{min}", "{max}"
                              and "{default}" stand for the numbers */
} ct_setting;

extern const ct_setting ct_settings[CT_SETTING_COUNT];

/* Longest "what to use" phrase ct_setting_parse gives. */
#define CT_SETTING_WANT_MAX 160

/* Parses text as setting id's value: 0 and *num (FLAG 0/1, NUMBER, DURATION
 * in ns, NULL a ct_null_mode; GLOBS and PATH leave *num alone), or -1 with
 * what the value should be in want ("a whole number from 0 to 8", "1 or 0").
 * option: the bounds of the option (CT_SETTING_ZERO_OFF: above 0) rather than
 * the variable's. An empty text is not a value (-1). */
int ct_setting_parse(ct_setting_id id, const char *text, int option, uint64_t *num,
                     char *want, size_t want_cap);

/* 1 for a setting whose value is lines, each an option's (--when, -A, -R):
 * the attach request carries one line per option. */
static inline int ct_setting_lines(ct_setting_id id)
{
    return ct_settings[id].kind == CT_KIND_WHEN || ct_settings[id].kind == CT_KIND_CHOSEN ||
           ct_settings[id].kind == CT_KIND_AT || ct_settings[id].kind == CT_KIND_INJECT;
}

/* The setting whose option is opt ("-s", "--string-chars"), or -1. */
int ct_setting_by_option(const char *opt);

/* Prints the --help lines of the options of one group: the option at column
 * 2, its text at column 25. */
void ct_settings_help(FILE *to, ct_setting_group group);

#endif
