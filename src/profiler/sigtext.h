/* Signature text for a method, decoded with libclrsig and named through the
 * module's metadata (IMetaDataImport). Used once per function, at map time. */
#ifndef CLRTRACE_SIGTEXT_H
#define CLRTRACE_SIGTEXT_H

#include <stddef.h>

#include "corprof_decls.h"

/* Writes the C#-style text of method md's signature (blob[0..len)) under
 * method_name into out[0..cap), e.g. "static int Demo.MathOps.Add(int a,
 * int b)". td is the method's class (the owner of !n generic parameters).
 * Returns 0 on success, -1 when the blob does not decode (out then holds a
 * short reason). */
int ct_sigtext(IMetaDataImport *mdi, mdMethodDef md, mdTypeDef td, const char *method_name,
               const BYTE *blob, ULONG len, char *out, size_t cap);

#endif
