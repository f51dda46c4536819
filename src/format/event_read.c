/* The binary trace format (docs/trace-format.md), reading: every length
 * and offset checked; a damaged file gives an error with its offset. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cursor.h"
#include "event.h"
#include "event_codec.h"
#include "inject_spec.h"
#include "base/bytes.h"

int ct_header_attached(const ct_trace_header *h)
{
    size_t n = sizeof CT_SETTINGS_ATTACHED - 1;
    return h->settings && h->settings_len >= n &&
           !memcmp(h->settings + h->settings_len - n, CT_SETTINGS_ATTACHED, n);
}

/* Whether settings[0..len) holds word. */
static int settings_has(const char *settings, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(settings + i, word, n))
            return 1;
    return 0;
}

const char *ct_header_engine(const ct_trace_header *h)
{
    if (!h->settings || !h->settings_len)
        return NULL;
    return settings_has(h->settings, h->settings_len, ", engine il") ||
                   settings_has(h->settings, h->settings_len, ", IL probes")
               ? "il"
               : "elt";
}

const char *ct_trace_strerror(ct_trace_status st)
{
    switch (st) {
    case CT_TRACE_OK: return "ok";
    case CT_TRACE_E_MAGIC: return "not a clrtrace trace file";
    case CT_TRACE_E_VERSION: return "unsupported trace format version";
    case CT_TRACE_E_TRUNCATED: return "record runs past the end of the file";
    case CT_TRACE_E_RECORD: return "malformed record";
    case CT_TRACE_E_LIMIT: return "count or length above its limit";
    case CT_TRACE_E_NOMEM: return "out of memory for decoded records";
    case CT_TRACE_E_SPACE: return "buffer too small";
    }
    return "unknown error";
}

/* ------------------------------------------------------------------ reading */

static const char *get_str(ct_cursor *c, uint32_t *len)
{
    uint32_t n = (uint32_t)ct_take_u(c, 4);
    if (n > CT_MAX_STRING)
        c->bad = 1;
    const uint8_t *p = ct_take(c, n);
    *len = p ? n : 0;
    return p ? (const char *)p : "";
}

static void *ralloc(ct_rarena *a, size_t n)
{
    size_t start = (a->used + 7) & ~(size_t)7;
    if (!a->base || start < a->used || start > a->cap || n > a->cap - start)
        return NULL;
    a->used = start + n;
    memset(a->base + start, 0, n);
    return a->base + start;
}

