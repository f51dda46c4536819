/* Fault injection's text (src/format/inject_spec.h): the parser, and the
 * selectors' decision. No allocation. */
#define _POSIX_C_SOURCE 200809L
#include "inject_spec.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "words.h"

typedef struct istate {
    const char *s;
    size_t pos, len;
    ct_expr_error *err;
} istate;

static int fail(istate *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(istate *p, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ct_expr_verror(p->err, at, fmt, ap);
    va_end(ap);
    return -1;
}

static void skip_space(istate *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
        p->pos++;
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* The word at the position (letters, digits, '_'), taken: its length. */
static size_t take_word(istate *p, char *out, size_t cap)
{
    size_t n = 0;
    while (p->pos < p->len && word_char(p->s[p->pos])) {
        if (n + 1 < cap)
            out[n] = p->s[p->pos];
        n++;
        p->pos++;
    }
    out[n < cap ? n : cap - 1] = '\0';
    return n;
}

/* The token at the position up to a space outside a string, taken:
 * [*start, *end). */
static void take_token(istate *p, size_t *start, size_t *end)
{
    *start = p->pos;
    int quoted = 0;
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (!quoted && (c == ' ' || c == '\t'))
            break;
        if (c == '\\' && quoted && p->pos + 1 < p->len)
            p->pos++;
        else if (c == '"')
            quoted = !quoted;
        p->pos++;
    }
    *end = p->pos;
}

/* A literal text[a..b) parsed as the conditions' grammar parses one (its
 * errors' offsets moved back into text). */
static int parse_literal(istate *p, size_t a, size_t b, ct_expr *e)
{
    static const char pre[] = "g: x == ";
    char buf[CT_EXPR_MAX_TEXT + sizeof pre];
    if (b - a + sizeof pre > sizeof buf)
        return fail(p, a, "a value longer than %u bytes", CT_EXPR_MAX_TEXT);
    memcpy(buf, pre, sizeof pre - 1);
    memcpy(buf + sizeof pre - 1, p->s + a, b - a);
    buf[sizeof pre - 1 + b - a] = '\0';
    ct_expr_error err;
    if (ct_expr_parse(buf, e, &err) != 0) {
        /* The message without its " at offset N", which is the synthetic
         * text's. */
        char *tail = strstr(err.message, " at offset ");
        if (tail)
            *tail = '\0';
        size_t at = err.offset >= sizeof pre - 1 ? a + err.offset - (sizeof pre - 1) : a;
        return fail(p, at, "%s", err.message);
    }
    if (e->nodes[e->root].op != CT_XOP_CMP)
        return fail(p, a, "expected one value");
    return 0;
}

/* A whole number in [1, max] at the position, taken. */
static int take_count(istate *p, const char *what, uint32_t max, uint32_t *out)
{
    skip_space(p);
    size_t at = p->pos;
    uint64_t v = 0;
    int digits = 0;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        v = v * 10 + (uint64_t)(p->s[p->pos++] - '0');
        if (v > max)
            return fail(p, at, "%s takes a whole number from 1 to %u", what, max);
        digits++;
    }
    if (!digits || v == 0)
        return fail(p, at, "%s takes a whole number from 1 to %u", what, max);
    *out = (uint32_t)v;
    return 0;
}

/* probability P: 0.25, 1, or 25% (above 0, at most 1). */
static int take_probability(istate *p, uint32_t *out)
{
    skip_space(p);
    size_t at = p->pos;
    double v = 0, scale = 1;
    int digits = 0, point = 0;
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c >= '0' && c <= '9') {
            if (point)
                scale /= 10;
            v = v * 10 + (c - '0');
            digits++;
        } else if (c == '.' && !point) {
            point = 1;
        } else {
            break;
        }
        if (digits > 12)
            return fail(p, at, "probability takes at most 12 digits");
        p->pos++;
    }
    v *= scale;
    if (p->pos < p->len && p->s[p->pos] == '%') {
        p->pos++;
        v /= 100;
    }
    if (!digits || !(v > 0) || v > 1)
        return fail(p, at, "probability takes a number above 0 and at most 1 (0.25, or 25%%)");
    double parts = v * 4294967295.0;
    *out = parts < 1 ? 1 : (uint32_t)(parts + 0.5);
    return 0;
}

