/* clrtrace decode HEX: one signature blob to text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrsig/clrsig.h"
#include "cli.h"

#define DECODE_MAX_BLOB 65536

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace decode [options] HEX...\n"
        "\n"
        "Decodes one ECMA-335 signature blob, given as hex bytes (\"20 01 08 0e\",\n"
        "\"2001080e\" or \"0x20,0x01\"; several arguments are joined), and prints it.\n"
        "\n"
        "options:\n"
        "  --kind K     method (default), field, property, locals, typespec,\n"
        "               methodspec, or any (guess from the first byte)\n"
        "  --ildasm     ILDasm-style text instead of C#-style\n"
        "  --both       print C#-style, then ILDasm-style text\n"
        "  --runtime N  accept runtime-internal element types with N-byte pointers\n"
        "               (4 or 8)\n"
        "\n"
        "Tokens print as <0x01000012> (no metadata is read). Exit status: 0 decoded,\n"
        "1 malformed blob (the error and its byte offset go to stderr), 2 usage error.\n");
}

static int parse_kind(const char *s, clrsig_kind *k)
{
    static const struct { const char *name; clrsig_kind kind; } kinds[] = {
        { "method", CLRSIG_KIND_METHOD }, { "field", CLRSIG_KIND_FIELD },
        { "property", CLRSIG_KIND_PROPERTY }, { "locals", CLRSIG_KIND_LOCALS },
        { "typespec", CLRSIG_KIND_TYPESPEC }, { "methodspec", CLRSIG_KIND_METHODSPEC },
        { "any", CLRSIG_KIND_ANY },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(s, kinds[i].name)) {
            *k = kinds[i].kind;
            return 0;
        }
    return -1;
}

int cmd_decode(int argc, char **argv)
{
    clrsig_kind kind = CLRSIG_KIND_METHOD;
    int ildasm = 0, both = 0;
    clrsig_parse_opts popts = { 0 };
    static char hex[4 * DECODE_MAX_BLOB];
    size_t hexlen = 0;

    const unsigned char *inline_val = NULL;
    if (cli_args_read("decode", &argc, &argv, &inline_val) != 0)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_arg_unwanted("decode", argv, inline_val, i))
            return 2;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--kind") && i + 1 < argc) {
            if (parse_kind(argv[++i], &kind)) {
                fprintf(stderr, "clrtrace decode: unknown kind '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--ildasm")) {
            ildasm = 1;
        } else if (!strcmp(a, "--both")) {
            both = 1;
        } else if (!strcmp(a, "--runtime") && i + 1 < argc) {
            uint64_t n = 0;
            popts.runtime_internal = 1;
            if (ct_parse_whole(argv[++i], 4, 8, &n) != 0 || (n != 4 && n != 8)) {
                fprintf(stderr, "clrtrace decode: --runtime takes 4 or 8, not '%s'\n", argv[i]);
                return 2;
            }
            popts.pointer_size = (uint32_t)n;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "clrtrace decode: unknown option '%s' (try --help)\n", a);
            return 2;
        } else {
            size_t n = strlen(a);
            if (hexlen + n + 2 > sizeof hex) {
                fprintf(stderr, "clrtrace decode: blob longer than %d bytes\n", DECODE_MAX_BLOB);
                return 2;
            }
            memcpy(hex + hexlen, a, n);
            hexlen += n;
            hex[hexlen++] = ' ';
            hex[hexlen] = '\0';
        }
    }
    if (!hexlen) {
        usage(stderr);
        return 2;
    }

    static uint8_t blob[DECODE_MAX_BLOB];
    char msg[128];
    long len = cli_parse_hex(hex, blob, sizeof blob, msg, sizeof msg);
    if (len < 0) {
        fprintf(stderr, "clrtrace decode: %s\n", msg);
        return 2;
    }

    static uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED * 16];
    clrsig_arena arena;
    clrsig_arena_init(&arena, mem, sizeof mem);
    clrsig_sig sig;
    clrsig_error err;
    if (clrsig_parse(blob, (size_t)len, kind, &popts, &arena, &sig, &err) != CLRSIG_OK) {
        fprintf(stderr, "clrtrace decode: error: %s at offset %u\n", clrsig_strerror(err.code),
                err.offset);
        return 1;
    }
    for (int pass = 0; pass < (both ? 2 : 1); pass++) {
        clrsig_format_opts fo = { .style = (ildasm || pass) ? CLRSIG_STYLE_ILDASM : CLRSIG_STYLE_CSHARP };
        size_t need = 0;
        static char text[1 << 20];
        clrsig_status st = clrsig_format_sig(&sig, &fo, NULL, text, sizeof text, &need, &err);
        if (st != CLRSIG_OK) {
            fprintf(stderr, "clrtrace decode: error: %s\n", clrsig_strerror(st));
            return 1;
        }
        puts(text);
    }
    return 0;
}
