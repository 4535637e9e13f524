/*
 * tier_stats.h
 *		Pure helpers of the tiered mode: what one sampler tick says about
 *		load (the anomaly rules' input), the escalation markers written into
 *		the trace, which waits ask for a blocker lookup, and the order in
 *		which the escalation windows' exact sources are tried.
 */
#ifndef PGWT_TRACER_TIER_STATS_H
#define PGWT_TRACER_TIER_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefmt/record.h"
#include "tracefmt/tracefmt.h"
#include "tracer/cli.h"

/* Escalation reason codes (PGWT_ESC_CODE_*) come from tracefmt/record.h. */

typedef struct pgwt_tick_load
{
	unsigned	samples;		/* backends read this tick */
	double		aas;			/* non-idle backends */
	double		lock_aas;		/* of which in the Lock class */
	double		cpu_aas;		/* of which on CPU (no wait event) */
} pgwt_tick_load;

/* Load of one tick from its SAMPLE records (other kinds are ignored). */
void		pgwt_tick_load_of(const pgwt_record *recs, size_t n, int pg_major,
							  pgwt_tick_load *out);

/* True for a wait_event_info in the Lock class (heavyweight locks). */
bool		pgwt_is_lock_wait(uint32_t event);

/* An ESC_START (start = true) or ESC_END marker for all backends. */
void		pgwt_esc_marker(pgwt_record *r, bool start, uint64_t ts_ns,
							uint32_t reason_code, uint64_t length_ns);

/*
 * The exact sources --exact-source tries, in order, into order[0..1]:
 * auto the watchpoints, then (when their self-test fails) the scheduler's
 * tracepoints; watch or sched that one alone. Returns how many. When every
 * one fails the first is kept: it is tested again before each window.
 */
int			pgwt_exact_order(pgwt_exact_choice c, pgwt_tf_exact_source order[2]);

/* The source behind a capture source's name ("full", "sched"), for the
 * trace's windows.tsv and the status. */
pgwt_tf_exact_source pgwt_exact_source_of(const char *capture_name);

#endif
