/* Reading a binary trace for replay, report and dump: the file is mapped
 * whole and walked with the bounds-checked reader (src/trace/event.c). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clrtrace/launch.h"
#include "cli.h"

/* Arena for one FUNCTION record's decoded plans (reset per record): enough
 * for the largest record the format allows. */
#define TRACE_ARENA_BYTES (2u * CT_MAX_RECORD + (1u << 20))

int cli_trace_open(cli_trace *t, const char *who, const char *arg)
{
    memset(t, 0, sizeof *t);
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(t->path, sizeof t->path, "%s/%s", arg, CLRTRACE_TRACE_FILE);
    else
        snprintf(t->path, sizeof t->path, "%s", arg);
    int fd = open(t->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "clrtrace %s: cannot read %s: %s\n", who, t->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    t->len = (size_t)st.st_size;
    if (t->len) {
        void *m = mmap(NULL, t->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "clrtrace %s: cannot read %s: %s\n", who, t->path, strerror(errno));
            close(fd);
            return -1;
        }
        t->data = m;
    }
    close(fd);
    t->arena_mem = malloc(TRACE_ARENA_BYTES);
    if (!t->arena_mem) {
        fprintf(stderr, "clrtrace %s: out of memory\n", who);
        cli_trace_close(t);
        return -1;
    }
    t->arena = (ct_rarena){t->arena_mem, TRACE_ARENA_BYTES, 0};
    static const uint8_t empty[1];
    if (ct_reader_open(&t->reader, t->data ? t->data : empty, t->len, &t->arena) != CT_TRACE_OK) {
        fprintf(stderr, "clrtrace %s: %s: %s at offset %llu\n", who, t->path,
                ct_trace_strerror(t->reader.error), (unsigned long long)t->reader.error_offset);
        cli_trace_close(t);
        return -1;
    }
    return 0;
}

typedef struct each_ctx {
    int (*fn)(void *ctx, const ct_rec *rec);
    void *ctx;
    int failed;
    uint64_t offset;
} each_ctx;

static void each_failed(each_ctx *e, uint64_t offset)
{
    if (!e->failed) {
        e->failed = 1;
        e->offset = offset;
    }
}

/* Every record, straight from the reader or passed on by the filter. */
static void each_record(void *c, const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    (void)raw;
    (void)raw_len;
    each_ctx *e = c;
    if (!e->failed && e->fn(e->ctx, rec) != 0)
        each_failed(e, rec->offset);
}

int cli_trace_each(cli_trace *t, const char *who, int (*fn)(void *ctx, const ct_rec *rec),
                   void *ctx)
{
    ct_rec rec;
    int st = 0;
    each_ctx e = {fn, ctx, 0, 0};
    ct_filter *filter = NULL;
    if (t->filter && ct_filter_opts_active(t->filter) &&
        !(filter = ct_filter_new(t->filter, each_record, &e))) {
        fprintf(stderr, "clrtrace %s: out of memory\n", who);
        return 1;
    }
    while (!e.failed && (st = ct_reader_next(&t->reader, &rec)) == 1) {
        if (!filter)
            each_record(&e, &rec, NULL, 0);
        else if (ct_filter_record(filter, &rec, NULL, 0) != 0)
            each_failed(&e, rec.offset);
        t->arena.used = 0; /* the renderer and the filter keep copies of what they need */
    }
    if (filter) {
        if (!e.failed)
            ct_filter_finish(filter); /* held-back events: fn may fail on them too */
        ct_filter_free(filter);
    }
    if (e.failed) {
        fprintf(stderr, "clrtrace %s: out of memory at offset %llu\n", who,
                (unsigned long long)e.offset);
        return 1;
    }
    if (st < 0) {
        fflush(stdout);
        fprintf(stderr, "clrtrace %s: %s: %s at offset %llu\n", who, t->path,
                ct_trace_strerror(t->reader.error), (unsigned long long)t->reader.error_offset);
        return 1;
    }
    return 0;
}

void cli_trace_close(cli_trace *t)
{
    if (t->data)
        munmap(t->data, t->len);
    free(t->arena_mem);
    t->data = NULL;
    t->arena_mem = NULL;
}
