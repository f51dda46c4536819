/* Durations in log buckets (hist.h). */
#include "hist.h"

#include <stdlib.h>

/* log2(CT_HIST_SUB): the first power of two split into buckets. */
#define SUB_BITS 4u
_Static_assert((1u << SUB_BITS) == CT_HIST_SUB, "CT_HIST_SUB is a power of two");

uint32_t ct_hist_bucket(uint64_t v)
{
    if (v < CT_HIST_SUB)
        return (uint32_t)v;
    uint32_t e = 63u - (uint32_t)__builtin_clzll(v); /* 2^e <= v, e >= SUB_BITS */
    uint32_t sub = (uint32_t)(v >> (e - SUB_BITS)) & (CT_HIST_SUB - 1);
    return CT_HIST_SUB + (e - SUB_BITS) * CT_HIST_SUB + sub;
}

void ct_hist_bounds(uint32_t i, uint64_t *lo, uint64_t *hi)
{
    if (i < CT_HIST_SUB) {
        *lo = *hi = i;
        return;
    }
    uint32_t k = i - CT_HIST_SUB, e = k / CT_HIST_SUB + SUB_BITS, sub = k % CT_HIST_SUB;
    uint64_t width = 1ull << (e - SUB_BITS);
    *lo = (uint64_t)(CT_HIST_SUB + sub) << (e - SUB_BITS);
    *hi = *lo + (width - 1); /* (the last bucket ends at UINT64_MAX exactly) */
}

int ct_hist_add(ct_hist *h, uint64_t v)
{
    if (!h->b && !(h->b = calloc(CT_HIST_BUCKETS, sizeof *h->b)))
        return -1;
    h->b[ct_hist_bucket(v)]++;
    if (!h->n || v < h->min)
        h->min = v;
    if (!h->n || v > h->max)
        h->max = v;
    h->n++;
    return 0;
}

uint64_t ct_hist_quantile(const ct_hist *h, double q)
{
    if (!h->n || !h->b)
        return 0;
    /* rank ceil(q * n), from 1 to n */
    double want = q * (double)h->n;
    uint64_t rank = want <= 1 ? 1 : want >= (double)h->n ? h->n : (uint64_t)want, seen = 0;
    if (rank < h->n && (double)rank < want)
        rank++;
    /* (the first and the last are known exactly) */
    if (rank == 1)
        return h->min;
    if (rank == h->n)
        return h->max;
    for (uint32_t i = 0; i < CT_HIST_BUCKETS; i++) {
        seen += h->b[i];
        if (seen < rank)
            continue;
        uint64_t lo, hi;
        ct_hist_bounds(i, &lo, &hi);
        uint64_t mid = lo + (hi - lo) / 2;
        return mid < h->min ? h->min : mid > h->max ? h->max : mid;
    }
    return h->max;
}

void ct_hist_free(ct_hist *h)
{
    free(h->b);
    h->b = NULL;
    h->n = 0;
}
