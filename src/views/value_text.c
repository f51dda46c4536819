/* Raw captured bytes back to text (the encoding is described in
 * src/format/value.h). Every read is checked against the record's end. */
#include <string.h>

#include "format/cursor.h"
#include "format/value.h"
#include "value_wellknown.h"
#include "value_text.h"

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
    char b[CT_DEC_MAX];
    ct_text_putn(t, b, ct_put_dec(b, v));
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

/* The formatter's state. With out NULL it only walks the encoding (for
 * ct_value_classes), reporting each class id to on_class. */
typedef struct collect collect;
typedef struct fctx {
    const ct_classes *cl;
    ct_text *out;
    void (*on_class)(void *ctx, uint64_t class_id);
    void *on_ctx;
    collect *col;       /* an AggregateException's message being built */
} fctx;

/* The inner exceptions' messages collected at one depth (form_exception). */
struct collect {
    ct_exc_msg *b;
    unsigned depth;
    uint32_t count;
    unsigned level;     /* aggregates whose messages are being built */
};

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

/* n UTF-16 code units of a string of `length`, quoted and escaped, then
 * "...(N chars)" when some were not kept. */
static void put_chars(fctx *f, int32_t length, const uint8_t *chars, uint32_t n)
{
    if (!f->out)
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

/* A string's characters, quoted and escaped (after its address). */
static void format_chars(ct_cursor *r, fctx *f)
{
    int32_t length = (int32_t)ct_take_u(r, 4);
    uint32_t n = (uint32_t)ct_take_u(r, 4);
    const uint8_t *chars = ct_take(r, (size_t)n * 2);
    if (chars)
        put_chars(f, length, chars, n);
}

static void format_string(ct_cursor *r, fctx *f)
{
    uint64_t addr = ct_take_u(r, 8);
    if (r->bad)
        return;
    if (!addr) {
        ct_text_put(f->out, "null");
        return;
    }
    format_chars(r, f);
}

/* Characters that end a type's name in a class's full name. */
#define NAME_ENDS "<>,[] "

/* A class's full name without its namespaces, in its type arguments too,
 * as a signature's types are written ("Dictionary<string, List<int>>"
 * from "System.Collections.Generic.Dictionary<string,
 * System.Collections.Generic.List<int>>"): in each name, what follows its
 * last dot; a nested type's part after a generic enclosing type
 * ("Outer<int>.Holder") is kept. Into out[0..cap), cap > 0. */
static void short_class_name(const char *name, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = name; *p && o + 1 < cap;) {
        if (strchr(NAME_ENDS, *p)) {
            out[o++] = *p++;
            continue;
        }
        const char *end = p + strcspn(p, NAME_ENDS), *keep = p;
        if (p == name || p[-1] != '>')
            for (const char *q = p; q < end; q++)
                if (*q == '.')
                    keep = q + 1;
        size_t n = (size_t)(end - keep);
        if (n > cap - 1 - o)
            n = cap - 1 - o;
        memcpy(out + o, keep, n);
        o += n;
        p = end;
    }
    out[o] = '\0';
}

/* Most bytes of a class's name shown (longer names are cut). */
#define CLASS_NAME_SHOWN_MAX 511

/* The class's name, cut to CLASS_NAME_SHOWN_MAX bytes (*len its length),
 * or NULL when the reader has none. */
static const char *class_name_of(const fctx *f, uint64_t class_id, size_t *len)
{
    if (!class_id || !f->cl || !f->cl->name)
        return NULL;
    const char *name = f->cl->name(f->cl->ctx, class_id, len);
    if (name && *len > CLASS_NAME_SHOWN_MAX)
        *len = CLASS_NAME_SHOWN_MAX;
    return name;
}

/* The class's name into out (NUL-terminated, cut as class_name_of);
 * returns 0, or -1 when the reader has none. */
static int copy_class_name(const fctx *f, uint64_t class_id, char out[CLASS_NAME_SHOWN_MAX + 1])
{
    size_t n;
    const char *name = class_name_of(f, class_id, &n);
    if (!name)
        return -1;
    memcpy(out, name, n);
    out[n] = '\0';
    return 0;
}

/* The class's name, or the fallback; with short set, a collection's name
 * without its namespaces ("List<int>", "Dictionary<string, List<int>>"). */
static void format_class(fctx *f, uint64_t class_id, const char *fallback, int short_name)
{
    char name[CLASS_NAME_SHOWN_MAX + 1], shorter[CLASS_NAME_SHOWN_MAX + 1];
    size_t n;
    const char *s;
    if (!f->out)
        return;
    if (short_name) {
        if (copy_class_name(f, class_id, name) == 0) {
            short_class_name(name, shorter, sizeof shorter);
            ct_text_put(f->out, shorter);
            return;
        }
    } else if ((s = class_name_of(f, class_id, &n)) != NULL) {
        ct_text_putn(f->out, s, n);
        return;
    }
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
    uint32_t w[3], scale;
    int neg;
    ct_decimal_unpack(b, w, &scale, &neg);
    if (scale > 28) {
        ct_text_put(t, "<bad decimal>");
        return;
    }
    int zero = !w[0] && !w[1] && !w[2];
    char digits[40];
    int n = 0;
    do {
        digits[n++] = (char)('0' + div10(w));
    } while (w[0] || w[1] || w[2]);
    while (n <= (int)scale)
        digits[n++] = '0';
    char out[48];
    int k = 0;
    if (neg && !(n == (int)scale + 1 && digits[n - 1] == '0' && zero))
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

static void format(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth);

/* An array's type with its bounds, as C# writes an array creation: the
 * element's name up to its own brackets, the bounds (dims[0..rank), lower
 * bounds lo or NULL), then the element's brackets: "int[3]", "int[3][]" for
 * a jagged element, "int[2,3]", "int[1..2,0..2]". */
static void put_array_type(fctx *f, const char *elem_name, uint32_t rank, const uint32_t *dims,
                           const int32_t *lo)
{
    if (!f->out)
        return;
    const char *e = elem_name ? elem_name : "?";
    const char *br = strchr(e, '[');
    ct_text_putn(f->out, e, br ? (size_t)(br - e) : strlen(e));
    ct_text_put(f->out, "[");
    for (uint32_t i = 0; i < rank; i++) {
        if (i)
            ct_text_put(f->out, ",");
        if (lo && lo[i])
            ct_text_printf(f->out, "%d..%lld", lo[i], (long long)lo[i] + dims[i] - 1);
        else
            put_u64(f->out, dims[i]);
    }
    ct_text_put(f->out, "]");
    if (br)
        ct_text_put(f->out, br);
}

static void put_array_head(fctx *f, const char *elem_name, uint32_t length)
{
    put_array_type(f, elem_name, 1, &length, NULL);
}

/* "{", n elements of plan e, then ", ..." when length says there are more,
 * and "}". */
static void put_items(ct_cursor *r, const ct_plan *e, uint32_t n, uint64_t length, fctx *f,
                      unsigned depth)
{
    ct_text_put(f->out, "{");
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        if (i)
            ct_text_put(f->out, ", ");
        format(r, e, f, depth + 1);
    }
    if (n < length)
        ct_text_put(f->out, n ? ", ..." : "...");
    ct_text_put(f->out, "}");
}

