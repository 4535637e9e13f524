/*
 * test_race.c
 *		A directory reader racing rotation: current.trace (and its
 *		summary) archived after the reader listed the directory is read
 *		from its archive, not counted as bad and not missed.
 */
#include "tf_test.h"
#include "tracefmt/summary.h"

#define SEC 1000000000ull

static uint64_t now_rt = 1700000000000000000ull,
			now_mono = 100 * SEC;

static uint64_t
clk_rt(void *arg)
{
	(void) arg;
	return now_rt;
}

static uint64_t
clk_mono(void *arg)
{
	(void) arg;
	return now_mono;
}

static void
test_reader_survives_rotation(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o;
	pgwt_tf_dir_writer *d;
	pgwt_tf_reader *r;
	pgwt_tf_sum_reader *sr;
	const pgwt_tf_second *s;
	pgwt_record rec;
	unsigned	i,
				n = 0,
				nsec = 0;

	memset(&o, 0, sizeof(o));
	o.file.group_gid = -1;
	o.file.clock.realtime_ns = clk_rt;
	o.file.clock.monotonic_ns = clk_mono;
	tft_mkdtemp(dir, sizeof(dir));
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	for (i = 0; i < 50; i++)
	{
		memset(&rec, 0, sizeof(rec));
		rec.kind = PGWT_REC_TRANSITION;
		rec.ts_ns = 100 * SEC + i * (SEC / 10);
		rec.pid = 7;
		rec.old_event = 0x0A000001;
		rec.duration_ns = 1000;
		rec.cpu_ns = PGWT_CPU_UNKNOWN;
		CHECK_RC(pgwt_tf_dir_append(d, &rec));
	}
	CHECK_RC(pgwt_tf_dir_flush(d));
	/* list now (the live file and its summary are seen)... */
	CHECK_RC(pgwt_tf_reader_open(dir, NULL, &r));
	CHECK_RC(pgwt_tf_sum_reader_open(dir, 0, UINT64_MAX, &sr));
	/* ...then the writer archives them before the readers open them */
	CHECK_RC(pgwt_tf_dir_close(d));
	while (pgwt_tf_reader_next(r, &rec) == 1)
		n++;
	CHECKF(n == 50, "read %u records", n);
	CHECK(pgwt_tf_reader_stats(r)->files_bad == 0);
	pgwt_tf_reader_close(r);
	while (pgwt_tf_sum_reader_next(sr, &s) == 1)
		if (!(s->flags & PGWT_TF_SUM_F_MINUTE))
			nsec++;
	CHECKF(nsec == 5, "read %u seconds", nsec);
	CHECK(pgwt_tf_sum_reader_stats(sr)->files_bad == 0);
	pgwt_tf_sum_reader_close(sr);
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_reader_survives_rotation);
	return tft_failures ? 1 : 0;
}
