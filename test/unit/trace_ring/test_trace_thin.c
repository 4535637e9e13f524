/*
 * test_trace_thin.c
 *		Unit tests of how the trace writer thins statement markers for the
 *		files (extension/trace_records.h): which markers go, the durations
 *		and query ids of those that stay, and that the thinned stream bills
 *		exactly what the full one does. A pgbench-like ring stream of two
 *		backends (statements with waits, nested executor runs, utility
 *		statements, aborts, idle client reads, lost records) is converted
 *		both ways in batches of varying size; the transitions must be the
 *		same records, the statement and transaction markers the same ones,
 *		each within a grain of its instant. With --dirs FULL THIN OLD it
 *		also writes both to trace directories in the default version, and
 *		the thinned stream with exact instants in v7 (what the writer wrote
 *		before v8) to OLD, for test/suites/55-ext-trace-unit to compare
 *		every pgwt-dump view over the three, and prints their sizes.
 *		Run under ASan+UBSan by test/suites/55-ext-trace-unit.
 */
#include "extension/trace_records.h"
#include "common/event_ids.h"
#include "tracefmt/tracefmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int	t_failures;
static const char *t_name;

#define CHECK(cond) do { \
	if (!(cond)) { \
		printf("FAIL %s: %s (line %d)\n", t_name, #cond, __LINE__); \
		t_failures++; return; } } while (0)

static void
run(const char *name, void (*fn)(void))
{
	int			before = t_failures;

	t_name = name;
	fn();
	if (t_failures == before)
		printf("PASS %s\n", name);
}

#define EV_CR	PGWT_EVENT_CLIENT_READ
#define EV_DFR	0x0A000015u
#define EV_LOCK	0x03000004u

/* --- the rules, one by one ---------------------------------------------- */

static void
test_thin_rules(void)
{
	pgwt_tring_rec in[] = {
		{.pos = 0, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_IDLE, .start_ns = 1000, .query_id = 5},
		{.pos = 1, .kind = PGWT_TRING_WAIT, .event = EV_CR, .start_ns = 1000, .duration_ns = 500, .query_id = 5},
		{.pos = 2, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_STMT_START, .start_ns = 2000, .query_id = 9},
		{.pos = 3, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_EXEC_START, .start_ns = 2100, .query_id = 9},
		{.pos = 4, .kind = PGWT_TRING_WAIT, .event = EV_DFR, .start_ns = 2200, .duration_ns = 50, .query_id = 9},
		/* a function's query inside: its executor markers stay */
		{.pos = 5, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_EXEC_START, .start_ns = 2300, .query_id = 11},
		{.pos = 6, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_EXEC_END, .start_ns = 2400, .query_id = 11},
		{.pos = 7, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_EXEC_END, .start_ns = 2500, .query_id = 9},
		{.pos = 8, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_STMT_END, .start_ns = 2600, .query_id = 9},
		{.pos = 9, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_XACT_COMMIT, .start_ns = 2700},
		/* an idle marker whose wait is not next (lost): it stays */
		{.pos = 10, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_IDLE, .start_ns = 3000, .query_id = 9},
		{.pos = 12, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_EXEC_START, .start_ns = 4000, .query_id = 9},
		{.pos = 13, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_EXEC_END, .start_ns = 4100, .query_id = 9},
		/* the last of a batch: its wait is not seen yet, it stays */
		{.pos = 14, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_IDLE, .start_ns = 5000, .query_id = 9},
	};
	size_t		nin = sizeof(in) / sizeof(in[0]);
	pgwt_record out[2 * 16];
	pgwt_trace_stream s;
	size_t		n;

	pgwt_trace_stream_init(&s, 42, 0);
	s.marker_grain_ns = 1;		/* exact instants: the grain has its own test */
	n = pgwt_trace_convert(&s, in, nin, out);
	/* CR start and end (the idle marker opened the CPU span: 0 ns);
	 * CMD_START; DFR start+end; inner EXEC_START/END; CMD_END; COMMIT;
	 * IDLE; two EXEC markers after the loss; IDLE */
	CHECK(n == 13);
	CHECK(s.thinned_markers == 3);
	CHECK(out[0].new_event == EV_CR && out[0].ts_ns == 1000 && out[0].duration_ns == 0);
	CHECK(out[1].old_event == EV_CR && out[1].ts_ns == 1500);
	/* the marker's duration is the time since the last transition */
	CHECK(out[2].new_event == PGWT_MARKER_CMD_START && out[2].duration_ns == 500 &&
		  out[2].query_id == 9 && out[2].old_event == 0);
	/* the top-level EXEC_START is gone; the CPU* span is not cut by it */
	CHECK(out[3].new_event == EV_DFR && out[3].duration_ns == 700);
	CHECK(out[4].old_event == EV_DFR && out[4].ts_ns == 2250);
	CHECK(out[5].new_event == PGWT_MARKER_EXEC_START && out[5].query_id == 11 &&
		  out[5].duration_ns == 50);
	CHECK(out[6].new_event == PGWT_MARKER_EXEC_END && out[6].duration_ns == 150);
	CHECK(out[7].new_event == PGWT_MARKER_CMD_END && out[7].ts_ns == 2600 &&
		  out[7].duration_ns == 350 && out[7].query_id == 9);
	/* commit: the statement's query id, not 0 */
	CHECK(out[8].new_event == PGWT_MARKER_XACT_COMMIT && out[8].query_id == 9 &&
		  out[8].duration_ns == 450);
	CHECK(out[9].new_event == PGWT_MARKER_IDLE && out[9].ts_ns == 3000);
	/* after lost records the nesting is unknown: both stay */
	CHECK(out[10].new_event == PGWT_MARKER_EXEC_START && out[11].new_event == PGWT_MARKER_EXEC_END);
	CHECK(out[12].new_event == PGWT_MARKER_IDLE && out[12].ts_ns == 5000);

	/* the same records in full: every marker, durations and commit id 0 */
	pgwt_trace_stream_init(&s, 42, 0);
	s.full = true;
	n = pgwt_trace_convert(&s, in, nin, out);
	CHECK(n == 16 && s.thinned_markers == 0);
	for (size_t i = 0; i < n; i++)
		if (PGWT_IS_MARKER(out[i].new_event))
			CHECK(out[i].duration_ns == 0 &&
				  (out[i].new_event != PGWT_MARKER_XACT_COMMIT || out[i].query_id == 0));
}

