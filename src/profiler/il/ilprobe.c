/* The IL-probe engine: see ilprobe.h. */
#include "ilprobe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clril/clril.h"
#include "clrsig/clrsig.h"
#include "hooks.h"
#include "map.h"
#include "modules.h"
#include "registry.h"
#include "state.h"

/* CorOpenFlags ofWrite (cor.h): GetModuleMetaData for IMetaDataEmit. */
#define OF_READ_WRITE 0x1u
/* The resolution scope of a module's own definitions (mdtModule, row 1). */
#define MODULE_SCOPE 0x00000001u
/* Slack in each of a rewrite's arenas (alignment, small bodies). */
#define IL_ARENA_MIN (64u * 1024)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_map g_modules;  /* {module, 0} -> (the probe signature token) + 1, or 1: failed */
static ct_map g_done;     /* {module, method token} -> 1: rewritten (or tried) */
static atomic_ulong g_compiled;

unsigned long ct_il_compiled(void)
{
    return atomic_load(&g_compiled);
}

/* The traced function's record, or NULL when id is not traced. */
static ct_mapped_fn *traced(FunctionID id)
{
    BOOL hook = 0;
    UINT_PTR cid = ct_function_mapper(id, NULL, &hook);
    ct_mapped_fn *f = cid != id ? (ct_mapped_fn *)cid : NULL;
    return f && f->hooked ? f : NULL;
}

int ct_il_use_precompiled(FunctionID id)
{
    return traced(id) == NULL;
}

int ct_il_may_inline(FunctionID callee)
{
    return traced(callee) == NULL;
}

/* The resolution scope for a TypeRef to a CoreLib type in module m: the
 * scope of its TypeRef to System.Object (System.Runtime's or CoreLib's
 * AssemblyRef, as the compiler wrote it), or the module itself in CoreLib.
 * 0 when there is none. */
static mdToken corelib_scope(const ct_module *m)
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

/* The StandAloneSig of the probes' calli in module mod, made once:
 *   unmanaged (0x09), 1 parameter, modopt(CallConvSuppressGCTransition)
 *   void (native int)
 * (ECMA-335 II.23.2.3; the runtime reads the calling convention from the
 * return type's custom modifiers). 0 when the module cannot have it. */
static mdToken probe_sig(ModuleID mod)
{
    ct_key key = {mod, 0};
    pthread_mutex_lock(&g_lock);
    uintptr_t known = (uintptr_t)ct_map_get(&g_modules, key);
    pthread_mutex_unlock(&g_lock);
    if (known)
        return (mdToken)(known - 1);
    mdToken sig = 0;
    const ct_module *m = ct_module_get(mod);
    mdToken scope = m ? corelib_scope(m) : 0;
    IUnknown *unk = NULL;
    ICorProfilerInfo *info = g_ct.info;
    if (scope && SUCCEEDED(info->lpVtbl->GetModuleMetaData(info, mod, OF_READ_WRITE,
                                                           &IID_IMetaDataEmit, &unk)) && unk) {
        IMetaDataEmit *emit = (IMetaDataEmit *)unk;
        static const char name[] = "System.Runtime.CompilerServices.CallConvSuppressGCTransition";
        WCHAR w[sizeof name];
        for (size_t i = 0; i < sizeof name; i++)
            w[i] = (WCHAR)name[i];
        mdTypeRef tr = 0;
        uint8_t blob[16];
        uint32_t n = 0;
        if (SUCCEEDED(emit->lpVtbl->DefineTypeRefByName(emit, scope, w, &tr)) &&
            clrsig_write_u((tr & 0xFFFFFFu) << 2 | 1u, blob + 3, sizeof blob - 6, &n) ==
                CLRSIG_OK) {
            blob[0] = 0x09; /* IMAGE_CEE_CS_CALLCONV_UNMANAGED */
            blob[1] = 1;    /* one parameter */
            blob[2] = 0x20; /* ELEMENT_TYPE_CMOD_OPT */
            blob[3 + n] = 0x01; /* void */
            blob[4 + n] = 0x18; /* native int */
            if (FAILED(emit->lpVtbl->GetTokenFromSig(emit, blob, 5 + n, &sig)))
                sig = 0;
        }
        emit->lpVtbl->Release(emit);
    }
    pthread_mutex_lock(&g_lock);
    ct_map_put(&g_modules, key, (void *)(uintptr_t)(sig + 1));
    pthread_mutex_unlock(&g_lock);
    return sig;
}

