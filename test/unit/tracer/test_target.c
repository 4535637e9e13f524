/*
 * test_target.c
 *		postmaster.pid parsing, and the judgement of a would-be postmaster
 *		(pgwt_pm_judge): the facts of a real one pass; each lie of a fake
 *		one is refused, naming the fact.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

/* A real postmaster as /proc shows it: Debian's binary, run by postgres. */
static pgwt_pm_facts
real_postmaster(void)
{
	pgwt_pm_facts f;

	memset(&f, 0, sizeof(f));
	f.pid = 4242;
	snprintf(f.comm, sizeof(f.comm), "postgres");
	f.ppid = 1;
	snprintf(f.exe, sizeof(f.exe), "/usr/lib/postgresql/15/bin/postgres");
	f.exe_known = true;
	f.exe_uid = 0;
	f.exe_mode = S_IFREG | 0755;
	f.ids_known = true;
	f.ruid = f.euid = 101;
	snprintf(f.user, sizeof(f.user), "postgres");
	snprintf(f.cwd, sizeof(f.cwd), "/var/lib/postgresql/15/main");
	f.dir_known = true;
	f.dir_uid = 101;
	f.dir_mode = S_IFDIR | 0700;
	snprintf(f.dir_user, sizeof(f.dir_user), "postgres");
	f.pidfile_read = f.pidfile_regular = f.pidfile_parsed = true;
	f.pidfile_uid = 101;
	f.pidfile_pid = 4242;
	return f;
}

static pgwt_pm_verdict
judge(const pgwt_pm_facts *f, char *why)
{
	return pgwt_pm_judge(f, why, 1024);
}

static void
pm_real_accepted(void)
{
	pgwt_pm_facts f = real_postmaster();
	char		why[1024] = "";

	UNIT_CHECK(judge(&f, why) == PGWT_PM_OK);
	/* a 0750 data directory (initdb -g) is PostgreSQL's own choice */
	f.dir_mode = S_IFDIR | 0750;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_OK);
	/* replaced by a package upgrade while running: still the same binary */
	snprintf(f.exe, sizeof(f.exe), "/usr/lib/postgresql/15/bin/postgres (deleted)");
	UNIT_CHECK(judge(&f, why) == PGWT_PM_OK);
	/* --pgdata naming its cwd */
	f.want_pgdata = "/srv/pg";
	f.want_is_cwd = true;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_OK);
}

static void
pm_not_postmasters(void)
{
	pgwt_pm_facts f;
	char		why[1024];

	f = real_postmaster();
	snprintf(f.comm, sizeof(f.comm), "sleep");
	UNIT_CHECK(judge(&f, why) == PGWT_PM_NOT_POSTMASTER && strstr(why, "process name 'sleep'"));
	f = real_postmaster();
	f.parent_same_exe = true;
	f.ppid = 99;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_NOT_POSTMASTER && strstr(why, "a child of postmaster 99"));
	f = real_postmaster();
	f.pidfile_read = f.pidfile_regular = f.pidfile_parsed = false;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_NOT_POSTMASTER && strstr(why, "no postmaster.pid"));
	f = real_postmaster();
	f.pidfile_pid = 4243;		/* a stale file of an earlier server */
	UNIT_CHECK(judge(&f, why) == PGWT_PM_NOT_POSTMASTER && strstr(why, "no matching"));
	f = real_postmaster();
	f.exe[0] = '\0';
	UNIT_CHECK(judge(&f, why) == PGWT_PM_NOT_POSTMASTER && strstr(why, "are you root"));
}

/* Each fake: one fact changed from the real one, refused with that fact named. */
static void
pm_fakes_refused(void)
{
	pgwt_pm_facts f;
	char		why[1024];

	/* a copy of sleep named postgres, owned by the user who runs it */
	f = real_postmaster();
	snprintf(f.exe, sizeof(f.exe), "/tmp/x/postgres");
	f.exe_uid = 65534;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "pid 4242 is not trusted") &&
			   strstr(why, "belongs to uid 65534, not root"));
	/* a symlink named postgres to a root-owned program: exe is the program */
	f = real_postmaster();
	snprintf(f.exe, sizeof(f.exe), "/usr/bin/sleep");
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "/usr/bin/sleep is not a PostgreSQL server"));
	f = real_postmaster();
	f.exe_mode = S_IFREG | 0777;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "writable by group or others (mode 0777)"));
	/* another user's process in the data directory of postgres */
	f = real_postmaster();
	f.ruid = f.euid = 65534;
	snprintf(f.user, sizeof(f.user), "nobody");
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED &&
			   strstr(why, "runs as uid 65534 (nobody) but its data directory /var/lib/postgresql/15/main belongs to uid 101 (postgres)"));
	f = real_postmaster();
	f.euid = 0;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "real uid 101 and effective uid 0"));
	f = real_postmaster();
	f.ruid = f.euid = f.dir_uid = f.pidfile_uid = 0;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "runs as root"));
	f = real_postmaster();
	f.ids_known = false;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "user ids"));
	/* a pidfile planted in a directory others can write */
	f = real_postmaster();
	f.dir_mode = S_IFDIR | 01777;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "writable by group or others (mode 1777)"));
	f = real_postmaster();
	f.pidfile_uid = 65534;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "postmaster.pid belongs to uid 65534"));
	/* a FIFO or a symlink at postmaster.pid */
	f = real_postmaster();
	f.pidfile_regular = f.pidfile_parsed = false;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "not a regular file"));
	/* --pgdata whose postmaster.pid names a postmaster running elsewhere */
	f = real_postmaster();
	f.want_pgdata = "/tmp/crafted";
	f.want_is_cwd = false;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED &&
			   strstr(why, "runs in /var/lib/postgresql/15/main, not in --pgdata /tmp/crafted"));
	f = real_postmaster();
	f.exe_known = false;
	UNIT_CHECK(judge(&f, why) == PGWT_PM_UNTRUSTED && strstr(why, "cannot be examined"));
}

/* A reason never overruns the caller's buffer. */
static void
pm_why_bounded(void)
{
	pgwt_pm_facts f = real_postmaster();
	char		why[40];

	memset(f.cwd, 'd', sizeof(f.cwd) - 1);
	f.cwd[0] = '/';
	f.cwd[sizeof(f.cwd) - 1] = '\0';
	f.dir_uid = 7;
	UNIT_CHECK(pgwt_pm_judge(&f, why, sizeof(why)) == PGWT_PM_UNTRUSTED && strlen(why) == sizeof(why) - 1);
}

void
run_target_tests(void)
{
	UNIT_RUN(pidfile_parses);
	UNIT_RUN(pidfile_partial_and_bad);
	UNIT_RUN(pm_real_accepted);
	UNIT_RUN(pm_not_postmasters);
	UNIT_RUN(pm_fakes_refused);
	UNIT_RUN(pm_why_bounded);
}
