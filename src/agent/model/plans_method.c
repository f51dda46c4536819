/* Capture plans, part two: whole methods. Parameter names and labels, the
 * display name ("Demo.Box<int>.Get<string>"), the plan of `this`, and
 * ct_plan_function, which plans a method's arguments and return value; also
 * ct_plan_is_flat, and the planning session (arenas and context) that every
 * part opens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classnames.h"
#include "clrsig/clrsig.h"
#include "perm.h"
#include "plans_internal.h"
#include "agent/runtime/state.h"
#include "utf16.h"

/* ------------------------------------------------------ whole methods */

/* C# 12 marks a `ref readonly` parameter as an `in` one ([In] T&, and on a
 * virtual method modreq(InAttribute)) with this attribute on its Param row
 * instead of `in`'s IsReadOnlyAttribute (csharplang, "ref readonly
 * parameters", Metadata encoding). */
static const WCHAR k_requires_location[] =
    u"System.Runtime.CompilerServices.RequiresLocationAttribute";

/* Name and in/out flags of parameter i (0-based) of method md. */
void ct_pl_read_param(const ct_module *m, mdMethodDef md, uint32_t i, param_meta *out)
{
    IMetaDataImport *mdi = m->mdi;
    mdParamDef pd = 0;
    snprintf(out->name, sizeof out->name, "arg%u", i + 1);
    out->flags = 0;
    out->pd = 0;
    /* Param rows are numbered from 1; sequence 0 is the return value. */
    if (mdi->lpVtbl->GetParamForMethodIndex(mdi, md, i + 1, &pd) != S_OK)
        return;
    WCHAR w[PARAM_NAME_MAX];
    ULONG wlen = 0, seq = 0, value_len = 0;
    DWORD attr = 0, cplus = 0;
    mdMethodDef owner = 0;
    const void *value = NULL;
    if (FAILED(mdi->lpVtbl->GetParamProps(mdi, pd, &owner, &seq, w, PARAM_NAME_MAX, &wlen, &attr,
                                          &cplus, &value, &value_len)))
        return;
    if (wlen > 1)
        ct_utf16_to_utf8(w, wlen, out->name, sizeof out->name);
    out->pd = pd;
    out->flags = (uint16_t)(attr & (CLRSIG_PARAM_IN | CLRSIG_PARAM_OUT));
    const void *blob = NULL;
    ULONG blob_len = 0;
    if (mdi->lpVtbl->GetCustomAttributeByName(mdi, pd, k_requires_location, &blob, &blob_len) ==
        S_OK)
        out->flags |= PARAM_REF_READONLY;
}

/* "out int value=": the parameter's type as C# writes it, then its name;
 * with plan, a named tuple's fields in *plan take its element names. */
void ct_pl_param_label(pctx *c, const clrsig_type *t, const param_meta *pm,
                       const ct_plan **plan, char *out, size_t cap)
{
    char text[TYPE_TEXT_MAX];
    const clrsig_type *s = clrsig_strip(t);
    if (ct_pl_tuple_names(c, pm->pd, t, text, sizeof text, plan) == 0) {
        /* (the text of a byref's target) */
    } else if (s->kind == CLRSIG_ET_BYREF) {
        ct_pl_type_text(c, s->u.elem, text, sizeof text);
    } else {
        ct_pl_type_text(c, t, text, sizeof text);
    }
    if (s->kind == CLRSIG_ET_BYREF) {
        /* As C# reads them back: [Out] alone is `out`; RequiresLocation
         * `ref readonly` (it has [In] too); [In] alone `in`; [In, Out]
         * (interop) and neither `ref`. */
        uint16_t io = pm->flags & (CLRSIG_PARAM_IN | CLRSIG_PARAM_OUT);
        const char *word = io == CLRSIG_PARAM_OUT             ? "out "
                           : (pm->flags & PARAM_REF_READONLY) ? "ref readonly "
                           : io == CLRSIG_PARAM_IN            ? "in "
                                                              : "ref ";
        snprintf(out, cap, "%s%s %s=", word, text, pm->name);
    } else {
        snprintf(out, cap, "%s %s=", text, pm->name);
    }
}

