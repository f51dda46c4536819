/* clrtrace info TRACE: what a binary trace holds, without printing its
 * calls: the process, its command line, when and how long it ran, the
 * settings and filter in force, the counts, and whether the trace is
 * complete. For a recorded process tree, every process in a table. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/table.h"
#include "cli.h"
#include "views/bytrace.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace info [options] TRACE\n"
        "\n"
        "Describes a binary trace (a `clrtrace record -o DIR` directory, or one trace\n"
        "file): the command line, process and parent ids, start time, duration, the\n"
        "settings and filter it was recorded with, how many calls, functions, threads,\n"
        "exceptions and dropped events it holds, its size, and whether it is complete.\n"
        "For a directory holding a process tree, the process the launcher started, then\n"
        "a table of every traced process.\n"
        "\n"
        "options:\n"
        "      --pid N|all        the process N of a recorded process tree, or each in\n"
        "                         turn\n"
        "  -h, --help             show this help\n"
        "selection (what the counts count):\n"
        "%s"
        "\n"
        "A trace without its end (the program was killed or crashed, or still runs) reads\n"
        "'complete: no' with the offset where it ends; that is not an error.\n"
        "\n"
        "Exit status: 0; 1 when a trace cannot be read or is damaged (its line gives the\n"
        "byte offset; the counts are of what came before); 2 for a usage error.\n",
        cli_selection_help());
}

/* What one trace holds. */
typedef struct info_stats {
    uint64_t enters, returns, tailcalls, unwinds; /* events */
    uint64_t dropped;         /* events the profiler lost (DROPPED records) */
    uint64_t functions;       /* FUNCTION records: functions traced */
    uint64_t classes;
    uint64_t threads;         /* distinct threads with events */
    uint64_t last_time;       /* latest time in the trace, ns */
    uint64_t mapped, traced, unrewritten; /* from END */
    int ended;
    ct_table tids;
    uint64_t jit_count, jit_ns; /* the JIT record's (key 0) */
    ct_held *held;            /* HELD records summed per thread (while reading) */
    size_t nheld;
    char held_text[256];      /* ct_held_text of them; "" when none */
    ct_table budget;          /* BUDGET: key + 1 -> (calls left out << 2 | step) + 1 */
    uint64_t budget_steps;    /* BUDGET records that changed a function's step */
    uint64_t budget_skipped;  /* calls left out, every function */
    ct_table traces;          /* ACTIVITY: trace id (two u64) -> 1 */
    ct_table defined;         /* FUNCTION and CLASS records met, by {key, record type}
                                 (--max-size's segments repeat them) */
    uint64_t ntraces;         /* distinct W3C trace ids the threads' Activities had */
    uint64_t first_segment, last_segment; /* SEGMENT records' numbers (--max-size) */
    int segment_seen;
    uint64_t activities;      /* ACTIVITY records */
    uint64_t injected[4];     /* INJECT records: every one, then by action (throw,
                                 return, delay) */
    ct_bytrace *requests;     /* the calls by trace id, for the requests' percentiles */
    ct_bytrace_latency latency;
} info_stats;