/* A NUL-terminated copy in the arena (plans hand names to printf-style code). */
static const char *rstr(ct_rarena *a, const char *s, uint32_t n, int *nomem)
{
    char *d = ralloc(a, (size_t)n + 1);
    if (!d) {
        *nomem = 1;
        return "";
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

typedef struct plan_rd {
    ct_cursor *c;
    ct_rarena *a;
    unsigned nodes;
    int nomem, limit;
} plan_rd;

static const ct_plan *get_opt_plan(plan_rd *r, unsigned depth);
static const ct_plan *get_plan(plan_rd *r, unsigned depth);

/* A STRUCT's or CLASS's fields: u32 n, n x (name, u32 offset, plan), each
 * inside the value's size. */
static void get_fields(plan_rd *r, ct_plan *p, unsigned depth)
{
    ct_cursor *c = r->c;
    uint32_t n;
    p->count = (uint32_t)ct_take_u(c, 4);
    /* each field takes at least 4 + 4 + 12 bytes */
    if (c->bad || p->count > (c->n - c->pos) / 20) {
        c->bad = 1;
        return;
    }
    ct_field *f = ralloc(r->a, (size_t)p->count * sizeof *f);
    if (!f && p->count) {
        r->nomem = 1;
        c->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < p->count && !c->bad; i++) {
        const char *s = get_str(c, &n);
        f[i].name = rstr(r->a, s, n, &r->nomem);
        f[i].offset = (uint32_t)ct_take_u(c, 4);
        f[i].plan = get_plan(r, depth + 1);
        if (f[i].plan && (uint64_t)f[i].offset + f[i].plan->size > p->size &&
            f[i].plan->kind != CT_V_VOID)
            c->bad = 1; /* a field outside its struct would read past the capture */
    }
    p->fields = f;
}

static const ct_plan *get_plan(plan_rd *r, unsigned depth)
{
    ct_cursor *c = r->c;
    if (depth > CT_MAX_PLAN_DEPTH || ++r->nodes > CT_MAX_PLAN_NODES) {
        r->limit = 1;
        c->bad = 1;
        return NULL;
    }
    ct_plan *p = ralloc(r->a, sizeof *p);
    if (!p) {
        r->nomem = 1;
        c->bad = 1;
        return NULL;
    }
    p->kind = (ct_vkind)ct_take_u(c, 1);
    p->is_flags = (int)ct_take_u(c, 1);
    p->underlying = (ct_vkind)ct_take_u(c, 1);
    uint8_t form = (uint8_t)ct_take_u(c, 1); /* 2.6: a CLASS's or STRUCT's form (else 0) */
    if ((p->kind == CT_V_CLASS || p->kind == CT_V_STRUCT) && form <= CT_FORM_MAX)
        p->shape = form;
    p->size = (uint32_t)ct_take_u(c, 4);
    uint32_t n;
    const char *s = get_str(c, &n);
    p->type_name = rstr(r->a, s, n, &r->nomem);
    if (c->bad)
        return NULL;
    if ((unsigned)p->kind > CT_V_KIND_MAX || (unsigned)p->underlying > CT_V_OPAQUE ||
        p->size > CT_MAX_RECORD) {
        c->bad = 1;
        return NULL;
    }
    switch (p->kind) {
    case CT_V_STRUCT:
        get_fields(r, p, depth);
        break;
    case CT_V_ENUM: {
        p->count = (uint32_t)ct_take_u(c, 4);
        if (c->bad || p->count > (c->n - c->pos) / 12) {
            c->bad = 1;
            return NULL;
        }
        ct_enum_item *it = ralloc(r->a, (size_t)p->count * sizeof *it);
        if (!it && p->count) {
            r->nomem = 1;
            c->bad = 1;
            return NULL;
        }
        for (uint32_t i = 0; i < p->count && !c->bad; i++) {
            s = get_str(c, &n);
            it[i].name = rstr(r->a, s, n, &r->nomem);
            it[i].value = ct_take_u(c, 8);
        }
        p->items = it;
        break;
    }
    case CT_V_ARRAY: case CT_V_BYREF: case CT_V_NULLABLE: case CT_V_SPAN: case CT_V_VECTOR:
        p->value_offset = (uint32_t)ct_take_u(c, 4);
        p->elem = get_opt_plan(r, depth);
        break;
    case CT_V_CLASS:
        p->value_offset = (uint32_t)ct_take_u(c, 4);
        get_fields(r, p, depth);
        break;
    case CT_V_SEQ:
        p->shape = (uint8_t)ct_take_u(c, 1);
        p->elem = get_opt_plan(r, depth);
        p->key = get_opt_plan(r, depth);
        if (p->shape < CT_SEQ_LIST || p->shape > CT_SEQ_SHAPE_MAX || !p->elem ||
            (p->shape == CT_SEQ_DICT) != (p->key != NULL) ||
            (p->shape == CT_SEQ_TEXT && p->elem->kind != CT_V_CHAR))
            c->bad = 1;
        break;
    case CT_V_MDARRAY:
        p->count = (uint32_t)ct_take_u(c, 4);
        p->elem = get_opt_plan(r, depth);
        if (p->count == 0 || p->count > CT_MAX_ARRAY_RANK)
            c->bad = 1;
        break;
    case CT_V_INLINE:
        /* N elements a stride apart, the last inside the struct. */
        p->count = (uint32_t)ct_take_u(c, 4);
        p->value_offset = (uint32_t)ct_take_u(c, 4);
        p->elem = get_opt_plan(r, depth);
        if (!p->elem || p->count == 0 || p->value_offset < p->elem->size ||
            (uint64_t)p->count * p->value_offset > p->size)
            c->bad = 1;
        break;
    case CT_V_SEGMENT:
        p->value_offset = (uint32_t)ct_take_u(c, 4);
        p->count_offset = (uint32_t)ct_take_u(c, 4);
        p->elem = get_opt_plan(r, depth);
        if (!p->elem || (uint64_t)p->value_offset + 4 > p->size ||
            (uint64_t)p->count_offset + 4 > p->size || p->size < 8)
            c->bad = 1;
        break;
    case CT_V_DTOFFSET:
        p->value_offset = (uint32_t)ct_take_u(c, 4);
        p->count_offset = (uint32_t)ct_take_u(c, 4);
        break;
    case CT_V_RANGE:
        p->value_offset = (uint32_t)ct_take_u(c, 4);
        p->count_offset = (uint32_t)ct_take_u(c, 4);
        if (p->value_offset > 4 || p->count_offset > 4)
            c->bad = 1;
        break;
    default:
        break;
    }
    return c->bad ? NULL : p;
}

/* u8 has-plan, then the plan. */
static const ct_plan *get_opt_plan(plan_rd *r, unsigned depth)
{
    return ct_take_u(r->c, 1) ? get_plan(r, depth + 1) : NULL;
}

static int fail(ct_reader *r, ct_trace_status st, uint64_t at)
{
    r->error = st;
    r->error_offset = at;
    r->error_in_zstd = r->in_zstd;
    r->error_zstd_at = r->z_at;
    return -1;
}

/* The same for the ZSTD record at file offset at itself. */
static int fail_zstd(ct_reader *r, ct_trace_status st, uint64_t at)
{
    fail(r, st, at + r->shift);
    r->error_in_zstd = 1;
    r->error_zstd_at = at;
    return -1;
}

ct_trace_status ct_reader_open(ct_reader *r, const uint8_t *data, size_t len, ct_rarena *arena)
{
    memset(r, 0, sizeof *r);
    r->data = data;
    r->len = len;
    r->arena = arena;
    if (len < 12 || memcmp(data, CT_TRACE_MAGIC, 8) != 0) {
        fail(r, CT_TRACE_E_MAGIC, 0);
        return r->error;
    }
    ct_cursor c = { data, len, 8, 0 };
    r->header.major = (uint16_t)ct_take_u(&c, 2);
    r->header.minor = (uint16_t)ct_take_u(&c, 2);
    if (r->header.major != CT_TRACE_VERSION_MAJOR) {
        fail(r, CT_TRACE_E_VERSION, 8);
        return r->error;
    }
    uint32_t hlen = (uint32_t)ct_take_u(&c, 4);
    if (c.bad || hlen > len - c.pos) {
        fail(r, CT_TRACE_E_TRUNCATED, 12);
        return r->error;
    }
    ct_cursor h = { data + c.pos, hlen, 0, 0 };
    r->header.pid = (uint32_t)ct_take_u(&h, 4);
    r->header.start_unix_ns = ct_take_u(&h, 8);
    r->header.cmdline = get_str(&h, &r->header.cmdline_len);
    r->header.filter = get_str(&h, &r->header.filter_len);
    r->header.settings = get_str(&h, &r->header.settings_len);
    /* 2.1 added the parent's pid; older minors end here. */
    if (!h.bad && r->header.minor >= 1)
        r->header.ppid = (uint32_t)ct_take_u(&h, 4);
    r->before_held = r->header.minor < CT_TRACE_MINOR_HELD;
    if (h.bad) {
        fail(r, CT_TRACE_E_RECORD, 16);
        return r->error;
    }
    size_t end = c.pos + hlen, next = align8(end);
    if (next > len) {
        fail(r, CT_TRACE_E_TRUNCATED, 12);
        return r->error;
    }
    for (size_t i = end; i < next; i++)
        if (data[i]) {
            fail(r, CT_TRACE_E_RECORD, i);
            return r->error;
        }
    r->pos = next;
    return CT_TRACE_OK;
}

size_t ct_header_bytes(const uint8_t *data, size_t len)
{
    if (len < CT_TRACE_PREFIX_BYTES || memcmp(data, CT_TRACE_MAGIC, 8) != 0)
        return 0;
    ct_cursor c = { data, len, 8, 0 };
    uint16_t major = (uint16_t)ct_take_u(&c, 2);
    ct_take_u(&c, 2);
    uint32_t hlen = (uint32_t)ct_take_u(&c, 4);
    if (c.bad || major != CT_TRACE_VERSION_MAJOR || hlen > CT_MAX_HEADER - CT_TRACE_PREFIX_BYTES)
        return 0;
    return align8(CT_TRACE_PREFIX_BYTES + (size_t)hlen);
}

/* ct_read_record; before_held: event records as before 2.7 (no held time). */
static long read_record(const uint8_t *data, size_t len, uint64_t offset, ct_rarena *arena,
                        ct_rec *rec, ct_trace_status *error, int before_held)
{
    *error = CT_TRACE_OK;
    if (len < REC_HEADER)
        return 0;
    const uint8_t *h = data;
    uint32_t plen = ct_get_le32(h + 4);
    if (plen > CT_MAX_RECORD) {
        *error = CT_TRACE_E_LIMIT;
        return -1;
    }
    size_t total = align8(REC_HEADER + (size_t)plen);
    if (total > len)
        return 0;
    memset(rec, 0, sizeof *rec);
    rec->type = (ct_rec_type)h[0];
    rec->offset = offset;
    int is_event = ct_rec_is_event(rec->type) || ct_rec_is_event_shaped(rec->type);
    int bad_pad = h[1] != 0 || (!is_event && (h[2] || h[3]));
    for (size_t i = REC_HEADER + plen; i < total; i++)
        bad_pad |= h[i] != 0;
    if (bad_pad) {
        *error = CT_TRACE_E_RECORD;
        return -1;
    }
    ct_cursor c = { h + REC_HEADER, plen, 0, 0 };
    plan_rd pr = { &c, arena, 0, 0, 0 };
    switch (rec->type) {
    case CT_REC_FUNCTION: {
        rec->key = ct_take_u(&c, 8);
        rec->flags = (uint32_t)ct_take_u(&c, 4);
        rec->name = get_str(&c, &rec->name_len);
        rec->sig = get_str(&c, &rec->sig_len);
        rec->nparams = (uint32_t)ct_take_u(&c, 4);
        if (c.bad)
            break;
        if (rec->nparams > CT_MAX_PARAMS + 1) {
            *error = CT_TRACE_E_LIMIT;
            return -1;
        }
        if (rec->nparams > (c.n - c.pos) / 16) {
            *error = CT_TRACE_E_RECORD;
            return -1;
        }
        rec->params = ralloc(arena, (size_t)rec->nparams * sizeof *rec->params + 1);
        if (!rec->params) {
            *error = CT_TRACE_E_NOMEM;
            return -1;
        }
        for (uint32_t i = 0; i < rec->nparams && !c.bad; i++) {
            rec->params[i].name = get_str(&c, &rec->params[i].name_len);
            rec->params[i].plan = get_plan(&pr, 0);
        }
        rec->ret.name = get_str(&c, &rec->ret.name_len);
        rec->ret.plan = get_plan(&pr, 0);
        /* 2.2: the parameters re-read at return, when the writer named any:
         * each one a parameter that exists. */
        rec->out_mask = 0;
        if (!c.bad && c.n - c.pos >= 8) {
            rec->out_mask = ct_take_u(&c, 8);
            if (rec->nparams < 64 && (rec->out_mask >> rec->nparams) != 0) {
                *error = CT_TRACE_E_RECORD;
                return -1;
            }
        }
        /* 2.11: the source location; its root inside its file. */
        rec->src_file = NULL;
        if (!c.bad && c.n - c.pos >= 8) {
            rec->src_line = (uint32_t)ct_take_u(&c, 4);
            rec->src_root = (uint32_t)ct_take_u(&c, 4);
            rec->src_file = get_str(&c, &rec->src_file_len);
            if (c.bad || rec->src_root > rec->src_file_len) {
                *error = CT_TRACE_E_RECORD;
                return -1;
            }
        }
        break;
    }
    case CT_REC_THREAD:
    case CT_REC_CLASS:
        if (rec->type == CT_REC_THREAD)
            rec->tid = ct_take_u(&c, 8);
        else
            rec->key = ct_take_u(&c, 8);
        rec->name = get_str(&c, &rec->name_len);
        /* 2.3: a class's content plan, when the capture has one. */
        if (rec->type == CT_REC_CLASS && !c.bad && c.pos < c.n) {
            rec->content = get_opt_plan(&pr, 0);
            if (!c.bad && (!rec->content || (rec->content->kind != CT_V_CLASS &&
                                              rec->content->kind != CT_V_SEQ)))
                c.bad = 1;
        }
        break;
    case CT_REC_ENTER: case CT_REC_LEAVE: case CT_REC_TAILCALL: case CT_REC_UNWIND:
    case CT_REC_ASYNC_RETURN: case CT_REC_ASYNC_FAULT: case CT_REC_LOCALS: {
        rec->nvalues = (uint32_t)h[2] | (uint32_t)h[3] << 8;
        rec->time_ns = ct_take_u(&c, 8);
        rec->tid = ct_take_u(&c, 8);
        rec->key = ct_take_u(&c, 8);
        if (!before_held)
            rec->held_ns = ct_take_u(&c, 8);
        if (c.bad)
            break;
        rec->values = c.p + c.pos;
        rec->values_len = c.n - c.pos;
        /* The values must be exactly nvalues length-prefixed blobs. */
        size_t pos = 0;
        const uint8_t *v;
        uint32_t vl, k = 0;
        int st = 0;
        while (!c.bad && (st = ct_next_value(rec, &pos, &v, &vl, NULL)) == 1)
            k++;
        if (c.bad || st < 0 || k != rec->nvalues || pos != rec->values_len)
            c.bad = 1;
        if (rec->type == CT_REC_TAILCALL && rec->nvalues)
            c.bad = 1;
        /* LOCALS: value 0 is the frame's function key and its id (16
         * bytes). */
        if (rec->type == CT_REC_LOCALS && !c.bad && rec->nvalues &&
            ((pos = 0, ct_next_value(rec, &pos, &v, &vl, NULL) != 1) || vl != 16))
            c.bad = 1;
        c.pos = c.n;
        break;
    }
    case CT_REC_EVENTS:
        /* The events themselves are read one by one by ct_reader_next. */
        rec->tid = ct_take_u(&c, 8);
        rec->time_ns = ct_take_u(&c, 8);
        rec->key = ct_take_u(&c, 8);
        rec->values = c.p + c.pos;
        rec->values_len = c.n - c.pos;
        c.pos = c.n;
        break;
    case CT_REC_DROPPED:
    case CT_REC_HELD:
        rec->tid = ct_take_u(&c, 8);
        rec->count = ct_take_u(&c, 8);
        break;
    case CT_REC_BUDGET:
        rec->time_ns = ct_take_u(&c, 8);
        rec->key = ct_take_u(&c, 8);
        rec->tid = ct_take_u(&c, 8);
        rec->count = ct_take_u(&c, 8);
        rec->step = (uint32_t)ct_take_u(&c, 4);
        rec->share_permille = (uint32_t)ct_take_u(&c, 4);
        if (!c.bad && (rec->step > CT_BUDGET_REC_STEP_MAX || rec->share_permille > 1000)) {
            *error = CT_TRACE_E_RECORD;
            return -1;
        }
        break;
    case CT_REC_LINE:
        rec->time_ns = ct_take_u(&c, 8);
        rec->tid = ct_take_u(&c, 8);
        rec->key = ct_take_u(&c, 8);
        rec->src_line = (uint32_t)ct_take_u(&c, 4);
        rec->flags = (uint32_t)ct_take_u(&c, 4);
        if (!c.bad && (rec->flags & ~CT_LINE_THROWN)) {
            *error = CT_TRACE_E_RECORD;
            return -1;
        }
        break;
    case CT_REC_INJECT:
        rec->time_ns = ct_take_u(&c, 8);
        rec->tid = ct_take_u(&c, 8);
        rec->key = ct_take_u(&c, 8);
        rec->inject_index = (uint32_t)ct_take_u(&c, 4);
        rec->inject_action = (uint32_t)ct_take_u(&c, 4);
        if (!c.bad && (rec->inject_index >= CT_INJECT_MAX ||
                       rec->inject_action < CT_INJECT_THROW ||
                       rec->inject_action > CT_INJECT_DELAY)) {
            *error = CT_TRACE_E_RECORD;
            return -1;
        }
        break;
    case CT_REC_SEGMENT:
        rec->time_ns = ct_take_u(&c, 8);
        rec->key = ct_take_u(&c, 8);
        rec->count = ct_take_u(&c, 8);
        break;
    case CT_REC_ACTIVITY: {
        rec->time_ns = ct_take_u(&c, 8);
        rec->tid = ct_take_u(&c, 8);
        const uint8_t *ids = ct_take(&c, CT_ACTIVITY_ID_BYTES);
        if (ids) {
            memcpy(rec->trace_id, ids, CT_TRACE_ID_BYTES);
            memcpy(rec->span_id, ids + CT_TRACE_ID_BYTES, CT_SPAN_ID_BYTES);
        }
        break;
    }
    case CT_REC_JIT:
        rec->key = ct_take_u(&c, 8);
        rec->count = ct_take_u(&c, 8);
        rec->time_ns = ct_take_u(&c, 8);
        if (!c.bad && c.n - c.pos >= 8) /* 2.4: the compiling thread */
            rec->tid = ct_take_u(&c, 8);
        break;
    case CT_REC_ZSTD: {
        rec->count = ct_take_u(&c, 4);
        if (ct_take_u(&c, 4) != 0 || c.bad || c.pos == c.n) {
            *error = CT_TRACE_E_RECORD;
            return -1;
        }
        rec->values = c.p + c.pos;
        rec->values_len = c.n - c.pos;
        c.pos = c.n;
        break;
    }
    case CT_REC_END:
        rec->time_ns = ct_take_u(&c, 8);
        rec->count = ct_take_u(&c, 8);
        rec->mapped = ct_take_u(&c, 8);
        rec->traced = ct_take_u(&c, 8);
        /* 2.5: traced functions left as they were (IL engine) */
        rec->unrewritten = c.pos < c.n ? ct_take_u(&c, 8) : 0;
        break;
    default:
        *error = CT_TRACE_E_RECORD;
        return -1;
    }
    if (pr.nomem)
        *error = CT_TRACE_E_NOMEM;
    else if (pr.limit)
        *error = CT_TRACE_E_LIMIT;
    else if (c.bad || c.pos != c.n)
        *error = CT_TRACE_E_RECORD;
    if (*error)
        return -1;
    return (long)total;
}

long ct_read_record(const uint8_t *data, size_t len, uint64_t offset, ct_rarena *arena,
                    ct_rec *rec, ct_trace_status *error)
{
    return read_record(data, len, offset, arena, rec, error, 0);
}

/* A varint at r->data[*pos..end): 0, or -1 when cut or longer than 10 bytes. */
static int get_varint(const uint8_t *d, size_t *pos, size_t end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (*pos >= end)
            return -1;
        uint8_t b = d[(*pos)++];
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* The next event of the EVENTS block the reader is in. */
static int next_in_block(ct_reader *r, ct_rec *rec)
{
    const uint8_t *d = r->blk_data;
    size_t at = r->blk_pos, end = r->blk_end;
    memset(rec, 0, sizeof *rec);
    rec->offset = r->blk_base + at;
    uint8_t head = d[at++];
    uint64_t dt, dk, dh = 0, n = 0, len = 0;
    /* Bit 3 (2.7): the held time's difference follows. */
    uint8_t unknown = r->before_held ? 0xF8 : 0xF0;
    if ((head & unknown) || get_varint(d, &at, end, &dt) || get_varint(d, &at, end, &dk) ||
        ((head & 8) && get_varint(d, &at, end, &dh)))
        return fail(r, CT_TRACE_E_RECORD, rec->offset);
    rec->type = (ct_rec_type)(CT_REC_ENTER + (head & 3));
    rec->tid = r->blk_tid;
    rec->time_ns = r->blk_time + unzigzag(dt);
    rec->key = r->blk_key + unzigzag(dk);
    rec->held_ns = r->blk_held + unzigzag(dh);
    /* The held time never goes back on a thread, nor wraps. */
    if ((int64_t)unzigzag(dh) < 0 || rec->held_ns < r->blk_held)
        return fail(r, CT_TRACE_E_RECORD, rec->offset);
    if (head & 4) {
        if (get_varint(d, &at, end, &n) || get_varint(d, &at, end, &len) || len > end - at)
            return fail(r, CT_TRACE_E_RECORD, rec->offset);
        if (n > CT_MAX_PARAMS + 1)
            return fail(r, CT_TRACE_E_LIMIT, rec->offset);
        if (!n || rec->type == CT_REC_TAILCALL)
            return fail(r, CT_TRACE_E_RECORD, rec->offset);
        rec->nvalues = (uint32_t)n;
        rec->values = d + at;
        rec->values_len = (size_t)len;
        size_t pos = 0;
        const uint8_t *v;
        uint32_t vl, k = 0;
        int st;
        while ((st = ct_next_value(rec, &pos, &v, &vl, NULL)) == 1)
            k++;
        if (st < 0 || k != rec->nvalues)
            return fail(r, CT_TRACE_E_RECORD, rec->offset);
        at += (size_t)len;
    }
    r->blk_time = rec->time_ns;
    r->blk_key = rec->key;
    r->blk_held = rec->held_ns;
    r->blk_pos = at;
    if (at == end)
        r->in_block = 0;
    return 1;
}

/* Decompresses the ZSTD record rec (at file offset at) into the reader's
 * memory: 0, or -1 with the error set. */
static int open_zstd(ct_reader *r, const ct_rec *rec, uint64_t at)
{
    uint64_t want = rec->count;
    if (want > CT_MAX_ZBLOCK)
        return fail_zstd(r, CT_TRACE_E_LIMIT, at);
    if (want > r->zcap) {
        /* Grown to the largest block seen (the writer's are all alike). */
        uint8_t *z = realloc(r->z, (size_t)want);
        if (!z)
            return fail_zstd(r, CT_TRACE_E_NOMEM, at);
        r->z = z;
        r->zcap = (size_t)want;
    }
    if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
        return fail_zstd(r, CT_TRACE_E_NOMEM, at);
    /* Into a flat buffer of exactly the announced size: zstd allocates no
     * window for that, and a frame that holds more or less is damaged. */
    size_t got = ZSTD_decompressDCtx(r->dctx, r->z, (size_t)want, rec->values, rec->values_len);
    if (ZSTD_isError(got) || got != want)
        return fail_zstd(r, CT_TRACE_E_RECORD, at);
    r->zstd_records++;
    r->z_at = at;
    r->z_base = at + r->shift;
    r->zlen = (size_t)want;
    r->zpos = 0;
    r->in_zstd = 1;
    return 0;
}

/* A record read at data[0..) (stream offset off) that holds more: an END
 * noted, an EVENTS block entered. 1: hand rec out; 0: an empty block, read
 * on. */
static int took(ct_reader *r, ct_rec *rec, const uint8_t *data, uint64_t off)
{
    if (rec->type == CT_REC_END)
        r->ended = 1;
    if (rec->type != CT_REC_EVENTS)
        return 1;
    if (!rec->values_len)
        return 0;
    r->in_block = 1;
    r->blk_data = data;
    r->blk_base = off;
    r->blk_pos = (size_t)(rec->values - data);
    r->blk_end = r->blk_pos + rec->values_len;
    r->blk_tid = rec->tid;
    r->blk_time = rec->time_ns;
    r->blk_key = rec->key;
    r->blk_held = 0;
    return 1;
}

int ct_reader_next(ct_reader *r, ct_rec *rec)
{
    if (r->error)
        return -1;
    if (r->in_block)
        return next_in_block(r, rec);
    for (;;) {
        ct_trace_status st;
        if (r->in_zstd) {
            if (r->zpos == r->zlen) {
                r->in_zstd = 0;
                continue;
            }
            uint64_t off = r->z_base + r->zpos;
            long n = read_record(r->z + r->zpos, r->zlen - r->zpos, off, r->arena, rec, &st,
                                 r->before_held);
            if (n <= 0 || rec->type == CT_REC_ZSTD) /* whole records, never a ZSTD one */
                return fail(r, n < 0 ? st : CT_TRACE_E_RECORD, off);
            r->zpos += (size_t)n;
            if (!took(r, rec, r->z, r->z_base))
                continue;
            return r->in_block ? next_in_block(r, rec) : 1;
        }
        uint64_t at = r->pos;
        if (r->pos == r->len) {
            /* The file ends between records: whole, or cut there. */
            if (!r->ended)
                r->cut_offset = at, r->incomplete = 1;
            return 0;
        }
        long n = read_record(r->data + r->pos, r->len - r->pos, at + r->shift, r->arena, rec,
                             &st, r->before_held);
        if (n < 0)
            return fail(r, st, at + r->shift);
        if (n == 0) {
            /* Less than one whole record is left: the writer was stopped
             * (the process killed or crashed) in the middle of it. What
             * came before stands. */
            r->cut_offset = at;
            r->incomplete = 1;
            r->pos = r->len;
            return 0;
        }
        r->pos += (size_t)n;
        if (rec->type == CT_REC_ZSTD) {
            if (open_zstd(r, rec, at) != 0)
                return -1;
            /* The records replace the ZSTD record in the stream. */
            r->shift += r->zlen - (uint64_t)n;
            continue;
        }
        if (!took(r, rec, r->data, r->shift))
            continue;
        return r->in_block ? next_in_block(r, rec) : 1;
    }
}

void ct_reader_close(ct_reader *r)
{
    free(r->z);
    ZSTD_freeDCtx(r->dctx);
    r->z = NULL;
    r->dctx = NULL;
    r->zcap = r->zlen = r->zpos = 0;
    r->in_zstd = r->in_block = 0;
}

int ct_next_value(const ct_rec *r, size_t *pos, const uint8_t **value, uint32_t *len,
                  ct_value_status *status)
{
    if (*pos == r->values_len)
        return 0;
    if (r->values_len - *pos < 4)
        return -1;
    const uint8_t *p = r->values + *pos;
    uint32_t word = ct_get_le32(p);
    uint32_t n = word & CT_VALUE_LEN_MASK, st = word >> CT_VALUE_STATUS_SHIFT;
    if (n > r->values_len - *pos - 4 || st > CT_VALUE_STATUS_MAX)
        return -1;
    *value = p + 4;
    *len = n;
    if (status)
        *status = (ct_value_status)st;
    *pos += 4 + n;
    return 1;
}

const ct_plan *ct_unwind_plan(uint32_t i)
{
    static const ct_plan plans[CT_UNWIND_NODE_VALUES] = {
        {.kind = CT_V_OBJECT, .size = 8, .type_name = "System.Exception"},
        {.kind = CT_V_STRING, .size = 8, .type_name = "string"},
        {.kind = CT_V_U4, .size = 4, .type_name = "uint"},
    };
    return i < CT_UNWIND_NODE_VALUES * (1 + CT_UNWIND_CHAIN_MAX) ? &plans[i % CT_UNWIND_NODE_VALUES]
                                                                 : NULL;
}

/* An exception's object value (OBJECT plan: address, class id): 0, or -1. */
static int exc_object(const uint8_t *v, uint32_t len, ct_value_status st, ct_exc_node *x)
{
    if (st != CT_VALUE_PLAN || len != 16)
        return -1;
    x->object = ct_get_le64(v);
    x->class_id = ct_get_le64(v + 8);
    return 0;
}

/* Its message value: read (a STRING value of at least its address) or not. */
static void exc_message(const uint8_t *v, uint32_t len, ct_value_status st, ct_exc_node *x)
{
    int read = st == CT_VALUE_PLAN && len >= 8;
    x->message = read ? v : NULL;
    x->message_len = read ? len : 0;
    x->message_status = read ? CT_VALUE_PLAN : CT_VALUE_MISSING;
}

/* Its node word (U4 plan): 0, or -1. */
static int exc_word(const uint8_t *v, uint32_t len, ct_value_status st, ct_exc_node *x)
{
    if (st != CT_VALUE_PLAN || len != 4)
        return -1;
    uint32_t w = ct_get_le32(v);
    x->depth = w & CT_EXC_NODE_DEPTH_MASK;
    x->aggregate = (w & CT_EXC_NODE_AGGREGATE) != 0;
    x->inner = w >> CT_EXC_NODE_INNER_SHIFT;
    return 0;
}

/* A damaged chain: the thrown exception alone. */
static int chain_damaged(ct_exc_node *nodes, uint32_t *n)
{
    nodes[0].kept = 0;
    *n = 1;
    return -1;
}

int ct_unwind_chain(const ct_rec *r, ct_exc_node *nodes, uint32_t cap, uint32_t *n)
{
    size_t pos = 0;
    const uint8_t *v;
    uint32_t len;
    ct_value_status st;
    *n = 0;
    if (!cap || (r->type != CT_REC_UNWIND && r->type != CT_REC_ASYNC_FAULT) ||
        ct_next_value(r, &pos, &v, &len, &st) != 1)
        return 0;
    ct_exc_node *top = &nodes[0];
    memset(top, 0, sizeof *top);
    if (exc_object(v, len, st, top) < 0)
        return 0;
    *n = 1;
    top->message_status = CT_VALUE_MISSING;
    int k = ct_next_value(r, &pos, &v, &len, &st);
    if (k < 0)
        return chain_damaged(nodes, n);
    if (k == 0)
        return 1; /* the class alone */
    exc_message(v, len, st, top);
    k = ct_next_value(r, &pos, &v, &len, &st);
    if (k == 0)
        return 1; /* a trace before 2.6 */
    if (k < 0 || exc_word(v, len, st, top) < 0 || top->depth != 0)
        return chain_damaged(nodes, n);
    /* The inner exceptions, in preorder: each one's depth at most one more
     * than the exception before it; none more than its parent has. */
    uint32_t parent[256];
    parent[0] = 0;
    for (;;) {
        ct_exc_node x = {0};
        if ((k = ct_next_value(r, &pos, &v, &len, &st)) == 0)
            break;
        if (k < 0 || exc_object(v, len, st, &x) < 0 ||
            ct_next_value(r, &pos, &v, &len, &st) != 1)
            return chain_damaged(nodes, n);
        exc_message(v, len, st, &x);
        if (ct_next_value(r, &pos, &v, &len, &st) != 1 || exc_word(v, len, st, &x) < 0 ||
            x.depth == 0 || x.depth > nodes[*n - 1].depth + 1 || *n >= cap)
            return chain_damaged(nodes, n);
        ct_exc_node *up = &nodes[parent[x.depth - 1]];
        if (up->kept >= up->inner)
            return chain_damaged(nodes, n);
        up->kept++;
        parent[x.depth] = *n;
        nodes[(*n)++] = x;
    }
    return 1;
}
