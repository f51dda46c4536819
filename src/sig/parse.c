/* The signature grammar of ECMA-335 II.23.2, as a recursive-descent parser
 * over a bounds-checked cursor. Recursion depth is counted and capped at
 * CLRSIG_MAX_DEPTH; every count is checked against its named limit and the
 * bytes left before anything is allocated for it. */
#include <string.h>

#include "sig_internal.h"

/* Where a type stands decides which element types it may be. */
typedef enum {
    POS_INNER,  /* inside another type: generic argument, array element */
    POS_PTR,    /* pointer target: void allowed */
    POS_TOP,    /* parameter, field, property, TypeSpec: BYREF, TYPEDBYREF allowed */
    POS_RET,    /* return type: as POS_TOP plus void */
    POS_LOCAL,  /* local variable: as POS_TOP plus PINNED */
} type_pos;

typedef struct reader {
    const uint8_t *b;
    size_t len;
    size_t pos;
    const clrsig_parse_opts *opts;
    clrsig_arena *arena;
    clrsig_error err;
} reader;

static clrsig_status fail(reader *r, clrsig_status code, size_t offset)
{
    r->err.code = code;
    r->err.offset = (uint32_t)offset;
    return code;
}

static size_t left(const reader *r)
{
    return r->len - r->pos;
}

static clrsig_status read_byte(reader *r, uint8_t *v)
{
    if (left(r) < 1)
        return fail(r, CLRSIG_E_TRUNCATED, r->pos);
    *v = r->b[r->pos++];
    return CLRSIG_OK;
}

static clrsig_status read_u(reader *r, uint32_t *v)
{
    uint32_t used;
    clrsig_status st = clrsig_read_u(r->b + r->pos, left(r), v, &used);
    if (st != CLRSIG_OK)
        return fail(r, st, r->pos);
    r->pos += used;
    return CLRSIG_OK;
}

static clrsig_status read_s(reader *r, int32_t *v)
{
    uint32_t used;
    clrsig_status st = clrsig_read_s(r->b + r->pos, left(r), v, &used);
    if (st != CLRSIG_OK)
        return fail(r, st, r->pos);
    r->pos += used;
    return CLRSIG_OK;
}

static clrsig_status read_type_token(reader *r, uint32_t *tok)
{
    uint32_t used;
    size_t at = r->pos;
    clrsig_status st = clrsig_read_token(r->b + r->pos, left(r), tok, &used);
    if (st != CLRSIG_OK)
        return fail(r, st, at);
    if ((*tok & 0x00FFFFFFu) == 0)
        return fail(r, CLRSIG_E_NIL_TOKEN, at);
    r->pos += used;
    return CLRSIG_OK;
}

static clrsig_status read_pointer(reader *r, uint64_t *v)
{
    uint32_t n = r->opts->pointer_size;
    if (left(r) < n)
        return fail(r, CLRSIG_E_TRUNCATED, r->pos);
    uint64_t x = 0;
    for (uint32_t i = 0; i < n; i++)
        x |= (uint64_t)r->b[r->pos + i] << (8 * i);
    r->pos += n;
    *v = x;
    return CLRSIG_OK;
}

static void *alloc(reader *r, size_t size, size_t at)
{
    void *p = sig_arena_alloc(r->arena, size);
    if (!p)
        fail(r, CLRSIG_E_ARENA_FULL, at);
    else
        memset(p, 0, size);
    return p;
}

static clrsig_type *new_type(reader *r, uint8_t kind, size_t at)
{
    clrsig_type *t = alloc(r, sizeof *t, at);
    if (t) {
        t->kind = kind;
        t->offset = (uint32_t)at;
    }
    return t;
}

static clrsig_status parse_type(reader *r, type_pos pos, unsigned depth, const clrsig_type **out);
static clrsig_status parse_method_body(reader *r, uint8_t cc, size_t at, unsigned depth,
                                       int property, clrsig_method *m);

static int is_method_callconv(uint8_t cc)
{
    if (cc & 0x80)
        return 0;
    if ((cc & CLRSIG_CC_EXPLICITTHIS) && !(cc & CLRSIG_CC_HASTHIS))
        return 0;
    switch (cc & CLRSIG_CC_MASK) {
    case CLRSIG_CC_DEFAULT: case CLRSIG_CC_C: case CLRSIG_CC_STDCALL:
    case CLRSIG_CC_THISCALL: case CLRSIG_CC_FASTCALL: case CLRSIG_CC_VARARG:
    case CLRSIG_CC_UNMANAGED: case CLRSIG_CC_NATIVEVARARG:
        return 1;
    default:
        return 0;
    }
}

