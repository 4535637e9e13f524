/*
 * test_wait_totals.c
 *		The per-event totals behind the Prometheus series: which records
 *		bill time (samples or transitions, never both), the overflow row
 *		past the bound, and the labels' split of an event's name.
 */
#include "analysis/wait_totals.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ull
#define EV_PGSLEEP		0x09000002u
#define EV_CLIENTREAD	0x06000000u

static pgwt_record
smp(uint32_t ev, uint64_t weight)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_SAMPLE;
	r.pid = 7;
	r.new_event = ev;
	r.weight_ns = weight;
	return r;
}

static pgwt_record
trn(uint32_t old_ev, uint32_t new_ev, uint64_t dur)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_TRANSITION;
	r.pid = 7;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.duration_ns = dur;
	return r;
}

static const pgwt_wait_total *
row_of(const pgwt_wait_totals *t, uint32_t id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->row[i].id == id)
			return &t->row[i];
	return NULL;
}

/* Sampled tier: 5 samples of 100 ms in PgSleep bill 0.5 s; the exact
 * transitions of a window in between add their count, not their time. */
static void
test_samples_bill_time(void)
{
	pgwt_wait_totals *t = malloc(sizeof(*t));
	pgwt_record r[9];
	const pgwt_wait_total *w;

	pgwt_wait_totals_init(t, false);
	for (int i = 0; i < 5; i++)
		r[i] = smp(EV_PGSLEEP, 100 * MS);
	r[5] = trn(EV_PGSLEEP, 0, 500 * MS);
	r[6] = trn(0, EV_CLIENTREAD, 3 * MS);		/* CPU: time, no wait */
	r[7] = trn(0, PGWT_MARKER_ESC_START, 0);	/* a marker: ignored */
	r[8] = trn(EV_PGSLEEP, PGWT_EVENT_EXIT, 0);
	pgwt_wait_totals_add(t, r, 9);
	w = row_of(t, EV_PGSLEEP);
	EXPECT(w != NULL);
	if (w)
	{
		EXPECT_U64(w->ns, 500 * MS);
		EXPECT_U64(w->samples, 5);
		EXPECT_U64(w->waits, 2);	/* the exit ends a wait too */
	}
	w = row_of(t, 0);
	EXPECT(w != NULL);
	if (w)
	{
		EXPECT_U64(w->ns, 0);
		EXPECT_U64(w->waits, 0);
	}
	EXPECT(row_of(t, PGWT_MARKER_ESC_START) == NULL);
	EXPECT_U64(t->n, 2);
	free(t);
}

/* Full mode: transitions bill their durations, samples only count. */
static void
test_transitions_bill_time(void)
{
	pgwt_wait_totals *t = malloc(sizeof(*t));
	pgwt_record r[3] = {trn(EV_PGSLEEP, 0, 500 * MS), trn(EV_PGSLEEP, 0, 250 * MS), smp(EV_PGSLEEP, 100 * MS)};
	const pgwt_wait_total *w;

	pgwt_wait_totals_init(t, true);
	pgwt_wait_totals_add(t, r, 3);
	w = row_of(t, EV_PGSLEEP);
	EXPECT(w != NULL);
	if (w)
	{
		EXPECT_U64(w->ns, 750 * MS);
		EXPECT_U64(w->waits, 2);
		EXPECT_U64(w->samples, 1);
	}
	free(t);
}

/* Past the bound every new id lands in one overflow row. */
static void
test_bound(void)
{
	pgwt_wait_totals *t = malloc(sizeof(*t));
	pgwt_record r;

	pgwt_wait_totals_init(t, false);
	for (uint32_t i = 0; i < PGWT_WAIT_TOTALS_MAX + 40; i++)
	{
		r = smp(0x0A000000u + i, MS);
		pgwt_wait_totals_add(t, &r, 1);
	}
	r = smp(0x0A000000u, MS);	/* a known id still finds its row */
	pgwt_wait_totals_add(t, &r, 1);
	EXPECT_U64(t->n, PGWT_WAIT_TOTALS_MAX);
	EXPECT(t->other.used);
	EXPECT_U64(t->other.samples, 40);
	EXPECT_U64(t->other.ns, 40 * MS);
	EXPECT_U64(t->overflow_events, 40);
	EXPECT_U64(t->row[0].samples, 2);
	free(t);
}

static void
test_labels(void)
{
	pgwt_names n;
	char		ty[64], ev[128];

	EXPECT(pgwt_names_init(&n, 15));
	pgwt_wait_totals_labels(&n, EV_PGSLEEP, ty, sizeof(ty), ev, sizeof(ev));
	EXPECT_STR(ty, "Timeout");
	EXPECT_STR(ev, "PgSleep");
	pgwt_wait_totals_labels(&n, 0, ty, sizeof(ty), ev, sizeof(ev));
	EXPECT_STR(ty, "CPU");
	EXPECT_STR(ev, "CPU*");
	pgwt_wait_totals_labels(&n, PGWT_EVENT_CPU_RUNQUEUE, ty, sizeof(ty), ev, sizeof(ev));
	EXPECT_STR(ev, "RunQueue");
	pgwt_wait_totals_labels(&n, 0x01FFFFF0u, ty, sizeof(ty), ev, sizeof(ev));
	EXPECT_STR(ty, "LWLock");
	EXPECT_STR(ev, "0xFFFFF0");
	pgwt_wait_totals_labels(&n, 0x7F000001u, ty, sizeof(ty), ev, sizeof(ev));
	EXPECT_STR(ty, "0x7F");		/* a class byte no server uses keeps its hex */
	EXPECT_STR(ev, "0x1");
	pgwt_names_free(&n);
}

int
main(void)
{
	RUN(test_samples_bill_time);
	RUN(test_transitions_bill_time);
	RUN(test_bound);
	RUN(test_labels);
	return unit_failures ? 1 : 0;
}
