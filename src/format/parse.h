/* The words options carry, parsed the same way by every room: glob lists
 * (-F/-N/-T, the selection) and durations (--min-time, --since, -d). */
#ifndef CLRTRACE_FORMAT_PARSE_H
#define CLRTRACE_FORMAT_PARSE_H

#include <stdint.h>

/* Longest glob list (':'-separated) of trigger, include and exclude. */
#define CT_FILTER_MAX_GLOBS_TEXT 4096u
/* Largest duration: one day. */
#define CT_FILTER_MAX_MIN_TIME_NS (86400ull * 1000000000ull)

/* Does name match one of the ':'-separated fnmatch(3) globs of list? ('*'
 * also matches '.'; an empty list matches nothing.) */
int ct_glob_list_match(const char *list, const char *name);

/* Parses a duration: a number (decimals allowed) and a unit ns, us, ms or s;
 * no unit means us. Returns 0 with *ns set, or -1 when the text is not a
 * duration or exceeds CT_FILTER_MAX_MIN_TIME_NS. */
int ct_parse_duration(const char *text, uint64_t *ns);

#endif
