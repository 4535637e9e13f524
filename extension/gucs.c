/*
 * gucs.c
 *		Defines every pg_wait_tracer.* setting, in one place.
 *
 * _PG_init calls pgwt_gucs_define() at preload, before any module decides
 * anything from a setting; the modules read the variables below and never
 * define settings of their own. No shared state beyond the variables
 * themselves, which PostgreSQL's GUC machinery owns per process.
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "extension/pgwt_gucs.h"
#include "extension/pgwt_shared.h"

int			pgwt_capture = PGWT_CAPTURE_OFF;
int			pgwt_max_queries = 5000;
int			pgwt_max_sessions = 0;

int			pgwt_sampler_mode = PGWT_SAMPLER_AUTO;
int			pgwt_sample_rate = 100;
int			pgwt_sampler_max_entries = 10000;
int			pgwt_sampler_history = 16384;

int			pgwt_trace_ring_size = 4096;
int			pgwt_trace_rings = PGWT_TRACE_RINGS_DEFAULT;
int			pgwt_escalation_budget = 300;
bool		pgwt_escalation_auto = true;
char	   *pgwt_trace_dir = NULL;
int			pgwt_trace_retention_hours = 24;
int			pgwt_trace_retention_mb = 1024;

static const struct config_enum_entry pgwt_capture_options[] = {
	{"off", PGWT_CAPTURE_OFF, false},
	{"stats", PGWT_CAPTURE_STATS, false},
	{"trace", PGWT_CAPTURE_TRACE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry pgwt_sampler_mode_options[] = {
	{"auto", PGWT_SAMPLER_AUTO, false},
	{"on", PGWT_SAMPLER_ON, false},
	{"off", PGWT_SAMPLER_OFF, false},
	{NULL, 0, false}
};

/*
 * Turning capture on by a reload must reach auxiliary processes too, which
 * have no transaction end to notice it at: the assign hook puts the hooks in
 * the chain in every process.
 */
#ifdef PGWT_COOP_BUILD
#define PGWT_CAPTURE_ASSIGN_HOOK pgwt_capture_assign
#else
#define PGWT_CAPTURE_ASSIGN_HOOK NULL
#endif

static const char *
pgwt_gucs_enum_name(const struct config_enum_entry *options, int val)
{
	for (int i = 0; options[i].name; i++)
		if (options[i].val == val)
			return options[i].name;
	return "?";
}

const char *
pgwt_capture_name(void)
{
	return pgwt_gucs_enum_name(pgwt_capture_options, pgwt_capture);
}

const char *
pgwt_sampler_mode_name(void)
{
	return pgwt_gucs_enum_name(pgwt_sampler_mode_options, pgwt_sampler_mode);
}

void
pgwt_gucs_define(bool hooks_present)
{
	DefineCustomEnumVariable("pg_wait_tracer.capture",
							 "What the extension captures: off, stats (exact aggregates) or trace.",
							 "trace also records every wait and statement marker in the "
							 "session's trace ring (pgwt_trace). Needs a server with wait-event hooks.",
							 &pgwt_capture,
							 hooks_present ? PGWT_CAPTURE_STATS : PGWT_CAPTURE_OFF,
							 pgwt_capture_options,
							 PGC_SUSET, 0,
							 NULL, PGWT_CAPTURE_ASSIGN_HOOK, NULL);
	DefineCustomIntVariable("pg_wait_tracer.max_queries",
							"Maximum number of (query_id, wait event) entries kept.",
							"The least-used entries are evicted when the table is full.",
							&pgwt_max_queries,
							5000, 100, 1000000,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.max_sessions",
							"Number of per-backend statistics slots (0: max backends + 64).",
							"Slots of exited backends are kept for readers until needed again.",
							&pgwt_max_sessions,
							0, 0, 262143,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomEnumVariable("pg_wait_tracer.sampler",
							 "Whether the in-server sampler runs: auto, on or off.",
							 "auto runs it where the server has no wait-event hooks "
							 "(exact statistics cover the others).",
							 &pgwt_sampler_mode,
							 PGWT_SAMPLER_AUTO,
							 pgwt_sampler_mode_options,
							 PGC_POSTMASTER, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.sample_rate",
							"Samples per second of every backend's wait state.",
							NULL,
							&pgwt_sample_rate,
							100, 1, 1000,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.sampler_max_entries",
							"Entries of each of the sampler's profiles ((query, event) and (backend, event)).",
							"The least-sampled entries are evicted when a profile is full.",
							&pgwt_sampler_max_entries,
							10000, 100, 1000000,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.sampler_history",
							"Samples kept in the sampler's recent-history ring (0: none).",
							NULL,
							&pgwt_sampler_history,
							16384, 0, 10000000,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("pg_wait_tracer.trace_ring_size",
							"Waits and markers kept per process for capture = trace and escalation windows.",
							"Rounded up to a power of two; the oldest are overwritten.",
							&pgwt_trace_ring_size,
							4096, 16, 1 << 24,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.trace_rings",
							"Trace rings shared by the processes traced at once (capture = trace, escalation windows).",
							"A process takes one when it starts tracing and gives it back when it stops; "
							"when none is free it is not traced (pgwt_status.trace_ring_exhausted).",
							&pgwt_trace_rings,
							PGWT_TRACE_RINGS_DEFAULT, 1, 65536,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.escalation_budget",
							"Seconds of escalation windows per rolling hour (0: none, -1: no limit).",
							NULL,
							&pgwt_escalation_budget,
							300, -1, 3600,
							PGC_SIGHUP, GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_wait_tracer.escalation_auto",
							 "Open escalation windows by themselves on anomalies.",
							 NULL,
							 &pgwt_escalation_auto,
							 true,
							 PGC_SIGHUP, 0,
							 NULL, NULL, NULL);
	DefineCustomStringVariable("pg_wait_tracer.trace_dir",
							   "Directory of the trace files (relative: to the data directory).",
							   NULL,
							   &pgwt_trace_dir,
							   "pg_wait_tracer",
							   PGC_POSTMASTER, 0,
							   NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.trace_retention_hours",
							"Hours of trace files kept (0: no age limit).",
							NULL,
							&pgwt_trace_retention_hours,
							24, 0, 24 * 366,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("pg_wait_tracer.trace_retention_size",
							"Megabytes of trace files kept (0: no size limit).",
							NULL,
							&pgwt_trace_retention_mb,
							1024, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MB,
							NULL, NULL, NULL);
}
