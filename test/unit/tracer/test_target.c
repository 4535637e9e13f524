/*
 * test_target.c
 *		postmaster.pid parsing.
 */
#include <string.h>

#include "tracer/target.h"
#include "unit.h"

static void
pidfile_parses(void)
{
	pgwt_pidfile pf;
	const char *t = "4242\n/var/lib/postgresql/15/main\n1764412800\n5432\n/var/run/postgresql\n*\n  5432001    65538\nready   \n";

	UNIT_CHECK(pgwt_pidfile_parse(t, &pf) == 0);
	UNIT_CHECK(pf.pid == 4242);
	UNIT_CHECK(strcmp(pf.datadir, "/var/lib/postgresql/15/main") == 0);
	UNIT_CHECK(pf.start_time == 1764412800);
	UNIT_CHECK(pf.port == 5432);
	UNIT_CHECK(strcmp(pf.sockdir, "/var/run/postgresql") == 0);
	UNIT_CHECK(strcmp(pf.status, "ready") == 0);
}

static void
pidfile_partial_and_bad(void)
{
	pgwt_pidfile pf;

	/* written early in start-up: no socket line yet */
	UNIT_CHECK(pgwt_pidfile_parse("77\n/data\n1\n5433\n", &pf) == 0);
	UNIT_CHECK(pf.port == 5433 && pf.sockdir[0] == '\0' && pf.status[0] == '\0');
	/* the socket is there, recovery still runs: not ready to connect to */
	UNIT_CHECK(pgwt_pidfile_parse("77\n/data\n1\n5433\n/tmp\n*\n 1 2\nstarting\n", &pf) == 0);
	UNIT_CHECK(strcmp(pf.status, "starting") == 0);
	UNIT_CHECK(pgwt_pidfile_parse("77\n/data\n1\n5433\n/tmp\n*\n 1 2\nstandby \n", &pf) == 0);
	UNIT_CHECK(strcmp(pf.status, "standby") == 0);
	UNIT_CHECK(pgwt_pidfile_parse("", &pf) == -1);
	UNIT_CHECK(pgwt_pidfile_parse("-77\n/data\n1\n5433\n", &pf) == -1);	/* standalone */
	UNIT_CHECK(pgwt_pidfile_parse("77\nrelative\n1\n5433\n", &pf) == -1);
	UNIT_CHECK(pgwt_pidfile_parse("77\n/data\n1\n99999\n", &pf) == -1);
	UNIT_CHECK(pgwt_pidfile_parse("77x\n/data\n1\n5433\n", &pf) == -1);
	UNIT_CHECK(pgwt_pidfile_parse("77\n/data\n", &pf) == -1);
}

void
run_target_tests(void)
{
	UNIT_RUN(pidfile_parses);
	UNIT_RUN(pidfile_partial_and_bad);
}
