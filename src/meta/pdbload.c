/* An assembly's Portable PDB found, read and opened: the embedded one
 * inflated (zlib's raw deflate), or the file its CodeView entry names.
 * The one part of libclrmeta that reads files and allocates. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "meta_internal.h"

clrmeta_status clrmeta_pdb_inflate(const clrmeta *md, const clrmeta_debug_dir *dd, uint8_t *out,
                                   size_t cap, clrmeta_error *err)
{
    if (!md || !dd || !out || !dd->has_embedded)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (cap < dd->embedded_inflated)
        return meta_fail(err, CLRMETA_E_MEMORY, dd->embedded_offset, "embedded PDB buffer");
    if (!meta_fits(dd->embedded_offset, dd->embedded_size, md->size))
        return meta_fail(err, CLRMETA_E_BAD_DEBUG, dd->embedded_offset, "embedded PDB data");
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) /* raw deflate: no zlib header */
        return meta_fail(err, CLRMETA_E_INFLATE, dd->embedded_offset, "inflateInit2");
    z.next_in = (Bytef *)(uintptr_t)(md->file + dd->embedded_offset);
    z.avail_in = dd->embedded_size;
    z.next_out = out;
    z.avail_out = dd->embedded_inflated;
    int r = inflate(&z, Z_FINISH);
    uLong got = z.total_out;
    inflateEnd(&z);
    if (r != Z_STREAM_END || got != dd->embedded_inflated)
        return meta_fail(err, CLRMETA_E_INFLATE, dd->embedded_offset,
                         r == Z_STREAM_END ? "embedded PDB shorter than stated"
                                           : "embedded PDB deflate data");
    return meta_ok(err);
}

/* The whole file, read into malloc'd memory (at most `limit` bytes; an
 * empty file is refused). Read, not mapped: a file cut by a rebuild while a
 * traced program runs must not fault the process reading it. 0, or an
 * errno. */
static int read_file(const char *path, size_t limit, uint8_t **bytes, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode) || st.st_size == 0)
        e = EINVAL;
    else if ((uint64_t)st.st_size > limit)
        e = EFBIG;
    size_t n = e ? 0 : (size_t)st.st_size, got = 0;
    uint8_t *p = e ? NULL : malloc(n);
    if (!e && !p)
        e = ENOMEM;
    while (!e && got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!e && got != n)
        e = EIO; /* the file shrank while it was read */
    if (e) {
        free(p);
        return e;
    }
    *bytes = p;
    *len = n;
    return 0;
}

/* src into out[0..cap), cut to fit, NUL-terminated. */
static void copy_path(char *out, size_t cap, const char *src)
{
    if (!out || !cap)
        return;
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, src, n);
    out[n] = '\0';
}

/* The PDB file the CodeView entry names: beside the assembly first, then
 * the path as written (under root). */
static clrmeta_status load_file(const char *assembly, const char *root, const clrmeta_debug_dir *dd,
                                clrmeta_pdb_file *f, clrmeta_error *err)
{
    const char *path = dd->pdb_path;
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    const char *slash = strrchr(assembly, '/');
    char cand[2][sizeof f->path];
    int ncand = 0;
    if (*base) {
        int dirlen = slash ? (int)(slash - assembly + 1) : 0;
        if (snprintf(cand[ncand], sizeof cand[0], "%.*s%s", dirlen, assembly, base) <
            (int)sizeof cand[0])
            ncand++;
    }
    if (path[0] == '/' &&
        snprintf(cand[ncand], sizeof cand[0], "%s%s", root ? root : "", path) < (int)sizeof cand[0])
        ncand++;
    int last = ENOENT;
    for (int i = 0; i < ncand; i++) {
        int e = read_file(cand[i], CLRMETA_MAX_PDB_FILE, &f->bytes_, &f->len_);
        if (e == 0) {
            copy_path(f->path, sizeof f->path, cand[i]);
            return meta_ok(err);
        }
        if (e != ENOENT || i == 0)
            last = e;
    }
    copy_path(f->path, sizeof f->path, ncand ? cand[0] : path);
    return meta_fail(err, last == ENOENT ? CLRMETA_E_NO_PDB : CLRMETA_E_IO, 0,
                     last == ENOENT ? "no PDB file where the CodeView entry says" : strerror(last));
}

clrmeta_status clrmeta_pdb_load(const char *assembly, const char *root, clrmeta_pdb_file **out,
                                char *failed_path, size_t failed_cap, clrmeta_error *err)
{
    if (!assembly || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    *out = NULL;
    copy_path(failed_path, failed_cap, assembly);
    uint8_t *asm_bytes = NULL;
    size_t asm_len = 0;
    int e = read_file(assembly, CLRMETA_MAX_FILE_SIZE, &asm_bytes, &asm_len);
    if (e)
        return meta_fail(err, CLRMETA_E_IO, 0, strerror(e));
    clrmeta md;
    clrmeta_debug_dir dd;
    clrmeta_status st = clrmeta_open(asm_bytes, asm_len, &md, err);
    if (st == CLRMETA_OK)
        st = clrmeta_debug_directory(&md, &dd, err);
    if (st == CLRMETA_OK && !dd.has_embedded && !dd.has_codeview)
        st = meta_fail(err, CLRMETA_E_NO_PDB, 0,
                       "no Portable PDB entry in the debug directory");
    clrmeta_pdb_file *f = NULL;
    if (st == CLRMETA_OK && !(f = calloc(1, sizeof *f)))
        st = meta_fail(err, CLRMETA_E_MEMORY, 0, "clrmeta_pdb_file");
    if (st == CLRMETA_OK && dd.has_embedded) {
        f->embedded = 1;
        copy_path(f->path, sizeof f->path, assembly);
        f->len_ = dd.embedded_inflated;
        if (!(f->bytes_ = malloc(f->len_ ? f->len_ : 1)))
            st = meta_fail(err, CLRMETA_E_MEMORY, 0, "embedded PDB");
        else
            st = clrmeta_pdb_inflate(&md, &dd, f->bytes_, f->len_, err);
    } else if (st == CLRMETA_OK) {
        st = load_file(assembly, root, &dd, f, err);
        copy_path(failed_path, failed_cap, f->path);
    }
    if (st == CLRMETA_OK)
        st = clrmeta_pdb_open(f->bytes_, f->len_, &f->pdb, err);
    if (st == CLRMETA_OK && !clrmeta_pdb_matches(&f->pdb, &dd))
        st = meta_fail(err, CLRMETA_E_PDB_MISMATCH, 0, "PDB id (another build's PDB)");
    free(asm_bytes);
    if (st != CLRMETA_OK) {
        clrmeta_pdb_free(f);
        return st;
    }
    *out = f;
    return meta_ok(err);
}

void clrmeta_pdb_free(clrmeta_pdb_file *f)
{
    if (!f)
        return;
    free(f->bytes_);
    free(f);
}
