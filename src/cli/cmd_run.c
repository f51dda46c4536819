/* clrtrace run [options] [--] program [args...]
 * clrtrace record -o DIR [options] [--] program [args...]
 *
 * Starts a program with the CoreCLR profiler enabled and the options passed
 * in the environment, forwards the usual termination signals to it, and exits
 * with the program's own status (128 + N when it dies of signal N, like a
 * shell). `run` prints the live text log; `record` writes the binary trace
 * DIR/trace.clrt (and, with --text FILE, the live text log too). */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "views/treefilter.h"
#include "format/expr.h"
#include "format/inject_spec.h"
#include "format/launch.h"
#include "format/words.h"
#include "format/settings.h"
#include "cli.h"

#ifndef CLRTRACE_PROFILER_DIR
#define CLRTRACE_PROFILER_DIR "../lib/clrtrace" /* set by CMakeLists.txt */
#endif

/* The JIT's switch for turning self-recursive tail calls into loops
 * (JitConfig TailCallLoopOpt, read by release runtimes), both spellings. */
#define TAIL_LOOP_KNOB "DOTNET_TailCallLoopOpt"
#define TAIL_LOOP_KNOB_OLD "COMPlus_TailCallLoopOpt"
/* The JIT's switch for opportunistic tail calls (JitConfig TailCallOpt: a
 * call just before `ret` made as a jump), both spellings. */
#define TAIL_OPT_KNOB "DOTNET_TailCallOpt"
#define TAIL_OPT_KNOB_OLD "COMPlus_TailCallOpt"

/* The launcher's own options, after the settings' (which come from the
 * settings table, src/format/settings.h). */
static const char k_launcher_options[] =
    "  -p, --pid PID          trace the running .NET process PID instead of starting a\n"
    "                         program: the chosen methods are rewritten (IL engine)\n"
    "                         until Ctrl-C, SIGTERM or --duration, then restored; the\n"
    "                         process runs on (docs/cli.md, \"Attaching\")\n"
    "  -d, --duration TIME    with -p: trace for TIME (a number and ms or s), then stop\n"
    "      --tail-call-loops  let the JIT turn self-recursive tail calls into loops\n"
    "                         (by default DOTNET_TailCallLoopOpt=0 keeps them calls,\n"
    "                         so that each one is traced)\n"
    "      --jit-tail-calls   let the JIT make a call just before a return a tail call\n"
    "                         (by default DOTNET_TailCallOpt=0 keeps it a call, so\n"
    "                         that the caller returns when it really does)\n"
    "      --profiler PATH    use this libclrtrace.so instead of the one installed\n"
    "  -h, --help             show this help\n";

/* "Each option is also an environment variable ...": the variables of the
 * settings that have an option, wrapped at 80 columns. */
static void env_note(FILE *to)
{
    fputs("Options given as --name=VALUE work too. Each option is also an environment\n"
          "variable of the traced process, for use without the launcher (lists joined\n"
          "by ':'):", to);
    int col = 8; /* after "by ':'):" */
    for (int k = 0; k < CT_SETTING_COUNT; k++) {
        const ct_setting *s = &ct_settings[k];
        if (!s->longopt && k != CT_SET_OUTPUT && k != CT_SET_TRACE)
            continue;
        int w = (int)strlen(s->env) + 2;
        if (col + w > 80) {
            fputs("\n", to);
            col = 0;
        } else {
            fputs(" ", to);
            col++;
        }
        col += fprintf(to, "%s,", s->env);
    }
    fprintf(to, "\nand %s=0 for names only (see docs/cli.md, docs/tracer.md).\n",
            ct_settings[CT_SET_SIGNATURES].env);
}

