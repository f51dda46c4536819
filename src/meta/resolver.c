/* A clrsig_resolver over an opened, indexed assembly: the formatter asks for
 * type names, TypeSpec blobs and generic parameter names; the answers come
 * straight from the tables (nothing is cached or allocated). */
#include <string.h>

#include "meta_internal.h"

/* Copies n bytes of s and a NUL into out[cap]; fails when they do not fit. */
static int copy(char *out, size_t cap, const char *s, size_t n)
{
    if (!out || n >= cap)
        return -1;
    memcpy(out, s, n);
    out[n] = '\0';
    return 0;
}

/* Fills ctx->last for a TypeDef/TypeRef token: names, enclosing token and,
 * for an outermost TypeRef, the name of its scope as ILDasm shows it: the
 * AssemblyRef's name, ".module " and the ModuleRef's name, or nothing. */
static int remember(clrmeta_sig_context *c, uint32_t token)
{
    const clrmeta *md = c->md;
    c->last.token = 0;
    if (clrmeta_type_name(md, token, &c->last.ns, &c->last.name, &c->last.enclosing,
                          NULL) != CLRMETA_OK)
        return -1;
    c->last.ns_len = strlen(c->last.ns);
    c->last.name_len = strlen(c->last.name);
    c->last.scope_prefix = c->last.scope = "";
    if (CLRMETA_TOKEN_TABLE(token) == CLRMETA_T_TYPEREF && !c->last.enclosing) {
        uint32_t root;
        if (clrmeta_typeref_root_scope(md, CLRMETA_TOKEN_RID(token), &root, NULL) == CLRMETA_OK) {
            uint32_t t = CLRMETA_TOKEN_TABLE(root), rid = CLRMETA_TOKEN_RID(root);
            clrmeta_assemblyref_row a;
            clrmeta_moduleref_row m;
            if (t == CLRMETA_T_ASSEMBLYREF && rid &&
                clrmeta_assemblyref(md, rid, &a, NULL) == CLRMETA_OK) {
                c->last.scope = a.name;
            } else if (t == CLRMETA_T_MODULEREF && rid &&
                       clrmeta_moduleref(md, rid, &m, NULL) == CLRMETA_OK) {
                c->last.scope_prefix = ".module ";
                c->last.scope = m.name;
            }
        }
    }
    c->last.scope_len = strlen(c->last.scope);
    c->last.token = token;
    return 0;
}

static int cb_type_name(void *ctx, uint32_t token, char *ns, size_t ns_cap, char *name,
                        size_t name_cap, uint32_t *enclosing, char *scope, size_t scope_cap)
{
    clrmeta_sig_context *c = ctx;
    if ((token != c->last.token || !token) && remember(c, token) != 0)
        return -1;
    if (copy(ns, ns_cap, c->last.ns, c->last.ns_len) ||
        copy(name, name_cap, c->last.name, c->last.name_len))
        return -1;
    if (enclosing)
        *enclosing = c->last.enclosing;
    if (scope && scope_cap) {
        size_t np = c->last.scope_prefix[0] ? strlen(c->last.scope_prefix) : 0;
        if (np + c->last.scope_len == 0 || np + c->last.scope_len >= scope_cap) {
            scope[0] = '\0';
        } else {
            memcpy(scope, c->last.scope_prefix, np);
            copy(scope + np, scope_cap - np, c->last.scope, c->last.scope_len);
        }
    }
    return 0;
}

static int cb_typespec(void *ctx, uint32_t token, const uint8_t **blob, uint32_t *len)
{
    const clrmeta *md = ((const clrmeta_sig_context *)ctx)->md;
    clrmeta_typespec_row ts;
    if (CLRMETA_TOKEN_TABLE(token) != CLRMETA_T_TYPESPEC ||
        clrmeta_typespec(md, CLRMETA_TOKEN_RID(token), &ts, NULL) != CLRMETA_OK)
        return -1;
    *blob = ts.sig.p;
    *len = ts.sig.len;
    return 0;
}

static int cb_generic_param(void *ctx, int is_method, uint32_t index, char *name, size_t name_cap,
                            const clrsig_type **actual)
{
    const clrmeta_sig_context *c = ctx;
    uint32_t owner = is_method ? CLRMETA_TOKEN(CLRMETA_T_METHODDEF, c->method_rid)
                               : CLRMETA_TOKEN(CLRMETA_T_TYPEDEF, c->type_rid);
    const char *n;
    if (actual)
        *actual = NULL;
    if (CLRMETA_TOKEN_RID(owner) == 0 ||
        clrmeta_generic_param_name(c->md, owner, index, &n, NULL) != CLRMETA_OK)
        return -1;
    return copy(name, name_cap, n, strlen(n));
}

clrmeta_status clrmeta_resolver_init(clrsig_resolver *r, clrmeta_sig_context *ctx,
                                     const clrmeta *md, clrmeta_error *err)
{
    if (!r || !ctx || !md)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (!md->method_owner)
        return meta_fail(err, CLRMETA_E_NO_INDEX, 0, "index");
    ctx->md = md;
    memset(&ctx->last, 0, sizeof ctx->last);
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->type_name = cb_type_name;
    r->typespec = cb_typespec;
    r->generic_param = cb_generic_param;
    return meta_ok(err);
}
