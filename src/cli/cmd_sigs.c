/* clrtrace sigs ASSEMBLY: every MethodDef (and with --members every
 * MemberRef) of an assembly as one line of text, in table order. The line
 * format is specified in docs/libclrmeta.md ("The sigs command") precisely
 * enough for an independent tool to reproduce it byte for byte.
 *
 * The work per member is one row read, one parse into a reused arena and one
 * format call; the declaring type's text is rebuilt only when the owner
 * changes (methods are grouped by type in table order). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clrmeta/clrmeta.h"
#include "clrsig/clrsig.h"
#include "format/words.h"
#include "cli.h"

#define SIGS_LINE_CAP 65536
#define SIGS_OWNER_CAP 8192
#define SIGS_KEY_CAP 8192
#define SIGS_FLUSH 65536  /* output is written in blocks of about this size */

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace sigs [options] ASSEMBLY\n"
        "\n"
        "Prints the signature of every method defined in ASSEMBLY (a .NET PE file),\n"
        "one line each, in MethodDef table order, e.g.\n"
        "  static string System.String.Concat(string str0, string str1)\n"
        "\n"
        "options:\n"
        "  --format F     csharp (default) or ildasm\n"
        "  --filter GLOB  only members whose \"Namespace.Type.Member\" matches GLOB\n"
        "                 (fnmatch; nested types are joined with '.', names keep `N)\n"
        "  --members      also list MemberRefs (references to other members), after\n"
        "                 the methods\n"
        "  --tokens       start each line with the member's token (0x06000001)\n"
        "  --lines        end each method's line with its source location from the\n"
        "                 assembly's Portable PDB (beside it or embedded):\n"
        "                 \" at Orders.cs:42\", the path from the sources' common\n"
        "                 folder, the line of its first sequence point (an async\n"
        "                 method's or iterator's: its state machine's)\n"
        "  --source-link  with --lines: first print the PDB's Source Link map (the\n"
        "                 JSON that maps its source folders to a repository's URLs)\n"
        "  --at FILE:LINE where a probe at that line goes (FILE: the file's name or\n"
        "                 the end of its path): one line, \"FILE:LINE -> FILE:LINE2\n"
        "                 IL_XXXX SIGNATURE\", LINE2 the first line with code there\n"
        "                 (a blank line, a brace or a comment inside a method: the\n"
        "                 next statement's), in the innermost method (a lambda's);\n"
        "                 exit 1 with one line for a line in no method\n"
        "  --locals       with --at: then the local variables in scope there, by\n"
        "                 their source names, types and slots (compiler temporaries\n"
        "                 left out): \"  locals: int total (slot 1), ...\"\n"
        "\n"
        "Exit status: 0 every line decoded, 1 the file is not a readable .NET assembly\n"
        "or some signatures failed (their lines start with \"# error\"), 2 usage error.\n");
}

/* ------------------------------------------------------------- the file */

/* The file's bytes: mapped when possible, else read. */
typedef struct file_bytes {
    uint8_t *p;
    size_t len;
    int mapped;
} file_bytes;

static int load(const char *path, file_bytes *fb, char *why, size_t whycap)
{
    memset(fb, 0, sizeof *fb);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(why, whycap, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, whycap, "not a regular file");
        close(fd);
        return -1;
    }
    fb->len = (size_t)st.st_size;
    if (fb->len == 0) {
        close(fd);
        return 0;
    }
    void *m = mmap(NULL, fb->len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
        fb->p = m;
        fb->mapped = 1;
        close(fd);
        return 0;
    }
    fb->p = malloc(fb->len);
    size_t got = 0;
    while (fb->p && got < fb->len) {
        ssize_t n = read(fd, fb->p + got, fb->len - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!fb->p || got != fb->len) {
        snprintf(why, whycap, "cannot read the file");
        free(fb->p);
        fb->p = NULL;
        return -1;
    }
    return 0;
}

static void unload(file_bytes *fb)
{
    if (fb->mapped)
        munmap(fb->p, fb->len);
    else
        free(fb->p);
}

/* ------------------------------------------------------------- output */

/* The text, written to `direct` whenever SIGS_FLUSH bytes have gathered. */
typedef struct outbuf {
    char *p;
    size_t len, cap;
    FILE *direct;
    int oom;
} outbuf;

/* Room for at least n more bytes (NULL when out of memory): a formatter can
 * write a line in place, then out_commit() counts it. */
