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

/* The action's words as the trace and notes show them: "throw
 * System.TimeoutException", "return 0", "delay 200ms" (the action as
 * written, without selectors or condition). */
void ct_inject_action_text(const ct_inject_spec *s, char *out, size_t cap);

#endif
