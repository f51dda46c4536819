/* --when's and -A's parameter names checked before the program runs (cli.h,
 * cli_when_check, cli_chosen_check): the program's main assembly read with libclrmeta, and
 * each condition's paths looked up among the parameters of the methods its
 * glob matches there, as the profiler will name them ("Ns.Type.Method",
 * nested types joined by '.'). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clrmeta/clrmeta.h"
#include "clrsig/clrsig.h"
#include "format/expr.h"
#include "format/words.h"
#include "cli.h"

/* Nested types followed outwards for a method's full name. */
/* Longest full name built. */
#define WHEN_CHECK_NAME_MAX 2048
/* Parameters of one method looked at (the profiler reads at most
 * CT_WHEN_MAX_ARGS, `this` included). */
#define WHEN_CHECK_MAX_PARAMS 64


int cli_main_assembly(char *const *program, char *out, size_t cap)
{
    const char *p0 = program[0];
    const char *base = strrchr(p0, '/');
    base = base ? base + 1 : p0;
    if (!strcmp(base, "dotnet")) {
        for (int i = 1; program[i]; i++) {
            if (program[i][0] == '-')
                return -1; /* `dotnet --roll-forward ...`, `dotnet exec ...`: not followed */
            if (cli_ends_with(program[i], ".dll")) {
                snprintf(out, cap, "%s", program[i]);
                return 0;
            }
            return -1; /* `dotnet run`, `dotnet build`: no assembly yet */
        }
        return -1;
    }
    if (cli_ends_with(p0, ".dll") || !strchr(p0, '/'))
        return -1;
    if ((size_t)snprintf(out, cap, "%s.dll", p0) >= cap)
        return -1;
    return access(out, R_OK) == 0 ? 0 : -1;
}

int cli_type_full_name(const clrmeta *md, uint32_t token, char *out, size_t cap)
{
    const char *parts[CLI_MAX_TYPE_NESTING];
    const char *ns = NULL;
    unsigned n = 0;
    while (token && n < CLI_MAX_TYPE_NESTING) {
        const char *tns = NULL, *name = NULL;
        uint32_t enclosing = 0;
        if (clrmeta_type_name(md, token, &tns, &name, &enclosing, NULL) != CLRMETA_OK || !name)
            return -1;
        parts[n++] = name;
        ns = tns;
        token = (token >> 24) == 0x02 ? enclosing : 0; /* (a TypeRef's nesting: not followed) */
    }
    if (token)
        return -1;
    size_t len = 0;
    out[0] = '\0';
    if (ns && *ns)
        len += (size_t)snprintf(out + len, cap - len, "%s.", ns);
    while (n-- > 0 && len < cap)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", parts[n], n ? "." : "");
    return len < cap ? 0 : -1;
}

int cli_method_full_name(const clrmeta *md, uint32_t rid, const char *method, char *out,
                         size_t cap)
{
    uint32_t td = 0;
    if (clrmeta_method_owner(md, rid, &td, NULL) != CLRMETA_OK || !td ||
        cli_type_full_name(md, 0x02000000u | td, out, cap) != 0)
        return -1;
    size_t len = strlen(out);
    return (size_t)snprintf(out + len, cap - len, ".%s", method) < cap - len ? 0 : -1;
}

/* What a method offers a condition: its parameters' names, which are out
 * ([Out] in its Param rows) and which are passed by reference (out, ref,
 * in: read again at the call's end), and whether it returns a value. */
typedef struct method_params {
    uint32_t n;
    const char *name[WHEN_CHECK_MAX_PARAMS];
    uint8_t out[WHEN_CHECK_MAX_PARAMS], byref[WHEN_CHECK_MAX_PARAMS];
    int returns;             /* 1: a value, 0: void, -1: not known */
    int known;               /* the Param rows were read */
} method_params;

