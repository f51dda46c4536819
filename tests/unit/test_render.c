/* The renderer: event streams built by hand, written as a trace file, read
 * back with the reader (as `clrtrace replay` does) and rendered; the
 * expected text is written by hand from docs/tracer.md's rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "format/inject_spec.h"
#include "format/event.h"
#include "records.h"
#include "views/render.h"
#include "views/symbols.h"
#include "views/value_wellknown.h"

/* ------------------------------------------------------------- plans */

static const ct_plan p_i4 = { .kind = CT_V_I4, .size = 4, .type_name = "int" };
static const ct_plan p_r8 = { .kind = CT_V_R8, .size = 8, .type_name = "double" };
static const ct_plan p_str = { .kind = CT_V_STRING, .size = 8, .type_name = "string" };
static const ct_plan p_obj = { .kind = CT_V_OBJECT, .size = 8, .type_name = "object" };
static const ct_plan p_shapes = { .kind = CT_V_OBJECT, .size = 8, .type_name = "Demo.Shapes" };
static const ct_plan p_strs = { .kind = CT_V_ARRAY, .size = 8, .type_name = "string[]", .elem = &p_str };
static const ct_field pf[] = { { "X", 0, &p_r8 }, { "Y", 8, &p_r8 } };
static const ct_plan p_point = { .kind = CT_V_STRUCT, .size = 16, .type_name = "Point", .count = 2, .fields = pf };
static const ct_enum_item modes[] = { { "Fast", 0 }, { "Safe", 1 } };
static const ct_plan p_mode = { .kind = CT_V_ENUM, .size = 4, .type_name = "Mode", .underlying = CT_V_I4,
                                .count = 2, .items = modes };
static const ct_plan p_refint = { .kind = CT_V_BYREF, .size = 8, .type_name = "ref int", .elem = &p_i4 };
static const ct_plan p_by_range = { .kind = CT_V_OPAQUE, .size = 0, .type_name = "?" };

/* ------------------------------------------------- building a trace */

static uint8_t file[1 << 16];
static ct_wbuf w;

/* Events go out as single records, or (blocks = 1) in EVENTS blocks, one
 * per run of a thread's events, as the profiler's writer stores them. */
static int blocks;
static ct_events_mark block;

static void end_block(void)
{
    if (block.open)
        assert_int_equal(ct_events_end(&w, &block), CT_TRACE_OK);
}

static void begin_trace(void)
{
    block.open = 0;
    ct_wbuf_init(&w, file, sizeof file);
    assert_int_equal(ct_write_header(&w, 4242, 1, 1763781255000000000ull, "dotnet Demo.dll", "my code",
                                     "CoreCLR 10.0.12, ICorProfilerInfo15"),
                     CT_TRACE_OK);
}

static void function(uint64_t key, const char *name, uint32_t flags, uint32_t n, const ct_fn_param *params,
                     const char *ret_label, const ct_plan *ret)
{
    end_block();
    ct_fn_param r = { ret_label, 0, ret };
    assert_int_equal(ct_write_function(&w, key, name, "", flags, n, params, ret ? &r : NULL), CT_TRACE_OK);
}

/* A value: its status, its bytes. */
typedef struct val {
    ct_value_status st;
    uint8_t b[256];
    size_t n;
} val;

static void vput(val *v, const void *p, size_t n)
{
    memcpy(v->b + v->n, p, n);
    v->n += n;
}

static val v_i4(int32_t x)
{
    val v = { 0 };
    vput(&v, &x, 4);
    return v;
}

static val v_r8x2(double a, double b)
{
    val v = { 0 };
    vput(&v, &a, 8);
    vput(&v, &b, 8);
    return v;
}

static val v_str(const char *s)
{
    val v = { 0 };
    uint64_t addr = 0x7f0000001000;
    int32_t len = (int32_t)strlen(s);
    uint32_t n = (uint32_t)len;
    vput(&v, &addr, 8);
    vput(&v, &len, 4);
    vput(&v, &n, 4);
    for (uint32_t i = 0; i < n; i++) {
        uint16_t u = (uint8_t)s[i];
        vput(&v, &u, 2);
    }
    return v;
}

/* Class ids are aligned like the runtime's (bit 0 marks a string: value.h). */
static val v_obj(uint64_t addr, uint64_t cls)
{
    val v = { 0 };
    vput(&v, &addr, 8);
    vput(&v, &cls, 8);
    return v;
}

static val v_empty_array(uint64_t cls)
{
    val v = { 0 };
    uint64_t addr = 0x7f0000002000;
    uint32_t zero = 0;
    vput(&v, &addr, 8);
    vput(&v, &cls, 8);
    vput(&v, &zero, 4);
    vput(&v, &zero, 4);
    return v;
}

static val v_status(ct_value_status st, const void *p, size_t n)
{
    val v = { 0 };
    v.st = st;
    if (n)
        vput(&v, p, n);
    return v;
}

/* An event at time t of a thread the tracer had held `held` ns so far. */
static void event_held(ct_rec_type type, uint64_t t, uint64_t held, uint64_t tid, uint64_t key,
                       int n, const val *vals)
{
    static uint8_t one[4096];
    ct_wbuf *out = &w, single;
    /* An async call's end and LOCALS are records of their own, never in a
     * block. */
    int in_block = blocks && !ct_rec_is_event_shaped(type);
    if (blocks && !in_block)
        end_block();
    if (in_block) {
        ct_wbuf_init(&single, one, sizeof one);
        out = &single;
    }
    ct_event_mark m;
    assert_int_equal(ct_event_begin(out, type, t, held, tid, key, &m), CT_TRACE_OK);
    for (int i = 0; i < n; i++) {
        uint8_t *p = ct_event_value_reserve(out, vals[i].n);
        assert_non_null(p);
        memcpy(p, vals[i].b, vals[i].n);
        ct_event_value_commit_status(out, &m, vals[i].n, vals[i].st);
    }
    assert_int_equal(ct_event_end(out, &m), CT_TRACE_OK);
    if (!in_block)
        return;
    if (block.open && block.tid != tid)
        end_block();
    if (!block.open)
        assert_int_equal(ct_events_begin(&w, tid, t, key, &block), CT_TRACE_OK);
    uint32_t plen;
    memcpy(&plen, one + 4, 4);
    assert_int_equal(ct_events_add(&w, &block, type, t, held, key, (uint32_t)n, one + CT_EVENT_BASE_BYTES,
                                   8 + plen - CT_EVENT_BASE_BYTES),
                     CT_TRACE_OK);
}

static void event(ct_rec_type type, uint64_t t, uint64_t tid, uint64_t key, int n, const val *vals)
{
    event_held(type, t, 0, tid, key, n, vals);
}

/* ------------------------------------------------ rendering the trace */

static char out[1 << 16];
static size_t out_len;

static void sink(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    assert_true(out_len + len < sizeof out);
    memcpy(out + out_len, text, len);
    out_len += len;
    out[out_len] = '\0';
}

static uint8_t arena_mem[1 << 16];
/* The renderer's opts.srcline for render(). */
static int g_srcline;

/* Reads the trace back and renders it; returns the text. */
/* --stats and --histogram of the next render. */
static int g_stats;
static const char *g_histogram;

static const char *render(int lines, int summary, ct_render_totals *totals)
{
    out_len = 0;
    out[0] = '\0';
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader rd;
    assert_int_equal(ct_reader_open(&rd, file, w.len, &a), CT_TRACE_OK);
    ct_render_opts o = { .lines = lines, .summary = summary, .srcline = g_srcline,
                         .stats = g_stats, .histogram = g_histogram };
    ct_render *r = ct_render_new(&o, sink, NULL);
    assert_non_null(r);
    ct_render_header(r, &rd.header);
    ct_rec rec;
    int st;
    while ((st = ct_reader_next(&rd, &rec)) == 1) {
        assert_int_equal(ct_render_record(r, &rec), 0);
        a.used = 0; /* the renderer keeps its own copies of plans */
    }
    assert_int_equal(st, 0);
    ct_render_finish(r);
    if (totals)
        ct_render_get_totals(r, totals);
    ct_render_free(r);
    return out;
}

/* The example of docs/tracer.md: nested calls, a leaf folded onto its
 * line, blocks closed with their return values, the summary. */
static void demo_trace(void)
{
    begin_trace();
    ct_fn_param main_p[] = { { "string[] args=", 0, &p_strs } };
    function(1, "Demo.Program.Main", CT_FN_STATIC, 1, main_p, "int ", &p_i4);
    ct_fn_param scale_p[] = { { "Point p=", 0, &p_point }, { "double k=", 0, &p_r8 } };
    function(2, "Demo.Shapes.Scale", CT_FN_STATIC, 2, scale_p, "Point ", &p_point);
    ct_fn_param describe_p[] = { { "this=", 0, &p_shapes }, { "Mode m=", 0, &p_mode },
                                 { "string label=", 0, &p_str } };
    function(3, "Demo.Shapes.Describe", CT_FN_HAS_THIS, 3, describe_p, "string ", &p_str);
    ct_fn_param pad_p[] = { { "string s=", 0, &p_str }, { "int width=", 0, &p_i4 } };
    function(4, "Demo.Util.Pad", CT_FN_STATIC, 2, pad_p, "string ", &p_str);
    assert_int_equal(ct_write_class(&w, 0x70, "Demo.Shapes"), CT_TRACE_OK);

    val args[3];
    args[0] = v_empty_array(0x98);
    event(CT_REC_ENTER, 34011000, 4242, 1, 1, args);
    args[0] = v_r8x2(1, 2);
    args[1] = v_r8x2(1.5, 0);
    args[1].n = 8;
    event(CT_REC_ENTER, 34102000, 4242, 2, 2, args);
    args[0] = v_r8x2(1.5, 3);
    event(CT_REC_LEAVE, 34102800, 4242, 2, 1, args);
    args[0] = v_obj(0x7f3a2c01e8a0, 0x70);
    args[1] = v_i4(1);
    args[2] = v_str("run");
    event(CT_REC_ENTER, 34157000, 4242, 3, 3, args);
    args[0] = v_str("run");
    args[1] = v_i4(8);
    event(CT_REC_ENTER, 34163000, 4242, 4, 2, args);
    args[0] = v_str("run     ");
    event(CT_REC_LEAVE, 34163400, 4242, 4, 1, args);
    args[0] = v_str("run:Safe");
    event(CT_REC_LEAVE, 34170000, 4242, 3, 1, args);
    args[0] = v_i4(0);
    event(CT_REC_LEAVE, 34202000, 4242, 1, 1, args);
    end_block();
    assert_int_equal(ct_write_end(&w, 34300000, 8, 746, 4), CT_TRACE_OK);
}