static int count(void *ctx, const ct_rec *rec)
{
    info_stats *s = ctx;
    if (s->requests && ct_bytrace_record(s->requests, rec) != 0)
        return -1;
    switch (rec->type) {
    case CT_REC_ENTER: s->enters++; break;
    case CT_REC_LEAVE: s->returns++; break;
    case CT_REC_TAILCALL: s->tailcalls++; break;
    case CT_REC_UNWIND: s->unwinds++; break;
    case CT_REC_DROPPED: s->dropped += rec->count; break;
    case CT_REC_JIT:
        if (!rec->key) {
            s->jit_count = rec->count;
            s->jit_ns = rec->time_ns;
        }
        break;
    case CT_REC_HELD:
        if (ct_held_add(&s->held, &s->nheld, rec->tid, rec->count) != 0)
            return -1;
        break;
    case CT_REC_BUDGET: {
        uintptr_t was = (uintptr_t)ct_table_get(&s->budget, rec->key + 1);
        uint32_t step = was ? (uint32_t)((was - 1) & 3) : 0;
        if (rec->step != step)
            s->budget_steps++;
        uintptr_t now = (uintptr_t)((rec->count << 2 | rec->step) + 1);
        if (ct_table_put(&s->budget, rec->key + 1, (void *)now) != 0)
            return -1;
        break;
    }
    case CT_REC_ACTIVITY: {
        s->activities++;
        static const uint8_t zero[CT_TRACE_ID_BYTES];
        if (!memcmp(rec->trace_id, zero, CT_TRACE_ID_BYTES))
            break; /* no Activity */
        uint64_t a, b;
        memcpy(&a, rec->trace_id, 8);
        memcpy(&b, rec->trace_id + 8, 8);
        ct_key k = {a, b};
        if (!ct_table_get_key(&s->traces, k)) {
            if (ct_table_put_key(&s->traces, k, (void *)1) != 0)
                return -1;
            s->ntraces++;
        }
        break;
    }
    case CT_REC_SEGMENT:
        if (!s->segment_seen)
            s->first_segment = rec->key;
        s->segment_seen = 1;
        s->last_segment = rec->key;
        break;
    case CT_REC_INJECT:
        s->injected[0]++;
        if (rec->inject_action >= 1 && rec->inject_action <= 3)
            s->injected[rec->inject_action]++;
        break;
    case CT_REC_FUNCTION:
    case CT_REC_CLASS: {
        /* Each once: a segment of a --max-size trace repeats them. A class
         * id and a function key may be equal: one word each, apart. */
        ct_key k = {rec->key, rec->type};
        if (ct_table_get_key(&s->defined, k))
            break;
        if (ct_table_put_key(&s->defined, k, (void *)1) != 0)
            return -1;
        if (rec->type == CT_REC_FUNCTION)
            s->functions++;
        else
            s->classes++;
        break;
    }
    case CT_REC_END:
        s->ended = 1;
        s->mapped = rec->mapped;
        s->traced = rec->traced;
        s->unrewritten = rec->unrewritten;
        break;
    default: break;
    }
    if (ct_rec_is_event(rec->type) || rec->type == CT_REC_END) {
        if (rec->time_ns > s->last_time)
            s->last_time = rec->time_ns;
    }
    if (ct_rec_is_event(rec->type) && !ct_table_get(&s->tids, rec->tid + 1)) {
        /* The table wants non-NULL values; the key alone matters. */
        if (ct_table_put(&s->tids, rec->tid + 1, (void *)1) != 0)
            return -1;
        s->threads++;
    }
    return 0;
}

static void add_skipped(void *ctx, ct_key key, void *value)
{
    (void)key;
    *(uint64_t *)ctx += ((uintptr_t)value - 1) >> 2;
}

/* One trace read whole. */
typedef struct info_trace {
    cli_trace t;
    info_stats s;
    int damaged;              /* cli_trace_each failed (its line was printed) */
} info_trace;

/* Reads the trace at path (o->trace or one of its processes' traces) as o
 * says. */
static int info_read(info_trace *it, const cli_offline *o, const char *path)
{
    memset(&it->s, 0, sizeof it->s);
    it->damaged = 0;
    if (cli_trace_open_pid(&it->t, "info", path, o->pid) != 0)
        return -1;
    it->t.filter = &o->reading;
    it->t.quiet_incomplete = 1;
    it->s.requests = ct_bytrace_new();
    it->damaged = cli_trace_each(&it->t, "info", count, &it->s) != 0;
    if (it->s.requests && (ct_bytrace_finish(it->s.requests) != 0 ||
                           ct_bytrace_latency_of(it->s.requests, &it->s.latency) != 0))
        it->s.latency.n = 0;
    ct_bytrace_free(it->s.requests);
    it->s.requests = NULL;
    ct_table_free(&it->s.tids);
    it->s.budget_skipped = 0;
    ct_table_each(&it->s.budget, add_skipped, &it->s.budget_skipped);
    ct_table_free(&it->s.budget);
    ct_table_free(&it->s.traces);
    ct_table_free(&it->s.defined);
    if (it->s.nheld)
        ct_held_text(it->s.held, it->s.nheld, it->s.held_text, sizeof it->s.held_text);
    free(it->s.held);
    it->s.held = NULL;
    return 0;
}

static uint64_t calls_of(const info_stats *s)
{
    return s->returns + s->tailcalls + s->unwinds;
}

static const char *state_of(const info_trace *it)
{
    return it->damaged ? "damaged" : it->t.reader.incomplete ? "no" : "yes";
}

static void print_time(uint64_t unix_ns)
{
    time_t sec = (time_t)(unix_ns / 1000000000u);
    struct tm tm;
    char buf[64];
    if (!unix_ns || !gmtime_r(&sec, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm)) {
        printf("unknown\n");
        return;
    }
    printf("%s.%06u UTC\n", buf, (unsigned)(unix_ns % 1000000000u / 1000u));
}

