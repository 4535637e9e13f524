/*
 * tick_rule.h
 *		The one rule for billing a sampler tick, used by the in-server
 *		sampler (extension/sampler.c) and the external tracer's sampled
 *		tier (tracer/tick_clock.c): how much time one tick's samples stand
 *		for, how much of a long gap is not billed, when a tick is late, and
 *		where the next tick falls after a deadline was missed.
 *
 * A sample stands for the time really elapsed since the previous tick, so a
 * tick that runs a little late does not shrink the accounted time. But one
 * observation must not invent time: after a stall (the sampler descheduled,
 * the machine suspended, the worker stopped at a breakpoint) nobody knows
 * what the backends did, and billing the whole gap to the state found at
 * the end would pile seconds onto whatever happened to be running then.
 * So one tick bills at most PGWT_TICK_CAP_PERIODS periods, and never less
 * than PGWT_TICK_CAP_FLOOR_NS: ten periods absorb the scheduling delays of
 * a loaded machine at any rate, and at high rates (where ten periods are a
 * few milliseconds) the 1 s floor keeps an ordinary hiccup billed rather
 * than lost. The gap beyond the cap is reported as lost, not billed.
 *
 * A tick is late when it bills more than one and a half periods: it came
 * nearer to the deadline after its own than to its own.
 *
 * Pure and header-only: no I/O, no clock reads (callers pass the times).
 */
#ifndef PGWT_COMMON_TICK_RULE_H
#define PGWT_COMMON_TICK_RULE_H

#include <stdbool.h>
#include <stdint.h>

#define PGWT_TICK_CAP_PERIODS	10
#define PGWT_TICK_CAP_FLOOR_NS	UINT64_C(1000000000)

/* The most one tick of this period may bill. */
static inline uint64_t
pgwt_tick_cap_ns(uint64_t period_ns)
{
	uint64_t	cap = period_ns * PGWT_TICK_CAP_PERIODS;

	return cap < PGWT_TICK_CAP_FLOOR_NS ? PGWT_TICK_CAP_FLOOR_NS : cap;
}

/*
 * The time a tick at now_ns covers: since the previous tick at prev_ns, or
 * one nominal period for the first tick (prev_ns 0) or when the clock did
 * not move forward.
 */
static inline uint64_t
pgwt_tick_interval_ns(uint64_t prev_ns, uint64_t now_ns, uint64_t period_ns)
{
	if (prev_ns == 0 || now_ns <= prev_ns)
		return period_ns;
	return now_ns - prev_ns;
}

/* What the tick bills to every sample it takes: the interval, capped. */
static inline uint64_t
pgwt_tick_bill_ns(uint64_t prev_ns, uint64_t now_ns, uint64_t period_ns)
{
	uint64_t	iv = pgwt_tick_interval_ns(prev_ns, now_ns, period_ns);
	uint64_t	cap = pgwt_tick_cap_ns(period_ns);

	return iv < cap ? iv : cap;
}

/* The part of the interval over the cap: lost, reported, never billed. */
static inline uint64_t
pgwt_tick_lost_ns(uint64_t prev_ns, uint64_t now_ns, uint64_t period_ns)
{
	return pgwt_tick_interval_ns(prev_ns, now_ns, period_ns) -
		pgwt_tick_bill_ns(prev_ns, now_ns, period_ns);
}

/* Is the tick late: its interval over one and a half periods? */
static inline bool
pgwt_tick_is_late(uint64_t prev_ns, uint64_t now_ns, uint64_t period_ns)
{
	return pgwt_tick_interval_ns(prev_ns, now_ns, period_ns) > period_ns + period_ns / 2;
}

/*
 * Where the next tick falls when its deadline has already passed (the work
 * after the previous tick ran over, e.g. the sampler starved of CPU at
 * normal priority on a saturated host): the first point of the same grid
 * after now_ns, with the number of deadlines skipped in *skipped. Ticking
 * at once instead would put the tick at the instant the sampler got a CPU
 * back, which on a saturated host is most often when a backend has just
 * left it: such samples under-count CPU. Ticks at timer deadlines do not
 * depend on what the backends do, and the next tick bills the whole
 * interval (pgwt_tick_bill_ns). A deadline still ahead is kept.
 */
static inline uint64_t
pgwt_tick_next_on_grid(uint64_t deadline_ns, uint64_t now_ns, uint64_t period_ns,
					   uint64_t *skipped)
{
	uint64_t	n;

	if (deadline_ns > now_ns || period_ns == 0)
	{
		*skipped = 0;
		return deadline_ns > now_ns ? deadline_ns : now_ns;
	}
	n = (now_ns - deadline_ns) / period_ns + 1;
	*skipped = n;
	return deadline_ns + n * period_ns;
}

#endif							/* PGWT_COMMON_TICK_RULE_H */
