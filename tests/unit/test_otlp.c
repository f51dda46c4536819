/* The protobuf encoder of the exporters (src/cli/export/pb.c) at its
 * limits: varints of 1 to 10 bytes, tags, lengths that need one more byte
 * (127/128, 16383/16384), nesting whose inner length grows the outer ones,
 * fixed and double fields, strings (invalid UTF-8), running out of room; and
 * dump --otlp's exporter (otlp.c) over records made by hand: batches at
 * max_spans, parent links, the ids a source gives (cli_otlp_ids), the
 * service name, the endpoint URLs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "export/pb.h"
#include "records.h"

/* ------------------------------------------------------------ a decoder */

typedef struct rd {
    const uint8_t *p;
    size_t n, i;
} rd;

static uint64_t rd_varint(rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        assert_true(r->i < r->n);
        uint8_t b = r->p[r->i++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    fail_msg("varint longer than 10 bytes");
    return 0;
}

/* The next field: its number, wire type, and for LEN its body. */
static int rd_field(rd *r, uint32_t *field, int *wire, rd *body, uint64_t *val)
{
    if (r->i >= r->n)
        return 0;
    uint64_t tag = rd_varint(r);
    *field = (uint32_t)(tag >> 3);
    *wire = (int)(tag & 7);
    switch (*wire) {
    case PB_WIRE_VARINT:
        *val = rd_varint(r);
        break;
    case PB_WIRE_I64:
        assert_true(r->i + 8 <= r->n);
        *val = 0;
        for (int k = 7; k >= 0; k--)
            *val = *val << 8 | r->p[r->i + (size_t)k];
        r->i += 8;
        break;
    case PB_WIRE_I32:
        assert_true(r->i + 4 <= r->n);
        *val = (uint64_t)r->p[r->i] | (uint64_t)r->p[r->i + 1] << 8 |
               (uint64_t)r->p[r->i + 2] << 16 | (uint64_t)r->p[r->i + 3] << 24;
        r->i += 4;
        break;
    case PB_WIRE_LEN: {
        uint64_t len = rd_varint(r);
        assert_true(len <= r->n - r->i);
        *body = (rd){ r->p + r->i, (size_t)len, 0 };
        r->i += (size_t)len;
        break;
    }
    default:
        fail_msg("wire type %d", *wire);
    }
    return 1;
}

/* ------------------------------------------------------------ the encoder */

static void test_varints(void **state)
{
    (void)state;
    static const struct { uint64_t v; size_t n; uint8_t last; } k[] = {
        { 0, 1, 0 }, { 1, 1, 1 }, { 127, 1, 0x7f }, { 128, 2, 1 }, { 16383, 2, 0x7f },
        { 16384, 3, 1 }, { (1ull << 21) - 1, 3, 0x7f }, { 1ull << 21, 4, 1 },
        { (1ull << 28) - 1, 4, 0x7f }, { 1ull << 28, 5, 1 }, { (1ull << 35) - 1, 5, 0x7f },
        { 1ull << 35, 6, 1 }, { (1ull << 63) - 1, 9, 0x7f }, { 1ull << 63, 10, 1 },
        { UINT64_MAX, 10, 1 },
    };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        pb b = {0};
        pb_varint(&b, k[i].v);
        assert_int_equal(b.len, k[i].n);
        assert_int_equal(b.p[b.len - 1], k[i].last);
        for (size_t j = 0; j + 1 < b.len; j++)
            assert_true(b.p[j] & 0x80);
        rd r = { b.p, b.len, 0 };
        assert_true(rd_varint(&r) == k[i].v);
        assert_int_equal(r.i, b.len);
        pb_free(&b);
    }
    /* A negative int64 is its two's complement: 10 bytes. */
    pb b = {0};
    pb_uint(&b, 3, (uint64_t)(int64_t)-1);
    assert_int_equal(b.len, 11);
    assert_int_equal(b.p[0], 3 << 3);
    pb_free(&b);
}