/* The same after a space (an array's head): " {1, 2}". */
static void format_items(ct_cursor *r, const ct_plan *e, uint32_t n, uint64_t length, fctx *f,
                         unsigned depth)
{
    ct_text_put(f->out, " ");
    put_items(r, e, n, length, f, depth);
}

/* A copied element count against the whole: n <= length, and none copied
 * of elements that are not. */
static int items_ok(const ct_plan *e, uint32_t n, uint64_t length)
{
    return n <= length && (!n || ct_array_items_captured(e));
}

/* A reference's address: 1 when it is not null; else "null" is written (or
 * the record is damaged) and 0 returned. */
static int take_reference(ct_cursor *r, fctx *f)
{
    uint64_t addr = ct_take_u(r, 8);
    if (!r->bad && !addr)
        ct_text_put(f->out, "null");
    return !r->bad && addr;
}

static void format_array(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    if (!take_reference(r, f))
        return;
    ct_take_u(r, 8); /* class id: the element type comes from the plan */
    uint32_t length = (uint32_t)ct_take_u(r, 4);
    uint32_t n = (uint32_t)ct_take_u(r, 4);
    if (r->bad || !items_ok(p->elem, n, length)) {
        r->bad = 1;
        return;
    }
    /* A struct that wraps an array (ImmutableArray<T>) is named by its type. */
    if (p->type_name && !strchr(p->type_name, '[')) {
        ct_text_put(f->out, p->type_name);
        ct_text_printf(f->out, "(%u)", length);
    } else {
        put_array_head(f, p->elem ? p->elem->type_name : NULL, length);
    }
    if (!ct_array_items_captured(p->elem))
        return;
    format_items(r, p->elem, n, length, f, depth);
}

/* Row-major elements of dimension d on: "{{1, 2}, {3, 4}}". *left: the
 * elements copied and not yet shown. */
static void format_dims(ct_cursor *r, const ct_plan *p, fctx *f, const uint32_t *len, uint32_t rank,
                        uint32_t d, uint32_t *left, unsigned depth)
{
    ct_text_put(f->out, "{");
    for (uint32_t i = 0; i < len[d] && !r->bad; i++) {
        if (i)
            ct_text_put(f->out, ", ");
        if (!*left) {
            ct_text_put(f->out, "...");
            break;
        }
        if (d + 1 < rank) {
            format_dims(r, p, f, len, rank, d + 1, left, depth);
        } else {
            format(r, p->elem, f, depth + 1);
            (*left)--;
        }
    }
    ct_text_put(f->out, "}");
}

static void format_mdarray(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    if (!take_reference(r, f))
        return;
    uint32_t rank = (uint32_t)ct_take_u(r, 4);
    uint32_t len[CT_MAX_ARRAY_RANK];
    int32_t lo[CT_MAX_ARRAY_RANK];
    if (r->bad || rank != p->count || rank == 0 || rank > CT_MAX_ARRAY_RANK) {
        r->bad = 1;
        return;
    }
    uint64_t total = 1;
    for (uint32_t i = 0; i < rank; i++) {
        len[i] = (uint32_t)ct_take_u(r, 4);
        total = total * len[i] > UINT32_MAX ? UINT32_MAX : total * len[i];
    }
    for (uint32_t i = 0; i < rank; i++)
        lo[i] = (int32_t)ct_take_u(r, 4);
    uint32_t n = (uint32_t)ct_take_u(r, 4);
    if (r->bad || !items_ok(p->elem, n, total)) {
        r->bad = 1;
        return;
    }
    put_array_type(f, p->elem ? p->elem->type_name : NULL, rank, len, lo);
    if (!ct_array_items_captured(p->elem))
        return;
    ct_text_put(f->out, " ");
    uint32_t left = n;
    format_dims(r, p, f, len, rank, 0, &left, depth);
    if (left)
        r->bad = 1; /* more elements than the bounds hold */
}

/* A span: "text" for chars, else its length and elements. */
static int span_ok(const ct_plan *p)
{
    return p->elem && (p->elem->kind == CT_V_CHAR || ct_array_items_captured(p->elem));
}

/* A span's length and the elements copied of it (after its address): 0, or
 * -1 (r->bad set) when they do not agree. */
static int span_head(ct_cursor *r, int32_t *length, uint32_t *n)
{
    *length = (int32_t)ct_take_u(r, 4);
    *n = (uint32_t)ct_take_u(r, 4);
    if (r->bad || *length < 0 || *n > (uint32_t)*length) {
        r->bad = 1;
        return -1;
    }
    return 0;
}

static void format_span(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint64_t addr = ct_take_u(r, 8);
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
    ct_text_printf(f->out, "[%d]", length);
    format_items(r, p->elem, n, (uint32_t)length, f, depth);
}

/* ArraySegment<T>, Memory<T>: "ArraySegment<int>(2) {2, 3}", a string's
 * "ReadOnlyMemory<char>(5) "hello"". */
