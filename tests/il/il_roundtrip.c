/* The IL library on real method bodies: every method body of every assembly
 * in the directories given (the shared framework, the SDK's compiler)
 * decodes, encodes back to the same bytes, and takes probe code at its
 * entry and before each ret: the result decodes again (every branch lands
 * on an instruction start, every clause boundary too), each branch reaches
 * the instruction it reached before (or the code put before it), and the
 * clauses nest as before.
 *
 * Usage: il_roundtrip DIR...   Prints the counts; exit 1 on any failure. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clril/clril.h"
#include "clrmeta/clrmeta.h"

#define ARENA_BYTES (64u << 20)
#define OUT_BYTES (32u << 20)
/* Probe code: at the entry 3 instructions; before each ret 20 nops (enough
 * to push some short branches over 127 bytes). */
#define RET_PROBE 20

static uint8_t *g_arena_mem, *g_out, *g_out2;
static unsigned long g_bodies, g_same, g_bytes, g_probed, g_promoted, g_failed, g_clauses, g_files;

static void failf(const char *file, uint32_t rid, const char *what, clril_status st, uint32_t off)
{
    if (g_failed++ < 20)
        fprintf(stderr, "%s: MethodDef %u: %s: %s at %u\n", file, rid, what, clril_strerror(st), off);
}

/* Whether two ranges [a0,a1) and [b0,b1) are disjoint or one holds the other. */
static int nest(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1)
{
    return a1 <= b0 || b1 <= a0 || (a0 <= b0 && b1 <= a1) || (b0 <= a0 && a1 <= b1);
}

static int clauses_nest(const clril_body *b)
{
    for (uint32_t i = 0; i < b->neh; i++)
        for (uint32_t j = i + 1; j < b->neh; j++) {
            const clril_clause *x = &b->eh[i], *y = &b->eh[j];
            if (!nest(x->try_start, x->try_end, y->try_start, y->try_end) ||
                !nest(x->handler_start, x->handler_end, y->handler_start, y->handler_end))
                return 0;
        }
    return 1;
}

static void one_body(const char *file, uint32_t rid, const uint8_t *p, size_t len)
{
    clril_arena a;
    clril_arena_init(&a, g_arena_mem, ARENA_BYTES);
    clril_body b;
    clril_error e;
    clril_status st = clril_decode(p, len, &a, &b, &e);
    if (st) {
        failf(file, rid, "decode", st, e.offset);
        return;
    }
    g_bodies++;
    g_bytes += b.size;
    g_clauses += b.neh;
    size_t n;
    size_t orig_size = b.size;
    if ((st = clril_encode(&b, g_out, OUT_BYTES, &n, &e)) || n != orig_size ||
        memcmp(g_out, p, n) != 0) {
        failf(file, rid, "encode: not the same bytes", st, (uint32_t)n);
        return;
    }
    g_same++;
    int nested_before = clauses_nest(&b);

    /* Probes: decode afresh, insert, encode, decode the result. */
    clril_arena_reset(&a);
    clril_decode(p, len, &a, &b, &e);
    uint32_t old_n = b.ninsns;
    /* What each original instruction was, and where its branches went. */
    uint16_t *ops = malloc((old_n + 1) * sizeof *ops);
    uint32_t *tgt = malloc((old_n + 1) * sizeof *tgt);
    for (uint32_t i = 0; i < old_n; i++) {
        ops[i] = clril_long_form(b.insns[i].op);
        tgt[i] = b.insns[i].target;
    }
    clril_insn entry[3] = { { .op = CLRIL_LDC_I4, .value = (int32_t)rid }, { .op = CLRIL_POP },
                            { .op = CLRIL_NOP } };
    clril_insn before_ret[RET_PROBE];
    for (int i = 0; i < RET_PROBE; i++)
        before_ret[i] = (clril_insn){ .op = CLRIL_NOP };
    uint32_t rets = 0;
    for (uint32_t i = b.ninsns; i-- > 0 && !st;)
        if (b.insns[i].op == CLRIL_RET) {
            st = clril_insert(&b, i, before_ret, RET_PROBE, CLRIL_TAKE_LABEL, &a, &e);
            rets++;
        }
    if (!st)
        st = clril_insert(&b, 0, entry, 3, CLRIL_KEEP_LABEL, &a, &e);
    if (st) {
        failf(file, rid, "insert", st, e.offset);
        goto out;
    }
    /* new index of old instruction i: 3 + i + RET_PROBE x (rets at or before i) */
    uint32_t *map = malloc((old_n + 1) * sizeof *map);
    uint32_t seen = 0;
    for (uint32_t i = 0; i <= old_n; i++) {
        if (i < old_n && ops[i] == CLRIL_RET)
            seen++;
        map[i] = 3 + i + RET_PROBE * seen;
    }
    uint32_t short_before = 0, short_after = 0;
    for (uint32_t i = 0; i < b.ninsns; i++)
        short_before += b.insns[i].operand == CLRIL_OPERAND_BR8;
    if ((st = clril_encode(&b, g_out2, OUT_BYTES, &n, &e))) {
        failf(file, rid, "encode probed", st, e.offset);
        free(map);
        goto out;
    }
    for (uint32_t i = 0; i < b.ninsns; i++)
        short_after += b.insns[i].operand == CLRIL_OPERAND_BR8;
    g_promoted += short_before - short_after;
    clril_body r;
    clril_arena_reset(&a);
    if ((st = clril_decode(g_out2, n, &a, &r, &e))) {
        failf(file, rid, "decode probed", st, e.offset);
        free(map);
        goto out;
    }
    if (r.ninsns != old_n + 3 + RET_PROBE * rets || r.neh != b.neh ||
        (nested_before && !clauses_nest(&r))) {
        failf(file, rid, "probed body: instructions or clauses", CLRIL_E_CLAUSE, r.ninsns);
        free(map);
        goto out;
    }
    for (uint32_t i = 0; i < old_n; i++) {
        const clril_insn *in = &r.insns[map[i]];
        if (clril_long_form(in->op) != ops[i]) {
            failf(file, rid, "probed body: an instruction moved", CLRIL_E_OPCODE, i);
            break;
        }
        if (in->operand == CLRIL_OPERAND_BR8 || in->operand == CLRIL_OPERAND_BR32) {
            /* a branch to a ret now reaches the code before it */
            uint32_t want = tgt[i] < old_n && ops[tgt[i]] == CLRIL_RET ? map[tgt[i]] - RET_PROBE
                                                                       : map[tgt[i]];
            if (tgt[i] == old_n)
                want = r.ninsns;
            if (in->target != want) {
                failf(file, rid, "probed body: a branch goes elsewhere", CLRIL_E_BRANCH, i);
                break;
            }
        }
    }
    free(map);
    g_probed++;
out:
    free(ops);
    free(tgt);
}

