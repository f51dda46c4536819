/*
 * Argument and return values as the trace holds them: capture plans and the
 * raw encoding.
 *
 * The profiler builds one plan per parameter when a function is mapped
 * (from its signature and metadata). In a hook, ct_capture
 * (agent/record/capture.h) copies the bytes a value needs — the primitive
 * itself, string characters, array heads, struct fields — into an event
 * buffer, because the object may move or die as soon as the hook returns.
 * Later, off the hot path, ct_format_value (views/value_text.h) turns those
 * raw bytes back into text. The same formatter serves the live log and the
 * offline reader: live and replayed text are identical.
 *
 * Raw encoding of one value (all integers little-endian, self-delimiting so a
 * reader can always skip it):
 *   primitives, ENUM, DECIMAL, PTR    the value's bytes (plan->size)
 *   STRING                            u64 address; if non-zero: i32 length,
 *                                     u32 n copied, n UTF-16 code units
 *   OBJECT                            u64 address, u64 class id; real class
 *                                     ids are aligned to 8, and the low 3
 *                                     bits say what follows (CT_CLASS_*):
 *                                     0: nothing (shown as Type@0x...);
 *                                     STRING (1): the object is a string,
 *                                     its characters follow as in STRING
 *                                     after the address: i32 length, u32 n,
 *                                     n UTF-16 code units; BOXED (2): a boxed
 *                                     value (int, double, DateTime, ...): u8
 *                                     its kind, then its bytes (ct_vkind_size
 *                                     of the kind); SEEN (3): the object was
 *                                     shown before in this value: u8 1 when
 *                                     it is one of its own containers (a
 *                                     cycle), else 0; CONTENT (4): the
 *                                     object's content follows, in the
 *                                     encoding of its class's content plan
 *                                     (CLASS or SEQ; the CLASS record carries
 *                                     it)
 *   ARRAY (SZARRAY)                   u64 address; if non-zero: u64 class id,
 *                                     u32 length, u32 n copied, n elements
 *                                     each in its element plan's encoding
 *                                     (n is 0 when the elements are not
 *                                     copied: ct_array_items_captured)
 *   MDARRAY (int[,])                  u64 address; if non-zero: u32 rank (the
 *                                     plan's count), rank x i32 lengths,
 *                                     rank x i32 lower bounds, u32 n copied,
 *                                     n elements in row-major order
 *   SEGMENT                           u64 address of the object the segment
 *   (ArraySegment<T>, Memory<T>,      views (an array or a string); if
 *   ReadOnlyMemory<T>)                non-zero: i32 count, u8 what the
 *                                     object is (0 other, 1 array, 2
 *                                     string); for an array or a string:
 *                                     u32 n copied, n elements (a string's
 *                                     are UTF-16 code units) from the
 *                                     segment's start
 *   CLASS (content of an object)      each shown field in order, in its own
 *                                     encoding (fields at offsets from the
 *                                     object's address)
 *   SEQ (content of a collection)     i32 count, u32 n copied, n elements
 *                                     (a dictionary's: key, then value; a
 *                                     StringBuilder's (TEXT): its length and
 *                                     the first n UTF-16 code units of its
 *                                     text, as a string's)
 *   STRUCT                            each field in order, in its own encoding
 *   NULLABLE                          u8 has-value, then the value if set
 *   BYREF                             u64 address; if non-zero and the
 *                                     target is capturable: the target value
 *   OPAQUE                            plan->size bytes, shown as hex
 *   ELIDED                            nothing (shown as {...})
 *   DATETIME, TIMESPAN, GUID, HALF,   the value's bytes (plan->size: 8, 8,
 *   I16, U16, DTOFFSET, RUNE,         16, 2, 16, 16, 16, 4, 4, 8, 4, 8)
 *   DATEONLY, TIMEONLY, INDEX, RANGE
 *   INLINE ([InlineArray(N)] struct)  u32 n copied, n elements each in its
 *                                     element plan's encoding (as an
 *                                     array's: at most the array-items
 *                                     limit, none when they are not copied)
 *   VECTOR                            the value's bytes (plan->size)
 *   SPAN                              u64 address; if non-zero: i32 length,
 *                                     u32 n copied, n elements each in its
 *                                     element plan's encoding (a char span's
 *                                     are UTF-16 code units, as a string's)
 * Every read of the raw bytes is bounds-checked: a short or damaged record
 * formats as "<damaged>" rather than reading past the end.
 */