static char *out_reserve(outbuf *o, size_t n)
{
    if (o->oom)
        return NULL;
    if (n > o->cap - o->len) {
        size_t cap = o->cap ? o->cap : SIGS_FLUSH * 2;
        while (cap - o->len < n)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->oom = 1;
            return NULL;
        }
        o->p = p;
        o->cap = cap;
    }
    return o->p + o->len;
}

static void out_commit(outbuf *o, size_t n)
{
    o->len += n;
    if (o->direct && o->len >= SIGS_FLUSH) {
        fwrite(o->p, 1, o->len, o->direct);
        o->len = 0;
    }
}

static void out_put(outbuf *o, const char *s, size_t n)
{
    char *d = out_reserve(o, n);
    if (!d)
        return;
    memcpy(d, s, n);
    out_commit(o, n);
}

static void out_flush(outbuf *o, FILE *to)
{
    if (o->len)
        fwrite(o->p, 1, o->len, to);
    o->len = 0;
}

/* ------------------------------------------------------------- the state */

typedef struct sigs {
    const clrmeta *md;
    clrsig_resolver resolver;
    clrmeta_sig_context ctx;
    clrsig_format_opts fopts;
    clrsig_arena arena, scratch;
    int csharp, tokens;
    const char *filter;
    const clrmeta_pdb *pdb;   /* --lines: the assembly's PDB */
    size_t root_len;          /* bytes of each document's path left out */
    unsigned long failures;
    outbuf out;

    /* the declaring type of the methods being printed */
    uint32_t owner_rid;
    char owner[SIGS_OWNER_CAP];
    char key[SIGS_KEY_CAP];   /* "Namespace.Outer.Inner" for --filter */
    char ref_owner[SIGS_OWNER_CAP], ref_key[SIGS_KEY_CAP];

    char line[SIGS_LINE_CAP]; /* a field reference's line */

    const char *param_names[CLRSIG_MAX_PARAMS];
    uint16_t param_flags[CLRSIG_MAX_PARAMS];
    const char *generic_names[CLRSIG_MAX_GENERIC_ARGS];

    uint8_t arena_mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
    uint8_t scratch_mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
} sigs;

/* Appends s to out[*len..cap), keeping it NUL-terminated; the text is cut
 * when it does not fit (owner and key buffers are far larger than names). */
static void append(char *out, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len >= cap)
        return;
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = '\0';
}

/* "Namespace.Outer.Inner" of a TypeDef/TypeRef token, metadata names as
 * stored; the walk stops after CLRMETA_MAX_NESTING enclosing types. */
static void type_key(const clrmeta *md, uint32_t token, char *out, size_t cap)
{
    const char *names[CLRMETA_MAX_NESTING + 1], *ns = "";
    unsigned n = 0;
    size_t len = 0;
    out[0] = '\0';
    while (token && n <= CLRMETA_MAX_NESTING) {
        const char *tns, *tname;
        uint32_t enc;
        if (clrmeta_type_name(md, token, &tns, &tname, &enc, NULL) != CLRMETA_OK)
            break;
        names[n++] = tname;
        ns = tns;
        token = enc;
    }
    if (n && ns[0]) {
        append(out, cap, &len, ns);
        append(out, cap, &len, ".");
    }
    for (unsigned i = n; i-- > 0;) {
        append(out, cap, &len, names[i]);
        if (i)
            append(out, cap, &len, ".");
    }
}

/* The formatted name of a type token (TypeDef, TypeRef or TypeSpec). */
static void format_token(sigs *s, uint32_t token, char *out, size_t cap)
{
    clrsig_arena_reset(&s->scratch);
    clrsig_format_token(token, &s->fopts, &s->resolver, out, cap, NULL, NULL);
}

/* Rebuilds the owner text and filter key for TypeDef rid (0: none). */
static void set_owner(sigs *s, uint32_t rid)
{
    s->owner_rid = rid;
    s->owner[0] = '\0';
    s->key[0] = '\0';
    if (!rid)
        return;
    uint32_t token = CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, rid);
    format_token(s, token, s->owner, sizeof s->owner);
    if (s->filter)
        type_key(s->md, token, s->key, sizeof s->key);
    clrmeta_list gps;
    if (s->csharp && clrmeta_generic_params(s->md, token, &gps, NULL) == CLRMETA_OK && gps.count) {
        size_t len = strlen(s->owner);
        append(s->owner, sizeof s->owner, &len, "<");
        for (uint32_t i = 0; i < gps.count; i++) {
            clrmeta_genericparam_row g;
            if (i)
                append(s->owner, sizeof s->owner, &len, ", ");
            uint32_t g_rid = clrmeta_list_rid(s->md, &gps, i);
            if (clrmeta_genericparam(s->md, g_rid, &g, NULL) == CLRMETA_OK)
                append(s->owner, sizeof s->owner, &len, g.name);
        }
        append(s->owner, sizeof s->owner, &len, ">");
    }
}