static void usage(FILE *to, int record)
{
    if (record)
        fputs("usage: clrtrace record -o DIR [options] [--] PROGRAM [ARGS...]\n"
              "       clrtrace record -o DIR -p PID [-d TIME] [options]\n"
              "\n"
              "Runs PROGRAM (usually `dotnet App.dll` or an apphost) with the clrtrace profiler\n"
              "and writes its calls, with argument and return values, threads and times, to\n"
              "the binary trace DIR/trace.clrt (DIR is created if needed; the file is created\n"
              "mode 0600). Read it with `clrtrace replay DIR` (the text log) and `clrtrace\n"
              "report DIR` (the summary table).\n"
              "\n"
              "options:\n"
              "  -o, --output DIR       the trace directory (required)\n"
              "      --text FILE        also write the live text log to FILE (created mode\n"
              "                         0600); it equals `clrtrace replay DIR`\n"
              "      --no-summary       no summary table at the end of --text FILE\n",
              to);
    else
        fputs("usage: clrtrace run [options] [--] PROGRAM [ARGS...]\n"
              "       clrtrace run -p PID [-d TIME] [options]\n"
              "\n"
              "Runs PROGRAM (usually `dotnet App.dll` or an apphost) with the clrtrace profiler\n"
              "and logs every call of the program's own code, with arguments, return values,\n"
              "thread and duration, followed by a summary.\n"
              "\n"
              "options:\n"
              "  -o, --output FILE      write the trace to FILE (created mode 0600; default:\n"
              "                         stderr)\n"
              "      --no-summary       do not print the per-function summary at exit\n",
              to);
    ct_settings_help(to, CT_GROUP_SELECT);
    ct_settings_help(to, CT_GROUP_FILTER);
    ct_settings_help(to, CT_GROUP_VALUES);
    ct_settings_help(to, CT_GROUP_MODE);
    ct_settings_help(to, CT_GROUP_INJECT);
    fputs(k_launcher_options, to);
    fputs("\n"
          "Exit status: the program's own; 127 if it cannot be started; 2 for a usage\n"
          "error. With -p: 0 once the trace is finished; 1 when the process cannot be\n"
          "traced (one line says why; the process is left as it was).\n",
          to);
    env_note(to);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The profiler next to this executable (installed: CLRTRACE_PROFILER_DIR,
 * from BINDIR to LIBDIR/clrtrace; build tree: src/agent/). Writes an
 * absolute path: the runtime requires one. */
static int find_profiler(char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    static const char *const rel[] = {
        "", "/src/agent", ("/" CLRTRACE_PROFILER_DIR), "/../lib/clrtrace",
    };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[PATH_MAX + 300];
        /* An absolute CLRTRACE_PROFILER_DIR stands alone. */
        const char *base = rel[i][0] == '/' && rel[i][1] == '/' ? "" : exe;
        snprintf(cand, sizeof cand, "%s%s/%s", base, base[0] ? rel[i] : rel[i] + 1,
                 CLRTRACE_PROFILER_FILE);
        char real[PATH_MAX];
        if (file_exists(cand) && realpath(cand, real) && strlen(real) < cap) {
            snprintf(out, cap, "%s", real);
            return 0;
        }
    }
    return -1;
}

/* An absolute form of path (relative to the current directory): the
 * program may change directory before the profiler opens it. */
static int absolute(const char *path, char *out, size_t cap)
{
    if (path[0] == '/')
        return (size_t)snprintf(out, cap, "%s", path) < cap ? 0 : -1;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    return (size_t)snprintf(out, cap, "%s/%s", cwd, path) < cap ? 0 : -1;
}

/* mkdir -p, mode 0700 for what it creates; *created counts the folders it
 * made (the last components of path). */
