/* Reading a binary trace for replay, report and dump: the file is mapped
 * whole and walked with the bounds-checked reader (src/format/event_read.c). */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/launch.h"
#include "format/words.h"
#include "format/settings.h"
#include "base/table.h"
#include "input.h"

/* Arena for one FUNCTION record's decoded plans (reset per record): enough
 * for the largest record the format allows. */
#define TRACE_ARENA_BYTES (2u * CT_MAX_RECORD + (1u << 20))

/* The header of the trace at path, read alone: 0 and its fields in *p, or
 * -1 when it is not a readable trace. */
static int peek_header(const char *path, cli_proc *p)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    uint8_t prefix[CT_TRACE_PREFIX_BYTES];
    size_t want = 0;
    uint8_t *buf = NULL;
    if (pread(fd, prefix, sizeof prefix, 0) == (ssize_t)sizeof prefix &&
        (want = ct_header_bytes(prefix, sizeof prefix)) && (buf = malloc(want)) &&
        pread(fd, buf, want, 0) != (ssize_t)want)
        want = 0;
    close(fd);
    ct_reader r;
    uint8_t arena[64];
    ct_rarena a = {arena, sizeof arena, 0};
    int rc = -1;
    if (want && buf && ct_reader_open(&r, buf, want, &a) == CT_TRACE_OK) {
        p->pid = r.header.pid;
        p->ppid = r.header.ppid;
        p->start = r.header.start_unix_ns;
        uint32_t n = r.header.cmdline_len;
        if (n >= sizeof p->cmd)
            n = sizeof p->cmd - 1;
        memcpy(p->cmd, r.header.cmdline, n);
        p->cmd[n] = 0;
        rc = 0;
    }
    free(buf);
    return rc;
}

static int proc_before(const cli_proc *a, const cli_proc *b)
{
    if (a->root != b->root)
        return a->root;
    if (a->start != b->start)
        return a->start < b->start;
    return a->pid < b->pid;
}

cli_proc *cli_trace_list(const char *dir, int *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    cli_proc *out = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < CLI_MAX_PROCESSES) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "trace.", 6) != 0 || len < 10 ||
            strcmp(e->d_name + len - 5, ".clrt") != 0)
            continue;
        if (n == cap) {
            int ncap = cap ? 2 * cap : 16;
            cli_proc *m = realloc(out, (size_t)ncap * sizeof *m);
            if (!m)
                break;
            out = m;
            cap = ncap;
        }
        cli_proc *p = &out[n];
        memset(p, 0, sizeof *p);
        snprintf(p->path, sizeof p->path, "%s/%s", dir, e->d_name);
        if (peek_header(p->path, p) != 0)
            continue;
        p->root = !strcmp(e->d_name, CLRTRACE_TRACE_FILE);
        n++;
    }
    closedir(d);
    /* The root first, then by start time (insertion sort: few processes). */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && proc_before(&out[j], &out[j - 1]); j--) {
            cli_proc t = out[j - 1];
            out[j - 1] = out[j];
            out[j] = t;
        }
    *count = n;
    if (!out)
        out = calloc(1, sizeof *out); /* an empty list, not a failure */
    return out;
}

int cli_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cli_trace_open(cli_trace *t, const char *who, const char *arg)
{
    return cli_trace_open_pid(t, who, arg, 0);
}

/* --max-size's segments of the trace at path: PATH.K-1 (the oldest kept)
 * to PATH.1, then PATH (docs/trace-format.md, "Segments"). When PATH.1
 * exists: the files read and joined into one trace in *data (malloc'ed): the
 * oldest whole, the others without their header (each file's records start
 * at a multiple of 8 after its header, as in one file). 0 with *data NULL
 * when there are none; 0 with the joined bytes; -1 after one line. */
