/*
 * Fault injection (--inject 'GLOB: ACTION [SELECTOR...] [when COND]',
 * docs/cli.md "Injecting faults"): the text parsed into a bounded struct
 * (no allocation), and the selectors' decision for the n-th call that meets
 * the condition.
 *
 * Grammar (whitespace between tokens is free):
 *   inject   := GLOB ':' action selector* ['when' cond]
 *   action   := 'throw' TYPE ['(' string ')']     TYPE: a dotted name
 *             | 'return' value                    value: a literal of the
 *                                                 conditions' grammar
 *                                                 (format/expr.h) or `default`
 *             | 'delay' DURATION                  5ms, 1.5s, 200us (at least 1ms)
 *   selector := 'every' N | 'after' N | N '..' M | 'probability' P
 *                                                 P: 0.25 or 25%
 *   cond     := a condition of format/expr.h, deciding at the entry
 * Each selector at most once; a call is injected when it meets the
 * condition and every selector given chooses its number among those calls.
 */
#ifndef CLRTRACE_FORMAT_INJECT_H
#define CLRTRACE_FORMAT_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "expr.h"

/* Most --inject options, and the longest CLRTRACE_INJECT (one a line). */
#define CT_INJECT_MAX 8u
#define CT_INJECT_MAX_TEXT (CT_INJECT_MAX * (CT_EXPR_MAX_TEXT + 1))
/* Longest exception type name, in bytes. */
#define CT_INJECT_MAX_TYPE 256u
/* Longest delay (Thread.Sleep's milliseconds), and the shortest. */
#define CT_INJECT_MAX_DELAY_MS 600000u
#define CT_INJECT_MIN_DELAY_MS 1u
/* Largest N of every, after and first..last. */
#define CT_INJECT_MAX_COUNT 1000000000u
/* The message of an exception thrown without one given. */
#define CT_INJECT_MESSAGE "injected by clrtrace"

typedef enum ct_inject_action {
    CT_INJECT_THROW = 1,
    CT_INJECT_RETURN = 2,
    CT_INJECT_DELAY = 3,
} ct_inject_action;

typedef struct ct_inject_spec {
    char text[CT_EXPR_MAX_TEXT + 1]; /* as given */
    char glob[CT_EXPR_MAX_GLOB + 1];
    uint8_t action;                  /* ct_inject_action */
    /* THROW: the type as written, and the message (UTF-16: value.strings
     * [msg_off .. +msg_len); CT_INJECT_MESSAGE when none was given). */
    char type[CT_INJECT_MAX_TYPE + 1];
    uint16_t msg_off, msg_len;
    /* Where the type (THROW) or the value (RETURN) begins in text: the
     * offset a refusal of it names. */
    uint32_t at;
    /* RETURN: the literal (value.nodes[value.root].lit, its pool value's),
     * or `default`. */
    uint8_t is_default;
    ct_expr value;
    /* DELAY */
    uint32_t delay_ms;
    /* Selectors (0: not given). */
    uint32_t every, after, first, last;
    uint32_t probability;            /* P in parts of 2^32 - 1 (0: not given) */
    /* when COND: the condition as a --when 'GLOB: COND' parses it. */
    uint8_t has_when;
    ct_expr when;
} ct_inject_spec;

/* Parses text ('GLOB: ACTION ...', NUL-ended) into *s: 0, or -1 with *err
 * set (its offset into text). */
int ct_inject_parse(const char *text, ct_inject_spec *s, ct_expr_error *err);

/* The literal of a RETURN spec. */
static inline const ct_expr_lit *ct_inject_value(const ct_inject_spec *s)
{
    return &s->value.nodes[s->value.root].lit;
}

/* 1 when the selectors of s choose the n-th call (from 1) that meets its
 * condition; seed: --inject-seed's (probability: the same seed chooses the
 * same numbers). */
int ct_inject_selects(const ct_inject_spec *s, uint64_t n, uint64_t seed);

