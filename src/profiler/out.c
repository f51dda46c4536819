#include "out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *g_out;

/* A large buffer keeps the hooks from calling write(2) per line. */
#define OUT_BUFFER_SIZE (1 << 20)

static void flush_at_exit(void)
{
    if (g_out)
        fflush(g_out);
}

int ct_out_open(const char *path, char *why, size_t why_cap)
{
    if (!path) {
        g_out = stderr;
    } else {
        FILE *f = fopen(path, "w");
        if (!f) {
            snprintf(why, why_cap, "%s", strerror(errno));
            return -1;
        }
        setvbuf(f, NULL, _IOFBF, OUT_BUFFER_SIZE);
        g_out = f;
    }
    atexit(flush_at_exit);
    return 0;
}

void ct_out_write(const char *text, size_t len)
{
    /* fwrite takes the stream's lock once, so a call's lines stay together. */
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