static int make_dirs(const char *path, int *created)
{
    char p[PATH_MAX];
    *created = 0;
    if ((size_t)snprintf(p, sizeof p, "%s", path) >= sizeof p)
        return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0700) == 0)
            ++*created;
        else if (errno != EEXIST)
            return -1;
        *s = '/';
    }
    if (mkdir(p, 0700) == 0)
        ++*created;
    else if (errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(p, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static volatile sig_atomic_t child_pid;
/* The program could not be started (exec failed): nothing to report after. */
static int g_exec_failed;

static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

/* Runs argv[0..] with the environment prepared; returns its status. */
static int launch(const char *who, char **argv)
{
    /* Errors from exec come back through a close-on-exec pipe. */
    int fds[2];
    if (pipe(fds) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
        fprintf(stderr, "clrtrace %s: pipe: %s\n", who, strerror(errno));
        return 127;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "clrtrace %s: fork: %s\n", who, strerror(errno));
        return 127;
    }
    if (pid == 0) {
        close(fds[0]);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(fds[1]);
    child_pid = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
        sigaction(sigs[k], &sa, NULL);

    int exec_errno = 0;
    ssize_t r;
    do {
        r = read(fds[0], &exec_errno, sizeof exec_errno);
    } while (r < 0 && errno == EINTR);
    close(fds[0]);

    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "clrtrace %s: waitpid: %s\n", who, strerror(errno));
            return 127;
        }
    }
    if (r == (ssize_t)sizeof exec_errno) {
        g_exec_failed = 1;
        fprintf(stderr, "clrtrace %s: cannot run '%s': %s\n", who, argv[0], strerror(exec_errno));
        return 127;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* An output file the profiler will write: an error now, before the program
 * runs, rather than an untraced run (as strace does). */
static int check_writable(const char *who, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "clrtrace %s: cannot write the trace to %s: it is a directory\n", who,
                path);
        return -1;
    }
    int existed = stat(path, &st) == 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "clrtrace %s: cannot write the trace to %s: %s\n", who, path,
                strerror(errno));
        return -1;
    }
    close(fd);
    if (!existed)
        unlink(path);
    return 0;
}

