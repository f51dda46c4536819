/* Capture plans, part eight: line probes, where they go and what they read
 * (lineprobe.h). */
#include "lineprobe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrmeta/clrmeta.h"
#include "clrsig/clrsig.h"
#include "format/words.h"
#include "agent/model/perm.h"
#include "internal.h"
#include "agent/model/srcline.h"
#include "agent/runtime/state.h"
#include "base/table.h"

/* The --at lines, parsed at the first ask from the settings in force (an
 * attach session's own: ct_lineprobe_forget makes the next ask parse
 * again), and whether each found code in a loaded module. */
static atomic_int g_parsed;
static ct_at_spec g_specs[CT_AT_MAX];
static int g_placed[CT_AT_MAX];
static uint32_t g_nspecs;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_mods; /* {ModuleID, 0} -> modprobes (none: an empty one) */

static void parse_specs(void)
{
    pthread_mutex_lock(&g_lock);
    if (!atomic_load(&g_parsed)) {
        unsigned lines = 0, bad = 0;
        /* (A bad line is left out: the settings were checked as read.) */
        g_nspecs = ct_at_list(g_ct.cfg.at, g_specs, CT_AT_MAX, &lines, &bad);
        memset(g_placed, 0, sizeof g_placed);
        atomic_store(&g_parsed, 1);
    }
    pthread_mutex_unlock(&g_lock);
}

int ct_lineprobe_any(void)
{
    if (!atomic_load_explicit(&g_parsed, memory_order_acquire))
        parse_specs();
    return g_nspecs != 0;
}

void ct_lineprobe_forget(void)
{
    pthread_mutex_lock(&g_lock);
    ct_table_free(&g_mods);
    g_nspecs = 0;
    atomic_store(&g_parsed, 0);
    pthread_mutex_unlock(&g_lock);
}

/* Where the probes of one module go. */
typedef struct placed {
    uint32_t spec;       /* its --at line */
    uint32_t method_rid, il_offset, line;
    uint32_t document;
    mdTypeDef owner;
} placed;
typedef struct modprobes {
    uint32_t n;
    placed p[CT_AT_MAX];
} modprobes;

/* Most methods of a module looked at for a `GLOB:LINE` probe. */
#define LINE_GLOB_METHODS 200000u

/* A `GLOB:LINE` probe being looked for (place_by_method). */
typedef struct glob_walk {
    const clrmeta_pdb *pdb;
    const ct_at_spec *s;
    clrmeta_line_match *out;
    uint32_t seen;
} glob_walk;

static int glob_method(void *ctx, const ct_module *m, mdMethodDef tok)
{
    glob_walk *w = ctx;
    char name[1024];
    if (++w->seen > LINE_GLOB_METHODS)
        return -1;
    return ct_method_full_name(m, tok, name, sizeof name) == 0 &&
           ct_glob_list_match(w->s->file, name) &&
           clrmeta_pdb_find_line_in_method(w->pdb, tok & 0x00FFFFFFu, w->s->line, w->out, NULL) ==
               CLRMETA_OK &&
           w->out->result == CLRMETA_LINE_FOUND;
}

/* Where spec s goes when its FILE is a method glob (`Shop.Cart.Sum:30`,
 * `*.Sum:30`: no document's name ends with it): line LINE of the file of
 * a method of m it matches, in that method (or its state machine's
 * MoveNext). 1 and *out, or 0. */
static int place_by_method(const ct_module *m, const clrmeta_pdb *pdb, const ct_at_spec *s,
                           clrmeta_line_match *out)
{
    if (strchr(s->file, '/') || strchr(s->file, '\\'))
        return 0;
    glob_walk w = {pdb, s, out, 0};
    return ct_module_each_method(m, NULL, glob_method, &w) == 1;
}

