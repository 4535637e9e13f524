/*
 * escalation.c
 *		The rolling-hour escalation budget (see escalation.h for the rules).
 *
 * Consumption is kept as the list of closed exact spans that still overlap
 * the last hour, plus the open window. When the list is full the two oldest
 * spans are merged into one covering both: that can only overstate what was
 * used, so the budget is never exceeded, only (rarely) under-granted.
 */
#include <stdint.h>
#include <string.h>

#include "escalation.h"

#define NS_PER_S 1000000000ull

static uint64_t
esc_overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t	lo = a0 > b0 ? a0 : b0;
	uint64_t	hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

static uint64_t
esc_horizon(uint64_t now_ns)
{
	return now_ns > PGWT_BUDGET_PERIOD_NS ? now_ns - PGWT_BUDGET_PERIOD_NS : 0;
}

/* Drops spans that ended before the rolling hour began. */
static void
esc_forget_old(pgwt_escalation *e, uint64_t now_ns)
{
	uint64_t	horizon = esc_horizon(now_ns);
	int			keep = 0;

	for (int i = 0; i < e->nspans; i++)
		if (e->spans[i].end_ns > horizon)
			e->spans[keep++] = e->spans[i];
	e->nspans = keep;
}

static void
esc_record_span(pgwt_escalation *e, uint64_t start_ns, uint64_t end_ns)
{
	if (end_ns <= start_ns)
		return;
	if (e->nspans == PGWT_ESC_MAX_SPANS)
	{
		/* Merge the two oldest: overstates use, never understates it. */
		e->spans[0].end_ns = e->spans[1].end_ns;
		memmove(&e->spans[1], &e->spans[2],
				sizeof(e->spans[0]) * (size_t) (e->nspans - 2));
		e->nspans--;
	}
	e->spans[e->nspans].start_ns = start_ns;
	e->spans[e->nspans].end_ns = end_ns;
	e->nspans++;
}

void
pgwt_esc_init(pgwt_escalation *e, int64_t budget_s)
{
	memset(e, 0, sizeof(*e));
	e->budget_s = budget_s < 0 ? PGWT_BUDGET_UNLIMITED : budget_s;
}

void
pgwt_esc_set_budget(pgwt_escalation *e, int64_t budget_s)
{
	e->budget_s = budget_s < 0 ? PGWT_BUDGET_UNLIMITED : budget_s;
}

uint64_t
pgwt_esc_used_ns(const pgwt_escalation *e, uint64_t now_ns)
{
	uint64_t	horizon = esc_horizon(now_ns);
	uint64_t	used = 0;

	for (int i = 0; i < e->nspans; i++)
		used += esc_overlap(e->spans[i].start_ns, e->spans[i].end_ns, horizon, now_ns);
	if (e->active)
		used += esc_overlap(e->win_start_ns, now_ns, horizon, now_ns);
	return used;
}

/* The budget in nanoseconds; a budget too large to say so saturates. */
static uint64_t
esc_budget_ns(const pgwt_escalation *e)
{
	if ((uint64_t) e->budget_s > UINT64_MAX / NS_PER_S)
		return UINT64_MAX;
	return (uint64_t) e->budget_s * NS_PER_S;
}

int64_t
pgwt_esc_budget_remaining_s(const pgwt_escalation *e, uint64_t now_ns)
{
	uint64_t	used;

	if (e->budget_s == PGWT_BUDGET_UNLIMITED)
		return -1;
	used = pgwt_esc_used_ns(e, now_ns);
	if (used >= esc_budget_ns(e))
		return 0;
	return (int64_t) ((esc_budget_ns(e) - used) / NS_PER_S);
}

int64_t
pgwt_esc_seconds_remaining(const pgwt_escalation *e, uint64_t now_ns)
{
	if (!e->active || e->win_end_ns <= now_ns)
		return 0;
	return (int64_t) ((e->win_end_ns - now_ns + NS_PER_S - 1) / NS_PER_S);
}

static void
esc_close(pgwt_escalation *e, uint64_t at_ns)
{
	esc_record_span(e, e->win_start_ns, at_ns);
	e->active = false;
}

