/* The profiler attached to a running process: the control socket and its
 * sessions (src/format/attach.h, docs/tracer.md "Attaching to a
 * running process").
 *
 * InitializeForAttach opens a SOCK_SEQPACKET socket in the abstract
 * namespace, and the same socket as a file in its TMPDIR (the abstract
 * name does not reach across network namespaces: a clrtrace on a
 * container's host connects to the file through /proc/PID/root), and starts
 * one thread (no managed thread: the runtime lets it
 * call RequestReJIT and RequestRevert). For each connection of our own user,
 * the thread reads one request, starts a trace to the descriptors it came
 * with, chooses the methods and asks the runtime to rewrite them; then it
 * waits for the end (a message, or the CLI gone), brings the original code
 * back, finishes the trace, answers "done" and takes the next connection.
 *
 * The runtime refuses to detach a profiler that used ReJIT
 * (CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT), so between sessions the
 * profiler stays, dormant: event mask ReJIT only, no method rewritten, no
 * callback doing work. */
#include "attach_control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "format/attach.h"
#include "format/expr.h"
#include "format/inject_spec.h"
#include "format/settings.h"
#include "agent/writer/budget_control.h"
#include "agent/writer/writer.h"
#include "agent/model/plans/lineprobe.h"
#include "agent/model/when_bind.h"
#include "format/words.h"
#include "agent/engines/il/ilprobe.h"

/* The control socket: in the abstract namespace (g_listen), and its file
 * in TMPDIR (g_listen_path, -1 when it could not be made) for clients in
 * other network namespaces; the file is removed at exit. */
static int g_listen = -1, g_listen_path = -1;
static char g_path_socket[sizeof ((struct sockaddr_un *)0)->sun_path];
/* Modules loaded during a session (ct_attach_module_loaded), for the
 * control thread to choose methods in; g_wake's read end wakes it. */
static pthread_mutex_t g_mods_lock = PTHREAD_MUTEX_INITIALIZER;
static ModuleID *g_mods;
static size_t g_nmods, g_mods_cap;
static int g_wake[2] = {-1, -1};
static atomic_int g_in_session;

void ct_attach_module_loaded(ModuleID mod)
{
    if (!atomic_load(&g_in_session))
        return;
    pthread_mutex_lock(&g_mods_lock);
    if (g_nmods == g_mods_cap) {
        size_t cap = g_mods_cap ? 2 * g_mods_cap : 16;
        ModuleID *m = realloc(g_mods, cap * sizeof *m);
        if (m) {
            g_mods = m;
            g_mods_cap = cap;
        }
    }
    if (g_nmods < g_mods_cap)
        g_mods[g_nmods++] = mod;
    pthread_mutex_unlock(&g_mods_lock);
    (void)!write(g_wake[1], "m", 1);
}

/* The modules loaded since the last call: their methods rewritten too, and
 * added to ms (reverted with the others). */
static void take_new_modules(ct_il_methods *ms)
{
    char drain[64];
    while (read(g_wake[0], drain, sizeof drain) > 0)
        ;
    pthread_mutex_lock(&g_mods_lock);
    ModuleID *mods = g_mods;
    size_t n = g_nmods;
    g_mods = NULL;
    g_nmods = g_mods_cap = 0;
    pthread_mutex_unlock(&g_mods_lock);
    ct_il_methods more;
    memset(&more, 0, sizeof more);
    for (size_t i = 0; i < n; i++)
        ct_il_attach_module(&more, mods[i]);
    free(mods);
    if (more.n && SUCCEEDED(ct_il_attach_rejit(&more)) && ct_il_methods_append(ms, &more) == 0)
        ct_profiler_session_methods(ms->n);
    ct_il_methods_free(&more);
}

/* A request being read: its buffer and what it says. */
typedef struct request {
    char *buf;
    ct_attach_request r;
} request;

