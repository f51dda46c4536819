/* What the capture planner's parts share: the planning context, the limits
 * on names and texts, and the functions one part calls in another. Private
 * to this folder (tests/layering.sh checks it); the planner's interface is
 * plans.h, the line probes' lineprobe.h. The parts, each over those before
 * it and never one after (no circle):
 *   1 types.c      a type's plan, the plan cache, the planning session
 *   2 tuples.c     C# tuples' element names
 *   3 params.c     parameters' names and labels, display names
 *   4 async.c      state machines: a MoveNext as its method
 *   5 method.c     whole methods (ct_plan_function)
 *   6 late.c       plans bound at the first call
 *   7 object.c     objects' content, by runtime class
 *   8 lineprobe.c  line probes: where they go and the locals they read */
#ifndef CLRTRACE_PLANS_INTERNAL_H
#define CLRTRACE_PLANS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "agent/model/classnames.h"
#include "clrsig/clrsig.h"
#include "plans.h"

/* Longest parameter or field name kept (UTF-8 bytes). */
#define PARAM_NAME_MAX 256
/* Longest type text ("Dictionary<string, List<int>>") kept. */
#define TYPE_TEXT_MAX 1024
/* Longest label ("ref Dictionary<string, int> counts=") kept. */
#define LABEL_MAX (TYPE_TEXT_MAX + PARAM_NAME_MAX + 16)
/* Longest display name ("Demo.Outer<int>.Inner.Get<string>") kept. */
#define DISPLAY_MAX 2048
/* Longest method signature planned (bytes); longer ones are not decoded. */
#define SIG_MAX_BYTES 4096

/* ------------------------------------------------- planning context */

/* Where the tokens being planned come from, and what stands for their
 * generic parameters. */
typedef struct pctx {
    const ct_module *m;          /* scope of the tokens being read */
    mdTypeDef type_owner;        /* owner of !n */
    mdMethodDef method_owner;    /* owner of !!n (0 for fields) */
    const ClassID *cargs;
    uint32_t ncargs;
    int cknown;
    const ClassID *margs;
    uint32_t nmargs;
    int mknown;
    int allow_load;              /* may call GetClassFromToken & co. (mapper only) */
    clrsig_arena *arena;         /* parse trees of field signatures */
    clrsig_arena *scratch;       /* TypeSpec expansion while formatting */
    clrsig_type gnode[2][CT_MAX_TYPE_ARGS]; /* actual type arguments for the formatter */
    /* A content plan left to a later object (plans/object.c): 1 + the
     * offset in the object of the reference whose being null made it wait
     * (0: none such), so that the next objects of the class can be seen to
     * be still empty without planning again. */
    uint32_t wait_at;
} pctx;

/* Stands in for "some reference type" among type arguments bound late
 * (ct_plan_late): never passed to the runtime. */
#define CANON_MARK ((ClassID)1)

/* ------------------------------------------ plans/types.c: a type's plan */

/* The fixed plan of a primitive element type (int for CLRSIG_ET_I4), or
 * NULL. */
const ct_plan *ct_pl_prim_plan(uint8_t et);
/* The fixed plan of a CoreLib type by full name ("System.Int32"), or NULL. */
const ct_plan *ct_pl_corelib_plan(const char *full);
/* The plan of a value named name (a parameter, field or property): p, or
 * when redaction is on and the name is a secret's (ct_secret_name) a
 * REDACTED plan of p's size and type (p may be NULL, a plan not made yet:
 * a secret's is made now); a bool, an enum and a CancellationToken(Source)
 * are never secrets. */
const ct_plan *ct_pl_redact(const char *name, const ct_plan *p);

/* A copy of *tmpl in permanent memory (ct_plan_by_range when out of it). */
const ct_plan *ct_pl_new_plan(const ct_plan *tmpl);
/* A copy of s in permanent memory ("?" when out of it). */
const char *ct_pl_perm_text(const char *s);
/* The declared name of generic parameter index of owner ("T"); 0, or -1. */
/* C# text of a type, short names, actual generic arguments where known. */
void ct_pl_type_text(pctx *c, const clrsig_type *t, char *out, size_t cap);
/* C# name of a TypeDef or TypeRef token, short ("List" for List`1). */
void ct_pl_token_text(pctx *c, uint32_t token, char *out, size_t cap);
/* Most instance fields one class (a struct, or one level of a class)
 * declares that are planned. */
