/* clrtrace run|record -p PID: tracing a running process.
 *
 * The runtime loads the profiler when asked on its diagnostics socket
 * (dotnet/diagnostics, documentation/design-docs/ipc-protocol.md: command set
 * Profiler 0x03, command AttachProfiler 0x01); the profiler then takes
 * sessions on its own control socket (src/format/attach.h). This file
 * is the client of both: it checks the process, asks for the attach when the
 * profiler is not there yet, opens the outputs itself and hands them over,
 * waits for Ctrl-C, SIGTERM or the duration, and ends the session. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/folder.h"
#include "format/attach.h"
#include "format/expr.h"
#include "format/launch.h"
#include "format/settings.h"
#include "attach_target.h"
#include "cli.h"

/* How long the runtime may take to load and initialize the profiler (the
 * AttachProfiler timeout, and our wait for its answer on top). */
#define ATTACH_TIMEOUT_MS 10000u
#define ATTACH_REPLY_SLACK_MS 5000
/* How long the profiler may take to choose and rewrite the methods, and to
 * finish the trace after the end of a session. */
#define SESSION_ANSWER_MS 120000
/* Longest part of the process's command line shown in messages. */
#define CMD_SHOWN_MAX 500
/* Largest /proc/PID/uid_map read (340 lines of three numbers). */
#define UID_MAP_MAX (340u * 36)
/* The diagnostics IPC: header (magic, size, command set, command, reserved)
 * and the answer's (the same header and one uint32 HRESULT). */
#define IPC_MAGIC "DOTNET_IPC_V1"
#define IPC_HEADER_BYTES 20u
#define IPC_SET_PROFILER 0x03
#define IPC_CMD_ATTACH 0x01
#define IPC_SET_SERVER 0xFF
#define IPC_SERVER_OK 0x00
/* Largest AttachProfiler request: the header, the timeout, the CLSID, the
 * path in UTF-16 and the client data. */
#define IPC_REQUEST_MAX (IPC_HEADER_BYTES + 4 + 16 + 4 + 2 * 4096 + 4 + 64)

/* HRESULTs the runtime answers an attach with (corerror.h, winerror.h). */
#define HR_PROFILER_ALREADY_ACTIVE 0x8013136Au /* CORPROF_E_PROFILER_ALREADY_ACTIVE */
#define HR_NOT_ATTACHABLE 0x80131368u          /* CORPROF_E_PROFILER_NOT_ATTACHABLE */
#define HR_MOD_NOT_FOUND 0x8007007Eu           /* ERROR_MOD_NOT_FOUND: dlopen failed */
#define HR_UNKNOWN_COMMAND 0x80131384u         /* DS_IPC_E_UNKNOWN_COMMAND */
#define HR_TOO_OLD 0x80004001u                 /* E_NOTIMPL: the profiler's CT_E_RUNTIME_TOO_OLD */

static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
    (void)sig;
    g_stop = 1;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Waits until fd is readable (1) or the deadline passes (0). */
static int readable_by(int fd, uint64_t deadline)
{
    for (;;) {
        uint64_t now = now_ms();
        if (now >= deadline)
            return 0;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, (int)(deadline - now));
        if (r < 0 && errno == EINTR)
            continue;
        return r > 0;
    }
}