#ifndef CLRTRACE_VALUE_H
#define CLRTRACE_VALUE_H

#include <stddef.h>
#include <stdint.h>

/* How deep struct fields (and byref/array/nullable wrappers, and objects)
 * are followed. */
#define CT_MAX_VALUE_DEPTH 8
/* How deep one value's encoding may nest (fields, elements, objects and
 * their content together); the capture stops following objects
 * CT_OBJECT_NESTING_RESERVE levels before it, so a struct in a collection in
 * the deepest object still fits. */
#define CT_MAX_NESTING 32
#define CT_OBJECT_NESTING_RESERVE 12
/* Default characters of a string kept (the -s option). */
#define CT_DEFAULT_STRING_CHARS 64
/* Default array elements kept (the --array-items option). */
#define CT_DEFAULT_ARRAY_ITEMS 8
/* Default levels of objects shown field by field (the --object-depth
 * option); deeper objects read Type@0x... */
#define CT_DEFAULT_OBJECT_DEPTH 2
#define CT_MAX_OBJECT_DEPTH 6
/* Default and largest fields shown per object (the --object-fields
 * option); the others read ", ...". */
#define CT_DEFAULT_OBJECT_FIELDS 20
#define CT_MAX_OBJECT_FIELDS 256
/* Default bytes one value's capture may take before objects it still
 * holds are shown as Type@0x... (the --value-bytes option), and the
 * bounds of the option. */
#define CT_DEFAULT_VALUE_BYTES 1024
#define CT_MIN_VALUE_BYTES 64
#define CT_MAX_VALUE_BYTES (1u << 20)
/* Objects remembered per value to show a repeated reference once (the
 * rest are shown again). */
#define CT_MAX_SEEN_OBJECTS 64
/* Chunks of a StringBuilder followed from its last one to find the start
 * of its text; one with more shows its length only. */
#define CT_MAX_TEXT_CHUNKS 256
/* Dimensions of a multi-dimensional array shown with its bounds (the
 * runtime allows 32). */
#define CT_MAX_ARRAY_RANK 32

/* The low bits of an OBJECT value's class id: what follows it. */
enum {
    CT_CLASS_PLAIN = 0,
    CT_CLASS_STRING = 1,
    CT_CLASS_BOXED = 2,
    CT_CLASS_SEEN = 3,
    CT_CLASS_CONTENT = 4,
    CT_CLASS_TAG_MASK = 7
};

/* (2.8) A CLASS record whose id has these low bits names a method: the id
 * is its handle (a MethodDesc, 8-byte aligned) plus CT_CLASS_KEY_METHOD,
 * the name "Ns.Type.Method" (form METHOD, a MethodInfo's). */
#define CT_CLASS_KEY_METHOD 5

/* The type name of the OBJECT plan of a value read along a path (-A, -R:
 * chosen values): a boxed value in it reads without its type ("1250.50",
 * not "decimal 1250.50"), as the path's declared type gives it. */
#define CT_CHOSEN_TYPE_NAME "chosen"

/* How a SEQ plan's collection keeps its elements. */
typedef enum ct_seq_shape {
    CT_SEQ_LIST = 1,   /* List<T>: _items[0.._size) */
    CT_SEQ_QUEUE = 2,  /* Queue<T>: _array from _head, _size of them, wrapping */
    CT_SEQ_STACK = 3,  /* Stack<T>: _array[0.._size), shown top first */
    CT_SEQ_SET = 4,    /* HashSet<T>: _entries[0.._count) whose Next >= -1 */
    CT_SEQ_DICT = 5,   /* Dictionary<K,V>: _entries as HashSet's, key and value */
    CT_SEQ_ARRAY = 6,  /* T[] in an object slot: its own elements */
    CT_SEQ_TEXT = 7,   /* StringBuilder (2.6): its text, from chunks linked
                          from the last by m_ChunkPrevious; elem is char */
    CT_SEQ_SHAPE_MAX = CT_SEQ_TEXT
} ct_seq_shape;