/* A probe call: code[0..2) pushes its argument (the caller's), then
 * ldc.i8 fn; conv.i; calli sig. code[] is cleared first. */
#define PROBE_LEN 5
static void probe_call(clril_insn *code, void (*fn)(uintptr_t), mdToken sig)
{
    memset(code + 2, 0, 3 * sizeof *code);
    code[2].op = CLRIL_LDC_I8;
    code[2].value = (int64_t)(uintptr_t)fn;
    code[3].op = 0xD3; /* conv.i */
    code[4].op = CLRIL_CALLI;
    code[4].value = sig;
}

/* ldc.i8 <f's record>; conv.i; then the call of fn. */
static void probe_code(clril_insn *code, const ct_mapped_fn *f, void (*fn)(uintptr_t),
                       mdToken sig)
{
    memset(code, 0, 2 * sizeof *code);
    code[0].op = CLRIL_LDC_I8;
    code[0].value = (int64_t)(uintptr_t)f;
    code[1].op = 0xD3; /* conv.i */
    probe_call(code, fn, sig);
}

/* Whether f may be generic (its type or itself): the rewritten IL serves
 * every instantiation, and the probes carry the first one's record, whose
 * plans would read another instantiation's arguments wrongly; such methods
 * are recorded without values. Compiler-generated names ("<>c") count too:
 * cautious. */
static int generic(const ct_mapped_fn *f)
{
    return (f->name && (strchr(f->name, '`') || strchr(f->name, '<'))) ||
           (f->display && strchr(f->display, '<'));
}

/* 1 when instruction i of b is a call prefixed by tail. */
static int tail_call_at(const clril_body *b, uint32_t i)
{
    uint16_t op = b->insns[i].op;
    return i > 0 && (op == CLRIL_CALL || op == 0x6F /* callvirt */ || op == CLRIL_CALLI) &&
           b->insns[i - 1].op == CLRIL_TAIL;
}

/* Rewrites the body of (mod, tok) with f's probes: 0, or -1 (left as it is).
 * Each insertion copies the body into the other of two arenas (libclril
 * rebuilds every array), so memory stays at twice one copy however many
 * rets the method has. */