static const char *lookup(void *ctx, const char *name)
{
    /* One request line per condition (one session at a time reads it;
     * the model copies the conditions it parses). */
    if (!strcmp(name, ct_settings[CT_SET_WHEN].env)) {
        static char when[CT_WHEN_MAX_TEXT + 1];
        return ct_attach_request_join(ctx, name, when, sizeof when) >= 0 ? when : NULL;
    }
    if (!strcmp(name, ct_settings[CT_SET_AT].env)) {
        static char at[CT_AT_MAX_TEXT + 1];
        return ct_attach_request_join(ctx, name, at, sizeof at) >= 0 ? at : NULL;
    }
    if (!strcmp(name, ct_settings[CT_SET_INJECT].env)) {
        static char inject[CT_INJECT_MAX_TEXT + 1];
        return ct_attach_request_join(ctx, name, inject, sizeof inject) >= 0 ? inject : NULL;
    }
    if (!strcmp(name, ct_settings[CT_SET_ARGS_CHOSEN].env) ||
        !strcmp(name, ct_settings[CT_SET_RET_CHOSEN].env)) {
        static char chosen[2][CT_CHOSEN_MAX_TEXT + 1];
        char *to = chosen[!strcmp(name, ct_settings[CT_SET_RET_CHOSEN].env)];
        return ct_attach_request_join(ctx, name, to, sizeof chosen[0]) >= 0 ? to : NULL;
    }
    return ct_attach_request_get(ctx, name);
}

/* Sends one answer line; a CLI gone away is no error here. */
static void answer(int fd, const char *fmt, const char *a)
{
    char line[CT_ATTACH_ANSWER_MAX];
    int n = snprintf(line, sizeof line, fmt, a);
    if (n > 0)
        (void)!send(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1,
                    MSG_NOSIGNAL);
}

/* Receives the request and its descriptors into r: 0, or -1. */
static int receive(int fd, request *r, int fds[3], int *nfds)
{
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {r->buf, CT_ATTACH_REQUEST_MAX};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = u.buf;
    m.msg_controllen = sizeof u.buf;
    ssize_t n;
    do
        n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    *nfds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < k; i++) {
                int d;
                memcpy(&d, CMSG_DATA(c) + i * sizeof(int), sizeof d);
                if (*nfds < 3)
                    fds[(*nfds)++] = d;
                else
                    close(d);
            }
        }
    if (n <= 0 || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
        return -1;
    r->buf[n] = '\0';
    return 0;
}

/* A connection while a session runs: refused with a line (its request read
 * first, so that the answer is not lost to a reset). */
static void refuse_busy(int listener)
{
    int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    struct pollfd pf = {fd, POLLIN, 0};
    char *buf = poll(&pf, 1, 1000) > 0 ? malloc(CT_ATTACH_REQUEST_MAX + 1) : NULL;
    if (buf) {
        /* Its descriptors come with it: closed at once. */
        request r = {.buf = buf};
        int fds[3], n = 0;
        receive(fd, &r, fds, &n);
        for (int i = 0; i < n; i++)
            close(fds[i]);
        free(buf);
    }
    answer(fd, "error %s\n", "another clrtrace is tracing this process; try again once it "
                              "ends");
    close(fd);
}