static void one_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat stt;
    if (fd < 0 || fstat(fd, &stt) != 0 || stt.st_size == 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    size_t len = (size_t)stt.st_size;
    uint8_t *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return;
    clrmeta md;
    clrmeta_error me;
    if (clrmeta_open(m, len, &md, &me) == CLRMETA_OK) {
        g_files++;
        uint32_t rows = clrmeta_rows(&md, CLRMETA_T_METHODDEF);
        for (uint32_t rid = 1; rid <= rows; rid++) {
            clrmeta_methoddef_row row;
            uint32_t off;
            if (clrmeta_methoddef(&md, rid, &row, &me) != CLRMETA_OK || !row.rva ||
                (row.impl_flags & 3) != 0 /* IL */)
                continue;
            if (clrmeta_rva_to_offset(&md, row.rva, 1, &off, &me) != CLRMETA_OK) {
                failf(path, rid, "rva", CLRIL_E_TRUNCATED, row.rva);
                continue;
            }
            one_body(path, rid, m + off, len - off);
        }
    }
    munmap(m, len);
}

int main(int argc, char **argv)
{
    g_arena_mem = malloc(ARENA_BYTES);
    g_out = malloc(OUT_BYTES);
    g_out2 = malloc(OUT_BYTES);
    if (argc < 2 || !g_arena_mem || !g_out || !g_out2) {
        fprintf(stderr, "usage: il_roundtrip DIR...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "il_roundtrip: cannot open %s\n", argv[i]);
            return 2;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t n = strlen(de->d_name);
            if (n < 5 || strcmp(de->d_name + n - 4, ".dll"))
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], de->d_name);
            one_file(path);
        }
        closedir(d);
    }
    printf("il_roundtrip: %lu assemblies, %lu method bodies (%lu bytes, %lu EH clauses): "
           "%lu the same bytes back, %lu probed (%lu short branches made long), %lu failed\n",
           g_files, g_bodies, g_bytes, g_clauses, g_same, g_probed,
           g_promoted, g_failed);
    return g_failed || !g_bodies ? 1 : 0;
}
