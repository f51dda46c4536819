/* The binary trace format: what is written reads back the same, and a damaged
 * file is an error with an offset at every possible cut, never a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zstd.h>

#include "format/event.h"
#include "records.h"
#include "views/value_text.h"

static const ct_plan p_r8 = { .kind = CT_V_R8, .size = 8, .type_name = "double" };
static const ct_plan p_i4 = { .kind = CT_V_I4, .size = 4, .type_name = "int" };
static const ct_field pf[] = { { "X", 0, &p_r8 }, { "Y", 8, &p_r8 } };
static const ct_plan p_point = { .kind = CT_V_STRUCT, .size = 16, .type_name = "Point", .count = 2, .fields = pf };
static const ct_enum_item mi[] = { { "Fast", 0 }, { "Safe", 1 } };
static const ct_plan p_mode = { .kind = CT_V_ENUM, .size = 4, .type_name = "Mode", .underlying = CT_V_I4,
                                .count = 2, .items = mi };
static const ct_plan p_arr = { .kind = CT_V_ARRAY, .size = 8, .type_name = "int[]", .elem = &p_i4 };

static uint8_t file[8192];
static const double pt[2] = { 1, 2 };
static size_t file_len;

static void write_sample(void)
{
    ct_wbuf w;
    ct_wbuf_init(&w, file, sizeof file);
    assert_int_equal(ct_write_header(&w, 4242, 1, 1763781255000000000ull, "dotnet Demo.dll", "my code", "CoreCLR 10.0.12"), CT_TRACE_OK);
    ct_fn_param params[] = { { "Point p=", 0, &p_point }, { "double k=", 0, &p_r8 }, { "Mode m=", 0, &p_mode },
                             { "int[] xs=", 0, &p_arr } };
    ct_fn_param ret = { "Point ", 0, &p_point };
    assert_int_equal(ct_write_function(&w, 0x1000, "Demo.Shapes.Scale", "static Point Scale(Point p, double k)",
                                       CT_FN_STATIC, 4, params, &ret), CT_TRACE_OK);
    assert_int_equal(ct_write_thread(&w, 77, "worker"), CT_TRACE_OK);
    assert_int_equal(ct_write_class(&w, 0xABC, "Demo.Shapes"), CT_TRACE_OK);
    ct_event_mark m;
    assert_int_equal(ct_event_begin(&w, CT_REC_ENTER, 40000, 0, 77, 0x1000, &m), CT_TRACE_OK);
    double k = 1.5;
    uint8_t *v = ct_event_value_reserve(&w, 16);
    memcpy(v, pt, 16);
    ct_event_value_commit(&w, &m, 16);
    v = ct_event_value_reserve(&w, 8);
    memcpy(v, &k, 8);
    ct_event_value_commit(&w, &m, 8);
    ct_event_value_reserve(&w, 0);
    ct_event_value_commit_status(&w, &m, 0, CT_VALUE_TOO_LARGE);
    v = ct_event_value_reserve(&w, 8);
    memset(v, 0xAB, 8);
    ct_event_value_commit_status(&w, &m, 8, CT_VALUE_ADDRESS);
    ct_event_set_time(&w, &m, 41000, 0);
    assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
    assert_int_equal(ct_event_begin(&w, CT_REC_LEAVE, 41800, 0, 77, 0x1000, &m), CT_TRACE_OK);
    double r[2] = { 1.5, 3 };
    v = ct_event_value_reserve(&w, 16);
    memcpy(v, r, 16);
    ct_event_value_commit(&w, &m, 16);
    assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
    /* The same two events again in an EVENTS block, then a TAILCALL. */
    ct_events_mark em;
    assert_int_equal(ct_events_begin(&w, 78, 50000, 0x1000, &em), CT_TRACE_OK);
    uint8_t vals[8 + 16 + 4];
    uint32_t word = 16;
    memcpy(vals, &word, 4);
    memcpy(vals + 4, pt, 16);
    assert_int_equal(ct_events_add(&w, &em, CT_REC_ENTER, 50000, 0, 0x1000, 1, vals, 20), CT_TRACE_OK);
    assert_int_equal(ct_events_add(&w, &em, CT_REC_LEAVE, 49990, 0, 0x2000, 0, NULL, 0), CT_TRACE_OK);
    assert_int_equal(ct_events_add(&w, &em, CT_REC_TAILCALL, 60000, 0, 0x1000, 0, NULL, 0), CT_TRACE_OK);
    assert_int_equal(ct_events_end(&w, &em), CT_TRACE_OK);
    assert_int_equal(w.len % 8, 0);
    assert_int_equal(ct_write_dropped(&w, 77, 5), CT_TRACE_OK);
    assert_int_equal(ct_write_end(&w, 99000, 2, 746, 1), CT_TRACE_OK);
    file_len = w.len;
    /* CT_WRITE_SAMPLE=path saves this file (the seed of fuzz/fuzz_trace). */
    const char *save = getenv("CT_WRITE_SAMPLE");
    if (save) {
        FILE *fp = fopen(save, "wb");
        if (fp) {
            fwrite(file, 1, file_len, fp);
            fclose(fp);
        }
    }
}

static uint8_t arena_mem[1 << 16];

/* 2.7: each event carries the time the tracer had held its thread: in
 * EVENTS blocks as a difference (head bit 3, none when it did not change),
 * in an event record after the key. */
static void test_held_times(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_header(&w, 1, 0, 0, "x", "", ""), CT_TRACE_OK);
    ct_events_mark em;
    assert_int_equal(ct_events_begin(&w, 5, 1000, 0x10, &em), CT_TRACE_OK);
    static const uint64_t held[] = { 0, 3000, 3000, 10000000000ull };
    for (int i = 0; i < 4; i++)
        assert_int_equal(ct_events_add(&w, &em, i & 1 ? CT_REC_LEAVE : CT_REC_ENTER,
                                       1000 + 100000 * (uint64_t)i, held[i], 0x10, 0, NULL, 0),
                         CT_TRACE_OK);
    /* A held time that goes back does not go in this block. */
    assert_int_equal(ct_events_add(&w, &em, CT_REC_ENTER, 900000, 2999, 0x10, 0, NULL, 0),
                     CT_TRACE_E_SPACE);
    assert_int_equal(ct_events_end(&w, &em), CT_TRACE_OK);
    ct_event_mark m;
    assert_int_equal(ct_event_begin(&w, CT_REC_LEAVE, 500000, 77, 6, 0x10, &m), CT_TRACE_OK);
    assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
    static uint8_t mem[4096];
    ct_rarena a = { mem, sizeof mem, 0 };
    ct_reader r;
    ct_rec rec;
    assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
    assert_int_equal(r.header.minor, CT_TRACE_VERSION_MINOR);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ct_reader_next(&r, &rec), 1);
        assert_int_equal(rec.tid, 5);
        assert_int_equal(rec.time_ns, 1000 + 100000 * (uint64_t)i);
        assert_int_equal(rec.held_ns, held[i]);
    }
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_LEAVE);
    assert_int_equal(rec.time_ns, 500000);
    assert_int_equal(rec.held_ns, 77);
    assert_int_equal(rec.tid, 6);
    assert_int_equal(ct_rec_prog_ns(&rec), 500000 - 77);
    ct_reader_close(&r);
}

/* A block of hand-made event bytes after a header (minor: the header's);
 * returns the file's length, *at the offset of the first event byte. */
static size_t held_block(uint8_t *buf, size_t cap, uint16_t minor, const uint8_t *ev, size_t n,
                         size_t *at)
{
    ct_wbuf w;
    ct_wbuf_init(&w, buf, cap);
    assert_int_equal(ct_write_header(&w, 1, 0, 0, "x", "", ""), CT_TRACE_OK);
    buf[10] = (uint8_t)minor;
    buf[11] = 0;
    ct_events_mark em;
    assert_int_equal(ct_events_begin(&w, 5, 1000, 0x10, &em), CT_TRACE_OK);
    *at = w.len;
    memcpy(w.p + w.len, ev, n);
    w.len += n;
    assert_int_equal(ct_events_end(&w, &em), CT_TRACE_OK);
    assert_int_equal(ct_write_end(&w, 99000, 1, 1, 1), CT_TRACE_OK);
    return w.len;
}

