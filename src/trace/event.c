/* The binary trace format (docs/trace-format.md): writers that append whole
 * records to a caller's buffer, and a reader that checks every length. */
#include <string.h>

#include "clrtrace/event.h"

#define REC_HEADER 8 /* u8 type, u8 reserved, u16 value count (events) or 0, u32 payload length */
#define REC_ALIGN 8  /* records start at multiples of 8; zero bytes pad the gaps */

static inline size_t align8(size_t n)
{
    return (n + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1);
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

/* Little-endian stores: a plain store on little-endian hosts. */
static inline void le32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 4);
#else
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static inline void le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static void put_u8(ct_wbuf *w, uint8_t v) { put(w, &v, 1); }
static void put_u16(ct_wbuf *w, uint16_t v) { uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(w, b, 2); }

static void put_u32(ct_wbuf *w, uint32_t v)
{
    uint8_t b[4];
    le32(b, v);
    put(w, b, 4);
}

static void put_u64(ct_wbuf *w, uint64_t v)
{
    uint8_t b[8];
    le64(b, v);
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
    le32(w->p + at, v);
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

static void put_plan(ct_wbuf *w, const ct_plan *p, unsigned depth)
{
    if (depth > CT_MAX_PLAN_DEPTH) {
        w->overflow = 1;
        return;
    }
    put_u8(w, (uint8_t)p->kind);
    put_u8(w, (uint8_t)(p->is_flags ? 1 : 0));
    put_u8(w, (uint8_t)p->underlying);
    put_u8(w, 0);
    put_u32(w, p->size);
    put_str(w, p->type_name);
    switch (p->kind) {
    case CT_V_STRUCT:
        put_u32(w, p->count);
        for (uint32_t i = 0; i < p->count; i++) {
            put_str(w, p->fields[i].name);
            put_u32(w, p->fields[i].offset);
            put_plan(w, p->fields[i].plan, depth + 1);
        }
        break;
    case CT_V_ENUM:
        put_u32(w, p->count);
        for (uint32_t i = 0; i < p->count; i++) {
            put_str(w, p->items[i].name);
            put_u64(w, p->items[i].value);
        }
        break;
    case CT_V_ARRAY: case CT_V_BYREF: case CT_V_NULLABLE:
        put_u32(w, p->value_offset);
        put_u8(w, p->elem ? 1 : 0);
        if (p->elem)
            put_plan(w, p->elem, depth + 1);
        break;
    default:
        break;
    }
}

ct_trace_status ct_write_function(ct_wbuf *w, uint64_t key, const char *name, const char *sig,
                                  uint32_t flags, uint32_t nparams, const ct_fn_param *params,
                                  const ct_fn_param *ret)
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

ct_trace_status ct_write_dropped(ct_wbuf *w, uint64_t tid, uint64_t count)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_DROPPED);
    put_u64(w, tid);
    put_u64(w, count);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_end(ct_wbuf *w, uint64_t time_ns, uint64_t events, uint64_t mapped,
                             uint64_t traced)
{
    size_t undo = w->len, at = rec_begin(w, CT_REC_END);
    put_u64(w, time_ns);
    put_u64(w, events);
    put_u64(w, mapped);
    put_u64(w, traced);
    return rec_end(w, at, undo);
}

