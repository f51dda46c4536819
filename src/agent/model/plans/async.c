/* Capture plans, part four: compiler-generated state machines (async
 * methods, iterators, async iterators). ct_plan_state_machine shows a
 * MoveNext as the method it implements, its parameters read from the state
 * machine's fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/model/classnames.h"
#include "clrsig/clrsig.h"
#include "agent/model/perm.h"
#include "internal.h"
#include "agent/runtime/state.h"
#include "agent/model/utf16.h"

/* ------------------------------------------------- state machines */

/* Compiler-generated state machines, shown as the method they implement. The
 * attribute on that method names the state machine type; the word is put
 * before the method's name. */
static const struct {
    const char *attribute;
    const char *word;
} k_state_machines[] = {
    {"System.Runtime.CompilerServices.AsyncStateMachineAttribute", "async "},
    {"System.Runtime.CompilerServices.IteratorStateMachineAttribute", "iterator "},
    {"System.Runtime.CompilerServices.AsyncIteratorStateMachineAttribute", "async iterator "},
};
static int corelib_builder(const ct_plan *p);

/* Methods of one name looked at in the declaring type (overloads). */
#define SM_OVERLOADS_MAX 32
/* The state machine's field holding the state (C# compilers). */
#define SM_STATE_FIELD "<>1__state"
/* The field holding the method's `this` (C# compilers). */
#define SM_THIS_FIELD "<>4__this"

/* The implemented method's name from a state machine type's metadata name:
 * "<Leaf>d__6" and "<Leaf>d__6`1" give "Leaf", "<<Main>g__Local|0_0>d" gives
 * "<Main>g__Local|0_0". -1 for any other name. */
static int sm_method_name(const char *type_name, char *out, size_t cap)
{
    size_t len = strlen(type_name);
    const char *tick = strrchr(type_name, '`');
    if (tick)
        len = (size_t)(tick - type_name);
    if (len < 4 || type_name[0] != '<')
        return -1;
    size_t end = len;
    while (end > 0 && type_name[end - 1] >= '0' && type_name[end - 1] <= '9')
        end--;
    if (end < len) { /* "__N" */
        if (end < 2 || type_name[end - 1] != '_' || type_name[end - 2] != '_')
            return -1;
        end -= 2;
    }
    if (end < 3 || type_name[end - 1] != 'd' || type_name[end - 2] != '>')
        return -1;
    size_t n = end - 3; /* between the first '<' and the '>' before 'd' */
    if (!n || n >= cap)
        return -1;
    memcpy(out, type_name + 1, n);
    out[n] = '\0';
    return 0;
}

/* 1 when custom attribute blob data[0..len) (prolog 01 00, then the Type
 * argument as a SerString: "Ns.Outer+<Leaf>d__6") names the type whose own
 * metadata name is sm_name. */
static int attribute_names(const uint8_t *data, ULONG len, const char *sm_name)
{
    uint32_t n = 0, used = 0;
    if (len < 3 || data[0] != 1 || data[1] != 0 || data[2] == 0xFF ||
        clrsig_read_u(data + 2, len - 2, &n, &used) != CLRSIG_OK || n > len - 2 - used)
        return 0;
    const char *s = (const char *)data + 2 + used;
    size_t own = strlen(sm_name);
    if (n < own || memcmp(s + n - own, sm_name, own) != 0)
        return 0;
    return n == own || s[n - own - 1] == '+' || s[n - own - 1] == '.';
}

/* The method of type `owner` named `name` that carries a state-machine
 * attribute naming sm_name; its kind (index into k_state_machines). 0 when
 * there is none. */
