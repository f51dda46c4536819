/* The trace reader, the value formatter and the renderer on arbitrary files:
 * every record is read with bounds checks and fed to the renderer exactly as
 * `clrtrace replay` does (text log and summary), so every ENTER/LEAVE value
 * is formatted with the plans of its function's FUNCTION record. The same
 * records go to `clrtrace dump --chrome`'s writer (src/cli/export/chrome.c, over the
 * call-stack walk of src/cli/export/calls.c), whose output must be valid JSON in
 * UTF-8 whatever the input: a small checker below parses it; and to
 * `dump --perfetto`'s (src/cli/export/perfetto.c), whose output must be protobuf
 * wire format down to the strings (valid UTF-8) of the messages it writes:
 * a second checker walks it. The last byte
 * of the input picks tree filters (src/views/treefilter.h) to put between
 * reader and renderer, as `clrtrace replay -D/-t/-T/--after` does. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "format/event.h"
#include "views/treefilter.h"
#include "views/render.h"
#include "cli.h"

static uint8_t arena_mem[1 << 20];

static void sink(void *ctx, const char *text, size_t len)
{
    size_t *total = ctx;
    /* Lines are whole and hold no NUL. */
    if (!len || text[len - 1] != '\n' || memchr(text, '\0', len))
        abort();
    *total += len;
}

/* ------------------------------------------------- a strict JSON checker
 * RFC 8259: one value, whitespace around; strings of UTF-8 without control
 * characters, with valid escapes; numbers in JSON's grammar. Returns the
 * position after the value, or NULL. Written apart from src/cli/escape.c. */
typedef struct jcur {
    const unsigned char *p, *end;
} jcur;

static const unsigned char *json_value(jcur *c, int depth);

static void json_ws(jcur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

static int is_digit(const jcur *c)
{
    return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

static const unsigned char *json_string(jcur *c)
{
    if (c->p >= c->end || *c->p != '"')
        return NULL;
    for (c->p++; c->p < c->end;) {
        unsigned char b = *c->p;
        if (b == '"')
            return ++c->p;
        if (b < 0x20)
            return NULL;
        if (b == '\\') {
            if (c->end - c->p < 2)
                return NULL;
            unsigned char e = c->p[1];
            if (e == 'u') {
                if (c->end - c->p < 6)
                    return NULL;
                for (int i = 2; i < 6; i++)
                    if (!strchr("0123456789abcdefABCDEF", c->p[i]) || !c->p[i])
                        return NULL;
                c->p += 6;
            } else if (e && strchr("\"\\/bfnrt", e)) {
                c->p += 2;
            } else {
                return NULL;
            }
            continue;
        }
        /* UTF-8: the lead byte says how many continuation bytes follow. */
        int n = b < 0x80 ? 0 : (b >= 0xC2 && b <= 0xDF) ? 1 : (b >= 0xE0 && b <= 0xEF) ? 2
              : (b >= 0xF0 && b <= 0xF4) ? 3 : -1;
        if (n < 0 || c->end - c->p <= n)
            return NULL;
        uint32_t cp = n == 0 ? b : n == 1 ? (b & 0x1Fu) : n == 2 ? (b & 0x0Fu) : (b & 0x07u);
        for (int i = 1; i <= n; i++) {
            if ((c->p[i] & 0xC0) != 0x80)
                return NULL;
            cp = (cp << 6) | (c->p[i] & 0x3Fu);
        }
        static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
        if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return NULL;
        c->p += n + 1;
    }
    return NULL;
}

static const unsigned char *json_number(jcur *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (!is_digit(c))
        return NULL;
    if (*c->p == '0')
        c->p++;
    else
        while (is_digit(c))
            c->p++;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!is_digit(c))
            return NULL;
        while (is_digit(c))
            c->p++;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!is_digit(c))
            return NULL;
        while (is_digit(c))
            c->p++;
    }
    return c->p;
}

static const unsigned char *json_list(jcur *c, int depth, unsigned char close, int object)
{
    c->p++;
    json_ws(c);
    if (c->p < c->end && *c->p == close)
        return ++c->p;
    for (;;) {
        if (object) {
            json_ws(c);
            if (!json_string(c))
                return NULL;
            json_ws(c);
            if (c->p >= c->end || *c->p++ != ':')
                return NULL;
        }
        if (!json_value(c, depth + 1))
            return NULL;
        if (c->p >= c->end)
            return NULL;
        if (*c->p == close)
            return ++c->p;
        if (*c->p++ != ',')
            return NULL;
    }
}