/* One session on connection fd. */
static void session(int fd)
{
    /* The settings' strings (g_ct.cfg points into the request) stay until
     * the next session's replace them. */
    static char *kept;
    request r;
    memset(&r, 0, sizeof r);
    int fds[3] = {-1, -1, -1}, nfds = 0;
    char why[512];
    r.buf = malloc(CT_ATTACH_REQUEST_MAX + 1);
    if (!r.buf || receive(fd, &r, fds, &nfds) != 0) {
        answer(fd, "error %s\n", "the session request could not be read");
        goto out;
    }
    if (ct_attach_request_parse(r.buf, &r.r, why, sizeof why) != 0) {
        answer(fd, "error %s\n", why);
        goto out;
    }
    ct_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (ct_config_from(&cfg, lookup, &r.r, why, sizeof why) != 0) {
        answer(fd, "error %s\n", why);
        goto out;
    }
    /* The text log's, the trace's, and with --max-size the trace's folder
     * (its segments are made there). */
    int with_dir = r.r.binary && cfg.max_size;
    if (nfds != r.r.text + r.r.binary + with_dir) {
        answer(fd, "error %s\n", "the session request came without its output files");
        goto out;
    }
    int text_fd = r.r.text ? fds[0] : -1, bin_fd = r.r.binary ? fds[r.r.text] : -1;
    int bin_dir = with_dir ? fds[r.r.text + r.r.binary] : -1;
    free(kept);
    kept = r.buf;
    r.buf = NULL;
    ct_when_keep_notes(1);
    if (ct_profiler_session_start(&cfg, text_fd, bin_fd, bin_dir, why, sizeof why) != 0) {
        answer(fd, "error %s\n", why);
        goto out;
    }
    ct_il_methods ms;
    /* Modules loading from here on are queued for the wait below. */
    atomic_store(&g_in_session, 1);
    int listed = ct_il_attach_methods(&ms);
    /* A line probe (--at) no loaded module has code at: refused, nothing
     * rewritten (the modules' PDBs were read while the methods were
     * listed). */
    char unplaced[512];
    ct_lineprobe_unplaced(unplaced, sizeof unplaced);
    char *nl = strchr(unplaced, '\n');
    if (nl)
        *nl = '\0';
    HRESULT hr = unplaced[0] ? E_FAIL : listed == 0 ? ct_il_attach_rejit(&ms) : E_OUTOFMEMORY;
    if (FAILED(hr)) {
        if (unplaced[0])
            snprintf(why, sizeof why, "%s", unplaced);
        else
            snprintf(why, sizeof why,
                     "the runtime refused to rewrite the methods (HRESULT 0x%08X)", (unsigned)hr);
        atomic_store(&g_in_session, 0);
        ct_il_attach_report(NULL, 0);
        ct_il_attach_revert(&ms);
        ct_profiler_session_stop();
        answer(fd, "error %s\n", why);
        ct_il_methods_free(&ms);
        goto out;
    }
    ct_profiler_session_methods(ms.n);
    char counts[64];
    snprintf(counts, sizeof counts, "%zu %lu", ms.n, ms.skipped);
    answer(fd, "ok %s\n", counts);
    /* Until the CLI says so or goes away; meanwhile the methods of modules
     * that load are rewritten too. The CLI's message is read (a socket
     * closed with unread data resets the connection: the CLI would not
     * hear "done"). */
    for (;;) {
        struct pollfd pf[4] = {{fd, POLLIN, 0}, {g_wake[0], POLLIN, 0}, {g_listen, POLLIN, 0},
                               {g_listen_path, POLLIN, 0}};
        int ready = poll(pf, 4, -1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready > 0 && (pf[1].revents & POLLIN))
            take_new_modules(&ms);
        if (ready > 0 && (pf[2].revents & POLLIN))
            refuse_busy(g_listen);
        if (ready > 0 && (pf[3].revents & POLLIN))
            refuse_busy(g_listen_path);
        if (ready < 0 || pf[0].revents)
            break;
    }
    atomic_store(&g_in_session, 0);
    char stop[64];
    (void)!recv(fd, stop, sizeof stop, MSG_DONTWAIT);
    /* What the CLI prints after its detach line: methods left as they
     * were, methods that run inlined where ReJIT cannot reach. */
    char notes[CT_ATTACH_ANSWER_MAX - 8];
    ct_il_attach_report(notes, sizeof notes);
    ct_il_attach_revert(&ms);
    ct_profiler_session_stop();
    /* The conditions' and chosen values' notes (when.h), then the budget's
     * doings, once the writer finished (budget.h). */
    size_t used = strlen(notes);
    if (used + 2 < sizeof notes)
        ct_writer_notes(notes + used, sizeof notes - used);
    used = strlen(notes);
    ct_when_tell_unreadable();
    if (used + 2 < sizeof notes)
        ct_when_notes(notes + used, sizeof notes - used);
    used = strlen(notes);
    if (used + 2 < sizeof notes) {
        ct_budget_report(notes + used, sizeof notes - used - 1);
        if (notes[used])
            strcat(notes, "\n");
    }
    ct_il_methods_free(&ms);
    /* The outputs are complete before the CLI hears "done". */
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    nfds = 0;
    answer(fd, "done\n%s", notes);
out:
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    free(r.buf);
}

