/* clrtrace top: a live table of a running process's (or a program's)
 * methods, refreshed every second: calls a second, P50, P99 and the longest
 * call over the last second, exceptions a second, and the share of the
 * traced threads' time spent in each (self time), like top(1) and
 * dotnet-counters monitor.
 *
 * How: top runs `clrtrace record --no-compress -o TMP ... -p PID` (or
 * `-- PROGRAM`) as its child, under the attach budget as record is, and
 * reads the trace it writes as it grows (the writer flushes each second):
 * the file mapped again at each refresh and read on from where it was, the
 * calls that ended since counted (export/calls.c's walk), then forgotten.
 * What it keeps grows with the functions and threads seen, not with time,
 * on disk too: the file's part already read is given back to the file
 * system (a hole punched, the length kept) at each refresh, so a busy
 * service's trace does not fill /tmp (a tmpfs is memory).
 * `q` (or Ctrl-C) ends the child as Ctrl-C ends record: the attach session
 * ends, the original code is restored, the process runs on. The
 * temporary folder is removed at the end. Full screen through ncurses;
 * --batch N prints N refreshes as text instead (top -b). */
#define _GNU_SOURCE
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/table.h"
#include "format/settings.h"
#include "cli.h"
#include "cli/export/export.h"
#include "views/hist.h"

/* Longest --batch and the refresh's interval. */
#define TOP_MAX_BATCH 100000u
#define TOP_INTERVAL_MS 1000
/* The trace is read in pieces of at most TOP_READ_MAX bytes, piece after
 * piece for up to TOP_READ_MS at a refresh (the keys wait meanwhile). */
#define TOP_READ_MAX (32ull << 20)
#define TOP_READ_MS 500
/* --max-behind: top stops when more of the trace than this is not read yet
 * at a refresh (the program calls faster than top reads): default, least,
 * most. */
#define TOP_MAX_BEHIND (1ull << 30)
#define TOP_MIN_MAX_BEHIND (1ull << 20)
#define TOP_MAX_MAX_BEHIND (1ull << 40)
/* How long the trace file may take to appear (the attach, the program's
 * start). */
#define TOP_START_MS 30000
/* The longest filter typed ('/'), and a row's name shown. */
#define TOP_FILTER_MAX 128
/* Callers and callees shown for a function (Enter). */
#define TOP_EDGES_SHOWN 20

static void usage(FILE *to)
{
    fprintf(to,
        "usage: clrtrace top -p PID [--batch N] [record's options]\n"
        "       clrtrace top [--batch N] [record's options] -- PROGRAM [ARGS...]\n"
        "\n"
        "A live table of the traced methods of a running process (-p: attached, under\n"
        "the attach budget, as `record -p`) or of a program it starts, refreshed every\n"
        "second: per method its calls a second, P50, P99 and the longest of the calls\n"
        "that ended in the last second, exceptions a second, and its share of the\n"
        "traced threads' time (self time).\n"
        "\n"
        "keys: s  sort by the next column          /  show only the methods whose name\n"
        "      Up, Down  choose a method               holds the text typed (Enter)\n"
        "      Enter  its callers and callees          q  quit: detach, the original code\n"
        "                                                 restored, the process runs on\n"
        "\n"
        "options:\n"
        "      --batch N          print N refreshes as text, then end (for scripts; no\n"
        "                         terminal needed)\n"
        "      --max-behind SIZE  stop when more of the trace than SIZE is not read yet\n"
        "                         (the program calls faster than top reads; 1M-1T,\n"
        "                         default 1G)\n"
        "  -F GLOB, --when ...    and the other options of record (see `clrtrace record\n"
        "                         --help`), given to the record it runs\n"
        "  -h, --help             show this help\n"
        "\n"
        "Without a terminal, --batch is required. Exit status: 0; 1 when the process\n"
        "cannot be traced (record's line says why); 2 for a usage error.\n");
}

/* ------------------------------------------------------------ the counts */

/* A function's counts of an interval. */
typedef struct counts {
    uint64_t calls, exc, self_ns;
    ct_hist hist;
} counts;

