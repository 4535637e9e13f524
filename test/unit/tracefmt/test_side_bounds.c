/*
 * test_side_bounds.c
 *		The pure bounds of side files (tracefmt/side_bounds.c): the bound
 *		derived from a directory's cap, which lines a cut keeps, and the
 *		fixed-size set of query ids a writer already wrote into a file.
 */
#include <stdbool.h>

#include "tf_test.h"

static void
test_side_bound(void)
{
	CHECK(pgwt_tf_side_bound(0) == PGWT_TF_SIDE_MAX_DEFAULT);
	/* --retention-gb 0.005: an eighth of 5,368,709 bytes */
	CHECK(pgwt_tf_side_bound(5368709) == 5368709 / 8);
	CHECK(pgwt_tf_side_bound(1) == PGWT_TF_SIDE_MAX_FLOOR);
	CHECK(pgwt_tf_side_bound(1ull << 40) == PGWT_TF_SIDE_MAX_DEFAULT);
	/* four side files stay within half the cap above the floor */
	CHECK(4 * pgwt_tf_side_bound(80ull << 20) <= (80ull << 20) / 2);
}

static void
test_side_trim(void)
{
	size_t		len[6] = {10, 5, 5, 5, 5, 5};
	bool		keep[6];

	/* the magic line and the newest lines that fit with it */
	CHECK(pgwt_tf_side_trim(len, 6, true, 20, keep) == 3);
	CHECK(keep[0] && !keep[1] && !keep[2] && !keep[3] && keep[4] && keep[5]);
	/* everything fits: nothing goes */
	CHECK(pgwt_tf_side_trim(len, 6, true, 35, keep) == 0);
	CHECK(keep[0] && keep[1] && keep[5]);
	/* no magic line to keep (blockers.tsv) */
	CHECK(pgwt_tf_side_trim(len, 6, false, 12, keep) == 4);
	CHECK(!keep[0] && !keep[3] && keep[4] && keep[5]);
	/* a newer line that does not fit ends the kept run: no gaps */
	{
		size_t		l2[4] = {1, 2, 50, 3};
		bool		k2[4];

		CHECK(pgwt_tf_side_trim(l2, 4, true, 10, k2) == 2);
		CHECK(k2[0] && !k2[1] && !k2[2] && k2[3]);
	}
	CHECK(pgwt_tf_side_trim(len, 0, true, 10, keep) == 0);
}

static void
test_query_seen_basics(void)
{
	pgwt_tf_query_seen *s = calloc(1, sizeof(*s));

	CHECK(s != NULL);
	CHECK(!pgwt_tf_query_seen_add(s, 0) && !pgwt_tf_query_seen_add(s, 0));
	CHECK(!pgwt_tf_query_seen_add(s, 42));
	CHECK(pgwt_tf_query_seen_add(s, 42));
	CHECK(!pgwt_tf_query_seen_add(s, UINT64_MAX));
	CHECK(pgwt_tf_query_seen_add(s, UINT64_MAX));
	pgwt_tf_query_seen_reset(s);
	CHECK(!pgwt_tf_query_seen_add(s, 42));
	free(s);
}

/*
 * The case that rewrote every text each second: far more distinct ids in
 * one file than the set holds (100,000), while 100 backends keep showing
 * their current statements. Each active id is written once; only the
 * stream of new ids costs lines, one per id.
 */
static void
test_query_seen_active_ids_written_once(void)
{
	pgwt_tf_query_seen *s = calloc(1, sizeof(*s));
	uint64_t	rng = 0x1234567;
	uint64_t	active[100];
	uint64_t	writes_active = 0,
				writes_new = 0;
	int			sec,
				i;

	CHECK(s != NULL);
	for (i = 0; i < 100; i++)
		active[i] = tft_rand(&rng) | 1;
	for (sec = 0; sec < 1000; sec++)
	{
		/* 100 new distinct ids a second (100,000 in all) */
		for (i = 0; i < 100; i++)
			writes_new += !pgwt_tf_query_seen_add(s, tft_rand(&rng) | 1);
		/* then every backend's current id, as a read of pg_stat_activity */
		for (i = 0; i < 100; i++)
			writes_active += !pgwt_tf_query_seen_add(s, active[i]);
	}
	CHECKF(writes_active == 100, "active ids written %llu times",
		   (unsigned long long) writes_active);
	CHECK(writes_new == 100000);
	CHECK(s->evicted >= 100000 - PGWT_TF_QUERY_SEEN_SETS * PGWT_TF_QUERY_SEEN_WAYS);
	free(s);
}

/* The set never grows: its size is fixed, whatever comes. */
static void
test_query_seen_fixed_size(void)
{
	CHECK(sizeof(pgwt_tf_query_seen) <
		  (size_t) PGWT_TF_QUERY_SEEN_SETS * PGWT_TF_QUERY_SEEN_WAYS * 12 + 64);
}

int
main(void)
{
	RUN(test_side_bound);
	RUN(test_side_trim);
	RUN(test_query_seen_basics);
	RUN(test_query_seen_active_ids_written_once);
	RUN(test_query_seen_fixed_size);
	return TFT_END();
}
