/*
 * test_side_retention.c
 *		Side files follow the directory's retention (injected clock): the
 *		pure rules for backends and blockers lines, then a directory aged
 *		over eight synthetic hours by age and by size, checking that what
 *		is left of backends.tsv, blockers.tsv, windows.tsv and queries.tsv is exactly
 *		what can describe the retained archives (query texts by the "#file"
 *		marks the writer puts at each new trace file).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "tf_test.h"

#define HOUR_NS 3600000000000ull
#define BASE_RT 1700000000000000000ull	/* 2023-11-14 22:13:20 UTC */


static void
test_keep_backends_rule(void)
{
	/* pid 7 restarted at 10, 20, 30; pid 8 started at 5; horizon 25 */
	uint32_t	pid[] = {7, 8, 7, 7, 0, 7};
	uint64_t	start[] = {10, 5, 30, 20, 0, 20};
	bool		valid[] = {true, true, true, true, false, true};
	bool		keep[6];

	CHECK_RC(pgwt_tf_side_keep_backends(pid, start, valid, 6, 25, keep));
	/* 10 superseded by 20; of the two lines at 20 the later one stays;
	 * 30 is after the horizon; 8 and the invalid line stay */
	CHECK(!keep[0] && keep[1] && keep[2] && !keep[3] && keep[4] && keep[5]);
	/* horizon before everything: nothing goes */
	CHECK_RC(pgwt_tf_side_keep_backends(pid, start, valid, 6, 1, keep));
	CHECK(keep[0] && keep[1] && keep[2] && keep[3] && keep[4] && keep[5]);
}

static void
test_keep_blocker_rule(void)
{
	CHECK(!pgwt_tf_side_keep_blocker("99\t1\t2", 6, 100));
	CHECK(pgwt_tf_side_keep_blocker("100\t1\t2", 7, 100));
	CHECK(pgwt_tf_side_keep_blocker("# comment", 9, 100));
	CHECK(pgwt_tf_side_keep_blocker("garbage", 7, 100));
	CHECK(pgwt_tf_side_keep_blocker("", 0, 100));
}

static void
test_keep_queries_rule(void)
{
	const char *line[] = {
		"#pgwt-queries\t1",
		"000000000000002a\tF\t0\tSELECT 1",	/* before any mark */
		"#file\t100",
		"0000000000000007\tN\t0\tSELECT ?",
		"garbage line",
		"#file\t200",
		"000000000000002a\tF\t0\tSELECT 1",
		"000000000000002a\tF\t0\tSELECT 1",	/* repeated in its segment */
		"#file\t300",
		"000000000000002a\tF\t0\tSELECT 1",	/* again in a new file */
		"#file\tx",
	};
	size_t		len[11];
	bool		keep[11];
	size_t		i;

	for (i = 0; i < 11; i++)
		len[i] = strlen(line[i]);
	/* horizon 300: the file of mark 300 is the oldest retained one, mark 200
	 * its grace segment; everything before mark 200 goes but the garbage */
	CHECK_RC(pgwt_tf_side_keep_queries(line, len, 11, 300, keep));
	CHECK(keep[0] && !keep[1] && !keep[2] && !keep[3] && keep[4] && keep[5] &&
		  keep[6] && !keep[7] && keep[8] && keep[9] && keep[10]);
	/* horizon 250: mark 200 is the newest started by then, mark 100 its
	 * grace: only the line before any mark goes */
	CHECK_RC(pgwt_tf_side_keep_queries(line, len, 11, 250, keep));
	CHECK(keep[0] && !keep[1] && keep[2] && keep[3] && keep[5] && keep[6] && !keep[7]);
	/* horizon before every mark: nothing is aged, repeats still go */
	CHECK_RC(pgwt_tf_side_keep_queries(line, len, 11, 50, keep));
	CHECK(keep[1] && keep[2] && keep[3] && keep[6] && !keep[7] && keep[9]);
}

static pgwt_tf_dir_opts
dir_opts(void)
{
	pgwt_tf_dir_opts o;

	memset(&o, 0, sizeof(o));
	o.file.pg_version = 150004;
	o.file.group_gid = -1;
	o.file.clock.realtime_ns = tft_clk_rt;
	o.file.clock.monotonic_ns = tft_clk_mono;
	return o;
}

typedef struct count_arg
{
	int			n;
	int			pid100;
	uint64_t	min_start100;
} count_arg;

static int
count_backend(const pgwt_tf_backend *b, void *a)
{
	count_arg  *c = a;

	c->n++;
	if (b->pid == 100)
	{
		if (c->pid100 == 0 || b->start_realtime_ns < c->min_start100)
			c->min_start100 = b->start_realtime_ns;
		c->pid100++;
	}
	return 0;
}

