/* --inject's IL: see inject_il.h. Runs in the JIT's callback (or a
 * ReJIT's), where the metadata may be read and written. */
#include "inject_il.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clrsig/clrsig.h"
#include "il_emit.h"
#include "probes.h"
#include "agent/model/inject_bind.h"
#include "agent/model/utf16.h"
#include "agent/runtime/notes.h"
#include "agent/runtime/state.h"

/* ECMA-335 opcodes the faults use besides libclril's named ones. */
enum {
    OP_LDC_R4 = 0x22, OP_LDC_R8 = 0x23, OP_BNE_UN = 0x40, OP_LDSTR = 0x72, OP_THROW = 0x7A,
    OP_INITOBJ = 0xFE15,
};
/* Metadata tables (the token's top byte). */
enum { T_TYPEREF = 0x01, T_TYPEDEF = 0x02 };
/* The constructor an exception is made with: .ctor(string). */
static const uint8_t k_ctor_sig[] = CT_INJECT_CTOR_SIG;
/* Base types followed up to System.Exception. */
#define INJECT_MAX_BASES 32
/* Longest type name handled. */
#define INJECT_NAME_MAX 512

typedef struct gen {
    const ct_il_inject_in *in;
    IMetaDataEmit *emit;
    mdToken scope;               /* CoreLib's, in the module */
    clril_insn *code;
    uint32_t n;
    const ct_inject_spec *spec;  /* the fault being made */
    char why[CT_INJECT_MAX_TYPE + 256]; /* why it cannot be */
} gen;

static int put(gen *g, uint16_t op, int64_t value)
{
    if (g->n >= CT_IL_INJECT_MAX)
        return -1;
    clril_insn *i = &g->code[g->n];
    memset(i, 0, sizeof *i);
    i->op = op;
    i->value = value;
    return (int)g->n++;
}

static int no(gen *g, const char *fmt, const char *a)
{
    snprintf(g->why, sizeof g->why, fmt, a);
    return -1;
}

/* The full name of TypeRef or TypeDef tok of m ("System.TimeoutException"). */
static int type_name(const ct_module *m, mdToken tok, char *out, size_t cap)
{
    if ((tok >> 24) == T_TYPEDEF)
        return ct_typedef_name(m, tok, 1, out, cap);
    if ((tok >> 24) != T_TYPEREF || !m->mdi)
        return -1;
    WCHAR w[INJECT_NAME_MAX];
    ULONG len = 0;
    mdToken scope = 0;
    if (FAILED(m->mdi->lpVtbl->GetTypeRefProps(m->mdi, tok, &scope, w, INJECT_NAME_MAX, &len)) ||
        !len)
        return -1;
    ct_utf16_to_utf8(w, len - 1, out, cap);
    return 0;
}

/* A TypeRef to CoreLib type `name` in the module, or 0. */
static mdToken corelib_ref(gen *g, const char *name)
{
    WCHAR w[97];
    mdToken tr = 0;
    ct_il_wide(name, w);
    if (!g->scope || FAILED(g->emit->lpVtbl->DefineTypeRefByName(g->emit, g->scope, w, &tr)))
        return 0;
    return tr;
}

/* A MemberRef of parent named name with signature sig[0..len), or 0. */
static mdToken member_ref(gen *g, mdToken parent, const char *name, const uint8_t *sig,
                          uint32_t len)
{
    WCHAR w[97];
    mdToken mr = 0;
    ct_il_wide(name, w);
    if (!parent || FAILED(g->emit->lpVtbl->DefineMemberRef(g->emit, parent, w, sig, len, &mr)))
        return 0;
    return mr;
}

/* A coded TypeDefOrRef (ECMA-335 II.23.2.8) of tok into out: its length, or 0. */
static uint32_t coded(mdToken tok, uint8_t *out)
{
    uint32_t tag = (tok >> 24) == T_TYPEDEF ? 0 : (tok >> 24) == T_TYPEREF ? 1 : 2;
    uint32_t n = 0;
    return clrsig_write_u((tok & 0xFFFFFFu) << 2 | tag, out, 5, &n) == CLRSIG_OK ? n : 0;
}

/* A MethodSpec of generic method mr instantiated over the one type
 * t[0..tlen), or 0. */
