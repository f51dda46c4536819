/* Runs every record of the tests/sigblobs data files (format: tests/sigblobs/README.md)
 * as one cmocka test: parse the blob as its kind, then compare the C#-style
 * and ILDasm-style text, or the expected error and offset. Every valid blob is
 * also cut short at every byte: each prefix must fail cleanly, at an offset
 * inside the prefix. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clrsig/clrsig.h"

#define MAX_BLOB 8192
#define MAX_TEXT 4096

typedef struct record {
    char where[300];   /* file:line */
    uint8_t blob[MAX_BLOB];
    size_t len;
    clrsig_kind kind;
    int runtime;       /* pointer size for runtime-internal mode, 0 for strict */
    char csharp[MAX_TEXT], ildasm[MAX_TEXT];
    int has_csharp, has_ildasm;
    char error[64];
    long error_offset;
} record;

static record *records;
static size_t nrecords, caprecords;

static const char *const status_names[CLRSIG_STATUS_COUNT] = {
    "OK", "E_TRUNCATED", "E_BAD_COMPRESSED", "E_BAD_TOKEN_TAG", "E_RID_OVERFLOW",
    "E_NIL_TOKEN", "E_BAD_ELEMENT", "E_BAD_CALLCONV", "E_DEPTH", "E_COUNT", "E_RANK",
    "E_SENTINEL", "E_TRAILING", "E_ARENA_FULL", "E_OUTPUT_TRUNCATED", "E_CYCLE",
    "E_RESOLVE", "E_ARGUMENT", "E_OVERFLOW",
};

static int parse_kind(const char *s, clrsig_kind *k)
{
    static const char *const names[] = { "method", "field", "property", "locals",
                                         "typespec", "methodspec" };
    for (int i = 0; i < 6; i++)
        if (!strcmp(s, names[i])) {
            *k = (clrsig_kind)i;
            return 0;
        }
    return -1;
}

static void die(const char *where, const char *msg)
{
    fprintf(stderr, "%s: %s\n", where, msg);
    exit(2);
}

static size_t parse_hex(const char *s, uint8_t *out, const char *where)
{
    size_t n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        unsigned v;
        int used;
        if (sscanf(s, "%2x%n", &v, &used) != 1 || used != 2 || (s[2] && s[2] != ' '))
            die(where, "bad hex byte");
        if (n >= MAX_BLOB)
            die(where, "blob too long");
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static record *new_record(void)
{
    if (nrecords == caprecords) {
        caprecords = caprecords ? caprecords * 2 : 256;
        records = realloc(records, caprecords * sizeof *records);
        if (!records)
            die("test_sigblobs", "out of memory");
    }
    record *r = &records[nrecords++];
    memset(r, 0, sizeof *r);
    r->error_offset = -1;
    return r;
}

static void finish_record(record *r)
{
    if (!r)
        return;
    if (!r->len && !r->error[0])
        die(r->where, "record without blob");
    if (!r->error[0] && !r->has_csharp && !r->has_ildasm)
        die(r->where, "record expects neither text nor error");
}

static void load_file(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        die(path, "cannot open");
    char line[MAX_BLOB * 3 + 64];
    record *cur = NULL;
    int has_blob = 0;
    unsigned lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (line[0] == '#')
            continue;
        if (n == 0) {
            finish_record(cur);
            cur = NULL;
            has_blob = 0;
            continue;
        }
        char where[300];
        snprintf(where, sizeof where, "%.250s:%u", path, lineno);
        char *colon = strstr(line, ": ");
        if (!colon && line[n - 1] == ':')
            colon = line + n - 1;
        if (!colon)
            die(where, "expected 'key: value'");
        *colon = '\0';
        const char *key = line, *val = colon[1] ? colon + 2 : "";
        if (!cur) {
            cur = new_record();
            snprintf(cur->where, sizeof cur->where, "%s", where);
            cur->kind = CLRSIG_KIND_METHOD;
        }
        if (!strcmp(key, "blob")) {
            cur->len = parse_hex(val, cur->blob, where);
            has_blob = 1;
        } else if (!strcmp(key, "kind")) {
            if (parse_kind(val, &cur->kind))
                die(where, "unknown kind");
        } else if (!strcmp(key, "mode")) {
            if (!strcmp(val, "runtime8"))
                cur->runtime = 8;
            else if (!strcmp(val, "runtime4"))
                cur->runtime = 4;
            else
                die(where, "unknown mode");
        } else if (!strcmp(key, "csharp")) {
            snprintf(cur->csharp, sizeof cur->csharp, "%s", val);
            cur->has_csharp = 1;
        } else if (!strcmp(key, "ildasm")) {
            snprintf(cur->ildasm, sizeof cur->ildasm, "%s", val);
            cur->has_ildasm = 1;
        } else if (!strcmp(key, "error")) {
            if (sscanf(val, "%63s at %ld", cur->error, &cur->error_offset) != 2)
                die(where, "error must be 'E_NAME at OFFSET'");
        } else if (strcmp(key, "source") && strcmp(key, "note")) {
            die(where, "unknown key");
        }
        (void)has_blob;
    }
    finish_record(cur);
    fclose(fp);
}

