/* The words options carry, parsed the same way by every room: glob lists
 * (-F/-N/-T, the selection) and durations (--min-time, --since, -d). */
#ifndef CLRTRACE_FORMAT_PARSE_H
#define CLRTRACE_FORMAT_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Longest glob list (':'-separated) of trigger, include and exclude. */
#define CT_FILTER_MAX_GLOBS_TEXT 4096u
/* Largest duration: one day. */
#define CT_FILTER_MAX_MIN_TIME_NS (86400ull * 1000000000ull)

/* Does name match one of the ':'-separated fnmatch(3) globs of list? ('*'
 * also matches '.'; an empty list matches nothing.) */
int ct_glob_list_match(const char *list, const char *name);

/* Whether one of the globs of list may match some name that begins with
 * prefix ("Ns.Type."): 0 only when none can, by the literal text before
 * each glob's first wildcard ('*', '?', '[' or '\\'), so a whole type's
 * methods can be left out without naming each (1 when unsure). */
int ct_glob_list_may_extend(const char *list, const char *prefix);

/* Which functions pass the glob lists, by full name ("Demo.Shapes.Scale")
 * and assembly: the one rule of the profiler choosing what it hooks (-F, -N,
 * --assembly, -T) and of the offline commands choosing what they read of a
 * trace (-F, -N). A NULL or empty list is not given. */
typedef struct ct_name_rules {
    const char *include;  /* only functions matching these (none given: by_default) */
    const char *exclude;  /* never functions matching these, whatever else says */
    const char *assembly; /* only functions of assemblies matching these (and of
                             include when given) */
    const char *trigger;  /* functions matching these pass too (unless excluded) */
} ct_name_rules;

/* Whether the function full_name of assembly (NULL: not known) passes r;
 * by_default is the answer when neither include nor assembly is given. */
int ct_name_rules_pass(const ct_name_rules *r, const char *full_name, const char *assembly,
                       int by_default);

/* Line probes (--at FILE:LINE): at most CT_AT_MAX, FILE at most
 * CT_AT_MAX_FILE - 1 bytes, LINE from 1 to CT_AT_MAX_LINE (the largest line a
 * Portable PDB's sequence point can name, 0x1FFFFFFF, ECMA-335 Portable PDB
 * v1.0 "SequencePoints"). */
#define CT_AT_MAX 16u
#define CT_AT_MAX_FILE 1024u
#define CT_AT_MAX_LINE 0x1FFFFFFFu
#define CT_AT_MAX_TEXT (CT_AT_MAX * (CT_AT_MAX_FILE + 12))

/* Parses "FILE:LINE" (Orders.cs:42, src/Orders.cs:42; the last ':' splits
 * them): 0 with file (cap bytes) and *line, or -1. */
int ct_at_parse(const char *text, char *file, size_t cap, uint32_t *line);

/* One line probe as parsed. */
typedef struct ct_at_spec {
    char file[CT_AT_MAX_FILE];
    uint32_t line;
} ct_at_spec;

/* The probes of text, one 'FILE:LINE' a line (CLRTRACE_AT; empty lines
 * skipped): the first cap well-formed ones into out (out may be NULL, cap
 * 0), how many: the return value; *lines the number of non-empty lines,
 * *bad the number (from 1) of the first one that does not parse (0: none;
 * it is not put in out). */
unsigned ct_at_list(const char *text, ct_at_spec *out, unsigned cap, unsigned *lines,
                    unsigned *bad);

/* Parses a whole number from min to max: decimal digits only, no sign, no
 * spaces, no overflow (the one number parser of the settings and of every
 * command's options). Returns 0 with *out set, or -1. */
int ct_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* Parses a duration: a number (decimals allowed) and a unit ns, us, ms or s;
 * no unit means us. Returns 0 with *ns set, or -1 when the text is not a
 * duration or exceeds CT_FILTER_MAX_MIN_TIME_NS. */
int ct_parse_duration(const char *text, uint64_t *ns);

/* Parses a size in bytes: a whole number, alone or followed by K, M, G or T
 * (powers of 1024; KB, KiB and the like too, any case). Returns 0 with
 * *bytes set, or -1 when the text is not a size or exceeds max. */
int ct_parse_size(const char *text, uint64_t max, uint64_t *bytes);

/* The names that say a value is a secret (docs/tracer.md, "Redaction"), as
 * Datadog's redaction compares them: a name lowered and stripped of '_',
 * '-', '.', '$' and '@' is a secret's when it equals one of these, or when
 * its last words do ("userPassword", "X_API_KEY", "dbConnectionString",
 * "<AuthToken>k__..." as "AuthToken"; words split at those characters and
 * where a capital starts one, "APIKey" as API Key). Not "maxTokens",
 * "tokenizer", "IsPasswordValid". */
#define CT_SECRET_NAMES                                                                    \
    "password", "passwd", "pwd", "passphrase", "passwordhash", "passhash", "secret",        \
        "secretkey", "clientsecret", "apisecret", "token", "accesstoken", "refreshtoken",   \
        "authtoken", "idtoken", "bearertoken", "sessiontoken", "securitytoken",             \
        "csrftoken", "xsrftoken", "apikey", "xapikey", "appkey", "accesskey", "privatekey", \
        "signingkey", "encryptionkey", "masterkey", "licensekey", "sshkey", "authorization", \
        "cookie", "setcookie", "connectionstring", "credential", "credentials", "sessionid", \
        "sessionkey", "creditcard", "cardnumber", "ccnumber", "cvv", "pin", "pincode", "ssn", \
        "otp", "jwt"
/* Names that end like a secret's but never are: a CancellationToken's
 * (the type, its source, the parameter of that name). */
#define CT_NOT_SECRET_ENDINGS "cancellationtoken", "cancellationtokensource", "canceltoken"
/* Longest name compared (longer ones are compared by their first bytes). */
#define CT_SECRET_NAME_MAX 256

/* 1 when name is a secret's: one of CT_SECRET_NAMES as its whole or its
 * last words, or one of extra (a ':'-separated list of more names,
 * --redact; NULL: none) anywhere inside it. */
int ct_secret_name(const char *name, const char *extra);

#endif
