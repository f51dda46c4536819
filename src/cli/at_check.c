/* --at's lines checked before the program runs (cli.h, cli_at_check): the
 * Portable PDBs of the assemblies in the main assembly's folder read with
 * libclrmeta, each line looked up as the profiler will look it up
 * (clrmeta_pdb_find_line), so that a line with no code is one line on
 * stderr and the program does not run. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrmeta/clrmeta.h"
#include "format/words.h"
#include "cli.h"

/* Assemblies of the folder looked at, at most (a self-contained app's
 * folder holds its runtime's too, which have no PDB). */
#define AT_CHECK_MAX_ASSEMBLIES 1024

/* What the folder's PDBs say of one line. */
typedef struct at_found {
    ct_at_spec at;
    int found, ambiguous, no_code;
    uint32_t chosen, before, after;
    char doc[2][CLRMETA_MAX_DOCUMENT_NAME];
} at_found;

static void look(const clrmeta_pdb *pdb, at_found *f)
{
    clrmeta_line_match m;
    if (f->found || f->ambiguous ||
        clrmeta_pdb_find_line(pdb, f->at.file, f->at.line, &m, NULL) != CLRMETA_OK)
        return;
    switch (m.result) {
    case CLRMETA_LINE_FOUND:
        f->found = 1;
        f->chosen = m.line;
        break;
    case CLRMETA_LINE_AMBIGUOUS:
        f->ambiguous = 1;
        clrmeta_pdb_document_name(pdb, m.document, f->doc[0], sizeof f->doc[0], NULL, NULL);
        clrmeta_pdb_document_name(pdb, m.other, f->doc[1], sizeof f->doc[1], NULL, NULL);
        break;
    case CLRMETA_LINE_NO_CODE:
        f->no_code = 1;
        f->before = m.before;
        f->after = m.after;
        break;
    case CLRMETA_LINE_NO_FILE:
        break;
    }
}

/* `GLOB:LINE` (f->at.file names no document, and no '/'): line LINE of the
 * file of a method of the assembly md (its PDB: pdb) that the glob matches,
 * in that method or its state machine's MoveNext, as the profiler places it
 * (model/plans/lineprobe.c). */
static void look_by_method(const clrmeta *md, const clrmeta_pdb *pdb, at_found *f)
{
    uint32_t n = clrmeta_rows(md, CLRMETA_T_METHODDEF);
    for (uint32_t rid = 1; rid <= n && !f->found; rid++) {
        clrmeta_methoddef_row m;
        char full[2048];
        clrmeta_line_match lm;
        if (clrmeta_methoddef(md, rid, &m, NULL) != CLRMETA_OK ||
            cli_method_full_name(md, rid, m.name, full, sizeof full) != 0 ||
            !ct_glob_list_match(f->at.file, full))
            continue;
        if (clrmeta_pdb_find_line_in_method(pdb, rid, f->at.line, &lm, NULL) == CLRMETA_OK &&
            lm.result == CLRMETA_LINE_FOUND) {
            f->found = 1;
            f->chosen = lm.line;
        }
    }
}

/* Whether spec f is still to be looked for as a method glob. */
static int wants_method(const at_found *f)
{
    return !f->found && !f->ambiguous && !f->no_code && !strchr(f->at.file, '/') &&
           !strchr(f->at.file, '\\');
}

/* Each spec not found by its file, looked for as a method glob in the
 * assembly at path (its metadata and PDB read once). */
static void look_all_by_method(const char *path, at_found *found, unsigned n)
{
    unsigned want = 0;
    for (unsigned i = 0; i < n; i++)
        want += wants_method(&found[i]);
    clrmeta_pdb_file *pdb = NULL;
    cli_assembly a;
    if (!want || clrmeta_pdb_load(path, NULL, &pdb, NULL, 0, NULL) != CLRMETA_OK)
        return;
    if (cli_assembly_open(path, &a) == 0) {
        for (unsigned i = 0; i < n; i++)
            if (wants_method(&found[i]))
                look_by_method(&a.md, &pdb->pdb, &found[i]);
        cli_assembly_close(&a);
    }
    clrmeta_pdb_free(pdb);
}

