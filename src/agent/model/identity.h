/* Which assemblies are the framework ("my code" is everything else), by
 * the assembly's identity, never by the path it was loaded from: the same
 * in a framework-dependent app, a self-contained one (the framework in the
 * app's own folder) and a single-file bundle (no path at all).
 *
 * The rule: System.Private.CoreLib always; otherwise an assembly whose
 * definition carries one of Microsoft's public keys, told by its public key
 * token (ECMA-335 II.6.2.1.3). Pure functions: no runtime, no state. */
#ifndef CLRTRACE_IDENTITY_H
#define CLRTRACE_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

/* The rule, as the trace header names it ("filter: my code (...)"). */
#define CT_FRAMEWORK_RULE "framework by public key token"

/* afPublicKey of [cor] CorAssemblyFlags: the blob is the full public key
 * (else it is already the 8-byte token). */
#define CT_AF_PUBLIC_KEY 0x0001u

/* The 8-byte public key token of an assembly's public key blob (flags: its
 * CorAssemblyFlags). 0, or -1 when the assembly has no public key (not
 * strong-named). */
int ct_public_key_token(const void *key, size_t len, uint32_t flags, uint8_t token[8]);

/* Whether the token is one of Microsoft's framework keys (identity.c lists
 * them and where they were checked). */
int ct_token_is_framework(const uint8_t token[8]);

/* The decision for an assembly: its simple name (UTF-8, or NULL) and its
 * definition's public key blob and flags. */
int ct_assembly_is_framework(const char *name, const void *key, size_t len, uint32_t flags);

#endif
