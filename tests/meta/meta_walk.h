/* meta_walk: reads everything libclrmeta offers about one file, the way a
 * hostile-input test wants it read: open, index, every cell and typed row,
 * every list, every helper, and every signature formatted through the
 * resolver in both styles. It checks invariants instead of values:
 *
 *   - a failed open reports a status, a `what` and an offset inside the file;
 *   - every string, blob and GUID handed out lies inside the file, and every
 *     string is NUL-terminated inside it;
 *   - the index needs no more than O(file size) bytes;
 *   - list rids and helper answers are 0 or inside their table.
 *
 * Used by tests/unit/test_meta.c and by the libFuzzer harness
 * tests/meta/fuzz_meta.c. Header-only (static functions) on purpose. */
#ifndef CLRTRACE_TESTS_META_WALK_H
#define CLRTRACE_TESTS_META_WALK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrmeta/clrmeta.h"
#include "clrsig/clrsig.h"

typedef struct meta_walk_result {
    int opened;             /* clrmeta_open succeeded */
    clrmeta_error open_err; /* when it did not */
    const char *violation;  /* the first broken invariant, or NULL */
    unsigned long rows;     /* typed rows read successfully */
    unsigned long sigs;     /* signatures parsed and formatted */
} meta_walk_result;

typedef struct meta_walk_ctx {
    const uint8_t *file;
    size_t len;
    meta_walk_result *res;
} meta_walk_ctx;

static void mw_violate(meta_walk_ctx *w, const char *what)
{
    if (!w->res->violation)
        w->res->violation = what;
}

static int mw_inside(const meta_walk_ctx *w, const void *p, size_t n)
{
    const uint8_t *b = p;
    return b >= w->file && b <= w->file + w->len && n <= (size_t)(w->file + w->len - b);
}

static void mw_str(meta_walk_ctx *w, const char *s)
{
    if (!s) {
        mw_violate(w, "NULL string");
        return;
    }
    if (s[0] == '\0' && !mw_inside(w, s, 1))
        return; /* the library's own "" for offset 0 */
    if (!mw_inside(w, s, 1) || !memchr(s, 0, (size_t)(w->file + w->len - (const uint8_t *)s)))
        mw_violate(w, "string outside the file or unterminated");
}

static void mw_blob(meta_walk_ctx *w, clrmeta_blob b)
{
    if (b.len && !mw_inside(w, b.p, b.len))
        mw_violate(w, "blob outside the file");
}

static void mw_guid(meta_walk_ctx *w, const uint8_t *g)
{
    if (g && !mw_inside(w, g, 16))
        mw_violate(w, "GUID outside the file");
}

static void mw_rid(meta_walk_ctx *w, const clrmeta *md, clrmeta_table t, uint32_t rid)
{
    if (rid > clrmeta_rows(md, t))
        mw_violate(w, "rid outside its table");
}

/* Parses a blob as `kind` and formats it in both styles through r. */
static void mw_sig(meta_walk_ctx *w, const clrsig_resolver *r, clrmeta_blob b, clrsig_kind kind,
                   const clrsig_method_names *names)
{
    static uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED], scratch_mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
    static char text[4096];
    clrsig_arena arena, scratch;
    clrsig_arena_init(&arena, mem, sizeof mem);
    clrsig_arena_init(&scratch, scratch_mem, sizeof scratch_mem);
    clrsig_sig sig;
    if (clrsig_parse(b.p, b.len, kind, NULL, &arena, &sig, NULL) != CLRSIG_OK)
        return;
    for (int style = 0; style < 2; style++) {
        clrsig_format_opts fo = { .style = style ? CLRSIG_STYLE_ILDASM : CLRSIG_STYLE_CSHARP,
                                  .scratch = &scratch };
        size_t need = 0;
        clrsig_arena_reset(&scratch);
        if (kind == CLRSIG_KIND_METHOD && names)
            clrsig_format_method(&sig.method, names, &fo, r, text, sizeof text, &need, NULL);
        else
            clrsig_format_sig(&sig, &fo, r, text, sizeof text, &need, NULL);
        if (strlen(text) >= sizeof text)
            mw_violate(w, "formatted text not terminated");
    }
    w->res->sigs++;
}

