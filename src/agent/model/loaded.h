/* The classes the runtime has loaded, by definition and type arguments:
 * how a plan made inside a hook (an object's content, where no type may be
 * loaded) finds the ClassID of a struct field's type, e.g.
 * Nullable<DateTime>, KeyValuePair<string, int> or an Order's Money, and of
 * its type arguments.
 *
 * Fed by the runtime's ClassLoadFinished (each class, generic
 * instantiations included, once loaded; arrays are not classes here) and by
 * every ClassID the mapper looks up where it may load types. A struct
 * field's type is loaded before an object holding it exists, so at start-up
 * every field's type is known; under attach, one loaded before the attach
 * is known only once the mapper has looked it up (docs/tracer.md, "Objects
 * by content"). */
#ifndef CLRTRACE_LOADED_H
#define CLRTRACE_LOADED_H

#include <stdint.h>

#include "agent/runtime/corprof_decls.h"

/* Most classes kept; past it new ones are counted, not kept (a struct
 * field of such a type then reads as its bytes). */
#define CT_LOADED_CLASSES 131072
/* Most type arguments of a kept instantiation (ValueTuple's 8 fit). */
#define CT_LOADED_TYPE_ARGS 8

/* ClassLoadFinished: keeps cls. Any thread the runtime loads on; takes a
 * lock. */
void ct_loaded_class(ClassID cls);
/* Keeps cls as the instantiation (module, td, args) (the mapper's look-ups). */
void ct_loaded_note(ModuleID module, mdTypeDef td, uint32_t nargs, const ClassID *args, ClassID cls);
/* The ClassID of that instantiation, or 0 when none was kept. Takes a
 * lock, loads nothing: safe in the hooks. */
ClassID ct_loaded_find(ModuleID module, mdTypeDef td, uint32_t nargs, const ClassID *args);
/* How many were kept, and how many left out for CT_LOADED_CLASSES. */
void ct_loaded_counts(unsigned long *kept, unsigned long *dropped);

#endif
