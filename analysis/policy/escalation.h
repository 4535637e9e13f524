/*
 * escalation.h
 *		The escalation budget: who may open an exact (full-fidelity) window,
 *		for how long, and when it must close. Pure logic over injected
 *		monotonic timestamps; shared by the external tracer and the extension.
 *
 * Rules: a budget of exact seconds per rolling hour (0 = escalation
 * disabled, PGWT_BUDGET_UNLIMITED = no cap). A request larger than what
 * remains is clamped to the remainder; a request while a window is open
 * moves its end (never past what the budget allows); a window closes the
 * moment its time is up or the budget is spent, so exact time in any hour
 * never exceeds the budget, however requests are repeated. A request is at
 * most PGWT_ESC_MAX_WINDOW_S seconds: more is refused as a bad request (the
 * control socket, pgwt_escalate() and the NOTIFY parser refuse it before),
 * so no duration in nanoseconds can wrap, whatever the budget.
 */
#ifndef PGWT_POLICY_ESCALATION_H
#define PGWT_POLICY_ESCALATION_H

#include <stdbool.h>
#include <stdint.h>

#include "common/esc_protocol.h"	/* PGWT_ESC_MAX_WINDOW_S */

#define PGWT_BUDGET_UNLIMITED	(-1)
#define PGWT_BUDGET_PERIOD_NS	(3600ull * 1000000000ull)
#define PGWT_ESC_MAX_SPANS		128	/* consumption history kept */

typedef enum pgwt_esc_reason
{
	PGWT_ESC_MANUAL = 0,		/* control socket or pgwt_escalate() */
	PGWT_ESC_ANOMALY_AAS,
	PGWT_ESC_ANOMALY_LOCK,
	PGWT_ESC_ANOMALY_CPU,
	PGWT_ESC_NREASONS
} pgwt_esc_reason;

typedef enum pgwt_esc_result
{
	PGWT_ESC_GRANTED = 0,		/* opened (or extended) as asked */
	PGWT_ESC_CLAMPED,			/* opened, shorter than asked: budget */
	PGWT_ESC_DENIED_DISABLED,	/* budget 0: escalation is off */
	PGWT_ESC_DENIED_EXHAUSTED,	/* nothing left this hour */
	PGWT_ESC_DENIED_BAD_REQUEST,	/* duration <= 0 or over the maximum */
	PGWT_ESC_DENIED_NO_EXACT	/* the exact tier cannot see here (its
								 * self-test failed): decided by the
								 * caller before the budget is asked */
} pgwt_esc_result;

typedef enum pgwt_esc_close
{
	PGWT_ESC_STILL_OPEN = 0,
	PGWT_ESC_NOT_OPEN,
	PGWT_ESC_CLOSED_EXPIRED,	/* its time was up */
	PGWT_ESC_CLOSED_BUDGET,		/* the hour's budget ran out mid-window */
	PGWT_ESC_CLOSED_BY_REQUEST	/* deescalate */
} pgwt_esc_close;

typedef struct pgwt_esc_span
{
	uint64_t	start_ns;
	uint64_t	end_ns;
} pgwt_esc_span;

typedef struct pgwt_escalation
{
	int64_t		budget_s;		/* per rolling hour; 0 off; -1 unlimited */
	bool		active;
	pgwt_esc_reason reason;
	uint64_t	win_start_ns;
	uint64_t	win_end_ns;		/* planned end */
	/* closed windows still inside the rolling hour, oldest first */
	pgwt_esc_span spans[PGWT_ESC_MAX_SPANS];
	int			nspans;
	/* counters for self-metrics */
	uint64_t	windows_total;
	uint64_t	denied_total;
	uint64_t	clamped_total;
	uint64_t	closed_by_budget_total;
} pgwt_escalation;

void		pgwt_esc_init(pgwt_escalation *e, int64_t budget_s);

/*
 * Change the budget at run time (a reloaded setting): an open window that
 * the new budget no longer covers closes at the next tick.
 */
void		pgwt_esc_set_budget(pgwt_escalation *e, int64_t budget_s);

/*
 * Ask for an exact window of duration_s seconds (1 to PGWT_ESC_MAX_WINDOW_S)
 * from now.
 */
pgwt_esc_result pgwt_esc_request(pgwt_escalation *e, uint64_t now_ns,
								 int64_t duration_s, pgwt_esc_reason reason,
								 int64_t *granted_s);

/* Call every tick: closes the window when its time or the budget is up. */
pgwt_esc_close pgwt_esc_tick(pgwt_escalation *e, uint64_t now_ns);

/* Close now (idempotent). */
pgwt_esc_close pgwt_esc_deescalate(pgwt_escalation *e, uint64_t now_ns);

/* Exact nanoseconds used in (now - 1 h, now], the open window included. */
uint64_t	pgwt_esc_used_ns(const pgwt_escalation *e, uint64_t now_ns);

/* Seconds of budget left now (rounded down); -1 when unlimited. */
int64_t		pgwt_esc_budget_remaining_s(const pgwt_escalation *e, uint64_t now_ns);

/* Seconds until the open window closes (rounded up); 0 when closed. */
int64_t		pgwt_esc_seconds_remaining(const pgwt_escalation *e, uint64_t now_ns);

const char *pgwt_esc_reason_name(pgwt_esc_reason r);
const char *pgwt_esc_result_name(pgwt_esc_result r);

#endif							/* PGWT_POLICY_ESCALATION_H */
