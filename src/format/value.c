/* Facts of the value encoding (value.h) that the capture, the plan builder
 * and the formatter all follow: each fixed-size kind's bytes and C# name,
 * and which arrays have their elements copied. */
#include "value.h"

#include <stddef.h>
#include <string.h>

uint32_t ct_vkind_size(ct_vkind k)
{
    switch (k) {
    case CT_V_BOOL: case CT_V_I1: case CT_V_U1: return 1;
    case CT_V_CHAR: case CT_V_I2: case CT_V_U2: return 2;
    case CT_V_I4: case CT_V_U4: case CT_V_R4: return 4;
    case CT_V_I8: case CT_V_U8: case CT_V_R8: case CT_V_I: case CT_V_U: return 8;
    case CT_V_DATETIME: case CT_V_TIMESPAN: return 8;
    case CT_V_DECIMAL: case CT_V_GUID: case CT_V_I16: case CT_V_U16: case CT_V_DTOFFSET: return 16;
    case CT_V_HALF: return 2;
    case CT_V_RUNE: case CT_V_DATEONLY: case CT_V_INDEX: return 4;
    case CT_V_TIMEONLY: case CT_V_RANGE: return 8;
    default: return 0;
    }
}

const char *ct_vkind_name(ct_vkind k)
{
    static const char *const names[] = {
        [CT_V_BOOL] = "bool", [CT_V_CHAR] = "char", [CT_V_I1] = "sbyte", [CT_V_U1] = "byte",
        [CT_V_I2] = "short", [CT_V_U2] = "ushort", [CT_V_I4] = "int", [CT_V_U4] = "uint",
        [CT_V_I8] = "long", [CT_V_U8] = "ulong", [CT_V_R4] = "float", [CT_V_R8] = "double",
        [CT_V_I] = "nint", [CT_V_U] = "nuint", [CT_V_DECIMAL] = "decimal",
        [CT_V_DATETIME] = "DateTime", [CT_V_TIMESPAN] = "TimeSpan", [CT_V_GUID] = "Guid",
        [CT_V_HALF] = "Half", [CT_V_I16] = "Int128", [CT_V_U16] = "UInt128",
        [CT_V_DTOFFSET] = "DateTimeOffset", [CT_V_RUNE] = "Rune",
        [CT_V_DATEONLY] = "DateOnly", [CT_V_TIMEONLY] = "TimeOnly", [CT_V_INDEX] = "Index",
    };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : NULL;
}

uint32_t ct_field_room(const uint32_t *offsets, uint32_t n, uint32_t i, uint32_t end)
{
    if (i >= n || offsets[i] >= end)
        return 0;
    for (uint32_t j = 0; j < n; j++)
        if (offsets[j] > offsets[i] && offsets[j] < end)
            end = offsets[j];
    return end - offsets[i];
}

int ct_array_items_captured(const ct_plan *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case CT_V_VOID: case CT_V_OPAQUE: case CT_V_ELIDED: case CT_V_BYREF: case CT_V_CLASS:
    case CT_V_SEQ:
        return 0;
    default:
        return 1;
    }
}

uint32_t ct_task_exception_at(const ct_plan *c)
{
    if (!c || c->shape != CT_FORM_TASK || c->count < 2 || !c->fields)
        return UINT32_MAX;
    const ct_field *f = &c->fields[c->count - 1];
    return f->name && !strcmp(f->name, CT_TASK_EXCEPTION_FIELD) && f->plan &&
                   f->plan->kind == CT_V_OBJECT
               ? c->count - 1
               : UINT32_MAX;
}

uint32_t ct_task_result_at(const ct_plan *c)
{
    if (!c || c->shape != CT_FORM_TASK || c->count < 2 || !c->fields)
        return UINT32_MAX;
    return ct_task_exception_at(c) == 1 ? UINT32_MAX : 1;
}