/* Damaged held times: an error at the event's offset, never a crash. */
static void test_held_damage(void **state)
{
    (void)state;
    static const struct {
        uint16_t minor;
        uint8_t ev[16];
        size_t n, bad;      /* the event bytes; which event is damaged (its offset) */
    } cases[] = {
        /* a held time that goes back: -1 */
        { 7, { 0x08, 0, 0, 0x01 }, 4, 0 },
        /* +5, then -3 */
        { 7, { 0x08, 0, 0, 0x0A, 0x09, 0, 0, 0x05 }, 8, 4 },
        /* a cut difference */
        { 7, { 0x08, 0, 0, 0x80 }, 4, 0 },
        /* more than 10 varint bytes */
        { 7, { 0x08, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF }, 14, 0 },
        /* a held time in a 2.6 trace, which has none */
        { 6, { 0x08, 0, 0, 0x02 }, 4, 0 },
        /* head bits 4-7 */
        { 7, { 0x10, 0, 0 }, 3, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static uint8_t buf[1024], mem[1024];
        size_t at, len = held_block(buf, sizeof buf, cases[i].minor, cases[i].ev, cases[i].n, &at);
        ct_rarena a = { mem, sizeof mem, 0 };
        ct_reader r;
        ct_rec rec;
        assert_int_equal(ct_reader_open(&r, buf, len, &a), CT_TRACE_OK);
        int st;
        while ((st = ct_reader_next(&r, &rec)) == 1)
            ;
        assert_int_equal(st, -1);
        assert_int_equal(r.error, CT_TRACE_E_RECORD);
        assert_int_equal(r.error_offset, at + cases[i].bad);
        ct_reader_close(&r);
    }
    /* Held times that add up past 2^64: the third wraps. */
    uint8_t wrap[3 * 13];
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        wrap[n++] = 0x08;
        wrap[n++] = 0;
        wrap[n++] = 0;
        /* zigzag(2^63 - 1) = 2^64 - 2: nine 0xFF-ish bytes, then 0x01 */
        wrap[n++] = 0xFE;
        for (int j = 0; j < 8; j++)
            wrap[n++] = 0xFF;
        wrap[n++] = 0x01;
    }
    static uint8_t buf[1024], mem[1024];
    size_t at, len = held_block(buf, sizeof buf, 7, wrap, n, &at);
    ct_rarena a = { mem, sizeof mem, 0 };
    ct_reader r;
    ct_rec rec;
    assert_int_equal(ct_reader_open(&r, buf, len, &a), CT_TRACE_OK);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.held_ns, INT64_MAX);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(ct_reader_next(&r, &rec), -1);
    assert_int_equal(r.error_offset, at + 2 * 13);
    ct_reader_close(&r);
    /* An event record of 2.7 cut before its held time. */
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_header(&w, 1, 0, 0, "x", "", ""), CT_TRACE_OK);
    size_t rec_at = w.len;
    uint64_t fields[4] = { (uint64_t)CT_REC_ENTER | (uint64_t)24 << 32, 1000, 5, 0x10 };
    memcpy(w.p + w.len, fields, sizeof fields);
    w.len += sizeof fields;
    assert_int_equal(ct_write_end(&w, 99000, 1, 1, 1), CT_TRACE_OK);
    a.used = 0;
    assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
    assert_int_equal(ct_reader_next(&r, &rec), -1);
    assert_int_equal(r.error, CT_TRACE_E_RECORD);
    assert_int_equal(r.error_offset, rec_at);
    ct_reader_close(&r);
}

static void test_round_trip(void **state)
{
    (void)state;
    write_sample();
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader r;
    assert_int_equal(ct_reader_open(&r, file, file_len, &a), CT_TRACE_OK);
    assert_int_equal(r.header.pid, 4242);
    assert_memory_equal(r.header.cmdline, "dotnet Demo.dll", r.header.cmdline_len);
    assert_int_equal(r.header.settings_len, 15);
    assert_memory_equal(r.header.settings, "CoreCLR 10.0.12", 15);
    ct_rec rec;
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_FUNCTION);
    assert_int_equal(rec.key, 0x1000);
    assert_int_equal(rec.nparams, 4);
    assert_memory_equal(rec.name, "Demo.Shapes.Scale", rec.name_len);
    assert_int_equal(rec.params[1].name_len, 9);
    assert_memory_equal(rec.params[1].name, "double k=", 9);
    assert_int_equal(rec.ret.name_len, 6);
    assert_memory_equal(rec.ret.name, "Point ", 6);
    assert_string_equal(rec.params[0].plan->type_name, "Point");
    assert_int_equal(rec.params[0].plan->count, 2);
    assert_string_equal(rec.params[0].plan->fields[1].name, "Y");
    assert_int_equal(rec.params[0].plan->fields[1].offset, 8);
    assert_string_equal(rec.params[2].plan->items[1].name, "Safe");
    assert_int_equal(rec.params[3].plan->elem->kind, CT_V_I4);
    assert_int_equal(rec.ret.plan->kind, CT_V_STRUCT);
    const ct_plan *point = rec.params[0].plan;

    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_THREAD);
    assert_int_equal(rec.tid, 77);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_CLASS);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_ENTER);
    assert_int_equal(rec.time_ns, 41000);
    assert_int_equal(rec.nvalues, 4);
    size_t pos = 0;
    const uint8_t *v;
    uint32_t vl;
    ct_value_status vs;
    assert_int_equal(ct_next_value(&rec, &pos, &v, &vl, &vs), 1);
    assert_int_equal(vs, CT_VALUE_PLAN);
    char text[128];
    ct_text t;
    ct_text_init(&t, text, sizeof text);
    /* The plan read back formats the value read back. */
    assert_int_equal(ct_format_value(point, v, vl, NULL, &t), 16);
    assert_string_equal(text, "{X=1, Y=2}");
    assert_int_equal(ct_next_value(&rec, &pos, &v, &vl, NULL), 1);
    assert_int_equal(vl, 8);
    assert_int_equal(ct_next_value(&rec, &pos, &v, &vl, &vs), 1);
    assert_int_equal(vs, CT_VALUE_TOO_LARGE);
    assert_int_equal(vl, 0);
    assert_int_equal(ct_next_value(&rec, &pos, &v, &vl, &vs), 1);
    assert_int_equal(vs, CT_VALUE_ADDRESS);
    assert_int_equal(vl, 8);
    assert_int_equal(ct_next_value(&rec, &pos, &v, &vl, &vs), 0);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_LEAVE);
    /* The block's events, one by one, times and keys undone from deltas
     * (one going back in time). */
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_ENTER);
    assert_int_equal(rec.tid, 78);
    assert_int_equal(rec.time_ns, 50000);
    assert_int_equal(rec.key, 0x1000);
    assert_int_equal(rec.nvalues, 1);
    pos = 0;
    assert_int_equal(ct_next_value(&rec, &pos, &v, &vl, &vs), 1);
    ct_text_init(&t, text, sizeof text);
    assert_int_equal(ct_format_value(point, v, vl, NULL, &t), 16);
    assert_string_equal(text, "{X=1, Y=2}");
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_LEAVE);
    assert_int_equal(rec.time_ns, 49990);
    assert_int_equal(rec.key, 0x2000);
    assert_int_equal(rec.nvalues, 0);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_TAILCALL);
    assert_int_equal(rec.time_ns, 60000);
    assert_int_equal(rec.key, 0x1000);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_DROPPED);
    assert_int_equal(rec.count, 5);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_END);
    assert_int_equal(rec.count, 2);
    assert_int_equal(rec.mapped, 746);
    assert_int_equal(rec.traced, 1);
    assert_int_equal(ct_reader_next(&r, &rec), 0);
}

/* Every cut of the file either reads cleanly up to a record boundary or
 * reports an error at an offset inside the file. */
static void test_truncation_everywhere(void **state)
{
    (void)state;
    write_sample();
    for (size_t cut = 0; cut < file_len; cut++) {
        ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
        ct_reader r;
        if (ct_reader_open(&r, file, cut, &a) != CT_TRACE_OK) {
            assert_true(r.error_offset <= cut);
            continue;
        }
        ct_rec rec;
        int st;
        while ((st = ct_reader_next(&r, &rec)) == 1)
            ;
        if (st < 0)
            assert_true(r.error_offset < cut);
    }
}

static void test_corruption(void **state)
{
    (void)state;
    write_sample();
    /* Flip every byte in turn: never a crash, and errors carry offsets. */
    for (size_t i = 0; i < file_len; i++) {
        uint8_t saved = file[i];
        file[i] ^= 0xFF;
        ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
        ct_reader r;
        if (ct_reader_open(&r, file, file_len, &a) == CT_TRACE_OK) {
            ct_rec rec;
            while (ct_reader_next(&r, &rec) == 1)
                ;
            assert_true(r.error == CT_TRACE_OK || r.error_offset < file_len);
        }
        file[i] = saved;
    }
    static const uint8_t junk[] = "NOTATRACEFILE";
    ct_reader r;
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    assert_int_equal(ct_reader_open(&r, junk, sizeof junk, &a), CT_TRACE_E_MAGIC);
}

/* The header's size from the file's first 16 bytes (what `info` and the
 * process listing read before the header alone). */
