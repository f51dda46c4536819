/* The options of the commands, parsed once into what the commands run with:
 * the tree-filter options shared by run/record (passed to the profiler) and
 * the offline commands (applied while reading): -D/--depth, -t/--min-time,
 * -T/--trigger, --after (src/views/treefilter.h; names, bounds and help
 * lines from the settings table, src/format/settings.h); and every option of
 * the offline commands replay, report, dump and info into one cli_offline:
 * the trace, --pid, the selection (-F, -N, --tid, --since, --until), the
 * tree filters and each command's output options. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/treefilter.h"
#include "format/expr.h"
#include "format/inject_spec.h"
#include "format/words.h"
#include "format/settings.h"
#include "cli.h"

/* ------------------------------------------------------ tree filters */

/* The filter setting opt names, or -1. */
static int filter_setting(const char *opt)
{
    int id = ct_setting_by_option(opt);
    return id >= 0 && ct_settings[id].group == CT_GROUP_FILTER ? id : -1;
}

int cli_setting_value(const char *who, const char *a, int id, const char *val, uint64_t *num)
{
    char want[CT_SETTING_WANT_MAX];
    if (ct_setting_parse((ct_setting_id)id, val, 1, num, want, sizeof want) == 0)
        return 0;
    fprintf(stderr, "clrtrace %s: %s takes %s, not '%s'\n", who, a, want, val);
    return -1;
}

int cli_number(const char *who, const char *opt, const char *val, uint64_t min, uint64_t max,
               const char *what, uint64_t *out)
{
    if (ct_parse_whole(val, min, max, out) == 0)
        return 0;
    if (max == UINT64_MAX)
        fprintf(stderr, "clrtrace %s: %s takes %s, not '%s'\n", who, opt, what, val ? val : "");
    else
        fprintf(stderr, "clrtrace %s: %s takes %s from %llu to %llu, not '%s'\n", who, opt, what,
                (unsigned long long)min, (unsigned long long)max, val ? val : "");
    return -1;
}

/* Takes the tree-filter option a (id its setting) with its value (NULL:
 * none given) into f: 1 (the value taken), 0 (an option without one:
 * --failed), or -1 after one error line. */