/* Removes DIR/trace.clrt and DIR/trace.PID.clrt. */
static void remove_traces(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        /* trace.clrt, trace.PID.clrt, and --max-size's older segments
         * (trace.clrt.1, trace.PID.clrt.3): a reader would join them. */
        const char *seg = strstr(e->d_name, ".clrt.");
        int older = seg && seg[6] >= '1' && seg[6] <= '9' && !seg[7];
        if (!strncmp(e->d_name, "trace.", 6) && n >= 10 &&
            (!strcmp(e->d_name + n - 5, ".clrt") || older))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* After the program: which processes were traced, and where (the index's
 * lines, src/agent/writer/outputs.h). Says so when the runtime never loaded the
 * profiler: not a .NET program, or a profiler it could not load. */
static void report_processes(const char *who, const char *index, const char *program,
                             const char *text_log, int record)
{
    if (g_exec_failed)
        return;
    FILE *f = fopen(index, "re");
    char line[4096];
    int loaded = 0;
    unsigned long me = (unsigned long)getpid();
    while (f && fgets(line, sizeof line, f)) {
        unsigned long pid = 0, ppid = 0;
        char state[32];
        int used = 0;
        if (sscanf(line, "%lu %lu %31s%n", &pid, &ppid, state, &used) != 3)
            continue;
        loaded++;
        if (ppid == me || strcmp(state, "traced") != 0)
            continue;
        /* "\tTEXT\tTRACE\tCOMMAND" */
        char *text = line + used + 1, *bin = strchr(text, '\t'), *cmd = bin ? strchr(bin + 1, '\t') : NULL;
        if (!bin || !cmd)
            continue;
        *bin++ = '\0';
        *cmd++ = '\0';
        cmd[strcspn(cmd, "\n")] = '\0';
        const char *where = record ? bin : !text_log ? "stderr" : text;
        fprintf(stderr, "clrtrace %s: pid %lu (%s) traced to %s\n", who, pid, cmd, where);
    }
    if (f)
        fclose(f);
    if (!loaded)
        fprintf(stderr, "clrtrace %s: the .NET runtime never loaded the profiler: '%s' is not a "
                "(CoreCLR) .NET program, or its runtime could not load %s; nothing was traced\n",
                who, program, getenv("CORECLR_PROFILER_PATH") ? getenv("CORECLR_PROFILER_PATH") : "?");
}

/* The launcher's own options that take a value. */
static int launcher_value_option(const char *a, int record)
{
    return !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--profiler") ||
           !strcmp(a, "-p") || !strcmp(a, "--pid") || !strcmp(a, "-d") ||
           !strcmp(a, "--duration") || (record && !strcmp(a, "--text"));
}

/* Whether option a takes a value (a following argument or --name=VALUE). */
static int takes_value(const char *a, int record)
{
    int id = ct_setting_by_option(a);
    if (id >= 0)
        return !ct_settings[id].sets;
    return launcher_value_option(a, record);
}

int cli_trace_takes_value(const char *opt)
{
    return takes_value(opt, 1);
}

/* What run or record was asked: the options parsed (trace_parse), checked
 * (trace_check). */
typedef struct trace_opts {
    const char *who;         /* "run" or "record" */
    int record;              /* record: -o is the trace directory */
    int help;                /* -h/--help: only the usage is wanted */
    const char *output, *text, *profiler, *pid_text, *duration_text;
    int tail_loops;          /* --tail-call-loops */
    int jit_tail_calls;      /* --jit-tail-calls */
    /* What each setting's variable gets (NULL: not given); repeatable
     * patterns joined by ':' in lists. */
    const char *given[CT_SETTING_COUNT];
    char lists[CT_SETTING_COUNT][CT_FILTER_MAX_GLOBS_TEXT];
    char when[CT_WHEN_MAX_TEXT + 1]; /* --when's conditions, one a line */
    unsigned nwhen;
    char at[CT_AT_MAX_TEXT + 1]; /* --at's lines */
    unsigned nat;
    char inject[CT_INJECT_MAX_TEXT + 1]; /* --inject's lines */
    unsigned ninject;
    char args_chosen[CT_CHOSEN_MAX_TEXT + 1]; /* -A's, one a line */
    char ret_chosen[CT_CHOSEN_MAX_TEXT + 1];  /* -R's, one a line */
    unsigned nargs_chosen, nret_chosen;
    char **program;          /* the program and its arguments (NULL-ended) */
    int has_program;
    unsigned long pid;       /* -p (0: start the program) */
    uint64_t duration_ns;    /* -d (0: none) */
} trace_opts;

/* Where the tracing goes, resolved from the options (trace_paths). */
typedef struct trace_paths {
    char lib[PATH_MAX];      /* the profiler, absolute */
    const char *text_log;    /* the text log (absolute; NULL: stderr or none) */
    const char *trace;       /* record: the binary trace (absolute), else NULL */
    char textpath[PATH_MAX], tracepath[PATH_MAX];
    char dir[PATH_MAX];      /* record: the trace directory (absolute) */
    int dirs_made;           /* record: folders of dir that clrtrace created */
} trace_paths;

/* Parses argv (argv[0] the command) into *o: 0 (o->help set when -h/--help
 * came), or -1 after one usage-error line. */
static int trace_parse(trace_opts *o, int argc, char **argv, int record)
{
    const char *who = record ? "record" : "run";
    memset(o, 0, sizeof *o);
    o->who = who;
    o->record = record;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        /* --name=VALUE */
        char name[32];
        int inline_val = 0;
        const char *inline_text = NULL;
        int form = cli_inline_form(a, name, sizeof name, &inline_text);
        if (form < 0) {
            fprintf(stderr, "clrtrace %s: unknown option '%s' (try --help)\n", who, a);
            return -1;
        }
        if (form) {
            if (!takes_value(name, record))
                return cli_no_value(who, name);
            a = name;
            val = inline_text;
            inline_val = 1;
        }
        int id = ct_setting_by_option(a);
        const ct_setting *s = id >= 0 ? &ct_settings[id] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (a[0] != '-') {
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            return 0;
        } else if (!strcmp(a, "--tail-call-loops")) {
            o->tail_loops = 1;
        } else if (!strcmp(a, "--jit-tail-calls")) {
            o->jit_tail_calls = 1;
        } else if (s && (s->kind == CT_KIND_NULL || s->kind == CT_KIND_SRCLINE)) {
            /* --null, --null=slow, --null=fast; --srcline, --srcline=full */
            uint64_t v;
            if (inline_val && cli_setting_value(who, a, id, val, &v) != 0)
                return -1;
            o->given[id] = inline_val ? val : "1";
        } else if (s && s->sets) {
            o->given[id] = s->sets;
        } else if (!s && !launcher_value_option(a, record)) {
            fprintf(stderr, "clrtrace %s: unknown option '%s' (try --help)\n", who, a);
            return -1;
        } else if (!val) {
            fprintf(stderr, "clrtrace %s: %s needs a value (try --help)\n", who, a);
            return -1;
        } else {
            if (!inline_val)
                i++;
            uint64_t v;
            if (s && s->kind == CT_KIND_GLOBS) {
                if (cli_add_glob(who, a, o->lists[id], sizeof o->lists[id], val) != 0)
                    return -1;
                o->given[id] = o->lists[id];
            } else if (s && s->kind == CT_KIND_WHEN) {
                if (cli_add_when(who, a, o->when, sizeof o->when, &o->nwhen, val) != 0)
                    return -1;
                o->given[id] = o->when;
            } else if (s && s->kind == CT_KIND_INJECT) {
                if (cli_add_inject(who, a, o->inject, sizeof o->inject, &o->ninject, val) != 0)
                    return -1;
                o->given[id] = o->inject;
            } else if (s && s->kind == CT_KIND_AT) {
                if (cli_add_at(who, a, o->at, sizeof o->at, &o->nat, val) != 0)
                    return -1;
                o->given[id] = o->at;
            } else if (s && s->kind == CT_KIND_CHOSEN) {
                int ret = id == CT_SET_RET_CHOSEN;
                char *list = ret ? o->ret_chosen : o->args_chosen;
                if (cli_add_chosen(who, a, ret, list, sizeof o->args_chosen,
                                   ret ? &o->nret_chosen : &o->nargs_chosen, val) != 0)
                    return -1;
                o->given[id] = list;
            } else if (s) {
                if (cli_setting_value(who, a, id, val, &v) != 0)
                    return -1;
                o->given[id] = val;
            } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
                o->output = val;
            } else if (!strcmp(a, "--text")) {
                o->text = val;
            } else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
                o->pid_text = val;
            } else if (!strcmp(a, "-d") || !strcmp(a, "--duration")) {
                o->duration_text = val;
            } else {
                o->profiler = val;
            }
        }
    }
    o->program = argv + i;
    o->has_program = i < argc;
    return 0;
}

