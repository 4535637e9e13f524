/*
 * anomaly.h
 *		Anomaly rules that decide when to open an exact window by themselves,
 *		evaluated once per sampler tick on what the always-on tier saw.
 *		Pure logic; shared by the external tracer and the extension.
 *
 * Rules (defaults as in the seed tool, plus one floor of ours):
 *  - AAS: average active sessions above aas_factor x its rolling baseline
 *    for aas_ticks consecutive ticks, and at least aas_min_aas (our floor:
 *    on an idle cluster the baseline is ~0, and one session must not fire).
 *  - Lock: Lock-class share of active time above lock_fraction for aas_ticks
 *    ticks, and Lock-class AAS at least lock_min_aas (so one routine row-lock
 *    waiter never fires, a convoy does).
 *  - CPU saturation: a CUSUM of CPU demand against the capacity,
 *    S = max(0, S + dt * (min(cpu_aas / C, cap) - (k + margin))), firing at
 *    S >= h when cpu_aas >= cpu_min_aas; once per episode, re-armed after a
 *    complete tick below k; blind ticks never advance it; a gap longer than
 *    cpu_gap_s or a capacity change resets it.
 *  - A cooldown between automatic windows, measured from each window's start.
 * The AAS baseline is an EWMA that is frozen while AAS is over its threshold
 * and learns again at a tenth of its rate after relearn_after_s of being
 * continuously over it (a real new normal is adopted; incidents are not).
 */
#ifndef PGWT_POLICY_ANOMALY_H
#define PGWT_POLICY_ANOMALY_H

#include <stdbool.h>
#include <stdint.h>

#include "escalation.h"

typedef struct pgwt_anomaly_cfg
{
	double		aas_factor;		/* 3.0; >= 1e6 disables AAS and CPU rules */
	int			aas_ticks;		/* 3 */
	double		aas_min_aas;	/* 2.0 */
	double		lock_fraction;	/* 0.30 */
	double		lock_min_aas;	/* 2.0 */
	double		cooldown_s;		/* 120 */
	double		window_s;		/* 60: window length of an automatic fire */
	double		baseline_tau_s; /* 300: EWMA time constant */
	double		warmup_s;		/* 60: no AAS rule before this much history */
	double		relearn_after_s;	/* 900 */
	bool		cpu_enabled;
	double		cpu_capacity;	/* logical CPUs; <= 0 unknown */
	bool		cpu_capacity_exact; /* quota/override: margin 0 */
	double		cpu_min_aas;	/* 2.0 */
	double		cpu_margin;		/* 0.02 (affinity-only capacity) */
	double		cpu_k;			/* 0.80 */
	double		cpu_h;			/* 1.50 */
	double		cpu_cap;		/* 1.25 */
	double		cpu_gap_s;		/* 2.0 */
} pgwt_anomaly_cfg;

/* What one tick saw: averages over the tick, from the sampled tier. */
typedef struct pgwt_anomaly_tick
{
	uint64_t	now_ns;
	double		dt_s;			/* the nominal sample period */
	bool		complete;		/* every backend was read this tick */
	double		aas;			/* active sessions (DB time / wall time) */
	double		lock_aas;		/* of which in the Lock class */
	double		cpu_aas;		/* of which on CPU */
} pgwt_anomaly_tick;

typedef enum pgwt_anomaly_verdict
{
	PGWT_ANOM_QUIET = 0,
	PGWT_ANOM_NEAR,				/* over a threshold, not sustained yet */
	PGWT_ANOM_FIRE,				/* open a window (reason in state) */
	PGWT_ANOM_SUPPRESSED_COOLDOWN	/* would fire, but in cooldown */
} pgwt_anomaly_verdict;

typedef struct pgwt_anomaly
{
	pgwt_anomaly_cfg cfg;
	double		baseline;		/* EWMA of AAS */
	double		history_s;		/* seconds of history seen */
	double		over_s;			/* continuous seconds over the AAS threshold */
	int			aas_over_ticks;
	int			lock_over_ticks;
	double		cusum;
	bool		cpu_fired_episode;
	double		cpu_blind_s;
	double		cpu_capacity_seen;
	bool		has_fired;
	uint64_t	last_fire_ns;
	pgwt_esc_reason last_reason;
	/* counters */
	uint64_t	fires_total;
	uint64_t	near_total;
	uint64_t	suppressed_cooldown_total;
} pgwt_anomaly;

void		pgwt_anomaly_defaults(pgwt_anomaly_cfg *cfg);
void		pgwt_anomaly_init(pgwt_anomaly *a, const pgwt_anomaly_cfg *cfg);

/* Feed one tick; on PGWT_ANOM_FIRE, a->last_reason says which rule. */
pgwt_anomaly_verdict pgwt_anomaly_observe(pgwt_anomaly *a,
										  const pgwt_anomaly_tick *t);

/* The capacity changed (cgroup quota, affinity): resets the CPU CUSUM. */
void		pgwt_anomaly_set_capacity(pgwt_anomaly *a, double capacity, bool exact);

#endif							/* PGWT_POLICY_ANOMALY_H */