static int filter_option(const char *who, const char *a, int id, const char *val, cli_tree_filter *f)
{
    if (id == CT_SET_FAILED) {
        f->opts.failed = 1;
        return 0;
    }
    if (!val) {
        fprintf(stderr, "clrtrace %s: %s needs a value (try --help)\n", who, a);
        return -1;
    }
    if (ct_settings[id].kind == CT_KIND_GLOBS) {
        if (cli_add_glob(who, a, f->trigger, sizeof f->trigger, val) != 0)
            return -1;
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

int cli_add_glob(const char *who, const char *opt, char *list, size_t cap, const char *glob)
{
    size_t used = strlen(list);
    if (!glob || !*glob || strchr(glob, ':') || used + strlen(glob) + 2 > cap) {
        fprintf(stderr, "clrtrace %s: %s needs a pattern without ':' (patterns together at "
                "most %zu characters)\n", who, opt, cap - 1);
        return -1;
    }
    snprintf(list + used, cap - used, "%s%s", used ? ":" : "", glob);
    return 0;
}

/* Appends text to list (one a line, *n so far): 0, or -1 after one line
 * when the list would pass cap bytes (what: what the lines are). */
static int append_line(const char *who, const char *opt, char *list, size_t cap, unsigned *n,
                       const char *text, const char *what)
{
    size_t used = strlen(list), len = strlen(text);
    if (used + len + 2 > cap) {
        fprintf(stderr, "clrtrace %s: %s: the %s together take more than %zu bytes\n", who, opt,
                what, cap - 1);
        return -1;
    }
    snprintf(list + used, cap - used, "%s%s", used ? "\n" : "", text);
    (*n)++;
    return 0;
}

int cli_add_when(const char *who, const char *opt, char *list, size_t cap, unsigned *n,
                 const char *text)
{
    static ct_expr e; /* 8 KiB */
    ct_expr_error err;
    if (*n >= CT_WHEN_MAX) {
        fprintf(stderr, "clrtrace %s: at most %u %s options\n", who, CT_WHEN_MAX, opt);
        return -1;
    }
    if (strpbrk(text, "\n\r")) {
        fprintf(stderr, "clrtrace %s: %s '%s': a line break in a condition (write \\n in a "
                "string)\n", who, opt, text);
        return -1;
    }
    if (ct_expr_parse(text, &e, &err) != 0) {
        fprintf(stderr, "clrtrace %s: %s '%s': %s\n", who, opt, text, err.message);
        return -1;
    }
    return append_line(who, opt, list, cap, n, text, "conditions");
}

int cli_add_inject(const char *who, const char *opt, char *list, size_t cap, unsigned *n,
                   const char *text)
{
    static ct_inject_spec s; /* 18 KiB */
    ct_expr_error err;
    if (*n >= CT_INJECT_MAX) {
        fprintf(stderr, "clrtrace %s: at most %u %s options\n", who, CT_INJECT_MAX, opt);
        return -1;
    }
    if (strpbrk(text, "\n\r")) {
        fprintf(stderr, "clrtrace %s: %s '%s': a line break in it (write \\n in a string)\n",
                who, opt, text);
        return -1;
    }
    if (ct_inject_parse(text, &s, &err) != 0) {
        fprintf(stderr, "clrtrace %s: %s '%s': %s\n", who, opt, text, err.message);
        return -1;
    }
    return append_line(who, opt, list, cap, n, text, "faults");
}

int cli_add_at(const char *who, const char *opt, char *list, size_t cap, unsigned *n,
               const char *text)
{
    char file[CT_AT_MAX_FILE];
    uint32_t line = 0;
    if (*n >= CT_AT_MAX) {
        fprintf(stderr, "clrtrace %s: at most %u %s options\n", who, CT_AT_MAX, opt);
        return -1;
    }
    if (strpbrk(text, "\n\r") || ct_at_parse(text, file, sizeof file, &line) != 0) {
        fprintf(stderr, "clrtrace %s: %s takes FILE:LINE (Orders.cs:42; LINE from 1 to %u), "
                "not '%s'\n", who, opt, CT_AT_MAX_LINE, text);
        return -1;
    }
    return append_line(who, opt, list, cap, n, text, "lines");
}

int cli_add_chosen(const char *who, const char *opt, int ret, char *list, size_t cap,
                   unsigned *n, const char *text)
{
    static ct_expr e; /* 8 KiB */
    ct_expr_error err;
    if (*n >= CT_CHOSEN_MAX) {
        fprintf(stderr, "clrtrace %s: at most %u %s options\n", who, CT_CHOSEN_MAX, opt);
        return -1;
    }
    if (strpbrk(text, "\n\r")) {
        fprintf(stderr, "clrtrace %s: %s '%s': a line break in the value\n", who, opt, text);
        return -1;
    }
    if (ct_chosen_parse(text, ret, &e, &err) != 0) {
        fprintf(stderr, "clrtrace %s: %s '%s': %s\n", who, opt, text, err.message);
        return -1;
    }
    return append_line(who, opt, list, cap, n, text, "values");
}

const char *cli_tree_filter_help(void)
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

/* --------------------------------------------------------- selection */

const char *cli_selection_help(void)
{
    return "  -F, --include GLOB  only calls of functions whose name matches GLOB\n"
           "                      (repeatable; '*' matches '.' too)\n"
           "  -N, --exclude GLOB  leave out calls of functions matching GLOB (repeatable)\n"
           "      --tid N         only thread N (repeatable)\n"
           "      --trace-id ID   only calls made under W3C trace id ID (32 hex digits: the\n"
           "                      Activity current when they were entered), every thread\n"
           "      --since TIME    only calls that begin TIME after the trace's start\n"
           "      --until TIME    only calls that begin before TIME (100ms, 1.5s; a bare\n"
           "                      number is us)\n";
}

/* Takes a selection option a (with val) into *s: 1; 0 when a is none; -1
 * after one error line. */
static int selection_option(const char *who, const char *a, const char *val, cli_selection *s)
{
    int globs = !strcmp(a, "-F") || !strcmp(a, "--include") || !strcmp(a, "-N") ||
                !strcmp(a, "--exclude");
    int tid = !strcmp(a, "--tid");
    int time = !strcmp(a, "--since") || !strcmp(a, "--until");
    int trace = !strcmp(a, "--trace-id");
    if (!globs && !tid && !time && !trace)
        return 0;
    if (!val) {
        fprintf(stderr, "clrtrace %s: %s needs a value (try --help)\n", who, a);
        return -1;
    }
    if (trace) {
        if (ct_trace_id_parse(val, s->trace_id) != 0) {
            fprintf(stderr, "clrtrace %s: --trace-id takes a W3C trace id (32 hex digits, as "
                    "in traceparent 00-TRACEID-SPANID-01), not '%s'\n", who, val);
            return -1;
        }
        s->by_trace = 1;
        return 1;
    }
    if (globs) {
        char *list = a[1] == 'F' || !strcmp(a, "--include") ? s->include : s->exclude;
        if (cli_add_glob(who, a, list, sizeof s->include, val) != 0)
            return -1;
        return 1;
    }
    if (tid) {
        uint64_t n = 0;
        if (ct_parse_whole(val, 0, UINT64_MAX, &n) != 0 || s->ntids >= CLI_MAX_TIDS) {
            fprintf(stderr, "clrtrace %s: --tid takes a thread id (at most %d of them), not "
                    "'%s'\n", who, CLI_MAX_TIDS, val);
            return -1;
        }
        s->tids[s->ntids++] = n;
        return 1;
    }
    uint64_t ns = 0;
    if (ct_parse_duration(val, &ns) != 0) {
        fprintf(stderr, "clrtrace %s: %s takes a time from the trace's start (100ms, 1.5s; a "
                "bare number is us), not '%s'\n", who, a, val);
        return -1;
    }
    if (!strcmp(a, "--since"))
        s->since = ns;
    else
        s->until = ns;
    return 1;
}

/* --pid VALUE (allow_all: "all" too) into *pid: 0, or -1 after one line. */
static int pid_option(const char *who, const char *val, int allow_all, long *pid)
{
    if (val && allow_all && !strcmp(val, "all")) {
        *pid = CLI_PID_ALL;
        return 0;
    }
    uint64_t v = 0;
    if (ct_parse_whole(val, 1, CLI_PID_MAX, &v) != 0) {
        fprintf(stderr, "clrtrace %s: --pid takes a process id%s, not '%s'\n", who,
                allow_all ? " or all" : "", val ? val : "");
        return -1;
    }
    *pid = (long)v;
    return 0;
}

/* ------------------------------------------ each command's own options */

/* Each takes argv[*i] (and its value: *i advances) into o: 1; 0 when it is
 * not the command's own option; -1 after one usage-error line. */

/* --srcline / --srcline=full (replay and report): the source locations a
 * trace recorded with --srcline has. 1, 0 (not it) or -1 after one line. */
static int srcline_option(cli_offline *o, const char *a, const char *who)
{
    if (!strcmp(a, "--srcline"))
        o->render.srcline = 1;
    else if (!strcmp(a, "--srcline=full"))
        o->render.srcline = 2;
    else if (!strncmp(a, "--srcline=", 10)) {
        fprintf(stderr, "clrtrace %s: --srcline takes =full or nothing, not '%s'\n", who, a + 10);
        return -1;
    } else
        return 0;
    return 1;
}

static int replay_option(cli_offline *o, int argc, char **argv, int *i)
{
    (void)argc;
    const char *a = argv[*i];
    if (!strcmp(a, "--no-summary"))
        o->render.summary = 0;
    else if (!strcmp(a, "--jit"))
        o->render.jit = 1;
    else if (!strcmp(a, "--ids"))
        o->render.ids = 1;
    else if (!strncmp(a, "--srcline", 9))
        return srcline_option(o, a, "replay");
    else
        return 0;
    return 1;
}

static int report_option(cli_offline *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    /* The options of the function table, which --by-trace does not print. */
    static const char *const k_table[] = { "--percent", "--diff", "--jit", "--stats",
                                           "--params", "--sort", "--histogram" };
    for (size_t k = 0; k < sizeof k_table / sizeof *k_table; k++)
        if (!strcmp(a, k_table[k]))
            o->table_option = k_table[k];
    if (!strcmp(a, "--by-trace")) {
        o->by_trace = 1;
    } else if (!strncmp(a, "--srcline", 9)) {
        return srcline_option(o, a, "report");
    } else if (!strcmp(a, "--percent")) {
        o->render.percent = 1;
    } else if (!strcmp(a, "--diff")) {
        if (!val) {
            fprintf(stderr, "clrtrace report: --diff needs the trace to compare with "
                    "(report --diff A B)\n");
            return -1;
        }
        o->diff = val;
        (*i)++;
    } else if (!strcmp(a, "--jit")) {
        o->render.jit = 1;
    } else if (!strcmp(a, "--stats")) {
        o->render.stats = 1;
    } else if (!strcmp(a, "--histogram")) {
        /* Repeatable: the globs joined by ':' (as -F's). */
        if (!val || !*val || strchr(val, ':')) {
            fprintf(stderr, "clrtrace report: --histogram takes a function glob "
                    "(Shop.Orders.*; repeatable)\n");
            return -1;
        }
        size_t have = strlen(o->histogram), need = strlen(val);
        if (have + need + 2 > sizeof o->histogram) {
            fprintf(stderr, "clrtrace report: --histogram: at most %zu bytes of globs\n",
                    sizeof o->histogram - 1);
            return -1;
        }
        if (have)
            o->histogram[have++] = ':';
        memcpy(o->histogram + have, val, need + 1);
        o->render.histogram = o->histogram;
        (*i)++;
    } else if (!strcmp(a, "--params")) {
        o->render.params = 1;
    } else if (!strcmp(a, "--sort")) {
        static const struct {
            const char *name;
            ct_render_sort sort;
        } keys[] = {
            {"total", CT_SORT_TOTAL}, {"self", CT_SORT_SELF}, {"calls", CT_SORT_CALLS},
            {"avg", CT_SORT_AVG},     {"max", CT_SORT_MAX},   {"jit", CT_SORT_JIT},
            {"exceptions", CT_SORT_EXCEPTIONS},
        };
        size_t k = 0;
        while (val && k < sizeof keys / sizeof *keys && strcmp(val, keys[k].name))
            k++;
        if (!val || k == sizeof keys / sizeof *keys) {
            fprintf(stderr, "clrtrace report: --sort takes total, self, calls, avg, max, jit or "
                    "exceptions\n");
            return -1;
        }
        o->render.sort = keys[k].sort;
        (*i)++;
    } else if (!strcmp(a, "-n") || !strcmp(a, "--top")) {
        uint64_t n = 0;
        if (cli_number("report", a, val, 1, UINT32_MAX, "a number of rows", &n) != 0)
            return -1;
        o->render.top = (uint32_t)n;
        (*i)++;
    } else {
        return 0;
    }
    return 1;
}

/* What report's options ask for together: 0, or -1 after one line. */
static int report_check(const cli_offline *o)
{
    if (o->by_trace && o->table_option) {
        fprintf(stderr, "clrtrace report: %s does not go with --by-trace (try --help)\n",
                o->table_option);
        return -1;
    }
    return 0;
}

/* dump's usage errors: "clrtrace dump: WHAT (try --help)". */
static int dump_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "clrtrace dump: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try --help)\n");
    return -1;
}

