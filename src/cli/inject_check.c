/* --inject's specs checked before the program runs (cli.h,
 * cli_inject_check), or before an attach (cli_inject_check_pid, the
 * process's files read through /proc): the program's main assembly read
 * with libclrmeta, the methods each glob matches there (named as the
 * profiler names them), and for each: not a constructor, not generic
 * code; a throw's type found as the profiler will find it (a type the
 * assembly names or defines, by full name or without its namespace; else
 * CoreLib's, in the namespaces System.Runtime forwards) and an exception
 * with a public constructor (string); a return's value against the
 * method's return type (format/inject_spec.h, ct_inject_value_fits). CoreLib
 * is read from beside a self-contained app, or from the runtime of the
 * `dotnet` on PATH (DOTNET_ROOT first; then the usual install folders);
 * an attached process's from beside its libcoreclr.so. What cannot be
 * known here (a type of another assembly, an enum defined elsewhere) is
 * left to the profiler, which checks each token before it uses one and
 * says so on stderr. */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrmeta/clrmeta.h"
#include "clrsig/clrsig.h"
#include "format/inject_spec.h"
#include "format/words.h"
#include "cli.h"

/* Longest full name built. */
#define INJECT_CHECK_NAME_MAX 2048
/* Base types followed up to System.Exception. */
#define INJECT_CHECK_MAX_BASES 32
/* Field flags (ECMA-335 II.23.1.5): an enum's members. */
#define FD_STATIC 0x10u
#define FD_LITERAL 0x40u
/* The runtime's shared framework, under a dotnet root. */
#define SHARED_RUNTIME "shared/Microsoft.NETCore.App"

/* A TypeRef (refs) or TypeDef of md named name (full, or with short the
 * name without its namespace): its token, or 0. */
static uint32_t find_type(const clrmeta *md, const char *name, int short_name, int refs)
{
    uint32_t rows = clrmeta_rows(md, refs ? CLRMETA_T_TYPEREF : CLRMETA_T_TYPEDEF);
    for (uint32_t rid = 1; rid <= rows; rid++) {
        uint32_t tok = (refs ? 0x01000000u : 0x02000000u) | rid;
        char full[INJECT_CHECK_NAME_MAX];
        if (cli_type_full_name(md, tok, full, sizeof full) != 0)
            continue;
        const char *dot = strrchr(full, '.');
        if (!strcmp(full, name) || (short_name && dot && !strcmp(dot + 1, name)))
            return tok;
    }
    return 0;
}

/* Whether TypeDef rid of md has a public constructor (string). */
static int has_string_ctor(const clrmeta *md, uint32_t rid)
{
    clrmeta_list l;
    if (clrmeta_type_methods(md, rid, &l, NULL) != CLRMETA_OK)
        return 0;
    for (uint32_t i = 0; i < l.count; i++) {
        clrmeta_methoddef_row m;
        if (clrmeta_methoddef(md, clrmeta_list_rid(md, &l, i), &m, NULL) == CLRMETA_OK &&
            ct_inject_is_string_ctor(m.name, m.sig.p, m.sig.len, m.flags))
            return 1;
    }
    return 0;
}

/* TypeDef rid of md (else of corelib when the base goes there) as an
 * exception to throw: 0 usable; 1 not known here (a base in another
 * assembly); -1 not usable, why in why. */
static int usable(const clrmeta *md, const clrmeta *corelib, uint32_t rid, const char *type,
                  char *why, size_t cap)
{
    clrmeta_typedef_row row;
    if (clrmeta_typedef(md, rid, &row, NULL) != CLRMETA_OK)
        return 1;
    const char *no = ct_inject_type_unusable(row.flags);
    if (no)
        return snprintf(why, cap, "%s %s", type, no), -1;
    if (!has_string_ctor(md, rid))
        return snprintf(why, cap, "%s has no public constructor taking a string", type), -1;
    char base[INJECT_CHECK_NAME_MAX];
    if (cli_type_full_name(md, 0x02000000u | rid, base, sizeof base) == 0 &&
        !strcmp(base, "System.Exception"))
        return 0;
    for (int hop = 0; hop < INJECT_CHECK_MAX_BASES; hop++) {
        if (!(row.extends & 0xFFFFFFu))
            break;
        if (cli_type_full_name(md, row.extends, base, sizeof base) != 0)
            return 1;
        if (!strcmp(base, "System.Exception"))
            return 0;
        if ((row.extends >> 24) == 0x02) {
            rid = row.extends & 0xFFFFFFu;
        } else {
            /* A base in another assembly: CoreLib's, when it has it. */
            uint32_t tok = corelib && md != corelib ? find_type(corelib, base, 0, 0) : 0;
            if (!tok)
                return 1;
            md = corelib;
            rid = tok & 0xFFFFFFu;
        }
        if (clrmeta_typedef(md, rid, &row, NULL) != CLRMETA_OK)
            return 1;
    }
    return snprintf(why, cap, "%s is not an exception (System.Exception is not among its bases)",
                    type), -1;
}