static void test_tags(void **state)
{
    (void)state;
    pb b = {0};
    pb_tag(&b, 15, PB_WIRE_VARINT); /* the last one-byte tag */
    assert_int_equal(b.len, 1);
    assert_int_equal(b.p[0], 15 << 3);
    pb_tag(&b, 16, PB_WIRE_I32);    /* Span.flags: two bytes */
    assert_int_equal(b.len, 3);
    assert_int_equal(b.p[1], 0x85);
    assert_int_equal(b.p[2], 0x01);
    pb_tag(&b, (1u << 29) - 1, PB_WIRE_LEN); /* the largest field number: 5 bytes */
    assert_int_equal(b.len, 8);
    rd r = { b.p, b.len, 0 };
    assert_true(rd_varint(&r) == 15u << 3);
    assert_true(rd_varint(&r) == (16u << 3 | 5));
    assert_true(rd_varint(&r) == ((uint64_t)((1u << 29) - 1) << 3 | 2));
    pb_free(&b);
}

/* A field of `body` bytes (each its index's low byte): its length takes
 * len_bytes. */
static void one_len(size_t body, size_t len_bytes)
{
    pb b = {0};
    size_t at = pb_open(&b, 2);
    for (size_t i = 0; i < body; i++)
        pb_raw(&b, &(uint8_t){ (uint8_t)i }, 1);
    pb_close(&b, at);
    assert_false(b.oom);
    assert_int_equal(b.len, 1 + len_bytes + body);
    rd r = { b.p, b.len, 0 }, in = { 0 };
    uint32_t f;
    int w;
    uint64_t v;
    assert_true(rd_field(&r, &f, &w, &in, &v));
    assert_int_equal(f, 2);
    assert_int_equal(w, PB_WIRE_LEN);
    assert_int_equal(in.n, body);
    for (size_t i = 0; i < body; i++)
        assert_int_equal(in.p[i], (uint8_t)i);
    pb_free(&b);
}

static void test_lengths(void **state)
{
    (void)state;
    one_len(0, 1);
    one_len(127, 1);
    one_len(128, 2);
    one_len(16383, 2);
    one_len(16384, 3);
    one_len((1u << 21) - 1, 3);
    one_len(1u << 21, 4);
}

/* Three levels: the innermost body is 126 bytes, then a field of 1 byte
 * makes the middle one 128 + 2 = 130 bytes (its length two bytes), the
 * outer 1 + 2 + 130 + 3... as counted below. */
static void test_nesting(void **state)
{
    (void)state;
    pb b = {0};
    size_t outer = pb_open(&b, 1);
    pb_uint(&b, 5, 300);                     /* 1 + 2 bytes */
    size_t mid = pb_open(&b, 2);
    size_t inner = pb_open(&b, 3);
    for (int i = 0; i < 126; i++)
        pb_raw(&b, "x", 1);
    pb_close(&b, inner);                     /* 1 + 1 + 126 = 128 */
    pb_uint(&b, 4, 1);                       /* 2: the middle's body is 130 */
    pb_close(&b, mid);                       /* 1 + 2 + 130 = 133 */
    size_t empty = pb_open(&b, 6);
    pb_close(&b, empty);                     /* 2: an empty message */
    pb_close(&b, outer);                     /* body 3 + 133 + 2 = 138: 1 + 2 + 138 */
    assert_false(b.oom);
    assert_int_equal(b.len, 141);
    rd r = { b.p, b.len, 0 }, o = { 0 }, m = { 0 }, in = { 0 }, dummy = { 0 };
    uint32_t f;
    int w;
    uint64_t v;
    assert_true(rd_field(&r, &f, &w, &o, &v));
    assert_int_equal(f, 1);
    assert_int_equal(o.n, 138);
    assert_int_equal(r.i, r.n);
    assert_true(rd_field(&o, &f, &w, &dummy, &v));
    assert_true(f == 5 && v == 300);
    assert_true(rd_field(&o, &f, &w, &m, &v));
    assert_true(f == 2 && m.n == 130);
    assert_true(rd_field(&m, &f, &w, &in, &v));
    assert_true(f == 3 && in.n == 126 && !memcmp(in.p, "xxxx", 4) && in.p[125] == 'x');
    assert_true(rd_field(&m, &f, &w, &dummy, &v));
    assert_true(f == 4 && v == 1);
    assert_false(rd_field(&m, &f, &w, &dummy, &v));
    assert_true(rd_field(&o, &f, &w, &in, &v));
    assert_true(f == 6 && in.n == 0);
    assert_false(rd_field(&o, &f, &w, &dummy, &v));
    pb_free(&b);
}

