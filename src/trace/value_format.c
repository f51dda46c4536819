/* Raw captured bytes back to text (the encoding is described in
 * include/clrtrace/value.h). Every read is checked against the record's end. */
#include <string.h>

#include "clrtrace/value.h"
#include "value_wellknown.h"

typedef struct rd {
    const uint8_t *p;
    size_t n, pos;
    int bad;
} rd;

static const uint8_t *take(rd *r, size_t k)
{
    if (r->bad || k > r->n - r->pos) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += k;
    return p;
}

static uint64_t take_u(rd *r, size_t k)
{
    if (k > 8) {
        r->bad = 1;
        return 0;
    }
    const uint8_t *p = take(r, k);
    uint64_t v = 0;
    if (p)
        for (size_t i = 0; i < k; i++)
            v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static int64_t sign_extend(uint64_t v, size_t bytes)
{
    if (bytes >= 8)
        return (int64_t)v;
    unsigned shift = (unsigned)(64 - 8 * bytes);
    return (int64_t)(v << shift) >> shift;
}

/* Integers without printf (the formatter runs once per value of every
 * event of a text log). */
static void put_u64(ct_text *t, uint64_t v)
{
    char b[24];
    size_t n = sizeof b;
    do {
        b[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ct_text_putn(t, b + n, sizeof b - n);
}

static void put_i64(ct_text *t, int64_t v)
{
    if (v < 0) {
        ct_text_putn(t, "-", 1);
        put_u64(t, 0 - (uint64_t)v);
    } else {
        put_u64(t, (uint64_t)v);
    }
}

static void put_hex(ct_text *t, const char *lead, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char b[24];
    size_t n = sizeof b;
    do {
        b[--n] = digits[v & 15];
        v >>= 4;
    } while (v);
    ct_text_put(t, lead);
    ct_text_putn(t, b + n, sizeof b - n);
}

typedef struct fctx {
    ct_class_name name_of;
    void *ctx;
    ct_text *out;
} fctx;

static void put_utf8(ct_text *t, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12);
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18);
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    ct_text_putn(t, b, n);
}

/* One UTF-16 code unit (or pair) inside quotes, escaped as C# would write it. */
static void put_char_escaped(ct_text *t, uint32_t cp, char quote)
{
    switch (cp) {
    case '\\': ct_text_put(t, "\\\\"); return;
    case '\n': ct_text_put(t, "\\n"); return;
    case '\r': ct_text_put(t, "\\r"); return;
    case '\t': ct_text_put(t, "\\t"); return;
    case '\0': ct_text_put(t, "\\0"); return;
    default: break;
    }
    if (cp == (uint32_t)quote) {
        char e[3] = { '\\', quote, 0 };
        ct_text_put(t, e);
    } else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
               (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0x2028 || cp == 0x2029) {
        ct_text_printf(t, "\\u%04X", cp);
    } else {
        put_utf8(t, cp);
    }
}

/* A string's characters, quoted and escaped (after its address). */
static void format_chars(rd *r, fctx *f)
{
    int32_t length = (int32_t)take_u(r, 4);
    uint32_t n = (uint32_t)take_u(r, 4);
    const uint8_t *chars = take(r, (size_t)n * 2);
    if (!chars)
        return;
    ct_text_put(f->out, "\"");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)chars[2 * i] | (uint32_t)chars[2 * i + 1] << 8;
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < n) {
            uint32_t lo = (uint32_t)chars[2 * i + 2] | (uint32_t)chars[2 * i + 3] << 8;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                put_utf8(f->out, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
                i++;
                continue;
            }
        }
        put_char_escaped(f->out, u, '"');
    }
    ct_text_put(f->out, "\"");
    if (length >= 0 && (uint32_t)length > n)
        ct_text_printf(f->out, "...(%d chars)", length);
}

static void format_string(rd *r, fctx *f)
{
    uint64_t addr = take_u(r, 8);
    if (r->bad)
        return;
    if (!addr) {
        ct_text_put(f->out, "null");
        return;
    }
    format_chars(r, f);
}

static void format_class(fctx *f, uint64_t class_id, const char *fallback)
{
    char name[512];
    if (class_id && f->name_of && f->name_of(f->ctx, class_id, name, sizeof name) == 0)
        ct_text_put(f->out, name);
    else
        ct_text_put(f->out, fallback ? fallback : "object");
}

/* 96-bit unsigned integer divided by 10 in place; returns the remainder. */
static uint32_t div10(uint32_t w[3])
{
    uint64_t rem = 0;
    for (int i = 2; i >= 0; i--) {
        uint64_t cur = rem << 32 | w[i];
        w[i] = (uint32_t)(cur / 10);
        rem = cur % 10;
    }
    return (uint32_t)rem;
}