/* Where the assemblies a program names are: its main assembly's folder,
 * then the runtime's (CoreLib's). */
typedef struct places {
    char app[PATH_MAX];
    char runtime[PATH_MAX];
} places;

/* The TypeDef of full name `full` in the assembly TypeRef tok of md comes
 * from, read from the places into *a (opened; the caller closes it): its
 * rid, or 0 (not found: not known here). */
static uint32_t typeref_target(const clrmeta *md, uint32_t tok, const char *full,
                               const places *pl, cli_assembly *a)
{
    uint32_t scope = 0;
    clrmeta_assemblyref_row ar;
    if (clrmeta_typeref_root_scope(md, tok & 0xFFFFFFu, &scope, NULL) != CLRMETA_OK ||
        (scope >> 24) != 0x23 ||
        clrmeta_assemblyref(md, scope & 0xFFFFFFu, &ar, NULL) != CLRMETA_OK || !ar.name)
        return 0;
    const char *dirs[2] = {pl->app, pl->runtime};
    for (int i = 0; i < 2; i++) {
        char path[PATH_MAX];
        if (!dirs[i][0] ||
            (size_t)snprintf(path, sizeof path, "%s/%s.dll", dirs[i], ar.name) >= sizeof path ||
            cli_assembly_open(path, a) != 0)
            continue;
        uint32_t def = find_type(&a->md, full, 0, 0);
        if (def)
            return def & 0xFFFFFFu;
        cli_assembly_close(a);
    }
    return 0;
}

/* A throw's type checked: 1 found and usable, 0 not known here (the
 * profiler checks), or -1 with why. */
static int check_throw(const clrmeta *md, const clrmeta *corelib, const places *pl,
                       const ct_inject_spec *s, char *why, size_t cap)
{
    const char *name = s->type;
    int short_name = strchr(name, '.') == NULL;
    uint32_t tok = find_type(md, name, short_name, 1);
    char full[INJECT_CHECK_NAME_MAX];
    int rc;
    if (tok) {
        /* A type the assembly names: read where its reference leads (a
         * facade forwards CoreLib's to CoreLib). */
        cli_assembly a;
        if (cli_type_full_name(md, tok, full, sizeof full) != 0)
            return 0;
        uint32_t def = typeref_target(md, tok, full, pl, &a);
        if (def) {
            rc = usable(&a.md, corelib, def, name, why, cap);
            cli_assembly_close(&a);
            return rc < 0 ? -1 : rc == 0;
        }
        def = corelib ? find_type(corelib, full, 0, 0) : 0;
        if (!def)
            return 0;
        rc = usable(corelib, corelib, def & 0xFFFFFFu, name, why, cap);
        return rc < 0 ? -1 : rc == 0;
    }
    if ((tok = find_type(md, name, short_name, 0)) != 0) {
        rc = usable(md, corelib, tok & 0xFFFFFFu, name, why, cap);
        return rc < 0 ? -1 : rc == 0;
    }
    if (!corelib)
        return 0;
    size_t nk = short_name ? CT_INJECT_NAMESPACES : 1;
    for (size_t k = 0; k < nk; k++) {
        snprintf(full, sizeof full, "%s%s", short_name ? ct_inject_namespaces[k] : "", name);
        if (ct_inject_forwarded_namespace(full) && (tok = find_type(corelib, full, 0, 0)) != 0) {
            rc = usable(corelib, corelib, tok & 0xFFFFFFu, name, why, cap);
            return rc < 0 ? -1 : rc == 0;
        }
    }
    snprintf(why, cap, "no type %s is named by the program's assembly, defined in it or in "
             "CoreLib's System, System.IO, System.Threading.Tasks or System.Collections.Generic",
             name);
    return -1;
}

