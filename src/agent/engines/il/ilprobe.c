/* The IL-probe engine: see ilprobe.h. */
#include "ilprobe.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clril/clril.h"
#include "clrsig/clrsig.h"
#include "agent/model/classnames.h"
#include "agent/model/plans/lineprobe.h"
#include "agent/hookside/clock.h"
#include "base/table.h"
#include "agent/model/modules.h"
#include "agent/model/registry.h"
#include "agent/model/utf16.h"
#include "agent/runtime/state.h"
#include "agent/writer/writer.h"
#include "il_emit.h"
#include "inject_il.h"
#include "probes.h"

/* Slack in each of a rewrite's arenas (alignment, small bodies). */
#define IL_ARENA_MIN (64u * 1024)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_modules;  /* {module, 0} -> its probe_sigs */
static ct_table g_done;     /* {module, method token} -> REWRITING, REWRITTEN (or tried) */
#define REWRITING ((uintptr_t)1)
#define REWRITTEN ((uintptr_t)2)
/* Longest wait for another thread's rewrite of the same method (its
 * instantiations compiled at once). */
#define IL_REWRITE_WAIT_NS (2000u * 1000 * 1000)
/* {module, method token} -> 1: an untraced method whose ReadyToRun code has
 * a traced method inlined (its precompiled code is refused too). */
static ct_table g_inliners;
static atomic_int g_any_inliners; /* g_inliners is not empty */
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
    /* Watched (the unhandled-exception path, record.h): its entry probe
     * tells the tracer to write what it has before the runtime aborts. */
    return f && (f->hooked || f->watched) ? f : NULL;
}

int ct_il_use_precompiled(FunctionID id)
{
    if (traced(id))
        return 0;
    if (!atomic_load_explicit(&g_any_inliners, memory_order_acquire))
        return 1;
    ClassID cls = 0;
    ModuleID mod = 0;
    mdToken tok = 0;
    if (FAILED(g_ct.info->lpVtbl->GetFunctionInfo(g_ct.info, id, &cls, &mod, &tok)))
        return 1;
    ct_key key = {mod, tok};
    pthread_mutex_lock(&g_lock);
    int inliner = ct_table_get_key(&g_inliners, key) != NULL;
    pthread_mutex_unlock(&g_lock);
    return !inliner;
}

/* The methods of module mod whose ReadyToRun code has method tok (traced)
 * inlined, into g_inliners. */
static void note_inliners(ModuleID mod, mdMethodDef tok)
{
    ICorProfilerInfo *info = g_ct.info;
    ICorProfilerMethodEnum *e = NULL;
    BOOL incomplete = 0;
    if (FAILED(info->lpVtbl->EnumNgenModuleMethodsInliningThisMethod(info, mod, mod, tok,
                                                                     &incomplete, &e)) ||
        !e)
        return;
    COR_PRF_METHOD batch[64];
    ULONG n = 0;
    while (SUCCEEDED(e->lpVtbl->Next(e, 64, batch, &n)) && n) {
        pthread_mutex_lock(&g_lock);
        for (ULONG i = 0; i < n; i++) {
            ct_key key = {batch[i].moduleId, batch[i].methodId};
            if (!ct_table_get_key(&g_inliners, key) && ct_table_put_key(&g_inliners, key, (void *)1) == 0)
                atomic_store_explicit(&g_any_inliners, 1, memory_order_release);
        }
        pthread_mutex_unlock(&g_lock);
        if (n < 64)
            break;
    }
    e->lpVtbl->Release(e);
}

/* Calls fn(ctx, m, tok) for every method tok of module m that the filter
 * traces. */
typedef struct traced_walk {
    void (*fn)(void *ctx, const ct_module *m, mdMethodDef tok);
    void *ctx;
} traced_walk;

static int if_traced(void *ctx, const ct_module *m, mdMethodDef tok)
{
    const traced_walk *w = ctx;
    if (ct_registry_traces(m, tok))
        w->fn(w->ctx, m, tok);
    return 0;
}

static void each_traced_method(const ct_module *m,
                               void (*fn)(void *ctx, const ct_module *m, mdMethodDef tok),
                               void *ctx)
{
    traced_walk w = {fn, ctx};
    ct_module_each_method(m, ct_registry_type_may_trace, if_traced, &w);
}

static void inliners_of(void *ctx, const ct_module *m, mdMethodDef tok)
{
    (void)ctx;
    note_inliners(m->id, tok);
}

void ct_il_module_loaded(ModuleID mod)
{
    if (g_ct.info_version < 6)
        return;
    const ct_module *m = ct_module_get(mod);
    if (m && m->mdi && ct_registry_module_may_trace(m))
        each_traced_method(m, inliners_of, NULL);
}

int ct_il_may_inline(FunctionID callee)
{
    return traced(callee) == NULL;
}

/* What the probes need in a module's metadata (0: none). */
typedef struct probe_sigs {
    mdToken one;      /* StandAloneSig: void (native int) */
    mdToken two;      /* StandAloneSig: void (native int, native int) */
    mdToken tointptr; /* MemberRef: native int RuntimeTypeHandle::ToIntPtr(RuntimeTypeHandle) */
    /* with[k]: void (native int x k + 1), the enter probe with k addresses
     * (k from 1; with[1] is two). */
    mdToken with[CT_PROBE_ENTER_ADDRS + 1];
    mdToken decide;   /* StandAloneSig: int32 (native int), --inject's decision */
} probe_sigs;

/* The first runtime with RuntimeTypeHandle.ToIntPtr (.NET 7) has
 * ICorProfilerInfo13. */
#define INFO_WITH_TOINTPTR 13

/* A calli signature with nparams native ints into blob[0..*len):
 *   unmanaged (0x09), nparams, modopt(CallConvSuppressGCTransition) void,
 *   native int...
 * (ECMA-335 II.23.2.3; the runtime reads the calling convention from the
 * return type's custom modifiers). */
static int calli_sig(mdTypeRef suppress, uint32_t nparams, uint8_t *blob, size_t cap,
                     uint32_t *len)
{
    return ct_il_calli_sig(suppress, 0x01 /* void */, nparams, blob, cap, len);
}

/* The MemberRef of RuntimeTypeHandle.ToIntPtr in a module (scope: its
 * TypeRefs' to CoreLib types), or 0: static, one parameter,
 *   native int (valuetype System.RuntimeTypeHandle)
 * The probes of generic code get the type handles that name their
 * instantiation with it (`ldtoken !0` pushes a RuntimeTypeHandle). */
static mdToken tointptr_ref(IMetaDataEmit *emit, mdToken scope)
{
    WCHAR w[97];
    mdTypeRef rth = 0;
    mdToken mr = 0;
    uint8_t blob[16];
    uint32_t n = 0;
    if (g_ct.info_version < INFO_WITH_TOINTPTR)
        return 0;
    ct_il_wide("System.RuntimeTypeHandle", w);
    if (FAILED(emit->lpVtbl->DefineTypeRefByName(emit, scope, w, &rth)) ||
        clrsig_write_u((rth & 0xFFFFFFu) << 2 | 1u, blob + 4, sizeof blob - 4, &n) != CLRSIG_OK)
        return 0;
    blob[0] = 0x00; /* DEFAULT: static */
    blob[1] = 1;    /* one parameter */
    blob[2] = 0x18; /* native int */
    blob[3] = 0x11; /* VALUETYPE */
    ct_il_wide("ToIntPtr", w);
    if (FAILED(emit->lpVtbl->DefineMemberRef(emit, rth, w, blob, 4 + n, &mr)))
        return 0;
    return mr;
}

/* What the probes need in module mod, made once; {0, 0, 0} when the module
 * cannot have it. */