static int filtered_out(const sigs *s, const char *owner_key, const char *name)
{
    if (!s->filter)
        return 0;
    char key[SIGS_KEY_CAP];
    size_t len = 0;
    key[0] = '\0';
    if (owner_key[0]) {
        append(key, sizeof key, &len, owner_key);
        append(key, sizeof key, &len, ".");
    }
    append(key, sizeof key, &len, name);
    return fnmatch(s->filter, key, 0) != 0;
}

static void emit(sigs *s, uint32_t token, const char *text, size_t len)
{
    if (s->tokens) {
        char tok[16];
        int n = snprintf(tok, sizeof tok, "0x%08X ", (unsigned)token);
        out_put(&s->out, tok, (size_t)n);
    }
    out_put(&s->out, text, len);
    out_put(&s->out, "\n", 1);
}

/* An error line in place of the member's line; offset < 0: no blob offset. */
static void emit_error(sigs *s, uint32_t token, const char *name, const char *what, long offset)
{
    char text[512];
    int n;
    s->failures++;
    if (offset >= 0)
        n = snprintf(text, sizeof text, "# error 0x%08X %s: %s at blob offset %ld\n",
                     (unsigned)token, name, what, offset);
    else
        n = snprintf(text, sizeof text, "# error 0x%08X %s: %s\n", (unsigned)token, name, what);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof text) {
        n = (int)sizeof text - 1;
        text[n - 1] = '\n';
    }
    out_put(&s->out, text, (size_t)n);
}

/* A row that could not be read at all. */
static void emit_row_error(sigs *s, uint32_t token, const clrmeta_error *me)
{
    char msg[CLRMETA_MAX_MESSAGE];
    clrmeta_describe(me, msg, sizeof msg);
    emit_error(s, token, "?", msg, -1);
}

/* " at Orders.cs:42": the method's first line (or its state machine's),
 * when the PDB has one. */
static void emit_line(sigs *s, uint32_t token)
{
    uint32_t rid = CLRMETA_TOKEN_RID(token), mn = 0;
    clrmeta_sequence_point sp;
    int found = 0;
    clrmeta_pdb_method_line(s->pdb, rid, &sp, &found, NULL);
    if (!found && clrmeta_pdb_move_next(s->pdb, rid, &mn, NULL) == CLRMETA_OK && mn)
        clrmeta_pdb_method_line(s->pdb, mn, &sp, &found, NULL);
    char name[CLRMETA_MAX_DOCUMENT_NAME];
    size_t len = 0;
    if (!found || clrmeta_pdb_document_name(s->pdb, sp.document, name, sizeof name, &len, NULL) !=
                      CLRMETA_OK)
        return;
    size_t skip = s->root_len && len > s->root_len ? s->root_len : 0;
    char *d = out_reserve(&s->out, len + 32);
    if (d)
        out_commit(&s->out, (size_t)snprintf(d, len + 32, " at %s:%u", name + skip,
                                             sp.start_line));
}

/* Formats a method signature straight into the output as one line (the
 * token first with --tokens). On a formatter error nothing is written and
 * the error is returned. Out of memory is reported by the output buffer. */
static clrsig_status emit_method(sigs *s, uint32_t token, const clrsig_method *m,
                                 const clrsig_method_names *names)
{
    size_t prefix = s->tokens ? 11 : 0, room = SIGS_LINE_CAP;
    for (;;) {
        char *d = out_reserve(&s->out, prefix + room + 1);
        if (!d)
            return CLRSIG_OK;
        if (prefix)
            snprintf(d, prefix + 1, "0x%08X ", (unsigned)token);
        size_t need = 0;
        clrsig_arena_reset(&s->scratch);
        clrsig_status st = clrsig_format_method(m, names, &s->fopts, &s->resolver, d + prefix,
                                                room + 1, &need, NULL);
        if (st == CLRSIG_E_OUTPUT_TRUNCATED && need > room) {
            room = need; /* a line longer than SIGS_LINE_CAP: once more, with room */
            continue;
        }
        if (st != CLRSIG_OK)
            return st;
        out_commit(&s->out, prefix + need);
        if (s->pdb)
            emit_line(s, token);
        if ((d = out_reserve(&s->out, 1)) != NULL) {
            d[0] = '\n';
            out_commit(&s->out, 1);
        }
        return CLRSIG_OK;
    }
}

