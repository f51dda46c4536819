/* The process attached to, across namespaces (attach_target.h; docs/cli.md,
 * "Containers"). */
#define _GNU_SOURCE
#include "attach_target.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "format/attach.h"

/* Largest /proc/PID/status and /proc/PID/environ read. */
#define STATUS_MAX (16u * 1024)
#define ENVIRON_MAX (256u * 1024)
/* Longest /proc/PID/maps line looked at (a path is at most 4096 bytes). */
#define MAPS_LINE_MAX 4400
/* Most directory entries looked at in a TMPDIR, and most sockets of the
 * process's pid tried (a pid's sockets left by earlier processes, or
 * planted; the listener's pid decides). */
#define DIR_ENTRIES_MAX 100000
#define SOCKET_CANDIDATES_MAX 16
/* Largest profiler library copied into a process's file system. */
#define PROFILER_BYTES_MAX (256u * 1024 * 1024)
/* The placed copy: its folder (with the content's hash) and its name. */
#define PLACED_DIR_FORMAT "clrtrace-%016llx"
#define PLACED_NAME "libclrtrace.so"
/* The hash naming the copy: FNV-1a, 64 bits (a name, not a check: the
 * content is compared byte for byte before use). */
#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull
/* Size of the ELF header fields read (up to e_machine). */
#define ELF_HEAD_BYTES 20

/* Whether /proc/self/ns/KIND and /proc/PID/ns/KIND are one namespace: 1,
 * 0, or -1 (errno: no access). */
static int same_ns(unsigned pid, const char *kind)
{
    char a[64], b[64];
    struct stat sa, sb;
    snprintf(a, sizeof a, "/proc/self/ns/%s", kind);
    snprintf(b, sizeof b, "/proc/%u/ns/%s", pid, kind);
    if (stat(b, &sb) != 0)
        return -1;
    if (stat(a, &sa) != 0)
        return 1; /* no namespaces here: one of each */
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* What the process maps: the runtime, musl. 0, or -1 (errno). */
static int scan_maps(attach_target *t)
{
    char path[64], line[MAPS_LINE_MAX];
    snprintf(path, sizeof path, "/proc/%u/maps", t->pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n')
            line[n - 1] = '\0';
        const char *so = strstr(line, "/libcoreclr.so");
        if (so && !t->coreclr) {
            t->coreclr = 1;
            /* The path starts at the line's first '/' (after the fields). */
            const char *file = strchr(line, '/');
            size_t len = strlen(file);
            if (len >= sizeof t->coreclr_path || strstr(file, " (deleted)"))
                t->coreclr_path[0] = '\0';
            else
                memcpy(t->coreclr_path, file, len + 1);
        }
        if (ct_maps_line_is_musl(line))
            t->musl = 1;
    }
    fclose(f);
    return 0;
}

/* Opens dir (absolute, as the process sees it) inside root_fd, symbolic
 * links resolved as the process would (never out of its root): an O_PATH
 * descriptor, or -1 (errno). */
static int open_in_root(int root_fd, const char *dir)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, root_fd, dir, &how, sizeof how);
    if (fd >= 0 || errno != ENOSYS)
        return (int)fd;
    /* A kernel before 5.6: one component at a time, no link followed. */
    int cur = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
    char part[NAME_MAX + 1];
    for (const char *p = dir; cur >= 0 && *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (!n)
            break;
        if (n > NAME_MAX || (n == 2 && !strncmp(p, "..", 2))) {
            close(cur);
            errno = n > NAME_MAX ? ENAMETOOLONG : EXDEV;
            return -1;
        }
        memcpy(part, p, n);
        part[n] = '\0';
        int next = openat(cur, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(cur);
        errno = e;
        cur = next;
        p += n;
    }
    return cur;
}