/* An enum of md (the assembly's own) and its members, for
 * ct_inject_target.member. */
typedef struct enum_ctx {
    const clrmeta *md;
    uint32_t rid;
} enum_ctx;

static int enum_member(void *ctx, const char *name, uint64_t *value)
{
    const enum_ctx *e = ctx;
    clrmeta_list l;
    (void)value;
    if (clrmeta_type_fields(e->md, e->rid, &l, NULL) != CLRMETA_OK)
        return 1;
    for (uint32_t i = 0; i < l.count; i++) {
        clrmeta_field_row f;
        if (clrmeta_field(e->md, clrmeta_list_rid(e->md, &l, i), &f, NULL) == CLRMETA_OK &&
            f.name && (f.flags & (FD_STATIC | FD_LITERAL)) == (FD_STATIC | FD_LITERAL) &&
            !strcmp(f.name, name))
            return 1;
    }
    return 0;
}

/* Type t as a return's target; 0, or 1 when it is not known here (the
 * profiler checks). */
static int target_of(const clrmeta *md, const clrsig_type *t, ct_inject_target *out,
                     enum_ctx *ec, int depth)
{
    static const struct { uint8_t et; ct_inject_rtype k; uint32_t bits; } prim[] = {
        {CLRSIG_ET_VOID, CT_IRT_VOID, 0},   {CLRSIG_ET_BOOLEAN, CT_IRT_BOOL, 0},
        {CLRSIG_ET_CHAR, CT_IRT_CHAR, 0},   {CLRSIG_ET_I1, CT_IRT_INT, 8},
        {CLRSIG_ET_U1, CT_IRT_UINT, 8},     {CLRSIG_ET_I2, CT_IRT_INT, 16},
        {CLRSIG_ET_U2, CT_IRT_UINT, 16},    {CLRSIG_ET_I4, CT_IRT_INT, 32},
        {CLRSIG_ET_U4, CT_IRT_UINT, 32},    {CLRSIG_ET_I8, CT_IRT_INT, 64},
        {CLRSIG_ET_U8, CT_IRT_UINT, 64},    {CLRSIG_ET_I, CT_IRT_NINT, 64},
        {CLRSIG_ET_U, CT_IRT_NINT, 64},     {CLRSIG_ET_R4, CT_IRT_R4, 0},
        {CLRSIG_ET_R8, CT_IRT_R8, 0},       {CLRSIG_ET_STRING, CT_IRT_STRING, 0},
        {CLRSIG_ET_OBJECT, CT_IRT_REF, 0},  {CLRSIG_ET_SZARRAY, CT_IRT_REF, 0},
        {CLRSIG_ET_ARRAY, CT_IRT_REF, 0},
    };
    memset(out, 0, sizeof *out);
    out->kind = CT_IRT_NONE;
    t = clrsig_strip(t);
    for (size_t i = 0; i < sizeof prim / sizeof *prim; i++)
        if (prim[i].et == t->kind) {
            out->kind = prim[i].k;
            out->bits = prim[i].bits;
            return 0;
        }
    char name[INJECT_CHECK_NAME_MAX];
    if (t->kind == CLRSIG_ET_CLASS || t->kind == CLRSIG_ET_VALUETYPE) {
        int vt = t->kind == CLRSIG_ET_VALUETYPE;
        if (cli_type_full_name(md, t->u.token, name, sizeof name) != 0)
            return 1;
        out->kind = ct_inject_rtype_named(name, 0, vt);
        if (out->kind != CT_IRT_STRUCT)
            return 0;
        /* A struct: an enum of this assembly's, or one not known here. */
        clrmeta_typedef_row row;
        char base[INJECT_CHECK_NAME_MAX];
        if ((t->u.token >> 24) != 0x02 ||
            clrmeta_typedef(md, t->u.token & 0xFFFFFFu, &row, NULL) != CLRMETA_OK)
            return 1;
        if (cli_type_full_name(md, row.extends, base, sizeof base) == 0 && !strcmp(base, "System.Enum")) {
            out->kind = CT_IRT_ENUM;
            out->bits = 64; /* (its range is the profiler's to check) */
            out->enum_signed = 1;
            ec->md = md;
            ec->rid = t->u.token & 0xFFFFFFu;
            out->member = enum_member;
            out->ctx = ec;
        }
        return 0;
    }
    if (t->kind == CLRSIG_ET_GENERICINST) {
        const clrsig_type *gt = t->u.inst.generic;
        if (cli_type_full_name(md, gt->u.token, name, sizeof name) != 0)
            return 1;
        out->kind = ct_inject_rtype_named(name, 1, gt->kind == CLRSIG_ET_VALUETYPE);
        if ((out->kind == CT_IRT_TASK_T || out->kind == CT_IRT_VTASK_T) && depth == 0 &&
            t->u.inst.argc == 1) {
            int rc = target_of(md, t->u.inst.args[0], out, ec, 1);
            if (rc == 0 && (out->kind == CT_IRT_TASK || out->kind == CT_IRT_TASK_T ||
                            out->kind == CT_IRT_VTASK || out->kind == CT_IRT_VTASK_T ||
                            out->kind == CT_IRT_VOID))
                out->kind = CT_IRT_NONE;
            return rc;
        }
        return 0;
    }
    return 0; /* pointers, byrefs, type parameters: NONE */
}