static mdToken method_spec(gen *g, mdToken mr, const uint8_t *t, uint32_t tlen)
{
    uint8_t blob[300];
    IUnknown *unk = NULL;
    mdToken ms = 0;
    if (!mr || tlen + 2 > sizeof blob ||
        FAILED(g->emit->lpVtbl->QueryInterface(g->emit, &IID_IMetaDataEmit2, (void **)&unk)) ||
        !unk)
        return 0;
    IMetaDataEmit *e2 = (IMetaDataEmit *)unk;
    blob[0] = 0x0A; /* GENRICINST (a MethodSpec's instantiation) */
    blob[1] = 1;
    memcpy(blob + 2, t, tlen);
    if (FAILED(e2->lpVtbl->DefineMethodSpec(e2, mr, blob, tlen + 2, &ms)))
        ms = 0;
    e2->lpVtbl->Release(e2);
    return ms;
}

/* ------------------------------------------------------- the exception */

static int name_is(const ct_module *m, mdToken tok, const char *want)
{
    char name[INJECT_NAME_MAX];
    return type_name(m, tok, name, sizeof name) == 0 && !strcmp(name, want);
}

/* Whether TypeDef td of dm is public, not abstract, derives from
 * System.Exception, and has a public constructor (string). */
static int usable_exception(gen *g, const ct_module *dm, mdTypeDef td)
{
    IMetaDataImport *mdi = dm->mdi;
    WCHAR w[2];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (!mdi || FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, td, w, 1, &len, &flags, &extends)))
        return no(g, "%s: its type cannot be read", g->spec->type);
    const char *unusable = ct_inject_type_unusable(flags);
    if (unusable) {
        snprintf(g->why, sizeof g->why, "%s %s", g->spec->type, unusable);
        return -1;
    }
    /* A public .ctor(string). */
    WCHAR ctor[8];
    ct_il_wide(".ctor", ctor);
    HCORENUM e = NULL;
    mdMethodDef md[16];
    ULONG nm = 0;
    int found = 0;
    while (!found && SUCCEEDED(mdi->lpVtbl->EnumMethodsWithName(mdi, &e, td, ctor, md, 16, &nm)) &&
           nm) {
        for (ULONG i = 0; i < nm && !found; i++) {
            mdTypeDef owner = 0;
            DWORD attr = 0, impl = 0;
            ULONG rva = 0, sl = 0, wl = 0;
            PCCOR_SIGNATURE sig = NULL;
            if (SUCCEEDED(mdi->lpVtbl->GetMethodProps(mdi, md[i], &owner, w, 1, &wl, &attr, &sig,
                                                      &sl, &rva, &impl)) &&
                ct_inject_is_string_ctor(".ctor", sig, sl, attr))
                found = 1;
        }
    }
    if (e)
        mdi->lpVtbl->CloseEnum(mdi, e);
    if (!found)
        return no(g, "%s has no public constructor taking a string", g->spec->type);
    /* Its base types, up to System.Exception. */
    const ct_module *cm = dm;
    mdTypeDef cur = td;
    for (int hop = 0; hop < INJECT_MAX_BASES; hop++) {
        if (name_is(cm, cur, "System.Exception"))
            return 0;
        if (FAILED(cm->mdi->lpVtbl->GetTypeDefProps(cm->mdi, cur, w, 1, &len, &flags, &extends)) ||
            !(extends & 0xFFFFFFu) || ct_resolve_type(cm, extends, 1, &cm, &cur) != 0)
            break;
    }
    return no(g, "%s is not an exception (System.Exception is not among its bases)",
              g->spec->type);
}

/* TypeRef or TypeDef of m named `name` (a full name, or with short set a
 * name without its namespace), or 0. */
static mdToken find_in_module(const ct_module *m, const char *name, int short_name, int refs)
{
    IMetaDataImport *mdi = m->mdi;
    HCORENUM e = NULL;
    mdToken toks[64], found = 0;
    ULONG n = 0;
    while (!found && SUCCEEDED(refs ? mdi->lpVtbl->EnumTypeRefs(mdi, &e, toks, 64, &n)
                                    : mdi->lpVtbl->EnumTypeDefs(mdi, &e, toks, 64, &n)) &&
           n) {
        for (ULONG i = 0; i < n && !found; i++) {
            char full[INJECT_NAME_MAX];
            if (type_name(m, toks[i], full, sizeof full) != 0)
                continue;
            const char *dot = strrchr(full, '.');
            if (!strcmp(full, name) || (short_name && dot && !strcmp(dot + 1, name)))
                found = toks[i];
        }
    }
    if (e)
        mdi->lpVtbl->CloseEnum(mdi, e);
    return found;
}

