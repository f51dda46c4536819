#include "argmap.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agent/model/perm.h"
#include "agent/model/plans/plans.h"

/* Most arguments a learned map holds; functions with more keep asking. */
#define ARGMAP_MAX_ARGS 64
/* A location: distance from eltInfo (low 16 bits) and length (bits 16-23);
 * LOC_THIS: `this`, read at the first integer register's slot; LOC_FLT0:
 * a float return value, read at the leave frame's rax slot plus
 * FLT0_AFTER_RAX (the runtime saves rax, hiddenArg, then xmm0). */
#define LOC_THIS 0x80000000u
#define LOC_FLT0 0x40000000u
#define FLT0_AFTER_RAX 16
#define DISABLED (-1)

/* A register slot learned from several functions: its distance, how many
 * functions agreed, and whether one disagreed (then it is never used). */
typedef struct slot {
    atomic_int off;
    atomic_int votes;
    atomic_int bad;
} slot;

static slot g_rdi = {-1, 0, 0};      /* enter: first integer argument register */
static slot g_leave_rax = {-1, 0, 0}; /* leave: the integer return register */

static void vote(slot *s, int off)
{
    int expected = -1;
    if (atomic_compare_exchange_strong(&s->off, &expected, off) || expected == off)
        atomic_fetch_add(&s->votes, 1);
    else
        atomic_store(&s->bad, 1);
}

static int slot_get(slot *s)
{
    if (atomic_load(&s->bad) || atomic_load(&s->votes) < CT_ARGMAP_SLOT_VOTES)
        return -1;
    return atomic_load(&s->off);
}

static int is_scalar(const ct_plan *p)
{
    switch (p->kind) {
    case CT_V_BOOL: case CT_V_CHAR: case CT_V_I1: case CT_V_U1: case CT_V_I2: case CT_V_U2:
    case CT_V_I4: case CT_V_U4: case CT_V_I8: case CT_V_U8: case CT_V_I: case CT_V_U:
    case CT_V_R4: case CT_V_R8: case CT_V_STRING: case CT_V_OBJECT: case CT_V_ARRAY:
    case CT_V_ENUM: case CT_V_PTR: case CT_V_BYREF:
        return 1;
    default:
        return 0;
    }
}

static int is_float(const ct_plan *p)
{
    return p->kind == CT_V_R4 || p->kind == CT_V_R8;
}

/* No hidden argument can come first: not generic code (an instantiation
 * argument), no struct returned through a buffer. */
static int plain(const ct_mapped_fn *f)
{
    if (f->late || strchr(f->display, '<'))
        return 0;
    return !f->has_ret || (f->ret && is_scalar(f->ret));
}

void ct_argmap_snap(ct_argmap_snapshot *s, COR_PRF_ELT_INFO elt, uintptr_t stack_hi)
{
    s->elt = (uintptr_t)elt;
    s->len = CT_ARGMAP_WINDOW;
    if (stack_hi > s->elt && stack_hi - s->elt < s->len)
        s->len = stack_hi - s->elt;
    memcpy(s->bytes, (const void *)elt, s->len);
}

/* 1 when the bytes at off in the snapshot are the len bytes at addr now. */
static int snap_has(const ct_argmap_snapshot *s, long off, uintptr_t addr, uint32_t len)
{
    return off >= CT_ARGMAP_MIN_OFFSET && len && (size_t)off + len <= s->len &&
           !memcmp(s->bytes + off, (const void *)addr, len);
}

int ct_argmap_learning_enter(const ct_mapped_fn *f)
{
    if (!CT_ARGMAP_LAYOUT)
        return 0;
    int st = atomic_load_explicit(&((ct_mapped_fn *)f)->enter_map, memory_order_relaxed);
    return st >= 0 && st < CT_ARGMAP_LEARN_CALLS;
}

int ct_argmap_learning_leave(const ct_mapped_fn *f)
{
    if (!CT_ARGMAP_LAYOUT)
        return 0;
    int st = atomic_load_explicit(&((ct_mapped_fn *)f)->leave_map, memory_order_relaxed);
    return st >= 0 && st < CT_ARGMAP_LEARN_CALLS;
}

