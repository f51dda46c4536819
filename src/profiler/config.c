#include "config.h"

#include <fnmatch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* A whole number in [min, max]: decimal digits only, no sign, no spaces. */
static int env_range(const char *name, uint32_t dflt, uint32_t min, uint32_t max, uint32_t *out,
                     char *why, size_t cap)
{
    const char *v = getenv(name);
    *out = dflt;
    if (!v || !*v)
        return 0;
    uint64_t n = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9' || n > max) {
            n = (uint64_t)max + 1;
            break;
        }
        n = n * 10 + (uint64_t)(*p - '0');
    }
    if (n > max || n < min || !*v) {
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

int ct_config_from_env(ct_config *c, char *why, size_t cap)
{
    const char *out = getenv("CLRTRACE_OUTPUT");
    c->output_path = (out && *out) ? out : NULL;
    const char *trace = getenv("CLRTRACE_TRACE");
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
        env_count("CLRTRACE_STRING_CHARS", CT_DEFAULT_STRING_CHARS, CT_MAX_STRING_CHARS_OPTION,
                  &c->string_chars, why, cap) ||
        env_count("CLRTRACE_ARRAY_ITEMS", CT_DEFAULT_ARRAY_ITEMS, CT_MAX_ARRAY_ITEMS_OPTION,
                  &c->array_items, why, cap) ||
        env_count("CLRTRACE_STRUCT_DEPTH", CT_DEFAULT_STRUCT_DEPTH, CT_MAX_VALUE_DEPTH,
                  &c->struct_depth, why, cap))
        return -1;
    c->include = getenv("CLRTRACE_INCLUDE");
    c->exclude = getenv("CLRTRACE_EXCLUDE");
    if (c->include && !*c->include)
        c->include = NULL;
    if (c->exclude && !*c->exclude)
        c->exclude = NULL;
    if ((c->include && strlen(c->include) >= CT_MAX_FILTER_TEXT) ||
        (c->exclude && strlen(c->exclude) >= CT_MAX_FILTER_TEXT)) {
        snprintf(why, cap, "CLRTRACE_INCLUDE/CLRTRACE_EXCLUDE longer than %d characters",
                 CT_MAX_FILTER_TEXT - 1);
        return -1;
    }
    if (c->bench_naive && c->no_args) {
        snprintf(why, cap, "CLRTRACE_BENCH_NAIVE=1 needs argument capture (not CLRTRACE_NO_ARGS=1)");
        return -1;
    }
    return 0;
}

/* Does name match one of the ':'-separated globs of list? */
static int matches_any(const char *list, const char *name)
{
    char pat[CT_MAX_FILTER_TEXT];
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ":");
        if (n && n < sizeof pat) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (fnmatch(pat, name, 0) == 0)
                return 1;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return 0;
}

int ct_config_traces(const ct_config *c, const char *full_name, int by_default)
{
    int traced = c->include ? matches_any(c->include, full_name) : by_default;
    if (traced && c->exclude && matches_any(c->exclude, full_name))
        traced = 0;
    return traced;
}