static void test_demo(void **state)
{
    (void)state;
    demo_trace();
    /* CT_WRITE_SAMPLE=path saves this trace (a seed of fuzz/fuzz_trace). */
    const char *save = getenv("CT_WRITE_SAMPLE");
    FILE *fp = save ? fopen(save, "wb") : NULL;
    if (fp) {
        fwrite(file, 1, w.len, fp);
        fclose(fp);
    }
    ct_render_totals t;
    assert_string_equal(render(1, 1, &t),
        "# clrtrace: dotnet Demo.dll, pid 4242, 2025-11-22T03:14:15Z, filter: my code\n"
        "# CoreCLR 10.0.12, ICorProfilerInfo15\n"
        "#  TIME(s)    TID   DURATION  CALL\n"
        "  0.034011   4242             Demo.Program.Main(string[] args=string[0] {}) {\n"
        "  0.034102   4242     0.8 us    Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5) -> Point {X=1.5, Y=3}\n"
        "  0.034157   4242               Demo.Shapes.Describe(this=Demo.Shapes@0x7f3a2c01e8a0, Mode m=Safe, string label=\"run\") {\n"
        "  0.034163   4242     0.4 us      Demo.Util.Pad(string s=\"run\", int width=8) -> string \"run     \"\n"
        "  0.034170   4242    13.0 us    } -> string \"run:Safe\"\n"
        "  0.034202   4242   191.0 us  } -> int 0\n"
        "\n"
        "# summary: 4 calls, 4 functions, 1 thread, 0 events dropped\n"
        "#  CALLS      TOTAL       SELF  FUNCTION\n"
        "       1   191.0 us   177.2 us  Demo.Program.Main\n"
        "       1    13.0 us    12.6 us  Demo.Shapes.Describe\n"
        "       1     0.8 us     0.8 us  Demo.Shapes.Scale\n"
        "       1     0.4 us     0.4 us  Demo.Util.Pad\n"
        "# clrtrace: shutdown, 746 functions JIT-compiled, 4 traced\n");
    /* The same events stored in an EVENTS block render the same text. */
    static char single[1 << 16];
    snprintf(single, sizeof single, "%s", out);
    blocks = 1;
    demo_trace();
    blocks = 0;
    assert_string_equal(render(1, 1, NULL), single);
    assert_int_equal(t.calls, 4);
    assert_int_equal(t.functions, 4);
    assert_int_equal(t.threads, 1);
    assert_int_equal(t.dropped, 0);
    assert_int_equal(t.events, 8);
}

/* `clrtrace report`: the first header line and the summary only. */
static void test_report(void **state)
{
    (void)state;
    demo_trace();
    assert_string_equal(render(0, 1, NULL),
        "# clrtrace: dotnet Demo.dll, pid 4242, 2025-11-22T03:14:15Z, filter: my code\n"
        "# summary: 4 calls, 4 functions, 1 thread, 0 events dropped\n"
        "#  CALLS      TOTAL       SELF  FUNCTION\n"
        "       1   191.0 us   177.2 us  Demo.Program.Main\n"
        "       1    13.0 us    12.6 us  Demo.Shapes.Describe\n"
        "       1     0.8 us     0.8 us  Demo.Shapes.Scale\n"
        "       1     0.4 us     0.4 us  Demo.Util.Pad\n"
        "# clrtrace: shutdown, 746 functions JIT-compiled, 4 traced\n");
    /* No summary (CLRTRACE_SUMMARY=0): the closing line stays. */
    const char *text = render(1, 0, NULL);
    assert_null(strstr(text, "# summary"));
    assert_non_null(strstr(text, "} -> int 0\n# clrtrace: shutdown, 746 functions JIT-compiled, 4 traced\n"));
}

/* Two threads interleaved, each with its own depth; an exception, a tail
 * call, a return with no entry, a call with no values, dropped events, and
 * a trace cut before its END record. */
/* A trace begun, with functions A() (1) and int B(int n) (2). */
static void begin_a_b(void)
{
    begin_trace();
    function(1, "A", CT_FN_STATIC, 0, NULL, NULL, NULL);
    ct_fn_param b_p[] = { { "int n=", 0, &p_i4 } };
    function(2, "B", CT_FN_STATIC, 1, b_p, "int ", &p_i4);
}

static void threads_trace(void)
{
    begin_a_b();
    val v[1];
    event(CT_REC_ENTER, 1000, 10, 1, 0, NULL);
    end_block();
    /* Thread 20 gets a name (a control character in it) before its first
     * event; the line comes at once (A's line waits for thread 10's next). */
    assert_int_equal(ct_write_thread(&w, 20, "work\ner"), CT_TRACE_OK);
    v[0] = v_i4(1);
    event(CT_REC_ENTER, 2000, 20, 2, 1, v);
    v[0] = v_i4(2);
    event(CT_REC_ENTER, 3000, 10, 2, 1, v);
    event(CT_REC_UNWIND, 4000, 20, 2, 0, NULL);
    event(CT_REC_TAILCALL, 5000, 10, 2, 0, NULL);
    event(CT_REC_LEAVE, 6000, 10, 1, 0, NULL);
    v[0] = v_i4(5);
    event(CT_REC_LEAVE, 7000, 20, 2, 1, v);
    event(CT_REC_ENTER, 8000, 10, 2, 0, NULL);
    end_block();
    assert_int_equal(ct_write_dropped(&w, 10, 3), CT_TRACE_OK);
}

static void test_threads_and_endings(void **state)
{
    (void)state;
    threads_trace();
    ct_render_totals t;
    assert_string_equal(render(1, 1, &t),
        "# clrtrace: dotnet Demo.dll, pid 4242, 2025-11-22T03:14:15Z, filter: my code\n"
        "# CoreCLR 10.0.12, ICorProfilerInfo15\n"
        "#  TIME(s)    TID   DURATION  CALL\n"
        "# thread 20: work?er\n"
        "  0.000001     10             A() {\n"
        "  0.000002     20     2.0 us  B(int n=1) -> exception\n"
        "  0.000003     10     2.0 us    B(int n=2) -> tailcall\n"
        "  0.000006     10     5.0 us  }\n"
        "  0.000007     20             } -> int 5  (not entered on this thread)\n"
        "  0.000008     10             B(?) {\n"
        "\n"
        "# summary: 3 calls, 2 functions, 2 threads, 4 events dropped\n"
        "#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION\n"
        "       1     5.0 us     3.0 us           0  A\n"
        "       2     4.0 us     4.0 us           1  B\n");
    assert_int_equal(t.dropped, 4);
    assert_int_equal(t.threads, 2);
    /* Stored as EVENTS blocks (a new block at each change of thread). */
    static char single[1 << 16];
    snprintf(single, sizeof single, "%s", out);
    blocks = 1;
    threads_trace();
    blocks = 0;
    assert_string_equal(render(1, 1, NULL), single);
}

/* Lines in time order across threads (issue 35): thread 10's call A began
 * at 1 us and ends at 4 us; thread 20's whole call B runs from 2 to 3 us.
 * B's line (2 us) must not come before A's (1 us): A's enter is written
 * first as an opening line, its end on a line of its own. A call that
 * ends before another thread's line keeps its one line (B). */
static void test_time_order_across_threads(void **state)
{
    (void)state;
    begin_a_b();
    val v[1];
    event(CT_REC_ENTER, 1000, 10, 1, 0, NULL);
    v[0] = v_i4(1);
    event(CT_REC_ENTER, 2000, 20, 2, 1, v);
    v[0] = v_i4(5);
    event(CT_REC_LEAVE, 3000, 20, 2, 1, v);
    event(CT_REC_LEAVE, 4000, 10, 1, 0, NULL);
    end_block();
    assert_string_equal(render(1, 0, NULL),
        "# clrtrace: dotnet Demo.dll, pid 4242, 2025-11-22T03:14:15Z, filter: my code\n"
        "# CoreCLR 10.0.12, ICorProfilerInfo15\n"
        "#  TIME(s)    TID   DURATION  CALL\n"
        "  0.000001     10             A() {\n"
        "  0.000002     20     1.0 us  B(int n=1) -> int 5\n"
        "  0.000004     10     3.0 us  }\n");
}

/* Frames left by exceptions: UNWIND records carrying the exception (its
 * class named by a CLASS record, its message), one with a null message, one
 * whose class no CLASS record names, and one of a trace before the values
 * (none). */
