#include "sigtext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrsig/clrsig.h"
#include "utf16.h"

/* Longest parameter name we keep; longer names are cut (still valid UTF-8). */
#define PARAM_NAME_MAX 256
/* Most generic parameters looked up per owner (more print as !0 / !!0). */
#define GENERIC_PARAMS_MAX 64

/* What the resolver callbacks need: the metadata scope, plus (when the
 * scope offers IMetaDataImport2) the owners of !n and !!n. */
typedef struct sig_ctx {
    IMetaDataImport *mdi;
    IMetaDataImport *mdi2; /* IMetaDataImport2, or NULL */
    mdTypeDef type_owner;  /* the method's class: owner of !n */
    mdMethodDef method_owner; /* the method: owner of !!n */
} sig_ctx;

static int is_table(mdToken tk, uint32_t table)
{
    return (tk >> 24) == table;
}

enum { TABLE_TYPEREF = 0x01, TABLE_TYPEDEF = 0x02, TABLE_TYPESPEC = 0x1B };

/* Splits "Ns.Sub.Name" at the last '.' into ns and name. */
static void split_full_name(const char *full, char *ns, size_t ns_cap, char *name,
                            size_t name_cap)
{
    const char *dot = strrchr(full, '.');
    if (!dot) {
        snprintf(ns, ns_cap, "%s", "");
        snprintf(name, name_cap, "%s", full);
        return;
    }
    snprintf(ns, ns_cap, "%.*s", (int)(dot - full), full);
    snprintf(name, name_cap, "%s", dot + 1);
}

/* clrsig resolver: TypeDef/TypeRef token -> namespace, name, enclosing type. */
static int resolve_type_name(void *ctx, uint32_t token, char *ns, size_t ns_cap, char *name,
                             size_t name_cap, uint32_t *enclosing, char *scope,
                             size_t scope_cap)
{
    IMetaDataImport *mdi = ((sig_ctx *)ctx)->mdi;
    WCHAR w[CLRSIG_MAX_NAME];
    char full[CLRSIG_MAX_NAME];
    ULONG len = 0;

    *enclosing = 0;
    if (scope_cap)
        scope[0] = '\0';
    if (is_table(token, TABLE_TYPEDEF)) {
        DWORD flags = 0;
        mdToken extends = 0;
        if (FAILED(mdi->lpVtbl->GetTypeDefProps(mdi, token, w, CLRSIG_MAX_NAME, &len, &flags,
                                                &extends)))
            return -1;
        ct_utf16_to_utf8(w, len, full, sizeof full);
        mdTypeDef outer = 0;
        if (mdi->lpVtbl->GetNestedClassProps(mdi, token, &outer) == S_OK && outer) {
            /* A nested type's name carries no namespace. */
            *enclosing = outer;
            snprintf(ns, ns_cap, "%s", "");
            snprintf(name, name_cap, "%s", full);
            return 0;
        }
        split_full_name(full, ns, ns_cap, name, name_cap);
        return 0;
    }
    if (is_table(token, TABLE_TYPEREF)) {
        mdToken rscope = 0;
        if (FAILED(mdi->lpVtbl->GetTypeRefProps(mdi, token, &rscope, w, CLRSIG_MAX_NAME, &len)))
            return -1;
        ct_utf16_to_utf8(w, len, full, sizeof full);
        if (is_table(rscope, TABLE_TYPEREF)) {
            *enclosing = rscope;
            snprintf(ns, ns_cap, "%s", "");
            snprintf(name, name_cap, "%s", full);
            return 0;
        }
        split_full_name(full, ns, ns_cap, name, name_cap);
        return 0;
    }
    return -1;
}

static int resolve_typespec(void *ctx, uint32_t token, const uint8_t **blob, uint32_t *len)
{
    IMetaDataImport *mdi = ((sig_ctx *)ctx)->mdi;
    PCCOR_SIGNATURE sig = NULL;
    ULONG n = 0;
    if (!is_table(token, TABLE_TYPESPEC) ||
        FAILED(mdi->lpVtbl->GetTypeSpecFromToken(mdi, token, &sig, &n)))
        return -1;
    *blob = sig;
    *len = n;
    return 0;
}

/* The name of generic parameter number index of owner (0-based, as in !n). */
static int generic_param_name(IMetaDataImport *mdi2, mdToken owner, uint32_t index, char *name,
                              size_t cap)
{
    HCORENUM e = NULL;
    mdGenericParam params[GENERIC_PARAMS_MAX];
    ULONG n = 0;
    int rc = -1;
    if (!mdi2 || !owner ||
        FAILED(mdi2->lpVtbl->EnumGenericParams(mdi2, &e, owner, params, GENERIC_PARAMS_MAX, &n)))
        goto done;
    for (ULONG i = 0; i < n; i++) {
        WCHAR w[PARAM_NAME_MAX];
        ULONG seq = 0, len = 0;
        DWORD flags = 0, reserved = 0;
        mdToken tk = 0;
        if (SUCCEEDED(mdi2->lpVtbl->GetGenericParamProps(mdi2, params[i], &seq, &flags, &tk,
                                                         &reserved, w, PARAM_NAME_MAX, &len)) &&
            seq == index) {
            ct_utf16_to_utf8(w, len, name, cap);
            rc = name[0] ? 0 : -1;
            break;
        }
    }
done:
    if (e)
        mdi2->lpVtbl->CloseEnum(mdi2, e);
    return rc;
}