int attach_target_open(const char *who, unsigned pid, attach_target *t)
{
    static char buf[ENVIRON_MAX];
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->tmp_fd = -1;
    if (ct_proc_read(pid, "status", buf, STATUS_MAX) <= 0 ||
        ct_proc_start_time(pid, &t->start) != 0) {
        fprintf(stderr, "clrtrace %s: no process with pid %u\n", who, pid);
        return 1;
    }
    if (ct_status_nspid(buf, &t->nspid) != 0)
        t->nspid = pid; /* a kernel without NSpid: one pid namespace */
    unsigned ids[4];
    if (ct_status_ids(buf, "Uid:", ids) == 0)
        t->uid = ids[1];
    if (ct_status_ids(buf, "Gid:", ids) == 0)
        t->gid = ids[1];
    int mnt = same_ns(pid, "mnt"), net = mnt < 0 ? -1 : same_ns(pid, "net");
    if (mnt < 0 || net < 0 || scan_maps(t) != 0) {
        int e = errno;
        if (e == ENOENT || e == ESRCH)
            fprintf(stderr, "clrtrace %s: no process with pid %u\n", who, pid);
        else
            fprintf(stderr, "clrtrace %s: no access to pid %u (/proc/%u: %s): attaching needs "
                    "ptrace rights over it (its own user, or root with CAP_SYS_PTRACE)\n", who,
                    pid, pid, strerror(e));
        return 1;
    }
    t->same_mnt = mnt;
    t->same_net = net;
    long n = ct_proc_read(pid, "environ", buf, sizeof buf);
    const char *tmp = n > 0 ? ct_environ_get(buf, (size_t)n, "TMPDIR") : NULL;
    static const char *const off[] = {"DOTNET_EnableDiagnostics", "DOTNET_EnableDiagnostics_IPC",
                                      "COMPlus_EnableDiagnostics"};
    for (size_t i = 0; n > 0 && i < sizeof off / sizeof off[0]; i++) {
        const char *v = ct_environ_get(buf, (size_t)n, off[i]);
        if (v && !strcmp(v, "0"))
            t->diag_off = 1;
    }
    if (!tmp || !*tmp)
        tmp = "/tmp";
    size_t len = strlen(tmp);
    while (len > 1 && tmp[len - 1] == '/')
        len--;
    if (len >= sizeof t->tmpdir) {
        snprintf(t->tmpdir, sizeof t->tmpdir, "%.*s...", 64, tmp);
        t->tmp_errno = ENAMETOOLONG;
        return 0;
    }
    memcpy(t->tmpdir, tmp, len);
    t->tmpdir[len] = '\0';
    if (t->same_mnt) {
        t->tmp_fd = open(t->tmpdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    } else {
        char root[64];
        snprintf(root, sizeof root, "/proc/%u/root", pid);
        int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        t->tmp_fd = rfd < 0 ? -1 : open_in_root(rfd, t->tmpdir);
        int e = errno;
        if (rfd >= 0)
            close(rfd);
        errno = e;
    }
    if (t->tmp_fd < 0)
        t->tmp_errno = errno;
    return 0;
}

void attach_target_close(attach_target *t)
{
    if (t->tmp_fd >= 0)
        close(t->tmp_fd);
    t->tmp_fd = -1;
}

/* Whether the listener behind connection fd is process pid (as we see it). */
static int peer_is(int fd, unsigned pid)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 && cr.pid == (pid_t)pid;
}

