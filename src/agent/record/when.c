/* Conditions (--when) evaluated in the enter hook (record.h,
 * ct_rec_when_holds): each path of a bound condition (model/when.h) read
 * from the argument slots the capture collected, through the same plans
 * and object layouts: struct fields by their plan, objects by their
 * runtime class's content plan (fields by name, the field found cached per
 * path segment and class), string and array lengths, collection counts.
 * No managed code, no allocation, no lock; at most CT_EXPR_MAX_SEGMENTS
 * hops per path, each object's class checked. */
#include "record.h"

#include <stdatomic.h>

/* The value of plan p at addr (the slot as passed: a reference or the value
 * itself) as the evaluator compares it. */
static void to_xval(ct_tbuf *b, const ct_plan *p, uintptr_t addr, ct_xval *out, unsigned depth);

/* A primitive kind's bytes at src as a value. */
static int scalar(ct_vkind k, const uint8_t *src, ct_xval *out)
{
    switch (k) {
    case CT_V_BOOL: out->kind = CT_XV_BOOL; out->b = src[0] != 0; return 1;
    case CT_V_CHAR: { uint16_t v; memcpy(&v, src, 2); out->kind = CT_XV_UINT; out->u = v; return 1; }
    case CT_V_I1: out->kind = CT_XV_INT; out->i = (int8_t)src[0]; return 1;
    case CT_V_U1: out->kind = CT_XV_UINT; out->u = src[0]; return 1;
    case CT_V_I2: { int16_t v; memcpy(&v, src, 2); out->kind = CT_XV_INT; out->i = v; return 1; }
    case CT_V_U2: { uint16_t v; memcpy(&v, src, 2); out->kind = CT_XV_UINT; out->u = v; return 1; }
    case CT_V_I4: { int32_t v; memcpy(&v, src, 4); out->kind = CT_XV_INT; out->i = v; return 1; }
    case CT_V_U4: { uint32_t v; memcpy(&v, src, 4); out->kind = CT_XV_UINT; out->u = v; return 1; }
    case CT_V_I8: case CT_V_I: { int64_t v; memcpy(&v, src, 8); out->kind = CT_XV_INT; out->i = v; return 1; }
    case CT_V_U8: case CT_V_U: { uint64_t v; memcpy(&v, src, 8); out->kind = CT_XV_UINT; out->u = v; return 1; }
    case CT_V_R4: { float v; memcpy(&v, src, 4); out->kind = CT_XV_DOUBLE; out->d = v; return 1; }
    case CT_V_R8: { double v; memcpy(&v, src, 8); out->kind = CT_XV_DOUBLE; out->d = v; return 1; }
    case CT_V_DECIMAL:
        if (ct_xdec_from_bytes(src, &out->dec) != 0)
            return 0;
        out->kind = CT_XV_DECIMAL;
        return 1;
    default:
        return 0;
    }
}

static uint64_t load_ref(uintptr_t addr)
{
    uint64_t v;
    memcpy(&v, (const void *)addr, 8);
    return v;
}

static int32_t load_i32(uintptr_t addr)
{
    int32_t v;
    memcpy(&v, (const void *)addr, 4);
    return v;
}

/* A string object's characters as a value. */
static void string_value(uint64_t obj, ct_xval *out)
{
    int32_t len = load_i32((uintptr_t)obj + g_rec.layout.string_length_offset);
    if (len < 0)
        return;
    out->kind = CT_XV_STRING;
    out->len = (uint32_t)len;
    out->chars = (const uint16_t *)(uintptr_t)(obj + g_rec.layout.string_chars_offset);
}

/* Where a byref's target may be read: in this thread's stack only (a
 * local; elsewhere it may point anywhere). 0: not here. */
static uintptr_t byref_target(ct_tbuf *b, uintptr_t slot)
{
    const ct_rec_thread *t = ct_rec_of(b);
    uintptr_t target = (uintptr_t)load_ref(slot);
    return target && target >= t->stack_lo && target + 8 <= t->stack_hi ? target : 0;
}

