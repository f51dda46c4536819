/* The function registry (src/agent/model/registry.c) alone: the runtime's
 * ICorProfilerInfo and IMetaDataImport are small fakes here (tables of
 * functions and methods), the modules, the names of types and the planner
 * are stubs; the filter (runtime/config.c) is the real one. Checks that a
 * function is mapped once however often (and from however many threads) the
 * mapper is called, that it is found again, and that the registry tells of
 * each new record once (on_defined, on_watched). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/model/modules.h"
#include "agent/model/plans/plans.h"
#include "agent/model/plans/internal.h"
#include "agent/model/plans/lineprobe.h"
#include "agent/model/registry.h"
#include "agent/model/utf16.h"
#include "agent/runtime/state.h"

ct_state g_ct;

/* ---------------------------------------------------- the fake runtime */

#define MOD_DEMO 0x7700
#define MOD_CORELIB 0x8800
#define TD_PROGRAM 0x02000002u
#define TD_APPCONTEXT 0x02000003u

typedef struct fake_fn {
    FunctionID id;
    ModuleID mod;
    mdMethodDef tok;
} fake_fn;

typedef struct fake_method {
    ModuleID mod;
    mdMethodDef tok;
    mdTypeDef td;
    const char *name;
    const uint8_t *sig;
    ULONG sig_len;
} fake_method;

static const uint8_t k_sig_plain[] = {0x20, 0x00, 0x01};       /* instance void () */
static const uint8_t k_sig_generic[] = {0x30, 0x01, 0x00, 0x01}; /* instance void <T> () */

static const fake_fn k_functions[] = {
    {0x1000, MOD_DEMO, 0x06000001},
    {0x2000, MOD_DEMO, 0x06000002},
    {0x3000, MOD_CORELIB, 0x06000010},
    {0x4000, MOD_DEMO, 0x06000003},
    {0x5000, MOD_DEMO, 0x06000004},
};

static const fake_method k_methods[] = {
    {MOD_DEMO, 0x06000001, TD_PROGRAM, "Run", k_sig_plain, sizeof k_sig_plain},
    {MOD_DEMO, 0x06000002, TD_PROGRAM, "Skipped", k_sig_plain, sizeof k_sig_plain},
    {MOD_CORELIB, 0x06000010, TD_APPCONTEXT, "OnUnhandledException", k_sig_plain,
     sizeof k_sig_plain},
    {MOD_DEMO, 0x06000003, TD_PROGRAM, "Pick", k_sig_generic, sizeof k_sig_generic},
    {MOD_DEMO, 0x06000004, TD_PROGRAM, "Raced", k_sig_plain, sizeof k_sig_plain},
};

static atomic_int g_info_calls;        /* GetFunctionInfo2 */
static pthread_barrier_t g_race;       /* both threads inside GetFunctionInfo2 of 0x5000 */
static atomic_int g_race_on;

static HRESULT fake_GetFunctionInfo2(ICorProfilerInfo *self, FunctionID id,
                                     COR_PRF_FRAME_INFO frame, ClassID *cls, ModuleID *mod,
                                     mdToken *tok, ULONG32 cargs, ULONG32 *nargs, ClassID *args)
{
    (void)self, (void)frame, (void)cargs, (void)args;
    atomic_fetch_add(&g_info_calls, 1);
    if (id == 0x5000 && atomic_load(&g_race_on))
        pthread_barrier_wait(&g_race);
    for (size_t i = 0; i < sizeof k_functions / sizeof *k_functions; i++)
        if (k_functions[i].id == id) {
            *cls = 0;
            *mod = k_functions[i].mod;
            *tok = k_functions[i].tok;
            *nargs = 0;
            return S_OK;
        }
    return E_FAIL;
}

static HRESULT fake_GetFunctionInfo(ICorProfilerInfo *self, FunctionID id, ClassID *cls,
                                    ModuleID *mod, mdToken *tok)
{
    (void)self, (void)id, (void)cls, (void)mod, (void)tok;
    return E_FAIL; /* an IL stub: no metadata */
}

