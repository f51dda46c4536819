/*
 * Conditions (--when 'GLOB: EXPR', docs/cli.md "Conditions"): the text
 * parsed into a flat, bounded tree held in a caller's struct (no
 * allocation), and evaluated over abstract values that the caller's
 * resolver reads (the profiler: live argument values, by their plans).
 *
 * Grammar (whitespace between tokens is free):
 *   when    := GLOB ':' expr             GLOB: one fnmatch pattern, no ':';
 *                                        or FILE ':' digits, a line probe's
 *                                        (--at FILE:LINE as given)
 *   expr    := and ('||' and)*
 *   and     := unary ('&&' unary)*
 *   unary   := '!' unary | '(' expr ')' | path [cmp literal]
 *   cmp     := '==' | '!=' | '<' | '<=' | '>' | '>='
 *   path    := ident ('.' ident)*        first: a parameter, this, return,
 *                                        exception; then fields and
 *                                        auto-properties by name, Length,
 *                                        Count
 *   literal := integer | decimal | string | null | true | false | ident
 *   integer := '-'? (digits | 0x hexdigits) ['m'|'M']
 *   decimal := '-'? digits '.' digits [('e'|'E') ['+'|'-'] digits] ['m'|'M']
 *   string  := '"' chars with C# escapes \" \\ \' \0 \n \r \t \uXXXX '"'
 * A bare path stands for `path == true`. A literal identifier is an enum
 * member's name. A literal on the left (`1000 < order.Total`) is not
 * allowed: the path comes first.
 *
 * Evaluation is three-valued: a comparison whose path cannot be read (a
 * null on the way, a field the object does not have, a type the literal
 * does not compare with) is unknown; ! of unknown is unknown, && is false
 * when one side is false, || true when one side is true, and a condition
 * that ends unknown is false (the call is not recorded). Null compares
 * equal only to null; <, <=, >, >= with null are false (as C#'s lifted
 * operators).
 *
 * Paths rooted at `return` or `exception` decide at the call's return
 * (ct_expr_needs_return); the others at its entry.
 */
#ifndef CLRTRACE_FORMAT_EXPR_H
#define CLRTRACE_FORMAT_EXPR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

/* Longest 'GLOB: EXPR' text, in bytes. */
#define CT_EXPR_MAX_TEXT 1024u
/* Longest GLOB (before the ':'), in bytes. */
#define CT_EXPR_MAX_GLOB 256u
/* Most nodes of the tree (comparisons, bare paths, &&, ||, !). */
#define CT_EXPR_MAX_NODES 64u
/* Deepest nesting of parentheses and '!' (each counts one level). */
#define CT_EXPR_MAX_DEPTH 16u
/* Most paths in one expression, and segments of one path (`a.b.c` is 3). */
#define CT_EXPR_MAX_PATHS 32u
#define CT_EXPR_MAX_SEGMENTS 8u
/* Longest identifier, in bytes. */
#define CT_EXPR_MAX_IDENT 64u
/* Longest string literal, in UTF-16 code units (after escapes). */
#define CT_EXPR_MAX_STRING 256u
/* Most --when options (CLRTRACE_WHEN's entries, one a line), and the
 * longest CLRTRACE_WHEN. */
#define CT_WHEN_MAX 16u
#define CT_WHEN_MAX_TEXT (CT_WHEN_MAX * (CT_EXPR_MAX_TEXT + 1))
/* Longest error message (with its offset). */
#define CT_EXPR_MAX_ERROR 160u

typedef enum ct_expr_op {
    CT_XOP_CMP = 1,   /* paths[path] cmp lit */
    CT_XOP_TRUTH,     /* paths[path] == true */
    CT_XOP_NOT,       /* ! kids[first] */
    CT_XOP_AND,       /* kids[first .. first+count) all */
    CT_XOP_OR,        /* one of them */
} ct_expr_op;

typedef enum ct_expr_cmp {
    CT_XCMP_EQ = 1, CT_XCMP_NE, CT_XCMP_LT, CT_XCMP_LE, CT_XCMP_GT, CT_XCMP_GE
} ct_expr_cmp;

typedef enum ct_expr_lit_kind {
    CT_XL_NULL = 1,
    CT_XL_BOOL,
    CT_XL_INT,        /* neg, mag (|value| <= 2^63 when neg) */
    CT_XL_DEC,        /* a number with a point or an exponent */
    CT_XL_STRING,     /* UTF-16 code units: strings[off .. off+len) */
    CT_XL_NAME,       /* an enum member's name: names[off .. off+len) */
} ct_expr_lit_kind;

