/* The binary trace format (docs/trace-format.md), writing: whole records
 * appended to a caller's buffer, never a partial one. */
#include <string.h>
#include <zstd.h>

#include "event.h"
#include "event_codec.h"
#include "base/text.h"

/* ------------------------------------------------------------------ writing */

void ct_wbuf_init(ct_wbuf *w, void *mem, size_t cap)
{
    w->p = mem;
    w->cap = mem ? cap : 0;
    w->len = 0;
    w->overflow = 0;
}

static void put(ct_wbuf *w, const void *p, size_t n)
{
    if (w->overflow || n > w->cap - w->len) {
        w->overflow = 1;
        return;
    }
    memcpy(w->p + w->len, p, n);
    w->len += n;
}

static void put_u8(ct_wbuf *w, uint8_t v) { put(w, &v, 1); }
static void put_u16(ct_wbuf *w, uint16_t v) { uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(w, b, 2); }

static void put_u32(ct_wbuf *w, uint32_t v)
{
    uint8_t b[4];
    ct_put_le32(b, v);
    put(w, b, 4);
}

static void put_u64(ct_wbuf *w, uint64_t v)
{
    uint8_t b[8];
    ct_put_le64(b, v);
    put(w, b, 8);
}

static void put_str(ct_wbuf *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > CT_MAX_STRING)
        n = CT_MAX_STRING;
    put_u32(w, (uint32_t)n);
    put(w, s, n);
}

static void patch_u32(ct_wbuf *w, size_t at, uint32_t v)
{
    ct_put_le32(w->p + at, v);
}

/* Starts a record; returns the offset of its header. */
static size_t rec_begin(ct_wbuf *w, ct_rec_type t)
{
    size_t at = w->len;
    put_u8(w, (uint8_t)t);
    put_u8(w, 0);
    put_u16(w, 0);
    put_u32(w, 0);
    return at;
}

/* Zero bytes up to the next multiple of 8 from `at`. */
static void pad(ct_wbuf *w, size_t at)
{
    static const uint8_t zeros[REC_ALIGN];
    put(w, zeros, align8(w->len - at) - (w->len - at));
}