static int parse_throw(istate *p, ct_inject_spec *s)
{
    skip_space(p);
    size_t at = p->pos, n = 0;
    s->at = (uint32_t)at;
    while (p->pos < p->len && (word_char(p->s[p->pos]) || p->s[p->pos] == '.' ||
                               p->s[p->pos] == '`' || p->s[p->pos] == '+')) {
        if (n >= CT_INJECT_MAX_TYPE)
            return fail(p, at, "an exception type's name longer than %u bytes",
                        CT_INJECT_MAX_TYPE);
        s->type[n++] = p->s[p->pos++];
    }
    s->type[n] = '\0';
    if (!n || s->type[0] == '.' || s->type[n - 1] == '.' || (s->type[0] >= '0' && s->type[0] <= '9'))
        return fail(p, at, "expected an exception type's name after 'throw' "
                           "(TimeoutException, System.IO.IOException)");
    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == '(') {
        p->pos++;
        skip_space(p);
        size_t a = p->pos, b;
        if (p->pos >= p->len || p->s[p->pos] != '"')
            return fail(p, p->pos, "expected the message, a string in \"\", after '('");
        p->pos++;
        while (p->pos < p->len && p->s[p->pos] != '"') {
            if (p->s[p->pos] == '\\' && p->pos + 1 < p->len)
                p->pos++;
            p->pos++;
        }
        if (p->pos >= p->len)
            return fail(p, a, "a string without its closing '\"'");
        b = ++p->pos;
        if (parse_literal(p, a, b, &s->value) != 0)
            return -1;
        skip_space(p);
        if (p->pos >= p->len || p->s[p->pos] != ')')
            return fail(p, p->pos, "expected ')' after the message");
        p->pos++;
        const ct_expr_lit *lit = ct_inject_value(s);
        s->msg_off = lit->off;
        s->msg_len = lit->len;
        return 0;
    }
    /* The default message, in the value's pool. */
    static const char dflt[] = CT_INJECT_MESSAGE;
    memset(&s->value, 0, offsetof(ct_expr, nodes));
    for (size_t i = 0; i + 1 < sizeof dflt; i++)
        s->value.strings[i] = (uint16_t)dflt[i];
    s->msg_off = 0;
    s->msg_len = (uint16_t)(sizeof dflt - 1);
    return 0;
}

static int parse_return(istate *p, ct_inject_spec *s)
{
    skip_space(p);
    size_t a, b;
    take_token(p, &a, &b);
    s->at = (uint32_t)a;
    if (a == b)
        return fail(p, a, "expected a value after 'return' (42, \"text\", null, default)");
    if (b - a == 7 && !memcmp(p->s + a, "default", 7)) {
        s->is_default = 1;
        return 0;
    }
    return parse_literal(p, a, b, &s->value);
}

static int parse_delay(istate *p, ct_inject_spec *s)
{
    skip_space(p);
    size_t a, b;
    take_token(p, &a, &b);
    char buf[48];
    uint64_t ns = 0;
    if (a == b || b - a >= sizeof buf)
        return fail(p, a, "expected a time after 'delay' (200ms, 1.5s)");
    memcpy(buf, p->s + a, b - a);
    buf[b - a] = '\0';
    size_t n = b - a;
    /* A unit is required: a bare number is ambiguous here. */
    if (!(n > 1 && buf[n - 1] == 's'))
        return fail(p, a, "expected a time with its unit after 'delay' (200ms, 1.5s, 500us)");
    if (ct_parse_duration(buf, &ns) != 0)
        return fail(p, a, "expected a time after 'delay' (200ms, 1.5s)");
    uint64_t ms = (ns + 999999) / 1000000;
    if (ms < CT_INJECT_MIN_DELAY_MS || ms > CT_INJECT_MAX_DELAY_MS)
        return fail(p, a, "a delay from %ums to %us", CT_INJECT_MIN_DELAY_MS,
                    CT_INJECT_MAX_DELAY_MS / 1000);
    s->delay_ms = (uint32_t)ms;
    return 0;
}

