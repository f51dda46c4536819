#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "format/words.h"
#include "views/treefilter.h"

/* One variable through the settings table: *num its value (the default when
 * unset or empty), *str its text (NULL when unset or empty). */
static int get(ct_setting_id id, ct_config_lookup lookup, void *ctx, uint64_t *num,
               const char **str, char *why, size_t cap)
{
    const ct_setting *s = &ct_settings[id];
    const char *v = lookup(ctx, s->env);
    *num = s->dflt;
    *str = NULL;
    if (!v || !*v)
        return 0;
    char want[CT_SETTING_WANT_MAX];
    if (ct_setting_parse(id, v, 0, num, want, sizeof want) != 0) {
        /* A pattern list can be long: named, not repeated. */
        if (s->kind == CT_KIND_GLOBS || s->kind == CT_KIND_WHEN || s->kind == CT_KIND_AT ||
            s->kind == CT_KIND_INJECT)
            snprintf(why, cap, "%s is not valid (use %s)", s->env, want);
        else
            snprintf(why, cap, "%s=%s is not valid (use %s)", s->env, v, want);
        return -1;
    }
    *str = v;
    return 0;
}

static const char *from_env(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

int ct_config_from_env(ct_config *c, char *why, size_t cap)
{
    return ct_config_from(c, from_env, NULL, why, cap);
}

int ct_config_from(ct_config *c, ct_config_lookup lookup, void *ctx, char *why, size_t cap)
{
    uint64_t v[CT_SETTING_COUNT];
    const char *str[CT_SETTING_COUNT];
    for (int i = 0; i < CT_SETTING_COUNT; i++)
        if (get((ct_setting_id)i, lookup, ctx, &v[i], &str[i], why, cap) != 0)
            return -1;
    c->output_path = str[CT_SET_OUTPUT];
    c->trace_path = str[CT_SET_TRACE];
    c->index_path = str[CT_SET_INDEX];
    c->trace_all = (int)v[CT_SET_ALL];
    c->lossy = (int)v[CT_SET_LOSSY];
    c->no_args = (int)v[CT_SET_NO_ARGS];
    c->bench_naive = (int)v[CT_SET_BENCH_NAIVE];
    c->null_mode = (ct_null_mode)v[CT_SET_NULL];
    c->buffer_kb = (uint32_t)v[CT_SET_BUFFER_KB];
    c->allow_inlining = (int)v[CT_SET_INLINING];
    c->signatures = (int)v[CT_SET_SIGNATURES];
    c->summary = (int)v[CT_SET_SUMMARY];
    c->follow = (int)v[CT_SET_FOLLOW];
    /* (--inject: the IL engine, whatever auto would choose.) */
    c->il_engine = v[CT_SET_ENGINE] == CT_ENGINE_AUTO
                       ? str[CT_SET_INJECT] ||
                             (!v[CT_SET_ALL] && v[CT_SET_NULL] == CT_NULL_OFF &&
                              !v[CT_SET_BENCH_NAIVE])
                       : v[CT_SET_ENGINE] == CT_ENGINE_IL;
    if (str[CT_SET_INJECT] && !c->il_engine) {
        snprintf(why, cap, "CLRTRACE_INJECT needs the IL engine (not CLRTRACE_ENGINE=elt)");
        return -1;
    }
    c->compress = (int)v[CT_SET_COMPRESS];
    c->max_size = v[CT_SET_MAX_SIZE];
    c->ids = (int)v[CT_SET_IDS];
    c->srcline = (int)v[CT_SET_SRCLINE];
    c->launcher_pid = (uint32_t)v[CT_SET_LAUNCHER_PID];
    c->string_chars = (uint32_t)v[CT_SET_STRING_CHARS];
    c->array_items = (uint32_t)v[CT_SET_ARRAY_ITEMS];
    c->struct_depth = (uint32_t)v[CT_SET_STRUCT_DEPTH];
    c->object_depth = (uint32_t)v[CT_SET_OBJECT_DEPTH];
    c->object_fields = (uint32_t)v[CT_SET_OBJECT_FIELDS];
    c->value_bytes = (uint32_t)v[CT_SET_VALUE_BYTES];
    c->redact = (int)v[CT_SET_REDACT];
    c->max_overhead = (uint32_t)v[CT_SET_MAX_OVERHEAD];
    c->limit = v[CT_SET_LIMIT];
    c->rate = v[CT_SET_RATE];
    /* A budget drops rather than waits (counted): waiting would be the
     * tracer's time too. */
    if (c->max_overhead)
        c->lossy = 1;
    c->redact_names = str[CT_SET_REDACT_NAMES];
    c->include = str[CT_SET_INCLUDE];
    c->exclude = str[CT_SET_EXCLUDE];
    c->assembly = str[CT_SET_ASSEMBLY];
    c->when = str[CT_SET_WHEN];
    c->at = str[CT_SET_AT];
    c->inject = str[CT_SET_INJECT];
    c->inject_seed = v[CT_SET_INJECT_SEED];
    c->inject_seed_given = str[CT_SET_INJECT_SEED] != NULL;
    c->inject_checked = (int)v[CT_SET_INJECT_CHECKED];
    c->locals = (int)v[CT_SET_LOCALS];
    c->args_chosen = str[CT_SET_ARGS_CHOSEN];
    c->ret_chosen = str[CT_SET_RET_CHOSEN];
    c->tree.trigger = str[CT_SET_TRIGGER];
    c->tree.depth = (uint32_t)v[CT_SET_DEPTH];
    c->tree.min_time_ns = v[CT_SET_MIN_TIME];
    c->tree.after = v[CT_SET_AFTER];
    c->tree.failed = (int)v[CT_SET_FAILED];
    if (c->bench_naive && c->no_args) {
        snprintf(why, cap, "CLRTRACE_BENCH_NAIVE=1 needs argument capture (not CLRTRACE_NO_ARGS=1)");
        return -1;
    }
    return 0;
}

int ct_config_traces(const ct_config *c, const char *full_name, const char *assembly,
                     int by_default)
{
    ct_name_rules r = {c->include, c->exclude, c->assembly, c->tree.trigger};
    return ct_name_rules_pass(&r, full_name, assembly, by_default);
}