static int dump_option(cli_offline *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int f = -1;
    if (!strcmp(a, "--folded")) {
        f = CLI_DUMP_FOLDED;
    } else if (!strcmp(a, "--flame")) {
        f = CLI_DUMP_FLAME;
    } else if (!strcmp(a, "--chrome")) {
        f = CLI_DUMP_CHROME;
    } else if (!strcmp(a, "--perfetto")) {
        f = CLI_DUMP_PERFETTO;
    } else if (!strcmp(a, "--otlp")) {
        f = CLI_DUMP_OTLP;
    } else if (!strcmp(a, "--otlp-endpoint")) {
        const char *v = *i + 1 < argc ? argv[++*i] : NULL, *why = NULL;
        if (!v)
            return dump_error("%s", "--otlp-endpoint needs a URL (http://HOST:PORT)");
        if (cli_otlp_endpoint_parse(v, &o->dump.endpoint, &why) != 0) {
            fprintf(stderr, "clrtrace dump: --otlp-endpoint '%s': %s (try --help)\n", v, why);
            return -1;
        }
        f = CLI_DUMP_OTLP;
    } else if (!strcmp(a, "--otlp-max-spans")) {
        const char *v = *i + 1 < argc ? argv[++*i] : NULL;
        uint64_t n = 0;
        if (cli_number("dump", a, v, 1, CLI_OTLP_MAX_SPANS_LIMIT, "a number of spans", &n) != 0)
            return -1;
        o->dump.otlp_max_spans = (uint32_t)n;
        o->dump.otlp_only = 1;
    } else if (!strcmp(a, "--calls")) {
        o->dump.by_calls = 1;
    } else if (!strcmp(a, "--max-calls")) {
        const char *v = *i + 1 < argc ? argv[++*i] : NULL;
        uint64_t n = 0;
        if (cli_number("dump", a, v, 0, UINT64_MAX, "a number of calls (0: no limit)", &n) != 0)
            return -1;
        o->dump.max_calls = n;
        o->dump.chrome_only = 1;
    } else if (!strcmp(a, "--width") || !strcmp(a, "--title")) {
        if (*i + 1 >= argc)
            return dump_error("%s needs a value", a);
        const char *v = argv[++*i];
        o->dump.flame_only = 1;
        if (a[2] == 't') {
            o->dump.title = v;
        } else {
            uint64_t n = 0;
            if (cli_number("dump", a, v, FLAME_MIN_WIDTH, FLAME_MAX_WIDTH, "a width in pixels",
                           &n) != 0)
                return -1;
            o->dump.width = (unsigned)n;
        }
    } else {
        return 0;
    }
    if (f >= 0) {
        if (o->dump.format != CLI_DUMP_RECORDS && (int)o->dump.format != f)
            return dump_error("%s: one of --folded, --flame, --chrome, --perfetto, --otlp", a);
        o->dump.format = (cli_dump_format)f;
    }
    return 1;
}