/* ---------------------------------------------------------------- methods */

/* Generic parameter names of a method by Number, when its GenericParam rows
 * name every number below the signature's count; else NULL. */
static const char *const *method_generic_names(sigs *s, uint32_t rid, uint32_t count)
{
    clrmeta_list gps;
    uint32_t owner = CLRMETA_TOKEN(CLRMETA_T_METHODDEF, rid);
    if (clrmeta_generic_params(s->md, owner, &gps, NULL) != CLRMETA_OK)
        return NULL;
    for (uint32_t i = 0; i < count; i++)
        s->generic_names[i] = NULL;
    for (uint32_t i = 0; i < gps.count; i++) {
        clrmeta_genericparam_row g;
        if (clrmeta_genericparam(s->md, clrmeta_list_rid(s->md, &gps, i), &g, NULL) != CLRMETA_OK)
            continue;
        if (g.number < count && !s->generic_names[g.number])
            s->generic_names[g.number] = g.name;
    }
    for (uint32_t i = 0; i < count; i++)
        if (!s->generic_names[i])
            return NULL;
    return s->generic_names;
}

/* Parameter names and flags by Sequence (1..count); the first row of a
 * sequence wins; a parameter without a row has no name and flags 0. */
static void method_params(sigs *s, uint32_t rid, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        s->param_names[i] = NULL;
        s->param_flags[i] = 0;
    }
    clrmeta_list ps;
    if (clrmeta_method_params(s->md, rid, &ps, NULL) != CLRMETA_OK)
        return;
    for (uint32_t i = 0; i < ps.count; i++) {
        clrmeta_param_row p;
        if (clrmeta_param(s->md, clrmeta_list_rid(s->md, &ps, i), &p, NULL) != CLRMETA_OK)
            continue;
        if (p.sequence >= 1 && p.sequence <= count && !s->param_names[p.sequence - 1]) {
            s->param_names[p.sequence - 1] = p.name;
            s->param_flags[p.sequence - 1] = p.flags;
        }
    }
}

static void print_method(sigs *s, uint32_t rid)
{
    uint32_t token = CLRMETA_TOKEN(CLRMETA_T_METHODDEF, rid);
    clrmeta_methoddef_row m;
    clrmeta_error me;
    if (clrmeta_methoddef(s->md, rid, &m, &me) != CLRMETA_OK) {
        emit_row_error(s, token, &me);
        return;
    }
    uint32_t owner = 0;
    clrmeta_method_owner(s->md, rid, &owner, NULL);
    if (owner != s->owner_rid)
        set_owner(s, owner);
    if (filtered_out(s, s->key, m.name))
        return;

    clrsig_sig sig;
    clrsig_error se;
    clrsig_arena_reset(&s->arena);
    if (clrsig_parse(m.sig.p, m.sig.len, CLRSIG_KIND_METHOD, NULL, &s->arena, &sig,
                     &se) != CLRSIG_OK) {
        emit_error(s, token, m.name, clrsig_strerror(se.code), (long)se.offset);
        return;
    }
    const clrsig_method *sm = &sig.method;
    method_params(s, rid, sm->param_count);
    clrsig_method_names names = {
        .owner = s->owner,
        .name = m.name,
        .generic_names = sm->generic_count ? method_generic_names(s, rid, sm->generic_count) : NULL,
        .param_names = s->param_names,
        .param_flags = s->param_flags,
    };
    s->ctx.type_rid = owner;
    s->ctx.method_rid = rid;
    clrsig_status st = emit_method(s, token, sm, &names);
    if (st != CLRSIG_OK)
        emit_error(s, token, m.name, clrsig_strerror(st), -1);
}

/* ------------------------------------------------------------- memberrefs */

