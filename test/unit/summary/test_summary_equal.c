/*
 * test_summary_equal.c
 *		Raw path vs summary path on a trace directory: for many windows
 *		(whole seconds, seconds cut at either or both ends, windows without
 *		a whole second, the whole trace), every aggregate view (time model,
 *		system_event, session_event, query_event, histogram of every event)
 *		computed from records equals the one computed from per-second
 *		summaries plus records for the partial seconds.
 *
 * The raw path is pgwt-dump's: the records in [from, to + 600 s] cut to
 * [from, to) (pgwt_range_clip) into an engine window [from, to + 1 ns)
 * (pgwt_range_window_end). The summary path is pgwt_summary_load (minute
 * rollups, seconds, crossings of later seconds, records at the edges),
 * which gives the same answer for every column (waits, max and histograms
 * too); where it declines, the raw path. A
 * control run bills one second twice and must differ, so the comparison
 * can fail.
 *
 * Usage: test_summary_equal DIR [SEED]   (DIR written by pgwt-synth -o)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/range_load.h"
#include "analysis/summary.h"
#include "analysis/summary_load.h"
#include "analysis/views.h"
#include "tracefmt/summary.h"
#include "tracefmt/tracefmt.h"

#define SLACK_NS (600ull * 1000000000ull)
#define SEC 1000000000ull

static const char *dir;
/* engine clock = trace clock + shift (0, or the files' realtime offset) */
static int64_t shift;
static int	failures;
static char why[512];

#define DIFF(...) do { if (!why[0]) snprintf(why, sizeof(why), __VA_ARGS__); } while (0)

/* the range records are cut to (engine clock); clip_to 0 = not cut */
static uint64_t clip_from,
			clip_to;

static void
feed_range(pgwt_engine *eng, uint64_t lo, uint64_t hi_excl)
{
	pgwt_tf_read_opts ro = {0};
	pgwt_tf_reader *r;
	pgwt_tf_block b;
	int			rc;

	if (hi_excl <= lo)
		return;
	ro.t_start = lo;
	ro.t_end = hi_excl - 1;
	if (pgwt_tf_reader_open(dir, &ro, &r) < 0)
	{
		DIFF("cannot open %s", dir);
		return;
	}
	while ((rc = pgwt_tf_reader_next_block(r, &b)) == 1)
	{
		static pgwt_record batch[PGWT_TF_BLOCK_MAX_RECORDS];
		uint32_t	i,
					n = 0;

		for (i = 0; i < b.n; i++)
		{
			pgwt_record rec = b.recs[i];

			rec.ts_ns += (uint64_t) shift;
			if (!clip_to)
				batch[n++] = rec;
			else if (pgwt_range_clip(&rec, clip_from, clip_to, &batch[n]))
				n++;
		}
		pgwt_engine_add_many(eng, batch, n);
	}
	pgwt_tf_reader_close(r);
}

/* Bills the summaries of seconds in [lo, hi); counts them. */
static bool
bill_seconds(pgwt_engine *eng, uint64_t lo, uint64_t hi, unsigned *nsec, bool twice)
{
	pgwt_tf_sum_reader *sr;
	const pgwt_tf_second *s;
	int			rc;

	if (hi <= lo)
		return true;
	if (pgwt_tf_sum_reader_open(dir, lo, hi - 1, &sr) < 0)
		return false;
	while ((rc = pgwt_tf_sum_reader_next(sr, &s)) == 1)
	{
		if (!pgwt_summary_bill_second(eng, 0, s))
		{
			pgwt_tf_sum_reader_close(sr);
			return false;
		}
		if (twice && *nsec == 0)
			pgwt_summary_bill_second(eng, 0, s);
		(*nsec)++;
	}
	pgwt_tf_sum_reader_close(sr);
	return rc == 0;
}

static pgwt_engine *
new_engine(uint64_t from, uint64_t to)
{
	pgwt_engine_config cfg = {0};
	pgwt_window_spec spec;

	memset(&spec, 0, sizeof(spec));
	spec.from_ns = from;
	spec.to_ns = to;
	snprintf(spec.label, sizeof(spec.label), "w");
	return pgwt_engine_create(&cfg, &spec, 1, NULL);
}

