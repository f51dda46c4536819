/* Source locations of traced methods (srcline.h). */
#include <pthread.h>
#include <string.h>

#include "clrmeta/clrmeta.h"
#include "srcline.h"
#include "perm.h"
#include "agent/runtime/notes.h"
#include "agent/runtime/state.h"
#include "base/table.h"

typedef struct srcmod {
    clrmeta_pdb_file *f;   /* NULL: the module has no PDB we can use */
    uint32_t root;         /* bytes of the common source folder, with its '/' */
    const char *root_text; /* the folder */
    uint32_t ndocs;
    const char **docs;     /* [ndocs + 1]: document names, made on first use */
} srcmod;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_table g_mods; /* {ModuleID, 0} -> srcmod */
static size_t g_nmods;
static ct_notes g_notes = CT_NOTES_INIT;

/* A document's name, kept once made. Under g_lock. */
static const char *doc_name(srcmod *s, uint32_t rid)
{
    if (rid == 0 || rid > s->ndocs)
        return NULL;
    if (!s->docs[rid]) {
        char name[CLRMETA_MAX_DOCUMENT_NAME];
        if (clrmeta_pdb_document_name(&s->f->pdb, rid, name, sizeof name, NULL, NULL) !=
                CLRMETA_OK || !name[0])
            return NULL;
        s->docs[rid] = ct_perm_strdup(name);
    }
    return s->docs[rid];
}

/* The module's PDB, read on first use. Under g_lock. */
static srcmod *module_pdb(const ct_module *m)
{
    ct_key key = {m->id, 0};
    srcmod *s = ct_table_get_key(&g_mods, key);
    if (s)
        return s;
    if (g_nmods >= CT_SRCLINE_MODULES || !(s = ct_perm_alloc(sizeof *s)))
        return NULL;
    memset(s, 0, sizeof *s);
    clrmeta_error err;
    char where[512];
    clrmeta_status st = clrmeta_pdb_load(m->path, NULL, &s->f, where, sizeof where, &err);
    if (st == CLRMETA_OK) {
        s->ndocs = clrmeta_pdb_rows(&s->f->pdb, CLRMETA_PDB_DOCUMENT);
        s->docs = ct_perm_alloc(((size_t)s->ndocs + 1) * sizeof *s->docs);
        if (!s->docs) {
            clrmeta_pdb_free(s->f);
            s->f = NULL;
        } else {
            memset(s->docs, 0, ((size_t)s->ndocs + 1) * sizeof *s->docs);
            char root[CLRMETA_MAX_DOCUMENT_NAME];
            size_t rl = 0;
            if (clrmeta_pdb_source_root(&s->f->pdb, root, sizeof root, &rl, NULL) == CLRMETA_OK &&
                rl && (s->root_text = ct_perm_strdup(root)))
                s->root = (uint32_t)rl;
        }
    } else if (st != CLRMETA_E_NO_PDB && !g_ct.attached) {
        /* A PDB there but unusable (another build's, damaged): one line on
         * stderr at start-up (under attach the process's stderr is its own:
         * the module just has no lines). */
        char msg[CLRMETA_MAX_MESSAGE];
        clrmeta_describe(&err, msg, sizeof msg);
        ct_notes_say(&g_notes, "no source lines for %s: %s: %s", m->assembly ? m->assembly : "?",
                     where, msg);
    }
    if (ct_table_put_key(&g_mods, key, s) == 0)
        g_nmods++;
    return s;
}

int ct_srcline_method(const ct_module *m, mdToken method, ct_fn_src *out)
{
    int rc = -1;
    if (m && m->path && !m->framework) {
        pthread_mutex_lock(&g_lock);
        srcmod *s = module_pdb(m);
        if (s && s->f) {
            const clrmeta_pdb *pdb = &s->f->pdb;
            uint32_t rid = method & 0x00FFFFFFu, mn = 0;
            clrmeta_sequence_point sp;
            int found = 0;
            clrmeta_pdb_method_line(pdb, rid, &sp, &found, NULL);
            if (!found && clrmeta_pdb_move_next(pdb, rid, &mn, NULL) == CLRMETA_OK && mn)
                clrmeta_pdb_method_line(pdb, mn, &sp, &found, NULL);
            const char *file = found ? doc_name(s, sp.document) : NULL;
            if (file) {
                out->file = file;
                out->line = sp.start_line;
                out->root = s->root && strncmp(file, s->root_text, s->root) == 0 ? s->root : 0;
                rc = 0;
            }
        }
        pthread_mutex_unlock(&g_lock);
    }
    return rc;
}

int ct_srcline_at(const ct_module *m, mdToken method, uint32_t il_offset, uint32_t *line)
{
    int rc = -1;
    if (!m || !m->path || m->framework)
        return -1;
    pthread_mutex_lock(&g_lock);
    srcmod *s = module_pdb(m);
    if (s && s->f) {
        clrmeta_sequence_point sp;
        int found = 0;
        if (clrmeta_pdb_line_at(&s->f->pdb, method & 0x00FFFFFFu, il_offset, &sp, &found, NULL) ==
                CLRMETA_OK &&
            found) {
            *line = sp.start_line;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}


const clrmeta_pdb *ct_srcline_pdb(const ct_module *m)
{
    const clrmeta_pdb *pdb = NULL;
    if (!m || !m->path || m->framework)
        return NULL;
    pthread_mutex_lock(&g_lock);
    srcmod *s = module_pdb(m);
    if (s && s->f)
        pdb = &s->f->pdb;
    pthread_mutex_unlock(&g_lock);
    return pdb;
}
