/* Line probes (--at FILE:LINE; docs/tracer.md, "Line probes"): where each
 * goes, found in the modules' Portable PDBs (clrmeta_pdb_find_line: the
 * innermost method with code on the line, its first sequence point on the
 * line or after it), and what it reads there: `this`, the arguments and
 * the locals in scope at that IL offset by their source names (LocalScope
 * and LocalVariable rows; compiler temporaries left out); in an async
 * method's or iterator's MoveNext, its parameters and the locals hoisted
 * to fields of the state machine (`<total>5__2` shown as total).
 *
 * A probe is recorded as a call of a record of its own, "@ Orders.cs:42",
 * whose parameters are those values (CT_FN_PROBE in its FUNCTION record):
 * its ENTER is a hit, its LEAVE follows at once. --limit, --rate, the
 * budget and --when apply to it as to any function. The IL engine puts the
 * probe's code before the instruction at its IL offset (engines/il). A
 * method with a probe is traced whatever the filter says. Generic code has
 * none (its IL serves every instantiation: the locals' types are not one). */
#ifndef CLRTRACE_LINEPROBE_H
#define CLRTRACE_LINEPROBE_H

#include <stdint.h>

#include "agent/model/modules.h"
#include "plans.h"
#include "agent/model/mapped.h"

/* Most values one probe reads (the IL engine keeps CT_PROBE_MAX_ARGS
 * addresses per call: the same number). */
#define CT_LINE_MAX_VALUES 64u
/* Most probes in one method. */
#define CT_LINE_MAX_PER_METHOD 16u

/* What the probe's code hands over, in order: the address of the copy of
 * `this` the rewrite keeps (SELF), of argument index (ARG), of local slot
 * index (LOCAL). */
enum { CT_LINE_IN_SELF = 0, CT_LINE_IN_ARG = 1, CT_LINE_IN_LOCAL = 2 };
typedef struct ct_line_in {
    uint8_t kind;
    uint16_t index;
} ct_line_in;

/* Where value i is: at the address in[in] (offset CT_SM_NO_FIELD), or at
 * offset bytes from the reference (or byref) stored there (a state
 * machine's field). */
typedef struct ct_line_value {
    uint16_t in;
    uint32_t offset;
} ct_line_value;

typedef struct ct_line_probe {
    ct_mapped_fn *fn;        /* its record: "@ Orders.cs:42", the values as parameters */
    uint32_t il_offset;      /* in the method's original IL */
    uint32_t line;           /* the line chosen (at or after the one asked for) */
    uint32_t nin;
    const ct_line_in *in;
    const ct_line_value *vals; /* fn->nargs */
} ct_line_probe;

typedef struct ct_line_probes {
    uint32_t n;
    const ct_line_probe *p;
} ct_line_probes;

/* Whether --at was given. */
int ct_lineprobe_any(void);
/* Between two attach sessions (ct_registry_forget): the next ask reads the
 * settings then in force, and looks at each module again. */
void ct_lineprobe_forget(void);
/* Whether a probe goes into method tok of m, or into a method of TypeDef td
 * (the first ask for a module reads its PDB). */
int ct_lineprobe_targets(const ct_module *m, mdMethodDef tok);
int ct_lineprobe_in_type(const ct_module *m, mdTypeDef td);
/* How many probes go into module m (its PDB read now, when --at was given
 * and it is not the framework's). */
int ct_lineprobe_in_module(const ct_module *m);

/* The probes of f (mapped now, planned: mi its method), made once; NULL
 * when none. Called from the mapper (preemptive mode: may load types). */
const ct_line_probes *ct_lineprobe_plan(const ct_mapped_fn *f, const ct_method_info *mi);

/* --locals: the record of f's frame's values as an exception passes
 * through it (its arguments, and every local of the method whose slot no
 * other local shares, by the PDB when the module has one), named "locals
 * of NAME", its def f; NULL when f gets none (generic code, a state
 * machine's MoveNext, a runtime-async method, no values). The IL engine
 * hands its inputs over from an exception filter around the method's body
 * (engines/il). */
const ct_line_probe *ct_lineprobe_locals_plan(const ct_mapped_fn *f, const ct_method_info *mi);

/* The --at lines that found no code in any module loaded so far, as one
 * line each ("Orders.cs:42: no loaded assembly's PDB has that file") into
 * out (cap bytes, NUL-terminated): for the end of a trace. */
void ct_lineprobe_unplaced(char *out, size_t cap);

#endif
