/* The attach protocol's names (src/format/attach.h). */
#define _GNU_SOURCE
#include "attach.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest /proc/PID/stat line read (the command name is at most 16 bytes;
 * the 52 numbers fit in about 1 KiB). */
#define PROC_STAT_MAX 4096
/* Most digits of a socket name's KEY (a 64-bit number has 20). */
#define SOCKET_KEY_DIGITS_MAX 20
/* Most pid namespaces in an NSpid line (the kernel nests at most 32). */
#define STATUS_NSPID_MAX 33
/* Most lines of a uid_map read (the kernel allows 340). */
#define ID_MAP_LINES_MAX 340

int ct_attach_socket_name(unsigned pid, unsigned long long start, char *out, size_t cap)
{
    int n = snprintf(out, cap, "clrtrace-attach-%u-%llu", pid, start);
    return n > 0 && (size_t)n < cap && (size_t)n <= CT_ATTACH_SOCKET_MAX ? n : -1;
}

int ct_attach_path_socket_name(unsigned pid, unsigned long long start, char *out, size_t cap)
{
    int n = snprintf(out, cap, CT_CONTROL_SOCKET_PREFIX "%u-%llu-socket", pid, start);
    return n > 0 && (size_t)n < cap ? n : -1;
}

int ct_socket_name_key(const char *name, const char *prefix, unsigned pid,
                       unsigned long long *key)
{
    size_t lp = strlen(prefix);
    if (strncmp(name, prefix, lp) != 0)
        return -1;
    const char *p = name + lp;
    char want[16];
    int n = snprintf(want, sizeof want, "%u-", pid);
    if (n <= 0 || strncmp(p, want, (size_t)n) != 0)
        return -1;
    p += n;
    unsigned long long v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        unsigned d = (unsigned)(*p - '0');
        if (digits == SOCKET_KEY_DIGITS_MAX || v > (~0ull - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (!digits || strcmp(p, "-socket") != 0)
        return -1;
    *key = v;
    return 0;
}

/* The line of status that starts with key, or NULL. */
static const char *status_line(const char *status, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, key, n))
            return p + n;
    return NULL;
}

/* An unsigned decimal of at most 10 digits that fits 32 bits at *pp (blanks
 * before it skipped): 0 and *pp after it, or -1. */
static int read_u32(const char **pp, unsigned *out)
{
    const char *p = *pp;
    while (*p == ' ' || *p == '\t')
        p++;
    unsigned long long v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (++digits > 10 || (v = v * 10 + (unsigned)(*p - '0')) > 0xFFFFFFFFull)
            return -1;
    if (!digits)
        return -1;
    *out = (unsigned)v;
    *pp = p;
    return 0;
}

int ct_status_nspid(const char *status, unsigned *nspid)
{
    const char *p = status_line(status, "NSpid:");
    unsigned v = 0;
    int fields = 0;
    while (p && fields < STATUS_NSPID_MAX && read_u32(&p, &v) == 0)
        fields++;
    if (!p || !fields || (*p && *p != '\n'))
        return -1;
    *nspid = v;
    return 0;
}

int ct_status_ids(const char *status, const char *key, unsigned ids[4])
{
    const char *p = status_line(status, key);
    for (int i = 0; i < 4; i++)
        if (!p || read_u32(&p, &ids[i]) != 0)
            return -1;
    return 0;
}

int ct_id_map_inside(const char *map, unsigned outside, unsigned *inside)
{
    int lines = 0;
    for (const char *p = map; *p && lines < ID_MAP_LINES_MAX; lines++) {
        unsigned in, out, count;
        if (read_u32(&p, &in) != 0 || read_u32(&p, &out) != 0 || read_u32(&p, &count) != 0)
            return -1;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p && *p != '\n')
            return -1;
        if (*p)
            p++;
        if (outside >= out && (unsigned long long)outside < (unsigned long long)out + count) {
            *inside = in + (outside - out);
            return 0;
        }
    }
    return -1;
}

const char *ct_environ_get(const char *env, size_t n, const char *name)
{
    size_t ln = strlen(name);
    for (size_t i = 0; i < n;) {
        size_t len = strnlen(env + i, n - i);
        if (len > ln && !strncmp(env + i, name, ln) && env[i + ln] == '=')
            return env + i + ln + 1;
        i += len + 1;
    }
    return NULL;
}

