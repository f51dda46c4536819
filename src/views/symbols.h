/*
 * What a trace's records define, and the text of its values.
 *
 * FUNCTION records name functions and carry the labels and plans of their
 * parameters, CLASS records name the classes of object values, THREAD
 * records name threads. A ct_symbols table copies what they define (the
 * reader's arena may then be reused) and formats the values of ENTER and
 * LEAVE records with those plans. The text renderer (render.h: the live log,
 * `clrtrace replay`, `report`) and `clrtrace dump --chrome` share it, so a
 * value reads the same in the text log and in the JSON.
 *
 *   ct_symbols *s = ct_symbols_new();
 *   ... for each record: ct_symbols_add(s, rec);
 *   ... for an ENTER: const ct_function *f = ct_symbols_function(s, rec->key);
 *                     ct_next_value(rec, ...) and ct_symbols_value_text(...)
 *   ct_symbols_free(s);
 *
 * Allocates (tables and copies); never reads outside the records it is given.
 */
#ifndef CLRTRACE_SYMBOLS_H
#define CLRTRACE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "format/value.h"
#include "base/text.h"

/* Longest class name kept from a CLASS record, and thread name from a THREAD
 * record (longer ones are cut). */
#define CT_SYMBOLS_CLASS_NAME_MAX 1024
#define CT_SYMBOLS_THREAD_NAME_MAX 1024

/* A function as its latest FUNCTION record defines it. All strings are
 * NUL-terminated and stay valid until ct_symbols_free. */
typedef struct ct_function {
    uint64_t key;
    const char *name;         /* "Demo.Shapes.Scale"; "?" for a key no FUNCTION record named */
    uint32_t flags;           /* CT_FN_* (a key never named: CT_FN_NO_VALUES) */
    uint32_t nparams;         /* parameters, `this` included */
    const char **labels;      /* nparams labels: "double k=", "this=", "out int value=" */
    const ct_plan **plans;    /* nparams plans */
    const char *ret_label;    /* "Point " */
    /* The strlen of name, of each label (nparams) and of ret_label: the
     * text log puts them on every line. */
    size_t name_len, ret_label_len;
    const size_t *label_lens;
    const ct_plan *ret;       /* NULL: void */
    uint64_t out_mask;        /* parameters whose targets LEAVE records carry again
                                 after the return value (ct_rec.out_mask) */
    const char *src_file;     /* (2.11) its source file, NULL when the trace has none */
    uint32_t src_line;
    uint32_t src_root;        /* bytes of src_file that are its sources' common folder */
} ct_function;

typedef struct ct_symbols ct_symbols;

/* NULL when out of memory. */
ct_symbols *ct_symbols_new(void);
void ct_symbols_free(ct_symbols *s);

/* Takes what a FUNCTION, CLASS or THREAD record defines (other records are
 * ignored). A FUNCTION record for a key already defined replaces the
 * definition in place: a ct_function pointer handed out before stays valid
 * and then reads the new one. Returns 0, or -1 when memory ran out (the
 * record is lost; the table stays usable). */
int ct_symbols_add(ct_symbols *s, const ct_rec *rec);

/* The function of a key. A key no FUNCTION record has named gets a
 * placeholder ("?", no values), so the result is NULL only when memory ran
 * out. The pointer is stable until ct_symbols_free. */
const ct_function *ct_symbols_function(ct_symbols *s, uint64_t key);

/* The name a THREAD record gave a thread (the latest), or NULL. */
const char *ct_symbols_thread_name(const ct_symbols *s, uint64_t tid);

/* Appends the text of one value of an ENTER/LEAVE record (ct_next_value's
 * bytes and status) as the text log shows it: p's formatting for
 * CT_VALUE_PLAN ("<damaged>" without a plan), "<n bytes ..>" for a RANGE,
 * "<too large>", "<unavailable>", or the address of an unread byref. Object
 * values are named with the CLASS records seen so far. */
void ct_symbols_value_text(ct_symbols *s, const ct_plan *p, const uint8_t *v, uint32_t len,
                           ct_value_status st, ct_text *out);

/* Appends the text of the return value of fn's LEAVE record ("{X=1.5,
 * Y=3}", or "?" when the record does not carry exactly one value) and
 * returns 1; returns 0 and appends nothing when fn shows no return value
 * (void, or its values are not captured). */
int ct_symbols_return_text(ct_symbols *s, const ct_function *fn, const ct_rec *leave,
                           ct_text *out);
/* Appends "  name=value" for each out, ref or in parameter a LEAVE record
 * carries again (after the return value): its target as the call returns.
 * Returns how many were written. */
int ct_symbols_out_text(ct_symbols *s, const ct_function *fn, const ct_rec *leave, ct_text *out);

/* Appends the exception an UNWIND record carries (ct_unwind_chain), as the
 * text log shows it after "exception ": its class as a CLASS record names it
 * ("System.InvalidOperationException"; "?" when none did), then, when its
 * message was read and is not null, ": " and the message as a string value
 * is shown ("\"the message\""); an AggregateException's message is .NET's
 * Message, built from its own and its inner exceptions' ("\"batch failed
 * (bad a) (bad b)\""; "..." after it when a piece is not in the record).
 * Then its inner exceptions (traces of 2.6), each shown the same way:
 * " <- " and the InnerException, " <- (A, B)" for an AggregateException's
 * InnerExceptions (", +N more" for those the record left out), " <- ..."
 * for an InnerException left out, " <- <damaged>" when the record's chain
 * is damaged. Returns 1; returns 0 and appends nothing when the record
 * carries no exception (traces of 2.2 and before, an exception the profiler
 * could not describe). */
int ct_symbols_exception_text(ct_symbols *s, const ct_rec *unwind, ct_text *out);

/* The id of the async call a LEAVE of fn carries (CT_FN_ASYNC: its last
 * value, one more than its return value and out values; a runtime-async
 * method returning a Task has no return value), or 0: the call ended as it
 * returned. */
uint64_t ct_symbols_async_id(const ct_function *fn, const ct_rec *leave);
/* Appends the result an ASYNC_RETURN record carries (its task's class's
 * content plan reads it: the Task form's Result; a runtime-async call's,
 * class 0, by the return plan of its function fn, when known) and returns
 * 1; returns 0 and appends nothing when it carries none (a Task without a
 * result, a class whose content was not recorded, fn not known). */
int ct_symbols_async_result_text(ct_symbols *s, const ct_function *fn, const ct_rec *ret,
                                 ct_text *out);

#endif
