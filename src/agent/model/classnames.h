/* ClassID -> the name a C# reader expects, cached. Built from
 * ICorProfilerInfo::IsArrayClass, ICorProfilerInfo2::GetClassIDInfo2 and the
 * defining module's metadata: "Demo.Shapes", "int[]", "Demo.Box<int>",
 * "Demo.Outer<string>.Inner". CoreLib's primitive types get their C#
 * keywords (int, string, object, decimal, nint ...). */
#ifndef CLRTRACE_CLASSNAMES_H
#define CLRTRACE_CLASSNAMES_H

#include <stddef.h>

#include "agent/runtime/corprof_decls.h"

/* Most generic arguments named per type. */
#define CT_MAX_TYPE_ARGS 32

typedef enum ct_name_style {
    CT_NAME_FULL,    /* System.Collections.Generic.List<Demo.Point> */
    CT_NAME_DISPLAY, /* Demo.Box<Point>: the namespace on the outer type only */
    CT_NAME_SHORT    /* Box<Point>: no namespaces (as libclrsig's short_names) */
} ct_name_style;

/* Writes the name into out[0..cap) and returns 0, or -1 when the class
 * cannot be named (out then holds "?"). Safe in the hooks: only
 * GC_NOTRIGGER runtime calls, no lock held across them. */
int ct_classid_name(ClassID cls, ct_name_style style, char *out, size_t cap);

/* The full name of the method whose handle (a MethodDesc, the profiler's
 * FunctionID: a RuntimeMethodInfo's m_handle) is fn: "Demo.Calc.Add",
 * "Demo.Box<int>.Get", "Demo.Calc..ctor"; 0, or -1 ("?" written). */
int ct_method_handle_name(FunctionID fn, char *out, size_t cap);

/* The C# keyword of an ELEMENT_TYPE_* primitive ("int"), or NULL. */
const char *ct_element_keyword(CorElementType et);

/* The C# keyword of a CoreLib type's full name ("System.Int32" -> "int"),
 * or NULL. */
const char *ct_corelib_keyword(const char *full_name);

#endif
