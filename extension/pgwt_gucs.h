/*
 * pgwt_gucs.h
 *		Every setting of the extension (pg_wait_tracer.*): the variables,
 *		their enum values, and the one function that defines them all.
 *
 * gucs.c defines each variable and registers each setting from _PG_init;
 * the modules only read them. A setting lives here and nowhere else.
 */
#ifndef PGWT_GUCS_H
#define PGWT_GUCS_H

#include <stdbool.h>

/* Values of pg_wait_tracer.capture. */
typedef enum PgwtCapture
{
	PGWT_CAPTURE_OFF = 0,
	PGWT_CAPTURE_STATS,
	PGWT_CAPTURE_TRACE			/* stats, plus each wait in the trace ring */
} PgwtCapture;

/*
 * Default of pg_wait_tracer.trace_rings: what is traced at once on a
 * server left alone, a few capture = trace sessions and the busy
 * processes of an escalation window (idle ones take no ring), at 160 kB a
 * ring (trace_ring_size 4096 x 40 B): 1.3 MB, whatever max_connections.
 */
#define PGWT_TRACE_RINGS_DEFAULT 8

/* Values of pg_wait_tracer.sampler. */
typedef enum PgwtSamplerMode
{
	PGWT_SAMPLER_AUTO = 0,		/* on where the server has no wait-event hooks */
	PGWT_SAMPLER_ON,
	PGWT_SAMPLER_OFF
} PgwtSamplerMode;

/* the coop tier (coop_hooks.c, backend_slots.c, query_table.c) */
extern int	pgwt_capture;
extern int	pgwt_max_queries;
extern int	pgwt_max_sessions;

/* the in-server sampler (sampler.c) */
extern int	pgwt_sampler_mode;
extern int	pgwt_sample_rate;
extern int	pgwt_sampler_max_entries;
extern int	pgwt_sampler_history;

/* trace rings, escalation windows, the trace writer (trace_*.c, escalation.c) */
extern int	pgwt_trace_ring_size;
extern int	pgwt_trace_rings;
extern int	pgwt_escalation_budget;
extern bool pgwt_escalation_auto;
extern char *pgwt_trace_dir;
extern int	pgwt_trace_retention_hours;
extern int	pgwt_trace_retention_mb;

/* Registers every setting; _PG_init calls it once, at preload. */
extern void pgwt_gucs_define(bool hooks_present);
/* pg_wait_tracer.capture as its setting's text ("off", "stats", "trace"). */
extern const char *pgwt_capture_name(void);
/* pg_wait_tracer.sampler as its setting's text ("auto", "on", "off"). */
extern const char *pgwt_sampler_mode_name(void);

#endif							/* PGWT_GUCS_H */