static void read_params(const clrmeta *md, uint32_t rid, const clrmeta_methoddef_row *m,
                        method_params *mp)
{
    memset(mp, 0, sizeof *mp);
    mp->returns = -1;
    static uint8_t mem[CLRSIG_ARENA_SIZE_RECOMMENDED];
    clrsig_arena arena;
    clrsig_arena_init(&arena, mem, sizeof mem);
    clrsig_sig sig;
    int have_sig = m->sig.p && clrsig_parse(m->sig.p, m->sig.len, CLRSIG_KIND_METHOD, NULL,
                                             &arena, &sig, NULL) == CLRSIG_OK;
    if (have_sig && sig.method.ret)
        mp->returns = clrsig_strip(sig.method.ret)->kind != CLRSIG_ET_VOID;
    clrmeta_list ps;
    if (clrmeta_method_params(md, rid, &ps, NULL) != CLRMETA_OK)
        return;
    mp->known = 1;
    for (uint32_t i = 0; i < ps.count && mp->n < WHEN_CHECK_MAX_PARAMS; i++) {
        clrmeta_param_row row;
        if (clrmeta_param(md, clrmeta_list_rid(md, &ps, i), &row, NULL) != CLRMETA_OK ||
            !row.sequence || !row.name)
            continue;
        uint32_t k = mp->n++;
        mp->name[k] = row.name;
        mp->out[k] = (row.flags & CLRSIG_PARAM_OUT) != 0;
        uint32_t at = row.sequence - 1u;
        mp->byref[k] = mp->out[k] ||
                       (have_sig && at < sig.method.param_count &&
                        clrsig_strip(sig.method.params[at])->kind == CLRSIG_ET_BYREF);
    }
}

/* The parameter of mp named name, or -1. */
static int param_named(const method_params *mp, const char *name)
{
    for (uint32_t i = 0; i < mp->n; i++)
        if (!strcmp(mp->name[i], name))
            return (int)i;
    return -1;
}

/* Whether the parameter of the method of mp (ctx) named name is an out
 * parameter (ct_expr_decides_at_end). */
static int out_param(void *ctx, const char *name)
{
    const method_params *mp = ctx;
    int i = param_named(mp, name);
    return i >= 0 && mp->out[i];
}

/* Why a method cannot give a path of a condition. */
enum { PATH_OK = 0, PATH_NO_PARAM, PATH_NO_THIS, PATH_AT_ENTRY, PATH_VOID };

/* Whether the method (static: flags; its parameters mp) gives path p of
 * e, deciding at the call's end or not (at_end). */
static int method_gives(uint16_t flags, const method_params *mp, int at_end, const ct_expr *e,
                        const ct_expr_path *p)
{
    if (p->root == CT_XROOT_THIS)
        return flags & 0x0010 ? PATH_NO_THIS : PATH_OK; /* mdStatic */
    if (p->root == CT_XROOT_RETURN)
        return mp->returns == 0 ? PATH_VOID : PATH_OK;
    if (p->root != CT_XROOT_PARAM || !mp->known)
        return PATH_OK; /* exception; or cannot tell */
    int i = param_named(mp, ct_expr_seg(e, p, 0));
    if (i < 0)
        return PATH_NO_PARAM;
    return at_end && !mp->byref[i] ? PATH_AT_ENTRY : PATH_OK;
}

/* Checks the conditions of list (one a line) against the assembly md: 0,
 * or -1 after one line. */