/* Plans whose capture reads only the value's own bytes: safe on memory that
 * may hold garbage (an `out` parameter's target before the callee writes). */
int ct_plan_is_flat(const ct_plan *p, unsigned depth)
{
    if (!p || depth > CT_MAX_VALUE_DEPTH)
        return 0;
    switch (p->kind) {
    case CT_V_STRING: case CT_V_OBJECT: case CT_V_ARRAY: case CT_V_BYREF: case CT_V_SPAN:
        return 0;
    case CT_V_STRUCT:
        for (uint32_t i = 0; i < p->count; i++)
            if (!ct_plan_is_flat(p->fields[i].plan, depth + 1))
                return 0;
        return 1;
    case CT_V_NULLABLE:
        return ct_plan_is_flat(p->elem, depth + 1);
    default:
        return 1;
    }
}

/* The plan of a parameter. Its byref target, if any, is checked by the hook
 * before it is read (hooks.c, byref_source): `out` targets included, whose
 * value is shown as it is at entry. */
const ct_plan *ct_pl_param_plan(pctx *c, const clrsig_type *t)
{
    return ct_pl_plan_type(c, t, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH);
}

/* "Demo.Box<int>", "Demo.Pair<int, TValue>": a generic TypeDef named with
 * its known type arguments, and the declared names of the others (unknown,
 * or System.__Canon: code shared by every reference type). */
void ct_pl_typedef_display(const ct_module *m, mdTypeDef td, const ClassID *args,
                           uint32_t nargs, char *out, size_t cap)
{
    char name[CT_NAME_MAX * 3];
    if (ct_typedef_name(m, td, 1, name, sizeof name) != 0) {
        snprintf(out, cap, "?");
        return;
    }
    size_t o = 0;
    uint32_t next = 0;
    out[0] = '\0';
    for (const char *r = name; *r && o + 1 < cap;) {
        if (*r != '`') {
            out[o++] = *r++;
            continue;
        }
        unsigned n = 0;
        for (r++; *r >= '0' && *r <= '9'; r++)
            n = n * 10 + (unsigned)(*r - '0');
        o += (size_t)snprintf(out + o, cap - o, "<");
        for (unsigned i = 0; i < n && o + 1 < cap; i++, next++) {
            char pn[TYPE_TEXT_MAX];
            if (next < nargs && args[next] && !ct_pl_is_canon(args[next]))
                ct_classid_name(args[next], CT_NAME_SHORT, pn, sizeof pn);
            else if (ct_generic_param_name(m, td, next, pn, sizeof pn) != 0)
                snprintf(pn, sizeof pn, "!%u", next);
            o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", pn);
        }
        if (o + 1 < cap)
            o += (size_t)snprintf(out + o, cap - o, ">");
    }
    if (o >= cap)
        o = cap - 1;
    out[o] = '\0';
}

void ct_pl_build_display(const ct_method_info *mi, char *out, size_t cap)
{
    char owner[DISPLAY_MAX];
    if (!(mi->owner & 0x00FFFFFF))
        owner[0] = '\0';
    else
        ct_pl_typedef_display(mi->module, mi->owner, mi->cls ? mi->class_args : NULL,
                              mi->cls ? mi->nclass_args : 0, owner, sizeof owner);
    size_t o = (size_t)snprintf(out, cap, "%s%s%s", owner, owner[0] ? "." : "", mi->method_name);
    if (o >= cap || !mi->nmethod_args)
        return;
    o += (size_t)snprintf(out + o, cap - o, "<");
    for (uint32_t i = 0; i < mi->nmethod_args && o + 1 < cap; i++) {
        char an[TYPE_TEXT_MAX];
        ClassID a = mi->method_args_known ? mi->method_args[i] : 0;
        if (!a || ct_pl_is_canon(a)) {
            if (ct_generic_param_name(mi->module, mi->token, i, an, sizeof an) != 0)
                snprintf(an, sizeof an, "!!%u", i);
        } else {
            ct_classid_name(a, CT_NAME_SHORT, an, sizeof an);
        }
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", an);
    }
    if (o + 1 < cap)
        snprintf(out + o, cap - o, ">");
}