static pgwt_engine *
raw_engine(uint64_t from, uint64_t to)
{
	pgwt_engine *e = new_engine(from + (uint64_t) shift,
								pgwt_range_window_end(to + (uint64_t) shift));

	clip_from = from + (uint64_t) shift;
	clip_to = to + (uint64_t) shift;
	feed_range(e, from, to + SLACK_NS + 1);
	clip_to = 0;
	pgwt_engine_flush(e);
	return e;
}

static pgwt_engine *
summary_engine(uint64_t from, uint64_t to, unsigned *nsec, bool twice)
{
	pgwt_engine *e = new_engine(from, to);
	pgwt_summary_plan p;
	unsigned	i;

	pgwt_summary_plan_window(from, to, SLACK_NS, &p);
	*nsec = 0;
	if (p.use_summary &&
		(!bill_seconds(e, p.sum_from_ns, p.sum_to_ns, nsec, twice) ||
		 !bill_seconds(e, p.after_from_ns, p.after_to_ns, nsec, false)))
	{
		DIFF("a summary second was not usable");
		pgwt_engine_free(e);
		return NULL;
	}
	for (i = 0; i < p.nraw; i++)
		feed_range(e, p.raw_lo[i], p.raw_hi[i]);
	pgwt_engine_flush(e);
	return e;
}

/* ---- comparison ------------------------------------------------------------ */

static bool
row_eq(const pgwt_event_row *a, const pgwt_event_row *b)
{
	return a->event == b->event && a->pid == b->pid && a->query_id == b->query_id &&
		a->other == b->other && a->idle == b->idle && a->fidelity == b->fidelity &&
		a->waits_known == b->waits_known && a->waits == b->waits &&
		a->total_ns == b->total_ns && a->exact_ns == b->exact_ns &&
		a->sampled_ns == b->sampled_ns && a->avg_known == b->avg_known &&
		a->avg_ns == b->avg_ns && a->max_known == b->max_known &&
		a->max_ns == b->max_ns && a->pct_db == b->pct_db;
}

static int
row_cmp(const void *x, const void *y)
{
	const pgwt_event_row *a = x,
			   *b = y;

	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->query_id != b->query_id)
		return a->query_id < b->query_id ? -1 : 1;
	return (int) a->other - (int) b->other;
}

static void
cmp_rows(const char *view, pgwt_event_rows *a, pgwt_event_rows *b)
{
	size_t		i;

	if (a->n != b->n)
	{
		DIFF("%s: %zu rows raw, %zu summary", view, a->n, b->n);
		return;
	}
	if (a->n == 0)
		return;					/* no rows: nothing to sort (NULL arrays) */
	qsort(a->rows, a->n, sizeof(*a->rows), row_cmp);
	qsort(b->rows, b->n, sizeof(*b->rows), row_cmp);
	for (i = 0; i < a->n; i++)
		if (!row_eq(&a->rows[i], &b->rows[i]))
		{
			DIFF("%s: row event 0x%08x pid %u query %" PRIu64 ": total %" PRIu64 "/%" PRIu64
				 " waits %" PRIu64 "/%" PRIu64 " max %" PRIu64 "/%" PRIu64,
				 view, a->rows[i].event, a->rows[i].pid, a->rows[i].query_id,
				 a->rows[i].total_ns, b->rows[i].total_ns, a->rows[i].waits,
				 b->rows[i].waits, a->rows[i].max_ns, b->rows[i].max_ns);
			return;
		}
}