static HRESULT fake_GetMethodProps(IMetaDataImport *self, mdMethodDef mb, mdTypeDef *td,
                                   WCHAR *name, ULONG cch, ULONG *len, DWORD *attr,
                                   PCCOR_SIGNATURE *sig, ULONG *sig_len, ULONG *rva,
                                   DWORD *impl)
{
    (void)self, (void)attr, (void)rva, (void)impl;
    for (size_t i = 0; i < sizeof k_methods / sizeof *k_methods; i++) {
        const fake_method *m = &k_methods[i];
        if (m->tok != mb)
            continue;
        ULONG n = 0;
        for (; m->name[n] && n < cch; n++)
            name[n] = (WCHAR)m->name[n];
        *len = n;
        *td = m->td;
        *sig = m->sig;
        *sig_len = m->sig_len;
        return S_OK;
    }
    return E_FAIL;
}

static ICorProfilerInfoVtbl g_info_vtbl;
static ICorProfilerInfo g_info = {&g_info_vtbl};
static IMetaDataImportVtbl g_mdi_vtbl;
static IMetaDataImport g_mdi = {&g_mdi_vtbl};

static const ct_module k_demo = {MOD_DEMO, &g_mdi, NULL, 0, 0, "Demo", NULL};
static const ct_module k_corelib = {MOD_CORELIB, &g_mdi, NULL, 1, 1, "System.Private.CoreLib", NULL};

/* ------------------------------------------ stubs of the model's others */

const ct_module *ct_module_get(ModuleID id)
{
    return id == MOD_DEMO ? &k_demo : id == MOD_CORELIB ? &k_corelib : NULL;
}

int ct_typedef_name(const ct_module *m, mdTypeDef td, int with_ns, char *out, size_t cap)
{
    (void)m, (void)with_ns;
    snprintf(out, cap, "%s", td == TD_PROGRAM ? "Demo.Program" : "System.AppContext");
    return 0;
}

/* ct_method_props (modules.c) over the fake metadata: the method's name
 * from GetMethodProps, joined to its type's stub name. */
int ct_method_props(const ct_module *m, mdMethodDef tok, char *method, char *full,
                    mdTypeDef *td, PCCOR_SIGNATURE *sig, ULONG *sig_len, DWORD *impl)
{
    IMetaDataImport *mdi = m->mdi;
    WCHAR w[CT_NAME_MAX];
    ULONG wlen = 0, rva = 0;
    DWORD attr = 0;
    if (FAILED(mdi->lpVtbl->GetMethodProps(mdi, tok, td, w, CT_NAME_MAX, &wlen, &attr, sig,
                                           sig_len, &rva, impl)))
        return -1;
    ct_utf16_to_utf8(w, wlen, method, CT_NAME_MAX * 3);
    char type[64];
    ct_typedef_name(m, *td, 1, type, sizeof type);
    snprintf(full, CT_METHOD_FULL_MAX, "%s.%s", type, method);
    return 0;
}

int ct_generic_param_count(const ct_module *m, mdToken owner)
{
    (void)m, (void)owner;
    return 0;
}

int ct_plan_is_canon(ClassID cls)
{
    (void)cls;
    return 0;
}

static atomic_int g_planned;

int ct_plan_function(ct_mapped_fn *f, const ct_method_info *mi)
{
    (void)f, (void)mi;
    atomic_fetch_add(&g_planned, 1);
    return 0;
}

/* No --at: no line probes. */
int ct_lineprobe_any(void)
{
    return 0;
}

void ct_lineprobe_forget(void)
{
}

int ct_lineprobe_in_module(const ct_module *m)
{
    (void)m;
    return 0;
}

int ct_lineprobe_targets(const ct_module *m, mdMethodDef tok)
{
    (void)m, (void)tok;
    return 0;
}

int ct_lineprobe_in_type(const ct_module *m, mdTypeDef td)
{
    (void)m, (void)td;
    return 0;
}

const ct_line_probes *ct_lineprobe_plan(const ct_mapped_fn *f, const ct_method_info *mi)
{
    (void)f, (void)mi;
    return NULL;
}

const ct_line_probe *ct_lineprobe_locals_plan(const ct_mapped_fn *f, const ct_method_info *mi)
{
    (void)f, (void)mi;
    return NULL;
}

int ct_plan_state_machine(ct_mapped_fn *f, const ct_method_info *mi)
{
    (void)f, (void)mi;
    return -1;
}

/* ------------------------------------------------ what the registry tells */

#define MAX_TOLD 16
static const ct_mapped_fn *g_defined[MAX_TOLD], *g_watched[MAX_TOLD];
static atomic_int g_ndefined, g_nwatched;