/* System.Decimal: flags (scale in bits 16-23, sign in bit 31), hi32, lo64 —
 * printed like decimal.ToString(InvariantCulture), trailing zeros kept. */
static void format_decimal(const uint8_t *b, ct_text *t)
{
    uint32_t flags, hi;
    uint64_t lo;
    memcpy(&flags, b, 4);
    memcpy(&hi, b + 4, 4);
    memcpy(&lo, b + 8, 8);
    uint32_t scale = (flags >> 16) & 0xFF;
    if (scale > 28) {
        ct_text_put(t, "<bad decimal>");
        return;
    }
    uint32_t w[3] = { (uint32_t)lo, (uint32_t)(lo >> 32), hi };
    char digits[40];
    int n = 0;
    do {
        digits[n++] = (char)('0' + div10(w));
    } while (w[0] || w[1] || w[2]);
    while (n <= (int)scale)
        digits[n++] = '0';
    char out[48];
    int k = 0;
    if ((flags & 0x80000000u) && !(n == (int)scale + 1 && digits[n - 1] == '0' && lo == 0 && hi == 0))
        out[k++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        out[k++] = digits[i];
        if (i == (int)scale && scale)
            out[k++] = '.';
    }
    out[k] = '\0';
    ct_text_put(t, out);
}

static int is_int_kind(ct_vkind k)
{
    return k >= CT_V_I1 && k <= CT_V_U8;
}

static int is_signed_kind(ct_vkind k)
{
    return k == CT_V_I1 || k == CT_V_I2 || k == CT_V_I4 || k == CT_V_I8 || k == CT_V_I;
}

static void format_enum(const ct_plan *p, uint64_t raw, ct_text *t)
{
    uint64_t mask = p->size >= 8 ? ~0ull : ((1ull << (8 * p->size)) - 1);
    uint64_t v = raw & mask;
    for (uint32_t i = 0; i < p->count; i++)
        if ((p->items[i].value & mask) == v) {
            ct_text_put(t, p->items[i].name);
            return;
        }
    if (p->is_flags && v) {
        /* Every set bit must be covered by a named value. */
        uint64_t covered = 0;
        for (uint32_t i = 0; i < p->count; i++) {
            uint64_t iv = p->items[i].value & mask;
            if (iv && (v & iv) == iv)
                covered |= iv;
        }
        if (covered == v) {
            int first = 1;
            for (uint32_t i = 0; i < p->count; i++) {
                uint64_t iv = p->items[i].value & mask;
                if (iv && (v & iv) == iv) {
                    if (!first)
                        ct_text_put(t, " | ");
                    ct_text_put(t, p->items[i].name);
                    first = 0;
                }
            }
            return;
        }
    }
    if (is_signed_kind(p->underlying))
        put_i64(t, sign_extend(v, p->size));
    else
        put_u64(t, v);
}

static void format(rd *r, const ct_plan *p, fctx *f, unsigned depth);

static void format_array(rd *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint64_t addr = take_u(r, 8);
    if (r->bad)
        return;
    if (!addr) {
        ct_text_put(f->out, "null");
        return;
    }
    take_u(r, 8); /* class id: the element type comes from the plan */
    uint32_t length = (uint32_t)take_u(r, 4);
    uint32_t n = (uint32_t)take_u(r, 4);
    if (r->bad || n > length || (n && !ct_array_items_captured(p->elem))) {
        r->bad = 1;
        return;
    }
    ct_text_printf(f->out, "%s[%u]", p->elem && p->elem->type_name ? p->elem->type_name : "?",
                   length);
    if (!ct_array_items_captured(p->elem))
        return;
    ct_text_put(f->out, " {");
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        if (i)
            ct_text_put(f->out, ", ");
        format(r, p->elem, f, depth + 1);
    }
    if (n < length)
        ct_text_put(f->out, n ? ", ..." : "...");
    ct_text_put(f->out, "}");
}

/* A span: "text" for chars, else its length and elements. */
static int span_ok(const ct_plan *p)
{
    return p->elem && (p->elem->kind == CT_V_CHAR || ct_array_items_captured(p->elem));
}

/* A span's length and the elements copied of it (after its address): 0, or
 * -1 (r->bad set) when they do not agree. */
static int span_head(rd *r, int32_t *length, uint32_t *n)
{
    *length = (int32_t)take_u(r, 4);
    *n = (uint32_t)take_u(r, 4);
    if (r->bad || *length < 0 || *n > (uint32_t)*length) {
        r->bad = 1;
        return -1;
    }
    return 0;
}

