/* Shorthands the unit tests use to build traces by hand: the FUNCTION record
 * without outs and the END record without unrewritten functions (the
 * writer always gives both). */
#ifndef CLRTRACE_TESTS_RECORDS_H
#define CLRTRACE_TESTS_RECORDS_H

#include <string.h>

#include <cmocka.h>

#include "format/event.h"

static inline ct_trace_status ct_write_function(ct_wbuf *w, uint64_t key, const char *name,
                                                const char *sig, uint32_t flags, uint32_t nparams,
                                                const ct_fn_param *params, const ct_fn_param *ret)
{
    return ct_write_function_outs(w, key, name, sig, flags, nparams, params, ret, 0);
}

static inline ct_trace_status ct_write_end(ct_wbuf *w, uint64_t time_ns, uint64_t events,
                                           uint64_t mapped, uint64_t traced)
{
    return ct_write_end_unrewritten(w, time_ns, events, mapped, traced, 0);
}

/* The values of an UNWIND record built by hand (ct_rec.values). */
typedef struct ct_test_values {
    uint8_t b[1 << 16];
    size_t len;
    uint32_t n;
} ct_test_values;

static inline void ct_test_value(ct_test_values *c, ct_value_status st, const void *bytes,
                                 uint32_t n)
{
    uint32_t word = n | (uint32_t)st << CT_VALUE_STATUS_SHIFT;
    assert_true(c->len + 4 + n <= sizeof c->b);
    memcpy(c->b + c->len, &word, 4);
    if (n) /* a null message passes no bytes (memcpy's source must not be NULL) */
        memcpy(c->b + c->len + 4, bytes, n);
    c->len += 4 + n;
    c->n++;
}

/* An UNWIND chain's node word: depth, aggregate, inner exceptions. */
static inline uint32_t ct_test_node_word(uint32_t depth, int aggregate, uint32_t inner)
{
    return depth | (aggregate ? CT_EXC_NODE_AGGREGATE : 0) | inner << CT_EXC_NODE_INNER_SHIFT;
}

/* An exception of class cls as the chain holds it: its object, its message
 * m (NULL: a null _message) of which the first `kept` characters are in
 * the record (kept < 0: all), then its node word. */
static inline void ct_test_exception(ct_test_values *c, uint64_t cls, const char *m, int kept,
                                     uint32_t word)
{
    uint64_t obj[2] = { 0x7f0000001000 + c->n, cls };
    ct_test_value(c, CT_VALUE_PLAN, obj, 16);
    static uint8_t str[16 + 2 * 8192];
    uint64_t addr = m ? 0x7f0000009000 : 0;
    int32_t length = m ? (int32_t)strlen(m) : 0;
    uint32_t n = kept < 0 ? (uint32_t)length : (uint32_t)kept;
    assert_true(n <= 8192);
    memcpy(str, &addr, 8);
    memcpy(str + 8, &length, 4);
    memcpy(str + 12, &n, 4);
    for (uint32_t i = 0; i < n; i++) {
        str[16 + 2 * i] = (uint8_t)m[i];
        str[17 + 2 * i] = 0;
    }
    ct_test_value(c, CT_VALUE_PLAN, str, m ? 16 + 2 * n : 8);
    ct_test_value(c, CT_VALUE_PLAN, &word, 4);
}

#endif
