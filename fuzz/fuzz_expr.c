/* libFuzzer harness for conditions (src/format/expr.h) and --inject's
 * specs (src/format/inject_spec.h, which holds a value and a condition of the
 * same grammar): any text parses or fails with an offset inside it and a
 * message; a parsed condition evaluates over values made from the input's
 * bytes, with every kind of value, and its answer does not depend on
 * anything else; a parsed spec's selectors answer for any call number. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/expr.h"
#include "format/inject_spec.h"

static const uint16_t k_chars[] = {'P', 'T', 'a', 0xe9, 0xD83D, 0xDE00};
static const ct_enum_item k_items[] = {{"Paid", 1}, {"New", 0}, {"Minus", 0xFF}};

typedef struct feed {
    const uint8_t *data;
    size_t size, pos;
} feed;

static uint8_t next(feed *f)
{
    if (!f->size)
        return 0;
    return f->data[f->pos++ % f->size];
}

static void resolve(void *ctx, const ct_expr *e, uint32_t path, ct_xval *out)
{
    feed *f = ctx;
    if (path >= e->npaths)
        abort();
    memset(out, 0, sizeof *out);
    uint8_t k = next(f);
    out->kind = (ct_xval_kind)(k % (CT_XV_OBJECT + 1));
    uint64_t raw = 0;
    for (int i = 0; i < 8; i++)
        raw = raw << 8 | next(f);
    out->b = (int)(raw & 1);
    out->i = (int64_t)raw;
    out->u = raw;
    memcpy(&out->d, &raw, sizeof out->d);
    out->dec.m[0] = (uint32_t)raw;
    out->dec.m[1] = (uint32_t)(raw >> 32);
    out->dec.m[2] = next(f);
    out->dec.scale = (uint8_t)(next(f) % 29);
    out->dec.neg = next(f) & 1;
    out->chars = k_chars;
    out->len = next(f) % (sizeof k_chars / sizeof k_chars[0] + 1);
    out->text = "System.InvalidOperationException";
    out->items = k_items;
    out->nitems = 3;
    out->enum_signed = (uint8_t)(k >> 7);
    out->enum_size = (uint8_t)(1u << (next(f) % 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ct_expr e;
    ct_expr_error err;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t len = strlen(text);
    if (ct_expr_parse(text, &e, &err) != 0) {
        if (err.offset > len || !err.message[0] || !memchr(err.message, '\0', sizeof err.message) ||
            !strstr(err.message, "at offset"))
            abort();
    } else {
        if (e.nnodes > CT_EXPR_MAX_NODES || e.npaths > CT_EXPR_MAX_PATHS ||
            strlen(e.glob) > CT_EXPR_MAX_GLOB || e.root >= e.nnodes)
            abort();
        feed a = {data, size, 0}, b = {data, size, 0};
        ct_xtruth t1 = ct_expr_eval(&e, resolve, &a);
        ct_xtruth t2 = ct_expr_eval(&e, resolve, &b);
        if (t1 != t2 || t1 > CT_XUNKNOWN)
            abort();
        (void)ct_expr_needs_return(&e);
    }
    static ct_inject_spec spec;
    if (ct_inject_parse(text, &spec, &err) != 0) {
        if (err.offset > len || !err.message[0] || !memchr(err.message, '\0', sizeof err.message) ||
            !strstr(err.message, "at offset"))
            abort();
    } else {
        if (spec.action < CT_INJECT_THROW || spec.action > CT_INJECT_DELAY ||
            strlen(spec.glob) > CT_EXPR_MAX_GLOB || spec.msg_len > CT_EXPR_MAX_STRING ||
            (spec.action == CT_INJECT_DELAY && (spec.delay_ms < CT_INJECT_MIN_DELAY_MS ||
                                                spec.delay_ms > CT_INJECT_MAX_DELAY_MS)) ||
            (spec.first && spec.last < spec.first))
            abort();
        char action[CT_EXPR_MAX_TEXT + 64];
        ct_inject_action_text(&spec, action, sizeof action);
        for (uint64_t n = 1; n < 64; n++)
            if (ct_inject_selects(&spec, n, size) != ct_inject_selects(&spec, n, size))
                abort();
    }
    free(text);
    return 0;
}
