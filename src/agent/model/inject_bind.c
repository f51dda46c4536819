/* Fault injection's specs and their binding (inject_bind.h). */
#include "inject_bind.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "perm.h"
#include "registry.h"
#include "agent/runtime/notes.h"
#include "format/words.h"

static ct_inject_spec g_specs[CT_INJECT_MAX];
static _Atomic uint32_t g_n;
static uint64_t g_seed;

int ct_inject_load(const char *text, uint64_t seed, int seed_given, char *why, size_t cap)
{
    atomic_store(&g_n, 0);
    uint32_t n = 0;
    int probability = 0;
    for (const char *p = text ? text : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len) {
            char one[CT_EXPR_MAX_TEXT + 1];
            ct_expr_error err;
            if (n >= CT_INJECT_MAX || len > CT_EXPR_MAX_TEXT) {
                snprintf(why, cap, "CLRTRACE_INJECT has more than %u lines or a line longer "
                         "than %u bytes", CT_INJECT_MAX, CT_EXPR_MAX_TEXT);
                return -1;
            }
            memcpy(one, p, len);
            one[len] = '\0';
            if (ct_inject_parse(one, &g_specs[n], &err) != 0) {
                snprintf(why, cap, "CLRTRACE_INJECT '%.200s': %s", one, err.message);
                return -1;
            }
            probability |= g_specs[n].probability != 0;
            n++;
        }
        p += len + (nl ? 1 : 0);
    }
    if (!seed_given) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        /* (at most INT64_MAX: --inject-seed's bound) */
        seed = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) & INT64_MAX;
        if (probability)
            ct_notes_say(ct_when_notes_of(), "--inject: probability's seed is %llu "
                         "(--inject-seed %llu chooses the same calls again)",
                         (unsigned long long)seed, (unsigned long long)seed);
    }
    g_seed = seed;
    atomic_store(&g_n, n);
    return 0;
}

uint32_t ct_inject_count(void)
{
    return atomic_load(&g_n);
}

const ct_inject_spec *ct_inject_spec_at(uint32_t i)
{
    return i < atomic_load(&g_n) ? &g_specs[i] : NULL;
}

uint64_t ct_inject_seed(void)
{
    return g_seed;
}

int ct_inject_targets(const char *name)
{
    uint32_t n = atomic_load(&g_n);
    for (uint32_t i = 0; i < n; i++)
        if (ct_glob_list_match(g_specs[i].glob, name))
            return 1;
    return 0;
}

int ct_inject_in_type(const char *type)
{
    uint32_t n = atomic_load(&g_n);
    for (uint32_t i = 0; i < n; i++)
        if (ct_glob_list_may_extend(g_specs[i].glob, type))
            return 1;
    return 0;
}

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), e = strlen(end);
    return n >= e && !strcmp(s + n - e, end);
}

/* Why f cannot be injected, or NULL. */
static const char *cannot(const ct_mapped_fn *f)
{
    if (ends_with(f->name, ".ctor") || ends_with(f->name, ".cctor"))
        return "a constructor is not injected";
    if (f->generic)
        return "generic code is not injected (its IL serves every instantiation)";
    if (f->rt_async)
        return "a runtime-async method is not injected";
    return NULL;
}

const ct_inject_fn *ct_inject_bind(const ct_mapped_fn *f)
{
    uint32_t n = atomic_load(&g_n), match[CT_INJECT_MAX], k = 0;
    if (!n || !f->name)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        if (ct_glob_list_match(g_specs[i].glob, f->name))
            match[k++] = i;
    if (!k || f->sm_offsets || f->line_probe)
        return NULL;
    const char *no = cannot(f);
    if (no) {
        ct_notes_say(ct_when_notes_of(), "--inject '%s': %s: %s", g_specs[match[0]].text,
                     f->name, no);
        return NULL;
    }
    ct_inject_fn *w = ct_perm_alloc(sizeof *w + k * sizeof w->b[0]);
    if (!w)
        return NULL;
    w->n = k;
    for (uint32_t j = 0; j < k; j++) {
        ct_inject_bound *b = &w->b[j];
        b->spec = &g_specs[match[j]];
        b->index = match[j];
        atomic_store(&b->calls, 0);
        atomic_store(&b->off, 0);
        if (b->spec->has_when)
            ct_when_bind_one(f, "--inject", b->spec->text, &b->spec->when, CT_WHEN_NO_INDEX, 0,
                             &b->when);
    }
    return w;
}