/* A function's counts: of the interval going on, of the last one (shown),
 * and its callers and callees since the start. */
typedef struct method_stat {
    const ct_function *fn;
    counts now, shown;
    ct_table callers, callees; /* other key + 1 -> cli_edge (cli.h) */
} method_stat;

/* A second of the trace's clock (its time since the start / 1 s). */
#define TOP_SECOND_NS 1000000000ull

typedef struct top {
    ct_table stats;           /* function key -> its method_stat */
    uint64_t second;          /* the second counted now (the latest one a call
                                 ended in); the one before is shown */
    int shown_any;            /* a second was completed */
    uint64_t budget_steps;    /* functions the budget stepped down (latest BUDGET) */
    ct_table budget;          /* key -> its step + 1 */
    uint64_t dropped;
    int oom;
} top;

static method_stat *stat_of(top *tp, const ct_function *fn)
{
    method_stat *s = ct_table_get(&tp->stats, fn->key);
    if (s)
        return s;
    if (!(s = calloc(1, sizeof *s)) || ct_table_put(&tp->stats, fn->key, s) != 0) {
        free(s);
        tp->oom = 1;
        return NULL;
    }
    s->fn = fn;
    return s;
}

/* The interval of the second counted ends: its counts are the ones shown
 * (or none, when the new second is not the next one), a new one begins. */
static void next_second(void *ctx, ct_key key, void *value)
{
    (void)key;
    const int *adjacent = ctx;
    method_stat *s = value;
    ct_hist_free(&s->shown.hist);
    if (*adjacent) {
        s->shown = s->now;
    } else {
        ct_hist_free(&s->now.hist);
        memset(&s->shown, 0, sizeof s->shown);
    }
    memset(&s->now, 0, sizeof s->now);
}

/* The trace's clock reached time t (ns since the start): the seconds
 * before its own are complete. */
static void clock_at(top *tp, uint64_t t)
{
    uint64_t sec = t / TOP_SECOND_NS;
    if (sec <= tp->second)
        return;
    int adjacent = sec == tp->second + 1;
    ct_table_each(&tp->stats, next_second, &adjacent);
    tp->second = sec;
    tp->shown_any = 1;
}

static int on_leave(void *ctx, cli_calls *w, cli_thread *t, uint64_t end, cli_call_end how,
                    const ct_rec *rec)
{
    (void)w, (void)rec;
    top *tp = ctx;
    const cli_frame *f = cli_top(t), *caller = cli_caller(t);
    if (how == CLI_END_UNFINISHED || !f->fn)
        return 0;
    method_stat *s = stat_of(tp, f->fn);
    if (!s)
        return -1;
    /* Counted in the second of the trace's clock it ended in (threads' events
     * come a little out of order: one a second late goes to the one shown). */
    clock_at(tp, end);
    counts *k = end / TOP_SECOND_NS == tp->second       ? &s->now
                : end / TOP_SECOND_NS + 1 == tp->second ? &s->shown
                                                        : NULL;
    uint64_t total = t->prog - f->prog;
    if (k) {
        k->calls++;
        k->exc += how == CLI_END_EXCEPTION;
        k->self_ns += total > f->children ? total - f->children : 0;
        if (ct_hist_add(&k->hist, total) != 0)
            tp->oom = 1;
    }
    if (cli_edge_add(&s->callers, caller ? caller->fn : NULL, 0) != 0)
        tp->oom = 1;
    method_stat *up = caller && caller->fn ? stat_of(tp, caller->fn) : NULL;
    if (up)
        if (cli_edge_add(&up->callees, f->fn, 0) != 0)
            tp->oom = 1;
    return tp->oom ? -1 : 0;
}

/* BUDGET records: how many functions the budget has stepped down now. */
static int on_other(void *ctx, cli_calls *w, const ct_rec *rec)
{
    (void)w;
    top *tp = ctx;
    if (rec->type == CT_REC_DROPPED)
        tp->dropped += rec->count;
    if (rec->type != CT_REC_BUDGET || !rec->key)
        return 0;
    uintptr_t was = (uintptr_t)ct_table_get(&tp->budget, rec->key);
    if (was && was - 1 > 0)
        tp->budget_steps--;
    if (rec->step > 0)
        tp->budget_steps++;
    if (ct_table_put(&tp->budget, rec->key, (void *)(uintptr_t)(rec->step + 1)) != 0)
        return -1;
    return 0;
}

