/* C#-style and ILDasm-style text for parsed signatures (docs/libclrsig.md,
 * "Text forms"). Output goes through a bounded buffer that keeps counting
 * after it is full, so callers learn the size they need. */
#include <stdio.h>
#include <string.h>

#include "sig_internal.h"

typedef struct out_buf {
    char *p;
    size_t cap;
    size_t len; /* length of the full text, even past cap */
} out_buf;

typedef struct fmt {
    out_buf o;
    clrsig_style style;
    int short_names;
    const clrsig_resolver *r;
    clrsig_arena *scratch;
    clrsig_status fatal;          /* first CYCLE / DEPTH / ARGUMENT met */
    int in_actual;                /* formatting a resolver-supplied type */
    unsigned nexpand;             /* TypeSpecs being expanded */
    unsigned nexpanded;           /* TypeSpecs expanded in this call */
    uint32_t expanding[CLRSIG_MAX_TYPESPEC_EXPANSION];
    unsigned depth;
    char ns[CLRSIG_MAX_NAME], name[CLRSIG_MAX_NAME], scope[CLRSIG_MAX_NAME];
} fmt;

/* The formatter recurses once per tree level; trees come from the parser
 * (CLRSIG_MAX_DEPTH) or from TypeSpec expansion, so this bound is only hit by
 * hand-built trees. */
#define FMT_MAX_DEPTH (CLRSIG_MAX_DEPTH * (CLRSIG_MAX_TYPESPEC_EXPANSION + 2))

static inline void put_n(fmt *f, const char *s, size_t n)
{
    out_buf *o = &f->o;
    if (o->len + n < o->cap) {
        char *d = o->p + o->len;
        if (n <= 16) /* most pieces are short: a call to memcpy costs more */
            for (size_t i = 0; i < n; i++)
                d[i] = s[i];
        else
            memcpy(d, s, n);
    } else if (o->cap && o->len < o->cap - 1) {
        memcpy(o->p + o->len, s, o->cap - 1 - o->len);
    }
    o->len += n;
}

static void put(fmt *f, const char *s)
{
    put_n(f, s, strlen(s));
}

/* A string literal: its length is known at compile time. */
#define PUT(f, lit) put_n((f), (lit), sizeof(lit) - 1)

/* Hex and decimal by hand: snprintf costs more than the rest of a signature. */
static void put_hex(fmt *f, uint64_t v, int width)
{
    static const char digits[] = "0123456789ABCDEF";
    char tmp[16];
    int n = 0;
    do {
        tmp[15 - n++] = digits[v & 15];
        v >>= 4;
    } while (v || n < width);
    put_n(f, tmp + 16 - n, (size_t)n);
}

/* The 8 hex digits of a token, two at a time. */
static void put_hex32(fmt *f, uint32_t v)
{
    static const char pairs[] =
        "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
        "202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
        "404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
        "606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
        "808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
        "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
        "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
        "E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";
    char tmp[8];
    for (int i = 0; i < 4; i++) {
        unsigned b = (v >> (24 - 8 * i)) & 0xFF;
        tmp[2 * i] = pairs[2 * b];
        tmp[2 * i + 1] = pairs[2 * b + 1];
    }
    put_n(f, tmp, 8);
}

static void putf_hex(fmt *f, const char *prefix, uint64_t v, int width, const char *suffix)
{
    put(f, prefix);
    PUT(f, "0x");
    put_hex(f, v, width);
    put(f, suffix);
}