static void format_segment(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint64_t addr = ct_take_u(r, 8);
    if (r->bad || !p->elem) {
        r->bad = 1;
        return;
    }
    const char *name = p->type_name ? p->type_name : "?";
    if (!addr) {
        ct_text_put(f->out, name);
        ct_text_put(f->out, "(0) {}");
        return;
    }
    int32_t count = (int32_t)ct_take_u(r, 4);
    uint64_t what = ct_take_u(r, 1);
    if (r->bad || what > 2) {
        r->bad = 1;
        return;
    }
    ct_text_put(f->out, name);
    ct_text_printf(f->out, "(%d)", count);
    if (what == 0)
        return;
    uint32_t n = (uint32_t)ct_take_u(r, 4);
    if (r->bad || count < 0 || n > (uint32_t)count) {
        r->bad = 1;
        return;
    }
    if (what == 2) {
        const uint8_t *chars = ct_take(r, (size_t)n * 2);
        if (!chars || p->elem->kind != CT_V_CHAR) {
            r->bad = 1;
            return;
        }
        ct_text_put(f->out, " ");
        put_chars(f, count, chars, n);
        return;
    }
    if (!items_ok(p->elem, n, (uint32_t)count)) {
        r->bad = 1;
        return;
    }
    format_items(r, p->elem, n, (uint32_t)count, f, depth);
}

/* An [InlineArray(N)] struct: its N elements as an array's, "{2, 4, 6, 8}";
 * past the array-items limit "{1, 2, ...}". */
static void format_inline(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint32_t n = (uint32_t)ct_take_u(r, 4);
    if (r->bad || !p->elem || !p->count || !items_ok(p->elem, n, p->count)) {
        r->bad = 1;
        return;
    }
    put_items(r, p->elem, n, p->count, f, depth);
}