/* Whether the options go together, and -p's and -d's values (into o->pid,
 * o->duration_ns): 0, or -1 after one usage-error line. */
/* Whether a spec of list (--inject's lines, each parsed already) has a
 * condition. */
static int inject_reads_values(const char *list)
{
    static ct_inject_spec spec; /* 18 KiB */
    ct_expr_error err;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, "\n");
        char one[CT_EXPR_MAX_TEXT + 1];
        if (len && len <= CT_EXPR_MAX_TEXT) {
            memcpy(one, p, len);
            one[len] = '\0';
            if (ct_inject_parse(one, &spec, &err) == 0 && spec.has_when)
                return 1;
        }
        p += len + (p[len] ? 1 : 0);
    }
    return 0;
}

static int trace_check(trace_opts *o)
{
    const char *who = o->who;
    if (o->record && !o->output) {
        fprintf(stderr, "clrtrace record: -o DIR is required (try --help)\n");
        return -1;
    }
    if (!o->record && o->given[CT_SET_MAX_SIZE]) {
        fprintf(stderr, "clrtrace run: --max-size bounds a binary trace: use clrtrace record -o "
                "DIR --max-size SIZE (its text log, --text FILE, is not bounded)\n");
        return -1;
    }
    if (o->pid_text) {
        const char *pid_text = o->pid_text;
        uint64_t pid = 0;
        if (ct_parse_whole(pid_text, 1, CLI_PID_MAX, &pid) != 0) {
            fprintf(stderr, "clrtrace %s: -p needs a process id, not '%s'\n", who, pid_text);
            return -1;
        }
        o->pid = (unsigned long)pid;
        if (o->has_program) {
            fprintf(stderr, "clrtrace %s: -p PID traces a running process: give no program "
                    "too (try --help)\n", who);
            return -1;
        }
        if (o->given[CT_SET_NULL] || o->given[CT_SET_BENCH_NAIVE] || o->given[CT_SET_FOLLOW] ||
            o->tail_loops || o->jit_tail_calls) {
            fprintf(stderr, "clrtrace %s: --null, --follow/--no-follow, --tail-call-loops and "
                    "--jit-tail-calls are for a program clrtrace starts, not with -p\n", who);
            return -1;
        }
        /* A live service gets a budget unless told otherwise (off: none). */
#define CT_STR2(x) #x
#define CT_STR(x) CT_STR2(x)
        if (!o->given[CT_SET_MAX_OVERHEAD])
            o->given[CT_SET_MAX_OVERHEAD] = CT_STR(CT_ATTACH_DEFAULT_MAX_OVERHEAD);
    }
    if (o->duration_text &&
        (!o->pid_text || ct_parse_duration(o->duration_text, &o->duration_ns) != 0 ||
         !o->duration_ns)) {
        fprintf(stderr, "clrtrace %s: %s\n", who, !o->pid_text ? "-d/--duration goes with -p PID"
                : "-d needs a duration above 0 (a number and ns, us, ms or s)");
        return -1;
    }
    if (!o->pid_text && !o->has_program) {
        fprintf(stderr, "clrtrace %s: no program given (try --help)\n", who);
        return -1;
    }
    if (o->given[CT_SET_WHEN] && (o->given[CT_SET_NO_ARGS] || o->given[CT_SET_NULL])) {
        fprintf(stderr, "clrtrace %s: --when reads argument values: not with --no-args or "
                "--null\n", who);
        return -1;
    }
    if ((o->given[CT_SET_AT] || o->given[CT_SET_LOCALS]) &&
        (o->given[CT_SET_NO_ARGS] || o->given[CT_SET_NULL] || o->given[CT_SET_ALL] ||
         (o->given[CT_SET_ENGINE] && !strcasecmp(o->given[CT_SET_ENGINE], "elt")))) {
        fprintf(stderr, "clrtrace %s: %s puts probes in the IL of methods: not with "
                "--engine=elt, -a, --no-args or --null\n", who,
                o->given[CT_SET_AT] ? "--at" : "--locals");
        return -1;
    }
    if (o->given[CT_SET_INJECT] &&
        (o->given[CT_SET_NULL] ||
         (o->given[CT_SET_ENGINE] && !strcasecmp(o->given[CT_SET_ENGINE], "elt")))) {
        fprintf(stderr, "clrtrace %s: --inject rewrites the IL of the methods it names (the IL "
                "engine): not with --engine=elt or --null\n", who);
        return -1;
    }
    if (o->given[CT_SET_INJECT] && o->given[CT_SET_NO_ARGS] && inject_reads_values(o->inject)) {
        fprintf(stderr, "clrtrace %s: --inject's 'when CONDITION' reads argument values: not "
                "with --no-args\n", who);
        return -1;
    }
    if (o->given[CT_SET_INJECT_SEED] && !o->given[CT_SET_INJECT]) {
        fprintf(stderr, "clrtrace %s: --inject-seed goes with --inject\n", who);
        return -1;
    }
    if ((o->given[CT_SET_ARGS_CHOSEN] || o->given[CT_SET_RET_CHOSEN]) &&
        (o->given[CT_SET_NO_ARGS] || o->given[CT_SET_NULL])) {
        fprintf(stderr, "clrtrace %s: -A and -R choose values to capture: not with --no-args "
                "or --null\n", who);
        return -1;
    }
    if (o->given[CT_SET_ALL] && o->given[CT_SET_ASSEMBLY]) {
        fprintf(stderr, "clrtrace %s: -a and --assembly do not go together (--assembly picks "
                "assemblies, framework ones included; -a traces all of them)\n", who);
        return -1;
    }
    return 0;
}

