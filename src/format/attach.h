/* What `clrtrace run|record -p PID` and the profiler it attaches agree on
 * (docs/tracer.md, "Attaching to a running process").
 *
 * 1. The CLI asks the runtime to load the profiler through the runtime's
 *    diagnostics socket (AttachProfiler, src/cli/attach_client.c), with
 *    CT_ATTACH_CLIENT_DATA as the client data. The profiler then listens on
 *    its control socket: a SOCK_SEQPACKET Unix socket in the abstract
 *    namespace named by ct_attach_socket_name (the pid and the process's
 *    start time, so that a reused pid never reaches another process's
 *    profiler), and on the same socket as a file in its TMPDIR
 *    (ct_attach_path_socket_name) for clients in other network namespaces.
 *    It accepts only its own user's (or root's) connections; the CLI uses
 *    a socket only when its listener's pid is the process's.
 * 2. A session: the CLI connects and sends one request, CT_ATTACH_HELLO, then
 *    "text 0|1", "binary 0|1" and NAME=VALUE lines (the CLRTRACE_* settings
 *    of the settings table), with the output files it opened itself passed
 *    as SCM_RIGHTS descriptors (the text log's first). The profiler answers
 *    "ok N" (N methods chosen) or "error TEXT", one line.
 * 3. The session ends when the CLI sends anything or closes the connection:
 *    the original code comes back (ReJIT revert), the trace is finished, and
 *    the profiler answers "done". A profiler already attached (a later
 *    `-p`) takes the next session on the same socket. */
#ifndef CLRTRACE_ATTACH_H
#define CLRTRACE_ATTACH_H

#include <stddef.h>

/* The AttachProfiler client data (the profiler declines anything else). */
#define CT_ATTACH_CLIENT_DATA "clrtrace-attach 1"
/* The first line of a session request. */
#define CT_ATTACH_HELLO "clrtrace-session 1"
/* Largest session request, and largest answer: a line ("ok N M", "error
 * WHY", "done"); "done" is followed by the lines the CLI prints after its
 * detach line (methods the runtime left as they were, every chosen method
 * with no call since the attach), each ending in '\n'. A SEQPACKET message:
 * one answer is one receive. */
#define CT_ATTACH_REQUEST_MAX (64u * 1024)
#define CT_ATTACH_ANSWER_MAX 65536u
/* More methods than this chosen in a running process: the CLI warns (each
 * call of each one is recorded; with no filter, "my code" can be large). */
#define CT_ATTACH_WARN_METHODS 5000u
/* Longest control socket name (sockaddr_un's path, less the leading NUL). */
#define CT_ATTACH_SOCKET_MAX 107u

/* Most settings lines in a request (the settings table has about 40; --when,
 * -A and -R take one line each). */
#define CT_ATTACH_MAX_SETTINGS 128

/* A session request as the profiler reads it: the outputs that come with
 * it (as descriptors, the text log's first) and the settings. */
typedef struct ct_attach_request {
    int text, binary;
    size_t n;
    const char *name[CT_ATTACH_MAX_SETTINGS];
    const char *value[CT_ATTACH_MAX_SETTINGS];
} ct_attach_request;

/* Writes the request for outputs text and binary (0 or 1) and settings
 * names[i]=values[i], i < n, into out: its length (no NUL), or 0 when it
 * does not fit in cap (nor in CT_ATTACH_REQUEST_MAX bytes), n is more than
 * CT_ATTACH_MAX_SETTINGS, or a name holds '=' or a line break, or a value a
 * line break. */
size_t ct_attach_request_write(char *out, size_t cap, int text, int binary, size_t n,
                               const char *const *names, const char *const *values);

/* Reads the request in buf (NUL-ended; split in place: r points into it):
 * 0, or -1 with one line in why (not a request, a line not understood,
 * more than CT_ATTACH_MAX_SETTINGS settings). */
int ct_attach_request_parse(char *buf, ct_attach_request *r, char *why, size_t cap);

