/*
 * test_cli.c
 *		Option parsing: defaults, every flag, and each bad input's message.
 */
#include <string.h>

#include "tracer/cli.h"
#include "unit.h"

#define ARGC(a) ((int) (sizeof(a) / sizeof((a)[0])) - 1)

static int
parse(char **argv, pgwt_options *o, char *err)
{
	int			argc = 0;

	while (argv[argc])
		argc++;
	return pgwt_options_parse(argc, argv, o, err, 256);
}

static void
cli_defaults(void)
{
	char	   *argv[] = {"pg_wait_tracer", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(argv, &o, err) == 0);
	UNIT_CHECK(o.sample_rate == 10);
	UNIT_CHECK(o.interval_s == 5);
	UNIT_CHECK(o.view == PGWT_VIEW_TIME_MODEL);
	UNIT_CHECK(o.format == PGWT_FORMAT_AUTO);
	UNIT_CHECK(o.retention_hours == 24);
	UNIT_CHECK(o.pid == 0 && !o.pgdata && !o.daemon && !o.replay);
	UNIT_CHECK(o.mode == PGWT_MODE_TIERED);
	UNIT_CHECK(o.escalation_budget == 300);
	UNIT_CHECK(o.anomaly_set == 0 && !o.lightweight && !o.skip_query_id);
	UNIT_CHECK(o.sampler_priority == -1);	/* auto: real-time as root */
	UNIT_CHECK(o.query_text == PGWT_QUERY_TEXT_NORMALIZED);
}

/* --fine: the histogram view's 32 ns buckets; refused elsewhere. */
static void
cli_fine(void)
{
	char	   *a1[] = {"x", "--replay", "-T", "/d", "-V", "histogram", "-e", "IO:DataFileRead", "--fine", NULL};
	char	   *a2[] = {"x", "--fine", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(a1, &o, err) == 0 && o.fine == 1);
	UNIT_CHECK(parse(a2, &o, err) == -1 && strstr(err, "--fine applies to --view histogram"));
}

static void
cli_sampler_priority(void)
{
	char	   *a1[] = {"x", "--sampler-priority", "off", NULL};
	char	   *a2[] = {"x", "--sampler-priority", "0", NULL};
	char	   *a3[] = {"x", "--sampler-priority", "10", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(a1, &o, err) == 0 && o.sampler_priority == 0);
	UNIT_CHECK(parse(a2, &o, err) == 0 && o.sampler_priority == 0);
	UNIT_CHECK(parse(a3, &o, err) == 0 && o.sampler_priority == 10);
}

static void
cli_tiers(void)
{
	char	   *a1[] = {"x", "--mode", "full", "--lightweight", "--skip-query-id", NULL};
	char	   *a2[] = {"x", "-T", "/d", "--escalation-budget", "unlimited",
		"--anomaly-aas-min", "1.5", "--anomaly-aas-ticks", "4", "--anomaly-cpu-cusum-disable",
		"--metrics-listen", "127.0.0.1:9187", NULL};
	char	   *a3[] = {"x", "--escalation-budget", "0", NULL};
	char	   *a4[] = {"x", "--mode", "sched", "--skip-query-id", "-T", "/d", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(a1, &o, err) == 0);
	UNIT_CHECK(o.mode == PGWT_MODE_FULL && o.lightweight && o.skip_query_id);
	UNIT_CHECK(parse(a2, &o, err) == 0);
	UNIT_CHECK(o.mode == PGWT_MODE_TIERED && o.escalation_budget == PGWT_CLI_BUDGET_UNLIMITED);
	UNIT_CHECK(o.anomaly_set == ((1u << PGWT_CLI_AN_AAS_MIN) | (1u << PGWT_CLI_AN_AAS_TICKS)));
	UNIT_CHECK(o.anomaly[PGWT_CLI_AN_AAS_MIN] == 1.5 && o.anomaly[PGWT_CLI_AN_AAS_TICKS] == 4);
	UNIT_CHECK(o.anomaly_cpu_disable && strcmp(o.metrics_listen, "127.0.0.1:9187") == 0);
	UNIT_CHECK(parse(a3, &o, err) == 0);
	UNIT_CHECK(o.escalation_budget == 0);
	/* the scheduler tier: exact from the start, its own name */
	UNIT_CHECK(parse(a4, &o, err) == 0);
	UNIT_CHECK(o.mode == PGWT_MODE_SCHED && o.skip_query_id && pgwt_mode_always_exact(o.mode));
	UNIT_CHECK(strcmp(pgwt_mode_name(o.mode), "sched") == 0);
	UNIT_CHECK(!pgwt_mode_always_exact(PGWT_MODE_TIERED) && pgwt_mode_always_exact(PGWT_MODE_FULL));
}

