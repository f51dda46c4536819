/* Conditions (--when) evaluated in the enter hook (internal.h,
 * ct_rec_when_holds): each path of a bound condition (model/when_bind.h) read
 * from the argument slots the capture collected, through the same plans
 * and object layouts: struct fields by their plan, objects by their
 * runtime class's content plan (fields by name, the field found cached per
 * path segment and class), string and array lengths, collection counts.
 * No managed code, no allocation, no lock; at most CT_EXPR_MAX_SEGMENTS
 * hops per path, each object's class checked. */
#include "internal.h"

#include <stdatomic.h>

#include "agent/model/classnames.h"

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
        if (!*(const uint8_t *)addr) {
            out->kind = CT_XV_NULL;
            return;
        }
        to_xval(b, p->elem, addr + p->value_offset, out, depth + 1);
        /* A value of a kind with nothing else to compare (DateTime?): not
         * null, as `!= null` asks. */
        if (out->kind == CT_XV_UNKNOWN && p->elem && !ct_plan_is_by_range(p->elem))
            out->kind = CT_XV_OBJECT;
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

/* How a path's walk ended. */
enum { WALK_UNKNOWN = 0, WALK_VALUE, WALK_NULL, WALK_XVAL };

/* Follows path pi of e (bound as wp) from the collected slots: WALK_VALUE
 * with the final value's plan and address (*pp, *addrp: the slot as a
 * field or argument holds it), WALK_XVAL with a length or count in *out,
 * WALK_NULL (a null on the way), or WALK_UNKNOWN. */
static int walk_from(ct_tbuf *b, const ct_expr *e, uint32_t pi, ct_when_path *wp,
                     const ct_plan *p, uintptr_t addr, uint32_t len, const ct_plan **pp,
                     uintptr_t *addrp, ct_xval *out);

static int walk(ct_tbuf *b, const ct_expr *e, uint32_t pi, ct_when_path *wp, const ct_plan **pp,
                uintptr_t *addrp, ct_xval *out)
{
    const ct_rec_thread *t = ct_rec_of(b);
    if (wp->arg >= t->nslots || wp->arg >= CT_WHEN_MAX_ARGS)
        return WALK_UNKNOWN;
    return walk_from(b, e, pi, wp, t->slot_plan[wp->arg], t->slot[wp->arg], t->slot_len[wp->arg],
                     pp, addrp, out);
}

/* walk from a value of plan p whose slot of len bytes is at addr. */
static int walk_from(ct_tbuf *b, const ct_expr *e, uint32_t pi, ct_when_path *wp,
                     const ct_plan *p, uintptr_t addr, uint32_t len, const ct_plan **pp,
                     uintptr_t *addrp, ct_xval *out)
{
    const ct_expr_path *path = &e->paths[pi];
    if (!addr || !p || ct_plan_is_by_range(p) || len != ct_rec_slot_len(p))
        return WALK_UNKNOWN;
    for (unsigned seg = 1; seg < path->nseg; seg++) {
        const char *name = ct_expr_seg(e, path, seg);
        int last = seg + 1 == path->nseg;
        int length = wp->seg[seg] == CT_WHEN_SEG_LENGTH, count = wp->seg[seg] == CT_WHEN_SEG_COUNT;
        /* Through nullables and byrefs to the value. */
        for (unsigned k = 0; k < 4 && (p->kind == CT_V_NULLABLE || p->kind == CT_V_BYREF); k++) {
            if (p->kind == CT_V_NULLABLE) {
                if (!*(const uint8_t *)addr)
                    return WALK_NULL; /* null: no member */
                addr += p->value_offset;
            } else if (!(addr = byref_target(b, addr))) {
                return WALK_UNKNOWN;
            }
            p = p->elem;
            if (!p)
                return WALK_UNKNOWN;
        }
        switch (p->kind) {
        case CT_V_STRUCT: {
            const ct_field *fd = field_named(p, 0, wp, seg, name);
            if (!fd || !fd->plan)
                return WALK_UNKNOWN;
            addr += fd->offset;
            p = fd->plan;
            continue;
        }
        case CT_V_STRING: case CT_V_ARRAY: case CT_V_OBJECT: {
            uint64_t obj = load_ref(addr);
            if (!obj)
                return WALK_NULL; /* a null on the way */
            ct_class_info ci;
            ct_rec_class_info(b, obj, &ci);
            if (!ci.id)
                return WALK_UNKNOWN;
            if (length && last && ci.string) {
                out->kind = CT_XV_INT;
                out->i = load_i32((uintptr_t)obj + g_rec.layout.string_length_offset);
                return WALK_XVAL;
            }
            if ((length || count) && last && ci.szarray) {
                out->kind = CT_XV_INT;
                out->i = (uint32_t)load_i32((uintptr_t)obj + g_rec.layout.array_length_offset);
                return WALK_XVAL;
            }
            const ct_plan *c = ci.content;
            if (!c)
                return WALK_UNKNOWN;
            if (c->kind == CT_V_SEQ) {
                int64_t n = count && last ? seq_count(c, obj) : -1;
                if (n < 0)
                    return WALK_UNKNOWN;
                out->kind = CT_XV_INT;
                out->i = n;
                return WALK_XVAL;
            }
            if (c->kind != CT_V_CLASS)
                return WALK_UNKNOWN;
            const ct_field *fd = field_named(c, ci.id, wp, seg, name);
            if (!fd || !fd->plan)
                return WALK_UNKNOWN;
            /* A field the class_of callback found (a Task's Exception): read
             * from the thread's state, where it lasts past this walk. */
            ct_rec_of(b)->when_found = ci.found;
            addr = fd->offset == CT_FIELD_FOUND ? (uintptr_t)&ct_rec_of(b)->when_found
                                                : (uintptr_t)obj + fd->offset;
            p = fd->plan;
            continue;
        }
        default:
            return WALK_UNKNOWN;
        }
    }
    *pp = p;
    *addrp = addr;
    return WALK_VALUE;
}