/* The plan of `this`: the object, or for a value type's method the address
 * of the struct and its fields. */
static const ct_plan *this_plan(pctx *c, const ct_method_info *mi, int *late)
{
    ct_type_kind kind = ct_typedef_kind(mi->module, mi->owner);
    if (kind == CT_TYPE_CLASS) {
        /* Only a fallback: the object's own class is what gets printed. */
        char text[DISPLAY_MAX];
        ct_pl_typedef_display(mi->module, mi->owner, mi->cls ? mi->class_args : NULL,
                              mi->cls ? mi->nclass_args : 0, text, sizeof text);
        ct_plan p = {.kind = CT_V_OBJECT, .size = 8, .type_name = ct_pl_perm_text(text)};
        return ct_pl_new_plan(&p);
    }
    ct_plan p = {.kind = CT_V_BYREF, .size = 8, .type_name = "this"};
    if (mi->cls) {
        const ct_plan *e =
            ct_pl_plan_class(c, mi->cls, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH - 1);
        if (!ct_plan_is_by_range(e))
            p.elem = e;
    } else {
        *late = 1;
        return NULL;
    }
    return ct_pl_new_plan(&p);
}

pctx *ct_pl_open(session *s, const ct_method_info *mi, int allow_load)
{
    s->mem = malloc(2 * CLRSIG_ARENA_SIZE_RECOMMENDED);
    if (!s->mem)
        return NULL;
    clrsig_arena_init(&s->arena, s->mem, CLRSIG_ARENA_SIZE_RECOMMENDED);
    clrsig_arena_init(&s->scratch, s->mem + CLRSIG_ARENA_SIZE_RECOMMENDED,
                      CLRSIG_ARENA_SIZE_RECOMMENDED);
    pctx *c = calloc(1, sizeof *c);
    if (!c) {
        free(s->mem);
        s->mem = NULL;
        return NULL;
    }
    c->allow_load = allow_load;
    c->arena = &s->arena;
    c->scratch = &s->scratch;
    if (!mi)
        return c;
    c->m = mi->module;
    c->type_owner = mi->owner;
    c->method_owner = mi->token;
    c->cargs = mi->class_args;
    c->ncargs = mi->nclass_args;
    c->cknown = mi->cls != 0;
    c->margs = mi->method_args;
    c->nmargs = mi->nmethod_args;
    c->mknown = mi->method_args_known;
    return c;
}

void ct_pl_close(session *s, pctx *c)
{
    free(c);
    free(s->mem);
}

/* What a runtime-async method returning a Task or ValueTask returns from
 * its IL. */
static const clrsig_type k_void_type = {.kind = CLRSIG_ET_VOID};