ct_trace_status ct_event_begin(ct_wbuf *w, ct_rec_type type, uint64_t time_ns, uint64_t tid,
                               uint64_t key, ct_event_mark *m)
{
    m->start = w->len;
    m->nvalues = 0;
    if (w->overflow || CT_EVENT_BASE_BYTES > w->cap - w->len)
        return CT_TRACE_E_SPACE;
    /* The hooks' path: one bounds check, fixed stores. The value count
     * (bytes 2-3) and the length are patched by ct_event_end. */
    uint8_t *p = w->p + w->len;
    p[0] = (uint8_t)type;
    p[1] = p[2] = p[3] = 0;
    le32(p + 4, CT_EVENT_BASE_BYTES - REC_HEADER);
    le64(p + 8, time_ns);
    le64(p + 16, tid);
    le64(p + 24, key);
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

void ct_event_set_time(ct_wbuf *w, const ct_event_mark *m, uint64_t time_ns)
{
    if (m->start + REC_HEADER + 8 > w->len)
        return;
    le64(w->p + m->start + REC_HEADER, time_ns);
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
    w->p[m->start + 2] = (uint8_t)m->nvalues;
    w->p[m->start + 3] = (uint8_t)(m->nvalues >> 8);
    patch_u32(w, m->start + 4, (uint32_t)plen);
    return CT_TRACE_OK;
}

/* ---------------------------------------------------------- EVENTS blocks */

#define EVENTS_HEADER 24 /* u64 tid, u64 base time, u64 base key */

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

static uint64_t zigzag(uint64_t delta)
{
    int64_t v = (int64_t)delta;
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
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
    le32(p + 4, EVENTS_HEADER);
    le64(p + 8, tid);
    le64(p + 16, base_time);
    le64(p + 24, base_key);
    w->len += REC_HEADER + EVENTS_HEADER;
    m->tid = tid;
    m->time = base_time;
    m->key = base_key;
    m->open = 1;
    return CT_TRACE_OK;
}

ct_trace_status ct_events_add(ct_wbuf *w, ct_events_mark *m, ct_rec_type type, uint64_t time_ns,
                              uint64_t key, uint32_t nvalues, const uint8_t *values,
                              size_t values_len)
{
    if (!m->open || type < CT_REC_ENTER || type > CT_REC_UNWIND || nvalues > CT_MAX_PARAMS + 1)
        return CT_TRACE_E_SPACE;
    size_t need = CT_EVENTS_MAX_OVERHEAD + (nvalues ? values_len : 0);
    size_t payload = w->len - m->start - REC_HEADER;
    if (w->overflow || need > w->cap - w->len || payload + need > CT_MAX_RECORD)
        return CT_TRACE_E_SPACE;
    uint8_t *p = w->p + w->len;
    size_t n = 0;
    p[n++] = (uint8_t)((type - CT_REC_ENTER) | (nvalues ? 4 : 0));
    n += put_varint(p + n, zigzag(time_ns - m->time));
    n += put_varint(p + n, zigzag(key - m->key));
    if (nvalues) {
        n += put_varint(p + n, nvalues);
        n += put_varint(p + n, values_len);
        memcpy(p + n, values, values_len);
        n += values_len;
    }
    w->len += n;
    m->time = time_ns;
    m->key = key;
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

/* ------------------------------------------------------------------ reading */

typedef struct cur {
    const uint8_t *p;
    size_t n, pos;
    int bad;
} cur;

static const uint8_t *get(cur *c, size_t k)
{
    if (c->bad || k > c->n - c->pos) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *p = c->p + c->pos;
    c->pos += k;
    return p;
}

static uint64_t get_u(cur *c, size_t k)
{
    const uint8_t *p = get(c, k);
    uint64_t v = 0;
    if (p)
        for (size_t i = 0; i < k; i++)
            v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static const char *get_str(cur *c, uint32_t *len)
{
    uint32_t n = (uint32_t)get_u(c, 4);
    if (n > CT_MAX_STRING)
        c->bad = 1;
    const uint8_t *p = get(c, n);
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
    cur *c;
    ct_rarena *a;
    unsigned nodes;
    int nomem, limit;
} plan_rd;

static const ct_plan *get_plan(plan_rd *r, unsigned depth)
{
    cur *c = r->c;
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
    p->kind = (ct_vkind)get_u(c, 1);
    p->is_flags = (int)get_u(c, 1);
    p->underlying = (ct_vkind)get_u(c, 1);
    get_u(c, 1);
    p->size = (uint32_t)get_u(c, 4);
    uint32_t n;
    const char *s = get_str(c, &n);
    p->type_name = rstr(r->a, s, n, &r->nomem);
    if (c->bad)
        return NULL;
    if ((unsigned)p->kind > CT_V_ELIDED || (unsigned)p->underlying > CT_V_OPAQUE ||
        p->size > CT_MAX_RECORD) {
        c->bad = 1;
        return NULL;
    }
    switch (p->kind) {
    case CT_V_STRUCT: {
        p->count = (uint32_t)get_u(c, 4);
        /* each field takes at least 4 + 4 + 12 bytes */
        if (c->bad || p->count > (c->n - c->pos) / 20) {
            c->bad = 1;
            return NULL;
        }
        ct_field *f = ralloc(r->a, (size_t)p->count * sizeof *f);
        if (!f && p->count) {
            r->nomem = 1;
            c->bad = 1;
            return NULL;
        }
        for (uint32_t i = 0; i < p->count && !c->bad; i++) {
            s = get_str(c, &n);
            f[i].name = rstr(r->a, s, n, &r->nomem);
            f[i].offset = (uint32_t)get_u(c, 4);
            f[i].plan = get_plan(r, depth + 1);
            if (f[i].plan && (uint64_t)f[i].offset + f[i].plan->size > p->size &&
                f[i].plan->kind != CT_V_VOID)
                c->bad = 1; /* a field outside its struct would read past the capture */
        }
        p->fields = f;
        break;
    }
    case CT_V_ENUM: {
        p->count = (uint32_t)get_u(c, 4);
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
            it[i].value = get_u(c, 8);
        }
        p->items = it;
        break;
    }
    case CT_V_ARRAY: case CT_V_BYREF: case CT_V_NULLABLE:
        p->value_offset = (uint32_t)get_u(c, 4);
        if (get_u(c, 1))
            p->elem = get_plan(r, depth + 1);
        break;
    default:
        break;
    }
    return c->bad ? NULL : p;
}

static int fail(ct_reader *r, ct_trace_status st, uint64_t at)
{
    r->error = st;
    r->error_offset = at;
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
    cur c = { data, len, 8, 0 };
    r->header.major = (uint16_t)get_u(&c, 2);
    r->header.minor = (uint16_t)get_u(&c, 2);
    if (r->header.major != CT_TRACE_VERSION_MAJOR) {
        fail(r, CT_TRACE_E_VERSION, 8);
        return r->error;
    }
    uint32_t hlen = (uint32_t)get_u(&c, 4);
    if (c.bad || hlen > len - c.pos) {
        fail(r, CT_TRACE_E_TRUNCATED, 12);
        return r->error;
    }
    cur h = { data + c.pos, hlen, 0, 0 };
    r->header.pid = (uint32_t)get_u(&h, 4);
    r->header.start_unix_ns = get_u(&h, 8);
    r->header.cmdline = get_str(&h, &r->header.cmdline_len);
    r->header.filter = get_str(&h, &r->header.filter_len);
    r->header.settings = get_str(&h, &r->header.settings_len);
    /* 2.1 added the parent's pid; older minors end here. */
    if (!h.bad && r->header.minor >= 1)
        r->header.ppid = (uint32_t)get_u(&h, 4);
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
    cur c = { data, len, 8, 0 };
    uint16_t major = (uint16_t)get_u(&c, 2);
    get_u(&c, 2);
    uint32_t hlen = (uint32_t)get_u(&c, 4);
    if (c.bad || major != CT_TRACE_VERSION_MAJOR || hlen > CT_MAX_HEADER - CT_TRACE_PREFIX_BYTES)
        return 0;
    return align8(CT_TRACE_PREFIX_BYTES + (size_t)hlen);
}

long ct_read_record(const uint8_t *data, size_t len, uint64_t offset, ct_rarena *arena,
                    ct_rec *rec, ct_trace_status *error)
{
    *error = CT_TRACE_OK;
    if (len < REC_HEADER)
        return 0;
    const uint8_t *h = data;
    uint32_t plen = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
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
    int is_event = ct_rec_is_event(rec->type);
    int bad_pad = h[1] != 0 || (!is_event && (h[2] || h[3]));
    for (size_t i = REC_HEADER + plen; i < total; i++)
        bad_pad |= h[i] != 0;
    if (bad_pad) {
        *error = CT_TRACE_E_RECORD;
        return -1;
    }
    cur c = { h + REC_HEADER, plen, 0, 0 };
    plan_rd pr = { &c, arena, 0, 0, 0 };
    switch (rec->type) {
    case CT_REC_FUNCTION: {
        rec->key = get_u(&c, 8);
        rec->flags = (uint32_t)get_u(&c, 4);
        rec->name = get_str(&c, &rec->name_len);
        rec->sig = get_str(&c, &rec->sig_len);
        rec->nparams = (uint32_t)get_u(&c, 4);
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
        break;
    }
    case CT_REC_THREAD:
    case CT_REC_CLASS:
        if (rec->type == CT_REC_THREAD)
            rec->tid = get_u(&c, 8);
        else
            rec->key = get_u(&c, 8);
        rec->name = get_str(&c, &rec->name_len);
        break;
    case CT_REC_ENTER: case CT_REC_LEAVE: case CT_REC_TAILCALL: case CT_REC_UNWIND: {
        rec->nvalues = (uint32_t)h[2] | (uint32_t)h[3] << 8;
        rec->time_ns = get_u(&c, 8);
        rec->tid = get_u(&c, 8);
        rec->key = get_u(&c, 8);
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
        if ((rec->type == CT_REC_TAILCALL || rec->type == CT_REC_UNWIND) && rec->nvalues)
            c.bad = 1;
        c.pos = c.n;
        break;
    }
    case CT_REC_EVENTS:
        /* The events themselves are read one by one by ct_reader_next. */
        rec->tid = get_u(&c, 8);
        rec->time_ns = get_u(&c, 8);
        rec->key = get_u(&c, 8);
        rec->values = c.p + c.pos;
        rec->values_len = c.n - c.pos;
        c.pos = c.n;
        break;
    case CT_REC_DROPPED:
        rec->tid = get_u(&c, 8);
        rec->count = get_u(&c, 8);
        break;
    case CT_REC_END:
        rec->time_ns = get_u(&c, 8);
        rec->count = get_u(&c, 8);
        rec->mapped = get_u(&c, 8);
        rec->traced = get_u(&c, 8);
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
    size_t at = r->blk_pos, end = r->blk_end;
    memset(rec, 0, sizeof *rec);
    rec->offset = at;
    uint8_t head = r->data[at++];
    uint64_t dt, dk, n = 0, len = 0;
    if ((head & 0xF8) || get_varint(r->data, &at, end, &dt) || get_varint(r->data, &at, end, &dk))
        return fail(r, CT_TRACE_E_RECORD, rec->offset);
    rec->type = (ct_rec_type)(CT_REC_ENTER + (head & 3));
    rec->tid = r->blk_tid;
    rec->time_ns = r->blk_time + unzigzag(dt);
    rec->key = r->blk_key + unzigzag(dk);
    if (head & 4) {
        if (get_varint(r->data, &at, end, &n) || get_varint(r->data, &at, end, &len) ||
            len > end - at)
            return fail(r, CT_TRACE_E_RECORD, rec->offset);
        if (n > CT_MAX_PARAMS + 1)
            return fail(r, CT_TRACE_E_LIMIT, rec->offset);
        if (!n || rec->type == CT_REC_TAILCALL || rec->type == CT_REC_UNWIND)
            return fail(r, CT_TRACE_E_RECORD, rec->offset);
        rec->nvalues = (uint32_t)n;
        rec->values = r->data + at;
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
    r->blk_pos = at;
    if (at == end)
        r->in_block = 0;
    return 1;
}

int ct_reader_next(ct_reader *r, ct_rec *rec)
{
    if (r->error)
        return -1;
    if (r->in_block)
        return next_in_block(r, rec);
    for (;;) {
        uint64_t at = r->pos;
        if (r->pos == r->len) {
            /* The file ends between records: whole, or cut there. */
            if (!r->ended)
                r->cut_offset = at, r->incomplete = 1;
            return 0;
        }
        ct_trace_status st;
        long n = ct_read_record(r->data + r->pos, r->len - r->pos, at, r->arena, rec, &st);
        if (n < 0)
            return fail(r, st, at);
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
        if (rec->type == CT_REC_END)
            r->ended = 1;
        if (rec->type != CT_REC_EVENTS)
            return 1;
        if (!rec->values_len)
            continue; /* an empty block */
        r->in_block = 1;
        r->blk_pos = (size_t)(rec->values - r->data);
        r->blk_end = r->blk_pos + rec->values_len;
        r->blk_tid = rec->tid;
        r->blk_time = rec->time_ns;
        r->blk_key = rec->key;
        return next_in_block(r, rec);
    }
}

int ct_next_value(const ct_rec *r, size_t *pos, const uint8_t **value, uint32_t *len,
                  ct_value_status *status)
{
    if (*pos == r->values_len)
        return 0;
    if (r->values_len - *pos < 4)
        return -1;
    const uint8_t *p = r->values + *pos;
    uint32_t word = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
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