#define STRUCT_MAX_FIELDS 256
/* The instance fields cls declares (not its base classes'), in declaration
 * order: at most cap planned into fields[] (*nfields of them), offsets as
 * GetClassLayout gives them; *size the class's size. m/td/args describe
 * cls. Returns the number of fields cls declares, or -1 when the runtime
 * cannot lay it out. sl or dl 0: no field is planned. */
int ct_pl_plan_fields(pctx *outer, ClassID cls, const ct_module *m, mdTypeDef td,
                      const ClassID *args, uint32_t nargs, unsigned sl, unsigned dl,
                      ct_field *fields, uint32_t cap, uint32_t *nfields, uint32_t *size);
/* The element plan of a sequence (array, span, segment, collection) of
 * the ClassID t: NULL when its elements cannot be copied. */
const ct_plan *ct_pl_elem_plan(pctx *c, ClassID t, unsigned sl, unsigned dl);
/* A struct, field by field. m/td/args describe the ClassID cls. */
const ct_plan *ct_pl_plan_struct(pctx *outer, ClassID cls, const ct_module *m, mdTypeDef td,
                                 const ClassID *args, uint32_t nargs, const char *tname,
                                 unsigned sl, unsigned dl);
/* The plan of a ClassID, cached by class and budget. sl: struct levels
 * left, dl: plan levels left. */
const ct_plan *ct_pl_plan_class(pctx *c, ClassID cls, unsigned sl, unsigned dl);
/* The plan of a signature type; NULL when it depends on a type argument not
 * known yet (late binding). */
const ct_plan *ct_pl_plan_type(pctx *c, const clrsig_type *t, unsigned sl, unsigned dl);

/* ------------------------------- plans/params.c: parameters and names */

/* A param_meta flag beside CLRSIG_PARAM_IN/OUT: a C# 12 `ref readonly`
 * parameter ([In] and RequiresLocationAttribute on its Param row). */
#define PARAM_REF_READONLY 0x0100u

typedef struct param_meta {
    char name[PARAM_NAME_MAX];
    uint16_t flags;
    mdParamDef pd; /* its Param row, 0 when it has none */
} param_meta;

/* Name and in/out flags of parameter i (0-based) of method md. */
void ct_pl_read_param(const ct_module *m, mdMethodDef md, uint32_t i, param_meta *out);
/* "out int value=": the parameter's type as C# writes it, then its name;
 * with plan, a named tuple's fields in *plan take its element names. */
void ct_pl_param_label(pctx *c, const clrsig_type *t, const param_meta *pm,
                       const ct_plan **plan, char *out, size_t cap);
/* The names a C# tuple's elements have in type t of Param row pd (its
 * TupleElementNamesAttribute; a byref's target): t's C# text with them,
 * "(int Id, string Name)", into text, and when plan and *plan are set,
 * *plan replaced by a copy whose tuple fields are named. 0 then; -1 when
 * pd has no names, they do not fit t or pass a limit (plans/tuples.c):
 * text and *plan are left as they were. */
int ct_pl_tuple_names(pctx *c, mdToken pd, const clrsig_type *t, char *text, size_t cap,
                      const ct_plan **plan);
/* The plan of a parameter (NULL: bound late; plans/method.c). */
const ct_plan *ct_pl_param_plan(pctx *c, const clrsig_type *t);
/* "Demo.Pair<int, TValue>": a TypeDef named with its known type arguments
 * and the declared names of the others. */
void ct_pl_typedef_display(const ct_module *m, mdTypeDef td, const ClassID *args,
                           uint32_t nargs, char *out, size_t cap);
/* A method's display name: "Demo.Outer<int>.Inner.Get<string>". */
void ct_pl_build_display(const ct_method_info *mi, char *out, size_t cap);

/* Arenas for one planning session: parse trees and formatter scratch. */
typedef struct session {
    uint8_t *mem;
    clrsig_arena arena, scratch;
} session;

/* Under attach, where the classes loaded before it are unknown to the
 * hooks' planner: looks up (loads allowed) the types of the fields of a
 * parameter's class t, as deep as --object-depth (loaded.h). */
void ct_pl_prime(pctx *c, const clrsig_type *t);

/* plans/types.c: opens a planning session for method mi: the arenas, and a planning
 * context in them for mi's tokens and type arguments (the class's known
 * when mi->cls is set; mi NULL: no method, for plans by ClassID). allow_load: may load types (the mapper only). NULL
 * when out of memory (s->mem then NULL). */
pctx *ct_pl_open(session *s, const ct_method_info *mi, int allow_load);
/* Frees c and the session's arenas (either may be absent). */
void ct_pl_close(session *s, pctx *c);

#endif