static ct_trace_status rec_end(ct_wbuf *w, size_t at, size_t undo)
{
    size_t plen = w->len - at - REC_HEADER;
    pad(w, at);
    if (w->overflow || plen > CT_MAX_RECORD) {
        w->len = undo;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    patch_u32(w, at + 4, (uint32_t)plen);
    return CT_TRACE_OK;
}

ct_trace_status ct_write_header(ct_wbuf *w, uint32_t pid, uint32_t ppid, uint64_t start_unix_ns,
                                const char *cmdline, const char *filter, const char *settings)
{
    size_t undo = w->len;
    put(w, CT_TRACE_MAGIC, 8);
    put_u16(w, CT_TRACE_VERSION_MAJOR);
    put_u16(w, CT_TRACE_VERSION_MINOR);
    size_t len_at = w->len;
    put_u32(w, 0);
    put_u32(w, pid);
    put_u64(w, start_unix_ns);
    put_str(w, cmdline);
    put_str(w, filter);
    put_str(w, settings);
    put_u32(w, ppid);
    size_t hlen = w->len - len_at - 4;
    pad(w, undo);
    if (w->overflow) {
        w->len = undo;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    patch_u32(w, len_at, (uint32_t)hlen);
    return CT_TRACE_OK;
}

static void put_opt_plan(ct_wbuf *w, const ct_plan *p, unsigned depth);
static void put_fields(ct_wbuf *w, const ct_plan *p, unsigned depth);

static void put_plan(ct_wbuf *w, const ct_plan *p, unsigned depth)
{
    if (depth > CT_MAX_PLAN_DEPTH) {
        w->overflow = 1;
        return;
    }
    put_u8(w, (uint8_t)p->kind);
    put_u8(w, (uint8_t)(p->is_flags ? 1 : 0));
    put_u8(w, (uint8_t)p->underlying);
    put_u8(w, p->kind == CT_V_CLASS || p->kind == CT_V_STRUCT ? p->shape : 0); /* 2.6: form */
    put_u32(w, p->size);
    put_str(w, p->type_name);
    switch (p->kind) {
    case CT_V_STRUCT:
        put_fields(w, p, depth);
        break;
    case CT_V_ENUM:
        put_u32(w, p->count);
        for (uint32_t i = 0; i < p->count; i++) {
            put_str(w, p->items[i].name);
            put_u64(w, p->items[i].value);
        }
        break;
    case CT_V_ARRAY: case CT_V_BYREF: case CT_V_NULLABLE: case CT_V_SPAN: case CT_V_VECTOR:
        put_u32(w, p->value_offset);
        put_opt_plan(w, p->elem, depth);
        break;
    case CT_V_CLASS:
        put_u32(w, p->value_offset);
        put_fields(w, p, depth);
        break;
    case CT_V_SEQ:
        put_u8(w, p->shape);
        put_opt_plan(w, p->elem, depth);
        put_opt_plan(w, p->key, depth);
        break;
    case CT_V_MDARRAY:
        put_u32(w, p->count);
        put_opt_plan(w, p->elem, depth);
        break;
    case CT_V_INLINE:
        put_u32(w, p->count);
        put_u32(w, p->value_offset);
        put_opt_plan(w, p->elem, depth);
        break;
    case CT_V_SEGMENT:
        put_u32(w, p->value_offset);
        put_u32(w, p->count_offset);
        put_opt_plan(w, p->elem, depth);
        break;
    case CT_V_DTOFFSET: case CT_V_RANGE:
        put_u32(w, p->value_offset);
        put_u32(w, p->count_offset);
        break;
    default:
        break;
    }
}

/* A STRUCT's or CLASS's fields: u32 n, n x (name, u32 offset, plan). */
static void put_fields(ct_wbuf *w, const ct_plan *p, unsigned depth)
{
    put_u32(w, p->count);
    for (uint32_t i = 0; i < p->count; i++) {
        put_str(w, p->fields[i].name);
        /* (A field the capture finds, not at an offset: written as 0.) */
        put_u32(w, p->fields[i].offset == CT_FIELD_FOUND ? 0 : p->fields[i].offset);
        put_plan(w, p->fields[i].plan, depth + 1);
    }
}

/* u8 1 and the plan, or u8 0 for none. */
static void put_opt_plan(ct_wbuf *w, const ct_plan *p, unsigned depth)
{
    put_u8(w, p ? 1 : 0);
    if (p)
        put_plan(w, p, depth + 1);
}

ct_trace_status ct_write_function(ct_wbuf *w, uint64_t key, const char *name, const char *sig,
                                  uint32_t flags, uint32_t nparams, const ct_fn_param *params,
                                  const ct_fn_param *ret)
{
    return ct_write_function_outs(w, key, name, sig, flags, nparams, params, ret, 0);
}

ct_trace_status ct_write_function_outs(ct_wbuf *w, uint64_t key, const char *name,
                                       const char *sig, uint32_t flags, uint32_t nparams,
                                       const ct_fn_param *params, const ct_fn_param *ret,
                                       uint64_t out_mask)
{
    return ct_write_function_src(w, key, name, sig, flags, nparams, params, ret, out_mask, NULL);
}

ct_trace_status ct_write_function_src(ct_wbuf *w, uint64_t key, const char *name, const char *sig,
                                      uint32_t flags, uint32_t nparams, const ct_fn_param *params,
                                      const ct_fn_param *ret, uint64_t out_mask,
                                      const ct_fn_src *src)
{
    static const ct_plan void_plan = { .kind = CT_V_VOID, .type_name = "void" };
    size_t undo = w->len, at = rec_begin(w, CT_REC_FUNCTION);
    if (nparams > CT_MAX_PARAMS + 1)
        w->overflow = 1;
    put_u64(w, key);
    put_u32(w, flags);
    put_str(w, name);
    put_str(w, sig);
    put_u32(w, nparams);
    for (uint32_t i = 0; i < nparams && !w->overflow; i++) {
        put_str(w, params[i].name);
        put_plan(w, params[i].plan ? params[i].plan : &void_plan, 0);
    }
    put_str(w, ret ? ret->name : "");
    put_plan(w, ret && ret->plan ? ret->plan : &void_plan, 0);
    /* 2.2: the parameters re-read at return, when there are any. */
    if (out_mask && nparams < 64 && (out_mask >> nparams) != 0)
        out_mask = 0;
    int has_src = src && src->file;
    if (out_mask || has_src)
        put_u64(w, out_mask);
    /* 2.11: the source location, after the out mask. */
    if (has_src) {
        put_u32(w, src->line);
        put_u32(w, src->root <= strlen(src->file) ? src->root : 0);
        put_str(w, src->file);
    }
    return rec_end(w, at, undo);
}

static ct_trace_status write_named(ct_wbuf *w, ct_rec_type t, uint64_t id, const char *name)
{
    size_t undo = w->len, at = rec_begin(w, t);
    put_u64(w, id);
    put_str(w, name);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_thread(ct_wbuf *w, uint64_t tid, const char *name)
{
    return write_named(w, CT_REC_THREAD, tid, name);
}

ct_trace_status ct_write_class(ct_wbuf *w, uint64_t class_id, const char *name)
{
    return write_named(w, CT_REC_CLASS, class_id, name);
}

ct_trace_status ct_write_class_content(ct_wbuf *w, uint64_t class_id, const char *name,
                                       const ct_plan *content)
{
    if (!content)
        return ct_write_class(w, class_id, name);
    size_t undo = w->len, at = rec_begin(w, CT_REC_CLASS);
    put_u64(w, class_id);
    put_str(w, name);
    put_opt_plan(w, content, 0);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_dropped(ct_wbuf *w, uint64_t tid, uint64_t count)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_DROPPED);
    put_u64(w, tid);
    put_u64(w, count);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_budget(ct_wbuf *w, uint64_t time_ns, uint64_t key, uint64_t tid,
                                uint64_t skipped, uint32_t step, uint32_t share_permille)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_BUDGET);
    put_u64(w, time_ns);
    put_u64(w, key);
    put_u64(w, tid);
    put_u64(w, skipped);
    put_u32(w, step);
    put_u32(w, share_permille);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_line(ct_wbuf *w, uint64_t time_ns, uint64_t tid, uint64_t key,
                              uint32_t line, uint32_t flags)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_LINE);
    put_u64(w, time_ns);
    put_u64(w, tid);
    put_u64(w, key);
    put_u32(w, line);
    put_u32(w, flags);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_inject(ct_wbuf *w, uint64_t time_ns, uint64_t tid, uint64_t key,
                                uint32_t index, uint32_t action)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_INJECT);
    put_u64(w, time_ns);
    put_u64(w, tid);
    put_u64(w, key);
    put_u32(w, index);
    put_u32(w, action);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_segment(ct_wbuf *w, uint64_t time_ns, uint64_t index,
                                 uint64_t bytes_before)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_SEGMENT);
    put_u64(w, time_ns);
    put_u64(w, index);
    put_u64(w, bytes_before);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_activity(ct_wbuf *w, uint64_t time_ns, uint64_t tid,
                                  const uint8_t *trace_id, const uint8_t *span_id)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_ACTIVITY);
    put_u64(w, time_ns);
    put_u64(w, tid);
    put(w, trace_id, CT_TRACE_ID_BYTES);
    put(w, span_id, CT_SPAN_ID_BYTES);
    return rec_end(w, at, undo);
}