/* Connects to path (abstract: the name without its leading NUL): fd, or -1. */
static int connect_path(const char *path, int abstract, int type)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t n = strlen(path), off = abstract ? 1 : 0;
    if (n + off >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a.sun_path + off, path, n);
    int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + off + n + !abstract);
    if (connect(fd, (struct sockaddr *)&a, len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Connects to the socket name in the process's TMPDIR: fd, or -1. In the
 * same mount namespace by its path (as before containers were handled),
 * else through the directory's descriptor (no length limit, no path of the
 * host's followed). */
static int connect_in_tmp(const attach_target *t, const char *name, int type)
{
    char path[ATTACH_TMPDIR_MAX + NAME_MAX + 64];
    size_t len = strnlen(name, NAME_MAX + 1);
    if (len > NAME_MAX)
        return -1;
    int n = t->same_mnt ? snprintf(path, sizeof path, "%s/%.*s", t->tmpdir, (int)len, name) : -1;
    if (n < 0 || (size_t)n >= sizeof ((struct sockaddr_un *)0)->sun_path)
        snprintf(path, sizeof path, "/proc/self/fd/%d/%.*s", t->tmp_fd, (int)len, name);
    return connect_path(path, 0, type);
}

typedef struct candidate {
    char name[NAME_MAX + 1];
    int exact;
    long long mtime_ns;
} candidate;

static int newer_first(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->exact != y->exact)
        return y->exact - x->exact;
    return (x->mtime_ns < y->mtime_ns) - (x->mtime_ns > y->mtime_ns);
}

/* The process's socket PREFIX + "NSPID-KEY-socket" in its TMPDIR whose
 * listener is the process: a connection, or -1. The key (its start time)
 * read here may differ from the process's own (another time namespace):
 * the exact name first, then the others of its pid, newest first. */
static int find_socket(const attach_target *t, const char *prefix, int type)
{
    if (t->tmp_fd < 0)
        return -1;
    static candidate c[SOCKET_CANDIDATES_MAX];
    size_t nc = 0;
    int dfd = openat(t->tmp_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d && dfd >= 0)
        close(dfd);
    struct dirent *e;
    for (int seen = 0; d && seen < DIR_ENTRIES_MAX && nc < SOCKET_CANDIDATES_MAX &&
                       (e = readdir(d)); seen++) {
        unsigned long long key;
        struct stat st;
        if (ct_socket_name_key(e->d_name, prefix, t->nspid, &key) != 0 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        snprintf(c[nc].name, sizeof c[nc].name, "%s", e->d_name);
        c[nc].exact = key == t->start;
        c[nc].mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
        nc++;
    }
    if (d)
        closedir(d);
    if (!d) { /* a TMPDIR we may enter but not list: the exact name alone */
        int n = snprintf(c[0].name, sizeof c[0].name, "%s%u-%llu-socket", prefix, t->nspid,
                         t->start);
        nc = n > 0 && (size_t)n < sizeof c[0].name;
    }
    qsort(c, nc, sizeof c[0], newer_first);
    for (size_t i = 0; i < nc; i++) {
        int fd = connect_in_tmp(t, c[i].name, type);
        if (fd >= 0 && peer_is(fd, t->pid))
            return fd;
        if (fd >= 0)
            close(fd);
    }
    return -1;
}

int attach_target_control(const attach_target *t)
{
    char name[CT_ATTACH_SOCKET_MAX + 1];
    if (t->same_net && ct_attach_socket_name(t->nspid, t->start, name, sizeof name) >= 0) {
        int fd = connect_path(name, 1, SOCK_SEQPACKET);
        if (fd >= 0 && peer_is(fd, t->pid))
            return fd;
        if (fd >= 0)
            close(fd);
    }
    return find_socket(t, CT_CONTROL_SOCKET_PREFIX, SOCK_SEQPACKET);
}

/* The ELF machine (e_machine) of the file at path, or 0 when it cannot be
 * read or is not a 64-bit ELF file. */
static unsigned elf_machine(const char *path)
{
    unsigned char h[ELF_HEAD_BYTES];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, h, sizeof h, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0 || h[EI_CLASS] != ELFCLASS64)
        return 0;
    if (h[EI_DATA] == ELFDATA2MSB)
        return (unsigned)h[18] << 8 | (unsigned)h[19];
    return (unsigned)h[18] | (unsigned)h[19] << 8; /* e_machine, little-endian */
}

static const char *machine_name(unsigned machine)
{
    return machine == EM_X86_64 ? "x86-64" : machine == EM_AARCH64 ? "arm64" : "another";
}

/* The ELF machine of the process's runtime: its libcoreclr.so, read through
 * /proc/PID/root (under qemu-user the executable is the emulator, the
 * runtime is the guest's), else its executable; 0 when neither reads. */
static unsigned runtime_machine(const attach_target *t)
{
    char path[ATTACH_RUNTIME_PATH_MAX + 64];
    unsigned m = 0;
    if (t->coreclr_path[0]) {
        snprintf(path, sizeof path, "/proc/%u/root%s", t->pid, t->coreclr_path);
        m = elf_machine(path);
    }
    if (!m) {
        snprintf(path, sizeof path, "/proc/%u/exe", t->pid);
        m = elf_machine(path);
    }
    return m;
}

/* " (its TMPDIR as it sees it)" when the process is in another mount
 * namespace. */
static const char *as_it_sees(const attach_target *t)
{
    return t->same_mnt ? "" : ", as it sees it";
}

int attach_target_diagnostics(const char *who, const attach_target *t, const char *lib)
{
    unsigned pid = t->pid;
    if (!t->coreclr && t->tmp_fd < 0) {
        fprintf(stderr, "clrtrace %s: pid %u is not a .NET process (no .NET runtime and no "
                "diagnostics socket in %s)\n", who, pid, t->tmpdir);
        return -1;
    }
    if (t->coreclr && t->musl) {
        fprintf(stderr, "clrtrace %s: pid %u runs on musl's C library (an Alpine-style image): "
                "this clrtrace's profiler is built for glibc and cannot be loaded into it\n",
                who, pid);
        return -1;
    }
    unsigned runtime = t->coreclr ? runtime_machine(t) : 0, ours = elf_machine(lib);
    if (runtime && ours && runtime != ours) {
        fprintf(stderr, "clrtrace %s: pid %u runs a .NET runtime for %s (ELF machine %u; "
                "under an emulator such as qemu-user, say), the profiler %s is built for %s "
                "(machine %u): give --profiler PATH of a libclrtrace.so built for %s "
                "(docs/arm64.md)\n", who, pid, machine_name(runtime), runtime, lib,
                machine_name(ours), ours, machine_name(runtime));
        return -1;
    }
    if (t->tmp_fd < 0) {
        fprintf(stderr, "clrtrace %s: cannot reach pid %u's TMPDIR %s%s (through /proc/%u/root): "
                "%s\n", who, pid, t->tmpdir, as_it_sees(t), pid, strerror(t->tmp_errno));
        return -1;
    }
    int fd = find_socket(t, CT_DIAG_SOCKET_PREFIX, SOCK_STREAM);
    if (fd >= 0)
        return fd;
    if (!t->coreclr)
        fprintf(stderr, "clrtrace %s: pid %u is not a .NET process (no .NET runtime and no "
                "diagnostics socket in %s%s)\n", who, pid, t->tmpdir, as_it_sees(t));
    else if (t->diag_off)
        fprintf(stderr, "clrtrace %s: pid %u runs .NET with its diagnostics turned off "
                "(DOTNET_EnableDiagnostics=0 in its environment): it cannot be attached to\n",
                who, pid);
    else
        fprintf(stderr, "clrtrace %s: pid %u runs .NET, but no diagnostics socket of it (%s%u-*-"
                "socket) answers in its TMPDIR %s%s: deleted, or diagnostics turned off by "
                "other means than its environment\n", who, pid, CT_DIAG_SOCKET_PREFIX, t->nspid,
                t->tmpdir, as_it_sees(t));
    return -1;
}

/* ------------------------------------------------ placing the profiler */

/* Reads the file at path whole: its bytes (malloc'ed), or NULL (errno). */
static unsigned char *read_whole(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (unsigned long long)st.st_size > PROFILER_BYTES_MAX) {
        int e = fd < 0 ? errno : EINVAL;
        if (fd >= 0)
            close(fd);
        errno = e;
        return NULL;
    }
    unsigned char *p = malloc((size_t)st.st_size);
    size_t n = 0;
    ssize_t k = 0;
    while (p && n < (size_t)st.st_size && (k = read(fd, p + n, (size_t)st.st_size - n)) > 0)
        n += (size_t)k;
    close(fd);
    if (!p || n != (size_t)st.st_size) {
        free(p);
        errno = p ? EIO : ENOMEM;
        return NULL;
    }
    *size = n;
    return p;
}