/* The exception type's token in the module and its .ctor(string), or -1
 * (g->why says why): a type the module names (a TypeRef) or defines, by
 * full name or without its namespace; else a CoreLib type (in the short
 * name's case, in one of ct_inject_namespaces). */
static int exception_ctor(gen *g, mdToken *ctor)
{
    const ct_module *m = g->in->m, *dm = NULL;
    const char *name = g->spec->type;
    int short_name = strchr(name, '.') == NULL;
    mdToken tok = 0;
    mdTypeDef td = 0;
    if ((tok = find_in_module(m, name, short_name, 1)) != 0) {
        if (ct_resolve_type(m, tok, 1, &dm, &td) != 0) {
            /* Its assembly is not loaded yet: the JIT loads it for the
             * reference; usable only when the launcher read it before the
             * program ran (cli/inject_check.c). */
            if (!g_ct.cfg.inject_checked)
                return no(g, "%s: its assembly is not loaded yet", name);
            *ctor = member_ref(g, tok, ".ctor", k_ctor_sig, sizeof k_ctor_sig);
            return *ctor ? 0 : no(g, "%s: no reference to its constructor could be made", name);
        }
    } else if ((tok = find_in_module(m, name, short_name, 0)) != 0) {
        dm = m;
        td = tok;
    } else {
        char full[INJECT_NAME_MAX];
        size_t k = 0, nk = short_name ? CT_INJECT_NAMESPACES : 1;
        for (; k < nk; k++) {
            snprintf(full, sizeof full, "%s%s", short_name ? ct_inject_namespaces[k] : "", name);
            if (ct_inject_forwarded_namespace(full) && ct_corelib_typedef(full, &td) == 0)
                break;
        }
        if (k == nk || !(dm = ct_corelib(1)))
            return no(g, "no type %s is named by this module, defined in it or in CoreLib's "
                         "System, System.IO, System.Threading.Tasks or "
                         "System.Collections.Generic", name);
        if (!(tok = dm == m ? td : corelib_ref(g, full)))
            return no(g, "%s: no reference to it could be made", name);
    }
    if (usable_exception(g, dm, td) != 0)
        return -1;
    if (!(*ctor = member_ref(g, tok, ".ctor", k_ctor_sig, sizeof k_ctor_sig)))
        return no(g, "%s: no reference to its constructor could be made", name);
    return 0;
}

/* ldstr MESSAGE; newobj TYPE::.ctor(string). */
static int new_exception(gen *g)
{
    mdToken ctor = 0, str = 0;
    if (exception_ctor(g, &ctor) != 0)
        return -1;
    WCHAR w[CT_EXPR_MAX_STRING + 1];
    const ct_inject_spec *s = g->spec;
    for (uint32_t i = 0; i < s->msg_len; i++)
        w[i] = s->value.strings[s->msg_off + i];
    w[s->msg_len] = 0;
    if (FAILED(g->emit->lpVtbl->DefineUserString(g->emit, w, s->msg_len, &str)) || !str)
        return no(g, "%s: the message could not be made", s->type);
    return put(g, OP_LDSTR, str) < 0 || put(g, CLRIL_NEWOBJ, ctor) < 0 ? -1 : 0;
}

/* ------------------------------------------------------------- values */

/* A return type: what it is (format/inject_spec.h), and what its code needs. */
typedef struct rtype {
    ct_inject_rtype kind;
    uint32_t bits;               /* INT, UINT */
    const uint8_t *bytes;        /* the type's signature */
    uint32_t len;
    mdToken tok;                 /* CLASS, VALUETYPE; GENERICINST's generic type */
    const uint8_t *arg;          /* TASK_T, VTASK_T: T's signature */
    uint32_t arg_len;
    const clrsig_type *arg_type;
} rtype;

