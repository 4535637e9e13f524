/*
 * wait_totals.h
 *		Running totals per wait event since start (time, samples, exact
 *		waits), for counters a scraper turns into rates: the tracer's
 *		Prometheus series pgwt_wait_seconds_total and friends.
 *
 * One time source is billed, never both: the sampler's SAMPLE records
 * (their weight, the tick's billed length: common/tick_rule.h) where the
 * sampled tier runs, else the exact tier's TRANSITION records (the time
 * spent in the event left). Exact waits ended are counted in either case,
 * so an escalation window adds counts but no second copy of the time.
 *
 * Bounded: at most PGWT_WAIT_TOTALS_MAX distinct events; the time and
 * counts of any event past that go to one overflow row (reported as
 * wait_event_type="Other", wait_event="Other"), so a hostile or unexpected
 * stream of ids can neither grow memory nor the series count.
 *
 * Pure: no I/O, no clock; the caller owns the struct (no locking: the
 * daemon updates and reads it from its one loop thread).
 */
#ifndef PGWT_ANALYSIS_WAIT_TOTALS_H
#define PGWT_ANALYSIS_WAIT_TOTALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/wait_event.h"
#include "tracefmt/record.h"

#define PGWT_WAIT_TOTALS_MAX	256
#define PGWT_WAIT_TOTALS_SLOTS	512		/* hash slots: a power of two, > 2 x MAX */

typedef struct pgwt_wait_total
{
	uint32_t	id;				/* wait_event_info */
	bool		used;
	uint64_t	ns;				/* billed time */
	uint64_t	samples;		/* SAMPLE records seen in this event */
	uint64_t	waits;			/* exact waits ended (not CPU) */
} pgwt_wait_total;

typedef struct pgwt_wait_totals
{
	bool		bill_transitions;	/* time from transitions, not samples */
	size_t		n;				/* rows in use, in first-seen order */
	uint16_t	slot[PGWT_WAIT_TOTALS_SLOTS];	/* 1 + row index, 0 empty */
	pgwt_wait_total row[PGWT_WAIT_TOTALS_MAX];
	pgwt_wait_total other;		/* events past the bound */
	uint64_t	overflow_events;	/* records billed to other */
} pgwt_wait_totals;

/* Empty totals billing samples (false) or transitions (true) for time. */
void		pgwt_wait_totals_init(pgwt_wait_totals *t, bool bill_transitions);

/* Add records of any kind; markers and exits are ignored. */
void		pgwt_wait_totals_add(pgwt_wait_totals *t, const pgwt_record *recs, size_t n);

/*
 * The labels of an event id as Prometheus (and pg_stat_activity) show it:
 * wait_event_type "IO", wait_event "DataFileRead"; CPU time is "CPU" /
 * "CPU*" (or "RunQueue", "OnCPU" where the scheduler tier split it); an
 * unnamed id keeps its hex ("0x1A"). Always NUL-terminated.
 */
void		pgwt_wait_totals_labels(const pgwt_names *names, uint32_t id,
									char *type, size_t typelen,
									char *event, size_t eventlen);

#endif							/* PGWT_ANALYSIS_WAIT_TOTALS_H */