/* Reads rows 1..min(rows, limit) of every table through every reader. */
static void mw_rows(meta_walk_ctx *w, const clrmeta *md, const clrsig_resolver *r,
                    clrmeta_sig_context *ctx, uint32_t limit)
{
#define MW_N(t) (clrmeta_rows(md, (t)) < limit ? clrmeta_rows(md, (t)) : limit)
    for (unsigned t = 0; t < CLRMETA_TABLE_COUNT; t++) {
        uint32_t n = MW_N((clrmeta_table)t);
        for (uint32_t rid = 1; rid <= n; rid++)
            for (unsigned c = 0; c < CLRMETA_MAX_COLUMNS + 1; c++) {
                uint32_t v;
                clrmeta_status st = clrmeta_cell(md, (clrmeta_table)t, rid, c, &v, NULL);
                if ((st == CLRMETA_OK) != (clrmeta_column_name((clrmeta_table)t, c) != NULL))
                    mw_violate(w, "cell readable iff the column exists");
            }
    }
    uint32_t rid, n;
    clrmeta_list l;
    n = MW_N(CLRMETA_T_MODULE);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_module_row m;
        if (clrmeta_module(md, rid, &m, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, m.name);
            mw_guid(w, m.mvid);
            mw_guid(w, m.enc_id);
            mw_guid(w, m.enc_base_id);
        }
    }
    n = MW_N(CLRMETA_T_TYPEREF);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_typeref_row tr;
        uint32_t scope;
        const char *ns, *name;
        uint32_t enc;
        if (clrmeta_typeref(md, rid, &tr, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, tr.name);
            mw_str(w, tr.ns);
        }
        if (clrmeta_typeref_root_scope(md, rid, &scope, NULL) == CLRMETA_OK &&
            CLRMETA_TOKEN_TABLE(scope) == CLRMETA_T_TYPEREF && CLRMETA_TOKEN_RID(scope))
            mw_violate(w, "root scope is a TypeRef");
        if (clrmeta_type_name(md, CLRMETA_TOKEN(CLRMETA_T_TYPEREF, rid), &ns, &name, &enc, NULL) ==
            CLRMETA_OK) {
            mw_str(w, ns);
            mw_str(w, name);
        }
    }
    n = MW_N(CLRMETA_T_TYPEDEF);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_typedef_row td;
        const char *ns, *name;
        uint32_t enc, i;
        if (clrmeta_typedef(md, rid, &td, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, td.name);
            mw_str(w, td.ns);
        }
        if (clrmeta_type_name(md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, rid), &ns, &name, &enc, NULL) ==
            CLRMETA_OK) {
            mw_str(w, ns);
            mw_str(w, name);
            mw_rid(w, md, CLRMETA_T_TYPEDEF, CLRMETA_TOKEN_RID(enc));
        }
        if (clrmeta_type_fields(md, rid, &l, NULL) == CLRMETA_OK)
            for (i = 0; i < l.count && i < limit; i++)
                mw_rid(w, md, CLRMETA_T_FIELD, clrmeta_list_rid(md, &l, i));
        if (clrmeta_type_methods(md, rid, &l, NULL) == CLRMETA_OK)
            for (i = 0; i < l.count && i < limit; i++)
                mw_rid(w, md, CLRMETA_T_METHODDEF, clrmeta_list_rid(md, &l, i));
        if (clrmeta_enclosing(md, rid, &enc, NULL) == CLRMETA_OK)
            mw_rid(w, md, CLRMETA_T_TYPEDEF, enc);
        if (clrmeta_generic_params(md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, rid), &l, NULL) ==
            CLRMETA_OK)
            for (i = 0; i < l.count && i < limit; i++) {
                uint32_t g = clrmeta_list_rid(md, &l, i);
                if (!g)
                    mw_violate(w, "generic param list holds rid 0");
                mw_rid(w, md, CLRMETA_T_GENERICPARAM, g);
            }
        for (i = 0; i < 3; i++)
            if (clrmeta_generic_param_name(md, CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, rid), i, &name,
                                           NULL) == CLRMETA_OK)
                mw_str(w, name);
        /* the type's own name through the resolver */
        static char text[4096];
        clrsig_format_opts fo = { .style = CLRSIG_STYLE_ILDASM };
        clrsig_format_token(CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, rid), &fo, r, text, sizeof text,
                            NULL, NULL);
    }
    n = MW_N(CLRMETA_T_FIELD);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_field_row f;
        if (clrmeta_field(md, rid, &f, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, f.name);
            mw_blob(w, f.sig);
            mw_sig(w, r, f.sig, CLRSIG_KIND_FIELD, NULL);
        }
    }
    n = MW_N(CLRMETA_T_METHODDEF);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_methoddef_row m;
        uint32_t owner = 0, i;
        if (clrmeta_method_owner(md, rid, &owner, NULL) == CLRMETA_OK)
            mw_rid(w, md, CLRMETA_T_TYPEDEF, owner);
        if (clrmeta_method_params(md, rid, &l, NULL) == CLRMETA_OK)
            for (i = 0; i < l.count && i < limit; i++)
                mw_rid(w, md, CLRMETA_T_PARAM, clrmeta_list_rid(md, &l, i));
        if (clrmeta_generic_params(md, CLRMETA_TOKEN(CLRMETA_T_METHODDEF, rid), &l, NULL) ==
            CLRMETA_OK)
            for (i = 0; i < l.count && i < limit; i++)
                mw_rid(w, md, CLRMETA_T_GENERICPARAM, clrmeta_list_rid(md, &l, i));
        if (clrmeta_methoddef(md, rid, &m, NULL) != CLRMETA_OK)
            continue;
        w->res->rows++;
        mw_str(w, m.name);
        mw_blob(w, m.sig);
        ctx->type_rid = owner;
        ctx->method_rid = rid;
        clrsig_method_names names = { .owner = "Owner", .name = m.name };
        mw_sig(w, r, m.sig, CLRSIG_KIND_METHOD, &names);
        ctx->type_rid = ctx->method_rid = 0;
    }
    n = MW_N(CLRMETA_T_PARAM);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_param_row p;
        if (clrmeta_param(md, rid, &p, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, p.name);
        }
    }
    n = MW_N(CLRMETA_T_MEMBERREF);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_memberref_row m;
        if (clrmeta_memberref(md, rid, &m, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, m.name);
            mw_blob(w, m.sig);
            mw_sig(w, r, m.sig, CLRSIG_KIND_ANY, NULL);
        }
    }
    n = MW_N(CLRMETA_T_CONSTANT);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_constant_row c;
        if (clrmeta_constant(md, rid, &c, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_blob(w, c.value);
        }
    }
    n = MW_N(CLRMETA_T_CUSTOMATTRIBUTE);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_customattribute_row c;
        if (clrmeta_customattribute(md, rid, &c, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_blob(w, c.value);
        }
    }
    n = MW_N(CLRMETA_T_CLASSLAYOUT);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_classlayout_row c;
        if (clrmeta_classlayout(md, rid, &c, NULL) == CLRMETA_OK)
            w->res->rows++;
    }
    n = MW_N(CLRMETA_T_STANDALONESIG);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_standalonesig_row s;
        if (clrmeta_standalonesig(md, rid, &s, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_blob(w, s.sig);
            mw_sig(w, r, s.sig, CLRSIG_KIND_ANY, NULL);
        }
    }
    n = MW_N(CLRMETA_T_MODULEREF);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_moduleref_row m;
        if (clrmeta_moduleref(md, rid, &m, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, m.name);
        }
    }
    n = MW_N(CLRMETA_T_TYPESPEC);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_typespec_row s;
        if (clrmeta_typespec(md, rid, &s, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_blob(w, s.sig);
            mw_sig(w, r, s.sig, CLRSIG_KIND_TYPESPEC, NULL);
        }
    }
    n = MW_N(CLRMETA_T_NESTEDCLASS);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_nestedclass_row c;
        if (clrmeta_nestedclass(md, rid, &c, NULL) == CLRMETA_OK)
            w->res->rows++;
    }
    n = MW_N(CLRMETA_T_GENERICPARAM);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_genericparam_row g;
        if (clrmeta_genericparam(md, rid, &g, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, g.name);
        }
    }
    n = MW_N(CLRMETA_T_METHODSPEC);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_methodspec_row s;
        if (clrmeta_methodspec(md, rid, &s, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_blob(w, s.instantiation);
            mw_sig(w, r, s.instantiation, CLRSIG_KIND_METHODSPEC, NULL);
        }
    }
    n = MW_N(CLRMETA_T_GENERICPARAMCONSTRAINT);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_genericparamconstraint_row c;
        if (clrmeta_genericparamconstraint(md, rid, &c, NULL) == CLRMETA_OK)
            w->res->rows++;
    }
    n = MW_N(CLRMETA_T_ASSEMBLY);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_assembly_row a;
        if (clrmeta_assembly(md, rid, &a, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, a.name);
            mw_str(w, a.culture);
            mw_blob(w, a.public_key);
        }
    }
    n = MW_N(CLRMETA_T_ASSEMBLYREF);
    for (rid = 1; rid <= n; rid++) {
        clrmeta_assemblyref_row a;
        if (clrmeta_assemblyref(md, rid, &a, NULL) == CLRMETA_OK) {
            w->res->rows++;
            mw_str(w, a.name);
            mw_str(w, a.culture);
            mw_blob(w, a.public_key_or_token);
            mw_blob(w, a.hash_value);
        }
    }
