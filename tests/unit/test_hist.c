/* Durations in log buckets (src/views/hist.h): each bucket's bounds by
 * hand, every value in its bucket, and quantiles within the documented
 * bound of the exact ones (the value of rank ceil(q * n) in sorted order),
 * on values spread over every power of two. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "views/hist.h"

static void test_buckets(void **state)
{
    (void)state;
    uint64_t lo, hi;
    /* 0..15: one value each. */
    for (uint64_t v = 0; v < 16; v++) {
        assert_int_equal(ct_hist_bucket(v), v);
        ct_hist_bounds((uint32_t)v, &lo, &hi);
        assert_true(lo == v && hi == v);
    }
    /* 16..31: one each still (width 2^(4-4) = 1); 32..63: two each. */
    assert_int_equal(ct_hist_bucket(16), 16);
    assert_int_equal(ct_hist_bucket(31), 31);
    assert_int_equal(ct_hist_bucket(32), 32);
    assert_int_equal(ct_hist_bucket(33), 32);
    assert_int_equal(ct_hist_bucket(34), 33);
    ct_hist_bounds(32, &lo, &hi);
    assert_true(lo == 32 && hi == 33);
    /* 1 ms = 1000000 ns: 2^19 <= v < 2^20, sub-bucket (v >> 15) & 15 = 14. */
    assert_int_equal(ct_hist_bucket(1000000), 16 + 15 * 16 + 14);
    ct_hist_bounds(16 + 15 * 16 + 14, &lo, &hi);
    assert_true(lo == 30u << 15 && hi == (31u << 15) - 1);
    /* The last bucket ends at UINT64_MAX. */
    assert_int_equal(ct_hist_bucket(UINT64_MAX), CT_HIST_BUCKETS - 1);
    ct_hist_bounds(CT_HIST_BUCKETS - 1, &lo, &hi);
    assert_true(hi == UINT64_MAX && lo == 31ull << 59);
    /* Every bucket is at most 1/16 of its lower bound wide, and the next
     * one begins where it ends. */
    for (uint32_t i = 0; i + 1 < CT_HIST_BUCKETS; i++) {
        uint64_t l2, h2;
        ct_hist_bounds(i, &lo, &hi);
        ct_hist_bounds(i + 1, &l2, &h2);
        assert_true(l2 == hi + 1);
        assert_true(i < 16 || hi - lo + 1 <= lo / 16);
        assert_int_equal(ct_hist_bucket(lo), i);
        assert_int_equal(ct_hist_bucket(hi), i);
    }
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_quantiles(void **state)
{
    (void)state;
    ct_hist h = {0};
    assert_int_equal(ct_hist_quantile(&h, 0.5), 0);
    /* 100 values by hand: 50 of 5 ms, 40 of 40 ms, 10 of 200 ms. P50 is the
     * 50th: 5 ms; P90 the 90th: 40 ms; P99 the 99th: 200 ms (each within
     * 3.125 %). */
    for (int i = 0; i < 50; i++)
        assert_int_equal(ct_hist_add(&h, 5000000), 0);
    for (int i = 0; i < 40; i++)
        ct_hist_add(&h, 40000000);
    for (int i = 0; i < 10; i++)
        ct_hist_add(&h, 200000000);
    uint64_t p50 = ct_hist_quantile(&h, 0.50), p90 = ct_hist_quantile(&h, 0.90);
    uint64_t p99 = ct_hist_quantile(&h, 0.99), p100 = ct_hist_quantile(&h, 1.0);
    assert_in_range(p50, 5000000 - 5000000 / 32, 5000000 + 5000000 / 32);
    assert_in_range(p90, 40000000 - 40000000 / 32, 40000000 + 40000000 / 32);
    assert_in_range(p99, 200000000 - 200000000 / 32, 200000000);
    assert_int_equal(p100, 200000000); /* never above the greatest */
    assert_int_equal(ct_hist_quantile(&h, 0.0001), 5000000); /* nor below the least */
    ct_hist_free(&h);

    /* Values spread over every power of two: each quantile within 1/32 of
     * the exact one. */
    enum { N = 20000 };
    uint64_t *v = malloc(N * sizeof *v);
    assert_non_null(v);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = x >> (x % 64); /* 0 to 2^64 - 1, every magnitude */
        assert_int_equal(ct_hist_add(&h, v[i]), 0);
    }
    qsort(v, N, sizeof *v, by_value);
    static const double qs[] = {0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0};
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        uint64_t rank = (uint64_t)(qs[k] * N);
        if ((double)rank < qs[k] * N)
            rank++;
        uint64_t exact = v[rank - 1], got = ct_hist_quantile(&h, qs[k]);
        uint64_t diff = got > exact ? got - exact : exact - got;
        if (diff > exact / 32)
            fail_msg("q %.3f: %llu against %llu", qs[k], (unsigned long long)got,
                     (unsigned long long)exact);
    }
    assert_int_equal(h.n, N);
    free(v);
    ct_hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buckets),
        cmocka_unit_test(test_quantiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
