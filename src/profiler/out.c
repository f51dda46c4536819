#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *g_out;

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
    if (unbuffered)
        setvbuf(f, NULL, _IONBF, 0);
    else
        setvbuf(f, NULL, _IOFBF, OUT_BUFFER_SIZE);
    g_out = f;
    return 0;
}

void ct_out_write(const char *text, size_t len)
{
    if (g_out)
        fwrite(text, 1, len, g_out);
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
    if (g_out)
        fflush(g_out);
}
