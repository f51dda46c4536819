/* What the IL engine's files share (il_emit.c; ilprobe.c and inject_il.c
 * use them): a module's metadata to write to, CoreLib's scope in it, and
 * the probes' calli signatures. Internal to agent/engines/il. */
#ifndef CLRTRACE_IL_EMIT_H
#define CLRTRACE_IL_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "agent/model/modules.h"
#include "agent/runtime/corprof_decls.h"

/* The write side of module mod's metadata, or NULL (the caller releases it). */
IMetaDataEmit *ct_il_module_emit(ModuleID mod);

/* The resolution scope for a TypeRef to a CoreLib type in module m (the
 * scope of its TypeRef to System.Object; the module itself in CoreLib), or 0. */
mdToken ct_il_corelib_scope(const ct_module *m);

/* A WCHAR copy of ASCII name (at most 96 characters; w has room for 97). */
void ct_il_wide(const char *name, WCHAR *w);

/* An unmanaged calli signature returning ret (0x01 void, 0x08 int32) with
 * nparams native ints and modopt(CallConvSuppressGCTransition) (suppress:
 * its TypeRef), into blob[0..*len): 0, or -1. */
int ct_il_calli_sig(mdTypeRef suppress, uint8_t ret, uint32_t nparams, uint8_t *blob,
                    size_t cap, uint32_t *len);

#endif