/* Whether method rid (its owner type's generic parameters too) is generic. */
static int is_generic(const clrmeta *md, uint32_t rid)
{
    clrmeta_list l;
    uint32_t owner = 0;
    if (clrmeta_generic_params(md, 0x06000000u | rid, &l, NULL) == CLRMETA_OK && l.count)
        return 1;
    while (clrmeta_method_owner(md, rid, &owner, NULL) == CLRMETA_OK && owner) {
        for (uint32_t td = owner; td;) {
            uint32_t outer = 0;
            if (clrmeta_generic_params(md, 0x02000000u | td, &l, NULL) == CLRMETA_OK && l.count)
                return 1;
            if (clrmeta_enclosing(md, td, &outer, NULL) != CLRMETA_OK)
                break;
            td = outer;
        }
        break;
    }
    return 0;
}

/* The spec s (text as given) against method rid (full name `full`): 1
 * (a throw's type found and usable), 0 (nothing wrong known), or -1 with a
 * line printed. *thrown: the throw's type's check, made at the first method
 * (INJECT_CHECK_NOT_YET before). */
#define INJECT_CHECK_NOT_YET (-2)
static int check_method(const char *who, const clrmeta *md, const clrmeta *corelib,
                        const places *pl, const ct_inject_spec *s, uint32_t rid,
                        const char *full, int *thrown)
{
    char why[INJECT_CHECK_NAME_MAX + 256];
    size_t at = 0;
    clrmeta_methoddef_row m;
    if (clrmeta_methoddef(md, rid, &m, NULL) != CLRMETA_OK || !m.name)
        return 0;
    /* A pattern (`Shop.Client.*`) that also covers constructors or generic
     * code: those are left out (the profiler says so); a name is refused. */
    int pattern = strpbrk(s->glob, "*?[") != NULL;
    if (pattern && (!strcmp(m.name, ".ctor") || !strcmp(m.name, ".cctor") || is_generic(md, rid)))
        return 0;
    if (!strcmp(m.name, ".ctor") || !strcmp(m.name, ".cctor")) {
        snprintf(why, sizeof why, "%s is a constructor: --inject changes no constructor", full);
    } else if (is_generic(md, rid)) {
        snprintf(why, sizeof why, "%s is generic code: --inject changes none (its IL serves "
                 "every instantiation)", full);
    } else if (s->action == CT_INJECT_THROW) {
        /* (the type is the same for every method the spec names: checked once) */
        if (*thrown == INJECT_CHECK_NOT_YET)
            *thrown = check_throw(md, corelib, pl, s, why, sizeof why);
        if (*thrown >= 0)
            return *thrown;
        at = s->at;
    } else if (s->action == CT_INJECT_RETURN) {
        static uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
        clrsig_arena arena;
        clrsig_arena_init(&arena, mem, sizeof mem);
        clrsig_sig sig;
        ct_inject_target t;
        enum_ctx ec = {0};
        if (!m.sig.p || clrsig_parse(m.sig.p, m.sig.len, CLRSIG_KIND_METHOD, NULL, &arena, &sig,
                                     NULL) != CLRSIG_OK || !sig.method.ret ||
            target_of(md, sig.method.ret, &t, &ec, 0) != 0)
            return 0; /* the profiler checks */
        char need[200];
        if (ct_inject_value_fits(s, &t, need, sizeof need) == 0)
            return 0;
        snprintf(why, sizeof why, "%s: %s", full, need);
        at = s->at;
    } else {
        return 0;
    }
    fprintf(stderr, "clrtrace %s: --inject '%s': %s at offset %zu\n", who, s->text, why, at);
    return -1;
}

