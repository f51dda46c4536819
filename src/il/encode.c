/* Encoding a method body: layout (short branches promoted until every
 * displacement fits), header, code, EH sections. */
#include "il_internal.h"

static uint32_t insn_size(const clril_insn *in)
{
    uint32_t n = (in->op > 0xFF ? 2 : 1) + il_operand_size(in->operand);
    if (in->operand == CLRIL_OPERAND_SWITCH)
        n += 4 * in->ntargets;
    return n;
}

/* A small clause holds offsets up to 0xFFFF and lengths up to 0xFF. */
static int fits_small(uint32_t off, uint32_t len)
{
    return off <= 0xFFFF && len <= 0xFF;
}

/* The new offset of instruction ix (the end of the code for ninsns). */
static uint32_t off_of(const clril_body *b, uint32_t ix, uint32_t code_size)
{
    return ix < b->ninsns ? b->insns[ix].offset : code_size;
}

/* The bytes section sec takes, and whether it is written fat: as it was
 * read, unless a clause's offsets or the section's size no longer fit the
 * small format. */
static uint32_t section_size(const clril_body *b, const clril_section *sec, uint32_t code_size,
                             int *fat)
{
    int f = sec->fat;
    for (uint32_t c = sec->first; !f && c < sec->first + sec->count; c++) {
        const clril_clause *cl = &b->eh[c];
        uint32_t ts = off_of(b, cl->try_start, code_size), hs = off_of(b, cl->handler_start, code_size);
        f = !fits_small(ts, off_of(b, cl->try_end, code_size) - ts) ||
            !fits_small(hs, off_of(b, cl->handler_end, code_size) - hs);
    }
    if (!f && 4 + sec->count * IL_SMALL_CLAUSE > 0xFF)
        f = 1;
    *fat = f;
    return 4 + sec->count * (f ? IL_FAT_CLAUSE : IL_SMALL_CLAUSE);
}