static void test_header_bytes(void **state)
{
    (void)state;
    write_sample();
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader r;
    assert_int_equal(ct_reader_open(&r, file, file_len, &a), CT_TRACE_OK);
    assert_int_equal(ct_header_bytes(file, CT_TRACE_PREFIX_BYTES), r.pos);
    assert_int_equal(ct_header_bytes(file, CT_TRACE_PREFIX_BYTES - 1), 0);
    /* Exactly the header: the reader opens it and finds no record. */
    ct_rarena a2 = { arena_mem, sizeof arena_mem, 0 };
    assert_int_equal(ct_reader_open(&r, file, ct_header_bytes(file, file_len), &a2), CT_TRACE_OK);
    uint8_t p[CT_TRACE_PREFIX_BYTES];
    memcpy(p, file, sizeof p);
    uint32_t at_limit = CT_MAX_HEADER - CT_TRACE_PREFIX_BYTES, past = at_limit + 1;
    memcpy(p + 12, &at_limit, 4);
    assert_int_equal(ct_header_bytes(p, sizeof p), (CT_MAX_HEADER + 7) & ~7u);
    memcpy(p + 12, &past, 4);
    assert_int_equal(ct_header_bytes(p, sizeof p), 0);
    memcpy(p, file, sizeof p);
    p[8] = CT_TRACE_VERSION_MAJOR + 1; /* a major version this reader does not know */
    assert_int_equal(ct_header_bytes(p, sizeof p), 0);
    memcpy(p, file, sizeof p);
    p[0] = 'X';
    assert_int_equal(ct_header_bytes(p, sizeof p), 0);
}

/* FUNCTION records since 2.2 may say which parameters' targets LEAVE
 * records carry again; a mask naming a parameter that does not exist is a
 * damaged record; without one the mask reads 0. */
/* Appends the u64 word to the record at buf (its payload length grows by
 * 8); the record's new length, padded to 8. */
static size_t append_word(uint8_t *buf, uint64_t word)
{
    uint32_t plen;
    memcpy(&plen, buf + 4, 4);
    memcpy(buf + 8 + plen, &word, 8);
    plen += 8;
    memcpy(buf + 4, &plen, 4);
    return (8 + (size_t)plen + 7) & ~(size_t)7;
}

/* The record at buf[0..len): ct_read_record's answer. */
static long read_one(const uint8_t *buf, size_t len, ct_rec *rec, ct_trace_status *st)
{
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    return ct_read_record(buf, len, 0, &a, rec, st);
}

static void test_function_out_mask(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    static const ct_plan p_int = { .kind = CT_V_I4, .size = 4, .type_name = "int" };
    static const ct_plan p_ref = { .kind = CT_V_BYREF, .size = 8, .type_name = "ref int",
                                   .elem = &p_int };
    ct_fn_param params[] = { { "int a=", 0, &p_int }, { "out int v=", 0, &p_ref } };
    for (int round = 0; round < 3; round++) {
        uint64_t mask = round == 0 ? 2 : round == 1 ? 0 : 4; /* 4: a third parameter */
        ct_wbuf w;
        ct_wbuf_init(&w, buf, sizeof buf);
        assert_int_equal(ct_write_function_outs(&w, 7, "F", "", 0, 2, params, NULL, mask),
                         CT_TRACE_OK);
        if (round == 2) {
            /* The writer refuses to name a parameter that is not there. */
            ct_wbuf_init(&w, buf, sizeof buf);
            assert_int_equal(ct_write_function(&w, 7, "F", "", 0, 2, params, NULL), CT_TRACE_OK);
            /* Patch one in by hand: 8 more payload bytes holding mask 4. */
            w.len = append_word(buf, mask);
        }
        ct_rec rec;
        ct_trace_status st;
        long n = read_one(buf, w.len, &rec, &st);
        if (round == 2) {
            assert_int_equal(n, -1);
            assert_int_equal(st, CT_TRACE_E_RECORD);
        } else {
            assert_true(n > 0);
            assert_true(rec.out_mask == mask);
        }
    }
}

/* FUNCTION records' source location (2.11): after the out mask (written 0
 * when there is none), read back; a root past the file's end is a damaged
 * record. LINE records (2.11): read back; a flag not defined is a damaged
 * record. */
static void test_function_source(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    static const ct_plan p_int = { .kind = CT_V_I4, .size = 4, .type_name = "int" };
    static const ct_plan p_ref = { .kind = CT_V_BYREF, .size = 8, .type_name = "ref int",
                                   .elem = &p_int };
    ct_fn_param params[] = { { "int a=", 0, &p_int }, { "out int v=", 0, &p_ref } };
    for (int round = 0; round < 3; round++) {
        ct_wbuf w;
        ct_wbuf_init(&w, buf, sizeof buf);
        ct_fn_src src = { "/src/app/Orders.cs", 0x12345678, 9 };
        uint64_t mask = round == 1 ? 2 : 0;
        assert_int_equal(ct_write_function_src(&w, 7, "F", "", 0, 2, params, NULL, mask, &src),
                         CT_TRACE_OK);
        if (round == 2) {
            /* The root one byte past the file's 18 bytes. */
            uint32_t line = 0x12345678, root = 19;
            uint8_t *at = NULL;
            for (size_t i = 0; i + 4 <= w.len && !at; i++)
                if (!memcmp(buf + i, &line, 4))
                    at = buf + i;
            assert_non_null(at);
            memcpy(at + 4, &root, 4);
        }
        ct_rec rec;
        ct_trace_status st;
        long n = read_one(buf, w.len, &rec, &st);
        if (round == 2) {
            assert_int_equal(n, -1);
            assert_int_equal(st, CT_TRACE_E_RECORD);
            continue;
        }
        assert_true(n > 0);
        assert_true(rec.out_mask == mask);
        assert_int_equal(rec.src_file_len, 18);
        assert_memory_equal(rec.src_file, "/src/app/Orders.cs", 18);
        assert_int_equal(rec.src_line, 0x12345678);
        assert_int_equal(rec.src_root, 9);
    }
    /* Without a location: no out mask written, nothing after it. */
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    ct_fn_src none = { NULL, 0, 0 };
    assert_int_equal(ct_write_function_src(&w, 7, "F", "", 0, 2, params, NULL, 0, &none),
                     CT_TRACE_OK);
    size_t plain = w.len;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_function(&w, 7, "F", "", 0, 2, params, NULL), CT_TRACE_OK);
    assert_int_equal(w.len, plain);
    ct_rec rec;
    ct_trace_status st;
    assert_true(read_one(buf, w.len, &rec, &st) > 0);
    assert_null(rec.src_file);
    for (uint32_t flags = 0; flags < 3; flags++) {
        ct_wbuf_init(&w, buf, sizeof buf);
        assert_int_equal(ct_write_line(&w, 1000, 4242, 7, 36, flags), CT_TRACE_OK);
        long n = read_one(buf, w.len, &rec, &st);
        if (flags > CT_LINE_THROWN) {
            assert_int_equal(n, -1);
            assert_int_equal(st, CT_TRACE_E_RECORD);
        } else {
            assert_true(n > 0);
            assert_int_equal(rec.type, CT_REC_LINE);
            assert_true(rec.time_ns == 1000 && rec.tid == 4242 && rec.key == 7);
            assert_int_equal(rec.src_line, 36);
            assert_int_equal(rec.flags, flags);
        }
    }
}

/* LOCALS (2.12): value 0 is 16 bytes (the frame's function and id), or the
 * record has no values at all; value 0 of another length is a damaged
 * record. */
static void test_locals_record(void **state)
{
    (void)state;
    static uint8_t buf[512];
    static const size_t lens[] = { 16, 0, 8, 24 };
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
        ct_wbuf w;
        ct_event_mark m;
        ct_wbuf_init(&w, buf, sizeof buf);
        assert_int_equal(ct_event_begin(&w, CT_REC_LOCALS, 1000, 10, 4242, 3, &m), CT_TRACE_OK);
        uint8_t v0[24] = { 7 };
        int32_t x = 42;
        if (lens[k]) {
            uint8_t *p = ct_event_value_reserve(&w, lens[k]);
            assert_non_null(p);
            memcpy(p, v0, lens[k]);
            ct_event_value_commit(&w, &m, lens[k]);
            p = ct_event_value_reserve(&w, 4);
            memcpy(p, &x, 4);
            ct_event_value_commit(&w, &m, 4);
        }
        assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
        ct_rec rec;
        ct_trace_status st;
        long n = read_one(buf, w.len, &rec, &st);
        if (lens[k] == 16 || lens[k] == 0) {
            assert_true(n > 0);
            assert_int_equal(rec.type, CT_REC_LOCALS);
            assert_true(rec.time_ns == 1000 && rec.tid == 4242 && rec.key == 3 &&
                        rec.held_ns == 10);
            assert_int_equal(rec.nvalues, lens[k] ? 2 : 0);
        } else {
            assert_int_equal(n, -1);
            assert_int_equal(st, CT_TRACE_E_RECORD);
        }
    }
}