static void format_span(rd *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint64_t addr = take_u(r, 8);
    if (r->bad || !span_ok(p)) {
        r->bad = 1;
        return;
    }
    int chars = p->elem->kind == CT_V_CHAR;
    if (!addr) {
        ct_text_put(f->out, chars ? "\"\"" : "[0] {}");
        return;
    }
    if (chars) {
        format_chars(r, f);
        return;
    }
    int32_t length;
    uint32_t n;
    if (span_head(r, &length, &n) != 0)
        return;
    ct_text_printf(f->out, "[%d] {", length);
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        if (i)
            ct_text_put(f->out, ", ");
        format(r, p->elem, f, depth + 1);
    }
    if (n < (uint32_t)length)
        ct_text_put(f->out, n ? ", ..." : "...");
    ct_text_put(f->out, "}");
}

/* A vector's elements, as .NET writes a vector: "<1, 2, 3, 4>". */
static void format_vector(rd *r, const ct_plan *p, fctx *f, unsigned depth)
{
    const ct_plan *e = p->elem;
    uint32_t es = e ? ct_vkind_size(e->kind) : 0;
    if (!es || e->kind == CT_V_DECIMAL || e->kind >= CT_V_DATETIME || e->size != es ||
        p->size % es) {
        r->bad = 1;
        return;
    }
    ct_text_put(f->out, "<");
    for (uint32_t i = 0; i < p->size / es && !r->bad; i++) {
        if (i)
            ct_text_put(f->out, ", ");
        format(r, e, f, depth + 1);
    }
    ct_text_put(f->out, ">");
}

/* The size a fixed-size kind must have; 0 for kinds of any size. A plan
 * read from a damaged file may say otherwise, and must not be trusted. */
uint32_t ct_vkind_size(ct_vkind k)
{
    switch (k) {
    case CT_V_BOOL: case CT_V_I1: case CT_V_U1: return 1;
    case CT_V_CHAR: case CT_V_I2: case CT_V_U2: return 2;
    case CT_V_I4: case CT_V_U4: case CT_V_R4: return 4;
    case CT_V_I8: case CT_V_U8: case CT_V_R8: case CT_V_I: case CT_V_U: return 8;
    case CT_V_DECIMAL: return 16;
    default: return ct_wellknown_size(k);
    }
}

const char *ct_vkind_name(ct_vkind k)
{
    static const char *const names[] = {
        [CT_V_BOOL] = "bool", [CT_V_CHAR] = "char", [CT_V_I1] = "sbyte", [CT_V_U1] = "byte",
        [CT_V_I2] = "short", [CT_V_U2] = "ushort", [CT_V_I4] = "int", [CT_V_U4] = "uint",
        [CT_V_I8] = "long", [CT_V_U8] = "ulong", [CT_V_R4] = "float", [CT_V_R8] = "double",
        [CT_V_I] = "nint", [CT_V_U] = "nuint", [CT_V_DECIMAL] = "decimal",
        [CT_V_DATETIME] = "DateTime", [CT_V_TIMESPAN] = "TimeSpan", [CT_V_GUID] = "Guid",
        [CT_V_HALF] = "Half", [CT_V_I16] = "Int128", [CT_V_U16] = "UInt128",
    };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : NULL;
}

/* A boxed value in an OBJECT slot: "int 5" (include/clrtrace/value.h). */
static void format_boxed(rd *r, fctx *f, unsigned depth)
{
    ct_vkind k = (ct_vkind)take_u(r, 1);
    const char *name = r->bad ? NULL : ct_vkind_name(k);
    if (!name) {
        r->bad = 1;
        return;
    }
    ct_plan p = {.kind = k, .size = ct_vkind_size(k), .type_name = name};
    ct_text_put(f->out, name);
    ct_text_put(f->out, " ");
    format(r, &p, f, depth + 1);
}