static void exceptions_trace(void)
{
    begin_trace();
    function(1, "Main", CT_FN_STATIC, 0, NULL, NULL, NULL);
    ct_fn_param t_p[] = { { "int n=", 0, &p_i4 } };
    function(2, "Thrower", CT_FN_STATIC, 1, t_p, "int ", &p_i4);
    function(3, "Quiet", CT_FN_STATIC, 0, NULL, NULL, NULL);
    function(4, "Lost", CT_FN_STATIC, 0, NULL, NULL, NULL);
    assert_int_equal(ct_write_class(&w, 0x80, "System.InvalidOperationException"), CT_TRACE_OK);
    assert_int_equal(ct_write_class(&w, 0x90, "Demo.QuietException"), CT_TRACE_OK);
    val v[2];
    event(CT_REC_ENTER, 1000, 4242, 1, 0, NULL);
    v[0] = v_i4(1);
    event(CT_REC_ENTER, 2000, 4242, 2, 1, v);
    v[0] = v_i4(2);
    event(CT_REC_ENTER, 3000, 4242, 2, 1, v);
    v[0] = v_obj(0x7f0000003000, 0x80);
    v[1] = v_str("say \"hi\"\n");
    event(CT_REC_UNWIND, 4000, 4242, 2, 2, v);
    event(CT_REC_UNWIND, 5000, 4242, 2, 2, v);
    event(CT_REC_ENTER, 6000, 4242, 3, 0, NULL);
    uint64_t null_ref = 0;
    v[0] = v_obj(0x7f0000004000, 0x90);
    v[1] = v_status(CT_VALUE_PLAN, &null_ref, 8);
    event(CT_REC_UNWIND, 7000, 4242, 3, 2, v);
    event(CT_REC_ENTER, 8000, 4242, 4, 0, NULL);
    v[0] = v_obj(0x7f0000005000, 0xA0);
    event(CT_REC_UNWIND, 9000, 4242, 4, 1, v);
    v[0] = v_i4(3);
    event(CT_REC_ENTER, 10000, 4242, 2, 1, v);
    event(CT_REC_UNWIND, 11000, 4242, 2, 0, NULL);
    event(CT_REC_LEAVE, 12000, 4242, 1, 0, NULL);
    end_block();
    assert_int_equal(ct_write_end(&w, 13000, 12, 10, 4), CT_TRACE_OK);
}

static void test_exceptions(void **state)
{
    (void)state;
    exceptions_trace();
    assert_string_equal(render(1, 1, NULL),
        "# clrtrace: dotnet Demo.dll, pid 4242, 2025-11-22T03:14:15Z, filter: my code\n"
        "# CoreCLR 10.0.12, ICorProfilerInfo15\n"
        "#  TIME(s)    TID   DURATION  CALL\n"
        "  0.000001   4242             Main() {\n"
        "  0.000002   4242               Thrower(int n=1) {\n"
        "  0.000003   4242     1.0 us      Thrower(int n=2) -> exception System.InvalidOperationException: \"say \\\"hi\\\"\\n\"\n"
        "  0.000005   4242     3.0 us    } exception System.InvalidOperationException: \"say \\\"hi\\\"\\n\"\n"
        "  0.000006   4242     1.0 us    Quiet() -> exception Demo.QuietException\n"
        "  0.000008   4242     1.0 us    Lost() -> exception ?\n"
        "  0.000010   4242     1.0 us    Thrower(int n=3) -> exception\n"
        "  0.000012   4242    11.0 us  }\n"
        "\n"
        "# summary: 6 calls, 4 functions, 1 thread, 0 events dropped\n"
        "#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION\n"
        "       1    11.0 us     5.0 us           0  Main\n"
        /* Thrower's total: its outermost calls, n=1 (3.0 us, n=2 inside
         * it) and n=3 (1.0 us): 4.0 us. */
        "       3     4.0 us     4.0 us           3  Thrower\n"
        "       1     1.0 us     1.0 us           1  Lost\n"
        "       1     1.0 us     1.0 us           1  Quiet\n"
        "# clrtrace: shutdown, 10 functions JIT-compiled, 4 traced\n");
    /* The same in EVENTS blocks. */
    static char single[1 << 16];
    snprintf(single, sizeof single, "%s", out);
    blocks = 1;
    exceptions_trace();
    blocks = 0;
    assert_string_equal(render(1, 1, NULL), single);
}

/* ------------------------------------------------ async calls (2.9) */

/* A Task<int>'s content as the profiler plans it: the TASK form's
 * m_stateFlags and m_result (offsets within the object). */
static const ct_field task_fields[] = { { "m_stateFlags", 8, &p_i4 }, { "m_result", 12, &p_i4 } };
static const ct_plan p_task_content = { .kind = CT_V_CLASS, .size = 16, .type_name = "Box",
                                        .shape = CT_FORM_TASK, .count = 2,
                                        .fields = task_fields };
static const ct_plan p_task = { .kind = CT_V_OBJECT, .size = 8, .type_name = "Task<int>" };

/* Checkout(20) returns its task on thread 4242, which completes with 42 on
 * thread 4343; Checkout(500)'s task faults on 4343 before (in the stream)
 * its call returns on 4242 (the end came first). */
static void async_trace(int ended_first)
{
    begin_trace();
    ct_fn_param p[] = { { "int amount=", 0, &p_i4 } };
    function(1, "Shop.Checkout", CT_FN_STATIC | CT_FN_ASYNC, 1, p, "Task<int> ", &p_task);
    end_block();
    assert_int_equal(ct_write_class_content(&w, 0x80, "Box", &p_task_content), CT_TRACE_OK);
    assert_int_equal(ct_write_class(&w, 0x90, "Shop.PaymentException"), CT_TRACE_OK);
    val v[2];
    uint64_t id = 5, cls = 0x80;
    v[0] = v_i4(20);
    event(CT_REC_ENTER, 1000, 4242, 1, 1, v);
    v[0] = v_obj(0x7f0000005000, 0x80);
    v[1] = v_status(CT_VALUE_PLAN, &id, 8);
    event(CT_REC_LEAVE, 2000, 4242, 1, 2, v);
    v[0] = v_status(CT_VALUE_PLAN, &cls, 8);
    v[1] = v_i4(42);
    event(CT_REC_ASYNC_RETURN, 5000, 4343, id, 2, v);
    /* Checkout(500): id 6. */
    ct_test_values x = { .len = 0 };
    ct_test_exception(&x, 0x90, "declined", -1, ct_test_node_word(0, 0, 0));
    id = 6;
    v[0] = v_i4(500);
    event(CT_REC_ENTER, 6000, 4242, 1, 1, v);
    v[0] = v_obj(0x7f0000006000, 0x80);
    v[1] = v_status(CT_VALUE_PLAN, &id, 8);
    ct_event_mark m;
    if (!ended_first)
        event(CT_REC_LEAVE, 7000, 4242, 1, 2, v);
    end_block();
    assert_int_equal(ct_event_begin(&w, CT_REC_ASYNC_FAULT, 9000, 0, 4343, id, &m), CT_TRACE_OK);
    for (size_t pos = 0; pos < x.len;) {
        uint32_t word;
        memcpy(&word, x.b + pos, 4);
        uint32_t n = word & CT_VALUE_LEN_MASK;
        uint8_t *q = ct_event_value_reserve(&w, n);
        assert_non_null(q);
        memcpy(q, x.b + pos + 4, n);
        ct_event_value_commit_status(&w, &m, n, (ct_value_status)(word >> CT_VALUE_STATUS_SHIFT));
        pos += 4 + n;
    }
    assert_int_equal(ct_event_end(&w, &m), CT_TRACE_OK);
    if (ended_first)
        event(CT_REC_LEAVE, 10000, 4242, 1, 2, v);
    end_block();
    assert_int_equal(ct_write_end(&w, 20000, 8, 10, 1), CT_TRACE_OK);
}

/* An async call (its LEAVE carries its id) goes on past its return: the
 * line of its end, on the thread and at the time its task ended, its
 * duration from its enter to the later of that end and its return, its
 * result by the task class's content plan (labelled with the T of its
 * Task<T>), or its exception; the summary counts it once, at that end. An
 * end that comes before its call's return is told right after that
 * return. */
static void test_async_calls(void **state)
{
    (void)state;
    async_trace(0);
    assert_string_equal(render(1, 1, NULL),
        "# clrtrace: dotnet Demo.dll, pid 4242, 2025-11-22T03:14:15Z, filter: my code\n"
        "# CoreCLR 10.0.12, ICorProfilerInfo15\n"
        "#  TIME(s)    TID   DURATION  CALL\n"
        "  0.000001   4242     1.0 us  Shop.Checkout(int amount=20) -> Task<int> Box@0x7f0000005000  (async: goes on)\n"
        "  0.000005   4343     4.0 us  Shop.Checkout(int amount=20) -> int 42  (async: task ended)\n"
        "  0.000006   4242     1.0 us  Shop.Checkout(int amount=500) -> Task<int> Box@0x7f0000006000  (async: goes on)\n"
        "  0.000009   4343     3.0 us  Shop.Checkout(int amount=500) -> exception Shop.PaymentException: \"declined\"  (async: task ended)\n"
        "\n"
        "# summary: 2 calls, 1 function, 2 threads, 0 events dropped\n"
        "#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION\n"
        "       2     7.0 us     7.0 us           1  Shop.Checkout\n"
        "# clrtrace: shutdown, 10 functions JIT-compiled, 1 traced\n");
    async_trace(1);
    const char *text = render(1, 1, NULL);
    assert_non_null(strstr(text,
        "  0.000006   4242     4.0 us  Shop.Checkout(int amount=500) -> Task<int> Box@0x7f0000006000\n"
        "  0.000009   4343     4.0 us  Shop.Checkout(int amount=500) -> exception Shop.PaymentException: \"declined\"  (async: task ended)\n"));
    assert_non_null(strstr(text, "       2     8.0 us     8.0 us           1  Shop.Checkout\n"));
    /* In EVENTS blocks (the async ends are records of their own). */
    blocks = 1;
    async_trace(0);
    blocks = 0;
    assert_non_null(strstr(render(1, 0, NULL),
        "  0.000005   4343     4.0 us  Shop.Checkout(int amount=20) -> int 42  (async: task ended)\n"));
}

