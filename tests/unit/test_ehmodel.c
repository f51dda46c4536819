/* The exception model of the profiler (src/agent/record/ehmodel.h) driven by
 * scripts of callbacks, each the sequence a real runtime sent (logged by a
 * profiler built with -DCLRTRACE_EH_LOG=ON) or written by hand from the
 * runtime's rules. A script (tests/unit/ehmodel/NAME.txt) is one callback or
 * hook a line, then a line "---", then the call tree it must give:
 *
 *   enter F | leave F | tailcall F      the enter, leave, tailcall hooks
 *   thrown | search F | search-leave | found | filter | filter-leave |
 *   unwind F | unwind-leave | finally | finally-leave | catch F |
 *   catch-leave                         the exception callbacks
 *   unhandled                           AppContext.OnUnhandledException entered
 *
 * Functions whose name starts with "System." are untraced (they get
 * exception callbacks but no hooks). The tree is written like the trace: a
 * call with children opens "F {" and is closed by "}" (a return), "}
 * exception" (closed by the model) or "} tailcall"; one without folds to
 * "F", "F -> exception", "F -> tailcall". A leave hook for a function that
 * is not on top writes "!leave F (top G)". The end of a process killed by an
 * unhandled exception is written "fatal", then the frames still open. Lines
 * starting with '#' are comments. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ehmodel.h"

#define MAX_NAMES 256
#define MAX_NAME 128
#define MAX_FRAMES 256
#define MAX_TREE (1 << 16)

typedef struct sim {
    char names[MAX_NAMES][MAX_NAME];
    unsigned nnames;
    uint64_t stack[MAX_FRAMES];
    uint32_t depth;
    int pending;        /* the top frame's enter line is held back */
    ct_eh_state eh;
    char tree[MAX_TREE];
    size_t len;
} sim;

static uint64_t intern(sim *s, const char *name)
{
    for (unsigned i = 0; i < s->nnames; i++)
        if (!strcmp(s->names[i], name))
            return i + 1;
    assert_true(s->nnames < MAX_NAMES);
    snprintf(s->names[s->nnames], MAX_NAME, "%s", name);
    return ++s->nnames;
}

static const char *name_of(const sim *s, uint64_t id)
{
    return id && id <= s->nnames ? s->names[id - 1] : "?";
}

static int traced(const char *name)
{
    return strncmp(name, "System.", 7) != 0;
}

static void out(sim *s, uint32_t depth, const char *fmt, ...)
{
    for (uint32_t i = 0; i < depth && s->len + 2 < MAX_TREE; i++) {
        s->tree[s->len++] = ' ';
        s->tree[s->len++] = ' ';
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->tree + s->len, MAX_TREE - s->len, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && s->len + (size_t)n + 1 < MAX_TREE);
    s->len += (size_t)n;
    s->tree[s->len++] = '\n';
    s->tree[s->len] = '\0';
}

static void flush_pending(sim *s)
{
    if (s->pending)
        out(s, s->depth - 1, "%s {", name_of(s, s->stack[s->depth - 1]));
    s->pending = 0;
}

static void enter(sim *s, uint64_t id)
{
    flush_pending(s);
    assert_true(s->depth < MAX_FRAMES);
    s->stack[s->depth++] = id;
    s->pending = 1;
}

/* how: "" return, "exception", "tailcall". */
static void close_top(sim *s, const char *how)
{
    uint64_t id = s->stack[--s->depth];
    if (s->pending)
        out(s, s->depth, "%s%s%s", name_of(s, id), *how ? " -> " : "", how);
    else
        out(s, s->depth, "}%s%s", *how ? " " : "", how);
    s->pending = 0;
}

static void unwind_to(sim *s, uint32_t depth)
{
    if (depth == CT_EH_NONE)
        return;
    while (s->depth > depth)
        close_top(s, "exception");
}

static void hook_close(sim *s, uint64_t id, const char *how)
{
    if (!s->depth || s->stack[s->depth - 1] != id) {
        flush_pending(s);
        out(s, s->depth, "!%s %s (top %s)", *how ? how : "leave", name_of(s, id),
            s->depth ? name_of(s, s->stack[s->depth - 1]) : "none");
        return;
    }
    close_top(s, how);
}