/* --- a pgbench-like stream, converted both ways ------------------------- */

#define SYN_PIDS	2
#define SYN_TXNS	4000
#define SYN_MAX		(SYN_TXNS * 24)

static uint64_t syn_state;

static uint32_t
syn_rand(uint32_t n)
{
	syn_state = syn_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t) ((syn_state >> 33) % n);
}

typedef struct syn_ring
{
	pgwt_tring_rec recs[SYN_MAX];
	size_t		n;
	uint64_t	pos;
	uint64_t	now;
} syn_ring;

static void
syn_put(syn_ring *g, uint32_t kind, uint32_t ev, uint64_t dur, uint64_t qid)
{
	pgwt_tring_rec *r = &g->recs[g->n++];

	/* now and then a record is lost (overwritten before the drain) */
	if (syn_rand(500) == 0)
		g->pos++;
	r->pos = g->pos++;
	r->kind = kind;
	r->event = ev;
	r->start_ns = g->now;
	r->duration_ns = dur;
	r->query_id = qid;
	g->now += dur;
}

static void
syn_cpu(syn_ring *g, uint32_t mean)
{
	g->now += 1 + syn_rand(2 * mean);
}

static void
syn_wait(syn_ring *g, uint32_t ev, uint32_t mean, uint64_t qid)
{
	if (ev == EV_CR)
		syn_put(g, PGWT_TRING_MARKER, PGWT_TMARK_IDLE, 0, qid);
	syn_put(g, PGWT_TRING_WAIT, ev, 1 + syn_rand(2 * mean), qid);
}

static void
syn_marker(syn_ring *g, uint32_t m, uint64_t qid)
{
	syn_put(g, PGWT_TRING_MARKER, m, 0, qid);
	syn_cpu(g, 300);
}