/* A runtime-async call (trace format 2.10, CT_FN_RT_ASYNC): its return
 * value is its task's T; Sum(20) suspends (its LEAVE: a missing value, then
 * its id) and ends on thread 4343 with 42 (its ASYNC_RETURN: class 0, then
 * the result by the function's return plan); Quick(1) ends in its first
 * part, a LEAVE as any call's; Pause (a Task: no return value) suspends and
 * ends. */
static void test_runtime_async_calls(void **state)
{
    (void)state;
    begin_trace();
    ct_fn_param p[] = { { "int a=", 0, &p_i4 } };
    function(1, "Rt.Work.Sum", CT_FN_STATIC | CT_FN_ASYNC | CT_FN_RT_ASYNC, 1, p, "int ", &p_i4);
    function(2, "Rt.Work.Quick", CT_FN_STATIC | CT_FN_ASYNC | CT_FN_RT_ASYNC, 1, p, "int ", &p_i4);
    function(3, "Rt.Work.Pause", CT_FN_STATIC | CT_FN_ASYNC | CT_FN_RT_ASYNC, 0, NULL, NULL, NULL);
    end_block();
    val v[2];
    uint64_t id = 7, zero = 0;
    v[0] = v_i4(20);
    event(CT_REC_ENTER, 1000, 4242, 1, 1, v);
    v[0] = v_status(CT_VALUE_MISSING, NULL, 0);
    v[1] = v_status(CT_VALUE_PLAN, &id, 8);
    event(CT_REC_LEAVE, 2000, 4242, 1, 2, v);
    v[0] = v_i4(1);
    event(CT_REC_ENTER, 3000, 4242, 2, 1, v);
    v[0] = v_i4(2);
    event(CT_REC_LEAVE, 3500, 4242, 2, 1, v);
    v[0] = v_status(CT_VALUE_PLAN, &zero, 8);
    v[1] = v_i4(42);
    event(CT_REC_ASYNC_RETURN, 5000, 4343, id, 2, v);
    uint64_t id2 = 8;
    event(CT_REC_ENTER, 6000, 4242, 3, 0, v);
    v[0] = v_status(CT_VALUE_PLAN, &id2, 8);
    event(CT_REC_LEAVE, 6500, 4242, 3, 1, v);
    v[0] = v_status(CT_VALUE_PLAN, &zero, 8);
    event(CT_REC_ASYNC_RETURN, 8000, 4343, id2, 1, v);
    end_block();
    assert_int_equal(ct_write_end(&w, 20000, 8, 10, 3), CT_TRACE_OK);
    const char *text = render(1, 0, NULL);
    assert_non_null(strstr(text,
        "  0.000001   4242     1.0 us  Rt.Work.Sum(int a=20)  (async: goes on)\n"
        "  0.000003   4242     0.5 us  Rt.Work.Quick(int a=1) -> int 2\n"
        "  0.000005   4343     4.0 us  Rt.Work.Sum(int a=20) -> int 42  (async: task ended)\n"
        "  0.000006   4242     0.5 us  Rt.Work.Pause()  (async: goes on)\n"
        "  0.000008   4343     2.0 us  Rt.Work.Pause()  (async: task ended)\n"));
}

/* Source locations (trace format 2.11, --srcline): a FUNCTION record's file
 * and line at the end of a folded or opening line, from the common folder or
 * whole; a LINE record's line on the exception's end; the path at
 * CT_RENDER_SRC_MAX and one byte past it; the SOURCE column. */
/* Line probes (--at) and --locals: a hit on a line of its own, no
 * duration, counted apart from the calls; a frame's locals under its
 * exception, the latest of the same frame; a hit the trace ends in is no
 * open call. */
static void test_line_probes_and_locals(void **state)
{
    (void)state;
    begin_trace();
    ct_fn_param p[] = { { "int n=", 0, &p_i4 } };
    ct_fn_param hp[] = { { "n=", 0, &p_i4 }, { "total=", 0, &p_i4 } };
    function(1, "Shop.Cart.Sum", CT_FN_STATIC, 1, p, "int ", &p_i4);
    function(2, "@ Cart.cs:30", CT_FN_STATIC | CT_FN_PROBE, 2, hp, "", NULL);
    function(3, "locals of Shop.Cart.Sum", CT_FN_STATIC | CT_FN_PROBE | CT_FN_LOCALS, 2, hp, "",
             NULL);
    val v[3];
    v[0] = v_i4(1);
    event(CT_REC_ENTER, 1000, 4242, 1, 1, v);
    v[1] = v_i4(0);
    event(CT_REC_ENTER, 1100, 4242, 2, 2, v);
    event(CT_REC_LEAVE, 1100, 4242, 2, 0, v);
    v[1] = v_i4(5);
    event(CT_REC_ENTER, 1200, 4242, 2, 2, v);
    event(CT_REC_LEAVE, 1200, 4242, 2, 0, v);
    end_block();
    /* Two LOCALS of the same frame (id 0x1000): the second is shown. */
    uint64_t owner[2] = { 1, 0x1000 };
    v[0] = v_status(CT_VALUE_PLAN, owner, 16);
    v[1] = v_i4(1);
    v[2] = v_i4(7);
    event(CT_REC_LOCALS, 1300, 4242, 3, 3, v);
    v[2] = v_i4(8);
    event(CT_REC_LOCALS, 1350, 4242, 3, 3, v);
    event(CT_REC_UNWIND, 1400, 4242, 1, 0, v);
    /* A hit another thread's line comes into: no end line of its own. */
    v[0] = v_i4(3);
    v[1] = v_i4(4);
    event(CT_REC_ENTER, 1420, 4242, 2, 2, v);
    end_block();
    event(CT_REC_ENTER, 1430, 777, 1, 1, v);
    event(CT_REC_LEAVE, 1440, 777, 1, 1, v);
    end_block();
    event(CT_REC_LEAVE, 1450, 4242, 2, 0, v);
    end_block();
    /* A hit whose LEAVE the trace does not have. */
    v[0] = v_i4(2);
    v[1] = v_i4(9);
    event(CT_REC_ENTER, 1500, 4242, 2, 2, v);
    end_block();
    assert_int_equal(ct_write_end(&w, 3000, 8, 3, 3), CT_TRACE_OK);
    const char *text = render(1, 1, NULL);
    assert_non_null(strstr(text, "  @ Cart.cs:30  n=1, total=0\n"));
    assert_non_null(strstr(text, "  @ Cart.cs:30  n=1, total=5\n"));
    assert_non_null(strstr(text, "} exception\n"));
    assert_non_null(strstr(text, "  locals: n=1, total=8\n"));
    assert_null(strstr(text, "total=7"));
    /* The hit lines carry no duration: their prefix is the time and the
     * thread only, as an opening line's. */
    const char *hit = strstr(text, "@ Cart.cs:30  n=1, total=0");
    const char *bol = hit;
    while (bol > text && bol[-1] != '\n')
        bol--;
    assert_null(memchr(bol, 's', (size_t)(hit - bol))); /* no "us"/"ms" */
    assert_non_null(strstr(text, "@ Cart.cs:30  n=2, total=9\n"));
    assert_null(strstr(text, "total=9 {"));
    assert_non_null(strstr(text, "@ Cart.cs:30  n=3, total=4\n"));
    /* The only end lines: the exception's and thread 777's folded call. */
    unsigned ends = 0;
    for (const char *q = text; (q = strstr(q, "  }")) != NULL; q++)
        ends++;
    assert_int_equal(ends, 1);
    assert_non_null(strstr(text, "# line probes: @ Cart.cs:30 4 hits\n"));
    assert_non_null(strstr(text, "# summary: 2 calls, 1 function,"));
    assert_null(strstr(text, "  @ Cart.cs:30\n"));
}

