/* The index: three maps built once in O(rows) so that "who declares this
 * method", "who encloses this type" and "which generic parameters does this
 * owner have" are O(1) afterwards. It lives in the caller's memory. */
#include <string.h>

#include "meta_internal.h"

#define VIA_INDEX 0xFF

static size_t index_words(const clrmeta *md)
{
    size_t td = md->tables[CLRMETA_T_TYPEDEF].rows, mdr = md->tables[CLRMETA_T_METHODDEF].rows;
    size_t gp = md->tables[CLRMETA_T_GENERICPARAM].rows;
    return (mdr + 1) + (td + 1) + (td + mdr + 2) + gp;
}

size_t clrmeta_index_size(const clrmeta *md)
{
    if (!md)
        return 0;
    return index_words(md) * sizeof(uint32_t) + sizeof(uint32_t) - 1;
}

/* method → TypeDef, from the MethodList runs. Runs are forced to be
 * increasing so the whole pass visits each list position at most once. */
static void build_method_owner(const clrmeta *md, uint32_t *owner)
{
    uint32_t ntd = md->tables[CLRMETA_T_TYPEDEF].rows;
    uint32_t nmd = md->tables[CLRMETA_T_METHODDEF].rows;
    uint32_t nptr = md->tables[CLRMETA_T_METHODPTR].rows;
    uint32_t n = nptr ? nptr : nmd;
    uint32_t prev_end = 1;
    for (uint32_t i = 1; i <= ntd; i++) {
        uint32_t s = meta_get(md, CLRMETA_T_TYPEDEF, meta_row(md, CLRMETA_T_TYPEDEF, i), 5);
        uint32_t e = n + 1;
        if (i < ntd)
            e = meta_get(md, CLRMETA_T_TYPEDEF, meta_row(md, CLRMETA_T_TYPEDEF, i + 1), 5);
        if (e > n + 1)
            e = n + 1;
        if (s < prev_end)
            s = prev_end;
        for (uint32_t p = s; p < e; p++) {
            uint32_t rid = nptr ? meta_get(md, CLRMETA_T_METHODPTR,
                                           meta_row(md, CLRMETA_T_METHODPTR, p), 0)
                                : p;
            if (rid >= 1 && rid <= nmd && !owner[rid])
                owner[rid] = i;
        }
        if (e > prev_end)
            prev_end = e;
    }
}

static void build_enclosing(const clrmeta *md, uint32_t *enclosing)
{
    uint32_t ntd = md->tables[CLRMETA_T_TYPEDEF].rows;
    uint32_t n = md->tables[CLRMETA_T_NESTEDCLASS].rows;
    for (uint32_t i = 1; i <= n; i++) {
        const uint8_t *row = meta_row(md, CLRMETA_T_NESTEDCLASS, i);
        uint32_t nested = meta_get(md, CLRMETA_T_NESTEDCLASS, row, 0);
        uint32_t outer = meta_get(md, CLRMETA_T_NESTEDCLASS, row, 1);
        if (nested >= 1 && nested <= ntd && outer >= 1 && outer <= ntd && !enclosing[nested])
            enclosing[nested] = outer;
    }
}

/* Slot of a GenericParam owner: TypeDef r → r, MethodDef r → TypeDef rows + r; 0 if invalid. */
static uint32_t gp_slot(const clrmeta *md, uint32_t gp_rid)
{
    const uint8_t *row = meta_row(md, CLRMETA_T_GENERICPARAM, gp_rid);
    uint32_t v = meta_get(md, CLRMETA_T_GENERICPARAM, row, 2);
    uint32_t rid = v >> 1;
    uint32_t ntd = md->tables[CLRMETA_T_TYPEDEF].rows;
    if (v & 1)
        return rid >= 1 && rid <= md->tables[CLRMETA_T_METHODDEF].rows ? ntd + rid : 0;
    return rid >= 1 && rid <= ntd ? rid : 0;
}