static probe_sigs probe_sig(ModuleID mod)
{
    ct_key key = {mod, 0};
    pthread_mutex_lock(&g_lock);
    const probe_sigs *known = ct_table_get_key(&g_modules, key);
    pthread_mutex_unlock(&g_lock);
    probe_sigs s = {0};
    if (known)
        return *known;
    const ct_module *m = ct_module_get(mod);
    mdToken scope = m ? ct_il_corelib_scope(m) : 0;
    IMetaDataEmit *emit = scope ? ct_il_module_emit(mod) : NULL;
    if (emit) {
        WCHAR w[97];
        ct_il_wide("System.Runtime.CompilerServices.CallConvSuppressGCTransition", w);
        mdTypeRef tr = 0;
        uint8_t blob[16];
        uint32_t n = 0;
        if (SUCCEEDED(emit->lpVtbl->DefineTypeRefByName(emit, scope, w, &tr)) &&
            calli_sig(tr, 1, blob, sizeof blob, &n) == 0 &&
            SUCCEEDED(emit->lpVtbl->GetTokenFromSig(emit, blob, n, &s.one)) &&
            calli_sig(tr, 2, blob, sizeof blob, &n) == 0 &&
            SUCCEEDED(emit->lpVtbl->GetTokenFromSig(emit, blob, n, &s.two)) && s.one && s.two) {
            s.with[1] = s.two;
            for (uint32_t k = 2; k <= CT_PROBE_ENTER_ADDRS; k++)
                if (calli_sig(tr, k + 1, blob, sizeof blob, &n) != 0 ||
                    FAILED(emit->lpVtbl->GetTokenFromSig(emit, blob, n, &s.with[k])))
                    s.with[k] = 0;
            s.tointptr = tointptr_ref(emit, scope);
            if (ct_il_calli_sig(tr, 0x08 /* int32 */, 1, blob, sizeof blob, &n) != 0 ||
                FAILED(emit->lpVtbl->GetTokenFromSig(emit, blob, n, &s.decide)))
                s.decide = 0;
        } else {
            s = (probe_sigs){0};
        }
        emit->lpVtbl->Release(emit);
    }
    /* Kept for the process's life (one per module); a failed module keeps
     * its zeros. */
    probe_sigs *keep = malloc(sizeof *keep);
    if (!keep)
        return s;
    *keep = s;
    pthread_mutex_lock(&g_lock);
    const probe_sigs *raced = ct_table_get_key(&g_modules, key);
    if (raced) {
        s = *raced;
        free(keep);
    } else if (ct_table_put_key(&g_modules, key, keep) != 0) {
        free(keep);
    }
    pthread_mutex_unlock(&g_lock);
    return s;
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

/* ldc.i8 id; conv.i; then the call of fn. */
static void probe_code_id(clril_insn *code, uintptr_t id, void (*fn)(uintptr_t), mdToken sig)
{
    memset(code, 0, 2 * sizeof *code);
    code[0].op = CLRIL_LDC_I8;
    code[0].value = (int64_t)id;
    code[1].op = 0xD3; /* conv.i */
    probe_call(code, fn, sig);
}

/* ldc.i8 <f's record>; conv.i; then the call of fn. */
static void probe_code(clril_insn *code, const ct_mapped_fn *f, void (*fn)(uintptr_t),
                       mdToken sig)
{
    probe_code_id(code, (uintptr_t)f, fn, sig);
}

/* Most instructions of a line probe's code: each input's address handed
 * over, then the hit. */
#define HIT_MAX (PROBE_LEN * (CT_LINE_MAX_VALUES + 1))

/* One input's address (ldloca of the copy of `this`, self, or ldarga 0
 * without one; ldarga; ldloca), conv.u, into code[0..2). */
static void input_code(clril_insn *code, const ct_line_in *in, int64_t self)
{
    memset(code, 0, 2 * sizeof *code);
    if (in->kind == CT_LINE_IN_SELF && self >= 0) {
        code[0].op = CLRIL_LDLOCA;
        code[0].value = self;
    } else {
        code[0].op = in->kind == CT_LINE_IN_LOCAL ? CLRIL_LDLOCA : CLRIL_LDARGA;
        code[0].value = in->kind == CT_LINE_IN_SELF ? 0 : in->index;
    }
    code[1].op = CLRIL_CONV_U;
}

/* ldc.i8 fn; conv.i; calli sig, into code[0..3). */
static void native_call(clril_insn *code, uintptr_t fn, mdToken sig)
{
    memset(code, 0, 3 * sizeof *code);
    code[0].op = CLRIL_LDC_I8;
    code[0].value = (int64_t)fn;
    code[1].op = 0xD3; /* conv.i */
    code[2].op = CLRIL_CALLI;
    code[2].value = sig;
}

/* A line probe's code (model/plans/lineprobe.h, probes.h): its inputs'
 * addresses in batches of CT_PROBE_ENTER_ADDRS (args6), the last ones with
 * the probe (line_with[k]); one native call per batch. Returns its length
 * (at most HIT_MAX), or 0 when the module lacks a signature it needs. */
static uint32_t hit_code(clril_insn *code, const ct_line_probe *p, int64_t self, probe_sigs s,
                         const uintptr_t *with)
{
    const ct_il_line_probes *lp = ct_il_line_probes_get();
    uint32_t nin = p->nin < CT_LINE_MAX_VALUES ? p->nin : CT_LINE_MAX_VALUES;
    uint32_t last = nin ? (nin - 1) % CT_PROBE_ENTER_ADDRS + 1 : 0, n = 0, k = 0;
    mdToken six = s.with[CT_PROBE_ENTER_ADDRS - 1], end = last ? s.with[last] : s.one;
    if (!end || (nin > last && !six))
        return 0;
    for (; k + last < nin; k += CT_PROBE_ENTER_ADDRS) {
        for (uint32_t j = 0; j < CT_PROBE_ENTER_ADDRS; j++, n += 2)
            input_code(code + n, &p->in[k + j], self);
        native_call(code + n, lp->args6, six);
        n += 3;
    }
    for (; k < nin; k++, n += 2)
        input_code(code + n, &p->in[k], self);
    memset(code + n, 0, 2 * sizeof *code);
    code[n].op = CLRIL_LDC_I8;
    code[n].value = (int64_t)(uintptr_t)p;
    code[n + 1].op = 0xD3; /* conv.i */
    native_call(code + n + 2, with[last], end);
    return n + 5;
}

/* The line probe of lines at original IL offset off, or NULL. */
static const ct_line_probe *line_probe_at(const ct_line_probes *lines, uint32_t off)
{
    for (uint32_t k = 0; lines && k < lines->n; k++)
        if (lines->p[k].il_offset == off)
            return &lines->p[k];
    return NULL;
}

/* Whether the probes pass f's values: not for plans bound late (generic
 * code's, whose probes carry its definition's record: the rewritten IL
 * serves every instantiation). A state machine's MoveNext passes its `this`
 * (the values are its fields). */
static int probe_values(const ct_mapped_fn *f)
{
    return !g_ct.cfg.no_args && f->values && !f->late &&
           (f->sm_offsets || f->nargs <= CT_PROBE_MAX_ARGS);
}

/* The blob of f's return type in its signature sig[0..len): *off, *n; 0,
 * or -1 for void (or a signature not read). rt (a runtime-async method,
 * whose IL returns what its task gives): the T of its Task<T> or
 * ValueTask<T>; -1 for a Task or ValueTask. */
static int return_type(const uint8_t *sig, size_t len, int rt, uint32_t *off, uint32_t *n)
{
    uint32_t at = 1, v = 0, used = 0;
    if (len < 2)
        return -1;
    if ((sig[0] & CLRSIG_CC_GENERIC) && clrsig_read_u(sig + at, len - at, &v, &used) == CLRSIG_OK)
        at += used; /* generic parameter count */
    if (clrsig_read_u(sig + at, len - at, &v, &used) != CLRSIG_OK)
        return -1;
    at += used; /* parameter count */
    uint64_t mem[256];
    clrsig_arena arena;
    clrsig_arena_init(&arena, mem, sizeof mem);
    const clrsig_type *t = NULL;
    if (at >= len ||
        clrsig_parse_type(sig + at, len - at, NULL, &arena, &t, &used, NULL) != CLRSIG_OK)
        return -1;
    t = clrsig_strip(t);
    if (t->kind == CLRSIG_ET_VOID || t->kind == CLRSIG_ET_TYPEDBYREF)
        return -1;
    if (rt) {
        /* GENERICINST (CLASS | VALUETYPE) Task`1 1 T: T, last. */
        if (t->kind != CLRSIG_ET_GENERICINST || t->u.inst.argc != 1 ||
            t->u.inst.args[0]->offset >= used)
            return -1;
        *off = at + t->u.inst.args[0]->offset;
        *n = used - t->u.inst.args[0]->offset;
        return 0;
    }
    *off = at;
    *n = used;
    return 0;
}

/* The type of TypeDef td over its own type parameters, into out (room for
 * 8 + 2 * CT_MAX_TYPE_ARGS bytes): CLASS or VALUETYPE td, or GENERICINST
 * (CLASS | VALUETYPE) td nc VAR 0 .. VAR nc-1 (ECMA-335 II.23.2.12). Its
 * length, or 0 (more type parameters than CT_MAX_TYPE_ARGS). */
static uint32_t declaring_type_sig(const ct_module *m, mdTypeDef td, uint8_t *out)
{
    uint32_t nc = (uint32_t)ct_generic_param_count(m, td), n = 0, at = 0;
    if (nc > CT_MAX_TYPE_ARGS)
        return 0;
    if (nc)
        out[at++] = 0x15;
    out[at++] = ct_typedef_kind(m, td) == CT_TYPE_CLASS ? 0x12 : 0x11;
    if (clrsig_write_u((td & 0xFFFFFFu) << 2, out + at, 5, &n) != CLRSIG_OK)
        return 0;
    at += n;
    if (nc) {
        out[at++] = (uint8_t)nc;
        for (uint32_t i = 0; i < nc; i++) {
            out[at++] = 0x13;
            out[at++] = (uint8_t)i;
        }
    }
    return at;
}
#define TYPE_SIG_MAX (8 + 2 * CT_MAX_TYPE_ARGS)

/* The instructions copying `this` at the entry (add_locals). */
#define SELF_COPY_LEN 2

/* The locals a rewrite adds (add_locals): -1 where none. */
typedef struct added_locals {
    int64_t ret;  /* the return value's home (its address goes to the leave probe) */
    int64_t self; /* a copy of `this` (its address goes to the enter probe) */
    int64_t home; /* a runtime-async call's id (an int64; record/rtasync.c) */
} added_locals;

/* Adds to b's locals, in one new local signature, a home for the return
 * value of method tok (its type from the method's signature) when want_ret,
 * and one for a copy of its `this` when want_self and the method has one:
 * an object reference for a class, a managed pointer (`ref S`, which a GC
 * updates as it does the argument) for a value type. Why the copy: a
 * method whose `this` has its address taken cannot be compiled at tier 0
 * with on-stack replacement (the JIT's "OSR can't handle modifiable this"),
 * so one with a loop is compiled optimized at once, which took the C#
 * compiler's JIT twice as long as the probes without values, and compiled
 * every struct method with a loop (a release build's async state machine's
 * MoveNext among them) optimized at once. */
static added_locals add_locals(const ct_module *m, ModuleID mod, mdToken tok, clril_body *b,
                               int want_ret, int want_self, int want_home)
{
    added_locals out = {-1, -1, -1};
    IMetaDataImport *mdi = m->mdi;
    mdTypeDef td = 0;
    DWORD attr = 0, impl = 0;
    ULONG wlen = 0, sig_len = 0, rva = 0, old_len = 0;
    PCCOR_SIGNATURE sig = NULL, old = NULL;
    WCHAR w[1];
    uint32_t off = 0, n = 0;
    if (!mdi ||
        FAILED(mdi->lpVtbl->GetMethodProps(mdi, tok, &td, w, 1, &wlen, &attr, &sig, &sig_len,
                                           &rva, &impl)) ||
        !sig || !sig_len)
        return out;
    want_ret = want_ret && return_type(sig, sig_len, want_home, &off, &n) == 0;
    /* HASTHIS without EXPLICITTHIS (ECMA-335 II.15.3): object, or BYREF
     * and the value type. */
    uint8_t self_sig[1 + TYPE_SIG_MAX];
    uint32_t self_len = 0;
    if (want_self && (sig[0] & 0x60) == 0x20 && (td & 0xFFFFFF)) {
        self_sig[0] = 0x1C;
        self_len = 1;
        if (ct_typedef_kind(m, td) != CT_TYPE_CLASS) {
            self_sig[0] = 0x10;
            uint32_t t = declaring_type_sig(m, td, self_sig + 1);
            self_len = t ? 1 + t : 0;
        }
    }
    want_self = self_len > 0;
    if (!want_ret && !want_self && !want_home)
        return out;
    if (b->local_sig &&
        (FAILED(mdi->lpVtbl->GetSigFromToken(mdi, b->local_sig, &old, &old_len)) || !old))
        return out;
    uint32_t ntypes = (uint32_t)(want_ret ? n : 0) + self_len + (want_home ? 1 : 0);
    size_t cap = (size_t)old_len + ntypes + 8, len = 0;
    uint8_t *types = malloc(ntypes);
    uint8_t *blob = types ? malloc(cap) : NULL;
    IMetaDataEmit *emit = blob ? ct_il_module_emit(mod) : NULL;
    uint32_t first = 0, k = 0;
    mdToken local_sig = 0;
    clril_error err;
    if (emit) {
        if (want_ret)
            memcpy(types, sig + off, n);
        if (want_self)
            memcpy(types + (want_ret ? n : 0), self_sig, self_len);
        if (want_home)
            types[(want_ret ? n : 0) + self_len] = 0x0A; /* int64 */
        k = (uint32_t)want_ret + (uint32_t)want_self + (uint32_t)want_home;
        if (clril_locals_append(old, old_len, types, ntypes, k, blob, cap, &len, &first, &err) ==
                CLRIL_OK &&
            SUCCEEDED(emit->lpVtbl->GetTokenFromSig(emit, blob, (ULONG)len, &local_sig)) &&
            local_sig) {
            b->local_sig = local_sig;
            out.ret = want_ret ? (int64_t)first : -1;
            out.self = want_self ? (int64_t)first + (want_ret ? 1 : 0) : -1;
            out.home = want_home ? (int64_t)first + (want_ret ? 1 : 0) + (want_self ? 1 : 0) : -1;
        }
        emit->lpVtbl->Release(emit);
    }
    free(blob);
    free(types);
    return out;
}

/* Most instructions of the code before a ret (rt_leave_code's, with a value). */
#define LEAVE_MAX 11

/* `op index` (ldloca or ldarga: an address in the frame); conv.u; then the
 * call of probe with it and f's record (its StandAloneSig sig: two native
 * ints). Returns its length, ADDR_PROBE_LEN. */
#define ADDR_PROBE_LEN (2 + PROBE_LEN)
static uint32_t addr_probe_code(clril_insn *code, uint16_t op, int64_t index,
                                const ct_mapped_fn *f, uintptr_t probe, mdToken sig)
{
    memset(code, 0, 2 * sizeof *code);
    code[0].op = op;
    code[0].value = index;
    code[1].op = CLRIL_CONV_U;
    probe_code(code + 2, f, (void (*)(uintptr_t))probe, sig);
    return ADDR_PROBE_LEN;
}

/* A runtime-async method's (record/rtasync.c; home: the local of its call's
 * id): before each ret, ct_probe_rt_return with the return value's home
 * (local; -1: none: ct_probe_rt_leave) and home's address. Returns its
 * length. */
static uint32_t rt_leave_code(clril_insn *code, const ct_mapped_fn *f, int64_t local,
                              int64_t home, probe_sigs s)
{
    if (local < 0)
        return addr_probe_code(code, CLRIL_LDLOCA, home, f, (uintptr_t)ct_probe_rt_leave, s.two);
    /* stloc R; ldloca R; conv.u; ldloca H; conv.u; the probe; ldloc R (the
     * value back for the ret). */
    memset(code, 0, 3 * sizeof *code);
    code[0].op = CLRIL_STLOC;
    code[0].value = local;
    code[1].op = CLRIL_LDLOCA;
    code[1].value = local;
    code[2].op = CLRIL_CONV_U;
    uint32_t n = 3 + addr_probe_code(code + 3, CLRIL_LDLOCA, home, f,
                                     (uintptr_t)ct_probe_rt_return, s.with[2]);
    memset(code + n, 0, sizeof *code);
    code[n].op = CLRIL_LDLOC;
    code[n++].value = local;
    return n;
}

/* The code before a ret: the leave probe, given the return value's address
 * when local (its home) is not -1; an async body's under attach (self: the
 * home of the copy of its `this`, or -1: the argument itself), the address
 * of its `this`, as the enter probe takes it. Returns its length. */
static uint32_t leave_code(clril_insn *code, const ct_mapped_fn *f, const ct_il_probes *pr,
                           int64_t local, int body, int64_t self, probe_sigs s)
{
    if (body && pr->leave_this)
        return addr_probe_code(code, self >= 0 ? CLRIL_LDLOCA : CLRIL_LDARGA, self >= 0 ? self : 0,
                               f, (uintptr_t)pr->leave_this, s.two);
    if (local < 0) {
        probe_code(code, f, pr->leave, s.one);
        return PROBE_LEN;
    }
    /* stloc R; ldloca R; conv.u; ldc.i8 f; conv.i; ldc.i8 probe; conv.i;
     * calli; ldloc R (the value back for the ret). */
    static const uint16_t ops[] = {
        CLRIL_STLOC, CLRIL_LDLOCA, CLRIL_CONV_U, CLRIL_LDC_I8, 0xD3, CLRIL_LDC_I8, 0xD3,
        CLRIL_CALLI, CLRIL_LDLOC,
    };
    enum { N = sizeof ops / sizeof *ops };
    _Static_assert(N <= LEAVE_MAX, "the code before a ret fits LEAVE_MAX");
    memset(code, 0, N * sizeof *code);
    for (uint32_t i = 0; i < N; i++)
        code[i].op = ops[i];
    code[0].value = code[1].value = code[8].value = local;
    code[3].value = (int64_t)(uintptr_t)f;
    code[5].value = (int64_t)(uintptr_t)pr->ret;
    code[7].value = s.two;
    return N;
}

/* Whether method token tok of m (a MethodDef, MemberRef or MethodSpec of
 * one) is one of System.Runtime.CompilerServices.AsyncHelpers' awaits
 * (Await, AwaitAwaiter, UnsafeAwaitAwaiter): where a runtime-async method
 * suspends, and resumes after. */
static int is_await_method(const ct_module *m, mdToken tok)
{
    static const char type[] = "System.Runtime.CompilerServices.AsyncHelpers";
    IMetaDataImport *mdi = m->mdi;
    WCHAR w[CT_NAME_MAX];
    char name[CT_NAME_MAX * 3], owner[CT_NAME_MAX * 3];
    ULONG len = 0, sig_len = 0;
    PCCOR_SIGNATURE sig = NULL;
    mdToken parent = 0;
    if ((tok >> 24) == 0x2B) { /* MethodSpec */
        if (!m->mdi2 ||
            FAILED(m->mdi2->lpVtbl->GetMethodSpecProps(m->mdi2, tok, &parent, &sig, &sig_len)))
            return 0;
        tok = parent;
    }
    if ((tok >> 24) == 0x0A) { /* MemberRef: its parent a TypeRef (or TypeDef) */
        if (FAILED(mdi->lpVtbl->GetMemberRefProps(mdi, tok, &parent, w, CT_NAME_MAX, &len, &sig,
                                                  &sig_len)))
            return 0;
    } else if ((tok >> 24) == 0x06) {
        DWORD attr = 0, impl = 0;
        ULONG rva = 0;
        if (FAILED(mdi->lpVtbl->GetMethodProps(mdi, tok, &parent, w, CT_NAME_MAX, &len, &attr,
                                               &sig, &sig_len, &rva, &impl)))
            return 0;
    } else {
        return 0;
    }
    ct_utf16_to_utf8(w, len, name, sizeof name);
    if (strcmp(name, "Await") && strcmp(name, "AwaitAwaiter") && strcmp(name, "UnsafeAwaitAwaiter"))
        return 0;
    if ((parent >> 24) == 0x01) {
        mdToken scope = 0;
        if (FAILED(mdi->lpVtbl->GetTypeRefProps(mdi, parent, &scope, w, CT_NAME_MAX, &len)))
            return 0;
        ct_utf16_to_utf8(w, len, owner, sizeof owner);
    } else if ((parent >> 24) != 0x02 || ct_typedef_name(m, parent, 1, owner, sizeof owner) != 0) {
        return 0;
    }
    return !strcmp(owner, type);
}

/* 1 when instruction i of b is a call prefixed by tail. */
static int tail_call_at(const clril_body *b, uint32_t i)
{
    uint16_t op = b->insns[i].op;
    return i > 0 && (op == CLRIL_CALL || op == CLRIL_CALLVIRT || op == CLRIL_CALLI) &&
           b->insns[i - 1].op == CLRIL_TAIL;
}

/* The entry code that hands the probes the type handles naming the
 * instantiation that runs generic code (method tok of module mod): the
 * declaring class, exact (`ldtoken` of the class over its
 * own type parameters, or of its TypeDef), then each of the method's type
 * arguments (`ldtoken !!j`), each `call RuntimeTypeHandle::ToIntPtr`, then
 * ct_probe_targ. Into code[0..): the number of instructions, or -1. */
#define MAX_HANDLES (CT_MAX_TYPE_ARGS + 1)
/* The instructions that keep a null `this` from being asked for its class. */
#define NULL_GUARD_LEN 5
static int handles_code(const ct_module *m, ModuleID mod, mdToken tok, probe_sigs sig,
                        clril_insn *code)
{
    mdTypeDef td = 0;
    DWORD attr = 0, impl = 0;
    ULONG wlen = 0, sig_len = 0, rva = 0;
    PCCOR_SIGNATURE msig = NULL;
    WCHAR w[1];
    if (!sig.tointptr || !m->mdi ||
        FAILED(m->mdi->lpVtbl->GetMethodProps(m->mdi, tok, &td, w, 1, &wlen, &attr, &msig,
                                              &sig_len, &rva, &impl)) ||
        !(td & 0xFFFFFF))
        return -1;
    /* The numbers of type parameters from metadata (the runtime's ClassID
     * of shared code may be 0 before .NET 10). */
    uint32_t nc = (uint32_t)ct_generic_param_count(m, td);
    uint32_t nm = (uint32_t)ct_generic_param_count(m, tok);
    if (nc > CT_MAX_TYPE_ARGS || nm + 1 > MAX_HANDLES)
        return -1;
    IMetaDataEmit *emit = ct_il_module_emit(mod);
    if (!emit)
        return -1;
    mdToken toks[MAX_HANDLES];
    int ok = 1;
    uint8_t blob[TYPE_SIG_MAX];
    if (!nc) {
        toks[0] = td;
    } else {
        uint32_t len = declaring_type_sig(m, td, blob);
        ok = len && SUCCEEDED(emit->lpVtbl->GetTokenFromTypeSpec(emit, blob, len, &toks[0]));
    }
    for (uint32_t j = 0; ok && j < nm; j++) {
        blob[0] = 0x1E; /* MVAR */
        blob[1] = (uint8_t)j;
        ok = SUCCEEDED(emit->lpVtbl->GetTokenFromTypeSpec(emit, blob, 2, &toks[1 + j]));
    }
    emit->lpVtbl->Release(emit);
    if (!ok)
        return -1;
    /* An instance method of a generic class finds its class through `this`
     * (the generic context of code shared by reference types), which IL
     * `call` or a delegate closed over null may make null: then the class
     * is not asked for, and 0 goes to the probe (the call is its
     * definition's): ldarg.0; brtrue.s L; ldc.i4.0; conv.i; br.s M;
     * L: ldtoken; call ToIntPtr; M: the probe call. */
    uint32_t at = 0;
    int guard = nc && msig && sig_len && (msig[0] & CLRSIG_CC_HASTHIS) && ct_typedef_kind(m, td) == CT_TYPE_CLASS;
    if (guard) {
        memset(code, 0, NULL_GUARD_LEN * sizeof *code);
        code[0].op = CLRIL_LDARG_0;
        code[1].op = CLRIL_BRTRUE_S;
        code[1].target = NULL_GUARD_LEN;
        code[2].op = CLRIL_LDC_I4_0;
        code[3].op = CLRIL_CONV_I;
        code[4].op = CLRIL_BR_S;
        code[4].target = NULL_GUARD_LEN + 2;
        at = NULL_GUARD_LEN;
    }
    for (uint32_t k = 0; k < nm + 1; k++, at += PROBE_LEN) {
        clril_insn *c = code + at;
        memset(c, 0, 2 * sizeof *c);
        c[0].op = 0xD0; /* ldtoken */
        c[0].value = toks[k];
        c[1].op = CLRIL_CALL;
        c[1].value = sig.tointptr;
        probe_call(c, ct_probe_targ, sig.one);
    }
    return (int)at;
}

/* clril_insert into the other of the two arenas the body goes between
 * (a[1], a[2]; *cur: the one it is in, 0 while in the decoded one), which
 * it is in after: 0, or -1. */
static int insert_in_turn(clril_body *b, uint32_t at, const clril_insn *code, uint32_t n,
                          clril_label label, clril_arena *a, int *cur)
{
    clril_error err;
    int next = *cur == 1 ? 2 : 1;
    clril_arena_reset(&a[next]);
    if (clril_insert(b, at, code, n, label, &a[next], &err) != CLRIL_OK)
        return -1;
    *cur = next;
    return 0;
}

/* IL opcodes the exception filter uses (ECMA-335 III.3.34, III.4.24). */
#define OP_ENDFILTER 0xFE11
#define OP_RETHROW 0xFE1A
/* Instructions of the filter, handler and epilogue besides the probe's. */
#define FAULT_EXTRA 8

/* --locals: wraps the body of b (every probe in it already) in
 *   .try { the body, each ret now `stloc R; leave E` (R: ret_local, the
 *          return value's home; none for void) }
 *   filter { pop; the locals probe (its inputs' addresses, then
 *            fault_with[k]); ldc.i4.0; endfilter }
 *   { pop; rethrow }       (never runs: the filter never catches)
 *   E: ldloc R; ret
 * The filter runs in the exception's first pass, as the runtime looks for
 * a handler and before any finally of the frame runs; it returns 0, so the
 * search goes on to the callers exactly as without it (the clause is the
 * last of the table: every clause of the method's own is inside it and is
 * asked first). Returns 0, or -1 (the body is then not to be used). The
 * insertions go to the arenas in turn, as the rewrite's. */
static int fault_wrap(clril_body *b, const ct_line_probe *fp, int64_t ret_local, int64_t self,
                      probe_sigs s, clril_arena *a, int *cur, clril_insn *code,
                      clril_clause **eh_out)
{
    /* A value's home before each ret (taking its label: a branch to the
     * ret carries the value). */
    for (uint32_t i = b->ninsns; ret_local >= 0 && i-- > 0;) {
        if (b->insns[i].op != CLRIL_RET)
            continue;
        clril_insn st;
        memset(&st, 0, sizeof st);
        st.op = CLRIL_STLOC;
        st.value = ret_local;
        if (insert_in_turn(b, i, &st, 1, CLRIL_TAKE_LABEL, a, cur) != 0)
            return -1;
    }
    /* The filter, the handler and the epilogue, after the body (taking the
     * end's label: a clause of the body's that ends at the end still does). */
    uint32_t n = 0;
    memset(code, 0, sizeof *code);
    code[n++].op = CLRIL_POP;
    uint32_t hn = hit_code(code + n, fp, self, s, ct_il_line_probes_get()->fault_with);
    if (!hn)
        return -1;
    n += hn;
    memset(code + n, 0, 6 * sizeof *code);
    code[n++].op = CLRIL_LDC_I4_0;
    code[n++].op = OP_ENDFILTER;
    uint32_t handler = n;
    code[n++].op = CLRIL_POP;
    code[n++].op = OP_RETHROW;
    uint32_t epilogue = n;
    if (ret_local >= 0) {
        code[n].op = CLRIL_LDLOC;
        code[n++].value = ret_local;
    }
    code[n++].op = CLRIL_NOP; /* the ret, below (insert takes none) */
    uint32_t body_end = b->ninsns;
    if (insert_in_turn(b, body_end, code, n, CLRIL_TAKE_LABEL, a, cur) != 0)
        return -1;
    uint32_t e = body_end + epilogue;
    /* Each ret of the body leaves the try for the epilogue. */
    for (uint32_t i = 0; i < body_end; i++)
        if (b->insns[i].op == CLRIL_RET) {
            b->insns[i].op = CLRIL_LEAVE;
            b->insns[i].operand = CLRIL_OPERAND_BR32;
            b->insns[i].target = e;
        }
    b->insns[b->ninsns - 1].op = CLRIL_RET;
    b->insns[b->ninsns - 1].operand = CLRIL_OPERAND_NONE;
    clril_clause *eh = malloc(((size_t)b->neh + 1) * sizeof *eh);
    if (!eh)
        return -1;
    if (b->neh)
        memcpy(eh, b->eh, (size_t)b->neh * sizeof *eh);
    eh[b->neh] = (clril_clause){.flags = CLRIL_CLAUSE_FILTER, .try_start = 0,
                                .try_end = body_end, .handler_start = body_end + handler,
                                .handler_end = e, .class_token = 0, .filter_start = body_end};
    b->eh = eh;
    b->neh++;
    *eh_out = eh;
    return 0;
}

/* --inject: the faults' code (inject_il.h) put after the entry's probes
 * (at index at, keeping the label of the body's first instruction: a
 * branch back to it does not decide again), its placeholders made rets.
 * 0 (also when no fault's code could be made: the method is traced as
 * usual), or -1 (the body is then not to be used). */
static int inject_faults(const ct_mapped_fn *f, const ct_module *m, ModuleID mod, mdToken tok,
                         probe_sigs sig, const ct_il_probes *pr, int64_t local, int64_t self,
                         uint32_t at, clril_body *b, clril_arena *a, int *cur)
{
    clril_insn leave[LEAVE_MAX];
    uint32_t rets[CT_INJECT_MAX], nrets = 0;
    clril_insn *code = malloc(CT_IL_INJECT_MAX * sizeof *code);
    if (!code)
        return -1;
    ct_il_inject_in in = {
        .f = f, .m = m, .mod = mod, .tok = tok, .decide_sig = sig.decide, .leave = leave,
        .nleave = leave_code(leave, f, pr, local, 0, self, sig), .ret_local = local,
    };
    uint32_t n = ct_il_inject_code(&in, code, rets, &nrets);
    int rc = 0;
    if (n) {
        rc = insert_in_turn(b, at, code, n, CLRIL_KEEP_LABEL, a, cur);
        for (uint32_t i = 0; rc == 0 && i < nrets; i++) {
            b->insns[at + rets[i]].op = CLRIL_RET;
            b->insns[at + rets[i]].operand = CLRIL_OPERAND_NONE;
        }
        /* The faults' values and the leave probe's three above them. */
        if (b->max_stack < CT_IL_INJECT_STACK)
            b->max_stack = CT_IL_INJECT_STACK;
    }
    free(code);
    return rc;
}

/* The rewrite's working memory, kept per thread between compilations (a
 * fresh allocation each time, megabytes for a large body, would fault its
 * pages in again for every method); one larger than IL_SCRATCH_KEEP is
 * given back after use. */
#define IL_SCRATCH_KEEP (1u << 20)
static __thread uint8_t *t_scratch;
static __thread size_t t_scratch_cap;

static uint8_t *scratch(size_t need)
{
    if (need > t_scratch_cap) {
        free(t_scratch);
        t_scratch = malloc(need);
        t_scratch_cap = t_scratch ? need : 0;
    }
    return t_scratch;
}

static void scratch_done(void)
{
    if (t_scratch_cap > IL_SCRATCH_KEEP) {
        free(t_scratch);
        t_scratch = NULL;
        t_scratch_cap = 0;
    }
}

/* Rewrites the body of (mod, tok) with f's probes: 0, or -1 (left as it is).
 * The new body goes to the runtime through ctl when given (ReJIT, attach:
 * the runtime copies it), else through SetILFunctionBody (JIT time).
 * Each insertion copies the body into the other of two arenas (libclril
 * rebuilds every array), so memory stays at twice one copy however many
 * rets the method has. */
static int rewrite(const ct_mapped_fn *f, FunctionID id, ModuleID mod, mdToken tok,
                   ICorProfilerFunctionControl *ctl)
{
    COR_IL_MAP *map = NULL;
    clril_insn *hit = NULL;
    clril_clause *eh = NULL; /* --locals: the clauses with the filter's (fault_wrap) */
    ICorProfilerInfo *info = g_ct.info;
    const BYTE *hdr = NULL;
    ULONG size = 0;
    const ct_module *m = ct_module_get(mod);
    if (!m || FAILED(info->lpVtbl->GetILFunctionBody(info, mod, tok, &hdr, &size)) || !hdr ||
        !size || size > CT_IL_MAX_BODY)
        return -1;
    probe_sigs sig = probe_sig(mod);
    if (!sig.one)
        return -1;
    /* An instruction takes a byte at least; each copy of the body holds its
     * instructions, the probes' (9 per ret, 5 per tail call and at the entry
     * per type handle, argument and for the call: a ret takes a byte), switch targets (4
     * bytes of IL each), clauses and sections (12 bytes of IL each at
     * least). */
    const ct_line_probes *lines = !g_ct.cfg.no_args ? f->lines : NULL;
    /* (--locals: a stloc more before each ret, the filter and its probe.) */
    size_t wrap = f->locals ? (size_t)size + HIT_MAX + FAULT_EXTRA : 0;
    size_t per = ((size_t)size * (LEAVE_MAX + 1) + 16 + wrap +
                  (lines ? (size_t)lines->n * HIT_MAX : 0) +
                  PROBE_LEN * (CT_PROBE_MAX_ARGS + 1 + MAX_HANDLES) + NULL_GUARD_LEN + SELF_COPY_LEN +
                  (f->inject ? CT_IL_INJECT_MAX : 0)) *
                     sizeof(clril_insn) + IL_ARENA_MIN;
    uint8_t *mem = scratch(3 * per);
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
    int values = !g_ct.cfg.no_args;
    const ct_il_probes *pr = ct_il_probes_for(values);
    /* Generic code: the entry first hands over the type handles that name
     * the instantiation running (its plans are the instantiation's). */
    clril_insn entry[PROBE_LEN * (CT_PROBE_MAX_ARGS + 1 + MAX_HANDLES) + NULL_GUARD_LEN + SELF_COPY_LEN +
                      ADDR_PROBE_LEN];
    int nh = values && f->definition && f->nargs <= CT_PROBE_MAX_ARGS && !f->sm_offsets
                 ? handles_code(m, mod, tok, sig, entry) : -1;
    int with_values = nh >= 0 || probe_values(f);
    /* The return value's home, and a copy of `this` (add_locals). */
    uint32_t nargs = !with_values ? 0 : f->sm_offsets ? 1 : f->nargs;
    /* A runtime-async method: its call's id in a local of its own
     * (record/rtasync.c); without it, the method is not rewritten (its
     * suspensions would leave its frame open). */
    int rt = f->rt_async;
    /* --locals: the body wrapped in an exception filter (fault_wrap): not
     * with a tail call (none may be inside a try), not a runtime-async
     * method's. */
    const ct_line_probe *fault = with_values && !rt && !g_ct.cfg.no_args ? f->locals : NULL;
    for (uint32_t i = 0; fault && i < b.ninsns; i++)
        if (b.insns[i].op == CLRIL_TAIL)
            fault = NULL;
    /* --inject: not a runtime-async method's (model/inject_bind.c binds none). */
    const int inject = f->inject != NULL && !rt && sig.decide;
    added_locals locals = add_locals(m, mod, tok, &b,
                                     with_values && f->has_ret &&
                                         (f->ret || nh >= 0 || fault != NULL || inject),
                                     nargs > 0, rt);
    if (fault && f->has_ret && locals.ret < 0)
        fault = NULL;
    if (rt && locals.home < 0)
        goto out;
    int64_t local = locals.ret;
    /* Under attach the builders are not rewritten: an async body's leave
     * looks at its task itself (probes.h, leave_this). */
    int async_body = g_ct.attached && with_values && f->sm_offsets &&
                     f->sm_fault_at != CT_SM_NO_FIELD && !f->has_ret;
    clril_insn code[LEAVE_MAX];
    /* From the end, so that the indexes ahead stay valid: before each ret
     * (taking its label: every path to it runs the probe), and before the
     * tail. prefix of a tail call (which must stay right before its ret);
     * last, at the entry, keeping the first instruction's label: a loop back
     * to it does not enter again. */
    /* (A runtime-async method's: whether the original instruction after
     * the one looked at is an await, as the step before found.) */
    int await_after = 0;
    /* Room for a line probe's code, or the filter's (fault_wrap). */
    hit = lines || fault ? malloc((HIT_MAX + FAULT_EXTRA) * sizeof *hit) : NULL;
    if ((lines || fault) && !hit)
        goto out;
    for (uint32_t i = b.ninsns; i-- > 0;) {
        uint32_t at = i, n = PROBE_LEN;
        uint32_t orig = b.insns[i].offset;
        /* A line probe here, unless before a ret a tail call must stay
         * right before. */
        const ct_line_probe *lp = lines && orig != CLRIL_NEW &&
                                          !(b.insns[i].op == CLRIL_RET && i >= 2 &&
                                            tail_call_at(&b, i - 1))
                                      ? line_probe_at(lines, orig)
                                      : NULL;
        clril_label label = CLRIL_TAKE_LABEL;
        int awaits = rt && b.insns[i].op == CLRIL_CALL &&
                     is_await_method(m, (mdToken)b.insns[i].value);
        int awaited = await_after && (b.insns[i].op == CLRIL_CALL || b.insns[i].op == CLRIL_CALLVIRT);
        await_after = awaits;
        if (awaits) {
            /* After an await, where the runtime resumes the method: the
             * code that falls out of the call (branches to the next
             * instruction do not come from it). */
            n = addr_probe_code(code, CLRIL_LDLOCA, locals.home, f,
                                (uintptr_t)ct_probe_rt_resumed, sig.two);
            at = i + 1;
            label = CLRIL_KEEP_LABEL;
        } else if (awaited) {
            /* An awaited call: its callee, runtime-async, is of this
             * method's chain (it suspends when the callee does). */
            n = addr_probe_code(code, CLRIL_LDLOCA, locals.home, f,
                                (uintptr_t)ct_probe_rt_awaiting, sig.two);
            label = CLRIL_KEEP_LABEL;
        } else if (b.insns[i].op != CLRIL_RET) {
            n = 0;
        } else if (rt) {
            n = rt_leave_code(code, f, local, locals.home, sig);
        } else if (i >= 2 && tail_call_at(&b, i - 1)) {
            probe_code(code, f, pr->tailcall, sig.one);
            at = i - 2;
        } else {
            n = leave_code(code, f, pr, local, async_body, locals.self, sig);
        }
        if (n && insert_in_turn(&b, at, code, n, label, a, &cur) != 0)
            goto out;
        if (lp) {
            /* Before the instruction (and the leave probe put before a
             * ret), taking its label: every path to the line runs it. */
            uint32_t hn = hit_code(hit, lp, locals.self, sig, ct_il_line_probes_get()->line_with);
            if (!hn || insert_in_turn(&b, i, hit, hn, CLRIL_TAKE_LABEL, a, &cur) != 0)
                goto out;
        }
    }
    /* The entry: with values, each argument's address (ldarga; conv.u: an
     * unmanaged pointer to the argument's home on the stack, which does not
     * move), `this` first: the last CT_PROBE_ENTER_ADDRS (or fewer) in the
     * enter probe's own call, any before them one call each. A state
     * machine's MoveNext passes its `this` only: its values are fields of
     * it. */
    uint32_t batched = nargs < CT_PROBE_ENTER_ADDRS ? nargs : CT_PROBE_ENTER_ADDRS;
    if (batched && (!sig.with[batched] || !pr->enter_with[batched]))
        batched = 0;
    uint32_t ne = nh > 0 ? (uint32_t)nh : 0;
    if (locals.self >= 0) {
        /* `this` copied first: ldarg.0; stloc T. The address handed over
         * is then T's. */
        memset(&entry[ne], 0, 2 * sizeof *entry);
        entry[ne++].op = CLRIL_LDARG;
        entry[ne].op = CLRIL_STLOC;
        entry[ne++].value = locals.self;
    }
    for (uint32_t i = 0; i < nargs; i++) {
        memset(&entry[ne], 0, 2 * sizeof *entry);
        entry[ne].op = i == 0 && locals.self >= 0 ? CLRIL_LDLOCA : CLRIL_LDARGA;
        entry[ne].value = i == 0 && locals.self >= 0 ? locals.self : (int64_t)i;
        entry[ne + 1].op = CLRIL_CONV_U;
        if (i < nargs - batched) {
            probe_call(&entry[ne], ct_probe_arg, sig.one);
            ne += PROBE_LEN;
        } else {
            ne += 2;
        }
    }
    if (batched) {
        /* ldc.i8 f; conv.i; ldc.i8 probe; conv.i; calli with[batched] */
        probe_code(entry + ne, f, (void (*)(uintptr_t))pr->enter_with[batched],
                   sig.with[batched]);
    } else {
        probe_code(entry + ne, f, pr->enter, sig.one);
    }
    ne += PROBE_LEN;
    if (rt) {
        ne += addr_probe_code(entry + ne, CLRIL_LDLOCA, locals.home, f,
                              (uintptr_t)ct_probe_rt_begin, sig.two);
    }
    if (insert_in_turn(&b, 0, entry, ne, CLRIL_KEEP_LABEL, a, &cur) != 0)
        goto out;
    if (inject && inject_faults(f, m, mod, tok, sig, pr, local, locals.self, ne, &b, a, &cur) != 0)
        goto out;
    if (fault) {
        if (fault_wrap(&b, fault, f->has_ret ? locals.ret : -1, locals.self, sig, a, &cur,
                               hit, &eh) != 0)
            goto out;
    }
    /* A probe needs three slots (two arguments and the target) above what
     * is on the stack: at most the return value at a ret (stored to its
     * home first when the probe is given it); at the entry, with nothing
     * under it, the enter probe's addresses, its function and target. */
    b.max_stack = b.max_stack > 0xFFFF - 3 ? 0xFFFF : (uint16_t)(b.max_stack + 3);
    if (b.max_stack < batched + 2)
        b.max_stack = (uint16_t)(batched + 2);
    /* A line probe's batch: its addresses, the probe and the target, above
     * what may be on the stack at its line (the filter's: above nothing). */
    if (lines || fault)
        b.max_stack = b.max_stack > 0xFFFF - (CT_PROBE_ENTER_ADDRS + 2)
                          ? 0xFFFF : (uint16_t)(b.max_stack + CT_PROBE_ENTER_ADDRS + 2);
    /* The original offset of each instruction (CLRIL_NEW: a probe's), for
     * the map from the old offsets to the new ones. */
    map = malloc((size_t)b.ninsns * sizeof *map);
    if (!map)
        goto out;
    uint32_t nmap = 0;
    for (uint32_t i = 0; i < b.ninsns; i++)
        if (b.insns[i].offset != CLRIL_NEW)
            map[nmap++] = (COR_IL_MAP){b.insns[i].offset, i, 1};
    size_t need = 0;
    uint8_t probe[1];
    if (clril_encode(&b, probe, 0, &need, &err) != CLRIL_E_SPACE || !need)
        goto out;
    if (ctl) {
        /* After attach, metadata made since the module loaded is usable once
         * applied (ICorProfilerInfo7::ApplyMetaData). */
        uint8_t *out = malloc(need);
        size_t len = 0;
        if (out && clril_encode(&b, out, need, &len, &err) == CLRIL_OK &&
            g_ct.info_version >= 7 && SUCCEEDED(info->lpVtbl->ApplyMetaData(info, mod)) &&
            SUCCEEDED(ctl->lpVtbl->SetILFunctionBody(ctl, (ULONG)len, out)))
            rc = 0;
        free(out);
    } else {
        IMethodMalloc *mm = NULL;
        if (FAILED(info->lpVtbl->GetILFunctionBodyAllocator(info, mod, &mm)) || !mm)
            goto out;
        uint8_t *out = mm->lpVtbl->Alloc(mm, (ULONG)need);
        size_t len = 0;
        if (out && clril_encode(&b, out, need, &len, &err) == CLRIL_OK &&
            SUCCEEDED(info->lpVtbl->SetILFunctionBody(info, mod, tok, out)))
            rc = 0;
        mm->lpVtbl->Release(mm);
    }
    if (rc == 0) {
        /* Where each original instruction is now: the runtime maps the IL
         * offsets of the new body back to the original ones (the lines of
         * an exception's stack trace are the program's own). Sorted by
         * both offsets, one entry per original instruction: an inserted
         * one reads as the original instruction before it. */
        for (uint32_t k = 0; k < nmap; k++)
            map[k].newOffset = b.insns[map[k].newOffset].offset;
        /* The runtime copies the map (a later call replaces it); it keys
         * it by the method definition, every instantiation and tier. */
        if (ctl)
            ctl->lpVtbl->SetILInstrumentedCodeMap(ctl, nmap, map);
        else
            info->lpVtbl->SetILInstrumentedCodeMap(info, id, 1, nmap, map);
    }
out:
    free(eh);
    free(hit);
    free(map);
    scratch_done();
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
    /* Generic code: the probes carry the definition's record (the IL serves
     * every instantiation; the entry tells which one runs); an
     * instantiation compiled apart gets its record now, while the runtime
     * answers every query. */
    if (f->generic) {
        if (!(f = ct_registry_definition(id, mod, tok)))
            return;
        ct_registry_prepare_instance(f, id);
    }
    /* Once per method definition: its instantiations share the IL (the
     * runtime keeps the new body for every later compilation of it). Another
     * thread compiling another instantiation meanwhile waits for the body
     * (else its JIT would read the original IL), at most
     * IL_REWRITE_WAIT_NS. */
    ct_key key = {mod, tok};
    pthread_mutex_lock(&g_lock);
    uintptr_t state = (uintptr_t)ct_table_get_key(&g_done, key);
    if (!state)
        ct_table_put_key(&g_done, key, (void *)REWRITING);
    pthread_mutex_unlock(&g_lock);
    if (state) {
        uint64_t t0 = ct_now_ns();
        while (state == REWRITING && ct_now_ns() - t0 < IL_REWRITE_WAIT_NS) {
            sched_yield();
            pthread_mutex_lock(&g_lock);
            state = (uintptr_t)ct_table_get_key(&g_done, key);
            pthread_mutex_unlock(&g_lock);
        }
        return;
    }
    /* The probes of generic code call RuntimeTypeHandle.ToIntPtr (and what
     * it calls, where the JIT does not expand it): traced themselves
     * (everything traced), their probes would run inside another entry's,
     * between its type handles. A body it cannot rewrite runs as it is,
     * counted (the END record). */
    if (strncmp(f->name, "System.RuntimeTypeHandle.", 25) != 0 &&
        rewrite(f, id, mod, tok, NULL) != 0 && f->hooked)
        ct_writer_count_unrewritten();
    pthread_mutex_lock(&g_lock);
    ct_table_put_key(&g_done, key, (void *)REWRITTEN);
    pthread_mutex_unlock(&g_lock);
}

/* ------------------------------------------------------------- attach */

/* Method tok of m: 0 without IL (abstract, extern, made by the runtime), 1
 * plain, 2 generic code (a generic method, or any method of a generic
 * type). */
static int method_kind(const ct_module *m, mdMethodDef tok)
{
    mdTypeDef td = 0;
    DWORD attr = 0, impl = 0;
    ULONG wlen = 0, sig_len = 0, rva = 0;
    PCCOR_SIGNATURE sig = NULL;
    WCHAR w[1];
    if (!m->mdi ||
        FAILED(m->mdi->lpVtbl->GetMethodProps(m->mdi, tok, &td, w, 1, &wlen, &attr, &sig,
                                              &sig_len, &rva, &impl)) ||
        !rva || !sig || !sig_len)
        return 0;
    return (sig[0] & CLRSIG_CC_GENERIC) || ct_generic_param_count(m, tok) || ct_generic_param_count(m, td)
               ? 2 : 1;
}

/* Whether method tok of m can be rewritten after attach: 1; 0 when it has
 * no IL; -1 for generic code that cannot be (before .NET 7, or CoreLib's:
 * the probes of generic code call RuntimeTypeHandle.ToIntPtr, and CoreLib's
 * generic code is what that call may reach). */
static int attach_candidate(const ct_module *m, mdMethodDef tok)
{
    int kind = method_kind(m, tok);
    if (kind == 2 && (g_ct.info_version < INFO_WITH_TOINTPTR || m->corelib))
        return -1;
    return kind ? 1 : 0;
}

/* Appends (mod, tok) to the growing arrays of s. */
static int attach_push(ct_il_methods *s, ModuleID mod, mdMethodDef tok)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        ModuleID *mods = realloc(s->mods, cap * sizeof *mods);
        if (mods)
            s->mods = mods;
        mdMethodDef *toks = mods ? realloc(s->toks, cap * sizeof *toks) : NULL;
        if (!toks)
            return -1;
        s->toks = toks;
        s->cap = cap;
    }
    s->mods[s->n] = mod;
    s->toks[s->n++] = tok;
    return 0;
}