static void test_source_locations(void **state)
{
    (void)state;
    static char longpath[CT_RENDER_SRC_MAX + 8];
    begin_trace();
    ct_fn_param p[] = { { "int n=", 0, &p_i4 } };
    ct_fn_param r = { "int ", 0, &p_i4 };
    ct_fn_src src = { "/src/app/Orders.cs", 42, 9 };
    assert_int_equal(ct_write_function_src(&w, 1, "Shop.Orders.Place", "", CT_FN_STATIC, 1, p, &r, 0,
                                           &src), CT_TRACE_OK);
    ct_fn_src src2 = { "/src/app/Orders.cs", 50, 9 };
    assert_int_equal(ct_write_function_src(&w, 2, "Shop.Orders.Check", "", CT_FN_STATIC, 1, p, &r, 0,
                                           &src2), CT_TRACE_OK);
    /* " at " + path + ":7" is CT_RENDER_SRC_MAX bytes: shown whole; one
     * byte more: its end after "...". */
    size_t room = CT_RENDER_SRC_MAX - 4 - 2 - 3;
    memset(longpath, 'p', room);
    longpath[0] = '/';
    longpath[room] = '\0';
    ct_fn_src src3 = { longpath, 7, 0 };
    assert_int_equal(ct_write_function_src(&w, 3, "Shop.Long", "", CT_FN_STATIC, 0, NULL, NULL, 0,
                                           &src3), CT_TRACE_OK);
    static char longer[CT_RENDER_SRC_MAX + 8];
    memcpy(longer, longpath, room);
    longer[room] = 'q';
    longer[room + 1] = '\0';
    ct_fn_src src4 = { longer, 7, 0 };
    assert_int_equal(ct_write_function_src(&w, 4, "Shop.Longer", "", CT_FN_STATIC, 0, NULL, NULL, 0,
                                           &src4), CT_TRACE_OK);
    assert_int_equal(ct_write_function(&w, 5, "Shop.NoPdb", "", CT_FN_STATIC, 0, NULL, NULL),
                     CT_TRACE_OK);
    val v[1];
    v[0] = v_i4(1);
    event(CT_REC_ENTER, 1000, 4242, 1, 1, v);
    event(CT_REC_ENTER, 1100, 4242, 2, 1, v);
    v[0] = v_i4(2);
    event(CT_REC_LEAVE, 1200, 4242, 2, 1, v);
    event(CT_REC_ENTER, 1300, 4242, 2, 1, v);
    end_block();
    assert_int_equal(ct_write_line(&w, 1400, 4242, 2, 51, CT_LINE_THROWN), CT_TRACE_OK);
    event(CT_REC_UNWIND, 1400, 4242, 2, 0, v);
    end_block();
    assert_int_equal(ct_write_line(&w, 1500, 4242, 1, 44, 0), CT_TRACE_OK);
    event(CT_REC_UNWIND, 1500, 4242, 1, 0, v);
    event(CT_REC_ENTER, 1600, 4242, 3, 0, v);
    event(CT_REC_LEAVE, 1700, 4242, 3, 0, v);
    event(CT_REC_ENTER, 1800, 4242, 4, 0, v);
    event(CT_REC_LEAVE, 1900, 4242, 4, 0, v);
    event(CT_REC_ENTER, 2000, 4242, 5, 0, v);
    event(CT_REC_LEAVE, 2100, 4242, 5, 0, v);
    end_block();
    assert_int_equal(ct_write_end(&w, 3000, 16, 5, 5), CT_TRACE_OK);
    g_srcline = 1;
    const char *text = render(1, 1, NULL);
    assert_non_null(strstr(text, "Shop.Orders.Place(int n=1) { at Orders.cs:42\n"));
    assert_non_null(strstr(text, "Shop.Orders.Check(int n=1) -> int 2 at Orders.cs:50\n"));
    assert_non_null(strstr(text, "Shop.Orders.Check(int n=2) -> exception thrown at Orders.cs:51\n"));
    assert_non_null(strstr(text, "} exception at Orders.cs:44\n"));
    char want[CT_RENDER_SRC_MAX + 64];
    snprintf(want, sizeof want, "Shop.Long() at %s:7\n", longpath);
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof want, "Shop.Longer() at ...%s:7\n", longer + 1);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "SOURCE"));
    assert_non_null(strstr(text, "  Orders.cs:42"));
    assert_non_null(strstr(text, "# source lines: 1 of 5 functions have none"));
    g_srcline = 2;
    text = render(1, 0, NULL);
    assert_non_null(strstr(text, "Shop.Orders.Place(int n=1) { at /src/app/Orders.cs:42\n"));
    g_srcline = 0;
    text = render(1, 1, NULL);
    assert_null(strstr(text, " at Orders.cs"));
    assert_null(strstr(text, "SOURCE"));
}

/* INJECT records (2.13): the call each names, its thread's innermost
 * one of that function, ends with "  [injected]" (folded or closing line),
 * a call of the same function without one does not, and the summary counts
 * them by action; another thread's INJECT marks its own call only. */
static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* --max-size: a trace whose first segment kept is number 2 (segments 0
 * and 1, 3 MiB, dropped). The call open when segment 2 began ends in it
 * without its start: counted as begun in the segments dropped, not shown,
 * not a drop; the line saying what was dropped comes at the first event,
 * with its time. */
static void test_segments_window(void **state)
{
    (void)state;
    begin_trace();
    assert_int_equal(ct_write_segment(&w, 5000000000ull, 2, 3u << 20), CT_TRACE_OK);
    ct_fn_param p[] = { { "int n=", 0, &p_i4 } };
    ct_fn_param r = { "int ", 0, &p_i4 };
    assert_int_equal(ct_write_function(&w, 1, "Shop.Loop", "", CT_FN_STATIC, 1, p, &r),
                     CT_TRACE_OK);
    assert_int_equal(ct_write_function(&w, 2, "Shop.Step", "", CT_FN_STATIC, 1, p, &r),
                     CT_TRACE_OK);
    val v[1];
    v[0] = v_i4(41);
    event(CT_REC_LEAVE, 4999000000ull, 4242, 2, 1, v); /* Step(40), begun before */
    v[0] = v_i4(41);
    event(CT_REC_ENTER, 4999500000ull, 4242, 2, 1, v);
    v[0] = v_i4(42);
    event(CT_REC_LEAVE, 4999600000ull, 4242, 2, 1, v);
    event(CT_REC_LEAVE, 5000100000ull, 4242, 1, 1, v); /* Loop, begun before */
    end_block();
    /* A later segment repeats the definitions and its own SEGMENT. */
    assert_int_equal(ct_write_segment(&w, 6000000000ull, 3, 4u << 20), CT_TRACE_OK);
    assert_int_equal(ct_write_function(&w, 2, "Shop.Step", "", CT_FN_STATIC, 1, p, &r),
                     CT_TRACE_OK);
    v[0] = v_i4(43);
    event(CT_REC_ENTER, 6000500000ull, 4242, 2, 1, v);
    v[0] = v_i4(44);
    event(CT_REC_LEAVE, 6000600000ull, 4242, 2, 1, v);
    end_block();
    assert_int_equal(ct_write_end(&w, 7000000000ull, 4, 2, 2), CT_TRACE_OK);
    const char *text = render(1, 1, NULL);
    assert_non_null(strstr(text, "# max-size: segments 0 to 1 (3.0 MiB) were dropped: the calls "
                                 "before 4.999000 s\n"));
    assert_int_equal(count_of(text, "# max-size: segments"), 1);
    assert_non_null(strstr(text, "Shop.Step(int n=41) -> int 42\n"));
    assert_non_null(strstr(text, "Shop.Step(int n=43) -> int 44\n"));
    assert_null(strstr(text, "} -> int"));
    assert_non_null(strstr(text, ", 0 events dropped\n"));
    assert_non_null(strstr(text, "# max-size: 2 calls began in the segments dropped (their ends "
                                 "not shown)\n"));
}

static void test_injected_calls(void **state)
{
    (void)state;
    begin_trace();
    ct_fn_param p[] = { { "int n=", 0, &p_i4 } };
    ct_fn_param r = { "int ", 0, &p_i4 };
    assert_int_equal(ct_write_function(&w, 1, "Shop.Client.Send", "", CT_FN_STATIC, 1, p, &r),
                     CT_TRACE_OK);
    assert_int_equal(ct_write_function(&w, 2, "Shop.Client.Slow", "", CT_FN_STATIC, 1, p, &r),
                     CT_TRACE_OK);
    val v[1];
    v[0] = v_i4(1);
    event(CT_REC_ENTER, 1000, 4242, 1, 1, v);
    end_block();
    assert_int_equal(ct_write_inject(&w, 1001, 4242, 1, 0, CT_INJECT_RETURN), CT_TRACE_OK);
    v[0] = v_i4(7);
    event(CT_REC_LEAVE, 1100, 4242, 1, 1, v);
    v[0] = v_i4(2);
    event(CT_REC_ENTER, 1200, 4242, 1, 1, v);
    event(CT_REC_LEAVE, 1300, 4242, 1, 1, v);
    /* A delay: the call runs, with a callee, on with another thread's. */
    v[0] = v_i4(3);
    event(CT_REC_ENTER, 1400, 4242, 2, 1, v);
    event(CT_REC_ENTER, 1410, 77, 2, 1, v);
    end_block();
    assert_int_equal(ct_write_inject(&w, 1402, 4242, 2, 1, CT_INJECT_DELAY), CT_TRACE_OK);
    event(CT_REC_ENTER, 1500, 4242, 1, 1, v);
    event(CT_REC_LEAVE, 1600, 4242, 1, 1, v);
    event(CT_REC_LEAVE, 1700, 4242, 2, 1, v);
    event(CT_REC_LEAVE, 1800, 77, 2, 1, v);
    end_block();
    assert_int_equal(ct_write_end(&w, 3000, 16, 2, 2), CT_TRACE_OK);
    const char *text = render(1, 1, NULL);
    assert_non_null(strstr(text, "Shop.Client.Send(int n=1) -> int 7  [injected]\n"));
    assert_non_null(strstr(text, "Shop.Client.Send(int n=2) -> int 2\n"));
    assert_non_null(strstr(text, "Shop.Client.Send(int n=3) -> int 3\n"));
    assert_non_null(strstr(text, "} -> int 3  [injected]\n"));
    assert_int_equal(count_of(text, "[injected]"), 2);
    assert_non_null(strstr(text, "# injected: 2 calls: Shop.Client.Send 1 (1 return), "
                                 "Shop.Client.Slow 1 (1 delay)\n"));
}