/* One transaction of a backend: the shapes the hooks write. */
static void
syn_txn(syn_ring *g, uint64_t *last_qid)
{
	uint32_t	shape = syn_rand(20);
	uint64_t	qid = 1000 + syn_rand(4);

	if (syn_rand(3) != 0)
		syn_wait(g, EV_CR, 40000, *last_qid);
	syn_cpu(g, 20000);
	if (syn_rand(10) == 0)
		syn_wait(g, EV_LOCK, 3000, 0);	/* a parse's catalog wait */
	syn_marker(g, PGWT_TMARK_STMT_START, qid);
	if (shape == 0)
	{
		/* a utility statement */
		syn_marker(g, PGWT_TMARK_UTILITY_START, qid);
		syn_wait(g, EV_LOCK, 5000, qid);
		syn_marker(g, PGWT_TMARK_UTILITY_END, qid);
	}
	else
	{
		syn_marker(g, PGWT_TMARK_EXEC_START, qid);
		for (uint32_t k = syn_rand(4); k > 0; k--)
		{
			syn_wait(g, EV_DFR, 30000, qid);
			syn_cpu(g, 3000);
		}
		if (shape == 1)
		{
			/* a function's inner query */
			syn_marker(g, PGWT_TMARK_EXEC_START, qid + 100);
			syn_wait(g, EV_DFR, 30000, qid);
			syn_marker(g, PGWT_TMARK_EXEC_END, qid + 100);
		}
		if (shape == 2)
		{
			/* an error: no ends, the abort closes the statement */
			syn_marker(g, PGWT_TMARK_XACT_ABORT, 0);
			*last_qid = qid;
			return;
		}
		syn_marker(g, PGWT_TMARK_EXEC_END, qid);
	}
	syn_marker(g, PGWT_TMARK_STMT_END, qid);
	if (syn_rand(8) == 0)
		syn_wait(g, 0x0A000020u, 2000, qid);	/* a WAL write at commit */
	syn_marker(g, PGWT_TMARK_XACT_COMMIT, 0);
	*last_qid = qid;
}

static syn_ring syn_rings[SYN_PIDS];
static pgwt_record syn_out[3][2 * SYN_PIDS * SYN_MAX];
static size_t syn_nout[3];

static void
syn_build(uint64_t t0)
{
	syn_state = 12345;
	for (int p = 0; p < SYN_PIDS; p++)
	{
		syn_ring   *g = &syn_rings[p];
		uint64_t	last_qid = 0;

		g->n = 0;
		g->pos = 0;
		g->now = t0 + (uint64_t) p * 777;
		syn_put(g, PGWT_TRING_START, 0, 0, 0);
		for (int t = 0; t < SYN_TXNS; t++)
			syn_txn(g, &last_qid);
		syn_cpu(g, 1000);
		syn_put(g, PGWT_TRING_EXIT, 0, 0, 0);
	}
}

static pgwt_record syn_pid_out[SYN_PIDS][2 * SYN_MAX];
static size_t syn_pid_n[SYN_PIDS];

/*
 * Thinned markers sit a whole number of grains after the backend's
 * previous record (rounded down), their durations measured to that
 * instant, so the format predicts them; exact when the grain is 1.
 */
static void
test_thin_marker_grain(void)
{
	const pgwt_tring_rec in[] = {
		{.pos = 0, .kind = PGWT_TRING_WAIT, .event = EV_DFR, .start_ns = 100000, .duration_ns = 12345},
		{.pos = 1, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_STMT_END, .start_ns = 123456, .query_id = 9},
		{.pos = 2, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_XACT_COMMIT, .start_ns = 123987},
		{.pos = 3, .kind = PGWT_TRING_MARKER, .event = PGWT_TMARK_STMT_START, .start_ns = 250999, .query_id = 9},
	};
	pgwt_record out[8];
	pgwt_trace_stream s;
	size_t		n;

	pgwt_trace_stream_init(&s, 42, 0);
	n = pgwt_trace_convert(&s, in, 4, out);
	CHECK(n == 4);
	CHECK(out[0].ts_ns == 112345 && out[0].old_event == EV_DFR);
	/* 11111 ns after the wait's end: 11 grains */
	CHECK(out[1].new_event == PGWT_MARKER_CMD_END && out[1].ts_ns == 123345 &&
		  out[1].duration_ns == 11000);
	/* within a grain of the previous marker: the same instant */
	CHECK(out[2].new_event == PGWT_MARKER_XACT_COMMIT && out[2].ts_ns == 123345 &&
		  out[2].duration_ns == 11000 && out[2].query_id == 9);
	CHECK(out[3].new_event == PGWT_MARKER_CMD_START && out[3].ts_ns == 250345 &&
		  out[3].duration_ns == 138000);

	pgwt_trace_stream_init(&s, 42, 0);
	s.marker_grain_ns = 1;
	n = pgwt_trace_convert(&s, in, 4, out);
	CHECK(n == 4 && out[1].ts_ns == 123456 && out[2].ts_ns == 123987 &&
		  out[3].ts_ns == 250999 && out[3].duration_ns == 250999 - 112345);
}