/* INJECT (2.13): the --inject's number below CT_INJECT_MAX (8), the
 * action 1 (throw) to 3 (delay); anything else is a damaged record. */
static void test_inject_record(void **state)
{
    (void)state;
    static uint8_t buf[128];
    static const struct { uint32_t index, action; int ok; } cases[] = {
        {0, 1, 1}, {7, 3, 1}, {3, 2, 1}, {8, 1, 0}, {0, 0, 0}, {0, 4, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ct_wbuf w;
        ct_wbuf_init(&w, buf, sizeof buf);
        assert_int_equal(ct_write_inject(&w, 1000, 4242, 7, cases[k].index, cases[k].action),
                         CT_TRACE_OK);
        ct_rec rec;
        ct_trace_status st;
        long n = read_one(buf, w.len, &rec, &st);
        if (cases[k].ok) {
            assert_true(n > 0);
            assert_int_equal(rec.type, CT_REC_INJECT);
            assert_true(rec.time_ns == 1000 && rec.tid == 4242 && rec.key == 7);
            assert_int_equal(rec.inject_index, cases[k].index);
            assert_int_equal(rec.inject_action, cases[k].action);
        } else {
            assert_int_equal(n, -1);
            assert_int_equal(st, CT_TRACE_E_RECORD);
        }
    }
}

/* SEGMENT (2.14, --max-size): time, segment number, bytes before, read
 * back as written; a record one word short is damaged. */
static void test_segment_record(void **state)
{
    (void)state;
    static uint8_t buf[128];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_segment(&w, 9601598000ull, 59, 121432064ull), CT_TRACE_OK);
    assert_int_equal(w.len, 8 + 24);
    ct_rec rec;
    ct_trace_status st;
    assert_true(read_one(buf, w.len, &rec, &st) > 0);
    assert_int_equal(rec.type, CT_REC_SEGMENT);
    assert_true(rec.time_ns == 9601598000ull && rec.key == 59 && rec.count == 121432064ull);
    /* Two words only: the payload length says 16 bytes. */
    buf[4] = 16;
    assert_int_equal(read_one(buf, 8 + 16, &rec, &st), -1);
}

/* END (2.5): the count of traced functions left as they were, when not 0;
 * a record without it (2.4) reads as 0; a sixth word is a damaged record. */
static void test_end_unrewritten(void **state)
{
    (void)state;
    static uint8_t buf[256];
    for (int round = 0; round < 3; round++) {
        ct_wbuf w;
        ct_wbuf_init(&w, buf, sizeof buf);
        assert_int_equal(ct_write_end_unrewritten(&w, 9, 8, 7, 6, round == 1 ? 0 : 3),
                         CT_TRACE_OK);
        assert_int_equal(w.len, round == 1 ? 8 + 32 : 8 + 40);
        if (round == 2)
            w.len = append_word(buf, 1); /* one more word by hand */
        ct_rec rec;
        ct_trace_status st;
        long n = read_one(buf, w.len, &rec, &st);
        if (round == 2) {
            assert_int_equal(n, -1);
            assert_int_equal(st, CT_TRACE_E_RECORD);
            continue;
        }
        assert_int_equal(n, (long)w.len);
        assert_int_equal(rec.type, CT_REC_END);
        assert_int_equal(rec.mapped, 7);
        assert_int_equal(rec.traced, 6);
        assert_int_equal(rec.unrewritten, round == 1 ? 0 : 3);
    }
}

/* UNWIND events may carry the exception (ct_unwind_plan): as records and in
 * EVENTS blocks they read back with their values; an UNWIND without values
 * (every trace of 2.2 and before) still reads; a TAILCALL with values is a
 * damaged record. */
static void test_unwind_values(void **state)
{
    (void)state;
    static uint8_t buf[4096];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_header(&w, 1, 0, 2, "x", "y", "z"), CT_TRACE_OK);
    assert_int_equal(ct_write_class(&w, 0x80, "System.InvalidOperationException"), CT_TRACE_OK);
    /* The values: the object (address, class), the message "boom". */
    uint8_t vals[4 + 16 + 4 + 16 + 8];
    uint64_t addr = 0x7f0000001000, cls = 0x80, saddr = 0x7f0000002000;
    uint32_t word = 16, slen = 4, n = 4;
    size_t len = 0;
    memcpy(vals + len, &word, 4), len += 4;
    memcpy(vals + len, &addr, 8), len += 8;
    memcpy(vals + len, &cls, 8), len += 8;
    word = 16 + 8;
    memcpy(vals + len, &word, 4), len += 4;
    memcpy(vals + len, &saddr, 8), len += 8;
    memcpy(vals + len, &slen, 4), len += 4;
    memcpy(vals + len, &n, 4), len += 4;
    memcpy(vals + len, (const uint8_t[]){ 'b', 0, 'o', 0, 'o', 0, 'm', 0 }, 8), len += 8;
    assert_int_equal(len, sizeof vals);
    ct_event_mark m;
    assert_int_equal(ct_event_begin(&w, CT_REC_UNWIND, 10, 0, 7, 0x1000, &m), CT_TRACE_OK);
    uint8_t *v = ct_event_value_reserve(&w, 16);
    memcpy(v, vals + 4, 16);
    ct_event_value_commit(&w, &m, 16);
    v = ct_event_value_reserve(&w, 24);
    memcpy(v, vals + 24, 24);
    ct_event_value_commit(&w, &m, 24);
    assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
    assert_int_equal(ct_event_begin(&w, CT_REC_UNWIND, 11, 0, 7, 0x1000, &m), CT_TRACE_OK);
    assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
    ct_events_mark em;
    assert_int_equal(ct_events_begin(&w, 7, 20, 0x1000, &em), CT_TRACE_OK);
    assert_int_equal(ct_events_add(&w, &em, CT_REC_UNWIND, 20, 0, 0x1000, 2, vals, len), CT_TRACE_OK);
    assert_int_equal(ct_events_add(&w, &em, CT_REC_UNWIND, 21, 0, 0x1000, 0, NULL, 0), CT_TRACE_OK);
    assert_int_equal(ct_events_end(&w, &em), CT_TRACE_OK);
    size_t good = w.len;

    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader r;
    assert_int_equal(ct_reader_open(&r, buf, good, &a), CT_TRACE_OK);
    ct_rec rec;
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_CLASS);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ct_reader_next(&r, &rec), 1);
        assert_int_equal(rec.type, CT_REC_UNWIND);
        assert_int_equal(rec.key, 0x1000);
        assert_int_equal(rec.time_ns, i < 2 ? 10 + i : 18 + i);
        if (i % 2) {
            assert_int_equal(rec.nvalues, 0); /* as 2.2 writes them */
            continue;
        }
        assert_int_equal(rec.nvalues, 2);
        size_t pos = 0;
        const uint8_t *vv;
        uint32_t vl;
        ct_value_status vs;
        assert_int_equal(ct_next_value(&rec, &pos, &vv, &vl, &vs), 1);
        assert_int_equal(vs, CT_VALUE_PLAN);
        assert_int_equal(vl, 16);
        assert_memory_equal(vv, vals + 4, 16);
        assert_int_equal(ct_next_value(&rec, &pos, &vv, &vl, &vs), 1);
        assert_int_equal(vs, CT_VALUE_PLAN);
        assert_int_equal(vl, 24);
        assert_memory_equal(vv, vals + 24, 24); /* the message "boom" */
        assert_int_equal(ct_next_value(&rec, &pos, &vv, &vl, &vs), 0);
    }
    assert_int_equal(ct_reader_next(&r, &rec), 0);
    assert_int_equal(ct_unwind_plan(0)->kind, CT_V_OBJECT);
    assert_int_equal(ct_unwind_plan(1)->kind, CT_V_STRING);
    /* Since 2.6: each exception of the chain as (object, message, node word). */
    for (uint32_t i = 0; i < CT_UNWIND_NODE_VALUES * (1 + CT_UNWIND_CHAIN_MAX); i++)
        assert_int_equal(ct_unwind_plan(i)->kind, i % 3 == 0   ? CT_V_OBJECT
                                                  : i % 3 == 1 ? CT_V_STRING
                                                               : CT_V_U4);
    assert_null(ct_unwind_plan(CT_UNWIND_NODE_VALUES * (1 + CT_UNWIND_CHAIN_MAX)));

    /* A TAILCALL with values: a damaged record, alone or in a block. */
    for (int in_block = 0; in_block < 2; in_block++) {
        w.len = good;
        if (in_block) {
            assert_int_equal(ct_events_begin(&w, 7, 30, 0x1000, &em), CT_TRACE_OK);
            assert_int_equal(ct_events_add(&w, &em, CT_REC_UNWIND, 30, 0, 0x1000, 2, vals, len),
                             CT_TRACE_OK);
            /* Patch its head byte: kind 2 (TAILCALL) with values. */
            w.p[w.len - len - 1 - 1 - 1 - 1 - 1] = 2 | 4;
            assert_int_equal(ct_events_end(&w, &em), CT_TRACE_OK);
        } else {
            assert_int_equal(ct_event_begin(&w, CT_REC_TAILCALL, 30, 0, 7, 0x1000, &m), CT_TRACE_OK);
            v = ct_event_value_reserve(&w, 16);
            memcpy(v, vals + 4, 16);
            ct_event_value_commit(&w, &m, 16);
            assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
        }
        a.used = 0;
        assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
        int st;
        while ((st = ct_reader_next(&r, &rec)) == 1)
            ;
        assert_int_equal(st, -1);
        assert_int_equal(r.error, CT_TRACE_E_RECORD);
    }
}

