/* Glob lists and durations (words.h). */
#define _GNU_SOURCE
#include "words.h"

#include <fnmatch.h>
#include <string.h>

int ct_glob_list_match(const char *list, const char *name)
{
    char pat[CT_FILTER_MAX_GLOBS_TEXT];
    const char *p = list;
    while (p && *p) {
        size_t n = strcspn(p, ":");
        if (n && n < sizeof pat) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (fnmatch(pat, name, 0) == 0)
                return 1;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return 0;
}

/* Whether glob pat[0..n) may match a name beginning with prefix. */
static int glob_may_extend(const char *pat, size_t n, const char *prefix)
{
    size_t i = 0;
    for (; i < n; i++) {
        char c = pat[i];
        if (c == '*' || c == '?' || c == '[' || c == '\\' || !prefix[i])
            return 1; /* a wildcard, or the prefix is all matched */
        if (c != prefix[i])
            return 0;
    }
    /* The glob is literal and shorter than the prefix, or as long (a name
     * equal to the prefix). */
    return !prefix[i];
}

int ct_glob_list_may_extend(const char *list, const char *prefix)
{
    const char *p = list;
    while (p && *p) {
        size_t n = strcspn(p, ":");
        if (n && glob_may_extend(p, n, prefix))
            return 1;
        p += n;
        if (*p == ':')
            p++;
    }
    return 0;
}

/* A list that is given: not NULL, not empty. */
static int given(const char *list)
{
    return list && *list;
}

int ct_name_rules_pass(const ct_name_rules *r, const char *full_name, const char *assembly,
                       int by_default)
{
    int pass;
    if (given(r->assembly))
        pass = assembly && ct_glob_list_match(r->assembly, assembly) &&
               (!given(r->include) || ct_glob_list_match(r->include, full_name));
    else
        pass = given(r->include) ? ct_glob_list_match(r->include, full_name) : by_default;
    /* A trigger function opens the gate: it passes whatever else says. */
    if (!pass && given(r->trigger) && ct_glob_list_match(r->trigger, full_name))
        pass = 1;
    if (pass && given(r->exclude) && ct_glob_list_match(r->exclude, full_name))
        pass = 0;
    return pass;
}

int ct_at_parse(const char *text, char *file, size_t cap, uint32_t *line)
{
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || (size_t)(colon - text) >= cap ||
        (size_t)(colon - text) >= CT_AT_MAX_FILE || !colon[1])
        return -1;
    uint64_t v = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > CT_AT_MAX_LINE)
            return -1;
    }
    if (!v)
        return -1;
    memcpy(file, text, (size_t)(colon - text));
    file[colon - text] = '\0';
    *line = (uint32_t)v;
    return 0;
}

unsigned ct_at_list(const char *text, ct_at_spec *out, unsigned cap, unsigned *nlines,
                    unsigned *bad)
{
    unsigned lines = 0, kept = 0;
    *bad = 0;
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (len) {
            char one[CT_AT_MAX_FILE + 16];
            ct_at_spec spec;
            lines++;
            if (len >= sizeof one) {
                if (!*bad)
                    *bad = lines;
            } else {
                memcpy(one, p, len);
                one[len] = '\0';
                if (ct_at_parse(one, spec.file, sizeof spec.file, &spec.line) != 0) {
                    if (!*bad)
                        *bad = lines;
                } else if (kept < cap) {
                    out[kept++] = spec;
                }
            }
        }
        p += len + (p[len] ? 1 : 0);
    }
    *nlines = lines;
    return kept;
}

int ct_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t n = 0;
    if (!text || !*text)
        return -1;
    for (const char *p = text; *p; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (*p < '0' || *p > '9' || d > max || n > (max - d) / 10)
            return -1;
        n = n * 10 + d;
    }
    if (n < min)
        return -1;
    *out = n;
    return 0;
}

