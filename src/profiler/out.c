#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *g_out;
static char g_name[256];

/* A write that fails (a full disk, a file size limit) is reported once, on
 * one line; the rest of the log is dropped. */
static void failed(void)
{
    int e = errno;
    fprintf(stderr, "clrtrace: writing the trace to %s failed (%s); the rest of the trace is "
                    "lost\n", g_name, strerror(e ? e : EIO));
    g_out = NULL;
}

/* A large buffer keeps the writer from calling write(2) per line. */
#define OUT_BUFFER_SIZE (1 << 20)

int ct_out_open(const char *path, int unbuffered, char *why, size_t why_cap)
{
    /* stderr itself stays as the program left it: the log goes through a
     * stream of its own on a copy of the descriptor. */
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)
                  : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
        snprintf(why, why_cap, "%s", strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(why, why_cap, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    /* glibc ignores the size when it allocates the buffer itself: give it
     * one. The stream is never closed, the buffer never freed. */
    static char buffer[OUT_BUFFER_SIZE];
    if (unbuffered)
        setvbuf(f, NULL, _IONBF, 0);
    else
        setvbuf(f, buffer, _IOFBF, sizeof buffer);
    g_out = f;
    snprintf(g_name, sizeof g_name, "%s", path ? path : "stderr");
    return 0;
}

void ct_out_write(const char *text, size_t len)
{
    if (g_out && fwrite(text, 1, len, g_out) != len)
        failed();
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
    if (g_out && fflush(g_out) != 0)
        failed();
}