static mdMethodDef sm_find_method(const ct_module *m, mdTypeDef owner, const char *name,
                                  const char *sm_name, size_t *kind)
{
    IMetaDataImport *mdi = m->mdi;
    WCHAR wname[CT_NAME_MAX];
    if (ct_utf8_to_utf16(name, wname, CT_NAME_MAX) < 0)
        return 0;
    HCORENUM e = NULL;
    mdMethodDef mds[SM_OVERLOADS_MAX];
    ULONG got = 0;
    HRESULT hr = mdi->lpVtbl->EnumMethodsWithName(mdi, &e, owner, wname, mds, SM_OVERLOADS_MAX,
                                                  &got);
    if (e)
        mdi->lpVtbl->CloseEnum(mdi, e);
    if (FAILED(hr))
        return 0;
    for (ULONG i = 0; i < got && i < SM_OVERLOADS_MAX; i++)
        for (size_t k = 0; k < sizeof k_state_machines / sizeof *k_state_machines; k++) {
            WCHAR wattr[128];
            const void *data = NULL;
            ULONG len = 0;
            if (ct_utf8_to_utf16(k_state_machines[k].attribute, wattr, 128) >= 0 &&
                mdi->lpVtbl->GetCustomAttributeByName(mdi, mds[i], wattr, &data, &len) == S_OK &&
                data && attribute_names(data, len, sm_name)) {
                *kind = k;
                return mds[i];
            }
        }
    return 0;
}

/* The field of struct plan sp named name, or NULL. */
static const ct_field *sm_field(const ct_plan *sp, const char *name)
{
    for (uint32_t i = 0; i < sp->count; i++)
        if (!strcmp(sp->fields[i].name, name))
            return &sp->fields[i];
    return NULL;
}

/* The metadata arity suffix of a name ("`1"), 0 without one. */
static uint32_t name_arity(const char *name)
{
    const char *tick = strrchr(name, '`');
    return tick ? (uint32_t)strtoul(tick + 1, NULL, 10) : 0;
}

/* MoveNext's own result, when it has one: an iterator's bool (true: a value
 * was yielded, Current holds it; false: the sequence has ended). Only a
 * primitive is planned (an async method's MoveNext returns void). */
static void sm_own_result(pctx *c, ct_mapped_fn *f, const ct_method_info *mi)
{
    clrsig_sig own;
    if (!mi->sig || mi->sig_len > SIG_MAX_BYTES ||
        clrsig_parse(mi->sig, mi->sig_len, CLRSIG_KIND_METHOD, NULL, c->arena, &own, NULL) !=
            CLRSIG_OK)
        return;
    const clrsig_type *r = clrsig_strip(own.method.ret);
    const ct_plan *p = ct_pl_prim_plan(r->kind);
    if (!p || r->kind == CLRSIG_ET_VOID || p->kind == CT_V_STRING || p->kind == CT_V_OBJECT)
        return;
    char label[TYPE_TEXT_MAX + 2];
    snprintf(label, sizeof label, "%s ", p->type_name);
    f->ret_label = ct_pl_perm_text(label);
    f->ret = p;
    f->has_ret = 1;
}