/* fn(ctx, path) for each assembly (*.dll) of folder dir but main, the
 * first AT_CHECK_MAX_ASSEMBLIES of them. */
static void each_other_assembly(const char *dir, const char *main,
                                void (*fn)(void *ctx, const char *path), void *ctx)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    unsigned seen = 0;
    while (d && (e = readdir(d)) && seen < AT_CHECK_MAX_ASSEMBLIES) {
        char other[8192];
        if (!cli_ends_with(e->d_name, ".dll") ||
            (size_t)snprintf(other, sizeof other, "%s/%s", dir, e->d_name) >= sizeof other ||
            !strcmp(other, main))
            continue;
        seen++;
        fn(ctx, other);
    }
    if (d)
        closedir(d);
}

typedef struct specs {
    at_found *found;
    unsigned n;
} specs;

/* Each spec looked for by its file in the PDB of the assembly at path. */
static void by_file(void *ctx, const char *path)
{
    const specs *s = ctx;
    clrmeta_pdb_file *pdb = NULL;
    if (clrmeta_pdb_load(path, NULL, &pdb, NULL, 0, NULL) != CLRMETA_OK)
        return;
    for (unsigned i = 0; i < s->n; i++)
        look(&pdb->pdb, &s->found[i]);
    clrmeta_pdb_free(pdb);
}

static void by_method(void *ctx, const char *path)
{
    const specs *s = ctx;
    look_all_by_method(path, s->found, s->n);
}

int cli_at_check(const char *who, const char *list, char *const *program)
{
    char path[4096];
    if (!list || !*list || !program || !program[0] ||
        cli_main_assembly(program, path, sizeof path) != 0)
        return 0;
    at_found *found = calloc(CT_AT_MAX, sizeof *found);
    if (!found)
        return 0;
    ct_at_spec specs_given[CT_AT_MAX];
    unsigned lines = 0, bad = 0, n = ct_at_list(list, specs_given, CT_AT_MAX, &lines, &bad);
    for (unsigned i = 0; i < n; i++)
        found[i].at = specs_given[i];
    /* The main assembly first, then the others beside it. */
    char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    specs ctx = {found, n};
    by_file(&ctx, path);
    each_other_assembly(dir, path, by_file, &ctx);
    /* Then as method globs (`Shop.Cart.Sum:30`): the main assembly, the
     * others beside it. */
    look_all_by_method(path, found, n);
    each_other_assembly(dir, path, by_method, &ctx);
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i++) {
        at_found *f = &found[i];
        if (f->ambiguous) {
            fprintf(stderr, "clrtrace %s: --at %s:%u: %s names more than one source file (%s, "
                    "%s): give more of its path\n", who, f->at.file, f->at.line, f->at.file,
                    f->doc[0], f->doc[1]);
            rc = -1;
        } else if (f->found) {
            if (f->chosen != f->at.line)
                fprintf(stderr, "clrtrace %s: --at %s:%u: no code starts on line %u; the probe "
                        "is at line %u\n", who, f->at.file, f->at.line, f->at.line, f->chosen);
        } else if (f->no_code) {
            fprintf(stderr, "clrtrace %s: --at %s:%u: line %u is in no method", who, f->at.file,
                    f->at.line, f->at.line);
            if (f->before && f->after)
                fprintf(stderr, " (the nearest code: lines %u and %u)", f->before, f->after);
            else if (f->before || f->after)
                fprintf(stderr, " (the nearest code: line %u)", f->before ? f->before : f->after);
            fprintf(stderr, "\n");
            rc = -1;
        } else {
            fprintf(stderr, "clrtrace %s: --at %s:%u: no Portable PDB of the assemblies in %s "
                    "names a source file %s, and no method of theirs it names has code on line "
                    "%u\n", who, f->at.file, f->at.line, dir, f->at.file, f->at.line);
            rc = -1;
        }
    }
    free(found);
    return rc;
}
