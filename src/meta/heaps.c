/* #Strings, #Blob, #US and #GUID reads (II.24.2.3-II.24.2.5). */
#include <string.h>

#include "meta_internal.h"

clrmeta_status meta_string(const clrmeta *md, uint32_t offset, const char **out)
{
    if (offset == 0 && md->strings.size == 0) {
        *out = "";
        return CLRMETA_OK;
    }
    if (offset >= md->strings.size)
        return CLRMETA_E_BAD_STRING;
    const uint8_t *p = md->strings.p + offset;
    /* A heap that ends in NUL (every real one) terminates every string in it. */
    if (md->strings.p[md->strings.size - 1] != 0 && !memchr(p, 0, md->strings.size - offset))
        return CLRMETA_E_BAD_STRING;
    *out = (const char *)p;
    return CLRMETA_OK;
}

clrmeta_status meta_blob(const clrmeta_heap *h, uint32_t offset, clrmeta_blob *out)
{
    if (offset == 0 && h->size == 0) {
        out->p = NULL;
        out->len = 0;
        return CLRMETA_OK;
    }
    if (offset >= h->size)
        return CLRMETA_E_BAD_BLOB;
    uint32_t len, used;
    if (clrsig_read_u(h->p + offset, h->size - offset, &len, &used) != CLRSIG_OK)
        return CLRMETA_E_BAD_BLOB;
    if (len > h->size - offset - used)
        return CLRMETA_E_BAD_BLOB;
    out->p = h->p + offset + used;
    out->len = len;
    return CLRMETA_OK;
}

clrmeta_status clrmeta_string(const clrmeta *md, uint32_t offset, const char **out,
                              clrmeta_error *err)
{
    if (!md || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (meta_string(md, offset, out) != CLRMETA_OK)
    {
        uint32_t at = offset < md->strings.size ? offset : md->strings.size;
        return meta_fail(err, CLRMETA_E_BAD_STRING, md->strings.offset + at, "#Strings");
    }
    return meta_ok(err);
}

static clrmeta_status blob_from(const clrmeta_heap *h, uint32_t offset, clrmeta_blob *out,
                                clrmeta_error *err, const char *what)
{
    if (meta_blob(h, offset, out) != CLRMETA_OK)
        return meta_fail(err, CLRMETA_E_BAD_BLOB,
                         h->offset + (offset < h->size ? offset : h->size), what);
    return meta_ok(err);
}

clrmeta_status clrmeta_blob_at(const clrmeta *md, uint32_t offset, clrmeta_blob *out,
                               clrmeta_error *err)
{
    if (!md || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    return blob_from(&md->blob, offset, out, err, "#Blob");
}

clrmeta_status clrmeta_userstring(const clrmeta *md, uint32_t offset, clrmeta_blob *out,
                                  clrmeta_error *err)
{
    if (!md || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    return blob_from(&md->us, offset, out, err, "#US");
}

clrmeta_status clrmeta_guid(const clrmeta *md, uint32_t index, const uint8_t **out,
                            clrmeta_error *err)
{
    if (!md || !out)
        return meta_fail(err, CLRMETA_E_ARGUMENT, 0, "argument");
    if (index == 0) {
        *out = NULL;
        return meta_ok(err);
    }
    if ((uint64_t)index * 16 > md->guid.size)
        return meta_fail(err, CLRMETA_E_BAD_GUID, md->guid.offset, "#GUID");
    *out = md->guid.p + (size_t)(index - 1) * 16;
    return meta_ok(err);
}