/* Owner text and filter key of a MemberRef parent. */
static void memberref_owner(sigs *s, uint32_t parent, char *owner, size_t cap, char *key,
                            size_t keycap)
{
    uint32_t t = CLRMETA_TOKEN_TABLE(parent), rid = CLRMETA_TOKEN_RID(parent);
    owner[0] = key[0] = '\0';
    if (t == CLRMETA_T_METHODDEF) {
        uint32_t td = 0;
        if (clrmeta_method_owner(s->md, rid, &td, NULL) != CLRMETA_OK || !td) {
            snprintf(owner, cap, "<0x%08X>", (unsigned)parent);
            return;
        }
        parent = CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, td);
        t = CLRMETA_T_TYPEDEF;
        rid = td;
    }
    if (t == CLRMETA_T_MODULEREF) {
        clrmeta_moduleref_row mr;
        if (clrmeta_moduleref(s->md, rid, &mr, NULL) == CLRMETA_OK) {
            snprintf(owner, cap, "%s", mr.name);
            snprintf(key, keycap, "%s", mr.name);
        } else {
            snprintf(owner, cap, "<0x%08X>", (unsigned)parent);
        }
        return;
    }
    format_token(s, parent, owner, cap);
    if (!s->filter)
        return;
    if (t == CLRMETA_T_TYPESPEC) {
        /* key: the generic type of a GENERICINST, or a CLASS/VALUETYPE token */
        clrmeta_typespec_row ts;
        if (clrmeta_typespec(s->md, rid, &ts, NULL) != CLRMETA_OK || ts.sig.len < 2)
            return;
        const uint8_t *b = ts.sig.p;
        uint32_t len = ts.sig.len, inner, used;
        if (b[0] == CLRSIG_ET_GENERICINST) {
            b++;
            len--;
        }
        if ((b[0] == CLRSIG_ET_CLASS || b[0] == CLRSIG_ET_VALUETYPE) &&
            clrsig_read_token(b + 1, len - 1, &inner, &used) == CLRSIG_OK &&
            CLRMETA_TOKEN_TABLE(inner) != CLRMETA_T_TYPESPEC)
            type_key(s->md, inner, key, keycap);
        return;
    }
    type_key(s->md, parent, key, keycap);
}

static void print_memberref(sigs *s, uint32_t rid)
{
    uint32_t token = CLRMETA_TOKEN(CLRMETA_T_MEMBERREF, rid);
    clrmeta_memberref_row r;
    clrmeta_error me;
    if (clrmeta_memberref(s->md, rid, &r, &me) != CLRMETA_OK) {
        emit_row_error(s, token, &me);
        return;
    }
    memberref_owner(s, r.parent, s->ref_owner, sizeof s->ref_owner, s->ref_key, sizeof s->ref_key);
    if (filtered_out(s, s->ref_key, r.name))
        return;
    s->ctx.type_rid = 0;
    s->ctx.method_rid = 0;
    clrsig_sig sig;
    clrsig_error se;
    clrsig_arena_reset(&s->arena);
    int field = r.sig.len > 0 && (r.sig.p[0] & CLRSIG_CC_MASK) == CLRSIG_CC_FIELD;
    if (clrsig_parse(r.sig.p, r.sig.len, field ? CLRSIG_KIND_FIELD : CLRSIG_KIND_METHOD, NULL,
                     &s->arena, &sig, &se) != CLRSIG_OK) {
        emit_error(s, token, r.name, clrsig_strerror(se.code), (long)se.offset);
        return;
    }
    if (!field) {
        clrsig_method_names names = { .owner = s->ref_owner, .name = r.name };
        clrsig_status st = emit_method(s, token, &sig.method, &names);
        if (st != CLRSIG_OK)
            emit_error(s, token, r.name, clrsig_strerror(st), -1);
        return;
    }
    clrsig_arena_reset(&s->scratch);
    clrsig_status st = clrsig_format_type(sig.field, &s->fopts, &s->resolver, s->line,
                                          sizeof s->line, NULL, NULL);
    if (st != CLRSIG_OK) {
        emit_error(s, token, r.name, clrsig_strerror(st), -1);
        return;
    }
    size_t len = strlen(s->line);
    append(s->line, sizeof s->line, &len, " ");
    if (s->ref_owner[0]) {
        append(s->line, sizeof s->line, &len, s->ref_owner);
        append(s->line, sizeof s->line, &len, s->csharp ? "." : "::");
    }
    append(s->line, sizeof s->line, &len, r.name);
    emit(s, token, s->line, len);
}

static sigs *sigs_new(const clrmeta *md, int csharp, int tokens, const char *filter)
{
    sigs *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->md = md;
    if (clrmeta_resolver_init(&s->resolver, &s->ctx, md, NULL) != CLRMETA_OK) {
        free(s);
        return NULL;
    }
    s->csharp = csharp;
    s->tokens = tokens;
    s->filter = filter;
    clrsig_arena_init(&s->arena, s->arena_mem, sizeof s->arena_mem);
    clrsig_arena_init(&s->scratch, s->scratch_mem, sizeof s->scratch_mem);
    s->fopts.style = csharp ? CLRSIG_STYLE_CSHARP : CLRSIG_STYLE_ILDASM;
    s->fopts.scratch = &s->scratch;
    s->owner_rid = UINT32_MAX;
    s->out.direct = stdout;
    return s;
}

