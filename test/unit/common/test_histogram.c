/*
 * test_histogram.c
 *		Unit tests of the one histogram definition (common/histogram.h):
 *		the bucket edges of its layout (and of the summary file's coarse
 *		us field, tracefmt/summary_us.h), every bucket's bounds against its
 *		bucket function, the bounds shown in microseconds, and percentiles. Runs without
 *		a server under ASan+UBSan (extension/test.mk, test/suites/44-ext-unit).
 *		Prints one PASS/FAIL line per test; exits non-zero on any failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/histogram.h"
#include "tracefmt/summary_us.h"

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

/* Edges of the summary file's 16 us buckets. */
static void
test_us_edges(void)
{
	int			ok = 1;

	CHECK(pgwt_tf_us_bucket(0) == 0);
	CHECK(pgwt_tf_us_bucket(999) == 0);
	CHECK(pgwt_tf_us_bucket(1000) == 1);
	CHECK(pgwt_tf_us_bucket(1999) == 1);
	CHECK(pgwt_tf_us_bucket(2000) == 2);
	CHECK(pgwt_tf_us_bucket(1023999) == 10);
	CHECK(pgwt_tf_us_bucket(1024000) == 11);
	CHECK(pgwt_tf_us_bucket(16383999) == 14);
	CHECK(pgwt_tf_us_bucket(16384000) == 15);
	CHECK(pgwt_tf_us_bucket(UINT64_MAX) == 15);
	hist_report("histogram-us-edges", ok);
}

/*
 * For every bucket of a layout: its lower bound and the last ns below its
 * upper bound fall in it, the upper bound starts the next bucket, the
 * buckets tile [0, unbounded) without gap, and the microsecond display
 * agrees with the ns bounds.
 */
static void
check_layout(bool ns_layout, const char *name)
{
	int			ok = 1;
	unsigned	n = ns_layout ? PGWT_HIST_NS_BUCKETS : PGWT_TF_US_BUCKETS;
	uint64_t	prev_hi = 0;

	for (unsigned b = 0; b < n; b++)
	{
		uint64_t	lo,
					hi;
		double		lo_us,
					hi_us;
		bool		bounded;
		unsigned	(*bucket) (uint64_t) =
			ns_layout ? pgwt_hist_ns_bucket : pgwt_tf_us_bucket;

		if (ns_layout)
			pgwt_hist_ns_bounds(b, &lo, &hi);
		else
			pgwt_tf_us_bounds(b, &lo, &hi);
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
		if (ns_layout)
		{
			bounded = pgwt_hist_bounds_us(b, &lo_us, &hi_us);
			CHECK(bounded == (hi != PGWT_HIST_UNBOUNDED));
			CHECK(lo_us == (double) lo / 1e3);
			CHECK(bounded ? hi_us == (double) hi / 1e3 : hi_us == 0);
		}
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
			pgwt_tf_us_bounds(pgwt_tf_us_bucket(ns), &lo, &hi);
			CHECK(lo <= ns && (hi == PGWT_HIST_UNBOUNDED || ns < hi));
		}
	hist_report("histogram-sweep", ok);
}

/* Known truth: ten waits of 200 ms and one of 1.5 s. */
static void
test_quantile_known(void)
{
	int			ok = 1;
	uint64_t	ns[PGWT_HIST_NS_BUCKETS] = {0};
	pgwt_hist_pct p;

	for (int i = 0; i < 10; i++)
		ns[pgwt_hist_ns_bucket(200000000)]++;
	ns[pgwt_hist_ns_bucket(1500000000)]++;
	/* p50 in 200 ms's bucket, and within it; clamped by min and max */
	CHECK(pgwt_hist_quantile(ns, 0.5, 200000000, 1500000000, &p));
	CHECK(p.lo_ns == 200000000 && p.hi_ns == UINT64_C(1) << 28);
	CHECK(p.est_ns >= p.lo_ns && p.est_ns < p.hi_ns);
	/* p100 is the largest wait's bucket, cut at the known max */
	CHECK(pgwt_hist_quantile(ns, 1.0, 200000000, 1500000000, &p));
	CHECK(p.lo_ns == UINT64_C(1) << 30 && p.hi_ns == 1500000001);
	CHECK(p.est_ns <= 1500000000 && p.est_ns >= UINT64_C(1) << 30);
	/* p95 and p99: the 11th of 11 waits (ceil(10.45)), the largest: exact */
	CHECK(pgwt_hist_quantile(ns, 0.95, 0, 1500000000, &p));
	CHECK(p.est_ns == 1500000000);
	CHECK(pgwt_hist_quantile(ns, 0.99, 0, 1500000000, &p));
	CHECK(p.est_ns == 1500000000);
	/* p95 with no max known: only the bucket */
	CHECK(pgwt_hist_quantile(ns, 0.95, 0, 0, &p));
	CHECK(p.lo_ns == UINT64_C(1) << 30 && p.hi_ns == UINT64_C(1) << 31);
	/* with no min known, p50 still lies in 200 ms's bucket [2^27, 2^28) */
	CHECK(pgwt_hist_quantile(ns, 0.5, 0, 1500000000, &p));
	CHECK(p.lo_ns == UINT64_C(1) << 27 && p.hi_ns == UINT64_C(1) << 28);
	CHECK(p.est_ns >= p.lo_ns && p.est_ns < p.hi_ns);
	/* the open top bucket has no upper bound: the max gives one */
	memset(ns, 0, sizeof(ns));
	ns[PGWT_HIST_NS_BUCKETS - 1] = 2;
	CHECK(pgwt_hist_quantile(ns, 0.5, 0, UINT64_C(3) << 40, &p));
	CHECK(p.lo_ns == UINT64_C(1) << 40 && p.hi_ns == (UINT64_C(3) << 40) + 1);
	CHECK(pgwt_hist_quantile(ns, 0.5, 0, 0, &p));
	CHECK(p.hi_ns == PGWT_HIST_UNBOUNDED && p.est_ns >= p.lo_ns);
	/* nothing counted, or q out of range: no answer */
	memset(ns, 0, sizeof(ns));
	CHECK(!pgwt_hist_quantile(ns, 0.5, 0, 0, &p));
	ns[3] = 1;
	CHECK(!pgwt_hist_quantile(ns, 0.0, 0, 0, &p));
	CHECK(!pgwt_hist_quantile(ns, 1.5, 0, 0, &p));
	hist_report("histogram-quantile-known-truth", ok);
}

