/*
 * test_summary_unit.c
 *		Per-second summaries: the builder's billing (in-second parts,
 *		crossings, caps and "other", late records, escalation windows),
 *		the frame codec (round trip, every damaged byte and truncation
 *		refused or decoded within range), and the files (live file read up
 *		to its .meta, recovery after a crash, rotation, retention, the
 *		no_summary option, directories without summaries).
 *
 * Usage: test_summary_unit GOLDEN_DIR   (test/golden: seed-format files)
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "../tracefmt/tf_test.h"
#include "tracefmt/summary.h"
#include "analysis/range_load.h"
#include "analysis/summary.h"
#include "analysis/views.h"

#define SEC 1000000000ull

static const char *golden_dir;

/* ---- a builder that keeps copies of the seconds it emits -------------- */

#define MAXSEC 64

typedef struct got_seconds
{
	unsigned	n;
	unsigned	nminutes;
	pgwt_tf_second_buf minute;	/* the last minute rollup */
	uint8_t    *enc[MAXSEC];
	size_t		len[MAXSEC];
	pgwt_tf_second_buf dec[MAXSEC];
} got_seconds;

static int
got_cb(const pgwt_tf_second *s, void *arg)
{
	got_seconds *g = arg;

	if (s->flags & PGWT_TF_SUM_F_MINUTE)
	{
		uint8_t    *buf = malloc(pgwt_tf_second_encoded_max(s));
		int			rc = pgwt_tf_second_decode(buf, pgwt_tf_second_encode(s, buf), &g->minute);

		free(buf);
		g->nminutes++;
		return rc < 0 ? -2 : 0;
	}
	if (g->n >= MAXSEC)
		return -1;
	g->enc[g->n] = malloc(pgwt_tf_second_encoded_max(s));
	g->len[g->n] = pgwt_tf_second_encode(s, g->enc[g->n]);
	memset(&g->dec[g->n], 0, sizeof(g->dec[0]));
	if (pgwt_tf_second_decode(g->enc[g->n], g->len[g->n], &g->dec[g->n]) < 0)
		return -2;
	g->n++;
	return 0;
}

static void
got_free(got_seconds *g)
{
	unsigned	i;

	for (i = 0; i < g->n; i++)
	{
		free(g->enc[i]);
		pgwt_tf_second_buf_free(&g->dec[i]);
	}
	pgwt_tf_second_buf_free(&g->minute);
	g->n = 0;
}

static pgwt_record
tr(uint64_t ts, uint32_t pid, uint32_t old_ev, uint32_t new_ev, uint64_t dur, uint64_t q)
{
	pgwt_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_TRANSITION;
	r.ts_ns = ts;
	r.pid = pid;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.duration_ns = dur;
	r.query_id = q;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	return r;
}

static pgwt_record
smp(uint64_t ts, uint32_t pid, uint32_t ev, uint64_t w, uint64_t q)
{
	pgwt_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_SAMPLE;
	r.ts_ns = ts;
	r.pid = pid;
	r.new_event = ev;
	r.weight_ns = w;
	r.query_id = q;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	return r;
}

static const pgwt_tf_sum_event *
find_event(const pgwt_tf_second *s, uint32_t ev)
{
	uint32_t	i;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].event == ev)
			return &s->events[i];
	return NULL;
}

#define EV_IO 0x0A000001u
#define EV_LOCK 0x03000004u
#define EV_READ 0x06000000u