int ct_activity_none(const uint8_t *ids)
{
    for (int i = 0; i < CT_ACTIVITY_ID_BYTES; i++)
        if (ids[i])
            return 0;
    return 1;
}

static void hex_text(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = 0;
}

void ct_trace_id_text(const uint8_t *trace_id, char out[2 * CT_TRACE_ID_BYTES + 1])
{
    hex_text(trace_id, CT_TRACE_ID_BYTES, out);
}

void ct_span_id_text(const uint8_t *span_id, char out[2 * CT_SPAN_ID_BYTES + 1])
{
    hex_text(span_id, CT_SPAN_ID_BYTES, out);
}


int ct_trace_id_parse(const char *text, uint8_t trace_id[CT_TRACE_ID_BYTES])
{
    for (int i = 0; i < CT_TRACE_ID_BYTES; i++) {
        int hi = ct_hex_digit(text[2 * i]), lo = hi < 0 ? -1 : ct_hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        trace_id[i] = (uint8_t)(hi << 4 | lo);
    }
    return text[2 * CT_TRACE_ID_BYTES] ? -1 : 0;
}

ct_trace_status ct_write_held(ct_wbuf *w, uint64_t tid, uint64_t ns)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_HELD);
    put_u64(w, tid);
    put_u64(w, ns);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_jit(ct_wbuf *w, uint64_t key, uint64_t count, uint64_t ns,
                             uint64_t tid)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_JIT);
    put_u64(w, key);
    put_u64(w, count);
    put_u64(w, ns);
    put_u64(w, tid);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_end_unrewritten(ct_wbuf *w, uint64_t time_ns, uint64_t events,
                                         uint64_t mapped, uint64_t traced, uint64_t unrewritten)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_END);
    put_u64(w, time_ns);
    put_u64(w, events);
    put_u64(w, mapped);
    put_u64(w, traced);
    if (unrewritten)
        put_u64(w, unrewritten);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_end(ct_wbuf *w, uint64_t time_ns, uint64_t events, uint64_t mapped,
                             uint64_t traced)
{
    return ct_write_end_unrewritten(w, time_ns, events, mapped, traced, 0);
}

