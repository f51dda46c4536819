/* Conditions: the parser and the evaluator (src/format/expr.h). No
 * allocation; recursion bounded by CT_EXPR_MAX_DEPTH. */
#define _POSIX_C_SOURCE 200809L
#include "expr.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

/* ------------------------------------------------------------ parser */

typedef struct pstate {
    const char *s;     /* the whole text */
    size_t pos, len;
    ct_expr *e;
    ct_expr_error *err;
    unsigned depth;
    int failed;
} pstate;

static int fail(pstate *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void ct_expr_verror(ct_expr_error *err, size_t at, const char *fmt, va_list ap)
{
    err->offset = at;
    /* The message, then " at offset N" (room kept for it). */
    char tail[40];
    int tl = snprintf(tail, sizeof tail, " at offset %zu", at);
    size_t room = sizeof err->message - (size_t)tl;
    int n = vsnprintf(err->message, room, fmt, ap);
    size_t used = n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
    memcpy(err->message + used, tail, (size_t)tl + 1);
}

static int fail(pstate *p, size_t at, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    p->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    ct_expr_verror(p->err, at, fmt, ap);
    va_end(ap);
    return -1;
}

static void skip_space(pstate *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int at_char(pstate *p, char c)
{
    skip_space(p);
    return p->pos < p->len && p->s[p->pos] == c;
}

static int ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The token at the current position, for messages: "'&&'", "the end". */
static const char *describe(pstate *p, char *buf, size_t cap)
{
    skip_space(p);
    if (p->pos >= p->len)
        return "the end";
    size_t n = 0;
    const char *t = p->s + p->pos;
    if (ident_start(*t) || is_digit(*t)) {
        while (n < p->len - p->pos && n < 24 && ident_char(t[n]))
            n++;
    } else {
        n = 1;
        if (p->pos + 1 < p->len && strchr("=!<>&|", t[0]) && strchr("=&|", t[1]))
            n = 2;
    }
    if ((unsigned char)*t < 0x20 || (unsigned char)*t >= 0x7f)
        snprintf(buf, cap, "byte 0x%02x", (unsigned char)*t);
    else
        snprintf(buf, cap, "'%.*s'", (int)n, t);
    return buf;
}

static int new_node(pstate *p, size_t at, uint8_t op)
{
    if (p->e->nnodes >= CT_EXPR_MAX_NODES)
        return fail(p, at, "more than %u comparisons and operators: split the condition",
                    CT_EXPR_MAX_NODES);
    int i = p->e->nnodes++;
    memset(&p->e->nodes[i], 0, sizeof p->e->nodes[i]);
    p->e->nodes[i].op = op;
    return i;
}

/* An identifier at the current position into the names pool: its offset
 * there, length in *len; -1 on error. */
static int take_ident(pstate *p, uint16_t *len)
{
    size_t start = p->pos;
    while (p->pos < p->len && ident_char(p->s[p->pos]))
        p->pos++;
    size_t n = p->pos - start;
    if (n > CT_EXPR_MAX_IDENT)
        return fail(p, start, "a name longer than %u characters", CT_EXPR_MAX_IDENT);
    ct_expr *e = p->e;
    if (e->nnames + n + 1 > sizeof e->names)
        return fail(p, start, "too many names");
    uint16_t off = e->nnames;
    memcpy(e->names + off, p->s + start, n);
    e->names[off + n] = '\0';
    e->nnames = (uint16_t)(e->nnames + n + 1);
    *len = (uint16_t)n;
    return off;
}

static int parse_path(pstate *p)
{
    ct_expr *e = p->e;
    size_t start = p->pos;
    if (e->npaths >= CT_EXPR_MAX_PATHS)
        return fail(p, start, "more than %u values named: split the condition", CT_EXPR_MAX_PATHS);
    ct_expr_path *path = &e->paths[e->npaths];
    memset(path, 0, sizeof *path);
    path->offset = (uint32_t)start;
    for (;;) {
        size_t at = p->pos;
        if (path->nseg >= CT_EXPR_MAX_SEGMENTS)
            return fail(p, at, "a path of more than %u names", CT_EXPR_MAX_SEGMENTS);
        if (p->pos >= p->len || !ident_start(p->s[p->pos])) {
            char buf[40];
            return fail(p, at, "expected a name after '.', not %s", describe(p, buf, sizeof buf));
        }
        uint16_t n = 0;
        int off = take_ident(p, &n);
        if (off < 0)
            return -1;
        path->seg[path->nseg] = (uint16_t)off;
        path->seg_len[path->nseg] = n;
        path->nseg++;
        if (p->pos < p->len && p->s[p->pos] == '.')
            p->pos++;
        else
            break;
    }
    const char *first = e->names + path->seg[0];
    path->root = !strcmp(first, "this")        ? CT_XROOT_THIS
                 : !strcmp(first, "return")    ? CT_XROOT_RETURN
                 : !strcmp(first, "exception") ? CT_XROOT_EXCEPTION
                                               : CT_XROOT_PARAM;
    if (!strcmp(first, "null") || !strcmp(first, "true") || !strcmp(first, "false"))
        return fail(p, start, "expected a value's name before a literal (the name comes first: "
                    "'x == %s')", first);
    return e->npaths++;
}

/* Appends code unit u to the string pool. */
static int put_unit(pstate *p, size_t at, uint32_t *n, uint16_t u)
{
    if (*n >= CT_EXPR_MAX_STRING)
        return fail(p, at, "a string longer than %u characters", CT_EXPR_MAX_STRING);
    if (p->e->nstrings >= CT_EXPR_MAX_TEXT)
        return fail(p, at, "too many strings");
    p->e->strings[p->e->nstrings++] = u;
    (*n)++;
    return 0;
}

static int put_code_point(pstate *p, size_t at, uint32_t *n, uint32_t cp)
{
    if (cp >= 0x10000) {
        cp -= 0x10000;
        if (put_unit(p, at, n, (uint16_t)(0xD800 + (cp >> 10))) != 0)
            return -1;
        return put_unit(p, at, n, (uint16_t)(0xDC00 + (cp & 0x3FF)));
    }
    return put_unit(p, at, n, (uint16_t)cp);
}


/* One UTF-8 sequence at s[0..left): its code point and length, or 0. */
static size_t utf8_decode(const unsigned char *s, size_t left, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

static int parse_string(pstate *p, ct_expr_lit *lit)
{
    size_t start = p->pos;
    p->pos++; /* the quote */
    lit->kind = CT_XL_STRING;
    lit->off = p->e->nstrings;
    uint32_t n = 0;
    for (;;) {
        if (p->pos >= p->len)
            return fail(p, start, "a string without its closing '\"'");
        size_t at = p->pos;
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20)
            return fail(p, at, "a control character in a string (write it as \\n, \\t or "
                        "\\uXXXX)");
        if (c == '\\') {
            if (p->pos + 1 >= p->len)
                return fail(p, at, "a string without its closing '\"'");
            char x = p->s[p->pos + 1];
            uint32_t u;
            p->pos += 2;
            switch (x) {
            case '"': u = '"'; break;
            case '\\': u = '\\'; break;
            case '\'': u = '\''; break;
            case '0': u = 0; break;
            case 'n': u = '\n'; break;
            case 'r': u = '\r'; break;
            case 't': u = '\t'; break;
            case 'u': {
                u = 0;
                for (int k = 0; k < 4; k++) {
                    int h = p->pos < p->len ? ct_hex_digit(p->s[p->pos]) : -1;
                    if (h < 0)
                        return fail(p, at, "\\u needs 4 hex digits");
                    u = u << 4 | (uint32_t)h;
                    p->pos++;
                }
                break;
            }
            default:
                return fail(p, at, "unknown escape '\\%c' (use \\\" \\\\ \\' \\0 \\n \\r \\t or "
                            "\\uXXXX)", x >= 0x20 && x < 0x7f ? x : '?');
            }
            if (put_unit(p, at, &n, (uint16_t)u) != 0)
                return -1;
            continue;
        }
        uint32_t cp;
        size_t k = utf8_decode((const unsigned char *)p->s + p->pos, p->len - p->pos, &cp);
        if (!k)
            return fail(p, at, "a string that is not valid UTF-8");
        p->pos += k;
        if (put_code_point(p, at, &n, cp) != 0)
            return -1;
    }
    lit->len = (uint16_t)n;
    return 0;
}

/* m = m * 10 + d on a 96-bit magnitude: 0, or -1 when it overflows. */
static int dec_push(uint32_t m[3], unsigned d)
{
    uint64_t carry = d;
    for (int i = 0; i < 3; i++) {
        uint64_t v = (uint64_t)m[i] * 10 + carry;
        m[i] = (uint32_t)v;
        carry = v >> 32;
    }
    return carry ? -1 : 0;
}

static int parse_number(pstate *p, ct_expr_lit *lit)
{
    size_t start = p->pos;
    int neg = 0;
    if (p->s[p->pos] == '-') {
        neg = 1;
        p->pos++;
    }
    if (p->pos >= p->len || !is_digit(p->s[p->pos]))
        return fail(p, start, "expected digits after '-'");
    lit->neg = (uint8_t)neg;
    if (p->s[p->pos] == '0' && p->pos + 1 < p->len && (p->s[p->pos + 1] | 0x20) == 'x') {
        p->pos += 2;
        uint64_t v = 0;
        size_t digits = 0;
        int h;
        while (p->pos < p->len && (h = ct_hex_digit(p->s[p->pos])) >= 0) {
            if (v >> 60)
                return fail(p, start, "a number beyond 64 bits");
            v = v << 4 | (uint64_t)h;
            p->pos++;
            digits++;
        }
        if (!digits)
            return fail(p, start, "expected hex digits after 0x");
        lit->kind = CT_XL_INT;
        lit->mag = v;
    } else {
        size_t int_start = p->pos;
        while (p->pos < p->len && is_digit(p->s[p->pos]))
            p->pos++;
        int is_dec = 0;
        if (p->pos < p->len && p->s[p->pos] == '.') {
            p->pos++;
            if (p->pos >= p->len || !is_digit(p->s[p->pos]))
                return fail(p, p->pos, "expected digits after the decimal point");
            while (p->pos < p->len && is_digit(p->s[p->pos]))
                p->pos++;
            is_dec = 1;
        }
        int has_exp = 0;
        if (p->pos < p->len && (p->s[p->pos] | 0x20) == 'e') {
            size_t q = p->pos + 1;
            if (q < p->len && (p->s[q] == '+' || p->s[q] == '-'))
                q++;
            if (q >= p->len || !is_digit(p->s[q]))
                return fail(p, p->pos, "expected digits in the exponent");
            while (q < p->len && is_digit(p->s[q]))
                q++;
            p->pos = q;
            is_dec = has_exp = 1;
        }
        char buf[80];
        size_t tl = p->pos - int_start;
        if (tl >= sizeof buf)
            return fail(p, start, "a number longer than %zu characters", sizeof buf - 1);
        memcpy(buf, p->s + int_start, tl);
        buf[tl] = '\0';
        if (!is_dec) {
            /* An integer beyond 64 bits (or below -2^63) is compared as a
             * decimal. */
            uint64_t v = 0;
            for (size_t i = 0; i < tl && !is_dec; i++) {
                uint64_t d = (uint64_t)(buf[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                    is_dec = 1;
                v = v * 10 + d;
            }
            if (neg && v > (uint64_t)1 << 63)
                is_dec = 1;
            lit->kind = CT_XL_INT;
            lit->mag = v;
        }
        if (is_dec) {
            lit->kind = CT_XL_DEC;
            lit->d = strtod(buf, NULL);
            if (neg)
                lit->d = -lit->d;
            if (!isfinite(lit->d))
                return fail(p, start, "a number beyond a double's range");
            /* Exact as a decimal when it has no exponent and fits 96 bits
             * with at most 28 digits after the point. */
            lit->exact = 0;
            if (!has_exp) {
                ct_xdec d = {{0, 0, 0}, 0, (uint8_t)neg};
                int ok = 1, after = 0;
                /* Trailing zeros after the point change nothing. */
                size_t end = tl;
                if (memchr(buf, '.', tl))
                    while (end > 0 && buf[end - 1] == '0')
                        end--;
                for (size_t i = 0; i < end && ok; i++) {
                    if (buf[i] == '.') {
                        after = 1;
                        continue;
                    }
                    if (after && d.scale >= 28)
                        ok = 0;
                    else if (dec_push(d.m, (unsigned)(buf[i] - '0')) != 0)
                        ok = 0;
                    else if (after)
                        d.scale++;
                }
                if (ok) {
                    lit->dec = d;
                    lit->exact = 1;
                }
            }
        }
    }
    if (lit->kind == CT_XL_INT) {
        lit->d = neg ? -(double)lit->mag : (double)lit->mag;
        memset(&lit->dec, 0, sizeof lit->dec);
        lit->dec.m[0] = (uint32_t)lit->mag;
        lit->dec.m[1] = (uint32_t)(lit->mag >> 32);
        lit->dec.neg = (uint8_t)neg;
        lit->exact = 1;
    }
    /* C#'s decimal suffix. */
    if (p->pos < p->len && (p->s[p->pos] | 0x20) == 'm')
        p->pos++;
    if (p->pos < p->len && ident_char(p->s[p->pos]))
        return fail(p, p->pos, "a number followed by '%c'", p->s[p->pos]);
    return 0;
}

static int parse_literal(pstate *p, ct_expr_lit *lit, const char *after, ct_expr_cmp cmp)
{
    skip_space(p);
    memset(lit, 0, sizeof *lit);
    size_t at = p->pos;
    char c = p->pos < p->len ? p->s[p->pos] : '\0';
    if (c == '"')
        return parse_string(p, lit);
    if (c == '-' || is_digit(c))
        return parse_number(p, lit);
    if (ident_start(c)) {
        uint16_t n = 0;
        size_t save = p->e->nnames;
        int off = take_ident(p, &n);
        if (off < 0)
            return -1;
        const char *w = p->e->names + off;
        if (!strcmp(w, "null") || !strcmp(w, "true") || !strcmp(w, "false")) {
            lit->kind = !strcmp(w, "null") ? CT_XL_NULL : CT_XL_BOOL;
            lit->b = !strcmp(w, "true");
            p->e->nnames = (uint16_t)save;
            if (cmp != CT_XCMP_EQ && cmp != CT_XCMP_NE)
                return fail(p, at, "%s goes with == or != only", w);
            if (p->pos < p->len && p->s[p->pos] == '.')
                return fail(p, p->pos, "a '.' after %s", w);
            return 0;
        }
        /* An enum member, by its name alone or with its type's
         * (Status.Paid, Shop.Status.Paid): the last name counts. */
        while (p->pos + 1 < p->len && p->s[p->pos] == '.' && ident_start(p->s[p->pos + 1])) {
            p->pos++;
            p->e->nnames = (uint16_t)save;
            off = take_ident(p, &n);
            if (off < 0)
                return -1;
        }
        if (p->pos < p->len && p->s[p->pos] == '.')
            return fail(p, p->pos, "expected an enum member's name after '.'");
        lit->kind = CT_XL_NAME;
        lit->off = (uint16_t)off;
        lit->len = n;
        return 0;
    }
    char buf[40];
    return fail(p, at, "expected a literal after '%s', not %s", after, describe(p, buf, sizeof buf));
}

static int parse_or(pstate *p);

static int parse_unary(pstate *p)
{
    skip_space(p);
    size_t at = p->pos;
    if (p->pos >= p->len) {
        return fail(p, at, "expected a comparison, '!' or '(' but the condition ends");
    }
    char c = p->s[p->pos];
    if (c == '!' && !(p->pos + 1 < p->len && p->s[p->pos + 1] == '=')) {
        if (++p->depth > CT_EXPR_MAX_DEPTH)
            return fail(p, at, "nested more than %u deep ('!' and parentheses)", CT_EXPR_MAX_DEPTH);
        p->pos++;
        int kid = parse_unary(p);
        p->depth--;
        if (kid < 0)
            return -1;
        int n = new_node(p, at, CT_XOP_NOT);
        if (n < 0)
            return -1;
        if (p->e->nkids >= CT_EXPR_MAX_NODES)
            return fail(p, at, "too many operators");
        p->e->nodes[n].first = p->e->nkids;
        p->e->nodes[n].count = 1;
        p->e->kids[p->e->nkids++] = (uint16_t)kid;
        return n;
    }
    if (c == '(') {
        if (++p->depth > CT_EXPR_MAX_DEPTH)
            return fail(p, at, "nested more than %u deep ('!' and parentheses)", CT_EXPR_MAX_DEPTH);
        p->pos++;
        int n = parse_or(p);
        p->depth--;
        if (n < 0)
            return -1;
        if (!at_char(p, ')')) {
            char buf[40];
            return fail(p, p->pos, "expected ')' for the '(' at offset %zu, not %s", at,
                        describe(p, buf, sizeof buf));
        }
        p->pos++;
        return n;
    }
    if (!ident_start(c)) {
        char buf[40];
        if (c == '"' || c == '-' || is_digit(c))
            return fail(p, at, "a literal where a value's name is expected (the name comes "
                        "first: 'x > 5')");
        return fail(p, at, "expected a value's name, '!' or '(', not %s",
                    describe(p, buf, sizeof buf));
    }
    int path = parse_path(p);
    if (path < 0)
        return -1;
    skip_space(p);
    static const struct {
        const char *text;
        ct_expr_cmp cmp;
    } ops[] = {{"==", CT_XCMP_EQ}, {"!=", CT_XCMP_NE}, {"<=", CT_XCMP_LE},
               {">=", CT_XCMP_GE}, {"<", CT_XCMP_LT},  {">", CT_XCMP_GT}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t l = strlen(ops[k].text);
        if (p->pos + l <= p->len && !memcmp(p->s + p->pos, ops[k].text, l)) {
            size_t op_at = p->pos;
            p->pos += l;
            int n = new_node(p, op_at, CT_XOP_CMP);
            if (n < 0)
                return -1;
            ct_expr_node *node = &p->e->nodes[n];
            node->cmp = (uint8_t)ops[k].cmp;
            node->path = (uint16_t)path;
            if (parse_literal(p, &node->lit, ops[k].text, ops[k].cmp) != 0)
                return -1;
            return n;
        }
    }
    if (p->pos < p->len && p->s[p->pos] == '=')
        return fail(p, p->pos, "'=' is not a comparison: write '=='");
    int n = new_node(p, at, CT_XOP_TRUTH);
    if (n < 0)
        return -1;
    p->e->nodes[n].path = (uint16_t)path;
    return n;
}

/* parse_or and parse_and: operands joined by op ("||" or "&&"). */
static int parse_list(pstate *p, int is_or)
{
    const char *tok = is_or ? "||" : "&&";
    uint16_t kids[CT_EXPR_MAX_NODES];
    unsigned n = 0;
    size_t at = p->pos;
    for (;;) {
        int k = is_or ? parse_list(p, 0) : parse_unary(p);
        if (k < 0)
            return -1;
        if (n >= CT_EXPR_MAX_NODES)
            return fail(p, p->pos, "more than %u comparisons and operators: split the condition",
                        CT_EXPR_MAX_NODES);
        kids[n++] = (uint16_t)k;
        skip_space(p);
        if (p->pos + 2 <= p->len && !memcmp(p->s + p->pos, tok, 2)) {
            p->pos += 2;
            continue;
        }
        break;
    }
    if (n == 1)
        return kids[0];
    int node = new_node(p, at, is_or ? CT_XOP_OR : CT_XOP_AND);
    if (node < 0)
        return -1;
    if (p->e->nkids + n > CT_EXPR_MAX_NODES)
        return fail(p, at, "more than %u comparisons and operators: split the condition",
                    CT_EXPR_MAX_NODES);
    p->e->nodes[node].first = p->e->nkids;
    p->e->nodes[node].count = (uint16_t)n;
    memcpy(p->e->kids + p->e->nkids, kids, n * sizeof kids[0]);
    p->e->nkids = (uint16_t)(p->e->nkids + n);
    return node;
}

static int parse_or(pstate *p)
{
    return parse_list(p, 1);
}

/* What an exception offers a condition: `exception` (its type),
 * `exception.Message` and its `.Length`. And a condition that decides at
 * the return (it names `return` or `exception`) cannot name `this`: it is
 * read at the entry (the leave has no `this`). Parameters are checked where
 * they are known (out and ref ones are read at the return). */
static int check_at_return(pstate *p)
{
    ct_expr *e = p->e;
    if (!ct_expr_needs_return(e))
        return 0;
    for (unsigned i = 0; i < e->npaths; i++) {
        const ct_expr_path *path = &e->paths[i];
        if (path->root == CT_XROOT_THIS)
            return fail(p, path->offset, "'this' is read at entry, a condition naming return or "
                        "exception at the return: test 'this' in a --when of its own");
        if (path->root != CT_XROOT_EXCEPTION)
            continue;
        int ok = path->nseg == 1 ||
                 (!strcmp(ct_expr_seg(e, path, 1), "Message") &&
                  (path->nseg == 2 ||
                   (path->nseg == 3 && !strcmp(ct_expr_seg(e, path, 2), "Length"))));
        if (!ok)
            return fail(p, path->offset, "an exception offers its type ('exception == "
                        "\"TimeoutException\"'), exception.Message and exception.Message.Length");
    }
    return 0;
}

int ct_expr_glob(const char *text, size_t colon, char *glob, ct_expr_error *err)
{
    pstate p = {.s = text, .pos = 0, .len = colon, .err = err};
    size_t g0 = 0, g1 = colon;
    while (g0 < g1 && (text[g0] == ' ' || text[g0] == '\t'))
        g0++;
    while (g1 > g0 && (text[g1 - 1] == ' ' || text[g1 - 1] == '\t'))
        g1--;
    if (g0 == g1)
        return fail(&p, 0, "expected a method pattern before ':'");
    if (g1 - g0 > CT_EXPR_MAX_GLOB)
        return fail(&p, g0, "a method pattern longer than %u bytes", CT_EXPR_MAX_GLOB);
    for (size_t i = g0; i < g1; i++)
        if ((unsigned char)text[i] <= 0x20)
            return fail(&p, i, "a space or control character in the method pattern");
    memcpy(glob, text + g0, g1 - g0);
    glob[g1 - g0] = '\0';
    return 0;
}

int ct_expr_parse(const char *text, ct_expr *e, ct_expr_error *err)
{
    memset(err, 0, sizeof *err);
    memset(e, 0, offsetof(ct_expr, nodes));
    pstate p = {.s = text, .pos = 0, .len = 0, .e = e, .err = err};
    if (!text)
        return fail(&p, 0, "no condition given");
    size_t len = strnlen(text, CT_EXPR_MAX_TEXT + 1);
    if (len > CT_EXPR_MAX_TEXT)
        return fail(&p, CT_EXPR_MAX_TEXT, "a condition longer than %u bytes", CT_EXPR_MAX_TEXT);
    p.len = len;
    const char *colon = memchr(text, ':', len);
    /* 'FILE:LINE: EXPR' (a line probe's, --at): the pattern ends at the
     * colon after the line's digits. */
    if (colon && colon[1] >= '0' && colon[1] <= '9') {
        const char *d = colon + 1;
        while (d < text + len && *d >= '0' && *d <= '9')
            d++;
        if (d < text + len && *d == ':')
            colon = d;
    }
    if (!colon)
        return fail(&p, 0, "expected 'GLOB: EXPR' (a method pattern, ':', then the condition)");
    if (ct_expr_glob(text, (size_t)(colon - text), e->glob, err) != 0)
        return -1;
    p.pos = (size_t)(colon - text) + 1;
    skip_space(&p);
    if (p.pos >= p.len)
        return fail(&p, p.pos, "expected a condition after ':'");
    int root = parse_or(&p);
    if (root < 0)
        return -1;
    skip_space(&p);
    if (p.pos < p.len) {
        char buf[40];
        const char *what = describe(&p, buf, sizeof buf);
        if (text[p.pos] == '&' || text[p.pos] == '|')
            return fail(&p, p.pos, "expected && or ||, not %s", what);
        if (text[p.pos] == ')')
            return fail(&p, p.pos, "a ')' without its '('");
        return fail(&p, p.pos, "expected &&, || or the end, not %s", what);
    }
    e->root = (uint16_t)root;
    return check_at_return(&p);
}

int ct_chosen_parse(const char *text, int ret, ct_expr *e, ct_expr_error *err)
{
    memset(err, 0, sizeof *err);
    memset(e, 0, offsetof(ct_expr, nodes));
    pstate p = {.s = text, .pos = 0, .len = 0, .e = e, .err = err};
    const char *opt = ret ? "-R" : "-A";
    if (!text)
        return fail(&p, 0, "no value chosen");
    size_t len = strnlen(text, CT_EXPR_MAX_TEXT + 1);
    if (len > CT_EXPR_MAX_TEXT)
        return fail(&p, CT_EXPR_MAX_TEXT, "a %s value longer than %u bytes", opt,
                    CT_EXPR_MAX_TEXT);
    p.len = len;
    const char *at = memchr(text, '@', len);
    if (!at)
        return fail(&p, 0, "expected 'GLOB@PATH%s' (a method pattern, '@', then %s)",
                    ret ? "" : "[,PATH...]", ret ? "return or return.NAME..." : "the values' paths");
    size_t g0 = 0, g1 = (size_t)(at - text);
    while (g0 < g1 && (text[g0] == ' ' || text[g0] == '\t'))
        g0++;
    while (g1 > g0 && (text[g1 - 1] == ' ' || text[g1 - 1] == '\t'))
        g1--;
    if (g0 == g1)
        return fail(&p, 0, "expected a method pattern before '@'");
    if (g1 - g0 > CT_EXPR_MAX_GLOB)
        return fail(&p, g0, "a method pattern longer than %u bytes", CT_EXPR_MAX_GLOB);
    for (size_t i = g0; i < g1; i++)
        if ((unsigned char)text[i] <= 0x20 || text[i] == ':')
            return fail(&p, i, "a space, ':' or control character in the method pattern");
    memcpy(e->glob, text + g0, g1 - g0);
    e->glob[g1 - g0] = '\0';
    p.pos = (size_t)(at - text) + 1;
    for (;;) {
        skip_space(&p);
        if (p.pos >= p.len || !ident_start(text[p.pos])) {
            char buf[40];
            return fail(&p, p.pos, "expected a path (%s), not %s",
                        ret ? "return, return.NAME..." : "a parameter's name, this, NAME.FIELD...",
                        describe(&p, buf, sizeof buf));
        }
        size_t start = p.pos;
        if (e->npaths >= CT_CHOSEN_MAX_PATHS)
            return fail(&p, start, "more than %u paths in one %s", CT_CHOSEN_MAX_PATHS, opt);
        int k = parse_path(&p);
        if (k < 0)
            return -1;
        const ct_expr_path *path = &e->paths[k];
        if (ret && path->root != CT_XROOT_RETURN)
            return fail(&p, start, "-R chooses from the return value: a path that begins "
                        "with 'return'");
        if (!ret && (path->root == CT_XROOT_RETURN || path->root == CT_XROOT_EXCEPTION))
            return fail(&p, start, "-A chooses from the arguments: for the return value use "
                        "-R 'GLOB@return...'");
        skip_space(&p);
        if (p.pos >= p.len)
            break;
        if (text[p.pos] != ',' || ret) {
            char buf[40];
            return fail(&p, p.pos, ret ? "expected the end (-R takes one path), not %s"
                                       : "expected ',' or the end, not %s",
                        describe(&p, buf, sizeof buf));
        }
        p.pos++;
    }
    return 0;
}

int ct_expr_needs_return(const ct_expr *e)
{
    for (unsigned i = 0; i < e->npaths; i++)
        if (e->paths[i].root == CT_XROOT_RETURN || e->paths[i].root == CT_XROOT_EXCEPTION)
            return 1;
    return 0;
}

int ct_expr_decides_at_end(const ct_expr *e, int (*out_param)(void *ctx, const char *name),
                           void *ctx)
{
    if (ct_expr_needs_return(e))
        return 1;
    for (unsigned i = 0; i < e->npaths; i++)
        if (e->paths[i].root == CT_XROOT_PARAM &&
            out_param(ctx, ct_expr_seg(e, &e->paths[i], 0)))
            return 1;
    return 0;
}

/* ------------------------------------------------------- comparisons */

int ct_xdec_from_bytes(const uint8_t b[16], ct_xdec *d)
{
    uint32_t m[3], scale;
    int neg;
    uint32_t flags = ct_decimal_unpack(b, m, &scale, &neg);
    if (scale > 28 || (flags & 0x7F00FFFFu))
        return -1;
    memcpy(d->m, m, sizeof m);
    d->scale = (uint8_t)scale;
    d->neg = (uint8_t)neg;
    return 0;
}

/* A magnitude of up to 8 words (96 bits times 10^28 fits in 192). */
typedef struct big {
    uint32_t w[8];
} big;

static void big_mul10(big *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t v = (uint64_t)b->w[i] * 10 + carry;
        b->w[i] = (uint32_t)v;
        carry = v >> 32;
    }
}

static int big_cmp(const big *a, const big *b)
{
    for (int i = 7; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static int dec_is_zero(const ct_xdec *d)
{
    return !d->m[0] && !d->m[1] && !d->m[2];
}

/* -1, 0, 1: a compared with b, exactly. */
static int dec_cmp(const ct_xdec *a, const ct_xdec *b)
{
    int an = a->neg && !dec_is_zero(a), bn = b->neg && !dec_is_zero(b);
    if (an != bn)
        return an ? -1 : 1;
    if (a->scale == b->scale) {
        int c = 0;
        for (int i = 2; i >= 0 && !c; i--)
            if (a->m[i] != b->m[i])
                c = a->m[i] < b->m[i] ? -1 : 1;
        return an ? -c : c;
    }
    big x = {{a->m[0], a->m[1], a->m[2]}}, y = {{b->m[0], b->m[1], b->m[2]}};
    for (unsigned s = a->scale; s < b->scale; s++)
        big_mul10(&x);
    for (unsigned s = b->scale; s < a->scale; s++)
        big_mul10(&y);
    int c = big_cmp(&x, &y);
    return an ? -c : c;
}

static double dec_to_double(const ct_xdec *d)
{
    double v = ((double)d->m[2] * 4294967296.0 + (double)d->m[1]) * 4294967296.0 + (double)d->m[0];
    for (unsigned s = 0; s < d->scale; s++)
        v /= 10.0;
    return d->neg ? -v : v;
}

static ct_xtruth of_order(int c, ct_expr_cmp cmp)
{
    switch (cmp) {
    case CT_XCMP_EQ: return c == 0 ? CT_XTRUE : CT_XFALSE;
    case CT_XCMP_NE: return c != 0 ? CT_XTRUE : CT_XFALSE;
    case CT_XCMP_LT: return c < 0 ? CT_XTRUE : CT_XFALSE;
    case CT_XCMP_LE: return c <= 0 ? CT_XTRUE : CT_XFALSE;
    case CT_XCMP_GT: return c > 0 ? CT_XTRUE : CT_XFALSE;
    case CT_XCMP_GE: return c >= 0 ? CT_XTRUE : CT_XFALSE;
    }
    return CT_XUNKNOWN;
}

static ct_xtruth cmp_double(double v, double l, ct_expr_cmp cmp)
{
    if (isnan(v) || isnan(l))
        return cmp == CT_XCMP_NE ? CT_XTRUE : CT_XFALSE;
    return of_order(v < l ? -1 : v > l ? 1 : 0, cmp);
}

/* A signed (is_signed) or unsigned 64-bit value against an integer literal. */
static ct_xtruth cmp_int(int is_signed, int64_t i, uint64_t u, const ct_expr_lit *lit,
                         ct_expr_cmp cmp)
{
    int vneg = is_signed && i < 0;
    uint64_t vmag = vneg ? (uint64_t)0 - (uint64_t)i : is_signed ? (uint64_t)i : u;
    int lneg = lit->neg && lit->mag != 0;
    int c;
    if (vneg != lneg)
        c = vneg ? -1 : 1;
    else {
        c = vmag < lit->mag ? -1 : vmag > lit->mag ? 1 : 0;
        if (vneg)
            c = -c;
    }
    return of_order(c, cmp);
}

/* An integer value as a decimal. */
static ct_xdec dec_of_int(int is_signed, int64_t i, uint64_t u)
{
    ct_xdec d = {{0, 0, 0}, 0, 0};
    uint64_t mag = u;
    if (is_signed) {
        d.neg = i < 0;
        mag = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
    }
    d.m[0] = (uint32_t)mag;
    d.m[1] = (uint32_t)(mag >> 32);
    return d;
}

static ct_xtruth cmp_number(const ct_xval *v, const ct_expr_lit *lit, ct_expr_cmp cmp)
{
    switch (v->kind) {
    case CT_XV_INT: case CT_XV_UINT: {
        int s = v->kind == CT_XV_INT;
        if (lit->kind == CT_XL_INT)
            return cmp_int(s, v->i, v->u, lit, cmp);
        if (lit->exact) {
            ct_xdec d = dec_of_int(s, v->i, v->u);
            return of_order(dec_cmp(&d, &lit->dec), cmp);
        }
        return cmp_double(s ? (double)v->i : (double)v->u, lit->d, cmp);
    }
    case CT_XV_DOUBLE:
        return cmp_double(v->d, lit->d, cmp);
    case CT_XV_DECIMAL:
        if (lit->exact)
            return of_order(dec_cmp(&v->dec, &lit->dec), cmp);
        return cmp_double(dec_to_double(&v->dec), lit->d, cmp);
    default:
        return CT_XUNKNOWN;
    }
}

/* An enum's value sign-extended when its underlying type is signed. */
static int64_t enum_signed_value(const ct_xval *v)
{
    unsigned bits = v->enum_size ? v->enum_size * 8u : 64u;
    uint64_t u = v->u;
    if (bits < 64 && (u >> (bits - 1) & 1))
        u |= ~(uint64_t)0 << bits;
    return (int64_t)u;
}

static ct_xtruth cmp_strings(const uint16_t *a, uint32_t alen, const uint16_t *b, uint32_t blen,
                             ct_expr_cmp cmp)
{
    uint32_t n = alen < blen ? alen : blen;
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return of_order(a[i] < b[i] ? -1 : 1, cmp);
    return of_order(alen < blen ? -1 : alen > blen ? 1 : 0, cmp);
}

/* An exception's type name (UTF-8, full) against a literal: its full name
 * or the part after the last '.'. */
static ct_xtruth cmp_type(const char *full, const uint16_t *lit, uint32_t len, ct_expr_cmp cmp)
{
    if (cmp != CT_XCMP_EQ && cmp != CT_XCMP_NE)
        return CT_XUNKNOWN;
    const char *dot = strrchr(full, '.');
    const char *cands[2] = {full, dot ? dot + 1 : NULL};
    int eq = 0;
    for (int c = 0; c < 2 && !eq; c++) {
        const char *s = cands[c];
        if (!s)
            continue;
        size_t sl = strlen(s);
        if (sl != len)
            continue;
        uint32_t i = 0;
        while (i < len && lit[i] == (unsigned char)s[i])
            i++;
        eq = i == len;
    }
    return (cmp == CT_XCMP_EQ) == eq ? CT_XTRUE : CT_XFALSE;
}

ct_xtruth ct_expr_compare(const ct_expr *e, const ct_xval *v, ct_expr_cmp cmp,
                          const ct_expr_lit *lit)
{
    if (v->kind == CT_XV_UNKNOWN)
        return CT_XUNKNOWN;
    int eqop = cmp == CT_XCMP_EQ || cmp == CT_XCMP_NE;
    /* null against anything, anything against null. */
    if (lit->kind == CT_XL_NULL || v->kind == CT_XV_NULL) {
        int both = lit->kind == CT_XL_NULL && v->kind == CT_XV_NULL;
        if (!eqop)
            return CT_XFALSE;
        return (cmp == CT_XCMP_EQ) == both ? CT_XTRUE : CT_XFALSE;
    }
    switch (lit->kind) {
    case CT_XL_BOOL:
        if (v->kind != CT_XV_BOOL || !eqop)
            return CT_XUNKNOWN;
        return (cmp == CT_XCMP_EQ) == (!!v->b == !!lit->b) ? CT_XTRUE : CT_XFALSE;
    case CT_XL_INT: case CT_XL_DEC:
        if (v->kind == CT_XV_ENUM) {
            if (lit->kind != CT_XL_INT)
                return CT_XUNKNOWN;
            return v->enum_signed ? cmp_int(1, enum_signed_value(v), 0, lit, cmp)
                                  : cmp_int(0, 0, v->u, lit, cmp);
        }
        return cmp_number(v, lit, cmp);
    case CT_XL_STRING: {
        const uint16_t *s = e->strings + lit->off;
        if (v->kind == CT_XV_STRING)
            return v->chars || !v->len ? cmp_strings(v->chars, v->len, s, lit->len, cmp)
                                       : CT_XUNKNOWN;
        if (v->kind == CT_XV_UINT && lit->len == 1) /* a char against "c" */
            return cmp_int(0, 0, v->u, &(ct_expr_lit){.kind = CT_XL_INT, .mag = s[0]}, cmp);
        if (v->kind == CT_XV_TYPE && v->text)
            return cmp_type(v->text, s, lit->len, cmp);
        return CT_XUNKNOWN;
    }
    case CT_XL_NAME: {
        if (v->kind != CT_XV_ENUM || !v->items)
            return CT_XUNKNOWN;
        const char *name = e->names + lit->off;
        for (uint32_t i = 0; i < v->nitems; i++) {
            if (v->items[i].name && !strcmp(v->items[i].name, name)) {
                uint64_t m = v->items[i].value;
                if (v->enum_signed) {
                    ct_xval mv = *v;
                    mv.u = m;
                    int64_t a = enum_signed_value(v), b = enum_signed_value(&mv);
                    return of_order(a < b ? -1 : a > b ? 1 : 0, cmp);
                }
                return of_order(v->u < m ? -1 : v->u > m ? 1 : 0, cmp);
            }
        }
        return CT_XUNKNOWN;
    }
    }
    return CT_XUNKNOWN;
}

/* ------------------------------------------------------- evaluation */

static ct_xtruth eval_node(const ct_expr *e, unsigned i, ct_expr_resolve_fn *resolve, void *ctx,
                           unsigned depth)
{
    /* The parse bounds the height (each level of nesting adds at most an
     * ||, an && and a !); this only guards a struct made by hand. */
    if (i >= e->nnodes || depth > 3 * (CT_EXPR_MAX_DEPTH + 1))
        return CT_XUNKNOWN;
    const ct_expr_node *n = &e->nodes[i];
    switch (n->op) {
    case CT_XOP_CMP: case CT_XOP_TRUTH: {
        if (n->path >= e->npaths)
            return CT_XUNKNOWN;
        ct_xval v;
        memset(&v, 0, sizeof v);
        resolve(ctx, e, n->path, &v);
        if (n->op == CT_XOP_TRUTH) {
            if (v.kind != CT_XV_BOOL)
                return CT_XUNKNOWN;
            return v.b ? CT_XTRUE : CT_XFALSE;
        }
        return ct_expr_compare(e, &v, (ct_expr_cmp)n->cmp, &n->lit);
    }
    case CT_XOP_NOT: {
        if (n->count != 1 || n->first >= e->nkids)
            return CT_XUNKNOWN;
        ct_xtruth t = eval_node(e, e->kids[n->first], resolve, ctx, depth + 1);
        return t == CT_XUNKNOWN ? t : t == CT_XTRUE ? CT_XFALSE : CT_XTRUE;
    }
    case CT_XOP_AND: case CT_XOP_OR: {
        if ((uint32_t)n->first + n->count > e->nkids)
            return CT_XUNKNOWN;
        int is_or = n->op == CT_XOP_OR;
        ct_xtruth out = is_or ? CT_XFALSE : CT_XTRUE;
        for (unsigned k = 0; k < n->count; k++) {
            ct_xtruth t = eval_node(e, e->kids[n->first + k], resolve, ctx, depth + 1);
            if (is_or && t == CT_XTRUE)
                return CT_XTRUE;
            if (!is_or && t == CT_XFALSE)
                return CT_XFALSE;
            if (t == CT_XUNKNOWN)
                out = CT_XUNKNOWN;
        }
        return out;
    }
    }
    return CT_XUNKNOWN;
}

ct_xtruth ct_expr_eval(const ct_expr *e, ct_expr_resolve_fn *resolve, void *ctx)
{
    if (!e->nnodes)
        return CT_XUNKNOWN;
    return eval_node(e, e->root, resolve, ctx, 0);
}
