/* libFuzzer harness for libclrmeta. Two kinds of input:
 *
 *  - a file that starts with "MZ" is read as it is (seed with real
 *    assemblies: the small facades of the shared framework);
 *  - anything else patches the synthetic Demo assembly of
 *    tests/unit/test_meta.c: byte 0 picks the variant (bit 0 #-, bit 1 wide
 *    heaps and extra data, bit 2 PE32+), then each 3 bytes are a patch
 *    (u16 offset, value). Mutations then land inside valid tables and heaps,
 *    where a raw file would mostly break a header first.
 *
 * tests/meta/meta_walk.h reads everything and checks invariants (nothing
 * handed out lies outside the file, errors carry an offset inside it, the
 * index stays O(file size)); a broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>

#include "meta_build.h"
#include "meta_walk.h"

static mb B;

static void build_demo_variant(mb *b, unsigned variant)
{
    mb_init(b);
    b->uncompressed = variant & 1;
    b->heap_sizes = variant & 2 ? 0x47 : 0;
    b->pe32plus = (variant >> 2) & 1;
    mb_row(b, 0x00, 0, mb_str(b, "Demo.dll"), mb_guid(b, 0xAB), 0, 0);
    mb_row(b, 0x23, 10, 0, 0, 0, 0, 0, mb_str(b, "System.Runtime"), 0, 0);
    mb_row(b, 0x1A, mb_str(b, "native.so"));
    mb_row(b, 0x01, 1u << 2 | 2, mb_str(b, "Object"), mb_str(b, "System"));
    mb_row(b, 0x01, 1u << 2 | 2, mb_str(b, "Outer"), 0);
    mb_row(b, 0x01, 2u << 2 | 3, mb_str(b, "Inner"), 0);
    mb_row(b, 0x01, 1u << 2 | 1, mb_str(b, "Native"), 0);
    mb_row(b, 0x02, 0, mb_str(b, "<Module>"), 0, 0, 1, 1);
    uint32_t demo = mb_str(b, "Demo");
    mb_row(b, 0x02, 0x100001, mb_str(b, "Box`1"), demo, 1u << 2 | 1, 1, 1);
    mb_row(b, 0x02, 0x100002, mb_str(b, "Item"), demo, 1u << 2 | 1, 1, 4);
    static const uint8_t get[] = { 0x20, 1, 0x13, 0, 0x08 };
    static const uint8_t put[] = { 0x10, 1, 2, 0x01, 0x1E, 0, 0x10, 0x08 };
    static const uint8_t take[] = { 0x20, 2, 0x01, 0x12, 3 << 2 | 1, 0x12, 4 << 2 | 1 };
    static const uint8_t self[] = { 0x20, 0, 0x12, 1 << 2 | 2 };
    mb_row(b, 0x06, 0, 0, 0x86, mb_str(b, "Get"), mb_blob(b, get, sizeof get), 1);
    mb_row(b, 0x06, 0, 0, 0x96, mb_str(b, "Put"), mb_blob(b, put, sizeof put), 2);
    mb_row(b, 0x06, 0, 0, 0x86, mb_str(b, "Take"), mb_blob(b, take, sizeof take), 4);
    mb_row(b, 0x06, 0, 0, 0x86, mb_str(b, "Self"), mb_blob(b, self, sizeof self), 6);
    if (b->uncompressed) {
        for (uint32_t i = 4; i >= 1; i--)
            mb_row(b, 0x05, i);
        for (uint32_t i = 5; i >= 1; i--)
            mb_row(b, 0x07, i);
    }
    mb_row(b, 0x08, 0, 1, mb_str(b, "index"));
    mb_row(b, 0x08, 0, 1, mb_str(b, "item"));
    mb_row(b, 0x08, 2, 2, mb_str(b, "count"));
    mb_row(b, 0x08, 0, 2, mb_str(b, "n"));
    mb_row(b, 0x08, 0, 1, mb_str(b, "inner"));
    mb_row(b, 0x29, 3, 2);
    uint32_t t = mb_str(b, "T");
    mb_row(b, 0x2A, 0, 0, 2u << 1, t);
    mb_row(b, 0x2A, 0, 0, 3u << 1, t);
    mb_row(b, 0x2A, 0, 0, 2u << 1 | 1, mb_str(b, "U"));
    static const uint8_t item_t[] = { 0x15, 0x11, 3 << 2 | 0, 1, 0x13, 0 };
    static const uint8_t box_i4[] = { 0x15, 0x12, 2 << 2 | 0, 1, 0x08 };
    mb_row(b, 0x1B, mb_blob(b, item_t, sizeof item_t));
    mb_row(b, 0x1B, mb_blob(b, box_i4, sizeof box_i4));
    mb_row(b, 0x0A, 2u << 3 | 4, mb_str(b, "Get"), mb_blob(b, get, sizeof get));
    mb_finish(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    meta_walk_result r;
    if (size >= 2 && data[0] == 'M' && data[1] == 'Z') {
        /* an exact-size copy, so that ASan sees a read one past the end */
        uint8_t *copy = malloc(size);
        if (!copy)
            return 0;
        memcpy(copy, data, size);
        r = meta_walk(copy, size, 256);
        free(copy);
    } else {
        build_demo_variant(&B, size ? data[0] : 0);
        for (size_t i = 1; i + 3 <= size; i += 3) {
            size_t off = ((size_t)data[i] | (size_t)data[i + 1] << 8) % B.len;
            B.out[off] = data[i + 2];
        }
        r = meta_walk(B.out, B.len, 256);
    }
    if (r.violation)
        abort();
    return 0;
}
