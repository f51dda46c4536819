/* meta_build: writes small synthetic .NET assemblies for tests. It lays
 * out a PE32 or PE32+ file with one section holding a CLI header and
 * metadata (root, #~ or #-, #Strings, #US, #GUID, #Blob) from rows the test
 * adds. Column widths come from this file's own table (not from the
 * library's schema), so a test also checks the library's layout; only the
 * tables below can be written, and every index and coded index is 2 bytes
 * (tests stay far below 2^11 rows), heap indexes 2 or 4 bytes per
 * heap_sizes. Offsets of the interesting fields are kept so that tests can
 * corrupt them. Header-only on purpose. */
#ifndef CLRTRACE_TESTS_META_BUILD_H
#define CLRTRACE_TESTS_META_BUILD_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#define MB_MAX_ROWS 64
#define MB_MAX_OUT 32768
#define MB_SECTION_RVA 0x2000u
#define MB_SECTION_RAW 0x200u

/* Column kinds: '2' u16, '4' u32, 's' #Strings, 'g' #GUID, 'b' #Blob,
 * 'x' a simple or coded index (always 2 bytes here). */
static const char *const mb_specs[0x2D] = {
    [0x00] = "2sggg",     /* Module */
    [0x01] = "xss",       /* TypeRef: ResolutionScope, TypeName, TypeNamespace */
    [0x02] = "4ssxxx",    /* TypeDef: Flags, Name, Namespace, Extends, FieldList, MethodList */
    [0x03] = "x",         /* FieldPtr */
    [0x04] = "2sb",       /* Field */
    [0x05] = "x",         /* MethodPtr */
    [0x06] = "422sbx",    /* MethodDef: RVA, ImplFlags, Flags, Name, Signature, ParamList */
    [0x07] = "x",         /* ParamPtr */
    [0x08] = "22s",       /* Param: Flags, Sequence, Name */
    [0x0A] = "xsb",       /* MemberRef: Class, Name, Signature */
    [0x0C] = "xxb",       /* CustomAttribute: Parent, Type, Value */
    [0x1A] = "s",         /* ModuleRef */
    [0x1B] = "b",         /* TypeSpec */
    [0x20] = "422224bss", /* Assembly */
    [0x23] = "22224bssb", /* AssemblyRef */
    [0x29] = "xx",        /* NestedClass: NestedClass, EnclosingClass */
    [0x2A] = "22xs",      /* GenericParam: Number, Flags, Owner, Name */
};

typedef struct mb {
    /* inputs */
    uint8_t heap_sizes;    /* 0x01, 0x02, 0x04, 0x40 (the extra u32 is written) */
    int uncompressed;      /* name the table stream "#-" */
    int pe32plus;
    const char *extra_stream; /* an extra empty stream with this name, or NULL */
    uint8_t strings[4096];
    uint32_t nstrings;
    uint8_t blob[4096];
    uint32_t nblob;
    uint8_t guid[256];
    uint32_t nguid;
    uint8_t us[256];
    uint32_t nus;
    uint32_t rows[0x2D];
    uint32_t cells[0x2D][MB_MAX_ROWS][9];

    /* output */
    uint8_t out[MB_MAX_OUT];
    size_t len;
    uint32_t off_opt;          /* optional header */
    uint32_t off_section;      /* section header */
    uint32_t off_cli;          /* CLI header */
    uint32_t off_md;           /* metadata root */
    uint32_t off_stream_hdr;   /* first stream header */
    uint32_t off_tables;       /* table stream */
    uint32_t off_rowcounts;    /* first row count */
    uint32_t off_strings;      /* #Strings heap */
    uint32_t off_blob;         /* #Blob heap */
    uint32_t off_table[0x2D];  /* row 1 of each table */
    uint32_t row_size[0x2D];
} mb;

static void mb_init(mb *b)
{
    memset(b, 0, sizeof *b);
    b->nstrings = 1; /* offset 0 is "" */
    b->nblob = 1;    /* offset 0 is the empty blob */
    b->nus = 1;
}

static uint32_t mb_str(mb *b, const char *s)
{
    uint32_t off = b->nstrings;
    size_t n = strlen(s) + 1;
    memcpy(b->strings + b->nstrings, s, n);
    b->nstrings += (uint32_t)n;
    return off;
}