/* The module's probes, found on first ask. */
static const modprobes *module_probes(const ct_module *m)
{
    static const modprobes none;
    if (!ct_lineprobe_any() || !m || m->framework)
        return &none;
    ct_key key = {m->id, 0};
    pthread_mutex_lock(&g_lock);
    const modprobes *known = ct_table_get_key(&g_mods, key);
    pthread_mutex_unlock(&g_lock);
    if (known)
        return known;
    modprobes *mp = ct_perm_alloc(sizeof *mp);
    if (!mp)
        return &none;
    memset(mp, 0, sizeof *mp);
    const clrmeta_pdb *pdb = ct_srcline_pdb(m);
    for (uint32_t i = 0; pdb && i < g_nspecs; i++) {
        clrmeta_line_match lm;
        if (clrmeta_pdb_find_line(pdb, g_specs[i].file, g_specs[i].line, &lm, NULL) != CLRMETA_OK)
            continue;
        if (lm.result == CLRMETA_LINE_NO_FILE && !place_by_method(m, pdb, &g_specs[i], &lm))
            continue;
        if (lm.result != CLRMETA_LINE_FOUND)
            continue;
        placed *p = &mp->p[mp->n];
        p->spec = i;
        p->method_rid = lm.method_rid;
        p->il_offset = lm.il_offset;
        p->line = lm.line;
        p->document = lm.document;
        mdTypeDef td = 0;
        WCHAR w[1];
        ULONG wlen = 0, sig_len = 0, rva = 0;
        DWORD attr = 0, impl = 0;
        PCCOR_SIGNATURE sig = NULL;
        if (m->mdi && SUCCEEDED(m->mdi->lpVtbl->GetMethodProps(
                          m->mdi, 0x06000000u | lm.method_rid, &td, w, 1, &wlen, &attr, &sig,
                          &sig_len, &rva, &impl)))
            p->owner = td;
        mp->n++;
    }
    pthread_mutex_lock(&g_lock);
    const modprobes *raced = ct_table_get_key(&g_mods, key);
    if (raced) {
        mp = (modprobes *)raced;
    } else if (ct_table_put_key(&g_mods, key, mp) == 0) {
        for (uint32_t i = 0; i < mp->n; i++)
            g_placed[mp->p[i].spec] = 1;
    }
    pthread_mutex_unlock(&g_lock);
    return mp;
}

int ct_lineprobe_targets(const ct_module *m, mdMethodDef tok)
{
    const modprobes *mp = module_probes(m);
    for (uint32_t i = 0; i < mp->n; i++)
        if (mp->p[i].method_rid == (tok & 0x00FFFFFFu))
            return 1;
    return 0;
}

int ct_lineprobe_in_module(const ct_module *m)
{
    return (int)module_probes(m)->n;
}

int ct_lineprobe_in_type(const ct_module *m, mdTypeDef td)
{
    const modprobes *mp = module_probes(m);
    for (uint32_t i = 0; i < mp->n; i++)
        if (mp->p[i].owner == td)
            return 1;
    return 0;
}

void ct_lineprobe_unplaced(char *out, size_t cap)
{
    size_t used = 0;
    if (!cap)
        return;
    out[0] = '\0';
    if (!ct_lineprobe_any())
        return;
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < g_nspecs; i++) {
        if (g_placed[i])
            continue;
        int k = snprintf(out + used, cap - used,
                         "--at %s:%u: no code found there in the assemblies loaded (their "
                         "Portable PDBs name no such line)\n",
                         g_specs[i].file, g_specs[i].line);
        if (k < 0 || (size_t)k >= cap - used) {
            out[used] = '\0';
            break;
        }
        used += (size_t)k;
    }
    pthread_mutex_unlock(&g_lock);
}

/* ------------------------------------------------------------ planning */

/* The local variable types of method tok (its body's LocalVarSig), parsed
 * into the session's arena, or NULL. */
static const clrsig_sig *method_locals(const ct_module *m, mdMethodDef tok, session *ss,
                                       clrsig_sig *sig)
{
    ICorProfilerInfo *info = g_ct.info;
    const BYTE *hdr = NULL;
    ULONG size = 0;
    PCCOR_SIGNATURE ls = NULL;
    ULONG ls_len = 0;
    if (FAILED(info->lpVtbl->GetILFunctionBody(info, m->id, tok, &hdr, &size)) || !hdr ||
        size < 12 || (hdr[0] & 3) != 3)
        return NULL; /* a tiny header: no locals */
    uint32_t lt = (uint32_t)hdr[8] | (uint32_t)hdr[9] << 8 | (uint32_t)hdr[10] << 16 |
                  (uint32_t)hdr[11] << 24;
    if (!lt || !m->mdi || FAILED(m->mdi->lpVtbl->GetSigFromToken(m->mdi, lt, &ls, &ls_len)) ||
        !ls ||
        clrsig_parse(ls, ls_len, CLRSIG_KIND_LOCALS, NULL, &ss->arena, sig, NULL) != CLRSIG_OK)
        return NULL;
    return sig;
}

/* The name a label ends with: "int total=" -> "total". */
static void label_name(const char *label, char *out, size_t cap)
{
    const char *sp = strrchr(label, ' ');
    const char *name = sp ? sp + 1 : label;
    size_t n = strlen(name);
    if (n && name[n - 1] == '=')
        n--;
    snprintf(out, cap, "%.*s", (int)n, name);
}