/* What type t (its signature at base + t->offset, len bytes) is. */
static rtype classify(const ct_module *m, const uint8_t *base, const clrsig_type *t, uint32_t len)
{
    rtype r = {.kind = CT_IRT_NONE, .bytes = base + t->offset, .len = len};
    char name[INJECT_NAME_MAX];
    switch (t->kind) {
    case CLRSIG_ET_VOID: r.kind = CT_IRT_VOID; break;
    case CLRSIG_ET_BOOLEAN: r.kind = CT_IRT_BOOL; break;
    case CLRSIG_ET_CHAR: r.kind = CT_IRT_CHAR; break;
    case CLRSIG_ET_I1: r.kind = CT_IRT_INT; r.bits = 8; break;
    case CLRSIG_ET_U1: r.kind = CT_IRT_UINT; r.bits = 8; break;
    case CLRSIG_ET_I2: r.kind = CT_IRT_INT; r.bits = 16; break;
    case CLRSIG_ET_U2: r.kind = CT_IRT_UINT; r.bits = 16; break;
    case CLRSIG_ET_I4: r.kind = CT_IRT_INT; r.bits = 32; break;
    case CLRSIG_ET_U4: r.kind = CT_IRT_UINT; r.bits = 32; break;
    case CLRSIG_ET_I8: r.kind = CT_IRT_INT; r.bits = 64; break;
    case CLRSIG_ET_U8: r.kind = CT_IRT_UINT; r.bits = 64; break;
    case CLRSIG_ET_I: case CLRSIG_ET_U: r.kind = CT_IRT_NINT; r.bits = 64; break;
    case CLRSIG_ET_R4: r.kind = CT_IRT_R4; break;
    case CLRSIG_ET_R8: r.kind = CT_IRT_R8; break;
    case CLRSIG_ET_STRING: r.kind = CT_IRT_STRING; break;
    case CLRSIG_ET_OBJECT: case CLRSIG_ET_SZARRAY: case CLRSIG_ET_ARRAY: r.kind = CT_IRT_REF; break;
    case CLRSIG_ET_CLASS: case CLRSIG_ET_VALUETYPE:
        r.tok = t->u.token;
        r.kind = type_name(m, r.tok, name, sizeof name) == 0
                     ? ct_inject_rtype_named(name, 0, t->kind == CLRSIG_ET_VALUETYPE)
                 : t->kind == CLRSIG_ET_CLASS ? CT_IRT_REF : CT_IRT_STRUCT;
        break;
    case CLRSIG_ET_GENERICINST: {
        const clrsig_type *gt = t->u.inst.generic;
        int vt = gt->kind == CLRSIG_ET_VALUETYPE;
        r.tok = gt->u.token;
        r.kind = type_name(m, r.tok, name, sizeof name) == 0 ? ct_inject_rtype_named(name, 1, vt)
                 : vt ? CT_IRT_STRUCT : CT_IRT_REF;
        if ((r.kind == CT_IRT_TASK_T || r.kind == CT_IRT_VTASK_T) && t->u.inst.argc == 1) {
            r.arg_type = clrsig_strip(t->u.inst.args[0]);
            r.arg = base + r.arg_type->offset;
            r.arg_len = t->offset + len - r.arg_type->offset;
        } else if (r.kind == CT_IRT_TASK_T || r.kind == CT_IRT_VTASK_T) {
            r.kind = vt ? CT_IRT_STRUCT : CT_IRT_REF;
        }
        break;
    }
    default: /* pointers, byrefs, type parameters */
        break;
    }
    return r;
}

/* default(T) of a struct: ldloca L; initobj T; ldloc L (L: a local of
 * the method's return type). */
static int push_default_struct(gen *g, const rtype *r, int top)
{
    mdToken ts = 0;
    if (!top || g->in->ret_local < 0)
        return no(g, "%s: default of this struct is made only as the method's own return "
                     "value, with values on", "return");
    if (FAILED(g->emit->lpVtbl->GetTokenFromTypeSpec(g->emit, r->bytes, r->len, &ts)) || !ts)
        return no(g, "%s: its type could not be named", "return");
    return put(g, CLRIL_LDLOCA, g->in->ret_local) < 0 || put(g, OP_INITOBJ, ts) < 0 ||
                   put(g, CLRIL_LDLOC, g->in->ret_local) < 0
               ? -1
               : 0;
}

/* An integer of bits pushed (ldc.i4, or ldc.i8 for 64). */
static int push_int(gen *g, int64_t v, uint32_t bits)
{
    if (bits == 64)
        return put(g, CLRIL_LDC_I8, v) < 0 ? -1 : 0;
    return put(g, CLRIL_LDC_I4, (int64_t)(int32_t)(uint32_t)(uint64_t)v) < 0 ? -1 : 0;
}

/* new decimal(lo, mid, hi, negative, scale). */
static int push_decimal(gen *g, const rtype *r, const ct_xdec *d)
{
    static const uint8_t sig[] = {0x20, 0x05, 0x01, 0x08, 0x08, 0x08, 0x02, 0x05};
    mdToken ctor = member_ref(g, r->tok, ".ctor", sig, sizeof sig);
    if (!ctor)
        return no(g, "%s: decimal's constructor could not be named", "return");
    for (int i = 0; i < 3; i++)
        if (put(g, CLRIL_LDC_I4, (int64_t)(int32_t)d->m[i]) < 0)
            return -1;
    return put(g, CLRIL_LDC_I4, d->neg) < 0 || put(g, CLRIL_LDC_I4, d->scale) < 0 ||
                   put(g, CLRIL_NEWOBJ, ctor) < 0
               ? -1
               : 0;
}