/* What dump's options ask for together: 0, or -1 after one line. */
static int dump_check(const cli_offline *o)
{
    const cli_dump_opts *d = &o->dump;
    if (d->by_calls && d->format != CLI_DUMP_FOLDED && d->format != CLI_DUMP_FLAME)
        return dump_error("%s", "--calls goes with --folded or --flame");
    if (d->flame_only && d->format != CLI_DUMP_FLAME)
        return dump_error("%s", "--width and --title go with --flame");
    if (d->chrome_only && d->format != CLI_DUMP_CHROME)
        return dump_error("%s", "--max-calls goes with --chrome");
    if (d->otlp_only && d->format != CLI_DUMP_OTLP)
        return dump_error("%s", "--otlp-max-spans goes with --otlp or --otlp-endpoint");
    return 0;
}

/* ---------------------------------------------------- offline commands */

/* What each offline command takes besides the selection. */
typedef struct offline_command {
    const char *who;
    int filters;  /* the tree filters */
    int pid_all;  /* --pid all */
    int (*option)(cli_offline *o, int argc, char **argv, int *i); /* NULL: none */
    int (*check)(const cli_offline *o);                           /* NULL: none */
} offline_command;

/* graph's GLOB: the positional after the trace. */
static int graph_option(cli_offline *o, int argc, char **argv, int *i)
{
    (void)argc;
    const char *a = argv[*i];
    if (a[0] == '-' || !o->trace)
        return 0;
    if (o->graph) {
        fprintf(stderr, "clrtrace graph: one GLOB (join patterns with ':')\n");
        return -1;
    }
    o->graph = a;
    return 1;
}