int ct_plan_function(ct_mapped_fn *f, const ct_method_info *mi)
{
    char display[DISPLAY_MAX];
    ct_pl_build_display(mi, display, sizeof display);
    f->display = ct_pl_perm_text(display);
    if (!g_ct.cfg.signatures || !mi->module || !mi->module->mdi || !mi->sig ||
        mi->sig_len > SIG_MAX_BYTES)
        return -1;

    session ss;
    pctx *c = ct_pl_open(&ss, mi, 1);
    if (!c)
        return -1;
    param_meta *pm = NULL;
    int rc = -1;

    clrsig_sig sig;
    if (clrsig_parse(mi->sig, mi->sig_len, CLRSIG_KIND_METHOD, NULL, &ss.arena, &sig, NULL) !=
        CLRSIG_OK)
        goto done;
    const clrsig_method *meth = &sig.method;
    if (meth->sentinel != UINT32_MAX)
        goto done; /* vararg call sites: ranges do not follow the signature */
    uint32_t np = meth->param_count;
    int has_this = (meth->callconv & CLRSIG_CC_HASTHIS) && !(meth->callconv & CLRSIG_CC_EXPLICITTHIS);
    uint32_t nargs = np + (has_this ? 1 : 0);
    ct_arg *args = ct_perm_alloc((nargs ? nargs : 1) * sizeof *args);
    pm = calloc(np ? np : 1, sizeof *pm);
    if (!args || !pm)
        goto done;
    for (uint32_t i = 0; i < np; i++)
        ct_pl_read_param(mi->module, mi->token, i, &pm[i]);

    int late = 0;
    uint32_t a = 0;
    if (has_this) {
        args[a].label = "this=";
        args[a].plan = this_plan(c, mi, &late);
        a++;
    }
    for (uint32_t i = 0; i < np; i++, a++) {
        char label[LABEL_MAX];
        const ct_plan *plan = ct_pl_param_plan(c, meth->params[i]);
        if (g_ct.attached)
            ct_pl_prime(c, meth->params[i]);
        ct_pl_param_label(c, meth->params[i], &pm[i], &plan, label, sizeof label);
        args[a].label = ct_pl_perm_text(label);
        args[a].plan = ct_pl_redact(pm[i].name, plan);
        /* A property's setter takes the property's value. */
        if (!strncmp(mi->method_name, "set_", 4))
            args[a].plan = ct_pl_redact(mi->method_name + 4, args[a].plan);
        if (!args[a].plan)
            late = 1;
    }
    const clrsig_type *rtype = meth->ret;
    const clrsig_type *ret = clrsig_strip(rtype);
    /* A runtime-async method's IL returns what its task gives: the T of a
     * Task<T> or ValueTask<T>, nothing for a Task or ValueTask. */
    if (f->rt_async) {
        if (ret->kind == CLRSIG_ET_GENERICINST && ret->u.inst.argc == 1)
            ret = clrsig_strip(rtype = ret->u.inst.args[0]);
        else
            ret = clrsig_strip(rtype = &k_void_type);
    }
    if (ret->kind != CLRSIG_ET_VOID) {
        char text[TYPE_TEXT_MAX], label[TYPE_TEXT_MAX + 2];
        const ct_plan *plan =
            ct_pl_plan_type(c, rtype, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH);
        /* The return value's names are on Param row 0 (a runtime-async
         * method's name its task's type arguments: not read). */
        mdParamDef rpd = 0;
        IMetaDataImport *mdi = mi->module->mdi;
        if (f->rt_async || mdi->lpVtbl->GetParamForMethodIndex(mdi, mi->token, 0, &rpd) != S_OK ||
            ct_pl_tuple_names(c, rpd, rtype, text, sizeof text, &plan) != 0)
            ct_pl_type_text(c, rtype, text, sizeof text);
        snprintf(label, sizeof label, "%s ", text);
        f->ret_label = ct_pl_perm_text(label);
        /* A property's getter returns the property's value. */
        f->ret = strncmp(mi->method_name, "get_", 4) == 0 ? ct_pl_redact(mi->method_name + 4, plan)
                                                        : plan;
        f->has_ret = 1;
        if (!f->ret)
            late = 1;
        ct_pl_async_stub(f, mi, plan);
    }
    if (late) {
        ct_late *l = ct_perm_alloc(sizeof *l);
        uint8_t *copy = ct_perm_alloc(mi->sig_len);
        if (l && copy) {
            memcpy(copy, mi->sig, mi->sig_len);
            l->module = mi->module->id;
            l->method = mi->token;
            l->sig = copy;
            l->sig_len = mi->sig_len;
            f->late = l;
        }
    }
    f->args = args;
    f->nargs = nargs;
    f->out_mask = 0;
    for (uint32_t i = 0; i < nargs && i < 64; i++)
        if (args[i].plan && args[i].plan->kind == CT_V_BYREF && args[i].plan->elem &&
            strcmp(args[i].label, "this=") != 0)
            f->out_mask |= 1ull << i;
    f->values = 1;
    rc = 0;
done:
    free(pm);
    ct_pl_close(&ss, c);
    return rc;
}