/* Reads a count that must fit both its limit and the bytes left, where each
 * counted item takes at least one byte, plus `reserve` bytes that follow. */
static clrsig_status read_count(reader *r, uint32_t limit, size_t reserve, uint32_t *count)
{
    size_t at = r->pos;
    clrsig_status st = read_u(r, count);
    if (st != CLRSIG_OK)
        return st;
    if (*count > limit || (size_t)*count + reserve > left(r))
        return fail(r, CLRSIG_E_COUNT, at);
    return CLRSIG_OK;
}

static clrsig_status parse_array_shape(reader *r, unsigned depth, clrsig_type *t)
{
    clrsig_status st = parse_type(r, POS_INNER, depth + 1, &t->u.array.elem);
    if (st != CLRSIG_OK)
        return st;
    size_t at = r->pos;
    uint32_t rank, n;
    if ((st = read_u(r, &rank)) != CLRSIG_OK)
        return st;
    if (rank == 0 || rank > CLRSIG_MAX_RANK)
        return fail(r, CLRSIG_E_RANK, at);
    t->u.array.rank = rank;

    at = r->pos;
    if ((st = read_u(r, &n)) != CLRSIG_OK)
        return st;
    if (n > rank)
        return fail(r, CLRSIG_E_RANK, at);
    uint32_t *sizes = n ? alloc(r, n * sizeof *sizes, at) : NULL;
    if (n && !sizes)
        return r->err.code;
    for (uint32_t i = 0; i < n; i++)
        if ((st = read_u(r, &sizes[i])) != CLRSIG_OK)
            return st;
    t->u.array.nsizes = n;
    t->u.array.sizes = sizes;

    at = r->pos;
    if ((st = read_u(r, &n)) != CLRSIG_OK)
        return st;
    if (n > rank)
        return fail(r, CLRSIG_E_RANK, at);
    int32_t *lo = n ? alloc(r, n * sizeof *lo, at) : NULL;
    if (n && !lo)
        return r->err.code;
    for (uint32_t i = 0; i < n; i++)
        if ((st = read_s(r, &lo[i])) != CLRSIG_OK)
            return st;
    t->u.array.nlobounds = n;
    t->u.array.lobounds = lo;
    return CLRSIG_OK;
}

static clrsig_status parse_generic_inst(reader *r, unsigned depth, clrsig_type *t)
{
    size_t at = r->pos;
    uint8_t k;
    clrsig_status st = read_byte(r, &k);
    if (st != CLRSIG_OK)
        return st;
    if (k != CLRSIG_ET_CLASS && k != CLRSIG_ET_VALUETYPE)
        return fail(r, CLRSIG_E_BAD_ELEMENT, at);
    clrsig_type *g = new_type(r, k, at);
    if (!g)
        return r->err.code;
    if ((st = read_type_token(r, &g->u.token)) != CLRSIG_OK)
        return st;
    t->u.inst.generic = g;

    at = r->pos;
    uint32_t argc;
    if ((st = read_count(r, CLRSIG_MAX_GENERIC_ARGS, 0, &argc)) != CLRSIG_OK)
        return st;
    if (argc == 0)
        return fail(r, CLRSIG_E_COUNT, at);
    const clrsig_type **args = alloc(r, argc * sizeof *args, at);
    if (!args)
        return r->err.code;
    for (uint32_t i = 0; i < argc; i++)
        if ((st = parse_type(r, POS_INNER, depth + 1, &args[i])) != CLRSIG_OK)
            return st;
    t->u.inst.argc = argc;
    t->u.inst.args = args;
    return CLRSIG_OK;
}