static void format(rd *r, const ct_plan *p, fctx *f, unsigned depth)
{
    ct_text *t = f->out;
    uint32_t want = ct_vkind_size(p->kind);
    if (depth > CT_MAX_VALUE_DEPTH || (want && p->size != want) ||
        ((p->kind == CT_V_ENUM || p->kind == CT_V_PTR) && (p->size == 0 || p->size > 8))) {
        r->bad = 1;
        return;
    }
    switch (p->kind) {
    case CT_V_VOID:
        return;
    case CT_V_BOOL: {
        uint64_t v = take_u(r, 1);
        if (!r->bad)
            ct_text_put(t, v ? "true" : "false");
        return;
    }
    case CT_V_CHAR: {
        uint64_t v = take_u(r, 2);
        if (r->bad)
            return;
        ct_text_put(t, "'");
        put_char_escaped(t, (uint32_t)v, '\'');
        ct_text_put(t, "'");
        return;
    }
    case CT_V_I1: case CT_V_I2: case CT_V_I4: case CT_V_I8: case CT_V_I: {
        uint64_t v = take_u(r, p->size);
        if (!r->bad)
            put_i64(t, sign_extend(v, p->size));
        return;
    }
    case CT_V_U1: case CT_V_U2: case CT_V_U4: case CT_V_U8: case CT_V_U: {
        uint64_t v = take_u(r, p->size);
        if (!r->bad)
            put_u64(t, v);
        return;
    }
    case CT_V_R4: {
        const uint8_t *b = take(r, 4);
        if (b) {
            float v;
            char s[64];
            memcpy(&v, b, 4);
            ct_format_float(v, s, sizeof s);
            ct_text_put(t, s);
        }
        return;
    }
    case CT_V_R8: {
        const uint8_t *b = take(r, 8);
        if (b) {
            double v;
            char s[64];
            memcpy(&v, b, 8);
            ct_format_double(v, s, sizeof s);
            ct_text_put(t, s);
        }
        return;
    }
    case CT_V_DECIMAL: {
        const uint8_t *b = take(r, 16);
        if (b)
            format_decimal(b, t);
        return;
    }
    case CT_V_ENUM: {
        if (!is_int_kind(p->underlying) || p->size > 8) {
            r->bad = 1;
            return;
        }
        uint64_t v = take_u(r, p->size);
        if (!r->bad)
            format_enum(p, v, t);
        return;
    }
    case CT_V_STRING:
        format_string(r, f);
        return;
    case CT_V_OBJECT: {
        uint64_t addr = take_u(r, 8), cls = take_u(r, 8);
        if (r->bad)
            return;
        if (!addr) {
            ct_text_put(t, "null");
            return;
        }
        if (cls & 1) {
            /* A string in an object slot: its text, as a string parameter's. */
            format_chars(r, f);
            return;
        }
        if (cls & 2) {
            format_boxed(r, f, depth);
            return;
        }
        format_class(f, cls, p->type_name);
        put_hex(t, "@0x", addr);
        return;
    }
    case CT_V_ARRAY:
        format_array(r, p, f, depth);
        return;
    case CT_V_SPAN:
        format_span(r, p, f, depth);
        return;
    case CT_V_VECTOR:
        format_vector(r, p, f, depth);
        return;
    case CT_V_STRUCT:
        ct_text_put(t, "{");
        for (uint32_t i = 0; i < p->count && !r->bad; i++) {
            if (i)
                ct_text_put(t, ", ");
            ct_text_put(t, p->fields[i].name);
            ct_text_put(t, "=");
            format(r, p->fields[i].plan, f, depth + 1);
        }
        ct_text_put(t, "}");
        return;
    case CT_V_NULLABLE: {
        uint64_t has = take_u(r, 1);
        if (r->bad)
            return;
        if (!has)
            ct_text_put(t, "null");
        else
            format(r, p->elem, f, depth + 1);
        return;
    }
    case CT_V_PTR: {
        uint64_t v = take_u(r, p->size);
        if (!r->bad)
            put_hex(t, "0x", v);
        return;
    }
    case CT_V_BYREF: {
        uint64_t addr = take_u(r, 8);
        if (r->bad)
            return;
        put_hex(t, "0x", addr);
        if (addr && p->elem) {
            ct_text_put(t, " -> ");
            format(r, p->elem, f, depth + 1);
        }
        return;
    }
    case CT_V_ELIDED:
        ct_text_put(t, "{...}");
        return;
    case CT_V_DATETIME: case CT_V_TIMESPAN: case CT_V_GUID: case CT_V_HALF: case CT_V_I16:
    case CT_V_U16: {
        const uint8_t *b = take(r, p->size);
        if (b)
            ct_wellknown_format(p->kind, b, t);
        return;
    }
    case CT_V_OPAQUE: {
        const uint8_t *b = take(r, p->size);
        if (!b)
            return;
        ct_text_printf(t, "<%u bytes", p->size);
        for (uint32_t i = 0; i < p->size && i < 16; i++)
            ct_text_printf(t, " %02x", b[i]);
        ct_text_put(t, p->size > 16 ? " ...>" : ">");
        return;
    }
    }
    r->bad = 1;
}

