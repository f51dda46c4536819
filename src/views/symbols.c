/* The symbol table of a trace (src/views/symbols.h): functions,
 * classes and threads as their records define them, and value text. */
#define _POSIX_C_SOURCE 200809L
#include "symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/table.h"
#include "value_text.h"
#include "value_wellknown.h"

/* Block size of the table's own memory for copied plans and names. */
#define POOL_BLOCK (64 * 1024)

/* ------------------------------------------------------------- memory */

typedef struct pool_block {
    struct pool_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char mem[];
} pool_block;

typedef struct pool {
    pool_block *head;
} pool;

static void *pool_alloc(pool *p, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    pool_block *b = p->head;
    if (!b || n > b->cap - b->used) {
        size_t cap = n > POOL_BLOCK ? n : POOL_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->used = 0;
        b->cap = cap;
        if (p->head && n > POOL_BLOCK) {
            /* A large block goes behind the current one, which keeps room. */
            b->next = p->head->next;
            p->head->next = b;
        } else {
            b->next = p->head;
            p->head = b;
        }
    }
    void *r = b->mem + b->used;
    b->used += n;
    memset(r, 0, n);
    return r;
}

static char *pool_strndup(pool *p, const char *s, size_t n)
{
    char *d = pool_alloc(p, n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static void pool_free(pool *p)
{
    for (pool_block *b = p->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    p->head = NULL;
}

/* A plan copied into the pool (the reader's arena may be reused). */
static const ct_plan *plan_clone(pool *p, const ct_plan *src, unsigned depth)
{
    if (!src || depth > CT_MAX_PLAN_DEPTH)
        return NULL;
    ct_plan *d = pool_alloc(p, sizeof *d);
    if (!d)
        return NULL;
    *d = *src;
    const char *tn = src->type_name ? src->type_name : "";
    d->type_name = pool_strndup(p, tn, strlen(tn));
    d->fields = NULL;
    d->items = NULL;
    d->elem = NULL;
    d->key = NULL;
    d->seq = NULL;
    if ((src->kind == CT_V_STRUCT || src->kind == CT_V_CLASS) && src->count) {
        ct_field *f = pool_alloc(p, src->count * sizeof *f);
        if (!f)
            return NULL;
        for (uint32_t i = 0; i < src->count; i++) {
            const char *fn = src->fields[i].name ? src->fields[i].name : "";
            f[i].name = pool_strndup(p, fn, strlen(fn));
            f[i].offset = src->fields[i].offset;
            f[i].plan = plan_clone(p, src->fields[i].plan, depth + 1);
            if (!f[i].plan || !f[i].name)
                return NULL;
        }
        d->fields = f;
    } else if (src->kind == CT_V_ENUM && src->count) {
        ct_enum_item *it = pool_alloc(p, src->count * sizeof *it);
        if (!it)
            return NULL;
        for (uint32_t i = 0; i < src->count; i++) {
            const char *in = src->items[i].name ? src->items[i].name : "";
            it[i].name = pool_strndup(p, in, strlen(in));
            it[i].value = src->items[i].value;
            if (!it[i].name)
                return NULL;
        }
        d->items = it;
    } else if (src->kind != CT_V_STRUCT && src->kind != CT_V_ENUM && src->kind != CT_V_CLASS &&
               src->kind != CT_V_MDARRAY && src->kind != CT_V_INLINE) {
        d->count = 0;
    }
    if (src->elem && (src->kind == CT_V_ARRAY || src->kind == CT_V_BYREF ||
                      src->kind == CT_V_NULLABLE || src->kind == CT_V_SPAN ||
                      src->kind == CT_V_VECTOR || src->kind == CT_V_SEQ ||
                      src->kind == CT_V_MDARRAY || src->kind == CT_V_SEGMENT ||
                      src->kind == CT_V_INLINE)) {
        d->elem = plan_clone(p, src->elem, depth + 1);
        if (!d->elem)
            return NULL;
    }
    if (src->key && src->kind == CT_V_SEQ) {
        d->key = plan_clone(p, src->key, depth + 1);
        if (!d->key)
            return NULL;
    }
    return d->type_name ? d : NULL;
}

/* ------------------------------------------------------------- the table */

struct ct_symbols {
    pool mem;
    ct_table fns;      /* key -> ct_function (malloc'd; labels/plans arrays malloc'd) */
    ct_table classes;  /* class id -> named (pool) */
    ct_table contents; /* class id -> the plan of its content (pool) */
    ct_table threads;  /* tid -> name (pool) */
};

ct_symbols *ct_symbols_new(void)
{
    return calloc(1, sizeof(ct_symbols));
}

void ct_symbols_free(ct_symbols *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->fns.cap; i++)
        if (s->fns.slots[i].value) {
            ct_function *f = s->fns.slots[i].value;
            free(f->labels);
            free((void *)f->label_lens);
            free(f->plans);
            free(f);
        }
    ct_table_free(&s->fns);
    ct_table_free(&s->classes);
    ct_table_free(&s->contents);
    ct_table_free(&s->threads);
    pool_free(&s->mem);
    free(s);
}

static int define_function(ct_symbols *s, const ct_rec *rec)
{
    ct_function *f = ct_table_get(&s->fns, rec->key);
    int fresh = !f;
    if (fresh) {
        f = calloc(1, sizeof *f);
        if (!f)
            return -1;
        f->key = rec->key;
    }
    const char **labels = calloc(rec->nparams + 1, sizeof *labels);
    const ct_plan **plans = calloc(rec->nparams + 1, sizeof *plans);
    size_t *label_lens = calloc(rec->nparams + 1, sizeof *label_lens);
    const char *name = pool_strndup(&s->mem, rec->name, rec->name_len);
    const char *ret_label = pool_strndup(&s->mem, rec->ret.name ? rec->ret.name : "",
                                         rec->ret.name_len);
    int ok = labels && plans && label_lens && name && ret_label;
    for (uint32_t i = 0; ok && i < rec->nparams; i++) {
        labels[i] = pool_strndup(&s->mem, rec->params[i].name ? rec->params[i].name : "",
                                 rec->params[i].name_len);
        plans[i] = plan_clone(&s->mem, rec->params[i].plan, 0);
        ok = labels[i] && plans[i];
        if (ok)
            label_lens[i] = strlen(labels[i]);
    }
    const char *src_file = NULL;
    if (ok && rec->src_file)
        ok = (src_file = pool_strndup(&s->mem, rec->src_file, rec->src_file_len)) != NULL;
    const ct_plan *ret = NULL;
    if (ok && rec->ret.plan && rec->ret.plan->kind != CT_V_VOID)
        ok = (ret = plan_clone(&s->mem, rec->ret.plan, 0)) != NULL;
    if (ok && fresh && ct_table_put(&s->fns, f->key, f) != 0)
        ok = 0;
    if (!ok) {
        free(labels);
        free(plans);
        free(label_lens);
        if (fresh)
            free(f);
        return -1;
    }
    free(f->labels);
    free(f->plans);
    free((void *)f->label_lens);
    f->name = name;
    f->name_len = strlen(name);
    f->flags = rec->flags;
    f->nparams = rec->nparams;
    f->labels = labels;
    f->plans = plans;
    f->ret_label = ret_label;
    f->ret_label_len = strlen(ret_label);
    f->label_lens = label_lens;
    f->ret = ret;
    f->src_file = src_file;
    f->src_line = rec->src_line;
    f->src_root = src_file && rec->src_root <= strlen(src_file) ? rec->src_root : 0;
    /* Only parameters whose target plan is known can be read. */
    f->out_mask = 0;
    for (uint32_t i = 0; i < rec->nparams && i < 64; i++)
        if ((rec->out_mask >> i & 1) && plans[i]->kind == CT_V_BYREF && plans[i]->elem)
            f->out_mask |= 1ull << i;
    return 0;
}

/* A class's name and its length, measured once (the text log shows a
 * name per object). */
typedef struct named {
    const char *text;
    size_t len;
} named;

/* A CLASS record's name, cut to CT_SYMBOLS_CLASS_NAME_MAX bytes, under its
 * id. */
static int define_class_name(ct_symbols *s, const ct_rec *rec)
{
    size_t n = rec->name_len < CT_SYMBOLS_CLASS_NAME_MAX ? rec->name_len : CT_SYMBOLS_CLASS_NAME_MAX;
    named *c = pool_alloc(&s->mem, sizeof *c);
    char *copy = c ? pool_strndup(&s->mem, rec->name, n) : NULL;
    if (!copy)
        return -1;
    c->text = copy;
    c->len = strlen(copy); /* up to a NUL in the record's bytes, as shown before */
    return ct_table_put(&s->classes, rec->key, c) != 0 ? -1 : 0;
}

/* A THREAD record's name, cut to max bytes, under id in t. */
static int define_name(ct_symbols *s, ct_table *t, uint64_t id, const char *name, uint32_t len,
                       size_t max)
{
    size_t n = len < max ? len : max;
    char *copy = pool_strndup(&s->mem, name, n);
    if (!copy || ct_table_put(t, id, copy) != 0)
        return -1;
    return 0;
}

int ct_symbols_add(ct_symbols *s, const ct_rec *rec)
{
    switch (rec->type) {
    case CT_REC_FUNCTION:
        return define_function(s, rec);
    case CT_REC_CLASS:
        if (rec->content) {
            const ct_plan *c = plan_clone(&s->mem, rec->content, 0);
            if (!c || ct_table_put(&s->contents, rec->key, (void *)c) != 0)
                return -1;
        }
        return define_class_name(s, rec);
    case CT_REC_THREAD:
        return define_name(s, &s->threads, rec->tid, rec->name, rec->name_len,
                           CT_SYMBOLS_THREAD_NAME_MAX);
    default:
        return 0;
    }
}

const ct_function *ct_symbols_function(ct_symbols *s, uint64_t key)
{
    ct_function *f = ct_table_get(&s->fns, key);
    if (f)
        return f;
    /* A function an event names without a FUNCTION record (a damaged or
     * hand-made trace): shown as "?" with no values. */
    f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->key = key;
    f->name = "?";
    f->name_len = 1;
    f->flags = CT_FN_NO_VALUES;
    f->ret_label = "";
    if (ct_table_put(&s->fns, key, f) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

const char *ct_symbols_thread_name(const ct_symbols *s, uint64_t tid)
{
    return ct_table_get(&s->threads, tid);
}

static const char *class_name(void *ctx, uint64_t cls, size_t *len)
{
    ct_symbols *s = ctx;
    const named *c = ct_table_get(&s->classes, cls);
    if (!c)
        return NULL;
    *len = c->len;
    return c->text;
}

static const ct_plan *class_content(void *ctx, uint64_t cls)
{
    ct_symbols *s = ctx;
    return ct_table_get(&s->contents, cls);
}

void ct_symbols_value_text(ct_symbols *s, const ct_plan *p, const uint8_t *v, uint32_t len,
                           ct_value_status st, ct_text *t)
{
    ct_classes cl = {class_name, class_content, s};
    switch (st) {
    case CT_VALUE_PLAN:
        if (p)
            ct_format_value(p, v, len, &cl, t);
        else
            ct_text_put(t, "<damaged>");
        break;
    case CT_VALUE_RANGE: {
        ct_plan bytes = {.kind = CT_V_OPAQUE, .size = len, .type_name = "?"};
        ct_format_value(&bytes, v, len, &cl, t);
        break;
    }
    case CT_VALUE_TOO_LARGE:
        ct_text_put(t, "<too large>");
        break;
    case CT_VALUE_ADDRESS: {
        ct_plan addr = {.kind = CT_V_PTR, .size = 8, .type_name = "ref"};
        ct_format_value(&addr, v, len, &cl, t);
        break;
    }
    default:
        ct_text_put(t, "<unavailable>");
        break;
    }
}

int ct_symbols_return_text(ct_symbols *s, const ct_function *fn, const ct_rec *leave,
                           ct_text *out)
{
    if ((fn->flags & CT_FN_NO_VALUES) || !fn->ret)
        return 0;
    size_t pos = 0;
    const uint8_t *v;
    uint32_t len;
    ct_value_status st;
    if (leave->nvalues >= 1 && ct_next_value(leave, &pos, &v, &len, &st) == 1) {
        /* A runtime-async call that suspended: no value yet (it comes with
         * its end). */
        if (st == CT_VALUE_MISSING && (fn->flags & CT_FN_RT_ASYNC))
            return 0;
        ct_symbols_value_text(s, fn->ret, v, len, st, out);
    } else {
        ct_text_put(out, "?");
    }
    return 1;
}

uint64_t ct_symbols_async_id(const ct_function *fn, const ct_rec *leave)
{
    if (!(fn->flags & CT_FN_ASYNC) || (fn->flags & CT_FN_NO_VALUES) ||
        (!fn->ret && !(fn->flags & CT_FN_RT_ASYNC)) || leave->type != CT_REC_LEAVE)
        return 0;
    uint32_t want = (fn->ret ? 2 : 1) + (uint32_t)__builtin_popcountll(fn->out_mask);
    if (leave->nvalues != want)
        return 0;
    size_t pos = 0;
    const uint8_t *v = NULL;
    uint32_t len = 0;
    ct_value_status st = CT_VALUE_PLAN;
    for (uint32_t i = 0; i < want; i++)
        if (ct_next_value(leave, &pos, &v, &len, &st) != 1)
            return 0;
    uint64_t id = 0;
    if (st != CT_VALUE_PLAN || len != 8)
        return 0;
    memcpy(&id, v, 8);
    return id;
}

int ct_symbols_async_result_text(ct_symbols *s, const ct_function *fn, const ct_rec *ret,
                                 ct_text *out)
{
    size_t pos = 0;
    const uint8_t *v;
    uint32_t len;
    ct_value_status st;
    uint64_t cls = 0;
    if (ret->nvalues != 2 || ct_next_value(ret, &pos, &v, &len, &st) != 1 ||
        st != CT_VALUE_PLAN || len != 8)
        return 0;
    memcpy(&cls, v, 8);
    if (!cls) {
        /* A runtime-async call's result, by its function's return plan. */
        if (!fn || !(fn->flags & CT_FN_RT_ASYNC) || !fn->ret ||
            ct_next_value(ret, &pos, &v, &len, &st) != 1)
            return 0;
        ct_symbols_value_text(s, fn->ret, v, len, st, out);
        return 1;
    }
    const ct_plan *c = ct_table_get(&s->contents, cls);
    if (!c || c->kind != CT_V_CLASS || ct_task_result_at(c) != 1 ||
        ct_next_value(ret, &pos, &v, &len, &st) != 1)
        return 0;
    ct_symbols_value_text(s, c->fields[1].plan, v, len, st, out);
    return 1;
}

/* The parameter's name in its label: "out int value=" -> "value". */
static void put_param_name(ct_text *out, const char *label)
{
    size_t n = strlen(label);
    if (n && label[n - 1] == '=')
        n--;
    size_t start = n;
    while (start && label[start - 1] != ' ')
        start--;
    ct_text_putn(out, label + start, n - start);
}

int ct_symbols_out_text(ct_symbols *s, const ct_function *fn, const ct_rec *leave, ct_text *out)
{
    if ((fn->flags & CT_FN_NO_VALUES) || !fn->out_mask)
        return 0;
    size_t pos = 0;
    const uint8_t *v;
    uint32_t len;
    ct_value_status st;
    /* The return value comes first (a void function has none). */
    if (fn->ret && ct_next_value(leave, &pos, &v, &len, &st) != 1)
        return 0;
    int shown = 0;
    for (uint32_t i = 0; i < fn->nparams && i < 64; i++) {
        if (!(fn->out_mask >> i & 1))
            continue;
        if (ct_next_value(leave, &pos, &v, &len, &st) != 1)
            break;
        if (st == CT_VALUE_MISSING)
            continue; /* not read again (a target outside the thread's stack) */
        ct_text_put(out, "  ");
        put_param_name(out, fn->labels[i]);
        ct_text_put(out, "=");
        ct_symbols_value_text(s, fn->plans[i]->elem, v, len, st, out);
        shown++;
    }
    return shown;
}

/* An AggregateException's Message as .NET builds it (AggregateException.cs,
 * Message): its own message (Exception.Message: _message, or "Exception of
 * type 'NAME' was thrown." when null), then " (" + the Message of each of
 * its InnerExceptions + ")". Built here as a STRING value from the pieces
 * the record has: kept whole up to the first piece that was cut (then the
 * whole length is still known, as a cut string's) or that the record does
 * not have (an inner exception left out, a message not read or null under
 * a Message override: then neither is the length); ct_exc_msg
 * (value_wellknown.h) keeps the pieces. */

/* The index past nodes[i]'s subtree. */
static uint32_t skip_node(const ct_exc_node *x, uint32_t n, uint32_t i)
{
    uint32_t d = x[i].depth;
    for (i++; i < n && x[i].depth > d; i++)
        ;
    return i;
}

/* The Message of nodes[i] into b; returns the index past its subtree. */
static uint32_t msg_node(ct_symbols *s, const ct_exc_node *x, uint32_t n, uint32_t i,
                         ct_exc_msg *b)
{
    const ct_exc_node *me = &x[i++];
    const uint8_t *m = me->message;
    uint64_t addr = m ? ct_get_le64(m) : 0;
    if (m && addr && me->message_len >= 16) {
        int32_t length = (int32_t)ct_get_le32(m + 8);
        uint32_t kept = ct_get_le32(m + 12);
        if (length < 0 || kept > (me->message_len - 16) / 2 || kept > (uint32_t)length)
            b->unknown = 1;
        else
            ct_exc_msg_units(b, m + 16, kept, length);
    } else if (m && !addr && me->aggregate) {
        size_t len;
        ct_exc_msg_default(b, class_name(s, me->class_id, &len));
    } else {
        b->unknown = 1;
    }
    if (!me->aggregate)
        return skip_node(x, n, i - 1); /* its inner exceptions are not in its Message */
    for (uint32_t k = 0; k < me->kept && i < n; k++) {
        ct_exc_msg_ascii(b, " (");
        i = msg_node(s, x, n, i, b);
        ct_exc_msg_ascii(b, ")");
    }
    if (me->kept < me->inner)
        b->unknown = 1;
    return i;
}

/* nodes[i]'s Message, as a string value is shown. */
static void put_exc_message(ct_symbols *s, const ct_exc_node *x, uint32_t n, uint32_t i,
                            ct_text *out)
{
    const ct_exc_node *me = &x[i];
    if (!me->aggregate || !me->inner) {
        ct_symbols_value_text(s, ct_unwind_plan(1), me->message, me->message_len,
                              CT_VALUE_PLAN, out);
        return;
    }
    uint8_t buf[16 + 2 * CT_EXC_TEXT_UNITS];
    ct_exc_msg b = { buf + 16, CT_EXC_TEXT_UNITS, 0, 0, 0, 0 };
    if (skip_node(x, n, i) > i)
        msg_node(s, x, n, i, &b);
    uint64_t one = 1;
    int32_t length = b.unknown || b.length > INT32_MAX ? -1 : (int32_t)b.length;
    memcpy(buf, &one, 8);
    memcpy(buf + 8, &length, 4);
    memcpy(buf + 12, &b.n, 4);
    ct_symbols_value_text(s, ct_unwind_plan(1), buf, 16 + 2 * b.n, CT_VALUE_PLAN, out);
    if (b.unknown)
        ct_text_put(out, "...");
}

/* nodes[*i] and, with chain, its inner exceptions: "TYPE: \"MESSAGE\" <-
 * ..."; *i moves past its subtree. */
static void put_exc_node(ct_symbols *s, const ct_exc_node *x, uint32_t n, uint32_t *i,
                         int chain, ct_text *out)
{
    const ct_exc_node *me = &x[*i];
    size_t len;
    const char *name = class_name(s, me->class_id, &len);
    if (name)
        ct_text_putn(out, name, len);
    else
        ct_text_put(out, "?");
    /* The message when read and not null (null: a Message override, which
     * a reader cannot know; an aggregate's is .NET's own even then). */
    if (me->message && (ct_get_le64(me->message) || (me->aggregate && me->inner))) {
        ct_text_put(out, ": ");
        put_exc_message(s, x, n, *i, out);
    }
    (*i)++;
    if (!me->inner || !chain)
        return;
    ct_text_put(out, " <- ");
    if (me->aggregate)
        ct_text_put(out, "(");
    for (uint32_t k = 0; k < me->kept && *i < n; k++) {
        if (k)
            ct_text_put(out, me->aggregate ? ", " : " <- ");
        put_exc_node(s, x, n, i, 1, out);
    }
    if (me->kept < me->inner) {
        if (me->aggregate)
            ct_text_printf(out, "%s+%u more", me->kept ? ", " : "", me->inner - me->kept);
        else
            ct_text_put(out, "...");
    }
    if (me->aggregate)
        ct_text_put(out, ")");
}

int ct_symbols_exception_text(ct_symbols *s, const ct_rec *unwind, ct_text *out)
{
    ct_exc_node nodes[CT_UNWIND_CHAIN_MAX + 1];
    uint32_t n = 0, i = 0;
    int rc = ct_unwind_chain(unwind, nodes, CT_UNWIND_CHAIN_MAX + 1, &n);
    if (rc == 0)
        return 0;
    put_exc_node(s, nodes, n, &i, rc > 0, out);
    if (rc < 0)
        ct_text_put(out, " <- <damaged>");
    return 1;
}