static void sigs_free(sigs *s)
{
    if (!s)
        return;
    free(s->out.p);
    free(s);
}

/* --at FILE:LINE: "FILE:LINE -> FILE:LINE2 IL_XXXX SIGNATURE" (0), or one
 * line on stderr (1). */
/* The method's local variable types (its body's LocalVarSig), or NULL. */
static const clrsig_sig *method_locals(sigs *s, uint32_t rid, clrsig_sig *sig)
{
    clrmeta_methoddef_row m;
    uint32_t off;
    clrmeta_standalonesig_row ss;
    if (clrmeta_methoddef(s->md, rid, &m, NULL) != CLRMETA_OK || !m.rva ||
        clrmeta_rva_to_offset(s->md, m.rva, 1, &off, NULL) != CLRMETA_OK ||
        (s->md->file[off] & 3) != 3 || /* a tiny header: no locals */
        clrmeta_rva_to_offset(s->md, m.rva, 12, &off, NULL) != CLRMETA_OK)
        return NULL;
    const uint8_t *h = s->md->file + off;
    uint32_t tok = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 |
                   (uint32_t)h[11] << 24;
    if (CLRMETA_TOKEN_TABLE(tok) != CLRMETA_T_STANDALONESIG ||
        clrmeta_standalonesig(s->md, CLRMETA_TOKEN_RID(tok), &ss, NULL) != CLRMETA_OK ||
        clrsig_parse(ss.sig.p, ss.sig.len, CLRSIG_KIND_LOCALS, NULL, &s->arena, sig, NULL) !=
            CLRSIG_OK)
        return NULL;
    return sig;
}

/* An async method's or iterator's locals hoisted to its state machine's
 * fields (rid: its MoveNext) in scope at il: ", int total (hoisted:
 * <total>5__2)" each, after `before` others; how many. */
static uint32_t print_hoisted(sigs *s, const clrmeta_pdb *pdb, uint32_t rid, uint32_t il,
                              uint32_t before)
{
    enum { HOISTED_SHOWN = 256 };
    uint32_t kickoff = 0, slots[HOISTED_SHOWN], n = 0, shown = 0, owner = 0;
    clrmeta_list fields;
    if (clrmeta_pdb_kickoff(pdb, rid, &kickoff, NULL) != CLRMETA_OK || !kickoff ||
        clrmeta_pdb_hoisted_at(pdb, rid, il, slots, HOISTED_SHOWN, &n, NULL) != CLRMETA_OK ||
        clrmeta_method_owner(s->md, rid, &owner, NULL) != CLRMETA_OK || !owner ||
        clrmeta_type_fields(s->md, owner, &fields, NULL) != CLRMETA_OK)
        return 0;
    for (uint32_t i = 0; i < n && i < HOISTED_SHOWN; i++) {
        for (uint32_t k = 0; k < fields.count; k++) {
            clrmeta_field_row fr;
            char name[512];
            if (clrmeta_field(s->md, clrmeta_list_rid(s->md, &fields, k), &fr, NULL) != CLRMETA_OK ||
                !clrmeta_hoisted_local_name(fr.name, slots[i], name, sizeof name))
                continue;
            char type[512] = "?";
            clrsig_sig sig;
            if (clrsig_parse(fr.sig.p, fr.sig.len, CLRSIG_KIND_FIELD, NULL, &s->arena, &sig, NULL) ==
                CLRSIG_OK)
                clrsig_format_type(sig.field, &s->fopts, &s->resolver, type, sizeof type, NULL, NULL);
            printf("%s %s %s (hoisted: %s)", before + shown ? "," : "", type, name, fr.name);
            shown++;
            break;
        }
    }
    return shown;
}

/* "  locals: int total (slot 1), ..." at IL offset il of method rid. */
static void print_locals(sigs *s, const clrmeta_pdb *pdb, uint32_t rid, uint32_t il)
{
    enum { LOCALS_SHOWN = 256 };
    uint32_t rids[LOCALS_SHOWN], n = 0;
    clrmeta_pdb_locals_at(pdb, rid, il, rids, LOCALS_SHOWN, &n, NULL);
    clrsig_arena_reset(&s->arena);
    clrsig_sig sig;
    const clrsig_sig *types = method_locals(s, rid, &sig);
    printf("  locals:");
    for (uint32_t i = 0; i < n && i < LOCALS_SHOWN; i++) {
        clrmeta_local_variable_row lv;
        if (clrmeta_pdb_local_variable(pdb, rids[i], &lv, NULL) != CLRMETA_OK)
            continue;
        char type[512] = "?";
        if (types && lv.index < types->count)
            clrsig_format_type(types->list[lv.index], &s->fopts, &s->resolver, type, sizeof type,
                               NULL, NULL);
        printf("%s %s %s (slot %u)", i ? "," : "", type, lv.name, lv.index);
    }
    uint32_t shown = n < LOCALS_SHOWN ? n : LOCALS_SHOWN;
    shown += print_hoisted(s, pdb, rid, il, shown);
    printf(shown ? "\n" : " none\n");
}