/*
 * Convert every ring in drains of varying size, full (0), thinned (1) or
 * thinned with exact marker instants (2, what the v7 writer wrote),
 * then merge the backends by time (stable: equal instants keep each
 * backend's order, lower pid first), as one writer sees them.
 */
static void
syn_convert(int thin)
{
	size_t		n = 0,
				at[SYN_PIDS] = {0};

	syn_state = 999;
	for (int p = 0; p < SYN_PIDS; p++)
	{
		pgwt_trace_stream s;
		size_t		i = 0;

		pgwt_trace_stream_init(&s, 5000 + (uint32_t) p, 0);
		s.full = thin == 0;
		if (thin == 2)
			s.marker_grain_ns = 1;	/* the v7 writer's exact instants */
		syn_pid_n[p] = 0;
		while (i < syn_rings[p].n)
		{
			size_t		take = 1 + syn_rand(64);

			if (take > syn_rings[p].n - i)
				take = syn_rings[p].n - i;
			syn_pid_n[p] += pgwt_trace_convert(&s, &syn_rings[p].recs[i], take,
											   &syn_pid_out[p][syn_pid_n[p]]);
			i += take;
		}
	}
	for (;;)
	{
		int			best = -1;

		for (int p = 0; p < SYN_PIDS; p++)
			if (at[p] < syn_pid_n[p] &&
				(best < 0 || syn_pid_out[p][at[p]].ts_ns < syn_pid_out[best][at[best]].ts_ns))
				best = p;
		if (best < 0)
			break;
		syn_out[thin][n++] = syn_pid_out[best][at[best]++];
	}
	syn_nout[thin] = n;
}

static bool
syn_is_stmt_marker(uint32_t ev)
{
	return ev == PGWT_MARKER_CMD_START || ev == PGWT_MARKER_CMD_END ||
		ev == PGWT_MARKER_XACT_COMMIT || ev == PGWT_MARKER_XACT_ABORT;
}

