/* The clrtrace command: one function per subcommand. */
#ifndef CLRTRACE_CLI_H
#define CLRTRACE_CLI_H

#include <stddef.h>
#include <stdint.h>

int cmd_decode(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sigs(int argc, char **argv);

/* Parses hex text ("20 01 08", "200108", "0x20,0x01") into out; returns the
 * byte count, or -1 (with a message in err) on a bad digit or overflow. */
long cli_parse_hex(const char *text, uint8_t *out, size_t cap, char *err, size_t errcap);

#endif
