#include "config.h"

#include <fnmatch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clrtrace/filter.h"
#include "clrtrace/value.h"
#include "tbuf.h"

/* CLRTRACE_NULL: off, slow (1) or fast. */
static int env_null(ct_null_mode *out, char *why, size_t cap)
{
    const char *v = getenv("CLRTRACE_NULL");
    *out = CT_NULL_OFF;
    if (!v || !*v || !strcasecmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
        !strcasecmp(v, "off"))
        return 0;
    if (!strcasecmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
        !strcasecmp(v, "on") || !strcasecmp(v, "slow")) {
        *out = CT_NULL_SLOW;
        return 0;
    }
    if (!strcasecmp(v, "fast")) {
        *out = CT_NULL_FAST;
        return 0;
    }
    snprintf(why, cap, "CLRTRACE_NULL=%s is not valid (use 0, 1, slow or fast)", v);
    return -1;
}

/* A flag: unset or empty gives dflt; 1/yes/true/on and 0/no/false/off (any
 * case); anything else is an error. */
static int env_flag(const char *name, int dflt, int *out, char *why, size_t cap)
{
    const char *v = getenv(name);
    *out = dflt;
    if (!v || !*v)
        return 0;
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (!strcasecmp(v, yes[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(v, no[i])) {
            *out = 0;
            return 0;
        }
    }
    snprintf(why, cap, "%s=%s is not valid (use 1 or 0)", name, v);
    return -1;
}

/* A whole number of at most max: decimal digits only, no sign, no spaces;
 * -1 for anything else. */
static int parse_whole(const char *v, uint64_t max, uint64_t *out)
{
    uint64_t n = 0;
    if (!*v)
        return -1;
    for (const char *p = v; *p; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (*p < '0' || *p > '9' || d > max || n > (max - d) / 10)
            return -1;
        n = n * 10 + d;
    }
    *out = n;
    return 0;
}

/* A whole number in [min, max]. */
static int env_range(const char *name, uint32_t dflt, uint32_t min, uint32_t max, uint32_t *out,
                     char *why, size_t cap)
{
    const char *v = getenv(name);
    *out = dflt;
    if (!v || !*v)
        return 0;
    uint64_t n = 0;
    if (parse_whole(v, max, &n) != 0 || n < min) {
        snprintf(why, cap, "%s=%s is not valid (use a whole number from %u to %u)", name, v,
                 (unsigned)min, (unsigned)max);
        return -1;
    }
    *out = (uint32_t)n;
    return 0;
}

static int env_count(const char *name, uint32_t dflt, uint32_t max, uint32_t *out, char *why,
                     size_t cap)
{
    return env_range(name, dflt, 0, max, out, why, cap);
}

/* A ':'-separated glob list; NULL when unset or empty. */
static int env_globs(const char *name, const char **out, char *why, size_t cap)
{
    const char *v = getenv(name);
    *out = (v && *v) ? v : NULL;
    if (*out && strlen(*out) >= CT_FILTER_MAX_GLOBS_TEXT) {
        snprintf(why, cap, "%s is longer than %u characters", name,
                 CT_FILTER_MAX_GLOBS_TEXT - 1);
        return -1;
    }
    return 0;
}

/* A whole number below 2^63; 0 when unset. */
static int env_u64(const char *name, uint64_t *out, char *why, size_t cap)
{
    const char *v = getenv(name);
    *out = 0;
    if (!v || !*v)
        return 0;
    if (parse_whole(v, UINT64_MAX >> 1, out) != 0) {
        snprintf(why, cap, "%s=%s is not valid (use a whole number)", name, v);
        return -1;
    }
    return 0;
}

int ct_config_from_env(ct_config *c, char *why, size_t cap)
{
    const char *out = getenv("CLRTRACE_OUTPUT");
    c->output_path = (out && *out) ? out : NULL;
    const char *trace = getenv("CLRTRACE_TRACE");
    const char *index = getenv("CLRTRACE_INDEX");
    c->index_path = index && *index ? index : NULL;
    c->trace_path = (trace && *trace) ? trace : NULL;
    if (env_flag("CLRTRACE_ALL", 0, &c->trace_all, why, cap) ||
        env_flag("CLRTRACE_LOSSY", 0, &c->lossy, why, cap) ||
        env_flag("CLRTRACE_NO_ARGS", 0, &c->no_args, why, cap) ||
        env_flag("CLRTRACE_BENCH_NAIVE", 0, &c->bench_naive, why, cap) ||
        env_null(&c->null_mode, why, cap) ||
        env_range("CLRTRACE_BUFFER_KB", CT_DEFAULT_RING_KB, CT_MIN_RING_KB, CT_MAX_RING_KB,
                  &c->buffer_kb, why, cap) ||
        env_flag("CLRTRACE_INLINING", 0, &c->allow_inlining, why, cap) ||
        env_flag("CLRTRACE_SIGNATURES", 1, &c->signatures, why, cap) ||
        env_flag("CLRTRACE_SUMMARY", 1, &c->summary, why, cap) ||
        env_flag("CLRTRACE_FOLLOW", 1, &c->follow, why, cap) ||
        env_range("CLRTRACE_LAUNCHER_PID", 0, 0, UINT32_MAX >> 1, &c->launcher_pid, why, cap) ||
        env_count("CLRTRACE_STRING_CHARS", CT_DEFAULT_STRING_CHARS, CT_MAX_STRING_CHARS_OPTION,
                  &c->string_chars, why, cap) ||
        env_count("CLRTRACE_ARRAY_ITEMS", CT_DEFAULT_ARRAY_ITEMS, CT_MAX_ARRAY_ITEMS_OPTION,
                  &c->array_items, why, cap) ||
        env_count("CLRTRACE_STRUCT_DEPTH", CT_DEFAULT_STRUCT_DEPTH, CT_MAX_VALUE_DEPTH,
                  &c->struct_depth, why, cap))
        return -1;
    if (env_globs("CLRTRACE_INCLUDE", &c->include, why, cap) ||
        env_globs("CLRTRACE_EXCLUDE", &c->exclude, why, cap) ||
        env_globs("CLRTRACE_ASSEMBLY", &c->assembly, why, cap) ||
        env_globs("CLRTRACE_TRIGGER", &c->filter.trigger, why, cap) ||
        env_range("CLRTRACE_DEPTH", 0, 0, CT_FILTER_MAX_FRAMES, &c->filter.depth, why, cap) ||
        env_u64("CLRTRACE_AFTER", &c->filter.after, why, cap))
        return -1;
    const char *mt = getenv("CLRTRACE_MIN_TIME");
    c->filter.min_time_ns = 0;
    if (mt && *mt && ct_parse_duration(mt, &c->filter.min_time_ns) != 0) {
        snprintf(why, cap,
                 "CLRTRACE_MIN_TIME=%s is not valid (use a number and ns, us, ms or s, "
                 "at most one day)", mt);
        return -1;
    }
    if (c->bench_naive && c->no_args) {
        snprintf(why, cap, "CLRTRACE_BENCH_NAIVE=1 needs argument capture (not CLRTRACE_NO_ARGS=1)");
        return -1;
    }
    return 0;
}

int ct_config_traces(const ct_config *c, const char *full_name, const char *assembly,
                     int by_default)
{
    int traced;
    if (c->assembly)
        traced = assembly && ct_glob_list_match(c->assembly, assembly) &&
                 (!c->include || ct_glob_list_match(c->include, full_name));
    else
        traced = c->include ? ct_glob_list_match(c->include, full_name) : by_default;
    /* A trigger function opens the gate: it is hooked whatever else says. */
    if (!traced && c->filter.trigger && ct_glob_list_match(c->filter.trigger, full_name))
        traced = 1;
    if (traced && c->exclude && ct_glob_list_match(c->exclude, full_name))
        traced = 0;
    return traced;
}