/* A vector's elements, as .NET writes a vector: "<1, 2, 3, 4>". */
static void format_vector(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
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
/* A boxed value in an OBJECT slot: "int 5" (src/format/value.h). */
static void format_boxed(ct_cursor *r, fctx *f, unsigned depth, int chosen)
{
    ct_vkind k = (ct_vkind)ct_take_u(r, 1);
    const char *name = r->bad ? NULL : ct_vkind_name(k);
    if (!name) {
        r->bad = 1;
        return;
    }
    ct_plan p = {.kind = k, .size = ct_vkind_size(k), .type_name = name};
    if (!chosen) {
        ct_text_put(f->out, name);
        ct_text_put(f->out, " ");
    }
    format(r, &p, f, depth + 1);
}

/* ------------------------------------------------------------ forms */

/* A 4-byte integer field (int, uint, an enum of 4 bytes). */
static int is_int4(const ct_plan *p)
{
    return p->size == 4 && (p->kind == CT_V_I4 || p->kind == CT_V_U4 ||
                            (p->kind == CT_V_ENUM && is_int_kind(p->underlying)));
}

/* Whether a CLASS (or STRUCT) plan's fields fit its form (src/format/value.h,
 * ct_form); a plan that does not reads field by field. */
static int form_fits(const ct_plan *c)
{
    const ct_field *fl = c->fields;
    uint32_t n = c->count;
    if (!n || !fl)
        return 0;
    switch (c->shape) {
    case CT_FORM_TEXT:
        for (uint32_t i = 0; i < n; i++)
            if (fl[i].plan->kind != CT_V_STRING)
                return 0;
        return c->kind == CT_V_CLASS && n <= 4;
    case CT_FORM_VERSION:
        for (uint32_t i = 0; i < n; i++)
            if (!is_int4(fl[i].plan))
                return 0;
        return c->kind == CT_V_CLASS && n == 4;
    case CT_FORM_IPADDRESS:
        return c->kind == CT_V_CLASS && n == 2 && is_int4(fl[0].plan) &&
               fl[1].plan->kind == CT_V_ARRAY && fl[1].plan->elem &&
               fl[1].plan->elem->kind == CT_V_U2 && fl[1].plan->elem->size == 2;
    case CT_FORM_TYPE:
    case CT_FORM_METHOD:
        return c->kind == CT_V_CLASS && n == 1 && fl[0].plan->size == 8 &&
               (fl[0].plan->kind == CT_V_I || fl[0].plan->kind == CT_V_U);
    case CT_FORM_TASK:
        /* (2.9: its exception last, an object.) */
        return c->kind == CT_V_CLASS && n <= 3 && is_int4(fl[0].plan) &&
               (n < 3 || ct_task_exception_at(c) == 2);
    case CT_FORM_CANCEL:
    case CT_FORM_ENCODING:
        return c->kind == CT_V_CLASS && n == 1 && is_int4(fl[0].plan);
    case CT_FORM_LAZY:
        return c->kind == CT_V_CLASS && n == 2 && fl[0].plan->kind == CT_V_OBJECT;
    case CT_FORM_TOKEN:
        return c->kind == CT_V_STRUCT && n == 1 && fl[0].plan->kind == CT_V_OBJECT;
    case CT_FORM_VALUETASK:
        return c->kind == CT_V_STRUCT && n == 2 && fl[0].plan->kind == CT_V_OBJECT;
    case CT_FORM_EXCEPTION:
        return c->kind == CT_V_CLASS && n == 2 && fl[0].plan->kind == CT_V_STRING &&
               (fl[1].plan->kind == CT_V_OBJECT ||
                (fl[1].plan->kind == CT_V_ARRAY && fl[1].plan->elem &&
                 fl[1].plan->elem->kind == CT_V_OBJECT));
    default:
        return 0;
    }
}

/* Walks one value of plan p (its class ids reported, nothing written). */
static void skip_value(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    fctx w = *f;
    w.out = NULL;
    format(r, p, &w, depth + 1);
}

/* The text form: the first string field that is not null ("null" when
 * none is). */
static void form_text(ct_cursor *r, const ct_plan *c, fctx *f)
{
    const uint8_t *chars = NULL;
    int32_t length = 0;
    uint32_t kept = 0;
    int found = 0;
    for (uint32_t i = 0; i < c->count && !r->bad; i++) {
        if (!ct_take_u(r, 8))
            continue;
        int32_t len = (int32_t)ct_take_u(r, 4);
        uint32_t n = (uint32_t)ct_take_u(r, 4);
        const uint8_t *ch = r->bad || len < 0 || n > (uint32_t)len ? NULL : ct_take(r, (size_t)n * 2);
        if (!ch) {
            r->bad = 1;
            return;
        }
        if (!found) {
            chars = ch;
            length = len;
            kept = n;
            found = 1;
        }
    }
    if (r->bad || !f->out)
        return;
    if (found)
        put_chars(f, length, chars, kept);
    else
        ct_text_put(f->out, "null");
}

/* Version: "1.2", "1.2.3", "1.2.3.4" (Build and Revision when not -1). */
static void form_version(ct_cursor *r, fctx *f)
{
    int32_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = (int32_t)ct_take_u(r, 4);
    if (r->bad)
        return;
    ct_text_printf(f->out, "%d.%d", v[0], v[1]);
    if (v[2] >= 0) {
        ct_text_printf(f->out, ".%d", v[2]);
        if (v[3] >= 0)
            ct_text_printf(f->out, ".%d", v[3]);
    }
}

/* IPAddress: IPv4 text when _numbers is null, else IPv6 text of its eight
 * words (all of them copied: fewer under --array-items read "<IPv6 address>"). */
static void form_ipaddress(ct_cursor *r, fctx *f)
{
    uint32_t addr = (uint32_t)ct_take_u(r, 4);
    uint64_t arr = ct_take_u(r, 8);
    if (r->bad)
        return;
    if (!arr) {
        ct_wellknown_ipv4(addr, f->out);
        return;
    }
    ct_take_u(r, 8); /* the array's class id */
    uint32_t length = (uint32_t)ct_take_u(r, 4), n = (uint32_t)ct_take_u(r, 4);
    const uint8_t *b = r->bad || n > length ? NULL : ct_take(r, (size_t)n * 2);
    if (!b) {
        r->bad = 1;
        return;
    }
    if (!f->out)
        return;
    if (length != 8 || n != 8) {
        ct_text_put(f->out, "<IPv6 address>");
        return;
    }
    uint16_t w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
    ct_wellknown_ipv6(w, addr, f->out);
}

/* A Type: typeof(Name), its handle named as a class id; a handle that is
 * not one (a TypeDesc's: a pointer, a generic parameter) "typeof(?)". */
static void form_type(ct_cursor *r, fctx *f)
{
    uint64_t h = ct_take_u(r, 8);
    if (r->bad)
        return;
    int named = h && !(h & CT_CLASS_TAG_MASK);
    if (named && f->on_class)
        f->on_class(f->on_ctx, h);
    ct_text_put(f->out, "typeof(");
    if (named)
        format_class(f, h, "?", 0);
    else
        ct_text_put(f->out, "?");
    ct_text_put(f->out, ")");
}

/* A MethodInfo: the method's full name, its handle named in a CLASS
 * record (CT_CLASS_KEY_METHOD); a handle not 8-byte aligned "?". */
static void form_method(ct_cursor *r, fctx *f)
{
    uint64_t h = ct_take_u(r, 8);
    if (r->bad)
        return;
    int named = h && !(h & CT_CLASS_TAG_MASK);
    if (named && f->on_class)
        f->on_class(f->on_ctx, h | CT_CLASS_KEY_METHOD);
    if (named)
        format_class(f, h | CT_CLASS_KEY_METHOD, "?", 0);
    else
        ct_text_put(f->out, "?");
}

/* A Task: {Status=...}, and Result=... when it ran to completion, or
 * Exception=... when it faulted or was cancelled (2.9). */
static void form_task(ct_cursor *r, const ct_plan *c, fctx *f, unsigned depth)
{
    uint32_t flags = (uint32_t)ct_take_u(r, 4);
    if (r->bad)
        return;
    ct_text_put(f->out, "{Status=");
    ct_text_put(f->out, ct_wellknown_task_status(flags));
    uint32_t exc = ct_task_exception_at(c);
    for (uint32_t i = 1; i < c->count && !r->bad; i++) {
        int shown = i == exc ? ct_wellknown_task_failed(flags) : ct_wellknown_task_done(flags);
        if (shown) {
            ct_text_put(f->out, i == exc ? ", Exception=" : ", Result=");
            format(r, c->fields[i].plan, f, depth + 1);
        } else {
            skip_value(r, c->fields[i].plan, f, depth);
        }
    }
    ct_text_put(f->out, "}");
}

/* A Lazy<T>: {Value=...} once created, else {IsValueCreated=false}. */
static void form_lazy(ct_cursor *r, const ct_plan *c, fctx *f, unsigned depth)
{
    size_t at = r->pos;
    uint64_t state = ct_take_u(r, 8);
    r->pos = at;
    skip_value(r, c->fields[0].plan, f, depth);
    if (r->bad)
        return;
    if (state) {
        skip_value(r, c->fields[1].plan, f, depth);
        ct_text_put(f->out, "{IsValueCreated=false}");
        return;
    }
    ct_text_put(f->out, "{Value=");
    format(r, c->fields[1].plan, f, depth + 1);
    ct_text_put(f->out, "}");
}

static void put_cancel(fctx *f, uint32_t state)
{
    ct_text_put(f->out, state ? "{IsCancellationRequested=true}" : "{IsCancellationRequested=false}");
}

/* A CancellationToken: None (no source), or its source's state when the
 * source was captured by content, else the source as any object. */
static void form_token(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    size_t at = r->pos;
    uint64_t addr = ct_take_u(r, 8), id = ct_take_u(r, 8);
    const ct_plan *c = NULL;
    if (!r->bad && addr && (id & CT_CLASS_TAG_MASK) == CT_CLASS_CONTENT && f->cl && f->cl->content)
        c = f->cl->content(f->cl->ctx, id & ~(uint64_t)CT_CLASS_TAG_MASK);
    int cancel = c && c->kind == CT_V_CLASS && c->shape == CT_FORM_CANCEL && form_fits(c);
    uint32_t state = cancel ? (uint32_t)ct_take_u(r, 4) : 0;
    r->pos = at;
    if (r->bad)
        return;
    if (!addr || cancel) {
        skip_value(r, p->fields[0].plan, f, depth);
        if (!r->bad && !addr)
            ct_text_put(f->out, "None");
        else if (!r->bad)
            put_cancel(f, state);
        return;
    }
    format(r, p->fields[0].plan, f, depth + 1);
}

/* A ValueTask<T>: {Result=...} when it holds no object (it completed as
 * it was made), else {Source=...}, the Task or IValueTaskSource it stands
 * for as any object (a Task in its form); its result is then not set and
 * is not shown. */
static void form_valuetask(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    size_t at = r->pos;
    uint64_t addr = ct_take_u(r, 8);
    r->pos = at;
    if (r->bad)
        return;
    if (addr) {
        ct_text_put(f->out, "{Source=");
        format(r, p->fields[0].plan, f, depth + 1);
        skip_value(r, p->fields[1].plan, f, depth);
    } else {
        skip_value(r, p->fields[0].plan, f, depth);
        ct_text_put(f->out, "{Result=");
        format(r, p->fields[1].plan, f, depth + 1);
    }
    ct_text_put(f->out, "}");
}

/* An AggregateException's InnerExceptions (form EXCEPTION whose second
 * field is an array), at r past its message: its length, 0 when null or
 * empty or not an aggregate's; r is not moved. */
static uint32_t aggregate_length(ct_cursor *r, const ct_plan *c, fctx *f, unsigned depth)
{
    if (c->fields[1].plan->kind != CT_V_ARRAY)
        return 0;
    size_t at = r->pos;
    skip_value(r, c->fields[0].plan, f, depth);
    uint64_t addr = ct_take_u(r, 8);
    uint32_t length = 0;
    if (addr) {
        ct_take_u(r, 8);
        length = (uint32_t)ct_take_u(r, 4);
    }
    r->pos = at;
    return r->bad ? 0 : length;
}

/* Appends the Message .NET gives the exception at r (form EXCEPTION, class
 * cls) to b: its _message; an AggregateException with inner exceptions
 * its own message ("Exception of type 'NAME' was thrown." when null), then
 * " (" + each inner exception's Message + ")", as AggregateException.Message
 * builds it, for at most CT_EXC_MESSAGE_LEVELS aggregates one in another
 * (level: those already in; past them, not known). r is not moved. */
static void exc_message(ct_cursor *r, uint64_t cls, const ct_plan *c, fctx *f, unsigned depth,
                        ct_exc_msg *b, unsigned level)
{
    size_t at = r->pos;
    uint32_t inner = aggregate_length(r, c, f, depth);
    uint64_t addr = ct_take_u(r, 8);
    if (addr) {
        int32_t length = (int32_t)ct_take_u(r, 4);
        uint32_t kept = (uint32_t)ct_take_u(r, 4);
        const uint8_t *chars = ct_take(r, (size_t)kept * 2);
        if (!chars || length < 0 || kept > (uint32_t)length)
            b->unknown = 1;
        else
            ct_exc_msg_units(b, chars, kept, length);
    } else if (inner) {
        char name[CLASS_NAME_SHOWN_MAX + 1];
        ct_exc_msg_default(b, copy_class_name(f, cls, name) == 0 ? name : NULL);
    } else {
        b->unknown = 1; /* null: Exception's default text, or an override */
    }
    r->pos = at;
    if (!inner || r->bad)
        return;
    if (level >= CT_EXC_MESSAGE_LEVELS) {
        b->unknown = 1;
        return;
    }
    /* The inner exceptions, each adding its own Message (form_exception at
     * the depth of the array's elements). */
    collect col = {b, depth + 2, 0, level + 1};
    fctx w = *f;
    w.out = NULL;
    w.col = &col;
    skip_value(r, c->fields[0].plan, &w, depth);
    format(r, c->fields[1].plan, &w, depth + 1);
    if (col.count != inner)
        b->unknown = 1;
    r->pos = at;
}

/* An exception: Class{Message="..."}, then its InnerException and (an
 * AggregateException) InnerExceptions when not null. */
static void form_exception(ct_cursor *r, uint64_t cls, const ct_plan *c, fctx *f, unsigned depth)
{
    if (f->col && depth == f->col->depth) {
        ct_exc_msg_ascii(f->col->b, " (");
        exc_message(r, cls, c, f, depth, f->col->b, f->col->level);
        ct_exc_msg_ascii(f->col->b, ")");
        f->col->count++;
    }
    if (!f->out) {
        for (uint32_t i = 0; i < c->count && !r->bad; i++)
            format(r, c->fields[i].plan, f, depth + 1);
        return;
    }
    format_class(f, cls, c->type_name, 0);
    ct_text_put(f->out, "{Message=");
    uint32_t inner = aggregate_length(r, c, f, depth);
    if (inner) {
        uint8_t units[2 * CT_EXC_TEXT_UNITS];
        ct_exc_msg b = {units, CT_EXC_TEXT_UNITS, 0, 0, 0, 0};
        exc_message(r, cls, c, f, depth, &b, 0);
        int32_t length = b.unknown || b.length > INT32_MAX ? -1 : (int32_t)b.length;
        put_chars(f, length, units, b.n);
        if (b.unknown)
            ct_text_put(f->out, "...");
        skip_value(r, c->fields[0].plan, f, depth);
    } else {
        format(r, c->fields[0].plan, f, depth + 1);
    }
    for (uint32_t i = 1; i < c->count && !r->bad; i++) {
        size_t at = r->pos;
        uint64_t addr = ct_take_u(r, 8);
        r->pos = at;
        if (!addr) {
            skip_value(r, c->fields[i].plan, f, depth);
            continue;
        }
        ct_text_printf(f->out, ", %s=", c->fields[i].name);
        format(r, c->fields[i].plan, f, depth + 1);
    }
    ct_text_put(f->out, "}");
}

/* An object shown in its form (form_fits(c) holds). */
static void format_form(ct_cursor *r, uint64_t cls, const ct_plan *c, fctx *f, unsigned depth)
{
    switch (c->shape) {
    case CT_FORM_TEXT:
        form_text(r, c, f);
        return;
    case CT_FORM_VERSION:
        form_version(r, f);
        return;
    case CT_FORM_IPADDRESS:
        form_ipaddress(r, f);
        return;
    case CT_FORM_TYPE:
        form_type(r, f);
        return;
    case CT_FORM_TASK:
        format_class(f, cls, c->type_name, 0);
        form_task(r, c, f, depth);
        return;
    case CT_FORM_CANCEL: {
        uint32_t state = (uint32_t)ct_take_u(r, 4);
        if (r->bad)
            return;
        format_class(f, cls, c->type_name, 0);
        put_cancel(f, state);
        return;
    }
    case CT_FORM_LAZY:
        format_class(f, cls, c->type_name, 0);
        form_lazy(r, c, f, depth);
        return;
    case CT_FORM_ENCODING: {
        int32_t code_page = (int32_t)ct_take_u(r, 4);
        if (!r->bad)
            ct_wellknown_codepage(code_page, f->out);
        return;
    }
    case CT_FORM_EXCEPTION:
        form_exception(r, cls, c, f, depth);
        return;
    case CT_FORM_METHOD:
        form_method(r, f);
        return;
    default:
        r->bad = 1;
        return;
    }
}

/* An object's content by its class's plan: "Demo.Order{Id=5, ...}",
 * "List<int>(3) {1, 2, 3}", "Dictionary<string, int>(1) {["a"]=1}". */
static void format_content(ct_cursor *r, uint64_t cls, const ct_plan *c, fctx *f, unsigned depth)
{
    if (c->kind == CT_V_CLASS && c->count == 1 && !c->value_offset && !c->fields[0].name[0]) {
        /* A boxed struct or enum: "Demo.Point{X=1, Y=2}", "Demo.Color Green". */
        format_class(f, cls, c->type_name, 0);
        if (c->fields[0].plan->kind != CT_V_STRUCT)
            ct_text_put(f->out, " ");
        format(r, c->fields[0].plan, f, depth + 1);
        return;
    }
    if (c->kind == CT_V_CLASS && c->shape && form_fits(c)) {
        format_form(r, cls, c, f, depth);
        return;
    }
    if (c->kind == CT_V_CLASS) {
        format_class(f, cls, c->type_name, 0);
        ct_text_put(f->out, "{");
        for (uint32_t i = 0; i < c->count && !r->bad; i++) {
            if (i)
                ct_text_put(f->out, ", ");
            ct_text_put(f->out, c->fields[i].name);
            ct_text_put(f->out, "=");
            format(r, c->fields[i].plan, f, depth + 1);
        }
        if (c->value_offset)
            ct_text_put(f->out, c->count ? ", ...}" : "...}");
        else
            ct_text_put(f->out, "}");
        return;
    }
    int dict = c->shape == CT_SEQ_DICT;
    int32_t count = (int32_t)ct_take_u(r, 4);
    uint32_t n = (uint32_t)ct_take_u(r, 4);
    if (!r->bad && c->kind == CT_V_SEQ && c->shape == CT_SEQ_TEXT) {
        /* A StringBuilder: its text, as a string's. */
        const uint8_t *chars = ct_take(r, (size_t)n * 2);
        if (!chars || count < 0 || n > (uint32_t)count || !c->elem || c->elem->kind != CT_V_CHAR) {
            r->bad = 1;
            return;
        }
        put_chars(f, count, chars, n);
        return;
    }
    if (r->bad || c->kind != CT_V_SEQ || count < 0 || !c->elem || (dict && !c->key) ||
        !items_ok(c->elem, n, (uint32_t)count) || (dict && n && !ct_array_items_captured(c->key))) {
        r->bad = 1;
        return;
    }
    if (c->shape == CT_SEQ_ARRAY) {
        put_array_head(f, c->elem->type_name, (uint32_t)count);
    } else {
        format_class(f, cls, c->type_name, 1);
        ct_text_printf(f->out, "(%d)", count);
    }
    if (!ct_array_items_captured(c->elem) || (dict && !ct_array_items_captured(c->key)))
        return;
    ct_text_put(f->out, " {");
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        if (i)
            ct_text_put(f->out, ", ");
        if (dict) {
            ct_text_put(f->out, "[");
            format(r, c->key, f, depth + 1);
            ct_text_put(f->out, "]=");
        }
        format(r, c->elem, f, depth + 1);
    }
    if (n < (uint32_t)count)
        ct_text_put(f->out, n ? ", ..." : "...");
    ct_text_put(f->out, "}");
}

