/* libclrmeta against real and synthetic assemblies.
 *
 * Real files: System.Private.CoreLib.dll (argv[1], else $CLRTRACE_CORELIB)
 * and two neighbours in its directory (System.Runtime.dll, System.Linq.dll).
 * Their layout facts (row counts, row sizes, table offsets, heap sizes) were
 * taken with System.Reflection.Metadata (tests/meta/srm: `srmsigs facts`) and
 * are checked when the file's MVID matches; names and formatted lines that do
 * not change between runtime builds are checked always. Without a CoreLib
 * path those tests are skipped.
 *
 * Synthetic files (tests/meta/meta_build.h) cover what real files do not:
 * the uncompressed #- stream with pointer tables, wide heaps, the 0x40 extra
 * data, PE32, #JTD, nesting and scope cycles, each limit at its value and one
 * past, and one corruption per header field. Every malformed input must give
 * an error value with an offset, never a crash: tests/meta/meta_walk.h then
 * reads whatever opened and checks that nothing handed out lies outside the
 * file. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clrmeta/clrmeta.h"
#include "clrsig/clrsig.h"
#include "../meta/meta_build.h"
#include "../meta/meta_walk.h"

/* ------------------------------------------------------------ facts (SRM) */

typedef struct facts {
    const char *file, *mvid, *module, *assembly;
    uint16_t version[4];
    int pe32plus;
    uint32_t metadata_offset, metadata_size;
    const char *md_version;
    uint32_t strings, blob, guid, us;
    uint32_t nested_types, generic_methods;
    uint32_t rows[CLRMETA_TABLE_COUNT], row_size[CLRMETA_TABLE_COUNT];
    uint32_t table_offset[CLRMETA_TABLE_COUNT]; /* from the metadata root */
} facts;

/* `srmsigs facts` on the .NET 10.0.12 shared framework (linux-x64). */
static const facts known[] = {
#include "../meta/facts-10.0.12.inc"
};

/* ------------------------------------------------------------- helpers */

static const char *corelib_path;
static char fw_dir[4096];

typedef struct file {
    uint8_t *p;
    size_t len;
} file;

static int read_file(const char *path, file *f)
{
    FILE *fp = fopen(path, "rb");
    f->p = NULL;
    f->len = 0;
    if (!fp)
        return -1;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    f->p = malloc(n > 0 ? (size_t)n : 1);
    if (!f->p || n < 0 || fread(f->p, 1, (size_t)n, fp) != (size_t)n) {
        fclose(fp);
        free(f->p);
        f->p = NULL;
        return -1;
    }
    fclose(fp);
    f->len = (size_t)n;
    return 0;
}

/* A file of the shared framework next to CoreLib; skips the test without one. */
static file framework_file(const char *name)
{
    file f = { NULL, 0 };
    if (!corelib_path)
        skip();
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", fw_dir, name);
    if (read_file(path, &f) != 0) {
        print_message("cannot read %s\n", path);
        fail();
    }
    return f;
}

/* An opened and indexed assembly. */
typedef struct opened {
    file f;
    clrmeta md;
    void *index;
    clrsig_resolver r;
    clrmeta_sig_context ctx;
} opened;

static void open_bytes(opened *o, const uint8_t *p, size_t len)
{
    clrmeta_error e;
    assert_int_equal(clrmeta_open(p, len, &o->md, &e), CLRMETA_OK);
    size_t n = clrmeta_index_size(&o->md);
    o->index = malloc(n);
    assert_non_null(o->index);
    assert_int_equal(clrmeta_build_index(&o->md, o->index, n, &e), CLRMETA_OK);
    assert_int_equal(clrmeta_resolver_init(&o->r, &o->ctx, &o->md, &e), CLRMETA_OK);
}

static void open_framework(opened *o, const char *name)
{
    o->f = framework_file(name);
    open_bytes(o, o->f.p, o->f.len);
}

static void close_opened(opened *o)
{
    free(o->index);
    free(o->f.p);
}

static const facts *facts_for(const clrmeta *md, const char *file_name)
{
    clrmeta_module_row m;
    if (clrmeta_module(md, 1, &m, NULL) != CLRMETA_OK || !m.mvid)
        return NULL;
    /* SRM prints the GUID in its usual mixed-endian text form */
    char text[40];
    const uint8_t *g = m.mvid;
    snprintf(text, sizeof text,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3], g[2],
             g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14],
             g[15]);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i].file, file_name) && !strcmp(known[i].mvid, text))
            return &known[i];
    print_message("note: no SRM facts for %s MVID %s; build-specific checks skipped\n", file_name,
                  text);
    return NULL;
}

/* The TypeDef rid of Namespace.Name (enclosing 0) or of a nested type named
 * `name` inside `outer`; 0 when absent. */
static uint32_t find_type(const clrmeta *md, const char *ns, const char *name, uint32_t outer)
{
    uint32_t n = clrmeta_rows(md, CLRMETA_T_TYPEDEF);
    for (uint32_t rid = 1; rid <= n; rid++) {
        const char *tns, *tname;
        uint32_t enc;
        if (clrmeta_type_name(md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, rid), &tns, &tname, &enc, NULL) !=
            CLRMETA_OK)
            continue;
        if (strcmp(tname, name) != 0)
            continue;
        if (outer ? enc == CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, outer) : (!enc && !strcmp(tns, ns)))
            return rid;
    }
    return 0;
}

/* The line `clrtrace sigs` prints for MethodDef rid (docs/libclrmeta.md). */
static void method_line(opened *o, uint32_t rid, clrsig_style style, char *out, size_t cap)
{
    static uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED], smem[CLRSIG_ARENA_SIZE_RECOMMENDED];
    clrsig_arena arena, scratch;
    clrsig_arena_init(&arena, mem, sizeof mem);
    clrsig_arena_init(&scratch, smem, sizeof smem);
    clrsig_format_opts fo = { .style = style, .scratch = &scratch };
    clrmeta_methoddef_row m;
    assert_int_equal(clrmeta_methoddef(&o->md, rid, &m, NULL), CLRMETA_OK);
    uint32_t owner = 0;
    assert_int_equal(clrmeta_method_owner(&o->md, rid, &owner, NULL), CLRMETA_OK);
    char owner_text[1024] = "";
    if (owner) {
        assert_int_equal(clrsig_format_token(CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, owner), &fo, &o->r,
                                             owner_text, sizeof owner_text, NULL, NULL),
                         CLRSIG_OK);
        clrmeta_list gps;
        assert_int_equal(clrmeta_generic_params(&o->md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, owner),
                                                &gps, NULL),
                         CLRMETA_OK);
        if (style == CLRSIG_STYLE_CSHARP && gps.count) {
            strcat(owner_text, "<");
            for (uint32_t i = 0; i < gps.count; i++) {
                clrmeta_genericparam_row g;
                assert_int_equal(clrmeta_genericparam(&o->md, clrmeta_list_rid(&o->md, &gps, i),
                                                      &g, NULL),
                                 CLRMETA_OK);
                if (i)
                    strcat(owner_text, ", ");
                strcat(owner_text, g.name);
            }
            strcat(owner_text, ">");
        }
    }
    clrsig_sig sig;
    assert_int_equal(clrsig_parse(m.sig.p, m.sig.len, CLRSIG_KIND_METHOD, NULL, &arena, &sig, NULL),
                     CLRSIG_OK);
    static const char *pnames[CLRSIG_MAX_PARAMS], *gnames[CLRSIG_MAX_GENERIC_ARGS];
    static uint16_t pflags[CLRSIG_MAX_PARAMS];
    uint32_t np = sig.method.param_count;
    memset(pnames, 0, np * sizeof pnames[0]);
    memset(pflags, 0, np * sizeof pflags[0]);
    clrmeta_list ps;
    assert_int_equal(clrmeta_method_params(&o->md, rid, &ps, NULL), CLRMETA_OK);
    for (uint32_t i = 0; i < ps.count; i++) {
        clrmeta_param_row p;
        assert_int_equal(clrmeta_param(&o->md, clrmeta_list_rid(&o->md, &ps, i), &p, NULL),
                         CLRMETA_OK);
        if (p.sequence >= 1 && p.sequence <= np && !pnames[p.sequence - 1]) {
            pnames[p.sequence - 1] = p.name;
            pflags[p.sequence - 1] = p.flags;
        }
    }
    int have_gnames = 0;
    if (sig.method.generic_count) {
        uint32_t gc = sig.method.generic_count;
        memset(gnames, 0, gc * sizeof gnames[0]);
        clrmeta_list gps;
        assert_int_equal(clrmeta_generic_params(&o->md, CLRMETA_TOKEN(CLRMETA_T_METHODDEF, rid),
                                                &gps, NULL),
                         CLRMETA_OK);
        for (uint32_t i = 0; i < gps.count; i++) {
            clrmeta_genericparam_row g;
            assert_int_equal(clrmeta_genericparam(&o->md, clrmeta_list_rid(&o->md, &gps, i), &g,
                                                  NULL),
                             CLRMETA_OK);
            if (g.number < gc && !gnames[g.number])
                gnames[g.number] = g.name;
        }
        have_gnames = 1;
        for (uint32_t i = 0; i < gc; i++)
            have_gnames &= gnames[i] != NULL;
    }
    clrsig_method_names names = { owner_text, m.name, have_gnames ? gnames : NULL, pnames, pflags };
    o->ctx.type_rid = owner;
    o->ctx.method_rid = rid;
    assert_int_equal(clrsig_format_method(&sig.method, &names, &fo, &o->r, out, cap, NULL, NULL),
                     CLRSIG_OK);
}