int ct_plan_state_machine(ct_mapped_fn *f, const ct_method_info *mi)
{
    const ct_module *m = mi->module;
    if (!m || !m->mdi || strcmp(mi->method_name, "MoveNext"))
        return -1;
    /* Values need the state machine's exact class (its field layout). */
    if (g_ct.cfg.signatures && !mi->cls)
        return -1;
    IMetaDataImport *mdi = m->mdi;
    WCHAR w[CT_NAME_MAX];
    ULONG wlen = 0;
    DWORD tflags = 0;
    mdToken extends = 0;
    mdTypeDef outer = 0;
    char sm_name[CT_NAME_MAX * 3], method[CT_NAME_MAX * 3];
    if (FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, mi->owner, w, CT_NAME_MAX, &wlen, &tflags,
                                            &extends)))
        return -1;
    ct_utf16_to_utf8(w, wlen, sm_name, sizeof sm_name);
    size_t kind = 0;
    mdMethodDef md;
    if (sm_method_name(sm_name, method, sizeof method) != 0 ||
        mdi->lpVtbl->GetNestedClassProps(mdi, mi->owner, &outer) != S_OK || !outer ||
        !(md = sm_find_method(m, outer, method, sm_name, &kind)))
        return -1;
    mdTypeDef md_owner = 0;
    ULONG sig_len = 0, rva = 0;
    DWORD attr = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (FAILED(mdi->lpVtbl->GetMethodProps(mdi, md, &md_owner, w, CT_NAME_MAX, &wlen, &attr, &sig,
                                           &sig_len, &rva, &impl)) ||
        !sig || sig_len > SIG_MAX_BYTES)
        return -1;

    /* The state machine's type arguments: the declaring types' first, then
     * the method's own (its metadata name's arity). */
    uint32_t marity = name_arity(sm_name);
    uint32_t ncargs = mi->cls ? mi->nclass_args : 0;
    if (marity > ncargs)
        marity = ncargs;
    uint32_t nhead = ncargs - marity;

    char mname[CT_NAME_MAX * 3], display[DISPLAY_MAX], shown[DISPLAY_MAX + 32];
    ct_utf16_to_utf8(w, wlen, mname, sizeof mname);
    ct_method_info kick = {
        .module = m, .token = md, .owner = outer, .method_name = mname,
        .cls = mi->cls, .class_args = mi->class_args, .nclass_args = nhead,
        .method_args = mi->class_args + nhead, .nmethod_args = marity, .method_args_known = 1,
    };
    ct_pl_build_display(&kick, display, sizeof display);
    snprintf(shown, sizeof shown, "%s%s", k_state_machines[kind].word, display);
    if (!g_ct.cfg.signatures) {
        /* Names only (or the fast path): "async Demo.Net.Fetch(...)". */
        f->display = ct_pl_perm_text(shown);
        return 0;
    }

    /* The context of the implemented method: kick's class is mi's, known
     * exactly here (values wanted), its type arguments all known. */
    session ss;
    pctx *c = ct_pl_open(&ss, &kick, 1);
    if (!c)
        return -1;
    int rc = -1;
    param_meta *pm = NULL;

    /* The state machine's fields, one level more than a parameter's struct
     * so that the fields get the configured depth. */
    char tname[TYPE_TEXT_MAX];
    ct_classid_name(mi->cls, CT_NAME_SHORT, tname, sizeof tname);
    const ct_plan *sp = ct_pl_plan_struct(c, mi->cls, m, mi->owner, mi->class_args,
                                          mi->nclass_args, tname, g_ct.cfg.struct_depth + 1,
                                          CT_MAX_VALUE_DEPTH);
    clrsig_sig msig;
    if (sp->kind != CT_V_STRUCT ||
        clrsig_parse(sig, sig_len, CLRSIG_KIND_METHOD, NULL, &ss.arena, &msig, NULL) != CLRSIG_OK ||
        msig.method.sentinel != UINT32_MAX)
        goto done;
    const clrsig_method *meth = &msig.method;
    uint32_t np = meth->param_count;
    int has_this = (meth->callconv & CLRSIG_CC_HASTHIS) != 0;
    uint32_t n = np + (has_this ? 1 : 0) + 1; /* + the state */
    ct_arg *args = ct_perm_alloc(n * sizeof *args);
    uint32_t *offsets = ct_perm_alloc(n * sizeof *offsets);
    pm = calloc(np ? np : 1, sizeof *pm);
    if (!args || !offsets || !pm)
        goto done;
    uint32_t a = 0;
    const ct_field *fd;
    /* `this` only when kept: the compiler hoists it only when the method
     * uses it after its first await (or yield). */
    if (has_this && (fd = sm_field(sp, SM_THIS_FIELD))) {
        args[a].label = "this=";
        args[a].plan = fd->plan;
        offsets[a++] = fd->offset;
    }
    for (uint32_t i = 0; i < np; i++, a++) {
        char label[LABEL_MAX];
        ct_pl_read_param(m, md, i, &pm[i]);
        /* A parameter the compiler did not hoist reads <unavailable>. */
        fd = sm_field(sp, pm[i].name);
        const ct_plan *plan = fd ? fd->plan : &ct_plan_by_range;
        ct_pl_param_label(c, meth->params[i], &pm[i], fd ? &plan : NULL, label, sizeof label);
        args[a].label = ct_pl_perm_text(label);
        args[a].plan = plan;
        offsets[a] = fd ? fd->offset : CT_SM_NO_FIELD;
    }
    fd = sm_field(sp, SM_STATE_FIELD);
    args[a].label = SM_STATE_FIELD "=";
    args[a].plan = fd ? fd->plan : ct_pl_prim_plan(CLRSIG_ET_I4);
    offsets[a++] = fd ? fd->offset : CT_SM_NO_FIELD;
    n = a;

    f->display = ct_pl_perm_text(shown);
    f->args = args;
    f->nargs = n;
    f->sm_offsets = offsets;
    /* (An async iterator has a builder too, but faults its promise.) */
    fd = sm_field(sp, "<>v__promiseOfValueOrEnd");
    if (!fd)
        fd = sm_field(sp, "<>t__builder");
    f->sm_fault_at = fd ? fd->offset : CT_SM_NO_FIELD;
    f->sm_task_first = fd && !strcmp(fd->name, "<>t__builder") && corelib_builder(fd->plan);
    f->has_ret = 0;
    sm_own_result(c, f, mi);
    f->values = 1;
    rc = 0;
