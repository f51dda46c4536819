/* Decoding a method body (ECMA-335 II.25.4): header, instructions, EH
 * sections. Two passes over the code: count, then fill and map offsets to
 * instruction indexes. */
#include "il_internal.h"

static uint32_t align4(uint32_t v) { return (v + 3u) & ~3u; }

/* The instruction at code[pos..end): its opcode, operand kind and size
 * (with the switch table). */
static clril_status insn_at(const uint8_t *code, uint32_t pos, uint32_t end, uint16_t *op,
                            int *operand, uint32_t *size)
{
    uint32_t at = pos;
    uint16_t o = code[at++];
    if (o == 0xFE) {
        if (at >= end)
            return CLRIL_E_TRUNCATED;
        o = (uint16_t)(0xFE00 | code[at++]);
    }
    int k = clril_operand_of(o);
    if (k < 0)
        return CLRIL_E_OPCODE;
    uint32_t n = il_operand_size(k);
    if (n > end - at)
        return CLRIL_E_TRUNCATED;
    if (k == CLRIL_OPERAND_SWITCH) {
        uint32_t count = rd32(code + at);
        if (count > CLRIL_MAX_SWITCH_TARGETS)
            return CLRIL_E_LIMIT;
        if (count > (end - at - 4) / 4)
            return CLRIL_E_TRUNCATED;
        n += 4 * count;
    }
    *op = o;
    *operand = k;
    *size = at - pos + n;
    return CLRIL_OK;
}

/* The index of the instruction starting at code offset off (the count of
 * instructions for the end), or UINT32_MAX. */
static uint32_t index_of(const uint32_t *idx, uint32_t code_size, uint64_t off)
{
    return off <= code_size ? idx[off] : UINT32_MAX;
}

/* The sections' shapes from pos: their arrays allocated, body->size set. */
static clril_status scan_sections(const uint8_t *b, size_t len, uint32_t pos, clril_arena *a,
                                  clril_body *body, clril_error *err)
{
    uint32_t nsect = 0, nclauses = 0, p = pos;
    for (int more = 1; more;) {
        if (nsect == CLRIL_MAX_SECTIONS)
            return il_fail(err, CLRIL_E_LIMIT, p);
        if (len < 4 || p > len - 4)
            return il_fail(err, CLRIL_E_TRUNCATED, p < len ? p : (uint32_t)len);
        uint8_t kind = b[p];
        int fat = (kind & IL_SECT_FAT) != 0;
        uint32_t size = fat ? (rd32(b + p) >> 8) : b[p + 1];
        uint32_t csize = fat ? IL_FAT_CLAUSE : IL_SMALL_CLAUSE;
        if ((kind & 0x3F) != IL_SECT_EHTABLE || size < 4 || (size - 4) % csize)
            return il_fail(err, CLRIL_E_SECTION, p);
        if (size > len - p)
            return il_fail(err, CLRIL_E_TRUNCATED, p);
        nclauses += (size - 4) / csize;
        if (nclauses > CLRIL_MAX_CLAUSES)
            return il_fail(err, CLRIL_E_LIMIT, p);
        nsect++;
        more = (kind & IL_SECT_MORE) != 0;
        p += size;
        if (more)
            p = align4(p);
    }
    body->size = p;
    body->sections = il_alloc(a, nsect * sizeof *body->sections);
    body->eh = il_alloc(a, (nclauses ? nclauses : 1) * sizeof *body->eh);
    if (!body->sections || !body->eh)
        return il_fail(err, CLRIL_E_NOMEM, pos);
    body->nsections = nsect;
    body->neh = nclauses;
    return CLRIL_OK;
}