/* ------------------------------------------------ the exception chain */

/* Values of an UNWIND record built by hand (records.h). */
typedef ct_test_values chain_buf;
#define chain_value ct_test_value
#define node_word ct_test_node_word
#define chain_node(c, cls, m, word) ct_test_exception(c, cls, m, -1, word)

static int chain_read(const chain_buf *c, ct_exc_node *x, uint32_t cap, uint32_t *n)
{
    ct_rec r = { .type = CT_REC_UNWIND, .values = c->b, .values_len = c->len, .nvalues = c->n };
    return ct_unwind_chain(&r, x, cap, n);
}

/* ct_unwind_chain: the thrown exception and its inner exceptions in
 * preorder; traces before 2.6 (no node word) read as the exception alone;
 * the reader's limit at CT_UNWIND_CHAIN_MAX and one past; every cut and
 * every bad word a damaged chain (the thrown exception still read). */
static void test_unwind_chain(void **state)
{
    (void)state;
    static ct_exc_node x[CT_UNWIND_CHAIN_MAX + 2];
    uint32_t n = 0;
    static chain_buf c;

    /* Before 2.6: object and message; object alone; nothing. */
    memset(&c, 0, sizeof c);
    chain_node(&c, 0x80, "boom", 0);
    c.len -= 8, c.n--; /* without the node word */
    assert_int_equal(chain_read(&c, x, 4, &n), 1);
    assert_int_equal(n, 1);
    assert_int_equal(x[0].class_id, 0x80);
    assert_int_equal(x[0].message_status, CT_VALUE_PLAN);
    assert_int_equal(x[0].inner, 0);
    c.len = 20, c.n = 1;
    assert_int_equal(chain_read(&c, x, 4, &n), 1);
    assert_int_equal(x[0].message_status, CT_VALUE_MISSING);
    assert_null(x[0].message);
    c.len = 0, c.n = 0;
    assert_int_equal(chain_read(&c, x, 4, &n), 0);

    /* load failed <- not found; an aggregate of (a <- a1, b). */
    memset(&c, 0, sizeof c);
    chain_node(&c, 0x80, "load failed", node_word(0, 0, 1));
    chain_node(&c, 0x81, "not found", node_word(1, 0, 0));
    assert_int_equal(chain_read(&c, x, 4, &n), 1);
    assert_int_equal(n, 2);
    assert_int_equal(x[0].kept, 1);
    assert_int_equal(x[1].depth, 1);
    assert_int_equal(x[1].class_id, 0x81);
    memset(&c, 0, sizeof c);
    chain_node(&c, 0x90, "batch", node_word(0, 1, 3));
    chain_node(&c, 0x80, "a", node_word(1, 0, 1));
    chain_node(&c, 0x81, "a1", node_word(2, 0, 0));
    chain_node(&c, 0x82, NULL, node_word(1, 0, 0));
    assert_int_equal(chain_read(&c, x, 8, &n), 1);
    assert_int_equal(n, 4);
    assert_true(x[0].aggregate);
    assert_int_equal(x[0].inner, 3);
    assert_int_equal(x[0].kept, 2); /* the third left out */
    assert_int_equal(x[1].kept, 1);
    assert_int_equal(x[3].depth, 1);
    assert_int_equal(ct_get_le64(x[3].message), 0); /* a null _message */
    /* Its third inner exception's message MISSING: read, not known. */
    c.len -= 8 + 4 + 8, c.n -= 2;
    chain_value(&c, CT_VALUE_MISSING, NULL, 0);
    uint32_t w = node_word(1, 0, 0);
    chain_value(&c, CT_VALUE_PLAN, &w, 4);
    assert_int_equal(chain_read(&c, x, 8, &n), 1);
    assert_int_equal(x[3].message_status, CT_VALUE_MISSING);

    /* The reader's limit: CT_UNWIND_CHAIN_MAX inner exceptions, and one more. */
    for (uint32_t more = 0; more < 2; more++) {
        memset(&c, 0, sizeof c);
        chain_node(&c, 0x90, "all", node_word(0, 1, CT_EXC_NODE_INNER_MAX));
        for (uint32_t i = 0; i < CT_UNWIND_CHAIN_MAX + more; i++)
            chain_node(&c, 0x80, "e", node_word(1, 0, 0));
        assert_int_equal(chain_read(&c, x, CT_UNWIND_CHAIN_MAX + 1, &n), more ? -1 : 1);
        assert_int_equal(n, more ? 1 : CT_UNWIND_CHAIN_MAX + 1);
        assert_int_equal(x[0].inner, CT_EXC_NODE_INNER_MAX);
        assert_int_equal(x[0].kept, more ? 0 : CT_UNWIND_CHAIN_MAX);
    }

    /* Damaged: each is -1 with the thrown exception alone. */
    static const struct {
        const char *what;
        uint32_t top, inner;
        int cut;         /* bytes cut off the end */
    } bad[] = {
        { "top depth not 0", 1u | 1u << 16, 1u << 16 | 1, 0 },
        { "inner depth 0", 1u << 16, 0, 0 },
        { "inner two levels down", 1u << 16, 2, 0 },
        { "more inner than the parent has", 0, 1, 0 },
        { "a cut node word", 1u << 16, 1, 4 },
        { "without the node word", 1u << 16, 1, 8 },
        { "without the message either", 1u << 16, 1, 8 + 4 + 8 + 2 },
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        memset(&c, 0, sizeof c);
        chain_node(&c, 0x80, "top", bad[k].top);
        chain_node(&c, 0x81, "in", bad[k].inner);
        c.len -= (size_t)bad[k].cut;
        n = 0;
        assert_int_equal(chain_read(&c, x, 4, &n), -1);
        assert_int_equal(n, 1);
        assert_int_equal(x[0].class_id, 0x80);
        assert_int_equal(x[0].kept, 0);
    }
    /* A node word of other than 4 bytes; an inner object of other than 16. */
    memset(&c, 0, sizeof c);
    chain_node(&c, 0x80, "top", 0);
    c.b[c.len - 8] = 3;
    assert_int_equal(chain_read(&c, x, 4, &n), -1);
    memset(&c, 0, sizeof c);
    chain_node(&c, 0x80, "top", 1u << 16);
    chain_value(&c, CT_VALUE_PLAN, "12345678", 8);
    assert_int_equal(chain_read(&c, x, 4, &n), -1);
    /* The caller's room: cap nodes, then damaged. */
    memset(&c, 0, sizeof c);
    chain_node(&c, 0x80, "top", 1u << 16);
    chain_node(&c, 0x81, "in", 1);
    assert_int_equal(chain_read(&c, x, 1, &n), -1);
    assert_int_equal(chain_read(&c, x, 2, &n), 1);
    /* Every cut of a good chain reads as a chain or as damaged, never more. */
    memset(&c, 0, sizeof c);
    chain_node(&c, 0x90, "batch", node_word(0, 1, 2));
    chain_node(&c, 0x80, "a", node_word(1, 0, 1));
    chain_node(&c, 0x81, "a1", node_word(2, 0, 0));
    size_t whole = c.len;
    for (size_t cut = 0; cut <= whole; cut++) {
        c.len = cut;
        int rc = chain_read(&c, x, 8, &n);
        assert_true(rc >= -1 && rc <= 1);
        assert_true(n <= 3);
    }
}