static int join_segments(const char *who, const char *path, uint8_t **data, size_t *len,
                         unsigned *count, uint64_t *on_disk)
{
    *data = NULL;
    char name[CLI_TRACE_PATH_MAX + 16];
    struct stat st;
    snprintf(name, sizeof name, "%s.1", path);
    if (stat(name, &st) != 0)
        return 0;
    unsigned oldest = 1;
    for (unsigned i = 2; i < CT_MAX_SIZE_SEGMENTS; i++) {
        snprintf(name, sizeof name, "%s.%u", path, i);
        if (stat(name, &st) != 0)
            break;
        oldest = i;
    }
    size_t cap = 0, used = 0;
    uint8_t *buf = NULL;
    *count = 0;
    *on_disk = 0;
    for (unsigned i = oldest + 1; i-- > 0;) {
        if (i)
            snprintf(name, sizeof name, "%s.%u", path, i);
        else
            snprintf(name, sizeof name, "%s", path);
        int fd = open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) != 0) {
            fprintf(stderr, "clrtrace %s: cannot read %s: %s\n", who, name, strerror(errno));
            if (fd >= 0)
                close(fd);
            free(buf);
            return -1;
        }
        size_t n = (size_t)st.st_size, skip = 0;
        uint8_t prefix[CT_TRACE_PREFIX_BYTES];
        if (used && (pread(fd, prefix, sizeof prefix, 0) != (ssize_t)sizeof prefix ||
                     !(skip = ct_header_bytes(prefix, sizeof prefix)) || skip > n)) {
            fprintf(stderr, "clrtrace %s: %s: not a segment of this trace (no header)\n", who,
                    name);
            close(fd);
            free(buf);
            return -1;
        }
        if (used + (n - skip) > cap) {
            cap = used + (n - skip);
            uint8_t *m = realloc(buf, cap ? cap : 1);
            if (!m) {
                fprintf(stderr, "clrtrace %s: out of memory joining %s's segments\n", who, path);
                close(fd);
                free(buf);
                return -1;
            }
            buf = m;
        }
        ssize_t got = pread(fd, buf + used, n - skip, (off_t)skip);
        close(fd);
        if (got != (ssize_t)(n - skip)) {
            fprintf(stderr, "clrtrace %s: cannot read %s\n", who, name);
            free(buf);
            return -1;
        }
        used += n - skip;
        *on_disk += n;
        ++*count;
    }
    *data = buf;
    *len = used;
    return 0;
}

int cli_trace_open_pid(cli_trace *t, const char *who, const char *arg, long want)
{
    memset(t, 0, sizeof *t);
    struct stat st;
    if (cli_is_dir(arg)) {
        /* One trace per process: the root's (or the first to start when the
         * root was not a .NET program), or --pid's. */
        int n;
        cli_proc *procs = cli_trace_list(arg, &n);
        int pick = -1;
        for (int i = 0; i < n && pick < 0; i++)
            if (want <= 0 ? 1 : procs[i].pid == (uint32_t)want)
                pick = i;
        if (want > 0 && pick < 0) {
            fprintf(stderr, "clrtrace %s: %s holds no trace of pid %ld\n", who, arg, want);
            free(procs);
            return -1;
        }
        if (pick >= 0)
            snprintf(t->path, sizeof t->path, "%s", procs[pick].path);
        else
            snprintf(t->path, sizeof t->path, "%s/%s", arg, CLRTRACE_TRACE_FILE);
        free(procs);
    } else {
        snprintf(t->path, sizeof t->path, "%s", arg);
    }
    uint8_t *joined = NULL;
    size_t joined_len = 0;
    if (join_segments(who, t->path, &joined, &joined_len, &t->segments, &t->segments_bytes) != 0)
        return -1;
    int fd = joined ? -1 : open(t->path, O_RDONLY | O_CLOEXEC);
    if (joined) {
        t->data = joined;
        t->len = joined_len;
        t->joined = 1;
    } else if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "clrtrace %s: cannot read %s: %s\n", who, t->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    } else {
        t->len = (size_t)st.st_size;
    }
    if (!joined && t->len) {
        void *m = mmap(NULL, t->len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "clrtrace %s: cannot read %s: %s\n", who, t->path, strerror(errno));
            close(fd);
            return -1;
        }
        t->data = m;
    }
    if (fd >= 0)
        close(fd);
    t->arena_mem = malloc(TRACE_ARENA_BYTES);
    if (!t->arena_mem) {
        fprintf(stderr, "clrtrace %s: out of memory\n", who);
        cli_trace_close(t);
        return -1;
    }
    t->arena = (ct_rarena){t->arena_mem, TRACE_ARENA_BYTES, 0};
    static const uint8_t empty[1];
    if (ct_reader_open(&t->reader, t->data ? t->data : empty, t->len, &t->arena) != CT_TRACE_OK) {
        char where[96];
        fprintf(stderr, "clrtrace %s: %s: %s at %s\n", who, t->path,
                ct_trace_strerror(t->reader.error),
                cli_trace_where(&t->reader, where, sizeof where));
        cli_trace_close(t);
        return -1;
    }
    return 0;
}