static void to_xval(ct_tbuf *b, const ct_plan *p, uintptr_t addr, ct_xval *out, unsigned depth)
{
    out->kind = CT_XV_UNKNOWN;
    if (!p || !addr || depth > CT_MAX_VALUE_DEPTH)
        return;
    switch (p->kind) {
    case CT_V_ENUM: {
        uint8_t raw[8] = {0};
        uint32_t size = ct_vkind_size(p->underlying);
        if (!size || size > 8)
            return;
        memcpy(raw, (const void *)addr, size);
        uint64_t v;
        memcpy(&v, raw, 8);
        out->kind = CT_XV_ENUM;
        out->u = v;
        out->items = p->items;
        out->nitems = p->count;
        out->enum_size = (uint8_t)size;
        out->enum_signed = p->underlying == CT_V_I1 || p->underlying == CT_V_I2 ||
                           p->underlying == CT_V_I4 || p->underlying == CT_V_I8;
        return;
    }
    case CT_V_STRING: {
        uint64_t obj = load_ref(addr);
        if (!obj)
            out->kind = CT_XV_NULL;
        else
            string_value(obj, out);
        return;
    }
    case CT_V_OBJECT: {
        uint64_t obj = load_ref(addr);
        if (!obj) {
            out->kind = CT_XV_NULL;
            return;
        }
        ct_class_info ci;
        ct_rec_class_info(b, obj, &ci);
        if (ci.string)
            string_value(obj, out);
        else if (ci.boxed != CT_V_VOID && scalar(ci.boxed, (const uint8_t *)(uintptr_t)obj + 8, out))
            return;
        else
            out->kind = CT_XV_OBJECT;
        return;
    }
    case CT_V_ARRAY: case CT_V_PTR:
        out->kind = load_ref(addr) ? CT_XV_OBJECT : CT_XV_NULL;
        return;
    case CT_V_NULLABLE:
        if (!*(const uint8_t *)addr)
            out->kind = CT_XV_NULL;
        else
            to_xval(b, p->elem, addr + p->value_offset, out, depth + 1);
        return;
    case CT_V_BYREF: {
        uintptr_t target = byref_target(b, addr);
        if (target && p->elem)
            to_xval(b, p->elem, target, out, depth + 1);
        return;
    }
    default:
        if (p->size && p->kind >= CT_V_BOOL && p->kind <= CT_V_DECIMAL)
            scalar(p->kind, (const uint8_t *)addr, out);
        return;
    }
}

/* The field `name` of a CLASS or STRUCT plan c (of class cls; 0 for a
 * struct), through the path's cache for segment seg. */
static const ct_field *field_named(const ct_plan *c, uint64_t cls, ct_when_path *wp, unsigned seg,
                                   const char *name)
{
    /* A class's content plan never changes once made: the index found for
     * it stays right. */
    uint64_t key = atomic_load_explicit(&wp->cache[seg], memory_order_relaxed);
    if (cls && cls < (1ull << 48) && key && (key & ((1ull << 48) - 1)) == cls) {
        uint32_t i = (uint32_t)(key >> 48) - 1;
        if (i < c->count)
            return &c->fields[i];
    }
    for (uint32_t i = 0; i < c->count && i < 0xFFFE; i++) {
        if (c->fields[i].name && !strcmp(c->fields[i].name, name)) {
            if (cls && cls < (1ull << 48))
                atomic_store_explicit(&wp->cache[seg], CT_WHEN_CACHE_KEY(cls, i),
                                      memory_order_relaxed);
            return &c->fields[i];
        }
    }
    return NULL;
}

/* The count of a collection object obj of content plan c (List, Queue,
 * Stack, HashSet, Dictionary), or -1. */
static int64_t seq_count(const ct_plan *c, uint64_t obj)
{
    const ct_seq *q = c->seq;
    if (!q || q->walk != CT_WALK_ARRAY)
        return -1;
    switch (c->shape) {
    case CT_SEQ_LIST: case CT_SEQ_QUEUE: case CT_SEQ_STACK:
        return load_i32((uintptr_t)obj + q->count);
    case CT_SEQ_SET: case CT_SEQ_DICT:
        return (int64_t)load_i32((uintptr_t)obj + q->count) - load_i32((uintptr_t)obj + q->free_count);
    default:
        return -1;
    }
}

