/* SHA-1 (FIPS 180-4), for the public key token of a .NET assembly's
 * identity (ECMA-335 II.6.2.1.3: the last 8 bytes of the SHA-1 hash of the
 * public key, in reverse order). Not for security. */
#ifndef CLRTRACE_BASE_SHA1_H
#define CLRTRACE_BASE_SHA1_H

#include <stddef.h>
#include <stdint.h>

/* The 20-byte SHA-1 digest of data[0..len). */
void ct_sha1(const void *data, size_t len, uint8_t digest[20]);

#endif