/* A probe being built. */
typedef struct builder {
    ct_line_in in[CT_LINE_MAX_VALUES];
    ct_line_value vals[CT_LINE_MAX_VALUES];
    ct_arg args[CT_LINE_MAX_VALUES];
    uint32_t nin, nvals;
} builder;

/* Adds value `name` read as `plan` through input kind/index (offset: a
 * state machine's field, or CT_SM_NO_FIELD); an input already handed over
 * is reused. */
static void add_value(builder *b, const char *name, const ct_plan *plan, uint8_t kind,
                      uint16_t index, uint32_t offset)
{
    if (b->nvals >= CT_LINE_MAX_VALUES)
        return;
    uint32_t in = 0;
    while (in < b->nin && !(b->in[in].kind == kind && b->in[in].index == index))
        in++;
    if (in == b->nin) {
        if (b->nin >= CT_LINE_MAX_VALUES)
            return;
        b->in[b->nin++] = (ct_line_in){kind, index};
    }
    char label[PARAM_NAME_MAX + 2];
    snprintf(label, sizeof label, "%s=", name);
    b->vals[b->nvals] = (ct_line_value){(uint16_t)in, offset};
    b->args[b->nvals].label = ct_pl_perm_text(label);
    b->args[b->nvals].plan = plan ? plan : &ct_plan_by_range;
    b->nvals++;
}

/* The local variables rids[0..n) (LocalVariable rows) of method rid. */
static void add_variables(builder *b, pctx *c, const clrmeta_pdb *pdb, const ct_module *m,
                          uint32_t rid, const uint32_t *rids, uint32_t n, session *ss)
{
    if (!n)
        return;
    clrsig_sig sig;
    const clrsig_sig *types = method_locals(m, 0x06000000u | rid, ss, &sig);
    for (uint32_t i = 0; i < n && i < CT_LINE_MAX_VALUES; i++) {
        clrmeta_local_variable_row lv;
        if (clrmeta_pdb_local_variable(pdb, rids[i], &lv, NULL) != CLRMETA_OK)
            continue;
        if (!types || lv.index >= types->count)
            continue; /* no type: the slot is not read */
        const ct_plan *p = ct_pl_plan_type(c, types->list[lv.index], g_ct.cfg.struct_depth,
                                           CT_MAX_VALUE_DEPTH);
        add_value(b, lv.name, ct_pl_redact(lv.name, p ? p : &ct_plan_by_range), CT_LINE_IN_LOCAL,
                  lv.index, CT_SM_NO_FIELD);
    }
}

/* The locals of method rid in scope at il (temporaries left out). */
static void add_locals(builder *b, pctx *c, const clrmeta_pdb *pdb, const ct_module *m,
                       uint32_t rid, uint32_t il, session *ss)
{
    uint32_t rids[CT_LINE_MAX_VALUES], n = 0;
    if (clrmeta_pdb_locals_at(pdb, rid, il, rids, CT_LINE_MAX_VALUES, &n, NULL) == CLRMETA_OK)
        add_variables(b, c, pdb, m, rid, rids, n < CT_LINE_MAX_VALUES ? n : CT_LINE_MAX_VALUES,
                      ss);
}

/* Every local of method rid in any of its scopes whose slot no other local
 * of it shares (a release build reuses a slot for locals of scopes apart:
 * which one it holds when an exception passes is not known), temporaries
 * left out. */
static void add_all_locals(builder *b, pctx *c, const clrmeta_pdb *pdb, const ct_module *m,
                           uint32_t rid, session *ss)
{
    uint32_t first = 0, count = 0, rids[CT_LINE_MAX_VALUES], n = 0;
    uint16_t slots[CT_LINE_MAX_VALUES];
    int shared[CT_LINE_MAX_VALUES] = {0};
    if (clrmeta_pdb_local_scopes(pdb, rid, &first, &count, NULL) != CLRMETA_OK)
        return;
    for (uint32_t sr = first; sr < first + count && sr >= first; sr++) {
        clrmeta_local_scope sc;
        if (clrmeta_pdb_local_scope(pdb, sr, &sc, NULL) != CLRMETA_OK)
            continue;
        for (uint32_t k = 0; k < sc.variable_count; k++) {
            clrmeta_local_variable_row lv;
            uint32_t vr = sc.first_variable + k;
            if (clrmeta_pdb_local_variable(pdb, vr, &lv, NULL) != CLRMETA_OK ||
                (lv.attributes & CLRMETA_LOCAL_DEBUGGER_HIDDEN))
                continue;
            uint32_t j = 0;
            while (j < n && slots[j] != lv.index)
                j++;
            if (j < n) {
                shared[j] = 1;
            } else if (n < CT_LINE_MAX_VALUES) {
                slots[n] = lv.index;
                rids[n++] = vr;
            }
        }
    }
    uint32_t kept = 0;
    for (uint32_t j = 0; j < n; j++)
        if (!shared[j])
            rids[kept++] = rids[j];
    add_variables(b, c, pdb, m, rid, rids, kept, ss);
}