/* How a CLASS (or STRUCT) plan's value is shown (trace format 2.6: the
 * plan's fourth byte, 0 before). The fields are captured and encoded as any
 * CLASS's or STRUCT's; the form says how a reader writes them, and a plan
 * whose fields do not fit its form (or of a form a reader does not know)
 * reads field by field. The fields are the runtime's, found by name. */
typedef enum ct_form {
    CT_FORM_FIELDS = 0,   /* field by field */
    CT_FORM_TEXT = 1,     /* 1 to 4 string fields: the first that is not null,
                             as a string: Uri (_originalUnicodeString, _string),
                             CultureInfo (_name) */
    CT_FORM_VERSION = 2,  /* 4 int fields: "1.2.3.4", from the first negative
                             one on left out (Version) */
    CT_FORM_IPADDRESS = 3,/* a uint and a ushort[] (IPAddress's
                             _addressOrScopeId, _numbers): IPv4 text when the
                             array is null, else IPv6 text (%scope when not 0) */
    CT_FORM_TYPE = 4,     /* one nint, a type handle (RuntimeType.m_handle):
                             typeof(Name), the handle named as a class id */
    CT_FORM_TASK = 5,     /* a Task's int m_stateFlags, then a Task<T>'s
                             m_result (or nothing): Status, and Result when it
                             ran to completion; (2.9) last, an OBJECT field
                             named Exception (CT_TASK_EXCEPTION_FIELD): the
                             exception a faulted or cancelled task holds */
    CT_FORM_CANCEL = 6,   /* a CancellationTokenSource's int _state:
                             IsCancellationRequested (not 0) */
    CT_FORM_TOKEN = 7,    /* a CancellationToken (STRUCT): its source object:
                             None when null, else the source's state */
    CT_FORM_LAZY = 8,     /* a Lazy<T>'s object _state, then _value: the value
                             once created (_state null) */
    CT_FORM_VALUETASK = 9,/* a ValueTask<T> (STRUCT, 2.7): its object _obj, then
                             _result: the result when _obj is null, else the
                             object (a Task, an IValueTaskSource) */
    CT_FORM_ENCODING = 10,/* an Encoding's int _codePage (2.7): its name */
    CT_FORM_EXCEPTION = 11,/* an exception (2.8): string Message, object
                             InnerException, (an AggregateException)
                             object[] InnerExceptions: Message as .NET's
                             Message reads, the inner ones when not null */
    CT_FORM_METHOD = 12,  /* a RuntimeMethodInfo's nint m_handle (2.8): the
                             method's name, the handle named as a class id
                             tagged CT_CLASS_METHOD */
    CT_FORM_MAX = CT_FORM_METHOD
} ct_form;

/* Where a collection object keeps its elements (the capture's side of a
 * SEQ plan; the reader has none): offsets from the object's address, and
 * for SET/DICT within one entry of the entries array. */
typedef struct ct_seq {
    uint32_t items;       /* the array field (T[] or Entry[]) */
    uint32_t count;       /* the i32 count (_size, _count) */
    uint32_t head;        /* QUEUE: _head */
    uint32_t free_count;  /* SET/DICT: _freeCount */
    uint32_t entry_size;  /* SET/DICT: bytes per entry */
    uint32_t entry_next;  /* SET/DICT: the entry's i32 next */
    uint32_t entry_key;   /* DICT: the entry's key */
    uint32_t entry_value; /* SET/DICT: the entry's value */
    uint32_t previous;    /* TEXT: the chunk before (m_ChunkPrevious); items is
                             m_ChunkChars, count m_ChunkLength, head
                             m_ChunkOffset */
    uint32_t walk;        /* how its elements are reached (ct_seq_walk) */
    uint64_t node_class;  /* LINKED, BUCKETS, TREE: the nodes' class id */
    uint32_t outer;       /* TREE: the field holding the tree's owner
                             (SortedDictionary's _set), CT_SEQ_NO_OUTER: none */
    uint32_t left, right; /* TREE: a node's children */
    uint32_t flags;       /* TREE: CT_TREE_* */
    const struct ct_seq *inner; /* TREE of hash buckets (ImmutableDictionary,
                             ImmutableHashSet): each node's bucket holds its
                             first element (entry_key, entry_value) and the
                             tree of the others, walked by inner (its items:
                             that tree's root, from the outer node) */
} ct_seq;

