/* Fault injection (--inject, CLRTRACE_INJECT; the grammar is
 * src/format/inject_spec.h): the specs parsed once per trace (an attach
 * session's own), and bound at map time to each method whose full name
 * matches their glob. The IL engine rewrites such a method so that its
 * entry asks the recorder (agent/record/inject_decide.c) whether this call is
 * injected, and which spec's action it runs. */
#ifndef CLRTRACE_MODEL_INJECT_H
#define CLRTRACE_MODEL_INJECT_H

#include <stdatomic.h>
#include <stdint.h>

#include "format/inject_spec.h"
#include "when_bind.h"

/* One spec bound to one method: the calls that met its condition so far
 * (the selectors count them), and the condition bound to its arguments. */
typedef struct ct_inject_bound {
    const ct_inject_spec *spec;
    uint32_t index;              /* its --inject's number, from 0 */
    _Atomic uint64_t calls;
    atomic_int off;              /* 1: its code could not be made: never chosen */
    ct_when_bound when;          /* spec->has_when */
} ct_inject_bound;

/* The specs bound to one method, in the order given (the first that
 * chooses a call acts). */
typedef struct ct_inject_fn {
    uint32_t n;
    ct_inject_bound b[];
} ct_inject_fn;

struct ct_mapped_fn;

/* Parses text (CLRTRACE_INJECT, one spec a line; NULL: none) for a new
 * trace: 0, or -1 with a line in why. seed: --inject-seed's, or (not
 * given) a new one, told on stderr when a spec has a probability. */
int ct_inject_load(const char *text, uint64_t seed, int seed_given, char *why, size_t cap);

/* Specs loaded (0: none). */
uint32_t ct_inject_count(void);
const ct_inject_spec *ct_inject_spec_at(uint32_t i);
uint64_t ct_inject_seed(void);

/* Whether some spec's glob matches full name `name` (its method is then
 * traced whatever the filter says), or may match a name that begins with
 * type ("Ns.Type."). */
int ct_inject_targets(const char *name);
int ct_inject_in_type(const char *type);

/* The specs bound to f (permanent memory), or NULL: none matches, or f
 * cannot be injected (generic code, a constructor, a state machine's
 * MoveNext, a runtime-async method: told once on the notes). */
const ct_inject_fn *ct_inject_bind(const struct ct_mapped_fn *f);

#endif