static void
test_thin_same_views(void)
{
	size_t		i = 0,
				j = 0,
				stmts = 0,
				trans = 0,
				idle_kept = 0,
				exec_kept = 0;

	syn_build(1000000000ull);
	syn_convert(0);
	syn_convert(1);
	CHECK(syn_nout[1] < syn_nout[0]);
	/*
	 * Per backend: the non-marker transitions are the same records, and
	 * the statement and transaction markers the same ones in the same
	 * order, each thinned one at most a grain before the ring's instant
	 * (rounded down, never before the backend's previous record). The
	 * merged streams may interleave backends differently by that grain.
	 */
	for (uint32_t pid = 5000; pid < 5000 + SYN_PIDS; pid++)
	{
		i = j = 0;
		for (;;)
		{
			while (i < syn_nout[0] && (syn_out[0][i].pid != pid ||
									   (PGWT_IS_MARKER(syn_out[0][i].new_event) &&
										!syn_is_stmt_marker(syn_out[0][i].new_event))))
				i++;
			while (j < syn_nout[1] && (syn_out[1][j].pid != pid ||
									   (PGWT_IS_MARKER(syn_out[1][j].new_event) &&
										!syn_is_stmt_marker(syn_out[1][j].new_event))))
				j++;
			if (i == syn_nout[0] || j == syn_nout[1])
				break;
			{
				const pgwt_record *a = &syn_out[0][i],
						   *b = &syn_out[1][j];

				CHECK(a->pid == b->pid && a->new_event == b->new_event &&
					  a->old_event == b->old_event);
				if (PGWT_IS_MARKER(a->new_event))
				{
					stmts++;
					CHECK(b->ts_ns <= a->ts_ns &&
						  a->ts_ns - b->ts_ns < PGWT_TRACE_MARKER_GRAIN_NS);
					if (a->new_event != PGWT_MARKER_XACT_COMMIT &&
						a->new_event != PGWT_MARKER_XACT_ABORT)
						CHECK(a->query_id == b->query_id);
				}
				else
				{
					trans++;
					CHECK(a->ts_ns == b->ts_ns && a->duration_ns == b->duration_ns &&
						  a->query_id == b->query_id && a->cpu_ns == b->cpu_ns);
				}
			}
			i++;
			j++;
		}
		CHECK(i == syn_nout[0] && j == syn_nout[1]);
	}
	CHECK(stmts > 3 * SYN_TXNS && trans > 4 * SYN_TXNS);
	/* an idle marker stays before its wait only at the end of a drain */
	for (i = 0; i + 1 < syn_nout[1]; i++)
	{
		const pgwt_record *a = &syn_out[1][i],
				   *b = &syn_out[1][i + 1];

		if (a->new_event == PGWT_MARKER_IDLE && b->new_event == EV_CR &&
			b->ts_ns == a->ts_ns && b->pid == a->pid)
			idle_kept++;
		else if (a->new_event == PGWT_MARKER_EXEC_START || a->new_event == PGWT_MARKER_EXEC_END)
			exec_kept++;
	}
	printf("# thin: %zu of %zu records; idle markers kept at a drain's end: "
		   "%zu, executor markers kept: %zu\n", syn_nout[1], syn_nout[0], idle_kept, exec_kept);
	CHECK(syn_nout[1] * 10 < syn_nout[0] * 8);
}

/* A fixed clock: both directories map instants to the same wall time. */
#define SYN_MONO	1000000000000ull
#define SYN_REAL	1700000000000000000ull

static uint64_t
syn_clock_mono(void *arg)
{
	(void) arg;
	return SYN_MONO;
}

static uint64_t
syn_clock_real(void *arg)
{
	(void) arg;
	return SYN_REAL;
}

/* Both streams into trace directories, for the suite's pgwt-dump views. */
static int
syn_write_dirs(const char *full, const char *thin, const char *old)
{
	const char *dirs[3] = {full, thin, old};

	syn_build(SYN_MONO + 1000000);
	for (int k = 0; k < 3; k++)
	{
		pgwt_tf_dir_opts o;
		pgwt_tf_dir_writer *d;

		syn_convert(k);
		memset(&o, 0, sizeof(o));
		o.file.clock.monotonic_ns = syn_clock_mono;
		o.file.clock.realtime_ns = syn_clock_real;
		o.file.version = k == 2 ? 7 : 0;	/* old: v7, the others the default */
		if (mkdir(dirs[k], 0700) < 0 || pgwt_tf_dir_open(dirs[k], &o, &d) < 0)
		{
			fprintf(stderr, "test_trace_thin: cannot create the trace directory %s\n", dirs[k]);
			return 1;
		}
		for (size_t i = 0; i < syn_nout[k]; i++)
			if (pgwt_tf_dir_append(d, &syn_out[k][i]) < 0)
				return 1;
		if (pgwt_tf_dir_close(d) < 0)
			return 1;
		printf("# %s: %zu records\n", k == 0 ? "full" : k == 1 ? "thinned" : "old", syn_nout[k]);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && strcmp(argv[1], "--dirs") == 0)
		return syn_write_dirs(argv[2], argv[3], argv[4]);
	run("trace-thin-rules", test_thin_rules);
	run("trace-thin-same-views", test_thin_same_views);
	run("trace-thin-marker-grain", test_thin_marker_grain);
	return t_failures ? 1 : 0;
}
