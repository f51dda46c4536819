/* clrtrace tui DIR: an interactive browser of a recorded trace (uftrace's
 * `tui`): each thread's call tree, folded and unfolded; the next or the
 * previous call of the same function; a search by name or by a value in the
 * arguments or the result; one call's values in full; the threads in turn;
 * and the summary table, sorted by a key the user switches. Full screen
 * through ncurses. The trace is read whole first (with the exporters' call
 * walk), at most TUI_MAX_CALLS calls (the status line says when there were
 * more). */
#define _GNU_SOURCE
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/table.h"
#include "cli.h"
#include "cli/export/export.h"

/* Calls kept, and the text of one call's arguments and of its result. */
#define TUI_MAX_CALLS 2000000u
#define TUI_TEXT_MAX 4096u
/* Indentation shown at most (two columns a level). */
#define TUI_MAX_INDENT 60
/* The longest search typed. */
#define TUI_SEARCH_MAX 128

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace tui [--pid N] [selection] DIR\n"
        "\n"
        "Browses a binary trace in the terminal: each thread's call tree, one call a\n"
        "line (duration, name, arguments, result).\n"
        "\n"
        "keys: Up, Down, PgUp, PgDn, g, G   move        v  the call's values in full\n"
        "      Space  fold or unfold a call's callees   t  the next thread\n"
        "      Left, Right  fold, unfold                r  the summary table (s: sort)\n"
        "      f, F  the next, previous call of the     q  quit\n"
        "            same function\n"
        "      /  search a name or a value (Enter); n, N  the next, previous match\n"
        "\n"
        "%s"
        "\n"
        "At most %u calls are read (the status line says when the trace holds more).\n"
        "Exit status: 0; 1 when the trace cannot be read; 2 for a usage error or\n"
        "without a terminal.\n",
        cli_selection_help(), TUI_MAX_CALLS);
}

/* One call, in its thread's calls in the order they began (each call's
 * callees right after it: [i + 1, end)). */
typedef struct node {
    const ct_function *fn;
    uint64_t start, dur;      /* ns: its enter (the trace's clock), its duration
                                 (the held time left out) */
    uint64_t self;            /* dur without its callees' */
    uint32_t parent;          /* its caller's index + 1, or 0 */
    uint32_t end;             /* one past its last callee */
    uint32_t index;           /* its own */
    uint16_t depth;
    uint8_t how;              /* cli_call_end */
    uint8_t folded;
    char *args;               /* "k=v, ..." or NULL */
    char *ret;                /* the result or the exception, or NULL */
} node;

typedef struct tthread {
    uint64_t tid;
    node *n;
    uint32_t count, cap;
} tthread;

typedef struct tui {
    tthread *th;
    size_t nth, cap;
    cli_calls *w;
    uint64_t calls, left_out;
    int oom;
    char val[TUI_TEXT_MAX + 1];
    char args[TUI_TEXT_MAX + 1];
    size_t args_len;
} tui;