/* A double's bits in an instruction's value (ldc.r8), or a float's (ldc.r4). */
static int push_real(gen *g, double d, int r4)
{
    int64_t bits = 0;
    if (r4) {
        float f = (float)d;
        uint32_t b;
        memcpy(&b, &f, 4);
        bits = b;
    } else {
        memcpy(&bits, &d, 8);
    }
    return put(g, r4 ? OP_LDC_R4 : OP_LDC_R8, bits) < 0 ? -1 : 0;
}

/* An enum member of plan ctx named name (ct_inject_target.member). */
static int plan_member(void *ctx, const char *name, uint64_t *value)
{
    const ct_plan *p = ctx;
    for (uint32_t i = 0; i < p->count && p->items; i++)
        if (p->items[i].name && !strcmp(p->items[i].name, name)) {
            *value = p->items[i].value;
            return 1;
        }
    return 0;
}

/* The RETURN literal (or default) as a value of type r pushed; top: the
 * method's own return type (not a task's result), plan its plan (NULL:
 * not known: an enum is then only a struct). */
static int push_value(gen *g, const rtype *r, int top, const ct_plan *plan)
{
    const ct_inject_spec *s = g->spec;
    const ct_expr_lit *lit = ct_inject_value(s);
    ct_inject_target t = {.kind = r->kind, .bits = r->bits};
    if (plan && plan->kind == CT_V_ENUM && r->kind == CT_IRT_STRUCT) {
        t.kind = CT_IRT_ENUM;
        t.bits = plan->size * 8;
        t.enum_signed = plan->underlying == CT_V_I1 || plan->underlying == CT_V_I2 ||
                        plan->underlying == CT_V_I4 || plan->underlying == CT_V_I8;
        t.member = plan_member;
        t.ctx = (void *)plan;
    }
    if (ct_inject_value_fits(s, &t, g->why, sizeof g->why) != 0)
        return -1;
    int dflt = s->is_default;
    int64_t v = 0;
    uint64_t u = 0;
    switch (t.kind) {
    case CT_IRT_BOOL:
        return put(g, CLRIL_LDC_I4, dflt ? 0 : lit->b) < 0 ? -1 : 0;
    case CT_IRT_CHAR:
        if (!dflt && lit->kind == CT_XL_STRING)
            v = s->value.strings[lit->off];
        else if (!dflt)
            ct_inject_integer(s, 0, 16, &v);
        return put(g, CLRIL_LDC_I4, v) < 0 ? -1 : 0;
    case CT_IRT_INT: case CT_IRT_UINT:
        if (!dflt)
            ct_inject_integer(s, t.kind == CT_IRT_INT, t.bits, &v);
        return push_int(g, v, t.bits);
    case CT_IRT_NINT:
        if (!dflt)
            ct_inject_integer(s, 1, 64, &v);
        return push_int(g, v, 64) < 0 || put(g, CLRIL_CONV_I, 0) < 0 ? -1 : 0;
    case CT_IRT_ENUM:
        if (!dflt && lit->kind == CT_XL_NAME) {
            plan_member(t.ctx, s->value.names + lit->off, &u);
            v = (int64_t)u;
        } else if (!dflt) {
            ct_inject_integer(s, t.enum_signed, t.bits, &v);
        }
        return push_int(g, v, t.bits == 64 ? 64 : 32);
    case CT_IRT_R4: case CT_IRT_R8:
        return push_real(g, dflt ? 0.0 : lit->neg && lit->kind == CT_XL_INT ? -lit->d : lit->d,
                         t.kind == CT_IRT_R4);
    case CT_IRT_DECIMAL: {
        ct_xdec zero = {{0, 0, 0}, 0, 0};
        return push_decimal(g, r, dflt ? &zero : &lit->dec);
    }
    case CT_IRT_STRING:
        if (!dflt && lit->kind == CT_XL_STRING) {
            WCHAR w[CT_EXPR_MAX_STRING + 1];
            mdToken str = 0;
            for (uint32_t i = 0; i < lit->len; i++)
                w[i] = s->value.strings[lit->off + i];
            w[lit->len] = 0;
            if (FAILED(g->emit->lpVtbl->DefineUserString(g->emit, w, lit->len, &str)) || !str)
                return no(g, "%s: the string could not be made", "return");
            return put(g, OP_LDSTR, str) < 0 ? -1 : 0;
        }
        return put(g, CLRIL_LDNULL, 0) < 0 ? -1 : 0;
    case CT_IRT_REF:
        return put(g, CLRIL_LDNULL, 0) < 0 ? -1 : 0;
    case CT_IRT_NULLABLE: case CT_IRT_STRUCT: case CT_IRT_VTASK:
        return push_default_struct(g, r, top);
    default:
        return no(g, "%s: its return type takes no injected value", "return");
    }
}