/* report --stats and --histogram (views/hist.h): 100 calls of known
 * durations, 50 of 5 us, 40 of 40 us, 10 of 200 us. By hand: AVG 38.5 us;
 * P50 the 50th (5 us: its bucket [4864, 5119] ns, told as 4991 ns), P90
 * the 90th (40 us: [38912, 40959], 39935 ns), P99 the 99th (200 us: the
 * middle of [196608, 204799] is past the greatest: 200 us); the histogram
 * by power of two, bars of 40, 32 and 8. */
static void test_percentiles(void **state)
{
    (void)state;
    begin_trace();
    function(1, "Work.Sleep", CT_FN_STATIC, 0, NULL, NULL, NULL);
    function(2, "Work.Other", CT_FN_STATIC, 0, NULL, NULL, NULL);
    uint64_t t = 1000;
    for (int i = 0; i < 100; i++) {
        uint64_t d = i < 50 ? 5000 : i < 90 ? 40000 : 200000;
        event(CT_REC_ENTER, t, 4242, 1, 0, NULL);
        event(CT_REC_LEAVE, t + d, 4242, 1, 0, NULL);
        t += d + 1000;
    }
    event(CT_REC_ENTER, t, 4242, 2, 0, NULL);
    event(CT_REC_LEAVE, t + 7000, 4242, 2, 0, NULL);
    end_block();
    assert_int_equal(ct_write_end(&w, t + 10000, 16, 2, 2), CT_TRACE_OK);
    g_stats = 1;
    g_histogram = "Work.Sl*";
    const char *text = render(0, 1, NULL);
    g_stats = 0;
    g_histogram = NULL;
    assert_non_null(strstr(text, "#  CALLS      TOTAL       SELF        AVG        MIN        MAX"
                                 "        P50        P90        P99  FUNCTION\n"));
    assert_non_null(strstr(text, "     100     3.9 ms     3.9 ms    38.5 us     5.0 us   200.0 us"
                                 "     5.0 us    39.9 us   200.0 us  Work.Sleep\n"));
    /* One call: every percentile is it. */
    assert_non_null(strstr(text, "     7.0 us     7.0 us     7.0 us     7.0 us  Work.Other\n"));
    assert_non_null(strstr(text, "\n# histogram: Work.Sleep, 100 calls\n"
                                 "    4.1 us .. 8.2 us             50  "
                                 "########################################\n"
                                 "   32.8 us .. 65.5 us            40  "
                                 "################################\n"
                                 "  131.1 us .. 262.1 us           10  ########\n"));
    assert_null(strstr(text, "# histogram: Work.Other"));
}

/* A Task's value (trace format 2.9): its Exception, the TASK form's last
 * field, shown when the task faulted, its Result when it ran to
 * completion, neither while it waits. */
static void test_task_exception_value(void **state)
{
    (void)state;
    static const ct_plan p_exc = { .kind = CT_V_OBJECT, .size = 8, .type_name = "Exception" };
    static const ct_field fields[] = { { "m_stateFlags", 8, &p_i4 }, { "m_result", 12, &p_i4 },
                                       { CT_TASK_EXCEPTION_FIELD, CT_FIELD_FOUND, &p_exc } };
    static const ct_plan content = { .kind = CT_V_CLASS, .size = 16, .type_name = "Box",
                                     .shape = CT_FORM_TASK, .count = 3, .fields = fields };
    begin_trace();
    ct_fn_param p[] = { { "Task<int> t=", 0, &p_task } };
    function(1, "Shop.Done", CT_FN_STATIC, 1, p, NULL, NULL);
    assert_int_equal(ct_write_class_content(&w, 0x80, "Box", &content), CT_TRACE_OK);
    assert_int_equal(ct_write_class(&w, 0x90, "Shop.PaymentException"), CT_TRACE_OK);
    uint32_t flags[3] = { 0x200000 /* Faulted */, 0x1000000 /* RanToCompletion */,
                          0x2000000 /* WaitingForActivation */ };
    for (int i = 0; i < 3; i++) {
        val v = { 0 };
        uint64_t addr = 0x7f0000005000, cls = 0x80 | CT_CLASS_CONTENT, eaddr = 0x7f0000007000,
                 ecls = 0x90, none = 0;
        int32_t result = 5;
        vput(&v, &addr, 8);
        vput(&v, &cls, 8);
        vput(&v, &flags[i], 4);
        vput(&v, &result, 4);
        vput(&v, i == 0 ? &eaddr : &none, 8); /* an OBJECT: address, class (0, 0: null) */
        vput(&v, i == 0 ? &ecls : &none, 8);
        event(CT_REC_ENTER, 1000 + 10 * (uint64_t)i, 4242, 1, 1, &v);
        event(CT_REC_LEAVE, 1005 + 10 * (uint64_t)i, 4242, 1, 0, NULL);
    }
    end_block();
    assert_int_equal(ct_write_end(&w, 2000, 6, 10, 1), CT_TRACE_OK);
    const char *text = render(1, 0, NULL);
    assert_non_null(strstr(text, "Shop.Done(Task<int> t=Box{Status=Faulted, Exception=Shop.PaymentException@0x7f0000007000})\n"));
    assert_non_null(strstr(text, "Shop.Done(Task<int> t=Box{Status=RanToCompletion, Result=5})\n"));
    assert_non_null(strstr(text, "Shop.Done(Task<int> t=Box{Status=WaitingForActivation})\n"));
}

/* ------------------------------------------------ inner exceptions */

/* An UNWIND record's values built by hand (records.h); an exception of
 * class cls, its message m of which the first `kept` characters are in the
 * record (-1: all), at depth, aggregate or not, with `inner` exceptions. */
typedef ct_test_values xbuf;
#define xvalue ct_test_value
static void xnode(xbuf *c, uint64_t cls, const char *m, int kept, uint32_t depth, int aggregate,
                  uint32_t inner)
{
    ct_test_exception(c, cls, m, kept, ct_test_node_word(depth, aggregate, inner));
}

static char xout[1 << 17];

static const char *xtext(ct_symbols *s, const xbuf *c)
{
    ct_rec r = { .type = CT_REC_UNWIND, .values = c->b, .values_len = c->len, .nvalues = c->n };
    ct_text t;
    ct_text_init(&t, xout, sizeof xout);
    if (!ct_symbols_exception_text(s, &r, &t))
        return NULL;
    ct_text_end(&t);
    return xout;
}

static void xclass(ct_symbols *s, uint64_t id, const char *name)
{
    ct_rec r = { .type = CT_REC_CLASS, .key = id, .name = name, .name_len = (uint32_t)strlen(name) };
    assert_int_equal(ct_symbols_add(s, &r), 0);
}

/* The inner exceptions of an UNWIND record (2.6) as the text log, replay
 * and the exporters show them: " <- " and the InnerException; an
 * AggregateException's Message built as .NET builds it (its own, then
 * " (" + each inner exception's Message + ")"), its InnerExceptions in
 * parentheses; the ones left out; damaged chains. */