static int
count_query(uint64_t id, pgwt_tf_query_mode m, bool t, const char *text, void *a)
{
	(*(int *) a)++;
	return 0;
}

static void
append_blocker(const char *dir, uint64_t ts)
{
	char		p[512],
				line[64];
	int			fd,
				n;

	snprintf(p, sizeof(p), "%s/blockers.tsv", dir);
	fd = open(p, O_WRONLY | O_APPEND | O_CREAT, 0640);
	n = snprintf(line, sizeof(line), "%" PRIu64 "\t100\t200\n", ts);
	if (fd >= 0 && write(fd, line, (size_t) n) != n)
		tft_fail(__FILE__, __LINE__, "write blockers");
	if (fd >= 0)
		close(fd);
}

/* Lines of blockers.tsv and the smallest ts among them. */
static int
blockers_lines(const char *dir, uint64_t *min_ts)
{
	char		p[512],
				line[256];
	FILE	   *f;
	int			n = 0;

	snprintf(p, sizeof(p), "%s/blockers.tsv", dir);
	*min_ts = UINT64_MAX;
	if (!(f = fopen(p, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
	{
		uint64_t	ts = strtoull(line, NULL, 10);

		if (ts < *min_ts)
			*min_ts = ts;
		n++;
	}
	fclose(f);
	return n;
}

/* start_realtime_ns / start_monotonic_ns of the oldest file left. */
static void
oldest_start(const char *dir, uint64_t *rt, uint64_t *mono)
{
	pgwt_tf_reader *r;

	*rt = *mono = 0;
	if (pgwt_tf_reader_open(dir, NULL, &r) < 0)
		return;
	if (pgwt_tf_reader_nfiles(r) > 0)
	{
		*rt = pgwt_tf_reader_file_header(r, 0)->start_realtime_ns;
		*mono = pgwt_tf_reader_file_header(r, 0)->start_monotonic_ns;
	}
	pgwt_tf_reader_close(r);
}

static void
test_directory_ages_side_files(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *d;
	pgwt_tf_backend b;
	count_arg	c = {0, 0, 0};
	uint64_t	h_rt,
				h_mono,
				min_ts,
				bad = 0;
	int			h,
				q = 0;

	tft_mkdtemp(dir, sizeof(dir));
	tft_now_rt = BASE_RT;
	tft_now_mono = 5000000000ull;
	o.retention_hours = 3;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	memset(&b, 0, sizeof(b));
	b.type = "client backend";
	b.user = "u";
	b.database = "db";
	b.client_addr = "";
	b.application_name = "app";
	/* pid 200 lives all along; pid 100 is reused every hour */
	b.pid = 200;
	b.start_realtime_ns = tft_now_rt;
	CHECK_RC(pgwt_tf_backend_append(dir, &o.file, &b));
	for (h = 0; h < 8; h++)
	{
		pgwt_record r = tft_transition(tft_now_mono + 1, 100, 0, 1, 10, 0, 0);

		b.pid = 100;
		b.start_realtime_ns = tft_now_rt + 1;
		CHECK_RC(pgwt_tf_backend_append(dir, &o.file, &b));
		/* a writer writes each text once per file; the second copy is a
		 * repeat within the file's segment */
		CHECK_RC(pgwt_tf_query_append(dir, &o.file, PGWT_TF_QUERY_FULL, 42, "SELECT 1"));
		CHECK_RC(pgwt_tf_query_append(dir, &o.file, PGWT_TF_QUERY_FULL, 42, "SELECT 1"));
		if (h == 0)				/* used in the first hour only */
			CHECK_RC(pgwt_tf_query_append(dir, &o.file, PGWT_TF_QUERY_FULL, 7, "SELECT 7"));
		append_blocker(dir, tft_now_mono + 2);
		{
			pgwt_tf_window w = {tft_now_mono + 3, tft_now_rt + 3, PGWT_TF_XSRC_SCHED};

			CHECK_RC(pgwt_tf_window_append_at(pgwt_tf_dir_writer_fd(d), &o.file, &w));
		}
		CHECK_RC(pgwt_tf_dir_append(d, &r));
		tft_now_rt += HOUR_NS;
		tft_now_mono += HOUR_NS;
		CHECK_RC(pgwt_tf_dir_tick(d));
	}
	CHECK(pgwt_tf_dir_writer_stats(d)->deleted == 5);
	oldest_start(dir, &h_rt, &h_mono);
	CHECK(h_rt > BASE_RT);

	/* backends: 200, the pid 100 that was live at the horizon (started in
	 * the hour before it), the three started after it */
	CHECK(pgwt_tf_backends_read(dir, count_backend, &c, &bad) >= 0 && bad == 0);
	CHECKF(c.pid100 == 4 && c.n == 5, "pid100 %d of %d", c.pid100, c.n);
	CHECK(c.min_start100 <= h_rt && c.min_start100 > h_rt - HOUR_NS);
	/* blockers: nothing before the horizon, the rest kept */
	CHECKF(blockers_lines(dir, &min_ts) == 3 && min_ts >= h_mono, "min %" PRIu64, min_ts);
	/* windows.tsv: the same rule on each window's start */
	{
		pgwt_tf_window_sources ws;

		CHECK_RC(pgwt_tf_window_sources_load(dir, 0, 0, &ws));
		CHECKF(ws.present && ws.windows == 3 && ws.bad == 0, "windows %" PRIu64, ws.windows);
	}
	/*
	 * queries: hours 5-7 are retained, hour 4 is the grace segment: its
	 * text and theirs stay, one each (4); hours 0-3 (8 texts, query 7, the
	 * marks of hours 1-3) went, and the repeat in each retained segment
	 */
	CHECK(pgwt_tf_queries_read(dir, count_query, &q, &bad) >= 0 && bad == 0);
	CHECKF(q == 4, "queries %d", q);
	CHECKF(pgwt_tf_dir_writer_stats(d)->side_lines_dropped == 4 + 5 + 5 + (9 + 3 + 4),
		   "dropped %" PRIu64, pgwt_tf_dir_writer_stats(d)->side_lines_dropped);
	CHECK_RC(pgwt_tf_dir_close(d));

	/* size cap: every archive goes; the horizon is now, so one line per pid
	 * and no blocker observation is left */
	{
		uint64_t	h2_rt,
					h2_mono;

		o.retention_hours = 0;
		o.retention_bytes = 1;
		CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
		oldest_start(dir, &h2_rt, &h2_mono);
		CHECK(h2_rt > h_rt);
		memset(&c, 0, sizeof(c));
		CHECK(pgwt_tf_backends_read(dir, count_backend, &c, &bad) >= 0 && bad == 0);
		CHECKF(c.pid100 == 1 && c.n == 2, "pid100 %d of %d", c.pid100, c.n);
		CHECKF(blockers_lines(dir, &min_ts) == 0, "blockers left %d", blockers_lines(dir, &min_ts));
		/* queries: only the last file's segment (the grace) is left */
		q = 0;
		CHECK(pgwt_tf_queries_read(dir, count_query, &q, &bad) >= 0 && bad == 0);
		CHECKF(q == 1, "queries after the size cap %d", q);
		CHECK_RC(pgwt_tf_dir_close(d));
	}
	tft_rmdir(dir);
}

/* After a reboot the monotonic clock restarts: blockers are left alone. */
static void
test_reboot_keeps_blockers(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dir_opts();
	pgwt_tf_dir_writer *d;
	uint64_t	min_ts;
	int			h,
				before;

	tft_mkdtemp(dir, sizeof(dir));
	tft_now_rt = BASE_RT;
	tft_now_mono = 900 * HOUR_NS;
	o.retention_hours = 1;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	for (h = 0; h < 3; h++)
	{
		pgwt_record r = tft_transition(tft_now_mono + 1, 100, 0, 1, 10, 0, 0);

		CHECK_RC(pgwt_tf_dir_append(d, &r));
		append_blocker(dir, tft_now_mono + 2);
		tft_now_rt += HOUR_NS;
		tft_now_mono += HOUR_NS;
		CHECK_RC(pgwt_tf_dir_tick(d));
	}
	CHECK_RC(pgwt_tf_dir_close(d));
	/* before the reboot, observations older than the horizon went */
	before = blockers_lines(dir, &min_ts);
	CHECKF(before >= 1 && before < 3, "blockers %d", before);
	tft_now_rt += HOUR_NS;
	tft_now_mono = 1000;			/* reboot */
	append_blocker(dir, tft_now_mono);
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECKF(blockers_lines(dir, &min_ts) == before + 1, "blockers %d", blockers_lines(dir, &min_ts));
	CHECK_RC(pgwt_tf_dir_close(d));
	tft_rmdir(dir);
}

int
main(void)
{
	RUN(test_keep_backends_rule);
	RUN(test_keep_blocker_rule);
	RUN(test_keep_queries_rule);
	RUN(test_directory_ages_side_files);
	RUN(test_reboot_keeps_blockers);
	return TFT_END();
}