pgwt_esc_result
pgwt_esc_request(pgwt_escalation *e, uint64_t now_ns, int64_t duration_s,
				 pgwt_esc_reason reason, int64_t *granted_s)
{
	uint64_t	want_ns,
				left_ns;
	pgwt_esc_result res = PGWT_ESC_GRANTED;

	*granted_s = 0;
	/* bounded, so duration_s * NS_PER_S and now + it cannot wrap */
	if (duration_s <= 0 || duration_s > PGWT_ESC_MAX_WINDOW_S)
	{
		e->denied_total++;
		return PGWT_ESC_DENIED_BAD_REQUEST;
	}
	if (e->budget_s == 0)
	{
		e->denied_total++;
		return PGWT_ESC_DENIED_DISABLED;
	}
	pgwt_esc_tick(e, now_ns);
	esc_forget_old(e, now_ns);

	want_ns = (uint64_t) duration_s * NS_PER_S;
	if (e->budget_s != PGWT_BUDGET_UNLIMITED)
	{
		uint64_t	used = pgwt_esc_used_ns(e, now_ns);

		left_ns = used >= esc_budget_ns(e) ? 0 : esc_budget_ns(e) - used;
		/* Whole seconds only: a sub-second scrap is not a window. */
		left_ns -= left_ns % NS_PER_S;
		if (left_ns == 0)
		{
			e->denied_total++;
			return PGWT_ESC_DENIED_EXHAUSTED;
		}
		if (want_ns > left_ns)
		{
			want_ns = left_ns;
			res = PGWT_ESC_CLAMPED;
			e->clamped_total++;
		}
	}

	if (!e->active)
	{
		e->active = true;
		e->win_start_ns = now_ns;
		e->windows_total++;
		e->reason = reason;
	}
	/* An open window runs to now + granted; it is never shortened. */
	if (now_ns + want_ns > e->win_end_ns || e->win_start_ns == now_ns)
		e->win_end_ns = now_ns + want_ns;
	*granted_s = (int64_t) (want_ns / NS_PER_S);
	return res;
}

pgwt_esc_close
pgwt_esc_tick(pgwt_escalation *e, uint64_t now_ns)
{
	if (!e->active)
		return PGWT_ESC_NOT_OPEN;
	if (e->budget_s == 0)
	{
		esc_close(e, now_ns);
		e->closed_by_budget_total++;
		return PGWT_ESC_CLOSED_BUDGET;
	}
	if (e->budget_s != PGWT_BUDGET_UNLIMITED &&
		pgwt_esc_used_ns(e, now_ns) >= esc_budget_ns(e))
	{
		uint64_t	over = pgwt_esc_used_ns(e, now_ns) - esc_budget_ns(e);
		uint64_t	at = now_ns - (over < now_ns - e->win_start_ns ? over : now_ns - e->win_start_ns);

		/* Close at the instant the budget ran out, not at this late tick. */
		esc_close(e, at < e->win_end_ns ? at : e->win_end_ns);
		e->closed_by_budget_total++;
		return PGWT_ESC_CLOSED_BUDGET;
	}
	if (now_ns >= e->win_end_ns)
	{
		esc_close(e, e->win_end_ns);
		return PGWT_ESC_CLOSED_EXPIRED;
	}
	return PGWT_ESC_STILL_OPEN;
}

pgwt_esc_close
pgwt_esc_deescalate(pgwt_escalation *e, uint64_t now_ns)
{
	pgwt_esc_close c = pgwt_esc_tick(e, now_ns);

	if (c != PGWT_ESC_STILL_OPEN)
		return c == PGWT_ESC_NOT_OPEN ? PGWT_ESC_NOT_OPEN : c;
	esc_close(e, now_ns);
	return PGWT_ESC_CLOSED_BY_REQUEST;
}

const char *
pgwt_esc_reason_name(pgwt_esc_reason r)
{
	switch (r)
	{
		case PGWT_ESC_MANUAL:
			return "manual";
		case PGWT_ESC_ANOMALY_AAS:
			return "anomaly_aas";
		case PGWT_ESC_ANOMALY_LOCK:
			return "anomaly_lock";
		case PGWT_ESC_ANOMALY_CPU:
			return "cpu_saturation";
		default:
			return "unknown";
	}
}

const char *
pgwt_esc_result_name(pgwt_esc_result r)
{
	switch (r)
	{
		case PGWT_ESC_GRANTED:
			return "granted";
		case PGWT_ESC_CLAMPED:
			return "clamped";
		case PGWT_ESC_DENIED_DISABLED:
			return "denied: escalation is disabled (budget 0)";
		case PGWT_ESC_DENIED_EXHAUSTED:
			return "denied: the budget for this hour is spent";
		case PGWT_ESC_DENIED_BAD_REQUEST:
			return "denied: the duration must be a whole number of seconds from 1 to 86400";
		case PGWT_ESC_DENIED_NO_EXACT:
			return "denied: no exact tier here (sampled only)";
		default:
			return "unknown";
	}
}