/*
 * Identical waits: 1,000 waits of 1 ms give exactly 1 ms at every
 * percentile once the row's minimum and maximum are known (without them
 * the interpolation inside [2^19, 2^20) ns lands below 1 ms). Waits of two
 * values in one bucket stay inside [min, max].
 */
static void
test_quantile_identical(void)
{
	int			ok = 1;
	uint64_t	ns[PGWT_HIST_NS_BUCKETS] = {0};
	pgwt_hist_pct p;

	ns[pgwt_hist_ns_bucket(1000000)] = 1000;
	for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
	{
		CHECK(pgwt_hist_quantile(ns, pgwt_hist_pct_q(i), 1000000, 1000000, &p));
		CHECK(p.est_ns == 1000000 && p.lo_ns == 1000000 && p.hi_ns == 1000001);
	}
	CHECK(pgwt_hist_quantile(ns, 0.5, 0, 0, &p));
	CHECK(p.est_ns != 1000000 && p.lo_ns == UINT64_C(1) << 19);
	/* a zero-length wait: min 0 is no cut, and the answer is still max's */
	memset(ns, 0, sizeof(ns));
	ns[0] = 5;
	CHECK(pgwt_hist_quantile(ns, 0.5, 0, 0, &p) && p.est_ns < 1024);
	CHECK(pgwt_hist_quantile(ns, 0.5, 0, 1, &p) && p.est_ns <= 1);
	/* 500 waits of 600 us and 500 of 900 us: one bucket, cut to [600, 900] us */
	memset(ns, 0, sizeof(ns));
	ns[pgwt_hist_ns_bucket(600000)] = 1000;
	for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
	{
		CHECK(pgwt_hist_quantile(ns, pgwt_hist_pct_q(i), 600000, 900000, &p));
		CHECK(p.est_ns >= 600000 && p.est_ns <= 900000);
	}
	/* the open top bucket, every wait 2^41 ns */
	memset(ns, 0, sizeof(ns));
	ns[PGWT_HIST_NS_BUCKETS - 1] = 3;
	CHECK(pgwt_hist_quantile(ns, 0.5, UINT64_C(1) << 41, UINT64_C(1) << 41, &p));
	CHECK(p.est_ns == UINT64_C(1) << 41);
	hist_report("histogram-quantile-identical-waits", ok);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * 100,000 log-normal waits (median 2 ms, sigma 1.5 in e-units, a fixed
 * seed): p50, p95, p99 each in the true quantile's bucket, and the
 * estimate within one bucket of the truth.
 */
static void
test_quantile_lognormal(void)
{
	enum
	{
		N = 100000
	};
	int			ok = 1;
	uint64_t   *d = malloc(N * sizeof(uint64_t));
	uint64_t	ns[PGWT_HIST_NS_BUCKETS] = {0};
	uint64_t	s = 0x9E3779B97F4A7C15u;
	const double qs[] = {0.5, 0.95, 0.99};

	for (int i = 0; i < N; i++)
	{
		double		u1,
					u2,
					z;

		/* xorshift64*, then Box-Muller */
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		u1 = ((double) ((s * 2685821657736338717u) >> 11) + 1.0) / 9007199254740993.0;
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		u2 = (double) ((s * 2685821657736338717u) >> 11) / 9007199254740992.0;
		z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
		d[i] = (uint64_t) (2e6 * exp(1.5 * z)) + 1;
		ns[pgwt_hist_ns_bucket(d[i])]++;
	}
	qsort(d, N, sizeof(uint64_t), cmp_u64);
	for (unsigned i = 0; i < 3; i++)
	{
		uint64_t	truth = d[(size_t) ceil(qs[i] * N) - 1];
		pgwt_hist_pct p;
		int			bt,
					be;

		CHECK(pgwt_hist_quantile(ns, qs[i], d[0], d[N - 1], &p));
		CHECK(truth >= p.lo_ns && truth < p.hi_ns);
		bt = (int) pgwt_hist_ns_bucket(truth);
		be = (int) pgwt_hist_ns_bucket(p.est_ns);
		CHECK(abs(bt - be) <= 1);
	}
	free(d);
	hist_report("histogram-quantile-lognormal", ok);
}

int
main(void)
{
	test_ns_edges();
	test_us_edges();
	check_layout(true, "histogram-ns-bounds");
	check_layout(false, "histogram-us-bounds");
	test_sweep();
	test_quantile_known();
	test_quantile_identical();
	test_quantile_lognormal();
	return hist_failures ? 1 : 0;
}