static int print_at(sigs *s, const clrmeta_pdb *pdb, const char *at, const char *file,
                    uint32_t line, const char *path, int locals)
{
    clrmeta_line_match m;
    clrmeta_error err;
    char n1[CLRMETA_MAX_DOCUMENT_NAME], n2[CLRMETA_MAX_DOCUMENT_NAME];
    if (clrmeta_pdb_find_line(pdb, file, line, &m, &err) != CLRMETA_OK) {
        char msg[CLRMETA_MAX_MESSAGE];
        clrmeta_describe(&err, msg, sizeof msg);
        fprintf(stderr, "clrtrace sigs: %s: its PDB: %s\n", path, msg);
        return 1;
    }
    switch (m.result) {
    case CLRMETA_LINE_NO_FILE:
        fprintf(stderr, "clrtrace sigs: --at %s: no source file of %s is %s\n", at, path, file);
        return 1;
    case CLRMETA_LINE_AMBIGUOUS:
        clrmeta_pdb_document_name(pdb, m.document, n1, sizeof n1, NULL, NULL);
        clrmeta_pdb_document_name(pdb, m.other, n2, sizeof n2, NULL, NULL);
        fprintf(stderr, "clrtrace sigs: --at %s: %s names more than one source file (%s, %s): "
                        "give more of its path\n", at, file, n1, n2);
        return 1;
    case CLRMETA_LINE_NO_CODE:
        fprintf(stderr, "clrtrace sigs: --at %s: line %u is in no method", at, line);
        if (m.before && m.after)
            fprintf(stderr, " (the nearest code: lines %u and %u)", m.before, m.after);
        else if (m.before || m.after)
            fprintf(stderr, " (the nearest code: line %u)", m.before ? m.before : m.after);
        fprintf(stderr, "\n");
        return 1;
    case CLRMETA_LINE_FOUND:
        break;
    }
    char *d = s->out.oom ? NULL : out_reserve(&s->out, strlen(at) + strlen(file) + 48);
    if (d)
        out_commit(&s->out, (size_t)sprintf(d, "%s -> %s:%u IL_%04X ", at, file, m.line,
                                            m.il_offset));
    const clrmeta_pdb *keep = s->pdb;
    s->pdb = NULL; /* the signature alone */
    print_method(s, m.method_rid);
    s->pdb = keep;
    out_flush(&s->out, stdout);
    if (locals)
        print_locals(s, pdb, m.method_rid, m.il_offset);
    return s->out.oom || s->failures ? 1 : 0;
}

/* "# source link: {...}" on one line (line breaks as spaces), or that there
 * is none. */
