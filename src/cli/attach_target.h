/* The process `clrtrace run|record -p PID` attaches to, as seen from
 * clrtrace, which may be in other namespaces than the process (a container
 * seen from the host, or a sidecar sharing only its pid namespace):
 * docs/cli.md, "Containers".
 *
 * What differs across namespaces, and how each is reached:
 * - pid: the process names its sockets with its own pid, the last field of
 *   NSpid in /proc/PID/status;
 * - mount: its TMPDIR (from /proc/PID/environ, else /tmp) is reached through
 *   /proc/PID/root, resolved as the process would (symbolic links stay
 *   inside its root), and the profiler library is copied there for it to
 *   load (attach_target_place);
 * - network: the profiler's abstract control socket does not reach across;
 *   its file in the TMPDIR does (src/format/attach.h);
 * - time: the start time in socket names may read differently, so names are
 *   matched by prefix, and a socket is used only once its listener is known
 *   to be the process (SO_PEERCRED's pid). */
#ifndef CLRTRACE_CLI_ATTACH_TARGET_H
#define CLRTRACE_CLI_ATTACH_TARGET_H

#include <stddef.h>

/* Longest TMPDIR taken from a process's environment. */
#define ATTACH_TMPDIR_MAX 1024
/* Longest path of the runtime's file (libcoreclr.so) kept from its maps;
 * a longer one is not kept (the architecture check then reads the
 * process's executable). */
#define ATTACH_RUNTIME_PATH_MAX 1024

typedef struct attach_target {
    unsigned pid;               /* as clrtrace sees it */
    unsigned nspid;             /* as the process sees itself */
    unsigned long long start;   /* its start time, as clrtrace reads it */
    int same_mnt, same_net;     /* shares clrtrace's mount / network namespace */
    unsigned uid, gid;          /* its effective ids, as clrtrace sees them */
    char tmpdir[ATTACH_TMPDIR_MAX]; /* its TMPDIR as it sees it */
    int tmp_fd;                 /* that directory (O_PATH), or -1 */
    int tmp_errno;              /* why tmp_fd is -1 */
    int coreclr, musl;          /* what its /proc/PID/maps shows */
    char coreclr_path[ATTACH_RUNTIME_PATH_MAX]; /* the runtime's file, as it sees it, or "" */
    int diag_off;               /* DOTNET_EnableDiagnostics(_IPC)=0 in its environment */
} attach_target;

/* Looks at process pid: 0, or 1 after one line on stderr ("clrtrace WHO:
 * ...": gone, or no ptrace access to it). */
int attach_target_open(const char *who, unsigned pid, attach_target *t);
void attach_target_close(attach_target *t);

/* A connection to the profiler's control socket when it is loaded in the
 * process (the abstract socket when in the same network namespace, else its
 * file in the TMPDIR), or -1. */
int attach_target_control(const attach_target *t);

/* A connection to the runtime's diagnostics socket, or -1 after one line
 * that says why there is none (not .NET, diagnostics turned off, no access
 * to its TMPDIR, a musl process, or a runtime of another architecture than
 * the profiler library lib: an arm64 runtime under qemu-user, say). */
int attach_target_diagnostics(const char *who, const attach_target *t, const char *lib);

/* The path, as the process sees it, of the profiler lib for it to load
 * (into out): lib itself when the process shares clrtrace's mount
 * namespace, else a copy placed in its TMPDIR, TMPDIR/clrtrace-HASH/
 * libclrtrace.so (HASH of the content: reused by later attaches, verified
 * each time). 0, or 1 after one line. */
int attach_target_place(const char *who, const attach_target *t, const char *lib, char *out,
                        size_t cap);

#endif
