/* Runs of rows owned by a parent (II.22: "a contiguous run of rows"): a
 * TypeDef's fields and methods, a method's params. The run ends where the
 * next parent row's run starts. In an uncompressed #- stream the list
 * columns index a pointer table (FieldPtr, MethodPtr, ParamPtr) whose
 * entries hold the real rids. */
#include "meta_internal.h"

#define VIA_INDEX 0xFF

static clrmeta_status make_list(const clrmeta *md, unsigned parent, uint32_t rid, unsigned col,
                                unsigned target, unsigned ptr, clrmeta_list *out,
                                clrmeta_error *err)
{
    if (!md || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    uint32_t nparent = md->tables[parent].rows;
    if (rid == 0 || rid > nparent)
        return meta_fail(err, CLRMETA_E_BAD_INDEX, md->tables[parent].offset,
                         meta_tables[parent].name);
    int use_ptr = md->tables[ptr].rows > 0;
    uint32_t n = use_ptr ? md->tables[ptr].rows : md->tables[target].rows;
    uint32_t start = meta_get(md, parent, meta_row(md, parent, rid), col);
    uint32_t end = rid < nparent ? meta_get(md, parent, meta_row(md, parent, rid + 1), col) : n + 1;
    if (start < 1)
        start = 1;
    if (start > n + 1)
        start = n + 1;
    if (end > n + 1)
        end = n + 1;
    out->table = (uint8_t)target;
    out->via = use_ptr ? (uint8_t)ptr : 0;
    out->start = start;
    out->count = end > start ? end - start : 0;
    out->perm = NULL;
    return meta_ok(err);
}

uint32_t clrmeta_list_rid(const clrmeta *md, const clrmeta_list *l, uint32_t i)
{
    if (!md || !l || i >= l->count || l->table >= CLRMETA_TABLE_COUNT)
        return 0;
    uint32_t pos = l->start + i;
    uint32_t rid;
    if (l->via == VIA_INDEX) {
        /* the index's permutation holds one entry per GenericParam row */
        if (!l->perm || (l->perm == md->gp_rows && pos >= md->tables[CLRMETA_T_GENERICPARAM].rows))
            return 0;
        rid = l->perm[pos];
    } else if (l->via) {
        if (l->via >= CLRMETA_TABLE_COUNT || pos < 1 || pos > md->tables[l->via].rows)
            return 0;
        rid = meta_get(md, l->via, meta_row(md, l->via, pos), 0);
    } else {
        rid = pos;
    }
    return rid >= 1 && rid <= md->tables[l->table].rows ? rid : 0;
}

clrmeta_status clrmeta_type_fields(const clrmeta *md, uint32_t typedef_rid, clrmeta_list *out,
                                   clrmeta_error *err)
{
    return make_list(md, CLRMETA_T_TYPEDEF, typedef_rid, 4, CLRMETA_T_FIELD, CLRMETA_T_FIELDPTR,
                     out, err);
}

clrmeta_status clrmeta_type_methods(const clrmeta *md, uint32_t typedef_rid, clrmeta_list *out,
                                    clrmeta_error *err)
{
    return make_list(md, CLRMETA_T_TYPEDEF, typedef_rid, 5, CLRMETA_T_METHODDEF,
                     CLRMETA_T_METHODPTR, out, err);
}

clrmeta_status clrmeta_method_params(const clrmeta *md, uint32_t method_rid, clrmeta_list *out,
                                     clrmeta_error *err)
{
    return make_list(md, CLRMETA_T_METHODDEF, method_rid, 5, CLRMETA_T_PARAM, CLRMETA_T_PARAMPTR,
                     out, err);
}