static int resolve_generic_param(void *ctx, int is_method, uint32_t index, char *name,
                                 size_t name_cap, const clrsig_type **actual)
{
    sig_ctx *c = ctx;
    *actual = NULL;
    return generic_param_name(c->mdi2, is_method ? c->method_owner : c->type_owner, index, name,
                              name_cap);
}

int ct_sigtext(IMetaDataImport *mdi, mdMethodDef md, mdTypeDef td, const char *method_name,
               const BYTE *blob, ULONG len, char *out, size_t cap)
{
    int rc = -1;
    sig_ctx ctx = {.mdi = mdi, .type_owner = td, .method_owner = md};
    void *mdi2 = NULL;
    char *generic_names = NULL;
    const char **generic_ptrs = NULL;
    uint8_t *mem = malloc(2 * CLRSIG_ARENA_SIZE_RECOMMENDED);
    char *names = NULL;
    const char **name_ptrs = NULL;
    uint16_t *flags = NULL;

    if (!mem) {
        snprintf(out, cap, "<out of memory>");
        return -1;
    }
    if (SUCCEEDED(mdi->lpVtbl->QueryInterface(mdi, &IID_IMetaDataImport2, &mdi2)))
        ctx.mdi2 = mdi2;
    clrsig_arena arena, scratch;
    clrsig_arena_init(&arena, mem, CLRSIG_ARENA_SIZE_RECOMMENDED);
    clrsig_arena_init(&scratch, mem + CLRSIG_ARENA_SIZE_RECOMMENDED,
                      CLRSIG_ARENA_SIZE_RECOMMENDED);

    clrsig_sig sig;
    clrsig_error err;
    if (clrsig_parse(blob, len, CLRSIG_KIND_METHOD, NULL, &arena, &sig, &err) != CLRSIG_OK) {
        snprintf(out, cap, "<bad signature: %s at byte %u>", clrsig_strerror(err.code),
                 err.offset);
        goto done;
    }

    uint32_t n = sig.method.param_count;
    if (n) {
        names = calloc(n, PARAM_NAME_MAX);
        name_ptrs = calloc(n, sizeof *name_ptrs);
        flags = calloc(n, sizeof *flags);
        if (!names || !name_ptrs || !flags) {
            snprintf(out, cap, "<out of memory>");
            goto done;
        }
        for (uint32_t i = 0; i < n; i++) {
            mdParamDef pd = 0;
            char *dst = names + (size_t)i * PARAM_NAME_MAX;
            name_ptrs[i] = dst;
            /* Param rows are numbered from 1; sequence 0 is the return value. */
            if (mdi->lpVtbl->GetParamForMethodIndex(mdi, md, i + 1, &pd) != S_OK)
                continue;
            WCHAR w[PARAM_NAME_MAX];
            ULONG wlen = 0, seq = 0;
            DWORD attr = 0, cplus = 0;
            mdMethodDef owner = 0;
            const void *value = NULL;
            ULONG value_len = 0;
            if (FAILED(mdi->lpVtbl->GetParamProps(mdi, pd, &owner, &seq, w, PARAM_NAME_MAX, &wlen,
                                                  &attr, &cplus, &value, &value_len)))
                continue;
            ct_utf16_to_utf8(w, wlen, dst, PARAM_NAME_MAX);
            flags[i] = (uint16_t)(attr & (CLRSIG_PARAM_IN | CLRSIG_PARAM_OUT));
        }
    }

    uint32_t ng = sig.method.generic_count;
    if (ng && ctx.mdi2 && ng <= GENERIC_PARAMS_MAX) {
        generic_names = calloc(ng, PARAM_NAME_MAX);
        generic_ptrs = calloc(ng, sizeof *generic_ptrs);
        if (generic_names && generic_ptrs) {
            for (uint32_t i = 0; i < ng; i++) {
                char *dst = generic_names + (size_t)i * PARAM_NAME_MAX;
                generic_ptrs[i] = dst;
                if (generic_param_name(ctx.mdi2, md, i, dst, PARAM_NAME_MAX) != 0)
                    snprintf(dst, PARAM_NAME_MAX, "!!%u", i);
            }
        }
    }

    clrsig_resolver r = {.ctx = &ctx, .type_name = resolve_type_name,
                         .typespec = resolve_typespec, .generic_param = resolve_generic_param};
    clrsig_format_opts opts = {.style = CLRSIG_STYLE_CSHARP, .short_names = 0,
                               .scratch = &scratch};
    clrsig_method_names mn = {.owner = NULL, .name = method_name,
                              .generic_names = (generic_names && generic_ptrs) ? generic_ptrs
                                                                               : NULL,
                              .param_names = name_ptrs, .param_flags = flags};
    clrsig_status st = clrsig_format_method(&sig.method, &mn, &opts, &r, out, cap, NULL, &err);
    rc = (st == CLRSIG_OK || st == CLRSIG_E_OUTPUT_TRUNCATED) ? 0 : -1;

done:
    if (ctx.mdi2)
        ctx.mdi2->lpVtbl->Release(ctx.mdi2);
    free(generic_ptrs);
    free(generic_names);
    free(flags);
    free(name_ptrs);
    free(names);
    free(mem);
    return rc;
}