int ct_parse_size(const char *text, uint64_t max, uint64_t *bytes)
{
    if (!text)
        return -1;
    const char *p = text;
    uint64_t n = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (n > max)
            return -1;
        n = n * 10 + (uint64_t)(*p++ - '0');
        digits++;
    }
    if (!digits)
        return -1;
    unsigned shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    case '\0': break;
    default: return -1;
    }
    if (shift) {
        p++;
        /* "K", "KB", "KiB" (any case) */
        if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'b' || p[1] == 'B'))
            p += 2;
        else if (p[0] == 'b' || p[0] == 'B')
            p++;
    }
    if (*p || n > max >> shift)
        return -1;
    *bytes = n << shift;
    return 0;
}

int ct_parse_duration(const char *text, uint64_t *ns)
{
    if (!text)
        return -1;
    const char *p = text;
    uint64_t whole = 0, frac = 0, frac_div = 1;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (whole > CT_FILTER_MAX_MIN_TIME_NS)
            return -1;
        whole = whole * 10 + (uint64_t)(*p++ - '0');
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (frac_div < 1000000000000ull) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                frac_div *= 10;
            }
            p++;
            digits++;
        }
    }
    if (!digits)
        return -1;
    uint64_t unit;
    if (!*p || !strcmp(p, "us"))
        unit = 1000;
    else if (!strcmp(p, "ns"))
        unit = 1;
    else if (!strcmp(p, "ms"))
        unit = 1000000;
    else if (!strcmp(p, "s"))
        unit = 1000000000;
    else
        return -1;
    if (whole > CT_FILTER_MAX_MIN_TIME_NS / unit)
        return -1;
    uint64_t v = whole * unit + frac * unit / frac_div;
    if (v > CT_FILTER_MAX_MIN_TIME_NS)
        return -1;
    *ns = v;
    return 0;
}

/* name lowered, without the characters that join words, into out. */
static size_t fold_name(const char *name, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && name[i] && o + 1 < cap; i++) {
        char ch = name[i];
        if (ch == '_' || ch == '-' || ch == '.' || ch == '$' || ch == '@')
            continue;
        out[o++] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
    out[o] = '\0';
    return o;
}

static int is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static int is_lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

static int ends_with(const char *s, size_t n, const char *tail)
{
    size_t k = strlen(tail);
    return n >= k && !memcmp(s + n - k, tail, k);
}

int ct_secret_name(const char *name, const char *extra)
{
    static const char *const k_names[] = {CT_SECRET_NAMES};
    static const char *const k_not[] = {CT_NOT_SECRET_ENDINGS};
    char folded[CT_SECRET_NAME_MAX + 1], word[CT_SECRET_NAME_MAX + 1];
    size_t starts[CT_SECRET_NAME_MAX], nstarts = 0, o = 0;
    if (!name)
        return 0;
    /* Lowered, the joining characters dropped; where each word starts. */
    int joined = 1;
    for (size_t i = 0; i < CT_SECRET_NAME_MAX && name[i]; i++) {
        char ch = name[i];
        if (ch == '_' || ch == '-' || ch == '.' || ch == '$' || ch == '@') {
            joined = 1;
            continue;
        }
        char prev = i ? name[i - 1] : 0, next = i + 1 < CT_SECRET_NAME_MAX ? name[i + 1] : 0;
        if (joined || (is_upper(ch) && (is_lower_or_digit(prev) ||
                                        (is_upper(prev) && next >= 'a' && next <= 'z'))))
            starts[nstarts++] = o;
        joined = 0;
        folded[o++] = (char)(is_upper(ch) ? ch - 'A' + 'a' : ch);
    }
    folded[o] = '\0';
    for (size_t i = 0; i < sizeof k_not / sizeof *k_not; i++)
        if (ends_with(folded, o, k_not[i]))
            return 0;
    for (size_t w = 0; w < nstarts; w++)
        for (size_t i = 0; i < sizeof k_names / sizeof *k_names; i++)
            if (!strcmp(folded + starts[w], k_names[i]))
                return 1;
    for (const char *p = extra; p && *p;) {
        size_t n = strcspn(p, ":");
        if (fold_name(p, n, word, sizeof word) && strstr(folded, word))
            return 1;
        p += n;
        if (*p)
            p++;
    }
    return 0;
}