static uint32_t mb_blob(mb *b, const uint8_t *p, uint32_t n)
{
    uint32_t off = b->nblob;
    if (n < 0x80) {
        b->blob[b->nblob++] = (uint8_t)n;
    } else {
        b->blob[b->nblob++] = (uint8_t)(0x80 | n >> 8);
        b->blob[b->nblob++] = (uint8_t)n;
    }
    memcpy(b->blob + b->nblob, p, n);
    b->nblob += n;
    return off;
}

static uint32_t mb_guid(mb *b, uint8_t fill)
{
    memset(b->guid + b->nguid, fill, 16);
    b->nguid += 16;
    return b->nguid / 16;
}

/* Appends a row to table t; the cells follow the table's spec. Returns its rid. */
static uint32_t mb_row(mb *b, unsigned t, ...)
{
    va_list ap;
    uint32_t rid = ++b->rows[t];
    size_t n = strlen(mb_specs[t]);
    va_start(ap, t);
    for (size_t c = 0; c < n; c++)
        b->cells[t][rid - 1][c] = va_arg(ap, uint32_t);
    va_end(ap);
    return rid;
}

static void mb_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void mb_put32(uint8_t *p, uint32_t v)
{
    mb_put16(p, v);
    mb_put16(p + 2, v >> 16);
}

static unsigned mb_width(const mb *b, char kind)
{
    switch (kind) {
    case '4': return 4;
    case 's': return b->heap_sizes & 0x01 ? 4 : 2;
    case 'g': return b->heap_sizes & 0x02 ? 4 : 2;
    case 'b': return b->heap_sizes & 0x04 ? 4 : 2;
    default: return 2;
    }
}

/* Writes one stream header at *pos; returns where the next one starts. */
static uint32_t mb_stream_hdr(mb *b, uint32_t pos, uint32_t offset, uint32_t size, const char *name)
{
    mb_put32(b->out + pos, offset);
    mb_put32(b->out + pos + 4, size);
    size_t n = strlen(name) + 1;
    memcpy(b->out + pos + 8, name, n);
    return pos + 8 + (uint32_t)((n + 3) & ~(size_t)3);
}

static uint32_t mb_align4(uint32_t v)
{
    return (v + 3) & ~3u;
}