size_t ct_format_value(const ct_plan *p, const uint8_t *raw, size_t n, ct_class_name name_of,
                       void *ctx, ct_text *out)
{
    rd r = { raw, n, 0, 0 };
    fctx f = { name_of, ctx, out };
    size_t mark = out->len;
    format(&r, p, &f, 0);
    if (r.bad) {
        /* Drop what a damaged record produced (if it is still in the buffer). */
        if (out->cap && mark < out->cap) {
            out->p[mark] = '\0';
            out->len = mark;
        }
        ct_text_put(out, "<damaged>");
        return 0;
    }
    return r.pos;
}

/* ------------------------------------------------ class ids in a value */

typedef struct walk_ctx {
    void (*fn)(void *ctx, uint64_t class_id);
    void *ctx;
} walk_ctx;

/* Follows the encoding like format() does, reporting object class ids. */
static void walk(rd *r, const ct_plan *p, const walk_ctx *w, unsigned depth)
{
    uint32_t want = ct_vkind_size(p->kind);
    if (depth > CT_MAX_VALUE_DEPTH || (want && p->size != want) ||
        ((p->kind == CT_V_ENUM || p->kind == CT_V_PTR) && (p->size == 0 || p->size > 8))) {
        r->bad = 1;
        return;
    }
    switch (p->kind) {
    case CT_V_VOID: case CT_V_ELIDED:
        return;
    case CT_V_STRING: {
        uint64_t addr = take_u(r, 8);
        if (r->bad || !addr)
            return;
        take_u(r, 4);
        uint32_t n = (uint32_t)take_u(r, 4);
        take(r, (size_t)n * 2);
        return;
    }
    case CT_V_OBJECT: {
        uint64_t addr = take_u(r, 8), cls = take_u(r, 8);
        if (r->bad || !addr)
            return;
        if (cls & 1) {
            /* A string's characters follow; strings need no CLASS record. */
            take_u(r, 4);
            uint32_t n = (uint32_t)take_u(r, 4);
            take(r, (size_t)n * 2);
            return;
        }
        if (cls & 2) {
            /* A boxed value: named by its kind, no CLASS record either. */
            ct_vkind k = (ct_vkind)take_u(r, 1);
            if (!r->bad && !ct_vkind_name(k))
                r->bad = 1;
            else if (!r->bad)
                take(r, ct_vkind_size(k));
            return;
        }
        if (cls)
            w->fn(w->ctx, cls);
        return;
    }
    case CT_V_ARRAY: {
        uint64_t addr = take_u(r, 8);
        if (r->bad || !addr)
            return;
        take_u(r, 8);
        uint32_t length = (uint32_t)take_u(r, 4), n = (uint32_t)take_u(r, 4);
        if (r->bad || n > length || (n && !ct_array_items_captured(p->elem))) {
            r->bad = 1;
            return;
        }
        for (uint32_t i = 0; i < n && !r->bad; i++)
            walk(r, p->elem, w, depth + 1);
        return;
    }
    case CT_V_SPAN: {
        uint64_t addr = take_u(r, 8);
        if (r->bad || !addr)
            return;
        if (!span_ok(p)) {
            r->bad = 1;
            return;
        }
        int32_t length;
        uint32_t n;
        if (span_head(r, &length, &n) != 0)
            return;
        if (p->elem->kind == CT_V_CHAR) {
            take(r, (size_t)n * 2);
            return;
        }
        for (uint32_t i = 0; i < n && !r->bad; i++)
            walk(r, p->elem, w, depth + 1);
        return;
    }
    case CT_V_STRUCT:
        for (uint32_t i = 0; i < p->count && !r->bad; i++)
            walk(r, p->fields[i].plan, w, depth + 1);
        return;
    case CT_V_NULLABLE:
        if (take_u(r, 1) && !r->bad && p->elem)
            walk(r, p->elem, w, depth + 1);
        return;
    case CT_V_BYREF: {
        uint64_t addr = take_u(r, 8);
        if (!r->bad && addr && p->elem)
            walk(r, p->elem, w, depth + 1);
        return;
    }
    default: /* primitives, ENUM, DECIMAL, PTR, OPAQUE, the well-known structs */
        take(r, p->size);
        return;
    }
}

void ct_value_classes(const ct_plan *p, const uint8_t *raw, size_t n,
                      void (*fn)(void *ctx, uint64_t class_id), void *ctx)
{
    switch (p->kind) {
    case CT_V_OBJECT: case CT_V_ARRAY: case CT_V_STRUCT: case CT_V_NULLABLE: case CT_V_BYREF:
        break;
    default:
        return; /* no object inside */
    }
    rd r = { raw, n, 0, 0 };
    walk_ctx w = { fn, ctx };
    walk(&r, p, &w, 0);
}