/* The newest runtime folder under root/SHARED_RUNTIME with
 * System.Private.CoreLib.dll, into out. */
static int newest_runtime(const char *root, char *out, size_t cap)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%s", root, SHARED_RUNTIME);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    unsigned best[3] = {0, 0, 0};
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        unsigned v[3] = {0, 0, 0};
        if (sscanf(e->d_name, "%u.%u.%u", &v[0], &v[1], &v[2]) != 3)
            continue;
        char path[PATH_MAX];
        if ((size_t)snprintf(path, sizeof path, "%s/%.255s/System.Private.CoreLib.dll", dir,
                             e->d_name) >= sizeof path ||
            access(path, R_OK) != 0)
            continue;
        if (!found || v[0] > best[0] || (v[0] == best[0] && (v[1] > best[1] ||
                                                           (v[1] == best[1] && v[2] > best[2])))) {
            memcpy(best, v, sizeof best);
            snprintf(out, cap, "%s", path);
            found = 1;
        }
    }
    closedir(d);
    return found ? 0 : -1;
}

/* CoreLib for the program whose main assembly is at path: beside it (a
 * self-contained app), else the newest of the runtime's shared framework. */
static int find_corelib(const char *path, char *out, size_t cap)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        if ((size_t)snprintf(out, cap, "%s/System.Private.CoreLib.dll", dir) < cap &&
            access(out, R_OK) == 0)
            return 0;
    }
    const char *root = getenv("DOTNET_ROOT");
    if (root && *root && newest_runtime(root, out, cap) == 0)
        return 0;
    const char *p = getenv("PATH");
    while (p && *p) {
        size_t len = strcspn(p, ":");
        char exe[PATH_MAX], real[PATH_MAX];
        if (len && len + 8 < sizeof exe) {
            snprintf(exe, sizeof exe, "%.*s/dotnet", (int)len, p);
            if (access(exe, X_OK) == 0 && realpath(exe, real)) {
                char *s = strrchr(real, '/');
                if (s)
                    *s = '\0';
                /* (a wrapper script named dotnet has no runtime beside it:
                 * the next one on PATH) */
                if (newest_runtime(real, out, cap) == 0)
                    return 0;
            }
        }
        p += len + (p[len] ? 1 : 0);
    }
    /* Where Debian's, Microsoft's and the install script's packages put it. */
    static const char *const roots[] = {"/usr/share/dotnet", "/usr/lib/dotnet",
                                        "/usr/local/share/dotnet"};
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++)
        if (newest_runtime(roots[i], out, cap) == 0)
            return 0;
    return -1;
}