/* Lays out the file into b->out; returns its length. */
static size_t mb_finish(mb *b)
{
    uint8_t *o = b->out;
    memset(o, 0, sizeof b->out);
    /* DOS header and PE headers */
    o[0] = 'M';
    o[1] = 'Z';
    mb_put32(o + 0x3C, 0x80);
    memcpy(o + 0x80, "PE\0\0", 4);
    uint32_t coff = 0x84;
    mb_put16(o + coff, b->pe32plus ? 0x8664 : 0x14C);
    mb_put16(o + coff + 2, 1);
    uint32_t opt_size = b->pe32plus ? 0xF0 : 0xE0;
    mb_put16(o + coff + 16, opt_size);
    mb_put16(o + coff + 18, 0x2102);
    b->off_opt = coff + 20;
    uint8_t *opt = o + b->off_opt;
    mb_put16(opt, b->pe32plus ? 0x20B : 0x10B);
    uint32_t dirs = b->pe32plus ? 112 : 96;
    mb_put32(opt + dirs - 4, 16);                          /* NumberOfRvaAndSizes */
    mb_put32(opt + dirs + 14 * 8, MB_SECTION_RVA);         /* CLI header */
    mb_put32(opt + dirs + 14 * 8 + 4, 72);
    b->off_section = b->off_opt + opt_size;
    uint8_t *sec = o + b->off_section;
    memcpy(sec, ".text", 5);

    /* section contents: CLI header, then metadata */
    b->off_cli = MB_SECTION_RAW;
    b->off_md = b->off_cli + 72;
    uint32_t md = b->off_md;
    memcpy(o + md, "BSJB", 4);
    mb_put16(o + md + 4, 1);
    mb_put16(o + md + 6, 1);
    mb_put32(o + md + 12, 12);
    memcpy(o + md + 16, "v4.0.30319", 10);
    uint32_t nstreams = b->extra_stream ? 6 : 5;
    mb_put16(o + md + 30, nstreams);
    b->off_stream_hdr = md + 32;

    /* the table stream */
    uint32_t tpos = 32 + 20 + 20 + 12 + 16 + 16 + 12 + 48; /* root + headers, generous */
    b->off_tables = md + tpos;
    uint8_t *ts = o + b->off_tables;
    ts[4] = 2;
    ts[6] = b->heap_sizes;
    ts[7] = 1;
    uint64_t valid = 0;
    for (unsigned t = 0; t < 0x2D; t++)
        if (b->rows[t])
            valid |= (uint64_t)1 << t;
    mb_put32(ts + 8, (uint32_t)valid);
    mb_put32(ts + 12, (uint32_t)(valid >> 32));
    uint32_t p = 24;
    b->off_rowcounts = b->off_tables + p;
    for (unsigned t = 0; t < 0x2D; t++)
        if (b->rows[t]) {
            mb_put32(ts + p, b->rows[t]);
            p += 4;
        }
    if (b->heap_sizes & 0x40) {
        mb_put32(ts + p, 0xEEEEEEEE);
        p += 4;
    }
    for (unsigned t = 0; t < 0x2D; t++) {
        const char *spec = mb_specs[t];
        b->off_table[t] = b->off_tables + p;
        if (!b->rows[t] || !spec)
            continue;
        uint32_t rs = 0;
        for (const char *k = spec; *k; k++)
            rs += mb_width(b, *k);
        b->row_size[t] = rs;
        for (uint32_t r = 0; r < b->rows[t]; r++)
            for (size_t c = 0; spec[c]; c++) {
                unsigned w = mb_width(b, spec[c]);
                if (w == 4)
                    mb_put32(ts + p, b->cells[t][r][c]);
                else
                    mb_put16(ts + p, b->cells[t][r][c]);
                p += w;
            }
    }
    uint32_t tsize = mb_align4(p);

    /* heaps after the table stream */
    uint32_t spos = tpos + tsize;
    b->off_strings = md + spos;
    memcpy(o + md + spos, b->strings, b->nstrings);
    uint32_t ssize = mb_align4(b->nstrings);
    uint32_t upos = spos + ssize, usize = mb_align4(b->nus);
    memcpy(o + md + upos, b->us, b->nus);
    uint32_t gpos = upos + usize, gsize = b->nguid;
    memcpy(o + md + gpos, b->guid, b->nguid);
    uint32_t bpos = gpos + gsize, bsize = mb_align4(b->nblob);
    b->off_blob = md + bpos;
    memcpy(o + md + bpos, b->blob, b->nblob);
    uint32_t md_size = bpos + bsize;

    uint32_t h = b->off_stream_hdr;
    h = mb_stream_hdr(b, h, tpos, tsize, b->uncompressed ? "#-" : "#~");
    h = mb_stream_hdr(b, h, spos, ssize, "#Strings");
    h = mb_stream_hdr(b, h, upos, usize, "#US");
    h = mb_stream_hdr(b, h, gpos, gsize, "#GUID");
    h = mb_stream_hdr(b, h, bpos, bsize, "#Blob");
    if (b->extra_stream)
        h = mb_stream_hdr(b, h, md_size, 0, b->extra_stream);

    /* CLI header */
    uint8_t *cli = o + b->off_cli;
    mb_put32(cli, 72);
    mb_put16(cli + 4, 2);
    mb_put16(cli + 6, 5);
    mb_put32(cli + 8, MB_SECTION_RVA + 72);
    mb_put32(cli + 12, md_size);
    mb_put32(cli + 16, 1);

    uint32_t raw = 72 + md_size;
    uint32_t raw_aligned = (raw + 0x1FF) & ~0x1FFu;
    mb_put32(sec + 8, raw);
    mb_put32(sec + 12, MB_SECTION_RVA);
    mb_put32(sec + 16, raw_aligned);
    mb_put32(sec + 20, MB_SECTION_RAW);
    mb_put32(sec + 36, 0x60000020);
    b->len = MB_SECTION_RAW + raw_aligned;
    return b->len;
}

#endif
