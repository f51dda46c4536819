/* Where this process's trace goes: every traced process of a process tree
 * writes its own files, never another's (docs/tracer.md, "Process trees").
 *
 * The root of the tree writes the names it was given (CLRTRACE_OUTPUT,
 * CLRTRACE_TRACE); every other process writes beside them, with its pid in
 * the name: `FILE.PID` for a text log, `trace.PID.clrt` for a binary trace
 * named `trace.clrt`. The root is the process whose parent is the launcher
 * (CLRTRACE_LAUNCHER_PID). Loaded by the environment alone, the first
 * process to take a name holds it (an exclusive flock(2) for its lifetime);
 * one that finds the name held by a live process writes beside it. An
 * output that is not a regular file (stderr, a pipe, a terminal, /dev/null)
 * is shared as it is: every write there holds whole lines (writer/logstream.h).
 *
 * A launcher's index (CLRTRACE_INDEX) gets one line per traced process:
 *   "PID PPID STATE\tTEXT-PATH\tTRACE-PATH\tCOMMAND LINE\n"
 * (STATE: "traced", or "declined" when the profiler did not load; a path
 * that is not written reads "-"), one write(2) with O_APPEND each. */
#ifndef CLRTRACE_OUTPUTS_H
#define CLRTRACE_OUTPUTS_H

#include <limits.h>
#include <stddef.h>

#include "agent/runtime/config.h"

/* Longest index line (a line is one atomic append: at most PIPE_BUF). */
#define CT_INDEX_LINE_MAX 4096

typedef struct ct_outputs {
    int text_fd, bin_fd;         /* -1 when not written */
    char text_path[PATH_MAX];    /* "" for stderr */
    char bin_path[PATH_MAX];
} ct_outputs;

/* Whether this process is the root of the launcher's tree: 1 yes, 0 no, -1
 * not known (no launcher). */
int ct_outputs_root(const ct_config *c);

/* Opens this process's outputs: the text log when want_text (stderr when
 * c->output_path is NULL) and the binary trace when c->trace_path is set.
 * Returns 0, or -1 with the failing path and reason in why. */
int ct_outputs_open(const ct_config *c, int want_text, ct_outputs *o, char *why, size_t why_cap);

/* The path a process other than the root uses for base: base.PID, or for a
 * name ending in ".clrt", NAME.PID.clrt. 0, or -1 when it does not fit. */
int ct_outputs_beside(const char *base, unsigned pid, char *out, size_t cap);

/* Most bytes of the index ct_outputs_children reads (about 250 processes
 * with long command lines; later lines are not named). */
#define CT_INDEX_READ_MAX (1u << 20)

/* Passes emit one line "# traced child process PID (parent PPID): COMMAND\n"
 * for each process of the index at index_path, other than this one, that
 * was traced (the root's text log ends with them, as replay's does). Not
 * async-signal-safe: the writer thread calls it. */
void ct_outputs_children(const char *index_path, void (*emit)(const char *text, size_t len));

/* Adds this process's line to the launcher's index (nothing without one). */
void ct_outputs_index(const ct_config *c, const char *state, const ct_outputs *o,
                      const char *cmdline);

#endif