static void on_defined(const ct_mapped_fn *f)
{
    int i = atomic_fetch_add(&g_ndefined, 1);
    if (i < MAX_TOLD)
        g_defined[i] = f;
}

static void on_watched(const ct_mapped_fn *f)
{
    int i = atomic_fetch_add(&g_nwatched, 1);
    if (i < MAX_TOLD)
        g_watched[i] = f;
}

static int setup(void **state)
{
    (void)state;
    g_info_vtbl.GetFunctionInfo2 = fake_GetFunctionInfo2;
    g_info_vtbl.GetFunctionInfo = fake_GetFunctionInfo;
    g_mdi_vtbl.GetMethodProps = fake_GetMethodProps;
    memset(&g_ct, 0, sizeof g_ct);
    g_ct.info = &g_info;
    g_ct.cfg.exclude = "Demo.Program.Skipped";
    ct_registry_events ev = {on_defined, on_watched};
    ct_registry_setup(&ev);
    ct_registry_forget();
    atomic_store(&g_ndefined, 0);
    atomic_store(&g_nwatched, 0);
    atomic_store(&g_info_calls, 0);
    atomic_store(&g_planned, 0);
    return 0;
}

/* ------------------------------------------------------------- tests */

static void test_mapped_once(void **state)
{
    (void)state;
    BOOL hook = 0;
    UINT_PTR a = ct_function_mapper(0x1000, NULL, &hook);
    assert_int_equal(hook, 1);
    const ct_mapped_fn *f = (const ct_mapped_fn *)a;
    assert_string_equal(f->name, "Demo.Program.Run");
    assert_true(f->id == 0x1000 && f->module == MOD_DEMO && f->token == 0x06000001);
    assert_true(f->hooked && !f->watched && !f->generic);
    assert_int_equal(atomic_load(&g_ndefined), 1);
    assert_ptr_equal(g_defined[0], f);
    assert_int_equal(atomic_load(&g_planned), 1);

    hook = 0;
    assert_true(ct_function_mapper(0x1000, NULL, &hook) == a);
    assert_int_equal(hook, 1);
    assert_int_equal(atomic_load(&g_info_calls), 1); /* built once */
    assert_int_equal(atomic_load(&g_ndefined), 1);   /* told once */
    assert_ptr_equal(ct_registry_find(0x1000), f);
    assert_null(ct_registry_find(0x9999));

    unsigned long mapped, hooked;
    ct_registry_counts(&mapped, &hooked);
    assert_int_equal(mapped, 1);
    assert_int_equal(hooked, 1);
    assert_int_equal(atomic_load(&g_nwatched), 0);
}

static void test_filtered_out(void **state)
{
    (void)state;
    BOOL hook = 1;
    const ct_mapped_fn *f = (const ct_mapped_fn *)ct_function_mapper(0x2000, NULL, &hook);
    assert_int_equal(hook, 0);
    assert_string_equal(f->name, "Demo.Program.Skipped");
    assert_false(f->hooked);
    assert_int_equal(atomic_load(&g_ndefined), 0);
    assert_int_equal(atomic_load(&g_planned), 0);
    assert_ptr_equal(ct_registry_find(0x2000), f);
    unsigned long mapped, hooked;
    ct_registry_counts(&mapped, &hooked);
    assert_int_equal(mapped, 1);
    assert_int_equal(hooked, 0);

    /* No metadata at all (an IL stub): mapped, unhooked, named "?". */
    hook = 1;
    f = (const ct_mapped_fn *)ct_function_mapper(0x6000, NULL, &hook);
    assert_int_equal(hook, 0);
    assert_string_equal(f->name, "?");
    assert_int_equal(atomic_load(&g_ndefined), 0);
}

static void test_watched(void **state)
{
    (void)state;
    BOOL hook = 0;
    const ct_mapped_fn *f = (const ct_mapped_fn *)ct_function_mapper(0x3000, NULL, &hook);
    assert_string_equal(f->name, "System.AppContext.OnUnhandledException");
    assert_int_equal(hook, 1); /* hooked for the profiler's own use */
    assert_true(f->watched && !f->hooked);
    assert_int_equal(atomic_load(&g_nwatched), 1);
    assert_ptr_equal(g_watched[0], f);
    assert_int_equal(atomic_load(&g_ndefined), 0); /* framework code: not traced */
    ct_function_mapper(0x3000, NULL, &hook);
    assert_int_equal(atomic_load(&g_nwatched), 1);
}