/* The first method of TypeDef type_rid named `name` with `nparams` Param
 * rows of sequence >= 1 whose first parameter is named `first` (NULL: any). */
static uint32_t find_method(opened *o, uint32_t type_rid, const char *name, int nparams,
                            const char *first)
{
    clrmeta_list l;
    assert_int_equal(clrmeta_type_methods(&o->md, type_rid, &l, NULL), CLRMETA_OK);
    for (uint32_t i = 0; i < l.count; i++) {
        uint32_t rid = clrmeta_list_rid(&o->md, &l, i);
        clrmeta_methoddef_row m;
        if (clrmeta_methoddef(&o->md, rid, &m, NULL) != CLRMETA_OK || strcmp(m.name, name))
            continue;
        clrmeta_list ps;
        assert_int_equal(clrmeta_method_params(&o->md, rid, &ps, NULL), CLRMETA_OK);
        int n = 0, match = first == NULL;
        for (uint32_t k = 0; k < ps.count; k++) {
            clrmeta_param_row p;
            if (clrmeta_param(&o->md, clrmeta_list_rid(&o->md, &ps, k), &p, NULL) != CLRMETA_OK ||
                p.sequence == 0)
                continue;
            n++;
            if (p.sequence == 1 && first && !strcmp(p.name, first))
                match = 1;
        }
        if (n == nparams && match)
            return rid;
    }
    return 0;
}

static void expect_line(opened *o, uint32_t rid, const char *csharp, const char *ildasm)
{
    char text[4096];
    assert_true(rid != 0);
    method_line(o, rid, CLRSIG_STYLE_CSHARP, text, sizeof text);
    assert_string_equal(text, csharp);
    method_line(o, rid, CLRSIG_STYLE_ILDASM, text, sizeof text);
    assert_string_equal(text, ildasm);
}

static void assert_walk_clean(const uint8_t *p, size_t len, uint32_t limit)
{
    meta_walk_result r = meta_walk(p, len, limit);
    if (r.violation)
        print_message("invariant broken: %s (len %zu)\n", r.violation, len);
    assert_null(r.violation);
}

/* ------------------------------------------------------- CoreLib (real) */

static void test_corelib_facts(void **state)
{
    (void)state;
    opened o;
    open_framework(&o, "System.Private.CoreLib.dll");
    clrmeta_module_row mod;
    assert_int_equal(clrmeta_module(&o.md, 1, &mod, NULL), CLRMETA_OK);
    assert_string_equal(mod.name, "System.Private.CoreLib.dll");
    assert_non_null(mod.mvid);
    clrmeta_assembly_row asm_row;
    assert_int_equal(clrmeta_assembly(&o.md, 1, &asm_row, NULL), CLRMETA_OK);
    assert_string_equal(asm_row.name, "System.Private.CoreLib");
    assert_string_equal(asm_row.culture, "");
    assert_true(asm_row.public_key.len > 0);
    assert_int_equal(o.md.pe32plus, 1);
    assert_int_equal(clrmeta_rows(&o.md, CLRMETA_T_ASSEMBLYREF), 0); /* CoreLib refers to nothing */
    assert_true(o.md.version_len >= 2 && o.md.version[0] == 'v');

    const facts *k = facts_for(&o.md, "System.Private.CoreLib.dll");
    if (k) {
        assert_int_equal(o.md.metadata_offset, k->metadata_offset);
        assert_int_equal(o.md.metadata_size, k->metadata_size);
        assert_int_equal(o.md.version_len, strlen(k->md_version));
        assert_memory_equal(o.md.version, k->md_version, o.md.version_len);
        /* SRM trims the zero padding after the last string; the stream keeps it */
        assert_true(o.md.strings.size >= k->strings && o.md.strings.size < k->strings + 4);
        assert_int_equal(o.md.blob.size, k->blob);
        assert_int_equal(o.md.guid.size, k->guid);
        assert_int_equal(o.md.us.size, k->us);
        for (unsigned t = 0; t < CLRMETA_TABLE_COUNT; t++) {
            assert_int_equal(o.md.tables[t].rows, k->rows[t]);
            if (k->rows[t]) {
                assert_int_equal(o.md.tables[t].row_size, k->row_size[t]);
                assert_int_equal(o.md.tables[t].offset - o.md.metadata_offset, k->table_offset[t]);
            }
        }
        assert_int_equal(asm_row.major, k->version[0]);
        assert_int_equal(asm_row.minor, k->version[1]);
    }

    /* nested types and generic methods, counted through the index */
    uint32_t nested = 0, generic = 0;
    for (uint32_t rid = 1; rid <= clrmeta_rows(&o.md, CLRMETA_T_TYPEDEF); rid++) {
        uint32_t enc;
        assert_int_equal(clrmeta_enclosing(&o.md, rid, &enc, NULL), CLRMETA_OK);
        nested += enc != 0;
    }
    for (uint32_t rid = 1; rid <= clrmeta_rows(&o.md, CLRMETA_T_METHODDEF); rid++) {
        clrmeta_list gps;
        assert_int_equal(clrmeta_generic_params(&o.md, CLRMETA_TOKEN(CLRMETA_T_METHODDEF, rid),
                                                &gps, NULL),
                         CLRMETA_OK);
        generic += gps.count > 0;
    }
    assert_int_equal(nested, clrmeta_rows(&o.md, CLRMETA_T_NESTEDCLASS));
    if (k) {
        assert_int_equal(nested, k->nested_types);
        assert_int_equal(generic, k->generic_methods);
    }
    close_opened(&o);
}

static void test_corelib_names(void **state)
{
    (void)state;
    opened o;
    open_framework(&o, "System.Private.CoreLib.dll");
    uint32_t string = find_type(&o.md, "System", "String", 0);
    assert_true(string != 0);
    expect_line(&o, find_method(&o, string, "Concat", 2, "str0"),
                "static string System.String.Concat(string str0, string str1)",
                "string System.String::Concat(string str0, string str1)");

    uint32_t list = find_type(&o.md, "System.Collections.Generic", "List`1", 0);
    assert_true(list != 0);
    uint32_t en = find_type(&o.md, "", "Enumerator", list);
    assert_true(en != 0);
    uint32_t enc = 0;
    assert_int_equal(clrmeta_enclosing(&o.md, en, &enc, NULL), CLRMETA_OK);
    assert_int_equal(enc, list);
    const char *t_name;
    assert_int_equal(clrmeta_generic_param_name(&o.md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, en), 0,
                                                &t_name, NULL),
                     CLRMETA_OK);
    assert_string_equal(t_name, "T");
    expect_line(&o, find_method(&o, en, "MoveNext", 0, NULL),
                "bool System.Collections.Generic.List.Enumerator<T>.MoveNext()",
                "instance bool System.Collections.Generic.List`1/Enumerator::MoveNext()");
    expect_line(&o, find_method(&o, list, "GetEnumerator", 0, NULL),
                "System.Collections.Generic.List.Enumerator<T> System.Collections.Generic.List<T>"
                ".GetEnumerator()",
                "instance valuetype System.Collections.Generic.List`1/Enumerator<!T> "
                "System.Collections.Generic.List`1::GetEnumerator()");
    /* every method of the nested type is owned by it */
    clrmeta_list l;
    assert_int_equal(clrmeta_type_methods(&o.md, en, &l, NULL), CLRMETA_OK);
    assert_true(l.count >= 4);
    for (uint32_t i = 0; i < l.count; i++) {
        uint32_t owner;
        assert_int_equal(clrmeta_method_owner(&o.md, clrmeta_list_rid(&o.md, &l, i), &owner, NULL),
                         CLRMETA_OK);
        assert_int_equal(owner, en);
    }

    uint32_t dict = find_type(&o.md, "System.Collections.Generic", "Dictionary`2", 0);
    expect_line(&o, find_method(&o, dict, "TryGetValue", 2, "key"),
                "bool System.Collections.Generic.Dictionary<TKey, TValue>.TryGetValue(TKey key, "
                "out TValue value)",
                "instance bool System.Collections.Generic.Dictionary`2::TryGetValue(!TKey key, "
                "[out] !TValue& value)");
    uint32_t array = find_type(&o.md, "System", "Array", 0);
    expect_line(&o, find_method(&o, array, "Empty", 0, NULL), "static T[] System.Array.Empty<T>()",
                "!!T[] System.Array::Empty<T>()");
    uint32_t dec = find_type(&o.md, "", "DecCalc", find_type(&o.md, "System", "Decimal", 0));
    expect_line(&o, find_method(&o, dec, "VarDecCmp", 2, "d1"),
                "static int System.Decimal.DecCalc.VarDecCmp(in System.Decimal d1, "
                "in System.Decimal d2)",
                "int32 System.Decimal/DecCalc::VarDecCmp([in] valuetype System.Decimal& d1, "
                "[in] valuetype System.Decimal& d2)");
    close_opened(&o);
}