static void
cli_all_flags(void)
{
	char	   *argv[] = {"pg_wait_tracer", "-p", "1234", "--view", "query_event",
		"--sort", "db_time", "-f", "json", "--duration", "30", "-n", "3",
		"--window", "5s,1m,5m", "-Q", "-8123456789", "-T", "/tmp/t", "-R", "48",
		"--retention-gb", "1.5", "--trace-group", "dba", "--sample-rate", "100",
		"--mode", "tiered", "--dbname", "db1", "--user", "u1", "--host", "/tmp", "-v", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(argv, &o, err) == 0);
	UNIT_CHECK(o.pid == 1234);
	UNIT_CHECK(o.view == PGWT_VIEW_QUERY_EVENT);
	UNIT_CHECK(o.sort == PGWT_CLI_SORT_DB_TIME);
	UNIT_CHECK(o.format == PGWT_FORMAT_JSON);
	UNIT_CHECK(o.duration_s == 30 && o.count == 3);
	UNIT_CHECK(o.nwindows == 3);
	UNIT_CHECK(o.windows_ns[0] == 5000000000ull && o.windows_ns[2] == 300000000000ull);
	UNIT_CHECK(o.interval_s == 5);	/* taken from the first window */
	UNIT_CHECK(o.have_query_id && o.query_id == (uint64_t) -8123456789ll);
	UNIT_CHECK(strcmp(o.trace_dir, "/tmp/t") == 0);
	UNIT_CHECK(o.retention_hours == 48 && o.retention_gb == 1.5);
	UNIT_CHECK(o.sample_rate == 100);
	UNIT_CHECK(strcmp(o.dbname, "db1") == 0 && strcmp(o.user, "u1") == 0);
	UNIT_CHECK(o.verbose);
}

static void
cli_replay_and_daemon(void)
{
	char	   *a1[] = {"x", "--replay", "-T", "/d", "--from", "1h", "--to", "now", NULL};
	char	   *a2[] = {"x", "--daemon", "-T", "/d", "-R", "2", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(a1, &o, err) == 0);
	UNIT_CHECK(o.replay && strcmp(o.from, "1h") == 0 && strcmp(o.to, "now") == 0);
	UNIT_CHECK(parse(a2, &o, err) == 0);
	UNIT_CHECK(o.daemon && o.retention_hours == 2);
}

/* --query-text: normalized by default, none writes ids only; recording only. */
static void
cli_query_text(void)
{
	char	   *a1[] = {"x", "-T", "/d", NULL};
	char	   *a2[] = {"x", "-T", "/d", "--query-text", "none", NULL};
	char	   *a3[] = {"x", "--daemon", "-T", "/d", "--query-text", "normalized", NULL};
	char	   *b1[] = {"x", "-T", "/d", "--query-text", "full", NULL};
	char	   *b2[] = {"x", "--query-text", "none", NULL};
	char	   *b3[] = {"x", "--replay", "-T", "/d", "--query-text", "none", NULL};
	char	   *b4[] = {"x", "-T", "/d", "--query-text", "", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(a1, &o, err) == 0 && o.query_text == PGWT_QUERY_TEXT_NORMALIZED);
	UNIT_CHECK(parse(a2, &o, err) == 0 && o.query_text == PGWT_QUERY_TEXT_NONE);
	UNIT_CHECK(parse(a3, &o, err) == 0 && o.query_text == PGWT_QUERY_TEXT_NORMALIZED);
	/* a full-text mode does not exist: literals never reach the directory */
	UNIT_CHECK(parse(b1, &o, err) == -1 && strstr(err, "--query-text: 'normalized' or 'none', got 'full'"));
	UNIT_CHECK(parse(b2, &o, err) == -1 && strstr(err, "--query-text applies to recording"));
	UNIT_CHECK(parse(b3, &o, err) == -1 && strstr(err, "--query-text applies to recording"));
	UNIT_CHECK(parse(b4, &o, err) == -1 && strstr(err, "got ''"));
}

/* --exact-source: auto by default, tiered only, one of three names. */
static void
cli_exact_source(void)
{
	char	   *a1[] = {"x", NULL};
	char	   *a2[] = {"x", "--exact-source", "sched", NULL};
	char	   *a3[] = {"x", "--mode", "tiered", "--exact-source", "watch", NULL};
	char	   *b1[] = {"x", "--exact-source", "full", NULL};
	char	   *b2[] = {"x", "--mode", "sched", "--exact-source", "sched", NULL};
	char	   *b3[] = {"x", "--mode", "sampled", "--exact-source", "auto", NULL};
	pgwt_options o;
	char		err[256];

	UNIT_CHECK(parse(a1, &o, err) == 0 && o.exact_source == PGWT_EXACT_AUTO);
	UNIT_CHECK(parse(a2, &o, err) == 0 && o.exact_source == PGWT_EXACT_SCHED);
	UNIT_CHECK(parse(a3, &o, err) == 0 && o.exact_source == PGWT_EXACT_WATCH);
	UNIT_CHECK(strcmp(pgwt_exact_choice_name(PGWT_EXACT_AUTO), "auto") == 0);
	UNIT_CHECK(parse(b1, &o, err) == -1 && strstr(err, "--exact-source: unknown source 'full' (auto, watch, sched)"));
	UNIT_CHECK(parse(b2, &o, err) == -1 && strstr(err, "applies to --mode tiered (--mode sched has one source)"));
	UNIT_CHECK(parse(b3, &o, err) == -1 && strstr(err, "(--mode sampled has no exact windows)"));
}