static void test_fixed_and_strings(void **state)
{
    (void)state;
    pb b = {0};
    pb_fixed64(&b, 7, 0x0102030405060708ull);
    pb_fixed32(&b, 16, 0x01000000u);
    pb_double(&b, 4, 1.5);
    pb_string(&b, 1, "a\xff\xc3\xa9", 4);     /* a, an invalid byte, é */
    pb_bytes(&b, 2, "\0\1", 2);
    assert_false(b.oom);
    static const uint8_t want[] = {
        7 << 3 | 1, 8, 7, 6, 5, 4, 3, 2, 1,
        0x85, 0x01, 0, 0, 0, 1,
        4 << 3 | 1, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,
        1 << 3 | 2, 6, 'a', 0xef, 0xbf, 0xbd, 0xc3, 0xa9,
        2 << 3 | 2, 2, 0, 1,
    };
    assert_int_equal(b.len, sizeof want);
    assert_memory_equal(b.p, want, sizeof want);
    pb_free(&b);
}

static void test_out_of_room(void **state)
{
    (void)state;
    pb b = {0};
    pb_uint(&b, 1, 1);
    assert_int_equal(pb_room(&b, SIZE_MAX), -1);
    assert_true(b.oom);
    size_t len = b.len;
    pb_uint(&b, 1, 1);
    size_t at = pb_open(&b, 2);
    pb_string(&b, 3, "x", 1);
    pb_close(&b, at);
    assert_int_equal(b.len, len); /* nothing more written */
    pb_free(&b);
}

/* ------------------------------------------------------------ the exporter */

typedef struct span {
    uint8_t trace[16], id[8], parent[8];
    int has_parent;
    char name[64];
    uint64_t start, end;
    int error;
    char event[16];           /* the first event's name */
    uint64_t event_time;
    char ev_attrs[512];       /* its attributes, "KEY=VALUE|" each */
} span;

typedef struct sink {
    span spans[64];
    size_t n;
    uint32_t batches[16];
    size_t nbatches;
    int refuse_at;            /* the batch (1, 2, ...) the sink refuses; 0: none */
} sink;

static void read_span(rd *s, span *out)
{
    memset(out, 0, sizeof *out);
    rd in = { 0 };
    uint32_t f;
    int w;
    uint64_t v;
    while (rd_field(s, &f, &w, &in, &v)) {
        if (f == 1 && w == PB_WIRE_LEN && in.n == 16)
            memcpy(out->trace, in.p, 16);
        else if (f == 2 && w == PB_WIRE_LEN && in.n == 8)
            memcpy(out->id, in.p, 8);
        else if (f == 4 && w == PB_WIRE_LEN && in.n == 8)
            memcpy(out->parent, in.p, 8), out->has_parent = 1;
        else if (f == 5 && w == PB_WIRE_LEN && in.n < sizeof out->name)
            memcpy(out->name, in.p, in.n);
        else if (f == 7 && w == PB_WIRE_I64)
            out->start = v;
        else if (f == 8 && w == PB_WIRE_I64)
            out->end = v;
        else if (f == 15)
            out->error = 1;
        else if (f == 11 && w == PB_WIRE_LEN && !out->event[0]) {
            rd e = in, kv;
            while (rd_field(&e, &f, &w, &kv, &v)) {
                if (f == 1)
                    out->event_time = v;
                else if (f == 2 && kv.n < sizeof out->event)
                    memcpy(out->event, kv.p, kv.n);
                else if (f == 3) {
                    rd part = { 0 }, any = { 0 };
                    size_t at = strlen(out->ev_attrs);
                    while (rd_field(&kv, &f, &w, &part, &v)) {
                        if (f == 1) {
                            at += (size_t)snprintf(out->ev_attrs + at, sizeof out->ev_attrs - at,
                                                   "%.*s=", (int)part.n, (const char *)part.p);
                        } else if (f == 2 && rd_field(&part, &f, &w, &any, &v) && f == 1) {
                            at += (size_t)snprintf(out->ev_attrs + at, sizeof out->ev_attrs - at,
                                                   "%.*s|", (int)any.n, (const char *)any.p);
                        }
                        assert_true(at < sizeof out->ev_attrs);
                    }
                }
            }
        }
    }
}