/* -------------------------------------------------- the trace as it grows */

typedef struct tail {
    char path[4096];
    int fd;
    uint8_t *map;
    size_t mapped;
    ct_rarena arena;
    uint8_t *arena_mem;
    ct_reader rd;
    int open;                 /* the header was read */
    int ended;                /* the END record came */
    int damaged;
    /* The file's part read and no longer needed: from `freed` (a page
     * boundary past the header) to `done`, given back at the next read,
     * once the mapping that held its records is gone. `no_holes`: the
     * file system cannot punch holes. */
    size_t freed, done;
    int no_holes;
    /* The file's bytes not read yet when the last reading began; `more`:
     * that reading stopped at TOP_READ_MAX. */
    size_t unread;
    int more;
} tail;

/* Gives the file's blocks from tl->freed to tl->done (whole pages) back to
 * the file system; the file keeps its length, the writer writes on. */
static void tail_free_read(tail *tl)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), end = tl->done / page * page;
    if (tl->no_holes || end <= tl->freed)
        return;
    if (fallocate(tl->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)tl->freed,
                  (off_t)(end - tl->freed)) != 0) {
        tl->no_holes = 1; /* (EOPNOTSUPP: the file grows as record's does) */
        return;
    }
    tl->freed = end;
}

#define TOP_ARENA (4u << 20)

/* Maps the file as it is now and reads the records that came since, at
 * most TOP_READ_MAX bytes: each given to the walk. 0, or 1 when more than
 * max_behind bytes were not read yet (nothing read then), or -1. */
static int tail_read(tail *tl, cli_calls *w, uint64_t max_behind)
{
    if (tl->fd < 0) {
        /* (written to as well: a hole is punched through a writable
         * descriptor) */
        if ((tl->fd = open(tl->path, O_RDWR | O_CLOEXEC)) < 0 &&
            (tl->fd = open(tl->path, O_RDONLY | O_CLOEXEC)) >= 0)
            tl->no_holes = 1;
        if (tl->fd < 0)
            return 0; /* not there yet */
    }
    struct stat st;
    if (fstat(tl->fd, &st) != 0 || st.st_size <= 0)
        return 0;
    size_t size = (size_t)st.st_size;
    if (size == tl->mapped && !tl->more)
        return 0;
    tl->unread = tl->open && size > tl->done ? size - tl->done : 0;
    if (tl->unread > max_behind)
        return 1;
    uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, tl->fd, 0);
    if (map == MAP_FAILED)
        return -1;
    if (!tl->open) {
        if (ct_header_bytes(map, size) == 0 || size < ct_header_bytes(map, size) ||
            ct_reader_open(&tl->rd, map, size, &tl->arena) != CT_TRACE_OK) {
            munmap(map, size);
            return 0; /* the header is not whole yet */
        }
        tl->open = 1;
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        tl->freed = (ct_header_bytes(map, size) + page - 1) / page * page;
    } else {
        /* Read on from where the last reading stopped: a record cut at the
         * end of the file then is whole now, or later. */
        if (tl->rd.incomplete) {
            tl->rd.pos = tl->rd.cut_offset;
            tl->rd.incomplete = 0;
        }
        tl->rd.data = map;
        tl->rd.len = size;
    }
    /* (a record cut at the limit is read whole at the next refresh, as one
     * cut at the file's end) */
    tl->more = size - tl->done > TOP_READ_MAX;
    if (tl->more)
        tl->rd.len = tl->done + TOP_READ_MAX;
    if (tl->map)
        munmap(tl->map, tl->mapped);
    tl->map = map;
    tl->mapped = size;
    tail_free_read(tl);
    ct_rec rec;
    int st2;
    while ((st2 = ct_reader_next(&tl->rd, &rec)) == 1) {
        if (rec.type == CT_REC_END)
            tl->ended = 1;
        if (cli_calls_record(w, &rec) != 0)
            return -1;
        /* The plans of FUNCTION records are the symbol table's copies by
         * now: the arena's memory may be used again. */
        if (rec.type != CT_REC_FUNCTION && tl->arena.used > TOP_ARENA / 2)
            tl->arena.used = 0;
    }
    if (st2 < 0)
        tl->damaged = 1;
    if (!tl->rd.in_block && !tl->rd.in_zstd)
        tl->done = tl->rd.incomplete ? tl->rd.cut_offset : tl->rd.pos;
    return st2 < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ the table */

