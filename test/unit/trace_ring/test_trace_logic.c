/*
 * test_trace_logic.c
 *		Unit tests of the extension's per-statement grouping of trace records
 *		(extension/trace_statements.h) and of its escalation windows
 *		(extension/escalation_logic.h: classes, budget, clamping, closing,
 *		automatic windows, what the hooks see). Run under ASan+UBSan by
 *		test/suites/55-ext-trace-unit.
 */
#include "extension/escalation_logic.h"
#include "extension/trace_statements.h"

#include <stdio.h>
#include <string.h>

static int	t_failures;
static const char *t_name;

#define CHECK(cond) do { \
	if (!(cond)) { \
		printf("FAIL %s: %s (line %d)\n", t_name, #cond, __LINE__); \
		t_failures++; return; } } while (0)

#define SEC 1000000000ull

static void
run(const char *name, void (*fn)(void))
{
	int			before = t_failures;

	t_name = name;
	fn();
	if (t_failures == before)
		printf("PASS %s\n", name);
}

static pgwt_tring_rec
W(uint64_t pos, uint32_t ev, uint64_t t, uint64_t d, uint64_t q)
{
	pgwt_tring_rec r = {.pos = pos, .kind = PGWT_TRING_WAIT, .event = ev,
	.start_ns = t, .duration_ns = d, .query_id = q};

	return r;
}

static pgwt_tring_rec
M(uint64_t pos, uint32_t m, uint64_t t, uint64_t q)
{
	pgwt_tring_rec r = {.pos = pos, .kind = PGWT_TRING_MARKER, .event = m,
	.start_ns = t, .query_id = q};

	return r;
}

static void
test_statements(void)
{
	pgwt_tring_rec in[] = {
		/* the tail of a statement whose start was overwritten */
		W(10, 0x0A000001u, 100, 50, 7),
		M(11, PGWT_TMARK_STMT_END, 200, 7),
		/* idle between statements */
		W(12, 0x06000000u, 210, 1000, 0),
		/* the next statement's parse reads a catalog before its start marker */
		W(12, 0x0A000001u, 1250, 20, 0),
		/* a statement: sleep twice, one lock wait, executor markers */
		M(13, PGWT_TMARK_STMT_START, 1300, 9),
		M(14, PGWT_TMARK_EXEC_START, 1310, 9),
		W(15, 0x09000002u, 1400, 300, 9),
		W(16, 0x03000004u, 1800, 900, 9),
		W(17, 0x09000002u, 2800, 200, 9),
		M(18, PGWT_TMARK_EXEC_END, 3100, 9),
		M(19, PGWT_TMARK_STMT_END, 3200, 9),
		/* a statement still running */
		M(20, PGWT_TMARK_STMT_START, 4000, 11),
		W(21, 0x01000010u, 4100, 5, 11),
	};
	pgwt_tstmt g[8];
	size_t		n = pgwt_trace_group_statements(in, sizeof(in) / sizeof(in[0]), g, 8);
	int			top;

	CHECK(n == 4);
	CHECK(g[0].in_statement && !g[0].started && g[0].ended && g[0].query_id == 7 &&
		  g[0].waits == 1 && g[0].wait_ns == 50 && g[0].end_ns == 200);
	CHECK(!g[1].in_statement && g[1].waits == 1 && g[1].wait_ns == 1000 && g[1].query_id == 0);
	CHECK(g[2].in_statement && g[2].started && g[2].ended && g[2].query_id == 9);
	CHECK(g[2].start_ns == 1250 && g[2].end_ns == 3200 && g[2].waits == 4 && g[2].wait_ns == 1420);
	CHECK(g[2].nevents == 3 && g[2].idle_waits == 0 && g[1].idle_waits == 1);
	top = pgwt_tstmt_top_event(&g[2]);
	CHECK(top >= 0 && g[2].events[top].event == 0x03000004u && g[2].events[top].wait_ns == 900);
	CHECK(g[3].in_statement && g[3].started && !g[3].ended && g[3].end_ns == 4105 &&
		  g[3].waits == 1);
	/* bounded output: later records are dropped, never written past max */
	CHECK(pgwt_trace_group_statements(in, sizeof(in) / sizeof(in[0]), g, 2) == 2);
	CHECK(pgwt_trace_group_statements(in, 0, g, 8) == 0);
}

