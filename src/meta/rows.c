/* Raw cells and the typed row readers. A reader checks the rid, then reads
 * each cell by the layout clrmeta_open computed: constants as they are,
 * heap references resolved and checked against their heap, references
 * decoded into tokens. */
#include <string.h>

#include "meta_internal.h"

clrmeta_status clrmeta_decode_coded(clrmeta_coded kind, uint32_t value, uint32_t *token,
                                    clrmeta_error *err)
{
    if ((unsigned)kind >= CLRMETA_CI_COUNT || !token)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    const meta_coded_def *d = &meta_coded[kind];
    uint32_t tag = value & ((1u << d->bits) - 1);
    uint32_t rid = value >> d->bits;
    if (tag >= d->ntables || d->tables[tag] == META_NO_TABLE)
        return meta_fail(err, CLRMETA_E_BAD_CODED_INDEX, 0, d->name);
    if (rid > CLRMETA_MAX_ROWS)
        return meta_fail(err, CLRMETA_E_BAD_INDEX, 0, d->name);
    *token = CLRMETA_TOKEN(d->tables[tag], rid);
    return meta_ok(err);
}

clrmeta_status clrmeta_cell(const clrmeta *md, clrmeta_table t, uint32_t rid, unsigned col,
                            uint32_t *value, clrmeta_error *err)
{
    if (!md || !value)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if ((unsigned)t >= CLRMETA_TABLE_COUNT || col >= meta_tables[t].ncols)
        return meta_fail(err, CLRMETA_E_BAD_INDEX, 0, "table or column");
    if (rid == 0 || rid > md->tables[t].rows)
        return meta_fail(err, CLRMETA_E_BAD_INDEX, md->tables[t].offset, meta_tables[t].name);
    uint32_t v = meta_get(md, t, meta_row(md, t, rid), col);
    if (meta_tables[t].cols[col].kind == COL_BYTE2)
        v &= 0xFF;
    *value = v;
    return meta_ok(err);
}

/* One row being read: its table, its bytes and where errors go. */
typedef struct rowctx {
    const clrmeta *md;
    unsigned t;
    const uint8_t *row;
    clrmeta_error *err;
    clrmeta_status st; /* first failure */
} rowctx;

static int row_open(rowctx *r, const clrmeta *md, unsigned t, uint32_t rid, const void *out,
                    clrmeta_error *err)
{
    r->md = md;
    r->t = t;
    r->err = err;
    r->st = CLRMETA_OK;
    r->row = NULL;
    if (!md || !out) {
        r->st = meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
        return 0;
    }
    if (rid == 0 || rid > md->tables[t].rows) {
        r->st = meta_fail(err, CLRMETA_E_BAD_INDEX, md->tables[t].offset, meta_tables[t].name);
        return 0;
    }
    r->row = meta_row(md, t, rid);
    return 1;
}

static void row_fail(rowctx *r, clrmeta_status st, unsigned col)
{
    if (r->st == CLRMETA_OK)
        r->st = meta_fail(r->err, st, meta_cell_offset(r->md, r->t, r->row, col),
                          meta_tables[r->t].cols[col].name);
}

static inline uint32_t u(rowctx *r, unsigned col)
{
    return meta_get(r->md, r->t, r->row, col);
}

static const char *str(rowctx *r, unsigned col)
{
    const char *s = "";
    if (meta_string(r->md, u(r, col), &s) != CLRMETA_OK)
        row_fail(r, CLRMETA_E_BAD_STRING, col);
    return s;
}

static clrmeta_blob blob(rowctx *r, unsigned col)
{
    clrmeta_blob b = { NULL, 0 };
    if (meta_blob(&r->md->blob, u(r, col), &b) != CLRMETA_OK)
        row_fail(r, CLRMETA_E_BAD_BLOB, col);
    return b;
}

static const uint8_t *guid(rowctx *r, unsigned col)
{
    const uint8_t *g = NULL;
    if (clrmeta_guid(r->md, u(r, col), &g, NULL) != CLRMETA_OK)
        row_fail(r, CLRMETA_E_BAD_GUID, col);
    return g;
}

/* A simple or coded index as a token. */
static uint32_t ref(rowctx *r, unsigned col)
{
    const meta_col *c = &meta_tables[r->t].cols[col];
    uint32_t v = u(r, col), token = 0;
    if (c->kind == COL_TABLE) {
        if (v > CLRMETA_MAX_ROWS)
            row_fail(r, CLRMETA_E_BAD_INDEX, col);
        else
            token = CLRMETA_TOKEN(c->arg, v);
    } else {
        clrmeta_status st = clrmeta_decode_coded((clrmeta_coded)c->arg, v, &token, NULL);
        if (st != CLRMETA_OK)
            row_fail(r, st, col);
    }
    return token;
}

static clrmeta_status row_done(rowctx *r)
{
    return r->st == CLRMETA_OK ? meta_ok(r->err) : r->st;
}

