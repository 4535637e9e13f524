/*
 * process_rule.h
 *		The one rule for which processes are sessions (their time is DB
 *		time) and which are background (their time is reported apart).
 *
 * DB time is the time of user sessions: client backends and the parallel
 * workers they start (as Oracle's DB time counts foreground sessions).
 * Everything else is background: autovacuum, checkpointer, background
 * writer, WAL writer, walsenders and walreceiver, startup, archiver, and
 * every other background worker, our own trace writer and sampler
 * included. Background time is never in DB time and never has a
 * pct_db_time. A process whose identity is unknown (a pid with no
 * backend_type) counts as a session, so nothing vanishes from DB time.
 *
 * Every tier names a process by the text PostgreSQL shows in
 * pg_stat_activity.backend_type (GetBackendTypeDesc; a background worker
 * shows its bgw_type, a parallel worker "parallel worker"), which is also
 * what backends.tsv records, so one mapping serves the server, the tracer
 * and the analysis engine.
 *
 * Pure and header-only: no I/O, usable from server code and user space.
 */
#ifndef PGWT_COMMON_PROCESS_RULE_H
#define PGWT_COMMON_PROCESS_RULE_H

#include <stdbool.h>
#include <string.h>

typedef enum PgwtProcKind
{
	PGWT_PROC_UNKNOWN = 0,		/* no identity (no row, empty type) */
	PGWT_PROC_CLIENT_BACKEND,
	PGWT_PROC_PARALLEL_WORKER,
	PGWT_PROC_WALSENDER,
	PGWT_PROC_AUTOVACUUM_WORKER,
	PGWT_PROC_AUTOVACUUM_LAUNCHER,
	PGWT_PROC_CHECKPOINTER,
	PGWT_PROC_BGWRITER,
	PGWT_PROC_WALWRITER,
	PGWT_PROC_STARTUP,
	PGWT_PROC_ARCHIVER,
	PGWT_PROC_WALRECEIVER,
	PGWT_PROC_OTHER_AUX,		/* io worker, walsummarizer, logger, ... */
	PGWT_PROC_OWN_WORKER,		/* pg_wait_tracer's trace writer, sampler */
	PGWT_PROC_BGWORKER,			/* any other background worker */
	PGWT_PROC_NKINDS
} PgwtProcKind;

/* The bgw_type prefix of the extension's own workers. */
#define PGWT_OWN_WORKER_PREFIX "pg_wait_tracer "

/*
 * The kind of a pg_stat_activity.backend_type text (PostgreSQL 14 to 18).
 * NULL or "" is unknown; a text that is none of PostgreSQL's own process
 * types is a background worker's bgw_type.
 */
static inline PgwtProcKind
pgwt_proc_kind_of_type(const char *type)
{
	static const struct
	{
		const char *type;
		PgwtProcKind kind;
	}			core[] = {
		{"client backend", PGWT_PROC_CLIENT_BACKEND},
		{"standalone backend", PGWT_PROC_CLIENT_BACKEND},
		{"parallel worker", PGWT_PROC_PARALLEL_WORKER},
		{"walsender", PGWT_PROC_WALSENDER},
		{"autovacuum worker", PGWT_PROC_AUTOVACUUM_WORKER},
		{"autovacuum launcher", PGWT_PROC_AUTOVACUUM_LAUNCHER},
		{"checkpointer", PGWT_PROC_CHECKPOINTER},
		{"background writer", PGWT_PROC_BGWRITER},
		{"walwriter", PGWT_PROC_WALWRITER},
		{"startup", PGWT_PROC_STARTUP},
		{"archiver", PGWT_PROC_ARCHIVER},
		{"walreceiver", PGWT_PROC_WALRECEIVER},
		{"dead-end client backend", PGWT_PROC_OTHER_AUX},
		{"io worker", PGWT_PROC_OTHER_AUX},
		{"logger", PGWT_PROC_OTHER_AUX},
		{"slotsync worker", PGWT_PROC_OTHER_AUX},
		{"walsummarizer", PGWT_PROC_OTHER_AUX},
		{"not initialized", PGWT_PROC_UNKNOWN},
		{"background worker", PGWT_PROC_BGWORKER},
	};
	size_t		i;

	if (type == NULL || type[0] == '\0')
		return PGWT_PROC_UNKNOWN;
	for (i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (strcmp(type, core[i].type) == 0)
			return core[i].kind;
	if (strncmp(type, PGWT_OWN_WORKER_PREFIX, strlen(PGWT_OWN_WORKER_PREFIX)) == 0)
		return PGWT_PROC_OWN_WORKER;
	return PGWT_PROC_BGWORKER;
}

/* THE rule: is this kind's time DB time? */
static inline bool
pgwt_kind_is_session(PgwtProcKind kind)
{
	return kind == PGWT_PROC_CLIENT_BACKEND || kind == PGWT_PROC_PARALLEL_WORKER ||
		kind == PGWT_PROC_UNKNOWN;
}

/*
 * Is a process of this kind worth sampling or capturing at all? Every
 * kind is, except a background worker that never connected to a
 * database (a collector waking every few milliseconds: pg_wait_sampling,
 * the logical replication launcher) and the extension's own workers:
 * they run no user work, and their sleeps would only be noise. Capture
 * does not decide DB time; pgwt_kind_is_session does.
 */
static inline bool
pgwt_kind_is_captured(PgwtProcKind kind, bool has_database)
{
	if (kind == PGWT_PROC_OWN_WORKER)
		return false;
	return kind != PGWT_PROC_BGWORKER || has_database;
}

#endif							/* PGWT_COMMON_PROCESS_RULE_H */