static void test_writer_never_leaves_partial_records(void **state)
{
    (void)state;
    write_sample();
    size_t full = file_len;
    static uint8_t small[8192];
    /* With every buffer size, the writer keeps only whole records. */
    for (size_t cap = 0; cap < full; cap += 3) {
        ct_wbuf w;
        ct_wbuf_init(&w, small, cap);
        ct_fn_param params[] = { { "Point p=", 0, &p_point } };
        if (ct_write_header(&w, 1, 0, 2, "x", "y", "z") != CT_TRACE_OK) {
            assert_int_equal(w.len, 0);
            continue;
        }
        ct_write_function(&w, 1, "F", "void F(Point p)", 0, 1, params, NULL);
        ct_write_end(&w, 3, 4, 5, 6);
        ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
        ct_reader r;
        assert_int_equal(ct_reader_open(&r, small, w.len, &a), CT_TRACE_OK);
        ct_rec rec;
        int st;
        while ((st = ct_reader_next(&r, &rec)) == 1)
            ;
        assert_int_equal(st, 0);
    }
}

static void test_arena_exhaustion(void **state)
{
    (void)state;
    write_sample();
    static uint8_t tiny[64];
    ct_rarena a = { tiny, sizeof tiny, 0 };
    ct_reader r;
    assert_int_equal(ct_reader_open(&r, file, file_len, &a), CT_TRACE_OK);
    ct_rec rec;
    assert_int_equal(ct_reader_next(&r, &rec), -1);
    assert_int_equal(r.error, CT_TRACE_E_NOMEM);
}


/* 2.3: a CLASS record with its content plan (fields, a collection, a grid,
 * a segment, a DateTimeOffset) reads back as written; a damaged one is an
 * error with its offset. */
static void test_class_content(void **state)
{
    (void)state;
    static const ct_plan p_str = { .kind = CT_V_STRING, .size = 8, .type_name = "string" };
    static const ct_plan p_grid = { .kind = CT_V_MDARRAY, .size = 8, .type_name = "int[,]",
                                    .count = 2, .elem = &p_i4 };
    static const ct_plan p_seg = { .kind = CT_V_SEGMENT, .size = 16, .type_name = "Memory<int>",
                                   .elem = &p_i4, .value_offset = 8, .count_offset = 12 };
    static const ct_plan p_dto = { .kind = CT_V_DTOFFSET, .size = 16, .type_name = "DateTimeOffset",
                                   .underlying = CT_V_I2, .value_offset = 8, .count_offset = 0 };
    static const ct_field fields[] = { { "Name", 8, &p_str }, { "Grid", 16, &p_grid },
                                       { "Mem", 24, &p_seg }, { "At", 40, &p_dto } };
    static const ct_plan order = { .kind = CT_V_CLASS, .size = 56, .type_name = "Order",
                                   .count = 4, .fields = fields, .value_offset = 3 };
    static const ct_plan dict = { .kind = CT_V_SEQ, .size = 8, .type_name = "Dictionary<string, int>",
                                  .shape = CT_SEQ_DICT, .elem = &p_i4, .key = &p_str };
    uint8_t buf[2048];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_header(&w, 1, 0, 0, "x", "", ""), CT_TRACE_OK);
    size_t first = w.len;
    assert_int_equal(ct_write_class_content(&w, 0x7000, "Demo.Order", &order), CT_TRACE_OK);
    assert_int_equal(ct_write_class_content(&w, 0x7100, "System.Collections.Generic.Dictionary<string, int>", &dict), CT_TRACE_OK);
    assert_int_equal(ct_write_class_content(&w, 0x7200, "Demo.Plain", NULL), CT_TRACE_OK);
    static uint8_t mem[64 * 1024];
    ct_rarena a = { mem, sizeof mem, 0 };
    ct_reader r;
    assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
    ct_rec rec;
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.type, CT_REC_CLASS);
    const ct_plan *c = rec.content;
    assert_non_null(c);
    assert_int_equal(c->kind, CT_V_CLASS);
    assert_int_equal(c->count, 4);
    assert_int_equal(c->value_offset, 3);
    assert_string_equal(c->fields[0].name, "Name");
    assert_int_equal(c->fields[1].plan->kind, CT_V_MDARRAY);
    assert_int_equal(c->fields[1].plan->count, 2);
    assert_int_equal(c->fields[2].plan->kind, CT_V_SEGMENT);
    assert_int_equal(c->fields[2].plan->count_offset, 12);
    assert_int_equal(c->fields[3].plan->underlying, CT_V_I2);
    assert_int_equal(c->fields[3].plan->value_offset, 8);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.content->shape, CT_SEQ_DICT);
    assert_int_equal(rec.content->key->kind, CT_V_STRING);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_null(rec.content);
    assert_int_equal(ct_reader_next(&r, &rec), 0);
    /* A dictionary without its key, a rank of 33, a content that is not a
     * CLASS or SEQ: damaged records. */
    static const ct_plan nokey = { .kind = CT_V_SEQ, .size = 8, .type_name = "D",
                                   .shape = CT_SEQ_DICT, .elem = &p_i4 };
    static const ct_plan rank33 = { .kind = CT_V_MDARRAY, .size = 8, .type_name = "G",
                                    .count = 33, .elem = &p_i4 };
    static const ct_field f33[] = { { "G", 8, &rank33 } };
    static const ct_plan bad33 = { .kind = CT_V_CLASS, .size = 16, .type_name = "C", .count = 1,
                                   .fields = f33 };
    const ct_plan *bad[] = { &nokey, &bad33, &p_i4 };
    for (size_t i = 0; i < 3; i++) {
        w.len = first;
        assert_int_equal(ct_write_class_content(&w, 0x7000, "X", bad[i]), CT_TRACE_OK);
        a.used = 0;
        assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
        assert_int_equal(ct_reader_next(&r, &rec), -1);
        assert_int_equal(r.error_offset, first);
    }
}

/* 2.6: the plans of DateOnly, TimeOnly, Index, Range and inline arrays
 * read back as written; a Range whose End is past its last place, an inline
 * array whose last element is past its end (at the end it is whole), whose
 * elements overlap or that has none, a StringBuilder's text of anything but
 * chars, and a kind past the reader's last (as a 2.6 kind is to a 2.5
 * reader), are damaged records. A StringBuilder's plan reads back too. */
