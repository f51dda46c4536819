/* clrtrace replay DIR: the text log of a binary trace, rendered by the same
 * code as the profiler's live log (src/views/render.h), so it is the
 * same text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/render.h"
#include "cli.h"

/* stdout is written in blocks of this size. */
#define REPLAY_STDOUT_BUFFER (1 << 20)

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace replay [options] DIR\n"
        "\n"
        "Prints the text log of the trace in DIR (written by `clrtrace record -o DIR`;\n"
        "DIR may also be the trace file itself): every call with its arguments, return\n"
        "value, thread and duration, then the summary table. It is the text `clrtrace\n"
        "run` prints while the program runs.\n"
        "\n"
        "options:\n"
        "      --no-summary       leave out the summary table\n"
        "      --jit              a line \"# jit TIME\" above the call that made the JIT\n"
        "                         compile a traced function (the compilation's time,\n"
        "                         which no duration holds), and a JIT column in the\n"
        "                         summary\n"
        "      --srcline[=full]   end call lines with where the function is, \" at\n"
        "                         Orders.cs:42\", and exceptions with the line they\n"
        "                         were thrown at or left a frame at (traces recorded\n"
        "                         with --srcline; full: whole paths)\n"
        "      --pid N|all        the process N of a recorded process tree, or each in\n"
        "                         turn (default: the process the launcher started,\n"
        "                         followed by one line naming each other traced process)\n"
        "%s"
        "  -h, --help             show this help\n"
        "selection (before the filters; what is left out leaves its time to its caller):\n"
        "%s"
        "\n"
        "A trace without its end (the program was killed or crashed) is printed up to\n"
        "where it ends, with one line on stderr saying so.\n"
        "\n"
        "Exit status: 0; 1 when the trace cannot be read or is damaged (one line on\n"
        "stderr gives the byte offset; what came before it is printed); 2 for a usage\n"
        "error.\n",
        cli_tree_filter_help(), cli_selection_help());
}

static void to_stdout(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

int cli_render_feed(void *r, const ct_rec *rec)
{
    return ct_render_record(r, rec);
}

static int render_one(const cli_offline *o, const char *path);

/* The other processes of a recorded tree, after the root's output:
 * "# traced child process PID (parent PPID): COMMAND". */
static void name_children(const char *dir, const char *root_path)
{
    int n;
    cli_proc *procs = cli_trace_list(dir, &n);
    for (int i = 0; i < n; i++)
        if (strcmp(procs[i].path, root_path) != 0)
            printf("# traced child process %u (parent %u): %s\n", procs[i].pid, procs[i].ppid,
                   procs[i].cmd);
    free(procs);
}

/* Shared by replay (lines) and report (summary only): the root process's
 * trace of a directory, one process's (--pid N) or each in turn (--pid all). */
int cli_render(const cli_offline *o)
{
    if (!cli_is_dir(o->trace) || o->pid != CLI_PID_ALL)
        return render_one(o, o->trace);
    int n, rc = 0;
    cli_proc *procs = cli_trace_list(o->trace, &n);
    if (n <= 0) {
        fprintf(stderr, "clrtrace %s: no trace in %s\n", o->who, o->trace);
        free(procs);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        if (i)
            printf("\n");
        int r = render_one(o, procs[i].path);
        if (r)
            rc = r;
    }
    free(procs);
    return rc;
}

/* The trace at path (o->trace or one of its processes' traces). */
static int render_one(const cli_offline *o, const char *path)
{
    const char *who = o->who;
    cli_trace t;
    if (cli_trace_open_pid(&t, who, path, o->pid) != 0)
        return 1;
    t.filter = &o->reading;
    static char buf[REPLAY_STDOUT_BUFFER];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    ct_render *r = ct_render_new(&o->render, to_stdout, NULL);
    if (!r) {
        fprintf(stderr, "clrtrace %s: out of memory\n", who);
        cli_trace_close(&t);
        return 1;
    }
    ct_render_header(r, &t.reader.header);
    int rc = cli_trace_each(&t, who, cli_render_feed, r);
    ct_render_finish(r);
    ct_render_free(r);
    if (cli_is_dir(path) && o->pid == 0)
        name_children(path, t.path);
    cli_trace_close(&t);
    if (fflush(stdout) != 0) {
        perror("clrtrace: stdout");
        return 1;
    }
    return rc;
}

int cmd_replay(int argc, char **argv)
{
    cli_offline o;
    if (cli_offline_parse(&o, "replay", argc, argv) != 0)
        return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    return cli_render(&o);
}
