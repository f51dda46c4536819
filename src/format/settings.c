/* The settings table (src/format/settings.h): one row per CLRTRACE_*
 * variable, read by the launcher, the profiler and --help alike. */
#include "settings.h"

#include "expr.h"
#include "inject_spec.h"
#include "words.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "value.h"

/* Largest pid (Linux's PID_MAX_LIMIT is 2^22; any int). */
#define LAUNCHER_PID_MAX 0x7fffffffu

const ct_setting ct_settings[CT_SETTING_COUNT] = {
    [CT_SET_OUTPUT] = {"CLRTRACE_OUTPUT", NULL, NULL, CT_KIND_PATH, CT_GROUP_NONE, 0, 0, 0, 0,
                       NULL, NULL, NULL},
    [CT_SET_TRACE] = {"CLRTRACE_TRACE", NULL, NULL, CT_KIND_PATH, CT_GROUP_NONE, 0, 0, 0, 0, NULL,
                      NULL, NULL},
    [CT_SET_ALL] = {"CLRTRACE_ALL", "-a", "--all", CT_KIND_FLAG, CT_GROUP_SELECT, 0, 0, 1, 0, "1",
                    NULL, "also trace framework code (System.*, Microsoft.*)"},
    [CT_SET_INCLUDE] = {"CLRTRACE_INCLUDE", "-F", "--include", CT_KIND_GLOBS, CT_GROUP_SELECT,
                        CT_SETTING_REPEAT, 0, 0, 0, NULL, "GLOB",
                        "trace only functions whose full name (Ns.Type.Method) "
                        "matches GLOB, framework code included (repeatable)"},
    [CT_SET_EXCLUDE] = {"CLRTRACE_EXCLUDE", "-N", "--exclude", CT_KIND_GLOBS, CT_GROUP_SELECT,
                        CT_SETTING_REPEAT, 0, 0, 0, NULL, "GLOB",
                        "never trace functions matching GLOB (repeatable)"},
    [CT_SET_ASSEMBLY] = {"CLRTRACE_ASSEMBLY", NULL, "--assembly", CT_KIND_GLOBS, CT_GROUP_SELECT,
                         CT_SETTING_REPEAT, 0, 0, 0, NULL, "NAME",
                         "trace only functions of assemblies whose simple name "
                         "matches NAME (a glob; repeatable), framework included; "
                         "-F then narrows it further"},
    [CT_SET_WHEN] = {"CLRTRACE_WHEN", NULL, "--when", CT_KIND_WHEN, CT_GROUP_SELECT,
                      CT_SETTING_REPEAT, 0, 0, 0, NULL, "'GLOB: EXPR'",
                      "record a call of a function matching GLOB only when EXPR holds "
                      "for its arguments (order.Total > 1000 && order.Customer.Country "
                      "== \"PT\") or at its end (return > 5, exception == "
                      "\"TimeoutException\", an out parameter; docs/cli.md, Conditions; "
                      "repeatable)"},
    [CT_SET_AT] = {"CLRTRACE_AT", NULL, "--at", CT_KIND_AT, CT_GROUP_SELECT, CT_SETTING_REPEAT,
                   0, 0, 0, NULL, "FILE:LINE",
                   "at each pass over that source line (the first line with code at or "
                   "after it, from the Portable PDB; FILE a file's name or a method "
                   "glob) record `this`, the arguments and the locals in scope by their "
                   "names; its method is traced too (IL engine; repeatable)"},
    [CT_SET_INJECT] = {"CLRTRACE_INJECT", NULL, "--inject", CT_KIND_INJECT, CT_GROUP_INJECT,
                       CT_SETTING_REPEAT, 0, 0, 0, NULL, "'GLOB: ACTION'",
                       "make calls of the methods matching GLOB fail on purpose: "
                       "'throw TYPE[(\"message\")]', 'return VALUE' or 'delay TIME', then "
                       "which calls: every N, after N, FIRST..LAST, probability P, when "
                       "CONDITION (docs/cli.md, Injecting faults; IL engine; repeatable)"},
    [CT_SET_INJECT_SEED] = {"CLRTRACE_INJECT_SEED", NULL, "--inject-seed", CT_KIND_NUMBER,
                            CT_GROUP_INJECT, 0, 0, INT64_MAX, 0, NULL, "S",
                            "the seed of --inject's probability (the same seed chooses the "
                            "same calls; default: a new one each run, told on stderr)"},
    [CT_SET_INJECT_CHECKED] = {"CLRTRACE_INJECT_CHECKED", NULL, NULL, CT_KIND_FLAG, CT_GROUP_NONE,
                               0, 0, 1, 0, NULL, NULL, NULL},
    [CT_SET_DEPTH] = {"CLRTRACE_DEPTH", "-D", "--depth", CT_KIND_NUMBER, CT_GROUP_FILTER,
                      CT_SETTING_ZERO_OFF, 0, CT_FILTER_MAX_FRAMES, 0, NULL, "N",
                      "show calls at most N levels deep ({min}-{max})"},
    [CT_SET_MIN_TIME] = {"CLRTRACE_MIN_TIME", "-t", "--min-time", CT_KIND_DURATION,
                         CT_GROUP_FILTER, CT_SETTING_ZERO_OFF, 0, 0, 0, NULL, "TIME",
                         "hide calls shorter than TIME (100us, 2.5ms, 1s; a bare "
                         "number is us)"},
    [CT_SET_TRIGGER] = {"CLRTRACE_TRIGGER", "-T", "--trigger", CT_KIND_GLOBS, CT_GROUP_FILTER,
                        CT_SETTING_REPEAT, 0, 0, 0, NULL, "GLOB",
                        "show only calls made while a function matching GLOB runs "
                        "on the same thread, that function included (repeatable)"},
    [CT_SET_AFTER] = {"CLRTRACE_AFTER", NULL, "--after", CT_KIND_NUMBER, CT_GROUP_FILTER,
                      CT_SETTING_ZERO_OFF, 0, CT_MAX_AFTER, 0, NULL, "N",
                      "hide the first N calls (the calls they make later show)"},
    [CT_SET_FAILED] = {"CLRTRACE_FAILED", NULL, "--failed", CT_KIND_FLAG, CT_GROUP_FILTER, 0, 0,
                       1, 0, "1", NULL,
                       "show only the calls that ended by an exception, each with "
                       "its callers (their arguments) and the exception"},
    [CT_SET_STRING_CHARS] = {"CLRTRACE_STRING_CHARS", "-s", "--string-chars", CT_KIND_NUMBER,
                             CT_GROUP_VALUES, 0, 0, CT_MAX_STRING_CHARS_OPTION,
                             CT_DEFAULT_STRING_CHARS, NULL, "N",
                             "keep at most N characters of each string (default {default})"},
    [CT_SET_ARRAY_ITEMS] = {"CLRTRACE_ARRAY_ITEMS", NULL, "--array-items", CT_KIND_NUMBER,
                            CT_GROUP_VALUES, 0, 0, CT_MAX_ARRAY_ITEMS_OPTION,
                            CT_DEFAULT_ARRAY_ITEMS, NULL, "N",
                            "show at most N elements of each array (default {default})"},
    [CT_SET_STRUCT_DEPTH] = {"CLRTRACE_STRUCT_DEPTH", NULL, "--struct-depth", CT_KIND_NUMBER,
                             CT_GROUP_VALUES, 0, 0, CT_MAX_VALUE_DEPTH, CT_DEFAULT_STRUCT_DEPTH,
                             NULL, "N",
                             "follow nested struct fields N deep ({min}-{max}, default {default})"},
    [CT_SET_OBJECT_DEPTH] = {"CLRTRACE_OBJECT_DEPTH", NULL, "--object-depth", CT_KIND_NUMBER,
                             CT_GROUP_VALUES, 0, 0, CT_MAX_OBJECT_DEPTH,
                             CT_DEFAULT_OBJECT_DEPTH, NULL, "N",
                             "show objects field by field N levels deep; deeper ones "
                             "read Type@0x... ({min}-{max}, default {default})"},
    [CT_SET_OBJECT_FIELDS] = {"CLRTRACE_OBJECT_FIELDS", NULL, "--object-fields", CT_KIND_NUMBER,
                              CT_GROUP_VALUES, 0, 1, CT_MAX_OBJECT_FIELDS,
                              CT_DEFAULT_OBJECT_FIELDS, NULL, "N",
                              "show at most N fields of each object ({min}-{max}, "
                              "default {default})"},
    [CT_SET_VALUE_BYTES] = {"CLRTRACE_VALUE_BYTES", NULL, "--value-bytes", CT_KIND_NUMBER,
                            CT_GROUP_VALUES, 0, CT_MIN_VALUE_BYTES, CT_MAX_VALUE_BYTES,
                            CT_DEFAULT_VALUE_BYTES, NULL, "N",
                            "past N bytes captured for one value, its objects read "
                            "Type@0x... ({min}-{max}, default {default})"},
    [CT_SET_LOCALS] = {"CLRTRACE_LOCALS", NULL, "--locals", CT_KIND_FLAG, CT_GROUP_VALUES, 0, 0,
                       1, 0, "1", NULL,
                       "for each traced frame an exception leaves, record its arguments "
                       "and local variables as the exception passed through it, before "
                       "any finally ran (IL engine; shown under the frame's exception)"},
    [CT_SET_REDACT] = {"CLRTRACE_REDACT", NULL, "--no-redact", CT_KIND_FLAG, CT_GROUP_VALUES, 0,
                       0, 1, 1, "0", NULL,
                       "show the values of parameters, fields and properties whose "
                       "names say they are secrets (password, token, apikey, ...; "
                       "by default <redacted>)"},
    [CT_SET_REDACT_NAMES] = {"CLRTRACE_REDACT_NAMES", NULL, "--redact", CT_KIND_GLOBS,
                             CT_GROUP_VALUES, CT_SETTING_REPEAT, 0, 0, 0, NULL, "NAME",
                             "also redact values whose name has NAME in it (without "
                             "case; repeatable)"},
    [CT_SET_ARGS_CHOSEN] = {"CLRTRACE_ARGS_CHOSEN", "-A", "--args", CT_KIND_CHOSEN,
                            CT_GROUP_VALUES, CT_SETTING_REPEAT, 0, 0, 0, NULL,
                            "'GLOB@PATH,...'",
                            "for functions matching GLOB, capture exactly these paths of "
                            "the arguments instead of them (order.Total,order.Customer.Name; "
                            "docs/cli.md, Chosen values; repeatable)"},
    [CT_SET_RET_CHOSEN] = {"CLRTRACE_RET_CHOSEN", "-R", "--return", CT_KIND_CHOSEN,
                           CT_GROUP_VALUES, CT_SETTING_REPEAT, 0, 0, 0, NULL, "'GLOB@PATH'",
                           "for functions matching GLOB, capture this path of the "
                           "return value instead of it (return.Total; repeatable)"},
    [CT_SET_MAX_OVERHEAD] = {"CLRTRACE_MAX_OVERHEAD", NULL, "--max-overhead", CT_KIND_NUMBER,
                             CT_GROUP_MODE, CT_SETTING_ZERO_OFF | CT_SETTING_OFF_WORD, 0, 100, 0,
                             NULL, "PCT",
                             "keep the tracer under PCT% of any thread's time: past it, "
                             "the hottest methods lose their values, then are sampled, "
                             "then untraced, each step recorded ({min}-{max}, or off; "
                             "with -p 5 unless given, else off)"},
    [CT_SET_LIMIT] = {"CLRTRACE_LIMIT", NULL, "--limit", CT_KIND_NUMBER, CT_GROUP_MODE,
                      CT_SETTING_ZERO_OFF, 0, CT_MAX_LIMIT, 0, NULL, "N",
                      "record at most N calls of each method; the others are "
                      "counted ({min}-{max})"},
    [CT_SET_RATE] = {"CLRTRACE_RATE", NULL, "--rate", CT_KIND_NUMBER, CT_GROUP_MODE,
                     CT_SETTING_ZERO_OFF | CT_SETTING_PER_SECOND, 0, CT_MAX_LIMIT, 0, NULL,
                     "N/s", "record at most N calls of each method per second; the "
                     "others are counted ({min}-{max})"},
    [CT_SET_NO_ARGS] = {"CLRTRACE_NO_ARGS", NULL, "--no-args", CT_KIND_FLAG, CT_GROUP_MODE, 0, 0,
                        1, 0, "1", NULL, "fast path: calls, times and the call tree, no values"},
    [CT_SET_ENGINE] = {"CLRTRACE_ENGINE", NULL, "--engine", CT_KIND_ENGINE, CT_GROUP_MODE, 0, 0,
                       CT_ENGINE_AUTO, CT_ENGINE_AUTO, NULL, "NAME",
                       "il: the IL of the traced methods calls the tracer, every "
                       "other method keeps its precompiled code; elt: the runtime's "
                       "enter/leave hooks (every method compiled by the JIT); auto "
                       "(default): il, but elt with -a"},
    [CT_SET_LOSSY] = {"CLRTRACE_LOSSY", NULL, "--lossy", CT_KIND_FLAG, CT_GROUP_MODE, 0, 0, 1, 0,
                      "1", NULL,
                      "drop events (counted) rather than wait when a thread's "
                      "buffer is full"},
    [CT_SET_BUFFER_KB] = {"CLRTRACE_BUFFER_KB", NULL, "--buffer-kb", CT_KIND_NUMBER,
                          CT_GROUP_MODE, 0, CT_MIN_RING_KB, CT_MAX_RING_KB, CT_DEFAULT_RING_KB,
                          NULL, "N",
                          "per-thread buffer in KiB ({min}-{max}, default {default})"},
    [CT_SET_INLINING] = {"CLRTRACE_INLINING", NULL, "--inlining", CT_KIND_FLAG, CT_GROUP_MODE, 0,
                         0, 1, 0, "1", NULL,
                         "let the JIT inline small methods (faster; inlined calls "
                         "are then missing from the trace)"},
    [CT_SET_FOLLOW] = {"CLRTRACE_FOLLOW", NULL, "--no-follow", CT_KIND_FLAG, CT_GROUP_MODE, 0, 0,
                       1, 1, "0", NULL,
                       "trace only PROGRAM's own process: the .NET processes "
                       "it starts run untraced (by default each is traced into "
                       "a file of its own: FILE.PID for -o FILE, DIR/trace.PID.clrt "
                       "for record)"},
    [CT_SET_MAX_SIZE] = {"CLRTRACE_MAX_SIZE", NULL, "--max-size", CT_KIND_SIZE, CT_GROUP_MODE,
                         CT_SETTING_ZERO_OFF, CT_MIN_MAX_SIZE, CT_MAX_MAX_SIZE, 0, NULL, "SIZE",
                         "record: keep the binary trace within SIZE bytes (K, M, G: "
                         "8M at least), the last calls kept: trace.clrt and its "
                         "older segments trace.clrt.1 to .3, the oldest deleted "
                         "(a flight recorder)"},
    [CT_SET_COMPRESS] = {"CLRTRACE_COMPRESS", NULL, "--no-compress", CT_KIND_FLAG, CT_GROUP_MODE,
                         0, 0, 1, 1, "0", NULL,
                         "write the binary trace uncompressed (by default its "
                         "records are compressed with zstd in blocks of 1 MiB)"},
    [CT_SET_IDS] = {"CLRTRACE_IDS", NULL, "--no-ids", CT_KIND_FLAG, CT_GROUP_MODE, 0, 0, 1, 1,
                     "0", NULL,
                     "do not read the trace id and span id of the Activity current "
                     "at each call (by default they are read, and recorded when "
                     "they change)"},
    [CT_SET_SRCLINE] = {"CLRTRACE_SRCLINE", NULL, "--srcline", CT_KIND_SRCLINE, CT_GROUP_MODE,
                        0, 0, 2, 0, NULL, "[=full]",
                        "record each function's source file and line from its "
                        "Portable PDB and show them: ' at Orders.cs:42' (paths from "
                        "the sources' common folder; full: whole paths)"},
    [CT_SET_NULL] = {"CLRTRACE_NULL", NULL, "--null", CT_KIND_NULL, CT_GROUP_MODE, 0, 0, 2, 0,
                     NULL, "[=fast]",
                     "hooks that return at once, nothing recorded (benchmarks: "
                     "the runtime's own cost; fast: the fast-path stubs)"},
    [CT_SET_SUMMARY] = {"CLRTRACE_SUMMARY", NULL, "--no-summary", CT_KIND_FLAG, CT_GROUP_NONE, 0,
                        0, 1, 1, "0", NULL, NULL},
    [CT_SET_SIGNATURES] = {"CLRTRACE_SIGNATURES", NULL, NULL, CT_KIND_FLAG, CT_GROUP_NONE, 0, 0,
                           1, 1, NULL, NULL, NULL},
    [CT_SET_BENCH_NAIVE] = {"CLRTRACE_BENCH_NAIVE", NULL, NULL, CT_KIND_FLAG, CT_GROUP_NONE, 0, 0,
                            1, 0, NULL, NULL, NULL},
    [CT_SET_LAUNCHER_PID] = {"CLRTRACE_LAUNCHER_PID", NULL, NULL, CT_KIND_NUMBER, CT_GROUP_NONE,
                             0, 0, LAUNCHER_PID_MAX, 0, NULL, NULL, NULL},
    [CT_SET_INDEX] = {"CLRTRACE_INDEX", NULL, NULL, CT_KIND_PATH, CT_GROUP_NONE, 0, 0, 0, 0, NULL,
                      NULL, NULL},
};