/* The values of every line of setting name in r joined by line breaks
 * into out (NUL-ended): its length, or -1 when there is none or they do
 * not fit in cap. (CLRTRACE_WHEN: one condition a line.) */
long ct_attach_request_join(const ct_attach_request *r, const char *name, char *out, size_t cap);

/* The value of setting name in r, or NULL. */
const char *ct_attach_request_get(const ct_attach_request *r, const char *name);

/* The control socket's abstract name for process pid started at start (the
 * 22nd field of /proc/PID/stat), without the leading NUL: its length, or -1
 * when it does not fit in cap. */
int ct_attach_socket_name(unsigned pid, unsigned long long start, char *out, size_t cap);

/* The control socket's file in the process's TMPDIR (the profiler binds
 * it beside the abstract one: a client in another network namespace, where
 * the abstract name does not reach, connects to it through the file system,
 * /proc/PID/root/TMPDIR/...): "clrtrace-attach-PID-START-socket", PID and
 * START as the process sees them. Its length, or -1 when it does not fit. */
int ct_attach_path_socket_name(unsigned pid, unsigned long long start, char *out, size_t cap);

/* The prefixes of the sockets named PREFIX + "PID-KEY-socket": the runtime's
 * diagnostics socket (KEY its start time) and our control socket's file. */
#define CT_DIAG_SOCKET_PREFIX "dotnet-diagnostic-"
#define CT_CONTROL_SOCKET_PREFIX "clrtrace-attach-"

/* Whether name is PREFIX + pid + "-" + KEY + "-socket" (KEY decimal digits,
 * at most 20): 0 with *key, or -1. */
int ct_socket_name_key(const char *name, const char *prefix, unsigned pid,
                       unsigned long long *key);

/* /proc/PID/status (NUL-ended text): the last field of its "NSpid:" line,
 * the pid in the process's own pid namespace: 0, or -1 (no such line, or
 * one not understood: a kernel older than 4.1 has none). */
int ct_status_nspid(const char *status, unsigned *nspid);

/* /proc/PID/status: the four ids of its line key ("Uid:" or "Gid": real,
 * effective, saved, file system): 0, or -1. */
int ct_status_ids(const char *status, const char *key, unsigned ids[4]);

/* /proc/PID/uid_map (or gid_map; NUL-ended text, lines "INSIDE OUTSIDE
 * COUNT"): the id inside the process's user namespace of id outside (as
 * the reader sees it): 0 with *inside, or -1 when it is not mapped (the
 * process sees it as the overflow id) or a line is not understood. */
int ct_id_map_inside(const char *map, unsigned outside, unsigned *inside);

/* Value of NAME in a process's environment (/proc/PID/environ: n bytes of
 * NUL-ended "NAME=VALUE" strings; the last may lack its NUL), or NULL. */
const char *ct_environ_get(const char *env, size_t n, const char *name);

/* One line of /proc/PID/maps: whether its file is musl's dynamic loader or
 * C library (ld-musl-ARCH.so.1, libc.musl-ARCH.so.1): 1, else 0. */
int ct_maps_line_is_musl(const char *line);

/* Process pid's start time (clock ticks since boot, the 22nd field of
 * /proc/PID/stat): 0, or -1 (no such process, or a line not understood). */
int ct_proc_start_time(unsigned pid, unsigned long long *start);

/* Reads /proc/PID/WHAT into buf (at most cap - 1 bytes, NUL-ended): the
 * bytes read, or -1 when it cannot be opened. */
long ct_proc_read(unsigned pid, const char *what, char *buf, size_t cap);

/* Process pid's command line, its arguments (and any line break in them)
 * joined by spaces, into out: at most max bytes of it, then "..." when it
 * is longer; "?" when it cannot be read. cap is at least max + 4. */
void ct_proc_cmdline(unsigned pid, size_t max, char *out, size_t cap);

#endif
