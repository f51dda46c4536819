/* clrtrace run [options] [--] program [args...]
 *
 * Starts a program with the CoreCLR profiler enabled and the options passed
 * in the environment, forwards the usual termination signals to it, and exits
 * with the program's own status (128 + N when it dies of signal N, like a
 * shell). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clrtrace/launch.h"
#include "clrtrace/value.h"
#include "cli.h"

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace run [options] [--] PROGRAM [ARGS...]\n"
        "\n"
        "Runs PROGRAM (usually `dotnet App.dll` or an apphost) with the clrtrace profiler\n"
        "and logs every call of the program's own code, with arguments, return values,\n"
        "thread and duration, followed by a summary.\n"
        "\n"
        "options:\n"
        "  -o, --output FILE      write the trace to FILE (created mode 0600; default: stderr)\n"
        "  -a, --all              also trace framework code (System.*, Microsoft.*)\n"
        "  -s, --string-chars N   keep at most N characters of each string (default 64)\n"
        "      --array-items N    show at most N elements of each array (default 8)\n"
        "      --struct-depth N   follow nested struct fields N levels deep (0-8, default 4)\n"
        "      --no-summary       do not print the per-function summary at exit\n"
        "      --inlining         let the JIT inline small methods (faster; inlined calls\n"
        "                         are then missing from the trace)\n"
        "      --profiler PATH    use this libclrtrace.so instead of the one installed\n"
        "  -h, --help             show this help\n"
        "\n"
        "Exit status: the program's own; 127 if it cannot be started; 2 for a usage error.\n"
        "Each option is also an environment variable of the traced process (CLRTRACE_OUTPUT,\n"
        "CLRTRACE_ALL, CLRTRACE_STRING_CHARS, CLRTRACE_ARRAY_ITEMS, CLRTRACE_STRUCT_DEPTH,\n"
        "CLRTRACE_SUMMARY, CLRTRACE_INLINING) for use without the launcher; see docs/tracer.md.\n");
}

/* A whole number in 0..max. */
static int is_count(const char *s, unsigned long max)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    return *end == '\0' && errno == 0 && s[0] != '-' && v <= max;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The profiler next to this executable (installed: ../lib/clrtrace/; build
 * tree: src/profiler/). Writes an absolute path: the runtime requires one. */
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
        "", "/src/profiler", "/../lib/clrtrace", "/../lib",
    };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s%s/%s", exe, rel[i], CLRTRACE_PROFILER_FILE);
        char real[PATH_MAX];
        if (file_exists(cand) && realpath(cand, real) && strlen(real) < cap) {
            snprintf(out, cap, "%s", real);
            return 0;
        }
    }
    return -1;
}

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

int cmd_run(int argc, char **argv)
{
    const char *output = NULL, *profiler = NULL;
    const char *string_chars = NULL, *array_items = NULL, *struct_depth = NULL;
    int all = 0, no_summary = 0, inlining = 0;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (a[0] != '-') {
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-a") || !strcmp(a, "--all")) {
            all = 1;
        } else if (!strcmp(a, "--no-summary")) {
            no_summary = 1;
        } else if (!strcmp(a, "--inlining")) {
            inlining = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "-s") ||
                   !strcmp(a, "--string-chars") || !strcmp(a, "--array-items") ||
                   !strcmp(a, "--struct-depth") || !strcmp(a, "--profiler")) {
            if (!val) {
                fprintf(stderr, "clrtrace run: %s needs a value (try --help)\n", a);
                return 2;
            }
            i++;
            if (!strcmp(a, "-o") || !strcmp(a, "--output"))
                output = val;
            else if (!strcmp(a, "--profiler"))
                profiler = val;
            else {
                unsigned long max = !strcmp(a, "--struct-depth") ? CT_MAX_VALUE_DEPTH : 1000000;
                if (!is_count(val, max)) {
                    fprintf(stderr, "clrtrace run: %s takes a whole number from 0 to %lu, not '%s'\n",
                            a, max, val);
                    return 2;
                }
                if (!strcmp(a, "-s") || !strcmp(a, "--string-chars"))
                    string_chars = val;
                else if (!strcmp(a, "--array-items"))
                    array_items = val;
                else
                    struct_depth = val;
            }
        } else {
            fprintf(stderr, "clrtrace run: unknown option '%s' (try --help)\n", a);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "clrtrace run: no program given (try --help)\n");
        return 2;
    }

    char lib[PATH_MAX];
    if (profiler) {
        if (!realpath(profiler, lib) || !file_exists(lib)) {
            fprintf(stderr, "clrtrace run: no profiler library at '%s'\n", profiler);
            return 2;
        }
    } else if (find_profiler(lib, sizeof lib) != 0) {
        fprintf(stderr, "clrtrace run: cannot find %s next to the clrtrace executable "
                "(use --profiler PATH)\n", CLRTRACE_PROFILER_FILE);
        return 2;
    }
    char outpath[PATH_MAX];
    if (output) {
        /* The profiler runs in another working directory only if the program
         * changes it; an absolute path keeps -o meaning what the user typed. */
        if (output[0] != '/') {
            char cwd[PATH_MAX];
            if (!getcwd(cwd, sizeof cwd) ||
                (size_t)snprintf(outpath, sizeof outpath, "%s/%s", cwd, output) >= sizeof outpath) {
                fprintf(stderr, "clrtrace run: output path too long\n");
                return 2;
            }
            output = outpath;
        }
    }

    setenv("CORECLR_ENABLE_PROFILING", "1", 1);
    setenv("CORECLR_PROFILER", CLRTRACE_CLSID_TEXT, 1);
    setenv("CORECLR_PROFILER_PATH", lib, 1);
    unsetenv("CORECLR_PROFILER_PATH_64");
    if (output)
        setenv("CLRTRACE_OUTPUT", output, 1);
    if (all)
        setenv("CLRTRACE_ALL", "1", 1);
    if (no_summary)
        setenv("CLRTRACE_SUMMARY", "0", 1);
    if (inlining)
        setenv("CLRTRACE_INLINING", "1", 1);
    if (string_chars)
        setenv("CLRTRACE_STRING_CHARS", string_chars, 1);
    if (array_items)
        setenv("CLRTRACE_ARRAY_ITEMS", array_items, 1);
    if (struct_depth)
        setenv("CLRTRACE_STRUCT_DEPTH", struct_depth, 1);

    /* Errors from exec come back through a close-on-exec pipe. */
    int fds[2];
    if (pipe(fds) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
        perror("clrtrace run: pipe");
        return 127;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("clrtrace run: fork");
        return 127;
    }
    if (pid == 0) {
        close(fds[0]);
        execvp(argv[i], argv + i);
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
            perror("clrtrace run: waitpid");
            return 127;
        }
    }
    if (r == (ssize_t)sizeof exec_errno) {
        fprintf(stderr, "clrtrace run: cannot run '%s': %s\n", argv[i], strerror(exec_errno));
        return 127;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}