/* A method's return type as a RETURN's value is checked against it (the
 * profiler reads it from the method's signature when it rewrites it, the
 * CLI from the program's assembly before it runs). */
typedef enum ct_inject_rtype {
    CT_IRT_VOID = 0, CT_IRT_BOOL, CT_IRT_CHAR, CT_IRT_INT, CT_IRT_UINT, CT_IRT_NINT, CT_IRT_R4,
    CT_IRT_R8, CT_IRT_DECIMAL, CT_IRT_STRING, CT_IRT_REF, CT_IRT_NULLABLE, CT_IRT_STRUCT,
    CT_IRT_ENUM, CT_IRT_TASK, CT_IRT_TASK_T, CT_IRT_VTASK, CT_IRT_VTASK_T,
    CT_IRT_NONE, /* a byref, pointer or type parameter: no value */
} ct_inject_rtype;

typedef struct ct_inject_target {
    ct_inject_rtype kind;
    uint32_t bits;        /* INT, UINT; ENUM: its underlying integer's */
    int enum_signed;      /* ENUM */
    /* ENUM: whether it has a member named name (its value into *value), or
     * NULL: its members are not known (a name is not checked). */
    int (*member)(void *ctx, const char *name, uint64_t *value);
    void *ctx;
} ct_inject_target;

/* What a type of full name `full` is for a RETURN (generic: the name of a
 * generic type's definition, "System.Nullable`1"; valuetype: a value
 * type): Task, Task<T>, ValueTask, ValueTask<T>, Nullable<T>, decimal;
 * else STRUCT (a value type) or REF. */
ct_inject_rtype ct_inject_rtype_named(const char *full, int generic, int valuetype);

/* 0 when RETURN spec s's value (or `default`) fits return type t (a
 * Task<T>'s or ValueTask<T>'s: its T's); else -1 with why (cap bytes). An
 * integer literal is checked against the type's range, an enum member's
 * name against its members, a string against string (or char: one
 * character), null against reference types and Nullable<T>. */
int ct_inject_value_fits(const ct_inject_spec *s, const ct_inject_target *t, char *why,
                         size_t cap);

/* The integer the literal of spec s is as a type of bits bits (signed or
 * not): 0 with *v (its two's complement), or -1 when it is not one or out
 * of range. */
int ct_inject_integer(const ct_inject_spec *s, int is_signed, uint32_t bits, int64_t *v);

/* The signature of the constructor a thrown exception is made with:
 * instance void .ctor(string) (ECMA-335 II.23.2.1). */
#define CT_INJECT_CTOR_SIG {0x20, 0x01, 0x01, 0x0E}
#define CT_INJECT_CTOR_SIG_LEN 4u

/* The namespaces of CoreLib's types a throw may name without its module
 * referencing them: those System.Runtime (the CoreLib scope the compilers
 * write) forwards. A name without its namespace is looked for in each, in
 * this order; a full name must be in one (not deeper). */
#define CT_INJECT_NAMESPACES 4u
extern const char *const ct_inject_namespaces[CT_INJECT_NAMESPACES];
int ct_inject_forwarded_namespace(const char *full);

/* Why a TypeDef of these flags (ECMA-335 II.23.1.15) cannot be thrown
 * ("is not public", "is abstract"), or NULL. */
const char *ct_inject_type_unusable(uint32_t typedef_flags);

/* Whether a method of name, signature sig[0..len) and flags (II.23.1.10)
 * is a public constructor (string): what a thrown exception is made with. */
int ct_inject_is_string_ctor(const char *name, const uint8_t *sig, size_t len,
                             uint32_t method_flags);

/* The action's words as the trace and notes show them: "throw
 * System.TimeoutException", "return 0", "delay 200ms" (the action as
 * written, without selectors or condition). */
void ct_inject_action_text(const ct_inject_spec *s, char *out, size_t cap);

#endif