static void
test_statement_many_events(void)
{
	pgwt_tring_rec in[2 + PGWT_TSTMT_TOP_EVENTS + 3];
	pgwt_tstmt	g[2];
	size_t		k = 0;

	in[k++] = M(0, PGWT_TMARK_STMT_START, 0, 1);
	for (uint32_t e = 0; e < PGWT_TSTMT_TOP_EVENTS + 3; e++)
	{
		in[k] = W(k, 0x0A000000u + e, 10 * k, 3, 1);
		k++;
	}
	in[k] = M(k, PGWT_TMARK_STMT_END, 1000, 1);
	k++;
	CHECK(pgwt_trace_group_statements(in, k, g, 2) == 1);
	CHECK(g[0].nevents == PGWT_TSTMT_TOP_EVENTS && g[0].other_wait_ns == 9 &&
		  g[0].wait_ns == 3 * (PGWT_TSTMT_TOP_EVENTS + 3));
}

static void
test_classes(void)
{
	const char *ok[] = {"Lock", "lwlock"};
	const char *bad_names[] = {"Lock", "Locks"};
	const char *bad = NULL;
	uint32_t	m;

	CHECK(pgwt_escwin_parse_classes(ok, 2, &m, &bad) && m == ((1u << 3) | (1u << 1)));
	CHECK(pgwt_escwin_parse_classes(ok, 0, &m, &bad) && m == PGWT_ESCWIN_ALL_CLASSES);
	CHECK(!pgwt_escwin_parse_classes(bad_names, 2, &m, &bad) && strcmp(bad, "Locks") == 0);
}