/* The row of event ev in window 0 of an engine over [from, to + 1 ns). */
static bool
range_row(const pgwt_tf_second *s, uint64_t from, uint64_t to, uint32_t ev,
		  pgwt_summary_fit *fit, pgwt_event_row *row)
{
	pgwt_engine_config cfg = {0};
	pgwt_window_spec spec = {.from_ns = from, .to_ns = pgwt_range_window_end(to)};
	pgwt_view_opts vo = {0};
	pgwt_event_rows rows = {0};
	pgwt_engine *eng = pgwt_engine_create(&cfg, &spec, 1, NULL);
	bool		found = false;

	if (!eng)
		return false;
	*fit = pgwt_summary_bill_range(eng, 0, s, 0, from, to, false);
	pgwt_engine_flush(eng);
	pgwt_view_system_event(eng, 0, &vo, &rows);
	for (size_t i = 0; i < rows.n; i++)
		if (rows.rows[i].event == ev)
		{
			*row = rows.rows[i];
			found = true;
		}
	pgwt_event_rows_free(&rows);
	pgwt_engine_free(eng);
	return found;
}

/*
 * Billing a second into a range cut as the range loader cuts it: a wait
 * that began before "from" sends its second to records; one that crossed
 * "to" counts once, with its time inside the range.
 */
static void
test_range_billing(void)
{
	got_seconds g = {0};
	pgwt_tf_sum_builder *b;
	pgwt_record r;
	pgwt_summary_fit fit;
	pgwt_event_row row;

	CHECK_RC(pgwt_tf_sum_builder_create(got_cb, &g, &b));
	/* second 10: the lock wait [7.7 s, 10.2 s) and a 300 us IO wait */
	r = tr(10 * SEC + 500000, 100, EV_IO, 0, 300000, 7);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = tr(10 * SEC + 200000000, 101, EV_LOCK, 0, 2500000000ull, 8);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	CHECK_RC(pgwt_tf_sum_builder_finish(b));
	pgwt_tf_sum_builder_free(b);
	CHECKF(g.n == 1, "%u seconds", g.n);
	if (g.n != 1)
		return;
	/* inside, the lock wait began before "from": records */
	CHECK(!range_row(&g.dec[0].s, 8 * SEC, 12 * SEC, EV_LOCK, &fit, &row) &&
		  fit == PGWT_SUM_NEEDS_RECORDS);
	/* inside, every wait began inside: the frame as it is */
	CHECK(range_row(&g.dec[0].s, 7 * SEC, 12 * SEC, EV_LOCK, &fit, &row) &&
		  fit == PGWT_SUM_BILLED && row.waits == 1 && row.exact_ns == 2500000000ull &&
		  row.max_ns == 2500000000ull);
	/* after the range: the lock wait counted, cut to [7.7 s, 9 s) */
	CHECK(range_row(&g.dec[0].s, 5 * SEC, 9 * SEC, EV_LOCK, &fit, &row) &&
		  fit == PGWT_SUM_BILLED);
	CHECKF(row.waits == 1 && row.exact_ns == 1300000000ull && row.max_ns == 1300000000ull &&
		   row.avg_ns == 1300000000ull, "waits %llu ns %llu max %llu",
		   (unsigned long long) row.waits, (unsigned long long) row.exact_ns,
		   (unsigned long long) row.max_ns);
	/* ... and cut at both ends */
	CHECK(range_row(&g.dec[0].s, 8 * SEC, 9 * SEC, EV_LOCK, &fit, &row) &&
		  row.waits == 1 && row.exact_ns == SEC && row.max_ns == SEC);
	got_free(&g);
}