static void test_plans_2_6(void **state)
{
    (void)state;
    static const ct_plan p_date = { .kind = CT_V_DATEONLY, .size = 4, .type_name = "DateOnly" };
    static const ct_plan p_time = { .kind = CT_V_TIMEONLY, .size = 8, .type_name = "TimeOnly" };
    static const ct_plan p_index = { .kind = CT_V_INDEX, .size = 4, .type_name = "Index" };
    static const ct_plan p_range = { .kind = CT_V_RANGE, .size = 8, .type_name = "Range",
                                     .value_offset = 4, .count_offset = 0 };
    static const ct_plan p_quad = { .kind = CT_V_INLINE, .size = 16, .type_name = "Quad",
                                    .count = 4, .elem = &p_i4, .value_offset = 4 };
    static const ct_field fields[] = { { "Day", 8, &p_date }, { "At", 16, &p_time },
                                       { "I", 24, &p_index }, { "R", 28, &p_range },
                                       { "Q", 36, &p_quad } };
    static const ct_plan holder = { .kind = CT_V_CLASS, .size = 52, .type_name = "Holder",
                                    .count = 5, .fields = fields };
    static const ct_plan p_quad5 = { .kind = CT_V_INLINE, .size = 16, .type_name = "Quad",
                                     .count = 5, .elem = &p_i4, .value_offset = 4 };
    static const ct_plan p_overlap = { .kind = CT_V_INLINE, .size = 16, .type_name = "Quad",
                                       .count = 4, .elem = &p_i4, .value_offset = 3 };
    static const ct_plan p_none = { .kind = CT_V_INLINE, .size = 16, .type_name = "Quad",
                                    .count = 0, .elem = &p_i4, .value_offset = 4 };
    static const ct_field bad_q[3][1] = { { { "Q", 8, &p_quad5 } }, { { "Q", 8, &p_overlap } },
                                          { { "Q", 8, &p_none } } };
    static const ct_plan bad_quads[3] = {
        { .kind = CT_V_CLASS, .size = 24, .type_name = "H", .count = 1, .fields = bad_q[0] },
        { .kind = CT_V_CLASS, .size = 24, .type_name = "H", .count = 1, .fields = bad_q[1] },
        { .kind = CT_V_CLASS, .size = 24, .type_name = "H", .count = 1, .fields = bad_q[2] },
    };
    static const ct_plan p_range5 = { .kind = CT_V_RANGE, .size = 8, .type_name = "Range",
                                      .value_offset = 0, .count_offset = 5 };
    static const ct_field bad_fields[] = { { "R", 8, &p_range5 } };
    static const ct_plan bad_range = { .kind = CT_V_CLASS, .size = 16, .type_name = "Holder",
                                       .count = 1, .fields = bad_fields };
    static const ct_plan unknown = { .kind = (ct_vkind)(CT_V_KIND_MAX + 1), .size = 4,
                                     .type_name = "Later" };
    static const ct_field later_fields[] = { { "X", 8, &unknown } };
    static const ct_plan later = { .kind = CT_V_CLASS, .size = 16, .type_name = "Holder",
                                   .count = 1, .fields = later_fields };
    uint8_t buf[1024];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_header(&w, 1, 0, 0, "x", "", ""), CT_TRACE_OK);
    size_t first = w.len;
    assert_int_equal(ct_write_class_content(&w, 0x7000, "Demo.Holder", &holder), CT_TRACE_OK);
    static uint8_t mem[16 * 1024];
    ct_rarena a = { mem, sizeof mem, 0 };
    ct_reader r;
    ct_rec rec;
    assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
    assert_true(r.header.minor >= 6); /* 2.6 or later */
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    const ct_plan *c = rec.content;
    assert_non_null(c);
    assert_int_equal(c->count, 5);
    assert_int_equal(c->fields[0].plan->kind, CT_V_DATEONLY);
    assert_int_equal(c->fields[0].plan->size, 4);
    assert_int_equal(c->fields[1].plan->kind, CT_V_TIMEONLY);
    assert_int_equal(c->fields[1].plan->size, 8);
    assert_int_equal(c->fields[2].plan->kind, CT_V_INDEX);
    assert_int_equal(c->fields[3].plan->kind, CT_V_RANGE);
    assert_int_equal(c->fields[3].plan->value_offset, 4);
    assert_int_equal(c->fields[3].plan->count_offset, 0);
    assert_int_equal(c->fields[4].plan->kind, CT_V_INLINE);
    assert_int_equal(c->fields[4].plan->count, 4);
    assert_int_equal(c->fields[4].plan->value_offset, 4);
    assert_int_equal(c->fields[4].plan->elem->kind, CT_V_I4);
    /* A StringBuilder's TEXT content plan; one whose element is not char. */
    static const ct_plan p_char = { .kind = CT_V_CHAR, .size = 2, .type_name = "char" };
    static const ct_plan text = { .kind = CT_V_SEQ, .size = 8, .type_name = "StringBuilder",
                                  .shape = CT_SEQ_TEXT, .elem = &p_char };
    static const ct_plan bad_text = { .kind = CT_V_SEQ, .size = 8, .type_name = "StringBuilder",
                                      .shape = CT_SEQ_TEXT, .elem = &p_i4 };
    w.len = first;
    assert_int_equal(ct_write_class_content(&w, 0x7000, "System.Text.StringBuilder", &text),
                     CT_TRACE_OK);
    a.used = 0;
    assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
    assert_int_equal(ct_reader_next(&r, &rec), 1);
    assert_int_equal(rec.content->shape, CT_SEQ_TEXT);
    assert_int_equal(rec.content->elem->kind, CT_V_CHAR);
    const ct_plan *bad[] = { &later, &bad_range, &bad_quads[0], &bad_quads[1], &bad_quads[2],
                             &bad_text };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        w.len = first;
        assert_int_equal(ct_write_class_content(&w, 0x7000, "Demo.Holder", bad[i]), CT_TRACE_OK);
        a.used = 0;
        assert_int_equal(ct_reader_open(&r, buf, w.len, &a), CT_TRACE_OK);
        assert_int_equal(ct_reader_next(&r, &rec), -1);
        assert_int_equal(r.error_offset, first);
    }
}

/* JIT records: since 2.4 with the compiling thread; a 2.3 record (without
 * it) reads with thread 0. */
static void test_jit_record(void **state)
{
    (void)state;
    uint8_t buf[256];
    ct_wbuf w;
    ct_wbuf_init(&w, buf, sizeof buf);
    assert_int_equal(ct_write_jit(&w, 0x1000, 1, 1234567, 77), CT_TRACE_OK);
    size_t one = w.len;
    static const uint8_t old[] = { 12, 0, 0, 0, 24, 0, 0, 0,  0, 0x10, 0, 0, 0, 0, 0, 0,
                                   1, 0, 0, 0, 0, 0, 0, 0,  9, 0, 0, 0, 0, 0, 0, 0 };
    memcpy(buf + one, old, sizeof old);
    static uint8_t mem[1024];
    ct_rarena a = { mem, sizeof mem, 0 };
    ct_rec rec;
    ct_trace_status st;
    assert_int_equal(ct_read_record(buf, one, 0, &a, &rec, &st), (long)one);
    assert_int_equal(rec.type, CT_REC_JIT);
    assert_int_equal(rec.key, 0x1000);
    assert_int_equal(rec.count, 1);
    assert_int_equal(rec.time_ns, 1234567);
    assert_int_equal(rec.tid, 77);
    assert_int_equal(ct_read_record(buf + one, sizeof old, one, &a, &rec, &st), (long)sizeof old);
    assert_int_equal(rec.time_ns, 9);
    assert_int_equal(rec.tid, 0);
}

/* ------------------------------------------------------------ ZSTD records */

static uint8_t zfile[16384];
static size_t zfile_len;

/* The sample's records from `from` to `to` (file offsets) as one ZSTD
 * record appended to zfile. */
static void zstd_append(ZSTD_CCtx *cc, size_t from, size_t to)
{
    ct_wbuf w;
    ct_wbuf_init(&w, zfile + zfile_len, sizeof zfile - zfile_len);
    assert_int_equal(ct_write_zstd(&w, file + from, to - from, cc), CT_TRACE_OK);
    assert_int_equal(w.len % 8, 0);
    zfile_len += w.len;
}

static void raw_append(size_t from, size_t to)
{
    memcpy(zfile + zfile_len, file + from, to - from);
    zfile_len += to - from;
}

/* The sample with its records in two ZSTD records and one left as it is:
 * [FUNCTION THREAD] [CLASS] [the rest]. */
static void write_zsample(void)
{
    write_sample();
    size_t bounds[16], n = 0, at = ct_header_bytes(file, file_len);
    zfile_len = 0;
    raw_append(0, at);
    while (at < file_len && n < 16) {
        ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
        ct_rec rec;
        ct_trace_status st;
        long k = ct_read_record(file + at, file_len - at, at, &a, &rec, &st);
        assert_true(k > 0);
        bounds[n++] = at;
        at += (size_t)k;
    }
    assert_true(n > 4);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    zstd_append(cc, bounds[0], bounds[2]);
    raw_append(bounds[2], bounds[3]);
    zstd_append(cc, bounds[3], file_len);
    ZSTD_freeCCtx(cc);
    /* CT_WRITE_ZSAMPLE=path saves it (a seed of fuzz/fuzz_trace). */
    const char *save = getenv("CT_WRITE_ZSAMPLE");
    FILE *fp = save ? fopen(save, "wb") : NULL;
    if (fp) {
        fwrite(zfile, 1, zfile_len, fp);
        fclose(fp);
    }
}

/* Reads data to its end: the records' types, offsets, times, keys and
 * values in out (one line each). Returns ct_reader_next's last result. */
static int read_all(const uint8_t *data, size_t len, char *out, size_t cap, ct_reader *r)
{
    static uint8_t mem[1 << 16];
    ct_rarena a = { mem, sizeof mem, 0 };
    size_t used = 0;
    out[0] = 0;
    if (ct_reader_open(r, data, len, &a) != CT_TRACE_OK)
        return -1;
    ct_rec rec;
    int st;
    while ((st = ct_reader_next(r, &rec)) == 1) {
        used += (size_t)snprintf(out + used, cap - used, "%d@%llu t=%llu k=%llx tid=%llu n=%llu "
                                 "%.*s v=", rec.type, (unsigned long long)rec.offset,
                                 (unsigned long long)rec.time_ns, (unsigned long long)rec.key,
                                 (unsigned long long)rec.tid, (unsigned long long)rec.count,
                                 (int)rec.name_len, rec.name ? rec.name : "");
        for (size_t i = 0; i < rec.values_len && used < cap - 3; i++)
            used += (size_t)snprintf(out + used, cap - used, "%02x", rec.values[i]);
        used += (size_t)snprintf(out + used, cap - used, "\n");
        assert_true(used < cap - 1);
        a.used = 0;
    }
    return st;
}

/* Records read from ZSTD records are the records written into them, at the
 * offsets they had in the file without compression. */
static void test_zstd_round_trip(void **state)
{
    (void)state;
    write_zsample();
    assert_true(zfile_len < file_len + 64);
    static char plain[1 << 16], packed[1 << 16];
    ct_reader r1, r2;
    assert_int_equal(read_all(file, file_len, plain, sizeof plain, &r1), 0);
    assert_int_equal(read_all(zfile, zfile_len, packed, sizeof packed, &r2), 0);
    assert_string_equal(plain, packed);
    assert_true(r2.ended && !r2.incomplete);
    assert_int_equal(r2.zstd_records, 2);
    assert_int_equal(zfile_len + r2.shift, file_len);
    ct_reader_close(&r1);
    ct_reader_close(&r2);
}