/* Whether fd is a regular file of the process's user, readable by nobody
 * else and holding exactly bytes[0..size). */
static int holds(int fd, const attach_target *t, const unsigned char *bytes, size_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != t->uid ||
        (st.st_mode & 077) || (unsigned long long)st.st_size != size)
        return 0;
    unsigned char chunk[64 * 1024];
    for (size_t at = 0; at < size;) {
        ssize_t k = pread(fd, chunk, sizeof chunk, (off_t)at);
        if (k <= 0 || memcmp(chunk, bytes + at, (size_t)k) != 0)
            return 0;
        at += (size_t)k;
    }
    return 1;
}

/* Writes the copy in folder dfd as a new file, then gives it its name
 * (never replacing one): 0, or -1 (errno). */
static int write_copy(int dfd, const attach_target *t, const unsigned char *bytes, size_t size)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, ".%s.%d", PLACED_NAME, (int)getpid());
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
    if (fd < 0)
        return -1;
    int e = 0;
    for (size_t at = 0; !e && at < size;) {
        ssize_t k = write(fd, bytes + at, size - at);
        if (k <= 0)
            e = k < 0 ? errno : EIO;
        else
            at += (size_t)k;
    }
    struct stat st;
    if (!e && fstat(fd, &st) != 0)
        e = errno;
    if (!e && (st.st_uid != t->uid || st.st_gid != t->gid) &&
        fchown(fd, t->uid, t->gid) != 0 && fchown(fd, t->uid, (gid_t)-1) != 0)
        e = errno;
    close(fd);
    /* EEXIST: another clrtrace placed it meanwhile (verified by the caller). */
    if (!e && renameat2(dfd, tmp, dfd, PLACED_NAME, RENAME_NOREPLACE) != 0 && errno != EEXIST)
        e = errno;
    unlinkat(dfd, tmp, 0);
    errno = e;
    return e ? -1 : 0;
}