enum { SORT_CALLS, SORT_P50, SORT_P99, SORT_MAX, SORT_EXC, SORT_SELF, SORT_COUNT };
static const char *const k_sort_names[SORT_COUNT] = {"calls/s", "P50", "P99", "MAX", "exc/s",
                                                     "self%"};

/* A row of the table: a function's numbers of the last interval. */
typedef struct row {
    method_stat *s;
    double per_s, exc_s, self_pct;
    uint64_t p50, p99, max;
} row;

static int g_sort;

static int by_key(const void *a, const void *b)
{
    const row *x = a, *y = b;
    double kx, ky;
    switch (g_sort) {
    case SORT_P50: kx = (double)x->p50, ky = (double)y->p50; break;
    case SORT_P99: kx = (double)x->p99, ky = (double)y->p99; break;
    case SORT_MAX: kx = (double)x->max, ky = (double)y->max; break;
    case SORT_EXC: kx = x->exc_s, ky = y->exc_s; break;
    case SORT_SELF: kx = x->self_pct, ky = y->self_pct; break;
    default: kx = x->per_s, ky = y->per_s; break;
    }
    if (kx != ky)
        return kx < ky ? 1 : -1;
    return strcmp(x->s->fn->name, y->s->fn->name);
}

typedef struct collect_ctx {
    row *rows;
    size_t n;
    double secs;
    uint64_t self_all;
    const char *filter;
} collect_ctx;

static void sum_self(void *ctx, ct_key key, void *value)
{
    (void)key;
    ((collect_ctx *)ctx)->self_all += ((method_stat *)value)->shown.self_ns;
}

static void take_row(void *ctx, ct_key key, void *value)
{
    (void)key;
    collect_ctx *c = ctx;
    method_stat *s = value;
    const counts *k = &s->shown;
    if (!k->calls || (c->filter && c->filter[0] && !strstr(s->fn->name, c->filter)))
        return;
    row *r = &c->rows[c->n++];
    r->s = s;
    r->per_s = (double)k->calls / c->secs;
    r->exc_s = (double)k->exc / c->secs;
    r->self_pct = c->self_all ? 100.0 * (double)k->self_ns / (double)c->self_all : 0;
    r->p50 = ct_hist_quantile(&k->hist, 0.50);
    r->p99 = ct_hist_quantile(&k->hist, 0.99);
    r->max = k->hist.max;
}

/* The rows of the last interval (secs long), sorted; *n of them. */
static row *rows_of(top *tp, double secs, const char *filter, size_t *n, uint64_t *calls)
{
    collect_ctx c = {calloc(tp->stats.used ? tp->stats.used : 1, sizeof(row)), 0,
                     secs > 0 ? secs : 1, 0, filter};
    *n = 0;
    if (!c.rows)
        return NULL;
    ct_table_each(&tp->stats, sum_self, &c);
    ct_table_each(&tp->stats, take_row, &c);
    qsort(c.rows, c.n, sizeof *c.rows, by_key);
    *n = c.n;
    *calls = 0;
    for (size_t i = 0; i < c.n; i++)
        *calls += c.rows[i].s->shown.calls;
    return c.rows;
}

/* A row's text: "  CALLS/S  P50  P99  MAX  EXC/S  SELF%  FUNCTION". */
static void row_text(const row *r, char *out, size_t cap)
{
    char p50[32], p99[32], max[32];
    ct_format_duration(r->p50, p50, sizeof p50);
    ct_format_duration(r->p99, p99, sizeof p99);
    ct_format_duration(r->max, max, sizeof max);
    snprintf(out, cap, "%9.1f %10s %10s %10s %7.1f %6.1f  %s", r->per_s, p50, p99, max,
             r->exc_s, r->self_pct, r->s->fn->name);
}