static int take(void *ctx, const uint8_t *req, size_t len, uint32_t spans)
{
    sink *s = ctx;
    s->batches[s->nbatches++] = spans;
    if (s->refuse_at && (int)s->nbatches == s->refuse_at)
        return -1;
    rd r = { req, len, 0 }, rs = { 0 }, ss = { 0 }, sp = { 0 }, dummy = { 0 };
    uint32_t f, n = 0;
    int w;
    uint64_t v;
    assert_true(rd_field(&r, &f, &w, &rs, &v) && f == 1);
    assert_false(rd_field(&r, &f, &w, &dummy, &v)); /* one ResourceSpans */
    while (rd_field(&rs, &f, &w, &ss, &v)) {
        if (f != 2)
            continue; /* the resource */
        while (rd_field(&ss, &f, &w, &sp, &v))
            if (f == 2) {
                read_span(&sp, &s->spans[s->n++]);
                n++;
            }
    }
    assert_int_equal(n, spans);
    return 0;
}

static const ct_trace_header k_header = {
    .pid = 42, .start_unix_ns = 1000000000, .cmdline = "dotnet /x/App.dll a", .cmdline_len = 19,
};

static void fn(cli_otlp *x, uint64_t key, const char *name)
{
    ct_rec r = { .type = CT_REC_FUNCTION, .key = key, .name = name, .name_len = (uint32_t)strlen(name) };
    assert_int_equal(cli_otlp_record(x, &r), 0);
}

static int ev(cli_otlp *x, int type, uint64_t key, uint64_t t, uint64_t tid)
{
    ct_rec r = { .type = (ct_rec_type)type, .key = key, .time_ns = t, .tid = tid };
    return cli_otlp_record(x, &r);
}

/* Main { A { B } A } on thread 7, C on thread 8; 2 spans a batch. */
static void feed(cli_otlp *x)
{
    fn(x, 1, "Main");
    fn(x, 2, "A");
    fn(x, 3, "B");
    fn(x, 4, "C");
    assert_int_equal(ev(x, CT_REC_ENTER, 1, 10, 7), 0);
    assert_int_equal(ev(x, CT_REC_ENTER, 2, 20, 7), 0);
    assert_int_equal(ev(x, CT_REC_ENTER, 3, 30, 7), 0);
    assert_int_equal(ev(x, CT_REC_LEAVE, 3, 40, 7), 0);
    assert_int_equal(ev(x, CT_REC_LEAVE, 2, 50, 7), 0);
    assert_int_equal(ev(x, CT_REC_ENTER, 2, 60, 7), 0);
    assert_int_equal(ev(x, CT_REC_LEAVE, 2, 70, 7), 0);
    assert_int_equal(ev(x, CT_REC_ENTER, 4, 75, 8), 0);
    assert_int_equal(ev(x, CT_REC_LEAVE, 4, 76, 8), 0);
    assert_int_equal(ev(x, CT_REC_LEAVE, 1, 80, 7), 0);
}

