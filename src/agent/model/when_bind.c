/* Conditions bound to functions (when_bind.h). */
#include "when_bind.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent/runtime/notes.h"
#include "format/words.h"
#include "agent/runtime/state.h"
#include "perm.h"
#include "registry.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Under attach the process's stderr is its own: the binding's notes are
 * kept for the CLI instead (ct_when_notes). */
static ct_notes g_notes = CT_NOTES_INIT;

/* One note about a condition or a chosen value that cannot be bound. */
#define note(...) ct_notes_say(&g_notes, __VA_ARGS__)

ct_notes *ct_when_notes_of(void)
{
    return &g_notes;
}

void ct_when_keep_notes(int keep)
{
    ct_notes_keep(&g_notes, keep);
}

void ct_when_notes(char *out, size_t cap)
{
    ct_notes_copy(&g_notes, out, cap);
}
static void path_text(const ct_expr *e, const ct_expr_path *p, char *out, size_t cap);

/* This trace's conditions (parsed into permanent memory; a later session
 * parses again into new memory: rewritten code may still name the old). */
static const ct_expr *g_exprs[CT_WHEN_MAX];
static const char *g_texts[CT_WHEN_MAX];
static _Atomic uint32_t g_n;

/* Calls at which each path of each condition could not be read. */
static _Atomic unsigned long g_unreadable[CT_WHEN_MAX][CT_EXPR_MAX_PATHS];

void ct_when_unreadable(uint32_t index, uint32_t path)
{
    if (index < CT_WHEN_MAX && path < CT_EXPR_MAX_PATHS)
        atomic_fetch_add_explicit(&g_unreadable[index][path], 1, memory_order_relaxed);
}

void ct_when_tell_unreadable(void)
{
    uint32_t n = atomic_load(&g_n);
    for (uint32_t i = 0; i < n && i < CT_WHEN_MAX; i++)
        for (uint32_t pi = 0; pi < g_exprs[i]->npaths && pi < CT_EXPR_MAX_PATHS; pi++) {
            unsigned long k = atomic_exchange(&g_unreadable[i][pi], 0);
            if (!k)
                continue;
            char path[CT_EXPR_MAX_TEXT + 1];
            path_text(g_exprs[i], &g_exprs[i]->paths[pi], path, sizeof path);
            pthread_mutex_lock(&g_lock);
            note("--when '%s': %s could not be read in %lu call%s (a field its object does not "
                 "have, a value of a type it cannot compare): %s not recorded",
                 g_texts[i], path, k, k == 1 ? "" : "s", k == 1 ? "it was" : "they were");
            pthread_mutex_unlock(&g_lock);
        }
}

int ct_when_load(const char *text, char *why, size_t cap)
{
    atomic_store(&g_n, 0);
    for (uint32_t i = 0; i < CT_WHEN_MAX; i++)
        for (uint32_t pi = 0; pi < CT_EXPR_MAX_PATHS; pi++)
            atomic_store(&g_unreadable[i][pi], 0);
    if (!text || !*text)
        return 0;
    uint32_t n = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len) {
            if (n >= CT_WHEN_MAX) {
                snprintf(why, cap, "CLRTRACE_WHEN has more than %u conditions", CT_WHEN_MAX);
                return -1;
            }
            if (len > CT_EXPR_MAX_TEXT) {
                snprintf(why, cap, "a CLRTRACE_WHEN condition is longer than %u bytes",
                         CT_EXPR_MAX_TEXT);
                return -1;
            }
            char *copy = ct_perm_alloc(len + 1);
            ct_expr *e = ct_perm_alloc(sizeof *e);
            if (!copy || !e) {
                snprintf(why, cap, "out of memory for CLRTRACE_WHEN");
                return -1;
            }
            memcpy(copy, p, len);
            ct_expr_error err;
            if (ct_expr_parse(copy, e, &err) != 0) {
                snprintf(why, cap, "CLRTRACE_WHEN '%.200s': %s", copy, err.message);
                return -1;
            }
            g_exprs[n] = e;
            g_texts[n] = copy;
            n++;
        }
        p += len + (nl ? 1 : 0);
    }
    atomic_store(&g_n, n);
    return 0;
}