static clrsig_status parse_type(reader *r, type_pos pos, unsigned depth, const clrsig_type **out)
{
    size_t at = r->pos;
    if (depth > CLRSIG_MAX_DEPTH)
        return fail(r, CLRSIG_E_DEPTH, at);
    uint8_t k;
    clrsig_status st = read_byte(r, &k);
    if (st != CLRSIG_OK)
        return st;
    int internal = r->opts->runtime_internal;

    switch (k) {
    case CLRSIG_ET_VOID:
        if (pos != POS_RET && pos != POS_PTR)
            return fail(r, CLRSIG_E_BAD_ELEMENT, at);
        break;
    case CLRSIG_ET_BOOLEAN: case CLRSIG_ET_CHAR: case CLRSIG_ET_I1: case CLRSIG_ET_U1:
    case CLRSIG_ET_I2: case CLRSIG_ET_U2: case CLRSIG_ET_I4: case CLRSIG_ET_U4:
    case CLRSIG_ET_I8: case CLRSIG_ET_U8: case CLRSIG_ET_R4: case CLRSIG_ET_R8:
    case CLRSIG_ET_STRING: case CLRSIG_ET_I: case CLRSIG_ET_U: case CLRSIG_ET_OBJECT:
        break;
    case CLRSIG_ET_TYPEDBYREF:
        if (pos == POS_INNER || pos == POS_PTR)
            return fail(r, CLRSIG_E_BAD_ELEMENT, at);
        break;
    case CLRSIG_ET_CANON:
        if (!internal)
            return fail(r, CLRSIG_E_BAD_ELEMENT, at);
        break;
    case CLRSIG_ET_INTERNAL:
    case CLRSIG_ET_CMOD_INTERNAL:
        if (!internal)
            return fail(r, CLRSIG_E_BAD_ELEMENT, at);
        break;
    case CLRSIG_ET_CLASS: case CLRSIG_ET_VALUETYPE:
    case CLRSIG_ET_VAR: case CLRSIG_ET_MVAR:
    case CLRSIG_ET_PTR: case CLRSIG_ET_SZARRAY: case CLRSIG_ET_ARRAY:
    case CLRSIG_ET_GENERICINST: case CLRSIG_ET_FNPTR:
    case CLRSIG_ET_CMOD_REQD: case CLRSIG_ET_CMOD_OPT:
        break;
    case CLRSIG_ET_BYREF:
        if (pos == POS_INNER || pos == POS_PTR)
            return fail(r, CLRSIG_E_BAD_ELEMENT, at);
        break;
    case CLRSIG_ET_PINNED:
        if (pos != POS_LOCAL)
            return fail(r, CLRSIG_E_BAD_ELEMENT, at);
        break;
    default:
        return fail(r, CLRSIG_E_BAD_ELEMENT, at);
    }

    clrsig_type *t = new_type(r, k, at);
    if (!t)
        return r->err.code;

    switch (k) {
    case CLRSIG_ET_CLASS: case CLRSIG_ET_VALUETYPE:
        st = read_type_token(r, &t->u.token);
        break;
    case CLRSIG_ET_VAR: case CLRSIG_ET_MVAR:
        st = read_u(r, &t->u.index);
        break;
    case CLRSIG_ET_PTR:
        st = parse_type(r, POS_PTR, depth + 1, &t->u.elem);
        break;
    case CLRSIG_ET_SZARRAY:
        st = parse_type(r, POS_INNER, depth + 1, &t->u.elem);
        break;
    case CLRSIG_ET_BYREF:
        /* The target of a byref is an ordinary type: no second byref. */
        st = parse_type(r, POS_INNER, depth + 1, &t->u.elem);
        break;
    case CLRSIG_ET_PINNED:
        st = parse_type(r, POS_LOCAL, depth + 1, &t->u.elem);
        break;
    case CLRSIG_ET_ARRAY:
        st = parse_array_shape(r, depth, t);
        break;
    case CLRSIG_ET_GENERICINST:
        st = parse_generic_inst(r, depth, t);
        break;
    case CLRSIG_ET_FNPTR: {
        clrsig_method *m = alloc(r, sizeof *m, at);
        uint8_t cc;
        size_t cc_at = r->pos;
        if (!m)
            return r->err.code;
        if ((st = read_byte(r, &cc)) != CLRSIG_OK)
            return st;
        if (!is_method_callconv(cc))
            return fail(r, CLRSIG_E_BAD_CALLCONV, cc_at);
        st = parse_method_body(r, cc, cc_at, depth + 1, 0, m);
        t->u.fnptr = m;
        break;
    }
    case CLRSIG_ET_CMOD_REQD: case CLRSIG_ET_CMOD_OPT:
        /* A modifier applies to the type that follows, in the same position. */
        if ((st = read_type_token(r, &t->u.mod.token)) != CLRSIG_OK)
            return st;
        t->required = k == CLRSIG_ET_CMOD_REQD;
        st = parse_type(r, pos, depth + 1, &t->u.mod.elem);
        break;
    case CLRSIG_ET_CMOD_INTERNAL: {
        uint8_t req;
        if ((st = read_byte(r, &req)) != CLRSIG_OK)
            return st;
        t->required = req != 0;
        if ((st = read_pointer(r, &t->u.mod.handle)) != CLRSIG_OK)
            return st;
        st = parse_type(r, pos, depth + 1, &t->u.mod.elem);
        break;
    }
    case CLRSIG_ET_INTERNAL:
        st = read_pointer(r, &t->u.handle);
        break;
    default:
        break;
    }
    if (st == CLRSIG_OK)
        *out = t;
    return st;
}