static int word_in(const char *v, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(v, words[i]))
            return 1;
    return 0;
}

/* A CT_KIND_AT value: 'FILE:LINE' a line, at most CT_AT_MAX; 0, or -1 with
 * what to use in want. */
static int parse_at_lines(const char *text, char *want, size_t want_cap)
{
    unsigned bad = 0, count = 0;
    ct_at_list(text, NULL, 0, &count, &bad);
    if (count > CT_AT_MAX) {
        snprintf(want, want_cap, "at most %u lines FILE:LINE", CT_AT_MAX);
        return -1;
    }
    if (bad) {
        snprintf(want, want_cap, "FILE:LINE (Orders.cs:42), one a line (line %u)", bad);
        return -1;
    }
    if (count)
        return 0;
    snprintf(want, want_cap, "FILE:LINE (Orders.cs:42)");
    return -1;
}

/* A CT_KIND_WHEN or CT_KIND_CHOSEN value: one condition (or -A, -R) a line,
 * each parsed; 0, or -1 with what to use in want (the first line that does
 * not parse says why). */
static int parse_lines(ct_setting_id id, const char *text, char *want, size_t want_cap)
{
    static ct_expr e; /* 8 KiB: not on a hook's stack (the CLI, the profiler's start) */
    static ct_expr_error err;
    static ct_inject_spec spec; /* 18 KiB */
    int when = ct_settings[id].kind == CT_KIND_WHEN, ret = id == CT_SET_RET_CHOSEN;
    int inject = ct_settings[id].kind == CT_KIND_INJECT;
    unsigned max = when ? CT_WHEN_MAX : inject ? CT_INJECT_MAX : CT_CHOSEN_MAX, count = 0;
    size_t max_text = when ? CT_WHEN_MAX_TEXT : inject ? CT_INJECT_MAX_TEXT : CT_CHOSEN_MAX_TEXT;
    const char *what = when ? "conditions 'GLOB: EXPR'"
                       : inject ? "'GLOB: ACTION ...'"
                       : ret ? "'GLOB@PATH'" : "'GLOB@PATH[,PATH...]'";
    const char *one_name = when ? "condition" : "line";
    if (strlen(text) > max_text) {
        snprintf(want, want_cap, "at most %u %ss of at most %u bytes", max, one_name,
                 CT_EXPR_MAX_TEXT);
        return -1;
    }
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        if (len) {
            char one[CT_EXPR_MAX_TEXT + 2];
            if (++count > max || len > CT_EXPR_MAX_TEXT) {
                snprintf(want, want_cap, "at most %u %ss of at most %u bytes", max, one_name,
                         CT_EXPR_MAX_TEXT);
                return -1;
            }
            memcpy(one, p, len);
            one[len] = '\0';
            if ((when     ? ct_expr_parse(one, &e, &err)
                 : inject ? ct_inject_parse(one, &spec, &err)
                          : ct_chosen_parse(one, ret, &e, &err)) != 0) {
                snprintf(want, want_cap, "%s, one a line (%s %u: %s)", what, one_name, count,
                         err.message);
                return -1;
            }
        }
        p += len + (p[len] ? 1 : 0);
    }
    if (count)
        return 0;
    snprintf(want, want_cap, "%s, one a line", what);
    return -1;
}