/* A stable counting sort of GenericParam rids by owner slot. */
static void build_generic_params(const clrmeta *md, uint32_t *start, uint32_t *rows)
{
    uint32_t nslots = md->tables[CLRMETA_T_TYPEDEF].rows + md->tables[CLRMETA_T_METHODDEF].rows + 1;
    uint32_t n = md->tables[CLRMETA_T_GENERICPARAM].rows;
    for (uint32_t g = 1; g <= n; g++) {
        uint32_t s = gp_slot(md, g);
        if (s)
            start[s + 1]++;
    }
    for (uint32_t k = 1; k <= nslots; k++)
        start[k] += start[k - 1];
    for (uint32_t g = 1; g <= n; g++) {
        uint32_t s = gp_slot(md, g);
        if (s)
            rows[start[s]++] = g;
    }
    /* start[k] now holds the end of slot k, which is the start of slot k + 1. */
    for (uint32_t k = nslots; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;
}

clrmeta_status clrmeta_build_index(clrmeta *md, void *mem, size_t cap, clrmeta_error *err)
{
    if (!md || (!mem && cap))
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (!md->file)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "clrmeta not open");
    if (cap < clrmeta_index_size(md))
        return meta_fail(err, CLRMETA_E_MEMORY, 0, "index memory");
    size_t pad = (sizeof(uint32_t) - (uintptr_t)mem % sizeof(uint32_t)) % sizeof(uint32_t);
    uint32_t *w = (uint32_t *)(void *)((uint8_t *)mem + pad);
    size_t words = index_words(md);
    memset(w, 0, words * sizeof *w);
    uint32_t ntd = md->tables[CLRMETA_T_TYPEDEF].rows, nmd = md->tables[CLRMETA_T_METHODDEF].rows;
    uint32_t *owner = w;
    uint32_t *enclosing = owner + nmd + 1;
    uint32_t *gp_start = enclosing + ntd + 1;
    uint32_t *gp_rows = gp_start + ntd + nmd + 2;
    build_method_owner(md, owner);
    build_enclosing(md, enclosing);
    build_generic_params(md, gp_start, gp_rows);
    md->method_owner = owner;
    md->enclosing = enclosing;
    md->gp_start = gp_start;
    md->gp_rows = gp_rows;
    return meta_ok(err);
}

static clrmeta_status need_index(const clrmeta *md, clrmeta_error *err)
{
    if (!md)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (!md->method_owner)
        return meta_fail(err, CLRMETA_E_NO_INDEX, 0, "index");
    return CLRMETA_OK;
}

static clrmeta_status bad_rid(const clrmeta *md, unsigned t, clrmeta_error *err)
{
    return meta_fail(err, CLRMETA_E_BAD_INDEX, md->tables[t].offset, meta_tables[t].name);
}

clrmeta_status clrmeta_method_owner(const clrmeta *md, uint32_t method_rid, uint32_t *typedef_rid,
                                    clrmeta_error *err)
{
    clrmeta_status st = need_index(md, err);
    if (st != CLRMETA_OK)
        return st;
    if (!typedef_rid)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (method_rid == 0 || method_rid > md->tables[CLRMETA_T_METHODDEF].rows)
        return bad_rid(md, CLRMETA_T_METHODDEF, err);
    *typedef_rid = md->method_owner[method_rid];
    return meta_ok(err);
}

clrmeta_status clrmeta_enclosing(const clrmeta *md, uint32_t typedef_rid, uint32_t *enclosing_rid,
                                 clrmeta_error *err)
{
    clrmeta_status st = need_index(md, err);
    if (st != CLRMETA_OK)
        return st;
    if (!enclosing_rid)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (typedef_rid == 0 || typedef_rid > md->tables[CLRMETA_T_TYPEDEF].rows)
        return bad_rid(md, CLRMETA_T_TYPEDEF, err);
    *enclosing_rid = md->enclosing[typedef_rid];
    return meta_ok(err);
}

clrmeta_status clrmeta_generic_params(const clrmeta *md, uint32_t owner, clrmeta_list *out,
                                      clrmeta_error *err)
{
    clrmeta_status st = need_index(md, err);
    if (st != CLRMETA_OK)
        return st;
    if (!out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    uint32_t t = CLRMETA_TOKEN_TABLE(owner), rid = CLRMETA_TOKEN_RID(owner);
    uint32_t ntd = md->tables[CLRMETA_T_TYPEDEF].rows;
    uint32_t slot;
    if (t == CLRMETA_T_TYPEDEF) {
        if (rid == 0 || rid > ntd)
            return bad_rid(md, CLRMETA_T_TYPEDEF, err);
        slot = rid;
    } else if (t == CLRMETA_T_METHODDEF) {
        if (rid == 0 || rid > md->tables[CLRMETA_T_METHODDEF].rows)
            return bad_rid(md, CLRMETA_T_METHODDEF, err);
        slot = ntd + rid;
    } else {
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "owner token");
    }
    out->table = CLRMETA_T_GENERICPARAM;
    out->via = VIA_INDEX;
    out->start = md->gp_start[slot];
    out->count = md->gp_start[slot + 1] - md->gp_start[slot];
    out->perm = md->gp_rows;
    return meta_ok(err);
}