/* Every MethodDef signature of CoreLib decodes and formats through the resolver. */
static void test_corelib_all_methods(void **state)
{
    (void)state;
    opened o;
    open_framework(&o, "System.Private.CoreLib.dll");
    uint32_t n = clrmeta_rows(&o.md, CLRMETA_T_METHODDEF), ok = 0;
    static char text[8192];
    for (uint32_t rid = 1; rid <= n; rid++) {
        method_line(&o, rid, rid % 2 ? CLRSIG_STYLE_CSHARP : CLRSIG_STYLE_ILDASM, text,
                    sizeof text);
        ok += text[0] != '\0' && !strstr(text, "<0x");
    }
    assert_int_equal(ok, n);
    print_message("CoreLib: %u of %u MethodDef signatures decoded\n", ok, n);
    assert_walk_clean(o.f.p, o.f.len, UINT32_MAX);
    close_opened(&o);
}

/* TypeRefs scoped by AssemblyRefs, as ILDasm shows them. */
static void test_framework_typerefs(void **state)
{
    (void)state;
    opened o;
    open_framework(&o, "System.Linq.dll");
    uint32_t n = clrmeta_rows(&o.md, CLRMETA_T_TYPEREF), object = 0;
    assert_true(n > 0);
    for (uint32_t rid = 1; rid <= n; rid++) {
        clrmeta_typeref_row tr;
        assert_int_equal(clrmeta_typeref(&o.md, rid, &tr, NULL), CLRMETA_OK);
        if (!strcmp(tr.ns, "System") && !strcmp(tr.name, "Object"))
            object = rid;
    }
    assert_true(object != 0);
    uint32_t scope;
    assert_int_equal(clrmeta_typeref_root_scope(&o.md, object, &scope, NULL), CLRMETA_OK);
    assert_int_equal(CLRMETA_TOKEN_TABLE(scope), CLRMETA_T_ASSEMBLYREF);
    clrmeta_assemblyref_row ar;
    assert_int_equal(clrmeta_assemblyref(&o.md, CLRMETA_TOKEN_RID(scope), &ar, NULL), CLRMETA_OK);
    assert_string_equal(ar.name, "System.Runtime");
    char text[256];
    clrsig_format_opts il = { .style = CLRSIG_STYLE_ILDASM };
    assert_int_equal(clrsig_format_token(CLRMETA_TOKEN(CLRMETA_T_TYPEREF, object), &il, &o.r, text,
                                         sizeof text, NULL, NULL),
                     CLRSIG_OK);
    assert_string_equal(text, "[System.Runtime]System.Object");

    uint32_t enumerable = find_type(&o.md, "System.Linq", "Enumerable", 0);
    expect_line(&o, find_method(&o, enumerable, "Select", 2, "source"),
                "static System.Collections.Generic.IEnumerable<TResult> "
                "System.Linq.Enumerable.Select<TSource, TResult>(System.Collections.Generic."
                "IEnumerable<TSource> source, System.Func<TSource, TResult> selector)",
                "class [System.Runtime]System.Collections.Generic.IEnumerable`1<!!TResult> "
                "System.Linq.Enumerable::Select<TSource, TResult>(class [System.Runtime]System."
                "Collections.Generic.IEnumerable`1<!!TSource> source, class [System.Runtime]"
                "System.Func`2<!!TSource, !!TResult> selector)");

    const facts *k = facts_for(&o.md, "System.Linq.dll");
    if (k)
        for (unsigned t = 0; t < CLRMETA_TABLE_COUNT; t++) {
            assert_int_equal(o.md.tables[t].rows, k->rows[t]);
            if (k->rows[t]) {
                assert_int_equal(o.md.tables[t].row_size, k->row_size[t]);
                assert_int_equal(o.md.tables[t].offset - o.md.metadata_offset, k->table_offset[t]);
            }
        }
    assert_walk_clean(o.f.p, o.f.len, UINT32_MAX);
    close_opened(&o);
}

/* Cut a real assembly short at every offset (a small one) or at a spread of
 * offsets (CoreLib): an error value every time the headers or tables are
 * cut, and never a crash. */
