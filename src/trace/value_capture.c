/* Raw capture in the hook: copy what the plan says, nothing else. No
 * allocation, no locks, no formatting; every object read is guided by the
 * runtime's layout and bounded by the limits. */
#include <string.h>

#include "clrtrace/value.h"

typedef struct cap_ctx {
    const ct_layout *layout;
    const ct_limits *limits;
    ct_class_of class_of;
    void *ctx;
    uint8_t *out;
    size_t cap, len;
    int overflow;
} cap_ctx;

static void emit(cap_ctx *c, const void *p, size_t n)
{
    if (c->overflow || n > c->cap - c->len) {
        c->overflow = 1;
        return;
    }
    memcpy(c->out + c->len, p, n);
    c->len += n;
}

static void emit_u64(cap_ctx *c, uint64_t v)
{
    emit(c, &v, 8);
}

static void emit_u32(cap_ctx *c, uint32_t v)
{
    emit(c, &v, 4);
}

static uint64_t load_ref(const void *slot)
{
    uint64_t v;
    memcpy(&v, slot, 8);
    return v;
}

static void capture(cap_ctx *c, const ct_plan *p, const uint8_t *src, unsigned depth);

/* A string's length and characters (after its address). */
static void capture_chars(cap_ctx *c, uint64_t obj)
{
    const uint8_t *o = (const uint8_t *)(uintptr_t)obj;
    int32_t length;
    memcpy(&length, o + c->layout->string_length_offset, 4);
    uint32_t n = length < 0 ? 0 : (uint32_t)length;
    if (n > c->limits->string_chars)
        n = c->limits->string_chars;
    emit(c, &length, 4);
    emit_u32(c, n);
    emit(c, o + c->layout->string_chars_offset, (size_t)n * 2);
}

static void capture_string(cap_ctx *c, uint64_t obj)
{
    emit_u64(c, obj);
    if (obj)
        capture_chars(c, obj);
}

/* The rule of include/clrtrace/value.h: these elements are copied. */
int ct_array_items_captured(const ct_plan *e)
{
    return e && ((e->kind >= CT_V_BOOL && e->kind <= CT_V_U) || e->kind == CT_V_ENUM ||
                 e->kind == CT_V_STRING || e->kind == CT_V_DECIMAL ||
                 (e->kind >= CT_V_DATETIME && e->kind <= CT_V_KIND_MAX));
}

static void capture_array(cap_ctx *c, const ct_plan *p, uint64_t obj, unsigned depth)
{
    emit_u64(c, obj);
    if (!obj)
        return;
    const uint8_t *o = (const uint8_t *)(uintptr_t)obj;
    emit_u64(c, c->class_of ? c->class_of(c->ctx, obj, NULL) : 0);
    uint32_t length;
    memcpy(&length, o + c->layout->array_length_offset, 4);
    uint32_t n = ct_array_items_captured(p->elem) ? length : 0;
    if (n > c->limits->array_items)
        n = c->limits->array_items;
    emit_u32(c, length);
    emit_u32(c, n);
    const uint8_t *data = o + c->layout->array_data_offset;
    for (uint32_t i = 0; i < n && !c->overflow; i++)
        capture(c, p->elem, data + (size_t)i * p->elem->size, depth + 1);
}

/* A span's elements, valid while the hook runs (the span's own promise):
 * as many as the limits allow, characters for a char span. */
static void capture_span(cap_ctx *c, const ct_plan *p, const uint8_t *src, unsigned depth)
{
    uint64_t ptr = load_ref(src);
    int32_t length;
    memcpy(&length, src + p->value_offset, 4);
    emit_u64(c, ptr);
    if (!ptr || !p->elem)
        return;
    int chars = p->elem->kind == CT_V_CHAR;
    uint32_t n = length < 0 ? 0 : (uint32_t)length;
    uint32_t limit = chars ? c->limits->string_chars : c->limits->array_items;
    if (n > limit)
        n = limit;
    emit(c, &length, 4);
    emit_u32(c, n);
    const uint8_t *data = (const uint8_t *)(uintptr_t)ptr;
    if (chars) {
        emit(c, data, (size_t)n * 2);
        return;
    }
    for (uint32_t i = 0; i < n && !c->overflow; i++)
        capture(c, p->elem, data + (size_t)i * p->elem->size, depth + 1);
}

static void capture(cap_ctx *c, const ct_plan *p, const uint8_t *src, unsigned depth)
{
    if (depth > CT_MAX_VALUE_DEPTH) {
        c->overflow = 1;
        return;
    }
    switch (p->kind) {
    case CT_V_VOID:
    case CT_V_ELIDED:
        break;
    case CT_V_STRING:
        capture_string(c, load_ref(src));
        break;
    case CT_V_OBJECT: {
        uint64_t obj = load_ref(src);
        ct_vkind boxed = CT_V_VOID;
        uint64_t cls = obj && c->class_of ? c->class_of(c->ctx, obj, &boxed) : 0;
        int is_string = cls && !(cls & 3) &&
                        cls == __atomic_load_n(&c->layout->string_class, __ATOMIC_RELAXED);
        uint32_t boxed_size = cls && !(cls & 3) && !is_string ? ct_vkind_size(boxed) : 0;
        emit_u64(c, obj);
        emit_u64(c, is_string ? cls | 1 : boxed_size ? cls | 2 : cls);
        if (is_string) {
            capture_chars(c, obj);
        } else if (boxed_size) {
            /* The value follows the method table pointer. */
            uint8_t k = (uint8_t)boxed;
            emit(c, &k, 1);
            emit(c, (const uint8_t *)(uintptr_t)obj + 8, boxed_size);
        }
        break;
    }
    case CT_V_ARRAY:
        capture_array(c, p, load_ref(src), depth);
        break;
    case CT_V_SPAN:
        capture_span(c, p, src, depth);
        break;
    case CT_V_STRUCT:
        for (uint32_t i = 0; i < p->count && !c->overflow; i++)
            capture(c, p->fields[i].plan, src + p->fields[i].offset, depth + 1);
        break;
    case CT_V_NULLABLE: {
        uint8_t has = src[0] != 0;
        emit(c, &has, 1);
        if (has)
            capture(c, p->elem, src + p->value_offset, depth + 1);
        break;
    }
    case CT_V_BYREF: {
        uint64_t addr = load_ref(src);
        emit_u64(c, addr);
        if (addr && p->elem)
            capture(c, p->elem, (const uint8_t *)(uintptr_t)addr, depth + 1);
        break;
    }
    default: /* primitives, ENUM, DECIMAL, PTR, OPAQUE, the well-known structs: the bytes */
        emit(c, src, p->size);
        break;
    }
}

size_t ct_capture(const ct_plan *p, const void *src, const ct_layout *layout,
                  const ct_limits *limits, ct_class_of class_of, void *ctx,
                  uint8_t *out, size_t cap)
{
    cap_ctx c = { layout, limits, class_of, ctx, out, cap, 0, 0 };
    if (!src)
        return 0;
    capture(&c, p, src, 0);
    return c.overflow ? 0 : c.len;
}
