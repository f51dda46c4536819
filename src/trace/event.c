/* The binary trace format (docs/trace-format.md): writers that append whole
 * records to a caller's buffer, and a reader that checks every length. */
#include <string.h>

#include "clrtrace/event.h"

#define REC_HEADER 8 /* u8 type, u8 reserved, u16 reserved, u32 payload length */

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

static void put_u8(ct_wbuf *w, uint8_t v) { put(w, &v, 1); }
static void put_u16(ct_wbuf *w, uint16_t v) { uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(w, b, 2); }

static void put_u32(ct_wbuf *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 4);
}

static void put_u64(ct_wbuf *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
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
    for (int i = 0; i < 4; i++)
        w->p[at + i] = (uint8_t)(v >> (8 * i));
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

static ct_trace_status rec_end(ct_wbuf *w, size_t at, size_t undo)
{
    if (w->overflow || w->len - at - REC_HEADER > CT_MAX_RECORD) {
        w->len = undo;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    patch_u32(w, at + 4, (uint32_t)(w->len - at - REC_HEADER));
    return CT_TRACE_OK;
}

ct_trace_status ct_write_header(ct_wbuf *w, uint32_t pid, uint64_t start_unix_ns,
                                const char *cmdline, const char *filter)
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
    if (w->overflow) {
        w->len = undo;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    patch_u32(w, len_at, (uint32_t)(w->len - len_at - 4));
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
                                  const ct_plan *ret)
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
        put_plan(w, params[i].plan, 0);
    }
    put_plan(w, ret ? ret : &void_plan, 0);
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

static ct_trace_status write_counts(ct_wbuf *w, ct_rec_type t, uint64_t a, uint64_t b)
{
    size_t undo = w->len, at = rec_begin(w, t);
    put_u64(w, a);
    put_u64(w, b);
    return rec_end(w, at, undo);
}

ct_trace_status ct_write_dropped(ct_wbuf *w, uint64_t tid, uint64_t count)
{
    return write_counts(w, CT_REC_DROPPED, tid, count);
}

ct_trace_status ct_write_end(ct_wbuf *w, uint64_t time_ns, uint64_t events)
{
    return write_counts(w, CT_REC_END, time_ns, events);
}

ct_trace_status ct_event_begin(ct_wbuf *w, ct_rec_type type, uint64_t time_ns, uint64_t tid,
                               uint64_t key, ct_event_mark *m)
{
    m->start = w->len;
    m->nvalues = 0;
    rec_begin(w, type);
    put_u64(w, time_ns);
    put_u64(w, tid);
    put_u64(w, key);
    put_u32(w, 0); /* value count, patched at the end */
    if (w->overflow) {
        w->len = m->start;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
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

void ct_event_value_commit(ct_wbuf *w, ct_event_mark *m, size_t used)
{
    if (w->overflow)
        return;
    patch_u32(w, w->len, (uint32_t)used);
    w->len += 4 + used;
    m->nvalues++;
}

ct_trace_status ct_event_end(ct_wbuf *w, ct_event_mark *m)
{
    if (w->overflow) {
        w->len = m->start;
        w->overflow = 0;
        return CT_TRACE_E_SPACE;
    }
    patch_u32(w, m->start + REC_HEADER + 24, m->nvalues);
    patch_u32(w, m->start + 4, (uint32_t)(w->len - m->start - REC_HEADER));
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
    if ((unsigned)p->kind > CT_V_OPAQUE || (unsigned)p->underlying > CT_V_OPAQUE ||
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
    if (h.bad) {
        fail(r, CT_TRACE_E_RECORD, 16);
        return r->error;
    }
    r->pos = c.pos + hlen;
    return CT_TRACE_OK;
}

int ct_reader_next(ct_reader *r, ct_rec *rec)
{
    if (r->error)
        return -1;
    if (r->pos == r->len)
        return 0;
    uint64_t at = r->pos;
    if (r->len - r->pos < REC_HEADER)
        return fail(r, CT_TRACE_E_TRUNCATED, at);
    const uint8_t *h = r->data + r->pos;
    uint32_t plen = (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
    if (plen > CT_MAX_RECORD)
        return fail(r, CT_TRACE_E_LIMIT, at);
    if (plen > r->len - r->pos - REC_HEADER)
        return fail(r, CT_TRACE_E_TRUNCATED, at);
    memset(rec, 0, sizeof *rec);
    rec->type = (ct_rec_type)h[0];
    rec->offset = at;
    cur c = { h + REC_HEADER, plen, 0, 0 };
    plan_rd pr = { &c, r->arena, 0, 0, 0 };
    switch (rec->type) {
    case CT_REC_FUNCTION: {
        rec->key = get_u(&c, 8);
        rec->flags = (uint32_t)get_u(&c, 4);
        rec->name = get_str(&c, &rec->name_len);
        rec->sig = get_str(&c, &rec->sig_len);
        rec->nparams = (uint32_t)get_u(&c, 4);
        if (c.bad)
            break;
        if (rec->nparams > CT_MAX_PARAMS + 1)
            return fail(r, CT_TRACE_E_LIMIT, at);
        if (rec->nparams > (c.n - c.pos) / 16)
            return fail(r, CT_TRACE_E_RECORD, at);
        rec->params = ralloc(r->arena, (size_t)rec->nparams * sizeof *rec->params + 1);
        if (!rec->params)
            return fail(r, CT_TRACE_E_NOMEM, at);
        for (uint32_t i = 0; i < rec->nparams && !c.bad; i++) {
            rec->params[i].name = get_str(&c, &rec->params[i].name_len);
            rec->params[i].plan = get_plan(&pr, 0);
        }
        rec->ret.name = "";
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
        rec->time_ns = get_u(&c, 8);
        rec->tid = get_u(&c, 8);
        rec->key = get_u(&c, 8);
        rec->nvalues = (uint32_t)get_u(&c, 4);
        rec->values = c.p + c.pos;
        rec->values_len = c.n - c.pos;
        /* The values must be exactly nvalues length-prefixed blobs. */
        size_t pos = 0;
        const uint8_t *v;
        uint32_t vl, k = 0;
        int st;
        while (!c.bad && (st = ct_next_value(rec, &pos, &v, &vl)) == 1)
            k++;
        if (c.bad || st < 0 || k != rec->nvalues || pos != rec->values_len)
            c.bad = 1;
        c.pos = c.n;
        break;
    }
    case CT_REC_DROPPED:
        rec->tid = get_u(&c, 8);
        rec->count = get_u(&c, 8);
        break;
    case CT_REC_END:
        rec->time_ns = get_u(&c, 8);
        rec->count = get_u(&c, 8);
        break;
    default:
        return fail(r, CT_TRACE_E_RECORD, at);
    }
    if (pr.nomem)
        return fail(r, CT_TRACE_E_NOMEM, at);
    if (pr.limit)
        return fail(r, CT_TRACE_E_LIMIT, at);
    if (c.bad || c.pos != c.n)
        return fail(r, CT_TRACE_E_RECORD, at);
    r->pos += REC_HEADER + plen;
    return 1;
}

int ct_next_value(const ct_rec *r, size_t *pos, const uint8_t **value, uint32_t *len)
{
    if (*pos == r->values_len)
        return 0;
    if (r->values_len - *pos < 4)
        return -1;
    const uint8_t *p = r->values + *pos;
    uint32_t n = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if (n > r->values_len - *pos - 4)
        return -1;
    *value = p + 4;
    *len = n;
    *pos += 4 + n;
    return 1;
}
