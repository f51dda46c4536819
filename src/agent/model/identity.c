#include "identity.h"

#include <string.h>

#include "base/sha1.h"

/* Microsoft's framework keys, by token. Checked against every assembly of
 * the shared frameworks Microsoft.NETCore.App and Microsoft.AspNetCore.App
 * 10.0 and of the runtime packs 8.0, 9.0 and 10.0 (self-contained publishes)
 * with System.Reflection.AssemblyName, an independent reader
 * (tests/e2e/run_published.sh, "tokens"): each carries one of these.
 *   b03f5f7f11d50a3a  Microsoft's key: most System.* and Microsoft.* assemblies
 *   7cec85d7bea7798e  System.Private.CoreLib and other System.Private.*
 *   cc7b13ffcd2ddd51  the .NET Core platform key (netstandard, System.Runtime.*, ...)
 *   adb9793829ddae60  ASP.NET Core and Microsoft.Extensions.*
 *   31bf3856ad364e35  WindowsBase and the like (shared MS key)
 *   b77a5c561934e089  the ECMA key: mscorlib, System, System.Core, System.Xml,
 *                     System.IO.Compression (code, not only type forwards), ... */
static const uint8_t FRAMEWORK_TOKENS[][8] = {
    {0xb0, 0x3f, 0x5f, 0x7f, 0x11, 0xd5, 0x0a, 0x3a},
    {0x7c, 0xec, 0x85, 0xd7, 0xbe, 0xa7, 0x79, 0x8e},
    {0xcc, 0x7b, 0x13, 0xff, 0xcd, 0x2d, 0xdd, 0x51},
    {0xad, 0xb9, 0x79, 0x38, 0x29, 0xdd, 0xae, 0x60},
    {0x31, 0xbf, 0x38, 0x56, 0xad, 0x36, 0x4e, 0x35},
    {0xb7, 0x7a, 0x5c, 0x56, 0x19, 0x34, 0xe0, 0x89},
};

int ct_public_key_token(const void *key, size_t len, uint32_t flags, uint8_t token[8])
{
    if (!key || !len)
        return -1;
    if (!(flags & CT_AF_PUBLIC_KEY)) {
        /* A reference's blob may be the token itself. */
        if (len != 8)
            return -1;
        memcpy(token, key, 8);
        return 0;
    }
    uint8_t h[20];
    ct_sha1(key, len, h);
    for (int i = 0; i < 8; i++)
        token[i] = h[19 - i];
    return 0;
}

int ct_token_is_framework(const uint8_t token[8])
{
    for (size_t i = 0; i < sizeof FRAMEWORK_TOKENS / sizeof *FRAMEWORK_TOKENS; i++)
        if (!memcmp(token, FRAMEWORK_TOKENS[i], 8))
            return 1;
    return 0;
}

int ct_assembly_is_framework(const char *name, const void *key, size_t len, uint32_t flags)
{
    if (name && !strcmp(name, "System.Private.CoreLib"))
        return 1;
    uint8_t token[8];
    return ct_public_key_token(key, len, flags, token) == 0 && ct_token_is_framework(token);
}