static void
test_billing_and_crossings(void)
{
	got_seconds g = {0};
	pgwt_tf_sum_builder *b;
	pgwt_record r;
	const pgwt_tf_second *s;
	const pgwt_tf_sum_event *e;

	CHECK_RC(pgwt_tf_sum_builder_create(got_cb, &g, &b));
	/* second 10: a 300 us IO wait, a lock wait that began 2.5 s earlier */
	r = tr(10 * SEC + 500000, 100, EV_IO, 0, 300000, 7);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = tr(10 * SEC + 200000000, 101, EV_LOCK, 0, 2700000000ull, 8);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = smp(10 * SEC + 300000000, 102, EV_READ, 10000000, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	/* the backend exits in second 11 */
	r = tr(11 * SEC + 1, 100, 0, PGWT_EVENT_EXIT, 1000, 7);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	CHECK(g.n == 0);			/* nothing is written within the lag */
	r = tr(13 * SEC + 5, 103, 0, EV_IO, 10, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	CHECKF(g.n == 1, "%u seconds written", g.n);
	CHECK_RC(pgwt_tf_sum_builder_finish(b));
	pgwt_tf_sum_builder_free(b);
	CHECKF(g.n == 3, "%u seconds", g.n);

	s = &g.dec[0].s;
	CHECK(s->sec_ts == 10 * SEC);
	CHECK(s->flags == (PGWT_TF_SUM_F_EXACT | PGWT_TF_SUM_F_SAMPLED));
	CHECK(s->c.exact_records == 2 && s->c.sample_records == 1);
	CHECK((e = find_event(s, EV_IO)) != NULL);
	CHECK(e->st.waits == 1 && e->st.exact_ns == 300000 && e->st.max_ns == 300000);
	CHECK(e->hist_us[9] == 1);	/* [256, 512) us */
	CHECK((e = find_event(s, EV_LOCK)) != NULL);
	/* only the part inside the second; the wait is counted in full */
	CHECK(e->st.exact_ns == 200000000 && e->st.completed_ns == 2700000000ull);
	CHECK(s->ncrossings == 1 && s->crossings[0].pid == 101 &&
		  s->crossings[0].ns == 2500000000ull && s->crossings[0].query_id == 8);
	CHECK((e = find_event(s, EV_READ)) != NULL && e->st.sampled_ns == 10000000 &&
		  e->st.samples == 1 && e->st.waits == 0);
	CHECK(s->npids == 3 && s->npid_events == 3 && s->nquery_events == 3);
	CHECK(s->cover_lo == 10 * SEC && s->cover_hi == 10 * SEC + 300000000);
	CHECK(!pgwt_tf_second_folded(s) && s->c.late_records == 0);
	s = &g.dec[1].s;
	CHECK(s->sec_ts == 11 * SEC && s->npids == 1 && (s->pids[0].flags & PGWT_TF_SUM_PID_EXITED));
	/* the minute rollup: the lock wait began inside minute 0, so all of
	 * it is billed time there and nothing crosses */
	CHECK(g.nminutes == 1);
	s = &g.minute.s;
	CHECK(s->sec_ts == 0 && s->span_ns == 60 * SEC && (s->flags & PGWT_TF_SUM_F_MINUTE));
	CHECK(s->ncrossings == 0 && s->c.exact_records == 4);
	CHECK((e = find_event(s, EV_LOCK)) != NULL && e->st.exact_ns == 2700000000ull &&
		  e->st.waits == 1);
	CHECK(s->cover_lo == 7500000000ull);
	/* a round trip re-encodes to the same bytes */
	{
		uint8_t    *again = malloc(pgwt_tf_second_encoded_max(&g.dec[0].s));
		size_t		len = pgwt_tf_second_encode(&g.dec[0].s, again);

		CHECK(len == g.len[0] && memcmp(again, g.enc[0], len) == 0);
		free(again);
	}
	got_free(&g);
}

/*
 * Every stat keeps its shortest wait (version 2): a second's event, pid and
 * query rows and the minute rollup; a shortest of 0 (unknown, as version 1
 * files read) re-encodes and reads back as 0.
 */
static void
test_min_wait(void)
{
	got_seconds g = {0};
	pgwt_tf_sum_builder *b;
	pgwt_record r;
	const pgwt_tf_sum_event *e;
	pgwt_tf_second_buf d;

	CHECK_RC(pgwt_tf_sum_builder_create(got_cb, &g, &b));
	r = tr(10 * SEC + 500000, 100, EV_IO, 0, 900000, 7);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = tr(10 * SEC + 900000, 100, EV_IO, 0, 300000, 7);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = tr(11 * SEC + 900000, 100, EV_IO, 0, 200000, 7);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	CHECK_RC(pgwt_tf_sum_builder_finish(b));
	pgwt_tf_sum_builder_free(b);
	CHECKF(g.n == 2, "%u seconds", g.n);
	CHECK((e = find_event(&g.dec[0].s, EV_IO)) != NULL && e->st.waits == 2 &&
		  e->st.min_ns == 300000 && e->st.max_ns == 900000);
	CHECK(g.dec[0].s.npid_events == 1 && g.dec[0].s.pid_events[0].st.min_ns == 300000);
	CHECK(g.dec[0].s.nquery_events == 1 && g.dec[0].s.query_events[0].st.min_ns == 300000);
	CHECK((e = find_event(&g.dec[1].s, EV_IO)) != NULL && e->st.min_ns == 200000 &&
		  e->st.max_ns == 200000);
	CHECK(g.nminutes == 1 && (e = find_event(&g.minute.s, EV_IO)) != NULL &&
		  e->st.waits == 3 && e->st.min_ns == 200000 && e->st.max_ns == 900000);
	/* unknown (0) survives a round trip */
	{
		pgwt_tf_sum_event *w = (pgwt_tf_sum_event *) find_event(&g.dec[0].s, EV_IO);
		uint8_t    *again = malloc(pgwt_tf_second_encoded_max(&g.dec[0].s));

		w->st.min_ns = 0;
		memset(&d, 0, sizeof(d));
		CHECK(pgwt_tf_second_decode(again, pgwt_tf_second_encode(&g.dec[0].s, again), &d) >= 0);
		CHECK((e = find_event(&d.s, EV_IO)) != NULL && e->st.min_ns == 0 && e->st.max_ns == 900000);
		pgwt_tf_second_buf_free(&d);
		free(again);
	}
	got_free(&g);
}

static void
test_caps_late_and_escalation(void)
{
	got_seconds g = {0};
	pgwt_tf_sum_builder *b;
	pgwt_record r;
	const pgwt_tf_second *s;
	const pgwt_tf_sum_event *e;
	uint32_t	i;

	CHECK_RC(pgwt_tf_sum_builder_create(got_cb, &g, &b));
	/* more distinct events than the cap in second 5 */
	for (i = 0; i < PGWT_TF_SUM_MAX_EVENTS + 10; i++)
	{
		r = tr(5 * SEC + i, 1, 0x0A000100u + i, 0, 1, 0);
		CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	}
	/* an escalation window [6.1 s, 6.5 s): the sample inside is superseded */
	r = tr(6 * SEC + 100000000, 0, 1, PGWT_MARKER_ESC_START, 0, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = smp(6 * SEC + 200000000, 2, EV_IO, 10000000, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = tr(6 * SEC + 500000000, 0, 1, PGWT_MARKER_ESC_END, 400000000, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = smp(6 * SEC + 600000000, 2, EV_IO, 10000000, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	/* move on, then a record for second 5, already written: late */
	r = smp(9 * SEC, 2, EV_IO, 10000000, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	r = smp(5 * SEC + 7, 2, EV_IO, 10000000, 0);
	CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	CHECK_RC(pgwt_tf_sum_builder_finish(b));
	pgwt_tf_sum_builder_free(b);
	CHECKF(g.n == 3, "%u seconds", g.n);

	s = &g.dec[0].s;
	CHECK(s->nevents == PGWT_TF_SUM_MAX_EVENTS && s->c.folded_events == 10);
	CHECK(s->other_event.waits == 10 && s->other_event.exact_ns == 10);
	CHECK(pgwt_tf_second_folded(s));
	s = &g.dec[1].s;
	CHECK(s->sec_ts == 6 * SEC && s->c.esc_markers == 2 && s->c.markers == 2);
	CHECK((e = find_event(s, EV_IO)) != NULL);
	CHECK(e->superseded_samples == 1 && e->superseded_ns == 10000000);
	CHECK(e->st.samples == 1 && s->c.sample_records == 1);
	CHECK(!(s->flags & PGWT_TF_SUM_F_ESC_AT_START) && !(s->flags & PGWT_TF_SUM_F_ESC_AT_END));
	/* the late record is reported in the next second written */
	s = &g.dec[2].s;
	CHECK(s->sec_ts == 9 * SEC && s->c.late_records == 1);
	got_free(&g);
}

/* Every truncation and every single-byte change of real payloads is
 * refused or decodes to a second that re-encodes without trouble. */
static void
test_codec_damage(void)
{
	got_seconds g = {0};
	pgwt_tf_sum_builder *b;
	pgwt_tf_second_buf d;
	pgwt_record r;
	unsigned	k,
				refused = 0,
				accepted = 0;
	size_t		i,
				cut;

	memset(&d, 0, sizeof(d));
	CHECK_RC(pgwt_tf_sum_builder_create(got_cb, &g, &b));
	for (k = 0; k < 300; k++)
	{
		r = tr(20 * SEC + k * 3000000ull, 10 + k % 7, EV_IO + k % 3, 0,
			   k % 5 == 0 ? 1500000000ull : 200000ull + k, k % 4);
		CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
		r = smp(20 * SEC + k * 3000000ull + 1, 10 + k % 5, EV_READ, 10000000, k % 3);
		CHECK_RC(pgwt_tf_sum_builder_add(b, &r));
	}
	CHECK_RC(pgwt_tf_sum_builder_finish(b));
	pgwt_tf_sum_builder_free(b);
	CHECK(g.n >= 1);
	for (cut = 0; cut < g.len[0]; cut++)
		CHECK(pgwt_tf_second_decode(g.enc[0], cut, &d) < 0);
	for (i = 0; i < g.len[0]; i++)
	{
		uint8_t    *p = malloc(g.len[0]);
		int			bit;

		for (bit = 0; bit < 8; bit += 3)
		{
			memcpy(p, g.enc[0], g.len[0]);
			p[i] ^= (uint8_t) (1u << bit);
			if (pgwt_tf_second_decode(p, g.len[0], &d) < 0)
				refused++;
			else
			{
				uint8_t    *again = malloc(pgwt_tf_second_encoded_max(&d.s));

				(void) pgwt_tf_second_encode(&d.s, again);
				free(again);
				accepted++;
				if (d.s.sec_ts % SEC != 0)
				{
					free(p);
					CHECK(!"decoded sec_ts not on a second");
				}
			}
		}
		free(p);
	}
	printf("# damaged summary payloads: %u refused, %u decoded within range\n", refused, accepted);
	CHECK(refused > 0);
	pgwt_tf_second_buf_free(&d);
	got_free(&g);
}

/* ---- files -------------------------------------------------------------------- */

static uint64_t now_rt,
			now_mono;

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

static pgwt_tf_dir_opts
dopts(void)
{
	pgwt_tf_dir_opts o;

	memset(&o, 0, sizeof(o));
	o.file.group_gid = -1;
	o.file.clock.realtime_ns = clk_rt;
	o.file.clock.monotonic_ns = clk_mono;
	return o;
}

static bool
exists(const char *dir, const char *name)
{
	char		p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

static unsigned
count_seconds(const char *path, pgwt_tf_sum_read_stats *stats)
{
	pgwt_tf_sum_reader *r;
	const pgwt_tf_second *s;
	unsigned	n = 0;

	if (pgwt_tf_sum_reader_open(path, 0, UINT64_MAX, &r) < 0)
		return 9999;
	while (pgwt_tf_sum_reader_next(r, &s) == 1)
		if (!(s->flags & PGWT_TF_SUM_F_MINUTE))
			n++;
	if (stats)
		*stats = *pgwt_tf_sum_reader_stats(r);
	pgwt_tf_sum_reader_close(r);
	return n;
}

/* Records over [t0, t0 + secs) seconds, 10 per second. */
static int
write_secs(pgwt_tf_dir_writer *d, uint64_t t0, unsigned secs)
{
	unsigned	i;
	int			rc;

	for (i = 0; i < secs * 10; i++)
	{
		pgwt_record r = tr(t0 + i * (SEC / 10), 50, EV_IO, 0, 1000, 1);

		if ((rc = pgwt_tf_dir_append(d, &r)) < 0)
			return rc;
	}
	return 0;
}

static void
test_live_crash_recovery(void)
{
	char		dir[256],
				p[512];
	pgwt_tf_dir_opts o = dopts();
	pgwt_tf_file_writer *w;
	pgwt_tf_dir_writer *d;
	pgwt_tf_sum_read_stats st;
	struct stat sb;
	unsigned	n,
				i;
	off_t		before;
	int			fd;

	tft_mkdtemp(dir, sizeof(dir));
	now_rt = 1700000000000000000ull;	/* 22:13:20 UTC */
	now_mono = 100 * SEC;
	/* a live file written by a writer that then dies (abandon) */
	o.file.write_meta = true;
	snprintf(p, sizeof(p), "%s/current.trace", dir);
	CHECK_RC(pgwt_tf_file_writer_create(p, &o.file, &w));
	CHECK(exists(dir, "current.trace.sum") && exists(dir, "current.trace.sum.meta"));
	for (i = 0; i < 100; i++)
	{
		pgwt_record r = tr(100 * SEC + i * (SEC / 10), 50, EV_IO, 0, 1000, 1);

		CHECK_RC(pgwt_tf_file_writer_append(w, &r));
	}
	CHECK_RC(pgwt_tf_file_writer_flush(w));
	/* the summary lags the trace: seconds 100..106 are written */
	n = count_seconds(dir, NULL);
	CHECKF(n == 7, "live seconds %u", n);
	pgwt_tf_file_writer_abandon(w);
	/* a torn frame at the end, as a crash in the middle of a write leaves */
	snprintf(p, sizeof(p), "%s/current.trace.sum", dir);
	CHECK(stat(p, &sb) == 0);
	before = sb.st_size;
	fd = open(p, O_WRONLY | O_APPEND);
	CHECK(fd >= 0);
	CHECK(write(fd, "\x00\xca\x9a\x3b\x00\x00\x00\x00\x40\x00\x00\x00garbage", 19) == 19);
	close(fd);
	/* a live reader still stops at the committed count */
	n = count_seconds(dir, &st);
	CHECKF(n == 7 && st.frames_bad == 0, "live seconds %u, bad %llu", n,
		   (unsigned long long) st.frames_bad);
	/* the next writer recovers both: archives beside each other, tail cut */
	o.file.write_meta = false;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECK(pgwt_tf_dir_writer_stats(d)->recovered == 1);
	CHECK(pgwt_tf_dir_writer_stats(d)->recovered_bytes_cut >= 19);
	CHECK(exists(dir, "2023-11-14_22.trace.lz4") && exists(dir, "2023-11-14_22.trace.lz4.sum"));
	CHECK(!exists(dir, "2023-11-14_22.trace.lz4.sum.meta"));
	snprintf(p, sizeof(p), "%s/2023-11-14_22.trace.lz4.sum", dir);
	CHECK(stat(p, &sb) == 0 && sb.st_size == before);
	n = count_seconds(p, &st);
	CHECKF(n == 7 && st.frames_bad == 0 && st.bytes_truncated == 0, "archived seconds %u", n);
	CHECK_RC(pgwt_tf_dir_close(d));
	tft_rmdir(dir);
}

static void
test_rotation_and_retention(void)
{
	char		dir[256];
	pgwt_tf_dir_opts o = dopts();
	pgwt_tf_dir_writer *d;
	int			h;
	unsigned	n;

	tft_mkdtemp(dir, sizeof(dir));
	now_rt = 1700000000000000000ull;
	now_mono = 100 * SEC;
	o.retention_hours = 2;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	for (h = 0; h < 4; h++)
	{
		CHECK_RC(write_secs(d, now_mono, 5));
		now_rt += 3600 * SEC;
		now_mono += 3600 * SEC;
		CHECK_RC(pgwt_tf_dir_tick(d));
	}
	/* hours 22, 23, 00, 01 archived; retention kept the last two */
	CHECK(!exists(dir, "2023-11-14_22.trace.lz4.sum") && !exists(dir, "2023-11-14_23.trace.lz4.sum"));
	CHECK(exists(dir, "2023-11-15_00.trace.lz4") && exists(dir, "2023-11-15_00.trace.lz4.sum"));
	CHECK(exists(dir, "2023-11-15_01.trace.lz4") && exists(dir, "2023-11-15_01.trace.lz4.sum"));
	CHECK(exists(dir, "current.trace.sum"));
	CHECK_RC(pgwt_tf_dir_close(d));
	CHECK(!exists(dir, "current.trace.sum"));
	n = count_seconds(dir, NULL);
	CHECKF(n == 10, "seconds %u", n);
	tft_rmdir(dir);
}

static void
test_no_summary_and_old_directories(void)
{
	char		dir[256],
				cmd[1024];
	pgwt_tf_dir_opts o = dopts();
	pgwt_tf_dir_writer *d;
	pgwt_tf_sum_reader *r;
	pgwt_tf_reader *tr_;
	pgwt_record rec;
	unsigned	n = 0;

	tft_mkdtemp(dir, sizeof(dir));
	now_rt = 1700000000000000000ull;
	now_mono = 100 * SEC;
	o.file.no_summary = true;
	CHECK_RC(pgwt_tf_dir_open(dir, &o, &d));
	CHECK(!exists(dir, "current.trace.sum"));
	CHECK_RC(write_secs(d, now_mono, 3));
	CHECK_RC(pgwt_tf_dir_close(d));
	CHECK(!exists(dir, "2023-11-14_22.trace.lz4.sum"));
	CHECK(pgwt_tf_sum_reader_open(dir, 0, UINT64_MAX, &r) == -PGWT_TF_NOT_FOUND);
	/* a seed-format (v3) file beside it: the trace reads, no summary */
	snprintf(cmd, sizeof(cmd), "cp '%s/v3_mixed.trace.lz4' '%s/2023-11-14_21.trace.lz4'",
			 golden_dir, dir);
	CHECK(system(cmd) == 0);
	CHECK(pgwt_tf_sum_reader_open(dir, 0, UINT64_MAX, &r) == -PGWT_TF_NOT_FOUND);
	CHECK_RC(pgwt_tf_reader_open(dir, NULL, &tr_));
	while (pgwt_tf_reader_next(tr_, &rec) == 1)
		n++;
	CHECK(pgwt_tf_reader_stats(tr_)->files == 2 && pgwt_tf_reader_stats(tr_)->files_bad == 0);
	pgwt_tf_reader_close(tr_);
	CHECK(n > 30);
	/* a trace file is not a summary file */
	snprintf(cmd, sizeof(cmd), "%s/2023-11-14_21.trace.lz4", dir);
	CHECK(pgwt_tf_sum_reader_open(cmd, 0, UINT64_MAX, &r) < 0);
	tft_rmdir(dir);
}

int
main(int argc, char **argv)
{
	golden_dir = argc > 1 ? argv[1] : "test/golden";
	RUN(test_billing_and_crossings);
	RUN(test_min_wait);
	RUN(test_range_billing);
	RUN(test_caps_late_and_escalation);
	RUN(test_codec_damage);
	RUN(test_live_crash_recovery);
	RUN(test_rotation_and_retention);
	RUN(test_no_summary_and_old_directories);
	return tft_failures ? 1 : 0;
}
