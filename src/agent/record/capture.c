/* Raw capture in the hook: copy what the plan says, nothing else. No
 * allocation, no locks, no formatting; every object read is guided by the
 * runtime's layout and bounded by the limits. */
#include <string.h>

#include "format/value.h"
#include "capture.h"

typedef struct cap_ctx {
    const ct_layout *layout;
    const ct_limits *limits;
    ct_class_of class_of;
    void *ctx;
    uint8_t *out;
    size_t cap, len;
    int overflow;
    uint32_t objects;           /* levels of objects open (content being captured) */
    uint32_t nseen;
    struct {
        uint64_t addr;
        uint32_t open;          /* still being captured: a container of what follows */
    } seen[CT_MAX_SEEN_OBJECTS];
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

static void emit_u8(cap_ctx *c, uint8_t v)
{
    emit(c, &v, 1);
}

static uint64_t load_ref(const void *slot)
{
    uint64_t v;
    memcpy(&v, slot, 8);
    return v;
}

static int32_t load_i32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void capture(cap_ctx *c, const ct_plan *p, const uint8_t *src, unsigned depth);

/* n characters of a string (after its address): i32 length, u32 n, the
 * UTF-16 code units from index start. */
static void capture_chars_from(cap_ctx *c, uint64_t obj, int32_t length, uint32_t start)
{
    const uint8_t *o = (const uint8_t *)(uintptr_t)obj;
    uint32_t n = length < 0 ? 0 : (uint32_t)length;
    if (n > c->limits->string_chars)
        n = c->limits->string_chars;
    emit(c, &length, 4);
    emit_u32(c, n);
    emit(c, o + c->layout->string_chars_offset + (size_t)start * 2, (size_t)n * 2);
}

/* A string's length and characters (after its address). */
static void capture_chars(cap_ctx *c, uint64_t obj)
{
    const uint8_t *o = (const uint8_t *)(uintptr_t)obj;
    capture_chars_from(c, obj, load_i32(o + c->layout->string_length_offset), 0);
}

static void capture_string(cap_ctx *c, uint64_t obj)
{
    emit_u64(c, obj);
    if (obj)
        capture_chars(c, obj);
}

/* The rule of src/format/value.h: these elements are copied. */
/* n elements of plan e from data (each e->size bytes: a reference's plan
 * has size 8). */
static void capture_items(cap_ctx *c, const ct_plan *e, const uint8_t *data, uint32_t n,
                          unsigned depth)
{
    for (uint32_t i = 0; i < n && !c->overflow; i++)
        capture(c, e, data + (size_t)i * e->size, depth + 1);
}

/* How many of `length` elements are copied. */
static uint32_t items_kept(const cap_ctx *c, const ct_plan *e, uint32_t length)
{
    uint32_t n = ct_array_items_captured(e) ? length : 0;
    return n > c->limits->array_items ? c->limits->array_items : n;
}

/* A T[]'s length, the count copied and the elements (after its head). */
static void capture_szarray_items(cap_ctx *c, const ct_plan *e, const uint8_t *o, unsigned depth)
{
    uint32_t length;
    memcpy(&length, o + c->layout->array_length_offset, 4);
    uint32_t n = items_kept(c, e, length);
    emit_u32(c, length);
    emit_u32(c, n);
    capture_items(c, e, o + c->layout->array_data_offset, n, depth);
}

static void capture_array(cap_ctx *c, const ct_plan *p, uint64_t obj, unsigned depth)
{
    emit_u64(c, obj);
    if (!obj)
        return;
    const uint8_t *o = (const uint8_t *)(uintptr_t)obj;
    ct_class_info ci = {0};
    if (c->class_of)
        c->class_of(c->ctx, obj, 0, &ci);
    emit_u64(c, ci.id);
    capture_szarray_items(c, p->elem, o, depth);
}

/* A multi-dimensional array: on 64-bit CoreLib its length is at the
 * SZARRAY's place, then come rank i32 lengths and rank i32 lower bounds,
 * then the elements. */
static void capture_mdarray(cap_ctx *c, const ct_plan *p, uint64_t obj, unsigned depth)
{
    emit_u64(c, obj);
    if (!obj)
        return;
    const uint8_t *o = (const uint8_t *)(uintptr_t)obj;
    uint32_t rank = p->count, length;
    memcpy(&length, o + c->layout->array_length_offset, 4);
    const uint8_t *bounds = o + c->layout->array_data_offset;
    emit_u32(c, rank);
    emit(c, bounds, (size_t)rank * 8);
    uint32_t n = items_kept(c, p->elem, length);
    emit_u32(c, n);
    capture_items(c, p->elem, bounds + (size_t)rank * 8, n, depth);
}

/* A span's elements, valid while the hook runs (the span's own promise):
 * as many as the limits allow, characters for a char span. */
static void capture_span(cap_ctx *c, const ct_plan *p, const uint8_t *src, unsigned depth)
{
    uint64_t ptr = load_ref(src);
    int32_t length = load_i32(src + p->value_offset);
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
    capture_items(c, p->elem, data, n, depth);
}

/* ArraySegment<T>, Memory<T>, ReadOnlyMemory<T>: the elements of the array
 * (or string) they view, from their start. Memory's start keeps a flag in
 * its top bit. The start and count are checked against the object's own
 * length before anything is read. */
static void capture_segment(cap_ctx *c, const ct_plan *p, const uint8_t *src, unsigned depth)
{
    uint64_t obj = load_ref(src);
    int32_t start = load_i32(src + p->value_offset) & 0x7fffffff;
    int32_t count = load_i32(src + p->count_offset);
    emit_u64(c, obj);
    if (!obj)
        return;
    emit(c, &count, 4);
    ct_class_info ci = {0};
    if (c->class_of)
        c->class_of(c->ctx, obj, 0, &ci);
    const uint8_t *o = (const uint8_t *)(uintptr_t)obj;
    int chars = p->elem && p->elem->kind == CT_V_CHAR;
    uint32_t have;
    if (ci.string && chars)
        memcpy(&have, o + c->layout->string_length_offset, 4);
    else if (ci.szarray && ct_array_items_captured(p->elem))
        memcpy(&have, o + c->layout->array_length_offset, 4);
    else
        have = 0;
    if (count < 0 || (uint64_t)(uint32_t)start + (uint32_t)count > have ||
        (!ci.string && !ci.szarray) || (ci.string && !chars)) {
        emit_u8(c, 0);
        return;
    }
    if (ci.string) {
        emit_u8(c, 2);
        uint32_t n = (uint32_t)count < c->limits->string_chars ? (uint32_t)count
                                                               : c->limits->string_chars;
        emit_u32(c, n);
        emit(c, o + c->layout->string_chars_offset + (size_t)start * 2, (size_t)n * 2);
        return;
    }
    emit_u8(c, 1);
    uint32_t n = items_kept(c, p->elem, (uint32_t)count);
    emit_u32(c, n);
    capture_items(c, p->elem, o + c->layout->array_data_offset + (size_t)start * p->elem->size,
                  n, depth);
}

/* A StringBuilder's length and the first characters of its text (after
 * the object's address and class id). Its chunks are linked from the last
 * (the object itself) back to the first, each with its characters' offset
 * in the text: they are followed back (at most CT_MAX_TEXT_CHUNKS) until
 * the chunk at offset 0, copying what falls in the first n characters.
 * Every chunk is checked (its characters inside its array, ending where the
 * next one starts); when they do not all agree, or the first is not
 * reached, no character is kept. */
static void capture_text(cap_ctx *c, const ct_seq *q, const uint8_t *o)
{
    int32_t length = load_i32(o + q->head) + load_i32(o + q->count);
    if (length < 0 || load_i32(o + q->head) < 0)
        length = 0;
    uint32_t n = (uint32_t)length < c->limits->string_chars ? (uint32_t)length
                                                            : c->limits->string_chars;
    emit(c, &length, 4);
    size_t n_at = c->len;
    emit_u32(c, n);
    if (c->overflow || (size_t)n * 2 > c->cap - c->len) {
        c->overflow = 1;
        return;
    }
    uint8_t *dst = c->out + c->len;
    int32_t end = length; /* where the chunk being read must end */
    const uint8_t *chunk = o;
    for (uint32_t k = 0; chunk && k < CT_MAX_TEXT_CHUNKS; k++) {
        int32_t off = load_i32(chunk + q->head), clen = load_i32(chunk + q->count);
        uint64_t arr = load_ref(chunk + q->items);
        uint32_t alen = 0;
        if (arr)
            memcpy(&alen, (const uint8_t *)(uintptr_t)arr + c->layout->array_length_offset, 4);
        if (off < 0 || clen < 0 || (uint32_t)clen > alen || off != end - clen)
            break;
        if ((uint32_t)off < n) {
            uint32_t take = n - (uint32_t)off < (uint32_t)clen ? n - (uint32_t)off : (uint32_t)clen;
            memcpy(dst + (size_t)off * 2,
                   (const uint8_t *)(uintptr_t)arr + c->layout->array_data_offset, (size_t)take * 2);
        }
        end = off;
        if (off == 0) {
            c->len += (size_t)n * 2;
            return;
        }
        chunk = (const uint8_t *)(uintptr_t)load_ref(chunk + q->previous);
    }
    /* The start was not reached: the length only. */
    memset(c->out + n_at, 0, 4);
}

/* A LinkedList<T>'s count and elements, its nodes followed from its head
 * (at most the items kept, CLRTRACE_ARRAY_ITEMS): each node must be of the
 * planned node class, and the walk ends back at the head. Fewer nodes than
 * its count (a list changed by another thread): n says how many were
 * copied. */
static void capture_linked(cap_ctx *c, const ct_plan *p, const ct_seq *q, const uint8_t *o,
                           unsigned depth)
{
    int32_t count = load_i32(o + q->count);
    if (count < 0)
        count = 0;
    emit(c, &count, 4);
    uint32_t n = items_kept(c, p->elem, (uint32_t)count), done = 0;
    size_t n_at = c->len;
    emit_u32(c, n);
    uint64_t head = load_ref(o + q->items), node = head;
    while (done < n && node && !c->overflow) {
        const uint8_t *nd = (const uint8_t *)(uintptr_t)node;
        if (load_ref(nd) != q->node_class)
            break;
        capture(c, p->elem, nd + q->entry_value, depth + 1);
        done++;
        node = load_ref(nd + q->entry_next);
        if (node == head)
            break;
    }
    if (!c->overflow && done < n)
        memcpy(c->out + n_at, &done, 4);
}

/* A BitArray's length and its first bits (at most the items kept), each a
 * bool, from the array it keeps them in (little-endian, bit i in byte i / 8);
 * a length the array cannot hold: none. */
static void capture_bits(cap_ctx *c, const ct_seq *q, const uint8_t *o)
{
    int32_t count = load_i32(o + q->count);
    uint64_t arr = load_ref(o + q->items);
    uint32_t alen = 0;
    if (arr)
        memcpy(&alen, (const uint8_t *)(uintptr_t)arr + c->layout->array_length_offset, 4);
    if (count < 0 || (uint64_t)(uint32_t)count > (uint64_t)alen * q->entry_size * 8)
        count = 0;
    emit(c, &count, 4);
    uint32_t n = (uint32_t)count < c->limits->array_items ? (uint32_t)count
                                                          : c->limits->array_items;
    emit_u32(c, n);
    const uint8_t *bits = arr ? (const uint8_t *)(uintptr_t)arr + c->layout->array_data_offset
                              : NULL;
    for (uint32_t i = 0; i < n && !c->overflow; i++)
        emit_u8(c, (uint8_t)((bits[i / 8] >> (i % 8)) & 1));
}

/* The length of array arr (0 when null). */
static uint32_t array_length(const cap_ctx *c, uint64_t arr)
{
    uint32_t n = 0;
    if (arr)
        memcpy(&n, (const uint8_t *)(uintptr_t)arr + c->layout->array_length_offset, 4);
    return n;
}

/* One DICT entry at node nd (its key and value), or a LIST/SET element. */
static void capture_entry(cap_ctx *c, const ct_plan *p, const ct_seq *q, const uint8_t *nd,
                          unsigned depth)
{
    if (p->shape == CT_SEQ_DICT)
        capture(c, p->key, nd + q->entry_key, depth + 1);
    capture(c, p->elem, nd + q->entry_value, depth + 1);
}

/* The entries of the tree at root in order, while *done < n, with the
 * nodes on the way down kept (at most CT_MAX_TREE_DEPTH); each node checked
 * to be of the planned class. A tree of hash buckets (q->inner): each
 * bucket's first entry, then its tree of the others. Returns -1 when the
 * walk stopped short (a node of another class, a tree too deep). */
static int walk_tree(cap_ctx *c, const ct_plan *p, const ct_seq *q, uint64_t node, uint32_t n,
                     uint32_t *done, unsigned depth)
{
    const uint8_t *stack[CT_MAX_TREE_DEPTH];
    uint32_t sp = 0;
    int sentinel = (q->flags & CT_TREE_EMPTY_SENTINEL) != 0;
    while (*done < n && !c->overflow) {
        while (node) {
            const uint8_t *nd = (const uint8_t *)(uintptr_t)node;
            if (load_ref(nd) != q->node_class)
                return -1;
            if (sentinel && !load_ref(nd + q->left))
                break;
            if (sp == CT_MAX_TREE_DEPTH)
                return -1;
            stack[sp++] = nd;
            node = load_ref(nd + q->left);
        }
        if (!sp)
            break;
        const uint8_t *nd = stack[--sp];
        capture_entry(c, p, q, nd, depth);
        ++*done;
        if (q->inner && walk_tree(c, p, q->inner, load_ref(nd + q->inner->items), n, done,
                                  depth) < 0)
            return -1;
        node = load_ref(nd + q->right);
    }
    return 0;
}

/* The count and the first entries (at most the items kept) of a collection
 * whose walk is BUCKETS or TREE: its count, n, then the entries the walk
 * reaches; fewer than n (the collection changed by another thread, a node
 * of another class, a limit): n says how many were copied. */
static void capture_walked(cap_ctx *c, const ct_plan *p, const ct_seq *q, const uint8_t *o,
                           unsigned depth)
{
    int64_t count = 0;
    uint64_t owner = (uint64_t)(uintptr_t)o, root = 0;
    if (q->walk == CT_WALK_BUCKETS) {
        uint64_t tables = load_ref(o + q->items);
        uint64_t counts = tables ? load_ref((const uint8_t *)(uintptr_t)tables + q->count) : 0;
        uint32_t locks = array_length(c, counts);
        if (locks > CT_MAX_BUCKET_LOCKS)
            locks = 0;
        const uint8_t *per = (const uint8_t *)(uintptr_t)counts + c->layout->array_data_offset;
        for (uint32_t i = 0; i < locks; i++)
            count += load_i32(per + 4ull * i);
        owner = tables ? load_ref((const uint8_t *)(uintptr_t)tables + q->head) : 0;
    } else {
        if (q->outer != CT_SEQ_NO_OUTER)
            owner = load_ref(o + q->outer);
        root = owner ? load_ref((const uint8_t *)(uintptr_t)owner + q->items) : 0;
        if (q->flags & CT_TREE_COUNT_IN_ROOT)
            count = root && load_ref((const uint8_t *)(uintptr_t)root) == q->node_class
                        ? load_i32((const uint8_t *)(uintptr_t)root + q->count)
                        : 0;
        else if (owner)
            count = load_i32((const uint8_t *)(uintptr_t)owner + q->count);
    }
    if (count < 0 || count > INT32_MAX)
        count = 0;
    int32_t shown = (int32_t)count;
    emit(c, &shown, 4);
    uint32_t n = items_kept(c, p->elem, (uint32_t)shown), done = 0;
    if (p->shape == CT_SEQ_DICT && !ct_array_items_captured(p->key))
        n = 0;
    size_t n_at = c->len;
    emit_u32(c, n);
    if (q->walk == CT_WALK_BUCKETS) {
        uint32_t length = array_length(c, owner);
        if (length > CT_MAX_BUCKETS_SCANNED)
            length = CT_MAX_BUCKETS_SCANNED;
        const uint8_t *data = (const uint8_t *)(uintptr_t)owner + c->layout->array_data_offset;
        for (uint32_t i = 0; i < length && done < n && !c->overflow; i++)
            for (uint64_t node = load_ref(data + (size_t)i * q->entry_size);
                 node && done < n && !c->overflow;) {
                const uint8_t *nd = (const uint8_t *)(uintptr_t)node;
                if (load_ref(nd) != q->node_class) {
                    i = length;
                    break;
                }
                capture_entry(c, p, q, nd, depth);
                done++;
                node = load_ref(nd + q->entry_next);
            }
    } else {
        walk_tree(c, p, q, root, n, &done, depth);
    }
    if (!c->overflow && done < n)
        memcpy(c->out + n_at, &done, 4);
}

/* A collection's elements (after the object's address and class id). Every
 * index is checked against the array the collection holds. */
static void capture_seq(cap_ctx *c, const ct_plan *p, const uint8_t *o, unsigned depth)
{
    if (p->shape == CT_SEQ_ARRAY) {
        capture_szarray_items(c, p->elem, o, depth);
        return;
    }
    const ct_seq *q = p->seq;
    if (!q) {
        c->overflow = 1;
        return;
    }
    if (p->shape == CT_SEQ_TEXT) {
        capture_text(c, q, o);
        return;
    }
    if (q->walk == CT_WALK_BUCKETS || q->walk == CT_WALK_TREE) {
        if ((q->walk == CT_WALK_BUCKETS && p->shape != CT_SEQ_DICT) ||
            (p->shape == CT_SEQ_DICT && !p->key))
            c->overflow = 1;
        else
            capture_walked(c, p, q, o, depth);
        return;
    }
    if (p->shape == CT_SEQ_LIST && q->walk == CT_WALK_LINKED) {
        capture_linked(c, p, q, o, depth);
        return;
    }
    if (p->shape == CT_SEQ_LIST && q->walk == CT_WALK_BITS) {
        if (p->elem->kind != CT_V_BOOL || (q->entry_size != 1 && q->entry_size != 4))
            c->overflow = 1;
        else
            capture_bits(c, q, o);
        return;
    }
    int32_t count = load_i32(o + q->count);
    uint64_t arr = load_ref(o + q->items);
    uint32_t alen = 0;
    if (arr)
        memcpy(&alen, (const uint8_t *)(uintptr_t)arr + c->layout->array_length_offset, 4);
    const uint8_t *data = arr ? (const uint8_t *)(uintptr_t)arr + c->layout->array_data_offset
                              : NULL;
    int dict = p->shape == CT_SEQ_DICT, set = p->shape == CT_SEQ_SET;
    int32_t shown = count;
    if (dict || set)
        shown = count - load_i32(o + q->free_count);
    if (shown < 0 || count < 0 || (uint32_t)count > alen)
        shown = 0, count = 0;
    emit(c, &shown, 4);
    uint32_t n = items_kept(c, p->elem, (uint32_t)shown);
    if (dict && !ct_array_items_captured(p->key))
        n = 0;
    size_t n_at = c->len;
    emit_u32(c, n);
    if (!n)
        return;
    size_t stride = p->elem->size;
    uint32_t done = 0;
    switch (p->shape) {
    case CT_SEQ_LIST:
        capture_items(c, p->elem, data, n, depth);
        return;
    case CT_SEQ_STACK:
        for (uint32_t i = 0; i < n && !c->overflow; i++)
            capture(c, p->elem, data + (size_t)((uint32_t)count - 1 - i) * stride, depth + 1);
        return;
    case CT_SEQ_QUEUE: {
        uint32_t head = (uint32_t)load_i32(o + q->head);
        for (uint32_t i = 0; i < n && !c->overflow; i++)
            capture(c, p->elem, data + (size_t)((head + i) % alen) * stride, depth + 1);
        return;
    }
    case CT_SEQ_SET: case CT_SEQ_DICT:
        for (uint32_t i = 0; i < (uint32_t)count && done < n && !c->overflow; i++) {
            const uint8_t *e = data + (size_t)i * q->entry_size;
            if (load_i32(e + q->entry_next) < -1)
                continue; /* a free entry */
            if (dict)
                capture(c, p->key, e + q->entry_key, depth + 1);
            capture(c, p->elem, e + q->entry_value, depth + 1);
            done++;
        }
        /* Fewer live entries than the count said (a dictionary changed by
         * another thread): n says how many were copied. */
        if (!c->overflow && done < n)
            memcpy(c->out + n_at, &done, 4);
        return;
    default:
        c->overflow = 1;
        return;
    }
}

/* An object in a reference slot: its address and class id, then what the
 * class id's low bits announce. */
static void capture_object(cap_ctx *c, uint64_t obj, unsigned depth)
{
    emit_u64(c, obj);
    if (!obj) {
        emit_u64(c, 0);
        return;
    }
    ct_class_info ci = {0};
    if (c->class_of)
        c->class_of(c->ctx, obj, 1, &ci);
    uint64_t cls = ci.id & ~(uint64_t)CT_CLASS_TAG_MASK;
    if (!cls || cls != ci.id) {
        emit_u64(c, 0);
        return;
    }
    if (ci.string) {
        emit_u64(c, cls | CT_CLASS_STRING);
        capture_chars(c, obj);
        return;
    }
    uint32_t boxed_size = ct_vkind_size(ci.boxed);
    if (boxed_size) {
        /* The value follows the method table pointer. */
        emit_u64(c, cls | CT_CLASS_BOXED);
        emit_u8(c, (uint8_t)ci.boxed);
        emit(c, (const uint8_t *)(uintptr_t)obj + 8, boxed_size);
        return;
    }
    const ct_plan *content = ci.content;
    for (uint32_t i = 0; content && i < c->nseen; i++)
        if (c->seen[i].addr == obj) {
            emit_u64(c, cls | CT_CLASS_SEEN);
            emit_u8(c, c->seen[i].open ? 1 : 0);
            return;
        }
    if (!content || c->objects >= c->limits->object_depth || c->len >= c->limits->value_bytes ||
        depth + CT_OBJECT_NESTING_RESERVE >= CT_MAX_NESTING) {
        emit_u64(c, cls);
        return;
    }
    uint32_t slot = c->nseen < CT_MAX_SEEN_OBJECTS ? c->nseen++ : CT_MAX_SEEN_OBJECTS;
    if (slot < CT_MAX_SEEN_OBJECTS) {
        c->seen[slot].addr = obj;
        c->seen[slot].open = 1;
    }
    emit_u64(c, cls | CT_CLASS_CONTENT);
    c->objects++;
    if (content->kind == CT_V_SEQ)
        capture_seq(c, content, (const uint8_t *)(uintptr_t)obj, depth);
    else if (content->kind == CT_V_CLASS)
        for (uint32_t i = 0; i < content->count && !c->overflow; i++)
            capture(c, content->fields[i].plan,
                    content->fields[i].offset == CT_FIELD_FOUND
                        ? (const uint8_t *)&ci.found /* the class_of callback found it */
                        : (const uint8_t *)(uintptr_t)obj + content->fields[i].offset,
                    depth + 1);
    else
        c->overflow = 1;
    c->objects--;
    if (slot < CT_MAX_SEEN_OBJECTS)
        c->seen[slot].open = 0;
}

static void capture(cap_ctx *c, const ct_plan *p, const uint8_t *src, unsigned depth)
{
    if (depth > CT_MAX_NESTING) {
        c->overflow = 1;
        return;
    }
    switch (p->kind) {
    case CT_V_VOID:
    case CT_V_ELIDED:
    case CT_V_REDACTED:
        break;
    case CT_V_STRING:
        capture_string(c, load_ref(src));
        break;
    case CT_V_OBJECT:
        capture_object(c, load_ref(src), depth);
        break;
    case CT_V_ARRAY:
        capture_array(c, p, load_ref(src), depth);
        break;
    case CT_V_MDARRAY:
        if (p->count == 0 || p->count > CT_MAX_ARRAY_RANK)
            c->overflow = 1;
        else
            capture_mdarray(c, p, load_ref(src), depth);
        break;
    case CT_V_SPAN:
        capture_span(c, p, src, depth);
        break;
    case CT_V_SEGMENT:
        capture_segment(c, p, src, depth);
        break;
    case CT_V_STRUCT:
        for (uint32_t i = 0; i < p->count && !c->overflow; i++)
            capture(c, p->fields[i].plan, src + p->fields[i].offset, depth + 1);
        break;
    case CT_V_INLINE: {
        /* The elements from the first, as an array's are kept. */
        uint32_t n = items_kept(c, p->elem, p->count);
        emit_u32(c, n);
        for (uint32_t i = 0; i < n && !c->overflow; i++)
            capture(c, p->elem, src + (size_t)i * p->value_offset, depth + 1);
        break;
    }
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
    case CT_V_CLASS: case CT_V_SEQ:
        c->overflow = 1; /* content plans are reached through an object only */
        break;
    default: /* primitives, ENUM, DECIMAL, PTR, OPAQUE, the well-known structs: the bytes */
        emit(c, src, p->size);
        break;
    }
}

size_t ct_capture(const ct_plan *p, const void *src, const ct_layout *layout,
                  const ct_limits *limits, ct_class_of class_of, void *ctx,
                  uint8_t *out, size_t cap)
{
    cap_ctx c;
    c.layout = layout;
    c.limits = limits;
    c.class_of = class_of;
    c.ctx = ctx;
    c.out = out;
    c.cap = cap;
    c.len = 0;
    c.overflow = 0;
    c.objects = 0;
    c.nseen = 0;
    if (!src)
        return 0;
    capture(&c, p, src, 0);
    return c.overflow ? 0 : c.len;
}