int ct_when_may_decide_at_end(void)
{
    uint32_t n = atomic_load(&g_n);
    for (uint32_t i = 0; i < n; i++) {
        if (ct_expr_needs_return(g_exprs[i]))
            return 1;
        for (uint32_t pi = 0; pi < g_exprs[i]->npaths; pi++)
            if (g_exprs[i]->paths[pi].root == CT_XROOT_PARAM)
                return 1; /* an out parameter's, perhaps */
    }
    return 0;
}

int ct_when_at_end(uint64_t key)
{
    const ct_mapped_fn *f = (const ct_mapped_fn *)(uintptr_t)key;
    return f && f->when_end != NULL;
}

int ct_when_arg_name(const char *label, char *out, size_t cap)
{
    size_t len = strlen(label);
    if (!len || label[len - 1] != '=')
        return -1;
    len--;
    size_t start = len;
    while (start > 0 && label[start - 1] != ' ')
        start--;
    if (start == len || len - start >= cap)
        return -1;
    memcpy(out, label + start, len - start);
    out[len - start] = '\0';
    return 0;
}

/* The index of f's argument named `name` ("this" included), or
 * CT_WHEN_NO_ARG. */
static uint32_t arg_named(const ct_mapped_fn *f, const char *name)
{
    for (uint32_t a = 0; a < f->nargs && a < CT_WHEN_MAX_ARGS; a++) {
        char have[CT_EXPR_MAX_IDENT + 2];
        if (f->args[a].label && ct_when_arg_name(f->args[a].label, have, sizeof have) == 0 &&
            !strcmp(have, name))
            return a;
    }
    return CT_WHEN_NO_ARG;
}

/* Whether argument i of f is an out parameter (its value is the callee's
 * to write: unknown at entry). */
static int arg_is_out(const ct_mapped_fn *f, uint32_t i)
{
    return !strncmp(f->args[i].label, "out ", 4);
}

/* Whether the parameter of f (ctx) named name is an out parameter
 * (ct_expr_decides_at_end). */
static int out_param(void *ctx, const char *name)
{
    const ct_mapped_fn *f = ctx;
    uint32_t arg = arg_named(f, name);
    return arg != CT_WHEN_NO_ARG && arg_is_out(f, arg);
}

/* What a condition of option opt that cannot hold means. */
static const char *fails(const char *opt)
{
    return !strcmp(opt, "--when") ? "its calls are not recorded" : "its calls are not injected";
}

/* Where path p of condition `text` starts in f's arguments, for a
 * condition deciding at entry or (at_end) at the call's end; a path f
 * cannot give is told once and reads unknown (CT_WHEN_NO_ARG). */
static uint32_t bind_root(const ct_mapped_fn *f, const char *opt, const char *text,
                          const ct_expr *e, const ct_expr_path *p, int at_end)
{
    const char *first = ct_expr_seg(e, p, 0);
    if (p->root == CT_XROOT_EXCEPTION)
        return CT_WHEN_EXC_ARG;
    if (p->root == CT_XROOT_RETURN) {
        if (f->has_ret)
            return CT_WHEN_RET_ARG;
        pthread_mutex_lock(&g_lock);
        note("%s '%s': %s returns nothing: %s", opt, text, f->name,
             fails(opt));
        pthread_mutex_unlock(&g_lock);
        return CT_WHEN_NO_ARG;
    }
    uint32_t arg = arg_named(f, first);
    if (arg != CT_WHEN_NO_ARG && (!at_end || (arg < 64 && (f->out_mask >> arg & 1))))
        return arg;
    pthread_mutex_lock(&g_lock);
    if (arg != CT_WHEN_NO_ARG)
        note("%s '%s': '%s' of %s is read at the call's entry and the condition decides at "
             "its end (it names return, exception or an out parameter): %s",
             opt, text, first, f->name, fails(opt));
    else if (p->root == CT_XROOT_THIS)
        note("%s '%s': %s is static (no 'this'): %s", opt, text, f->name,
             fails(opt));
    else
        note("%s '%s': %s has no parameter '%s': %s", opt, text, f->name,
             first, fails(opt));
    pthread_mutex_unlock(&g_lock);
    return CT_WHEN_NO_ARG;
}