#define ROW(fn, table, type)                                                              \
    clrmeta_status fn(const clrmeta *md, uint32_t rid, type *out, clrmeta_error *err)      \
    {                                                                                     \
        rowctx r;                                                                         \
        if (!row_open(&r, md, CLRMETA_T_##table, rid, out, err))                          \
            return r.st;                                                                  \
        memset(out, 0, sizeof *out);
#define END_ROW                                                                           \
        return row_done(&r);                                                              \
    }

ROW(clrmeta_module, MODULE, clrmeta_module_row)
    out->generation = (uint16_t)u(&r, 0);
    out->name = str(&r, 1);
    out->mvid = guid(&r, 2);
    out->enc_id = guid(&r, 3);
    out->enc_base_id = guid(&r, 4);
END_ROW

ROW(clrmeta_typeref, TYPEREF, clrmeta_typeref_row)
    out->scope = ref(&r, 0);
    out->name = str(&r, 1);
    out->ns = str(&r, 2);
END_ROW

ROW(clrmeta_typedef, TYPEDEF, clrmeta_typedef_row)
    out->flags = u(&r, 0);
    out->name = str(&r, 1);
    out->ns = str(&r, 2);
    out->extends = ref(&r, 3);
    out->field_list = u(&r, 4);
    out->method_list = u(&r, 5);
END_ROW

ROW(clrmeta_field, FIELD, clrmeta_field_row)
    out->flags = (uint16_t)u(&r, 0);
    out->name = str(&r, 1);
    out->sig = blob(&r, 2);
END_ROW

ROW(clrmeta_methoddef, METHODDEF, clrmeta_methoddef_row)
    out->rva = u(&r, 0);
    out->impl_flags = (uint16_t)u(&r, 1);
    out->flags = (uint16_t)u(&r, 2);
    out->name = str(&r, 3);
    out->sig = blob(&r, 4);
    out->param_list = u(&r, 5);
END_ROW

ROW(clrmeta_param, PARAM, clrmeta_param_row)
    out->flags = (uint16_t)u(&r, 0);
    out->sequence = (uint16_t)u(&r, 1);
    out->name = str(&r, 2);
END_ROW

ROW(clrmeta_memberref, MEMBERREF, clrmeta_memberref_row)
    out->parent = ref(&r, 0);
    out->name = str(&r, 1);
    out->sig = blob(&r, 2);
END_ROW

ROW(clrmeta_constant, CONSTANT, clrmeta_constant_row)
    out->type = (uint8_t)(u(&r, 0) & 0xFF);
    out->parent = ref(&r, 1);
    out->value = blob(&r, 2);
END_ROW

ROW(clrmeta_customattribute, CUSTOMATTRIBUTE, clrmeta_customattribute_row)
    out->parent = ref(&r, 0);
    out->type = ref(&r, 1);
    out->value = blob(&r, 2);
END_ROW

ROW(clrmeta_classlayout, CLASSLAYOUT, clrmeta_classlayout_row)
    out->packing_size = (uint16_t)u(&r, 0);
    out->class_size = u(&r, 1);
    out->parent = ref(&r, 2);
END_ROW

ROW(clrmeta_standalonesig, STANDALONESIG, clrmeta_standalonesig_row)
    out->sig = blob(&r, 0);
END_ROW

ROW(clrmeta_moduleref, MODULEREF, clrmeta_moduleref_row)
    out->name = str(&r, 0);
END_ROW

ROW(clrmeta_typespec, TYPESPEC, clrmeta_typespec_row)
    out->sig = blob(&r, 0);
END_ROW

ROW(clrmeta_nestedclass, NESTEDCLASS, clrmeta_nestedclass_row)
    out->nested = ref(&r, 0);
    out->enclosing = ref(&r, 1);
END_ROW

ROW(clrmeta_genericparam, GENERICPARAM, clrmeta_genericparam_row)
    out->number = (uint16_t)u(&r, 0);
    out->flags = (uint16_t)u(&r, 1);
    out->owner = ref(&r, 2);
    out->name = str(&r, 3);
END_ROW

ROW(clrmeta_methodspec, METHODSPEC, clrmeta_methodspec_row)
    out->method = ref(&r, 0);
    out->instantiation = blob(&r, 1);
END_ROW

ROW(clrmeta_genericparamconstraint, GENERICPARAMCONSTRAINT, clrmeta_genericparamconstraint_row)
    out->owner = ref(&r, 0);
    out->constraint = ref(&r, 1);
END_ROW

ROW(clrmeta_assembly, ASSEMBLY, clrmeta_assembly_row)
    out->hash_alg = u(&r, 0);
    out->major = (uint16_t)u(&r, 1);
    out->minor = (uint16_t)u(&r, 2);
    out->build = (uint16_t)u(&r, 3);
    out->revision = (uint16_t)u(&r, 4);
    out->flags = u(&r, 5);
    out->public_key = blob(&r, 6);
    out->name = str(&r, 7);
    out->culture = str(&r, 8);
END_ROW

ROW(clrmeta_assemblyref, ASSEMBLYREF, clrmeta_assemblyref_row)
    out->major = (uint16_t)u(&r, 0);
    out->minor = (uint16_t)u(&r, 1);
    out->build = (uint16_t)u(&r, 2);
    out->revision = (uint16_t)u(&r, 3);
    out->flags = u(&r, 4);
    out->public_key_or_token = blob(&r, 5);
    out->name = str(&r, 6);
    out->culture = str(&r, 7);
    out->hash_value = blob(&r, 8);
END_ROW