static void choose(void *ctx, const ct_module *m, mdMethodDef tok)
{
    ct_il_methods *s = ctx;
    int can = attach_candidate(m, tok);
    if (can < 0)
        s->skipped++;
    else if (can > 0 && attach_push(s, m->id, tok) != 0)
        s->failed = 1;
}

void ct_il_attach_module(ct_il_methods *s, ModuleID mod)
{
    const ct_module *m = ct_module_get(mod);
    if (m && m->mdi && ct_registry_module_may_trace(m))
        each_traced_method(m, choose, s);
}

int ct_il_attach_methods(ct_il_methods *s)
{
    memset(s, 0, sizeof *s);
    ICorProfilerInfo *info = g_ct.info;
    ICorProfilerModuleEnum *e = NULL;
    if (FAILED(info->lpVtbl->EnumModules(info, &e)) || !e)
        return -1;
    ModuleID batch[64];
    ULONG n = 0;
    while (SUCCEEDED(e->lpVtbl->Next(e, 64, batch, &n)) && n) {
        for (ULONG i = 0; i < n; i++)
            ct_il_attach_module(s, batch[i]);
        if (n < 64)
            break;
    }
    e->lpVtbl->Release(e);
    return s->failed ? -1 : 0;
}

/* The session's chosen methods: {module, token} -> SESSION_* bits. The
 * runtime also asks GetReJITParameters for the methods that inlined a
 * chosen one (RequestReJITWithInliners): those are not in the table and keep
 * their IL. */