/* An OBJECT value: null, a string, a boxed value, a repeated reference, an
 * object's content, or its class and address. */
static void format_object(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint64_t addr = ct_take_u(r, 8), id = ct_take_u(r, 8);
    if (r->bad)
        return;
    if (!addr) {
        ct_text_put(f->out, "null");
        return;
    }
    uint64_t cls = id & ~(uint64_t)CT_CLASS_TAG_MASK;
    switch (id & CT_CLASS_TAG_MASK) {
    case CT_CLASS_STRING:
        /* A string in an object slot: its text, as a string parameter's;
         * strings need no CLASS record. */
        format_chars(r, f);
        return;
    case CT_CLASS_BOXED:
        /* Named by its kind: no CLASS record either. */
        format_boxed(r, f, depth, p->type_name && !strcmp(p->type_name, CT_CHOSEN_TYPE_NAME));
        return;
    case CT_CLASS_PLAIN:
        if (cls && f->on_class)
            f->on_class(f->on_ctx, cls);
        format_class(f, cls, p->type_name, 0);
        put_hex(f->out, "@0x", addr);
        return;
    case CT_CLASS_SEEN: {
        uint64_t cycle = ct_take_u(r, 1);
        if (r->bad || cycle > 1 || !cls) {
            r->bad = 1;
            return;
        }
        if (f->on_class)
            f->on_class(f->on_ctx, cls);
        format_class(f, cls, p->type_name, 0);
        ct_text_put(f->out, cycle ? "{<cycle>}" : "{<shown above>}");
        return;
    }
    case CT_CLASS_CONTENT: {
        if (!cls) {
            r->bad = 1;
            return;
        }
        if (f->on_class)
            f->on_class(f->on_ctx, cls);
        const ct_plan *c = f->cl && f->cl->content ? f->cl->content(f->cl->ctx, cls) : NULL;
        if (!c || (c->kind != CT_V_CLASS && c->kind != CT_V_SEQ)) {
            r->bad = 1;
            return;
        }
        format_content(r, cls, c, f, depth);
        return;
    }
    default:
        r->bad = 1;
        return;
    }
}