/* The profiler, the text log and (record) the trace directory, made ready:
 * 0, or -1 after one line. */
/* --inject checked before the program runs (cli_inject_check), or before
 * the attach (cli_inject_check_pid): 0, or -1 (refused); at start-up, when
 * every throw's type was found and is usable, the profiler is told (CLRTRACE_INJECT_CHECKED: it may then use a reference
 * to a type whose assembly is not loaded yet when a method is compiled). */
static int inject_checked(trace_opts *o)
{
    if (o->pid_text)
        return cli_inject_check_pid(o->who, o->given[CT_SET_INJECT], (unsigned)o->pid) < 0 ? -1 : 0;
    int rc = cli_inject_check(o->who, o->given[CT_SET_INJECT], o->program, NULL);
    if (rc == 1)
        o->given[CT_SET_INJECT_CHECKED] = "1";
    return rc < 0 ? -1 : 0;
}

static int trace_resolve(const trace_opts *o, trace_paths *p)
{
    const char *who = o->who;
    if (o->profiler) {
        if (!realpath(o->profiler, p->lib) || !file_exists(p->lib)) {
            fprintf(stderr, "clrtrace %s: no profiler library at '%s'\n", who, o->profiler);
            return -1;
        }
    } else if (find_profiler(p->lib, sizeof p->lib) != 0) {
        fprintf(stderr, "clrtrace %s: cannot find %s next to the clrtrace executable "
                "(use --profiler PATH)\n", who, CLRTRACE_PROFILER_FILE);
        return -1;
    }
    const char *text_log = o->record ? o->text : o->output;
    p->text_log = NULL;
    p->trace = NULL;
    if (text_log) {
        if (absolute(text_log, p->textpath, sizeof p->textpath) != 0) {
            fprintf(stderr, "clrtrace %s: output path too long\n", who);
            return -1;
        }
        p->text_log = p->textpath;
        if (check_writable(who, p->text_log) != 0)
            return -1;
    }
    if (!o->record)
        return 0;
    char *dir = p->dir;
    if (absolute(o->output, dir, sizeof p->dir) != 0 ||
        (size_t)snprintf(p->tracepath, sizeof p->tracepath, "%s/%s", dir, CLRTRACE_TRACE_FILE) >=
            sizeof p->tracepath) {
        fprintf(stderr, "clrtrace record: output path too long\n");
        return -1;
    }
    if (make_dirs(dir, &p->dirs_made) != 0) {
        fprintf(stderr, "clrtrace record: cannot create the trace directory '%s': %s\n",
                o->output, strerror(errno));
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "clrtrace record: cannot write in the trace directory '%s': %s\n",
                o->output, strerror(errno));
        return -1;
    }
    /* Traces of an earlier recording are not this one's processes. */
    remove_traces(dir);
    p->trace = p->tracepath;
    return 0;
}