static void test_otlp_batches_and_parents(void **state)
{
    (void)state;
    sink s = {0};
    cli_otlp *x = cli_otlp_new(&k_header, 2, take, &s, NULL);
    assert_non_null(x);
    feed(x);
    uint64_t spans, batches;
    assert_int_equal(cli_otlp_end(x, &spans, &batches), 0);
    assert_int_equal(spans, 5);
    assert_int_equal(batches, 3);
    assert_int_equal(s.nbatches, 3);
    assert_int_equal(s.batches[0], 2);
    assert_int_equal(s.batches[1], 2);
    assert_int_equal(s.batches[2], 1);
    /* Written as they end: B, A, A, C, Main. */
    static const char *const order[] = { "B", "A", "A", "C", "Main" };
    for (int i = 0; i < 5; i++)
        assert_string_equal(s.spans[i].name, order[i]);
    span *b = &s.spans[0], *a1 = &s.spans[1], *a2 = &s.spans[2], *c = &s.spans[3],
         *m = &s.spans[4];
    assert_true(b->has_parent && !memcmp(b->parent, a1->id, 8));
    assert_true(a1->has_parent && !memcmp(a1->parent, m->id, 8));
    assert_true(a2->has_parent && !memcmp(a2->parent, m->id, 8));
    assert_false(m->has_parent);
    assert_false(c->has_parent);
    assert_memory_equal(b->trace, m->trace, 16);
    assert_memory_equal(a2->trace, m->trace, 16);
    assert_memory_not_equal(c->trace, m->trace, 16); /* another thread's outermost call */
    assert_memory_not_equal(a1->id, a2->id, 8);
    assert_true(m->start == 1000000010 && m->end == 1000000080);
    assert_true(b->start == 1000000030 && b->end == 1000000040);

    /* The same records: the same ids. */
    sink again = {0};
    x = cli_otlp_new(&k_header, 2, take, &again, NULL);
    feed(x);
    assert_int_equal(cli_otlp_end(x, NULL, NULL), 0);
    assert_memory_equal(again.spans, s.spans, sizeof s.spans);
}

/* A source of ids: calls entered at time >= 60 on thread 7 are under trace
 * 0xAA.., activity span 0xBB..; thread 8's under 0xCC.., span 0xDD... */
static int ids_of(void *ctx, uint64_t tid, const ct_rec *enter, cli_otlp_ids *ids)
{
    ++*(int *)ctx;
    if (tid == 7 && enter->time_ns >= 60) {
        memset(ids->trace_id, 0xaa, 16);
        memset(ids->activity_span_id, 0xbb, 8);
    } else if (tid == 8) {
        memset(ids->trace_id, 0xcc, 16);
        memset(ids->activity_span_id, 0xdd, 8);
    }
    return 0;
}

static void test_otlp_ids_from_the_program(void **state)
{
    (void)state;
    sink s = {0};
    int asked = 0;
    cli_otlp_source src = { .ids = ids_of, .ctx = &asked };
    cli_otlp *x = cli_otlp_new(&k_header, 100, take, &s, &src);
    feed(x);
    assert_int_equal(cli_otlp_end(x, NULL, NULL), 0);
    assert_int_equal(asked, 5);
    span *b = &s.spans[0], *a1 = &s.spans[1], *a2 = &s.spans[2], *c = &s.spans[3],
         *m = &s.spans[4];
    uint8_t aa[16], bb[8], cc[16], dd[8];
    memset(aa, 0xaa, 16), memset(bb, 0xbb, 8), memset(cc, 0xcc, 16), memset(dd, 0xdd, 8);
    /* Main, A and B before 60: no ids, the file's trace. */
    assert_memory_equal(a1->trace, m->trace, 16);
    assert_memory_equal(b->trace, m->trace, 16);
    /* The second A entered under the activity: its trace, its parent the
     * activity's span (not Main's, in another trace). */
    assert_memory_equal(a2->trace, aa, 16);
    assert_true(a2->has_parent);
    assert_memory_equal(a2->parent, bb, 8);
    assert_memory_equal(c->trace, cc, 16);
    assert_memory_equal(c->parent, dd, 8);
}