/* System.Numerics.BigInteger, planned as the struct it is: an int _sign
 * and a uint[] _bits (null for a value that fits _sign; else the magnitude's
 * 32-bit words, least significant first, and _sign +1 or -1). Shown in
 * decimal when every word was copied (--array-items), else by its size. */
#define BIGINT_MAX_WORDS 64

static int is_biginteger(const ct_plan *p)
{
    if (!p->type_name || strcmp(p->type_name, "BigInteger") != 0 || p->count != 2)
        return 0;
    int sign = 0, bits = 0;
    for (uint32_t i = 0; i < 2; i++) {
        const ct_plan *fp = p->fields[i].plan;
        sign += !strcmp(p->fields[i].name, "_sign") && fp->kind == CT_V_I4;
        bits += !strcmp(p->fields[i].name, "_bits") && fp->kind == CT_V_ARRAY && fp->elem &&
                fp->elem->kind == CT_V_U4;
    }
    return sign == 1 && bits == 1;
}

static void format_biginteger(ct_cursor *r, const ct_plan *p, fctx *f)
{
    int32_t sign = 0;
    uint32_t w[BIGINT_MAX_WORDS], n = 0, length = 0;
    int null_bits = 1;
    for (uint32_t i = 0; i < 2 && !r->bad; i++) {
        if (p->fields[i].plan->kind == CT_V_I4) {
            sign = (int32_t)ct_take_u(r, 4);
            continue;
        }
        if (!ct_take_u(r, 8))
            continue; /* null: the value is _sign */
        null_bits = 0;
        ct_take_u(r, 8);
        length = (uint32_t)ct_take_u(r, 4);
        n = (uint32_t)ct_take_u(r, 4);
        if (r->bad || n > length) {
            r->bad = 1;
            return;
        }
        for (uint32_t k = 0; k < n && !r->bad; k++) {
            uint32_t v = (uint32_t)ct_take_u(r, 4);
            if (k < BIGINT_MAX_WORDS)
                w[k] = v;
        }
    }
    if (r->bad || !f->out)
        return;
    if (null_bits) {
        put_i64(f->out, sign);
        return;
    }
    if (n < length || n > BIGINT_MAX_WORDS) {
        ct_text_printf(f->out, "<BigInteger of %u bits>", length * 32);
        return;
    }
    /* The magnitude in base 10^9, least significant first. */
    char digits[BIGINT_MAX_WORDS * 10 + 2];
    size_t nd = 0;
    while (n && !w[n - 1])
        n--;
    do {
        uint64_t rem = 0;
        for (uint32_t k = n; k-- > 0;) {
            uint64_t cur = rem << 32 | w[k];
            w[k] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (n && !w[n - 1])
            n--;
        for (int d = 0; d < 9 && (n || rem); d++) {
            digits[nd++] = (char)('0' + rem % 10);
            rem /= 10;
        }
    } while (n);
    if (!nd)
        digits[nd++] = '0';
    if (sign < 0)
        ct_text_put(f->out, "-");
    while (nd)
        ct_text_putn(f->out, &digits[--nd], 1);
}

/* A Rune as a char literal ('x'); an impossible value as its number. */
static void format_rune(const uint8_t *b, fctx *f)
{
    uint32_t v;
    memcpy(&v, b, 4);
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        ct_text_printf(f->out, "<Rune 0x%x>", v);
        return;
    }
    ct_text_put(f->out, "'");
    put_char_escaped(f->out, v, '\'');
    ct_text_put(f->out, "'");
}

