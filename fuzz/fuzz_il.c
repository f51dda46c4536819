/* libFuzzer harness for libclril: any bytes as a method body. A body that
 * decodes encodes back to the same bytes; probe code inserted at its entry
 * and before each ret encodes, and the result decodes again with as many
 * instructions and clauses. ASan and UBSan watch every step. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clril/clril.h"

#define ARENA_BYTES (8u << 20)
#define OUT_BYTES (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *mem, *out;
    if (!mem && (!(mem = malloc(ARENA_BYTES)) || !(out = malloc(OUT_BYTES))))
        return 0;
    clril_arena a;
    clril_arena_init(&a, mem, ARENA_BYTES);
    clril_body b;
    clril_error e;
    if (clril_decode(data, size, &a, &b, &e) != CLRIL_OK) {
        if (e.offset > size)
            abort();
        return 0;
    }
    if (b.size > size)
        abort();
    size_t n, body_size = b.size;
    if (clril_encode(&b, out, OUT_BYTES, &n, &e) == CLRIL_OK &&
        (n != body_size || memcmp(out, data, n) != 0))
        abort();
    clril_arena_reset(&a);
    if (clril_decode(data, size, &a, &b, &e) != CLRIL_OK)
        abort();
    clril_insn entry[2] = { { .op = CLRIL_LDC_I4, .value = 1 }, { .op = CLRIL_POP } };
    clril_insn nops[40];
    for (int i = 0; i < 40; i++)
        nops[i] = (clril_insn){ .op = CLRIL_NOP };
    uint32_t added = 0, neh = b.neh;
    for (uint32_t i = b.ninsns; i-- > 0;)
        if (b.insns[i].op == CLRIL_RET) {
            if (clril_insert(&b, i, nops, 40, CLRIL_TAKE_LABEL, &a, &e) != CLRIL_OK)
                return 0; /* the arena is full */
            added += 40;
        }
    if (clril_insert(&b, 0, entry, 2, CLRIL_KEEP_LABEL, &a, &e) != CLRIL_OK)
        return 0;
    added += 2;
    uint32_t count = b.ninsns;
    if (clril_encode(&b, out, OUT_BYTES, &n, &e) != CLRIL_OK)
        return 0; /* larger than the output, or past the code size limit */
    clril_body r;
    clril_arena_reset(&a);
    if (clril_decode(out, n, &a, &r, &e) != CLRIL_OK || r.ninsns != count || r.neh != neh ||
        count < added)
        abort();
    return 0;
}