/* A decimal as .NET holds it: a 96-bit magnitude, a scale (0..28) and a
 * sign; value = (-1)^neg * m / 10^scale. */
typedef struct ct_xdec {
    uint32_t m[3];    /* low word first */
    uint8_t scale;
    uint8_t neg;
} ct_xdec;

typedef struct ct_expr_lit {
    uint8_t kind;     /* ct_expr_lit_kind */
    uint8_t b;        /* BOOL */
    uint8_t neg;      /* INT, DEC: below zero */
    uint8_t exact;    /* INT, DEC: dec holds the value exactly */
    uint64_t mag;     /* INT: the magnitude */
    double d;         /* INT, DEC: the value as a double */
    ct_xdec dec;      /* INT, DEC: when exact */
    uint16_t off, len;/* STRING, NAME: where in the pool */
} ct_expr_lit;

/* Where a path starts. */
typedef enum ct_expr_root {
    CT_XROOT_PARAM = 1, /* a parameter by name (segs[0]) */
    CT_XROOT_THIS,
    CT_XROOT_RETURN,
    CT_XROOT_EXCEPTION,
} ct_expr_root;

typedef struct ct_expr_path {
    uint8_t root;     /* ct_expr_root */
    uint8_t nseg;     /* segments, the root's name included */
    uint16_t seg[CT_EXPR_MAX_SEGMENTS];     /* each a name: names[seg[i]..] NUL-ended */
    uint16_t seg_len[CT_EXPR_MAX_SEGMENTS];
    uint32_t offset;  /* where it begins in the text */
} ct_expr_path;

typedef struct ct_expr_node {
    uint8_t op;       /* ct_expr_op */
    uint8_t cmp;      /* CMP: ct_expr_cmp */
    uint16_t path;    /* CMP, TRUTH */
    uint16_t first, count; /* NOT, AND, OR: children in kids[] */
    ct_expr_lit lit;  /* CMP */
} ct_expr_node;

/* One parsed condition: the glob and the tree, every part in this struct
 * (nothing points outside it; it may be copied). */
typedef struct ct_expr {
    char glob[CT_EXPR_MAX_GLOB + 1];
    uint16_t root;    /* the top node */
    uint16_t nnodes, nkids, npaths, nnames, nstrings;
    ct_expr_node nodes[CT_EXPR_MAX_NODES];
    uint16_t kids[CT_EXPR_MAX_NODES];
    ct_expr_path paths[CT_EXPR_MAX_PATHS];
    char names[CT_EXPR_MAX_TEXT + CT_EXPR_MAX_PATHS * CT_EXPR_MAX_SEGMENTS]; /* NUL-ended names */
    uint16_t strings[CT_EXPR_MAX_TEXT];     /* string literals' code units */
} ct_expr;

/* A parse error: the byte offset in the text and what to do. */
typedef struct ct_expr_error {
    size_t offset;
    char message[CT_EXPR_MAX_ERROR]; /* "expected a literal after '>' at offset 17" */
} ct_expr_error;

/* *err set to the message fmt makes, then " at offset AT" (the message cut
 * to leave room for it): the one form of every parse error here and in
 * format/inject_spec.c. */