static void test_truncation(void **state)
{
    (void)state;
    file f = framework_file("System.Runtime.dll");
    clrmeta md;
    clrmeta_error e;
    assert_int_equal(clrmeta_open(f.p, f.len, &md, &e), CLRMETA_OK);
    size_t md_end = md.metadata_offset + md.metadata_size;
    for (size_t n = 0; n < f.len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees every overread */
        memcpy(copy, f.p, n);
        clrmeta_status st = clrmeta_open(copy, n, &md, &e);
        if (n < md_end)
            assert_int_not_equal(st, CLRMETA_OK);
        if (st != CLRMETA_OK)
            assert_true(e.offset <= n);
        if (n % 97 == 0 || n + 64 > md_end)
            assert_walk_clean(copy, n, 64);
        free(copy);
    }
    free(f.p);

    f = framework_file("System.Private.CoreLib.dll");
    assert_int_equal(clrmeta_open(f.p, f.len, &md, &e), CLRMETA_OK);
    md_end = md.metadata_offset + md.metadata_size;
    size_t cuts[512], ncuts = 0;
    for (size_t n = 0; n < 0x400; n += 7)
        cuts[ncuts++] = n;
    for (size_t n = md.metadata_offset; n < md.metadata_offset + 0x200; n += 5)
        cuts[ncuts++] = n;
    for (size_t n = 1; ncuts < sizeof cuts / sizeof cuts[0] - 1; n++)
        cuts[ncuts++] = n * (f.len / 300);
    cuts[ncuts++] = md_end - 1;
    for (size_t i = 0; i < ncuts; i++) {
        size_t n = cuts[i] < f.len ? cuts[i] : f.len - 1;
        clrmeta_status st = clrmeta_open(f.p, n, &md, &e);
        if (n < md_end)
            assert_int_not_equal(st, CLRMETA_OK);
        else
            assert_walk_clean(f.p, n, 16);
    }
    free(f.p);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Header fields of CoreLib set to hostile values, one at a time. */
static void test_corelib_corruptions(void **state)
{
    (void)state;
    file f = framework_file("System.Private.CoreLib.dll");
    uint8_t *c = malloc(f.len);
    clrmeta md;
    clrmeta_error e;
    assert_int_equal(clrmeta_open(f.p, f.len, &md, &e), CLRMETA_OK);
    const uint32_t root = md.metadata_offset, tables = md.tables_stream.offset;
    const uint32_t msize = md.metadata_size;
    const uint32_t streams = root + 16 + le32(f.p + root + 12) + 4;

#define CORRUPT(stmt, status)                                          \
    do {                                                               \
        memcpy(c, f.p, f.len);                                         \
        stmt;                                                          \
        assert_int_equal(clrmeta_open(c, f.len, &md, &e), (status));   \
        assert_walk_clean(c, f.len, 32);                               \
    } while (0)

    CORRUPT(put32(c + 0x3C, (uint32_t)f.len - 2), CLRMETA_E_BAD_PE);
    assert_int_equal(e.offset, 0x3C);
    CORRUPT(put32(c + 0x3C, 0xFFFFFFF0u), CLRMETA_E_BAD_PE);
    CORRUPT(c[0] = 'X', CLRMETA_E_NOT_PE);
    CORRUPT(c[root] = 'X', CLRMETA_E_BAD_METADATA);
    assert_int_equal(e.offset, root);
    CORRUPT(put32(c + root + 12, 0x7FFFFFF0u), CLRMETA_E_BAD_METADATA);
    /* first stream header's offset and size past the metadata */
    CORRUPT(put32(c + streams, msize), CLRMETA_E_BAD_STREAM);
    assert_int_equal(e.offset, streams);
    CORRUPT(put32(c + streams + 4, 0xFFFFFFF0u), CLRMETA_E_BAD_STREAM);
    /* huge row counts: over the rid limit, and too many to fit */
    CORRUPT(put32(c + tables + 24, 0x01000000u), CLRMETA_E_BAD_TABLES);
    assert_int_equal(e.offset, tables + 24);
    CORRUPT(put32(c + tables + 24, 0x00FFFFFFu), CLRMETA_E_BAD_TABLES);
    CORRUPT(put32(c + tables + 24 + 4 * 3, 0x00100000u), CLRMETA_E_BAD_TABLES);
    /* an unknown table in Valid */
    CORRUPT(c[tables + 8 + 6] |= 0x80, CLRMETA_E_BAD_TABLES);
    /* heap sizes 0x40: an extra u32 that is not there shifts every table by 4 bytes;
     * CoreLib's table stream has slack, so this opens: what matters is no crash */
    memcpy(c, f.p, f.len);
    c[tables + 6] |= 0x40;
    (void)clrmeta_open(c, f.len, &md, &e);
    assert_walk_clean(c, f.len, 64);
    /* heap-size flags flipped: rows change size; garbage, but no crash */
    memcpy(c, f.p, f.len);
    c[tables + 6] ^= 0x07;
    (void)clrmeta_open(c, f.len, &md, &e);
    assert_walk_clean(c, f.len, 64);
#undef CORRUPT
    free(c);
    free(f.p);
}

/* Every assembly of the shared framework, walked (invariants only). */
static void test_framework_walk(void **state)
{
    (void)state;
    if (!corelib_path)
        skip();
    static const char *const names[] = {
        "System.Runtime.dll", "System.Linq.dll", "System.Collections.dll",
        "System.Private.Xml.dll", "System.Text.Json.dll", "Microsoft.CSharp.dll",
        "System.Linq.Expressions.dll", "System.Net.Http.dll",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        file f = framework_file(names[i]);
        meta_walk_result r = meta_walk(f.p, f.len, 4096);
        assert_true(r.opened);
        assert_null(r.violation);
        assert_true(r.rows > 0);
        free(f.p);
    }
}

/* ----------------------------------------------------- synthetic files */

enum { T_MODULE = 0x00, T_TYPEREF = 0x01, T_TYPEDEF = 0x02, T_FIELD = 0x04, T_METHODPTR = 0x05,
       T_METHOD = 0x06, T_PARAMPTR = 0x07, T_PARAM = 0x08, T_MEMBERREF = 0x0A, T_CA = 0x0C,
       T_MODULEREF = 0x1A, T_TYPESPEC = 0x1B, T_ASSEMBLY = 0x20, T_ASSEMBLYREF = 0x23,
       T_NESTED = 0x29, T_GENERICPARAM = 0x2A };

/* Coded index values (tag in the low bits). */
#define RS_MODULE(r) ((uint32_t)(r) << 2 | 0)
#define RS_MODULEREF(r) ((uint32_t)(r) << 2 | 1)
#define RS_ASSEMBLYREF(r) ((uint32_t)(r) << 2 | 2)
#define RS_TYPEREF(r) ((uint32_t)(r) << 2 | 3)
#define TDOR_TYPEREF(r) ((uint32_t)(r) << 2 | 1)
#define TOMD_TYPE(r) ((uint32_t)(r) << 1 | 0)
#define TOMD_METHOD(r) ((uint32_t)(r) << 1 | 1)
#define MRP_TYPEREF(r) ((uint32_t)(r) << 3 | 1)
#define MRP_TYPESPEC(r) ((uint32_t)(r) << 3 | 4)

static mb B; /* large: static */

/* Demo assembly:
 *   TypeRef 1  [System.Runtime]System.Object
 *   TypeRef 2  [System.Runtime]Outer;  TypeRef 3  Outer/Inner (scope TypeRef 2)
 *   TypeRef 4  [.module native.so]Native
 *   TypeDef 1  <Module>
 *   TypeDef 2  Demo.Box`1<T> : Object
 *     Method 1  instance !T Get(int32 index)
 *     Method 2  static void Put<U>(!!U item, [out] int32& count)
 *     Method 3  instance void Take(class Outer/Inner inner, class Native n)
 *   TypeDef 3  Demo.Box`1/Item<T> (nested)
 *     Method 4  instance valuetype Demo.Box`1/Item<!T> Self()
 *   TypeSpec 1  Demo.Box`1/Item<!T>
 *   MemberRef 1  Box`1<int32>::Get via TypeSpec 2 */
static void build_demo(mb *b, uint8_t heap_sizes, int uncompressed, int pe32plus)
{
    mb_init(b);
    b->heap_sizes = heap_sizes;
    b->uncompressed = uncompressed;
    b->pe32plus = pe32plus;
    mb_row(b, T_MODULE, 0, mb_str(b, "Demo.dll"), mb_guid(b, 0xAB), 0, 0);
    mb_row(b, T_ASSEMBLY, 0x8004, 1, 2, 3, 4, 0, 0, mb_str(b, "Demo"), 0);
    static const uint8_t token[] = { 0xB0, 0x3F, 0x5F, 0x7F, 0x11, 0xD5, 0x0A, 0x3A };
    mb_row(b, T_ASSEMBLYREF, 10, 0, 0, 0, 0, mb_blob(b, token, 8), mb_str(b, "System.Runtime"), 0, 0);
    mb_row(b, T_MODULEREF, mb_str(b, "native.so"));
    mb_row(b, T_TYPEREF, RS_ASSEMBLYREF(1), mb_str(b, "Object"), mb_str(b, "System"));
    mb_row(b, T_TYPEREF, RS_ASSEMBLYREF(1), mb_str(b, "Outer"), 0);
    mb_row(b, T_TYPEREF, RS_TYPEREF(2), mb_str(b, "Inner"), 0);
    mb_row(b, T_TYPEREF, RS_MODULEREF(1), mb_str(b, "Native"), 0);
    mb_row(b, T_TYPEDEF, 0, mb_str(b, "<Module>"), 0, 0, 1, 1);
    uint32_t demo = mb_str(b, "Demo");
    mb_row(b, T_TYPEDEF, 0x100001, mb_str(b, "Box`1"), demo, TDOR_TYPEREF(1), 1, 1);
    mb_row(b, T_TYPEDEF, 0x100002, mb_str(b, "Item"), demo, TDOR_TYPEREF(1), 1, 4);
    static const uint8_t get[] = { 0x20, 1, 0x13, 0, 0x08 };              /* instance !0 (int32) */
    static const uint8_t put[] = { 0x10, 1, 2, 0x01, 0x1E, 0, 0x10, 0x08 }; /* <1> void (!!0, int32&) */
    static const uint8_t take[] = { 0x20, 2, 0x01, 0x12, 3 << 2 | 1, 0x12, 4 << 2 | 1 };
    static const uint8_t self[] = { 0x20, 0, 0x12, 1 << 2 | 2 };         /* class TypeSpec 1 */
    mb_row(b, T_METHOD, 0, 0, 0x0086, mb_str(b, "Get"), mb_blob(b, get, sizeof get), 1);
    mb_row(b, T_METHOD, 0, 0, 0x0096, mb_str(b, "Put"), mb_blob(b, put, sizeof put), 2);
    mb_row(b, T_METHOD, 0, 0, 0x0086, mb_str(b, "Take"), mb_blob(b, take, sizeof take), 4);
    mb_row(b, T_METHOD, 0, 0, 0x0086, mb_str(b, "Self"), mb_blob(b, self, sizeof self), 6);
    mb_row(b, T_PARAM, 0, 1, mb_str(b, "index"));
    mb_row(b, T_PARAM, 0, 1, mb_str(b, "item"));
    mb_row(b, T_PARAM, 2, 2, mb_str(b, "count"));
    mb_row(b, T_PARAM, 0, 2, mb_str(b, "n"));   /* out of order on purpose */
    mb_row(b, T_PARAM, 0, 1, mb_str(b, "inner"));
    mb_row(b, T_NESTED, 3, 2);
    uint32_t t = mb_str(b, "T");
    mb_row(b, T_GENERICPARAM, 0, 0, TOMD_TYPE(2), t);
    mb_row(b, T_GENERICPARAM, 0, 0, TOMD_TYPE(3), t);
    mb_row(b, T_GENERICPARAM, 0, 0, TOMD_METHOD(2), mb_str(b, "U"));
    static const uint8_t item_t[] = { 0x15, 0x11, 3 << 2 | 0, 1, 0x13, 0 };  /* Item<!0> */
    static const uint8_t box_i4[] = { 0x15, 0x12, 2 << 2 | 0, 1, 0x08 };     /* Box<int32> */
    mb_row(b, T_TYPESPEC, mb_blob(b, item_t, sizeof item_t));
    mb_row(b, T_TYPESPEC, mb_blob(b, box_i4, sizeof box_i4));
    mb_row(b, T_MEMBERREF, MRP_TYPESPEC(2), mb_str(b, "Get"), mb_blob(b, get, sizeof get));
}

static void open_synthetic(opened *o, mb *b)
{
    memset(o, 0, sizeof *o);
    mb_finish(b);
    open_bytes(o, b->out, b->len);
}

static void check_demo(opened *o)
{
    clrmeta_module_row mod;
    assert_int_equal(clrmeta_module(&o->md, 1, &mod, NULL), CLRMETA_OK);
    assert_string_equal(mod.name, "Demo.dll");
    assert_non_null(mod.mvid);
    assert_int_equal(mod.mvid[0], 0xAB);
    assert_null(mod.enc_id);
    clrmeta_assembly_row a;
    assert_int_equal(clrmeta_assembly(&o->md, 1, &a, NULL), CLRMETA_OK);
    assert_string_equal(a.name, "Demo");
    assert_int_equal(a.major, 1);
    assert_int_equal(a.revision, 4);
    clrmeta_assemblyref_row ar;
    assert_int_equal(clrmeta_assemblyref(&o->md, 1, &ar, NULL), CLRMETA_OK);
    assert_string_equal(ar.name, "System.Runtime");
    assert_int_equal(ar.public_key_or_token.len, 8);
    assert_int_equal(ar.public_key_or_token.p[0], 0xB0);

    clrmeta_typedef_row td;
    assert_int_equal(clrmeta_typedef(&o->md, 2, &td, NULL), CLRMETA_OK);
    assert_string_equal(td.name, "Box`1");
    assert_string_equal(td.ns, "Demo");
    assert_int_equal(td.extends, CLRMETA_TOKEN(CLRMETA_T_TYPEREF, 1));
    uint32_t owner, enc, scope;
    for (uint32_t m = 1; m <= 4; m++) {
        assert_int_equal(clrmeta_method_owner(&o->md, m, &owner, NULL), CLRMETA_OK);
        assert_int_equal(owner, m < 4 ? 2 : 3);
    }
    assert_int_equal(clrmeta_enclosing(&o->md, 3, &enc, NULL), CLRMETA_OK);
    assert_int_equal(enc, 2);
    assert_int_equal(clrmeta_enclosing(&o->md, 2, &enc, NULL), CLRMETA_OK);
    assert_int_equal(enc, 0);
    assert_int_equal(clrmeta_typeref_root_scope(&o->md, 3, &scope, NULL), CLRMETA_OK);
    assert_int_equal(scope, CLRMETA_TOKEN(CLRMETA_T_ASSEMBLYREF, 1));
    clrmeta_list l;
    assert_int_equal(clrmeta_type_methods(&o->md, 2, &l, NULL), CLRMETA_OK);
    assert_int_equal(l.count, 3);
    assert_int_equal(clrmeta_type_methods(&o->md, 3, &l, NULL), CLRMETA_OK);
    assert_int_equal(l.count, 1);
    assert_int_equal(clrmeta_list_rid(&o->md, &l, 0), 4);
    assert_int_equal(clrmeta_list_rid(&o->md, &l, 1), 0); /* past the end */

    char text[1024];
    expect_line(o, 1, "T Demo.Box<T>.Get(int index)", "instance !T Demo.Box`1::Get(int32 index)");
    expect_line(o, 2, "static void Demo.Box<T>.Put<U>(U item, out int count)",
                "void Demo.Box`1::Put<U>(!!U item, [out] int32& count)");
    expect_line(o, 3, "void Demo.Box<T>.Take(Outer.Inner inner, Native n)",
                "instance void Demo.Box`1::Take(class [System.Runtime]Outer/Inner inner, "
                "class [.module native.so]Native n)");
    expect_line(o, 4, "Demo.Box.Item<T> Demo.Box.Item<T>.Self()",
                "instance valuetype Demo.Box`1/Item<!T> Demo.Box`1/Item::Self()");
    /* a nested TypeRef in C#: no scope, joined with '.' */
    o->ctx.type_rid = 2;
    o->ctx.method_rid = 0;
    clrsig_format_opts cs = { .style = CLRSIG_STYLE_CSHARP };
    assert_int_equal(clrsig_format_token(CLRMETA_TOKEN(CLRMETA_T_TYPEREF, 3), &cs, &o->r, text,
                                         sizeof text, NULL, NULL),
                     CLRSIG_OK);
    assert_string_equal(text, "Outer.Inner");
}

static void test_synthetic_basic(void **state)
{
    (void)state;
    opened o;
    build_demo(&B, 0, 0, 0);
    open_synthetic(&o, &B);
    assert_int_equal(o.md.pe32plus, 0);
    assert_int_equal(o.md.uncompressed, 0);
    /* the library's layout equals the builder's own */
    for (unsigned t = 0; t < CLRMETA_TABLE_COUNT; t++)
        if (B.rows[t]) {
            assert_int_equal(o.md.tables[t].rows, B.rows[t]);
            assert_int_equal(o.md.tables[t].row_size, B.row_size[t]);
            assert_int_equal(o.md.tables[t].offset, B.off_table[t]);
        }
    check_demo(&o);
    assert_walk_clean(B.out, B.len, UINT32_MAX);
    free(o.index);
}

static void test_synthetic_pe32plus(void **state)
{
    (void)state;
    opened o;
    build_demo(&B, 0, 0, 1);
    open_synthetic(&o, &B);
    assert_int_equal(o.md.pe32plus, 1);
    assert_int_equal(o.md.machine, 0x8664);
    check_demo(&o);
    free(o.index);
}

/* 0x01 | 0x02 | 0x04: every heap index is 4 bytes; 0x40: one extra u32. */
static void test_wide_heaps_and_extra_data(void **state)
{
    (void)state;
    static const uint8_t flags[] = { 0x01, 0x02, 0x04, 0x07, 0x40, 0x47 };
    for (size_t i = 0; i < sizeof flags; i++) {
        opened o;
        build_demo(&B, flags[i], 0, 0);
        open_synthetic(&o, &B);
        assert_int_equal(o.md.string_width, flags[i] & 0x01 ? 4 : 2);
        assert_int_equal(o.md.guid_width, flags[i] & 0x02 ? 4 : 2);
        assert_int_equal(o.md.blob_width, flags[i] & 0x04 ? 4 : 2);
        assert_int_equal(o.md.tables[T_TYPEDEF].offset, B.off_table[T_TYPEDEF]);
        check_demo(&o);
        free(o.index);
    }
    /* the flag without the bytes: everything shifts; no crash, whatever opens */
    build_demo(&B, 0, 0, 0);
    mb_finish(&B);
    B.out[B.off_tables + 6] |= 0x40;
    assert_walk_clean(B.out, B.len, UINT32_MAX);
    /* and the bytes without the flag */
    build_demo(&B, 0x40, 0, 0);
    mb_finish(&B);
    B.out[B.off_tables + 6] &= (uint8_t)~0x40;
    assert_walk_clean(B.out, B.len, UINT32_MAX);
}

/* #- with MethodPtr and ParamPtr: lists go through the pointer tables, whose
 * order differs from the physical order. */
static void test_uncompressed_pointer_tables(void **state)
{
    (void)state;
    mb_init(&B);
    B.uncompressed = 1;
    mb_row(&B, T_MODULE, 0, mb_str(&B, "Ptr.dll"), 0, 0, 0);
    mb_row(&B, T_TYPEDEF, 0, mb_str(&B, "<Module>"), 0, 0, 1, 1);
    mb_row(&B, T_TYPEDEF, 0, mb_str(&B, "A"), mb_str(&B, "P"), 0, 1, 1); /* MethodPtr 1..2 */
    mb_row(&B, T_TYPEDEF, 0, mb_str(&B, "B"), mb_str(&B, "P"), 0, 1, 3); /* MethodPtr 3 */
    /* physical methods: 1 = B.Z, 2 = A.X, 3 = A.Y */
    static const uint8_t sig1[] = { 0x00, 1, 0x08, 0x08 };       /* static int32 (int32) */
    static const uint8_t sig2[] = { 0x00, 2, 0x08, 0x08, 0x0E }; /* static int32 (int32, string) */
    mb_row(&B, T_METHOD, 0, 0, 0x16, mb_str(&B, "Z"), mb_blob(&B, sig1, sizeof sig1), 1);
    mb_row(&B, T_METHOD, 0, 0, 0x16, mb_str(&B, "X"), mb_blob(&B, sig2, sizeof sig2), 2);
    mb_row(&B, T_METHOD, 0, 0, 0x16, mb_str(&B, "Y"), mb_blob(&B, sig1, sizeof sig1), 4);
    mb_row(&B, T_METHODPTR, 2);
    mb_row(&B, T_METHODPTR, 3);
    mb_row(&B, T_METHODPTR, 1);
    /* ParamPtr positions 1 (Z), 2..3 (X), 4 (Y); physical params reversed */
    mb_row(&B, T_PARAM, 0, 1, mb_str(&B, "y"));
    mb_row(&B, T_PARAM, 0, 2, mb_str(&B, "s"));
    mb_row(&B, T_PARAM, 0, 1, mb_str(&B, "x"));
    mb_row(&B, T_PARAM, 0, 1, mb_str(&B, "z"));
    mb_row(&B, T_PARAMPTR, 4);
    mb_row(&B, T_PARAMPTR, 3);
    mb_row(&B, T_PARAMPTR, 2);
    mb_row(&B, T_PARAMPTR, 1);
    opened o;
    open_synthetic(&o, &B);
    assert_int_equal(o.md.uncompressed, 1);
    clrmeta_list l;
    assert_int_equal(clrmeta_type_methods(&o.md, 2, &l, NULL), CLRMETA_OK);
    assert_int_equal(l.count, 2);
    assert_int_equal(l.via, CLRMETA_T_METHODPTR);
    assert_int_equal(clrmeta_list_rid(&o.md, &l, 0), 2);
    assert_int_equal(clrmeta_list_rid(&o.md, &l, 1), 3);
    assert_int_equal(clrmeta_type_methods(&o.md, 3, &l, NULL), CLRMETA_OK);
    assert_int_equal(l.count, 1);
    assert_int_equal(clrmeta_list_rid(&o.md, &l, 0), 1);
    uint32_t owner;
    static const uint32_t owners[] = { 0, 3, 2, 2 };
    for (uint32_t m = 1; m <= 3; m++) {
        assert_int_equal(clrmeta_method_owner(&o.md, m, &owner, NULL), CLRMETA_OK);
        assert_int_equal(owner, owners[m]);
    }
    expect_line(&o, 1, "static int P.B.Z(int z)", "int32 P.B::Z(int32 z)");
    expect_line(&o, 2, "static int P.A.X(int x, string s)", "int32 P.A::X(int32 x, string s)");
    expect_line(&o, 3, "static int P.A.Y(int y)", "int32 P.A::Y(int32 y)");
    /* a pointer entry out of range reads as rid 0 */
    B.out[o.md.tables[T_PARAMPTR].offset] = 0x77;
    assert_int_equal(clrmeta_method_params(&o.md, 1, &l, NULL), CLRMETA_OK);
    assert_int_equal(clrmeta_list_rid(&o.md, &l, 0), 0);
    assert_walk_clean(B.out, B.len, UINT32_MAX);
    free(o.index);
}

/* #JTD (minimal delta): every table index is 4 bytes. */
static void test_minimal_delta(void **state)
{
    (void)state;
    build_demo(&B, 0, 1, 0);
    B.extra_stream = "#JTD";
    mb_finish(&B);
    clrmeta md;
    clrmeta_error e;
    /* the builder wrote 2-byte indexes: with #JTD they are read as 4 bytes */
    clrmeta_status st = clrmeta_open(B.out, B.len, &md, &e);
    if (st == CLRMETA_OK) {
        assert_int_equal(md.minimal_delta, 1);
        assert_int_equal(md.tables[T_TYPEDEF].col_width[5], 4);
        assert_int_equal(md.tables[T_TYPEREF].col_width[0], 4);
    } else {
        assert_int_equal(st, CLRMETA_E_BAD_TABLES);
    }
    assert_walk_clean(B.out, B.len, UINT32_MAX);
}

/* A chain of n TypeRefs, each scoped by the previous, the first by an AssemblyRef. */
static void build_typeref_chain(mb *b, unsigned n, int cycle)
{
    mb_init(b);
    mb_row(b, T_MODULE, 0, mb_str(b, "Chain.dll"), 0, 0, 0);
    mb_row(b, T_ASSEMBLYREF, 1, 0, 0, 0, 0, 0, mb_str(b, "Lib"), 0, 0);
    uint32_t name = mb_str(b, "N");
    for (unsigned i = 1; i <= n; i++)
        mb_row(b, T_TYPEREF, i == 1 ? (cycle ? RS_TYPEREF(n) : RS_ASSEMBLYREF(1)) : RS_TYPEREF(i - 1),
               name, 0);
}

static void test_typeref_scope_limit(void **state)
{
    (void)state;
    opened o;
    uint32_t scope;
    clrmeta_error e;
    /* CLRMETA_MAX_NESTING enclosing TypeRefs: the walk reaches the AssemblyRef */
    build_typeref_chain(&B, CLRMETA_MAX_NESTING + 1, 0);
    open_synthetic(&o, &B);
    assert_int_equal(clrmeta_typeref_root_scope(&o.md, CLRMETA_MAX_NESTING + 1, &scope, &e),
                     CLRMETA_OK);
    assert_int_equal(scope, CLRMETA_TOKEN(CLRMETA_T_ASSEMBLYREF, 1));
    free(o.index);
    /* one more: CYCLE */
    build_typeref_chain(&B, CLRMETA_MAX_NESTING + 2, 0);
    open_synthetic(&o, &B);
    assert_int_equal(clrmeta_typeref_root_scope(&o.md, CLRMETA_MAX_NESTING + 2, &scope, &e),
                     CLRMETA_E_CYCLE);
    assert_int_equal(clrmeta_typeref_root_scope(&o.md, CLRMETA_MAX_NESTING + 1, &scope, &e),
                     CLRMETA_OK);
    free(o.index);
    /* a real cycle of 3: CYCLE, and the formatter stops (libclrsig's own bound) */
    build_typeref_chain(&B, 3, 1);
    open_synthetic(&o, &B);
    assert_int_equal(clrmeta_typeref_root_scope(&o.md, 2, &scope, &e), CLRMETA_E_CYCLE);
    assert_string_equal(e.what, "TypeRef.ResolutionScope");
    char text[4096];
    clrsig_format_opts il = { .style = CLRSIG_STYLE_ILDASM };
    assert_int_equal(clrsig_format_token(CLRMETA_TOKEN(CLRMETA_T_TYPEREF, 1), &il, &o.r, text,
                                         sizeof text, NULL, NULL),
                     CLRSIG_E_DEPTH);
    /* a TypeRef that is its own scope */
    B.cells[T_TYPEREF][0][0] = RS_TYPEREF(1);
    mb_finish(&B);
    assert_int_equal(clrmeta_typeref_root_scope(&o.md, 1, &scope, &e), CLRMETA_E_CYCLE);
    assert_walk_clean(B.out, B.len, UINT32_MAX);
    free(o.index);
}

static void test_nested_class_cycles(void **state)
{
    (void)state;
    mb_init(&B);
    mb_row(&B, T_MODULE, 0, mb_str(&B, "Nest.dll"), 0, 0, 0);
    uint32_t name = mb_str(&B, "C");
    for (int i = 0; i < 4; i++)
        mb_row(&B, T_TYPEDEF, 0, name, 0, 0, 1, 1);
    mb_row(&B, T_NESTED, 2, 3);  /* 2 in 3, 3 in 2: a cycle */
    mb_row(&B, T_NESTED, 3, 2);
    mb_row(&B, T_NESTED, 4, 4);  /* 4 in itself */
    mb_row(&B, T_NESTED, 2, 4);  /* a second row for 2: ignored (the first wins) */
    mb_row(&B, T_NESTED, 1, 99); /* enclosing out of range: skipped */
    opened o;
    open_synthetic(&o, &B);
    uint32_t enc;
    assert_int_equal(clrmeta_enclosing(&o.md, 2, &enc, NULL), CLRMETA_OK);
    assert_int_equal(enc, 3);
    assert_int_equal(clrmeta_enclosing(&o.md, 4, &enc, NULL), CLRMETA_OK);
    assert_int_equal(enc, 4);
    assert_int_equal(clrmeta_enclosing(&o.md, 1, &enc, NULL), CLRMETA_OK);
    assert_int_equal(enc, 0);
    char text[4096];
    clrsig_format_opts cs = { .style = CLRSIG_STYLE_CSHARP };
    for (uint32_t t = 2; t <= 4; t++)
        assert_int_equal(clrsig_format_token(CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, t), &cs, &o.r, text,
                                             sizeof text, NULL, NULL),
                         CLRSIG_E_DEPTH);
    assert_walk_clean(B.out, B.len, UINT32_MAX);
    free(o.index);
}