/* when COND: the rest, parsed as --when 'GLOB: COND'. */
static int parse_when(istate *p, ct_inject_spec *s)
{
    skip_space(p);
    size_t c0 = p->pos;
    if (c0 >= p->len)
        return fail(p, c0, "expected a condition after 'when'");
    char buf[CT_EXPR_MAX_TEXT + CT_EXPR_MAX_GLOB + 4];
    int pre = snprintf(buf, sizeof buf, "%s: ", s->glob);
    if (pre < 0 || (size_t)pre + (p->len - c0) >= sizeof buf)
        return fail(p, c0, "a condition longer than %u bytes", CT_EXPR_MAX_TEXT);
    memcpy(buf + pre, p->s + c0, p->len - c0);
    buf[(size_t)pre + p->len - c0] = '\0';
    ct_expr_error err;
    if (ct_expr_parse(buf, &s->when, &err) != 0) {
        char *tail = strstr(err.message, " at offset ");
        if (tail)
            *tail = '\0';
        size_t at = err.offset >= (size_t)pre ? c0 + err.offset - (size_t)pre : c0;
        return fail(p, at, "%s", err.message);
    }
    if (ct_expr_needs_return(&s->when))
        return fail(p, c0, "an injection decides at the call's entry: its condition cannot "
                           "name return or exception");
    s->has_when = 1;
    p->pos = p->len;
    return 0;
}

int ct_inject_parse(const char *text, ct_inject_spec *s, ct_expr_error *err)
{
    memset(err, 0, sizeof *err);
    memset(s, 0, offsetof(ct_inject_spec, value));
    s->is_default = 0;
    s->delay_ms = s->every = s->after = s->first = s->last = s->probability = 0;
    s->has_when = 0;
    memset(&s->value, 0, offsetof(ct_expr, nodes));
    istate p = {.s = text, .pos = 0, .len = 0, .err = err};
    if (!text)
        return fail(&p, 0, "nothing to inject given");
    size_t len = strnlen(text, CT_EXPR_MAX_TEXT + 1);
    if (len > CT_EXPR_MAX_TEXT)
        return fail(&p, CT_EXPR_MAX_TEXT, "an --inject longer than %u bytes", CT_EXPR_MAX_TEXT);
    p.len = len;
    memcpy(s->text, text, len);
    s->text[len] = '\0';
    const char *colon = memchr(text, ':', len);
    if (!colon)
        return fail(&p, 0, "expected 'GLOB: ACTION' (a method pattern, ':', then throw, "
                           "return or delay)");
    if (ct_expr_glob(text, (size_t)(colon - text), s->glob, err) != 0)
        return -1;
    p.pos = (size_t)(colon - text) + 1;
    skip_space(&p);
    size_t at = p.pos;
    char w[16];
    take_word(&p, w, sizeof w);
    int rc;
    if (!strcmp(w, "throw")) {
        s->action = CT_INJECT_THROW;
        rc = parse_throw(&p, s);
    } else if (!strcmp(w, "return")) {
        s->action = CT_INJECT_RETURN;
        rc = parse_return(&p, s);
    } else if (!strcmp(w, "delay")) {
        s->action = CT_INJECT_DELAY;
        rc = parse_delay(&p, s);
    } else {
        return fail(&p, at, "expected throw, return or delay after ':'");
    }
    if (rc != 0)
        return -1;
    int range = 0;
    for (;;) {
        skip_space(&p);
        if (p.pos >= p.len)
            break;
        at = p.pos;
        if (text[p.pos] >= '0' && text[p.pos] <= '9') {
            /* first..last */
            if (range)
                return fail(&p, at, "a second range");
            if (take_count(&p, "a range", CT_INJECT_MAX_COUNT, &s->first) != 0)
                return -1;
            if (p.pos + 1 >= p.len || text[p.pos] != '.' || text[p.pos + 1] != '.')
                return fail(&p, p.pos, "expected '..' in the range FIRST..LAST (3..5)");
            p.pos += 2;
            if (take_count(&p, "a range", CT_INJECT_MAX_COUNT, &s->last) != 0)
                return -1;
            if (s->last < s->first)
                return fail(&p, at, "a range FIRST..LAST whose LAST is below its FIRST");
            range = 1;
            continue;
        }
        take_word(&p, w, sizeof w);
        if (!strcmp(w, "every")) {
            if (s->every)
                return fail(&p, at, "a second 'every'");
            if (take_count(&p, "every", CT_INJECT_MAX_COUNT, &s->every) != 0)
                return -1;
        } else if (!strcmp(w, "after")) {
            if (s->after)
                return fail(&p, at, "a second 'after'");
            if (take_count(&p, "after", CT_INJECT_MAX_COUNT, &s->after) != 0)
                return -1;
        } else if (!strcmp(w, "probability")) {
            if (s->probability)
                return fail(&p, at, "a second 'probability'");
            if (take_probability(&p, &s->probability) != 0)
                return -1;
        } else if (!strcmp(w, "when")) {
            return parse_when(&p, s);
        } else {
            return fail(&p, at, "expected every N, after N, FIRST..LAST, probability P, "
                                "when CONDITION or the end");
        }
    }
    return 0;
}

