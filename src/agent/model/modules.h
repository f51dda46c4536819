/* What the profiler knows about loaded modules: metadata interfaces, which
 * module is System.Private.CoreLib, whether a module is framework code, and
 * how a TypeRef resolves to the TypeDef that defines it.
 *
 * Everything is built on first use and kept until the process ends. No lock
 * is held while calling into the runtime; racing builders keep the first
 * result. Callable from the mapper and (for already-known modules) from the
 * hooks. */
#ifndef CLRTRACE_MODULES_H
#define CLRTRACE_MODULES_H

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "agent/runtime/corprof_decls.h"

/* Most enclosing types followed for a nested type's name or TypeRef. */
#define CT_MAX_NESTING 32
/* Longest type or member name handled (UTF-16 code units / UTF-8 bytes). */
#define CT_NAME_MAX 1024

typedef struct ct_module {
    ModuleID id;
    IMetaDataImport *mdi;  /* NULL when the module has no metadata */
    IMetaDataImport *mdi2; /* the same object as IMetaDataImport2, or NULL */
    int framework;         /* framework code by its assembly's identity (identity.h) */
    int corelib;           /* System.Private.CoreLib */
    const char *assembly;  /* the assembly's simple name ("Demo"), or NULL */
    const char *path;      /* the file it was loaded from, or NULL (a bundle's) */
} ct_module;

/* The module's record, or NULL when it cannot be described. */
const ct_module *ct_module_get(ModuleID id);

/* The assembly of System.Diagnostics.Activity: until a module of it is
 * described (ct_module_get: every module is, at its load under the IL
 * engine, at its first method's under the ELT engine, at an attach), no
 * Activity can exist, and the recorder reads none (record/activity.c). */
#define CT_ACTIVITY_ASSEMBLY "System.Diagnostics.DiagnosticSource"
extern atomic_int ct_activity_assembly_seen;

/* System.Private.CoreLib, or NULL while it is not known. scan: may look
 * through all loaded modules (ICorProfilerInfo3::EnumModules) to find it. */
const ct_module *ct_corelib(int scan);

/* The module and TypeDef that define a TypeDef or TypeRef token of m.
 * scan: may look through all loaded modules when the TypeRef's target is not
 * in m or CoreLib (forwarded types land there). Returns 0, or -1 when the
 * token cannot be resolved (TypeSpecs are the caller's business). */
int ct_resolve_type(const ct_module *m, mdToken tok, int scan, const ct_module **def,
                    mdTypeDef *td);

/* A top-level CoreLib TypeDef by full name ("System.Int32"). */
int ct_corelib_typedef(const char *full_name, mdTypeDef *td);

/* The field of TypeDef td of m named name (its own, not a base type's),
 * found among td's fields (IMetaDataImport::FindField searches the whole
 * module: 3 ms in CoreLib). 0, or -1 when it has none. */
int ct_typedef_field(const ct_module *m, mdTypeDef td, const char *name, mdFieldDef *fd);

/* One part of a TypeDef's name (ct_typedef_walk): the metadata name, in
 * UTF-8, of td or of a type that encloses it; index 0 is the outermost, the
 * only one with its namespace ("Demo.Outer", then "Inner`1"), of count in
 * all. A non-zero return ends the walk. */
typedef int (*ct_typedef_part_fn)(void *ctx, const char *part, int index, int count);

/* Calls fn for the parts of TypeDef td's name: td and the types that
 * enclose it (at most CT_MAX_NESTING), outermost first. 0 when each was
 * given, fn's non-zero return when it ended the walk, -1 when the metadata
 * does not answer. */
int ct_typedef_walk(const ct_module *m, mdTypeDef td, ct_typedef_part_fn fn, void *ctx);

/* fn(ctx, m, tok) for each method of each TypeDef of m that type_ok (NULL:
 * every one) lets through, until fn returns non-zero; that value, or 0. */
typedef int (*ct_method_fn)(void *ctx, const ct_module *m, mdMethodDef tok);
int ct_module_each_method(const ct_module *m, int (*type_ok)(const ct_module *m, mdTypeDef td),
                          ct_method_fn fn, void *ctx);

/* A name part without its namespace: "Demo.Outer" -> "Outer". */
static inline const char *ct_typedef_unqualified(const char *part)
{
    const char *dot = strrchr(part, '.');
    return dot ? dot + 1 : part;
}

/* The TypeDef's name: nested types joined by '.', with the outermost
 * namespace when with_ns, metadata arity suffixes (`1) kept. 0 or -1. */
int ct_typedef_name(const ct_module *m, mdTypeDef td, int with_ns, char *out, size_t cap);
/* Room for a method's full name ("Ns.Outer.Inner.Method"): a TypeDef's name
 * and a method's, as UTF-8. */
#define CT_METHOD_FULL_MAX (2 * CT_NAME_MAX * 3 + 2)
/* Method tok of module m: its name (method[CT_NAME_MAX * 3]), its full name
 * "Type.Method" (full[CT_METHOD_FULL_MAX]; the type with its namespace, the
 * method alone when its TypeDef is nil, as malformed metadata may have
 * it), its TypeDef, signature and impl flags; 0, or -1 when the metadata
 * does not give them. */
int ct_method_props(const ct_module *m, mdMethodDef tok, char *method, char *full,
                    mdTypeDef *td, PCCOR_SIGNATURE *sig, ULONG *sig_len, DWORD *impl);
/* Method tok's full name alone (ct_method_props): 0, or -1 when the metadata
 * does not give it or it does not fit. */
int ct_method_full_name(const ct_module *m, mdMethodDef tok, char *out, size_t cap);
/* The most TypeDef names ct_typedef_name keeps (made once, for the process's
 * life); past them a name is made at each call. */
#define CT_TYPEDEF_NAMES_KEPT 65536

/* The number of generic parameters of TypeDef or MethodDef owner (from
 * metadata; at most CT_GENERIC_PARAMS_MAX), 0 when it has none or the
 * metadata does not say. */
int ct_generic_param_count(const ct_module *m, mdToken owner);

/* Most generic parameters looked at per owner (more are not named). */
#define CT_GENERIC_PARAMS_MAX 64
/* The declared name of generic parameter `index` of owner (a TypeDef or a
 * MethodDef): "T". 0, or -1 when it has none. */
int ct_generic_param_name(const ct_module *m, mdToken owner, uint32_t index, char *name,
                          size_t cap);

typedef enum ct_type_kind {
    CT_TYPE_CLASS,  /* reference type (class, interface, delegate, array base) */
    CT_TYPE_STRUCT, /* value type other than an enum */
    CT_TYPE_ENUM
} ct_type_kind;

/* Class, struct or enum, from the TypeDef's base type. */
ct_type_kind ct_typedef_kind(const ct_module *m, mdTypeDef td);

#endif