int attach_target_place(const char *who, const attach_target *t, const char *lib, char *out,
                        size_t cap)
{
    if (t->same_mnt) {
        if ((size_t)snprintf(out, cap, "%s", lib) >= cap)
            return 1;
        return 0;
    }
    size_t size = 0;
    unsigned char *bytes = read_whole(lib, &size);
    if (!bytes) {
        fprintf(stderr, "clrtrace %s: cannot read the profiler %s: %s\n", who, lib,
                strerror(errno));
        return 1;
    }
    unsigned long long h = FNV64_OFFSET;
    for (size_t i = 0; i < size; i++)
        h = (h ^ bytes[i]) * FNV64_PRIME;
    char dir[64];
    snprintf(dir, sizeof dir, PLACED_DIR_FORMAT, h);
    const char *root = strcmp(t->tmpdir, "/") ? t->tmpdir : "";
    int n = snprintf(out, cap, "%s/%s/%s", root, dir, PLACED_NAME);
    const char *why = NULL;
    int err = 0, made = 0, dfd = -1, fd = -1;
    struct stat st;
    struct statvfs vfs;
    if (n < 0 || (size_t)n >= cap) {
        why = "its path is too long";
        err = ENAMETOOLONG;
        goto fail;
    }
    /* The folder: made here (0700, then given to the process's user), or
     * one made before, taken only when it is a folder of that user that no
     * one else may enter. */
    if (mkdirat(t->tmp_fd, dir, 0700) == 0)
        made = 1;
    else if (errno != EEXIST) {
        err = errno;
        goto fail;
    }
    dfd = openat(t->tmp_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        err = errno;
        why = err == ELOOP || err == ENOTDIR ? "a file that is not a folder has its name" : NULL;
        goto fail;
    }
    if (made && fchown(dfd, t->uid, t->gid) != 0 && fchown(dfd, t->uid, (gid_t)-1) != 0) {
        err = errno;
        goto fail;
    }
    if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != t->uid ||
        (st.st_mode & 077)) {
        why = "the folder there is not the process's user's alone (remove it)";
        goto fail;
    }
    if (fstatvfs(dfd, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC)) {
        why = "its file system is mounted noexec: no library can be loaded from it";
        goto fail;
    }
    fd = openat(dfd, PLACED_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (write_copy(dfd, t, bytes, size) != 0) {
            err = errno;
            goto fail;
        }
        fd = openat(dfd, PLACED_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) {
        err = errno;
        goto fail;
    }
    /* What the runtime will load: verified now, in the folder no one but
     * the process's user (and root) may change. */
    if (!holds(fd, t, bytes, size)) {
        why = "a file there differs from this clrtrace's profiler (remove it)";
        goto fail;
    }
    close(fd);
    close(dfd);
    free(bytes);
    return 0;
fail:
    fprintf(stderr, "clrtrace %s: cannot place the profiler in pid %u's file system (%s/%s%s): "
            "%s\n", who, t->pid, root, dir, as_it_sees(t), why ? why : strerror(err));
    if (fd >= 0)
        close(fd);
    if (dfd >= 0)
        close(dfd);
    if (made)
        unlinkat(t->tmp_fd, dir, AT_REMOVEDIR);
    free(bytes);
    return 1;
}
