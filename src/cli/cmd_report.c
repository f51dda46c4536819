/* clrtrace report DIR: the summary table of a binary trace (calls, total
 * and self time, calls ended by an exception per function), as at the end of
 * the text log. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "views/bytrace.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace report [--sort KEY] [-n N] [--percent] [--stats]\n"
        "                       [--histogram GLOB] [--jit] [--params] [--srcline[=full]]\n"
        "                       [selection]\n"
        "                       [filters] DIR\n"
        "       clrtrace report --diff A [-n N] [--params] [selection] [filters] B\n"
        "       clrtrace report --by-trace [-n N] [selection] [filters] DIR\n"
        "\n"
        "Prints the summary of the trace in DIR (written by `clrtrace record -o DIR`;\n"
        "DIR may also be the trace file itself): the program's header line, then one\n"
        "row per function with its calls, total (inclusive) and self time, largest total\n"
        "first; the same table as at the end of `clrtrace replay DIR`. A function's\n"
        "total counts each call once: a recursive function's is the time of its\n"
        "outermost calls. When any call ended by an exception, an EXCEPTIONS column\n"
        "says how many of each function's calls did. The times leave out the time\n"
        "the tracer held the program (its last line says how long).\n"
        "\n"
        "options:\n"
        "  --sort KEY    order rows by total (inclusive) time, self time, calls, avg\n"
        "                or max (a call's duration), jit, or exceptions; largest\n"
        "                first, ties by name (default: total)\n"
        "  -n, --top N   show only the first N rows\n"
        "  --percent     add TOTAL%% and SELF%% columns: shares of the traced time (the\n"
        "                sum of every function's self time)\n"
        "  --stats       add AVG, MIN, MAX, P50, P90 and P99 columns: each call's\n"
        "                duration (a recursive call's too); the percentiles from\n"
        "                log buckets, within 3.125 %% of the call of that rank\n"
        "  --histogram GLOB  after the table, each matching function's durations by\n"
        "                power of two, with a bar each (repeatable)\n"
        "  --jit         add a JIT column: how long each function's JIT compilation\n"
        "                took (a time no call's duration holds)\n"
        "  --params      name every row with its parameter types, Area(double); rows\n"
        "                that share a name always are (and numbered #2, #3 when\n"
        "                those agree too)\n"
        "  --srcline[=full]  add a SOURCE column: where each function is, Orders.cs:42\n"
        "                (traces recorded with --srcline; full: whole paths)\n"
        "  --diff A      compare trace A with DIR (B): per function the calls, total\n"
        "                and self time of both and the change of total, largest\n"
        "                change first; -n, --params and the selection and filters\n"
        "                apply to both\n"
        "  --by-trace    instead of the functions, the W3C trace ids the calls were\n"
        "                made under (the program's Activity), slowest first: per trace\n"
        "                id its calls, WALL (its first call's enter to its last call's\n"
        "                end, across threads), OUTERMOST (the sum of its outermost\n"
        "                calls' durations) and the threads it ran on; the calls under\n"
        "                no Activity last, as '-'; -n keeps the first N trace ids\n"
        "  --pid N|all   the process N of a recorded process tree, or each in turn\n"
        "                (default: the process the launcher started)\n"
        "filters (the table then counts only the calls shown):\n"
        "%s"
        "selection (before the filters; what is left out leaves its time to its caller):\n"
        "%s"
        "\n"
        "Exit status: 0; 1 when the trace cannot be read or is damaged (one line on\n"
        "stderr gives the byte offset); 2 for a usage error.\n",
        cli_tree_filter_help(), cli_selection_help());
}


/* ------------------------------------------------------------ --diff */

/* One function in the two traces. */
typedef struct diff_row {
    char *name;
    uint64_t calls[2], total[2], self[2];
} diff_row;

typedef struct diff_set {
    diff_row *rows;
    size_t n, cap;
    int side;
    int nomem;
} diff_set;

static void take_row(void *ctx, const ct_render_row *row)
{
    diff_set *d = ctx;
    size_t i = 0;
    while (i < d->n && strcmp(d->rows[i].name, row->name))
        i++;
    if (i == d->n) {
        if (d->n == d->cap) {
            size_t cap = d->cap ? 2 * d->cap : 64;
            diff_row *r = realloc(d->rows, cap * sizeof *r);
            if (!r) {
                d->nomem = 1;
                return;
            }
            d->rows = r;
            d->cap = cap;
        }
        d->rows[i] = (diff_row){strdup(row->name), {0, 0}, {0, 0}, {0, 0}};
        if (!d->rows[i].name) {
            d->nomem = 1;
            return;
        }
        d->n++;
    }
    d->rows[i].calls[d->side] = row->calls;
    d->rows[i].total[d->side] = row->total;
    d->rows[i].self[d->side] = row->self;
}