/* Stream names: CLRMETA_MAX_STREAM_NAME bytes with the NUL fit, one more does not. */
static void test_stream_name_limit(void **state)
{
    (void)state;
    char name[CLRMETA_MAX_STREAM_NAME + 2];
    clrmeta md;
    clrmeta_error e;
    memset(name, 'x', sizeof name);
    name[0] = '#';
    name[CLRMETA_MAX_STREAM_NAME - 1] = '\0'; /* 31 characters + NUL */
    build_demo(&B, 0, 0, 0);
    B.extra_stream = name;
    mb_finish(&B);
    assert_int_equal(clrmeta_open(B.out, B.len, &md, &e), CLRMETA_OK);
    name[CLRMETA_MAX_STREAM_NAME - 1] = 'x';
    name[CLRMETA_MAX_STREAM_NAME] = '\0';     /* 32 characters + NUL */
    build_demo(&B, 0, 0, 0);
    B.extra_stream = name;
    mb_finish(&B);
    assert_int_equal(clrmeta_open(B.out, B.len, &md, &e), CLRMETA_E_BAD_STREAM);
    assert_string_equal(e.what, "stream name");
}

/* One hostile value per header field, each with its status, offset and name. */
static void test_synthetic_header_corruptions(void **state)
{
    (void)state;
    clrmeta md;
    clrmeta_error e;
    build_demo(&B, 0, 0, 0);
    mb_finish(&B);
    static uint8_t good[MB_MAX_OUT];
    memcpy(good, B.out, B.len);
    const size_t len = B.len;
    const uint32_t opt = B.off_opt, sec = B.off_section;

#define EXPECT(stmt, status, off)                                      \
    do {                                                               \
        memcpy(B.out, good, len);                                      \
        stmt;                                                          \
        assert_int_equal(clrmeta_open(B.out, len, &md, &e), (status)); \
        assert_int_equal(e.offset, (off));                             \
        assert_non_null(e.what);                                       \
        assert_walk_clean(B.out, len, UINT32_MAX);                     \
    } while (0)
/* no particular status: only no crash and the invariants */
#define SURVIVE(stmt)                                                  \
    do {                                                               \
        memcpy(B.out, good, len);                                      \
        stmt;                                                          \
        assert_walk_clean(B.out, len, UINT32_MAX);                     \
    } while (0)

    EXPECT((void)0, CLRMETA_OK, 0);
    EXPECT(B.out[1] = 'Y', CLRMETA_E_NOT_PE, 0);
    EXPECT(put32(B.out + 0x3C, (uint32_t)len - 3), CLRMETA_E_BAD_PE, 0x3C);
    EXPECT(B.out[0x80] = 'X', CLRMETA_E_BAD_PE, 0x80);
    EXPECT(put32(B.out + 0x3C, (uint32_t)len - 10), CLRMETA_E_BAD_PE, (uint32_t)len - 10);
    EXPECT(B.out[opt] = 0x0C, CLRMETA_E_BAD_PE, opt);                 /* magic */
    EXPECT(B.out[0x84 + 16] = 1, CLRMETA_E_BAD_PE, 0x84 + 16);       /* SizeOfOptionalHeader */
    EXPECT(put32(B.out + opt + 92, 14), CLRMETA_E_NOT_CLI, opt + 92); /* NumberOfRvaAndSizes */
    EXPECT(put32(B.out + opt + 96 + 14 * 8, 0), CLRMETA_E_NOT_CLI, opt + 96 + 14 * 8);
    EXPECT(put32(B.out + opt + 96 + 14 * 8 + 4, 71), CLRMETA_E_BAD_CLI_HEADER, opt + 96 + 14 * 8 + 4);
    EXPECT(put32(B.out + opt + 96 + 14 * 8, 0x9000), CLRMETA_E_BAD_RVA, opt + 96 + 14 * 8);
    EXPECT(B.out[0x84 + 2] = 0xFF, CLRMETA_E_TRUNCATED, sec);         /* 0x..FF sections */
    EXPECT(put32(B.out + sec + 16, 8), CLRMETA_E_BAD_RVA, opt + 96 + 14 * 8); /* CLI header outside */
    EXPECT(put32(B.out + sec + 16, 80), CLRMETA_E_BAD_RVA, B.off_cli + 8);    /* metadata outside */
    EXPECT(put32(B.out + sec + 20, 0x7FFFFF00), CLRMETA_E_BAD_RVA, opt + 96 + 14 * 8);
    EXPECT(put32(B.out + B.off_cli + 12, 0), CLRMETA_E_BAD_CLI_HEADER, B.off_cli + 8);
    EXPECT(put32(B.out + B.off_cli + 12, 0x10000), CLRMETA_E_BAD_RVA, B.off_cli + 8);
    EXPECT(B.out[B.off_md + 3] = 'C', CLRMETA_E_BAD_METADATA, B.off_md);
    EXPECT(put32(B.out + B.off_md + 12, 0xFFFFFFF0u), CLRMETA_E_BAD_METADATA, B.off_md + 12);
    SURVIVE(B.out[B.off_md + 30] = 9);                                  /* 4 empty headers more */
    /* 0xFFFF headers: empty ones (12 bytes each) until one lands on the table
     * stream's bytes 4..7 as its size */
    EXPECT(mb_put16(B.out + B.off_md + 30, 0xFFFF), CLRMETA_E_BAD_STREAM, B.off_tables + 4);
    EXPECT(put32(B.out + B.off_stream_hdr, 0x10000), CLRMETA_E_BAD_STREAM, B.off_stream_hdr);
    EXPECT(memcpy(B.out + B.off_stream_hdr + 8, "#Z", 2), CLRMETA_E_NO_TABLES, B.off_md);
    SURVIVE(put32(B.out + B.off_tables + 8, 0xFFFF));                  /* Valid: tables 0-15 */
    EXPECT(B.out[B.off_tables + 15] = 0x20, CLRMETA_E_BAD_TABLES, B.off_tables + 8);
    EXPECT(put32(B.out + B.off_rowcounts, 0x01000000), CLRMETA_E_BAD_TABLES, B.off_rowcounts);
    EXPECT(put32(B.out + B.off_rowcounts, 0x00FFFFFF), CLRMETA_E_BAD_TABLES, B.off_table[0]);
    SURVIVE(B.out[B.off_tables + 6] = 0x07);                            /* wide heaps that are not */
#undef EXPECT
#undef SURVIVE
}