void ct_argmap_learn_enter(ct_mapped_fn *f, const ct_argmap_snapshot *s,
                           const COR_PRF_FUNCTION_ARGUMENT_INFO *info)
{
    if (!CT_ARGMAP_LAYOUT)
        return;
    uint32_t n = info->numRanges;
    if (n != f->nargs || n > ARGMAP_MAX_ARGS) {
        atomic_store(&f->enter_map, DISABLED);
        return;
    }
    uint32_t locs[ARGMAP_MAX_ARGS];
    int ok = 1, self = ct_fn_has_this(f);
    if (atomic_fetch_add(&f->enter_tries, 1) >= CT_ARGMAP_MAX_TRIES) {
        atomic_store(&f->enter_map, DISABLED);
        return;
    }
    /* The first argument of a plain static function is in the first
     * integer register: where `this` is found, and what places the band of
     * register slots. */
    if (n && !self && plain(f)) {
        const ct_plan *p0 = ct_arg_plan(f, 0);
        uintptr_t a0 = info->ranges[0].startAddress;
        long off0 = (long)(a0 - s->elt);
        if (a0 && is_scalar(p0) && !is_float(p0) && info->ranges[0].length <= 8 &&
            snap_has(s, off0, a0, info->ranges[0].length))
            vote(&g_rdi, (int)off0);
    }
    int rdi = slot_get(&g_rdi);
    if (rdi < 0)
        return; /* not known yet: decide at a later call */
    /* Only the saved argument registers qualify: xmm0-7 then rdi..r9, one
     * 8-byte slot each. A stack argument lies beyond them (and its distance
     * from eltInfo changes when the method is compiled again). */
    long band_lo = rdi - CT_ARGMAP_FLOAT_SLOTS * 8, band_hi = rdi + CT_ARGMAP_INT_SLOTS * 8;
    for (uint32_t i = 0; i < n; i++) {
        const ct_plan *p = ct_arg_plan(f, i);
        uintptr_t addr = info->ranges[i].startAddress;
        uint32_t len = info->ranges[i].length;
        long off = (long)(addr - s->elt);
        if (i == 0 && self) {
            if (len != 8 || !snap_has(s, rdi, addr, 8))
                ok = 0;
            locs[i] = LOC_THIS | 8u << 16;
            continue;
        }
        if (!addr || !is_scalar(p) || len > 8 || off < band_lo || off + len > band_hi ||
            !snap_has(s, off, addr, len)) {
            ok = 0;
            continue;
        }
        locs[i] = (uint32_t)off | len << 16;
    }
    if (!ok) {
        atomic_store(&f->enter_map, DISABLED);
        return;
    }
    uint32_t *mine = NULL, *cur = atomic_load(&f->enter_locs);
    if (!cur) {
        mine = ct_perm_alloc((n ? n : 1) * sizeof *mine);
        if (!mine) {
            atomic_store(&f->enter_map, DISABLED);
            return;
        }
        memcpy(mine, locs, n * sizeof *mine);
        if (atomic_compare_exchange_strong(&f->enter_locs, &cur, mine))
            cur = mine;
    }
    if (memcmp(cur, locs, n * sizeof *locs)) {
        atomic_store(&f->enter_map, DISABLED);
        return;
    }
    int st = atomic_load(&f->enter_map);
    while (st >= 0 && st < CT_ARGMAP_LEARN_CALLS &&
           !atomic_compare_exchange_weak(&f->enter_map, &st, st + 1))
        ;
}

int ct_argmap_enter(const ct_mapped_fn *f, COR_PRF_ELT_INFO elt,
                    COR_PRF_FUNCTION_ARGUMENT_RANGE *ranges)
{
    if (!CT_ARGMAP_LAYOUT)
        return 0;
    if (atomic_load_explicit(&((ct_mapped_fn *)f)->enter_map, memory_order_acquire) !=
        CT_ARGMAP_LEARN_CALLS)
        return 0;
    const uint32_t *locs = atomic_load_explicit(&((ct_mapped_fn *)f)->enter_locs,
                                                memory_order_acquire);
    int rdi = slot_get(&g_rdi);
    for (uint32_t i = 0; i < f->nargs; i++) {
        uint32_t loc = locs[i];
        uint32_t off = loc & LOC_THIS ? (uint32_t)rdi : loc & 0xFFFFu;
        if ((loc & LOC_THIS) && rdi < 0)
            return 0;
        ranges[i].startAddress = (UINT_PTR)elt + off;
        ranges[i].length = (loc >> 16) & 0xFFu;
    }
    return 1;
}

void ct_argmap_learn_leave(ct_mapped_fn *f, const ct_argmap_snapshot *s,
                           const COR_PRF_FUNCTION_ARGUMENT_RANGE *range)
{
    if (!CT_ARGMAP_LAYOUT)
        return;
    const ct_plan *p = ct_arg_plan(f, f->nargs);
    uintptr_t addr = range->startAddress;
    uint32_t len = range->length, loc;
    long off = (long)(addr - s->elt);
    if (!addr || !is_scalar(p) || len > 8) {
        atomic_store(&f->leave_map, DISABLED);
        return;
    }
    if (is_float(p)) {
        /* The runtime copies xmm0 into its rax slot for us: read xmm0's. */
        int rax = slot_get(&g_leave_rax);
        if (rax < 0 || !snap_has(s, rax + FLT0_AFTER_RAX, addr, len)) {
            atomic_store(&f->leave_map, DISABLED);
            return;
        }
        loc = LOC_FLT0 | len << 16;
    } else {
        if (!snap_has(s, off, addr, len)) {
            atomic_store(&f->leave_map, DISABLED);
            return;
        }
        loc = (uint32_t)off | len << 16;
        vote(&g_leave_rax, (int)off);
    }
    unsigned expected = 0;
    if (!atomic_compare_exchange_strong(&f->leave_loc, &expected, loc) && expected != loc) {
        atomic_store(&f->leave_map, DISABLED);
        return;
    }
    int st = atomic_load(&f->leave_map);
    while (st >= 0 && st < CT_ARGMAP_LEARN_CALLS &&
           !atomic_compare_exchange_weak(&f->leave_map, &st, st + 1))
        ;
}

int ct_argmap_leave(const ct_mapped_fn *f, COR_PRF_ELT_INFO elt,
                    COR_PRF_FUNCTION_ARGUMENT_RANGE *range)
{
    if (!CT_ARGMAP_LAYOUT)
        return 0;
    if (atomic_load_explicit(&((ct_mapped_fn *)f)->leave_map, memory_order_acquire) !=
        CT_ARGMAP_LEARN_CALLS)
        return 0;
    uint32_t loc = atomic_load_explicit(&((ct_mapped_fn *)f)->leave_loc, memory_order_relaxed);
    uint32_t off = loc & 0xFFFFu;
    if (loc & LOC_FLT0) {
        int rax = slot_get(&g_leave_rax);
        if (rax < 0)
            return 0;
        off = (uint32_t)rax + FLT0_AFTER_RAX;
    }
    range->startAddress = (UINT_PTR)elt + off;
    range->length = (loc >> 16) & 0xFFu;
    return 1;
}