#define CT_SEQ_NO_OUTER UINT32_MAX
enum {
    CT_TREE_COUNT_IN_ROOT = 1, /* count is the root node's field (ImmutableList) */
    CT_TREE_EMPTY_SENTINEL = 2 /* a node whose left is null is the empty node,
                                  not an element (the immutable trees) */
};
/* Tree levels followed by a TREE walk (a red-black tree of 2^31 nodes is at
 * most 62 deep, an AVL tree 45); a deeper one shows the elements reached. */
#define CT_MAX_TREE_DEPTH 64
/* Buckets a BUCKETS walk looks through for the elements it keeps; past
 * them it shows the elements reached. */
#define CT_MAX_BUCKETS_SCANNED 65536
/* Lock counts a BUCKETS walk adds up for the count (ConcurrentDictionary's
 * _countPerLock); a dictionary with more shows no count and no element. */
#define CT_MAX_BUCKET_LOCKS 4096

/* How a LIST plan's elements are reached (capture only: a reader sees a
 * list, its count then its first elements in order). */
typedef enum ct_seq_walk {
    CT_WALK_ARRAY = 0,    /* List<T>: items[0..count) */
    CT_WALK_LINKED = 1,   /* LinkedList<T> (2.7): items is its head node, count
                             its count; each node (of class node_class) has
                             its next node at entry_next, its value at
                             entry_value; the last one's next is the head */
    CT_WALK_BITS = 2,     /* BitArray (2.7): items its array (of entry_size
                             bytes an element), count its length in bits;
                             elem is BOOL, each bit captured as 0 or 1 */
    CT_WALK_BUCKETS = 3,  /* ConcurrentDictionary (2.8, DICT): items its
                             Tables object; in it, head the buckets array (of
                             entry_size bytes an element, each a node
                             reference) and count the int[] of counts per
                             lock, added up; each node (of node_class) has
                             entry_key, entry_value and entry_next */
    CT_WALK_TREE = 4,     /* a binary search tree in order (2.8): SortedSet,
                             SortedDictionary (DICT, through outer),
                             ImmutableList (LIST), ImmutableSortedSet: items
                             the root node, count the count (flags); each
                             node (of node_class) has left, right, and its
                             element at entry_value (DICT: entry_key too);
                             ImmutableDictionary, ImmutableHashSet: a tree
                             of hash buckets (inner) */
} ct_seq_walk;