static pthread_mutex_t g_session_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_session;
#define SESSION_CHOSEN 1u    /* chosen by the filter */
/* Its probes' body given to the runtime. The runtime asks for it when the
 * new code is first compiled, at the method's first call since the attach:
 * a method never called since has neither this bit nor the next. */
#define SESSION_REWRITTEN 2u
#define SESSION_REFUSED 4u   /* left as it was (counted once) */

/* ORs bits into (mod, tok)'s when it is chosen; its bits before (0: not
 * chosen). */
static uintptr_t session_mark(ModuleID mod, mdMethodDef tok, uintptr_t bits)
{
    ct_key key = {mod, tok};
    pthread_mutex_lock(&g_session_lock);
    uintptr_t was = (uintptr_t)ct_table_get_key(&g_session, key);
    if (was && (was | bits) != was)
        ct_table_put_key(&g_session, key, (void *)(was | bits));
    pthread_mutex_unlock(&g_session_lock);
    return was;
}

/* (mod, tok), chosen, was not rewritten: counted (once) in the END record. */
static void session_refused(ModuleID mod, mdMethodDef tok)
{
    if (!(session_mark(mod, tok, SESSION_REFUSED) & SESSION_REFUSED))
        ct_writer_count_unrewritten();
}

HRESULT ct_il_attach_rejit(const ct_il_methods *s)
{
    ICorProfilerInfo *info = g_ct.info;
    if (!s->n)
        return S_OK;
    pthread_mutex_lock(&g_session_lock);
    for (size_t i = 0; i < s->n; i++) {
        ct_key key = {s->mods[i], s->toks[i]};
        if (!ct_table_get_key(&g_session, key))
            ct_table_put_key(&g_session, key, (void *)(uintptr_t)SESSION_CHOSEN);
    }
    pthread_mutex_unlock(&g_session_lock);
    /* Blocking the methods from being inlined is the runtime's rule for
     * this call; the methods that had them inlined are compiled again. */
    return info->lpVtbl->RequestReJITWithInliners(info, COR_PRF_REJIT_BLOCK_INLINING,
                                                  (ULONG)s->n, s->mods, s->toks);
}