#define TOP_HEADER "  CALLS/S        P50        P99        MAX   EXC/S  SELF%  FUNCTION"

/* ----------------------------------------------------------------- top */

typedef struct session {
    const char *who;
    pid_t child;
    char dir[64];
    tail tl;
    cli_calls *w;
    top tp;
    unsigned long pid;        /* -p's, or 0 */
    char filter[TOP_FILTER_MAX + 1];
    int batch;                /* --batch N: N refreshes */
    int values;               /* an option of record's reads values (reads_values) */
    uint64_t max_behind;      /* --max-behind */
} session;

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The status line's text. */
static void status_text(session *s, double secs, uint64_t calls, size_t shown, char *out,
                        size_t cap)
{
    char target[64];
    if (s->pid)
        snprintf(target, sizeof target, "pid %lu", s->pid);
    else
        snprintf(target, sizeof target, "a program");
    int n = snprintf(out, cap, "clrtrace top: %s, second %llu, %.0f calls/s, %zu %s, sort %s",
                     target, (unsigned long long)(s->tp.second ? s->tp.second - 1 : 0),
                     (double)calls / (secs > 0 ? secs : 1), shown,
                     shown == 1 ? "method" : "methods", k_sort_names[g_sort]);
    if (n > 0 && (size_t)n < cap && s->tp.budget_steps)
        n += snprintf(out + n, cap - (size_t)n, "; the budget stepped %llu %s down",
                      (unsigned long long)s->tp.budget_steps,
                      s->tp.budget_steps == 1 ? "method" : "methods");
    if (n > 0 && (size_t)n < cap && s->tp.dropped)
        n += snprintf(out + n, cap - (size_t)n, "; %llu events dropped",
                      (unsigned long long)s->tp.dropped);
    if (n > 0 && (size_t)n < cap && s->tl.unread > TOP_READ_MAX)
        snprintf(out + n, cap - (size_t)n, "; behind: %llu MiB of trace not read yet",
                 (unsigned long long)(s->tl.unread >> 20));
}

static void print_batch(session *s, int k, double secs)
{
    size_t n = 0;
    uint64_t calls = 0;
    row *rows = rows_of(&s->tp, secs, s->filter, &n, &calls);
    char line[1024];
    status_text(s, secs, calls, n, line, sizeof line);
    printf("%s# %d: %s\n%s\n", k > 1 ? "\n" : "", k, line, TOP_HEADER);
    for (size_t i = 0; rows && i < n; i++) {
        row_text(&rows[i], line, sizeof line);
        printf("%s\n", line);
    }
    fflush(stdout);
    free(rows);
}

/* The full screen: status, header, rows (sel: the row chosen); with
 * detail, the chosen function's callers and callees. */
static void draw(session *s, double secs, int *sel, int detail, int typing)
{
    size_t n = 0;
    uint64_t calls = 0;
    row *rows = rows_of(&s->tp, secs, s->filter, &n, &calls);
    int h = LINES, wd = COLS;
    char line[1024];
    erase();
    status_text(s, secs, calls, n, line, sizeof line);
    mvaddnstr(0, 0, line, wd);
    if (typing) {
        snprintf(line, sizeof line, "filter: %s_", s->filter);
        mvaddnstr(1, 0, line, wd);
    } else if (s->filter[0]) {
        snprintf(line, sizeof line, "filter: %s  (/ to change)", s->filter);
        mvaddnstr(1, 0, line, wd);
    }
    if (*sel >= (int)n)
        *sel = n ? (int)n - 1 : 0;
    if (detail && rows && n) {
        method_stat *st = rows[*sel].s;
        snprintf(line, sizeof line, "%s: callers and callees since the start (Enter: back)",
                 st->fn->name);
        attron(A_BOLD);
        mvaddnstr(2, 0, line, wd);
        attroff(A_BOLD);
        int y = 3;
        for (int pass = 0; pass < 2; pass++) {
            size_t ne = 0;
            cli_edge **e = cli_edges_sorted(pass ? &st->callees : &st->callers,
                                            CLI_EDGES_BY_CALLS, &ne);
            mvaddnstr(y++, 0, pass ? "  CALLS  CALLEES" : "  CALLS  CALLERS", wd);
            for (size_t i = 0; e && i < ne && i < TOP_EDGES_SHOWN && y < h; i++) {
                snprintf(line, sizeof line, "%7llu  %s", (unsigned long long)e[i]->calls,
                         e[i]->fn ? e[i]->fn->name : "<root>");
                mvaddnstr(y++, 0, line, wd);
            }
            free(e);
            y++;
        }
    } else {
        attron(A_BOLD);
        mvaddnstr(2, 0, TOP_HEADER, wd);
        attroff(A_BOLD);
        for (size_t i = 0; rows && i < n && (int)i + 3 < h; i++) {
            row_text(&rows[i], line, sizeof line);
            if ((int)i == *sel)
                attron(A_REVERSE);
            mvaddnstr((int)i + 3, 0, line, wd);
            if ((int)i == *sel)
                attroff(A_REVERSE);
        }
    }
    refresh();
    free(rows);
}

