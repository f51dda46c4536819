#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int ct_outputs_root(const ct_config *c)
{
    if (!c->launcher_pid)
        return -1;
    return (uint32_t)getppid() == c->launcher_pid;
}

int ct_outputs_beside(const char *base, unsigned pid, char *out, size_t cap)
{
    static const char ext[] = ".clrt";
    size_t n = strlen(base), e = sizeof ext - 1;
    int k;
    if (n > e && !strcmp(base + n - e, ext))
        k = snprintf(out, cap, "%.*s.%u%s", (int)(n - e), base, pid, ext);
    else
        k = snprintf(out, cap, "%s.%u", base, pid);
    return k > 0 && (size_t)k < cap ? 0 : -1;
}

/* Opens base (or the name beside it) for this process; the chosen name in
 * path. */
static int open_own(const char *base, int root, char *path, size_t cap)
{
    struct stat st;
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
    if (stat(base, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* A pipe, a terminal, /dev/null: shared as it is. */
        snprintf(path, cap, "%s", base);
        return open(base, O_WRONLY | O_CLOEXEC);
    }
    if (root == 1) {
        snprintf(path, cap, "%s", base);
        int fd = open(base, flags | O_TRUNC, 0600);
        if (fd >= 0)
            (void)flock(fd, LOCK_EX | LOCK_NB);
        return fd;
    }
    if (root < 0) {
        /* No launcher: the name is ours if no live process holds it. */
        int fd = open(base, flags, 0600);
        if (fd < 0)
            return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            if (ftruncate(fd, 0) != 0) {
                int e = errno;
                close(fd);
                errno = e;
                return -1;
            }
            snprintf(path, cap, "%s", base);
            return fd;
        }
        close(fd);
    }
    if (ct_outputs_beside(base, (unsigned)getpid(), path, cap) != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, flags | O_TRUNC, 0600);
}

int ct_outputs_open(const ct_config *c, int want_text, ct_outputs *o, char *why, size_t why_cap)
{
    o->text_fd = o->bin_fd = -1;
    o->text_path[0] = o->bin_path[0] = '\0';
    int root = ct_outputs_root(c);
    if (want_text) {
        if (!c->output_path)
            o->text_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        else
            o->text_fd = open_own(c->output_path, root, o->text_path, sizeof o->text_path);
        if (o->text_fd < 0) {
            snprintf(why, why_cap, "CLRTRACE_OUTPUT=%s (%s)",
                     c->output_path ? c->output_path : "(stderr)", strerror(errno));
            return -1;
        }
    }
    if (c->trace_path) {
        o->bin_fd = open_own(c->trace_path, root, o->bin_path, sizeof o->bin_path);
        if (o->bin_fd < 0) {
            snprintf(why, why_cap, "CLRTRACE_TRACE=%s (%s)", c->trace_path, strerror(errno));
            if (o->text_fd >= 0)
                close(o->text_fd);
            o->text_fd = -1;
            return -1;
        }
    }
    return 0;
}

void ct_outputs_index(const ct_config *c, const char *state, const ct_outputs *o,
                      const char *cmdline)
{
    if (!c->index_path)
        return;
    int fd = open(c->index_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return;
    char line[CT_INDEX_LINE_MAX];
    const char *text = !o ? "-" : o->text_fd < 0 ? "-" : o->text_path[0] ? o->text_path : "stderr";
    const char *bin = o && o->bin_fd >= 0 ? o->bin_path : "-";
    int n = snprintf(line, sizeof line, "%u %u %s\t%s\t%s\t", (unsigned)getpid(),
                     (unsigned)getppid(), state, text, bin);
    if (n > 0 && (size_t)n < sizeof line) {
        size_t k = (size_t)n;
        /* The command line, tabs and newlines as spaces, cut to fit. */
        for (const char *p = cmdline ? cmdline : "?"; *p && k < sizeof line - 1; p++)
            line[k++] = *p == '\t' || *p == '\n' ? ' ' : *p;
        line[k++] = '\n';
        (void)!write(fd, line, k);
    }
    close(fd);
}

void ct_outputs_children(const char *index_path, void (*emit)(const char *text, size_t len))
{
    if (!index_path)
        return;
    int fd = open(index_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char *buf = malloc(CT_INDEX_READ_MAX + 1);
    size_t len = 0;
    ssize_t n = 0;
    while (buf && len < CT_INDEX_READ_MAX &&
           (n = read(fd, buf + len, CT_INDEX_READ_MAX - len)) > 0)
        len += (size_t)n;
    close(fd);
    if (!buf)
        return;
    buf[len] = 0;
    unsigned self = (unsigned)getpid();
    for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        /* "PID PPID STATE\tTEXT\tTRACE\tCOMMAND" */
        unsigned pid, ppid;
        int state_at = 0;
        char *cmd = line;
        for (int tabs = 0; tabs < 3 && cmd; tabs++)
            cmd = (cmd = strchr(cmd, '\t')) ? cmd + 1 : NULL;
        if (!cmd || sscanf(line, "%u %u %n", &pid, &ppid, &state_at) != 2 || !state_at ||
            pid == self || strncmp(line + state_at, "traced\t", 7) != 0)
            continue;
        char out[CT_INDEX_LINE_MAX + 64];
        int k = snprintf(out, sizeof out, "# traced child process %u (parent %u): %s\n", pid, ppid,
                         cmd);
        if (k > 0 && (size_t)k < sizeof out)
            emit(out, (size_t)k);
    }
    free(buf);
}