void ct_expr_verror(ct_expr_error *err, size_t at, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* The method pattern of a 'GLOB: ...' text, text[0..colon) trimmed, into
 * glob (CT_EXPR_MAX_GLOB + 1 bytes): 0, or -1 with *err set (its offset in
 * text): none, too long, or with a space or control character in it. */
int ct_expr_glob(const char *text, size_t colon, char *glob, ct_expr_error *err);

/* Parses text ('GLOB: EXPR', NUL-ended) into *e: 0, or -1 with *err set. */
int ct_expr_parse(const char *text, ct_expr *e, ct_expr_error *err);

/* The name of segment i of path p (NUL-ended). */
static inline const char *ct_expr_seg(const ct_expr *e, const ct_expr_path *p, unsigned i)
{
    return e->names + p->seg[i];
}

/* 1 when some path of e is read at the call's return (rooted at `return`
 * or `exception`); a parameter that is out or ref is known to the binder
 * only (it decides whether to read it at return). */
int ct_expr_needs_return(const ct_expr *e);

/* 1 when e decides at the call's end: it names `return` or `exception`
 * (ct_expr_needs_return), or a parameter that out_param(ctx, name) says the
 * call writes (an out parameter: unknown at entry). Each binder asks its own
 * source (the profiler its mapped function, the launcher the metadata). */
int ct_expr_decides_at_end(const ct_expr *e, int (*out_param)(void *ctx, const char *name),
                           void *ctx);

/* ---------------------------------------------------- chosen values */

/* Chosen values (-A 'GLOB@PATH[,PATH...]', -R 'GLOB@PATH'; docs/cli.md,
 * "Chosen values"): the paths a matching method's call captures instead of
 * its arguments (-A) or its return value (-R), parsed with the paths of
 * conditions into a ct_expr without nodes (its paths in the order given):
 *   chosen := GLOB '@' path (',' path)*     GLOB: no ':', no '@'
 * -A: each path begins with a parameter's name or `this`; -R: one path,
 * beginning with `return`. */
/* Most paths of one -A. */
#define CT_CHOSEN_MAX_PATHS 16u
/* Most -A options (and -R options), and the longest CLRTRACE_ARGS_CHOSEN
 * (or CLRTRACE_RET_CHOSEN): one a line. */
#define CT_CHOSEN_MAX 16u
#define CT_CHOSEN_MAX_TEXT (CT_CHOSEN_MAX * (CT_EXPR_MAX_TEXT + 1))

/* Parses text ('GLOB@PATH[,PATH...]', NUL-ended; ret: -R's, one path from
 * `return`) into *e: 0, or -1 with *err set. */
int ct_chosen_parse(const char *text, int ret, ct_expr *e, ct_expr_error *err);

/* ------------------------------------------------------- evaluation */

typedef enum ct_xval_kind {
    CT_XV_UNKNOWN = 0, /* could not be read */
    CT_XV_NULL,
    CT_XV_BOOL,        /* b */
    CT_XV_INT,         /* i */
    CT_XV_UINT,        /* u (char too) */
    CT_XV_DOUBLE,      /* d */
    CT_XV_DECIMAL,     /* dec */
    CT_XV_STRING,      /* chars[0..len): UTF-16 code units */
    CT_XV_ENUM,        /* u (zero-extended; is_signed: sign-extend from size), items */
    CT_XV_TYPE,        /* an exception's type: text (UTF-8, full name) */
    CT_XV_OBJECT,      /* a non-null object (or a Nullable<T> with a value) with nothing else to compare */
} ct_xval_kind;

typedef struct ct_xval {
    ct_xval_kind kind;
    int b;
    int64_t i;
    uint64_t u;
    double d;
    ct_xdec dec;
    const uint16_t *chars;
    uint32_t len;
    const char *text;
    const ct_enum_item *items;
    uint32_t nitems;
    uint8_t enum_signed, enum_size;
} ct_xval;

/* Reads path index `path` of e into *out (UNKNOWN when it cannot). */
typedef void ct_expr_resolve_fn(void *ctx, const ct_expr *e, uint32_t path, ct_xval *out);

typedef enum ct_xtruth { CT_XFALSE = 0, CT_XTRUE = 1, CT_XUNKNOWN = 2 } ct_xtruth;

/* Evaluates e, reading each path through resolve (at most once per
 * comparison): CT_XTRUE, CT_XFALSE or CT_XUNKNOWN. Recursion is bounded by
 * the parse's nesting limit; time by the node count. */
ct_xtruth ct_expr_eval(const ct_expr *e, ct_expr_resolve_fn *resolve, void *ctx);

/* Whether the call is recorded: ct_expr_eval is CT_XTRUE (unknown is
 * false). */
static inline int ct_expr_holds(const ct_expr *e, ct_expr_resolve_fn *resolve, void *ctx)
{
    return ct_expr_eval(e, resolve, ctx) == CT_XTRUE;
}

/* One comparison of a value with a literal (e for the literal's pool). */
ct_xtruth ct_expr_compare(const ct_expr *e, const ct_xval *v, ct_expr_cmp cmp,
                          const ct_expr_lit *lit);

/* A decimal's 16 bytes as .NET lays them out (flags, hi, lo, mid) read
 * into *d: 0, or -1 when the flags are not a decimal's. */
int ct_xdec_from_bytes(const uint8_t b[16], ct_xdec *d);

#endif