/* Every bad input fails with a message naming the problem. */
static void
cli_bad_inputs(void)
{
	static const struct
	{
		const char *args[8];
		const char *msg;
	}			cases[] = {
		{{"--view", "nosuch"}, "unknown view 'nosuch'"},
		{{"--sort", "x"}, "unknown sort"},
		{{"--format", "xml"}, "unknown format"},
		{{"--sample-rate", "0"}, "1 to 1000"},
		{{"--sample-rate", "1001"}, "1 to 1000"},
		{{"--sample-rate", "10x"}, "1 to 1000"},
		{{"--interval", "0"}, "--interval"},
		{{"-p", "abc"}, "not a process id"},
		{{"-p", "-5"}, "not a process id"},
		{{"--window", "5s,1x"}, "--window: "},
		{{"--window", "1m,5s"}, "--window: "},
		{{"--window", "5s,1m", "-i", "10"}, "must equal --interval"},
		{{"--view", "histogram"}, "needs --event"},
		{{"--daemon", "-n", "3"}, "cannot be combined"},
		{{"--replay"}, "needs -T"},
		{{"--replay", "-T", "/d", "-V", "active"}, "live only"},
		{{"--from", "1h"}, "need --replay"},
		{{"--mode", "coop"}, "needs the pg_wait_tracer extension"},
		{{"--mode", "sampled", "--lightweight"}, "apply to the full tier"},
		{{"--lightweight"}, "applies to --mode full"},
		{{"--mode", "full", "--lightweight", "-T", "/d"}, "cannot record"},
		{{"--escalation-budget", "-1"}, "--escalation-budget"},
		{{"--escalation-budget", "lots"}, "--escalation-budget"},
		{{"--anomaly-lock-fraction", "1.5"}, "--anomaly-lock-fraction"},
		{{"--anomaly-aas-ticks", "2.5"}, "whole number"},
		{{"--mode", "full", "--anomaly-aas-min", "3"}, "apply to --mode tiered"},
		{{"--metrics-listen", "127.0.0.1:9000"}, "needs -T"},
		{{"--mode", "warp"}, "unknown mode"},
		{{"--mode", "sched", "--lightweight"}, "the scheduler tier writes transitions"},
		{{"--bogus"}, "unknown option --bogus"},
		{{"--view"}, "needs a value"},
		{{"extra"}, "unexpected argument"},
		{{"-p", "1", "-D", "/x"}, "mutually exclusive"},
		{{"-Q", "abc", "-V", "query_event"}, "not a query id"},
		{{"-R", "0"}, "--trace-retention"},
		{{"--retention-gb", "1"}, "need -T"},
		{{"--sampler-priority", "100"}, "--sampler-priority: a SCHED_FIFO priority"},
		{{"--sampler-priority", "-1"}, "--sampler-priority"},
		{{"--sampler-priority", "high"}, "--sampler-priority"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *argv[10];
		int			argc = 0;
		pgwt_options o;
		char		err[256] = "";

		argv[argc++] = "pg_wait_tracer";
		for (int k = 0; k < 8 && cases[i].args[k]; k++)
			argv[argc++] = (char *) cases[i].args[k];
		argv[argc] = NULL;
		if (pgwt_options_parse(argc, argv, &o, err, sizeof(err)) != -1 ||
			strstr(err, cases[i].msg) == NULL)
		{
			printf("FAIL cli_bad_inputs: case %zu (%s): got '%s'\n", i, cases[i].args[0], err);
			unit_current_failed = 1;
			unit_failures++;
			return;
		}
		UNIT_CHECK(strchr(err, '\n') == NULL);
	}
}

void
run_cli_tests(void)
{
	UNIT_RUN(cli_defaults);
	UNIT_RUN(cli_sampler_priority);
	UNIT_RUN(cli_fine);
	UNIT_RUN(cli_all_flags);
	UNIT_RUN(cli_replay_and_daemon);
	UNIT_RUN(cli_tiers);
	UNIT_RUN(cli_bad_inputs);
	UNIT_RUN(cli_query_text);
	UNIT_RUN(cli_exact_source);
}