int ct_setting_parse(ct_setting_id id, const char *text, int option, uint64_t *num, char *want,
                     size_t want_cap)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    const ct_setting *s = &ct_settings[id];
    int above_zero = option && (s->flags & CT_SETTING_ZERO_OFF);
    uint64_t n = 0;
    if (!text)
        text = "";
    switch (s->kind) {
    case CT_KIND_FLAG:
        if (word_in(text, yes, 4) || word_in(text, no, 4)) {
            *num = word_in(text, yes, 4);
            return 0;
        }
        snprintf(want, want_cap, "1 or 0");
        return -1;
    case CT_KIND_NUMBER: {
        uint64_t min = above_zero && s->min == 0 ? 1 : s->min;
        if ((s->flags & CT_SETTING_OFF_WORD) && !strcasecmp(text, "off")) {
            *num = 0;
            return 0;
        }
        char whole[32];
        size_t len = strlen(text);
        if ((s->flags & CT_SETTING_PER_SECOND) && len > 2 && len < sizeof whole &&
            !strcmp(text + len - 2, "/s")) {
            memcpy(whole, text, len - 2);
            whole[len - 2] = '\0';
            text = whole;
        }
        if (ct_parse_whole(text, min, s->max, &n) == 0) {
            *num = n;
            return 0;
        }
        snprintf(want, want_cap, "a whole number from %llu to %llu%s%s", (unsigned long long)min,
                 (unsigned long long)s->max,
                 s->flags & CT_SETTING_PER_SECOND ? " (N or N/s)" : "",
                 s->flags & CT_SETTING_OFF_WORD ? ", or off" : "");
        return -1;
    }
    case CT_KIND_DURATION:
        if (*text && ct_parse_duration(text, &n) == 0 && (!above_zero || n > 0)) {
            *num = n;
            return 0;
        }
        snprintf(want, want_cap, "a duration such as 100us, 2.5ms or 1s (%sat most one day)",
                 above_zero ? "more than 0, " : "");
        return -1;
    case CT_KIND_SIZE:
        if ((!strcmp(text, "0") && (s->flags & CT_SETTING_ZERO_OFF) && !option) ||
            (ct_parse_size(text, s->max, &n) == 0 && n >= s->min)) {
            *num = n;
            return 0;
        }
        snprintf(want, want_cap, "a size from %lluM to %lluG (a number of bytes, or with K, M "
                 "or G)", (unsigned long long)(s->min >> 20), (unsigned long long)(s->max >> 30));
        return -1;
    case CT_KIND_GLOBS:
        if (*text && strlen(text) < CT_FILTER_MAX_GLOBS_TEXT)
            return 0;
        snprintf(want, want_cap, "patterns joined by ':', together at most %u characters",
                 CT_FILTER_MAX_GLOBS_TEXT - 1);
        return -1;
    case CT_KIND_PATH:
        if (*text)
            return 0;
        snprintf(want, want_cap, "a file name");
        return -1;
    case CT_KIND_NULL:
        if (word_in(text, no, 4)) {
            *num = 0;
            return 0;
        }
        if (word_in(text, yes, 4) || !strcasecmp(text, "slow")) {
            *num = 1;
            return 0;
        }
        if (!strcasecmp(text, "fast")) {
            *num = 2;
            return 0;
        }
        snprintf(want, want_cap, "0, 1, slow or fast");
        return -1;
    case CT_KIND_SRCLINE:
        if (word_in(text, no, 4) || word_in(text, yes, 4)) {
            *num = word_in(text, yes, 4);
            return 0;
        }
        if (!strcasecmp(text, "full")) {
            *num = 2;
            return 0;
        }
        snprintf(want, want_cap, "on, off or full");
        return -1;
    case CT_KIND_WHEN:
    case CT_KIND_CHOSEN:
    case CT_KIND_INJECT:
        return parse_lines(id, text, want, want_cap);
    case CT_KIND_AT:
        return parse_at_lines(text, want, want_cap);
    case CT_KIND_ENGINE:
        if (!strcasecmp(text, "elt") || !strcasecmp(text, "il") || !strcasecmp(text, "auto")) {
            *num = !strcasecmp(text, "il")    ? CT_ENGINE_IL
                   : !strcasecmp(text, "elt") ? CT_ENGINE_ELT
                                              : CT_ENGINE_AUTO;
            return 0;
        }
        snprintf(want, want_cap, "il, elt or auto");
        return -1;
    }
    snprintf(want, want_cap, "a value");
    return -1;
}