/* ------------------------------------------------------------- actions */

/* The code before a ret, then the ret's placeholder. */
static int returned(gen *g, uint32_t *rets, uint32_t *nrets)
{
    for (uint32_t i = 0; i < g->in->nleave; i++) {
        if (g->n >= CT_IL_INJECT_MAX)
            return -1;
        g->code[g->n++] = g->in->leave[i];
    }
    int at = put(g, CLRIL_NOP, 0);
    if (at < 0)
        return -1;
    rets[(*nrets)++] = (uint32_t)at;
    return 0;
}

/* A task of a value (ret: the return type, TASK_T or VTASK_T; its T's
 * value is on the stack): Task.FromResult<T>(v), new ValueTask<T>(v). */
static int task_of_value(gen *g, const rtype *ret)
{
    uint8_t sig[300];
    uint32_t n = 0, c;
    if (ret->kind == CT_IRT_TASK_T) {
        /* static GENERIC 1, 1 parameter: class Task`1<!!0> (!!0) */
        mdToken task = corelib_ref(g, "System.Threading.Tasks.Task");
        sig[n++] = 0x10;
        sig[n++] = 1;
        sig[n++] = 1;
        sig[n++] = 0x15;
        sig[n++] = 0x12;
        if (!(c = coded(ret->tok, sig + n)))
            return -1;
        n += c;
        sig[n++] = 1;
        sig[n++] = 0x1E;
        sig[n++] = 0;
        sig[n++] = 0x1E;
        sig[n++] = 0;
        mdToken ms = method_spec(g, member_ref(g, task, "FromResult", sig, n), ret->arg,
                                 ret->arg_len);
        if (!ms)
            return no(g, "%s: Task.FromResult could not be named", "return");
        return put(g, CLRIL_CALL, ms) < 0 ? -1 : 0;
    }
    /* instance void ValueTask`1<T>::.ctor(!0) */
    mdToken ts = 0;
    static const uint8_t ctor[] = {0x20, 0x01, 0x01, 0x13, 0x00};
    if (FAILED(g->emit->lpVtbl->GetTokenFromTypeSpec(g->emit, ret->bytes, ret->len, &ts)) || !ts)
        return no(g, "%s: ValueTask<T> could not be named", "return");
    mdToken mr = member_ref(g, ts, ".ctor", ctor, sizeof ctor);
    return !mr || put(g, CLRIL_NEWOBJ, mr) < 0 ? -1 : 0;
}

/* A faulted task of the exception on the stack: Task.FromException[<T>],
 * ValueTask.FromException[<T>]. */
static int task_of_exception(gen *g, const rtype *ret)
{
    int value = ret->kind == CT_IRT_VTASK || ret->kind == CT_IRT_VTASK_T;
    int generic = ret->kind == CT_IRT_TASK_T || ret->kind == CT_IRT_VTASK_T;
    mdToken owner = corelib_ref(g, value ? "System.Threading.Tasks.ValueTask"
                                         : "System.Threading.Tasks.Task");
    mdToken exc = corelib_ref(g, "System.Exception");
    uint8_t sig[300];
    uint32_t n = 0, c;
    if (!owner || !exc)
        return no(g, "%s: Task.FromException could not be named", "throw");
    sig[n++] = generic ? 0x10 : 0x00;
    if (generic)
        sig[n++] = 1;
    sig[n++] = 1;
    if (generic)
        sig[n++] = 0x15;
    sig[n++] = value ? 0x11 : 0x12;
    if (!(c = coded(generic ? ret->tok : owner, sig + n)))
        return -1;
    n += c;
    if (generic) {
        sig[n++] = 1;
        sig[n++] = 0x1E;
        sig[n++] = 0;
    }
    sig[n++] = 0x12;
    if (!(c = coded(exc, sig + n)))
        return -1;
    n += c;
    mdToken mr = member_ref(g, owner, "FromException", sig, n);
    mdToken target = generic ? method_spec(g, mr, ret->arg, ret->arg_len) : mr;
    if (!target)
        return no(g, "%s: Task.FromException could not be named", "throw");
    return put(g, CLRIL_CALL, target) < 0 ? -1 : 0;
}