done:
    free(pm);
    ct_pl_close(&ss, c);
    return rc;
}


/* ------------------------------------------------------ async calls */

/* Whether plan p (a state machine's builder field) is one of CoreLib's
 * async method builders, whose first word is a reference (the task, or an
 * async void method's synchronization context). */
static int corelib_builder(const ct_plan *p)
{
    static const char *const names[] = {"AsyncTaskMethodBuilder", "AsyncValueTaskMethodBuilder",
                                        "PoolingAsyncValueTaskMethodBuilder",
                                        "AsyncVoidMethodBuilder"};
    if (!p || p->kind != CT_V_STRUCT || !p->type_name)
        return 0;
    const char *end = strchr(p->type_name, '<');
    size_t len = end ? (size_t)(end - p->type_name) : strlen(p->type_name);
    const char *start = p->type_name;
    for (const char *q = p->type_name; q < p->type_name + len; q++)
        if (*q == '.')
            start = q + 1;
    len -= (size_t)(start - p->type_name);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == len && !strncmp(start, names[i], len))
            return 1;
    return 0;
}

/* Whether type name `name` is `base` or an instantiation of it ("Task",
 * "Task<int>": plans name CoreLib's task types by their short names). */
static int names_type(const char *name, const char *base)
{
    size_t n = strlen(base);
    return name && !strncmp(name, base, n) && (name[n] == '\0' || name[n] == '<');
}

void ct_pl_async_stub(ct_mapped_fn *f, const ct_method_info *mi, const ct_plan *ret)
{
    f->async_stub = 0;
    if (!ret || !mi->module || !mi->module->mdi)
        return;
    uint32_t at = UINT32_MAX;
    if (ret->kind == CT_V_OBJECT && (names_type(ret->type_name, "Task")))
        at = 0;
    else if (ret->kind == CT_V_STRUCT &&
             names_type(ret->type_name, "ValueTask"))
        for (uint32_t i = 0; i < ret->count; i++)
            if (!strcmp(ret->fields[i].name, "_obj") && ret->fields[i].plan->kind == CT_V_OBJECT)
                at = ret->fields[i].offset;
    if (at == UINT32_MAX || at + 8 > (ret->kind == CT_V_OBJECT ? 8 : ret->size))
        return;
    /* Its body is a state machine the compiler made, with a builder. */
    IMetaDataImport *mdi = mi->module->mdi;
    WCHAR wattr[128];
    const void *data = NULL;
    ULONG len = 0;
    if (ct_utf8_to_utf16(k_state_machines[0].attribute, wattr, 128) < 0 ||
        mdi->lpVtbl->GetCustomAttributeByName(mdi, mi->token, wattr, &data, &len) != S_OK)
        return;
    f->async_task_at = at;
    f->async_stub = 1;
}
