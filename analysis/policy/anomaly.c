/*
 * anomaly.c
 *		Automatic escalation rules (see anomaly.h for the rules and defaults).
 */
#include <string.h>

#include "anomaly.h"

#define NS_PER_S 1e9

void
pgwt_anomaly_defaults(pgwt_anomaly_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->aas_factor = 3.0;
	cfg->aas_ticks = 3;
	cfg->aas_min_aas = 2.0;
	cfg->lock_fraction = 0.30;
	cfg->lock_min_aas = 2.0;
	cfg->cooldown_s = 120;
	cfg->window_s = 60;
	cfg->baseline_tau_s = 300;
	cfg->warmup_s = 60;
	cfg->relearn_after_s = 900;
	cfg->cpu_enabled = true;
	cfg->cpu_capacity = 0;
	cfg->cpu_min_aas = 2.0;
	cfg->cpu_margin = 0.02;
	cfg->cpu_k = 0.80;
	cfg->cpu_h = 1.50;
	cfg->cpu_cap = 1.25;
	cfg->cpu_gap_s = 2.0;
}

void
pgwt_anomaly_init(pgwt_anomaly *a, const pgwt_anomaly_cfg *cfg)
{
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	a->cpu_capacity_seen = cfg->cpu_capacity;
}

void
pgwt_anomaly_set_capacity(pgwt_anomaly *a, double capacity, bool exact)
{
	if (capacity != a->cpu_capacity_seen)
	{
		a->cusum = 0;
		a->cpu_fired_episode = false;
	}
	a->cfg.cpu_capacity = capacity;
	a->cfg.cpu_capacity_exact = exact;
	a->cpu_capacity_seen = capacity;
}

static bool
anomaly_aas_rules_on(const pgwt_anomaly *a)
{
	return a->cfg.aas_factor < 1e6;
}

/* The CPU CUSUM; returns true when it fires this tick. */
static bool
anomaly_cpu_step(pgwt_anomaly *a, const pgwt_anomaly_tick *t)
{
	const pgwt_anomaly_cfg *c = &a->cfg;
	double		util,
				margin;

	if (!c->cpu_enabled || !anomaly_aas_rules_on(a))
		return false;
	if (!t->complete || c->cpu_capacity <= 0)
	{
		/* Blind: hold the evidence a little, then drop it. */
		a->cpu_blind_s += t->dt_s;
		if (a->cpu_blind_s >= c->cpu_gap_s)
		{
			a->cusum = 0;
			a->cpu_fired_episode = false;
		}
		return false;
	}
	if (a->cpu_blind_s >= c->cpu_gap_s)
		a->cusum = 0;			/* back from a gap: start over */
	a->cpu_blind_s = 0;

	util = t->cpu_aas / c->cpu_capacity;
	if (util > c->cpu_cap)
		util = c->cpu_cap;
	margin = c->cpu_capacity_exact ? 0 : c->cpu_margin;
	if (util < c->cpu_k)
		a->cpu_fired_episode = false;	/* the episode is over: re-arm */
	a->cusum += t->dt_s * (util - (c->cpu_k + margin));
	if (a->cusum < 0)
		a->cusum = 0;
	if (a->cusum >= c->cpu_h && t->cpu_aas >= c->cpu_min_aas && !a->cpu_fired_episode)
	{
		a->cpu_fired_episode = true;
		return true;
	}
	return false;
}

pgwt_anomaly_verdict
pgwt_anomaly_observe(pgwt_anomaly *a, const pgwt_anomaly_tick *t)
{
	const pgwt_anomaly_cfg *c = &a->cfg;
	double		threshold = c->aas_factor * a->baseline;
	bool		aas_over,
				lock_over,
				cpu_fire;
	bool		fire = false;
	pgwt_esc_reason reason = PGWT_ESC_MANUAL;
	double		alpha;

	/* AAS rule against the baseline as it was before this tick. */
	aas_over = anomaly_aas_rules_on(a) && a->history_s >= c->warmup_s &&
		t->aas > threshold && t->aas >= c->aas_min_aas;
	a->aas_over_ticks = aas_over ? a->aas_over_ticks + 1 : 0;

	lock_over = t->aas > 0 && t->lock_aas / t->aas > c->lock_fraction &&
		t->lock_aas >= c->lock_min_aas;
	a->lock_over_ticks = lock_over ? a->lock_over_ticks + 1 : 0;

	cpu_fire = anomaly_cpu_step(a, t);

	/* Baseline: frozen while over, slow re-learning after a long new normal. */
	alpha = t->dt_s / c->baseline_tau_s;
	if (alpha > 1)
		alpha = 1;
	if (aas_over)
	{
		a->over_s += t->dt_s;
		if (a->over_s >= c->relearn_after_s)
			a->baseline += alpha / 10 * (t->aas - a->baseline);
	}
	else
	{
		a->over_s = 0;
		if (a->history_s == 0)
			a->baseline = t->aas;
		else
			a->baseline += alpha * (t->aas - a->baseline);
	}
	a->history_s += t->dt_s;

	if (a->lock_over_ticks >= c->aas_ticks)
	{
		fire = true;
		reason = PGWT_ESC_ANOMALY_LOCK;
	}
	else if (a->aas_over_ticks >= c->aas_ticks)
	{
		fire = true;
		reason = PGWT_ESC_ANOMALY_AAS;
	}
	else if (cpu_fire)
	{
		fire = true;
		reason = PGWT_ESC_ANOMALY_CPU;
	}

	if (!fire)
	{
		if (aas_over || lock_over)
		{
			a->near_total++;
			return PGWT_ANOM_NEAR;
		}
		return PGWT_ANOM_QUIET;
	}
	if (a->has_fired &&
		(double) (t->now_ns - a->last_fire_ns) < c->cooldown_s * NS_PER_S)
	{
		a->suppressed_cooldown_total++;
		return PGWT_ANOM_SUPPRESSED_COOLDOWN;
	}
	a->has_fired = true;
	a->last_fire_ns = t->now_ns;
	a->last_reason = reason;
	a->fires_total++;
	a->aas_over_ticks = 0;
	a->lock_over_ticks = 0;
	return PGWT_ANOM_FIRE;
}