/* After the calling-convention byte: [GenParamCount] ParamCount RetType Param*.
 * A property has no generic count and no sentinel. */
static clrsig_status parse_method_body(reader *r, uint8_t cc, size_t at, unsigned depth,
                                       int property, clrsig_method *m)
{
    clrsig_status st;
    m->callconv = cc;
    m->sentinel = UINT32_MAX;
    if (!property && (cc & CLRSIG_CC_GENERIC))
        if ((st = read_count(r, CLRSIG_MAX_GENERIC_ARGS, 0, &m->generic_count)) != CLRSIG_OK)
            return st;
    size_t count_at = r->pos;
    uint32_t n;
    /* The return type takes at least one byte after the parameters' count. */
    if ((st = read_count(r, CLRSIG_MAX_PARAMS, 1, &n)) != CLRSIG_OK)
        return st;
    if ((st = parse_type(r, POS_RET, depth, &m->ret)) != CLRSIG_OK)
        return st;
    if (property && m->ret->kind == CLRSIG_ET_VOID)
        return fail(r, CLRSIG_E_BAD_ELEMENT, m->ret->offset);
    const clrsig_type **params = NULL;
    if (n) {
        params = alloc(r, n * sizeof *params, count_at);
        if (!params)
            return r->err.code;
    }
    int vararg = (cc & CLRSIG_CC_MASK) == CLRSIG_CC_VARARG ||
                 (cc & CLRSIG_CC_MASK) == CLRSIG_CC_NATIVEVARARG;
    for (uint32_t i = 0; i < n; i++) {
        if (left(r) >= 1 && r->b[r->pos] == CLRSIG_ET_SENTINEL) {
            if (property || !vararg || m->sentinel != UINT32_MAX)
                return fail(r, CLRSIG_E_SENTINEL, r->pos);
            m->sentinel = i;
            r->pos++;
        }
        if ((st = parse_type(r, POS_TOP, depth, &params[i])) != CLRSIG_OK)
            return st;
    }
    m->param_count = n;
    m->params = params;
    return CLRSIG_OK;
}

static clrsig_kind guess_kind(uint8_t b)
{
    if (b == CLRSIG_CC_FIELD)
        return CLRSIG_KIND_FIELD;
    if (b == CLRSIG_CC_LOCAL_SIG)
        return CLRSIG_KIND_LOCALS;
    if (b == CLRSIG_CC_GENERICINST)
        return CLRSIG_KIND_METHODSPEC;
    if ((b & ~CLRSIG_CC_HASTHIS) == CLRSIG_CC_PROPERTY)
        return CLRSIG_KIND_PROPERTY;
    if (is_method_callconv(b))
        return CLRSIG_KIND_METHOD;
    return CLRSIG_KIND_TYPESPEC;
}

static clrsig_status check_opts(const clrsig_parse_opts *o)
{
    if (o->runtime_internal && o->pointer_size != 4 && o->pointer_size != 8)
        return CLRSIG_E_ARGUMENT;
    return CLRSIG_OK;
}

static const clrsig_parse_opts strict_opts;

static void set_err(clrsig_error *err, clrsig_status code, uint32_t offset)
{
    if (err) {
        err->code = code;
        err->offset = offset;
    }
}

static clrsig_status start(reader *r, const uint8_t *blob, size_t len,
                           const clrsig_parse_opts *opts, clrsig_arena *arena, clrsig_error *err)
{
    r->b = blob;
    r->len = len;
    r->pos = 0;
    r->opts = opts ? opts : &strict_opts;
    r->arena = arena;
    r->err.code = CLRSIG_OK;
    r->err.offset = 0;
    if ((!blob && len) || !arena || check_opts(r->opts) != CLRSIG_OK) {
        set_err(err, CLRSIG_E_ARGUMENT, 0);
        return CLRSIG_E_ARGUMENT;
    }
    return CLRSIG_OK;
}

static clrsig_status parse_list(reader *r, uint32_t limit, type_pos pos, int at_least_one,
                                uint32_t *count, const clrsig_type *const **list)
{
    size_t at = r->pos;
    clrsig_status st = read_count(r, limit, 0, count);
    if (st != CLRSIG_OK)
        return st;
    if (at_least_one && *count == 0)
        return fail(r, CLRSIG_E_COUNT, at);
    const clrsig_type **items = NULL;
    if (*count) {
        items = alloc(r, *count * sizeof *items, at);
        if (!items)
            return r->err.code;
    }
    for (uint32_t i = 0; i < *count; i++)
        if ((st = parse_type(r, pos, 1, &items[i])) != CLRSIG_OK)
            return st;
    *list = items;
    return CLRSIG_OK;
}