static void test_exception_chain(void **state)
{
    (void)state;
    ct_symbols *s = ct_symbols_new();
    assert_non_null(s);
    xclass(s, 0x80, "System.InvalidOperationException");
    xclass(s, 0x81, "System.IO.FileNotFoundException");
    xclass(s, 0x82, "System.FormatException");
    xclass(s, 0x90, "System.AggregateException");
    static xbuf c;

#define X(expected) assert_string_equal(xtext(s, &c), expected)
    memset(&c, 0, sizeof c);
    xnode(&c, 0x80, "load failed: cfg.json", -1, 0, 0, 1);
    xnode(&c, 0x81, "cfg.json not found", -1, 1, 0, 0);
    X("System.InvalidOperationException: \"load failed: cfg.json\" <- "
      "System.IO.FileNotFoundException: \"cfg.json not found\"");
    /* Its inner exception left out (CT_EXC_CHAIN_DEPTH reached). */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x80, "load failed: cfg.json", -1, 0, 0, 1);
    X("System.InvalidOperationException: \"load failed: cfg.json\" <- ...");

    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, "batch failed", -1, 0, 1, 2);
    xnode(&c, 0x80, "bad a", -1, 1, 0, 0);
    xnode(&c, 0x82, "bad b", -1, 1, 0, 0);
    X("System.AggregateException: \"batch failed (bad a) (bad b)\" <- "
      "(System.InvalidOperationException: \"bad a\", System.FormatException: \"bad b\")");
    /* One of three left out: the Message as far as it is known. */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, "batch failed", -1, 0, 1, 3);
    xnode(&c, 0x80, "bad a", -1, 1, 0, 0);
    xnode(&c, 0x82, "bad b", -1, 1, 0, 0);
    X("System.AggregateException: \"batch failed (bad a) (bad b)\"... <- "
      "(System.InvalidOperationException: \"bad a\", System.FormatException: \"bad b\", +1 more)");
    /* None kept; none at all (then its Message is its own). */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, "batch failed", -1, 0, 1, 2);
    X("System.AggregateException: \"batch failed\"... <- (+2 more)");
    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, "batch failed", -1, 0, 1, 0);
    X("System.AggregateException: \"batch failed\"");
    /* Nested: an aggregate inside an aggregate, an inner exception's own
     * InnerException (in the chain, not in the Message). */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, "outer", -1, 0, 1, 2);
    xnode(&c, 0x90, "inner", -1, 1, 1, 1);
    xnode(&c, 0x80, "x", -1, 2, 0, 0);
    xnode(&c, 0x80, "y", -1, 1, 0, 1);
    xnode(&c, 0x81, "z", -1, 2, 0, 0);
    X("System.AggregateException: \"outer (inner (x)) (y)\" <- "
      "(System.AggregateException: \"inner (x)\" <- (System.InvalidOperationException: \"x\"), "
      "System.InvalidOperationException: \"y\" <- System.IO.FileNotFoundException: \"z\")");
    /* A null _message: the aggregate's own is Exception.Message's default;
     * an inner one's is not known (a Message override may say more). */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, NULL, -1, 0, 1, 2);
    xnode(&c, 0x80, "a", -1, 1, 0, 0);
    xnode(&c, 0x80, NULL, -1, 1, 0, 0);
    X("System.AggregateException: \"Exception of type 'System.AggregateException' was thrown. (a) (\"... <- "
      "(System.InvalidOperationException: \"a\", System.InvalidOperationException)");
    /* A cut inner message: the whole length is still known. */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, "batch", -1, 0, 1, 2);
    xnode(&c, 0x80, "abcdef", 3, 1, 0, 0);
    xnode(&c, 0x80, "b", -1, 1, 0, 0);
    X("System.AggregateException: \"batch (abc\"...(18 chars) <- "
      "(System.InvalidOperationException: \"abc\"...(6 chars), System.InvalidOperationException: \"b\")");
    /* CT_EXC_TEXT_UNITS: a Message of exactly that many units whole, one
     * more cut there. */
    static char big[CT_EXC_TEXT_UNITS + 2];
    for (int more = 0; more < 2; more++) {
        /* "B (" + inner + ")": 4 units besides the inner message. */
        size_t inner = CT_EXC_TEXT_UNITS - 4 + (size_t)more;
        memset(big, 'q', inner);
        big[inner] = '\0';
        memset(&c, 0, sizeof c);
        xnode(&c, 0x90, "B", -1, 0, 1, 1);
        xnode(&c, 0x80, big, -1, 1, 0, 0);
        const char *t = xtext(s, &c);
        const char *q = strchr(t, '"');
        const char *end = strstr(t, ")\"");
        assert_non_null(q);
        if (!more) {
            assert_non_null(end);
            assert_int_equal(end + 1 - (q + 1), CT_EXC_TEXT_UNITS);
            assert_non_null(strstr(t, ")\" <- (System.InvalidOperationException: \"qqq"));
        } else {
            const char *cut = strstr(t, "\"...(4097 chars) <- (");
            assert_non_null(cut);
            assert_int_equal(cut - (q + 1), CT_EXC_TEXT_UNITS);
        }
    }
    /* Damaged: the thrown exception, then <damaged>. */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x80, "top", -1, 0, 0, 1);
    xnode(&c, 0x81, "in", -1, 2, 0, 0);
    X("System.InvalidOperationException: \"top\" <- <damaged>");
    c.len -= 3;
    X("System.InvalidOperationException: \"top\" <- <damaged>");
    memset(&c, 0, sizeof c);
    xnode(&c, 0x90, "batch", -1, 0, 1, 1);
    xnode(&c, 0x80, "a", -1, 1, 0, 0);
    xnode(&c, 0x80, "b", -1, 1, 0, 0); /* more than it has */
    X("System.AggregateException: \"batch\"... <- <damaged>");
    /* A class no CLASS record named; a record without the exception. */
    memset(&c, 0, sizeof c);
    xnode(&c, 0x80, "top", -1, 0, 0, 1);
    xnode(&c, 0x99, "in", -1, 1, 0, 0);
    X("System.InvalidOperationException: \"top\" <- ?: \"in\"");
    memset(&c, 0, sizeof c);
    assert_null(xtext(s, &c));
#undef X
    ct_symbols_free(s);
}

/* Values the profiler could not capture as planned: by range, too large,
 * missing, a byref whose target was not read; objects named by CLASS
 * records, or by their plan's type when no record names the class. */
static void test_value_statuses(void **state)
{
    (void)state;
    begin_trace();
    ct_fn_param c_p[] = { { "object o=", 0, &p_obj }, { "Point p=", 0, &p_point }, { "ref int r=", 0, &p_refint },
                          { "string s=", 0, &p_str }, { "int m=", 0, &p_i4 } };
    function(3, "C", 0, 5, c_p, "object ", &p_obj);
    assert_int_equal(ct_write_class(&w, 0x50, "Demo.Circle"), CT_TRACE_OK);
    static const uint8_t three[] = { 1, 2, 3 };
    uint64_t one = 1;
    val v[5];
    v[0] = v_obj(0x1000, 0x50);
    v[1] = v_status(CT_VALUE_RANGE, three, 3);
    v[2] = v_status(CT_VALUE_ADDRESS, &one, 8);
    v[3] = v_status(CT_VALUE_TOO_LARGE, NULL, 0);
    v[4] = v_status(CT_VALUE_MISSING, NULL, 0);
    event(CT_REC_ENTER, 1000, 1, 3, 5, v);
    v[0] = v_obj(0x2000, 0x68); /* a class no CLASS record names (class ids are aligned:
                                   the low bits mark strings and boxed values) */
    event(CT_REC_LEAVE, 2000, 1, 3, 1, v);
    /* A LEAVE without its value: "?". */
    v[0] = v_obj(0x1000, 0x50);
    event(CT_REC_ENTER, 3000, 1, 3, 5, v);
    event(CT_REC_LEAVE, 4000, 1, 3, 0, NULL);
    assert_int_equal(ct_write_end(&w, 5000, 4, 10, 1), CT_TRACE_OK);
    const char *text = render(1, 0, NULL);
    assert_non_null(strstr(text,
        "\n  0.000001      1     1.0 us  C(object o=Demo.Circle@0x1000, Point p=<3 bytes 01 02 03>, ref int r=0x1, "
        "string s=<too large>, int m=<unavailable>) -> object object@0x2000\n"));
    assert_non_null(strstr(text, "\n  0.000003      1     1.0 us  C(object o=Demo.Circle@0x1000, Point p=<3 bytes 01 02 03>, "
                                 "ref int r=0x1, string s=<too large>, int m=<unavailable>) -> object ?\n"));
}

/* A FUNCTION record repeated for one key (plans bound at the first call)
 * replaces the plans; the summary counts the key's calls together. */
static void test_redefined_function(void **state)
{
    (void)state;
    begin_trace();
    ct_fn_param late[] = { { "T x=", 0, &p_by_range } };
    function(5, "Demo.Util.Id<T>", CT_FN_STATIC, 1, late, "T ", &p_by_range);
    static const uint8_t four[] = { 5, 0, 0, 0 };
    val v[1] = { v_status(CT_VALUE_RANGE, four, 4) };
    event(CT_REC_ENTER, 1000, 1, 5, 1, v);
    event(CT_REC_LEAVE, 2000, 1, 5, 1, v);
    ct_fn_param bound[] = { { "T x=", 0, &p_i4 } };
    function(5, "Demo.Util.Id<T>", CT_FN_STATIC, 1, bound, "T ", &p_i4);
    v[0] = v_i4(5);
    event(CT_REC_ENTER, 3000, 1, 5, 1, v);
    event(CT_REC_LEAVE, 4000, 1, 5, 1, v);
    /* No values at all (the fast path): "(...)" and no return value. */
    function(6, "Demo.Fast.Add", CT_FN_STATIC | CT_FN_NO_VALUES, 0, NULL, NULL, NULL);
    event(CT_REC_ENTER, 5000, 1, 6, 0, NULL);
    event(CT_REC_LEAVE, 6000, 1, 6, 0, NULL);
    assert_int_equal(ct_write_end(&w, 7000, 6, 10, 2), CT_TRACE_OK);
    assert_string_equal(render(1, 1, NULL),
        "# clrtrace: dotnet Demo.dll, pid 4242, 2025-11-22T03:14:15Z, filter: my code\n"
        "# CoreCLR 10.0.12, ICorProfilerInfo15\n"
        "#  TIME(s)    TID   DURATION  CALL\n"
        "  0.000001      1     1.0 us  Demo.Util.Id<T>(T x=<4 bytes 05 00 00 00>) -> T <4 bytes 05 00 00 00>\n"
        "  0.000003      1     1.0 us  Demo.Util.Id<T>(T x=5) -> T 5\n"
        "  0.000005      1     1.0 us  Demo.Fast.Add(...)\n"
        "\n"
        "# summary: 3 calls, 2 functions, 1 thread, 0 events dropped\n"
        "#  CALLS      TOTAL       SELF  FUNCTION\n"
        "       2     2.0 us     2.0 us  Demo.Util.Id<T>\n"
        "       1     1.0 us     1.0 us  Demo.Fast.Add\n"
        "# clrtrace: shutdown, 10 functions JIT-compiled, 2 traced\n");
}

/* Indentation stops at CT_RENDER_MAX_INDENT levels; times roll over into ms
 * and s; an event for a key no FUNCTION record named is shown as "?". */