/* The depth that puts traced function id's frame on top (its innermost
 * open frame), as hooks.c finds it. */
static uint32_t depth_of(const sim *s, uint64_t id)
{
    for (uint32_t i = s->depth; i-- > 0;)
        if (s->stack[i] == id)
            return i + 1;
    return s->depth;
}

/* Runs one script line; returns 1 after a fatal end. */
static int step(sim *s, const char *line, const char *where)
{
    char what[32] = "", name[MAX_NAME] = "";
    if (sscanf(line, "%31s %127s", what, name) < 1)
        return 0;
    uint64_t id = name[0] ? intern(s, name) : 0;
    uint64_t fid = 0;
    if (!strcmp(what, "enter"))
        enter(s, id);
    else if (!strcmp(what, "leave"))
        hook_close(s, id, "");
    else if (!strcmp(what, "tailcall"))
        hook_close(s, id, "tailcall");
    else if (!strcmp(what, "thrown"))
        ct_eh_thrown(&s->eh);
    else if (!strcmp(what, "search"))
        ct_eh_search_enter(&s->eh, id);
    else if (!strcmp(what, "search-leave"))
        ct_eh_search_leave(&s->eh);
    else if (!strcmp(what, "found"))
        ct_eh_catcher_found(&s->eh);
    else if (!strcmp(what, "filter"))
        ct_eh_filter_enter(&s->eh, s->depth);
    else if (!strcmp(what, "filter-leave"))
        unwind_to(s, ct_eh_filter_leave(&s->eh));
    else if (!strcmp(what, "unwind")) {
        int t = traced(name);
        uint32_t depth = t ? depth_of(s, id) : s->depth;
        if (ct_eh_unwind_enter(&s->eh, id, t, depth)) {
            unwind_to(s, t ? depth - 1 : depth);
            flush_pending(s);
            out(s, 0, "fatal");
            return 1;
        }
    } else if (!strcmp(what, "unwind-leave"))
        unwind_to(s, ct_eh_unwind_leave(&s->eh, &fid));
    else if (!strcmp(what, "finally"))
        unwind_to(s, ct_eh_finally_enter(&s->eh));
    else if (!strcmp(what, "finally-leave"))
        ct_eh_finally_leave(&s->eh);
    else if (!strcmp(what, "catch"))
        unwind_to(s, ct_eh_catcher_enter(&s->eh, id));
    else if (!strcmp(what, "catch-leave"))
        ct_eh_catcher_leave(&s->eh);
    else if (!strcmp(what, "unhandled"))
        ct_eh_unhandled(&s->eh);
    else
        fail_msg("%s: unknown step \"%s\"", where, what);
    return 0;
}

typedef struct script {
    char path[512];
    char *text;
} script;

static void run_script(void **state)
{
    const script *sc = *state;
    sim *s = calloc(1, sizeof *s);
    assert_non_null(s);
    ct_eh_reset(&s->eh);
    char *text = strdup(sc->text);
    assert_non_null(text);
    char *expected = strstr(text, "\n---\n");
    assert_non_null(expected);
    *expected = '\0';
    expected += 5;
    unsigned lineno = 0;
    int fatal = 0;
    for (char *line = strtok(text, "\n"); line && !fatal; line = strtok(NULL, "\n")) {
        lineno++;
        if (line[0] == '#')
            continue;
        char where[600];
        snprintf(where, sizeof where, "%s:%u", sc->path, lineno);
        fatal = step(s, line, where);
    }
    flush_pending(s);
    for (uint32_t i = s->depth; i-- > 0;)
        out(s, 0, "open %s", name_of(s, s->stack[i]));
    if (strcmp(s->tree, expected) != 0) {
        fprintf(stderr, "%s: expected\n%s\ngot\n%s\n", sc->path, expected, s->tree);
        fail();
    }
    free(text);
    free(s);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *more = realloc(buf, cap);
            if (!more)
                break;
            buf = more;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        if (!n)
            break;
        len += n;
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const script *)a)->path, ((const script *)b)->path);
}

/* ---------------------------------------------- the model's own limits */

/* CT_EH_NESTING exceptions nested in finally blocks are followed; one more
 * pushes out the oldest, counted in `lost`. */
