/* Shorthands the unit tests use to build traces by hand: the FUNCTION record
 * without outs and the END record without unrewritten functions (the
 * writer always gives both). */
#ifndef CLRTRACE_TESTS_RECORDS_H
#define CLRTRACE_TESTS_RECORDS_H

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

#endif