/* splitmix64's finalizer: a well-mixed 64-bit hash of x. */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

int ct_inject_selects(const ct_inject_spec *s, uint64_t n, uint64_t seed)
{
    if (s->every && n % s->every != 0)
        return 0;
    if (s->after && n <= s->after)
        return 0;
    if (s->first && (n < s->first || n > s->last))
        return 0;
    if (s->probability) {
        uint32_t draw = (uint32_t)(mix(mix(seed) ^ n) >> 32);
        if (draw >= s->probability && s->probability != UINT32_MAX)
            return 0;
    }
    return 1;
}

void ct_inject_action_text(const ct_inject_spec *s, char *out, size_t cap)
{
    /* The text from the action's word to the first selector or `when`. */
    const char *colon = strchr(s->text, ':');
    const char *a = colon ? colon + 1 : s->text;
    while (*a == ' ' || *a == '\t')
        a++;
    if (s->action == CT_INJECT_THROW) {
        snprintf(out, cap, "throw %s", s->type);
        return;
    }
    /* return VALUE, delay TIME: the word and one token. */
    const char *e = a;
    while (*e && *e != ' ' && *e != '\t')
        e++;
    while (*e == ' ' || *e == '\t')
        e++;
    int quoted = 0;
    while (*e && (quoted || (*e != ' ' && *e != '\t'))) {
        if (*e == '\\' && quoted && e[1])
            e++;
        else if (*e == '"')
            quoted = !quoted;
        e++;
    }
    snprintf(out, cap, "%.*s", (int)(e - a), a);
}

ct_inject_rtype ct_inject_rtype_named(const char *full, int generic, int valuetype)
{
    if (generic) {
        if (!strcmp(full, "System.Threading.Tasks.Task`1"))
            return valuetype ? CT_IRT_STRUCT : CT_IRT_TASK_T;
        if (!strcmp(full, "System.Threading.Tasks.ValueTask`1"))
            return valuetype ? CT_IRT_VTASK_T : CT_IRT_REF;
        if (!strcmp(full, "System.Nullable`1"))
            return valuetype ? CT_IRT_NULLABLE : CT_IRT_REF;
        return valuetype ? CT_IRT_STRUCT : CT_IRT_REF;
    }
    if (!strcmp(full, "System.Threading.Tasks.Task"))
        return valuetype ? CT_IRT_STRUCT : CT_IRT_TASK;
    if (valuetype && !strcmp(full, "System.Threading.Tasks.ValueTask"))
        return CT_IRT_VTASK;
    if (valuetype && !strcmp(full, "System.Decimal"))
        return CT_IRT_DECIMAL;
    return valuetype ? CT_IRT_STRUCT : CT_IRT_REF;
}

int ct_inject_integer(const ct_inject_spec *s, int is_signed, uint32_t bits, int64_t *v)
{
    const ct_expr_lit *lit = ct_inject_value(s);
    if (lit->kind != CT_XL_INT || bits < 8 || bits > 64)
        return -1;
    uint64_t max = bits == 64 ? (is_signed ? (uint64_t)INT64_MAX : UINT64_MAX)
                              : (is_signed ? (1ull << (bits - 1)) - 1 : (1ull << bits) - 1);
    if (lit->neg) {
        if (!is_signed || lit->mag > max + 1)
            return -1;
        *v = (int64_t)(0 - lit->mag);
        return 0;
    }
    if (lit->mag > max)
        return -1;
    *v = (int64_t)lit->mag;
    return 0;
}