void ct_il_attach_revert(const ct_il_methods *s)
{
    ICorProfilerInfo *info = g_ct.info;
    if (!s->n)
        return;
    HRESULT *status = calloc(s->n, sizeof *status);
    info->lpVtbl->RequestRevert(info, (ULONG)s->n, s->mods, s->toks, status);
    free(status);
}

int ct_il_methods_append(ct_il_methods *s, const ct_il_methods *more)
{
    for (size_t i = 0; i < more->n; i++)
        if (attach_push(s, more->mods[i], more->toks[i]) != 0)
            return -1;
    s->skipped += more->skipped;
    return 0;
}

void ct_il_methods_free(ct_il_methods *s)
{
    free(s->mods);
    free(s->toks);
    memset(s, 0, sizeof *s);
}

void ct_il_rejit_parameters(ModuleID mod, mdMethodDef tok, ICorProfilerFunctionControl *ctl)
{
    ICorProfilerInfo *info = g_ct.info;
    /* A method that inlined a chosen one: compiled again from its own IL. */
    if (!session_mark(mod, tok, 0))
        return;
    const ct_module *m = ct_module_get(mod);
    FunctionID id = 0;
    ct_mapped_fn *f = NULL;
    if (!m) {
        f = NULL;
    } else if (method_kind(m, tok) == 2) {
        /* Generic code has no FunctionID of its own: its probes carry its
         * definition's record, made from metadata, and its entry names the
         * instantiation that runs. */
        f = ct_registry_definition(0, mod, tok);
    } else if (SUCCEEDED(info->lpVtbl->GetFunctionFromToken(info, mod, tok, &id)) && id) {
        f = traced(id);
    }
    /* Chosen and not rewritten (no record for it, or a body the engine
     * cannot rewrite): it runs as it was, counted and named at the end. */
    if (f && rewrite(f, id, mod, tok, ctl) == 0)
        session_mark(mod, tok, SESSION_REWRITTEN);
    else
        session_refused(mod, tok);
}