static void test_otlp_sink_stops(void **state)
{
    (void)state;
    sink s = { .refuse_at = 1 };
    cli_otlp *x = cli_otlp_new(&k_header, 2, take, &s, NULL);
    fn(x, 1, "Main");
    fn(x, 2, "A");
    assert_int_equal(ev(x, CT_REC_ENTER, 1, 10, 7), 0);
    assert_int_equal(ev(x, CT_REC_ENTER, 2, 20, 7), 0);
    assert_int_equal(ev(x, CT_REC_LEAVE, 2, 30, 7), 0);
    assert_int_equal(ev(x, CT_REC_ENTER, 2, 40, 7), 0);
    assert_int_equal(ev(x, CT_REC_LEAVE, 2, 50, 7), CLI_EACH_STOP); /* the batch refused */
    assert_int_equal(ev(x, CT_REC_LEAVE, 1, 60, 7), CLI_EACH_STOP);
    assert_int_equal(cli_otlp_end(x, NULL, NULL), 1);
    assert_int_equal(s.nbatches, 1);
}

/* An exception: the event's exception.type, exception.message (unescaped;
 * "..." after a cut one) and clrtrace.exception (the text log's), at the
 * span's end; status ERROR. */
static void unwind(cli_otlp *x, uint64_t key, uint64_t t, const ct_test_values *c)
{
    ct_rec r = { .type = CT_REC_UNWIND, .key = key, .time_ns = t, .tid = 7, .values = c->b,
                 .values_len = c->len, .nvalues = c->n };
    assert_int_equal(cli_otlp_record(x, &r), 0);
}

static void test_otlp_exception(void **state)
{
    (void)state;
    sink s = {0};
    cli_otlp *x = cli_otlp_new(&k_header, 100, take, &s, NULL);
    ct_rec cls = { .type = CT_REC_CLASS, .key = 0x80, .name = "System.InvalidOperationException",
                   .name_len = 32 };
    assert_int_equal(cli_otlp_record(x, &cls), 0);
    cls.key = 0x81, cls.name = "System.FormatException", cls.name_len = 22;
    assert_int_equal(cli_otlp_record(x, &cls), 0);
    fn(x, 1, "Throws");
    static ct_test_values c;
    /* A message with a quote, a tab and a backslash, and an inner exception. */
    memset(&c, 0, sizeof c);
    ct_test_exception(&c, 0x80, "say \"hi\"\tnow \\", -1, ct_test_node_word(0, 0, 1));
    ct_test_exception(&c, 0x81, "bad: x", -1, ct_test_node_word(1, 0, 0));
    assert_int_equal(ev(x, CT_REC_ENTER, 1, 10, 7), 0);
    unwind(x, 1, 20, &c);
    /* A message cut to its first 4 characters. */
    memset(&c, 0, sizeof c);
    ct_test_exception(&c, 0x81, "abcdefgh", 4, ct_test_node_word(0, 0, 0));
    assert_int_equal(ev(x, CT_REC_ENTER, 1, 30, 7), 0);
    unwind(x, 1, 40, &c);
    /* A null message. */
    memset(&c, 0, sizeof c);
    ct_test_exception(&c, 0x81, NULL, -1, ct_test_node_word(0, 0, 0));
    assert_int_equal(ev(x, CT_REC_ENTER, 1, 50, 7), 0);
    unwind(x, 1, 60, &c);
    /* An exception the record does not describe. */
    assert_int_equal(ev(x, CT_REC_ENTER, 1, 70, 7), 0);
    assert_int_equal(ev(x, CT_REC_UNWIND, 1, 80, 7), 0);
    assert_int_equal(cli_otlp_end(x, NULL, NULL), 0);
    assert_int_equal(s.n, 4);
    for (int i = 0; i < 4; i++) {
        assert_true(s.spans[i].error);
        assert_string_equal(s.spans[i].event, "exception");
        assert_true(s.spans[i].event_time == s.spans[i].end);
    }
    assert_string_equal(s.spans[0].ev_attrs,
                        "exception.type=System.InvalidOperationException|"
                        "exception.message=say \"hi\"\tnow \\|"
                        "clrtrace.exception=System.InvalidOperationException: "
                        "\"say \\\"hi\\\"\\tnow \\\\\" <- System.FormatException: \"bad: x\"|");
    assert_string_equal(s.spans[1].ev_attrs,
                        "exception.type=System.FormatException|exception.message=abcd...|"
                        "clrtrace.exception=System.FormatException: \"abcd\"...(8 chars)|");
    assert_string_equal(s.spans[2].ev_attrs,
                        "exception.type=System.FormatException|"
                        "clrtrace.exception=System.FormatException|");
    assert_string_equal(s.spans[3].ev_attrs, "");
}

