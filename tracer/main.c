/*
 * main.c
 *		pg_wait_tracer: parse the command line and run live, daemon or
 *		replay. Exit status 0 on success, 1 on any error (one line on
 *		stderr), 2 on bad usage.
 */
#include <stdio.h>

#include "tracer/cli.h"
#include "tracer/live.h"
#include "tracer/replay.h"
#include "tracer/watch_source.h"

int
main(int argc, char **argv)
{
	pgwt_options o;
	char		err[512];

	if (pgwt_options_parse(argc, argv, &o, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "pg_wait_tracer: %s (see --help)\n", err);
		return 2;
	}
	if (o.help)
	{
		pgwt_usage(stdout);
		return 0;
	}
	if (o.check_exact)
	{
		pgwt_watch_self_test r;
		int			rc = pgwt_exact_probe(&r);

		printf("exact tier: %s: %s\n", rc == 0 ? "available" : "unavailable", r.why);
		return rc == 0 ? 0 : 1;
	}
	if (o.replay)
		return pgwt_run_replay(&o);
	return pgwt_run_live(&o);
}