/* A ZSTD record made a piece at a time (ct_zstd_begin, ct_zstd_step: the
 * writer's way) reads as the records written into it, for pieces of every
 * size from one byte to the whole; a job that ends without room (bytes that
 * do not shrink) leaves the buffer as it was, and the next job works. */
static void test_zstd_pieces(void **state)
{
    (void)state;
    write_sample();
    size_t at = ct_header_bytes(file, file_len);
    static char plain[1 << 16], packed[1 << 16];
    ct_reader r1;
    assert_int_equal(read_all(file, file_len, plain, sizeof plain, &r1), 0);
    ct_reader_close(&r1);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    static const size_t pieces[] = { 1, 7, 64, 1000, SIZE_MAX };
    static uint8_t noise[4096];
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < sizeof noise; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        noise[i] = (uint8_t)x;
    }
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        /* Incompressible first: given up, nothing written. */
        ct_wbuf w;
        ct_zstd_job j;
        ct_trace_status st = CT_TRACE_OK;
        ct_wbuf_init(&w, zfile + at, sizeof zfile - at);
        assert_int_equal(ct_zstd_begin(&w, &j, noise, sizeof noise, cc), CT_TRACE_OK);
        int steps = 0;
        while (ct_zstd_step(&w, &j, pieces[k], &st))
            steps++;
        assert_int_equal(st, CT_TRACE_E_SPACE);
        assert_int_equal(w.len, 0);
        /* Then the sample's records, in pieces. */
        memcpy(zfile, file, at);
        ct_wbuf_init(&w, zfile + at, sizeof zfile - at);
        assert_int_equal(ct_zstd_begin(&w, &j, file + at, file_len - at, cc), CT_TRACE_OK);
        steps = 0;
        while (ct_zstd_step(&w, &j, pieces[k], &st))
            steps++;
        assert_int_equal(st, CT_TRACE_OK);
        if (pieces[k] == 1)
            assert_true(steps >= (int)(file_len - at) - 1);
        assert_int_equal(w.len % 8, 0);
        ct_reader r2;
        assert_int_equal(read_all(zfile, at + w.len, packed, sizeof packed, &r2), 0);
        assert_string_equal(plain, packed);
        assert_int_equal(r2.zstd_records, 1);
        assert_true(r2.ended && !r2.incomplete);
        ct_reader_close(&r2);
    }
    ZSTD_freeCCtx(cc);
}

/* A file cut anywhere (the writer stopped in the middle of a ZSTD record)
 * reads up to the last whole record, as incomplete; every byte flipped is a
 * record read or an error with its offset, never a crash. */
static void test_zstd_damage(void **state)
{
    (void)state;
    write_zsample();
    static char out[1 << 16];
    for (size_t cut = ct_header_bytes(zfile, zfile_len); cut < zfile_len; cut++) {
        ct_reader r;
        assert_int_equal(read_all(zfile, cut, out, sizeof out, &r), 0);
        assert_true(r.incomplete && r.cut_offset <= cut);
        ct_reader_close(&r);
    }
    for (size_t i = ct_header_bytes(zfile, zfile_len); i < zfile_len; i++) {
        zfile[i] ^= 0x5A;
        ct_reader r;
        if (read_all(zfile, zfile_len, out, sizeof out, &r) < 0) {
            assert_true(r.error_offset < file_len);
            if (r.error_in_zstd)
                assert_true(r.error_zstd_at < zfile_len);
        }
        ct_reader_close(&r);
        zfile[i] ^= 0x5A;
    }
}

/* CT_MAX_ZBLOCK bytes of records: written and read; one more: refused by
 * both. A ZSTD record inside another, or one that would not shrink, is not
 * written / not read. */
static void test_zstd_limits(void **state)
{
    (void)state;
    size_t cap = CT_MAX_ZBLOCK + 4096;
    uint8_t *recs = calloc(1, cap), *out = malloc(cap);
    assert_non_null(recs);
    assert_non_null(out);
    ct_wbuf w;
    ct_wbuf_init(&w, recs, cap);
    while (w.len + 24 + 32 <= CT_MAX_ZBLOCK)
        assert_int_equal(ct_write_dropped(&w, 7, 1), CT_TRACE_OK);
    /* A THREAD record fills the rest: 8 + 8 + 4 + n bytes, padded. */
    size_t rest = CT_MAX_ZBLOCK - w.len;
    char name[64];
    memset(name, 'x', sizeof name);
    name[rest - 20] = 0;
    assert_int_equal(ct_write_thread(&w, 7, name), CT_TRACE_OK);
    assert_int_equal(w.len, CT_MAX_ZBLOCK);
    size_t nrec = (CT_MAX_ZBLOCK - rest) / 24 + 1;

    ZSTD_CCtx *cc = ZSTD_createCCtx();
    uint8_t *zf = malloc(cap);
    ct_wbuf z;
    ct_wbuf_init(&z, zf, cap);
    assert_int_equal(ct_write_header(&z, 1, 0, 0, "x", "my code", "s"), CT_TRACE_OK);
    size_t hdr = z.len;
    assert_int_equal(ct_write_zstd(&z, recs, CT_MAX_ZBLOCK + 1, cc), CT_TRACE_E_LIMIT);
    assert_int_equal(ct_write_zstd(&z, recs, CT_MAX_ZBLOCK, cc), CT_TRACE_OK);
    static uint8_t mem[4096];
    ct_rarena a = { mem, sizeof mem, 0 };
    ct_reader r;
    ct_rec rec;
    assert_int_equal(ct_reader_open(&r, zf, z.len, &a), CT_TRACE_OK);
    size_t k = 0;
    while (ct_reader_next(&r, &rec) == 1)
        k++;
    assert_int_equal(r.error, CT_TRACE_OK);
    assert_int_equal(k, nrec);
    ct_reader_close(&r);

    /* One byte more announced than CT_MAX_ZBLOCK. */
    uint32_t big = CT_MAX_ZBLOCK + 1;
    memcpy(zf + hdr + 8, &big, 4);
    assert_int_equal(ct_reader_open(&r, zf, z.len, &a), CT_TRACE_OK);
    assert_int_equal(ct_reader_next(&r, &rec), -1);
    assert_int_equal(r.error, CT_TRACE_E_LIMIT);
    assert_true(r.error_in_zstd);
    assert_int_equal(r.error_zstd_at, hdr);
    assert_int_equal(r.error_offset, hdr);
    ct_reader_close(&r);

    /* A ZSTD record holding a ZSTD record. */
    ct_wbuf inner;
    ct_wbuf_init(&inner, recs, cap);
    assert_int_equal(ct_write_zstd(&inner, zf + hdr, z.len - hdr, cc), CT_TRACE_OK);
    z.len = hdr;
    assert_int_equal(ct_write_zstd(&z, recs, inner.len + 4096, cc), CT_TRACE_OK);
    assert_int_equal(ct_reader_open(&r, zf, z.len, &a), CT_TRACE_OK);
    assert_int_equal(ct_reader_next(&r, &rec), -1);
    assert_int_equal(r.error, CT_TRACE_E_RECORD);
    assert_int_equal(r.error_offset, hdr);
    assert_true(r.error_in_zstd);
    ct_reader_close(&r);

    /* Bytes that do not shrink are left to be written as they are. */
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < 4096; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        recs[i] = (uint8_t)x;
    }
    z.len = hdr;
    assert_int_equal(ct_write_zstd(&z, recs, 4096, cc), CT_TRACE_E_SPACE);
    assert_int_equal(z.len, hdr);
    ZSTD_freeCCtx(cc);
    free(zf);
    free(out);
    free(recs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_held_times),
        cmocka_unit_test(test_held_damage),
        cmocka_unit_test(test_class_content),
        cmocka_unit_test(test_truncation_everywhere),
        cmocka_unit_test(test_corruption),
        cmocka_unit_test(test_header_bytes),
        cmocka_unit_test(test_function_out_mask),
        cmocka_unit_test(test_function_source),
        cmocka_unit_test(test_locals_record),
        cmocka_unit_test(test_inject_record),
        cmocka_unit_test(test_segment_record),
        cmocka_unit_test(test_end_unrewritten),
        cmocka_unit_test(test_unwind_values),
        cmocka_unit_test(test_unwind_chain),
        cmocka_unit_test(test_writer_never_leaves_partial_records),
        cmocka_unit_test(test_arena_exhaustion),
        cmocka_unit_test(test_plans_2_6),
        cmocka_unit_test(test_jit_record),
        cmocka_unit_test(test_zstd_round_trip),
        cmocka_unit_test(test_zstd_pieces),
        cmocka_unit_test(test_zstd_damage),
        cmocka_unit_test(test_zstd_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
