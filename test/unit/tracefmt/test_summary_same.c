/*
 * test_summary_same.c
 *		The writer's output on a fixed record stream is byte-identical to
 *		what an earlier build wrote (test/golden/summary_same.digest: size
 *		and FNV-1a 64 of the summary beside the trace and of the trace
 *		itself, payloads stored without LZ4 so that the bytes do not
 *		depend on the LZ4 library; the files are too big to commit).
 *		Guards changes to the write path that must not change what is on
 *		disk (the summary builder's batching, the block encoder's LZ4
 *		state, the .meta protocol).
 *
 * The stream covers the builder's corners: a daemon-like sampled load
 * (108 backends at 10 Hz), exact transitions with waits crossing seconds
 * and minutes, exits, nested escalation windows with samples inside them,
 * late and out-of-order records, every other marker, and seconds that
 * overflow each table's cap (events, backends, pairs, crossings).
 *
 *	test_summary_same			compare with the golden digest
 *	test_summary_same --write DIR	write DIR/summary_same.trace.lz4(.sum)
 *	test_summary_same --digest	print the digest (how the golden one was
 *								made, by the build before the change)
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "tf_test.h"
#include "tracefmt/summary.h"

#define SS_SEC	1000000000ull
#define SS_T0	(1000ull * SS_SEC + 123456789ull)	/* monotonic start */

typedef struct ss_out
{
	pgwt_tf_file_writer *w;
	int			rc;
	uint64_t	n;
} ss_out;

static void
ss_put(ss_out *o, pgwt_record r)
{
	int			rc;

	if (o->rc < 0)
		return;
	rc = pgwt_tf_file_writer_append(o->w, &r);
	if (rc < 0)
		o->rc = rc;
	o->n++;
}

static uint32_t
ss_event(uint64_t *s, unsigned spread)
{
	static const uint32_t common[] = {
		0x06000000, 0x09000002, 0x01000004, 0x0A000001, 0x03000000,
		0x05000003, 0x01000007, 0x0B000002, 0x00000000, 0x07000001,
		0x02000005, 0x04000000
	};
	uint64_t	x = tft_rand(s);

	if (spread <= 12)
		return common[x % spread];
	return 0x0C000000u + (uint32_t) (x % spread);
}

/*
 * The stream, in append order. Seconds are relative to SS_T0; the total
 * span is 150 s so two whole minutes roll up.
 */