static void test_service_name(void **state)
{
    (void)state;
    static const char *const k[][2] = {
        { "dotnet /a/b/Hello.dll x", "Hello" },
        { "/usr/bin/dotnet exec --runtimeconfig r.json /p/App.dll", "App" },
        { "/srv/app/MyService --port 80", "MyService" },
        { "dotnet", "dotnet" },
        { "dotnet run", "dotnet" },
        { "", "unknown_service" },
        { "   ", "unknown_service" },
    };
    char out[256];
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        cli_otlp_service_name(k[i][0], strlen(k[i][0]), out, sizeof out);
        assert_string_equal(out, k[i][1]);
    }
    cli_otlp_service_name("/x/LongName", 11, out, 5);
    assert_string_equal(out, "Long");
}

static void test_endpoints(void **state)
{
    (void)state;
    cli_otlp_endpoint e;
    const char *why = NULL;
    assert_int_equal(cli_otlp_endpoint_parse("http://127.0.0.1:4318", &e, &why), 0);
    assert_string_equal(e.url, "http://127.0.0.1:4318/v1/traces");
    assert_string_equal(e.port, "4318");
    assert_int_equal(cli_otlp_endpoint_parse("HTTP://localhost/", &e, &why), 0);
    assert_string_equal(e.url, "http://localhost:80/v1/traces");
    assert_int_equal(cli_otlp_endpoint_parse("http://h:65535/otlp/v1/traces?x=1", &e, &why), 0);
    assert_string_equal(e.path, "/otlp/v1/traces?x=1");
    assert_int_equal(cli_otlp_endpoint_parse("http://[::1]:1", &e, &why), 0);
    assert_string_equal(e.host, "::1");
    assert_string_equal(e.url, "http://[::1]:1/v1/traces");
    static const char *const bad[] = {
        "https://h:4318", "ftp://h", "h:4318", "http://", "http://:80", "http://h:0",
        "http://h:65536", "http://h:12ab", "http://h:", "http://[::1", "http://h/a b",
        "http://h?x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why = NULL;
        assert_int_equal(cli_otlp_endpoint_parse(bad[i], &e, &why), -1);
        assert_non_null(why);
    }
    char longurl[CLI_OTLP_URL_MAX + 64] = "http://h/";
    memset(longurl + 9, 'a', CLI_OTLP_URL_MAX);
    longurl[9 + CLI_OTLP_URL_MAX] = 0;
    assert_int_equal(cli_otlp_endpoint_parse(longurl, &e, &why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varints),
        cmocka_unit_test(test_tags),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_fixed_and_strings),
        cmocka_unit_test(test_out_of_room),
        cmocka_unit_test(test_otlp_batches_and_parents),
        cmocka_unit_test(test_otlp_ids_from_the_program),
        cmocka_unit_test(test_otlp_sink_stops),
        cmocka_unit_test(test_otlp_exception),
        cmocka_unit_test(test_service_name),
        cmocka_unit_test(test_endpoints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
