/* Where a traced method is in its source (--srcline): its module's Portable
 * PDB (beside the assembly or embedded in it) read once with libclrmeta, the
 * method's first visible sequence point looked up at map time. An async
 * method's or iterator's stub has no lines of its own: its state machine's
 * MoveNext gives them. Modules of the framework are not looked at (they ship
 * no PDB); a module with none gives no locations (readers count the
 * functions without one). */
#ifndef CLRTRACE_SRCLINE_H
#define CLRTRACE_SRCLINE_H

#include <stdint.h>

#include "clrmeta/clrmeta.h"
#include "agent/model/modules.h"
#include "format/event.h"

/* Most modules whose PDB is kept open (each holds its PDB's bytes); past it,
 * methods of further modules have no location (counted). */
#define CT_SRCLINE_MODULES 1024

/* The method's location: 0 and *out filled (out->file lives as long as the
 * process), or -1 when it has none. Thread-safe; the first call for a module
 * reads its PDB. */
int ct_srcline_method(const ct_module *m, mdToken method, ct_fn_src *out);

/* The source line of IL offset il_offset of the method (the visible
 * sequence point in force there): 0 and *line, or -1. Thread-safe. */
int ct_srcline_at(const ct_module *m, mdToken method, uint32_t il_offset, uint32_t *line);

/* The module's Portable PDB, read on first use and kept for the process's
 * life (read-only: no lock needed to read it), or NULL when it has none
 * (a framework module, no PDB, another build's). Thread-safe. */
const clrmeta_pdb *ct_srcline_pdb(const ct_module *m);

#endif
