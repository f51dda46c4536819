/* Durations in log buckets, for percentiles and histograms (report --stats,
 * --histogram): HdrHistogram's idea in a fixed size. A value below
 * CT_HIST_SUB is its own bucket; above, each power of two [2^e, 2^(e+1)) is
 * split into CT_HIST_SUB buckets of equal width, so a bucket is at most
 * 1/CT_HIST_SUB of its lower bound wide. A quantile is told as the middle
 * of the bucket the value of that rank is in: it differs from that value by
 * at most 1/(2 * CT_HIST_SUB) of it (3.125 %), and is never outside the
 * values' least and greatest (the first rank is the least, the last the
 * greatest, exactly). The buckets are allocated at the first
 * value (CT_HIST_BUCKETS x 8 bytes). */
#ifndef CLRTRACE_VIEWS_HIST_H
#define CLRTRACE_VIEWS_HIST_H

#include <stdint.h>

#define CT_HIST_SUB 16u
/* Every uint64_t value: the 16 exact ones, then 60 powers of two of 16. */
#define CT_HIST_BUCKETS (CT_HIST_SUB + 60u * CT_HIST_SUB)

typedef struct ct_hist {
    uint64_t n, min, max;
    uint64_t *b;              /* CT_HIST_BUCKETS counts, or NULL before the first */
} ct_hist;

/* Adds value v: 0, or -1 when out of memory (then nothing is counted). */
int ct_hist_add(ct_hist *h, uint64_t v);

/* The value at quantile q (0 < q <= 1: the value of rank ceil(q * n) in
 * sorted order), as the middle of its bucket; 0 when empty. */
uint64_t ct_hist_quantile(const ct_hist *h, double q);

/* The bucket of value v, and bucket i's values [*lo, *hi] (inclusive). */
uint32_t ct_hist_bucket(uint64_t v);
void ct_hist_bounds(uint32_t i, uint64_t *lo, uint64_t *hi);

void ct_hist_free(ct_hist *h);

#endif