/* The method's return type, parsed into arena a. */
static int method_return(const ct_il_inject_in *in, clrsig_arena *a, rtype *out)
{
    IMetaDataImport *mdi = in->m->mdi;
    mdTypeDef td = 0;
    DWORD attr = 0, impl = 0;
    ULONG wl = 0, sl = 0, rva = 0;
    PCCOR_SIGNATURE sig = NULL;
    WCHAR w[1];
    if (!mdi || FAILED(mdi->lpVtbl->GetMethodProps(mdi, in->tok, &td, w, 1, &wl, &attr, &sig, &sl,
                                                   &rva, &impl)) ||
        !sig || sl < 2)
        return -1;
    uint32_t at = 1, v = 0, used = 0;
    if ((sig[0] & CLRSIG_CC_GENERIC) && clrsig_read_u(sig + at, sl - at, &v, &used) == CLRSIG_OK)
        at += used;
    if (clrsig_read_u(sig + at, sl - at, &v, &used) != CLRSIG_OK)
        return -1;
    at += used;
    const clrsig_type *t = NULL;
    if (at < sl && sig[at] == CLRSIG_ET_VOID) {
        /* (a return type only: the type parser takes none) */
        *out = (rtype){.kind = CT_IRT_VOID};
        return 0;
    }
    if (at >= sl || clrsig_parse_type(sig + at, sl - at, NULL, a, &t, &used, NULL) != CLRSIG_OK)
        return -1;
    const clrsig_type *st = clrsig_strip(t);
    /* (offsets are from sig + at; the stripped type's own) */
    *out = classify(in->m, sig + at, st, used - st->offset);
    return 0;
}

/* One fault's action (its dispatch around it is the caller's). */
static int action(gen *g, const rtype *ret, uint32_t *rets, uint32_t *nrets, uint32_t *brs,
                  uint32_t *nbrs)
{
    const ct_inject_spec *s = g->spec;
    const ct_plan *plan = g->in->f->ret;
    if (s->action == CT_INJECT_DELAY) {
        /* Task.Delay(ms).Wait(): Task is one of the types the module's
         * CoreLib scope (System.Runtime) surely forwards; Thread may not be. */
        mdToken task = corelib_ref(g, "System.Threading.Tasks.Task");
        uint8_t sig[16];
        uint32_t c = task ? coded(task, sig + 3) : 0;
        if (!c)
            return no(g, "%s: Task.Delay could not be named", "delay");
        sig[0] = 0x00; /* static, 1 parameter: class Task (int32) */
        sig[1] = 1;
        sig[2] = 0x12;
        sig[3 + c] = 0x08;
        static const uint8_t wait_sig[] = {0x20, 0x00, 0x01};
        mdToken delay = member_ref(g, task, "Delay", sig, 4 + c);
        mdToken wait = member_ref(g, task, "Wait", wait_sig, sizeof wait_sig);
        if (!delay || !wait)
            return no(g, "%s: Task.Delay could not be named", "delay");
        int br;
        if (put(g, CLRIL_LDC_I4, s->delay_ms) < 0 || put(g, CLRIL_CALL, delay) < 0 ||
            put(g, CLRIL_CALLVIRT, wait) < 0 || (br = put(g, CLRIL_BR, 0)) < 0)
            return -1;
        brs[(*nbrs)++] = (uint32_t)br;
        return 0;
    }
    int task = ret->kind == CT_IRT_TASK || ret->kind == CT_IRT_TASK_T || ret->kind == CT_IRT_VTASK ||
               ret->kind == CT_IRT_VTASK_T;
    if (s->action == CT_INJECT_THROW) {
        if (new_exception(g) != 0)
            return -1;
        if (!task)
            return put(g, OP_THROW, 0) < 0 ? -1 : 0;
        return task_of_exception(g, ret) != 0 ? -1 : returned(g, rets, nrets);
    }
    /* return */
    if (ret->kind == CT_IRT_VOID || ret->kind == CT_IRT_NONE || ret->kind == CT_IRT_TASK) {
        ct_inject_target t = {.kind = ret->kind};
        if (ct_inject_value_fits(s, &t, g->why, sizeof g->why) != 0)
            return -1;
        if (ret->kind == CT_IRT_VOID)
            return returned(g, rets, nrets);
    }
    if (ret->kind == CT_IRT_TASK) {
        /* Task.CompletedTask */
        uint8_t sig[8];
        uint32_t c;
        sig[0] = 0x00;
        sig[1] = 0;
        sig[2] = 0x12;
        if (!(c = coded(ret->tok, sig + 3)))
            return -1;
        mdToken get = member_ref(g, corelib_ref(g, "System.Threading.Tasks.Task"),
                                 "get_CompletedTask", sig, 3 + c);
        if (!get)
            return no(g, "%s: Task.CompletedTask could not be named", "return");
        return put(g, CLRIL_CALL, get) < 0 ? -1 : returned(g, rets, nrets);
    }
    if (ret->kind == CT_IRT_TASK_T || ret->kind == CT_IRT_VTASK_T) {
        rtype t = classify(g->in->m, ret->arg - ret->arg_type->offset, ret->arg_type,
                           ret->arg_len);
        if (t.kind == CT_IRT_TASK || t.kind == CT_IRT_TASK_T || t.kind == CT_IRT_VTASK ||
            t.kind == CT_IRT_VTASK_T || t.kind == CT_IRT_VOID)
            t.kind = CT_IRT_NONE;
        if (push_value(g, &t, 0, NULL) != 0 || task_of_value(g, ret) != 0)
            return g->why[0] ? -1 : no(g, "%s: the task's result could not be made", "return");
        return returned(g, rets, nrets);
    }
    if (push_value(g, ret, 1, plan) != 0)
        return -1;
    return returned(g, rets, nrets);
}