/* Cells that point outside their heap, and coded indexes with no table. */
static void test_bad_cells(void **state)
{
    (void)state;
    opened o;
    clrmeta_error e;
    build_demo(&B, 0, 0, 0);
    mb_row(&B, T_CA, 0, 0 /* CustomAttributeType tag 0: no table */, 0);
    open_synthetic(&o, &B);
    uint32_t name_cell = B.off_table[T_TYPEDEF] + B.row_size[T_TYPEDEF] + 4; /* TypeDef 2 Name */
    mb_put16(B.out + name_cell, 0xFFFF);
    clrmeta_typedef_row td;
    assert_int_equal(clrmeta_typedef(&o.md, 2, &td, &e), CLRMETA_E_BAD_STRING);
    assert_int_equal(e.offset, name_cell);
    assert_string_equal(e.what, "TypeDef.TypeName");
    /* a string that runs to the end of the heap without a NUL */
    mb_finish(&B);
    uint32_t ssize = le32(B.out + B.off_stream_hdr + 12 + 4);
    memset(B.out + B.off_strings + ssize - 8, 'z', 8);
    B.out[name_cell] = (uint8_t)(ssize - 4);
    B.out[name_cell + 1] = (uint8_t)((ssize - 4) >> 8);
    assert_int_equal(clrmeta_typedef(&o.md, 2, &td, &e), CLRMETA_E_BAD_STRING);
    const char *s;
    assert_int_equal(clrmeta_string(&o.md, ssize - 4, &s, &e), CLRMETA_E_BAD_STRING);
    assert_int_equal(clrmeta_string(&o.md, ssize, &s, &e), CLRMETA_E_BAD_STRING);
    assert_int_equal(clrmeta_string(&o.md, 0, &s, &e), CLRMETA_OK);
    assert_string_equal(s, "");
    mb_finish(&B);
    /* a blob whose length runs past the heap */
    clrmeta_methoddef_row m;
    assert_int_equal(clrmeta_methoddef(&o.md, 1, &m, &e), CLRMETA_OK);
    uint32_t blob_off = (uint32_t)(m.sig.p - 1 - (B.out + B.off_blob));
    B.out[B.off_blob + blob_off] = 0x7F;
    assert_int_equal(clrmeta_methoddef(&o.md, 1, &m, &e), CLRMETA_E_BAD_BLOB);
    assert_string_equal(e.what, "MethodDef.Signature");
    B.out[B.off_blob + blob_off] = 0xE0; /* 111x: not a length */
    assert_int_equal(clrmeta_methoddef(&o.md, 1, &m, &e), CLRMETA_E_BAD_BLOB);
    clrmeta_blob b;
    assert_int_equal(clrmeta_blob_at(&o.md, 0, &b, &e), CLRMETA_OK);
    assert_int_equal(b.len, 0);
    assert_int_equal(clrmeta_blob_at(&o.md, 0xFFFFFFFFu, &b, &e), CLRMETA_E_BAD_BLOB);
    mb_finish(&B);
    /* GUIDs: 1-based, 0 is none, past the heap is an error */
    const uint8_t *g;
    assert_int_equal(clrmeta_guid(&o.md, 0, &g, &e), CLRMETA_OK);
    assert_null(g);
    assert_int_equal(clrmeta_guid(&o.md, 1, &g, &e), CLRMETA_OK);
    assert_int_equal(g[15], 0xAB);
    assert_int_equal(clrmeta_guid(&o.md, 2, &g, &e), CLRMETA_E_BAD_GUID);
    B.out[o.md.tables[T_MODULE].offset + 4] = 7; /* Module.Mvid = 7 */
    clrmeta_module_row mod;
    assert_int_equal(clrmeta_module(&o.md, 1, &mod, &e), CLRMETA_E_BAD_GUID);
    assert_string_equal(e.what, "Module.Mvid");
    mb_finish(&B);
    /* coded index tags */
    clrmeta_customattribute_row ca;
    assert_int_equal(clrmeta_customattribute(&o.md, 1, &ca, &e), CLRMETA_E_BAD_CODED_INDEX);
    assert_string_equal(e.what, "CustomAttribute.Type");
    uint32_t token;
    assert_int_equal(clrmeta_decode_coded(CLRMETA_CI_CUSTOMATTRIBUTETYPE, 5 << 3 | 3, &token, &e),
                     CLRMETA_OK);
    assert_int_equal(token, CLRMETA_TOKEN(CLRMETA_T_MEMBERREF, 5));
    assert_int_equal(clrmeta_decode_coded(CLRMETA_CI_TYPEDEFORREF, 3, &token, &e),
                     CLRMETA_E_BAD_CODED_INDEX);
    assert_int_equal(clrmeta_decode_coded(CLRMETA_CI_HASCUSTOMATTRIBUTE, 7 << 5 | 21, &token, &e),
                     CLRMETA_OK);
    assert_int_equal(token, CLRMETA_TOKEN(CLRMETA_T_METHODSPEC, 7));
    assert_int_equal(clrmeta_decode_coded(CLRMETA_CI_HASCUSTOMATTRIBUTE, 22, &token, &e),
                     CLRMETA_E_BAD_CODED_INDEX);
    /* rids and columns */
    uint32_t v;
    assert_int_equal(clrmeta_cell(&o.md, CLRMETA_T_TYPEDEF, 0, 0, &v, &e), CLRMETA_E_BAD_INDEX);
    assert_int_equal(clrmeta_cell(&o.md, CLRMETA_T_TYPEDEF, 4, 0, &v, &e), CLRMETA_E_BAD_INDEX);
    assert_int_equal(clrmeta_cell(&o.md, CLRMETA_T_TYPEDEF, 1, 6, &v, &e), CLRMETA_E_BAD_INDEX);
    assert_int_equal(clrmeta_cell(&o.md, (clrmeta_table)0x2D, 1, 0, &v, &e), CLRMETA_E_BAD_INDEX);
    assert_int_equal(clrmeta_typedef(&o.md, 0, &td, &e), CLRMETA_E_BAD_INDEX);
    assert_int_equal(clrmeta_typedef(&o.md, 4, &td, &e), CLRMETA_E_BAD_INDEX);
    free(o.index);
}