const ct_when_fn *ct_when_bind(const ct_mapped_fn *f, int at_end)
{
    uint32_t n = atomic_load(&g_n);
    if (!n || !f->name || (!f->args && f->nargs))
        return NULL;
    uint32_t match[CT_WHEN_MAX], k = 0;
    for (uint32_t i = 0; i < n; i++)
        if ((f->line_probe ? fnmatch(g_exprs[i]->glob, f->name, 0) == 0
                           : ct_glob_list_match(g_exprs[i]->glob, f->name)) &&
            ct_expr_decides_at_end(g_exprs[i], out_param, (void *)f) == !!at_end)
            match[k++] = i;
    if (!k)
        return NULL;
    ct_when_fn *w = ct_perm_alloc(sizeof *w + k * sizeof w->c[0]);
    if (!w)
        return NULL;
    w->n = k;
    for (uint32_t j = 0; j < k; j++)
        ct_when_bind_one(f, "--when", g_texts[match[j]], g_exprs[match[j]], match[j], at_end,
                         &w->c[j]);
    return w;
}

void ct_when_bind_one(const ct_mapped_fn *f, const char *opt, const char *text, const ct_expr *e,
                      uint32_t index, int at_end, ct_when_bound *c)
{
    c->expr = e;
    c->index = index;
    for (uint32_t pi = 0; pi < e->npaths; pi++) {
        const ct_expr_path *p = &e->paths[pi];
        c->paths[pi].arg = bind_root(f, opt, text, e, p, at_end);
        for (unsigned s = 1; s < p->nseg && s < CT_EXPR_MAX_SEGMENTS; s++) {
            const char *name = ct_expr_seg(e, p, s);
            c->paths[pi].seg[s] = !strcmp(name, "Length")  ? CT_WHEN_SEG_LENGTH
                                  : !strcmp(name, "Count") ? CT_WHEN_SEG_COUNT
                                                           : CT_WHEN_SEG_FIELD;
        }
    }
}

/* ------------------------------------------------------- chosen values */

static const ct_plan chosen_object_plan = {.kind = CT_V_OBJECT, .size = 8, .type_name = CT_CHOSEN_TYPE_NAME};
/* A value read along a path whose name says it is a secret. */
static const ct_plan chosen_redacted_plan = {.kind = CT_V_REDACTED, .size = 8, .type_name = "object"};

static const ct_expr *g_chosen[2][CT_CHOSEN_MAX];
static const char *g_chosen_texts[2][CT_CHOSEN_MAX];
static _Atomic uint32_t g_nchosen[2];

static int chosen_load_one(int ret, const char *text, char *why, size_t cap)
{
    const char *var = ret ? "CLRTRACE_RET_CHOSEN" : "CLRTRACE_ARGS_CHOSEN";
    atomic_store(&g_nchosen[ret], 0);
    uint32_t n = 0;
    for (const char *p = text ? text : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len) {
            if (n >= CT_CHOSEN_MAX || len > CT_EXPR_MAX_TEXT) {
                snprintf(why, cap, "%s has more than %u lines or a line longer than %u bytes",
                         var, CT_CHOSEN_MAX, CT_EXPR_MAX_TEXT);
                return -1;
            }
            char *copy = ct_perm_alloc(len + 1);
            ct_expr *e = ct_perm_alloc(sizeof *e);
            if (!copy || !e) {
                snprintf(why, cap, "out of memory for %s", var);
                return -1;
            }
            memcpy(copy, p, len);
            ct_expr_error err;
            if (ct_chosen_parse(copy, ret, e, &err) != 0) {
                snprintf(why, cap, "%s '%.200s': %s", var, copy, err.message);
                return -1;
            }
            g_chosen[ret][n] = e;
            g_chosen_texts[ret][n] = copy;
            n++;
        }
        p += len + (nl ? 1 : 0);
    }
    atomic_store(&g_nchosen[ret], n);
    return 0;
}