static void describe(const info_trace *it)
{
    char where[96];
    const ct_trace_header *h = &it->t.reader.header;
    const info_stats *s = &it->s;
    printf("%-14s%s\n", "trace", it->t.path);
    const ct_reader *r = &it->t.reader;
    printf("%-14s%llu bytes", "size", (unsigned long long)it->t.len);
    if (r->zstd_records)
        printf(" (%llu uncompressed, in %llu zstd block%s)",
               (unsigned long long)(it->t.len + r->shift), (unsigned long long)r->zstd_records,
               r->zstd_records == 1 ? "" : "s");
    if (calls_of(s))
        printf(", %.1f bytes per call", (double)it->t.len / (double)calls_of(s));
    printf(", format %u.%u\n", h->major, h->minor);
    if (it->t.segments) {
        printf("%-14ssegments %llu to %llu (%u files joined, %llu bytes on disk); ", "max-size",
               (unsigned long long)s->first_segment, (unsigned long long)s->last_segment,
               it->t.segments, (unsigned long long)it->t.segments_bytes);
        if (s->first_segment)
            printf("0 to %llu dropped (replay says from when)\n",
                   (unsigned long long)s->first_segment - 1);
        else
            printf("none dropped\n");
    }
    printf("%-14s%.*s\n", "command line", (int)h->cmdline_len, h->cmdline);
    if (h->ppid)
        printf("%-14s%u (parent %u)\n", "process", h->pid, h->ppid);
    else
        printf("%-14s%u\n", "process", h->pid);
    int attached = ct_header_attached(h);
    printf("%-14s", attached ? "attached" : "started");
    print_time(h->start_unix_ns);
    if (attached && s->ended) {
        printf("%-14s", "detached");
        print_time(h->start_unix_ns + s->last_time);
    }
    printf("%-14s%llu.%06llu s%s\n", "duration", (unsigned long long)(s->last_time / 1000000000u),
           (unsigned long long)(s->last_time % 1000000000u / 1000u),
           s->ended ? "" : " (to the last event kept)");
    if (h->settings_len)
        printf("%-14s%.*s\n", "settings", (int)h->settings_len, h->settings);
    const char *engine = ct_header_engine(h);
    if (engine)
        printf("%-14s%s\n", "engine",
               !strcmp(engine, "il") ? "il (IL probes in the traced methods)"
                                     : "elt (the runtime's enter/leave hooks)");
    if (h->filter_len)
        printf("%-14s%.*s\n", "filter", (int)h->filter_len, h->filter);
    else
        printf("%-14snone (every function)\n", "filter");
    printf("%-14s%llu ended (%llu returned, %llu by exception, %llu by tail call); %llu entered\n",
           "calls", (unsigned long long)calls_of(s), (unsigned long long)s->returns,
           (unsigned long long)s->unwinds, (unsigned long long)s->tailcalls,
           (unsigned long long)s->enters);
    if (s->ended && s->unrewritten)
        printf("%-14s%llu traced (%llu the runtime mapped; %llu left as they were: the IL "
               "engine could not rewrite them)\n", "functions", (unsigned long long)s->functions,
               (unsigned long long)s->mapped, (unsigned long long)s->unrewritten);
    else if (s->ended && attached)
        printf("%-14s%llu traced (%llu methods rewritten)\n", "functions",
               (unsigned long long)s->functions, (unsigned long long)s->mapped);
    else if (s->ended)
        printf("%-14s%llu traced (%llu the runtime mapped)\n", "functions",
               (unsigned long long)s->functions, (unsigned long long)s->mapped);
    else
        printf("%-14s%llu traced\n", "functions", (unsigned long long)s->functions);
    printf("%-14s%llu\n", "threads", (unsigned long long)s->threads);
    printf("%-14s%llu events\n", "dropped", (unsigned long long)s->dropped);
    if (s->activities)
        printf("%-14s%llu distinct trace %s (W3C, the Activity current at calls), %llu "
               "changes\n", "trace ids", (unsigned long long)s->ntraces,
               s->ntraces == 1 ? "id" : "ids", (unsigned long long)s->activities);
    if (s->latency.n) {
        char p50[32], p90[32], p99[32], max[32];
        ct_format_duration(s->latency.p50, p50, sizeof p50);
        ct_format_duration(s->latency.p90, p90, sizeof p90);
        ct_format_duration(s->latency.p99, p99, sizeof p99);
        ct_format_duration(s->latency.max, max, sizeof max);
        printf("%-14sP50 %s, P90 %s, P99 %s, MAX %s (each trace id's wall time, %llu %s)\n",
               "requests", p50, p90, p99, max, (unsigned long long)s->latency.n,
               s->latency.n == 1 ? "request" : "requests");
    }
    if (s->injected[0])
        printf("%-14s%llu calls had a fault injected (--inject): %llu threw, %llu returned "
               "at once, %llu were delayed\n", "injected", (unsigned long long)s->injected[0],
               (unsigned long long)s->injected[1], (unsigned long long)s->injected[2],
               (unsigned long long)s->injected[3]);
    if (s->budget_skipped || s->budget_steps)
        printf("%-14s%llu calls not recorded (the budget, --limit, --rate), %llu %s\n", "budget",
               (unsigned long long)s->budget_skipped, (unsigned long long)s->budget_steps,
               s->budget_steps == 1 ? "step" : "steps");
    printf("%-14s%s\n", "tracer held", s->held_text[0] ? s->held_text : "nothing recorded");
    if (s->jit_count) {
        char d[32];
        ct_format_duration(s->jit_ns, d, sizeof d);
        printf("%-14s%llu methods compiled in %s\n", "jit", (unsigned long long)s->jit_count, d);
    } else {
        printf("%-14snot recorded\n", "jit");
    }
    if (it->damaged)
        printf("%-14sdamaged: %s at %s\n", "complete", ct_trace_strerror(it->t.reader.error),
               cli_trace_where(&it->t.reader, where, sizeof where));
    else if (it->t.reader.incomplete)
        printf("%-14sno: ends at offset %llu (the program was killed or crashed?)\n", "complete",
               (unsigned long long)it->t.reader.cut_offset);
    else
        printf("%-14syes\n", "complete");
}

