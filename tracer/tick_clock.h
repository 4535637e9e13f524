/*
 * tick_clock.h
 *		Sampler tick scheduling and billing (pure).
 *
 * Billing follows the one rule of common/tick_rule.h: each sample stands
 * for the time really elapsed since the previous tick (its weight), capped,
 * so a late tick does not shrink the accounted time and a stall (daemon
 * suspended, machine stalled) does not invent it: the time over the cap is
 * counted as unobserved. Late ticks are counted by the same rule.
 */
#ifndef PGWT_TRACER_TICK_CLOCK_H
#define PGWT_TRACER_TICK_CLOCK_H

#include <stdint.h>

typedef struct pgwt_tick_clock
{
	uint64_t	period_ns;		/* nominal: 1e9 / rate */
	uint64_t	last_ns;		/* time of the previous tick, 0 = none */
	uint64_t	next_deadline_ns;
	uint64_t	ticks;
	uint64_t	late_ticks;		/* late by common/tick_rule.h */
	uint64_t	skipped_ticks;	/* deadlines passed before the wait began */
	uint64_t	unobserved_ns;	/* gap time not billed (over the cap) */
} pgwt_tick_clock;

/* rate_hz must be 1..1000. */
extern void pgwt_tick_init(pgwt_tick_clock *c, unsigned rate_hz, uint64_t now_ns);

/* Bill a tick taken at now_ns: returns its weight in ns. */
extern uint64_t pgwt_tick_bill(pgwt_tick_clock *c, uint64_t now_ns);

/*
 * Advance the deadline after a tick at now_ns and return it. Deadlines are
 * absolute so the rate does not drift; a tick more than one period behind
 * restarts the schedule from now instead of firing a burst.
 */
extern uint64_t pgwt_tick_advance(pgwt_tick_clock *c, uint64_t now_ns);

/*
 * Called just before the sampler sleeps for its next tick: a deadline that
 * already passed moves to the next point of the same grid after now_ns
 * (the rule and its reason: pgwt_tick_next_on_grid, common/tick_rule.h);
 * returns the number of deadlines skipped.
 */
extern uint64_t pgwt_tick_realign(pgwt_tick_clock *c, uint64_t now_ns);

#endif