int ct_chosen_load(const char *args, const char *rets, char *why, size_t cap)
{
    return chosen_load_one(0, args, why, cap) != 0 || chosen_load_one(1, rets, why, cap) != 0
               ? -1
               : 0;
}

/* The path's text as written: "order.Customer.Name". */
static void path_text(const ct_expr *e, const ct_expr_path *p, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (unsigned s = 0; s < p->nseg && len < cap; s++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", s ? "." : "", ct_expr_seg(e, p, s));
}

const ct_chosen_fn *ct_chosen_bind(const ct_mapped_fn *f, int ret)
{
    uint32_t n = atomic_load(&g_nchosen[ret]);
    if (!n || !f->name || !f->values || (ret && !f->has_ret) || (!ret && !f->args))
        return NULL;
    uint32_t k = 0;
    while (k < n && !ct_glob_list_match(g_chosen[ret][k]->glob, f->name))
        k++;
    if (k == n)
        return NULL;
    const ct_expr *e = g_chosen[ret][k];
    ct_chosen_fn *c = ct_perm_alloc(sizeof *c);
    const char **labels = ct_perm_alloc(e->npaths * sizeof *labels + 1);
    const ct_plan **plans = ct_perm_alloc(e->npaths * sizeof *plans + 1);
    if (!c || !labels || !plans)
        return NULL;
    c->n = e->npaths;
    c->labels = labels;
    c->plans = plans;
    c->b.expr = e;
    for (uint32_t pi = 0; pi < e->npaths; pi++) {
        const ct_expr_path *p = &e->paths[pi];
        ct_when_path *wp = &c->b.paths[pi];
        char text[CT_EXPR_MAX_TEXT + 2];
        path_text(e, p, text, sizeof text - 1);
        size_t tl = strlen(text);
        text[tl] = '=';
        text[tl + 1] = '\0';
        char *label = ct_perm_alloc(strlen(text) + 1);
        if (!label)
            return NULL;
        memcpy(label, text, strlen(text) + 1);
        labels[pi] = label;
        uint32_t arg = CT_WHEN_NO_ARG;
        if (ret) {
            arg = 0; /* the return value, the one value collected at return */
        } else {
            arg = arg_named(f, ct_expr_seg(e, p, 0));
            if (arg == CT_WHEN_NO_ARG) {
                pthread_mutex_lock(&g_lock);
                note("-A '%s': %s has no %s: the value reads <unavailable>",
                     g_chosen_texts[ret][k], f->name,
                     p->root == CT_XROOT_THIS ? "'this' (static)" : "such parameter");
                pthread_mutex_unlock(&g_lock);
            }
        }
        wp->arg = arg;
        const ct_plan *own = arg == CT_WHEN_NO_ARG ? NULL
                             : ret                 ? f->ret
                                                   : f->args[arg].plan;
        const ct_plan *secret = NULL;
        for (unsigned s = 1; s < p->nseg && s < CT_EXPR_MAX_SEGMENTS; s++) {
            const char *name = ct_expr_seg(e, p, s);
            wp->seg[s] = !strcmp(name, "Length")  ? CT_WHEN_SEG_LENGTH
                         : !strcmp(name, "Count") ? CT_WHEN_SEG_COUNT
                                                  : CT_WHEN_SEG_FIELD;
            if (!secret && g_ct.cfg.redact && ct_secret_name(name, g_ct.cfg.redact_names))
                secret = &chosen_redacted_plan;
        }
        if (p->nseg == 1 && own) {
            plans[pi] = own; /* the value itself, as without -A (redacted if it is a secret) */
            c->read[pi] = 0;
        } else if (secret || (own && own->kind == CT_V_REDACTED)) {
            /* A secret, or in one: nothing of it is read. */
            plans[pi] = secret ? secret : own;
            c->read[pi] = 0;
        } else {
            plans[pi] = &chosen_object_plan;
            c->read[pi] = 1;
        }
    }
    return c;
}