static const unsigned char *json_value(jcur *c, int depth)
{
    const unsigned char *r = NULL;
    json_ws(c);
    if (depth > 32 || c->p >= c->end)
        return NULL;
    switch (*c->p) {
    case '{': r = json_list(c, depth, '}', 1); break;
    case '[': r = json_list(c, depth, ']', 0); break;
    case '"': r = json_string(c); break;
    case 't': r = c->end - c->p >= 4 && !memcmp(c->p, "true", 4) ? (c->p += 4) : NULL; break;
    case 'f': r = c->end - c->p >= 5 && !memcmp(c->p, "false", 5) ? (c->p += 5) : NULL; break;
    case 'n': r = c->end - c->p >= 4 && !memcmp(c->p, "null", 4) ? (c->p += 4) : NULL; break;
    default: r = json_number(c); break;
    }
    if (r)
        json_ws(c);
    return r;
}

static int json_valid(const char *text, size_t len)
{
    jcur c = { (const unsigned char *)text, (const unsigned char *)text + len };
    return json_value(&c, 0) && c.p == c.end;
}

/* The JSON of dump --chrome for the same input. */
static void chrome_json(const uint8_t *data, size_t size)
{
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader r;
    if (ct_reader_open(&r, data, size, &a) != CT_TRACE_OK)
        return;
    char *json = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&json, &len);
    if (!out)
        return;
    cli_chrome *x = cli_chrome_new(out, &r.header);
    if (!x) {
        fclose(out);
        free(json);
        return;
    }
    ct_rec rec;
    int st;
    while ((st = ct_reader_next(&r, &rec)) == 1) {
        cli_chrome_record(x, &rec);
        a.used = 0;
    }
    cli_chrome_end(x, st == 0);
    ct_reader_close(&r);
    fclose(out);
    if (!json_valid(json, len))
        abort();
    free(json);
}

/* ------------------------------------------- a protobuf wire checker
 * The messages dump --perfetto writes (tests/e2e/perfetto_subset.proto):
 * which fields are messages (and of what kind) or strings; every field is a
 * varint or length-delimited, in bounds. Written apart from perfetto.c. */
enum { PB_TRACE, PB_PACKET, PB_EVENT, PB_ANNOTATION, PB_DESCRIPTOR, PB_PROCESS, PB_THREAD,
       PB_INTERNED, PB_NAME, PB_STRING, PB_BYTES };

static int pb_kind(int msg, uint64_t field)
{
    switch (msg) {
    case PB_TRACE: return field == 1 ? PB_PACKET : PB_BYTES;
    case PB_PACKET: return field == 11 ? PB_EVENT : field == 12 ? PB_INTERNED
                           : field == 60 ? PB_DESCRIPTOR : PB_BYTES;
    case PB_EVENT: return field == 4 ? PB_ANNOTATION : PB_BYTES;
    case PB_ANNOTATION: return field == 6 || field == 10 ? PB_STRING : PB_BYTES;
    case PB_DESCRIPTOR: return field == 3 ? PB_PROCESS : field == 4 ? PB_THREAD : PB_BYTES;
    case PB_PROCESS: return field == 6 ? PB_STRING : PB_BYTES;
    case PB_THREAD: return field == 5 ? PB_STRING : PB_BYTES;
    case PB_INTERNED: return field == 2 || field == 3 ? PB_NAME : PB_BYTES;
    case PB_NAME: return field == 2 ? PB_STRING : PB_BYTES;
    default: return PB_BYTES;
    }
}

static int pb_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

static int utf8_valid(const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        uint32_t c = *p++;
        int more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                 : (c & 0xf8) == 0xf0 ? 3 : -1;
        if (more < 0 || end - p < more)
            return 0;
        c &= 0x3f >> more;
        for (int i = 0; i < more; i++, p++) {
            if ((*p & 0xc0) != 0x80)
                return 0;
            c = c << 6 | (*p & 0x3f);
        }
        static const uint32_t min[] = { 0, 0x80, 0x800, 0x10000 };
        if (c < min[more] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
            return 0;
    }
    return 1;
}