/* Sets variable id of the settings table (NULL: unsets it). */
static void set_setting(ct_setting_id id, const char *value)
{
    if (value)
        setenv(ct_settings[id].env, value, 1);
    else
        unsetenv(ct_settings[id].env);
}

/* The environment the program starts in: the runtime's profiler variables,
 * the outputs, the settings given, the JIT knob. */
static void trace_environment(const trace_opts *o, const trace_paths *p)
{
    setenv("CORECLR_ENABLE_PROFILING", "1", 1);
    setenv("CORECLR_PROFILER", CLRTRACE_CLSID_TEXT, 1);
    setenv("CORECLR_PROFILER_PATH", p->lib, 1);
    unsetenv("CORECLR_PROFILER_PATH_64");
    set_setting(CT_SET_OUTPUT, p->text_log);
    set_setting(CT_SET_TRACE, p->trace);
    for (int k = 0; k < CT_SETTING_COUNT; k++)
        if (o->given[k])
            setenv(ct_settings[k].env, o->given[k], 1);
    /* The JIT turns a method's tail call to itself into a loop, and no
     * hook runs for the calls it removes. Its switch is a runtime knob the
     * profiler cannot set from inside the process (the runtime reads its own
     * copy of the environment, taken at start-up): the launcher sets it,
     * unless the user set it (either spelling) or asked for the loops. */
    if (!o->tail_loops && !getenv(TAIL_LOOP_KNOB) && !getenv(TAIL_LOOP_KNOB_OLD))
        setenv(TAIL_LOOP_KNOB, "0", 1);
    /* An opportunistic tail call (C#'s `return Other(x);` into untraced
     * code) ends its caller with the tailcall hook, and the caller's frame
     * is closed only at the thread's next traced call: its time includes
     * whatever the thread did (or waited for) in between. Without the
     * optimisation the call returns into its caller, whose leave hook runs
     * at the real time. Explicit `tail.` calls (F#, IL) are not affected. */
    if (!o->jit_tail_calls && !getenv(TAIL_OPT_KNOB) && !getenv(TAIL_OPT_KNOB_OLD))
        setenv(TAIL_OPT_KNOB, "0", 1);
}