typedef struct each_ctx {
    int (*fn)(void *ctx, const ct_rec *rec);
    void *ctx;
    int failed;               /* 1: out of memory; CLI_EACH_STOP: fn stopped */
    uint64_t offset;
} each_ctx;

static void each_failed(each_ctx *e, uint64_t offset)
{
    if (!e->failed) {
        e->failed = 1;
        e->offset = offset;
    }
}

/* Every record, straight from the reader or passed on by the filter. */
static void each_record(void *c, const ct_rec *rec, const uint8_t *raw, size_t raw_len)
{
    (void)raw;
    (void)raw_len;
    each_ctx *e = c;
    int rc = e->failed ? 0 : e->fn(e->ctx, rec);
    if (rc == CLI_EACH_STOP)
        e->failed = CLI_EACH_STOP;
    else if (rc)
        each_failed(e, rec->offset);
}

/* ------------------------------------------------------ the selection */

/* A thread's calls as the selection sees them: those open that it passes
 * (their ends pass too) and those open that it left out. */
typedef struct sel_thread {
    uint64_t passed, skipped;
    /* --trace-id: the thread's trace id now, and for each call open
     * whether it passed (a bit each, innermost last). */
    uint8_t trace[CT_TRACE_ID_BYTES];
    uint8_t *open;
    uint64_t depth, cap;
} sel_thread;

typedef struct sel_state {
    const cli_selection *sel;
    int names, times;
    ct_table fns;      /* key -> 1 selected, 2 left out (by name) */
    ct_table threads;  /* tid + 1 -> sel_thread */
} sel_state;

static int tid_selected(const cli_selection *s, uint64_t tid)
{
    if (!s->ntids)
        return 1;
    for (uint32_t i = 0; i < s->ntids; i++)
        if (s->tids[i] == tid)
            return 1;
    return 0;
}

static sel_thread *sel_thread_of(sel_state *ss, uint64_t tid)
{
    sel_thread *th = ct_table_get(&ss->threads, tid + 1);
    if (!th) {
        th = calloc(1, sizeof *th);
        if (!th || ct_table_put(&ss->threads, tid + 1, th) != 0) {
            free(th);
            return NULL;
        }
    }
    return th;
}

/* --trace-id: an event of a call entered under the trace id (an ENTER when
 * its thread's trace id is it now; an end when its call's ENTER passed):
 * -1 out of memory, 0 no, 1 yes. */
static int trace_selected(sel_state *ss, const ct_rec *rec)
{
    sel_thread *th = sel_thread_of(ss, rec->tid);
    if (!th)
        return -1;
    if (rec->type == CT_REC_ACTIVITY) {
        memcpy(th->trace, rec->trace_id, CT_TRACE_ID_BYTES);
        return 1;
    }
    if (rec->type == CT_REC_ENTER) {
        if (th->depth == th->cap) {
            uint64_t cap = th->cap ? 2 * th->cap : 64;
            uint8_t *more = realloc(th->open, cap);
            if (!more)
                return -1;
            th->open = more;
            th->cap = cap;
        }
        int in = !memcmp(th->trace, ss->sel->trace_id, CT_TRACE_ID_BYTES);
        th->open[th->depth++] = (uint8_t)in;
        return in;
    }
    /* An end closes the innermost open call (the walk pairs them the same
     * way when nothing was lost). */
    return th->depth ? th->open[--th->depth] : 0;
}

/* Whether rec passes the selection: -1 out of memory, 0 no, 1 yes. */
static int selected(sel_state *ss, const ct_rec *rec)
{
    const cli_selection *s = ss->sel;
    if (rec->type == CT_REC_ACTIVITY) {
        if (s->by_trace && trace_selected(ss, rec) < 0)
            return -1;
        return tid_selected(s, rec->tid);
    }
    if (rec->type == CT_REC_FUNCTION) {
        if (ss->names) {
            char name[1024];
            snprintf(name, sizeof name, "%.*s", (int)rec->name_len, rec->name);
            ct_name_rules rules = {s->include, s->exclude, NULL, NULL};
            int keep = ct_name_rules_pass(&rules, name, NULL, 1);
            if (ct_table_put(&ss->fns, rec->key, (void *)(uintptr_t)(keep ? 1 : 2)) != 0)
                return -1;
        }
        return 1;
    }
    if (rec->type == CT_REC_DROPPED || rec->type == CT_REC_HELD || rec->type == CT_REC_THREAD ||
        rec->type == CT_REC_LINE || rec->type == CT_REC_LOCALS || rec->type == CT_REC_INJECT)
        return tid_selected(s, rec->tid);
    if (!ct_rec_is_event(rec->type))
        return 1;
    if (!tid_selected(s, rec->tid))
        return 0;
    if (ss->names && (uintptr_t)ct_table_get(&ss->fns, rec->key) == 2)
        return 0;
    if (s->by_trace) {
        int in = trace_selected(ss, rec);
        if (in <= 0)
            return in;
    }
    if (!ss->times)
        return 1;
    sel_thread *th = sel_thread_of(ss, rec->tid);
    if (!th)
        return -1;
    if (rec->type == CT_REC_ENTER) {
        int in = rec->time_ns >= s->since && (!s->until || rec->time_ns < s->until);
        if (in)
            th->passed++;
        else
            th->skipped++;
        return in;
    }
    /* An end closes the innermost open call: a passed one when calls were
     * passed since the last skipped ones (calls nest). */
    if (th->passed) {
        th->passed--;
        return 1;
    }
    if (th->skipped)
        th->skipped--;
    return 0;
}