clril_status clril_encode(clril_body *body, uint8_t *out, size_t cap, size_t *len,
                          clril_error *err)
{
    uint32_t n = body->ninsns;
    *len = 0;
    /* Operand kinds from the opcodes (inserted or edited instructions). */
    for (uint32_t i = 0; i < n; i++) {
        int k = clril_operand_of(body->insns[i].op);
        if (k < 0)
            return il_fail(err, CLRIL_E_OPCODE, i);
        body->insns[i].operand = (uint8_t)k;
        const clril_insn *in = &body->insns[i];
        if ((k == CLRIL_OPERAND_BR8 || k == CLRIL_OPERAND_BR32) && in->target > n)
            return il_fail(err, CLRIL_E_BRANCH, i);
        if (k == CLRIL_OPERAND_SWITCH) {
            if (in->ntargets > CLRIL_MAX_SWITCH_TARGETS)
                return il_fail(err, CLRIL_E_LIMIT, i);
            for (uint32_t j = 0; j < in->ntargets; j++)
                if (in->targets[j] > n)
                    return il_fail(err, CLRIL_E_BRANCH, i);
        }
    }
    for (uint32_t c = 0; c < body->neh; c++) {
        const clril_clause *cl = &body->eh[c];
        if (cl->try_start > cl->try_end || cl->try_end > n || cl->handler_start > cl->handler_end ||
            cl->handler_end > n || (cl->flags == CLRIL_CLAUSE_FILTER && cl->filter_start > n))
            return il_fail(err, CLRIL_E_CLAUSE, c);
    }
    /* Layout: the offset of every instruction, and of the end. Promoting a
     * short branch only makes code longer, so this ends (at most once per
     * short branch). The offsets are written into insns[].offset at the end;
     * meanwhile they are computed on the fly. */
    uint64_t size;
    for (;;) {
        size = 0;
        for (uint32_t i = 0; i < n; i++) {
            body->insns[i].offset = (uint32_t)size; /* the new offsets, below the limit */
            size += insn_size(&body->insns[i]);
            if (size > CLRIL_MAX_CODE_SIZE)
                return il_fail(err, CLRIL_E_LIMIT, i);
        }
        int changed = 0;
        for (uint32_t i = 0; i < n; i++) {
            clril_insn *in = &body->insns[i];
            if (in->operand != CLRIL_OPERAND_BR8)
                continue;
            uint64_t to = in->target < n ? body->insns[in->target].offset : size;
            int64_t d = (int64_t)to - (int64_t)(in->offset + insn_size(in));
            if (d < -128 || d > 127) {
                uint16_t lf = clril_long_form(in->op);
                if (lf == in->op)
                    return il_fail(err, CLRIL_E_BRANCH, i); /* a short-only form: none exist */
                in->op = lf;
                in->operand = CLRIL_OPERAND_BR32;
                changed = 1;
            }
        }
        if (!changed)
            break;
    }
    uint32_t code_size = (uint32_t)size;
#define OFF(ix) off_of(body, (ix), code_size)

    /* Sections: as read when they still hold the clauses, else one fat one. */
    clril_section one = { .fat = 1, .count = body->neh };
    const clril_section *sect = body->sections;
    uint32_t nsect = body->nsections, total = 0;
    for (uint32_t s = 0; s < nsect; s++)
        total += sect[s].count;
    if (total != body->neh || (body->neh && !nsect)) {
        sect = &one;
        nsect = 1;
    }
    if (!body->neh && sect == &one)
        nsect = 0; /* (sections as read are kept, even without a clause) */
    int tiny = !body->fat && code_size < 64 && body->max_stack <= 8 && !body->local_sig &&
               !nsect;
    uint64_t need = (tiny ? 1 : 12) + (uint64_t)code_size;
    for (uint32_t s = 0; s < nsect; s++) {
        need = (need + 3) & ~(uint64_t)3;
        int fat;
        need += section_size(body, &sect[s], code_size, &fat);
    }
    *len = (size_t)need;
    body->size = (size_t)need;
    if (need > cap)
        return il_fail(err, CLRIL_E_SPACE, 0);

    /* The header. */
    uint8_t *p = out;
    if (tiny) {
        *p++ = (uint8_t)(code_size << 2 | 2);
    } else {
        uint32_t flags = (body->flags & ~(uint32_t)(IL_MORE_SECTS | 3)) | IL_FAT_FORMAT |
                         (nsect ? IL_MORE_SECTS : 0);
        wr16(p, (flags & 0xFFF) | 3u << 12);
        wr16(p + 2, body->max_stack);
        wr32(p + 4, code_size);
        wr32(p + 8, body->local_sig);
        p += 12;
    }
    /* The code. */
    for (uint32_t i = 0; i < n; i++) {
        const clril_insn *in = &body->insns[i];
        uint32_t next = in->offset + insn_size(in);
        if (in->op > 0xFF)
            *p++ = 0xFE;
        *p++ = (uint8_t)in->op;
        switch (in->operand) {
        case CLRIL_OPERAND_VAR8: case CLRIL_OPERAND_I8: *p++ = (uint8_t)in->value; break;
        case CLRIL_OPERAND_VAR16: wr16(p, (uint32_t)in->value); p += 2; break;
        case CLRIL_OPERAND_I32: case CLRIL_OPERAND_R32: case CLRIL_OPERAND_TOKEN:
            wr32(p, (uint32_t)in->value);
            p += 4;
            break;
        case CLRIL_OPERAND_I64: case CLRIL_OPERAND_R64: wr64(p, (uint64_t)in->value); p += 8; break;
        case CLRIL_OPERAND_BR8: *p++ = (uint8_t)(int8_t)((int64_t)OFF(in->target) - next); break;
        case CLRIL_OPERAND_BR32:
            wr32(p, (uint32_t)(int32_t)((int64_t)OFF(in->target) - next));
            p += 4;
            break;
        case CLRIL_OPERAND_SWITCH:
            wr32(p, in->ntargets);
            p += 4;
            for (uint32_t j = 0; j < in->ntargets; j++, p += 4)
                wr32(p, (uint32_t)(int32_t)((int64_t)OFF(in->targets[j]) - next));
            break;
        default: break;
        }
    }
    /* The sections, each 4-byte aligned (zero bytes between). */
    for (uint32_t s = 0; s < nsect; s++) {
        for (uint32_t j = 0; (size_t)(p - out) & 3; j++)
            *p++ = sect == &one ? 0 : sect[s].pad[j];
        int fat;
        uint32_t dsize = section_size(body, &sect[s], code_size, &fat);
        uint8_t kind = (uint8_t)(IL_SECT_EHTABLE | (fat ? IL_SECT_FAT : 0) |
                                 (s + 1 < nsect ? IL_SECT_MORE : 0));
        if (fat) {
            wr32(p, kind | dsize << 8);
        } else {
            p[0] = kind;
            p[1] = (uint8_t)dsize;
            wr16(p + 2, sect == &one ? 0 : sect[s].reserved);
        }
        p += 4;
        for (uint32_t c = sect[s].first; c < sect[s].first + sect[s].count; c++) {
            const clril_clause *cl = &body->eh[c];
            uint32_t extra = cl->flags == CLRIL_CLAUSE_FILTER ? OFF(cl->filter_start)
                                                               : cl->class_token;
            uint32_t to = OFF(cl->try_start), tl = OFF(cl->try_end) - to;
            uint32_t ho = OFF(cl->handler_start), hl = OFF(cl->handler_end) - ho;
            if (fat) {
                wr32(p, cl->flags), wr32(p + 4, to), wr32(p + 8, tl);
                wr32(p + 12, ho), wr32(p + 16, hl), wr32(p + 20, extra);
                p += IL_FAT_CLAUSE;
            } else {
                wr16(p, cl->flags), wr16(p + 2, to), p[4] = (uint8_t)tl;
                wr16(p + 5, ho), p[7] = (uint8_t)hl, wr32(p + 8, extra);
                p += IL_SMALL_CLAUSE;
            }
        }
    }
#undef OFF
    body->code_size = code_size;
    body->fat = (uint8_t)!tiny;
    return CLRIL_OK;
}
