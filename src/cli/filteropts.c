/* The tree-filter options shared by run/record (passed to the profiler) and
 * replay/report/dump (applied while reading): -D/--depth, -t/--min-time,
 * -T/--trigger, --after (include/clrtrace/filter.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int whole(const char *s, unsigned long long min, unsigned long long max,
                 unsigned long long *out)
{
    if (!s || !*s || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_is_filter_option(const char *a)
{
    return !strcmp(a, "-D") || !strcmp(a, "--depth") || !strcmp(a, "-t") ||
           !strcmp(a, "--min-time") || !strcmp(a, "-T") || !strcmp(a, "--trigger") ||
           !strcmp(a, "--after");
}

int cli_filter_option(const char *who, const char *a, const char *val, cli_filter *f)
{
    unsigned long long v;
    if (cli_is_filter_option(a) && !val) {
        fprintf(stderr, "clrtrace %s: %s needs a value (try --help)\n", who, a);
        return -1;
    }
    if (!strcmp(a, "-D") || !strcmp(a, "--depth")) {
        if (whole(val, 1, CT_FILTER_MAX_FRAMES, &v) != 0) {
            fprintf(stderr, "clrtrace %s: %s takes a whole number from 1 to %u, not '%s'\n", who,
                    a, CT_FILTER_MAX_FRAMES, val);
            return -1;
        }
        f->opts.depth = (uint32_t)v;
    } else if (!strcmp(a, "-t") || !strcmp(a, "--min-time")) {
        uint64_t ns;
        if (ct_parse_duration(val, &ns) != 0 || ns == 0) {
            fprintf(stderr, "clrtrace %s: %s takes a duration such as 100us, 2.5ms or 1s (more "
                    "than 0, at most one day), not '%s'\n", who, a, val);
            return -1;
        }
        f->opts.min_time_ns = ns;
    } else if (!strcmp(a, "--after")) {
        if (whole(val, 1, CLI_AFTER_MAX, &v) != 0) {
            fprintf(stderr, "clrtrace %s: %s takes a whole number from 1 to %llu, not '%s'\n",
                    who, a, (unsigned long long)CLI_AFTER_MAX, val);
            return -1;
        }
        f->opts.after = v;
    } else if (!strcmp(a, "-T") || !strcmp(a, "--trigger")) {
        if (cli_add_glob(f->trigger, sizeof f->trigger, val) != 0) {
            fprintf(stderr, "clrtrace %s: %s needs a pattern without ':' (patterns together at "
                    "most %zu characters)\n", who, a, sizeof f->trigger - 1);
            return -1;
        }
        f->opts.trigger = f->trigger;
    } else {
        return 0;
    }
    return 1;
}

int cli_add_glob(char *list, size_t cap, const char *glob)
{
    size_t used = strlen(list);
    if (!glob || !*glob || strchr(glob, ':') || used + strlen(glob) + 2 > cap)
        return -1;
    snprintf(list + used, cap - used, "%s%s", used ? ":" : "", glob);
    return 0;
}

const char cli_filter_help[] =
    "  -D, --depth N          show calls at most N levels deep (1-65536)\n"
    "  -t, --min-time TIME    hide calls shorter than TIME (100us, 2.5ms, 1s; a bare\n"
    "                         number is us)\n"
    "  -T, --trigger GLOB     show only calls made while a function matching GLOB runs\n"
    "                         on the same thread, that function included (repeatable)\n"
    "      --after N          hide the first N calls (the calls they make later show)\n";