/* Reads exactly n bytes within the deadline: 0, or -1. */
static int read_full(int fd, uint8_t *p, size_t n, uint64_t deadline)
{
    while (n) {
        if (!readable_by(fd, deadline))
            return -1;
        ssize_t k = read(fd, p, n);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The CLSID text "{8B4B2E65-C262-4FCC-BAE6-2A302612F038}" in a GUID's
 * memory layout (the first three groups little-endian). */
static int clsid_bytes(uint8_t out[16])
{
    unsigned a, b, c, d[8];
    if (sscanf(CLRTRACE_CLSID_TEXT, "{%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x}", &a, &b, &c,
               &d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &d[7]) != 11)
        return -1;
    put32(out, a);
    put16(out + 4, (uint16_t)b);
    put16(out + 6, (uint16_t)c);
    for (int i = 0; i < 8; i++)
        out[8 + i] = (uint8_t)d[i];
    return 0;
}

/* Asks the runtime behind the diagnostics socket to load the profiler lib:
 * its HRESULT (0: loaded and initialized), or -1 with errno-like failure
 * (no answer in time). */
static int64_t ipc_attach(int fd, const char *lib)
{
    static uint8_t req[IPC_REQUEST_MAX];
    size_t plen = strlen(lib), at = IPC_HEADER_BYTES;
    size_t data_len = strlen(CT_ATTACH_CLIENT_DATA);
    if (plen >= 4096)
        return -1;
    put32(req + at, ATTACH_TIMEOUT_MS);
    at += 4;
    if (clsid_bytes(req + at) != 0)
        return -1;
    at += 16;
    /* A string: its length in UTF-16 units with the NUL, then the units. */
    put32(req + at, (uint32_t)plen + 1);
    at += 4;
    for (size_t i = 0; i <= plen; i++, at += 2)
        put16(req + at, (uint8_t)lib[i]); /* paths are ASCII here: checked by the caller */
    put32(req + at, (uint32_t)data_len);
    at += 4;
    memcpy(req + at, CT_ATTACH_CLIENT_DATA, data_len);
    at += data_len;
    memcpy(req, IPC_MAGIC, sizeof IPC_MAGIC); /* 14 bytes with the NUL */
    put16(req + 14, (uint16_t)at);
    req[16] = IPC_SET_PROFILER;
    req[17] = IPC_CMD_ATTACH;
    put16(req + 18, 0);
    for (size_t off = 0; off < at;) {
        ssize_t k = send(fd, req + off, at - off, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        off += (size_t)k;
    }
    uint8_t reply[IPC_HEADER_BYTES + 4];
    if (read_full(fd, reply, sizeof reply, now_ms() + ATTACH_TIMEOUT_MS + ATTACH_REPLY_SLACK_MS) !=
            0 ||
        memcmp(reply, IPC_MAGIC, sizeof IPC_MAGIC) != 0 || reply[16] != IPC_SET_SERVER)
        return -1;
    uint32_t hr = ct_get_le32(reply + 20);
    if (reply[17] == IPC_SERVER_OK && !(hr & 0x80000000u))
        return 0;
    return hr ? (int64_t)hr : (int64_t)0x80004005u;
}

/* One line about an attach the runtime refused. */
static void attach_refused(const char *who, unsigned pid, uint32_t hr)
{
    const char *why;
    switch (hr) {
    case HR_PROFILER_ALREADY_ACTIVE:
        why = "another profiler is already loaded in it (a process has at most one)";
        break;
    case HR_MOD_NOT_FOUND:
        why = "its runtime could not load the profiler library (is it readable by that "
              "process's user?)";
        break;
    case HR_UNKNOWN_COMMAND:
    case HR_TOO_OLD:
        why = "its runtime is too old to attach a profiler that rewrites methods (.NET 5 or "
              "later needed)";
        break;
    case HR_NOT_ATTACHABLE:
        why = "the profiler declined to attach (see that process's stderr)";
        break;
    default:
        why = NULL;
    }
    if (why)
        fprintf(stderr, "clrtrace %s: cannot attach to pid %u: %s\n", who, pid, why);
    else
        fprintf(stderr, "clrtrace %s: cannot attach to pid %u: the runtime refused (HRESULT "
                "0x%08X)\n", who, pid, hr);
}

/* Sends the session request with the output descriptors. */
static int send_request(int fd, const char *req, size_t len, const int *fds, int nfds)
{
    struct iovec iov = {(void *)req, len};
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (nfds) {
        memset(&u, 0, sizeof u);
        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    }
    return sendmsg(fd, &m, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* One answer from the profiler within ms: its length, 0 when the
 * connection closed, -1 on a timeout; its first line ends at the first NUL,
 * the rest of the answer follows it. Ctrl-C does not cut the wait. */
static ssize_t read_answer(int fd, char *buf, size_t cap, int ms)
{
    uint64_t deadline = now_ms() + (uint64_t)ms;
    for (;;) {
        if (!readable_by(fd, deadline))
            return -1;
        ssize_t k = recv(fd, buf, cap - 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return 0;
        buf[k] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return k;
    }
}

/* A note of the profiler's, "clrtrace WHO: LINE" on stderr. A list of
 * methods ("...): A; B; C") longer than CT_NOTE_NAMES_SHOWN names shows that
 * many, and the whole list goes to a file beside the trace, one name a
 * line, which the line names (near: the output's path; in_dir: the trace
 * file's directory holds it); without an output file, every name is shown. */
#define CT_NOTE_NAMES_SHOWN 20
static void print_note(const char *who, const char *line, size_t n, const char *near, int in_dir)
{
    const char *end = line + n, *colon = memmem(line, n, "): ", 3);
    size_t names = 0, cut = n;
    for (const char *p = colon; p; p = memmem(p + 1, (size_t)(end - p - 1), "; ", 2))
        if (++names == CT_NOTE_NAMES_SHOWN + 1)
            cut = (size_t)(p - line);
    char path[4096];
    FILE *f = NULL;
    if (colon && names > CT_NOTE_NAMES_SHOWN && near) {
        const char *slash = strrchr(near, '/');
        int dir = slash ? (int)(slash - near + 1) : 0;
        if (in_dir)
            snprintf(path, sizeof path, "%.*suncalled-methods.txt", dir, near);
        else
            snprintf(path, sizeof path, "%s.uncalled-methods.txt", near);
        f = fopen(path, "we");
    }
    if (!f) {
        fprintf(stderr, "clrtrace %s: %.*s\n", who, (int)n, line);
        return;
    }
    for (const char *p = colon + 3; p < end;) {
        const char *e = memmem(p, (size_t)(end - p), "; ", 2);
        size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
        fprintf(f, "%.*s\n", (int)len, p);
        p += len + 2;
    }
    if (fclose(f) != 0)
        fprintf(stderr, "clrtrace %s: %.*s\n", who, (int)n, line);
    else
        fprintf(stderr, "clrtrace %s: %.*s; and %zu more (the whole list: %s)\n", who, (int)cut,
                line, names - CT_NOTE_NAMES_SHOWN, path);
}

/* The request: the outputs, the settings given (and the IL engine, the
 * only one that attaches). */
static size_t build_request(char *out, size_t cap, int text, int binary,
                            const char *const *given)
{
    enum { MAX_LINES = CT_SETTING_COUNT + CT_WHEN_MAX + 2 * CT_CHOSEN_MAX + 1 };
    const char *names[MAX_LINES];
    const char *values[MAX_LINES];
    /* CLRTRACE_WHEN's conditions (and -A's, -R's values), one a line in the
     * variable: one request line each (the profiler joins them,
     * ct_attach_request_join). */
    static char lines[CT_SETTING_COUNT][CT_CHOSEN_MAX_TEXT + 1];
    size_t n = 0;
    names[n] = ct_settings[CT_SET_ENGINE].env;
    values[n++] = "il";
    for (int k = 0; k < CT_SETTING_COUNT; k++) {
        if (!given[k] || k == CT_SET_ENGINE)
            continue;
        if (!ct_setting_lines(k)) {
            names[n] = ct_settings[k].env;
            values[n++] = given[k];
            continue;
        }
        char *when = lines[k];
        snprintf(when, sizeof lines[k], "%s", given[k]);
        for (char *p = when, *next; p && *p; p = next) {
            next = strchr(p, '\n');
            if (next)
                *next++ = '\0';
            if (*p && n < MAX_LINES) {
                names[n] = ct_settings[k].env;
                values[n++] = p;
            }
        }
    }
    return ct_attach_request_write(out, cap, text, binary, n, names, values);
}

/* Whether process pid is in a user namespace that our user made (we then
 * hold every capability in it, as the kernel judges ptrace access). */
static int owns_user_ns(unsigned pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/ns/user", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uid_t owner = (uid_t)-1;
    int r = fd >= 0 && ioctl(fd, NS_GET_OWNER_UID, &owner) == 0 && owner == geteuid();
    if (fd >= 0)
        close(fd);
    return r;
}

/* Checks that pid is a process we may attach to: 0, or 1 after one line. */
static int check_process(const char *who, unsigned pid)
{
    if (pid == 0 || (pid_t)pid == getpid()) {
        fprintf(stderr, "clrtrace %s: cannot attach to pid %u\n", who, pid);
        return 1;
    }
    struct stat st;
    char path[64];
    snprintf(path, sizeof path, "/proc/%u", pid);
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
        fprintf(stderr, "clrtrace %s: no process with pid %u\n", who, pid);
        return 1;
    }
    if (stat(path, &st) != 0) {
        fprintf(stderr, "clrtrace %s: no process with pid %u\n", who, pid);
        return 1;
    }
    if (geteuid() != 0 && st.st_uid != geteuid() && !owns_user_ns(pid)) {
        fprintf(stderr, "clrtrace %s: pid %u belongs to another user (uid %u): run clrtrace as "
                "that user, or as root\n", who, pid, (unsigned)st.st_uid);
        return 1;
    }
    return 0;
}

/* Whether the profiler in the process will take our connections: it takes
 * its own user's and root's, as it sees them, our uid mapped into its user
 * namespace (/proc/PID/uid_map). 0, or 1 after one line. */
static int check_uid_mapped(const char *who, const attach_target *t)
{
    static char map[UID_MAP_MAX];
    unsigned inside = 0, me = (unsigned)geteuid();
    if (ct_proc_read(t->pid, "uid_map", map, sizeof map) <= 0)
        return 0; /* no user namespaces: one id for everyone */
    if (ct_id_map_inside(map, me, &inside) == 0 && (inside == 0 || me == t->uid))
        return 0;
    fprintf(stderr, "clrtrace %s: your uid %u %s in pid %u's user namespace "
            "(/proc/%u/uid_map): its profiler would not take clrtrace's connection; run "
            "clrtrace as that process's user inside it (nsenter --user --target %u)\n", who, me,
            ct_id_map_inside(map, me, &inside) == 0 ? "is neither root nor its user"
                                                    : "has no id", t->pid, t->pid, t->pid);
    return 1;
}

/* Makes sure the profiler is loaded in the process and returns a
 * connection to its control socket, or -1 after one line. */
static int reach_profiler(const char *who, const attach_target *t, const char *lib)
{
    unsigned pid = t->pid;
    /* Attached before: its profiler takes the session. */
    int fd = attach_target_control(t);
    if (fd >= 0)
        return fd;
    int dfd = attach_target_diagnostics(who, t, lib);
    if (dfd < 0)
        return -1;
    /* The library where the process sees it (a copy in its file system
     * when it is in another mount namespace), its path as it sees it. */
    char sent[ATTACH_TMPDIR_MAX + 4096];
    if (attach_target_place(who, t, lib, sent, sizeof sent) != 0) {
        close(dfd);
        return -1;
    }
    for (const char *p = sent; *p; p++)
        if ((unsigned char)*p >= 0x80) {
            fprintf(stderr, "clrtrace %s: the profiler's path %s is not ASCII (use --profiler "
                    "PATH)\n", who, sent);
            close(dfd);
            return -1;
        }
    int64_t hr = ipc_attach(dfd, sent);
    close(dfd);
    if (hr < 0) {
        fprintf(stderr, "clrtrace %s: pid %u did not answer the attach request within %u s\n",
                who, pid, (ATTACH_TIMEOUT_MS + ATTACH_REPLY_SLACK_MS) / 1000u);
        return -1;
    }
    if (hr == HR_MOD_NOT_FOUND && !t->same_mnt) {
        fprintf(stderr, "clrtrace %s: cannot attach to pid %u: its runtime could not load the "
                "profiler placed at %s (the libraries it needs, glibc and libzstd.so.1, must be "
                "in its file system)\n", who, pid, sent);
        return -1;
    }
    if (hr != 0) {
        attach_refused(who, pid, (uint32_t)hr);
        return -1;
    }
    fd = attach_target_control(t);
    if (fd < 0 && !t->same_net)
        fprintf(stderr, "clrtrace %s: the profiler loaded in pid %u, but its control socket "
                "is not in its TMPDIR %s (another network namespace: the abstract one does not "
                "reach here)\n", who, pid, t->tmpdir);
    else if (fd < 0)
        fprintf(stderr, "clrtrace %s: the profiler loaded in pid %u, but its control socket "
                "does not answer: %s\n", who, pid, strerror(errno));
    return fd;
}

/* Opens the outputs into fds[*nfds...]: the text log when want_text
 * (text_path, or a copy of our stderr) and the trace when trace_path; *text
 * and *binary say which were opened. 0, or -1 after one line (nothing left
 * open). */
static int open_outputs(const char *who, int want_text, const char *text_path,
                        const char *trace_path, int with_dir, int *fds, int *nfds, int *text,
                        int *binary)
{
    if (want_text) {
        int t = text_path ? open(text_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)
                          : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if (t < 0) {
            fprintf(stderr, "clrtrace %s: cannot write the trace to %s: %s\n", who,
                    text_path ? text_path : "stderr", strerror(errno));
            return -1;
        }
        fds[(*nfds)++] = t;
        *text = 1;
    }
    if (trace_path) {
        int b = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (b < 0) {
            fprintf(stderr, "clrtrace %s: cannot write the trace to %s: %s\n", who, trace_path,
                    strerror(errno));
            for (int i = 0; i < *nfds; i++)
                close(fds[i]);
            *nfds = 0;
            return -1;
        }
        fds[(*nfds)++] = b;
        *binary = 1;
        /* --max-size: its folder too, where the profiler makes, renames and
         * deletes the segments (through the descriptor: the process may be in
         * another mount namespace). */
        if (with_dir) {
            int d = ct_folder_open(trace_path, NULL);
            if (d < 0) {
                fprintf(stderr, "clrtrace %s: cannot open the folder of %s: %s\n", who,
                        trace_path, strerror(errno));
                for (int i = 0; i < *nfds; i++)
                    close(fds[i]);
                *nfds = 0;
                return -1;
            }
            fds[(*nfds)++] = d;
        }
    }
    return 0;
}

int cli_attach(const char *who, unsigned pid, const char *lib, const char *const *given,
               const char *text_path, const char *trace_path, uint64_t duration_ns)
{
    if (check_process(who, pid) != 0)
        return 1;
    int fds[3], nfds = 0, text = 0, binary = 0, rc = 1, began = 0;
    char cmd[CMD_SHOWN_MAX + 4];
    ct_proc_cmdline(pid, CMD_SHOWN_MAX, cmd, sizeof cmd);
    /* The text log unless recording without --text. The request names the
     * outputs open_outputs opens below. */
    int want_text = text_path || !trace_path;
    static char req[CT_ATTACH_REQUEST_MAX];
    size_t len = build_request(req, sizeof req, want_text, trace_path != NULL, given);
    uint64_t t0 = now_ms();
    attach_target t;
    if (attach_target_open(who, pid, &t) != 0)
        return 1;
    int fd = -1;
    if (!len)
        fprintf(stderr, "clrtrace %s: the settings are too long to send\n", who);
    else if (check_uid_mapped(who, &t) == 0)
        fd = reach_profiler(who, &t, lib);
    attach_target_close(&t);
    if (fd < 0)
        goto out;
    /* The outputs, opened here with our own rights once the profiler is
     * there (a process that cannot be traced leaves no file behind): the
     * text log (a file, or our stderr) unless recording without --text,
     * and the trace. */
    if (open_outputs(who, want_text, text_path, trace_path, given[CT_SET_MAX_SIZE] != NULL, fds,
                     &nfds, &text, &binary) != 0)
        goto out;
    char answer[CT_ATTACH_ANSWER_MAX];
    if (send_request(fd, req, len, fds, nfds) != 0) {
        fprintf(stderr, "clrtrace %s: cannot talk to the profiler in pid %u: %s\n", who, pid,
                strerror(errno));
        goto out;
    }
    /* The profiler holds its own copies now. */
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    nfds = 0;
    ssize_t k = read_answer(fd, answer, sizeof answer, SESSION_ANSWER_MS);
    if (k <= 0 || strncmp(answer, "ok ", 3) != 0) {
        if (k > 0 && !strncmp(answer, "error ", 6))
            fprintf(stderr, "clrtrace %s: pid %u: %s\n", who, pid, answer + 6);
        else if (k == 0)
            fprintf(stderr, "clrtrace %s: pid %u ended before tracing began\n", who, pid);
        else
            fprintf(stderr, "clrtrace %s: the profiler in pid %u did not answer\n", who, pid);
        goto out;
    }
    began = 1;
    unsigned long methods = 0, skipped = 0;
    sscanf(answer + 3, "%lu %lu", &methods, &skipped);
    fprintf(stderr, "clrtrace %s: attached to pid %u (%s) in %llu ms: ", who, pid, cmd,
            (unsigned long long)(now_ms() - t0));
    if (methods)
        fprintf(stderr, "%lu method%s instrumented", methods, methods == 1 ? "" : "s");
    else
        fprintf(stderr, "no method chosen yet (modules that load while attached are searched "
                "too)");
    if (skipped)
        fprintf(stderr, " (%lu generic method%s of CoreLib left out)", skipped,
                skipped == 1 ? "" : "s");
    fprintf(stderr, "; %s\n", duration_ns ? "tracing for the duration given (Ctrl-C ends it)"
                                          : "Ctrl-C ends tracing");
    if (methods > CT_ATTACH_WARN_METHODS)
        fprintf(stderr, "clrtrace %s: warning: %lu methods is many; each call of them is "
                "recorded (choose fewer with -F/--include or --assembly)\n", who, methods);

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    uint64_t end = duration_ns ? now_ms() + (duration_ns + 999999u) / 1000000u : 0;
    int ended = 0;
    while (!g_stop) {
        uint64_t now = now_ms();
        if (end && now >= end)
            break;
        struct pollfd pf = {fd, POLLIN, 0};
        int wait = end ? (int)(end - now < 1000 ? end - now : 1000) : 1000;
        int r = poll(&pf, 1, wait);
        if (r > 0) {
            ended = 1; /* the process ended (its profiler finished the trace) */
            break;
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (ended) {
        fprintf(stderr, "clrtrace %s: pid %u ended while traced; its trace ends with it\n", who,
                pid);
        rc = 0;
        goto out;
    }
    /* The end of the session: the original code back, the trace finished. */
    t0 = now_ms();
    if (send(fd, "stop\n", 5, MSG_NOSIGNAL) != 5) {
        fprintf(stderr, "clrtrace %s: pid %u ended while traced; its trace ends with it\n", who,
                pid);
        rc = 0;
        goto out;
    }
    k = read_answer(fd, answer, sizeof answer, SESSION_ANSWER_MS);
    if (k > 0 && !strncmp(answer, "done", 4)) {
        fprintf(stderr, "clrtrace %s: detached from pid %u in %llu ms (original code restored; "
                "the process runs on)\n", who, pid, (unsigned long long)(now_ms() - t0));
        /* The profiler's notes, a line each, after "done\n". */
        for (size_t at = strlen(answer) + 1; at < (size_t)k;) {
            size_t n = strcspn(answer + at, "\n");
            if (n)
                print_note(who, answer + at, n, trace_path ? trace_path : text_path,
                           trace_path != NULL);
            at += n + 1;
        }
        rc = 0;
    } else if (k == 0) {
        fprintf(stderr, "clrtrace %s: pid %u ended while its trace was being finished\n", who,
                pid);
        rc = 0;
    } else {
        fprintf(stderr, "clrtrace %s: the profiler in pid %u did not finish the trace in %d s\n",
                who, pid, SESSION_ANSWER_MS / 1000);
    }
out:
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    if (fd >= 0)
        close(fd);
    /* Tracing never began: no empty output left behind. */
    if (!began && text && text_path)
        unlink(text_path);
    if (!began && binary)
        unlink(trace_path);
    return rc;
}
