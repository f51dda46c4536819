/* Capture plans, part five: whole methods. The plan of `this`, and
 * ct_plan_function, which plans a method's arguments and return value
 * (their labels from part three, a state machine's MoveNext by part four);
 * also ct_plan_is_flat and the plan of a parameter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/model/classnames.h"
#include "clrsig/clrsig.h"
#include "agent/model/perm.h"
#include "internal.h"
#include "agent/runtime/state.h"
#include "agent/model/utf16.h"

/* ------------------------------------------------------ whole methods */

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