static int
sess_cmp(const void *x, const void *y)
{
	const pgwt_session_row *a = x,
			   *b = y;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static void
cmp_sessions(pgwt_session_rows *a, pgwt_session_rows *b)
{
	size_t		i;

	if (a->n != b->n)
	{
		DIFF("session_event: %zu rows raw, %zu summary", a->n, b->n);
		return;
	}
	if (a->n == 0)
		return;					/* no rows: nothing to sort (NULL arrays) */
	qsort(a->rows, a->n, sizeof(*a->rows), sess_cmp);
	qsort(b->rows, b->n, sizeof(*b->rows), sess_cmp);
	for (i = 0; i < a->n; i++)
	{
		const pgwt_session_row *x = &a->rows[i],
				   *y = &b->rows[i];

		if (x->pid != y->pid || x->other != y->other || x->exited != y->exited ||
			x->fidelity != y->fidelity || x->db_ns != y->db_ns || x->cpu_ns != y->cpu_ns ||
			x->wait_ns != y->wait_ns || x->idle_ns != y->idle_ns ||
			x->cpu_pct != y->cpu_pct || x->wait_pct != y->wait_pct ||
			x->has_top_wait != y->has_top_wait || x->top_wait != y->top_wait ||
			x->top_wait_ns != y->top_wait_ns)
		{
			DIFF("session_event: pid %u db %" PRIu64 "/%" PRIu64 " idle %" PRIu64 "/%" PRIu64,
				 x->pid, x->db_ns, y->db_ns, x->idle_ns, y->idle_ns);
			return;
		}
	}
}

static void
cmp_summary(const pgwt_window_summary *a, const pgwt_window_summary *b)
{
#define F(f) if (a->f != b->f) { DIFF("summary." #f ": %.17g raw, %.17g summary", (double) a->f, (double) b->f); return; }
	F(fidelity);
	F(exact_records);
	F(sample_records);
	F(data_first_ns);
	F(data_last_ns);
	F(db_ns);
	F(cpu_ns);
	F(wait_ns);
	F(idle_ns);
	F(db_exact_ns);
	F(db_sampled_ns);
	F(backends);
	F(aas);
	F(other_event_records);
	F(other_session_records);
#undef F
}

static void
cmp_time_model(const pgwt_time_model *a, const pgwt_time_model *b)
{
	unsigned	i,
				j;

	cmp_summary(&a->sum, &b->sum);
	if (a->nclasses != b->nclasses)
	{
		DIFF("time_model: %u classes raw, %u summary", a->nclasses, b->nclasses);
		return;
	}
	for (i = 0; i < a->nclasses; i++)
	{
		const pgwt_tm_class *x = &a->classes[i],
				   *y = &b->classes[i];

		if (x->class_index != y->class_index || x->total_ns != y->total_ns ||
			x->pct_db != y->pct_db || x->fidelity != y->fidelity || x->ntop != y->ntop)
		{
			DIFF("time_model: class %u total %" PRIu64 "/%" PRIu64, x->class_index,
				 x->total_ns, y->total_ns);
			return;
		}
		for (j = 0; j < x->ntop; j++)
			if (!row_eq(&x->top[j], &y->top[j]))
			{
				DIFF("time_model: class %u top %u differs", x->class_index, j);
				return;
			}
	}
}

static void
cmp_hist(uint32_t ev, const pgwt_histogram *a, const pgwt_histogram *b)
{
	if (a->event != b->event || a->fidelity != b->fidelity || a->waits != b->waits ||
		a->completed_ns != b->completed_ns || a->max_ns != b->max_ns ||
		a->sampled_ns != b->sampled_ns ||
		memcmp(a->ns, b->ns, sizeof(a->ns)) != 0)
		DIFF("histogram 0x%08x: waits %" PRIu64 "/%" PRIu64, ev, a->waits, b->waits);
}

/* Compares every aggregate view of window 0 of two engines. */
static void
compare_engines(const pgwt_engine *r, const pgwt_engine *s)
{
	pgwt_view_opts o = {0};
	pgwt_time_model tma,
				tmb;
	pgwt_event_rows ea = {0},
				eb = {0},
				qa = {0},
				qb = {0};
	pgwt_session_rows sa = {0},
				sb = {0};
	pgwt_view_status st1,
				st2;
	size_t		i;

	memset(&tma, 0, sizeof(tma));
	memset(&tmb, 0, sizeof(tmb));
	st1 = pgwt_view_time_model(r, 0, &tma);
	st2 = pgwt_view_time_model(s, 0, &tmb);
	if (st1 != st2)
		DIFF("time_model status %d/%d", st1, st2);
	cmp_time_model(&tma, &tmb);
	st1 = pgwt_view_system_event(r, 0, &o, &ea);
	st2 = pgwt_view_system_event(s, 0, &o, &eb);
	if (st1 != st2)
		DIFF("system_event status %d/%d", st1, st2);
	/* histograms of every event, before the rows are re-sorted */
	for (i = 0; i < ea.n; i++)
	{
		pgwt_histogram ha,
					hb;

		memset(&ha, 0, sizeof(ha));
		memset(&hb, 0, sizeof(hb));
		st1 = pgwt_view_histogram(r, 0, ea.rows[i].event, &ha);
		st2 = pgwt_view_histogram(s, 0, ea.rows[i].event, &hb);
		if (st1 != st2)
			DIFF("histogram 0x%08x status %d/%d", ea.rows[i].event, st1, st2);
		cmp_hist(ea.rows[i].event, &ha, &hb);
	}
	cmp_rows("system_event", &ea, &eb);
	st1 = pgwt_view_session_event(r, 0, &o, &sa);
	st2 = pgwt_view_session_event(s, 0, &o, &sb);
	if (st1 != st2)
		DIFF("session_event status %d/%d", st1, st2);
	cmp_sessions(&sa, &sb);
	st1 = pgwt_view_query_event(r, 0, &o, &qa);
	st2 = pgwt_view_query_event(s, 0, &o, &qb);
	if (st1 != st2)
		DIFF("query_event status %d/%d", st1, st2);
	cmp_rows("query_event", &qa, &qb);
	pgwt_event_rows_free(&ea);
	pgwt_event_rows_free(&eb);
	pgwt_event_rows_free(&qa);
	pgwt_event_rows_free(&qb);
	pgwt_session_rows_free(&sa);
	pgwt_session_rows_free(&sb);
}
/* The summary path over the trace directory, engine clock = trace + shift. */
static int
load_at(pgwt_engine *e, const char *path, int64_t sh, pgwt_summary_load_stats *st)
{
	pgwt_tf_trace_source src;
	int			rc;

	memset(st, 0, sizeof(*st));
	if ((rc = pgwt_tf_trace_source_open(path, &src)) < 0)
		return rc;
	rc = pgwt_summary_load_source(e, 0, &src, SLACK_NS, sh, st);
	pgwt_tf_trace_source_close(&src);
	return rc;
}


static void
check_window(const char *name, uint64_t from, uint64_t to, bool expect_summary)
{
	pgwt_engine *r,
			   *s;
	pgwt_summary_load_stats st;
	int			rc;

	why[0] = '\0';
	r = raw_engine(from, to);
	s = new_engine(from + (uint64_t) shift, pgwt_range_window_end(to + (uint64_t) shift));
	rc = load_at(s, dir, shift, &st);
	if (rc == 0 && !st.used_summary)
	{
		/* declined: the caller reads the range from records */
		clip_from = from + (uint64_t) shift;
		clip_to = to + (uint64_t) shift;
		feed_range(s, from, to + SLACK_NS + 1);
		clip_to = 0;
	}
	pgwt_engine_flush(s);
	if (rc < 0)
		DIFF("pgwt_summary_load_source: %s", pgwt_tf_strerror(rc));
	if (r && s)
		compare_engines(r, s);
	if (expect_summary && !st.used_summary)
		DIFF("summaries not used: %s", st.why_raw);
	if (why[0])
	{
		printf("FAIL equal-%s%s: [%" PRIu64 ", %" PRIu64 "): %s\n", name, shift ? "-realtime" : "",
			   from, to, why);
		failures++;
	}
	else
		printf("PASS equal-%s%s (%" PRIu64 " minutes, %" PRIu64 " seconds, %" PRIu64 " records)\n",
			   name, shift ? "-realtime" : "", st.minutes, st.seconds, st.records);
	pgwt_engine_free(r);
	pgwt_engine_free(s);
}

/* The comparison can fail: billing one second twice must be noticed. */
static void
check_control(uint64_t from, uint64_t to)
{
	pgwt_engine *r = raw_engine(from, to),
			   *s;
	unsigned	nsec = 0;

	why[0] = '\0';
	s = summary_engine(from, to, &nsec, true);
	if (r && s)
		compare_engines(r, s);
	if (why[0] && nsec > 0)
		printf("PASS equal-control-detects-double-billing\n");
	else
	{
		printf("FAIL equal-control-detects-double-billing: no difference found\n");
		failures++;
	}
	pgwt_engine_free(r);
	pgwt_engine_free(s);
}

static uint64_t rng_state;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

int
main(int argc, char **argv)
{
	pgwt_tf_reader *r;
	pgwt_record rec;
	uint64_t	lo = UINT64_MAX,
				hi = 0;
	uint64_t	first,
				last;
	int			i;

	if (argc < 2)
	{
		fprintf(stderr, "usage: test_summary_equal DIR [SEED]\n");
		return 2;
	}
	dir = argv[1];
	rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) | 1 : 88172645463325252ull;
	if (pgwt_tf_reader_open(dir, NULL, &r) < 0)
	{
		fprintf(stderr, "test_summary_equal: cannot read %s\n", dir);
		return 2;
	}
	while (pgwt_tf_reader_next(r, &rec) == 1)
	{
		if (rec.ts_ns < lo)
			lo = rec.ts_ns;
		if (rec.ts_ns > hi)
			hi = rec.ts_ns;
	}
	pgwt_tf_reader_close(r);
	if (hi <= lo + 4 * SEC)
	{
		fprintf(stderr, "test_summary_equal: trace shorter than 4 s\n");
		return 2;
	}
	first = lo - lo % SEC + SEC;
	last = hi - hi % SEC;

	check_window("whole-trace-seconds", first - SEC, last + SEC, true);
	check_window("whole-seconds-inside", first + SEC, last - SEC, true);
	check_window("cut-both-ends", first + SEC / 3, last - SEC / 4, true);
	check_window("cut-start", first + 7 * SEC / 10, last, true);
	check_window("cut-end", first, first + 2 * SEC + SEC / 2, true);
	check_window("two-seconds-cut", first + SEC + 1, first + 3 * SEC + 999999999ull, true);
	check_window("no-whole-second", first + SEC / 10, first + 9 * SEC / 10, false);
	check_window("one-second", first + SEC, first + 2 * SEC, true);
	for (i = 0; i < 12; i++)
	{
		uint64_t	span = hi - lo;
		uint64_t	a = lo + rng() % span;
		uint64_t	b = a + 1 + rng() % (hi + SEC - a);
		char		name[32];

		snprintf(name, sizeof(name), "random-%d", i);
		check_window(name, a, b, false);
	}
	check_control(first, last);

	/* the same in wall-clock time (pgwt-dump's clock), and a wrong
	 * offset must fall back to records */
	{
		pgwt_tf_reader *hr;

		if (pgwt_tf_reader_open(dir, NULL, &hr) == 0)
		{
			const pgwt_tf_file_header *h = pgwt_tf_reader_file_header(hr, 0);

			shift = (int64_t) (h->start_realtime_ns - h->start_monotonic_ns);
			pgwt_tf_reader_close(hr);
		}
	}
	check_window("whole-seconds-inside", first + SEC, last - SEC, true);
	check_window("cut-both-ends", first + SEC / 3, last - SEC / 4, true);
	{
		pgwt_engine *e = new_engine(first + (uint64_t) shift,
									pgwt_range_window_end(last + (uint64_t) shift));
		pgwt_summary_load_stats st;

		if (load_at(e, dir, shift + 7, &st) == 0 && !st.used_summary)
			printf("PASS equal-wrong-offset-reads-records\n");
		else
		{
			printf("FAIL equal-wrong-offset-reads-records: summaries used\n");
			failures++;
		}
		pgwt_engine_free(e);
	}
	return failures ? 1 : 0;
}