int ct_maps_line_is_musl(const char *line)
{
    /* The file is the line's last field, a path: its last component. */
    const char *slash = strrchr(line, '/');
    if (!slash)
        return 0;
    return !strncmp(slash + 1, "ld-musl-", 8) || !strncmp(slash + 1, "libc.musl-", 10);
}

long ct_proc_read(unsigned pid, const char *what, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/%s", pid, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t k;
    while (n + 1 < cap && (k = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)k;
    close(fd);
    buf[n] = '\0';
    return (long)n;
}

void ct_proc_cmdline(unsigned pid, size_t max, char *out, size_t cap)
{
    snprintf(out, cap, "?");
    if (cap < max + 4)
        return;
    long n = ct_proc_read(pid, "cmdline", out, max + 1);
    if (n <= 0)
        return;
    while (n > 0 && out[n - 1] == '\0')
        n--;
    for (long i = 0; i < n; i++)
        if (out[i] == '\0' || out[i] == '\n')
            out[i] = ' ';
    out[n] = '\0';
    if ((size_t)n == max)
        memcpy(out + n, "...", 4);
}

int ct_proc_start_time(unsigned pid, unsigned long long *start)
{
    char line[PROC_STAT_MAX];
    if (ct_proc_read(pid, "stat", line, sizeof line) <= 0)
        return -1;
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

size_t ct_attach_request_write(char *out, size_t cap, int text, int binary, size_t n,
                               const char *const *names, const char *const *values)
{
    if (cap > CT_ATTACH_REQUEST_MAX)
        cap = CT_ATTACH_REQUEST_MAX;
    if (n > CT_ATTACH_MAX_SETTINGS)
        return 0;
    int k = snprintf(out, cap, "%s\ntext %d\nbinary %d\n", CT_ATTACH_HELLO, text ? 1 : 0,
                     binary ? 1 : 0);
    if (k < 0 || (size_t)k >= cap)
        return 0;
    size_t len = (size_t)k;
    for (size_t i = 0; i < n; i++) {
        if (!*names[i] || strpbrk(names[i], "=\n\r") || strpbrk(values[i], "\n\r"))
            return 0;
        k = snprintf(out + len, cap - len, "%s=%s\n", names[i], values[i]);
        if (k < 0 || (size_t)k >= cap - len)
            return 0;
        len += (size_t)k;
    }
    return len;
}

int ct_attach_request_parse(char *buf, ct_attach_request *r, char *why, size_t cap)
{
    memset(r, 0, sizeof *r);
    char *save = NULL;
    char *line = strtok_r(buf, "\n", &save);
    if (!line || strcmp(line, CT_ATTACH_HELLO) != 0) {
        snprintf(why, cap, "not a clrtrace session request (the clrtrace and the profiler "
                           "loaded in the process differ in version?)");
        return -1;
    }
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *eq = strchr(line, '=');
        if (!strcmp(line, "text 0") || !strcmp(line, "text 1")) {
            r->text = line[5] == '1';
        } else if (!strcmp(line, "binary 0") || !strcmp(line, "binary 1")) {
            r->binary = line[7] == '1';
        } else if (eq && eq != line && r->n < CT_ATTACH_MAX_SETTINGS) {
            *eq = '\0';
            r->name[r->n] = line;
            r->value[r->n++] = eq + 1;
        } else {
            snprintf(why, cap, "%s", eq && eq != line ? "more settings than a request holds"
                                                      : "a session request line not understood");
            return -1;
        }
    }
    return 0;
}

long ct_attach_request_join(const ct_attach_request *r, const char *name, char *out, size_t cap)
{
    size_t len = 0;
    int any = 0;
    if (!cap)
        return -1;
    out[0] = '\0';
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->name[i], name) != 0)
            continue;
        size_t v = strlen(r->value[i]);
        if (len + (any ? 1 : 0) + v + 1 > cap)
            return -1;
        if (any)
            out[len++] = '\n';
        memcpy(out + len, r->value[i], v + 1);
        len += v;
        any = 1;
    }
    return any ? (long)len : -1;
}

const char *ct_attach_request_get(const ct_attach_request *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->name[i], name))
            return r->value[i];
    return NULL;
}