static clrsig_status parse_blob(reader *r, clrsig_kind kind, clrsig_sig *out)
{
    clrsig_status st;
    uint8_t b;
    if (kind == CLRSIG_KIND_TYPESPEC)
        return parse_type(r, POS_TOP, 1, &out->field);
    if ((st = read_byte(r, &b)) != CLRSIG_OK)
        return st;
    switch (kind) {
    case CLRSIG_KIND_METHOD:
        if (!is_method_callconv(b))
            return fail(r, CLRSIG_E_BAD_CALLCONV, 0);
        return parse_method_body(r, b, 0, 1, 0, &out->method);
    case CLRSIG_KIND_PROPERTY:
        if ((b & ~CLRSIG_CC_HASTHIS) != CLRSIG_CC_PROPERTY)
            return fail(r, CLRSIG_E_BAD_CALLCONV, 0);
        return parse_method_body(r, b, 0, 1, 1, &out->method);
    case CLRSIG_KIND_FIELD:
        if (b != CLRSIG_CC_FIELD)
            return fail(r, CLRSIG_E_BAD_CALLCONV, 0);
        return parse_type(r, POS_TOP, 1, &out->field);
    case CLRSIG_KIND_LOCALS:
        if (b != CLRSIG_CC_LOCAL_SIG)
            return fail(r, CLRSIG_E_BAD_CALLCONV, 0);
        return parse_list(r, CLRSIG_MAX_LOCALS, POS_LOCAL, 0, &out->count, &out->list);
    case CLRSIG_KIND_METHODSPEC:
        if (b != CLRSIG_CC_GENERICINST)
            return fail(r, CLRSIG_E_BAD_CALLCONV, 0);
        return parse_list(r, CLRSIG_MAX_GENERIC_ARGS, POS_INNER, 1, &out->count, &out->list);
    default:
        return fail(r, CLRSIG_E_ARGUMENT, 0);
    }
}

clrsig_status clrsig_parse(const uint8_t *blob, size_t len, clrsig_kind kind,
                           const clrsig_parse_opts *opts, clrsig_arena *arena,
                           clrsig_sig *out, clrsig_error *err)
{
    reader r;
    clrsig_status st = start(&r, blob, len, opts, arena, err);
    if (st != CLRSIG_OK)
        return st;
    if (!out || (unsigned)kind > CLRSIG_KIND_ANY) {
        set_err(err, CLRSIG_E_ARGUMENT, 0);
        return CLRSIG_E_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    if (kind == CLRSIG_KIND_ANY) {
        if (len == 0) {
            set_err(err, CLRSIG_E_TRUNCATED, 0);
            return CLRSIG_E_TRUNCATED;
        }
        kind = guess_kind(blob[0]);
    }
    out->kind = kind;
    st = parse_blob(&r, kind, out);
    if (st == CLRSIG_OK && r.pos != len && !r.opts->allow_trailing)
        st = fail(&r, CLRSIG_E_TRAILING, r.pos);
    out->length = (uint32_t)r.pos;
    set_err(err, st, st == CLRSIG_OK ? (uint32_t)r.pos : r.err.offset);
    return st;
}

clrsig_status clrsig_parse_type(const uint8_t *blob, size_t len,
                                const clrsig_parse_opts *opts, clrsig_arena *arena,
                                const clrsig_type **out, uint32_t *used,
                                clrsig_error *err)
{
    reader r;
    clrsig_status st = start(&r, blob, len, opts, arena, err);
    if (st != CLRSIG_OK)
        return st;
    if (!out) {
        set_err(err, CLRSIG_E_ARGUMENT, 0);
        return CLRSIG_E_ARGUMENT;
    }
    st = parse_type(&r, POS_TOP, 1, out);
    if (used)
        *used = (uint32_t)r.pos;
    set_err(err, st, st == CLRSIG_OK ? (uint32_t)r.pos : r.err.offset);
    return st;
}

const clrsig_type *clrsig_strip(const clrsig_type *t)
{
    while (t && (t->kind == CLRSIG_ET_CMOD_REQD || t->kind == CLRSIG_ET_CMOD_OPT ||
                 t->kind == CLRSIG_ET_CMOD_INTERNAL || t->kind == CLRSIG_ET_PINNED))
        t = t->kind == CLRSIG_ET_PINNED ? t->u.elem : t->u.mod.elem;
    return t;
}
