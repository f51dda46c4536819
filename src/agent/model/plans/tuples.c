/* Capture plans, part two: C# tuples with element names. A parameter or
 * return value whose type holds named tuples carries their names in a
 * TupleElementNamesAttribute on its Param row (tuplenames.h); its type is
 * then written as C# writes it, "(int Id, string Name)", and its value's
 * tuple fields take the names: {Id=1, Name="x"}. A long tuple (more than
 * seven elements: ValueTuple`8 whose TRest holds the rest) shows its
 * elements in one list, as C# does (Item8, not Rest.Item1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "clrsig/clrsig.h"
#include "agent/model/perm.h"
#include "internal.h"
#include "agent/model/tuplenames.h"
#include "agent/model/utf16.h"

/* Levels of types walked: tuples within tuples, arrays and generic
 * arguments; a deeper type shows no names. */
#define TUPLE_DEPTH_MAX 8
/* Most elements of one tuple (all its TRest levels) shown with names; a
 * longer tuple makes the whole type show none. */
#define TUPLE_ELEMENTS_MAX 32
/* ValueTuple`8 holds seven elements, then TRest. */
#define TUPLE_OWN 7
#define TUPLE_LEVELS (TUPLE_ELEMENTS_MAX / TUPLE_OWN + 1)

static const WCHAR k_names_attribute[] =
    u"System.Runtime.CompilerServices.TupleElementNamesAttribute";

/* 1 when text written into t did not fit (ct_text counts past its end). */
static int cut(const ct_text *t)
{
    return t->len >= t->cap;
}

typedef struct walk {
    pctx *c;
    const ct_tuple_names *names;
    uint32_t next; /* index of the next name: one per element of each tuple met */
    int bad;       /* the names do not fit the type (or a limit was passed) */
} walk;

/* The arity of t when it is System.ValueTuple`N (N 1..8, its arguments all
 * given), else 0. */
static uint32_t tuple_arity(const walk *w, const clrsig_type *t)
{
    t = clrsig_strip(t);
    if (t->kind != CLRSIG_ET_GENERICINST || t->u.inst.generic->kind != CLRSIG_ET_VALUETYPE)
        return 0;
    IMetaDataImport *mdi = w->c->m->mdi;
    uint32_t tok = t->u.inst.generic->u.token;
    WCHAR wn[64];
    ULONG len = 0;
    if ((tok >> 24) == 0x01) {
        mdToken scope = 0;
        if (FAILED(mdi->lpVtbl->GetTypeRefProps(mdi, tok, &scope, wn, 64, &len)) ||
            (scope >> 24) == 0x01 /* nested */)
            return 0;
    } else if ((tok >> 24) == 0x02) {
        DWORD flags = 0;
        mdToken extends = 0;
        mdTypeDef outer = 0;
        if (FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, tok, wn, 64, &len, &flags, &extends)) ||
            (mdi->lpVtbl->GetNestedClassProps(mdi, tok, &outer) == S_OK && outer))
            return 0;
    } else {
        return 0;
    }
    char name[64];
    static const char prefix[] = "System.ValueTuple`";
    const size_t pl = sizeof prefix - 1;
    ct_utf16_to_utf8(wn, len, name, sizeof name);
    if (strncmp(name, prefix, pl) != 0 ||
        name[pl] < '1' || name[pl] > '8' || name[pl + 1])
        return 0;
    uint32_t n = (uint32_t)(name[pl] - '0');
    return t->u.inst.argc == n ? n : 0;
}