static void test_generic_flag(void **state)
{
    (void)state;
    BOOL hook = 0;
    const ct_mapped_fn *f = (const ct_mapped_fn *)ct_function_mapper(0x4000, NULL, &hook);
    assert_string_equal(f->name, "Demo.Program.Pick");
    assert_true(f->generic); /* the signature's CLRSIG_CC_GENERIC */
}

static void *map_raced(void *out)
{
    BOOL hook = 0;
    *(UINT_PTR *)out = ct_function_mapper(0x5000, NULL, &hook);
    return NULL;
}

static void test_racing_mappers(void **state)
{
    (void)state;
    /* Both threads build their own record (the fake holds each until the
     * other has come too); one record is kept and told of once. */
    pthread_barrier_init(&g_race, NULL, 2);
    atomic_store(&g_race_on, 1);
    UINT_PTR a = 0, b = 0;
    pthread_t t1, t2;
    assert_int_equal(pthread_create(&t1, NULL, map_raced, &a), 0);
    assert_int_equal(pthread_create(&t2, NULL, map_raced, &b), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    atomic_store(&g_race_on, 0);
    pthread_barrier_destroy(&g_race);
    assert_true(a && a == b);
    assert_int_equal(atomic_load(&g_info_calls), 2);
    assert_int_equal(atomic_load(&g_ndefined), 1);
    assert_true((UINT_PTR)g_defined[0] == a);
    assert_ptr_equal(ct_registry_find(0x5000), (const ct_mapped_fn *)a);
    unsigned long mapped, hooked;
    ct_registry_counts(&mapped, &hooked);
    assert_int_equal(mapped, 1);
    assert_int_equal(hooked, 1);
}

static void test_definition_once(void **state)
{
    (void)state;
    ct_mapped_fn *d = ct_registry_definition(0x1000, MOD_DEMO, 0x06000001);
    assert_non_null(d);
    assert_true(d->definition && d->hooked);
    assert_int_equal(atomic_load(&g_ndefined), 1);
    assert_ptr_equal(g_defined[0], d);
    assert_ptr_equal(ct_registry_definition(0x1000, MOD_DEMO, 0x06000001), d);
    assert_int_equal(atomic_load(&g_ndefined), 1);
    /* Not counted among the functions, and not the FunctionID's record. */
    unsigned long mapped, hooked;
    ct_registry_counts(&mapped, &hooked);
    assert_int_equal(mapped, 0);
    assert_null(ct_registry_find(0x1000));
    /* Filtered out: no record. */
    assert_null(ct_registry_definition(0x2000, MOD_DEMO, 0x06000002));
    assert_int_equal(atomic_load(&g_ndefined), 1);
}

static void test_forget(void **state)
{
    (void)state;
    BOOL hook = 0;
    const ct_mapped_fn *f = (const ct_mapped_fn *)ct_function_mapper(0x1000, NULL, &hook);
    ct_registry_forget();
    assert_null(ct_registry_find(0x1000));
    unsigned long mapped, hooked;
    ct_registry_counts(&mapped, &hooked);
    assert_int_equal(mapped, 0);
    assert_int_equal(hooked, 0);
    /* Mapped anew: a new record, told of again. */
    const ct_mapped_fn *g = (const ct_mapped_fn *)ct_function_mapper(0x1000, NULL, &hook);
    assert_ptr_not_equal(f, g);
    assert_int_equal(atomic_load(&g_ndefined), 2);
}

static void test_nothing_told_without_setup(void **state)
{
    (void)state;
    ct_registry_events none = {NULL, NULL};
    ct_registry_setup(&none);
    BOOL hook = 0;
    ct_function_mapper(0x1000, NULL, &hook);
    ct_function_mapper(0x3000, NULL, &hook);
    assert_int_equal(hook, 1);
    assert_int_equal(atomic_load(&g_ndefined), 0);
    assert_int_equal(atomic_load(&g_nwatched), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_mapped_once, setup),
        cmocka_unit_test_setup(test_filtered_out, setup),
        cmocka_unit_test_setup(test_watched, setup),
        cmocka_unit_test_setup(test_generic_flag, setup),
        cmocka_unit_test_setup(test_racing_mappers, setup),
        cmocka_unit_test_setup(test_definition_once, setup),
        cmocka_unit_test_setup(test_forget, setup),
        cmocka_unit_test_setup(test_nothing_told_without_setup, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
