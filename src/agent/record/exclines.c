/* --srcline: the source line each traced frame was at when an exception
 * left it. Where the exception is thrown (ExceptionThrown), one stack walk
 * of the thread (DoStackSnapshot) finds the traced frames on it, innermost
 * first; each frame's return address (less one: inside its call) is mapped
 * to an IL offset (GetILToNativeMapping3 over the code version that holds
 * it) and that to a line (model/srcline.c, the module's Portable PDB).
 * Each UNWIND of such a frame is then preceded by a LINE record; the first
 * traced frame's says the exception came out of it ("thrown at"). */
#include "internal.h"

#include <stdlib.h>

#include "agent/writer/writer.h"
#include "agent/model/modules.h"
#include "agent/model/registry.h"
#include "agent/model/srcline.h"

/* Code versions of one method looked at (tiers, ReJIT) and ranges of one
 * version; a native-to-IL map of more entries is read into the heap. */
#define EXC_CODE_VERSIONS 8
#define EXC_CODE_RANGES 4
#define EXC_IL_MAP_STACK 256

/* The IL offset of the call (or instruction) at return address ip of
 * function fid: 0, or -1 when the runtime does not say. */
static int il_offset_at(FunctionID fid, UINT_PTR ip, uint32_t *il)
{
    ICorProfilerInfo *info = g_ct.info;
    FunctionID owner = 0;
    ReJITID rejit = 0;
    if (FAILED(info->lpVtbl->GetFunctionFromIP3(info, (const BYTE *)ip, &owner, &rejit)))
        rejit = 0;
    UINT_PTR starts[EXC_CODE_VERSIONS];
    ULONG32 nstarts = 0;
    if (FAILED(info->lpVtbl->GetNativeCodeStartAddresses(info, fid, rejit, EXC_CODE_VERSIONS,
                                                          &nstarts, starts)))
        return -1;
    UINT_PTR start = 0;
    for (ULONG32 i = 0; i < nstarts && i < EXC_CODE_VERSIONS && !start; i++) {
        COR_PRF_CODE_INFO ranges[EXC_CODE_RANGES];
        ULONG32 nr = 0;
        if (FAILED(info->lpVtbl->GetCodeInfo4(info, starts[i], EXC_CODE_RANGES, &nr, ranges)))
            continue;
        /* The map's offsets count from the start: the first (hot) range. */
        if (nr && ip > ranges[0].startAddress && ip - ranges[0].startAddress <= ranges[0].size)
            start = starts[i];
    }
    if (!start)
        return -1;
    COR_DEBUG_IL_TO_NATIVE_MAP stack_map[EXC_IL_MAP_STACK], *map = stack_map;
    ULONG32 n = 0;
    if (FAILED(info->lpVtbl->GetILToNativeMapping3(info, start, EXC_IL_MAP_STACK, &n, map)))
        return -1;
    if (n > EXC_IL_MAP_STACK) {
        ULONG32 cap = n;
        if (!(map = malloc((size_t)cap * sizeof *map)) ||
            FAILED(info->lpVtbl->GetILToNativeMapping3(info, start, cap, &n, map)) || n > cap) {
            free(map);
            return -1;
        }
    }
    uint32_t off = (uint32_t)(ip - 1 - start);
    int rc = -1;
    for (ULONG32 k = 0; k < n; k++) {
        if (off >= map[k].nativeStartOffset && off < map[k].nativeEndOffset &&
            (int32_t)map[k].ilOffset >= 0) {
            *il = map[k].ilOffset;
            rc = 0;
            break;
        }
    }
    if (map != stack_map)
        free(map);
    return rc;
}

/* The stack walk's state: the traced frames found, innermost first (their
 * lines are looked up once the walk is over, outside the runtime's walk). */
typedef struct walk {
    uint32_t n;
    struct {
        const ct_mapped_fn *f;
        FunctionID fid;
        UINT_PTR ip;
    } frames[CT_EXC_LINES];
} walk;

static HRESULT on_frame(FunctionID fid, UINT_PTR ip, COR_PRF_FRAME_INFO frame, ULONG32 context_size,
                        BYTE context[], void *data)
{
    (void)frame, (void)context_size, (void)context;
    walk *w = data;
    const ct_mapped_fn *f = fid ? ct_registry_find(fid) : NULL;
    if (!f || !f->hooked)
        return S_OK;
    w->frames[w->n].f = f;
    w->frames[w->n].fid = fid;
    w->frames[w->n].ip = ip;
    return ++w->n < CT_EXC_LINES ? S_OK : S_FALSE;
}

void ct_rec_exc_lines_read(ct_tbuf *b, uint32_t serial, uint64_t obj)
{
    ct_rec_thread *t = ct_rec_of(b);
    t->nexc_lines = 0;
    t->exc_lines_next = 0;
    t->exc_lines_serial = serial;
    t->exc_lines_obj = obj;
    walk w;
    w.n = 0;
    ICorProfilerInfo *info = g_ct.info;
    if (FAILED(info->lpVtbl->DoStackSnapshot(info, 0, on_frame, 0, &w, NULL, 0)) && !w.n)
        return;
    for (uint32_t i = 0; i < w.n; i++) {
        /* The method the frame runs (an async method's record may be
         * planned from its stub, while its frame is its MoveNext). */
        ClassID cls = 0;
        ModuleID mod = 0;
        mdToken tok = 0;
        uint32_t il, line;
        if (FAILED(info->lpVtbl->GetFunctionInfo(info, w.frames[i].fid, &cls, &mod, &tok)) ||
            il_offset_at(w.frames[i].fid, w.frames[i].ip, &il) != 0 ||
            ct_srcline_at(ct_module_get(mod), tok, il, &line) != 0)
            continue;
        t->exc_lines[t->nexc_lines].key = (uint64_t)(uintptr_t)w.frames[i].f;
        t->exc_lines[t->nexc_lines].line = line;
        t->exc_lines[t->nexc_lines].flags = i == 0 ? CT_LINE_THROWN : 0;
        t->nexc_lines++;
    }
}

void ct_rec_line_event(ct_tbuf *b, uint64_t now, uint64_t key, uint32_t serial)
{
    ct_rec_thread *t = ct_rec_of(b);
    if (t->exc_lines_serial != serial)
        return;
    for (uint32_t i = t->exc_lines_next; i < t->nexc_lines; i++) {
        if (t->exc_lines[i].key != key)
            continue;
        uint8_t *p = ct_ring_reserve(&b->ring, CT_LINE_RING_BYTES);
        if (!p) {
            ct_tbuf_count_drop(b, 1);
            return;
        }
        ct_event_put_header(p, CT_REC_LINE, now, ct_rec_held(b), b->tid, key);
        ct_event_put_counts(p, 0, CT_LINE_RING_BYTES - 8);
        ct_put_le32(p + CT_EVENT_BASE_BYTES, t->exc_lines[i].line);
        ct_put_le32(p + CT_EVENT_BASE_BYTES + 4, t->exc_lines[i].flags);
        ct_ring_commit(&b->ring, CT_LINE_RING_BYTES);
        t->exc_lines_next = i + 1;
        return;
    }
}
