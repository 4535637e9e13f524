/*
 * test_summary_memo.c
 *		The summary reader with a memo (pgwt_tf_sum_memo, summary.h) gives
 *		the frames it gives without one: a directory of three trace files
 *		with their summaries, each holding samples in known seconds, read
 *		over ranges inside, across and between the files, once to fill the
 *		memo and again through it; the one-second frames of each read are
 *		the seconds written in the range (known from the stream, not from a
 *		reader). A file replaced under the same name by one holding other
 *		seconds is read afresh, not skipped by what the memo said of the
 *		old one.
 */
#include <stdio.h>

#include "tf_test.h"
#include "tracefmt/summary.h"

#define SM_SEC	1000000000ull
#define SM_T0	(5000ull * SM_SEC)		/* monotonic start of the first file */
#define SM_RT	(1700000000ull * SM_SEC)

/* file i's samples: seconds [SM_T0/SEC + sm_first[i], + sm_len[i]) */
static const uint64_t sm_first[3] = {0, 400, 1000};
static const uint64_t sm_len[3] = {130, 70, 200};

/* Writes name in dir: 10 Hz samples of two pids over seconds
 * [first, first + len) of the trace clock (offset from SM_T0). */
static int
sm_write(const char *dir, const char *name, uint64_t first, uint64_t len)
{
	char		path[600];
	pgwt_tf_file_opts fo;
	pgwt_tf_file_writer *w;
	int			rc;

	memset(&fo, 0, sizeof(fo));
	fo.pg_version = 150000;
	fo.group_gid = -1;
	fo.clock.realtime_ns = tft_clk_rt;
	fo.clock.monotonic_ns = tft_clk_mono;
	tft_now_mono = SM_T0 + first * SM_SEC;
	tft_now_rt = SM_RT + first * SM_SEC;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((rc = pgwt_tf_file_writer_create(path, &fo, &w)) < 0)
		return rc;
	if ((rc = pgwt_tf_file_writer_set_sample_period(w, SM_SEC / 10)) < 0)
	{
		pgwt_tf_file_writer_abandon(w);
		return rc;
	}
	for (uint64_t s = 0; s < len && rc >= 0; s++)
		for (uint64_t k = 0; k < 10 && rc >= 0; k++)
		{
			uint64_t	ts = SM_T0 + (first + s) * SM_SEC + k * (SM_SEC / 10);
			pgwt_record r1 = tft_sample(ts, 100, 0x0A000001, 7, SM_SEC / 10);
			pgwt_record r2 = tft_sample(ts, 101, 0x06000000, 8, SM_SEC / 10);

			if ((rc = pgwt_tf_file_writer_append(w, &r1)) >= 0)
				rc = pgwt_tf_file_writer_append(w, &r2);
		}
	if (rc < 0)
	{
		pgwt_tf_file_writer_abandon(w);
		return rc;
	}
	return pgwt_tf_file_writer_finish(w);
}

/* One-second frames with sec_ts in [lo, hi] (trace clock ns), read with
 * memo m (or none); -1 on a read error. */
static long
sm_count(const char *dir, uint64_t lo, uint64_t hi, pgwt_tf_sum_memo *m)
{
	pgwt_tf_sum_reader *r;
	const pgwt_tf_second *s;
	long		n = 0;
	int			rc;

	if (pgwt_tf_sum_reader_open(dir, lo, hi, &r) < 0)
		return -1;
	pgwt_tf_sum_reader_set_memo(r, m);
	while ((rc = pgwt_tf_sum_reader_next(r, &s)) == 1)
		n += s->span_ns == SM_SEC;
	pgwt_tf_sum_reader_close(r);
	return rc == 0 ? n : -1;
}

/* The seconds written in [lo, hi] (trace clock ns), from the layout. */
static long
sm_truth(const uint64_t *first, const uint64_t *len, uint64_t lo, uint64_t hi)
{
	long		n = 0;

	for (int i = 0; i < 3; i++)
		for (uint64_t s = 0; s < len[i]; s++)
		{
			uint64_t	t = SM_T0 + (first[i] + s) * SM_SEC;

			n += t >= lo && t <= hi;
		}
	return n;
}