static void test_index_memory(void **state)
{
    (void)state;
    build_demo(&B, 0, 0, 0);
    mb_finish(&B);
    clrmeta md;
    clrmeta_error e;
    assert_int_equal(clrmeta_open(B.out, B.len, &md, &e), CLRMETA_OK);
    uint32_t owner;
    clrmeta_list l;
    assert_int_equal(clrmeta_method_owner(&md, 1, &owner, &e), CLRMETA_E_NO_INDEX);
    assert_int_equal(clrmeta_generic_params(&md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, 2), &l, &e),
                     CLRMETA_E_NO_INDEX);
    clrsig_resolver r;
    clrmeta_sig_context ctx;
    assert_int_equal(clrmeta_resolver_init(&r, &ctx, &md, &e), CLRMETA_E_NO_INDEX);
    size_t n = clrmeta_index_size(&md);
    /* 4 * (2 TypeDef + 2 MethodDef + GenericParam + 4 words) + 3 bytes of slack */
    assert_int_equal(n, 4 * (2 * 3 + 2 * 4 + 3 + 4) + 3);
    static uint8_t mem[1024];
    assert_int_equal(clrmeta_build_index(&md, mem + 1, n - 1, &e), CLRMETA_E_MEMORY);
    assert_int_equal(clrmeta_build_index(&md, mem + 3, n, &e), CLRMETA_OK);
    assert_int_equal(clrmeta_method_owner(&md, 4, &owner, &e), CLRMETA_OK);
    assert_int_equal(owner, 3);
    assert_int_equal(clrmeta_method_owner(&md, 5, &owner, &e), CLRMETA_E_BAD_INDEX);
    assert_int_equal(clrmeta_generic_params(&md, CLRMETA_TOKEN(CLRMETA_T_METHODDEF, 2), &l, &e),
                     CLRMETA_OK);
    assert_int_equal(l.count, 1);
    assert_int_equal(clrmeta_list_rid(&md, &l, 0), 3);
    assert_int_equal(clrmeta_generic_params(&md, CLRMETA_TOKEN(CLRMETA_T_TYPEREF, 1), &l, &e),
                     CLRMETA_E_ARGUMENT);
    const char *name;
    assert_int_equal(clrmeta_generic_param_name(&md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, 2), 1, &name,
                                                &e),
                     CLRMETA_E_BAD_INDEX);
}