/* A walk's end as the evaluator compares it. */
static void walked(ct_tbuf *b, int how, const ct_plan *p, uintptr_t addr, ct_xval *out)
{
    if (how == WALK_VALUE)
        to_xval(b, p, addr, out, 0);
    else if (how == WALK_NULL)
        out->kind = CT_XV_UNKNOWN; /* a member of null: unknown, as before */
}

static void resolve(void *ctxp, const ct_expr *e, uint32_t pi, ct_xval *out)
{
    when_ctx *ctx = ctxp;
    const ct_plan *p = NULL;
    uintptr_t addr = 0;
    out->kind = CT_XV_UNKNOWN;
    int how = walk(ctx->b, e, pi, &ctx->c->paths[pi], &p, &addr, out);
    walked(ctx->b, how, p, addr, out);
    /* Not read, though bound (a path the function cannot give was told at
     * its binding): the end of the trace says so. */
    if (out->kind == CT_XV_UNKNOWN && how != WALK_NULL && ctx->c->paths[pi].arg != CT_WHEN_NO_ARG)
        ct_when_unreadable(ctx->c->index, pi);
}

int ct_rec_when_bound_holds(ct_tbuf *b, const ct_when_bound *c)
{
    when_ctx ctx = {b, (ct_when_bound *)c};
    return ct_expr_holds(c->expr, resolve, &ctx);
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

/* ------------------------------------------ conditions at a call's end */

/* What a condition deciding at a call's end reads: how the call ended, its
 * return value's slot (LEAVE), the exception that ended it (UNWIND: its
 * values as the UNWIND record carries them; NULL when not kept). */
typedef struct end_ctx {
    ct_tbuf *b;
    ct_when_bound *c;
    const ct_mapped_fn *f;
    ct_rec_type how;
    const ct_plan *ret_plan;
    uintptr_t ret_addr;
    uint32_t ret_len;
    const ct_rec_exc *x;
    char type[512];           /* the exception's class's full name, once read */
} end_ctx;

/* The next value of an exception's values at *pos: its status word's
 * status and its bytes; 0 at the end. */
static int exc_next(const ct_rec_exc *x, uint32_t *pos, uint32_t *status, const uint8_t **v,
                    uint32_t *n)
{
    if (*pos + 4 > x->len)
        return 0;
    uint32_t word;
    memcpy(&word, x->values + *pos, 4);
    *n = word & CT_VALUE_LEN_MASK;
    *status = word >> CT_VALUE_STATUS_SHIFT;
    *v = x->values + *pos + 4;
    if (*pos + 4 + *n > x->len)
        return 0;
    *pos += 4 + *n;
    return 1;
}

/* `exception`, `exception.Message` or `exception.Message.Length` (the
 * parser allows no other path) of the call ending. */
static void exception_value(end_ctx *c, const ct_expr *e, const ct_expr_path *path, ct_xval *out)
{
    if (c->how != CT_REC_UNWIND) {
        /* Returned: no exception; a member of it is unknown. A tail call:
         * the callee's end is not known. */
        if (c->how == CT_REC_LEAVE && path->nseg == 1)
            out->kind = CT_XV_NULL;
        return;
    }
    const ct_rec_exc *x = c->x;
    uint32_t pos = 0, st, n;
    const uint8_t *v;
    if (!x || !exc_next(x, &pos, &st, &v, &n) || st != CT_VALUE_PLAN || n < 16)
        return;
    if (path->nseg == 1) {
        uint64_t cls;
        memcpy(&cls, v + 8, 8);
        if (!c->type[0] && ct_classid_name((ClassID)cls, CT_NAME_FULL, c->type, sizeof c->type))
            return;
        out->kind = CT_XV_TYPE;
        out->text = c->type;
        return;
    }
    /* Its _message: a STRING value (u64 address; i32 length, u32 copied,
     * the characters), MISSING when the field is not known. */
    if (!exc_next(x, &pos, &st, &v, &n) || st != CT_VALUE_PLAN || n < 8)
        return;
    uint64_t addr;
    memcpy(&addr, v, 8);
    if (!addr) {
        if (path->nseg == 2)
            out->kind = CT_XV_NULL;
        return;
    }
    int32_t len;
    uint32_t copied;
    if (n < 16)
        return;
    memcpy(&len, v + 8, 4);
    memcpy(&copied, v + 12, 4);
    if (len < 0 || n < 16 + 2 * (size_t)copied)
        return;
    if (path->nseg == 3) {
        out->kind = CT_XV_INT;
        out->i = len;
    } else if (copied == (uint32_t)len) {
        /* Whole (a message longer than -s or CT_EXC_MESSAGE_CHARS was cut:
         * unknown). */
        out->kind = CT_XV_STRING;
        out->len = copied;
        out->chars = (const uint16_t *)(const void *)(v + 16);
    }
}

static void resolve_end(void *ctxp, const ct_expr *e, uint32_t pi, ct_xval *out)
{
    end_ctx *c = ctxp;
    ct_when_path *wp = &c->c->paths[pi];
    const ct_plan *p = NULL;
    uintptr_t addr = 0;
    out->kind = CT_XV_UNKNOWN;
    if (wp->arg == CT_WHEN_EXC_ARG) {
        exception_value(c, e, &e->paths[pi], out);
        return;
    }
    if (c->how != CT_REC_LEAVE || wp->arg == CT_WHEN_NO_ARG)
        return;
    if (wp->arg == CT_WHEN_RET_ARG) {
        int how = walk_from(c->b, e, pi, wp, c->ret_plan, c->ret_addr, c->ret_len, &p, &addr, out);
        walked(c->b, how, p, addr, out);
        return;
    }
    /* An out or ref argument: its target, kept at the entry when it is in
     * this thread's stack, read again (the frame closing is at the current
     * depth). */
    const ct_rec_thread *t = ct_rec_of(c->b);
    uintptr_t target = 0;
    for (uint32_t k = t->nouts; k > 0 && t->outs[k - 1].depth >= t->depth; k--)
        if (t->outs[k - 1].depth == t->depth && t->outs[k - 1].arg == wp->arg)
            target = t->outs[k - 1].target;
    if (!target || wp->arg >= c->f->nargs || !c->f->args[wp->arg].plan)
        return;
    const ct_plan *elem = c->f->args[wp->arg].plan->elem;
    if (!elem)
        return;
    int how = walk_from(c->b, e, pi, wp, elem, target, ct_rec_slot_len(elem), &p, &addr, out);
    walked(c->b, how, p, addr, out);
}

/* Whether every condition of c's function deciding at the end holds. */
static int holds_all(end_ctx *c)
{
    const ct_when_fn *w = c->f->when_end;
    for (uint32_t i = 0; w && i < w->n; i++) {
        c->c = (ct_when_bound *)&w->c[i];
        if (!ct_expr_holds(w->c[i].expr, resolve_end, c))
            return 0;
    }
    return 1;
}

int ct_rec_when_end_holds(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_type how,
                          ct_rec_ret_fn *ret, const void *ctx, const ct_rec_exc *x)
{
    ct_rec_thread *t = ct_rec_of(b);
    end_ctx c = {.b = b, .f = f, .how = how, .x = x};
    c.type[0] = '\0';
    if (how == CT_REC_LEAVE && ret && f->has_ret && f->values) {
        /* The return value's slot, collected (nothing captured). */
        ct_wbuf w = {0};
        ct_event_mark m = {0};
        ct_rec_collect_ret(b, f, ret, ctx, &w, &m);
        if (t->nslots) {
            c.ret_plan = t->slot_plan[0];
            c.ret_addr = t->slot[0];
            c.ret_len = t->slot_len[0];
        }
    }
    /* An async method's call: on its task's outcome, now or when it ends. */
    if (__builtin_expect(f->async_stub, 0) && how == CT_REC_LEAVE && c.ret_addr) {
        int r = ct_rec_async_return_holds(b, f, c.ret_addr);
        if (r >= 0)
            return r;
    }
    return holds_all(&c);
}

int ct_rec_when_outcome_holds(ct_tbuf *b, const ct_mapped_fn *f, ct_rec_type how,
                              const ct_plan *p, uintptr_t addr, uint32_t len,
                              const ct_rec_exc *x)
{
    end_ctx c = {.b = b, .f = f, .how = how, .x = x, .ret_plan = p, .ret_addr = addr,
                 .ret_len = len};
    c.type[0] = '\0';
    return holds_all(&c);
}

/* ------------------------------------------------------- chosen values */

/* The plan of a value read along a path: an object slot's (the FUNCTION
 * record's, model/when_bind.c). */
static const ct_plan object_plan = {.kind = CT_V_OBJECT, .size = 8, .type_name = CT_CHOSEN_TYPE_NAME};

/* An OBJECT value (src/format/value.h) holding the value of kind k (a
 * fixed-size kind with a name) boxed, its bytes at src: as an `object`
 * slot holding it boxed reads. */
static void put_boxed(ct_wbuf *w, ct_event_mark *m, uintptr_t where, ct_vkind k, const void *src)
{
    uint32_t size = ct_vkind_size(k);
    uint8_t *body = ct_event_value_reserve(w, 17 + size);
    if (!body) {
        ct_event_value_reserve(w, 0);
        ct_event_value_commit_status(w, m, 0, CT_VALUE_TOO_LARGE);
        return;
    }
    uint64_t a = where ? where : 1, id = CT_CLASS_BOXED;
    memcpy(body, &a, 8);
    memcpy(body + 8, &id, 8);
    body[16] = (uint8_t)k;
    memcpy(body + 17, src, size);
    ct_event_value_commit_status(w, m, 17 + size, CT_VALUE_PLAN);
}

static void put_status(ct_wbuf *w, ct_event_mark *m, ct_value_status st)
{
    ct_event_value_reserve(w, 0);
    ct_event_value_commit_status(w, m, 0, st);
}

/* A null object. */
static void put_null(ct_wbuf *w, ct_event_mark *m)
{
    uint8_t *body = ct_event_value_reserve(w, 16);
    if (!body) {
        put_status(w, m, CT_VALUE_TOO_LARGE);
        return;
    }
    memset(body, 0, 16);
    ct_event_value_commit_status(w, m, 16, CT_VALUE_PLAN);
}

/* The value of plan p at addr as an object slot holding it. */
static void put_as_object(ct_tbuf *b, ct_wbuf *w, ct_event_mark *m, const ct_plan *p,
                          uintptr_t addr, unsigned depth)
{
    if (depth > CT_MAX_VALUE_DEPTH) {
        put_status(w, m, CT_VALUE_MISSING);
        return;
    }
    switch (p->kind) {
    case CT_V_STRING: case CT_V_OBJECT: case CT_V_ARRAY:
        ct_rec_value(b, w, m, &object_plan, addr, 8, g_ct.cfg.object_depth);
        return;
    case CT_V_NULLABLE:
        if (!*(const uint8_t *)addr)
            put_null(w, m);
        else if (p->elem)
            put_as_object(b, w, m, p->elem, addr + p->value_offset, depth + 1);
        else
            put_status(w, m, CT_VALUE_MISSING);
        return;
    case CT_V_ENUM:
        if (ct_vkind_size(p->underlying) == p->size)
            put_boxed(w, m, addr, p->underlying, (const void *)addr);
        else
            put_status(w, m, CT_VALUE_MISSING);
        return;
    default:
        if (ct_vkind_name(p->kind) && ct_vkind_size(p->kind) && ct_vkind_size(p->kind) == p->size)
            put_boxed(w, m, addr, p->kind, (const void *)addr);
        else
            put_status(w, m, CT_VALUE_MISSING); /* a struct, a secret, a pointer */
        return;
    }
}

void ct_rec_chosen_values(ct_tbuf *b, const ct_mapped_fn *f, const ct_chosen_fn *c, ct_wbuf *w,
                          ct_event_mark *m)
{
    const ct_rec_thread *t = ct_rec_of(b);
    ct_when_bound *bound = (ct_when_bound *)&c->b;
    for (uint32_t i = 0; i < c->n; i++) {
        const ct_plan *p = NULL;
        uintptr_t addr = 0;
        uint32_t arg = bound->paths[i].arg;
        if (!c->read[i]) {
            /* The value itself (a one-name path), or a secret (nothing read). */
            if (c->plans[i]->kind == CT_V_REDACTED || arg == CT_WHEN_NO_ARG ||
                arg >= t->nslots || arg >= CT_WHEN_MAX_ARGS) {
                ct_rec_value(b, w, m, c->plans[i], c->plans[i]->kind == CT_V_REDACTED ? 1 : 0, 0,
                             0);
                continue;
            }
            ct_rec_value(b, w, m, t->slot_plan[arg], t->slot[arg], t->slot_len[arg],
                         c == f->chosen_ret ? g_ct.cfg.object_depth : ct_rec_arg_depth(f, arg));
            continue;
        }
        ct_xval x = {.kind = CT_XV_UNKNOWN};
        switch (walk(b, bound->expr, i, &bound->paths[i], &p, &addr, &x)) {
        case WALK_VALUE:
            put_as_object(b, w, m, p, addr, 0);
            break;
        case WALK_XVAL: {
            int32_t v = (int32_t)x.i;
            put_boxed(w, m, 0, CT_V_I4, &v);
            break;
        }
        case WALK_NULL:
            put_null(w, m);
            break;
        default:
            put_status(w, m, CT_VALUE_MISSING);
            break;
        }
    }
}

int ct_rec_outcome_holds(ct_tbuf *b, const ct_mapped_fn *f, const ct_rec_outcome *o,
                         ct_rec_exc *x)
{
    if (!o->faulted)
        return ct_rec_when_outcome_holds(b, f, CT_REC_LEAVE, o->p, o->addr, o->len, NULL);
    x->serial = 0;
    if (o->exc)
        ct_rec_exc_capture(x, o->exc);
    return ct_rec_when_outcome_holds(b, f, CT_REC_UNWIND, NULL, 0, 0, x->serial ? x : NULL);
}

int ct_rec_async_return_holds(ct_tbuf *b, const ct_mapped_fn *f, uintptr_t ret_addr)
{
    uint64_t task;
    memcpy(&task, (const void *)(ret_addr + f->async_task_at), 8);
    const ct_plan *rp = f->ret;
    if (!task && rp && rp->kind == CT_V_STRUCT && rp->shape == CT_FORM_VALUETASK &&
        rp->count == 2) {
        /* A ValueTask<T> that completed at once: its _result. */
        const ct_field *r = &rp->fields[1];
        return ct_rec_when_outcome_holds(b, f, CT_REC_LEAVE, r->plan, ret_addr + r->offset,
                                         ct_rec_slot_len(r->plan), NULL);
    }
    ct_rec_outcome o;
    if (!task || ct_rec_task_outcome(task, ct_rec_class_of(task), &o) != 0)
        return -1;
    if (!o.complete) {
        ct_rec_of(b)->async_later = 1;
        return CT_WHEN_LATER;
    }
    ct_rec_exc x;
    return ct_rec_outcome_holds(b, f, &o, &x);
}