typedef enum ct_vkind {
    CT_V_VOID,
    CT_V_BOOL, CT_V_CHAR,
    CT_V_I1, CT_V_U1, CT_V_I2, CT_V_U2, CT_V_I4, CT_V_U4, CT_V_I8, CT_V_U8,
    CT_V_R4, CT_V_R8, CT_V_I, CT_V_U,
    CT_V_DECIMAL,
    CT_V_STRING, CT_V_OBJECT, CT_V_ARRAY,
    CT_V_STRUCT, CT_V_ENUM, CT_V_NULLABLE,
    CT_V_PTR, CT_V_BYREF,
    CT_V_OPAQUE,
    CT_V_ELIDED,          /* not followed (past a depth limit): nothing is
                             captured; shown as {...} */
    /* Well-known CoreLib structs, shown as a person reads them (trace format
     * 2.2); each is its bytes, as passed. */
    CT_V_DATETIME,        /* System.DateTime: u64 ticks | kind << 62 */
    CT_V_TIMESPAN,        /* System.TimeSpan: i64 ticks */
    CT_V_GUID,            /* System.Guid: u32, u16, u16, 8 bytes */
    CT_V_HALF,            /* System.Half: IEEE 754 binary16 */
    CT_V_I16, CT_V_U16,   /* System.Int128, System.UInt128: low u64, high u64 */
    CT_V_SPAN,            /* Span<T>, ReadOnlySpan<T> of a T whose elements are
                             copied (ct_array_items_captured): elem, and the
                             _length field at value_offset (_reference at 0) */
    CT_V_VECTOR,          /* Vector64/128/256/512<T>, Vector<T>, Vector2/3/4:
                             size / elem->size elements of a primitive elem */
    /* Trace format 2.3: objects and collections by content. */
    CT_V_CLASS,           /* an object's content, in CLASS records: fields (at
                             offsets from the object's address, base class
                             first); value_offset: fields not shown */
    CT_V_SEQ,             /* a collection's content, in CLASS records: shape,
                             elem, key (DICT), seq (capture only) */
    CT_V_MDARRAY,         /* a multi-dimensional array: count = rank, elem */
    CT_V_SEGMENT,         /* ArraySegment<T>, Memory<T>, ReadOnlyMemory<T>: the
                             object reference at 0, the i32 start at
                             value_offset, the i32 count at count_offset; elem */
    CT_V_DTOFFSET,        /* System.DateTimeOffset, 16 bytes as the runtime lays
                             it out: the UTC DateTime at value_offset, the
                             offset in minutes (underlying I2 or I4) at
                             count_offset */
    CT_V_RUNE,            /* System.Text.Rune: u32 scalar value */
    /* Trace format 2.6: more well-known CoreLib structs. */
    CT_V_DATEONLY,        /* System.DateOnly: u32 days since 0001-01-01 */
    CT_V_TIMEONLY,        /* System.TimeOnly: u64 ticks since midnight */
    CT_V_INDEX,           /* System.Index: i32, ~n for ^n (from the end) */
    CT_V_RANGE,           /* System.Range, 8 bytes as the runtime lays it out:
                             the Start Index at value_offset, the End at
                             count_offset */
    CT_V_INLINE,          /* an [InlineArray(N)] struct: count = N elements of
                             elem, value_offset bytes apart from offset 0 */
    /* Trace format 2.8. */
    CT_V_REDACTED,        /* a value whose name says it is a secret (a
                             parameter, field or property: ct_secret_name):
                             nothing is captured; shown as <redacted>; size
                             is the value's */
    CT_V_KIND_MAX = CT_V_REDACTED
} ct_vkind;

typedef struct ct_plan ct_plan;

typedef struct ct_field {
    const char *name;
    uint32_t offset;      /* within the struct's bytes; CT_FIELD_FOUND: not a
                             field at an offset (a Task form's Exception: the
                             capture finds the value) */
    const ct_plan *plan;
} ct_field;

/* The Task form's last field (2.9), its exception, and its offset. */
#define CT_TASK_EXCEPTION_FIELD "Exception"
#define CT_FIELD_FOUND UINT32_MAX

typedef struct ct_enum_item {
    const char *name;
    uint64_t value;       /* zero-extended from the underlying size */
} ct_enum_item;

struct ct_plan {
    ct_vkind kind;
    uint32_t size;        /* bytes the value occupies where it is passed/stored */
    const char *type_name;/* how the type is shown: "int", "Point", "List<int>" */
    int is_flags;         /* ENUM: [Flags] */
    ct_vkind underlying;  /* ENUM: CT_V_I1..CT_V_U8; DTOFFSET: CT_V_I2 or CT_V_I4 */
    uint32_t count;       /* STRUCT: fields; ENUM: items; MDARRAY: rank;
                             INLINE: elements */
    const ct_field *fields;
    const ct_enum_item *items;
    const ct_plan *elem;  /* ARRAY, SPAN, VECTOR, MDARRAY, SEGMENT, SEQ, INLINE element,
                             BYREF target, NULLABLE value */
    uint32_t value_offset;/* NULLABLE: offset of the value after the bool;
                             SPAN: offset of _length; SEGMENT: of the start;
                             CLASS: fields not shown; INLINE: bytes from one
                             element to the next */
    uint32_t count_offset;/* SEGMENT: offset of the count; DTOFFSET: of the
                             offset in minutes; RANGE: of the End (value_offset:
                             of the Start) */
    uint8_t shape;        /* SEQ: ct_seq_shape; CLASS, STRUCT: ct_form */
    const ct_plan *key;   /* SEQ (DICT): the key's plan */
    const ct_seq *seq;    /* SEQ: where the elements are (capture only) */
};