/* The well-known structs of trace format 2.6 (value_wellknown.c). */
static int is_wellknown_2_6(ct_vkind k)
{
    return k == CT_V_DATEONLY || k == CT_V_TIMEONLY || k == CT_V_INDEX || k == CT_V_RANGE;
}

/* Kinds that are only their bytes. */
static int is_bytes_kind(ct_vkind k)
{
    return (k >= CT_V_BOOL && k <= CT_V_DECIMAL) || k == CT_V_ENUM || k == CT_V_PTR ||
           k == CT_V_OPAQUE || (k >= CT_V_DATETIME && k <= CT_V_U16) || k == CT_V_VECTOR ||
           k == CT_V_DTOFFSET || k == CT_V_RUNE || is_wellknown_2_6(k);
}

/* Whether plan p fits a value `depth` levels deep: not too deep, a
 * fixed-size kind's size its own, an enum's or a pointer's 1 to 8 bytes. */
static int plan_fits(const ct_plan *p, unsigned depth)
{
    uint32_t want = ct_vkind_size(p->kind);
    return depth <= CT_MAX_NESTING && (!want || p->size == want) &&
           !((p->kind == CT_V_ENUM || p->kind == CT_V_PTR) && (p->size == 0 || p->size > 8));
}

/* Kinds whose value is an integer of p->size bytes (at most 8). */
static int is_integer_kind(ct_vkind k)
{
    return k == CT_V_BOOL || k == CT_V_CHAR || is_int_kind(k) || k == CT_V_I || k == CT_V_U ||
           k == CT_V_ENUM || k == CT_V_PTR;
}

/* An integer kind's value v. */
static void format_integer(const ct_plan *p, uint64_t v, ct_text *t)
{
    switch (p->kind) {
    case CT_V_BOOL:
        ct_text_put(t, v ? "true" : "false");
        return;
    case CT_V_CHAR:
        ct_text_put(t, "'");
        put_char_escaped(t, (uint32_t)v, '\'');
        ct_text_put(t, "'");
        return;
    case CT_V_I: case CT_V_U:
        /* Native-sized integers are mostly addresses and handles: hex. */
        if (p->kind == CT_V_I && (int64_t)v < 0)
            put_hex(t, "-0x", 0 - v);
        else
            put_hex(t, "0x", v);
        return;
    case CT_V_ENUM:
        format_enum(p, v, t);
        return;
    case CT_V_PTR:
        put_hex(t, "0x", v);
        return;
    default:
        if (is_signed_kind(p->kind))
            put_i64(t, sign_extend(v, p->size));
        else
            put_u64(t, v);
        return;
    }
}

/* Kinds whose value is its p->size bytes, shown as they are. */
static int is_plain_bytes_kind(ct_vkind k)
{
    return k == CT_V_R4 || k == CT_V_R8 || k == CT_V_DECIMAL ||
           (k >= CT_V_DATETIME && k <= CT_V_U16) || k == CT_V_RUNE || k == CT_V_OPAQUE ||
           (is_wellknown_2_6(k) && k != CT_V_RANGE);
}

/* A plain bytes kind's value, its p->size bytes at b. */
static void format_plain_bytes(const ct_plan *p, const uint8_t *b, fctx *f)
{
    ct_text *t = f->out;
    char s[64];
    switch (p->kind) {
    case CT_V_R4: {
        float v;
        memcpy(&v, b, 4);
        ct_text_putn(t, s, ct_format_float(v, s, sizeof s));
        return;
    }
    case CT_V_R8: {
        double v;
        memcpy(&v, b, 8);
        ct_text_putn(t, s, ct_format_double(v, s, sizeof s));
        return;
    }
    case CT_V_DECIMAL:
        format_decimal(b, t);
        return;
    case CT_V_RUNE:
        format_rune(b, f);
        return;
    case CT_V_OPAQUE:
        ct_text_printf(t, "<%u bytes", p->size);
        for (uint32_t i = 0; i < p->size && i < 16; i++)
            ct_text_printf(t, " %02x", b[i]);
        ct_text_put(t, p->size > 16 ? " ...>" : ">");
        return;
    default: /* DateTime, TimeSpan, Guid, Half, Int128, UInt128, DateOnly, TimeOnly, Index */
        ct_wellknown_format(p->kind, b, t);
        return;
    }
}