ct_trace_status ct_zstd_begin(ct_wbuf *w, ct_zstd_job *j, const uint8_t *records, size_t len,
                              struct ZSTD_CCtx_s *cctx)
{
    if (len > CT_MAX_ZBLOCK)
        return CT_TRACE_E_LIMIT;
    size_t undo = w->len, at = rec_begin(w, CT_REC_ZSTD);
    put_u32(w, (uint32_t)len);
    put_u32(w, 0);
    if (w->overflow) {
        w->len = undo;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    /* Smaller than the records as they are, with the header and padding. */
    size_t room = w->cap - w->len, most = len > REC_HEADER + 8 + REC_ALIGN
                                              ? len - (REC_HEADER + 8 + REC_ALIGN) : 0;
    if (room > most)
        room = most;
    /* With the frame's checksum (a damaged block is an error, not other
     * values) and the content size, as ZSTD_compress2 writes it. */
    if (!room || ZSTD_isError(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, CT_ZSTD_LEVEL)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cctx, len))) {
        w->len = undo;
        return CT_TRACE_E_SPACE;
    }
    *j = (ct_zstd_job){records, len, 0, undo, at, w->len + room, cctx};
    return CT_TRACE_OK;
}

int ct_zstd_step(ct_wbuf *w, ct_zstd_job *j, size_t piece, ct_trace_status *st)
{
    ZSTD_outBuffer out = {w->p, j->out_end, w->len};
    ZSTD_inBuffer in = {j->records, piece < j->len - j->done ? j->done + piece : j->len, j->done};
    ZSTD_EndDirective mode = in.size == j->len ? ZSTD_e_end : ZSTD_e_continue;
    size_t left;
    do {
        left = ZSTD_compressStream2(j->cctx, &out, &in, mode);
    } while (!ZSTD_isError(left) && out.pos < out.size &&
             (mode == ZSTD_e_end ? left != 0 : in.pos < in.size));
    w->len = out.pos;
    j->done = in.pos;
    if (!ZSTD_isError(left) && mode == ZSTD_e_continue && in.pos == in.size)
        return 1;
    /* Over: whole, or the output ran out of room (no smaller), or zstd
     * failed. */
    if (!ZSTD_isError(left) && mode == ZSTD_e_end && left == 0) {
        *st = rec_end(w, j->at, j->undo);
        if (*st == CT_TRACE_OK)
            return 0;
    }
    w->len = j->undo;
    ZSTD_CCtx_reset(j->cctx, ZSTD_reset_session_only);
    *st = CT_TRACE_E_SPACE;
    return 0;
}

ct_trace_status ct_write_zstd(ct_wbuf *w, const uint8_t *records, size_t len,
                              struct ZSTD_CCtx_s *cctx)
{
    ct_zstd_job j;
    ct_trace_status st = ct_zstd_begin(w, &j, records, len, cctx);
    if (st != CT_TRACE_OK)
        return st;
    while (ct_zstd_step(w, &j, len, &st))
        ;
    return st;
}

ct_trace_status ct_event_begin(ct_wbuf *w, ct_rec_type type, uint64_t time_ns, uint64_t held_ns,
                               uint64_t tid, uint64_t key, ct_event_mark *m)
{
    m->start = w->len;
    m->nvalues = 0;
    if (w->overflow || CT_EVENT_BASE_BYTES > w->cap - w->len)
        return CT_TRACE_E_SPACE;
    /* The hooks' path: one bounds check, fixed stores. The value count
     * and the length are patched by ct_event_end. */
    ct_event_put_header(w->p + w->len, type, time_ns, held_ns, tid, key);
    w->len += CT_EVENT_BASE_BYTES;
    return CT_TRACE_OK;
}

uint8_t *ct_event_value_reserve(ct_wbuf *w, size_t cap)
{
    if (w->overflow || cap + 4 > w->cap - w->len) {
        w->overflow = 1;
        return NULL;
    }
    return w->p + w->len + 4;
}

