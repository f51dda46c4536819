/* The trace reader, the value formatter and the renderer on arbitrary files:
 * every record is read with bounds checks and fed to the renderer exactly as
 * `clrtrace replay` does (text log and summary), so every ENTER/LEAVE value
 * is formatted with the plans of its function's FUNCTION record. The last
 * byte of the input picks tree filters (include/clrtrace/filter.h) to put
 * between reader and renderer, as `clrtrace replay -D/-t/-T/--after` does. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrtrace/event.h"
#include "clrtrace/filter.h"
#include "clrtrace/render.h"

static uint8_t arena_mem[1 << 20];

static void sink(void *ctx, const char *text, size_t len)
{
    size_t *total = ctx;
    /* Lines are whole and hold no NUL. */
    if (!len || text[len - 1] != '\n' || memchr(text, '\0', len))
        abort();
    *total += len;
}

static void to_render(void *ctx, const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    (void)raw;
    (void)raw_len;
    ct_render_record(ctx, rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader r;
    if (ct_reader_open(&r, data, size, &a) != CT_TRACE_OK) {
        if (r.error_offset > size)
            abort();
        return 0;
    }
    size_t total = 0;
    ct_render_opts opts = { .lines = 1, .summary = 1 };
    ct_render *rd = ct_render_new(&opts, sink, &total);
    if (!rd)
        return 0;
    ct_render_header(rd, &r.header);
    uint8_t pick = size ? data[size - 1] : 0;
    ct_filter_opts fo = {
        .depth = pick & 3u,
        .min_time_ns = (uint64_t)(pick >> 2 & 3u) * 500u,
        .trigger = (pick & 16u) ? "*.M*:*a" : NULL,
        .after = pick >> 5,
    };
    ct_filter *f = ct_filter_opts_active(&fo) ? ct_filter_new(&fo, to_render, rd) : NULL;
    ct_rec rec;
    int st;
    while ((st = ct_reader_next(&r, &rec)) == 1) {
        if (rec.offset >= size)
            abort();
        if (f)
            ct_filter_record(f, &rec, NULL, 0);
        else
            ct_render_record(rd, &rec);
        a.used = 0; /* the renderer and the filter copy what they keep */
    }
    if (st < 0 && r.error_offset >= size)
        abort();
    if (f) {
        ct_filter_finish(f);
        ct_filter_free(f);
    }
    ct_render_finish(rd);
    ct_render_free(rd);
    return 0;
}