/* The clauses of the sections from pos, their offsets mapped by idx. */
static clril_status fill_sections(const uint8_t *b, uint32_t pos, clril_body *body,
                                  const uint32_t *idx, clril_error *err)
{
    uint32_t code_size = body->code_size, k = 0, p = pos;
    uint32_t nsect = body->nsections;
    uint32_t prev_end = body->fat ? 12 + code_size : 1 + code_size; /* before the padding */
    for (uint32_t s = 0; s < nsect; s++) {
        clril_section *sec = &body->sections[s];
        memset(sec->pad, 0, sizeof sec->pad);
        for (uint32_t j = prev_end; j < p && j - prev_end < sizeof sec->pad; j++)
            sec->pad[j - prev_end] = b[j];
        uint8_t kind = b[p];
        sec->fat = (kind & IL_SECT_FAT) != 0;
        sec->more = (kind & IL_SECT_MORE) != 0;
        sec->data_size = sec->fat ? (rd32(b + p) >> 8) : b[p + 1];
        sec->reserved = sec->fat ? 0 : (uint16_t)rd16(b + p + 2);
        uint32_t csize = sec->fat ? IL_FAT_CLAUSE : IL_SMALL_CLAUSE;
        sec->first = k;
        sec->count = (sec->data_size - 4) / csize;
        for (uint32_t i = 0; i < sec->count; i++, k++) {
            const uint8_t *c = b + p + 4 + i * csize;
            uint32_t at = p + 4 + i * csize;
            uint64_t try_off, try_len, h_off, h_len;
            uint32_t flags, extra;
            if (sec->fat) {
                flags = rd32(c);
                try_off = rd32(c + 4), try_len = rd32(c + 8);
                h_off = rd32(c + 12), h_len = rd32(c + 16);
                extra = rd32(c + 20);
            } else {
                flags = rd16(c);
                try_off = rd16(c + 2), try_len = c[4];
                h_off = rd16(c + 5), h_len = c[7];
                extra = rd32(c + 8);
            }
            clril_clause *cl = &body->eh[k];
            memset(cl, 0, sizeof *cl);
            cl->flags = flags;
            cl->try_start = index_of(idx, code_size, try_off);
            cl->try_end = index_of(idx, code_size, try_off + try_len);
            cl->handler_start = index_of(idx, code_size, h_off);
            cl->handler_end = index_of(idx, code_size, h_off + h_len);
            if (flags == CLRIL_CLAUSE_CATCH)
                cl->class_token = extra;
            else if (flags == CLRIL_CLAUSE_FILTER)
                cl->filter_start = index_of(idx, code_size, extra);
            else if (flags != CLRIL_CLAUSE_FINALLY && flags != CLRIL_CLAUSE_FAULT)
                return il_fail(err, CLRIL_E_CLAUSE, at);
            else
                cl->class_token = extra; /* kept as read (0 normally) */
            if (cl->try_start == UINT32_MAX || cl->try_end == UINT32_MAX ||
                cl->handler_start == UINT32_MAX || cl->handler_end == UINT32_MAX ||
                cl->filter_start == UINT32_MAX || cl->try_end < cl->try_start ||
                cl->handler_end < cl->handler_start)
                return il_fail(err, CLRIL_E_CLAUSE, at);
        }
        p += sec->data_size;
        prev_end = p;
        if (sec->more)
            p = align4(p);
    }
    return CLRIL_OK;
}