/* A process's line in the table of a tree: what reading its trace found. */
typedef struct info_row {
    int read;                 /* the trace could be read (else its error was printed) */
    int damaged;
    uint64_t calls;
    const char *state;
} info_row;

static info_row row_of(const info_trace *it)
{
    return (info_row){1, it->damaged, calls_of(&it->s), state_of(it)};
}

static void info_read_row(const cli_offline *o, const char *path, info_row *row)
{
    static info_trace it;
    memset(row, 0, sizeof *row);
    if (info_read(&it, o, path) != 0)
        return;
    *row = row_of(&it);
    cli_trace_close(&it.t);
}

/* Every process of a recorded tree, one line each; the first one's row is
 * the one `first` already holds (its trace is not read again). */
static int process_table(const cli_offline *o, const cli_proc *procs, int n,
                         const info_row *first)
{
    int rc = 0;
    printf("\n%d traced processes:\n", n);
    printf("  %-8s %-8s %-10s %-9s %s\n", "PID", "PARENT", "CALLS", "COMPLETE", "COMMAND");
    for (int i = 0; i < n; i++) {
        info_row row;
        if (i == 0)
            row = *first;
        else
            info_read_row(o, procs[i].path, &row);
        if (!row.read || row.damaged)
            rc = 1;
        if (!row.read)
            continue;
        printf("  %-8u %-8u %-10llu %-9s %s\n", procs[i].pid, procs[i].ppid,
               (unsigned long long)row.calls, row.state, procs[i].cmd);
    }
    return rc;
}

/* Describes the trace at path; its row for a table into *row when row is not
 * NULL. */
static int info_one(const cli_offline *o, const char *path, info_row *row)
{
    static info_trace it;
    if (row)
        memset(row, 0, sizeof *row);
    if (info_read(&it, o, path) != 0)
        return 1;
    describe(&it);
    if (row)
        *row = row_of(&it);
    int rc = it.damaged;
    cli_trace_close(&it.t);
    return rc;
}

int cmd_info(int argc, char **argv)
{
    cli_offline o;
    if (cli_offline_parse(&o, "info", argc, argv) != 0)
        return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    const char *arg = o.trace;
    if (!cli_is_dir(arg) || o.pid > 0)
        return info_one(&o, arg, NULL);
    int n, rc = 0;
    cli_proc *procs = cli_trace_list(arg, &n);
    if (n <= 0) {
        /* No trace at all: say why as the reader would. */
        free(procs);
        return info_one(&o, arg, NULL);
    }
    if (o.pid == CLI_PID_ALL) {
        for (int i = 0; i < n; i++) {
            if (i)
                printf("\n");
            if (info_one(&o, procs[i].path, NULL))
                rc = 1;
        }
    } else {
        info_row first;
        rc = info_one(&o, procs[0].path, &first);
        if (n > 1 && process_table(&o, procs, n, &first))
            rc = 1;
    }
    free(procs);
    if (fflush(stdout) != 0) {
        perror("clrtrace: stdout");
        return 1;
    }
    return rc;
}
