/* What the launcher and the profiler agree on: the profiler's CLSID and the
 * environment variables that carry options into the traced process. */
#ifndef CLRTRACE_LAUNCH_H
#define CLRTRACE_LAUNCH_H

/* CORECLR_PROFILER value (braces required). Fixed for good. */
#define CLRTRACE_CLSID_TEXT "{8B4B2E65-C262-4FCC-BAE6-2A302612F038}"

/* The profiler library's file name. */
#define CLRTRACE_PROFILER_FILE "libclrtrace.so"

/* The binary trace's file name inside a `clrtrace record -o DIR` directory. */
#define CLRTRACE_TRACE_FILE "trace.clrt"

#endif