static int graph_check(const cli_offline *o)
{
    if (o->graph)
        return 0;
    fprintf(stderr, "clrtrace graph: no GLOB given: clrtrace graph DIR GLOB (try --help)\n");
    return -1;
}

static const offline_command k_offline[] = {
    {"replay", 1, 1, replay_option, NULL},
    {"graph", 1, 0, graph_option, graph_check},
    {"tui", 0, 0, NULL, NULL},
    {"report", 1, 1, report_option, report_check},
    {"dump", 1, 0, dump_option, dump_check},
    {"info", 0, 1, NULL, NULL},
};

/* Takes argv[*i] as an option every offline command shares (--pid, the
 * selection, the tree filters when c takes them) or as the trace: 1, or -1
 * after one usage-error line (an unknown option, a second trace, a bad
 * value). */
static int offline_arg(const offline_command *c, cli_offline *o, int argc, char **argv, int *i)
{
    const char *who = c->who, *a = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    int sel = selection_option(who, a, val, &o->reading.sel);
    int id = c->filters ? filter_setting(a) : -1;
    if (sel != 0) {
        if (sel < 0)
            return -1;
        (*i)++;
    } else if (!strcmp(a, "--pid")) {
        if (pid_option(who, val, c->pid_all, &o->pid) < 0)
            return -1;
        (*i)++;
    } else if (id >= 0) {
        int took = filter_option(who, a, id, val, &o->reading.tree);
        if (took < 0)
            return -1;
        *i += took;
    } else if (a[0] == '-' && a[1]) {
        fprintf(stderr, "clrtrace %s: unknown option '%s' (try --help)\n", who, a);
        return -1;
    } else if (o->trace) {
        fprintf(stderr, "clrtrace %s: one trace at a time (try --help)\n", who);
        return -1;
    } else {
        o->trace = a;
    }
    return 1;
}

