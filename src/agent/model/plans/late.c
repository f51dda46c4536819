/* Capture plans, part six: plans bound at the first call. Shared generic
 * code whose parameters depend on type arguments unknown at map time is
 * planned by ct_plan_late from the frame of its first call, with reference
 * type arguments canonicalized (CANON_MARK) and no type loads. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "clrsig/clrsig.h"
#include "agent/model/perm.h"
#include "internal.h"
#include "agent/runtime/state.h"

/* Replaces reference-type arguments by CANON_MARK. */
static void canonicalize(ClassID *args, uint32_t n)
{
    ICorProfilerInfo *info = g_ct.info;
    for (uint32_t i = 0; i < n; i++) {
        CorElementType et = 0;
        ClassID elem = 0;
        ULONG rank = 0;
        ModuleID mod = 0;
        mdTypeDef td = 0;
        char full[CT_NAME_MAX * 3];
        const ct_module *m;
        if (!args[i] || info->lpVtbl->IsArrayClass(info, args[i], &et, &elem, &rank) == S_OK ||
            FAILED(info->lpVtbl->GetClassIDInfo2(info, args[i], &mod, &td, NULL, 0, NULL, NULL)) ||
            !(m = ct_module_get(mod))) {
            args[i] = CANON_MARK;
            continue;
        }
        if (m->corelib && ct_typedef_name(m, td, 1, full, sizeof full) == 0) {
            const ct_plan *fixed = ct_pl_corelib_plan(full);
            if (fixed) {
                if (fixed->kind == CT_V_STRING || fixed->kind == CT_V_OBJECT)
                    args[i] = CANON_MARK;
                continue;
            }
        }
        if (ct_typedef_kind(m, td) == CT_TYPE_CLASS)
            args[i] = CANON_MARK;
    }
}

int ct_plan_late(ct_mapped_fn *f, COR_PRF_FRAME_INFO frame)
{
    int expected = CT_LATE_UNBOUND;
    if (!f->late || !atomic_compare_exchange_strong(&f->late_state, &expected, CT_LATE_BINDING))
        return 0;
    ICorProfilerInfo *info = g_ct.info;
    const ct_late *l = f->late;
    const ct_plan **plans = ct_perm_alloc((f->nargs + 1) * sizeof *plans);
    ClassID cls = 0, margs[CT_MAX_TYPE_ARGS], cargs[CT_MAX_TYPE_ARGS];
    ModuleID mod = 0;
    mdToken tok = 0;
    ULONG32 nm = 0, nc = 0;
    session ss = {0};
    pctx *c = NULL;
    const ct_module *m = ct_module_get(l->module);
    if (!plans || !m ||
        FAILED(info->lpVtbl->GetFunctionInfo2(info, f->id, frame, &cls, &mod, &tok,
                                              CT_MAX_TYPE_ARGS, &nm, margs)) ||
        !cls ||
        FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, NULL, CT_MAX_TYPE_ARGS, &nc,
                                             cargs)))
        goto done;
    mdTypeDef owner = 0;
    {
        WCHAR w[2];
        ULONG wl = 0, sl = 0, rva = 0;
        DWORD attr = 0, impl = 0;
        PCCOR_SIGNATURE s = NULL;
        m->mdi->lpVtbl->GetMethodProps(m->mdi, l->method, &owner, w, 2, &wl, &attr, &s, &sl, &rva,
                                       &impl);
    }
    /* The plans serve every instantiation sharing this code: a reference
     * type argument stands for all of them (CANON_MARK, captured as an
     * object); value type arguments are the same for every call. */
    canonicalize(cargs, nc > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nc);
    canonicalize(margs, nm > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nm);
    ct_method_info lm = {
        .module = m, .token = l->method, .owner = owner, .cls = cls,
        .class_args = cargs, .nclass_args = nc > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nc,
        .method_args = margs, .nmethod_args = nm > CT_MAX_TYPE_ARGS ? CT_MAX_TYPE_ARGS : nm,
        .method_args_known = 1,
    };
    if (!(c = ct_pl_open(&ss, &lm, 0)))
        goto done;
    clrsig_sig sig;
    if (clrsig_parse(l->sig, l->sig_len, CLRSIG_KIND_METHOD, NULL, &ss.arena, &sig, NULL) !=
        CLRSIG_OK)
        goto done;
    uint32_t first = f->nargs - sig.method.param_count;
    for (uint32_t i = 0; i < f->nargs; i++) {
        if (f->args[i].plan)
            continue;
        if (i < first) {
            /* `this` of a value type's method: laid out as the exact class
             * (every instantiation sharing the code has that layout), its
             * fields planned with the canonical arguments. */
            ct_plan p = {.kind = CT_V_BYREF, .size = 8, .type_name = "this"};
            ModuleID cm = 0;
            mdTypeDef ctd = 0;
            char tname[TYPE_TEXT_MAX];
            const ct_module *cmod;
            ct_pl_typedef_display(m, owner, cargs, c->ncargs, tname, sizeof tname);
            if (SUCCEEDED(info->lpVtbl->GetClassIDInfo2(info, cls, &cm, &ctd, NULL, 0, NULL,
                                                        NULL)) &&
                (cmod = ct_module_get(cm)) && cmod->mdi) {
                const ct_plan *e = ct_pl_plan_struct(c, cls, cmod, ctd, cargs, c->ncargs, tname,
                                                     g_ct.cfg.struct_depth,
                                                     CT_MAX_VALUE_DEPTH - 1);
                if (!ct_plan_is_by_range(e))
                    p.elem = e;
            }
            plans[i] = ct_pl_new_plan(&p);
            continue;
        }
        param_meta pm;
        ct_pl_read_param(m, l->method, i - first, &pm);
        const ct_plan *p = ct_pl_param_plan(c, sig.method.params[i - first]);
        plans[i] = ct_pl_redact(pm.name, p ? p : &ct_plan_by_range);
        /* A property's setter takes the property's value. */
        const char *dot = strrchr(f->name, '.');
        if (!strncmp(dot ? dot + 1 : f->name, "set_", 4))
            plans[i] = ct_pl_redact(dot ? dot + 5 : f->name + 4, plans[i]);
    }
    if (f->has_ret && !f->ret) {
        const ct_plan *p =
            ct_pl_plan_type(c, sig.method.ret, g_ct.cfg.struct_depth, CT_MAX_VALUE_DEPTH);
        /* A property's getter returns the property's value. */
        const char *dot = strrchr(f->name, '.');
        const char *mn = dot ? dot + 1 : f->name;
        if (!strncmp(mn, "get_", 4))
            p = ct_pl_redact(mn + 4, p);
        plans[f->nargs] = p ? p : &ct_plan_by_range;
    }
done:
    if (plans) {
        for (uint32_t i = 0; i <= f->nargs; i++)
            if (!plans[i])
                plans[i] = &ct_plan_by_range;
        atomic_store_explicit(&f->late_plans, (const ct_plan *const *)plans,
                              memory_order_release);
    }
    ct_pl_close(&ss, c);
    atomic_store(&f->late_state, CT_LATE_BOUND);
    return 1;
}