/* A state machine's hoisted locals in scope at il of its MoveNext rid:
 * fields "<name>5__N" (N: the slot plus one) of the struct plan sp. */
static void add_hoisted(builder *b, const clrmeta_pdb *pdb, uint32_t rid, uint32_t il,
                        const ct_plan *sp)
{
    uint32_t slots[CT_LINE_MAX_VALUES], n = 0;
    if (clrmeta_pdb_hoisted_at(pdb, rid, il, slots, CT_LINE_MAX_VALUES, &n, NULL) != CLRMETA_OK)
        return;
    for (uint32_t i = 0; i < n && i < CT_LINE_MAX_VALUES; i++) {
        char name[PARAM_NAME_MAX];
        for (uint32_t k = 0; k < sp->count; k++) {
            const ct_field *fd = &sp->fields[k];
            if (!clrmeta_hoisted_local_name(fd->name, slots[i], name, sizeof name))
                continue;
            add_value(b, name, ct_pl_redact(name, fd->plan), CT_LINE_IN_SELF, 0, fd->offset);
            break;
        }
    }
}

/* "@ Orders.cs:42": the document's last part and the line. */
static const char *probe_name(const clrmeta_pdb *pdb, uint32_t document, uint32_t line)
{
    char doc[CLRMETA_MAX_DOCUMENT_NAME], name[CLRMETA_MAX_DOCUMENT_NAME + 32];
    if (clrmeta_pdb_document_name(pdb, document, doc, sizeof doc, NULL, NULL) != CLRMETA_OK)
        snprintf(doc, sizeof doc, "?");
    const char *base = strrchr(doc, '/');
    const char *back = strrchr(doc, '\\');
    if (back && (!base || back > base))
        base = back;
    snprintf(name, sizeof name, "@ %s:%u", base ? base + 1 : doc, line);
    return ct_pl_perm_text(name);
}

/* The probe b describes, in permanent memory, into *out (its record named
 * name, shown as display; kind: 1 a line probe, 2 a locals record): 0, or
 * -1 out of memory. */
static int made_probe(const builder *b, const char *name, const char *display, int kind,
                      ct_line_probe *out)
{
    ct_mapped_fn *pf = ct_perm_alloc(sizeof *pf);
    ct_arg *args = ct_perm_alloc((b->nvals ? b->nvals : 1) * sizeof *args);
    ct_line_in *in = ct_perm_alloc((b->nin ? b->nin : 1) * sizeof *in);
    ct_line_value *vals = ct_perm_alloc((b->nvals ? b->nvals : 1) * sizeof *vals);
    if (!pf || !args || !in || !vals)
        return -1;
    memset(pf, 0, sizeof *pf);
    memcpy(args, b->args, b->nvals * sizeof *args);
    memcpy(in, b->in, b->nin * sizeof *in);
    memcpy(vals, b->vals, b->nvals * sizeof *vals);
    pf->name = name;
    pf->display = display;
    pf->hooked = 1;
    pf->line_probe = kind;
    pf->values = 1;
    pf->nargs = b->nvals;
    pf->args = args;
    pf->ret_label = "";
    if (kind == 1)
        pf->when = ct_when_bind(pf, 0);
    memset(out, 0, sizeof *out);
    out->fn = pf;
    out->nin = b->nin;
    out->in = in;
    out->vals = vals;
    return 0;
}

/* `this` and the arguments of f (not a state machine's MoveNext). */
static void add_arguments(builder *b, const ct_mapped_fn *f)
{
    char name[PARAM_NAME_MAX];
    for (uint32_t i = 0; i < f->nargs; i++) {
        label_name(f->args[i].label, name, sizeof name);
        int self = i == 0 && ct_fn_has_this(f);
        add_value(b, name, ct_arg_plan(f, i), self ? CT_LINE_IN_SELF : CT_LINE_IN_ARG,
                  (uint16_t)i, CT_SM_NO_FIELD);
    }
}

