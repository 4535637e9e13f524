/*
 * test_session_rule.c
 *		Which pg_stat_activity rows are database sessions: PostgreSQL's own
 *		process types always, a background worker only once it connected
 *		to a database (the extension's sampler applies the same rule).
 */
#include <string.h>

#include "tracer/pgconn.h"
#include "unit.h"

static pgwt_pg_backend
row(const char *type, bool no_database)
{
	pgwt_pg_backend b;

	memset(&b, 0, sizeof(b));
	snprintf(b.type, sizeof(b.type), "%s", type);
	b.no_database = no_database;
	return b;
}

static void
session_core_types(void)
{
	/* PG14..18 names of GetBackendTypeDesc, as pg_stat_activity shows them */
	static const char *const core[] = {
		"archiver", "autovacuum launcher", "autovacuum worker", "background writer",
		"checkpointer", "client backend", "dead-end client backend", "io worker",
		"logger", "slotsync worker", "standalone backend", "startup",
		"walreceiver", "walsender", "walsummarizer", "walwriter",
	};

	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
	{
		pgwt_pg_backend b = row(core[i], true);

		UNIT_CHECK(pgwt_pg_core_backend_type(core[i]));
		UNIT_CHECK(pgwt_pg_backend_is_session(&b));
	}
	/* near misses are not core types */
	UNIT_CHECK(!pgwt_pg_core_backend_type("Client backend"));
	UNIT_CHECK(!pgwt_pg_core_backend_type("client backend "));
	UNIT_CHECK(!pgwt_pg_core_backend_type("walwrite"));
	UNIT_CHECK(!pgwt_pg_core_backend_type(""));
}

static void
session_background_workers(void)
{
	pgwt_pg_backend b;

	/* without a database: no session */
	b = row("pg_wait_tracer sampler", true);
	UNIT_CHECK(!pgwt_pg_backend_is_session(&b));
	b = row("pg_wait_sampling collector", true);
	UNIT_CHECK(!pgwt_pg_backend_is_session(&b));
	b = row("logical replication launcher", true);
	UNIT_CHECK(!pgwt_pg_backend_is_session(&b));
	/* a worker whose type is gone shows NULL (read as "") */
	b = row("", true);
	UNIT_CHECK(!pgwt_pg_backend_is_session(&b));
	/* never shown for a worker, so it is the worker rule that applies */
	b = row("background worker", true);
	UNIT_CHECK(!pgwt_pg_backend_is_session(&b));
	/* connected to a database: a session */
	b = row("parallel worker", false);
	UNIT_CHECK(pgwt_pg_backend_is_session(&b));
	b = row("logical replication worker", false);
	UNIT_CHECK(pgwt_pg_backend_is_session(&b));
	b = row("pg_wait_tracer sampler", false);
	UNIT_CHECK(pgwt_pg_backend_is_session(&b));
}

void
run_session_rule_tests(void)
{
	UNIT_RUN(session_core_types);
	UNIT_RUN(session_background_workers);
}
