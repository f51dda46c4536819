/* Editing a decoded body: inserting code, extending the local signature. */
#include "clrsig/clrsig.h"
#include "il_internal.h"

clril_status clril_insert(clril_body *body, uint32_t at, const clril_insn *code, uint32_t n,
                          clril_label label, clril_arena *a, clril_error *err)
{
    uint32_t old = body->ninsns;
    if (at > old || (n && !code) || (label != CLRIL_KEEP_LABEL && label != CLRIL_TAKE_LABEL))
        return il_fail(err, CLRIL_E_ARG, at);
    if (n > CLRIL_MAX_INSERT)
        return il_fail(err, CLRIL_E_LIMIT, at);
    for (uint32_t i = 0; i < n; i++) {
        int k = clril_operand_of(code[i].op);
        int br = k == CLRIL_OPERAND_BR8 || k == CLRIL_OPERAND_BR32;
        /* A branch of the new code stays inside it: forward, to one of its
         * own instructions after it or to `at` (index n). */
        if (k < 0 || k == CLRIL_OPERAND_SWITCH || code[i].op == CLRIL_RET ||
            code[i].op == CLRIL_LEAVE || code[i].op == CLRIL_LEAVE_S ||
            (br && (code[i].target <= i || code[i].target > n)))
            return il_fail(err, CLRIL_E_ARG, at);
    }
    uint64_t total = (uint64_t)old + n;
    if (total > CLRIL_MAX_CODE_SIZE) /* every instruction takes a byte at least */
        return il_fail(err, CLRIL_E_LIMIT, at);
    uint32_t nsw = 0;
    for (uint32_t i = 0; i < old; i++)
        nsw += body->insns[i].ntargets;
    clril_insn *insns = il_alloc(a, (size_t)(total ? total : 1) * sizeof *insns);
    uint32_t *targets = il_alloc(a, (size_t)(nsw ? nsw : 1) * sizeof *targets);
    clril_clause *eh = il_alloc(a, (size_t)(body->neh ? body->neh : 1) * sizeof *eh);
    clril_section *sections = il_alloc(a, (size_t)(body->nsections ? body->nsections : 1) *
                                              sizeof *sections);
    if (!insns || !targets || !eh || !sections)
        return il_fail(err, CLRIL_E_NOMEM, at);
    if (body->nsections)
        memcpy(sections, body->sections, body->nsections * sizeof *sections);
    /* Old index i becomes: i before at; at or at + n for at itself (the
     * label); i + n after. The end of the code stays the end. */
#define MAP(i) ((i) < at ? (i) : (i) == at && (i) < old && label == CLRIL_TAKE_LABEL ? (i) : (i) + n)
    uint32_t t = 0;
    for (uint32_t i = 0; i < old; i++) {
        clril_insn in = body->insns[i];
        if (in.operand == CLRIL_OPERAND_BR8 || in.operand == CLRIL_OPERAND_BR32)
            in.target = MAP(in.target);
        if (in.operand == CLRIL_OPERAND_SWITCH) {
            for (uint32_t j = 0; j < in.ntargets; j++)
                targets[t + j] = MAP(in.targets[j]);
            in.targets = targets + t;
            t += in.ntargets;
        }
        insns[i < at ? i : i + n] = in;
    }
    for (uint32_t i = 0; i < n; i++) {
        clril_insn in = code[i];
        in.operand = (uint8_t)clril_operand_of(in.op);
        in.offset = CLRIL_NEW;
        in.target = in.operand == CLRIL_OPERAND_BR8 || in.operand == CLRIL_OPERAND_BR32
                        ? at + code[i].target : 0;
        in.ntargets = 0;
        in.targets = NULL;
        insns[at + i] = in;
    }
    for (uint32_t c = 0; c < body->neh; c++) {
        clril_clause cl = body->eh[c];
        cl.try_start = MAP(cl.try_start);
        cl.try_end = MAP(cl.try_end);
        cl.handler_start = MAP(cl.handler_start);
        cl.handler_end = MAP(cl.handler_end);
        if (cl.flags == CLRIL_CLAUSE_FILTER)
            cl.filter_start = MAP(cl.filter_start);
        eh[c] = cl;
    }
#undef MAP
    body->insns = insns;
    body->ninsns = (uint32_t)total;
    body->eh = eh;
    body->sections = sections;
    return CLRIL_OK;
}

clril_status clril_locals_append(const uint8_t *old, size_t old_len, const uint8_t *types,
                                 size_t types_len, uint32_t k, uint8_t *out, size_t cap,
                                 size_t *out_len, uint32_t *first, clril_error *err)
{
    uint32_t count = 0, used = 0;
    const uint8_t *rest = NULL;
    size_t rest_len = 0;
    *out_len = 0;
    if (old && old_len) {
        if (old[0] != 0x07 || clrsig_read_u(old + 1, old_len - 1, &count, &used) != CLRSIG_OK)
            return il_fail(err, CLRIL_E_LOCALS, old[0] != 0x07 ? 0 : 1);
        rest = old + 1 + used;
        rest_len = old_len - 1 - used;
    }
    if ((uint64_t)count + k > CLRIL_MAX_LOCALS)
        return il_fail(err, CLRIL_E_LIMIT, 1);
    uint8_t head[8];
    uint32_t hn = 0;
    head[0] = 0x07;
    if (clrsig_write_u(count + k, head + 1, sizeof head - 1, &hn) != CLRSIG_OK)
        return il_fail(err, CLRIL_E_LIMIT, 1);
    size_t need = 1 + hn + rest_len + types_len;
    *out_len = need;
    if (need > cap)
        return il_fail(err, CLRIL_E_SPACE, 0);
    memcpy(out, head, 1 + hn);
    if (rest_len)
        memcpy(out + 1 + hn, rest, rest_len);
    if (types_len)
        memcpy(out + 1 + hn + rest_len, types, types_len);
    *first = count;
    return CLRIL_OK;
}