int cli_inject_check(const char *who, const char *list, char *const *program,
                     const char *corelib)
{
    places pl = {{0}, {0}};
    char path[PATH_MAX], clpath[PATH_MAX];
    if (!list || !*list || !program || !program[0] ||
        cli_main_assembly(program, path, sizeof path) != 0)
        return 0;
    cli_assembly a, c;
    if (cli_assembly_open(path, &a) != 0)
        return 0;
    if (corelib)
        snprintf(clpath, sizeof clpath, "%s", corelib);
    int have_corelib = (corelib || find_corelib(path, clpath, sizeof clpath) == 0) &&
                       cli_assembly_open(clpath, &c) == 0;
    snprintf(pl.app, sizeof pl.app, "%s", path);
    if (strrchr(pl.app, '/'))
        *strrchr(pl.app, '/') = '\0';
    if (have_corelib) {
        snprintf(pl.runtime, sizeof pl.runtime, "%s", clpath);
        *strrchr(pl.runtime, '/') = '\0';
    }
    static ct_inject_spec s; /* 18 KiB */
    ct_expr_error err;
    /* Each throw's type found and usable for a method of the assembly
     * (verified: 1), until one is not known here. */
    int rc = 1;
    uint32_t nmethods = clrmeta_rows(&a.md, CLRMETA_T_METHODDEF);
    for (const char *p = list; *p && rc >= 0;) {
        size_t len = strcspn(p, "\n");
        char text[CT_EXPR_MAX_TEXT + 1];
        int matched = 0, verified = 1, thrown = INJECT_CHECK_NOT_YET;
        if (len && len <= CT_EXPR_MAX_TEXT) {
            memcpy(text, p, len);
            text[len] = '\0';
        }
        if (len && len <= CT_EXPR_MAX_TEXT && ct_inject_parse(text, &s, &err) == 0) {
            for (uint32_t rid = 1; rid <= nmethods && rc >= 0; rid++) {
                clrmeta_methoddef_row m;
                char full[INJECT_CHECK_NAME_MAX];
                if (clrmeta_methoddef(&a.md, rid, &m, NULL) != CLRMETA_OK || !m.name ||
                    cli_method_full_name(&a.md, rid, m.name, full, sizeof full) != 0 ||
                    !ct_glob_list_match(s.glob, full))
                    continue;
                /* A state machine's methods and other compiler-made ones are
                 * the profiler's to leave out. */
                if (strchr(full, '<'))
                    continue;
                int one = check_method(who, &a.md, have_corelib ? &c.md : NULL, &pl, &s, rid, full,
                                       &thrown);
                if (one < 0)
                    rc = -1;
                matched = 1;
                verified &= one == 1;
            }
            if (rc >= 0 && s.action == CT_INJECT_THROW && !(matched && verified))
                rc = 0;
        }
        p += len + (p[len] ? 1 : 0);
    }
    if (have_corelib)
        cli_assembly_close(&c);
    cli_assembly_close(&a);
    return rc;
}

/* A path of process pid's as this process can read it: under its root
 * (absolute) or its working folder (relative), through /proc. */
static int proc_path(unsigned pid, const char *path, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "/proc/%u/%s%s%s", pid, path[0] == '/' ? "root" : "cwd",
                                path[0] == '/' ? "" : "/", path);
    return n < cap ? 0 : -1;
}

int cli_inject_check_pid(const char *who, const char *list, unsigned pid)
{
    enum { MAX_ARGS = 64 };
    char file[64], cmdline[8192], corelib[PATH_MAX], line[PATH_MAX + 256];
    char mapped[2][PATH_MAX];
    char *argv[MAX_ARGS + 1];
    if (!list || !*list)
        return 0;
    /* Its command line: `dotnet App.dll ...` or an apphost. */
    snprintf(file, sizeof file, "/proc/%u/cmdline", pid);
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    size_t n = fread(cmdline, 1, sizeof cmdline - 1, f);
    fclose(f);
    cmdline[n] = '\0';
    int argc = 0;
    for (size_t i = 0; i < n && argc < MAX_ARGS; i += strlen(cmdline + i) + 1)
        argv[argc++] = cmdline + i;
    argv[argc] = NULL;
    if (!argc)
        return 0;
    /* Its runtime's CoreLib: beside the libcoreclr.so it mapped. */
    corelib[0] = '\0';
    snprintf(file, sizeof file, "/proc/%u/maps", pid);
    if ((f = fopen(file, "r")) != NULL) {
        while (!corelib[0] && fgets(line, sizeof line, f)) {
            char *lib = strstr(line, "/libcoreclr.so");
            char *start = strchr(line, '/');
            if (!lib || !start || lib < start)
                continue;
            *lib = '\0';
            char dir[PATH_MAX];
            if (proc_path(pid, start, dir, sizeof dir) != 0 ||
                (size_t)snprintf(corelib, sizeof corelib, "%s/System.Private.CoreLib.dll", dir) >=
                    sizeof corelib)
                corelib[0] = '\0';
        }
        fclose(f);
    }
    /* The program and its main assembly as this process reads them. */
    if (strchr(argv[0], '/') && proc_path(pid, argv[0], mapped[0], sizeof mapped[0]) == 0)
        argv[0] = mapped[0];
    for (int i = 1; i < argc; i++)
        if (cli_ends_with(argv[i], ".dll")) {
            if (proc_path(pid, argv[i], mapped[1], sizeof mapped[1]) == 0)
                argv[i] = mapped[1];
            break;
        }
    return cli_inject_check(who, list, argv, corelib[0] ? corelib : NULL);
}