/* Every byte of a synthetic assembly set to hostile values, one at a time. */
static void test_every_byte(void **state)
{
    (void)state;
    static const uint8_t values[] = { 0x00, 0xFF, 0x80, 0x7F, 0x01 };
    for (int variant = 0; variant < 2; variant++) {
        build_demo(&B, variant ? 0x47 : 0, variant, 0);
        mb_finish(&B);
        static uint8_t good[MB_MAX_OUT];
        memcpy(good, B.out, B.len);
        size_t end = B.off_blob + B.nblob + 4;
        for (size_t i = 0; i < end; i++)
            for (size_t v = 0; v < sizeof values; v++) {
                memcpy(B.out, good, B.len);
                B.out[i] = values[v];
                assert_walk_clean(B.out, B.len, UINT32_MAX);
            }
    }
}

static void test_describe(void **state)
{
    (void)state;
    clrmeta_error e = { CLRMETA_E_BAD_PE, 0x3C, "e_lfanew past the end of the file" };
    char text[CLRMETA_MAX_MESSAGE];
    size_t n = clrmeta_describe(&e, text, sizeof text);
    assert_string_equal(text, "bad PE header (e_lfanew past the end of the file, offset 0x3C)");
    assert_int_equal(n, strlen(text));
    char small[10];
    assert_int_equal(clrmeta_describe(&e, small, sizeof small), 9);
    assert_string_equal(small, "bad PE he");
    for (int s = 0; s < CLRMETA_STATUS_COUNT; s++)
        assert_string_not_equal(clrmeta_strerror((clrmeta_status)s), "unknown error");
    assert_string_equal(clrmeta_strerror(CLRMETA_STATUS_COUNT), "unknown error");
    assert_string_equal(clrmeta_table_name(CLRMETA_T_GENERICPARAMCONSTRAINT), "GenericParamConstraint");
    assert_string_equal(clrmeta_column_name(CLRMETA_T_METHODDEF, 5), "MethodDef.ParamList");
    assert_null(clrmeta_column_name(CLRMETA_T_METHODDEF, 6));
    clrmeta md;
    assert_int_equal(clrmeta_open(NULL, 10, &md, &e), CLRMETA_E_ARGUMENT);
    assert_int_equal(clrmeta_open((const uint8_t *)"MZ", 2, &md, &e), CLRMETA_E_TRUNCATED);
    assert_string_equal(e.what, "DOS header");
}

/* The version API: the library reports the version of the header it was
 * built with; the string is MAJOR.MINOR.PATCH and the number
 * MAJOR * 10000 + MINOR * 100 + PATCH, usable in #if. */
#if CLRMETA_VERSION_NUMBER != \
    CLRMETA_VERSION_MAJOR * 10000 + CLRMETA_VERSION_MINOR * 100 + CLRMETA_VERSION_PATCH
#error "CLRMETA_VERSION_NUMBER is not MAJOR * 10000 + MINOR * 100 + PATCH in #if"
#endif
static void test_version(void **state)
{
    (void)state;
    assert_int_equal(clrmeta_version_number(), CLRMETA_VERSION_NUMBER);
    assert_string_equal(clrmeta_version_string(), CLRMETA_VERSION_STRING);
    int vmajor = CLRMETA_VERSION_MAJOR;
    int vminor = CLRMETA_VERSION_MINOR;
    int vpatch = CLRMETA_VERSION_PATCH;
    assert_true(vmajor >= 0 && vminor >= 0 && vminor < 100 && vpatch >= 0 && vpatch < 100);
    assert_int_equal(CLRMETA_VERSION_NUMBER, vmajor * 10000 + vminor * 100 + vpatch);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", vmajor, vminor, vpatch);
    assert_string_equal(CLRMETA_VERSION_STRING, want);
}

int main(int argc, char **argv)
{
    corelib_path = argc > 1 ? argv[1] : getenv("CLRTRACE_CORELIB");
    if (corelib_path && !corelib_path[0])
        corelib_path = NULL;
    if (corelib_path) {
        snprintf(fw_dir, sizeof fw_dir, "%s", corelib_path);
        char *slash = strrchr(fw_dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(fw_dir, sizeof fw_dir, ".");
    } else {
        fprintf(stderr, "test_meta: no CoreLib path (argv[1] or CLRTRACE_CORELIB): "
                        "real-assembly tests are skipped\n");
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_synthetic_basic),
        cmocka_unit_test(test_synthetic_pe32plus),
        cmocka_unit_test(test_wide_heaps_and_extra_data),
        cmocka_unit_test(test_uncompressed_pointer_tables),
        cmocka_unit_test(test_minimal_delta),
        cmocka_unit_test(test_typeref_scope_limit),
        cmocka_unit_test(test_nested_class_cycles),
        cmocka_unit_test(test_stream_name_limit),
        cmocka_unit_test(test_synthetic_header_corruptions),
        cmocka_unit_test(test_bad_cells),
        cmocka_unit_test(test_index_memory),
        cmocka_unit_test(test_every_byte),
        cmocka_unit_test(test_corelib_facts),
        cmocka_unit_test(test_corelib_names),
        cmocka_unit_test(test_corelib_all_methods),
        cmocka_unit_test(test_framework_typerefs),
        cmocka_unit_test(test_corelib_corruptions),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_framework_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