int ct_setting_by_option(const char *opt)
{
    for (int i = 0; i < CT_SETTING_COUNT; i++) {
        const ct_setting *s = &ct_settings[i];
        if ((s->shortopt && !strcmp(opt, s->shortopt)) || (s->longopt && !strcmp(opt, s->longopt)))
            return i;
    }
    return -1;
}

/* The help text of s with "{min}", "{max}" and "{default}" replaced, into
 * out (cut when it does not fit). */
static void help_text(const ct_setting *s, char *out, size_t cap)
{
    uint64_t min = (s->flags & CT_SETTING_ZERO_OFF) && s->min == 0 ? 1 : s->min;
    static const struct {
        const char *name;
        size_t len;
    } keys[] = {{"{min}", 5}, {"{max}", 5}, {"{default}", 9}};
    size_t n = 0;
    for (const char *p = s->help; *p && n + 24 < cap; p++) {
        size_t k = 0;
        while (k < 3 && strncmp(p, keys[k].name, keys[k].len) != 0)
            k++;
        if (k < 3) {
            uint64_t v = k == 0 ? min : k == 1 ? s->max : s->dflt;
            n += (size_t)snprintf(out + n, cap - n, "%llu", (unsigned long long)v);
            p += keys[k].len - 1;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
}

/* Option lines: the option from column 2, its text from HELP_COLUMN, words
 * wrapped before HELP_WIDTH. */
#define HELP_COLUMN 25
#define HELP_WIDTH 80

void ct_settings_help(FILE *to, ct_setting_group group)
{
    for (int i = 0; i < CT_SETTING_COUNT; i++) {
        const ct_setting *s = &ct_settings[i];
        if (s->group != group || !s->longopt || !s->help)
            continue;
        char left[64], text[512];
        int n = snprintf(left, sizeof left, "  %s%s%s%s%s", s->shortopt ? s->shortopt : "  ",
                         s->shortopt ? ", " : "  ", s->longopt,
                         s->arg && s->arg[0] != '[' ? " " : "", s->arg ? s->arg : "");
        if (n < 0)
            continue;
        if (n + 2 > HELP_COLUMN)
            fprintf(to, "%s\n%*s", left, HELP_COLUMN, "");
        else
            fprintf(to, "%-*s", HELP_COLUMN, left);
        help_text(s, text, sizeof text);
        int col = HELP_COLUMN;
        for (const char *w = text; *w;) {
            size_t len = strcspn(w, " ");
            if (col > HELP_COLUMN && col + 1 + (int)len > HELP_WIDTH) {
                fprintf(to, "\n%*s", HELP_COLUMN, "");
                col = HELP_COLUMN;
            } else if (col > HELP_COLUMN) {
                fputc(' ', to);
                col++;
            }
            fwrite(w, 1, len, to);
            col += (int)len;
            w += len;
            w += strspn(w, " ");
        }
        fputc('\n', to);
    }
}