void ct_il_rejit_error(ModuleID mod, mdMethodDef tok)
{
    if (session_mark(mod, tok, 0))
        session_refused(mod, tok);
    else
        ct_writer_count_unrewritten(); /* an inliner left with its old code */
}

/* The session's methods as a list, for the report. */
typedef struct session_list {
    ct_key *keys;
    uintptr_t *bits;
    size_t n, cap;
} session_list;

static void session_collect(void *ctx, ct_key key, void *value)
{
    session_list *l = ctx;
    if (l->n < l->cap) {
        l->keys[l->n] = key;
        l->bits[l->n++] = (uintptr_t)value;
    }
}

/* The name of chosen method (mod, tok) as the trace shows it, into buf. */
static const char *session_name(ModuleID mod, mdMethodDef tok, char *buf, size_t cap)
{
    FunctionID id = 0;
    ct_mapped_fn *f = NULL;
    if (SUCCEEDED(g_ct.info->lpVtbl->GetFunctionFromToken(g_ct.info, mod, tok, &id)) && id)
        f = traced(id);
    if (!f)
        f = ct_registry_definition(0, mod, tok);
    if (f && f->display)
        return f->display;
    snprintf(buf, cap, "method 0x%08x of module %#llx", (unsigned)tok, (unsigned long long)mod);
    return buf;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends one line to out (cap bytes, *used of them taken); a line that does
 * not fit is left out. */
static void report_line(char *out, size_t cap, size_t *used, const char *line)
{
    size_t n = strlen(line);
    if (*used + n + 2 > cap)
        return;
    memcpy(out + *used, line, n);
    out[*used + n] = '\n';
    *used += n + 1;
    out[*used] = '\0';
}

void ct_il_attach_report(char *out, size_t cap)
{
    size_t used = 0;
    if (out && cap)
        out[0] = '\0';
    session_list l = {0};
    pthread_mutex_lock(&g_session_lock);
    l.cap = g_session.used;
    l.keys = l.cap ? malloc(l.cap * sizeof *l.keys) : NULL;
    l.bits = l.cap ? malloc(l.cap * sizeof *l.bits) : NULL;
    if (l.keys && l.bits)
        ct_table_each(&g_session, session_collect, &l);
    pthread_mutex_unlock(&g_session_lock);
    char line[1024], name[96];
    size_t refused = 0;
    for (size_t i = 0; i < l.n; i++)
        refused += (l.bits[i] & SESSION_REFUSED) != 0;
    if (out && refused) {
        int k = snprintf(line, sizeof line, "%zu chosen method%s not rewritten (the runtime did "
                         "not take the probes; %s untraced):", refused,
                         refused == 1 ? "" : "s", refused == 1 ? "it ran" : "they ran");
        size_t shown = 0;
        for (size_t i = 0; i < l.n && k > 0 && (size_t)k < sizeof line; i++) {
            if (!(l.bits[i] & SESSION_REFUSED))
                continue;
            const char *nm = session_name(l.keys[i].a, (mdMethodDef)l.keys[i].b, name, sizeof name);
            if (shown == 4 || (size_t)k + strlen(nm) + 8 >= sizeof line) {
                snprintf(line + k, sizeof line - (size_t)k, " ...");
                break;
            }
            k += snprintf(line + k, sizeof line - (size_t)k, "%s %s", shown ? "," : "", nm);
            shown++;
        }
        report_line(out, cap, &used, line);
    }
    /* The chosen methods never called since the attach, by name: the
     * runtime asks for a rewritten body at a method's first call, so these
     * had no call of their own; whether one ran inside code compiled
     * before the attach (inlined into a dynamic method) is not known. */
    const char **names = l.n && out ? malloc(l.n * sizeof *names) : NULL;
    size_t uncalled = 0;
    for (size_t i = 0; names && i < l.n; i++) {
        if (l.bits[i] & (SESSION_REWRITTEN | SESSION_REFUSED))
            continue;
        names[uncalled] =
            strdup(session_name(l.keys[i].a, (mdMethodDef)l.keys[i].b, name, sizeof name));
        if (names[uncalled])
            uncalled++;
    }
    if (uncalled) {
        qsort(names, uncalled, sizeof *names, by_text);
        int k = snprintf(out + used, cap - used,
                         "%zu chosen method%s had 0 calls since the attach (not called since, or "
                         "called only from code compiled before it that the runtime cannot "
                         "recompile: dynamic methods such as serializers, dependency injection "
                         "and request delegates; trace the program from its start to see "
                         "them):",
                         uncalled, uncalled == 1 ? "" : "s");
        size_t at = k > 0 && (size_t)k < cap - used ? used + (size_t)k : used;
        for (size_t i = 0; at > used && i < uncalled; i++) {
            size_t n = strlen(names[i]);
            if (at + n + 4 >= cap) {
                at += (size_t)snprintf(out + at, cap - at, " ...");
                break;
            }
            at += (size_t)snprintf(out + at, cap - at, "%s %s", i ? ";" : "", names[i]);
        }
        if (at > used && at + 1 < cap) {
            out[at++] = '\n';
            out[at] = '\0';
            used = at;
        } else {
            out[used] = '\0';
        }
    }
    for (size_t i = 0; names && i < uncalled; i++)
        free((void *)names[i]);
    free(names);
    free(l.keys);
    free(l.bits);
    pthread_mutex_lock(&g_session_lock);
    ct_table_free(&g_session);
    pthread_mutex_unlock(&g_session_lock);
}
