/* Conditions bound to functions (when.h). */
#include "when.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "format/parse.h"
#include "perm.h"
#include "registry.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* This trace's conditions (parsed into permanent memory; a later session
 * parses again into new memory: rewritten code may still name the old). */
static const ct_expr *g_exprs[CT_WHEN_MAX];
static const char *g_texts[CT_WHEN_MAX];
static _Atomic uint32_t g_n;

int ct_when_load(const char *text, char *why, size_t cap)
{
    atomic_store(&g_n, 0);
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
            if (ct_expr_needs_return(e)) {
                snprintf(why, cap, "CLRTRACE_WHEN '%.200s': return and exception are not "
                         "supported yet (conditions decide at entry)", copy);
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

/* Whether argument i of f is an out parameter (its value is the callee's
 * to write: unknown at entry). */
static int arg_is_out(const ct_mapped_fn *f, uint32_t i)
{
    return !strncmp(f->args[i].label, "out ", 4);
}

const ct_when_fn *ct_when_bind(const ct_mapped_fn *f)
{
    uint32_t n = atomic_load(&g_n);
    if (!n || !f->name || !f->args)
        return NULL;
    uint32_t match[CT_WHEN_MAX], k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ct_glob_list_match(g_exprs[i]->glob, f->name))
            match[k++] = i;
    if (!k)
        return NULL;
    ct_when_fn *w = ct_perm_alloc(sizeof *w + k * sizeof w->c[0]);
    if (!w)
        return NULL;
    w->n = k;
    for (uint32_t j = 0; j < k; j++) {
        const ct_expr *e = g_exprs[match[j]];
        ct_when_bound *c = &w->c[j];
        c->expr = e;
        for (uint32_t pi = 0; pi < e->npaths; pi++) {
            const ct_expr_path *p = &e->paths[pi];
            const char *first = ct_expr_seg(e, p, 0);
            uint32_t arg = CT_WHEN_NO_ARG;
            for (uint32_t a = 0; a < f->nargs && a < CT_WHEN_MAX_ARGS; a++) {
                char name[CT_EXPR_MAX_IDENT + 2];
                if (f->args[a].label && ct_when_arg_name(f->args[a].label, name, sizeof name) == 0 &&
                    !strcmp(name, first)) {
                    arg = a;
                    break;
                }
            }
            int missing = arg == CT_WHEN_NO_ARG, out = !missing && arg_is_out(f, arg);
            if (missing || out) {
                arg = CT_WHEN_NO_ARG;
                pthread_mutex_lock(&g_lock);
                if (out)
                    fprintf(stderr, "clrtrace: --when '%s': '%s' is an out parameter of %s (known "
                            "at its return; conditions decide at entry): its calls are not "
                            "recorded\n", g_texts[match[j]], first, f->name);
                else if (p->root == CT_XROOT_THIS)
                    fprintf(stderr, "clrtrace: --when '%s': %s is static (no 'this'): its calls "
                            "are not recorded\n", g_texts[match[j]], f->name);
                else
                    fprintf(stderr, "clrtrace: --when '%s': %s has no parameter '%s': its calls "
                            "are not recorded\n", g_texts[match[j]], f->name, first);
                pthread_mutex_unlock(&g_lock);
            }
            c->paths[pi].arg = arg;
            for (unsigned s = 1; s < p->nseg; s++) {
                const char *name = ct_expr_seg(e, p, s);
                c->paths[pi].seg[s] = !strcmp(name, "Length")  ? CT_WHEN_SEG_LENGTH
                                      : !strcmp(name, "Count") ? CT_WHEN_SEG_COUNT
                                                               : CT_WHEN_SEG_FIELD;
            }
        }
    }
    return w;
}