void ct_event_value_commit_status(ct_wbuf *w, ct_event_mark *m, size_t used,
                                  ct_value_status status)
{
    if (w->overflow)
        return;
    if (used > CT_VALUE_LEN_MASK || used + 4 > w->cap - w->len) {
        w->overflow = 1;
        return;
    }
    patch_u32(w, w->len, (uint32_t)used | (uint32_t)status << CT_VALUE_STATUS_SHIFT);
    w->len += 4 + used;
    m->nvalues++;
}

void ct_event_value_commit(ct_wbuf *w, ct_event_mark *m, size_t used)
{
    ct_event_value_commit_status(w, m, used, CT_VALUE_PLAN);
}

void ct_event_set_time(ct_wbuf *w, const ct_event_mark *m, uint64_t time_ns, uint64_t held_ns)
{
    if (m->start + CT_EVENT_BASE_BYTES > w->len)
        return;
    ct_put_le64(w->p + m->start + CT_EVENT_TIME_AT, time_ns);
    ct_put_le64(w->p + m->start + CT_EVENT_HELD_AT, held_ns);
}

ct_trace_status ct_event_end(ct_wbuf *w, ct_event_mark *m)
{
    size_t plen = w->len - m->start - REC_HEADER;
    pad(w, m->start);
    if (w->overflow || m->nvalues > CT_MAX_PARAMS + 1 || plen > CT_MAX_RECORD) {
        w->len = m->start;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    ct_event_put_counts(w->p + m->start, m->nvalues, (uint32_t)plen);
    return CT_TRACE_OK;
}

/* ---------------------------------------------------------- EVENTS blocks */

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}



ct_trace_status ct_events_begin(ct_wbuf *w, uint64_t tid, uint64_t base_time, uint64_t base_key,
                                ct_events_mark *m)
{
    m->start = w->len;
    m->open = 0;
    if (w->overflow || REC_HEADER + EVENTS_HEADER > w->cap - w->len)
        return CT_TRACE_E_SPACE;
    uint8_t *p = w->p + w->len;
    p[0] = CT_REC_EVENTS;
    p[1] = p[2] = p[3] = 0;
    ct_put_le32(p + 4, EVENTS_HEADER);
    ct_put_le64(p + 8, tid);
    ct_put_le64(p + 16, base_time);
    ct_put_le64(p + 24, base_key);
    w->len += REC_HEADER + EVENTS_HEADER;
    m->tid = tid;
    m->time = base_time;
    m->key = base_key;
    m->held = 0;
    m->open = 1;
    return CT_TRACE_OK;
}

ct_trace_status ct_events_add(ct_wbuf *w, ct_events_mark *m, ct_rec_type type, uint64_t time_ns,
                              uint64_t held_ns, uint64_t key, uint32_t nvalues,
                              const uint8_t *values, size_t values_len)
{
    if (!m->open || type < CT_REC_ENTER || type > CT_REC_UNWIND || nvalues > CT_MAX_PARAMS + 1 ||
        held_ns < m->held)
        return CT_TRACE_E_SPACE;
    size_t need = CT_EVENTS_MAX_OVERHEAD + (nvalues ? values_len : 0);
    size_t payload = w->len - m->start - REC_HEADER;
    if (w->overflow || need > w->cap - w->len || payload + need > CT_MAX_RECORD)
        return CT_TRACE_E_SPACE;
    uint8_t *p = w->p + w->len;
    size_t n = 0;
    int held = held_ns != m->held;
    p[n++] = (uint8_t)((type - CT_REC_ENTER) | (nvalues ? 4 : 0) | (held ? 8 : 0));
    n += put_varint(p + n, zigzag(time_ns - m->time));
    n += put_varint(p + n, zigzag(key - m->key));
    if (held)
        n += put_varint(p + n, zigzag(held_ns - m->held));
    if (nvalues) {
        n += put_varint(p + n, nvalues);
        n += put_varint(p + n, values_len);
        memcpy(p + n, values, values_len);
        n += values_len;
    }
    w->len += n;
    m->time = time_ns;
    m->key = key;
    m->held = held_ns;
    return CT_TRACE_OK;
}

ct_trace_status ct_events_end(ct_wbuf *w, ct_events_mark *m)
{
    if (!m->open)
        return CT_TRACE_OK;
    m->open = 0;
    size_t plen = w->len - m->start - REC_HEADER;
    pad(w, m->start);
    if (w->overflow) {
        w->len = m->start;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    patch_u32(w, m->start + 4, (uint32_t)plen);
    return CT_TRACE_OK;
}