static tthread *thread_of(tui *u, uint64_t tid)
{
    for (size_t i = 0; i < u->nth; i++)
        if (u->th[i].tid == tid)
            return &u->th[i];
    if (u->nth == u->cap) {
        size_t cap = u->cap ? u->cap * 2 : 8;
        tthread *more = realloc(u->th, cap * sizeof *more);
        if (!more)
            return NULL;
        u->th = more;
        u->cap = cap;
    }
    tthread *t = &u->th[u->nth++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

static int arg_taken(void *ctx, const char *key)
{
    (void)ctx, (void)key;
    return 0;
}

/* Appends "key=value" to the call's argument text. */
static int arg_append(void *ctx, const char *key, size_t klen, const char *val, size_t vlen)
{
    tui *u = ctx;
    size_t need = (u->args_len ? 2 : 0) + klen + 1 + vlen;
    if (u->args_len + need > TUI_TEXT_MAX)
        return 0;
    char *p = u->args + u->args_len;
    if (u->args_len) {
        memcpy(p, ", ", 2);
        p += 2;
    }
    memcpy(p, key, klen);
    p[klen] = '=';
    memcpy(p + klen + 1, val, vlen);
    u->args_len += need;
    u->args[u->args_len] = '\0';
    return 0;
}

static char *dup_text(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int on_enter(void *ctx, cli_calls *w, cli_thread *t, const ct_rec *rec)
{
    tui *u = ctx;
    cli_frame *f = cli_top(t);
    f->aux = UINT64_MAX;
    if (u->calls >= TUI_MAX_CALLS) {
        u->left_out++;
        return 0;
    }
    tthread *th = thread_of(u, t->tid);
    if (!th)
        return u->oom = -1;
    if (th->count == th->cap) {
        uint32_t cap = th->cap ? th->cap * 2 : 256;
        node *more = realloc(th->n, (size_t)cap * sizeof *more);
        if (!more)
            return u->oom = -1;
        th->n = more;
        th->cap = cap;
    }
    uint32_t i = th->count++;
    node *n = &th->n[i];
    memset(n, 0, sizeof *n);
    const cli_frame *caller = cli_caller(t);
    n->fn = f->fn;
    n->start = f->start;
    n->parent = caller && caller->aux != UINT64_MAX ? (uint32_t)caller->aux + 1 : 0;
    n->depth = (uint16_t)(n->parent ? th->n[n->parent - 1].depth + 1 : 0);
    n->end = i + 1;
    n->index = i;
    u->args_len = 0;
    u->args[0] = '\0';
    if (cli_call_args(w->sym, f->fn, rec, u->val, arg_taken, arg_append, u) != 0)
        return -1;
    if (u->args_len && !(n->args = dup_text(u->args, u->args_len)))
        return u->oom = -1;
    f->aux = i;
    u->calls++;
    return 0;
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *rec)
{
    (void)end;
    tui *u = ctx;
    const cli_frame *f = cli_top(t);
    if (f->aux == UINT64_MAX)
        return 0;
    tthread *th = thread_of(u, t->tid);
    if (!th)
        return u->oom = -1;
    node *n = &th->n[f->aux];
    n->dur = t->prog - f->prog;
    n->self = n->dur > f->children ? n->dur - f->children : 0;
    n->how = (uint8_t)how;
    n->end = th->count;
    ct_text text;
    ct_text_init(&text, u->val, TUI_TEXT_MAX);
    int has = how == CLI_END_RETURN ? ct_symbols_return_text(w->sym, f->fn, rec, &text)
              : how == CLI_END_EXCEPTION && rec && rec->nvalues
                  ? ct_symbols_exception_text(w->sym, rec, &text)
                  : 0;
    if (has && !(n->ret = dup_text(u->val, ct_text_end(&text))))
        return u->oom = -1;
    return 0;
}

/* ---------------------------------------------------------------- views */

typedef struct view {
    tui *u;
    size_t th;                /* the thread shown */
    uint32_t cur, top;        /* the call chosen, the first shown */
    char search[TUI_SEARCH_MAX + 1];
    int report, sort;         /* the summary table, its key (0 total, 1 self, 2 calls) */
    const char *path;
    struct sumrow *rows;      /* the summary table's rows, made at its first showing */
    size_t nrows;
} view;

/* Whether call i of t is shown: no caller of it is folded. */
static int visible(const tthread *t, uint32_t i)
{
    for (uint32_t p = t->n[i].parent; p; p = t->n[p - 1].parent)
        if (t->n[p - 1].folded)
            return 0;
    return 1;
}

static uint32_t next_visible(const tthread *t, uint32_t i)
{
    uint32_t j = t->n[i].folded ? t->n[i].end : i + 1;
    return j < t->count ? j : i;
}

static uint32_t prev_visible(const tthread *t, uint32_t i)
{
    while (i > 0) {
        i--;
        if (visible(t, i))
            return i;
    }
    return 0;
}

/* Unfolds the callers of call i (so that it is shown). */
static void reveal(tthread *t, uint32_t i)
{
    for (uint32_t p = t->n[i].parent; p; p = t->n[p - 1].parent)
        t->n[p - 1].folded = 0;
}

/* A node's own index (its callees begin right after it). */
static uint32_t self_index(const node *n)
{
    return n->index;
}

static void line_of(const node *n, char *out, size_t cap, int chosen)
{
    char d[32];
    if (n->how == CLI_END_UNFINISHED)
        snprintf(d, sizeof d, "%s", "open");
    else
        ct_format_duration(n->dur, d, sizeof d);
    int indent = n->depth * 2 > TUI_MAX_INDENT ? TUI_MAX_INDENT : n->depth * 2;
    /* '-' a call with callees shown, '+' with them folded */
    char mark = n->end > self_index(n) + 1 ? (n->folded ? '+' : '-') : ' ';
    int exc = n->how == CLI_END_EXCEPTION;
    const char *label = !exc && n->ret && n->fn->ret_label ? n->fn->ret_label : "";
    snprintf(out, cap, "%c%10s  %*s%c%s(%s)%s%s%s%s", chosen ? '>' : ' ', d, indent, "", mark,
             n->fn->name, n->args ? n->args : "", exc ? " -> exception" : n->ret ? " ->" : "",
             n->ret ? " " : "", label, n->ret ? n->ret : "");
}

static const char *thread_label(view *v, char *out, size_t cap)
{
    const tthread *t = &v->u->th[v->th];
    const char *name = ct_symbols_thread_name(v->u->w->sym, t->tid);
    snprintf(out, cap, "thread %" PRIu64 "%s%s%s %zu/%zu", t->tid, name ? " (" : "",
             name ? name : "", name ? ")" : "", v->th + 1, v->u->nth);
    return out;
}

static void status(view *v, const char *extra)
{
    char line[1024], thr[256];
    const tthread *t = &v->u->th[v->th];
    int n = snprintf(line, sizeof line, "clrtrace tui: %s, %s, call %u of %u", v->path,
                     thread_label(v, thr, sizeof thr), v->cur + 1, t->count);
    if (v->u->left_out && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, " (the first %u calls; %" PRIu64
                      " more not read)", TUI_MAX_CALLS, v->u->left_out);
    if (extra && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "  %s", extra);
    attron(A_BOLD);
    mvaddnstr(0, 0, line, COLS);
    attroff(A_BOLD);
    mvaddnstr(LINES - 1, 0,
              "q quit  Space fold  f/F same function  / search  n/N match  v values  "
              "t thread  r report",
              COLS);
}

static void draw_tree(view *v, const char *extra)
{
    tthread *t = &v->u->th[v->th];
    int rows = LINES - 2;
    erase();
    /* The chosen call within the screen: scrolled to it. */
    if (v->cur < v->top)
        v->top = v->cur;
    uint32_t i = v->top;
    int k = 0;
    for (; i != v->cur && k < rows - 1; k++)
        i = next_visible(t, i);
    if (i != v->cur) {
        /* The chosen call is below the screen: it goes on its last line. */
        v->top = v->cur;
        for (int b = 0; b < rows - 1 && v->top > 0; b++)
            v->top = prev_visible(t, v->top);
    }
    char line[TUI_TEXT_MAX * 2 + 256];
    i = v->top;
    for (int y = 0; y < rows && t->count; y++) {
        line_of(&t->n[i], line, sizeof line, i == v->cur);
        if (i == v->cur)
            attron(A_REVERSE);
        mvaddnstr(y + 1, 0, line, COLS);
        if (i == v->cur)
            attroff(A_REVERSE);
        uint32_t j = next_visible(t, i);
        if (j == i)
            break;
        i = j;
    }
    status(v, extra);
    refresh();
}

/* One call's values in full, a line each, until a key. */
static void draw_values(view *v)
{
    tthread *t = &v->u->th[v->th];
    const node *n = &t->n[v->cur];
    char d[32], line[TUI_TEXT_MAX + 64];
    erase();
    int y = 1;
    mvaddnstr(y++, 0, n->fn->name, COLS);
    ct_format_duration(n->dur, d, sizeof d);
    snprintf(line, sizeof line, "  duration %s, began at %.6f s", d, (double)n->start / 1e9);
    mvaddnstr(y++, 0, line, COLS);
    /* The arguments, one a line ("k=v, k2=v2": split at the ", " before a
     * key; a value with ", " in it stays whole enough to read). */
    const char *a = n->args ? n->args : "";
    while (*a && y < LINES - 3) {
        const char *e = strstr(a, ", ");
        size_t len = e ? (size_t)(e - a) : strlen(a);
        snprintf(line, sizeof line, "  %.*s", (int)len, a);
        mvaddnstr(y++, 0, line, COLS);
        a += len + (e ? 2 : 0);
    }
    if (n->ret || n->how == CLI_END_EXCEPTION) {
        int exc = n->how == CLI_END_EXCEPTION;
        snprintf(line, sizeof line, "  %s %s%s", exc ? "-> exception" : "->",
                 !exc && n->fn->ret_label ? n->fn->ret_label : "", n->ret ? n->ret : "");
        mvaddnstr(y++, 0, line, COLS);
    }
    status(v, "(any key: back)");
    refresh();
    getch();
}

/* The summary table: calls, total and self time per function, every
 * thread's calls. */
typedef struct sumrow {
    const ct_function *fn;
    uint64_t calls, total, self;
} sumrow;

static int g_report_sort;

static int by_report_key(const void *a, const void *b)
{
    const sumrow *x = a, *y = b;
    uint64_t kx = g_report_sort == 1 ? x->self : g_report_sort == 2 ? x->calls : x->total;
    uint64_t ky = g_report_sort == 1 ? y->self : g_report_sort == 2 ? y->calls : y->total;
    if (kx != ky)
        return kx < ky ? 1 : -1;
    return strcmp(x->fn->name, y->fn->name);
}

/* Adds each call of thread t to its function's row (rows by function key
 * in byfn). */
static int sum_thread(const tthread *t, ct_table *byfn, sumrow *rows, size_t *nrows)
{
    for (uint32_t i = 0; i < t->count; i++) {
        const node *n = &t->n[i];
        uintptr_t r = (uintptr_t)ct_table_get(byfn, n->fn->key);
        if (!r) {
            rows[*nrows] = (sumrow){n->fn, 0, 0, 0};
            r = ++*nrows;
            if (ct_table_put(byfn, n->fn->key, (void *)r) != 0)
                return -1;
        }
        sumrow *row = &rows[r - 1];
        row->calls++;
        row->self += n->self;
        /* (a recursive call's time is in its caller's) */
        int nested = 0;
        for (uint32_t p = n->parent; p && !nested; p = t->n[p - 1].parent)
            nested = t->n[p - 1].fn == n->fn;
        if (!nested)
            row->total += n->dur;
    }
    return 0;
}

/* The summary table's rows, every thread's calls summed once (at most one
 * row a call). */
static void make_report(view *v)
{
    uint64_t calls = 0;
    for (size_t k = 0; k < v->u->nth; k++)
        calls += v->u->th[k].count;
    sumrow *rows = malloc((calls ? calls : 1) * sizeof *rows);
    ct_table byfn;
    memset(&byfn, 0, sizeof byfn);
    size_t n = 0;
    for (size_t k = 0; rows && k < v->u->nth; k++)
        if (sum_thread(&v->u->th[k], &byfn, rows, &n) != 0) {
            free(rows);
            rows = NULL;
        }
    ct_table_free(&byfn);
    v->rows = rows;
    v->nrows = rows ? n : 0;
}

static void draw_report(view *v)
{
    if (!v->rows)
        make_report(v);
    sumrow *rows = v->rows;
    size_t nrows = v->nrows;
    g_report_sort = v->sort;
    if (rows)
        qsort(rows, nrows, sizeof *rows, by_report_key);
    erase();
    static const char *const keys[] = {"total", "self", "calls"};
    char line[1024];
    snprintf(line, sizeof line, "#  CALLS      TOTAL       SELF  FUNCTION   (sorted by %s; s: the "
             "next key, r: back)", keys[v->sort]);
    mvaddnstr(1, 0, line, COLS);
    for (size_t i = 0; rows && i < nrows && (int)i + 2 < LINES - 1; i++) {
        char tot[32], self[32];
        ct_format_duration(rows[i].total, tot, sizeof tot);
        ct_format_duration(rows[i].self, self, sizeof self);
        snprintf(line, sizeof line, "%8" PRIu64 " %10s %10s  %s", rows[i].calls, tot, self,
                 rows[i].fn->name);
        mvaddnstr((int)i + 2, 0, line, COLS);
    }
    status(v, "(summary)");
    refresh();
}

/* Whether call n matches the search text (its name, its arguments, its
 * result). */
static int matches(const node *n, const char *s)
{
    return strstr(n->fn->name, s) || (n->args && strstr(n->args, s)) ||
           (n->ret && strstr(n->ret, s));
}

/* The next (dir 1) or previous (-1) call of t from cur that pred takes,
 * wrapping at the end; cur when none. */
static uint32_t find(const tthread *t, uint32_t cur, int dir,
                     int (*pred)(const node *n, const void *ctx), const void *ctx)
{
    for (uint32_t k = 1; k <= t->count; k++) {
        uint32_t i = dir > 0 ? (cur + k) % t->count : (cur + t->count - k) % t->count;
        if (pred(&t->n[i], ctx))
            return i;
    }
    return cur;
}

static int same_fn(const node *n, const void *ctx)
{
    return n->fn == ctx;
}

static int search_hit(const node *n, const void *ctx)
{
    return matches(n, ctx);
}

/* Reads a search text on the last line: 0, or -1 (Esc). */
static int read_search(view *v)
{
    size_t len = 0;
    v->search[0] = '\0';
    for (;;) {
        char line[TUI_SEARCH_MAX + 16];
        snprintf(line, sizeof line, "/%s_", v->search);
        move(LINES - 1, 0);
        clrtoeol();
        mvaddnstr(LINES - 1, 0, line, COLS);
        refresh();
        int ch = getch();
        if (ch == '\n' || ch == KEY_ENTER)
            return len ? 0 : -1;
        if (ch == 27)
            return -1;
        if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
            v->search[--len] = '\0';
        else if (ch >= 32 && ch < 127 && len < TUI_SEARCH_MAX)
            v->search[len++] = (char)ch, v->search[len] = '\0';
    }
}

static void free_tui(tui *u)
{
    for (size_t k = 0; k < u->nth; k++) {
        for (uint32_t i = 0; i < u->th[k].count; i++) {
            free(u->th[k].n[i].args);
            free(u->th[k].n[i].ret);
        }
        free(u->th[k].n);
    }
    free(u->th);
    cli_calls_free(u->w);
}

int cmd_tui(int argc, char **argv)
{
    cli_offline o;
    if (cli_offline_parse(&o, "tui", argc, argv) != 0)
        return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "clrtrace tui: no terminal (replay prints the calls as text)\n");
        return 2;
    }
    static tui u;
    memset(&u, 0, sizeof u);
    cli_trace t;
    if (cli_trace_open_pid(&t, "tui", o.trace, o.pid) != 0)
        return 1;
    t.filter = &o.reading;
    cli_calls_ops ops = {.enter = on_enter, .leave = on_leave};
    u.w = cli_calls_new(&ops, &u);
    int rc = u.w ? cli_trace_each(&t, "tui", cli_calls_record, u.w) : 1;
    if (u.w && cli_calls_finish(u.w) != 0)
        rc = 1;
    cli_trace_close(&t);
    if (rc || u.oom || !u.nth) {
        if (!rc && !u.oom)
            fprintf(stderr, "clrtrace tui: %s holds no call\n", o.trace);
        else if (u.oom)
            fprintf(stderr, "clrtrace tui: out of memory\n");
        free_tui(&u);
        return 1;
    }
    view v = {.u = &u, .path = o.trace};
    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    const char *note = NULL;
    for (;;) {
        tthread *th = &u.th[v.th];
        if (v.report)
            draw_report(&v);
        else
            draw_tree(&v, note);
        note = NULL;
        int ch = getch();
        if (ch == 'q')
            break;
        if (v.report) {
            if (ch == 's')
                v.sort = (v.sort + 1) % 3;
            else if (ch == 'r' || ch == 27)
                v.report = 0;
            continue;
        }
        int page = LINES - 3 > 1 ? LINES - 3 : 1;
        switch (ch) {
        case KEY_DOWN: case 'j':
            v.cur = next_visible(th, v.cur);
            break;
        case KEY_UP: case 'k':
            v.cur = prev_visible(th, v.cur);
            break;
        case KEY_NPAGE:
            for (int i = 0; i < page; i++)
                v.cur = next_visible(th, v.cur);
            break;
        case KEY_PPAGE:
            for (int i = 0; i < page; i++)
                v.cur = prev_visible(th, v.cur);
            break;
        case 'g': case KEY_HOME:
            v.cur = 0;
            break;
        case 'G': case KEY_END:
            while (next_visible(th, v.cur) != v.cur)
                v.cur = next_visible(th, v.cur);
            break;
        case ' ':
            if (th->n[v.cur].end > v.cur + 1)
                th->n[v.cur].folded = !th->n[v.cur].folded;
            break;
        case KEY_LEFT:
            if (th->n[v.cur].end > v.cur + 1)
                th->n[v.cur].folded = 1;
            break;
        case KEY_RIGHT:
            th->n[v.cur].folded = 0;
            break;
        case 'f': case 'F': {
            uint32_t i = find(th, v.cur, ch == 'f' ? 1 : -1, same_fn, th->n[v.cur].fn);
            reveal(th, i);
            if (i == v.cur)
                note = "(no other call of it)";
            v.cur = i;
            break;
        }
        case '/':
            if (read_search(&v) != 0)
                break;
            __attribute__((fallthrough)); /* the first match from here */
        case 'n': case 'N': {
            if (!v.search[0])
                break;
            uint32_t i = find(th, v.cur, ch == 'N' ? -1 : 1, search_hit, v.search);
            if (!matches(&th->n[i], v.search))
                note = "(not found)";
            reveal(th, i);
            v.cur = i;
            break;
        }
        case 'v': case '\n': case KEY_ENTER:
            draw_values(&v);
            break;
        case 't':
            v.th = (v.th + 1) % u.nth;
            v.cur = v.top = 0;
            break;
        case 'r':
            v.report = 1;
            break;
        default:
            break;
        }
    }
    endwin();
    free(v.rows);
    free_tui(&u);
    return 0;
}