static uint8_t arena_mem[1 << 20];

static void check_text(const clrsig_sig *sig, clrsig_style style, const char *want)
{
    char text[MAX_TEXT * 2];
    size_t need = 0;
    clrsig_error err;
    clrsig_format_opts fo = { .style = style };
    clrsig_status st = clrsig_format_sig(sig, &fo, NULL, text, sizeof text, &need, &err);
    assert_int_equal(st, CLRSIG_OK);
    assert_string_equal(text, want);
    assert_int_equal(need, strlen(want));
    /* Truncation is reported and never overflows: format into every short size. */
    for (size_t cap = 0; cap < need + 1; cap += (need > 64 ? 7 : 1)) {
        char small[MAX_TEXT * 2 + 8];
        memset(small, 0x55, sizeof small);
        size_t need2 = 0;
        st = clrsig_format_sig(sig, &fo, NULL, small, cap, &need2, NULL);
        assert_int_equal(st, CLRSIG_E_OUTPUT_TRUNCATED);
        assert_int_equal(need2, need);
        assert_int_equal((unsigned char)small[cap], 0x55);
        if (cap) {
            assert_true(strlen(small) < cap);
            assert_memory_equal(small, want, strlen(small));
        }
    }
}

static void run_record(void **state)
{
    const record *r = *state;
    clrsig_arena arena;
    clrsig_arena_init(&arena, arena_mem, sizeof arena_mem);
    clrsig_parse_opts po = { .runtime_internal = r->runtime != 0, .pointer_size = (uint32_t)r->runtime };
    clrsig_sig sig;
    clrsig_error err = { CLRSIG_OK, 0 };
    clrsig_status st = clrsig_parse(r->blob, r->len, r->kind, &po, &arena, &sig, &err);
    if (r->error[0]) {
        if (st == CLRSIG_OK)
            fail_msg("%s: decoded, expected %s at %ld", r->where, r->error, r->error_offset);
        assert_string_equal(status_names[st], r->error);
        assert_int_equal(err.code, st);
        assert_int_equal(err.offset, r->error_offset);
        return;
    }
    if (st != CLRSIG_OK)
        fail_msg("%s: %s at offset %u", r->where, status_names[st], err.offset);
    assert_int_equal(sig.length, r->len);
    if (r->has_csharp)
        check_text(&sig, CLRSIG_STYLE_CSHARP, r->csharp);
    if (r->has_ildasm)
        check_text(&sig, CLRSIG_STYLE_ILDASM, r->ildasm);

    /* Every proper prefix of a valid blob is rejected inside the prefix. */
    for (size_t cut = 0; cut < r->len; cut++) {
        clrsig_arena_reset(&arena);
        st = clrsig_parse(r->blob, cut, r->kind, &po, &arena, &sig, &err);
        if (st != CLRSIG_E_TRUNCATED && st != CLRSIG_E_COUNT)
            fail_msg("%s: prefix of %zu bytes gave %s", r->where, cut, status_names[st]);
        assert_true(err.offset <= cut);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/sigblobs";
    DIR *d = opendir(dir);
    if (!d)
        die(dir, "cannot open directory");
    char *names[256];
    size_t nnames = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nnames < 256) {
        size_t n = strlen(e->d_name);
        if (n > 4 && !strcmp(e->d_name + n - 4, ".txt"))
            names[nnames++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nnames, sizeof names[0], by_name);
    for (size_t i = 0; i < nnames; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        load_file(path);
        free(names[i]);
    }
    if (!nrecords)
        die(dir, "no records");
    struct CMUnitTest *tests = calloc(nrecords, sizeof *tests);
    for (size_t i = 0; i < nrecords; i++) {
        tests[i].name = records[i].where;
        tests[i].test_func = run_record;
        tests[i].initial_state = &records[i];
    }
    printf("sigblobs: %zu records from %zu files\n", nrecords, nnames);
    int failed = _cmocka_run_group_tests("sigblobs", tests, nrecords, NULL, NULL);
    free(tests);
    free(records);
    return failed;
}