/* 1 for an option of record's that reads or shapes argument values
 * (--when, --at, --inject, -A, -R, --strings and the other value options),
 * or chooses whether they are read (--no-args, --null): with none of them,
 * top's record reads none (--no-args), which the table does not show: a
 * call costs the program less and the trace about an eighth of the bytes
 * (6 against 49 a call of `int Count(int)`). */
static int reads_values(const char *opt)
{
    int id = ct_setting_by_option(opt);
    if (id < 0)
        return 0;
    return ct_settings[id].group == CT_GROUP_VALUES || id == CT_SET_WHEN || id == CT_SET_AT ||
           id == CT_SET_INJECT || id == CT_SET_NO_ARGS || id == CT_SET_NULL;
}

/* Starts `clrtrace record --no-compress [--no-args] -o DIR ARGS...` (its
 * output to DIR/record.log): 0, or -1. */
static int start_record(session *s, int argc, char **argv)
{
    char **av = calloc((size_t)argc + 8, sizeof *av), log[128];
    if (!av)
        return -1;
    int k = 0;
    av[k++] = "clrtrace";
    av[k++] = "record";
    av[k++] = "--no-compress";
    if (!s->values)
        av[k++] = "--no-args";
    av[k++] = "-o";
    av[k++] = s->dir;
    for (int i = 0; i < argc; i++)
        av[k++] = argv[i];
    av[k] = NULL;
    snprintf(log, sizeof log, "%s/record.log", s->dir);
    fflush(NULL);
    pid_t p = fork();
    if (p < 0) {
        free(av);
        return -1;
    }
    if (p == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (in >= 0)
            dup2(in, 0);
        /* (its own process group: the terminal's Ctrl-C is top's to pass on) */
        setpgid(0, 0);
        /* Ending top ends its record with SIGINT, which record passes on to
         * a program it started: neither may keep it ignored (as a script's
         * background command, top inherited SIGINT ignored, and a program
         * started so ran on after top ended). */
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execv("/proc/self/exe", av);
        _exit(127);
    }
    free(av);
    s->child = p;
    return 0;
}

/* The record child's log, to stderr (its lines say why it ended). */
static void show_log(session *s)
{
    char path[128], buf[4096];
    snprintf(path, sizeof path, "%s/record.log", s->dir);
    FILE *f = fopen(path, "r");
    while (f && fgets(buf, sizeof buf, f))
        if (!strstr(buf, "chosen methods had 0 calls"))
            fputs(buf, stderr);
    if (f)
        fclose(f);
}

static void remove_dir(session *s)
{
    static const char *const files[] = {"trace.clrt", "record.log", "uncalled-methods.txt",
                                        "index.txt"};
    char path[128];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", s->dir, files[i]);
        unlink(path);
    }
    rmdir(s->dir);
}

static void free_stat(void *ctx, ct_key key, void *value)
{
    (void)ctx, (void)key;
    method_stat *st = value;
    cli_edges_free(&st->callers);
    cli_edges_free(&st->callees);
    ct_hist_free(&st->now.hist);
    ct_hist_free(&st->shown.hist);
    free(st);
}