static void
ss_stream(ss_out *o)
{
	uint64_t	s = 0x5EED5EED1234ull;
	uint64_t	t;
	unsigned	sec;

	for (sec = 0; sec < 150; sec++)
	{
		uint64_t	base = SS_T0 + (uint64_t) sec * SS_SEC;
		unsigned	tick;

		/* sampled load: 108 backends, 10 ticks a second */
		for (tick = 0; tick < 10; tick++)
		{
			uint32_t	pid;

			t = base + (uint64_t) tick * (SS_SEC / 10) + tft_rand(&s) % 1000;
			for (pid = 1000; pid < 1108; pid++)
			{
				uint64_t	q = pid < 1008 ? 0x1000 + tft_rand(&s) % 30 : 0;

				ss_put(o, tft_sample(t + (pid - 1000), pid, ss_event(&s, pid < 1008 ? 12 : 2),
									 q, SS_SEC / 10 + tft_rand(&s) % 5000));
			}
		}
		/* exact transitions, some crossing one or many seconds */
		for (tick = 0; tick < 40; tick++)
		{
			uint64_t	dur = tft_rand(&s) % 8 == 0 ? tft_rand(&s) % (90 * SS_SEC)
				: tft_rand(&s) % (SS_SEC / 2);

			t = base + tft_rand(&s) % SS_SEC;
			ss_put(o, tft_transition(t, 2000 + (uint32_t) (tft_rand(&s) % 20),
									 ss_event(&s, 12), ss_event(&s, 12), dur,
									 0x2000 + tft_rand(&s) % 50, tft_rand(&s) % 3 ? 1234 : PGWT_CPU_UNKNOWN));
		}
		/* a backend exits, another one's first record leaves EXIT */
		if (sec % 7 == 3)
		{
			ss_put(o, tft_transition(base + 500, 2000 + sec % 20, ss_event(&s, 12),
									 PGWT_EVENT_EXIT, 2 * SS_SEC, 0x2001, 10));
			ss_put(o, tft_transition(base + 900, 3000 + sec, PGWT_EVENT_EXIT,
									 ss_event(&s, 12), 0, 0, PGWT_CPU_UNKNOWN));
			ss_put(o, tft_sample(base + 902, 3000 + sec, ss_event(&s, 12), 0, 0));
		}
		/* escalation windows: a start, a nested start, the end; one
		 * window stays open across a minute boundary */
		if (sec % 20 == 5 || sec == 55)
		{
			ss_put(o, tft_transition(base + SS_SEC / 3, 0, PGWT_ESC_CODE_MANUAL,
									 PGWT_MARKER_ESC_START, 0, 0, PGWT_CPU_UNKNOWN));
			ss_put(o, tft_transition(base + SS_SEC / 2, 0, PGWT_ESC_CODE_ANOMALY,
									 PGWT_MARKER_ESC_START, 0, 0, PGWT_CPU_UNKNOWN));
		}
		if (sec % 20 == 9 || sec == 63)
			ss_put(o, tft_transition(base + SS_SEC / 4, 0, PGWT_ESC_CODE_MANUAL,
									 PGWT_MARKER_ESC_END, 0, 0, PGWT_CPU_UNKNOWN));
		/* the other markers */
		if (sec % 11 == 1)
		{
			uint32_t	m;

			for (m = PGWT_MARKER_FIRST; m <= PGWT_MARKER_LAST; m++)
				if (m != PGWT_MARKER_ESC_START && m != PGWT_MARKER_ESC_END)
					ss_put(o, tft_transition(base + 77 + m % 16, 2001, 0x06000000, m,
											 0, 0x2002, PGWT_CPU_UNKNOWN));
		}
		/* out of order within the lag, and late past it */
		if (sec >= 3 && sec % 5 == 0)
		{
			ss_put(o, tft_sample(base - SS_SEC - 17, 1001, 0x01000004, 0x1001, SS_SEC / 10));
			ss_put(o, tft_transition(base - SS_SEC + 5, 2003, 0x0A000001, 0,
									 SS_SEC / 3, 0x2003, 99));
			ss_put(o, tft_sample(base - 3 * SS_SEC - 1, 1002, 0x09000002, 0x1002, SS_SEC / 10));
			ss_put(o, tft_transition(base - 5 * SS_SEC, 2004, 0x0A000001, 0,
									 SS_SEC / 3, 0x2003, 99));
		}
		/* seconds past every cap: events, backends, pairs, crossings */
		if (sec == 30 || sec == 100)
		{
			uint32_t	i;

			for (i = 0; i < 5000; i++)
			{
				t = base + SS_SEC / 2 + i * 50;
				ss_put(o, tft_sample(t, 10000 + i % 1300, ss_event(&s, 300),
									 0x3000 + i, SS_SEC / 10));
				ss_put(o, tft_transition(t + 1, 20000 + i % 1200, ss_event(&s, 280),
										 ss_event(&s, 12), SS_SEC + i, 0x8000 + i, 7));
			}
		}
		/* the daemon flushes once a second */
		if (o->rc >= 0 && (o->rc = pgwt_tf_file_writer_flush(o->w)) > 0)
			o->rc = 0;
	}
}

static void
ss_opts(pgwt_tf_file_opts *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->pg_version = 150000;
	/* v7, the version the digest was taken at: this guards the write
	 * path, not the format (test_block covers every version) */
	fo->version = 7;
	/* payloads stored raw: the bytes are ours, not the LZ4 version's */
	fo->no_lz4 = true;
	fo->write_meta = true;
	fo->group_gid = -1;
	fo->clock.realtime_ns = tft_clk_rt;
	fo->clock.monotonic_ns = tft_clk_mono;
	tft_now_rt = 1700000000ull * SS_SEC;
	tft_now_mono = SS_T0;
}

/* Writes the stream to dir/summary_same.trace.lz4 (+ .sum); 0 = ok. */
static int
ss_write(const char *dir, uint64_t *nrec)
{
	char		path[4096];
	pgwt_tf_file_opts fo;
	ss_out		o;
	int			rc;

	ss_opts(&fo);
	snprintf(path, sizeof(path), "%s/summary_same.trace.lz4", dir);
	memset(&o, 0, sizeof(o));
	if ((rc = pgwt_tf_file_writer_create(path, &fo, &o.w)) < 0)
		return rc;
	if ((rc = pgwt_tf_file_writer_set_sample_period(o.w, SS_SEC / 10)) < 0)
	{
		pgwt_tf_file_writer_abandon(o.w);
		return rc;
	}
	ss_stream(&o);
	rc = pgwt_tf_file_writer_finish(o.w);
	*nrec = o.n;
	return o.rc < 0 ? o.rc : rc;
}

static int
ss_read(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	int			fd = open(path, O_RDONLY);
	ssize_t		r;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	*len = (size_t) st.st_size;
	*buf = malloc(*len ? *len : 1);
	r = *buf ? read(fd, *buf, *len) : -1;
	close(fd);
	return r == (ssize_t) *len ? 0 : -1;
}

static char ss_golden[4096];

