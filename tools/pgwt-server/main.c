/*
 * main.c
 *		pgwt-server: the web investigation client's server. Serves the page
 *		(web/) and a JSON API over one trace directory (docs/WEB.md);
 *		every figure is computed by analysis/. "--dump" keeps the seed
 *		tool's spelling of pgwt-dump: it runs the pgwt-dump beside it.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "srv_args.h"
#include "srv_http.h"
#include "srv_load.h"

static int
srv_exec_dump(int argc, char **argv)
{
	char		exe[PATH_MAX],
				path[PATH_MAX + 16];
	ssize_t		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (argc < 3)
	{
		fprintf(stderr, "pgwt-server: --dump needs a trace directory or file\n");
		return 2;
	}
	if (n <= 0)
	{
		fprintf(stderr, "pgwt-server: cannot find the program's directory\n");
		return 1;
	}
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/pgwt-dump", dirname(exe));
	argv[1] = path;
	execv(path, argv + 1);
	perror("pgwt-server: running pgwt-dump");
	return 1;
}

int
main(int argc, char **argv)
{
	srv_config	cfg;
	int			rc;

	if (argc > 1 && strcmp(argv[1], "--dump") == 0)
		return srv_exec_dump(argc, argv);
	if ((rc = srv_parse_args(argc, argv, &cfg)) != 0)
		return rc;
	srv_load_set_max_records(cfg.max_records);
	return srv_http_run(&cfg);
}