static void nesting_limit(void **state)
{
    (void)state;
    ct_eh_state s;
    ct_eh_reset(&s);
    for (uint32_t i = 0; i < CT_EH_NESTING; i++) {
        ct_eh_thrown(&s);
        ct_eh_unwind_enter(&s, 100 + i, 1, i + 1);
        ct_eh_finally_enter(&s);
    }
    assert_int_equal(s.n, CT_EH_NESTING);
    assert_int_equal(s.lost, 0);
    ct_eh_thrown(&s);
    assert_int_equal(s.n, CT_EH_NESTING);
    assert_int_equal(s.lost, 1);
    /* The newest is the one just thrown; the oldest left is the second. */
    assert_int_equal(s.ctx[CT_EH_NESTING - 1].pass, 1);
    assert_int_equal(s.ctx[0].fid, 101);
}

/* Each exception thrown gets the next serial; the newest one's is the
 * model's answer, also again once a nested one is over. */
static void serials(void **state)
{
    (void)state;
    ct_eh_state s;
    ct_eh_reset(&s);
    assert_int_equal(ct_eh_serial(&s), 0);
    ct_eh_thrown(&s);
    assert_int_equal(ct_eh_serial(&s), 1);
    ct_eh_unwind_enter(&s, 10, 1, 3);
    assert_int_equal(ct_eh_finally_enter(&s), 3);
    /* Thrown and caught inside the finally block. */
    ct_eh_thrown(&s);
    assert_int_equal(ct_eh_serial(&s), 2);
    ct_eh_unwind_enter(&s, 20, 1, 5);
    assert_int_equal(ct_eh_catcher_enter(&s, 20), 5);
    ct_eh_catcher_leave(&s);
    assert_int_equal(ct_eh_serial(&s), 1);
    ct_eh_finally_leave(&s);
    /* The first can host no nested one any more: the next throw drops it. */
    ct_eh_thrown(&s);
    assert_int_equal(s.n, 1);
    assert_int_equal(ct_eh_serial(&s), 3);
}

/* Callbacks with no exception known to the model change nothing. */
static void callbacks_without_exception(void **state)
{
    (void)state;
    ct_eh_state s;
    ct_eh_reset(&s);
    uint64_t fid = 0;
    ct_eh_search_enter(&s, 1);
    ct_eh_search_leave(&s);
    ct_eh_catcher_found(&s);
    ct_eh_filter_enter(&s, 3);
    assert_int_equal(ct_eh_filter_leave(&s), CT_EH_NONE);
    assert_int_equal(ct_eh_unwind_leave(&s, &fid), CT_EH_NONE);
    assert_int_equal(ct_eh_finally_enter(&s), CT_EH_NONE);
    ct_eh_finally_leave(&s);
    assert_int_equal(ct_eh_catcher_enter(&s, 1), CT_EH_NONE);
    ct_eh_catcher_leave(&s);
    assert_int_equal(ct_eh_unhandled(&s), 0);
    assert_int_equal(s.n, 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s tests/unit/ehmodel\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 2;
    }
    script *scripts = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".txt"))
            continue;
        script *more = realloc(scripts, (n + 1) * sizeof *scripts);
        if (!more)
            return 2;
        scripts = more;
        snprintf(scripts[n].path, sizeof scripts[n].path, "%s/%s", argv[1], e->d_name);
        if (!(scripts[n].text = read_all(scripts[n].path))) {
            perror(scripts[n].path);
            return 2;
        }
        n++;
    }
    closedir(d);
    if (!n) {
        fprintf(stderr, "%s: no scripts\n", argv[1]);
        return 2;
    }
    qsort(scripts, n, sizeof *scripts, by_name);
    struct CMUnitTest *tests = calloc(n + 3, sizeof *tests);
    if (!tests)
        return 2;
    for (size_t i = 0; i < n; i++)
        tests[i] = (struct CMUnitTest){strrchr(scripts[i].path, '/') + 1, run_script, NULL, NULL,
                                       &scripts[i]};
    tests[n] = (struct CMUnitTest)cmocka_unit_test(nesting_limit);
    tests[n + 1] = (struct CMUnitTest)cmocka_unit_test(callbacks_without_exception);
    tests[n + 2] = (struct CMUnitTest)cmocka_unit_test(serials);
    return _cmocka_run_group_tests("ehmodel", tests, n + 3, NULL, NULL);
}
