/* clrtrace dump DIR: the records of a binary trace, one line each (for
 * looking inside a trace and for tests); with --folded, --flame or --chrome
 * the trace in another tool's format (folded.c, flame.c, chrome.c); with
 * --perfetto in Perfetto's protobuf format (perfetto.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace dump DIR\n"
        "       clrtrace dump --folded [--calls] DIR\n"
        "       clrtrace dump --flame [--calls] [--width PX] [--title TEXT] DIR\n"
        "                                                               > flame.svg\n"
        "       clrtrace dump --chrome DIR > trace.json\n"
        "       clrtrace dump --perfetto DIR > trace.pftrace\n"
        "       clrtrace dump --otlp [--otlp-max-spans N] DIR > spans.pb\n"
        "       clrtrace dump --otlp-endpoint http://HOST:PORT [--otlp-max-spans N] DIR\n"
        "\n"
        "Without an option, prints the header and every record of the trace in DIR (or\n"
        "the trace file itself), one line each, in file order (the records of a zstd\n"
        "block in its place; offsets count the records uncompressed):\n"
        "  header   version, pid, start (Unix ns), command line, filter, settings\n"
        "  FUNCTION key, flags, parameters, name\n"
        "  CLASS    class id, name          THREAD  thread id, name\n"
        "  ENTER / LEAVE / TAILCALL / UNWIND  time (ns), thread id, key, values\n"
        "  DROPPED  thread id, events\n"
        "  END      time, events, functions mapped, traced (and left as they were)\n"
        "\n"
        "  --folded       folded stacks: one line per distinct call stack, frames joined\n"
        "                 by ';', a space, then the self time in ns (the input of flame\n"
        "                 graph tools such as flamegraph.pl)\n"
        "  --flame        an SVG flame graph of the same stacks, weighted by time: each\n"
        "                 frame as wide as its total time (hover for name, value, share)\n"
        "  --calls        with --folded or --flame: weigh by calls instead of time\n"
        "  --width PX     the flame graph's width (%d to %d, default %d)\n"
        "  --title TEXT   the flame graph's title (default \"Flame Graph\")\n"
        "  --chrome       Chrome Trace Event Format JSON for Perfetto (ui.perfetto.dev)\n"
        "                 or chrome://tracing: one complete event per call (ts and dur\n"
        "                 in us), its arguments and return value in args (and the\n"
        "                 trace_id and span_id of the Activity it entered under, if\n"
        "                 any), thread names\n"
        "  --perfetto     Perfetto's protobuf trace format for ui.perfetto.dev and\n"
        "                 trace_processor, far smaller than --chrome's JSON: a track\n"
        "                 per thread, a slice per call (begin and end, ns), the same\n"
        "                 args (trace_id, span_id too) as debug annotations, names\n"
        "                 interned; no call limit\n"
        "  --otlp         OpenTelemetry spans: an OTLP ExportTraceServiceRequest\n"
        "                 (protobuf) with a span per call, named by its method, parent\n"
        "                 the enclosing call; attributes arg.NAME (the arguments' text),\n"
        "                 return, at_return, thread.id; an exception as an \"exception\"\n"
        "                 event and status ERROR; resource service.name, process.pid,\n"
        "                 process.command_line (see docs/cli.md)\n"
        "  --otlp-endpoint URL  the same spans POSTed over OTLP/HTTP to an http:// URL\n"
        "                 (no TLS; path /v1/traces when the URL has none), in requests\n"
        "                 of at most --otlp-max-spans spans\n"
        "  --otlp-max-spans N  spans per request (per ResourceSpans on stdout): 1 to\n"
        "                 %u (default %u)\n"
        "  --max-calls N  with --chrome: write nothing, and say how to keep fewer, when\n"
        "                 more than N calls would be written (default %u; 0: no\n"
        "                 limit)\n"
        "  --pid N        the process N of a recorded process tree (default: the process\n"
        "                 the launcher started)\n"
        "  -h, --help     show this help\n"
        "filters (what every format shows; records of hidden calls are left out):\n"
        "%s"
        "selection (before the filters; what is left out leaves its time to its caller):\n"
        "%s"
        "\n"
        "Calls still open when the trace ends are not counted by --folded and --flame;\n"
        "--chrome, --perfetto and --otlp close them at the trace's last time, with\n"
        "\"unfinished\": true. Calls more than %d levels deep are left out (their time\n"
        "stays in their caller).\n"
        "\n"
        "Exit status: 0; 1 when the trace cannot be read or is damaged (one line on\n"
        "stderr gives the byte offset; what came before it is written, and --chrome's\n"
        "JSON and --perfetto's trace are still complete); 1 when an --otlp-endpoint\n"
        "refuses the spans (not 2xx) or cannot be reached (one line); 2 usage error.\n",
        FLAME_MIN_WIDTH, FLAME_MAX_WIDTH, FLAME_DEFAULT_WIDTH, CLI_OTLP_MAX_SPANS_LIMIT,
        CLI_OTLP_MAX_SPANS, CLI_CHROME_MAX_CALLS,
        cli_tree_filter_help(),
        cli_selection_help(),
        CLI_CALLS_MAX_DEPTH);
}

static const char *const k_names[] = {
    "?", "FUNCTION", "THREAD", "ENTER", "LEAVE", "TAILCALL", "UNWIND", "DROPPED", "CLASS", "END",
    "EVENTS", "HELD", "JIT", "ZSTD", "BUDGET", "ACTIVITY", "ASYNC_RETURN", "ASYNC_FAULT", "LINE",
    "LOCALS", "INJECT", "SEGMENT",
};
_Static_assert(sizeof k_names / sizeof *k_names == CT_REC_TYPE_COUNT, "a name per record type");

static int dump(void *ctx, const ct_rec *r)
{
    (void)ctx;
    const char *name = (unsigned)r->type < CT_REC_TYPE_COUNT ? k_names[r->type] : "?";
    printf("%" PRIu64 " %s", r->offset, name);
    switch (r->type) {
    case CT_REC_FUNCTION:
        printf(" key=0x%" PRIx64 " flags=%u params=%u %.*s\n", r->key, r->flags, r->nparams,
               (int)r->name_len, r->name);
        break;
    case CT_REC_CLASS:
        printf(" class=0x%" PRIx64 " %.*s\n", r->key, (int)r->name_len, r->name);
        break;
    case CT_REC_THREAD:
        printf(" tid=%" PRIu64 " %.*s\n", r->tid, (int)r->name_len, r->name);
        break;
    case CT_REC_ENTER: case CT_REC_LEAVE: case CT_REC_TAILCALL: case CT_REC_UNWIND:
    case CT_REC_ASYNC_RETURN: case CT_REC_ASYNC_FAULT: case CT_REC_LOCALS:
        printf(" t=%" PRIu64 " tid=%" PRIu64 " key=0x%" PRIx64 " values=%u held=%" PRIu64 "\n",
               r->time_ns, r->tid, r->key, r->nvalues, r->held_ns);
        break;
    case CT_REC_DROPPED:
        printf(" tid=%" PRIu64 " events=%" PRIu64 "\n", r->tid, r->count);
        break;
    case CT_REC_HELD:
        printf(" tid=%" PRIu64 " ns=%" PRIu64 "\n", r->tid, r->count);
        break;
    case CT_REC_BUDGET:
        printf(" t=%" PRIu64 " key=0x%" PRIx64 " tid=%" PRIu64 " skipped=%" PRIu64
               " step=%u share=%u\n",
               r->time_ns, r->key, r->tid, r->count, r->step, r->share_permille);
        break;
    case CT_REC_ACTIVITY: {
        char trace[2 * CT_TRACE_ID_BYTES + 1], span[2 * CT_SPAN_ID_BYTES + 1];
        ct_trace_id_text(r->trace_id, trace);
        ct_span_id_text(r->span_id, span);
        printf(" t=%" PRIu64 " tid=%" PRIu64 " trace=%s span=%s\n", r->time_ns, r->tid, trace,
               span);
        break;
    }
    case CT_REC_INJECT:
        printf(" t=%" PRIu64 " tid=%" PRIu64 " key=0x%" PRIx64 " inject=%u action=%u\n",
               r->time_ns, r->tid, r->key, r->inject_index, r->inject_action);
        break;
    case CT_REC_SEGMENT:
        printf(" t=%" PRIu64 " segment=%" PRIu64 " bytes_before=%" PRIu64 "\n", r->time_ns,
               r->key, r->count);
        break;
    case CT_REC_LINE:
        printf(" t=%" PRIu64 " tid=%" PRIu64 " key=0x%" PRIx64 " line=%u%s\n", r->time_ns, r->tid,
               r->key, r->src_line, r->flags & CT_LINE_THROWN ? " thrown" : "");
        break;
    case CT_REC_JIT:
        printf(" key=0x%" PRIx64 " count=%" PRIu64 " ns=%" PRIu64 " tid=%" PRIu64 "\n", r->key,
               r->count, r->time_ns, r->tid);
        break;
    case CT_REC_END:
        printf(" t=%" PRIu64 " events=%" PRIu64 " mapped=%" PRIu64 " traced=%" PRIu64,
               r->time_ns, r->count, r->mapped, r->traced);
        if (r->unrewritten)
            printf(" unrewritten=%" PRIu64, r->unrewritten);
        printf("\n");
        break;
    default:
        printf("\n");
        break;
    }
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    cli_offline o;
    if (cli_offline_parse(&o, "dump", argc, argv) != 0)
        return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    cli_trace t;
    if (cli_trace_open_pid(&t, "dump", o.trace, o.pid) != 0)
        return 1;
    t.filter = &o.reading;
    const cli_dump_opts *d = &o.dump;
    flame_opts fo = {.by_calls = d->by_calls, .width = d->width, .title = d->title};
    int rc;
    switch (d->format) {
    case CLI_DUMP_FOLDED:
        rc = cli_dump_folded(&t, d->by_calls);
        break;
    case CLI_DUMP_FLAME:
        rc = cli_dump_flame(&t, &fo);
        break;
    case CLI_DUMP_CHROME:
        rc = cli_dump_chrome(&t, d->max_calls);
        break;
    case CLI_DUMP_PERFETTO:
        rc = cli_dump_perfetto(&t);
        break;
    case CLI_DUMP_OTLP: {
        cli_otlp_opts oo = { .endpoint = d->endpoint.url[0] ? &d->endpoint : NULL,
                             .max_spans = d->otlp_max_spans, .ids = NULL };
        rc = cli_dump_otlp(&t, &oo);
        break;
    }
    default: {
        const ct_trace_header *h = &t.reader.header;
        printf("header version=%u.%u pid=%u start=%" PRIu64
               " cmdline=%.*s filter=%.*s settings=%.*s\n",
               h->major, h->minor, h->pid, h->start_unix_ns, (int)h->cmdline_len, h->cmdline,
               (int)h->filter_len, h->filter, (int)h->settings_len, h->settings);
        rc = cli_trace_each(&t, "dump", dump, NULL);
        break;
    }
    }
    cli_trace_close(&t);
    return rc;
}