/* One probe of f at p. */
static int plan_one(const ct_mapped_fn *f, const ct_method_info *mi, const clrmeta_pdb *pdb,
                    const placed *p, ct_line_probe *out)
{
    builder *b = calloc(1, sizeof *b);
    session ss = {0};
    pctx *c = b ? ct_pl_open(&ss, mi, 1) : NULL;
    int rc = -1;
    if (!c)
        goto done;
    char name[PARAM_NAME_MAX];
    if (f->sm_offsets) {
        /* MoveNext: the method's `this` and parameters (fields of the state
         * machine; not its state), then the hoisted locals in scope. */
        for (uint32_t i = 0; i + 1 < f->nargs; i++) {
            if (f->sm_offsets[i] == CT_SM_NO_FIELD)
                continue;
            label_name(f->args[i].label, name, sizeof name);
            add_value(b, name, ct_arg_plan(f, i), CT_LINE_IN_SELF, 0, f->sm_offsets[i]);
        }
        char tname[TYPE_TEXT_MAX];
        ct_classid_name(mi->cls, CT_NAME_SHORT, tname, sizeof tname);
        const ct_plan *sp = mi->cls ? ct_pl_plan_struct(c, mi->cls, mi->module, mi->owner,
                                                        mi->class_args, mi->nclass_args, tname,
                                                        g_ct.cfg.struct_depth + 1,
                                                        CT_MAX_VALUE_DEPTH)
                                    : NULL;
        if (sp && sp->kind == CT_V_STRUCT)
            add_hoisted(b, pdb, p->method_rid, p->il_offset, sp);
    } else {
        add_arguments(b, f);
    }
    add_locals(b, c, pdb, mi->module, p->method_rid, p->il_offset, &ss);

    /* Named as --at gave it (--when 'Orders.cs:41: total > 100' binds to
     * it), shown with the line chosen. */
    char spec[CT_AT_MAX_FILE + 16];
    snprintf(spec, sizeof spec, "%s:%u", g_specs[p->spec].file, g_specs[p->spec].line);
    if (made_probe(b, ct_pl_perm_text(spec), probe_name(pdb, p->document, p->line), 1, out) != 0)
        goto done;
    out->il_offset = p->il_offset;
    out->line = p->line;
    rc = 0;
done:
    if (c || ss.mem)
        ct_pl_close(&ss, c);
    free(b);
    return rc;
}

const ct_line_probes *ct_lineprobe_plan(const ct_mapped_fn *f, const ct_method_info *mi)
{
    if (!ct_lineprobe_any() || !f->values || f->generic || f->late || f->rt_async ||
        g_ct.cfg.no_args)
        return NULL;
    const modprobes *mp = module_probes(mi->module);
    const clrmeta_pdb *pdb = ct_srcline_pdb(mi->module);
    ct_line_probe got[CT_LINE_MAX_PER_METHOD];
    uint32_t n = 0;
    for (uint32_t i = 0; pdb && i < mp->n && n < CT_LINE_MAX_PER_METHOD; i++)
        if (mp->p[i].method_rid == (mi->token & 0x00FFFFFFu) &&
            plan_one(f, mi, pdb, &mp->p[i], &got[n]) == 0)
            n++;
    if (!n)
        return NULL;
    ct_line_probes *lp = ct_perm_alloc(sizeof *lp);
    ct_line_probe *arr = ct_perm_alloc(n * sizeof *arr);
    if (!lp || !arr)
        return NULL;
    memcpy(arr, got, n * sizeof *arr);
    lp->n = n;
    lp->p = arr;
    return lp;
}

const ct_line_probe *ct_lineprobe_locals_plan(const ct_mapped_fn *f, const ct_method_info *mi)
{
    if (!g_ct.cfg.locals || g_ct.cfg.no_args || !f->values || f->generic || f->late ||
        f->rt_async || f->sm_offsets || f->line_probe)
        return NULL;
    const clrmeta_pdb *pdb = ct_srcline_pdb(mi->module);
    builder *b = calloc(1, sizeof *b);
    session ss = {0};
    pctx *c = b ? ct_pl_open(&ss, mi, 1) : NULL;
    ct_line_probe *out = NULL;
    if (!c)
        goto done;
    add_arguments(b, f);
    if (pdb)
        add_all_locals(b, c, pdb, mi->module, mi->token & 0x00FFFFFFu, &ss);
    ct_line_probe *lp = ct_perm_alloc(sizeof *lp);
    char name[DISPLAY_MAX + 16];
    snprintf(name, sizeof name, "locals of %s", f->display ? f->display : "?");
    const char *text = ct_pl_perm_text(name);
    if (lp && made_probe(b, text, text, 2, lp) == 0) {
        lp->fn->def = f; /* the frame's function (its LOCALS records name it) */
        out = lp;
    }
done:
    if (c || ss.mem)
        ct_pl_close(&ss, c);
    free(b);
    return out;
}