clril_status clril_decode(const uint8_t *b, size_t len, clril_arena *a, clril_body *body,
                          clril_error *err)
{
    memset(body, 0, sizeof *body);
    if (len < 1)
        return il_fail(err, CLRIL_E_TRUNCATED, 0);
    uint32_t hdr;
    if ((b[0] & 3) == 2) {
        hdr = 1;
        body->code_size = b[0] >> 2;
        body->max_stack = 8;
    } else if ((b[0] & 3) == 3) {
        if (len < 12)
            return il_fail(err, CLRIL_E_TRUNCATED, 0);
        uint32_t fl = rd16(b);
        if ((fl >> 12) != 3)
            return il_fail(err, CLRIL_E_HEADER, 0);
        hdr = 12;
        body->fat = 1;
        body->flags = (uint16_t)(fl & 0xFFF);
        body->max_stack = (uint16_t)rd16(b + 2);
        body->code_size = rd32(b + 4);
        body->local_sig = rd32(b + 8);
        if (body->code_size > CLRIL_MAX_CODE_SIZE)
            return il_fail(err, CLRIL_E_LIMIT, 4);
    } else {
        return il_fail(err, CLRIL_E_HEADER, 0);
    }
    uint32_t size = body->code_size;
    if (size > len - hdr)
        return il_fail(err, CLRIL_E_TRUNCATED, (uint32_t)len);
    const uint8_t *code = b + hdr;

    /* Pass 1: how many instructions and switch targets. */
    uint32_t n = 0, ntargets = 0;
    for (uint32_t pos = 0; pos < size;) {
        uint16_t op;
        int k;
        uint32_t isz;
        clril_status st = insn_at(code, pos, size, &op, &k, &isz);
        if (st)
            return il_fail(err, st, hdr + pos);
        if (k == CLRIL_OPERAND_SWITCH)
            ntargets += (isz - (op > 0xFF ? 2 : 1) - 4) / 4;
        pos += isz;
        n++;
    }
    body->insns = il_alloc(a, (size_t)(n ? n : 1) * sizeof *body->insns);
    uint32_t *targets = il_alloc(a, (size_t)(ntargets ? ntargets : 1) * sizeof *targets);
    if (!body->insns || !targets)
        return il_fail(err, CLRIL_E_NOMEM, 0);
    body->ninsns = n;
    int has_sections = body->fat && (body->flags & IL_MORE_SECTS);
    uint32_t sect_at = align4(hdr + size);
    if (has_sections) {
        clril_status st = scan_sections(b, len, sect_at, a, body, err);
        if (st)
            return st;
    }

    /* Pass 2, with the map from offsets to indexes on top of the arena
     * (given back at the end). */
    size_t mark = a->used;
    uint32_t *idx = il_alloc(a, ((size_t)size + 1) * sizeof *idx);
    if (!idx)
        return il_fail(err, CLRIL_E_NOMEM, 0);
    memset(idx, 0xFF, ((size_t)size + 1) * sizeof *idx);
    uint32_t i = 0, t = 0;
    for (uint32_t pos = 0; pos < size; i++) {
        clril_insn *in = &body->insns[i];
        int k = 0;
        uint32_t isz = 0;
        memset(in, 0, sizeof *in);
        /* Pass 1 checked every instruction: this cannot fail. */
        if (insn_at(code, pos, size, &in->op, &k, &isz) != CLRIL_OK || !isz) {
            a->used = mark;
            return il_fail(err, CLRIL_E_OPCODE, hdr + pos);
        }
        in->operand = (uint8_t)k;
        in->offset = pos;
        idx[pos] = i;
        const uint8_t *p = code + pos + (in->op > 0xFF ? 2 : 1);
        switch (k) {
        case CLRIL_OPERAND_VAR8: in->value = p[0]; break;
        case CLRIL_OPERAND_I8: in->value = (int8_t)p[0]; break;
        case CLRIL_OPERAND_VAR16: in->value = rd16(p); break;
        case CLRIL_OPERAND_I32: in->value = (int32_t)rd32(p); break;
        case CLRIL_OPERAND_R32: case CLRIL_OPERAND_TOKEN: in->value = rd32(p); break;
        case CLRIL_OPERAND_I64: case CLRIL_OPERAND_R64: in->value = (int64_t)rd64(p); break;
        case CLRIL_OPERAND_SWITCH:
            in->ntargets = rd32(p);
            in->targets = targets + t;
            t += in->ntargets;
            break;
        default: break;
        }
        pos += isz;
    }
    idx[size] = n;
    /* Branch targets: each must be an instruction's start (or the end). */
    for (i = 0; i < n; i++) {
        clril_insn *in = &body->insns[i];
        in->target = 0;
        uint32_t next = i + 1 < n ? body->insns[i + 1].offset : size;
        const uint8_t *p = code + in->offset + (in->op > 0xFF ? 2 : 1);
        int64_t disp;
        if (in->operand == CLRIL_OPERAND_BR8 || in->operand == CLRIL_OPERAND_BR32) {
            disp = in->operand == CLRIL_OPERAND_BR8 ? (int8_t)p[0] : (int32_t)rd32(p);
            int64_t to = (int64_t)next + disp;
            in->target = to < 0 ? UINT32_MAX : index_of(idx, size, (uint64_t)to);
            if (in->target == UINT32_MAX)
                return il_fail(err, CLRIL_E_BRANCH, hdr + in->offset);
        } else if (in->operand == CLRIL_OPERAND_SWITCH) {
            for (uint32_t j = 0; j < in->ntargets; j++) {
                int64_t to = (int64_t)next + (int32_t)rd32(p + 4 + 4 * j);
                in->targets[j] = to < 0 ? UINT32_MAX : index_of(idx, size, (uint64_t)to);
                if (in->targets[j] == UINT32_MAX)
                    return il_fail(err, CLRIL_E_BRANCH, hdr + in->offset);
            }
        }
    }
    clril_status st = CLRIL_OK;
    if (has_sections)
        st = fill_sections(b, sect_at, body, idx, err);
    else
        body->size = hdr + size;
    a->used = mark;
    return st;
}