int cli_inline_form(const char *a, char *name, size_t cap, const char **val)
{
    const char *eq = strchr(a, '=');
    if (a[0] != '-' || a[1] != '-' || !eq)
        return 0;
    if ((size_t)(eq - a) >= cap)
        return -1;
    memcpy(name, a, (size_t)(eq - a));
    name[eq - a] = '\0';
    *val = eq + 1;
    return 1;
}

int cli_split_inline(int argc, char **argv, char **out, char *names, size_t names_cap,
                     unsigned char *inline_val, int cap)
{
    int n = 0;
    size_t used = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (n + 2 > cap)
            return -1;
        if (!strcmp(a, "--")) {
            for (; i < argc && n < cap; i++) {
                inline_val[n] = 0;
                out[n++] = argv[i];
            }
            return i < argc ? -1 : n;
        }
        char *name = names + used;
        if (i > 0 && strncmp(a, "--srcline", 9) != 0 &&
            cli_inline_form(a, name, names_cap - used, &val) == 1) {
            used += strlen(name) + 1;
            inline_val[n] = 0;
            out[n++] = name;
            inline_val[n] = 1;
            out[n++] = (char *)val;
        } else {
            inline_val[n] = 0;
            out[n++] = argv[i];
        }
    }
    return n;
}

int cli_args_read(const char *who, int *argc, char ***argv, const unsigned char **inline_val)
{
    static char *args[CLI_ARGS_MAX];
    static char names[CLI_ARGS_MAX * 8];
    static unsigned char inl[CLI_ARGS_MAX];
    int n = cli_split_inline(*argc, *argv, args, names, sizeof names, inl, CLI_ARGS_MAX);
    if (n < 0) {
        fprintf(stderr, "clrtrace %s: more than %d arguments\n", who, CLI_ARGS_MAX / 2);
        return -1;
    }
    *argc = n;
    *argv = args;
    if (inline_val)
        *inline_val = inl;
    return 0;
}

int cli_no_value(const char *who, const char *opt)
{
    fprintf(stderr, "clrtrace %s: %s takes no value (try --help)\n", who, opt);
    return -1;
}

int cli_arg_unwanted(const char *who, char **argv, const unsigned char *inline_val, int i)
{
    if (i < 1 || !inline_val[i])
        return 0;
    cli_no_value(who, argv[i - 1]);
    return 1;
}

int cli_offline_parse(cli_offline *o, const char *who, int argc, char **argv)
{
    const offline_command *c = NULL;
    for (size_t k = 0; k < sizeof k_offline / sizeof *k_offline && !c; k++)
        if (!strcmp(who, k_offline[k].who))
            c = &k_offline[k];
    memset(o, 0, sizeof *o);
    o->who = who;
    if (!c) {
        fprintf(stderr, "clrtrace %s: not a command that reads a trace\n", who);
        return -1;
    }
    /* replay prints the lines and the summary, report the summary. */
    o->render.lines = !strcmp(who, "replay");
    o->render.summary = 1;
    o->dump.width = FLAME_DEFAULT_WIDTH;
    o->dump.max_calls = CLI_CHROME_MAX_CALLS;
    o->dump.otlp_max_spans = CLI_OTLP_MAX_SPANS;
    /* --name=VALUE as --name VALUE, for every command (the one reader of
     * run's and record's form); a VALUE so given that its option does not
     * take is an error. */
    const unsigned char *inline_val = NULL;
    if (cli_args_read(who, &argc, &argv, &inline_val) != 0)
        return -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            o->help = 1;
            return 0;
        }
        if (cli_arg_unwanted(who, argv, inline_val, i))
            return -1;
        int at = i;
        int own = c->option ? c->option(o, argc, argv, &i) : 0;
        if (own < 0 || (!own && offline_arg(c, o, argc, argv, &i) < 0))
            return -1;
        /* An option that took no value, given one (--percent=1). */
        if (i == at && i + 1 < argc && cli_arg_unwanted(who, argv, inline_val, i + 1))
            return -1;
    }
    if (!o->trace) {
        fprintf(stderr, "clrtrace %s: no trace given (try --help)\n", who);
        return -1;
    }
    return c->check ? c->check(o) : 0;
}
