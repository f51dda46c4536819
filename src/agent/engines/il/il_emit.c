/* What the IL engine's files share to write into a module's metadata
 * (il_emit.h): its write side, CoreLib's scope in it, the probes' calli
 * signatures. Used by ilprobe.c and inject_il.c, and uses neither. */
#include "il_emit.h"

#include "clrsig/clrsig.h"
#include "agent/runtime/state.h"

/* CorOpenFlags ofWrite (cor.h): GetModuleMetaData for IMetaDataEmit. */
#define OF_READ_WRITE 0x1u
/* The resolution scope of a module's own definitions (mdtModule, row 1). */
#define MODULE_SCOPE 0x00000001u

/* The resolution scope for a TypeRef to a CoreLib type in module m: the
 * scope of its TypeRef to System.Object (System.Runtime's or CoreLib's
 * AssemblyRef, as the compiler wrote it), or the module itself in CoreLib.
 * 0 when there is none. */
mdToken ct_il_corelib_scope(const ct_module *m)
{
    if (m->corelib)
        return MODULE_SCOPE;
    if (!m->mdi)
        return 0;
    IMetaDataImport *mdi = m->mdi;
    HCORENUM e = NULL;
    mdTypeRef refs[64];
    ULONG n = 0;
    mdToken scope = 0;
    while (!scope && SUCCEEDED(mdi->lpVtbl->EnumTypeRefs(mdi, &e, refs, 64, &n)) && n) {
        for (ULONG i = 0; i < n && !scope; i++) {
            WCHAR w[64];
            ULONG len = 0;
            mdToken s = 0;
            static const char want[] = "System.Object";
            if (FAILED(mdi->lpVtbl->GetTypeRefProps(mdi, refs[i], &s, w, 64, &len)) ||
                len != sizeof want)
                continue;
            int same = 1;
            for (ULONG k = 0; k + 1 < len && same; k++)
                same = w[k] == (WCHAR)want[k];
            /* An AssemblyRef scope (table 0x23), not a nested type's. */
            if (same && (s >> 24) == 0x23)
                scope = s;
        }
    }
    if (e)
        mdi->lpVtbl->CloseEnum(mdi, e);
    return scope;
}

int ct_il_calli_sig(mdTypeRef suppress, uint8_t ret, uint32_t nparams, uint8_t *blob,
                    size_t cap, uint32_t *len)
{
    uint32_t n = 0;
    if (cap < 8 + nparams ||
        clrsig_write_u((suppress & 0xFFFFFFu) << 2 | 1u, blob + 3, 5, &n) != CLRSIG_OK)
        return -1;
    blob[0] = 0x09;             /* IMAGE_CEE_CS_CALLCONV_UNMANAGED */
    blob[1] = (uint8_t)nparams;
    blob[2] = 0x20;             /* ELEMENT_TYPE_CMOD_OPT */
    blob[3 + n] = ret;          /* void, int32 */
    for (uint32_t i = 0; i < nparams; i++)
        blob[4 + n + i] = 0x18; /* native int */
    *len = 4 + n + nparams;
    return 0;
}

/* The write side of module mod's metadata, or NULL. */
IMetaDataEmit *ct_il_module_emit(ModuleID mod)
{
    IUnknown *unk = NULL;
    ICorProfilerInfo *info = g_ct.info;
    if (FAILED(info->lpVtbl->GetModuleMetaData(info, mod, OF_READ_WRITE, &IID_IMetaDataEmit,
                                               &unk)))
        return NULL;
    return (IMetaDataEmit *)unk;
}

/* A WCHAR copy of ASCII name (at most 96 characters). */
void ct_il_wide(const char *name, WCHAR *w)
{
    size_t i = 0;
    for (; name[i] && i < 96; i++)
        w[i] = (WCHAR)name[i];
    w[i] = 0;
}
