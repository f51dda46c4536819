/* The attach protocol's names (include/clrtrace/attach.h). */
#define _GNU_SOURCE
#include "clrtrace/attach.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest /proc/PID/stat line read (the command name is at most 16 bytes;
 * the 52 numbers fit in about 1 KiB). */
#define PROC_STAT_MAX 4096

int ct_attach_socket_name(unsigned pid, unsigned long long start, char *out, size_t cap)
{
    int n = snprintf(out, cap, "clrtrace-attach-%u-%llu", pid, start);
    return n > 0 && (size_t)n < cap && (size_t)n <= CT_ATTACH_SOCKET_MAX ? n : -1;
}

int ct_proc_start_time(unsigned pid, unsigned long long *start)
{
    char path[64], line[PROC_STAT_MAX];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return -1;
    line[n] = '\0';
    /* "PID (COMM) STATE PPID ...": the command name may hold spaces and
     * parentheses; the fields after the last ')' are plain. The start time
     * is the 22nd field: the 20th after the name. */
    char *p = strrchr(line, ')');
    if (!p)
        return -1;
    p++;
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    char *end = NULL;
    unsigned long long v = strtoull(p + 1, &end, 10);
    if (end == p + 1)
        return -1;
    *start = v;
    return 0;
}
