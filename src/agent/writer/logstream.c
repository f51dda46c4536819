#include "logstream.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A large buffer keeps the writer from calling write(2) per line. */
#define OUT_BUFFER_SIZE (1 << 20)

static int g_fd = -1;
static int g_shared;   /* not a regular file: other processes may write to it too */
static int g_unbuffered;
static char g_name[256];
static char g_buf[OUT_BUFFER_SIZE];
static size_t g_len;

/* A write that fails (a full disk, a file size limit, a reader that went
 * away) is reported once, on one line; the rest of the log is dropped. */
static void failed(int e)
{
    char line[512];
    int n = snprintf(line, sizeof line,
                     "clrtrace: writing the trace to %s failed (%s); the rest of the trace is lost\n",
                     g_name, strerror(e ? e : EIO));
    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    g_fd = -1;
}

int ct_out_open(int fd, const char *name, int unbuffered)
{
    struct stat st;
    g_fd = fd;
    g_shared = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode);
    g_unbuffered = unbuffered;
    g_len = 0;
    snprintf(g_name, sizeof g_name, "%s", name);
    return 0;
}

int ct_out_ok(void)
{
    return g_fd >= 0;
}

static int write_all(const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(g_fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            failed(k < 0 ? errno : EIO);
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Writes whole lines. On a stream other processes may share (stderr, a
 * pipe, a terminal: the traced program's children write their logs there
 * too), each write(2) is at most PIPE_BUF bytes of whole lines, which the
 * kernel keeps together, so lines of different processes never mix (a
 * single line longer than that goes alone). */
static void put_out(const char *p, size_t n)
{
    if (g_fd < 0)
        return;
    if (!g_shared) {
        write_all(p, n);
        return;
    }
    while (n && g_fd >= 0) {
        size_t k = n <= PIPE_BUF ? n : 0;
        if (!k) {
            /* The last line end within PIPE_BUF, else the first one. */
            for (size_t i = PIPE_BUF; i > 0 && !k; i--)
                if (p[i - 1] == '\n')
                    k = i;
            if (!k) {
                const char *nl = memchr(p, '\n', n);
                k = nl ? (size_t)(nl - p) + 1 : n;
            }
        }
        write_all(p, k);
        p += k;
        n -= k;
    }
}

void ct_out_write(const char *text, size_t len)
{
    if (g_fd < 0)
        return;
    if (g_unbuffered) {
        put_out(text, len);
        return;
    }
    if (len > sizeof g_buf - g_len)
        ct_out_flush();
    if (len > sizeof g_buf) {
        put_out(text, len);
        return;
    }
    memcpy(g_buf + g_len, text, len);
    g_len += len;
}

void ct_out_printf(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) {
        /* Cut: keep the line a line. */
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    ct_out_write(line, (size_t)n);
}

void ct_out_flush(void)
{
    if (g_len)
        put_out(g_buf, g_len);
    g_len = 0;
}