static void sel_free(sel_state *ss)
{
    for (size_t i = 0; i < ss->threads.cap; i++) {
        sel_thread *th = ss->threads.slots[i].value;
        if (th)
            free(th->open);
        free(th);
    }
    ct_table_free(&ss->threads);
    ct_table_free(&ss->fns);
}

int cli_trace_each(cli_trace *t, const char *who, int (*fn)(void *ctx, const ct_rec *rec),
                   void *ctx)
{
    ct_rec rec;
    int st = 0;
    each_ctx e = {fn, ctx, 0, 0};
    static const cli_reading everything;
    const cli_reading *reading = t->filter ? t->filter : &everything;
    const cli_selection *sel = &reading->sel;
    sel_state ss = {sel, sel->include[0] || sel->exclude[0], sel->since || sel->until,
                    {0}, {0}};
    int selecting = ss.names || ss.times || sel->ntids || sel->by_trace;
    ct_filter *filter = NULL;
    if (ct_filter_opts_active(&reading->tree.opts) &&
        !(filter = ct_filter_new(&reading->tree.opts, each_record, &e))) {
        fprintf(stderr, "clrtrace %s: out of memory\n", who);
        return 1;
    }
    while (!e.failed && (st = ct_reader_next(&t->reader, &rec)) == 1) {
        int pass = selecting ? selected(&ss, &rec) : 1;
        if (pass < 0)
            each_failed(&e, rec.offset);
        else if (pass && !filter)
            each_record(&e, &rec, NULL, 0);
        else if (pass && ct_filter_record(filter, &rec, NULL, 0) != 0)
            each_failed(&e, rec.offset);
        t->arena.used = 0; /* the renderer and the filter keep copies of what they need */
    }
    if (filter) {
        if (!e.failed)
            ct_filter_finish(filter); /* held-back events: fn may fail on them too */
        ct_filter_free(filter);
    }
    sel_free(&ss);
    if (e.failed == CLI_EACH_STOP)
        return 1;
    if (e.failed) {
        fprintf(stderr, "clrtrace %s: out of memory at offset %llu\n", who,
                (unsigned long long)e.offset);
        return 1;
    }
    if (st < 0) {
        fflush(stdout);
        char where[96];
        fprintf(stderr, "clrtrace %s: %s: %s at %s\n", who, t->path,
                ct_trace_strerror(t->reader.error),
                cli_trace_where(&t->reader, where, sizeof where));
        return 1;
    }
    if (t->reader.incomplete && !t->quiet_incomplete) {
        fflush(stdout);
        fprintf(stderr, "clrtrace %s: incomplete trace: %s ends at offset %llu (the program was "
                "killed or crashed?)\n", who, t->path, (unsigned long long)t->reader.cut_offset);
    }
    return 0;
}

const char *cli_trace_where(const ct_reader *r, char *buf, size_t cap)
{
    if (r->error_in_zstd)
        snprintf(buf, cap, "offset %llu (in the zstd block at file offset %llu)",
                 (unsigned long long)r->error_offset, (unsigned long long)r->error_zstd_at);
    else
        snprintf(buf, cap, "offset %llu", (unsigned long long)r->error_offset);
    return buf;
}

void cli_trace_close(cli_trace *t)
{
    ct_reader_close(&t->reader);
    if (t->data && t->joined)
        free(t->data);
    else if (t->data)
        munmap(t->data, t->len);
    free(t->arena_mem);
    t->data = NULL;
    t->arena_mem = NULL;
}
