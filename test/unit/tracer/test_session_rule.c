/*
 * test_session_rule.c
 *		The one process rule (common/process_rule.h): the kind of each
 *		pg_stat_activity.backend_type text, which kinds are DB time
 *		(client backends, parallel workers, unknown), and which are
 *		captured at all (all but database-less workers and our own).
 */
#include <string.h>

#include "common/process_rule.h"
#include "unit.h"

static void
session_kinds_of_core_types(void)
{
	/* PG14..18 names of GetBackendTypeDesc, as pg_stat_activity shows them */
	static const struct
	{
		const char *type;
		PgwtProcKind kind;
	}			core[] = {
		{"client backend", PGWT_PROC_CLIENT_BACKEND},
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
		{"io worker", PGWT_PROC_OTHER_AUX},
		{"walsummarizer", PGWT_PROC_OTHER_AUX},
		{"logger", PGWT_PROC_OTHER_AUX},
		{"pg_wait_tracer trace writer", PGWT_PROC_OWN_WORKER},
		{"pg_wait_tracer sampler", PGWT_PROC_OWN_WORKER},
		{"logical replication launcher", PGWT_PROC_BGWORKER},
		{"background worker", PGWT_PROC_BGWORKER},
		{"", PGWT_PROC_UNKNOWN},
	};

	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		UNIT_CHECK(pgwt_proc_kind_of_type(core[i].type) == core[i].kind);
	UNIT_CHECK(pgwt_proc_kind_of_type(NULL) == PGWT_PROC_UNKNOWN);
	/* near misses are some worker's bgw_type, not a core type */
	UNIT_CHECK(pgwt_proc_kind_of_type("Client backend") == PGWT_PROC_BGWORKER);
	UNIT_CHECK(pgwt_proc_kind_of_type("client backend ") == PGWT_PROC_BGWORKER);
	UNIT_CHECK(pgwt_proc_kind_of_type("walwrite") == PGWT_PROC_BGWORKER);
}

static void
session_db_time_rule(void)
{
	/* DB time: user sessions, their parallel workers, and the unknown */
	UNIT_CHECK(pgwt_kind_is_session(pgwt_proc_kind_of_type("client backend")));
	UNIT_CHECK(pgwt_kind_is_session(pgwt_proc_kind_of_type("parallel worker")));
	UNIT_CHECK(pgwt_kind_is_session(pgwt_proc_kind_of_type("")));
	/* everything else is background */
	UNIT_CHECK(!pgwt_kind_is_session(pgwt_proc_kind_of_type("checkpointer")));
	UNIT_CHECK(!pgwt_kind_is_session(pgwt_proc_kind_of_type("walwriter")));
	UNIT_CHECK(!pgwt_kind_is_session(pgwt_proc_kind_of_type("autovacuum worker")));
	UNIT_CHECK(!pgwt_kind_is_session(pgwt_proc_kind_of_type("walsender")));
	UNIT_CHECK(!pgwt_kind_is_session(pgwt_proc_kind_of_type("pg_wait_tracer trace writer")));
	UNIT_CHECK(!pgwt_kind_is_session(pgwt_proc_kind_of_type("logical replication worker")));
	for (int k = 0; k < PGWT_PROC_NKINDS; k++)
		UNIT_CHECK(pgwt_kind_is_session((PgwtProcKind) k) ==
				   (k == PGWT_PROC_CLIENT_BACKEND || k == PGWT_PROC_PARALLEL_WORKER ||
					k == PGWT_PROC_UNKNOWN));
}

static void
session_capture_rule(void)
{
	/* core processes are captured with or without a database */
	UNIT_CHECK(pgwt_kind_is_captured(pgwt_proc_kind_of_type("checkpointer"), false));
	UNIT_CHECK(pgwt_kind_is_captured(pgwt_proc_kind_of_type("client backend"), true));
	UNIT_CHECK(pgwt_kind_is_captured(PGWT_PROC_UNKNOWN, false));
	/* a worker only once it connected to a database */
	UNIT_CHECK(!pgwt_kind_is_captured(pgwt_proc_kind_of_type("pg_wait_sampling collector"), false));
	UNIT_CHECK(!pgwt_kind_is_captured(pgwt_proc_kind_of_type("background worker"), false));
	UNIT_CHECK(pgwt_kind_is_captured(pgwt_proc_kind_of_type("logical replication worker"), true));
	UNIT_CHECK(pgwt_kind_is_captured(pgwt_proc_kind_of_type("parallel worker"), true));
	/* our own workers never */
	UNIT_CHECK(!pgwt_kind_is_captured(pgwt_proc_kind_of_type("pg_wait_tracer sampler"), true));
	UNIT_CHECK(!pgwt_kind_is_captured(pgwt_proc_kind_of_type("pg_wait_tracer trace writer"), false));
}

void
run_session_rule_tests(void)
{
	UNIT_RUN(session_kinds_of_core_types);
	UNIT_RUN(session_db_time_rule);
	UNIT_RUN(session_capture_rule);
}