static void *control_main(void *arg)
{
    (void)arg;
    for (;;) {
        /* A negative descriptor (no socket file) is left out by poll. */
        struct pollfd pf[2] = {{g_listen, POLLIN, 0}, {g_listen_path, POLLIN, 0}};
        int ready = poll(pf, 2, -1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return NULL;
        int fd = accept4(pf[0].revents ? g_listen : g_listen_path, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN)
                continue;
            return NULL;
        }
        /* Only the process's own user, or root. */
        struct ucred cr;
        socklen_t len = sizeof cr;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 &&
            (cr.uid == geteuid() || cr.uid == 0))
            session(fd);
        close(fd);
    }
}

static void remove_path_socket(void)
{
    if (g_path_socket[0])
        unlink(g_path_socket);
    g_path_socket[0] = '\0';
}

/* The control socket's file in the process's TMPDIR (as the runtime finds
 * its own: $TMPDIR, else /tmp), owner-only: a listening descriptor, or -1
 * (no TMPDIR we may write, a path too long, a file of that name there:
 * left alone). A client in this network namespace does without it. */
static int listen_path(unsigned long long start)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    char name[CT_ATTACH_SOCKET_MAX + 1];
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (ct_attach_path_socket_name((unsigned)getpid(), start, name, sizeof name) < 0)
        return -1;
    int n = snprintf(a.sun_path, sizeof a.sun_path, "%.*s/%s", (int)len,
                     len == 1 && dir[0] == '/' ? "" : dir, name);
    if (n < 0 || (size_t)n >= sizeof a.sun_path)
        return -1;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    /* Connecting needs write access to the file: ours alone (root passes);
     * the connection's credentials are checked at accept anyway. */
    if (chmod(a.sun_path, 0600) != 0 || listen(fd, 4) != 0) {
        unlink(a.sun_path);
        close(fd);
        return -1;
    }
    memcpy(g_path_socket, a.sun_path, sizeof g_path_socket);
    atexit(remove_path_socket);
    return fd;
}

HRESULT ct_attach_initialize(IUnknown *unk, const void *data, UINT cb)
{
    size_t want = strlen(CT_ATTACH_CLIENT_DATA);
    if (!data || cb != want || memcmp(data, CT_ATTACH_CLIENT_DATA, want) != 0) {
        fprintf(stderr, "clrtrace: attached by something other than `clrtrace -p` (client data "
                        "not understood); not loading\n");
        return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
    }
    unsigned long long start = 0;
    char name[CT_ATTACH_SOCKET_MAX + 1];
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    int n = ct_proc_start_time((unsigned)getpid(), &start) == 0
                ? ct_attach_socket_name((unsigned)getpid(), start, name, sizeof name) : -1;
    if (n < 0 || (size_t)n + 1 > sizeof a.sun_path)
        return E_FAIL;
    memcpy(a.sun_path + 1, name, (size_t)n);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return E_FAIL;
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    if (bind(fd, (struct sockaddr *)&a, alen) != 0 || listen(fd, 4) != 0) {
        close(fd);
        return E_FAIL;
    }
    if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(fd);
        return E_FAIL;
    }
    HRESULT hr = ct_profiler_attach(unk);
    if (FAILED(hr)) {
        close(fd);
        close(g_wake[0]);
        close(g_wake[1]);
        return hr;
    }
    g_listen = fd;
    g_listen_path = listen_path(start);
    /* The thread takes no signals: they belong to the program. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int rc = pthread_create(&t, NULL, control_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return E_OUTOFMEMORY;
    pthread_setname_np(t, "clrtrace-attach");
    pthread_detach(t);
    return S_OK;
}