static void
test_window_closes_itself(void)
{
	pgwt_escwin w;
	pgwt_escwin_grant g;
	uint64_t	t0 = 1000 * SEC;

	pgwt_escwin_init(&w, 300, false);
	g = pgwt_escwin_request(&w, t0, 3, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	CHECK(g.result == PGWT_ESC_GRANTED && g.granted_s == 3 && g.budget_left_s == 297);
	CHECK(pgwt_escwin_traces(&w.published, t0 + 1, t0 + 1 + 1, 0x0A000001u, NULL));
	CHECK(pgwt_escwin_traces(&w.published, t0 + 3 * SEC - 1, t0 + 3 * SEC - 1 + 1, 0x03000004u, NULL));
	/* the hooks stop at the end with no tick at all */
	CHECK(!pgwt_escwin_traces(&w.published, t0 + 3 * SEC, t0 + 3 * SEC + 1, 0x03000004u, NULL));
	CHECK(!pgwt_escwin_tick(&w, t0 + 3 * SEC + 1, NULL));
	CHECK(!w.esc.active && w.last_close == PGWT_ESC_CLOSED_EXPIRED && w.published.end_ns == 0);
	CHECK(pgwt_esc_budget_remaining_s(&w.esc, t0 + 4 * SEC) == 297);
}

static void
test_budget_rules(void)
{
	pgwt_escwin w;
	pgwt_escwin_grant g;
	uint64_t	t0 = 5000 * SEC;

	/* over budget: clamped */
	pgwt_escwin_init(&w, 300, false);
	g = pgwt_escwin_request(&w, t0, 1000, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	CHECK(g.result == PGWT_ESC_CLAMPED && g.granted_s == 300 && g.budget_left_s == 0);
	CHECK(w.published.end_ns == t0 + 300 * SEC);
	/* nothing left: refused and counted */
	pgwt_escwin_deescalate(&w, t0 + 300 * SEC);
	g = pgwt_escwin_request(&w, t0 + 301 * SEC, 10, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	CHECK(g.result == PGWT_ESC_DENIED_EXHAUSTED && g.granted_s == 0 && w.esc.denied_total == 1);
	CHECK(!pgwt_escwin_traces(&w.published, t0 + 302 * SEC, t0 + 302 * SEC + 1, 0x03000004u, NULL));
	/* budget 0: escalation is off */
	pgwt_escwin_init(&w, 0, false);
	g = pgwt_escwin_request(&w, t0, 5, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	CHECK(g.result == PGWT_ESC_DENIED_DISABLED && !w.esc.active && w.published.end_ns == 0);
	/* unlimited */
	pgwt_escwin_init(&w, PGWT_BUDGET_UNLIMITED, false);
	g = pgwt_escwin_request(&w, t0, 7200, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	CHECK(g.result == PGWT_ESC_GRANTED && g.granted_s == 7200 && g.budget_left_s == -1);
	/* deescalate closes at once, for the hooks too */
	CHECK(pgwt_escwin_deescalate(&w, t0 + SEC) == PGWT_ESC_CLOSED_BY_REQUEST);
	CHECK(!pgwt_escwin_traces(&w.published, t0 + 2 * SEC, t0 + 2 * SEC + 1, 0x03000004u, NULL));
	CHECK(pgwt_escwin_deescalate(&w, t0 + 3 * SEC) == PGWT_ESC_NOT_OPEN);
}

static void
test_class_window(void)
{
	pgwt_escwin w;
	uint64_t	t0 = 9000 * SEC;
	const char *lock[] = {"Lock"};
	const char *io[] = {"IO"};
	uint32_t	m_lock,
				m_io;
	const char *bad;

	CHECK(pgwt_escwin_parse_classes(lock, 1, &m_lock, &bad));
	CHECK(pgwt_escwin_parse_classes(io, 1, &m_io, &bad));
	pgwt_escwin_init(&w, 300, false);
	pgwt_escwin_request(&w, t0, 10, m_lock, PGWT_ESC_MANUAL);
	CHECK(pgwt_escwin_traces(&w.published, t0 + SEC, t0 + SEC + 1, 0x03000004u, NULL));	/* Lock:transactionid */
	CHECK(!pgwt_escwin_traces(&w.published, t0 + SEC, t0 + SEC + 1, 0x0A000001u, NULL));	/* IO */
	CHECK(!pgwt_escwin_traces(&w.published, t0 + SEC, t0 + SEC + 1, 0x01000010u, NULL));	/* LWLock */
	CHECK(!pgwt_escwin_traces(&w.published, t0 + SEC, t0 + SEC + 1, 0xFFFFFFF0u, NULL));	/* not a class */
	/* asking again while open extends it and widens the classes */
	pgwt_escwin_request(&w, t0 + 2 * SEC, 20, m_io, PGWT_ESC_MANUAL);
	CHECK(pgwt_escwin_traces(&w.published, t0 + 3 * SEC, t0 + 3 * SEC + 1, 0x0A000001u, NULL));
	CHECK(pgwt_escwin_traces(&w.published, t0 + 3 * SEC, t0 + 3 * SEC + 1, 0x03000004u, NULL));
	CHECK(w.published.end_ns == t0 + 22 * SEC);
}

static void
test_auto_window(void)
{
	pgwt_escwin w;
	pgwt_anomaly_tick t;
	uint64_t	now = 100 * SEC;
	bool		opened = false;
	int			i;

	pgwt_escwin_init(&w, 300, true);
	memset(&t, 0, sizeof(t));
	t.dt_s = 1.0;
	t.complete = true;
	/* a quiet baseline past the warm-up, then a lock convoy */
	for (i = 0; i < 120; i++, now += SEC)
	{
		t.now_ns = now;
		t.aas = 0.5;
		t.cpu_aas = 0.5;
		t.lock_aas = 0;
		CHECK(!pgwt_escwin_tick(&w, now, &t));
	}
	for (i = 0; i < 10 && !opened; i++, now += SEC)
	{
		t.now_ns = now;
		t.aas = 8;
		t.lock_aas = 7;
		t.cpu_aas = 1;
		opened = pgwt_escwin_tick(&w, now, &t);
	}
	CHECK(opened && w.esc.active && w.class_mask == PGWT_ESCWIN_ALL_CLASSES);
	CHECK(pgwt_escwin_traces(&w.published, now, now + 1, 0x03000004u, NULL));
	/* the same anomaly with auto escalation off opens nothing */
	pgwt_escwin_init(&w, 300, false);
	for (i = 0; i < 130; i++, now += SEC)
	{
		t.now_ns = now;
		t.aas = i < 120 ? 0.5 : 8;
		t.lock_aas = i < 120 ? 0 : 7;
		CHECK(!pgwt_escwin_tick(&w, now, &t));
	}
	CHECK(!w.esc.active);
}

/*
 * A window traces the waits that overlap it: not one that ended before it
 * began (the hooks may hand it over later, when they flush their buffer
 * inside the window), and one that began before it only from its start.
 */
static void
test_window_start(void)
{
	pgwt_escwin w;
	uint64_t	t0 = 2000 * SEC;
	uint64_t	from = 0;

	pgwt_escwin_init(&w, 300, false);
	pgwt_escwin_request(&w, t0, 2, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	/* pg_sleep(5) that ended 1 s before the window: not traced */
	CHECK(!pgwt_escwin_traces(&w.published, t0 - 6 * SEC, t0 - SEC, 0x09000002u, &from));
	/* ending exactly where the window begins: not traced */
	CHECK(!pgwt_escwin_traces(&w.published, t0 - SEC, t0, 0x09000002u, &from));
	/* an instant before the window: not traced; at its start: traced */
	CHECK(!pgwt_escwin_traces(&w.published, t0 - 1, t0 - 1, 0x09000002u, &from));
	CHECK(pgwt_escwin_traces(&w.published, t0, t0, 0x09000002u, &from) && from == t0);
	/* straddling the start: traced from the window's start */
	CHECK(pgwt_escwin_traces(&w.published, t0 - SEC, t0 + SEC, 0x09000002u, &from) && from == t0);
	/* inside: traced whole; straddling the end: from its start */
	CHECK(pgwt_escwin_traces(&w.published, t0 + SEC / 2, t0 + SEC, 0x09000002u, &from) &&
		  from == t0 + SEC / 2);
	CHECK(pgwt_escwin_traces(&w.published, t0 + SEC, t0 + 5 * SEC, 0x09000002u, &from) &&
		  from == t0 + SEC);
	/* extended while open: the window still began at t0 */
	pgwt_escwin_request(&w, t0 + SEC, 10, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	CHECK(w.published.start_ns == t0);
	CHECK(!pgwt_escwin_traces(&w.published, t0 - 3 * SEC, t0 - 2 * SEC, 0x09000002u, &from));
	/* closed, and a new one later: it begins at its own start */
	pgwt_escwin_deescalate(&w, t0 + 2 * SEC);
	pgwt_escwin_request(&w, t0 + 5 * SEC, 2, PGWT_ESCWIN_ALL_CLASSES, PGWT_ESC_MANUAL);
	CHECK(!pgwt_escwin_traces(&w.published, t0 + SEC, t0 + 3 * SEC, 0x09000002u, &from));
	CHECK(pgwt_escwin_traces(&w.published, t0 + 4 * SEC, t0 + 6 * SEC, 0x09000002u, &from) &&
		  from == t0 + 5 * SEC);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	run("tstmt-grouping", test_statements);
	run("tstmt-bounded-events", test_statement_many_events);
	run("escwin-classes", test_classes);
	run("escwin-closes-itself", test_window_closes_itself);
	run("escwin-budget-clamp-refuse-disable", test_budget_rules);
	run("escwin-class-window", test_class_window);
	run("escwin-auto-on-anomaly", test_auto_window);
	run("escwin-window-start", test_window_start);
	return t_failures ? 1 : 0;
}