static void discard(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    (void)text;
    (void)len;
}

/* The rows of one trace into side d->side; 0, or 1 after one line. */
static int diff_read(const cli_offline *o, const char *arg, diff_set *d, char *label,
                     size_t cap)
{
    cli_trace t;
    if (cli_trace_open_pid(&t, "report", arg, o->pid) != 0)
        return 1;
    t.filter = &o->reading;
    ct_render_opts rows = {.lines = 0, .summary = 0};
    ct_render *r = ct_render_new(&rows, discard, NULL);
    if (!r) {
        cli_trace_close(&t);
        fprintf(stderr, "clrtrace report: out of memory\n");
        return 1;
    }
    snprintf(label, cap, "%.*s, pid %u", (int)t.reader.header.cmdline_len,
             t.reader.header.cmdline, (unsigned)t.reader.header.pid);
    int rc = cli_trace_each(&t, "report", cli_render_feed, r);
    ct_render_finish(r);
    if (!rc && ct_render_each_row(r, take_row, d) != 0)
        d->nomem = 1;
    ct_render_free(r);
    cli_trace_close(&t);
    if (d->nomem) {
        fprintf(stderr, "clrtrace report: out of memory\n");
        return 1;
    }
    return rc;
}

static uint64_t magnitude(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static int by_change(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    uint64_t cx = magnitude(x->total[0], x->total[1]), cy = magnitude(y->total[0], y->total[1]);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* "+1.2 ms", "-0.3 us", "0 ns". */
static void signed_duration(uint64_t from, uint64_t to, char *out, size_t cap)
{
    char d[32];
    ct_format_duration(magnitude(from, to), d, sizeof d);
    snprintf(out, cap, "%s%s", to > from ? "+" : to < from ? "-" : "", d);
}

/* report --diff A B: o->diff (A) against o->trace (B). */
static int report_diff(const cli_offline *o)
{
    diff_set d = {0};
    char la[512], lb[512];
    int rc = diff_read(o, o->diff, &d, la, sizeof la);
    d.side = 1;
    if (!rc)
        rc = diff_read(o, o->trace, &d, lb, sizeof lb);
    if (!rc) {
        qsort(d.rows, d.n, sizeof *d.rows, by_change);
        printf("# diff: A %s\n#       B %s\n", la, lb);
        printf("#  CALLS A  CALLS B    TOTAL A    TOTAL B     CHANGE     SELF A     SELF B  FUNCTION\n");
        uint32_t top = o->render.top;
        size_t shown = top && top < d.n ? top : d.n;
        for (size_t i = 0; i < shown; i++) {
            const diff_row *r = &d.rows[i];
            char ta[32], tb[32], ch[40], sa[32], sb[32];
            ct_format_duration(r->total[0], ta, sizeof ta);
            ct_format_duration(r->total[1], tb, sizeof tb);
            signed_duration(r->total[0], r->total[1], ch, sizeof ch);
            ct_format_duration(r->self[0], sa, sizeof sa);
            ct_format_duration(r->self[1], sb, sizeof sb);
            printf("%9llu %8llu %10s %10s %10s %10s %10s  %s\n", (unsigned long long)r->calls[0],
                   (unsigned long long)r->calls[1], ta, tb, ch, sa, sb, r->name);
        }
    }
    for (size_t i = 0; i < d.n; i++)
        free(d.rows[i].name);
    free(d.rows);
    if (!rc && fflush(stdout) != 0) {
        perror("clrtrace: stdout");
        return 1;
    }
    return rc;
}

/* ------------------------------------------------------- --by-trace */

/* Threads a row names; past them "+N". */
#define BY_TRACE_TIDS_SHOWN 8

static void to_stdout(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

static int bytrace_feed(void *b, const ct_rec *rec)
{
    return ct_bytrace_record(b, rec);
}

static void bytrace_row(const ct_bytrace_row *r)
{
    char id[2 * CT_TRACE_ID_BYTES + 1] = "-", wall[32], outer[32];
    if (!ct_bytrace_row_none(r))
        ct_trace_id_text(r->trace_id, id);
    ct_format_duration(r->last_ns - r->first_ns, wall, sizeof wall);
    ct_format_duration(r->outer_ns, outer, sizeof outer);
    printf("%-32s %8llu %10s %10s  ", id, (unsigned long long)r->calls, wall, outer);
    for (uint32_t i = 0; i < r->ntids && i < BY_TRACE_TIDS_SHOWN; i++)
        printf("%s%llu", i ? " " : "", (unsigned long long)r->tids[i]);
    if (r->ntids > BY_TRACE_TIDS_SHOWN)
        printf(" +%u", (unsigned)(r->ntids - BY_TRACE_TIDS_SHOWN));
    printf("\n");
}

/* report --by-trace of the trace at path. */
static int by_trace_one(const cli_offline *o, const char *path)
{
    cli_trace t;
    if (cli_trace_open_pid(&t, "report", path, o->pid) != 0)
        return 1;
    t.filter = &o->reading;
    ct_render_opts head = {.lines = 0, .summary = 0};
    ct_render *r = ct_render_new(&head, to_stdout, NULL);
    ct_bytrace *b = ct_bytrace_new();
    if (!r || !b) {
        ct_render_free(r);
        ct_bytrace_free(b);
        cli_trace_close(&t);
        fprintf(stderr, "clrtrace report: out of memory\n");
        return 1;
    }
    ct_render_header(r, &t.reader.header); /* the first header line, as report's */
    ct_render_free(r);
    int rc = cli_trace_each(&t, "report", bytrace_feed, b);
    if (ct_bytrace_finish(b) != 0) {
        fprintf(stderr, "clrtrace report: out of memory\n");
        rc = 1;
    }
    size_t n;
    const ct_bytrace_row *rows = ct_bytrace_rows(b, &n);
    uint64_t ids = 0, under = 0, none = 0;
    for (size_t i = 0; i < n; i++) {
        if (ct_bytrace_row_none(&rows[i])) {
            none += rows[i].calls;
        } else {
            ids++;
            under += rows[i].calls;
        }
    }
    printf("# by trace: %llu trace %s, %llu %s under them, %llu under no Activity\n",
           (unsigned long long)ids, ids == 1 ? "id" : "ids", (unsigned long long)under,
           under == 1 ? "call" : "calls", (unsigned long long)none);
    ct_bytrace_latency lat;
    if (ids && ct_bytrace_latency_of(b, &lat) == 0) {
        char p50[32], p90[32], p99[32], max[32];
        ct_format_duration(lat.p50, p50, sizeof p50);
        ct_format_duration(lat.p90, p90, sizeof p90);
        ct_format_duration(lat.p99, p99, sizeof p99);
        ct_format_duration(lat.max, max, sizeof max);
        printf("# requests' wall time: P50 %s, P90 %s, P99 %s, MAX %s\n", p50, p90, p99, max);
    }
    printf("# %-30s %8s %10s %10s  %s\n", "TRACE ID", "CALLS", "WALL", "OUTERMOST", "THREADS");
    uint32_t top = o->render.top;
    for (size_t i = 0, shown = 0; i < n; i++) {
        if (ct_bytrace_row_none(&rows[i]) || !top || shown++ < top)
            bytrace_row(&rows[i]);
    }
    ct_bytrace_free(b);
    cli_trace_close(&t);
    if (fflush(stdout) != 0) {
        perror("clrtrace: stdout");
        return 1;
    }
    return rc;
}

/* report --by-trace: the root process's trace, one process's (--pid N) or
 * each in turn (--pid all). */
static int report_by_trace(const cli_offline *o)
{
    if (!cli_is_dir(o->trace) || o->pid != CLI_PID_ALL)
        return by_trace_one(o, o->trace);
    int n, rc = 0;
    cli_proc *procs = cli_trace_list(o->trace, &n);
    if (n <= 0) {
        fprintf(stderr, "clrtrace report: no trace in %s\n", o->trace);
        free(procs);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if (i)
            printf("\n");
        int r = by_trace_one(o, procs[i].path);
        if (r)
            rc = r;
    }
    free(procs);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    cli_offline o;
    if (cli_offline_parse(&o, "report", argc, argv) != 0)
        return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (o.by_trace)
        return report_by_trace(&o);
    return o.diff ? report_diff(&o) : cli_render(&o);
}