/* A Task form's fields (CT_FORM_TASK): the index of its Exception (2.9:
 * the last, an OBJECT named CT_TASK_EXCEPTION_FIELD) and of its Result (the
 * second, when it is not that one); UINT32_MAX: none. */
uint32_t ct_task_exception_at(const ct_plan *content);
uint32_t ct_task_result_at(const ct_plan *content);

/* Where the runtime keeps string and array contents (from
 * ICorProfilerInfo3::GetStringLayout2 and the SZARRAY layout). */
typedef struct ct_layout {
    uint32_t string_length_offset;
    uint32_t string_chars_offset;
    uint32_t array_length_offset;
    uint32_t array_data_offset;
    uint64_t string_class;  /* System.String's class id once known (0 until then):
                               a string held in an OBJECT slot (object, T in shared
                               generic code) is then captured with its characters */
} ct_layout;

/* Capture limits (the -s, --array-items, --object-depth and --value-bytes
 * options). */
typedef struct ct_limits {
    uint32_t string_chars;
    uint32_t array_items;
    uint32_t object_depth;  /* levels of objects captured by content (0: none) */
    uint32_t value_bytes;   /* past this many bytes, objects are not followed */
} ct_limits;

/* The bytes of a fixed-size kind (BOOL..U, DECIMAL, the well-known structs);
 * 0 for kinds of any size. */
uint32_t ct_vkind_size(ct_vkind k);
/* The C# name of a fixed-size kind ("int", "DateTime"); NULL for others
 * (and for RANGE: its plan says where its parts are, so it has a size but
 * is never a boxed value). */
const char *ct_vkind_name(ct_vkind k);

/* Whether an array's elements of this plan are copied (any plan but
 * opaque bytes, elided, pointers and byrefs; NULL: no); other arrays record
 * their length only. The capture, the formatter and the plan builder all
 * follow this one rule. */
int ct_array_items_captured(const ct_plan *elem);

/* The bytes before an object's method table pointer (its header): an
 * object's size as the runtime gives it (GetClassLayout's class size, the
 * base size) counts them, its fields' offsets (from the object's address)
 * do not. */
#define CT_OBJECT_HEADER_BYTES 8

/* The bytes field i of a layout may take when its type is unknown: up to
 * the next field's offset, or the value's end (end: a struct's size, or an
 * object's size less CT_OBJECT_HEADER_BYTES); 0 when it has none.
 * offsets[0..n) in any order. Never past the field's neighbour or the
 * value: a field read as bytes is read only where it is. */
uint32_t ct_field_room(const uint32_t *offsets, uint32_t n, uint32_t i, uint32_t end);

/* A System.Decimal's 16 bytes as .NET lays them out (flags: scale in bits
 * 16-23, sign in bit 31; then hi32, lo64) unpacked, unchecked: the 96-bit
 * magnitude m (low word first), the scale (the caller checks it is at most
 * 28) and the sign; returns the flags word (its other bits are reserved). */
static inline uint32_t ct_decimal_unpack(const uint8_t b[16], uint32_t m[3], uint32_t *scale,
                                         int *neg)
{
    uint32_t flags = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24;
    uint32_t w[3];
    for (int i = 0; i < 3; i++)
        w[i] = (uint32_t)b[4 + 4 * i] | (uint32_t)b[5 + 4 * i] << 8 |
               (uint32_t)b[6 + 4 * i] << 16 | (uint32_t)b[7 + 4 * i] << 24;
    m[0] = w[1]; /* lo64's low half */
    m[1] = w[2];
    m[2] = w[0]; /* hi32 */
    *scale = (flags >> 16) & 0xFF;
    *neg = (int)(flags >> 31);
    return flags;
}

#endif
