/*
 * escalation_logic.c
 *		Escalation windows of the extension (see escalation_logic.h for the
 *		rules and for how the hooks read the published state). The caller
 *		serialises every function here except pgwt_escwin_traces.
 */
#include "extension/escalation_logic.h"

#include <string.h>
#include <strings.h>

#include "analysis/wait_event.h"

void
pgwt_escwin_init(pgwt_escwin *w, int64_t budget_s, bool auto_enabled)
{
	pgwt_anomaly_cfg cfg;

	memset(w, 0, sizeof(*w));
	pgwt_esc_init(&w->esc, budget_s);
	pgwt_anomaly_defaults(&cfg);
	pgwt_anomaly_init(&w->anomaly, &cfg);
	w->auto_enabled = auto_enabled;
	w->last_close = PGWT_ESC_NOT_OPEN;
}

const char *
pgwt_escwin_class_name(unsigned c)
{
	return c == 0 ? NULL : pgwt_class_name(c);
}

bool
pgwt_escwin_parse_classes(const char *const *names, int n, uint32_t *mask,
						  const char **bad)
{
	uint32_t	m = 0;

	if (n == 0)
	{
		*mask = PGWT_ESCWIN_ALL_CLASSES;
		return true;
	}
	for (int i = 0; i < n; i++)
	{
		unsigned	c;

		/* class 0 ("CPU*") has no waits to trace: start at 1 */
		for (c = 1; c < PGWT_NCLASSES; c++)
		{
			const char *cn = pgwt_class_name(c);

			if (cn != NULL && names[i] != NULL && strcasecmp(cn, names[i]) == 0)
				break;
		}
		if (c == PGWT_NCLASSES)
		{
			*bad = names[i] ? names[i] : "(null)";
			return false;
		}
		m |= 1u << c;
	}
	*mask = m;
	return true;
}

/* Publish the window for the hooks: mask before end when opening. */
static void
escwin_publish(pgwt_escwin *w)
{
	pgwt_escwin_published *p = &w->published;
	uint32_t	gen = p->generation + 1;

	if (w->esc.active)
	{
		__atomic_store_n(&p->class_mask, w->class_mask, __ATOMIC_RELAXED);
		__atomic_store_n(&p->start_ns, w->esc.win_start_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&p->generation, gen, __ATOMIC_RELAXED);
		__atomic_store_n(&p->end_ns, w->esc.win_end_ns, __ATOMIC_RELEASE);
	}
	else
	{
		__atomic_store_n(&p->end_ns, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&p->generation, gen, __ATOMIC_RELAXED);
	}
}

pgwt_escwin_grant
pgwt_escwin_request(pgwt_escwin *w, uint64_t now_ns, int64_t seconds,
					uint32_t class_mask, pgwt_esc_reason reason)
{
	pgwt_escwin_grant g;
	bool		was_open;

	memset(&g, 0, sizeof(g));
	/* a window whose time is up is closed before the new request counts */
	pgwt_escwin_tick(w, now_ns, NULL);
	was_open = w->esc.active;
	g.result = pgwt_esc_request(&w->esc, now_ns, seconds, reason, &g.granted_s);
	if (g.result == PGWT_ESC_GRANTED || g.result == PGWT_ESC_CLAMPED)
	{
		w->class_mask = was_open ? (w->class_mask | class_mask) : class_mask;
		escwin_publish(w);
	}
	g.class_mask = w->esc.active ? w->class_mask : 0;
	g.budget_left_s = pgwt_escwin_budget_after_s(w, now_ns);
	return g;
}

int64_t
pgwt_escwin_budget_after_s(const pgwt_escwin *w, uint64_t now_ns)
{
	int64_t		left = pgwt_esc_budget_remaining_s(&w->esc, now_ns);

	if (left < 0)
		return -1;
	left -= pgwt_esc_seconds_remaining(&w->esc, now_ns);
	return left > 0 ? left : 0;
}

pgwt_esc_close
pgwt_escwin_deescalate(pgwt_escwin *w, uint64_t now_ns)
{
	pgwt_esc_close c = pgwt_esc_deescalate(&w->esc, now_ns);

	if (c != PGWT_ESC_NOT_OPEN)
		w->last_close = c;
	escwin_publish(w);
	return c;
}

bool
pgwt_escwin_tick(pgwt_escwin *w, uint64_t now_ns, const pgwt_anomaly_tick *tick)
{
	bool		was_open = w->esc.active;
	pgwt_esc_close c = pgwt_esc_tick(&w->esc, now_ns);

	if (was_open && !w->esc.active)
	{
		w->last_close = c;
		escwin_publish(w);
	}
	if (tick != NULL && w->auto_enabled &&
		pgwt_anomaly_observe(&w->anomaly, tick) == PGWT_ANOM_FIRE &&
		!w->esc.active)
	{
		int64_t		granted;
		pgwt_esc_result r = pgwt_esc_request(&w->esc, now_ns,
											 (int64_t) w->anomaly.cfg.window_s,
											 w->anomaly.last_reason, &granted);

		if (r == PGWT_ESC_GRANTED || r == PGWT_ESC_CLAMPED)
		{
			w->class_mask = PGWT_ESCWIN_ALL_CLASSES;
			escwin_publish(w);
			return true;
		}
	}
	return false;
}
