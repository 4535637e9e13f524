/*
 * tick_clock.c
 *		Tick deadlines and per-tick weights for the sampler (pure).
 */
#include "tracer/tick_clock.h"

void
pgwt_tick_init(pgwt_tick_clock *c, unsigned rate_hz, uint64_t now_ns)
{
	c->period_ns = 1000000000ull / (rate_hz ? rate_hz : 1);
	/* A tick may stand for up to ten periods, and never less than 1 s. */
	c->max_weight_ns = c->period_ns * 10;
	if (c->max_weight_ns < 1000000000ull)
		c->max_weight_ns = 1000000000ull;
	c->last_ns = 0;
	c->next_deadline_ns = now_ns + c->period_ns;
	c->ticks = 0;
	c->late_ticks = 0;
	c->unobserved_ns = 0;
}

uint64_t
pgwt_tick_bill(pgwt_tick_clock *c, uint64_t now_ns)
{
	uint64_t	w;

	if (c->last_ns == 0 || now_ns <= c->last_ns)
		w = c->period_ns;		/* first tick: one nominal period */
	else
		w = now_ns - c->last_ns;
	if (w > c->max_weight_ns)
	{
		c->unobserved_ns += w - c->max_weight_ns;
		w = c->max_weight_ns;
	}
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
	{
		c->late_ticks++;
		c->next_deadline_ns = now_ns + c->period_ns;
	}
	return c->next_deadline_ns;
}
