#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clrtrace/value.h"

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

/* A whole number in [0, max]: decimal digits only, no sign, no spaces. */
static int env_count(const char *name, uint32_t dflt, uint32_t max, uint32_t *out, char *why,
                     size_t cap)
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
    if (n > max) {
        snprintf(why, cap, "%s=%s is not valid (use a whole number from 0 to %u)", name, v,
                 (unsigned)max);
        return -1;
    }
    *out = (uint32_t)n;
    return 0;
}

int ct_config_from_env(ct_config *c, char *why, size_t cap)
{
    const char *out = getenv("CLRTRACE_OUTPUT");
    c->output_path = (out && *out) ? out : NULL;
    if (env_flag("CLRTRACE_ALL", 0, &c->trace_all, why, cap) ||
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
    return 0;
}
