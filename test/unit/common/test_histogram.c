/*
 * test_histogram.c
 *		Unit tests of the one histogram definition (common/histogram.h):
 *		the bucket edges of both layouts, every bucket's bounds against its
 *		bucket function, and the bounds shown in microseconds. Runs without
 *		a server under ASan+UBSan (extension/test.mk, test/suites/44-ext-unit).
 *		Prints one PASS/FAIL line per test; exits non-zero on any failure.
 */
#include <stdio.h>

#include "common/histogram.h"

static int	hist_failures = 0;

#define CHECK(cond) \
	do { if (!(cond)) { printf("  check failed at line %d: %s\n", __LINE__, #cond); ok = 0; } } while (0)

static void
hist_report(const char *name, int ok)
{
	printf("%s %s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": see checks above");
	if (!ok)
		hist_failures++;
}

/* Edges of the 32-bucket ns layout. */
static void
test_ns_edges(void)
{
	int			ok = 1;

	CHECK(pgwt_hist_ns_bucket(0) == 0);
	CHECK(pgwt_hist_ns_bucket(999) == 0);
	CHECK(pgwt_hist_ns_bucket(1023) == 0);
	CHECK(pgwt_hist_ns_bucket(1024) == 1);
	CHECK(pgwt_hist_ns_bucket(2047) == 1);
	CHECK(pgwt_hist_ns_bucket(2048) == 2);
	/* a 200 ms sleep is in [2^27, 2^28) ns */
	CHECK(pgwt_hist_ns_bucket(200000000) == 18);
	CHECK(pgwt_hist_ns_bucket((UINT64_C(1) << 40) - 1) == 30);
	CHECK(pgwt_hist_ns_bucket(UINT64_C(1) << 40) == 31);
	CHECK(pgwt_hist_ns_bucket(UINT64_MAX) == 31);
	hist_report("histogram-ns-edges", ok);
}

/* Edges of the 16-bucket us layout. */
static void
test_us_edges(void)
{
	int			ok = 1;

	CHECK(pgwt_hist_us_bucket(0) == 0);
	CHECK(pgwt_hist_us_bucket(999) == 0);
	CHECK(pgwt_hist_us_bucket(1000) == 1);
	CHECK(pgwt_hist_us_bucket(1999) == 1);
	CHECK(pgwt_hist_us_bucket(2000) == 2);
	CHECK(pgwt_hist_us_bucket(1023999) == 10);
	CHECK(pgwt_hist_us_bucket(1024000) == 11);
	CHECK(pgwt_hist_us_bucket(16383999) == 14);
	CHECK(pgwt_hist_us_bucket(16384000) == 15);
	CHECK(pgwt_hist_us_bucket(UINT64_MAX) == 15);
	hist_report("histogram-us-edges", ok);
}

/*
 * For every bucket of a layout: its lower bound and the last ns below its
 * upper bound fall in it, the upper bound starts the next bucket, the
 * buckets tile [0, unbounded) without gap, and the microsecond display
 * agrees with the ns bounds.
 */
static void
check_layout(pgwt_hist_layout layout, const char *name)
{
	int			ok = 1;
	unsigned	n = pgwt_hist_nbuckets(layout);
	uint64_t	prev_hi = 0;

	for (unsigned b = 0; b < n; b++)
	{
		uint64_t	lo,
					hi;
		double		lo_us,
					hi_us;
		bool		bounded;
		unsigned	(*bucket) (uint64_t) =
			layout == PGWT_HIST_LAYOUT_NS ? pgwt_hist_ns_bucket : pgwt_hist_us_bucket;

		if (layout == PGWT_HIST_LAYOUT_NS)
			pgwt_hist_ns_bounds(b, &lo, &hi);
		else
			pgwt_hist_us_bounds(b, &lo, &hi);
		CHECK(lo == prev_hi);
		CHECK(lo < hi);
		CHECK(bucket(lo) == b);
		CHECK((hi == PGWT_HIST_UNBOUNDED) == (b == n - 1));
		if (hi != PGWT_HIST_UNBOUNDED)
		{
			CHECK(bucket(hi - 1) == b);
			CHECK(bucket(hi) == b + 1);
		}
		else
			CHECK(bucket(UINT64_MAX) == b);
		if (lo > 0)
			CHECK(bucket(lo - 1) == b - 1);
		bounded = pgwt_hist_bounds_us(layout, b, &lo_us, &hi_us);
		CHECK(bounded == (hi != PGWT_HIST_UNBOUNDED));
		CHECK(lo_us == (double) lo / 1e3);
		CHECK(bounded ? hi_us == (double) hi / 1e3 : hi_us == 0);
		prev_hi = hi;
	}
	CHECK(prev_hi == PGWT_HIST_UNBOUNDED);
	hist_report(name, ok);
}

/* Every power of two and its neighbours land in the bucket whose bounds hold them. */
static void
test_sweep(void)
{
	int			ok = 1;

	for (int s = 0; s < 64; s++)
		for (int d = -1; d <= 1; d++)
		{
			uint64_t	ns = (UINT64_C(1) << s) + (uint64_t) (int64_t) d;
			uint64_t	lo,
						hi;

			pgwt_hist_ns_bounds(pgwt_hist_ns_bucket(ns), &lo, &hi);
			CHECK(lo <= ns && (hi == PGWT_HIST_UNBOUNDED || ns < hi));
			pgwt_hist_us_bounds(pgwt_hist_us_bucket(ns), &lo, &hi);
			CHECK(lo <= ns && (hi == PGWT_HIST_UNBOUNDED || ns < hi));
		}
	hist_report("histogram-sweep", ok);
}

int
main(void)
{
	test_ns_edges();
	test_us_edges();
	check_layout(PGWT_HIST_LAYOUT_NS, "histogram-ns-bounds");
	check_layout(PGWT_HIST_LAYOUT_US, "histogram-us-bounds");
	test_sweep();
	return hist_failures ? 1 : 0;
}