static int pb_valid(int msg, const uint8_t *p, const uint8_t *end, int depth)
{
    if (msg == PB_STRING)
        return utf8_valid(p, end);
    if (msg == PB_BYTES || depth > 8)
        return msg == PB_BYTES;
    while (p < end) {
        uint64_t tag, v;
        if (!pb_get_varint(&p, end, &tag) || tag >> 3 == 0)
            return 0;
        if ((tag & 7) == 0) {
            if (!pb_get_varint(&p, end, &v))
                return 0;
        } else if ((tag & 7) == 2) {
            if (!pb_get_varint(&p, end, &v) || v > (uint64_t)(end - p) ||
                !pb_valid(pb_kind(msg, tag >> 3), p, p + v, depth + 1))
                return 0;
            p += v;
        } else {
            return 0; /* we write no other wire type */
        }
    }
    return 1;
}

/* The Perfetto trace of dump --perfetto for the same input. */
static void perfetto_trace(const uint8_t *data, size_t size)
{
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader r;
    if (ct_reader_open(&r, data, size, &a) != CT_TRACE_OK)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        return;
    cli_perfetto *x = cli_perfetto_new(out, &r.header);
    if (!x) {
        fclose(out);
        free(buf);
        return;
    }
    ct_rec rec;
    while (ct_reader_next(&r, &rec) == 1) {
        cli_perfetto_record(x, &rec);
        a.used = 0;
    }
    cli_perfetto_end(x);
    ct_reader_close(&r);
    fclose(out);
    if (!pb_valid(PB_TRACE, (const uint8_t *)buf, (const uint8_t *)buf + len, 0))
        abort();
    free(buf);
}

/* A trace without ZSTD records that reads whole reads the same with its
 * records compressed into one. */
static void same_compressed(const uint8_t *data, size_t size)
{
    static ZSTD_CCtx *cc;
    static uint8_t packed[CT_MAX_ZBLOCK];
    size_t h = ct_header_bytes(data, size);
    if (!h || h > size || size - h > sizeof packed - h - 64 || (!cc && !(cc = ZSTD_createCCtx())))
        return;
    memcpy(packed, data, h);
    ct_wbuf w;
    ct_wbuf_init(&w, packed + h, sizeof packed - h);
    if (ct_write_zstd(&w, data + h, size - h, cc) != CT_TRACE_OK)
        return; /* it would not shrink */
    static uint8_t mem1[1 << 16], mem2[1 << 16];
    ct_rarena a1 = { mem1, sizeof mem1, 0 }, a2 = { mem2, sizeof mem2, 0 };
    ct_reader r1, r2;
    if (ct_reader_open(&r1, data, size, &a1) != CT_TRACE_OK ||
        ct_reader_open(&r2, packed, h + w.len, &a2) != CT_TRACE_OK)
        abort();
    ct_rec x, y;
    int s1, s2;
    do {
        s1 = ct_reader_next(&r1, &x);
        s2 = ct_reader_next(&r2, &y);
        if (s1 != s2 || (s1 == 1 && (x.type != y.type || x.offset != y.offset ||
                                      x.key != y.key || x.time_ns != y.time_ns ||
                                      x.values_len != y.values_len ||
                                      (x.values_len && memcmp(x.values, y.values, x.values_len)))))
            abort();
        a1.used = a2.used = 0;
    } while (s1 == 1);
    if (r2.incomplete != r1.incomplete || r2.ended != r1.ended)
        abort();
    ct_reader_close(&r1);
    ct_reader_close(&r2);
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
    if (!rd) {
        ct_reader_close(&r);
        return 0;
    }
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
        if (rec.offset >= size + r.shift) /* stream offsets: ZSTD records' contents count */
            abort();
        if (f)
            ct_filter_record(f, &rec, NULL, 0);
        else
            ct_render_record(rd, &rec);
        a.used = 0; /* the renderer and the filter copy what they keep */
    }
    if (st < 0 && r.error_offset >= size + r.shift)
        abort();
    if (f) {
        ct_filter_finish(f);
        ct_filter_free(f);
    }
    ct_render_finish(rd);
    ct_render_free(rd);
    /* Read to its end (maybe without END), no record cut, none compressed. */
    int whole = st == 0 && (!r.incomplete || r.cut_offset == size) && !r.zstd_records;
    ct_reader_close(&r);
    chrome_json(data, size);
    perfetto_trace(data, size);
    if (whole)
        same_compressed(data, size);
    return 0;
}