static void test_depth_and_units(void **state)
{
    (void)state;
    begin_trace();
    function(7, "R", CT_FN_STATIC, 0, NULL, NULL, NULL);
    int depth = CT_RENDER_MAX_INDENT + 6;
    for (int i = 0; i < depth; i++)
        event(CT_REC_ENTER, 1000 + (uint64_t)i, 1, 7, 0, NULL);
    for (int i = 0; i < depth; i++)
        event(CT_REC_LEAVE, 2000000 + (uint64_t)i * 1000000000ull, 1, 7, 0, NULL);
    event(CT_REC_ENTER, 9000000000000ull, 2, 0xDEAD, 0, NULL);
    event(CT_REC_LEAVE, 9000000001000ull, 2, 0xDEAD, 0, NULL);
    const char *text = render(1, 1, NULL);
    /* The innermost call: the prefix, then 2 x 64 spaces of indentation. */
    char want[512];
    snprintf(want, sizeof want, "\n  0.000001      1     2.0 ms  %*sR()\n", 2 * CT_RENDER_MAX_INDENT, "");
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof want, "\n  1.002000      1     1.00 s  %*s}\n", 2 * CT_RENDER_MAX_INDENT, "");
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "\n 69.002000      1    69.00 s  }\n"));
    assert_non_null(strstr(text, "\n9000.000000      2     1.0 us  ?(...)\n"));
    assert_non_null(strstr(text, "\n      70 "));
}


/* A recursive function's TOTAL counts each call once: its outermost calls
 * on each thread. R(3) calls R(2) calls R(1), 1 us apart, returning 1 us
 * apart: the outer call lasts 5 us, the whole recursion's time; on a second
 * thread R runs once for 2 us. TOTAL = 5 + 2 = 7 us (not 5 + 3 + 1 + 2);
 * SELF = 2 + 2 + 1 + 2 = 7 us; the calls 4. */
static void test_recursion_total(void **state)
{
    (void)state;
    begin_trace();
    function(1, "R", CT_FN_STATIC, 0, NULL, NULL, NULL);
    event(CT_REC_ENTER, 1000, 10, 1, 0, NULL);
    event(CT_REC_ENTER, 2000, 10, 1, 0, NULL);
    event(CT_REC_ENTER, 3000, 10, 1, 0, NULL);
    event(CT_REC_ENTER, 3000, 20, 1, 0, NULL);
    event(CT_REC_LEAVE, 4000, 10, 1, 0, NULL);
    event(CT_REC_LEAVE, 5000, 10, 1, 0, NULL);
    event(CT_REC_LEAVE, 5000, 20, 1, 0, NULL);
    event(CT_REC_LEAVE, 6000, 10, 1, 0, NULL);
    end_block();
    const char *text = render(0, 1, NULL);
    assert_non_null(strstr(text, "\n       4     7.0 us     7.0 us  R\n"));
}


/* Rows that share a name are told apart: overloads by their parameter
 * types, the same types again by an ordinal (keys' order). */
static void test_name_collisions(void **state)
{
    (void)state;
    begin_trace();
    ct_fn_param d[] = { { "double scale=", 0, &p_r8 } };
    ct_fn_param i[] = { { "int n=", 0, &p_i4 } };
    ct_fn_param t[] = { { "this=", 0, &p_i4 } };
    function(1, "Demo.Shape.Area", 0, 1, d, NULL, NULL);
    function(2, "Demo.Shape.Area", 0, 1, i, NULL, NULL);
    function(3, "Demo.Box<T>.Get", 0, 1, t, NULL, NULL);
    function(4, "Demo.Box<T>.Get", 0, 1, t, NULL, NULL);
    function(5, "Demo.Main", CT_FN_STATIC, 0, NULL, NULL, NULL);
    uint64_t at = 1000;
    for (uint64_t k = 1; k <= 5; k++) {
        event(CT_REC_ENTER, at, 10, k, 0, NULL);
        event(CT_REC_LEAVE, at + 1000 * k, 10, k, 0, NULL);
        at += 10000;
    }
    end_block();
    const char *text = render(0, 1, NULL);
    assert_non_null(strstr(text, "  Demo.Shape.Area(double)\n"));
    assert_non_null(strstr(text, "  Demo.Shape.Area(int)\n"));
    assert_non_null(strstr(text, "  Demo.Box<T>.Get()\n"));
    assert_non_null(strstr(text, "  Demo.Box<T>.Get() #2\n"));
    assert_non_null(strstr(text, "  Demo.Main\n"));
}

/* Two threads whose tracer's held time differs (issue 25): thread 100 was
 * held 5 ms (JIT) before its first call and 2 ms more inside Work; thread
 * 200 never. The TIME column is the one clock of every thread, so the lines
 * of the two threads sort by it; durations leave the held time out. */
static const char k_two_clocks[] =
    "  0.010000    100             Work() {\n"
    "  0.010500    100   300.0 us    Inner()\n"
    "  0.011000    200     1.0 ms  Other()\n"
    "  0.020000    100     8.0 ms  }\n";

static void two_clocks_trace(void)
{
    begin_trace();
    function(1, "Work", CT_FN_STATIC, 0, NULL, NULL, NULL);
    function(2, "Inner", CT_FN_STATIC, 0, NULL, NULL, NULL);
    function(3, "Other", CT_FN_STATIC, 0, NULL, NULL, NULL);
    event_held(CT_REC_ENTER, 10000000, 5000000, 100, 1, 0, NULL);
    event_held(CT_REC_ENTER, 10500000, 5000000, 100, 2, 0, NULL);
    event_held(CT_REC_LEAVE, 10800000, 5000000, 100, 2, 0, NULL);
    event_held(CT_REC_ENTER, 11000000, 0, 200, 3, 0, NULL);
    event_held(CT_REC_LEAVE, 12000000, 0, 200, 3, 0, NULL);
    event_held(CT_REC_LEAVE, 20000000, 7000000, 100, 1, 0, NULL);
    end_block();
    assert_int_equal(ct_write_end(&w, 21000000, 6, 3, 3), CT_TRACE_OK);
}

/* The call lines of the text (from the third line to the blank one). */
static const char *call_lines(const char *text)
{
    const char *p = strstr(text, "CALL\n");
    assert_non_null(p);
    static char lines[4096];
    p += 5;
    const char *e = strstr(p, "\n\n");
    size_t n = e ? (size_t)(e - p) + 1 : strlen(p);
    assert_true(n < sizeof lines);
    memcpy(lines, p, n);
    lines[n] = '\0';
    return lines;
}

static void test_two_clocks(void **state)
{
    (void)state;
    for (blocks = 0; blocks <= 1; blocks++) {
        two_clocks_trace();
        const char *text = render(1, 1, NULL);
        assert_string_equal(call_lines(text), k_two_clocks);
        /* The summary: Work's 8 ms, 7.7 ms of it its own. */
        assert_non_null(strstr(text, "       1     8.0 ms     7.7 ms  Work\n"));
    }
    blocks = 0;
}

/* The same calls in a 2.6 trace: the times there are the threads' program
 * times (each thread's held time already left out) and the writer merged
 * them by those; the reader shows them as they are, durations as they
 * were. The last event is a 2.6 event record (no held time in it). */
static void test_two_clocks_2_6(void **state)
{
    (void)state;
    blocks = 1;
    begin_trace();
    function(1, "Work", CT_FN_STATIC, 0, NULL, NULL, NULL);
    function(2, "Inner", CT_FN_STATIC, 0, NULL, NULL, NULL);
    function(3, "Other", CT_FN_STATIC, 0, NULL, NULL, NULL);
    event(CT_REC_ENTER, 5000000, 100, 1, 0, NULL);
    event(CT_REC_ENTER, 5500000, 100, 2, 0, NULL);
    event(CT_REC_LEAVE, 5800000, 100, 2, 0, NULL);
    event(CT_REC_ENTER, 11000000, 200, 3, 0, NULL);
    event(CT_REC_LEAVE, 12000000, 200, 3, 0, NULL);
    end_block();
    blocks = 0;
    uint8_t *p = w.p + w.len;
    assert_true(w.cap - w.len >= CT_EVENT_BASE_BYTES_2_6);
    uint64_t word0 = (uint64_t)CT_REC_LEAVE | (uint64_t)(CT_EVENT_BASE_BYTES_2_6 - 8) << 32;
    uint64_t fields[4] = { word0, 13000000, 100, 1 };
    memcpy(p, fields, sizeof fields); /* little-endian hosts only, as the tests are */
    w.len += CT_EVENT_BASE_BYTES_2_6;
    assert_int_equal(ct_write_end(&w, 21000000, 6, 3, 3), CT_TRACE_OK);
    file[10] = 6; /* the minor version */
    file[11] = 0;
    const char *text = render(1, 1, NULL);
    assert_string_equal(call_lines(text),
        "  0.005000    100             Work() {\n"
        "  0.005500    100   300.0 us    Inner()\n"
        "  0.011000    200     1.0 ms  Other()\n"
        "  0.013000    100     8.0 ms  }\n");
    assert_non_null(strstr(text, "       1     8.0 ms     7.7 ms  Work\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo),
        cmocka_unit_test(test_two_clocks),
        cmocka_unit_test(test_two_clocks_2_6),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_recursion_total),
        cmocka_unit_test(test_name_collisions),
        cmocka_unit_test(test_threads_and_endings),
        cmocka_unit_test(test_time_order_across_threads),
        cmocka_unit_test(test_exceptions),
        cmocka_unit_test(test_async_calls),
        cmocka_unit_test(test_runtime_async_calls),
        cmocka_unit_test(test_source_locations),
        cmocka_unit_test(test_injected_calls),
        cmocka_unit_test(test_segments_window),
        cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_line_probes_and_locals),
        cmocka_unit_test(test_task_exception_value),
        cmocka_unit_test(test_exception_chain),
        cmocka_unit_test(test_value_statuses),
        cmocka_unit_test(test_redefined_function),
        cmocka_unit_test(test_depth_and_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
