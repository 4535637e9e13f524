/*
 * tick_clock.c
 *		Tick deadlines and per-tick weights for the sampler (pure); the
 *		billing rule itself is common/tick_rule.h.
 */
#include "tracer/tick_clock.h"

#include "common/tick_rule.h"

void
pgwt_tick_init(pgwt_tick_clock *c, unsigned rate_hz, uint64_t now_ns)
{
	c->period_ns = 1000000000ull / (rate_hz ? rate_hz : 1);
	c->last_ns = 0;
	c->next_deadline_ns = now_ns + c->period_ns;
	c->ticks = 0;
	c->late_ticks = 0;
	c->skipped_ticks = 0;
	c->unobserved_ns = 0;
}

uint64_t
pgwt_tick_bill(pgwt_tick_clock *c, uint64_t now_ns)
{
	uint64_t	w = pgwt_tick_bill_ns(c->last_ns, now_ns, c->period_ns);

	c->unobserved_ns += pgwt_tick_lost_ns(c->last_ns, now_ns, c->period_ns);
	if (pgwt_tick_is_late(c->last_ns, now_ns, c->period_ns))
		c->late_ticks++;
	if (now_ns > c->last_ns)
		c->last_ns = now_ns;
	c->ticks++;
	return w;
}

uint64_t
pgwt_tick_advance(pgwt_tick_clock *c, uint64_t now_ns)
{
	c->next_deadline_ns += c->period_ns;
	if (c->next_deadline_ns <= now_ns)
		c->next_deadline_ns = now_ns + c->period_ns;
	return c->next_deadline_ns;
}

uint64_t
pgwt_tick_realign(pgwt_tick_clock *c, uint64_t now_ns)
{
	uint64_t	n;

	c->next_deadline_ns = pgwt_tick_next_on_grid(c->next_deadline_ns, now_ns,
												 c->period_ns, &n);
	c->skipped_ticks += n;
	return n;
}