uint32_t ct_il_inject_code(const ct_il_inject_in *in, clril_insn *code, uint32_t *rets,
                           uint32_t *nrets)
{
    const ct_inject_fn *inj = in->f->inject;
    *nrets = 0;
    if (!inj || !inj->n || !in->decide_sig)
        return 0;
    gen g = {.in = in, .code = code};
    g.emit = ct_il_module_emit(in->mod);
    if (!g.emit)
        return 0;
    g.scope = ct_il_corelib_scope(in->m);
    uint64_t mem[256];
    clrsig_arena a;
    clrsig_arena_init(&a, mem, sizeof mem);
    rtype ret;
    uint32_t brs[CT_INJECT_MAX], nbrs = 0, made = 0;
    if (method_return(in, &a, &ret) != 0) {
        ct_notes_say(ct_when_notes_of(), "--inject '%s': %s: its signature could not be read: "
                     "not injected", inj->b[0].spec->text, in->f->name);
        g.emit->lpVtbl->Release(g.emit);
        return 0;
    }
    /* The decision: ldc.i8 f; conv.i; ldc.i8 probe; conv.i; calli. */
    put(&g, CLRIL_LDC_I8, (int64_t)(uintptr_t)in->f);
    put(&g, CLRIL_CONV_I, 0);
    put(&g, CLRIL_LDC_I8, (int64_t)(uintptr_t)ct_probe_inject);
    put(&g, CLRIL_CONV_I, 0);
    put(&g, CLRIL_CALLI, in->decide_sig);
    for (uint32_t k = 0; k < inj->n; k++) {
        ct_inject_bound *ib = (ct_inject_bound *)&inj->b[k];
        g.spec = ib->spec;
        g.why[0] = '\0';
        uint32_t mark = g.n, mark_rets = *nrets, mark_brs = nbrs;
        int bne;
        /* dup; ldc.i4 k+1; bne.un NEXT; pop; ACTION; NEXT: */
        if (put(&g, CLRIL_DUP, 0) < 0 || put(&g, CLRIL_LDC_I4, k + 1) < 0 ||
            (bne = put(&g, OP_BNE_UN, 0)) < 0 || put(&g, CLRIL_POP, 0) < 0 ||
            action(&g, &ret, rets, nrets, brs, &nbrs) != 0) {
            g.n = mark;
            *nrets = mark_rets;
            nbrs = mark_brs;
            /* Never chosen again: its calls run as usual. */
            atomic_store(&ib->off, 1);
            ct_notes_say(ct_when_notes_of(), "--inject '%s': %s: %s: not injected",
                         ib->spec->text, in->f->name,
                         g.why[0] ? g.why : "its code could not be made");
            continue;
        }
        g.code[bne].target = g.n;
        made++;
    }
    g.emit->lpVtbl->Release(g.emit);
    if (!made || put(&g, CLRIL_POP, 0) < 0)
        return 0;
    for (uint32_t i = 0; i < nbrs; i++)
        g.code[brs[i]].target = g.n;
    return g.n;
}