static int rewrite(const ct_mapped_fn *f, ModuleID mod, mdToken tok)
{
    ICorProfilerInfo *info = g_ct.info;
    const BYTE *hdr = NULL;
    ULONG size = 0;
    if (FAILED(info->lpVtbl->GetILFunctionBody(info, mod, tok, &hdr, &size)) || !hdr || !size ||
        size > CT_IL_MAX_BODY)
        return -1;
    mdToken sig = probe_sig(mod);
    if (!sig)
        return -1;
    /* An instruction takes a byte at least; each copy of the body holds its
     * instructions, the probes' (5 per ret, tail call and entry: a ret
     * takes a byte), switch targets (4 bytes of IL each), clauses and
     * sections (12 bytes of IL each at least). */
    size_t per = ((size_t)size * 6 + 16) * sizeof(clril_insn) + IL_ARENA_MIN;
    uint8_t *mem = malloc(3 * per);
    if (!mem)
        return -1;
    int rc = -1;
    clril_arena a[3];
    for (int k = 0; k < 3; k++)
        clril_arena_init(&a[k], mem + (size_t)k * per, per);
    clril_body b;
    clril_error err;
    int cur = 0; /* the arena the body is in: 0 (decoded), then 1 and 2 in turn */
    if (clril_decode(hdr, size, &a[0], &b, &err) != CLRIL_OK)
        goto out;
    for (uint32_t i = 0; i < b.ninsns; i++)
        if (b.insns[i].op == 0x27 /* jmp: leaves with the caller's arguments */)
            goto out;
    clril_insn code[PROBE_LEN];
    /* From the end, so that the indexes ahead stay valid: before each ret
     * (taking its label: every path to it runs the probe), and before the
     * tail. prefix of a tail call (which must stay right before its ret);
     * last, at the entry, keeping the first instruction's label: a loop back
     * to it does not enter again. */
    int values = !g_ct.cfg.no_args;
    for (uint32_t i = b.ninsns; i-- > 0;) {
        uint32_t at = i;
        if (b.insns[i].op != CLRIL_RET) {
            continue;
        } else if (i >= 2 && tail_call_at(&b, i - 1)) {
            probe_code(code, f, values ? ct_probe_tailcall : ct_fast_tailcall, sig);
            at = i - 2;
        } else {
            probe_code(code, f, values ? ct_probe_leave : ct_fast_leave, sig);
        }
        int next = cur == 1 ? 2 : 1;
        clril_arena_reset(&a[next]);
        if (clril_insert(&b, at, code, PROBE_LEN, CLRIL_TAKE_LABEL, &a[next], &err) != CLRIL_OK)
            goto out;
        cur = next;
    }
    /* The entry: with values, each argument's address first (ldarga;
     * conv.u: an unmanaged pointer to the argument's home on the stack, which
     * does not move), `this` first, then the enter probe. */
    /* Not for a state machine's MoveNext shown as its async method (its
     * values are fields of `this`; its parameters are not MoveNext's), nor
     * for shared generic code (its plans are not known). */
    uint32_t nargs = values && f->values && !f->sm_offsets && !f->late && !generic(f) &&
                             f->nargs <= CT_PROBE_MAX_ARGS ? f->nargs : 0;
    clril_insn entry[PROBE_LEN * (CT_PROBE_MAX_ARGS + 1)];
    uint32_t ne = 0;
    for (uint32_t i = 0; i < nargs; i++, ne += PROBE_LEN) {
        memset(&entry[ne], 0, 2 * sizeof *entry);
        entry[ne].op = CLRIL_LDARGA;
        entry[ne].value = i;
        entry[ne + 1].op = CLRIL_CONV_U;
        probe_call(&entry[ne], ct_probe_arg, sig);
    }
    probe_code(entry + ne, f, values ? ct_probe_enter : ct_fast_enter, sig);
    ne += PROBE_LEN;
    int next = cur == 1 ? 2 : 1;
    clril_arena_reset(&a[next]);
    if (clril_insert(&b, 0, entry, ne, CLRIL_KEEP_LABEL, &a[next], &err) != CLRIL_OK)
        goto out;
    /* The probe needs two slots above what is on the stack (a return value). */
    b.max_stack = b.max_stack > 0xFFFF - 2 ? 0xFFFF : (uint16_t)(b.max_stack + 2);
    size_t need = 0;
    uint8_t probe[1];
    if (clril_encode(&b, probe, 0, &need, &err) != CLRIL_E_SPACE || !need)
        goto out;
    IMethodMalloc *mm = NULL;
    if (FAILED(info->lpVtbl->GetILFunctionBodyAllocator(info, mod, &mm)) || !mm)
        goto out;
    uint8_t *out = mm->lpVtbl->Alloc(mm, (ULONG)need);
    size_t len = 0;
    if (out && clril_encode(&b, out, need, &len, &err) == CLRIL_OK &&
        SUCCEEDED(info->lpVtbl->SetILFunctionBody(info, mod, tok, out)))
        rc = 0;
    mm->lpVtbl->Release(mm);
out:
    free(mem);
    return rc;
}

void ct_il_jit_started(FunctionID id)
{
    atomic_fetch_add(&g_compiled, 1);
    ct_mapped_fn *f = traced(id);
    if (!f)
        return;
    ICorProfilerInfo *info = g_ct.info;
    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tok = 0;
    if (FAILED(info->lpVtbl->GetFunctionInfo(info, id, &cls, &mod, &tok)))
        return;
    /* Once per method definition: its instantiations share the IL (the
     * runtime keeps the new body for every later compilation of it). */
    ct_key key = {mod, tok};
    pthread_mutex_lock(&g_lock);
    int seen = ct_map_get(&g_done, key) != NULL;
    if (!seen)
        ct_map_put(&g_done, key, (void *)1);
    pthread_mutex_unlock(&g_lock);
    if (seen)
        return;
    rewrite(f, mod, tok); /* a body it cannot rewrite runs as it is */
}