/* A DateTimeOffset: brought to the form ct_wellknown_format reads, the
 * DateTime, then the offset as an i16, each where the plan says it is. */
static void format_dtoffset(ct_cursor *r, const ct_plan *p, ct_text *t)
{
    const uint8_t *b = ct_take(r, 16);
    uint32_t ms = p->underlying == CT_V_I2 ? 2 : p->underlying == CT_V_I4 ? 4 : 0;
    if (!b || !ms || p->value_offset > 8 || p->count_offset > 16 - ms) {
        r->bad = 1;
        return;
    }
    uint8_t norm[16] = {0};
    int64_t minutes = sign_extend(ct_le(b + p->count_offset, ms), ms);
    int16_t m16 = minutes < INT16_MIN || minutes > INT16_MAX ? INT16_MAX : (int16_t)minutes;
    memcpy(norm, b + p->value_offset, 8);
    memcpy(norm + 8, &m16, 2);
    ct_wellknown_format(CT_V_DTOFFSET, norm, t);
}

/* A Range as .NET's Range.ToString writes it: "Start..End", each as
 * Index.ToString ("1", "^2"), both always: "0..^0". */
static void format_range(ct_cursor *r, const ct_plan *p, ct_text *t)
{
    const uint8_t *b = ct_take(r, 8);
    if (!b || p->value_offset > 4 || p->count_offset > 4) {
        r->bad = 1;
        return;
    }
    ct_wellknown_format(CT_V_INDEX, b + p->value_offset, t);
    ct_text_put(t, "..");
    ct_wellknown_format(CT_V_INDEX, b + p->count_offset, t);
}

/* A struct: "{X=1, Y=2}" (a BigInteger as its number). */
static void format_struct(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    ct_text *t = f->out;
    if (is_biginteger(p)) {
        format_biginteger(r, p, f);
        return;
    }
    if (p->shape == CT_FORM_TOKEN && form_fits(p)) {
        form_token(r, p, f, depth);
        return;
    }
    if (p->shape == CT_FORM_VALUETASK && form_fits(p)) {
        form_valuetask(r, p, f, depth);
        return;
    }
    ct_text_put(t, "{");
    for (uint32_t i = 0; i < p->count && !r->bad; i++) {
        if (i)
            ct_text_put(t, ", ");
        ct_text_put(t, p->fields[i].name);
        ct_text_put(t, "=");
        format(r, p->fields[i].plan, f, depth + 1);
    }
    ct_text_put(t, "}");
}

/* A Nullable<T>: "null", or the value. */
static void format_nullable(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint64_t has = ct_take_u(r, 1);
    if (r->bad)
        return;
    if (!has)
        ct_text_put(f->out, "null");
    else if (p->elem)
        format(r, p->elem, f, depth + 1);
    else
        r->bad = 1;
}

/* A by-reference parameter: the address, and " -> " the value there when
 * it was read. */
static void format_byref(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    uint64_t addr = ct_take_u(r, 8);
    if (r->bad)
        return;
    put_hex(f->out, "0x", addr);
    if (addr && p->elem) {
        ct_text_put(f->out, " -> ");
        format(r, p->elem, f, depth + 1);
    }
}

/* One value of plan p into f->out; with no f->out, only walks past it (the
 * class walker). A value that does not fit its plan sets r->bad. */
static void format(ct_cursor *r, const ct_plan *p, fctx *f, unsigned depth)
{
    ct_text *t = f->out;
    if (!plan_fits(p, depth)) {
        r->bad = 1;
        return;
    }
    if (!t && is_bytes_kind(p->kind)) {
        /* Walking: the bytes only (a vector's size is checked when shown). */
        ct_take(r, p->size);
        return;
    }
    if (is_integer_kind(p->kind)) {
        if (p->kind == CT_V_ENUM && !is_int_kind(p->underlying)) {
            r->bad = 1;
            return;
        }
        uint64_t v = ct_take_u(r, p->size);
        if (!r->bad)
            format_integer(p, v, t);
        return;
    }
    if (is_plain_bytes_kind(p->kind)) {
        const uint8_t *b = ct_take(r, p->size);
        if (b)
            format_plain_bytes(p, b, f);
        return;
    }
    switch (p->kind) {
    case CT_V_VOID:
        return;
    case CT_V_STRING:
        format_string(r, f);
        return;
    case CT_V_OBJECT:
        format_object(r, p, f, depth);
        return;
    case CT_V_ARRAY:
        format_array(r, p, f, depth);
        return;
    case CT_V_MDARRAY:
        format_mdarray(r, p, f, depth);
        return;
    case CT_V_SPAN:
        format_span(r, p, f, depth);
        return;
    case CT_V_SEGMENT:
        format_segment(r, p, f, depth);
        return;
    case CT_V_VECTOR:
        format_vector(r, p, f, depth);
        return;
    case CT_V_STRUCT:
        format_struct(r, p, f, depth);
        return;
    case CT_V_INLINE:
        format_inline(r, p, f, depth);
        return;
    case CT_V_NULLABLE:
        format_nullable(r, p, f, depth);
        return;
    case CT_V_BYREF:
        format_byref(r, p, f, depth);
        return;
    case CT_V_ELIDED:
        ct_text_put(t, "{...}");
        return;
    case CT_V_REDACTED:
        ct_text_put(t, "<redacted>");
        return;
    case CT_V_DTOFFSET:
        format_dtoffset(r, p, t);
        return;
    case CT_V_RANGE:
        format_range(r, p, t);
        return;
    default:
        break; /* CLASS and SEQ: reached through an object only */
    }
    r->bad = 1;
}

size_t ct_format_value(const ct_plan *p, const uint8_t *raw, size_t n, const ct_classes *classes,
                       ct_text *out)
{
    ct_cursor r = { raw, n, 0, 0 };
    fctx f = { classes, out, NULL, NULL, NULL };
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

void ct_value_classes(const ct_plan *p, const uint8_t *raw, size_t n, const ct_classes *classes,
                      void (*fn)(void *ctx, uint64_t class_id), void *ctx)
{
    if (is_bytes_kind(p->kind) || p->kind == CT_V_STRING || p->kind == CT_V_VOID)
        return; /* no object inside */
    ct_cursor r = { raw, n, 0, 0 };
    fctx f = { classes, NULL, fn, ctx, NULL };
    format(&r, p, &f, 0);
}