int cmd_top(int argc, char **argv)
{
    session s;
    memset(&s, 0, sizeof s);
    s.who = "top";
    s.tl.fd = -1;
    s.max_behind = TOP_MAX_BEHIND;
    /* top's own options; the others go to record. */
    const unsigned char *inline_val = NULL;
    if (cli_args_read("top", &argc, &argv, &inline_val) != 0)
        return 2;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0, has_target = 0;
    if (!rest)
        return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(rest);
            return 0;
        }
        if (!strcmp(a, "--max-behind")) {
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;
            if (!v || ct_parse_size(v, TOP_MAX_MAX_BEHIND, &s.max_behind) != 0 ||
                s.max_behind < TOP_MIN_MAX_BEHIND) {
                fprintf(stderr, "clrtrace top: --max-behind takes a size from 1M to 1T (a number "
                        "and K, M, G or T), not '%s'\n", v ? v : "");
                free(rest);
                return 2;
            }
            i++;
            continue;
        }
        if (!strcmp(a, "--batch")) {
            uint64_t n = 0;
            if (cli_number("top", a, i + 1 < argc ? argv[i + 1] : NULL, 1, TOP_MAX_BATCH,
                           "a number of refreshes", &n) != 0) {
                free(rest);
                return 2;
            }
            s.batch = (int)n;
            i++;
            continue;
        }
        uint64_t pid = 0; /* a bad one: record, which takes it too, says so */
        if (!strcmp(a, "-p") && i + 1 < argc &&
            ct_parse_whole(argv[i + 1], 1, CLI_PID_MAX, &pid) == 0)
            s.pid = (unsigned long)pid;
        if (!strcmp(a, "-p") || !strcmp(a, "--"))
            has_target = 1;
        if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--text")) {
            fprintf(stderr, "clrtrace top: %s is record's: top keeps its own trace\n", a);
            free(rest);
            return 2;
        }
        if (reads_values(a))
            s.values = 1;
        rest[nrest++] = argv[i];
        /* An option of record's given --name=VALUE: record takes it as
         * --name VALUE, when its option takes one. */
        if (i + 1 < argc && inline_val[i + 1]) {
            if (!cli_trace_takes_value(a)) {
                cli_no_value("top", a);
                free(rest);
                return 2;
            }
            rest[nrest++] = argv[++i];
            continue;
        }
        if (!strcmp(a, "--")) {
            for (i++; i < argc; i++)
                rest[nrest++] = argv[i];
        }
    }
    if (!has_target) {
        fprintf(stderr, "clrtrace top: give -p PID or -- PROGRAM (try --help)\n");
        free(rest);
        return 2;
    }
    int screen = !s.batch;
    if (screen && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "clrtrace top: no terminal: give --batch N (N refreshes as text)\n");
        free(rest);
        return 2;
    }
    snprintf(s.dir, sizeof s.dir, "%s", "/tmp/clrtrace-top.XXXXXX");
    if (!mkdtemp(s.dir)) {
        fprintf(stderr, "clrtrace top: cannot make a folder in /tmp: %s\n", strerror(errno));
        free(rest);
        return 1;
    }
    snprintf(s.tl.path, sizeof s.tl.path, "%s/trace.clrt", s.dir);
    s.tl.arena_mem = malloc(TOP_ARENA);
    s.tl.arena = (ct_rarena){s.tl.arena_mem, TOP_ARENA, 0};
    cli_calls_ops ops = {.leave = on_leave, .other = on_other};
    s.w = s.tl.arena_mem ? cli_calls_new(&ops, &s.tp) : NULL;
    if (!s.w || start_record(&s, nrest, rest) != 0) {
        fprintf(stderr, "clrtrace top: out of memory\n");
        free(rest);
        remove_dir(&s);
        return 1;
    }
    free(rest);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (screen) {
        initscr();
        cbreak();
        noecho();
        keypad(stdscr, TRUE);
        curs_set(0);
    }
    int rc = 0, behind = 0, refreshes = 0, sel = 0, detail = 0, typing = 0, child_done = 0, status = 0;
    uint64_t t0 = now_ms(), last = t0;
    while (!g_stop) {
        /* Keys, until the next refresh. */
        uint64_t due = last + TOP_INTERVAL_MS, now;
        int redraw;
        while (!g_stop && (now = now_ms()) < due) {
            struct pollfd pf = {screen ? STDIN_FILENO : -1, POLLIN, 0};
            if (poll(&pf, 1, (int)(due - now)) <= 0 || !screen)
                continue;
            int ch = getch();
            if (typing) {
                size_t len = strlen(s.filter);
                if (ch == '\n' || ch == KEY_ENTER || ch == 27)
                    typing = 0;
                else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len)
                    s.filter[len - 1] = '\0';
                else if (ch >= 32 && ch < 127 && len < TOP_FILTER_MAX)
                    s.filter[len] = (char)ch, s.filter[len + 1] = '\0';
            } else if (ch == 'q') {
                g_stop = 1;
            } else if (ch == 's') {
                g_sort = (g_sort + 1) % SORT_COUNT;
            } else if (ch == '/') {
                typing = 1;
                s.filter[0] = '\0';
            } else if (ch == KEY_UP && sel > 0) {
                sel--;
            } else if (ch == KEY_DOWN) {
                sel++;
            } else if (ch == '\n' || ch == KEY_ENTER) {
                detail = !detail;
            } else if (ch == KEY_RESIZE) {
                /* (ncurses updated LINES and COLS) */
            }
            redraw = 1;
            if (redraw && !g_stop && s.tp.shown_any)
                draw(&s, 1.0, &sel, detail, typing);
        }
        if (g_stop)
            break;
        last = now = now_ms();
        if (!child_done && waitpid(s.child, &status, WNOHANG) == s.child)
            child_done = 1;
        int got;
        do
            got = tail_read(&s.tl, s.w, s.max_behind);
        while (got == 0 && s.tl.more && now_ms() - now < TOP_READ_MS);
        if (got != 0) {
            behind = got == 1;
            rc = 1;
            break;
        }
        if (!s.tl.open && now - t0 > TOP_START_MS && !child_done) {
            g_stop = 1;
            rc = 1;
            break;
        }
        /* (the trace's clock went on: its latest event, or its end; at the
         * end, the second going on is the last one shown) */
        int last_one = child_done || s.tl.ended;
        clock_at(&s.tp, last_one ? (s.tp.second + 1) * TOP_SECOND_NS : s.w->last_time);
        if (s.tl.open && s.tp.shown_any) {
            refreshes++;
            if (screen)
                draw(&s, 1.0, &sel, detail, typing);
            else
                print_batch(&s, refreshes, 1.0);
        }
        if (child_done || s.tl.ended || (s.batch && refreshes >= s.batch))
            break;
    }
    if (screen)
        endwin();
    if (behind)
        fprintf(stderr, "clrtrace top: stopped: %llu MiB of the trace not read yet, more than "
                "--max-behind (%llu MiB): the program calls faster than top reads; narrow -F, "
                "or keep the budget on (--max-overhead)\n",
                (unsigned long long)(s.tl.unread >> 20),
                (unsigned long long)(s.max_behind >> 20));
    /* End the record child as Ctrl-C ends record: the session ends, the
     * process's code restored. */
    if (!child_done) {
        kill(s.child, SIGINT);
        while (waitpid(s.child, &status, 0) < 0 && errno == EINTR)
            ;
    }
    if (!s.tl.open || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !refreshes)) {
        show_log(&s);
        rc = 1;
    }
    ct_table_each(&s.tp.stats, free_stat, NULL);
    ct_table_free(&s.tp.stats);
    ct_table_free(&s.tp.budget);
    cli_calls_free(s.w);
    if (s.tl.open)
        ct_reader_close(&s.tl.rd);
    if (s.tl.map)
        munmap(s.tl.map, s.tl.mapped);
    if (s.tl.fd >= 0)
        close(s.tl.fd);
    free(s.tl.arena_mem);
    remove_dir(&s);
    return rc;
}