static const char *sm_names[3] = {"a.trace.lz4", "b.trace.lz4", "c.trace.lz4"};

static void
test_memo_reads_the_same_frames(void)
{
	char		dir[256];
	pgwt_tf_sum_memo *m = pgwt_tf_sum_memo_create();
	uint64_t	seed = 42;

	CHECK(m != NULL);
	tft_mkdtemp(dir, sizeof(dir));
	for (int i = 0; i < 3; i++)
		CHECK_RC(sm_write(dir, sm_names[i], sm_first[i], sm_len[i]));
	for (int k = 0; k < 212; k++)
	{
		/* ranges anywhere from before the first file to after the last */
		uint64_t	lo = SM_T0 - 50 * SM_SEC + tft_rand(&seed) % (1300 * SM_SEC),
					hi = lo + tft_rand(&seed) % (600 * SM_SEC);

		if (k >= 200)
		{
			/* a file's first or last second exactly, alone: the edges */
			int			i = (k - 200) % 3;
			uint64_t	s = sm_first[i] + ((k - 200) / 3 % 2 ? sm_len[i] - 1 : 0);

			lo = hi = SM_T0 + s * SM_SEC;
			if (k >= 206)
			{
				/* ending at a first second, starting at a last one */
				if ((k - 200) / 3 % 2)
					hi += 30 * SM_SEC;
				else
					lo -= 30 * SM_SEC;
			}
		}
		long		want = sm_truth(sm_first, sm_len, lo, hi),
					plain = sm_count(dir, lo, hi, NULL),
					fill = sm_count(dir, lo, hi, m),
					memo = sm_count(dir, lo, hi, m);

		CHECKF(plain == want && fill == want && memo == want,
			   "[%llu, %llu]: want %ld, without memo %ld, filling %ld, through it %ld",
			   (unsigned long long) lo, (unsigned long long) hi, want, plain, fill, memo);
	}
	pgwt_tf_sum_memo_free(m);
	tft_rmdir(dir);
}

static void
test_memo_sees_a_replaced_file(void)
{
	char		dir[256],
				other[256],
				from[600],
				to[600];
	pgwt_tf_sum_memo *m = pgwt_tf_sum_memo_create();
	static const uint64_t first2[3] = {0, 700, 1000};
	/* seconds 700..769 held nothing until b is replaced */
	uint64_t	lo = SM_T0 + 690 * SM_SEC,
				hi = SM_T0 + 790 * SM_SEC;

	CHECK(m != NULL);
	tft_mkdtemp(dir, sizeof(dir));
	tft_mkdtemp(other, sizeof(other));
	for (int i = 0; i < 3; i++)
		CHECK_RC(sm_write(dir, sm_names[i], sm_first[i], sm_len[i]));
	/* fill the memo: every file walked, none holding these seconds */
	CHECK(sm_count(dir, 0, UINT64_MAX, m) == sm_truth(sm_first, sm_len, 0, UINT64_MAX));
	CHECK(sm_count(dir, lo, hi, m) == 0);
	/* b now holds seconds 700..769, same name and same length */
	CHECK_RC(sm_write(other, sm_names[1], first2[1], sm_len[1]));
	snprintf(from, sizeof(from), "%s/%s.sum", other, sm_names[1]);
	snprintf(to, sizeof(to), "%s/%s.sum", dir, sm_names[1]);
	CHECK(rename(from, to) == 0);
	snprintf(from, sizeof(from), "%s/%s", other, sm_names[1]);
	snprintf(to, sizeof(to), "%s/%s", dir, sm_names[1]);
	CHECK(rename(from, to) == 0);
	CHECKF(sm_count(dir, lo, hi, m) == sm_truth(first2, sm_len, lo, hi) &&
		   sm_truth(first2, sm_len, lo, hi) == 70,
		   "after the replacement: %ld frames, want %ld", sm_count(dir, lo, hi, m),
		   sm_truth(first2, sm_len, lo, hi));
	pgwt_tf_sum_memo_free(m);
	tft_rmdir(other);
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_memo_reads_the_same_frames);
	RUN(test_memo_sees_a_replaced_file);
	return TFT_END();
}
