/* The trace reader and the value formatter on arbitrary files: every record
 * is read with bounds checks; every ENTER/LEAVE value is formatted with the
 * plans of the most recent FUNCTION record, as `clrtrace replay` would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrtrace/event.h"

static uint8_t arena_mem[1 << 20];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ct_rarena a = { arena_mem, sizeof arena_mem, 0 };
    ct_reader r;
    if (ct_reader_open(&r, data, size, &a) != CT_TRACE_OK) {
        if (r.error_offset > size)
            abort();
        return 0;
    }
    ct_rec rec, fn;
    int have_fn = 0;
    char text[4096];
    int st;
    while ((st = ct_reader_next(&r, &rec)) == 1) {
        if (rec.offset >= size)
            abort();
        if (rec.type == CT_REC_FUNCTION) {
            fn = rec;
            have_fn = 1;
        } else if (have_fn && (rec.type == CT_REC_ENTER || rec.type == CT_REC_LEAVE)) {
            size_t pos = 0;
            const uint8_t *v;
            uint32_t vl;
            uint32_t i = 0;
            while (ct_next_value(&rec, &pos, &v, &vl) == 1) {
                const ct_plan *p = rec.type == CT_REC_LEAVE ? fn.ret.plan
                                   : i < fn.nparams ? fn.params[i].plan : NULL;
                i++;
                if (!p)
                    continue;
                ct_text t;
                ct_text_init(&t, text, sizeof text);
                size_t used = ct_format_value(p, v, vl, NULL, NULL, &t);
                if (used > vl || strlen(text) >= sizeof text)
                    abort();
            }
        }
    }
    if (st < 0 && r.error_offset >= size)
        abort();
    return 0;
}
