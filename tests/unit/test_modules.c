/* TypeDef names (src/agent/model/modules.c, ct_typedef_name) against a fake
 * IMetaDataImport that counts its calls: the name made from the nesting
 * chain, kept once made (the metadata is not asked again), with and without
 * the namespace apart, and past CT_TYPEDEF_NAMES_KEPT made at each call. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/model/modules.h"
#include "agent/runtime/state.h"

ct_state g_ct;

/* TypeDefs 0x02000002 and up: "Ns.Outer" encloses "Inner<N>" for every
 * other one. */
#define OUTER 0x02000002u
static unsigned g_props_calls;

static HRESULT fake_typedef_props(IMetaDataImport *self, mdTypeDef td, WCHAR *name, ULONG cap,
                                  ULONG *len, DWORD *flags, mdToken *extends)
{
    (void)self;
    char text[64];
    if (td == OUTER)
        snprintf(text, sizeof text, "Ns.Outer");
    else
        snprintf(text, sizeof text, "Inner%u", (unsigned)(td & 0xFFFFFF));
    size_t n = strlen(text) + 1;
    if (n > cap)
        return E_FAIL;
    for (size_t i = 0; i < n; i++)
        name[i] = (WCHAR)text[i];
    *len = (ULONG)n;
    *flags = 0;
    *extends = 0;
    g_props_calls++;
    return S_OK;
}

static HRESULT fake_nested(IMetaDataImport *self, mdTypeDef td, mdTypeDef *outer)
{
    (void)self;
    if (td == OUTER)
        return S_FALSE;
    *outer = OUTER;
    return S_OK;
}

static IMetaDataImportVtbl g_vtbl;
static IMetaDataImport g_mdi = {&g_vtbl};
static ct_module g_mod = {.id = 0x7700, .mdi = &g_mdi};

static void setup_fake(void)
{
    g_vtbl.GetTypeDefProps = fake_typedef_props;
    g_vtbl.GetNestedClassProps = fake_nested;
}

static void test_names_kept_up_to_the_limit(void **state)
{
    (void)state;
    setup_fake();
    char name[128];
    /* Made from the chain: two GetTypeDefProps, then kept. */
    g_props_calls = 0;
    assert_int_equal(ct_typedef_name(&g_mod, 0x02000003, 1, name, sizeof name), 0);
    assert_string_equal(name, "Ns.Outer.Inner3");
    assert_int_equal(g_props_calls, 2);
    assert_int_equal(ct_typedef_name(&g_mod, 0x02000003, 1, name, sizeof name), 0);
    assert_string_equal(name, "Ns.Outer.Inner3");
    assert_int_equal(g_props_calls, 2);
    /* Without the namespace: a name of its own. */
    assert_int_equal(ct_typedef_name(&g_mod, 0x02000003, 0, name, sizeof name), 0);
    assert_string_equal(name, "Outer.Inner3");
    assert_int_equal(g_props_calls, 4);
    assert_int_equal(ct_typedef_name(&g_mod, 0x02000003, 0, name, sizeof name), 0);
    assert_int_equal(g_props_calls, 4);
    /* A kept name that does not fit fails as the walk does. */
    assert_int_equal(ct_typedef_name(&g_mod, 0x02000003, 1, name, 15), -1);
    assert_int_equal(ct_typedef_name(&g_mod, 0x02000003, 1, name, 16), 0);
    assert_string_equal(name, "Ns.Outer.Inner3");
    /* Two kept: fill to the limit with other TypeDefs. */
    uint32_t td = 0x02000004;
    for (uint32_t k = 2; k < CT_TYPEDEF_NAMES_KEPT; k++, td++)
        assert_int_equal(ct_typedef_name(&g_mod, td, 1, name, sizeof name), 0);
    /* The last one kept (the limit's): not asked again. */
    g_props_calls = 0;
    assert_int_equal(ct_typedef_name(&g_mod, td - 1, 1, name, sizeof name), 0);
    assert_int_equal(g_props_calls, 0);
    /* One past the limit: made at each call, the same name. */
    assert_int_equal(ct_typedef_name(&g_mod, td, 1, name, sizeof name), 0);
    assert_int_equal(g_props_calls, 2);
    char again[128];
    assert_int_equal(ct_typedef_name(&g_mod, td, 1, again, sizeof again), 0);
    assert_int_equal(g_props_calls, 4);
    assert_string_equal(name, again);
    /* The first ones still kept. */
    assert_int_equal(ct_typedef_name(&g_mod, 0x02000003, 1, name, sizeof name), 0);
    assert_int_equal(g_props_calls, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_kept_up_to_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