#undef MW_N
}

/* Heap reads at a spread of offsets, including the edges. */
static void mw_heaps(meta_walk_ctx *w, const clrmeta *md)
{
    const uint32_t probes[] = { 0, 1, 2, 3, 7, 100, md->strings.size - 1, md->strings.size,
                                md->blob.size - 1, md->blob.size, md->us.size - 1, md->us.size,
                                md->guid.size / 16, md->guid.size / 16 + 1, 0xFFFFFFFFu };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        const char *s;
        clrmeta_blob b;
        const uint8_t *g;
        if (clrmeta_string(md, probes[i], &s, NULL) == CLRMETA_OK)
            mw_str(w, s);
        if (clrmeta_blob_at(md, probes[i], &b, NULL) == CLRMETA_OK)
            mw_blob(w, b);
        if (clrmeta_userstring(md, probes[i], &b, NULL) == CLRMETA_OK)
            mw_blob(w, b);
        if (clrmeta_guid(md, probes[i], &g, NULL) == CLRMETA_OK)
            mw_guid(w, g);
    }
}

/* Walks file[0..len) reading at most `limit` rows of each table. */
static meta_walk_result meta_walk(const uint8_t *file, size_t len, uint32_t limit)
{
    meta_walk_result res;
    memset(&res, 0, sizeof res);
    meta_walk_ctx w = { file, len, &res };
    clrmeta md;
    clrmeta_error err;
    if (clrmeta_open(file, len, &md, &err) != CLRMETA_OK) {
        res.open_err = err;
        if (err.code == CLRMETA_OK || !err.what || err.offset > len)
            mw_violate(&w, "open failed without a status, a what or an offset in the file");
        return res;
    }
    res.opened = 1;
    if (!mw_inside(&w, md.version, md.version_len))
        mw_violate(&w, "version string outside the file");
    for (unsigned t = 0; t < CLRMETA_TABLE_COUNT; t++) {
        const clrmeta_table_info *ti = &md.tables[t];
        if (ti->rows && !mw_inside(&w, file + ti->offset, (size_t)ti->rows * ti->row_size))
            mw_violate(&w, "table outside the file");
    }
    mw_heaps(&w, &md);

    clrsig_resolver r;
    clrmeta_sig_context ctx;
    if (clrmeta_resolver_init(&r, &ctx, &md, NULL) != CLRMETA_E_NO_INDEX)
        mw_violate(&w, "resolver without an index");
    uint32_t owner;
    if (clrmeta_method_owner(&md, 1, &owner, NULL) != CLRMETA_E_NO_INDEX)
        mw_violate(&w, "index helper without an index");

    size_t isize = clrmeta_index_size(&md);
    if (isize > 2 * len + 64)
        mw_violate(&w, "index larger than O(file size)");
    void *mem = malloc(isize + 1);
    if (!mem)
        return res;
    /* misaligned on purpose: the index must align itself */
    if (clrmeta_build_index(&md, (uint8_t *)mem + 1, isize, NULL) != CLRMETA_OK ||
        clrmeta_resolver_init(&r, &ctx, &md, NULL) != CLRMETA_OK) {
        mw_violate(&w, "index or resolver failed on an opened file");
        free(mem);
        return res;
    }
    mw_rows(&w, &md, &r, &ctx, limit);
    free(mem);
    return res;
}

#endif