static int check_assembly(const char *who, const char *list, const clrmeta *md, int chosen)
{
    const char *opt = chosen ? "-A" : "--when";
    static ct_expr e; /* 8 KiB */
    static method_params mp;
    ct_expr_error err;
    uint32_t nmethods = clrmeta_rows(md, CLRMETA_T_METHODDEF);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, "\n");
        char text[CT_EXPR_MAX_TEXT + 1];
        if (len && len <= CT_EXPR_MAX_TEXT) {
            memcpy(text, p, len);
            text[len] = '\0';
            if ((chosen ? ct_chosen_parse(text, 0, &e, &err) : ct_expr_parse(text, &e, &err)) == 0) {
                /* Per path: a matching method gives it (have), or why the
                 * first matching method that does not cannot. */
                int have[CT_EXPR_MAX_PATHS] = {0}, why[CT_EXPR_MAX_PATHS] = {0};
                char missing[CT_EXPR_MAX_PATHS][WHEN_CHECK_NAME_MAX];
                for (unsigned k = 0; k < e.npaths; k++)
                    missing[k][0] = '\0';
                for (uint32_t rid = 1; rid <= nmethods; rid++) {
                    clrmeta_methoddef_row m;
                    char full[WHEN_CHECK_NAME_MAX];
                    if (clrmeta_methoddef(md, rid, &m, NULL) != CLRMETA_OK || !m.name ||
                        cli_method_full_name(md, rid, m.name, full, sizeof full) != 0 ||
                        !ct_glob_list_match(e.glob, full))
                        continue;
                    read_params(md, rid, &m, &mp);
                    int at_end = !chosen && ct_expr_decides_at_end(&e, out_param, &mp);
                    for (unsigned k = 0; k < e.npaths; k++) {
                        if (have[k])
                            continue;
                        int w = method_gives(m.flags, &mp, at_end, &e, &e.paths[k]);
                        if (w == PATH_OK) {
                            have[k] = 1;
                        } else if (!missing[k][0]) {
                            snprintf(missing[k], sizeof missing[k], "%s", full);
                            why[k] = w;
                        }
                    }
                }
                for (unsigned k = 0; k < e.npaths; k++) {
                    if (have[k] || !missing[k][0])
                        continue;
                    const char *first = ct_expr_seg(&e, &e.paths[k], 0);
                    unsigned off = e.paths[k].offset;
                    if (why[k] == PATH_NO_THIS)
                        fprintf(stderr, "clrtrace %s: %s '%s': %s is static: no 'this' at "
                                "offset %u\n", who, opt, text, missing[k], off);
                    else if (why[k] == PATH_VOID)
                        fprintf(stderr, "clrtrace %s: %s '%s': %s returns nothing (void) at "
                                "offset %u\n", who, opt, text, missing[k], off);
                    else if (why[k] == PATH_AT_ENTRY)
                        fprintf(stderr, "clrtrace %s: %s '%s': '%s' of %s is read at the call's "
                                "entry, and this condition decides at its end (it names return, "
                                "exception or an out parameter): test '%s' in a --when of its "
                                "own at offset %u\n", who, opt, text, first, missing[k], first,
                                off);
                    else
                        fprintf(stderr, "clrtrace %s: %s '%s': %s has no parameter '%s' at "
                                "offset %u\n", who, opt, text, missing[k], first, off);
                    return -1;
                }
            }
        }
        p += len + (p[len] ? 1 : 0);
    }
    return 0;
}

/* The conditions (list) and -A's values (args) checked against the
 * program's main assembly. */
static int check_program(const char *who, const char *list, const char *args,
                         char *const *program)
{
    char path[4096];
    if (((!list || !*list) && (!args || !*args)) || !program || !program[0] ||
        cli_main_assembly(program, path, sizeof path) != 0)
        return 0;
    cli_assembly a;
    if (cli_assembly_open(path, &a) != 0)
        return 0;
    int rc = (list && *list && check_assembly(who, list, &a.md, 0) != 0) ||
                     (args && *args && check_assembly(who, args, &a.md, 1) != 0)
                 ? -1
                 : 0;
    cli_assembly_close(&a);
    return rc;
}

int cli_assembly_open(const char *path, cli_assembly *a)
{
    memset(a, 0, sizeof *a);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        return -1;
    }
    a->size = (size_t)st.st_size;
    a->map = mmap(NULL, a->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (a->map == MAP_FAILED) {
        a->map = NULL;
        return -1;
    }
    if (clrmeta_open(a->map, a->size, &a->md, NULL) == CLRMETA_OK &&
        (a->index = malloc(clrmeta_index_size(&a->md))) != NULL &&
        clrmeta_build_index(&a->md, a->index, clrmeta_index_size(&a->md), NULL) == CLRMETA_OK)
        return 0;
    cli_assembly_close(a);
    return -1;
}

void cli_assembly_close(cli_assembly *a)
{
    free(a->index);
    if (a->map)
        munmap(a->map, a->size);
    memset(a, 0, sizeof *a);
}

int cli_when_check(const char *who, const char *list, char *const *program)
{
    return check_program(who, list, NULL, program);
}

int cli_chosen_check(const char *who, const char *args, const char *rets, char *const *program)
{
    (void)rets; /* 'return' is every method's (a void one's capture is empty) */
    return check_program(who, NULL, args, program);
}
