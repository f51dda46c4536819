/* The tree-filter options shared by run/record (passed to the profiler) and
 * replay/report/dump (applied while reading): -D/--depth, -t/--min-time,
 * -T/--trigger, --after (src/views/treefilter.h). Names, bounds and help
 * lines come from the settings table (src/format/settings.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/treefilter.h"
#include "format/settings.h"
#include "cli.h"

/* The filter setting opt names, or -1. */
static int filter_setting(const char *opt)
{
    int id = ct_setting_by_option(opt);
    return id >= 0 && ct_settings[id].group == CT_GROUP_FILTER ? id : -1;
}

int cli_is_filter_option(const char *a)
{
    return filter_setting(a) >= 0;
}

int cli_setting_value(const char *who, const char *a, int id, const char *val, uint64_t *num)
{
    char want[CT_SETTING_WANT_MAX];
    if (ct_setting_parse((ct_setting_id)id, val, 1, num, want, sizeof want) == 0)
        return 0;
    fprintf(stderr, "clrtrace %s: %s takes %s, not '%s'\n", who, a, want, val);
    return -1;
}

int cli_filter_option(const char *who, const char *a, const char *val, cli_filter *f)
{
    int id = filter_setting(a);
    if (id < 0)
        return 0;
    if (!val) {
        fprintf(stderr, "clrtrace %s: %s needs a value (try --help)\n", who, a);
        return -1;
    }
    if (ct_settings[id].kind == CT_KIND_GLOBS) {
        if (cli_add_glob(f->trigger, sizeof f->trigger, val) != 0) {
            fprintf(stderr, "clrtrace %s: %s needs a pattern without ':' (patterns together at "
                    "most %zu characters)\n", who, a, sizeof f->trigger - 1);
            return -1;
        }
        f->opts.trigger = f->trigger;
        return 1;
    }
    uint64_t v = 0;
    if (cli_setting_value(who, a, id, val, &v) != 0)
        return -1;
    if (id == CT_SET_DEPTH)
        f->opts.depth = (uint32_t)v;
    else if (id == CT_SET_MIN_TIME)
        f->opts.min_time_ns = v;
    else
        f->opts.after = v;
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

const char *cli_filter_help(void)
{
    static char text[2048];
    if (!text[0]) {
        FILE *f = fmemopen(text, sizeof text - 1, "w");
        if (!f)
            return "";
        ct_settings_help(f, CT_GROUP_FILTER);
        fclose(f);
    }
    return text;
}

static cli_selection g_sel;

const cli_selection *cli_selection_get(void)
{
    return &g_sel;
}

const char *cli_selection_help(void)
{
    return "  -F, --include GLOB  only calls of functions whose name matches GLOB\n"
           "                      (repeatable; '*' matches '.' too)\n"
           "  -N, --exclude GLOB  leave out calls of functions matching GLOB (repeatable)\n"
           "      --tid N         only thread N (repeatable)\n"
           "      --since TIME    only calls that begin TIME after the trace's start\n"
           "      --until TIME    only calls that begin before TIME (100ms, 1.5s; a bare\n"
           "                      number is us)\n";
}

/* Takes a selection option a (with val) into g_sel: 1; 0 when a is none;
 * -1 after one error line. */
static int selection_option(const char *who, const char *a, const char *val)
{
    int globs = !strcmp(a, "-F") || !strcmp(a, "--include") || !strcmp(a, "-N") ||
                !strcmp(a, "--exclude");
    int tid = !strcmp(a, "--tid");
    int time = !strcmp(a, "--since") || !strcmp(a, "--until");
    if (!globs && !tid && !time)
        return 0;
    if (!val) {
        fprintf(stderr, "clrtrace %s: %s needs a value (try --help)\n", who, a);
        return -1;
    }
    if (globs) {
        char *list = a[1] == 'F' || !strcmp(a, "--include") ? g_sel.include : g_sel.exclude;
        if (cli_add_glob(list, sizeof g_sel.include, val) != 0) {
            fprintf(stderr, "clrtrace %s: %s needs a pattern without ':' (patterns together at "
                    "most %zu characters)\n", who, a, sizeof g_sel.include - 1);
            return -1;
        }
        return 1;
    }
    if (tid) {
        char *end = NULL;
        unsigned long long n = strtoull(val, &end, 10);
        if (!*val || *end || val[0] == '-' || g_sel.ntids >= CLI_MAX_TIDS) {
            fprintf(stderr, "clrtrace %s: --tid takes a thread id (at most %d of them), not "
                    "'%s'\n", who, CLI_MAX_TIDS, val);
            return -1;
        }
        g_sel.tids[g_sel.ntids++] = n;
        return 1;
    }
    uint64_t ns = 0;
    if (ct_parse_duration(val, &ns) != 0) {
        fprintf(stderr, "clrtrace %s: %s takes a time from the trace's start (100ms, 1.5s; a "
                "bare number is us), not '%s'\n", who, a, val);
        return -1;
    }
    if (!strcmp(a, "--since"))
        g_sel.since = ns;
    else
        g_sel.until = ns;
    return 1;
}

int cli_offline_arg(const char *who, int argc, char **argv, int *i, const char **trace,
                    cli_filter *f, int pid_all)
{
    const char *a = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    int sel = selection_option(who, a, val);
    if (sel != 0) {
        if (sel < 0)
            return -1;
        (*i)++;
        return 1;
    }
    if (!strcmp(a, "--pid")) {
        if (cli_select_pid(who, val, pid_all) < 0)
            return -1;
        (*i)++;
    } else if (f && cli_is_filter_option(a)) {
        if (cli_filter_option(who, a, val, f) < 0)
            return -1;
        (*i)++;
    } else if (a[0] == '-' && a[1]) {
        fprintf(stderr, "clrtrace %s: unknown option '%s' (try --help)\n", who, a);
        return -1;
    } else if (*trace) {
        fprintf(stderr, "clrtrace %s: one trace at a time (try --help)\n", who);
        return -1;
    } else {
        *trace = a;
    }
    return 1;
}

int cli_offline_trace(const char *who, const char *trace)
{
    if (trace)
        return 0;
    fprintf(stderr, "clrtrace %s: no trace given (try --help)\n", who);
    return -1;
}