/* "<name> <size> <fnv1a64 hex>" of a file into line; 0 = ok. */
static int
ss_digest(const char *path, const char *name, char *line, size_t len)
{
	uint8_t    *buf = NULL;
	size_t		n = 0,
				i;
	uint64_t	h = 14695981039346656037ull;

	if (ss_read(path, &buf, &n) < 0)
	{
		free(buf);
		return -1;
	}
	for (i = 0; i < n; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	free(buf);
	snprintf(line, len, "%s %zu %016llx\n", name, n, (unsigned long long) h);
	return 0;
}

/* The digest of the stream as written by this build into text. */
static int
ss_digest_stream(char *text, size_t len)
{
	char		dir[256],
				path[512],
				l1[128],
				l2[128];
	uint64_t	n;
	int			rc;

	tft_mkdtemp(dir, sizeof(dir));
	if ((rc = ss_write(dir, &n)) < 0)
	{
		tft_rmdir(dir);
		return rc;
	}
	snprintf(path, sizeof(path), "%s/summary_same.trace.lz4.sum", dir);
	rc = ss_digest(path, "summary", l1, sizeof(l1));
	snprintf(path, sizeof(path), "%s/summary_same.trace.lz4", dir);
	if (rc == 0)
		rc = ss_digest(path, "trace", l2, sizeof(l2));
	tft_rmdir(dir);
	if (rc < 0)
		return -PGWT_TF_IO;
	snprintf(text, len, "%s%s", l1, l2);
	return 0;
}

static void
test_summary_and_trace_match_golden(void)
{
	char		got[512],
				want[512];
	char		path[4200];
	FILE	   *f;
	size_t		n;

	CHECK_RC(ss_digest_stream(got, sizeof(got)));
	snprintf(path, sizeof(path), "%s/summary_same.digest", ss_golden);
	f = fopen(path, "r");
	CHECKF(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = '\0';
	CHECKF(strcmp(got, want) == 0, "written:\n%sgolden (%s):\n%s", got, path, want);
}

/* The stream really reaches the corners it is meant to cover. */
static int	ss_minutes,
			ss_folded,
			ss_late,
			ss_esc,
			ss_cross;

static int
ss_count_cb(const pgwt_tf_second *s, void *arg)
{
	(void) arg;
	ss_minutes += (s->flags & PGWT_TF_SUM_F_MINUTE) != 0;
	ss_folded += pgwt_tf_second_folded(s);
	ss_late += s->c.late_records > 0;
	ss_esc += (s->flags & (PGWT_TF_SUM_F_ESC_AT_START | PGWT_TF_SUM_F_ESC_AT_END)) != 0;
	ss_cross += s->ncrossings > 0;
	return 0;
}

static void
test_stream_covers_corners(void)
{
	char		dir[256],
				path[512];
	uint64_t	n;
	pgwt_tf_reader *r;
	pgwt_tf_sum_builder *b;
	pgwt_record rec;
	int			rc;

	tft_mkdtemp(dir, sizeof(dir));
	CHECK_RC(ss_write(dir, &n));
	snprintf(path, sizeof(path), "%s/summary_same.trace.lz4", dir);
	CHECK_RC(pgwt_tf_sum_builder_create(ss_count_cb, NULL, &b));
	CHECK_RC(pgwt_tf_reader_open(path, NULL, &r));
	while ((rc = pgwt_tf_reader_next(r, &rec)) == 1)
		CHECK_RC(pgwt_tf_sum_builder_add(b, &rec));
	CHECK(rc == 0);
	CHECK_RC(pgwt_tf_sum_builder_finish(b));
	pgwt_tf_reader_close(r);
	pgwt_tf_sum_builder_free(b);
	CHECKF(ss_minutes >= 2 && ss_folded >= 2 && ss_late >= 2 && ss_esc >= 10 && ss_cross >= 100,
		   "minutes %d folded %d late %d esc %d crossing %d", ss_minutes, ss_folded,
		   ss_late, ss_esc, ss_cross);
	tft_rmdir(dir);
}

int
main(int argc, char **argv)
{
	const char *top = getenv("PGWT_TOP");

	if (argc == 2 && strcmp(argv[1], "--digest") == 0)
	{
		char		text[512];
		int			rc = ss_digest_stream(text, sizeof(text));

		if (rc < 0)
			fprintf(stderr, "test_summary_same: %s\n", pgwt_tf_strerror(rc));
		else
			fputs(text, stdout);
		return rc < 0;
	}
	if (argc == 3 && strcmp(argv[1], "--write") == 0)
	{
		uint64_t	n;
		int			rc = ss_write(argv[2], &n);

		if (rc < 0)
			fprintf(stderr, "test_summary_same: %s\n", pgwt_tf_strerror(rc));
		return rc < 0;
	}
	if (top)
		snprintf(ss_golden, sizeof(ss_golden), "%s/test/golden", top);
	else
	{
		/* this file is TOP/test/unit/tracefmt/test_summary_same.c */
		const char *f = __FILE__;
		const char *cut = strstr(f, "test/unit/tracefmt/");

		snprintf(ss_golden, sizeof(ss_golden), "%.*stest/golden",
				 cut ? (int) (cut - f) : 0, f);
	}
	RUN(test_summary_and_trace_match_golden);
	RUN(test_stream_covers_corners);
	return TFT_END();
}