typedef struct when_ctx {
    ct_tbuf *b;
    ct_when_bound *c;
} when_ctx;

static void resolve(void *ctxp, const ct_expr *e, uint32_t pi, ct_xval *out)
{
    when_ctx *ctx = ctxp;
    ct_tbuf *b = ctx->b;
    const ct_rec_thread *t = ct_rec_of(b);
    ct_when_path *wp = &ctx->c->paths[pi];
    const ct_expr_path *path = &e->paths[pi];
    out->kind = CT_XV_UNKNOWN;
    if (wp->arg == CT_WHEN_NO_ARG || wp->arg >= t->nslots || wp->arg >= CT_WHEN_MAX_ARGS)
        return;
    uintptr_t addr = t->slot[wp->arg];
    const ct_plan *p = t->slot_plan[wp->arg];
    if (!addr || !p || ct_plan_is_by_range(p) || t->slot_len[wp->arg] != ct_rec_slot_len(p))
        return;
    for (unsigned seg = 1; seg < path->nseg; seg++) {
        const char *name = ct_expr_seg(e, path, seg);
        int last = seg + 1 == path->nseg;
        int length = wp->seg[seg] == CT_WHEN_SEG_LENGTH, count = wp->seg[seg] == CT_WHEN_SEG_COUNT;
        /* Through nullables and byrefs to the value. */
        for (unsigned k = 0; k < 4 && (p->kind == CT_V_NULLABLE || p->kind == CT_V_BYREF); k++) {
            if (p->kind == CT_V_NULLABLE) {
                if (!*(const uint8_t *)addr)
                    return; /* null: no member */
                addr += p->value_offset;
            } else if (!(addr = byref_target(b, addr))) {
                return;
            }
            p = p->elem;
            if (!p)
                return;
        }
        switch (p->kind) {
        case CT_V_STRUCT: {
            const ct_field *fd = field_named(p, 0, wp, seg, name);
            if (!fd || !fd->plan)
                return;
            addr += fd->offset;
            p = fd->plan;
            continue;
        }
        case CT_V_STRING: case CT_V_ARRAY: case CT_V_OBJECT: {
            uint64_t obj = load_ref(addr);
            if (!obj)
                return; /* a null on the way */
            ct_class_info ci;
            ct_rec_class_info(b, obj, &ci);
            if (!ci.id)
                return;
            if (length && last && ci.string) {
                out->kind = CT_XV_INT;
                out->i = load_i32((uintptr_t)obj + g_rec.layout.string_length_offset);
                return;
            }
            if ((length || count) && last && ci.szarray) {
                out->kind = CT_XV_INT;
                out->i = (uint32_t)load_i32((uintptr_t)obj + g_rec.layout.array_length_offset);
                return;
            }
            const ct_plan *c = ci.content;
            if (!c)
                return;
            if (c->kind == CT_V_SEQ) {
                int64_t n = count && last ? seq_count(c, obj) : -1;
                if (n >= 0) {
                    out->kind = CT_XV_INT;
                    out->i = n;
                }
                return;
            }
            if (c->kind != CT_V_CLASS)
                return;
            const ct_field *fd = field_named(c, ci.id, wp, seg, name);
            if (!fd || !fd->plan)
                return;
            addr = (uintptr_t)obj + fd->offset;
            p = fd->plan;
            continue;
        }
        default:
            return;
        }
    }
    to_xval(b, p, addr, out, 0);
}

int ct_rec_when_holds(ct_tbuf *b, const ct_mapped_fn *f)
{
    const ct_when_fn *w = f->when;
    for (uint32_t i = 0; i < w->n; i++) {
        when_ctx ctx = {b, (ct_when_bound *)&w->c[i]};
        if (!ct_expr_holds(w->c[i].expr, resolve, &ctx))
            return 0;
    }
    return 1;
}