static void put_u(fmt *f, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[19 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_n(f, tmp + 20 - n, (size_t)n);
}

static void put_s(fmt *f, int64_t v)
{
    if (v < 0) {
        PUT(f, "-");
        put_u(f, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u(f, (uint64_t)v);
    }
}

static int csharp(const fmt *f)
{
    return f->style == CLRSIG_STYLE_CSHARP;
}

static void set_fatal(fmt *f, clrsig_status st)
{
    if (f->fatal == CLRSIG_OK)
        f->fatal = st;
}

/* Cuts a truncated buffer at a UTF-8 character boundary and terminates it. */
static clrsig_status finish(fmt *f, size_t *needed)
{
    out_buf *o = &f->o;
    if (needed)
        *needed = o->len;
    if (!o->cap)
        return o->len ? CLRSIG_E_OUTPUT_TRUNCATED : CLRSIG_OK;
    if (o->len < o->cap) {
        o->p[o->len] = '\0';
        return CLRSIG_OK;
    }
    size_t n = o->cap - 1;
    size_t i = n;
    while (i > 0 && ((unsigned char)o->p[i - 1] & 0xC0) == 0x80 && n - i < 3)
        i--;
    if (i > 0) {
        unsigned char lead = (unsigned char)o->p[i - 1];
        size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (want > 1 && (i - 1) + want > n)
            n = i - 1;
    }
    o->p[n] = '\0';
    return CLRSIG_E_OUTPUT_TRUNCATED;
}

typedef struct prim_name {
    const char *text;
    uint8_t len;
} prim_name;

#define P(s) { s, sizeof(s) - 1 }
static const prim_name prim_cs[0x1D] = {
    [CLRSIG_ET_VOID] = P("void"), [CLRSIG_ET_BOOLEAN] = P("bool"), [CLRSIG_ET_CHAR] = P("char"),
    [CLRSIG_ET_I1] = P("sbyte"), [CLRSIG_ET_U1] = P("byte"), [CLRSIG_ET_I2] = P("short"),
    [CLRSIG_ET_U2] = P("ushort"), [CLRSIG_ET_I4] = P("int"), [CLRSIG_ET_U4] = P("uint"),
    [CLRSIG_ET_I8] = P("long"), [CLRSIG_ET_U8] = P("ulong"), [CLRSIG_ET_R4] = P("float"),
    [CLRSIG_ET_R8] = P("double"), [CLRSIG_ET_I] = P("nint"), [CLRSIG_ET_U] = P("nuint"),
    [CLRSIG_ET_STRING] = P("string"), [CLRSIG_ET_OBJECT] = P("object"),
    [CLRSIG_ET_TYPEDBYREF] = P("TypedReference"),
};
static const prim_name prim_il[0x1D] = {
    [CLRSIG_ET_VOID] = P("void"), [CLRSIG_ET_BOOLEAN] = P("bool"), [CLRSIG_ET_CHAR] = P("char"),
    [CLRSIG_ET_I1] = P("int8"), [CLRSIG_ET_U1] = P("uint8"), [CLRSIG_ET_I2] = P("int16"),
    [CLRSIG_ET_U2] = P("uint16"), [CLRSIG_ET_I4] = P("int32"), [CLRSIG_ET_U4] = P("uint32"),
    [CLRSIG_ET_I8] = P("int64"), [CLRSIG_ET_U8] = P("uint64"), [CLRSIG_ET_R4] = P("float32"),
    [CLRSIG_ET_R8] = P("float64"), [CLRSIG_ET_I] = P("native int"), [CLRSIG_ET_U] = P("native uint"),
    [CLRSIG_ET_STRING] = P("string"), [CLRSIG_ET_OBJECT] = P("object"),
    [CLRSIG_ET_TYPEDBYREF] = P("typedref"),
};
#undef P

static const prim_name *primitive(uint8_t k, int cs)
{
    if (k >= 0x1D)
        return NULL;
    const prim_name *p = cs ? &prim_cs[k] : &prim_il[k];
    return p->text ? p : NULL;
}

/* Writes a metadata name; C# style drops a trailing `N generic arity. */
static void put_name(fmt *f, const char *s)
{
    size_t n = strlen(s);
    if (csharp(f)) {
        const char *tick = strrchr(s, '`');
        if (tick && tick[1]) {
            const char *d = tick + 1;
            while (*d >= '0' && *d <= '9')
                d++;
            if (*d == '\0')
                n = (size_t)(tick - s);
        }
    }
    put_n(f, s, n);
}

static int lookup(fmt *f, uint32_t token, uint32_t *enclosing)
{
    if (!f->r || !f->r->type_name)
        return 0;
    f->ns[0] = f->name[0] = f->scope[0] = '\0';
    *enclosing = 0;
    if (f->r->type_name(f->r->ctx, token, f->ns, sizeof f->ns, f->name, sizeof f->name,
                        enclosing, f->scope, sizeof f->scope) != 0)
        return 0;
    /* Guard against resolvers that do not terminate what they write. */
    f->ns[sizeof f->ns - 1] = f->name[sizeof f->name - 1] = f->scope[sizeof f->scope - 1] = '\0';
    return 1;
}

static void fmt_type(fmt *f, const clrsig_type *t);

/* The name of a TypeDef/TypeRef: outermost first. Two passes over the
 * enclosing chain keep a single set of name buffers on the stack. */
static int fmt_typedef_name(fmt *f, uint32_t token)
{
    uint32_t chain[CLRSIG_MAX_NESTING + 1];
    unsigned n = 0;
    uint32_t cur = token, enclosing;
    while (cur) {
        if (n > CLRSIG_MAX_NESTING) {
            set_fatal(f, CLRSIG_E_DEPTH);
            return 0;
        }
        if (!lookup(f, cur, &enclosing))
            return n == 0 ? 0 : (set_fatal(f, CLRSIG_E_RESOLVE), 0);
        chain[n++] = cur;
        cur = enclosing;
    }
    for (unsigned i = n; i-- > 0;) {
        lookup(f, chain[i], &enclosing);
        if (i == n - 1) {
            if (!csharp(f) && f->scope[0] && (chain[i] >> 24) == 0x01) {
                PUT(f, "[");
                put(f, f->scope);
                PUT(f, "]");
            }
            if (f->ns[0] && !(csharp(f) && f->short_names)) {
                put(f, f->ns);
                PUT(f, ".");
            }
        } else {
            put(f, csharp(f) ? "." : "/");
        }
        put_name(f, f->name);
    }
    return 1;
}

static void put_token_placeholder(fmt *f, uint32_t token)
{
    PUT(f, "<0x");
    put_hex32(f, token);
    PUT(f, ">");
}

/* Expands a TypeSpec through the resolver, guarding against cycles. */
static int fmt_typespec(fmt *f, uint32_t token)
{
    const uint8_t *blob;
    uint32_t len;
    if (!f->r || !f->r->typespec || !f->scratch)
        return 0;
    for (unsigned i = 0; i < f->nexpand; i++)
        if (f->expanding[i] == token) {
            set_fatal(f, CLRSIG_E_CYCLE);
            return 0;
        }
    if (f->nexpand >= CLRSIG_MAX_TYPESPEC_EXPANSION) {
        set_fatal(f, CLRSIG_E_DEPTH);
        return 0;
    }
    if (f->nexpanded >= CLRSIG_MAX_TYPESPEC_EXPANSIONS) {
        set_fatal(f, CLRSIG_E_COUNT);
        return 0;
    }
    f->nexpanded++;
    if (f->r->typespec(f->r->ctx, token, &blob, &len) != 0)
        return 0;
    size_t mark = f->scratch->used;
    const clrsig_type *t;
    uint32_t used;
    int ok = clrsig_parse_type(blob, len, NULL, f->scratch, &t, &used, NULL) == CLRSIG_OK;
    if (ok) {
        f->expanding[f->nexpand++] = token;
        fmt_type(f, t);
        f->nexpand--;
    }
    f->scratch->used = mark;
    return ok;
}

/* A type token in a type position (keyword is "class"/"valuetype" or NULL). */
static void fmt_token(fmt *f, uint32_t token, const char *keyword)
{
    if ((token >> 24) == 0x1B) {
        if (!fmt_typespec(f, token))
            put_token_placeholder(f, token);
        return;
    }
    if (keyword && !csharp(f)) {
        put(f, keyword);
        PUT(f, " ");
    }
    if (!fmt_typedef_name(f, token))
        put_token_placeholder(f, token);
}

static int token_is(fmt *f, uint32_t token, const char *ns, const char *name)
{
    uint32_t enclosing;
    if ((token >> 24) == 0x1B || !lookup(f, token, &enclosing))
        return 0;
    return enclosing == 0 && strcmp(f->ns, ns) == 0 && strcmp(f->name, name) == 0;
}

static void fmt_generic_param(fmt *f, const clrsig_type *t)
{
    int is_method = t->kind == CLRSIG_ET_MVAR;
    const char *bang = is_method ? "!!" : "!";
    if (!f->in_actual && f->r && f->r->generic_param) {
        const clrsig_type *actual = NULL;
        f->name[0] = '\0';
        if (f->r->generic_param(f->r->ctx, is_method, t->u.index, f->name, sizeof f->name,
                                &actual) == 0) {
            if (actual) {
                f->in_actual = 1;
                fmt_type(f, actual);
                f->in_actual = 0;
                return;
            }
            f->name[sizeof f->name - 1] = '\0';
            if (f->name[0]) {
                if (!csharp(f))
                    put(f, bang);
                put(f, f->name);
                return;
            }
        }
    }
    put(f, bang);
    put_u(f, t->u.index);
}

/* C# style leaves a dimension blank when it says nothing C# can write: no
 * size and a lower bound that is absent or 0 (how C# emits int[,]). */
static int dim_blank(const fmt *f, const clrsig_type *t, uint32_t i)
{
    int has_size = i < t->u.array.nsizes, has_lo = i < t->u.array.nlobounds;
    if (has_size)
        return 0;
    return !has_lo || (csharp(f) && t->u.array.lobounds[i] == 0);
}

static void fmt_array_shape(fmt *f, const clrsig_type *t)
{
    uint32_t rank = t->u.array.rank;
    PUT(f, "[");
    if (rank == 1 && dim_blank(f, t, 0)) {
        put(f, csharp(f) ? "*" : "...");
    } else {
        for (uint32_t i = 0; i < rank; i++) {
            if (i)
                PUT(f, ",");
            if (dim_blank(f, t, i))
                continue;
            if (i < t->u.array.nlobounds) {
                int64_t lo = t->u.array.lobounds[i];
                put_s(f, lo);
                PUT(f, "...");
                if (i < t->u.array.nsizes)
                    put_s(f, lo + (int64_t)t->u.array.sizes[i] - 1);
            } else {
                put_u(f, t->u.array.sizes[i]);
            }
        }
    }
    PUT(f, "]");
}

static void fmt_method(fmt *f, const clrsig_method *m, const clrsig_method_names *names);

static void fmt_fnptr_csharp(fmt *f, const clrsig_method *m)
{
    static const char *const cc[16] = {
        [CLRSIG_CC_C] = " unmanaged[Cdecl]", [CLRSIG_CC_STDCALL] = " unmanaged[Stdcall]",
        [CLRSIG_CC_THISCALL] = " unmanaged[Thiscall]", [CLRSIG_CC_FASTCALL] = " unmanaged[Fastcall]",
        [CLRSIG_CC_UNMANAGED] = " unmanaged", [CLRSIG_CC_VARARG] = " vararg",
        [CLRSIG_CC_NATIVEVARARG] = " unmanaged vararg",
    };
    PUT(f, "delegate*");
    if (m->callconv & CLRSIG_CC_HASTHIS)
        PUT(f, " instance");
    if (m->callconv & CLRSIG_CC_EXPLICITTHIS)
        PUT(f, " explicit");
    if (cc[m->callconv & CLRSIG_CC_MASK])
        put(f, cc[m->callconv & CLRSIG_CC_MASK]);
    PUT(f, "<");
    for (uint32_t i = 0; i < m->param_count; i++) {
        if (i == m->sentinel)
            PUT(f, "..., ");
        fmt_type(f, m->params[i]);
        PUT(f, ", ");
    }
    fmt_type(f, m->ret);
    PUT(f, ">");
}

static void fmt_type(fmt *f, const clrsig_type *t)
{
    if (!t) {
        set_fatal(f, CLRSIG_E_ARGUMENT);
        return;
    }
    if (++f->depth > FMT_MAX_DEPTH) {
        set_fatal(f, CLRSIG_E_DEPTH);
        f->depth--;
        return;
    }
    const prim_name *p = primitive(t->kind, csharp(f));
    if (p) {
        put_n(f, p->text, p->len);
        f->depth--;
        return;
    }
    switch (t->kind) {
    case CLRSIG_ET_CANON:
        put(f, csharp(f) && f->short_names ? "__Canon" : "System.__Canon");
        break;
    case CLRSIG_ET_CLASS:
        fmt_token(f, t->u.token, "class");
        break;
    case CLRSIG_ET_VALUETYPE:
        fmt_token(f, t->u.token, "valuetype");
        break;
    case CLRSIG_ET_VAR:
    case CLRSIG_ET_MVAR:
        fmt_generic_param(f, t);
        break;
    case CLRSIG_ET_PTR:
        fmt_type(f, t->u.elem);
        PUT(f, "*");
        break;
    case CLRSIG_ET_BYREF:
        if (csharp(f)) {
            PUT(f, "ref ");
            fmt_type(f, t->u.elem);
        } else {
            fmt_type(f, t->u.elem);
            PUT(f, "&");
        }
        break;
    case CLRSIG_ET_SZARRAY:
        fmt_type(f, t->u.elem);
        PUT(f, "[]");
        break;
    case CLRSIG_ET_ARRAY:
        fmt_type(f, t->u.array.elem);
        fmt_array_shape(f, t);
        break;
    case CLRSIG_ET_GENERICINST:
        fmt_type(f, t->u.inst.generic);
        PUT(f, "<");
        for (uint32_t i = 0; i < t->u.inst.argc; i++) {
            if (i)
                PUT(f, ", ");
            fmt_type(f, t->u.inst.args[i]);
        }
        PUT(f, ">");
        break;
    case CLRSIG_ET_FNPTR:
        if (csharp(f)) {
            fmt_fnptr_csharp(f, t->u.fnptr);
        } else {
            PUT(f, "method ");
            fmt_method(f, t->u.fnptr, &(clrsig_method_names){ .name = "*" });
        }
        break;
    case CLRSIG_ET_CMOD_REQD:
    case CLRSIG_ET_CMOD_OPT:
        if (csharp(f) && t->required && t->u.mod.elem->kind == CLRSIG_ET_BYREF &&
            token_is(f, t->u.mod.token, "System.Runtime.InteropServices", "InAttribute")) {
            PUT(f, "in ");
            fmt_type(f, t->u.mod.elem->u.elem);
            break;
        }
        fmt_type(f, t->u.mod.elem);
        put(f, t->required ? " modreq(" : " modopt(");
        fmt_token(f, t->u.mod.token, NULL);
        PUT(f, ")");
        break;
    case CLRSIG_ET_CMOD_INTERNAL:
        fmt_type(f, t->u.mod.elem);
        putf_hex(f, t->required ? " modreq(<handle " : " modopt(<handle ", t->u.mod.handle, 1,
                 ">)");
        break;
    case CLRSIG_ET_INTERNAL:
        if (f->r && f->r->handle_name &&
            f->r->handle_name(f->r->ctx, t->u.handle, f->name, sizeof f->name) == 0) {
            f->name[sizeof f->name - 1] = '\0';
            put(f, f->name);
        } else {
            putf_hex(f, "<handle ", t->u.handle, 1, ">");
        }
        break;
    case CLRSIG_ET_PINNED:
        fmt_type(f, t->u.elem);
        PUT(f, " pinned");
        break;
    default:
        set_fatal(f, CLRSIG_E_BAD_ELEMENT);
        putf_hex(f, "<element ", t->kind, 2, ">");
        break;
    }
    f->depth--;
}

static void fmt_param(fmt *f, const clrsig_type *t, const clrsig_method_names *names, uint32_t i)
{
    uint16_t flags = names && names->param_flags ? names->param_flags[i] : 0;
    if (csharp(f)) {
        if (names && names->param_flags && t->kind == CLRSIG_ET_BYREF) {
            put(f, (flags & CLRSIG_PARAM_OUT) ? "out " : (flags & CLRSIG_PARAM_IN) ? "in " : "ref ");
            fmt_type(f, t->u.elem);
        } else {
            fmt_type(f, t);
        }
    } else {
        if (flags & CLRSIG_PARAM_IN)
            PUT(f, "[in]");
        if (flags & CLRSIG_PARAM_OUT)
            PUT(f, "[out]");
        if (flags & (CLRSIG_PARAM_IN | CLRSIG_PARAM_OUT))
            PUT(f, " ");
        fmt_type(f, t);
    }
    if (names && names->param_names && names->param_names[i] && names->param_names[i][0]) {
        PUT(f, " ");
        put(f, names->param_names[i]);
    }
}

static void fmt_method(fmt *f, const clrsig_method *m, const clrsig_method_names *names)
{
    uint8_t cc = m->callconv & CLRSIG_CC_MASK;
    int property = cc == CLRSIG_CC_PROPERTY;
    if (csharp(f)) {
        static const char *const words[16] = {
            [CLRSIG_CC_C] = "unmanaged[Cdecl] ", [CLRSIG_CC_STDCALL] = "unmanaged[Stdcall] ",
            [CLRSIG_CC_THISCALL] = "unmanaged[Thiscall] ",
            [CLRSIG_CC_FASTCALL] = "unmanaged[Fastcall] ", [CLRSIG_CC_UNMANAGED] = "unmanaged ",
            [CLRSIG_CC_VARARG] = "vararg ", [CLRSIG_CC_NATIVEVARARG] = "unmanaged vararg ",
        };
        if (m->callconv & CLRSIG_CC_EXPLICITTHIS)
            PUT(f, "explicit ");
        if (!(m->callconv & CLRSIG_CC_HASTHIS))
            PUT(f, "static ");
        if (!property && words[cc])
            put(f, words[cc]);
    } else {
        static const char *const words[16] = {
            [CLRSIG_CC_C] = "unmanaged cdecl ", [CLRSIG_CC_STDCALL] = "unmanaged stdcall ",
            [CLRSIG_CC_THISCALL] = "unmanaged thiscall ",
            [CLRSIG_CC_FASTCALL] = "unmanaged fastcall ", [CLRSIG_CC_UNMANAGED] = "unmanaged ",
            [CLRSIG_CC_VARARG] = "vararg ", [CLRSIG_CC_NATIVEVARARG] = "native vararg ",
        };
        if (m->callconv & CLRSIG_CC_HASTHIS)
            PUT(f, "instance ");
        if (m->callconv & CLRSIG_CC_EXPLICITTHIS)
            PUT(f, "explicit ");
        if (!property && words[cc])
            put(f, words[cc]);
    }
    fmt_type(f, m->ret);
    PUT(f, " ");
    if (names && names->name) {
        if (names->owner && names->owner[0]) {
            put(f, names->owner);
            put(f, csharp(f) ? "." : "::");
        }
        put(f, names->name);
    }
    if (m->generic_count) {
        PUT(f, "<");
        if (names && names->generic_names) {
            for (uint32_t i = 0; i < m->generic_count; i++) {
                if (i)
                    PUT(f, ", ");
                put(f, names->generic_names[i] ? names->generic_names[i] : "?");
            }
        } else if (csharp(f)) {
            for (uint32_t i = 0; i < m->generic_count; i++) {
                if (i)
                    PUT(f, ", ");
                PUT(f, "!!");
                put_u(f, i);
            }
        } else {
            PUT(f, "[");
            put_u(f, m->generic_count);
            PUT(f, "]");
        }
        PUT(f, ">");
    }
    PUT(f, "(");
    for (uint32_t i = 0; i < m->param_count; i++) {
        if (i)
            PUT(f, ", ");
        if (i == m->sentinel)
            PUT(f, "..., ");
        fmt_param(f, m->params[i], names, i);
    }
    PUT(f, ")");
}

static void fmt_list(fmt *f, const char *open, const char *close, uint32_t n,
                     const clrsig_type *const *list)
{
    put(f, open);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            PUT(f, ", ");
        fmt_type(f, list[i]);
    }
    put(f, close);
}

static void fmt_init(fmt *f, const clrsig_format_opts *opts, const clrsig_resolver *r,
                     char *out, size_t cap)
{
    memset(&f->o, 0, sizeof f->o);
    f->o.p = out;
    f->o.cap = out ? cap : 0;
    f->style = opts ? opts->style : CLRSIG_STYLE_CSHARP;
    f->short_names = opts ? opts->short_names : 0;
    f->scratch = opts ? opts->scratch : NULL;
    f->r = r;
    f->fatal = CLRSIG_OK;
    f->in_actual = 0;
    f->nexpand = 0;
    f->nexpanded = 0;
    f->depth = 0;
}

static clrsig_status fmt_done(fmt *f, size_t *needed, clrsig_error *err)
{
    clrsig_status st = finish(f, needed);
    if (f->fatal != CLRSIG_OK)
        st = f->fatal;
    if (err) {
        err->code = st;
        err->offset = 0;
    }
    return st;
}

/* fmt holds three name buffers (3 KiB); one per call, on the caller's stack. */
clrsig_status clrsig_format_type(const clrsig_type *t, const clrsig_format_opts *opts,
                                 const clrsig_resolver *r, char *out, size_t cap,
                                 size_t *needed, clrsig_error *err)
{
    fmt f;
    fmt_init(&f, opts, r, out, cap);
    fmt_type(&f, t);
    return fmt_done(&f, needed, err);
}

clrsig_status clrsig_format_method(const clrsig_method *m, const clrsig_method_names *names,
                                   const clrsig_format_opts *opts, const clrsig_resolver *r,
                                   char *out, size_t cap, size_t *needed, clrsig_error *err)
{
    fmt f;
    fmt_init(&f, opts, r, out, cap);
    if (!m || !m->ret || (m->param_count && !m->params))
        set_fatal(&f, CLRSIG_E_ARGUMENT);
    else
        fmt_method(&f, m, names);
    return fmt_done(&f, needed, err);
}

clrsig_status clrsig_format_sig(const clrsig_sig *s, const clrsig_format_opts *opts,
                                const clrsig_resolver *r, char *out, size_t cap,
                                size_t *needed, clrsig_error *err)
{
    fmt f;
    fmt_init(&f, opts, r, out, cap);
    if (!s) {
        set_fatal(&f, CLRSIG_E_ARGUMENT);
        return fmt_done(&f, needed, err);
    }
    switch (s->kind) {
    case CLRSIG_KIND_METHOD:
    case CLRSIG_KIND_PROPERTY:
        if (!s->method.ret)
            set_fatal(&f, CLRSIG_E_ARGUMENT);
        else
            fmt_method(&f, &s->method, NULL);
        break;
    case CLRSIG_KIND_FIELD:
    case CLRSIG_KIND_TYPESPEC:
        fmt_type(&f, s->field);
        break;
    case CLRSIG_KIND_LOCALS:
        fmt_list(&f, "(", ")", s->count, s->list);
        break;
    case CLRSIG_KIND_METHODSPEC:
        fmt_list(&f, "<", ">", s->count, s->list);
        break;
    default:
        set_fatal(&f, CLRSIG_E_ARGUMENT);
        break;
    }
    return fmt_done(&f, needed, err);
}

clrsig_status clrsig_format_token(uint32_t token, const clrsig_format_opts *opts,
                                  const clrsig_resolver *r, char *out, size_t cap,
                                  size_t *needed, clrsig_error *err)
{
    fmt f;
    fmt_init(&f, opts, r, out, cap);
    fmt_token(&f, token, NULL);
    return fmt_done(&f, needed, err);
}
