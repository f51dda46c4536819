/* Conditions bound to functions (--when, CLRTRACE_WHEN; the grammar is
 * src/format/expr.h): the conditions parsed once per trace, and bound at
 * map time to each function whose full name matches their glob: each path
 * named by a parameter resolved to the argument's index. The hooks read the
 * binding (agent/record/when_eval.c) without locks. */
#ifndef CLRTRACE_MODEL_WHEN_H
#define CLRTRACE_MODEL_WHEN_H

#include <stdatomic.h>
#include <stdint.h>

#include "format/expr.h"
#include "format/value.h"

/* Arguments (`this` included) whose values a condition can read: a
 * function with more reads the later ones as unknown. */
#define CT_WHEN_MAX_ARGS 64

/* Where a path of a condition starts in a function's arguments: an index,
 * or none (the path reads unknown), or at the call's end its return value
 * or the exception that ended it. */
#define CT_WHEN_NO_ARG UINT32_MAX
#define CT_WHEN_RET_ARG (UINT32_MAX - 1)
#define CT_WHEN_EXC_ARG (UINT32_MAX - 2)

/* What a path segment names besides a field. */
enum { CT_WHEN_SEG_FIELD = 0, CT_WHEN_SEG_LENGTH = 1, CT_WHEN_SEG_COUNT = 2 };

/* A class and the index of a field in its content plan, in one word (one
 * atomic load reads both): the ClassID (a user-space address, below 2^48)
 * with index + 1 in the top 16 bits. */
#define CT_WHEN_CACHE_KEY(cls, idx) ((uint64_t)(cls) | (uint64_t)((idx) + 1) << 48)

/* One path of a condition bound to a function: its argument, what each
 * segment names, and for each segment after the first the field last found
 * for a class (a one-entry cache per segment, CT_WHEN_CACHE_KEY; another
 * class costs a search by name). */
typedef struct ct_when_path {
    uint32_t arg;                          /* argument index, or CT_WHEN_NO_ARG */
    uint8_t seg[CT_EXPR_MAX_SEGMENTS];     /* CT_WHEN_SEG_* */
    _Atomic uint64_t cache[CT_EXPR_MAX_SEGMENTS];
} ct_when_path;

typedef struct ct_when_bound {
    const ct_expr *expr;
    uint32_t index;                        /* the condition's, in this trace's */
    ct_when_path paths[CT_EXPR_MAX_PATHS];
} ct_when_bound;

/* The conditions of one function: every one must hold. */
typedef struct ct_when_fn {
    uint32_t n;
    ct_when_bound c[];
} ct_when_fn;

struct ct_mapped_fn;

/* A path of condition index could not be read at a call (a field the
 * object does not have, a struct field whose layout is not known): that
 * call is not recorded, and the end of the trace says so (hooks; one
 * relaxed atomic add). */
void ct_when_unreadable(uint32_t index, uint32_t path);
/* At the end of a trace: one note per path that could not be read, with
 * how many calls (stderr at start-up, kept for the CLI under attach);
 * the counts start again. */
void ct_when_tell_unreadable(void);

/* Chosen values (-A, -R; CLRTRACE_ARGS_CHOSEN, CLRTRACE_RET_CHOSEN; the
 * grammar is ct_chosen_parse's) bound to a function: the values its ENTER
 * (-A) or LEAVE (-R) record carries instead of its arguments or its return
 * value, one per path in the order given. A path of one name (`order`,
 * `this`, `return`) keeps that value's own plan; a longer one is read
 * along the path at each call (agent/record/when_eval.c) and captured as an
 * `object` slot holding it would be: a string or object by its runtime
 * class, a primitive or well-known struct as its boxed value ("decimal
 * 1200.00"), an enum as its underlying number, a null on the way as null;
 * what cannot be read (a field the object does not have, a struct value) is
 * MISSING. A path with a secret's name in it (ct_secret_name) is
 * <redacted>: its plan is REDACTED and nothing of it is read. */
typedef struct ct_chosen_fn {
    uint32_t n;
    const char *const *labels;        /* "order.Total=" */
    const ct_plan *const *plans;      /* each value's plan in the FUNCTION record */
    uint8_t read[CT_CHOSEN_MAX_PATHS];/* 1: read along the path (else: the slot's
                                         own value, or nothing when REDACTED) */
    ct_when_bound b;                  /* the paths bound (b.expr: the parsed text;
                                         -R: argument 0 is the return value) */
} ct_chosen_fn;


/* Parses CLRTRACE_ARGS_CHOSEN and CLRTRACE_RET_CHOSEN (one a line) for a
 * new trace: 0, or -1 with a line in why. */
int ct_chosen_load(const char *args, const char *rets, char *why, size_t cap);

/* The first -A (ret 0) or -R (ret 1) whose glob matches f's full name,
 * bound to f (permanent memory), or NULL: none (or f has no values, or -R
 * and f returns nothing). A path naming no parameter of f is told once on
 * stderr and reads MISSING. */
const ct_chosen_fn *ct_chosen_bind(const struct ct_mapped_fn *f, int ret);

/* Parses CLRTRACE_WHEN (entries separated by line breaks) for a new trace:
 * 0, or -1 with a line in why (the profiler then does not trace). Called
 * from the configuration's start (start-up and each attach session). */
int ct_when_load(const char *text, char *why, size_t cap);

/* The conditions whose glob matches f's full name, bound to its arguments
 * (permanent memory), or NULL: none. at_end 0: those that decide at a
 * call's entry; 1: those that decide at its end (they name `return`,
 * `exception` or an out parameter; their other parameters must be out or
 * ref ones, read again at the end). A path naming no parameter of f (or
 * one it cannot read then) is told once on stderr ("clrtrace: --when
 * 'GLOB: ...': METHOD has no parameter 'x'") and reads unknown, so the
 * condition is false. */
const ct_when_fn *ct_when_bind(const struct ct_mapped_fn *f, int at_end);

/* Condition e (option opt's, text as given; index: its number for the
 * unreadable counts, CT_WHEN_NO_INDEX: none) bound to f's arguments into
 * *c, as ct_when_bind binds each (a path f cannot give is told once, as
 * "OPT 'TEXT': ...", and reads unknown). */
#define CT_WHEN_NO_INDEX UINT32_MAX
void ct_when_bind_one(const struct ct_mapped_fn *f, const char *opt, const char *text,
                      const ct_expr *e, uint32_t index, int at_end, ct_when_bound *c);

/* Whether a condition loaded may decide at a call's end (it names return,
 * exception, or a parameter that may be an out one): the writer's filter
 * then holds such calls' events (ct_filter_opts.at_end). */
int ct_when_may_decide_at_end(void);
/* Whether function key (a ct_mapped_fn) has conditions that decide at its
 * end (the filter's at_end). */
int ct_when_at_end(uint64_t key);

/* The name of argument i of f as its label says ("order" of "Order
 * order="; "this"), into out: 0, or -1. */
int ct_when_arg_name(const char *label, char *out, size_t cap);

/* The binding's notes (a condition or a chosen value that names what a
 * matching method lacks): on stderr at start-up; under attach kept (the
 * process's stderr is its own) for the CLI, the first CT_NOTES_BYTES
 * (agent/runtime/notes.h). */
void ct_when_keep_notes(int keep);
/* Where those notes go (fault injection's go there too). */
struct ct_notes;
struct ct_notes *ct_when_notes_of(void);
void ct_when_notes(char *out, size_t cap);

#endif