/* 1 when a ValueTuple occurs anywhere in t. */
static int has_tuple(const walk *w, const clrsig_type *t, unsigned depth)
{
    t = clrsig_strip(t);
    if (depth > TUPLE_DEPTH_MAX)
        return 1; /* unknown: taken as yes (the walk gives up) */
    switch (t->kind) {
    case CLRSIG_ET_GENERICINST:
        if (tuple_arity(w, t))
            return 1;
        for (uint32_t i = 0; i < t->u.inst.argc; i++)
            if (has_tuple(w, t->u.inst.args[i], depth + 1))
                return 1;
        return 0;
    case CLRSIG_ET_SZARRAY:
    case CLRSIG_ET_BYREF:
    case CLRSIG_ET_PTR:
        return has_tuple(w, t->u.elem, depth + 1);
    case CLRSIG_ET_ARRAY:
        return has_tuple(w, t->u.array.elem, depth + 1);
    case CLRSIG_ET_FNPTR:
        if (has_tuple(w, t->u.fnptr->ret, depth + 1))
            return 1;
        for (uint32_t i = 0; i < t->u.fnptr->param_count; i++)
            if (has_tuple(w, t->u.fnptr->params[i], depth + 1))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* The field of struct plan p named name, or NULL. */
static const ct_field *field_of(const ct_plan *p, const char *name)
{
    for (uint32_t i = 0; p && p->kind == CT_V_STRUCT && i < p->count; i++)
        if (!strcmp(p->fields[i].name, name))
            return &p->fields[i];
    return NULL;
}

static const ct_plan *walk_type(walk *w, const clrsig_type *t, const ct_plan *plan, ct_text *out,
                                unsigned depth);

/* A tuple: "(int Id, string Name)" into out, and its plan with the
 * elements' fields named (element i: its name, else Item<i+1>), a long
 * tuple's TRest levels flattened into one list. */
static const ct_plan *walk_tuple(walk *w, const clrsig_type *t, const ct_plan *plan, ct_text *out,
                                 unsigned depth)
{
    const clrsig_type *elems[TUPLE_ELEMENTS_MAX];
    const ct_plan *lp[TUPLE_LEVELS];     /* each level's struct plan (or NULL) */
    uint32_t base[TUPLE_LEVELS];         /* its offset in the outer struct */
    uint32_t n = 0, nlev = 0;
    const clrsig_type *node = clrsig_strip(t);
    lp[0] = plan && plan->kind == CT_V_STRUCT ? plan : NULL;
    base[0] = 0;
    for (;;) {
        uint32_t ar = tuple_arity(w, node);
        uint32_t own = ar == 8 ? TUPLE_OWN : ar;
        if (!ar || nlev >= TUPLE_LEVELS || n + own > TUPLE_ELEMENTS_MAX) {
            w->bad = 1;
            return plan;
        }
        nlev++;
        for (uint32_t i = 0; i < own; i++)
            elems[n++] = node->u.inst.args[i];
        if (ar < 8)
            break;
        node = clrsig_strip(node->u.inst.args[TUPLE_OWN]);
        if (nlev >= TUPLE_LEVELS) {
            w->bad = 1;
            return plan;
        }
        const ct_field *rest = field_of(lp[nlev - 1], "Rest");
        lp[nlev] = rest && rest->plan->kind == CT_V_STRUCT ? rest->plan : NULL;
        base[nlev] = rest ? base[nlev - 1] + rest->offset : 0;
    }
    /* C# writes a one-element tuple ValueTuple<T>: no names to show. */
    if (n < 2 || w->next + n > w->names->count) {
        w->bad = 1;
        return plan;
    }
    uint32_t first = w->next, start = (uint32_t)out->len;
    w->next += n;
    ct_field *fields = lp[0] ? ct_perm_alloc((n + 1) * sizeof *fields) : NULL;
    uint32_t nf = 0;
    ct_text_put(out, "(");
    for (uint32_t i = 0; i < n; i++) {
        if (i && i % TUPLE_OWN == 0) {
            /* Entering TRest: a ValueTuple of its own, its elements' names
             * listed (again) after the outer ones'. */
            if (w->next + (n - i) > w->names->count) {
                w->bad = 1;
                return plan;
            }
            w->next += n - i;
        }
        if (i)
            ct_text_put(out, ", ");
        char item[16];
        snprintf(item, sizeof item, "Item%u", i % TUPLE_OWN + 1);
        const ct_plan *level = lp[i / TUPLE_OWN];
        const ct_field *f = field_of(level, item);
        const ct_plan *ep = walk_type(w, elems[i], f ? f->plan : NULL, out, depth + 1);
        const char *name = ct_tuple_name(w->names, first + i);
        if (name) {
            ct_text_put(out, " ");
            ct_text_put(out, name);
        }
        if (fields && f) {
            char shown[CT_TUPLE_NAME_MAX + 16];
            if (name)
                snprintf(shown, sizeof shown, "%s", name);
            else
                snprintf(shown, sizeof shown, "Item%u", i + 1);
            fields[nf++] = (ct_field){ct_pl_perm_text(shown), base[i / TUPLE_OWN] + f->offset, ep};
        }
    }
    ct_text_put(out, ")");
    if (!fields || !nf || cut(out))
        return plan;
    /* A level past the struct depth (no plan of its own) stays as the
     * runtime lays it out: its TRest field, unnamed. */
    for (uint32_t l = 1; l < nlev; l++)
        if (!lp[l]) {
            const ct_field *rest = field_of(lp[l - 1], "Rest");
            if (rest)
                fields[nf++] = (ct_field){"Rest", base[l - 1] + rest->offset, rest->plan};
            break;
        }
    ct_plan copy = *plan;
    copy.fields = fields;
    copy.count = nf;
    copy.type_name = ct_pl_perm_text(out->p + start);
    return ct_pl_new_plan(&copy);
}

/* Writes t's C# text into out, its tuples with their names, and returns
 * plan with them (plan may be NULL: the text only). */
static const ct_plan *walk_type(walk *w, const clrsig_type *t, const ct_plan *plan, ct_text *out,
                                unsigned depth)
{
    t = clrsig_strip(t);
    if (depth > TUPLE_DEPTH_MAX) {
        w->bad = 1;
        return plan;
    }
    char text[TYPE_TEXT_MAX];
    switch (t->kind) {
    case CLRSIG_ET_GENERICINST: {
        if (tuple_arity(w, t))
            return walk_tuple(w, t, plan, out, depth);
        if (!has_tuple(w, t, depth))
            break;
        ct_pl_token_text(w->c, t->u.inst.generic->u.token, text, sizeof text);
        if (strchr(text, '.')) {
            /* A nested generic type shares its arguments with the types
             * around it: left to libclrsig, without names. */
            w->bad = 1;
            return plan;
        }
        /* Nullable<(int A, int B)>: its value is the tuple's. */
        int nullable = plan && plan->kind == CT_V_NULLABLE && t->u.inst.argc == 1;
        const ct_plan *ep = NULL;
        ct_text_put(out, text);
        ct_text_put(out, "<");
        for (uint32_t i = 0; i < t->u.inst.argc; i++) {
            if (i)
                ct_text_put(out, ", ");
            ep = walk_type(w, t->u.inst.args[i], nullable ? plan->elem : NULL, out, depth + 1);
        }
        ct_text_put(out, ">");
        if (!nullable || ep == plan->elem)
            return plan;
        ct_plan copy = *plan;
        copy.elem = ep;
        return ct_pl_new_plan(&copy);
    }
    case CLRSIG_ET_SZARRAY: {
        if (!has_tuple(w, t, depth))
            break;
        int array = plan && plan->kind == CT_V_ARRAY;
        size_t start = out->len;
        const ct_plan *ep = walk_type(w, t->u.elem, array ? plan->elem : NULL, out, depth + 1);
        ct_text_put(out, "[]");
        if (!array || ep == plan->elem || cut(out))
            return plan;
        ct_plan copy = *plan;
        copy.elem = ep;
        copy.type_name = ct_pl_perm_text(out->p + start);
        return ct_pl_new_plan(&copy);
    }
    case CLRSIG_ET_BYREF:
    case CLRSIG_ET_PTR:
    case CLRSIG_ET_ARRAY:
    case CLRSIG_ET_FNPTR:
        if (has_tuple(w, t, depth)) {
            w->bad = 1;
            return plan;
        }
        break;
    default:
        break;
    }
    ct_pl_type_text(w->c, t, text, sizeof text);
    ct_text_put(out, text);
    return plan;
}

int ct_pl_tuple_names(pctx *c, mdToken pd, const clrsig_type *t, char *text, size_t cap,
                      const ct_plan **plan)
{
    IMetaDataImport *mdi = c->m ? c->m->mdi : NULL;
    const void *blob = NULL;
    ULONG len = 0;
    if (!pd || !mdi || !cap ||
        mdi->lpVtbl->GetCustomAttributeByName(mdi, pd, k_names_attribute, &blob, &len) != S_OK ||
        !blob)
        return -1;
    ct_tuple_names *names = malloc(sizeof *names);
    if (!names || ct_tuple_names_parse(blob, len, names) != 0 || !ct_tuple_names_any(names)) {
        free(names);
        return -1;
    }
    char buf[TYPE_TEXT_MAX];
    ct_text out;
    ct_text_init(&out, buf, sizeof buf);
    walk w = {c, names, 0, 0};
    const clrsig_type *s = clrsig_strip(t);
    const ct_plan *p = plan ? *plan : NULL;
    const ct_plan *inner = p;
    if (s->kind == CLRSIG_ET_BYREF) {
        /* The label writes the word (ref, in, out); the plan's target is
         * the one to name. */
        inner = p && p->kind == CT_V_BYREF ? p->elem : NULL;
        s = s->u.elem;
    }
    const ct_plan *named = walk_type(&w, s, inner, &out, 0);
    int ok = !w.bad && !cut(&out) && w.next == names->count;
    free(names);
    if (!ok)
        return -1;
    snprintf(text, cap, "%s", buf);
    if (plan && p && named != inner) {
        if (p->kind == CT_V_BYREF) {
            ct_plan copy = *p;
            copy.elem = named;
            *plan = ct_pl_new_plan(&copy);
        } else {
            *plan = named;
        }
    }
    return 0;
}
