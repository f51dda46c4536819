/* bench_sigs DUMP: parse + format (C# style) every signature blob in DUMP
 * (u32 little-endian length, then the bytes, repeated — written by
 * `oracle bench --dump`), the same work the SRM side times. Prints the best
 * of several repetitions in ns/signature and the number of heap allocations
 * made inside the timed loop (malloc & co. are wrapped at link time). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clrsig/clrsig.h"

static unsigned long allocs;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n) { allocs++; return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { allocs++; return __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { allocs++; return __real_realloc(p, n); }

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_sigs DUMP [REPEATS]\n");
        return 2;
    }
    int repeats = argc > 2 ? atoi(argv[2]) : 7;
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) {
        perror(argv[1]);
        return 2;
    }
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)size);
    if (!data || fread(data, 1, (size_t)size, fp) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    fclose(fp);

    /* Index the blobs first, as the SRM side collects its blob readers first. */
    size_t n = 0, cap = 1 << 16;
    const uint8_t **blobs = malloc(cap * sizeof *blobs);
    uint32_t *lens = malloc(cap * sizeof *lens);
    for (long off = 0; off + 4 <= size;) {
        uint32_t len = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8 |
                       (uint32_t)data[off + 2] << 16 | (uint32_t)data[off + 3] << 24;
        off += 4;
        if (len > (uint64_t)(size - off)) {
            fprintf(stderr, "%s: bad record at %ld\n", argv[1], off - 4);
            return 2;
        }
        if (n == cap) {
            cap *= 2;
            blobs = realloc(blobs, cap * sizeof *blobs);
            lens = realloc(lens, cap * sizeof *lens);
        }
        blobs[n] = data + off;
        lens[n++] = len;
        off += len;
    }

    static uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
    static char text[8192];
    clrsig_arena arena;
    clrsig_arena_init(&arena, mem, sizeof mem);
    clrsig_format_opts fo = { .style = CLRSIG_STYLE_CSHARP };
    double best = 1e30;
    size_t failures = 0, chars = 0;
    unsigned long loop_allocs = 0;
    for (int rep = 0; rep < repeats; rep++) {
        failures = chars = 0;
        unsigned long a0 = allocs;
        double t0 = now_ns();
        for (size_t i = 0; i < n; i++) {
            clrsig_sig s;
            size_t need;
            clrsig_arena_reset(&arena);
            if (clrsig_parse(blobs[i], lens[i], CLRSIG_KIND_METHOD, NULL, &arena, &s, NULL) != CLRSIG_OK ||
                clrsig_format_sig(&s, &fo, NULL, text, sizeof text, &need, NULL) != CLRSIG_OK) {
                failures++;
                continue;
            }
            chars += need;
        }
        double t = now_ns() - t0;
        loop_allocs = allocs - a0;
        if (t < best)
            best = t;
    }
    printf("libclrsig: %zu signatures, %.1f ns/signature, %lu allocations in the loop, "
           "%zu failures, %zu chars\n", n, best / (double)n, loop_allocs, failures, chars);
    return failures ? 1 : 0;
}