static void print_source_link(const clrmeta_pdb *pdb)
{
    clrmeta_blob b;
    int found = 0;
    if (clrmeta_pdb_custom_debug(pdb, CLRMETA_TOKEN(CLRMETA_T_MODULE, 1), clrmeta_kind_source_link(),
                                 &b, &found, NULL) != CLRMETA_OK || !found) {
        printf("# source link: none\n");
        return;
    }
    printf("# source link: ");
    for (uint32_t i = 0; i < b.len; i++) {
        int c = b.p[i];
        putchar(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
    }
    putchar('\n');
}

/* ------------------------------------------------------------------- main */

int cmd_sigs(int argc, char **argv)
{
    const char *path = NULL;
    int csharp = 1, members = 0, tokens = 0, lines = 0, source_link = 0;
    const char *at = NULL;
    int locals = 0;
    const char *filter = NULL;
    const unsigned char *inline_val = NULL;
    if (cli_args_read("sigs", &argc, &argv, &inline_val) != 0)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_arg_unwanted("sigs", argv, inline_val, i))
            return 2;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            const char *f = argv[++i];
            if (!strcmp(f, "csharp"))
                csharp = 1;
            else if (!strcmp(f, "ildasm"))
                csharp = 0;
            else {
                fprintf(stderr, "clrtrace sigs: unknown format '%s' (csharp or ildasm)\n", f);
                return 2;
            }
        } else if (!strcmp(a, "--filter") && i + 1 < argc) {
            filter = argv[++i];
        } else if (!strcmp(a, "--members")) {
            members = 1;
        } else if (!strcmp(a, "--tokens")) {
            tokens = 1;
        } else if (!strcmp(a, "--lines")) {
            lines = 1;
        } else if (!strcmp(a, "--source-link")) {
            source_link = 1;
        } else if (!strcmp(a, "--at") && i + 1 < argc) {
            at = argv[++i];
        } else if (!strcmp(a, "--locals")) {
            locals = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "clrtrace sigs: unknown option '%s' (try --help)\n", a);
            return 2;
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "clrtrace sigs: one assembly at a time ('%s')\n", a);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    if (source_link && !lines) {
        fprintf(stderr, "clrtrace sigs: --source-link goes with --lines\n");
        return 2;
    }
    if (locals && !at) {
        fprintf(stderr, "clrtrace sigs: --locals goes with --at FILE:LINE\n");
        return 2;
    }
    char at_file[CT_AT_MAX_FILE];
    uint32_t at_line = 0;
    if (at && ct_at_parse(at, at_file, sizeof at_file, &at_line) != 0) {
        fprintf(stderr, "clrtrace sigs: --at takes FILE:LINE (Orders.cs:42), not '%s'\n", at);
        return 2;
    }
    clrmeta_pdb_file *pdb = NULL;
    if (lines || at) {
        clrmeta_error pe;
        char where[1024];
        if (clrmeta_pdb_load(path, NULL, &pdb, where, sizeof where, &pe) != CLRMETA_OK) {
            char msg[CLRMETA_MAX_MESSAGE];
            clrmeta_describe(&pe, msg, sizeof msg);
            fprintf(stderr, "clrtrace sigs: %s: %s (%s needs the assembly's Portable PDB)\n",
                    where, msg, at ? "--at" : "--lines");
            return 1;
        }
    }

    file_bytes fb;
    char why[CLRMETA_MAX_MESSAGE + 64];
    if (load(path, &fb, why, sizeof why) != 0) {
        fprintf(stderr, "clrtrace sigs: %s: %s\n", path, why);
        return 1;
    }
    clrmeta md;
    clrmeta_error me;
    void *index = NULL;
    sigs *s = NULL;
    int rc = 1;
    if (clrmeta_open(fb.p, fb.len, &md, &me) != CLRMETA_OK) {
        clrmeta_describe(&me, why, sizeof why);
        fprintf(stderr, "clrtrace sigs: %s: %s\n", path, why);
        goto done;
    }
    size_t isize = clrmeta_index_size(&md);
    index = malloc(isize);
    if (!index || clrmeta_build_index(&md, index, isize, &me) != CLRMETA_OK) {
        fprintf(stderr, "clrtrace sigs: %s: out of memory for the metadata index\n", path);
        goto done;
    }
    if (!(s = sigs_new(&md, csharp, tokens, filter))) {
        fprintf(stderr, "clrtrace sigs: out of memory\n");
        goto done;
    }
    if (pdb) {
        char root[CLRMETA_MAX_DOCUMENT_NAME];
        s->pdb = &pdb->pdb;
        clrmeta_pdb_source_root(s->pdb, root, sizeof root, &s->root_len, NULL);
        if (source_link)
            print_source_link(s->pdb);
    }
    if (at) {
        rc = print_at(s, &pdb->pdb, at, at_file, at_line, path, locals);
        goto done;
    }
    uint32_t nmethods = clrmeta_rows(&md, CLRMETA_T_METHODDEF), total = nmethods;
    for (uint32_t rid = 1; rid <= nmethods; rid++)
        print_method(s, rid);
    if (members) {
        uint32_t nrefs = clrmeta_rows(&md, CLRMETA_T_MEMBERREF);
        for (uint32_t rid = 1; rid <= nrefs; rid++)
            print_memberref(s, rid);
        total += nrefs;
    }
    out_flush(&s->out, stdout);
    fflush(stdout);
    if (s->out.oom) {
        fprintf(stderr, "clrtrace sigs: %s: out of memory\n", path);
    } else if (s->failures) {
        fprintf(stderr, "clrtrace sigs: %s: %lu of %u signatures could not be decoded\n", path,
                s->failures, (unsigned)total);
    } else {
        rc = 0;
    }
done:
    sigs_free(s);
    free(index);
    unload(&fb);
    clrmeta_pdb_free(pdb);
    return rc;
}