/* Starts the program under the profiler and waits for it: its exit status
 * (127 when it cannot be started, 2 when the index cannot be created). */
static int trace_launch(const trace_opts *o, const trace_paths *p)
{
    const char *who = o->who;
    trace_environment(o, p);
    /* The process tree: the root is our child; every traced process adds a
     * line to the index (src/agent/writer/outputs.h), read once it ends. */
    char num[32], index[PATH_MAX];
    snprintf(num, sizeof num, "%ld", (long)getpid());
    set_setting(CT_SET_LAUNCHER_PID, num);
    if (!o->given[CT_SET_FOLLOW])
        set_setting(CT_SET_FOLLOW, NULL);
    const char *tmp = getenv("TMPDIR");
    snprintf(index, sizeof index, "%s/clrtrace-index.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int ifd = mkstemp(index);
    if (ifd < 0) {
        fprintf(stderr, "clrtrace %s: cannot create a file in %s: %s\n", who,
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return 2;
    }
    close(ifd);
    set_setting(CT_SET_INDEX, index);
    int rc = launch(who, o->program);
    report_processes(who, index, o->program[0], p->text_log, o->record);
    unlink(index);
    return rc;
}

/* A refused attach leaves no trace directory behind: the folders record
 * created for it, removed from the deepest while they are empty (one that
 * holds anything stays). */
static void remove_made_dirs(const trace_paths *p)
{
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", p->dir);
    for (int i = 0; i < p->dirs_made; i++) {
        if (rmdir(d) != 0)
            return;
        char *slash = strrchr(d, '/');
        if (!slash || slash == d)
            return;
        *slash = '\0';
    }
}

/* run and record: the same options, two meanings of -o. */
int cli_trace_command(int argc, char **argv, int record)
{
    trace_opts o;
    trace_paths p;
    if (trace_parse(&o, argc, argv, record) != 0)
        return 2;
    if (o.help) {
        usage(stdout, record);
        return 0;
    }
    if (trace_check(&o) != 0 ||
        (!o.pid_text && cli_when_check(o.who, o.given[CT_SET_WHEN], o.program) != 0) ||
        (!o.pid_text && cli_at_check(o.who, o.given[CT_SET_AT], o.program) != 0) ||
        inject_checked(&o) != 0 ||
        (!o.pid_text && cli_chosen_check(o.who, o.given[CT_SET_ARGS_CHOSEN],
                                         o.given[CT_SET_RET_CHOSEN], o.program) != 0) ||
        trace_resolve(&o, &p) != 0)
        return 2;
    if (o.pid_text) {
        int rc = cli_attach(o.who, (unsigned)o.pid, p.lib, o.given, p.text_log, p.trace,
                            o.duration_ns);
        if (rc != 0 && o.record)
            remove_made_dirs(&p);
        return rc;
    }
    return trace_launch(&o, &p);
}

int cmd_run(int argc, char **argv)
{
    return cli_trace_command(argc, argv, 0);
}