clrmeta_status clrmeta_generic_param_name(const clrmeta *md, uint32_t owner, uint32_t number,
                                          const char **name, clrmeta_error *err)
{
    clrmeta_list l;
    clrmeta_status st = clrmeta_generic_params(md, owner, &l, err);
    if (st != CLRMETA_OK)
        return st;
    if (!name)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    for (uint32_t i = 0; i < l.count; i++) {
        uint32_t g = l.perm[l.start + i];
        const uint8_t *row = meta_row(md, CLRMETA_T_GENERICPARAM, g);
        if (meta_get(md, CLRMETA_T_GENERICPARAM, row, 0) != number)
            continue;
        if (meta_string(md, meta_get(md, CLRMETA_T_GENERICPARAM, row, 3), name) != CLRMETA_OK)
            return meta_fail(err, CLRMETA_E_BAD_STRING,
                             meta_cell_offset(md, CLRMETA_T_GENERICPARAM, row, 3),
                             "GenericParam.Name");
        return meta_ok(err);
    }
    return meta_fail(err, CLRMETA_E_BAD_INDEX, 0, "GenericParam.Number");
}

clrmeta_status clrmeta_typeref_root_scope(const clrmeta *md, uint32_t typeref_rid, uint32_t *scope,
                                          clrmeta_error *err)
{
    if (!md || !scope)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    uint32_t n = md->tables[CLRMETA_T_TYPEREF].rows;
    uint32_t rid = typeref_rid;
    for (unsigned step = 0; step <= CLRMETA_MAX_NESTING; step++) {
        if (rid == 0 || rid > n)
            return bad_rid(md, CLRMETA_T_TYPEREF, err);
        const uint8_t *row = meta_row(md, CLRMETA_T_TYPEREF, rid);
        uint32_t token, raw = meta_get(md, CLRMETA_T_TYPEREF, row, 0);
        if (clrmeta_decode_coded(CLRMETA_CI_RESOLUTIONSCOPE, raw, &token, NULL) != CLRMETA_OK)
            return meta_fail(err, CLRMETA_E_BAD_CODED_INDEX,
                             meta_cell_offset(md, CLRMETA_T_TYPEREF, row, 0),
                             "TypeRef.ResolutionScope");
        if (CLRMETA_TOKEN_TABLE(token) != CLRMETA_T_TYPEREF || CLRMETA_TOKEN_RID(token) == 0) {
            *scope = token;
            return meta_ok(err);
        }
        rid = CLRMETA_TOKEN_RID(token);
    }
    return meta_fail(err, CLRMETA_E_CYCLE, md->tables[CLRMETA_T_TYPEREF].offset,
                     "TypeRef.ResolutionScope");
}

clrmeta_status clrmeta_type_name(const clrmeta *md, uint32_t token, const char **ns,
                                 const char **name, uint32_t *enclosing, clrmeta_error *err)
{
    if (!md || !ns || !name || !enclosing)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    uint32_t t = CLRMETA_TOKEN_TABLE(token), rid = CLRMETA_TOKEN_RID(token);
    const uint8_t *row;
    unsigned name_col, ns_col;
    if (t == CLRMETA_T_TYPEDEF) {
        clrmeta_status st = need_index(md, err);
        if (st != CLRMETA_OK)
            return st;
        if (rid == 0 || rid > md->tables[t].rows)
            return bad_rid(md, t, err);
        row = meta_row(md, t, rid);
        name_col = 1;
        ns_col = 2;
        *enclosing = md->enclosing[rid] ? CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, md->enclosing[rid]) : 0;
    } else if (t == CLRMETA_T_TYPEREF) {
        if (rid == 0 || rid > md->tables[t].rows)
            return bad_rid(md, t, err);
        row = meta_row(md, t, rid);
        name_col = 1;
        ns_col = 2;
        uint32_t scope;
        if (clrmeta_decode_coded(CLRMETA_CI_RESOLUTIONSCOPE, meta_get(md, t, row, 0), &scope,
                                 NULL) != CLRMETA_OK)
            return meta_fail(err, CLRMETA_E_BAD_CODED_INDEX, meta_cell_offset(md, t, row, 0),
                             "TypeRef.ResolutionScope");
        *enclosing = CLRMETA_TOKEN_TABLE(scope) == CLRMETA_T_TYPEREF && CLRMETA_TOKEN_RID(scope)
                         ? scope : 0;
    } else {
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "token is not a TypeDef or TypeRef");
    }
    if (meta_string(md, meta_get(md, t, row, name_col), name) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_STRING, meta_cell_offset(md, t, row, name_col),
                         meta_tables[t].cols[name_col].name);
    if (meta_string(md, meta_get(md, t, row, ns_col), ns) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_STRING, meta_cell_offset(md, t, row, ns_col),
                         meta_tables[t].cols[ns_col].name);
    return meta_ok(err);
}