int ct_inject_value_fits(const ct_inject_spec *s, const ct_inject_target *t, char *why,
                         size_t cap)
{
    const ct_expr_lit *lit = ct_inject_value(s);
    int dflt = s->is_default;
    int64_t v;
    uint64_t u;
    const char *need = NULL;
    switch (t->kind) {
    case CT_IRT_VOID:
        if (!dflt)
            need = "the method returns nothing: write 'return default'";
        break;
    case CT_IRT_BOOL:
        if (!dflt && lit->kind != CT_XL_BOOL)
            need = "the method returns bool: return true, false or default";
        break;
    case CT_IRT_CHAR:
        if (!dflt && !(lit->kind == CT_XL_STRING && lit->len == 1) &&
            ct_inject_integer(s, 0, 16, &v) != 0)
            need = "the method returns char: a one-character string, a number to 65535 or default";
        break;
    case CT_IRT_INT: case CT_IRT_UINT: case CT_IRT_NINT:
        if (!dflt && ct_inject_integer(s, t->kind != CT_IRT_UINT, t->kind == CT_IRT_NINT ? 64 : t->bits,
                                       &v) != 0)
            need = lit->kind == CT_XL_INT ? "the value is out of the range of the method's integer type"
                                          : "the method returns an integer: a whole number or default";
        break;
    case CT_IRT_R4: case CT_IRT_R8:
        if (!dflt && lit->kind != CT_XL_INT && lit->kind != CT_XL_DEC)
            need = "the method returns a floating-point number: a number or default";
        else if (!dflt && t->kind == CT_IRT_R4 && (lit->d > 3.4028234663852886e38 ||
                                                   lit->d < -3.4028234663852886e38))
            need = "the value is out of float's range";
        break;
    case CT_IRT_DECIMAL:
        if (!dflt && ((lit->kind != CT_XL_INT && lit->kind != CT_XL_DEC) || !lit->exact))
            need = "the method returns decimal: a number decimal holds exactly, or default";
        break;
    case CT_IRT_STRING:
        if (!dflt && lit->kind != CT_XL_STRING && lit->kind != CT_XL_NULL)
            need = "the method returns a string: a string in \"\", null or default";
        break;
    case CT_IRT_REF:
        if (!dflt && lit->kind != CT_XL_NULL)
            need = "the method returns an object: only null or default";
        break;
    case CT_IRT_TASK:
        if (!dflt)
            need = "the method returns a Task: return default (a completed task)";
        break;
    case CT_IRT_NULLABLE:
        if (!dflt && lit->kind != CT_XL_NULL)
            need = "the method returns a Nullable: only null or default";
        break;
    case CT_IRT_STRUCT: case CT_IRT_VTASK:
        if (!dflt)
            need = t->kind == CT_IRT_VTASK
                       ? "the method returns a ValueTask: return default (a completed one)"
                       : "the method returns a struct: only default";
        break;
    case CT_IRT_ENUM:
        if (dflt)
            break;
        if (lit->kind == CT_XL_NAME) {
            if (t->member && !t->member(t->ctx, s->value.names + lit->off, &u))
                need = "the enum has no member of that name";
        } else if (ct_inject_integer(s, t->enum_signed, t->bits, &v) != 0) {
            need = "the method returns an enum: a member's name, a number of its range or default";
        }
        break;
    case CT_IRT_TASK_T: case CT_IRT_VTASK_T:
        need = "the task's result type is not known"; /* (the caller checks its T) */
        break;
    default:
        need = "its return type (a byref, pointer or type parameter) takes no injected value";
        break;
    }
    if (!need)
        return 0;
    snprintf(why, cap, "%s", need);
    return -1;
}

/* TypeDef visibility and abstractness (ECMA-335 II.23.1.15), a method's
 * access (II.23.1.10). */
#define TD_VISIBILITY 0x7u
#define TD_PUBLIC 0x1u
#define TD_NESTED_PUBLIC 0x2u
#define TD_ABSTRACT 0x80u
#define MD_ACCESS 0x7u
#define MD_PUBLIC 0x6u

const char *ct_inject_type_unusable(uint32_t typedef_flags)
{
    uint32_t v = typedef_flags & TD_VISIBILITY;
    if (v != TD_PUBLIC && v != TD_NESTED_PUBLIC)
        return "is not public";
    return typedef_flags & TD_ABSTRACT ? "is abstract" : NULL;
}

int ct_inject_is_string_ctor(const char *name, const uint8_t *sig, size_t len,
                             uint32_t method_flags)
{
    static const uint8_t want[] = CT_INJECT_CTOR_SIG;
    return name && !strcmp(name, ".ctor") && sig && len == sizeof want &&
           !memcmp(sig, want, sizeof want) && (method_flags & MD_ACCESS) == MD_PUBLIC;
}

const char *const ct_inject_namespaces[CT_INJECT_NAMESPACES] = {
    "System.", "System.IO.", "System.Threading.Tasks.", "System.Collections.Generic.",
};

int ct_inject_forwarded_namespace(const char *full)
{
    const char *dot = strrchr(full, '.');
    for (size_t k = 0; dot && k < CT_INJECT_NAMESPACES; k++)
        if ((size_t)(dot + 1 - full) == strlen(ct_inject_namespaces[k]) &&
            !strncmp(full, ct_inject_namespaces[k], strlen(ct_inject_namespaces[k])))
            return 1;
    return 0;
}
