/* Capture plans, part three: parameters and names. A parameter's name and
 * in/out flags from its Param row, its label as C# writes it ("out int
 * value="; a named tuple's element names by part two), and the display name
 * of a method ("Demo.Box<int>.Get<string>") and of a generic TypeDef. Over
 * part one and part two only: parts four and five use it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/model/classnames.h"
#include "clrsig/clrsig.h"
#include "internal.h"
#include "agent/model/utf16.h"

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
            if (next < nargs && args[next] && !ct_plan_is_canon(args[next]))
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
        if (!a || ct_plan_is_canon(a)) {
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

